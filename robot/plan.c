/*
 * plan.c - robot_plan: the best robot execution of a cube-frame solution.
 *
 * Dynamic programming over nodes (orientation, gripper state), 24 x 7 =
 * 168 of them, one layer per cube move. Within a layer, tilts and full
 * regrips move between nodes without doing the move; they form a graph
 * with positive step costs, so each layer is closed under them with
 * Dijkstra's algorithm (which also allows tilting early or twice). Then
 * the move itself, mapped to the robot frame by the node's orientation,
 * leads to the next layer with every legal parallel regrip mask. Costs
 * are compared lexicographically, so the result is exactly optimal for
 * the objective, not a heuristic.
 */
#include "robot.h"

#include <stdlib.h>
#include <string.h>

#define NODES (ROBOT_ORIENTATIONS * ROBOT_STATES)
#define NONE (-1)

/* A path cost: primary and secondary criteria (robot moves and
 * microseconds, in the objective's order), safe turns (more is better),
 * regripped grippers (fewer is better). */
typedef struct {
    int64_t a, b;
    int safe, regrips;
    int reached;
} cost;

/* How a node was reached: from node `from` by step `step` (within a layer
 * a tilt or full regrip, from == NONE for the layer's entry; between
 * layers the turn). */
typedef struct {
    int16_t from;
    robot_step step;
} link;

/* A tilt or full regrip from some gripper state: the step, the state it
 * leads to and its duration. */
typedef struct {
    robot_step step;
    int8_t to;
    int64_t us;
} extra;

/* Tilts (2 x 4 masks) and full regrips (15 masks) per state, at most. */
#define MAX_EXTRAS 23

typedef struct {
    cost entry[NODES], closed[NODES];
    /* [layer][node], n + 1 layers each, allocated with the workspace */
    link (*entry_link)[NODES];
    link (*closed_link)[NODES];
    extra extras[ROBOT_STATES][MAX_EXTRAS];
    int n_extras[ROBOT_STATES];
} workspace;

static int better(const cost *x, const cost *y)
{
    if (!y->reached)
        return x->reached;
    if (!x->reached)
        return 0;
    if (x->a != y->a)
        return x->a < y->a;
    if (x->b != y->b)
        return x->b < y->b;
    if (x->safe != y->safe)
        return x->safe > y->safe;
    return x->regrips < y->regrips;
}

static int popcount4(unsigned x)
{
    return (x & 1) + (x >> 1 & 1) + (x >> 2 & 1) + (x >> 3 & 1);
}

/* c plus one step of duration us, safe or not, regripping r grippers. */
static cost add_step(const cost *c, robot_objective obj, int64_t us,
                     int safe, unsigned r)
{
    cost d = *c;
    if (obj == ROBOT_OBJ_MOVES) {
        d.a += 1;
        d.b += us;
    } else {
        d.a += us;
        d.b += 1;
    }
    d.safe += safe;
    d.regrips += popcount4(r);
    return d;
}

/* Lists the legal tilts and full regrips of every gripper state once, so
 * the per-layer search only walks them. */
static void list_extras(const robot_model *m, const robot_profile *p,
                        workspace *w)
{
    for (int g = 0; g < ROBOT_STATES; g++) {
        int n = 0;
        for (int op = ROBOT_OP_TILT_RL; op <= ROBOT_OP_REGRIP; op++)
            for (unsigned r = 0; r < 16; r++) {
                int g2 = m->next_state[g][op][r];
                /* A full regrip of nobody is qphase's no-op: skip it. */
                if (g2 < 0 || (op == ROBOT_OP_REGRIP && r == 0))
                    continue;
                extra *e = &w->extras[g][n++];
                memset(e, 0, sizeof *e);
                if (op == ROBOT_OP_REGRIP) {
                    e->step.kind = ROBOT_STEP_REGRIP;
                } else {
                    e->step.kind = ROBOT_STEP_TILT;
                    e->step.arg = (uint8_t)(op - ROBOT_OP_TILT_RL);
                }
                e->step.regrips = (uint8_t)r;
                e->to = (int8_t)g2;
                e->us = robot_step_us(p, &e->step);
            }
        w->n_extras[g] = n;
    }
}

