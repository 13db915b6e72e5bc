/*
 * run.c - the solve command: plan, expand, connect, home, execute; on a
 * failure, stop and either report or (--recover) work out where the cube
 * is, home again and finish it with a new plan. Then the report: what was
 * planned, what the firmware confirmed, and predicted against measured
 * time per robot step and in total, as text or JSON.
 *
 * Success is claimed only when every primitive of the last plan was
 * confirmed done, and, when the firmware reports its cube (quadsim's
 * CUBE_STATE feature), that cube is the one the controller's own replay
 * predicts and it is solved.
 */
#include "ctl.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

const char *ctl_strerror(int err)
{
    switch (err) {
    case CTL_OK: return "success";
    case CTL_ERR_USAGE: return "bad command line";
    case CTL_ERR_IO: return "cannot open or use the port";
    case CTL_ERR_CONNECT: return "no handshake with the firmware";
    case CTL_ERR_HOMING: return "homing failed";
    case CTL_ERR_FAULT: return "the firmware reported a fault";
    case CTL_ERR_REFUSED: return "the firmware refused steps";
    case CTL_ERR_LINK_LOST: return "the link to the firmware was lost";
    case CTL_ERR_PEER_RESET: return "the firmware restarted";
    case CTL_ERR_TIMEOUT: return "a step did not finish in time";
    case CTL_ERR_STOPPED: return "the firmware stopped";
    case CTL_ERR_SOLVER: return "no solution from the solver";
    case CTL_ERR_CUBE: return "invalid cube";
    case CTL_ERR_STATE: return "the firmware's cube is not the expected one";
    case CTL_ERR_PLAN: return "the plan cannot be executed";
    case CTL_ERR_PROTOCOL: return "the firmware broke the protocol";
    case CTL_ERR_NOMEM: return "out of memory";
    default: return "unknown error";
    }
}

const char *ctl_errcode(int err)
{
    switch (err) {
    case CTL_OK: return "OK";
    case CTL_ERR_USAGE: return "USAGE";
    case CTL_ERR_IO: return "IO";
    case CTL_ERR_CONNECT: return "CONNECT";
    case CTL_ERR_HOMING: return "HOMING";
    case CTL_ERR_FAULT: return "FAULT";
    case CTL_ERR_REFUSED: return "REFUSED";
    case CTL_ERR_LINK_LOST: return "LINK_LOST";
    case CTL_ERR_PEER_RESET: return "PEER_RESET";
    case CTL_ERR_TIMEOUT: return "TIMEOUT";
    case CTL_ERR_STOPPED: return "STOPPED";
    case CTL_ERR_SOLVER: return "SOLVER";
    case CTL_ERR_CUBE: return "CUBE";
    case CTL_ERR_STATE: return "STATE";
    case CTL_ERR_PLAN: return "PLAN";
    case CTL_ERR_PROTOCOL: return "PROTOCOL";
    case CTL_ERR_NOMEM: return "NOMEM";
    default: return "UNKNOWN";
    }
}

int ctl_exit_status(int err)
{
    switch (err) {
    case CTL_OK: return 0;
    case CTL_ERR_USAGE: return 2;
    case CTL_ERR_SOLVER:
    case CTL_ERR_CUBE:
    case CTL_ERR_PLAN:
    case CTL_ERR_NOMEM: return 3;
    case CTL_ERR_IO:
    case CTL_ERR_CONNECT:
    case CTL_ERR_HOMING: return 4;
    case CTL_ERR_STATE: return 5;
    default: return 1; /* the execution stopped */
    }
}

/* ----------------------------------------------------------------- plans */

/* Offline: the given moves not yet done, seen from where the cube is now,
 * planned here. */
