/*
 * daemon.h - what the files of quadsolved share: its configuration (with
 * the logger's level, qlog.h) and the two ways of serving (the ZeroMQ
 * server and the rob-twophase/qphase-compatible line mode). Not a
 * library: the daemon is one executable.
 */
#ifndef QSD_DAEMON_H
#define QSD_DAEMON_H

#include "qlog.h"
#include "qsservice.h"
#include "qtab.h"

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
    int keep_warm_ms;          /* qtab_options.keep_warm_ms of every set */
    const char *curve_secret;  /* file with the server's secret key */
    const char *curve_clients; /* directory of allowed client public keys */
    qlog log;                  /* --log-level */
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
