/*
 * optimal.c - robot_solve_optimal: fewest robot moves by IDA*.
 *
 * The search walks the robot's own state space: the cube, the orientation
 * in which the robot holds it (one of 24) and the set of gripper states it
 * may be in (the 7-bit stateset of robot_model, qphase's technique: the
 * parallel regrips are decided later, so one node stands for every choice
 * of them). Its operations are those robot_plan counts: a turn of a
 * gripped face or a parallel pair (1), a tilt (1) and a full regrip (1).
 * A full regrip is not a node of its own; it is searched only right before
 * the operation it helps (see "Canonical sequences" below), so a child may
 * cost 2.
 *
 * Lower bound: the robot phase-1 table (rphase1) gives, for each tilt
 * class, the exact distance to the phase-2 group in turns and tilts, where
 * a class may turn every face and pair off its own axis and a tilt moves to
 * either other class. A real execution's turns and tilts are a path of
 * that graph (its full regrips only add to it), and a solved cube is in
 * the phase-2 group, so the table is admissible; read in the three frames
 * whose U-D axis is each cube axis (the 120-degree rotations about URF-DBL
 * map the graph onto itself, classes along), it gives three bounds. The
 * corner table (rcorners) gives a fourth: the turns and tilts the corners
 * alone need from the cube's class, which is what bounds positions in or
 * near the phase-2 groups, where the phase-1 distances are 0 or small.
 * The largest is taken. The two-phase rphase2 distances use phase-2 moves
 * only, and are not lower bounds outside that group's search.
 *
 * Canonical sequences. Three rewrites never cost a move and never lose a
 * gripper state (the stateset after them is a superset; statesets grow
 * monotonically under every operation), and each makes progress in an
 * order that has no infinite chains (fewer moves, then fewer turns, then
 * tilts later, then full regrips later), so an optimal sequence exists
 * that none applies to, and only those are searched:
 *   - two turns of one axis in a row are one turn, a full regrip or both
 *     (checked for every stateset and pair by the model when the search
 *     starts: same_axis_ok);
 *   - a full regrip before an operation moves after it when that gives a
 *     superset (regrip_before), which leaves 58 of the 4,032 stateset and
 *     operation pairs where it is worth a move first;
 *   - a tilt followed by a turn of the axis it keeps turnable swaps with it
 *     when that gives a superset (tilt_swap).
 * A solution ends with a turn; a tilt or regrip at the end is never on a
 * shortest path.
 *
 * Each length is split into jobs (the nodes after the first PREFIX
 * operations that pass the bound), which threads take through an atomic
 * counter, those with the most moves to spare first. The first solution
 * found at the optimal length stops the others; it is planned from
 * scratch by robot_plan, which must agree on its number of robot moves,
 * and replayed by robot_check before it is returned. docs/optimal.md
 * ("Robot-metric optima") has the design and its limits.
 */
#include "robot.h"
#include "robot_internal.h"

#include "qs_engine.h"

#include <stdlib.h>
#include <string.h>

enum {
    N_AXES = 3,
    PREFIX = 3,          /* operations fixed by a job */
    CHECK_EVERY = 1023,  /* nodes between polls of the stop flags */
    TILT_OP = 45,        /* path entries 45, 46: tilts RL, FB */
    REGRIP_FIRST = 0x80, /* path flag: a full regrip comes before */
    MAX_DEPTH = 40,      /* robot moves; random cubes need about 19 */
    NO_AXIS = 3
};

/* A position as the search tracks it: the phase-1 coordinates in each
 * axis's frame with their rphase1 entries (a tilt leaves them as they
 * are), and the corner permutation for the solved test. */
typedef struct {
    uint16_t flip[N_AXES], slice[N_AXES], twist[N_AXES];
    uint16_t corners;
    uint16_t e[N_AXES];
    uint8_t sym[N_AXES];
    uint8_t corner_entry, corner_sym; /* its rcorners entry, read with e */
} rnode;

/* Where a node stands beyond its position: orientation, stateset, the
 * cube axis of the last operation if it was a turn (else NO_AXIS), and
 * after a tilt which one and the stateset before it (for tilt_swap). */
typedef struct {
    uint8_t o, set, last_axis, tilted, tilt, set_before;
} rstate;

