/*
 * sim.h - interface of quadsim, the firmware simulator (folder sim/).
 *
 * quadsim plays the robot's firmware: it speaks the firmware side of the
 * protocol in firmware-proto/ over TCP or a pseudo-terminal and moves a
 * simulated quad-arm robot. This header is shared by the files of the
 * folder (and by tests/test_quadsim.c, which compiles model.c in):
 *
 *  - one error enum for the whole simulator, with sim_strerror and
 *    sim_errcode;
 *  - the physical model (sim_robot): each gripper's angle and grip, the
 *    direction every cube face points, and the cube itself. It executes
 *    the protocol's primitive steps (one action per gripper, all at once)
 *    and refuses a physically impossible one. It is kept apart from the
 *    robot library's tables on purpose: it states the mechanics of
 *    docs/robot-model.md physically, so a disagreement shows up as a bug;
 *  - the link fault injector (sim_inject): drop, duplicate, corrupt and
 *    delay whole frames, deterministically from a seed;
 *  - the firmware application (sim_fw): the STATUS state machine, the step
 *    queue, timing from a robot profile, faults and the report outbox.
 *
 * docs/quadsim.md describes the rules and the command line.
 */
#ifndef QS_SIM_H
#define QS_SIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fwp.h"
#include "qlog.h"
#include "quadsolve.h"
#include "robot.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ errors */

/* The model's errors double as FAULT codes: a refused step is reported as
 * FAULT code SIM_FAULT_BASE + (-error), e.g. 0x8009 for a collision
 * (firmware-specific codes start at 0x8000 in the protocol). */
typedef enum {
    SIM_OK = 0,
    SIM_ERR_ARGUMENT = -1,    /* NULL pointer or value out of range */
    SIM_ERR_ACTION = -2,      /* an action byte that is no fwp_action */
    SIM_ERR_GRIP = -3,        /* opening an open or closing a closed gripper */
    SIM_ERR_DROP = -4,        /* no gripper stays closed: the cube falls */
    SIM_ERR_SUPPORT = -5,     /* a face turn that no neutral, closed,
                                 stationary gripper of the other axis holds */
    SIM_ERR_JAM = -6,         /* closed grippers of both axes rotate at once:
                                 their layers cross */
    SIM_ERR_TILT = -7,        /* the whole cube turned by one gripper, or by
                                 a pair turning against each other */
    SIM_ERR_GRIP_MOVING = -8, /* a gripper opens or closes on a moving face */
    SIM_ERR_COLLISION = -9,   /* grippers across on both axes */
    SIM_ERR_USAGE = -10,      /* a bad command-line option */
    SIM_ERR_IO = -11,         /* socket, pseudo-terminal or file failure */
    SIM_ERR_OPEN_TURN = -12,  /* an open gripper asked to turn its face */
} sim_error;

#define SIM_FAULT_BASE 0x8000u

/* A human-readable message for an error code (never NULL). */
const char *sim_strerror(int err);
/* A short stable identifier, e.g. "COLLISION"; "UNKNOWN" otherwise. */
const char *sim_errcode(int err);

/* ------------------------------------------------------------------- model */

/* The robot as it physically is. Grippers are indexed as fwp_gripper
 * (R, L, F, B) and stand at the robot positions of those names; robot
 * positions and cube faces are numbered U R F D L B = 0..5. */
typedef struct {
    uint8_t quarters[FWP_GRIPPERS]; /* angle in quarter turns (clockwise
                                       seen from the gripper's side) mod 4
                                       from home; odd = across its face */
    uint8_t closed;                 /* bit g: gripper g is closed */
    int8_t normal[6][3];            /* robot-frame unit vector of cube face
                                       f: x to robot R, y to U, z to F */
    qs_cube cube;                   /* the cube in its own frame (centres
                                       fixed), so tilts leave it unchanged */
} sim_robot;

typedef enum {
    SIM_MOTION_NONE = 0, /* the cube does not move (grips and free turns) */
    SIM_MOTION_TURN = 1, /* one face, or two opposite faces, turn */
    SIM_MOTION_TILT = 2, /* the whole cube turns between one axis' pair */
} sim_motion_kind;

/* What each gripper does in a step, for timing. */
typedef enum {
    SIM_DO_NONE = 0,
    SIM_DO_TURN = 1,    /* turns its face (alone or as a pair) */
    SIM_DO_TILT = 2,    /* carries the whole cube round */
    SIM_DO_RELEASE = 3, /* the other axis of a tilt: open, wait, close */
    SIM_DO_REGRIP = 4,  /* open, rotate free, close */
    SIM_DO_OPEN = 5,
    SIM_DO_CLOSE = 6,
} sim_do;

