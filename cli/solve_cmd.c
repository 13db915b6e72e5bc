/*
 * solve_cmd.c - `quadsolve solve`: solves cubes given as facelet strings
 * or scrambles on the command line, or as facelet strings on standard
 * input, and prints exactly one line per input (moves, an error line, or
 * with --json one JSON object), so output lines stay in step with input
 * lines when the tool is used as a filter.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "qsservice.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *text;
    int is_scramble;
} input;

/* Milliseconds rounded to microseconds, so JSON shows 10.234 rather than
 * every digit of the double. */
static double round_ms(double ms)
{
    return (double)(long long)(ms * 1000.0 + 0.5) / 1000.0;
}

static void print_json(const char *in, const cli_tables *t,
                       const cli_result *r)
{
    qs_metric metric = t->metric;
    cJSON *o = cJSON_CreateObject();
    /* The input as given when it is UTF-8; quoted byte by byte when not,
     * so the line stays valid JSON text. */
    size_t in_len = strlen(in);
    char *quoted = NULL;
    if (qsv_utf8_check(in, in_len) < in_len) {
        quoted = malloc(in_len * 4 + 4);
        if (quoted)
            qs_text_quote(in, in_len, quoted, in_len * 4 + 4);
    }
    cJSON_AddStringToObject(o, "input", quoted ? quoted : in);
    free(quoted);
    cJSON_AddBoolToObject(o, "ok", r->rc == QS_OK);
    if (r->rc != QS_OK) {
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddStringToObject(e, "code",
                                r->code[0] ? r->code : cli_errcode(r->rc));
        cJSON_AddStringToObject(e, "message", r->message);
    } else {
        const qs_solution *best = &r->sol[0];
        qsv_json_moves(o, best->moves, best->n, "length");
        cJSON_AddStringToObject(o, "metric", qs_metric_name(metric));
        if (metric == QS_METRIC_ROBOT) {
            qsv_json_plan(o, &r->plan[0]);
            cJSON_AddStringToObject(o, "profile", t->profile.name);
            cJSON_AddStringToObject(o, "objective",
                                    t->objective == ROBOT_OBJ_TIME ? "time"
                                                                   : "moves");
        }
        cJSON_AddNumberToObject(o, "time_ms", round_ms(r->ms));
        cJSON *st = cJSON_AddObjectToObject(o, "stats");
        cJSON_AddNumberToObject(st, "phase1_nodes",
                                (double)r->stats.phase1_nodes);
        cJSON_AddNumberToObject(st, "phase2_nodes",
                                (double)r->stats.phase2_nodes);
        cJSON_AddNumberToObject(st, "phase2_searches",
                                (double)r->stats.phase2_searches);
        cJSON_AddNumberToObject(st, "first_ms", round_ms(r->stats.first_ms));
        cJSON *sols = cJSON_AddArrayToObject(o, "solutions");
        for (int i = 0; i < r->n; i++) {
            cJSON *s = cJSON_CreateObject();
            /* As the daemon lists solutions: "lengths" in every metric. */
            qsv_json_moves(s, r->sol[i].moves, r->sol[i].n, "lengths");
            cJSON_AddNumberToObject(s, "length", r->sol[i].length);
            if (metric == QS_METRIC_ROBOT)
                qsv_json_plan(s, &r->plan[i]);
            cJSON_AddItemToArray(sols, s);
        }
    }
    cli_print_json(o);
}

static void print_text(const cli_tables *t, const cli_result *r)
{
    char moves[QS_MAX_MOVES * 8];
    if (r->rc != QS_OK) {
        printf("error: %s: %s\n", r->code[0] ? r->code : cli_errcode(r->rc),
               r->message);
        return;
    }
    if (t->optimal_stream)
        return; /* every solution was printed as it was found */
    qs_moves_format(r->sol[0].moves, r->sol[0].n, moves, sizeof moves);
    puts(moves);
}

