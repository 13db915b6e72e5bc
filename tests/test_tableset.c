/*
 * test_tableset.c - opening real table sets (tables/tableset.c with the
 * solver's own blobs): a damaged or truncated file is never used; it is
 * rebuilt (and the rebuilt set solves cubes) or, with rebuilding off,
 * reported with the specific error; a set kept warm sweeps its blobs
 * until it is closed.
 */
#include "testutil.h"

#include <sys/stat.h>
#include <unistd.h>

static char dir[64];

/* Copies the cached htm tables into a private directory. */
/* Blobs of the HTM set that qtab_open loads by default (the optional
 * large optimal table is left out). */
static int required_blobs(void)
{
    int n = 0;
    for (int i = 0; i < qs_blob_count(QS_METRIC_HTM); i++) {
        qs_blob_info info;
        assert_int_equal(qs_blob_describe(QS_METRIC_HTM, i, &info), QS_OK);
        n += !info.optional;
    }
    return n;
}

static int setup(void **state)
{
    (void)state;
    qtab_set *set = test_open_tables(QS_METRIC_HTM); /* fills the cache */
    qtab_close(set);
    snprintf(dir, sizeof dir, "/tmp/qs-tableset.XXXXXX");
    if (!mkdtemp(dir))
        return -1;
    for (int i = 0; i < required_blobs(); i++) {
        char from[1024], to[1024], cmd[2200];
        qtab_blob_path(QS_METRIC_HTM, i, NULL, from, sizeof from);
        qtab_blob_path(QS_METRIC_HTM, i, dir, to, sizeof to);
        snprintf(cmd, sizeof cmd, "cp '%s' '%s'", from, to);
        if (system(cmd) != 0)
            return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    return system(cmd) != 0;
}

static void quiet_options(qtab_options *o, int rebuild)
{
    qtab_options_default(o);
    o->dir = dir;
    o->quiet = 1;
    o->progress = 0;
    o->rebuild_corrupt = rebuild;
}

/* Flips one byte of blob i's payload. */
static void damage(int blob, long offset)
{
    char path[1024];
    qtab_blob_path(QS_METRIC_HTM, blob, dir, path, sizeof path);
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    fseek(f, offset, SEEK_SET);
    int c = fgetc(f);
    fseek(f, offset, SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
}

/* The blob damaged by the tests below: the smallest required one (the
 * corner table, 3 MB, rebuilt in about a second, also under the
 * sanitizers), since what is checked is how a set treats a bad file, not
 * how long a blob takes to build. */
static int damaged_blob(void)
{
    for (int i = 0; i < qs_blob_count(QS_METRIC_HTM); i++) {
        qs_blob_info info;
        assert_int_equal(qs_blob_describe(QS_METRIC_HTM, i, &info), QS_OK);
        if (!info.optional && strcmp(info.name, "corners") == 0)
            return i;
    }
    fail_msg("the HTM set has no required corner table");
    return -1;
}

static void solve_one(const qtab_set *set)
{
    char cubes[1][55];
    test_read_bench("random-1k.txt", cubes, 1);
    qs_cube c;
    qs_cube_from_facelets(cubes[0], &c, NULL, 0);
    qs_options o;
    qs_options_default(&o);
    qs_solution s[1];
    int n;
    assert_int_equal(qs_solve(qtab_set_tables(set), &c, &o, s, 1, &n, NULL),
                     QS_OK);
    test_assert_solves(&c, &s[0]);
}

static void test_damaged_payload(void **state)
{
    (void)state;
    qtab_options o;
    qtab_set *set = NULL;
    damage(damaged_blob(), QTAB_HEADER_BYTES + 12345);

    quiet_options(&o, 0);
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_ERR_CHECKSUM);
    assert_null(set);

    quiet_options(&o, 1);
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_OK);
    qtab_stats st;
    qtab_set_stats(set, &st);
    assert_int_equal(st.generated, 1); /* only the damaged blob */
    assert_int_equal(st.loaded, required_blobs() - 1);
    assert_int_equal(st.blobs, required_blobs());
    solve_one(set);
    qtab_close(set);

    /* The rebuilt file is sound on the next open. */
    quiet_options(&o, 0);
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_OK);
    qtab_close(set);
}

