/*
 * test_robot_search.c - robot_solve (robot/search.c), the search in robot
 * moves: every solution of 1,000 benchmark cubes is replayed by the
 * independent checker (legal steps, cube solved, counts and cost right);
 * short scrambles are solved within the robot moves their own inverse
 * needs; the large move table searches exactly as the distance tables;
 * least time is never slower than the fewest-moves search; short
 * scrambles reach the robot optimum, every phase-1 length that could
 * improve on it searched in full; the special positions, N best, the least-time objective, cancel,
 * limits and wrong inputs behave as documented.
 */
#include "testutil.h"

#include "robot.h"
#include "qs_engine.h"

#include <stdatomic.h>

enum { N_CUBES = 1000 };

static char cubes[N_CUBES][55];
static qtab_set *robot_set, *axht_set;
static robot_model model;
static robot_profile profile;

static int setup(void **state)
{
    (void)state;
    robot_model_init(&model);
    if (robot_profile_builtin("default", &profile) != ROBOT_OK)
        return 1;
    return test_read_bench("random-1k.txt", cubes, N_CUBES) != N_CUBES;
}

static int teardown(void **state)
{
    (void)state;
    qtab_close(robot_set);
    qtab_close(axht_set);
    return 0;
}

static const qs_tables *robot_tables(void)
{
    if (!robot_set)
        robot_set = test_open_tables(QS_METRIC_ROBOT);
    return qtab_set_tables(robot_set);
}

static qs_cube cube_of(const char *facelets)
{
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets(facelets, &c, NULL, 0), QS_OK);
    return c;
}

/* The solution solves c, and its plan passes the independent checker
 * under profile p. */
static void assert_executes_under(const qs_cube *c, const robot_solution *s,
                                  const robot_profile *p)
{
    qs_cube d = *c;
    char detail[256];
    qs_cube_apply_moves(&d, s->moves, s->n);
    assert_true(qs_cube_is_solved(&d));
    int rc = robot_check(&s->plan, c, p, detail, sizeof detail);
    if (rc != ROBOT_OK)
        fail_msg("plan rejected: %s: %s", robot_errcode(rc), detail);
    assert_int_equal(s->plan.robot_moves, s->plan.n);
}

static void assert_executes(const qs_cube *c, const robot_solution *s)
{
    assert_executes_under(c, s, &profile);
}

/* n random moves out of the first `pool` move numbers (xorshift). */
static void random_moves(uint64_t *rng, qs_move *moves, int n, int pool)
{
    for (int i = 0; i < n; i++)
        moves[i] = (qs_move)(test_rand(rng) % (uint64_t)pool);
}

/* The default options with the given threads and time limit (0: none). */
static robot_solve_options options(int threads, int time_ms)
{
    robot_solve_options o;
    robot_solve_options_default(&o);
    o.threads = threads;
    o.time_ms = time_ms;
    return o;
}

/* The cube that moves make of the solved cube. */
static qs_cube scrambled(const qs_move *moves, int len)
{
    qs_cube c;
    qs_cube_solved(&c);
    qs_cube_apply_moves(&c, moves, len);
    return c;
}

/* A scramble of len random moves out of the first `pool` (into moves)
 * and the cube it makes. */
static qs_cube random_scramble(uint64_t *rng, qs_move *moves, int len,
                               int pool)
{
    random_moves(rng, moves, len, pool);
    return scrambled(moves, len);
}

/* Built-in profile number p. */
static robot_profile builtin_profile(int p)
{
    robot_profile prof;
    assert_int_equal(
        robot_profile_builtin(robot_profile_builtin_name(p), &prof),
        ROBOT_OK);
    return prof;
}

/* The fewest-moves plan of the inverse of moves, a solution of
 * scrambled(moves, len) (the caller frees it). */
