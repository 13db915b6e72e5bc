/*
 * model.c - quadsim's physical robot: gripper angles and grips, where each
 * cube face points, and the cube, moved by the protocol's primitive steps.
 *
 * A step gives every gripper one action, all performed at once. What the
 * cube does follows from which grippers are closed and which of those
 * rotate: closed grippers that keep still hold the cube, closed grippers
 * that rotate turn their face against them (a face turn) or, when nothing
 * else holds the cube, turn the whole cube between them (the rotation of
 * a tilt). Open grippers rotate freely (the middle of a regrip). The rules
 * are the mechanics of docs/robot-model.md, stated for single actions;
 * docs/quadsim.md lists them. Nothing here uses the robot library's tables,
 * so tests can hold the two against each other.
 */
#include "sim.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char grip_names[] = "RLFB";
static const char face_names[] = "URFDLB";

/* Directions of the robot positions U R F D L B: x to R, y up, z to F. */
static const int8_t position_dir[6][3] = {{0, 1, 0},  {1, 0, 0},
                                          {0, 0, 1},  {0, -1, 0},
                                          {-1, 0, 0}, {0, 0, -1}};

/* The robot position each gripper stands at (fwp_gripper order). */
static const int grip_position[FWP_GRIPPERS] = {1, 4, 2, 5};

const char *sim_strerror(int err)
{
    switch (err) {
    case SIM_OK: return "success";
    case SIM_ERR_ARGUMENT: return "invalid argument";
    case SIM_ERR_ACTION: return "unknown gripper action";
    case SIM_ERR_GRIP: return "gripper already open or closed";
    case SIM_ERR_DROP: return "no gripper would hold the cube";
    case SIM_ERR_SUPPORT:
        return "no neutral closed gripper of the other axis holds the cube";
    case SIM_ERR_JAM: return "grippers of both axes would turn at once";
    case SIM_ERR_TILT: return "the cube cannot be turned that way";
    case SIM_ERR_GRIP_MOVING:
        return "a gripper would open or close on a moving face";
    case SIM_ERR_COLLISION: return "grippers would stand across on both axes";
    case SIM_ERR_USAGE: return "bad command line";
    case SIM_ERR_IO: return "input/output error";
    case SIM_ERR_OPEN_TURN: return "an open gripper cannot turn its face";
    default: return "unknown error";
    }
}

const char *sim_errcode(int err)
{
    switch (err) {
    case SIM_OK: return "OK";
    case SIM_ERR_ARGUMENT: return "ARGUMENT";
    case SIM_ERR_ACTION: return "ACTION";
    case SIM_ERR_GRIP: return "GRIP";
    case SIM_ERR_DROP: return "DROP";
    case SIM_ERR_SUPPORT: return "SUPPORT";
    case SIM_ERR_JAM: return "JAM";
    case SIM_ERR_TILT: return "TILT";
    case SIM_ERR_GRIP_MOVING: return "GRIP_MOVING";
    case SIM_ERR_COLLISION: return "COLLISION";
    case SIM_ERR_USAGE: return "USAGE";
    case SIM_ERR_IO: return "IO";
    case SIM_ERR_OPEN_TURN: return "OPEN_TURN";
    default: return "UNKNOWN";
    }
}

void sim_robot_init(sim_robot *r, const qs_cube *cube)
{
    memset(r, 0, sizeof *r);
    memcpy(r->normal, position_dir, sizeof r->normal);
    r->closed = 0x0F;
    if (cube)
        r->cube = *cube;
    else
        qs_cube_solved(&r->cube);
}

void sim_robot_home(sim_robot *r)
{
    memset(r->quarters, 0, sizeof r->quarters);
    r->closed = 0x0F;
}

int sim_robot_face_at(const sim_robot *r, int p)
{
    if (!r || p < 0 || p > 5)
        return -1;
    for (int f = 0; f < 6; f++)
        if (memcmp(r->normal[f], position_dir[p], 3) == 0)
            return f;
    return -1;
}

