/*
 * main.c - the quadsim command: options, the transport (a TCP port on
 * 127.0.0.1, or a pseudo-terminal) and the event loop that joins the
 * protocol endpoint, the fault injector and the firmware application.
 *
 * The loop is single-threaded: ppoll waits for bytes, a connection or the
 * earliest timer (the endpoint's, the robot's, a held-back frame's) with
 * SIGINT and SIGTERM blocked except inside ppoll, so a signal is never
 * missed between the check and the wait. The TCP connection plays the
 * serial cable: the firmware (endpoint, robot, cube) outlives it, and the
 * next client finds the robot where the previous one left it.
 */
/* ppoll, accept4, ptsname_r and posix_openpt are GNU/XSI interfaces. */
#define _GNU_SOURCE

#include "sim.h"

#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

/* Set by the SIGINT/SIGTERM handler: the signal number. */
static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
    stop_signal = sig;
}

#define OUT_BUFFER 65536

typedef struct {
    /* Options. */
    int tcp_port;        /* -1: no TCP */
    bool pty;
    const char *profile_spec;
    sim_fw_config fw_cfg;
    qs_cube cube;
    fwp_config ep_cfg;
    double drop, dup, corrupt, delay;
    uint32_t delay_ms;
    bool delay_given, delay_ms_given;
    uint64_t seed;
    /* Runtime. */
    qlog log;
    sim_fw fw;
    fwp_endpoint ep;
    sim_inject rx, tx; /* host -> firmware, firmware -> host */
    int listen_fd, client_fd, pty_fd, pty_slave;
    int64_t client_since_us; /* when the TCP client connected */
    bool client_heard;       /* and whether it has sent anything since */
    uint8_t out[OUT_BUFFER]; /* bytes waiting for the client */
    size_t out_len;
    uint32_t connections, out_dropped;
} sim_ctx;

static int64_t now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

/* ------------------------------------------------------------------ options */

static void usage(FILE *f)
{
    fputs(
        "Usage: quadsim [--tcp PORT | --pty] [options]\n"
        "\n"
        "Simulates the firmware of a quad-arm cube robot: the firmware side\n"
        "of the protocol of docs/firmware-protocol.md and a physical robot\n"
        "holding a cube. The first line on stdout says where it listens:\n"
        "  listening tcp:127.0.0.1:PORT   or   listening pty:/dev/pts/N\n"
        "Logs go to stderr. SIGINT or SIGTERM ends it (exit 0).\n"
        "\n"
        "transport (one of):\n"
        "  --tcp PORT            listen on 127.0.0.1:PORT, 0 = any free port\n"
        "                        (the default is --tcp 0)\n"
        "  --pty                 create a pseudo-terminal (socat, minicom)\n"
        "robot:\n"
        "  --profile NAME|PATH   step durations: default, lego, servo or a\n"
        "                        JSON file (docs/robot-model.md); default:\n"
        "                        default\n"
        "  --speed X             run X times faster than real time; 0 = every\n"
        "                        motion completes at once (default 1)\n"
        "  --jitter F            vary step durations by up to +-F (0..0.5)\n"
        "  --cube FACELETS       the cube in the robot (default: solved)\n"
        "  --scramble MOVES      the cube: the solved cube after these moves\n"
        "  --queue N             steps the firmware queues, 1..1024 (64)\n"
        "protocol:\n"
        "  --max-steps N         largest STEPS batch, 1..32 (32)\n"
        "  --window N            frames in flight, 1..4 (4)\n"
        "  --link-timeout-ms N   watchdog: stop after N ms of host silence,\n"
        "                        0 = off (1000)\n"
        "  --heartbeat-ms N      heartbeat interval (250)\n"
        "  --retransmit-ms N     retransmission timeout (200)\n"
        "  --max-retries N       retransmissions before giving up (8)\n"
        "  --session N           session id (default: from the clock)\n"
        "fault injection (rates per frame, both directions):\n"
        "  --drop P              lose frames\n"
        "  --dup P               send frames twice\n"
        "  --corrupt P           damage one byte of frames\n"
        "  --delay P             hold frames back (1 when only --delay-ms)\n"
        "  --delay-ms N          ... by 0..N ms, which also reorders (20)\n"
        "  --seed N              seed of the injection and the jitter (1)\n"
        "  --stall-step N        the Nth step stalls: FAULT STALL\n"
        "  --motor-fault N       the Nth step: FAULT OVERCURRENT\n"
        "  --disconnect-after N  close the connection once N steps are done\n"
        "                        (--tcp only)\n"
        "other:\n"
        "  --log-level L         debug, info, warn, error or off (info)\n"
        "  -v, -q                --log-level debug / --log-level warn\n"
        "  -h, --help            this text\n"
        "  --version             the version\n"
        "\n"
        "Exit status: 0 after SIGINT/SIGTERM, 1 when the transport fails,\n"
        "2 for a bad option. docs/quadsim.md has the physical rules.\n",
        f);
}

