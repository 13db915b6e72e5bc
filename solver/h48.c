/*
 * h48.c - the H48-class pruning coordinate (issue 16): a coordinate whose
 * goal, "corners oriented and each in its tetrad, every edge in its home
 * slice", is the same seen from any of the 48 symmetries of the cube, so
 * its table can be reduced by all 48 instead of the two-phase tables' 16.
 *
 * Corner part (cocsep): the twist (3^7) and which tetrad's cubie sits at
 * each corner position (the positions of the cubies URF ULB DLF DRB, one of
 * C(8,4) = 70 sets), 153,090 values. Every symmetry's corner twist is the
 * same on all four positions of a tetrad and symmetries map tetrads onto
 * tetrads, so conjugation is a function of (twist, separation): the
 * 153,090 values fall into H48_N_CLASS classes, each with the symmetries
 * that fix its representative (its stabiliser).
 *
 * Edge part (esep): which of the three slices the cubie at each edge
 * position belongs to, 12!/(4!4!4!) = 34,650 values; symmetries permute
 * the slices, so it conjugates on its own. The index of a position is
 * (class, esep seen through the symmetry that takes the corners to the
 * class representative) and, for h > 0, the orientation of edge cubies
 * 0..h-1 seen the same way (2^h); see qs_internal.h for what the table
 * built on it stores.
 */
#include "qs_internal.h"

#include <stdlib.h>
#include <string.h>

enum { UNSET = 0xffffffffu, H48_MOVES = 18 };

/* Tetrad of corner cubies kept by half turns: URF ULB DLF DRB. */
static const uint8_t tetrad_a = 1u << 0 | 1u << 2 | 1u << 5 | 1u << 7;

/* C(n, k) for n <= 12, k <= 4: every set ranked here has four members. */
static const uint16_t binom[13][5] = {
    {1, 0, 0, 0, 0},    {1, 1, 0, 0, 0},     {1, 2, 1, 0, 0},
    {1, 3, 3, 1, 0},    {1, 4, 6, 4, 1},     {1, 5, 10, 10, 5},
    {1, 6, 15, 20, 15}, {1, 7, 21, 35, 35},  {1, 8, 28, 56, 70},
    {1, 9, 36, 84, 126}, {1, 10, 45, 120, 210}, {1, 11, 55, 165, 330},
    {1, 12, 66, 220, 495}};

static int binomial(int n, int k)
{
    return binom[n][k];
}

/* Rank of a set of positions (bit mask of n bits) among the sets of its
 * size, in colexicographic order. */
static int set_rank(unsigned mask, int n)
{
    int r = 0, k = 0;
    for (int p = 0; p < n; p++)
        if (mask >> p & 1)
            r += binomial(p, ++k);
    return r;
}

static unsigned set_unrank(int r, int n, int k)
{
    unsigned mask = 0;
    for (int p = n - 1; p >= 0 && k > 0; p--)
        if (binomial(p, k) <= r) {
            r -= binomial(p, k);
            mask |= 1u << p;
            k--;
        }
    return mask;
}

/* The slice of edge cubie e: 0 the E slice (FR FL BL BR), 1 the M slice
 * (UF UB DF DB), 2 the S slice (UR UL DR DL). */
static int edge_slice(int e)
{
    return e >= 8 ? 0 : (e & 1) ? 1 : 2;
}

uint32_t qs_h48_cocsep_of(const uint8_t cp[8], const uint8_t co[8])
{
    unsigned mask = 0;
    uint32_t twist = 0;
    for (int p = 0; p < 8; p++)
        if (tetrad_a >> cp[p] & 1)
            mask |= 1u << p;
    for (int p = 0; p < 7; p++)
        twist = 3 * twist + co[p];
    return (uint32_t)set_rank(mask, 8) * N_TWIST + twist;
}

uint32_t qs_h48_cocsep(const qs_cube *c)
{
    return qs_h48_cocsep_of(c->cp, c->co);
}

int qs_h48_esep(const qs_cube *c)
{
    return qs_h48_esep_of(c->ep);
}

int qs_h48_esep_of(const uint8_t ep[12])
{
    unsigned e = 0, m = 0;
    int pos_m = 0;
    for (int p = 0; p < 12; p++) {
        int s = edge_slice(ep[p]);
        if (s == 0) {
            e |= 1u << p;
            continue;
        }
        /* the M cubies among the eight positions left by the E slice */
        if (s == 1)
            m |= 1u << pos_m;
        pos_m++;
    }
    return set_rank(e, 12) * 70 + set_rank(m, 8);
}

int qs_h48_eobits(const qs_cube *c, int h)
{
    int bits = 0;
    for (int p = 0; p < 12; p++)
        if (c->ep[p] < h)
            bits |= c->eo[p] << c->ep[p];
    return bits;
}

/* A cube with corner coordinate cocsep (the corners of each tetrad in
 * ascending order; which ones does not change the coordinate). */
