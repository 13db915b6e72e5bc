/*
 * test_prune.c - the pruning tables (solver/prune.c) against the truth: a
 * breadth-first search from the goal over the raw (not symmetry-reduced)
 * coordinates, in each metric's own costs, gives the exact distance of
 * every state within a radius. Inside it the phase-1 table must give
 * exactly that distance and exactly the moves that lead one step closer,
 * seen through whatever symmetry the lookup uses; the phase-2 tables must
 * never exceed it. The robot tables are checked the same way over states
 * that carry the tilt class, the large robot table's per-turn deltas,
 * the corner table and the corner-path table included. The compact
 * optimal set's 2-bit phase-1 table must hold the same distances modulo
 * 3, and that set must leave the two-phase tables out. The extra-large
 * optimal table must hold its goal's exact distances modulo 3. The exact
 * H48 table with edge orientation (h48gen.c) must hold, class by class,
 * the least distance of the whole coset states its index reads.
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

/* Lowers, through map_lower, the distances of the states one move from
 * key (at distance d) that lie within radius. */
typedef void (*expand_fn)(state_map *m, const qs_tables *t, uint64_t key,
                          int d, int radius);

/* Settles the distances of every state within radius of the seeds
 * already in m, level by level (Dial's algorithm: a move costs 1 or 2,
 * so scanning the map for each distance in turn settles them in order). */
static void map_search(state_map *m, const qs_tables *t, int radius,
                       expand_fn expand)
{
    uint64_t *level = malloc(sizeof(uint64_t) * (m->mask + 1) / 2);
    assert_non_null(level);
    for (int d = 0; d < radius; d++) {
        uint64_t n = 0;
        for (uint64_t i = 0; i <= m->mask; i++)
            if (m->keys[i] != EMPTY_KEY && m->dist[i] == d)
                level[n++] = m->keys[i] - 1;
        for (uint64_t j = 0; j < n; j++)
            expand(m, t, level[j], d, radius);
    }
    free(level);
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
    return p1_key(move_row(t, t->edge4_move, slice)[m],
                  move_row(t, t->flip_move, flip)[m],
                  move_row(t, t->twist_move, twist)[m]);
}

static void p1_expand(state_map *map, const qs_tables *t, uint64_t key,
                      int d, int radius)
{
    for (int m = 0; m < t->n_moves; m++)
        if (d + t->cost[m] <= radius)
            map_lower(map, p1_child(t, key, m), d + t->cost[m]);
}

/* ---- phase 2: key = (corners * 40320 + udedges) * 24 + slice order */

/* The key after phase-2 move x (the move t->p2_move[x]). */
static uint64_t p2_child(const qs_tables *t, uint64_t key, int x)
{
    int m = t->p2_move[x];
    int s2 = (int)(key % N_SLICE2);
    int ud = (int)(key / N_SLICE2 % N_PERM8);
    int corners = (int)(key / N_SLICE2 / N_PERM8);
    return ((uint64_t)move_row(t, t->corners_move, corners)[m] * N_PERM8 +
            t->udedges_move[ud][x]) * N_SLICE2 +
           t->slice2_move[s2][m];
}

static void p2_expand(state_map *map, const qs_tables *t, uint64_t key,
                      int d, int radius)
{
    for (int x = 0; x < t->n_p2; x++) {
        int m = t->p2_move[x];
        if (d + t->cost[m] <= radius)
            map_lower(map, p2_child(t, key, x), d + t->cost[m]);
    }
}

static void check_phase1(qs_metric metric, int radius)
{
    qtab_set *set = test_open_tables(metric);
    const qs_tables *t = qtab_set_tables(set);
    state_map map;
    map_init(&map, 24);
    map_lower(&map, p1_key(SLICE_SOLVED * 24, 0, 0), 0);
    map_search(&map, t, radius, p1_expand);

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
    map_free(&map);

    map_init(&map, 24);
    map_lower(&map, 0, 0);
    map_search(&map, t, radius + 1, p2_expand);
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
    map_free(&map);
    qtab_close(set);
}

/* ---- robot metric: states carry the tilt class k (the axis the robot
 * cannot turn); a turn off that axis or a tilt to another class is one
 * robot move. Phase 1 keys are p1_key * 3 + k. */

static void robot_p1_expand(state_map *map, const qs_tables *t,
                            uint64_t key, int d, int radius)
{
    (void)radius; /* every robot move costs 1 */
    uint64_t pos = key / N_TILT;
    int k = (int)(key % N_TILT);
    for (int m = 0; m < t->n_moves; m++)
        if (t->tilt_moves[k] >> m & 1)
            map_lower(map, p1_child(t, pos, m) * N_TILT + k, d + 1);
    for (int k2 = 0; k2 < N_TILT; k2++)
        map_lower(map, pos * N_TILT + k2, d + 1);
}

typedef struct {
    uint64_t checked, set;
} dead_count;

/* Whether phase-1 position `pos` in class k, just turned on axis a and
 * with no move to spare, is a dead end, from the breadth-first search's
 * distances (exact within the radius, and its children's too): none of
 * its turns of the third axis brings it closer, nor does a tilt. */
static int bfs_dead_end(state_map *map, const qs_tables *t, uint64_t pos,
                        int k, int a)
{
    int d = map_get(map, pos * N_TILT + k);
    for (int m = 0; m < t->n_moves; m++)
        if ((t->tilt_moves[k] >> m & 1) && t->group_of[m] != a &&
            map_get(map, p1_child(t, pos, m) * N_TILT + k) == d - 1)
            return 0;
    for (int k2 = 0; k2 < N_TILT; k2++)
        if (k2 != k && map_get(map, pos * N_TILT + k2) < d)
            return 0;
    return 1;
}

/* The dead bits of large entry x of position pos in class k (x is the
 * entry of pos's representative, s the symmetry to it), at distance at
 * most radius - 2: for each axis a the class turns and each delta of 1
 * or 2 that some turn of a has, set exactly when every such turn's child
 * is a dead end (bfs_dead_end). */
static void check_robot_dead_bits(state_map *map, const qs_tables *t,
                                  uint64_t pos, int k, const robot_p1x *x,
                                  int s, dead_count *count)
{
    int d = map_get(map, pos * N_TILT + k), kk = t->axis_conj[k][s];
    for (int a = 0; a < N_TILT; a++) {
        if (a == k)
            continue;
        int bit0 = 2 * robot_axis_slot(kk, t->axis_conj[a][s]);
        for (int delta = 1; delta <= 2; delta++) {
            int any = 0, all_dead = 1;
            for (int m = 0; m < t->n_moves; m++) {
                if (!(t->tilt_moves[k] >> m & 1) || t->group_of[m] != a)
                    continue;
                uint64_t child = p1_child(t, pos, m);
                if (map_get(map, child * N_TILT + k) + 1 - d != delta)
                    continue;
                any = 1;
                all_dead &= bfs_dead_end(map, t, child, k, a);
            }
            if (!any)
                continue; /* no turn reads the bit */
            int bit = x->dead >> (4 * kk + bit0 + delta - 1) & 1;
            assert_int_equal(bit, all_dead);
            count->checked++;
            count->set += (uint64_t)bit;
        }
    }
}