/* Option errors all end the same way: a message and exit status 2. */
static int bad(const char *opt, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int bad(const char *opt, const char *fmt, ...)
{
    fprintf(stderr, "quadsim: %s: ", opt);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see quadsim --help)\n", stderr);
    return SIM_ERR_USAGE;
}

static int parse_double(const char *opt, const char *s, double lo, double hi,
                        double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno || !isfinite(v))
        return bad(opt, "'%s' is not a number", s);
    if (v < lo || v > hi)
        return bad(opt, "%s is out of range %g..%g", s, lo, hi);
    *out = v;
    return SIM_OK;
}

static int parse_uint(const char *opt, const char *s, uint64_t lo,
                      uint64_t hi, uint64_t *out)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '+' || *s == ' ' || !*s)
        return bad(opt, "'%s' is not a whole number", s);
    unsigned long long v = strtoull(s, &end, 10);
    if (*end || errno == ERANGE)
        return bad(opt, "'%s' is not a whole number in range %" PRIu64
                        "..%" PRIu64, s, lo, hi);
    if (v < lo || v > hi)
        return bad(opt, "%s is out of range %" PRIu64 "..%" PRIu64, s, lo, hi);
    *out = v;
    return SIM_OK;
}

enum {
    OPT_TCP = 256, OPT_PTY, OPT_PROFILE, OPT_SPEED, OPT_JITTER, OPT_CUBE,
    OPT_SCRAMBLE, OPT_QUEUE, OPT_MAX_STEPS, OPT_WINDOW, OPT_LINK_TIMEOUT,
    OPT_HEARTBEAT, OPT_RETRANSMIT, OPT_MAX_RETRIES, OPT_SESSION, OPT_DROP,
    OPT_DUP, OPT_CORRUPT, OPT_DELAY, OPT_DELAY_MS, OPT_SEED, OPT_STALL,
    OPT_MOTOR, OPT_DISCONNECT, OPT_LOG_LEVEL, OPT_VERSION
};

static const struct option long_options[] = {
    {"tcp", required_argument, NULL, OPT_TCP},
    {"pty", no_argument, NULL, OPT_PTY},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"speed", required_argument, NULL, OPT_SPEED},
    {"jitter", required_argument, NULL, OPT_JITTER},
    {"cube", required_argument, NULL, OPT_CUBE},
    {"scramble", required_argument, NULL, OPT_SCRAMBLE},
    {"queue", required_argument, NULL, OPT_QUEUE},
    {"max-steps", required_argument, NULL, OPT_MAX_STEPS},
    {"window", required_argument, NULL, OPT_WINDOW},
    {"link-timeout-ms", required_argument, NULL, OPT_LINK_TIMEOUT},
    {"heartbeat-ms", required_argument, NULL, OPT_HEARTBEAT},
    {"retransmit-ms", required_argument, NULL, OPT_RETRANSMIT},
    {"max-retries", required_argument, NULL, OPT_MAX_RETRIES},
    {"session", required_argument, NULL, OPT_SESSION},
    {"drop", required_argument, NULL, OPT_DROP},
    {"dup", required_argument, NULL, OPT_DUP},
    {"corrupt", required_argument, NULL, OPT_CORRUPT},
    {"delay", required_argument, NULL, OPT_DELAY},
    {"delay-ms", required_argument, NULL, OPT_DELAY_MS},
    {"seed", required_argument, NULL, OPT_SEED},
    {"stall-step", required_argument, NULL, OPT_STALL},
    {"motor-fault", required_argument, NULL, OPT_MOTOR},
    {"disconnect-after", required_argument, NULL, OPT_DISCONNECT},
    {"log-level", required_argument, NULL, OPT_LOG_LEVEL},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

