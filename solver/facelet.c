/*
 * facelet.c - conversion between facelet strings and cubie-level cubes, and
 * uniformly random solvable cubes.
 *
 * A facelet string lists the 54 stickers face by face in URFDLB order, each
 * face read row by row as seen from outside with U above F (Kociemba's
 * layout). Every corner and edge position owns a fixed set of facelets,
 * listed in a fixed cyclic order starting from the U/D sticker (corners) or
 * the U/D, else F/B, sticker (edges); a cubie's orientation is how far its
 * colours are rotated along that order.
 */
#include "qs_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

enum { NFACELETS = 54 };

static const char face_chars[6] = {'U', 'R', 'F', 'D', 'L', 'B'};

/* Facelet index of sticker n (1..9) of face f. */
#define FL(f, n) ((f) * 9 + (n) - 1)
enum { U = 0, R = 1, F = 2, D = 3, L = 4, B = 5 };

/* Facelets of each corner position, clockwise from its U/D sticker. */
static const uint8_t corner_facelet[8][3] = {
    {FL(U, 9), FL(R, 1), FL(F, 3)}, {FL(U, 7), FL(F, 1), FL(L, 3)},
    {FL(U, 1), FL(L, 1), FL(B, 3)}, {FL(U, 3), FL(B, 1), FL(R, 3)},
    {FL(D, 3), FL(F, 9), FL(R, 7)}, {FL(D, 1), FL(L, 9), FL(F, 7)},
    {FL(D, 7), FL(B, 9), FL(L, 7)}, {FL(D, 9), FL(R, 9), FL(B, 7)},
};

/* Facelets of each edge position, the reference sticker first. */
static const uint8_t edge_facelet[12][2] = {
    {FL(U, 6), FL(R, 2)}, {FL(U, 8), FL(F, 2)}, {FL(U, 4), FL(L, 2)},
    {FL(U, 2), FL(B, 2)}, {FL(D, 6), FL(R, 8)}, {FL(D, 2), FL(F, 8)},
    {FL(D, 4), FL(L, 8)}, {FL(D, 8), FL(B, 8)}, {FL(F, 6), FL(R, 4)},
    {FL(F, 4), FL(L, 6)}, {FL(B, 6), FL(L, 4)}, {FL(B, 4), FL(R, 6)},
};

/* Colours of each corner and edge cubie, in the same order as the
 * facelets of its home position. */
static const uint8_t corner_color[8][3] = {
    {U, R, F}, {U, F, L}, {U, L, B}, {U, B, R},
    {D, F, R}, {D, L, F}, {D, B, L}, {D, R, B},
};
static const uint8_t edge_color[12][2] = {
    {U, R}, {U, F}, {U, L}, {U, B}, {D, R}, {D, F},
    {D, L}, {D, B}, {F, R}, {F, L}, {B, L}, {B, R},
};

static const char *const corner_name[8] = {"URF", "UFL", "ULB", "UBR",
                                           "DFR", "DLF", "DBL", "DRB"};
static const char *const edge_name[12] = {"UR", "UF", "UL", "UB", "DR", "DF",
                                          "DL", "DB", "FR", "FL", "BL", "BR"};

/* Writes a detail message if the caller asked for one; returns err so that
 * error paths read as a single statement. */
static int fail(char *detail, size_t detail_len, int err, const char *fmt,
                ...) __attribute__((format(printf, 4, 5)));

static int fail(char *detail, size_t detail_len, int err, const char *fmt,
                ...)
{
    if (detail && detail_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, detail_len, fmt, ap);
        va_end(ap);
    }
    return err;
}

/* "U5"-style name of a facelet index; buf needs 3 bytes. */
static const char *facelet_name(int i, char buf[3])
{
    buf[0] = face_chars[i / 9];
    buf[1] = (char)('1' + i % 9);
    buf[2] = '\0';
    return buf;
}

static int color_of(char ch)
{
    const char *p = memchr(face_chars, ch, sizeof face_chars);
    return ch && p ? (int)(p - face_chars) : -1;
}

/* Finds the corner cubie and twist whose colours, read from the position's
 * facelets, are col[0..2]; mirror-image triples match nothing. */
static int match_corner(const uint8_t col[3], int *cubie, int *twist)
{
    for (int j = 0; j < 8; j++)
        for (int o = 0; o < 3; o++) {
            int k;
            for (k = 0; k < 3; k++)
                if (col[(k + o) % 3] != corner_color[j][k])
                    break;
            if (k == 3) {
                *cubie = j;
                *twist = o;
                return 1;
            }
        }
    return 0;
}

static int match_edge(const uint8_t col[2], int *cubie, int *flip)
{
    for (int j = 0; j < 12; j++)
        for (int o = 0; o < 2; o++)
            if (col[o] == edge_color[j][0] && col[1 - o] == edge_color[j][1]) {
                *cubie = j;
                *flip = o;
                return 1;
            }
    return 0;
}

