/*
 * test_coord.c - coordinates and symmetries (solver/coord.c, tables.c):
 * every coordinate value survives a round trip through a cube, move tables
 * agree with moving cubies, symmetry conjugation of moves and coordinates
 * agrees with conjugating cubes, the U/D edges of phase 2 join from the
 * two halves the searches track, the moves into the phase-2 group are
 * named by their masks, symmetry classes map every member onto its
 * representative, and corners carried as class and symmetry step as the
 * raw corners do.
 */
#include "testutil.h"

#include "qs_internal.h"

static qs_tables *base;

static int setup(void **state)
{
    (void)state;
    base = calloc(1, sizeof *base);
    return base == NULL || qs_tables_init_base(base, QS_METRIC_AXHT) != QS_OK;
}

static int teardown(void **state)
{
    (void)state;
    qs_tables_free_base(base);
    free(base);
    return 0;
}

static void conjugate(const qs_cube sym[48], const qs_tables *t, int s,
                 const qs_cube *x, qs_cube *out)
{
    qs_cube tmp;
    qs_cube_multiply(&sym[s], x, &tmp);
    qs_cube_multiply(&tmp, &sym[t->sym_inv[s]], out);
}

static void test_round_trips(void **state)
{
    (void)state;
    qs_cube c;
    for (int x = 0; x < N_TWIST; x++) {
        qs_cube_solved(&c);
        qs_coord_set_twist(&c, x);
        assert_int_equal(qs_coord_twist(&c), x);
        assert_int_equal(qs_cube_check(&c), QS_OK);
    }
    for (int x = 0; x < N_FLIP; x++) {
        qs_cube_solved(&c);
        qs_coord_set_flip(&c, x);
        assert_int_equal(qs_coord_flip(&c), x);
        assert_int_equal(qs_cube_check(&c), QS_OK);
    }
    static const int first[3] = {8, 0, 4};
    for (int k = 0; k < 3; k++)
        for (int x = 0; x < N_EDGE4; x++) {
            qs_cube_solved(&c);
            qs_coord_set_edge4(&c, first[k], x);
            assert_int_equal(qs_coord_edge4(&c, first[k]), x);
        }
    for (int x = 0; x < N_PERM8; x++) {
        qs_cube_solved(&c);
        qs_coord_set_corners(&c, x);
        assert_int_equal(qs_coord_corners(&c), x);
        qs_coord_set_udedges(&c, x);
        assert_int_equal(qs_coord_udedges(&c), x);
    }
    for (int x = 0; x < N_CSPLIT; x++) {
        qs_cube_solved(&c);
        qs_coord_set_csplit(&c, x);
        assert_int_equal(qs_coord_csplit(&c), x);
        assert_int_equal(qs_cube_check(&c) == QS_OK,
                         qs_perm_parity(c.cp, 8) == 0);
    }
    /* The solved cube has the coordinates the search treats as goals. */
    qs_cube_solved(&c);
    assert_int_equal(qs_coord_csplit(&c), 0);
    assert_int_equal(qs_coord_edge4(&c, 8), SLICE_SOLVED * 24);
    assert_int_equal(qs_coord_corners(&c), 0);
    assert_int_equal(qs_coord_udedges(&c), 0);
}

static void test_move_tables_match_cubies(void **state)
{
    (void)state;
    const qs_tables *t = base;
    uint64_t rng = 12345;
    for (int i = 0; i < 300; i++) {
        qs_cube c;
        qs_cube_random(&c, &rng);
        for (int m = 0; m < t->n_moves; m++) {
            qs_cube d = c;
            qs_cube_apply_move(&d, (qs_move)m);
            assert_int_equal(move_row(t, t->twist_move, qs_coord_twist(&c))[m],
                             qs_coord_twist(&d));
            assert_int_equal(move_row(t, t->flip_move, qs_coord_flip(&c))[m],
                             qs_coord_flip(&d));
            assert_int_equal(move_row(t, t->edge4_move, qs_coord_edge4(&c, 8))[m],
                             qs_coord_edge4(&d, 8));
            assert_int_equal(move_row(t, t->edge4_move, qs_coord_edge4(&c, 0))[m],
                             qs_coord_edge4(&d, 0));
            assert_int_equal(move_row(t, t->edge4_move, qs_coord_edge4(&c, 4))[m],
                             qs_coord_edge4(&d, 4));
            assert_int_equal(move_row(t, t->corners_move, qs_coord_corners(&c))[m],
                             qs_coord_corners(&d));
            assert_int_equal(t->csplit_move[qs_coord_csplit(&c)][m],
                             qs_coord_csplit(&d));
        }
    }
    /* U/D-edge moves exist only inside the phase-2 group. */
    for (int i = 0; i < 300; i++) {
        qs_cube c;
        qs_cube_solved(&c);
        for (int k = 0; k < 30; k++) {
            rng = rng * 6364136223846793005ull + 1442695040888963407ull;
            qs_cube_apply_move(&c, t->p2_move[(rng >> 33) % (uint64_t)t->n_p2]);
        }
        for (int k = 0; k < t->n_p2; k++) {
            qs_cube d = c;
            qs_cube_apply_move(&d, t->p2_move[k]);
            assert_int_equal(t->udedges_move[qs_coord_udedges(&c)][k],
                             qs_coord_udedges(&d));
        }
        /* The searches track the U and D edges apart in phase 1 and
         * join them where phase 1 ends. */
        assert_int_equal(udedges_of(t, qs_coord_edge4(&c, 0),
                                    qs_coord_edge4(&c, 4)),
                         qs_coord_udedges(&c));
    }
}