static robot_schedule *plan_inverse(const qs_move *moves, int len)
{
    qs_move inv[QS_MAX_MOVES];
    assert_true(len <= QS_MAX_MOVES);
    qs_moves_invert(moves, len, inv);
    robot_schedule *plan = malloc(sizeof *plan);
    assert_non_null(plan);
    assert_int_equal(
        robot_plan(&model, &profile, ROBOT_OBJ_MOVES, inv, len, plan),
        ROBOT_OK);
    return plan;
}

static int solve(const qs_cube *c, robot_solve_options *o,
                 robot_solution *out, int max_out, int *n)
{
    return robot_solve(robot_tables(), &model, &profile, c, o, out, max_out,
                       n, NULL);
}

static void test_benchmark_cubes(void **state)
{
    (void)state;
    robot_solve_options o = options(2, 10);
    robot_solution sol;
    long total = 0;
    int worst = 0, inverse = 0;
    for (int i = 0; i < N_CUBES; i++) {
        qs_cube c = cube_of(cubes[i]);
        int n = 0;
        assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_OK);
        assert_int_equal(n, 1);
        assert_executes(&c, &sol);
        total += sol.plan.robot_moves;
        worst = sol.plan.robot_moves > worst ? sol.plan.robot_moves : worst;
        inverse += sol.direction >= 3;
    }
    print_message("%d cubes: %.3f robot moves on average, at most %d; %d "
                  "from inverse searches\n",
                  N_CUBES, (double)total / N_CUBES, worst, inverse);
    /* Loose bounds that any working search meets on a loaded machine: a
     * plain AXHT solution executed by the robot averages 21.6. */
    assert_true(total < 21L * N_CUBES);
    assert_true(worst <= 26);
    assert_true(inverse > N_CUBES / 10);
}

/* The four table sets search the same tree, each pruning more of it:
 * the small set reads every child's distance; the large move table
 * decides as those distances do, and its dead bits drop children that
 * would make no child of their own; the corner-path table drops children
 * that cannot finish within the limit; the medium set is the small one
 * with the corner paths. (moves_only is a shallow copy of the large set
 * without its corner paths; codes, one that reads the corner-path codes
 * where the large set reads its room tables, which must search the very
 * same nodes.) The nodes dropped shift where the groups of
 * a level begin, so the sets visit the paths in different orders and
 * may find different solutions of equal merit first: the comparison is
 * of exhaustive searches (short scrambles, no time or length limit),
 * which must all reach the same robot moves, from fewer phase-1 nodes
 * with each table added; and every set solves random cubes within a
 * length limit. */
