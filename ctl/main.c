/*
 * main.c - the quadctl command line: `quadctl [solve]` executes a solution
 * on the robot, `quadctl ports` lists serial ports, `quadctl calibrate`
 * measures the robot and writes a calibrated profile, `quadctl status`
 * prints the firmware's STATUS. docs/quadctl.md describes every option
 * and the exit statuses.
 */
#include "ctl.h"

#include <cJSON.h>
#include <errno.h>
#include <getopt.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#ifdef QCTL_HAVE_SERVICE
#include "qsservice.h"
#define DEFAULT_SERVER QSV_DEFAULT_ENDPOINT
#else
#define DEFAULT_SERVER "tcp://127.0.0.1:5555"
#endif

static void usage(FILE *f)
{
    fputs(
        /* "Usage:" and "  or:" lines, one per form: the man page's
         * SYNOPSIS is made from them (help2man). */
        "Usage: quadctl [solve] [FACELETS] --port PORT [options]\n"
        "  or:  quadctl ports\n"
        "  or:  quadctl calibrate --port PORT [--profile BASE] [--rounds N]"
        " [--out FILE]\n"
        "  or:  quadctl status --port PORT\n"
        "\n"
        "Solves the cube in a quad-arm robot: asks quadsolved for a plan,\n"
        "expands it into gripper steps and executes them over the firmware\n"
        "protocol, confirming every step. The cube is FACELETS, or --file,\n"
        "or --scramble, or the first line of standard input.\n"
        "\n"
        "cube:\n"
        "  FACELETS              54 letters URFDLB, as quadsolve prints them\n"
        "  --file PATH           read the facelets from a file\n"
        "  --scramble MOVES      the solved cube after these moves\n"
        "solver:\n"
        "  --server ENDPOINT     quadsolved (default " DEFAULT_SERVER ")\n"
        "  --curve-server FILE   CURVE: the daemon's public key (FILE.pub of\n"
        "                        quadsolved --keygen); needs --curve-key\n"
        "  --curve-key FILE      CURVE: this controller's secret key file\n"
        "  --profile NAME|PATH   robot timing profile (default: default)\n"
        "  --time-ms N           search time per request\n"
        "  --objective moves|time  fewest robot moves (default) or least time\n"
        "  --moves MOVES         plan these cube-frame moves here instead of\n"
        "                        asking the daemon (offline)\n"
        "robot:\n"
        "  --port PORT           serial port (/dev/ttyUSB0) or tcp:HOST:PORT\n"
        "  --baud N              serial speed (default 115200)\n"
        "  --recover             after a fault or lost link, work out the\n"
        "                        cube from the confirmed steps, home, replan\n"
        "                        and finish (up to --attempts N, default 3)\n"
        "  --connect-timeout-ms N  handshake and reconnection (default 5000)\n"
        "  --step-timeout-ms N   a step that takes longer fails (10000)\n"
        "  --retransmit-ms N     protocol retransmission timeout (200)\n"
        "output:\n"
        "  --json                one JSON object instead of text\n"
        "  --out FILE            calibrate: write the profile there\n"
        "  -v, -q                more, or no, progress on stderr\n"
        "  -h, --help; --version\n"
        "\n"
        "Exit status: 0 solved and every step confirmed; 1 the execution\n"
        "stopped (fault, lost link, refused step, timeout); 2 usage; 3 the\n"
        "cube or the solver; 4 the robot cannot be reached or homed; 5 the\n"
        "robot's cube is not the expected one.\n",
        f);
}

static int bad(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("quadctl: ", stderr);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputs(" (see quadctl --help)\n", stderr);
    return 2;
}

static int parse_int(const char *opt, const char *s, long lo, long hi,
                     int *out)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (end == s || *end || errno || v < lo || v > hi)
        return bad("%s: '%s' is not a whole number in %ld..%ld", opt, s, lo,
                   hi);
    *out = (int)v;
    return 0;
}

/* Removes leading and trailing blanks (and a CR) in place; returns the
 * length left. */
