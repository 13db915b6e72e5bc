/*
 * expand.c - from robot steps to the primitive steps a firmware executes,
 * and the cube as the robot sees it.
 *
 * A robot step (turn, tilt, full regrip, each with optional regrips) is a
 * planning unit; a firmware moves grippers, one action each per protocol
 * step, all starting together (protocol version 2: rotate, open, close,
 * regrip, tilt). So every robot step is one primitive, executed as the
 * planner timed it. robot_expand tracks each gripper's physical angle,
 * which the robot model reduces to "across or not", so regrips turn a
 * gripper back to where it started rather than winding it round.
 *
 * robot_prims_us times primitives gripper by gripper under the physical
 * durations of the profile: the "expected" column of quadctl's report.
 *
 * robot_sim_view turns a replayed state into facelets named by robot
 * position, which is what a solver must be given to continue from a cube
 * that the robot holds in some orientation other than home (recovery).
 */
#include "robot.h"
#include "robot_internal.h"

#include <stdbool.h>
#include <string.h>

/* Robot positions U R F D L B: x to R, y up, z to F (robot_sim's frame). */
static const int8_t position_dir[6][3] = {{0, 1, 0},  {1, 0, 0},
                                          {0, 0, 1},  {0, -1, 0},
                                          {-1, 0, 0}, {0, 0, -1}};

/* The robot position of each gripper (R L F B). */
static const int grip_position[ROBOT_GRIPPERS] = {1, 4, 2, 5};

static uint8_t rotation(int quarters)
{
    switch (quarters & 3) {
    case 1: return ROBOT_ACT_CW;
    case 2: return ROBOT_ACT_HALF;
    case 3: return ROBOT_ACT_CCW;
    default: return ROBOT_ACT_NONE;
    }
}

/* Quarter turns of an action that rotates its gripper (CCW is 3). */
static int quarters_of(uint8_t a)
{
    switch (a) {
    case ROBOT_ACT_CW: case ROBOT_ACT_REGRIP_CW: case ROBOT_ACT_TILT_CW:
        return 1;
    case ROBOT_ACT_HALF:
        return 2;
    case ROBOT_ACT_CCW: case ROBOT_ACT_REGRIP_CCW: case ROBOT_ACT_TILT_CCW:
        return 3;
    default:
        return 0;
    }
}

/* An across gripper regrips back to angle 0; a neutral one goes a quarter
 * ahead, towards 1 (so from 2 it goes back to 1, not on to 3). */
static uint8_t regrip_action(int angle)
{
    switch (angle & 3) {
    case 1: return ROBOT_ACT_CCW;
    case 3: return ROBOT_ACT_CW;
    case 2: return ROBOT_ACT_CCW;
    default: return ROBOT_ACT_CW;
    }
}

static int gripper_at(int position)
{
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        if (grip_position[g] == position)
            return g;
    return -1;
}

/* Sets the rotations of a turn step (a quadsolve move read in the robot
 * frame) into a primitive's actions. */
static void set_action(uint8_t action[ROBOT_GRIPPERS], int position, int q)
{
    int g = gripper_at(position);
    /* robot_sim_step has refused turns of U and D already. */
    if (g >= 0)
        action[g] = rotation(q);
}

static void turn_actions(int m, uint8_t action[ROBOT_GRIPPERS])
{
    if (m < 18) {
        set_action(action, m / 3, m % 3 + 1);
        return;
    }
    int axis = (m - 18) / 9;
    set_action(action, axis, (m - 18) / 3 % 3 + 1);
    set_action(action, axis + 3, (m - 18) % 3 + 1);
}

static robot_prim prim(uint16_t step, int role)
{
    robot_prim p;
    memset(&p, 0, sizeof p);
    p.step = step;
    p.role = (uint8_t)role;
    return p;
}

