/*
 * h48.c - the H48-class pruning coordinate (issue 16): a coordinate whose
 * goal is the same seen from any of the 48 symmetries of the cube, so its
 * table can be reduced by all 48 instead of the two-phase tables' 16.
 *
 * Corner part (cocsep = part * N_TWIST + twist): the twist (3^7) and a
 * part of the corner permutation whose goal every symmetry keeps. Either
 * which tetrad's cubie sits at each corner position (the positions of the
 * cubies URF ULB DLF DRB, one of C(8,4) = 70 sets; goal "corners oriented,
 * each in its tetrad"), or finer, the coset of the permutation modulo the
 * half-turn group <U2, D2, R2, L2, F2, B2> (420 cosets, 6 per tetrad set;
 * goal "corners oriented and in the half-turn group's permutations"). The
 * cosets are taken as the permutation multiplied by the group from the
 * left (the cubies relabelled), which moves from the right keep; both the
 * group and the tetrads are mapped onto themselves by conjugation with
 * any symmetry. Every symmetry's corner twist is the same on all four
 * positions of a tetrad, so conjugation is a function of (part, twist):
 * the values fall into n_class classes, each with the symmetries that fix
 * its representative (its stabiliser).
 *
 * Edge part (esep): which of the three slices the cubie at each edge
 * position belongs to, 12!/(4!4!4!) = 34,650 values; symmetries permute
 * the slices, so it conjugates on its own. The index of a position is
 * (class, esep seen through the symmetry that takes the corners to the
 * class representative) and, for h > 0, the orientation of the edges at
 * positions 0..h-1 seen the same way (2^h): positions, because a move
 * carries the orientation by position as a fixed permutation and flip
 * pattern, which is what lets h48gen.c compute the table exactly; see
 * qs_internal.h for what the table built on it stores.
 */
#include "qs_internal.h"

#include <stdlib.h>
#include <string.h>

enum { UNSET = 0xffffffffu, H48_MOVES = 18 };

/* Tetrad of corner cubies kept by half turns: URF ULB DLF DRB. */
static const uint8_t tetrad_a = 1u << 0 | 1u << 2 | 1u << 5 | 1u << 7;

/* Rank of a set of positions (bit mask of n bits) among the sets of its
 * size, in colexicographic order. */
static int set_rank(unsigned mask, int n)
{
    int r = 0, k = 0;
    for (int p = 0; p < n; p++)
        if (mask >> p & 1)
            r += qs_binomial(p, ++k);
    return r;
}

static unsigned set_unrank(int r, int n, int k)
{
    unsigned mask = 0;
    for (int p = n - 1; p >= 0 && k > 0; p--)
        if (qs_binomial(p, k) <= r) {
            r -= qs_binomial(p, k);
            mask |= 1u << p;
            k--;
        }
    return mask;
}

static uint32_t twist_of(const uint8_t co[8])
{
    uint32_t twist = 0;
    for (int p = 0; p < 7; p++)
        twist = 3 * twist + co[p];
    return twist;
}

uint32_t qs_h48_inverse_cocsep(const qs_h48 *x, int corners,
                               const uint8_t co[8])
{
    return (uint32_t)x->part_of_inverse[corners] * N_TWIST + twist_of(co);
}

uint32_t qs_h48_cocsep(const qs_h48 *x, const qs_cube *c)
{
    return (uint32_t)x->part_of[qs_perm_rank(c->cp, 8)] * N_TWIST +
           twist_of(c->co);
}

int qs_h48_esep(const qs_h48 *x, const qs_cube *c)
{
    return qs_h48_esep_of(x, c->ep);
}

