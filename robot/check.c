/*
 * check.c - the independent checker: a physical replay of robot steps.
 *
 * Nothing here uses robot_model. The orientation is kept as the direction
 * each cube face points (rotated by a matrix per tilt), each gripper as
 * the quarter turns it has made (odd = across its face), and the rules are
 * stated physically: someone must hold the cube, grippers that turn do not
 * regrip, and grippers across on both axes collide. robot_plan's tables
 * state the same mechanics in qphase's terms; agreeing on every plan is
 * the evidence that both are right.
 */
#include "robot.h"
#include "robot_internal.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char grip_names[] = "RLFB";
static const char face_names[] = "URFDLB";

/* Directions of the robot positions U R F D L B: x to R, y up, z to F. */
static const int8_t position_dir[6][3] = {{0, 1, 0},  {1, 0, 0},
                                          {0, 0, 1},  {0, -1, 0},
                                          {-1, 0, 0}, {0, 0, -1}};


void robot_sim_init(robot_sim *s, const qs_cube *cube)
{
    memset(s, 0, sizeof *s);
    memcpy(s->normal, position_dir, sizeof s->normal);
    if (cube)
        s->cube = *cube;
    else
        qs_cube_solved(&s->cube);
}

int robot_sim_face_at(const robot_sim *s, int p)
{
    if (p < 0 || p > 5)
        return -1;
    for (int f = 0; f < 6; f++)
        if (memcmp(s->normal[f], position_dir[p], 3) == 0)
            return f;
    return -1;
}

unsigned robot_sim_across(const robot_sim *s)
{
    unsigned a = 0;
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        if (s->quarters[g] & 1)
            a |= 1u << g;
    return a;
}

/* The gripper at robot position p, or -1 for U and D. */
static int gripper_at(int p)
{
    switch (p) {
    case 1:
        return ROBOT_GRIP_R;
    case 4:
        return ROBOT_GRIP_L;
    case 2:
        return ROBOT_GRIP_F;
    case 5:
        return ROBOT_GRIP_B;
    default:
        return -1;
    }
}

/* The grippers of the axis gripper g is not on. */
static unsigned other_axis(int g)
{
    return g <= ROBOT_GRIP_L ? (1u << ROBOT_GRIP_F | 1u << ROBOT_GRIP_B)
                             : (1u << ROBOT_GRIP_R | 1u << ROBOT_GRIP_L);
}

static int collides(const uint8_t q[ROBOT_GRIPPERS])
{
    int rl = (q[ROBOT_GRIP_R] | q[ROBOT_GRIP_L]) & 1;
    int fb = (q[ROBOT_GRIP_F] | q[ROBOT_GRIP_B]) & 1;
    return rl && fb;
}

/* Names the grippers of mask m ("R", "F and B") into buf. */
static const char *names(unsigned m, char buf[16])
{
    int n = 0;
    buf[0] = '\0';
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        if (m >> g & 1)
            n += sprintf(buf + n, "%s%c", n ? "+" : "", grip_names[g]);
    return buf;
}

