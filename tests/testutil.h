/*
 * testutil.h - helpers shared by the tests: where the benchmark cubes are,
 * reading them, and opening the table set of a metric from the cache that
 * the `tables` ctest fixture fills; the processes a test starts (daemons,
 * simulators), which never outlive it; waits scaled to the machine's
 * load; and the firmware protocol's frames and steps as the tests write
 * them (the wire form of a message, the firmware's HELLO, the compact
 * spelling of a step).
 */
#ifndef QS_TESTUTIL_H
#define QS_TESTUTIL_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "qtab.h"
#include "quadsolve.h"

/* Path of a file in ../shared/bench (QUADSOLVE_BENCH_DIR, set by ctest). */
static inline void test_bench_path(const char *file, char *buf, size_t len)
{
    const char *dir = getenv("QUADSOLVE_BENCH_DIR");
    snprintf(buf, len, "%s/%s", dir && *dir ? dir : "../shared/bench", file);
}

/* Reads the first max lines of a benchmark file, each a 54-character
 * facelet string, and returns how many it read (fewer only when the file
 * is shorter). A line of any other length fails the test, naming the file
 * and line: a damaged benchmark file must not quietly shrink a sample.
 * The facelets themselves are checked by whoever parses them. */
static inline int test_read_bench(const char *file, char (*lines)[55], int max)
{
    char path[1024], buf[256];
    test_bench_path(file, path, sizeof path);
    FILE *f = fopen(path, "r");
    if (!f)
        fail_msg("cannot open %s (set QUADSOLVE_BENCH_DIR)", path);
    int n = 0;
    while (n < max && fgets(buf, sizeof buf, f)) {
        buf[strcspn(buf, "\r\n")] = 0;
        if (strlen(buf) != 54) {
            fclose(f);
            fail_msg("%s:%d: %zu characters, a facelet string has 54", path,
                     n + 1, strlen(buf));
        }
        memcpy(lines[n++], buf, 55);
    }
    fclose(f);
    return n;
}

/* Opens metric m's tables quietly with the given sizes of the optional
 * blobs, failing the test on an error. */
static inline qtab_set *test_open_tables_with(qs_metric m,
                                              qtab_optimal_size optimal,
                                              qtab_robot_size robot)
{
    qtab_options o;
    qtab_options_default(&o);
    o.optimal = optimal;
    o.robot = robot;
    o.quiet = 1;
    o.progress = 0;
    qtab_set *set = NULL;
    int rc = qtab_open(m, &o, &set);
    if (rc != QTAB_OK)
        fail_msg("tables for %s: %s", qs_metric_name(m), qtab_strerror(rc));
    return set;
}

static inline qtab_set *test_open_tables_sized(qs_metric m,
                                               qtab_optimal_size size)
{
    return test_open_tables_with(m, size, QTAB_ROBOT_LARGE);
}

static inline qtab_set *test_open_robot_sized(qtab_robot_size size)
{
    return test_open_tables_with(QS_METRIC_ROBOT, QTAB_OPTIMAL_SMALL, size);
}

/* The default sets: small optimal tables, the large robot set. */
static inline qtab_set *test_open_tables(qs_metric m)
{
    return test_open_tables_with(m, QTAB_OPTIMAL_SMALL, QTAB_ROBOT_LARGE);
}

/* Applies a solution to a copy of c and asserts that it solves it. */
static inline void test_assert_solves(const qs_cube *c, const qs_solution *s)
{
    qs_cube d = *c;
    qs_cube_apply_moves(&d, s->moves, s->n);
    if (!qs_cube_is_solved(&d)) {
        char text[512], facelets[55];
        qs_moves_format(s->moves, s->n, text, sizeof text);
        qs_cube_to_facelets(c, facelets);
        fail_msg("%s does not solve %s", text, facelets);
    }
}