int qs_h48_esep_of(const qs_h48 *x, const uint8_t ep[12])
{
    /* The E slice's cubies are 8..11 (FR FL BL BR), the M slice's the odd
     * ones below 8 (UF UB DF DB), the S slice's the rest. Bit p of e: the
     * cubie at p is an E-slice edge; bit k of m: the k-th of the other
     * positions holds an M-slice edge. */
    static const uint8_t e_bit[12] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1},
                         m_bit[12] = {0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0, 0};
    unsigned e = 0, m = 0;
    int pos_m = 0;
    for (int p = 0; p < 12; p++) {
        int b = e_bit[ep[p]];
        e |= (unsigned)b << p;
        m |= (unsigned)m_bit[ep[p]] << pos_m;
        pos_m += 1 - b;
    }
    return x->rank12[e] * 70 + x->rank8[m];
}

int qs_h48_eobits(const qs_cube *c, int h)
{
    int bits = 0;
    for (int p = 0; p < h; p++)
        bits |= c->eo[p] << p;
    return bits;
}

/* A cube with corner coordinate cocsep (its part's first permutation). */
static void cocsep_cube(const qs_h48 *x, uint32_t cocsep, qs_cube *c)
{
    qs_cube_solved(c);
    qs_coord_set_corners(c, x->part_rep[cocsep / N_TWIST]);
    qs_coord_set_twist(c, (int)(cocsep % N_TWIST));
}

/* Whether corner permutation cp keeps the tetrads and moves each by an
 * element of the Klein four-group: the identity, or two swaps that leave
 * no corner of the tetrad in place. */
static int tetrads_in_v4(const uint8_t cp[8])
{
    int fixed[2] = {0, 0};
    for (int p = 0; p < 8; p++) {
        int q = cp[p], a = tetrad_a >> p & 1;
        if (a != (tetrad_a >> q & 1) || cp[q] != p)
            return 0;
        fixed[a] += q == p;
    }
    return (fixed[0] == 0 || fixed[0] == 4) && (fixed[1] == 0 || fixed[1] == 4);
}

/* The corner part of every permutation: its left coset modulo the level's
 * group (the cubies relabelled by it), numbered in order of first member.
 * Level 0: the permutations that keep the tetrads (576, 70 cosets, the
 * part says which tetrad each position holds); 1: the half-turn group's
 * (96, 420 cosets); 2: those of them that move each tetrad by the Klein
 * four-group (16, 2,520 cosets). Each group is mapped onto itself by
 * every symmetry, so conjugation keeps the parts apart. */
