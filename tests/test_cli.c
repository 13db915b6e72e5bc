/*
 * test_cli.c - the quadsolve command as a script sees it (cli/): one output
 * line per input line, moves that really solve each cube, specific error
 * lines for bad input, JSON output, scrambles, random cubes, bench, and
 * exit codes. Runs the built binary (QUADSOLVE_CLI) through the shell.
 */
#include "testutil.h"

#include "qsservice.h"
#include "robot.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <zmq.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static const char *cli(void)
{
    const char *path = getenv("QUADSOLVE_CLI");
    if (!path || !*path)
        fail_msg("QUADSOLVE_CLI is not set");
    return path;
}

/* Runs "quadsolve ARGS" with `input` on standard input; returns the exit
 * status and the standard output (caller frees). */
static int run(const char *args, const char *input, char **out)
{
    char in_path[] = "/tmp/qs-cli-in.XXXXXX";
    int fd = mkstemp(in_path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(input ? input : "", f);
    fclose(f);
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s < %s 2>/dev/null", cli(), args,
             in_path);
    int rc = test_run(cmd, out);
    unlink(in_path);
    return rc;
}

static int run_sh(const char *cmd, char **out);

/* Splits text into lines in place; returns their number. */
static int lines_of(char *text, char **lines, int max)
{
    int n = 0;
    for (char *s = text; *s && n < max;) {
        char *nl = strchr(s, '\n');
        lines[n++] = s;
        if (!nl)
            break;
        *nl = 0;
        s = nl + 1;
    }
    return n;
}

static void assert_line_solves(const char *facelets, const char *moves_text)
{
    qs_cube c;
    qs_move moves[QS_MAX_MOVES];
    assert_int_equal(qs_cube_from_facelets(facelets, &c, NULL, 0), QS_OK);
    int n = qs_moves_parse(moves_text, moves, QS_MAX_MOVES, NULL, 0);
    if (n < 0)
        fail_msg("output '%s' is not a move sequence", moves_text);
    qs_cube_apply_moves(&c, moves, n);
    assert_true(qs_cube_is_solved(&c));
}

static void test_stdin_one_line_per_input(void **state)
{
    (void)state;
    char cubes[3][55];
    assert_int_equal(test_read_bench("random-1k.txt", cubes, 3), 3);
    char input[1024];
    snprintf(input, sizeof input,
             "%s\n"
             "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB\n"
             "%s\r\n"
             "\n"
             "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBF\n"
             "  %s  \n"
             "XYZ\n",
             cubes[0], cubes[1], cubes[2]);
    char *out, *lines[16];
    int status = run("solve --metric htm --time-ms 10", input, &out);
    int n = lines_of(out, lines, 16);
    assert_int_equal(n, 7);
    assert_line_solves(cubes[0], lines[0]);
    assert_string_equal(lines[1], "");        /* solved cube: no moves */
    assert_line_solves(cubes[1], lines[2]);   /* CR LF tolerated */
    assert_true(strncmp(lines[3], "error: LENGTH:", 14) == 0);
    assert_true(strncmp(lines[4], "error: COLOR_COUNT:", 19) == 0);
    assert_line_solves(cubes[2], lines[5]);   /* blanks around tolerated */
    assert_true(strncmp(lines[6], "error: ", 7) == 0);
    assert_int_equal(status, 1);              /* some inputs failed */
    free(out);

    /* A NUL byte is reported where it is, not taken as the line's end. */
    const char nul_line[] =
        "UUUU\0UUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB\n";
    char path[] = "/tmp/qs-cli-nul.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    assert_int_equal(write(fd, nul_line, sizeof nul_line - 1),
                     (ssize_t)(sizeof nul_line - 1));
    close(fd);
    char cmd[1200];
    snprintf(cmd, sizeof cmd, "'%s' solve < %s 2>/dev/null", cli(), path);
    FILE *p = popen(cmd, "r");
    char line[512] = "";
    assert_non_null(fgets(line, sizeof line, p));
    pclose(p);
    unlink(path);
    assert_true(strncmp(line, "error: CHARACTER:", 17) == 0);
    assert_non_null(strstr(line, "position 5"));
}

static void test_arguments_json_and_metrics(void **state)
{
    (void)state;
    char cubes[1][55];
    test_read_bench("random-1k.txt", cubes, 1);
    const char *metrics[] = {"htm", "qtm", "axht", "axqt"};
    for (int m = 0; m < 4; m++) {
        char args[512], *out;
        snprintf(args, sizeof args,
                 "solve --json --metric %s --solutions 3 --time-ms 20 %s",
                 metrics[m], cubes[0]);
        assert_int_equal(run(args, NULL, &out), 0);
        cJSON *j = cJSON_Parse(out);
        assert_non_null(j);
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
        const char *moves = cJSON_GetObjectItem(j, "moves")->valuestring;
        assert_line_solves(cubes[0], moves);
        cJSON *len = cJSON_GetObjectItem(cJSON_GetObjectItem(j, "length"),
                                         metrics[m]);
        qs_move mv[QS_MAX_MOVES];
        int n = qs_moves_parse(moves, mv, QS_MAX_MOVES, NULL, 0);
        assert_int_equal(len->valueint,
                         qs_moves_length(mv, n, qs_metric_parse(metrics[m])));
        cJSON *sols = cJSON_GetObjectItem(j, "solutions");
        assert_true(cJSON_GetArraySize(sols) >= 1);
        cJSON *s;
        cJSON_ArrayForEach(s, sols)
            assert_line_solves(cubes[0],
                               cJSON_GetObjectItem(s, "moves")->valuestring);
        cJSON_Delete(j);
        free(out);
    }
    /* A bad cube in JSON is an error object, never moves. */
    char *out;
    assert_int_equal(
        run("solve --json UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBF",
            NULL, &out),
        1);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_true(cJSON_IsFalse(cJSON_GetObjectItem(j, "ok")));
    assert_null(cJSON_GetObjectItem(j, "moves"));
    assert_string_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "error"),
                                            "code")->valuestring,
                        "COLOR_COUNT");
    cJSON_Delete(j);
    free(out);
}