static void check_robot_phase1(const qs_tables *t, int radius)
{
    state_map map;
    map_init(&map, 25);
    for (int k = 0; k < N_TILT; k++)
        map_lower(&map, p1_key(SLICE_SOLVED * 24, 0, 0) * N_TILT + k, 0);
    map_search(&map, t, radius, robot_p1_expand);
    uint64_t checked = 0, deltas = 0;
    dead_count dead_bits = {0, 0};
    int by_class[N_TILT] = {0};
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = (map.keys[i] - 1) / N_TILT;
        int k = (int)((map.keys[i] - 1) % N_TILT);
        int twist = (int)(key % N_TWIST), fs = (int)(key / N_TWIST);
        int s = t->fs_sym[fs];
        uint16_t e = t->rphase1[(uint64_t)t->fs_class[fs] * N_TWIST +
                                t->twist_conj[twist][s]];
        /* Looked up through the symmetry that reduces the position, with
         * the class mapped along: exact, as the breadth-first search. */
        assert_int_equal(robot_p1_dist(t, e, s, k), map.dist[i]);
        checked++;
        by_class[k] += map.dist[i] == radius;
        if (!t->rphase1x || map.dist[i] >= radius)
            continue;
        /* The large entry: the same distances, and for every turn of the
         * class exactly the change the breadth-first search knows (its
         * children lie within the radius, so their distances are exact). */
        const robot_p1x *x = &t->rphase1x[(uint64_t)t->fs_class[fs] * N_TWIST +
                                          t->twist_conj[twist][s]];
        assert_int_equal(robot_p1_dist(t, x->dist, s, k), map.dist[i]);
        /* The local bits of the representative's class, each named as a
         * turn of this position through rloc_move. */
        uint32_t local[3];
        uint64_t by_delta[3] = {0, 0, 0};
        int kk = t->axis_conj[k][s];
        robot_p1x_local(x, kk, local);
        for (int bit = 0; bit < 30; bit++)
            for (int dl = 0; dl < 3; dl++)
                if (local[dl] >> bit & 1)
                    by_delta[dl] |= 1ull << t->rloc_move[s][kk][bit];
        assert_int_equal(by_delta[0] | by_delta[1] | by_delta[2],
                         t->tilt_moves[k]);
        for (int m = 0; m < t->n_moves; m++) {
            if (!(t->tilt_moves[k] >> m & 1))
                continue;
            uint64_t j, child = p1_child(t, key, m) * N_TILT + k;
            assert_true(*map_slot(&map, child, &j) != EMPTY_KEY);
            int delta = map.dist[j] + 1 - map.dist[i];
            assert_true(delta >= 0 && delta <= 2);
            assert_true(by_delta[delta] >> m & 1);
            deltas++;
        }
        if (map.dist[i] <= radius - 2)
            check_robot_dead_bits(&map, t, key, k, x, s, &dead_bits);
    }
    print_message("robot: %llu phase-1 distances checked (radius %d), "
                  "%llu turn deltas and %llu dead bits (%llu set) of the "
                  "large table\n",
                  (unsigned long long)checked, radius,
                  (unsigned long long)deltas,
                  (unsigned long long)dead_bits.checked,
                  (unsigned long long)dead_bits.set);
    if (t->rphase1x) {
        assert_true(deltas > 100000);
        /* both values occur, often */
        assert_true(dead_bits.set > 1000);
        assert_true(dead_bits.checked - dead_bits.set > 500);
    }
    for (int k = 0; k < N_TILT; k++)
        assert_true(by_class[k] > 1000);
    map_free(&map);
}

/* Corner keys: (corners * 2187 + twist) * 3 + k. The corner table is
 * exact: the breadth-first search's distance, read through the symmetry
 * that reduces the corners, with the class mapped along. */
static void robot_corners_expand(state_map *map, const qs_tables *t,
                                 uint64_t key, int d, int radius)
{
    (void)radius; /* every robot move costs 1 */
    uint64_t pos = key / N_TILT;
    int k = (int)(key % N_TILT);
    int corners = (int)(pos / N_TWIST), twist = (int)(pos % N_TWIST);
    for (int m = 0; m < t->n_moves; m++)
        if (t->tilt_moves[k] >> m & 1) {
            uint64_t child =
                (uint64_t)move_row(t, t->corners_move, corners)[m] * N_TWIST +
                move_row(t, t->twist_move, twist)[m];
            map_lower(map, child * N_TILT + (uint64_t)k, d + 1);
        }
    for (int k2 = 0; k2 < N_TILT; k2++)
        map_lower(map, pos * N_TILT + (uint64_t)k2, d + 1);
}

static void check_robot_corners(const qs_tables *t, int radius)
{
    state_map map;
    map_init(&map, 25);
    for (int k = 0; k < N_TILT; k++)
        map_lower(&map, (uint64_t)k, 0);
    map_search(&map, t, radius, robot_corners_expand);
    uint64_t checked = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = map.keys[i] - 1, pos = key / N_TILT;
        int k = (int)(key % N_TILT);
        assert_int_equal(robot_corner_dist(t, (int)(pos / N_TWIST),
                                           (int)(pos % N_TWIST), k),
                         map.dist[i]);
        checked++;
    }
    print_message("robot: %llu corner distances checked (radius %d)\n",
                  (unsigned long long)checked, radius);
    assert_true(checked > 100000);
    map_free(&map);
}

/* ---- robot corner paths. Phase-2 corner keys: corners * 3 + k; all
 * 120,960 are within the radius, so their distances are exact. */
static void robot_p2_corners_expand(state_map *map, const qs_tables *t,
                                    uint64_t key, int d, int radius)
{
    (void)radius; /* every robot move costs 1 */
    int corners = (int)(key / N_TILT), k = (int)(key % N_TILT);
    for (int x = 0; x < t->n_p2; x++) {
        int m = t->p2_move[x];
        if (t->tilt_moves[k] >> m & 1)
            map_lower(map,
                      (uint64_t)move_row(t, t->corners_move, corners)[m] *
                              N_TILT + (uint64_t)k,
                      d + 1);
    }
    for (int k2 = 0; k2 < N_TILT; k2++)
        map_lower(map, (uint64_t)corners * N_TILT + (uint64_t)k2, d + 1);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return (x > y) - (x < y);
}

/* The corner-path entry of raw corners, twist and class k. */
static uint64_t path_entry(const qs_tables *t, int corners, int twist, int k)
{
    uint8_t shift;
    uint32_t i = robot_corner_index(t, corners, twist, k, &shift);
    return robot_path_entry(t, robot_path_index(i, shift));
}

static int path_nibble(uint64_t e, int j) { return (int)(e >> (4 * j) & 15); }

/* What nibble j must say, by trying every way of at most j turns and
 * tilts: the least phase-2 corner distance (p2) of oriented corners
 * reached, 15 when none is (or 15 and more). */