typedef struct {
    rnode n;
    rstate s;
    int togo;
    uint8_t path[PREFIX];
    int len;
} job;

typedef struct {
    const qs_tables *t;
    const robot_model *rm;
    const robot_profile *prof;
    const robot_optimal_options *o;
    qs_cube cube;
    rnode root;
    uint16_t slice_solved;

    /* move m of the cube is move conj[r][m] in axis r's frame */
    uint8_t conj[N_AXES][QS_MOVE_COUNT];
    /* cls[r][o]: the tilt class of orientation o in axis r's frame */
    uint8_t cls[N_AXES][ROBOT_ORIENTATIONS];
    uint8_t move_axis[QS_MOVE_COUNT];
    /* the cube moves orientation o can turn */
    uint64_t turnable[ROBOT_ORIENTATIONS];
    /* regrip_before[S][op]: a full regrip right before op may be on a
     * canonical shortest path (see the top of the file) */
    uint8_t regrip_before[ROBOT_STATESETS][TILT_OP + 2];
    /* tilt_swap[S][t][m]: after tilt t from stateset S, robot-frame turn
     * m of the tilt's own axis could as well come first */
    uint8_t tilt_swap[ROBOT_STATESETS][2][QS_MOVE_COUNT];

    int depth;
    qs_run run;     /* jobs: of job */

    pthread_mutex_t lock;
    int found, err;
    robot_solution *out;
    uint64_t nodes;
} shared;

typedef struct {
    shared *sh;
    const qs_tables *t;
    uint8_t path[MAX_DEPTH + 1];
    uint64_t nodes;
    int halt;
} worker;

void robot_optimal_options_default(robot_optimal_options *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->max_len = -1;
}

static int axis_of(int m)
{
    return m < 18 ? (m / 3) % 3 : (m - 18) / 9;
}

static int subset(unsigned a, unsigned b)
{
    return (a & ~b) == 0;
}

/* ------------------------------------------------- canonical sequences */

/* Quarter turns (0..3) of each face of move m added to q[6]. */
static void add_quarters(int m, int q[6])
{
    if (m < 18) {
        q[m / 3] += m % 3 + 1;
        return;
    }
    int axis = (m - 18) / 9;
    q[axis] += (m - 18) % 9 / 3 + 1;
    q[axis + 3] += (m - 18) % 3 + 1;
}

/* The move turning face `axis` by qa and its opposite by qb quarters, or
 * -1 for no turn at all. */
static int join_axis(int axis, int qa, int qb)
{
    qa %= 4;
    qb %= 4;
    if (!qa && !qb)
        return -1;
    if (!qb)
        return axis * 3 + qa - 1;
    if (!qa)
        return (axis + 3) * 3 + qb - 1;
    return 18 + axis * 9 + (qa - 1) * 3 + (qb - 1);
}

/* Whether robot-frame turns a then b of one axis, from stateset s, are
 * matched by at most two robot moves of one turn and full regrips (or
 * regrips alone) that leave every gripper state they leave. The search
 * relies on it for every case (robot_solve_optimal checks it). */
static int same_axis_ok(const robot_model *rm, int s, int a, int b)
{
    const uint8_t (*next)[ROBOT_OPS] = rm->nextset;
    int after = next[next[s][a]][b];
    if (!after)
        return 1;
    int q[6] = {0};
    add_quarters(a, q);
    add_quarters(b, q);
    int axis = axis_of(a), c = join_axis(axis, q[axis], q[axis + 3]);
    int r = next[s][ROBOT_OP_REGRIP];
    if (c < 0)
        return subset((unsigned)after, (unsigned)next[r][ROBOT_OP_REGRIP]);
    int one = next[s][c];
    return (one && subset((unsigned)after, next[one][ROBOT_OP_REGRIP])) ||
           subset((unsigned)after, next[r][c]);
}

/* Fills regrip_before and tilt_swap from the model; returns 0 when the
 * model breaks an assumption the rewrites rest on (a different robot). */