static void test_scramble_and_errors(void **state)
{
    (void)state;
    char *out, *lines[4];
    /* The cube a scramble makes, solved and checked. */
    assert_int_equal(run("solve --scramble \"R U R' U' (F B') D2\"", NULL, &out),
                     0);
    lines_of(out, lines, 4);
    qs_cube c;
    qs_move mv[QS_MAX_MOVES];
    qs_cube_solved(&c);
    int n = qs_moves_parse("R U R' U' (F B') D2", mv, QS_MAX_MOVES, NULL, 0);
    qs_cube_apply_moves(&c, mv, n);
    char facelets[55];
    qs_cube_to_facelets(&c, facelets);
    assert_line_solves(facelets, lines[0]);
    free(out);

    assert_int_equal(run("solve --scramble \"R U X\"", NULL, &out), 1);
    assert_true(strncmp(out, "error: MOVE:", 12) == 0);
    free(out);
    /* Usage errors: exit 2. */
    assert_int_equal(run("solve --metric nope", NULL, &out), 2);
    free(out);
    assert_int_equal(run("solve --time-ms -3", NULL, &out), 2);
    free(out);
    assert_int_equal(run("frobnicate", NULL, &out), 2);
    free(out);
    assert_int_equal(run("solve --solutions 17", NULL, &out), 2);
    free(out);
    /* Issue 15, item 11: the metric error names every metric. */
    char cmd[512];
    snprintf(cmd, sizeof cmd, "'%s' solve --metric foo", cli());
    assert_int_equal(run_sh(cmd, &out), 2);
    assert_non_null(strstr(out, "htm, qtm, axht, axqt or robot"));
    free(out);
    /* Item 5: --json output is valid UTF-8 JSON whatever the input. */
    assert_int_equal(run("solve --json", "UUU\xff\xfe\x1b[2J\n", &out), 1);
    assert_int_equal(qsv_utf8_check(out, strlen(out)), strlen(out));
    cJSON *bad = cJSON_Parse(out);
    assert_non_null(bad);
    assert_non_null(strstr(cJSON_GetObjectItem(bad, "input")->valuestring,
                           "\\xff\\xfe"));
    cJSON_Delete(bad);
    free(out);
    /* Issue 15, item 9: more threads than a search may use is a usage
     * error, not a failure of every cube. */
    assert_int_equal(run("solve --threads 1024 --scramble \"R U\"", NULL,
                         &out),
                     2);
    free(out);
    assert_int_equal(run("bench --threads 257 -", "", &out), 2);
    free(out);
    /* --keep-warm: a period from 0 (off) to a minute; a bad one is a
     * usage error naming the option, a good one changes no answer. */
    char warm_cmd[1200];
    snprintf(warm_cmd, sizeof warm_cmd,
             "'%s' solve --keep-warm -1 --scramble \"R U\"", cli());
    assert_int_equal(run_sh(warm_cmd, &out), 2);
    assert_non_null(strstr(out, "--keep-warm: -1 is out of range"));
    free(out);
    assert_int_equal(run("bench --keep-warm 60001 -", "", &out), 2);
    free(out);
    assert_int_equal(run("solve --keep-warm 5x --scramble \"R U\"", NULL,
                         &out),
                     2);
    free(out);
    for (int k = 0; k < 2; k++) {
        assert_int_equal(run(k ? "solve --keep-warm 0 --scramble \"R U\""
                               : "solve --keep-warm 1 --scramble \"R U\"",
                             NULL, &out),
                         0);
        assert_string_equal(out, "U' R'\n");
        free(out);
    }

    /* Limits through the one solve pipeline (qsv_solve): this cube's
     * optimum is above 14 (solve --optimal --max-len 14 proves it), and
     * the two-phase search cannot exhaust 14 moves in 5 ms, so it runs out
     * of time with the TIMEOUT code; a cap above any two-phase length
     * means "the first solution". */
    const char *hard = "R U F D L B R2 U' F' D2 L B' R U2 F' D L2";
    char args[256];
    snprintf(args, sizeof args, "solve --max-len 14 --time-ms 5 --scramble \"%s\"",
             hard);
    assert_int_equal(run(args, NULL, &out), 1);
    assert_true(strncmp(out, "error: TIMEOUT: ", 16) == 0);
    free(out);
    assert_int_equal(run("solve --max-len 100 --scramble \"R U F D\"", NULL,
                         &out),
                     0);
    lines_of(out, lines, 4);
    qs_cube_solved(&c);
    n = qs_moves_parse("R U F D", mv, QS_MAX_MOVES, NULL, 0);
    qs_cube_apply_moves(&c, mv, n);
    qs_cube_to_facelets(&c, facelets);
    assert_line_solves(facelets, lines[0]);
    free(out);

    assert_int_equal(run("--version", NULL, &out), 0);
    assert_true(strstr(out, QS_VERSION) != NULL);
    free(out);
}

/* Runs a shell command on a pseudo-terminal (script), checks that it
 * succeeds and shows a progress bar with `count` ("/20, ") and the time
 * left; returns its output (caller frees). */
static char *progress_bar_of(const char *command, const char *count)
{
    char cmd[2048];
    char *out;
    snprintf(cmd, sizeof cmd, "script -qec \"%s\" /dev/null", command);
    assert_int_equal(run_sh(cmd, &out), 0);
    assert_non_null(strstr(out, count));
    assert_non_null(strstr(out, " s left"));
    return out;
}

