/*
 * compare_data.c - the data behind `quadsolve compare` and the HTML
 * reports: solutions of many cubes by several solvers (labels), each
 * parsed from whatever format its solver prints, checked against its cube,
 * measured in every metric and planned for the robot under each profile.
 * One row per cube, one entry per label; the same rows are printed as
 * JSON lines (and read back to merge shards), CSV, a terminal summary or
 * a report.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cJSON.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

int cmp_data_init(cmp_data *d, int n_labels, int n_profiles)
{
    memset(d, 0, sizeof *d);
    if (n_labels < 1 || n_labels > CMP_MAX_LABELS || n_profiles < 1 ||
        n_profiles > CMP_MAX_PROFILES)
        return -1;
    d->n_labels = n_labels;
    d->n_profiles = n_profiles;
    robot_model_init(&d->model);
    return 0;
}

void cmp_data_free(cmp_data *d)
{
    free(d->rows);
    d->rows = NULL;
    d->n_rows = d->cap_rows = 0;
}

cmp_row *cmp_data_add_row(cmp_data *d, int cube, const char *facelets)
{
    if (d->n_rows == d->cap_rows) {
        int cap = d->cap_rows ? 2 * d->cap_rows : 256;
        cmp_row *r = realloc(d->rows, sizeof *r * (size_t)cap);
        if (!r)
            return NULL;
        d->rows = r;
        d->cap_rows = cap;
    }
    cmp_row *r = &d->rows[d->n_rows++];
    memset(r, 0, sizeof *r);
    r->cube = cube;
    snprintf(r->facelets, sizeof r->facelets, "%s", facelets);
    return r;
}

/* Removes a trailing move count as solvers print it after a solution:
 * "(20f)", "(20)", "(22q)", "(20f*)". A parenthesised move pair such as
 * "(U D')" is not a count and stays. */
static void strip_count(char *s)
{
    size_t n = strlen(s);
    while (n > 0 && isspace((unsigned char)s[n - 1]))
        s[--n] = '\0';
    if (n < 3 || s[n - 1] != ')')
        return;
    char *open = strrchr(s, '(');
    if (!open || !isdigit((unsigned char)open[1]))
        return;
    for (char *p = open + 1; p < s + n - 1; p++)
        if (!isalnum((unsigned char)*p) && *p != '*')
            return;
    *open = '\0';
}

/* A qphase answer line: robot-frame steps, each a name and the grippers
 * it regrips at the same time in brackets ("R [rF]", "(R L') []",
 * "g [rR rL]" for regrips alone), and the solver's own count at the end
 * ("{17 | ...}"). Written into our robot notation: "R+rF", "rR+rL". */
static int qphase_to_robot(const char *line, char *out, size_t len,
                           char *detail, size_t dlen)
{
    const char *end = strrchr(line, '{');
    size_t used = 0;
    const char *p = line;
    out[0] = '\0';
    while (p < end) {
        while (p < end && isspace((unsigned char)*p))
            p++;
        if (p >= end)
            break;
        const char *name = p;
        if (*p == '(') {
            const char *close = memchr(p, ')', (size_t)(end - p));
            if (!close) {
                snprintf(detail, dlen, "unclosed '(' at column %d",
                         (int)(p - line) + 1);
                return -1;
            }
            p = close + 1;
        } else {
            while (p < end && !isspace((unsigned char)*p) && *p != '[')
                p++;
        }
        size_t name_len = (size_t)(p - name);
        while (p < end && *p == ' ')
            p++;
        if (p >= end || *p != '[') {
            snprintf(detail, dlen, "step '%.*s' at column %d has no "
                     "[regrips]", (int)(name_len > 20 ? 20 : name_len),
                     name, (int)(name - line) + 1);
            return -1;
        }
        const char *close = memchr(p, ']', (size_t)(end - p));
        if (!close) {
            snprintf(detail, dlen, "unclosed '[' at column %d",
                     (int)(p - line) + 1);
            return -1;
        }
        int regrip_only = name_len == 1 && name[0] == 'g';
        int w = snprintf(out + used, len - used, "%s%.*s", used ? " " : "",
                         regrip_only ? 0 : (int)name_len, name);
        if (w < 0 || (size_t)w >= len - used)
            return -1;
        used += (size_t)w;
        int first = regrip_only;
        for (const char *q = p + 1; q < close;) {
            while (q < close && *q == ' ')
                q++;
            const char *r = q;
            while (q < close && *q != ' ')
                q++;
            if (q == r)
                break;
            w = snprintf(out + used, len - used, "%s%.*s", first ? "" : "+",
                         (int)(q - r), r);
            if (w < 0 || (size_t)w >= len - used)
                return -1;
            used += (size_t)w;
            first = 0;
        }
        p = close + 1;
    }
    return 0;
}