/* Detail for a duplicated cubie: the first cubie that occurs twice, both
 * positions, and a cubie that is missing as a consequence. */
static int dup_detail(const uint8_t *perm, int n, const char *const *names,
                      const char *kind, int err, char *detail,
                      size_t detail_len)
{
    int first[12], missing = -1;
    for (int j = 0; j < n; j++)
        first[j] = -1;
    for (int i = 0; i < n; i++)
        if (first[perm[i]] < 0)
            first[perm[i]] = i;
    for (int j = 0; j < n && missing < 0; j++)
        if (first[j] < 0)
            missing = j;
    for (int i = 0; i < n; i++)
        if (first[perm[i]] != i)
            return fail(detail, detail_len, err,
                        "%s cubie %s appears twice (at %s and %s) and %s %s "
                        "is missing",
                        kind, names[perm[i]], names[first[perm[i]]], names[i],
                        kind, missing >= 0 ? names[missing] : "?");
    return err;
}

int qs_cube_from_facelets(const char *facelets, qs_cube *c, char *detail,
                          size_t detail_len)
{
    uint8_t col[NFACELETS];
    int count[6] = {0};
    char nb[3], nb2[3], nb3[3];
    qs_cube t;

    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!facelets || !c)
        return fail(detail, detail_len, QS_ERR_ARGUMENT,
                    "facelet string or cube is NULL");

    size_t len = strlen(facelets);
    if (len != NFACELETS) {
        /* Characters as a person counts them: UTF-8 continuation bytes
         * are part of the character before. */
        size_t chars = 0;
        for (size_t i = 0; i < len; i++)
            chars += ((unsigned char)facelets[i] & 0xc0) != 0x80;
        if (chars != len)
            return fail(detail, detail_len, QS_ERR_LENGTH,
                        "facelet string has %zu characters (%zu bytes), "
                        "expected 54",
                        chars, len);
        return fail(detail, detail_len, QS_ERR_LENGTH,
                    "facelet string has %zu characters, expected 54", len);
    }

    for (int i = 0; i < NFACELETS; i++) {
        int k = color_of(facelets[i]);
        if (k < 0) {
            unsigned char ch = (unsigned char)facelets[i];
            if (ch >= 0x20 && ch < 0x7f)
                return fail(detail, detail_len, QS_ERR_CHARACTER,
                            "invalid character '%c' at %s (position %d); "
                            "only U R F D L B are allowed",
                            ch, facelet_name(i, nb), i + 1);
            return fail(detail, detail_len, QS_ERR_CHARACTER,
                        "invalid character 0x%02x at %s (position %d); only "
                        "U R F D L B are allowed",
                        ch, facelet_name(i, nb), i + 1);
        }
        col[i] = (uint8_t)k;
    }

    for (int f = 0; f < 6; f++)
        if (col[FL(f, 5)] != f)
            return fail(detail, detail_len, QS_ERR_CENTER,
                        "centre %s is %c, expected %c",
                        facelet_name(FL(f, 5), nb), face_chars[col[FL(f, 5)]],
                        face_chars[f]);

    for (int i = 0; i < NFACELETS; i++)
        count[col[i]]++;
    for (int f = 0; f < 6; f++)
        if (count[f] != 9)
            return fail(detail, detail_len, QS_ERR_COLOR_COUNT,
                        "colour %c appears %d times, expected 9",
                        face_chars[f], count[f]);

    for (int i = 0; i < 8; i++) {
        uint8_t cc[3];
        int cubie, twist;
        for (int k = 0; k < 3; k++)
            cc[k] = col[corner_facelet[i][k]];
        if (!match_corner(cc, &cubie, &twist))
            return fail(detail, detail_len, QS_ERR_CORNER,
                        "corner %s (%s %s %s) has colours %c %c %c, which no "
                        "corner cubie has",
                        corner_name[i], facelet_name(corner_facelet[i][0], nb),
                        facelet_name(corner_facelet[i][1], nb2),
                        facelet_name(corner_facelet[i][2], nb3),
                        face_chars[cc[0]], face_chars[cc[1]],
                        face_chars[cc[2]]);
        t.cp[i] = (uint8_t)cubie;
        t.co[i] = (uint8_t)twist;
    }

    for (int i = 0; i < 12; i++) {
        uint8_t ec[2];
        int cubie, flip;
        for (int k = 0; k < 2; k++)
            ec[k] = col[edge_facelet[i][k]];
        if (!match_edge(ec, &cubie, &flip))
            return fail(detail, detail_len, QS_ERR_EDGE,
                        "edge %s (%s %s) has colours %c %c, which no edge "
                        "cubie has",
                        edge_name[i], facelet_name(edge_facelet[i][0], nb),
                        facelet_name(edge_facelet[i][1], nb2),
                        face_chars[ec[0]], face_chars[ec[1]]);
        t.ep[i] = (uint8_t)cubie;
        t.eo[i] = (uint8_t)flip;
    }

    int err = qs_cube_check(&t);
    int sum = 0;
    switch (err) {
    case QS_OK:
        break;
    case QS_ERR_DUP_CORNER:
        return dup_detail(t.cp, 8, corner_name, "corner", err, detail,
                          detail_len);
    case QS_ERR_DUP_EDGE:
        return dup_detail(t.ep, 12, edge_name, "edge", err, detail,
                          detail_len);
    case QS_ERR_TWIST:
        for (int i = 0; i < 8; i++)
            sum += t.co[i];
        return fail(detail, detail_len, err,
                    "corner twists sum to %d mod 3, expected 0 (as if one "
                    "corner were twisted %s)",
                    sum % 3, sum % 3 == 1 ? "clockwise" : "counter-clockwise");
    case QS_ERR_FLIP:
        for (int i = 0; i < 12; i++)
            sum += t.eo[i];
        return fail(detail, detail_len, err,
                    "edge flips sum to %d mod 2, expected 0 (as if one "
                    "edge were flipped)",
                    sum % 2);
    case QS_ERR_PARITY:
        return fail(detail, detail_len, err,
                    "corner permutation is %s but edge permutation is %s "
                    "(two pieces are swapped)",
                    qs_perm_parity(t.cp, 8) ? "odd" : "even",
                    qs_perm_parity(t.ep, 12) ? "odd" : "even");
    default:
        return fail(detail, detail_len, err, "invalid cube");
    }

    *c = t;
    return QS_OK;
}