static int sim_turn(robot_sim *s, const robot_step *st, int *safe,
                    char *detail, size_t detail_len)
{
    char b1[16];
    int pos[2], q[2], grip[2] = {0, 0};
    if (st->arg >= QS_MOVE_COUNT) {
        robot_set_detail(detail, detail_len, "turn %d is no move", st->arg);
        return ROBOT_ERR_STEP;
    }
    int k = qs_move_decompose(st->arg, pos, q);
    unsigned moving = 0;
    for (int i = 0; i < k; i++) {
        grip[i] = gripper_at(pos[i]);
        if (grip[i] < 0) {
            robot_set_detail(detail, detail_len,
                       "robot %c has no gripper: U and D need a tilt",
                       face_names[pos[i]]);
            return ROBOT_ERR_STEP;
        }
        moving |= 1u << grip[i];
    }
    unsigned regrips = st->regrips;
    if (regrips & moving) {
        robot_set_detail(detail, detail_len, "%s cannot turn and regrip at once",
                   names(regrips & moving, b1));
        return ROBOT_ERR_STEP;
    }
    /* The turning face drags the cube along unless a gripper of the other
     * axis holds it: closed (not regripping) and neutral; as in qphase, a
     * gripper across its face does not count as support. */
    unsigned holders = 0;
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        if ((other_axis(grip[0]) >> g & 1) && !(regrips >> g & 1) &&
            !(s->quarters[g] & 1))
            holders |= 1u << g;
    if (!holders) {
        robot_set_detail(detail, detail_len,
                   "no neutral, closed gripper on the %s axis holds the cube",
                   grip[0] <= ROBOT_GRIP_L ? "F-B" : "R-L");
        return ROBOT_ERR_SUPPORT;
    }
    uint8_t after[ROBOT_GRIPPERS];
    memcpy(after, s->quarters, sizeof after);
    for (int i = 0; i < k; i++)
        after[grip[i]] = (uint8_t)((after[grip[i]] + q[i]) & 3);
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        if (regrips >> g & 1)
            after[g] = (uint8_t)((after[g] + 1) & 3);
    if (collides(after)) {
        robot_set_detail(detail, detail_len,
                   "grippers would stand across on both axes");
        return ROBOT_ERR_COLLISION;
    }
    /* The cube-frame move: the same turns of the faces at those
     * positions. */
    int faces[2] = {robot_sim_face_at(s, pos[0]),
                    k == 2 ? robot_sim_face_at(s, pos[1]) : 0};
    int cm = qs_move_compose(k, faces, q);
    if (cm < 0) {
        robot_set_detail(detail, detail_len,
                         "the faces at the turned positions make no move");
        return ROBOT_ERR_STEP;
    }
    qs_cube_apply_move(&s->cube, (qs_move)cm);
    int stationary = 0;
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        stationary += !(moving >> g & 1) && !(regrips >> g & 1) &&
                      !(s->quarters[g] & 1);
    if (safe)
        *safe = stationary >= 2;
    memcpy(s->quarters, after, sizeof after);
    return ROBOT_OK;
}

/* Rotates every face normal as the tilt turns the cube. */
static void rotate(robot_sim *s, int tilt)
{
    for (int f = 0; f < 6; f++) {
        int x = s->normal[f][0], y = s->normal[f][1], z = s->normal[f][2];
        if (tilt == ROBOT_TILT_RL) { /* about +x by -90 deg: F -> U */
            s->normal[f][1] = (int8_t)z;
            s->normal[f][2] = (int8_t)-y;
        } else { /* about +z by -90 deg: U -> R */
            s->normal[f][0] = (int8_t)y;
            s->normal[f][1] = (int8_t)-x;
        }
    }
}

static int sim_tilt(robot_sim *s, const robot_step *st, char *detail,
                    size_t detail_len)
{
    char b1[16];
    if (st->arg > ROBOT_TILT_FB) {
        robot_set_detail(detail, detail_len, "tilt %d does not exist", st->arg);
        return ROBOT_ERR_STEP;
    }
    unsigned tilting = st->arg == ROBOT_TILT_RL
                           ? (1u << ROBOT_GRIP_R | 1u << ROBOT_GRIP_L)
                           : (1u << ROBOT_GRIP_F | 1u << ROBOT_GRIP_B);
    if (st->regrips & tilting) {
        robot_set_detail(detail, detail_len,
                   "%s turns the cube and cannot regrip during the tilt",
                   names(st->regrips & tilting, b1));
        return ROBOT_ERR_STEP;
    }
    uint8_t after[ROBOT_GRIPPERS];
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        after[g] = (uint8_t)((s->quarters[g] +
                              ((tilting | st->regrips) >> g & 1)) & 3);
    if (collides(after)) {
        robot_set_detail(detail, detail_len,
                   "grippers would stand across on both axes");
        return ROBOT_ERR_COLLISION;
    }
    memcpy(s->quarters, after, sizeof after);
    rotate(s, st->arg);
    return ROBOT_OK;
}

