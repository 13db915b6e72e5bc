/*
 * model.c - the tables of the robot model: the gripper-state automaton
 * (state transitions for every turn, tilt and full regrip with every
 * regrip mask, the qphase "safe" flag, and the forward and inverse stateset
 * transitions) and the 24 orientations with the cube-frame to robot-frame
 * move mapping. Also the state names and error messages.
 *
 * The transition rules are written the way qphase states them (blocked
 * grippers before and after a move on the other axis, valid states), not
 * the way the checker (check.c) does (a supporting gripper), so the tests
 * comparing the two compare two readings of the mechanics.
 */
#include "robot.h"
#include "robot_internal.h"

#include <string.h>

/* qphase's state order, by grippers across: none, L, R, RL, F, B, FB. */
static const uint8_t state_across_mask[ROBOT_STATES] = {
    0x0, 0x2, 0x1, 0x3, 0x4, 0x8, 0xc};
static const char *const state_names[ROBOT_STATES] = {
    "RLFB", "RFB", "LFB", "FB", "RLB", "RLF", "RL"};

/* Robot positions U R F D L B (0..5) to grippers; U and D have none. */
static const int8_t grip_of_pos[6] = {-1, ROBOT_GRIP_R, ROBOT_GRIP_F,
                                      -1, ROBOT_GRIP_L, ROBOT_GRIP_B};

unsigned robot_state_across(int state)
{
    return state >= 0 && state < ROBOT_STATES ? state_across_mask[state] : 0;
}

int robot_state_of(unsigned across)
{
    for (int s = 0; s < ROBOT_STATES; s++)
        if (state_across_mask[s] == across)
            return s;
    return -1;
}

const char *robot_state_name(int state)
{
    return state >= 0 && state < ROBOT_STATES ? state_names[state] : "?";
}

int robot_step_op(const robot_step *s)
{
    if (!s)
        return -1;
    switch (s->kind) {
    case ROBOT_STEP_TURN:
        return s->arg < QS_MOVE_COUNT ? s->arg : -1;
    case ROBOT_STEP_TILT:
        return s->arg <= ROBOT_TILT_FB ? ROBOT_OP_TILT_RL + s->arg : -1;
    case ROBOT_STEP_REGRIP:
        return s->arg == 0 ? ROBOT_OP_REGRIP : -1;
    default:
        return -1;
    }
}

static int blocked_rl(unsigned a)
{
    return (a & ROBOT_MASK_RL) != 0;
}

static int blocked_fb(unsigned a)
{
    return (a & ROBOT_MASK_FB) != 0;
}

/* No collision: grippers across on at most one axis. */
static int valid(unsigned a)
{
    return !(blocked_rl(a) && blocked_fb(a));
}

static int popcount4(unsigned x)
{
    return (x & 1) + (x >> 1 & 1) + (x >> 2 & 1) + (x >> 3 & 1);
}

/* The grippers turned by robot-frame move m and which of them end a
 * quarter turn away (they flip between neutral and across); returns 0 when
 * m turns U or D, which has no gripper. */
static int turn_masks(int m, unsigned *moving, unsigned *flipping)
{
    int face[2], q[2];
    int k = qs_move_decompose((qs_move)m, face, q);
    *moving = *flipping = 0;
    for (int i = 0; i < k; i++) {
        int g = grip_of_pos[face[i]];
        if (g < 0)
            return 0;
        *moving |= 1u << g;
        if (q[i] != 2)
            *flipping |= 1u << g;
    }
    return 1;
}

/* One transition in qphase's terms; returns the next state or -1. */
static int transition(int state, int op, unsigned regrips, int *safe)
{
    unsigned a = state_across_mask[state], after;
    *safe = 0;
    if (op < QS_MOVE_COUNT) {
        unsigned moving, flipping;
        if (!turn_masks(op, &moving, &flipping))
            return -1;
        unsigned ortho = (moving & ROBOT_MASK_RL) ? ROBOT_MASK_FB
                                                  : ROBOT_MASK_RL;
        /* Regrip options: the idle face of the turning axis and at most
         * one face of the other axis (both open would drop the cube). */
        if ((regrips & moving) || (regrips & ortho) == ortho)
            return -1;
        /* The other axis must not be entirely across before or after:
         * one of its grippers has to hold the cube during the turn. */
        if ((a & ortho) == ortho)
            return -1;
        after = a ^ flipping ^ regrips;
        if ((after & ortho) == ortho || !valid(after))
            return -1;
        /* Safe: two grippers that take no part and are not across. */
        *safe = popcount4(~moving & ~regrips & ~a & 0xfu) >= 2;
    } else if (op == ROBOT_OP_TILT_RL || op == ROBOT_OP_TILT_FB) {
        unsigned tilting =
            op == ROBOT_OP_TILT_RL ? ROBOT_MASK_RL : ROBOT_MASK_FB;
        /* Only the released axis is open and free to regrip. */
        if (regrips & tilting)
            return -1;
        after = a ^ tilting ^ regrips;
        if (!valid(after))
            return -1;
    } else if (op == ROBOT_OP_REGRIP) {
        /* Anchored on some neutral gripper that stays closed. */
        if (!(~a & ~regrips & 0xfu))
            return -1;
        after = a ^ regrips;
        if (!valid(after))
            return -1;
    } else {
        return -1;
    }
    return robot_state_of(after);
}

