/*
 * test_tablefile.c - tests of the table file layer (tables/qtab.h) on
 * synthetic payloads: round trips, the byte layout of docs/tables.md, every
 * load error, atomic writing, the cache directory resolution, and the
 * 2 MiB pages a mapped table ends up in.
 *
 * Headers for the error cases are crafted here byte by byte rather than
 * through the library, so the tests also pin the documented format. No
 * solver tables are needed, so this test runs without the tables fixture.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include <setjmp.h>
#include <cmocka.h>

#include "qtab.h"

typedef struct {
    char dir[PATH_MAX];
    char path[PATH_MAX + 8]; /* dir/t.qst */
} fixture;

static int remove_entry(const char *path, const struct stat *st, int flag,
                        struct FTW *ftw)
{
    (void)st;
    (void)flag;
    (void)ftw;
    return remove(path);
}

static int setup(void **state)
{
    fixture *f = calloc(1, sizeof *f);
    if (f == NULL)
        return -1;
    const char *tmp = getenv("TMPDIR");
    snprintf(f->dir, sizeof f->dir, "%s/qtab-test-XXXXXX",
             tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp");
    if (mkdtemp(f->dir) == NULL) {
        free(f);
        return -1;
    }
    snprintf(f->path, sizeof f->path, "%s/t.qst", f->dir);
    *state = f;
    return 0;
}

static int teardown(void **state)
{
    fixture *f = *state;
    nftw(f->dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    free(f);
    return 0;
}

/* ---------------------------------------------------------------- helpers */

static unsigned char *make_payload(size_t n, uint64_t seed)
{
    unsigned char *p = malloc(n > 0 ? n : 1);
    assert_non_null(p);
    uint64_t x = seed | 1;
    for (size_t i = 0; i < n; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        p[i] = (unsigned char)x;
    }
    return p;
}

static qtab_file_desc desc_of(uint32_t kind, uint32_t metric,
                              uint64_t entries, uint64_t bytes)
{
    qtab_file_desc d = {.kind = kind, .metric = metric, .entries = entries,
                        .bytes = bytes};
    return d;
}

static void put32le(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static void put64le(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

static uint64_t get64le(const unsigned char *p)
{
    return (uint64_t)get32le(p) | (uint64_t)get32le(p + 4) << 32;
}

/* The payload checksum exactly as docs/tables.md defines it, computed
 * independently of the library. */
static uint64_t reference_checksum(const unsigned char *data, uint64_t n)
{
    uint64_t chunk = (uint64_t)64 << 20;
    uint64_t chunks = (n + chunk - 1) / chunk;
    unsigned char *le = malloc(chunks * 8 + 1);
    assert_non_null(le);
    for (uint64_t i = 0; i < chunks; i++) {
        uint64_t len = n - i * chunk < chunk ? n - i * chunk : chunk;
        put64le(le + 8 * i, XXH3_64bits(data + i * chunk, len));
    }
    uint64_t h = XXH3_64bits(le, chunks * 8);
    free(le);
    return h;
}

/* Builds a 64-byte header by the documented layout; marker is the 4 bytes
 * stored at offset 12. */
static void craft_header(unsigned char h[64], uint32_t version,
                         const unsigned char marker[4],
                         const qtab_file_desc *d, uint64_t checksum)
{
    memset(h, 0, 64);
    memcpy(h, "QSTABLE", 8); /* includes the NUL */
    put32le(h + 8, version);
    memcpy(h + 12, marker, 4);
    put32le(h + 16, d->kind);
    put32le(h + 20, d->metric);
    put64le(h + 24, d->entries);
    put64le(h + 32, d->bytes);
    put64le(h + 40, checksum);
    put64le(h + 48, XXH3_64bits(h, 48));
}

static void host_marker(unsigned char m[4])
{
    uint32_t v = 0x01020304u;
    memcpy(m, &v, 4);
}

static void write_raw(const char *path, const void *a, size_t an,
                      const void *b, size_t bn)
{
    FILE *fp = fopen(path, "wb");
    assert_non_null(fp);
    if (an > 0)
        assert_int_equal(fwrite(a, 1, an, fp), an);
    if (bn > 0)
        assert_int_equal(fwrite(b, 1, bn, fp), bn);
    assert_int_equal(fclose(fp), 0);
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *fp = fopen(path, "rb");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, 0, SEEK_END), 0);
    long size = ftell(fp);
    assert_true(size >= 0);
    rewind(fp);
    unsigned char *buf = malloc((size_t)size + 1);
    assert_non_null(buf);
    assert_int_equal(fread(buf, 1, (size_t)size, fp), (size_t)size);
    fclose(fp);
    *n = (size_t)size;
    return buf;
}

/* XORs one byte of a file in place. */
static void flip_byte(const char *path, long offset)
{
    FILE *fp = fopen(path, "r+b");
    assert_non_null(fp);
    assert_int_equal(fseek(fp, offset, SEEK_SET), 0);
    int c = fgetc(fp);
    assert_true(c != EOF);
    assert_int_equal(fseek(fp, offset, SEEK_SET), 0);
    fputc(c ^ 0x5a, fp);
    assert_int_equal(fclose(fp), 0);
}

/* Writes a valid 1000-byte table file at f->path; returns its desc. */
static qtab_file_desc write_sample(const fixture *f)
{
    qtab_file_desc d = desc_of(7, 2, 500, 1000);
    unsigned char *p = make_payload(1000, 42);
    assert_int_equal(qtab_file_write(f->path, &d, p, 2), QTAB_OK);
    free(p);
    return d;
}

static int map_status(const char *path, const qtab_file_desc *expect)
{
    qtab_mapping m;
    int rc = qtab_file_map(path, expect, 2, &m);
    if (rc == QTAB_OK)
        qtab_file_unmap(&m);
    else
        assert_null(m.base);
    return rc;
}

/* Number of directory entries other than . and .. */
static int count_entries(const char *dir)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            n++;
    closedir(d);
    return n;
}

/* ------------------------------------------------------------------ tests */

static void test_round_trip(void **state)
{
    fixture *f = *state;
    size_t n = 3 * 1000 * 1000 + 17;
    unsigned char *p = make_payload(n, 1);
    qtab_file_desc d = desc_of(3, 1, 123456789012ull, n);
    assert_int_equal(qtab_file_write(f->path, &d, p, 0), QTAB_OK);

    qtab_mapping m;
    assert_int_equal(qtab_file_map(f->path, &d, 0, &m), QTAB_OK);
    assert_non_null(m.payload);
    assert_int_equal(m.header.desc.bytes, n);
    assert_int_equal(m.header.desc.entries, 123456789012ull);
    assert_int_equal(m.header.desc.kind, 3);
    assert_int_equal(m.header.desc.metric, 1);
    assert_int_equal(m.header.version, 1);
    assert_int_equal(m.header.file_bytes, 64 + n);
    assert_int_equal(m.header.checksum, reference_checksum(p, n));
    assert_memory_equal(m.payload, p, n);
    /* Payloads are 64 bytes into a page-aligned mapping. */
    assert_int_equal((uintptr_t)m.payload % 64, 0);
    qtab_file_unmap(&m);
    assert_null(m.base);
    qtab_file_unmap(&m); /* a second unmap of a zeroed mapping is harmless */

    /* No expectations: accepts whatever the header says. */
    assert_int_equal(qtab_file_map(f->path, NULL, 1, &m), QTAB_OK);
    assert_memory_equal(m.payload, p, n);
    qtab_file_unmap(&m);

    qtab_file_header h;
    assert_int_equal(qtab_file_info(f->path, &d, &h), QTAB_OK);
    assert_true(h.parsed);
    assert_int_equal(h.checksum, reference_checksum(p, n));
    free(p);
}

static void test_empty_payload(void **state)
{
    fixture *f = *state;
    qtab_file_desc d = desc_of(1, 0, 0, 0);
    assert_int_equal(qtab_file_write(f->path, &d, NULL, 1), QTAB_OK);
    qtab_mapping m;
    assert_int_equal(qtab_file_map(f->path, &d, 1, &m), QTAB_OK);
    assert_int_equal(m.header.file_bytes, 64);
    assert_int_equal(m.header.checksum, XXH3_64bits("", 0));
    qtab_file_unmap(&m);
}

static void test_overwrite(void **state)
{
    fixture *f = *state;
    unsigned char *a = make_payload(4096, 5), *b = make_payload(8192, 6);
    qtab_file_desc da = desc_of(1, 0, 4096, 4096), db = desc_of(1, 0, 1, 8192);
    assert_int_equal(qtab_file_write(f->path, &da, a, 1), QTAB_OK);
    assert_int_equal(qtab_file_write(f->path, &db, b, 1), QTAB_OK);
    qtab_mapping m;
    assert_int_equal(qtab_file_map(f->path, &db, 1, &m), QTAB_OK);
    assert_memory_equal(m.payload, b, 8192);
    qtab_file_unmap(&m);
    free(a);
    free(b);
}

static void test_byte_layout(void **state)
{
    fixture *f = *state;
    size_t n = 777;
    unsigned char *p = make_payload(n, 9);
    qtab_file_desc d = desc_of(0x11223344u, 3, 0x0102030405060708ull, n);
    assert_int_equal(qtab_file_write(f->path, &d, p, 1), QTAB_OK);

    size_t size;
    unsigned char *h = read_all(f->path, &size);
    assert_int_equal(size, 64 + n);
    assert_memory_equal(h, "QSTABLE\0", 8);
    assert_int_equal(get32le(h + 8), 1);
    unsigned char marker[4];
    host_marker(marker);
    assert_memory_equal(h + 12, marker, 4);
    assert_int_equal(get32le(h + 16), 0x11223344u);
    assert_int_equal(get32le(h + 20), 3);
    assert_int_equal(get64le(h + 24), 0x0102030405060708ull);
    assert_int_equal(get64le(h + 32), n);
    assert_int_equal(get64le(h + 40), reference_checksum(p, n));
    assert_int_equal(get64le(h + 48), XXH3_64bits(h, 48));
    for (int i = 56; i < 64; i++)
        assert_int_equal(h[i], 0);
    assert_memory_equal(h + 64, p, n);

    /* A header crafted by the documented layout is accepted. */
    unsigned char mine[64];
    craft_header(mine, 1, marker, &d, reference_checksum(p, n));
    assert_memory_equal(mine, h, 64);
    free(h);
    free(p);
}

static void test_checksum_definition(void **state)
{
    (void)state;
    uint64_t sum;
    unsigned char *small = make_payload(1000, 3);
    assert_int_equal(qtab_checksum(small, 1000, 1, &sum), QTAB_OK);
    unsigned char le[8];
    put64le(le, XXH3_64bits(small, 1000));
    assert_int_equal(sum, XXH3_64bits(le, 8));
    assert_int_equal(qtab_checksum(small, 1, 1, NULL), QTAB_ERR_ARGUMENT);
    free(small);

    assert_int_equal(qtab_checksum(NULL, 0, 1, &sum), QTAB_OK);
    assert_int_equal(sum, XXH3_64bits("", 0));
    assert_int_equal(qtab_checksum(NULL, 1, 1, &sum), QTAB_ERR_ARGUMENT);

    /* Three chunks, the last one partial: same result whatever the
     * thread count, and equal to the documented definition. */
    uint64_t n = ((uint64_t)64 << 20) * 2 + 12345;
    unsigned char *big = make_payload((size_t)n, 4);
    uint64_t want = reference_checksum(big, n);
    for (int threads = 0; threads <= 4; threads++) {
        assert_int_equal(qtab_checksum(big, n, threads, &sum), QTAB_OK);
        assert_int_equal(sum, want);
    }
    /* An exact multiple of the chunk size has no empty trailing chunk. */
    uint64_t exact = (uint64_t)64 << 20;
    assert_int_equal(qtab_checksum(big, exact, 2, &sum), QTAB_OK);
    put64le(le, XXH3_64bits(big, (size_t)exact));
    assert_int_equal(sum, XXH3_64bits(le, 8));
    free(big);
}

static void test_missing(void **state)
{
    fixture *f = *state;
    qtab_file_desc d = desc_of(1, 0, 1, 1);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_NOT_FOUND);
    qtab_file_header h;
    assert_int_equal(qtab_file_info(f->path, &d, &h), QTAB_ERR_NOT_FOUND);
    assert_false(h.parsed);
    /* A directory is no table file, and no "missing" one either. */
    assert_int_equal(map_status(f->dir, &d), QTAB_ERR_NOT_REGULAR);
    /* A FIFO is refused at once instead of waiting for a writer (issue
     * 15: `tables info` and the daemon's loader hung there). */
    assert_int_equal(mkfifo(f->path, 0600), 0);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_NOT_REGULAR);
    assert_int_equal(qtab_file_info(f->path, &d, &h), QTAB_ERR_NOT_REGULAR);
    assert_string_equal(qtab_errcode(QTAB_ERR_NOT_REGULAR), "NOT_REGULAR");
    unlink(f->path);
}

