/*
 * notation.c - reading and writing robot-frame step sequences.
 *
 * Grammar (one spelling per step, so printing and parsing round-trip):
 *   sequence := blank* [ step { blank+ step } ] blank*
 *   step     := head { "+" regrip }
 *   head     := turn | "tRL" | "tFB" | regrip
 *   turn     := a quadsolve move on R, L, F or B: "R2", "(R L')"
 *   regrip   := "r" ( "R" | "L" | "F" | "B" )
 * A step whose head is a regrip is a full regrip of every gripper named;
 * regrips after a turn or tilt run in parallel with it. Regrips are
 * printed in the order R L F B and may not repeat.
 */
#include "robot.h"
#include "robot_internal.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static const char grip_chars[] = "RLFB";

static int is_blank(char ch)
{
    return ch == ' ' || ch == '\t';
}

void robot_set_detail(char *detail, size_t detail_len, const char *fmt, ...)
{
    if (detail && detail_len > 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(detail, detail_len, fmt, ap);
        va_end(ap);
    }
}

/* The gripper named by "r" + letter at p, or -1. */
static int read_regrip(const char *p)
{
    if (p[0] != 'r' || !p[1])
        return -1;
    const char *g = strchr(grip_chars, p[1]);
    return g ? (int)(g - grip_chars) : -1;
}

/* True when qs_move m turns only R, L, F or B (faces 1, 2, 4, 5). */
static int robot_turnable(qs_move m)
{
    if (m < 18)
        return m / 3 % 3 != 0;
    return (m - 18) / 9 != 0;
}

/* Parses the step spanning [p, end); returns NULL on success or a reason. */
static const char *read_step(const char *p, const char *end, robot_step *s)
{
    const char *head_end;
    if (*p == '(') {
        const char *close = memchr(p, ')', (size_t)(end - p));
        if (!close)
            return "unclosed parenthesis";
        head_end = close + 1;
    } else {
        head_end = memchr(p, '+', (size_t)(end - p));
        if (!head_end)
            head_end = end;
    }
    size_t head_len = (size_t)(head_end - p);
    int g;
    memset(s, 0, sizeof *s);
    if (head_len == 3 && memcmp(p, "tRL", 3) == 0) {
        s->kind = ROBOT_STEP_TILT;
        s->arg = ROBOT_TILT_RL;
    } else if (head_len == 3 && memcmp(p, "tFB", 3) == 0) {
        s->kind = ROBOT_STEP_TILT;
        s->arg = ROBOT_TILT_FB;
    } else if (head_len == 2 && (g = read_regrip(p)) >= 0) {
        s->kind = ROBOT_STEP_REGRIP;
        s->regrips = (uint8_t)(1u << g);
    } else {
        char buf[32];
        qs_move m;
        if (head_len == 0 || head_len >= sizeof buf)
            return "not a turn, tilt or regrip";
        memcpy(buf, p, head_len);
        buf[head_len] = '\0';
        if (qs_moves_parse(buf, &m, 1, NULL, 0) != 1 || is_blank(buf[0]))
            return "not a turn, tilt or regrip";
        if (!robot_turnable(m))
            return "the robot cannot turn U or D";
        s->kind = ROBOT_STEP_TURN;
        s->arg = m;
    }
    p = head_end;
    while (p < end) {
        if (*p != '+' || end - p < 3 || (g = read_regrip(p + 1)) < 0 ||
            (p + 3 < end && p[3] != '+'))
            return "expected \"+r\" and a gripper R, L, F or B";
        if (s->regrips >> g & 1)
            return "a gripper regrips twice";
        s->regrips |= (uint8_t)(1u << g);
        p += 3;
    }
    return NULL;
}

/* The end of the step starting at p: a blank or the end of the text,
 * skipping the blank inside a pair's parentheses. */
static const char *step_end(const char *p)
{
    if (*p == '(') {
        const char *close = strchr(p, ')');
        if (close)
            p = close + 1;
    }
    while (*p && !is_blank(*p))
        p++;
    return p;
}

int robot_steps_parse(const char *text, robot_step *steps, int max,
                      char *detail, size_t detail_len)
{
    int n = 0;
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!text || max < 0 || (max > 0 && !steps)) {
        robot_set_detail(detail, detail_len, "invalid arguments");
        return ROBOT_ERR_ARGUMENT;
    }
    const char *p = text;
    for (;;) {
        while (is_blank(*p))
            p++;
        if (!*p)
            break;
        const char *end = step_end(p);
        robot_step s;
        const char *why = read_step(p, end, &s);
        if (why) {
            char shown[48];
            qs_text_quote(p, (size_t)(end - p), shown, sizeof shown);
            robot_set_detail(detail, detail_len,
                       "bad step \"%s\" at column %d: %s", shown,
                       (int)(p - text) + 1, why);
            return ROBOT_ERR_SYNTAX;
        }
        /* Parse on past a full buffer so a later syntax error wins. */
        if (n < max)
            steps[n] = s;
        n++;
        p = end;
    }
    if (n > max) {
        robot_set_detail(detail, detail_len, "%d steps, at most %d allowed", n, max);
        return ROBOT_ERR_BUFFER;
    }
    return n;
}

/* Appends the spelling of s to buf (at least 48 bytes); returns its length
 * or -1 for a step with no spelling. */
static int spell_step(const robot_step *s, char *buf)
{
    int len = 0, first = 0;
    switch (s->kind) {
    case ROBOT_STEP_TURN:
        if (s->arg >= QS_MOVE_COUNT || !robot_turnable(s->arg))
            return -1;
        len = qs_moves_format(&s->arg, 1, buf, 32);
        if (len < 0)
            return -1;
        break;
    case ROBOT_STEP_TILT:
        if (s->arg > ROBOT_TILT_FB)
            return -1;
        len = sprintf(buf, "%s", s->arg == ROBOT_TILT_RL ? "tRL" : "tFB");
        break;
    case ROBOT_STEP_REGRIP:
        if (s->arg != 0 || (s->regrips & 0xf) == 0)
            return -1;
        first = 1;
        break;
    default:
        return -1;
    }
    if (s->regrips & ~0xfu)
        return -1;
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        if (s->regrips >> g & 1) {
            len += sprintf(buf + len, "%sr%c", first ? "" : "+", grip_chars[g]);
            first = 0;
        }
    return len;
}

int robot_steps_format(const robot_step *steps, int n, char *out,
                       size_t out_len)
{
    size_t pos = 0;
    if (!out || out_len == 0)
        return ROBOT_ERR_BUFFER;
    out[0] = '\0';
    if (n < 0 || (n > 0 && !steps))
        return ROBOT_ERR_ARGUMENT;
    for (int i = 0; i < n; i++) {
        char tok[64];
        int len = spell_step(&steps[i], tok);
        if (len < 0) {
            out[0] = '\0';
            return ROBOT_ERR_STEP;
        }
        if (pos + (size_t)len + (i > 0) >= out_len) {
            out[0] = '\0';
            return ROBOT_ERR_BUFFER;
        }
        if (i > 0)
            out[pos++] = ' ';
        memcpy(out + pos, tok, (size_t)len + 1);
        pos += (size_t)len;
    }
    return (int)pos;
}
