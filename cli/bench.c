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
#include <unistd.h>

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

/* What every run of one bench invocation shares. */
typedef struct {
    const char *file;
    long limit;
    int shard_k, shard_n;
    cmp_data *report;    /* NULL without --html */
} bench_input;

/* The cubes a run of in will solve from f (read to its end), for the
 * progress bar. */
static long count_cubes(const bench_input *in, FILE *f)
{
    long n = 0, cube_no = -1;
    char *line = NULL, *s;
    size_t cap = 0;
    while ((in->limit < 0 || n < in->limit) &&
           (s = cli_read_line(f, &line, &cap)) != NULL)
        if (*s != '\0' && *s != '#' && ++cube_no % in->shard_n == in->shard_k)
            n++;
    free(line);
    return n;
}

/* One run: every selected cube of the file solved with t and o, checked,
 * summed up and printed; with a report, run `label`'s entries filled in
 * (rows made by the first run). Returns the number of failures, or -1
 * when the file cannot be read. */
static long bench_run(const bench_input *in, cli_tables *t, qs_options *o,
                      int label)
{
    qs_metric metric = t->metric;
    FILE *f = strcmp(in->file, "-") == 0 ? stdin : fopen(in->file, "r");
    if (!f) {
        perror(in->file);
        return -1;
    }
    /* Lengths are bounded by QS_MAX_MOVES moves of at most 4 quarter
     * turns each. */
    enum { HIST = QS_MAX_MOVES * 4 + 1 };
    int hist[HIST] = {0};
    double *times = NULL;
    size_t times_cap = 0;
    long line_no = 0, cubes = 0, solved = 0, failed = 0, cube_no = -1;
    double sum_len = 0, sum_htm = 0, sum_ms = 0, sum_cost = 0;
    long sum_tilts = 0, sum_regrips = 0;
    char *line = NULL;
    size_t cap = 0;
    cli_result *r = malloc(sizeof *r);
    if (!r) {
        fputs("quadsolve: out of memory\n", stderr);
        if (f != stdin)
            fclose(f);
        return -1;
    }
    cmp_data *report = in->report;
    /* On a terminal, a bar with the time left: counting the cubes first
     * needs a file that can be read twice, so not for standard input. */
    cli_progress_bar bar;
    long total = 0;
    if (f != stdin && isatty(STDERR_FILENO)) {
        total = count_cubes(in, f);
        rewind(f);
    }
    cli_progress_bar_start(&bar, total);
    char *s;
    while ((in->limit < 0 || cubes < in->limit) &&
           !atomic_load(&cli_cancel) &&
           (s = cli_read_line(f, &line, &cap)) != NULL) {
        line_no++;
        if (*s == '\0' || *s == '#')
            continue;
        if (++cube_no % in->shard_n != in->shard_k)
            continue;
        cubes++;
        cli_solve_input(t, s, 0, o, r);
        cli_progress_bar_update(&bar, cubes);
        if (report) {
            qs_cube cube;
            cmp_row *row = label == 0 ? cmp_data_add_row(report,
                                                         (int)cube_no, s)
                           : cubes <= report->n_rows ? &report->rows[cubes - 1]
                                                     : NULL;
            if (row && qs_cube_from_facelets(s, &cube, NULL, 0) == QS_OK) {
                if (r->rc == QS_OK)
                    cmp_measure(report, &cube, r->sol[0].moves, r->sol[0].n,
                                &row->e[label]);
                else
                    snprintf(row->e[label].error, sizeof row->e[label].error,
                             "%.120s", r->message);
            }
        }
        if (r->rc != QS_OK) {
            failed++;
            cli_progress_bar_end(&bar); /* the line, then the bar again */
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
        if (t->optimal) {
            /* Minutes per cube: one line each shows it is alive. */
            cli_progress_bar_end(&bar);
            printf("line %ld: optimal %d %s in %.1f s (%llu nodes)\n",
                   line_no, best->length, qs_metric_name(metric),
                   r->ms / 1000.0, (unsigned long long)r->stats.phase1_nodes);
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
    cli_progress_bar_end(&bar);
    free(line);
    if (f != stdin)
        fclose(f);
    if (report && label == 0)
        report->n_cubes = (int)(cube_no + 1);

    const char *mname = qs_metric_name(metric);
    if (t->tried) {
        qtab_stats ts;
        if (t->rc == QTAB_OK) {
            qtab_set_stats(t->set, &ts);
            printf("tables: %s opened in %.1f ms (%d blobs: %d loaded, %d "
                   "generated; %.1f MiB)\n",
                   mname, t->load_ms, ts.blobs, ts.loaded, ts.generated,
                   (double)ts.bytes / (1024.0 * 1024.0));
        } else {
            printf("tables: %s failed to open after %.1f ms: %s\n", mname,
                   t->load_ms, qtab_strerror(t->rc));
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
                   t->profile.name,
                   t->objective == ROBOT_OBJ_TIME ? "time" : "moves",
                   sum_cost / solved, (double)sum_tilts / solved,
                   (double)sum_regrips / solved);
        printf("time per cube (ms): avg %.3f  p50 %.3f  p99 %.3f  max %.3f\n",
               sum_ms / solved, percentile(times, (int)solved, 0.50),
               percentile(times, (int)solved, 0.99), times[solved - 1]);
        print_histogram(hist, HIST - 1, mname);
    }
    free(times);
    free(r);
    return cubes == 0 ? failed + 1 : failed;
}

/* A comma-separated list of at most max items of an option, each parsed
 * by parse (a usage error exits); returns the count. */
static int parse_list(const char *opt, const char *v, int *out, int max,
                      int (*parse)(const char *opt, const char *item))
{
    char buf[256];
    snprintf(buf, sizeof buf, "%s", v);
    int n = 0;
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item;
         item = strtok_r(NULL, ",", &save)) {
        if (n == max)
            cli_usage_error("%s: at most %d values", opt, max);
        out[n++] = parse(opt, item);
    }
    if (n == 0)
        cli_usage_error("%s: no value", opt);
    return n;
}

static int parse_metric_item(const char *opt, const char *item)
{
    return (int)cli_parse_metric(opt, item);
}

static int parse_time_item(const char *opt, const char *item)
{
    return (int)cli_parse_long(opt, item, 0, 86400000L);
}

int cmd_bench(int argc, char **argv)
{
    enum { MAX_SETTINGS = 8 };
    int metrics[MAX_SETTINGS] = {QS_METRIC_HTM}, n_metrics = 1;
    int times_ms[MAX_SETTINGS], n_times = 1;
    qs_options o;
    const char *v, *html = NULL;
    bench_input in = {NULL, -1, 0, 1, NULL};

    qs_options_default(&o);
    times_ms[0] = o.time_ms;
    o.threads = cli_online_cpus();
    o.cancel = &cli_cancel;
    cli_tables t;
    cli_tables_init(&t, QS_METRIC_HTM, o.threads);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_robot_option(argc, argv, &i, &t) ||
            cli_tables_option(argc, argv, &i, &t)) {
            continue;
        } else if (cli_opt(argc, argv, &i, "--metric", &v)) {
            n_metrics = parse_list("--metric", v, metrics, MAX_SETTINGS,
                                   parse_metric_item);
        } else if (cli_opt(argc, argv, &i, "--time-ms", &v)) {
            n_times = parse_list("--time-ms", v, times_ms, MAX_SETTINGS,
                                 parse_time_item);
        } else if (cli_opt(argc, argv, &i, "--max-len", &v)) {
            o.max_len = strcmp(v, "none") == 0
                            ? -1
                            : (int)cli_parse_long("--max-len", v, 0, 1000);
        } else if (cli_opt(argc, argv, &i, "--max-nodes", &v)) {
            o.max_nodes =
                (uint64_t)cli_parse_long("--max-nodes", v, 0, 1000000000000L);
        } else if (cli_opt(argc, argv, &i, "--threads", &v)) {
            o.threads = (int)cli_parse_long("--threads", v, 1, QS_MAX_THREADS);
        } else if (strcmp(a, "--optimal") == 0) {
            t.optimal = 1;
            t.optimal_quiet = 1;
        } else if (cli_opt(argc, argv, &i, "--table-size", &v)) {
            cli_parse_table_size("--table-size", v, &t);
        } else if (cli_opt(argc, argv, &i, "--shard", &v)) {
            cli_parse_shard("--shard", v, &in.shard_k, &in.shard_n);
        } else if (cli_opt(argc, argv, &i, "--html", &v)) {
            html = v;
        } else if (cli_opt(argc, argv, &i, "--limit", &v)) {
            in.limit = cli_parse_long("--limit", v, 1, 100000000L);
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_usage_error("bench: unknown option '%s'", a);
        } else if (!in.file) {
            in.file = a;
        } else {
            cli_usage_error("bench: more than one file given ('%s')", a);
        }
    }
    if (!in.file)
        cli_usage_error("bench: no FILE given");
    for (int m = 0; m < n_metrics; m++) {
        if (t.optimal && metrics[m] != QS_METRIC_HTM &&
            metrics[m] != QS_METRIC_QTM)
            cli_usage_error("bench: --optimal needs --metric htm or qtm");
        if (t.robot_medium && metrics[m] != QS_METRIC_ROBOT)
            cli_usage_error("bench: --table-size medium is a size of the "
                            "robot search's tables (--metric robot)");
    }
    if (t.optimal && o.max_nodes)
        cli_usage_error("bench: --max-nodes limits the two-phase searches, "
                        "not --optimal");
    int runs = n_metrics * n_times;
    if (runs > CMP_MAX_LABELS)
        cli_usage_error("bench: at most %d metric and time combinations",
                        CMP_MAX_LABELS);
    if (runs > 1 && strcmp(in.file, "-") == 0)
        cli_usage_error("bench: several metrics or time limits read the "
                        "file once each: give a file, not '-'");
    cli_install_signals();

    /* --html: each run is one solver of a compare report, planned under
     * the run's profile. */
    cmp_data report;
    cmp_data_init(&report, runs, 1);
    report.profiles[0] = t.profile;
    report.objective = t.objective;
    if (html)
        in.report = &report;
    long failed = 0;
    int status = CLI_EXIT_OK;
    for (int k = 0; k < runs && !atomic_load(&cli_cancel); k++) {
        qs_metric metric = (qs_metric)metrics[k / n_times];
        o.time_ms = times_ms[k % n_times];
        snprintf(report.labels[k], sizeof report.labels[k],
                 "quadsolve %s %d ms", qs_metric_name(metric), o.time_ms);
        if (runs > 1)
            printf("%s== %s\n", k ? "\n" : "", report.labels[k]);
        cli_tables run = t; /* a metric's own tables, opened on first use */
        run.metric = metric;
        run.threads = o.threads;
        run.set = NULL;
        run.tried = 0;
        long bad = bench_run(&in, &run, &o, k);
        cli_tables_close(&run);
        if (bad < 0) {
            status = CLI_EXIT_FAIL;
            break;
        }
        failed += bad;
    }
    if (html && status == CLI_EXIT_OK) {
        char title[200];
        snprintf(title, sizeof title, "quadsolve bench: %.150s", in.file);
        if (runs == 1) /* "quadsolve htm 10 ms" -> "htm 10 ms" */
            snprintf(title, sizeof title, "quadsolve bench: %.50s, %.120s",
                     report.labels[0] + strlen("quadsolve "), in.file);
        if (cmp_report_html(&report, title, html) != 0) {
            perror(html);
            failed++;
        }
    }
    cmp_data_free(&report);
    if (atomic_load(&cli_cancel)) {
        fputs("quadsolve: interrupted\n", stderr);
        return CLI_EXIT_INTERRUPTED;
    }
    if (status != CLI_EXIT_OK)
        return status;
    return failed ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
