/*
 * robot.h - public interface of the quad-arm robot model (library
 * qs_robot): the single source of truth for how a four-gripper robot
 * executes a solution.
 *
 * The robot holds the cube with grippers on its R, L, F and B faces (robot
 * frame) and cannot turn U or D; it tilts the cube instead. A gripper that
 * has made a quarter turn stands across its face and must be regripped
 * (open, rotate back, close) before the other axis may stand across too.
 * The mechanics follow qphase (Elias Frantar's solver for the Cuboth robot)
 * so robot-move counts are comparable with it; docs/robot-model.md has the
 * picture, the notation and every rule.
 *
 * The library offers: the gripper-state automaton with its 7-bit statesets
 * (forward and inverse transitions, for searches), the 24 orientations and
 * the cube-frame to robot-frame move mapping (robot_model), the robot
 * notation, timing profiles, the planner robot_plan that executes a
 * cube-frame solution with the fewest robot moves (or the least time), and
 * the independent checker robot_check that replays a plan step by step.
 *
 * Conventions: public names start with robot_ / ROBOT_; functions return
 * ROBOT_OK (0) or a negative robot_error; buffers belong to the caller;
 * nothing is global, the tables live in a caller-owned robot_model.
 */
#ifndef QS_ROBOT_H
#define QS_ROBOT_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "quadsolve.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    ROBOT_OK = 0,
    ROBOT_ERR_ARGUMENT = -1,      /* NULL pointer or value out of range */
    ROBOT_ERR_NOMEM = -2,         /* memory allocation failed */
    ROBOT_ERR_BUFFER = -3,        /* the caller's buffer is too small */
    ROBOT_ERR_MOVE = -4,          /* a cube-frame move out of range */
    ROBOT_ERR_TOO_LONG = -5,      /* more than ROBOT_MAX_MOVES moves */
    ROBOT_ERR_SYNTAX = -6,        /* robot notation that does not parse */
    ROBOT_ERR_PROFILE_NAME = -7,  /* no such built-in profile or file */
    ROBOT_ERR_PROFILE_IO = -8,    /* profile file cannot be read */
    ROBOT_ERR_PROFILE_JSON = -9,  /* profile is not a JSON object */
    ROBOT_ERR_PROFILE_KEY = -10,  /* unknown or repeated key */
    ROBOT_ERR_PROFILE_TYPE = -11, /* a value of the wrong JSON type */
    ROBOT_ERR_PROFILE_VALUE = -12, /* negative or too large duration */
    ROBOT_ERR_PROFILE_MISSING = -13, /* a required duration is absent */
    ROBOT_ERR_STEP = -14,         /* a malformed step (U/D turn, regrip of
                                     a turning gripper, empty regrip...) */
    ROBOT_ERR_SUPPORT = -15,      /* no stationary gripper holds the cube */
    ROBOT_ERR_COLLISION = -16,    /* grippers across on both axes */
    ROBOT_ERR_NOT_SOLVED = -17,   /* the cube is not solved at the end */
    ROBOT_ERR_COUNT = -18,        /* a plan's counts or cost are wrong */
    ROBOT_ERR_TABLES = -19,       /* robot_solve given non-robot tables */
    ROBOT_ERR_CUBE = -20,         /* robot_solve given an unsolvable cube */
    ROBOT_ERR_CANCELLED = -21,    /* the caller's cancel flag was raised */
    ROBOT_ERR_TIMEOUT = -22,      /* no solution of max_len in time */
    ROBOT_ERR_NOT_FOUND = -23,    /* no solution within max_len */
    ROBOT_ERR_THREAD = -24,       /* a worker thread could not be started */
} robot_error;

/* A human-readable message for an error code. */
const char *robot_strerror(int err);
/* A short stable identifier for an error code, e.g. "COLLISION" (used in
 * the CLI's "error: CODE: message" lines). */
const char *robot_errcode(int err);

/* ------------------------------------------------------------- grippers */

/* Grippers, by the robot face they hold; bit (1 << g) in gripper masks. */
enum {
    ROBOT_GRIP_R = 0,
    ROBOT_GRIP_L = 1,
    ROBOT_GRIP_F = 2,
    ROBOT_GRIP_B = 3,
    ROBOT_GRIPPERS = 4
};
#define ROBOT_MASK_RL 0x3u
#define ROBOT_MASK_FB 0xcu