static int corner_parts(qs_h48 *x, const qs_cube mv[H48_MOVES])
{
    static const int group_size[3] = {576, 96, 16}, parts[3] = {70, 420, 2520};
    int ng = 0, n = 0;
    qs_cube *group = malloc(576 * sizeof *group);
    if (!group)
        return QS_ERR_NOMEM;
    /* The half-turn group's corner permutations, from the identity by
     * half turns (moves face * 3 + 1); the others filter them or, for
     * level 0, all permutations. */
    for (int v = 0; v < N_PERM8; v++)
        x->part_of[v] = 0xffff;
    qs_cube_solved(&group[0]);
    x->part_of[0] = 0;
    ng = 1;
    for (int head = 0; head < ng && ng < 576; head++)
        for (int f = 0; f < 6; f++) {
            qs_cube d;
            qs_cube_multiply(&mv[f * 3 + 1], &group[head], &d);
            int w = qs_coord_corners(&d);
            if (x->part_of[w] == 0xffff) {
                x->part_of[w] = 0;
                group[ng++] = d;
            }
        }
    if (x->level == 0) {
        ng = 0;
        for (int v = 0; v < N_PERM8 && ng < 576; v++) {
            qs_cube c;
            qs_cube_solved(&c);
            qs_coord_set_corners(&c, v);
            int keeps = 1;
            for (int p = 0; p < 8; p++)
                keeps &= (tetrad_a >> p & 1) == (tetrad_a >> c.cp[p] & 1);
            if (keeps)
                group[ng++] = c;
        }
    } else if (x->level == 2) {
        int kept = 0;
        for (int k = 0; k < ng; k++)
            if (tetrads_in_v4(group[k].cp))
                group[kept++] = group[k];
        ng = kept;
    }
    int err = ng == group_size[x->level] ? QS_OK : QS_ERR_TABLES;
    for (int v = 0; v < N_PERM8; v++)
        x->part_of[v] = 0xffff;
    for (int v = 0; !err && v < N_PERM8; v++) {
        if (x->part_of[v] != 0xffff)
            continue;
        qs_cube c, d;
        qs_cube_solved(&c);
        qs_coord_set_corners(&c, v);
        for (int k = 0; k < ng; k++) {
            qs_cube_multiply(&group[k], &c, &d);
            int w = qs_coord_corners(&d);
            if (x->part_of[w] != 0xffff) {
                err = QS_ERR_TABLES; /* not a group: a bug */
                break;
            }
            x->part_of[w] = (uint16_t)n;
        }
        n++;
    }
    free(group);
    x->n_part = n;
    if (err || n != parts[x->level])
        return err ? err : QS_ERR_TABLES;
    x->part_rep = malloc((size_t)x->n_part * sizeof *x->part_rep);
    x->part_move =
        qs_arena_carve(&x->arena, (size_t)x->n_part * sizeof *x->part_move);
    if (!x->part_rep || !x->part_move)
        return QS_ERR_NOMEM;
    for (int v = N_PERM8 - 1; v >= 0; v--)
        x->part_rep[x->part_of[v]] = (uint16_t)v;
    for (int v = 0; v < N_PERM8; v++) {
        qs_cube c, inv;
        qs_cube_solved(&c);
        qs_coord_set_corners(&c, v);
        qs_cube_inverse(&c, &inv);
        x->part_of_inverse[v] = x->part_of[qs_coord_corners(&inv)];
    }
    for (int k = 0; k < x->n_part; k++) {
        qs_cube c, d;
        qs_cube_solved(&c);
        qs_coord_set_corners(&c, x->part_rep[k]);
        for (int m = 0; m < H48_MOVES; m++) {
            qs_cube_multiply(&c, &mv[m], &d);
            x->part_move[k][m] = x->part_of[qs_coord_corners(&d)];
        }
    }
    for (int v = 0; v < N_TWIST; v++) {
        qs_cube c, d;
        qs_cube_solved(&c);
        qs_coord_set_twist(&c, v);
        for (int m = 0; m < H48_MOVES; m++) {
            qs_cube_multiply(&c, &mv[m], &d);
            x->twist_move[v][m] = (uint16_t)qs_coord_twist(&d);
        }
    }
    return QS_OK;
}

/* A cube with edge coordinate esep. */
static void esep_cube(int esep, qs_cube *c)
{
    unsigned e = set_unrank(esep / 70, 12, 4), m = set_unrank(esep % 70, 8, 4);
    static const uint8_t cubies[3][4] = {
        {8, 9, 10, 11}, {1, 3, 5, 7}, {0, 2, 4, 6}};
    int next[3] = {0, 0, 0}, pos_m = 0;
    qs_cube_solved(c);
    for (int p = 0; p < 12; p++) {
        int s = e >> p & 1 ? 0 : (m >> pos_m++ & 1) ? 1 : 2;
        c->ep[p] = cubies[s][next[s]++];
    }
}

/* out = sym[s] c sym[s]^-1. */
static void conjugate(const qs_h48 *x, const qs_cube *sym, int s,
                      const qs_cube *c, qs_cube *out)
{
    qs_cube tmp;
    qs_cube_multiply(&sym[s], c, &tmp);
    qs_cube_multiply(&tmp, &sym[x->sym_inv[s]], out);
}

/* Classes of the corner coordinate under the 48 symmetries; the first
 * member of each class in coordinate order is its representative. */
