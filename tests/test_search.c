/*
 * test_search.c - the two-phase search (solver/search.c) in every metric:
 * benchmark cubes solved and every solution applied and checked, length
 * bounds, special positions, the N best solutions, time limits,
 * cancellation and argument errors.
 */
#include "testutil.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

#define N_CUBES 500

static char cubes[N_CUBES][55];
static int n_cubes;
static qtab_set *sets[QS_METRIC_COUNT];

static const char *superflip =
    "UBULURUFURURFRBRDRFUFLFRFDFDFDLDRDBDLULBLFLDLBUBRBLBDB";

static int setup(void **state)
{
    (void)state;
    n_cubes = test_read_bench("random-1k.txt", cubes, N_CUBES);
    return n_cubes != N_CUBES;
}

static int teardown(void **state)
{
    (void)state;
    for (int m = 0; m < QS_METRIC_COUNT; m++)
        qtab_close(sets[m]);
    return 0;
}

static const qs_tables *tables(qs_metric m)
{
    if (!sets[m])
        sets[m] = test_open_tables(m);
    return qtab_set_tables(sets[m]);
}

static qs_cube cube_of(const char *facelets)
{
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets(facelets, &c, NULL, 0), QS_OK);
    return c;
}

/* Solves with the given limits, checks every returned solution against the
 * cube and its reported length, and returns the best length. */
static int solve_checked(qs_metric metric, const qs_cube *c, int threads,
                         int time_ms, int max_len)
{
    qs_options o;
    qs_options_default(&o);
    o.threads = threads;
    o.time_ms = time_ms;
    o.max_len = max_len;
    qs_solution sol[1];
    int n = 0;
    int rc = qs_solve(tables(metric), c, &o, sol, 1, &n, NULL);
    assert_int_equal(rc, QS_OK);
    assert_int_equal(n, 1);
    test_assert_solves(c, &sol[0]);
    assert_int_equal(sol[0].length, qs_moves_length(sol[0].moves, sol[0].n,
                                                    metric));
    if (metric == QS_METRIC_HTM || metric == QS_METRIC_QTM)
        for (int i = 0; i < sol[0].n; i++)
            assert_true(sol[0].moves[i] < 18); /* no pairs outside axial */
    return sol[0].length;
}

/* The benchmark cubes: HTM within 20 and QTM within 26 (searching until
 * found), the axial metrics within the default 10 ms. */
static void check_bench(qs_metric metric, int time_ms, int max_len)
{
    int hist[QS_MAX_MOVES + 1] = {0}, longest = 0;
    long total = 0;
    for (int i = 0; i < n_cubes; i++) {
        qs_cube c = cube_of(cubes[i]);
        int len = solve_checked(metric, &c, 1 + i % 2, time_ms, max_len);
        if (max_len >= 0)
            assert_true(len <= max_len);
        hist[len]++;
        total += len;
        if (len > longest)
            longest = len;
    }
    print_message("%s: %d cubes, average %.2f, longest %d\n",
                  qs_metric_name(metric), n_cubes, (double)total / n_cubes,
                  longest);
}

static void test_bench_htm(void **s) { (void)s; check_bench(QS_METRIC_HTM, 0, 20); }
static void test_bench_qtm(void **s) { (void)s; check_bench(QS_METRIC_QTM, 0, 26); }
static void test_bench_axht(void **s) { (void)s; check_bench(QS_METRIC_AXHT, 10, -1); }
static void test_bench_axqt(void **s) { (void)s; check_bench(QS_METRIC_AXQT, 10, -1); }

static void test_solved_cube(void **state)
{
    (void)state;
    qs_cube c;
    qs_cube_solved(&c);
    for (int m = 0; m < QS_PLAIN_METRICS; m++) {
        qs_options o;
        qs_options_default(&o);
        qs_solution sol[1];
        int n = -1;
        assert_int_equal(qs_solve(tables((qs_metric)m), &c, &o, sol, 1, &n,
                                  NULL),
                         QS_OK);
        assert_int_equal(n, 1);
        assert_int_equal(sol[0].n, 0);
        assert_int_equal(sol[0].length, 0);
    }
}