/* What a step does physically: enough to time it and to report a fault. */
typedef struct {
    uint8_t kind;                  /* sim_motion_kind */
    uint8_t turn[FWP_GRIPPERS];    /* quarter turns (1..3) of each closed
                                      gripper that turns a face or tilts */
    uint8_t what[FWP_GRIPPERS];    /* sim_do of each gripper */
    uint8_t free_q[FWP_GRIPPERS];  /* free quarter rotations of REGRIP and
                                      of a regripping RELEASE (0 or 1) */
    bool pair, half;               /* a turn of both faces of an axis; a
                                      half turn in it */
    int8_t gripper;                /* on an error: the gripper at fault,
                                      or -1 when none in particular */
} sim_motion;

/* The cube `cube` (solved when NULL) in the home orientation (every cube
 * face at the robot position of its name), grippers neutral and closed. */
void sim_robot_init(sim_robot *r, const qs_cube *cube);
/* Homing: every gripper back to angle 0 and closed; the cube is neither
 * turned nor reoriented (the robot cannot see it). */
void sim_robot_home(sim_robot *r);
/* Executes one protocol step when it is physically possible (the rules are
 * in docs/quadsim.md). Returns SIM_OK with *r updated, or a SIM_ERR_* with
 * *r unchanged, m->gripper naming the gripper at fault and detail (may be
 * NULL) saying why. m may be NULL. */
int sim_robot_step(sim_robot *r, const fwp_step *st, sim_motion *m,
                   char *detail, size_t detail_len);
/* The cube face at robot position p (0..5), or -1. */
int sim_robot_face_at(const sim_robot *r, int p);
/* Mask of grippers standing across their face (odd angle). */
unsigned sim_robot_across(const sim_robot *r);
/* A one-line description for logs, e.g.
 * "R=0c L=1c F=0o B=0c up=F front=D". */
void sim_robot_describe(const sim_robot *r, char *buf, size_t len);
/* How long a step with this motion takes under profile p, in us: every
 * gripper's actions take their physical durations, all start together and
 * the step ends with the last (docs/quadsim.md, "Timing"). */
int64_t sim_motion_us(const sim_motion *m, const robot_profile *p);
/* How long HOME takes under p, in us (two full regrips, one per axis). */
int64_t sim_homing_us(const robot_profile *p);

/* --------------------------------------------------------- fault injection */

/* A seeded PRNG (splitmix64 seeding, xorshift64* steps): the same seed
 * gives the same numbers. sim_rand_seed maps any seed, 0 too, to a
 * state. */
uint64_t sim_rand_seed(uint64_t seed);
uint64_t sim_rand_next(uint64_t *state);
/* Uniform in [0, 1). */
double sim_rand_uniform(uint64_t *state);

/* A frame (or any bytes) handed on to the transport or the endpoint. */
typedef void (*sim_deliver_fn)(void *ctx, const uint8_t *bytes, size_t n);

#define SIM_DELAY_SLOTS 64   /* frames held back at once per direction */
#define SIM_UNIT_MAX 512     /* longest received run kept as one frame */

typedef struct {
    double drop, dup, corrupt, delay; /* probabilities per frame, 0..1 */
    uint32_t delay_ms;                /* a delayed frame waits 0..delay_ms */
    uint64_t rng;                     /* xorshift64* state, never 0 */
    struct {
        int64_t due_us;
        uint16_t len;
        uint8_t bytes[SIM_UNIT_MAX + 1];
    } held[SIM_DELAY_SLOTS];
    int n_held;
    uint8_t unit[SIM_UNIT_MAX + 1]; /* received bytes up to a delimiter */
    size_t unit_len;
    uint32_t frames, dropped, duplicated, corrupted, delayed, overflow;
} sim_inject;

/* Sets up an injector with the given rates and a seed (any value). */
void sim_inject_init(sim_inject *in, double drop, double dup, double corrupt,
                     double delay, uint32_t delay_ms, uint64_t seed);
/* True when the injector changes anything at all. */
bool sim_inject_active(const sim_inject *in);
/* Passes one whole frame through: dropped, delivered once or twice (the
 * copy possibly damaged: one byte xor-ed with a nonzero value), or held
 * back until sim_inject_due. */
void sim_inject_frame(sim_inject *in, const uint8_t *bytes, size_t n,
                      int64_t now_us, sim_deliver_fn deliver, void *ctx);
