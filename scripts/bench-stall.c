/* How often, and for how long, the machine takes a processor away from a
 * running thread: one thread per processor does nothing but read the
 * monotonic clock for SECONDS, and reports every gap between two reads of
 * at least 0.3 ms, then a summary per processor. On a machine of its own a
 * loop like this sees gaps of microseconds; on this project's VMs it sees
 * pauses of 1-9 ms every half second or so, which is why a few 10 ms
 * solves in a run take 20-30 ms (docs/benchmarks.md, fifty-third session,
 * "The slowest solves"). Run it with nothing else busy.
 *
 *   cc -O2 -pthread -o bench-stall scripts/bench-stall.c
 *   ./bench-stall [SECONDS]        (default 10; one thread per processor
 *                                  it may run on)
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

enum { MAX_CPUS = 64, MAX_GAPS = 4096 };

typedef struct {
    int cpu, pinned;
    double seconds;
    int gaps;
    double at_ms[MAX_GAPS], gap_ms[MAX_GAPS];
    double total_ms, longest_ms;
    int over_1ms;
} watch;

static uint64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000000000u + (uint64_t)t.tv_nsec;
}

static void *run(void *arg)
{
    watch *w = arg;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(w->cpu, &set);
    /* Unpinned, the scheduler would move the loop off a paused
     * processor and hide the pause. */
    if (pthread_setaffinity_np(pthread_self(), sizeof set, &set) != 0) {
        fprintf(stderr, "bench-stall: cannot pin a thread to cpu %d\n",
                w->cpu);
        return NULL;
    }
    w->pinned = 1;
    uint64_t start = now_ns(), prev = start;
    uint64_t end = start + (uint64_t)(w->seconds * 1e9);
    for (;;) {
        uint64_t t = now_ns();
        double gap = (double)(t - prev) * 1e-6;
        if (gap >= 0.3) {
            if (w->gaps < MAX_GAPS) {
                w->at_ms[w->gaps] = (double)(prev - start) * 1e-6;
                w->gap_ms[w->gaps] = gap;
            }
            w->gaps++;
            w->total_ms += gap;
            if (gap > w->longest_ms)
                w->longest_ms = gap;
            if (gap >= 1.0)
                w->over_1ms++;
        }
        prev = t;
        if (t >= end)
            break;
    }
    return NULL;
}

int main(int argc, char **argv)
{
    double seconds = argc > 1 ? atof(argv[1]) : 10.0;
    if (!(seconds > 0 && seconds <= 3600)) {
        fprintf(stderr, "usage: bench-stall [SECONDS, 0 < s <= 3600]\n");
        return 2;
    }
    /* The processors this process may run on (taskset, a container's
     * cpuset), which need not be 0..n-1. */
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        perror("bench-stall: sched_getaffinity");
        return 1;
    }
    static watch w[MAX_CPUS];
    pthread_t th[MAX_CPUS];
    int cpus = 0;
    for (int c = 0; c < CPU_SETSIZE && cpus < MAX_CPUS; c++)
        if (CPU_ISSET(c, &allowed))
            w[cpus++].cpu = c;
    for (int c = 0; c < cpus; c++) {
        w[c].seconds = seconds;
        if (pthread_create(&th[c], NULL, run, &w[c]) != 0) {
            fprintf(stderr, "bench-stall: cannot start a thread\n");
            return 1;
        }
    }
    for (int c = 0; c < cpus; c++)
        pthread_join(th[c], NULL);
    int unpinned = 0;
    for (int c = 0; c < cpus; c++) {
        if (!w[c].pinned) {
            unpinned = 1;
            continue;
        }
        int shown = w[c].gaps < MAX_GAPS ? w[c].gaps : MAX_GAPS;
        for (int g = 0; g < shown; g++)
            printf("cpu %d at %9.1f ms: paused %.2f ms\n", w[c].cpu,
                   w[c].at_ms[g], w[c].gap_ms[g]);
    }
    for (int c = 0; c < cpus; c++)
        if (w[c].pinned)
            printf("cpu %d: %d pauses of 0.3 ms or more (%d of 1 ms or more) "
                   "in %.0f s, %.1f ms in all, the longest %.2f ms\n",
                   w[c].cpu, w[c].gaps, w[c].over_1ms, seconds,
                   w[c].total_ms, w[c].longest_ms);
    return unpinned ? 1 : 0;
}
