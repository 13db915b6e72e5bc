/*
 * optimal.c - the optimal solver: iterative-deepening A* in HTM or QTM.
 *
 * The lower bound of a position is the largest of four exact distances:
 * its distance to the phase-2 group seen along each of the three axes (the
 * phase-1 table of the two-phase solver, read three times through the
 * 120-degree rotations about the URF-DBL diagonal) and the distance of its
 * corners alone to solved (the corner blob). The phase-1 entries carry
 * per-move bits, so the moves that keep a node within the bound are known
 * before any child is computed; only the children that pass are read.
 *
 * With the optional large table (tables with opt_large) the bound also
 * takes the exact distance, on each of the three axes, to "edges and
 * corners oriented, slice edges home in order", which the search tracks
 * from parent to child through the table's distance-modulo-3 entries; the
 * phase-1 entries still pick the moves worth making (dfs_large). The
 * extra-large table (opt_xl) takes its place where the set has it: the
 * same search, with the places of the U-layer corners (csplit) in the
 * slice order's stead, 70 values instead of 24. Without the H48 table
 * that search bounds each node's inverse too (carried along as
 * cubies seen along each axis): the least distance along each axis that
 * agrees with the table's entry modulo 3 and is at least the inverse's
 * phase-1 distance. It cuts children, and an inverse axis at its budget
 * rules out the next moves its goal holds before any child is made
 * (inverse_cut, dfs_large_node).
 *
 * With the optional H48 table (tables with h48, qs_internal.h) the bound
 * of every node also takes that table's: the distance to "corners
 * oriented and in their tetrads, edges in their slices", one read per
 * node in a table reduced by all 48 symmetries, read for the node and
 * for its inverse (carried along as cubies: a move turns the inverse
 * from the other side, which no coordinate move table follows).
 *
 * The compact set (tables with opt_p1m3, no phase1) has neither the
 * phase-1 table's per-move bits nor the large table: the phase-1
 * distances come from a 2-bit table of them modulo 3, tracked from parent
 * to child like the large table's, so every child is made and read
 * (dfs_compact); the H48 table then cuts most of those that pass. It
 * holds a 17-move optimum search in about 211 MB instead of 740 MB. The
 * h48h7 set (the default) is built the same way around the exact table
 * with edge orientation, and from base + 3 moves left dfs_compact hands
 * over to the group search (dfs_h48x), as dfs_node does beside the
 * two-phase tables. Its entries that say only "at most base" fall back
 * on the edge table (hp_bound), without which the superflip's read 0.
 *
 * Both bounds gain one where all three axes agree (de Bondt's +1, see
 * usable(); the phase-1 one in HTM only): the last move of a solution
 * turns some axis, and the position before it is already in that axis's
 * goal.
 *
 * One solve is split across threads by depth: for each total length the
 * canonical move sequences of the first few moves that pass the bound
 * become jobs, and threads take those with the most moves to spare first.
 * docs/optimal.md has the design and the measurements behind it.
 */
#include "qs_internal.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

enum {
    N_AXES = 3,
    PREFIX = 4,        /* moves fixed by a job: thousands of jobs keep
                          the threads evenly loaded */
    CHECK_EVERY = 1023 /* nodes between polls of the stop and cancel flags */
};

/* The twelve quarter turns among the single face turns 0..17 (a half turn
 * is m % 3 == 1): what a node may play next where h48_cut finds its
 * inverse's bound tight. */
#define QUARTER_TURNS (0x3ffffull & ~0x12492ull)

/* A cube's cubies laid out for byte shuffles: corner permutation then
 * twists in c, edge permutation and flips in ep and eo, 12 bytes each and
 * 4 of padding (whatever values: no coordinate reads them). */
typedef struct {
    _Alignas(16) uint8_t c[16];
    uint8_t ep[16], eo[16];
} icube;

/* A position as the search tracks it: the phase-1 coordinates in each
 * axis's frame, and in the cube's own frame what the corner table and the
 * final solved test need. */
typedef struct {
    uint16_t flip[N_AXES], slice[N_AXES], twist[N_AXES];
    uint16_t corners;
    uint32_t fs[N_AXES];  /* flip-slice index along each axis: computed
                             once per node, read two or three times */
    uint8_t dist[N_AXES]; /* with the large table: its exact distance along
                             each axis (entries hold it modulo 3); in the
                             compact set, the phase-1 distance */
    uint8_t split[N_AXES]; /* csplit along each axis (the extra-large
                              table's third coordinate) */
    /* Only with the H48 table or in the search that bounds the inverse
     * too (large or xl), and last, so that a search with neither touches
     * one cache line per node. With the H48 table: the edge coordinate
     * (the corner one follows from corners and twist[0]) and the inverse
     * in the cube's own frame, inv[0]. In the search that bounds the
     * inverse: the inverse's phase-1 distance along each axis, the least
     * distance along each axis to the large table's goal that agrees with
     * its entry and is at least that, and the inverse seen along each
     * axis (inv[0] is the cube's frame). */
    uint16_t esep;
    uint8_t ip1[N_AXES], ilb[N_AXES];
    icube inv[N_AXES];
} onode;

/* What a node carries beyond its coordinates (the `carry` of the search
 * bodies, a constant wherever they are inlined): nothing, the H48
 * fields, or the inverse seen along each axis and its bounds. */
enum { CARRY_NONE = 0, CARRY_H48 = 1, CARRY_INV = 2 };

/* A node's pruning entries: one phase-1 entry and its symmetry per axis. */
typedef struct {
    uint64_t e[N_AXES];
    uint8_t sym[N_AXES];
} oentry;

typedef struct {
    qs_move moves[PREFIX];
    int n;
} job;

typedef struct {
    const qs_tables *t;
    const qs_optimal_options *o;
    int large;                /* search with the large table */
    int xl;                   /* ... which is the extra-large one */
    const uint8_t *large_tab; /* opt_xl or opt_large */
    const uint8_t *p1m3;      /* the compact set's phase-1 table, or NULL */
    int tracked;              /* nodes carry exact distances (dist[]):
                                 the large table's, or the compact set's
                                 phase-1 ones */
    const qs_h48 *h48;        /* the H48 table's coordinates, or NULL */
    int h48x;                 /* ... with orientation bits (dfs_h48x) */
    int h48_max;              /* the most an H48 entry says: base + 3 */
    /* The search bounds the inverse as well (dfs_large_node, CARRY_INV);
     * with the H48 table or when it does, inv_premove[r][m] is the
     * premove that move m of the cube makes on the inverse seen along
     * axis r (the H48 probes use axis 0's, the cube's own frame).
     * goal_moves[r] the cube's moves that
     * axis r's large-table goal holds (its two faces' turns), p2_moves[r]
     * those its phase-2 group holds (and the other faces' half turns). A
     * premove by one of them leaves that axis's coset of the inverse, and
     * so its distance, unchanged. */
    int inv;
    int inv_shuffle;          /* inverse_apply may use byte shuffles */
    icube inv_premove[N_AXES][QS_MOVE_COUNT];
    uint64_t goal_moves[N_AXES], p2_moves[N_AXES];
    qs_cube cube;
    onode root;
    /* move m of the cube is move conj[r][m] in axis r's frame */
    uint8_t conj[N_AXES][QS_MOVE_COUNT];
    /* remap[r][s][k][v]: byte k (value v) of the move mask of a phase-1
     * entry read through symmetry s along axis r, as the cube's moves;
     * flags[r][s] the same for the entry's group flags. The tables'
     * remap and flag_remap followed by axis r's frame, in one lookup. */
    uint64_t remap[N_AXES][N_SYM][3][256];
    uint64_t flags[N_AXES][N_SYM][64];
    uint16_t slice_solved;

    /* The symmetries other than the identity that map the cube onto
     * itself (none when every solution is wanted): jobs are then the
     * least prefixes of their orbits (add_jobs). */
    int n_sym;
    uint8_t sym[47];

    int depth;                /* the total length being searched */
    qs_run run;               /* jobs: of job */
    /* The job list holds every canonical prefix of PREFIX moves: add_jobs
     * left none out (by its bound or the phase-1 masks) and listed none
     * shorter. The next length would then list the same jobs in the same
     * order (every promise grows alike), so they are handed out again. */
    int jobs_complete;

    pthread_mutex_t lock;     /* guards the solutions */
    int found;                /* solutions at the current depth */
    qs_solution *out;
    int max_out, n_out;
    uint64_t nodes;
} shared;

typedef struct {
    shared *sh;
    const qs_tables *t;
    qs_move path[QS_MAX_MOVES];
    uint64_t nodes;
    int halt;
} worker;