/* Solves one input (through the daemon when server is not NULL) and
 * prints its line; returns 1 if it was solved. */
static int handle(cli_tables *t, struct qsv_client *server, const char *text,
                  int is_scramble, const qs_options *o, int json,
                  cli_result *r)
{
    if (server)
        cli_solve_remote(server, t, text, is_scramble, o, r);
    else
        cli_solve_input(t, text, is_scramble, o, r);
    if (json)
        print_json(text, t, r);
    else
        print_text(t, r);
    fflush(stdout);
    return r->rc == QS_OK;
}

int cmd_solve(int argc, char **argv)
{
    qs_metric metric = QS_METRIC_HTM;
    qs_options o;
    int json = 0, n_inputs = 0, failures = 0, shard_k = 0, shard_n = 1;
    const char *v, *endpoint = NULL, *curve_server = NULL,
                   *curve_key = NULL;
    /* Beyond each request's own limit; a live daemon answers within
     * milliseconds of that even when busy, unless its machine is
     * overloaded or it is still loading tables. */
    int server_timeout_ms = 5000;
    qsv_client *server = NULL;
    input *inputs = calloc((size_t)argc, sizeof *inputs);
    if (!inputs) {
        fputs("quadsolve: out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }

    qs_options_default(&o);
    o.threads = cli_online_cpus();
    o.cancel = &cli_cancel;
    cli_tables t;
    cli_tables_init(&t, metric, o.threads);

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_robot_option(argc, argv, &i, &t) ||
            cli_tables_option(argc, argv, &i, &t)) {
            continue;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--optimal") == 0) {
            t.optimal = 1;
        } else if (strcmp(a, "--all") == 0) {
            t.optimal_all = 1;
        } else if (cli_opt(argc, argv, &i, "--table-size", &v)) {
            cli_parse_table_size("--table-size", v, &t);
        } else if (cli_opt(argc, argv, &i, "--metric", &v)) {
            metric = cli_parse_metric("--metric", v);
        } else if (cli_opt(argc, argv, &i, "--time-ms", &v)) {
            o.time_ms = (int)cli_parse_long("--time-ms", v, 0, 86400000L);
        } else if (cli_opt(argc, argv, &i, "--max-nodes", &v)) {
            o.max_nodes =
                (uint64_t)cli_parse_long("--max-nodes", v, 0, 1000000000000L);
        } else if (cli_opt(argc, argv, &i, "--max-len", &v)) {
            o.max_len = strcmp(v, "none") == 0
                            ? -1
                            : (int)cli_parse_long("--max-len", v, 0, 1000);
        } else if (cli_opt(argc, argv, &i, "--solutions", &v)) {
            o.solutions =
                (int)cli_parse_long("--solutions", v, 1, CLI_MAX_SOLUTIONS);
        } else if (cli_opt(argc, argv, &i, "--threads", &v)) {
            o.threads = (int)cli_parse_long("--threads", v, 1, QS_MAX_THREADS);
        } else if (cli_opt(argc, argv, &i, "--server", &v)) {
            endpoint = v;
        } else if (cli_opt(argc, argv, &i, "--server-timeout-ms", &v)) {
            server_timeout_ms = (int)cli_parse_long("--server-timeout-ms", v,
                                                    1, 86400000L);
        } else if (cli_opt(argc, argv, &i, "--curve-server", &v)) {
            curve_server = v;
        } else if (cli_opt(argc, argv, &i, "--curve-key", &v)) {
            curve_key = v;
        } else if (cli_opt(argc, argv, &i, "--shard", &v)) {
            cli_parse_shard("--shard", v, &shard_k, &shard_n);
        } else if (cli_opt(argc, argv, &i, "--scramble", &v)) {
            inputs[n_inputs].text = v;
            inputs[n_inputs++].is_scramble = 1;
        } else if (strcmp(a, "--") == 0) {
            while (++i < argc)
                inputs[n_inputs++].text = argv[i];
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_usage_error("solve: unknown option '%s'", a);
        } else {
            inputs[n_inputs++].text = a;
        }
    }
    if (t.optimal && metric != QS_METRIC_HTM && metric != QS_METRIC_QTM &&
        metric != QS_METRIC_ROBOT)
        cli_usage_error("solve: --optimal needs --metric htm, qtm or robot");
    if (t.optimal && metric == QS_METRIC_ROBOT &&
        t.objective == ROBOT_OBJ_TIME)
        cli_usage_error("solve: --optimal --metric robot minimises robot "
                        "moves; --objective time is not available");
    if (t.optimal && metric == QS_METRIC_ROBOT && (endpoint || t.optimal_all))
        cli_usage_error("solve: --optimal --metric robot is local only and "
                        "finds one solution (no --server, no --all)");
    if (t.optimal_all && !t.optimal)
        cli_usage_error("solve: --all needs --optimal");
    if (t.robot_medium && (metric != QS_METRIC_ROBOT || t.optimal))
        cli_usage_error("solve: --table-size medium is a size of the robot "
                        "search's tables (--metric robot, not --optimal)");
    t.optimal_stream = t.optimal_all && !json;
    if (o.max_nodes && (endpoint || t.optimal))
        cli_usage_error("solve: --max-nodes is for a local two-phase search "
                        "(no --server, no --optimal)");
    if (!t.optimal && o.time_ms == 0 && o.max_len < 0 && !o.max_nodes)
        fputs("quadsolve: warning: no time limit and no length limit; the "
              "search may run for a long time\n",
              stderr);

    t.metric = metric;
    t.threads = o.threads;
    cli_result *r = malloc(sizeof *r);
    if (!r) {
        free(inputs);
        fputs("quadsolve: out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }
    if (endpoint) {
        qsv_failure f;
        qsv_client_options co;
        qsv_client_options_default(&co);
        co.timeout_ms = server_timeout_ms;
        qsv_curve_keys keys;
        if ((curve_server || curve_key) &&
            (!curve_server || !curve_key))
            cli_usage_error("--curve-server and --curve-key go together");
        if (curve_server &&
            qsv_curve_load(curve_server, curve_key, &keys, &co, &f) !=
                QSV_OK) {
            fprintf(stderr, "quadsolve: %s\n", f.message);
            free(r);
            free(inputs);
            return CLI_EXIT_USAGE;
        }
        /* A ping first, so an absent daemon is one clear error rather
         * than one per input. */
        if (qsv_client_open(endpoint, &co, &server, &f) != QSV_OK ||
            qsv_client_ping(server, &f) != QSV_OK) {
            qsv_client_close(server);
            fprintf(stderr, "quadsolve: --server %s: %s\n", endpoint,
                    f.message);
            free(r);
            free(inputs);
            return CLI_EXIT_FAIL;
        }
    }
    cli_install_signals();

    if (n_inputs > 0) {
        for (int i = shard_k; i < n_inputs && !atomic_load(&cli_cancel);
             i += shard_n)
            failures += !handle(&t, server, inputs[i].text, inputs[i].is_scramble,
                                &o, json, r);
    } else {
        char *line = NULL;
        size_t cap = 0;
        char *text;
        long line_no = 0;
        /* --shard counts every input line, so the shards of one file
         * split it exactly, whatever the lines hold. */
        while (!atomic_load(&cli_cancel) &&
               (text = cli_read_line(stdin, &line, &cap)) != NULL)
            if (line_no++ % shard_n == shard_k)
                failures += !handle(&t, server, text, 0, &o, json, r);
        free(line);
    }

    int interrupted = atomic_load(&cli_cancel);
    qsv_client_close(server);
    cli_tables_close(&t);
    free(r);
    free(inputs);
    if (interrupted)
        return CLI_EXIT_INTERRUPTED;
    return failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