/* The option's own spelling, for messages. */
static const char *opt_name(int id, char *buf, size_t len)
{
    for (const struct option *o = long_options; o->name; o++)
        if (o->val == id) {
            snprintf(buf, len, "--%s", o->name);
            return buf;
        }
    return "option";
}

/* Parses argv into c. Returns SIM_OK, SIM_ERR_USAGE (message printed), or
 * 1 when --help or --version was answered. */
static int parse_options(sim_ctx *c, int argc, char **argv)
{
    c->tcp_port = -1;
    c->profile_spec = "default";
    c->fw_cfg.speed = 1;
    c->fw_cfg.queue = 64;
    c->seed = 1;
    c->log = (qlog){QLOG_INFO, "quadsim"};
    qs_cube_solved(&c->cube);
    fwp_config_default(&c->ep_cfg, FWP_ROLE_FIRMWARE);
    bool have_cube = false;
    uint64_t u;
    int rc = SIM_OK;

    opterr = 0;
    for (;;) {
        int opt = getopt_long(argc, argv, ":hvq", long_options, NULL);
        if (opt == -1)
            break;
        char name_buf[40];
        const char *name = opt_name(opt, name_buf, sizeof name_buf);
        switch (opt) {
        case 'h':
            usage(stdout);
            return 1;
        case OPT_VERSION:
            printf("quadsim %s (protocol version %d)\n", QS_VERSION,
                   FWP_PROTOCOL_VERSION);
            return 1;
        case 'v':
            c->log.level = QLOG_DEBUG;
            break;
        case 'q':
            c->log.level = QLOG_WARN;
            break;
        case OPT_TCP:
            rc = parse_uint(name, optarg, 0, 65535, &u);
            c->tcp_port = (int)u;
            break;
        case OPT_PTY:
            c->pty = true;
            break;
        case OPT_PROFILE:
            c->profile_spec = optarg;
            break;
        case OPT_SPEED:
            rc = parse_double(name, optarg, 0, 1e9, &c->fw_cfg.speed);
            break;
        case OPT_JITTER:
            rc = parse_double(name, optarg, 0, 0.5, &c->fw_cfg.jitter);
            break;
        case OPT_CUBE: {
            char detail[160];
            if (have_cube)
                return bad(name, "give the cube once (--cube or --scramble)");
            int e = qs_cube_from_facelets(optarg, &c->cube, detail,
                                          sizeof detail);
            if (e != QS_OK)
                return bad(name, "%s: %s", qs_errcode(e), detail);
            have_cube = true;
            break;
        }
        case OPT_SCRAMBLE: {
            char detail[160];
            qs_move moves[QS_MAX_MOVES];
            if (have_cube)
                return bad(name, "give the cube once (--cube or --scramble)");
            int n = qs_moves_parse(optarg, moves, QS_MAX_MOVES, detail,
                                   sizeof detail);
            if (n < 0)
                return bad(name, "%s: %s", qs_errcode(n), detail);
            qs_cube_apply_moves(&c->cube, moves, n);
            have_cube = true;
            break;
        }
        case OPT_QUEUE:
            rc = parse_uint(name, optarg, 1, SIM_QUEUE_MAX, &u);
            c->fw_cfg.queue = (int)u;
            break;
        case OPT_MAX_STEPS:
            rc = parse_uint(name, optarg, 1, FWP_MAX_STEPS_PER_BATCH, &u);
            c->ep_cfg.max_steps = (uint8_t)u;
            break;
        case OPT_WINDOW:
            rc = parse_uint(name, optarg, 1, FWP_WINDOW, &u);
            c->ep_cfg.window = (uint8_t)u;
            break;
        case OPT_LINK_TIMEOUT:
            rc = parse_uint(name, optarg, 0, 65535, &u);
            c->ep_cfg.link_timeout_ms = (uint16_t)u;
            break;
        case OPT_HEARTBEAT:
            rc = parse_uint(name, optarg, 1, 65535, &u);
            c->ep_cfg.heartbeat_ms = (uint16_t)u;
            break;
        case OPT_RETRANSMIT:
            rc = parse_uint(name, optarg, 1, 65535, &u);
            c->ep_cfg.retransmit_ms = (uint16_t)u;
            break;
        case OPT_MAX_RETRIES:
            rc = parse_uint(name, optarg, 0, 255, &u);
            c->ep_cfg.max_retries = (uint8_t)u;
            break;
        case OPT_SESSION:
            rc = parse_uint(name, optarg, 1, UINT32_MAX, &u);
            c->ep_cfg.session = (uint32_t)u;
            break;
        case OPT_DROP:
            rc = parse_double(name, optarg, 0, 1, &c->drop);
            break;
        case OPT_DUP:
            rc = parse_double(name, optarg, 0, 1, &c->dup);
            break;
        case OPT_CORRUPT:
            rc = parse_double(name, optarg, 0, 1, &c->corrupt);
            break;
        case OPT_DELAY:
            rc = parse_double(name, optarg, 0, 1, &c->delay);
            c->delay_given = true;
            break;
        case OPT_DELAY_MS:
            rc = parse_uint(name, optarg, 0, 60000, &u);
            c->delay_ms = (uint32_t)u;
            c->delay_ms_given = true;
            break;
        case OPT_SEED:
            rc = parse_uint(name, optarg, 0, UINT64_MAX, &c->seed);
            break;
        case OPT_STALL:
            rc = parse_uint(name, optarg, 1, UINT32_MAX, &u);
            c->fw_cfg.stall_step = (uint32_t)u;
            break;
        case OPT_MOTOR:
            rc = parse_uint(name, optarg, 1, UINT32_MAX, &u);
            c->fw_cfg.motor_fault_step = (uint32_t)u;
            break;
        case OPT_DISCONNECT:
            rc = parse_uint(name, optarg, 1, UINT32_MAX, &u);
            c->fw_cfg.disconnect_after = (uint32_t)u;
            break;
        case OPT_LOG_LEVEL: {
            int level = qlog_level_parse(optarg);
            if (level < 0)
                return bad(name, "'%s' is not debug, info, warn, error or off",
                           optarg);
            c->log.level = (qlog_level)level;
            break;
        }
        case ':':
            return bad(argv[optind - 1], "needs a value");
        default:
            return bad(argv[optind - 1], "unknown option");
        }
        if (rc != SIM_OK)
            return rc;
    }
    if (optind < argc)
        return bad(argv[optind],
                   "unexpected argument (quadsim takes options only)");
    if (c->pty && c->tcp_port >= 0)
        return bad("--pty", "choose one transport: --tcp or --pty");
    if (!c->pty && c->tcp_port < 0)
        c->tcp_port = 0;
    if (c->pty && c->fw_cfg.disconnect_after)
        return bad("--disconnect-after",
                   "needs --tcp (a pseudo-terminal cannot be hung up from "
                   "this side)");
    char detail[256];
    int e = robot_profile_select(c->profile_spec, &c->fw_cfg.profile, detail,
                                 sizeof detail);
    if (e != ROBOT_OK)
        return bad("--profile", "%s: %s", robot_errcode(e), detail);
    if (c->delay_given && !c->delay_ms_given)
        c->delay_ms = 20;
    if (c->delay_ms_given && !c->delay_given)
        c->delay = 1;
    c->fw_cfg.seed = c->seed;
    return SIM_OK;
}