static void test_random_and_bench(void **state)
{
    (void)state;
    char *out, *lines[64];
    assert_int_equal(run("random 20 --seed 7", NULL, &out), 0);
    int n = lines_of(out, lines, 64);
    assert_int_equal(n, 20);
    char text[20 * 56 + 1] = "";
    for (int i = 0; i < n; i++) {
        qs_cube c;
        assert_int_equal(qs_cube_from_facelets(lines[i], &c, NULL, 0), QS_OK);
        strcat(text, lines[i]);
        strcat(text, "\n");
    }
    free(out);
    /* bench verifies every solution; all must pass. */
    assert_int_equal(run("bench - --metric axht --time-ms 5", text, &out), 0);
    assert_non_null(strstr(out, "solved: 20 of 20 (0 failed)"));
    free(out);
    /* A file with a broken line fails with its line number. */
    assert_int_equal(run("bench - --time-ms 5",
                         "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBF\n",
                         &out),
                     1);
    assert_non_null(strstr(out, "line 1: COLOR_COUNT"));
    free(out);

    /* Several settings side by side: a run each, one report. */
    char dir[] = "/tmp/qs-bench.XXXXXX", cmd[1024];
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "%s/cubes", dir);
    FILE *f = fopen(cmd, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
    snprintf(cmd, sizeof cmd,
             "'%s' bench %s/cubes --metric htm,axht --time-ms 5,20 "
             "--limit 6 --html %s/report.html",
             cli(), dir, dir);
    assert_int_equal(run_sh(cmd, &out), 0);
    static const char *const runs[] = {"htm 5 ms", "htm 20 ms", "axht 5 ms",
                                       "axht 20 ms"};
    const char *at = out;
    for (int k = 0; k < 4; k++) {
        char head[64];
        snprintf(head, sizeof head, "== quadsolve %s\n", runs[k]);
        const char *h = strstr(at, head);
        if (!h)
            fail_msg("no run '%s' (in order) in:\n%s", runs[k], out);
        assert_non_null(strstr(h, "solved: 6 of 6 (0 failed)"));
        at = h + 1;
    }
    free(out);
    snprintf(cmd, sizeof cmd, "%s/report.html", dir);
    f = fopen(cmd, "r");
    assert_non_null(f);
    char *html = test_read_all(f);
    fclose(f);
    for (int k = 0; k < 4; k++) {
        char row[80];
        snprintf(row, sizeof row, "</span>quadsolve %s</td>", runs[k]);
        assert_non_null(strstr(html, row));
    }
    free(html);

    /* On a terminal, compare shows its progress with the time left, and
     * so does bench, over the cubes it will solve (here 7 of the 20). */
    snprintf(cmd, sizeof cmd, "'%s' solve --time-ms 5 < %s/cubes > %s/sol",
             cli(), dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "'%s' compare %s/cubes q=%s/sol", cli(), dir,
             dir);
    out = progress_bar_of(cmd, "/20, ");
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' bench %s/cubes --time-ms 5 --shard 1/2 "
             "--limit 7", cli(), dir);
    out = progress_bar_of(cmd, "/7, ");
    assert_non_null(strstr(out, "solved: 7 of 7 (0 failed)"));
    free(out);

    /* --shard K/N: solve and bench take every N-th cube from the K-th;
     * the shards of a file are its cubes, each once. */
    for (int k = 0; k < 3; k++) {
        snprintf(cmd, sizeof cmd,
                 "'%s' solve --json --time-ms 5 --shard %d/3 < %s/cubes", cli(),
                 k, dir);
        assert_int_equal(run_sh(cmd, &out), 0);
        char *sl[21];
        int ns = lines_of(out, sl, 21);
        assert_int_equal(ns, k < 2 ? 7 : 6);
        for (int i = 0; i < ns; i++) {
            cJSON *o = cJSON_Parse(sl[i]);
            assert_non_null(o);
            const char *in = cJSON_GetObjectItem(o, "input")->valuestring;
            /* Shard k's i-th cube is the file's (3i + k)-th. */
            const char *want = text;
            for (int skip = 3 * i + k; skip > 0; skip--)
                want = strchr(want, '\n') + 1;
            assert_memory_equal(in, want, 54);
            assert_true(cJSON_IsTrue(cJSON_GetObjectItem(o, "ok")));
            cJSON_Delete(o);
        }
        free(out);
        snprintf(cmd, sizeof cmd,
                 "'%s' bench %s/cubes --time-ms 5 --shard %d/3", cli(), dir,
                 k);
        assert_int_equal(run_sh(cmd, &out), 0);
        char want[64];
        snprintf(want, sizeof want, "solved: %d of %d (0 failed)",
                 k < 2 ? 7 : 6, k < 2 ? 7 : 6);
        assert_non_null(strstr(out, want));
        free(out);
    }
    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

static void test_tables_info(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run("tables info --metric htm", NULL, &out), 0);
    assert_non_null(strstr(out, "phase1"));
    assert_non_null(strstr(out, "phase2"));
    free(out);

    /* Issue 15, item 3: a FIFO at a table path hung `tables info` and
     * every solve; it is refused at once, by name. (At the first blob of
     * the set, so that nothing is generated.) */
    char dir[] = "/tmp/qs-cli-fifo-XXXXXX", path[256];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/htm-phase1.qst", dir);
    assert_int_equal(mkfifo(path, 0600), 0);
    const char *saved = getenv("QUADSOLVE_TABLES");
    char *old = saved ? strdup(saved) : NULL;
    setenv("QUADSOLVE_TABLES", dir, 1);
    /* An empty directory: the tables the default size uses are missing
     * (a failure), the optional one is only absent. */
    assert_int_equal(run("tables info --metric qtm", NULL, &out), 1);
    assert_non_null(strstr(out, "qtm-phase1         NOT_FOUND"));
    assert_non_null(strstr(out, "qtm-optimal        unused,absent"));
    free(out);
    assert_int_equal(run("tables info --metric htm", NULL, &out), 1);
    assert_non_null(strstr(out, "NOT_REGULAR"));
    assert_non_null(strstr(out, "not a regular file"));
    free(out);
    assert_int_equal(run("solve --metric htm --scramble \"R U\"", NULL, &out),
                     1);
    assert_non_null(strstr(out, "not a regular file"));
    free(out);
    if (old)
        setenv("QUADSOLVE_TABLES", old, 1);
    else
        unsetenv("QUADSOLVE_TABLES");
    free(old);
    unlink(path);
    rmdir(dir);
}

