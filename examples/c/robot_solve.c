/*
 * robot_solve.c - a robot program's use of libquadsolve: open the robot
 * metric's tables once (generated into the cache on first use), then for
 * each cube given (a facelet string, or a scramble with -s) find a
 * solution in robot moves within 50 ms, print the plan the arms execute
 * and check it on the library's independent model of the robot.
 *
 * Build against an installed libquadsolve:
 *   cc robot_solve.c $(pkg-config --cflags --libs quadsolve) -o robot_solve
 * Run:
 *   ./robot_solve -s "R U2 F' L D"
 *   ./robot_solve DRBLUUDDUFRDRRLRFLFFLBFDULUBFFRDUBUULBRLLDRBRLFFDBUBBD
 */
#include <quadsolve.h>
#include <qtab.h>
#include <robot.h>

#include <stdio.h>
#include <string.h>

int main(int argc, char **argv)
{
    if (argc < 2) {
        fprintf(stderr, "usage: %s FACELETS | -s SCRAMBLE\n", argv[0]);
        return 2;
    }
    qs_cube cube;
    char detail[256];
    if (strcmp(argv[1], "-s") == 0 && argc > 2) {
        qs_move moves[QS_MAX_MOVES];
        int n = qs_moves_parse(argv[2], moves, QS_MAX_MOVES, detail,
                               sizeof detail);
        if (n < 0) {
            fprintf(stderr, "scramble: %s: %s\n", qs_errcode(n), detail);
            return 1;
        }
        qs_cube_solved(&cube);
        qs_cube_apply_moves(&cube, moves, n);
    } else if (qs_cube_from_facelets(argv[1], &cube, detail,
                                     sizeof detail) != QS_OK) {
        fprintf(stderr, "cube: %s\n", detail);
        return 1;
    }

    /* The small robot tables: enough for a robot computer with 1 GB. */
    qtab_options to;
    qtab_options_default(&to);
    to.robot = QTAB_ROBOT_SMALL;
    qtab_set *set = NULL;
    int rc = qtab_open(QS_METRIC_ROBOT, &to, &set);
    if (rc != QTAB_OK) {
        fprintf(stderr, "tables: %s\n", qtab_strerror(rc));
        return 1;
    }

    robot_model model;
    robot_model_init(&model);
    robot_profile profile;
    robot_profile_builtin("default", &profile);
    robot_solve_options o;
    robot_solve_options_default(&o);
    o.threads = 2;
    o.time_ms = 50;
    robot_solution s;
    int n = 0;
    qs_stats stats;
    rc = robot_solve(qtab_set_tables(set), &model, &profile, &cube, &o, &s, 1,
                     &n, &stats);
    if (rc != ROBOT_OK || n != 1) {
        fprintf(stderr, "solve: %s\n", robot_strerror(rc));
        qtab_close(set);
        return 1;
    }
    char plan[ROBOT_MAX_STEPS * 20 + 1];
    robot_steps_format(s.plan.steps, s.plan.n, plan, sizeof plan);
    /* Trust, but verify: the plan replayed on the robot's physics. */
    rc = robot_check(&s.plan, &cube, &profile, detail, sizeof detail);
    printf("%s\n%d robot moves, %.0f ms (%s)\n", plan, s.plan.robot_moves,
           s.plan.cost_ms, rc == ROBOT_OK ? "checked" : detail);
    qtab_close(set);
    return rc == ROBOT_OK ? 0 : 1;
}
