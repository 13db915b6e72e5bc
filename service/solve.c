/*
 * solve.c - the in-process step behind every answer of the service: parse
 * the request's cube, search (robot_solve for the robot metric, qs_solve
 * for the others, qs_solve_optimal for optimal requests), plan each
 * solution's robot execution under the request's profile, and verify
 * everything before it can leave.
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
    if (r->local.no_plan && r->metric != QS_METRIC_ROBOT)
        return QSV_OK;
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
    case QS_ERR_NOT_FOUND:
        if (r->optimal)
            return fail(f, QSV_ERR_NOT_FOUND, NULL,
                        "no solution of at most %d %s moves: the optimum "
                        "is longer",
                        r->max_len, qs_metric_name(r->metric));
        return fail(f, QSV_ERR_NOT_FOUND, NULL,
                    "no solution of at most %d %s moves",
                    r->max_len, qs_metric_name(r->metric));
    case QS_ERR_TIMEOUT:
        return fail(f, QSV_ERR_NOT_FOUND, "TIMEOUT",
                    "no solution of at most %d %s moves within %d ms",
                    r->max_len, qs_metric_name(r->metric), time_ms);
    case QS_ERR_NOMEM:
        return fail(f, QSV_ERR_INTERNAL, NULL, "out of memory");
    case QS_ERR_THREAD:
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "a search thread could not be started");
    case QS_ERR_TABLES:
        return fail(f, QSV_ERR_UNAVAILABLE, NULL,
                    "tables are not those of metric %s",
                    qs_metric_name(r->metric));
    default:
        return fail(f, QSV_ERR_INTERNAL, NULL, "search failed: %s: %s",
                    qs_errcode(qs_rc), qs_strerror(qs_rc));
    }
}

int qsv_optimal_supported(qs_metric m)
{
    return m == QS_METRIC_HTM || m == QS_METRIC_QTM || m == QS_METRIC_ROBOT;
}

/* What an optimal search reports to qsv_solve's caller. */
typedef struct {
    qsv_progress_fn fn;
    void *ctx;
    int found; /* solutions at the last length searched */
} depth_relay;

static void relay_depth(void *ctx, int depth, int found, uint64_t nodes,
                        double elapsed_ms)
{
    depth_relay *d = ctx;
    d->found = found;
    if (!d->fn)
        return;
    qsv_progress p = {-1, depth, found, nodes, elapsed_ms, NULL};
    d->fn(d->ctx, &p);
}

/* An optimal search's solutions as it finds them (with `all`). */
static void relay_solution(void *ctx, const qs_solution *s)
{
    depth_relay *d = ctx;
    qsv_progress p = {s->length, -1, 0, 0, 0, s};
    d->fn(d->ctx, &p);
}

/* The optimal search of request *r, dispatched by metric (the metrics
 * qsv_optimal_supported names). Returns a qs_error; with r->all, *found is
 * the number of optimal solutions the search saw (possibly more than the
 * r->solutions written to out), else 0. */
static int optimal_search(const qs_tables *t, const qsv_request *r,
                          const qs_cube *cube, int threads,
                          const atomic_int *cancel,
                          qsv_progress_fn on_progress, void *progress_ctx,
                          qs_solution *out, int *n, int *found,
                          qs_stats *stats)
{
    depth_relay relay = {on_progress, progress_ctx, 0};
    qs_optimal_options o;
    qs_optimal_options_default(&o);
    o.threads = threads;
    o.all = r->all;
    /* No optimum is anywhere near QS_MAX_MOVES, so a larger cap (the
     * protocol allows 200) is no cap at all. */
    o.max_len = r->max_len > QS_MAX_MOVES ? -1 : r->max_len;
    o.cancel = cancel;
    o.on_depth = relay_depth;
    o.depth_ctx = &relay;
    if (r->all && on_progress) {
        o.on_solution = relay_solution;
        o.solution_ctx = &relay;
    }
    int rc;
    switch (r->metric) {
    case QS_METRIC_HTM:
    case QS_METRIC_QTM:
        rc = qs_solve_optimal(t, cube, &o, out, r->solutions, n, stats);
        break;
    default: /* robot optima are searched in qsv_solve itself */
        return QS_ERR_TABLES;
    }
    /* Without all the search stops at the first solution, so a count
     * would say nothing about how many optimal solutions there are. */
    *found = r->all ? relay.found : 0;
    if (r->all && rc == QS_OK && *found < *n)
        *found = *n;
    return rc;
}

