/*
 * remote.c - `quadsolve --server ENDPOINT`: the solve step of the CLI done
 * by a quadsolved daemon instead of this process. The request is the one
 * a local solve hands to qsv_solve, and the reply becomes the same
 * cli_result, so both print exactly the same lines; the client library
 * has verified every solution against the cube (moves and robot plan)
 * before it gets here.
 */
#include "cli.h"
#include "qsservice.h"

#include <string.h>

void cli_solve_remote(qsv_client *c, const cli_tables *t, const char *input,
                      int is_scramble, const qs_options *o, cli_result *r)
{
    static qsv_result res; /* large; the CLI is single-threaded */
    qsv_request req;
    qsv_failure f = {0, "", ""};
    memset(&r->stats, 0, sizeof r->stats);
    r->ms = 0;
    int rc = cli_make_request(t, input, is_scramble, o, 0, &req, &f);
    double start = cli_now_ms();
    if (rc == QSV_OK)
        rc = qsv_client_solve(c, &req, o->cancel,
                              t->optimal ? cli_progress : NULL, (void *)t,
                              &res, &f);
    if (rc != QSV_OK) {
        cli_take_failure(r, rc, &f);
        return;
    }
    cli_take_result(r, &res);
    if (r->ms <= 0)
        r->ms = cli_now_ms() - start;
    /* --all's lines, as a local solve streams them (the daemon sends its
     * first QSV_MAX_SOLUTIONS in one reply, after the search). */
    for (int i = 0; t->optimal_stream && i < r->n; i++)
        cli_print_pairs(r->sol[i].moves, r->sol[i].n);
}
