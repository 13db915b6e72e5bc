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
#include <sys/ioctl.h>
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

long long qtab_file_huge_bytes(const void *start)
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

/* PAGEMAP_SCAN (Linux 6.7) tells a process which of its own pages are
 * not in huge pages, without privileges. Debian 12's headers predate it;
 * its ABI is fixed, so it is declared here under names of our own. */
typedef struct {
    uint64_t start, end, categories;
} scan_region;

typedef struct {
    uint64_t size, flags, start, end, walk_end, vec, vec_len, max_pages;
    uint64_t category_inverted, category_mask, category_anyof_mask;
    uint64_t return_mask;
} scan_arg;

#define SCAN_IOCTL _IOWR('f', 16, scan_arg)
#define SCAN_IS_HUGE (1u << 6)

/* Drops the 2 MiB region at `at` of a file mapping (fd, mapped from
 * `base`) from the page cache and reads it again through the mapping,
 * which the kernel then fills with one 2 MiB page where it can. Pages
 * another process maps stay as they are. */
static void reread_region(int fd, const unsigned char *base,
                          unsigned char *at)
{
    madvise(at, HUGE_PAGE, MADV_DONTNEED);
    posix_fadvise(fd, at - base, HUGE_PAGE, POSIX_FADV_DONTNEED);
    populate(at, HUGE_PAGE);
}

static long small_regions(unsigned char *p, size_t bytes, int fd);

/* Reads the region at `at` again (reread_region) and tells whether it is
 * now in one huge page. */
static int repaired(int fd, const unsigned char *base, unsigned char *at)
{
    reread_region(fd, base, at);
    return small_regions(at, HUGE_PAGE, -1) == 0;
}

/* The 2 MiB regions of [p, p + bytes) (bytes a multiple of HUGE_PAGE, p
 * aligned to it) not mapped in one huge page, -1 when the kernel cannot
 * tell. With fd >= 0 each is read again first (reread_region), until one
 * stays small: then the kernel finds no free 2 MiB page, or another
 * process maps the pages, and reading more from disk would not help. */
static long small_regions(unsigned char *p, size_t bytes, int fd)
{
    int pm = open("/proc/self/pagemap", O_RDONLY | O_CLOEXEC);
    if (pm < 0)
        return -1;
    scan_region v[64];
    uint64_t at = (uintptr_t)p, end = at + bytes, done = at;
    long count = 0;
    while (at < end) {
        scan_arg a = {.size = sizeof a, .start = at, .end = end,
                      .vec = (uintptr_t)v, .vec_len = 64,
                      .category_inverted = SCAN_IS_HUGE,
                      .category_mask = SCAN_IS_HUGE,
                      .return_mask = SCAN_IS_HUGE};
        long n = ioctl(pm, SCAN_IOCTL, &a);
        if (n < 0) {
            count = -1;
            break;
        }
        for (long i = 0; i < n; i++) {
            /* every region a small page touches, each counted once */
            uint64_t r = v[i].start & ~(uint64_t)(HUGE_PAGE - 1);
            for (r = r < done ? done : r; r < v[i].end; r += HUGE_PAGE) {
                done = r + HUGE_PAGE;
                if (fd >= 0 && repaired(fd, p, (unsigned char *)(uintptr_t)r))
                    continue;
                count++;
                fd = -1; /* one stays small: none is read again after it */
            }
        }
        if (n < (long)(sizeof v / sizeof v[0]) || a.walk_end <= at)
            break;
        at = a.walk_end;
    }
    close(pm);
    return count;
}

/* How many of the first huge_part bytes of a table's mapping at p (the
 * part whole 2 MiB pages can map) are in 2 MiB pages once the regions
 * left in small pages are read again; -1 when the kernel cannot tell.
 * Such regions appear where the page cache holds part of a file in
 * small pages: a copy, a read by another program, pages evicted under
 * memory pressure and read again, or a 2 MiB page the kernel could not
 * find when the file was read. Each costs a TLB miss on most reads (a table
 * wholly in small pages took 1.28 times as long to search, fifty-first
 * session), and only they are read again, so the repair is cheap enough
 * for every start. A kernel or file system that maps no file in 2 MiB
 * pages (none is, after one region read again) is not asked to read the
 * whole file at every start. */
static long long huge_bytes_repaired(unsigned char *p, size_t huge_part,
                                     int fd)
{
    long small = small_regions(p, huge_part, fd);
    if (small < 0)
        return -1;
    return (long long)huge_part - (long long)small * (long long)HUGE_PAGE;
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
    /* Kept with at least 3/4 of it in 2 MiB pages: the rest is searched
     * at small pages' cost, 1.28 times as long. */
    size_t good = huge_part / 10 * 9, enough = huge_part / 4 * 3;
    long long pmd = huge_bytes_repaired(p, huge_part, fd);
    if (pmd < 0)
        pmd = qtab_file_huge_bytes(p);
    else
        good = 0; /* repaired region by region already */
    if (pmd > 0 && (size_t)pmd < good) {
        /* A kernel before PAGEMAP_SCAN tells only how much of the file is
         * in 2 MiB pages, not where: with more than a tenth in small
         * pages, the whole file's cached pages are dropped and read again
         * through this mapping, which the next start then finds. A kernel
         * that maps no file in 2 MiB pages (pmd 0) is not asked to read
         * it again each time. */
        madvise(p, bytes, MADV_DONTNEED);
        posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
        populate(p, bytes);
        pmd = qtab_file_huge_bytes(p);
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