static int paths_by_hand(const qs_tables *t, state_map *p2, int corners,
                         int twist, int k, int j)
{
    int best = twist == 0 ? map_get(p2, (uint64_t)corners * N_TILT + k) : 15;
    if (best > 15)
        best = 15;
    for (int m = 0; j > 0 && m < t->n_moves; m++)
        if (t->tilt_moves[k] >> m & 1) {
            int v = paths_by_hand(t, p2,
                                  move_row(t, t->corners_move, corners)[m],
                                  move_row(t, t->twist_move, twist)[m], k,
                                  j - 1);
            if (v < best)
                best = v;
        }
    for (int k2 = 0; j > 0 && k2 < N_TILT; k2++)
        if (k2 != k) {
            int v = paths_by_hand(t, p2, corners, twist, k2, j - 1);
            if (v < best)
                best = v;
        }
    return best;
}

/* The corner-path table against the raw truth: nibble 0 of oriented
 * corners is their phase-2 distance, exact for every permutation and
 * class; nibbles 1-3 equal a search of every short path on states a few
 * moves from oriented corners; every nibble j follows from nibble j - 1
 * of the state and its children, read through the symmetries, on random
 * states; nibble 15 is the corner table's distance, and no path bound
 * is below it. */
static void check_robot_paths(const qs_tables *t)
{
    assert_non_null(t->rpath_code);
    state_map p2;
    map_init(&p2, 18);
    for (int k = 0; k < N_TILT; k++)
        map_lower(&p2, (uint64_t)k, 0);
    map_search(&p2, t, 24, robot_p2_corners_expand);
    assert_int_equal(p2.count, N_PERM8 * N_TILT);
    int deepest = 0;
    for (int c = 0; c < N_PERM8; c++)
        for (int k = 0; k < N_TILT; k++) {
            int d = map_get(&p2, (uint64_t)c * N_TILT + k);
            if (d > deepest)
                deepest = d;
            assert_int_equal(path_nibble(path_entry(t, c, 0, k), 0),
                             d < 15 ? d : 15);
        }
    assert_true(deepest >= 10); /* phase 2 is long for corners alone */

    /* robot_path_most, by which the search skips reads: every entry
     * within it, and each value reached, so it is neither wrong nor
     * loose. */
    int most[ROBOT_PATH_NIBBLES + 1] = {0};
    for (uint64_t i = 0; i < N_CORNERS_OPT * N_TILT; i++)
        for (int j = 0; j <= ROBOT_PATH_NIBBLES; j++) {
            int b = robot_path_bound(robot_path_entry(t, (uint32_t)i), j);
            if (b > most[j])
                most[j] = b;
        }
    for (int j = 0; j < ROBOT_PATH_NIBBLES; j++) {
        assert_int_equal(most[j], robot_path_most[j]);
        assert_false(robot_path_may_refuse(j, most[j]));
        assert_true(robot_path_may_refuse(j, most[j] - 1));
    }
    assert_int_equal(most[ROBOT_PATH_NIBBLES], ROBOT_PATH_NIBBLES);

    /* The room tables answer what the entries do: a child with j
     * phase-1 moves left is refused in room r exactly when its bound
     * exceeds j + r, for every j a search can have (every 61st entry,
     * each class of it, every room). Rooms beyond the tables never
     * refuse. */
    assert_non_null(t->rpath_rooms);
    assert_null(robot_path_rooms(t, -1));
    assert_null(robot_path_rooms(t, ROBOT_PATH_ROOMS));
    int refusals = 0;
    for (uint64_t e = 0; e < N_CORNERS_OPT; e += 61)
        for (int k = 0; k < N_TILT; k++) {
            uint64_t entry = robot_path_entry(t, (uint32_t)(e * N_TILT + k));
            for (int r = 0; r <= ROBOT_PATH_ROOMS + 1; r++) {
                const uint8_t *rooms = robot_path_rooms(t, r);
                for (int j = 0; j <= 2 * ROBOT_PATH_NIBBLES; j++) {
                    int refused = robot_path_bound(entry, j) > j + r;
                    if (!rooms) {
                        assert_false(refused);
                        continue;
                    }
                    assert_int_equal(
                        j < robot_corner_value(rooms[e], 4 + k), refused);
                    refusals += refused;
                }
            }
        }
    assert_true(refusals > 100000); /* the rooms do refuse */

    /* The dictionary (BLOB_ROBOT_PATHS): codes in the order their entries
     * were first met, so every entry of it is used and the file is the
     * same at every generation; its entries distinct, the rest zero. */
    uint32_t used = 0;
    for (uint64_t i = 0; i < N_CORNERS_OPT * N_TILT; i++) {
        assert_true(t->rpath_code[i] <= used);
        if (t->rpath_code[i] == used)
            used++;
    }
    assert_true(used > 1000 && used < ROBOT_PATH_DICT);
    uint64_t *sorted = malloc(used * sizeof *sorted);
    assert_non_null(sorted);
    memcpy(sorted, t->rpath_dict, used * sizeof *sorted);
    qsort(sorted, used, sizeof *sorted, cmp_u64);
    for (uint32_t i = 1; i < used; i++)
        assert_true(sorted[i] != sorted[i - 1]);
    free(sorted);
    for (uint32_t i = used; i < ROBOT_PATH_DICT; i++)
        assert_true(t->rpath_dict[i] == 0);

    uint64_t rng = 20261125;
    int short_paths = 0, steps = 0;
    for (int i = 0; i < 400; i++) {
        /* A few robot moves from oriented corners. */
        int c = (int)(test_rand(&rng) % N_PERM8), tw = 0;
        int k = (int)(test_rand(&rng) % N_TILT);
        for (int n = (int)(test_rand(&rng) % 4); n > 0; n--) {
            int m = (int)(test_rand(&rng) % (uint64_t)t->n_moves);
            if (!(t->tilt_moves[k] >> m & 1))
                continue;
            c = move_row(t, t->corners_move, c)[m];
            tw = move_row(t, t->twist_move, tw)[m];
        }
        uint64_t e = path_entry(t, c, tw, k);
        for (int j = 0; j <= 3; j++) {
            assert_int_equal(path_nibble(e, j),
                             paths_by_hand(t, &p2, c, tw, k, j));
            short_paths++;
        }
        /* Anywhere: the step from j - 1 to j, and the corners' nibble. */
        c = (int)(test_rand(&rng) % N_PERM8);
        tw = (int)(test_rand(&rng) % N_TWIST);
        e = path_entry(t, c, tw, k);
        assert_int_equal((int)(e >> 60), robot_corner_dist(t, c, tw, k));
        /* The robot search reads no corner entry when it has this table:
         * a path's bound must never be below the corners' distance. */
        for (int j = 0; j <= ROBOT_PATH_NIBBLES; j++)
            assert_true(robot_path_bound(e, j) >= (int)(e >> 60));
        for (int j = 1; j < ROBOT_PATH_NIBBLES; j++) {
            int least = path_nibble(e, j - 1);
            for (int m = 0; m < t->n_moves; m++)
                if (t->tilt_moves[k] >> m & 1) {
                    int v = path_nibble(
                        path_entry(t, move_row(t, t->corners_move, c)[m],
                                   move_row(t, t->twist_move, tw)[m], k),
                        j - 1);
                    if (v < least)
                        least = v;
                }
            for (int k2 = 0; k2 < N_TILT; k2++) {
                int v = path_nibble(path_entry(t, c, tw, k2), j - 1);
                if (v < least)
                    least = v;
            }
            assert_int_equal(path_nibble(e, j), least);
            steps++;
        }
    }
    print_message("robot: corner paths: %d permutations x 3 classes exact, "
                  "%d short-path nibbles, %d steps checked\n",
                  N_PERM8, short_paths, steps);
    map_free(&p2);
}

