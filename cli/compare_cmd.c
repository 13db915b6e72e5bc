/*
 * compare_cmd.c - `quadsolve compare`: the solutions of several solvers
 * (or of one solver under several settings) for the same cubes, side by
 * side. Each solution file has one line per cube in any format the
 * compare data layer reads (compare_data.c); every solution is applied to
 * its cube and planned for the robot under each profile, and a wrong or
 * unparsable one is reported with its file and line, never counted. The
 * result is a summary on the terminal, JSON lines or CSV per cube, and an
 * HTML report (report.c). `--shard K/N` takes every N-th cube from the
 * K-th, and `--merge` joins the JSON outputs of the shards again.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <cJSON.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const char *label;
    const char *path;
    FILE *f;
    long line_no;
    int shard_only; /* holds only this shard's lines (--shard-input) */
} source;

static void print_summary(const cmp_data *d, const long *failed)
{
    printf("compare: %d cubes, %d solvers, planner objective %s\n",
           d->n_rows, d->n_labels,
           d->objective == ROBOT_OBJ_TIME ? "time" : "moves");
    printf("%-24s %7s %7s %8s\n", "label", "solved", "failed", "htm");
    for (int l = 0; l < d->n_labels; l++) {
        cmp_stats h;
        cmp_stats_of(d, l, -1, 0, &h);
        printf("%-24s %7d %7ld %8.3f\n", d->labels[l], h.n, failed[l],
               h.mean);
    }
    for (int p = 0; p < d->n_profiles; p++) {
        printf("\nprofile %s: robot moves (mean median p90 max) | cost_ms "
               "(mean median p90 max)\n",
               d->profiles[p].name);
        for (int l = 0; l < d->n_labels; l++) {
            cmp_stats m, c;
            cmp_stats_of(d, l, p, 0, &m);
            cmp_stats_of(d, l, p, 1, &c);
            printf("%-24s %7.3f %5.0f %5.0f %5.0f | %9.1f %8.1f %8.1f "
                   "%8.1f\n",
                   d->labels[l], m.mean, m.median, m.p90, m.max, c.mean,
                   c.median, c.p90, c.max);
        }
    }
    if (d->n_labels < 2)
        return;
    printf("\npairwise, robot moves under %s (cubes both solved): wins / "
           "ties / losses\n",
           d->profiles[0].name);
    for (int a = 0; a < d->n_labels; a++)
        for (int b = a + 1; b < d->n_labels; b++) {
            long win = 0, tie = 0, loss = 0;
            for (int i = 0; i < d->n_rows; i++) {
                const cmp_entry *x = &d->rows[i].e[a], *y = &d->rows[i].e[b];
                if (!x->ok || !y->ok)
                    continue;
                int dx = x->robot[0].robot_moves, dy = y->robot[0].robot_moves;
                win += dx < dy;
                tie += dx == dy;
                loss += dx > dy;
            }
            printf("%s vs %s: %ld / %ld / %ld\n", d->labels[a], d->labels[b],
                   win, tie, loss);
        }
}

static void print_csv(const cmp_data *d)
{
    printf("cube,label,ok,error,htm,qtm,axht,axqt,profile,robot_moves,tilts,"
           "full_regrips,cost_ms\n");
    for (int i = 0; i < d->n_rows; i++) {
        const cmp_row *r = &d->rows[i];
        for (int l = 0; l < d->n_labels; l++) {
            const cmp_entry *e = &r->e[l];
            if (!e->ok) {
                /* The reason quoted, its quotes doubled (RFC 4180). */
                printf("%d,\"", r->cube + 1);
                for (const char *c = d->labels[l]; *c; c++)
                    printf(*c == '"' ? "\"\"" : "%c", *c);
                printf("\",0,\"");
                for (const char *c = e->error; *c; c++)
                    printf(*c == '"' ? "\"\"" : "%c", *c);
                printf("\",,,,,,,,,\n");
                continue;
            }
            for (int p = 0; p < d->n_profiles; p++) {
                printf("%d,\"", r->cube + 1);
                for (const char *c = d->labels[l]; *c; c++)
                    printf(*c == '"' ? "\"\"" : "%c", *c);
                printf("\",1,,%d,%d,%d,%d,%s,%d,%d,%d,%.3f\n", e->len[0],
                       e->len[1], e->len[2], e->len[3], d->profiles[p].name,
                       e->robot[p].robot_moves, e->robot[p].tilts,
                       e->robot[p].full_regrips, e->robot[p].cost_ms);
            }
        }
    }
}

