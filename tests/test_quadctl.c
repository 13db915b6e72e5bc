/*
 * test_quadctl.c - tests of the controller quadctl (ctl/) and of the
 * robot library's expansion into primitive steps that it relies on.
 *
 * Unit tests: robot_expand on every kind of robot step in every gripper
 * state a plan reaches, each expansion replayed on quadsim's physical
 * model (sim/model.c, compiled in) and compared with the robot model
 * after every step, and its timed schedule (robot_prims_us) with
 * quadsim's durations; illegal plans refused; robot_sim_view against face
 * turns; the recovery computation (ctl/recover.c, compiled in) at every
 * cut of a plan, checked against the physical model and by finishing the
 * solve from the computed state.
 *
 * End to end, with real processes on 127.0.0.1: one quadsolved for the
 * whole binary (QUADSOLVED), a fresh quadsim (QUADSIM) per cube at
 * --speed 0, and quadctl (QUADCTL): 100 random cubes solved, each time
 * quadsim's own log showing every planned step done exactly once, in
 * order, and its cube solved; the same over a lossy link; batches
 * refused BUSY and resent; a cut connection reported with the exact
 * steps done, then finished with --recover; faults; calibration whose
 * profile then predicts the simulated robot exactly. Every process
 * started is killed at teardown, also when an assertion fails.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "ctl.h"
#include "sim.h"
#include "testutil.h"

/* ------------------------------------------------------------- utilities */

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static robot_profile profile_default(void)
{
    robot_profile p;
    assert_int_equal(robot_profile_builtin("default", &p), ROBOT_OK);
    return p;
}

/* A random legal robot step from the robot's state: any turn of R, L, F,
 * B (single or pair), tilt or full regrip, with random regrips. */
static robot_step random_legal(robot_sim *rs, uint64_t *rng)
{
    for (;;) {
        robot_step s;
        int k = (int)(rng_next(rng) % 10);
        if (k < 6) {
            s.kind = ROBOT_STEP_TURN;
            if (rng_next(rng) % 3) {
                static const int faces[4] = {1, 2, 4, 5};
                s.arg = (uint8_t)(faces[rng_next(rng) % 4] * 3 +
                                  rng_next(rng) % 3);
            } else {
                /* Pairs on R-L (axis 1) and F-B (axis 2). */
                s.arg = (uint8_t)(18 + (1 + rng_next(rng) % 2) * 9 +
                                  rng_next(rng) % 9);
            }
        } else if (k < 8) {
            s.kind = ROBOT_STEP_TILT;
            s.arg = (uint8_t)(rng_next(rng) % 2);
        } else {
            s.kind = ROBOT_STEP_REGRIP;
            s.arg = 0;
        }
        s.regrips = (uint8_t)(rng_next(rng) % 4 == 0 ? 0 : rng_next(rng) % 16);
        if (k < 8 && rng_next(rng) % 2)
            s.regrips = 0;
        robot_sim t = *rs;
        if (robot_sim_step(&t, &s, NULL, NULL, 0) == ROBOT_OK) {
            *rs = t;
            return s;
        }
    }
}

/* ------------------------------------------------------------ expansion */

static fwp_step to_fwp(const robot_prim *p)
{
    fwp_step s;
    memset(&s, 0, sizeof s);
    memcpy(s.action, p->action, FWP_GRIPPERS);
    return s;
}

static void expect_expansion(const char *plan, const char *want)
{
    robot_step steps[16];
    robot_prim prims[48];
    char detail[160];
    int n = robot_steps_parse(plan, steps, 16, detail, sizeof detail);
    assert_true(n > 0);
    int k = robot_expand(steps, n, prims, 48, detail, sizeof detail);
    if (k < 0)
        fail_msg("%s: %s", plan, detail);
    char got[256] = "";
    for (int i = 0; i < k; i++) {
        char one[FWP_GRIPPERS + 1];
        test_fwp_spell(prims[i].action, one);
        strcat(got, i ? " " : "");
        strcat(got, one);
    }
    if (strcmp(got, want) != 0)
        fail_msg("%s expands to '%s', expected '%s'", plan, got, want);
}

/* Each kind by hand: turns, pairs, regrips beside a turn and a tilt, a
 * full regrip; across grippers regrip back, neutral ones ahead. */
static void test_expand_hand(void **state)
{
    (void)state;
    expect_expansion("R", "+...");
    expect_expansion("L2 F'", ".2.. ..-.");
    expect_expansion("(R2 L2) (F2 B)", "22.. ..2+");
    expect_expansion("R+rL", "+g..");
    expect_expansion("F2+rL", ".g2.");
}

/* The hand expectations that need a fuller plan. */
static void test_expand_hand_more(void **state)
{
    (void)state;
    /* tRL: R and L turn the cube (F and B let go and close again). */
    expect_expansion("tRL", "tT..");
    expect_expansion("R tFB+rR", "+... G.tT");
    /* R ends across; a full regrip turns it back. */
    expect_expansion("R rR", "+... G...");
    /* R' ends across the other way (angle 3): back is clockwise. */
    expect_expansion("R' rR+rL", "-... gg..");
    /* The R U example of docs/quadsim.md. */
    expect_expansion("tRL R+rL B", "tT.. +g.. ...+");
}

/* Illegal plans are refused, never expanded. */
static void test_expand_refused(void **state)
{
    (void)state;
    robot_step steps[8];
    robot_prim prims[24];
    char detail[160];
    /* R then F: both axes across. */
    int n = robot_steps_parse("R F", steps, 8, NULL, 0);
    assert_int_equal(robot_expand(steps, n, prims, 24, detail, sizeof detail),
                     ROBOT_ERR_COLLISION);
    assert_non_null(strstr(detail, "step 2"));
    /* After tRL, R and L stand across: nothing holds a turn of F. */
    n = robot_steps_parse("tRL F", steps, 8, NULL, 0);
    assert_int_equal(robot_expand(steps, n, prims, 24, NULL, 0),
                     ROBOT_ERR_SUPPORT);
    /* A turning gripper cannot regrip. */
    n = robot_steps_parse("R+rR", steps, 8, NULL, 0);
    assert_int_equal(robot_expand(steps, n, prims, 24, NULL, 0),
                     ROBOT_ERR_STEP);
    /* Too small a buffer. */
    n = robot_steps_parse("tRL rR+rL tFB", steps, 8, NULL, 0);
    assert_int_equal(robot_expand(steps, n, prims, 2, NULL, 0),
                     ROBOT_ERR_BUFFER);
    assert_int_equal(robot_expand(steps, n, prims, 3, NULL, 0), 3);
    assert_int_equal(robot_expand(NULL, 1, prims, 3, NULL, 0),
                     ROBOT_ERR_ARGUMENT);
}