static int cube_in_phase2_group(const qs_cube *c)
{
    return qs_coord_flip(c) == 0 && qs_coord_twist(c) == 0 &&
           qs_coord_edge4(c, 8) / 24 == SLICE_SOLVED;
}

/* g1_entering_moves names exactly the moves after which a cube is in the
 * phase-2 group: on random cubes (where it is mostly none) and on cubes a
 * move or two from the group (where it is some). */
static void test_group_entering_moves(void **state)
{
    (void)state;
    const qs_tables *t = base;
    uint64_t rng = 4711;
    int entering = 0;
    for (int i = 0; i < 600; i++) {
        qs_cube c;
        if (i % 3 == 0) {
            qs_cube_random(&c, &rng);
        } else {
            qs_cube_solved(&c);
            for (int k = 0; k < 20; k++)
                qs_cube_apply_move(
                    &c, t->p2_move[test_rand(&rng) % (uint64_t)t->n_p2]);
            for (int k = 0; k < i % 3; k++)
                qs_cube_apply_move(
                    &c, (qs_move)(test_rand(&rng) % (uint64_t)t->n_moves));
        }
        int flip = qs_coord_flip(&c), twist = qs_coord_twist(&c),
            slice = qs_coord_edge4(&c, 8);
        assert_int_equal(position_in_phase2_group(flip, twist, slice),
                         cube_in_phase2_group(&c));
        uint64_t mask = g1_entering_moves(t, flip, twist, slice);
        for (int m = 0; m < t->n_moves; m++) {
            qs_cube d = c;
            qs_cube_apply_move(&d, (qs_move)m);
            assert_int_equal((int)(mask >> m & 1), cube_in_phase2_group(&d));
            entering += cube_in_phase2_group(&d);
        }
        assert_true((mask >> t->n_moves) == 0);
    }
    assert_true(entering > 1000);
}

/* The ranks from cubie places (the optimal search's inverse coordinates)
 * give the coordinates' own values on random cubes. */
static void test_cubie_ranks(void **state)
{
    (void)state;
    const qs_tables *t = base;
    uint64_t rng = 4242;
    for (int i = 0; i < 2000; i++) {
        qs_cube c;
        qs_cube_random(&c, &rng);
        unsigned emask = 0, cmask = 0, key = 0;
        uint8_t four[4];
        for (int pos = 0, k = 0; pos < 12; pos++)
            if (c.ep[pos] >= 8) {
                emask |= 1u << pos;
                four[k] = c.ep[pos];
                key |= (unsigned)(c.ep[pos] - 8) << (2 * k++);
            }
        for (int pos = 0; pos < 8; pos++)
            cmask |= (unsigned)(c.cp[pos] < 4) << pos;
        int slice = qs_coord_edge4(&c, 8);
        assert_int_equal(t->comb_of[emask], slice / 24);
        assert_int_equal(t->comb_of[emask] * 24 + t->rank4[key], slice);
        assert_int_equal(t->csplit_of[cmask], qs_coord_csplit(&c));
        for (int k = 0; k < 4; k++)
            assert_int_equal(c.ep[t->gather[emask][k]], four[k]);
        for (int k = 4; k < 16; k++)
            assert_int_equal(t->gather[emask][k], 0x80);
    }
}

