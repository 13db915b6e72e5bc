/*
 * test_quadsim.c - tests of quadsim, the firmware simulator (sim/).
 *
 * Unit tests of the physical model (sim/model.c, compiled in): each rule on
 * hand-made steps, exact agreement with the robot library's own checker on
 * every gripper state and robot operation, and random plans of robot_plan
 * replayed primitive by primitive. Unit tests of the fault injector
 * (sim/inject.c): determinism and rates.
 *
 * Then the real program (QUADSIM, set by ctest) is started and driven over
 * a real TCP socket (and once a pseudo-terminal) by an fwp host endpoint:
 * handshake, HOME, steps with a tilt that undo a scramble, impossible steps
 * refused with FAULT, garbage survived, a lossy link that still executes
 * every step exactly once, the heartbeat watchdog, ESTOP, injected stalls
 * and motor faults, a cut connection, queue-full ordering, and the command
 * line. Every started process is killed by the test's teardown even when
 * an assertion fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "sim.h"
#include "testutil.h"

/* ------------------------------------------------------------- utilities */

/* A step in the compact spelling of testutil.h: st(id, "tT..") is the
 * tilt tRL. */
static fwp_step st(uint16_t id, const char *a)
{
    return test_fwp_step(id, a);
}

static void facelets_of_moves(const char *moves, char out[55])
{
    qs_cube c;
    qs_move mv[QS_MAX_MOVES];
    qs_cube_solved(&c);
    int n = qs_moves_parse(moves, mv, QS_MAX_MOVES, NULL, 0);
    assert_true(n >= 0);
    qs_cube_apply_moves(&c, mv, n);
    qs_cube_to_facelets(&c, out);
}

static const char solved[] =
    "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

/* ------------------------------------------------- expansion of a plan */

/* The robot-frame faces and quarter turns of a robot turn (a quadsolve
 * move number read in the robot frame). */
static int turn_faces(int m, int pos[2], int q[2])
{
    if (m < 18) {
        pos[0] = m / 3;
        q[0] = m % 3 + 1;
        return 1;
    }
    int axis = (m - 18) / 9;
    pos[0] = axis;
    pos[1] = axis + 3;
    q[0] = (m - 18) / 3 % 3 + 1;
    q[1] = (m - 18) % 3 + 1;
    return 2;
}

static int gripper_at(int pos)
{
    switch (pos) {
    case 1: return FWP_GRIPPER_R;
    case 4: return FWP_GRIPPER_L;
    case 2: return FWP_GRIPPER_F;
    case 5: return FWP_GRIPPER_B;
    default: return -1;
    }
}

static uint8_t rotate_action(int quarters)
{
    return quarters == 1 ? FWP_ACT_CW
                         : quarters == 2 ? FWP_ACT_HALF : FWP_ACT_CCW;
}

/* A regrip turns a gripper by a quarter: back to neutral when it is
 * across, else ahead to across. */
static uint8_t regrip_action(const robot_sim *rs, int g)
{
    return rs->quarters[g] == 1 ? FWP_ACT_REGRIP_CCW : FWP_ACT_REGRIP_CW;
}

/* Expands one robot-model step into its protocol step (version 2), the
 * way a controller would: the turning or tilting grippers' actions and a
 * REGRIP for each regripped gripper, all in one step. Returns 1. */
static int expand(const robot_sim *rs, const robot_step *s, fwp_step *out,
                  uint16_t *id)
{
    fwp_step mid;
    memset(&mid, 0, sizeof mid);
    for (int g = 0; g < FWP_GRIPPERS; g++)
        if (s->regrips >> g & 1)
            mid.action[g] = regrip_action(rs, g);
    if (s->kind == ROBOT_STEP_TURN) {
        int pos[2], q[2];
        int k = turn_faces(s->arg, pos, q);
        for (int i = 0; i < k; i++) {
            /* A model that turned U or D would be a failure of the
             * test, not a write before the array. */
            int g = gripper_at(pos[i]);
            assert_in_range(g, 0, FWP_GRIPPERS - 1);
            mid.action[g] = rotate_action(q[i]);
        }
    } else if (s->kind == ROBOT_STEP_TILT) {
        int g0 = s->arg == ROBOT_TILT_RL ? FWP_GRIPPER_R : FWP_GRIPPER_F;
        mid.action[g0] = FWP_ACT_TILT_CW;
        mid.action[g0 + 1] = FWP_ACT_TILT_CCW;
    }
    mid.id = (*id)++;
    out[0] = mid;
    return 1;
}

/* Plans cube-frame moves with the robot library and expands the plan.
 * Returns the number of protocol steps written to out. */
static int plan_steps(const qs_move *moves, int n, robot_objective obj,
                      fwp_step *out, int cap, uint16_t first_id)
{
    robot_model *m = malloc(sizeof *m);
    robot_schedule *s = malloc(sizeof *s);
    assert_non_null(m);
    assert_non_null(s);
    robot_model_init(m);
    robot_profile p;
    assert_int_equal(robot_profile_builtin("default", &p), ROBOT_OK);
    assert_int_equal(robot_plan(m, &p, obj, moves, n, s), ROBOT_OK);
    robot_sim rs;
    robot_sim_init(&rs, NULL);
    int k = 0;
    uint16_t id = first_id;
    for (int i = 0; i < s->n; i++) {
        assert_true(k + 3 <= cap);
        k += expand(&rs, &s->steps[i], out + k, &id);
        assert_int_equal(robot_sim_step(&rs, &s->steps[i], NULL, NULL, 0),
                         ROBOT_OK);
    }
    free(s);
    free(m);
    return k;
}

/* -------------------------------------------------------- model tests */

static void expect_step(sim_robot *r, const char *a, int err)
{
    char why[160];
    fwp_step s = st(1, a);
    sim_robot before = *r;
    int rc = sim_robot_step(r, &s, NULL, why, sizeof why);
    if (rc != err)
        fail_msg("step %s: got %s (%s), expected %s", a, sim_errcode(rc), why,
                 sim_errcode(err));
    if (rc != SIM_OK) {
        /* A refused step changes nothing. */
        assert_memory_equal(r, &before, sizeof before);
        assert_true(why[0] != '\0');
    }
}

