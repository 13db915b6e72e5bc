/*
 * evaluate_cmd.c - `quadsolve evaluate`: how a quad-arm robot would
 * execute a cube-frame solution. Plans the tilts and regrips with
 * robot_plan under a timing profile, replays the plan with robot_check on
 * the cube it is meant to solve, and prints one line per input: the
 * robot-frame steps with their counts and time, or an error line. A plan
 * that fails the check is reported as INTERNAL, never printed.
 *
 * The cube is the one given (--facelets, --scramble, or the facelets
 * before the moves on an input line) or, by default, the cube the moves
 * solve, so any solution can be evaluated on its own.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"
#include "qsservice.h"

#include <cJSON.h>
#include <stdlib.h>
#include <string.h>

#include "robot.h"

/* Longest printed step sequence: every step is at most 19 characters. */
#define STEPS_TEXT (ROBOT_MAX_STEPS * 20 + 1)

typedef struct {
    const char *code;  /* NULL on success, else the error identifier */
    char message[256];
    qs_move moves[QS_MAX_MOVES];
    int n;
    robot_schedule plan;
} eval_result;

typedef struct {
    robot_model model;
    robot_profile profile;
    robot_objective objective;
    int json;
    int robot_input; /* --robot: the input is a robot-frame plan */
    robot_step given[ROBOT_MAX_STEPS];
} eval_ctx;

static void fail(eval_result *r, const char *code, const char *msg)
{
    r->code = code;
    snprintf(r->message, sizeof r->message, "%s", msg);
}

/* Evaluates moves_text on the cube given by facelets or scramble (both
 * NULL: the cube the moves solve). */
static void evaluate(eval_ctx *c, const char *facelets,
                     const char *scramble, const char *moves_text,
                     eval_result *r)
{
    char detail[256] = "";
    qs_cube cube;
    int rc, n_given = 0;

    r->code = NULL;
    r->message[0] = '\0';
    r->n = 0;
    if (c->robot_input) {
        /* A robot-frame plan (another solver's, e.g. qphase's): its
         * cube-frame turns are what gets planned again. */
        n_given = robot_steps_parse(moves_text, c->given, ROBOT_MAX_STEPS,
                                    detail, sizeof detail);
        if (n_given < 0) {
            fail(r, robot_errcode(n_given), detail);
            return;
        }
        rc = robot_steps_to_moves(&c->model, c->given, n_given, r->moves,
                                  QS_MAX_MOVES);
        if (rc < 0) {
            fail(r, robot_errcode(rc), robot_strerror(rc));
            return;
        }
    } else {
        rc = qs_moves_parse(moves_text, r->moves, QS_MAX_MOVES, detail,
                            sizeof detail);
        if (rc < 0) {
            fail(r, qs_errcode(rc), detail);
            return;
        }
    }
    r->n = rc;

    if (facelets) {
        rc = qs_cube_from_facelets(facelets, &cube, detail, sizeof detail);
        if (rc != QS_OK) {
            fail(r, qs_errcode(rc), detail);
            return;
        }
    } else if (scramble) {
        qs_move s[QS_MAX_MOVES];
        rc = qs_moves_parse(scramble, s, QS_MAX_MOVES, detail, sizeof detail);
        if (rc < 0) {
            fail(r, qs_errcode(rc), detail);
            return;
        }
        qs_cube_solved(&cube);
        qs_cube_apply_moves(&cube, s, rc);
    } else {
        qs_move inv[QS_MAX_MOVES];
        qs_moves_invert(r->moves, r->n, inv);
        qs_cube_solved(&cube);
        qs_cube_apply_moves(&cube, inv, r->n);
    }

    qs_cube end = cube;
    qs_cube_apply_moves(&end, r->moves, r->n);
    if (!qs_cube_is_solved(&end)) {
        fail(r, robot_errcode(ROBOT_ERR_NOT_SOLVED),
             "the moves do not solve the cube");
        return;
    }
    if (c->robot_input) {
        /* The given plan must be executable as written. */
        robot_sim sim;
        robot_sim_init(&sim, &cube);
        for (int i = 0; i < n_given; i++) {
            char why[200];
            rc = robot_sim_step(&sim, &c->given[i], NULL, why, sizeof why);
            if (rc != ROBOT_OK) {
                r->code = robot_errcode(rc);
                snprintf(r->message, sizeof r->message,
                         "the given plan: step %d: %s", i + 1, why);
                return;
            }
        }
    }

    rc = robot_plan(&c->model, &c->profile, c->objective, r->moves, r->n,
                    &r->plan);
    if (rc != ROBOT_OK) {
        fail(r, robot_errcode(rc), robot_strerror(rc));
        return;
    }
    rc = robot_check(&r->plan, &cube, &c->profile, detail, sizeof detail);
    if (rc != ROBOT_OK) {
        r->code = cli_errcode(CLI_ERR_INTERNAL);
        snprintf(r->message, sizeof r->message,
                 "plan failed verification: %s: %.200s", robot_errcode(rc),
                 detail);
        return;
    }
}

static void print_text(const eval_result *r, char *steps)
{
    if (r->code) {
        printf("error: %s: %s\n", r->code, r->message);
        return;
    }
    const robot_schedule *p = &r->plan;
    if (robot_steps_format(p->steps, p->n, steps, STEPS_TEXT) < 0)
        steps[0] = '\0';
    printf("robot_moves=%d turns=%d tilts=%d full_regrips=%d safe=%d "
           "cost_ms=%.3f: %s\n",
           p->robot_moves, p->turns, p->tilts, p->full_regrips, p->safe,
           p->cost_ms, steps);
}

