/*
 * qsservice.h - public interface of the quadsolve service library: the
 * JSON protocol of the solver daemon quadsolved (docs/protocol.md), the
 * in-process "solve, plan, verify" step the daemon runs for each request,
 * and a small ZeroMQ client for controllers, the CLI and tests.
 *
 * One request model serves both sides: the daemon parses a request frame
 * into a qsv_request, solves it with qsv_solve into a qsv_result and
 * prints that with qsv_result_to_json; a client fills a qsv_request, sends
 * it with qsv_client_solve and gets the reply parsed back into a
 * qsv_result, so a solution looks the same whether it came from a socket
 * or from this process.
 *
 * Conventions: every public name starts with qsv_ / QSV_; functions return
 * 0 (QSV_OK) or a negative qsv_error; buffers are owned by the caller; no
 * mutable global state.
 */
#ifndef QSSERVICE_H
#define QSSERVICE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "quadsolve.h"
#include "robot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ----------------------------------------------------------------- limits */

#define QSV_MAX_FRAME 65536      /* largest request frame (TOO_LARGE past) */
#define QSV_MAX_ID 128           /* longest request id, as JSON text */
#define QSV_MAX_SOLUTIONS 16     /* most solutions one request may ask for */
#define QSV_MAX_TIME_MS 600000   /* largest time_ms */
#define QSV_MAX_DEADLINE_MS 86400000 /* largest deadline_ms: a day, since an
                                        optimal solve may take an hour */
#define QSV_MAX_SCRAMBLE 1024    /* longest scramble text in bytes */
#define QSV_DEFAULT_TIME_MS 10   /* time_ms when neither limit is given */
#define QSV_DEFAULT_HARD_MS 10000 /* time_ms when only max_len is given */
#define QSV_DEFAULT_ENDPOINT "tcp://127.0.0.1:5555"

/* ----------------------------------------------------------------- errors */

/* The protocol's error codes: each has a stable name (qsv_errcode) that is
 * the "code" of an error reply. QSV_ERR_TRANSPORT and below never appear
 * on the wire; they are the client's own failures. */
typedef enum {
    QSV_OK = 0,
    QSV_ERR_INVALID_CUBE = -1,  /* facelets not a solvable cube; reason says
                                   which check failed */
    QSV_ERR_INVALID_MOVES = -2, /* a scramble that does not parse */
    QSV_ERR_BAD_REQUEST = -3,   /* malformed JSON, wrong type, missing or
                                   out-of-range field */
    QSV_ERR_UNKNOWN_OP = -4,    /* "op" is not solve/cancel/status/ping */
    QSV_ERR_TOO_LARGE = -5,     /* frame larger than QSV_MAX_FRAME */
    QSV_ERR_BUSY = -6,          /* the request queue is full */
    QSV_ERR_CANCELLED = -7,     /* cancelled by the client or shutdown */
    QSV_ERR_DEADLINE = -8,      /* deadline_ms passed before a solution */
    QSV_ERR_NOT_FOUND = -9,     /* no solution within max_len in time_ms */
    QSV_ERR_UNAVAILABLE = -10,  /* the metric's tables are not served or
                                   failed to load */
    QSV_ERR_INTERNAL = -11,     /* a solution failed verification, out of
                                   memory, or another daemon fault */
    QSV_ERR_TRANSPORT = -12,    /* client: ZeroMQ failed (endpoint, keys) */
    QSV_ERR_NO_REPLY = -13,     /* client: no reply within the timeout */
    QSV_ERR_PROTOCOL = -14,     /* client: a reply that breaks the protocol */
    QSV_ERR_ARGUMENT = -15,     /* a NULL pointer or value out of range */
} qsv_error;

/* Stable code name ("INVALID_CUBE", ...), or "UNKNOWN" out of range. */
const char *qsv_errcode(int err);
/* A human-readable message for a code. */
const char *qsv_strerror(int err);
/* The error of a code name, or 0 when the name is unknown. */
int qsv_error_parse(const char *code);

