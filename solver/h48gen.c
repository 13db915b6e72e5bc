/*
 * h48gen.c - the exact H48 table for h > 0: for every entry (corner
 * class, esep, orientation of the edges at positions 0..h-1 in the
 * class representative's frame), the least distance to solved over the
 * positions it stands for, which a breadth-first search over the table's
 * own index cannot give (the orientation of some positions alone does
 * not follow from moves).
 *
 * Two facts make it exact and fast. A move acts on the edges'
 * orientation by position as a fixed permutation and flip pattern, so a
 * move sequence carries the orientation of the entry's positions to known
 * positions of the end state whatever the rest of the position is. And a
 * position's full coset state (corner coordinate, esep, all 12 orientation
 * bits) within k moves of solved is found by a breadth-first search of
 * modest size (the endgame: 25 M states within 7 moves). So for one corner
 * class, every canonical move sequence P of at most base + 2 - k moves
 * from the class representative's corners, and every endgame state at
 * exactly k moves whose corners are those P reaches, is a path of |P| + k
 * moves from one entry of the class: the entry whose esep is P^-1 of the
 * state's, and whose orientation bits are the state's carried back along
 * P. The empty sequence takes the endgame states at every distance. Every
 * shortest path of at most base + 2 moves is one of these (its last k
 * moves start at exactly k from solved, or it is within the endgame), so
 * the least length per entry is exact up to base + 2, which is all that
 * two-bit entries hold. The work is per class, shared by its 34,650 esep
 * values, and reads only small tables: no table of the size of the result
 * is touched but the class's block of it.
 */
#include "qs_internal.h"

#include <stdlib.h>
#include <string.h>

enum { MAX_PREFIX = 16 };

/* LSD radix sort of keys below 2^(16 passes), 16 bits a pass; the result
 * ends in a or tmp by the parity of passes, and its pointer is returned.
 * Level 0 and 1 keys fit 48 bits, level 2's need 64. */
static uint64_t *radix_sort(uint64_t *a, uint64_t *tmp, uint64_t n,
                            int passes, uint64_t *count /* 65,536 */)
{
    for (int pass = 0; pass < passes; pass++) {
        int shift = 16 * pass;
        memset(count, 0, 65536 * sizeof *count);
        for (uint64_t i = 0; i < n; i++)
            count[a[i] >> shift & 0xffff]++;
        uint64_t sum = 0;
        for (int b = 0; b < 65536; b++) {
            uint64_t c = count[b];
            count[b] = sum;
            sum += c;
        }
        for (uint64_t i = 0; i < n; i++)
            tmp[count[a[i] >> shift & 0xffff]++] = a[i];
        uint64_t *t = a;
        a = tmp;
        tmp = t;
    }
    return a;
}

/* A coset state as a key: (cocsep * H48_N_ESEP + esep) << 12 | eo. */
static uint64_t state_move(const qs_h48 *x, const qs_h48_endgame *eg,
                           uint64_t key, int m)
{
    uint64_t coarse = key >> 12;
    uint32_t cocsep = (uint32_t)(coarse / H48_N_ESEP);
    int esep = (int)(coarse % H48_N_ESEP);
    uint64_t to = (uint64_t)h48_cocsep_move(x, cocsep, m) * H48_N_ESEP +
                  x->esep_move[esep][m];
    return to << 12 | eg->eo_move[m][key & 0xfff];
}

void qs_h48_endgame_free(qs_h48_endgame *eg)
{
    if (!eg)
        return;
    free(eg->off_near);
    free(eg->off_edge);
    free(eg->rec_near);
    free(eg->rec_edge);
    free(eg->esep_by_move);
    free(eg);
}

