/*
 * test_optimal.c - the optimal solver (solver/optimal.c) in HTM and QTM:
 * known optimal lengths, short scrambles against an independent
 * meet-in-the-middle breadth-first search, every optimal solution (all)
 * against exhaustive enumeration, never longer than the two-phase solver,
 * the same lengths with and without the inverse's bound, cancellation,
 * progress per length and argument errors.
 *
 * Searches are kept short (optimal lengths up to about 13) so the test
 * stays fast under the sanitizers; random cubes belong to the benchmark.
 * Proving the superflip's 20 takes minutes even with its 48 symmetries
 * used, so that test only runs with QUADSOLVE_LONG_TESTS=1.
 */
#include "testutil.h"

#include "qs_internal.h"

#include <pthread.h>
#include <time.h>
#include <unistd.h>

static qtab_set *sets[2];
static qtab_set *two_phase_sets[2]; /* beside a compact set, which has no
                                       two-phase tables */
/* `test_optimal large` runs every test with the large table (ctest
 * test_optimal_large), `test_optimal h48` with the H48 table in HTM
 * (test_optimal_h48; QTM then has the small tables), `test_optimal
 * large+h48` with both (test_optimal_large_h48), `test_optimal compact`
 * with the compact set in HTM (test_optimal_compact: the H48 table and the
 * 2-bit phase-1 table, no two-phase tables; QTM small), `test_optimal xl`
 * with the extra-large table in HTM (test_optimal_xl; QTM large),
 * `test_optimal h48eo` with the small tables and, in HTM, a small exact
 * H48 table with orientation bits made here (level 0, h 1, base 5, 59 MB:
 * the search's orientation probes, test_optimal_h48eo; h48h7 itself is
 * 3.76 GB), `test_optimal h48eo-compact` with that table in the compact
 * set's stead of its H48 table (the h48h7 set's search, whose 2-bit
 * phase-1 search hands over to the orientation probes;
 * test_optimal_h48eo_compact), `test_optimal` with the small tables. */
static qtab_optimal_size table_size = QTAB_OPTIMAL_SMALL;
static int exact_h48; /* h48eo */
static uint8_t *exact_blob, *edges_blob;

static const char *superflip =
    "UBULURUFURURFRBRDRFUFLFRFDFDFDLDRDBDLULBLFLDLBUBRBLBDB";

/* The small set's HTM tables with the exact H48 table beside them (the
 * test owns the blob; the set's tables free the coordinates). */
static void add_exact_h48(const qs_tables *ct)
{
    enum { H = 1, LEVEL = 0, BASE = 5, ENDGAME = 5 };
    qs_tables *t = (qs_tables *)ct;
    qs_h48_free(t->h48); /* the compact set's own H48 table, if any */
    t->h48 = NULL;
    exact_blob = malloc(H48_HEADER + H48_ENTRIES(LEVEL, H) / 4);
    assert_non_null(exact_blob);
    assert_int_equal(qs_h48_generate(t, H, LEVEL, BASE, ENDGAME, exact_blob,
                                     2),
                     QS_OK);
    assert_int_equal(qs_h48_h(exact_blob), H);
    assert_int_equal(qs_h48_generate(t, 0, LEVEL, BASE, ENDGAME, exact_blob,
                                     2),
                     QS_ERR_ARGUMENT);
    t->h48_blob = exact_blob;
    assert_int_equal(qs_h48_create(t, H, LEVEL, &t->h48), QS_OK);
    /* and the edge table that goes with h48h7 */
    edges_blob = malloc(N_EDGES_OPT / 2);
    assert_non_null(edges_blob);
    assert_int_equal(qs_blob_generate(QS_METRIC_HTM, BLOB_EDGES, edges_blob,
                                      2, NULL, NULL, NULL, NULL),
                     QS_OK);
    t->opt_edges = edges_blob;
}

