/*
 * tables.c - the small tables every table set builds when it is created:
 * the metric's move set and costs, canonical move sequences, symmetries,
 * move tables for each coordinate, symmetry classes, and two small exact
 * phase-2 distance tables. The large pruning tables ("blobs") come from
 * prune.c and are attached here by qs_tables_create.
 */
#include "qs_internal.h"

#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

enum { UNSET16 = 0xffff };

/* All small tables live in one arena of 2 MiB pages: the search reads them
 * at random, and with 4 KiB pages most of those reads would miss the TLB.
 * The arena is reserved generously; untouched pages cost nothing. */
#define ARENA_BYTES ((size_t)32 << 20)
#define HUGE_PAGE ((size_t)2 << 20)

int qs_arena_reserve(qs_arena *a, size_t capacity)
{
    void *p = mmap(NULL, capacity + HUGE_PAGE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return QS_ERR_NOMEM;
    a->base = p;
    a->size = capacity + HUGE_PAGE;
    /* Start on a huge-page boundary so every 2 MiB can be one page. */
    a->used = (HUGE_PAGE - (uintptr_t)p % HUGE_PAGE) % HUGE_PAGE;
#ifdef MADV_HUGEPAGE
    madvise((char *)p + a->used, capacity, MADV_HUGEPAGE);
#endif
    return QS_OK;
}

void *qs_arena_carve(qs_arena *a, size_t bytes)
{
    bytes = (bytes + 63) & ~(size_t)63;
    if (!a->base || a->used + bytes > a->size)
        return NULL;
    void *p = (char *)a->base + a->used;
    a->used += bytes;
    return p;
}

void qs_arena_free(qs_arena *a)
{
    if (a->base)
        munmap(a->base, a->size);
    a->base = NULL;
}

static void *carve(qs_tables *t, size_t bytes)
{
    if (!t->arena.base && qs_arena_reserve(&t->arena, ARENA_BYTES))
        return NULL;
    return qs_arena_carve(&t->arena, bytes);
}

/* The pieces a coordinate reads: turning or conjugating the edges alone
 * (qs_cube_multiply_edges), where a coordinate is about edges, was most
 * of what made a table set's start-up faster. */
typedef enum { CORNERS_AND_EDGES, EDGES_ONLY } pieces;

/* a * b into c; with EDGES_ONLY, c's corners are a's. */
static void multiply(pieces p, const qs_cube *a, const qs_cube *b, qs_cube *c)
{
    if (p == EDGES_ONLY)
        qs_cube_multiply_edges(a, b, c);
    else
        qs_cube_multiply(a, b, c);
}

/* sym x sym_inv into out (with EDGES_ONLY, out's corners are sym's). */
static void conjugate(pieces p, const qs_cube *sym, const qs_cube *sym_inv,
                      const qs_cube *x, qs_cube *out)
{
    if (p == EDGES_ONLY) {
        qs_cube_conjugate_edges(sym, sym_inv, x, out);
        return;
    }
    qs_cube tmp;
    qs_cube_multiply(sym, x, &tmp);
    qs_cube_multiply(&tmp, sym_inv, out);
}

static int axis_of(qs_move m)
{
    return m < 18 ? (m / 3) % 3 : (m - 18) / 9;
}

static int in_phase2_group(qs_move m)
{
    int face[2], q[2], n = qs_move_decompose(m, face, q);
    for (int k = 0; k < n; k++)
        if (face[k] % 3 != 0 && q[k] != 2)
            return 0;
    return 1;
}

static void init_moves(qs_tables *t, qs_metric metric)
{
    t->metric = metric;
    /* The robot turns like AXHT; its tilts live in the robot tables. */
    if (metric == QS_METRIC_ROBOT)
        metric = QS_METRIC_AXHT;
    t->axial = metric == QS_METRIC_AXHT || metric == QS_METRIC_AXQT;
    t->n_moves = t->axial ? QS_MOVE_COUNT : 18;
    t->all_moves = t->g1_moves = 0;
    t->grouped = 1;
    t->n_groups = t->axial ? 3 : 6;
    t->parity_step = metric == QS_METRIC_QTM ? 2 : 1;
    memset(t->corner_parity, 0, sizeof t->corner_parity);
    for (int x = 0; x < N_PERM8; x++) {
        uint8_t p[8];
        qs_perm_unrank(x, p, 8);
        if (qs_perm_parity(p, 8))
            t->corner_parity[x >> 3] |= (uint8_t)(1u << (x & 7));
    }
    t->n_p2 = 0;
    memset(t->p2_index, -1, sizeof t->p2_index);
    for (int m = 0; m < t->n_moves; m++) {
        qs_move mv = (qs_move)m;
        t->cost[m] = (uint8_t)qs_moves_length(&mv, 1, metric);
        t->all_moves |= 1ull << m;
        t->group_of[m] = (uint8_t)(t->axial ? axis_of(mv) : m / 3);
        if (t->cost[m] != 1)
            t->grouped = 0;
        if (in_phase2_group(mv)) {
            t->g1_moves |= 1ull << m;
            t->p2_index[m] = (int8_t)t->n_p2;
            t->p2_move[t->n_p2++] = mv;
        }
    }
    /* A canonical sequence never turns the same face (axis, in the axial
     * metrics) twice in a row, and of two commuting opposite faces turned
     * one after the other only the order U/R/F first is kept. */
    t->canon_allowed[0] = t->all_moves;
    for (int state = 1; state < N_CANON; state++) {
        uint64_t allowed = 0;
        for (int m = 0; m < t->n_moves; m++) {
            int ok;
            if (t->axial) {
                ok = state > 3 || axis_of((qs_move)m) != state - 1;
            } else {
                int last = state - 1, face = m / 3;
                ok = face != last && face != last - 3;
            }
            if (ok)
                allowed |= 1ull << m;
        }
        t->canon_allowed[state] = allowed;
    }
    for (int m = 0; m < t->n_moves; m++)
        t->canon_next[m] =
            (uint8_t)(1 + (t->axial ? axis_of((qs_move)m) : m / 3));
}

/* Fills table[x * stride + m] for the first `stride` moves (18 face turns,
 * or all 45 with the axial pairs) from a coordinate's setter and getter:
 * the six quarter turns through cubes, the rest by composing entries. */
typedef int (*coord_get)(const qs_cube *c, int arg);
typedef void (*coord_set)(qs_cube *c, int arg, int value);

static void fill_move_table(uint16_t *table, int n, int stride, coord_get get,
                            coord_set set, int arg, pieces p)
{
    qs_cube quarter[6];
    for (int f = 0; f < 6; f++)
        qs_move_cube((qs_move)(3 * f), &quarter[f]);
    for (int x = 0; x < n; x++) {
        qs_cube c, d;
        qs_cube_solved(&c);
        set(&c, arg, x);
        for (int f = 0; f < 6; f++) {
            multiply(p, &c, &quarter[f], &d);
            table[(size_t)x * stride + 3 * f] = (uint16_t)get(&d, arg);
        }
    }
    for (int x = 0; x < n; x++)
        for (int f = 0; f < 6; f++) {
            uint16_t *row = &table[(size_t)x * stride];
            int q1 = row[3 * f];
            row[3 * f + 1] = table[(size_t)q1 * stride + 3 * f];
            row[3 * f + 2] =
                table[(size_t)row[3 * f + 1] * stride + 3 * f];
        }
    for (int x = 0; x < n; x++)
        for (int m = 18; m < stride; m++) {
            int axis = (m - 18) / 9, p = (m - 18) % 9 / 3, q = (m - 18) % 3;
            int y = table[(size_t)x * stride + 3 * axis + p];
            table[(size_t)x * stride + m] =
                table[(size_t)y * stride + 3 * (axis + 3) + q];
        }
}

static int get_twist(const qs_cube *c, int arg) { (void)arg; return qs_coord_twist(c); }
static void set_twist(qs_cube *c, int arg, int v) { (void)arg; qs_coord_set_twist(c, v); }
static int get_flip(const qs_cube *c, int arg) { (void)arg; return qs_coord_flip(c); }
static void set_flip(qs_cube *c, int arg, int v) { (void)arg; qs_coord_set_flip(c, v); }
static int get_edge4(const qs_cube *c, int first) { return qs_coord_edge4(c, first); }
static void set_edge4(qs_cube *c, int first, int v) { qs_coord_set_edge4(c, first, v); }
static int get_corners(const qs_cube *c, int arg) { (void)arg; return qs_coord_corners(c); }
static void set_corners(qs_cube *c, int arg, int v) { (void)arg; qs_coord_set_corners(c, v); }
static int get_udedges(const qs_cube *c, int arg) { (void)arg; return qs_coord_udedges(c); }
static void set_udedges(qs_cube *c, int arg, int v) { (void)arg; qs_coord_set_udedges(c, v); }
static int get_csplit(const qs_cube *c, int arg) { (void)arg; return qs_coord_csplit(c); }
static void set_csplit(qs_cube *c, int arg, int v) { (void)arg; qs_coord_set_csplit(c, v); }

/* udedges_of from scratch, for filling udedges_pair. */
static int udedges_rank(const qs_tables *t, int u, int d)
{
    uint8_t perm[8];
    const uint8_t *upos = t->edge4_pos[u], *dpos = t->edge4_pos[d];
    for (int k = 0; k < 4; k++) {
        perm[upos[k]] = (uint8_t)k;
        perm[dpos[k]] = (uint8_t)(4 + k);
    }
    return qs_perm_rank(perm, 8);
}

/* Ranked by the coordinates themselves, on a cube whose slice edges
 * (U-layer corners) sit at the mask's places. */
static void init_cubie_ranks(qs_tables *t)
{
    for (unsigned mask = 0; mask < 4096; mask++) {
        if (__builtin_popcount(mask) != 4)
            continue;
        qs_cube y;
        qs_cube_solved(&y);
        for (int pos = 0, slice = 8, other = 0; pos < 12; pos++)
            y.ep[pos] = (uint8_t)(mask >> pos & 1 ? slice++ : other++);
        t->comb_of[mask] = (uint16_t)(qs_coord_edge4(&y, 8) / 24);
        memset(t->gather[mask], 0x80, 16);
        for (int pos = 0, k = 0; pos < 12; pos++)
            if (mask >> pos & 1)
                t->gather[mask][k++] = (uint8_t)pos;
    }
    for (unsigned key = 0; key < 256; key++) {
        uint8_t order[4];
        for (int k = 0; k < 4; k++)
            order[k] = (uint8_t)(key >> (2 * k) & 3);
        t->rank4[key] = (uint8_t)qs_perm_rank(order, 4);
    }
    for (unsigned mask = 0; mask < 256; mask++) {
        if (__builtin_popcount(mask) != 4)
            continue;
        qs_cube y;
        qs_cube_solved(&y);
        for (int i = 0, u = 0, d = 4; i < 8; i++)
            y.cp[i] = (uint8_t)(mask >> i & 1 ? u++ : d++);
        t->csplit_of[mask] = (uint8_t)qs_coord_csplit(&y);
    }
}

/* The moves after which coordinate value x of a move table, divided by
 * unit, is target. */
static uint64_t moves_reaching(const qs_tables *t, const uint16_t *table,
                               int x, int unit, int target)
{
    const uint16_t *row = move_row(t, table, x);
    uint64_t moves = 0;
    for (int m = 0; m < t->n_moves; m++)
        if (row[m] / unit == target)
            moves |= 1ull << m;
    return moves;
}

static int init_move_tables(qs_tables *t)
{
    size_t row = sizeof(uint16_t) * (size_t)t->n_moves;
    t->twist_move = carve(t, row * N_TWIST);
    t->flip_move = carve(t, row * N_FLIP);
    t->edge4_move = carve(t, row * N_EDGE4);
    t->corners_move = carve(t, row * N_PERM8);
    t->udedges_move = carve(t, sizeof *t->udedges_move * N_PERM8);
    if (!t->twist_move || !t->flip_move || !t->edge4_move ||
        !t->corners_move || !t->udedges_move)
        return QS_ERR_NOMEM;
    fill_move_table(t->twist_move, N_TWIST, t->n_moves, get_twist,
                    set_twist, 0, CORNERS_AND_EDGES);
    fill_move_table(t->flip_move, N_FLIP, t->n_moves, get_flip,
                    set_flip, 0, EDGES_ONLY);
    /* one table serves the slice, U and D edges (test_coord checks all
     * three against the cube) */
    fill_move_table(t->edge4_move, N_EDGE4, t->n_moves, get_edge4,
                    set_edge4, 8, EDGES_ONLY);
    fill_move_table(t->corners_move, N_PERM8, t->n_moves,
                    get_corners, set_corners, 0, CORNERS_AND_EDGES);
    t->g1_by_flip = carve(t, sizeof *t->g1_by_flip * N_FLIP);
    t->g1_by_twist = carve(t, sizeof *t->g1_by_twist * N_TWIST);
    t->g1_by_comb = carve(t, sizeof *t->g1_by_comb * N_COMB);
    if (!t->g1_by_flip || !t->g1_by_twist || !t->g1_by_comb)
        return QS_ERR_NOMEM;
    for (int x = 0; x < N_FLIP; x++)
        t->g1_by_flip[x] = moves_reaching(t, t->flip_move, x, 1, 0);
    for (int x = 0; x < N_TWIST; x++)
        t->g1_by_twist[x] = moves_reaching(t, t->twist_move, x, 1, 0);
    /* a move takes the slice edges' places alone, whatever their order */
    for (int x = 0; x < N_COMB; x++)
        t->g1_by_comb[x] =
            moves_reaching(t, t->edge4_move, x * 24, 24, SLICE_SOLVED);
    /* The U/D-edge permutation means nothing outside the phase-2 group,
     * so its moves cannot be composed from R, L, F or B quarter turns:
     * the quarter turns of U and D and the half turns of the others are
     * applied to cubes, and the rest (U2, U', pairs) composed of moves
     * before them (p2_move is in move order). */
    for (int k = 0; k < t->n_p2; k++) {
        int m = t->p2_move[k], face = m / 3;
        if (m < 18 && (face % 3 != 0 || m % 3 == 0)) {
            qs_cube mc;
            qs_move_cube((qs_move)m, &mc);
            for (int x = 0; x < N_PERM8; x++) {
                qs_cube c, d;
                qs_cube_solved(&c);
                qs_coord_set_udedges(&c, x);
                multiply(EDGES_ONLY, &c, &mc, &d);
                t->udedges_move[x][k] = (uint16_t)qs_coord_udedges(&d);
            }
            continue;
        }
        /* U2 = U U, U' = U U2; a pair = its U/R/F move, then the other
         * face's */
        int axis = (m - 18) / 9, pq = (m - 18) % 9;
        int first = m < 18 ? t->p2_index[3 * face]
                           : t->p2_index[3 * axis + pq / 3];
        int second = m < 18 ? t->p2_index[m - 1]
                            : t->p2_index[3 * (axis + 3) + pq % 3];
        for (int x = 0; x < N_PERM8; x++)
            t->udedges_move[x][k] =
                t->udedges_move[t->udedges_move[x][first]][second];
    }
    t->edge4_pos = carve(t, sizeof *t->edge4_pos * N_EDGE4);
    if (!t->edge4_pos)
        return QS_ERR_NOMEM;
    for (int x = 0; x < N_EDGE4; x++)
        qs_coord_edge4_positions(x, t->edge4_pos[x]);
    /* The U edges in the U and D layers leave the D edges the other four
     * places there, in one of 24 orders. */
    t->udedges_pair = carve(t, sizeof *t->udedges_pair * N_EDGE4);
    if (!t->udedges_pair)
        return QS_ERR_NOMEM;
    for (int u = 0; u < N_EDGE4; u++) {
        const uint8_t *up = t->edge4_pos[u];
        int taken = 1 << up[0] | 1 << up[1] | 1 << up[2] | 1 << up[3];
        if (taken >> 8)
            continue;
        for (int comb = 0; comb < N_EDGE4 / 24; comb++) {
            const uint8_t *dp = t->edge4_pos[comb * 24];
            int places = 1 << dp[0] | 1 << dp[1] | 1 << dp[2] | 1 << dp[3];
            if (places != (0xff & ~taken))
                continue;
            for (int order = 0; order < 24; order++)
                t->udedges_pair[u][order] =
                    (uint16_t)udedges_rank(t, u, comb * 24 + order);
        }
    }
    for (int s2 = 0; s2 < N_SLICE2; s2++)
        for (int m = 0; m < QS_MOVE_COUNT; m++) {
            int v = m < t->n_moves
                        ? move_row(t, t->edge4_move, SLICE_SOLVED * 24 + s2)[m]
                        : 0;
            t->slice2_move[s2][m] =
                (uint8_t)(v / 24 == SLICE_SOLVED ? v % 24 : 0xff);
        }
    for (int x = 0; x < N_CSPLIT; x++)
        for (int m = 0; m < QS_MOVE_COUNT; m++) {
            qs_cube c;
            qs_cube_solved(&c);
            qs_coord_set_csplit(&c, x);
            if (m < t->n_moves)
                qs_cube_apply_move(&c, (qs_move)m);
            t->csplit_move[x][m] = (uint8_t)qs_coord_csplit(&c);
        }
    init_cubie_ranks(t);
    return QS_OK;
}

static int init_symmetries(qs_tables *t, qs_cube sym[48])
{
    qs_cube moves[QS_MOVE_COUNT];
    qs_sym_cubes(sym);
    /* sym_inv, and sym_mult among the N_SYM that keep the U-D axis (a
     * group: a product outside it is a table error) */
    for (int s = 0; s < 48; s++)
        for (int r = 0; r < 48; r++) {
            qs_cube p;
            qs_cube_multiply(&sym[s], &sym[r], &p);
            if (qs_cube_is_solved(&p))
                t->sym_inv[s] = (uint8_t)r;
            if (s >= N_SYM || r >= N_SYM)
                continue;
            int q = 0;
            while (q < N_SYM && !qs_cube_equal(&p, &sym[q]))
                q++;
            if (q == N_SYM)
                return QS_ERR_TABLES;
            t->sym_mult[s][r] = (uint8_t)q;
        }
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        qs_move_cube((qs_move)m, &moves[m]);
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        for (int s = 0; s < 48; s++) {
            qs_cube c;
            conjugate(CORNERS_AND_EDGES, &sym[s], &sym[t->sym_inv[s]],
                      &moves[m], &c);
            t->move_conj[m][s] = 0xff;
            for (int k = 0; k < QS_MOVE_COUNT; k++)
                if (qs_cube_equal(&c, &moves[k]))
                    t->move_conj[m][s] = (uint8_t)k;
            if (t->move_conj[m][s] == 0xff)
                return QS_ERR_TABLES;
        }
    return QS_OK;
}

/* Classes of a raw coordinate under the 16 symmetries. The first member of
 * each class in raw order is its representative. */
static int classify(const qs_tables *t, const qs_cube sym[48], int n_raw,
                    void (*set)(qs_cube *, int), int (*get)(const qs_cube *),
                    pieces p, uint16_t *cls, uint8_t *cls_sym,
                    uint32_t *rep32, uint16_t *rep16, uint16_t *selfsym,
                    int expected)
{
    int n = 0;
    for (int x = 0; x < n_raw; x++)
        cls[x] = UNSET16;
    for (int x = 0; x < n_raw; x++) {
        if (cls[x] != UNSET16)
            continue;
        if (n >= expected)
            return QS_ERR_TABLES;
        qs_cube c;
        qs_cube_solved(&c);
        set(&c, x);
        if (rep32)
            rep32[n] = (uint32_t)x;
        else
            rep16[n] = (uint16_t)x;
        selfsym[n] = 0;
        for (int s = 0; s < N_SYM; s++) {
            qs_cube d;
            conjugate(p, &sym[s], &sym[t->sym_inv[s]], &c, &d);
            int y = get(&d);
            if (y == x)
                selfsym[n] |= (uint16_t)(1u << s);
            if (cls[y] == UNSET16) {
                cls[y] = (uint16_t)n;
                cls_sym[y] = t->sym_inv[s];
            }
        }
        n++;
    }
    return n == expected ? QS_OK : QS_ERR_TABLES;
}

static void set_flipslice(qs_cube *c, int fs)
{
    qs_coord_set_edge4(c, 8, fs / N_FLIP * 24);
    qs_coord_set_flip(c, fs % N_FLIP);
}

static int get_flipslice(const qs_cube *c)
{
    return qs_coord_edge4(c, 8) / 24 * N_FLIP + qs_coord_flip(c);
}

static void set_corner_perm(qs_cube *c, int x) { qs_coord_set_corners(c, x); }
static int get_corner_perm(const qs_cube *c) { return qs_coord_corners(c); }

/* Conjugation table of a coordinate: entry (x, s) is the coordinate of
 * S x S^-1 for each of the first N_SYM symmetries, modulo `mod` when mod
 * is not 0; written to out16 or to out8, whichever is not NULL. */
static void fill_conj_table(const qs_tables *t, const qs_cube sym[48], int n,
                            coord_get get, coord_set set, int arg, pieces p,
                            int mod, uint16_t *out16, uint8_t *out8)
{
    for (int x = 0; x < n; x++) {
        qs_cube c, d;
        qs_cube_solved(&c);
        set(&c, arg, x);
        for (int s = 0; s < N_SYM; s++) {
            conjugate(p, &sym[s], &sym[t->sym_inv[s]], &c, &d);
            int v = get(&d, arg);
            if (mod)
                v %= mod;
            if (out16)
                out16[(size_t)x * N_SYM + s] = (uint16_t)v;
            else
                out8[(size_t)x * N_SYM + s] = (uint8_t)v;
        }
    }
}

/* corner_cs_move and corner_of_cs (see qs_engine.h), from the corner
 * classes, sym_mult and the raw move table. */
static int init_corner_cs(qs_tables *t)
{
    t->corner_cs_move = carve(t, sizeof *t->corner_cs_move *
                                     (size_t)t->n_moves * N_CORNER_CLASS);
    t->corner_of_cs = carve(t, sizeof *t->corner_of_cs * N_CORNER_CLASS *
                                   N_SYM);
    if (!t->corner_cs_move || !t->corner_of_cs)
        return QS_ERR_NOMEM;
    for (int k = 0; k < N_CORNER_CLASS; k++) {
        const uint16_t *row = move_row(t, t->corners_move, t->corner_rep[k]);
        for (int m = 0; m < t->n_moves; m++)
            t->corner_cs_move[k * t->n_moves + m] =
                (uint16_t)corner_cs(t, row[m]);
    }
    /* S x S^-1 = R also for S = T corner_sym[x] with T R T^-1 = R: every
     * such pair names x (a class with symmetries has fewer members) */
    for (int x = 0; x < N_PERM8; x++) {
        int k = t->corner_class[x], s = t->corner_sym[x];
        for (int r = 0; r < N_SYM; r++)
            if (t->corner_selfsym[k] >> r & 1)
                t->corner_of_cs[k << 4 | t->sym_mult[r][s]] = (uint16_t)x;
    }
    return QS_OK;
}

static int init_sym_tables(qs_tables *t, const qs_cube sym[48])
{
    t->fs_class = carve(t, sizeof *t->fs_class * N_FLIPSLICE);
    t->fs_sym = carve(t, N_FLIPSLICE);
    t->fs_packed = carve(t, sizeof *t->fs_packed * N_FLIPSLICE);
    t->fs_rep = carve(t, sizeof *t->fs_rep * N_FS_CLASS);
    t->fs_selfsym = carve(t, sizeof *t->fs_selfsym * N_FS_CLASS);
    t->twist_conj = carve(t, sizeof *t->twist_conj * N_TWIST);
    t->corner_class = carve(t, sizeof *t->corner_class * N_PERM8);
    t->corner_sym = carve(t, N_PERM8);
    t->corner_rep = carve(t, sizeof *t->corner_rep * N_CORNER_CLASS);
    t->corner_selfsym = carve(t, sizeof *t->corner_selfsym * N_CORNER_CLASS);
    t->udedges_conj = carve(t, sizeof *t->udedges_conj * N_PERM8);
    t->slice_order_conj = carve(t, sizeof *t->slice_order_conj * N_EDGE4);
    t->remap = carve(t, sizeof *t->remap * N_SYM);
    t->flag_remap = carve(t, sizeof *t->flag_remap * N_SYM);
    if (!t->fs_class || !t->fs_sym || !t->fs_packed || !t->fs_rep || !t->fs_selfsym ||
        !t->twist_conj || !t->corner_class || !t->corner_sym ||
        !t->corner_rep || !t->corner_selfsym || !t->udedges_conj || !t->slice_order_conj || !t->remap ||
        !t->flag_remap)
        return QS_ERR_NOMEM;
    int err = classify(t, sym, N_FLIPSLICE, set_flipslice, get_flipslice,
                       EDGES_ONLY, t->fs_class, t->fs_sym, t->fs_rep, NULL,
                       t->fs_selfsym, N_FS_CLASS);
    if (err)
        return err;
    for (int x = 0; x < N_FLIPSLICE; x++)
        t->fs_packed[x] = (uint32_t)t->fs_class[x] << 4 | t->fs_sym[x];
    err = classify(t, sym, N_PERM8, set_corner_perm, get_corner_perm,
                   CORNERS_AND_EDGES, t->corner_class, t->corner_sym, NULL,
                   t->corner_rep, t->corner_selfsym, N_CORNER_CLASS);
    if (err)
        return err;
    err = init_corner_cs(t);
    if (err)
        return err;
    fill_conj_table(t, sym, N_TWIST, get_twist, set_twist, 0,
                    CORNERS_AND_EDGES, 0, &t->twist_conj[0][0], NULL);
    fill_conj_table(t, sym, N_PERM8, get_udedges, set_udedges, 0, EDGES_ONLY,
                    0, &t->udedges_conj[0][0], NULL);
    fill_conj_table(t, sym, N_EDGE4, get_edge4, set_edge4, 8, EDGES_ONLY, 24,
                    NULL, &t->slice_order_conj[0][0]);
    fill_conj_table(t, sym, N_CSPLIT, get_csplit, set_csplit, 0,
                    CORNERS_AND_EDGES, 0, NULL, &t->csplit_conj[0][0]);
    /* Bit b of a representative's mask is about move b of the
     * representative R = S x S^-1; for x that is move S^-1 b S. */
    for (int s = 0; s < N_SYM; s++)
        for (int k = 0; k < 6; k++)
            for (int v = 0; v < 256; v++) {
                uint64_t out = 0;
                for (int j = 0; j < 8; j++) {
                    int b = 8 * k + j;
                    if ((v >> j & 1) && b < t->n_moves)
                        out |= 1ull << t->move_conj[b][t->sym_inv[s]];
                }
                t->remap[s][k][v] = out;
            }
    for (int s = 0; s < N_SYM; s++)
        for (int flags = 0; flags < 64; flags++) {
            uint64_t moves = 0;
            for (int m = 0; m < t->n_moves; m++)
                if (flags >> t->group_of[m] & 1)
                    moves |= 1ull << m;
            t->flag_remap[s][flags] =
                flags < 1 << t->n_groups ? remap_mask(t, moves, s) : 0;
        }
    return QS_OK;
}

/* Exact phase-2 distances of (corner permutation, slice order) or (U/D-edge
 * permutation, slice order): both small enough to solve outright, each
 * level from a list of its entries (moves of cost 2 may settle an entry a
 * level later than first seen: a stale list entry is skipped). */
static int slice_distance_table(qs_tables *t, int use_corners,
                                uint8_t **out)
{
    const uint32_t n = (uint32_t)N_PERM8 * N_SLICE2;
    uint8_t *dist = carve(t, n);
    /* levels d, d + 1 and d + 2 (costs are 1 or 2) in turn */
    uint32_t *list[3] = {malloc(sizeof(uint32_t) * n),
                         malloc(sizeof(uint32_t) * n),
                         malloc(sizeof(uint32_t) * n)};
    uint32_t len[3] = {1, 0, 0};
    int err = dist && list[0] && list[1] && list[2] ? QS_OK : QS_ERR_NOMEM;
    if (!err) {
        memset(dist, 0xff, n);
        dist[0] = 0;
        list[0][0] = 0;
    }
    for (int d = 0; !err && d < 254 && (len[0] || len[1] || len[2]); d++) {
        uint32_t *now = list[d % 3];
        for (uint32_t q = 0; q < len[d % 3]; q++) {
            uint32_t i = now[q];
            if (dist[i] != d)
                continue;
            int x = (int)(i / N_SLICE2), s2 = (int)(i % N_SLICE2);
            for (int k = 0; k < t->n_p2; k++) {
                int m = t->p2_move[k];
                int y = use_corners ? move_row(t, t->corners_move, x)[m]
                                    : t->udedges_move[x][k];
                uint32_t j = (uint32_t)y * N_SLICE2 + t->slice2_move[s2][m];
                int nd = d + t->cost[m];
                if (dist[j] > nd) {
                    dist[j] = (uint8_t)nd;
                    list[nd % 3][len[nd % 3]++] = j;
                }
            }
        }
        len[d % 3] = 0;
    }
    for (int k = 0; k < 3; k++)
        free(list[k]);
    *out = dist;
    return err;
}

/* rloc_move (see qs_engine.h): bit i of an axis group is the i-th move
 * of that axis by move number, in the representative's frame. */
static int init_robot_local_moves(qs_tables *t)
{
    t->rloc_move = carve(t, sizeof *t->rloc_move * N_SYM);
    if (!t->rloc_move)
        return QS_ERR_NOMEM;
    uint8_t axis_move[N_TILT][15];
    int n[N_TILT] = {0};
    for (int m = 0; m < QS_MOVE_COUNT; m++) {
        int a = axis_of((qs_move)m);
        axis_move[a][n[a]++] = (uint8_t)m;
    }
    for (int s = 0; s < N_SYM; s++)
        for (int kk = 0; kk < N_TILT; kk++)
            for (int b = 0; b < 32; b++) {
                int lo = kk == 0 ? 1 : 0, hi = kk == 2 ? 1 : 2;
                int a = b < 15 ? lo : hi;
                t->rloc_move[s][kk][b] =
                    b < 30 ? t->move_conj[axis_move[a][b % 15]]
                                         [t->sym_inv[s]]
                           : 0;
            }
    memset(t->rmove_local, 255, sizeof t->rmove_local);
    for (int kk = 0; kk < N_TILT; kk++)
        for (int b = 0; b < 30; b++)
            t->rmove_local[kk][t->rloc_move[0][kk][b]] = (uint8_t)b;
    return QS_OK;
}

int qs_tables_init_base(qs_tables *t, qs_metric metric)
{
    qs_cube sym[48];
    memset(t, 0, sizeof *t);
    init_moves(t, metric);
    int err = init_symmetries(t, sym);
    if (!err) {
        for (int k = 0; k < N_TILT; k++) {
            for (int s = 0; s < N_SYM; s++)
                t->axis_conj[k][s] =
                    (uint8_t)axis_of(t->move_conj[3 * k][s]);
            t->tilt_moves[k] = 0;
            for (int m = 0; m < t->n_moves; m++)
                if (axis_of((qs_move)m) != k)
                    t->tilt_moves[k] |= 1ull << m;
        }
        err = init_move_tables(t);
    }
    if (!err)
        err = init_sym_tables(t, sym);
    if (!err && metric == QS_METRIC_ROBOT)
        err = init_robot_local_moves(t);
    if (!err)
        err = slice_distance_table(t, 1, &t->cornslice);
    if (!err)
        err = slice_distance_table(t, 0, &t->edgeslice);
    return err;
}

void qs_tables_free_base(qs_tables *t)
{
    qs_arena_free(&t->arena);
}

int qs_tables_create(qs_metric m, const void *const *blobs, qs_tables **out)
{
    if ((int)m < 0 || m >= QS_METRIC_COUNT || !blobs || !out)
        return QS_ERR_ARGUMENT;
    qs_tables *t = malloc(sizeof *t);
    if (!t)
        return QS_ERR_NOMEM;
    int err = qs_tables_init_base(t, m);
    if (err) {
        qs_tables_free_base(t);
        free(t);
        return err;
    }
    if (m == QS_METRIC_ROBOT) {
        t->rphase1 = blobs[BLOB_PHASE1];
        t->rphase2 = blobs[BLOB_PHASE2];
        t->rphase1x = blobs[BLOB_ROBOT_MOVES]; /* optional: may be NULL */
        t->rcorners = blobs[BLOB_ROBOT_CORNERS];
        /* optional: may be NULL */
        t->rpath_dict = blobs[BLOB_ROBOT_PATHS];
        t->rpath_code = t->rpath_dict ? (const uint16_t *)(t->rpath_dict +
                                                          ROBOT_PATH_DICT)
                                      : NULL;
        t->rpath_rooms = t->rpath_dict ? (const uint8_t *)(t->rpath_code +
                                                           N_CORNERS_OPT *
                                                               N_TILT)
                                       : NULL;
    } else {
        /* NULL in the compact set, which leaves them out */
        t->phase1 = blobs[BLOB_PHASE1];
        t->phase2 = blobs[BLOB_PHASE2];
        if (m == QS_METRIC_HTM || m == QS_METRIC_QTM) {
            t->opt_corners = blobs[BLOB_CORNERS];
            t->opt_large = blobs[BLOB_OPT_LARGE]; /* optional: may be NULL */
        }
        if (m == QS_METRIC_HTM) {
            t->opt_p1m3 = blobs[BLOB_P1M3]; /* optional: may be NULL */
            t->opt_xl = blobs[BLOB_OPT_XL];   /* optional: may be NULL */
            t->opt_edges = blobs[BLOB_EDGES]; /* optional: may be NULL */
        }
        /* the exact table with edge orientation, where the set has it,
         * instead of the H48 table without */
        int exact = m == QS_METRIC_HTM && blobs[BLOB_H48X];
        if (m == QS_METRIC_HTM && (exact || blobs[BLOB_H48])) {
            int h = exact ? H48X_H : H48_BLOB_H;
            int level = exact ? H48X_LEVEL : H48_BLOB_LEVEL;
            t->h48_blob = blobs[exact ? BLOB_H48X : BLOB_H48];
            err = qs_h48_h(t->h48_blob) != h ||
                          qs_h48_level(t->h48_blob) != level
                      ? QS_ERR_TABLES
                      : qs_h48_create(t, h, level, &t->h48);
            if (err) {
                qs_tables_free(t);
                return err;
            }
        }
    }
    *out = t;
    return QS_OK;
}

void qs_tables_free(qs_tables *t)
{
    if (!t)
        return;
    qs_h48_free(t->h48);
    qs_tables_free_base(t);
    free(t);
}

int qs_tables_optimal_large(const qs_tables *t)
{
    return t && t->opt_large != NULL;
}

int qs_tables_optimal_xl(const qs_tables *t)
{
    return t && t->opt_xl != NULL;
}

int qs_tables_optimal_h48(const qs_tables *t)
{
    return t && t->h48 != NULL;
}

int qs_tables_optimal_h48h7(const qs_tables *t)
{
    return t && t->h48 != NULL && t->h48->h > 0;
}

int qs_tables_optimal_compact(const qs_tables *t)
{
    return t && t->opt_p1m3 != NULL && t->h48 != NULL && t->phase1 == NULL;
}

int qs_tables_robot_large(const qs_tables *t)
{
    return t && t->rphase1x != NULL;
}

int qs_tables_robot_paths(const qs_tables *t)
{
    return t && t->rpath_code != NULL;
}

qs_metric qs_tables_metric(const qs_tables *t)
{
    return t->metric;
}
