/*
 * coord.c - coordinates: numbers that index one aspect of a cube (corner
 * twist, edge flip, where four given edges are, corner permutation, ...).
 * The search moves these numbers with tables instead of moving cubies; this
 * file converts between cubes and coordinates in both directions.
 */
#include "qs_internal.h"

const uint16_t qs_binom[13][5] = {
    {1, 0, 0, 0, 0},     {1, 1, 0, 0, 0},       {1, 2, 1, 0, 0},
    {1, 3, 3, 1, 0},     {1, 4, 6, 4, 1},       {1, 5, 10, 10, 5},
    {1, 6, 15, 20, 15},  {1, 7, 21, 35, 35},    {1, 8, 28, 56, 70},
    {1, 9, 36, 84, 126}, {1, 10, 45, 120, 210}, {1, 11, 55, 165, 330},
    {1, 12, 66, 220, 495}};

/* The places, ascending, of the four-element subset of 0..n-1 whose
 * colexicographic rank is comb (the sum of qs_binomial(place, k + 1)). */
static void comb_places(int comb, int n, uint8_t sorted[4])
{
    for (int k = 3, p = n - 1; k >= 0; k--) {
        while (qs_binomial(p, k + 1) > comb)
            p--;
        comb -= qs_binomial(p, k + 1);
        sorted[k] = (uint8_t)p--;
    }
}

int qs_perm_rank(const uint8_t *p, int n)
{
    /* The later entries below p[i] are the values below it not used yet
     * (bits counted by nibbles: the portable build has no popcount
     * instruction, and the library call costs more than the count). */
    static const uint8_t bits[16] = {0, 1, 1, 2, 1, 2, 2, 3,
                                     1, 2, 2, 3, 2, 3, 3, 4};
    unsigned used = 0;
    int rank = 0;
    for (int i = 0; i < n; i++) {
        unsigned below = used & ((1u << p[i]) - 1);
        int smaller = p[i] - bits[below & 15] - bits[below >> 4 & 15] -
                      bits[below >> 8];
        rank = rank * (n - i) + smaller;
        used |= 1u << p[i];
    }
    return rank;
}

void qs_perm_unrank(int rank, uint8_t *p, int n)
{
    int digits[12], used = 0;
    for (int i = n - 1; i >= 0; i--) {
        digits[i] = rank % (n - i);
        rank /= n - i;
    }
    for (int i = 0; i < n; i++) {
        int k = digits[i];
        for (int v = 0; v < n; v++) {
            if (used & (1 << v))
                continue;
            if (k-- == 0) {
                p[i] = (uint8_t)v;
                used |= 1 << v;
                break;
            }
        }
    }
}

int qs_coord_twist(const qs_cube *c)
{
    int t = 0;
    for (int i = 0; i < 7; i++)
        t = 3 * t + c->co[i];
    return t;
}

void qs_coord_set_twist(qs_cube *c, int twist)
{
    int sum = 0;
    for (int i = 6; i >= 0; i--) {
        c->co[i] = (uint8_t)(twist % 3);
        sum += c->co[i];
        twist /= 3;
    }
    c->co[7] = (uint8_t)((3 - sum % 3) % 3);
}

int qs_coord_flip(const qs_cube *c)
{
    int f = 0;
    for (int i = 0; i < 11; i++)
        f = 2 * f + c->eo[i];
    return f;
}

void qs_coord_set_flip(qs_cube *c, int flip)
{
    int sum = 0;
    for (int i = 10; i >= 0; i--) {
        c->eo[i] = (uint8_t)(flip & 1);
        sum += c->eo[i];
        flip >>= 1;
    }
    c->eo[11] = (uint8_t)(sum & 1);
}

int qs_coord_edge4(const qs_cube *c, int first)
{
    uint8_t order[4];
    int comb = 0, k = 0;
    for (int pos = 0; pos < 12; pos++) {
        int e = c->ep[pos] - first;
        if (e >= 0 && e < 4) {
            comb += qs_binomial(pos, k + 1);
            order[k++] = (uint8_t)e;
        }
    }
    return comb * 24 + qs_perm_rank(order, 4);
}

void qs_coord_edge4_positions(int value, uint8_t pos[4])
{
    uint8_t order[4], sorted[4];
    qs_perm_unrank(value % 24, order, 4);
    comb_places(value / 24, 12, sorted);
    /* the k-th occupied position (ascending) holds member order[k] */
    for (int k = 0; k < 4; k++)
        pos[order[k]] = sorted[k];
}

void qs_coord_set_edge4(qs_cube *c, int first, int value)
{
    uint8_t pos[4];
    int taken = 0;
    qs_coord_edge4_positions(value, pos);
    for (int k = 0; k < 4; k++) {
        c->ep[pos[k]] = (uint8_t)(first + k);
        taken |= 1 << pos[k];
    }
    int next = 0;
    for (int p = 0; p < 12; p++) {
        if (taken & (1 << p))
            continue;
        if (next == first)
            next += 4;
        c->ep[p] = (uint8_t)next++;
    }
}

int qs_coord_corners(const qs_cube *c)
{
    return qs_perm_rank(c->cp, 8);
}

void qs_coord_set_corners(qs_cube *c, int corners)
{
    qs_perm_unrank(corners, c->cp, 8);
}

int qs_coord_udedges(const qs_cube *c)
{
    return qs_perm_rank(c->ep, 8);
}

void qs_coord_set_udedges(qs_cube *c, int udedges)
{
    qs_perm_unrank(udedges, c->ep, 8);
    for (int i = 8; i < 12; i++)
        c->ep[i] = (uint8_t)i;
}

/* The U layer's corners are cubies 0..3; csplit ranks the set of places
 * holding them as qs_coord_edge4 ranks its places (places 0..3, home,
 * rank 0). */
int qs_coord_csplit(const qs_cube *c)
{
    int rank = 0, k = 0;
    for (int i = 0; i < 8; i++)
        if (c->cp[i] < 4)
            rank += qs_binomial(i, ++k);
    return rank;
}

void qs_coord_set_csplit(qs_cube *c, int csplit)
{
    uint8_t places[4];
    comb_places(csplit, 8, places);
    int u = 0, d = 4, k = 0;
    for (int i = 0; i < 8; i++)
        if (k < 4 && places[k] == i) {
            c->cp[i] = (uint8_t)u++;
            k++;
        } else {
            c->cp[i] = (uint8_t)d++;
        }
}