static void count_solution(void *ctx, const qs_solution *s)
{
    (void)s;
    ++*(int *)ctx;
}

/* solve --optimal --all: one line per optimal solution, each solving the
 * cube in the optimal length, no two alike, commuting opposite-face pairs
 * in parentheses, and as many lines as the library's own enumeration. */
/* The length in metric m of `solve --optimal --table-size SIZE_ARGS` on
 * scramble, whose one line must solve facelets. */
static int optimal_length(const char *size_args, const char *scramble,
                          const char *facelets, qs_metric m)
{
    char args[256], *out, *lines[4] = {NULL};
    snprintf(args, sizeof args,
             "solve --optimal --table-size %s --scramble \"%s\"", size_args,
             scramble);
    assert_int_equal(run(args, NULL, &out), 0);
    assert_int_equal(lines_of(out, lines, 4), 1);
    assert_line_solves(facelets, lines[0]);
    qs_move mv[QS_MAX_MOVES];
    int n = qs_moves_parse(lines[0], mv, QS_MAX_MOVES, NULL, 0);
    free(out);
    return qs_moves_length(mv, n, m);
}

/* --table-size h48, large+h48, compact, large and xl solve optimally like
 * the others (xl in QTM too, where it is the large set), and compact (no two-phase tables) leaves a two-phase solve on
 * the small set; the robot search solves with the medium size, which is
 * a usage error elsewhere; sizes that are not one, or the optimal-only
 * sizes for the robot tables, are usage errors. */
static void test_table_sizes(void **state)
{
    (void)state;
    const char *scramble = "R U F' D2 L B' U2";
    qs_move sm[QS_MAX_MOVES];
    int sn = qs_moves_parse(scramble, sm, QS_MAX_MOVES, NULL, 0);
    qs_cube cube;
    qs_cube_solved(&cube);
    qs_cube_apply_moves(&cube, sm, sn);
    char facelets[55], *out, *lines[4] = {NULL}, args[256];
    qs_cube_to_facelets(&cube, facelets);
    const char *sizes[] = {"h48", "large+h48", "compact", "large", "xl"};
    for (int i = 0; i < 5; i++)
        assert_int_equal(
            optimal_length(sizes[i], scramble, facelets, QS_METRIC_HTM), 7);
    /* in QTM, xl (the large set) finds the small set's optimum */
    assert_int_equal(
        optimal_length("xl --metric qtm", scramble, facelets, QS_METRIC_QTM),
        optimal_length("small --metric qtm", scramble, facelets,
                       QS_METRIC_QTM));
    snprintf(args, sizeof args, "solve --table-size compact --scramble \"%s\"",
             scramble);
    assert_int_equal(run(args, NULL, &out), 0);
    assert_int_equal(lines_of(out, lines, 4), 1);
    assert_line_solves(facelets, lines[0]);
    free(out);
    snprintf(args, sizeof args,
             "solve --metric robot --table-size medium --time-ms 5 "
             "--scramble \"%s\"",
             scramble);
    assert_int_equal(run(args, NULL, &out), 0);
    assert_int_equal(lines_of(out, lines, 4), 1);
    assert_line_solves(facelets, lines[0]);
    free(out);
    assert_int_equal(run("solve --table-size medium R", NULL, &out), 2);
    free(out);
    assert_int_equal(
        run("solve --optimal --metric robot --table-size medium R", NULL,
            &out),
        2);
    free(out);
    assert_int_equal(run("solve --optimal --table-size h47 R", NULL, &out), 2);
    free(out);
    assert_int_equal(run("tables info --robot h48", NULL, &out), 2);
    free(out);
    assert_int_equal(
        run("tables info --metric robot --robot medium", NULL, &out), 0);
    assert_non_null(strstr(out, "robot-corner-paths ok "));
    assert_non_null(strstr(out, "robot-phase1-moves ok,unused"));
    free(out);
    assert_int_equal(
        run("tables info --metric robot --robot small", NULL, &out), 0);
    assert_non_null(strstr(out, "robot-corner-paths ok,unused"));
    free(out);
    /* xl uses the extra-large table in HTM instead of the large one */
    assert_int_equal(run("tables info --metric htm --optimal xl", NULL, &out),
                     0);
    const char *names[] = {"htm-optimal-xl ", "htm-optimal "},
               *want[] = {"ok", "ok,unused"};
    for (int i = 0; i < 2; i++) {
        const char *line = strstr(out, names[i]);
        char name[64], status[32];
        assert_non_null(line);
        assert_int_equal(sscanf(line, "%63s %31s", name, status), 2);
        assert_string_equal(status, want[i]);
    }
    free(out);
}

