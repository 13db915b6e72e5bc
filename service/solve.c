/*
 * solve.c - the in-process step behind every answer of the service: parse
 * the request's cube, search (robot_solve for the robot metric, qs_solve
 * for the others), plan each solution's robot execution under the
 * request's profile, and verify everything before it can leave.
 *
 * Verification is independent of the search: the moves are applied to the
 * cube parsed again from the request, and the robot plan is replayed by
 * robot_check on its own physical model. A failure is an INTERNAL error;
 * a wrong solution never becomes a result.
 */
#include "qsservice.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static int fail(qsv_failure *f, int code, const char *reason,
                const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static int fail(qsv_failure *f, int code, const char *reason,
                const char *fmt, ...)
{
    va_list ap;
    f->code = code;
    snprintf(f->reason, sizeof f->reason, "%s", reason ? reason : "");
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return code;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* The request's cube, or INVALID_CUBE / INVALID_MOVES with the reason. */
int qsv_request_cube(const qsv_request *r, qs_cube *c, qsv_failure *f)
{
    char detail[200] = "";
    if (r->is_scramble) {
        qs_move moves[QS_MAX_MOVES];
        int n = qs_moves_parse(r->cube, moves, QS_MAX_MOVES, detail,
                               sizeof detail);
        if (n == QS_ERR_BUFFER)
            return fail(f, QSV_ERR_INVALID_MOVES, "BUFFER",
                        "scramble has more than %d moves", QS_MAX_MOVES);
        if (n < 0)
            return fail(f, QSV_ERR_INVALID_MOVES, qs_errcode(n), "%s",
                        *detail ? detail : qs_strerror(n));
        qs_cube_solved(c);
        qs_cube_apply_moves(c, moves, n);
        return QSV_OK;
    }
    int rc = qs_cube_from_facelets(r->cube, c, detail, sizeof detail);
    if (rc != QS_OK)
        return fail(f, QSV_ERR_INVALID_CUBE, qs_errcode(rc), "%s",
                    *detail ? detail : qs_strerror(rc));
    return QSV_OK;
}

int qsv_verify(const qsv_request *r, const qsv_solution *s, qsv_failure *f)
{
    qs_cube cube;
    char detail[200] = "";
    if (qsv_request_cube(r, &cube, f) != QSV_OK)
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "verification: the request's cube does not parse");
    if (s->n < 0 || s->n > QS_MAX_MOVES)
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "verification: %d moves is out of range", s->n);
    for (int i = 0; i < s->n; i++)
        if (s->moves[i] >= QS_MOVE_COUNT)
            return fail(f, QSV_ERR_INTERNAL, NULL,
                        "verification: move %d out of range", i + 1);
    qs_cube c = cube;
    qs_cube_apply_moves(&c, s->moves, s->n);
    if (!qs_cube_is_solved(&c))
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "verification: the moves do not solve the cube");
    int want = r->metric == QS_METRIC_ROBOT
                   ? s->plan.robot_moves
                   : qs_moves_length(s->moves, s->n, r->metric);
    if (s->length != want)
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "verification: length %d, but the solution has %d",
                    s->length, want);
    int rc = robot_check(&s->plan, &cube, &r->profile, detail, sizeof detail);
    if (rc != ROBOT_OK)
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "verification: robot plan: %s", detail);
    return QSV_OK;
}

/* The qsv_error of a search result without a solution. */
static int search_failure(int qs_rc, const qsv_request *r, int time_ms,
                          qsv_failure *f)
{
    switch (qs_rc) {
    case QS_ERR_CANCELLED:
        return fail(f, QSV_ERR_CANCELLED, NULL, "search cancelled");
    case QS_ERR_TIMEOUT:
    case QS_ERR_NOT_FOUND:
        return fail(f, QSV_ERR_NOT_FOUND, NULL,
                    "no solution of at most %d %s moves within %d ms",
                    r->max_len, qs_metric_name(r->metric), time_ms);
    case QS_ERR_NOMEM:
        return fail(f, QSV_ERR_INTERNAL, NULL, "out of memory");
    case QS_ERR_TABLES:
        return fail(f, QSV_ERR_UNAVAILABLE, NULL,
                    "tables are not those of metric %s",
                    qs_metric_name(r->metric));
    default:
        return fail(f, QSV_ERR_INTERNAL, NULL, "search failed: %s: %s",
                    qs_errcode(qs_rc), qs_strerror(qs_rc));
    }
}

static int robot_to_qs(int rc)
{
    switch (rc) {
    case ROBOT_OK:
        return QS_OK;
    case ROBOT_ERR_CANCELLED:
        return QS_ERR_CANCELLED;
    case ROBOT_ERR_TIMEOUT:
        return QS_ERR_TIMEOUT;
    case ROBOT_ERR_NOT_FOUND:
        return QS_ERR_NOT_FOUND;
    case ROBOT_ERR_TABLES:
        return QS_ERR_TABLES;
    case ROBOT_ERR_NOMEM:
        return QS_ERR_NOMEM;
    default:
        return QS_ERR_ARGUMENT;
    }
}

