/*
 * errors.c - messages and stable identifiers for the qs_error codes, and
 * the handling of outside text that every error message relies on:
 * quoting it, checking that it is UTF-8, finding escaped NULs in JSON.
 *
 * The identifiers are part of the CLI's and daemon's output formats, so
 * they never change once published; the messages may be reworded.
 */
#include "quadsolve.h"

#include <string.h>

struct error_text {
    int code;
    const char *id;
    const char *message;
};

static const struct error_text errors[] = {
    {QS_OK, "OK", "success"},
    {QS_ERR_LENGTH, "LENGTH", "facelet string is not 54 characters long"},
    {QS_ERR_CHARACTER, "CHARACTER",
     "facelet string contains a character other than U R F D L B"},
    {QS_ERR_CENTER, "CENTER",
     "centre facelets are not U R F D L B in face order"},
    {QS_ERR_COLOR_COUNT, "COLOR_COUNT", "a colour does not appear 9 times"},
    {QS_ERR_CORNER, "CORNER", "a corner has colours no corner cubie has"},
    {QS_ERR_EDGE, "EDGE", "an edge has colours no edge cubie has"},
    {QS_ERR_DUP_CORNER, "DUP_CORNER", "the same corner cubie appears twice"},
    {QS_ERR_DUP_EDGE, "DUP_EDGE", "the same edge cubie appears twice"},
    {QS_ERR_TWIST, "TWIST", "a corner is twisted (twists do not sum to 0)"},
    {QS_ERR_FLIP, "FLIP", "an edge is flipped (flips do not sum to 0)"},
    {QS_ERR_PARITY, "PARITY",
     "corner and edge permutation parities differ (two pieces swapped)"},
    {QS_ERR_MOVE, "MOVE", "move sequence does not parse"},
    {QS_ERR_ARGUMENT, "ARGUMENT", "argument out of range"},
    {QS_ERR_NOMEM, "NOMEM", "out of memory"},
    {QS_ERR_CANCELLED, "CANCELLED", "search cancelled"},
    {QS_ERR_TIMEOUT, "TIMEOUT", "no solution found within the time limit"},
    {QS_ERR_NOT_FOUND, "NOT_FOUND",
     "no solution found within the length limit"},
    {QS_ERR_TABLES, "TABLES", "tables missing or built for another metric"},
    {QS_ERR_THREAD, "THREAD", "a worker thread could not be started"},
    {QS_ERR_BUFFER, "BUFFER", "buffer too small"},
};

static const struct error_text *lookup(int err)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == err)
            return &errors[i];
    return NULL;
}

const char *qs_strerror(int err)
{
    const struct error_text *e = lookup(err);
    return e ? e->message : "unknown error";
}

const char *qs_errcode(int err)
{
    const struct error_text *e = lookup(err);
    return e ? e->id : "UNKNOWN";
}

char *qs_text_quote(const char *text, size_t len, char *out, size_t out_len)
{
    static const char hex[] = "0123456789abcdef";
    size_t used = 0;
    if (!out || out_len == 0)
        return out;
    for (size_t i = 0; text && i < len && text[i]; i++) {
        unsigned char c = (unsigned char)text[i];
        int plain = c >= 0x20 && c < 0x7f && c != '\\';
        size_t need = plain ? 1 : 4;
        /* Room for this byte and, should more follow, the "...". */
        if (used + need + (i + 1 < len && text[i + 1] ? 3 : 0) >= out_len) {
            if (used + 3 < out_len) {
                memcpy(out + used, "...", 3);
                used += 3;
            }
            break;
        }
        if (plain) {
            out[used++] = (char)c;
        } else {
            out[used++] = '\\';
            out[used++] = 'x';
            out[used++] = hex[c >> 4];
            out[used++] = hex[c & 15];
        }
    }
    out[used] = '\0';
    return out;
}

size_t qs_utf8_check(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    for (size_t i = 0; i < len;) {
        unsigned c = p[i];
        size_t n;
        unsigned min;
        if (c < 0x80) {
            i++;
            continue;
        } else if ((c & 0xe0) == 0xc0) {
            n = 1;
            min = 0x80;
            c &= 0x1f;
        } else if ((c & 0xf0) == 0xe0) {
            n = 2;
            min = 0x800;
            c &= 0x0f;
        } else if ((c & 0xf8) == 0xf0) {
            n = 3;
            min = 0x10000;
            c &= 0x07;
        } else {
            return i;
        }
        for (size_t k = 1; k <= n; k++) {
            if (i + k >= len || (p[i + k] & 0xc0) != 0x80)
                return i;
            c = c << 6 | (p[i + k] & 0x3f);
        }
        /* Overlong forms, UTF-16 surrogates and code points past U+10FFFF
         * are not UTF-8. */
        if (c < min || (c >= 0xd800 && c <= 0xdfff) || c > 0x10ffff)
            return i;
        i += n + 1;
    }
    return len;
}

/* An escaped backslash before a 'u' is no escape, so strings are walked
 * escape by escape. */
size_t qs_json_escaped_nul(const char *frame, size_t len)
{
    int in_string = 0;
    for (size_t i = 0; i < len; i++) {
        char c = frame[i];
        if (!in_string) {
            in_string = c == '"';
            continue;
        }
        if (c == '"') {
            in_string = 0;
        } else if (c == '\\' && i + 1 < len) {
            if (frame[i + 1] == 'u' && i + 5 < len &&
                memcmp(frame + i + 2, "0000", 4) == 0)
                return i;
            i++; /* the escaped character */
        }
    }
    return len;
}