/* Closes layer k under tilts and full regrips: closed = the cheapest way
 * to reach each node from some entry node of the layer. */
/* Relaxes the tilts and full regrips out of node u (final) of layer k;
 * returns how many nodes improved. Nodes reached for the first time are
 * appended to open when it is not NULL. */
static int relax(const robot_model *m, robot_objective obj, workspace *w,
                 int k, int u, const int *done, int *open, int *n_open)
{
    int o = u / ROBOT_STATES, g = u % ROBOT_STATES, improved = 0;
    for (int i = 0; i < w->n_extras[g]; i++) {
        const extra *e = &w->extras[g][i];
        int o2 = e->step.kind == ROBOT_STEP_TILT ? m->tilt[o][e->step.arg] : o;
        int v = o2 * ROBOT_STATES + e->to;
        if (done[v])
            continue;
        cost c = add_step(&w->closed[u], obj, e->us, 0, e->step.regrips);
        if (better(&c, &w->closed[v])) {
            if (open && !w->closed[v].reached)
                open[(*n_open)++] = v;
            w->closed[v] = c;
            w->closed_link[k][v].from = (int16_t)u;
            w->closed_link[k][v].step = e->step;
            improved++;
        }
    }
    return improved;
}

static void close_layer(const robot_model *m, robot_objective obj,
                        workspace *w, int k)
{
    int done[NODES] = {0}, open[NODES], n_open = 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    memcpy(w->closed, w->entry, sizeof w->closed);
    for (int v = 0; v < NODES; v++) {
        w->closed_link[k][v].from = NONE;
        memset(&w->closed_link[k][v].step, 0, sizeof(robot_step));
        if (w->closed[v].reached) {
            open[n_open++] = v;
            lo = w->closed[v].a < lo ? w->closed[v].a : lo;
            hi = w->closed[v].a > hi ? w->closed[v].a : hi;
        }
    }
    if (obj == ROBOT_OBJ_MOVES) {
        /* Every tilt or regrip adds exactly one move, so the nodes of a
         * move count are final once the count below is done: a breadth-
         * first sweep by count replaces Dijkstra's selection. */
        for (int64_t a = lo; a <= hi; a++)
            for (int v = 0; v < NODES; v++)
                if (!done[v] && w->closed[v].reached &&
                    w->closed[v].a == a) {
                    done[v] = 1;
                    if (relax(m, obj, w, k, v, done, NULL, NULL) && a + 1 > hi)
                        hi = a + 1;
                }
        return;
    }
    /* Least time: Dijkstra; the open list holds reached nodes not yet
     * final. */
    while (n_open > 0) {
        int best = 0;
        for (int i = 1; i < n_open; i++)
            if (better(&w->closed[open[i]], &w->closed[open[best]]))
                best = i;
        int u = open[best];
        open[best] = open[--n_open];
        done[u] = 1;
        relax(m, obj, w, k, u, done, open, &n_open);
    }
}

/* Does cube move `cm` from every closed node of layer k into the entry of
 * layer k + 1. */
static void do_move(const robot_model *m, const robot_profile *p,
                    robot_objective obj, workspace *w, int k, qs_move cm)
{
    memset(w->entry, 0, sizeof w->entry);
    /* A turn lasts as long in every orientation (quarter, half or pair
     * stay what they are); only parallel regrips change it. */
    int64_t us[2];
    for (int with = 0; with < 2; with++) {
        robot_step st = {ROBOT_STEP_TURN, cm, (uint8_t)with};
        us[with] = robot_step_us(p, &st);
    }
    for (int u = 0; u < NODES; u++) {
        if (!w->closed[u].reached)
            continue;
        int o = u / ROBOT_STATES, g = u % ROBOT_STATES;
        int rm = m->to_robot[o][cm];
        if (rm == ROBOT_NO_MOVE)
            continue;
        for (unsigned r = 0; r < 16; r++) {
            int g2 = m->next_state[g][rm][r];
            if (g2 < 0)
                continue;
            robot_step st = {ROBOT_STEP_TURN, (uint8_t)rm, (uint8_t)r};
            int v = o * ROBOT_STATES + g2;
            cost c = add_step(&w->closed[u], obj, us[r != 0],
                              m->safe[g][rm][r], r);
            if (better(&c, &w->entry[v])) {
                w->entry[v] = c;
                w->entry_link[k + 1][v].from = (int16_t)u;
                w->entry_link[k + 1][v].step = st;
            }
        }
    }
}