int qsv_solve(const qs_tables *t, const robot_model *m, const qsv_request *r,
              int threads, const atomic_int *cancel,
              qsv_progress_fn on_progress, void *progress_ctx,
              qsv_result *out, qsv_failure *f)
{
    if (!t || !m || !r || !out || !f || threads < 1 ||
        r->op != QSV_OP_SOLVE || (unsigned)r->metric >= QS_METRIC_COUNT ||
        r->solutions < 1 || r->solutions > QSV_MAX_SOLUTIONS)
        return f ? fail(f, QSV_ERR_ARGUMENT, NULL, "bad argument")
                 : QSV_ERR_ARGUMENT;
    double start = now_ms();
    memset(&out->stats, 0, sizeof out->stats);
    out->n = 0;
    out->metric = r->metric;
    out->objective = r->objective;
    snprintf(out->profile, sizeof out->profile, "%s", r->profile.name);
    out->queue_ms = 0;

    qs_cube cube;
    int rc = qsv_request_cube(r, &cube, f);
    if (rc != QSV_OK)
        return rc;
    /* The facelet parser accepts only solvable cubes, but keep the check
     * next to the search so no other path can slip one through. */
    rc = qs_cube_check(&cube);
    if (rc != QS_OK)
        return fail(f, QSV_ERR_INVALID_CUBE, qs_errcode(rc), "%s",
                    qs_strerror(rc));
    if (qs_tables_metric(t) != r->metric)
        return fail(f, QSV_ERR_UNAVAILABLE, NULL,
                    "tables are for metric %s, the request is for %s",
                    qs_metric_name(qs_tables_metric(t)),
                    qs_metric_name(r->metric));

    int time_ms = qsv_request_time_ms(r);
    int n = 0;
    if (r->metric == QS_METRIC_ROBOT) {
        robot_solve_options o;
        robot_solve_options_default(&o);
        o.threads = threads;
        o.time_ms = time_ms;
        o.max_len = r->max_len;
        o.solutions = r->solutions;
        o.objective = r->objective;
        o.cancel = cancel;
        o.on_improve = on_progress;
        o.improve_ctx = progress_ctx;
        robot_solution *rs = malloc(sizeof *rs * QSV_MAX_SOLUTIONS);
        if (!rs)
            return fail(f, QSV_ERR_INTERNAL, NULL, "out of memory");
        rc = robot_solve(t, m, &r->profile, &cube, &o, rs, r->solutions, &n,
                         &out->stats);
        for (int i = 0; rc == ROBOT_OK && i < n; i++) {
            memcpy(out->sol[i].moves, rs[i].moves, sizeof rs[i].moves);
            out->sol[i].n = rs[i].n;
            out->sol[i].plan = rs[i].plan;
            out->sol[i].length = rs[i].plan.robot_moves;
        }
        free(rs);
        if (rc == ROBOT_ERR_CUBE)
            return fail(f, QSV_ERR_INVALID_CUBE, NULL,
                        "the cube is not solvable");
        rc = robot_to_qs(rc);
    } else {
        qs_options o;
        qs_options_default(&o);
        o.threads = threads;
        o.time_ms = time_ms;
        o.max_len = r->max_len;
        o.solutions = r->solutions;
        o.cancel = cancel;
        o.on_improve = on_progress;
        o.improve_ctx = progress_ctx;
        qs_solution *qs = malloc(sizeof *qs * QSV_MAX_SOLUTIONS);
        if (!qs)
            return fail(f, QSV_ERR_INTERNAL, NULL, "out of memory");
        rc = qs_solve(t, &cube, &o, qs, r->solutions, &n, &out->stats);
        for (int i = 0; rc == QS_OK && i < n; i++) {
            memcpy(out->sol[i].moves, qs[i].moves, sizeof qs[i].moves);
            out->sol[i].n = qs[i].n;
            out->sol[i].length = qs[i].length;
            /* Every metric's solution comes with its robot execution, so a
             * controller can run an HTM solution too. */
            int prc = robot_plan(m, &r->profile, r->objective, qs[i].moves,
                                 qs[i].n, &out->sol[i].plan);
            if (prc != ROBOT_OK) {
                free(qs);
                return fail(f, QSV_ERR_INTERNAL, NULL,
                            "planning solution %d failed: %s", i + 1,
                            robot_strerror(prc));
            }
        }
        free(qs);
    }
    if (rc != QS_OK)
        return search_failure(rc, r, time_ms, f);
    if (n < 1 || n > r->solutions)
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "the search returned %d solutions", n);
    for (int i = 0; i < n; i++) {
        rc = qsv_verify(r, &out->sol[i], f);
        if (rc != QSV_OK)
            return rc;
    }
    out->n = n;
    out->solve_ms = now_ms() - start;
    return QSV_OK;
}