static void print_json(const eval_ctx *c, const char *in,
                       const eval_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "input", in);
    cJSON_AddBoolToObject(o, "ok", r->code == NULL);
    if (r->code) {
        cJSON *e = cJSON_AddObjectToObject(o, "error");
        cJSON_AddStringToObject(e, "code", r->code);
        cJSON_AddStringToObject(e, "message", r->message);
    } else {
        qsv_json_moves(o, r->moves, r->n, "length");
        qsv_json_plan(o, &r->plan);
        cJSON_AddStringToObject(o, "profile", c->profile.name);
        cJSON_AddStringToObject(o, "objective", c->objective == ROBOT_OBJ_TIME
                                                    ? "time"
                                                    : "moves");
    }
    cli_print_json(o);
}

static int report(const eval_ctx *c, const char *in, const eval_result *r,
                  char *steps)
{
    if (c->json)
        print_json(c, in, r);
    else
        print_text(r, steps);
    fflush(stdout);
    return r->code == NULL;
}

/* Evaluates and prints one input; returns 1 on success. */
static int handle(eval_ctx *c, const char *in, const char *facelets,
                  const char *scramble, const char *moves, eval_result *r,
                  char *steps)
{
    evaluate(c, facelets, scramble, moves, r);
    return report(c, in, r, steps);
}

/* An input line is "FACELETS MOVES" when its first word is 3 or more
 * letters of URFDLB (no move is spelt like that), else just MOVES. */
static int handle_line(eval_ctx *c, char *line, eval_result *r,
                       char *steps)
{
    size_t word = strcspn(line, " \t");
    if (word >= 3 && strspn(line, "URFDLB") >= word) {
        /* Split the line in place for evaluating, whole again for the
         * report. */
        char sep = line[word];
        line[word] = '\0';
        evaluate(c, line, NULL, sep ? line + word + 1 : "", r);
        line[word] = sep;
        return report(c, line, r, steps);
    }
    return handle(c, line, NULL, NULL, line, r, steps);
}

int cmd_evaluate(int argc, char **argv)
{
    const char *profile = "default", *facelets = NULL, *scramble = NULL, *v;
    size_t text_len = 1;
    int json = 0, n_moves = 0, failures = 0, robot_input = 0;
    robot_objective objective = ROBOT_OBJ_MOVES;
    const char **parts = calloc((size_t)argc, sizeof *parts);
    if (!parts) {
        fputs("quadsolve: out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }

    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--robot") == 0) {
            robot_input = 1;
        } else if (cli_opt(argc, argv, &i, "--profile", &v)) {
            profile = v;
        } else if (cli_opt(argc, argv, &i, "--objective", &v)) {
            objective = cli_parse_objective("--objective", v);
        } else if (cli_opt(argc, argv, &i, "--facelets", &v)) {
            facelets = v;
        } else if (cli_opt(argc, argv, &i, "--scramble", &v)) {
            scramble = v;
        } else if (strcmp(a, "--") == 0) {
            while (++i < argc)
                parts[n_moves++] = argv[i];
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_usage_error("evaluate: unknown option '%s'", a);
        } else {
            parts[n_moves++] = a;
        }
    }
    if (facelets && scramble)
        cli_usage_error("evaluate: give --facelets or --scramble, not both");
    if ((facelets || scramble) && n_moves == 0)
        cli_usage_error("evaluate: --facelets and --scramble need MOVES");

    eval_ctx *c = malloc(sizeof *c);
    eval_result *r = malloc(sizeof *r);
    char *steps = malloc(STEPS_TEXT);
    if (!c || !r || !steps) {
        free(c);
        free(r);
        free(steps);
        free(parts);
        fputs("quadsolve: out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }
    char detail[512];
    int rc = robot_profile_select(profile, &c->profile, detail, sizeof detail);
    if (rc != ROBOT_OK) {
        free(c);
        free(r);
        free(steps);
        free(parts);
        cli_usage_error("--profile: %s: %s", robot_errcode(rc),
                        *detail ? detail : robot_strerror(rc));
    }
    robot_model_init(&c->model);
    c->objective = objective;
    c->json = json;
    c->robot_input = robot_input;
    cli_install_signals();

    if (n_moves > 0) {
        /* The arguments form one sequence: "R U" and R U are the same. */
        for (int i = 0; i < n_moves; i++)
            text_len += strlen(parts[i]) + 1;
        char *text = malloc(text_len);
        if (!text) {
            fputs("quadsolve: out of memory\n", stderr);
            failures = 1;
        } else {
            text[0] = '\0';
            for (int i = 0; i < n_moves; i++) {
                if (i)
                    strcat(text, " ");
                strcat(text, parts[i]);
            }
            failures += !handle(c, text, facelets, scramble, text, r, steps);
            free(text);
        }
    } else {
        char *line = NULL;
        size_t cap = 0;
        char *text;
        while (!atomic_load(&cli_cancel) &&
               (text = cli_read_line(stdin, &line, &cap)) != NULL)
            failures += !handle_line(c, text, r, steps);
        free(line);
    }

    int interrupted = atomic_load(&cli_cancel);
    free(c);
    free(r);
    free(steps);
    free(parts);
    if (interrupted)
        return CLI_EXIT_INTERRUPTED;
    return failures ? CLI_EXIT_FAIL : CLI_EXIT_OK;
}