/* Long random legal plans: every kind of step in every gripper state a
 * plan reaches, each expansion executed on quadsim's physical model. After
 * every robot step the two agree on the cube, the orientation and which
 * grippers stand across, and every gripper is closed again. */
static void test_expand_random_against_sim(void **state)
{
    (void)state;
    uint64_t rng = 0x9E3779B97F4A7C15ull;
    int seen[3][16] = {{0}};
    int from_state[ROBOT_STATES] = {0};
    robot_prim *prims = malloc(sizeof *prims * ROBOT_MAX_PRIMS);
    assert_non_null(prims);
    for (int t = 0; t < 200; t++) {
        qs_cube cube;
        qs_cube_random(&cube, &rng);
        robot_sim gen;
        robot_sim_init(&gen, &cube);
        robot_step steps[60];
        int n = 60;
        for (int i = 0; i < n; i++) {
            from_state[robot_state_of(robot_sim_across(&gen))]++;
            steps[i] = random_legal(&gen, &rng);
            seen[steps[i].kind][steps[i].regrips]++;
        }
        char detail[160];
        int k = robot_expand(steps, n, prims, ROBOT_MAX_PRIMS, detail,
                             sizeof detail);
        if (k < 0)
            fail_msg("plan %d: %s", t, detail);
        robot_sim rs;
        robot_sim_init(&rs, &cube);
        sim_robot sr;
        sim_robot_init(&sr, &cube);
        /* The timed schedule under every built-in profile. */
        robot_profile prof[3];
        int64_t *us[3];
        for (int q = 0; q < 3; q++) {
            assert_int_equal(
                robot_profile_builtin(robot_profile_builtin_name(q), &prof[q]),
                ROBOT_OK);
            us[q] = malloc(sizeof(int64_t) * (size_t)k);
            assert_non_null(us[q]);
            assert_int_equal(robot_prims_us(&prof[q], prims, k, us[q]),
                             ROBOT_OK);
        }
        int p = 0;
        for (int i = 0; i < n; i++) {
            assert_int_equal(robot_sim_step(&rs, &steps[i], NULL, NULL, 0),
                             ROBOT_OK);
            int count = 0, motion = 0;
            for (; p < k && prims[p].step == i; p++, count++) {
                fwp_step fs = to_fwp(&prims[p]);
                char why[160];
                sim_motion mo;
                int rc = sim_robot_step(&sr, &fs, &mo, why, sizeof why);
                if (rc != SIM_OK)
                    fail_msg("plan %d step %d primitive %d: %s: %s", t, i,
                             count, sim_errcode(rc), why);
                for (int q = 0; q < 3; q++)
                    assert_int_equal(us[q][p], sim_motion_us(&mo, &prof[q]));
                motion += prims[p].role == ROBOT_PRIM_MOTION;
            }
            assert_int_equal(motion, 1);
            assert_int_equal(count, 1); /* one wire step per robot step */
            assert_true(qs_cube_equal(&rs.cube, &sr.cube));
            assert_int_equal(robot_sim_across(&rs), sim_robot_across(&sr));
            for (int pos = 0; pos < 6; pos++)
                assert_int_equal(robot_sim_face_at(&rs, pos),
                                 sim_robot_face_at(&sr, pos));
            assert_int_equal(sr.closed, 0x0F);
        }
        assert_int_equal(p, k);
        for (int q = 0; q < 3; q++)
            free(us[q]);
    }
    free(prims);
    /* Every kind, with and without regrips, from every gripper state. */
    for (int kind = 0; kind < 3; kind++) {
        int with = 0;
        for (int m = 1; m < 16; m++)
            with += seen[kind][m];
        assert_true(with > 0);
        if (kind != ROBOT_STEP_REGRIP)
            assert_true(seen[kind][0] > 0);
    }
    for (int s = 0; s < ROBOT_STATES; s++)
        assert_true(from_state[s] > 0);
}

/* --------------------------------------------------------------- views */

static void apply_view_move(const char in[55], qs_move m, char out[55])
{
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets(in, &c, NULL, 0), QS_OK);
    qs_cube_apply_move(&c, m);
    qs_cube_to_facelets(&c, out);
}

/* The view of a robot in any orientation: a turn of the face at robot
 * position p in the view is the cube-frame turn of the cube face there. */
static void test_view(void **state)
{
    (void)state;
    uint64_t rng = 77;
    qs_cube cube;
    qs_cube_random(&cube, &rng);
    robot_sim rs;
    robot_sim_init(&rs, &cube);
    char v[55], f[55];
    robot_sim_view(&rs, v);
    qs_cube_to_facelets(&cube, f);
    assert_string_equal(v, f); /* home: the cube itself */
    int orientations = 0;
    unsigned seen = 0;
    for (int i = 0; i < 1000; i++) {
        random_legal(&rs, &rng);
        int o = robot_orientation(robot_sim_face_at(&rs, 0),
                                  robot_sim_face_at(&rs, 2));
        assert_true(o >= 0);
        if (!(seen & 1u << o))
            orientations++;
        seen |= 1u << o;
        robot_sim_view(&rs, v);
        qs_cube vc;
        assert_int_equal(qs_cube_from_facelets(v, &vc, NULL, 0), QS_OK);
        for (int m = 0; m < QS_MOVE_COUNT; m++) {
            char a[55], b[55];
            apply_view_move(v, (qs_move)m, a);
            /* The same move in the cube's frame, then viewed. */
            robot_sim moved = rs;
            qs_move cm = QS_MOVE_COUNT;
            for (int c2 = 0; c2 < QS_MOVE_COUNT; c2++)
                if (ctl_view_move(&rs, (qs_move)c2) == m)
                    cm = (qs_move)c2;
            assert_true(cm < QS_MOVE_COUNT);
            qs_cube_apply_move(&moved.cube, cm);
            robot_sim_view(&moved, b);
            assert_string_equal(a, b);
        }
    }
    /* Nearly all 24 orientations (this seed reaches 23). */
    if (orientations < 20)
        fail_msg("orientations reached: 0x%06x", seen);
}

/* ------------------------------------------------------------- recovery */

/* A plan cut after any number of confirmed primitives: the replay agrees
 * with the physical model that executed exactly those primitives, and the
 * rest of the moves, seen from where the cube now is, solve the view. */