void qs_optimal_options_default(qs_optimal_options *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->max_len = -1;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define INVERSE_SHUFFLE 1
#endif

/* The flip-slice index (the phase-1 tables' row) of a slice coordinate
 * with its order and a flip. */
static inline uint32_t flipslice(uint16_t slice, uint16_t flip)
{
    return (uint32_t)(slice / 24 * N_FLIP + flip);
}

static void inverse_apply(const shared *sh, const onode *n, int m,
                          onode *out, int axes);

/* The H48 part of apply: n's edge coordinate and its inverse in the
 * cube's frame after move m. */
static void apply_h48(const shared *sh, const onode *n, int m, onode *out)
{
    out->esep = sh->h48->esep_move[n->esep][m];
    inverse_apply(sh, n, m, out, 1);
}

/* The move-table rows of a node: flip, slice, twist and csplit along each
 * axis, and corners. A node making several children finds them once (the
 * children are written through pointers the compiler cannot keep apart
 * from the tables, so it would find them again for each). */
typedef struct {
    const uint16_t *flip[N_AXES], *slice[N_AXES], *twist[N_AXES], *corners;
    const uint8_t *split[N_AXES];
} node_rows;

static inline __attribute__((always_inline)) void
rows_of(const qs_tables *t, const onode *n, node_rows *rows)
{
    for (int r = 0; r < N_AXES; r++) {
        rows->flip[r] = move_row(t, t->flip_move, n->flip[r]);
        rows->slice[r] = move_row(t, t->edge4_move, n->slice[r]);
        rows->twist[r] = move_row(t, t->twist_move, n->twist[r]);
        rows->split[r] = t->csplit_move[n->split[r]];
    }
    rows->corners = move_row(t, t->corners_move, n->corners);
}

/* The child of n (whose rows are `rows`) by move m. with_h48 is a
 * constant wherever this is inlined (see dfs_large), so a search without
 * the H48 table carries no trace of it. */
static inline __attribute__((always_inline)) void
apply_rows(const shared *sh, const onode *n, const node_rows *rows, int m,
           onode *out, int with_h48)
{
    for (int r = 0; r < N_AXES; r++) {
        int mr = sh->conj[r][m];
        out->flip[r] = rows->flip[r][mr];
        out->slice[r] = rows->slice[r][mr];
        out->twist[r] = rows->twist[r][mr];
        out->fs[r] = flipslice(out->slice[r], out->flip[r]);
        out->split[r] = rows->split[r][mr];
    }
    out->corners = rows->corners[m];
    if (with_h48)
        apply_h48(sh, n, m, out);
}

/* The child of n by move m (see apply_rows). */
static inline __attribute__((always_inline)) void
apply_node(const shared *sh, const onode *n, int m, onode *out, int with_h48)
{
    node_rows rows;
    rows_of(sh->t, n, &rows);
    apply_rows(sh, n, &rows, m, out, with_h48);
}

static void apply(const shared *sh, const onode *n, int m, onode *out)
{
    apply_node(sh, n, m, out, sh->h48 != NULL);
    if (sh->inv)
        inverse_apply(sh, n, m, out, N_AXES);
}

/* *dst = *src, without the fields the search does not carry (CARRY_*). */
static inline __attribute__((always_inline)) void
copy_node(onode *dst, const onode *src, int carry)
{
    memcpy(dst, src,
           carry == CARRY_INV   ? sizeof *dst
           : carry == CARRY_H48 ? offsetof(onode, inv) + sizeof(icube)
                                : offsetof(onode, esep));
}

/* ---- the inverse, seen along each axis
 *
 * A move turns the inverse from the other side (m^-1 X^-1), which no
 * coordinate move table follows, so the search carries the inverse's
 * cubies in each axis's frame and relabels them by that frame's premove,
 * one table lookup per cubie. */

static void inverse_apply_plain(const shared *sh, const icube *from, int m,
                                icube *to, int axes)
{
    static const uint8_t mod3[6] = {0, 1, 2, 0, 1, 2};
    for (int r = 0; r < axes; r++) {
        const icube *pm = &sh->inv_premove[r][m], *a = &from[r];
        icube *b = &to[r];
        for (int i = 0; i < 8; i++) {
            int j = a->c[i];
            b->c[i] = pm->c[j];
            b->c[8 + i] = mod3[pm->c[8 + j] + a->c[8 + i]];
        }
        for (int i = 0; i < 12; i++) {
            int j = a->ep[i];
            b->ep[i] = pm->ep[j];
            b->eo[i] = pm->eo[j] ^ a->eo[i];
        }
    }
}

/* The coordinates of y that the phase-1 and extra-large tables read: the
 * flip-slice row, the twist and the csplit. */
typedef struct {
    uint32_t fs;
    uint16_t twist;
    uint16_t slice; /* with the large table: the slice coordinate with
                       its order, as qs_coord_edge4 (y, 8) */
    uint8_t split;  /* with the extra-large table: the csplit */
} icoords;

static void inverse_coords_plain(const shared *sh, const icube *y,
                                 icoords *out)
{
    int flip = 0, twist = 0;
    unsigned emask = 0, cmask = 0;
    for (int i = 0; i < 11; i++)
        flip = 2 * flip + y->eo[i];
    for (int i = 0; i < 7; i++)
        twist = 3 * twist + y->c[8 + i];
    unsigned key = 0; /* the slice edges' order, two bits each */
    for (int i = 0, k = 0; i < 12; i++)
        if (y->ep[i] >= 8) {
            emask |= 1u << i;
            key |= (unsigned)(y->ep[i] - 8) << (2 * k++);
        }
    for (int i = 0; i < 8; i++)
        cmask |= (unsigned)(y->c[i] < 4) << i;
    const qs_tables *t = sh->t;
    out->fs = (uint32_t)t->comb_of[emask] * N_FLIP + (uint32_t)flip;
    out->twist = (uint16_t)twist;
    out->split = t->csplit_of[cmask];
    out->slice = (uint16_t)(t->comb_of[emask] * 24 + t->rank4[key & 255]);
}

#ifdef INVERSE_SHUFFLE
/* inverse_apply_plain with byte shuffles (SSSE3). */
__attribute__((target("ssse3"))) static void
inverse_apply_shuffle(const shared *sh, const icube *from, int m, icube *to,
                      int axes)
{
    const __m128i hi = _mm_set_epi64x(-1, 0);
    for (int r = 0; r < axes; r++) {
        const icube *pm = &sh->inv_premove[r][m], *a = &from[r];
        icube *b = &to[r];
        __m128i cur = _mm_load_si128((const __m128i *)(const void *)a->c);
        __m128i idx = _mm_or_si128(_mm_unpacklo_epi64(cur, cur),
                                   _mm_and_si128(hi, _mm_set1_epi8(8)));
        __m128i v = _mm_add_epi8(
            _mm_shuffle_epi8(
                _mm_load_si128((const __m128i *)(const void *)pm->c), idx),
            _mm_and_si128(hi, cur));
        __m128i over = _mm_and_si128(hi, _mm_cmpgt_epi8(v, _mm_set1_epi8(2)));
        v = _mm_sub_epi8(v, _mm_and_si128(over, _mm_set1_epi8(3)));
        _mm_store_si128((__m128i *)(void *)b->c, v);
        /* the padding bytes may hold any value: only an index's low four
         * bits count, and no coordinate reads the padding */
        __m128i e = _mm_and_si128(
            _mm_load_si128((const __m128i *)(const void *)a->ep),
            _mm_set1_epi8(15));
        _mm_store_si128(
            (__m128i *)(void *)b->ep,
            _mm_shuffle_epi8(
                _mm_load_si128((const __m128i *)(const void *)pm->ep), e));
        _mm_store_si128(
            (__m128i *)(void *)b->eo,
            _mm_xor_si128(
                _mm_shuffle_epi8(
                    _mm_load_si128((const __m128i *)(const void *)pm->eo), e),
                _mm_load_si128((const __m128i *)(const void *)a->eo)));
    }
}

/* inverse_coords_plain with byte masks (SSSE3). */
__attribute__((target("ssse3"))) static void
inverse_coords_shuffle(const shared *sh, const icube *y, icoords *out)
{
    /* the flips of edges 10 .. 0, so that edge 0's lands in bit 10 */
    const __m128i reverse = _mm_set_epi8(-128, -128, -128, -128, -128, 0, 1,
                                         2, 3, 4, 5, 6, 7, 8, 9, 10);
    __m128i eo = _mm_load_si128((const __m128i *)(const void *)y->eo);
    __m128i ep = _mm_load_si128((const __m128i *)(const void *)y->ep);
    __m128i c = _mm_load_si128((const __m128i *)(const void *)y->c);
    unsigned flip = (unsigned)_mm_movemask_epi8(_mm_cmpgt_epi8(
                        _mm_shuffle_epi8(eo, reverse), _mm_setzero_si128())) &
                    0x7ff;
    unsigned emask = (unsigned)_mm_movemask_epi8(
                         _mm_cmpgt_epi8(ep, _mm_set1_epi8(7))) &
                     0xfff;
    unsigned cmask = (unsigned)_mm_movemask_epi8(
                         _mm_cmpgt_epi8(_mm_set1_epi8(4), c)) &
                     0xff;
    /* the twist, 3^6 c0 + ... + c6: pairs 3 c_i + c_i+1 (the last pair
     * c6 alone), then 243, 27, 3, 1 times those */
    __m128i pairs = _mm_maddubs_epi16(
        _mm_srli_si128(c, 8),
        _mm_set_epi8(0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 3, 1, 3, 1, 3));
    __m128i sums =
        _mm_madd_epi16(pairs, _mm_set_epi16(0, 0, 0, 0, 1, 3, 27, 243));
    out->twist = (uint16_t)(_mm_cvtsi128_si32(sums) +
                            _mm_cvtsi128_si32(_mm_srli_si128(sums, 4)));
    const qs_tables *t = sh->t;
    out->fs = (uint32_t)t->comb_of[emask] * N_FLIP + flip;
    out->split = t->csplit_of[cmask];
    if (sh->xl)
        return;
    /* the four slice edges, in place order, packed into the low bytes */
    uint32_t four = (uint32_t)_mm_cvtsi128_si32(_mm_shuffle_epi8(
        ep, _mm_load_si128((const __m128i *)(const void *)t->gather[emask])));
    four -= 0x08080808u;
    unsigned key = (four & 3) | (four >> 6 & 0xc) | (four >> 12 & 0x30) |
                   (four >> 18 & 0xc0);
    out->slice = (uint16_t)(t->comb_of[emask] * 24 + t->rank4[key]);
}
#endif

/* Cubies from[0 .. axes-1] (the inverse seen along each axis) after move
 * m of the cube, into to[]. */
static inline void inverse_apply_cubies(const shared *sh, const icube *from,
                                        int m, icube *to, int axes)
{
#ifdef INVERSE_SHUFFLE
    if (sh->inv_shuffle) {
        inverse_apply_shuffle(sh, from, m, to, axes);
        return;
    }
#endif
    inverse_apply_plain(sh, from, m, to, axes);
}

/* The inverse seen along axes 0 .. axes-1 after move m (the H48 probes
 * need only axis 0, the cube's frame). */
static void inverse_apply(const shared *sh, const onode *n, int m,
                          onode *out, int axes)
{
    inverse_apply_cubies(sh, n->inv, m, out->inv, axes);
}

static inline void inverse_coords(const shared *sh, const icube *y,
                                  icoords *out)
{
#ifdef INVERSE_SHUFFLE
    if (sh->inv_shuffle) {
        inverse_coords_shuffle(sh, y, out);
        return;
    }
#endif
    inverse_coords_plain(sh, y, out);
}

/* The phase-1 (*p1) and extra-large (*xl) indices of coordinates ic. */
static inline void inverse_index(const shared *sh, const icoords *ic,
                                 uint64_t *p1, uint64_t *xl)
{
    const qs_tables *t = sh->t;
    uint32_t cs = t->fs_packed[ic->fs];
    int s = (int)(cs & 15);
    uint64_t tw = t->twist_conj[ic->twist][s];
    *p1 = (uint64_t)(cs >> 4) * N_TWIST + tw;
    uint64_t block =
        sh->xl ? (uint64_t)(cs >> 4) * N_CSPLIT + t->csplit_conj[ic->split][s]
               : (uint64_t)(cs >> 4) * N_SLICE2 +
                     t->slice_order_conj[ic->slice][s];
    *xl = block * N_TWIST + tw;
}

/* The least distance at least p1 whose value modulo 3 is `value`: a lower
 * bound of a distance known modulo 3 and bounded below by p1 (the
 * phase-1 distance, since the extra-large goal lies inside the phase-2
 * group). */
static inline int inverse_lb(int p1, int value)
{
    static const uint8_t mod3[16] = {0, 1, 2, 0, 1, 2, 0, 1,
                                     2, 0, 1, 2, 0, 1, 2, 0};
    return p1 + (value - mod3[p1] + 3) % 3;
}

/* The inverse's bound of n (its cubies made): fills ip1 and ilb and
 * returns their largest, plus one where all three axes agree (de Bondt's
 * +1, see usable(), holds for the inverse, whose distance to solved is
 * the same). */
static int inverse_bounds(const shared *sh, onode *n)
{
    int h = 0;
    for (int r = 0; r < N_AXES; r++) {
        icoords ic;
        uint64_t p1, xl;
        inverse_coords(sh, &n->inv[r], &ic);
        inverse_index(sh, &ic, &p1, &xl);
        n->ip1[r] = (uint8_t)(phase1_entry(sh->t, p1) & P1_DIST_MASK);
        n->ilb[r] = (uint8_t)inverse_lb(n->ip1[r],
                                        opt_large_value(sh->large_tab, xl));
        if (n->ilb[r] > h)
            h = n->ilb[r];
    }
    if (h > 0 && n->ilb[0] == h && n->ilb[1] == h && n->ilb[2] == h)
        h++;
    return h;
}

/* One probe of the H48 table, in three steps spread over a node's
 * children so that their memory reads overlap: start (the coordinates
 * known; prefetch the class and edge-conjugation rows), locate (the index;
 * prefetch the entry), bound. */
typedef struct {
    uint32_t cocsep;
    int esep, cls;
    unsigned eo; /* with h > 0: orientation by position, bit q for q */
    uint64_t idx;
} hprobe;

static inline void hp_start(const qs_h48 *x, hprobe *p, uint32_t cocsep,
                            int esep, unsigned eo)
{
    p->cocsep = cocsep;
    p->esep = esep;
    p->eo = eo;
    __builtin_prefetch(&x->cocsep_packed[cocsep]);
    __builtin_prefetch(x->esep_conj[esep]);
}

/* The probe of a position from the coordinates the search tracks: the
 * corner one from the permutation and twist, the orientation from the
 * flip coordinate. */
static inline void hp_start_coords(const qs_h48 *x, hprobe *p, int corners,
                                   int twist, int flip, int esep)
{
    hp_start(x, p, (uint32_t)x->part_of[corners] * N_TWIST + (uint32_t)twist,
             esep, x->h ? x->eo_of_flip[flip] : 0);
}

/* The probe of n's own position. */
static inline void hp_start_own(const qs_h48 *x, hprobe *p, const onode *n)
{
    hp_start_coords(x, p, n->corners, n->twist[0], n->flip[0], n->esep);
}

/* The orientation bits of cubies y by position. */
static inline unsigned icube_eo(const icube *y)
{
    unsigned eo = 0;
    for (int q = 0; q < 12; q++)
        eo |= (unsigned)y->eo[q] << q;
    return eo;
}

/* The probe of the inverse (whose distance to solved is the same) of a
 * position with corner permutation `corners`: its coordinates are
 * computed from the inverse's cubies, carried along. */
static inline void hp_start_inverse_of(const qs_h48 *x, hprobe *p,
                                       int corners, const icube *inv)
{
    hp_start(x, p, qs_h48_inverse_cocsep(x, corners, inv->c + 8),
             qs_h48_esep_of(x, inv->ep), x->h ? icube_eo(inv) : 0);
}

static inline void hp_start_inverse(const qs_h48 *x, hprobe *p,
                                    const onode *n)
{
    hp_start_inverse_of(x, p, n->corners, &n->inv[0]);
}

static inline void hp_index(const qs_h48 *x, hprobe *p)
{
    p->idx = h48_index_eo(x, p->cocsep, p->esep, p->eo, &p->cls);
}

static inline void hp_locate(const qs_h48 *x, const uint8_t *blob,
                             hprobe *p)
{
    hp_index(x, p);
    __builtin_prefetch(&blob[H48_HEADER + (p->idx >> 2)]);
}

/* The probe's bound. Where its entry says only "at most base", the
 * edges' own distance (the edge table, where the set has it) says more
 * than esep's alone whenever edges are flipped; a probe carries the
 * orientation only with h > 0. */
static inline int hp_bound(const qs_tables *t, const hprobe *p)
{
    const qs_h48 *x = t->h48;
    return h48_bound(x, t->h48_blob, p->idx, p->cls, p->esep,
                     x->h > 0 ? t->opt_edges : NULL, p->eo);
}

/* The H48 bound of n and of its inverse, at once (roots and jobs). */
static inline int h48_node_bound(const qs_tables *t, const qs_h48 *h48,
                                 const onode *n)
{
    hprobe a, b;
    hp_start_own(h48, &a, n);
    hp_start_inverse(h48, &b, n);
    hp_locate(h48, t->h48_blob, &a);
    hp_locate(h48, t->h48_blob, &b);
    int da = hp_bound(t, &a), db = hp_bound(t, &b);
    return da > db ? da : db;
}

/* Whether the H48 table can say anything of a child with `rest` moves
 * left: no entry says more than base + 3. */
static inline int h48_useful(const shared *sh, int rest)
{
    return rest > 0 && rest < sh->h48_max;
}

/* Of the children of `want` (bit k: kid[k]), those whose own entries
 * (or, with `inverse`, their inverse's) put them beyond their `rest`
 * moves left; *tight (unless NULL) gets those exactly at it. Each step
 * is taken for all of them before the next (coordinates, entries
 * located, entries read), so that their memory reads overlap. */
static inline uint32_t h48_pass(const qs_tables *t, const onode *kid,
                                const int *rest, uint32_t want, int inverse,
                                uint32_t *tight)
{
    const qs_h48 *x = t->h48;
    const uint8_t *blob = t->h48_blob;
    hprobe p[18];
    uint32_t cut = 0;
    for (uint32_t b = want; b; b &= b - 1) {
        int k = __builtin_ctz(b);
        if (inverse)
            hp_start_inverse(x, &p[k], &kid[k]);
        else
            hp_start_own(x, &p[k], &kid[k]);
    }
    for (uint32_t b = want; b; b &= b - 1)
        hp_locate(x, blob, &p[__builtin_ctz(b)]);
    for (uint32_t b = want; b; b &= b - 1) {
        int k = __builtin_ctz(b);
        int h = hp_bound(t, &p[k]);
        cut |= (uint32_t)(h > rest[k]) << k;
        if (tight)
            *tight |= (uint32_t)(h == rest[k]) << k;
    }
    return cut;
}

/* Of the children kid[0..nk) that the H48 table may cut (bit k of `want`),
 * those that it puts beyond their `rest` moves left: first by their own
 * entries, then the others by their inverse's.
 *
 * *quarter gets the children kept whose inverse is exactly `rest` from
 * the H48 goal by its bound; their next move is a quarter turn. The goal
 * is closed under half turns: if a child X solved by w_1 ... w_rest began
 * with a half turn, X^-1 = w_1 ... w_rest would be solved by the inverse
 * moves in reverse order, whose last move w_1^-1 starts from the position
 * w_1, a half turn and so already in the goal: X^-1 would reach it in
 * rest - 1 moves. This holds for every path of that length, so --all
 * loses nothing. */
static inline uint32_t h48_cut(const shared *sh, const onode *kid,
                               const int *rest, uint32_t want,
                               uint32_t *quarter)
{
    /* A tight own bound would say only that the last move is a quarter
     * turn, which the final solved test covers at no cost. */
    uint32_t cut = h48_pass(sh->t, kid, rest, want, 0, NULL);
    *quarter = 0;
    cut |= h48_pass(sh->t, kid, rest, want & ~cut, 1, quarter);
    *quarter &= ~cut;
    return cut;
}

static inline uint32_t fs_index(const onode *n, int r)
{
    return n->fs[r];
}

static inline uint64_t corner_index_of(const qs_tables *t, int corners,
                                       int twist)
{
    return (uint64_t)t->corner_class[corners] * N_TWIST +
           t->twist_conj[twist][t->corner_sym[corners]];
}

static inline uint64_t corner_index(const qs_tables *t, const onode *n)
{
    return corner_index_of(t, n->corners, n->twist[0]);
}

static inline int corner_dist(const qs_tables *t, uint64_t i)
{
    return t->opt_corners[i >> 1] >> ((i & 1) * 4) & 15;
}

/* Reads a node's entries; the caller prefetched fs_packed when it could. */
static int lookup(const qs_tables *t, const onode *n, oentry *en)
{
    uint64_t idx[N_AXES];
    for (int r = 0; r < N_AXES; r++) {
        uint32_t cs = t->fs_packed[fs_index(n, r)];
        en->sym[r] = (uint8_t)(cs & 15);
        idx[r] = (uint64_t)(cs >> 4) * N_TWIST +
                 t->twist_conj[n->twist[r]][en->sym[r]];
        __builtin_prefetch((const char *)t->phase1 + idx[r] * 4);
    }
    uint64_t ci = corner_index(t, n);
    int h = corner_dist(t, ci);
    for (int r = 0; r < N_AXES; r++) {
        en->e[r] = phase1_entry(t, idx[r]);
        int d = (int)(en->e[r] & P1_DIST_MASK);
        if (d > h)
            h = d;
    }
    return h;
}

/* The middle slices of the three axes hold all twelve edges, so with each
 * slice's edges home in order, no flip, no twist and the corners home the
 * cube is solved. */
static int is_solved(const shared *sh, const onode *n)
{
    return n->corners == 0 && n->twist[0] == 0 && n->flip[0] == 0 &&
           n->slice[0] == sh->slice_solved &&
           n->slice[1] == sh->slice_solved && n->slice[2] == sh->slice_solved;
}

/* ---- with the large table */

/* The large (or extra-large) table's index of node n seen along axis r,
 * whose flipslice class and symmetry are cs (fs_packed). */
static inline uint64_t large_index_of(const shared *sh, const onode *n,
                                      int r, uint32_t cs)
{
    const qs_tables *t = sh->t;
    int s = (int)(cs & 15);
    uint64_t block =
        sh->xl ? (uint64_t)(cs >> 4) * N_CSPLIT + t->csplit_conj[n->split[r]][s]
               : (uint64_t)(cs >> 4) * N_SLICE2 +
                     t->slice_order_conj[n->slice[r]][s];
    return block * N_TWIST + t->twist_conj[n->twist[r]][s];
}

static inline uint64_t large_index(const shared *sh, const onode *n, int r)
{
    return large_index_of(sh, n, r, sh->t->fs_packed[fs_index(n, r)]);
}

/* The compact set's phase-1 index of node n seen along axis r. */
static inline uint64_t p1_index(const qs_tables *t, const onode *n, int r)
{
    uint32_t cs = t->fs_packed[fs_index(n, r)];
    return (uint64_t)(cs >> 4) * N_TWIST + t->twist_conj[n->twist[r]][cs & 15];
}

/* The tracked table's value (distance modulo 3) of node n along axis r. */
static inline int tracked_value(const shared *sh, const onode *n, int r)
{
    if (sh->p1m3)
        return opt_large_value(sh->p1m3, p1_index(sh->t, n, r));
    return opt_large_value(sh->large_tab, large_index(sh, n, r));
}

/* A unit-cost move changes the distance by -1, 0 or +1, which the child's
 * value modulo 3 tells apart. */
static inline int next_dist(int parent, int value)
{
    /* [parent % 3][value]: the change, without a division per child (a
     * value of 3 never occurs in a table; it counts as 0, as before) */
    static const int8_t change[3][4] = {
        {0, 1, -1, 0}, {-1, 0, 1, -1}, {1, -1, 0, 1}};
    static const uint8_t mod3[32] = {0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1,
                                     2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0,
                                     1, 2, 0, 1, 2, 0, 1, 2, 0, 1};
    return parent + change[mod3[parent & 31]][value];
}

/* Whether axis r of n is at the tracked table's goal: the large table's
 * (slice edges home in order), the extra-large one's (slice edges in their
 * slice, U-layer corners in the U layer), or the phase-2 group (slice
 * edges in their slice). */
static inline int axis_at_goal(const shared *sh, const onode *n, int r)
{
    if (n->flip[r] != 0 || n->twist[r] != 0)
        return 0;
    if (sh->p1m3 || sh->xl)
        return n->slice[r] / 24 == sh->slice_solved / 24 &&
               (sh->p1m3 || n->split[r] == 0);
    return n->slice[r] == sh->slice_solved;
}

/* The tracked distances of the child of n by move m (n's own are
 * known). A move of cost 2 (a half turn in QTM) can change a distance by
 * two, so it is taken as two quarter turns. */
static void large_dists(const shared *sh, const onode *n, int m, onode *kid)
{
    const qs_tables *t = sh->t;
    if (t->cost[m] == 1) {
        for (int r = 0; r < N_AXES; r++)
            kid->dist[r] =
                (uint8_t)next_dist(n->dist[r], tracked_value(sh, kid, r));
        return;
    }
    onode mid; /* the quarter turn of the same face; only its phase-1
                  coordinates are read */
    apply_node(sh, n, m - 1, &mid, 0);
    for (int r = 0; r < N_AXES; r++) {
        int d = next_dist(n->dist[r], tracked_value(sh, &mid, r));
        kid->dist[r] = (uint8_t)next_dist(d, tracked_value(sh, kid, r));
    }
}

static inline int large_bound(const onode *n)
{
    int h = n->dist[0];
    if (n->dist[1] > h)
        h = n->dist[1];
    if (n->dist[2] > h)
        h = n->dist[2];
    return h;
}

/* All three distances equal d: then the distance to solved is above d
 * (de Bondt's +1, see usable()). */
static inline int large_all_at(const onode *n, int d)
{
    return d > 0 && n->dist[0] == d && n->dist[1] == d && n->dist[2] == d;
}

/* The exact tracked distances of the root: walk down, one move at a
 * time, to a neighbour one closer (value one less modulo 3) until the
 * goal. */
static int large_root(shared *sh, onode *root)
{
    const qs_tables *t = sh->t;
    for (int r = 0; r < N_AXES; r++) {
        onode n = *root;
        int d = 0;
        while (!axis_at_goal(sh, &n, r)) {
            int v = tracked_value(sh, &n, r);
            int stepped = 0;
            for (int m = 0; m < t->n_moves && !stepped; m++) {
                if (t->cost[m] != 1)
                    continue;
                onode kid;
                apply(sh, &n, m, &kid);
                if (tracked_value(sh, &kid, r) == (v + 2) % 3) {
                    n = kid;
                    stepped = 1;
                }
            }
            if (!stepped || ++d > 3 * QS_MAX_MOVES)
                return QS_ERR_TABLES; /* inconsistent table */
        }
        root->dist[r] = (uint8_t)d;
    }
    return QS_OK;
}

/* The move bits of axis r's entry e, read through symmetry sym, as the
 * cube's moves. */
static inline uint64_t axis_moves(const shared *sh, int r, uint64_t e,
                                  int sym)
{
    const uint64_t(*rm)[256] = sh->remap[r][sym];
    uint64_t bits = e >> P1_MASK_SHIFT & sh->t->all_moves;
    return rm[0][bits & 255] | rm[1][bits >> 8 & 255] |
           rm[2][bits >> 16 & 255];
}

/* The moves of a node with `togo` still to go whose children may still be
 * within the bound, as far as the node's own entries tell.
 *
 * With unit-cost moves this also applies de Bondt's +1: the goal of each
 * axis's table is closed under that axis's face turns, so the last move
 * of a solution, whichever axis it turns, leaves the position before it
 * inside that axis's goal. A position whose distances on all three axes
 * equal its distance d > 0 to solved is therefore at least d + 1 away:
 * a child with a budget left needs one axis at least one below it. */
static uint64_t usable(const shared *sh, const oentry *en, int togo,
                       int canon)
{
    const qs_tables *t = sh->t;
    uint64_t moves = t->canon_allowed[canon];
    if (!t->grouped) {
        /* the mask names the moves to a closer child; with a move to
         * spare every move will do */
        for (int r = 0; r < N_AXES; r++)
            if (togo <= (int)(en->e[r] & P1_DIST_MASK))
                moves &= axis_moves(sh, r, en->e[r], en->sym[r]);
        return moves;
    }
    uint64_t strict = 0; /* a move that gets some axis below togo - 1 */
    for (int r = 0; r < N_AXES; r++) {
        int slack = togo - (int)(en->e[r] & P1_DIST_MASK);
        if (slack > 2) {
            strict = t->all_moves;
            continue;
        }
        /* by_delta[0]: the moves to a child one closer along this axis,
         * by_delta[1]: no farther */
        uint64_t by_delta[3];
        deltas_split(axis_moves(sh, r, en->e[r], en->sym[r]),
                     sh->flags[r][en->sym[r]]
                              [en->e[r] >> (P1_MASK_SHIFT + t->n_moves)],
                     t->all_moves, by_delta);
        if (slack == 2) {
            strict |= by_delta[0] | by_delta[1];
        } else if (slack == 1) {
            moves &= by_delta[0] | by_delta[1];
            strict |= by_delta[0];
        } else {
            moves &= by_delta[0];
        }
    }
    return togo > 1 ? moves & strict : moves;
}

static int should_halt(worker *w)
{
    shared *sh = w->sh;
    if (qs_halt_poll(&sh->run.halt, 0))
        return w->halt = 1;
    return 0;
}

/* A node of a search that makes every canonical child (dfs_h48x's
 * groups, dfs_compact): counts it, polls the stop flags now and then
 * (0: stop) and gives the moves it may make, only quarter turns where the
 * inverse's bound was tight. */
static inline int node_moves(worker *w, int canon, int quarter,
                             uint64_t *moves)
{
    if ((++w->nodes & CHECK_EVERY) == 0 && should_halt(w))
        return 0;
    *moves = w->t->canon_allowed[canon] & (quarter ? QUARTER_TURNS : ~0ull);
    return 1;
}

static void record(worker *w, int n)
{
    shared *sh = w->sh;
    qs_solution s;
    memcpy(s.moves, w->path, (size_t)n);
    s.n = n;
    s.length = qs_moves_length(s.moves, n, w->t->metric);
    qs_cube check = sh->cube;
    qs_cube_apply_moves(&check, s.moves, n);
    if (!qs_cube_is_solved(&check))
        return; /* cannot happen with consistent tables; never report it */
    pthread_mutex_lock(&sh->lock);
    if (!qs_halt_stopped(&sh->run.halt) || sh->o->all) {
        sh->found++;
        if (sh->n_out < sh->max_out)
            sh->out[sh->n_out++] = s;
        if (sh->o->on_solution)
            sh->o->on_solution(sh->o->solution_ctx, &s);
        if (!sh->o->all)
            qs_halt_stop(&sh->run.halt);
    }
    pthread_mutex_unlock(&sh->lock);
}

/* ---- with the exact H48 table with orientation bits (h48h7)
 *
 * Once base + 3 moves or fewer are left, that table's bound of a
 * position's children and of their inverses cuts far more than the
 * phase-1 tables do, so from there the search reads nothing else: a
 * child costs its four coordinates (corner permutation, twist, flip,
 * esep) from small move tables, below SMALL_CHECKS_BELOW moves left the
 * corner table and the flip-slice distance (small), one probe of its own
 * entry and, if that passes, the inverse's cubies and a probe of its
 * entry.
 *
 * A probe reads at random in gigabytes: alone it waits about 0.5 us on
 * this project's machines (most of it the address translation of a
 * virtual machine), sixteen at once about 60 ns each. One node's
 * children are too few to hide that, and fewer than one of them passes
 * on average, so the search goes a level at a time over a group: the
 * children of every node of the group are made and probed together, and
 * those that pass are the next level's group. The nodes visited are the
 * same as depth first; only their order differs. */

/* A position of the group search: what its children are made from, and
 * how it was reached (parent: its index in the group above). */
typedef struct {
    icube inv; /* the inverse in the cube's frame */
    uint16_t corners, twist, flip, esep;
    int16_t parent;
    uint8_t move, canon, quarter;
} xnode;

/* The groups above a group, for the moves of a solution. */
typedef struct xlevel {
    const xnode *nodes;
    const struct xlevel *up;
} xlevel;

/* Nodes of a group at most: a level's children (18 each at most; 15 in
 * fact, after a first move) and their probes take about 31 KB of a
 * thread's stack, 12 levels at most. 18 is the most a node hands over;
 * other sizes were not tried. */
enum { XGROUP = 18 };

/* Below this many moves left a group's children are first checked by the
 * corner table and the flip-slice distances. At 10 moves left they cut
 * 0.12 % of the children and above it none (the corners' distance is at
 * most 11): there their two reads cost more than the probes they save,
 * and the H48 probe that follows judges the child anyway (measured on
 * tuning cubes, docs/benchmarks.md, thirty-ninth session). */
enum { SMALL_CHECKS_BELOW = 10 };

/* Records the solution that ends with move kid->move from g[kid->parent]
 * (at depth `depth`), taking the moves before from the groups above. */
static void record_group(worker *w, const xnode *kid, const xnode *g,
                         const xlevel *up, int depth)
{
    w->path[depth] = (qs_move)kid->move;
    const xnode *n = &g[kid->parent];
    for (int d = depth - 1;; d--) {
        w->path[d] = (qs_move)n->move;
        if (up == NULL)
            break;
        n = &up->nodes[n->parent];
        up = up->up;
    }
    record(w, depth + 1);
}

/* The entries of probes p[0..n): their indices first, then their reads
 * started one right after another, so that the processor has them all
 * in flight before the first comes back. */
static inline void hp_locate_all(const qs_h48 *x, const uint8_t *blob,
                                 hprobe *p, int n)
{
    for (int k = 0; k < n; k++)
        hp_index(x, &p[k]);
    for (int k = 0; k < n; k++)
        __builtin_prefetch(&blob[H48_HEADER + (p[k].idx >> 2)]);
}

static void dfs_h48x(worker *w, const xnode *g, int ng, const xlevel *up,
                     int togo, int depth)
{
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    const qs_h48 *x = sh->h48;
    const uint8_t *blob = t->h48_blob;
    xnode kid[XGROUP * 18];
    hprobe p[XGROUP * 18];
    uint32_t cidx[XGROUP * 18], fsi[XGROUP * 18];
    int nk = 0, rest = togo - 1; /* HTM: every move costs 1 */
    for (int i = 0; i < ng; i++) {
        uint64_t moves;
        if (!node_moves(w, g[i].canon, g[i].quarter, &moves))
            return;
        const xnode *n = &g[i];
        const uint16_t *crow = move_row(t, t->corners_move, n->corners);
        const uint16_t *trow = move_row(t, t->twist_move, n->twist);
        const uint16_t *frow = move_row(t, t->flip_move, n->flip);
        const uint16_t *erow = x->esep_move[n->esep];
        while (moves) {
            int m = __builtin_ctzll(moves);
            moves &= moves - 1;
            xnode *k = &kid[nk];
            k->corners = crow[m];
            k->twist = trow[m];
            k->flip = frow[m];
            k->esep = erow[m];
            k->parent = (int16_t)i;
            k->move = (uint8_t)m;
            nk++;
        }
    }
    if (rest == 0) {
        static const uint8_t home[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11};
        for (int k = 0; k < nk; k++) {
            if (kid[k].corners || kid[k].twist || kid[k].flip)
                continue;
            inverse_apply_cubies(sh, &g[kid[k].parent].inv, kid[k].move,
                                 &kid[k].inv, 1);
            if (memcmp(kid[k].inv.ep, home, 12) == 0)
                record_group(w, &kid[k], g, up, depth);
        }
        return;
    }
    /* the corner table and the flip-slice distances first, where they
     * cut (SMALL_CHECKS_BELOW): they are small, and where the H48 entry
     * says only "at most base" its fallback knows less than they do */
    if (rest < SMALL_CHECKS_BELOW) {
        for (int k = 0; k < nk; k++) {
            cidx[k] =
                (uint32_t)corner_index_of(t, kid[k].corners, kid[k].twist);
            fsi[k] =
                (uint32_t)x->esep_comb[kid[k].esep] * N_FLIP + kid[k].flip;
            __builtin_prefetch(&t->opt_corners[cidx[k] >> 1]);
            __builtin_prefetch(&x->flipslice_dist[fsi[k]]);
        }
        int kept = 0;
        for (int k = 0; k < nk; k++)
            if (corner_dist(t, cidx[k]) <= rest &&
                x->flipslice_dist[fsi[k]] <= rest)
                kid[kept++] = kid[k];
        nk = kept;
    }
    /* own entries: every step for all of them before the next */
    for (int k = 0; k < nk; k++)
        hp_start_coords(x, &p[k], kid[k].corners, kid[k].twist, kid[k].flip,
                        kid[k].esep);
    hp_locate_all(x, blob, p, nk);
    int kept = 0;
    for (int k = 0; k < nk; k++)
        if (hp_bound(t, &p[k]) <= rest)
            kid[kept++] = kid[k];
    /* the inverse's entries of those that pass */
    for (int k = 0; k < kept; k++) {
        inverse_apply_cubies(sh, &g[kid[k].parent].inv, kid[k].move,
                             &kid[k].inv, 1);
        hp_start_inverse_of(x, &p[k], kid[k].corners, &kid[k].inv);
    }
    hp_locate_all(x, blob, p, kept);
    nk = kept;
    kept = 0;
    for (int k = 0; k < nk; k++) {
        int h = hp_bound(t, &p[k]);
        if (h > rest)
            continue;
        kid[k].canon = t->canon_next[kid[k].move];
        kid[k].quarter = h == rest; /* see h48_cut */
        /* the move-table rows its own children are made from: far more
         * rows than the cache holds are read at random */
        move_row_prefetch(t, t->corners_move, kid[k].corners);
        move_row_prefetch(t, t->twist_move, kid[k].twist);
        move_row_prefetch(t, t->flip_move, kid[k].flip);
        __builtin_prefetch(x->esep_move[kid[k].esep]);
        kid[kept++] = kid[k];
    }
    xlevel here = {g, up};
    for (int s = 0; s < kept && !w->halt; s += XGROUP)
        dfs_h48x(w, kid + s, kept - s < XGROUP ? kept - s : XGROUP, &here,
                 rest, depth + 1);
}

/* The group search below the children kid[k] of a node at depth `depth`
 * (bit k of `which`, all with `rest` moves left), whose inverses are
 * known: moves kmove[k], and quarter turns only next where bit k of
 * `quarter` says so. */
static void h48x_from(worker *w, const onode *kid, const uint8_t *kmove,
                      uint32_t which, uint32_t quarter, int rest, int depth)
{
    xnode g[18];
    int ng = 0;
    for (uint32_t b = which; b; b &= b - 1) {
        int k = __builtin_ctz(b);
        xnode *n = &g[ng++];
        n->inv = kid[k].inv[0];
        n->corners = kid[k].corners;
        n->twist = kid[k].twist[0];
        n->flip = kid[k].flip[0];
        n->esep = kid[k].esep;
        n->parent = -1;
        n->move = kmove[k];
        n->canon = (uint8_t)w->t->canon_next[kmove[k]];
        n->quarter = quarter >> k & 1;
    }
    if (ng > 0)
        dfs_h48x(w, g, ng, NULL, rest, depth + 1);
}

/* Depth-first search below node n (entries en, within the bound) with
 * `togo` left in the metric's units; depth moves are on w->path. */
static void dfs_plain(worker *w, const onode *n, const oentry *en, int togo,
                      int canon, int depth, int quarter);
static void dfs_h48(worker *w, const onode *n, const oentry *en, int togo,
                    int canon, int depth, int quarter);

/* The body of dfs_plain and dfs_h48: with_h48 is a constant in each, so
 * the search without the H48 table is compiled without its checks. */
static inline __attribute__((always_inline)) void
dfs_node(worker *w, const onode *n, const oentry *en, int togo, int canon,
         int depth, int quarter, const int with_h48)
{
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    if ((++w->nodes & CHECK_EVERY) == 0 && should_halt(w))
        return;
    uint64_t moves = usable(sh, en, togo, canon);
    if (quarter)
        moves &= QUARTER_TURNS;
    onode kid[18];
    uint8_t kmove[18];
    int krest[18], nk = 0;
    uint32_t probe = 0, cut = 0, kquarter = 0; /* see h48_cut */
    node_rows rows;
    rows_of(t, n, &rows);
    while (moves) {
        int m = __builtin_ctzll(moves);
        moves &= moves - 1;
        int rest = togo - t->cost[m];
        if (rest < 0)
            continue;
        apply_rows(sh, n, &rows, m, &kid[nk], with_h48);
        if (rest > 0)
            for (int r = 0; r < N_AXES; r++)
                __builtin_prefetch(&t->fs_packed[fs_index(&kid[nk], r)]);
        if (with_h48 && h48_useful(sh, rest))
            probe |= 1u << nk;
        krest[nk] = rest;
        kmove[nk++] = (uint8_t)m;
    }
    if (with_h48 && probe)
        cut = h48_cut(sh, kid, krest, probe, &kquarter);
    uint32_t xwhich = 0;
    for (int k = 0; k < nk && !w->halt; k++) {
        int m = kmove[k], rest = krest[k];
        w->path[depth] = (qs_move)m;
        if (rest == 0) {
            if (is_solved(sh, &kid[k]))
                record(w, depth + 1);
            continue;
        }
        if (with_h48 && (cut >> k & 1))
            continue;
        /* From base + 3 moves left the group search takes over: a node
         * with that many left cannot be cut by the table, but its
         * children can, and the phase-1 entries the search would read
         * for it here cut almost nothing at that depth (measured: 30 of
         * 4 M nodes) while their reads, one node at a time, cost as much
         * as the probes of a whole group. */
        if (with_h48 && sh->h48x && rest <= sh->h48_max) {
            xwhich |= 1u << k; /* searched together, below */
            continue;
        }
        oentry ke;
        if (lookup(t, &kid[k], &ke) > rest)
            continue;
        if (with_h48)
            dfs_h48(w, &kid[k], &ke, rest, t->canon_next[m], depth + 1,
                    kquarter >> k & 1);
        else
            dfs_plain(w, &kid[k], &ke, rest, t->canon_next[m], depth + 1, 0);
    }
    /* HTM (the only metric of the H48 tables): every child has the same
     * moves left */
    if (with_h48 && xwhich && !w->halt)
        h48x_from(w, kid, kmove, xwhich, kquarter, togo - 1, depth);
}

static void dfs_plain(worker *w, const onode *n, const oentry *en, int togo,
                      int canon, int depth, int quarter)
{
    dfs_node(w, n, en, togo, canon, depth, quarter, 0);
}

static void dfs_h48(worker *w, const onode *n, const oentry *en, int togo,
                    int canon, int depth, int quarter)
{
    dfs_node(w, n, en, togo, canon, depth, quarter, 1);
}

/* Depth-first search below node n (see dfs_node). */
static void dfs(worker *w, const onode *n, const oentry *en, int togo,
                int canon, int depth)
{
    if (w->sh->h48)
        dfs_h48(w, n, en, togo, canon, depth, 0);
    else
        dfs_plain(w, n, en, togo, canon, depth, 0);
}

/* Makes the children of n by `moves` that fit in togo (without their H48
 * fields unless with_h48), with their flipslice rows and corner entries
 * prefetched: kmove[k] and cidx[k] are child k's move and corner index.
 * Returns the number of children. */
static inline __attribute__((always_inline)) int
make_children(const shared *sh, const onode *n, uint64_t moves, int togo,
              onode *kid, uint8_t *kmove, uint64_t *cidx, const int with_h48)
{
    const qs_tables *t = sh->t;
    node_rows rows;
    rows_of(t, n, &rows);
    int nk = 0;
    while (moves) {
        int m = __builtin_ctzll(moves);
        moves &= moves - 1;
        if (togo < t->cost[m])
            continue;
        apply_rows(sh, n, &rows, m, &kid[nk], with_h48);
        for (int r = 0; r < N_AXES; r++)
            __builtin_prefetch(&t->fs_packed[fs_index(&kid[nk], r)]);
        cidx[nk] = corner_index(t, &kid[nk]);
        __builtin_prefetch(&t->opt_corners[cidx[nk] >> 1]);
        kmove[nk++] = (uint8_t)m;
    }
    return nk;
}

/* dfs() with the large table: n's distances are known and within the
 * bound, en holds its phase-1 entries. The phase-1 entries name the moves
 * worth making without reading any child (a child can only be within the
 * bound if its distance to the phase-2 group is). The children that pass
 * are made first and their table bytes prefetched together, so that their
 * memory reads overlap; so are the phase-1 entries of the children that
 * pass the large table, read by the next level. */
static void dfs_large_plain(worker *w, const onode *n, const oentry *en,
                            int togo, int canon, int depth, int quarter);
static void dfs_large_h48(worker *w, const onode *n, const oentry *en,
                          int togo, int canon, int depth, int quarter);
static void dfs_large_inv(worker *w, const onode *n, const oentry *en,
                          int togo, int canon, int depth, int quarter);

/* The children kid[0..keep) of n (by kmove[k]) that their inverse puts
 * beyond krest[k]: bit k set. Each child's inverse is made and its
 * entries located for all of them before any is read, so that the reads
 * overlap; the axis of the child's move (and, for the phase-1 distance,
 * every axis whose phase-2 group holds the move) keeps n's values. */
static inline uint32_t inverse_cut(const shared *sh, const onode *n,
                                   onode *kid, const uint8_t *kmove,
                                   const int *krest, int keep)
{
    const qs_tables *t = sh->t;
    icoords ic[18][N_AXES];
    uint64_t p1[18][N_AXES], xl[18][N_AXES];
    for (int k = 0; k < keep; k++) {
        int m = kmove[k];
        inverse_apply(sh, n, m, &kid[k], N_AXES);
        for (int r = 0; r < N_AXES; r++) {
            if (sh->goal_moves[r] >> m & 1)
                continue;
            inverse_coords(sh, &kid[k].inv[r], &ic[k][r]);
            __builtin_prefetch(&t->fs_packed[ic[k][r].fs]);
        }
    }
    for (int k = 0; k < keep; k++) {
        int m = kmove[k];
        for (int r = 0; r < N_AXES; r++) {
            if (sh->goal_moves[r] >> m & 1)
                continue;
            inverse_index(sh, &ic[k][r], &p1[k][r], &xl[k][r]);
            __builtin_prefetch(&sh->large_tab[xl[k][r] >> 2]);
            if (!(sh->p2_moves[r] >> m & 1))
                __builtin_prefetch((const char *)t->phase1 + p1[k][r] * 4);
        }
    }
    uint32_t cut = 0;
    for (int k = 0; k < keep; k++) {
        int m = kmove[k], h = 0;
        onode *c = &kid[k];
        for (int r = 0; r < N_AXES; r++) {
            if (sh->goal_moves[r] >> m & 1) {
                c->ip1[r] = n->ip1[r];
                c->ilb[r] = n->ilb[r];
            } else {
                if (sh->p2_moves[r] >> m & 1)
                    c->ip1[r] = n->ip1[r];
                else
                    c->ip1[r] =
                        (uint8_t)(phase1_entry(t, p1[k][r]) & P1_DIST_MASK);
                c->ilb[r] = (uint8_t)inverse_lb(
                    c->ip1[r], opt_large_value(sh->large_tab, xl[k][r]));
            }
            if (c->ilb[r] > h)
                h = c->ilb[r];
        }
        if (h > 0 && c->ilb[0] == h && c->ilb[1] == h && c->ilb[2] == h)
            h++; /* de Bondt's +1 */
        cut |= (uint32_t)(h > krest[k]) << k;
    }
    return cut;
}

static inline __attribute__((always_inline)) void
dfs_large_node(worker *w, const onode *n, const oentry *en, int togo,
               int canon, int depth, int quarter, const int carry)
{
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    const int with_h48 = carry == CARRY_H48, with_inv = carry == CARRY_INV;
    if ((++w->nodes & CHECK_EVERY) == 0 && should_halt(w))
        return;
    uint64_t moves = usable(sh, en, togo, canon);
    if (quarter)
        moves &= QUARTER_TURNS;
    if (with_inv)
        /* An axis of the inverse at its budget: a move its goal holds
         * leaves it there, one move further from the end. */
        for (int r = 0; r < N_AXES; r++) {
            if (n->ip1[r] >= togo)
                moves &= ~sh->p2_moves[r];
            else if (n->ilb[r] >= togo)
                moves &= ~sh->goal_moves[r];
        }
    onode kid[18];
    uint8_t kmove[18];
    uint32_t cs[18][N_AXES];
    uint64_t idx[18][N_AXES], cidx[18];
    uint8_t far[18];
    int krest[18];
    uint32_t kprobe = 0; /* children kept that the H48 table may cut */
    int nk = make_children(sh, n, moves, togo, kid, kmove, cidx, with_h48);
    /* The corner table is small and read first: the children it rejects
     * cost no large-table reads. */
    for (int k = 0; k < nk; k++) {
        int rest = togo - t->cost[kmove[k]];
        far[k] = rest > 0 && corner_dist(t, cidx[k]) > rest;
        if (rest == 0 || far[k])
            continue;
        for (int r = 0; r < N_AXES; r++) {
            const onode *c = &kid[k];
            uint32_t p = t->fs_packed[fs_index(c, r)];
            cs[k][r] = p;
            idx[k][r] = large_index_of(sh, c, r, p);
            __builtin_prefetch(&sh->large_tab[idx[k][r] >> 2]);
        }
    }
    /* Keep the children within the bound, in order. */
    int keep = 0;
    for (int k = 0; k < nk; k++) {
        int m = kmove[k], rest = togo - t->cost[m];
        onode *c = &kid[k];
        if (rest == 0) {
            if (is_solved(sh, c)) {
                w->path[depth] = (qs_move)m;
                record(w, depth + 1);
            }
            continue;
        }
        if (far[k])
            continue;
        if (t->cost[m] == 1) {
            int beyond = 0;
            for (int r = 0; r < N_AXES && !beyond; r++) {
                int d = next_dist(n->dist[r],
                                  opt_large_value(sh->large_tab, idx[k][r]));
                c->dist[r] = (uint8_t)d;
                beyond = d > rest;
            }
            if (beyond)
                continue;
        } else {
            large_dists(sh, n, m, c);
            if (large_bound(c) > rest)
                continue;
        }
        if (large_all_at(c, rest)) /* de Bondt's +1, see usable() */
            continue;
        for (int r = 0; r < N_AXES; r++) {
            uint32_t p = cs[k][r];
            idx[k][r] = (uint64_t)(p >> 4) * N_TWIST +
                        t->twist_conj[c->twist[r]][p & 15];
            __builtin_prefetch((const char *)t->phase1 + idx[k][r] * 4);
        }
        if (keep != k) {
            copy_node(&kid[keep], c, with_h48);
            kmove[keep] = (uint8_t)m;
            memcpy(cs[keep], cs[k], sizeof cs[k]);
            memcpy(idx[keep], idx[k], sizeof idx[k]);
        }
        krest[keep] = rest;
        kprobe |= (uint32_t)(with_h48 && h48_useful(sh, rest)) << keep;
        keep++;
    }
    /* Last, for the children the large table keeps: most of those the
     * H48 table would cut, the large table has already. */
    uint32_t kquarter = 0;
    uint32_t cut =
        with_h48 && kprobe ? h48_cut(sh, kid, krest, kprobe, &kquarter)
        : with_inv && keep ? inverse_cut(sh, n, kid, kmove, krest, keep)
                           : 0;
    if ((with_h48 || with_inv) && cut) {
        int left = 0;
        uint32_t q = 0;
        for (int k = 0; k < keep; k++) {
            if (cut >> k & 1)
                continue;
            q |= (kquarter >> k & 1) << left;
            if (left != k) {
                copy_node(&kid[left], &kid[k], carry);
                kmove[left] = kmove[k];
                memcpy(cs[left], cs[k], sizeof cs[k]);
                memcpy(idx[left], idx[k], sizeof idx[k]);
            }
            left++;
        }
        keep = left;
        kquarter = q;
    }
    for (int k = 0; k < keep && !w->halt; k++) {
        int m = kmove[k];
        oentry ke;
        for (int r = 0; r < N_AXES; r++) {
            ke.sym[r] = (uint8_t)(cs[k][r] & 15);
            ke.e[r] = phase1_entry(t, idx[k][r]);
        }
        w->path[depth] = (qs_move)m;
        if (with_h48)
            dfs_large_h48(w, &kid[k], &ke, togo - t->cost[m],
                          t->canon_next[m], depth + 1, kquarter >> k & 1);
        else if (with_inv)
            dfs_large_inv(w, &kid[k], &ke, togo - t->cost[m],
                          t->canon_next[m], depth + 1, 0);
        else
            dfs_large_plain(w, &kid[k], &ke, togo - t->cost[m],
                            t->canon_next[m], depth + 1, 0);
    }
}

static void dfs_large_plain(worker *w, const onode *n, const oentry *en,
                            int togo, int canon, int depth, int quarter)
{
    dfs_large_node(w, n, en, togo, canon, depth, quarter, CARRY_NONE);
}

static void dfs_large_h48(worker *w, const onode *n, const oentry *en,
                          int togo, int canon, int depth, int quarter)
{
    dfs_large_node(w, n, en, togo, canon, depth, quarter, CARRY_H48);
}

static void dfs_large_inv(worker *w, const onode *n, const oentry *en,
                          int togo, int canon, int depth, int quarter)
{
    dfs_large_node(w, n, en, togo, canon, depth, quarter, CARRY_INV);
}

/* dfs() with the large table (see dfs_large_node). */
static void dfs_large(worker *w, const onode *n, const oentry *en, int togo,
                      int canon, int depth)
{
    if (w->sh->h48)
        dfs_large_h48(w, n, en, togo, canon, depth, 0);
    else if (w->sh->inv)
        dfs_large_inv(w, n, en, togo, canon, depth, 0);
    else
        dfs_large_plain(w, n, en, togo, canon, depth, 0);
}

/* ---- the compact set */

/* dfs() in the compact set: n's phase-1 distances are known and within the
 * bound. Without per-move bits every canonical child is made, first
 * without its H48 fields; the corner table (3 MB) and the 2-bit phase-1
 * table (35 MB) are read for all of them with their reads overlapped, and
 * only the children that pass get their H48 coordinates and inverse and
 * are probed. */
static void dfs_compact(worker *w, const onode *n, int togo, int canon,
                        int depth, int quarter)
{
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    uint64_t moves;
    if (!node_moves(w, canon, quarter, &moves))
        return;
    onode kid[18];
    uint8_t kmove[18], far[18];
    uint64_t cidx[18], idx[18][N_AXES];
    int rest = togo - 1, krest[18]; /* HTM: every move costs 1 */
    int nk = make_children(sh, n, moves, togo, kid, kmove, cidx, 0);
    if (rest == 0) {
        for (int k = 0; k < nk; k++)
            if (is_solved(sh, &kid[k])) {
                w->path[depth] = (qs_move)kmove[k];
                record(w, depth + 1);
            }
        return;
    }
    for (int k = 0; k < nk; k++) {
        far[k] = corner_dist(t, cidx[k]) > rest;
        if (far[k])
            continue;
        for (int r = 0; r < N_AXES; r++) {
            idx[k][r] = p1_index(t, &kid[k], r);
            __builtin_prefetch(&sh->p1m3[idx[k][r] >> 2]);
        }
    }
    int keep = 0;
    uint32_t probe = 0; /* children kept that the H48 table may cut */
    for (int k = 0; k < nk; k++) {
        onode *c = &kid[k];
        if (far[k])
            continue;
        int beyond = 0;
        for (int r = 0; r < N_AXES && !beyond; r++) {
            int d = next_dist(n->dist[r], opt_large_value(sh->p1m3, idx[k][r]));
            c->dist[r] = (uint8_t)d;
            beyond = d > rest;
        }
        if (beyond || large_all_at(c, rest)) /* de Bondt's +1 */
            continue;
        if (keep != k) {
            copy_node(&kid[keep], c, 0);
            kmove[keep] = kmove[k];
        }
        apply_h48(sh, n, kmove[keep], &kid[keep]);
        krest[keep] = rest;
        probe |= (uint32_t)h48_useful(sh, rest) << keep;
        keep++;
    }
    uint32_t kquarter = 0;
    uint32_t cut = probe ? h48_cut(sh, kid, krest, probe, &kquarter) : 0;
    /* with h48h7, the group search takes over as in dfs_node */
    uint32_t xwhich = sh->h48x && rest <= sh->h48_max
                          ? ~cut & (uint32_t)((1ull << keep) - 1)
                          : 0;
    for (int k = 0; k < keep && !xwhich && !w->halt; k++) {
        if (cut >> k & 1)
            continue;
        w->path[depth] = (qs_move)kmove[k];
        dfs_compact(w, &kid[k], rest, t->canon_next[kmove[k]], depth + 1,
                    kquarter >> k & 1);
    }
    if (xwhich && !w->halt)
        h48x_from(w, kid, kmove, xwhich, kquarter, rest, depth);
}

/* The child of n by move m and its lower bound; its phase-1 entries go to
 * *ke and, with the large table, its distances into the child. */
/* h, or the H48 bound of n where it is larger: out of line, so that
 * child_bound stays small enough to inline where the table is not used. */
static __attribute__((noinline)) int h48_raise(const shared *sh,
                                               const onode *n, int h)
{
    int b = h48_node_bound(sh->t, sh->h48, n);
    return b > h ? b : h;
}

static int child_bound(const shared *sh, const onode *n, int m, onode *kid,
                       oentry *ke)
{
    const qs_tables *t = sh->t;
    apply(sh, n, m, kid);
    if (sh->p1m3) { /* no phase-1 entries: ke is left alone */
        large_dists(sh, n, m, kid);
        int h = corner_dist(t, corner_index(t, kid));
        if (large_bound(kid) > h)
            h = large_bound(kid);
        if (large_all_at(kid, h))
            h++; /* de Bondt's +1 */
        return h48_raise(sh, kid, h);
    }
    int h = lookup(t, kid, ke);
    if (sh->large) {
        large_dists(sh, n, m, kid);
        if (large_bound(kid) > h)
            h = large_bound(kid);
    }
    if (sh->inv) {
        int hi = inverse_bounds(sh, kid);
        if (hi > h)
            h = hi;
    }
    if (sh->h48)
        h = h48_raise(sh, kid, h);
    return h;
}

/* Whether path[0..n) is the least of its images under the cube's
 * symmetries, compared move by move. A prefix that is not has no
 * extension that is, so the search below it can be skipped at once.
 *
 * Why nothing is lost: of a solution w and its images g(w), take the one
 * whose canonical form u is least. Making a word canonical only moves U,
 * R or F turns before the opposite face's, which lowers it, so for every
 * symmetry g, g(u) >= canonical(g(u)) >= u: u and each of its prefixes
 * are the least of their orbits, and u is canonical, so some job lists
 * u's prefix and its search finds u. */
static int least_in_orbit(const shared *sh, const qs_move *path, int n)
{
    for (int i = 0; i < sh->n_sym; i++) {
        for (int k = 0; k < n; k++) {
            int image = sh->t->move_conj[path[k]][sh->sym[i]];
            if (image != path[k]) {
                if (image < path[k])
                    return 0;
                break;
            }
        }
    }
    return 1;
}

/* Finds the symmetries S with S c S^-1 = c. Each maps a solution of c,
 * move by move, to another solution of c (move_conj), so of a prefix and
 * its images one job suffices: for a 48-fold symmetric cube such as the
 * superflip that is about a 48th of the search. Not when every solution
 * is wanted, since the search would then list one of each orbit. */
static void find_symmetries(shared *sh, const qs_cube *c)
{
    sh->n_sym = 0;
    if (sh->o->all)
        return;
    qs_cube sym[48];
    qs_sym_cubes(sym);
    for (int s = 1; s < 48; s++) {
        qs_cube tmp, y;
        qs_cube_multiply(&sym[s], c, &tmp);
        qs_cube_multiply(&tmp, &sym[sh->t->sym_inv[s]], &y);
        if (qs_cube_equal(&y, c))
            sh->sym[sh->n_sym++] = (uint8_t)s;
    }
}

/* A job's promise (qs_jobs_order runs the most promising first): the
 * moves it has to spare beyond its bound; among equals, the moves it has
 * to spare beyond each part of the bound (the three axes' distances and
 * the corners'), summed. A node that several parts hold tight is more
 * often farther from solved than its bound says, so its subtree holds a
 * solution less often for its size (docs/benchmarks.md measured the
 * order). */
static int job_promise(const shared *sh, const onode *n, const oentry *en,
                       int togo, int bound)
{
    const qs_tables *t = sh->t;
    int spare = togo - corner_dist(t, corner_index(t, n));
    for (int r = 0; r < N_AXES; r++)
        spare += togo - (sh->tracked ? n->dist[r]
                                     : (int)(en->e[r] & P1_DIST_MASK));
    return (togo - bound) * 1024 + spare;
}

/* Lists the jobs of the current depth: the canonical sequences of PREFIX
 * moves (or fewer, when they use up the length) that pass the bound and
 * are the least of their orbits under the cube's symmetries. */
static int add_jobs(shared *sh, const onode *n, const oentry *en, int togo,
                    int bound, int canon, qs_move *path, int depth)
{
    const qs_tables *t = sh->t;
    if (depth == PREFIX || togo == 0) {
        if (depth < PREFIX)
            sh->jobs_complete = 0;
        job j;
        memcpy(j.moves, path, (size_t)depth);
        j.n = depth;
        return qs_jobs_add(&sh->run.jobs, &j,
                           job_promise(sh, n, en, togo, bound));
    }
    uint64_t moves =
        sh->p1m3 ? t->canon_allowed[canon] : usable(sh, en, togo, canon);
    if (moves != t->canon_allowed[canon])
        sh->jobs_complete = 0; /* moves the bound takes away */
    while (moves) {
        int m = __builtin_ctzll(moves);
        moves &= moves - 1;
        int rest = togo - t->cost[m];
        if (rest < 0) {
            sh->jobs_complete = 0;
            continue;
        }
        path[depth] = (qs_move)m;
        if (!least_in_orbit(sh, path, depth + 1))
            continue;
        onode kid;
        oentry ke;
        int h = child_bound(sh, n, m, &kid, &ke);
        if (h > rest) {
            sh->jobs_complete = 0;
            continue;
        }
        int err = add_jobs(sh, &kid, &ke, rest, h, t->canon_next[m], path,
                           depth + 1);
        if (err)
            return err;
    }
    return QS_OK;
}

static void worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    w->halt = 0;
    for (;;) {
        const job *j = qs_jobs_take(&sh->run.jobs);
        if (!j || w->halt || qs_halt_stopped(&sh->run.halt))
            break;
        onode n = sh->root;
        int togo = sh->depth, canon = 0;
        for (int k = 0; k < j->n; k++) {
            onode next;
            apply(sh, &n, j->moves[k], &next);
            if (sh->tracked)
                large_dists(sh, &n, j->moves[k], &next);
            n = next;
            togo -= t->cost[j->moves[k]];
            canon = t->canon_next[j->moves[k]];
            w->path[k] = j->moves[k];
        }
        if (togo == 0) {
            if (is_solved(sh, &n))
                record(w, j->n);
            continue;
        }
        if (sh->inv && inverse_bounds(sh, &n) > togo)
            continue;
        if (sh->p1m3) {
            dfs_compact(w, &n, togo, canon, j->n, 0);
            continue;
        }
        oentry en;
        lookup(t, &n, &en);
        if (sh->large)
            dfs_large(w, &n, &en, togo, canon, j->n);
        else
            dfs(w, &n, &en, togo, canon, j->n);
    }
}