static int plan_offline(ctl_run *r, const robot_model *m, ctl_attempt *a)
{
    a->n_moves = 0;
    for (int i = r->moves_done; i < r->n_given; i++)
        a->moves[a->n_moves++] = ctl_view_move(&r->world, r->given[i]);
    int rc = robot_plan(m, &r->solver.profile, r->solver.objective, a->moves,
                        a->n_moves, &a->plan);
    if (rc != ROBOT_OK) {
        snprintf(a->message, sizeof a->message, "planning failed: %s",
                 robot_strerror(rc));
        return CTL_ERR_PLAN;
    }
    qs_cube c;
    char detail[200];
    if (qs_cube_from_facelets(a->cube, &c, detail, sizeof detail) != QS_OK) {
        snprintf(a->message, sizeof a->message, "%s", detail);
        return CTL_ERR_CUBE;
    }
    rc = robot_check(&a->plan, &c, &r->solver.profile, detail, sizeof detail);
    if (rc != ROBOT_OK) {
        snprintf(a->message, sizeof a->message,
                 "the moves do not solve the cube: %s: %s", robot_errcode(rc),
                 detail);
        return rc == ROBOT_ERR_NOT_SOLVED ? CTL_ERR_CUBE : CTL_ERR_PLAN;
    }
    return CTL_OK;
}

static int make_plan(ctl_run *r, const robot_model *m, ctl_attempt *a)
{
    int rc;
    if (r->offline) {
        rc = plan_offline(r, m, a);
    } else {
        rc = ctl_solver_plan(&r->solver, a->cube, a->moves, &a->n_moves,
                             &a->plan, a->message, sizeof a->message);
    }
    if (rc != CTL_OK)
        return rc;
    char detail[200];
    int n = robot_expand(a->plan.steps, a->plan.n, a->prims, ROBOT_MAX_PRIMS,
                         detail, sizeof detail);
    if (n < 0) {
        snprintf(a->message, sizeof a->message, "plan not executable: %s",
                 detail);
        return CTL_ERR_PLAN;
    }
    a->n_prims = n;
    robot_prims_us(&r->solver.profile, a->prims, n, a->us);
    /* robot_action is fwp_action by value (robot.h). */
    _Static_assert((int)ROBOT_ACT_CLOSE == (int)FWP_ACT_CLOSE &&
                       (int)ROBOT_ACT_HALF == (int)FWP_ACT_HALF &&
                       (int)ROBOT_GRIPPERS == (int)FWP_GRIPPERS,
                   "robot_action must match fwp_action");
    for (int i = 0; i < n; i++) {
        memset(&a->steps[i], 0, sizeof a->steps[i]);
        memcpy(a->steps[i].action, a->prims[i].action, FWP_GRIPPERS);
    }
    return CTL_OK;
}

/* ------------------------------------------------------------------- run */

static int finish(ctl_run *r, int err, const char *msg)
{
    r->err = err;
    if (msg)
        snprintf(r->message, sizeof r->message, "%s", msg);
    r->end_us = ctl_now_us();
    return err;
}