/* Gripper states: which grippers stand across their face ("blocked" in
 * qphase). At most one axis may have grippers across, so there are 7. The
 * numbering is qphase's, so statesets are the same 7-bit masks:
 *   0 none   1 L   2 R   3 R+L   4 F   5 B   6 F+B   (across) */
#define ROBOT_STATES 7
#define ROBOT_STATESETS 128
/* The stateset of a solve's start: only state 0 (all grippers neutral). */
#define ROBOT_DEFAULTSET 1

/* The mask of grippers across their face in a state (0..6). */
unsigned robot_state_across(int state);
/* The state with exactly the grippers of `across` across, or -1 when that
 * is a collision (grippers across on both axes) or not a 4-bit mask. */
int robot_state_of(unsigned across);
/* qphase's name of a state: the faces NOT blocked, e.g. "RLFB" for state
 * 0, "FB" for state 3; "?" out of range. */
const char *robot_state_name(int state);

/* ---------------------------------------------------------------- steps */

/* Automaton operations: robot-frame turns are qs_move numbers 0..44 read
 * in the robot frame (only those on R, L, F, B ever apply), then the two
 * tilts and "any full regrip". */
#define ROBOT_OP_TILT_RL 45
#define ROBOT_OP_TILT_FB 46
#define ROBOT_OP_REGRIP 47
#define ROBOT_OPS 48

typedef enum {
    ROBOT_STEP_TURN = 0,   /* a face turn or parallel pair */
    ROBOT_STEP_TILT = 1,   /* a cube rotation by one axis of grippers */
    ROBOT_STEP_REGRIP = 2, /* a full regrip: a step of its own */
} robot_step_kind;

/* tRL: the R and L grippers turn the cube like R (F goes to U, the "x"
 * rotation) while F and B let go. tFB: F and B turn it like F (U goes to
 * R, "z") while R and L let go. One direction each, as in qphase. */
typedef enum { ROBOT_TILT_RL = 0, ROBOT_TILT_FB = 1 } robot_tilt;

/* One robot operation. regrips is a gripper mask: for a turn or tilt the
 * grippers regripped in parallel with it, for a full regrip the grippers
 * it regrips (at least one). A regrip rotates a gripper by a quarter turn
 * while it is open: back to neutral, or across ahead of a quarter turn. */
typedef struct {
    uint8_t kind;    /* robot_step_kind */
    uint8_t arg;     /* TURN: robot-frame qs_move on R, L, F or B;
                        TILT: robot_tilt; REGRIP: 0 */
    uint8_t regrips; /* gripper mask, bit (1 << ROBOT_GRIP_x) */
} robot_step;

/* The automaton operation of a step (0..47), or -1 for a malformed step
 * (kind or arg out of range). */
int robot_step_op(const robot_step *s);

/* Parses robot notation: steps separated by blanks,
 *   turn:   R  L2  F'  (R L')  (F2 B)         only R L F B faces
 *   tilt:   tRL  tFB
 *   full regrip:  rL   rR+rL   (r + gripper, more joined by '+')
 * and a turn or tilt may carry parallel regrips: "R+rL", "(R L)+rF",
 * "tRL+rF+rB". Returns the number of steps or ROBOT_ERR_SYNTAX (detail
 * names the token and column) or ROBOT_ERR_BUFFER when more than max.
 * Legality is not checked here (see robot_sim_step). */
int robot_steps_parse(const char *text, robot_step *steps, int max,
                      char *detail, size_t detail_len);
/* Prints steps in the notation above, separated by single spaces,
 * regrips in the order R L F B. Returns the length written (without NUL),
 * ROBOT_ERR_BUFFER, or ROBOT_ERR_STEP for a step that has no spelling. */
int robot_steps_format(const robot_step *steps, int n, char *out,
                       size_t out_len);

/* ---------------------------------------------------------------- model */

/* The 24 ways the robot holds the cube. Orientation o has cube face
 * o / 4 (URFDLB order) at robot U, and at robot F the (o % 4)-th of the
 * four faces adjacent to it in the order F R B L U D. Orientation 0 is
 * home: every cube face at the robot position of the same name. */