/* A mask of moves in an axis's frame as the cube's moves. */
static uint64_t axis_to_cube(const qs_tables *t, const uint8_t *to_cube,
                             uint64_t mask)
{
    uint64_t out = 0;
    for (int b = 0; b < t->n_moves; b++)
        if (mask >> b & 1)
            out |= 1ull << to_cube[b];
    return out;
}

static void to_icube(const qs_cube *c, icube *out)
{
    memset(out, 0, sizeof *out);
    memcpy(out->c, c->cp, 8);
    memcpy(out->c + 8, c->co, 8);
    memcpy(out->ep, c->ep, 12);
    memcpy(out->eo, c->eo, 12);
}

/* What a search that carries the inverse needs (sh->inv, or the H48
 * probes): the root's inverse seen along each axis (S c^-1 S^-1), the
 * premove that each move of the cube makes on it there (move m of the
 * cube is move conj[r][m] of the frame, and turns the inverse from the
 * other side by that move's inverse), and the moves each axis's goals
 * hold. Runs after the frames' conj are set. */
static void init_inverse(shared *sh, const qs_cube *c, const qs_cube *sym)
{
    const qs_tables *t = sh->t;
    qs_cube inv, premove[QS_MOVE_COUNT];
    qs_cube_inverse(c, &inv);
    for (int m = 0; m < 18; m++)
        qs_move_cube((qs_move)(m / 3 * 3 + 2 - m % 3), &premove[m]);
#ifdef INVERSE_SHUFFLE
    sh->inv_shuffle = __builtin_cpu_supports("ssse3");
#endif
    for (int r = 0; r < N_AXES; r++) {
        int s = 16 * r;
        qs_cube tmp, y;
        qs_cube_multiply(&sym[s], &inv, &tmp);
        qs_cube_multiply(&tmp, &sym[t->sym_inv[s]], &y);
        to_icube(&y, &sh->root.inv[r]);
        sh->goal_moves[r] = sh->p2_moves[r] = 0;
        for (int m = 0; m < t->n_moves; m++) {
            int mr = sh->conj[r][m], face = mr / 3;
            to_icube(&premove[mr], &sh->inv_premove[r][m]);
            /* faces U (0) and D (3) of the frame; a half turn is mr % 3
             * == 1 */
            if (face == 0 || face == 3)
                sh->goal_moves[r] |= 1ull << m;
            if (face == 0 || face == 3 || mr % 3 == 1)
                sh->p2_moves[r] |= 1ull << m;
        }
    }
}

