/*
 * reply.c - the reply frames of the protocol (docs/protocol.md): printing
 * them on the daemon's side and parsing them back on the client's.
 *
 * Solutions travel in notation ("R U2 (F B')", "tRL R+rF"), not as move
 * numbers, so that a person reading a log or a script in any language can
 * use them directly; the parser turns them back into moves and steps and
 * the client verifies them before anyone acts on them.
 */
#include "qsservice.h"

#include <cJSON.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Milliseconds rounded to microseconds: plans are costed to the
 * microsecond, so this keeps cost_ms exact through the round trip. */
static double round_us(double ms)
{
    return floor(ms * 1000.0 + 0.5) / 1000.0;
}

/* Starts a reply object of the given type with the id spliced in as JSON
 * text; an id that does not parse becomes null rather than failing. */
static cJSON *reply(const char *id, const char *type)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *idv = id ? cJSON_Parse(id) : NULL;
    cJSON_AddItemToObject(o, "id", idv ? idv : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "type", type);
    return o;
}

static char *finish(cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    return text;
}

void qsv_free(void *p)
{
    cJSON_free(p);
}

char *qsv_reply_accepted(const char *id, int queue_position)
{
    cJSON *o = reply(id, "accepted");
    if (o)
        cJSON_AddNumberToObject(o, "queue_position", queue_position);
    return finish(o);
}

char *qsv_reply_progress(const char *id, const qsv_progress *p)
{
    cJSON *o = reply(id, "progress");
    if (o && p->depth >= 0) {
        cJSON_AddNumberToObject(o, "depth", p->depth);
        cJSON_AddNumberToObject(o, "found", p->found);
        cJSON_AddNumberToObject(o, "nodes", (double)p->nodes);
    } else if (o) {
        cJSON_AddNumberToObject(o, "best", p->best);
    }
    if (o)
        cJSON_AddNumberToObject(o, "elapsed_ms", round_us(p->elapsed_ms));
    return finish(o);
}

char *qsv_reply_pong(const char *id)
{
    return finish(reply(id, "pong"));
}

char *qsv_reply_cancel(const char *id, const char *target, int found)
{
    cJSON *o = reply(id, "cancel");
    if (o) {
        cJSON *t = target ? cJSON_Parse(target) : NULL;
        cJSON_AddItemToObject(o, "target", t ? t : cJSON_CreateNull());
        cJSON_AddBoolToObject(o, "found", found);
    }
    return finish(o);
}

char *qsv_reply_error(const char *id, const qsv_failure *f)
{
    cJSON *o = reply(id, "error");
    if (o) {
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddStringToObject(e, "code", qsv_errcode(f->code));
        if (f->reason[0])
            cJSON_AddStringToObject(e, "reason", f->reason);
        cJSON_AddStringToObject(e, "message",
                                f->message[0] ? f->message
                                              : qsv_strerror(f->code));
    }
    return finish(o);
}

void qsv_json_moves(cJSON *o, const qs_move *moves, int n,
                    const char *lengths_key)
{
    char text[QS_MAX_MOVES * 8];
    if (qs_moves_format(moves, n, text, sizeof text) < 0)
        text[0] = '\0';
    cJSON_AddStringToObject(o, "moves", text);
    cJSON *len = cJSON_AddObjectToObject(o, lengths_key);
    for (int m = 0; len && m < QS_PLAIN_METRICS; m++)
        cJSON_AddNumberToObject(len, qs_metric_name((qs_metric)m),
                                qs_moves_length(moves, n, (qs_metric)m));
}

void qsv_json_plan(cJSON *o, const robot_schedule *p)
{
    char text[ROBOT_MAX_STEPS * 20 + 1];
    if (robot_steps_format(p->steps, p->n, text, sizeof text) < 0)
        text[0] = '\0';
    cJSON_AddStringToObject(o, "robot", text);
    cJSON_AddNumberToObject(o, "robot_moves", p->robot_moves);
    cJSON_AddNumberToObject(o, "turns", p->turns);
    cJSON_AddNumberToObject(o, "tilts", p->tilts);
    cJSON_AddNumberToObject(o, "full_regrips", p->full_regrips);
    cJSON_AddNumberToObject(o, "safe", p->safe);
    cJSON_AddNumberToObject(o, "cost_ms", round_us(p->cost_ms));
}

static void add_solution(cJSON *arr, const qsv_solution *s)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return;
    qsv_json_moves(o, s->moves, s->n, "lengths");
    cJSON_AddNumberToObject(o, "length", s->length);
    qsv_json_plan(o, &s->plan);
    cJSON_AddItemToArray(arr, o);
}

