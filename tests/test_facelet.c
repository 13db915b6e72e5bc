/*
 * test_facelet.c - tests of facelet parsing and printing (solver/facelet.c)
 * and of random cubes.
 *
 * Invalid inputs are made by editing the solved string at named stickers,
 * so each case shows the physical defect it models (a twisted corner, a
 * flipped edge, two swapped edges ...). The expected cubes come from move
 * sequences or from facelet strings published with Kociemba's solver, never
 * from the code under test.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "quadsolve.h"

static const char solved_str[] =
    "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

/* Index of a sticker named like "F3" in the URFDLB string. */
static int at(const char *name)
{
    const char *faces = "URFDLB";
    return (int)(strchr(faces, name[0]) - faces) * 9 + (name[1] - '1');
}

/* Edits s at named stickers, in order: "F3=X" paints F3 with X (any
 * character, a blank too), "R1:F3" swaps two stickers; edits are
 * separated by one space. Returns s. */
static char *edit(char *s, const char *edits)
{
    const char *p = edits;
    while (*p) {
        if (p[1] && p[2] == '=' && p[3]) {
            s[at(p)] = p[3];
            p += 4;
        } else if (p[1] && p[2] == ':' && p[3] && p[4]) {
            char t = s[at(p)];
            s[at(p)] = s[at(p + 3)];
            s[at(p + 3)] = t;
            p += 5;
        } else {
            fail_msg("bad edit at \"%s\"", p);
        }
        if (*p == ' ')
            p++;
        else if (*p)
            fail_msg("bad edit at \"%s\"", p);
    }
    return s;
}

/* The solved string with edits (edit); s holds 55 bytes. */
static char *edited(char *s, const char *edits)
{
    memcpy(s, solved_str, sizeof solved_str);
    return edit(s, edits);
}

/* Parses s expecting err; checks the cube is untouched on error and that a
 * detail message was written. Returns the detail for further checks. */
static const char *expect_error(const char *s, int err)
{
    static char detail[256];
    qs_cube c, before;
    memset(&c, 0xA5, sizeof c);
    before = c;
    detail[0] = '\0';
    int rc = qs_cube_from_facelets(s, &c, detail, sizeof detail);
    if (rc != err)
        fail_msg("\"%s\": expected %s, got %s (%s)", s, qs_errcode(err),
                 qs_errcode(rc), detail);
    assert_memory_equal(&c, &before, sizeof c);
    assert_true(strlen(detail) > 0);
    return detail;
}

static void parse_ok(const char *s, qs_cube *c)
{
    char detail[256] = "";
    int rc = qs_cube_from_facelets(s, c, detail, sizeof detail);
    if (rc != QS_OK)
        fail_msg("\"%s\": %s (%s)", s, qs_errcode(rc), detail);
}

static void cube_from_moves(const char *moves, qs_cube *c)
{
    qs_move m[QS_MAX_MOVES];
    int n = qs_moves_parse(moves, m, QS_MAX_MOVES, NULL, 0);
    assert_true(n >= 0);
    qs_cube_solved(c);
    qs_cube_apply_moves(c, m, n);
}

static void test_solved(void **state)
{
    (void)state;
    qs_cube c, s;
    char out[55];
    parse_ok(solved_str, &c);
    assert_true(qs_cube_is_solved(&c));
    qs_cube_solved(&s);
    qs_cube_to_facelets(&s, out);
    assert_string_equal(out, solved_str);
}

/* R on the solved cube, worked out by hand: the right columns of U, F, D
 * and the left column of B cycle F->U->B->D->F. */
static void test_single_turn(void **state)
{
    (void)state;
    qs_cube c, r;
    char out[55];
    const char *expect =
        "UUFUUFUUFRRRRRRRRRFFDFFDFFDDDBDDBDDBLLLLLLLLLUBBUBBUBB";
    cube_from_moves("R", &r);
    qs_cube_to_facelets(&r, out);
    assert_string_equal(out, expect);
    parse_ok(expect, &c);
    assert_true(qs_cube_equal(&c, &r));
}

static void test_superflip(void **state)
{
    (void)state;
    qs_cube parsed, moved;
    char out[55];
    const char *sf = "UBULURUFURURFRBRDRFUFLFRFDFDFDLDRDBDLULBLFLDLBUBRBLBDB";
    parse_ok(sf, &parsed);
    cube_from_moves("U R2 F B R B2 R U2 L B2 R U' D' R2 F R' L B2 U2 F2",
                    &moved);
    assert_true(qs_cube_equal(&parsed, &moved));
    for (int i = 0; i < 8; i++) {
        assert_int_equal(parsed.cp[i], i);
        assert_int_equal(parsed.co[i], 0);
    }
    for (int i = 0; i < 12; i++) {
        assert_int_equal(parsed.ep[i], i);
        assert_int_equal(parsed.eo[i], 1);
    }
    qs_cube_to_facelets(&moved, out);
    assert_string_equal(out, sf);
}

