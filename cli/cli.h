/*
 * cli.h - declarations shared by the quadsolve command-line tool's files:
 * the subcommands, argument helpers, and the solve-and-verify step that
 * `solve` and `bench` both use.
 */
#ifndef QS_CLI_H
#define QS_CLI_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "qtab.h"
#include "quadsolve.h"
#include "qsservice.h"
#include "robot.h"

/* Exit statuses. */
enum {
    CLI_EXIT_OK = 0,
    CLI_EXIT_FAIL = 1,        /* some input not solved, a check failed */
    CLI_EXIT_USAGE = 2,       /* bad option or value */
    CLI_EXIT_INTERRUPTED = 130,
};

/* Beyond the qs_error codes: a solution that does not solve its cube. */
#define CLI_ERR_INTERNAL (-1000)

/* Most solutions a single request may ask for. */
#define CLI_MAX_SOLUTIONS QSV_MAX_SOLUTIONS

/* Subcommands; argv[0] is the subcommand name. Each returns an exit
 * status. */
int cmd_solve(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_random(int argc, char **argv);
int cmd_tables(int argc, char **argv);
int cmd_evaluate(int argc, char **argv);
int cmd_bench_server(int argc, char **argv);

/* Prints the help text for every subcommand. */
void cli_usage(FILE *out);
/* Reports a usage error on stderr and exits with CLI_EXIT_USAGE. */
_Noreturn void cli_usage_error(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));

/* If argv[*i] is the option `name` ("--metric"), given as "--metric VALUE"
 * or "--metric=VALUE", stores VALUE in *value, advances *i past a
 * separate value, and returns 1; returns 0 if it is another argument.
 * A missing value is a usage error. */
int cli_opt(int argc, char **argv, int *i, const char *name,
            const char **value);
/* Parses a whole decimal integer in [min, max] or exits with a usage error
 * naming the option. */
long cli_parse_long(const char *opt, const char *s, long min, long max);
/* Parses a metric name or exits with a usage error. */
qs_metric cli_parse_metric(const char *opt, const char *s);
/* Formats moves as qs_moves_format does, but writes two successive turns
 * of opposite faces (which commute, so the optimal search lists them in
 * one order only) as one parenthesised pair, "(U D')"; the result parses
 * back to the same cube. */
void cli_format_pairs(const qs_move *moves, int n, char *out, size_t len);
/* Parses an optimal-table size (small or large) or exits with a usage
 * error. */
qtab_optimal_size cli_parse_optimal_size(const char *opt, const char *s);

/* Number of online CPUs (at least 1). */
int cli_online_cpus(void);
/* Milliseconds on a monotonic clock. */
double cli_now_ms(void);
/* Removes a trailing "\r\n" or "\n" and surrounding spaces and tabs, in
 * place; returns s advanced past the leading blanks. */
char *cli_strip(char *s);
/* qs_errcode, plus "INTERNAL" for CLI_ERR_INTERNAL. */
const char *cli_errcode(int err);

/* Reads one line with getline into *line (capacity *cap), NUL bytes
 * replaced by 0x1a so they are reported, not silently cut off; returns the
 * stripped line or NULL at the end of input. */
char *cli_read_line(FILE *f, char **line, size_t *cap);

/* Prints a JSON object on one line and frees it; when out of memory, prints
 * an error object instead, so output lines stay in step with input lines. */
struct cJSON;
void cli_print_json(struct cJSON *o);
/* Raised by SIGINT/SIGTERM once cli_install_signals has run; passed to the
 * solver as its cancel flag. */
extern atomic_int cli_cancel;
void cli_install_signals(void);

/* A lazily opened table set for one metric, shared by all cubes of a
 * command so that tables are only loaded (or generated) when the first
 * valid cube needs them. */