static void test_recovery_state(void **state)
{
    (void)state;
    robot_model *m = malloc(sizeof *m);
    robot_schedule *plan = malloc(sizeof *plan);
    robot_prim *prims = malloc(sizeof *prims * ROBOT_MAX_PRIMS);
    assert_non_null(m);
    assert_non_null(plan);
    assert_non_null(prims);
    robot_model_init(m);
    uint64_t rng = 4242;
    int cuts = 0;
    for (int t = 0; t < 30; t++) {
        qs_move moves[QS_MAX_MOVES];
        int n = 8 + (int)(rng_next(&rng) % 17);
        for (int i = 0; i < n; i++)
            moves[i] = (qs_move)(rng_next(&rng) % QS_MOVE_COUNT);
        qs_move inv[QS_MAX_MOVES];
        qs_moves_invert(moves, n, inv);
        qs_cube cube;
        qs_cube_solved(&cube);
        qs_cube_apply_moves(&cube, inv, n);
        robot_profile prof = profile_default();
        assert_int_equal(robot_plan(m, &prof, ROBOT_OBJ_MOVES, moves, n,
                                    plan),
                         ROBOT_OK);
        int k = robot_expand(plan->steps, plan->n, prims, ROBOT_MAX_PRIMS,
                             NULL, 0);
        assert_true(k > 0);
        for (int done = 0; done <= k; done++) {
            robot_sim world;
            robot_sim_init(&world, &cube);
            int turns = -1;
            int applied = ctl_replay_done(&world, plan->steps, plan->n,
                                          prims, k, done, &turns);
            assert_true(applied >= 0);
            sim_robot sr;
            sim_robot_init(&sr, &cube);
            for (int i = 0; i < done; i++) {
                fwp_step fs = to_fwp(&prims[i]);
                assert_int_equal(sim_robot_step(&sr, &fs, NULL, NULL, 0),
                                 SIM_OK);
            }
            assert_true(qs_cube_equal(&world.cube, &sr.cube));
            for (int p = 0; p < 6; p++)
                assert_int_equal(robot_sim_face_at(&world, p),
                                 sim_robot_face_at(&sr, p));
            /* Home, then finish from the view with the remaining moves. */
            memset(world.quarters, 0, sizeof world.quarters);
            char view[55];
            robot_sim_view(&world, view);
            qs_move rest[QS_MAX_MOVES];
            for (int i = turns; i < n; i++)
                rest[i - turns] = ctl_view_move(&world, moves[i]);
            qs_cube vc;
            assert_int_equal(qs_cube_from_facelets(view, &vc, NULL, 0), QS_OK);
            qs_cube_apply_moves(&vc, rest, n - turns);
            assert_true(qs_cube_is_solved(&vc));
            /* And physically: the new plan, executed on the model that
             * was homed where it stopped, solves the real cube. */
            robot_schedule *p2 = malloc(sizeof *p2);
            robot_prim *pr2 = malloc(sizeof *pr2 * ROBOT_MAX_PRIMS);
            assert_non_null(p2);
            assert_non_null(pr2);
            assert_int_equal(robot_plan(m, &prof, ROBOT_OBJ_MOVES, rest,
                                        n - turns, p2),
                             ROBOT_OK);
            int k2 = robot_expand(p2->steps, p2->n, pr2, ROBOT_MAX_PRIMS,
                                  NULL, 0);
            assert_true(k2 >= 0);
            sim_robot_home(&sr);
            for (int i = 0; i < k2; i++) {
                fwp_step fs = to_fwp(&pr2[i]);
                assert_int_equal(sim_robot_step(&sr, &fs, NULL, NULL, 0),
                                 SIM_OK);
            }
            assert_true(qs_cube_is_solved(&sr.cube));
            free(p2);
            free(pr2);
            cuts++;
        }
    }
    assert_true(cuts > 300);
    free(m);
    free(plan);
    free(prims);
}

/* Calibration from measured durations: a profile that predicts exactly
 * what the durations were, keeping settle_ms. */
static void test_calibration_math(void **state)
{
    (void)state;
    robot_profile real, base = profile_default();
    assert_int_equal(robot_profile_builtin("servo", &real), ROBOT_OK);
    robot_model *m = malloc(sizeof *m);
    robot_schedule *plan = malloc(sizeof *plan);
    robot_prim *prims = malloc(sizeof *prims * ROBOT_MAX_PRIMS);
    uint16_t *ms = malloc(sizeof *ms * ROBOT_MAX_PRIMS);
    assert_non_null(m);
    assert_non_null(plan);
    assert_non_null(prims);
    assert_non_null(ms);
    robot_model_init(m);
    qs_move moves[QS_MAX_MOVES];
    /* quadctl calibrate's moves and their inverse. */
    int n = qs_moves_parse("R2 F2 U R2 (F B') L (R2 L') D' F2 B (U D2) R' "
                           "(R L) F' "
                           "B2 R (F2 B2) D",
                           moves, QS_MAX_MOVES / 2, NULL, 0);
    qs_moves_invert(moves, n, moves + n);
    n *= 2;
    assert_int_equal(robot_plan(m, &base, ROBOT_OBJ_MOVES, moves, n, plan),
                     ROBOT_OK);
    int probes = ctl_calibration_probes(prims, ROBOT_MAX_PRIMS);
    assert_int_equal(probes, 16);
    int k = probes + robot_expand(plan->steps, plan->n, prims + probes,
                                  ROBOT_MAX_PRIMS - probes, NULL, 0);
    assert_int_equal(k, probes + plan->n);
    /* What quadsim reports for each step under the servo profile. */
    sim_robot sr;
    sim_robot_init(&sr, NULL);
    double measured = 0;
    for (int i = 0; i < k; i++) {
        fwp_step fs = to_fwp(&prims[i]);
        sim_motion mo;
        assert_int_equal(sim_robot_step(&sr, &fs, &mo, NULL, 0), SIM_OK);
        ms[i] = (uint16_t)((sim_motion_us(&mo, &real) + 500) / 1000);
        if (i >= probes)
            measured += ms[i];
    }
    ctl_calibration c;
    memset(&c, 0, sizeof c);
    ctl_calibration_add(&c, plan->steps, prims, k, k, ms, base.settle_ms);
    robot_profile cal;
    int changed = ctl_calibration_profile(&c, &base, &cal);
    if (changed != 8)
        fail_msg("%d keys measured: turns %d %d %d %d, tilt %d, regrip %d",
                 changed, c.turn[0].n, c.turn[1].n, c.turn[2].n, c.turn[3].n,
                 c.tilt.n, c.regrip.n);
    assert_string_equal(cal.name, "default-calibrated");
    /* The physical durations come back; the settle is the base's. */
    assert_true(cal.settle_ms == base.settle_ms);
    assert_true(cal.open_ms == real.open_ms);
    assert_true(cal.close_ms == real.close_ms);
    assert_true(cal.regrip_ms == real.regrip_ms);
    assert_true(cal.quarter_ms == real.quarter_ms + real.settle_ms -
                                      base.settle_ms);
    assert_true(cal.tilt_ms == real.tilt_ms + real.settle_ms -
                                   base.settle_ms);
    double predicted = 0;
    for (int i = 0; i < plan->n; i++)
        predicted += (double)robot_step_us(&cal, &plan->steps[i]) / 1000.0;
    assert_true(predicted > measured - 0.01 && predicted < measured + 0.01);
    /* Only what was done counts: the probes alone give grips only. */
    ctl_calibration c2;
    memset(&c2, 0, sizeof c2);
    ctl_calibration_add(&c2, plan->steps, prims, k, probes, ms,
                        base.settle_ms);
    assert_int_equal(c2.open.n, 4);
    assert_int_equal(c2.close.n, 4);
    assert_int_equal(c2.regrip.n, 8);
    assert_int_equal(c2.turn[0].n + c2.tilt.n, 0);
    free(m);
    free(plan);
    free(prims);
    free(ms);
}

