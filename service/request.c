/*
 * request.c - parsing and printing of request frames (docs/protocol.md).
 *
 * Parsing is strict: a field of the wrong type, out of range or unknown is
 * an error naming the field, because a typo such as "time" for "time_ms"
 * would otherwise be ignored silently and the robot would wait for a
 * search it never asked for. Only the frame itself is allocated (by cJSON,
 * bounded by QSV_MAX_FRAME); everything kept is copied into fixed fields.
 */
#include "qsservice.h"

#include <cJSON.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int fail(qsv_failure *f, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(qsv_failure *f, int code, const char *fmt, ...)
{
    va_list ap;
    f->code = code;
    f->reason[0] = '\0';
    va_start(ap, fmt);
    vsnprintf(f->message, sizeof f->message, fmt, ap);
    va_end(ap);
    return code;
}

void qsv_request_init(qsv_request *r)
{
    memset(r, 0, sizeof *r);
    strcpy(r->id, "null");
    r->op = QSV_OP_SOLVE;
    r->metric = QS_METRIC_ROBOT;
    r->time_ms = 0; /* not given: qsv_solve picks the default */
    r->max_len = -1;
    r->solutions = 1;
    r->objective = ROBOT_OBJ_MOVES;
    robot_profile_builtin("default", &r->profile);
    strcpy(r->target, "null");
}

int qsv_request_time_ms(const qsv_request *r)
{
    return r->optimal        ? 0
           : r->time_ms > 0  ? r->time_ms
           : r->max_len >= 0 ? QSV_DEFAULT_HARD_MS
                             : QSV_DEFAULT_TIME_MS;
}

/* An id is a string of at most 100 bytes or an integer that a double
 * holds exactly; its JSON text goes into out. */
static int parse_id(const cJSON *item, const char *field, char *out,
                    qsv_failure *f)
{
    if (cJSON_IsString(item)) {
        if (strlen(item->valuestring) > 100)
            return fail(f, QSV_ERR_BAD_REQUEST,
                        "'%s' is longer than 100 characters", field);
    } else if (cJSON_IsNumber(item)) {
        double v = item->valuedouble;
        /* 15 digits at most: cJSON prints larger numbers in exponent
         * form, and the echoed id would no longer match. */
        if (v != floor(v) || fabs(v) >= 1e15)
            return fail(f, QSV_ERR_BAD_REQUEST,
                        "'%s' must be a string or an integer of at most 15 "
                        "digits",
                        field);
    } else {
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "'%s' must be a string or an integer", field);
    }
    char *text = cJSON_PrintUnformatted(item);
    if (!text)
        return fail(f, QSV_ERR_INTERNAL, "out of memory");
    /* Escapes can make the text longer than the string itself. */
    int ok = strlen(text) <= QSV_MAX_ID;
    if (ok)
        strcpy(out, text);
    cJSON_free(text);
    if (!ok)
        return fail(f, QSV_ERR_BAD_REQUEST, "'%s' is too long", field);
    return QSV_OK;
}

/* An integer field in [min, max]. */
static int parse_int(const cJSON *item, long min, long max, int *out,
                     qsv_failure *f)
{
    if (!cJSON_IsNumber(item) || item->valuedouble != floor(item->valuedouble))
        return fail(f, QSV_ERR_BAD_REQUEST, "'%s' must be an integer",
                    item->string);
    double v = item->valuedouble;
    if (v < (double)min || v > (double)max)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "'%s' is %.17g; it must be in %ld..%ld", item->string, v,
                    min, max);
    *out = (int)v;
    return QSV_OK;
}

/* A name from the request as a message may show it: printable ASCII,
 * anything else escaped, truncated whole (qs_text_quote). */
static const char *quote(const char *s, char *buf, size_t len)
{
    return qs_text_quote(s ? s : "", s ? strlen(s) : 0, buf, len);
}

size_t qsv_utf8_check(const char *s, size_t len)
{
    return qs_utf8_check(s, len);
}