static void test_model_rules(void **state)
{
    (void)state;
    sim_robot r;
    char f[55], want[55];

    /* A face turn held by F and B; the gripper ends across. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "+...", SIM_OK);
    assert_int_equal(sim_robot_across(&r), 1u << FWP_GRIPPER_R);
    qs_cube_to_facelets(&r.cube, f);
    facelets_of_moves("R", want);
    assert_string_equal(f, want);
    /* F would now stand across with R: collision. L holds F's turn. */
    expect_step(&r, "..+.", SIM_ERR_COLLISION);
    /* A half turn keeps F neutral: allowed. */
    expect_step(&r, "..2.", SIM_OK);
    /* Grippers across hold nothing for a turn of the other axis. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "+-..", SIM_OK);       /* (R L'): R and L across */
    expect_step(&r, "..2.", SIM_ERR_SUPPORT); /* nobody neutral on R-L */

    /* Turns on both axes at once cross layers. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "+.+.", SIM_ERR_JAM);
    /* Letting go of everything drops the cube; so do F and B regripping
     * while they alone hold it. */
    expect_step(&r, "oooo", SIM_ERR_DROP);
    expect_step(&r, "oo..", SIM_OK);
    expect_step(&r, "..gg", SIM_ERR_DROP);
    expect_step(&r, "cc..", SIM_OK);
    /* Redundant grips and unknown actions. */
    expect_step(&r, "c...", SIM_ERR_GRIP);
    fwp_step bad = st(1, "....");
    bad.action[2] = FWP_ACT_MAX + 1;
    sim_motion mo;
    assert_int_equal(sim_robot_step(&r, &bad, &mo, NULL, 0), SIM_ERR_ACTION);
    assert_int_equal(mo.gripper, 2);
    /* L regrips while R turns: F and B still hold the middle; the cube
     * turns by R only and L ends across. */
    expect_step(&r, "+g..", SIM_OK);
    qs_cube_to_facelets(&r.cube, f);
    facelets_of_moves("R", want);
    assert_string_equal(f, want);
    assert_int_equal(r.quarters[FWP_GRIPPER_L], 1);
    assert_int_equal(r.closed, 0x0F);
    /* A gripper that lets go cannot turn its face afterwards. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "o...", SIM_OK);
    fwp_step turn_open = st(1, "+...");
    assert_int_equal(sim_robot_step(&r, &turn_open, &mo, NULL, 0),
                     SIM_ERR_OPEN_TURN);
    assert_int_equal(mo.gripper, FWP_GRIPPER_R);
    expect_step(&r, "g...", SIM_ERR_GRIP); /* a regrip starts closed */

    /* Without F and B, R turns against L alone: nobody holds the middle. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "..oo", SIM_OK);
    expect_step(&r, "+...", SIM_ERR_SUPPORT);
    /* A pair turn with nothing holding the cube would be a tilt; protocol
     * 2 spells tilts apart, so this is refused. */
    expect_step(&r, "+-..", SIM_ERR_TILT);
    expect_step(&r, "++..", SIM_ERR_TILT);
    expect_step(&r, "..cc", SIM_OK);

    /* The tilt: R clockwise, L counter-clockwise, turns the whole cube
     * like R: F goes to U, U to B. F and B let go and close again. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "tTo.", SIM_ERR_GRIP_MOVING); /* F may only wait */
    expect_step(&r, "tt..", SIM_ERR_TILT);        /* twisting */
    expect_step(&r, "t...", SIM_ERR_TILT);        /* one gripper */
    expect_step(&r, "tT+.", SIM_ERR_JAM);
    expect_step(&r, "tT..", SIM_OK);
    assert_int_equal(sim_robot_face_at(&r, 0), 2);  /* U holds cube F */
    assert_int_equal(sim_robot_face_at(&r, 5), 0);  /* B holds cube U */
    assert_int_equal(sim_robot_face_at(&r, 1), 1);  /* R stays */
    assert_true(qs_cube_is_solved(&r.cube));         /* no face turned */
    assert_int_equal(r.closed, 0x0F);
    assert_int_equal(sim_robot_across(&r), 0x03u);
    /* Robot B now turns cube U. R and L across: nobody holds. */
    expect_step(&r, "...+", SIM_ERR_SUPPORT);
    /* A tilt of F and B with R and L regripping back to neutral. */
    expect_step(&r, "GGtT", SIM_OK);
    assert_int_equal(sim_robot_across(&r), 0x0Cu);
    assert_int_equal(sim_robot_face_at(&r, 1), 2); /* cube F went to R */
    /* A tilt needs its pair closed, and opens the other axis itself. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "o...", SIM_OK);
    expect_step(&r, "tT..", SIM_ERR_TILT);
    expect_step(&r, "c...", SIM_OK);
    expect_step(&r, "..o.", SIM_OK);
    expect_step(&r, "tT..", SIM_ERR_GRIP);

    /* A regrip into a collision is one too. */
    sim_robot_init(&r, NULL);
    expect_step(&r, "+...", SIM_OK);
    fwp_step s = st(1, "...g");
    assert_int_equal(sim_robot_step(&r, &s, &mo, NULL, 0), SIM_ERR_COLLISION);
    assert_int_equal(mo.gripper, FWP_GRIPPER_B);
}

static void test_model_durations(void **state)
{
    (void)state;
    robot_profile p;
    assert_int_equal(robot_profile_builtin("default", &p), ROBOT_OK);
    static const struct {
        const char *setup, *step;
        int64_t us;
    } cases[] = {
        /* default: quarter 55, half 90, pairs 60 and 95, tilt 110,
         * regrip 85 = open 15 + free 55 + close 15, settle 5. */
        {"", "+...", 60000},        /* quarter 55 + settle 5 */
        {"", "2...", 95000},        /* half 90 + 5 */
        {"", "+-..", 65000},        /* pair of quarters 60 + 5 */
        {"", "2-..", 100000},       /* pair with a half 95 + 5 */
        {"", "..oo", 15000},        /* open */
        {"..oo", "..cc", 15000},    /* close */
        {"", "tT..", 145000},       /* open 15 + tilt 110 + 5 + close 15 */
        {"..g.", "tTG.", 145000},   /* the free rotation hides in it */
        {"", "g...", 85000},        /* a regrip */
        {"", "gG..", 85000},        /* two at once */
        {"", "+g..", 85000},        /* the regrip outlasts the turn */
        {"", "2G..", 95000},        /* the half turn outlasts the regrip */
        {"", "..2g", 95000},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sim_robot r;
        sim_motion mo;
        sim_robot_init(&r, NULL);
        /* The setup: steps separated by blanks. */
        for (const char *q = cases[i].setup; *q; q += q[4] ? 5 : 4)
            expect_step(&r, q, SIM_OK);
        fwp_step s = st(1, cases[i].step);
        assert_int_equal(sim_robot_step(&r, &s, &mo, NULL, 0), SIM_OK);
        if (sim_motion_us(&mo, &p) != cases[i].us)
            fail_msg("%s then %s: %lld us, expected %lld", cases[i].setup,
                     cases[i].step, (long long)sim_motion_us(&mo, &p),
                     (long long)cases[i].us);
    }
    assert_int_equal(sim_homing_us(&p), 175000);
}

/* The rules agree with the robot library's checker (robot_sim_step, which
 * states docs/robot-model.md) on every gripper state, every robot step and
 * every regrip mask: a step the library allows runs as its expansion and
 * ends in the same place; a step it refuses is refused. */
