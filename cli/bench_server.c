/*
 * bench_server.c - `quadsolve bench-server`: measures quadsolved as its
 * clients see it. N client threads (one DEALER each, one request in
 * flight each) solve the cubes of a file through the daemon; every
 * solution is verified by the client library. Reports throughput, round
 * trips and the daemon's overhead: the round trip minus the search time
 * the daemon reports, and, with --compare, the round trip minus an
 * in-process solve of the same request done here first (same options and
 * threads, so the two differ only by the daemon and the sockets).
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "qsservice.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *endpoint;
    qsv_request base;
    char **cubes;
    int n;
    atomic_int next;
    double *rtt, *solve_ms;
    int *rc;
} bench_ctx;

static void *client_main(void *arg)
{
    bench_ctx *b = arg;
    qsv_client *c;
    qsv_failure f;
    static _Thread_local qsv_result res;
    if (qsv_client_open(b->endpoint, NULL, &c, &f) != QSV_OK) {
        fprintf(stderr, "bench-server: %s\n", f.message);
        return NULL;
    }
    for (;;) {
        int i = atomic_fetch_add(&b->next, 1);
        if (i >= b->n || atomic_load(&cli_cancel))
            break;
        qsv_request r = b->base;
        snprintf(r.cube, sizeof r.cube, "%s", b->cubes[i]);
        double t0 = cli_now_ms();
        b->rc[i] = qsv_client_solve(c, &r, &cli_cancel, NULL, NULL, &res, &f);
        b->rtt[i] = cli_now_ms() - t0;
        b->solve_ms[i] = b->rc[i] == QSV_OK ? res.solve_ms : 0;
        if (b->rc[i] != QSV_OK)
            fprintf(stderr, "bench-server: cube %d: %s: %s\n", i + 1,
                    qsv_errcode(b->rc[i]), f.message);
    }
    qsv_client_close(c);
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The q-quantile (nearest rank) of v[0..n), sorting a copy. */
static double quantile(const double *v, int n, double q)
{
    double *c = malloc(sizeof *c * (size_t)n);
    if (!c || n == 0) {
        free(c);
        return 0;
    }
    memcpy(c, v, sizeof *c * (size_t)n);
    qsort(c, (size_t)n, sizeof *c, cmp_double);
    int k = (int)(q * n + 0.999999) - 1;
    double x = c[k < 0 ? 0 : k >= n ? n - 1 : k];
    free(c);
    return x;
}

static char **read_cubes(const char *path, int limit, int *n)
{
    FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "r");
    if (!f)
        return NULL;
    char **cubes = NULL, *line = NULL, *text;
    size_t cap = 0;
    *n = 0;
    while ((limit <= 0 || *n < limit) &&
           (text = cli_read_line(f, &line, &cap)) != NULL) {
        if (*text == '\0' || *text == '#')
            continue;
        char **grown = realloc(cubes, sizeof *cubes * (size_t)(*n + 1));
        if (!grown)
            break;
        cubes = grown;
        cubes[(*n)++] = strdup(text);
    }
    free(line);
    if (f != stdin)
        fclose(f);
    return cubes;
}