/* ---------------------------------------------------------------- transport */

static int link_fd(const sim_ctx *c)
{
    return c->pty ? c->pty_fd : c->client_fd;
}

static void drop_client(sim_ctx *c, const char *why);

/* Writes what it can of the output buffer without blocking. */
static void flush_out(sim_ctx *c)
{
    int fd = link_fd(c);
    while (fd >= 0 && c->out_len) {
        ssize_t n = c->pty ? write(fd, c->out, c->out_len)
                           : send(fd, c->out, c->out_len, MSG_NOSIGNAL);
        if (n > 0) {
            memmove(c->out, c->out + n, c->out_len - (size_t)n);
            c->out_len -= (size_t)n;
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (c->pty) {
            /* Nobody reads the terminal: what is written is lost, as on a
             * serial line with nothing attached. */
            c->out_len = 0;
            return;
        }
        drop_client(c, n < 0 ? strerror(errno) : "write failed");
        return;
    }
}

/* A frame after fault injection, on its way to the host. */
static void tx_deliver(void *ctx, const uint8_t *b, size_t n)
{
    sim_ctx *c = ctx;
    if (link_fd(c) < 0)
        return;
    if (n > sizeof c->out - c->out_len) {
        /* The host does not read: lose whole frames, never half ones. */
        c->out_dropped++;
        return;
    }
    memcpy(c->out + c->out_len, b, n);
    c->out_len += n;
}

/* Bytes from the host after fault injection. */
static void rx_deliver(void *ctx, const uint8_t *b, size_t n)
{
    sim_ctx *c = ctx;
    fwp_feed(&c->ep, b, n);
}

static void drop_client(sim_ctx *c, const char *why)
{
    if (c->client_fd < 0)
        return;
    qlog_write(&c->log, QLOG_INFO, "client disconnected (%s)", why);
    close(c->client_fd);
    c->client_fd = -1;
    c->out_len = 0;
    sim_inject_reset(&c->rx);
    sim_inject_reset(&c->tx);
    /* The host's end of the cable went away: stop now rather than when
     * the watchdog notices, as a USB-CDC firmware seeing DTR drop would. */
    sim_fw_link_cut(&c->fw, now_us());
}

/* ----------------------------------------------------- endpoint callbacks */

static int ep_write(void *ctx, const uint8_t *b, size_t n)
{
    sim_ctx *c = ctx;
    if (link_fd(c) < 0)
        return -1;
    sim_inject_frame(&c->tx, b, n, now_us(), tx_deliver, c);
    return 0;
}

static uint32_t ep_now(void *ctx)
{
    (void)ctx;
    return (uint32_t)(now_us() / 1000);
}

static void ep_message(void *ctx, const fwp_message *m)
{
    sim_ctx *c = ctx;
    sim_fw_message(&c->fw, m, now_us());
    /* Replying from here lets the reply carry the ack. */
    sim_fw_flush(&c->fw, &c->ep);
}

static void ep_event(void *ctx, int event, int detail)
{
    sim_ctx *c = ctx;
    sim_fw_link_event(&c->fw, event, detail, now_us());
    sim_fw_flush(&c->fw, &c->ep);
}

/* -------------------------------------------------------------- transports */

static int open_tcp(sim_ctx *c)
{
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        fprintf(stderr, "quadsim: socket: %s\n", strerror(errno));
        return SIM_ERR_IO;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)c->tcp_port);
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) < 0 || listen(fd, 4) < 0) {
        fprintf(stderr, "quadsim: cannot listen on 127.0.0.1:%d: %s\n",
                c->tcp_port, strerror(errno));
        close(fd);
        return SIM_ERR_IO;
    }
    socklen_t len = sizeof a;
    getsockname(fd, (struct sockaddr *)&a, &len);
    c->listen_fd = fd;
    printf("listening tcp:127.0.0.1:%u\n", ntohs(a.sin_port));
    fflush(stdout);
    qlog_write(&c->log, QLOG_INFO, "listening on tcp:127.0.0.1:%u",
               ntohs(a.sin_port));
    return SIM_OK;
}

