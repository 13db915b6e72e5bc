/*
 * tables_cmd.c - `quadsolve tables generate|verify|info`: makes sure the
 * pruning table files of one or all metrics exist and are sound (building
 * missing or damaged ones; with --force, all of them), or reports on them (headers
 * only for info, also payload checksums for verify), for the table sizes
 * given (--optimal, --robot): a blob those sizes use must be there. The work is done by
 * the tables library (tables/qtab.h); this file only parses arguments and
 * prints the reports.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <string.h>

typedef struct {
    int verify;
    int reports; /* blobs reported so far for the current metric */
} report_ctx;

static void print_report(void *ctx, const qtab_blob_report *r)
{
    report_ctx *rc = ctx;
    int verify = rc->verify;
    rc->reports++;
    const char *status = r->status == QTAB_OK ? "ok" : qtab_errcode(r->status);
    if (!r->present && !r->wanted)
        status = "unused,absent";
    else if (r->present && !r->wanted && r->status == QTAB_OK)
        status = "ok,unused";
    printf("%-18s %-16s %12llu bytes", r->name, status,
           (unsigned long long)r->expected.bytes);
    if (verify)
        printf("  %7.2f s", r->seconds);
    printf("  %s\n", r->path);
    if (r->status != QTAB_OK && r->status != QTAB_ERR_NOT_FOUND)
        printf("  %s\n", qtab_strerror(r->status));
    fflush(stdout);
}

int cmd_tables(int argc, char **argv)
{
    const char *action = NULL, *v;
    int all = 1, threads = 0, force = 0;
    qtab_optimal_size optimal = QTAB_OPTIMAL_SMALL;
    qtab_robot_size robot = QTAB_ROBOT_LARGE;
    qs_metric metric = QS_METRIC_HTM;

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_opt(argc, argv, &i, "--metric", &v)) {
            all = strcmp(v, "all") == 0;
            if (!all)
                metric = cli_parse_metric("--metric", v);
        } else if (cli_opt(argc, argv, &i, "--threads", &v)) {
            threads = (int)cli_parse_long("--threads", v, 1, 1024);
        } else if (cli_opt(argc, argv, &i, "--optimal", &v)) {
            optimal = cli_parse_optimal_size("--optimal", v);
        } else if (cli_opt(argc, argv, &i, "--robot", &v)) {
            int r = qtab_robot_size_parse(v);
            if (r < 0)
                cli_usage_error("--robot: unknown table size '%s' (small, "
                                "medium or large)", v);
            robot = (qtab_robot_size)r;
        } else if (strcmp(a, "--force") == 0) {
            force = 1;
        } else if (a[0] == '-') {
            cli_usage_error("tables: unknown option '%s'", a);
        } else if (!action) {
            action = a;
        } else {
            cli_usage_error("tables: unexpected argument '%s'", a);
        }
    }
    if (!action)
        cli_usage_error("tables: expected generate, verify or info");
    int generate = strcmp(action, "generate") == 0;
    int verify = strcmp(action, "verify") == 0;
    if (!generate && !verify && strcmp(action, "info") != 0)
        cli_usage_error("tables: unknown action '%s' (generate, verify or "
                        "info)",
                        action);

    cli_install_signals();
    int failures = 0;
    for (int m = 0; m < QS_METRIC_COUNT; m++) {
        if (!all && m != (int)metric)
            continue;
        if (atomic_load(&cli_cancel))
            break;
        int rc;
        if (generate) {
            qtab_options o;
            qtab_stats st;
            qtab_options_default(&o);
            o.threads = threads;
            o.cancel = &cli_cancel;
            o.optimal = optimal;
            o.robot = robot;
            if (force) {
                rc = qtab_generate((qs_metric)m, &o, &st);
            } else {
                /* Opening loads valid files and rebuilds the others. */
                qtab_set *set = NULL;
                rc = qtab_open((qs_metric)m, &o, &set);
                if (rc == QTAB_OK)
                    qtab_set_stats(set, &st);
                qtab_close(set);
            }
            if (rc == QTAB_OK)
                printf("%s: %d blobs (%.1f MiB): %d generated in %.1f s, "
                       "%d loaded and verified in %.1f s\n",
                       qs_metric_name((qs_metric)m), st.blobs,
                       (double)st.bytes / (1024.0 * 1024.0), st.generated,
                       st.generate_seconds, st.loaded, st.load_seconds);
            else
                printf("%s: generation failed: %s\n",
                       qs_metric_name((qs_metric)m), qtab_strerror(rc));
        } else {
            report_ctx ctx = {verify, 0};
            qtab_options o;
            qtab_options_default(&o);
            o.threads = threads;
            o.optimal = optimal;
            o.robot = robot;
            rc = verify ? qtab_verify((qs_metric)m, &o, print_report, &ctx)
                        : qtab_info((qs_metric)m, &o, print_report, &ctx);
            /* Failures before any blob was looked at have no report. */
            if (rc != QTAB_OK && ctx.reports == 0)
                printf("%s: %s\n", qs_metric_name((qs_metric)m),
                       qtab_strerror(rc));
        }
        fflush(stdout);
        failures += rc != QTAB_OK;
    }
    if (atomic_load(&cli_cancel))
        return CLI_EXIT_INTERRUPTED;
    return failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