static void test_random_round_trip(void **state)
{
    (void)state;
    uint64_t rng = 12345;
    for (int i = 0; i < 2000; i++) {
        qs_cube c, back;
        char s[55], s2[55];
        qs_cube_random(&c, &rng);
        assert_int_equal(qs_cube_check(&c), QS_OK);
        qs_cube_to_facelets(&c, s);
        assert_int_equal(strlen(s), 54);
        parse_ok(s, &back);
        assert_true(qs_cube_equal(&c, &back));
        qs_cube_to_facelets(&back, s2);
        assert_string_equal(s, s2);
    }
}

/* Not a proof of uniformity, but catches a biased shuffle, a stuck parity
 * or a twist that is never drawn. */
static void test_random_spread(void **state)
{
    (void)state;
    enum { N = 24000 };
    int pos0[8] = {0}, epos0[12] = {0}, twist[3] = {0}, parity[2] = {0};
    int flip[2] = {0};
    uint64_t rng = 0x0123456789abcdefULL;
    for (int i = 0; i < N; i++) {
        qs_cube c;
        qs_cube_random(&c, &rng);
        pos0[c.cp[0]]++;
        epos0[c.ep[11]]++;
        twist[c.co[7]]++;
        flip[c.eo[11]]++;
        /* Parity via the inversion count, independently of the library. */
        int inv = 0;
        for (int a = 0; a < 8; a++)
            for (int b = a + 1; b < 8; b++)
                inv += c.cp[a] > c.cp[b];
        parity[inv & 1]++;
    }
    for (int j = 0; j < 8; j++)
        assert_in_range(pos0[j], N / 8 * 9 / 10, N / 8 * 11 / 10);
    for (int j = 0; j < 12; j++)
        assert_in_range(epos0[j], N / 12 * 85 / 100, N / 12 * 115 / 100);
    for (int j = 0; j < 3; j++)
        assert_in_range(twist[j], N / 3 * 95 / 100, N / 3 * 105 / 100);
    for (int j = 0; j < 2; j++) {
        assert_in_range(flip[j], N / 2 * 95 / 100, N / 2 * 105 / 100);
        assert_in_range(parity[j], N / 2 * 95 / 100, N / 2 * 105 / 100);
    }
}

static void test_random_zero_seed(void **state)
{
    (void)state;
    uint64_t rng = 0;
    qs_cube a, b;
    qs_cube_random(&a, &rng);
    assert_true(rng != 0);
    qs_cube_random(&b, &rng);
    assert_int_equal(qs_cube_check(&a), QS_OK);
    assert_false(qs_cube_equal(&a, &b));
}

static void test_length(void **state)
{
    (void)state;
    char s[64];
    expect_error("", QS_ERR_LENGTH);
    memcpy(s, solved_str, 53);
    s[53] = '\0';
    expect_error(s, QS_ERR_LENGTH);
    /* A trailing newline is not stripped. */
    snprintf(s, sizeof s, "%s\n", solved_str);
    const char *d = expect_error(s, QS_ERR_LENGTH);
    assert_non_null(strstr(d, "55"));
    /* Length is checked before characters. */
    snprintf(s, sizeof s, "%sX", solved_str);
    expect_error(s, QS_ERR_LENGTH);
    /* Characters are counted as a person counts them. */
    d = expect_error("\xc3\xa9\xc3\xa9\xc3\xa9", QS_ERR_LENGTH);
    assert_non_null(strstr(d, "3 characters (6 bytes)"));
}

static void test_character(void **state)
{
    (void)state;
    char s[55];
    const char *d = expect_error(edited(s, "F3=X"), QS_ERR_CHARACTER);
    assert_non_null(strstr(d, "F3"));
    assert_non_null(strstr(d, "'X'"));
    expect_error(edited(s, "U1=u"), QS_ERR_CHARACTER);
    /* Characters are checked before centres. */
    expect_error(edited(s, "U5=R B9= "), QS_ERR_CHARACTER);
}

static void test_center(void **state)
{
    (void)state;
    char s[55];
    /* colour counts stay 9 each */
    const char *d = expect_error(edited(s, "U5:R5"), QS_ERR_CENTER);
    assert_non_null(strstr(d, "U5"));
}

static void test_color_count(void **state)
{
    (void)state;
    char s[55];
    const char *d = expect_error(edited(s, "U1=R"), QS_ERR_COLOR_COUNT);
    assert_non_null(strstr(d, "8"));
}

static void test_impossible_corner(void **state)
{
    (void)state;
    char s[55];
    /* Two stickers of one corner swapped: its mirror image. */
    const char *d = expect_error(edited(s, "R1:F3"), QS_ERR_CORNER);
    assert_non_null(strstr(d, "URF"));
    /* Two stickers of one colour on one corner. */
    expect_error(edited(s, "F3:R3"), QS_ERR_CORNER);
    /* Opposite colours on one corner (U and D), counts kept. */
    expect_error(edited(s, "R1:D3"), QS_ERR_CORNER);
}

