/*
 * local.c - the daemon's request/reply exchange inside the caller's
 * process, for bindings that speak the protocol's JSON but load no
 * ZeroMQ (the Python package's quadsolve.solve): a request frame in, the
 * reply frame qsv_solve's result or failure makes out, with the table set
 * of each metric opened on first use and kept until qsv_local_close.
 *
 * Keeping the boundary at the JSON frame means a binding needs no copy of
 * the request and result structs' layout, and its errors are the
 * protocol's, mapped once (qsv_reply_error), whichever way it solves.
 */
#define _POSIX_C_SOURCE 200809L /* strdup */

#include "qsservice.h"
#include "qtab.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct qsv_local {
    char *dir; /* NULL: the cache directory */
    int threads;
    int size; /* QSV_TABLES_* */
    robot_model model;
    pthread_mutex_t mu; /* guards sets and rc during an open */
    /* [metric][optimal request]: an optimal solve wants the optimal
     * tables (solve --optimal's default size) and no robot move table, a
     * two-phase solve the reverse, as the CLI opens them. */
    qtab_set *sets[QS_METRIC_COUNT][2];
    int rc[QS_METRIC_COUNT][2]; /* qtab_open's result; 1: not tried */
    qs_team *team; /* search threads kept between solves; shared by the
                      callers' threads one solve at a time (a solve that
                      finds it busy starts its own) */
};

int qsv_local_open(const char *tables_dir, int threads, int table_size,
                   qsv_local **out)
{
    if (!out || threads < 0 || threads > QS_MAX_THREADS ||
        table_size < QSV_TABLES_LARGE || table_size > QSV_TABLES_MEDIUM)
        return QSV_ERR_ARGUMENT;
    *out = NULL;
    qsv_local *l = calloc(1, sizeof *l);
    if (!l)
        return QSV_ERR_INTERNAL;
    if (tables_dir && !(l->dir = strdup(tables_dir))) {
        free(l);
        return QSV_ERR_INTERNAL;
    }
    l->threads = threads;
    /* Search threads kept between solves (see qs_team); without them each
     * search starts its own. */
    if (threads > 1)
        qs_team_create(threads, &l->team);
    l->size = table_size;
    robot_model_init(&l->model);
    pthread_mutex_init(&l->mu, NULL);
    for (int m = 0; m < QS_METRIC_COUNT; m++)
        l->rc[m][0] = l->rc[m][1] = 1;
    *out = l;
    return QSV_OK;
}

void qsv_local_close(qsv_local *l)
{
    if (!l)
        return;
    for (int m = 0; m < QS_METRIC_COUNT; m++)
        for (int k = 0; k < 2; k++)
            qtab_close(l->sets[m][k]);
    qs_team_free(l->team);
    pthread_mutex_destroy(&l->mu);
    free(l->dir);
    free(l);
}

/* The tables for request r, opened (and generated when missing) on first
 * use under the lock, so that concurrent first solves open them once.
 * NULL with *f filled when they cannot be had. */
static const qs_tables *tables_for(qsv_local *l, const qsv_request *r,
                                   qsv_failure *f)
{
    int m = r->metric, k = r->optimal != 0;
    pthread_mutex_lock(&l->mu);
    if (l->rc[m][k] == 1) {
        qtab_options o;
        qtab_options_default(&o);
        o.threads = l->threads;
        o.dir = l->dir;
        o.progress = 0;
        /* indexed by QSV_TABLES_*; the robot optimum reads the distance
         * tables only */
        static const qtab_robot_size robot_size[] = {
            QTAB_ROBOT_LARGE, QTAB_ROBOT_SMALL, QTAB_ROBOT_MEDIUM};
        o.optimal = k && l->size == QSV_TABLES_LARGE ? QTAB_OPTIMAL_DEFAULT
                                                     : QTAB_OPTIMAL_SMALL;
        o.robot = k ? QTAB_ROBOT_SMALL : robot_size[l->size];
        l->rc[m][k] = qtab_open((qs_metric)m, &o, &l->sets[m][k]);
    }
    int rc = l->rc[m][k];
    pthread_mutex_unlock(&l->mu);
    if (rc == QTAB_OK)
        return qtab_set_tables(l->sets[m][k]);
    f->code = QSV_ERR_UNAVAILABLE;
    snprintf(f->message, sizeof f->message, "%s tables: %s",
             qs_metric_name((qs_metric)m), qtab_strerror(rc));
    return NULL;
}

char *qsv_local_solve(qsv_local *l, const char *frame, size_t len,
                      const atomic_int *cancel)
{
    qsv_failure f = {QSV_OK, "", ""};
    qsv_request *r = malloc(sizeof *r);
    qsv_result *res = malloc(sizeof *res);
    char *reply = NULL;
    if (r)
        qsv_request_init(r);
    if (!l || !frame) {
        f.code = QSV_ERR_ARGUMENT;
    } else if (!r || !res) {
        f.code = QSV_ERR_INTERNAL;
        snprintf(f.message, sizeof f.message, "out of memory");
    } else if (qsv_request_parse(frame, len, r, &f) == QSV_OK) {
        if (r->op != QSV_OP_SOLVE) {
            f.code = QSV_ERR_UNKNOWN_OP;
            snprintf(f.message, sizeof f.message,
                     "in process, only \"solve\" requests are served");
        } else if (r->deadline_ms > 0) {
            /* The daemon's deadline covers its queue, which this has
             * not; refused rather than silently ignored. */
            f.code = QSV_ERR_BAD_REQUEST;
            snprintf(f.message, sizeof f.message,
                     "deadline_ms is the daemon's; in process, time_ms "
                     "limits the search (an optimal one: the cancel flag)");
        } else {
            const qs_tables *t = tables_for(l, r, &f);
            int threads = l->threads > 0 ? l->threads : 1;
            if (t && qsv_solve(t, &l->model, r, threads, l->team, cancel,
                               NULL, NULL, res, &f) == QSV_OK)
                reply = qsv_reply_result(r->id, res);
        }
    }
    if (!reply && f.code != QSV_OK)
        reply = qsv_reply_error(r ? r->id : NULL, &f);
    free(r);
    free(res);
    return reply;
}