#define ROBOT_ORIENTATIONS 24
/* to_robot entry of a cube move on the faces at robot U and D. */
#define ROBOT_NO_MOVE 255

/* The tables of the model, built by robot_model_init (immutable after).
 * Positions and faces are numbered U R F D L B = 0..5 as in quadsolve.h. */
typedef struct {
    /* next_state[s][op][regrips]: the state after op with that parallel
     * regrip mask (for ROBOT_OP_REGRIP: the regripped grippers, 0 = no-op
     * as in qphase) from state s, or -1 when not allowed. */
    int8_t next_state[ROBOT_STATES][ROBOT_OPS][16];
    /* safe[s][op][regrips]: 1 when a legal turn is held by at least two
     * grippers that neither turn, regrip nor stand across (qphase's
     * "safe" move); 0 otherwise and for tilts and full regrips. */
    uint8_t safe[ROBOT_STATES][ROBOT_OPS][16];
    /* Stateset automaton: nextset[S][op] is every state reachable from a
     * state in S by op with some regrips; nextiset[S][op] every state from
     * which op reaches a state in S (for inverse searches). */
    uint8_t nextset[ROBOT_STATESETS][ROBOT_OPS];
    uint8_t nextiset[ROBOT_STATESETS][ROBOT_OPS];
    /* face_at[o][p]: the cube face at robot position p. */
    uint8_t face_at[ROBOT_ORIENTATIONS][6];
    /* tilt[o][t]: the orientation after tilt t. */
    uint8_t tilt[ROBOT_ORIENTATIONS][2];
    /* to_robot[o][m]: the robot-frame turn doing cube-frame move m, or
     * ROBOT_NO_MOVE when m is on the axis at robot U-D. to_cube is the
     * inverse (defined for all 45 robot-frame moves). */
    uint8_t to_robot[ROBOT_ORIENTATIONS][QS_MOVE_COUNT];
    uint8_t to_cube[ROBOT_ORIENTATIONS][QS_MOVE_COUNT];
} robot_model;

/* Builds every table of *m (a few microseconds; no allocation). */
void robot_model_init(robot_model *m);
/* The cube-frame turns of a robot-frame plan that starts from the home
 * orientation (tilts turn the cube in the robot, regrips move nothing),
 * into out (at most max). Legality is not checked (see robot_sim_step).
 * Returns the number of turns, ROBOT_ERR_STEP for a malformed step, or
 * ROBOT_ERR_BUFFER when more than max. */
int robot_steps_to_moves(const robot_model *m, const robot_step *steps,
                         int n, qs_move *out, int max);
/* The orientation with cube face `up` at robot U and `front` at robot F,
 * or -1 when they are equal or opposite or out of range. */
int robot_orientation(int up, int front);

/* -------------------------------------------------------------- profiles */

/* Durations of a robot's physical actions in milliseconds (>= 0): a face
 * turned by its gripper against the other axis (quarter, half), both faces
 * of an axis at once (pair_quarter, pair_half: a pair with a half turn),
 * the whole cube turned a quarter between the grippers of one axis
 * (tilt), a gripper opening (open) and closing (close), one gripper's
 * regrip (regrip: open, rotate a quarter, close; the free rotation is
 * regrip - open - close), and the cube settling after it moved (settle).
 * All the actions of a step start together and the step ends with the
 * last of them (robot_step_us; docs/robot-model.md, "Timing"):
 *   turn:         max(turn + settle, regrip if it carries regrips)
 *   tilt:         open + max(tilt + settle, free rotation if it carries
 *                 regrips) + close (the released axis opens before and
 *                 closes after)
 *   full regrip:  regrip
 * regrip_parallel_ms is not an input: robot_profile_derive sets it to the
 * least time a parallel regrip adds to any turn (reported, calibrated;
 * the searches time every step with robot_step_us). */
typedef struct {
    char name[64];
    double quarter_ms, half_ms;
    double pair_quarter_ms, pair_half_ms;
    double tilt_ms;
    double regrip_parallel_ms, regrip_ms;
    double open_ms, close_ms;
    double settle_ms;
} robot_profile;