/* ------------------------------------------------------------ processes */

typedef struct {
    pid_t daemon;
    char endpoint[128];
    pid_t sim[4];
    int port[4];          /* where quadsim in each slot listens */
    char portspec[4][64]; /* the same as quadctl's --port */
    char dir[64]; /* scratch directory for logs and outputs */
} fixture;

static const char *env_path(const char *name)
{
    const char *p = getenv(name);
    if (!p || !*p)
        fail_msg("%s is not set", name);
    return p;
}

static int stop_bg(pid_t pid)
{
    if (pid <= 0)
        return -1;
    kill(pid, SIGTERM);
    int st = 0;
    int64_t end = test_mono_ms() + test_scaled_ms(5000);
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (test_mono_ms() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            break;
        }
        struct timespec ts = {0, 2000000};
        nanosleep(&ts, NULL);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int group_setup(void **state)
{
    fixture *fx = calloc(1, sizeof *fx);
    if (!fx)
        return -1;
    snprintf(fx->dir, sizeof fx->dir, "/tmp/test_quadctl.XXXXXX");
    if (!mkdtemp(fx->dir))
        return -1;
    *state = fx;
    return 0;
}

static int group_teardown(void **state)
{
    fixture *fx = *state;
    for (int i = 0; i < 4; i++)
        if (fx->sim[i] > 0)
            stop_bg(fx->sim[i]);
    if (fx->daemon > 0)
        stop_bg(fx->daemon);
    /* and any a failed test left behind (its slot reused by the next) */
    test_kill_all_children();
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", fx->dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", fx->dir);
    free(fx);
    return 0;
}

/* The daemon, started by the first test that needs it and kept. */
static const char *daemon_endpoint(fixture *fx)
{
    if (fx->daemon > 0)
        return fx->endpoint;
    const char *argv[] = {env_path("QUADSOLVED"), "--bind",
                          "tcp://127.0.0.1:0", "--metrics", "robot",
                          "--threads", "1", "--log-level", "warn", NULL};
    char line[256], err[256];
    snprintf(err, sizeof err, "%s/quadsolved.log", fx->dir);
    fx->daemon = test_start(argv, err, line, sizeof line, 20000);
    if (sscanf(line, "listening %127s", fx->endpoint) != 1)
        fail_msg("quadsolved did not say where it listens: '%s'", line);
    return fx->endpoint;
}

/* Starts quadsim in slot i with --speed 0, the cube and extra options;
 * its debug log goes to DIR/sim<i>.log. Returns the --port of quadctl
 * that reaches it (fx->portspec[i]; the port is fx->port[i]). */
static const char *sim_start(fixture *fx, int i, const char *cube,
                             const char *const *extra)
{
    const char *argv[40];
    int n = 0;
    argv[n++] = env_path("QUADSIM");
    argv[n++] = "--tcp";
    argv[n++] = "0";
    argv[n++] = "--speed";
    argv[n++] = "0";
    argv[n++] = "--log-level";
    argv[n++] = "debug";
    if (cube) {
        argv[n++] = "--cube";
        argv[n++] = cube;
    }
    for (int k = 0; extra && extra[k]; k++)
        argv[n++] = extra[k];
    argv[n] = NULL;
    char line[256], log[256];
    snprintf(log, sizeof log, "%s/sim%d.log", fx->dir, i);
    fx->sim[i] = test_start(argv, log, line, sizeof line, 5000);
    if (sscanf(line, "listening tcp:127.0.0.1:%d", &fx->port[i]) != 1)
        fail_msg("quadsim did not say where it listens: '%s'", line);
    snprintf(fx->portspec[i], sizeof fx->portspec[i], "tcp:127.0.0.1:%d",
             fx->port[i]);
    return fx->portspec[i];
}

/* What quadsim's log says it executed: step ids in order and the cube
 * after the last. */
typedef struct {
    int done;
    long ids[2048];
    char cube[55];
} sim_report;

static void sim_finish(fixture *fx, int i, sim_report *r)
{
    stop_bg(fx->sim[i]);
    fx->sim[i] = 0;
    char path[256], line[1024];
    snprintf(path, sizeof path, "%s/sim%d.log", fx->dir, i);
    FILE *f = fopen(path, "r");
    assert_non_null(f);
    memset(r, 0, sizeof *r);
    while (fgets(line, sizeof line, f)) {
        const char *p = strstr(line, " step ");
        unsigned id, nth;
        if (!p || sscanf(p, " step %u done (#%u)", &id, &nth) != 2)
            continue;
        assert_true(r->done < 2048);
        r->ids[r->done++] = id;
        const char *c = strstr(p, "cube=");
        assert_non_null(c);
        memcpy(r->cube, c + 5, 54);
    }
    fclose(f);
}

/* Whether the last quadctl run's standard error or output contains
 * text. */
static bool log_says(fixture *fx, const char *text)
{
    static const char *const files[] = {"ctl.log", "out.json"};
    for (int i = 0; i < 2; i++) {
        char path[256], buf[8192];
        snprintf(path, sizeof path, "%s/%s", fx->dir, files[i]);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        if (strstr(buf, text))
            return true;
        print_message("quadctl said (%s): %s\n", files[i], buf);
    }
    return false;
}

/* Runs quadctl with argv (after the program), stdout to DIR/out.json;
 * returns the exit status and the parsed JSON (if any) in *json. */