/* Phase 2 keys: ((corners * 40320 + udedges) * 24 + slice order) * 9 +
 * k * 3 + e, e the class the search must end in. */
static void robot_p2_expand(state_map *map, const qs_tables *t,
                            uint64_t key, int d, int radius)
{
    (void)radius; /* every robot move costs 1 */
    uint64_t pos = key / 9;
    int k = (int)(key % 9 / 3), e = (int)(key % 3);
    for (int x = 0; x < t->n_p2; x++)
        if (t->tilt_moves[k] >> t->p2_move[x] & 1)
            map_lower(map, p2_child(t, pos, x) * 9 + (uint64_t)(k * 3 + e),
                      d + 1);
    for (int k2 = 0; k2 < N_TILT; k2++)
        map_lower(map, pos * 9 + (uint64_t)(k2 * 3 + e), d + 1);
}

static void check_robot_phase2(const qs_tables *t, int radius)
{
    state_map map;
    map_init(&map, 25);
    for (int e = 0; e < N_TILT; e++)
        map_lower(&map, (uint64_t)e * N_TILT + e, 0);
    map_search(&map, t, radius, robot_p2_expand);
    /* Robot phase-2 entries ignore the slice order, so they are lower
     * bounds; the end-class bit must hold wherever the distances are
     * known exactly (both within the radius). */
    uint64_t checked = 0;
    int exact = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = map.keys[i] - 1, pos = key / 9;
        int k = (int)(key % 9 / 3), e = (int)(key % 3), d = map.dist[i];
        int ud = (int)(pos / N_SLICE2 % N_PERM8);
        int corners = (int)(pos / N_SLICE2 / N_PERM8);
        int s = t->corner_sym[corners];
        uint32_t entry =
            t->rphase2[(uint64_t)t->corner_class[corners] * N_PERM8 +
                       t->udedges_conj[ud][s]];
        int kk = t->axis_conj[k][s], ee = t->axis_conj[e][s];
        int any = (int)(entry >> (4 * kk) & 15);
        int bound = any + (int)(entry >> (RP2_EXCESS + 3 * ee + kk) & 1);
        assert_true(any <= d);
        assert_true(bound <= d);
        exact += bound == d;
        checked++;
    }
    print_message("robot: %llu phase-2 states checked, bound exact on %d\n",
                  (unsigned long long)checked, exact);
    assert_true(exact > (int)(checked / 2));
    map_free(&map);
}

static void test_robot(void **state)
{
    (void)state;
    qtab_set *set = test_open_tables(QS_METRIC_ROBOT);
    const qs_tables *t = qtab_set_tables(set);
    /* The default robot set has the large move table. */
    assert_true(qs_tables_robot_large(t));
    check_robot_phase1(t, 5);
    check_robot_phase2(t, 6);
    check_robot_corners(t, 5);
    check_robot_paths(t);
    qtab_close(set);
}

static void test_htm(void **state) { (void)state; check_phase1(QS_METRIC_HTM, 6); }
static void test_qtm(void **state) { (void)state; check_phase1(QS_METRIC_QTM, 7); }
static void test_axht(void **state) { (void)state; check_phase1(QS_METRIC_AXHT, 5); }
static void test_axqt(void **state) { (void)state; check_phase1(QS_METRIC_AXQT, 6); }

/* ---- H48 (solver/h48.c and its table): the coordinate's move and
 * conjugation tables against the cubie model, its invariance under the
 * 48 symmetries, and the table against a breadth-first search over the
 * raw (not reduced) coordinate, key cocsep * H48_N_ESEP + esep. */

static qs_tables *base_tables(qs_metric m)
{
    qs_tables *t = malloc(sizeof *t);
    assert_non_null(t);
    assert_int_equal(qs_tables_init_base(t, m), QS_OK);
    return t;
}

static void sym_conjugate(const qs_cube sym[48], const uint8_t inv[48], int s,
                          const qs_cube *c, qs_cube *out)
{
    qs_cube tmp;
    qs_cube_multiply(&sym[s], c, &tmp);
    qs_cube_multiply(&tmp, &sym[inv[s]], out);
}

