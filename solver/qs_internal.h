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

#endif
