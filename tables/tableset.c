/*
 * tableset.c - ready-to-use table sets: for each pruning blob a metric
 * needs, map its file from the cache directory or, when it is missing or
 * damaged, generate it with the solver, store it, and use it from memory;
 * then build the solver's qs_tables over the blobs. Also the per-blob
 * inspection behind `quadsolve tables info|verify` and forced regeneration.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "qtab.h"

struct qtab_set {
    qs_metric metric;
    int blobs;
    qtab_mapping maps[QS_BLOB_MAX]; /* blobs loaded from files */
    void *owned[QS_BLOB_MAX];       /* blobs generated into memory */
    size_t owned_bytes[QS_BLOB_MAX];
    qs_tables *tables;
    qtab_stats stats;
    qtab_warm *warm; /* options.keep_warm_ms, NULL without */
};

/* Everything about one blob that the steps below need. */
typedef struct {
    qs_metric metric;
    int index;
    qs_blob_info info;
    qtab_file_desc desc;
    char name[64];
    char path[PATH_MAX];
} blob_ref;

void qtab_options_default(qtab_options *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 0;
    o->rebuild_corrupt = 1;
    o->progress = 1;
}

static void say(const qtab_options *o, qtab_log_level level, const char *fmt,
                ...) __attribute__((format(printf, 3, 4)));

