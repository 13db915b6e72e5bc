/*
 * profile.c - timing profiles: the built-in ones, strict JSON reading and
 * writing, and the duration of one step.
 *
 * A profile file is checked completely before it is used: every duration
 * present, numbers only, none negative or absurdly large, no unknown or
 * repeated key, so a typo never silently falls back to a default.
 */
#include "robot.h"
#include "robot_internal.h"

#include <cJSON.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* The duration keys, in file order, and where they live in the struct. */
static const struct {
    const char *key;
    size_t offset;
} fields[] = {
    {"quarter_ms", offsetof(robot_profile, quarter_ms)},
    {"half_ms", offsetof(robot_profile, half_ms)},
    {"pair_quarter_ms", offsetof(robot_profile, pair_quarter_ms)},
    {"pair_half_ms", offsetof(robot_profile, pair_half_ms)},
    {"tilt_ms", offsetof(robot_profile, tilt_ms)},
    {"regrip_parallel_ms", offsetof(robot_profile, regrip_parallel_ms)},
    {"regrip_ms", offsetof(robot_profile, regrip_ms)},
    {"open_ms", offsetof(robot_profile, open_ms)},
    {"close_ms", offsetof(robot_profile, close_ms)},
    {"settle_ms", offsetof(robot_profile, settle_ms)},
};
#define N_FIELDS (sizeof fields / sizeof fields[0])
/* regrip_parallel_ms is derived (robot_profile_derive), so a file may
 * leave it out; a value given must be a finite duration (not bounded by
 * ROBOT_PROFILE_MAX_MS: a derived value may exceed it), then replaced. */
#define DERIVED_FIELD 5

/* Built-in profiles; docs/robot-model.md says where the numbers come from.
 * They are defaults to be replaced by measurements of a real robot. */
static const robot_profile builtins[] = {
    /* A fast stepper-driven quad-arm robot: quarter turns of ~55 ms, a
     * tilt of about two quarter turns, a regrip of open + rotate + close. */
    {.name = "default",
     .quarter_ms = 55,
     .half_ms = 90,
     .pair_quarter_ms = 60,
     .pair_half_ms = 95,
     .tilt_ms = 110,
     .regrip_ms = 85,
     .open_ms = 15,
     .close_ms = 15,
     .settle_ms = 5},
    /* SquidCuber's LEGO motors: 36 ms per quarter turn, 99 ms per half
     * turn; parallel pairs take as long as their slower face; the rest
     * scaled from the quarter turn. */
    {.name = "lego",
     .quarter_ms = 36,
     .half_ms = 99,
     .pair_quarter_ms = 36,
     .pair_half_ms = 99,
     .tilt_ms = 72,
     .regrip_ms = 76,
     .open_ms = 20,
     .close_ms = 20,
     .settle_ms = 0},
    /* Hobby servos: every motion class takes 200-600 ms. */
    {.name = "servo",
     .quarter_ms = 250,
     .half_ms = 450,
     .pair_quarter_ms = 270,
     .pair_half_ms = 470,
     .tilt_ms = 500,
     .regrip_ms = 600,
     .open_ms = 200,
     .close_ms = 200,
     .settle_ms = 50},
};


const char *robot_profile_builtin_name(int i)
{
    return i >= 0 && i < (int)(sizeof builtins / sizeof builtins[0])
               ? builtins[i].name
               : NULL;
}

int robot_profile_builtin(const char *name, robot_profile *p)
{
    if (!name || !p)
        return ROBOT_ERR_ARGUMENT;
    for (size_t i = 0; i < sizeof builtins / sizeof builtins[0]; i++)
        if (strcmp(builtins[i].name, name) == 0) {
            *p = builtins[i];
            robot_profile_derive(p);
            return ROBOT_OK;
        }
    return ROBOT_ERR_PROFILE_NAME;
}

static double *field_ptr(robot_profile *p, size_t i)
{
    return (double *)((char *)p + fields[i].offset);
}

static const char *type_name(const cJSON *v)
{
    if (cJSON_IsNumber(v))
        return "a number";
    if (cJSON_IsString(v))
        return "a string";
    if (cJSON_IsBool(v))
        return "a boolean";
    if (cJSON_IsNull(v))
        return "null";
    if (cJSON_IsArray(v))
        return "an array";
    if (cJSON_IsObject(v))
        return "an object";
    return "invalid";
}

/* Line and column of position pos in text, for syntax errors. */
static void line_col(const char *text, const char *pos, int *line, int *col)
{
    *line = 1;
    *col = 1;
    for (const char *c = text; c < pos && *c; c++) {
        if (*c == '\n') {
            (*line)++;
            *col = 1;
        } else {
            (*col)++;
        }
    }
}

