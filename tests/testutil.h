/*
 * testutil.h - helpers shared by the tests: where the benchmark cubes are,
 * reading them, and opening the table set of a metric from the cache that
 * the `tables` ctest fixture fills.
 */
#ifndef QS_TESTUTIL_H
#define QS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtab.h"
#include "quadsolve.h"

/* Path of a file in ../shared/bench (QUADSOLVE_BENCH_DIR, set by ctest). */
static inline void test_bench_path(const char *file, char *buf, size_t len)
{
    const char *dir = getenv("QUADSOLVE_BENCH_DIR");
    snprintf(buf, len, "%s/%s", dir && *dir ? dir : "../shared/bench", file);
}

/* Reads up to max facelet strings from a benchmark file; returns the count
 * (the test fails when the file cannot be read). */
static inline int test_read_bench(const char *file, char (*lines)[55], int max)
{
    char path[1024], buf[256];
    test_bench_path(file, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s", path);
    int n = 0;
    while (n < max && fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = 0;
        if (strlen(buf) != 54)
            continue;
        memcpy(lines[n++], buf, 55);
    }
    fclose(f);
    return n;
}

/* Opens (loading or, if missing, generating) the tables of metric m. */
/* Opens the table set of metric m, with the optimal solver's large table
 * when size is QTAB_OPTIMAL_LARGE (generated on first use). */
/* Opens metric m's tables quietly with the given sizes of the optional
 * blobs, failing the test on an error. */
static inline qtab_set *test_open_tables_with(qs_metric m,
                                              qtab_optimal_size optimal,
                                              qtab_robot_size robot)
{
    qtab_options o;
    qtab_options_default(&o);
    o.optimal = optimal;
    o.robot = robot;
    o.quiet = 1;
    o.progress = 0;
    qtab_set *set = NULL;
    int rc = qtab_open(m, &o, &set);
    if (rc != QTAB_OK)
        fail_msg("tables for %s: %s", qs_metric_name(m), qtab_strerror(rc));
    return set;
}

static inline qtab_set *test_open_tables_sized(qs_metric m,
                                               qtab_optimal_size size)
{
    return test_open_tables_with(m, size, QTAB_ROBOT_LARGE);
}

static inline qtab_set *test_open_robot_sized(qtab_robot_size size)
{
    return test_open_tables_with(QS_METRIC_ROBOT, QTAB_OPTIMAL_SMALL, size);
}

/* The default sets: small optimal tables, the large robot set. */
static inline qtab_set *test_open_tables(qs_metric m)
{
    return test_open_tables_with(m, QTAB_OPTIMAL_SMALL, QTAB_ROBOT_LARGE);
}

/* Applies a solution to a copy of c and asserts that it solves it. */
static inline void test_assert_solves(const qs_cube *c, const qs_solution *s)
{
    qs_cube d = *c;
    qs_cube_apply_moves(&d, s->moves, s->n);
    if (!qs_cube_is_solved(&d)) {
        char text[512], facelets[55];
        qs_moves_format(s->moves, s->n, text, sizeof text);
        qs_cube_to_facelets(c, facelets);
        fail_msg("%s does not solve %s", text, facelets);
    }
}

/* A TCP connection to 127.0.0.1:port (Nagle off: the tests exchange
 * small frames), asserted to succeed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
static inline int test_tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Reads a stream to its end into a NUL-terminated buffer (caller frees). */
static inline char *test_read_all(FILE *f)
{
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            buf = realloc(buf, cap *= 2);
            assert_non_null(buf);
        }
    }
    buf[len] = '\0';
    return buf;
}

#endif