static int parse_profile(const cJSON *item, robot_profile *p, qsv_failure *f)
{
    char detail[256] = "";
    if (cJSON_IsString(item)) {
        /* Names only: a path from the network must never be opened. */
        if (robot_profile_builtin(item->valuestring, p) != ROBOT_OK) {
            char names[128] = "";
            for (int i = 0; robot_profile_builtin_name(i); i++) {
                if (i)
                    strncat(names, ", ", sizeof names - strlen(names) - 1);
                strncat(names, robot_profile_builtin_name(i),
                        sizeof names - strlen(names) - 1);
            }
            char shown[80];
            return fail(f, QSV_ERR_BAD_REQUEST,
                        "'profile': no built-in profile '%s' (%s, or an "
                        "inline object)",
                        quote(item->valuestring, shown, sizeof shown), names);
        }
        return QSV_OK;
    }
    if (!cJSON_IsObject(item))
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "'profile' must be a profile name or an object");
    /* A number cJSON read as infinite (1e400) would print as null and
     * then be reported as the wrong type. */
    const cJSON *v;
    cJSON_ArrayForEach(v, item)
    {
        char shown[80];
        if (cJSON_IsNumber(v) && !isfinite(v->valuedouble))
            return fail(f, QSV_ERR_BAD_REQUEST,
                        "'profile': \"%s\" is not a finite number",
                        quote(v->string, shown, sizeof shown));
    }
    char *text = cJSON_PrintUnformatted(item);
    if (!text)
        return fail(f, QSV_ERR_INTERNAL, "out of memory");
    int rc = robot_profile_parse(text, p, detail, sizeof detail);
    cJSON_free(text);
    if (rc != ROBOT_OK)
        return fail(f, QSV_ERR_BAD_REQUEST, "'profile': %s",
                    *detail ? detail : robot_strerror(rc));
    return QSV_OK;
}

static const char *repeated_key(const cJSON *root)
{
    for (const cJSON *a = root->child; a; a = a->next)
        for (const cJSON *b = a->next; b; b = b->next)
            if (strcmp(a->string, b->string) == 0)
                return a->string;
    return NULL;
}

/* A boolean field. */
static int parse_bool(const cJSON *item, int *out, qsv_failure *f)
{
    if (!cJSON_IsBool(item))
        return fail(f, QSV_ERR_BAD_REQUEST, "'%s' must be true or false",
                    item->string);
    *out = cJSON_IsTrue(item);
    return QSV_OK;
}

/* The combinations an optimal request refuses, checked once every field
 * is read (fields come in any order). */
static int check_optimal(qsv_request *r, int have_time, int have_solutions,
                         qsv_failure *f)
{
    if (!r->optimal) {
        if (r->all)
            return fail(f, QSV_ERR_BAD_REQUEST,
                        "'all' needs 'optimal': true (every optimal "
                        "solution)");
        return QSV_OK;
    }
    if (!qsv_optimal_supported(r->metric))
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "'optimal' needs metric \"htm\", \"qtm\" or "
                    "\"robot\"; metric \"%s\" has no optimal solver",
                    qs_metric_name(r->metric));
    /* The robot optimum counts robot moves and is one solution. */
    if (r->metric == QS_METRIC_ROBOT && r->all)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "'all' is not available for metric \"robot\" (the "
                    "robot optimal search returns one solution)");
    if (r->metric == QS_METRIC_ROBOT && r->objective == ROBOT_OBJ_TIME)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "an optimal robot solve minimises robot moves; "
                    "'objective': \"time\" does not apply");
    /* An optimal search has no time limit to give: it ends when the
     * optimum is proven. Ignoring time_ms would let a client believe its
     * answer comes within it; deadline_ms is the bound that applies. */
    if (have_time)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "'time_ms' does not apply to an optimal solve (it runs "
                    "until the optimum is proven); bound it with "
                    "'deadline_ms'");
    if (!r->all && r->solutions != 1)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "'solutions' with 'optimal' needs 'all': true (without "
                    "it the search stops at the first optimal solution)");
    if (r->all && !have_solutions)
        r->solutions = QSV_MAX_SOLUTIONS;
    return QSV_OK;
}