static int classify(qs_h48 *x, const qs_cube sym[48])
{
    int n = 0;
    for (uint32_t v = 0; v < x->n_cocsep; v++)
        x->cocsep_packed[v] = UNSET;
    for (uint32_t v = 0; v < x->n_cocsep; v++) {
        if (x->cocsep_packed[v] != UNSET)
            continue;
        if (n >= x->n_class)
            return QS_ERR_TABLES;
        qs_cube c, d;
        cocsep_cube(x, v, &c);
        x->class_rep[n] = v;
        x->class_stab[n] = 0;
        for (int s = 0; s < 48; s++) {
            qs_cube_conjugate_corners(&sym[s], &sym[x->sym_inv[s]], &c, &d);
            uint32_t y = qs_h48_cocsep(x, &d);
            if (y == v)
                x->class_stab[n] |= 1ull << s;
            if (x->cocsep_packed[y] == UNSET)
                x->cocsep_packed[y] = (uint32_t)n << 6 | x->sym_inv[s];
        }
        n++;
    }
    return n == x->n_class ? QS_OK : QS_ERR_TABLES;
}

/* Exact distances over a raw coordinate space of n values, whose value
 * after move m is next(x, v, m), from value `goal`. */
static void raw_distances(const void *ctx, uint32_t n,
                          uint32_t (*next)(const void *, uint32_t, int),
                          uint32_t goal, uint8_t *dist)
{
    memset(dist, 0xff, n);
    dist[goal] = 0;
    for (int d = 0, more = 1; more; d++) {
        more = 0;
        for (uint32_t v = 0; v < n; v++) {
            if (dist[v] != d)
                continue;
            for (int m = 0; m < H48_MOVES; m++) {
                uint32_t w = next(ctx, v, m);
                if (dist[w] == 0xff) {
                    dist[w] = (uint8_t)(d + 1);
                    more = 1;
                }
            }
        }
    }
}

static uint32_t cocsep_next(const void *x, uint32_t v, int m)
{
    return h48_cocsep_move(x, v, m);
}

static uint32_t esep_next(const void *x, uint32_t v, int m)
{
    return ((const qs_h48 *)x)->esep_move[v][m];
}

/* (E-slice places, flip) = comb * N_FLIP + flip, moved by t's tables. */
static uint32_t flipslice_next(const void *ctx, uint32_t v, int m)
{
    const qs_tables *t = ctx;
    int comb = (int)(v / N_FLIP), flip = (int)(v % N_FLIP);
    return (uint32_t)(move_row(t, t->edge4_move, comb * 24)[m] / 24 *
                          N_FLIP +
                      move_row(t, t->flip_move, flip)[m]);
}

/* The tables of h48_index_eo (see qs_internal.h). Conjugation S x S^-1
 * gives the edge at position i the orientation S.eo[c] ^ x.eo[from] ^
 * S^-1.eo[i], from = S^-1.ep[i] and c the cubie x has there; S.eo[c]
 * depends only on c's slice (checked here). */
static int orientation_tables(qs_h48 *x, const qs_cube sym[48])
{
    x->esep_slices = malloc(H48_N_ESEP * sizeof *x->esep_slices);
    if (!x->esep_slices)
        return QS_ERR_NOMEM;
    for (int e = 0; e < H48_N_ESEP; e++) {
        qs_cube c;
        esep_cube(e, &c);
        uint32_t sl = 0;
        for (int q = 0; q < 12; q++)
            sl |= (uint32_t)(c.ep[q] >= 8) << q |
                  (uint32_t)(c.ep[q] < 8 && c.ep[q] % 2) << (12 + q);
        x->esep_slices[e] = sl;
    }
    for (int f = 0; f < 2048; f++) {
        qs_cube c;
        qs_cube_solved(&c);
        qs_coord_set_flip(&c, f);
        unsigned eo = 0;
        for (int q = 0; q < 12; q++)
            eo |= (unsigned)c.eo[q] << q;
        x->eo_of_flip[f] = (uint16_t)eo;
        x->flip_of_eo[eo & 0x7ff] = (uint16_t)f;
    }
    for (int s = 0; s < 48; s++) {
        const qs_cube *sy = &sym[s], *si = &sym[x->sym_inv[s]];
        /* E: FR (8), M: UF (1), S: UR (0); every cubie of a slice alike */
        for (int c = 0; c < 12; c++) {
            int like = c >= 8 ? 8 : c % 2 ? 1 : 0;
            if (sy->eo[c] != sy->eo[like])
                return QS_ERR_TABLES;
        }
        x->eo_flip[s] = (uint8_t)(sy->eo[8] | sy->eo[1] << 1 | sy->eo[0] << 2);
        unsigned k = 0;
        /* (x->h is at most H48_MAX_H; the bound says so to the compiler,
         * which otherwise warns of reads past eo's 12 entries) */
        for (int i = 0; i < x->h && i <= H48_MAX_H; i++)
            k |= (unsigned)si->eo[i] << i;
        x->eo_const[s] = (uint16_t)k;
        for (int half = 0; half < 2; half++)
            for (int v = 0; v < 64; v++) {
                unsigned bits = 0;
                for (int i = 0; i < x->h; i++) {
                    int from = si->ep[i] - 6 * half;
                    if (from >= 0 && from < 6 && (v >> from & 1))
                        bits |= 1u << i;
                }
                x->eo_lut[s][half][v] = (uint16_t)bits;
            }
    }
    return QS_OK;
}

