/*
 * test_warm.c - the thread that keeps table pages warm (tables/warm.c):
 * each sweep reads one byte of every 2 MiB page of each region and
 * nothing else, the thread stops at once when asked even with a long
 * period, and arguments out of range start nothing.
 *
 * Which pages a sweep read is seen through mincore: a read of untouched
 * anonymous memory maps the zero page there, so exactly the pages read
 * become resident (huge pages are refused for the mapping, since a huge
 * zero page would make the whole 2 MiB resident at once).
 */
#define _GNU_SOURCE
#include "testutil.h"

#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

enum { PAGE2M = 2 << 20 };

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Waits until w has made at least `sweeps` sweeps; fails after a minute
 * (a sweep of these few pages takes microseconds). */
static void wait_sweeps(qtab_warm *w, uint64_t sweeps)
{
    double start = now_s();
    for (;;) {
        uint64_t n;
        double s;
        qtab_warm_stats(w, &n, &s);
        if (n >= sweeps)
            return;
        if (now_s() - start > 60)
            fail_msg("the keeper made %llu sweeps in a minute, %llu wanted",
                     (unsigned long long)n, (unsigned long long)sweeps);
        usleep(1000);
    }
}

static void test_sweep_reads_each_2m_page(void **state)
{
    (void)state;
    long small = sysconf(_SC_PAGESIZE);
    /* 9 MiB and a bit, with the regions starting and ending off any
     * page boundary. */
    size_t len = (size_t)9 * PAGE2M + 12345;
    /* over-allocate so the mapping can start on a 2 MiB boundary */
    unsigned char *raw = mmap(NULL, len + PAGE2M, PROT_READ,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(raw != MAP_FAILED);
    unsigned char *base =
        (unsigned char *)(((uintptr_t)raw + PAGE2M - 1) &
                          ~(uintptr_t)(PAGE2M - 1));
#ifdef MADV_NOHUGEPAGE
    madvise(raw, len + PAGE2M, MADV_NOHUGEPAGE);
#endif
    size_t pages = (len + (size_t)small - 1) / (size_t)small;
    unsigned char *in = calloc(pages, 1);
    assert_non_null(in);
    assert_int_equal(mincore(base, len, in), 0);
    for (size_t i = 0; i < pages; i++)
        assert_int_equal(in[i] & 1, 0); /* nothing read yet */

    /* Two regions (and an empty one between): one from 100,000 bytes in
     * to 4 MiB + 5,000, one from 6 MiB + 7 to the end; the gap between
     * them is never read. */
    const void *regions[3] = {base + 100000, NULL, base + 3 * PAGE2M + 7};
    size_t bytes[3] = {2 * PAGE2M + 5000 - 100000, 0,
                       len - (3 * PAGE2M + 7)};
    qtab_warm *w = qtab_warm_start(regions, bytes, 3, 1000);
    assert_non_null(w);
    wait_sweeps(w, 1);
    qtab_warm_stop(w);

    /* Read: each region's first byte and each 2 MiB boundary inside it. */
    unsigned char *want = calloc(pages, 1);
    assert_non_null(want);
    for (int r = 0; r < 3; r++) {
        if (!bytes[r])
            continue;
        uintptr_t start = (uintptr_t)regions[r], end = start + bytes[r];
        want[(start - (uintptr_t)base) / (size_t)small] = 1;
        for (uintptr_t a = (start + PAGE2M - 1) & ~(uintptr_t)(PAGE2M - 1);
             a < end; a += PAGE2M)
            want[(a - (uintptr_t)base) / (size_t)small] = 1;
    }
    assert_int_equal(mincore(base, len, in), 0);
    int read = 0;
    for (size_t i = 0; i < pages; i++) {
        if ((in[i] & 1) != want[i])
            fail_msg("page %zu (byte %zu): %s", i, i * (size_t)small,
                     want[i] ? "not read" : "read, though no sweep needs it");
        read += want[i];
    }
    /* the first region: its first byte, 2 and 4 MiB; the second: its
     * first byte at 6 MiB + 7, then 8, 10, ..., 18 MiB */
    assert_int_equal(read, 3 + 1 + 6);
    free(want);
    free(in);
    munmap(raw, len + PAGE2M);
}

/* A period of a minute does not keep qtab_warm_stop waiting for it. */
static void test_stop_does_not_wait_out_the_period(void **state)
{
    (void)state;
    static unsigned char block[4096];
    const void *region = block;
    size_t bytes = sizeof block;
    qtab_warm *w = qtab_warm_start(&region, &bytes, 1, 60000);
    assert_non_null(w);
    wait_sweeps(w, 1);
    double start = now_s();
    qtab_warm_stop(w);
    assert_true(now_s() - start < 30);
}

/* Sweeps repeat at the period, each one counted with its time. */
static void test_sweeps_repeat(void **state)
{
    (void)state;
    static unsigned char block[3 * PAGE2M];
    const void *region = block;
    size_t bytes = sizeof block;
    qtab_warm *w = qtab_warm_start(&region, &bytes, 1, 1);
    assert_non_null(w);
    wait_sweeps(w, 5);
    uint64_t n;
    double s;
    qtab_warm_stats(w, &n, &s);
    assert_true(n >= 5);
    assert_true(s >= 0);
    qtab_warm_stop(w);
    qtab_warm_stats(NULL, &n, &s);
    assert_true(n == 0 && s == 0);
    qtab_warm_stop(NULL);
}

static void test_arguments_out_of_range(void **state)
{
    (void)state;
    static unsigned char block[64];
    const void *regions[QTAB_WARM_MAX + 1];
    size_t bytes[QTAB_WARM_MAX + 1];
    for (int i = 0; i <= QTAB_WARM_MAX; i++) {
        regions[i] = block;
        bytes[i] = sizeof block;
    }
    assert_null(qtab_warm_start(regions, bytes, 1, 0));
    assert_null(qtab_warm_start(regions, bytes, 1, -5));
    assert_null(qtab_warm_start(regions, bytes, -1, 10));
    assert_null(qtab_warm_start(regions, bytes, QTAB_WARM_MAX + 1, 10));
    qtab_warm *w = qtab_warm_start(regions, bytes, QTAB_WARM_MAX, 10);
    assert_non_null(w);
    qtab_warm_stop(w);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_sweep_reads_each_2m_page),
        cmocka_unit_test(test_stop_does_not_wait_out_the_period),
        cmocka_unit_test(test_sweeps_repeat),
        cmocka_unit_test(test_arguments_out_of_range),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