int qs_h48_endgame_create(const qs_h48 *x, int k, qs_h48_endgame **out)
{
    *out = NULL;
    if (!x || k < 1 || k > H48_MAX_ENDGAME)
        return QS_ERR_ARGUMENT;
    qs_h48_endgame *eg = calloc(1, sizeof *eg);
    if (!eg)
        return QS_ERR_NOMEM;
    eg->k = k;
    eg->esep_by_move = malloc(sizeof *eg->esep_by_move * 18);
    if (!eg->esep_by_move) {
        free(eg);
        return QS_ERR_NOMEM;
    }
    for (int m = 0; m < 18; m++) {
        for (int e = 0; e < H48_N_ESEP; e++)
            eg->esep_by_move[m][e] = x->esep_move[e][m];
        qs_cube mc;
        qs_move_cube((qs_move)m, &mc);
        memcpy(eg->move_ep[m], mc.ep, 12);
        memcpy(eg->move_eo[m], mc.eo, 12);
        for (unsigned eo = 0; eo < 4096; eo++) {
            unsigned to = 0;
            for (int q = 0; q < 12; q++)
                to |= ((eo >> mc.ep[q] & 1) ^ mc.eo[q]) << q;
            eg->eo_move[m][eo] = (uint16_t)to;
        }
    }
    uint64_t *layer[H48_MAX_ENDGAME + 1] = {NULL}, n_layer[H48_MAX_ENDGAME + 1];
    uint64_t *count = malloc(65536 * sizeof *count);
    /* 16-bit passes enough for the largest key */
    uint64_t top = (uint64_t)x->n_cocsep * H48_N_ESEP << 12;
    int passes = 1;
    while (passes < 4 && top >> (16 * passes))
        passes++;
    int err = count ? QS_OK : QS_ERR_NOMEM;
    qs_cube solved;
    qs_cube_solved(&solved);
    layer[0] = malloc(sizeof *layer[0]);
    if (!layer[0])
        err = QS_ERR_NOMEM;
    else
        layer[0][0] = ((uint64_t)qs_h48_cocsep(x, &solved) * H48_N_ESEP +
                       (uint64_t)qs_h48_esep(x, &solved))
                      << 12;
    n_layer[0] = 1;
    eg->states = 1;
    /* Layer d + 1: the children of layer d, sorted, without repeats and
     * without those of layers d and d - 1 (a move's inverse is a move). */
    for (int d = 0; !err && d < k; d++) {
        uint64_t n = n_layer[d] * 18;
        uint64_t *a = malloc(n * sizeof *a), *tmp = malloc(n * sizeof *tmp);
        if (!a || !tmp) {
            free(a);
            free(tmp);
            err = QS_ERR_NOMEM;
            break;
        }
        for (uint64_t i = 0, j = 0; i < n_layer[d]; i++)
            for (int m = 0; m < 18; m++)
                a[j++] = state_move(x, eg, layer[d][i], m);
        uint64_t *sorted = radix_sort(a, tmp, n, passes, count);
        free(sorted == a ? tmp : a);
        const uint64_t *same = layer[d], *prev = d ? layer[d - 1] : NULL;
        uint64_t n_same = n_layer[d], n_prev = d ? n_layer[d - 1] : 0;
        uint64_t w = 0, i_same = 0, i_prev = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t v = sorted[i];
            if (w && sorted[w - 1] == v)
                continue;
            while (i_same < n_same && same[i_same] < v)
                i_same++;
            while (i_prev < n_prev && prev[i_prev] < v)
                i_prev++;
            if ((i_same < n_same && same[i_same] == v) ||
                (i_prev < n_prev && prev[i_prev] == v))
                continue;
            sorted[w++] = v;
        }
        uint64_t *kept = realloc(sorted, (w ? w : 1) * sizeof *kept);
        layer[d + 1] = kept ? kept : sorted;
        n_layer[d + 1] = w;
        eg->states += w;
    }
    /* Records grouped by corner coordinate: layers below k ("near"), and
     * layer k ("edge"). */
    if (!err) {
        uint64_t n_near = 0;
        for (int d = 0; d < k; d++)
            n_near += n_layer[d];
        eg->off_near = calloc(x->n_cocsep + 1, sizeof *eg->off_near);
        eg->off_edge = calloc(x->n_cocsep + 1, sizeof *eg->off_edge);
        eg->rec_near = malloc(n_near * sizeof *eg->rec_near);
        eg->rec_edge = malloc((n_layer[k] ? n_layer[k] : 1) *
                              sizeof *eg->rec_edge);
        if (!eg->off_near || !eg->off_edge || !eg->rec_near ||
            !eg->rec_edge)
            err = QS_ERR_NOMEM;
    }
    if (!err) {
        for (int d = 0; d <= k; d++) {
            uint32_t *off = d == k ? eg->off_edge : eg->off_near;
            for (uint64_t i = 0; i < n_layer[d]; i++)
                off[(layer[d][i] >> 12) / H48_N_ESEP + 1]++;
        }
        for (uint32_t c = 0; c < x->n_cocsep; c++) {
            eg->off_near[c + 1] += eg->off_near[c];
            eg->off_edge[c + 1] += eg->off_edge[c];
        }
        /* layers are sorted by key, so each corner coordinate's records
         * are written in order; fill pointers start at each group */
        uint32_t *fill_near = malloc((x->n_cocsep + 1) * sizeof *fill_near);
        uint32_t *fill_edge = malloc((x->n_cocsep + 1) * sizeof *fill_edge);
        if (!fill_near || !fill_edge) {
            err = QS_ERR_NOMEM;
        } else {
            memcpy(fill_near, eg->off_near,
                   (x->n_cocsep + 1) * sizeof *fill_near);
            memcpy(fill_edge, eg->off_edge,
                   (x->n_cocsep + 1) * sizeof *fill_edge);
        }
        for (int d = 0; !err && d <= k; d++) {
            for (uint64_t i = 0; i < n_layer[d]; i++) {
                uint64_t coarse = layer[d][i] >> 12;
                uint32_t c = (uint32_t)(coarse / H48_N_ESEP);
                uint32_t r = (uint32_t)(coarse % H48_N_ESEP) << 16 |
                             (uint32_t)d << 12 |
                             (uint32_t)(layer[d][i] & 0xfff);
                if (d == k)
                    eg->rec_edge[fill_edge[c]++] = r;
                else
                    eg->rec_near[fill_near[c]++] = r;
            }
        }
        free(fill_near);
        free(fill_edge);
    }
    for (int d = 0; d <= k; d++)
        free(layer[d]);
    free(count);
    if (err) {
        qs_h48_endgame_free(eg);
        return err;
    }
    *out = eg;
    return QS_OK;
}

