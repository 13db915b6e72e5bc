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
#include "robot_internal.h"

#include <stddef.h>
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
/* Every node enters the queue once as an entry node and at most once per
 * tilt or regrip into it from a node made final. */
#define HEAP_SIZE (NODES * (MAX_EXTRAS + 1))

typedef struct {
    cost entry[NODES], closed[NODES];
    /* [layer][node], n + 1 layers each, allocated with the workspace */
    link (*entry_link)[NODES];
    link (*closed_link)[NODES];
    extra extras[ROBOT_STATES][MAX_EXTRAS];
    int n_extras[ROBOT_STATES];
    /* A known bound on the objective's first criterion (robot moves or
     * microseconds): a plan within it exists, so a node is dropped when
     * what it has taken plus the least that moves k.. still take (rest[k]:
     * one robot move each, or their turns without regrips) exceeds it. */
    int64_t bound, rest[ROBOT_MAX_MOVES + 1];
    /* Least time: Dijkstra's queue, a binary heap of (cost, node) that
     * may hold stale entries (a node pushed again when it improves).
     * Last, as it needs no clearing. */
    int n_heap;
    struct queued {
        cost c;
        int v;
    } heap[HEAP_SIZE];
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

static void heap_push(workspace *w, const cost *c, int v)
{
    int i = w->n_heap++;
    while (i > 0) {
        int parent = (i - 1) / 2;
        if (!better(c, &w->heap[parent].c))
            break;
        w->heap[i] = w->heap[parent];
        i = parent;
    }
    w->heap[i].c = *c;
    w->heap[i].v = v;
}

/* Removes the heap's best entry and returns its node. */
static int heap_pop(workspace *w)
{
    int v = w->heap[0].v;
    struct queued last = w->heap[--w->n_heap];
    int i = 0, n = w->n_heap;
    for (;;) {
        int kid = 2 * i + 1;
        if (kid >= n)
            break;
        if (kid + 1 < n && better(&w->heap[kid + 1].c, &w->heap[kid].c))
            kid++;
        if (!better(&w->heap[kid].c, &last.c))
            break;
        w->heap[i] = w->heap[kid];
        i = kid;
    }
    w->heap[i] = last;
    return v;
}

/* The most a node may have taken before move k, if it is to be on a plan
 * within the bound. */
static int64_t cap_before(const workspace *w, int k)
{
    return w->bound == INT64_MAX ? INT64_MAX : w->bound - w->rest[k];
}

/* Relaxes the tilts and full regrips out of node u (final) of layer k;
 * returns how many nodes improved. Least time (queue) pushes each
 * improved node on Dijkstra's queue. */
static int relax(const robot_model *m, robot_objective obj, workspace *w,
                 int k, int u, const int *done, int queue)
{
    int o = u / ROBOT_STATES, g = u % ROBOT_STATES, improved = 0;
    int64_t cap = cap_before(w, k);
    for (int i = 0; i < w->n_extras[g]; i++) {
        const extra *e = &w->extras[g][i];
        int o2 = e->step.kind == ROBOT_STEP_TILT ? m->tilt[o][e->step.arg] : o;
        int v = o2 * ROBOT_STATES + e->to;
        if (done[v])
            continue;
        cost c = add_step(&w->closed[u], obj, e->us, 0, e->step.regrips);
        if (c.a <= cap && better(&c, &w->closed[v])) {
            if (queue)
                heap_push(w, &c, v);
            w->closed[v] = c;
            w->closed_link[k][v].from = (int16_t)u;
            w->closed_link[k][v].step = e->step;
            improved++;
        }
    }
    return improved;
}

/* Closes layer k under tilts and full regrips: closed = the cheapest way
 * to reach each node from some entry node of the layer. */
static void close_layer(const robot_model *m, robot_objective obj,
                        workspace *w, int k)
{
    int done[NODES] = {0};
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    int64_t cap = cap_before(w, k);
    memcpy(w->closed, w->entry, sizeof w->closed);
    w->n_heap = 0;
    for (int v = 0; v < NODES; v++) {
        w->closed_link[k][v].from = NONE;
        memset(&w->closed_link[k][v].step, 0, sizeof(robot_step));
        if (w->closed[v].reached && w->closed[v].a > cap)
            w->closed[v].reached = 0;
        if (w->closed[v].reached) {
            lo = w->closed[v].a < lo ? w->closed[v].a : lo;
            hi = w->closed[v].a > hi ? w->closed[v].a : hi;
            if (obj != ROBOT_OBJ_MOVES)
                heap_push(w, &w->closed[v], v);
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
                    if (relax(m, obj, w, k, v, done, 0) && a + 1 > hi)
                        hi = a + 1;
                }
        return;
    }
    /* Least time: Dijkstra. An entry whose node is already final is a
     * stale copy left by a later improvement. */
    while (w->n_heap > 0) {
        int u = heap_pop(w);
        if (done[u])
            continue;
        done[u] = 1;
        relax(m, obj, w, k, u, done, 1);
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

/* One run of the dynamic program; *found is 0 when no plan is within
 * w->bound (then out is left for the caller to discard). */
static int plan_layers(const robot_model *m, const robot_profile *p,
                       robot_objective obj, const qs_move *moves, int n,
                       workspace *w, robot_schedule *out, int *found)
{
    memset(w->entry, 0, sizeof w->entry);
    /* Home orientation (0), all grippers neutral (state 0). */
    w->entry[0].reached = 1;
    for (int k = 0; k < n; k++) {
        close_layer(m, obj, w, k);
        do_move(m, p, obj, w, k, moves[k]);
    }
    /* No closing after the last move: a trailing tilt or regrip only
     * costs. Unbounded, the entry layer is never empty: a full regrip to
     * neutral and one tilt make any move possible. */
    int best = NONE;
    for (int v = 0; v < NODES; v++)
        if (w->entry[v].reached && (best == NONE ||
                                    better(&w->entry[v], &w->entry[best])))
            best = v;
    /* A plan above the bound may have lost the optimum to the pruning. */
    *found = best != NONE &&
             (w->bound == INT64_MAX || w->entry[best].a <= w->bound);
    if (!*found)
        return ROBOT_OK;
    int count = rebuild(w, n, best, out->steps);
    if (count < 0)
        return count;
    out->n = count;
    out->safe = w->entry[best].safe;
    return ROBOT_OK;
}

int robot_plan(const robot_model *m, const robot_profile *p,
               robot_objective obj, const qs_move *moves, int n,
               robot_schedule *out)
{
    return robot_plan_within(m, p, obj, moves, n, INT64_MAX, out);
}

int robot_plan_within(const robot_model *m, const robot_profile *p,
                      robot_objective obj, const qs_move *moves, int n,
                      int64_t bound, robot_schedule *out)
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

    workspace *w = malloc(sizeof *w);
    link(*links)[NODES] = malloc(sizeof *links * 2 * (size_t)(n + 1));
    if (!w || !links) {
        free(w);
        free(links);
        return ROBOT_ERR_NOMEM;
    }
    memset(w, 0, offsetof(workspace, heap));
    w->entry_link = links;
    w->closed_link = links + n + 1;
    w->rest[n] = 0;
    for (int k = n - 1; k >= 0; k--) {
        robot_step st = {ROBOT_STEP_TURN, moves[k], 0};
        w->rest[k] = w->rest[k + 1] +
                     (obj == ROBOT_OBJ_TIME ? robot_step_us(p, &st) : 1);
    }
    w->bound = bound;
    list_extras(m, p, w);
    int found, err = plan_layers(m, p, obj, moves, n, w, out, &found);
    if (!err && !found && w->bound != INT64_MAX) {
        w->bound = INT64_MAX;
        err = plan_layers(m, p, obj, moves, n, w, out, &found);
    }
    if (!err && !found)
        err = ROBOT_ERR_BUFFER;
    free(links);
    free(w);
    if (err) {
        memset(out, 0, sizeof *out);
        return err;
    }
    int count = out->n;

    int64_t us = 0;
    for (int i = 0; i < count; i++) {
        const robot_step *s = &out->steps[i];
        us += robot_step_us(p, s);
        out->turns += s->kind == ROBOT_STEP_TURN;
        out->tilts += s->kind == ROBOT_STEP_TILT;
        out->full_regrips += s->kind == ROBOT_STEP_REGRIP;
    }
    out->robot_moves = out->turns + out->tilts + out->full_regrips;
    out->cost_ms = (double)us / 1000.0;
    return ROBOT_OK;
}
