/*
 * daemon.h - what the files of quadsolved share: its configuration, the
 * logger, and the two ways of serving (the ZeroMQ server and the
 * rob-twophase/qphase-compatible line mode). Not a library: the daemon is
 * one executable.
 */
#ifndef QSD_DAEMON_H
#define QSD_DAEMON_H

#include <stdarg.h>

#include "qsservice.h"
#include "qtab.h"

typedef enum {
    QSD_LOG_DEBUG = 0,
    QSD_LOG_INFO = 1,
    QSD_LOG_WARN = 2,
    QSD_LOG_ERROR = 3,
} qsd_log_level;

/* Messages below this level are dropped (set once, before threads). */
void qsd_log_set_level(qsd_log_level level);
/* One line on stderr: UTC timestamp, level, message. Thread-safe. */
void qsd_log(qsd_log_level level, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

typedef struct {
    const char *bind;          /* ZeroMQ endpoint */
    int metrics[QS_METRIC_COUNT]; /* 1 = served */
    int threads;               /* search threads per solve */
    int workers;               /* solves running at once */
    int queue;                 /* queued solve requests before BUSY */
    int client_queue;          /* of which one client may hold */
    int request_limit_ms;      /* deadline of a request that gives none
                                  (0: none) */
    const char *tables_dir;    /* NULL: the cache directory */
    qtab_optimal_size optimal_tables; /* the optimal solver's table size
                                         for the htm and qtm sets */
    qtab_robot_size robot_tables; /* the robot set's size */
    const char *curve_secret;  /* file with the server's secret key */
    const char *curve_clients; /* directory of allowed client public keys */
    /* line mode */
    qs_metric line_metric;
    int line_time_ms;
    robot_profile line_profile;
    robot_objective line_objective;
} qsd_config;

/* Serves the ZeroMQ protocol until SIGTERM/SIGINT; returns the exit
 * status (0 after a graceful stop). */
int qsd_serve(const qsd_config *cfg);
/* Serves the line protocol on stdin/stdout until end of input. */
int qsd_lines(const qsd_config *cfg);

#endif