int ctl_run_solve(ctl_run *r)
{
    robot_model *model = malloc(sizeof *model);
    ctl_session *s = calloc(1, sizeof *s);
    if (!model || !s) {
        free(model);
        free(s);
        return finish(r, CTL_ERR_NOMEM, "out of memory");
    }
    robot_model_init(model);
    r->start_us = ctl_now_us();
    qs_cube c0;
    char detail[256];
    int rc = qs_cube_from_facelets(r->cube, &c0, detail, sizeof detail);
    if (rc != QS_OK) {
        free(model);
        free(s);
        return finish(r, CTL_ERR_CUBE, detail);
    }
    robot_sim_init(&r->world, &c0);
    bool open = false;
    int limit = r->recover ? r->max_attempts : 1;
    if (limit > CTL_MAX_ATTEMPTS)
        limit = CTL_MAX_ATTEMPTS;
    rc = CTL_OK;
    for (int k = 0; k < limit; k++) {
        ctl_attempt *a = calloc(1, sizeof *a);
        if (!a) {
            rc = finish(r, CTL_ERR_NOMEM, "out of memory");
            break;
        }
        r->att[r->n_att++] = a;
        robot_sim_view(&r->world, a->cube);
        rc = make_plan(r, model, a);
        if (rc != CTL_OK) {
            a->err = rc;
            finish(r, rc, a->message);
            break;
        }
        ctl_say(
            &r->conn, 1,
            "plan %d: %d robot steps, %d protocol steps, %.0f ms predicted",
            k + 1, a->plan.n, a->n_prims, a->plan.cost_ms);
        if (!open) {
            rc = ctl_session_open(s, &r->conn, detail, sizeof detail);
            if (rc != CTL_OK) {
                a->err = rc;
                snprintf(a->message, sizeof a->message, "%s", detail);
                finish(r, rc, detail);
                break;
            }
            open = true;
        }
        /* Homing: the grippers neutral and closed, as every plan assumes;
         * the cube keeps its orientation, which the world knows. */
        rc = ctl_session_home(s, detail, sizeof detail);
        if (rc != CTL_OK) {
            a->err = rc;
            snprintf(a->message, sizeof a->message, "%s", detail);
            finish(r, rc, detail);
            break;
        }
        memset(r->world.quarters, 0, sizeof r->world.quarters);
        a->x.n = a->n_prims;
        a->x.ms = a->ms;
        a->x.done_us = a->done_us;
        a->executed = true;
        rc = ctl_session_execute(s, a->steps, &a->x);
        int turns = 0;
        int applied = ctl_replay_done(&r->world, a->plan.steps, a->plan.n,
                                      a->prims, a->n_prims, a->x.confirmed,
                                      &turns);
        if (applied < 0) {
            a->err = CTL_ERR_PLAN;
            snprintf(a->message, sizeof a->message,
                     "replaying the confirmed steps failed: %s",
                     robot_strerror(applied));
            finish(r, CTL_ERR_PLAN, a->message);
            break;
        }
        r->moves_done += turns;
        if (rc == CTL_OK)
            break;
        a->err = rc;
        snprintf(a->message, sizeof a->message, "%s", a->x.message);
        finish(r, rc, a->x.message);
        if (!a->x.exact) {
            /* The firmware did not say that it stopped: its last STATUS
             * may be older than the steps it ran, so nothing is known. */
            if (r->recover)
                ctl_say(&r->conn, 1,
                        "cannot recover: what ran beyond the confirmed steps "
                        "is unknown");
            break;
        }
        /* The firmware's cube, when it reports one, must be the replay's:
         * otherwise recovering would solve the wrong cube. */
        if (s->status.has_cube && s->n_status) {
            char want[55];
            qs_cube_to_facelets(&r->world.cube, want);
            if (memcmp(want, s->status.cube, 54) != 0) {
                rc = finish(r, CTL_ERR_STATE,
                            "the firmware's cube is not the cube of the "
                            "confirmed steps");
                break;
            }
        }
        /* Protocol 2's STATUS says where the cube points and how the
         * grippers stand: the grips are taken from it (homing then puts
         * them right), and an orientation other than the replay's means
         * the confirmed steps are not what the robot did. */
        if (s->n_status && s->status.up != FWP_FACE_UNKNOWN) {
            if (s->status.up != robot_sim_face_at(&r->world, 0) ||
                s->status.front != robot_sim_face_at(&r->world, 2)) {
                char msg[160];
                snprintf(msg, sizeof msg,
                         "the firmware holds the cube with %c up and %c in "
                         "front, the confirmed steps make %c and %c",
                         ctl_status_face(s->status.up),
                         ctl_status_face(s->status.front),
                         "URFDLB"[robot_sim_face_at(&r->world, 0)],
                         "URFDLB"[robot_sim_face_at(&r->world, 2)]);
                rc = finish(r, CTL_ERR_STATE, msg);
                break;
            }
            for (int g = 0; g < FWP_GRIPPERS; g++)
                if (s->status.grip[g] != FWP_GRIP_UNKNOWN)
                    r->world.quarters[g] =
                        (uint8_t)(s->status.grip[g] & FWP_GRIP_ANGLE);
            r->status_used++;
        }
        if (!r->recover || k + 1 >= limit)
            break;
        char grips[64];
        ctl_status_describe(&s->status, grips, sizeof grips);
        ctl_say(&r->conn, 1,
                "recovering: %d of %d protocol steps were done; the "
                "firmware says %s",
                a->x.confirmed, a->n_prims, grips);
    }
    if (rc == CTL_OK) {
        /* A firmware that knows its cube can confirm the result. */
        if (ctl_session_status(s, &r->final, detail, sizeof detail) == CTL_OK) {
            r->have_final = true;
            if (r->final.has_cube) {
                char want[55], msg[256];
                qs_cube_to_facelets(&r->world.cube, want);
                if (memcmp(want, r->final.cube, 54) != 0) {
                    snprintf(msg, sizeof msg,
                             "the firmware's cube %.54s is not %s: the cube "
                             "given is not the robot's",
                             r->final.cube,
                             qs_cube_is_solved(&r->world.cube)
                                 ? "solved"
                                 : "the cube the confirmed steps make");
                    rc = finish(r, CTL_ERR_STATE, msg);
                }
            }
        }
        if (rc == CTL_OK && !qs_cube_is_solved(&r->world.cube))
            rc = finish(r, CTL_ERR_STATE,
                        "the confirmed steps do not solve the cube");
        if (rc == CTL_OK)
            finish(r, CTL_OK, "solved");
    }
    if (open)
        ctl_session_close(s);
    free(s);
    free(model);
    return r->err;
}