static void test_model_matches_robot_model(void **state)
{
    (void)state;
    robot_step ops[64];
    int n_ops = 0;
    for (int m = 0; m < QS_MOVE_COUNT; m++) {
        int pos[2], q[2];
        int k = turn_faces(m, pos, q);
        if (gripper_at(pos[0]) < 0 || (k == 2 && gripper_at(pos[1]) < 0))
            continue;
        ops[n_ops++] = (robot_step){ROBOT_STEP_TURN, (uint8_t)m, 0};
    }
    assert_int_equal(n_ops, 30);
    ops[n_ops++] = (robot_step){ROBOT_STEP_TILT, ROBOT_TILT_RL, 0};
    ops[n_ops++] = (robot_step){ROBOT_STEP_TILT, ROBOT_TILT_FB, 0};
    ops[n_ops++] = (robot_step){ROBOT_STEP_REGRIP, 0, 0};

    uint64_t rng = 99;
    int compared = 0, refused = 0, timed = 0;
    for (int s = 0; s < ROBOT_STATES; s++) {
        unsigned across = robot_state_across(s);
        for (int o = 0; o < n_ops; o++)
            for (unsigned rg = 0; rg < 16; rg++) {
                qs_cube cube;
                qs_cube_random(&cube, &rng);
                robot_sim rs;
                robot_sim_init(&rs, &cube);
                sim_robot sr;
                sim_robot_init(&sr, &cube);
                for (int g = 0; g < FWP_GRIPPERS; g++)
                    rs.quarters[g] = sr.quarters[g] =
                        (uint8_t)(across >> g & 1);
                robot_step step = ops[o];
                step.regrips = (uint8_t)rg;
                fwp_step prim[1];
                uint16_t id = 0;
                int k = expand(&rs, &step, prim, &id);
                int want = robot_sim_step(&rs, &step, NULL, NULL, 0);
                if (want == ROBOT_ERR_STEP)
                    continue; /* malformed: no spelling in primitives */
                int got = SIM_OK, tilted = 0;
                sim_motion mo;
                for (int i = 0; i < k && got == SIM_OK; i++) {
                    got = sim_robot_step(&sr, &prim[i], &mo, NULL, 0);
                    tilted |= got == SIM_OK && mo.kind == SIM_MOTION_TILT;
                }
                compared++;
                /* Protocol 2 tells a tilt from a pair turn: no turn the
                 * model refuses can run as a tilt. */
                assert_false(want != ROBOT_OK && tilted);
                if ((want == ROBOT_OK) != (got == SIM_OK)) {
                    char text[32];
                    robot_steps_format(&step, 1, text, sizeof text);
                    fail_msg("state %d, %s: robot model says %s, quadsim %s",
                             s, text, robot_errcode(want), sim_errcode(got));
                }
                if (want != ROBOT_OK) {
                    refused++;
                    continue;
                }
                assert_true(qs_cube_equal(&rs.cube, &sr.cube));
                assert_int_equal(robot_sim_across(&rs), sim_robot_across(&sr));
                for (int p = 0; p < 6; p++)
                    assert_int_equal(robot_sim_face_at(&rs, p),
                                     sim_robot_face_at(&sr, p));
                assert_int_equal(sr.closed, 0x0F);
                /* One timing model, two readings: the planner's cost of
                 * the robot step is quadsim's time for its protocol step,
                 * under every built-in profile and an odd one where the
                 * free rotation outlasts a tilt. */
                for (int q = 0; q <= 3; q++) {
                    robot_profile prof;
                    if (q < 3) {
                        assert_int_equal(robot_profile_builtin(
                                             robot_profile_builtin_name(q),
                                             &prof),
                                         ROBOT_OK);
                    } else {
                        prof = (robot_profile){.quarter_ms = 31,
                                               .half_ms = 47,
                                               .pair_quarter_ms = 33,
                                               .pair_half_ms = 61,
                                               .tilt_ms = 20,
                                               .regrip_ms = 140,
                                               .open_ms = 9,
                                               .close_ms = 13,
                                               .settle_ms = 3};
                    }
                    assert_int_equal(sim_motion_us(&mo, &prof),
                                     robot_step_us(&prof, &step));
                    timed++;
                }
            }
    }
    assert_true(timed > 1000);
    /* Both outcomes occur often, so the comparison has teeth. */
    print_message("%d compared, %d refused by both, %d timings equal\n",
                  compared, refused, timed);
    assert_true(compared > 1000);
    assert_true(refused > 300 && compared - refused > 300);
}

/* Plans of random solutions replayed primitive by primitive end with the
 * cube the moves make, and never break a rule. */
static void test_model_random_plans(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    fwp_step *steps = malloc(sizeof *steps * 4 * ROBOT_MAX_STEPS);
    assert_non_null(steps);
    for (int t = 0; t < 150; t++) {
        qs_move moves[QS_MAX_MOVES];
        int n = 1 + (int)(sim_rand_next(&rng) % 24);
        for (int i = 0; i < n; i++)
            moves[i] = (qs_move)(sim_rand_next(&rng) % QS_MOVE_COUNT);
        int k = plan_steps(moves, n, t % 2 ? ROBOT_OBJ_TIME : ROBOT_OBJ_MOVES,
                           steps, 4 * ROBOT_MAX_STEPS, 0);
        sim_robot r;
        sim_robot_init(&r, NULL);
        for (int i = 0; i < k; i++) {
            char why[160];
            int rc = sim_robot_step(&r, &steps[i], NULL, why, sizeof why);
            if (rc != SIM_OK)
                fail_msg("plan %d step %d: %s: %s", t, i, sim_errcode(rc), why);
        }
        qs_cube want;
        qs_cube_solved(&want);
        qs_cube_apply_moves(&want, moves, n);
        assert_true(qs_cube_equal(&r.cube, &want));
        assert_int_equal(r.closed, 0x0F);
    }
    free(steps);
}

/* -------------------------------------------------------- inject tests */

typedef struct {
    uint8_t bytes[1 << 16];
    size_t len;
    int calls;
} sink;

static void to_sink(void *ctx, const uint8_t *b, size_t n)
{
    sink *s = ctx;
    assert_true(s->len + n <= sizeof s->bytes);
    memcpy(s->bytes + s->len, b, n);
    s->len += n;
    s->calls++;
}

