/*
 * solver.c - quadctl's way to a plan: a solve request to quadsolved
 * through the service client (service/qsservice.h). The daemon answers
 * with the cube-frame moves and their robot-frame plan under the profile
 * and objective sent along, already verified by the client.
 *
 * The client library is built only where service/ exists; without it the
 * controller still runs offline plans (--moves), and asking for a solution
 * says so.
 */
#include "ctl.h"

#include <stdlib.h>
#include <string.h>

#ifdef QCTL_HAVE_SERVICE
#include "qsservice.h"

bool ctl_solver_available(void)
{
    return true;
}

int ctl_solver_plan(ctl_solver *sv, const char *facelets, qs_move *moves,
                    int *n_moves, robot_schedule *plan, char *err,
                    size_t err_len)
{
    qsv_failure f;
    memset(&f, 0, sizeof f);
    if (!sv->client) {
        qsv_client_options o;
        qsv_client_options_default(&o);
        if (sv->timeout_ms > 0)
            o.timeout_ms = sv->timeout_ms;
        qsv_curve_keys keys;
        if ((sv->curve_server || sv->curve_key) &&
            qsv_curve_load(sv->curve_server, sv->curve_key, &keys, &o, &f) !=
                QSV_OK) {
            snprintf(err, err_len, "%s", f.message);
            return CTL_ERR_SOLVER;
        }
        qsv_client *c = NULL;
        if (qsv_client_open(sv->server, &o, &c, &f) != QSV_OK) {
            snprintf(err, err_len, "%s: %s", sv->server, f.message);
            return CTL_ERR_SOLVER;
        }
        sv->client = c;
    }
    qsv_request *r = malloc(sizeof *r);
    qsv_result *res = malloc(sizeof *res);
    if (!r || !res) {
        free(r);
        free(res);
        snprintf(err, err_len, "out of memory");
        return CTL_ERR_NOMEM;
    }
    qsv_request_init(r);
    snprintf(r->cube, sizeof r->cube, "%s", facelets);
    r->is_scramble = 0;
    r->metric = QS_METRIC_ROBOT;
    r->profile = sv->profile;
    r->objective = sv->objective;
    if (sv->time_ms > 0)
        r->time_ms = sv->time_ms;
    int rc = qsv_client_solve(sv->client, r, NULL, NULL, NULL, res, &f);
    int out = CTL_OK;
    if (rc != QSV_OK) {
        snprintf(err, err_len, "%s: %s%s%s", qsv_errcode(rc), f.message,
                 f.reason[0] ? " " : "", f.reason);
        out = rc == QSV_ERR_INVALID_CUBE ? CTL_ERR_CUBE : CTL_ERR_SOLVER;
    } else if (res->n < 1) {
        snprintf(err, err_len, "the daemon returned no solution");
        out = CTL_ERR_SOLVER;
    } else {
        memcpy(moves, res->sol[0].moves, sizeof(qs_move) * QS_MAX_MOVES);
        *n_moves = res->sol[0].n;
        *plan = res->sol[0].plan;
    }
    free(r);
    free(res);
    return out;
}

void ctl_solver_close(ctl_solver *sv)
{
    if (sv->client)
        qsv_client_close(sv->client);
    sv->client = NULL;
}

#else

bool ctl_solver_available(void)
{
    return false;
}

int ctl_solver_plan(ctl_solver *sv, const char *facelets, qs_move *moves,
                    int *n_moves, robot_schedule *plan, char *err,
                    size_t err_len)
{
    (void)sv;
    (void)facelets;
    (void)moves;
    (void)n_moves;
    (void)plan;
    snprintf(err, err_len, "this quadctl was built without the solver "
                           "service (service/); give --moves");
    return CTL_ERR_SOLVER;
}

void ctl_solver_close(ctl_solver *sv)
{
    sv->client = NULL;
}

#endif
