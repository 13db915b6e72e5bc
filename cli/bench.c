/*
 * bench.c - `quadsolve bench FILE`: solves every facelet string of a file
 * (blank lines and lines starting with '#' are skipped), verifies every
 * solution, and prints failures, length and time statistics and the length
 * distribution. Any failure makes the exit status nonzero, so the command
 * doubles as an end-to-end check.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <stdlib.h>
#include <string.h>

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Nearest-rank percentile of sorted values. */
static double percentile(const double *sorted, int n, double p)
{
    int k = (int)(p * n + 0.999999999);
    if (k < 1)
        k = 1;
    if (k > n)
        k = n;
    return sorted[k - 1];
}

static void print_histogram(const int *hist, int max_len, const char *name)
{
    int lo = -1, hi = -1, peak = 0;
    for (int l = 0; l <= max_len; l++)
        if (hist[l]) {
            if (lo < 0)
                lo = l;
            hi = l;
            if (hist[l] > peak)
                peak = hist[l];
        }
    if (lo < 0)
        return;
    printf("length distribution (%s):\n", name);
    for (int l = lo; l <= hi; l++) {
        int bar = (int)((hist[l] * 50LL + peak - 1) / peak);
        printf("  %3d %7d%s", l, hist[l], bar ? "  " : "");
        for (int k = 0; k < bar; k++)
            putchar('#');
        putchar('\n');
    }
}