static int build_rules(shared *sh)
{
    const uint8_t (*next)[ROBOT_OPS] = sh->rm->nextset;
    for (int s = 1; s < ROBOT_STATESETS; s++) {
        int r = next[s][ROBOT_OP_REGRIP];
        for (int op = 0; op < TILT_OP + 2; op++) {
            int via = next[r][op], direct = next[s][op];
            /* Useful only when it adds a state that regripping after op
             * could not give. A second full regrip in a row never is: it
             * moves past op the same way (checked here too). */
            sh->regrip_before[s][op] =
                r != s && via &&
                !(direct && subset((unsigned)via,
                                   next[direct][ROBOT_OP_REGRIP]));
            int rr = next[r][ROBOT_OP_REGRIP];
            if (rr != r && next[rr][op]) {
                int d2 = next[r][op];
                if (!d2 || !subset(next[rr][op], next[d2][ROBOT_OP_REGRIP]))
                    return 0;
            }
        }
        for (int t = 0; t < 2; t++)
            for (int m = 0; m < QS_MOVE_COUNT; m++) {
                int tilt = ROBOT_OP_TILT_RL + t, first = next[s][m];
                int swapped = first ? next[first][tilt] : 0;
                sh->tilt_swap[s][t][m] =
                    axis_of(m) == 1 + t && swapped &&
                    subset(next[next[s][tilt]][m], (unsigned)swapped);
            }
        for (int a = 0; a < QS_MOVE_COUNT; a++)
            for (int b = 0; b < QS_MOVE_COUNT; b++)
                if (axis_of(a) == axis_of(b) && axis_of(a) != 0 &&
                    next[s][a] && !same_axis_ok(sh->rm, s, a, b))
                    return 0;
    }
    return 1;
}

/* ----------------------------------------------------------- positions */

static int should_halt(worker *w)
{
    shared *sh = w->sh;
    if (qs_halt_poll(&sh->run.halt, 0))
        return w->halt = 1;
    return 0;
}

/* The coordinates after cube move m (entries not read yet). */
static void apply(const shared *sh, const rnode *n, int m, rnode *out)
{
    const qs_tables *t = sh->t;
    for (int r = 0; r < N_AXES; r++) {
        int mr = sh->conj[r][m];
        out->flip[r] = move_row(t, t->flip_move, n->flip[r])[mr];
        out->slice[r] = move_row(t, t->edge4_move, n->slice[r])[mr];
        out->twist[r] = move_row(t, t->twist_move, n->twist[r])[mr];
    }
    out->corners = move_row(t, t->corners_move, n->corners)[m];
}

static inline uint32_t fs_index(const rnode *n, int r)
{
    return (uint32_t)(n->slice[r] / 24 * N_FLIP + n->flip[r]);
}

static void prefetch(const qs_tables *t, const rnode *n)
{
    for (int r = 0; r < N_AXES; r++)
        __builtin_prefetch(&t->fs_packed[fs_index(n, r)]);
}

/* The rphase1 index of each frame and its symmetry, and last the rcorners
 * index (one entry serves every tilt class); the entries are prefetched
 * and read by read_entries. */
static void locate(const qs_tables *t, rnode *n, uint32_t idx[N_AXES + 1])
{
    for (int r = 0; r < N_AXES; r++) {
        uint32_t cs = t->fs_packed[fs_index(n, r)];
        n->sym[r] = (uint8_t)(cs & 15);
        idx[r] = (cs >> 4) * N_TWIST + t->twist_conj[n->twist[r]][n->sym[r]];
        __builtin_prefetch(&t->rphase1[idx[r]]);
    }
    uint8_t shift;
    idx[N_AXES] = robot_corner_index(t, n->corners, n->twist[0], 0, &shift);
    n->corner_sym = t->corner_sym[n->corners];
    __builtin_prefetch(&t->rcorners[idx[N_AXES]]);
}

static void read_entries(const qs_tables *t, rnode *n,
                         const uint32_t idx[N_AXES + 1])
{
    for (int r = 0; r < N_AXES; r++)
        n->e[r] = t->rphase1[idx[r]];
    n->corner_entry = t->rcorners[idx[N_AXES]];
}

/* Reads the node's entries. */
static void lookup(const qs_tables *t, rnode *n)
{
    uint32_t idx[N_AXES + 1];
    locate(t, n, idx);
    read_entries(t, n, idx);
}

/* Every corner and edge in place: the corners, twist and flip in the
 * cube's frame and the slice edges of all three frames (which together
 * are the twelve edges). */