static void test_optimal_all(void **state)
{
    (void)state;
    const char *scramble = "U2 D2 F2 B2 L2 R2"; /* six orders of three pairs */
    qs_move sm[QS_MAX_MOVES];
    int sn = qs_moves_parse(scramble, sm, QS_MAX_MOVES, NULL, 0);
    qs_cube cube;
    qs_cube_solved(&cube);
    qs_cube_apply_moves(&cube, sm, sn);
    char facelets[55];
    qs_cube_to_facelets(&cube, facelets);

    qtab_set *set = test_open_tables(QS_METRIC_HTM);
    qs_optimal_options o;
    qs_optimal_options_default(&o);
    o.all = 1;
    int expected = 0, n = 0;
    o.on_solution = count_solution;
    o.solution_ctx = &expected;
    qs_solution first[1];
    assert_int_equal(qs_solve_optimal(qtab_set_tables(set), &cube, &o, first,
                                      1, &n, NULL),
                     QS_OK);
    qtab_close(set);
    assert_true(expected > 1);

    char *out, *lines[256], args[256];
    snprintf(args, sizeof args,
             "solve --optimal --all --table-size small --scramble \"%s\"",
             scramble);
    assert_int_equal(run(args, NULL, &out), 0);
    int k = lines_of(out, lines, 256);
    if (k > 0 && lines[k - 1][0] == '\0')
        k--;
    assert_int_equal(k, expected);
    int pairs = 0;
    for (int i = 0; i < k; i++) {
        assert_line_solves(facelets, lines[i]);
        qs_move mv[QS_MAX_MOVES];
        int mn = qs_moves_parse(lines[i], mv, QS_MAX_MOVES, NULL, 0);
        assert_int_equal(qs_moves_length(mv, mn, QS_METRIC_HTM), 6);
        pairs += strchr(lines[i], '(') != NULL;
        for (int j = 0; j < i; j++)
            assert_string_not_equal(lines[i], lines[j]);
    }
    assert_true(pairs > 0);
    free(out);

    assert_int_not_equal(run("solve --all --scramble R", NULL, &out), 0);
    free(out);
}

/* solve --metric robot: cube-frame moves that solve the cube, and in
 * JSON the robot-frame plan, which `evaluate` reproduces exactly. */
static void test_robot_metric(void **state)
{
    (void)state;
    char cubes[2][55], args[1024], *out;
    test_read_bench("random-1k.txt", cubes, 2);
    snprintf(args, sizeof args,
             "solve --json --metric robot --solutions 2 --time-ms 20 "
             "--profile lego %s",
             cubes[1]);
    assert_int_equal(run(args, NULL, &out), 0);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
    const char *moves = cJSON_GetObjectItem(j, "moves")->valuestring;
    assert_line_solves(cubes[1], moves);
    const char *robot = cJSON_GetObjectItem(j, "robot")->valuestring;
    int robot_moves = cJSON_GetObjectItem(j, "robot_moves")->valueint;
    double cost = cJSON_GetObjectItem(j, "cost_ms")->valuedouble;
    assert_true(robot_moves >= 15 && robot_moves <= 26);
    assert_true(cost > 0);
    assert_string_equal(cJSON_GetObjectItem(j, "profile")->valuestring,
                        "lego");
    assert_int_equal(cJSON_GetObjectItem(cJSON_GetObjectItem(j, "length"),
                                         "axht")->valueint >= 1, 1);
    assert_true(strlen(robot) > 0);
    cJSON *sols = cJSON_GetObjectItem(j, "solutions"), *s;
    cJSON_ArrayForEach(s, sols) {
        assert_line_solves(cubes[1],
                           cJSON_GetObjectItem(s, "moves")->valuestring);
        assert_int_equal(cJSON_GetObjectItem(s, "length")->valueint,
                         cJSON_GetObjectItem(s, "robot_moves")->valueint);
    }
    /* The independent evaluation of the same moves: the same counts. */
    char *eval;
    snprintf(args, sizeof args,
             "evaluate --json --profile lego --facelets %s \"%s\"", cubes[1],
             moves);
    assert_int_equal(run(args, NULL, &eval), 0);
    cJSON *e = cJSON_Parse(eval);
    assert_non_null(e);
    assert_int_equal(cJSON_GetObjectItem(e, "robot_moves")->valueint,
                     robot_moves);
    assert_true(cJSON_GetObjectItem(e, "cost_ms")->valuedouble == cost);
    cJSON_Delete(e);
    free(eval);
    /* evaluate --robot reads a robot-frame plan (here ours, as another
     * solver would print it): its cube-frame turns are planned again, to
     * the same counts. */
    snprintf(args, sizeof args,
             "evaluate --json --robot --profile lego --facelets %s \"%s\"",
             cubes[1], robot);
    assert_int_equal(run(args, NULL, &eval), 0);
    e = cJSON_Parse(eval);
    assert_non_null(e);
    assert_int_equal(cJSON_GetObjectItem(e, "robot_moves")->valueint,
                     robot_moves);
    assert_string_equal(cJSON_GetObjectItem(e, "moves")->valuestring, moves);
    cJSON_Delete(e);
    free(eval);
    /* A plan that cannot be executed as written is refused, by step. */
    assert_int_equal(run("evaluate --robot \"tRL R B\"", NULL, &eval), 1);
    assert_non_null(strstr(eval, "error: COLLISION: the given plan: step 3"));
    free(eval);
    cJSON_Delete(j);
    free(out);

    /* Text output: one line of moves per input, as in other metrics. */
    assert_int_equal(run("solve --metric robot --time-ms 10", cubes[0], &out),
                     0);
    char *lines[4];
    assert_int_equal(lines_of(out, lines, 4), 1);
    assert_line_solves(cubes[0], lines[0]);
    free(out);

    /* Bad robot options are usage errors. */
    assert_int_equal(run("solve --metric robot --profile nosuch R", NULL,
                         &out), 2);
    free(out);
    assert_int_equal(run("solve --metric robot --objective fast R", NULL,
                         &out), 2);
    free(out);
}

/* Runs a shell command; returns its exit status and its standard output
 * and error together (caller frees). */
static int run_sh(const char *cmd, char **out)
{
    char full[8192];
    snprintf(full, sizeof full, "( %s ) 2>&1", cmd);
    return test_run(full, out);
}

static void write_file(const char *path, const char *text)
{
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(text, f);
    fclose(f);
}

/* Our robot plan written as qphase prints one: every step a name and its
 * parallel regrips in brackets ("g" for regrips alone), then its count. */