/* A TCP connection to 127.0.0.1:port (Nagle off: the tests exchange
 * small frames), asserted to succeed. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
static inline int test_tcp_connect(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(fd >= 0);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof a), 0);
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return fd;
}

/* Reads a stream to its end into a NUL-terminated buffer (caller frees). */
static inline char *test_read_all(FILE *f)
{
    size_t cap = 1 << 16, len = 0, got;
    char *buf = malloc(cap);
    assert_non_null(buf);
    while ((got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += got;
        if (len + 1 == cap) {
            buf = realloc(buf, cap *= 2);
            assert_non_null(buf);
        }
    }
    buf[len] = '\0';
    return buf;
}

/* Runs a shell command; returns its exit status (-1 when a signal ended
 * it) and its whole standard output in *out (caller frees). */
#include <sys/wait.h>
static inline int test_run(const char *cmd, char **out)
{
    FILE *p = popen(cmd, "r");
    if (!p)
        fail_msg("cannot run %s", cmd);
    *out = test_read_all(p);
    int status = pclose(p);
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* test_run with the output cut to fit out (len bytes). */
static inline int test_run_into(const char *cmd, char *out, size_t len)
{
    char *all;
    int rc = test_run(cmd, &all);
    snprintf(out, len, "%s", all);
    free(all);
    return rc;
}

/* ------------------------------------------- processes a test starts */

/* Every daemon or simulator a test starts comes from test_fork. A process
 * left running by a failed test holds the test's stderr, which is ctest's
 * output pipe, so ctest would wait its whole timeout (600 s) for it to
 * close; so each child dies with the test process (PR_SET_PDEATHSIG:
 * after a crash or ctest's own kill too), and test_kill_children, run
 * by the tests' teardown and at exit, ends those still running at once. */
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#define TEST_MAX_CHILDREN 64
static pid_t test_children[TEST_MAX_CHILDREN];

/* Whether child pid still runs, without reaping it (the test may want
 * its exit status); false too once the test has reaped it, so a pid the
 * system gave to another process is never taken for it. */
static inline int test_child_running(pid_t pid)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 &&
           si.si_pid == 0;
}

/* SIGKILLs and reaps every child started by test_fork that still runs,
 * except keep (0: none). */
static inline void test_kill_children(pid_t keep)
{
    for (int i = 0; i < TEST_MAX_CHILDREN; i++) {
        pid_t pid = test_children[i];
        if (pid <= 0 || pid == keep)
            continue;
        test_children[i] = 0;
        if (!test_child_running(pid))
            continue;
        kill(pid, SIGCONT); /* a test may have stopped it */
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
    }
}

static inline void test_kill_all_children(void)
{
    test_kill_children(0);
}

/* fork() for a process the test starts (it then execs): asserted to
 * succeed, remembered for test_kill_children, and killed by the kernel
 * when the test process ends. Returns 0 in the child, as fork does. */
static inline pid_t test_fork(void)
{
    static int at_exit;
    if (!at_exit && atexit(test_kill_all_children) == 0)
        at_exit = 1;
    pid_t parent = getpid();
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent) /* the test died before prctl */
            _exit(127);
        return 0;
    }
    for (int i = 0; i < TEST_MAX_CHILDREN; i++)
        if (test_children[i] <= 0 || !test_child_running(test_children[i])) {
            test_children[i] = pid;
            return pid;
        }
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    fail_msg("more than %d processes started by one test", TEST_MAX_CHILDREN);
    return -1;
}

/* The next number of a xorshift generator whose state (any nonzero
 * seed) the test owns, so every run draws the same samples. */
static inline uint64_t test_rand(uint64_t *rng)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng;
}