static void test_large_table_same_search(void **state)
{
    (void)state;
    const qs_tables *large = robot_tables();
    assert_true(qs_tables_robot_large(large));
    assert_non_null(large->rpath_code);
    qs_tables *moves_only = malloc(sizeof *moves_only);
    assert_non_null(moves_only);
    *moves_only = *large;
    moves_only->rpath_dict = NULL;
    moves_only->rpath_code = NULL;
    moves_only->rpath_rooms = NULL;
    /* the large set reading the codes where it reads the room tables: the
     * same questions answered, so the very same search */
    qs_tables *codes = malloc(sizeof *codes);
    assert_non_null(codes);
    *codes = *large;
    assert_non_null(large->rpath_rooms);
    codes->rpath_rooms = NULL;
    qtab_set *small_set = test_open_robot_sized(QTAB_ROBOT_SMALL);
    const qs_tables *small = qtab_set_tables(small_set);
    assert_false(qs_tables_robot_large(small));
    assert_null(small->rpath_code);
    /* the medium size: the small set and the corner-path table */
    qtab_set *medium_set = test_open_robot_sized(QTAB_ROBOT_MEDIUM);
    const qs_tables *medium = qtab_set_tables(medium_set);
    assert_false(qs_tables_robot_large(medium));
    assert_null(medium->rphase1x);
    assert_non_null(medium->rpath_code);
    /* what the daemon's status reports the sizes by */
    assert_true(qs_tables_robot_paths(medium));
    assert_true(qs_tables_robot_paths(large));
    assert_false(qs_tables_robot_paths(small));

    enum { SMALL, MOVES, LARGE, MEDIUM, CODES, SETS };
    const qs_tables *sets[SETS] = {small, moves_only, large, medium, codes};
    uint64_t nodes[SETS] = {0, 0, 0, 0, 0};
    uint64_t rng = 0x2545f4914f6cdd1dull;
    robot_solve_options o = options(1, 0);
    for (int trial = 0; trial < 8; trial++) {
        qs_move moves[8];
        int len = 6 + trial % 3;
        random_moves(&rng, moves, len, 18);
        qs_cube c = scrambled(moves, len);
        if (qs_cube_is_solved(&c))
            continue;
        int robot_moves[SETS];
        for (int i = 0; i < SETS; i++) {
            robot_solution r;
            qs_stats st;
            int n = 0;
            assert_int_equal(robot_solve(sets[i], &model, &profile, &c, &o,
                                         &r, 1, &n, &st),
                             ROBOT_OK);
            assert_executes(&c, &r);
            robot_moves[i] = r.plan.robot_moves;
            nodes[i] += st.phase1_nodes;
        }
        for (int i = 1; i < SETS; i++)
            assert_int_equal(robot_moves[i], robot_moves[SMALL]);
    }
    print_message("phase-1 nodes of exhaustive searches: %llu with the small "
                  "set, %llu with the move table, %llu with the corner paths "
                  "too, %llu with the medium set\n",
                  (unsigned long long)nodes[SMALL],
                  (unsigned long long)nodes[MOVES],
                  (unsigned long long)nodes[LARGE],
                  (unsigned long long)nodes[MEDIUM]);
    assert_true(nodes[MOVES] > 1000); /* real searches were compared */
    assert_true(nodes[MOVES] < nodes[SMALL]);  /* the dead ends */
    assert_true(nodes[LARGE] < nodes[MOVES]);  /* the corner paths */
    assert_true(nodes[MEDIUM] < nodes[SMALL]);
    assert_true(nodes[LARGE] < nodes[MEDIUM]); /* the dead ends */
    assert_true(nodes[CODES] == nodes[LARGE]); /* the room tables */

    o.max_len = 21;
    for (int i = 0; i < 12; i++) {
        qs_cube c = cube_of(cubes[i]);
        for (int k = 0; k < SETS; k++) {
            robot_solution r;
            int n = 0;
            assert_int_equal(robot_solve(sets[k], &model, &profile, &c, &o,
                                         &r, 1, &n, NULL),
                             ROBOT_OK);
            assert_executes(&c, &r);
            assert_true(r.plan.robot_moves <= o.max_len);
        }
    }
    free(moves_only);
    free(codes);
    qtab_close(medium_set);
    qtab_close(small_set);
}

/* Short scrambles reach the robot optimum (robot_solve_optimal): without a
 * time limit the two-phase search is exhaustive up to its own limits, so
 * a miss is structural. The first scramble's optimum starts with a full
 * regrip ("rR+rL tRL ..."), which the search missed before inverse
 * searches could end in one; the others are drawn at random. */
static void test_short_scrambles_reach_optimum(void **state)
{
    (void)state;
    uint64_t rng = 0x853c49e6748fea9bull;
    robot_solve_options o = options(2, 0);
    robot_optimal_options oo;
    robot_optimal_options_default(&oo);
    oo.threads = 2;
    int total = 0, missed = 0;
    for (int trial = 0; trial < 12; trial++) {
        qs_move moves[8];
        int len;
        if (trial == 0) {
            len = qs_moves_parse("R L D2 R' L U'", moves, 8, NULL, 0);
            assert_int_equal(len, 6);
        } else {
            len = 6 + trial % 3;
            random_moves(&rng, moves, len, 18);
        }
        qs_cube c = scrambled(moves, len);
        if (qs_cube_is_solved(&c))
            continue;
        robot_solution best, found;
        int n = 0;
        assert_int_equal(robot_solve_optimal(robot_tables(), &model, &profile,
                                             &c, &oo, &best, NULL),
                         ROBOT_OK);
        qs_stats st;
        assert_int_equal(robot_solve(robot_tables(), &model, &profile, &c,
                                     &o, &found, 1, &n, &st),
                         ROBOT_OK);
        assert_executes(&c, &found);
        assert_true(found.plan.robot_moves >= best.plan.robot_moves);
        /* Exhaustive: every phase-1 length that could still give a
         * shorter solution was searched in full (its full pass, or a
         * loose pass made as one). */
        assert_true(st.phase1_depth >= found.plan.robot_moves - 1);
        missed += found.plan.robot_moves > best.plan.robot_moves;
        total += best.plan.robot_moves;
        if (trial == 0)
            assert_int_equal(found.plan.robot_moves, best.plan.robot_moves);
    }
    print_message("short scrambles: %d robot moves of optima in all, %d "
                  "missed\n", total, missed);
    assert_int_equal(missed, 0);
}

