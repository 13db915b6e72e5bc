/*
 * test_cube.c - tests of the cubie model's move algebra (solver/cube.c)
 * together with move inversion, and a parse check of the shared benchmark
 * scrambles.
 *
 * The algebraic laws (a quarter turn has order 4, a move times its inverse
 * is the identity, a pair is its two turns, c^-1 c = 1) hold whatever the
 * tables inside cube.c say, so they test the code against group theory
 * rather than against its own output.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "quadsolve.h"
#include "qs_internal.h"
#include "testutil.h"

static void test_quarter_turn_order_four(void **state)
{
    (void)state;
    for (int face = 0; face < 6; face++) {
        qs_cube c;
        qs_cube_solved(&c);
        for (int k = 1; k <= 4; k++) {
            qs_cube_apply_move(&c, (qs_move)(face * 3));
            /* Not the identity before the fourth turn. */
            assert_int_equal(qs_cube_is_solved(&c), k == 4);
        }
        /* X2 is X X and X' is X X X. */
        qs_cube twice, half, thrice, inv;
        qs_cube_solved(&twice);
        qs_cube_apply_move(&twice, (qs_move)(face * 3));
        qs_cube_apply_move(&twice, (qs_move)(face * 3));
        qs_cube_solved(&half);
        qs_cube_apply_move(&half, (qs_move)(face * 3 + 1));
        assert_true(qs_cube_equal(&twice, &half));
        thrice = twice;
        qs_cube_apply_move(&thrice, (qs_move)(face * 3));
        qs_cube_solved(&inv);
        qs_cube_apply_move(&inv, (qs_move)(face * 3 + 2));
        assert_true(qs_cube_equal(&thrice, &inv));
    }
}

static void test_move_then_inverse(void **state)
{
    (void)state;
    uint64_t rng = 99;
    for (int m = 0; m < QS_MOVE_COUNT; m++) {
        qs_move mv = (qs_move)m, inv;
        qs_moves_invert(&mv, 1, &inv);
        qs_cube c;
        qs_cube_solved(&c);
        qs_cube_apply_move(&c, mv);
        assert_false(qs_cube_is_solved(&c));
        assert_int_equal(qs_cube_check(&c), QS_OK);
        qs_cube_apply_move(&c, inv);
        assert_true(qs_cube_is_solved(&c));
        /* Also from a random start. */
        qs_cube r, r2;
        qs_cube_random(&r, &rng);
        r2 = r;
        qs_cube_apply_move(&r2, mv);
        qs_cube_apply_move(&r2, inv);
        assert_true(qs_cube_equal(&r, &r2));
    }
}

static void test_pair_is_two_turns(void **state)
{
    (void)state;
    uint64_t rng = 7;
    for (int axis = 0; axis < 3; axis++)
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) {
                qs_move pair = (qs_move)(18 + axis * 9 + p * 3 + q);
                qs_move x = (qs_move)(axis * 3 + p);
                qs_move y = (qs_move)((axis + 3) * 3 + q);
                qs_cube a, b, c;
                qs_cube_random(&a, &rng);
                b = c = a;
                qs_cube_apply_move(&a, pair);
                qs_cube_apply_move(&b, x);
                qs_cube_apply_move(&b, y);
                qs_cube_apply_move(&c, y);
                qs_cube_apply_move(&c, x);
                assert_true(qs_cube_equal(&a, &b));
                /* Opposite faces commute. */
                assert_true(qs_cube_equal(&a, &c));
            }
}

/* A move's faces and quarter turns, and back: every move, a pair's faces
 * in either order, and what no move does. */
static void test_move_compose(void **state)
{
    (void)state;
    for (int m = 0; m < QS_MOVE_COUNT; m++) {
        int face[2], quarters[2];
        int k = qs_move_decompose((qs_move)m, face, quarters);
        assert_int_equal(k, m < 18 ? 1 : 2);
        for (int i = 0; i < k; i++)
            assert_true(quarters[i] >= 1 && quarters[i] <= 3);
        assert_int_equal(qs_move_compose(k, face, quarters), m);
        if (k == 2) {
            assert_true(face[0] < 3 && face[1] == face[0] + 3);
            int rf[2] = {face[1], face[0]}, rq[2] = {quarters[1], quarters[0]};
            assert_int_equal(qs_move_compose(2, rf, rq), m);
        }
    }
    int r[2] = {1, 0}, half[2] = {2, 1};
    assert_int_equal(qs_move_compose(1, r, half), 4); /* R2 */
    int adjacent[2] = {0, 1}, same[2] = {1, 1}, q11[2] = {1, 1};
    assert_int_equal(qs_move_compose(2, adjacent, q11), QS_ERR_ARGUMENT);
    assert_int_equal(qs_move_compose(2, same, q11), QS_ERR_ARGUMENT);
    int no_face[2] = {6, 0}, q4[2] = {4, 1}, q0[2] = {0, 1};
    assert_int_equal(qs_move_compose(1, no_face, q11), QS_ERR_ARGUMENT);
    assert_int_equal(qs_move_compose(1, r, q4), QS_ERR_ARGUMENT);
    assert_int_equal(qs_move_compose(1, r, q0), QS_ERR_ARGUMENT);
    assert_int_equal(qs_move_compose(3, adjacent, q11), QS_ERR_ARGUMENT);
}

static void test_inverse_random(void **state)
{
    (void)state;
    uint64_t rng = 2024;
    for (int i = 0; i < 1000; i++) {
        qs_cube c, inv, prod;
        qs_cube_random(&c, &rng);
        qs_cube_inverse(&c, &inv);
        qs_cube_multiply(&inv, &c, &prod);
        assert_true(qs_cube_is_solved(&prod));
        qs_cube_multiply(&c, &inv, &prod);
        assert_true(qs_cube_is_solved(&prod));
        assert_int_equal(qs_cube_check(&inv), QS_OK);
    }
}