static void test_impossible_edge(void **state)
{
    (void)state;
    char s[55];
    /* Opposite colours on edge UR. */
    const char *d = expect_error(edited(s, "R2:D2"), QS_ERR_EDGE);
    assert_non_null(strstr(d, "UR"));
    /* Two U stickers on edge UR. */
    expect_error(edited(s, "R2:U8"), QS_ERR_EDGE);
}

/* Corner URF copied over DBL; two edges changed so each colour still
 * appears 9 times and no edge is impossible (UR becomes DB, UF becomes UL).
 */
static void test_dup_corner(void **state)
{
    (void)state;
    char s[55];
    const char *d = expect_error(edited(s, "D7=U B9=R L7=F U6=D R2=B F2=L"),
                                 QS_ERR_DUP_CORNER);
    assert_non_null(strstr(d, "URF"));
    assert_non_null(strstr(d, "DBL"));
}

/* Edge UR copied over DB, DF over UF and DB over DR: colour counts stay 9,
 * every edge is a real cubie, but UR and DF appear twice. */
static void test_dup_edge(void **state)
{
    (void)state;
    char s[55];
    const char *d =
        expect_error(edited(s, "D8=U B8=R U8=D R8=B"), QS_ERR_DUP_EDGE);
    assert_non_null(strstr(d, "DF"));
}

static void test_twist(void **state)
{
    (void)state;
    char s[55];
    /* Corner URF turned in place: its three stickers cycled. */
    expect_error(edited(s, "U9=F R1=U F3=R"), QS_ERR_TWIST);
    /* Twisting a corner of a scrambled cube is caught too: U9 gets F3's
     * sticker, F3 R1's and R1 U9's. */
    qs_cube c;
    cube_from_moves("R U F' L2 D B'", &c);
    qs_cube_to_facelets(&c, s);
    expect_error(edit(s, "U9:F3 F3:R1"), QS_ERR_TWIST);
}

static void test_flip(void **state)
{
    (void)state;
    char s[55];
    expect_error(edited(s, "U6:R2"), QS_ERR_FLIP);
    /* Flip is checked before parity: flip one edge and swap two others. */
    expect_error(edit(s, "U8:U4 F2:L2"), QS_ERR_FLIP);
}

static void test_parity(void **state)
{
    (void)state;
    char s[55];
    /* Edges UR and UF exchanged. */
    const char *d = expect_error(edited(s, "U6:U8 R2:F2"), QS_ERR_PARITY);
    assert_non_null(strstr(d, "odd"));
    /* Corners URF and UFL exchanged, keeping U on top. */
    expect_error(edited(s, "R1=F F3=L F1=R L3=F"), QS_ERR_PARITY);
}

/* With several defects, the earliest check in the documented order wins. */
static void test_order(void **state)
{
    (void)state;
    char s[55];
    /* Twist + flip + parity: twist. */
    expect_error(edited(s, "U9=F R1=U F3=R U6:R2 U8:U4 F2:L2"),
                 QS_ERR_TWIST);
    /* Impossible edge + impossible corner: corner. */
    expect_error(edited(s, "R2:D2 R1:F3"), QS_ERR_CORNER);
    /* Centre + colour count: centre. */
    expect_error(edited(s, "U5=R"), QS_ERR_CENTER);
}

static void test_null_detail(void **state)
{
    (void)state;
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets("UUU", &c, NULL, 0), QS_ERR_LENGTH);
    assert_int_equal(qs_cube_from_facelets(solved_str, &c, NULL, 0), QS_OK);
    char tiny[4];
    assert_int_equal(qs_cube_from_facelets("UUU", &c, tiny, sizeof tiny),
                     QS_ERR_LENGTH);
    assert_int_equal(strlen(tiny), 3);
    assert_int_equal(qs_cube_from_facelets(NULL, &c, NULL, 0),
                     QS_ERR_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solved),
        cmocka_unit_test(test_single_turn),
        cmocka_unit_test(test_superflip),
        cmocka_unit_test(test_random_round_trip),
        cmocka_unit_test(test_random_spread),
        cmocka_unit_test(test_random_zero_seed),
        cmocka_unit_test(test_length),
        cmocka_unit_test(test_character),
        cmocka_unit_test(test_center),
        cmocka_unit_test(test_color_count),
        cmocka_unit_test(test_impossible_corner),
        cmocka_unit_test(test_impossible_edge),
        cmocka_unit_test(test_dup_corner),
        cmocka_unit_test(test_dup_edge),
        cmocka_unit_test(test_twist),
        cmocka_unit_test(test_flip),
        cmocka_unit_test(test_parity),
        cmocka_unit_test(test_order),
        cmocka_unit_test(test_null_detail),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
