/*
 * internal.h - helpers shared by the tables library's source files.
 *
 * Private to tables/: not installed and not part of the public interface
 * (qtab.h). The helpers carry the qtab_ prefix only because they cross
 * file boundaries and so cannot be static.
 */
#ifndef QTAB_INTERNAL_H
#define QTAB_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

/* Number of online CPUs, at least 1. */
int qtab_cpu_count(void);
/* Resolves a caller's thread count: <= 0 means all online CPUs. */
int qtab_threads(int requested);
/* Monotonic time in seconds. */
double qtab_now(void);
/* Creates path and its missing parents with mode 0755 (like mkdir -p).
 * Returns QTAB_OK, or QTAB_ERR_CACHE_DIR with errno set. */
int qtab_mkdirs(const char *path);

/* Memory for a large table, backed by huge pages where the kernel allows
 * (NULL when out of memory); release with qtab_huge_free and the same
 * size. */
void *qtab_huge_alloc(size_t bytes);
void qtab_huge_free(void *p, size_t bytes);

/* The first `bytes` of the open file fd, mapped read-only and shared with
 * the page cache (no copy) at a 2 MiB-aligned address and faulted in, but
 * only when the kernel backs at least 9/10 of it with 2 MiB pages of the
 * page cache, or 3/4 once the file's small cached pages were dropped and
 * read again; NULL otherwise (the caller then reads the file into
 * qtab_huge_alloc memory). Release with qtab_file_pages_unmap. */
const void *qtab_file_pages_map(int fd, size_t bytes);
void qtab_file_pages_unmap(const void *p, size_t bytes);

/* A thread keeping memory warm (warm.c): every period_ms it reads one
 * byte of each 2 MiB page of the n regions (base[i], bytes[i]; NULL or
 * empty ones are skipped, n at most QTAB_WARM_MAX), until
 * qtab_warm_stop. qtab_warm_start returns NULL when the thread (or its
 * memory) cannot be had, or for arguments out of range. */
enum { QTAB_WARM_MAX = 32 };
typedef struct qtab_warm qtab_warm;
qtab_warm *qtab_warm_start(const void *const *base, const size_t *bytes,
                           int n, int period_ms);
/* The sweeps made so far and the seconds they took; w may be NULL. */
void qtab_warm_stats(qtab_warm *w, uint64_t *sweeps, double *seconds);
/* Stops the thread (waiting for a sweep under way) and frees w; w may be
 * NULL. */
void qtab_warm_stop(qtab_warm *w);

#endif
