/*
 * calibrate.c - a robot profile from measured step durations, so the
 * solver's cost model (robot_step_us) predicts what the real robot, driven
 * by this controller, does.
 *
 * Each primitive's duration comes from the firmware's EVENT DONE. They are
 * sorted by what the primitive is: an opening, a closing, a turn of one
 * of the four turn classes, the motion of a tilt, a full regrip (its
 * three primitives together), and a turn with parallel regrips (its
 * three together). A settle time cannot be told apart from the motion it
 * follows, so the base profile's settle_ms is kept and subtracted. The
 * profile's parallel-regrip surcharge is then what such a step costs
 * beyond its turn: with the expansion of robot_expand that is the opening
 * and the closing, which the base profile assumes hidden.
 */
#include "ctl.h"

#include <stdlib.h>
#include <string.h>

static void add(ctl_sample *s, double v)
{
    if (v < 0)
        v = 0;
    s->sum += v;
    s->n++;
}

static double mean(const ctl_sample *s, double fallback)
{
    return s->n ? s->sum / s->n : fallback;
}

static int turn_class(int m)
{
    if (m < 18)
        return m % 3 == 1 ? 1 : 0;
    int q0 = (m - 18) / 3 % 3, q1 = (m - 18) % 3;
    return q0 == 1 || q1 == 1 ? 3 : 2;
}

void ctl_calibration_add(ctl_calibration *c, const robot_step *plan,
                         const robot_prim *prims, int n_prims, int done,
                         const uint16_t *ms, double settle_ms)
{
    int i = 0;
    if (done > n_prims)
        done = n_prims;
    while (i < done) {
        int k = prims[i].step, j = i;
        double total = 0;
        while (j < done && prims[j].step == k)
            total += ms[j++];
        /* Only whole robot steps: a cut-off one says nothing of its kind. */
        if (j == done && j < n_prims && prims[j].step == k)
            break;
        const robot_step *s = &plan[k];
        for (int t = i; t < j; t++) {
            if (prims[t].role == ROBOT_PRIM_OPEN)
                add(&c->open, ms[t]);
            else if (prims[t].role == ROBOT_PRIM_CLOSE)
                add(&c->close, ms[t]);
            else if (s->kind == ROBOT_STEP_TURN && !s->regrips)
                add(&c->turn[turn_class(s->arg)], ms[t] - settle_ms);
            else if (s->kind == ROBOT_STEP_TILT && !s->regrips)
                add(&c->tilt, ms[t] - settle_ms);
        }
        if (s->kind == ROBOT_STEP_REGRIP)
            add(&c->regrip, total - settle_ms);
        else if (s->kind == ROBOT_STEP_TURN && s->regrips)
            add(&c->parallel[turn_class(s->arg)], total - settle_ms);
        i = j;
    }
}

int ctl_calibration_profile(const ctl_calibration *c,
                            const robot_profile *base, robot_profile *out)
{
    *out = *base;
    double *turn[CTL_TURN_CLASSES] = {&out->quarter_ms, &out->half_ms,
                                      &out->pair_quarter_ms,
                                      &out->pair_half_ms};
    int changed = 0;
    for (int t = 0; t < CTL_TURN_CLASSES; t++)
        if (c->turn[t].n) {
            *turn[t] = mean(&c->turn[t], *turn[t]);
            changed++;
        }
    if (c->open.n) {
        out->open_ms = mean(&c->open, 0);
        changed++;
    }
    if (c->close.n) {
        out->close_ms = mean(&c->close, 0);
        changed++;
    }
    if (c->tilt.n) {
        out->tilt_ms = mean(&c->tilt, 0);
        changed++;
    }
    if (c->regrip.n) {
        out->regrip_ms = mean(&c->regrip, 0);
        changed++;
    }
    /* The surcharge: each parallel step's total beyond its turn. */
    double extra = 0;
    int n = 0;
    for (int t = 0; t < CTL_TURN_CLASSES; t++) {
        extra += c->parallel[t].sum - c->parallel[t].n * *turn[t];
        n += c->parallel[t].n;
    }
    if (n) {
        out->regrip_parallel_ms = extra / n < 0 ? 0 : extra / n;
        changed++;
    }
    /* Keep what robot_profile_parse accepts. */
    double *all[] = {&out->quarter_ms, &out->half_ms, &out->pair_quarter_ms,
                     &out->pair_half_ms, &out->tilt_ms,
                     &out->regrip_parallel_ms, &out->regrip_ms,
                     &out->open_ms, &out->close_ms, &out->settle_ms};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        /* Whole microseconds: the JSON stays short and exact. */
        *all[i] = (double)(int64_t)(*all[i] * 1000.0 + 0.5) / 1000.0;
        if (*all[i] > ROBOT_PROFILE_MAX_MS)
            *all[i] = ROBOT_PROFILE_MAX_MS;
    }
    char name[sizeof out->name];
    snprintf(name, sizeof name, "%.40s-calibrated", base->name);
    memcpy(out->name, name, sizeof name);
    return changed;
}

/* Cube-frame moves that exercise every kind of robot step (quarter and
 * half turns, both kinds of pairs, tilts about both axes, a full regrip
 * and parallel regrips); followed by their inverse they leave the cube
 * as it was. */