/* An error as it travels in a reply: code, for INVALID_CUBE and
 * INVALID_MOVES the qs_errcode of the failed check ("TWIST", "MOVE", ...),
 * and a specific message. */
typedef struct {
    int code;          /* qsv_error */
    char reason[32];   /* "" when there is none */
    char message[256];
} qsv_failure;

/* ---------------------------------------------------------------- requests */

typedef enum {
    QSV_OP_SOLVE = 0,
    QSV_OP_CANCEL = 1,
    QSV_OP_STATUS = 2,
    QSV_OP_PING = 3,
} qsv_op;

/* A parsed request. Strings are copied in; no field points into the
 * frame. */
typedef struct {
    char id[QSV_MAX_ID + 1];  /* the id as JSON text: "\"a7\"" or "42" */
    qsv_op op;
    /* solve */
    int is_scramble;          /* cube given as a scramble */
    char cube[QSV_MAX_SCRAMBLE + 1]; /* facelets or scramble text */
    qs_metric metric;         /* default QS_METRIC_ROBOT */
    int time_ms;              /* search time; see QSV_DEFAULT_* */
    int max_len;              /* -1: none */
    int solutions;            /* 1..QSV_MAX_SOLUTIONS */
    int deadline_ms;          /* 0: none; else whole request incl. queue */
    int progress;             /* send progress events */
    int optimal;              /* a shortest solution (qs_solve_optimal, or
                                 robot_solve_optimal in metric robot): no
                                 time_ms, max_len caps the length */
    int all;                  /* with optimal: every optimal solution, up to
                                 `solutions` of them */
    robot_objective objective;
    robot_profile profile;    /* resolved: a built-in or inline profile */
    /* cancel */
    char target[QSV_MAX_ID + 1]; /* id of the request to cancel, JSON text */
    /* In-process options, for callers of qsv_solve such as the CLI: not
     * part of the protocol, never parsed or printed (0 when parsed). */
    struct {
        int unlimited_time; /* time_ms 0 means no time limit at all */
        int no_plan;        /* plain metrics: no robot plan is made, the
                               solutions' plans are empty */
        uint64_t max_nodes; /* two-phase searches: a node limit besides
                               time_ms (qs_options.max_nodes), 0: none */
    } local;
} qsv_request;

/* A solve request with the defaults: robot metric, default profile,
 * fewest moves, 1 solution, no limits given (time_ms QSV_DEFAULT_TIME_MS). */
void qsv_request_init(qsv_request *r);

/* The search time a solve request gets: time_ms when given, else
 * QSV_DEFAULT_HARD_MS with a max_len, else QSV_DEFAULT_TIME_MS; 0 (no time
 * limit) for an optimal request, which runs until the optimum is proven,
 * it is cancelled or its deadline passes. */
int qsv_request_time_ms(const qsv_request *r);

/* Nonzero when optimal solves (r->optimal) exist for metric m: htm, qtm
 * and robot (one solution, fewest robot moves). The request parser refuses
 * every other metric through it. */
int qsv_optimal_supported(qs_metric m);

/* Parses one request frame (len bytes, not NUL-terminated) into *r.
 * Returns QSV_OK, or QSV_ERR_TOO_LARGE, _BAD_REQUEST or _UNKNOWN_OP with
 * *f saying exactly what is wrong; the id is parsed first, so r->id is set
 * (or "null") whenever the frame was a JSON object with a usable id. The
 * cube is not checked here (qsv_solve does it). Profiles named by a
 * request are built-in ones only: a daemon never opens a file a client
 * names. */
int qsv_request_parse(const char *frame, size_t len, qsv_request *r,
                      qsv_failure *f);
/* The cube of solve request *r: its facelets parsed, or its scramble
 * applied to the solved cube. Returns QSV_OK, or QSV_ERR_INVALID_CUBE /
 * QSV_ERR_INVALID_MOVES with f->reason the failed check's qs_errcode
 * ("TWIST", "CENTER", "MOVE", ...) and a message naming the position. */
