/*
 * quadsolve.h - public interface of the quadsolve solver library.
 *
 * The library models the cube at cubie level, parses and prints facelet
 * strings and move sequences, and finds short solutions with Kociemba's
 * two-phase algorithm in four metrics chosen at run time: HTM, QTM and the
 * axial metrics AXHT and AXQT, where turns of two opposite faces done at the
 * same time count as one move.
 *
 * Conventions: every public name starts with qs_ / QS_; functions return 0
 * (QS_OK) or a negative qs_error; buffers are owned by the caller; the
 * solver keeps no mutable global state, so all entry points are re-entrant
 * and take the table set and a cancellation flag explicitly.
 */
#ifndef QUADSOLVE_H
#define QUADSOLVE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define QS_VERSION "0.1.0"
/* The version of the library linked at run time (QS_VERSION is the
 * header's): a program can check that the two agree. */
const char *qs_version(void);

/* Errors. The order of the cube errors is the order in which
 * qs_cube_from_facelets checks a string, so the first defect found wins. */
typedef enum {
    QS_OK = 0,
    QS_ERR_LENGTH = -1,        /* facelet string is not 54 characters */
    QS_ERR_CHARACTER = -2,     /* a character other than U R F D L B */
    QS_ERR_CENTER = -3,        /* centres are not U R F D L B in order */
    QS_ERR_COLOR_COUNT = -4,   /* some colour does not appear 9 times */
    QS_ERR_CORNER = -5,        /* a corner with colours no cubie has */
    QS_ERR_EDGE = -6,          /* an edge with colours no cubie has */
    QS_ERR_DUP_CORNER = -7,    /* the same corner cubie appears twice */
    QS_ERR_DUP_EDGE = -8,      /* the same edge cubie appears twice */
    QS_ERR_TWIST = -9,         /* corner twists do not sum to 0 mod 3 */
    QS_ERR_FLIP = -10,         /* edge flips do not sum to 0 mod 2 */
    QS_ERR_PARITY = -11,       /* corner and edge permutation parities differ */
    QS_ERR_MOVE = -12,         /* a move sequence that does not parse */
    QS_ERR_ARGUMENT = -13,     /* an option or argument out of range */
    QS_ERR_NOMEM = -14,        /* memory allocation failed */
    QS_ERR_CANCELLED = -15,    /* the caller's cancel flag was raised */
    QS_ERR_TIMEOUT = -16,      /* no solution within the time limit */
    QS_ERR_NOT_FOUND = -17,    /* no solution within the length limit */
    QS_ERR_TABLES = -18,       /* table set missing or for another metric */
    QS_ERR_THREAD = -19,       /* a worker thread could not be started */
    QS_ERR_BUFFER = -20,       /* the caller's buffer is too small */
} qs_error;

/* A human-readable message for an error code. */
const char *qs_strerror(int err);
/* A short stable identifier for an error code, e.g. "TWIST" (used in the
 * CLI's "error: CODE: message" lines and the daemon's error replies). */
const char *qs_errcode(int err);
/* Input quoted in a message: the first len bytes of text with printable
 * ASCII as it is and every other byte (control characters, bytes of
 * UTF-8 sequences) as \xNN, so a message never carries a terminal escape
 * or an invalid UTF-8 sequence from its input. Writes at most out_len - 1
 * bytes, never a partial escape, and "..." when text did not fit; returns
 * out. */
char *qs_text_quote(const char *text, size_t len, char *out, size_t out_len);
/* The offset of the first byte of s[0..len) that is not part of valid
 * UTF-8 (overlong forms, surrogates and code points past U+10FFFF
 * included), or len when all of it is. */
size_t qs_utf8_check(const char *s, size_t len);
/* The offset of the first "\u0000" escape inside a string (or key) of
 * the JSON text json[0..len), or len when there is none. A parser would
 * hand such a string to C cut at the NUL, so that "htm\u0000x" read as
 * "htm"; the request and profile parsers refuse it. */
size_t qs_json_escaped_nul(const char *json, size_t len);

/* ---------------------------------------------------------------- metrics */

