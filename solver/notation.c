/*
 * notation.c - reading and writing move sequences, their lengths in the four
 * metrics, inversion, and metric names.
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

/* Reads one turn at *p; on success advances *p and returns 1. */
static int read_turn(const char **p, int *face, int *turn)
{
    const char *f = strchr(face_chars, **p);
    if (!**p || !f)
        return 0;
    *face = (int)(f - face_chars);
    (*p)++;
    if (**p == '2') {
        *turn = 1;
        (*p)++;
    } else if (**p == '\'') {
        *turn = 2;
        (*p)++;
    } else {
        *turn = 0;
    }
    return 1;
}

/* Reads one move starting at p (not a blank); returns the position after it
 * or NULL when the move is malformed. A move must end at a blank or the end
 * of the text. */
static const char *read_move(const char *p, qs_move *m)
{
    int f1, t1, f2, t2;
    if (*p != '(') {
        if (!read_turn(&p, &f1, &t1))
            return NULL;
        *m = (qs_move)(f1 * 3 + t1);
    } else {
        p++;
        if (!read_turn(&p, &f1, &t1) || !is_blank(*p))
            return NULL;
        while (is_blank(*p))
            p++;
        if (!read_turn(&p, &f2, &t2) || *p != ')')
            return NULL;
        p++;
        if (f1 % 3 != f2 % 3 || f1 == f2)
            return NULL;
        if (f1 > f2) {
            int tf = f1, tt = t1;
            f1 = f2;
            t1 = t2;
            f2 = tf;
            t2 = tt;
        }
        *m = (qs_move)(18 + f1 * 9 + t1 * 3 + t2);
    }
    return *p && !is_blank(*p) ? NULL : p;
}

/* The extent of the bad token at p, for error messages: a pair up to its
 * closing parenthesis, anything else up to the next blank. */
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

int qs_moves_parse(const char *text, qs_move *moves, int max, char *detail,
                   size_t detail_len)
{
    int n = 0;
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!text || max < 0 || (max > 0 && !moves)) {
        set_detail(detail, detail_len, "invalid arguments");
        return QS_ERR_ARGUMENT;
    }
    const char *p = text;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        qs_move m;
        const char *next = read_move(p, &m);
        if (!next) {
            char shown[48];
            qs_text_quote(p, token_len(p), shown, sizeof shown);
            set_detail(detail, detail_len, "bad move \"%s\" at column %d",
                       shown, (int)(p - text) + 1);
            return QS_ERR_MOVE;
        }
        /* Keep parsing past the buffer so a syntax error anywhere is
         * reported as such rather than as a full buffer. */
        if (n < max)
            moves[n] = m;
        n++;
        p = next;
    }
    if (n > max) {
        set_detail(detail, detail_len, "%d moves, at most %d allowed", n,
                   max);
        return QS_ERR_BUFFER;
    }
    return n;
}

int qs_moves_format(const qs_move *moves, int n, char *out, size_t out_len)
{
    size_t pos = 0;
    if (!out || out_len == 0)
        return QS_ERR_BUFFER;
    out[0] = '\0';
    if (n < 0 || (n > 0 && !moves))
        return QS_ERR_ARGUMENT;
    for (int i = 0; i < n; i++) {
        char tok[16];
        int face[2], quarters[2], len;
        if (moves[i] >= QS_MOVE_COUNT) {
            out[0] = '\0';
            return QS_ERR_ARGUMENT;
        }
        if (qs_move_decompose(moves[i], face, quarters) == 1)
            len = snprintf(tok, sizeof tok, "%s%c%s", i ? " " : "",
                           face_chars[face[0]], suffix[quarters[0] - 1]);
        else
            len = snprintf(tok, sizeof tok, "%s(%c%s %c%s)", i ? " " : "",
                           face_chars[face[0]], suffix[quarters[0] - 1],
                           face_chars[face[1]], suffix[quarters[1] - 1]);
        if (pos + (size_t)len >= out_len) {
            out[0] = '\0';
            return QS_ERR_BUFFER;
        }
        memcpy(out + pos, tok, (size_t)len + 1);
        pos += (size_t)len;
    }
    return (int)pos;
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