static int run_ctl(fixture *fx, const char *const *args, cJSON **json)
{
    const char *argv[48];
    int n = 0;
    argv[n++] = env_path("QUADCTL");
    for (int k = 0; args[k]; k++)
        argv[n++] = args[k];
    argv[n] = NULL;
    char out[256], err[256];
    snprintf(out, sizeof out, "%s/out.json", fx->dir);
    snprintf(err, sizeof err, "%s/ctl.log", fx->dir);
    pid_t pid = test_fork(); /* dies with the test */
    if (pid == 0) {
        int o = open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int e = open(err, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int in = open("/dev/null", O_RDONLY);
        dup2(o, STDOUT_FILENO);
        dup2(e, STDERR_FILENO);
        dup2(in, STDIN_FILENO);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    int64_t end = test_mono_ms() + 120000;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (test_mono_ms() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            fail_msg("quadctl did not finish within 120 s");
        }
        struct timespec ts = {0, 1000000};
        nanosleep(&ts, NULL);
    }
    if (json) {
        *json = NULL;
        FILE *f = fopen(out, "r");
        char *buf = malloc(1 << 20);
        assert_non_null(buf);
        if (f) {
            size_t k = fread(buf, 1, (1 << 20) - 1, f);
            buf[k] = '\0';
            fclose(f);
            *json = cJSON_Parse(buf);
        }
        free(buf);
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Runs quadctl with args against quadsim in slot 0, which is then
 * stopped: returns the exit status, the JSON quadctl printed (asserted
 * to be there) in *json and what quadsim executed in *r. */
static int run_on_sim(fixture *fx, const char *const *args, cJSON **json,
                      sim_report *r)
{
    int rc = run_ctl(fx, args, json);
    assert_non_null(*json);
    sim_finish(fx, 0, r);
    return rc;
}

static double jnum(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v))
        fail_msg("JSON key %s is not a number", key);
    return v->valuedouble;
}

static const char *jstr(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsString(v))
        fail_msg("JSON key %s is not a string", key);
    return v->valuestring;
}

static const cJSON *jattempt(const cJSON *j, int i)
{
    const cJSON *a = cJSON_GetArrayItem(
        cJSON_GetObjectItemCaseSensitive(j, "attempts"), i);
    assert_non_null(a);
    return a;
}

/* The protocol steps of a plan as quadctl printed it. */
static int expansion_size(const char *plan)
{
    robot_step *steps = malloc(sizeof *steps * ROBOT_MAX_STEPS);
    robot_prim *prims = malloc(sizeof *prims * ROBOT_MAX_PRIMS);
    assert_non_null(steps);
    assert_non_null(prims);
    int n = robot_steps_parse(plan, steps, ROBOT_MAX_STEPS, NULL, 0);
    assert_true(n >= 0);
    int k = robot_expand(steps, n, prims, ROBOT_MAX_PRIMS, NULL, 0);
    free(steps);
    free(prims);
    return k;
}

static const char solved[] =
    "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

/* The first n cubes of random-1k.txt, asserted to be there (the caller
 * frees them). */
static char (*first_cubes(int n))[55]
{
    char (*cubes)[55] = malloc(sizeof *cubes * (size_t)n);
    assert_non_null(cubes);
    assert_int_equal(test_read_bench("random-1k.txt", cubes, n), n);
    return cubes;
}

/* Checks the log of one clean solve: every planned step done once, in
 * order, from the first id on, and the cube solved. */
static void check_solve(const cJSON *j, const sim_report *r, int rc)
{
    if (rc != 0)
        fail_msg("quadctl exit %d: %s", rc,
                 cJSON_PrintUnformatted(
                     cJSON_GetObjectItemCaseSensitive(j, "error")));
    const cJSON *a = jattempt(j, 0);
    int prims = (int)jnum(a, "prims");
    assert_int_equal(prims, expansion_size(jstr(a, "plan")));
    assert_int_equal((int)jnum(a, "confirmed"), prims);
    assert_int_equal(r->done, prims);
    long first = (long)jnum(a, "first_id");
    for (int i = 0; i < r->done; i++)
        assert_int_equal(r->ids[i], (first + i) % 0xFFFF);
    if (prims)
        assert_string_equal(r->cube, solved);
}

/* Fidelity (issue 14): 100 cubes per built-in profile, planned by the
 * daemon under that profile and executed on quadsim timing the same
 * profile: every cube solved, and the plan's predicted time within 1% of
 * the simulated time in total and within 2% for every solve (both read
 * the same physical durations, with separate code). */
static void test_e2e_100(void **state)
{
    fixture *fx = *state;
    const char *ep = daemon_endpoint(fx);
    int n = 100;
    char (*cubes)[55] = first_cubes(n);
    for (int q = 0; robot_profile_builtin_name(q); q++) {
        const char *name = robot_profile_builtin_name(q);
        const char *sim_args[] = {"--profile", name, NULL};
        double predicted = 0, measured = 0;
        int prims = 0, robot_moves = 0;
        for (int i = 0; i < n; i++) {
            const char *portspec = sim_start(fx, 0, cubes[i], sim_args);
            const char *args[] = {cubes[i], "--server", ep, "--port",
                                  portspec, "--profile", name, "--json",
                                  "-q", NULL};
            cJSON *j = NULL;
            sim_report r;
            int rc = run_on_sim(fx, args, &j, &r);
            check_solve(j, &r, rc);
            const cJSON *t = cJSON_GetObjectItemCaseSensitive(j, "total");
            double p = jnum(t, "predicted_ms"), m = jnum(t, "measured_ms");
            predicted += p;
            measured += m;
            if (m < 0.98 * p || m > 1.02 * p)
                fail_msg("%s, cube %d: predicted %.3f ms, simulated %.3f ms",
                         name, i, p, m);
            /* The timed schedule is what the simulated robot took. */
            double e = jnum(t, "expected_ms");
            if (e < m - 0.01 || e > m + 0.01)
                fail_msg("%s, cube %d: expected %.3f ms, measured %.3f ms",
                         name, i, e, m);
            prims += r.done;
            robot_moves += (int)jnum(t, "robot_steps_done");
            /* quadctl's own view of the firmware's cube agrees. */
            const cJSON *fw = cJSON_GetObjectItemCaseSensitive(j, "firmware");
            assert_string_equal(jstr(fw, "cube"), solved);
            cJSON_Delete(j);
        }
        if (measured < 0.99 * predicted || measured > 1.01 * predicted)
            fail_msg("%s: predicted %.1f ms in all, simulated %.1f ms", name,
                     predicted, measured);
        /* One protocol step per robot step. */
        assert_int_equal(prims, robot_moves);
        assert_true(prims > 100 * 15);
    }
    free(cubes);
}

/* A lossy link: 5% of frames lost, 1% damaged, 2% duplicated, both ways;
 * still every step exactly once, in order, and the cube solved. */
static void test_e2e_lossy(void **state)
{
    fixture *fx = *state;
    const char *ep = daemon_endpoint(fx);
    char (*cubes)[55] = first_cubes(120);
    const char *faults[] = {"--drop", "0.05", "--corrupt", "0.01", "--dup",
                            "0.02", "--retransmit-ms", "50", "--seed", NULL,
                            NULL};
    for (int i = 100; i < 120; i++) {
        char seed[16];
        snprintf(seed, sizeof seed, "%d", i);
        faults[9] = seed;
        const char *portspec = sim_start(fx, 0, cubes[i], faults);
        const char *args[] = {cubes[i], "--server", ep, "--port", portspec,
                              "--retransmit-ms", "50", "--json", "-q", NULL};
        cJSON *j = NULL;
        sim_report r;
        int rc = run_on_sim(fx, args, &j, &r);
        check_solve(j, &r, rc);
        cJSON_Delete(j);
    }
    free(cubes);
}