static const char calibration_moves[] =
    "U R2 (F B') L (R2 L') D' F2 B (U D2) R' (R L) F' B2 R (F2 B2) D";

int ctl_calibrate(const ctl_options *o, const robot_profile *base,
                  const qs_move *moves, int n_moves, int rounds,
                  const char *out_path, FILE *log, char *err, size_t err_len)
{
    qs_move seq[QS_MAX_MOVES];
    int n = 0;
    if (moves && n_moves > 0) {
        memcpy(seq, moves, sizeof(qs_move) * (size_t)n_moves);
        n = n_moves;
    } else {
        int k = qs_moves_parse(calibration_moves, seq, QS_MAX_MOVES / 2, NULL,
                               0);
        qs_moves_invert(seq, k, seq + k);
        n = 2 * k;
    }
    robot_model *m = malloc(sizeof *m);
    ctl_attempt *a = calloc(1, sizeof *a);
    ctl_session *s = calloc(1, sizeof *s);
    ctl_calibration *c = calloc(1, sizeof *c);
    int rc = CTL_OK;
    if (!m || !a || !s || !c) {
        snprintf(err, err_len, "out of memory");
        rc = CTL_ERR_NOMEM;
        goto out;
    }
    robot_model_init(m);
    if (robot_plan(m, base, ROBOT_OBJ_MOVES, seq, n, &a->plan) != ROBOT_OK) {
        snprintf(err, err_len, "the calibration moves cannot be planned");
        rc = CTL_ERR_PLAN;
        goto out;
    }
    char detail[200];
    a->n_prims = robot_expand(a->plan.steps, a->plan.n, a->prims,
                              ROBOT_MAX_PRIMS, detail, sizeof detail);
    if (a->n_prims < 0) {
        snprintf(err, err_len, "%s", detail);
        rc = CTL_ERR_PLAN;
        goto out;
    }
    rc = ctl_session_open(s, o, err, err_len);
    if (rc != CTL_OK)
        goto out;
    for (int r = 0; r < rounds && rc == CTL_OK; r++) {
        rc = ctl_session_home(s, err, err_len);
        if (rc != CTL_OK)
            break;
        for (int i = 0; i < a->n_prims; i++) {
            memset(&a->steps[i], 0, sizeof a->steps[i]);
            memcpy(a->steps[i].action, a->prims[i].action, FWP_GRIPPERS);
        }
        memset(&a->x, 0, sizeof a->x);
        a->x.n = a->n_prims;
        a->x.ms = a->ms;
        a->x.done_us = a->done_us;
        rc = ctl_session_execute(s, a->steps, &a->x);
        /* What ran before a failure still measured something. */
        ctl_calibration_add(c, a->plan.steps, a->prims, a->n_prims,
                            a->x.confirmed - a->x.by_status, a->ms,
                            base->settle_ms);
        if (rc != CTL_OK)
            snprintf(err, err_len, "round %d: %s", r + 1, a->x.message);
    }
    ctl_session_close(s);
    if (rc != CTL_OK)
        goto out;
    robot_profile cal;
    ctl_calibration_profile(c, base, &cal);
    if (log) {
        const struct {
            const char *key;
            double from, to;
            int n;
        } rows[] = {
            {"quarter_ms", base->quarter_ms, cal.quarter_ms, c->turn[0].n},
            {"half_ms", base->half_ms, cal.half_ms, c->turn[1].n},
            {"pair_quarter_ms", base->pair_quarter_ms, cal.pair_quarter_ms,
             c->turn[2].n},
            {"pair_half_ms", base->pair_half_ms, cal.pair_half_ms,
             c->turn[3].n},
            {"tilt_ms", base->tilt_ms, cal.tilt_ms, c->tilt.n},
            {"regrip_parallel_ms", base->regrip_parallel_ms,
             cal.regrip_parallel_ms,
             c->parallel[0].n + c->parallel[1].n + c->parallel[2].n +
                 c->parallel[3].n},
            {"regrip_ms", base->regrip_ms, cal.regrip_ms, c->regrip.n},
            {"open_ms", base->open_ms, cal.open_ms, c->open.n},
            {"close_ms", base->close_ms, cal.close_ms, c->close.n},
            {"settle_ms", base->settle_ms, cal.settle_ms, 0},
        };
        fprintf(log, "%-20s %10s %12s %8s\n", "key", base->name, "calibrated",
                "samples");
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            fprintf(log, "%-20s %10.1f %12.1f %8d%s\n", rows[i].key,
                    rows[i].from, rows[i].to, rows[i].n,
                    rows[i].n ? "" : " (kept)");
    }
    char json[2048];
    if (robot_profile_to_json(&cal, json, sizeof json) < 0) {
        snprintf(err, err_len, "the profile cannot be written as JSON");
        rc = CTL_ERR_NOMEM;
        goto out;
    }
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) {
        snprintf(err, err_len, "cannot write %s", out_path);
        rc = CTL_ERR_IO;
        goto out;
    }
    fprintf(f, "%s\n", json);
    if (out_path)
        fclose(f);
    else
        fflush(f);
out:
    free(m);
    free(a);
    free(s);
    free(c);
    return rc;
}
