/*
 * remote.c - `quadsolve --server ENDPOINT`: the solve step of the CLI done
 * by a quadsolved daemon instead of this process. The reply is turned
 * into the same cli_result a local solve produces, so both print exactly
 * the same lines; the client library has verified every solution against
 * the cube (moves and robot plan) before it gets here.
 */
#include "cli.h"
#include "qsservice.h"

#include <string.h>

/* The CLI's error code for a daemon error: the cube checks keep their own
 * names (TWIST, MOVE, ...) as a local solve prints them; the others keep
 * the protocol's name. */
static void set_failure(cli_result *r, int rc, const qsv_failure *f)
{
    r->n = 0;
    r->rc = CLI_ERR_INTERNAL;
    snprintf(r->code, sizeof r->code, "%s", qsv_errcode(rc));
    if ((rc == QSV_ERR_INVALID_CUBE || rc == QSV_ERR_INVALID_MOVES) &&
        f->reason[0]) {
        snprintf(r->code, sizeof r->code, "%s", f->reason);
        for (int e = -1; e >= QS_ERR_BUFFER; e--)
            if (strcmp(qs_errcode(e), f->reason) == 0)
                r->rc = e;
    } else if (rc == QSV_ERR_CANCELLED) {
        r->rc = QS_ERR_CANCELLED;
    } else if (rc == QSV_ERR_NOT_FOUND) {
        r->rc = QS_ERR_NOT_FOUND;
    }
    snprintf(r->message, sizeof r->message, "%s",
             f->message[0] ? f->message : qsv_strerror(rc));
}

/* An optimal solve's progress, printed as a local one prints it. */
static void on_progress(void *ctx, const qsv_progress *p)
{
    if (p->depth >= 0)
        cli_optimal_progress(ctx, p->depth, p->found, p->nodes,
                             p->elapsed_ms);
}

void cli_solve_remote(qsv_client *c, const cli_tables *t, const char *input,
                      int is_scramble, const qs_options *o, cli_result *r)
{
    static qsv_result res; /* large; the CLI is single-threaded */
    qsv_request req;
    qsv_failure f = {0, "", ""};
    memset(&r->stats, 0, sizeof r->stats);
    r->ms = 0;
    r->n = 0;
    r->code[0] = '\0';
    r->message[0] = '\0';
    qsv_request_init(&req);
    req.is_scramble = is_scramble;
    if (strlen(input) > QSV_MAX_SCRAMBLE) {
        f.code = is_scramble ? QSV_ERR_INVALID_MOVES : QSV_ERR_INVALID_CUBE;
        snprintf(f.reason, sizeof f.reason, is_scramble ? "MOVE" : "LENGTH");
        snprintf(f.message, sizeof f.message, "input is %zu bytes long",
                 strlen(input));
        set_failure(r, f.code, &f);
        return;
    }
    snprintf(req.cube, sizeof req.cube, "%s", input);
    req.metric = t->metric;
    req.time_ms = o->time_ms;
    req.max_len = o->max_len;
    req.solutions = o->solutions > QSV_MAX_SOLUTIONS ? QSV_MAX_SOLUTIONS
                                                     : o->solutions;
    req.profile = t->profile;
    req.objective = t->objective;
    if (t->optimal) {
        /* As locally: no time limit, and the first optimal solution (the
         * protocol refuses time_ms and several solutions without all). */
        req.optimal = 1;
        req.time_ms = 0;
        req.solutions = 1;
        if (t->optimal_all) {
            req.all = 1;
            req.solutions = QSV_MAX_SOLUTIONS;
        }
    }
    double start = cli_now_ms();
    int rc = qsv_client_solve(c, &req, o->cancel,
                              t->optimal ? on_progress : NULL, NULL, &res,
                              &f);
    if (rc != QSV_OK) {
        set_failure(r, rc, &f);
        /* A local optimal solve says only this (its search knows no time
         * limit to name), and --server prints what a local solve prints. */
        if (t->optimal && rc == QSV_ERR_NOT_FOUND)
            snprintf(r->message, sizeof r->message, "%s",
                     qs_strerror(QS_ERR_NOT_FOUND));
        return;
    }
    for (int i = 0; i < res.n && i < CLI_MAX_SOLUTIONS; i++) {
        memcpy(r->sol[i].moves, res.sol[i].moves, sizeof r->sol[i].moves);
        r->sol[i].n = res.sol[i].n;
        r->sol[i].length = res.sol[i].length;
        r->plan[i] = res.sol[i].plan;
    }
    r->n = res.n;
    r->stats = res.stats;
    /* --all's lines, as a local solve streams them (the daemon sends its
     * first QSV_MAX_SOLUTIONS in one reply, after the search). */
    for (int i = 0; t->optimal_stream && i < r->n; i++) {
        char text[QS_MAX_MOVES * 12];
        cli_format_pairs(r->sol[i].moves, r->sol[i].n, text, sizeof text);
        puts(text);
    }
    r->ms = res.solve_ms > 0 ? res.solve_ms : cli_now_ms() - start;
    r->rc = QS_OK;
}