/* Longest duration a profile may give one motion (one minute). */
#define ROBOT_PROFILE_MAX_MS 60000.0

/* The built-in profiles by index ("default", "lego", "servo"); NULL past
 * the last. */
const char *robot_profile_builtin_name(int i);
/* Copies built-in profile `name` into *p, or ROBOT_ERR_PROFILE_NAME. */
int robot_profile_builtin(const char *name, robot_profile *p);
/* Parses a JSON profile: an object with every duration key ("quarter_ms",
 * "half_ms", "pair_quarter_ms", "pair_half_ms", "tilt_ms",
 * "regrip_parallel_ms", "regrip_ms", "open_ms", "close_ms", "settle_ms")
 * as a number in [0, ROBOT_PROFILE_MAX_MS], and optional string keys
 * "name" and "description". Anything else is an error: ROBOT_ERR_PROFILE_
 * JSON, _KEY (unknown or repeated), _TYPE, _VALUE or _MISSING, with detail
 * naming the key. *p is written only on success; without "name" the name
 * is "custom". */
int robot_profile_parse(const char *json, robot_profile *p, char *detail,
                        size_t detail_len);
/* Reads and parses a profile file; its name defaults to the path.
 * ROBOT_ERR_PROFILE_IO when it cannot be read, else as parse. */
int robot_profile_load(const char *path, robot_profile *p, char *detail,
                       size_t detail_len);
/* A built-in name, else a file path. A spec that is neither a built-in
 * name nor an existing file is ROBOT_ERR_PROFILE_NAME when it looks like
 * a name (no '/' and no ".json"), ROBOT_ERR_PROFILE_IO otherwise. */
int robot_profile_select(const char *spec, robot_profile *p, char *detail,
                         size_t detail_len);
/* Writes *p as a JSON object that robot_profile_parse reads back;
 * returns the length or ROBOT_ERR_BUFFER / ROBOT_ERR_NOMEM. */
int robot_profile_to_json(const robot_profile *p, char *out, size_t out_len);
/* Sets the derived field regrip_parallel_ms from the physical durations
 * (robot_profile_builtin and robot_profile_parse call it; call it after
 * changing a profile's durations by hand). */
void robot_profile_derive(robot_profile *p);
/* A free (open) gripper's quarter rotation, regrip - open - close, >= 0. */
double robot_free_quarter_ms(const robot_profile *p);
/* One gripper's regrip as executed: open + free rotation + close. */
double robot_regrip_ms(const robot_profile *p);
/* Duration of one step in microseconds (the ms total, rounded), or -1
 * for a malformed step. */
int64_t robot_step_us(const robot_profile *p, const robot_step *s);

/* ------------------------------------------------------------- planning */

#define ROBOT_MAX_MOVES QS_MAX_MOVES
/* Room for any plan of ROBOT_MAX_MOVES moves. Fewest-moves plans need at
 * most 4 steps per move (a full regrip to neutral, a tilt and a full
 * regrip make any move possible); least-time plans of random 64-move
 * sequences under extreme profiles stay below 2 steps per move. */
#define ROBOT_MAX_STEPS (6 * ROBOT_MAX_MOVES)

typedef enum {
    ROBOT_OBJ_MOVES = 0, /* fewest robot moves, then least time */
    ROBOT_OBJ_TIME = 1,  /* least time, then fewest robot moves */
} robot_objective;

/* A robot-frame execution of a solution. */
typedef struct {
    robot_step steps[ROBOT_MAX_STEPS];
    int n;            /* steps */
    int turns;        /* turn steps (faces and pairs) */
    int tilts;
    int full_regrips; /* regrips that could not run beside a move */
    int robot_moves;  /* turns + tilts + full_regrips (= n) */
    int safe;         /* turns held by two stationary neutral grippers */
    double cost_ms;   /* sum of robot_step_us under the profile, in ms */
} robot_schedule;