static int is_solved(const shared *sh, const rnode *n)
{
    return n->corners == 0 && n->twist[0] == 0 && n->flip[0] == 0 &&
           n->slice[0] == sh->slice_solved &&
           n->slice[1] == sh->slice_solved &&
           n->slice[2] == sh->slice_solved;
}

/* The robot moves node n needs from orientation o, part by part: the
 * three frames' robot phase-1 distances, then the corners' (the robot
 * moves they need alone, from o's class; the cube's own frame is frame
 * 0). */
static void bound_parts(const shared *sh, const rnode *n, int o,
                        int part[N_AXES + 1])
{
    const qs_tables *t = sh->t;
    for (int r = 0; r < N_AXES; r++)
        part[r] = robot_p1_dist(t, n->e[r], n->sym[r], sh->cls[r][o]);
    part[N_AXES] = robot_corner_value(
        n->corner_entry, 4 + t->axis_conj[sh->cls[0][o]][n->corner_sym]);
}

/* The lower bound of node n from its parts: the largest of them, and 1
 * for any unsolved cube that reads 0 in all of them. */
static int bound_of_parts(const shared *sh, const rnode *n,
                          const int part[N_AXES + 1])
{
    int h = 0;
    for (int r = 0; r <= N_AXES; r++)
        h = part[r] > h ? part[r] : h;
    if (h == 0 && !is_solved(sh, n))
        h = 1;
    return h;
}

/* The lower bound of a position held in orientation o. */
static int bound(const shared *sh, const rnode *n, int o)
{
    int part[N_AXES + 1];
    bound_parts(sh, n, o, part);
    return bound_of_parts(sh, n, part);
}

/* ---------------------------------------------------------------- search */

static void record(worker *w, int n_path)
{
    shared *sh = w->sh;
    robot_solution *s = malloc(sizeof *s);
    if (!s) {
        pthread_mutex_lock(&sh->lock);
        sh->err = ROBOT_ERR_NOMEM;
        pthread_mutex_unlock(&sh->lock);
        qs_halt_stop(&sh->run.halt);
        return;
    }
    memset(s, 0, sizeof *s);
    for (int i = 0; i < n_path; i++) {
        int op = w->path[i] & ~REGRIP_FIRST;
        if (op < QS_MOVE_COUNT)
            s->moves[s->n++] = (qs_move)op;
    }
    /* The path is one execution of these moves; the planner finds the
     * best one, which cannot be shorter (the search is exhaustive below
     * this length) and must not be longer (the search counts as it
     * does). Anything else is reported, never returned. */
    qs_cube check = sh->cube;
    qs_cube_apply_moves(&check, s->moves, s->n);
    int err = qs_cube_is_solved(&check) ? ROBOT_OK : ROBOT_ERR_NOT_SOLVED;
    if (!err)
        err = robot_plan(sh->rm, sh->prof, ROBOT_OBJ_MOVES, s->moves, s->n,
                         &s->plan);
    if (!err && s->plan.robot_moves != sh->depth)
        err = ROBOT_ERR_COUNT;
    if (!err) {
        char detail[8];
        err = robot_check(&s->plan, &sh->cube, sh->prof, detail,
                          sizeof detail);
    }
    pthread_mutex_lock(&sh->lock);
    if (err && !sh->found && !sh->err) {
        sh->err = err;
    } else if (!err && !sh->found) {
        sh->found = 1;
        *sh->out = *s;
    }
    pthread_mutex_unlock(&sh->lock);
    qs_halt_stop(&sh->run.halt);
    w->halt = 1; /* the others see stop at their next poll */
    free(s);
}

/* Most children of a node: 30 turns and 2 tilts, each plainly or after a
 * full regrip. */
#define MAX_KIDS (2 * (30 + 2))

/* A child: the operation (path code), its cost, where it leads. */
typedef struct {
    rnode n;
    rstate s;
    uint8_t code, cost;
} kid;

/* Lists the children of a node with `togo` robot moves left that pass
 * the bound; their coordinates are computed and their entries read. */