static void test_truncated(void **state)
{
    fixture *f = *state;
    qtab_file_desc d = write_sample(f);
    assert_int_equal(truncate(f->path, 64 + 999), 0);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_TRUNCATED);
    assert_int_equal(qtab_file_info(f->path, &d, NULL), QTAB_ERR_TRUNCATED);
    assert_int_equal(truncate(f->path, 64), 0);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_TRUNCATED);
    /* Too short to hold a header at all. */
    assert_int_equal(truncate(f->path, 63), 0);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_TRUNCATED);
    assert_int_equal(truncate(f->path, 0), 0);
    qtab_file_header h;
    assert_int_equal(qtab_file_info(f->path, &d, &h), QTAB_ERR_TRUNCATED);
    assert_false(h.parsed);
    assert_int_equal(h.file_bytes, 0);
}

static void test_trailing_bytes(void **state)
{
    fixture *f = *state;
    qtab_file_desc d = write_sample(f);
    FILE *fp = fopen(f->path, "ab");
    assert_non_null(fp);
    fputc('x', fp);
    fclose(fp);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_SIZE);
}

static void test_payload_damage(void **state)
{
    fixture *f = *state;
    qtab_file_desc d = write_sample(f);
    flip_byte(f->path, 64 + 500);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_CHECKSUM);
    /* The header alone is still fine: info does not read the payload. */
    assert_int_equal(qtab_file_info(f->path, &d, NULL), QTAB_OK);
    qtab_mapping m;
    assert_int_equal(qtab_file_map(f->path, &d, 1, &m), QTAB_ERR_CHECKSUM);
    assert_true(m.header.parsed);
    assert_int_equal(m.header.desc.bytes, 1000);
    assert_null(m.payload);
}