static void to_qphase(const char *robot, int count, char *out, size_t len)
{
    robot_step steps[ROBOT_MAX_STEPS];
    int n = robot_steps_parse(robot, steps, ROBOT_MAX_STEPS, NULL, 0);
    assert_true(n >= 0);
    size_t used = 0;
    out[0] = '\0';
    for (int i = 0; i < n; i++) {
        char one[64], name[64] = "g", regrips[64] = "";
        robot_steps_format(&steps[i], 1, one, sizeof one);
        /* "X+rA+rB" or "rA+rB": '+' separates regrips from the name. */
        char *plus = strchr(one, '+');
        if (one[0] == 'r' && one[1] != '\0' && strchr("RLFB", one[1]) &&
            (one[2] == '\0' || one[2] == '+')) {
            snprintf(regrips, sizeof regrips, "%s", one);
        } else if (plus) {
            *plus = '\0';
            snprintf(name, sizeof name, "%s", one);
            snprintf(regrips, sizeof regrips, "%s", plus + 1);
        } else {
            snprintf(name, sizeof name, "%s", one);
        }
        for (char *c = regrips; *c; c++)
            if (*c == '+')
                *c = ' ';
        used += (size_t)snprintf(out + used, len - used, "%s [%s] ", name,
                                 regrips);
    }
    snprintf(out + used, len - used, "{%d | 0.0}", count);
}

/* No byte below 0x20 but the newline, and valid UTF-8: what a terminal
 * or a JSON reader can take. */
static void assert_clean_text(const char *text)
{
    size_t n = strlen(text);
    assert_int_equal(qs_utf8_check(text, n), n);
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)text[i] < 0x20 && text[i] != '\n')
            fail_msg("control byte 0x%02x at %zu in %s", text[i], i, text);
}

/* Issue 15, item 11: error lines show input that is not UTF-8 or holds
 * control bytes (a terminal escape here) quoted, never raw (the --json
 * line is checked in test_scramble_and_errors). */
static void test_hostile_input(void **state)
{
    (void)state;
    char *out;
    assert_int_equal(run("solve --metric htm", "UUU\xff\x1b[2J\n", &out), 1);
    assert_true(strncmp(out, "error: LENGTH:", 14) == 0);
    assert_clean_text(out);
    free(out);
    assert_int_equal(run("solve --metric htm --scramble \"$(printf 'R \\033[2J')\"",
                         NULL, &out),
                     1);
    assert_true(strncmp(out, "error: MOVE:", 12) == 0);
    assert_non_null(strstr(out, "\\x1b[2J"));
    assert_clean_text(out);
    free(out);
}

/* A daemon that answers pings, and each solve with the next of these
 * error replies (%s is the request's id): a terminal escape in the
 * message, then a message that is not UTF-8. */
static const char *const hostile_replies[] = {
    "{\"id\":%s,\"type\":\"error\",\"error\":{\"code\":\"BUSY\","
    "\"message\":\"evil \\u001b[2J text\"}}",
    "{\"id\":%s,\"type\":\"error\",\"error\":{\"code\":\"BUSY\","
    "\"message\":\"caf\xc3\"}}",
};

static void *hostile_daemon(void *router)
{
    int solves = 0;
    while (solves < 2) {
        char identity[256], frame[4096], reply[8192];
        int idlen = zmq_recv(router, identity, sizeof identity, 0);
        int n = zmq_recv(router, frame, sizeof frame - 1, 0);
        if (idlen < 0 || n < 0)
            break;
        frame[n] = '\0';
        cJSON *o = cJSON_Parse(frame);
        char *id = o ? cJSON_PrintUnformatted(
                           cJSON_GetObjectItemCaseSensitive(o, "id"))
                     : NULL;
        const char *op = o ? cJSON_GetObjectItemCaseSensitive(o, "op")
                                 ->valuestring
                           : "";
        if (strcmp(op, "ping") == 0)
            snprintf(reply, sizeof reply,
                     "{\"id\":%s,\"type\":\"pong\"}", id);
        else
            snprintf(reply, sizeof reply, hostile_replies[solves++], id);
        free(id);
        cJSON_Delete(o);
        zmq_send(router, identity, (size_t)idlen, ZMQ_SNDMORE);
        zmq_send(router, reply, strlen(reply), 0);
    }
    return NULL;
}

/* Issue 15, items 5 and 11 through --server: what a daemon says is shown
 * as clean text too: a control byte in its message quoted, a reply that
 * is not UTF-8 refused as PROTOCOL. */
static void test_hostile_server(void **state)
{
    (void)state;
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    assert_int_equal(zmq_bind(router, "tcp://127.0.0.1:*"), 0);
    char ep[256];
    size_t len = sizeof ep;
    zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, ep, &len);
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, hostile_daemon, router), 0);
    char args[512], *out;
    snprintf(args, sizeof args,
             "solve --server %s --metric htm --scramble R --scramble U", ep);
    assert_int_equal(run(args, NULL, &out), 1);
    pthread_join(t, NULL);
    assert_clean_text(out);
    char *lines[4];
    assert_int_equal(lines_of(out, lines, 4), 2);
    assert_string_equal(lines[0], "error: BUSY: evil \\x1b[2J text");
    assert_true(strncmp(lines[1], "error: PROTOCOL:", 16) == 0);
    assert_non_null(strstr(lines[1], "not valid UTF-8"));
    free(out);
    int linger = 0;
    zmq_setsockopt(router, ZMQ_LINGER, &linger, sizeof linger);
    zmq_close(router);
    zmq_ctx_term(ctx);
}

/* --server-timeout-ms is how long the tool waits for a daemon that does
 * not answer (here a socket that reads and never replies): the one ping
 * goes unanswered for that long and the tool says so, exit 1. */