/* Checks one key-value pair into *p; returns ROBOT_OK or the error. */
static int read_member(const cJSON *item, robot_profile *p, unsigned *seen,
                       char *detail, size_t detail_len)
{
    const char *key = item->string;
    if (strcmp(key, "name") == 0 || strcmp(key, "description") == 0) {
        if (!cJSON_IsString(item)) {
            robot_set_detail(detail, detail_len, "\"%s\" must be a string, not %s",
                       key, type_name(item));
            return ROBOT_ERR_PROFILE_TYPE;
        }
        if (key[0] == 'n') {
            /* The name is printed in plain text and JSON output. */
            for (const char *c = item->valuestring; *c; c++)
                if ((unsigned char)*c < 0x20 || *c == 0x7f) {
                    robot_set_detail(detail, detail_len,
                                     "\"name\" contains a control character");
                    return ROBOT_ERR_PROFILE_VALUE;
                }
            if (strlen(item->valuestring) >= sizeof p->name) {
                robot_set_detail(detail, detail_len,
                           "\"name\" is longer than %zu characters",
                           sizeof p->name - 1);
                return ROBOT_ERR_PROFILE_VALUE;
            }
            /* Zero the tail so equal profiles compare equal bytewise. */
            memset(p->name, 0, sizeof p->name);
            memcpy(p->name, item->valuestring, strlen(item->valuestring));
        }
        return ROBOT_OK;
    }
    for (size_t i = 0; i < N_FIELDS; i++) {
        if (strcmp(key, fields[i].key) != 0)
            continue;
        if (!cJSON_IsNumber(item)) {
            robot_set_detail(detail, detail_len,
                       "\"%s\" must be a number of milliseconds, not %s", key,
                       type_name(item));
            return ROBOT_ERR_PROFILE_TYPE;
        }
        double v = item->valuedouble;
        /* The derived field is replaced, and may rightly exceed the
         * inputs' range (a regrip is open + rotation + close), so that a
         * profile printed by robot_profile_to_json reads back: it need
         * only be a duration (fuzz_profile found a profile that did not
         * read back). */
        if (i == DERIVED_FIELD && (!isfinite(v) || v < 0)) {
            robot_set_detail(detail, detail_len,
                       "\"%s\" is %g; it must be a finite, non-negative "
                       "number of ms", key, v);
            return ROBOT_ERR_PROFILE_VALUE;
        }
        if (i != DERIVED_FIELD &&
            (!isfinite(v) || v < 0 || v > ROBOT_PROFILE_MAX_MS)) {
            robot_set_detail(detail, detail_len,
                       "\"%s\" is %g; durations must be in 0..%g ms", key, v,
                       ROBOT_PROFILE_MAX_MS);
            return ROBOT_ERR_PROFILE_VALUE;
        }
        *field_ptr(p, i) = v;
        *seen |= 1u << i;
        return ROBOT_OK;
    }
    /* The key is the caller's text: shown quoted, so that a message cut
     * short never splits a character (fuzz_request found one). */
    char shown[64];
    robot_set_detail(detail, detail_len, "unknown key \"%s\"",
                     qs_text_quote(key, strlen(key), shown, sizeof shown));
    return ROBOT_ERR_PROFILE_KEY;
}

int robot_profile_parse(const char *json, robot_profile *p, char *detail,
                        size_t detail_len)
{
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!json || !p) {
        robot_set_detail(detail, detail_len, "invalid arguments");
        return ROBOT_ERR_ARGUMENT;
    }
    /* cJSON would hand a string or key with an escaped NUL to C cut
     * short ("quarter_ms\u0000x" read as quarter_ms), and a name that is
     * not UTF-8 would make the output that shows it invalid. */
    size_t len = strlen(json), at = qs_json_escaped_nul(json, len);
    const char *why = "escaped NUL (\\u0000)";
    if (at == len) {
        at = qs_utf8_check(json, len);
        why = "text that is not UTF-8";
    }
    if (at < len) {
        int line, col;
        line_col(json, json + at, &line, &col);
        robot_set_detail(detail, detail_len, "%s at line %d, column %d", why,
                         line, col);
        return ROBOT_ERR_PROFILE_JSON;
    }
    const char *end = NULL;
    cJSON *root = cJSON_ParseWithOpts(json, &end, 1);
    if (!root) {
        int line, col;
        line_col(json, end ? end : json, &line, &col);
        robot_set_detail(detail, detail_len, "invalid JSON at line %d, column %d",
                   line, col);
        return ROBOT_ERR_PROFILE_JSON;
    }
    if (!cJSON_IsObject(root)) {
        robot_set_detail(detail, detail_len, "expected a JSON object, found %s",
                   type_name(root));
        cJSON_Delete(root);
        return ROBOT_ERR_PROFILE_JSON;
    }
    robot_profile q;
    memset(&q, 0, sizeof q);
    snprintf(q.name, sizeof q.name, "custom");
    unsigned seen = 0;
    int rc = ROBOT_OK;
    for (const cJSON *item = root->child; item && rc == ROBOT_OK;
         item = item->next) {
        /* cJSON keeps repeated keys; which one counts would be a guess. */
        for (const cJSON *prev = root->child; prev != item; prev = prev->next)
            if (strcmp(prev->string, item->string) == 0) {
                robot_set_detail(detail, detail_len, "key \"%s\" appears twice",
                           item->string);
                rc = ROBOT_ERR_PROFILE_KEY;
                break;
            }
        if (rc == ROBOT_OK)
            rc = read_member(item, &q, &seen, detail, detail_len);
    }
    cJSON_Delete(root);
    if (rc != ROBOT_OK)
        return rc;
    for (size_t i = 0; i < N_FIELDS; i++)
        if (!(seen >> i & 1) && i != DERIVED_FIELD) {
            robot_set_detail(detail, detail_len, "missing duration \"%s\"",
                       fields[i].key);
            return ROBOT_ERR_PROFILE_MISSING;
        }
    robot_profile_derive(&q);
    *p = q;
    return ROBOT_OK;
}

