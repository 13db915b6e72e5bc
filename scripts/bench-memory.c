/* Random reads of a gigabyte buffer, as the optimal search reads its
 * tables (docs/benchmarks.md, "Where an xl node's time goes"): per
 * thread, k independent chains of dependent reads interleaved, for k from
 * 1 (the latency of one read) up to 32 (how many reads the machine keeps
 * in flight). Each chain's next line is a hash of the value read and the
 * step, so no chain settles into a short cycle that the caches would hold.
 *
 *   cc -O2 -pthread -o bench-memory scripts/bench-memory.c
 *   ./bench-memory [GIB] [THREADS]       (defaults 2.5 and 1)
 *
 * Then, on one thread, what a prefetch costs amid other work, into the
 * whole buffer and into its first 64 MiB (amid_work).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

typedef struct {
    const uint64_t *buf;
    size_t lines;
    int chains;
    long steps;
    double ns; /* per read, out */
} chase;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static uint64_t xorshift(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void *run(void *arg)
{
    chase *c = arg;
    uint64_t seed = 88172645463325252ull ^ (uint64_t)(uintptr_t)arg;
    size_t at[32];
    for (int j = 0; j < c->chains; j++)
        at[j] = xorshift(&seed) % c->lines;
    uint64_t sum = 0;
    double t0 = now_s();
    for (long i = 0; i < c->steps; i++)
        for (int j = 0; j < c->chains; j++) {
            uint64_t v = c->buf[at[j] * 8];
            sum += v;
            at[j] = ((v ^ (uint64_t)i * 0x9e3779b97f4a7c15ull) *
                         0xff51afd7ed558ccdull >> 17) % c->lines;
        }
    c->ns = (now_s() - t0) * 1e9 / ((double)c->steps * c->chains);
    if (sum == 42) /* keeps the reads */
        fputc('\n', stderr);
    return NULL;
}

/* ns per step of a loop that prefetches one random line of the first
 * `lines` lines of buf (when `prefetch`) amid 40 dependent additions, as
 * the robot search spreads its prefetches among other work. A prefetch
 * costs more than its issue slot where its address is slow to translate:
 * on the fifty-second session's VM, about 10-20 ns more in 2.25 GiB than
 * in 64 MiB, in 1 GiB pages as in 2 MiB ones (docs/benchmarks.md). */
static double amid_work(const uint64_t *buf, size_t lines, int prefetch)
{
    uint64_t seed = 88172645463325252ull, acc = 0;
    const long steps = 4000000;
    double t0 = now_s();
    for (long i = 0; i < steps; i++) {
        size_t line = xorshift(&seed) % lines;
        if (prefetch)
            __builtin_prefetch(&buf[line * 8]);
        for (int k = 0; k < 40; k++) {
            acc += (uint64_t)k * (uint64_t)i;
            __asm__ volatile("" : "+r"(acc)); /* a chain, not a vector */
        }
    }
    double ns = (now_s() - t0) * 1e9 / (double)steps;
    if (acc == 42)
        fputc('\n', stderr);
    return ns;
}

int main(int argc, char **argv)
{
    double gib = argc > 1 ? atof(argv[1]) : 2.5;
    int threads = argc > 2 ? atoi(argv[2]) : 1;
    if (gib <= 0 || threads < 1 || threads > 64) {
        fprintf(stderr, "usage: bench-memory [GIB > 0] [THREADS 1..64]\n");
        return 2;
    }
    size_t bytes = (size_t)(gib * (double)(1ull << 30)) / 64 * 64;
    uint64_t *buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE,
                         MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (buf == MAP_FAILED) {
        perror("bench-memory: mmap");
        return 1;
    }
    madvise(buf, bytes, MADV_HUGEPAGE);
    uint64_t seed = 1;
    for (size_t i = 0; i < bytes / 64; i++)
        buf[i * 8] = xorshift(&seed);
    static const int ks[] = {1, 2, 4, 8, 12, 16, 24, 32};
    for (size_t x = 0; x < sizeof ks / sizeof *ks; x++) {
        pthread_t th[64];
        chase c[64];
        for (int t = 0; t < threads; t++) {
            c[t] = (chase){buf, bytes / 64, ks[x], 4000000 / ks[x], 0};
            if (pthread_create(&th[t], NULL, run, &c[t]) != 0) {
                fprintf(stderr, "bench-memory: cannot start a thread\n");
                return 1;
            }
        }
        double ns = 0;
        for (int t = 0; t < threads; t++) {
            pthread_join(th[t], NULL);
            ns += c[t].ns / threads;
        }
        printf("%zu MiB, %d thread(s), %2d chains: %.1f ns per read per "
               "thread\n", bytes >> 20, threads, ks[x], ns);
    }
    size_t lines = bytes / 64, near = (64u << 20) / 64;
    if (near > lines)
        near = lines;
    double alone = amid_work(buf, lines, 0);
    printf("a prefetch amid 40 dependent additions (%.1f ns a step without "
           "it): %.1f ns more in %zu MiB, %.1f ns more in %zu MiB\n",
           alone, amid_work(buf, lines, 1) - alone, bytes >> 20,
           amid_work(buf, near, 1) - alone, near >> 14);
    munmap(buf, bytes);
    return 0;
}