/* Passes a received byte stream through, cutting it into frames at each
 * delimiter (a frame ends with its 0x00). Runs longer than SIM_UNIT_MAX
 * without a delimiter go through untouched. */
void sim_inject_stream(sim_inject *in, const uint8_t *bytes, size_t n,
                       int64_t now_us, sim_deliver_fn deliver, void *ctx);
/* Delivers every held frame that is due by now_us, oldest due first. */
void sim_inject_due(sim_inject *in, int64_t now_us, sim_deliver_fn deliver,
                    void *ctx);
/* When the next held frame is due, or INT64_MAX when none is held. */
int64_t sim_inject_next_us(const sim_inject *in);
/* Forgets held frames and a partial received frame (a new connection). */
void sim_inject_reset(sim_inject *in);

/* ---------------------------------------------------------------- firmware */

#define SIM_QUEUE_MAX 1024 /* largest step queue --queue accepts */
#define SIM_OUTBOX 256     /* reports waiting for the send window */

/* Settings of the firmware application, from the command line. */
typedef struct {
    robot_profile profile; /* step durations */
    double speed;          /* simulated time runs this much faster; 0 =
                              every motion completes at once */
    double jitter;         /* reported durations vary by up to +-jitter */
    int queue;             /* steps the firmware queues, 1..SIM_QUEUE_MAX */
    uint32_t stall_step;       /* the Nth step started stalls (0: never) */
    uint32_t motor_fault_step; /* the Nth step started overcurrents */
    uint32_t disconnect_after; /* cut the link after N steps done */
    uint64_t seed;             /* for the jitter */
} sim_fw_config;

/* The firmware: robot state machine, queue, current motion, outbox. */
typedef struct {
    sim_fw_config cfg;
    const qlog *log;
    sim_robot robot;   /* as it is now (the current step not yet in) */
    sim_robot planned; /* after every queued step: new batches are checked
                          against it */
    uint8_t state;     /* fwp_robot_state */
    uint16_t fault;    /* current fault code, 0 none */
    uint16_t last_step;
    fwp_step queue[SIM_QUEUE_MAX];
    int q_head, q_count;
    /* The step being executed. */
    bool moving;
    fwp_step cur;
    sim_robot cur_after; /* the robot once cur is done */
    int64_t cur_start_us, cur_end_us, cur_fault_us;
    uint16_t cur_fault_code; /* STALL or OVERCURRENT due at cur_fault_us */
    int64_t cur_sim_us;      /* its simulated duration */
    int64_t homing_end_us;
    int64_t last_end_us;     /* when the previous motion ended */
    /* After a batch was refused as BUSY, later batches must continue from
     * expect_id, so nothing overtakes the refused one. */
    bool busy_refused;
    uint16_t expect_id;
    bool have_expect;
    /* Reports waiting for room in the protocol's send window. */
    fwp_message outbox[SIM_OUTBOX];
    int ob_head, ob_count;
    /* Counters for the summary and the fault injection triggers. */
    uint32_t steps_started, steps_done, batches, faults, refused;
    bool cut_link; /* disconnect_after reached: the transport must cut */
    uint64_t rng;
} sim_fw;

/* Sets up the firmware UNHOMED with the cube `cube` in the robot. */
void sim_fw_init(sim_fw *fw, const sim_fw_config *cfg, const qlog *log,
                 const qs_cube *cube);
/* A message the endpoint delivered (HELLO, HOME, STEPS, STATUS query,
 * ESTOP, NAK...). Replies go to the outbox. */
void sim_fw_message(sim_fw *fw, const fwp_message *m, int64_t now_us);
/* A link event of the endpoint (fwp_link_event). */
void sim_fw_link_event(sim_fw *fw, int event, int detail, int64_t now_us);
/* The transport lost its peer (a TCP client went away): like LINK_LOST,
 * at once. */
void sim_fw_link_cut(sim_fw *fw, int64_t now_us);
/* Advances motions to now_us: completes steps, starts queued ones,
 * raises injected faults. */
void sim_fw_tick(sim_fw *fw, int64_t now_us);
/* When sim_fw_tick next has something to do, or INT64_MAX. */
int64_t sim_fw_next_us(const sim_fw *fw, int64_t now_us);
/* Hands queued reports to the endpoint while its window has room. */
void sim_fw_flush(sim_fw *fw, fwp_endpoint *ep);

#ifdef __cplusplus
}
#endif
#endif