/* Reads a whole file of at most 1 MiB into a NUL-terminated buffer. */
static int read_file(const char *path, char **text, char *detail,
                     size_t detail_len)
{
    /* O_NONBLOCK: a FIFO would otherwise keep open() waiting for a
     * writer forever; what is not a regular file is refused below. */
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        int err = errno;
        robot_set_detail(detail, detail_len, "%s: %s", path, strerror(err));
        return err == ENOENT ? ROBOT_ERR_PROFILE_NAME : ROBOT_ERR_PROFILE_IO;
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        robot_set_detail(detail, detail_len, "%s: not a regular file", path);
        return ROBOT_ERR_PROFILE_IO;
    }
    FILE *f = fdopen(fd, "rb");
    if (!f) {
        close(fd);
        robot_set_detail(detail, detail_len, "%s: %s", path, strerror(errno));
        return ROBOT_ERR_PROFILE_IO;
    }
    size_t cap = 1u << 20, n;
    char *buf = malloc(cap + 1);
    if (!buf) {
        fclose(f);
        return ROBOT_ERR_NOMEM;
    }
    n = fread(buf, 1, cap + 1, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n > cap) {
        free(buf);
        robot_set_detail(detail, detail_len, "%s: %s", path,
                   bad ? "read error" : "larger than 1 MiB");
        return ROBOT_ERR_PROFILE_IO;
    }
    buf[n] = '\0';
    if (strlen(buf) != n) {
        free(buf);
        robot_set_detail(detail, detail_len, "%s: contains a NUL byte", path);
        return ROBOT_ERR_PROFILE_JSON;
    }
    *text = buf;
    return ROBOT_OK;
}

int robot_profile_load(const char *path, robot_profile *p, char *detail,
                       size_t detail_len)
{
    char *text = NULL, inner[256];
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!path || !p)
        return ROBOT_ERR_ARGUMENT;
    int rc = read_file(path, &text, detail, detail_len);
    if (rc == ROBOT_ERR_PROFILE_NAME)
        rc = ROBOT_ERR_PROFILE_IO; /* a path was given: reading failed */
    if (rc != ROBOT_OK)
        return rc;
    robot_profile q;
    rc = robot_profile_parse(text, &q, inner, sizeof inner);
    free(text);
    if (rc != ROBOT_OK) {
        robot_set_detail(detail, detail_len, "%s: %s", path, inner);
        return rc;
    }
    if (strcmp(q.name, "custom") == 0) {
        /* The path names the profile; it is printed in plain text and in
         * JSON, so it is quoted when it is not printable UTF-8 and cut
         * only between characters. */
        size_t n = strlen(path), cut = 0;
        int plain = qs_utf8_check(path, n) == n;
        for (size_t i = 0; plain && i < n; i++)
            plain = (unsigned char)path[i] >= 0x20 && path[i] != 0x7f;
        memset(q.name, 0, sizeof q.name);
        if (!plain) {
            qs_text_quote(path, n, q.name, sizeof q.name);
        } else {
            while (cut < n) {
                size_t next = cut + 1;
                while (next < n && ((unsigned char)path[next] & 0xc0) == 0x80)
                    next++;
                if (next >= sizeof q.name)
                    break;
                cut = next;
            }
            memcpy(q.name, path, cut);
        }
    }
    *p = q;
    return ROBOT_OK;
}