/* Plans the best execution of cube-frame moves (0..44, pairs allowed, any
 * metric) from the home orientation with neutral grippers: tilts where a
 * move lies on the U-D axis (possibly earlier), parallel regrips, and full
 * regrips only when unavoidable; each move is one turn step, as given.
 * Minimises, in order: robot moves, time, then maximises safe turns, then
 * fewest regripped grippers (ROBOT_OBJ_MOVES); ROBOT_OBJ_TIME swaps the
 * first two. Exact (dynamic programming over orientation x gripper state).
 * Returns ROBOT_OK, ROBOT_ERR_ARGUMENT, ROBOT_ERR_MOVE, ROBOT_ERR_TOO_LONG,
 * ROBOT_ERR_NOMEM or ROBOT_ERR_BUFFER (a plan longer than ROBOT_MAX_STEPS;
 * not seen in practice). About 1.3 ms for 64 moves (least time: 2.5 ms). */
int robot_plan(const robot_model *m, const robot_profile *p,
               robot_objective obj, const qs_move *moves, int n,
               robot_schedule *out);

/* ------------------------------------------------------------- checking */

/* The physical state a plan is replayed on, kept independently of
 * robot_model: where each cube face points, how far each gripper has
 * turned, and the cube. */
typedef struct {
    int8_t normal[6][3]; /* robot-frame unit normal of cube face f */
    uint8_t quarters[ROBOT_GRIPPERS]; /* turned, mod 4; odd = across */
    qs_cube cube;
} robot_sim;

/* Home orientation, neutral grippers, *cube (the cube being solved). */
void robot_sim_init(robot_sim *s, const qs_cube *cube);
/* The cube face at robot position p (0..5, URFDLB), or -1. */
int robot_sim_face_at(const robot_sim *s, int p);
/* The mask of grippers standing across their face. */
unsigned robot_sim_across(const robot_sim *s);
/* Executes one step when it is legal: a turn needs a neutral gripper on
 * the other axis that does not regrip, and may regrip only grippers that
 * do not turn; a tilt may regrip only the released axis; a full regrip
 * needs a neutral gripper left holding; no step may end with grippers
 * across on both axes. Returns ROBOT_OK (with *safe, if not NULL, 1 for a
 * turn held by two stationary neutral grippers), or ROBOT_ERR_STEP,
 * ROBOT_ERR_SUPPORT or ROBOT_ERR_COLLISION with *s unchanged and detail
 * saying why. */
int robot_sim_step(robot_sim *s, const robot_step *st, int *safe,
                   char *detail, size_t detail_len);

/* Replays a plan on *cube step by step with robot_sim_step and checks that
 * every step is legal, the cube ends solved, and the plan's counts (and,
 * when p is not NULL, cost_ms to the microsecond) are right. Shares no
 * transition code with robot_plan. Returns ROBOT_OK or the first error,
 * with detail naming the step. */
int robot_check(const robot_schedule *plan, const qs_cube *cube,
                const robot_profile *p, char *detail, size_t detail_len);

/* ------------------------------------------------------------ primitives */

/* What one gripper does in a primitive step. The values are the firmware
 * protocol's action bytes (fwp_action in firmware-proto/fwp.h), so a
 * primitive goes on the wire unchanged. */
typedef enum {
    ROBOT_ACT_NONE = 0,
    ROBOT_ACT_CW = 1,    /* rotate +90 degrees (clockwise seen from it) */
    ROBOT_ACT_CCW = 2,   /* rotate -90 degrees */
    ROBOT_ACT_HALF = 3,  /* rotate 180 degrees */
    ROBOT_ACT_OPEN = 4,
    ROBOT_ACT_CLOSE = 5,
    ROBOT_ACT_REGRIP_CW = 6,  /* open, rotate +90, close */
    ROBOT_ACT_REGRIP_CCW = 7, /* open, rotate -90, close */
    ROBOT_ACT_TILT_CW = 8,    /* turn the whole cube +90 (with the partner's
                                 TILT_CCW; the other axis lets go) */
    ROBOT_ACT_TILT_CCW = 9,
} robot_action;

/* The part of its robot step a primitive is. MOTION is the one that turns
 * a face, tilts the cube or regrips: once it is done, the robot step's
 * effect on the cube and its orientation has happened (robot_expand
 * writes only MOTION primitives). OPEN and CLOSE mark steps that only
 * open or close grippers, written by hand (calibration probes). */
typedef enum {
    ROBOT_PRIM_OPEN = 0,
    ROBOT_PRIM_MOTION = 1,
    ROBOT_PRIM_CLOSE = 2,
} robot_prim_role;