static void init_frames(shared *sh, const qs_cube *c)
{
    const qs_tables *t = sh->t;
    qs_cube sym[48], solved;
    qs_sym_cubes(sym);
    qs_cube_solved(&solved);
    sh->slice_solved = (uint16_t)qs_coord_edge4(&solved, 8);
    for (int r = 0; r < N_AXES; r++) {
        int s = 16 * r, back = t->sym_inv[s];
        qs_cube tmp, y;
        qs_cube_multiply(&sym[s], c, &tmp);
        qs_cube_multiply(&tmp, &sym[back], &y);
        sh->root.flip[r] = (uint16_t)qs_coord_flip(&y);
        sh->root.slice[r] = (uint16_t)qs_coord_edge4(&y, 8);
        sh->root.twist[r] = (uint16_t)qs_coord_twist(&y);
        sh->root.fs[r] = flipslice(sh->root.slice[r], sh->root.flip[r]);
        sh->root.split[r] = (uint8_t)qs_coord_csplit(&y);
        for (int m = 0; m < t->n_moves; m++)
            sh->conj[r][m] = t->move_conj[m][s];
        /* Bit b of a mask in axis r's frame is the cube's move that
         * conjugates to b. */
        uint8_t to_cube[QS_MOVE_COUNT];
        for (int b = 0; b < t->n_moves; b++)
            to_cube[b] = (uint8_t)t->move_conj[b][back];
        for (int x = 0; x < N_SYM; x++) {
            for (int k = 0; k < 3; k++)
                for (int v = 0; v < 256; v++)
                    sh->remap[r][x][k][v] =
                        axis_to_cube(t, to_cube, t->remap[x][k][v]);
            for (int f = 0; f < 64; f++)
                sh->flags[r][x][f] =
                    axis_to_cube(t, to_cube, t->flag_remap[x][f]);
        }
    }
    sh->root.corners = (uint16_t)qs_coord_corners(c);
    if (sh->inv || sh->h48)
        init_inverse(sh, c, sym);
    if (sh->h48) /* the H48 fields are read only with its table */
        sh->root.esep = (uint16_t)qs_h48_esep(sh->h48, c);
}

