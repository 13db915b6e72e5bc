/*
 * common.c - helpers shared by the quadsolve subcommands: option and number
 * parsing, clocks, signal-driven cancellation, lazily opened tables, and the
 * solve-and-verify step.
 *
 * Every solution the tool prints has been applied to the input cube here
 * and seen to solve it; a solver bug shows as an INTERNAL error, never as a
 * wrong answer.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cJSON.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

atomic_int cli_cancel;

_Noreturn void cli_usage_error(const char *fmt, ...)
{
    va_list ap;
    fputs("quadsolve: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs("\nTry 'quadsolve --help'.\n", stderr);
    exit(CLI_EXIT_USAGE);
}

int cli_opt(int argc, char **argv, int *i, const char *name,
            const char **value)
{
    const char *arg = argv[*i];
    size_t len = strlen(name);
    if (strncmp(arg, name, len) != 0)
        return 0;
    if (arg[len] == '=') {
        *value = arg + len + 1;
        return 1;
    }
    if (arg[len] != '\0')
        return 0;
    if (*i + 1 >= argc)
        cli_usage_error("option %s needs a value", name);
    *value = argv[++*i];
    return 1;
}

long cli_parse_long(const char *opt, const char *s, long min, long max)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (*s == '\0' || *end != '\0' || errno == ERANGE)
        cli_usage_error("%s: '%s' is not a whole number", opt, s);
    if (v < min || v > max)
        cli_usage_error("%s: %ld is out of range (%ld..%ld)", opt, v, min,
                        max);
    return v;
}

qs_metric cli_parse_metric(const char *opt, const char *s)
{
    int m = qs_metric_parse(s);
    if (m < 0)
        cli_usage_error("%s: unknown metric '%s' (htm, qtm, axht or axqt)",
                        opt, s);
    return (qs_metric)m;
}

qtab_optimal_size cli_parse_optimal_size(const char *opt, const char *s)
{
    if (strcmp(s, "small") == 0)
        return QTAB_OPTIMAL_SMALL;
    if (strcmp(s, "large") == 0)
        return QTAB_OPTIMAL_LARGE;
    cli_usage_error("%s: unknown table size '%s' (small or large)", opt, s);
    return QTAB_OPTIMAL_SMALL;
}

int cli_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > 1024 ? 1024 : (int)n;
}

double cli_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

char *cli_strip(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == '\r' ||
                     s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    while (*s == ' ' || *s == '\t')
        s++;
    return s;
}

const char *cli_errcode(int err)
{
    return err == CLI_ERR_INTERNAL ? "INTERNAL" : qs_errcode(err);
}

static void on_signal(int sig)
{
    (void)sig;
    atomic_store(&cli_cancel, 1);
}

void cli_install_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    /* A second interrupt kills the process if cancelling gets stuck. */
    sa.sa_flags = SA_RESETHAND;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
}

void cli_tables_init(cli_tables *t, qs_metric m, int threads)
{
    memset(t, 0, sizeof *t);
    t->metric = m;
    t->threads = threads;
    robot_model_init(&t->model);
    robot_profile_builtin("default", &t->profile);
    t->objective = ROBOT_OBJ_MOVES;
    t->optimal_size = QTAB_OPTIMAL_LARGE;
}

int cli_robot_option(int argc, char **argv, int *i, cli_tables *t)
{
    const char *v;
    if (cli_opt(argc, argv, i, "--profile", &v)) {
        char detail[512] = "";
        int rc = robot_profile_select(v, &t->profile, detail, sizeof detail);
        if (rc != ROBOT_OK)
            cli_usage_error("--profile: %s: %s", robot_errcode(rc),
                            *detail ? detail : robot_strerror(rc));
        return 1;
    }
    if (cli_opt(argc, argv, i, "--objective", &v)) {
        if (strcmp(v, "moves") == 0)
            t->objective = ROBOT_OBJ_MOVES;
        else if (strcmp(v, "time") == 0)
            t->objective = ROBOT_OBJ_TIME;
        else
            cli_usage_error("--objective: '%s' is not moves or time", v);
        return 1;
    }
    return 0;
}