unsigned sim_robot_across(const sim_robot *r)
{
    unsigned a = 0;
    for (int g = 0; g < FWP_GRIPPERS; g++)
        if (r->quarters[g] & 1)
            a |= 1u << g;
    return a;
}

void sim_robot_describe(const sim_robot *r, char *buf, size_t len)
{
    int up = sim_robot_face_at(r, 0), front = sim_robot_face_at(r, 2);
    snprintf(buf, len, "R=%u%c L=%u%c F=%u%c B=%u%c up=%c front=%c",
             r->quarters[0], (r->closed & 1) ? 'c' : 'o', r->quarters[1],
             (r->closed & 2) ? 'c' : 'o', r->quarters[2],
             (r->closed & 4) ? 'c' : 'o', r->quarters[3],
             (r->closed & 8) ? 'c' : 'o', up >= 0 ? face_names[up] : '?',
             front >= 0 ? face_names[front] : '?');
}

/* R and L are axis 0 (x), F and B axis 1 (z). */
static int axis_of(int g)
{
    return g >= FWP_GRIPPER_F;
}

static unsigned axis_mask(int axis)
{
    return axis ? 0x0Cu : 0x03u;
}

static int fail(sim_motion *m, int err, int gripper, char *detail,
                size_t detail_len, const char *fmt, ...)
    __attribute__((format(printf, 6, 7)));

static int fail(sim_motion *m, int err, int gripper, char *detail,
                size_t detail_len, const char *fmt, ...)
{
    m->gripper = (int8_t)gripper;
    if (detail && detail_len) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, detail_len, fmt, ap);
        va_end(ap);
    }
    return err;
}

/* The lowest gripper of a mask, or -1. */
static int first_of(unsigned mask)
{
    for (int g = 0; g < FWP_GRIPPERS; g++)
        if (mask >> g & 1)
            return g;
    return -1;
}

/* Names the grippers of a mask: "R", "F+B". */
static const char *names(unsigned mask, char buf[8])
{
    int n = 0;
    for (int g = 0; g < FWP_GRIPPERS; g++)
        if (mask >> g & 1) {
            if (n)
                buf[n++] = '+';
            buf[n++] = grip_names[g];
        }
    buf[n] = '\0';
    return buf;
}

/* Turns every face normal with the whole cube: q quarter turns clockwise
 * seen from robot position p, i.e. by -90 degrees per quarter about that
 * position's direction d: v' = (d.v) d - d x v (Rodrigues at -90). */
static void rotate_cube(sim_robot *r, int p, int q)
{
    const int8_t *d = position_dir[p];
    for (int i = 0; i < q; i++)
        for (int f = 0; f < 6; f++) {
            int8_t *v = r->normal[f];
            int dot = d[0] * v[0] + d[1] * v[1] + d[2] * v[2];
            int cx = d[1] * v[2] - d[2] * v[1];
            int cy = d[2] * v[0] - d[0] * v[2];
            int cz = d[0] * v[1] - d[1] * v[0];
            v[0] = (int8_t)(dot * d[0] - cx);
            v[1] = (int8_t)(dot * d[1] - cy);
            v[2] = (int8_t)(dot * d[2] - cz);
        }
}

static int quarters_of(uint8_t action)
{
    switch (action) {
    case FWP_ACT_CW: case FWP_ACT_REGRIP_CW: case FWP_ACT_TILT_CW: return 1;
    case FWP_ACT_HALF: return 2;
    case FWP_ACT_CCW: case FWP_ACT_REGRIP_CCW: case FWP_ACT_TILT_CCW: return 3;
    default: return 0;
    }
}

static bool is_tilt(uint8_t a)
{
    return a == FWP_ACT_TILT_CW || a == FWP_ACT_TILT_CCW;
}

