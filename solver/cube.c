/*
 * cube.c - the cubie-level cube model: the 45 moves as cubes, the basic
 * symmetries, composition, inversion and the solvability check.
 *
 * A cube records, for each corner and edge position, which cubie sits there
 * and how it is turned. Corner orientations 3..5 only occur in mirrored
 * cubes (symmetries that reflect the cube), which is why composition has
 * four cases.
 */
#include "qs_internal.h"

#include <string.h>

/* The six face quarter turns, in URFDLB order. */
static const qs_cube face_turn[6] = {
    /* U */ {{3, 0, 1, 2, 4, 5, 6, 7}, {0, 0, 0, 0, 0, 0, 0, 0},
             {3, 0, 1, 2, 4, 5, 6, 7, 8, 9, 10, 11}, {0}},
    /* R */ {{4, 1, 2, 0, 7, 5, 6, 3}, {2, 0, 0, 1, 1, 0, 0, 2},
             {8, 1, 2, 3, 11, 5, 6, 7, 4, 9, 10, 0}, {0}},
    /* F */ {{1, 5, 2, 3, 0, 4, 6, 7}, {1, 2, 0, 0, 2, 1, 0, 0},
             {0, 9, 2, 3, 4, 8, 6, 7, 1, 5, 10, 11},
             {0, 1, 0, 0, 0, 1, 0, 0, 1, 1, 0, 0}},
    /* D */ {{0, 1, 2, 3, 5, 6, 7, 4}, {0, 0, 0, 0, 0, 0, 0, 0},
             {0, 1, 2, 3, 5, 6, 7, 4, 8, 9, 10, 11}, {0}},
    /* L */ {{0, 2, 6, 3, 4, 1, 5, 7}, {0, 1, 2, 0, 0, 2, 1, 0},
             {0, 1, 10, 3, 4, 5, 9, 7, 8, 2, 6, 11}, {0}},
    /* B */ {{0, 1, 3, 7, 4, 5, 2, 6}, {0, 0, 1, 2, 0, 0, 2, 1},
             {0, 1, 2, 11, 4, 5, 6, 10, 8, 9, 3, 7},
             {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1}},
};

/* Generators of the 48 cube symmetries (Kociemba's): 120 degrees about the
 * URF-DBL diagonal, 180 degrees about F-B, 90 degrees about U-D, and the
 * left-right reflection. */
static const qs_cube sym_urf3 = {
    {0, 4, 5, 1, 3, 7, 6, 2}, {1, 2, 1, 2, 2, 1, 2, 1},
    {1, 8, 5, 9, 3, 11, 7, 10, 0, 4, 6, 2}, {1, 0, 1, 0, 1, 0, 1, 0, 1, 1, 1, 1}};
static const qs_cube sym_f2 = {
    {5, 4, 7, 6, 1, 0, 3, 2}, {0},
    {6, 5, 4, 7, 2, 1, 0, 3, 9, 8, 11, 10}, {0}};
static const qs_cube sym_u4 = {
    {3, 0, 1, 2, 7, 4, 5, 6}, {0},
    {3, 0, 1, 2, 7, 4, 5, 6, 11, 8, 9, 10}, {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1}};
static const qs_cube sym_lr2 = {
    {1, 0, 3, 2, 5, 4, 7, 6}, {3, 3, 3, 3, 3, 3, 3, 3},
    {2, 1, 0, 3, 6, 5, 4, 7, 9, 8, 11, 10}, {0}};

void qs_cube_solved(qs_cube *c)
{
    for (int i = 0; i < 8; i++) {
        c->cp[i] = (uint8_t)i;
        c->co[i] = 0;
    }
    for (int i = 0; i < 12; i++) {
        c->ep[i] = (uint8_t)i;
        c->eo[i] = 0;
    }
}

/* The corners of a * b into c. A mirror's corner orientations are 3..5
 * (the twist read the other way round), hence the four cases. */
