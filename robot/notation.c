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

/* Reads the step spanning [p, p + len) (a token: see qs_tokens_parse);
 * returns NULL on success or a reason. */
static const char *read_step(const char *p, size_t len, void *item)
{
    const char *end = p + len;
    robot_step *s = item;
    const char *head_end;
    if (*p == '(') {
        const char *close = memchr(p, ')', len);
        if (!close)
            return "unclosed parenthesis";
        head_end = close + 1;
    } else {
        head_end = memchr(p, '+', len);
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

/* The robot's error for the solver's from the sequence mechanism. */
static int step_error(int rc, int syntax)
{
    switch (rc) {
    case QS_ERR_MOVE: return syntax;
    case QS_ERR_BUFFER: return ROBOT_ERR_BUFFER;
    case QS_ERR_ARGUMENT: return ROBOT_ERR_ARGUMENT;
    default: return rc;
    }
}

int robot_steps_parse(const char *text, robot_step *steps, int max,
                      char *detail, size_t detail_len)
{
    return step_error(qs_tokens_parse(text, steps, max, sizeof *steps,
                                       read_step, "step", detail, detail_len),
                       ROBOT_ERR_SYNTAX);
}

/* Writes the spelling of a step to buf (QS_TOKEN_MAX bytes); returns its
 * length or -1 for a step with no spelling. */
static int spell_step(const void *item, char *buf)
{
    const robot_step *s = item;
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
    return step_error(qs_tokens_format(steps, n, sizeof *steps, spell_step,
                                        out, out_len),
                       ROBOT_ERR_STEP);
}