static const qs_tables *tables(qs_metric m)
{
    if (!sets[m]) {
        sets[m] = test_open_tables_sized(m, table_size);
        if (exact_h48 && m == QS_METRIC_HTM)
            add_exact_h48(qtab_set_tables(sets[m]));
        /* xl is the large table's stead in HTM and the large set in QTM */
        int xl = table_size == QTAB_OPTIMAL_XL;
        assert_int_equal(qs_tables_optimal_large(qtab_set_tables(sets[m])),
                         (table_size & QTAB_OPTIMAL_LARGE) ||
                             (xl && m == QS_METRIC_QTM));
        assert_int_equal(qs_tables_optimal_xl(qtab_set_tables(sets[m])),
                         xl && m == QS_METRIC_HTM);
        assert_int_equal(qs_tables_optimal_h48(qtab_set_tables(sets[m])),
                         ((table_size & QTAB_OPTIMAL_H48) || exact_h48) &&
                             m == QS_METRIC_HTM);
        assert_int_equal(qs_tables_optimal_h48h7(qtab_set_tables(sets[m])),
                         exact_h48 && m == QS_METRIC_HTM);
        assert_int_equal(
            qs_tables_optimal_compact(qtab_set_tables(sets[m])),
            table_size == QTAB_OPTIMAL_COMPACT && m == QS_METRIC_HTM);
    }
    return qtab_set_tables(sets[m]);
}

/* Tables the two-phase solver can use in metric m: tables(m), or beside
 * a compact set the small one. */
static const qs_tables *two_phase_tables(qs_metric m)
{
    if (!qs_tables_optimal_compact(tables(m)))
        return tables(m);
    if (!two_phase_sets[m])
        two_phase_sets[m] = test_open_tables_sized(m, QTAB_OPTIMAL_SMALL);
    return qtab_set_tables(two_phase_sets[m]);
}

static int teardown(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        qtab_close(sets[m]);
        qtab_close(two_phase_sets[m]);
    }
    free(exact_blob);
    free(edges_blob);
    return 0;
}

static uint64_t rng = 0x9e3779b97f4a7c15ull;

static uint64_t next_random(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static qs_cube scrambled(const char *moves)
{
    qs_move m[QS_MAX_MOVES];
    int n = qs_moves_parse(moves, m, QS_MAX_MOVES, NULL, 0);
    assert_true(n >= 0);
    qs_cube c;
    qs_cube_solved(&c);
    qs_cube_apply_moves(&c, m, n);
    return c;
}

/* Solves optimally with 2 threads, checks the solution, returns its
 * length in the metric. */
static int optimal_length(qs_metric m, const qs_cube *c)
{
    qs_optimal_options o;
    qs_optimal_options_default(&o);
    o.threads = 2;
    qs_solution sol[1];
    int n = 0;
    assert_int_equal(qs_solve_optimal(tables(m), c, &o, sol, 1, &n, NULL),
                     QS_OK);
    assert_int_equal(n, 1);
    test_assert_solves(c, &sol[0]);
    assert_int_equal(sol[0].length, qs_moves_length(sol[0].moves, sol[0].n, m));
    for (int i = 0; i < sol[0].n; i++)
        assert_true(sol[0].moves[i] < 18);
    return sol[0].length;
}

/* ------------------------------------------------ the reference search */

/* A set of cubes within RADIUS quarter or face turns of solved, with their
 * exact distance: an open-addressing hash table on the cubie bytes. */
#define RADIUS 4
#define SLOTS (1 << 18)

typedef struct {
    qs_cube cube[SLOTS];
    int8_t dist[SLOTS]; /* -1: empty */
    qs_move gens[18];
    int n_gens;
} ball;

static ball balls[2];

static uint64_t hash_cube(const qs_cube *c)
{
    const uint8_t *p = (const uint8_t *)c;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < sizeof *c; i++)
        h = (h ^ p[i]) * 1099511628211ull;
    return h;
}

static int ball_find(const ball *b, const qs_cube *c)
{
    for (uint64_t i = hash_cube(c) & (SLOTS - 1);; i = (i + 1) & (SLOTS - 1)) {
        if (b->dist[i] < 0)
            return -1;
        if (qs_cube_equal(&b->cube[i], c))
            return b->dist[i];
    }
}