int qsv_request_cube(const qsv_request *r, qs_cube *c, qsv_failure *f);
/* qs_utf8_check under the service's name: the offset of the first byte
 * of s[0..len) that is not valid UTF-8, or len. Requests must be UTF-8,
 * and so is everything the daemon and the CLI print. */
size_t qsv_utf8_check(const char *s, size_t len);
/* Prints *r as a request frame (NUL-terminated JSON) into out. Returns the
 * length, or QSV_ERR_ARGUMENT when out is too small. */
int qsv_request_to_json(const qsv_request *r, char *out, size_t out_len);

/* ------------------------------------------------------------------ results */

typedef struct {
    qs_move moves[QS_MAX_MOVES]; /* cube-frame moves */
    int n;
    int length;                  /* in the request's metric (robot: robot
                                    moves) */
    robot_schedule plan;         /* the robot-frame execution under the
                                    request's profile and objective */
} qsv_solution;

typedef struct {
    qs_metric metric;
    int n;                       /* solutions, best first (1 or more) */
    qsv_solution sol[QSV_MAX_SOLUTIONS];
    qs_stats stats;
    double solve_ms;             /* search, planning and verification */
    double queue_ms;             /* daemon: time waiting in the queue */
    char profile[64];            /* profile name */
    robot_objective objective;
    int found;                   /* optimal requests with `all`: every
                                    optimal solution the search found (more
                                    than n when there are more than
                                    `solutions`); else 0 */
} qsv_result;

/* One progress event of a solve, the payload of a "progress" reply. A
 * two-phase or robot search reports each new best solution (best >= 0,
 * depth -1); an optimal search reports each length it has finished
 * searching (depth >= 0, best -1): found is the number of solutions of
 * that length (0: the optimum is longer) and nodes the nodes searched so
 * far. elapsed_ms counts from the start of the search. */
typedef struct {
    int best;
    int depth;
    int found;
    uint64_t nodes;
    double elapsed_ms;
    /* In process only (never on the wire, NULL from qsv_reply_parse): an
     * optimal search with `all` reports each solution as it finds it,
     * with best, depth -1 and this set. */
    const qs_solution *solution;
} qsv_progress;

/* Receives progress events (from a search thread in qsv_solve, serialised;
 * from the waiting thread in qsv_client_solve). */
typedef void (*qsv_progress_fn)(void *ctx, const qsv_progress *p);

/* Solves request *r (op solve) in this process: parses the cube,
 * searches with tables t (their metric must be r->metric; an optimal
 * request runs qs_solve_optimal or, in metric robot, robot_solve_optimal),
 * plans every solution for the robot under r's profile and objective
 * (unless r->local.no_plan, for plain metrics), and verifies each by
 * applying its moves to the cube and replaying its plan with robot_check;
 * a failed check is QSV_ERR_INTERNAL, never a result. A search that ran
 * out of time is QSV_ERR_NOT_FOUND with reason "TIMEOUT". This is the one
 * solve pipeline: the daemon and the CLI's local solves both call it.
 * threads: search threads; team (may be NULL) the threads the two-phase
 * and robot searches run on (qs_team_create), which saves starting them
 * per solve. cancel (may be NULL) stops the search early:
 * the result is then QSV_ERR_CANCELLED unless a two-phase or robot search
 * had found a solution (an optimal search returns nothing unproven).
 * on_progress (may be NULL) receives the search's progress events.
 * Returns QSV_OK with *out filled, or the error with *f filled. A solved
 * cube gets one empty solution. Re-entrant. */
int qsv_solve(const qs_tables *t, const robot_model *m, const qsv_request *r,
              int threads, qs_team *team, const atomic_int *cancel,
              qsv_progress_fn on_progress, void *progress_ctx,
              qsv_result *out, qsv_failure *f);

/* Checks solution s against the cube of request *r: the moves solve it,
 * the length is right, and the plan replays legally at its stated cost
 * under r's profile (no plan is checked under r->local.no_plan). Returns QSV_OK or QSV_ERR_INTERNAL with *f. */