static void test_server_timeout(void **state)
{
    (void)state;
    void *ctx = zmq_ctx_new();
    void *router = zmq_socket(ctx, ZMQ_ROUTER);
    int linger = 0;
    zmq_setsockopt(router, ZMQ_LINGER, &linger, sizeof linger);
    assert_int_equal(zmq_bind(router, "tcp://127.0.0.1:*"), 0);
    char ep[256], cmd[1024], *out;
    size_t len = sizeof ep;
    zmq_getsockopt(router, ZMQ_LAST_ENDPOINT, ep, &len);
    snprintf(cmd, sizeof cmd,
             "'%s' solve --server %s --server-timeout-ms 300 --scramble R "
             "--scramble U 2>&1",
             cli(), ep);
    assert_int_equal(run_sh(cmd, &out), 1);
    char *lines[4];
    assert_int_equal(lines_of(out, lines, 4), 1);
    assert_non_null(strstr(lines[0], "no reply from the daemon within 300 ms"));
    free(out);
    snprintf(cmd, sizeof cmd,
             "'%s' solve --server %s --server-timeout-ms 0 --scramble R 2>&1",
             cli(), ep);
    assert_int_equal(run_sh(cmd, &out), 2);
    assert_non_null(strstr(out, "--server-timeout-ms"));
    free(out);
    zmq_close(router);
    zmq_ctx_term(ctx);
}