static size_t trim(char *buf)
{
    char *p = buf;
    while (*p == ' ' || *p == '\t')
        p++;
    size_t k = strlen(p);
    while (k && (p[k - 1] == '\r' || p[k - 1] == ' ' || p[k - 1] == '\t'))
        p[--k] = '\0';
    memmove(buf, p, k + 1);
    return k;
}

/* The first non-blank line of f, blanks trimmed, into buf. Returns 0,
 * -1 at the end of input, or -2 with *why set: a NUL byte (it would hide
 * the rest of its line), a line longer than buf, or nothing but blank
 * lines in the first 64 KiB. Reads byte by byte with those bounds, so
 * /dev/zero or a binary file is refused at once instead of being read
 * for ever. */
static int read_line(FILE *f, char *buf, size_t len, const char **why)
{
    size_t n = 0, total = 0;
    int c;
    while ((c = fgetc(f)) != EOF) {
        if (c == '\0') {
            *why = "a NUL byte in the input";
            return -2;
        }
        if (++total > 65536) {
            *why = "no cube in its first 64 KiB";
            return -2;
        }
        if (c != '\n') {
            if (n + 1 >= len) {
                *why = "a line far longer than a cube";
                return -2;
            }
            buf[n++] = (char)c;
            continue;
        }
        buf[n] = '\0';
        if (trim(buf))
            return 0;
        n = 0;
    }
    buf[n] = '\0';
    return trim(buf) ? 0 : -1;
}

enum {
    OPT_FILE = 256, OPT_SCRAMBLE, OPT_SERVER, OPT_PROFILE, OPT_TIME,
    OPT_OBJECTIVE, OPT_MOVES, OPT_PORT, OPT_BAUD, OPT_RECOVER, OPT_ATTEMPTS,
    OPT_CONNECT, OPT_STEP_TIMEOUT, OPT_RETRANSMIT, OPT_INFLIGHT, OPT_JSON,
    OPT_OUT, OPT_ROUNDS, OPT_VERSION, OPT_CURVE_SERVER, OPT_CURVE_KEY
};

static const struct option long_options[] = {
    {"file", required_argument, NULL, OPT_FILE},
    {"scramble", required_argument, NULL, OPT_SCRAMBLE},
    {"server", required_argument, NULL, OPT_SERVER},
    {"curve-server", required_argument, NULL, OPT_CURVE_SERVER},
    {"curve-key", required_argument, NULL, OPT_CURVE_KEY},
    {"profile", required_argument, NULL, OPT_PROFILE},
    {"time-ms", required_argument, NULL, OPT_TIME},
    {"objective", required_argument, NULL, OPT_OBJECTIVE},
    {"moves", required_argument, NULL, OPT_MOVES},
    {"port", required_argument, NULL, OPT_PORT},
    {"baud", required_argument, NULL, OPT_BAUD},
    {"recover", no_argument, NULL, OPT_RECOVER},
    {"attempts", required_argument, NULL, OPT_ATTEMPTS},
    {"connect-timeout-ms", required_argument, NULL, OPT_CONNECT},
    {"step-timeout-ms", required_argument, NULL, OPT_STEP_TIMEOUT},
    {"retransmit-ms", required_argument, NULL, OPT_RETRANSMIT},
    {"inflight", required_argument, NULL, OPT_INFLIGHT},
    {"json", no_argument, NULL, OPT_JSON},
    {"out", required_argument, NULL, OPT_OUT},
    {"rounds", required_argument, NULL, OPT_ROUNDS},
    {"help", no_argument, NULL, 'h'},
    {"version", no_argument, NULL, OPT_VERSION},
    {NULL, 0, NULL, 0},
};

typedef struct {
    const char *command;
    const char *cube_arg, *file, *scramble, *moves, *profile, *out;
    int rounds;
    int attempts;
    ctl_run *run;
} cmdline;

