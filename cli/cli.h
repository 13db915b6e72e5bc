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
int cmd_compare(int argc, char **argv);

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
/* Parses an objective (moves or time) or exits with a usage error. */
robot_objective cli_parse_objective(const char *opt, const char *s);
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
    int robot_medium;   /* --table-size medium: the robot set's medium size
                           (distance and corner-path tables) */
    int optimal_quiet;  /* no per-length progress lines (bench) */
    int optimal_all;    /* --all: every optimal solution */
    int optimal_stream; /* print each optimal solution as found, one line
                           each, commuting opposite-face pairs in
                           parentheses (text output of --all) */
    qs_team *team;      /* the search threads, kept from cube to cube */
    int keep_warm_ms;   /* --keep-warm: qtab_options.keep_warm_ms */
} cli_tables;

/* --table-size S of solve and bench: an optimal size, or "medium", the
 * robot set's size between small and large (which the caller allows only
 * with --metric robot); a usage error for any other name. */
void cli_parse_table_size(const char *opt, const char *s, cli_tables *t);

/* The search threads t's solves keep from cube to cube (qs_team), made on
 * first use for `threads` threads; NULL for optimal solves or when they
 * cannot be made (each search then starts its own). Freed by
 * cli_tables_close. */
qs_team *cli_tables_team(cli_tables *t, int threads);

/* Sets up t for metric m with the "default" profile and the fewest-moves
 * objective (see cli_robot_option), its pages kept warm every
 * QTAB_KEEP_WARM_DEFAULT_MS. */
void cli_tables_init(cli_tables *t, qs_metric m, int threads);
/* Takes --profile NAME|PATH and --objective moves|time at argv[*i] into t
 * (a usage error exits); returns 1 when argv[*i] was one of them. */
int cli_robot_option(int argc, char **argv, int *i, cli_tables *t);
/* Takes --keep-warm MS (0: off) at argv[*i] into t; returns 1 if it did,
 * 0 if argv[*i] is another option; a usage error for a bad value. */
int cli_tables_option(int argc, char **argv, int *i, cli_tables *t);
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


/* ------------------------------------------------- compare and reports */

#define CMP_MAX_LABELS 16
#define CMP_MAX_PROFILES 8
#define CMP_MAX_TIMELINES 8

/* One solver's solution of one cube, measured (compare_data.c). */
typedef struct {
    int ok;                 /* parsed and solves the cube */
    char error[128];        /* why not, when !ok */
    qs_move moves[QS_MAX_MOVES];
    int n;
    int len[QS_PLAIN_METRICS];   /* in each plain metric */
    struct {
        int robot_moves, tilts, full_regrips;
        double cost_ms;
    } robot[CMP_MAX_PROFILES];   /* its best execution per profile */
} cmp_entry;

typedef struct {
    int cube;               /* 0-based number in the cube file */
    char facelets[55];
    cmp_entry e[CMP_MAX_LABELS];
} cmp_row;

/* Solutions of many cubes by several labelled solvers. */
typedef struct {
    int n_cubes;            /* cubes in the whole file (all shards) */
    int n_labels, n_profiles;
    char labels[CMP_MAX_LABELS][64];
    robot_profile profiles[CMP_MAX_PROFILES];
    robot_objective objective;   /* what the planner minimises */
    robot_model model;
    cmp_row *rows;          /* in cube order once complete */
    int n_rows, cap_rows;
    /* Cubes (0-based) whose arm timelines the report draws; none: the
     * median and the slowest cube of each solver. */
    int timeline[CMP_MAX_TIMELINES];
    int n_timeline;
} cmp_data;

typedef struct {
    int n;
    double mean, median, p90, max, min;
} cmp_stats;

/* 0, or -1 when the counts are out of range. */
int cmp_data_init(cmp_data *d, int n_labels, int n_profiles);
void cmp_data_free(cmp_data *d);
/* A new zeroed row, or NULL when out of memory. */
cmp_row *cmp_data_add_row(cmp_data *d, int cube, const char *facelets);
/* Checks that moves solve cube and measures them into e (lengths, robot
 * plans replayed by robot_check under each profile); 0, or -1 with
 * e->error. */
int cmp_measure(const cmp_data *d, const qs_cube *cube, const qs_move *moves,
                int n, cmp_entry *e);
/* Parses one solution line (quadsolve text or --json output, plain face
 * turns with an optional "(20f)" count, or a qphase robot-frame line) and
 * measures it; a line that does not parse or does not solve the cube
 * leaves e->ok 0 with the reason. line NULL: the file ended early. */
void cmp_evaluate_line(const cmp_data *d, const qs_cube *cube,
                       const char *line, cmp_entry *e);
/* The JSON lines of `compare --json`: a header, then one per cube. */
struct cJSON *cmp_header_json(const cmp_data *d, int shard_k, int shard_n);
struct cJSON *cmp_row_json(const cmp_data *d, const cmp_row *r);
/* Joins the `compare --json` outputs of shards into d (every cube once,
 * the same labels and profiles everywhere); 0, or -1 with why. */
int cmp_data_merge(cmp_data *d, char **files, int n_files, char *why,
                   size_t len);
/* Statistics over the solved cubes of a label: HTM length (profile < 0),
 * else robot moves or (cost) cost_ms under the profile; 0 or -1. */
int cmp_stats_of(const cmp_data *d, int label, int profile, int cost,
                 cmp_stats *st);
/* Writes the self-contained HTML report of d to path (title on top);
 * 0, or -1 with errno. */
int cmp_report_html(const cmp_data *d, const char *title, const char *path);

/* Parses "K/N" (0 <= K < N) of --shard or exits with a usage error. */
void cli_parse_shard(const char *opt, const char *s, int *k, int *n);

/* Progress on stderr when it is a terminal: a bar with the count and an
 * estimate of the time left; nothing otherwise. */
typedef struct {
    int enabled;
    long total;
    double start_ms, last_ms;
} cli_progress_bar;
void cli_progress_bar_start(cli_progress_bar *b, long total);
void cli_progress_bar_update(cli_progress_bar *b, long done);
void cli_progress_bar_end(cli_progress_bar *b);

#endif