char *qsv_reply_result(const char *id, const qsv_result *res)
{
    cJSON *o = reply(id, "result");
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "metric", qs_metric_name(res->metric));
    cJSON_AddStringToObject(o, "profile", res->profile);
    cJSON_AddStringToObject(o, "objective",
                            res->objective == ROBOT_OBJ_TIME ? "time"
                                                             : "moves");
    if (res->found > 0)
        cJSON_AddNumberToObject(o, "optimal_solutions", res->found);
    cJSON *arr = cJSON_AddArrayToObject(o, "solutions");
    for (int i = 0; arr && i < res->n; i++)
        add_solution(arr, &res->sol[i]);
    cJSON *st = cJSON_AddObjectToObject(o, "stats");
    if (st) {
        cJSON_AddNumberToObject(st, "solve_ms", round_us(res->solve_ms));
        cJSON_AddNumberToObject(st, "queue_ms", round_us(res->queue_ms));
        cJSON_AddNumberToObject(st, "first_ms",
                                round_us(res->stats.first_ms));
        cJSON_AddNumberToObject(st, "phase1_nodes",
                                (double)res->stats.phase1_nodes);
        cJSON_AddNumberToObject(st, "phase2_nodes",
                                (double)res->stats.phase2_nodes);
        cJSON_AddNumberToObject(st, "phase2_searches",
                                (double)res->stats.phase2_searches);
    }
    /* A reply with a solution missing would be a wrong answer. */
    if (cJSON_GetArraySize(arr) != res->n) {
        cJSON_Delete(o);
        return NULL;
    }
    return finish(o);
}

/* ---------------------------------------------------------------- parsing */

/* Copies a peer's text into a buffer of `size` bytes, cut short if need
 * be before a whole UTF-8 character, never inside one: the text reaches
 * the caller's output, which must stay UTF-8. */
static void copy_text(char *dst, size_t size, const char *src)
{
    size_t n = strlen(src);
    if (n >= size) {
        n = size - 1;
        while (n > 0 && ((unsigned char)src[n] & 0xc0) == 0x80)
            n--; /* src[n] would be the cut character's continuation */
    }
    memcpy(dst, src, n);
    dst[n] = '\0';
}

static int bad(qsv_failure *f, const char *what)
{
    f->code = QSV_ERR_PROTOCOL;
    f->reason[0] = '\0';
    snprintf(f->message, sizeof f->message, "reply: %s", what);
    return QSV_ERR_PROTOCOL;
}

/* An integer member, or -1 when absent or not a non-negative integer. */
static int get_count(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    if (!cJSON_IsNumber(v) || v->valuedouble < 0 || v->valuedouble > 1e6 ||
        v->valuedouble != floor(v->valuedouble))
        return -1;
    return (int)v->valuedouble;
}

static const char *get_string(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

static double get_number(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    return cJSON_IsNumber(v) ? v->valuedouble : 0.0;
}

/* A node count: absent is 0; present, a whole number in [0, 2^53] (what
 * a double holds exactly), else -1. Converting anything else to uint64_t
 * would be undefined (a peer may send -1, 1e30 or 1e400). */
static int get_nodes(const cJSON *o, const char *key, uint64_t *out)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    *out = 0;
    if (!v)
        return 0;
    if (!cJSON_IsNumber(v) || !(v->valuedouble >= 0) ||
        v->valuedouble > 9007199254740992.0 ||
        v->valuedouble != floor(v->valuedouble))
        return -1;
    *out = (uint64_t)v->valuedouble;
    return 0;
}

static int parse_solution(const cJSON *o, qsv_solution *s, qsv_failure *f)
{
    char detail[160];
    const char *moves = get_string(o, "moves");
    const char *robot = get_string(o, "robot");
    if (!moves || !robot)
        return bad(f, "a solution lacks 'moves' or 'robot'");
    int n = qs_moves_parse(moves, s->moves, QS_MAX_MOVES, detail,
                           sizeof detail);
    if (n < 0)
        return bad(f, "a solution's moves do not parse");
    s->n = n;
    robot_schedule *p = &s->plan;
    memset(p, 0, sizeof *p);
    int k = robot_steps_parse(robot, p->steps, ROBOT_MAX_STEPS, detail,
                              sizeof detail);
    if (k < 0)
        return bad(f, "a solution's robot steps do not parse");
    p->n = k;
    s->length = get_count(o, "length");
    p->robot_moves = get_count(o, "robot_moves");
    p->turns = get_count(o, "turns");
    p->tilts = get_count(o, "tilts");
    p->full_regrips = get_count(o, "full_regrips");
    p->safe = get_count(o, "safe");
    p->cost_ms = get_number(o, "cost_ms");
    if (s->length < 0 || p->robot_moves < 0 || p->turns < 0 || p->tilts < 0 ||
        p->full_regrips < 0 || p->safe < 0)
        return bad(f, "a solution lacks a count");
    return QSV_OK;
}