int robot_expand(const robot_step *steps, int n, robot_prim *out, int cap,
                 char *detail, size_t detail_len)
{
    if ((!steps && n > 0) || n < 0 || (!out && cap > 0) || cap < 0 ||
        n > ROBOT_MAX_STEPS)
        return ROBOT_ERR_ARGUMENT;
    robot_sim rs;
    robot_sim_init(&rs, NULL);
    int angle[ROBOT_GRIPPERS] = {0, 0, 0, 0};
    int k = 0;
    for (int i = 0; i < n; i++) {
        const robot_step *s = &steps[i];
        char why[160];
        /* The model's checker guards the firmware from a bad plan: what
         * it refuses would be refused (or worse, done) by the robot. */
        int rc = robot_sim_step(&rs, s, NULL, why, sizeof why);
        if (rc != ROBOT_OK) {
            robot_set_detail(detail, detail_len, "step %d: %s", i + 1, why);
            return rc;
        }
        if (k + 1 > cap) {
            robot_set_detail(detail, detail_len,
                             "more than %d primitive steps", cap);
            return ROBOT_ERR_BUFFER;
        }
        robot_prim mid = prim((uint16_t)i, ROBOT_PRIM_MOTION);
        for (int g = 0; g < ROBOT_GRIPPERS; g++)
            if (s->regrips >> g & 1)
                mid.action[g] = regrip_action(angle[g]) == ROBOT_ACT_CW
                                    ? ROBOT_ACT_REGRIP_CW
                                    : ROBOT_ACT_REGRIP_CCW;
        if (s->kind == ROBOT_STEP_TURN) {
            turn_actions(s->arg, mid.action);
        } else if (s->kind == ROBOT_STEP_TILT) {
            /* R +90 with L -90 turns the whole cube like R (tRL); F and B
             * like F (tFB). The firmware opens the other axis before and
             * closes it after. */
            int g0 = s->arg == ROBOT_TILT_RL ? ROBOT_GRIP_R : ROBOT_GRIP_F;
            mid.action[g0] = ROBOT_ACT_TILT_CW;
            mid.action[g0 + 1] = ROBOT_ACT_TILT_CCW;
        }
        out[k++] = mid;
        for (int g = 0; g < ROBOT_GRIPPERS; g++)
            angle[g] = (angle[g] + quarters_of(mid.action[g])) & 3;
    }
    return k;
}

/* ----------------------------------------------------------------- times */

/* Per gripper, then the longest: the physics of robot_step_us, read from
 * the actions (so it also times primitives written by hand, with OPEN,
 * CLOSE and rotations of open grippers). */
int robot_prims_us(const robot_profile *p, const robot_prim *prims, int n,
                   int64_t *us)
{
    if (!p || (!prims && n > 0) || (!us && n > 0) || n < 0)
        return ROBOT_ERR_ARGUMENT;
    unsigned closed = 0x0Fu;
    double free_q = robot_free_quarter_ms(p);
    for (int i = 0; i < n; i++) {
        const uint8_t *a = prims[i].action;
        unsigned turning = 0, tilting = 0;
        int half[2] = {0, 0};
        for (int g = 0; g < ROBOT_GRIPPERS; g++) {
            int q = quarters_of(a[g]);
            if (a[g] == ROBOT_ACT_TILT_CW || a[g] == ROBOT_ACT_TILT_CCW)
                tilting |= 1u << g;
            else if (a[g] <= ROBOT_ACT_HALF && q && (closed >> g & 1)) {
                turning |= 1u << g;
                half[g / 2] |= q == 2;
            }
        }
        double ms = 0;
        for (int g = 0; g < ROBOT_GRIPPERS; g++) {
            int q = quarters_of(a[g]);
            double t = 0;
            if (tilting) {
                /* The other axis: open, wait for the tilt (or its own
                 * free rotation), close. */
                double mid = p->tilt_ms + p->settle_ms;
                if (!(tilting >> g & 1)) {
                    double r = q ? free_q : 0; /* a regrip: a quarter */
                    t = p->open_ms + (r > mid ? r : mid) + p->close_ms;
                }
            } else if (turning >> g & 1) {
                /* A pair: both grippers of the axis turn their faces. */
                bool pair = turning >> (g ^ 1) & 1;
                bool h = half[g / 2];
                t = (pair ? (h ? p->pair_half_ms : p->pair_quarter_ms)
                          : (h ? p->half_ms : p->quarter_ms)) +
                    p->settle_ms;
            } else if (a[g] == ROBOT_ACT_REGRIP_CW ||
                       a[g] == ROBOT_ACT_REGRIP_CCW) {
                t = p->open_ms + free_q + p->close_ms;
            } else if (q) {
                t = (q == 2 ? 2 : 1) * free_q; /* an open gripper turning */
            } else if (a[g] == ROBOT_ACT_OPEN) {
                t = p->open_ms;
            } else if (a[g] == ROBOT_ACT_CLOSE) {
                t = p->close_ms;
            }
            ms = t > ms ? t : ms;
        }
        us[i] = (int64_t)(ms * 1000.0 + 0.5);
        for (int g = 0; g < ROBOT_GRIPPERS; g++) {
            if (a[g] == ROBOT_ACT_OPEN)
                closed &= ~(1u << g);
            if (a[g] == ROBOT_ACT_CLOSE)
                closed |= 1u << g;
        }
    }
    return ROBOT_OK;
}