static int run_depth(shared *sh, worker *workers)
{
    const qs_optimal_options *o = sh->o;
    qs_move path[PREFIX];
    oentry en;
    int err;
    if (sh->jobs_complete) {
        qs_jobs_rewind(&sh->run.jobs);
    } else {
        if (!sh->p1m3)
            lookup(sh->t, &sh->root, &en);
        qs_jobs_clear(&sh->run.jobs);
        sh->jobs_complete = 1; /* until add_jobs leaves something out */
        err = add_jobs(sh, &sh->root, &en, sh->depth, 0, 0, path, 0);
        if (!err)
            err = qs_jobs_order(&sh->run.jobs);
        if (err) {
            sh->jobs_complete = 0;
            return err;
        }
    }
    /* An optimal search runs seconds: starting its threads costs nothing
     * next to that, so it takes no team. */
    err = qs_engine_run(o->threads, NULL, worker_main, workers,
                        sizeof *workers, &sh->run.halt);
    if (err)
        return err;
    for (int i = 0; i < o->threads; i++) {
        sh->nodes += workers[i].nodes;
        workers[i].nodes = 0;
    }
    return QS_OK;
}

int qs_solve_optimal(const qs_tables *t, const qs_cube *c,
                     const qs_optimal_options *o, qs_solution *out,
                     int max_out, int *n_out, qs_stats *stats)
{
    if (!t || !c || !o || !out || max_out < 1 || !n_out)
        return QS_ERR_ARGUMENT;
    /* the two-phase tables, or the compact set in their stead */
    if ((!t->phase1 && !qs_tables_optimal_compact(t)) || !t->opt_corners ||
        (t->metric != QS_METRIC_HTM && t->metric != QS_METRIC_QTM))
        return QS_ERR_TABLES;
    if (o->threads < 1 || o->threads > QS_MAX_THREADS || o->max_len < -1 ||
        o->max_len > QS_MAX_MOVES)
        return QS_ERR_ARGUMENT;
    int err = qs_cube_check(c);
    if (err)
        return err;
    *n_out = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);

    void *worker_mem;
    shared *sh = qs_run_alloc(sizeof *sh, sizeof(worker), (size_t)o->threads,
                              &worker_mem);
    if (!sh)
        return QS_ERR_NOMEM;
    worker *workers = worker_mem;
    sh->t = t;
    sh->o = o;
    sh->cube = *c;
    sh->out = out;
    sh->max_out = max_out;
    pthread_mutex_init(&sh->lock, NULL);
    qs_run_init(&sh->run, o->cancel, 0, 0, sizeof(job));
    for (int i = 0; i < o->threads; i++) {
        workers[i].sh = sh;
        workers[i].t = t;
    }
    sh->p1m3 = qs_tables_optimal_compact(t) ? t->opt_p1m3 : NULL;
    sh->xl = t->opt_xl != NULL && !sh->p1m3;
    sh->large = (t->opt_large != NULL || sh->xl) && !sh->p1m3;
    sh->large_tab = sh->xl ? t->opt_xl : t->opt_large;
    sh->tracked = sh->large || sh->p1m3;
    sh->h48 = t->h48;
    sh->h48_max = t->h48 ? t->h48_blob[H48_HDR_BASE] + 3 : 0;
    sh->h48x = t->h48 && t->h48->h > 0;
    sh->inv = sh->large && !sh->h48 && !o->forward_only;
    init_frames(sh, c);
    find_symmetries(sh, c);

    oentry en;
    int depth = sh->p1m3 ? corner_dist(t, corner_index(t, &sh->root))
                         : lookup(t, &sh->root, &en),
        proven = -1;
    if (sh->h48 && h48_node_bound(t, sh->h48, &sh->root) > depth)
        depth = h48_node_bound(t, sh->h48, &sh->root);
    if (sh->tracked) {
        err = large_root(sh, &sh->root);
        if (err)
            goto done;
        int h = large_bound(&sh->root);
        if (large_all_at(&sh->root, h))
            h++; /* de Bondt's +1 */
        if (h > depth)
            depth = h;
    }
    if (sh->inv && inverse_bounds(sh, &sh->root) > depth)
        depth = inverse_bounds(sh, &sh->root);
    proven = depth - 1;
    /* In QTM every quarter turn is an odd corner permutation and a half
     * turn an even one, so every solution has the corners' parity. */
    int step = t->parity_step;
    if (step == 2 && (depth & 1) != qs_perm_parity(c->cp, 8))
        depth++;
    int limit = o->max_len >= 0 ? o->max_len : QS_MAX_MOVES;
    err = QS_ERR_NOT_FOUND;
    for (; depth <= limit; depth += step) {
        sh->depth = depth;
        int rc = run_depth(sh, workers);
        if (rc) {
            err = rc;
            break;
        }
        if (qs_halt_was_cancelled(&sh->run.halt)) {
            err = QS_ERR_CANCELLED;
            break;
        }
        if (o->on_depth)
            o->on_depth(o->depth_ctx, depth, sh->found, sh->nodes,
                        qs_ms_since(sh->run.start_ns));
        if (sh->found) {
            err = QS_OK;
            break;
        }
        proven = depth;
    }
done:
    *n_out = sh->n_out;
    if (stats) {
        stats->phase1_nodes = sh->nodes;
        stats->phase1_depth = proven;
        stats->elapsed_ms = qs_ms_since(sh->run.start_ns);
        stats->first_ms = stats->elapsed_ms;
    }
    pthread_mutex_destroy(&sh->lock);
    qs_run_free(&sh->run);
    free(sh);
    return err;
}