/* Plans the robot execution of plain-metric solutions qs[0..n) into out
 * (every metric's solution comes with one, so a controller can run an
 * HTM solution too). */
static int plan_solutions(const robot_model *m, const qsv_request *r,
                          const qs_solution *qs, int n, qsv_result *out,
                          qsv_failure *f)
{
    for (int i = 0; i < n; i++) {
        memcpy(out->sol[i].moves, qs[i].moves, sizeof qs[i].moves);
        out->sol[i].n = qs[i].n;
        out->sol[i].length = qs[i].length;
        if (r->local.no_plan) {
            memset(&out->sol[i].plan, 0, sizeof out->sol[i].plan);
            continue;
        }
        int prc = robot_plan(m, &r->profile, r->objective, qs[i].moves,
                             qs[i].n, &out->sol[i].plan);
        if (prc != ROBOT_OK)
            return fail(f, QSV_ERR_INTERNAL, NULL,
                        "planning solution %d failed: %s", i + 1,
                        robot_strerror(prc));
    }
    return QSV_OK;
}

/* Orders the solutions of an optimal request, all of one length: the one
 * the robot runs best first (the request's objective), then by moves, so
 * that a reply listing every optimal solution is the same on every run. */
static int optimal_order(const qsv_solution *a, const qsv_solution *b,
                         robot_objective obj)
{
    if (a->length != b->length)
        return a->length < b->length ? -1 : 1;
    if (obj == ROBOT_OBJ_TIME && a->plan.cost_ms != b->plan.cost_ms)
        return a->plan.cost_ms < b->plan.cost_ms ? -1 : 1;
    if (a->plan.robot_moves != b->plan.robot_moves)
        return a->plan.robot_moves < b->plan.robot_moves ? -1 : 1;
    if (a->plan.cost_ms != b->plan.cost_ms)
        return a->plan.cost_ms < b->plan.cost_ms ? -1 : 1;
    if (a->n != b->n)
        return a->n < b->n ? -1 : 1;
    return memcmp(a->moves, b->moves, (size_t)a->n);
}

/* Insertion sort: at most QSV_MAX_SOLUTIONS solutions, and qsort has no
 * portable way to pass the objective. */
static void sort_optimal(qsv_solution *sol, int n, robot_objective obj)
{
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && optimal_order(&sol[k], &sol[k - 1], obj) < 0;
             k--) {
            qsv_solution tmp = sol[k];
            sol[k] = sol[k - 1];
            sol[k - 1] = tmp;
        }
}

/* A robot search's result as the qs_error the rest of qsv_solve
 * reports, the one mapping of robot errors at this boundary: the cube
 * check becomes INVALID_CUBE, and anything no search should return (its
 * plan disagreeing with the search, a bad argument) is INTERNAL with the
 * robot library's code, never an answer. Returns the qs_error, or 1 when
 * *f has been filled. */
static int robot_result(int rc, qsv_failure *f)
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
    case ROBOT_ERR_THREAD:
        return QS_ERR_THREAD;
    case ROBOT_ERR_CUBE:
        fail(f, QSV_ERR_INVALID_CUBE, NULL, "the cube is not solvable");
        return 1;
    default:
        fail(f, QSV_ERR_INTERNAL, NULL, "robot search: %s: %s",
             robot_errcode(rc), robot_strerror(rc));
        return 1;
    }
}

/* What a two-phase or robot search's improvements become for qsv_solve's
 * caller. */
typedef struct {
    qsv_progress_fn fn;
    void *ctx;
    double start;
} improve_relay;

static void relay_improve(void *ctx, int length)
{
    improve_relay *d = ctx;
    qsv_progress p = {length, -1, 0, 0, now_ms() - d->start, NULL};
    d->fn(d->ctx, &p);
}