/* A scramble whose shortest execution takes a tilt before a turn of the
 * axis it did not make turnable: "F' U L (F B') R2 (U D) (F' B)" in 11
 * robot moves, where tilts just before the turns that need them make 12.
 * With its optimum as the length limit, one thread (whose order of jobs
 * never records the 12-move path first, which would have been planned in
 * 11), the search must still find it: once every length is searched in
 * full, it searches again with tilts in either order. */
static void test_tilt_before_the_other_axis(void **state)
{
    (void)state;
    qs_move moves[10];
    int len = qs_moves_parse("B' F D' U' R2 F' B L' U' F", moves, 10, NULL, 0);
    assert_int_equal(len, 10);
    qs_cube c = scrambled(moves, len);
    robot_optimal_options oo;
    robot_optimal_options_default(&oo);
    oo.threads = 2;
    robot_solution best, found;
    assert_int_equal(robot_solve_optimal(robot_tables(), &model, &profile, &c,
                                         &oo, &best, NULL),
                     ROBOT_OK);
    assert_int_equal(best.plan.robot_moves, 11);
    robot_solve_options o = options(1, 0);
    o.max_len = best.plan.robot_moves;
    int n = 0;
    assert_int_equal(robot_solve(robot_tables(), &model, &profile, &c, &o,
                                 &found, 1, &n, NULL),
                     ROBOT_OK);
    assert_int_equal(n, 1);
    assert_executes(&c, &found);
    assert_int_equal(found.plan.robot_moves, 11);
}

/* A scramble's own inverse is a solution; with its robot moves as the
 * length limit and no time limit the search must find one as short. */
static void test_short_scrambles(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    robot_solve_options o = options(2, 0);
    for (int trial = 0; trial < 60; trial++) {
        qs_move moves[6];
        int len = 1 + trial % 5;
        qs_cube c = random_scramble(&rng, moves, len, QS_MOVE_COUNT);
        if (qs_cube_is_solved(&c))
            continue;
        robot_schedule *direct = plan_inverse(moves, len);
        o.max_len = direct->robot_moves;
        robot_solution sol;
        int n = 0;
        assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_OK);
        assert_executes(&c, &sol);
        assert_true(sol.plan.robot_moves <= direct->robot_moves);
        free(direct);
    }
}

/* Least time searches in the profile's milliseconds: on short scrambles,
 * with no time limit (so its bound is a lower bound), under each built-in
 * profile, its plan is never slower than the fewest-moves search's, and
 * over the sample it is faster. */