static void ball_add(ball *b, const qs_cube *c, int d)
{
    uint64_t i = hash_cube(c) & (SLOTS - 1);
    while (b->dist[i] >= 0)
        i = (i + 1) & (SLOTS - 1);
    b->cube[i] = *c;
    b->dist[i] = (int8_t)d;
}

/* Breadth-first search from solved with the metric's unit moves (every
 * face turn in HTM, quarter turns in QTM). */
static const ball *get_ball(qs_metric m)
{
    ball *b = &balls[m];
    if (b->n_gens)
        return b;
    memset(b->dist, -1, sizeof b->dist);
    for (int mv = 0; mv < 18; mv++)
        if (m == QS_METRIC_HTM || mv % 3 != 1)
            b->gens[b->n_gens++] = (qs_move)mv;
    static qs_cube level[2][60000];
    int n = 1;
    qs_cube_solved(&level[0][0]);
    ball_add(b, &level[0][0], 0);
    for (int d = 1; d <= RADIUS; d++) {
        qs_cube *from = level[(d - 1) & 1], *to = level[d & 1];
        int next = 0;
        for (int i = 0; i < n; i++)
            for (int g = 0; g < b->n_gens; g++) {
                qs_cube c = from[i];
                qs_cube_apply_move(&c, b->gens[g]);
                if (ball_find(b, &c) >= 0)
                    continue;
                ball_add(b, &c, d);
                assert_true(next < 60000);
                to[next++] = c;
            }
        n = next;
    }
    return b;
}

/* The exact distance of c when it is at most 2 * RADIUS - 1: some shortest
 * path takes RADIUS - 1 moves and then ends within the ball. */
static int reference(const ball *b, const qs_cube *c, int depth, int best)
{
    int d = ball_find(b, c);
    if (d >= 0 && depth + d < best)
        best = depth + d;
    if (depth == RADIUS - 1 || depth + 1 >= best)
        return best;
    for (int g = 0; g < b->n_gens; g++) {
        qs_cube n = *c;
        qs_cube_apply_move(&n, b->gens[g]);
        best = reference(b, &n, depth + 1, best);
    }
    return best;
}

static void check_short_scrambles(qs_metric m)
{
    const ball *b = get_ball(m);
    for (int k = 0; k < 200; k++) {
        int len = 1 + (int)(next_random() % 7);
        qs_cube c;
        qs_cube_solved(&c);
        for (int i = 0; i < len; i++)
            qs_cube_apply_move(&c, b->gens[next_random() % b->n_gens]);
        int want = reference(b, &c, 0, 2 * RADIUS);
        assert_true(want <= len);
        assert_int_equal(optimal_length(m, &c), want);
    }
}

static void test_short_scrambles_htm(void **state)
{
    (void)state;
    check_short_scrambles(QS_METRIC_HTM);
}

static void test_short_scrambles_qtm(void **state)
{
    (void)state;
    check_short_scrambles(QS_METRIC_QTM);
}

/* -------------------------------------------------------- known lengths */

static void test_one_move(void **state)
{
    (void)state;
    for (int mv = 0; mv < 18; mv++) {
        qs_cube c;
        qs_cube_solved(&c);
        qs_cube_apply_move(&c, (qs_move)mv);
        assert_int_equal(optimal_length(QS_METRIC_HTM, &c), 1);
        assert_int_equal(optimal_length(QS_METRIC_QTM, &c),
                         mv % 3 == 1 ? 2 : 1);
    }
}

static void test_checkerboard(void **state)
{
    (void)state;
    qs_cube c = scrambled("U2 D2 F2 B2 L2 R2");
    assert_int_equal(optimal_length(QS_METRIC_HTM, &c), 6);
    assert_int_equal(optimal_length(QS_METRIC_QTM, &c), 12);
}

static void test_solved(void **state)
{
    (void)state;
    qs_cube c;
    qs_cube_solved(&c);
    assert_int_equal(optimal_length(QS_METRIC_HTM, &c), 0);
    assert_int_equal(optimal_length(QS_METRIC_QTM, &c), 0);
}

typedef struct {
    int depths[QS_MAX_MOVES + 1];
    int found[QS_MAX_MOVES + 1];
    int n;
} depth_log;

