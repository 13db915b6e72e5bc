/*
 * ctl.h - interface shared by the files of quadctl, the robot controller
 * (folder ctl/, docs/quadctl.md).
 *
 * quadctl gets a cube, asks the solver daemon for a robot plan, expands it
 * into primitive steps (robot_expand) and drives the firmware over the
 * protocol of firmware-proto/: HELLO, HOME, STEPS with flow control,
 * following EVENT, FAULT, NAK and STATUS. The pieces:
 *
 *  - link.c: the byte transport, a serial port through libserialport or
 *    a TCP connection (quadsim, ser2net);
 *  - session.c: one fwp host endpoint on a link, and the execution of a
 *    list of primitives with exactly-once accounting of what the firmware
 *    confirmed done, stopping safely on any failure;
 *  - solver.c: a plan from quadsolved (service client) or, offline, from
 *    given moves planned in this process;
 *  - run.c: the solve command: attempts, recovery, the report;
 *  - calibrate.c: a calibrated robot profile from measured durations;
 *  - main.c: the command line.
 *
 * One error enum for the program (ctl_error) with ctl_strerror and
 * ctl_errcode; nothing global: every function gets its state.
 */
#ifndef QS_CTL_H
#define QS_CTL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fwp.h"
#include "quadsolve.h"
#include "robot.h"

/* ------------------------------------------------------------------ errors */

typedef enum {
    CTL_OK = 0,
    CTL_ERR_USAGE = -1,      /* a bad command line */
    CTL_ERR_IO = -2,         /* a port or file cannot be opened or used */
    CTL_ERR_CONNECT = -3,    /* no handshake with the firmware */
    CTL_ERR_HOMING = -4,     /* HOME did not end in IDLE */
    CTL_ERR_FAULT = -5,      /* the firmware reported a fault */
    CTL_ERR_REFUSED = -6,    /* the firmware refused steps (NAK) */
    CTL_ERR_LINK_LOST = -7,  /* connection closed or firmware silent */
    CTL_ERR_PEER_RESET = -8, /* the firmware restarted */
    CTL_ERR_TIMEOUT = -9,    /* a step did not complete in time */
    CTL_ERR_STOPPED = -10,   /* the firmware stopped by itself (ESTOP) */
    CTL_ERR_SOLVER = -11,    /* no solution from the solver */
    CTL_ERR_CUBE = -12,      /* the cube given cannot be read or solved */
    CTL_ERR_STATE = -13,     /* the firmware's cube is not the expected one */
    CTL_ERR_PLAN = -14,      /* a plan that cannot be expanded */
    CTL_ERR_PROTOCOL = -15,  /* the firmware broke the protocol */
    CTL_ERR_NOMEM = -16,
} ctl_error;

const char *ctl_strerror(int err);
/* A short stable identifier, e.g. "FAULT"; "UNKNOWN" otherwise. */
const char *ctl_errcode(int err);

/* Milliseconds and microseconds of the monotonic clock. */
int64_t ctl_now_us(void);

/* ------------------------------------------------------------------- link */

typedef enum { CTL_LINK_NONE = 0, CTL_LINK_TCP = 1, CTL_LINK_SERIAL = 2 } ctl_link_kind;

typedef struct {
    int kind;              /* ctl_link_kind */
    int fd;                /* the descriptor to poll, -1 when closed */
    struct sp_port *port;  /* serial only */
    char spec[256];        /* as given: "/dev/ttyUSB0" or "tcp:HOST:PORT" */
    int baud;
} ctl_link;

/* Opens "tcp:HOST:PORT" (a TCP connection) or a serial port name (8N1,
 * no flow control, baud). Returns CTL_OK or CTL_ERR_IO / CTL_ERR_USAGE
 * with err saying why. */
int ctl_link_open(ctl_link *l, const char *spec, int baud, char *err,
                  size_t err_len);