static void corner_product(const qs_cube *a, const qs_cube *b, qs_cube *c)
{
    for (int i = 0; i < 8; i++) {
        int oa = a->co[b->cp[i]], ob = b->co[i], o;
        c->cp[i] = a->cp[b->cp[i]];
        if (oa < 3 && ob < 3) {
            o = (oa + ob) % 3;
        } else if (oa < 3) {
            o = oa + ob;
            if (o >= 6)
                o -= 3;
        } else if (ob < 3) {
            o = oa - ob;
            if (o < 3)
                o += 3;
        } else {
            o = oa - ob;
            if (o < 0)
                o += 3;
        }
        c->co[i] = (uint8_t)o;
    }
}

/* The edges of a * b into c. */
static void edge_product(const qs_cube *a, const qs_cube *b, qs_cube *c)
{
    for (int i = 0; i < 12; i++) {
        c->ep[i] = a->ep[b->ep[i]];
        c->eo[i] = (uint8_t)((a->eo[b->ep[i]] + b->eo[i]) & 1);
    }
}

void qs_cube_multiply(const qs_cube *a, const qs_cube *b, qs_cube *c)
{
    corner_product(a, b, c);
    edge_product(a, b, c);
}

void qs_cube_multiply_edges(const qs_cube *a, const qs_cube *b, qs_cube *c)
{
    memcpy(c->cp, a->cp, sizeof c->cp);
    memcpy(c->co, a->co, sizeof c->co);
    edge_product(a, b, c);
}

void qs_cube_conjugate_edges(const qs_cube *sym, const qs_cube *sym_inv,
                             const qs_cube *x, qs_cube *out)
{
    /* both products at once: edge i comes from sym_inv's place for it */
    memcpy(out->cp, sym->cp, sizeof out->cp);
    memcpy(out->co, sym->co, sizeof out->co);
    for (int i = 0; i < 12; i++) {
        int from = sym_inv->ep[i], e = x->ep[from];
        out->ep[i] = sym->ep[e];
        out->eo[i] =
            (uint8_t)((sym->eo[e] + x->eo[from] + sym_inv->eo[i]) & 1);
    }
}

void qs_cube_conjugate_corners(const qs_cube *sym, const qs_cube *sym_inv,
                               const qs_cube *x, qs_cube *out)
{
    qs_cube tmp;
    corner_product(sym, x, &tmp);
    corner_product(&tmp, sym_inv, out);
    memcpy(out->ep, sym->ep, sizeof out->ep);
    memcpy(out->eo, sym->eo, sizeof out->eo);
}

void qs_cube_inverse(const qs_cube *c, qs_cube *inv)
{
    for (int i = 0; i < 8; i++)
        inv->cp[c->cp[i]] = (uint8_t)i;
    for (int i = 0; i < 8; i++) {
        int o = c->co[inv->cp[i]];
        inv->co[i] = (uint8_t)(o >= 3 ? o : (3 - o) % 3);
    }
    for (int i = 0; i < 12; i++)
        inv->ep[c->ep[i]] = (uint8_t)i;
    for (int i = 0; i < 12; i++)
        inv->eo[i] = c->eo[inv->ep[i]];
}

int qs_cube_equal(const qs_cube *a, const qs_cube *b)
{
    return memcmp(a, b, sizeof *a) == 0;
}

int qs_cube_is_solved(const qs_cube *c)
{
    qs_cube s;
    qs_cube_solved(&s);
    return qs_cube_equal(c, &s);
}

int qs_perm_parity(const uint8_t *p, int n)
{
    int parity = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            parity ^= p[i] > p[j];
    return parity;
}

