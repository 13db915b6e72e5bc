/*
 * memlat.c - how long a random read of main memory takes on this machine.
 *
 * The searches read gigabyte tables at random, so their speed follows the
 * machine's memory latency more than its clock, and that latency has
 * differed by a factor of two between sittings on VMs of the same name
 * (docs/benchmarks.md, thirtieth session). The benchmark scripts print
 * these figures on their machine line, so that figures from different
 * sittings can be compared.
 *
 * Each iteration reads one byte at a random 64-byte line of a buffer in
 * 2 MiB pages, mixed into an accumulator that decides the next read's
 * byte (so a read waits for the one before), then does a few dependent
 * multiplies. With a prefetch distance d > 0 the line d iterations ahead
 * is fetched first, as the searches do. The time of the same loop on a
 * buffer that fits the cache is subtracted, leaving the memory's part;
 * each figure is the least of three passes.
 *
 * usage: qs_memlat [MIB]   (default 2048)
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

enum { ITERATIONS = 1 << 19, PASSES = 3, SMALL_BYTES = 1 << 20, AHEAD = 4 };

static double seconds(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* Nanoseconds per iteration on a buffer of `bytes`, prefetching `ahead`
 * iterations ahead (0: none); negative if memory is short. */
static double loop_ns(size_t bytes, int ahead, uint64_t *sink)
{
    size_t lines = bytes / 64;
    uint8_t *p = mmap(NULL, bytes + 64, PROT_READ | PROT_WRITE,
                      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    uint64_t *line = malloc((ITERATIONS + AHEAD) * sizeof *line);
    if (p == MAP_FAILED || line == NULL) {
        free(line);
        if (p != MAP_FAILED)
            munmap(p, bytes + 64);
        return -1;
    }
#ifdef MADV_HUGEPAGE
    madvise(p, bytes + 64, MADV_HUGEPAGE);
#endif
    for (size_t i = 0; i < bytes + 64; i += 4096)
        p[i] = 1; /* every page present before the timing */
    uint64_t x = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < ITERATIONS + AHEAD; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        line[i] = (x % lines) * 64;
    }
    /* The least of a few passes: the machine is shared, and what is
     * wanted is its memory's latency, not a neighbour's burst. */
    double ns = -1;
    for (int pass = 0; pass < PASSES; pass++) {
        uint64_t acc = 0;
        double t0 = seconds();
        for (size_t i = 0; i < ITERATIONS; i++) {
            if (ahead)
                __builtin_prefetch(p + line[i + (size_t)ahead]);
            acc += p[line[i] + (acc & 1)];
            for (int k = 0; k < 8; k++)
                acc = acc * 6364136223846793005ull + 1442695040888963407ull;
        }
        double t = (seconds() - t0) * 1e9 / ITERATIONS;
        ns = ns < 0 || t < ns ? t : ns;
        *sink += acc;
    }
    munmap(p, bytes + 64);
    free(line);
    return ns;
}

int main(int argc, char **argv)
{
    char *end = NULL;
    long mib = argc > 1 ? strtol(argv[1], &end, 10) : 2048;
    if (argc > 2 || (end != NULL && (end == argv[1] || *end != '\0')) ||
        mib < 2 || mib > (1L << 20)) {
        fprintf(stderr, "usage: qs_memlat [MIB]  (2 to 1048576, default "
                        "2048)\n");
        return 2;
    }
    size_t big = (size_t)mib << 20;
    uint64_t sink = 0;
    double wait = loop_ns(big, 0, &sink), wait0 = loop_ns(SMALL_BYTES, 0, &sink);
    double flow = loop_ns(big, AHEAD, &sink),
           flow0 = loop_ns(SMALL_BYTES, AHEAD, &sink);
    if (wait < 0 || wait0 < 0 || flow < 0 || flow0 < 0) {
        fprintf(stderr, "qs_memlat: cannot map %ld MiB\n", mib);
        return 1;
    }
    /* the reads' sum is stored, so the compiler keeps the loops */
    volatile uint64_t keep = sink;
    (void)keep;
    printf("random read (%ld MiB): %.0f ns waited on, %.0f ns with %d in "
           "flight\n",
           mib, wait - wait0, flow - flow0, AHEAD);
    return 0;
}