static void print_json(const cmp_data *d, int shard_k, int shard_n)
{
    cli_print_json(cmp_header_json(d, shard_k, shard_n));
    for (int i = 0; i < d->n_rows; i++)
        cli_print_json(cmp_row_json(d, &d->rows[i]));
}

/* Reads the cubes and every source's lines into d; returns the exit
 * status so far (CLI_EXIT_FAIL when a cube line is bad). */
static int collect(cmp_data *d, const char *cubes_path, source *src,
                   int n_src, int shard_k, int shard_n, long *failed)
{
    FILE *cf = strcmp(cubes_path, "-") == 0 ? stdin : fopen(cubes_path, "r");
    if (!cf) {
        fprintf(stderr, "quadsolve: %s: %s\n", cubes_path, strerror(errno));
        return CLI_EXIT_FAIL;
    }
    /* Count first, for the progress bar and the header. */
    char *line = NULL, *sline = NULL;
    size_t cap = 0, scap = 0;
    long total = 0;
    char *s;
    while ((s = cli_read_line(cf, &line, &cap)) != NULL)
        total += *s != '\0' && *s != '#';
    if (cf == stdin) {
        fputs("quadsolve: compare: CUBES must be a file (it is read "
              "twice)\n",
              stderr);
        free(line);
        return CLI_EXIT_USAGE;
    }
    rewind(cf);
    d->n_cubes = (int)total;
    cli_progress_bar bar;
    cli_progress_bar_start(&bar, (total + shard_n - 1 - shard_k) / shard_n);
    int status = CLI_EXIT_OK, cube_no = -1;
    long cube_line = 0, done = 0;
    while (!atomic_load(&cli_cancel) &&
           (s = cli_read_line(cf, &line, &cap)) != NULL) {
        cube_line++;
        if (*s == '\0' || *s == '#')
            continue;
        cube_no++;
        int mine = cube_no % shard_n == shard_k;
        /* Every source gives one line per cube, or with --shard-input one
         * per cube of this shard (what `solve --shard` wrote). */
        char *got[CMP_MAX_LABELS];
        for (int l = 0; l < n_src; l++) {
            got[l] = NULL;
            if (src[l].shard_only && !mine)
                continue;
            ssize_t n = src[l].f ? getline(&sline, &scap, src[l].f) : -1;
            if (n >= 0) {
                src[l].line_no++;
                got[l] = strdup(cli_strip(sline));
            }
        }
        if (!mine) {
            for (int l = 0; l < n_src; l++)
                free(got[l]);
            continue;
        }
        qs_cube cube;
        char detail[200];
        if (qs_cube_from_facelets(s, &cube, detail, sizeof detail) != QS_OK) {
            fprintf(stderr, "%s line %ld: not a cube: %s\n", cubes_path,
                    cube_line, detail);
            status = CLI_EXIT_FAIL;
            for (int l = 0; l < n_src; l++)
                free(got[l]);
            continue;
        }
        cmp_row *r = cmp_data_add_row(d, cube_no, s);
        if (!r) {
            fputs("quadsolve: out of memory\n", stderr);
            status = CLI_EXIT_FAIL;
            break;
        }
        for (int l = 0; l < n_src; l++) {
            cmp_evaluate_line(d, &cube, got[l], &r->e[l]);
            if (!r->e[l].ok) {
                failed[l]++;
                if (got[l])
                    fprintf(stderr, "%s: %s line %ld: %s\n", src[l].label,
                            src[l].path, src[l].line_no, r->e[l].error);
                else
                    fprintf(stderr, "%s: %s: no line for cube %d\n",
                            src[l].label, src[l].path, cube_no + 1);
            }
            free(got[l]);
        }
        cli_progress_bar_update(&bar, ++done);
    }
    cli_progress_bar_end(&bar);
    for (int l = 0; l < n_src; l++)
        if (src[l].f && getline(&sline, &scap, src[l].f) >= 0)
            fprintf(stderr, "%s: %s has more lines than %s has cubes\n",
                    src[l].label, src[l].path, cubes_path);
    free(line);
    free(sline);
    fclose(cf);
    return status;
}

