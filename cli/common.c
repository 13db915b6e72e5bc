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
#include "qsservice.h"

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

robot_objective cli_parse_objective(const char *opt, const char *s)
{
    if (strcmp(s, "moves") == 0)
        return ROBOT_OBJ_MOVES;
    if (strcmp(s, "time") == 0)
        return ROBOT_OBJ_TIME;
    cli_usage_error("%s: '%s' is not moves or time", opt, s);
}

qs_metric cli_parse_metric(const char *opt, const char *s)
{
    int m = qs_metric_parse(s);
    if (m < 0)
        cli_usage_error("%s: unknown metric '%s' (htm, qtm, axht, axqt or robot)",
                        opt, s);
    return (qs_metric)m;
}

qtab_optimal_size cli_parse_optimal_size(const char *opt, const char *s)
{
    int size = qtab_optimal_size_parse(s);
    if (size >= 0)
        return (qtab_optimal_size)size;
    cli_usage_error("%s: unknown table size '%s' (small, large, xl, h48, "
                    "large+h48, compact or h48h7)", opt, s);
    return QTAB_OPTIMAL_SMALL;
}

void cli_parse_table_size(const char *opt, const char *s, cli_tables *t)
{
    t->robot_medium = qtab_robot_size_parse(s) == QTAB_ROBOT_MEDIUM;
    if (t->robot_medium) {
        t->optimal_size = QTAB_OPTIMAL_SMALL;
        return;
    }
    int size = qtab_optimal_size_parse(s);
    if (size < 0)
        cli_usage_error("%s: unknown table size '%s' (small, medium, large, "
                        "xl, h48, large+h48, compact or h48h7)", opt, s);
    t->optimal_size = (qtab_optimal_size)size;
}

int cli_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > QS_MAX_THREADS ? QS_MAX_THREADS : (int)n;
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
    t->optimal_size = QTAB_OPTIMAL_DEFAULT;
    t->keep_warm_ms = QTAB_KEEP_WARM_DEFAULT_MS;
}

int cli_tables_option(int argc, char **argv, int *i, cli_tables *t)
{
    const char *v;
    if (!cli_opt(argc, argv, i, "--keep-warm", &v))
        return 0;
    t->keep_warm_ms =
        (int)cli_parse_long("--keep-warm", v, 0, QTAB_KEEP_WARM_MAX_MS);
    return 1;
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
        t->objective = cli_parse_objective("--objective", v);
        return 1;
    }
    return 0;
}

const qs_tables *cli_tables_get(cli_tables *t)
{
    if (!t->tried) {
        qtab_options o;
        qtab_options_default(&o);
        o.threads = t->threads;
        o.cancel = &cli_cancel;
        o.keep_warm_ms = t->keep_warm_ms;
        /* Only an optimal solve needs the optimal tables: others would
         * pay their gigabytes for nothing. */
        o.optimal = t->optimal ? t->optimal_size : QTAB_OPTIMAL_SMALL;
        /* The robot optimum reads the distance tables only; otherwise
         * the sizes chosen to save memory (small, h48, compact) take the
         * robot set's small size, the others its large one. */
        int saving = qtab_optimal_size_saving(t->optimal_size);
        o.robot = t->robot_medium           ? QTAB_ROBOT_MEDIUM
                  : saving || t->optimal ? QTAB_ROBOT_SMALL
                                            : QTAB_ROBOT_LARGE;
        double start = cli_now_ms();
        t->rc = qtab_open(t->metric, &o, &t->set);
        t->load_ms = cli_now_ms() - start;
        t->tried = 1;
    }
    return t->rc == QTAB_OK ? qtab_set_tables(t->set) : NULL;
}

qs_team *cli_tables_team(cli_tables *t, int threads)
{
    /* An optimal search runs seconds and starts its own threads. */
    if (!t->team && threads > 1 && !t->optimal)
        qs_team_create(threads, &t->team);
    return t->team;
}

