/*
 * test_prune.c - the pruning tables (solver/prune.c) against the truth: a
 * breadth-first search from the goal over the raw (not symmetry-reduced)
 * coordinates, in each metric's own costs, gives the exact distance of
 * every state within a radius. Inside it the phase-1 table must give
 * exactly that distance and exactly the moves that lead one step closer,
 * seen through whatever symmetry the lookup uses; the phase-2 tables must
 * never exceed it.
 */
#include "testutil.h"

#include "qs_internal.h"

/* Open-addressing map from a 64-bit state key to its distance. */
typedef struct {
    uint64_t *keys;
    uint8_t *dist;
    uint64_t mask;
    uint64_t count;
} state_map;

enum { EMPTY_KEY = 0 }; /* keys are stored + 1 */

static void map_init(state_map *m, int log2size)
{
    m->mask = (1ull << log2size) - 1;
    m->keys = calloc(m->mask + 1, sizeof *m->keys);
    m->dist = calloc(m->mask + 1, 1);
    m->count = 0;
    assert_non_null(m->keys);
    assert_non_null(m->dist);
}

static void map_free(state_map *m)
{
    free(m->keys);
    free(m->dist);
}

static uint64_t *map_slot(state_map *m, uint64_t key, uint64_t *index)
{
    uint64_t h = (key + 1) * 0x9E3779B97F4A7C15ull;
    for (uint64_t i = h >> 20;; i++) {
        i &= m->mask;
        if (m->keys[i] == EMPTY_KEY || m->keys[i] == key + 1) {
            *index = i;
            return &m->keys[i];
        }
    }
}

/* Lowers the distance of key to d; returns 1 when it changed. */
static int map_lower(state_map *m, uint64_t key, int d)
{
    uint64_t i, *slot = map_slot(m, key, &i);
    if (*slot == EMPTY_KEY) {
        assert_true(m->count < m->mask / 2);
        *slot = key + 1;
        m->dist[i] = (uint8_t)d;
        m->count++;
        return 1;
    }
    if (m->dist[i] > d) {
        m->dist[i] = (uint8_t)d;
        return 1;
    }
    return 0;
}

static int map_get(state_map *m, uint64_t key)
{
    uint64_t i, *slot = map_slot(m, key, &i);
    return *slot == EMPTY_KEY ? -1 : m->dist[i];
}

/* ---- phase 1: key = (slice comb * 2048 + flip) * 2187 + twist */

static uint64_t p1_key(int slice, int flip, int twist)
{
    return ((uint64_t)(slice / 24) * N_FLIP + (uint64_t)flip) * N_TWIST +
           (uint64_t)twist;
}

static uint64_t p1_child(const qs_tables *t, uint64_t key, int m)
{
    int twist = (int)(key % N_TWIST), fs = (int)(key / N_TWIST);
    int slice = fs / N_FLIP * 24, flip = fs % N_FLIP;
    return p1_key(move_row(t, t->edge4_move[0], slice)[m],
                  move_row(t, t->flip_move, flip)[m],
                  move_row(t, t->twist_move, twist)[m]);
}