/* A cube one move from solved is solved in one move of that metric. */
static void test_one_move_cubes(void **state)
{
    (void)state;
    for (int metric = 0; metric < QS_PLAIN_METRICS; metric++) {
        int axial = metric == QS_METRIC_AXHT || metric == QS_METRIC_AXQT;
        for (int m = 0; m < (axial ? QS_MOVE_COUNT : 18); m++) {
            qs_cube c;
            qs_cube_solved(&c);
            qs_move mv = (qs_move)m;
            qs_cube_apply_move(&c, mv);
            int expect = qs_moves_length(&mv, 1, (qs_metric)metric);
            int len = solve_checked((qs_metric)metric, &c, 2, 0, expect);
            assert_int_equal(len, expect);
        }
    }
}

static void test_special_positions(void **state)
{
    (void)state;
    qs_cube c = cube_of(superflip);
    /* 20 HTM moves is optimal for the superflip. */
    assert_int_equal(solve_checked(QS_METRIC_HTM, &c, 2, 0, 20), 20);
    solve_checked(QS_METRIC_QTM, &c, 2, 100, -1);
    solve_checked(QS_METRIC_AXHT, &c, 2, 100, -1);
    solve_checked(QS_METRIC_AXQT, &c, 2, 100, -1);

    /* Checkerboard: six half turns, found exactly. */
    qs_move moves[QS_MAX_MOVES];
    int n = qs_moves_parse("U2 D2 F2 B2 L2 R2", moves, QS_MAX_MOVES, NULL, 0);
    assert_int_equal(n, 6);
    qs_cube_solved(&c);
    qs_cube_apply_moves(&c, moves, n);
    assert_int_equal(solve_checked(QS_METRIC_HTM, &c, 2, 100, -1), 6);
    assert_int_equal(solve_checked(QS_METRIC_AXHT, &c, 2, 100, -1), 3);

    /* U and D layers solved, the middle-slice edges cycled FR->FL->BL. */
    qs_cube_solved(&c);
    c.ep[8] = 9;  /* FR holds FL */
    c.ep[9] = 10; /* FL holds BL */
    c.ep[10] = 8; /* BL holds FR */
    assert_int_equal(qs_cube_check(&c), QS_OK);
    for (int m = 0; m < QS_PLAIN_METRICS; m++)
        solve_checked((qs_metric)m, &c, 2, 50, -1);
}

static void test_best_solutions(void **state)
{
    (void)state;
    qs_cube c = cube_of(cubes[0]);
    qs_options o;
    qs_options_default(&o);
    o.threads = 2;
    o.time_ms = 50;
    o.solutions = 5;
    qs_solution sol[5];
    int n = 0;
    assert_int_equal(qs_solve(tables(QS_METRIC_HTM), &c, &o, sol, 5, &n, NULL),
                     QS_OK);
    assert_int_equal(n, 5);
    for (int i = 0; i < n; i++) {
        test_assert_solves(&c, &sol[i]);
        if (i > 0)
            assert_true(sol[i - 1].length <= sol[i].length);
        for (int j = 0; j < i; j++)
            assert_false(sol[i].n == sol[j].n &&
                         memcmp(sol[i].moves, sol[j].moves, sol[i].n) == 0);
    }
}

/* The search's four lanes are shared out over its threads, one each at
 * least: with three threads (one each) and with more threads than lanes
 * (one each too), every cube still gets a solution of at most 20 moves
 * that solves it. */
static void test_lanes_over_threads(void **state)
{
    (void)state;
    for (int threads = 3; threads <= 6; threads += 3)
        for (int i = 0; i < 3 && i < n_cubes; i++) {
            qs_cube c = cube_of(cubes[i]);
            assert_true(solve_checked(QS_METRIC_HTM, &c, threads, 0, 20) <= 20);
        }
}

/* No superflip solution of 16 moves exists: under o's limits (max_len
 * 16 set here) the search must run out and say so rather than return
 * anything. */
static void assert_superflip_16_times_out(qs_options *o, qs_stats *stats)
{
    qs_cube c = cube_of(superflip);
    o->max_len = 16;
    qs_solution sol[1];
    int n = -1;
    assert_int_equal(qs_solve(tables(QS_METRIC_HTM), &c, o, sol, 1, &n, stats),
                     QS_ERR_TIMEOUT);
    assert_int_equal(n, 0);
}

static void test_time_limit(void **state)
{
    (void)state;
    qs_options o;
    qs_options_default(&o);
    o.threads = 2;
    o.time_ms = 30;
    assert_superflip_16_times_out(&o, NULL);
}

/* A node limit is a limit like the time: under a length limit that
 * cannot be met it ends the search with TIMEOUT, and on one thread the
 * same cube gets the same search twice (counted in polls of 256 nodes). */
