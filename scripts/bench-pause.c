/* How long a table's pages take to read again after a pause: maps a table
 * file read-only and shared, as the tables library does (advised for 2 MiB
 * pages), reads one byte of each of its 2 MiB pages, waits PAUSE ms, and
 * times the same sweep again, for pauses from 1 ms to 2 s, twice over.
 * Where pages left unread go cold (this project's VMs), the second sweep
 * grows with the pause; where they do not, it stays a fraction of a
 * millisecond. It also reports the process's page faults during the timed
 * sweep, which stay at 0 when the cost is the host's (docs/tables.md,
 * "Keeping the pages warm between solves").
 *
 *   cc -O2 -o bench-pause scripts/bench-pause.c
 *   ./bench-pause ~/.cache/quadsolve/robot-phase1-moves.qst
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

enum { PAGE = 2 << 20 };

static volatile unsigned sink; /* keeps the reads */

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

static unsigned sweep(const volatile unsigned char *p, size_t bytes)
{
    unsigned sum = 0;
    for (size_t o = 0; o < bytes; o += PAGE)
        sum += p[o];
    return sum;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: %s TABLE_FILE\n", argv[0]);
        return 2;
    }
    int fd = open(argv[1], O_RDONLY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0 || st.st_size < PAGE) {
        perror(argv[1]);
        return 1;
    }
    size_t bytes = (size_t)st.st_size;
    const unsigned char *p =
        mmap(NULL, bytes, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        perror("mmap");
        return 1;
    }
    madvise((void *)p, bytes, MADV_HUGEPAGE);
    size_t pages = (bytes + PAGE - 1) / PAGE;
    unsigned sum = sweep(p, bytes);
    const int pause_ms[] = {1, 10, 50, 100, 200, 500, 1000, 2000};
    printf("%s: %zu pages of 2 MiB\n", argv[1], pages);
    for (int round = 0; round < 2; round++)
        for (int i = 0; i < 8; i++) {
            sum += sweep(p, bytes);
            usleep((useconds_t)pause_ms[i] * 1000);
            struct rusage a, b;
            getrusage(RUSAGE_SELF, &a);
            double t0 = now_ms();
            sum += sweep(p, bytes);
            double dt = now_ms() - t0;
            getrusage(RUSAGE_SELF, &b);
            printf("pause %5d ms: sweep %7.2f ms, %6.2f us a page, "
                   "%ld page faults\n",
                   pause_ms[i], dt, dt * 1e3 / (double)pages,
                   (b.ru_minflt - a.ru_minflt) + (b.ru_majflt - a.ru_majflt));
        }
    sink = sum;
    return 0;
}