int robot_profile_select(const char *spec, robot_profile *p, char *detail,
                         size_t detail_len)
{
    if (detail && detail_len > 0)
        detail[0] = '\0';
    if (!spec || !p)
        return ROBOT_ERR_ARGUMENT;
    if (robot_profile_builtin(spec, p) == ROBOT_OK)
        return ROBOT_OK;
    int looks_like_path = strchr(spec, '/') != NULL ||
                          (strlen(spec) > 5 &&
                           strcmp(spec + strlen(spec) - 5, ".json") == 0);
    /* stat, not fopen: opening a FIFO to see whether it exists would
     * wait for a writer. */
    struct stat st;
    if (stat(spec, &st) != 0 && errno == ENOENT && !looks_like_path) {
        char shown[80];
        robot_set_detail(detail, detail_len,
                   "no profile '%s' (built-in: default, lego, servo; or a "
                   "JSON file path)",
                   qs_text_quote(spec, strlen(spec), shown, sizeof shown));
        return ROBOT_ERR_PROFILE_NAME;
    }
    return robot_profile_load(spec, p, detail, detail_len);
}

int robot_profile_to_json(const robot_profile *p, char *out, size_t out_len)
{
    if (!p || !out || out_len == 0)
        return ROBOT_ERR_ARGUMENT;
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return ROBOT_ERR_NOMEM;
    int ok = cJSON_AddStringToObject(o, "name", p->name) != NULL;
    for (size_t i = 0; i < N_FIELDS && ok; i++)
        ok = cJSON_AddNumberToObject(
                 o, fields[i].key,
                 *(const double *)((const char *)p + fields[i].offset)) !=
             NULL;
    char *text = ok ? cJSON_Print(o) : NULL;
    cJSON_Delete(o);
    if (!text)
        return ROBOT_ERR_NOMEM;
    size_t len = strlen(text);
    int rc = len < out_len ? (int)len : ROBOT_ERR_BUFFER;
    if (len < out_len)
        memcpy(out, text, len + 1);
    else
        out[0] = '\0';
    cJSON_free(text);
    return rc;
}

void robot_profile_derive(robot_profile *p)
{
    if (!p)
        return;
    /* The least a regrip beside a turn adds to it: a lower bound of
     * robot_step_us(turn with regrips) - robot_step_us(turn) over turns. */
    const double turn[4] = {p->quarter_ms, p->half_ms, p->pair_quarter_ms,
                            p->pair_half_ms};
    double least = -1;
    for (int i = 0; i < 4; i++) {
        double extra = robot_regrip_ms(p) - (turn[i] + p->settle_ms);
        extra = extra > 0 ? extra : 0;
        if (least < 0 || extra < least)
            least = extra;
    }
    p->regrip_parallel_ms = least;
}

double robot_free_quarter_ms(const robot_profile *p)
{
    double t = p->regrip_ms - p->open_ms - p->close_ms;
    return t > 0 ? t : 0;
}

double robot_regrip_ms(const robot_profile *p)
{
    return p->open_ms + robot_free_quarter_ms(p) + p->close_ms;
}

/* One timing model (docs/robot-model.md, "Timing"): each gripper's
 * actions take their physical durations, all the actions of a step start
 * together and the step ends with the last; a gripper that moved the cube
 * waits settle_ms after its motion. Written here in robot-step terms;
 * quadsim times the same physics gripper by gripper with its own code. */
int64_t robot_step_us(const robot_profile *p, const robot_step *s)
{
    double ms;
    if (!p || !s || robot_step_op(s) < 0)
        return -1;
    switch (s->kind) {
    case ROBOT_STEP_TURN:
        if (s->arg < 18)
            ms = s->arg % 3 == 1 ? p->half_ms : p->quarter_ms;
        else
            /* A pair is as slow as a half turn if either face turns half. */
            ms = ((s->arg - 18) % 9 / 3 == 1 || (s->arg - 18) % 3 == 1)
                     ? p->pair_half_ms
                     : p->pair_quarter_ms;
        ms += p->settle_ms;
        /* Each regripped gripper opens, rotates back and closes meanwhile:
         * the step lasts as long as the slower of the two. */
        if (s->regrips && robot_regrip_ms(p) > ms)
            ms = robot_regrip_ms(p);
        break;
    case ROBOT_STEP_TILT: {
        /* The released axis opens, the pair turns the cube and settles
         * while the released grippers that regrip rotate, then they
         * close. */
        double mid = p->tilt_ms + p->settle_ms;
        if (s->regrips && robot_free_quarter_ms(p) > mid)
            mid = robot_free_quarter_ms(p);
        ms = p->open_ms + mid + p->close_ms;
        break;
    }
    default:
        /* Nothing moves the cube: no settling. */
        ms = robot_regrip_ms(p);
        break;
    }
    return llround(ms * 1000.0);
}