/* The coordinate with corner level `level` against the cubie model. */
static void check_h48_coordinate(const qs_tables *t, int level)
{
    qs_h48 *x, *x4, *bad;
    assert_int_equal(qs_h48_create(t, -1, level, &bad), QS_ERR_ARGUMENT);
    assert_int_equal(qs_h48_create(t, H48_MAX_H + 1, level, &bad),
                     QS_ERR_ARGUMENT);
    assert_int_equal(qs_h48_create(t, 0, H48_MAX_LEVEL + 1, &bad),
                     QS_ERR_ARGUMENT);
    assert_int_equal(qs_h48_create(t, 0, -1, &bad), QS_ERR_ARGUMENT);
    /* the part and class counts are checked inside, else QS_ERR_TABLES */
    assert_int_equal(qs_h48_create(t, 0, level, &x), QS_OK);
    /* h is read by the index alone, so the h = 4 coordinate's arena is the
     * h = 0 one's: it is made at level 0, where that is cheapest, and at
     * the other levels its indices are taken from a copy of x's fields
     * with h = 4 (two more arenas of the same bytes would add about a
     * second to the test, several times that under ASan). */
    if (level == 0) {
        assert_int_equal(qs_h48_create(t, 4, level, &x4), QS_OK);
        assert_int_equal(x4->h, 4);
    } else {
        x4 = malloc(sizeof *x4);
        assert_non_null(x4);
        *x4 = *x;
        x4->h = 4;
    }
    assert_int_equal(x->n_part, level == 0 ? 70 : level == 1 ? 420 : 2520);
    assert_int_equal(x->n_class, H48_N_CLASS(level));
    qs_cube sym[48], solved;
    qs_sym_cubes(sym);
    qs_cube_solved(&solved);
    /* the solved corners are a class of their own, fixed by all 48 */
    int cls;
    uint64_t goal = h48_index(x, qs_h48_cocsep(x, &solved),
                              qs_h48_esep(x, &solved), &cls);
    assert_int_equal(x->class_stab[cls], (1ull << 48) - 1);
    assert_int_equal(x->class_dist[cls], 0);
    assert_int_equal(x->esep_dist[qs_h48_esep(x, &solved)], 0);
    assert_true(qs_h48_canonical_index(x, &solved) == goal);
    /* every class is a class: its stabiliser fixes its representative */
    int with_stab = 0;
    for (int k = 0; k < x->n_class; k++) {
        assert_int_equal((int)(x->cocsep_packed[x->class_rep[k]] >> 6), k);
        with_stab += x->class_stab[k] != 1;
    }
    print_message("h48 level %d: %d classes, %d with symmetries\n", level,
                  x->n_class, with_stab);

    uint64_t rng = 0x48u;
    for (int n = 0; n < 2000; n++) {
        qs_cube c, d, e;
        qs_cube_random(&c, &rng);
        uint32_t cs = qs_h48_cocsep(x, &c);
        int es = qs_h48_esep(x, &c);
        assert_true(cs < x->n_cocsep);
        /* the search's inverse probe: the inverse's corner coordinate
         * from the position's permutation and the inverse's twists */
        qs_cube_inverse(&c, &d);
        assert_int_equal(qs_h48_inverse_cocsep(x, qs_coord_corners(&c), d.co),
                         qs_h48_cocsep(x, &d));
        assert_true(es >= 0 && es < H48_N_ESEP);
        for (int m = 0; m < 18; m++) {
            d = c;
            qs_cube_apply_move(&d, (qs_move)m);
            assert_int_equal(h48_cocsep_move(x, cs, m),
                             qs_h48_cocsep(x, &d));
            assert_int_equal(x->esep_move[es][m], qs_h48_esep(x, &d));
        }
        uint64_t ci = qs_h48_canonical_index(x, &c);
        uint64_t ci4 = qs_h48_canonical_index(x4, &c);
        assert_true(ci < H48_ENTRIES(level, 0));
        assert_true(ci4 < H48_ENTRIES(level, 4));
        /* the least index has the least esep: h only appends bits */
        assert_true(ci4 >> 4 == ci);
        for (int s = 0; s < 48; s++) {
            sym_conjugate(sym, t->sym_inv, s, &c, &d);
            assert_int_equal(x->esep_conj[es][s], qs_h48_esep(x, &d));
            assert_int_equal(x->cocsep_packed[cs] >> 6,
                             x->cocsep_packed[qs_h48_cocsep(x, &d)] >> 6);
            assert_true(qs_h48_canonical_index(x, &d) == ci);
            assert_true(qs_h48_canonical_index(x4, &d) == ci4);
        }
        /* the packed symmetry takes the corners to the representative */
        uint32_t p = x->cocsep_packed[cs];
        sym_conjugate(sym, t->sym_inv, (int)(p & 63), &c, &e);
        assert_int_equal(qs_h48_cocsep(x, &e), x->class_rep[p >> 6]);
        uint64_t fast = h48_index(x, cs, es, &cls);
        assert_int_equal(fast, (uint64_t)cls * H48_N_ESEP + qs_h48_esep(x, &e));
        /* with orientation bits: the search's index (from the position's
         * own orientation, without conjugating cubies) is that of the
         * conjugate's positions 0..3 */
        if (level == 0) {
            unsigned eo12 = x4->eo_of_flip[qs_coord_flip(&c)];
            assert_int_equal(h48_index_eo(x4, cs, es, eo12, &cls),
                             fast << 4 | (uint64_t)qs_h48_eobits(&e, 4));
        }
    }
    /* the orientation bits, by hand: flip UR and UF in place */
    qs_cube f = solved;
    f.eo[0] = f.eo[1] = 1;
    assert_int_equal(qs_h48_eobits(&f, 4), 3);
    assert_int_equal(qs_h48_eobits(&f, 1), 1);
    assert_int_equal(qs_h48_eobits(&f, 0), 0);
    qs_h48_free(x);
    if (level == 0)
        qs_h48_free(x4);
    else
        free(x4); /* its arrays are x's */
}

static void test_h48_coordinate(void **state)
{
    (void)state;
    qs_tables *t = base_tables(QS_METRIC_HTM);
    for (int level = 0; level <= H48_MAX_LEVEL; level++)
        check_h48_coordinate(t, level);
    qs_tables_free_base(t);
    free(t);
}

/* The raw H48 coordinate, key cocsep * H48_N_ESEP + esep, moved by the
 * set's H48 move tables (checked against the cubie model above). */
static void h48_expand(state_map *m, const qs_tables *t, uint64_t key, int d,
                       int radius)
{
    const qs_h48 *x = t->h48;
    uint32_t cs = (uint32_t)(key / H48_N_ESEP);
    int es = (int)(key % H48_N_ESEP);
    (void)radius;
    for (int mv = 0; mv < 18; mv++)
        map_lower(m,
                  (uint64_t)h48_cocsep_move(x, cs, mv) * H48_N_ESEP +
                      x->esep_move[es][mv],
                  d + 1);
}

/* ---- the exact H48 table with orientation bits (solver/h48gen.c):
 * key ((cocsep * H48_N_ESEP + esep) << 12 | orientation by position), the
 * whole coset state, moved by the cubie model's moves. */

static const qs_h48 *h48eo_x;
static qs_cube h48eo_moves[18];

static void h48eo_expand(state_map *m, const qs_tables *t, uint64_t key,
                         int d, int radius)
{
    const qs_h48 *x = h48eo_x;
    uint64_t coarse = key >> 12;
    uint32_t cs = (uint32_t)(coarse / H48_N_ESEP);
    int es = (int)(coarse % H48_N_ESEP);
    unsigned eo = (unsigned)(key & 0xfff);
    (void)t;
    (void)radius;
    for (int mv = 0; mv < 18; mv++) {
        const qs_cube *mc = &h48eo_moves[mv];
        unsigned to = 0;
        for (int q = 0; q < 12; q++)
            to |= ((eo >> mc->ep[q] & 1) ^ mc->eo[q]) << q;
        uint64_t c2 = (uint64_t)h48_cocsep_move(x, cs, mv) * H48_N_ESEP +
                      x->esep_move[es][mv];
        map_lower(m, c2 << 12 | to, d + 1);
    }
}

/* Every entry of some classes checked against a breadth-first search over
 * whole coset states within R moves, read through the search's own index
 * (h48_index_eo): an entry's value is the least distance of the states
 * that index it, exact where that is at most R; an entry no such state
 * indexes is beyond R. The endgame is short (3 moves) so that the
 * generator's move sequences (up to base + 2 - 3 moves) are exercised. */