/* Walks the links back from node v of the last layer's entry and writes
 * the steps in order; returns the step count or ROBOT_ERR_BUFFER. */
static int rebuild(const workspace *w, int n, int v, robot_step *out)
{
    robot_step rev[ROBOT_MAX_STEPS];
    int count = 0;
    for (int k = n; k > 0; k--) {
        const link *t = &w->entry_link[k][v];
        if (count == ROBOT_MAX_STEPS)
            return ROBOT_ERR_BUFFER;
        rev[count++] = t->step;
        v = t->from;
        while (w->closed_link[k - 1][v].from != NONE) {
            if (count == ROBOT_MAX_STEPS)
                return ROBOT_ERR_BUFFER;
            rev[count++] = w->closed_link[k - 1][v].step;
            v = w->closed_link[k - 1][v].from;
        }
    }
    for (int i = 0; i < count; i++)
        out[i] = rev[count - 1 - i];
    return count;
}

int robot_plan(const robot_model *m, const robot_profile *p,
               robot_objective obj, const qs_move *moves, int n,
               robot_schedule *out)
{
    if (!m || !p || !out || n < 0 || (n > 0 && !moves) ||
        (obj != ROBOT_OBJ_MOVES && obj != ROBOT_OBJ_TIME))
        return ROBOT_ERR_ARGUMENT;
    if (n > ROBOT_MAX_MOVES)
        return ROBOT_ERR_TOO_LONG;
    for (int i = 0; i < n; i++)
        if (moves[i] >= QS_MOVE_COUNT)
            return ROBOT_ERR_MOVE;
    memset(out, 0, sizeof *out);
    if (n == 0)
        return ROBOT_OK;

    workspace *w = calloc(1, sizeof *w);
    link(*links)[NODES] = malloc(sizeof *links * 2 * (size_t)(n + 1));
    if (!w || !links) {
        free(w);
        free(links);
        return ROBOT_ERR_NOMEM;
    }
    w->entry_link = links;
    w->closed_link = links + n + 1;
    /* Home orientation (0), all grippers neutral (state 0). */
    w->entry[0].reached = 1;
    list_extras(m, p, w);
    for (int k = 0; k < n; k++) {
        close_layer(m, obj, w, k);
        do_move(m, p, obj, w, k, moves[k]);
    }
    /* No closing after the last move: a trailing tilt or regrip only
     * costs. The entry layer is never empty: a full regrip to neutral and
     * one tilt make any move possible. */
    int best = NONE;
    for (int v = 0; v < NODES; v++)
        if (w->entry[v].reached && (best == NONE ||
                                    better(&w->entry[v], &w->entry[best])))
            best = v;
    int count =
        best == NONE ? ROBOT_ERR_BUFFER : rebuild(w, n, best, out->steps);
    int safe = best == NONE ? 0 : w->entry[best].safe;
    free(links);
    free(w);
    if (count < 0) {
        memset(out, 0, sizeof *out);
        return count;
    }

    int64_t us = 0;
    out->n = count;
    for (int i = 0; i < count; i++) {
        const robot_step *s = &out->steps[i];
        us += robot_step_us(p, s);
        out->turns += s->kind == ROBOT_STEP_TURN;
        out->tilts += s->kind == ROBOT_STEP_TILT;
        out->full_regrips += s->kind == ROBOT_STEP_REGRIP;
    }
    out->robot_moves = out->turns + out->tilts + out->full_regrips;
    out->safe = safe;
    out->cost_ms = (double)us / 1000.0;
    return ROBOT_OK;
}