/* keep_warm_ms: out of range is refused before anything is opened; 0
 * starts no keeper; a period starts one that sweeps the set until it is
 * closed. */
static void test_keep_warm(void **state)
{
    (void)state;
    qtab_options o;
    qtab_set *set = NULL;
    quiet_options(&o, 0);
    o.keep_warm_ms = -1;
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_ERR_ARGUMENT);
    assert_null(set);
    o.keep_warm_ms = QTAB_KEEP_WARM_MAX_MS + 1;
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_ERR_ARGUMENT);
    assert_null(set);

    qtab_stats st;
    o.keep_warm_ms = 0;
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_OK);
    usleep(20000);
    qtab_set_stats(set, &st);
    assert_int_equal(st.warm_sweeps, 0);
    assert_int_equal(st.warm_threads, 0);
    qtab_close(set);

    o.keep_warm_ms = 1;
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_OK);
    for (int waited = 0;; waited++) {
        qtab_set_stats(set, &st);
        if (st.warm_sweeps >= 3)
            break;
        if (waited > 60000)
            fail_msg("%llu sweeps of the set in a minute",
                     (unsigned long long)st.warm_sweeps);
        usleep(1000);
    }
    assert_true(st.warm_seconds > 0);
    assert_int_equal(st.warm_threads, 1);
    assert_int_equal(st.loaded, required_blobs()); /* the rest as before */
    solve_one(set);
    qtab_close(set);
}

typedef struct {
    int reports, optional_absent, wanted;
    int wanted_absent; /* index of the last blob wanted and absent, or -1 */
} info_seen;

static void count_report(void *ctx, const qtab_blob_report *r)
{
    info_seen *seen = ctx;
    seen->reports++;
    seen->wanted += r->wanted;
    /* every required blob is in the directory, no optional one */
    assert_int_equal(r->present, !r->expected.optional);
    if (r->expected.optional) {
        assert_int_equal(r->status, QTAB_ERR_NOT_FOUND);
        seen->optional_absent++;
        if (r->wanted)
            seen->wanted_absent = r->index;
    } else {
        assert_int_equal(r->status, QTAB_OK);
        assert_true(r->wanted);
    }
}

/* The robot set's size names, both ways, and which optional blobs each
 * size wants: the medium size only the corner-path table. */
static void test_robot_size_names(void **state)
{
    (void)state;
    const char *names[] = {"large", "small", "medium"};
    const qtab_robot_size sizes[] = {QTAB_ROBOT_LARGE, QTAB_ROBOT_SMALL,
                                     QTAB_ROBOT_MEDIUM};
    for (int k = 0; k < 3; k++) {
        assert_int_equal(qtab_robot_size_parse(names[k]), (int)sizes[k]);
        assert_string_equal(qtab_robot_size_name(sizes[k]), names[k]);
    }
    const char *bad[] = {"", "Medium", "h48", "compact", "medium "};
    for (int k = 0; k < 5; k++)
        assert_int_equal(qtab_robot_size_parse(bad[k]), -1);
    assert_int_equal(qtab_robot_size_parse(NULL), -1);
    assert_string_equal(qtab_robot_size_name((qtab_robot_size)3), "?");
    assert_string_equal(qtab_robot_size_name((qtab_robot_size)-1), "?");
    int optional = 0, medium = 0;
    for (int i = 0; i < qs_blob_count(QS_METRIC_ROBOT); i++) {
        qs_blob_info info;
        assert_int_equal(qs_blob_describe(QS_METRIC_ROBOT, i, &info), QS_OK);
        optional += info.optional != 0;
        if (info.optional & QS_BLOB_ROBOT_MEDIUM) {
            medium++;
            assert_string_equal(info.name, "corner-paths");
        }
    }
    assert_int_equal(optional, 2); /* the move and corner-path tables */
    assert_int_equal(medium, 1);
}