static int open_pty(sim_ctx *c)
{
    char path[128];
    int fd = posix_openpt(O_RDWR | O_NOCTTY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0 || grantpt(fd) < 0 || unlockpt(fd) < 0 ||
        ptsname_r(fd, path, sizeof path) != 0) {
        fprintf(stderr, "quadsim: pseudo-terminal: %s\n", strerror(errno));
        if (fd >= 0)
            close(fd);
        return SIM_ERR_IO;
    }
    /* Hold the slave open ourselves: the master then never reports a
     * hang-up between clients, and the line can be made raw (no echo, no
     * newline translation) for whoever opens it next. */
    int slave = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
    struct termios t;
    if (slave < 0 || tcgetattr(slave, &t) < 0) {
        fprintf(stderr, "quadsim: %s: %s\n", path, strerror(errno));
        close(fd);
        if (slave >= 0)
            close(slave);
        return SIM_ERR_IO;
    }
    cfmakeraw(&t);
    tcsetattr(slave, TCSANOW, &t);
    c->pty_fd = fd;
    c->pty_slave = slave;
    printf("listening pty:%s\n", path);
    fflush(stdout);
    qlog_write(&c->log, QLOG_INFO, "listening on pty:%s", path);
    return SIM_OK;
}

static void accept_client(sim_ctx *c)
{
    int fd = accept4(c->listen_fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    if (c->client_fd >= 0) {
        /* One cable, one host: a second client is turned away. */
        qlog_write(&c->log, QLOG_WARN,
                   "refusing a second client while one is connected");
        close(fd);
        return;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    c->client_fd = fd;
    c->client_since_us = now_us();
    c->client_heard = false;
    c->out_len = 0;
    c->connections++;
    sim_inject_reset(&c->rx);
    sim_inject_reset(&c->tx);
    qlog_write(&c->log, QLOG_INFO, "client connected (#%u)", c->connections);
}

static void read_link(sim_ctx *c)
{
    uint8_t buf[4096];
    int fd = link_fd(c);
    for (int i = 0; i < 16 && fd >= 0; i++) {
        ssize_t n = c->pty ? read(fd, buf, sizeof buf)
                           : recv(fd, buf, sizeof buf, 0);
        if (n > 0) {
            c->client_heard = true;
            sim_inject_stream(&c->rx, buf, (size_t)n, now_us(), rx_deliver,
                              c);
            continue;
        }
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || c->pty))
            return;
        drop_client(c, n == 0 ? "end of stream" : strerror(errno));
        return;
    }
}