/* The flip-slice distances of dfs_h48x, with the set's own move tables. */
static int flipslice_distances(qs_h48 *x, const qs_tables *t)
{
    x->esep_comb = malloc(H48_N_ESEP * sizeof *x->esep_comb);
    x->flipslice_dist = malloc(N_FLIPSLICE);
    if (!x->esep_comb || !x->flipslice_dist)
        return QS_ERR_NOMEM;
    for (int e = 0; e < H48_N_ESEP; e++)
        x->esep_comb[e] = t->comb_of[x->esep_slices[e] & 0xfff];
    qs_cube solved;
    qs_cube_solved(&solved);
    raw_distances(t, N_FLIPSLICE, flipslice_next,
                  (uint32_t)(qs_coord_edge4(&solved, 8) / 24) * N_FLIP,
                  x->flipslice_dist);
    return QS_OK;
}

int qs_h48_create(const qs_tables *t, int h, int level, qs_h48 **out)
{
    if (!t || !out || h < 0 || h > H48_MAX_H || level < 0 ||
        level > H48_MAX_LEVEL ||
        t->n_moves != H48_MOVES)
        return QS_ERR_ARGUMENT;
    *out = NULL;
    qs_h48 *x = calloc(1, sizeof *x);
    if (!x)
        return QS_ERR_NOMEM;
    x->h = h;
    x->level = level;
    x->n_class = H48_N_CLASS(level);
    qs_cube sym[48], mv[H48_MOVES], solved;
    qs_sym_cubes(sym);
    memcpy(x->sym_inv, t->sym_inv, sizeof x->sym_inv);
    for (unsigned v = 0; v < 1u << 12; v++)
        if (__builtin_popcount(v) == 4) {
            x->rank12[v] = (uint16_t)set_rank(v, 12);
            if (v < 1u << 8)
                x->rank8[v] = (uint8_t)set_rank(v, 8);
        }
    for (int m = 0; m < H48_MOVES; m++)
        qs_move_cube((qs_move)m, &mv[m]);
    qs_cube_solved(&solved);

    /* The arrays the search reads at random, in huge pages: room for the
     * largest level's, with the slack of 64-byte rounding. */
    size_t cap = (size_t)2520 * N_TWIST * 4 + (size_t)H48_N_CLASS(2) * 13 +
                 H48_N_ESEP * (size_t)(18 * 2 + 48 * 2 + 1) + N_TWIST * 36 +
                 2520 * 36 + ((size_t)64 << 10);
#define ARRAY(field, count)                                                  \
    (x->field = qs_arena_carve(&x->arena, (count) * sizeof *x->field))
    int err = qs_arena_reserve(&x->arena, cap);
    if (!err)
        err = ARRAY(twist_move, N_TWIST) ? corner_parts(x, mv) : QS_ERR_NOMEM;
    uint8_t *cdist = NULL;
    if (!err) {
        x->n_cocsep = (uint32_t)x->n_part * N_TWIST;
        cdist = malloc(x->n_cocsep);
        if (!ARRAY(cocsep_packed, x->n_cocsep) ||
            !ARRAY(esep_move, H48_N_ESEP) || !ARRAY(esep_conj, H48_N_ESEP) ||
            !ARRAY(esep_dist, H48_N_ESEP) ||
            !ARRAY(class_rep, (size_t)x->n_class) ||
            !ARRAY(class_stab, (size_t)x->n_class) ||
            !ARRAY(class_dist, (size_t)x->n_class) || !cdist)
            err = QS_ERR_NOMEM;
    }
#undef ARRAY
    if (!err)
        err = classify(x, sym);
    for (int e = 0; !err && e < H48_N_ESEP; e++) {
        qs_cube c, d;
        esep_cube(e, &c);
        if (qs_h48_esep(x, &c) != e) {
            err = QS_ERR_TABLES; /* rank and unrank disagree: a bug */
            break;
        }
        /* esep is about edges alone: only they are turned */
        for (int m = 0; m < H48_MOVES; m++) {
            qs_cube_multiply_edges(&c, &mv[m], &d);
            x->esep_move[e][m] = (uint16_t)qs_h48_esep(x, &d);
        }
        for (int s = 0; s < 48; s++) {
            qs_cube_conjugate_edges(&sym[s], &sym[x->sym_inv[s]], &c, &d);
            x->esep_conj[e][s] = (uint16_t)qs_h48_esep(x, &d);
        }
    }
    if (!err) {
        raw_distances(x, x->n_cocsep, cocsep_next,
                      qs_h48_cocsep(x, &solved), cdist);
        raw_distances(x, H48_N_ESEP, esep_next,
                      (uint32_t)qs_h48_esep(x, &solved), x->esep_dist);
        for (int k = 0; k < x->n_class; k++)
            x->class_dist[k] = cdist[x->class_rep[k]];
        x->cocsep_dist = cdist;
        cdist = NULL;
    }
    /* what only an index with orientation bits reads */
    if (!err && h > 0)
        err = orientation_tables(x, sym);
    if (!err && h > 0)
        err = flipslice_distances(x, t);
    free(cdist);
    if (err) {
        qs_h48_free(x);
        return err;
    }
    *out = x;
    return QS_OK;
}