typedef enum {
    QS_METRIC_HTM = 0,  /* any face turn counts 1 */
    QS_METRIC_QTM = 1,  /* quarter turns count 1, half turns 2 */
    QS_METRIC_AXHT = 2, /* face turn or parallel pair of opposite faces: 1 */
    QS_METRIC_AXQT = 3, /* as AXHT, but a half turn in the step counts 2 */
    /* Robot moves of a quad-arm robot: AXHT turns of the four gripped
     * faces, tilts and full regrips. How many a sequence of face turns
     * needs depends on how it is executed, so qs_moves_length has no value
     * for it; its tables serve robot_solve (library qs_robot, robot.h) and
     * qs_solve rejects them with QS_ERR_TABLES. */
    QS_METRIC_ROBOT = 4,
    QS_METRIC_COUNT = 5
} qs_metric;

/* The metrics whose length is a function of the moves alone. */
#define QS_PLAIN_METRICS 4

/* "htm", "qtm", "axht", "axqt", "robot". */
const char *qs_metric_name(qs_metric m);
/* Parses a metric name (case-insensitive); returns the metric or -1. */
int qs_metric_parse(const char *name);

/* ------------------------------------------------------------ cube model */

/* Corners URF UFL ULB UBR DFR DLF DBL DRB; edges UR UF UL UB DR DF DL DB
 * FR FL BL BR (Kociemba's numbering). co in 0..2, eo in 0..1. */
typedef struct {
    uint8_t cp[8], co[8];
    uint8_t ep[12], eo[12];
} qs_cube;

/* The solved cube. */
void qs_cube_solved(qs_cube *c);
/* c = a then b (b applied after a). Result may alias neither input. */
void qs_cube_multiply(const qs_cube *a, const qs_cube *b, qs_cube *c);
/* inv = c^-1. */
void qs_cube_inverse(const qs_cube *c, qs_cube *inv);
int qs_cube_is_solved(const qs_cube *c);
int qs_cube_equal(const qs_cube *a, const qs_cube *b);
/* Checks that c is a permutation/orientation of a solvable cube; returns
 * QS_OK or the QS_ERR_DUP_*, TWIST, FLIP, PARITY error found first. */
int qs_cube_check(const qs_cube *c);

/* Parses a 54-character facelet string in URFDLB order (U1..U9, R1..R9,
 * F1..F9, D1..D9, L1..L9, B1..B9). On error, *c is unchanged and, when
 * detail is not NULL, a specific message naming the position, cubie or
 * count at fault is written to detail (at most detail_len bytes). */
int qs_cube_from_facelets(const char *facelets, qs_cube *c, char *detail,
                          size_t detail_len);
/* Writes the 54 facelets and a terminating NUL (out needs 55 bytes). */
void qs_cube_to_facelets(const qs_cube *c, char out[55]);

/* A uniformly random solvable cube drawn from *rng_state (a xorshift state
 * owned by the caller; any nonzero seed). */
void qs_cube_random(qs_cube *c, uint64_t *rng_state);

/* ----------------------------------------------------------------- moves */

/* A move is a number 0..44:
 *   0..17  single face turns, face*3 + (quarter turns - 1), faces in URFDLB
 *          order: U U2 U' R R2 R' F F2 F' D D2 D' L L2 L' B B2 B'.
 *   18..44 parallel pairs, 18 + axis*9 + p*3 + q where axis 0 = (U D),
 *          1 = (R L), 2 = (F B), p the turn of U/R/F and q of D/L/B
 *          (0 = quarter, 1 = half, 2 = inverse quarter).
 * Pairs are printed in parentheses: "(U D')". */
typedef uint8_t qs_move;

#define QS_MOVE_COUNT 45

/* The faces (URFDLB index) a move turns and the quarter turns of each
 * (1..3, 3 being the inverse quarter): returns 1 for a single face, 2 for
 * a pair, its U, R or F face first. */
int qs_move_decompose(qs_move m, int face[2], int quarters[2]);
/* The inverse: the move turning n faces (one, or two opposite faces in
 * either order) by quarters (1..3) each, or QS_ERR_ARGUMENT when no move
 * does that. */
int qs_move_compose(int n, const int face[2], const int quarters[2]);
#define QS_MAX_MOVES 64 /* longest sequence any API produces or accepts */
#define QS_MAX_THREADS 256 /* most threads one search may use */

/* Applies one move / a sequence to *c. */
void qs_cube_apply_move(qs_cube *c, qs_move m);
void qs_cube_apply_moves(qs_cube *c, const qs_move *moves, int n);