/* Whether tmpfs is kept from huge pages (shmem_enabled "[never]"): a
 * table there cannot be mapped in 2 MiB pages and must be copied. */
static int shmem_never_huge(void)
{
    FILE *fp = fopen("/sys/kernel/mm/transparent_hugepage/shmem_enabled", "r");
    if (fp == NULL)
        return 0;
    char line[256] = "";
    char *got = fgets(line, sizeof line, fp);
    fclose(fp);
    return got != NULL && strstr(line, "[never]") != NULL;
}

/* A table of several huge pages at path: the kernel may map the file
 * itself from the page cache (shared) or the payload is copied; either
 * way the payload must be the one written, and damage must be caught.
 * expect_copy: the file system cannot give it 2 MiB pages. */
static void check_large_payload(const char *path, int expect_copy)
{
    size_t n = ((size_t)16 << 20) + 100;
    unsigned char *p = make_payload(n, 99);
    qtab_file_desc d = desc_of(5, 3, n / 4, n);
    assert_int_equal(qtab_file_write(path, &d, p, 2), QTAB_OK);

    for (int round = 0; round < 2; round++) {
        qtab_mapping m;
        assert_int_equal(qtab_file_map(path, &d, 2, &m), QTAB_OK);
        print_message("16 MiB table in %s: %s\n", path,
                      m.shared ? "mapped from the page cache" : "copied");
        if (expect_copy)
            assert_int_equal(m.shared, 0);
        assert_memory_equal(m.payload, p, n);
        if (m.shared) {
            /* The file is mapped whole, from a 2 MiB boundary. */
            assert_int_equal((uintptr_t)m.base % (2u << 20), 0);
            assert_ptr_equal((const unsigned char *)m.base + 64, m.payload);
        }
        qtab_file_unmap(&m);
        assert_null(m.base);
        assert_int_equal(m.shared, 0);
    }

    flip_byte(path, 64 + (long)(n / 2));
    qtab_mapping m;
    assert_int_equal(qtab_file_map(path, &d, 2, &m), QTAB_ERR_CHECKSUM);
    assert_true(m.header.parsed);
    assert_null(m.base);
    assert_null(m.payload);
    free(p);
}

