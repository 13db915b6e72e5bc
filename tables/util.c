/*
 * util.c - small system helpers used across the tables library: CPU count,
 * monotonic clock, recursive directory creation, and the memory tables
 * live in (huge-page allocations, and table files mapped from the page
 * cache in huge pages).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"
#include "qtab.h"

/* Thread counts above this gain nothing on checksums or generation and
 * would only risk exhausting thread resources. */
#define MAX_THREADS 256

int qtab_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n > MAX_THREADS ? MAX_THREADS : (int)n;
}

int qtab_threads(int requested)
{
    if (requested <= 0)
        return qtab_cpu_count();
    return requested > MAX_THREADS ? MAX_THREADS : requested;
}

double qtab_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* mkdir that treats an existing directory as success; an existing
 * non-directory is reported as ENOTDIR so callers see why. */
static int make_one(const char *path)
{
    if (mkdir(path, 0755) == 0)
        return 0;
    int saved = errno;
    struct stat st;
    if (stat(path, &st) == 0) {
        if (S_ISDIR(st.st_mode))
            return 0;
        errno = ENOTDIR;
        return -1;
    }
    errno = saved;
    return -1;
}

int qtab_mkdirs(const char *path)
{
    char buf[PATH_MAX];
    size_t n = strlen(path);
    if (n == 0) {
        errno = ENOENT;
        return QTAB_ERR_CACHE_DIR;
    }
    if (n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return QTAB_ERR_CACHE_DIR;
    }
    memcpy(buf, path, n + 1);
    /* Parents first; the leading '/' of an absolute path is skipped. */
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/' || p[-1] == '/')
            continue;
        *p = '\0';
        int rc = make_one(buf);
        *p = '/';
        if (rc != 0)
            return QTAB_ERR_CACHE_DIR;
    }
    return make_one(buf) == 0 ? QTAB_OK : QTAB_ERR_CACHE_DIR;
}

/* Tables are read at random, one cache miss per search node; with 4 KiB
 * pages most of those misses also miss the TLB. So a table lives in 2 MiB
 * pages: anonymous memory the kernel may back with transparent huge
 * pages, or a file mapping of the page cache where the kernel keeps the
 * file in 2 MiB folios (qtab_file_pages_map). */
#define HUGE_PAGE ((size_t)2 << 20)

static size_t huge_length(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE + HUGE_PAGE;
}

/* `used` bytes (a multiple of HUGE_PAGE) of anonymous memory with
 * protection prot starting at a 2 MiB boundary, so that every 2 MiB of a
 * table can be one page; NULL when the address space is exhausted. */
static unsigned char *aligned_range(size_t used, int prot)
{
    size_t len = used + HUGE_PAGE;
    unsigned char *raw =
        mmap(NULL, len, prot, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    /* Give back the slack before and after the aligned part. */
    uintptr_t start =
        ((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    size_t head = start - (uintptr_t)raw, tail = len - head - used;
    if (head)
        munmap(raw, head);
    if (tail)
        munmap((unsigned char *)start + used, tail);
    return (unsigned char *)start;
}

void *qtab_huge_alloc(size_t bytes)
{
    size_t used = huge_length(bytes) - HUGE_PAGE;
    unsigned char *p = aligned_range(used, PROT_READ | PROT_WRITE);
#ifdef MADV_HUGEPAGE
    if (p != NULL)
        madvise(p, used, MADV_HUGEPAGE);
#endif
    return p;
}

void qtab_huge_free(void *p, size_t bytes)
{
    if (p != NULL)
        munmap(p, huge_length(bytes) - HUGE_PAGE);
}

/* Bytes of the mapping that starts at `start` which the kernel maps with
 * 2 MiB pages of the page cache (its FilePmdMapped in /proc/self/smaps),
 * or -1 when that cannot be told. */
static long long pmd_mapped_bytes(const void *start)
{
    FILE *f = fopen("/proc/self/smaps", "re");
    if (f == NULL)
        return -1;
    char line[PATH_MAX + 256];
    unsigned long lo, hi, want = (unsigned long)(uintptr_t)start;
    int inside = 0;
    long long kb = -1;
    while (fgets(line, sizeof line, f) != NULL) {
        /* A mapping's first line is "lo-hi perms ..."; its fields follow
         * as "Name: value kB". */
        if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
            if (inside)
                break;
            inside = lo == want;
        } else if (inside &&
                   sscanf(line, "FilePmdMapped: %lld kB", &kb) == 1) {
            break;
        }
    }
    fclose(f);
    return kb < 0 ? -1 : kb * 1024;
}

/* bytes rounded up to whole pages of the system's size (4 KiB here,
 * 16 or 64 KiB on some arm64 kernels). */
static size_t page_round(size_t bytes)
{
    long page = sysconf(_SC_PAGESIZE);
    size_t size = page > 0 ? (size_t)page : 4096;
    return (bytes + size - 1) / size * size;
}

/* Faults a file mapping in now, at start-up, rather than in the first
 * searches; a file not in the page cache is read here (in 2 MiB pages on
 * kernels that read huge pages for mappings advised so). */
static void populate(void *p, size_t bytes)
{
#ifdef MADV_POPULATE_READ
    if (madvise(p, bytes, MADV_POPULATE_READ) == 0)
        return;
#endif
    size_t step = page_round(1);
    for (size_t i = 0; i < bytes; i += step)
        (void)*(volatile const unsigned char *)((unsigned char *)p + i);
}

const void *qtab_file_pages_map(int fd, size_t bytes)
{
    /* A file of less than one huge page gains nothing from sharing. */
    size_t huge_part = bytes / HUGE_PAGE * HUGE_PAGE;
    if (huge_part == 0)
        return NULL;
    /* Reserve an aligned range, then map the file over it: a 2 MiB page
     * of the page cache can be mapped whole only at an address aligned
     * like its file offset. */
    size_t used = huge_length(bytes) - HUGE_PAGE, mapped = page_round(bytes);
    unsigned char *start = aligned_range(used, PROT_NONE);
    if (start == NULL)
        return NULL;
    void *p = mmap(start, bytes, PROT_READ, MAP_SHARED | MAP_FIXED, fd, 0);
    if (p == MAP_FAILED) {
        munmap(start, used);
        return NULL;
    }
    if (used > mapped)
        munmap(start + mapped, used - mapped);
#ifdef MADV_HUGEPAGE
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    populate(p, bytes);
    /* A read of the small-page part of a table also misses the TLB: up to
     * a tenth of it is left so, a quarter after the repair below. */
    size_t good = huge_part / 10 * 9, enough = huge_part / 4 * 3;
    long long pmd = pmd_mapped_bytes(p);
    if (pmd > 0 && (size_t)pmd < good) {
        /* The kernel maps files in 2 MiB pages, but part of this one sits
         * in the page cache in small pages (as a copy of the file, a read
         * by another program, or pages evicted under memory pressure and
         * read again may leave it): its cached pages are dropped and read
         * again through this mapping, in 2 MiB pages, which the next start
         * then finds. A kernel that maps no file in 2 MiB pages (pmd 0) is
         * not asked to read it again each time. */
        madvise(p, bytes, MADV_DONTNEED);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        populate(p, bytes);
        pmd = pmd_mapped_bytes(p);
    }
    if (pmd < 0 || (size_t)pmd < enough) {
        munmap(p, mapped);
        return NULL;
    }
    return p;
}

void qtab_file_pages_unmap(const void *p, size_t bytes)
{
    if (p != NULL)
        munmap((void *)(uintptr_t)p, page_round(bytes));
}
