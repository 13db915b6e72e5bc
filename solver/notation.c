/*
 * notation.c - reading and writing move sequences, their lengths in the four
 * metrics, inversion, and metric names; the reading and printing of token
 * sequences is written once here for moves and robot steps alike
 * (qs_tokens_parse, qs_tokens_format).
 *
 * Grammar (one form only, so every sequence has one spelling):
 *   sequence := blank* [ move { blank+ move } ] blank*
 *   move     := turn | "(" turn blank+ turn ")"
 *   turn     := face [ "2" | "'" ]        face := U | R | F | D | L | B
 *   blank    := space | tab
 * A parenthesised pair turns two opposite faces at once; its faces may come
 * in either order and it is stored and printed with U, R or F first.
 * Anything else ("R3", "r", "RU", "( R L)", "(R U)") is rejected, naming the
 * offending token.
 */
#include "qs_internal.h"

#include <ctype.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

static const char face_chars[] = "URFDLB";
static const char *const suffix[3] = {"", "2", "'"};
static const char *const metric_names[QS_METRIC_COUNT] = {
    "htm", "qtm", "axht", "axqt", "robot"};

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

/* Reads one turn at *p: its face and quarter turns (1..3); on success
 * advances *p and returns 1. */
static int read_turn(const char **p, int *face, int *quarters)
{
    const char *f = strchr(face_chars, **p);
    if (!**p || !f)
        return 0;
    *face = (int)(f - face_chars);
    (*p)++;
    if (**p == '2') {
        *quarters = 2;
        (*p)++;
    } else if (**p == '\'') {
        *quarters = 3;
        (*p)++;
    } else {
        *quarters = 1;
    }
    return 1;
}

/* Reads the move spanning [p, end) (a token: see qs_tokens_parse). */
static const char *read_move(const char *p, size_t len, void *item)
{
    const char *end = p + len;
    int face[2], quarters[2], n = 1;
    if (*p != '(') {
        if (!read_turn(&p, &face[0], &quarters[0]))
            return "";
    } else {
        p++;
        if (!read_turn(&p, &face[0], &quarters[0]) || !is_blank(*p))
            return "";
        while (is_blank(*p))
            p++;
        if (!read_turn(&p, &face[1], &quarters[1]) || *p != ')')
            return "";
        p++;
        n = 2;
    }
    /* A pair of faces that are not opposite is no move. */
    int m = qs_move_compose(n, face, quarters);
    if (p != end || m < 0)
        return "";
    *(qs_move *)item = (qs_move)m;
    return NULL;
}

/* The extent of the token at p: a pair up to its closing parenthesis and
 * on to the next blank, anything else up to the next blank (an unclosed
 * pair runs to the end of the text, so that its message shows it all). */
static size_t token_len(const char *p)
{
    if (*p == '(') {
        const char *close = strchr(p, ')');
        if (close)
            return (size_t)(close - p) + 1 + strcspn(close + 1, " \t");
        return strlen(p);
    }
    return strcspn(p, " \t");
}

static void set_detail(char *detail, size_t detail_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void set_detail(char *detail, size_t detail_len, const char *fmt, ...)
{
    if (detail && detail_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, detail_len, fmt, ap);
        va_end(ap);
    }
}

int qs_tokens_parse(const char *text, void *items, int max, size_t item_size,
                    qs_token_reader read, const char *noun, char *detail,
                    size_t detail_len)
{
    int n = 0;
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!text || max < 0 || (max > 0 && !items) || !read || !noun ||
        item_size == 0 || item_size > QS_TOKEN_MAX) {
        set_detail(detail, detail_len, "invalid arguments");
        return QS_ERR_ARGUMENT;
    }
    /* Items past max are read into this and dropped: parsing on past a
     * full buffer lets a later syntax error win. */
    _Alignas(max_align_t) unsigned char scratch[QS_TOKEN_MAX];
    const char *p = text;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        size_t len = token_len(p);
        void *item = n < max ? (unsigned char *)items + (size_t)n * item_size
                             : (void *)scratch;
        const char *why = read(p, len, item);
        if (why) {
            char shown[48];
            qs_text_quote(p, len, shown, sizeof shown);
            set_detail(detail, detail_len, "bad %s \"%s\" at column %d%s%s",
                       noun, shown, (int)(p - text) + 1, *why ? ": " : "",
                       why);
            return QS_ERR_MOVE;
        }
        n++;
        p += len;
    }
    if (n > max) {
        set_detail(detail, detail_len, "%d %ss, at most %d allowed", n, noun,
                   max);
        return QS_ERR_BUFFER;
    }
    return n;
}