/* ---------------------------------------------------------------------- run */

static void summary(const sim_ctx *c)
{
    const fwp_stats *s = fwp_get_stats(&c->ep);
    qlog_write(
        &c->log, QLOG_INFO,
        "summary: %u connections, %u batches, %u steps started, %u done, "
        "%u faults, %u batches refused",
        c->connections, c->fw.batches, c->fw.steps_started, c->fw.steps_done,
        c->fw.faults, c->fw.refused);
    qlog_write(&c->log, QLOG_INFO,
               "summary: frames in %u out %u, retransmits %u, duplicates %u, "
               "crc errors %u, cobs errors %u, too long %u",
               s->frames_in, s->frames_out, s->retransmits, s->duplicates,
               s->crc_errors, s->cobs_errors, s->too_long);
    if (sim_inject_active(&c->rx))
        qlog_write(
            &c->log, QLOG_INFO,
            "summary: injected in/out: dropped %u/%u, duplicated %u/%u, "
            "corrupted %u/%u, delayed %u/%u",
            c->rx.dropped, c->tx.dropped, c->rx.duplicated, c->tx.duplicated,
            c->rx.corrupted, c->tx.corrupted, c->rx.delayed, c->tx.delayed);
}

/* How long a new TCP client may stay silent before it is dropped. */
#define HELLO_WAIT_US 5000000

static int run(sim_ctx *c)
{
    sigset_t block, orig;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    sigprocmask(SIG_BLOCK, &block, &orig);
    sigset_t wait_mask = orig;
    sigdelset(&wait_mask, SIGINT);
    sigdelset(&wait_mask, SIGTERM);

    while (!stop_signal) {
        int64_t t = now_us();
        sim_inject_due(&c->rx, t, rx_deliver, c);
        sim_inject_due(&c->tx, t, tx_deliver, c);
        sim_fw_tick(&c->fw, t);
        if (c->fw.cut_link) {
            c->fw.cut_link = false;
            flush_out(c);
            if (c->client_fd >= 0)
                drop_client(c, "--disconnect-after");
            else
                sim_fw_link_cut(&c->fw, t);
        }
        /* The firmware's watchdog starts with HELLO: a client that
         * connects and says nothing would hold the only connection for
         * ever, so it gets HELLO_WAIT_US to say something. */
        if (c->client_fd >= 0 && !c->client_heard &&
            t - c->client_since_us > HELLO_WAIT_US)
            drop_client(c, "nothing received within 5 s of connecting");
        sim_fw_flush(&c->fw, &c->ep);
        uint32_t ep_ms = fwp_poll(&c->ep);
        sim_fw_flush(&c->fw, &c->ep);
        flush_out(c);

        t = now_us();
        int64_t due = t + (int64_t)ep_ms * 1000;
        int64_t fw_due = sim_fw_next_us(&c->fw, t);
        int64_t in_due = sim_inject_next_us(&c->rx);
        int64_t out_due = sim_inject_next_us(&c->tx);
        if (fw_due < due)
            due = fw_due;
        if (in_due < due)
            due = in_due;
        if (out_due < due)
            due = out_due;
        if (c->client_fd >= 0 && !c->client_heard &&
            c->client_since_us + HELLO_WAIT_US + 1000 < due)
            due = c->client_since_us + HELLO_WAIT_US + 1000;
        int64_t wait = due - t;
        if (wait < 0)
            wait = 0;
        if (wait > 1000000)
            wait = 1000000;

        struct pollfd p[2];
        int np = 0, i_listen = -1, i_link = -1;
        if (c->listen_fd >= 0) {
            p[np] = (struct pollfd){.fd = c->listen_fd, .events = POLLIN};
            i_listen = np++;
        }
        if (link_fd(c) >= 0) {
            p[np] = (struct pollfd){.fd = link_fd(c), .events = POLLIN};
            if (c->out_len)
                p[np].events |= POLLOUT;
            i_link = np++;
        }
        struct timespec ts = {.tv_sec = (time_t)(wait / 1000000),
                              .tv_nsec = (long)(wait % 1000000) * 1000};
        int n = ppoll(p, (nfds_t)np, &ts, &wait_mask);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            qlog_write(&c->log, QLOG_ERROR, "poll: %s", strerror(errno));
            return 1;
        }
        if (i_link >= 0 && p[i_link].revents & (POLLIN | POLLHUP | POLLERR))
            read_link(c);
        if (i_link >= 0 && p[i_link].revents & POLLOUT)
            flush_out(c);
        if (i_listen >= 0 && p[i_listen].revents & POLLIN)
            accept_client(c);
    }
    qlog_write(&c->log, QLOG_INFO, "exiting on %s",
               stop_signal == SIGINT ? "SIGINT" : "SIGTERM");
    return 0;
}