/* One class's search: what it reads, its bound (base + 2) and the
 * lengths found so far per entry, as bit sets by level. */
typedef struct {
    const qs_h48 *x;
    const qs_h48_endgame *eg;
    int h, base, max_len, words;
    uint64_t *reached[3]; /* [esep][words]: reached in <= base, base + 1,
                             base + 2 moves */
    uint64_t records;
} class_search;

/* The move sequence seq (p moves, the last `last`) from the class
 * representative reached corner coordinate cocsep, carrying the entry's
 * orientation position origin[q] to position q, flipped by flip[q]:
 * every endgame record of cocsep is a path from an entry; then the
 * sequence's canonical extensions whose corners can still make it. */
static void visit(class_search *cs, uint32_t cocsep, int p, int last,
                  const uint8_t *seq, const uint8_t *origin,
                  const uint8_t *flip)
{
    const qs_h48 *x = cs->x;
    const qs_h48_endgame *eg = cs->eg;
    const int h = cs->h, words = cs->words;
    /* lut_lo/lut_hi: the entry's orientation bits that end-state
     * orientation bits 0..5 and 6..11 come from; flips: the bits the
     * prefix flips on the way */
    uint16_t lut_lo[64], lut_hi[64];
    unsigned flips = 0;
    for (int q = 0; q < 12; q++)
        if (origin[q] < h && flip[q])
            flips |= 1u << origin[q];
    lut_lo[0] = lut_hi[0] = 0;
    for (int v = 1; v < 64; v++) {
        int q = __builtin_ctz((unsigned)v);
        lut_lo[v] = (uint16_t)(lut_lo[v & (v - 1)] |
                               (origin[q] < h ? 1u << origin[q] : 0));
        lut_hi[v] = (uint16_t)(lut_hi[v & (v - 1)] |
                               (origin[q + 6] < h ? 1u << origin[q + 6] : 0));
    }
    /* the esep moves of the prefix's inverse, last move first */
    const uint16_t *back[MAX_PREFIX];
    for (int j = 0; j < p; j++) {
        int m = seq[p - 1 - j];
        back[j] = eg->esep_by_move[m / 3 * 3 + 2 - m % 3];
    }
    for (int pass = p ? 1 : 0; pass < 2; pass++) {
        const uint32_t *rec = pass ? eg->rec_edge : eg->rec_near;
        const uint32_t *off = pass ? eg->off_edge : eg->off_near;
        uint32_t a = off[cocsep], b = off[cocsep + 1];
        cs->records += b - a;
        for (uint32_t i = a; i < b; i++) {
            uint32_t r = rec[i];
            unsigned esep = r >> 16;
            for (int j = 0; j < p; j++)
                esep = back[j][esep];
            int len = p + (int)(r >> 12 & 15);
            if (len > cs->max_len)
                continue;
            unsigned eo = r & 0xfff;
            unsigned y = (unsigned)(lut_lo[eo & 63] | lut_hi[eo >> 6]) ^ flips;
            int level = len <= cs->base ? 0 : len - cs->base;
            cs->reached[level][(size_t)esep * words + (y >> 6)] |=
                1ull << (y & 63);
        }
    }
    if (p == cs->max_len - eg->k)
        return;
    uint8_t origin2[12], flip2[12], seq2[MAX_PREFIX];
    memcpy(seq2, seq, (size_t)p);
    for (int m = 0; m < 18; m++) {
        /* canonical sequences: no face twice in a row, and of two
         * commuting faces the first one first */
        if (last >= 0 && (m / 3 == last / 3 ||
                          (m / 3 % 3 == last / 3 % 3 && m / 3 < last / 3)))
            continue;
        uint32_t to = h48_cocsep_move(x, cocsep, m);
        if (x->cocsep_dist[to] > cs->max_len - p - 1)
            continue;
        for (int q = 0; q < 12; q++) {
            int from = eg->move_ep[m][q];
            origin2[q] = origin[from];
            flip2[q] = flip[from] ^ eg->move_eo[m][q];
        }
        seq2[p] = (uint8_t)m;
        visit(cs, to, p + 1, m, seq2, origin2, flip2);
    }
}