static int parse_solve(const cJSON *root, qsv_request *r, qsv_failure *f)
{
    char shown[80];
    const cJSON *item;
    int have_cube = 0, have_time = 0, have_solutions = 0, rc;
    cJSON_ArrayForEach(item, root)
    {
        const char *k = item->string;
        if (strcmp(k, "id") == 0 || strcmp(k, "op") == 0)
            continue;
        if (strcmp(k, "facelets") == 0 || strcmp(k, "scramble") == 0) {
            if (have_cube)
                return fail(f, QSV_ERR_BAD_REQUEST,
                            "give either 'facelets' or 'scramble', not both");
            if (!cJSON_IsString(item))
                return fail(f, QSV_ERR_BAD_REQUEST, "'%s' must be a string",
                            k);
            size_t n = strlen(item->valuestring);
            if (n > QSV_MAX_SCRAMBLE)
                return fail(f, QSV_ERR_BAD_REQUEST,
                            "'%s' is %zu bytes long; at most %d", k, n,
                            QSV_MAX_SCRAMBLE);
            memcpy(r->cube, item->valuestring, n + 1);
            r->is_scramble = k[0] == 's';
            have_cube = 1;
        } else if (strcmp(k, "metric") == 0) {
            int m = cJSON_IsString(item) ? qs_metric_parse(item->valuestring)
                                         : -1;
            if (m < 0)
                return fail(f, QSV_ERR_BAD_REQUEST,
                            "'metric' must be one of \"robot\", \"htm\", "
                            "\"qtm\", \"axht\", \"axqt\"");
            r->metric = (qs_metric)m;
        } else if (strcmp(k, "time_ms") == 0) {
            if ((rc = parse_int(item, 1, QSV_MAX_TIME_MS, &r->time_ms, f)))
                return rc;
            have_time = 1;
        } else if (strcmp(k, "max_len") == 0) {
            if (cJSON_IsNull(item))
                r->max_len = -1;
            else if ((rc = parse_int(item, 0, 200, &r->max_len, f)))
                return rc;
        } else if (strcmp(k, "solutions") == 0) {
            if ((rc = parse_int(item, 1, QSV_MAX_SOLUTIONS, &r->solutions,
                                f)))
                return rc;
            have_solutions = 1;
        } else if (strcmp(k, "deadline_ms") == 0) {
            if ((rc = parse_int(item, 1, QSV_MAX_DEADLINE_MS, &r->deadline_ms,
                                f)))
                return rc;
        } else if (strcmp(k, "progress") == 0) {
            if ((rc = parse_bool(item, &r->progress, f)))
                return rc;
        } else if (strcmp(k, "optimal") == 0) {
            if ((rc = parse_bool(item, &r->optimal, f)))
                return rc;
        } else if (strcmp(k, "all") == 0) {
            if ((rc = parse_bool(item, &r->all, f)))
                return rc;
        } else if (strcmp(k, "objective") == 0) {
            if (cJSON_IsString(item) && strcmp(item->valuestring, "moves") == 0)
                r->objective = ROBOT_OBJ_MOVES;
            else if (cJSON_IsString(item) &&
                     strcmp(item->valuestring, "time") == 0)
                r->objective = ROBOT_OBJ_TIME;
            else
                return fail(f, QSV_ERR_BAD_REQUEST,
                            "'objective' must be \"moves\" or \"time\"");
        } else if (strcmp(k, "profile") == 0) {
            if ((rc = parse_profile(item, &r->profile, f)))
                return rc;
        } else {
            return fail(f, QSV_ERR_BAD_REQUEST,
                        "unknown field '%s' in a solve request",
                        quote(k, shown, sizeof shown));
        }
    }
    if (!have_cube)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "a solve request needs 'facelets' or 'scramble'");
    if (!have_time)
        r->time_ms = 0;
    return check_optimal(r, have_time, have_solutions, f);
}