int qsv_solve(const qs_tables *t, const robot_model *m, const qsv_request *r,
              int threads, qs_team *team, const atomic_int *cancel,
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
    out->found = 0;

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

    if (r->optimal && !qsv_optimal_supported(r->metric))
        return fail(f, QSV_ERR_BAD_REQUEST, NULL,
                    "metric %s has no optimal solver",
                    qs_metric_name(r->metric));
    int time_ms = r->local.unlimited_time && r->time_ms == 0
                      ? 0
                      : qsv_request_time_ms(r);
    /* No two-phase solution is longer than QS_MAX_MOVES, so a larger cap
     * stops at the first solution as it says. */
    int max_len = r->max_len > QS_MAX_MOVES ? QS_MAX_MOVES : r->max_len;
    int n = 0;
    improve_relay relay = {on_progress, progress_ctx, start};
    /* Optimal requests of htm and qtm take the last branch, where
     * optimal_search dispatches them. */
    if (r->metric == QS_METRIC_ROBOT && r->optimal) {
        depth_relay drelay = {on_progress, progress_ctx, 0};
        robot_optimal_options o;
        robot_optimal_options_default(&o);
        o.threads = threads;
        o.max_len = r->max_len > QS_MAX_MOVES ? -1 : r->max_len;
        o.cancel = cancel;
        o.on_depth = relay_depth;
        o.depth_ctx = &drelay;
        robot_solution rs;
        rc = robot_solve_optimal(t, m, &r->profile, &cube, &o, &rs,
                                 &out->stats);
        if (rc == ROBOT_OK) {
            memcpy(out->sol[0].moves, rs.moves, sizeof rs.moves);
            out->sol[0].n = rs.n;
            out->sol[0].plan = rs.plan;
            out->sol[0].length = rs.plan.robot_moves;
            n = 1;
        }
        rc = robot_result(rc, f);
        if (rc == 1)
            return f->code;
    } else if (r->metric == QS_METRIC_ROBOT) {
        robot_solve_options o;
        robot_solve_options_default(&o);
        o.threads = threads;
        o.team = team;
        o.time_ms = time_ms;
        o.max_nodes = r->local.max_nodes;
        o.max_len = max_len;
        o.solutions = r->solutions;
        o.objective = r->objective;
        o.cancel = cancel;
        o.on_improve = on_progress ? relay_improve : NULL;
        o.improve_ctx = &relay;
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
        rc = robot_result(rc, f);
        if (rc == 1)
            return f->code;
    } else {
        qs_solution *qs = malloc(sizeof *qs * QSV_MAX_SOLUTIONS);
        if (!qs)
            return fail(f, QSV_ERR_INTERNAL, NULL, "out of memory");
        if (r->optimal) {
            rc = optimal_search(t, r, &cube, threads, cancel, on_progress,
                                progress_ctx, qs, &n, &out->found,
                                &out->stats);
        } else {
            qs_options o;
            qs_options_default(&o);
            o.threads = threads;
            o.team = team;
            o.time_ms = time_ms;
            o.max_nodes = r->local.max_nodes;
            o.max_len = max_len;
            o.solutions = r->solutions;
            o.cancel = cancel;
            o.on_improve = on_progress ? relay_improve : NULL;
            o.improve_ctx = &relay;
            rc = qs_solve(t, &cube, &o, qs, r->solutions, &n, &out->stats);
        }
        int prc = rc == QS_OK && n >= 0 && n <= r->solutions
                      ? plan_solutions(m, r, qs, n, out, f)
                      : QSV_OK;
        free(qs);
        if (prc != QSV_OK)
            return prc;
    }
    if (rc == QS_ERR_TABLES && r->optimal)
        return fail(f, QSV_ERR_UNAVAILABLE, NULL,
                    "no optimal solver for metric %s with these tables",
                    qs_metric_name(r->metric));
    if (rc != QS_OK)
        return search_failure(rc, r, time_ms, f);
    if (n < 1 || n > r->solutions)
        return fail(f, QSV_ERR_INTERNAL, NULL,
                    "the search returned %d solutions", n);
    if (r->optimal)
        sort_optimal(out->sol, n, r->objective);
    for (int i = 0; i < n; i++) {
        rc = qsv_verify(r, &out->sol[i], f);
        if (rc != QSV_OK)
            return rc;
    }
    out->n = n;
    out->solve_ms = now_ms() - start;
    return QSV_OK;
}
