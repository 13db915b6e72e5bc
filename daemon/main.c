/*
 * main.c - quadsolved's command line: serve the ZeroMQ protocol (default),
 * serve the rob-twophase/qphase line protocol on stdin/stdout (--stdio),
 * or make a CURVE key pair (--keygen). Options may also come from the
 * environment variable QUADSOLVED_OPTS (systemd's EnvironmentFile), with
 * the command line taking precedence.
 */
#define _POSIX_C_SOURCE 200809L

#include "daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zmq.h>

static void usage(FILE *out)
{
    fputs(
        "Usage: quadsolved [OPTION]...\n"
        "The quadsolve solver daemon: answers solve requests over ZeroMQ\n"
        "(JSON, docs/protocol.md) with verified robot-aware solutions.\n"
        "\n"
        "  --bind ENDPOINT       ZeroMQ endpoint (default tcp://127.0.0.1:5555;\n"
        "                        tcp://HOST:0 picks a free port, ipc://PATH)\n"
        "  --metrics LIST        metrics served: comma-separated robot,htm,qtm,\n"
        "                        axht,axqt or all (default all)\n"
        "  --threads N           search threads per solve (default: CPUs)\n"
        "  --workers N           solves run at once (default 1)\n"
        "  --queue N             queued solves before BUSY (default 256)\n"
        "  --client-queue N      queued solves one client may hold before BUSY\n"
        "                        (default 64), so one client cannot fill the\n"
        "                        queue for all\n"
        "  --request-limit-ms MS deadline of a solve that gives no\n"
        "                        deadline_ms (default 600000; 0 = none)\n"
        "  --tables DIR          table directory (default: QUADSOLVE_TABLES or\n"
        "                        the cache directory)\n"
        "  --optimal-tables small|large|xl|h48|large+h48|compact|h48h7\n"
        "                        tables of the optimal solver (requests with\n"
        "                        \"optimal\": true) in the htm and qtm sets:\n"
        "                        small (default, no extra memory; a random cube\n"
        "                        takes minutes), large (an extra 845 MB table\n"
        "                        per metric, generated once; much faster), xl\n"
        "                        (htm: a 2.47 GB table instead of large, about\n"
        "                        1.7 times faster again; qtm: large), h48\n"
        "                        (htm only: the 173 MB H48 table instead),\n"
        "                        large+h48 (both), compact (htm: a 211 MB set\n"
        "                        of its own; qtm: small) or h48h7 (htm: a 3.80\n"
        "                        GB set of its own with the exact H48 table,\n"
        "                        about 3 times faster than xl; qtm: large); a set\n"
        "                        of its own is held beside the two-phase one\n"
        "  --robot-tables small|medium|large\n"
        "                        tables of the robot search: large (default, a\n"
        "                        2.4 GB of move and corner-path tables more,\n"
        "                        3.12 GB in all; several\n"
        "                        times faster), medium (862 MB: small and the\n"
        "                        corner-path table, for 2 GB robot computers)\n"
        "                        or small (734 MB, for 1 GB ones)\n"
        "  --keep-warm MS        read one byte of each 2 MiB table page every\n"
        "                        MS milliseconds (default 50; 0 = never), so\n"
        "                        that a request after a pause is as fast as\n"
        "                        one in a run on machines where idle pages\n"
        "                        go cold (docs/tables.md)\n"
        "  --curve-secret FILE   CURVE: the server's secret key (Z85)\n"
        "  --curve-clients DIR   CURVE: only clients whose public key is in a\n"
        "                        file of DIR may connect\n"
        "  --log-level LEVEL     debug, info (default), warn or error\n"
        "  --keygen FILE         write a CURVE key pair: FILE (secret, mode\n"
        "                        0600) and FILE.pub, then exit\n"
        "\n"
        "Line mode (drop-in for rob-twophase/qphase robot scripts):\n"
        "  --stdio               read 'solve FACECUBE' lines on stdin, answer\n"
        "                        on stdout after a 'Ready!' prompt\n"
        "  --metric M            line mode metric (default robot)\n"
        "  --time-ms N           line mode time per solve (default 10)\n"
        "  --profile NAME|PATH   robot profile (default 'default')\n"
        "  --objective moves|time\n"
        "\n"
        "On start the first line on stdout is 'listening ENDPOINT'. SIGTERM or\n"
        "SIGINT stops it gracefully (in-flight requests answered CANCELLED).\n"
        "An optimal solve has no time limit (only its deadline_ms, if given, or a\n"
        "cancel ends it) and holds a worker while it runs: serve robots and\n"
        "optimal requests with --workers 2 or more, or from separate daemons.\n",
        out);
}