static void test_h48_exact(void **state)
{
    (void)state;
    enum { R = 6, BASE = 4, H = 4, ENDGAME = 3, CLASSES = 10 };
    qs_tables *t = base_tables(QS_METRIC_HTM);
    qs_h48 *x;
    assert_int_equal(qs_h48_create(t, H, 0, &x), QS_OK);
    h48eo_x = x;
    for (int mv = 0; mv < 18; mv++)
        qs_move_cube((qs_move)mv, &h48eo_moves[mv]);
    qs_h48_endgame *eg, *bad;
    assert_int_equal(qs_h48_endgame_create(x, 0, &bad), QS_ERR_ARGUMENT);
    assert_int_equal(qs_h48_endgame_create(x, ENDGAME, &eg), QS_OK);
    /* 1, 6, 75, 888: the coset states within 3 moves */
    assert_int_equal(eg->states, 1 + 6 + 75 + 888);

    state_map map, entries;
    map_init(&map, 23);
    map_init(&entries, 23);
    qs_cube solved;
    qs_cube_solved(&solved);
    map_lower(&map, ((uint64_t)qs_h48_cocsep(x, &solved) * H48_N_ESEP +
                     (uint64_t)qs_h48_esep(x, &solved)) << 12, 0);
    map_search(&map, t, R, h48eo_expand);
    /* 1,982,725 states within 6 moves (the endgame of 6 finds as many) */
    assert_int_equal(map.count, 1982725);
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = map.keys[i] - 1, coarse = key >> 12;
        int cls;
        uint64_t idx = h48_index_eo(x, (uint32_t)(coarse / H48_N_ESEP),
                                    (int)(coarse % H48_N_ESEP),
                                    (unsigned)(key & 0xfff), &cls);
        map_lower(&entries, idx, map.dist[i]);
    }
    map_free(&map);

    /* the classes: those of corners closest to solved, where most
     * entries are within the radius */
    int classes[CLASSES], n_classes = 0;
    for (int d = 0; d <= R && n_classes < CLASSES; d++)
        for (int k = 0; k < x->n_class && n_classes < CLASSES; k++)
            if (x->class_dist[k] == d)
                classes[n_classes++] = k;
    size_t per_class = (size_t)H48_N_ESEP << H;
    uint8_t *block = malloc(per_class / 4);
    void *scratch = malloc(qs_h48_class_scratch(H));
    assert_non_null(block);
    assert_non_null(scratch);
    assert_int_equal(qs_h48_fill_class(x, eg, -1, BASE, block, scratch, NULL),
                     QS_ERR_ARGUMENT);
    uint64_t counts[4] = {0}, records = 0;
    for (int k = 0; k < n_classes; k++) {
        assert_int_equal(qs_h48_fill_class(x, eg, classes[k], BASE, block,
                                           scratch, &records),
                         QS_OK);
        uint64_t first = (uint64_t)classes[k] * per_class;
        for (uint64_t e = 0; e < per_class; e++) {
            int v = block[e / 4] >> (e % 4 * 2) & 3;
            int d = map_get(&entries, first + e);
            if (d < 0)
                d = R + 1;
            int want = d <= BASE ? 0 : d > R ? 3 : d - BASE;
            if (d > R) /* beyond the radius: at least R + 1 = base + 3 */
                assert_int_equal(v, 3);
            else
                assert_int_equal(v, want);
            counts[v]++;
        }
    }
    print_message("h48 exact (h %d, base %d, endgame %d): %d classes, "
                  "values 0-3: %llu %llu %llu %llu, %llu records read\n",
                  H, BASE, ENDGAME, n_classes, (unsigned long long)counts[0],
                  (unsigned long long)counts[1], (unsigned long long)counts[2],
                  (unsigned long long)counts[3], (unsigned long long)records);
    /* every value occurs: the check is not vacuous */
    for (int v = 0; v < 4; v++)
        assert_true(counts[v] > 0);
    free(block);
    free(scratch);
    map_free(&entries);
    qs_h48_endgame_free(eg);
    qs_h48_free(x);

    /* Level 2's keys need more than 48 bits: its endgame (sorted by key)
     * must still hold every coset state within 4 moves once. */
    enum { R2 = 4 };
    assert_int_equal(qs_h48_create(t, 1, 2, &x), QS_OK);
    h48eo_x = x;
    assert_int_equal(qs_h48_endgame_create(x, R2, &eg), QS_OK);
    map_init(&map, 20);
    map_lower(&map, ((uint64_t)qs_h48_cocsep(x, &solved) * H48_N_ESEP +
                     (uint64_t)qs_h48_esep(x, &solved)) << 12, 0);
    map_search(&map, t, R2, h48eo_expand);
    assert_int_equal(eg->states, map.count);
    uint64_t near = 0, edge = 0;
    for (uint32_t c = 0; c < x->n_cocsep; c++) {
        for (uint32_t i = eg->off_near[c]; i < eg->off_near[c + 1]; i++) {
            uint32_t r = eg->rec_near[i];
            uint64_t key = ((uint64_t)c * H48_N_ESEP + (r >> 16)) << 12 |
                           (r & 0xfff);
            assert_int_equal(map_get(&map, key), (int)(r >> 12 & 15));
            near++;
        }
        for (uint32_t i = eg->off_edge[c]; i < eg->off_edge[c + 1]; i++) {
            uint32_t r = eg->rec_edge[i];
            uint64_t key = ((uint64_t)c * H48_N_ESEP + (r >> 16)) << 12 |
                           (r & 0xfff);
            assert_int_equal(map_get(&map, key), R2);
            edge++;
        }
    }
    assert_int_equal(near + edge, map.count);
    map_free(&map);
    qs_h48_endgame_free(eg);
    qs_h48_free(x);
    qs_tables_free_base(t);
    free(t);
}

/* What an entry says of the distance: the exact one (1), at most base
 * (0) or at least base + 3 (3). */
static int h48_decoded(const uint8_t *blob, uint64_t i)
{
    int v = h48_value(blob, i);
    return v == 0 ? -1 : blob[H48_HDR_BASE] + v;
}