/* The qs_error a robot_solve result stands for (the CLI reports one
 * family of codes); anything unexpected is internal. */
static int robot_rc(int rc)
{
    switch (rc) {
    case ROBOT_OK:
        return QS_OK;
    case ROBOT_ERR_CANCELLED:
        return QS_ERR_CANCELLED;
    case ROBOT_ERR_TIMEOUT:
        return QS_ERR_TIMEOUT;
    case ROBOT_ERR_NOT_FOUND:
        return QS_ERR_NOT_FOUND;
    case ROBOT_ERR_TABLES:
        return QS_ERR_TABLES;
    case ROBOT_ERR_NOMEM:
        return QS_ERR_NOMEM;
    case ROBOT_ERR_ARGUMENT:
        return QS_ERR_ARGUMENT;
    default:
        return CLI_ERR_INTERNAL;
    }
}

/* robot_solve into r (solutions and plans); returns a qs_error. */
static int solve_robot(cli_tables *t, const qs_tables *tables,
                       const qs_cube *cube, const qs_options *o, int max_out,
                       cli_result *r, int *n, char *detail, size_t len)
{
    robot_solve_options ro;
    robot_solve_options_default(&ro);
    ro.threads = o->threads;
    ro.time_ms = o->time_ms;
    ro.max_len = o->max_len;
    ro.solutions = o->solutions;
    ro.objective = t->objective;
    ro.cancel = o->cancel;
    ro.on_improve = o->on_improve;
    ro.improve_ctx = o->improve_ctx;
    robot_solution *rs = malloc(sizeof *rs * (size_t)max_out);
    if (!rs)
        return QS_ERR_NOMEM;
    int rc = robot_solve(tables, &t->model, &t->profile, cube, &ro, rs,
                         max_out, n, &r->stats);
    if (rc != ROBOT_OK && robot_rc(rc) == CLI_ERR_INTERNAL)
        snprintf(detail, len, "robot search: %s: %s", robot_errcode(rc),
                 robot_strerror(rc));
    for (int i = 0; rc == ROBOT_OK && i < *n && i < max_out; i++) {
        memcpy(r->sol[i].moves, rs[i].moves, sizeof rs[i].moves);
        r->sol[i].n = rs[i].n;
        r->sol[i].length = rs[i].plan.robot_moves;
        r->plan[i] = rs[i].plan;
    }
    free(rs);
    return robot_rc(rc);
}

const qs_tables *cli_tables_get(cli_tables *t)
{
    if (!t->tried) {
        qtab_options o;
        qtab_options_default(&o);
        o.threads = t->threads;
        o.cancel = &cli_cancel;
        /* Only an optimal solve needs the large table: others would pay
         * its 845 MB for nothing. */
        o.optimal = t->optimal ? t->optimal_size : QTAB_OPTIMAL_SMALL;
        /* The robot optimum reads the distance tables only. */
        o.robot = t->optimal_size == QTAB_OPTIMAL_LARGE && !t->optimal
                      ? QTAB_ROBOT_LARGE
                      : QTAB_ROBOT_SMALL;
        double start = cli_now_ms();
        t->rc = qtab_open(t->metric, &o, &t->set);
        t->load_ms = cli_now_ms() - start;
        t->tried = 1;
    }
    return t->rc == QTAB_OK ? qtab_set_tables(t->set) : NULL;
}

void cli_tables_close(cli_tables *t)
{
    qtab_close(t->set);
    t->set = NULL;
    t->tried = 0;
}

static void set_error(cli_result *r, int rc, const char *msg)
{
    r->rc = rc;
    r->n = 0;
    r->code[0] = '\0';
    snprintf(r->message, sizeof r->message, "%s",
             msg && *msg ? msg : qs_strerror(rc));
}