/* ------------------------------------------------------------------ view */

/* The centre-relative position of sticker i (0..8, reading order) of the
 * face whose outward direction is position p, in the home frame, for
 * quadsolve's facelet layout: U seen from above with B at the top, D from
 * below with F at the top, the side faces upright, each seen from outside
 * (R with F on its left, L with B on its left, B with R on its left). */
static void sticker_place(int p, int i, int8_t v[3])
{
    int row = i / 3, col = i % 3;
    switch (p) {
    case 0: v[0] = (int8_t)(col - 1); v[1] = 1; v[2] = (int8_t)(row - 1); break;
    case 1: v[0] = 1; v[1] = (int8_t)(1 - row); v[2] = (int8_t)(1 - col); break;
    case 2: v[0] = (int8_t)(col - 1); v[1] = (int8_t)(1 - row); v[2] = 1; break;
    case 3: v[0] = (int8_t)(col - 1); v[1] = -1; v[2] = (int8_t)(1 - row); break;
    case 4: v[0] = -1; v[1] = (int8_t)(1 - row); v[2] = (int8_t)(col - 1); break;
    default: v[0] = (int8_t)(1 - col); v[1] = (int8_t)(1 - row); v[2] = -1; break;
    }
}

static int position_of(const int8_t d[3])
{
    for (int p = 0; p < 6; p++)
        if (memcmp(position_dir[p], d, 3) == 0)
            return p;
    return -1;
}

void robot_sim_view(const robot_sim *s, char out[55])
{
    static const char names[] = "URFDLB";
    char cube[55];
    qs_cube_to_facelets(&s->cube, cube);
    /* The rotation from the cube's frame to the robot's: its columns are
     * where the cube's R (x), U (y) and F (z) faces point now. */
    const int8_t *cx = s->normal[1], *cy = s->normal[0], *cz = s->normal[2];
    for (int f = 0; f < 6; f++) {
        /* Sticker (f, i) in the cube's frame goes to a place in the robot
         * frame on the face at the robot position f's normal points to. */
        int p = position_of(s->normal[f]);
        for (int i = 0; i < 9; i++) {
            int8_t v[3], w[3];
            sticker_place(f, i, v);
            for (int a = 0; a < 3; a++)
                w[a] = (int8_t)(cx[a] * v[0] + cy[a] * v[1] + cz[a] * v[2]);
            /* Find which sticker of robot face p sits at w. */
            for (int j = 0; j < 9; j++) {
                int8_t u[3];
                sticker_place(p, j, u);
                if (memcmp(u, w, 3) == 0) {
                    /* Its colour is that of cube face cube[f*9+i]; name it
                     * by where that face's centre is now. */
                    int colour = (int)(strchr(names, cube[f * 9 + i]) - names);
                    out[p * 9 + j] = names[position_of(s->normal[colour])];
                    break;
                }
            }
        }
    }
    out[54] = '\0';
}