/* The grippers and the orientation of a STATUS into a JSON object. */
void ctl_status_json(struct cJSON *o, const fwp_status *st)
{
    cJSON *g = cJSON_AddArrayToObject(o, "grippers");
    for (int i = 0; g && i < FWP_GRIPPERS; i++) {
        char one[3];
        ctl_status_grip(st, i, one);
        cJSON_AddItemToArray(g, cJSON_CreateString(one));
    }
    char up[2] = {ctl_status_face(st->up), 0};
    char front[2] = {ctl_status_face(st->front), 0};
    cJSON_AddStringToObject(o, "up", up);
    cJSON_AddStringToObject(o, "front", front);
}

void ctl_run_free(ctl_run *r)
{
    for (int i = 0; i < r->n_att; i++)
        free(r->att[i]);
    r->n_att = 0;
    ctl_solver_close(&r->solver);
}

/* ---------------------------------------------------------------- report */

/* Per robot step of an attempt: predicted and measured ms, and how many
 * of its primitives were confirmed. */
typedef struct {
    double predicted, expected, measured;
    int prims, done;
    bool unknown; /* a primitive known done only from STATUS: no time */
} step_times;

static void step_table(const ctl_attempt *a, const robot_profile *p,
                       step_times *t)
{
    for (int i = 0; i < a->plan.n; i++) {
        t[i].predicted = (double)robot_step_us(p, &a->plan.steps[i]) / 1000.0;
        t[i].measured = t[i].expected = 0;
        t[i].prims = t[i].done = 0;
        t[i].unknown = false;
    }
    for (int i = 0; i < a->n_prims; i++) {
        step_times *st = &t[a->prims[i].step];
        st->prims++;
        st->expected += (double)a->us[i] / 1000.0;
        if (i < a->x.confirmed) {
            st->done++;
            st->measured += a->ms[i];
            st->unknown |= i >= a->x.confirmed - a->x.by_status;
        }
    }
}

static double wall_ms(const ctl_attempt *a)
{
    if (!a->x.start_us || !a->x.end_us)
        return 0;
    return (double)(a->x.end_us - a->x.start_us) / 1000.0;
}