/* Parses moves separated by spaces: "R U2 F' (U D') ...". Accepts the pair
 * faces in either order; "R1", "R3" and lower-case are not accepted.
 * Returns the number of moves (>= 0) or QS_ERR_MOVE (with detail naming the
 * offending token) or QS_ERR_BUFFER when more than max moves. */
int qs_moves_parse(const char *text, qs_move *moves, int max, char *detail,
                   size_t detail_len);
/* Prints moves separated by single spaces; returns the length written
 * (excluding NUL) or QS_ERR_BUFFER. An empty sequence prints "". */
int qs_moves_format(const qs_move *moves, int n, char *out, size_t out_len);
/* The sequences of moves above and of robot steps (robot.h) are written
 * alike, and read and printed by one mechanism: tokens separated by
 * blanks (spaces, tabs), a token that opens a parenthesis running to the
 * first ")" and on to the next blank, so "(R L')" is one token.
 * qs_tokens_parse hands each token to read with the item it fills (items
 * is an array of max items of item_size bytes; past max, a scratch item
 * that is dropped, so a bad token after too many is still reported as
 * such); read returns NULL for a good token, else why it is not ("": no
 * reason given). Returns the number of tokens, QS_ERR_MOVE with detail
 * 'bad NOUN "TOKEN" at column C[: why]', QS_ERR_BUFFER when there are
 * more than max, or QS_ERR_ARGUMENT. */
typedef const char *(*qs_token_reader)(const char *token, size_t len,
                                       void *item);
int qs_tokens_parse(const char *text, void *items, int max, size_t item_size,
                    qs_token_reader read, const char *noun, char *detail,
                    size_t detail_len);
/* Prints n items separated by single spaces, each spelled by spell into a
 * buffer of QS_TOKEN_MAX bytes (returns its length, or -1 for an item with
 * no spelling). Returns the length written (excluding NUL), QS_ERR_BUFFER,
 * QS_ERR_MOVE for an item with no spelling, or QS_ERR_ARGUMENT; on an
 * error out is "". */
#define QS_TOKEN_MAX 64
typedef int (*qs_token_writer)(const void *item, char *buf);
int qs_tokens_format(const void *items, int n, size_t item_size,
                     qs_token_writer spell, char *out, size_t out_len);
/* The length of a move sequence in metric m (QS_ERR_ARGUMENT for
 * QS_METRIC_ROBOT: see robot_plan). */
int qs_moves_length(const qs_move *moves, int n, qs_metric m);
/* Inverse sequence: reversed, each move inverted. */
void qs_moves_invert(const qs_move *moves, int n, qs_move *out);

/* ---------------------------------------------------------------- tables */

/* All precomputed data the search needs for one metric. Move and symmetry
 * tables are built by qs_tables_create (tens of milliseconds); the large
 * pruning tables ("blobs") are generated by qs_tables_generate_blob and are
 * normally persisted by the tables library (tables/qtab.h). */
typedef struct qs_tables qs_tables;

/* Progress callback: fraction in [0,1]. Called from worker threads, never
 * concurrently for the same generation. */
typedef void (*qs_progress_fn)(void *ctx, double fraction);

#define QS_BLOB_MAX 9
#define QS_BLOB_ROBOT_MEDIUM 8

typedef struct {
    const char *name;      /* file stem, e.g. "phase1" */
    uint32_t kind;         /* stable numeric kind for file headers */
    uint64_t entries;      /* number of table entries */
    uint64_t bytes;        /* exact size of the blob in bytes */
    int optional;          /* 0: required; else a table set may be built
                              without it (NULL), and which sizes want it:
                              bit 1 the optimal solver's large table and
                              the robot move table, bit 2 the optimal
                              solver's H48 table, bit 4 its compact
                              phase-1 table, bit 8 its extra-large
                              table, bit 16 its exact H48 table with
                              edge orientation (h48h7; in QTM the large
                              table) or (QS_BLOB_ROBOT_MEDIUM, in the robot
                              set) the robot set's medium size, which
                              wants the corner-path table but not the
                              move table */
    int omit;              /* a required blob that some sizes leave out:
                              their bits (the sizes with bit 4, compact
                              and h48h7, have no two-phase tables) */
    int feeds;             /* bit j: generating blob j reads this one when
                              it was made in the same run (see
                              qs_blob_generate's `made`) */
} qs_blob_info;