/* solve --optimal's progress: one line per length searched. */
void cli_optimal_progress(void *ctx, int depth, int found, uint64_t nodes,
                          double elapsed_ms)
{
    (void)ctx;
    fprintf(stderr, "optimal: length %d: %s (%llu nodes, %.1f s)\n", depth,
            found ? "found" : "none", (unsigned long long)nodes,
            elapsed_ms / 1000.0);
    fflush(stderr);
}

void cli_format_pairs(const qs_move *moves, int n, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char a[16], b[16];
        /* Faces 0..5 are URFDLB: face f and f + 3 are opposite. */
        int pair = i + 1 < n && moves[i] < 18 && moves[i + 1] < 18 &&
                   moves[i] / 3 % 3 == moves[i + 1] / 3 % 3 &&
                   moves[i] / 3 != moves[i + 1] / 3;
        qs_moves_format(&moves[i], 1, a, sizeof a);
        if (pair)
            qs_moves_format(&moves[i + 1], 1, b, sizeof b);
        int w = pair ? snprintf(out + used, len - used, "%s(%s %s)",
                                used ? " " : "", a, b)
                     : snprintf(out + used, len - used, "%s%s",
                                used ? " " : "", a);
        if (w < 0 || (size_t)w >= len - used)
            return; /* truncated: len too small */
        used += (size_t)w;
        i += pair;
    }
}

/* --all in text mode: each optimal solution on its own line as found. */
static void stream_solution(void *ctx, const qs_solution *s)
{
    (void)ctx;
    char text[QS_MAX_MOVES * 12];
    cli_format_pairs(s->moves, s->n, text, sizeof text);
    puts(text);
    fflush(stdout);
}

static int solve_optimal(const cli_tables *t, const qs_tables *tables,
                         const qs_cube *cube, const qs_options *o,
                         int max_out, cli_result *r, int *n)
{
    qs_optimal_options oo;
    qs_optimal_options_default(&oo);
    oo.threads = o->threads;
    oo.cancel = o->cancel;
    oo.max_len = o->max_len;
    oo.on_depth = t->optimal_quiet ? NULL : cli_optimal_progress;
    oo.all = t->optimal_all;
    oo.on_solution = t->optimal_stream ? stream_solution : NULL;
    return qs_solve_optimal(tables, cube, &oo, r->sol, max_out, n,
                            &r->stats);
}