/* One primitive step: every gripper performs its action at once. */
typedef struct {
    uint8_t action[ROBOT_GRIPPERS]; /* robot_action, indexed R L F B */
    uint8_t role;                   /* robot_prim_role */
    uint16_t step;                  /* index of its robot step */
} robot_prim;

/* Room for the primitives of a plan (one per robot step since protocol
 * version 2) and a controller's extra steps, such as calibration
 * probes. */
#define ROBOT_MAX_PRIMS (3 * ROBOT_MAX_STEPS)

/* Expands robot steps, executed from the home position (all grippers
 * neutral at angle 0 and closed), into one primitive (protocol version 2
 * step) per robot step, role MOTION (docs/robot-model.md, "Primitive
 * steps"):
 *   turn (+ regrips): the turning grippers rotate, each regripped one
 *                 REGRIP_CW/CCW, all at once;
 *   tilt:         R TILT_CW with L TILT_CCW (tRL), or F with B (tFB); the
 *                 other axis NONE or REGRIP (it opens and closes by
 *                 itself);
 *   full regrip:  REGRIP of each regripped gripper.
 * A regrip rotates an across gripper back to angle 0 and a neutral one a
 * quarter ahead. Each step is checked with robot_sim_step first, so an
 * illegal plan is refused (its error, detail naming the step) rather than
 * expanded. Returns the number of primitives (n), or ROBOT_ERR_ARGUMENT,
 * ROBOT_ERR_BUFFER (more than cap), ROBOT_ERR_STEP, ROBOT_ERR_SUPPORT or
 * ROBOT_ERR_COLLISION. */
int robot_expand(const robot_step *steps, int n, robot_prim *out, int cap,
                 char *detail, size_t detail_len);

/* The expected duration of each of prims[0..n) (starting with every
 * gripper closed) under profile p, in microseconds, into us[0..n): each
 * gripper's actions take their physical durations (a face turn alone or
 * as a pair, + settle_ms; a tilt: open_ms + tilt_ms + settle_ms +
 * close_ms, the released axis' regrips rotating meanwhile; a regrip
 * open_ms + free quarter + close_ms; an open gripper rotating, opening,
 * closing), all start together, and a primitive lasts as long as its
 * slowest gripper. On an expansion this equals robot_step_us of each
 * step; quadsim times steps by the same physics with its own code
 * (docs/quadsim.md). Returns ROBOT_OK or ROBOT_ERR_ARGUMENT. */
int robot_prims_us(const robot_profile *p, const robot_prim *prims, int n,
                   int64_t *us);

/* The cube as the robot sees it after a replay: the 54 facelets by robot
 * position (URFDLB order, as quadsolve prints them), each named by the
 * robot position where the centre of its colour now is. A cube that the
 * robot holds in orientation s is solved by a plan from the home
 * orientation for the cube this returns; for robot_sim_init's state it is
 * the cube itself. out gets 54 letters and a NUL. */
void robot_sim_view(const robot_sim *s, char out[55]);

/* -------------------------------------------------------------- solving */

typedef struct {
    int threads;         /* worker threads, >= 1 */
    qs_team *team;       /* may be NULL: threads started per search */
    int time_ms;         /* stop after this long; 0 = no time limit */
    uint64_t max_nodes;  /* stop, like time_ms, after this many search
                            nodes over all threads; 0 = no limit */
    int max_len;         /* stop once a solution of at most this many
                            robot moves is found; -1 = none */
    int solutions;       /* how many best solutions to return, >= 1 */
    robot_objective objective; /* what "best" means */
    const atomic_int *cancel;  /* caller-owned; nonzero stops the search */
    qs_improve_fn on_improve;  /* called with the robot moves of each new
                                  best solution; may be NULL */
    void *improve_ctx;
} robot_solve_options;

/* Defaults: 1 thread, 10 ms, no max_len, 1 solution, fewest moves. */
void robot_solve_options_default(robot_solve_options *o);

typedef struct {
    qs_move moves[QS_MAX_MOVES]; /* cube-frame face turns and pairs */
    int n;
    robot_schedule plan;         /* its best execution (robot_plan) */
    int direction;               /* the search that found it, 0..5 */
    double search_ms;            /* least time (robot_solve): the time the
                                    search gave the execution it found;
                                    plan.cost_ms is never more. 0 else */
} robot_solution;