int qsv_request_parse(const char *frame, size_t len, qsv_request *r,
                      qsv_failure *f)
{
    char shown[80];
    qsv_request_init(r);
    if (!frame || !f)
        return QSV_ERR_ARGUMENT;
    if (len > QSV_MAX_FRAME)
        return fail(f, QSV_ERR_TOO_LARGE,
                    "request frame is %zu bytes; at most %d", len,
                    QSV_MAX_FRAME);
    /* cJSON would stop at a NUL byte and read a prefix as the request,
     * and an escaped NUL (\u0000) would cut a string or a key short. */
    const char *nul = memchr(frame, '\0', len);
    if (nul)
        return fail(f, QSV_ERR_BAD_REQUEST, "NUL byte at byte %zu",
                    (size_t)(nul - frame));
    size_t at = qs_json_escaped_nul(frame, len);
    if (at < len)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "escaped NUL (\\u0000) at byte %zu: no string or key "
                    "may contain one",
                    at);
    /* JSON is UTF-8 (RFC 8259), and what a reply echoes must be too. */
    at = qs_utf8_check(frame, len);
    if (at < len)
        return fail(f, QSV_ERR_BAD_REQUEST,
                    "byte %zu is not valid UTF-8 (0x%02x)", at,
                    (unsigned char)frame[at]);
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithLengthOpts(frame, len, &end, 0);
    if (!root) {
        size_t at = end && end >= frame ? (size_t)(end - frame) : 0;
        if (!end) {
            const char *e = cJSON_GetErrorPtr();
            at = e && e >= frame && e <= frame + len ? (size_t)(e - frame)
                                                     : 0;
        }
        return fail(f, QSV_ERR_BAD_REQUEST, "malformed JSON at byte %zu", at);
    }
    int rc = QSV_OK;
    /* Trailing bytes after the object (other than blanks) are garbage. */
    for (const char *p = end; p && p < frame + len && rc == QSV_OK; p++)
        if (*p != ' ' && *p != '\t' && *p != '\r' && *p != '\n')
            rc = fail(f, QSV_ERR_BAD_REQUEST,
                      "bytes after the JSON object at byte %zu",
                      (size_t)(p - frame));
    if (rc == QSV_OK && !cJSON_IsObject(root))
        rc = fail(f, QSV_ERR_BAD_REQUEST, "a request is a JSON object");
    /* A repeated key would make the request mean two things; the field
     * count bounds the quadratic check. */
    if (rc == QSV_OK && cJSON_GetArraySize(root) > 32)
        rc = fail(f, QSV_ERR_BAD_REQUEST, "more than 32 fields");
    const char *dup = rc == QSV_OK ? repeated_key(root) : NULL;
    if (dup)
        rc = fail(f, QSV_ERR_BAD_REQUEST, "field '%s' appears twice",
                  quote(dup, shown, sizeof shown));
    const cJSON *id = rc == QSV_OK ? cJSON_GetObjectItemCaseSensitive(root, "id")
                                   : NULL;
    if (rc == QSV_OK && !id)
        rc = fail(f, QSV_ERR_BAD_REQUEST, "missing field 'id'");
    if (rc == QSV_OK)
        rc = parse_id(id, "id", r->id, f);
    const cJSON *op = rc == QSV_OK ? cJSON_GetObjectItemCaseSensitive(root, "op")
                                   : NULL;
    if (rc == QSV_OK && !op)
        rc = fail(f, QSV_ERR_BAD_REQUEST, "missing field 'op'");
    if (rc == QSV_OK && !cJSON_IsString(op))
        rc = fail(f, QSV_ERR_BAD_REQUEST, "'op' must be a string");
    if (rc == QSV_OK) {
        const char *name = op->valuestring;
        if (strcmp(name, "solve") == 0) {
            r->op = QSV_OP_SOLVE;
            rc = parse_solve(root, r, f);
        } else if (strcmp(name, "cancel") == 0 || strcmp(name, "status") == 0 ||
                   strcmp(name, "ping") == 0) {
            r->op = name[0] == 'c'   ? QSV_OP_CANCEL
                    : name[0] == 's' ? QSV_OP_STATUS
                                     : QSV_OP_PING;
            const cJSON *item;
            int have_target = 0;
            cJSON_ArrayForEach(item, root)
            {
                if (rc != QSV_OK || strcmp(item->string, "id") == 0 ||
                    strcmp(item->string, "op") == 0)
                    continue;
                if (r->op == QSV_OP_CANCEL &&
                    strcmp(item->string, "target") == 0) {
                    rc = parse_id(item, "target", r->target, f);
                    have_target = 1;
                } else {
                    rc = fail(f, QSV_ERR_BAD_REQUEST,
                              "unknown field '%s' in a %s request",
                              quote(item->string, shown, sizeof shown), name);
                }
            }
            if (rc == QSV_OK && r->op == QSV_OP_CANCEL && !have_target)
                rc = fail(f, QSV_ERR_BAD_REQUEST,
                          "a cancel request needs 'target' (the id to "
                          "cancel)");
        } else {
            rc = fail(f, QSV_ERR_UNKNOWN_OP,
                      "unknown op '%s' (solve, cancel, status, ping)",
                      quote(name, shown, sizeof shown));
        }
    }
    cJSON_Delete(root);
    return rc;
}

