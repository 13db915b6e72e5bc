/*
 * qs_internal.h - declarations shared by the solver's own source files
 * only: cube helpers and the building of the base tables. Everything a
 * search needs is in the engine's header, qs_engine.h; applications use
 * quadsolve.h.
 */
#ifndef QS_INTERNAL_H
#define QS_INTERNAL_H

#include "qs_engine.h"

/* C(n, k) for n <= 12, k <= 4 (0 when k > n): every set of places the
 * coordinates rank has four members, or fewer. */
extern const uint16_t qs_binom[13][5];
static inline int qs_binomial(int n, int k)
{
    return qs_binom[n][k];
}

/* Parity (0 even, 1 odd) of a permutation of 0..n-1. */
int qs_perm_parity(const uint8_t *p, int n);
/* The edges of a * b, and of sym x sym_inv (sym_inv the inverse of sym),
 * into c / out; their corners are left as a's / sym's. Most tables are
 * about edges alone, and the corners' part of a product (orientations
 * that mirrors make branchy) cost more than the edges'. */
void qs_cube_multiply_edges(const qs_cube *a, const qs_cube *b, qs_cube *c);
void qs_cube_conjugate_edges(const qs_cube *sym, const qs_cube *sym_inv,
                             const qs_cube *x, qs_cube *out);
/* The corners of sym x sym_inv into out; its edges are left as sym's (the
 * H48 corner classes are about corners alone). */
void qs_cube_conjugate_corners(const qs_cube *sym, const qs_cube *sym_inv,
                               const qs_cube *x, qs_cube *out);
/* The cube a move produces from the solved cube. */
void qs_move_cube(qs_move m, qs_cube *out);

/* Builds everything but the blobs. */
int qs_tables_init_base(qs_tables *t, qs_metric m);
void qs_tables_free_base(qs_tables *t);

/* ------------------------------------------------ H48 coordinate (h48.c)
 *
 * The pruning coordinate of issue 16, reduced by all 48 symmetries: the
 * corners' twist and a corner part (cocsep = part * N_TWIST + twist, in
 * n_class classes), which slice each edge is in (esep) and, for h > 0, the
 * orientation of the edges at positions 0..h-1. The corner part is the corner
 * permutation's coset modulo a group chosen by the level: 0, which tetrad
 * each corner cubie is in (70 parts); 1, modulo the half-turn group (420,
 * which fixes the permutations' parity too); 2, modulo its Klein-four part
 * (2,520; see h48.c). Index ((class * H48_N_ESEP +
 * esep) << h) | eo bits, esep and eo seen through the symmetry that takes
 * the corners to the class representative. HTM moves 0..17 only. */
#define H48_N_ESEP 34650             /* 12! / (4! 4! 4!) */
#define H48_MAX_H 11
#define H48_MAX_LEVEL 2
/* classes of 70, 420 and 2,520 parts x N_TWIST */
#define H48_N_CLASS(level) \
    ((level) == 0 ? 3393 : (level) == 1 ? 19926 : 116316)
#define H48_ENTRIES(level, h) \
    ((uint64_t)H48_N_CLASS(level) * H48_N_ESEP << (h))