static void log_depth(void *ctx, int depth, int found, uint64_t nodes,
                      double ms)
{
    depth_log *l = ctx;
    (void)nodes;
    (void)ms;
    l->depths[l->n] = depth;
    l->found[l->n++] = found;
}

/* The superflip needs 20 face turns: quickly, that none of at most 15
 * exists, that each length was reported and that its symmetries were
 * used; the full proof only with QUADSOLVE_LONG_TESTS=1 (about 70 s
 * with the large table). */
static void test_superflip(void **state)
{
    (void)state;
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets(superflip, &c, NULL, 0), QS_OK);
    qs_optimal_options o;
    qs_optimal_options_default(&o);
    o.threads = 2;
    o.max_len = 15;
    depth_log log = {{0}, {0}, 0};
    o.on_depth = log_depth;
    o.depth_ctx = &log;
    qs_solution sol[1];
    int n = -1;
    qs_stats st;
    assert_int_equal(qs_solve_optimal(tables(QS_METRIC_HTM), &c, &o, sol, 1,
                                      &n, &st),
                     QS_ERR_NOT_FOUND);
    assert_int_equal(n, 0);
    assert_int_equal(st.phase1_depth, 15);
    assert_true(log.n >= 1);
    for (int i = 0; i < log.n; i++) {
        assert_int_equal(log.found[i], 0);
        if (i > 0)
            assert_int_equal(log.depths[i], log.depths[i - 1] + 1);
    }
    assert_int_equal(log.depths[log.n - 1], 15);
    /* All 48 symmetries map the superflip onto itself, so the search for
     * one solution keeps one prefix of each orbit, while all = 1 keeps
     * them all: the same proof from far fewer nodes. */
    qs_stats whole;
    o.all = 1;
    o.on_depth = NULL;
    assert_int_equal(qs_solve_optimal(tables(QS_METRIC_HTM), &c, &o, sol, 1,
                                      &n, &whole),
                     QS_ERR_NOT_FOUND);
    assert_int_equal(whole.phase1_depth, 15);
    assert_true(st.phase1_nodes * 10 < whole.phase1_nodes);
    const char *long_tests = getenv("QUADSOLVE_LONG_TESTS");
    if (long_tests && strcmp(long_tests, "1") == 0)
        assert_int_equal(optimal_length(QS_METRIC_HTM, &c), 20);
}

/* Words of blocks that each symmetry of a group maps to itself give cubes
 * with that symmetry: the half turn about U-D (blocks of one or two
 * opposite faces turned alike, R L = L R), and the mirror that swaps U and
 * D (U D' is its own image, the side faces only by half turns). The
 * blocks of two opposite faces are where the image of a canonical
 * solution is not canonical. The search that keeps one prefix of each
 * orbit must find the length the search over all prefixes finds (all = 1
 * never reduces). */
/* With the exact H48 table (h48eo): its entries that say only "at most
 * base" fall back on the edge table, which knows the superflip is 11
 * moves from its edges' goal; without it the fallback reads 0 there and
 * the proof that no 16 exists takes more nodes. */
static void test_edge_bound(void **state)
{
    (void)state;
    if (!exact_h48)
        skip();
    qs_tables *t = (qs_tables *)tables(QS_METRIC_HTM);
    assert_non_null(t->opt_edges);
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets(superflip, &c, NULL, 0), QS_OK);
    qs_optimal_options o;
    qs_optimal_options_default(&o);
    o.threads = 2;
    o.max_len = 16;
    qs_solution sol[1];
    int n;
    qs_stats with, without;
    assert_int_equal(qs_solve_optimal(t, &c, &o, sol, 1, &n, &with),
                     QS_ERR_NOT_FOUND);
    const uint8_t *edges = t->opt_edges;
    t->opt_edges = NULL;
    assert_int_equal(qs_solve_optimal(t, &c, &o, sol, 1, &n, &without),
                     QS_ERR_NOT_FOUND);
    t->opt_edges = edges;
    print_message("superflip to 16: %llu nodes with the edge table, %llu "
                  "without\n",
                  (unsigned long long)with.phase1_nodes,
                  (unsigned long long)without.phase1_nodes);
    /* a fifth fewer at least with this small exact table (base 5); ten
     * times fewer to 19 with h48h7 (docs/benchmarks.md) */
    assert_true(with.phase1_nodes * 5 < without.phase1_nodes * 4);
}