static void text_report(const ctl_run *r, FILE *out)
{
    const robot_profile *p = &r->solver.profile;
    double pred = 0, expect = 0, meas = 0, wall = 0;
    int prims = 0, done = 0;
    for (int k = 0; k < r->n_att; k++) {
        const ctl_attempt *a = r->att[k];
        if (!a->n_prims && !a->plan.n)
            continue;
        char text[4096];
        if (robot_steps_format(a->plan.steps, a->plan.n, text, sizeof text) < 0)
            snprintf(text, sizeof text, "?");
        fprintf(out, "plan %d: %d robot moves, %d protocol steps, predicted "
                     "%.1f ms (profile %s): %s\n",
                k + 1, a->plan.n, a->n_prims, a->plan.cost_ms, p->name, text);
        if (!a->executed)
            continue;
        step_times *t = calloc((size_t)(a->plan.n ? a->plan.n : 1), sizeof *t);
        if (!t)
            continue;
        step_table(a, p, t);
        fprintf(out, "  %-4s %-16s %5s %12s %12s %12s\n", "step", "robot",
                "prims", "predicted_ms", "expected_ms", "measured_ms");
        for (int i = 0; i < a->plan.n; i++) {
            char one[64];
            robot_steps_format(&a->plan.steps[i], 1, one, sizeof one);
            if (t[i].done == t[i].prims && t[i].unknown)
                fprintf(out, "  %-4d %-16s %5d %12.1f %12.1f %12s (done, "
                             "reports lost)\n",
                        i + 1, one, t[i].prims, t[i].predicted, t[i].expected,
                        "?");
            else if (t[i].done == t[i].prims)
                fprintf(out, "  %-4d %-16s %5d %12.1f %12.1f %12.1f\n", i + 1,
                        one, t[i].prims, t[i].predicted, t[i].expected,
                        t[i].measured);
            else
                fprintf(out, "  %-4d %-16s %5d %12.1f %12.1f %12s (%d of %d "
                             "done)\n",
                        i + 1, one, t[i].prims, t[i].predicted, t[i].expected,
                        "-", t[i].done, t[i].prims);
            if (t[i].done == t[i].prims && !t[i].unknown) {
                pred += t[i].predicted;
                expect += t[i].expected;
                meas += t[i].measured;
            }
        }
        free(t);
        prims += a->n_prims;
        done += a->x.confirmed;
        wall += wall_ms(a);
        if (a->err) {
            fprintf(out, "  stopped: %s: %s\n", ctl_errcode(a->err),
                    a->message);
            fprintf(out, "  executed: %d of %d protocol steps confirmed done"
                         "%s (step ids %u..%u)%s\n",
                    a->x.confirmed, a->n_prims,
                    a->x.by_status ? " (some by STATUS last_step)" : "",
                    a->x.first_id,
                    (unsigned)((a->x.first_id + a->x.confirmed + 0xFFFEu) %
                               0xFFFFu),
                    a->x.exact ? ""
                               : "; later steps may have run unconfirmed");
        }
    }
    if (pred > 0)
        fprintf(out, "time: predicted %.1f ms, expected %.1f ms, measured "
                     "%.1f ms (%+.1f%% of predicted), wall %.1f ms, for the "
                     "robot steps done\n",
                pred, expect, meas, 100.0 * (meas - pred) / pred, wall);
    if (r->have_final && r->final.has_cube)
        fprintf(out, "firmware cube: %.54s\n", r->final.cube);
    if (r->err == CTL_OK && r->n_att == 1) {
        fprintf(out, "result: solved, %d of %d protocol steps confirmed "
                     "done\n",
                done, prims);
    } else if (r->err == CTL_OK) {
        fprintf(out, "result: solved in %d plans, %d protocol steps confirmed "
                     "done (",
                r->n_att, done);
        for (int k = 0; k < r->n_att; k++)
            fprintf(out, "%s%d of %d", k ? ", then " : "",
                    r->att[k]->x.confirmed, r->att[k]->n_prims);
        fprintf(out, ")\n");
    } else
        fprintf(out, "result: error: %s: %s (%d protocol steps confirmed "
                     "done)\n",
                ctl_errcode(r->err), r->message, done);
}

static cJSON *error_json(int err, const char *msg)
{
    if (err == CTL_OK)
        return cJSON_CreateNull();
    cJSON *e = cJSON_CreateObject();
    cJSON_AddStringToObject(e, "code", ctl_errcode(err));
    cJSON_AddStringToObject(e, "message", msg);
    return e;
}