/* A firmware queue smaller than what quadctl is allowed to send: batches
 * refused BUSY are sent again in order, nothing runs twice. */
static void test_e2e_busy(void **state)
{
    fixture *fx = *state;
    const char *moves = "R U2 F' L2 D B' R2 (U D') F L' B2 D2 R F2 U' L B";
    const char *extra[] = {"--scramble",
                           "B' L' U F2 R' D2 B2 L F' (U' D) R2 B D' L2 F U2 R'",
                           "--queue", "4",
                           /* motions that take time (a tenth of real),
                            * so the 24 steps in flight must overrun the
                            * queue of 4 however fast this machine is */
                           "--speed", "10", NULL};
    const char *portspec = sim_start(fx, 0, NULL, extra);
    const char *args[] = {"--moves", moves, "--port", portspec, "--inflight",
                          "24", "--json", "-q", NULL};
    cJSON *j = NULL;
    sim_report r;
    int rc = run_on_sim(fx, args, &j, &r);
    check_solve(j, &r, rc);
    assert_true(jnum(jattempt(j, 0), "busy_naks") > 0);
    cJSON_Delete(j);
}

/* A cut connection mid-solve: without --recover a clear failure with the
 * exact steps done; with it, the solve finishes from where it stopped. */
static void test_e2e_disconnect(void **state)
{
    fixture *fx = *state;
    const char *ep = daemon_endpoint(fx);
    char (*cubes)[55] = first_cubes(121);
    const char *cube = cubes[120];
    const char *cut[] = {"--disconnect-after", "17", NULL};

    const char *portspec = sim_start(fx, 0, cube, cut);
    const char *args[] = {cube, "--server", ep, "--port", portspec, "--json",
                          "-q", NULL};
    cJSON *j = NULL;
    sim_report r;
    int rc = run_on_sim(fx, args, &j, &r);
    assert_int_equal(rc, 1);
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok")));
    const cJSON *err = cJSON_GetObjectItemCaseSensitive(j, "error");
    assert_string_equal(jstr(err, "code"), "LINK_LOST");
    const cJSON *a = jattempt(j, 0);
    assert_int_equal((int)jnum(a, "confirmed"), 17);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "exact")));
    assert_int_equal(r.done, 17);
    cJSON_Delete(j);

    portspec = sim_start(fx, 0, cube, cut);
    const char *args2[] = {cube,     "--server", ep,     "--port", portspec,
                           "--json", "--recover", "-q", NULL};
    rc = run_on_sim(fx, args2, &j, &r);
    assert_int_equal(rc, 0);
    assert_int_equal(cJSON_GetArraySize(
                         cJSON_GetObjectItemCaseSensitive(j, "attempts")),
                     2);
    int first = (int)jnum(jattempt(j, 0), "confirmed");
    int second = (int)jnum(jattempt(j, 1), "confirmed");
    assert_int_equal(first, 17);
    assert_int_equal(second, (int)jnum(jattempt(j, 1), "prims"));
    assert_int_equal(r.done, first + second);
    assert_string_equal(r.cube, solved);
    /* The recovery read the orientation and the grips from STATUS, and
     * the final STATUS shows every gripper closed and the orientation. */
    const cJSON *tot = cJSON_GetObjectItemCaseSensitive(j, "total");
    assert_int_equal((int)jnum(tot, "status_used"), 1);
    const cJSON *fw = cJSON_GetObjectItemCaseSensitive(j, "firmware");
    const cJSON *grips = cJSON_GetObjectItemCaseSensitive(fw, "grippers");
    assert_int_equal(cJSON_GetArraySize(grips), 4);
    for (int g = 0; g < 4; g++) {
        const char *one = cJSON_GetArrayItem(grips, g)->valuestring;
        assert_int_equal(strlen(one), 2);
        assert_true(one[0] >= '0' && one[0] <= '3');
        assert_int_equal(one[1], 'c');
    }
    assert_non_null(strchr("URFDLB", jstr(fw, "up")[0]));
    assert_non_null(strchr("URFDLB", jstr(fw, "front")[0]));
    cJSON_Delete(j);
    free(cubes);
}

/* Faults: a motor fault stops the run with the steps before it; a stall
 * with --recover is finished from the cube's actual state; a wrong cube
 * is caught by the firmware's own. */
static void test_e2e_faults(void **state)
{
    fixture *fx = *state;
    const char *moves = "R U2 F' L2 D B' R2 (U D') F L' B2 D2 R F2 U' L B";
    const char *scr = "B' L' U F2 R' D2 B2 L F' (U' D) R2 B D' L2 F U2 R'";
    const char *motor[] = {"--scramble", scr, "--motor-fault", "9", NULL};
    const char *portspec = sim_start(fx, 0, NULL, motor);
    const char *args[] = {"--moves", moves, "--port", portspec, "--json", "-q",
                          NULL};
    cJSON *j = NULL;
    sim_report r;
    int rc = run_on_sim(fx, args, &j, &r);
    assert_int_equal(rc, 1);
    assert_string_equal(
        jstr(cJSON_GetObjectItemCaseSensitive(j, "error"), "code"), "FAULT");
    assert_int_equal((int)jnum(jattempt(j, 0), "confirmed"), 8);
    assert_int_equal(r.done, 8);
    cJSON_Delete(j);

    const char *stall[] = {"--scramble", scr, "--stall-step", "23", NULL};
    portspec = sim_start(fx, 0, NULL, stall);
    const char *args2[] = {"--moves", moves, "--port", portspec, "--recover",
                           "--json", "-q", NULL};
    rc = run_on_sim(fx, args2, &j, &r);
    assert_int_equal(rc, 0);
    assert_int_equal((int)jnum(jattempt(j, 0), "confirmed"), 22);
    assert_int_equal(r.done, 22 + (int)jnum(jattempt(j, 1), "confirmed"));
    assert_string_equal(r.cube, solved);
    cJSON_Delete(j);

    /* Told the wrong cube: every step runs, but the firmware's cube is
     * not solved, so no success is claimed. */
    portspec = sim_start(fx, 0, NULL, NULL);
    const char *args3[] = {"--moves", "R U", "--port", portspec, "--json",
                           "-q", NULL};
    rc = run_on_sim(fx, args3, &j, &r);
    assert_int_equal(rc, 5);
    assert_string_equal(
        jstr(cJSON_GetObjectItemCaseSensitive(j, "error"), "code"), "STATE");
    assert_false(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(j, "ok")));
    cJSON_Delete(j);
}

/* Calibration against a robot with other timings: the calibrated profile
 * then predicts every executed step of a new solve exactly. */