/* The cube-frame moves of one solution line in any format compare reads;
 * returns the count, or -1 with *why set (the line is reported, never
 * counted). */
static int parse_solution(const cmp_data *d, const char *line, qs_move *moves,
                          char *why, size_t why_len)
{
    char detail[200] = "";
    char buf[4096];
    while (isspace((unsigned char)*line))
        line++;
    snprintf(buf, sizeof buf, "%s", line);
    size_t n = strlen(buf);
    while (n > 0 && isspace((unsigned char)buf[n - 1]))
        buf[--n] = '\0';

    if (buf[0] == '{') {
        /* quadsolve solve --json */
        cJSON *o = cJSON_Parse(buf);
        if (!o) {
            snprintf(why, why_len, "not valid JSON");
            return -1;
        }
        const cJSON *ok = cJSON_GetObjectItemCaseSensitive(o, "ok");
        const cJSON *mv = cJSON_GetObjectItemCaseSensitive(o, "moves");
        int rc = -1;
        if (cJSON_IsFalse(ok)) {
            const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
            const cJSON *code = cJSON_GetObjectItemCaseSensitive(e, "code");
            snprintf(why, why_len, "the solver failed: %s",
                     cJSON_IsString(code) ? code->valuestring : "error");
        } else if (!cJSON_IsString(mv)) {
            snprintf(why, why_len, "JSON without \"moves\"");
        } else {
            rc = qs_moves_parse(mv->valuestring, moves, QS_MAX_MOVES, detail,
                                sizeof detail);
            if (rc < 0)
                snprintf(why, why_len, "moves: %s", detail);
        }
        cJSON_Delete(o);
        return rc < 0 ? -1 : rc;
    }
    if (strncmp(buf, "error:", 6) == 0) {
        snprintf(why, why_len, "the solver failed:%.80s", buf + 6);
        return -1;
    }
    if (n > 0 && buf[n - 1] == '}' && strchr(buf, '[')) {
        /* qphase: robot-frame steps, replayed as written to get the
         * cube-frame turns they make */
        char text[4096];
        robot_step steps[ROBOT_MAX_STEPS];
        if (qphase_to_robot(buf, text, sizeof text, detail, sizeof detail)) {
            snprintf(why, why_len, "qphase line: %s",
                     *detail ? detail : "too long");
            return -1;
        }
        int ns = robot_steps_parse(text, steps, ROBOT_MAX_STEPS, detail,
                                   sizeof detail);
        if (ns < 0) {
            snprintf(why, why_len, "qphase steps: %s", detail);
            return -1;
        }
        int rc = robot_steps_to_moves(&d->model, steps, ns, moves,
                                      QS_MAX_MOVES);
        if (rc < 0) {
            snprintf(why, why_len, "qphase steps: %s", robot_strerror(rc));
            return -1;
        }
        return rc;
    }
    strip_count(buf);
    int rc = qs_moves_parse(buf, moves, QS_MAX_MOVES, detail, sizeof detail);
    if (rc < 0) {
        snprintf(why, why_len, "%s", *detail ? detail : qs_strerror(rc));
        return -1;
    }
    return rc;
}

int cmp_measure(const cmp_data *d, const qs_cube *cube, const qs_move *moves,
                int n, cmp_entry *e)
{
    qs_cube c = *cube;
    qs_cube_apply_moves(&c, moves, n);
    e->ok = 0;
    if (!qs_cube_is_solved(&c)) {
        snprintf(e->error, sizeof e->error, "does not solve the cube");
        return -1;
    }
    memcpy(e->moves, moves, (size_t)n);
    e->n = n;
    for (int m = 0; m < QS_PLAIN_METRICS; m++)
        e->len[m] = qs_moves_length(moves, n, (qs_metric)m);
    for (int p = 0; p < d->n_profiles; p++) {
        robot_schedule plan;
        char detail[128];
        int rc = robot_plan(&d->model, &d->profiles[p], d->objective, moves,
                            n, &plan);
        if (rc == ROBOT_OK)
            rc = robot_check(&plan, cube, &d->profiles[p], detail,
                             sizeof detail);
        if (rc != ROBOT_OK) {
            snprintf(e->error, sizeof e->error, "robot plan (%s): %s",
                     d->profiles[p].name, robot_strerror(rc));
            return -1;
        }
        e->robot[p].robot_moves = plan.robot_moves;
        e->robot[p].tilts = plan.tilts;
        e->robot[p].full_regrips = plan.full_regrips;
        e->robot[p].cost_ms = plan.cost_ms;
    }
    e->ok = 1;
    e->error[0] = '\0';
    return 0;
}