static void json_report(const ctl_run *r, FILE *out)
{
    const robot_profile *p = &r->solver.profile;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddBoolToObject(o, "ok", r->err == CTL_OK);
    cJSON_AddStringToObject(o, "cube", r->cube);
    cJSON_AddStringToObject(o, "profile", p->name);
    cJSON_AddItemToObject(o, "error", error_json(r->err, r->message));
    cJSON *atts = cJSON_AddArrayToObject(o, "attempts");
    double pred = 0, expect = 0, meas = 0, wall = 0;
    int prims = 0, done = 0, robot = 0;
    for (int k = 0; k < r->n_att; k++) {
        const ctl_attempt *a = r->att[k];
        cJSON *j = cJSON_CreateObject();
        cJSON_AddItemToArray(atts, j);
        cJSON_AddStringToObject(j, "cube", a->cube);
        char text[4096];
        if (qs_moves_format(a->moves, a->n_moves, text, sizeof text) < 0)
            text[0] = '\0';
        cJSON_AddStringToObject(j, "moves", text);
        if (robot_steps_format(a->plan.steps, a->plan.n, text, sizeof text) < 0)
            text[0] = '\0';
        cJSON_AddStringToObject(j, "plan", text);
        cJSON_AddNumberToObject(j, "robot_moves", a->plan.n);
        cJSON_AddNumberToObject(j, "prims", a->n_prims);
        cJSON_AddNumberToObject(j, "predicted_ms", a->plan.cost_ms);
        double all = 0;
        for (int i = 0; i < a->n_prims; i++)
            all += (double)a->us[i] / 1000.0;
        cJSON_AddNumberToObject(j, "expected_ms", all);
        cJSON_AddItemToObject(j, "error", error_json(a->err, a->message));
        if (!a->executed)
            continue;
        cJSON_AddNumberToObject(j, "confirmed", a->x.confirmed);
        cJSON_AddNumberToObject(j, "confirmed_by_status", a->x.by_status);
        cJSON_AddBoolToObject(j, "exact", a->x.exact);
        cJSON_AddNumberToObject(j, "first_id", a->x.first_id);
        cJSON_AddNumberToObject(j, "busy_naks", a->x.busy_naks);
        cJSON_AddNumberToObject(j, "wall_ms", wall_ms(a));
        step_times *t = calloc((size_t)(a->plan.n ? a->plan.n : 1), sizeof *t);
        if (!t)
            continue;
        step_table(a, p, t);
        cJSON *steps = cJSON_AddArrayToObject(j, "steps");
        double ap = 0, ae = 0, am = 0;
        int robot_done = 0;
        for (int i = 0; i < a->plan.n; i++) {
            cJSON *st = cJSON_CreateObject();
            char one[64];
            robot_steps_format(&a->plan.steps[i], 1, one, sizeof one);
            cJSON_AddStringToObject(st, "step", one);
            cJSON_AddNumberToObject(st, "prims", t[i].prims);
            cJSON_AddNumberToObject(st, "done", t[i].done);
            cJSON_AddNumberToObject(st, "predicted_ms", t[i].predicted);
            cJSON_AddNumberToObject(st, "expected_ms", t[i].expected);
            if (t[i].done == t[i].prims && !t[i].unknown) {
                cJSON_AddNumberToObject(st, "measured_ms", t[i].measured);
                ap += t[i].predicted;
                ae += t[i].expected;
                am += t[i].measured;
            } else {
                cJSON_AddNullToObject(st, "measured_ms");
            }
            robot_done += t[i].done == t[i].prims;
            cJSON_AddItemToArray(steps, st);
        }
        free(t);
        cJSON_AddNumberToObject(j, "robot_steps_done", robot_done);
        cJSON_AddNumberToObject(j, "done_predicted_ms", ap);
        cJSON_AddNumberToObject(j, "done_expected_ms", ae);
        cJSON_AddNumberToObject(j, "measured_ms", am);
        pred += ap;
        expect += ae;
        meas += am;
        wall += wall_ms(a);
        prims += a->n_prims;
        done += a->x.confirmed;
        robot += robot_done;
    }
    cJSON *tot = cJSON_AddObjectToObject(o, "total");
    cJSON_AddNumberToObject(tot, "robot_steps_done", robot);
    cJSON_AddNumberToObject(tot, "status_used", r->status_used);
    cJSON_AddNumberToObject(tot, "prims", prims);
    cJSON_AddNumberToObject(tot, "confirmed", done);
    cJSON_AddNumberToObject(tot, "predicted_ms", pred);
    cJSON_AddNumberToObject(tot, "expected_ms", expect);
    cJSON_AddNumberToObject(tot, "measured_ms", meas);
    cJSON_AddNumberToObject(tot, "wall_ms", wall);
    cJSON_AddNumberToObject(tot, "run_ms",
                            (double)(r->end_us - r->start_us) / 1000.0);
    if (r->have_final) {
        cJSON *f = cJSON_AddObjectToObject(o, "firmware");
        cJSON_AddNumberToObject(f, "state", r->final.state);
        cJSON_AddNumberToObject(f, "last_step", r->final.last_step);
        ctl_status_json(f, &r->final);
        if (r->final.has_cube) {
            char cube[55];
            memcpy(cube, r->final.cube, 54);
            cube[54] = '\0';
            cJSON_AddStringToObject(f, "cube", cube);
        }
    }
    char *text = cJSON_PrintUnformatted(o);
    if (text) {
        fprintf(out, "%s\n", text);
        cJSON_free(text);
    }
    cJSON_Delete(o);
}

void ctl_report(const ctl_run *r, FILE *out)
{
    if (r->json)
        json_report(r, out);
    else
        text_report(r, out);
    fflush(out);
}