size_t qs_h48_class_scratch(int h)
{
    size_t words = h > 6 ? (size_t)1 << (h - 6) : 1;
    return 3 * (size_t)H48_N_ESEP * words * sizeof(uint64_t);
}

int qs_h48_fill_class(const qs_h48 *x, const qs_h48_endgame *eg, int cls,
                      int base, uint8_t *block, void *scratch,
                      uint64_t *records)
{
    const int h = x->h;
    if (h < 1 || cls < 0 || cls >= x->n_class || base < 0 ||
        base + 2 - eg->k >= MAX_PREFIX)
        return QS_ERR_ARGUMENT;
    class_search cs = {.x = x, .eg = eg, .h = h, .base = base,
                       .max_len = base + 2};
    cs.words = h > 6 ? 1 << (h - 6) : 1;
    size_t per_level = (size_t)H48_N_ESEP * (size_t)cs.words;
    memset(scratch, 0, qs_h48_class_scratch(h));
    for (int l = 0; l < 3; l++)
        cs.reached[l] = (uint64_t *)scratch + l * per_level;
    uint8_t origin[12], flip[12], seq[MAX_PREFIX] = {0};
    for (int q = 0; q < 12; q++) {
        origin[q] = (uint8_t)q;
        flip[q] = 0;
    }
    visit(&cs, x->class_rep[cls], 0, -1, seq, origin, flip);
    if (records)
        *records += cs.records;
    /* two bits per entry, four per byte: a class's N << h entries fill
     * whole bytes when h >= 1 */
    const size_t n = (size_t)H48_N_ESEP << h;
    const unsigned mask = (1u << h) - 1;
    for (size_t i = 0; i < n; i += 4) {
        unsigned byte = 0;
        for (int j = 0; j < 4; j++) {
            size_t e = (i + (size_t)j) >> h;
            unsigned y = (unsigned)(i + (size_t)j) & mask;
            size_t w = e * (size_t)cs.words + (y >> 6);
            uint64_t bit = 1ull << (y & 63);
            int v = cs.reached[0][w] & bit   ? 0
                    : cs.reached[1][w] & bit ? 1
                    : cs.reached[2][w] & bit ? 2
                                             : 3;
            byte |= (unsigned)v << (2 * j);
        }
        block[i / 4] = (uint8_t)byte;
    }
    return QS_OK;
}