int qs_cube_check(const qs_cube *c)
{
    int seen = 0, sum = 0;
    for (int i = 0; i < 8; i++) {
        if (c->cp[i] >= 8 || (seen & (1 << c->cp[i])))
            return QS_ERR_DUP_CORNER;
        seen |= 1 << c->cp[i];
    }
    seen = 0;
    for (int i = 0; i < 12; i++) {
        if (c->ep[i] >= 12 || (seen & (1 << c->ep[i])))
            return QS_ERR_DUP_EDGE;
        seen |= 1 << c->ep[i];
    }
    for (int i = 0; i < 8; i++) {
        if (c->co[i] > 2)
            return QS_ERR_TWIST;
        sum += c->co[i];
    }
    if (sum % 3)
        return QS_ERR_TWIST;
    sum = 0;
    for (int i = 0; i < 12; i++) {
        if (c->eo[i] > 1)
            return QS_ERR_FLIP;
        sum += c->eo[i];
    }
    if (sum % 2)
        return QS_ERR_FLIP;
    if (qs_perm_parity(c->cp, 8) != qs_perm_parity(c->ep, 12))
        return QS_ERR_PARITY;
    return QS_OK;
}

/* Quarter-turn counts of a move on each face of its axis: single moves
 * touch one face, pairs both. Returns the number of faces touched. */
int qs_move_decompose(qs_move m, int face[2], int quarters[2])
{
    if (m < 18) {
        face[0] = m / 3;
        quarters[0] = m % 3 + 1;
        return 1;
    }
    int axis = (m - 18) / 9, p = (m - 18) % 9 / 3, q = (m - 18) % 3;
    face[0] = axis;     /* U, R or F */
    face[1] = axis + 3; /* D, L or B */
    quarters[0] = p + 1;
    quarters[1] = q + 1;
    return 2;
}

int qs_move_compose(int n, const int face[2], const int quarters[2])
{
    if (n < 1 || n > 2 || !face || !quarters)
        return QS_ERR_ARGUMENT;
    for (int k = 0; k < n; k++)
        if (face[k] < 0 || face[k] > 5 || quarters[k] < 1 || quarters[k] > 3)
            return QS_ERR_ARGUMENT;
    if (n == 1)
        return face[0] * 3 + quarters[0] - 1;
    if (face[0] % 3 != face[1] % 3 || face[0] == face[1])
        return QS_ERR_ARGUMENT;
    /* A pair is stored with its U, R or F face first. */
    int first = face[0] < 3 ? 0 : 1;
    return 18 + face[first] * 9 + (quarters[first] - 1) * 3 +
           (quarters[1 - first] - 1);
}

void qs_move_cube(qs_move m, qs_cube *out)
{
    int face[2], quarters[2], n = qs_move_decompose(m, face, quarters);
    qs_cube_solved(out);
    for (int k = 0; k < n; k++)
        for (int t = 0; t < quarters[k]; t++) {
            qs_cube tmp;
            qs_cube_multiply(out, &face_turn[face[k]], &tmp);
            *out = tmp;
        }
}

void qs_cube_apply_move(qs_cube *c, qs_move m)
{
    qs_cube mc, tmp;
    qs_move_cube(m, &mc);
    qs_cube_multiply(c, &mc, &tmp);
    *c = tmp;
}

void qs_cube_apply_moves(qs_cube *c, const qs_move *moves, int n)
{
    for (int i = 0; i < n; i++)
        qs_cube_apply_move(c, moves[i]);
}

void qs_sym_cubes(qs_cube out[48])
{
    qs_cube cc, tmp;
    qs_cube_solved(&cc);
    for (int urf3 = 0; urf3 < 3; urf3++) {
        for (int f2 = 0; f2 < 2; f2++) {
            for (int u4 = 0; u4 < 4; u4++) {
                for (int lr2 = 0; lr2 < 2; lr2++) {
                    out[16 * urf3 + 8 * f2 + 2 * u4 + lr2] = cc;
                    qs_cube_multiply(&cc, &sym_lr2, &tmp);
                    cc = tmp;
                }
                qs_cube_multiply(&cc, &sym_u4, &tmp);
                cc = tmp;
            }
            qs_cube_multiply(&cc, &sym_f2, &tmp);
            cc = tmp;
        }
        qs_cube_multiply(&cc, &sym_urf3, &tmp);
        cc = tmp;
    }
}