int cmd_compare(int argc, char **argv)
{
    const char *v, *cubes = NULL, *html = NULL, *title = NULL;
    int json = 0, csv = 0, merge = 0, shard_k = 0, shard_n = 1;
    const char *shard_input[CMP_MAX_LABELS];
    int n_shard_input = 0;
    int timeline[CMP_MAX_TIMELINES], n_timeline = 0;
    source src[CMP_MAX_LABELS];
    int n_src = 0, n_prof = 0;
    char *profile_spec[CMP_MAX_PROFILES];
    char **merge_files = calloc((size_t)argc, sizeof *merge_files);
    int n_merge = 0;
    robot_objective objective = ROBOT_OBJ_MOVES;
    if (!merge_files) {
        fputs("quadsolve: out of memory\n", stderr);
        return CLI_EXIT_FAIL;
    }
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_opt(argc, argv, &i, "--profile", &v)) {
            if (n_prof == CMP_MAX_PROFILES)
                cli_usage_error("compare: at most %d --profile",
                                CMP_MAX_PROFILES);
            profile_spec[n_prof++] = (char *)v;
        } else if (cli_opt(argc, argv, &i, "--objective", &v)) {
            objective = cli_parse_objective("--objective", v);
        } else if (cli_opt(argc, argv, &i, "--html", &v)) {
            html = v;
        } else if (cli_opt(argc, argv, &i, "--title", &v)) {
            title = v;
        } else if (cli_opt(argc, argv, &i, "--timeline", &v)) {
            if (n_timeline == CMP_MAX_TIMELINES)
                cli_usage_error("compare: at most %d --timeline",
                                CMP_MAX_TIMELINES);
            timeline[n_timeline++] =
                (int)cli_parse_long("--timeline", v, 1, INT_MAX) - 1;
        } else if (cli_opt(argc, argv, &i, "--shard", &v)) {
            cli_parse_shard("--shard", v, &shard_k, &shard_n);
        } else if (cli_opt(argc, argv, &i, "--shard-input", &v)) {
            if (n_shard_input == CMP_MAX_LABELS)
                cli_usage_error("compare: too many --shard-input");
            shard_input[n_shard_input++] = v;
        } else if (strcmp(a, "--json") == 0) {
            json = 1;
        } else if (strcmp(a, "--csv") == 0) {
            csv = 1;
        } else if (strcmp(a, "--merge") == 0) {
            merge = 1;
        } else if (a[0] == '-' && a[1] != '\0') {
            cli_usage_error("compare: unknown option '%s'", a);
        } else if (merge) {
            merge_files[n_merge++] = argv[i];
        } else if (!cubes) {
            cubes = a;
        } else {
            const char *eq = strchr(a, '=');
            if (!eq || eq == a || eq[1] == '\0')
                cli_usage_error("compare: '%s' is not LABEL=FILE", a);
            if (n_src == CMP_MAX_LABELS)
                cli_usage_error("compare: at most %d solution files",
                                CMP_MAX_LABELS);
            if ((size_t)(eq - a) >= sizeof ((cmp_data *)0)->labels[0])
                cli_usage_error("compare: label '%.*s' is too long",
                                (int)(eq - a), a);
            src[n_src].label = strndup(a, (size_t)(eq - a));
            src[n_src].path = eq + 1;
            src[n_src].f = NULL;
            src[n_src].line_no = 0;
            src[n_src].shard_only = 0;
            for (int l = 0; l < n_src; l++)
                if (strcmp(src[l].label, src[n_src].label) == 0)
                    cli_usage_error("compare: label '%s' given twice",
                                    src[n_src].label);
            n_src++;
        }
    }
    if (n_shard_input && shard_n == 1)
        cli_usage_error("compare: --shard-input goes with --shard K/N");
    for (int i = 0; i < n_shard_input; i++) {
        int found = 0;
        for (int l = 0; l < n_src; l++)
            if (strcmp(src[l].label, shard_input[i]) == 0)
                found = src[l].shard_only = 1;
        if (!found)
            cli_usage_error("compare: --shard-input %s: no such label",
                            shard_input[i]);
    }
    if (json && csv)
        cli_usage_error("compare: --json and --csv exclude each other");
    if (n_timeline && !html)
        cli_usage_error("compare: --timeline goes with --html");
    if (merge && (n_merge == 0 || cubes || n_src || n_prof || shard_n > 1))
        cli_usage_error("compare --merge FILE...: the JSON outputs of "
                        "`compare --json` (no cube file, labels, "
                        "profiles or --shard)");
    if (!merge && (!cubes || n_src == 0))
        cli_usage_error("compare: CUBES and at least one LABEL=FILE needed");

    cmp_data d;
    long failed[CMP_MAX_LABELS] = {0};
    int status = CLI_EXIT_OK;
    if (merge) {
        char why[512];
        memset(&d, 0, sizeof d);
        if (cmp_data_merge(&d, merge_files, n_merge, why, sizeof why) != 0) {
            fprintf(stderr, "quadsolve: compare --merge: %s\n", why);
            cmp_data_free(&d);
            free(merge_files);
            return CLI_EXIT_FAIL;
        }
        for (int i = 0; i < d.n_rows; i++)
            for (int l = 0; l < d.n_labels; l++)
                failed[l] += !d.rows[i].e[l].ok;
    } else {
        cmp_data_init(&d, n_src, n_prof ? n_prof : 1);
        d.objective = objective;
        for (int p = 0; p < d.n_profiles; p++) {
            char detail[256];
            int rc = robot_profile_select(n_prof ? profile_spec[p] : "default",
                                          &d.profiles[p], detail,
                                          sizeof detail);
            if (rc != ROBOT_OK)
                cli_usage_error("--profile %s: %s", profile_spec[p], detail);
        }
        for (int l = 0; l < n_src; l++) {
            snprintf(d.labels[l], sizeof d.labels[l], "%s", src[l].label);
            src[l].f = fopen(src[l].path, "r");
            if (!src[l].f) {
                fprintf(stderr, "quadsolve: %s: %s\n", src[l].path,
                        strerror(errno));
                status = CLI_EXIT_FAIL;
            }
        }
        cli_install_signals();
        if (status == CLI_EXIT_OK)
            status = collect(&d, cubes, src, n_src, shard_k, shard_n,
                             failed);
        for (int l = 0; l < n_src; l++) {
            if (src[l].f)
                fclose(src[l].f);
            free((char *)src[l].label);
        }
    }
    /* A chosen cube must be in the file and, with --shard, in this
     * shard: a report without the timeline asked for would be a silent
     * wrong answer. */
    for (int t = 0; t < n_timeline && status != CLI_EXIT_USAGE; t++) {
        int found = 0;
        for (int i = 0; i < d.n_rows && !found; i++)
            found = d.rows[i].cube == timeline[t];
        if (!found) {
            fprintf(stderr,
                    "quadsolve: compare: --timeline %d: no such cube (%d "
                    "cubes%s)\n",
                    timeline[t] + 1, d.n_rows,
                    shard_n > 1 ? " in this shard" : "");
            status = CLI_EXIT_FAIL;
            html = NULL;
        }
        d.timeline[d.n_timeline++] = timeline[t];
    }
    if (status != CLI_EXIT_USAGE) {
        if (json)
            print_json(&d, shard_k, shard_n);
        else if (csv)
            print_csv(&d);
        else
            print_summary(&d, failed);
        if (html &&
            cmp_report_html(&d, title ? title : "quadsolve compare", html)) {
            fprintf(stderr, "quadsolve: %s: %s\n", html, strerror(errno));
            status = CLI_EXIT_FAIL;
        }
    }
    for (int l = 0; l < d.n_labels; l++)
        if (failed[l] && status == CLI_EXIT_OK)
            status = CLI_EXIT_FAIL;
    int interrupted = atomic_load(&cli_cancel);
    cmp_data_free(&d);
    free(merge_files);
    if (interrupted)
        return CLI_EXIT_INTERRUPTED;
    return status;
}
