/*
 * qs_internal.h - declarations shared by the solver's own source files
 * only: cube helpers and the building of the base tables. Everything a
 * search needs is in the engine's header, qs_engine.h; applications use
 * quadsolve.h.
 */
#ifndef QS_INTERNAL_H
#define QS_INTERNAL_H

#include "qs_engine.h"

/* Parity (0 even, 1 odd) of a permutation of 0..n-1. */
int qs_perm_parity(const uint8_t *p, int n);
/* The cube a move produces from the solved cube. */
void qs_move_cube(qs_move m, qs_cube *out);

/* Builds everything but the blobs. */
int qs_tables_init_base(qs_tables *t, qs_metric m);
void qs_tables_free_base(qs_tables *t);

/* ------------------------------------------------ H48 coordinate (h48.c)
 *
 * The pruning coordinate of issue 16, reduced by all 48 symmetries: the
 * corners' twist and tetrads (cocsep, H48_N_CLASS classes), which slice
 * each edge is in (esep) and, for h > 0, the orientation of edge cubies
 * 0..h-1. Index ((class * H48_N_ESEP + esep) << h) | eo bits, esep and eo
 * seen through the symmetry that takes the corners to the class
 * representative. HTM moves 0..17 only. */
#define H48_N_COCSEP (70 * N_TWIST) /* tetrad separation x twist */
#define H48_N_CLASS 3393
#define H48_N_ESEP 34650            /* 12! / (4! 4! 4!) */
#define H48_MAX_H 11
#define H48_ENTRIES(h) ((uint64_t)H48_N_CLASS * H48_N_ESEP << (h))

typedef struct qs_h48 {
    int h;
    uint8_t sym_inv[48];
    /* class << 6 | the symmetry s with S x S^-1 the class representative */
    uint32_t *cocsep_packed;           /* [H48_N_COCSEP] */
    uint32_t *cocsep_move;             /* [H48_N_COCSEP][18] */
    uint16_t (*esep_move)[18];         /* [H48_N_ESEP] */
    uint16_t (*esep_conj)[48];         /* [H48_N_ESEP]: S x S^-1 */
    uint8_t *esep_dist;                /* [H48_N_ESEP] exact, to solved */
    uint32_t class_rep[H48_N_CLASS];   /* cocsep of the representative */
    uint64_t class_stab[H48_N_CLASS];  /* bit s: S rep S^-1 = rep */
    uint8_t class_dist[H48_N_CLASS];   /* exact distance of the corners'
                                          class to the goal */
} qs_h48;

/* The coordinates of a cube. */
uint32_t qs_h48_cocsep(const qs_cube *c);
int qs_h48_esep(const qs_cube *c);
int qs_h48_eobits(const qs_cube *c, int h);
/* The same from the cubie arrays alone (the search's inverse position). */
uint32_t qs_h48_cocsep_of(const uint8_t cp[8], const uint8_t co[8]);
int qs_h48_esep_of(const uint8_t ep[12]);

/* The move, conjugation and class tables for parameter h (0..H48_MAX_H)
 * over t's moves (an HTM set: 18 moves); about 16 MB, 0.4 s. QS_OK,
 * QS_ERR_ARGUMENT, QS_ERR_NOMEM or QS_ERR_TABLES. */
int qs_h48_create(const qs_tables *t, int h, qs_h48 **out);
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

/* The H48 blob (BLOB_H48): a 64-byte header (magic, h, base), then two
 * bits per index, four indices per byte, the first in the low bits.
 * Value v > 0 says the distance to the goal is base + v (3: at least
 * base + 3); v = 0 says at most base, and the bound is then the larger of
 * the exact distances of the corners' class and of esep alone. */
#define H48_MAGIC 0x54383448u /* "H48T" */
#define H48_HEADER 64
#define H48_HDR_H 4
#define H48_HDR_BASE 5

/* h of a blob with a valid header, else -1. */
int qs_h48_h(const uint8_t *blob);

static inline int h48_value(const uint8_t *blob, uint64_t i)
{
    return blob[H48_HEADER + (i >> 2)] >> ((i & 3) * 2) & 3;
}

/* The lower bound an entry gives: cls and esep (the raw, unconjugated
 * edge coordinate) feed the fallback of value 0. */
static inline int h48_bound(const qs_h48 *x, const uint8_t *blob, uint64_t i,
                            int cls, int esep)
{
    int v = h48_value(blob, i);
    if (v)
        return blob[H48_HDR_BASE] + v;
    int a = x->class_dist[cls], b = x->esep_dist[esep];
    return a > b ? a : b;
}

#endif