/* The size names the CLI and the daemon accept, both ways. */
static void test_optimal_size_names(void **state)
{
    (void)state;
    const char *names[] = {"small", "large", "h48", "large+h48", "compact",
                           "xl",    "h48h7"};
    const qtab_optimal_size sizes[] = {
        QTAB_OPTIMAL_SMALL,     QTAB_OPTIMAL_LARGE,   QTAB_OPTIMAL_H48,
        QTAB_OPTIMAL_LARGE_H48, QTAB_OPTIMAL_COMPACT, QTAB_OPTIMAL_XL,
        QTAB_OPTIMAL_H48H7};
    for (int k = 0; k < 7; k++) {
        assert_int_equal(qtab_optimal_size_parse(names[k]), (int)sizes[k]);
        assert_string_equal(qtab_optimal_size_name(sizes[k]), names[k]);
    }
    const char *bad[] = {"", "Large", "h48+large", "huge", "large+h48 "};
    for (int k = 0; k < 5; k++)
        assert_int_equal(qtab_optimal_size_parse(bad[k]), -1);
    assert_int_equal(qtab_optimal_size_parse(NULL), -1);
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)4), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)5), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)7), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)9), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)15), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)16), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)17), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)21), "?");
    assert_string_equal(qtab_optimal_size_name((qtab_optimal_size)-1), "?");
    /* a value that is no size is refused before any table is touched */
    const int no_size[] = {4, 5, 7, 9, 16, 17, 21, -1};
    for (int k = 0; k < 8; k++) {
        qtab_options o;
        qtab_options_default(&o);
        o.quiet = 1;
        o.dir = "/nonexistent/quadsolve-tables";
        o.optimal = (qtab_optimal_size)no_size[k];
        qtab_set *set = NULL;
        assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set),
                         QTAB_ERR_ARGUMENT);
        assert_null(set);
        qtab_stats st;
        assert_int_equal(qtab_generate(QS_METRIC_HTM, &o, &st),
                         QTAB_ERR_ARGUMENT);
    }
}

/* Sums the bytes of the blobs a qtab_info run says the sizes use, and
 * whether the phase-1, h48h7, large and edge blobs are among them. */
typedef struct {
    uint64_t bytes;
    int phase1, h48h7, large, edges;
} size_seen;

static void sum_wanted(void *ctx, const qtab_blob_report *r)
{
    size_seen *s = ctx;
    if (!r->wanted)
        return;
    s->bytes += r->expected.bytes;
    s->phase1 |= strcmp(r->expected.name, "phase1") == 0;
    s->h48h7 |= strcmp(r->expected.name, "h48h7") == 0;
    s->large |= strcmp(r->expected.name, "optimal") == 0;
    s->edges |= strcmp(r->expected.name, "edges") == 0;
}

/* solve --optimal's default size: in HTM the h48h7 set, at most 4 GB in
 * memory (issue 16's bound) and without the two-phase tables; in QTM
 * the large set. Which sizes keep the two-phase tables. */