static void test_e2e_calibrate(void **state)
{
    fixture *fx = *state;
    const char *servo[] = {"--profile", "servo", NULL};
    const char *portspec = sim_start(fx, 0, NULL, servo);
    char path[256];
    snprintf(path, sizeof path, "%s/calibrated.json", fx->dir);
    const char *args[] = {"calibrate", "--port", portspec, "--rounds", "2",
                          "--out", path, "-q", NULL};
    assert_int_equal(run_ctl(fx, args, NULL), 0);
    robot_profile cal, real;
    char detail[256];
    assert_int_equal(robot_profile_load(path, &cal, detail, sizeof detail),
                     ROBOT_OK);
    assert_string_equal(cal.name, "default-calibrated");
    assert_int_equal(robot_profile_builtin("servo", &real), ROBOT_OK);
    assert_true(cal.tilt_ms == real.tilt_ms + real.settle_ms - cal.settle_ms);
    assert_true(cal.close_ms == real.close_ms);
    assert_true(cal.open_ms == real.open_ms);
    assert_true(cal.regrip_ms == real.regrip_ms);
    assert_true(cal.half_ms == real.half_ms + real.settle_ms - cal.settle_ms);
    sim_report r;
    sim_finish(fx, 0, &r);

    /* Under --jitter 0.1 (each step's duration varied by up to 10%), 20
     * rounds recover every physical duration within 2%. */
    const char *noisy[] = {"--profile", "servo", "--jitter", "0.1", "--seed",
                           "7", NULL};
    portspec = sim_start(fx, 0, NULL, noisy);
    char jpath[256];
    snprintf(jpath, sizeof jpath, "%s/jitter.json", fx->dir);
    const char *argsj[] = {"calibrate", "--port", portspec, "--rounds", "20",
                           "--out", jpath, "-q", NULL};
    assert_int_equal(run_ctl(fx, argsj, NULL), 0);
    sim_finish(fx, 0, &r);
    assert_int_equal(robot_profile_load(jpath, &cal, detail, sizeof detail),
                     ROBOT_OK);
    double moved = real.settle_ms - cal.settle_ms;
    const struct {
        const char *key;
        double got, want;
    } keys[] = {
        {"quarter_ms", cal.quarter_ms, real.quarter_ms + moved},
        {"half_ms", cal.half_ms, real.half_ms + moved},
        {"pair_quarter_ms", cal.pair_quarter_ms, real.pair_quarter_ms + moved},
        {"pair_half_ms", cal.pair_half_ms, real.pair_half_ms + moved},
        {"tilt_ms", cal.tilt_ms, real.tilt_ms + moved},
        {"regrip_ms", cal.regrip_ms, real.regrip_ms},
        {"open_ms", cal.open_ms, real.open_ms},
        {"close_ms", cal.close_ms, real.close_ms},
    };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
        if (keys[i].got < 0.98 * keys[i].want ||
            keys[i].got > 1.02 * keys[i].want)
            fail_msg("jitter: %s calibrated %.2f ms, true %.2f ms",
                     keys[i].key, keys[i].got, keys[i].want);
    /* The calibration moves left the cube as it was: solved. */
    assert_true(r.done > 0);
    assert_string_equal(r.cube, solved);

    const char *extra[] = {"--profile", "servo", "--scramble",
                           "R U2 F' L2 D B' R2 (U D') F L'", NULL};
    portspec = sim_start(fx, 0, NULL, extra);
    const char *args2[] = {"--moves", "L F' (U' D) R2 B D' L2 F U2 R'",
                           "--profile", path, "--port", portspec, "--json",
                           "-q", NULL};
    cJSON *j = NULL;
    assert_int_equal(run_on_sim(fx, args2, &j, &r), 0);
    const cJSON *a = jattempt(j, 0);
    double p = jnum(a, "predicted_ms"), m = jnum(a, "measured_ms");
    if (p < m - 0.01 || p > m + 0.01)
        fail_msg("calibrated prediction %.3f ms, measured %.3f ms", p, m);
    cJSON_Delete(j);
}

/* A firmware of protocol version 1 (a fake on 127.0.0.1 that sends its
 * HELLO every 100 ms): quadctl ends at once with CONNECT, saying which
 * versions each side speaks, instead of waiting for the handshake. */
static void test_e2e_old_firmware(void **state)
{
    fixture *fx = *state;
    int ls = socket(AF_INET, SOCK_STREAM, 0);
    assert_true(ls >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(ls, (struct sockaddr *)&a, sizeof a), 0);
    assert_int_equal(listen(ls, 1), 0);
    socklen_t alen = sizeof a;
    assert_int_equal(getsockname(ls, (struct sockaddr *)&a, &alen), 0);
    int port = ntohs(a.sin_port);
    fwp_message m = test_fwp_message(FWP_MSG_HELLO, 0, 0);
    m.u.hello = test_fwp_hello(1, 0x01D);
    uint8_t wire[FWP_MAX_WIRE];
    size_t len = test_fwp_wire(&m, wire);
    pid_t pid = test_fork(); /* dies with the test */
    if (pid == 0) {
        int c = accept(ls, NULL, NULL);
        if (c < 0)
            _exit(1);
        for (int i = 0; i < 100; i++) {
            if (write(c, wire, len) < 0)
                break;
            struct timespec t = {0, 100000000L};
            nanosleep(&t, NULL);
        }
        _exit(0);
    }
    close(ls);
    char portspec[64];
    snprintf(portspec, sizeof portspec, "tcp:127.0.0.1:%d", port);
    const char *args[] = {"--moves", "R", "--port", portspec, NULL};
    int64_t t0 = test_mono_ms();
    int rc = run_ctl(fx, args, NULL);
    int64_t took = test_mono_ms() - t0;
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    assert_int_equal(rc, 4);
    assert_true(log_says(fx, "speaks protocol version 1..1; quadctl speaks "
                             "version 2"));
    /* At once, not after --connect-timeout-ms (5 s). */
    assert_true(took < 4000);
}

