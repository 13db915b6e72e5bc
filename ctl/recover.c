/*
 * recover.c - where the robot and the cube are after a partial execution.
 *
 * Only the primitives the firmware confirmed done count. A robot step acts
 * on the cube and its orientation in its MOTION primitive, so the steps
 * whose motion was confirmed are replayed on the controller's own
 * robot_sim; an opening before it changes nothing, and a missing closing
 * is made good by homing. The replay runs on one robot_sim for the whole
 * run (the "world", in the cube's own frame), across attempts, so the
 * cube it holds can be compared with a firmware's STATUS cube, and its
 * view from the robot (robot_sim_view) is what the next plan solves.
 */
#include "ctl.h"

#include <string.h>

/* Robot positions U R F D L B as unit vectors (robot_sim's frame). */
static const int8_t position_dir[6][3] = {{0, 1, 0},  {1, 0, 0},
                                          {0, 0, 1},  {0, -1, 0},
                                          {-1, 0, 0}, {0, 0, -1}};

static int position_of(const robot_sim *w, int face)
{
    for (int p = 0; p < 6; p++)
        if (memcmp(w->normal[face], position_dir[p], 3) == 0)
            return p;
    return 0;
}

qs_move ctl_view_move(const robot_sim *w, qs_move m)
{
    if (m < 18)
        return (qs_move)(position_of(w, m / 3) * 3 + m % 3);
    int axis = (m - 18) / 9, q0 = (m - 18) / 3 % 3, q1 = (m - 18) % 3;
    int p0 = position_of(w, axis), p1 = position_of(w, axis + 3);
    /* A pair is written with its U, R or F face first. */
    if (p0 > p1) {
        int t = p0;
        p0 = p1;
        p1 = t;
        t = q0;
        q0 = q1;
        q1 = t;
    }
    (void)p1;
    return (qs_move)(18 + p0 * 9 + q0 * 3 + q1);
}

int ctl_replay_done(robot_sim *world, const robot_step *plan, int n,
                    const robot_prim *prims, int n_prims, int done,
                    int *turns)
{
    int applied = 0, t = 0;
    if (done > n_prims)
        done = n_prims;
    for (int i = 0; i < done; i++) {
        if (prims[i].role != ROBOT_PRIM_MOTION)
            continue;
        int k = prims[i].step;
        if (k != applied || k >= n)
            return ROBOT_ERR_ARGUMENT;
        int rc = robot_sim_step(world, &plan[k], NULL, NULL, 0);
        if (rc != ROBOT_OK)
            return rc;
        applied++;
        t += plan[k].kind == ROBOT_STEP_TURN;
    }
    if (turns)
        *turns = t;
    return applied;
}