static void test_least_time_short_scrambles(void **state)
{
    (void)state;
    uint64_t rng = 0x2545f4914f6cdd1dull;
    robot_solve_options o = options(2, 0);
    double by_time = 0, by_moves = 0;
    for (int p = 0; robot_profile_builtin_name(p); p++) {
        robot_profile prof = builtin_profile(p);
        for (int trial = 0; trial < 24; trial++) {
            qs_move moves[7];
            int len = 3 + trial % 5;
            qs_cube c = random_scramble(&rng, moves, len, 18);
            if (qs_cube_is_solved(&c))
                continue;
            robot_solution fast, few;
            int n = 0;
            o.objective = ROBOT_OBJ_TIME;
            assert_int_equal(robot_solve(robot_tables(), &model, &prof, &c,
                                         &o, &fast, 1, &n, NULL),
                             ROBOT_OK);
            o.objective = ROBOT_OBJ_MOVES;
            assert_int_equal(robot_solve(robot_tables(), &model, &prof, &c,
                                         &o, &few, 1, &n, NULL),
                             ROBOT_OK);
            char detail[256];
            assert_int_equal(robot_check(&fast.plan, &c, &prof, detail,
                                         sizeof detail),
                             ROBOT_OK);
            assert_true(fast.plan.cost_ms <= few.plan.cost_ms + 1e-9);
            by_time += fast.plan.cost_ms;
            by_moves += few.plan.cost_ms;
        }
    }
    print_message("least time %.0f ms, fewest moves %.0f ms in all\n",
                  by_time, by_moves);
    assert_true(by_time < by_moves);
}

/* The least-time search times a path as the planner times its execution
 * (robot_step_us, parallel regrips included), so the plan of a solution,
 * the best execution of its moves, is never slower than the time the
 * search gave it; with a cheaper estimate the search would rank and prune
 * by times no execution has. Random cubes, 4 solutions each, every
 * built-in profile (each lengthens a turn by a regrip differently). */
static void test_least_time_matches_plan(void **state)
{
    (void)state;
    robot_solve_options o = options(2, 20);
    o.solutions = 4;
    o.objective = ROBOT_OBJ_TIME;
    for (int p = 0; robot_profile_builtin_name(p); p++) {
        robot_profile prof = builtin_profile(p);
        int regripped = 0;
        for (int i = 0; i < 6; i++) {
            qs_cube c = cube_of(cubes[37 * i + p]);
            robot_solution sol[4];
            int n = 0;
            assert_int_equal(robot_solve(robot_tables(), &model, &prof, &c,
                                         &o, sol, 4, &n, NULL),
                             ROBOT_OK);
            assert_true(n >= 1);
            for (int k = 0; k < n; k++) {
                assert_executes_under(&c, &sol[k], &prof);
                assert_true(sol[k].search_ms > 0);
                assert_true(sol[k].plan.cost_ms <= sol[k].search_ms + 1e-6);
                for (int j = 0; j < sol[k].plan.n; j++)
                    regripped += sol[k].plan.steps[j].kind ==
                                     ROBOT_STEP_TURN &&
                                 sol[k].plan.steps[j].regrips;
            }
        }
        /* Parallel regrips occur, so the durations they add are tested. */
        assert_true(regripped > 0);
    }
    /* The slowest profile the format allows: a step lasts minutes and a
     * solution more than half an hour, which the search's times (once
     * 32-bit microseconds, capped near 9 minutes) must still hold. */
    robot_profile slow = builtin_profile(0);
    slow.quarter_ms = slow.half_ms = slow.pair_quarter_ms =
        slow.pair_half_ms = slow.tilt_ms = slow.regrip_ms = slow.open_ms =
            slow.close_ms = slow.settle_ms = ROBOT_PROFILE_MAX_MS;
    robot_profile_derive(&slow);
    qs_cube c = cube_of(cubes[5]);
    robot_solution sol[4];
    int n = 0;
    assert_int_equal(robot_solve(robot_tables(), &model, &slow, &c, &o, sol,
                                 4, &n, NULL),
                     ROBOT_OK);
    assert_true(n >= 1);
    for (int k = 0; k < n; k++) {
        assert_executes_under(&c, &sol[k], &slow);
        assert_true(sol[k].plan.cost_ms > 1800e3);
        assert_true(sol[k].plan.cost_ms <= sol[k].search_ms + 1e-6);
    }
}