static bool is_regrip(uint8_t a)
{
    return a == FWP_ACT_REGRIP_CW || a == FWP_ACT_REGRIP_CCW;
}

/* Open or closed, across jaws of both axes meet at an edge. Like the
 * robot model, judged by the position after the step. */
static int check_collision(const sim_robot *after, unsigned moved,
                           sim_motion *m, char *detail, size_t detail_len)
{
    char b1[8], b2[8];
    unsigned across = sim_robot_across(after);
    if ((across & 0x03u) && (across & 0x0Cu)) {
        moved &= across;
        return fail(m, SIM_ERR_COLLISION, moved ? first_of(moved) : -1,
                    detail, detail_len,
                    "%s and %s would stand across at once",
                    names(across & 0x03u, b1), names(across & 0x0Cu, b2));
    }
    return SIM_OK;
}

/* A tilt step: one axis carries TILT actions, the other lets go (and may
 * regrip meanwhile), then closes again. */
static int tilt_step(sim_robot *r, const fwp_step *st, sim_motion *m,
                     char *detail, size_t detail_len)
{
    char b1[8];
    unsigned tilting = 0;
    for (int g = 0; g < FWP_GRIPPERS; g++)
        if (is_tilt(st->action[g]))
            tilting |= 1u << g;
    int axis = axis_of(first_of(tilting));
    unsigned same = axis_mask(axis), other = axis_mask(!axis);
    if (tilting != same)
        return fail(m, SIM_ERR_TILT, first_of(tilting & other ? tilting & other
                                                               : same & ~tilting),
                    detail, detail_len,
                    "a tilt needs both grippers of one axis to carry the cube "
                    "(TILT actions on %s)", names(tilting, b1));
    int g0 = first_of(same), g1 = g0 + 1;
    if (st->action[g0] == st->action[g1])
        return fail(m, SIM_ERR_TILT, g1, detail, detail_len,
                    "%c and %c would twist the cube against each other: a "
                    "tilt turns them opposite ways",
                    grip_names[g0], grip_names[g1]);
    if ((r->closed & same) != same)
        return fail(m, SIM_ERR_TILT, first_of(same & ~r->closed), detail,
                    detail_len, "%s is open and cannot carry the cube",
                    names(same & ~r->closed, b1));
    for (int g = 0; g < FWP_GRIPPERS; g++) {
        if (!(other >> g & 1))
            continue;
        uint8_t a = st->action[g];
        if (a != FWP_ACT_NONE && !is_regrip(a))
            return fail(m, SIM_ERR_GRIP_MOVING, g, detail, detail_len,
                        "%c lets go during a tilt: it may only regrip or wait",
                        grip_names[g]);
        if (!(r->closed >> g & 1))
            return fail(m, SIM_ERR_GRIP, g, detail, detail_len,
                        "%c is already open: a tilt opens the other axis "
                        "itself", grip_names[g]);
    }
    sim_robot after = *r;
    m->kind = SIM_MOTION_TILT;
    for (int g = 0; g < FWP_GRIPPERS; g++) {
        int q = quarters_of(st->action[g]);
        after.quarters[g] = (uint8_t)((after.quarters[g] + q) & 3);
        if (tilting >> g & 1) {
            m->what[g] = SIM_DO_TILT;
            m->turn[g] = (uint8_t)q;
        } else {
            m->what[g] = SIM_DO_RELEASE;
            m->free_q[g] = q ? 1 : 0;
        }
    }
    rotate_cube(&after, grip_position[g0], quarters_of(st->action[g0]));
    int rc = check_collision(&after, same | other, m, detail, detail_len);
    if (rc != SIM_OK)
        return rc;
    *r = after;
    return SIM_OK;
}