void cmp_evaluate_line(const cmp_data *d, const qs_cube *cube,
                       const char *line, cmp_entry *e)
{
    qs_move moves[QS_MAX_MOVES];
    memset(e, 0, sizeof *e);
    if (!line) {
        snprintf(e->error, sizeof e->error, "no line for this cube");
        return;
    }
    int n = parse_solution(d, line, moves, e->error, sizeof e->error);
    if (n >= 0)
        cmp_measure(d, cube, moves, n, e);
}

/* ------------------------------------------------------------ JSON lines */

cJSON *cmp_header_json(const cmp_data *d, int shard_k, int shard_n)
{
    cJSON *o = cJSON_CreateObject();
    cJSON *h = cJSON_AddObjectToObject(o, "compare");
    cJSON_AddNumberToObject(h, "cubes", d->n_cubes);
    cJSON_AddStringToObject(h, "objective",
                            d->objective == ROBOT_OBJ_TIME ? "time" : "moves");
    cJSON *labels = cJSON_AddArrayToObject(h, "labels");
    for (int l = 0; l < d->n_labels; l++)
        cJSON_AddItemToArray(labels, cJSON_CreateString(d->labels[l]));
    cJSON *profiles = cJSON_AddArrayToObject(h, "profiles");
    for (int p = 0; p < d->n_profiles; p++) {
        char json[1024];
        if (robot_profile_to_json(&d->profiles[p], json, sizeof json) < 0)
            json[0] = '\0';
        cJSON *pj = cJSON_Parse(json);
        cJSON_AddItemToArray(profiles, pj ? pj : cJSON_CreateNull());
    }
    char shard[32];
    snprintf(shard, sizeof shard, "%d/%d", shard_k, shard_n);
    cJSON_AddStringToObject(h, "shard", shard);
    return o;
}

cJSON *cmp_row_json(const cmp_data *d, const cmp_row *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "cube", r->cube);
    cJSON_AddStringToObject(o, "facelets", r->facelets);
    cJSON *sols = cJSON_AddObjectToObject(o, "solutions");
    for (int l = 0; l < d->n_labels; l++) {
        const cmp_entry *e = &r->e[l];
        cJSON *s = cJSON_AddObjectToObject(sols, d->labels[l]);
        cJSON_AddBoolToObject(s, "ok", e->ok);
        if (!e->ok) {
            cJSON_AddStringToObject(s, "error", e->error);
            continue;
        }
        qsv_json_moves(s, e->moves, e->n, "lengths");
        cJSON *rb = cJSON_AddObjectToObject(s, "robot");
        for (int p = 0; p < d->n_profiles; p++) {
            cJSON *x = cJSON_AddObjectToObject(rb, d->profiles[p].name);
            cJSON_AddNumberToObject(x, "robot_moves", e->robot[p].robot_moves);
            cJSON_AddNumberToObject(x, "tilts", e->robot[p].tilts);
            cJSON_AddNumberToObject(x, "full_regrips",
                                    e->robot[p].full_regrips);
            cJSON_AddNumberToObject(
                x, "cost_ms", round(e->robot[p].cost_ms * 1000.0) / 1000.0);
        }
    }
    return o;
}