void cli_tables_close(cli_tables *t)
{
    qs_team_free(t->team);
    t->team = NULL;
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

void cli_print_pairs(const qs_move *moves, int n)
{
    char text[QS_MAX_MOVES * 12];
    cli_format_pairs(moves, n, text, sizeof text);
    puts(text);
    fflush(stdout);
}

void cli_progress(void *ctx, const qsv_progress *p)
{
    const cli_tables *t = ctx;
    if (p->solution) {
        if (t->optimal_stream)
            cli_print_pairs(p->solution->moves, p->solution->n);
    } else if (p->depth >= 0 && !t->optimal_quiet) {
        cli_optimal_progress(NULL, p->depth, p->found, p->nodes,
                             p->elapsed_ms);
    }
}

int cli_make_request(const cli_tables *t, const char *input,
                     int is_scramble, const qs_options *o, int local,
                     qsv_request *req, qsv_failure *f)
{
    qsv_request_init(req);
    req->is_scramble = is_scramble;
    size_t len = strlen(input);
    if (len > QSV_MAX_SCRAMBLE) {
        f->code = is_scramble ? QSV_ERR_INVALID_MOVES : QSV_ERR_INVALID_CUBE;
        snprintf(f->reason, sizeof f->reason, is_scramble ? "MOVE" : "LENGTH");
        snprintf(f->message, sizeof f->message, "input is %zu bytes long",
                 len);
        return f->code;
    }
    memcpy(req->cube, input, len + 1);
    req->metric = t->metric;
    req->time_ms = o->time_ms;
    req->max_len = o->max_len;
    req->solutions = o->solutions > QSV_MAX_SOLUTIONS ? QSV_MAX_SOLUTIONS
                                                      : o->solutions;
    req->profile = t->profile;
    req->objective = t->objective;
    if (t->optimal) {
        /* No time limit, and the first optimal solution (the protocol
         * refuses time_ms and several solutions without all). */
        req->optimal = 1;
        req->time_ms = 0;
        req->solutions = 1;
        if (t->optimal_all) {
            req->all = 1;
            req->solutions = QSV_MAX_SOLUTIONS;
        }
    }
    if (local) {
        req->local.unlimited_time = 1;
        req->local.max_nodes = o->max_nodes;
        /* The CLI prints plans of robot solutions only. */
        req->local.no_plan = t->metric != QS_METRIC_ROBOT;
    }
    return QSV_OK;
}

void cli_take_failure(cli_result *r, int rc, const qsv_failure *f)
{
    r->n = 0;
    r->rc = CLI_ERR_INTERNAL;
    snprintf(r->code, sizeof r->code, "%s", qsv_errcode(rc));
    /* A reason that names a check of the solver (TWIST, MOVE, TIMEOUT)
     * is the code the CLI prints, as its error table lists them. */
    for (int e = -1; f->reason[0] && e >= QS_ERR_BUFFER; e--)
        if (strcmp(qs_errcode(e), f->reason) == 0) {
            r->rc = e;
            snprintf(r->code, sizeof r->code, "%s", f->reason);
        }
    if (rc == QSV_ERR_CANCELLED)
        r->rc = QS_ERR_CANCELLED;
    else if (rc == QSV_ERR_NOT_FOUND && r->rc == CLI_ERR_INTERNAL)
        r->rc = QS_ERR_NOT_FOUND;
    snprintf(r->message, sizeof r->message, "%s",
             f->message[0] ? f->message : qsv_strerror(rc));
    /* A daemon's message goes to a terminal too: a control byte in it (a
     * terminal escape) is shown quoted, like any outside text. (The
     * client has checked that it is UTF-8.) */
    for (const char *c = r->message; *c; c++)
        if ((unsigned char)*c < 0x20 || *c == 0x7f) {
            char quoted[sizeof r->message];
            qs_text_quote(r->message, strlen(r->message), quoted,
                          sizeof quoted);
            memcpy(r->message, quoted, sizeof quoted);
            break;
        }
}

void cli_take_result(cli_result *r, const qsv_result *res)
{
    int n = res->n < CLI_MAX_SOLUTIONS ? res->n : CLI_MAX_SOLUTIONS;
    for (int i = 0; i < n; i++) {
        memcpy(r->sol[i].moves, res->sol[i].moves, sizeof r->sol[i].moves);
        r->sol[i].n = res->sol[i].n;
        r->sol[i].length = res->sol[i].length;
        r->plan[i] = res->sol[i].plan;
    }
    r->n = n;
    r->stats = res->stats;
    r->ms = res->solve_ms;
    r->rc = QS_OK;
    r->code[0] = '\0';
    r->message[0] = '\0';
}

void cli_solve_input(cli_tables *t, const char *input, int is_scramble,
                     const qs_options *o, cli_result *r)
{
    static qsv_result res; /* large; the CLI is single-threaded */
    qsv_request req;
    qsv_failure f = {0, "", ""};
    qs_cube cube;
    memset(&r->stats, 0, sizeof r->stats);
    r->ms = 0;
    int rc = cli_make_request(t, input, is_scramble, o, 1, &req, &f);
    /* The cube first: tables are opened (or generated) only for a cube
     * that can be solved. */
    if (rc == QSV_OK)
        rc = qsv_request_cube(&req, &cube, &f);
    if (rc != QSV_OK) {
        cli_take_failure(r, rc, &f);
        return;
    }
    const qs_tables *tables = cli_tables_get(t);
    if (!tables) {
        char detail[256];
        snprintf(detail, sizeof detail, "cannot open %s tables: %s",
                 qs_metric_name(t->metric), qtab_strerror(t->rc));
        set_error(r, QS_ERR_TABLES, detail);
        return;
    }
    rc = qsv_solve(tables, &t->model, &req, o->threads,
                   cli_tables_team(t, o->threads), o->cancel,
                   t->optimal ? cli_progress : NULL, t, &res, &f);
    if (rc != QSV_OK)
        cli_take_failure(r, rc, &f);
    else
        cli_take_result(r, &res);
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

void cli_parse_shard(const char *opt, const char *s, int *k, int *n)
{
    char *end;
    errno = 0;
    long a = strtol(s, &end, 10);
    if (end == s || *end != '/' || errno)
        cli_usage_error("%s: '%s' is not K/N", opt, s);
    const char *rest = end + 1;
    long b = strtol(rest, &end, 10);
    if (end == rest || *end != '\0' || errno || b < 1 || b > 1000000 ||
        a < 0 || a >= b)
        cli_usage_error("%s: '%s' is not K/N with 0 <= K < N", opt, s);
    *k = (int)a;
    *n = (int)b;
}

void cli_progress_bar_start(cli_progress_bar *b, long total)
{
    b->enabled = isatty(STDERR_FILENO) && total > 0;
    b->total = total;
    b->start_ms = b->last_ms = cli_now_ms();
}

void cli_progress_bar_update(cli_progress_bar *b, long done)
{
    double now = cli_now_ms();
    /* A few redraws a second: the bar must not cost what it measures. */
    if (!b->enabled || (now - b->last_ms < 200 && done < b->total))
        return;
    b->last_ms = now;
    enum { WIDTH = 30 };
    int fill = (int)(WIDTH * done / b->total);
    double left_s = done > 0 ? (now - b->start_ms) / 1000.0 *
                                   (double)(b->total - done) / (double)done
                             : 0;
    char bar[WIDTH + 1];
    for (int i = 0; i < WIDTH; i++)
        bar[i] = i < fill ? '#' : '.';
    bar[WIDTH] = '\0';
    fprintf(stderr, "\r[%s] %ld/%ld, %.0f s left   ", bar, done, b->total,
            left_s);
    fflush(stderr);
}

void cli_progress_bar_end(cli_progress_bar *b)
{
    if (b->enabled)
        fputs("\r\033[K", stderr);
}