static void test_large_payload(void **state)
{
    fixture *f = *state;
    check_large_payload(f->path, 0);
    /* On a tmpfs without huge pages the copy is the way, on any kernel. */
    char shm[64];
    snprintf(shm, sizeof shm, "/dev/shm/qtab-test-%ld.qst", (long)getpid());
    struct stat st;
    if (stat("/dev/shm", &st) == 0 && S_ISDIR(st.st_mode) &&
        access("/dev/shm", W_OK) == 0) {
        check_large_payload(shm, shmem_never_huge());
        unlink(shm);
    }
}

/* Maps `bytes` of fd from a 2 MiB boundary advised for huge pages, as the
 * loader does, faults it in, and returns how much the kernel mapped in
 * 2 MiB pages (-1: not known). */
static long long probe_pmd_bytes(int fd, size_t bytes)
{
    size_t huge = (size_t)2 << 20;
    unsigned char *raw = mmap(NULL, bytes + huge, PROT_NONE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    assert_true(raw != MAP_FAILED);
    unsigned char *at =
        (unsigned char *)(((uintptr_t)raw + huge - 1) & ~(uintptr_t)(huge - 1));
    void *p = mmap(at, bytes, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
    assert_true(p != MAP_FAILED);
    madvise(p, bytes, MADV_HUGEPAGE);
    volatile unsigned char sum = 0;
    for (size_t i = 0; i < bytes; i += 4096)
        sum ^= ((unsigned char *)p)[i];
    (void)sum;
    long long pmd = qtab_file_huge_bytes(p);
    munmap(raw, bytes + huge);
    return pmd;
}

/* A table of the page tests: its payload, descriptor and sizes. */
typedef struct {
    unsigned char *payload;
    qtab_file_desc d;
    size_t n, file_bytes, huge_part; /* payload, file, its whole 2 MiB pages */
} page_table;

/* Writes a table of `regions` 2 MiB of payload (its file 64 bytes more)
 * to f->path. */
static page_table write_regions(const fixture *f, size_t regions,
                                uint64_t seed)
{
    page_table pt;
    size_t huge = (size_t)2 << 20;
    pt.n = regions * huge;
    pt.file_bytes = pt.n + 64;
    pt.huge_part = pt.file_bytes / huge * huge;
    pt.payload = make_payload(pt.n, seed);
    pt.d = desc_of(5, 3, pt.n / 4, pt.n);
    assert_int_equal(qtab_file_write(f->path, &pt.d, pt.payload, 2), QTAB_OK);
    return pt;
}

/* Loads pt's file with qtab_file_map, checks the payload and, where the
 * file itself is mapped, that every region is in a 2 MiB page; frees the
 * payload. Returns whether the file was mapped (m.shared). */
static int map_checked(const fixture *f, page_table *pt)
{
    qtab_mapping m;
    assert_int_equal(qtab_file_map(f->path, &pt->d, 2, &m), QTAB_OK);
    if (m.shared)
        assert_int_equal(qtab_file_huge_bytes(m.base),
                         (long long)pt->huge_part);
    assert_memory_equal(m.payload, pt->payload, pt->n);
    int shared = m.shared;
    qtab_file_unmap(&m);
    free(pt->payload);
    return shared;
}

/* A table whose page cache holds part of a 2 MiB region in small pages
 * (read 4 KiB at a time without readahead, as a program reading at
 * random would leave it) is mapped with every region in 2 MiB pages: the
 * loader finds the regions left small and reads them again. Here the
 * kernel leaves three regions of 48 small (the readahead after the small
 * pages is not aligned either), little enough that a loader repairing
 * only when a tenth is small would keep them so. */
static void test_small_page_region(void **state)
{
    fixture *f = *state;
    page_table pt = write_regions(f, 48, 41);
    size_t huge = (size_t)2 << 20;

    int fd = open(f->path, O_RDONLY);
    assert_true(fd >= 0);
    /* written back first, or the written pages stay cached as written */
    assert_int_equal(fsync(fd), 0);
    assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
    assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_RANDOM), 0);
    unsigned char buf[4096];
    for (off_t at = 5 * (off_t)huge; at < 6 * (off_t)huge; at += 4096)
        assert_int_equal(pread(fd, buf, sizeof buf, at), (ssize_t)sizeof buf);
    long long before = probe_pmd_bytes(fd, pt.file_bytes);
    close(fd);
    if (before <= 0 || (size_t)before >= pt.huge_part) {
        print_message("no region in small pages could be made here "
                      "(%lld of %zu bytes in 2 MiB pages): skipped\n",
                      before, pt.huge_part);
        free(pt.payload);
        skip();
    }
    print_message("before loading: %lld of %zu bytes in 2 MiB pages\n",
                  before, pt.huge_part);
    assert_true(map_checked(f, &pt));
}