int main(int argc, char **argv)
{
    /* Large (queue, outbox, buffers): on the heap, not the stack. */
    sim_ctx *c = calloc(1, sizeof *c);
    if (!c) {
        fprintf(stderr, "quadsim: out of memory\n");
        return 1;
    }
    c->listen_fd = c->client_fd = c->pty_fd = c->pty_slave = -1;
    int rc = parse_options(c, argc, argv);
    if (rc != SIM_OK) {
        free(c);
        return rc == 1 ? 0 : 2;
    }

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    if (!c->ep_cfg.session) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        uint64_t x = sim_rand_seed(
            ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
            ((uint64_t)getpid() << 40));
        c->ep_cfg.session = (uint32_t)x ? (uint32_t)x : 1;
    }
    if (c->ep_cfg.max_steps > c->fw_cfg.queue)
        c->ep_cfg.max_steps = (uint8_t)c->fw_cfg.queue;
    c->ep_cfg.features = FWP_FEATURE_CUBE_STATE;
    c->ep_cfg.write = ep_write;
    c->ep_cfg.now_ms = ep_now;
    c->ep_cfg.on_message = ep_message;
    c->ep_cfg.on_event = ep_event;
    c->ep_cfg.ctx = c;
    if (fwp_init(&c->ep, &c->ep_cfg) != FWP_OK) {
        fprintf(stderr, "quadsim: protocol settings rejected\n");
        free(c);
        return 2;
    }
    sim_inject_init(&c->rx, c->drop, c->dup, c->corrupt, c->delay,
                    c->delay_ms, c->seed);
    sim_inject_init(&c->tx, c->drop, c->dup, c->corrupt, c->delay,
                    c->delay_ms, c->seed ^ 0xA5A5A5A5A5A5A5A5ull);
    sim_fw_init(&c->fw, &c->fw_cfg, &c->log, &c->cube);

    rc = c->pty ? open_pty(c) : open_tcp(c);
    if (rc != SIM_OK) {
        free(c);
        return 1;
    }
    char facelets[55];
    qs_cube_to_facelets(&c->cube, facelets);
    qlog_write(
        &c->log, QLOG_INFO,
        "session 0x%08x, profile %s, speed %g, queue %d, watchdog %u ms, "
        "cube %s",
        c->ep_cfg.session, c->fw_cfg.profile.name, c->fw_cfg.speed,
        c->fw_cfg.queue, c->ep_cfg.link_timeout_ms, facelets);
    if (sim_inject_active(&c->rx))
        qlog_write(&c->log, QLOG_INFO,
                   "fault injection: drop %g, dup %g, corrupt %g, delay %g "
                   "(0..%u ms), seed %" PRIu64,
                   c->drop, c->dup, c->corrupt, c->delay, c->delay_ms,
                   c->seed);

    rc = run(c);
    flush_out(c);
    summary(c);
    if (c->client_fd >= 0)
        close(c->client_fd);
    if (c->listen_fd >= 0)
        close(c->listen_fd);
    if (c->pty_fd >= 0)
        close(c->pty_fd);
    if (c->pty_slave >= 0)
        close(c->pty_slave);
    free(c);
    return rc;
}