static void test_symmetries(void **state)
{
    (void)state;
    const qs_tables *t = base;
    qs_cube sym[48];
    qs_sym_cubes(sym);
    for (int s = 0; s < 48; s++) {
        qs_cube p;
        qs_cube_multiply(&sym[s], &sym[t->sym_inv[s]], &p);
        assert_true(qs_cube_is_solved(&p));
    }
    /* S (c m) S^-1 = (S c S^-1)(S m S^-1) with S m S^-1 = move_conj. */
    uint64_t rng = 99;
    for (int i = 0; i < 50; i++) {
        qs_cube c;
        qs_cube_random(&c, &rng);
        for (int s = 0; s < 48; s++)
            for (int m = 0; m < QS_MOVE_COUNT; m++) {
                qs_cube cm = c, left, right;
                qs_cube_apply_move(&cm, (qs_move)m);
                conjugate(sym, t, s, &cm, &left);
                conjugate(sym, t, s, &c, &right);
                qs_cube_apply_move(&right, t->move_conj[m][s]);
                assert_true(qs_cube_equal(&left, &right));
            }
    }
    /* The 16 symmetries that keep the U-D axis keep the phase-2 group. */
    for (int s = 0; s < N_SYM; s++)
        for (int m = 0; m < QS_MOVE_COUNT; m++)
            assert_int_equal(t->g1_moves >> m & 1,
                             t->g1_moves >> t->move_conj[m][s] & 1);
}

static void test_symmetry_classes(void **state)
{
    (void)state;
    const qs_tables *t = base;
    qs_cube sym[48];
    qs_sym_cubes(sym);
    uint64_t rng = 7;
    for (int i = 0; i < 20000; i++) {
        qs_cube c, d;
        qs_cube_random(&c, &rng);
        int fs = qs_coord_edge4(&c, 8) / 24 * N_FLIP + qs_coord_flip(&c);
        int s = t->fs_sym[fs];
        conjugate(sym, t, s, &c, &d);
        /* S c S^-1 has the representative's flip and slice, and its twist
         * is what twist_conj predicts. */
        assert_int_equal(qs_coord_edge4(&d, 8) / 24 * N_FLIP + qs_coord_flip(&d),
                         (int)t->fs_rep[t->fs_class[fs]]);
        assert_int_equal(qs_coord_twist(&d), t->twist_conj[qs_coord_twist(&c)][s]);
        assert_int_equal(t->fs_packed[fs], (uint32_t)t->fs_class[fs] << 4 | s);

        int corners = qs_coord_corners(&c);
        s = t->corner_sym[corners];
        conjugate(sym, t, s, &c, &d);
        assert_int_equal(qs_coord_corners(&d),
                         t->corner_rep[t->corner_class[corners]]);
        /* csplit follows every symmetry that keeps the U-D axis */
        for (s = 0; s < N_SYM; s++) {
            conjugate(sym, t, s, &c, &d);
            assert_int_equal(qs_coord_csplit(&d),
                             t->csplit_conj[qs_coord_csplit(&c)][s]);
        }
    }
    for (int x = 0; x < N_PERM8; x += 7) {
        qs_cube c, d;
        qs_cube_solved(&c);
        qs_coord_set_udedges(&c, x);
        for (int s = 0; s < N_SYM; s++) {
            conjugate(sym, t, s, &c, &d);
            assert_int_equal(qs_coord_udedges(&d), t->udedges_conj[x][s]);
        }
    }
}

/* Corners carried as class and symmetry step as the raw coordinate does,
 * for every corner permutation and move, and name the raw corners back. */
static void test_corner_class_steps(void **state)
{
    (void)state;
    const qs_tables *t = base;
    qs_cube sym[48];
    qs_sym_cubes(sym);
    for (int a = 0; a < N_SYM; a++)
        for (int b = 0; b < N_SYM; b++) {
            qs_cube p;
            qs_cube_multiply(&sym[a], &sym[b], &p);
            assert_true(qs_cube_equal(&p, &sym[t->sym_mult[a][b]]));
        }
    for (int x = 0; x < N_PERM8; x++) {
        int cs = corner_cs(t, x);
        assert_int_equal(t->corner_of_cs[cs], x);
        for (int m = 0; m < t->n_moves; m++) {
            int y = move_row(t, t->corners_move, x)[m];
            int cs2 = corner_cs_step(t, cs, m);
            assert_int_equal(t->corner_of_cs[cs2], y);
            assert_int_equal(cs2 >> 4, t->corner_class[y]);
        }
    }
    /* every symmetry of a class names a member, and S x S^-1 is the
     * representative for it (also where the class is symmetric and
     * corner_sym names another) */
    for (int k = 0; k < N_CORNER_CLASS; k++)
        for (int s = 0; s < N_SYM; s++) {
            qs_cube c, d;
            qs_cube_solved(&c);
            qs_coord_set_corners(&c, t->corner_of_cs[k << 4 | s]);
            assert_int_equal(t->corner_class[qs_coord_corners(&c)], k);
            conjugate(sym, t, s, &c, &d);
            assert_int_equal(qs_coord_corners(&d), t->corner_rep[k]);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_round_trips),
        cmocka_unit_test(test_move_tables_match_cubies),
        cmocka_unit_test(test_group_entering_moves),
        cmocka_unit_test(test_cubie_ranks),
        cmocka_unit_test(test_symmetries),
        cmocka_unit_test(test_symmetry_classes),
        cmocka_unit_test(test_corner_class_steps),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