/* Solves *c for the robot: the search counts robot moves (turns of the
 * four gripped faces and parallel pairs, tilts, full regrips) with
 * tilt-class pruning tables (t: a QS_METRIC_ROBOT table set) and the
 * gripper stateset automaton of *m, so every solution is executable.
 * Each solution is then planned exactly by robot_plan under profile *p
 * and the objective, checked by robot_check, and up to max_out of the
 * best are written to out, best first: fewest robot moves, then least
 * cost_ms (ROBOT_OBJ_MOVES), or least cost_ms first (ROBOT_OBJ_TIME, which
 * also weighs solutions one robot move longer than the shortest).
 * Limits behave as in qs_solve: without max_len the time limit waits for
 * the first solution; with it the deadline is hard. Returns ROBOT_OK with
 * at least one solution, ROBOT_ERR_CANCELLED, ROBOT_ERR_TIMEOUT,
 * ROBOT_ERR_NOT_FOUND, ROBOT_ERR_TABLES, ROBOT_ERR_CUBE (not solvable:
 * qs_cube_check says why), ROBOT_ERR_ARGUMENT or ROBOT_ERR_NOMEM. A
 * solved cube gets one empty solution. Re-entrant; stats may be NULL.
 * The calling thread searches too and keeps about 3.5 MB of nodes on its
 * stack (as does each thread the search starts), so call it from a
 * thread with at least 4 MB of stack (glibc's default is 8 MB). */
int robot_solve(const qs_tables *t, const robot_model *m,
                const robot_profile *p, const qs_cube *c,
                const robot_solve_options *o, robot_solution *out,
                int max_out, int *n_out, qs_stats *stats);

/* ------------------------------------------------------ optimal solving */

typedef struct {
    int threads;              /* worker threads splitting one solve, >= 1 */
    int max_len;              /* give up beyond this many robot moves with
                                 ROBOT_ERR_NOT_FOUND; -1 = no limit */
    const atomic_int *cancel; /* caller-owned; nonzero stops the search */
    qs_depth_fn on_depth;     /* after each length searched (serialised,
                                 from the calling thread); may be NULL */
    void *depth_ctx;
} robot_optimal_options;

/* Defaults: 1 thread, no length limit, no cancel flag, no callback. */
void robot_optimal_options_default(robot_optimal_options *o);

/* Finds a solution of *c with the fewest robot moves, counted as
 * robot_solve counts them (turns and parallel pairs of the four gripped
 * faces, tilts and full regrips; parallel regrips are free), from the home
 * orientation with neutral grippers: an iterative-deepening A* over the
 * cube, the orientation and the gripper stateset of *m, bounded by the
 * robot phase-1 table of t (a QS_METRIC_ROBOT table set) read in the three
 * axis frames. The solution is planned by robot_plan (ROBOT_OBJ_MOVES,
 * under profile *p), whose robot_moves must equal the optimum, and
 * replayed by robot_check before it is written to *out. on_depth gets each
 * length searched (found 0: none that short). Returns ROBOT_OK,
 * ROBOT_ERR_CANCELLED, ROBOT_ERR_NOT_FOUND (optimum beyond max_len),
 * ROBOT_ERR_TABLES, ROBOT_ERR_CUBE (not solvable), ROBOT_ERR_ARGUMENT,
 * ROBOT_ERR_NOMEM, or ROBOT_ERR_COUNT / ROBOT_ERR_NOT_SOLVED / a checker
 * error when the plan disagrees with the search (a bug; the solution is
 * not returned). A solved cube gets the empty solution. stats may be NULL
 * (phase1_nodes counts the nodes, phase1_depth the longest length proven
 * to have no solution). Optima of up to 15 robot moves take seconds on
 * 2 cores, 17 minutes; random cubes may run for days, which only *cancel
 * ends. Re-entrant. */
int robot_solve_optimal(const qs_tables *t, const robot_model *m,
                        const robot_profile *p, const qs_cube *c,
                        const robot_optimal_options *o, robot_solution *out,
                        qs_stats *stats);

#ifdef __cplusplus
}
#endif
#endif