static void test_default_optimal_size(void **state)
{
    (void)state;
    assert_int_equal(QTAB_OPTIMAL_DEFAULT, QTAB_OPTIMAL_H48H7);
    qtab_options o;
    quiet_options(&o, 0);
    o.optimal = QTAB_OPTIMAL_DEFAULT;
    size_seen htm = {0, 0, 0, 0, 0}, qtm = {0, 0, 0, 0, 0};
    /* the files need not exist: only what the size uses is summed */
    qtab_info(QS_METRIC_HTM, &o, sum_wanted, &htm);
    qtab_info(QS_METRIC_QTM, &o, sum_wanted, &qtm);
    assert_true(htm.h48h7);
    assert_true(htm.edges);
    assert_false(htm.phase1);
    assert_true(htm.bytes > 3700000000ull && htm.bytes <= 4000000000ull);
    assert_true(qtm.large && qtm.phase1 && !qtm.h48h7 && !qtm.edges);
    assert_false(qtab_optimal_size_two_phase(QS_METRIC_HTM,
                                             QTAB_OPTIMAL_H48H7));
    assert_false(qtab_optimal_size_two_phase(QS_METRIC_HTM,
                                             QTAB_OPTIMAL_COMPACT));
    assert_true(qtab_optimal_size_two_phase(QS_METRIC_QTM,
                                            QTAB_OPTIMAL_H48H7));
    assert_true(qtab_optimal_size_two_phase(QS_METRIC_HTM, QTAB_OPTIMAL_XL));
    assert_true(qtab_optimal_size_two_phase(QS_METRIC_HTM,
                                            QTAB_OPTIMAL_SMALL));
    assert_true(qtab_optimal_size_two_phase(QS_METRIC_ROBOT,
                                            QTAB_OPTIMAL_SMALL));
    assert_false(qtab_optimal_size_two_phase(QS_METRIC_HTM,
                                             (qtab_optimal_size)16));
}

/* The sizes that save memory are small, h48 and compact, and they are
 * exactly those whose QTM set leaves out the large table. */
static void test_saving_sizes(void **state)
{
    (void)state;
    static const struct {
        const char *name;
        int saving;
    } sizes[] = {{"small", 1}, {"h48", 1},       {"compact", 1},
                 {"large", 0}, {"large+h48", 0}, {"xl", 0},
                 {"h48h7", 0}};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        int s = qtab_optimal_size_parse(sizes[i].name);
        assert_true(s >= 0);
        assert_int_equal(qtab_optimal_size_saving((qtab_optimal_size)s),
                         sizes[i].saving);
        qtab_options o;
        quiet_options(&o, 0);
        o.optimal = (qtab_optimal_size)s;
        size_seen qtm = {0, 0, 0, 0, 0};
        qtab_info(QS_METRIC_QTM, &o, sum_wanted, &qtm);
        assert_int_equal(qtm.large, !sizes[i].saving);
    }
    assert_false(qtab_optimal_size_saving((qtab_optimal_size)5));
    assert_false(qtab_optimal_size_saving((qtab_optimal_size)-1));
}

/* A set without the optional optimal tables is complete: info says
 * so, lists those blobs as absent, and a default open neither needs nor
 * generates it. */
static void test_optional_blob_absent(void **state)
{
    (void)state;
    info_seen seen = {0, 0, 0, -1};
    qtab_options o;
    quiet_options(&o, 0);
    assert_int_equal(qtab_info(QS_METRIC_HTM, &o, count_report, &seen),
                     QTAB_OK);
    assert_int_equal(seen.reports, qs_blob_count(QS_METRIC_HTM));
    /* the large table, the H48 table, the compact phase-1 table, the
     * extra-large table, h48h7 and the edge table */
    assert_int_equal(seen.optional_absent, 6);
    assert_int_equal(seen.optional_absent,
                     qs_blob_count(QS_METRIC_HTM) - required_blobs());
    assert_int_equal(seen.wanted, required_blobs());
    assert_int_equal(seen.wanted_absent, -1);

    qtab_set *set = NULL;
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_OK);
    qtab_stats st;
    qtab_set_stats(set, &st);
    assert_int_equal(st.generated, 0);
    assert_int_equal(st.blobs, required_blobs());
    assert_false(qs_tables_optimal_large(qtab_set_tables(set)));
    qtab_close(set);
}