static int sim_regrip(robot_sim *s, const robot_step *st, char *detail,
                      size_t detail_len)
{
    if (st->arg != 0 || st->regrips == 0) {
        robot_set_detail(detail, detail_len, "a full regrip must regrip someone");
        return ROBOT_ERR_STEP;
    }
    int holder = 0;
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        holder |= !(st->regrips >> g & 1) && !(s->quarters[g] & 1);
    if (!holder) {
        robot_set_detail(detail, detail_len,
                   "no neutral gripper stays closed to hold the cube");
        return ROBOT_ERR_SUPPORT;
    }
    uint8_t after[ROBOT_GRIPPERS];
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        after[g] = (uint8_t)((s->quarters[g] + (st->regrips >> g & 1)) & 3);
    if (collides(after)) {
        robot_set_detail(detail, detail_len,
                   "grippers would stand across on both axes");
        return ROBOT_ERR_COLLISION;
    }
    memcpy(s->quarters, after, sizeof after);
    return ROBOT_OK;
}

int robot_sim_step(robot_sim *s, const robot_step *st, int *safe,
                   char *detail, size_t detail_len)
{
    if (safe)
        *safe = 0;
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!s || !st)
        return ROBOT_ERR_ARGUMENT;
    if (st->regrips & ~0xfu) {
        robot_set_detail(detail, detail_len, "regrip mask 0x%x names no gripper",
                   st->regrips);
        return ROBOT_ERR_STEP;
    }
    switch (st->kind) {
    case ROBOT_STEP_TURN:
        return sim_turn(s, st, safe, detail, detail_len);
    case ROBOT_STEP_TILT:
        return sim_tilt(s, st, detail, detail_len);
    case ROBOT_STEP_REGRIP:
        return sim_regrip(s, st, detail, detail_len);
    default:
        robot_set_detail(detail, detail_len, "step kind %d does not exist",
                   st->kind);
        return ROBOT_ERR_STEP;
    }
}

int robot_check(const robot_schedule *plan, const qs_cube *cube,
                const robot_profile *p, char *detail, size_t detail_len)
{
    char why[160], text[64];
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!plan || !cube)
        return ROBOT_ERR_ARGUMENT;
    if (plan->n < 0 || plan->n > ROBOT_MAX_STEPS) {
        robot_set_detail(detail, detail_len, "%d steps", plan->n);
        return ROBOT_ERR_COUNT;
    }
    robot_sim s;
    robot_sim_init(&s, cube);
    int turns = 0, tilts = 0, regrips = 0, safe_turns = 0;
    int64_t us = 0;
    for (int i = 0; i < plan->n; i++) {
        const robot_step *st = &plan->steps[i];
        int safe;
        int rc = robot_sim_step(&s, st, &safe, why, sizeof why);
        if (rc != ROBOT_OK) {
            if (robot_steps_format(st, 1, text, sizeof text) < 0)
                snprintf(text, sizeof text, "?");
            robot_set_detail(detail, detail_len, "step %d (%s): %s", i + 1, text,
                       why);
            return rc;
        }
        turns += st->kind == ROBOT_STEP_TURN;
        tilts += st->kind == ROBOT_STEP_TILT;
        regrips += st->kind == ROBOT_STEP_REGRIP;
        safe_turns += safe;
        if (p)
            us += robot_step_us(p, st);
    }
    if (!qs_cube_is_solved(&s.cube)) {
        robot_set_detail(detail, detail_len, "the cube is not solved after %d steps",
                   plan->n);
        return ROBOT_ERR_NOT_SOLVED;
    }
    if (plan->turns != turns || plan->tilts != tilts ||
        plan->full_regrips != regrips ||
        plan->robot_moves != turns + tilts + regrips ||
        plan->safe != safe_turns) {
        robot_set_detail(detail, detail_len,
                   "plan says %d turns, %d tilts, %d full regrips, %d robot "
                   "moves, %d safe; replay finds %d, %d, %d, %d, %d",
                   plan->turns, plan->tilts, plan->full_regrips,
                   plan->robot_moves, plan->safe, turns, tilts, regrips,
                   turns + tilts + regrips, safe_turns);
        return ROBOT_ERR_COUNT;
    }
    /* Durations are whole microseconds, so the totals compare exactly. */
    if (p && llround(plan->cost_ms * 1000.0) != us) {
        robot_set_detail(detail, detail_len, "plan says %.3f ms, replay finds %.3f",
                   plan->cost_ms, (double)us / 1000.0);
        return ROBOT_ERR_COUNT;
    }
    return ROBOT_OK;
}