static int children(const shared *sh, const rnode *n, const rstate *st,
                    int togo, kid *out)
{
    const qs_tables *t = sh->t;
    const robot_model *rm = sh->rm;
    int nk = 0, o = st->o, set = st->set;
    int regripped = rm->nextset[set][ROBOT_OP_REGRIP];
    uint64_t moves = sh->turnable[o];
    while (moves) {
        int m = __builtin_ctzll(moves);
        moves &= moves - 1;
        int axis = sh->move_axis[m], op = rm->to_robot[o][m];
        /* Plainly, and after a full regrip where that is worth a move.
         * The two rewrites of adjacent operations apply to the first. */
        for (int pass = 0; pass < 2; pass++) {
            int set2, cost = pass + 1;
            if (pass == 0)
                set2 = axis == st->last_axis ||
                               (st->tilted &&
                                sh->tilt_swap[st->set_before][st->tilt][op])
                           ? 0
                           : rm->nextset[set][op];
            else
                set2 = sh->regrip_before[set][op]
                           ? rm->nextset[regripped][op]
                           : 0;
            if (!set2 || cost > togo)
                continue;
            kid *k = &out[nk];
            apply(sh, n, m, &k->n);
            if (cost == togo) {
                /* The last move: no table, just the solved test. */
                if (!is_solved(sh, &k->n))
                    continue;
            } else {
                prefetch(t, &k->n);
            }
            k->s.o = (uint8_t)o;
            k->s.set = (uint8_t)set2;
            k->s.last_axis = (uint8_t)axis;
            k->s.tilted = 0;
            k->code = (uint8_t)(m | (pass ? REGRIP_FIRST : 0));
            k->cost = (uint8_t)cost;
            nk++;
        }
    }
    /* Tilts: the cube stays, so the entries do too. A tilt is followed by
     * at least a turn. */
    for (int tilt = 0; tilt < 2; tilt++) {
        int op = ROBOT_OP_TILT_RL + tilt;
        for (int pass = 0; pass < 2; pass++) {
            int from = pass ? regripped : set, cost = pass + 1;
            if (pass && !sh->regrip_before[set][op])
                continue;
            int set2 = rm->nextset[from][op];
            if (!set2 || cost >= togo)
                continue;
            int o2 = rm->tilt[o][tilt];
            if (bound(sh, n, o2) > togo - cost)
                continue;
            kid *k = &out[nk++];
            k->n = *n;
            k->s.o = (uint8_t)o2;
            k->s.set = (uint8_t)set2;
            k->s.last_axis = NO_AXIS;
            k->s.tilted = 1;
            k->s.tilt = (uint8_t)tilt;
            k->s.set_before = (uint8_t)from;
            k->code = (uint8_t)((TILT_OP + tilt) | (pass ? REGRIP_FIRST : 0));
            k->cost = (uint8_t)cost;
        }
    }
    /* The turns' entries: their symmetry classes are on the way by now,
     * so all their indices are computed and the entries fetched together
     * before any is read. Those out of reach are dropped. */
    uint32_t idx[MAX_KIDS][N_AXES + 1];
    for (int i = 0; i < nk; i++)
        if ((out[i].code & ~REGRIP_FIRST) < TILT_OP && out[i].cost < togo)
            locate(t, &out[i].n, idx[i]);
    int kept = 0;
    for (int i = 0; i < nk; i++) {
        kid *k = &out[i];
        int rest = togo - k->cost;
        if ((k->code & ~REGRIP_FIRST) < TILT_OP && rest > 0) {
            read_entries(t, &k->n, idx[i]);
            if (bound(sh, &k->n, k->s.o) > rest)
                continue;
        }
        if (kept != i)
            out[kept] = *k;
        kept++;
    }
    return kept;
}

static void dfs(worker *w, const rnode *n, const rstate *st, int togo,
                int depth)
{
    shared *sh = w->sh;
    if ((++w->nodes & CHECK_EVERY) == 0 && should_halt(w))
        return;
    kid kids[MAX_KIDS];
    int nk = children(sh, n, st, togo, kids);
    for (int i = 0; i < nk && !w->halt; i++) {
        const kid *k = &kids[i];
        int rest = togo - k->cost;
        w->path[depth] = k->code;
        if (rest == 0) {
            record(w, depth + 1); /* children() kept only solved ones */
            return;
        }
        dfs(w, &k->n, &k->s, rest, depth + 1);
    }
}

/* A job's place in the order: most moves to spare under the bound first,
 * and among equals (most jobs) the most spared beyond each part of the
 * bound, summed, as the HTM optimum orders its jobs. */