static void test_truncated_and_header(void **state)
{
    (void)state;
    qtab_options o;
    qtab_set *set = NULL;
    char path[1024];
    qtab_blob_path(QS_METRIC_HTM, damaged_blob(), dir, path, sizeof path);
    struct stat sb;
    assert_int_equal(stat(path, &sb), 0);
    assert_int_equal(truncate(path, sb.st_size / 2), 0);
    quiet_options(&o, 0);
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_ERR_TRUNCATED);

    quiet_options(&o, 1);
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_OK);
    qtab_close(set);

    damage(damaged_blob(), 20); /* inside the header's checked fields */
    quiet_options(&o, 0);
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set),
                     QTAB_ERR_HEADER_CHECKSUM);
    quiet_options(&o, 1);
    assert_int_equal(qtab_open(QS_METRIC_HTM, &o, &set), QTAB_OK);
    solve_one(set);
    qtab_close(set);
}

/* info and verify check the set of the sizes asked for: a table that size
 * uses and nobody generated fails, by name, where the default size is
 * complete; a damaged file fails whatever the size; a size that is none is
 * refused. */
static void test_info_by_size(void **state)
{
    (void)state;
    qtab_options o;
    quiet_options(&o, 0);
    o.optimal = QTAB_OPTIMAL_LARGE;
    int optimal = -1; /* the large table's blob index */
    for (int verify = 0; verify < 2; verify++) {
        info_seen seen = {0, 0, 0, -1};
        int rc = verify ? qtab_verify(QS_METRIC_HTM, &o, count_report, &seen)
                        : qtab_info(QS_METRIC_HTM, &o, count_report, &seen);
        assert_int_equal(rc, QTAB_ERR_NOT_FOUND);
        assert_int_equal(seen.reports, qs_blob_count(QS_METRIC_HTM));
        assert_int_equal(seen.wanted, required_blobs() + 1);
        assert_true(seen.wanted_absent >= 0);
        qs_blob_info info;
        assert_int_equal(
            qs_blob_describe(QS_METRIC_HTM, seen.wanted_absent, &info), QS_OK);
        assert_string_equal(info.name, "optimal");
        optimal = seen.wanted_absent;
    }

    /* A file the default size leaves out, present and damaged. */
    char path[1024];
    qtab_blob_path(QS_METRIC_HTM, optimal, dir, path, sizeof path);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fputs("not a table", f);
    fclose(f);
    quiet_options(&o, 0);
    /* shorter than a header */
    assert_int_equal(qtab_info(QS_METRIC_HTM, &o, NULL, NULL),
                     QTAB_ERR_TRUNCATED);
    assert_int_equal(qtab_verify(QS_METRIC_HTM, &o, NULL, NULL),
                     QTAB_ERR_TRUNCATED);
    assert_int_equal(unlink(path), 0);
    assert_int_equal(qtab_info(QS_METRIC_HTM, &o, NULL, NULL), QTAB_OK);

    /* Sizes that are none. */
    o.robot = (qtab_robot_size)3;
    assert_int_equal(qtab_info(QS_METRIC_ROBOT, &o, NULL, NULL),
                     QTAB_ERR_ARGUMENT);
    qtab_set *set = NULL;
    assert_int_equal(qtab_open(QS_METRIC_ROBOT, &o, &set), QTAB_ERR_ARGUMENT);
    assert_null(set);
    o.robot = QTAB_ROBOT_LARGE;
    o.optimal = (qtab_optimal_size)5;
    assert_int_equal(qtab_verify(QS_METRIC_HTM, &o, NULL, NULL),
                     QTAB_ERR_ARGUMENT);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_optimal_size_names),
        cmocka_unit_test(test_robot_size_names),
        cmocka_unit_test(test_optional_blob_absent),
        cmocka_unit_test(test_default_optimal_size),
        cmocka_unit_test(test_saving_sizes),
        cmocka_unit_test(test_info_by_size),
        cmocka_unit_test(test_damaged_payload),
        cmocka_unit_test(test_keep_warm),
        cmocka_unit_test(test_truncated_and_header),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