static void say(const qtab_options *o, qtab_log_level level, const char *fmt,
                ...)
{
    if (level == QTAB_LOG_INFO && o->quiet)
        return;
    char msg[PATH_MAX + 512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    if (o->log != NULL)
        o->log(o->log_ctx, level, msg);
    else
        fprintf(stderr, "%s\n", msg);
}

static int valid_metric(qs_metric m)
{
    return (int)m >= 0 && (int)m < QS_METRIC_COUNT;
}

/* Files that exist but cannot be used as they are; regenerating fixes
 * them, unlike I/O or memory errors. */
static int is_damage(int rc)
{
    switch (rc) {
    case QTAB_ERR_TRUNCATED:
    case QTAB_ERR_MAGIC:
    case QTAB_ERR_VERSION:
    case QTAB_ERR_ENDIAN:
    case QTAB_ERR_HEADER_CHECKSUM:
    case QTAB_ERR_KIND:
    case QTAB_ERR_METRIC:
    case QTAB_ERR_SIZE:
    case QTAB_ERR_CHECKSUM:
        return 1;
    default:
        return 0;
    }
}

/* The error text for a failed file operation; errno only means something
 * after QTAB_ERR_IO and QTAB_ERR_CACHE_DIR. */
static const char *why(int rc, int err)
{
    if ((rc == QTAB_ERR_IO || rc == QTAB_ERR_CACHE_DIR) && err != 0)
        return strerror(err);
    return qtab_strerror(rc);
}

static int resolve_dir(const char *dir, char *buf, size_t len)
{
    if (dir == NULL)
        return qtab_cache_dir(buf, len);
    int n = snprintf(buf, len, "%s", dir);
    return n < 0 || (size_t)n >= len ? QTAB_ERR_ARGUMENT : QTAB_OK;
}

static int describe(qs_metric m, int i, const char *dir, blob_ref *b)
{
    memset(b, 0, sizeof *b);
    if (!valid_metric(m) || i < 0 || i >= qs_blob_count(m) ||
        i >= QS_BLOB_MAX || qs_blob_describe(m, i, &b->info) != QS_OK)
        return QTAB_ERR_ARGUMENT;
    b->metric = m;
    b->index = i;
    b->desc.kind = b->info.kind;
    b->desc.metric = (uint32_t)m;
    b->desc.entries = b->info.entries;
    b->desc.bytes = b->info.bytes;
    int n = snprintf(b->name, sizeof b->name, "%s-%s", qs_metric_name(m),
                     b->info.name);
    if (n < 0 || (size_t)n >= sizeof b->name)
        return QTAB_ERR_ARGUMENT;
    n = snprintf(b->path, sizeof b->path, "%s/%s.qst", dir, b->name);
    if (n < 0 || (size_t)n >= sizeof b->path)
        return QTAB_ERR_ARGUMENT;
    return QTAB_OK;
}

int qtab_blob_path(qs_metric m, int i, const char *dir, char *buf,
                   size_t len)
{
    if (buf == NULL || len == 0)
        return QTAB_ERR_ARGUMENT;
    char d[PATH_MAX];
    int rc = resolve_dir(dir, d, sizeof d);
    if (rc != QTAB_OK)
        return rc;
    blob_ref b;
    rc = describe(m, i, d, &b);
    if (rc != QTAB_OK)
        return rc;
    int n = snprintf(buf, len, "%s", b.path);
    return n < 0 || (size_t)n >= len ? QTAB_ERR_ARGUMENT : QTAB_OK;
}

/* Runs the solver's generator for one blob into a new buffer (*out, which
 * the caller frees). */
/* Context of progress_to_log: the blob and the last tenth reported. */
typedef struct {
    const qtab_options *o;
    const char *name;
    int tenths;
} log_progress;

static void progress_to_log(void *ctx, double fraction)
{
    log_progress *lp = ctx;
    int tenths = (int)(fraction * 10.0 + 1e-9);
    if (tenths > lp->tenths && tenths < 10) {
        lp->tenths = tenths;
        say(lp->o, QTAB_LOG_INFO, "%s: %d%% generated", lp->name,
            tenths * 10);
    }
}

/* made: the blobs of b's metric generated so far in this run (see
 * qs_blob_generate), or NULL. */
static int generate_blob(const blob_ref *b, const qtab_options *o,
                         int threads, const void *const *made, void **out)
{
    *out = NULL;
    if (b->info.bytes > SIZE_MAX) {
        say(o, QTAB_LOG_ERROR, "%s: %llu bytes do not fit in memory", b->name,
            (unsigned long long)b->info.bytes);
        return QTAB_ERR_NOMEM;
    }
    void *buf = qtab_huge_alloc((size_t)b->info.bytes);
    if (buf == NULL) {
        say(o, QTAB_LOG_ERROR, "%s: cannot allocate %llu bytes", b->name,
            (unsigned long long)b->info.bytes);
        return QTAB_ERR_NOMEM;
    }
    qtab_progress *bar = NULL;
    if (o->progress && !o->quiet && isatty(STDERR_FILENO))
        bar = qtab_progress_start(stderr, b->name);
    /* Without a terminal (a daemon's log) progress goes out as INFO lines,
     * one per tenth, so a long generation is visibly alive. */
    log_progress lp = {o, b->name, 0};
    int log_lines = bar == NULL && o->progress && !o->quiet;
    int rc = qs_blob_generate(b->metric, b->index, buf, threads, made,
                              bar != NULL  ? qtab_progress_callback
                              : log_lines ? progress_to_log
                                          : NULL,
                              bar != NULL ? (void *)bar : (void *)&lp,
                              o->cancel);
    /* Cleared rather than kept: the summary line below replaces it. */
    qtab_progress_finish(bar, 1);
    if (rc != QS_OK) {
        qtab_huge_free(buf, (size_t)b->info.bytes);
        say(o, QTAB_LOG_ERROR, "%s: generation failed: %s", b->name,
            qs_strerror(rc));
        return QTAB_ERR_GENERATE;
    }
    *out = buf;
    return QTAB_OK;
}

/* Creates the directory if needed and writes the blob's file atomically. */
static int store_blob(const blob_ref *b, const char *dir, const void *data,
                      int threads)
{
    int rc = qtab_mkdirs(dir);
    if (rc == QTAB_OK)
        rc = qtab_file_write(b->path, &b->desc, data, threads);
    return rc;
}

/* Whether the options ask for blob `info` of metric m: every required
 * blob but those the size chosen leaves out, and the optional ones of that
 * size. */
static int wanted(qs_metric m, const qs_blob_info *info, const qtab_options *o)
{
    if (!info->optional)
        return ((int)o->optimal & info->omit) == 0;
    if (m == QS_METRIC_ROBOT)
        return o->robot == QTAB_ROBOT_LARGE ||
               (o->robot == QTAB_ROBOT_MEDIUM &&
                (info->optional & QS_BLOB_ROBOT_MEDIUM));
    /* qs_blob_info.optional is the bit of the sizes that want the blob */
    return ((int)o->optimal & info->optional) != 0;
}

/* Whether a blob that feeds others (qs_blob_info.feeds) must be kept
 * after it is stored: only when a blob it feeds is generated too. The
 * robot small set has no move table, so its 282 MB phase-1 table is
 * freed at once. */
static int feeds_wanted(qs_metric m, const qs_blob_info *info,
                        const char *dir, const qtab_options *o)
{
    for (int j = 0; j < QS_BLOB_MAX; j++) {
        blob_ref fed;
        if ((info->feeds >> j & 1) && describe(m, j, dir, &fed) == QTAB_OK &&
            wanted(m, &fed.info, o))
            return 1;
    }
    return 0;
}

static const char *const robot_size_names[] = {"large", "small", "medium"};
#define N_ROBOT_SIZES \
    (int)(sizeof robot_size_names / sizeof robot_size_names[0])

int qtab_robot_size_parse(const char *name)
{
    for (int s = 0; name && s < N_ROBOT_SIZES; s++)
        if (strcmp(name, robot_size_names[s]) == 0)
            return s;
    return -1;
}

const char *qtab_robot_size_name(qtab_robot_size s)
{
    return (int)s >= 0 && (int)s < N_ROBOT_SIZES ? robot_size_names[s] : "?";
}

/* Indexed by size; NULL where a value is no size. */
static const char *const optimal_size_names[] = {
    "small", "large", "h48", "large+h48", NULL, NULL,   "compact",
    NULL,    "xl",    NULL,  NULL,        NULL, NULL,   NULL,
    NULL,    NULL,    NULL,  NULL,        NULL, NULL,   "h48h7"};
#define N_SIZE_VALUES \
    (int)(sizeof optimal_size_names / sizeof optimal_size_names[0])

static int is_size(int s)
{
    return s >= 0 && s < N_SIZE_VALUES && optimal_size_names[s] != NULL;
}

int qtab_optimal_size_parse(const char *name)
{
    for (int s = 0; name && s < N_SIZE_VALUES; s++)
        if (is_size(s) && strcmp(name, optimal_size_names[s]) == 0)
            return s;
    return -1;
}

const char *qtab_optimal_size_name(qtab_optimal_size s)
{
    return is_size((int)s) ? optimal_size_names[s] : "?";
}

int qtab_optimal_size_two_phase(qs_metric m, qtab_optimal_size s)
{
    if (!valid_metric(m) || !is_size((int)s))
        return 0;
    /* the two-phase tables are the required blobs a size may omit */
    for (int i = 0; i < qs_blob_count(m); i++) {
        qs_blob_info info;
        if (qs_blob_describe(m, i, &info) == QS_OK && !info.optional &&
            ((int)s & info.omit))
            return 0;
    }
    return 1;
}

int qtab_optimal_size_saving(qtab_optimal_size s)
{
    if (!is_size((int)s))
        return 0;
    /* QTM's optional blobs are its large table, which every size but
     * these wants (qs_blob_info.optional: the bits of the sizes that
     * want a blob) */
    for (int i = 0; i < qs_blob_count(QS_METRIC_QTM); i++) {
        qs_blob_info info;
        if (qs_blob_describe(QS_METRIC_QTM, i, &info) == QS_OK &&
            ((int)s & info.optional))
            return 0;
    }
    return 1;
}

static int sizes_valid(const qtab_options *o)
{
    return is_size((int)o->optimal) &&
           (int)o->robot >= 0 && (int)o->robot < N_ROBOT_SIZES;
}

/* What opening, generating and inspecting a metric's set begin with: the
 * metric checked, the table directory found (and made when make is set)
 * and the number of blobs the solver has for m. Failures are said through
 * o's log, when there is one. */
static int begin(qs_metric m, const qtab_options *o, const char *dir_opt,
                 int make, char dir[PATH_MAX], int *count)
{
    if (!valid_metric(m)) {
        if (o != NULL)
            say(o, QTAB_LOG_ERROR, "tables: invalid metric %d", (int)m);
        return QTAB_ERR_ARGUMENT;
    }
    if (o != NULL && !sizes_valid(o)) {
        say(o, QTAB_LOG_ERROR, "tables: invalid table size (optimal %d, "
            "robot %d)", (int)o->optimal, (int)o->robot);
        return QTAB_ERR_ARGUMENT;
    }
    int rc = resolve_dir(dir_opt, dir, PATH_MAX);
    if (rc == QTAB_OK && make)
        rc = qtab_mkdirs(dir);
    if (rc != QTAB_OK) {
        if (o != NULL)
            say(o, QTAB_LOG_ERROR, "tables: no table directory: %s",
                why(rc, errno));
        return rc;
    }
    *count = qs_blob_count(m);
    if (*count < 0 || *count > QS_BLOB_MAX) {
        if (o != NULL)
            say(o, QTAB_LOG_ERROR, "tables: solver reports %d blobs for %s",
                *count, qs_metric_name(m));
        return QTAB_ERR_ARGUMENT;
    }
    return QTAB_OK;
}

int qtab_open(qs_metric m, const qtab_options *user, qtab_set **out)
{
    if (out == NULL)
        return QTAB_ERR_ARGUMENT;
    *out = NULL;
    qtab_options o;
    if (user != NULL)
        o = *user;
    else
        qtab_options_default(&o);
    if (o.keep_warm_ms < 0 || o.keep_warm_ms > QTAB_KEEP_WARM_MAX_MS) {
        say(&o, QTAB_LOG_ERROR, "tables: keep_warm_ms %d is out of range "
            "(0 to %d)", o.keep_warm_ms, QTAB_KEEP_WARM_MAX_MS);
        return QTAB_ERR_ARGUMENT;
    }
    char dir[PATH_MAX];
    int count;
    int rc = begin(m, &o, o.dir, 0, dir, &count);
    if (rc != QTAB_OK)
        return rc;
    int threads = qtab_threads(o.threads);
    qtab_set *s = calloc(1, sizeof *s);
    if (s == NULL)
        return QTAB_ERR_NOMEM;
    s->metric = m;
    s->blobs = count;
    s->stats.blobs = count;
    const void *blobs[QS_BLOB_MAX] = {NULL};

    for (int i = 0; i < count; i++) {
        blob_ref b;
        rc = describe(m, i, dir, &b);
        if (rc != QTAB_OK) {
            say(&o, QTAB_LOG_ERROR, "tables: cannot describe blob %d of %s",
                i, qs_metric_name(m));
            goto fail;
        }
        if (!wanted(m, &b.info, &o))
            continue;
        s->stats.bytes += b.info.bytes;

        double t0 = qtab_now();
        rc = qtab_file_map(b.path, &b.desc, threads, &s->maps[i]);
        int err = errno;
        s->stats.load_seconds += qtab_now() - t0;
        if (rc == QTAB_OK) {
            blobs[i] = s->maps[i].payload;
            s->stats.loaded++;
            continue;
        }
        if (is_damage(rc) && o.rebuild_corrupt) {
            say(&o, QTAB_LOG_WARN, "%s: %s: %s; regenerating", b.name, b.path,
                qtab_strerror(rc));
        } else if (rc != QTAB_ERR_NOT_FOUND) {
            say(&o, QTAB_LOG_ERROR, "%s: %s: %s%s", b.name, b.path,
                why(rc, err),
                is_damage(rc) ? "; rebuilding is off, run 'quadsolve tables "
                                "generate'"
                              : "");
            goto fail;
        }

        t0 = qtab_now();
        /* Earlier blobs, generated or mapped, are intact (a mapped file's
         * checksum was verified above), so a generator may read them. */
        rc = generate_blob(&b, &o, threads, blobs, &s->owned[i]);
        if (rc != QTAB_OK)
            goto fail;
        blobs[i] = s->owned[i];
        s->owned_bytes[i] = (size_t)b.info.bytes;
        s->stats.generated++;
        /* The blob is usable from memory even if it cannot be stored, so a
         * read-only cache only costs time on the next start. */
        int wrc = store_blob(&b, dir, s->owned[i], threads);
        if (wrc != QTAB_OK)
            say(&o, QTAB_LOG_WARN, "%s: cannot write %s: %s; using it from "
                "memory", b.name, b.path, why(wrc, errno));
        double dt = qtab_now() - t0;
        s->stats.generate_seconds += dt;
        say(&o, QTAB_LOG_INFO, "generating %s ... done in %.1f s", b.name, dt);
    }

    s->stats.blobs = s->stats.loaded + s->stats.generated;
    /* Started before the solver's own tables are built (a few tenths of
     * a second), so that the blobs are warm for the first solve. */
    if (o.keep_warm_ms > 0) {
        const void *base[QS_BLOB_MAX];
        size_t bytes[QS_BLOB_MAX];
        for (int i = 0; i < QS_BLOB_MAX; i++) {
            base[i] = blobs[i];
            bytes[i] = s->maps[i].payload != NULL
                           ? (size_t)s->maps[i].header.desc.bytes
                           : s->owned_bytes[i];
        }
        s->warm = qtab_warm_start(base, bytes, QS_BLOB_MAX, o.keep_warm_ms);
        if (s->warm == NULL)
            say(&o, QTAB_LOG_WARN, "tables: cannot start the thread that "
                "keeps the %s tables warm; solves after a pause may be "
                "slower", qs_metric_name(m));
    }
    rc = qs_tables_create(m, blobs, &s->tables);
    if (rc != QS_OK) {
        say(&o, QTAB_LOG_ERROR, "tables: cannot build the %s table set: %s",
            qs_metric_name(m), qs_strerror(rc));
        rc = rc == QS_ERR_NOMEM ? QTAB_ERR_NOMEM : QTAB_ERR_GENERATE;
        goto fail;
    }
    *out = s;
    return QTAB_OK;

fail:
    qtab_close(s);
    return rc;
}

const qs_tables *qtab_set_tables(const qtab_set *s)
{
    return s != NULL ? s->tables : NULL;
}

void qtab_set_stats(const qtab_set *s, qtab_stats *stats)
{
    if (s != NULL && stats != NULL) {
        *stats = s->stats;
        qtab_warm_stats(s->warm, &stats->warm_sweeps, &stats->warm_seconds);
        stats->warm_threads = s->warm != NULL;
    }
}

void qtab_close(qtab_set *s)
{
    if (s == NULL)
        return;
    qtab_warm_stop(s->warm);
    /* The table set refers to the blobs, so it goes first. */
    if (s->tables != NULL)
        qs_tables_free(s->tables);
    for (int i = 0; i < QS_BLOB_MAX; i++) {
        qtab_file_unmap(&s->maps[i]);
        qtab_huge_free(s->owned[i], s->owned_bytes[i]);
    }
    free(s);
}

int qtab_generate(qs_metric m, const qtab_options *user, qtab_stats *stats)
{
    qtab_options o;
    if (user != NULL)
        o = *user;
    else
        qtab_options_default(&o);
    qtab_stats st = {0};
    if (stats != NULL)
        *stats = st;
    char dir[PATH_MAX];
    int count;
    int rc = begin(m, &o, o.dir, 1, dir, &count);
    if (rc != QTAB_OK)
        return rc;
    int threads = qtab_threads(o.threads);
    st.blobs = count;
    /* Blobs a later generator reads (qs_blob_info.feeds) are kept until
     * the end; the others are freed once stored. */
    void *made[QS_BLOB_MAX] = {NULL};
    size_t made_bytes[QS_BLOB_MAX] = {0};
    for (int i = 0; i < count && rc == QTAB_OK; i++) {
        blob_ref b;
        rc = describe(m, i, dir, &b);
        if (rc != QTAB_OK) {
            say(&o, QTAB_LOG_ERROR, "tables: cannot describe blob %d of %s",
                i, qs_metric_name(m));
            break;
        }
        if (!wanted(m, &b.info, &o))
            continue;
        st.bytes += b.info.bytes;
        double t0 = qtab_now();
        void *data;
        rc = generate_blob(&b, &o, threads, (const void *const *)made, &data);
        if (rc != QTAB_OK)
            break;
        rc = store_blob(&b, dir, data, threads);
        if (feeds_wanted(m, &b.info, dir, &o)) {
            made[i] = data;
            made_bytes[i] = (size_t)b.info.bytes;
        } else {
            qtab_huge_free(data, (size_t)b.info.bytes);
        }
        if (rc != QTAB_OK) {
            say(&o, QTAB_LOG_ERROR, "%s: cannot write %s: %s", b.name, b.path,
                why(rc, errno));
            break;
        }
        double dt = qtab_now() - t0;
        st.generated++;
        st.generate_seconds += dt;
        say(&o, QTAB_LOG_INFO, "generating %s ... done in %.1f s", b.name, dt);
    }
    for (int i = 0; i < QS_BLOB_MAX; i++)
        qtab_huge_free(made[i], made_bytes[i]);
    st.blobs = st.generated;
    if (stats != NULL)
        *stats = st;
    return rc;
}

/* Shared body of qtab_info and qtab_verify: every blob is reported; a
 * file present counts with whatever it is found to be, an absent one only
 * when the sizes of o want it. */
static int inspect(qs_metric m, const qtab_options *user,
                   qtab_report_fn report, void *ctx, int verify)
{
    qtab_options o;
    if (user != NULL)
        o = *user;
    else
        qtab_options_default(&o);
    if (!sizes_valid(&o))
        return QTAB_ERR_ARGUMENT;
    /* Inspecting says nothing but through report: no log. */
    char dir[PATH_MAX];
    int count;
    int rc = begin(m, NULL, o.dir, 0, dir, &count);
    if (rc != QTAB_OK)
        return rc;
    int first = QTAB_OK;
    for (int i = 0; i < count; i++) {
        blob_ref b;
        rc = describe(m, i, dir, &b);
        if (rc != QTAB_OK)
            return rc;
        qtab_blob_report r;
        memset(&r, 0, sizeof r);
        r.metric = m;
        r.index = i;
        memcpy(r.name, b.name, sizeof r.name);
        r.path = b.path;
        r.expected = b.info;
        r.wanted = wanted(m, &b.info, &o);
        double t0 = qtab_now();
        if (verify) {
            qtab_mapping map;
            rc = qtab_file_map(b.path, &b.desc, qtab_threads(o.threads), &map);
            r.header = map.header;
            r.payload_checked = rc == QTAB_OK || rc == QTAB_ERR_CHECKSUM;
            qtab_file_unmap(&map);
        } else {
            rc = qtab_file_info(b.path, &b.desc, &r.header);
        }
        r.seconds = qtab_now() - t0;
        r.present = rc != QTAB_ERR_NOT_FOUND;
        r.status = rc;
        /* A blob the sizes leave out is no fault of the set when nobody
         * generated it; a damaged file is a fault whatever the size. */
        if (first == QTAB_OK && (r.present || r.wanted))
            first = rc;
        if (report != NULL)
            report(ctx, &r);
    }
    return first;
}

int qtab_info(qs_metric m, const qtab_options *o, qtab_report_fn report,
              void *ctx)
{
    return inspect(m, o, report, ctx, 0);
}

int qtab_verify(qs_metric m, const qtab_options *o, qtab_report_fn report,
                void *ctx)
{
    return inspect(m, o, report, ctx, 1);
}