static void test_special_positions(void **state)
{
    (void)state;
    robot_solve_options o = options(2, 100);
    robot_solution sol;
    int n = 0;

    /* Solved: one empty solution. */
    qs_cube c;
    qs_cube_solved(&c);
    assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_OK);
    assert_int_equal(n, 1);
    assert_int_equal(sol.n, 0);
    assert_int_equal(sol.plan.robot_moves, 0);

    /* Superflip, checkerboard and a slice-edge 3-cycle. */
    static const char *scrambles[] = {
        "U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2",
        "U2 D2 F2 B2 L2 R2",
        "R2 U2 R2 U2 R2 U2",
    };
    for (size_t i = 0; i < sizeof scrambles / sizeof *scrambles; i++) {
        qs_move moves[QS_MAX_MOVES];
        int len = qs_moves_parse(scrambles[i], moves, QS_MAX_MOVES, NULL, 0);
        assert_true(len > 0);
        c = scrambled(moves, len);
        assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_OK);
        assert_executes(&c, &sol);
    }
    /* The checkerboard: (U2 D2) needs a tilt, so 3 pairs and one tilt. */
    assert_int_equal(sol.plan.robot_moves >= 3, 1);

    /* Every single move: never worse than doing that move's inverse. */
    for (int m = 0; m < QS_MOVE_COUNT; m++) {
        qs_move mv = (qs_move)m;
        c = scrambled(&mv, 1);
        robot_schedule *direct = plan_inverse(&mv, 1);
        assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_OK);
        assert_executes(&c, &sol);
        assert_true(sol.plan.robot_moves <= direct->robot_moves);
        /* R, L, F, B and their pairs need no tilt: one robot move. */
        if (direct->tilts == 0)
            assert_int_equal(sol.plan.robot_moves, 1);
        free(direct);
    }
}

static void test_best_solutions(void **state)
{
    (void)state;
    robot_solve_options o = options(2, 50);
    o.solutions = 5;
    robot_solution sol[5];
    for (int k = 0; k < 3; k++) {
        qs_cube c = cube_of(cubes[k]);
        int n = 0;
        assert_int_equal(solve(&c, &o, sol, 5, &n), ROBOT_OK);
        assert_true(n >= 1 && n <= 5);
        for (int i = 0; i < n; i++) {
            assert_executes(&c, &sol[i]);
            for (int j = 0; j < i; j++)
                assert_false(sol[i].n == sol[j].n &&
                             memcmp(sol[i].moves, sol[j].moves,
                                    (size_t)sol[i].n) == 0);
            if (i > 0) {
                const robot_schedule *a = &sol[i - 1].plan, *b = &sol[i].plan;
                assert_true(a->robot_moves < b->robot_moves ||
                            (a->robot_moves == b->robot_moves &&
                             a->cost_ms <= b->cost_ms));
            }
        }
    }
    /* Least time: ordered by cost_ms. */
    o.objective = ROBOT_OBJ_TIME;
    qs_cube c = cube_of(cubes[3]);
    int n = 0;
    assert_int_equal(solve(&c, &o, sol, 5, &n), ROBOT_OK);
    assert_true(n >= 1);
    for (int i = 0; i < n; i++) {
        assert_executes(&c, &sol[i]);
        if (i > 0)
            assert_true(sol[i - 1].plan.cost_ms <= sol[i].plan.cost_ms);
    }
}

/* A node limit on one thread: the search stops within a poll's nodes of
 * it, and the same cube gets the same search and solution every time,
 * whatever the machine's speed. */