static void test_symmetric_cubes(void **state)
{
    (void)state;
    static const char *blocks[2][12] = {
        {"U", "U2", "U'", "D", "D2", "D'", "R L", "R2 L2", "R' L'", "F B",
         "F2 B2", "F' B'"},
        {"R2", "L2", "F2", "B2", "U D'", "U' D", "U2 D2"}};
    static const int n_blocks[2] = {12, 7};
    uint64_t seed = 20261125;
    for (int k = 0; k < 16; k++) {
        char word[128] = "";
        int last_axis = -1;
        for (int b = 0; b < 6; b++) {
            const char *block;
            int axis;
            do { /* never one axis twice in a row: nothing cancels */
                block = blocks[k % 2][test_rand(&seed) % n_blocks[k % 2]];
                axis = strchr("UD", block[0])   ? 0
                       : strchr("RL", block[0]) ? 1
                                                : 2;
            } while (axis == last_axis);
            last_axis = axis;
            strcat(word, block);
            strcat(word, " ");
        }
        qs_cube c = scrambled(word);
        qs_metric m = k % 4 == 2 ? QS_METRIC_QTM : QS_METRIC_HTM;
        qs_optimal_options o;
        qs_optimal_options_default(&o);
        o.threads = 2;
        qs_solution one[1], every[64];
        int n_one = 0, n_every = 0;
        assert_int_equal(qs_solve_optimal(tables(m), &c, &o, one, 1, &n_one,
                                          NULL),
                         QS_OK);
        o.all = 1;
        assert_int_equal(qs_solve_optimal(tables(m), &c, &o, every, 64,
                                          &n_every, NULL),
                         QS_OK);
        assert_int_equal(n_one, 1);
        test_assert_solves(&c, &one[0]);
        assert_true(n_every >= 1);
        assert_int_equal(one[0].length, every[0].length);
    }
}

/* Optimal is never longer than the two-phase solver, on scrambles short
 * enough to solve optimally at once. */
static void test_not_longer_than_two_phase(void **state)
{
    (void)state;
    for (int mi = 0; mi < 2; mi++) {
        qs_metric m = mi ? QS_METRIC_QTM : QS_METRIC_HTM;
        for (int k = 0; k < 20; k++) {
            qs_cube c;
            qs_cube_solved(&c);
            int last = -1;
            for (int i = 0; i < 11; i++) {
                int mv;
                do
                    mv = (int)(next_random() % 18);
                while (mv / 3 == last);
                last = mv / 3;
                qs_cube_apply_move(&c, (qs_move)mv);
            }
            qs_options o;
            qs_options_default(&o);
            o.time_ms = 5;
            qs_solution two[1];
            int n = 0;
            assert_int_equal(
                qs_solve(two_phase_tables(m), &c, &o, two, 1, &n, NULL),
                QS_OK);
            int opt = optimal_length(m, &c);
            assert_true(opt <= two[0].length);
            assert_true(opt <= (m == QS_METRIC_HTM ? 11 : 22));
        }
    }
}

/* The inverse's bound (the large and extra-large tables' search bounds
 * the inverse of each node too, and masks its moves by the inverse's axes
 * at their budget) changes the nodes, never the optimum: in HTM and QTM,
 * the same lengths with and without it, fewer nodes with it. Where no
 * search bounds the inverse, forward_only changes nothing: one thread
 * searches the same nodes either way. */