int sim_robot_step(sim_robot *r, const fwp_step *st, sim_motion *mo,
                   char *detail, size_t detail_len)
{
    sim_motion scratch;
    sim_motion *m = mo ? mo : &scratch;
    char b1[8], b2[8];
    memset(m, 0, sizeof *m);
    m->gripper = -1;
    if (detail && detail_len)
        detail[0] = '\0';
    if (!r || !st)
        return SIM_ERR_ARGUMENT;

    unsigned turning = 0, holding = 0, gripping = 0, tilting = 0;
    int rot[FWP_GRIPPERS];
    for (int g = 0; g < FWP_GRIPPERS; g++) {
        uint8_t a = st->action[g];
        bool closed = r->closed >> g & 1;
        if (a > FWP_ACT_MAX)
            return fail(m, SIM_ERR_ACTION, g, detail, detail_len,
                        "%c: action %u does not exist", grip_names[g], a);
        /* A redundant grip action is a planning bug on the host: refusing
         * it finds that bug where it is made. */
        if (a == FWP_ACT_OPEN && !closed)
            return fail(m, SIM_ERR_GRIP, g, detail, detail_len,
                        "%c is already open", grip_names[g]);
        if (a == FWP_ACT_CLOSE && closed)
            return fail(m, SIM_ERR_GRIP, g, detail, detail_len,
                        "%c is already closed", grip_names[g]);
        if (is_regrip(a) && !closed)
            return fail(m, SIM_ERR_GRIP, g, detail, detail_len,
                        "%c is open: a regrip starts closed", grip_names[g]);
        rot[g] = quarters_of(a);
        if (is_tilt(a))
            tilting |= 1u << g;
        else if (a <= FWP_ACT_HALF && rot[g] && !closed)
            /* Protocol 2 spells a free rotation as REGRIP; an open gripper
             * asked to turn would leave its face where it is. */
            return fail(m, SIM_ERR_OPEN_TURN, g, detail, detail_len,
                        "%c is open and cannot turn its face",
                        grip_names[g]);
        else if (a <= FWP_ACT_HALF && rot[g])
            turning |= 1u << g;
        else if (a == FWP_ACT_NONE && closed)
            holding |= 1u << g;
        else if (a != FWP_ACT_NONE)
            gripping |= 1u << g; /* opens, closes or regrips: holds nothing */
    }
    if (tilting) {
        if (turning)
            return fail(m, SIM_ERR_JAM, first_of(turning), detail, detail_len,
                        "%s turns a face while the cube tilts",
                        names(turning, b1));
        return tilt_step(r, st, m, detail, detail_len);
    }

    sim_robot after = *r;
    if (turning) {
        if ((turning & 0x03u) && (turning & 0x0Cu))
            return fail(m, SIM_ERR_JAM, first_of(turning & 0x0Cu), detail,
                        detail_len,
                        "%s and %s turn at once: their layers cross",
                        names(turning & 0x03u, b1), names(turning & 0x0Cu, b2));
        int axis = axis_of(first_of(turning));
        unsigned other = axis_mask(!axis), same = axis_mask(axis);
        if (holding & other) {
            /* The other axis holds the middle layer still: each turning
             * gripper turns its own face. As in the robot model, a
             * gripper across its face does not hold for this. */
            unsigned neutral = 0;
            for (int g = 0; g < FWP_GRIPPERS; g++)
                if ((holding & other) >> g & 1 && !(r->quarters[g] & 1))
                    neutral |= 1u << g;
            if (!neutral)
                return fail(m, SIM_ERR_SUPPORT, first_of(holding & other),
                            detail, detail_len,
                            "%s stand%s across and cannot hold the cube for "
                            "a turn of %s",
                            names(holding & other, b1),
                            (holding & other) == other ? "" : "s",
                            names(turning, b2));
            m->kind = SIM_MOTION_TURN;
            m->pair = turning == same;
            for (int g = 0; g < FWP_GRIPPERS; g++) {
                if (!(turning >> g & 1))
                    continue;
                int p = grip_position[g];
                int f = sim_robot_face_at(r, p);
                m->turn[g] = (uint8_t)rot[g];
                m->what[g] = SIM_DO_TURN;
                m->half |= rot[g] == 2;
                qs_cube_apply_move(&after.cube, (qs_move)(f * 3 + rot[g] - 1));
            }
        } else if (holding & same) {
            /* A face turned against its opposite face alone: the middle
             * layer is held by nobody and goes either way. */
            return fail(m, SIM_ERR_SUPPORT, first_of(turning), detail,
                        detail_len,
                        "%s turns against %s alone: no gripper of the other "
                        "axis holds the middle layer",
                        names(turning, b1), names(holding & same, b2));
        } else {
            /* Nothing keeps still: the turning grippers would carry the
             * whole cube, which protocol 2 spells as a tilt, so a host
             * that meant a pair turn and left the other axis open is
             * caught here. */
            return fail(m, SIM_ERR_TILT, first_of(turning), detail,
                        detail_len,
                        "%s turn%s with nothing holding the cube: a whole-"
                        "cube turn is a tilt (TILT actions)",
                        names(turning, b1), turning == same ? "" : "s");
        }
    } else if (!holding) {
        return fail(m, SIM_ERR_DROP, first_of(gripping), detail, detail_len,
                    "no gripper stays closed throughout: the cube would fall");
    }

    for (int g = 0; g < FWP_GRIPPERS; g++) {
        uint8_t a = st->action[g];
        after.quarters[g] = (uint8_t)((after.quarters[g] + rot[g]) & 3);
        if (a == FWP_ACT_OPEN) {
            after.closed &= (uint8_t)~(1u << g);
            m->what[g] = SIM_DO_OPEN;
        }
        if (a == FWP_ACT_CLOSE) {
            after.closed |= (uint8_t)(1u << g);
            m->what[g] = SIM_DO_CLOSE;
        }
        if (is_regrip(a)) {
            m->what[g] = SIM_DO_REGRIP;
            m->free_q[g] = 1;
        }
    }
    int rc = check_collision(&after, turning | gripping, m, detail,
                             detail_len);
    if (rc != SIM_OK)
        return rc;
    *r = after;
    return SIM_OK;
}