int cmd_bench(int argc, char **argv)
{
    qs_metric metric = QS_METRIC_HTM;
    qs_options o;
    const char *file = NULL, *v, *html = NULL;
    long limit = -1;
    int shard_k = 0, shard_n = 1;

    qs_options_default(&o);
    o.threads = cli_online_cpus();
    o.cancel = &cli_cancel;
    cli_tables t;
    cli_tables_init(&t, metric, o.threads);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_robot_option(argc, argv, &i, &t)) {
            continue;
        } else if (cli_opt(argc, argv, &i, "--metric", &v)) {
            metric = cli_parse_metric("--metric", v);
        } else if (cli_opt(argc, argv, &i, "--time-ms", &v)) {
            o.time_ms = (int)cli_parse_long("--time-ms", v, 0, 86400000L);
        } else if (cli_opt(argc, argv, &i, "--max-len", &v)) {
            o.max_len = strcmp(v, "none") == 0
                            ? -1
                            : (int)cli_parse_long("--max-len", v, 0, 1000);
        } else if (cli_opt(argc, argv, &i, "--threads", &v)) {
            o.threads = (int)cli_parse_long("--threads", v, 1, QS_MAX_THREADS);
        } else if (strcmp(a, "--optimal") == 0) {
            t.optimal = 1;
            t.optimal_quiet = 1;
        } else if (cli_opt(argc, argv, &i, "--table-size", &v)) {
            t.optimal_size = cli_parse_optimal_size("--table-size", v);
        } else if (cli_opt(argc, argv, &i, "--shard", &v)) {
            cli_parse_shard("--shard", v, &shard_k, &shard_n);
        } else if (cli_opt(argc, argv, &i, "--html", &v)) {
            html = v;
        } else if (cli_opt(argc, argv, &i, "--limit", &v)) {
            limit = cli_parse_long("--limit", v, 1, 100000000L);
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_usage_error("bench: unknown option '%s'", a);
        } else if (!file) {
            file = a;
        } else {
            cli_usage_error("bench: more than one file given ('%s')", a);
        }
    }
    if (!file)
        cli_usage_error("bench: no FILE given");
    if (t.optimal && metric != QS_METRIC_HTM && metric != QS_METRIC_QTM)
        cli_usage_error("bench: --optimal needs --metric htm or qtm");

    FILE *f = strcmp(file, "-") == 0 ? stdin : fopen(file, "r");
    if (!f) {
        perror(file);
        return CLI_EXIT_FAIL;
    }

    t.metric = metric;
    t.threads = o.threads;
    cli_install_signals();

    /* Lengths are bounded by QS_MAX_MOVES moves of at most 4 quarter
     * turns each. */
    enum { HIST = QS_MAX_MOVES * 4 + 1 };
    int hist[HIST] = {0};
    double *times = NULL;
    size_t times_cap = 0;
    long line_no = 0, cubes = 0, solved = 0, failed = 0;
    double sum_len = 0, sum_htm = 0, sum_ms = 0, sum_cost = 0;
    long sum_tilts = 0, sum_regrips = 0;
    char *line = NULL;
    size_t cap = 0;
    cli_result *r = malloc(sizeof *r);
    if (!r) {
        fputs("quadsolve: out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }
    /* --html: the run as one solver of a compare report, planned under
     * the run's profile. */
    cmp_data report;
    cmp_data_init(&report, 1, 1);
    report.profiles[0] = t.profile;
    report.objective = t.objective;
    snprintf(report.labels[0], sizeof report.labels[0], "quadsolve %s %d ms",
             qs_metric_name(metric), o.time_ms);
    long cube_no = -1;

    char *s;
    while ((limit < 0 || cubes < limit) && !atomic_load(&cli_cancel) &&
           (s = cli_read_line(f, &line, &cap)) != NULL) {
        line_no++;
        if (*s == '\0' || *s == '#')
            continue;
        if (++cube_no % shard_n != shard_k)
            continue;
        cubes++;
        cli_solve_input(&t, s, 0, &o, r);
        if (html) {
            qs_cube cube;
            cmp_row *row = cmp_data_add_row(&report, (int)cube_no, s);
            if (row && qs_cube_from_facelets(s, &cube, NULL, 0) == QS_OK) {
                if (r->rc == QS_OK)
                    cmp_measure(&report, &cube, r->sol[0].moves,
                                r->sol[0].n, &row->e[0]);
                else
                    snprintf(row->e[0].error, sizeof row->e[0].error, "%.120s",
                             r->message);
            }
        }
        if (r->rc != QS_OK) {
            failed++;
            printf("line %ld: %s: %s\n", line_no, cli_errcode(r->rc),
                   r->message);
            fflush(stdout);
            if (r->rc == QS_ERR_TABLES)
                break; /* every later line would fail the same way */
            continue;
        }
        const qs_solution *best = &r->sol[0];
        int htm = qs_moves_length(best->moves, best->n, QS_METRIC_HTM);
        solved++;
        sum_len += best->length;
        sum_htm += htm;
        sum_ms += r->ms;
        if (metric == QS_METRIC_ROBOT) {
            sum_cost += r->plan[0].cost_ms;
            sum_tilts += r->plan[0].tilts;
            sum_regrips += r->plan[0].full_regrips;
        }
        if (best->length >= 0 && best->length < HIST)
            hist[best->length]++;
        if (t.optimal) {
            /* Minutes per cube: one line each shows it is alive. */
            printf("line %ld: optimal %d %s in %.1f s (%llu nodes)\n",
                   line_no, best->length, qs_metric_name(metric), r->ms / 1000.0,
                   (unsigned long long)r->stats.phase1_nodes);
            fflush(stdout);
        }
        if ((size_t)solved > times_cap) {
            size_t ncap = times_cap ? times_cap * 2 : 1024;
            double *nt = realloc(times, ncap * sizeof *nt);
            if (!nt) {
                fputs("quadsolve: out of memory\n", stderr);
                failed++;
                break;
            }
            times = nt;
            times_cap = ncap;
        }
        times[solved - 1] = r->ms;
    }
    free(line);
    if (f != stdin)
        fclose(f);

    const char *mname = qs_metric_name(metric);
    if (t.tried) {
        qtab_stats ts;
        if (t.rc == QTAB_OK) {
            qtab_set_stats(t.set, &ts);
            printf("tables: %s opened in %.1f ms (%d blobs: %d loaded, %d "
                   "generated; %.1f MiB)\n",
                   mname, t.load_ms, ts.blobs, ts.loaded, ts.generated,
                   (double)ts.bytes / (1024.0 * 1024.0));
        } else {
            printf("tables: %s failed to open after %.1f ms: %s\n", mname,
                   t.load_ms, qtab_strerror(t.rc));
        }
    }
    printf("solved: %ld of %ld (%ld failed)\n", solved, cubes, failed);
    if (solved > 0) {
        qsort(times, (size_t)solved, sizeof *times, cmp_double);
        printf("average length: %.3f %s, %.3f htm\n", sum_len / solved,
               mname, sum_htm / solved);
        if (metric == QS_METRIC_ROBOT)
            printf("robot execution (%s profile, %s objective): cost_ms "
                   "%.3f, tilts %.3f, full regrips %.3f per cube\n",
                   t.profile.name,
                   t.objective == ROBOT_OBJ_TIME ? "time" : "moves",
                   sum_cost / solved, (double)sum_tilts / solved,
                   (double)sum_regrips / solved);
        printf("time per cube (ms): avg %.3f  p50 %.3f  p99 %.3f  max %.3f\n",
               sum_ms / solved, percentile(times, (int)solved, 0.50),
               percentile(times, (int)solved, 0.99), times[solved - 1]);
        print_histogram(hist, HIST - 1, mname);
    }

    report.n_cubes = (int)(cube_no + 1);
    if (html) {
        char title[160];
        snprintf(title, sizeof title, "quadsolve bench: %s, %d ms, %s",
                 mname, o.time_ms, file);
        if (cmp_report_html(&report, title, html) != 0) {
            perror(html);
            failed++;
        }
    }
    cmp_data_free(&report);
    int interrupted = atomic_load(&cli_cancel);
    cli_tables_close(&t);
    free(times);
    free(r);
    if (interrupted) {
        fputs("quadsolve: interrupted\n", stderr);
        return CLI_EXIT_INTERRUPTED;
    }
    return failed || cubes == 0 ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