/* A table written a little at a time, as a copy is, sits in the page
 * cache in small pages only: the loader, seeing no 2 MiB page, reads one
 * region again to learn whether the kernel can map the file in 2 MiB
 * pages, and then every region, rather than copying the table. */
static void test_small_page_file(void **state)
{
    fixture *f = *state;
    page_table pt = write_regions(f, 8, 43);
    size_t file_bytes = pt.file_bytes;
    /* the same bytes again, 4 KiB at a time, through a cold cache */
    unsigned char *file = malloc(file_bytes);
    assert_non_null(file);
    int fd = open(f->path, O_RDONLY);
    assert_true(fd >= 0);
    assert_int_equal(pread(fd, file, file_bytes, 0), (ssize_t)file_bytes);
    close(fd);
    assert_int_equal(unlink(f->path), 0);
    fd = open(f->path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    assert_true(fd >= 0);
    for (size_t at = 0; at < file_bytes; at += 4096) {
        size_t len = file_bytes - at < 4096 ? file_bytes - at : 4096;
        assert_int_equal(pwrite(fd, file + at, len, (off_t)at), (ssize_t)len);
    }
    assert_int_equal(fsync(fd), 0);
    close(fd);
    free(file);
    fd = open(f->path, O_RDONLY);
    assert_true(fd >= 0);
    long long before = probe_pmd_bytes(fd, file_bytes);
    close(fd);
    print_message("before loading: %lld of %zu bytes in 2 MiB pages\n",
                  before, pt.huge_part);
    if (before != 0) {
        free(pt.payload);
        skip();
    }
    if (!map_checked(f, &pt)) {
        /* a copy is right only where the kernel maps no file in 2 MiB
         * pages, even read afresh */
        fd = open(f->path, O_RDONLY);
        assert_true(fd >= 0);
        assert_int_equal(posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED), 0);
        assert_int_equal(probe_pmd_bytes(fd, file_bytes), 0);
        close(fd);
        print_message("this kernel maps no file in 2 MiB pages: copied\n");
    }
}