static void cocsep_cube(uint32_t cocsep, qs_cube *c)
{
    unsigned mask = set_unrank((int)(cocsep / N_TWIST), 8, 4);
    int a = 0, b = 0;
    static const uint8_t in_a[4] = {0, 2, 5, 7}, in_b[4] = {1, 3, 4, 6};
    qs_cube_solved(c);
    for (int p = 0; p < 8; p++)
        c->cp[p] = mask >> p & 1 ? in_a[a++] : in_b[b++];
    qs_coord_set_twist(c, (int)(cocsep % N_TWIST));
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

/* out = sym[s] x sym[s]^-1. */
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
    for (uint32_t v = 0; v < H48_N_COCSEP; v++)
        x->cocsep_packed[v] = UNSET;
    for (uint32_t v = 0; v < H48_N_COCSEP; v++) {
        if (x->cocsep_packed[v] != UNSET)
            continue;
        if (n >= H48_N_CLASS)
            return QS_ERR_TABLES;
        qs_cube c, d;
        cocsep_cube(v, &c);
        x->class_rep[n] = v;
        x->class_stab[n] = 0;
        for (int s = 0; s < 48; s++) {
            conjugate(x, sym, s, &c, &d);
            uint32_t y = qs_h48_cocsep(&d);
            if (y == v)
                x->class_stab[n] |= 1ull << s;
            if (x->cocsep_packed[y] == UNSET)
                x->cocsep_packed[y] = (uint32_t)n << 6 | x->sym_inv[s];
        }
        n++;
    }
    return n == H48_N_CLASS ? QS_OK : QS_ERR_TABLES;
}

/* Exact distances over a raw coordinate space of n values with a move
 * table of H48_MOVES entries per value, from value `goal`. */
static void raw_distances(int n, const void *moves, int wide, uint32_t goal,
                          uint8_t *dist)
{
    memset(dist, 0xff, (size_t)n);
    dist[goal] = 0;
    for (int d = 0, more = 1; more; d++) {
        more = 0;
        for (int v = 0; v < n; v++) {
            if (dist[v] != d)
                continue;
            for (int m = 0; m < H48_MOVES; m++) {
                size_t k = (size_t)v * H48_MOVES + (size_t)m;
                uint32_t w = wide ? ((const uint32_t *)moves)[k]
                                  : ((const uint16_t *)moves)[k];
                if (dist[w] == 0xff) {
                    dist[w] = (uint8_t)(d + 1);
                    more = 1;
                }
            }
        }
    }
}

int qs_h48_create(const qs_tables *t, int h, qs_h48 **out)
{
    if (!t || !out || h < 0 || h > H48_MAX_H || t->n_moves != H48_MOVES)
        return QS_ERR_ARGUMENT;
    *out = NULL;
    qs_h48 *x = calloc(1, sizeof *x);
    if (!x)
        return QS_ERR_NOMEM;
    x->h = h;
    x->cocsep_packed = malloc(H48_N_COCSEP * sizeof *x->cocsep_packed);
    x->cocsep_move = malloc(H48_N_COCSEP * H48_MOVES * sizeof(uint32_t));
    x->esep_move = malloc(H48_N_ESEP * sizeof *x->esep_move);
    x->esep_conj = malloc(H48_N_ESEP * sizeof *x->esep_conj);
    x->esep_dist = malloc(H48_N_ESEP);
    uint8_t *cdist = malloc(H48_N_COCSEP);
    if (!x->cocsep_packed || !x->cocsep_move || !x->esep_move ||
        !x->esep_conj || !x->esep_dist || !cdist) {
        free(cdist);
        qs_h48_free(x);
        return QS_ERR_NOMEM;
    }
    qs_cube sym[48], mv[H48_MOVES], solved;
    qs_sym_cubes(sym);
    memcpy(x->sym_inv, t->sym_inv, sizeof x->sym_inv);
    for (int m = 0; m < H48_MOVES; m++)
        qs_move_cube((qs_move)m, &mv[m]);
    qs_cube_solved(&solved);

    int err = classify(x, sym);
    for (uint32_t v = 0; !err && v < H48_N_COCSEP; v++) {
        qs_cube c, d;
        cocsep_cube(v, &c);
        for (int m = 0; m < H48_MOVES; m++) {
            qs_cube_multiply(&c, &mv[m], &d);
            x->cocsep_move[v * H48_MOVES + (uint32_t)m] = qs_h48_cocsep(&d);
        }
    }
    for (int e = 0; !err && e < H48_N_ESEP; e++) {
        qs_cube c, d;
        esep_cube(e, &c);
        if (qs_h48_esep(&c) != e) {
            err = QS_ERR_TABLES; /* rank and unrank disagree: a bug */
            break;
        }
        for (int m = 0; m < H48_MOVES; m++) {
            qs_cube_multiply(&c, &mv[m], &d);
            x->esep_move[e][m] = (uint16_t)qs_h48_esep(&d);
        }
        for (int s = 0; s < 48; s++) {
            conjugate(x, sym, s, &c, &d);
            x->esep_conj[e][s] = (uint16_t)qs_h48_esep(&d);
        }
    }
    if (!err) {
        raw_distances(H48_N_COCSEP, x->cocsep_move, 1,
                      qs_h48_cocsep(&solved), cdist);
        raw_distances(H48_N_ESEP, x->esep_move, 0,
                      (uint32_t)qs_h48_esep(&solved), x->esep_dist);
        for (int k = 0; k < H48_N_CLASS; k++)
            x->class_dist[k] = cdist[x->class_rep[k]];
    }
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
    free(x->cocsep_packed);
    free(x->cocsep_move);
    free(x->esep_move);
    free(x->esep_conj);
    free(x->esep_dist);
    free(x);
}

uint64_t qs_h48_canonical_index(const qs_h48 *x, const qs_cube *c)
{
    qs_cube sym[48], d, e;
    uint32_t p = x->cocsep_packed[qs_h48_cocsep(c)];
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
        uint64_t i = ((uint64_t)cls * H48_N_ESEP + (uint64_t)qs_h48_esep(&e))
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