void qs_h48_free(qs_h48 *x)
{
    if (!x)
        return;
    free(x->part_rep);
    free(x->cocsep_dist);
    free(x->esep_slices);
    free(x->esep_comb);
    free(x->flipslice_dist);
    qs_arena_free(&x->arena);
    free(x);
}

uint64_t qs_h48_canonical_index(const qs_h48 *x, const qs_cube *c)
{
    qs_cube sym[48], d, e;
    uint32_t p = x->cocsep_packed[qs_h48_cocsep(x, c)];
    int cls = (int)(p >> 6);
    uint64_t best = UINT64_MAX;
    qs_sym_cubes(sym);
    conjugate(x, sym, (int)(p & 63), c, &d);
    /* d has the class representative's corners; so has every conjugate of
     * it by the representative's stabiliser. The least index among them
     * is the same for every symmetric image of c. */
    for (int s = 0; s < 48; s++) {
        if (!(x->class_stab[cls] >> s & 1))
            continue;
        conjugate(x, sym, s, &d, &e);
        uint64_t i = ((uint64_t)cls * H48_N_ESEP + (uint64_t)qs_h48_esep(x, &e))
                         << x->h |
                     (uint64_t)qs_h48_eobits(&e, x->h);
        if (i < best)
            best = i;
    }
    return best;
}

int qs_h48_h(const uint8_t *blob)
{
    uint32_t magic;
    memcpy(&magic, blob, sizeof magic);
    return magic == H48_MAGIC ? blob[H48_HDR_H] : -1;
}

int qs_h48_level(const uint8_t *blob)
{
    uint32_t magic;
    memcpy(&magic, blob, sizeof magic);
    return magic == H48_MAGIC && blob[H48_HDR_LEVEL] <= H48_MAX_LEVEL
               ? blob[H48_HDR_LEVEL]
               : -1;
}