/* Unit normals of the faces U R F D L B in the robot frame (x to R, y to
 * U, z to F). */
static const int8_t normal[6][3] = {{0, 1, 0},  {1, 0, 0},  {0, 0, 1},
                                    {0, -1, 0}, {-1, 0, 0}, {0, 0, -1}};

static int face_of_normal(int x, int y, int z)
{
    for (int f = 0; f < 6; f++)
        if (normal[f][0] == x && normal[f][1] == y && normal[f][2] == z)
            return f;
    return -1;
}

int robot_orientation(int up, int front)
{
    if (up < 0 || up > 5 || front < 0 || front > 5 || up % 3 == front % 3)
        return -1;
    /* Candidates for the front in the order F R B L U D, so that home
     * (U up, F front) is orientation 0. */
    static const int order[6] = {2, 1, 5, 4, 0, 3};
    int j = 0;
    for (int i = 0; order[i] != front; i++)
        if (order[i] % 3 != up % 3)
            j++;
    return up * 4 + j;
}

/* Fills face_at[o] from the faces at U and F: D and B are their
 * opposites, R = U x F (right-handed frame), L its opposite. */
static void orientation_faces(int up, int front, uint8_t at[6])
{
    const int8_t *u = normal[up], *f = normal[front];
    int r = face_of_normal(u[1] * f[2] - u[2] * f[1], u[2] * f[0] - u[0] * f[2],
                           u[0] * f[1] - u[1] * f[0]);
    at[0] = (uint8_t)up;
    at[3] = (uint8_t)((up + 3) % 6);
    at[2] = (uint8_t)front;
    at[5] = (uint8_t)((front + 3) % 6);
    at[1] = (uint8_t)r;
    at[4] = (uint8_t)((r + 3) % 6);
}

/* Tilts as position permutations: after the tilt, position p holds what
 * position src[p] held. tRL (x): F->U, D->F, B->D, U->B. tFB (z): U->R,
 * R->D, D->L, L->U. */
static const uint8_t tilt_src[2][6] = {
    {2, 1, 3, 5, 4, 0}, /* tRL */
    {4, 0, 2, 1, 3, 5}, /* tFB */
};

static void build_orientations(robot_model *m)
{
    for (int up = 0; up < 6; up++)
        for (int front = 0; front < 6; front++) {
            int o = robot_orientation(up, front);
            if (o >= 0)
                orientation_faces(up, front, m->face_at[o]);
        }
    for (int o = 0; o < ROBOT_ORIENTATIONS; o++) {
        for (int t = 0; t < 2; t++) {
            uint8_t at[6];
            for (int p = 0; p < 6; p++)
                at[p] = m->face_at[o][tilt_src[t][p]];
            m->tilt[o][t] = (uint8_t)robot_orientation(at[0], at[2]);
        }
        /* pos[f]: robot position of cube face f. */
        int pos[6];
        for (int p = 0; p < 6; p++)
            pos[m->face_at[o][p]] = p;
        for (int cm = 0; cm < QS_MOVE_COUNT; cm++) {
            int face[2], q[2];
            int k = qs_move_decompose((qs_move)cm, face, q);
            /* The same turns of the faces at those positions. */
            int where[2] = {pos[face[0]], k == 2 ? pos[face[1]] : 0};
            int rm = qs_move_compose(k, where, q);
            m->to_cube[o][rm] = (uint8_t)cm;
            /* The face directions of the move are unchanged: a turn is
             * clockwise seen from its own face in either frame. */
            m->to_robot[o][cm] =
                pos[face[0]] % 3 == 0 ? ROBOT_NO_MOVE : (uint8_t)rm;
        }
    }
}

void robot_model_init(robot_model *m)
{
    memset(m, 0, sizeof *m);
    for (int s = 0; s < ROBOT_STATES; s++)
        for (int op = 0; op < ROBOT_OPS; op++)
            for (unsigned r = 0; r < 16; r++) {
                int safe;
                int next = transition(s, op, r, &safe);
                m->next_state[s][op][r] = (int8_t)next;
                m->safe[s][op][r] = (uint8_t)(next >= 0 && safe);
                if (next < 0)
                    continue;
                for (int set = 0; set < ROBOT_STATESETS; set++) {
                    if (set >> s & 1)
                        m->nextset[set][op] |= (uint8_t)(1u << next);
                    if (set >> next & 1)
                        m->nextiset[set][op] |= (uint8_t)(1u << s);
                }
            }
    build_orientations(m);
}