/* The command line: usage errors exit 2, ports lists, no robot exits 4. */
static void test_cli(void **state)
{
    fixture *fx = *state;
    const char *a1[] = {"--bogus", NULL};
    assert_int_equal(run_ctl(fx, a1, NULL), 2);
    const char *a2[] = {"--moves", "R", NULL}; /* no --port */
    assert_int_equal(run_ctl(fx, a2, NULL), 2);
    const char *a3[] = {"ports", NULL};
    assert_int_equal(run_ctl(fx, a3, NULL), 0);
    const char *a4[] = {"--moves", "R", "--port", "tcp:127.0.0.1:1", "-q",
                        NULL};
    assert_int_equal(run_ctl(fx, a4, NULL), 4);
    const char *a5[] = {"XYZ", "--moves", "R", "--port", "tcp:127.0.0.1:1",
                        NULL};
    assert_int_equal(run_ctl(fx, a5, NULL), 3);
    const char *a6[] = {"--help", NULL};
    assert_int_equal(run_ctl(fx, a6, NULL), 0);
    /* A serial port that does not exist: the robot cannot be reached. */
    const char *a7[] = {"--moves", "R", "--port", "/dev/ttyNONEXISTENT9",
                        "-q", NULL};
    assert_int_equal(run_ctl(fx, a7, NULL), 4);
    const char *a8[] = {"--moves", "R", "--port", "tcp:nocolon", NULL};
    assert_int_equal(run_ctl(fx, a8, NULL), 2);

    /* Issue 15, item 8. A port past 65535 is refused, not wrapped
     * around (99999 used to connect to 34463). */
    const char *a9[] = {"--moves", "R", "--port", "tcp:127.0.0.1:99999",
                        NULL};
    assert_int_equal(run_ctl(fx, a9, NULL), 2);
    assert_true(log_says(fx, "port '99999' is not in 1..65535"));
    /* --file /dev/zero: an error at once, not a spin for ever. */
    const char *a10[] = {"--file", "/dev/zero", "--port", "tcp:127.0.0.1:1",
                         NULL};
    assert_int_equal(run_ctl(fx, a10, NULL), 2);
    assert_true(log_says(fx, "a NUL byte in the input"));
    /* A line that starts with a NUL is refused, not skipped. */
    char path[256];
    snprintf(path, sizeof path, "%s/nul-cube.txt", fx->dir);
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputc('\0', f);
    fputs("UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB\n", f);
    fclose(f);
    const char *a11[] = {"--file", path, "--port", "tcp:127.0.0.1:1", NULL};
    assert_int_equal(run_ctl(fx, a11, NULL), 2);
    assert_true(log_says(fx, "a NUL byte in the input"));
    /* Numeric errors name the option, whichever way the value is given. */
    const char *a12[] = {"--time-ms", "5x", "--moves", "R", "--port",
                         "tcp:127.0.0.1:1", NULL};
    assert_int_equal(run_ctl(fx, a12, NULL), 2);
    assert_true(log_says(fx, "--time-ms: '5x' is not a whole number"));
    /* status --json is JSON, also when the robot cannot be reached. */
    const char *a13[] = {"status", "--port", "tcp:127.0.0.1:1", "--json",
                         "-q", NULL};
    cJSON *j = NULL;
    assert_int_equal(run_ctl(fx, a13, &j), 4);
    assert_non_null(j);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "ok")));
    cJSON_Delete(j);
}

/* Issue 15, item 10: a client that connects to quadsim and never speaks
 * loses the only connection after 5 s, and a second host turned away
 * meanwhile is told it cannot reach the robot (not that a link it never
 * had was lost). */
static void test_e2e_silent_client(void **state)
{
    fixture *fx = *state;
    const char *extra[] = {NULL};
    const char *portspec = sim_start(fx, 0, NULL, extra);
    int silent = test_tcp_connect(fx->port[0]);
    struct timespec settle = {0, 200000000L};
    nanosleep(&settle, NULL);
    const char *args[] = {"status", "--port", portspec, "-q", NULL};
    assert_int_equal(run_ctl(fx, args, NULL), 4);
    assert_true(log_says(fx, "cannot reach the robot"));
    /* After the grace period the silent client is dropped and the robot
     * answers. */
    struct timespec wait = {5, 500000000L};
    nanosleep(&wait, NULL);
    assert_int_equal(run_ctl(fx, args, NULL), 0);
    /* The silent client's end is closed (after whatever the firmware
     * sent it on connecting). */
    struct timeval tv = {2, 0};
    setsockopt(silent, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    char buf[256];
    ssize_t got;
    while ((got = recv(silent, buf, sizeof buf, 0)) > 0) {
    }
    assert_int_equal(got, 0);
    close(silent);
    sim_report r;
    sim_finish(fx, 0, &r);
}

/* A firmware that freezes mid-solve (SIGSTOP): the protocol gives up, the
 * run fails; quadctl reconnects when it wakes up, stops it, and the
 * count it reports, completed from STATUS last_step (the restarted
 * session dropped the reports), is exactly what the simulator ran. */
static void test_e2e_frozen_firmware(void **state)
{
    fixture *fx = *state;
    const char *moves = "R U2 F' L2 D B' R2 (U D') F L' B2 D2 R F2 U' L B";
    const char *extra[] = {"--scramble",
                           "B' L' U F2 R' D2 B2 L F' (U' D) R2 B D' L2 F U2 R'",
                           "--speed", "1", NULL};
    const char *portspec = sim_start(fx, 0, NULL, extra);
    const char *args[] = {"--moves", moves, "--port", portspec, "--json",
                          "--connect-timeout-ms", "8000", "-q", NULL};
    pid_t sim = fx->sim[0];
    pid_t freezer = test_fork();
    if (freezer == 0) {
        /* Freeze the firmware 0.6 s into the run (a fifth of the steps)
         * for 4 s: the host's watchdog (3 s) ends the run first, its
         * ESTOP waits unacknowledged, and the firmware wakes before the
         * host would give the session up (3 + 1.8 s). */
        struct timespec a = {0, 600000000L}, b = {4, 0};
        nanosleep(&a, NULL);
        kill(sim, SIGSTOP);
        nanosleep(&b, NULL);
        kill(sim, SIGCONT);
        _exit(0);
    }
    cJSON *j = NULL;
    int rc = run_ctl(fx, args, &j);
    waitpid(freezer, NULL, 0);
    kill(sim, SIGCONT);
    assert_non_null(j);
    sim_report r;
    sim_finish(fx, 0, &r);
    assert_int_equal(rc, 1);
    const cJSON *a = jattempt(j, 0);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItemCaseSensitive(a, "exact")));
    int confirmed = (int)jnum(a, "confirmed");
    assert_true(confirmed > 0 && confirmed < (int)jnum(a, "prims"));
    assert_int_equal(confirmed, r.done);
    cJSON_Delete(j);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_expand_hand),
        cmocka_unit_test(test_expand_hand_more),
        cmocka_unit_test(test_expand_refused),
        cmocka_unit_test(test_expand_random_against_sim),
        cmocka_unit_test(test_view),
        cmocka_unit_test(test_recovery_state),
        cmocka_unit_test(test_calibration_math),
        cmocka_unit_test(test_cli),
        cmocka_unit_test(test_e2e_silent_client),
        cmocka_unit_test(test_e2e_busy),
        cmocka_unit_test(test_e2e_faults),
        cmocka_unit_test(test_e2e_calibrate),
        cmocka_unit_test(test_e2e_old_firmware),
        cmocka_unit_test(test_e2e_disconnect),
        cmocka_unit_test(test_e2e_frozen_firmware),
        cmocka_unit_test(test_e2e_100),
        cmocka_unit_test(test_e2e_lossy),
    };
    return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
