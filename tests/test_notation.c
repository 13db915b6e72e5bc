/*
 * test_notation.c - tests of move parsing, printing, lengths, inversion and
 * metric names (solver/notation.c).
 *
 * Expected spellings and move numbers are built here from the numbering
 * documented in quadsolve.h, and expected lengths are counted by hand.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "quadsolve.h"

static const char *const suffixes[3] = {"", "2", "'"};

/* The documented spelling of move m. */
static void spelling(int m, char *buf, size_t len)
{
    const char *faces = "URFDLB";
    if (m < 18) {
        snprintf(buf, len, "%c%s", faces[m / 3], suffixes[m % 3]);
    } else {
        int axis = (m - 18) / 9, p = (m - 18) % 9 / 3, q = (m - 18) % 3;
        snprintf(buf, len, "(%c%s %c%s)", faces[axis], suffixes[p],
                 faces[axis + 3], suffixes[q]);
    }
}

static int parse(const char *text, qs_move *m, int max)
{
    char detail[128];
    return qs_moves_parse(text, m, max, detail, sizeof detail);
}

static void test_all_moves_round_trip(void **state)
{
    (void)state;
    for (int m = 0; m < QS_MOVE_COUNT; m++) {
        char expect[16], out[32];
        qs_move one = (qs_move)m, back[2];
        spelling(m, expect, sizeof expect);
        assert_int_equal(qs_moves_format(&one, 1, out, sizeof out),
                         (int)strlen(expect));
        assert_string_equal(out, expect);
        assert_int_equal(parse(expect, back, 2), 1);
        assert_int_equal(back[0], m);
    }
}

static void test_sequence_round_trip(void **state)
{
    (void)state;
    qs_move all[QS_MOVE_COUNT], back[QS_MOVE_COUNT];
    char text[512], again[512];
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        all[m] = (qs_move)(QS_MOVE_COUNT - 1 - m);
    int len = qs_moves_format(all, QS_MOVE_COUNT, text, sizeof text);
    assert_true(len > 0);
    assert_int_equal(len, (int)strlen(text));
    assert_int_equal(parse(text, back, QS_MOVE_COUNT), QS_MOVE_COUNT);
    assert_memory_equal(all, back, sizeof all);
    qs_moves_format(back, QS_MOVE_COUNT, again, sizeof again);
    assert_string_equal(text, again);
}

static void test_pairs_either_order(void **state)
{
    (void)state;
    const char *faces = "URFDLB";
    for (int axis = 0; axis < 3; axis++)
        for (int p = 0; p < 3; p++)
            for (int q = 0; q < 3; q++) {
                char text[16], out[16];
                qs_move m[2];
                snprintf(text, sizeof text, "(%c%s %c%s)", faces[axis + 3],
                         suffixes[q], faces[axis], suffixes[p]);
                assert_int_equal(parse(text, m, 2), 1);
                assert_int_equal(m[0], 18 + axis * 9 + p * 3 + q);
                qs_moves_format(m, 1, out, sizeof out);
                assert_int_equal(out[1], faces[axis]);
            }
}

static void test_whitespace(void **state)
{
    (void)state;
    qs_move m[8];
    assert_int_equal(parse("", m, 8), 0);
    assert_int_equal(parse("   \t ", m, 8), 0);
    assert_int_equal(parse("  R\t\tU2  (L' R)  ", m, 8), 3);
    assert_int_equal(m[0], 3);      /* R */
    assert_int_equal(m[1], 1);      /* U2 */
    assert_int_equal(m[2], 18 + 9 + 2); /* (R L'): axis 1, p 0, q 2 */
    m[2] = 0;
    assert_int_equal(parse("(R\t L')", m, 8), 1);
    assert_int_equal(m[0], 18 + 9 + 2);
    /* Empty sequence prints as "". */
    char out[4] = "xyz";
    assert_int_equal(qs_moves_format(m, 0, out, sizeof out), 0);
    assert_string_equal(out, "");
}