int qsv_verify(const qsv_request *r, const qsv_solution *s, qsv_failure *f);

/* ------------------------------------------------------------- in process */

/* The daemon's exchange without the daemon, for bindings (the Python
 * package's quadsolve.solve): a solve request frame in, its reply frame
 * out, solved by qsv_solve in the calling thread. The table set of each
 * metric is opened (generated into the directory when missing) on the
 * first request that needs it and kept until qsv_local_close. */
typedef struct qsv_local qsv_local;

/* The table sizes of qsv_local_open. */
enum {
    QSV_TABLES_LARGE = 0,  /* the robot move and corner-path tables, and the
                              optimal solver's default tables (HTM: the
                              h48h7 set, 3.84 GB; QTM: the large one) */
    QSV_TABLES_SMALL = 1,  /* the small robot set (734 MB instead of 3.12
                              GB) and the small optimal bound, for small
                              machines */
    QSV_TABLES_MEDIUM = 2, /* the small sets and the robot corner-path
                              table (862 MB for the robot set): robot
                              computers of 2 GB */
};

/* tables_dir NULL: qtab_cache_dir. threads: search and generation threads,
 * 0 for the online CPUs when generating and 1 for searching. table_size:
 * a QSV_TABLES_* value. Returns QSV_OK and *out, QSV_ERR_ARGUMENT or
 * QSV_ERR_INTERNAL (out of memory). */
int qsv_local_open(const char *tables_dir, int threads, int table_size,
                   qsv_local **out);
/* Solves one request frame (len bytes; op "solve"; "progress" is
 * ignored) and returns the reply frame, a "result" or an "error" exactly
 * as the daemon would send it (UNAVAILABLE when the tables cannot be
 * opened, UNKNOWN_OP for other ops, BAD_REQUEST for deadline_ms, which
 * bounds the daemon's queue), to be freed with qsv_free; NULL only
 * when out of memory. cancel (may be NULL) stops the search as in
 * qsv_solve. Re-entrant: threads may share one qsv_local. */
char *qsv_local_solve(qsv_local *l, const char *frame, size_t len,
                      const atomic_int *cancel);
/* Frees l and its tables; l may be NULL. */
void qsv_local_close(qsv_local *l);

/* ------------------------------------------------------------------ replies */

struct cJSON;
/* The JSON of a solution, written once for every output that shows one
 * (the daemon's replies, the CLI's --json lines): adds "moves" (standard
 * notation) and, under lengths_key, its length in every plain metric to
 * object o. */
void qsv_json_moves(struct cJSON *o, const qs_move *moves, int n,
                    const char *lengths_key);
/* Adds a robot plan's fields to object o: "robot" (robot notation),
 * "robot_moves", "turns", "tilts", "full_regrips", "safe" (turns held by
 * two stationary grippers) and "cost_ms" (rounded to microseconds). */
void qsv_json_plan(struct cJSON *o, const robot_schedule *plan);

/* The reply frames (JSON, NUL-terminated, malloc'ed: free with
 * qsv_free). id is the request's id as JSON text ("null" when unknown).
 * Return NULL only when out of memory. */
char *qsv_reply_accepted(const char *id, int queue_position);
/* A progress event: "best" for an improvement, "depth", "found" and
 * "nodes" for a length finished by an optimal search (see qsv_progress). */
char *qsv_reply_progress(const char *id, const qsv_progress *p);
char *qsv_reply_result(const char *id, const qsv_result *res);
char *qsv_reply_error(const char *id, const qsv_failure *f);
char *qsv_reply_pong(const char *id);
/* cancel's own reply: whether the target was found (queued or running). */
char *qsv_reply_cancel(const char *id, const char *target, int found);
void qsv_free(void *p);

/* The type of a reply frame. */
typedef enum {
    QSV_REPLY_ACCEPTED = 0,
    QSV_REPLY_PROGRESS = 1,
    QSV_REPLY_RESULT = 2,
    QSV_REPLY_ERROR = 3,
    QSV_REPLY_PONG = 4,
    QSV_REPLY_STATUS = 5,
    QSV_REPLY_CANCEL = 6,
} qsv_reply_type;