/* Milliseconds of the monotonic clock. */
#include <time.h>
static inline int64_t test_mono_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Sleeps ms milliseconds, on through interrupting signals. */
#include <errno.h>
static inline void test_sleep_ms(int ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* ------------------------------------------------------- scaled waits */

/* A bound on a wait for another process (a reply, a start-up), scaled
 * to the machine: base_ms when it is idle, longer by its load per core
 * (the larger of /proc/loadavg's 1- and 5-minute figures; at most 10
 * times), twice that under the sanitizers, or QS_TEST_TIME_SCALE times
 * when that is set. A shared 2-core machine runs at a load of 8 to 13
 * when several builds and test suites run at once, and then a daemon
 * may take seconds to answer what takes it milliseconds; the bounds
 * still end a wait for a process that is stuck. Timings the tests
 * assert are not scaled. */
static inline int test_scaled_ms(int base_ms)
{
    double scale = 1;
    const char *env = getenv("QS_TEST_TIME_SCALE");
    if (env && *env) {
        scale = atof(env);
        if (!(scale >= 1))
            scale = 1;
    } else {
        double l1 = 0, l5 = 0;
        long cores = sysconf(_SC_NPROCESSORS_ONLN);
        FILE *f = fopen("/proc/loadavg", "r");
        if (f) {
            if (fscanf(f, "%lf %lf", &l1, &l5) != 2)
                l1 = l5 = 0;
            fclose(f);
        }
        double per_core = (l1 > l5 ? l1 : l5) / (double)(cores > 0 ? cores : 1);
        scale = per_core > 10 ? 10 : per_core > 1 ? per_core : 1;
#if defined(__SANITIZE_ADDRESS__)
        scale *= 2;
#endif
    }
    double ms = base_ms * scale;
    return ms > 2e9 ? 2000000000 : (int)ms;
}

/* Starts argv (a daemon or simulator) with test_fork, its stdout to a
 * pipe whose first line (the one saying where it listens) is read into
 * line, waiting wait_ms at most (scaled to the load); its stderr to
 * err_path, or left to the test's when err_path is NULL. Returns the
 * pid. */
#include <fcntl.h>
#include <poll.h>
static inline pid_t test_start(const char *const *argv, const char *err_path,
                               char *line, size_t len, int wait_ms)
{
    int out[2];
    assert_int_equal(pipe(out), 0);
    pid_t pid = test_fork(); /* dies with the test */
    if (pid == 0) {
        dup2(out[1], STDOUT_FILENO);
        if (err_path) {
            int e = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
            if (e >= 0)
                dup2(e, STDERR_FILENO);
        }
        close(out[0]);
        close(out[1]);
        execv(argv[0], (char *const *)argv);
        _exit(127);
    }
    close(out[1]);
    size_t n = 0;
    int64_t end = test_mono_ms() + test_scaled_ms(wait_ms);
    while (n < len - 1 && (n == 0 || line[n - 1] != '\n')) {
        struct pollfd p = {out[0], POLLIN, 0};
        int left = (int)(end - test_mono_ms());
        if (left <= 0 || poll(&p, 1, left) <= 0)
            break;
        ssize_t k = read(out[0], line + n, 1);
        if (k <= 0)
            break;
        n += (size_t)k;
    }
    close(out[0]);
    line[n] = '\0';
    return pid;
}

/* ------------------------------------------------ the firmware protocol */

#include "fwp.h"

/* A message of the given type, sequence and acknowledgement numbers,
 * every other field zero (a copy need not keep the padding zero: whole
 * structs that are compared are zeroed in place). */
static inline fwp_message test_fwp_message(uint8_t type, uint8_t seq,
                                           uint8_t ack)
{
    fwp_message m;
    memset(&m, 0, sizeof m);
    m.type = type;
    m.seq = seq;
    m.ack = ack;
    return m;
}

/* A message as it goes on the wire: delimiter, COBS frame, delimiter.
 * out holds FWP_MAX_WIRE bytes; returns the length written. */
static inline size_t test_fwp_wire(const fwp_message *m, uint8_t *out)
{
    size_t len;
    out[0] = 0;
    assert_int_equal(fwp_encode_frame(m, out + 1, FWP_MAX_ENCODED, &len),
                     FWP_OK);
    out[len + 1] = 0;
    return len + 2;
}

/* The firmware's HELLO of docs/firmware-protocol.md (four grippers, 32
 * steps a batch, a window of 4, 250 ms heartbeat, 1 s link timeout, no
 * features) speaking protocol version `version` only, before it knows its
 * peer. */
static inline fwp_hello test_fwp_hello(uint8_t version, uint32_t session)
{
    return (fwp_hello){.version_min = version,
                       .version_max = version,
                       .role = FWP_ROLE_FIRMWARE,
                       .flags = FWP_HELLO_CONNECTING,
                       .gripper_mask = 0x0F,
                       .max_steps = 32,
                       .window = 4,
                       .heartbeat_ms = 250,
                       .link_timeout_ms = 1000,
                       .session = session,
                       .peer_session = 0};
}

/* The compact spelling of a step: one character per gripper in the
 * order R L F B, indexed by the action: '.' none, '+' clockwise, '-'
 * counter-clockwise, '2' half turn, 'o' open, 'c' close, 'g' / 'G'
 * regrip +90 / -90, 't' / 'T' tilt +90 / -90. "..oo" opens F and B;
 * "tT.." is the tilt tRL. */
static const char test_fwp_spelling[FWP_ACT_MAX + 2] = ".+-2ocgGtT";

/* The step of id spelt a (an unknown character is no action). */
static inline fwp_step test_fwp_step(uint16_t id, const char *a)
{
    fwp_step s;
    memset(&s, 0, sizeof s);
    s.id = id;
    for (int g = 0; g < FWP_GRIPPERS && a[g]; g++) {
        const char *c = strchr(test_fwp_spelling, a[g]);
        s.action[g] = (uint8_t)(c ? c - test_fwp_spelling : FWP_ACT_NONE);
    }
    return s;
}

/* The spelling of the grippers' actions (FWP_GRIPPERS of them). */
static inline void test_fwp_spell(const uint8_t *action,
                                  char out[FWP_GRIPPERS + 1])
{
    for (int g = 0; g < FWP_GRIPPERS; g++)
        out[g] = action[g] <= FWP_ACT_MAX ? test_fwp_spelling[action[g]] : '?';
    out[FWP_GRIPPERS] = '\0';
}

#endif