static void test_header_damage(void **state)
{
    fixture *f = *state;
    /* Every header byte outside magic, version and marker (which have
     * errors of their own) is covered by the header checksum or, for the
     * padding, checked to be zero. */
    static const long offsets[] = {16, 20, 24, 31, 32, 40, 47, 48, 55, 56, 63};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; i++) {
        qtab_file_desc d = write_sample(f);
        flip_byte(f->path, offsets[i]);
        assert_int_equal(map_status(f->path, &d), QTAB_ERR_HEADER_CHECKSUM);
        assert_int_equal(qtab_file_info(f->path, NULL, NULL),
                         QTAB_ERR_HEADER_CHECKSUM);
    }
}

static void test_magic(void **state)
{
    fixture *f = *state;
    qtab_file_desc d = write_sample(f);
    flip_byte(f->path, 0);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_MAGIC);
    qtab_file_header h;
    assert_int_equal(qtab_file_info(f->path, &d, &h), QTAB_ERR_MAGIC);
    assert_false(h.parsed);
    assert_int_equal(h.file_bytes, 1064);

    unsigned char junk[100];
    memset(junk, 'z', sizeof junk);
    write_raw(f->path, junk, sizeof junk, NULL, 0);
    assert_int_equal(map_status(f->path, NULL), QTAB_ERR_MAGIC);
}

static void test_version(void **state)
{
    fixture *f = *state;
    unsigned char *p = make_payload(100, 8);
    qtab_file_desc d = desc_of(1, 0, 100, 100);
    unsigned char h[64], marker[4];
    host_marker(marker);
    craft_header(h, 2, marker, &d, reference_checksum(p, 100));
    write_raw(f->path, h, 64, p, 100);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_VERSION);
    qtab_file_header info;
    assert_int_equal(qtab_file_info(f->path, &d, &info), QTAB_ERR_VERSION);
    assert_int_equal(info.version, 2);

    /* Sanity check of the crafting itself: version 1 is accepted. */
    craft_header(h, 1, marker, &d, reference_checksum(p, 100));
    write_raw(f->path, h, 64, p, 100);
    assert_int_equal(map_status(f->path, &d), QTAB_OK);
    free(p);
}

static void test_endian(void **state)
{
    fixture *f = *state;
    unsigned char *p = make_payload(100, 8);
    qtab_file_desc d = desc_of(1, 0, 100, 100);
    unsigned char h[64], host[4], other[4];
    host_marker(host);
    for (int i = 0; i < 4; i++)
        other[i] = host[3 - i];
    craft_header(h, 1, other, &d, reference_checksum(p, 100));
    write_raw(f->path, h, 64, p, 100);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_ENDIAN);
    assert_int_equal(qtab_file_info(f->path, NULL, NULL), QTAB_ERR_ENDIAN);

    /* A marker of neither order under a valid header checksum. */
    static const unsigned char odd[4] = {1, 1, 1, 1};
    craft_header(h, 1, odd, &d, reference_checksum(p, 100));
    write_raw(f->path, h, 64, p, 100);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_ENDIAN);

    /* The same marker damaged in place: the header checksum catches it. */
    craft_header(h, 1, host, &d, reference_checksum(p, 100));
    h[13] ^= 0x40;
    write_raw(f->path, h, 64, p, 100);
    assert_int_equal(map_status(f->path, &d), QTAB_ERR_HEADER_CHECKSUM);
    free(p);
}