int qs_tokens_format(const void *items, int n, size_t item_size,
                     qs_token_writer spell, char *out, size_t out_len)
{
    size_t pos = 0;
    if (!out || out_len == 0)
        return QS_ERR_BUFFER;
    out[0] = '\0';
    if (n < 0 || (n > 0 && !items) || !spell)
        return QS_ERR_ARGUMENT;
    for (int i = 0; i < n; i++) {
        char tok[QS_TOKEN_MAX];
        int len = spell((const unsigned char *)items + (size_t)i * item_size,
                        tok);
        if (len < 0 || len >= QS_TOKEN_MAX) {
            out[0] = '\0';
            return QS_ERR_MOVE;
        }
        if (pos + (size_t)len + (i > 0) >= out_len) {
            out[0] = '\0';
            return QS_ERR_BUFFER;
        }
        if (i > 0)
            out[pos++] = ' ';
        memcpy(out + pos, tok, (size_t)len + 1);
        pos += (size_t)len;
    }
    return (int)pos;
}

int qs_moves_parse(const char *text, qs_move *moves, int max, char *detail,
                   size_t detail_len)
{
    return qs_tokens_parse(text, moves, max, sizeof *moves, read_move, "move",
                           detail, detail_len);
}

static int spell_move(const void *item, char *buf)
{
    qs_move m = *(const qs_move *)item;
    int face[2], quarters[2];
    if (m >= QS_MOVE_COUNT)
        return -1;
    if (qs_move_decompose(m, face, quarters) == 1)
        return snprintf(buf, QS_TOKEN_MAX, "%c%s", face_chars[face[0]],
                        suffix[quarters[0] - 1]);
    return snprintf(buf, QS_TOKEN_MAX, "(%c%s %c%s)", face_chars[face[0]],
                    suffix[quarters[0] - 1], face_chars[face[1]],
                    suffix[quarters[1] - 1]);
}

int qs_moves_format(const qs_move *moves, int n, char *out, size_t out_len)
{
    int rc = qs_tokens_format(moves, n, sizeof *moves, spell_move, out,
                              out_len);
    /* A value that is no move is an argument out of range here, as it
     * always was. */
    return rc == QS_ERR_MOVE ? QS_ERR_ARGUMENT : rc;
}

int qs_moves_length(const qs_move *moves, int n, qs_metric m)
{
    int total = 0;
    if (n < 0 || (n > 0 && !moves) || (unsigned)m >= QS_PLAIN_METRICS)
        return QS_ERR_ARGUMENT;
    for (int i = 0; i < n; i++) {
        int face[2], quarters[2], k, cost = 0;
        if (moves[i] >= QS_MOVE_COUNT)
            return QS_ERR_ARGUMENT;
        k = qs_move_decompose(moves[i], face, quarters);
        for (int j = 0; j < k; j++) {
            /* Quarter-turn cost of this face's part: U' is one quarter. */
            int q = quarters[j] == 2 ? 2 : 1;
            switch (m) {
            case QS_METRIC_HTM:
                cost += 1;
                break;
            case QS_METRIC_QTM:
                cost += q;
                break;
            case QS_METRIC_AXHT:
                cost = 1;
                break;
            case QS_METRIC_AXQT:
                if (q > cost)
                    cost = q;
                break;
            default:
                break;
            }
        }
        total += cost;
    }
    return total;
}

static qs_move invert_move(qs_move m)
{
    if (m < 18)
        return (qs_move)(m / 3 * 3 + 2 - m % 3);
    int axis = (m - 18) / 9, p = (m - 18) % 9 / 3, q = (m - 18) % 3;
    return (qs_move)(18 + axis * 9 + (2 - p) * 3 + (2 - q));
}

void qs_moves_invert(const qs_move *moves, int n, qs_move *out)
{
    /* Swapping from both ends keeps this correct when out == moves. */
    for (int i = 0, j = n - 1; i <= j; i++, j--) {
        qs_move a = moves[i], b = moves[j];
        out[i] = invert_move(b);
        out[j] = invert_move(a);
    }
}

const char *qs_metric_name(qs_metric m)
{
    return (unsigned)m < QS_METRIC_COUNT ? metric_names[m] : "unknown";
}

/* strcasecmp is POSIX, not C11. */
static int equal_nocase(const char *a, const char *b)
{
    for (; *a && *b; a++, b++)
        if (tolower((unsigned char)*a) != tolower((unsigned char)*b))
            return 0;
    return *a == *b;
}

int qs_metric_parse(const char *name)
{
    if (!name)
        return -1;
    for (int i = 0; i < QS_METRIC_COUNT; i++)
        if (equal_nocase(name, metric_names[i]))
            return i;
    return -1;
}