static int parse_result(const cJSON *root, qsv_result *res, qsv_failure *f)
{
    memset(&res->stats, 0, sizeof res->stats);
    const char *metric = get_string(root, "metric");
    int m = metric ? qs_metric_parse(metric) : -1;
    if (m < 0)
        return bad(f, "result without a known 'metric'");
    res->metric = (qs_metric)m;
    /* Refused rather than cut short: a cut could split a UTF-8 character,
     * and a profile's name is never longer (robot_profile.name). */
    const char *profile = get_string(root, "profile");
    if (profile && strlen(profile) >= sizeof res->profile)
        return bad(f, "a result's 'profile' is longer than 63 bytes");
    copy_text(res->profile, sizeof res->profile, profile ? profile : "");
    const char *obj = get_string(root, "objective");
    res->objective = obj && strcmp(obj, "time") == 0 ? ROBOT_OBJ_TIME
                                                     : ROBOT_OBJ_MOVES;
    int found = get_count(root, "optimal_solutions");
    res->found = found > 0 ? found : 0;
    const cJSON *arr = cJSON_GetObjectItemCaseSensitive(root, "solutions");
    int n = cJSON_IsArray(arr) ? cJSON_GetArraySize(arr) : -1;
    if (n < 1 || n > QSV_MAX_SOLUTIONS)
        return bad(f, "result without 1..16 solutions");
    res->n = 0;
    const cJSON *s;
    cJSON_ArrayForEach(s, arr)
    {
        int rc = parse_solution(s, &res->sol[res->n], f);
        if (rc != QSV_OK)
            return rc;
        res->n++;
    }
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(root, "stats");
    res->solve_ms = get_number(st, "solve_ms");
    res->queue_ms = get_number(st, "queue_ms");
    res->stats.first_ms = get_number(st, "first_ms");
    if (get_nodes(st, "phase1_nodes", &res->stats.phase1_nodes) ||
        get_nodes(st, "phase2_nodes", &res->stats.phase2_nodes) ||
        get_nodes(st, "phase2_searches", &res->stats.phase2_searches))
        return bad(f, "a node count in 'stats' is not a whole number in "
                      "[0, 2^53]");
    return QSV_OK;
}

/* A progress event: an improvement (best) or an optimal search's
 * finished length (depth, found, nodes). */
static int parse_progress(const cJSON *root, qsv_progress *p, qsv_failure *f)
{
    p->solution = NULL;
    p->best = get_count(root, "best");
    p->depth = get_count(root, "depth");
    p->found = p->depth >= 0 ? get_count(root, "found") : 0;
    if (get_nodes(root, "nodes", &p->nodes))
        return bad(f, "a progress event's 'nodes' is not a whole number in "
                      "[0, 2^53]");
    p->elapsed_ms = get_number(root, "elapsed_ms");
    if ((p->best < 0) == (p->depth < 0) || p->found < 0)
        return bad(f, "a progress event needs either 'best' or 'depth' "
                      "with 'found'");
    return QSV_OK;
}

int qsv_reply_parse(const char *frame, size_t len, qsv_reply_type *type,
                    char id[QSV_MAX_ID + 1], qsv_result *res,
                    qsv_progress *progress, qsv_failure *f)
{
    static const char *types[] = {"accepted", "progress", "result", "error",
                                  "pong",     "status",   "cancel"};
    if (!frame || !type || !id || !f)
        return QSV_ERR_ARGUMENT;
    /* A peer's text ends up in the caller's output (messages, profile
     * names): it must be UTF-8, as the protocol says. */
    size_t at = qs_utf8_check(frame, len);
    if (at < len) {
        char what[64];
        snprintf(what, sizeof what, "byte %zu is not valid UTF-8", at);
        return bad(f, what);
    }
    cJSON *root = cJSON_ParseWithLength(frame, len);
    if (!cJSON_IsObject(root)) {
        cJSON_Delete(root);
        return bad(f, "not a JSON object");
    }
    int rc = QSV_OK;
    const cJSON *idv = cJSON_GetObjectItemCaseSensitive(root, "id");
    char *idtext = idv ? cJSON_PrintUnformatted(idv) : NULL;
    if (!idtext || strlen(idtext) > QSV_MAX_ID)
        rc = bad(f, "missing or oversized 'id'");
    else
        strcpy(id, idtext);
    cJSON_free(idtext);
    const char *t = get_string(root, "type");
    int k = -1;
    for (int i = 0; t && i < (int)(sizeof types / sizeof types[0]); i++)
        if (strcmp(t, types[i]) == 0)
            k = i;
    if (rc == QSV_OK && k < 0)
        rc = bad(f, "unknown 'type'");
    if (rc == QSV_OK) {
        *type = (qsv_reply_type)k;
        if (*type == QSV_REPLY_RESULT && res)
            rc = parse_result(root, res, f);
        else if (*type == QSV_REPLY_PROGRESS && progress)
            rc = parse_progress(root, progress, f);
        else if (*type == QSV_REPLY_ERROR) {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(root, "error");
            const char *code = get_string(e, "code");
            const char *reason = get_string(e, "reason");
            const char *msg = get_string(e, "message");
            int err = qsv_error_parse(code);
            if (!err || !msg) {
                rc = bad(f, "error reply without a known code and message");
            } else {
                f->code = err;
                copy_text(f->reason, sizeof f->reason, reason ? reason : "");
                copy_text(f->message, sizeof f->message, msg);
            }
        }
    }
    cJSON_Delete(root);
    return rc;
}