typedef struct {
    qs_metric metric;
    int threads;
    int tried;          /* qtab_open has been called */
    int rc;             /* its result */
    qtab_set *set;
    double load_ms;     /* wall time of qtab_open */
    /* the robot metric's model, timing profile and objective */
    robot_model model;
    robot_profile profile;
    robot_objective objective;
    /* solve --optimal: qs_solve_optimal (HTM, QTM) instead of qs_solve,
     * with one progress line per searched length on stderr */
    int optimal;
    /* --table-size: QTAB_OPTIMAL_LARGE opens the optional blob of the set
     * the solve uses (the optimal solver's large table for --optimal in
     * HTM/QTM, the robot search's move table for --metric robot) */
    qtab_optimal_size optimal_size;
    int optimal_quiet;  /* no per-length progress lines (bench) */
    int optimal_all;    /* --all: every optimal solution */
    int optimal_stream; /* print each optimal solution as found, one line
                           each, commuting opposite-face pairs in
                           parentheses (text output of --all) */
} cli_tables;

/* Sets up t for metric m with the "default" profile and the fewest-moves
 * objective (see cli_robot_option). */
void cli_tables_init(cli_tables *t, qs_metric m, int threads);
/* Takes --profile NAME|PATH and --objective moves|time at argv[*i] into t
 * (a usage error exits); returns 1 when argv[*i] was one of them. */
int cli_robot_option(int argc, char **argv, int *i, cli_tables *t);
/* Opens the tables on first use; returns the table set or NULL (then t->rc
 * says why). */
const qs_tables *cli_tables_get(cli_tables *t);
void cli_tables_close(cli_tables *t);

/* The result of solving one input. */
typedef struct {
    int rc;                      /* QS_OK, a qs_error or CLI_ERR_INTERNAL */
    char code[32];               /* when not empty, the code to print
                                    instead of rc's (daemon errors) */
    char message[256];           /* when rc != QS_OK */
    qs_solution sol[CLI_MAX_SOLUTIONS];
    /* robot metric: each solution's execution (its length is robot_moves) */
    robot_schedule plan[CLI_MAX_SOLUTIONS];
    int n;                       /* verified solutions, best first */
    qs_stats stats;
    double ms;                   /* wall time of the search */
} cli_result;

/* Parses a facelet string (or, when is_scramble, a move sequence applied to
 * the solved cube) and solves it through qsv_solve, the pipeline the
 * daemon runs too (robot_solve for the robot metric, with t's profile and
 * objective; o's limits apply, max_len in robot moves), which checks
 * every solution against the cube and robot plans with robot_check. A
 * failed check is an INTERNAL error, never a solution. */
void cli_solve_input(cli_tables *t, const char *input, int is_scramble,
                     const qs_options *o, cli_result *r);

/* solve --optimal's progress line for one searched length on stderr (a
 * qs_depth_fn; ctx unused), shared by local and --server solves so that
 * both print the same lines; the robot metric's optimal solve too. */
void cli_optimal_progress(void *ctx, int depth, int found, uint64_t nodes,
                          double elapsed_ms);
/* Prints moves as cli_format_pairs writes them, on one line of stdout. */
void cli_print_pairs(const qs_move *moves, int n);

/* The request for one input, as local solves (local nonzero: time_ms 0
 * is no limit, plain metrics are not planned) and --server solves make
 * it from t and o. Returns QSV_OK, or an INVALID_CUBE / INVALID_MOVES
 * failure in *f for an input too long for any request. */
int cli_make_request(const cli_tables *t, const char *input, int is_scramble,
                     const qs_options *o, int local, qsv_request *req,
                     qsv_failure *f);
/* A solve's failure (rc, *f) into r: the code printed is the solver's
 * check a reason names (TWIST, MOVE, TIMEOUT, ...), else the protocol's
 * (NOT_FOUND, INTERNAL, ...). */
void cli_take_failure(cli_result *r, int rc, const qsv_failure *f);
/* A solve's verified result into r. */
void cli_take_result(cli_result *r, const qsv_result *res);
/* A qsv_progress_fn with ctx the cli_tables: an optimal search's line per
 * length (unless optimal_quiet) and, with optimal_stream, each solution's
 * line as it is found. */
void cli_progress(void *ctx, const qsv_progress *p);

/* --server: solves one input through the daemon client c instead (same
 * fields of t and o, t->optimal included; the tables are not opened). */
struct qsv_client;
void cli_solve_remote(struct qsv_client *c, const cli_tables *t,
                      const char *input, int is_scramble, const qs_options *o,
                      cli_result *r);

#endif