static void test_inject(void **state)
{
    (void)state;
    sink *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    assert_non_null(a);
    assert_non_null(b);
    sim_inject x, y;
    uint8_t frame[12] = {0, 9, 1, 2, 3, 4, 5, 6, 7, 8, 9, 0};

    /* Inactive: a pass-through. */
    sim_inject_init(&x, 0, 0, 0, 0, 0, 1);
    assert_false(sim_inject_active(&x));
    sim_inject_stream(&x, frame, sizeof frame, 0, to_sink, a);
    assert_int_equal(a->len, sizeof frame);

    /* Same seed, same decisions. */
    memset(a, 0, sizeof *a);
    sim_inject_init(&x, 0.2, 0.1, 0.1, 0, 0, 42);
    sim_inject_init(&y, 0.2, 0.1, 0.1, 0, 0, 42);
    for (int i = 0; i < 2000; i++) {
        sim_inject_frame(&x, frame, sizeof frame, 0, to_sink, a);
        sim_inject_frame(&y, frame, sizeof frame, 0, to_sink, b);
    }
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->bytes, b->bytes, a->len);
    /* Rates near the asked ones (2000 frames: a few sigma). */
    assert_in_range(x.dropped, 320, 480);
    assert_in_range(x.duplicated, 120, 200);
    assert_in_range(x.corrupted, 120, 200);
    assert_int_equal(a->calls, 2000 - (int)x.dropped + (int)x.duplicated);
    /* Another seed decides otherwise. */
    sim_inject_init(&y, 0.2, 0.1, 0.1, 0, 0, 43);
    memset(b, 0, sizeof *b);
    for (int i = 0; i < 2000; i++)
        sim_inject_frame(&y, frame, sizeof frame, 0, to_sink, b);
    assert_true(a->len != b->len ||
                memcmp(a->bytes, b->bytes, a->len) != 0);

    /* A stream cut anywhere is split into the same frames. */
    memset(a, 0, sizeof *a);
    memset(b, 0, sizeof *b);
    sim_inject_init(&x, 0.3, 0, 0, 0, 0, 7);
    sim_inject_init(&y, 0.3, 0, 0, 0, 0, 7);
    uint8_t stream[1200];
    for (size_t i = 0; i < sizeof stream; i++)
        stream[i] = i % 10 == 9 ? 0 : (uint8_t)(i % 200 + 1);
    sim_inject_stream(&x, stream, sizeof stream, 0, to_sink, a);
    for (size_t i = 0; i < sizeof stream; i += 7)
        sim_inject_stream(&y, stream + i,
                          sizeof stream - i < 7 ? sizeof stream - i : 7, 0,
                          to_sink, b);
    assert_int_equal(x.frames, 120);
    assert_int_equal(a->len, b->len);
    assert_memory_equal(a->bytes, b->bytes, a->len);

    /* Held frames come out when due, in order of due time. */
    memset(a, 0, sizeof *a);
    sim_inject_init(&x, 0, 0, 0, 1, 50, 3);
    for (int i = 0; i < 10; i++) {
        frame[1] = (uint8_t)(i + 1);
        sim_inject_frame(&x, frame, sizeof frame, 0, to_sink, a);
    }
    assert_int_equal(a->len, 0);
    assert_true(sim_inject_next_us(&x) <= 50000);
    sim_inject_due(&x, 50000, to_sink, a);
    assert_int_equal(a->calls, 10);
    assert_int_equal(x.n_held, 0);
    assert_true(sim_inject_next_us(&x) == INT64_MAX);
    free(a);
    free(b);
}

/* ------------------------------------------------------ the real process */

typedef struct {
    pid_t pid;
    int port;
    char pty[128];
} simproc;

typedef struct {
    int fd;
    bool eof;
    fwp_endpoint ep;
    int connected, peer_resets;
    fwp_hello hello;
    int n_started, n_done;
    uint16_t done[2048], done_ms[2048];
    int n_status;
    fwp_status status;          /* the last STATUS report */
    int states_seen;            /* bit per fwp_robot_state reported */
    int n_faults;
    fwp_fault faults[16];
    int n_naks;
    fwp_nak naks[16];
} host;

#define MAX_PROCS 2
#define MAX_HOSTS 3

typedef struct {
    simproc sp[MAX_PROCS];
    host *h[MAX_HOSTS];
} fixture;

static int setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    for (int i = 0; i < MAX_HOSTS; i++) {
        fx->h[i] = calloc(1, sizeof *fx->h[i]);
        if (!fx->h[i])
            return -1;
        fx->h[i]->fd = -1;
    }
    *state = fx;
    return 0;
}

static int teardown(void **state)
{
    fixture *fx = *state;
    for (int i = 0; i < MAX_PROCS; i++)
        if (fx->sp[i].pid > 0) {
            kill(fx->sp[i].pid, SIGKILL);
            waitpid(fx->sp[i].pid, NULL, 0);
        }
    for (int i = 0; i < MAX_HOSTS; i++) {
        if (fx->h[i]->fd >= 0)
            close(fx->h[i]->fd);
        free(fx->h[i]);
    }
    free(fx);
    return 0;
}

static const char *quadsim_path(void)
{
    const char *p = getenv("QUADSIM");
    if (!p || !*p)
        fail_msg("QUADSIM is not set");
    return p;
}

/* Starts quadsim with the given arguments (NULL-terminated) plus
 * "--log-level warn"; reads its first stdout line. */
static void sim_start(simproc *sp, const char *const *args)
{
    const char *argv[64];
    int n = 0;
    argv[n++] = quadsim_path();
    for (int i = 0; args[i]; i++)
        argv[n++] = args[i];
    argv[n++] = "--log-level";
    argv[n++] = getenv("QUADSIM_LOG") ? getenv("QUADSIM_LOG") : "warn";
    argv[n] = NULL;
    char line[256];
    sp->pid = test_start(argv, NULL, line, sizeof line, 5000);
    if (sscanf(line, "listening tcp:127.0.0.1:%d", &sp->port) == 1)
        return;
    if (sscanf(line, "listening pty:%127s", sp->pty) == 1)
        return;
    fail_msg("quadsim did not say where it listens: '%s'", line);
}