static int parse(cmdline *c, int argc, char **argv)
{
    ctl_run *r = c->run;
    r->conn.baud = 115200;
    r->conn.connect_timeout_ms = 5000;
    r->conn.home_timeout_ms = 30000;
    r->conn.step_timeout_ms = 10000;
    r->conn.verbose = 1;
    r->conn.log = stderr;
    r->solver.server = DEFAULT_SERVER;
    r->solver.objective = ROBOT_OBJ_MOVES;
    r->solver.timeout_ms = 30000;
    c->profile = "default";
    c->rounds = 3;
    c->attempts = 3;
    opterr = 0;
    int rc = 0;
    for (;;) {
        int index = -1;
        int opt = getopt_long(argc, argv, ":hvq", long_options, &index);
        if (opt == -1)
            break;
        /* The option's own name for messages: argv[optind - 1] is its
         * value when the value came as a separate argument. */
        char name[64];
        if (index >= 0)
            snprintf(name, sizeof name, "--%s", long_options[index].name);
        else
            snprintf(name, sizeof name, "%s",
                     optind > 0 && optind <= argc ? argv[optind - 1]
                                                  : "option");
        switch (opt) {
        case 'h': usage(stdout); return 1;
        case OPT_VERSION:
            printf("quadctl %s (protocol version %d)\n", QS_VERSION,
                   FWP_PROTOCOL_VERSION);
            return 1;
        case 'v': r->conn.verbose = 2; break;
        case 'q': r->conn.verbose = 0; break;
        case OPT_FILE: c->file = optarg; break;
        case OPT_SCRAMBLE: c->scramble = optarg; break;
        case OPT_SERVER: r->solver.server = optarg; break;
        case OPT_CURVE_SERVER: r->solver.curve_server = optarg; break;
        case OPT_CURVE_KEY: r->solver.curve_key = optarg; break;
        case OPT_PROFILE: c->profile = optarg; break;
        case OPT_TIME:
            rc = parse_int(name, optarg, 1, 600000, &r->solver.time_ms);
            break;
        case OPT_OBJECTIVE:
            if (strcmp(optarg, "moves") == 0)
                r->solver.objective = ROBOT_OBJ_MOVES;
            else if (strcmp(optarg, "time") == 0)
                r->solver.objective = ROBOT_OBJ_TIME;
            else
                return bad("--objective: '%s' is not moves or time", optarg);
            break;
        case OPT_MOVES: c->moves = optarg; break;
        case OPT_PORT: r->conn.port = optarg; break;
        case OPT_BAUD:
            rc = parse_int(name, optarg, 50, 4000000, &r->conn.baud);
            break;
        case OPT_RECOVER: r->recover = true; break;
        case OPT_ATTEMPTS:
            rc = parse_int(name, optarg, 1, CTL_MAX_ATTEMPTS - 1, &c->attempts);
            break;
        case OPT_CONNECT:
            rc = parse_int(name, optarg, 100, 600000,
                           &r->conn.connect_timeout_ms);
            break;
        case OPT_STEP_TIMEOUT:
            rc = parse_int(name, optarg, 100, 3600000,
                           &r->conn.step_timeout_ms);
            break;
        case OPT_RETRANSMIT:
            rc = parse_int(name, optarg, 10, 65535, &r->conn.retransmit_ms);
            break;
        case OPT_INFLIGHT:
            rc = parse_int(name, optarg, 1, 4096, &r->conn.inflight);
            break;
        case OPT_JSON: r->json = true; break;
        case OPT_OUT: c->out = optarg; break;
        case OPT_ROUNDS: rc = parse_int(name, optarg, 1, 1000, &c->rounds); break;
        case ':': return bad("%s needs a value", name);
        default: return bad("%s: unknown option", name);
        }
        if (rc)
            return rc;
    }
    int i = optind;
    c->command = "solve";
    if (i < argc && (strcmp(argv[i], "solve") == 0 ||
                     strcmp(argv[i], "ports") == 0 ||
                     strcmp(argv[i], "calibrate") == 0 ||
                     strcmp(argv[i], "status") == 0))
        c->command = argv[i++];
    if (i < argc)
        c->cube_arg = argv[i++];
    if (i < argc)
        return bad("unexpected argument '%s'", argv[i]);
    r->max_attempts = 1 + c->attempts;
    char detail[256];
    int e = robot_profile_select(c->profile, &r->solver.profile, detail,
                                 sizeof detail);
    if (e != ROBOT_OK)
        return bad("--profile: %s: %s", robot_errcode(e), detail);
    return 0;
}