/* Reads one header line into d (labels, profiles, cubes); -1 with why. */
static int read_header(cmp_data *d, const cJSON *h, char *why, size_t len)
{
    const cJSON *cubes = cJSON_GetObjectItemCaseSensitive(h, "cubes");
    const cJSON *labels = cJSON_GetObjectItemCaseSensitive(h, "labels");
    const cJSON *profiles = cJSON_GetObjectItemCaseSensitive(h, "profiles");
    const cJSON *obj = cJSON_GetObjectItemCaseSensitive(h, "objective");
    int nl = cJSON_GetArraySize(labels), np = cJSON_GetArraySize(profiles);
    if (!cJSON_IsNumber(cubes) || cubes->valuedouble < 0 ||
        cubes->valuedouble > 1e8 || !cJSON_IsArray(labels) ||
        !cJSON_IsArray(profiles) || !cJSON_IsString(obj) ||
        cmp_data_init(d, nl, np) != 0) {
        snprintf(why, len, "not a compare header");
        return -1;
    }
    d->n_cubes = (int)cubes->valuedouble;
    d->objective = strcmp(obj->valuestring, "time") == 0 ? ROBOT_OBJ_TIME
                                                         : ROBOT_OBJ_MOVES;
    for (int l = 0; l < nl; l++) {
        const cJSON *s = cJSON_GetArrayItem(labels, l);
        if (!cJSON_IsString(s)) {
            snprintf(why, len, "label %d is not a string", l + 1);
            return -1;
        }
        snprintf(d->labels[l], sizeof d->labels[l], "%s", s->valuestring);
    }
    for (int p = 0; p < np; p++) {
        char *text = cJSON_PrintUnformatted(cJSON_GetArrayItem(profiles, p));
        char detail[128] = "";
        int rc = text ? robot_profile_parse(text, &d->profiles[p], detail,
                                            sizeof detail)
                      : ROBOT_ERR_NOMEM;
        cJSON_free(text);
        if (rc != ROBOT_OK) {
            snprintf(why, len, "profile %d: %s", p + 1, detail);
            return -1;
        }
    }
    return 0;
}

static int same_setup(const cmp_data *a, const cmp_data *b)
{
    if (a->n_cubes != b->n_cubes || a->n_labels != b->n_labels ||
        a->n_profiles != b->n_profiles || a->objective != b->objective)
        return 0;
    for (int l = 0; l < a->n_labels; l++)
        if (strcmp(a->labels[l], b->labels[l]) != 0)
            return 0;
    for (int p = 0; p < a->n_profiles; p++)
        if (strcmp(a->profiles[p].name, b->profiles[p].name) != 0)
            return 0;
    return 1;
}

/* One result line back into a row: the moves are measured again from
 * the cube, so a merged result is checked as the first run was. */
static int read_row(cmp_data *d, const cJSON *o, char *why, size_t len)
{
    const cJSON *cube = cJSON_GetObjectItemCaseSensitive(o, "cube");
    const cJSON *fl = cJSON_GetObjectItemCaseSensitive(o, "facelets");
    const cJSON *sols = cJSON_GetObjectItemCaseSensitive(o, "solutions");
    if (!cJSON_IsNumber(cube) || cube->valuedouble < 0 ||
        cube->valuedouble >= d->n_cubes || !cJSON_IsString(fl) ||
        !cJSON_IsObject(sols)) {
        snprintf(why, len, "not a compare result line");
        return -1;
    }
    qs_cube c;
    char detail[128];
    if (qs_cube_from_facelets(fl->valuestring, &c, detail, sizeof detail)) {
        snprintf(why, len, "facelets: %s", detail);
        return -1;
    }
    cmp_row *r = cmp_data_add_row(d, (int)cube->valuedouble, fl->valuestring);
    if (!r) {
        snprintf(why, len, "out of memory");
        return -1;
    }
    for (int l = 0; l < d->n_labels; l++) {
        const cJSON *s = cJSON_GetObjectItemCaseSensitive(sols, d->labels[l]);
        const cJSON *ok = cJSON_GetObjectItemCaseSensitive(s, "ok");
        const cJSON *mv = cJSON_GetObjectItemCaseSensitive(s, "moves");
        const cJSON *err = cJSON_GetObjectItemCaseSensitive(s, "error");
        cmp_entry *e = &r->e[l];
        memset(e, 0, sizeof *e);
        if (cJSON_IsTrue(ok) && cJSON_IsString(mv)) {
            qs_move moves[QS_MAX_MOVES];
            int n = qs_moves_parse(mv->valuestring, moves, QS_MAX_MOVES,
                                   detail, sizeof detail);
            if (n < 0) {
                snprintf(why, len, "label %s: moves: %s", d->labels[l],
                         detail);
                return -1;
            }
            cmp_measure(d, &c, moves, n, e);
        } else if (cJSON_IsFalse(ok)) {
            snprintf(e->error, sizeof e->error, "%s",
                     cJSON_IsString(err) ? err->valuestring : "error");
        } else {
            snprintf(why, len, "no entry for label %s", d->labels[l]);
            return -1;
        }
    }
    return 0;
}