/* Sends sig and returns the exit status (-1 when killed by a signal). */
static int sim_stop(simproc *sp, int sig)
{
    kill(sp->pid, sig);
    int status;
    int64_t end = test_mono_ms() + test_scaled_ms(5000);
    for (;;) {
        pid_t r = waitpid(sp->pid, &status, WNOHANG);
        if (r == sp->pid)
            break;
        if (test_mono_ms() > end) {
            kill(sp->pid, SIGKILL);
            waitpid(sp->pid, &status, 0);
            sp->pid = 0;
            fail_msg("quadsim did not exit after signal %d", sig);
        }
        test_sleep_ms(5);
    }
    sp->pid = 0;
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

static bool sim_alive(const simproc *sp)
{
    return waitpid(sp->pid, NULL, WNOHANG) == 0;
}


/* ------------------------------------------------------------ the host */

static int h_write(void *ctx, const uint8_t *b, size_t n)
{
    host *h = ctx;
    if (h->fd < 0 || h->eof)
        return -1;
    while (n) {
        ssize_t k = write(h->fd, b, n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        b += k;
        n -= (size_t)k;
    }
    return 0;
}

static uint32_t h_now(void *ctx)
{
    (void)ctx;
    return (uint32_t)test_mono_ms();
}

static void h_message(void *ctx, const fwp_message *m)
{
    host *h = ctx;
    switch (m->type) {
    case FWP_MSG_HELLO:
        h->hello = m->u.hello;
        break;
    case FWP_MSG_EVENT:
        if (m->u.event.kind == FWP_STEP_STARTED) {
            h->n_started++;
        } else {
            assert_true(h->n_done < 2048);
            h->done[h->n_done] = m->u.event.step_id;
            h->done_ms[h->n_done++] = m->u.event.duration_ms;
        }
        break;
    case FWP_MSG_STATUS:
        h->status = m->u.status;
        h->states_seen |= 1 << m->u.status.state;
        h->n_status++;
        break;
    case FWP_MSG_FAULT:
        assert_true(h->n_faults < 16);
        h->faults[h->n_faults++] = m->u.fault;
        break;
    case FWP_MSG_NAK:
        assert_true(h->n_naks < 16);
        h->naks[h->n_naks++] = m->u.nak;
        break;
    default:
        break;
    }
}

static void h_event(void *ctx, int event, int detail)
{
    host *h = ctx;
    (void)detail;
    if (event == FWP_EV_CONNECTED)
        h->connected++;
    if (event == FWP_EV_PEER_RESET)
        h->peer_resets++;
}

/* Connects a fresh host endpoint over fd. */
static void host_open(host *h, int fd, uint32_t session, uint16_t rto)
{
    if (h->fd >= 0)
        close(h->fd);
    memset(h, 0, sizeof *h);
    h->fd = fd;
    fwp_config cfg;
    fwp_config_default(&cfg, FWP_ROLE_HOST);
    cfg.session = session;
    cfg.retransmit_ms = rto;
    cfg.max_retries = 50; /* the lossy test must not give up */
    cfg.write = h_write;
    cfg.now_ms = h_now;
    cfg.on_message = h_message;
    cfg.on_event = h_event;
    cfg.ctx = h;
    assert_int_equal(fwp_init(&h->ep, &cfg), FWP_OK);
}

/* Runs the host for up to ms, or until done(h, arg) holds. */
static bool host_run(host *h, int ms, bool (*done)(const host *, int),
                     int arg)
{
    int64_t end = test_mono_ms() + ms;
    for (;;) {
        uint32_t next = fwp_poll(&h->ep);
        if (done && done(h, arg))
            return true;
        int64_t left = end - test_mono_ms();
        if (left <= 0)
            return false;
        int wait = (int)(left < (int64_t)next ? left : (int64_t)next);
        if (h->eof) {
            test_sleep_ms(wait < 10 ? wait : 10);
            continue;
        }
        struct pollfd p = {h->fd, POLLIN, 0};
        if (poll(&p, 1, wait) > 0) {
            uint8_t buf[4096];
            ssize_t n = read(h->fd, buf, sizeof buf);
            if (n > 0)
                fwp_feed(&h->ep, buf, (size_t)n);
            else if (n == 0 || errno != EINTR)
                h->eof = true;
        }
    }
}

static bool is_connected(const host *h, int arg)
{
    (void)arg;
    return h->connected > 0;
}

static bool done_at_least(const host *h, int n)
{
    return h->n_done >= n;
}

static bool status_count(const host *h, int n)
{
    return h->n_status >= n;
}

static bool state_is(const host *h, int s)
{
    return h->n_status > 0 && h->status.state == s && fwp_unacked(&h->ep) == 0;
}

static bool naks_at_least(const host *h, int n)
{
    return h->n_naks >= n;
}

static bool faults_at_least(const host *h, int n)
{
    return h->n_faults >= n;
}

static bool at_eof(const host *h, int arg)
{
    (void)arg;
    return h->eof;
}

static void host_connect(host *h, int fd, uint32_t session, uint16_t rto)
{
    host_open(h, fd, session, rto);
    if (!host_run(h, 3000, is_connected, 0))
        fail_msg("no handshake with quadsim");
}

static bool window_free(const host *h, int arg)
{
    (void)arg;
    return fwp_window_free(&h->ep) > 0;
}

static void host_send(host *h, const fwp_message *m)
{
    if (!host_run(h, 3000, window_free, 0))
        fail_msg("the send window stays full");
    assert_int_equal(fwp_send(&h->ep, m), FWP_OK);
}

static void send_simple(host *h, int type)
{
    fwp_message m = test_fwp_message((uint8_t)type, 0, 0);
    if (type == FWP_MSG_STATUS)
        m.u.status.query = true;
    host_send(h, &m);
}

/* Sends steps in batches of at most `batch`. */
static void send_steps(host *h, const fwp_step *s, int n, int batch)
{
    for (int i = 0; i < n; i += batch) {
        fwp_message m = test_fwp_message(FWP_MSG_STEPS, 0, 0);
        m.u.steps.count = (uint8_t)(n - i < batch ? n - i : batch);
        memcpy(m.u.steps.step, s + i, sizeof *s * m.u.steps.count);
        host_send(h, &m);
    }
}

/* Asks for STATUS and waits for the answer; returns it. */
static fwp_status query_status(host *h)
{
    int before = h->n_status;
    send_simple(h, FWP_MSG_STATUS);
    if (!host_run(h, 3000, status_count, before + 1))
        fail_msg("no STATUS reply");
    return h->status;
}

static void wait_state(host *h, int state)
{
    if (!host_run(h, 3000, state_is, state))
        fail_msg("quadsim state %d, expected %d", h->status.state, state);
}

static void home(host *h)
{
    send_simple(h, FWP_MSG_HOME);
    wait_state(h, FWP_ROBOT_IDLE);
}

static void assert_cube(const fwp_status *s, const char *facelets)
{
    assert_true(s->has_cube);
    if (memcmp(s->cube, facelets, FWP_FACELETS) != 0)
        fail_msg("cube %.54s, expected %.54s", s->cube, facelets);
}

/* ---------------------------------------------------------- process tests */

/* Handshake, HOME, then steps that undo the scramble R U with a real tilt
 * (U is out of reach until the cube turns) and regrips. */
static void test_session_home_steps(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "0", "--scramble", "R U",
                                   NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x1001, 50);
    assert_int_equal(h->hello.role, FWP_ROLE_FIRMWARE);
    assert_true(h->hello.features & FWP_FEATURE_CUBE_STATE);
    assert_int_equal(h->hello.max_steps, 32);
    assert_int_equal(h->hello.gripper_mask, 0x0F);
    assert_int_equal(h->hello.link_timeout_ms, 1000);

    char scrambled[55], after_r[55];
    facelets_of_moves("R U", scrambled);
    facelets_of_moves("R", after_r);
    fwp_status s = query_status(h);
    assert_int_equal(s.state, FWP_ROBOT_UNHOMED);
    assert_int_equal(s.last_step, FWP_NO_STEP);
    assert_cube(&s, scrambled);
    /* Before homing the grippers are unknown; the cube is in the home
     * orientation (U up, F in front). */
    for (int g = 0; g < FWP_GRIPPERS; g++)
        assert_int_equal(s.grip[g], FWP_GRIP_UNKNOWN);
    assert_int_equal(s.up, 0);
    assert_int_equal(s.front, 2);

    /* Steps before HOME are refused. */
    fwp_step one = st(1, "+...");
    send_steps(h, &one, 1, 32);
    assert_true(host_run(h, 3000, naks_at_least, 1));
    assert_int_equal(h->naks[0].reason, FWP_NAK_NOT_HOMED);

    home(h);
    assert_true(h->states_seen & (1 << FWP_ROBOT_HOMING));

    const fwp_step undo_u[] = {
        st(10, "tT.."), /* tilt: R and L turn the cube like R, U goes to
                           B; F and B let go and close again */
        st(11, "Gg.."), /* regrip R and L back to neutral */
        st(12, "...-"), /* robot B holds cube U: U' */
    };
    send_steps(h, undo_u, 3, 32);
    assert_true(host_run(h, 3000, done_at_least, 3));
    wait_state(h, FWP_ROBOT_IDLE);
    s = query_status(h);
    assert_int_equal(s.last_step, 12);
    assert_int_equal(s.queued, 0);
    assert_cube(&s, after_r);
    /* STATUS fields of protocol 2: the tilt put cube F up and D in front;
     * R and L regripped home, B turned U' and stands at -90; all closed. */
    assert_int_equal(s.up, 2);
    assert_int_equal(s.front, 3);
    assert_int_equal(s.grip[FWP_GRIPPER_R], FWP_GRIP_CLOSED);
    assert_int_equal(s.grip[FWP_GRIPPER_L], FWP_GRIP_CLOSED);
    assert_int_equal(s.grip[FWP_GRIPPER_F], FWP_GRIP_CLOSED);
    assert_int_equal(s.grip[FWP_GRIPPER_B], 3 | FWP_GRIP_CLOSED);

    const fwp_step undo_r[] = {
        st(13, "-..g"), /* R' while B regrips back beside it */
    };
    send_steps(h, undo_r, 1, 32);
    assert_true(host_run(h, 3000, done_at_least, 4));
    wait_state(h, FWP_ROBOT_IDLE);
    s = query_status(h);
    assert_int_equal(s.last_step, 13);
    assert_cube(&s, solved);

    /* Every step started and finished once, in order, with the profile's
     * durations (default profile, in ms): the tilt open 15 + 110 + settle
     * 5 + close 15, a regrip 85, U' 55 + 5, R' beside a regrip 85. */
    static const uint16_t want_ms[] = {145, 85, 60, 85};
    assert_int_equal(h->n_started, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(h->done[i], 10 + i);
        assert_int_equal(h->done_ms[i], want_ms[i]);
    }
    assert_int_equal(h->n_faults, 0);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* An impossible step refuses its batch whole and faults the robot until
 * HOME. */
static void test_impossible_steps(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "0", NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x2002, 50);
    home(h);

    /* R ends across, then F would stand across too. */
    const fwp_step collide[] = {st(0, "+..."), st(1, "..+.")};
    send_steps(h, collide, 2, 32);
    assert_true(host_run(h, 3000, faults_at_least, 1));
    wait_state(h, FWP_ROBOT_FAULT);
    assert_int_equal(h->n_naks, 1);
    assert_int_equal(h->naks[0].reason, FWP_NAK_BAD_STEP);
    /* The NAK names the refused step, the rule and the gripper. */
    assert_int_equal(h->naks[0].step_id, 1);
    assert_int_equal(h->naks[0].rule, FWP_RULE_COLLISION);
    assert_int_equal(h->naks[0].gripper, FWP_GRIPPER_F);
    assert_int_equal(h->faults[0].code, SIM_FAULT_BASE - SIM_ERR_COLLISION);
    assert_int_equal(h->faults[0].step_id, 1);
    assert_int_equal(h->faults[0].gripper, FWP_GRIPPER_F);
    fwp_status s = query_status(h);
    assert_int_equal(s.fault, SIM_FAULT_BASE - SIM_ERR_COLLISION);
    assert_int_equal(s.last_step, FWP_NO_STEP); /* nothing of it ran */
    assert_cube(&s, solved);
    assert_int_equal(h->n_done, 0);

    /* Faulted: steps are refused until HOME. */
    const fwp_step fine = st(2, "+...");
    send_steps(h, &fine, 1, 32);
    assert_true(host_run(h, 3000, naks_at_least, 2));
    assert_int_equal(h->naks[1].reason, FWP_NAK_FAULTED);
    assert_int_equal(h->naks[1].step_id, FWP_NO_STEP);
    assert_int_equal(h->naks[1].rule, FWP_RULE_NONE);

    /* Letting go of the cube. */
    home(h);
    const fwp_step drop[] = {st(3, "oo.."), st(4, "..oo")};
    send_steps(h, drop, 2, 32);
    assert_true(host_run(h, 3000, faults_at_least, 2));
    assert_int_equal(h->faults[1].code, SIM_FAULT_BASE - SIM_ERR_DROP);
    assert_int_equal(h->faults[1].step_id, 4);

    /* Turns on both axes at once. */
    home(h);
    const fwp_step jam = st(5, "+.+.");
    send_steps(h, &jam, 1, 32);
    assert_true(host_run(h, 3000, faults_at_least, 3));
    assert_int_equal(h->faults[2].code, SIM_FAULT_BASE - SIM_ERR_JAM);

    /* After HOME a legal batch runs. */
    home(h);
    const fwp_step ok[] = {st(6, "+..."), st(7, "-...")};
    send_steps(h, ok, 2, 32);
    assert_true(host_run(h, 3000, done_at_least, 2));
    wait_state(h, FWP_ROBOT_IDLE);
    s = query_status(h);
    assert_int_equal(s.last_step, 7);
    assert_int_equal(s.fault, 0);
    assert_cube(&s, solved);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* Garbage from a stray client and inside a session is survived. */
static void test_garbage(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "0", NULL});
    uint64_t rng = 5;
    uint8_t junk[3000];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (uint8_t)sim_rand_next(&rng);

    /* A client that sends noise and hangs up. */
    int fd = test_tcp_connect(sp->port);
    assert_int_equal(write(fd, junk, sizeof junk), (ssize_t)sizeof junk);
    close(fd);
    test_sleep_ms(50);
    assert_true(sim_alive(sp));

    host_connect(h, test_tcp_connect(sp->port), 0x3003, 50);
    home(h);
    /* Noise between frames: no delimiter for 600 bytes (too long), runs
     * with delimiters (bad COBS or CRC), then a damaged real frame. */
    uint8_t noise[600];
    for (size_t i = 0; i < sizeof noise; i++)
        noise[i] = (uint8_t)(sim_rand_next(&rng) | 1);
    assert_int_equal(write(h->fd, noise, sizeof noise), (ssize_t)sizeof noise);
    assert_int_equal(write(h->fd, junk, 500), 500);
    fwp_message m = test_fwp_message(FWP_MSG_STATUS, 0, 0);
    m.u.status.query = true;
    uint8_t wire[FWP_MAX_WIRE];
    size_t n = test_fwp_wire(&m, wire);
    wire[1 + (n - 2) / 2] ^= 0x40; /* the middle byte of the frame */
    assert_int_equal(write(h->fd, wire, n), (ssize_t)n);

    const fwp_step steps[] = {st(0, "+..."), st(1, "2..."), st(2, "+...")};
    send_steps(h, steps, 3, 32);
    assert_true(host_run(h, 3000, done_at_least, 3));
    wait_state(h, FWP_ROBOT_IDLE);
    fwp_status s = query_status(h);
    assert_cube(&s, solved); /* R R2 R */
    assert_int_equal(h->peer_resets, 0);
    assert_int_equal(h->n_faults, 0);

    /* A second client while one is connected is turned away; the first
     * goes on. */
    host *h2 = fx->h[1];
    host_open(h2, test_tcp_connect(sp->port), 0x3004, 50);
    assert_true(host_run(h2, 2000, at_eof, 0));
    assert_int_equal(h2->connected, 0);
    s = query_status(h);
    assert_int_equal(s.state, FWP_ROBOT_IDLE);
    assert_int_equal(sim_stop(sp, SIGINT), 0);
}