/* Parses a reply frame: its type and id (JSON text) always; for a result
 * also *res (may be NULL to skip), for an error *f, for progress *progress
 * (may be NULL; a progress event with neither a valid best nor a valid
 * depth is QSV_ERR_PROTOCOL). Moves and robot steps are parsed back from
 * their notation. Returns QSV_OK or QSV_ERR_PROTOCOL with f->message
 * saying what is wrong. */
int qsv_reply_parse(const char *frame, size_t len, qsv_reply_type *type,
                    char id[QSV_MAX_ID + 1], qsv_result *res,
                    qsv_progress *progress, qsv_failure *f);

/* ------------------------------------------------------------------ client */

typedef struct qsv_client qsv_client;

typedef struct {
    int timeout_ms;           /* longest wait for any reply frame beyond the
                                 request's own limits; default 30000 */
    /* CURVE (all three set, or none): Z85 keys, 40 characters each. */
    const char *server_public;
    const char *client_public;
    const char *client_secret;
} qsv_client_options;

void qsv_client_options_default(qsv_client_options *o);

/* CURVE keys read from files, the storage behind qsv_client_options. */
typedef struct {
    char server_public[41];
    char client_public[41];
    char client_secret[41];
} qsv_curve_keys;

/* Reads the daemon's public key from server_public_file (a FILE.pub of
 * `quadsolved --keygen FILE`) and this client's secret key from
 * client_secret_file (another --keygen FILE; the public key is derived
 * from it), each the first line of its file, into *keys, and points o's
 * three key fields at them. Returns QSV_OK, or QSV_ERR_TRANSPORT with
 * f->message naming the file that is missing or holds no Z85 key. */
int qsv_curve_load(const char *server_public_file,
                   const char *client_secret_file, qsv_curve_keys *keys,
                   qsv_client_options *o, qsv_failure *f);

/* Connects a DEALER socket to endpoint ("tcp://127.0.0.1:5555",
 * "ipc:///run/quadsolved.sock"). ZeroMQ connects lazily, so an absent
 * daemon shows as QSV_ERR_NO_REPLY on the first call. Returns QSV_OK,
 * QSV_ERR_TRANSPORT (bad endpoint or keys; f->message says which) or
 * QSV_ERR_ARGUMENT. One client belongs to one thread at a time. */
int qsv_client_open(const char *endpoint, const qsv_client_options *o,
                    qsv_client **out, qsv_failure *f);
void qsv_client_close(qsv_client *c);

/* Sends solve request *r (its id is replaced by a fresh one) and waits for
 * its result. on_progress (may be NULL) receives progress events (r->progress
 * is set when it is given), both kinds (see qsv_progress). When *cancel
 * (may be NULL) becomes nonzero the client sends cancel and returns the
 * daemon's answer (normally QSV_ERR_CANCELLED). The wait is bounded by the
 * request's own limit (deadline_ms, else time_ms, else the default search
 * time) plus the client's timeout; an optimal request without deadline_ms
 * has no limit of its own, so the client then waits as long as the daemon
 * is alive: after each timeout_ms without a frame it pings the daemon and
 * gives up (QSV_ERR_NO_REPLY) only when that ping goes unanswered for
 * another timeout_ms. Every solution is verified with qsv_verify before
 * this returns QSV_OK. Otherwise returns the daemon's error or a client
 * error, with *f filled. */
int qsv_client_solve(qsv_client *c, const qsv_request *r,
                     const atomic_int *cancel, qsv_progress_fn on_progress,
                     void *progress_ctx, qsv_result *out, qsv_failure *f);
/* Round trip of a ping. */
int qsv_client_ping(qsv_client *c, qsv_failure *f);
/* The status reply's JSON text into out (NUL-terminated). */
int qsv_client_status(qsv_client *c, char *out, size_t out_len,
                      qsv_failure *f);

#ifdef __cplusplus
}
#endif
#endif
