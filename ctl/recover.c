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
    /* The same turns of the positions where the faces now are. */
    int face[2], quarters[2], at[2] = {0, 0};
    int k = qs_move_decompose(m, face, quarters);
    for (int i = 0; i < k; i++)
        at[i] = position_of(w, face[i]);
    int v = qs_move_compose(k, at, quarters);
    return v < 0 ? m : (qs_move)v;
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
