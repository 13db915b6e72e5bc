/*
 * robot_optimal.c - `quadsolve solve --optimal --metric robot`: the
 * fewest-robot-moves search (robot_solve_optimal) behind the CLI's
 * solve-and-verify step, with one progress line per length searched on
 * stderr, as the HTM and QTM optimal solver prints them. Kept apart from
 * common.c so the robot metric's optimal path is one call there.
 */
#include "cli.h"

#include <stdlib.h>
#include <string.h>

int cli_solve_robot_optimal(cli_tables *t, const qs_tables *tables,
                            const qs_cube *cube, const qs_options *o,
                            cli_result *r, int *n, char *detail, size_t len)
{
    robot_optimal_options ro;
    robot_optimal_options_default(&ro);
    ro.threads = o->threads;
    ro.max_len = o->max_len;
    ro.cancel = o->cancel;
    ro.on_depth = cli_optimal_progress; /* the same line as HTM/QTM's */
    robot_solution *s = malloc(sizeof *s);
    if (!s)
        return QS_ERR_NOMEM;
    int rc = robot_solve_optimal(tables, &t->model, &t->profile, cube, &ro, s,
                                 &r->stats);
    int err;
    switch (rc) {
    case ROBOT_OK:
        memcpy(r->sol[0].moves, s->moves, sizeof s->moves);
        r->sol[0].n = s->n;
        r->sol[0].length = s->plan.robot_moves;
        r->plan[0] = s->plan;
        *n = 1;
        err = QS_OK;
        break;
    case ROBOT_ERR_CANCELLED:
        err = QS_ERR_CANCELLED;
        break;
    case ROBOT_ERR_NOT_FOUND:
        err = QS_ERR_NOT_FOUND;
        break;
    case ROBOT_ERR_TABLES:
        err = QS_ERR_TABLES;
        break;
    case ROBOT_ERR_NOMEM:
        err = QS_ERR_NOMEM;
        break;
    case ROBOT_ERR_ARGUMENT:
        err = QS_ERR_ARGUMENT;
        break;
    default:
        /* The plan disagreed with the search: never printed as a
         * solution. */
        snprintf(detail, len, "robot optimal search: %s: %s",
                 robot_errcode(rc), robot_strerror(rc));
        err = CLI_ERR_INTERNAL;
        break;
    }
    free(s);
    return err;
}