static _Noreturn void die(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

static _Noreturn void die(const char *fmt, ...)
{
    va_list ap;
    fputs("quadsolved: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'quadsolved --help'.\n", stderr);
    exit(2);
}

static long parse_long(const char *opt, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno == ERANGE || v < min || v > max)
        die("%s: '%s' is not a whole number in %ld..%ld", opt, s, min, max);
    return v;
}

static void parse_metrics(const char *list, int metrics[QS_METRIC_COUNT])
{
    memset(metrics, 0, sizeof(int) * QS_METRIC_COUNT);
    char buf[256];
    snprintf(buf, sizeof buf, "%s", list);
    int any = 0;
    for (char *save, *t = strtok_r(buf, ",", &save); t;
         t = strtok_r(NULL, ",", &save)) {
        if (strcmp(t, "all") == 0) {
            for (int m = 0; m < QS_METRIC_COUNT; m++)
                metrics[m] = 1;
        } else {
            int m = qs_metric_parse(t);
            if (m < 0)
                die("--metrics: unknown metric '%s' (robot, htm, qtm, axht, "
                    "axqt, all)",
                    t);
            metrics[m] = 1;
        }
        any = 1;
    }
    if (!any)
        die("--metrics: empty list");
}

/* Writes a CURVE key pair. The secret file is created 0600 and never
 * overwritten, so a typo cannot destroy a deployed key. */
static int keygen(const char *path)
{
    char pub[41], sec[41];
    if (!zmq_has("curve") || zmq_curve_keypair(pub, sec) != 0) {
        fprintf(stderr, "quadsolved: this libzmq has no CURVE support\n");
        return 1;
    }
    char pubpath[4096];
    snprintf(pubpath, sizeof pubpath, "%s.pub", path);
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
    FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
    if (!f) {
        fprintf(stderr, "quadsolved: --keygen %s: %s\n", path,
                strerror(errno));
        return 1;
    }
    fprintf(f, "%s\n", sec);
    int bad = fclose(f) != 0;
    FILE *p = fopen(pubpath, "w");
    if (p) {
        fprintf(p, "%s\n", pub);
        bad |= fclose(p) != 0;
    }
    if (bad || !p) {
        fprintf(stderr, "quadsolved: --keygen: cannot write %s\n", pubpath);
        return 1;
    }
    printf("%s\n", pub);
    return 0;
}

/* Splits QUADSOLVED_OPTS on blanks into extra arguments placed before the
 * command line's own. */
static char **merge_env_options(int *argc, char **argv)
{
    const char *env = getenv("QUADSOLVED_OPTS");
    if (!env || !*env)
        return argv;
    char *copy = strdup(env);
    char **out = calloc((size_t)*argc + strlen(env) / 2 + 2, sizeof *out);
    if (!copy || !out)
        die("out of memory");
    int n = 0;
    out[n++] = argv[0];
    for (char *save, *t = strtok_r(copy, " \t\n", &save); t;
         t = strtok_r(NULL, " \t\n", &save))
        out[n++] = t;
    for (int i = 1; i < *argc; i++)
        out[n++] = argv[i];
    *argc = n;
    return out;
}