static void test_compare_formats(void **state)
{
    (void)state;
    char *out, cmd[2048], cubes[3][60];
    char dir[] = "/tmp/qs-compare.XXXXXX";
    assert_non_null(mkdtemp(dir));
    snprintf(cmd, sizeof cmd, "'%s' random 3 --seed 5 > %s/cubes", cli(), dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd,
             "'%s' solve --metric robot --json --time-ms 20 < %s/cubes > "
             "%s/robot.json",
             cli(), dir, dir);
    assert_int_equal(system(cmd), 0);
    snprintf(cmd, sizeof cmd, "%s/cubes", dir);
    FILE *f = fopen(cmd, "r");
    for (int i = 0; i < 3; i++)
        assert_int_equal(fscanf(f, "%59s", cubes[i]), 1);
    fclose(f);

    /* Plain face turns: line 1 with a count as some solvers print it,
     * line 2 a sequence that does not solve its cube, line 3 garbage. */
    snprintf(cmd, sizeof cmd, "'%s' solve --time-ms 20 < %s/cubes", cli(),
             dir);
    assert_int_equal(run_sh(cmd, &out), 0);
    char *lines[4];
    assert_int_equal(lines_of(out, lines, 4), 3);
    char plain[4096];
    snprintf(plain, sizeof plain, "%s (%df)\nR U R'\nR X2\n", lines[0],
             (int)(strlen(lines[0]) + 2) / 3);
    free(out);
    snprintf(cmd, sizeof cmd, "%s/plain.txt", dir);
    write_file(cmd, plain);

    /* qphase's lines, made from our own robot plans. */
    snprintf(cmd, sizeof cmd, "%s/robot.json", dir);
    f = fopen(cmd, "r");
    char json[8192], qp[8192] = "";
    size_t used = 0;
    qs_move first_moves[3][QS_MAX_MOVES];
    int first_n[3];
    for (int i = 0; i < 3; i++) {
        assert_non_null(fgets(json, sizeof json, f));
        cJSON *o = cJSON_Parse(json);
        char line[4096];
        to_qphase(cJSON_GetObjectItem(o, "robot")->valuestring,
                  cJSON_GetObjectItem(o, "robot_moves")->valueint, line,
                  sizeof line);
        first_n[i] = qs_moves_parse(
            cJSON_GetObjectItem(o, "moves")->valuestring, first_moves[i],
            QS_MAX_MOVES, NULL, 0);
        used += (size_t)snprintf(qp + used, sizeof qp - used, "%s\n", line);
        cJSON_Delete(o);
    }
    fclose(f);
    snprintf(cmd, sizeof cmd, "%s/qphase.txt", dir);
    write_file(cmd, qp);

    snprintf(cmd, sizeof cmd,
             "cd %s && '%s' compare cubes ours=robot.json plain=plain.txt "
             "qphase=qphase.txt --json > out.json",
             dir, cli());
    int rc = run_sh(cmd, &out);
    if (rc != 1 || !strstr(out, "plain.txt line 2"))
        print_message("compare said: %s\n", out);
    assert_int_equal(rc, 1); /* two plain lines were wrong */
    assert_non_null(strstr(out, "plain: plain.txt line 2: does not solve "
                                "the cube"));
    assert_non_null(strstr(out, "plain: plain.txt line 3: "));
    assert_null(strstr(out, "line 1:"));
    assert_null(strstr(out, "ours:"));
    assert_null(strstr(out, "qphase:"));
    free(out);

    snprintf(cmd, sizeof cmd, "%s/out.json", dir);
    f = fopen(cmd, "r");
    assert_non_null(fgets(json, sizeof json, f));
    cJSON *header = cJSON_Parse(json);
    cJSON *h = cJSON_GetObjectItem(header, "compare");
    assert_non_null(h);
    assert_int_equal(cJSON_GetObjectItem(h, "cubes")->valueint, 3);
    cJSON_Delete(header);
    for (int i = 0; i < 3; i++) {
        assert_non_null(fgets(json, sizeof json, f));
        cJSON *o = cJSON_Parse(json);
        assert_string_equal(cJSON_GetObjectItem(o, "facelets")->valuestring,
                            cubes[i]);
        cJSON *sols = cJSON_GetObjectItem(o, "solutions");
        cJSON *ours = cJSON_GetObjectItem(sols, "ours");
        cJSON *pl = cJSON_GetObjectItem(sols, "plain");
        cJSON *q = cJSON_GetObjectItem(sols, "qphase");
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(ours, "ok")));
        assert_true(cJSON_IsTrue(cJSON_GetObjectItem(q, "ok")));
        assert_int_equal(cJSON_IsTrue(cJSON_GetObjectItem(pl, "ok")), i == 0);
        /* The qphase line replays to the very turns of our plan, and its
         * plan is no longer than ours. */
        qs_move m[QS_MAX_MOVES];
        int n = qs_moves_parse(cJSON_GetObjectItem(q, "moves")->valuestring,
                               m, QS_MAX_MOVES, NULL, 0);
        assert_int_equal(n, first_n[i]);
        assert_memory_equal(m, first_moves[i], (size_t)n);
        cJSON *qr = cJSON_GetObjectItem(cJSON_GetObjectItem(q, "robot"),
                                        "default");
        cJSON *orr = cJSON_GetObjectItem(cJSON_GetObjectItem(ours, "robot"),
                                         "default");
        assert_true(cJSON_GetObjectItem(qr, "robot_moves")->valueint <=
                    cJSON_GetObjectItem(orr, "robot_moves")->valueint);
        cJSON_Delete(o);
    }
    fclose(f);

    /* Shards: each takes its cubes, and merged they are the whole run,
     * line for line; a missing or repeated shard is refused. */
    snprintf(cmd, sizeof cmd,
             "cd %s && for k in 0 1; do '%s' compare cubes ours=robot.json "
             "qphase=qphase.txt --json --shard $k/2 > s$k.json || exit 1; "
             "done && '%s' compare cubes ours=robot.json qphase=qphase.txt "
             "--json > all.json && '%s' compare --merge s1.json s0.json "
             "--json > merged.json && cmp all.json merged.json",
             dir, cli(), cli(), cli());
    assert_int_equal(run_sh(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "cd %s && '%s' compare --merge s0.json", dir,
             cli());
    assert_int_equal(run_sh(cmd, &out), 1);
    assert_non_null(strstr(out, "cube 2 is missing"));
    free(out);
    snprintf(cmd, sizeof cmd,
             "cd %s && '%s' compare --merge s0.json s1.json s0.json", dir,
             cli());
    assert_int_equal(run_sh(cmd, &out), 1);
    assert_non_null(strstr(out, "appears twice"));
    free(out);

    /* A solver's own failure line, and a qphase line with a bad step, are
     * reported by line and not counted; each line is read on its own. */
    snprintf(cmd, sizeof cmd,
             "cd %s && (head -n 1 robot.json; echo 'error: TIMEOUT: no "
             "solution within 10 ms'; echo 'R [rX] {1 | 0}') > mixed.txt && "
             "'%s' compare cubes x=mixed.txt --json",
             dir, cli());
    assert_int_equal(run_sh(cmd, &out), 1);
    assert_non_null(strstr(out, "x: mixed.txt line 2: the solver failed: "
                                "TIMEOUT: no solution within 10 ms"));
    assert_non_null(strstr(out, "x: mixed.txt line 3: qphase steps: bad "
                                "step \"R+rX\""));
    assert_null(strstr(out, "line 1:"));
    assert_non_null(strstr(out, "\"ok\":true"));
    free(out);

    /* CSV: a header and a row per solution and profile. */
    snprintf(cmd, sizeof cmd,
             "cd %s && '%s' compare cubes ours=robot.json --csv --profile "
             "default --profile lego",
             dir, cli());
    assert_int_equal(run_sh(cmd, &out), 0);
    assert_int_equal(lines_of(out, lines, 4), 4);
    assert_string_equal(lines[0], "cube,label,ok,error,htm,qtm,axht,axqt,"
                                  "profile,robot_moves,tilts,full_regrips,"
                                  "cost_ms");
    assert_non_null(strstr(lines[1], ",default,"));
    assert_non_null(strstr(lines[2], ",lego,"));
    free(out);

    /* --timeline N: the report draws cube N's timelines, one per solver
     * that solved it, and says which solver did not; a cube that is not
     * there is an error, not a report without it. */
    snprintf(cmd, sizeof cmd,
             "cd %s && '%s' compare cubes ours=robot.json plain=plain.txt "
             "qphase=qphase.txt --html tl.html --timeline 2 > /dev/null; "
             "cat tl.html",
             dir, cli());
    assert_int_equal(run_sh(cmd, &out), 0);
    int gantts = 0;
    for (const char *p = out; (p = strstr(p, "<svg class=\"gantt\"")); p++)
        gantts++;
    assert_int_equal(gantts, 2);
    assert_non_null(strstr(out, "cube 2, chosen (ours, profile default)"));
    assert_non_null(strstr(out, "cube 2, chosen (qphase, profile default)"));
    assert_non_null(strstr(out, "Cube 2: plain has no solution of it"));
    assert_null(strstr(out, "the median by cost"));
    free(out);
    snprintf(cmd, sizeof cmd,
             "cd %s && '%s' compare cubes ours=robot.json --html t4.html "
             "--timeline 4 > /dev/null; test ! -e t4.html",
             dir, cli());
    assert_int_equal(run_sh(cmd, &out), 0);
    assert_non_null(strstr(out, "--timeline 4: no such cube (3 cubes)"));
    free(out);
    snprintf(cmd, sizeof cmd, "'%s' compare x q=y --timeline 1", cli());
    assert_int_equal(run_sh(cmd, &out), 2);
    assert_non_null(strstr(out, "--timeline goes with --html"));
    free(out);

    snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
    assert_int_equal(system(cmd), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_stdin_one_line_per_input),
        cmocka_unit_test(test_arguments_json_and_metrics),
        cmocka_unit_test(test_scramble_and_errors),
        cmocka_unit_test(test_hostile_input),
        cmocka_unit_test(test_hostile_server),
        cmocka_unit_test(test_server_timeout),
        cmocka_unit_test(test_random_and_bench),
        cmocka_unit_test(test_tables_info),
        cmocka_unit_test(test_robot_metric),
        cmocka_unit_test(test_optimal_all),
        cmocka_unit_test(test_table_sizes),
        cmocka_unit_test(test_compare_formats),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