/* ---------------------------------------------------------------- errors */

struct error_text {
    int code;
    const char *id;
    const char *message;
};

/* The identifiers appear in the CLI's output, so they never change. */
static const struct error_text errors[] = {
    {ROBOT_OK, "OK", "success"},
    {ROBOT_ERR_ARGUMENT, "ARGUMENT", "argument out of range"},
    {ROBOT_ERR_NOMEM, "NOMEM", "out of memory"},
    {ROBOT_ERR_BUFFER, "BUFFER", "buffer too small"},
    {ROBOT_ERR_MOVE, "MOVE", "move out of range"},
    {ROBOT_ERR_TOO_LONG, "TOO_LONG", "too many moves"},
    {ROBOT_ERR_SYNTAX, "SYNTAX", "robot sequence does not parse"},
    {ROBOT_ERR_PROFILE_NAME, "PROFILE_NAME", "no such profile"},
    {ROBOT_ERR_PROFILE_IO, "PROFILE_IO", "profile file cannot be read"},
    {ROBOT_ERR_PROFILE_JSON, "PROFILE_JSON",
     "profile is not a valid JSON object"},
    {ROBOT_ERR_PROFILE_KEY, "PROFILE_KEY", "unknown or repeated profile key"},
    {ROBOT_ERR_PROFILE_TYPE, "PROFILE_TYPE",
     "profile value of the wrong type"},
    {ROBOT_ERR_PROFILE_VALUE, "PROFILE_VALUE",
     "profile duration out of range"},
    {ROBOT_ERR_PROFILE_MISSING, "PROFILE_MISSING",
     "profile lacks a duration"},
    {ROBOT_ERR_STEP, "STEP", "malformed robot step"},
    {ROBOT_ERR_SUPPORT, "SUPPORT", "no gripper would hold the cube"},
    {ROBOT_ERR_COLLISION, "COLLISION", "grippers would collide"},
    {ROBOT_ERR_NOT_SOLVED, "NOT_SOLVED", "the cube is not solved"},
    {ROBOT_ERR_COUNT, "COUNT", "plan counts or cost are wrong"},
    {ROBOT_ERR_TABLES, "TABLES", "not a robot-metric table set"},
    {ROBOT_ERR_CUBE, "CUBE", "the cube is not solvable"},
    {ROBOT_ERR_CANCELLED, "CANCELLED", "search cancelled"},
    {ROBOT_ERR_TIMEOUT, "TIMEOUT", "no solution within the time limit"},
    {ROBOT_ERR_NOT_FOUND, "NOT_FOUND", "no solution within the length limit"},
    {ROBOT_ERR_THREAD, "THREAD", "a worker thread could not be started"},
};

static const struct error_text *lookup(int err)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == err)
            return &errors[i];
    return NULL;
}

const char *robot_strerror(int err)
{
    const struct error_text *e = lookup(err);
    return e ? e->message : "unknown error";
}

const char *robot_errcode(int err)
{
    const struct error_text *e = lookup(err);
    return e ? e->id : "UNKNOWN";
}

int robot_engine_error(int qs_err)
{
    switch (qs_err) {
    case QS_OK:
        return ROBOT_OK;
    case QS_ERR_CANCELLED:
        return ROBOT_ERR_CANCELLED;
    case QS_ERR_TIMEOUT:
        return ROBOT_ERR_TIMEOUT;
    case QS_ERR_NOT_FOUND:
        return ROBOT_ERR_NOT_FOUND;
    case QS_ERR_NOMEM:
        return ROBOT_ERR_NOMEM;
    case QS_ERR_THREAD:
        return ROBOT_ERR_THREAD;
    case QS_ERR_TABLES:
        return ROBOT_ERR_TABLES;
    default:
        return ROBOT_ERR_ARGUMENT;
    }
}

int robot_steps_to_moves(const robot_model *m, const robot_step *steps,
                         int n, qs_move *out, int max)
{
    if (!m || n < 0 || (n > 0 && !steps) || max < 0 || (max > 0 && !out))
        return ROBOT_ERR_ARGUMENT;
    int o = 0, count = 0;
    for (int i = 0; i < n; i++) {
        if (robot_step_op(&steps[i]) < 0)
            return ROBOT_ERR_STEP;
        if (steps[i].kind == ROBOT_STEP_TILT) {
            o = m->tilt[o][steps[i].arg];
        } else if (steps[i].kind == ROBOT_STEP_TURN) {
            if (count == max)
                return ROBOT_ERR_BUFFER;
            out[count++] = (qs_move)m->to_cube[o][steps[i].arg];
        }
    }
    return count;
}