static void test_h48_table(void **state)
{
    (void)state;
    qtab_set *set = test_open_tables_sized(QS_METRIC_HTM, QTAB_OPTIMAL_H48);
    const qs_tables *t = qtab_set_tables(set);
    assert_true(qs_tables_optimal_h48(t));
    assert_false(qs_tables_optimal_large(t));
    const qs_h48 *x = t->h48;
    const uint8_t *blob = t->h48_blob;
    int base = blob[H48_HDR_BASE];
    assert_int_equal(qs_h48_h(blob), 0);
    assert_true(base >= 1 && base <= 15);

    /* Breadth-first search over the raw coordinate to radius R. */
    enum { R = 6 };
    state_map map;
    map_init(&map, 24);
    qs_cube solved;
    qs_cube_solved(&solved);
    map_lower(&map, (uint64_t)qs_h48_cocsep(x, &solved) * H48_N_ESEP +
                        (uint64_t)qs_h48_esep(x, &solved), 0);
    map_search(&map, t, R, h48_expand);
    uint64_t checked = 0, exact = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = map.keys[i] - 1;
        int d = map.dist[i], cls;
        uint32_t cs = (uint32_t)(key / H48_N_ESEP);
        int es = (int)(key % H48_N_ESEP);
        uint64_t idx = h48_index(x, cs, es, &cls);
        int b = h48_bound(x, blob, idx, cls, es, NULL, 0);
        assert_true(b <= d);
        /* exact above the base, "at most base" below */
        assert_int_equal(h48_decoded(blob, idx),
                         d <= base ? -1 : d - base > 3 ? base + 3 : d);
        exact += b == d;
        checked++;
    }
    print_message("h48: base %d, %llu coordinates within %d moves, bound "
                  "exact on %llu\n",
                  base, (unsigned long long)checked, R,
                  (unsigned long long)exact);
    assert_true(checked > 100000);
    map_free(&map);

    /* Beyond the radius, on random cubes: an exact entry has its
     * neighbours within one of it and one of them one closer; no entry
     * is above a scramble's length. */
    uint64_t rng = 0x4848u;
    int exact_seen = 0;
    for (int n = 0; n < 3000; n++) {
        qs_cube c;
        qs_cube_random(&c, &rng);
        uint32_t cs = qs_h48_cocsep(x, &c);
        int es = qs_h48_esep(x, &c), cls;
        uint64_t idx = h48_index(x, cs, es, &cls);
        assert_int_equal(h48_value(blob, idx),
                         h48_value(blob, qs_h48_canonical_index(x, &c)));
        int d = h48_decoded(blob, idx);
        int closer = 0;
        for (int m = 0; m < 18; m++) {
            uint32_t cs2 = h48_cocsep_move(x, cs, m);
            int es2 = x->esep_move[es][m], cls2;
            int d2 = h48_decoded(blob, h48_index(x, cs2, es2, &cls2));
            if (d == -1)
                assert_true(d2 == -1 || d2 == base + 1);
            else if (d == base + 3)
                assert_true(d2 >= base + 2);
            else {
                int lo = d2 == -1 ? base : d2;
                assert_true(d2 == -1 ? d - 1 <= base
                                     : d2 >= d - 1 && (d2 <= d + 1 ||
                                                       d + 1 == base + 3));
                closer |= lo == d - 1;
            }
        }
        if (d > 0 && d < base + 3) {
            assert_true(closer);
            exact_seen++;
        }
        qs_cube s = solved;
        int len = 1 + n % 12;
        qs_move moves[12];
        for (int k = 0; k < len; k++) {
            moves[k] = (qs_move)(rng % 18);
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        }
        qs_cube_apply_moves(&s, moves, len);
        cs = qs_h48_cocsep(x, &s);
        es = qs_h48_esep(x, &s);
        idx = h48_index(x, cs, es, &cls);
        assert_true(h48_bound(x, blob, idx, cls, es, NULL, 0) <= len);
    }
    assert_true(exact_seen > 100);

    /* A set is refused an H48 blob whose header is not one (another
     * magic, or an h this build does not read); a sound header is taken
     * (only the header is read when the set is made). */
    uint8_t fake[H48_HEADER];
    memcpy(fake, blob, sizeof fake);
    const void *blobs[QS_BLOB_MAX] = {NULL};
    blobs[BLOB_H48] = fake;
    qs_tables *made = NULL;
    assert_int_equal(qs_tables_create(QS_METRIC_HTM, blobs, &made), QS_OK);
    assert_true(qs_tables_optimal_h48(made));
    qs_tables_free(made);
    fake[H48_HDR_H] = 3;
    assert_int_equal(qs_tables_create(QS_METRIC_HTM, blobs, &made),
                     QS_ERR_TABLES);
    fake[H48_HDR_H] = 0;
    fake[0] ^= 1;
    assert_int_equal(qs_tables_create(QS_METRIC_HTM, blobs, &made),
                     QS_ERR_TABLES);
    /* other metrics have no H48 blob */
    assert_int_equal(qs_tables_create(QS_METRIC_QTM, blobs, &made), QS_OK);
    assert_false(qs_tables_optimal_h48(made));
    qs_tables_free(made);
    qtab_close(set);
}

/* ---- the compact optimal set's phase-1 table (BLOB_P1M3) */

static void test_phase1_mod3(void **state)
{
    (void)state;
    qtab_set *set = test_open_tables_sized(QS_METRIC_HTM, QTAB_OPTIMAL_COMPACT);
    const qs_tables *t = qtab_set_tables(set);
    assert_true(qs_tables_optimal_compact(t));
    assert_true(qs_tables_optimal_h48(t));
    assert_false(qs_tables_optimal_large(t));
    /* the two-phase tables are left out, not loaded */
    assert_null(t->phase1);
    assert_null(t->phase2);
    qtab_stats st;
    qtab_set_stats(set, &st);
    assert_int_equal(st.blobs, 3); /* corners, H48, phase-1 mod 3 */
    const uint8_t *p = t->opt_p1m3;
    assert_non_null(p);

    /* The truth within the radius: the raw coordinate's breadth-first
     * search, seen through the symmetry the lookup uses. */
    state_map map;
    map_init(&map, 24);
    map_lower(&map, p1_key(SLICE_SOLVED * 24, 0, 0), 0);
    map_search(&map, t, 6, p1_expand);
    uint64_t checked = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        uint64_t key = map.keys[i] - 1;
        int twist = (int)(key % N_TWIST), fs = (int)(key / N_TWIST);
        uint64_t idx = (uint64_t)t->fs_class[fs] * N_TWIST +
                       t->twist_conj[twist][t->fs_sym[fs]];
        assert_int_equal(opt_large_value(p, idx), map.dist[i] % 3);
        checked++;
    }
    assert_true(checked > 100000);
    map_free(&map);

    /* Everywhere else, against the phase-1 table of the small set (its
     * own encoder): the same distance modulo 3 on every entry sampled,
     * and no entry says 3 (not reached). */
    qtab_set *small = test_open_tables_sized(QS_METRIC_HTM,
                                             QTAB_OPTIMAL_SMALL);
    const qs_tables *s = qtab_set_tables(small);
    assert_false(qs_tables_optimal_compact(s));
    uint64_t rng = 0x3d3d3du;
    for (int k = 0; k < 1000000; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t idx = (rng >> 11) % N_PHASE1;
        int d = (int)(phase1_entry(s, idx) & P1_DIST_MASK);
        assert_int_equal(opt_large_value(p, idx), d % 3);
    }
    print_message("phase1-mod3: %llu entries within 6 moves and 1,000,000 "
                  "sampled checked\n", (unsigned long long)checked);
    qtab_close(small);
    qtab_close(set);
}

/* ---- the edge table (BLOB_EDGES): esep and the orientation of the
 * edges at positions 0..10 */

static uint64_t edges_key(const qs_h48 *x, const qs_cube *c)
{
    unsigned eo = 0;
    for (int q = 0; q < 12; q++)
        eo |= (unsigned)c->eo[q] << q;
    return edges_index(qs_h48_esep(x, c), eo);
}

/* Every move sequence of at most `left` more moves (no face twice in a
 * row) from c, each state's least depth into map. */