static void test_inverse_bound(void **state)
{
    (void)state;
    for (int mi = 0; mi < 2; mi++) {
        qs_metric m = mi ? QS_METRIC_QTM : QS_METRIC_HTM;
        const qs_tables *t = tables(m);
        int inverse =
            (qs_tables_optimal_large(t) || qs_tables_optimal_xl(t)) &&
            !qs_tables_optimal_h48(t);
        int moves = m == QS_METRIC_HTM ? 13 : 10;
        uint64_t nodes[2] = {0, 0};
        for (int k = 0; k < 12; k++) {
            qs_cube c;
            qs_cube_solved(&c);
            int last = -1;
            for (int i = 0; i < moves; i++) {
                int mv;
                do
                    mv = (int)(next_random() % 18);
                while (mv / 3 == last);
                last = mv / 3;
                qs_cube_apply_move(&c, (qs_move)mv);
            }
            int len[2];
            for (int fwd = 0; fwd < 2; fwd++) {
                qs_optimal_options o;
                qs_optimal_options_default(&o);
                o.forward_only = fwd;
                qs_solution sol[1];
                qs_stats st;
                int n = 0;
                assert_int_equal(
                    qs_solve_optimal(t, &c, &o, sol, 1, &n, &st), QS_OK);
                assert_int_equal(n, 1);
                test_assert_solves(&c, &sol[0]);
                len[fwd] = sol[0].length;
                nodes[fwd] += st.phase1_nodes;
            }
            assert_int_equal(len[0], len[1]);
        }
        if (inverse)
            assert_true(nodes[0] < nodes[1]);
        else
            assert_true(nodes[0] == nodes[1]);
    }
}

/* ---------------------------------------------------------- all solutions */

typedef struct {
    qs_solution s[64];
    int n;
} collected;

static void collect(void *ctx, const qs_solution *s)
{
    collected *c = ctx;
    if (c->n < 64)
        c->s[c->n] = *s;
    c->n++;
}

/* The canonical sequences of HTM moves of length len that solve c: no face
 * twice in a row, and of two opposite faces in a row only U, R, F first. */
static int enumerate(const qs_cube *c, int len, int last)
{
    if (len == 0)
        return qs_cube_is_solved(c);
    int count = 0;
    for (int mv = 0; mv < 18; mv++) {
        int face = mv / 3;
        if (last >= 0 && (face == last || face == last - 3))
            continue;
        qs_cube n = *c;
        qs_cube_apply_move(&n, (qs_move)mv);
        count += enumerate(&n, len - 1, face);
    }
    return count;
}

static void test_all(void **state)
{
    (void)state;
    /* At most 5 moves: enumeration visits about 18 * 13.35^(n-1)
     * sequences. */
    static const char *cases[] = {"R U R' U'", "U D", "R2 L2 U2 D2",
                                  "F B' U2 R L", "L2 D' B2", "R L' U D'"};
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
        qs_cube c = scrambled(cases[k]);
        qs_optimal_options o;
        qs_optimal_options_default(&o);
        o.threads = 2;
        o.all = 1;
        collected got = {.n = 0};
        o.on_solution = collect;
        o.solution_ctx = &got;
        qs_solution sol[64];
        int n = 0;
        assert_int_equal(qs_solve_optimal(tables(QS_METRIC_HTM), &c, &o, sol,
                                          64, &n, NULL),
                         QS_OK);
        int len = sol[0].length;
        int want = enumerate(&c, len, -1);
        assert_true(want >= 1);
        assert_int_equal(got.n, want);
        assert_int_equal(n, want < 64 ? want : 64);
        for (int i = 0; i < n; i++) {
            test_assert_solves(&c, &sol[i]);
            assert_int_equal(sol[i].length, len);
            for (int j = 0; j < i; j++)
                assert_false(sol[i].n == sol[j].n &&
                             memcmp(sol[i].moves, sol[j].moves,
                                    (size_t)sol[i].n) == 0);
        }
    }
}

/* ------------------------------------------------- cancel and arguments */

static void *raise_later(void *arg)
{
    struct timespec ts = {0, 50 * 1000000L};
    nanosleep(&ts, NULL);
    atomic_store((atomic_int *)arg, 1);
    return NULL;
}