void ctl_link_close(ctl_link *l);
/* Writes all n bytes (waits at most about a second). 0 or -1. */
int ctl_link_write(ctl_link *l, const uint8_t *b, size_t n);
/* Reads what is there without waiting: >0 bytes, 0 nothing, -1 the link
 * is gone (end of stream or error). */
long ctl_link_read(ctl_link *l, uint8_t *b, size_t cap);
/* Lists serial ports (name, description) on out; returns how many or
 * CTL_ERR_IO. */
int ctl_ports_list(FILE *out, char *err, size_t err_len);

/* ---------------------------------------------------------------- session */

typedef struct {
    const char *port;       /* link spec */
    int baud;
    int connect_timeout_ms; /* handshake (and reconnection) */
    int home_timeout_ms;
    int step_timeout_ms;    /* no DONE for this long while steps are out */
    int retransmit_ms;      /* fwp retransmission timeout (0: default) */
    int inflight;           /* most steps sent and not done; 0: the
                               firmware's max_steps */
    int verbose;            /* 0 quiet, 1 progress, 2 protocol */
    FILE *log;              /* progress messages */
} ctl_options;

/* A progress message, "quadctl: " and a line on opt->log, when
 * opt->verbose is at least level (1 progress, 2 protocol). */
void ctl_say(const ctl_options *opt, int level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* What one execution did, step by step. Arrays are the caller's, n long. */
typedef struct {
    int n;                 /* primitives to execute */
    int sent;              /* handed to the firmware (possibly refused) */
    int confirmed;         /* EVENT DONE received (a prefix: in order) */
    int by_status;         /* of those, known done only from STATUS's
                              last_step (their reports were lost) */
    uint16_t first_id;     /* step id of primitive 0 (ids run on) */
    uint16_t *ms;          /* firmware-reported duration of each, ms */
    int64_t *done_us;      /* host clock when its DONE arrived */
    int64_t start_us;      /* first batch sent */
    int64_t end_us;        /* last DONE */
    bool exact;            /* confirmed is known to be exactly what ran
                              (the firmware said it stopped, or all ran) */
    int busy_naks;         /* batches refused BUSY and sent again */
    int64_t busy_until_us; /* after a BUSY, nothing is resent before the
                              next DONE frees room or this time passes */
    /* Why it stopped, when it did. */
    int err;               /* ctl_error */
    fwp_fault fault;       /* CTL_ERR_FAULT (and firmware LINK_LOST) */
    int nak_reason;        /* CTL_ERR_REFUSED */
    fwp_nak nak;           /* CTL_ERR_REFUSED: the NAK (step, rule) */
    char message[256];
} ctl_exec;

typedef struct {
    ctl_options opt;
    ctl_link link;
    fwp_endpoint ep;
    fwp_config cfg;
    bool link_up;          /* the transport is open */
    bool connected;        /* fwp handshake done */
    uint32_t n_connects;   /* handshakes (pairings) so far */
    bool have_peer;
    fwp_hello peer;
    fwp_status status;     /* last STATUS report */
    uint32_t n_status;
    bool stopped_seen;     /* a STATUS in FAULT/STOPPED since armed */
    uint32_t states_seen;  /* bit per robot state reported since armed */
    int link_event;        /* a link failure to report (ctl_error), 0 */
    int incompatible;      /* FWP_EV_INCOMPATIBLE's detail, 0 */
    uint16_t next_id;      /* the next step id to give out */
    /* The execution in progress, if any. */
    ctl_exec *x;
    const fwp_step *steps;
    struct {
        uint8_t seq;
        int first, count;
        bool live;
    } batch[64];
    int n_batch;
    int64_t progress_us;   /* last DONE (or start) */
    fwp_fault last_fault;
    bool have_fault;
} ctl_session;

/* STATUS (protocol 2) in words: gripper g as "1c" (angle in quarters,
 * c closed / o open) or "?"; a face letter or '?'; and the whole line
 * "R=1c L=3c F=0c B=0c up=F front=D". */
void ctl_status_grip(const fwp_status *st, int g, char out[3]);
char ctl_status_face(uint8_t f);
void ctl_status_describe(const fwp_status *st, char *out, size_t len);
struct cJSON;
/* Adds "grippers" (ctl_status_grip of each), "up" and "front" to o. */
void ctl_status_json(struct cJSON *o, const fwp_status *st);

/* Opens the link and does the handshake. CTL_OK, CTL_ERR_IO or
 * CTL_ERR_CONNECT (err says why). */
int ctl_session_open(ctl_session *s, const ctl_options *o, char *err,
                     size_t err_len);
void ctl_session_close(ctl_session *s);
/* HOME, then waits for IDLE. CTL_OK, CTL_ERR_HOMING or a link error. */
int ctl_session_home(ctl_session *s, char *err, size_t err_len);
/* Asks for STATUS and waits for the report into *st. */
int ctl_session_status(ctl_session *s, fwp_status *st, char *err,
                       size_t err_len);
/* Streams steps[0..x->n) (ids are assigned here) and follows them until
 * every one is confirmed done (CTL_OK) or something fails. On a failure
 * the robot is stopped (ESTOP, reconnecting first if the link was lost)
 * and the firmware's own account (STATUS last_step) completes what was
 * confirmed; x->err and x->message say why it stopped. */
int ctl_session_execute(ctl_session *s, fwp_step *steps, ctl_exec *x);

/* ------------------------------------------------------------------ solver */

typedef struct {
    const char *server;       /* quadsolved endpoint */
    const char *curve_server; /* CURVE: daemon public key file, or NULL */
    const char *curve_key;    /* CURVE: this client's secret key file */
    robot_profile profile;
    int time_ms;              /* search time; 0 = the daemon's default */
    robot_objective objective;
    int timeout_ms;           /* longest wait for the daemon */
    void *client;             /* qsv_client, opened on first use */
} ctl_solver;

/* A plan for the cube `facelets` from quadsolved: its cube-frame moves
 * and robot-frame plan. CTL_OK, CTL_ERR_CUBE (the daemon says the cube is
 * invalid) or CTL_ERR_SOLVER, with err. */
int ctl_solver_plan(ctl_solver *sv, const char *facelets, qs_move *moves,
                    int *n_moves, robot_schedule *plan, char *err,
                    size_t err_len);
void ctl_solver_close(ctl_solver *sv);
/* Whether this build has the service client. */
bool ctl_solver_available(void);

/* ---------------------------------------------------------------- recovery */

/* The move in the robot's current view (robot_sim_view) that does the
 * cube-frame move m: the same turns of the faces at the positions where
 * m's faces now are. */
qs_move ctl_view_move(const robot_sim *world, qs_move m);
/* Replays the robot steps of plan[0..n) whose MOTION primitive is among
 * the first `done` primitives of prims onto *world (which must be in the
 * state the plan started from, grippers home). Returns the number of
 * steps applied (the cube-frame moves done is the count of TURN steps
 * among them, written to *turns if not NULL), or a robot_error. */
int ctl_replay_done(robot_sim *world, const robot_step *plan, int n,
                    const robot_prim *prims, int n_prims, int done,
                    int *turns);

/* -------------------------------------------------------------------- run */

#define CTL_MAX_ATTEMPTS 8

/* One plan and its execution. */
typedef struct {
    char cube[55];            /* what the plan solves: the robot's view */
    qs_move moves[QS_MAX_MOVES];
    int n_moves;
    robot_schedule plan;
    robot_prim prims[ROBOT_MAX_PRIMS];
    fwp_step steps[ROBOT_MAX_PRIMS];
    int64_t us[ROBOT_MAX_PRIMS];  /* expected durations (robot_prims_us) */
    uint16_t ms[ROBOT_MAX_PRIMS];
    int64_t done_us[ROBOT_MAX_PRIMS];
    int n_prims;
    bool executed;            /* execution was attempted */
    ctl_exec x;
    int err;                  /* planning or execution error, CTL_OK */
    char message[256];
} ctl_attempt;

/* The solve command: everything it was told and everything it did. */
typedef struct {
    ctl_options conn;
    ctl_solver solver;
    bool offline;             /* --moves: plan these, no daemon */
    qs_move given[QS_MAX_MOVES];
    int n_given;
    char cube[55];            /* the cube in the robot at the start */
    bool recover;
    int max_attempts;         /* with recover */
    bool json;
    /* Results. */
    ctl_attempt *att[CTL_MAX_ATTEMPTS];
    int n_att;
    robot_sim world;          /* the robot and cube as confirmed so far */
    int moves_done;           /* offline: given moves done */
    int status_used;          /* failures whose STATUS gave the orientation
                                 and grips (protocol 2) */
    int err;
    char message[256];
    bool have_final;
    fwp_status final;         /* STATUS after the last step */
    int64_t start_us, end_us;
} ctl_run;

/* Runs the solve command on r (options filled in): plans, executes,
 * recovers if asked. Returns CTL_OK only when every step was confirmed
 * done (and a firmware reporting its cube has it solved). */
int ctl_run_solve(ctl_run *r);
/* Prints the report: text, or one JSON object with --json. */
void ctl_report(const ctl_run *r, FILE *out);
void ctl_run_free(ctl_run *r);
/* The exit status for an error code (docs/quadctl.md). */
int ctl_exit_status(int err);

/* ----------------------------------------------------------------- profile */

/* Samples of one duration: their sum and count. */
typedef struct {
    double sum;
    int n;
} ctl_sample;

/* Turn classes of a profile: quarter, half, pair_quarter, pair_half. */
#define CTL_TURN_CLASSES 4

typedef struct {
    ctl_sample open, close;                /* probe steps */
    ctl_sample tilt;                       /* a tilt minus settle: open +
                                              tilt + close */
    ctl_sample regrip;                     /* a full regrip */
    ctl_sample turn[CTL_TURN_CLASSES];     /* a turn alone, minus settle */
    ctl_sample parallel[CTL_TURN_CLASSES]; /* a turn with regrips (for the
                                              table only) */
} ctl_calibration;

/* The robot-step index of calibration probes (ctl_calibration_probes). */
#define CTL_PROBE_STEP 0xFFFFu

/* Writes the probe steps of a calibration round into out (at most cap),
 * step CTL_PROBE_STEP: each gripper opens (role OPEN), closes (CLOSE),
 * regrips ahead and back (MOTION). Returns how many (16 with room). */
int ctl_calibration_probes(robot_prim *out, int cap);

/* Runs `quadctl calibrate`: executes the calibration moves (given, or a
 * built-in sequence followed by its inverse, so the cube ends as it began)
 * `rounds` times, homing before each, and writes the calibrated profile
 * JSON to out_path (stdout when NULL). A comparison table goes to log. */
int ctl_calibrate(const ctl_options *o, const robot_profile *base,
                  const qs_move *moves, int n_moves, int rounds,
                  const char *out_path, FILE *log, char *err, size_t err_len);

/* Adds the measured durations (ms[i] of prims[i], i < done, of n_prims
 * sent: probes, then one primitive per robot step of plan) to *c;
 * settle_ms is the base profile's (a settle cannot be told apart from the
 * motion it follows, so it is kept). */
void ctl_calibration_add(ctl_calibration *c, const robot_step *plan,
                         const robot_prim *prims, int n_prims, int done,
                         const uint16_t *ms, double settle_ms);
/* The calibrated profile: base with every measured duration replaced by
 * its mean; name "<base>-calibrated". Returns how many keys changed. */
int ctl_calibration_profile(const ctl_calibration *c,
                            const robot_profile *base, robot_profile *out);

#endif