static void edges_walk(state_map *map, const qs_h48 *x, const qs_cube *c,
                       int depth, int left, int last_face)
{
    map_lower(map, edges_key(x, c), depth);
    if (left == 0)
        return;
    for (int m = 0; m < 18; m++) {
        if (m / 3 == last_face)
            continue;
        qs_cube k = *c;
        qs_cube_apply_move(&k, (qs_move)m);
        edges_walk(map, x, &k, depth + 1, left - 1, m / 3);
    }
}

static void test_edge_table(void **state)
{
    (void)state;
    qs_blob_info info;
    assert_int_equal(qs_blob_describe(QS_METRIC_HTM, BLOB_EDGES, &info),
                     QS_OK);
    assert_string_equal(info.name, "edges");
    assert_int_equal(info.optional, 16); /* the h48h7 size's */
    assert_int_equal(qs_blob_describe(QS_METRIC_QTM, BLOB_EDGES, &info),
                     QS_ERR_ARGUMENT);
    uint8_t *tab = malloc(N_EDGES_OPT / 2);
    assert_non_null(tab);
    assert_int_equal(qs_blob_generate(QS_METRIC_HTM, BLOB_EDGES, tab, 2,
                                      NULL, NULL, NULL, NULL),
                     QS_OK);
    qtab_set *set = test_open_tables(QS_METRIC_HTM);
    const qs_tables *t = qtab_set_tables(set);
    qs_h48 *x;
    assert_int_equal(qs_h48_create(t, 0, 0, &x), QS_OK);

    /* The truth within 6 moves, from the cube model's own moves: exactly
     * the least depth of every state reached. */
    state_map map;
    map_init(&map, 22);
    qs_cube c;
    qs_cube_solved(&c);
    edges_walk(&map, x, &c, 0, 6, -1);
    uint64_t checked = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        assert_int_equal(edges_value(tab, map.keys[i] - 1), map.dist[i]);
        checked++;
    }
    assert_true(checked > 1000000);
    map_free(&map);

    /* Every entry is reached, and none is farther than 11 moves; the
     * superflip is (all edges flipped, every edge home). */
    int most = 0;
    for (uint64_t i = 0; i < N_EDGES_OPT; i++)
        if (edges_value(tab, i) > most)
            most = edges_value(tab, i);
    assert_int_equal(most, 11);
    qs_cube_solved(&c);
    for (int q = 0; q < 12; q++)
        c.eo[q] = 1;
    assert_int_equal(edges_value(tab, edges_key(x, &c)), 11);

    /* A lower bound beyond the radius: never above a scramble's length. */
    uint64_t rng = 0x5eed;
    for (int k = 0; k < 20000; k++) {
        qs_cube_solved(&c);
        int n = 7 + k % 8;
        for (int j = 0; j < n; j++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            qs_cube_apply_move(&c, (qs_move)((rng >> 33) % 18));
        }
        assert_true(edges_value(tab, edges_key(x, &c)) <= n);
    }
    print_message("edges: %llu states within 6 moves checked\n",
                  (unsigned long long)checked);
    qs_h48_free(x);
    qtab_close(set);
    free(tab);
}

/* ---- the optimal solver's extra-large table (BLOB_OPT_XL)
 * key = p1_key * 70 + csplit: the raw coordinates of its goal */

static void xl_expand(state_map *map, const qs_tables *t, uint64_t key,
                      int d, int radius)
{
    int split = (int)(key % N_CSPLIT);
    for (int m = 0; m < t->n_moves; m++)
        if (d + t->cost[m] <= radius)
            map_lower(map,
                      p1_child(t, key / N_CSPLIT, m) * N_CSPLIT +
                          t->csplit_move[split][m],
                      d + t->cost[m]);
}

static uint64_t xl_index(const qs_tables *t, uint64_t key)
{
    int split = (int)(key % N_CSPLIT);
    uint64_t p1 = key / N_CSPLIT;
    int twist = (int)(p1 % N_TWIST), fs = (int)(p1 / N_TWIST);
    int sym = t->fs_sym[fs];
    return ((uint64_t)t->fs_class[fs] * N_CSPLIT + t->csplit_conj[split][sym]) *
               N_TWIST +
           t->twist_conj[twist][sym];
}

static void test_xl_table(void **state)
{
    (void)state;
    qtab_set *set = test_open_tables_sized(QS_METRIC_HTM, QTAB_OPTIMAL_XL);
    const qs_tables *t = qtab_set_tables(set);
    assert_true(qs_tables_optimal_xl(t));
    assert_false(qs_tables_optimal_large(t)); /* xl replaces it in HTM */
    const uint8_t *p = t->opt_xl;

    /* Within the radius, the exact distance modulo 3 of the raw
     * coordinate's breadth-first search, seen through the lookup's
     * symmetry. */
    state_map map;
    map_init(&map, 24);
    map_lower(&map, p1_key(SLICE_SOLVED * 24, 0, 0) * N_CSPLIT, 0);
    map_search(&map, t, 5, xl_expand);
    uint64_t checked = 0;
    for (uint64_t i = 0; i <= map.mask; i++) {
        if (map.keys[i] == EMPTY_KEY)
            continue;
        assert_int_equal(opt_large_value(p, xl_index(t, map.keys[i] - 1)),
                         map.dist[i] % 3);
        checked++;
    }
    assert_true(checked > 100000);
    map_free(&map);

    /* Everywhere: every entry reached (3 marks unreached), and every
     * random state but the goal has a neighbour one closer (value one
     * less modulo 3). */
    const uint64_t goal = p1_key(SLICE_SOLVED * 24, 0, 0) * N_CSPLIT;
    uint64_t rng = 0x5eed5eedu;
    for (int k = 0; k < 200000; k++) {
        rng = rng * 6364136223846793005ull + 1442695040888963407ull;
        uint64_t key = (rng >> 11) % ((uint64_t)N_FLIPSLICE * N_TWIST *
                                      N_CSPLIT);
        int v = opt_large_value(p, xl_index(t, key));
        assert_true(v < 3);
        int closer = 0;
        for (int m = 0; m < 18; m++) {
            uint64_t kid = p1_child(t, key / N_CSPLIT, m) * N_CSPLIT +
                           t->csplit_move[key % N_CSPLIT][m];
            int w = opt_large_value(p, xl_index(t, kid));
            assert_true(w < 3);
            closer |= w == (v + 2) % 3;
        }
        assert_true(closer || key == goal);
    }
    print_message("optimal-xl: %llu entries within 5 moves and 200,000 "
                  "sampled checked\n", (unsigned long long)checked);
    qtab_close(set);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_htm),
        cmocka_unit_test(test_qtm),
        cmocka_unit_test(test_axht),
        cmocka_unit_test(test_axqt),
        cmocka_unit_test(test_robot),
        cmocka_unit_test(test_h48_coordinate),
        cmocka_unit_test(test_h48_table),
        cmocka_unit_test(test_h48_exact),
        cmocka_unit_test(test_phase1_mod3),
        cmocka_unit_test(test_xl_table),
        cmocka_unit_test(test_edge_table),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