static int job_promise(const shared *sh, const rnode *n, int o, int togo)
{
    int part[N_AXES + 1], spare = 0;
    bound_parts(sh, n, o, part);
    for (int r = 0; r <= N_AXES; r++)
        spare += togo - part[r];
    return (togo - bound_of_parts(sh, n, part)) * 1024 + spare;
}

/* Lists the jobs of the current length: the nodes after PREFIX operations
 * (or fewer, when they use up the length) that pass the bound. */
static int add_jobs(shared *sh, const rnode *n, const rstate *st, int togo,
                    uint8_t *path, int len)
{
    if (len == PREFIX || togo == 0) {
        job j;
        memset(&j, 0, sizeof j);
        j.n = *n;
        j.s = *st;
        j.togo = togo;
        memcpy(j.path, path, (size_t)len);
        j.len = len;
        /* (A node that used up the length is solved; children() read
         * no entries for it.) */
        int promise = togo > 0 ? job_promise(sh, n, st->o, togo) : 0;
        return qs_jobs_add(&sh->run.jobs, &j, promise) == QS_OK
                   ? ROBOT_OK
                   : ROBOT_ERR_NOMEM;
    }
    kid *kids = malloc(sizeof *kids * MAX_KIDS);
    if (!kids)
        return ROBOT_ERR_NOMEM;
    sh->nodes++;
    int nk = children(sh, n, st, togo, kids), err = ROBOT_OK;
    for (int i = 0; i < nk && !err; i++) {
        path[len] = kids[i].code;
        err = add_jobs(sh, &kids[i].n, &kids[i].s, togo - kids[i].cost, path,
                       len + 1);
    }
    free(kids);
    return err;
}

static void worker_main(void *arg)
{
    worker *w = arg;
    shared *sh = w->sh;
    w->halt = 0;
    for (;;) {
        const job *j = qs_jobs_take(&sh->run.jobs);
        if (!j || w->halt || should_halt(w))
            break;
        memcpy(w->path, j->path, (size_t)j->len);
        if (j->togo == 0)
            record(w, j->len); /* only solved children end a length */
        else
            dfs(w, &j->n, &j->s, j->togo, j->len);
    }
}

static int run_depth(shared *sh, worker *workers)
{
    const robot_optimal_options *o = sh->o;
    uint8_t path[PREFIX];
    rstate st = {0, ROBOT_DEFAULTSET, NO_AXIS, 0, 0, 0};
    qs_jobs_clear(&sh->run.jobs);
    int err = add_jobs(sh, &sh->root, &st, sh->depth, path, 0);
    if (err)
        return err;
    if (qs_jobs_order(&sh->run.jobs) != QS_OK)
        return ROBOT_ERR_NOMEM;
    /* An optimal search runs seconds: starting its threads costs nothing
     * next to that, so it takes no team. */
    err = qs_engine_run(o->threads, NULL, worker_main, workers,
                        sizeof *workers, &sh->run.halt);
    if (err)
        return robot_engine_error(err);
    for (int i = 0; i < o->threads; i++) {
        sh->nodes += workers[i].nodes;
        workers[i].nodes = 0;
    }
    return ROBOT_OK;
}

static void init_frames(shared *sh)
{
    const qs_tables *t = sh->t;
    const robot_model *rm = sh->rm;
    qs_cube sym[48], solved;
    qs_sym_cubes(sym);
    qs_cube_solved(&solved);
    sh->slice_solved = (uint16_t)qs_coord_edge4(&solved, 8);
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        sh->move_axis[m] = (uint8_t)axis_of(m);
    for (int o = 0; o < ROBOT_ORIENTATIONS; o++) {
        sh->turnable[o] = 0;
        for (int m = 0; m < QS_MOVE_COUNT; m++)
            if (rm->to_robot[o][m] != ROBOT_NO_MOVE)
                sh->turnable[o] |= 1ull << m;
    }
    for (int r = 0; r < N_AXES; r++) {
        int s = 16 * r, back = t->sym_inv[s];
        qs_cube tmp, y;
        qs_cube_multiply(&sym[s], &sh->cube, &tmp);
        qs_cube_multiply(&tmp, &sym[back], &y);
        sh->root.flip[r] = (uint16_t)qs_coord_flip(&y);
        sh->root.slice[r] = (uint16_t)qs_coord_edge4(&y, 8);
        sh->root.twist[r] = (uint16_t)qs_coord_twist(&y);
        for (int m = 0; m < QS_MOVE_COUNT; m++)
            sh->conj[r][m] = t->move_conj[m][s];
        /* The cube axis at robot U-D, seen in this frame, is the class. */
        for (int o = 0; o < ROBOT_ORIENTATIONS; o++) {
            int up_axis = rm->face_at[o][0] % 3;
            sh->cls[r][o] = (uint8_t)axis_of(t->move_conj[3 * up_axis][s]);
        }
    }
    sh->root.corners = (uint16_t)qs_coord_corners(&sh->cube);
    lookup(t, &sh->root);
}