typedef struct qs_h48 {
    qs_arena arena;                    /* backs the arrays below */
    int h, level;
    int n_part;                        /* 70, 420 or 2,520 corner parts */
    int n_class;
    uint32_t n_cocsep;                 /* n_part * N_TWIST */
    uint8_t sym_inv[48];
    uint16_t part_of[N_PERM8];         /* corner permutation -> part */
    uint16_t part_of_inverse[N_PERM8]; /* the part of its inverse */
    uint16_t rank12[1 << 12];          /* 4-sets of 12 positions: rank */
    uint8_t rank8[1 << 8];             /* 4-sets of 8 positions: rank */
    uint16_t *part_rep;                /* [n_part] a permutation in it */
    uint16_t (*part_move)[18];         /* [n_part] */
    uint16_t (*twist_move)[18];        /* [N_TWIST] */
    /* class << 6 | the symmetry s with S x S^-1 the class representative */
    uint32_t *cocsep_packed;           /* [n_cocsep] */
    uint16_t (*esep_move)[18];         /* [H48_N_ESEP] */
    uint16_t (*esep_conj)[48];         /* [H48_N_ESEP]: S x S^-1 */
    uint8_t *esep_dist;                /* [H48_N_ESEP] exact, to solved */
    uint32_t *class_rep;               /* [n_class] cocsep of the
                                          representative */
    uint64_t *class_stab;              /* [n_class] bit s: S rep S^-1 =
                                          rep */
    uint8_t *class_dist;               /* [n_class] exact distance of the
                                          corners' class to the goal */
    uint8_t *cocsep_dist;              /* [n_cocsep] the same per corner
                                          coordinate */
    /* For h > 0 only (zero or NULL for h = 0, whose index has no
     * orientation bits): the orientation bits of the index from a
     * position's 12 orientation bits by position (eo12, bit q of position
     * q) through symmetry s:
     * a symmetry's own flips depend only on each edge's slice, so
     * v = eo12 ^ (the slice masks of esep_slices chosen by eo_flip[s]),
     * then bits = eo_lut[s][0][v & 63] | eo_lut[s][1][v >> 6], xor
     * eo_const[s]. */
    uint32_t *esep_slices;             /* [H48_N_ESEP] bit q: the cubie at
                                          position q is an E-slice edge;
                                          bit 12 + q: an M-slice edge */
    uint16_t eo_of_flip[2048];         /* qs_coord_flip -> eo12 */
    uint16_t flip_of_eo[2048];         /* eo12 & 0x7ff -> qs_coord_flip */
    uint16_t eo_lut[48][2][64];
    uint16_t eo_const[48];
    uint8_t eo_flip[48];               /* bit 0: E edges flip, 1: M, 2: S */
    /* For h > 0 only (the search below base + 3 moves, dfs_h48x): the
     * exact distance to "edges oriented, E-slice edges in the E slice" of
     * every flip and E-slice place set (esep_comb[esep] * N_FLIP + flip),
     * a 1 MB bound read before the table's probes. NULL for h = 0. */
    uint16_t *esep_comb;               /* [H48_N_ESEP] comb_of rank */
    uint8_t *flipslice_dist;           /* [N_FLIPSLICE] */
} qs_h48;

/* The coordinates of a cube. */
uint32_t qs_h48_cocsep(const qs_h48 *x, const qs_cube *c);
int qs_h48_esep(const qs_h48 *x, const qs_cube *c);
int qs_h48_eobits(const qs_cube *c, int h);
/* The corner coordinate of the inverse of a position whose corner
 * permutation is `corners` (qs_coord_corners), from the inverse's twists
 * co: what the optimal search probes the inverse with, without ranking
 * the inverse's permutation. */
uint32_t qs_h48_inverse_cocsep(const qs_h48 *x, int corners,
                               const uint8_t co[8]);
int qs_h48_esep_of(const qs_h48 *x, const uint8_t ep[12]);

/* cocsep after move m. */
static inline uint32_t h48_cocsep_move(const qs_h48 *x, uint32_t cocsep,
                                       int m)
{
    return (uint32_t)x->part_move[cocsep / N_TWIST][m] * N_TWIST +
           x->twist_move[cocsep % N_TWIST][m];
}

/* The move, conjugation and class tables for parameter h (0..H48_MAX_H)
 * and corner level 0..H48_MAX_LEVEL over t's moves (an HTM set: 18
 * moves); about 10 MB, 0.5 s. QS_OK, QS_ERR_ARGUMENT, QS_ERR_NOMEM or
 * QS_ERR_TABLES. */
int qs_h48_create(const qs_tables *t, int h, int level, qs_h48 **out);
void qs_h48_free(qs_h48 *x);

/* The index of c, the same for every cube S c S^-1 (the least over the
 * representative's stabiliser); cubie level, for tests and roots. */
uint64_t qs_h48_canonical_index(const qs_h48 *x, const qs_cube *c);

/* The index of a position from its coordinates (h = 0), through any
 * symmetry that takes it to its class: the table holds the same value
 * for all of them. *cls receives the corners' class. */
static inline uint64_t h48_index(const qs_h48 *x, uint32_t cocsep, int esep,
                                 int *cls)
{
    uint32_t p = x->cocsep_packed[cocsep];
    *cls = (int)(p >> 6);
    return (uint64_t)(p >> 6) * H48_N_ESEP + x->esep_conj[esep][p & 63];
}

/* ---- exact tables for h > 0 (h48gen.c)
 *
 * The endgame: every coset state (corner coordinate, esep, all 12 edge
 * orientation bits by position) within k moves of solved, as 32-bit
 * records esep << 16 | distance << 12 | orientation, grouped by corner
 * coordinate: those closer than k (near) and those at exactly k (edge).
 * k = 7 holds 25 M states (100 MB) and takes seconds. */
#define H48_MAX_ENDGAME 8
typedef struct qs_h48_endgame {
    int k;
    uint64_t states;
    uint32_t *off_near, *off_edge; /* [n_cocsep + 1] */
    uint32_t *rec_near, *rec_edge;
    uint16_t (*esep_by_move)[H48_N_ESEP]; /* [18] */
    uint16_t eo_move[18][4096];
    uint8_t move_ep[18][12], move_eo[18][12];
} qs_h48_endgame;