static void test_expectations(void **state)
{
    fixture *f = *state;
    qtab_file_desc d = write_sample(f);
    qtab_file_desc e;

    e = d;
    e.kind++;
    assert_int_equal(map_status(f->path, &e), QTAB_ERR_KIND);
    e = d;
    e.metric = 3;
    assert_int_equal(map_status(f->path, &e), QTAB_ERR_METRIC);
    e = d;
    e.entries++;
    assert_int_equal(map_status(f->path, &e), QTAB_ERR_SIZE);
    e = d;
    e.bytes = 2000;
    assert_int_equal(map_status(f->path, &e), QTAB_ERR_SIZE);
    assert_int_equal(qtab_file_info(f->path, &e, NULL), QTAB_ERR_SIZE);
    assert_int_equal(map_status(f->path, &d), QTAB_OK);
}

static void test_atomic_write(void **state)
{
    fixture *f = *state;
    write_sample(f);
    /* Only the table itself remains: the temporary file was renamed. */
    assert_int_equal(count_entries(f->dir), 1);

    /* Writing onto a non-empty directory fails at rename(): the temporary
     * file must be cleaned up and the directory left alone. */
    char target[PATH_MAX + 8], inner[PATH_MAX + 16];
    snprintf(target, sizeof target, "%s/dir", f->dir);
    snprintf(inner, sizeof inner, "%s/x", target);
    assert_int_equal(mkdir(target, 0755), 0);
    write_raw(inner, "x", 1, NULL, 0);
    unsigned char *p = make_payload(64, 2);
    qtab_file_desc d = desc_of(1, 0, 64, 64);
    assert_int_equal(qtab_file_write(target, &d, p, 1), QTAB_ERR_IO);
    assert_int_equal(count_entries(f->dir), 2); /* t.qst and dir */
    assert_int_equal(count_entries(target), 1);

    /* A missing directory fails at open(); nothing is created. */
    char nowhere[PATH_MAX + 16];
    snprintf(nowhere, sizeof nowhere, "%s/no/such.qst", f->dir);
    assert_int_equal(qtab_file_write(nowhere, &d, p, 1), QTAB_ERR_IO);
    assert_int_equal(errno, ENOENT);
    assert_int_equal(count_entries(f->dir), 2);

    assert_int_equal(qtab_file_write(NULL, &d, p, 1), QTAB_ERR_ARGUMENT);
    assert_int_equal(qtab_file_write(f->path, &d, NULL, 1), QTAB_ERR_ARGUMENT);
    free(p);
}

/* Sets or (value NULL) unsets an environment variable. */
static void env(const char *name, const char *value)
{
    if (value == NULL)
        assert_int_equal(unsetenv(name), 0);
    else
        assert_int_equal(setenv(name, value, 1), 0);
}