void qs_cube_to_facelets(const qs_cube *c, char out[55])
{
    /* Centres never move; every other facelet belongs to one cubie. */
    for (int f = 0; f < 6; f++)
        out[FL(f, 5)] = face_chars[f];
    for (int i = 0; i < 8; i++) {
        int j = c->cp[i], o = c->co[i] % 3;
        for (int k = 0; k < 3; k++)
            out[corner_facelet[i][(k + o) % 3]] = face_chars[corner_color[j][k]];
    }
    for (int i = 0; i < 12; i++) {
        int j = c->ep[i], o = c->eo[i] & 1;
        for (int k = 0; k < 2; k++)
            out[edge_facelet[i][(k + o) % 2]] = face_chars[edge_color[j][k]];
    }
    out[NFACELETS] = '\0';
}

/* xorshift64* (Vigna): small state the caller owns, good enough spread for
 * test scrambles. A zero state would stay zero forever, so it is replaced by
 * a fixed nonzero one. */
static uint64_t next_random(uint64_t *state)
{
    uint64_t x = *state ? *state : 0x9E3779B97F4A7C15ULL;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *state = x;
    return x * 0x2545F4914F6CDD1DULL;
}

/* Uniform in [0, n): rejection removes the modulo bias. */
static unsigned random_below(uint64_t *state, unsigned n)
{
    uint64_t limit = UINT64_MAX - UINT64_MAX % n;
    uint64_t r;
    do
        r = next_random(state);
    while (r >= limit);
    return (unsigned)(r % n);
}

static void random_perm(uint8_t *p, int n, uint64_t *state)
{
    for (int i = 0; i < n; i++)
        p[i] = (uint8_t)i;
    for (int i = n - 1; i > 0; i--) {
        int j = (int)random_below(state, (unsigned)i + 1);
        uint8_t t = p[i];
        p[i] = p[j];
        p[j] = t;
    }
}

void qs_cube_random(qs_cube *c, uint64_t *rng_state)
{
    int sum = 0;
    random_perm(c->cp, 8, rng_state);
    random_perm(c->ep, 12, rng_state);
    /* Swapping two fixed edge slots maps odd permutations one-to-one onto
     * even ones, so fixing parity this way keeps the draw uniform. */
    if (qs_perm_parity(c->cp, 8) != qs_perm_parity(c->ep, 12)) {
        uint8_t t = c->ep[10];
        c->ep[10] = c->ep[11];
        c->ep[11] = t;
    }
    for (int i = 0; i < 7; i++) {
        c->co[i] = (uint8_t)random_below(rng_state, 3);
        sum += c->co[i];
    }
    c->co[7] = (uint8_t)((3 - sum % 3) % 3);
    sum = 0;
    for (int i = 0; i < 11; i++) {
        c->eo[i] = (uint8_t)random_below(rng_state, 2);
        sum += c->eo[i];
    }
    c->eo[11] = (uint8_t)(sum & 1);
}