void cli_solve_input(cli_tables *t, const char *input, int is_scramble,
                     const qs_options *o, cli_result *r)
{
    char detail[256] = "";
    qs_cube cube;
    int rc;

    memset(&r->stats, 0, sizeof r->stats);
    r->ms = 0;
    r->n = 0;
    r->code[0] = '\0';
    r->message[0] = '\0';

    if (is_scramble) {
        qs_move moves[QS_MAX_MOVES];
        rc = qs_moves_parse(input, moves, QS_MAX_MOVES, detail,
                            sizeof detail);
        if (rc < 0) {
            set_error(r, rc, detail);
            return;
        }
        qs_cube_solved(&cube);
        qs_cube_apply_moves(&cube, moves, rc);
    } else {
        rc = qs_cube_from_facelets(input, &cube, detail, sizeof detail);
        if (rc != QS_OK) {
            set_error(r, rc, detail);
            return;
        }
    }

    const qs_tables *tables = cli_tables_get(t);
    if (!tables) {
        snprintf(detail, sizeof detail, "cannot open %s tables: %s",
                 qs_metric_name(t->metric), qtab_strerror(t->rc));
        set_error(r, QS_ERR_TABLES, detail);
        return;
    }

    int max_out = o->solutions < 1                   ? 1
                  : o->solutions > CLI_MAX_SOLUTIONS ? CLI_MAX_SOLUTIONS
                                                     : o->solutions;
    if (t->optimal && t->optimal_all)
        max_out = CLI_MAX_SOLUTIONS; /* kept for --json; text streams all */
    int n = 0, robot = t->metric == QS_METRIC_ROBOT;
    double start = cli_now_ms();
    if (t->optimal && robot)
        rc = cli_solve_robot_optimal(t, tables, &cube, o, r, &n, detail,
                                     sizeof detail);
    else if (t->optimal)
        rc = solve_optimal(t, tables, &cube, o, max_out, r, &n);
    else if (robot)
        rc = solve_robot(t, tables, &cube, o, max_out, r, &n, detail,
                         sizeof detail);
    else
        rc = qs_solve(tables, &cube, o, r->sol, max_out, &n, &r->stats);
    r->ms = cli_now_ms() - start;
    if (rc != QS_OK) {
        set_error(r, rc, rc == CLI_ERR_INTERNAL ? detail : NULL);
        return;
    }
    if (n < 1 || n > max_out) {
        set_error(r, CLI_ERR_INTERNAL, "solver returned no solution");
        return;
    }
    for (int i = 0; i < n; i++) {
        const qs_solution *s = &r->sol[i];
        qs_cube c = cube;
        int ok = s->n >= 0 && s->n <= QS_MAX_MOVES;
        for (int k = 0; ok && k < s->n; k++)
            ok = s->moves[k] < QS_MOVE_COUNT;
        if (ok) {
            qs_cube_apply_moves(&c, s->moves, s->n);
            ok = qs_cube_is_solved(&c);
        }
        if (ok && robot)
            /* The plan replayed step by step on the robot's own physics. */
            ok = robot_check(&r->plan[i], &cube, &t->profile, detail,
                             sizeof detail) == ROBOT_OK &&
                 r->plan[i].robot_moves == s->length;
        else if (ok)
            ok = qs_moves_length(s->moves, s->n, t->metric) == s->length;
        if (!ok) {
            set_error(r, CLI_ERR_INTERNAL, "solution failed verification");
            return;
        }
    }
    r->rc = QS_OK;
    r->n = n;
}

void cli_print_json(cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    if (text) {
        puts(text);
        cJSON_free(text);
    } else {
        puts("{\"ok\":false,\"error\":{\"code\":\"NOMEM\",\"message\":"
             "\"out of memory\"}}");
    }
    cJSON_Delete(o);
}

char *cli_read_line(FILE *f, char **line, size_t *cap)
{
    ssize_t n = getline(line, cap, f);
    if (n < 0)
        return NULL;
    /* A NUL byte would end the C string early and hide what follows; the
     * ASCII substitute character keeps the line's length and position so
     * the parser reports the bad byte where it is. */
    for (ssize_t i = 0; i < n; i++)
        if ((*line)[i] == '\0')
            (*line)[i] = 0x1a;
    return cli_strip(*line);
}

void cli_json_moves(cJSON *o, const qs_move *moves, int n)
{
    char text[QS_MAX_MOVES * 8];
    if (qs_moves_format(moves, n, text, sizeof text) < 0)
        text[0] = '\0';
    cJSON_AddStringToObject(o, "moves", text);
    cJSON *len = cJSON_AddObjectToObject(o, "length");
    for (int m = 0; m < QS_PLAIN_METRICS; m++)
        cJSON_AddNumberToObject(len, qs_metric_name((qs_metric)m),
                                qs_moves_length(moves, n, (qs_metric)m));
}

void cli_json_plan(cJSON *o, const robot_schedule *plan)
{
    char text[ROBOT_MAX_STEPS * 20 + 1];
    if (robot_steps_format(plan->steps, plan->n, text, sizeof text) < 0)
        text[0] = '\0';
    cJSON_AddStringToObject(o, "robot", text);
    cJSON_AddNumberToObject(o, "robot_moves", plan->robot_moves);
    cJSON_AddNumberToObject(o, "turns", plan->turns);
    cJSON_AddNumberToObject(o, "tilts", plan->tilts);
    cJSON_AddNumberToObject(o, "full_regrips", plan->full_regrips);
    cJSON_AddNumberToObject(o, "safe", plan->safe);
    cJSON_AddNumberToObject(o, "cost_ms",
                            (double)(long long)(plan->cost_ms * 1000.0 + 0.5) /
                                1000.0);
}