/* Works out the cube (and, offline, the moves) from the command line. */
static int get_cube(cmdline *c)
{
    ctl_run *r = c->run;
    int given = !!c->cube_arg + !!c->file + !!c->scramble;
    if (given > 1)
        return bad("give the cube once: FACELETS, --file or --scramble");
    char line[1024], detail[256];
    const char *facelets = c->cube_arg;
    qs_cube cube;
    if (c->moves) {
        r->offline = true;
        int n = qs_moves_parse(c->moves, r->given, QS_MAX_MOVES, detail,
                               sizeof detail);
        if (n < 0)
            return bad("--moves: %s: %s", qs_errcode(n), detail);
        r->n_given = n;
    }
    if (c->file) {
        FILE *f = fopen(c->file, "r");
        if (!f)
            return bad("--file: cannot read %s: %s", c->file, strerror(errno));
        const char *why = NULL;
        int got = read_line(f, line, sizeof line, &why);
        fclose(f);
        if (got == -2)
            return bad("--file: %s: %s", c->file, why);
        if (got < 0)
            return bad("--file: %s holds no cube", c->file);
        facelets = line;
    } else if (c->scramble) {
        qs_move mv[QS_MAX_MOVES];
        int n = qs_moves_parse(c->scramble, mv, QS_MAX_MOVES, detail,
                               sizeof detail);
        if (n < 0)
            return bad("--scramble: %s: %s", qs_errcode(n), detail);
        qs_cube_solved(&cube);
        qs_cube_apply_moves(&cube, mv, n);
        qs_cube_to_facelets(&cube, r->cube);
        return 0;
    } else if (!facelets && r->offline) {
        /* The cube the moves solve. */
        qs_move inv[QS_MAX_MOVES];
        qs_moves_invert(r->given, r->n_given, inv);
        qs_cube_solved(&cube);
        qs_cube_apply_moves(&cube, inv, r->n_given);
        qs_cube_to_facelets(&cube, r->cube);
        return 0;
    } else if (!facelets) {
        const char *why = NULL;
        int got = read_line(stdin, line, sizeof line, &why);
        if (got == -2)
            return bad("standard input: %s", why);
        if (got < 0)
            return bad("no cube: give FACELETS, --file, --scramble or a line "
                       "on standard input");
        facelets = line;
    }
    int e = qs_cube_from_facelets(facelets, &cube, detail, sizeof detail);
    if (e != QS_OK) {
        fprintf(stderr, "quadctl: error: CUBE: %s: %s\n", qs_errcode(e),
                detail);
        return 3;
    }
    qs_cube_to_facelets(&cube, r->cube);
    return 0;
}

/* Prints a JSON object on one line and frees it. */
static void print_json(cJSON *o)
{
    char *text = o ? cJSON_PrintUnformatted(o) : NULL;
    puts(text ? text : "{\"ok\":false,\"error\":{\"code\":\"NOMEM\"}}");
    cJSON_free(text);
    cJSON_Delete(o);
}