int64_t sim_motion_us(const sim_motion *m, const robot_profile *p)
{
    /* An open gripper's quarter rotation: what a regrip takes beyond its
     * opening and closing. */
    double free_q = p->regrip_ms - p->open_ms - p->close_ms;
    if (free_q < 0)
        free_q = 0;
    double face = m->pair ? (m->half ? p->pair_half_ms : p->pair_quarter_ms)
                          : (m->half ? p->half_ms : p->quarter_ms);
    double tilt = p->tilt_ms + p->settle_ms;
    double ms = 0;
    for (int g = 0; g < FWP_GRIPPERS; g++) {
        double t = 0;
        switch (m->what[g]) {
        case SIM_DO_TURN:
            t = face + p->settle_ms; /* then the cube settles */
            break;
        case SIM_DO_TILT:
            t = p->open_ms + tilt; /* starts once the other axis is open */
            break;
        case SIM_DO_RELEASE: {
            double mid = m->free_q[g] ? free_q : 0;
            t = p->open_ms + (mid > tilt ? mid : tilt) + p->close_ms;
            break;
        }
        case SIM_DO_REGRIP:
            t = p->open_ms + free_q + p->close_ms;
            break;
        case SIM_DO_OPEN:
            t = p->open_ms;
            break;
        case SIM_DO_CLOSE:
            t = p->close_ms;
            break;
        default:
            break;
        }
        if (t > ms)
            ms = t;
    }
    return (int64_t)(ms * 1000.0 + 0.5);
}

int64_t sim_homing_us(const robot_profile *p)
{
    return (int64_t)((2 * p->regrip_ms + p->settle_ms) * 1000.0 + 0.5);
}