static void assert_dir(const char *path)
{
    struct stat st;
    assert_int_equal(stat(path, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
}

/* Copies of an environment variable's value, to restore it afterwards. */
static char *saved_env(const char *name)
{
    const char *v = getenv(name);
    return v != NULL ? strdup(v) : NULL;
}

static void restore_env(const char *name, char *value)
{
    env(name, value);
    free(value);
}

static void test_cache_dir(void **state)
{
    fixture *f = *state;
    char buf[PATH_MAX], want[PATH_MAX + 64];
    char *old_tables = saved_env("QUADSOLVE_TABLES");
    char *old_xdg = saved_env("XDG_CACHE_HOME");
    char *old_home = saved_env("HOME");

    /* 1. QUADSOLVE_TABLES wins over everything, and is created with its
     *    parents. */
    snprintf(want, sizeof want, "%s/qt/a/b", f->dir);
    env("QUADSOLVE_TABLES", want);
    char xdg[PATH_MAX + 16], home[PATH_MAX + 16];
    snprintf(xdg, sizeof xdg, "%s/xdg", f->dir);
    snprintf(home, sizeof home, "%s/home", f->dir);
    env("XDG_CACHE_HOME", xdg);
    env("HOME", home);
    assert_int_equal(qtab_cache_dir(buf, sizeof buf), QTAB_OK);
    assert_string_equal(buf, want);
    assert_dir(want);

    /* Trailing slashes are dropped. */
    char slashed[PATH_MAX + 72];
    snprintf(slashed, sizeof slashed, "%s//", want);
    env("QUADSOLVE_TABLES", slashed);
    assert_int_equal(qtab_cache_dir(buf, sizeof buf), QTAB_OK);
    assert_string_equal(buf, want);

    /* 2. Then $XDG_CACHE_HOME/quadsolve; empty counts as unset. */
    env("QUADSOLVE_TABLES", "");
    assert_int_equal(qtab_cache_dir(buf, sizeof buf), QTAB_OK);
    snprintf(want, sizeof want, "%s/quadsolve", xdg);
    assert_string_equal(buf, want);
    assert_dir(want);

    /* 3. Then $HOME/.cache/quadsolve; a relative XDG_CACHE_HOME is
     *    ignored, as the XDG spec asks. */
    env("QUADSOLVE_TABLES", NULL);
    env("XDG_CACHE_HOME", "relative/cache");
    assert_int_equal(qtab_cache_dir(buf, sizeof buf), QTAB_OK);
    snprintf(want, sizeof want, "%s/.cache/quadsolve", home);
    assert_string_equal(buf, want);
    assert_dir(want);
    env("XDG_CACHE_HOME", NULL);
    assert_int_equal(qtab_cache_dir(buf, sizeof buf), QTAB_OK);
    assert_string_equal(buf, want);

    /* Nothing set at all. */
    env("HOME", NULL);
    assert_int_equal(qtab_cache_dir(buf, sizeof buf), QTAB_ERR_CACHE_DIR);

    /* A directory that cannot be created: a parent is a regular file. */
    write_raw(f->path, "x", 1, NULL, 0);
    snprintf(want, sizeof want, "%s/sub", f->path);
    env("QUADSOLVE_TABLES", want);
    assert_int_equal(qtab_cache_dir(buf, sizeof buf), QTAB_ERR_CACHE_DIR);
    assert_int_equal(errno, ENOTDIR);

    /* The caller's buffer too small. */
    env("QUADSOLVE_TABLES", f->dir);
    assert_int_equal(qtab_cache_dir(buf, 4), QTAB_ERR_ARGUMENT);
    assert_int_equal(qtab_cache_dir(NULL, 0), QTAB_ERR_ARGUMENT);

    restore_env("QUADSOLVE_TABLES", old_tables);
    restore_env("XDG_CACHE_HOME", old_xdg);
    restore_env("HOME", old_home);
}

static void test_errors(void **state)
{
    (void)state;
    /* Every code has its own message and identifier. */
    for (int a = QTAB_ERR_ARGUMENT; a <= QTAB_OK; a++) {
        assert_string_not_equal(qtab_strerror(a), qtab_strerror(1));
        assert_string_not_equal(qtab_errcode(a), qtab_errcode(1));
        for (int b = a + 1; b <= QTAB_OK; b++) {
            assert_string_not_equal(qtab_strerror(a), qtab_strerror(b));
            assert_string_not_equal(qtab_errcode(a), qtab_errcode(b));
        }
    }
    assert_string_equal(qtab_errcode(QTAB_ERR_CHECKSUM), "CHECKSUM");
    assert_string_equal(qtab_errcode(QTAB_OK), "OK");
    assert_non_null(qtab_strerror(-1000));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_round_trip, setup, teardown),
        cmocka_unit_test_setup_teardown(test_empty_payload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_overwrite, setup, teardown),
        cmocka_unit_test_setup_teardown(test_byte_layout, setup, teardown),
        cmocka_unit_test(test_checksum_definition),
        cmocka_unit_test_setup_teardown(test_missing, setup, teardown),
        cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
        cmocka_unit_test_setup_teardown(test_trailing_bytes, setup, teardown),
        cmocka_unit_test_setup_teardown(test_payload_damage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_large_payload, setup, teardown),
        cmocka_unit_test_setup_teardown(test_small_page_region, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_small_page_file, setup,
                                        teardown),
        cmocka_unit_test_setup_teardown(test_header_damage, setup, teardown),
        cmocka_unit_test_setup_teardown(test_magic, setup, teardown),
        cmocka_unit_test_setup_teardown(test_version, setup, teardown),
        cmocka_unit_test_setup_teardown(test_endian, setup, teardown),
        cmocka_unit_test_setup_teardown(test_expectations, setup, teardown),
        cmocka_unit_test_setup_teardown(test_atomic_write, setup, teardown),
        cmocka_unit_test_setup_teardown(test_cache_dir, setup, teardown),
        cmocka_unit_test(test_errors),
    };
    return cmocka_run_group_tests_name("tablefile", tests, NULL, NULL);
}