static int cmd_status(ctl_run *r)
{
    ctl_session *s = calloc(1, sizeof *s);
    if (!s)
        return 3;
    char err[256];
    int rc = ctl_session_open(s, &r->conn, err, sizeof err);
    fwp_status st;
    if (rc == CTL_OK)
        rc = ctl_session_status(s, &st, err, sizeof err);
    if (rc == CTL_OK) {
        static const char *const names[] = {"UNHOMED", "HOMING", "IDLE",
                                            "RUNNING", "FAULT", "STOPPED"};
        const char *state = st.state <= 5 ? names[st.state] : "?";
        if (r->json) {
            cJSON *o = cJSON_CreateObject();
            cJSON_AddBoolToObject(o, "ok", 1);
            cJSON_AddStringToObject(o, "state", state);
            cJSON_AddNumberToObject(o, "last_step", st.last_step);
            cJSON_AddNumberToObject(o, "fault", st.fault);
            cJSON_AddNumberToObject(o, "queued", st.queued);
            ctl_status_json(o, &st);
            if (st.has_cube) {
                /* A cube from the wire is shown only when it is one. */
                char cube[55];
                memcpy(cube, st.cube, 54);
                cube[54] = '\0';
                qs_cube c;
                if (qs_cube_from_facelets(cube, &c, NULL, 0) == QS_OK)
                    cJSON_AddStringToObject(o, "cube", cube);
            }
            print_json(o);
        } else {
            char grips[64];
            ctl_status_describe(&st, grips, sizeof grips);
            printf("state=%s last_step=%u fault=0x%04x queued=%u %s", state,
                   st.last_step, st.fault, st.queued, grips);
            if (st.has_cube)
                printf(" cube=%.54s", st.cube);
            printf("\n");
        }
    } else if (r->json) {
        char shown[300];
        cJSON *o = cJSON_CreateObject();
        cJSON_AddBoolToObject(o, "ok", 0);
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddStringToObject(e, "code", ctl_errcode(rc));
        cJSON_AddStringToObject(e, "message",
                                qs_text_quote(err, strlen(err), shown,
                                              sizeof shown));
        print_json(o);
    } else {
        fprintf(stderr, "quadctl: error: %s: %s\n", ctl_errcode(rc), err);
    }
    ctl_session_close(s);
    free(s);
    return ctl_exit_status(rc);
}

int main(int argc, char **argv)
{
    ctl_run *r = calloc(1, sizeof *r);
    if (!r) {
        fputs("quadctl: out of memory\n", stderr);
        return 3;
    }
    cmdline c;
    memset(&c, 0, sizeof c);
    c.run = r;
    int rc = parse(&c, argc, argv);
    if (rc) {
        free(r);
        return rc == 1 ? 0 : rc;
    }
    char err[256];
    if (strcmp(c.command, "ports") == 0) {
        int n = ctl_ports_list(stdout, err, sizeof err);
        int verbose = r->conn.verbose;
        free(r);
        if (n < 0) {
            fprintf(stderr, "quadctl: error: %s\n", err);
            return 4;
        }
        if (n == 0 && verbose)
            fprintf(stderr, "quadctl: no serial ports found\n");
        return 0;
    }
    if (!r->conn.port) {
        free(r);
        return bad("--port is required (a serial port or tcp:HOST:PORT)");
    }
    if (strcmp(c.command, "status") == 0) {
        rc = cmd_status(r);
        free(r);
        return rc;
    }
    if (strcmp(c.command, "calibrate") == 0) {
        qs_move mv[QS_MAX_MOVES];
        int n = 0;
        if (c.moves) {
            n = qs_moves_parse(c.moves, mv, QS_MAX_MOVES, err, sizeof err);
            if (n < 0) {
                free(r);
                return bad("--moves: %s", err);
            }
        }
        rc = ctl_calibrate(&r->conn, &r->solver.profile, mv, n, c.rounds,
                           c.out, r->conn.verbose ? stderr : NULL, err,
                           sizeof err);
        if (rc != CTL_OK)
            fprintf(stderr, "quadctl: error: %s: %s\n", ctl_errcode(rc), err);
        free(r);
        return ctl_exit_status(rc);
    }
    rc = get_cube(&c);
    if (rc) {
        free(r);
        return rc;
    }
    if (!r->offline && !ctl_solver_available()) {
        free(r);
        return bad("this quadctl has no solver client: give --moves");
    }
    rc = ctl_run_solve(r);
    ctl_report(r, stdout);
    ctl_run_free(r);
    free(r);
    return ctl_exit_status(rc);
}
