/*
 * warm.c - a thread that keeps a table set's pages warm between solves.
 *
 * On some virtual machines, this project's Firecracker VMs among them, a
 * 2 MiB page that has not been read for some tens of milliseconds is slow
 * to read again: one byte of each page of a 2.2 GB table took 1-5 us a
 * page after 100 ms of idle, 10-40 us after a second and 18-56 us after
 * two. No fault reaches the guest, so it is the host's mapping that is
 * made again. A robot solve reads some 1,500 such pages at random in its
 * 10 ms, so after a pause of a second it searched a hundredth to a tenth
 * of the nodes of a solve in a run and overran its time
 * (docs/benchmarks.md, forty-third session). Reading one byte of every 2 MiB page each period
 * keeps those mappings alive; over warm pages a sweep costs well under a
 * millisecond. Where pages do not go cold, the sweeps only cost that;
 * where they go cold within the period, the wait after a long sweep is
 * stretched so that the thread takes at most a tenth of one core.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <time.h>

#include "internal.h"

enum { PAGE = 2 << 20 };

struct qtab_warm {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t wake;
    int stop;      /* guarded by lock */
    int period_ms;
    int n;
    const unsigned char *base[QTAB_WARM_MAX];
    size_t bytes[QTAB_WARM_MAX];
    uint64_t sweeps; /* guarded by lock */
    double seconds;
};

/* Reads one byte of each 2 MiB page of every region; the volatile reads
 * are what keeps them, so the compiler must not drop them. */
static void sweep(const qtab_warm *w)
{
    for (int i = 0; i < w->n; i++) {
        const volatile unsigned char *p = w->base[i];
        uintptr_t start = (uintptr_t)p, end = start + w->bytes[i];
        for (uintptr_t a = start & ~(uintptr_t)(PAGE - 1); a < end; a += PAGE)
            (void)p[(a < start ? start : a) - start];
    }
}

static void *keeper(void *arg)
{
    qtab_warm *w = arg;
    pthread_mutex_lock(&w->lock);
    while (!w->stop) {
        pthread_mutex_unlock(&w->lock);
        double t0 = qtab_now();
        sweep(w);
        double dt = qtab_now() - t0;
        /* Where pages go cold within the period, a sweep of several sets
         * (the daemon's, some 8 GB) can take milliseconds: the wait is
         * stretched to keep the thread under a tenth of one core. */
        long wait_ms = w->period_ms;
        if (dt * 9e3 > (double)wait_ms)
            wait_ms = (long)(dt * 9e3);
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += (wait_ms % 1000) * 1000000L;
        until.tv_sec += wait_ms / 1000 + until.tv_nsec / 1000000000L;
        until.tv_nsec %= 1000000000L;
        pthread_mutex_lock(&w->lock);
        w->sweeps++;
        w->seconds += dt;
        while (!w->stop &&
               pthread_cond_timedwait(&w->wake, &w->lock, &until) == 0)
            ; /* woken early (or spuriously): wait out the period */
    }
    pthread_mutex_unlock(&w->lock);
    return NULL;
}

qtab_warm *qtab_warm_start(const void *const *base, const size_t *bytes,
                           int n, int period_ms)
{
    if (n < 0 || n > QTAB_WARM_MAX || period_ms <= 0)
        return NULL;
    qtab_warm *w = calloc(1, sizeof *w);
    if (w == NULL)
        return NULL;
    w->period_ms = period_ms;
    for (int i = 0; i < n; i++)
        if (base[i] != NULL && bytes[i] > 0) {
            w->base[w->n] = base[i];
            w->bytes[w->n++] = bytes[i];
        }
    pthread_condattr_t ca;
    int ok = pthread_condattr_init(&ca) == 0;
    if (ok) {
        ok = pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) == 0 &&
             pthread_cond_init(&w->wake, &ca) == 0;
        pthread_condattr_destroy(&ca);
    }
    if (!ok) {
        free(w);
        return NULL;
    }
    if (pthread_mutex_init(&w->lock, NULL) != 0) {
        pthread_cond_destroy(&w->wake);
        free(w);
        return NULL;
    }
    if (pthread_create(&w->thread, NULL, keeper, w) != 0) {
        pthread_mutex_destroy(&w->lock);
        pthread_cond_destroy(&w->wake);
        free(w);
        return NULL;
    }
    return w;
}

void qtab_warm_stats(qtab_warm *w, uint64_t *sweeps, double *seconds)
{
    *sweeps = 0;
    *seconds = 0;
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    *sweeps = w->sweeps;
    *seconds = w->seconds;
    pthread_mutex_unlock(&w->lock);
}

void qtab_warm_stop(qtab_warm *w)
{
    if (w == NULL)
        return;
    pthread_mutex_lock(&w->lock);
    w->stop = 1;
    pthread_cond_signal(&w->wake);
    pthread_mutex_unlock(&w->lock);
    pthread_join(w->thread, NULL);
    pthread_mutex_destroy(&w->lock);
    pthread_cond_destroy(&w->wake);
    free(w);
}