static void test_node_limit(void **state)
{
    (void)state;
    qs_options o;
    qs_options_default(&o);
    o.threads = 1;
    o.time_ms = 0;
    o.max_nodes = 50000;
    qs_stats s1, s2;
    assert_superflip_16_times_out(&o, &s1);
    assert_true(s1.phase1_nodes + s1.phase2_nodes >= o.max_nodes);
    /* A lone thread has all four lanes (SEARCH_LANES); each polls per
     * 256 of its own phase-1 and phase-2 nodes: up to 255 of each are
     * not yet counted. */
    assert_true(s1.phase1_nodes + s1.phase2_nodes < o.max_nodes + 9 * 256);

    o.max_len = -1;
    qs_solution sol[1], again[1];
    int n = -1;
    for (int i = 0; i < 3 && i < n_cubes; i++) {
        qs_cube c = cube_of(cubes[i]);
        assert_int_equal(
            qs_solve(tables(QS_METRIC_AXHT), &c, &o, sol, 1, &n, &s1), QS_OK);
        assert_int_equal(
            qs_solve(tables(QS_METRIC_AXHT), &c, &o, again, 1, &n, &s2),
            QS_OK);
        assert_int_equal(s1.phase1_nodes, s2.phase1_nodes);
        assert_int_equal(sol[0].n, again[0].n);
        assert_memory_equal(sol[0].moves, again[0].moves, (size_t)sol[0].n);
        qs_cube check = c;
        qs_cube_apply_moves(&check, sol[0].moves, sol[0].n);
        assert_true(qs_cube_is_solved(&check));
    }
}

typedef struct {
    atomic_int *flag;
    int delay_ms;
} canceller;

static void *cancel_later(void *arg)
{
    canceller *cc = arg;
    struct timespec ts = {0, cc->delay_ms * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store(cc->flag, 1);
    return NULL;
}

static void test_cancel(void **state)
{
    (void)state;
    qs_cube c = cube_of(superflip);
    atomic_int flag;
    atomic_init(&flag, 0);
    qs_options o;
    qs_options_default(&o);
    o.threads = 2;
    o.time_ms = 0; /* would search for ever */
    o.max_len = 16;
    o.cancel = &flag;
    canceller cc = {&flag, 20};
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, cancel_later, &cc), 0);
    qs_solution sol[1];
    int n = -1;
    assert_int_equal(qs_solve(tables(QS_METRIC_HTM), &c, &o, sol, 1, &n, NULL),
                     QS_ERR_CANCELLED);
    assert_int_equal(n, 0);
    pthread_join(tid, NULL);
    /* A flag raised before the call stops it too. */
    assert_int_equal(qs_solve(tables(QS_METRIC_HTM), &c, &o, sol, 1, &n, NULL),
                     QS_ERR_CANCELLED);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const qs_tables *t = tables(QS_METRIC_HTM);
    qs_cube c = cube_of(cubes[1]);
    qs_options o;
    qs_solution sol[1];
    int n;
    qs_options_default(&o);
    o.threads = 0;
    assert_int_equal(qs_solve(t, &c, &o, sol, 1, &n, NULL), QS_ERR_ARGUMENT);
    qs_options_default(&o);
    o.solutions = 0;
    assert_int_equal(qs_solve(t, &c, &o, sol, 1, &n, NULL), QS_ERR_ARGUMENT);
    qs_options_default(&o);
    o.time_ms = -5;
    assert_int_equal(qs_solve(t, &c, &o, sol, 1, &n, NULL), QS_ERR_ARGUMENT);
    qs_options_default(&o);
    assert_int_equal(qs_solve(t, &c, &o, sol, 0, &n, NULL), QS_ERR_ARGUMENT);
    /* A cube that cannot be solved is reported, not searched. */
    c.co[0] = (uint8_t)((c.co[0] + 1) % 3);
    assert_int_equal(qs_solve(t, &c, &o, sol, 1, &n, NULL), QS_ERR_TWIST);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solved_cube),
        cmocka_unit_test(test_one_move_cubes),
        cmocka_unit_test(test_special_positions),
        cmocka_unit_test(test_best_solutions),
        cmocka_unit_test(test_lanes_over_threads),
        cmocka_unit_test(test_time_limit),
        cmocka_unit_test(test_node_limit),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_bench_htm),
        cmocka_unit_test(test_bench_qtm),
        cmocka_unit_test(test_bench_axht),
        cmocka_unit_test(test_bench_axqt),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