int cmd_bench_server(int argc, char **argv)
{
    const char *file = NULL, *endpoint = QSV_DEFAULT_ENDPOINT, *v;
    int clients = 1, limit = 0, compare = 0, threads = cli_online_cpus();
    cli_tables t;
    cli_tables_init(&t, QS_METRIC_ROBOT, threads);
    bench_ctx b;
    memset(&b, 0, sizeof b);
    qsv_request_init(&b.base);
    for (int i = 1; i < argc; i++) {
        if (cli_robot_option(argc, argv, &i, &t)) {
        } else if (cli_opt(argc, argv, &i, "--server", &v)) {
            endpoint = v;
        } else if (cli_opt(argc, argv, &i, "--metric", &v)) {
            b.base.metric = cli_parse_metric("--metric", v);
        } else if (cli_opt(argc, argv, &i, "--time-ms", &v)) {
            b.base.time_ms =
                (int)cli_parse_long("--time-ms", v, 1, QSV_MAX_TIME_MS);
        } else if (cli_opt(argc, argv, &i, "--max-len", &v)) {
            b.base.max_len = (int)cli_parse_long("--max-len", v, 0, 200);
        } else if (cli_opt(argc, argv, &i, "--clients", &v)) {
            clients = (int)cli_parse_long("--clients", v, 1, 1024);
        } else if (cli_opt(argc, argv, &i, "--limit", &v)) {
            limit = (int)cli_parse_long("--limit", v, 1, 1000000);
        } else if (cli_opt(argc, argv, &i, "--threads", &v)) {
            threads = (int)cli_parse_long("--threads", v, 1, QS_MAX_THREADS);
        } else if (strcmp(argv[i], "--compare") == 0) {
            compare = 1;
        } else if (argv[i][0] == '-' && argv[i][1] != '\0') {
            cli_usage_error("bench-server: unknown option '%s'", argv[i]);
        } else if (!file) {
            file = argv[i];
        } else {
            cli_usage_error("bench-server: more than one FILE");
        }
    }
    if (!file)
        cli_usage_error("bench-server: FILE is required");
    b.base.profile = t.profile;
    b.base.objective = t.objective;
    b.endpoint = endpoint;
    b.cubes = read_cubes(file, limit, &b.n);
    if (!b.cubes || b.n == 0) {
        fprintf(stderr, "quadsolve: bench-server: no cubes in %s\n", file);
        return CLI_EXIT_FAIL;
    }
    b.rtt = calloc((size_t)b.n, sizeof *b.rtt);
    b.solve_ms = calloc((size_t)b.n, sizeof *b.solve_ms);
    b.rc = calloc((size_t)b.n, sizeof *b.rc);
    double *local = calloc((size_t)b.n, sizeof *local);
    cli_install_signals();

    /* In-process first, so the daemon's page cache state is the same. */
    int failures = 0;
    if (compare) {
        t.metric = b.base.metric;
        t.threads = threads;
        const qs_tables *tables = cli_tables_get(&t);
        qsv_result *res = malloc(sizeof *res);
        robot_model model;
        robot_model_init(&model);
        for (int i = 0; tables && res && i < b.n; i++) {
            qsv_request r = b.base;
            qsv_failure f;
            snprintf(r.cube, sizeof r.cube, "%s", b.cubes[i]);
            double t0 = cli_now_ms();
            /* the daemon keeps its workers' search threads: so do we */
            int rc = qsv_solve(tables, &model, &r, threads,
                               cli_tables_team(&t, threads), &cli_cancel,
                               NULL, NULL, res, &f);
            local[i] = cli_now_ms() - t0;
            failures += rc != QSV_OK;
        }
        free(res);
        if (!tables) {
            fprintf(stderr, "quadsolve: bench-server: cannot open tables\n");
            return CLI_EXIT_FAIL;
        }
        cli_tables_close(&t);
    }

    /* The floor: round trips that involve no search at all. */
    enum { PINGS = 500 };
    double ping[PINGS];
    int pings = 0;
    qsv_client *pc;
    qsv_failure pf;
    if (qsv_client_open(endpoint, NULL, &pc, &pf) == QSV_OK) {
        for (; pings < PINGS; pings++) {
            double p0 = cli_now_ms();
            if (qsv_client_ping(pc, &pf) != QSV_OK)
                break;
            ping[pings] = cli_now_ms() - p0;
        }
        qsv_client_close(pc);
    }

    pthread_t *th = calloc((size_t)clients, sizeof *th);
    double t0 = cli_now_ms();
    for (int c = 0; c < clients; c++)
        pthread_create(&th[c], NULL, client_main, &b);
    for (int c = 0; c < clients; c++)
        pthread_join(th[c], NULL);
    double wall = cli_now_ms() - t0;

    int ok = 0;
    double *over = calloc((size_t)b.n, sizeof *over);
    double *vs_local = calloc((size_t)b.n, sizeof *vs_local);
    double *rtt = calloc((size_t)b.n, sizeof *rtt);
    int n_cmp = 0;
    for (int i = 0; i < b.n; i++) {
        if (b.rc[i] != QSV_OK) {
            failures++;
            continue;
        }
        rtt[ok] = b.rtt[i];
        over[ok] = b.rtt[i] - b.solve_ms[i];
        if (compare)
            vs_local[n_cmp++] = b.rtt[i] - local[i];
        ok++;
    }
    printf("requests      %d (%d clients, metric %s, %s)\n", b.n, clients,
           qs_metric_name(b.base.metric),
           b.base.max_len >= 0 ? "max_len" : "time limit");
    printf("failures      %d\n", failures);
    printf("throughput    %.1f solves/s (%.0f ms wall)\n",
           ok * 1000.0 / wall, wall);
    printf("ping          p50 %.3f ms  p99 %.3f ms (%d round trips)\n",
           quantile(ping, pings, 0.5), quantile(ping, pings, 0.99), pings);
    printf("round trip    p50 %.3f ms  p99 %.3f ms\n", quantile(rtt, ok, 0.5),
           quantile(rtt, ok, 0.99));
    printf("rtt - daemon search   p50 %.3f ms  p99 %.3f ms\n",
           quantile(over, ok, 0.5), quantile(over, ok, 0.99));
    if (compare)
        printf("rtt - in-process solve  p50 %.3f ms  p99 %.3f ms\n",
               quantile(vs_local, n_cmp, 0.5),
               quantile(vs_local, n_cmp, 0.99));
    for (int i = 0; i < b.n; i++)
        free(b.cubes[i]);
    free(b.cubes);
    free(b.rtt);
    free(b.solve_ms);
    free(b.rc);
    free(local);
    free(over);
    free(vs_local);
    free(rtt);
    free(th);
    return failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