/* Number of pruning blobs of metric m, optional ones included
 * (<= QS_BLOB_MAX); optional blobs come after the required ones. */
int qs_blob_count(qs_metric m);
/* Describes blob i of metric m. */
int qs_blob_describe(qs_metric m, int i, qs_blob_info *info);
/* Fills buf (info.bytes long, caller-owned) with blob i of metric m, using
 * up to `threads` threads; progress may be NULL. cancel may be NULL.
 * made (may be NULL) holds qs_blob_count(m) pointers: blobs of metric m
 * the caller generated itself in this run, NULL where none. A generator
 * that needs what one of them holds reads it there instead of computing
 * it again (the robot move table, the robot phase-1 distances: a third of
 * its time). Pass only blobs known intact, never ones read from files
 * whose checksums were not verified. */
int qs_blob_generate(qs_metric m, int i, void *buf, int threads,
                     const void *const *made, qs_progress_fn progress,
                     void *progress_ctx, const atomic_int *cancel);

/* Builds a table set for metric m over the given blobs (qs_blob_count(m)
 * pointers; blobs[i] of the size qs_blob_describe gives, NULL allowed for
 * optional blobs). The blobs are not copied and must outlive the table
 * set. */
int qs_tables_create(qs_metric m, const void *const *blobs, qs_tables **out);
void qs_tables_free(qs_tables *t);
qs_metric qs_tables_metric(const qs_tables *t);
/* Nonzero when the set holds the optimal solver's large table (the
 * optional blob), which makes qs_solve_optimal much faster. */
int qs_tables_optimal_large(const qs_tables *t);
/* Nonzero when the set holds the optimal solver's extra-large table (the
 * HTM set's optional blob optimal-xl), which qs_solve_optimal then prunes
 * with instead of the large one. */
int qs_tables_optimal_xl(const qs_tables *t);
/* Nonzero when the set holds the optimal solver's H48 table (the HTM
 * set's optional blob h48c1, or h48h7), which qs_solve_optimal then
 * prunes with. */
int qs_tables_optimal_h48(const qs_tables *t);
/* Nonzero when that table is h48h7, the one with edge orientation. */
int qs_tables_optimal_h48h7(const qs_tables *t);
/* Nonzero when the set is one of the HTM set's optimal-only sets (an H48
 * table, h48c1 in the compact set or h48h7, and the 2-bit phase-1 table,
 * without the two-phase tables): it serves qs_solve_optimal only, and
 * qs_solve returns QS_ERR_TABLES. */
int qs_tables_optimal_compact(const qs_tables *t);
/* Nonzero when a robot set holds its large move table (the optional blob
 * robot-phase1-moves), which robot_solve then prunes with. */
int qs_tables_robot_large(const qs_tables *t);
/* Nonzero when a robot set holds its corner-path table (the optional blob
 * robot-corner-paths: the large and medium sizes), which robot_solve then
 * prunes with. */
int qs_tables_robot_paths(const qs_tables *t);

/* ---------------------------------------------------------------- search */

/* Called (from a search thread, serialised) each time a shorter solution
 * is found; used for progress reports. */
typedef void (*qs_improve_fn)(void *ctx, int length);

/* Threads kept between searches. A search that starts its threads itself
 * may wait milliseconds for one to run on a loaded machine, which at a
 * 10 ms limit costs a large part of the search; a team's threads are
 * already running (they poll for 2 ms after each search, then sleep). One
 * search at a time uses a team; another that finds it busy starts its own
 * threads. */
typedef struct qs_team qs_team;

/* A team for searches of up to `threads` threads (the caller's counts as
 * one): QS_OK and *out, or QS_ERR_ARGUMENT, QS_ERR_NOMEM or QS_ERR_THREAD
 * with *out NULL (out not NULL), so that a caller may go on without one. */
int qs_team_create(int threads, qs_team **out);
/* Stops and frees the team (NULL: nothing); no search may be using it. */
void qs_team_free(qs_team *team);
/* The threads a search can have from the team (0 for NULL). */
int qs_team_threads(const qs_team *team);