/* The endgame of depth k (1..H48_MAX_ENDGAME) over x's coordinates (x's
 * h does not matter). QS_OK, QS_ERR_ARGUMENT or QS_ERR_NOMEM. */
int qs_h48_endgame_create(const qs_h48 *x, int k, qs_h48_endgame **out);
void qs_h48_endgame_free(qs_h48_endgame *eg);

/* Bytes of scratch memory qs_h48_fill_class needs for parameter h. */
size_t qs_h48_class_scratch(int h);

/* The entries of corner class cls of the H48 table with x's h (>= 1) and
 * base `base`, as two-bit values (0: at most base moves, 1 and 2: base +
 * 1 and base + 2, 3: more), into block: (H48_N_ESEP << h) / 4 bytes, the
 * entry of esep e and orientation bits y at (e << h | y). Exact (see
 * h48gen.c); the work grows about 13-fold per unit of base + 2 - eg->k.
 * *records (if not NULL) grows by the endgame records read. QS_OK or
 * QS_ERR_ARGUMENT. */
int qs_h48_fill_class(const qs_h48 *x, const qs_h48_endgame *eg, int cls,
                      int base, uint8_t *block, void *scratch,
                      uint64_t *records);

/* The index of a position with h > 0 (the index of h48_index shifted,
 * and the orientation bits of positions 0..h-1 of the position seen
 * through the same symmetry): eo12 holds the position's orientation by
 * position, bit q for position q. */
static inline uint64_t h48_index_eo(const qs_h48 *x, uint32_t cocsep,
                                    int esep, unsigned eo12, int *cls)
{
    uint32_t p = x->cocsep_packed[cocsep];
    int s = (int)(p & 63);
    *cls = (int)(p >> 6);
    uint64_t i = (uint64_t)(p >> 6) * H48_N_ESEP + x->esep_conj[esep][s];
    if (!x->h)
        return i;
    uint32_t sl = x->esep_slices[esep];
    unsigned e = sl & 0xfff, m = sl >> 12, f = x->eo_flip[s];
    unsigned v = eo12 ^ ((f & 1 ? e : 0) | (f & 2 ? m : 0) |
                         (f & 4 ? ~(e | m) & 0xfff : 0));
    return i << x->h | (unsigned)((x->eo_lut[s][0][v & 63] |
                                   x->eo_lut[s][1][v >> 6]) ^
                                  x->eo_const[s]);
}

/* A whole exact H48 blob (header and entries, H48_HEADER +
 * H48_ENTRIES(level, h) / 4 bytes) for h >= 1, as the blob h48h7 is made
 * but with any parameters: tests make small ones. QS_OK, QS_ERR_ARGUMENT
 * or QS_ERR_NOMEM. */
int qs_h48_generate(const qs_tables *t, int h, int level, int base,
                    int endgame, uint8_t *buf, int threads);

/* The H48 blob (BLOB_H48): a 64-byte header (magic, h, base, level), then two
 * bits per index, four indices per byte, the first in the low bits.
 * Value v > 0 says the distance to the goal is base + v (3: at least
 * base + 3); v = 0 says at most base, and the bound is then the larger of
 * the exact distances of the corners' class and of esep alone (or, where
 * the set has the edge table, BLOB_EDGES, of esep with the edges'
 * orientation: the optimal search's hp_bound). */
#define H48_MAGIC 0x54383448u /* "H48T" */
#define H48_HEADER 64
#define H48_HDR_H 4
#define H48_HDR_BASE 5
#define H48_HDR_LEVEL 6

/* h of a blob with a valid header, else -1. */
int qs_h48_h(const uint8_t *blob);
/* The corner level of a blob with a valid header, else -1. */
int qs_h48_level(const uint8_t *blob);

static inline int h48_value(const uint8_t *blob, uint64_t i)
{
    return blob[H48_HEADER + (i >> 2)] >> ((i & 3) * 2) & 3;
}

/* The lower bound an entry gives: cls and esep (the raw, unconjugated
 * edge coordinate) feed the fallback of value 0, and with the edge table
 * (edges, or NULL) the position's orientation eo12 too. */
static inline int h48_bound(const qs_h48 *x, const uint8_t *blob, uint64_t i,
                            int cls, int esep, const uint8_t *edges,
                            unsigned eo12)
{
    int v = h48_value(blob, i);
    if (v)
        return blob[H48_HDR_BASE] + v;
    int a = x->class_dist[cls];
    int b = edges ? edges_value(edges, edges_index(esep, eo12))
                  : x->esep_dist[esep];
    return a > b ? a : b;
}

#endif