static void test_node_limit(void **state)
{
    (void)state;
    enum { LIMIT = 20000, POLL = 256 };
    robot_solve_options o = options(1, 0);
    o.max_nodes = LIMIT;
    for (int i = 0; i < 3; i++) {
        qs_cube c = cube_of(cubes[i]);
        robot_solution first, again;
        qs_stats s1, s2;
        int n = 0;
        assert_int_equal(robot_solve(robot_tables(), &model, &profile, &c, &o,
                                     &first, 1, &n, &s1),
                         ROBOT_OK);
        assert_int_equal(n, 1);
        assert_executes(&c, &first);
        uint64_t nodes = s1.phase1_nodes + s1.phase2_nodes;
        assert_true(nodes >= LIMIT);
        /* up to a poll's worth of phase-1 and of phase-2 nodes not yet
         * counted, and the last poll's */
        assert_true(nodes < LIMIT + 3 * POLL);
        assert_int_equal(robot_solve(robot_tables(), &model, &profile, &c, &o,
                                     &again, 1, &n, &s2),
                         ROBOT_OK);
        assert_int_equal(s2.phase1_nodes, s1.phase1_nodes);
        assert_int_equal(s2.phase2_nodes, s1.phase2_nodes);
        assert_int_equal(again.n, first.n);
        assert_memory_equal(again.moves, first.moves, (size_t)first.n);
        /* Ten times the nodes never does worse: the larger search
         * contains the smaller one. */
        o.max_nodes = 10 * LIMIT;
        assert_int_equal(robot_solve(robot_tables(), &model, &profile, &c, &o,
                                     &again, 1, &n, &s2),
                         ROBOT_OK);
        assert_true(s2.phase1_nodes > s1.phase1_nodes);
        assert_true(again.plan.robot_moves <= first.plan.robot_moves);
        o.max_nodes = LIMIT;
    }
}

static void test_limits_and_errors(void **state)
{
    (void)state;
    robot_solve_options o;
    robot_solve_options_default(&o);
    o.threads = 2;
    robot_solution sol;
    int n = 7;
    qs_cube c = cube_of(cubes[0]);

    /* Cancelled before it starts: no solution, and it says why. */
    atomic_int cancel = 1;
    o.cancel = &cancel;
    assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_ERR_CANCELLED);
    assert_int_equal(n, 0);
    o.cancel = NULL;

    /* No 8-move robot solution exists for a random cube: the search
     * space within that length is exhausted. A 15-move one might, but
     * not within 20 ms: the deadline is hard under a length limit. */
    o.max_len = 8;
    o.time_ms = 0;
    assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_ERR_NOT_FOUND);
    assert_int_equal(n, 0);
    o.max_len = 15;
    o.time_ms = 20;
    assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_ERR_TIMEOUT);
    assert_int_equal(n, 0);
    o.max_len = -1;

    /* Tables of another metric; an unsolvable cube; bad options. */
    if (!axht_set)
        axht_set = test_open_tables(QS_METRIC_AXHT);
    assert_int_equal(robot_solve(qtab_set_tables(axht_set), &model, &profile,
                                 &c, &o, &sol, 1, &n, NULL),
                     ROBOT_ERR_TABLES);
    qs_options qo;
    qs_options_default(&qo);
    qs_solution qsol;
    assert_int_equal(qs_solve(robot_tables(), &c, &qo, &qsol, 1, &n, NULL),
                     QS_ERR_TABLES);
    qs_cube twisted = c;
    twisted.co[0] = (uint8_t)((twisted.co[0] + 1) % 3);
    assert_int_equal(solve(&twisted, &o, &sol, 1, &n), ROBOT_ERR_CUBE);
    o.threads = 0;
    assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_ERR_ARGUMENT);
    o.threads = 1;
    o.objective = (robot_objective)7;
    assert_int_equal(solve(&c, &o, &sol, 1, &n), ROBOT_ERR_ARGUMENT);
    assert_string_equal(robot_errcode(ROBOT_ERR_TIMEOUT), "TIMEOUT");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_large_table_same_search),
        cmocka_unit_test(test_least_time_short_scrambles),
        cmocka_unit_test(test_least_time_matches_plan),
        cmocka_unit_test(test_short_scrambles_reach_optimum),
        cmocka_unit_test(test_tilt_before_the_other_axis),
        cmocka_unit_test(test_special_positions),
        cmocka_unit_test(test_short_scrambles),
        cmocka_unit_test(test_best_solutions),
        cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_limits_and_errors),
        cmocka_unit_test(test_benchmark_cubes),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