static void test_bad_tokens(void **state)
{
    (void)state;
    static const struct {
        const char *text, *token;
    } bad[] = {
        {"R3", "R3"},           {"R1", "R1"},
        {"r", "r"},             {"R2'", "R2'"},
        {"R'2", "R'2"},         {"RU", "RU"},
        {"U R x", "x"},         {"(R U)", "(R U)"},
        {"(R R)", "(R R)"},     {"(R L", "(R L"},
        {"( R L)", "( R L)"},   {"(R L )", "(R L )"},
        {"(RL)", "(RL)"},       {"(R L)U", "(R L)U"},
        {"()", "()"},           {"(R)", "(R)"},
        {"(R L D)", "(R L D)"}, {"R\nU", "R\\x0aU"},
        {"U M", "M"},           {"F (B' F)2", "(B' F)2"},
        {"R,", "R,"},           {"R U'' F", "U''"},
        /* Control and non-ASCII bytes are quoted, never echoed raw. */
        {"R \x1b[2J", "\\x1b[2J"}, {"R \xc3\xa9", "\\xc3\\xa9"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        qs_move m[8];
        char detail[128] = "";
        int rc = qs_moves_parse(bad[i].text, m, 8, detail, sizeof detail);
        if (rc != QS_ERR_MOVE)
            fail_msg("\"%s\": expected MOVE, got %d", bad[i].text, rc);
        if (!strstr(detail, bad[i].token))
            fail_msg("\"%s\": detail \"%s\" does not name \"%s\"",
                     bad[i].text, detail, bad[i].token);
    }
}

static void test_parse_buffer(void **state)
{
    (void)state;
    qs_move m[4];
    char detail[128];
    memset(m, 0xEE, sizeof m);
    assert_int_equal(parse("R U F", m, 3), 3);
    assert_int_equal(parse("R U F D", m, 3), QS_ERR_BUFFER);
    /* Nothing is written past max. */
    assert_int_equal(m[3], 0xEE);
    assert_int_equal(qs_moves_parse("R", NULL, 0, detail, sizeof detail),
                     QS_ERR_BUFFER);
    assert_int_equal(qs_moves_parse("", NULL, 0, detail, sizeof detail), 0);
    /* A syntax error past the limit is still a syntax error. */
    assert_int_equal(parse("R U F D Q", m, 3), QS_ERR_MOVE);
}

static void test_format_buffer(void **state)
{
    (void)state;
    qs_move m[3] = {3, 18 + 9 + 2, 17}; /* R (R L') B' */
    const char *expect = "R (R L') B'";
    char out[32];
    int len = (int)strlen(expect);
    assert_int_equal(qs_moves_format(m, 3, out, (size_t)len + 1), len);
    assert_string_equal(out, expect);
    assert_int_equal(qs_moves_format(m, 3, out, (size_t)len), QS_ERR_BUFFER);
    assert_int_equal(qs_moves_format(m, 3, out, 0), QS_ERR_BUFFER);
    assert_int_equal(qs_moves_format(m, 1, out, 1), QS_ERR_BUFFER);
    assert_int_equal(qs_moves_format(m, 1, out, 2), 1);
    qs_move badm = QS_MOVE_COUNT;
    assert_int_equal(qs_moves_format(&badm, 1, out, sizeof out),
                     QS_ERR_ARGUMENT);
}

/* The token mechanism moves and robot steps share, on tokens of its own:
 * single digits, "(" pairs running to their ")" with blanks inside. */
static const char *read_digit(const char *token, size_t len, void *item)
{
    if (len == 1 && token[0] >= '0' && token[0] <= '9') {
        *(int *)item = token[0] - '0';
        return NULL;
    }
    if (token[0] == '(' && token[len - 1] == ')') {
        *(int *)item = -(int)len;
        return NULL;
    }
    return "not a digit";
}

static int spell_digit(const void *item, char *buf)
{
    int d = *(const int *)item;
    return d >= 0 && d <= 9 ? snprintf(buf, QS_TOKEN_MAX, "%d", d) : -1;
}

static void test_tokens(void **state)
{
    (void)state;
    int v[4];
    char detail[128];
    assert_int_equal(qs_tokens_parse(" 1\t(2  3) 4 ", v, 4, sizeof *v,
                                     read_digit, "digit", detail,
                                     sizeof detail),
                     3);
    assert_int_equal(v[0], 1);
    assert_int_equal(v[1], -(int)strlen("(2  3)"));
    assert_int_equal(v[2], 4);
    assert_string_equal(detail, "");
    assert_int_equal(qs_tokens_parse("1 2 x3", v, 4, sizeof *v, read_digit,
                                     "digit", detail, sizeof detail),
                     QS_ERR_MOVE);
    assert_string_equal(detail, "bad digit \"x3\" at column 5: not a digit");
    /* Past a full buffer a bad token is still what is reported, and
     * nothing is written past max. */
    memset(v, 0x55, sizeof v);
    assert_int_equal(qs_tokens_parse("1 2 3 x", v, 2, sizeof *v, read_digit,
                                     "digit", detail, sizeof detail),
                     QS_ERR_MOVE);
    assert_int_equal(qs_tokens_parse("1 2 3 4", v, 2, sizeof *v, read_digit,
                                     "digit", detail, sizeof detail),
                     QS_ERR_BUFFER);
    assert_string_equal(detail, "4 digits, at most 2 allowed");
    assert_int_equal(v[2], 0x55555555);
    assert_int_equal(qs_tokens_parse("1", NULL, 1, sizeof *v, read_digit,
                                     "digit", detail, sizeof detail),
                     QS_ERR_ARGUMENT);
    assert_int_equal(qs_tokens_parse("1", v, 1, sizeof *v, NULL, "digit",
                                     detail, sizeof detail),
                     QS_ERR_ARGUMENT);

    char out[8];
    int d[3] = {7, 0, 12};
    assert_int_equal(qs_tokens_format(d, 2, sizeof *d, spell_digit, out,
                                      sizeof out),
                     3);
    assert_string_equal(out, "7 0");
    assert_int_equal(qs_tokens_format(d, 3, sizeof *d, spell_digit, out,
                                      sizeof out),
                     QS_ERR_MOVE);
    assert_string_equal(out, "");
    assert_int_equal(qs_tokens_format(d, 2, sizeof *d, spell_digit, out, 3),
                     QS_ERR_BUFFER);
    assert_string_equal(out, "");
    assert_int_equal(qs_tokens_format(NULL, 1, sizeof *d, spell_digit, out,
                                      sizeof out),
                     QS_ERR_ARGUMENT);
}

static void test_lengths(void **state)
{
    (void)state;
    static const struct {
        const char *text;
        int htm, qtm, axht, axqt;
    } cases[] = {
        {"", 0, 0, 0, 0},
        {"R", 1, 1, 1, 1},
        {"R'", 1, 1, 1, 1},
        {"R2", 1, 2, 1, 2},
        {"(U D)", 2, 2, 1, 1},
        {"(U D')", 2, 2, 1, 1},
        {"(U2 D)", 2, 3, 1, 2},
        {"(U D2)", 2, 3, 1, 2},
        {"(F2 B2)", 2, 4, 1, 2},
        /* 1+1+1+2+2 htm; 1+2+1+2+4 qtm; 5 axht; 1+2+1+1+2 axqt */
        {"R U2 F' (L R') (B2 F2)", 7, 10, 5, 7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        qs_move m[16];
        int n = parse(cases[i].text, m, 16);
        assert_true(n >= 0);
        assert_int_equal(qs_moves_length(m, n, QS_METRIC_HTM), cases[i].htm);
        assert_int_equal(qs_moves_length(m, n, QS_METRIC_QTM), cases[i].qtm);
        assert_int_equal(qs_moves_length(m, n, QS_METRIC_AXHT),
                         cases[i].axht);
        assert_int_equal(qs_moves_length(m, n, QS_METRIC_AXQT),
                         cases[i].axqt);
    }
}

static void test_invert(void **state)
{
    (void)state;
    qs_move m[8], inv[8], expect[8];
    char out[64];
    int n = parse("R U2 F' (U D') (R2 L')", m, 8);
    assert_int_equal(n, 5);
    qs_moves_invert(m, n, inv);
    qs_moves_format(inv, n, out, sizeof out);
    assert_string_equal(out, "(R2 L) (U' D) F U2 R'");
    /* In place gives the same result. */
    qs_moves_invert(m, n, m);
    assert_memory_equal(m, inv, (size_t)n);
    /* Odd and even lengths, and twice is the identity. */
    n = parse("R U F", expect, 8);
    qs_moves_invert(expect, n, inv);
    qs_moves_invert(inv, n, m);
    assert_memory_equal(m, expect, (size_t)n);
    qs_moves_invert(expect, 0, inv);
}

static void test_metric_names(void **state)
{
    (void)state;
    static const char *names[QS_METRIC_COUNT] = {"htm", "qtm", "axht",
                                                 "axqt", "robot"};
    for (int i = 0; i < QS_METRIC_COUNT; i++) {
        assert_string_equal(qs_metric_name((qs_metric)i), names[i]);
        assert_int_equal(qs_metric_parse(names[i]), i);
    }
    assert_int_equal(qs_metric_parse("HTM"), QS_METRIC_HTM);
    assert_int_equal(qs_metric_parse("AxQt"), QS_METRIC_AXQT);
    /* A robot length depends on the execution, not on the moves alone. */
    qs_move r = 3;
    assert_int_equal(qs_moves_length(&r, 1, QS_METRIC_ROBOT), QS_ERR_ARGUMENT);
    assert_int_equal(qs_metric_parse("ht"), -1);
    assert_int_equal(qs_metric_parse("htmx"), -1);
    assert_int_equal(qs_metric_parse(""), -1);
    assert_int_equal(qs_metric_parse(NULL), -1);
}

static void test_error_names(void **state)
{
    (void)state;
    static const char *ids[] = {
        "OK",        "LENGTH",   "CHARACTER", "CENTER",   "COLOR_COUNT",
        "CORNER",    "EDGE",     "DUP_CORNER", "DUP_EDGE", "TWIST",
        "FLIP",      "PARITY",   "MOVE",      "ARGUMENT", "NOMEM",
        "CANCELLED", "TIMEOUT",  "NOT_FOUND", "TABLES",   "THREAD",
        "BUFFER",
    };
    for (int i = 0; i < (int)(sizeof ids / sizeof ids[0]); i++) {
        assert_string_equal(qs_errcode(-i), ids[i]);
        const char *msg = qs_strerror(-i);
        assert_non_null(msg);
        assert_true(strlen(msg) > 0);
        /* Each message is distinct. */
        for (int j = 0; j < i; j++)
            assert_string_not_equal(msg, qs_strerror(-j));
    }
    assert_string_equal(qs_errcode(QS_ERR_PARITY), "PARITY");
    assert_string_equal(qs_errcode(-21), "UNKNOWN");
    assert_string_equal(qs_errcode(5), "UNKNOWN");
    assert_non_null(qs_strerror(-999));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_all_moves_round_trip),
        cmocka_unit_test(test_sequence_round_trip),
        cmocka_unit_test(test_pairs_either_order),
        cmocka_unit_test(test_whitespace),
        cmocka_unit_test(test_bad_tokens),
        cmocka_unit_test(test_parse_buffer),
        cmocka_unit_test(test_format_buffer),
        cmocka_unit_test(test_tokens),
        cmocka_unit_test(test_lengths),
        cmocka_unit_test(test_invert),
        cmocka_unit_test(test_metric_names),
        cmocka_unit_test(test_error_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