typedef struct {
    int threads;            /* worker threads, >= 1 */
    qs_team *team;          /* may be NULL: threads started per search */
    int time_ms;            /* stop after this long; 0 = no time limit */
    uint64_t max_nodes;     /* stop, like time_ms, after this many search
                               nodes over all threads; 0 = no limit */
    int max_len;            /* stop as soon as a solution of at most this
                               length is found; -1 = none */
    int solutions;          /* how many best solutions to return, >= 1 */
    const atomic_int *cancel; /* caller-owned; nonzero stops the search */
    qs_improve_fn on_improve;  /* may be NULL */
    void *improve_ctx;
} qs_options;

/* Defaults: 1 thread, 10 ms, no max_len, 1 solution. */
void qs_options_default(qs_options *o);

typedef struct {
    qs_move moves[QS_MAX_MOVES]; /* cube-frame moves, pairs only in axial */
    int n;                       /* number of moves */
    int length;                  /* length in the table set's metric */
} qs_solution;

typedef struct {
    uint64_t phase1_nodes;
    uint64_t phase2_nodes;
    uint64_t phase2_searches; /* phase-1 ends that reached a phase-2 search */
    int phase1_depth;         /* deepest phase-1 depth completed */
    double elapsed_ms;
    double first_ms;          /* time to the first solution */
} qs_stats;

/* Solves *c with the tables' metric. Writes up to max_out best solutions,
 * shortest first, into out and their number into *n_out. Stops at the time
 * limit, as soon as a solution of at most max_len is found, or when *cancel
 * becomes nonzero. Without max_len the time limit is soft: a search that
 * has no solution yet at the deadline goes on until its first one, so a
 * solvable cube is never left unsolved (only *cancel stops it). With
 * max_len, the deadline is hard and QS_ERR_TIMEOUT says no solution of at
 * most max_len was found in time. Returns QS_OK when at least one solution
 * was found, QS_ERR_CANCELLED / QS_ERR_TIMEOUT / QS_ERR_NOT_FOUND when none
 * was, or an input error. A solved cube returns one empty solution. stats
 * may be NULL. */
int qs_solve(const qs_tables *t, const qs_cube *c, const qs_options *o,
             qs_solution *out, int max_out, int *n_out, qs_stats *stats);

/* -------------------------------------------------------- optimal search */

/* Called (serialised, from a search thread) when the search of one total
 * length ends: found is 0 when no solution of that length exists (the
 * optimum is longer), else the number of solutions found at it. */
typedef void (*qs_depth_fn)(void *ctx, int depth, int found, uint64_t nodes,
                            double elapsed_ms);
/* Called (serialised) for every optimal solution as it is found. */
typedef void (*qs_solution_fn)(void *ctx, const qs_solution *s);

typedef struct {
    int threads;              /* worker threads, >= 1 */
    int all;                  /* nonzero: every optimal solution (canonical
                                 sequences: commuting opposite faces in one
                                 order only), else stop at the first */
    int max_len;              /* give up beyond this length with
                                 QS_ERR_NOT_FOUND; -1: no limit */
    const atomic_int *cancel; /* caller-owned; nonzero stops the search */
    qs_depth_fn on_depth;     /* may be NULL */
    void *depth_ctx;
    qs_solution_fn on_solution; /* may be NULL */
    void *solution_ctx;
    int forward_only;         /* nonzero: bound the position alone, not its
                                 inverse as well (the large and extra-large
                                 tables' HTM search bounds both); the same
                                 lengths, more nodes: for comparisons */
} qs_optimal_options;

/* Defaults: 1 thread, first solution only, no length limit. */
void qs_optimal_options_default(qs_optimal_options *o);

/* Finds a shortest solution of *c in the tables' metric (HTM or QTM; other
 * table sets give QS_ERR_TABLES) by iterative-deepening A*, one solve split
 * across o->threads threads. Writes up to max_out optimal solutions into
 * out (with o->all, the first max_out found; on_solution sees every one)
 * and their number into *n_out. Returns QS_OK, QS_ERR_CANCELLED,
 * QS_ERR_NOT_FOUND (beyond max_len) or an input error. stats may be NULL
 * (phase1_nodes counts the nodes, phase1_depth the longest length proven
 * to have no solution). Random cubes take from seconds to minutes. */
int qs_solve_optimal(const qs_tables *t, const qs_cube *c,
                     const qs_optimal_options *o, qs_solution *out,
                     int max_out, int *n_out, qs_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