/* The partial products the start-up tables are built with: an edges-only
 * product or conjugate has the whole one's edges and the first factor's
 * corners, a corners-only conjugate the whole one's corners and the
 * symmetry's edges, also for the mirror symmetries. */
static void test_partial_products(void **state)
{
    (void)state;
    qs_cube sym[48];
    qs_sym_cubes(sym);
    uint64_t rng = 77;
    for (int i = 0; i < 200; i++) {
        qs_cube a, b, full, edges;
        qs_cube_random(&a, &rng);
        qs_cube_random(&b, &rng);
        qs_cube_multiply(&a, &b, &full);
        qs_cube_multiply_edges(&a, &b, &edges);
        assert_memory_equal(edges.ep, full.ep, 12);
        assert_memory_equal(edges.eo, full.eo, 12);
        assert_memory_equal(edges.cp, a.cp, 8);
        assert_memory_equal(edges.co, a.co, 8);
        for (int s = 0; s < 48; s++) {
            qs_cube inv, tmp;
            qs_cube_inverse(&sym[s], &inv);
            qs_cube_multiply(&sym[s], &a, &tmp);
            qs_cube_multiply(&tmp, &inv, &full);
            qs_cube_conjugate_edges(&sym[s], &inv, &a, &edges);
            assert_memory_equal(edges.ep, full.ep, 12);
            assert_memory_equal(edges.eo, full.eo, 12);
            assert_memory_equal(edges.cp, sym[s].cp, 8);
            qs_cube corners;
            qs_cube_conjugate_corners(&sym[s], &inv, &a, &corners);
            assert_memory_equal(corners.cp, full.cp, 8);
            assert_memory_equal(corners.co, full.co, 8);
            assert_memory_equal(corners.ep, sym[s].ep, 12);
        }
    }
}

static void test_check_random(void **state)
{
    (void)state;
    uint64_t rng = 1;
    for (int i = 0; i < 5000; i++) {
        qs_cube c;
        qs_cube_random(&c, &rng);
        assert_int_equal(qs_cube_check(&c), QS_OK);
    }
}

static void test_check_defects(void **state)
{
    (void)state;
    qs_cube c;
    qs_cube_solved(&c);
    c.co[0] = 1;
    assert_int_equal(qs_cube_check(&c), QS_ERR_TWIST);
    qs_cube_solved(&c);
    c.eo[3] = 1;
    assert_int_equal(qs_cube_check(&c), QS_ERR_FLIP);
    qs_cube_solved(&c);
    c.ep[0] = 1;
    c.ep[1] = 0;
    assert_int_equal(qs_cube_check(&c), QS_ERR_PARITY);
    qs_cube_solved(&c);
    c.cp[0] = 1;
    assert_int_equal(qs_cube_check(&c), QS_ERR_DUP_CORNER);
    qs_cube_solved(&c);
    c.ep[0] = 1;
    assert_int_equal(qs_cube_check(&c), QS_ERR_DUP_EDGE);
}

static void test_sequence_inverse(void **state)
{
    (void)state;
    uint64_t rng = 555;
    for (int trial = 0; trial < 200; trial++) {
        qs_move seq[QS_MAX_MOVES], inv[QS_MAX_MOVES];
        int n = (int)(rng % QS_MAX_MOVES) + 1;
        qs_cube c, start;
        qs_cube_random(&start, &rng);
        for (int i = 0; i < n; i++) {
            qs_cube_random(&c, &rng); /* advances rng */
            seq[i] = (qs_move)(rng % QS_MOVE_COUNT);
        }
        c = start;
        qs_cube_apply_moves(&c, seq, n);
        qs_moves_invert(seq, n, inv);
        qs_cube_apply_moves(&c, inv, n);
        assert_true(qs_cube_equal(&c, &start));
    }
}

/* A known identity: the sexy move (R U R' U') has order 6. */
static void test_known_order(void **state)
{
    (void)state;
    qs_move m[4];
    qs_cube c;
    assert_int_equal(qs_moves_parse("R U R' U'", m, 4, NULL, 0), 4);
    qs_cube_solved(&c);
    for (int k = 1; k <= 6; k++) {
        qs_cube_apply_moves(&c, m, 4);
        assert_int_equal(qs_cube_is_solved(&c), k == 6);
    }
}

static void test_bench_file_parses(void **state)
{
    (void)state;
    /* The reader refuses a line of the wrong length; a line of the right
     * length that is not a cube fails here, with the parser's reason. */
    static char lines[200][55];
    assert_int_equal(test_read_bench("random-1k.txt", lines, 200), 200);
    for (int i = 0; i < 200; i++) {
        qs_cube c;
        char back[55], detail[256];
        int rc = qs_cube_from_facelets(lines[i], &c, detail, sizeof detail);
        if (rc != QS_OK)
            fail_msg("random-1k.txt:%d: %s: %s", i + 1, qs_errcode(rc),
                     detail);
        qs_cube_to_facelets(&c, back);
        assert_string_equal(back, lines[i]);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_quarter_turn_order_four),
        cmocka_unit_test(test_move_then_inverse),
        cmocka_unit_test(test_pair_is_two_turns),
        cmocka_unit_test(test_move_compose),
        cmocka_unit_test(test_inverse_random),
        cmocka_unit_test(test_partial_products),
        cmocka_unit_test(test_check_random),
        cmocka_unit_test(test_check_defects),
        cmocka_unit_test(test_sequence_inverse),
        cmocka_unit_test(test_known_order),
        cmocka_unit_test(test_bench_file_parses),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