int robot_solve_optimal(const qs_tables *t, const robot_model *rm,
                        const robot_profile *prof, const qs_cube *c,
                        const robot_optimal_options *o, robot_solution *out,
                        qs_stats *stats)
{
    if (!t || !rm || !prof || !c || !o || !out)
        return ROBOT_ERR_ARGUMENT;
    if (o->threads < 1 || o->threads > QS_MAX_THREADS || o->max_len < -1 ||
        o->max_len > QS_MAX_MOVES)
        return ROBOT_ERR_ARGUMENT;
    if (qs_tables_metric(t) != QS_METRIC_ROBOT || !t->rphase1 ||
        !t->rcorners)
        return ROBOT_ERR_TABLES;
    if (qs_cube_check(c))
        return ROBOT_ERR_CUBE;
    if (stats)
        memset(stats, 0, sizeof *stats);

    void *worker_mem;
    shared *sh = qs_run_alloc(sizeof *sh, sizeof(worker), (size_t)o->threads,
                              &worker_mem);
    if (!sh)
        return ROBOT_ERR_NOMEM;
    worker *workers = worker_mem;
    sh->t = t;
    sh->rm = rm;
    sh->prof = prof;
    sh->o = o;
    sh->cube = *c;
    sh->out = out;
    pthread_mutex_init(&sh->lock, NULL);
    qs_run_init(&sh->run, o->cancel, 0, 0, sizeof(job));
    for (int i = 0; i < o->threads; i++) {
        workers[i].sh = sh;
        workers[i].t = t;
    }
    int err = ROBOT_ERR_NOT_FOUND;
    if (!build_rules(sh)) {
        /* A model whose automaton the rewrites were not checked for. */
        err = ROBOT_ERR_ARGUMENT;
        goto done;
    }
    init_frames(sh);

    int depth = bound(sh, &sh->root, 0), proven = depth - 1;
    int limit = o->max_len >= 0 && o->max_len < MAX_DEPTH ? o->max_len
                                                          : MAX_DEPTH;
    if (depth == 0) {
        /* Solved: the empty solution. */
        memset(out, 0, sizeof *out);
        sh->found = 1;
        if (o->on_depth)
            o->on_depth(o->depth_ctx, 0, 1, 0,
                        qs_ms_since(sh->run.start_ns));
        err = ROBOT_OK;
        goto done;
    }
    for (; depth <= limit; depth++) {
        /* A length whose every job is cut off at once polls nothing. */
        if (o->cancel && atomic_load(o->cancel)) {
            err = ROBOT_ERR_CANCELLED;
            break;
        }
        sh->depth = depth;
        int rc = run_depth(sh, workers);
        if (rc) {
            err = rc;
            break;
        }
        if (qs_halt_was_cancelled(&sh->run.halt) && !sh->found) {
            err = ROBOT_ERR_CANCELLED;
            break;
        }
        if (sh->err && !sh->found) {
            err = sh->err;
            break;
        }
        if (o->on_depth)
            o->on_depth(o->depth_ctx, depth, sh->found, sh->nodes,
                        qs_ms_since(sh->run.start_ns));
        if (sh->found) {
            err = ROBOT_OK;
            break;
        }
        proven = depth;
    }
    if (stats) {
        stats->phase1_nodes = sh->nodes;
        stats->phase1_depth = proven;
    }
done:
    if (stats) {
        stats->elapsed_ms = qs_ms_since(sh->run.start_ns);
        stats->first_ms = stats->elapsed_ms;
    }
    pthread_mutex_destroy(&sh->lock);
    qs_run_free(&sh->run);
    free(sh);
    return err;
}