/* Frames lost, duplicated, damaged and delayed both ways: every step of a
 * planned solution still runs exactly once, in order, and solves the
 * cube. */
static void test_lossy_link(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    uint64_t rng = 2024;
    qs_move scramble[20], solution[20];
    for (int i = 0; i < 20; i++)
        scramble[i] = (qs_move)(sim_rand_next(&rng) % 18);
    qs_moves_invert(scramble, 20, solution);
    char text[256];
    assert_true(qs_moves_format(scramble, 20, text, sizeof text) > 0);
    fwp_step *steps = malloc(sizeof *steps * 4 * ROBOT_MAX_STEPS);
    assert_non_null(steps);
    int n = plan_steps(solution, 20, ROBOT_OBJ_MOVES, steps,
                       4 * ROBOT_MAX_STEPS, 500);
    assert_true(n >= 20);

    sim_start(sp, (const char *[]){"--speed", "0", "--scramble", text,
                                   "--drop", "0.05", "--dup", "0.03",
                                   "--corrupt", "0.03", "--delay", "0.05",
                                   "--delay-ms", "10", "--seed", "7",
                                   "--retransmit-ms", "25", "--max-retries",
                                   "30", NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x4004, 25);
    home(h);
    /* One step per frame: many frames, so losses both ways (a robot
     * step is one protocol step, so there are fewer than there were). */
    send_steps(h, steps, n, 1);
    free(steps);
    if (!host_run(h, 15000, done_at_least, n))
        fail_msg("%d of %d steps done", h->n_done, n);
    wait_state(h, FWP_ROBOT_IDLE);
    for (int i = 0; i < n; i++)
        assert_int_equal(h->done[i], 500 + i);
    host_run(h, 100, NULL, 0); /* a duplicate would show up now */
    assert_int_equal(h->n_done, n);
    assert_int_equal(h->n_started, n);
    fwp_status s = query_status(h);
    assert_int_equal(s.last_step, 500 + n - 1);
    assert_cube(&s, solved);
    assert_int_equal(h->n_faults, 0);
    assert_int_equal(h->n_naks, 0);
    /* The link really was bad. */
    const fwp_stats *hs = fwp_get_stats(&h->ep);
    assert_true(hs->retransmits > 0);
    assert_true(hs->duplicates + hs->out_of_order > 0);
    assert_true(hs->crc_errors + hs->cobs_errors + hs->short_frames +
                    hs->too_long + hs->length_errors + hs->type_errors +
                    hs->version_errors + hs->payload_errors >
                0);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* The host falls silent mid-run: the watchdog stops all motion, reports
 * LINK_LOST, and the robot stays stopped until HOME. */
static void test_watchdog(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "2", "--link-timeout-ms", "200",
                                   NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x5005, 50);
    home(h);
    fwp_step steps[32];
    for (int i = 0; i < 32; i++)
        steps[i] = st((uint16_t)(100 + i), i % 2 ? "-..." : "+...");
    send_steps(h, steps, 32, 32); /* 30 ms each at --speed 2 */
    assert_true(host_run(h, 3000, done_at_least, 2));

    test_sleep_ms(500); /* no heartbeat, no ack, nothing read */

    assert_true(host_run(h, 3000, faults_at_least, 1));
    assert_int_equal(h->faults[0].code, FWP_FAULT_LINK_LOST);
    wait_state(h, FWP_ROBOT_STOPPED);
    int done = h->n_done;
    assert_true(done < 32);
    host_run(h, 300, NULL, 0);
    assert_int_equal(h->n_done, done); /* nothing moves any more */
    fwp_status s = query_status(h);
    assert_int_equal(s.state, FWP_ROBOT_STOPPED);
    assert_int_equal(s.fault, FWP_FAULT_LINK_LOST);
    assert_int_equal(s.queued, 0);
    assert_int_equal(s.last_step, 100 + done - 1);
    char want[55];
    facelets_of_moves(done % 2 ? "R" : "", want);
    assert_cube(&s, want);

    fwp_step more = st(200, "+...");
    send_steps(h, &more, 1, 32);
    assert_true(host_run(h, 3000, naks_at_least, 1));
    assert_int_equal(h->naks[0].reason, FWP_NAK_STOPPED);
    home(h);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* ESTOP stops at once and drops the queue. */
static void test_estop(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "2", NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x6006, 50);
    home(h);
    fwp_step steps[32];
    for (int i = 0; i < 32; i++)
        steps[i] = st((uint16_t)i, i % 2 ? "...-" : "...+");
    send_steps(h, steps, 32, 32);
    assert_true(host_run(h, 3000, done_at_least, 2));
    send_simple(h, FWP_MSG_ESTOP);
    wait_state(h, FWP_ROBOT_STOPPED);
    int done = h->n_done;
    host_run(h, 200, NULL, 0);
    assert_int_equal(h->n_done, done);
    assert_true(done < 32);
    fwp_status s = query_status(h);
    assert_int_equal(s.fault, 0);
    assert_int_equal(s.queued, 0);
    assert_int_equal(s.last_step, done - 1);
    char want[55];
    facelets_of_moves(done % 2 ? "B" : "", want);
    assert_cube(&s, want);
    home(h);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* Injected stall and motor fault, counted over the steps started. */
static void test_stall_and_motor_fault(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "0", "--stall-step", "3",
                                   "--motor-fault", "5", NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x7007, 50);
    home(h);
    const fwp_step a[] = {st(0, "+..."), st(1, "+..."), st(2, "..+."),
                          st(3, "2...")};
    send_steps(h, a, 4, 32);
    assert_true(host_run(h, 3000, faults_at_least, 1));
    assert_int_equal(h->faults[0].code, FWP_FAULT_STALL);
    assert_int_equal(h->faults[0].step_id, 2);
    assert_int_equal(h->faults[0].gripper, FWP_GRIPPER_F);
    wait_state(h, FWP_ROBOT_FAULT);
    assert_int_equal(h->n_done, 2);
    assert_int_equal(h->n_started, 3);
    fwp_status s = query_status(h);
    assert_int_equal(s.last_step, 1);
    char want[55];
    facelets_of_moves("R2", want);
    assert_cube(&s, want); /* the stalled step is not in */

    home(h);
    const fwp_step b[] = {st(4, "...+"), st(5, "...-"), st(6, "+...")};
    send_steps(h, b, 3, 32);
    assert_true(host_run(h, 3000, faults_at_least, 2));
    assert_int_equal(h->faults[1].code, FWP_FAULT_OVERCURRENT);
    assert_int_equal(h->faults[1].step_id, 5);
    assert_int_equal(h->faults[1].gripper, FWP_GRIPPER_B);
    assert_int_equal(h->n_done, 3);
    s = query_status(h);
    facelets_of_moves("R2 B", want);
    assert_cube(&s, want);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* --disconnect-after cuts the connection once N steps are done; the robot
 * stops there and the next host finds it so. */
static void test_disconnect_after(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "0", "--disconnect-after", "5",
                                   NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x8008, 50);
    home(h);
    fwp_step steps[10];
    for (int i = 0; i < 10; i++)
        steps[i] = st((uint16_t)(100 + i), i % 2 ? "-..." : "+...");
    send_steps(h, steps, 10, 32);
    assert_true(host_run(h, 3000, at_eof, 0));
    assert_true(h->n_done <= 5);
    assert_true(sim_alive(sp));

    host *h2 = fx->h[1];
    host_connect(h2, test_tcp_connect(sp->port), 0x8009, 50);
    fwp_status s = query_status(h2);
    assert_int_equal(s.state, FWP_ROBOT_STOPPED);
    assert_int_equal(s.fault, FWP_FAULT_LINK_LOST);
    assert_int_equal(s.last_step, 104);
    assert_int_equal(s.queued, 0);
    char want[55];
    facelets_of_moves("R", want); /* R R' R R' R */
    assert_cube(&s, want);
    home(h2);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* A batch refused as BUSY must not be overtaken by the batches behind it. */
static void test_busy_keeps_order(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--speed", "2", "--queue", "8", NULL});
    host_connect(h, test_tcp_connect(sp->port), 0x9009, 50);
    assert_int_equal(h->hello.max_steps, 8);
    home(h);
    fwp_step s[14];
    for (int i = 0; i < 14; i++)
        s[i] = st((uint16_t)i, i % 2 ? "-..." : "+...");
    send_steps(h, s, 6, 6);      /* accepted */
    send_steps(h, s + 6, 6, 6);  /* does not fit: BUSY */
    send_steps(h, s + 12, 2, 2); /* would fit, but must wait for 6..11 */
    assert_true(host_run(h, 3000, naks_at_least, 2));
    assert_int_equal(h->naks[0].reason, FWP_NAK_BUSY);
    assert_int_equal(h->naks[1].reason, FWP_NAK_BUSY);
    assert_true(host_run(h, 3000, done_at_least, 6));
    wait_state(h, FWP_ROBOT_IDLE);
    send_steps(h, s + 6, 6, 6);
    send_steps(h, s + 12, 2, 2);
    assert_true(host_run(h, 3000, done_at_least, 14));
    for (int i = 0; i < 14; i++)
        assert_int_equal(h->done[i], i);
    assert_int_equal(h->n_naks, 2);
    fwp_status q = query_status(h);
    assert_cube(&q, solved);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* The pseudo-terminal transport. */
static void test_pty(void **state)
{
    fixture *fx = *state;
    simproc *sp = &fx->sp[0];
    host *h = fx->h[0];
    sim_start(sp, (const char *[]){"--pty", "--speed", "0", NULL});
    assert_true(sp->pty[0] == '/');
    int fd = open(sp->pty, O_RDWR | O_NOCTTY | O_CLOEXEC);
    assert_true(fd >= 0);
    struct termios t;
    assert_int_equal(tcgetattr(fd, &t), 0);
    cfmakeraw(&t);
    assert_int_equal(tcsetattr(fd, TCSANOW, &t), 0);
    host_connect(h, fd, 0xA00A, 50);
    home(h);
    const fwp_step x[] = {st(0, "tT.."), st(1, "Gg..")};
    send_steps(h, x, 2, 32);
    assert_true(host_run(h, 3000, done_at_least, 2));
    fwp_status s = query_status(h);
    assert_cube(&s, solved); /* a tilt turns no face */
    assert_int_equal(s.last_step, 1);
    assert_int_equal(sim_stop(sp, SIGTERM), 0);
}

/* Runs quadsim with a shell command line; returns the exit status and
 * as much of stdout+stderr as out holds. */
static int run_cli(const char *args, char *out, size_t cap)
{
    char cmd[1024];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1", quadsim_path(), args);
    return test_run_into(cmd, out, cap);
}

static void test_command_line(void **state)
{
    fixture *fx = *state;
    char out[8192];
    assert_int_equal(run_cli("--help", out, sizeof out), 0);
    assert_non_null(strstr(out, "Usage: quadsim"));
    assert_non_null(strstr(out, "--disconnect-after"));
    static const struct {
        const char *args, *says;
    } bad[] = {
        {"--speed fast", "--speed"},
        {"--speed -1", "--speed"},
        {"--drop 1.5", "--drop"},
        {"--tcp 65536", "--tcp"},
        {"--tcp", "needs a value"},
        {"--bogus", "unknown option"},
        {"stray", "unexpected argument"},
        {"--profile nosuch", "PROFILE_NAME"},
        {"--profile /nonexistent/p.json", "PROFILE_IO"},
        {"--cube UUU", "LENGTH"},
        {"--scramble 'R X'", "MOVE"},
        {"--cube " "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB"
         " --scramble R", "once"},
        {"--pty --tcp 0", "one transport"},
        {"--pty --disconnect-after 3", "needs --tcp"},
        {"--queue 0", "--queue"},
        {"--window 9", "--window"},
        {"--max-steps 33", "--max-steps"},
        {"--jitter 0.9", "--jitter"},
        {"--seed x", "--seed"},
        {"--session 0", "--session"},
        {"--log-level loud", "--log-level"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int rc = run_cli(bad[i].args, out, sizeof out);
        if (rc != 2 || !strstr(out, bad[i].says))
            fail_msg("quadsim %s: exit %d, said '%s'", bad[i].args, rc, out);
    }
    /* SIGTERM and SIGINT end it with status 0. */
    sim_start(&fx->sp[0], (const char *[]){NULL});
    assert_true(fx->sp[0].port > 0);
    assert_int_equal(sim_stop(&fx->sp[0], SIGTERM), 0);
    sim_start(&fx->sp[0], (const char *[]){"--tcp", "0", NULL});
    assert_int_equal(sim_stop(&fx->sp[0], SIGINT), 0);
}

int main(void)
{
    signal(SIGPIPE, SIG_IGN);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_model_rules),
        cmocka_unit_test(test_model_durations),
        cmocka_unit_test(test_model_matches_robot_model),
        cmocka_unit_test(test_model_random_plans),
        cmocka_unit_test(test_inject),
        cmocka_unit_test_setup_teardown(test_session_home_steps, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_impossible_steps, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_garbage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_lossy_link, setup, teardown),
        cmocka_unit_test_setup_teardown(test_watchdog, setup, teardown),
        cmocka_unit_test_setup_teardown(test_estop, setup, teardown),
        cmocka_unit_test_setup_teardown(test_stall_and_motor_fault, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_disconnect_after, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_busy_keeps_order, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_pty, setup, teardown),
        cmocka_unit_test_setup_teardown(test_command_line, setup, teardown),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