static void check_phase1(qs_metric metric, int radius)
{
    qtab_set *set = test_open_tables(metric);
    const qs_tables *t = qtab_set_tables(set);
    state_map map;
    map_init(&map, 24);
    uint64_t *level = malloc(sizeof(uint64_t) * (map.mask + 1) / 2);
    assert_non_null(level);

    /* Dial's algorithm: costs are 1 or 2, so scanning the map for each
     * distance in turn settles them in order. */
    map_lower(&map, p1_key(SLICE_SOLVED * 24, 0, 0), 0);
    for (int d = 0; d < radius; d++) {
        uint64_t n = 0;
        for (uint64_t i = 0; i <= map.mask; i++)
            if (map.keys[i] != EMPTY_KEY && map.dist[i] == d)
                level[n++] = map.keys[i] - 1;
        for (uint64_t k = 0; k < n; k++)
            for (int m = 0; m < t->n_moves; m++)
                if (d + t->cost[m] <= radius)
                    map_lower(&map, p1_child(t, level[k], m), d + t->cost[m]);
    }

    int max_cost = 0;
    for (int m = 0; m < t->n_moves; m++)
        if (t->cost[m] > max_cost)
            max_cost = t->cost[m];
    uint64_t checked = 0, masks = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = map.keys[i] - 1;
        int d = map.dist[i];
        int twist = (int)(key % N_TWIST), fs = (int)(key / N_TWIST);
        int s = t->fs_sym[fs];
        uint64_t e = phase1_entry(
            t, (uint64_t)t->fs_class[fs] * N_TWIST + t->twist_conj[twist][s]);
        assert_int_equal((int)(e & P1_DIST_MASK), d);
        checked++;
        /* Where every child is inside the radius, all are exact. */
        if (d + max_cost > radius)
            continue;
        /* The moves the entry offers with no slack must be exactly those
         * one step closer; with one move of slack, exactly those that do
         * not lead further away (or all, where the entry does not say). */
        uint64_t tight = phase1_moves(t, e, s, 0);
        uint64_t loose = phase1_moves(t, e, s, 1);
        for (int m = 0; m < t->n_moves; m++) {
            int dc = map_get(&map, p1_child(t, key, m));
            assert_true(dc >= 0);
            int delta = dc + t->cost[m] - d;
            assert_int_equal((int)(tight >> m & 1), delta == 0);
            if (t->grouped)
                assert_int_equal((int)(loose >> m & 1), delta <= 1);
            else
                assert_true(loose >> m & 1);
        }
        masks++;
    }
    print_message("%s: %llu phase-1 distances and %llu move masks checked\n",
                  qs_metric_name(metric), (unsigned long long)checked,
                  (unsigned long long)masks);
    assert_true(masks > 1000);
    free(level);
    map_free(&map);

    /* Phase 2: key = (corners * 40320 + udedges) * 24 + slice order. */
    map_init(&map, 24);
    level = malloc(sizeof(uint64_t) * (map.mask + 1) / 2);
    assert_non_null(level);
    map_lower(&map, 0, 0);
    int radius2 = radius + 1;
    for (int d = 0; d < radius2; d++) {
        uint64_t n = 0;
        for (uint64_t i = 0; i <= map.mask; i++)
            if (map.keys[i] != EMPTY_KEY && map.dist[i] == d)
                level[n++] = map.keys[i] - 1;
        for (uint64_t k = 0; k < n; k++) {
            int s2 = (int)(level[k] % N_SLICE2);
            int ud = (int)(level[k] / N_SLICE2 % N_PERM8);
            int corners = (int)(level[k] / N_SLICE2 / N_PERM8);
            for (int j = 0; j < t->n_p2; j++) {
                int m = t->p2_move[j];
                if (d + t->cost[m] > radius2)
                    continue;
                uint64_t child =
                    ((uint64_t)move_row(t, t->corners_move, corners)[m] * N_PERM8 +
                     t->udedges_move[ud][j]) * N_SLICE2 +
                    t->slice2_move[s2][m];
                map_lower(&map, child, d + t->cost[m]);
            }
        }
    }
    checked = 0;
    int exact = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = map.keys[i] - 1;
        int d = map.dist[i];
        int s2 = (int)(key % N_SLICE2);
        int ud = (int)(key / N_SLICE2 % N_PERM8);
        int corners = (int)(key / N_SLICE2 / N_PERM8);
        int p = phase2_prune(t, corners, ud);
        assert_true(p <= d);
        assert_true(t->cornslice[corners * N_SLICE2 + s2] <= d);
        assert_true(t->edgeslice[ud * N_SLICE2 + s2] <= d);
        exact += p == d;
        checked++;
    }
    print_message("%s: %llu phase-2 states checked, bound exact on %d\n",
                  qs_metric_name(metric), (unsigned long long)checked, exact);
    /* A lower bound that is mostly exact near the goal, not just zero. */
    assert_true(exact > (int)(checked / 2));
    free(level);
    map_free(&map);
    qtab_close(set);
}

static void test_htm(void **state) { (void)state; check_phase1(QS_METRIC_HTM, 6); }
static void test_qtm(void **state) { (void)state; check_phase1(QS_METRIC_QTM, 7); }
static void test_axht(void **state) { (void)state; check_phase1(QS_METRIC_AXHT, 5); }
static void test_axqt(void **state) { (void)state; check_phase1(QS_METRIC_AXQT, 6); }

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_htm),
        cmocka_unit_test(test_qtm),
        cmocka_unit_test(test_axht),
        cmocka_unit_test(test_axqt),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