static void test_cancel(void **state)
{
    (void)state;
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets(superflip, &c, NULL, 0), QS_OK);
    atomic_int cancel;
    atomic_init(&cancel, 0);
    qs_optimal_options o;
    qs_optimal_options_default(&o);
    o.threads = 2;
    o.cancel = &cancel;
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, raise_later, &cancel), 0);
    qs_solution sol[1];
    int n = -1;
    time_t t0 = time(NULL);
    assert_int_equal(qs_solve_optimal(tables(QS_METRIC_HTM), &c, &o, sol, 1,
                                      &n, NULL),
                     QS_ERR_CANCELLED);
    pthread_join(tid, NULL);
    assert_int_equal(n, 0);
    assert_true(time(NULL) - t0 < 10);
}

static void test_arguments(void **state)
{
    (void)state;
    qs_cube c = scrambled("R U");
    qs_optimal_options o;
    qs_optimal_options_default(&o);
    qs_solution sol[1];
    int n;
    const qs_tables *t = tables(QS_METRIC_HTM);
    assert_int_equal(qs_solve_optimal(NULL, &c, &o, sol, 1, &n, NULL),
                     QS_ERR_ARGUMENT);
    assert_int_equal(qs_solve_optimal(t, &c, &o, sol, 0, &n, NULL),
                     QS_ERR_ARGUMENT);
    o.threads = 0;
    assert_int_equal(qs_solve_optimal(t, &c, &o, sol, 1, &n, NULL),
                     QS_ERR_ARGUMENT);
    o.threads = 1;
    o.max_len = 1;
    assert_int_equal(qs_solve_optimal(t, &c, &o, sol, 1, &n, NULL),
                     QS_ERR_NOT_FOUND);
    o.max_len = -1;
    c.co[0] = (uint8_t)((c.co[0] + 1) % 3);
    assert_int_equal(qs_solve_optimal(t, &c, &o, sol, 1, &n, NULL),
                     QS_ERR_TWIST);
    /* Table sets without the corner table (axial metrics) are refused;
     * qs_tables_create with empty blobs is enough to check that. */
    const void *blobs[QS_BLOB_MAX] = {NULL};
    qs_tables *ax = NULL;
    assert_int_equal(qs_tables_create(QS_METRIC_AXHT, blobs, &ax), QS_OK);
    c = scrambled("R U");
    assert_int_equal(qs_solve_optimal(ax, &c, &o, sol, 1, &n, NULL),
                     QS_ERR_TABLES);
    qs_tables_free(ax);
    /* The compact set serves optimal solves only: the two-phase solver
     * finds no tables in it, and says so. */
    if (qs_tables_optimal_compact(t)) {
        qs_options two;
        qs_options_default(&two);
        assert_int_equal(qs_solve(t, &c, &two, sol, 1, &n, NULL),
                         QS_ERR_TABLES);
    }
}

int main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "large") == 0)
        table_size = QTAB_OPTIMAL_LARGE;
    if (argc > 1 && strcmp(argv[1], "h48") == 0)
        table_size = QTAB_OPTIMAL_H48;
    if (argc > 1 && strcmp(argv[1], "large+h48") == 0)
        table_size = QTAB_OPTIMAL_LARGE_H48;
    if (argc > 1 && strcmp(argv[1], "compact") == 0)
        table_size = QTAB_OPTIMAL_COMPACT;
    if (argc > 1 && strcmp(argv[1], "xl") == 0)
        table_size = QTAB_OPTIMAL_XL;
    exact_h48 = argc > 1 && strncmp(argv[1], "h48eo", 5) == 0;
    if (argc > 1 && strcmp(argv[1], "h48eo-compact") == 0)
        table_size = QTAB_OPTIMAL_COMPACT;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_arguments),
        cmocka_unit_test(test_solved),
        cmocka_unit_test(test_one_move),
        cmocka_unit_test(test_checkerboard),
        cmocka_unit_test(test_short_scrambles_htm),
        cmocka_unit_test(test_short_scrambles_qtm),
        cmocka_unit_test(test_all),
        cmocka_unit_test(test_not_longer_than_two_phase),
        cmocka_unit_test(test_inverse_bound),
        cmocka_unit_test(test_superflip),
        cmocka_unit_test(test_edge_bound),
        cmocka_unit_test(test_symmetric_cubes),
        cmocka_unit_test(test_cancel),
    };
    return cmocka_run_group_tests(tests, NULL, teardown);
}
