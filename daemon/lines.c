/*
 * lines.c - quadsolved --stdio: the line protocol that robot scripts
 * written for rob-twophase and qphase already speak, backed by the same
 * solve-plan-verify step as the ZeroMQ server.
 *
 * The dialogue follows those programs: a banner, "Ready!" before every
 * command, commands read as blank-separated words ("solve FACECUBE",
 * "scramble"), the search time on a line of its own ("10.2ms"), then one
 * line per solution. Plain metrics print the moves and their length as
 * rob-twophase does ("R U2 F' ... (19)"); the robot metric prints the
 * robot-frame steps with robot moves and cost in braces, where qphase puts
 * its moves and score ("tRL R (F B') ... {19 | 1843.5}"). Errors are one
 * line starting with "Face-error" (the string is malformed), "Cubie-error"
 * (well-formed but not a solvable cube) or "Error." as in those programs,
 * followed by the specific reason; never a line that looks like moves.
 */
#define _POSIX_C_SOURCE 200809L

#include "daemon.h"
#include "qtab.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* Reads one blank-separated word (at most cap-1 bytes kept; a longer word
 * is marked by *truncated). Returns 0 at the end of input. */
static int read_word(char *out, size_t cap, int *truncated)
{
    int c;
    size_t n = 0;
    *truncated = 0;
    while ((c = getchar()) != EOF && (c == ' ' || c == '\t' || c == '\n' ||
                                      c == '\r'))
        ;
    if (c == EOF)
        return 0;
    do {
        /* A NUL would end the word early and leave a prefix to be
         * solved: it is kept as 0x1a, which no command or cube contains,
         * so the word is refused as a whole. */
        if (c == '\0')
            c = 0x1a;
        if (n + 1 < cap)
            out[n++] = (char)c;
        else
            *truncated = 1;
    } while ((c = getchar()) != EOF && c != ' ' && c != '\t' && c != '\n' &&
             c != '\r');
    out[n] = '\0';
    return 1;
}

/* Facelet-level errors (the string) versus cube-level ones (the pieces),
 * the split rob-twophase makes between Face-error and Cubie-error. */
static int is_face_error(const char *reason)
{
    static const char *face[] = {"LENGTH", "CHARACTER", "CENTER",
                                 "COLOR_COUNT", "CORNER", "EDGE"};
    for (size_t i = 0; i < sizeof face / sizeof face[0]; i++)
        if (strcmp(reason, face[i]) == 0)
            return 1;
    return 0;
}

/* The quadsolve error number of a reason such as "TWIST" (positive, as
 * the other programs print theirs). */
static int error_number(const char *reason)
{
    for (int e = -1; e >= QS_ERR_BUFFER; e--)
        if (strcmp(qs_errcode(e), reason) == 0)
            return -e;
    return 0;
}

static void print_solutions(const qsv_result *res, qs_metric metric)
{
    char text[ROBOT_MAX_STEPS * 20 + 1];
    printf("%.3fms\n", res->solve_ms);
    for (int i = 0; i < res->n; i++) {
        const qsv_solution *s = &res->sol[i];
        if (metric == QS_METRIC_ROBOT) {
            if (robot_steps_format(s->plan.steps, s->plan.n, text,
                                   sizeof text) < 0)
                text[0] = '\0';
            printf("%s%s{%d | %.3f}\n", text, *text ? " " : "",
                   s->plan.robot_moves, s->plan.cost_ms);
        } else {
            if (qs_moves_format(s->moves, s->n, text, sizeof text) < 0)
                text[0] = '\0';
            printf("%s%s(%d)\n", text, *text ? " " : "", s->length);
        }
    }
}

int qsd_lines(const qsd_config *cfg)
{
    printf("This is quadsolved %s, line mode (rob-twophase/qphase "
           "compatible); metric %s.\n\n",
           QS_VERSION, qs_metric_name(cfg->line_metric));
    printf("Loading tables ...\n");
    fflush(stdout);
    qtab_options o;
    qtab_options_default(&o);
    o.threads = cfg->threads;
    o.keep_warm_ms = cfg->keep_warm_ms;
    o.dir = cfg->tables_dir;
    qtab_set *set = NULL;
    int rc = qtab_open(cfg->line_metric, &o, &set);
    if (rc != QTAB_OK) {
        printf("Error. Cannot open %s tables: %s\n",
               qs_metric_name(cfg->line_metric), qtab_strerror(rc));
        return 1;
    }
    printf("Done.\n\n");
    printf("Enter >>solve FACECUBE<< to solve or >>scramble<< to solve a "
           "random cube.\n\n");

    robot_model model;
    robot_model_init(&model);
    qsv_result *res = malloc(sizeof *res);
    qsv_request *req = malloc(sizeof *req);
    if (!res || !req) {
        printf("Error. Out of memory.\n");
        qtab_close(set);
        free(res);
        free(req);
        return 1;
    }
    uint64_t rng = (uint64_t)time(NULL) * 0x9E3779B97F4A7C15ULL | 1;
    /* The search threads, kept from cube to cube (see qs_team). */
    qs_team *team = NULL;
    if (cfg->threads > 1)
        qs_team_create(cfg->threads, &team);
    char word[QSV_MAX_SCRAMBLE + 1];
    int truncated;
    for (;;) {
        printf("Ready!\n");
        fflush(stdout);
        if (!read_word(word, sizeof word, &truncated))
            break;
        qsv_request_init(req);
        req->metric = cfg->line_metric;
        req->time_ms = cfg->line_time_ms;
        req->profile = cfg->line_profile;
        req->objective = cfg->line_objective;
        if (strcmp(word, "solve") == 0) {
            if (!read_word(word, sizeof word, &truncated)) {
                printf("Error. 'solve' needs a facelet string.\n");
                break;
            }
            if (truncated) {
                printf("Face-error %d. LENGTH: facelet string is far longer "
                       "than 54 characters\n",
                       -QS_ERR_LENGTH);
                continue;
            }
            snprintf(req->cube, sizeof req->cube, "%s", word);
        } else if (strcmp(word, "scramble") == 0) {
            qs_cube c;
            qs_cube_random(&c, &rng);
            qs_cube_to_facelets(&c, req->cube);
            printf("%s\n", req->cube);
        } else {
            char shown[64];
            printf("Error. Unknown command '%s' (solve FACECUBE, "
                   "scramble).\n",
                   qs_text_quote(word, strlen(word), shown, sizeof shown));
            continue;
        }
        qsv_failure f = {0, "", ""};
        rc = qsv_solve(qtab_set_tables(set), &model, req, cfg->threads,
                       team, NULL, NULL, NULL, res, &f);
        if (rc == QSV_OK)
            print_solutions(res, cfg->line_metric);
        else if (rc == QSV_ERR_INVALID_CUBE)
            printf("%s %d. %s: %s\n",
                   is_face_error(f.reason) ? "Face-error" : "Cubie-error",
                   error_number(f.reason), f.reason, f.message);
        else
            printf("Error. %s: %s\n", qsv_errcode(rc), f.message);
    }
    fflush(stdout);
    qs_team_free(team);
    free(res);
    free(req);
    qtab_close(set);
    return 0;
}