static int by_cube(const void *a, const void *b)
{
    const cmp_row *x = a, *y = b;
    return (x->cube > y->cube) - (x->cube < y->cube);
}

int cmp_data_merge(cmp_data *d, char **files, int n_files, char *why,
                   size_t len)
{
    int have = 0;
    for (int f = 0; f < n_files; f++) {
        FILE *in = fopen(files[f], "r");
        if (!in) {
            snprintf(why, len, "%s: cannot open", files[f]);
            return -1;
        }
        char *line = NULL;
        size_t cap = 0;
        long line_no = 0;
        int header_seen = 0, err = 0;
        char *s;
        while (!err && (s = cli_read_line(in, &line, &cap)) != NULL) {
            line_no++;
            if (*s == '\0')
                continue;
            cJSON *o = cJSON_Parse(s);
            char what[160] = "";
            const cJSON *h = cJSON_GetObjectItemCaseSensitive(o, "compare");
            if (!o) {
                snprintf(what, sizeof what, "not JSON");
            } else if (h) {
                cmp_data hd;
                if (header_seen) {
                    snprintf(what, sizeof what, "a second header");
                } else if (read_header(&hd, h, what, sizeof what) == 0) {
                    if (!have) {
                        cmp_data_free(d);
                        *d = hd;
                        have = 1;
                    } else if (!same_setup(d, &hd)) {
                        snprintf(what, sizeof what,
                                 "labels, profiles, objective or cube count "
                                 "differ from %s", files[0]);
                    }
                    header_seen = 1;
                }
            } else if (!header_seen) {
                snprintf(what, sizeof what, "a result line before the header");
            } else {
                read_row(d, o, what, sizeof what);
            }
            cJSON_Delete(o);
            if (what[0]) {
                snprintf(why, len, "%s line %ld: %s", files[f], line_no, what);
                err = 1;
            }
        }
        free(line);
        fclose(in);
        if (err)
            return -1;
        if (!header_seen) {
            snprintf(why, len, "%s: no compare header (not a `compare "
                     "--json` output)", files[f]);
            return -1;
        }
    }
    qsort(d->rows, (size_t)d->n_rows, sizeof *d->rows, by_cube);
    for (int i = 0; i < d->n_rows; i++) {
        if (i > 0 && d->rows[i].cube == d->rows[i - 1].cube) {
            snprintf(why, len, "cube %d appears twice", d->rows[i].cube + 1);
            return -1;
        }
        if (d->rows[i].cube != i) {
            snprintf(why, len, "cube %d is missing (a shard not given?)",
                     i + 1);
            return -1;
        }
    }
    if (d->n_rows != d->n_cubes) {
        snprintf(why, len, "%d of %d cubes (a shard not given?)", d->n_rows,
                 d->n_cubes);
        return -1;
    }
    return 0;
}

/* ------------------------------------------------------------ statistics */

static int cmp_dbl(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int cmp_stats_of(const cmp_data *d, int label, int profile, int cost,
                 cmp_stats *st)
{
    double *v = malloc(sizeof *v * (size_t)(d->n_rows ? d->n_rows : 1));
    if (!v)
        return -1;
    int n = 0;
    double sum = 0;
    for (int i = 0; i < d->n_rows; i++) {
        const cmp_entry *e = &d->rows[i].e[label];
        if (!e->ok)
            continue;
        double x = profile < 0    ? e->len[QS_METRIC_HTM]
                   : cost          ? e->robot[profile].cost_ms
                                   : e->robot[profile].robot_moves;
        v[n++] = x;
        sum += x;
    }
    memset(st, 0, sizeof *st);
    st->n = n;
    if (n > 0) {
        qsort(v, (size_t)n, sizeof *v, cmp_dbl);
        st->mean = sum / n;
        /* nearest rank */
        st->median = v[(int)ceil(0.5 * n) - 1];
        st->p90 = v[(int)ceil(0.9 * n) - 1];
        st->max = v[n - 1];
        st->min = v[0];
    }
    free(v);
    return 0;
}
