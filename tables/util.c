/*
 * util.c - small system helpers used across the tables library: CPU count,
 * monotonic clock and recursive directory creation.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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
 * pages most of those misses also miss the TLB. Anonymous memory that the
 * kernel may back with 2 MiB pages (transparent huge pages) avoids that,
 * which file mappings of the page cache cannot. */
#define HUGE_PAGE ((size_t)2 << 20)

static size_t huge_length(size_t bytes)
{
    return (bytes + HUGE_PAGE - 1) / HUGE_PAGE * HUGE_PAGE + HUGE_PAGE;
}

void *qtab_huge_alloc(size_t bytes)
{
    size_t used = huge_length(bytes) - HUGE_PAGE, len = used + HUGE_PAGE;
    unsigned char *raw = mmap(NULL, len, PROT_READ | PROT_WRITE,
                              MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    /* Align to a huge page so every 2 MiB of the table can be one page;
     * give back the slack before and after. */
    uintptr_t start =
        ((uintptr_t)raw + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1);
    size_t head = start - (uintptr_t)raw, tail = len - head - used;
    if (head)
        munmap(raw, head);
    if (tail)
        munmap((unsigned char *)start + used, tail);
#ifdef MADV_HUGEPAGE
    madvise((void *)start, used, MADV_HUGEPAGE);
#endif
    return (void *)start;
}

void qtab_huge_free(void *p, size_t bytes)
{
    if (p != NULL)
        munmap(p, huge_length(bytes) - HUGE_PAGE);
}