int qsv_request_to_json(const qsv_request *r, char *out, size_t out_len)
{
    static const char *ops[] = {"solve", "cancel", "status", "ping"};
    if (!r || !out || (unsigned)r->op > QSV_OP_PING)
        return QSV_ERR_ARGUMENT;
    cJSON *o = cJSON_CreateObject();
    cJSON *id = cJSON_Parse(r->id);
    int ok = o && id;
    if (ok) {
        cJSON_AddItemToObject(o, "id", id);
        id = NULL;
        cJSON_AddStringToObject(o, "op", ops[r->op]);
    }
    if (ok && r->op == QSV_OP_CANCEL) {
        cJSON *t = cJSON_Parse(r->target);
        ok = t != NULL;
        if (ok)
            cJSON_AddItemToObject(o, "target", t);
    }
    if (ok && r->op == QSV_OP_SOLVE) {
        cJSON_AddStringToObject(o, r->is_scramble ? "scramble" : "facelets",
                                r->cube);
        cJSON_AddStringToObject(o, "metric", qs_metric_name(r->metric));
        if (r->time_ms > 0)
            cJSON_AddNumberToObject(o, "time_ms", r->time_ms);
        if (r->max_len >= 0)
            cJSON_AddNumberToObject(o, "max_len", r->max_len);
        /* With `all`, an absent count means QSV_MAX_SOLUTIONS, so the
         * count goes out whenever it is not what the parser assumes. */
        if (r->solutions != 1 || r->all)
            cJSON_AddNumberToObject(o, "solutions", r->solutions);
        if (r->deadline_ms > 0)
            cJSON_AddNumberToObject(o, "deadline_ms", r->deadline_ms);
        if (r->progress)
            cJSON_AddTrueToObject(o, "progress");
        if (r->optimal)
            cJSON_AddTrueToObject(o, "optimal");
        if (r->all)
            cJSON_AddTrueToObject(o, "all");
        if (r->objective == ROBOT_OBJ_TIME)
            cJSON_AddStringToObject(o, "objective", "time");
        robot_profile builtin;
        if (robot_profile_builtin(r->profile.name, &builtin) == ROBOT_OK &&
            memcmp(&builtin, &r->profile, sizeof builtin) == 0) {
            if (strcmp(r->profile.name, "default") != 0)
                cJSON_AddStringToObject(o, "profile", r->profile.name);
        } else {
            char text[1024];
            cJSON *p = NULL;
            if (robot_profile_to_json(&r->profile, text, sizeof text) >= 0)
                p = cJSON_Parse(text);
            ok = p != NULL;
            if (ok)
                cJSON_AddItemToObject(o, "profile", p);
        }
    }
    char *text = ok ? cJSON_PrintUnformatted(o) : NULL;
    cJSON_Delete(o);
    cJSON_Delete(id);
    if (!text)
        return QSV_ERR_INTERNAL;
    size_t n = strlen(text);
    int rc = n < out_len ? (int)n : QSV_ERR_ARGUMENT;
    if (rc >= 0)
        memcpy(out, text, n + 1);
    cJSON_free(text);
    return rc;
}