int main(int argc, char **argv)
{
    qsd_config cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.bind = QSV_DEFAULT_ENDPOINT;
    parse_metrics("all", cfg.metrics);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    cfg.threads = cpus < 1 ? 1 : cpus > 64 ? 64 : (int)cpus;
    cfg.workers = 1;
    cfg.queue = 256;
    cfg.client_queue = 64;
    cfg.request_limit_ms = 600000;
    cfg.tables_dir = NULL;
    cfg.optimal_tables = QTAB_OPTIMAL_SMALL;
    cfg.robot_tables = QTAB_ROBOT_LARGE;
    cfg.keep_warm_ms = QTAB_KEEP_WARM_DEFAULT_MS;
    cfg.line_metric = QS_METRIC_ROBOT;
    cfg.line_time_ms = QSV_DEFAULT_TIME_MS;
    robot_profile_builtin("default", &cfg.line_profile);
    cfg.line_objective = ROBOT_OBJ_MOVES;
    cfg.log = (qlog){QLOG_INFO, NULL};
    int stdio_mode = 0;

    argv = merge_env_options(&argc, argv);
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VALUE()                                                              \
    (v ? (i++, v) : (die("option %s needs a value", a), (const char *)NULL))
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            usage(stdout);
            return 0;
        } else if (strcmp(a, "--version") == 0) {
            printf("quadsolved %s\n", QS_VERSION);
            return 0;
        } else if (strcmp(a, "--bind") == 0) {
            cfg.bind = VALUE();
        } else if (strcmp(a, "--metrics") == 0) {
            parse_metrics(VALUE(), cfg.metrics);
        } else if (strcmp(a, "--threads") == 0) {
            cfg.threads = (int)parse_long(a, VALUE(), 1, QS_MAX_THREADS);
        } else if (strcmp(a, "--workers") == 0) {
            cfg.workers = (int)parse_long(a, VALUE(), 1, 64);
        } else if (strcmp(a, "--queue") == 0) {
            cfg.queue = (int)parse_long(a, VALUE(), 1, 100000);
        } else if (strcmp(a, "--client-queue") == 0) {
            cfg.client_queue = (int)parse_long(a, VALUE(), 1, 100000);
        } else if (strcmp(a, "--request-limit-ms") == 0) {
            cfg.request_limit_ms =
                (int)parse_long(a, VALUE(), 0, QSV_MAX_DEADLINE_MS);
        } else if (strcmp(a, "--tables") == 0) {
            cfg.tables_dir = VALUE();
        } else if (strcmp(a, "--optimal-tables") == 0) {
            const char *t = VALUE();
            int size = qtab_optimal_size_parse(t);
            if (size < 0)
                die("--optimal-tables: '%s' is not small, large, xl, h48, "
                    "large+h48, compact or h48h7", t);
            cfg.optimal_tables = (qtab_optimal_size)size;
        } else if (strcmp(a, "--keep-warm") == 0) {
            cfg.keep_warm_ms =
                (int)parse_long(a, VALUE(), 0, QTAB_KEEP_WARM_MAX_MS);
        } else if (strcmp(a, "--robot-tables") == 0) {
            const char *t = VALUE();
            int size = qtab_robot_size_parse(t);
            if (size < 0)
                die("--robot-tables: '%s' is not small, medium or large", t);
            cfg.robot_tables = (qtab_robot_size)size;
        } else if (strcmp(a, "--curve-secret") == 0) {
            cfg.curve_secret = VALUE();
        } else if (strcmp(a, "--curve-clients") == 0) {
            cfg.curve_clients = VALUE();
        } else if (strcmp(a, "--log-level") == 0) {
            const char *l = VALUE();
            int level = qlog_level_parse(l);
            if (level < 0 || level == QLOG_OFF)
                die("--log-level: '%s' is not debug, info, warn or error", l);
            cfg.log.level = (qlog_level)level;
        } else if (strcmp(a, "--keygen") == 0) {
            return keygen(VALUE());
        } else if (strcmp(a, "--stdio") == 0) {
            stdio_mode = 1;
        } else if (strcmp(a, "--metric") == 0) {
            const char *m = VALUE();
            int k = qs_metric_parse(m);
            if (k < 0)
                die("--metric: unknown metric '%s'", m);
            cfg.line_metric = (qs_metric)k;
        } else if (strcmp(a, "--time-ms") == 0) {
            cfg.line_time_ms = (int)parse_long(a, VALUE(), 1, QSV_MAX_TIME_MS);
        } else if (strcmp(a, "--profile") == 0) {
            char detail[256] = "";
            const char *p = VALUE();
            int rc = robot_profile_select(p, &cfg.line_profile, detail,
                                          sizeof detail);
            if (rc != ROBOT_OK)
                die("--profile %s: %s", p,
                    *detail ? detail : robot_strerror(rc));
        } else if (strcmp(a, "--objective") == 0) {
            const char *o = VALUE();
            if (strcmp(o, "moves") == 0)
                cfg.line_objective = ROBOT_OBJ_MOVES;
            else if (strcmp(o, "time") == 0)
                cfg.line_objective = ROBOT_OBJ_TIME;
            else
                die("--objective: '%s' is not moves or time", o);
        } else {
            die("unknown argument '%s'", a);
        }
#undef VALUE
    }
    if (!cfg.tables_dir)
        cfg.tables_dir = getenv("QUADSOLVE_TABLES");
    return stdio_mode ? qsd_lines(&cfg) : qsd_serve(&cfg);
}
