/*
 * search.c - robot_solve: two-phase search in robot moves.
 *
 * The search is Kociemba's two-phase algorithm in the axial metric with
 * the robot's limits built in. A node carries, besides the cube
 * coordinates, the orientation in which the robot holds the cube (its
 * tilt class, the axis it cannot turn, decides which moves exist) and the
 * set of gripper states the robot may be in (the 7-bit stateset of
 * robot_model). A tilt is a move of its own; a full regrip is charged
 * only when the next move is impossible from every state of the set, so
 * regrips are deferred as long as possible. The pruning tables (robot
 * blobs of the ROBOT table set) give distances in turns and tilts for
 * each tilt class.
 *
 * Six directions, as in qs_solve: the cube seen along each axis, and its
 * inverse. An inverse search walks the execution backwards from its end,
 * so it starts from any tilt class with every gripper state possible and
 * must end in the home tilt class with the neutral state reachable (the
 * phase-2 table knows the distance to each end class). Its orientation
 * inside the class is a representative, so its count of regrips is an
 * estimate; every solution is in any case planned again from scratch by
 * robot_plan, which is exact, and the plan is what gets reported.
 *
 * Jobs are (phase-1 length, direction, start class) in order of length, and
 * within a length every direction's first start before the inverse
 * directions' other start classes; threads take them in turn. Phase 1
 * goes a level at a time over groups of nodes (see expand_group): the
 * children of the whole group are listed first and their table entries
 * fetched together, then they wait with the other nodes of their depth
 * until a whole group of them can be searched (see drain). With the
 * large move table (robot_p1x) a node learns from its own entry which
 * children can still finish in time, so the others are never located or
 * read. The corner table (rcorners)
 * bounds the whole rest of a path, phase 2 included, and so drops children
 * deep in phase 1 whose corners alone need more robot moves than the best
 * solution leaves (about a third of the phase-1 nodes). The corner-path
 * table (rpath_code, the large and medium sets) then bounds a child by
 * what its corners need when phase 1 must end within the job's length and
 * phase 2 follow, about 40% fewer nodes again; its entry is fetched when
 * a child is made and read in the next pass, before the child is located
 * in the phase-1 table (a third of the children that read one are
 * dropped there): in robot moves from the blob's room tables (6 MB per
 * job, robot_path_rooms), under least time from its codes (36 MB). An
 * entry also holds the corner distance and bounds at least as tightly,
 * so with it no corner entry is read. The children that end phase 1 get
 * their U/D edges in the same pass and their edges' bound and phase-2
 * entry (rphase2, also beyond the cache) in one of their own, so those
 * reads overlap too.
 *
 * Least time (ROBOT_OBJ_TIME) searches in the profile's microseconds: each
 * path carries, per gripper state, the least time of an execution that
 * ends in it (parallel regrips charged where needed), candidates are
 * ranked by that time, and paths that cannot beat the best are pruned.
 */
#include "robot.h"
#include "robot_internal.h"

#include "qs_engine.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

enum {
    GV_LANES = 8,             /* a time vector: ROBOT_STATES, padded */
    N_DIRS = 6,
    CHECK_EVERY = 255,
    MAX_P1 = 24,              /* longest phase-1 part ever searched */
    MAX_P2 = 13,              /* longest phase-2 part searched */
    MAX_PATH = QS_MAX_MOVES,  /* operations in a path, tilts included */
    TILT_OP = 45,             /* path entries 45, 46: tilts RL, FB */
    MAX_KIDS = 32,            /* 30 turns and 2 tilts */
    DEFAULT_LIMIT = 40,       /* robot moves; never reached in practice */
    SPARE_CANDIDATES = 8,
    MAX_EXTRA_PLANS = 3,      /* candidates planned beyond those returned */
    MAX_EXTRA_TIME_PLANS = 1, /* the same, least-time objective: the
                                 search's own time is the plan's but for
                                 the tilts the planner may move */
    /* Each phase-1 length is searched twice: first a loose pass, which
     * skips every child whose corners need all the moves the limit leaves
     * (LOOSE_SLACK fewer), then, FULL_LAG lengths later, the full pass.
     * A path whose corners need every move left seldom ends within the
     * limit, since the U/D edges must then be solved by the very moves
     * that solve the corners; skipping those paths first makes a length
     * cheaper, so the search gets further under a time or node limit.
     * The full pass comes two lengths behind, where a length costs about
     * a hundredth of the one being searched, so no solution is lost for
     * good (docs/benchmarks.md, twenty-first session).
     * When the limit leaves phase 2 fewer than LOOSE_ROOM moves after the
     * length, the loose pass is a full one: with so little room the
     * paths that can still finish are mostly those whose corners need
     * every move left, and skipping them cost more than the time saved
     * (measured at node limits of 10 to 200 ms, forty-first session);
     * the length's full pass is then not searched again. */
    LOOSE_SLACK = 1,
    LOOSE_ROOM = 7,
    FULL_LAG = 2
};

/* A lane of a time vector (least time): whole microseconds, in a double
 * so that a vector's minimum over its states is a few vector
 * instructions (x86-64's baseline has no 64-bit integer minimum; 32 bits
 * would not hold every profile's paths). The sums stay exact integers far
 * below 2^53. */
typedef double gv_lane;

/* One direction of search: the cube as seen in it, and its moves as the
 * robot executes them. */
typedef struct {
    qs_cube cube;
    int inverse;
    int home_class;                /* tilt class of orientation 0 */
    int n_starts;                  /* start orientations */
    uint8_t start[N_TILT];
    uint8_t start_set;             /* stateset at the start */
    uint8_t cube_move[QS_MOVE_COUNT]; /* search move -> cube frame */
    uint8_t cls[ROBOT_ORIENTATIONS];  /* tilt class in this frame */
    /* op[o][m]: the automaton op the robot runs for search move m in
     * orientation o; tilt_to[o][t]: the orientation the search goes to
     * with tilt t (backwards in an inverse search) */
    uint8_t op[ROBOT_ORIENTATIONS][QS_MOVE_COUNT];
    uint8_t tilt_to[ROBOT_ORIENTATIONS][2];
} direction;

/* Candidates (qs_candidate) are kept as the search found them:
 * cube-frame moves, key: rank_key, tag: the robot moves the search
 * counted, value: its time estimate (least time, worker.gv), origin: the
 * direction. */

typedef struct {
    const qs_tables *t;
    const robot_model *rm;
    const robot_profile *prof;
    const robot_solve_options *o;
    qs_cube cube;
    direction dir[N_DIRS];
    uint8_t move_axis[QS_MOVE_COUNT];

    qs_run run;           /* jobs: numbered in steps of 2 * starts_per_len:
                             step s is length s's loose pass, then length
                             s - FULL_LAG's full pass, each a block of
                             the starts by rank (job_dir, job_start) */
    int starts_per_len;
    /* The starts of one length in the order they are searched: each
     * direction's first start class, then the inverse directions' other
     * two. Under a time limit the last length is searched only in part
     * (about an eighth of it at 10 ms, a length costing about ten times
     * the one before), and that part is best spread over the six
     * directions rather than spent on three start classes of one
     * (docs/benchmarks.md). */
    uint8_t job_dir[N_DIRS * N_TILT], job_start[N_DIRS * N_TILT];
    int deepest_done;
    /* full_done[len1][rank]: that job's loose pass was searched as a full
     * one to the end, so its full pass would find nothing new (the limit
     * only falls) */
    _Atomic uint8_t full_done[MAX_P1 + 1][N_DIRS * N_TILT];
    atomic_int limit;     /* most robot moves a path may still have */
    atomic_int found;
    qs_pool cand;         /* best first by rank_key; its lock also guards
                             confirmed, deepest_done and the counts */
    int max_out;
    int confirmed;        /* a plan within max_len has been seen */
    /* Least time (by_time): the search times each path under the profile
     * as it goes: a vector over gripper states of the least time to be
     * in that state (worker.gv), so parallel regrips are charged where
     * the cheapest execution of the path needs them and the time of a
     * solution is its plan's for the tilts the search chose. A path is
     * pruned when its time so far plus its remaining robot moves at
     * min_us each cannot beat bound_us, the time of the worst of the
     * candidates to be returned; candidates are ranked by time. */
    int by_time;
    /* step_us[0][op][from][to]: the least time of op from gripper state
     * `from` to `to` (GV_NONE where op cannot go so); step_us[1] is the
     * same transposed, for inverse searches. Dense and padded to GV_LANES
     * so that a time vector steps in a few vector instructions. */
    gv_lane step_us[2][ROBOT_OPS][GV_LANES][GV_LANES];
    int64_t min_us;
    int n_plan;           /* candidates planned at the end (by_time) */
    _Atomic int64_t bound_us;
    double first_ms;
    uint64_t nodes1, nodes2, searches2;
    /* A tilt may be followed by a turn of either axis it leaves turnable
     * (see tilts_free in robot_solve); set only between engine runs. */
    int tilts_free;
    int8_t read_max[MAX_P1 + 1]; /* see read_limits */
} shared;

/* A phase-1 position: a node of the search, or a child being made. */
typedef struct {
    uint16_t flip, twist, slice;
    uint16_t cs;      /* its corners as class << 4 | sym (corner_cs): the
                         class move table is 250 KB where the raw one is
                         3.6 MB */
    uint8_t o, set, cost, sym;
    uint8_t togo;     /* robot moves its phase-1 path has left */
    int8_t last, need; /* as in phase2 */
    int8_t dist;      /* phase-1 distance in its class, -1 until known */
    uint8_t cdist;    /* robot moves its corners alone need (once the
                         corner-path entry is read: the rest of the path) */
    uint8_t cshift;   /* corner or room entry: bit of the kid's class */
    uint8_t read_path; /* which corner-path entry is fetched and read:
                          READ_NONE, READ_CODE or READ_ROOM */
    int8_t spare;     /* robot moves its corners may still need */
    int16_t parent;   /* its node's index in the group that made it (only
                         while that group is expanded) */
    uint32_t cindex;  /* its corner-path entry (robot_path_index) where it
                         reads one, else its corner entry (rcorners, and
                         a room table's index) in the kid's class */
    uint32_t index;   /* phase-1 entry, UINT32_MAX: the last phase-1 move,
                         NEAR_END: a turn with one phase-1 move left,
                         END_REFUSED: an end its edges refused */
    uint32_t fs;      /* flip and slice places (fs_packed's index) */
    uint16_t udedges; /* the last phase-1 move: U/D edges in phase 2 (a
                         node's own are not kept: see end_edges) */
    uint8_t path[MAX_P1]; /* its path: search moves 0..44, TILT_OP + t;
                             the last made it */
} kid;

/* Nodes of a phase-1 group at most (see expand_group). 32 rather than 16
 * since the dead ends are dropped (forty-seventh session): the same nodes
 * in about 3.5 % less time, as more of a level's reads are in flight at
 * once. Since groups are nearly always full (drain), 16, 24 and 32 take
 * the same time. */
enum { RGROUP = 32 };

/* Nodes of one depth waiting at most: fewer than a group (drain searches
 * a depth as soon as a whole group waits there), and the children of one
 * group. */
enum { LEVEL_CAP = RGROUP - 1 + RGROUP * MAX_KIDS };

/* kid.index of a turn with one phase-1 move left: its children can only
 * be turns into the phase-2 group, which its coordinates name, so it is
 * never located nor its phase-1 entry read (a read from main memory
 * saved at 4-5 % of the nodes). */
#define NEAR_END (UINT32_MAX - 1)

/* kid.read_path: no corner-path entry, its code (robot_path_entry), or
 * its room table's byte (robot_path_rooms). */
enum { READ_NONE, READ_CODE, READ_ROOM };

/* kid.index of a phase-1 end that its edges' phase-2 bound refused
 * (expand_group's ends' pass). */
#define END_REFUSED (UINT32_MAX - 2)

typedef struct {
    shared *sh;
    const qs_tables *t;
    const direction *d;
    const uint8_t (*next)[ROBOT_OPS]; /* nextset or nextiset */
    int dir, len1, len2;
    int slack; /* robot moves the corners must leave to spare: LOOSE_SLACK
                  in a loose pass, 0 in a full one */
    /* Least time: gv[i][s] is the least time of the first i path entries
     * that leaves the grippers in state s (an inverse search: of the last
     * i, starting from state s); GV_NONE where impossible. */
    gv_lane gv[MAX_PATH + 1][GV_LANES];
    uint8_t path[MAX_PATH];  /* search moves 0..44, TILT_OP + t */
    int root_uedges, root_dedges; /* the job's start: edge4 coordinates of
                                     the U and D edges */
    int n_path1, n_path;
    uint64_t nodes1, nodes2, searches2;
    int halt;
    /* The U/D edges (edge4 coordinates) after the first l entries of
     * memo_path, the path of the last phase-1 end that needed them, for l
     * up to memo_len (see end_edges). */
    uint8_t memo_path[MAX_P1];
    int memo_len;
    uint16_t memo_u[MAX_P1 + 1], memo_d[MAX_P1 + 1];
    /* level[l]: the nodes of depth l waiting for their group (see drain),
     * level_gv[l] their time vectors (least time), n_level[l] how many */
    kid *level[MAX_P1 + 1];
    gv_lane (*level_gv[MAX_P1 + 1])[GV_LANES];
    int n_level[MAX_P1 + 1];
} worker;

void robot_solve_options_default(robot_solve_options *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->time_ms = 10;
    o->max_len = -1;
    o->solutions = 1;
    o->objective = ROBOT_OBJ_MOVES;
}

static int axis_of(int m)
{
    return m < 18 ? (m / 3) % 3 : (m - 18) / 9;
}

static int should_halt(worker *w, unsigned nodes)
{
    shared *sh = w->sh;
    /* As in qs_solve: without a length limit the deadline waits for the
     * first solution, so a solvable cube is never left unsolved. */
    int deadline_applies =
        atomic_load_explicit(&sh->found, memory_order_relaxed) ||
        sh->o->max_len >= 0;
    if (qs_halt_poll_nodes(&sh->run.halt, deadline_applies, nodes))
        return w->halt = 1;
    return 0;
}

/* a is better than b under the objective. */
static int better(const robot_solution *a, const robot_solution *b,
                  robot_objective obj)
{
    const robot_schedule *x = &a->plan, *y = &b->plan;
    if (obj == ROBOT_OBJ_TIME && x->cost_ms != y->cost_ms)
        return x->cost_ms < y->cost_ms;
    if (x->robot_moves != y->robot_moves)
        return x->robot_moves < y->robot_moves;
    if (x->cost_ms != y->cost_ms)
        return x->cost_ms < y->cost_ms;
    return x->safe > y->safe;
}

/* Plans a candidate exactly and replays the plan on the robot's physics;
 * returns ROBOT_OK or why it must not be reported. bound: the search's
 * rank_key of the path, the count or time of one execution of it, which
 * the best plan cannot exceed (an inverse search's is an estimate, which
 * robot_plan_within checks); it only speeds the planning up. */
static int plan_candidate(const shared *sh, robot_solution *s, int64_t bound)
{
    qs_cube check = sh->cube;
    qs_cube_apply_moves(&check, s->moves, s->n);
    if (!qs_cube_is_solved(&check))
        return ROBOT_ERR_NOT_SOLVED;
    int err = robot_plan_within(sh->rm, sh->prof, sh->o->objective, s->moves,
                                s->n, bound, &s->plan);
    if (!err) {
        char detail[8];
        err = robot_check(&s->plan, &sh->cube, sh->prof, detail,
                          sizeof detail);
    }
    return err;
}

/* Orders candidates: by the search's robot moves, or (least time) by its
 * time estimate. */
static int64_t rank_key(const shared *sh, int count, int64_t est_us)
{
    return sh->by_time ? est_us : count;
}

/* Keeps the path (as cube-frame face turns) among the candidates, ranked
 * by rank_key; est_us is the path's time (least time only). Planning (a
 * dynamic program far dearer than a search node) waits for the end of
 * the search, except where a length limit must be confirmed. */
static void record(worker *w, int count, int64_t est_us)
{
    shared *sh = w->sh;
    const direction *d = w->d;
    qs_candidate c;
    int n = 0;
    qs_move seq[QS_MAX_MOVES];
    for (int i = 0; i < w->n_path; i++)
        if (w->path[i] < QS_MOVE_COUNT)
            seq[n++] = d->cube_move[w->path[i]];
    if (d->inverse)
        qs_moves_invert(seq, n, c.moves);
    else
        memcpy(c.moves, seq, (size_t)n);
    c.n = (int16_t)n;
    c.tag = count;
    c.origin = (int16_t)w->dir;
    c.value = est_us;
    c.key = rank_key(sh, count, est_us);

    /* The same moves found again (another direction or tilt placement)
     * replace the old entry when the search counts them better. */
    qs_pool *p = &sh->cand;
    qs_pool_lock(p);
    int pos = qs_pool_insert(p, &c);
    if (pos >= 0) {
        if (atomic_load(&sh->found) == 0)
            sh->first_ms = qs_ms_since(sh->run.start_ns);
        atomic_store(&sh->found, p->n);
        /* Fewest moves: with `want` candidates, only shorter paths count.
         * Least time: see bound_us. */
        int lim = atomic_load(&sh->limit);
        if (sh->by_time) {
            int shortest = p->c[0].tag;
            for (int i = 1; i < p->n; i++)
                if (p->c[i].tag < shortest)
                    shortest = p->c[i].tag;
            /* Paths longer than the shortest candidate are not searched:
             * more robot moves rarely take less time, and the time
             * ranking chooses among those found. */
            if (shortest < lim)
                lim = shortest;
            if (p->n >= sh->max_out)
                atomic_store(&sh->bound_us, p->c[sh->max_out - 1].value);
        } else if (p->n >= sh->max_out &&
                   p->c[sh->max_out - 1].tag - 1 < lim) {
            lim = p->c[sh->max_out - 1].tag - 1;
        }
        atomic_store(&sh->limit, lim);
        if (pos == 0 && sh->o->on_improve)
            sh->o->on_improve(sh->o->improve_ctx, count);
        if (sh->o->max_len >= 0 && count <= sh->o->max_len &&
            !sh->confirmed) {
            robot_solution *s = malloc(sizeof *s);
            if (s) {
                memcpy(s->moves, c.moves, (size_t)c.n);
                s->n = c.n;
                if (plan_candidate(sh, s, c.key) == ROBOT_OK &&
                    s->plan.robot_moves <= sh->o->max_len) {
                    sh->confirmed = 1;
                    qs_halt_stop(&sh->run.halt);
                }
                free(s);
            }
        }
    }
    qs_pool_unlock(p);
}

/* The stateset after op, with a full regrip first when op is impossible
 * from every state; *cost is 1 or 2 (0 when even that fails). */
static int step_set(const worker *w, int set, int op, int *cost)
{
    int next = w->next[set][op];
    if (next) {
        *cost = 1;
        return next;
    }
    next = w->next[w->next[set][ROBOT_OP_REGRIP]][op];
    *cost = next ? 2 : 0;
    return next;
}

/* An impossible state: beyond any path's time, and still beyond it after
 * a step is added (the sums are compared, never stored above it). */
#define GV_NONE 1e18

/* One automaton op on a time vector, forwards or (inverse) backwards:
 * out[j] = min over i of in[i] + the op's time between states i and j,
 * never above GV_NONE. Returns out's least entry. Only the states a path
 * can be in (in[i] below GV_NONE, few of them) count. */
static gv_lane gv_apply(const shared *sh, int inverse, const gv_lane *in,
                        int op, gv_lane *out)
{
    const gv_lane(*m)[GV_LANES] = sh->step_us[inverse][op];
#ifdef __SSE2__
    /* Two lanes an instruction (the compiler does not vectorize the loop
     * below); _mm_min_pd(a, b) is a < b ? a : b, as there. */
    _Static_assert(GV_LANES == 8, "the least entry below takes 4 pairs");
    const __m128d none = _mm_set1_pd(GV_NONE);
    __m128d v[GV_LANES / 2];
    unsigned live = 0;
    for (int k = 0; k < GV_LANES / 2; k++) {
        v[k] = none;
        live |= (unsigned)_mm_movemask_pd(
                    _mm_cmplt_pd(_mm_loadu_pd(&in[2 * k]), none))
                << 2 * k;
    }
    while (live) {
        int i = __builtin_ctz(live);
        live &= live - 1;
        __m128d x = _mm_set1_pd(in[i]);
        for (int k = 0; k < GV_LANES / 2; k++)
            v[k] = _mm_min_pd(_mm_add_pd(x, _mm_loadu_pd(&m[i][2 * k])),
                              v[k]);
    }
    for (int k = 0; k < GV_LANES / 2; k++)
        _mm_storeu_pd(&out[2 * k], v[k]);
    __m128d least = _mm_min_pd(_mm_min_pd(v[0], v[1]), _mm_min_pd(v[2], v[3]));
    least = _mm_min_pd(least, _mm_unpackhi_pd(least, least));
    return _mm_cvtsd_f64(least);
#else
    gv_lane acc[GV_LANES];
    unsigned live = 0;
    for (int j = 0; j < GV_LANES; j++) {
        acc[j] = GV_NONE;
        live |= (unsigned)(in[j] < GV_NONE) << j;
    }
    while (live) {
        int i = __builtin_ctz(live);
        live &= live - 1;
        for (int j = 0; j < GV_LANES; j++) {
            gv_lane c = in[i] + m[i][j];
            acc[j] = c < acc[j] ? c : acc[j];
        }
    }
    memcpy(out, acc, sizeof acc);
    gv_lane least = GV_NONE;
    for (int j = 0; j < GV_LANES; j++)
        least = acc[j] < least ? acc[j] : least;
    return least;
#endif
}

/* Least time: the time vector `out` after op from `in` (preceded by a
 * full regrip when step_set charged one, cost 2, in the order step_set
 * takes them); returns its least entry, the path's time so far. */
static int64_t advance_from(const shared *sh, int inverse, const gv_lane *in,
                            int op, int cost, gv_lane *out)
{
    gv_lane tmp[GV_LANES];
    if (cost == 2) {
        gv_apply(sh, inverse, in, ROBOT_OP_REGRIP, tmp);
        in = tmp;
    }
    return (int64_t)gv_apply(sh, inverse, in, op, out);
}

/* advance_from along the path: w->gv[depth + 1] from w->gv[depth]. */
static int64_t advance(worker *w, int depth, int op, int cost)
{
    return advance_from(w->sh, w->d->inverse, w->gv[depth], op, cost,
                        w->gv[depth + 1]);
}

/* Least time: a path that has taken g and needs at least `moves` more
 * robot moves (at min_us each) cannot beat the candidates held. */
static int over_time(const worker *w, int64_t g, int moves)
{
    const shared *sh = w->sh;
    return sh->by_time &&
           g + moves * sh->min_us >=
               atomic_load_explicit(&sh->bound_us, memory_order_relaxed);
}

/* The phase-2 entry (rphase2) of a position in the phase-2 group, for
 * phase2_bound; fetched ahead of reading, since the table is far beyond
 * the cache. */
static const uint32_t *phase2_entry(const qs_tables *t, int cs, int udedges)
{
    return &t->rphase2[(uint64_t)(cs >> 4) * N_PERM8 +
                       t->udedges_conj[udedges][cs & 15]];
}

/* Lower bound on the robot moves from a phase-2 position (corners cs as
 * corner_cs gives them) in tilt class k (of the search frame) to the end
 * the direction needs. */
static int phase2_bound(const worker *w, int cs, int udedges, int k)
{
    const qs_tables *t = w->t;
    int s = cs & 15;
    uint32_t e = *phase2_entry(t, cs, udedges);
    int kk = t->axis_conj[k][s];
    int dist = (int)(e >> (4 * kk) & 15);
    if (w->d->inverse) {
        int end = t->axis_conj[w->d->home_class][s];
        dist += (int)(e >> (RP2_EXCESS + 3 * end + kk) & 1);
    }
    return dist;
}

/* need: the axis the next turn must use (after a tilt, the one the tilt
 * made turnable; a tilt followed by anything else could come later), or
 * -1. last: the axis of the last turn, or -1. */
static int phase2(worker *w, int corners, int udedges, int slice2, int o,
                  int set, int togo, int depth, int last, int need, int64_t g)
{
    const qs_tables *t = w->t;
    const direction *d = w->d;
    const shared *sh = w->sh;
    if (togo == 0) {
        if (corners || udedges || slice2)
            return 0;
        if (d->inverse && (d->cls[o] != d->home_class || !(set & 1)))
            return 0;
        w->n_path = depth;
        if (!sh->by_time)
            return 1;
        /* Least time: every solution of this length may be the fastest.
         * An inverse search has walked back to the start of the
         * execution, where the grippers are neutral. */
        record(w, w->len1 + w->len2, d->inverse ? (int64_t)w->gv[depth][0] : g);
        return 0;
    }
    if (togo == 1 && d->inverse && !(corners || udedges || slice2) &&
        d->cls[o] == d->home_class && !(set & 1) &&
        (w->next[set][ROBOT_OP_REGRIP] & 1)) {
        /* An inverse search walks the execution backwards and charges a
         * full regrip after the op that needs it, so an execution that
         * starts with a full regrip would never be found: solved in the
         * home class, but the grippers must first leave the neutral state
         * by that full regrip, one move. */
        w->n_path = depth;
        if (!sh->by_time)
            return 1;
        gv_lane v[GV_LANES];
        gv_apply(sh, 1, w->gv[depth], ROBOT_OP_REGRIP, v);
        record(w, w->len1 + w->len2, (int64_t)v[0]);
        return 0;
    }
    if ((++w->nodes2 & CHECK_EVERY) == 0 && should_halt(w, CHECK_EVERY + 1))
        return 0;
    int k = d->cls[o];
    for (int j = 0; j < t->n_p2; j++) {
        int m = t->p2_move[j], axis = w->sh->move_axis[m];
        if (axis == k || axis == last ||
            (need >= 0 && axis != need && !sh->tilts_free))
            continue;
        int cost, set2 = step_set(w, set, d->op[o][m], &cost);
        int rest = togo - cost;
        if (!cost || rest < 0)
            continue;
        int c2 = move_row(t, t->corners_move, corners)[m];
        int s2 = t->slice2_move[slice2][m];
        if (t->cornslice[c2 * N_SLICE2 + s2] > rest)
            continue;
        int u2 = t->udedges_move[udedges][j];
        if (t->edgeslice[u2 * N_SLICE2 + s2] > rest)
            continue;
        /* Least time: the time vector only for moves the small tables
         * let through. */
        int64_t g2 = sh->by_time ? advance(w, depth, d->op[o][m], cost) : 0;
        if (over_time(w, g2, rest) ||
            phase2_bound(w, corner_cs(t, c2), u2, k) > rest)
            continue;
        w->path[depth] = (uint8_t)m;
        if (phase2(w, c2, u2, s2, o, set2, rest, depth + 1, axis, -1, g2))
            return 1;
        if (w->halt)
            return 0;
    }
    /* An inverse path's first entry is the execution's last step: a tilt
     * there would turn a cube already solved (the same path without it
     * is searched from the class the tilt leads to). */
    if (need >= 0 || (d->inverse && depth == 0))
        return 0;
    int cs = corner_cs(t, corners); /* a tilt moves no corner */
    for (int tilt = 0; tilt < 2; tilt++) {
        int cost, set2 = step_set(w, set, ROBOT_OP_TILT_RL + tilt, &cost);
        int rest = togo - cost;
        if (!cost || rest < 1)
            continue;
        int64_t g2 =
            sh->by_time ? advance(w, depth, ROBOT_OP_TILT_RL + tilt, cost) : 0;
        if (over_time(w, g2, rest))
            continue;
        int o2 = d->tilt_to[o][tilt];
        if (phase2_bound(w, cs, udedges, d->cls[o2]) > rest)
            continue;
        w->path[depth] = (uint8_t)(TILT_OP + tilt);
        if (phase2(w, corners, udedges, slice2, o2, set2, rest, depth + 1,
                   last, k, g2))
            return 1;
        if (w->halt)
            return 0;
    }
    return 0;
}

/* The bounds a phase-1 end can be refused by without its phase-2 entry:
 * corners and U/D edges each with the slice edges (s2: their phase-2
 * coordinate). The corners' comes first: it needs no U/D edges, which a
 * node does not carry (end_edges). */
static int end_corner_bound(const qs_tables *t, int s2, int corners)
{
    return t->cornslice[corners * N_SLICE2 + s2];
}

static int end_edge_bound(const qs_tables *t, int s2, int udedges)
{
    return t->edgeslice[udedges * N_SLICE2 + s2];
}

static int end_bound(const qs_tables *t, int s2, int corners, int udedges)
{
    int lb = end_corner_bound(t, s2, corners);
    int lb2 = end_edge_bound(t, s2, udedges);
    return lb2 > lb ? lb2 : lb;
}

/* A phase-1 path of the job's length has reached the phase-2 group, its
 * corners at cs (corner_cs), its U/D edges at udedges (s2: the slice
 * edges' phase-2 coordinate). */
static void phase1_end(worker *w, int s2, int cs, int udedges, int o,
                       int set, int depth, int last, int64_t g)
{
    const qs_tables *t = w->t;
    int room = atomic_load_explicit(&w->sh->limit, memory_order_relaxed) -
               w->len1;
    int corners = t->corner_of_cs[cs];
    int lb = end_bound(t, s2, corners, udedges);
    int lb2 = phase2_bound(w, cs, udedges, w->d->cls[o]);
    if (lb2 > lb)
        lb = lb2;
    if (lb > room)
        return;
    w->searches2++;
    w->n_path1 = depth;
    /* Long phase-2 paths cost more search than deeper phase-1 paths that
     * leave short ones. */
    if (room > MAX_P2)
        room = MAX_P2;
    for (int len2 = lb; len2 <= room && !w->halt; len2++) {
        if (over_time(w, g, len2))
            break;
        w->len2 = len2;
        if (phase2(w, corners, udedges, s2, o, set, len2, depth, last, -1,
                   g)) {
            record(w, w->len1 + len2, 0);
            return;
        }
        room = atomic_load_explicit(&w->sh->limit, memory_order_relaxed) -
               w->len1;
        if (room > MAX_P2)
            room = MAX_P2;
    }
}

static void locate(const qs_tables *t, kid *c)
{
    uint32_t cs = t->fs_packed[c->fs];
    c->sym = (uint8_t)(cs & 15);
    c->index = (cs >> 4) * N_TWIST + t->twist_conj[c->twist][c->sym];
}

/* The phase-1 distance of a located kid from tilt class k, read from
 * whichever phase-1 table the set has. */
static int kid_dist(const qs_tables *t, const kid *c, int k)
{
    uint16_t e = t->rphase1x ? t->rphase1x[c->index].dist
                             : t->rphase1[c->index];
    return robot_p1_dist(t, e, c->sym, k);
}

static void prefetch_entry(const qs_tables *t, const kid *c)
{
    if (t->rphase1x)
        __builtin_prefetch(&t->rphase1x[c->index]);
    else
        __builtin_prefetch(&t->rphase1[c->index]);
}

/* With the large table: the turns from node n (class k, distance d) whose
 * child is within `lim` = togo - cost - d + 1 of delta (see robot_p1x),
 * and each turn's delta; without it every turn passes and the children's
 * entries decide. */
typedef struct {
    uint32_t by_delta[3]; /* local bits of class kk (robot_p1x_local) */
    int large;
    int sym, kk;          /* the frame: bit b is turn rloc_move[sym][kk][b] */
    unsigned dead;        /* class kk's 4 dead bits (robot_p1x.dead) */
} turn_bounds;

/* A node's turns within reach (expand_group's first pass): its bounds, the
 * turns that can finish at cost 1 (ok1) and after a full regrip (ok2),
 * and those it may make. */
typedef struct {
    turn_bounds b;
    uint32_t ok1, ok2, moves;
} node_turns;

/* Whether a tilt from node n (class k; a node that tilts has two or more
 * moves left, so it was located and its large entry read) to class k2,
 * with spare robot moves beyond its distance there, makes a dead end:
 * the turn that must follow it, of axis k, has none that fits. The
 * node's entry has class k2's turns too (a tilt keeps the position), so
 * this costs no read. At a length limit of 19, 9 % fewer nodes; but tilt
 * children were cheap nodes (they read their node's entry again, from
 * the cache): 1-2 % less time. */
static int tilt_dead_end(const qs_tables *t, const kid *n, int k, int k2,
                         int spare)
{
    if (spare >= 2)
        return 0;
    int kk2 = t->axis_conj[k2][n->sym];
    uint32_t by_delta[3];
    robot_p1x_local(&t->rphase1x[n->index], kk2, by_delta);
    uint32_t fits = by_delta[0] | (spare == 1 ? by_delta[1] : 0);
    return !(fits & robot_local_axis(kk2, t->axis_conj[k][n->sym]));
}

static void bounds_init(const qs_tables *t, const kid *n, int k,
                        turn_bounds *b)
{
    b->large = n->index == NEAR_END || t->rphase1x != NULL;
    b->by_delta[0] = b->by_delta[1] = b->by_delta[2] = 0;
    b->dead = 0;
    if (n->index != NEAR_END) {
        /* In the representative's frame; only the turns made are mapped
         * into the position's (about 16 instructions a node fewer than
         * remapping the masks, 3-4 % less time; forty-fourth session).
         * Without the move table the turns are taken in the same order,
         * so that both sizes search alike. */
        b->sym = n->sym;
        b->kk = t->axis_conj[k][n->sym];
        if (t->rphase1x) {
            const robot_p1x *e = &t->rphase1x[n->index];
            robot_p1x_local(e, b->kk, b->by_delta);
            b->dead = e->dead >> (4 * b->kk) & 15;
        }
    } else {
        /* In the position's own frame (symmetry 0 is the identity). */
        b->sym = 0;
        b->kk = k;
        /* Only the turns into the phase-2 group can follow, and the
         * coordinates name them (the rest is never read): exact, with
         * either table. */
        uint64_t enter = g1_entering_moves(t, n->flip, n->twist, n->slice) &
                         t->tilt_moves[k];
        for (; enter; enter &= enter - 1)
            b->by_delta[0] |= 1u << t->rmove_local[k][__builtin_ctzll(enter)];
    }
}

/* The phase-1 distance of a NEAR_END kid in class k, as far as a search
 * with one move left needs it: 0 in the group, 1 next to it, else 2. */
static int near_end_dist(const qs_tables *t, const kid *c, int k)
{
    if (position_in_phase2_group(c->flip, c->twist, c->slice))
        return 0;
    return g1_entering_moves(t, c->flip, c->twist, c->slice) &
                   t->tilt_moves[k]
               ? 1
               : 2;
}
static uint32_t bounds_allowed(const turn_bounds *b, int lim)
{
    if (!b->large || lim >= 2)
        return ROBOT_LOCAL_ALL;
    if (lim < 0)
        return 0;
    return lim == 0 ? b->by_delta[0] : b->by_delta[0] | b->by_delta[1];
}

static int bounds_delta(const turn_bounds *b, int bit)
{
    return (int)(b->by_delta[1] >> bit & 1) +
           2 * (int)(b->by_delta[2] >> bit & 1);
}

/* Whether the turn of local bit `bit` (its delta, bounds_delta), at
 * `cost` robot moves from a node of distance dist with togo moves left,
 * makes a dead end: a child with no move to spare (dist + delta - 1 =
 * togo - cost) whose turn's group the node's entry marks dead
 * (robot_p1x.dead). It would make no child
 * of its own; dropped here, its entry is never located nor read. The
 * same solutions from 15 % fewer nodes in 12 % less time, at a length
 * limit of 19 (forty-seventh session). */
static int bounds_dead_end(const turn_bounds *b, int bit, int delta,
                           int dist, int togo, int cost)
{
    return delta > 0 && dist + delta - 1 == togo - cost &&
           (b->dead >> (2 * (bit >= 15) + delta - 1) & 1);
}

/* Which children read their corner-path entry: one with j phase-1 moves
 * left reads it when its spare robot moves are at most read_max[j]. Not
 * where no entry can refuse it (robot_path_most; the same nodes, 12 %
 * fewer of these reads at a 10 ms solve's nodes), nor where entries
 * seldom do: a read is a random access to 36 MB that costs a large part
 * of a node. Measured at 10 ms-sized searches (room: spare - j, the moves
 * phase 2 may take, the same for every node of a job): with 8 or more
 * phase-1 moves left no read refused a child; with 7, 1-5 % where the
 * room was over 4; with 6, 3-11 % where it was over 6; elsewhere mostly
 * 20-60 %. Those reads were a third of all; without them a node costs
 * about a tenth less, and a child one of them would have refused is
 * refused a level down (docs/benchmarks.md, forty-second session).
 * most_room[j]: the widest room at which a child with j moves left still
 * reads. With 8 or more moves left it is 7's, 4: a random cube's search
 * seldom has so little room at those lengths (the same answers at the
 * nodes of 50 and 200 ms solves), but a short scramble's complete search
 * ends with it, and there the reads halve the nodes (forty-fifth
 * session). Least time always reads it, for the time bound of its path.
 * Both rules bound the spare from above, so each j has one threshold,
 * set once per solve: a compare where a child made three tests (4.6 %
 * fewer instructions, the same nodes; the time did not change beyond the
 * noise, forty-sixth session). */
static void read_limits(shared *sh)
{
    static const int8_t most_room[] = {15, 15, 15, 15, 15, 15, 6, 4};
    int last = (int)sizeof most_room - 1;
    for (int j = 0; j <= MAX_P1; j++) {
        /* the widest room, narrowed to where an entry can still refuse
         * (robot_path_may_refuse falls as the spare grows) */
        int hi = j + most_room[j < last ? j : last];
        while (hi >= 0 && !robot_path_may_refuse(j, hi))
            hi--;
        sh->read_max[j] = (int8_t)(sh->by_time ? INT8_MAX : hi);
    }
}

/* The U/D edges (edge4 coordinates u, dn) after path entry op. */
static void edges_after(const qs_tables *t, int op, int *u, int *dn)
{
    if (op < TILT_OP) { /* a tilt moves no edge */
        *u = move_row(t, t->edge4_move, *u)[op];
        *dn = move_row(t, t->edge4_move, *dn)[op];
    }
}

/* The U/D edges (udedges_of) of child c, whose path has `len` entries.
 * Only a phase-1 end needs them, and ends are about one node in
 * thirteen, so a node does not carry them (about 2 % fewer
 * instructions). They are made from the longest start of the path that
 * the last end asked for shares: ends come in the order of a depth-first
 * search, so most cost a move or two, where a replay from the job's start
 * cost a chain of two dependent reads a level (forty-eighth session:
 * the same search, and at 10 ms about 15 % more nodes). */
static int end_edges(worker *w, const kid *c, int len)
{
    int same = 0, most = len < w->memo_len ? len : w->memo_len;
    while (same < most && c->path[same] == w->memo_path[same])
        same++;
    int u = w->memo_u[same], dn = w->memo_d[same];
    for (int i = same; i < len; i++) {
        edges_after(w->t, c->path[i], &u, &dn);
        w->memo_path[i] = c->path[i];
        w->memo_u[i + 1] = (uint16_t)u;
        w->memo_d[i + 1] = (uint16_t)dn;
    }
    w->memo_len = len;
    return udedges_of(w->t, u, dn);
}

/* Expands the ng nodes of group g (each located, its dist known, its
 * togo, last and need set; ggv[i]: node i's time vector under least
 * time), all at depth `depth`: its phase-1 ends are searched in phase 2,
 * and its other children join the nodes waiting at depth + 1.
 *
 * The search goes a level at a time, as the optimal search's H48 part
 * does (solver/optimal.c): the children of every node of the group are
 * made and their table entries fetched together, and those that pass
 * wait for the next level's groups. A node's own children are about ten, and
 * the reads of their entries (the corner-path table, the flip-slice
 * classes, the phase-1 and phase-2 tables, each far beyond the cache)
 * then wait a whole memory latency at each of three steps; a group keeps
 * about a hundred and fifty of them in flight instead. The nodes visited
 * are those of a depth-first search; only their order differs. */
static void expand_group(worker *w, const kid *g,
                         const gv_lane (*ggv)[GV_LANES], int ng, int depth)
{
    const qs_tables *t = w->t;
    const direction *d = w->d;
    shared *sh = w->sh;
    /* the children go after the nodes of depth + 1 still waiting */
    kid *kids = w->level[depth + 1] + w->n_level[depth + 1];
    gv_lane(*kgv)[GV_LANES] = w->level_gv[depth + 1] + w->n_level[depth + 1];
    int count = 0;
    int limit = atomic_load_explicit(&sh->limit, memory_order_relaxed);
    /* In robot moves a child's corner-path question is whether its bound
     * leaves the job's room to phase 2: one byte of a 6 MB table rather
     * than a code in 36 MB (least time reads the codes, for the time
     * bound of its path). */
    const uint8_t *rooms =
        sh->by_time ? NULL : robot_path_rooms(t, limit - w->len1 - w->slack);
    /* First pass: each node's turns within reach, from its own entry,
     * and the move-table entries of those turns fetched. A node makes
     * about two turns of the 45 in a row, so these few lines replace
     * fetching every line of four rows (about 12 a child, when it was
     * kept a level up), which left the fill buffers full: about 0.92 of
     * the time for the same nodes (forty-ninth session). */
    node_turns nt[RGROUP];
    /* Most nodes' entries were fetched when they were made, just before;
     * but one in seven waited for hundreds of nodes (a group's leftovers
     * wait at their depth), and its entry has left the cache. Fetched
     * here, those reads overlap rather than stall the pass one by one
     * (2 % less time). */
    if (t->rphase1x)
        for (int i = 0; i < ng; i++)
            if (g[i].index < NEAR_END)
                __builtin_prefetch(&t->rphase1x[g[i].index]);
    for (int i = 0; i < ng; i++) {
        const kid *n = &g[i];
        if ((++w->nodes1 & CHECK_EVERY) == 0 &&
            should_halt(w, CHECK_EVERY + 1))
            return;
        node_turns *u = &nt[i];
        bounds_init(t, n, d->cls[n->o], &u->b);
        /* Turns that can still finish at cost 1, and after a full
         * regrip. */
        u->ok1 = bounds_allowed(&u->b, n->togo - n->dist);
        u->ok2 = bounds_allowed(&u->b, n->togo - n->dist - 1);
        uint32_t moves = u->ok1 | u->ok2;
        if (n->last >= 0)
            moves &= ~robot_local_axis(u->b.kk,
                                       t->axis_conj[n->last][u->b.sym]);
        if (n->need >= 0 && !sh->tilts_free)
            moves &= robot_local_axis(u->b.kk,
                                      t->axis_conj[n->need][u->b.sym]);
        u->moves = moves;
        if (!t->rphase1x)
            continue; /* every turn passes: whole rows, fetched a pass
                         earlier (below) */
        const uint8_t *turn = t->rloc_move[u->b.sym][u->b.kk];
        const uint16_t *frow = move_row(t, t->flip_move, n->flip),
                       *trow = move_row(t, t->twist_move, n->twist),
                       *srow = move_row(t, t->edge4_move, n->slice);
        /* The lowest and the highest turn: a node makes about two, and
         * a loop over them (a branch whose count varies from node to
         * node) took about 4 % more time. The corners step through
         * their class table (corner_cs_step), 250 KB where the raw move
         * table is 3.6 MB: 0.95-0.97 of the time (fifty-first
         * session). */
        if (moves) {
            int lo = turn[__builtin_ctz(moves)],
                hi = turn[31 - __builtin_clz(moves)];
            __builtin_prefetch(&frow[lo]);
            __builtin_prefetch(&trow[lo]);
            __builtin_prefetch(&srow[lo]);
            __builtin_prefetch(&frow[hi]);
            __builtin_prefetch(&trow[hi]);
            __builtin_prefetch(&srow[hi]);
            const uint16_t *crow =
                t->corner_cs_move + (n->cs >> 4) * t->n_moves;
            __builtin_prefetch(&crow[t->move_conj[lo][n->cs & 15]]);
            __builtin_prefetch(&crow[t->move_conj[hi][n->cs & 15]]);
        }
    }
    /* Second pass: every node's children, their coordinates, and their
     * corner and flip-slice entries fetched. */
    for (int i = 0; i < ng; i++) {
        const kid *n = &g[i];
        int togo = n->togo, k = d->cls[n->o];
        const turn_bounds b = nt[i].b;
        /* Robot moves the path may still take, the child's included: a
         * child whose corners alone need more is not visited. */
        int budget = limit - (w->len1 - togo) - w->slack;
        uint32_t ok1 = nt[i].ok1, ok2 = nt[i].ok2, moves = nt[i].moves;
        const uint8_t *turn = t->rloc_move[b.sym][b.kk];
        const uint16_t *frow = move_row(t, t->flip_move, n->flip),
                       *trow = move_row(t, t->twist_move, n->twist),
                       *srow = move_row(t, t->edge4_move, n->slice);
        while (moves) {
            int bit = __builtin_ctz(moves), m = turn[bit];
            moves &= moves - 1;
            int cost, set2 = step_set(w, n->set, d->op[n->o][m], &cost);
            if (!cost || cost > togo || !((cost == 1 ? ok1 : ok2) >> bit & 1))
                continue;
            /* the child's distance is exact with the large table */
            int delta = b.large ? bounds_delta(&b, bit) : 0;
            if (b.dead && bounds_dead_end(&b, bit, delta, n->dist, togo, cost))
                continue;
            kid *c = &kids[count];
            c->flip = frow[m];
            c->twist = trow[m];
            c->slice = srow[m];
            c->cs = (uint16_t)corner_cs_step(t, n->cs, m);
            if (cost == togo) {
                /* The last phase-1 move: it must reach the group, and not
                 * by a phase-2 move (a shorter phase-1 path would exist). */
                if (!position_in_phase2_group(c->flip, c->twist, c->slice) ||
                    (t->g1_moves >> m & 1))
                    continue;
                c->index = UINT32_MAX;
            } else {
                c->index = 0;
                c->fs = (uint32_t)(c->slice / 24 * N_FLIP + c->flip);
                if (togo - cost > 1) /* else never located (NEAR_END) */
                    __builtin_prefetch(&t->fs_packed[c->fs]);
            }
            memcpy(c->path, n->path, sizeof c->path);
            c->path[depth] = (uint8_t)m;
            c->o = n->o;
            c->set = (uint8_t)set2;
            c->cost = (uint8_t)cost;
            c->togo = (uint8_t)(togo - cost);
            c->last = (int8_t)sh->move_axis[m];
            c->need = -1;
            c->spare = (int8_t)(budget - cost);
            c->parent = (int16_t)i;
            c->dist =
                b.large ? (int8_t)(n->dist + delta - 1) : -1;
            /* A corner-path entry holds the corner entry's distance and
             * never bounds below it: with the table, one read serves
             * both, and none where it cannot refuse the child (nor is
             * the entry located then). */
            c->cdist = 0;
            c->read_path = READ_NONE;
            if (!t->rpath_code) {
                c->cindex = robot_corner_index_cs(t, c->cs, c->twist, k,
                                                  &c->cshift);
                __builtin_prefetch(&t->rcorners[c->cindex]);
            } else if (c->spare <= sh->read_max[c->togo]) {
                uint8_t shift;
                uint32_t ci =
                    robot_corner_index_cs(t, c->cs, c->twist, k, &shift);
                c->read_path = READ_CODE;
                if (rooms) {
                    c->read_path = READ_ROOM;
                    c->cindex = ci;
                    c->cshift = shift;
                    __builtin_prefetch(&rooms[ci]);
                } else {
                    c->cindex = robot_path_index(ci, shift);
                    __builtin_prefetch(&t->rpath_code[c->cindex]);
                }
            }
            count++;
        }
        if (n->need >= 0 || togo < 2 || (d->inverse && depth == 0))
            continue;
        for (int tilt = 0; tilt < 2; tilt++) {
            int cost,
                set2 = step_set(w, n->set, ROBOT_OP_TILT_RL + tilt, &cost);
            if (!cost || cost >= togo)
                continue;
            int o2 = d->tilt_to[n->o][tilt], k2 = d->cls[o2];
            /* The same position: its entry is the node's, in the cache. */
            int dist = kid_dist(t, n, k2);
            if (dist > togo - cost)
                continue;
            /* (with tilts free, a tilt may be followed by either axis) */
            if (t->rphase1x && !sh->tilts_free &&
                tilt_dead_end(t, n, k, k2, togo - cost - dist))
                continue;
            uint8_t shift = 0;
            uint32_t cindex = 0;
            int cdist = 0, read_path = READ_NONE;
            if (!t->rpath_code) {
                cindex =
                    robot_corner_index_cs(t, n->cs, n->twist, k2, &shift);
                cdist = robot_corner_value(t->rcorners[cindex], shift);
                if (cdist > budget - cost)
                    continue;
            } else if (budget - cost <= sh->read_max[togo - cost]) {
                read_path = READ_CODE;
                cindex = robot_corner_index_cs(t, n->cs, n->twist, k2,
                                               &shift);
                if (rooms) {
                    read_path = READ_ROOM;
                    __builtin_prefetch(&rooms[cindex]);
                } else {
                    cindex = robot_path_index(cindex, shift);
                    __builtin_prefetch(&t->rpath_code[cindex]);
                }
            }
            kid *c = &kids[count++];
            *c = *n;
            c->cindex = cindex;
            c->cshift = shift;
            c->read_path = (uint8_t)read_path;
            c->path[depth] = (uint8_t)(TILT_OP + tilt);
            c->o = (uint8_t)o2;
            c->set = (uint8_t)set2;
            c->cost = (uint8_t)cost;
            c->togo = (uint8_t)(togo - cost);
            c->need = (int8_t)k; /* c->last: the node's */
            c->spare = (int8_t)(budget - cost);
            c->parent = (int16_t)i;
            c->cdist = (uint8_t)cdist;
            c->dist = (int8_t)dist;
        }
    }
    /* Third pass: children whose corners need more than their budget
     * are dropped, by the corner-path entry when phase 1 must end after
     * exactly the moves left (where it could refuse them), else by the
     * corner entry; phase-1 ends by the corners' small table, and their
     * U/D edges made; the others' phase-1 entries are fetched (a tilt
     * child's entry is its node's, already read). */
    int kept = 0, room = limit - w->len1, ends = 0;
    for (int i = 0; i < count; i++) {
        kid *c = &kids[i];
        if (c->read_path == READ_ROOM) {
            /* the fewest phase-1 moves left at which the corners let a
             * path through (bound <= spare) */
            if (c->togo < robot_corner_value(rooms[c->cindex], c->cshift))
                continue;
        } else if (c->read_path == READ_CODE) {
            int bound =
                robot_path_bound(robot_path_entry(t, c->cindex), c->togo);
            if (bound > c->spare)
                continue;
            c->cdist = (uint8_t)bound; /* never below the corners' own */
        } else if (!t->rpath_code && c->path[depth] < TILT_OP) {
            c->cdist = (uint8_t)robot_corner_value(t->rcorners[c->cindex],
                                                   c->cshift);
            if (c->cdist > c->spare)
                continue;
        }
        if (c->index == UINT32_MAX) {
            /* The U/D edges are made only for ends the corners let
             * through (12 % are not: about 1 % less time). */
            int s2 = c->slice - SLICE_SOLVED * 24;
            if (end_corner_bound(t, s2, t->corner_of_cs[c->cs]) > room)
                continue;
            c->udedges = (uint16_t)end_edges(w, c, depth + 1);
            /* its edges' bound and the row that locates its phase-2
             * entry, read in the ends' own pass below */
            __builtin_prefetch(&t->edgeslice[c->udedges * N_SLICE2 + s2]);
            __builtin_prefetch(t->udedges_conj[c->udedges]);
            ends++;
        } else if (c->path[depth] < TILT_OP && c->togo == 1) {
            c->index = NEAR_END;
        } else if (c->path[depth] < TILT_OP) {
            locate(t, c);
            prefetch_entry(t, c);
        }
        if (kept != i)
            kids[kept] = *c;
        kept++;
    }
    /* The phase-1 ends' pass: their edges' phase-2 bound, then their
     * phase-2 entries fetched. Read right after the U/D edges were made,
     * the bound waited for the cache at every end (edgeslice, 1 MB) and
     * the entry's location at the row of udedges_conj (1.3 MB): 4 % of
     * the time, where this pass lets those reads overlap (fiftieth
     * session). An end that fails is marked, not moved. */
    for (int i = 0; ends && i < kept; i++) {
        kid *c = &kids[i];
        if (c->index != UINT32_MAX)
            continue;
        ends--;
        if (end_edge_bound(t, c->slice - SLICE_SOLVED * 24, c->udedges) >
            room)
            c->index = END_REFUSED;
        else
            __builtin_prefetch(phase2_entry(t, c->cs, c->udedges));
    }
    /* Fourth pass: the children within reach; the phase-1 ends searched in
     * phase 2, the others kept for the next level. */
    int next = 0;
    for (int i = 0; i < kept && !w->halt; i++) {
        kid *c = &kids[i];
        if (c->index == END_REFUSED)
            continue;
        int rest = c->togo, op = c->path[depth]; /* its last move */
        int tilted = op >= TILT_OP;
        if (c->index != UINT32_MAX) {
            if (c->dist < 0)
                c->dist = (int8_t)(c->index == NEAR_END
                                       ? near_end_dist(t, c, d->cls[c->o])
                                       : kid_dist(t, c, d->cls[c->o]));
            if (c->dist > rest)
                continue;
        }
        /* Least time: the time vector only for children the tables let
         * through. */
        int64_t g2 = 0;
        if (sh->by_time) {
            g2 = advance_from(sh, d->inverse, ggv[c->parent],
                              tilted ? ROBOT_OP_TILT_RL + op - TILT_OP
                                     : d->op[c->o][op], /* a turn keeps o */
                              c->cost, kgv[next]);
            if (over_time(w, g2, rest > c->cdist ? rest : c->cdist))
                continue;
        }
        if (c->index == UINT32_MAX) {
            memcpy(w->path, c->path, (size_t)depth + 1);
            if (sh->by_time)
                memcpy(w->gv[depth + 1], kgv[next], sizeof kgv[next]);
            phase1_end(w, c->slice - SLICE_SOLVED * 24, c->cs, c->udedges,
                       c->o, c->set, depth + 1, sh->move_axis[op], g2);
            continue;
        }
        if (!tilted && !t->rphase1x) {
            /* Without the move table a node may make most turns: the
             * move-table rows of the kid's own children, whole. */
            move_row_prefetch(t, t->flip_move, c->flip);
            move_row_prefetch(t, t->twist_move, c->twist);
            move_row_prefetch(t, t->edge4_move, c->slice);
        }
        if (next != i)
            kids[next] = *c;
        next++;
    }
    w->n_level[depth + 1] += next;
}

/* Searches the nodes of depth `depth` waiting in w->level, a group of up
 * to RGROUP at a time (the last ones first), while a whole group is
 * there, or until none is left with `flush`; the children of a group
 * wait at depth + 1, which is searched likewise whenever a group of them
 * is there. With flush, every deeper level is then searched to the end.
 *
 * Until the forty-ninth session a group's children were the next
 * level's groups and nothing else: a group of 32 nodes makes about 35
 * children, a group of 32 and a group of 3, and the 3 make a group of
 * 3, and so on to the end of phase 1. Over half of the nodes were in
 * groups of fewer than 32, and a group of a few nodes waits for memory
 * at each of its three steps like a single node (1,300 TSC cycles a
 * node in groups of one, 360 in groups of 32). So the children of
 * several groups now wait, each with its own path, until a group of
 * them is there: 97 % of the nodes are in whole groups, and the same
 * search takes about 0.95 of the time (the reads in flight, not the
 * waits of small groups, now set the pace). */
static void drain(worker *w, int depth, int flush)
{
    while (!w->halt) {
        int n = w->n_level[depth];
        if (n == 0 || (!flush && n < RGROUP))
            break;
        int take = n < RGROUP ? n : RGROUP;
        n -= take;
        w->n_level[depth] = n;
        expand_group(w, w->level[depth] + n,
                     (const gv_lane(*)[GV_LANES])(w->level_gv[depth] + n),
                     take, depth);
        if (w->n_level[depth + 1] >= RGROUP)
            drain(w, depth + 1, 0);
    }
    if (flush && !w->halt && depth + 1 < w->len1)
        drain(w, depth + 1, 1);
}

/* Searches the phase-1 paths of length len1 from start class `start` of
 * direction dir, each path that reaches the phase-2 group in phase 2. */
static void search_job(worker *w, int len1, int dir, int start)
{
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    const direction *d = &sh->dir[dir];
    const qs_cube *c = &d->cube;
    int o = d->start[start];
    kid root;
    memset(root.path, 0, sizeof root.path);
    root.flip = (uint16_t)qs_coord_flip(c);
    root.twist = (uint16_t)qs_coord_twist(c);
    root.slice = (uint16_t)qs_coord_edge4(c, 8);
    root.cs = (uint16_t)corner_cs(t, qs_coord_corners(c));
    root.fs = (uint32_t)(root.slice / 24 * N_FLIP + root.flip);
    root.o = (uint8_t)o;
    root.set = d->start_set;
    locate(t, &root);
    root.dist = (int8_t)kid_dist(t, &root, d->cls[o]);
    if (root.dist > len1)
        return;
    w->d = d;
    w->dir = dir;
    w->len1 = len1;
    w->next = d->inverse ? sh->rm->nextiset : sh->rm->nextset;
    /* A forward search starts with neutral grippers; an inverse one at
     * the end of the execution, in any state. */
    for (int st = 0; st < GV_LANES; st++)
        w->gv[0][st] =
            st == 0 || (d->inverse && st < ROBOT_STATES) ? 0 : GV_NONE;
    w->root_uedges = qs_coord_edge4(c, 0);
    w->root_dedges = qs_coord_edge4(c, 4);
    root.togo = (uint8_t)len1;
    root.last = root.need = -1;
    root.parent = -1;
    if (len1 == 0) {
        phase1_end(w, root.slice - SLICE_SOLVED * 24, root.cs,
                   udedges_of(t, w->root_uedges, w->root_dedges), o,
                   d->start_set, 0, -1, 0);
        return;
    }
    w->memo_len = 0;
    w->memo_u[0] = (uint16_t)w->root_uedges;
    w->memo_d[0] = (uint16_t)w->root_dedges;
    memset(w->n_level, 0, sizeof w->n_level);
    w->level[0][0] = root;
    memcpy(w->level_gv[0][0], w->gv[0], sizeof w->gv[0]);
    w->n_level[0] = 1;
    drain(w, 0, 1);
}

/* Takes the next job (phase-1 lengths in increasing order, each a loose
 * pass and, FULL_LAG lengths later, a full pass; every direction and start
 * class for each, in the order of job_dir) and runs it; 0 when none is
 * left that could improve on the best solutions. */
static int run_job(worker *w)
{
    shared *sh = w->sh;
    for (;;) {
        if (should_halt(w, 0))
            return 0;
        int job = qs_jobs_next_index(&sh->run.jobs);
        int block = job / sh->starts_per_len, full = block % 2,
            len1 = block / 2 - (full ? FULL_LAG : 0),
            rank = job % sh->starts_per_len;
        int limit = atomic_load(&sh->limit);
        int beyond = len1 > limit || len1 > MAX_P1;
        if (full && beyond)
            return 0;
        if (len1 < 0 || beyond)
            continue; /* a loose pass the limit has overtaken */
        w->slack = full || limit - len1 < LOOSE_ROOM ? 0 : LOOSE_SLACK;
        if (!full || !atomic_load(&sh->full_done[len1][rank]))
            search_job(w, len1, sh->job_dir[rank], sh->job_start[rank]);
        if (w->halt)
            return 0;
        if (!full && w->slack == 0)
            atomic_store(&sh->full_done[len1][rank], 1);
        if (full && rank == sh->starts_per_len - 1) {
            qs_pool_lock(&sh->cand);
            if (len1 > sh->deepest_done)
                sh->deepest_done = len1;
            qs_pool_unlock(&sh->cand);
        }
    }
}

static void worker_main(void *arg)
{
    worker *w = arg;
    /* The nodes waiting at each depth (see drain): about 1.7 MB, and as
     * much again for least time's vectors, of the thread's stack (8 MB as
     * a rule), which stays mapped from one solve to the next, where the
     * worker's memory would be new at every solve. */
    kid level[MAX_P1 + 1][LEVEL_CAP];
    gv_lane level_gv[MAX_P1 + 1][LEVEL_CAP][GV_LANES];
    for (int l = 0; l <= MAX_P1; l++) {
        w->level[l] = level[l];
        w->level_gv[l] = level_gv[l];
    }
    while (!w->halt && run_job(w))
        ;
    shared *sh = w->sh;
    qs_pool_lock(&sh->cand);
    sh->nodes1 += w->nodes1;
    sh->nodes2 += w->nodes2;
    sh->searches2 += w->searches2;
    qs_pool_unlock(&sh->cand);
    /* counted once: the worker is run again when the search is repeated
     * with tilts free (robot_solve) */
    w->nodes1 = w->nodes2 = w->searches2 = 0;
}

/* Plans the candidates that may be best (a plan can beat the search's
 * count by a move, inverse counts are estimates) and writes the best
 * `want` of them, best first; returns how many. */
static int plan_all(const shared *sh, robot_solution *out, int want)
{
    int n = 0;
    robot_solution *tmp = malloc(sizeof *tmp);
    if (!tmp)
        return 0;
    const qs_pool *p = &sh->cand;
    for (int i = 0; i < p->n; i++) {
        const qs_candidate *c = &p->c[i];
        /* Plans cost far more than search nodes (least time most: its
         * plans are Dijkstra searches), so only the likeliest are made:
         * by the search's estimate of time, or by its count of moves. */
        if (sh->by_time ? i >= sh->n_plan
                        : c->tag > p->c[0].tag + 1 ||
                              i >= want + MAX_EXTRA_PLANS)
            break;
        memcpy(tmp->moves, c->moves, (size_t)c->n);
        tmp->n = c->n;
        tmp->direction = c->origin;
        tmp->search_ms = sh->by_time ? (double)c->value / 1000.0 : 0;
        if (plan_candidate(sh, tmp, c->key) != ROBOT_OK)
            continue;
        int pos = n;
        while (pos > 0 && better(tmp, &out[pos - 1], sh->o->objective))
            pos--;
        if (pos >= want)
            continue;
        int keep = n < want ? n : want - 1;
        memmove(&out[pos + 1], &out[pos], sizeof *out * (size_t)(keep - pos));
        out[pos] = *tmp;
        if (n < want)
            n++;
    }
    free(tmp);
    return n;
}

/* Direction r looks at S c S^-1, S the r-th rotation about the URF corner
 * (r = dir % 3), directions 3..5 at the inverse cube. */
static void init_direction(shared *sh, int dir, const qs_cube sym[48],
                           const qs_cube *inv)
{
    const qs_tables *t = sh->t;
    const robot_model *rm = sh->rm;
    direction *d = &sh->dir[dir];
    int s = 16 * (dir % 3), back = t->sym_inv[s];
    qs_cube tmp;
    d->inverse = dir >= 3;
    qs_cube_multiply(&sym[s], d->inverse ? inv : &sh->cube, &tmp);
    qs_cube_multiply(&tmp, &sym[back], &d->cube);
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        d->cube_move[m] = t->move_conj[m][back];
    for (int o = 0; o < ROBOT_ORIENTATIONS; o++) {
        int up_axis = rm->face_at[o][0] % 3;
        d->cls[o] = (uint8_t)axis_of(t->move_conj[3 * up_axis][s]);
        for (int m = 0; m < QS_MOVE_COUNT; m++) {
            qs_move cm = d->cube_move[m];
            if (d->inverse)
                qs_moves_invert(&cm, 1, &cm);
            d->op[o][m] = rm->to_robot[o][cm];
        }
        for (int tilt = 0; tilt < 2; tilt++) {
            if (!d->inverse) {
                d->tilt_to[o][tilt] = rm->tilt[o][tilt];
                continue;
            }
            for (int p = 0; p < ROBOT_ORIENTATIONS; p++)
                if (rm->tilt[p][tilt] == o)
                    d->tilt_to[o][tilt] = (uint8_t)p;
        }
    }
    d->home_class = d->cls[0];
    if (!d->inverse) {
        d->n_starts = 1;
        d->start[0] = 0;
        d->start_set = ROBOT_DEFAULTSET;
        return;
    }
    /* The execution may end in any class: one start per class, each from
     * the first orientation of it, every gripper state possible. */
    d->n_starts = N_TILT;
    d->start_set = ROBOT_STATESETS - 1;
    for (int k = 0; k < N_TILT; k++)
        for (int o = ROBOT_ORIENTATIONS - 1; o >= 0; o--)
            if (d->cls[o] == k)
                d->start[k] = (uint8_t)o;
}

/* Least time: the search's step durations under the profile, the
 * planner's (robot_step_us), [0] without and [1] with parallel regrips. A
 * turn's depends only on quarter, half or pair (the same for a move in
 * any frame), so each turn op is timed as the R-L turn of its kind; a
 * tilt's regrips may lengthen it too; a full regrip is one step whatever
 * it regrips. step_us then times each op between gripper states: without
 * parallel regrips where the automaton allows it, else with them. */
static void step_durations(shared *sh)
{
    int64_t us[ROBOT_OPS][2];
    for (int with = 0; with < 2; with++) {
        for (int op = 0; op < QS_MOVE_COUNT; op++) {
            robot_step st = {ROBOT_STEP_TURN, 0, (uint8_t)with};
            st.arg = (uint8_t)(op < 18 ? 3 + op % 3 : 27 + (op - 18) % 9);
            us[op][with] = robot_step_us(sh->prof, &st);
        }
        robot_step tilt = {ROBOT_STEP_TILT, ROBOT_TILT_RL, (uint8_t)with};
        us[ROBOT_OP_TILT_RL][with] = us[ROBOT_OP_TILT_FB][with] =
            robot_step_us(sh->prof, &tilt);
    }
    robot_step regrip = {ROBOT_STEP_REGRIP, 0, 1};
    us[ROBOT_OP_REGRIP][0] = us[ROBOT_OP_REGRIP][1] =
        robot_step_us(sh->prof, &regrip);
    sh->min_us = INT64_MAX;
    int64_t min_with_us = INT64_MAX; /* the cheapest op with regrips */
    for (int op = 0; op < ROBOT_OPS; op++) {
        if (us[op][0] < sh->min_us) {
            sh->min_us = us[op][0];
            min_with_us = us[op][1];
        }
        for (int from = 0; from < GV_LANES; from++)
            for (int to = 0; to < GV_LANES; to++)
                sh->step_us[0][op][from][to] = GV_NONE;
        for (int from = 0; from < ROBOT_STATES; from++)
            for (int to = 0; to < ROBOT_STATES; to++) {
                int plain = 0, with = 0;
                for (int r = 0; r < 16; r++)
                    if (sh->rm->next_state[from][op][r] == to) {
                        if (r == 0)
                            plain = 1;
                        else
                            with = 1;
                    }
                if (plain || with)
                    sh->step_us[0][op][from][to] = (gv_lane)us[op][!plain];
            }
        for (int from = 0; from < GV_LANES; from++)
            for (int to = 0; to < GV_LANES; to++)
                sh->step_us[1][op][to][from] = sh->step_us[0][op][from][to];
    }
    /* Under a time limit (or a node limit, its stand-in) a remaining move
     * is charged 1.5 cheapest steps, but not more than 90 % of that
     * step made with parallel regrips (nor less than the step). The
     * bound is then no longer a lower bound (a path may still finish
     * faster), but the search stops spending its milliseconds on paths
     * that would need only the cheapest steps to win, and finds faster
     * plans in the same time.
     * The cap: a quarter turn with a parallel regrip is a common step
     * (85 ms against 60 alone under `default`), and a charge above it
     * prunes paths made of such steps that would have won
     * (docs/benchmarks.md, twenty-seventh session); 90 % rather than
     * 95 % found plans about 0.1 % faster under `default` (the only
     * built-in profile where the cap binds: a weight of 1.275 instead of
     * 1.35), on development cubes and on the report's, alternated
     * (forty-fourth session).
     * Without a limit it stays a lower bound. */
    if (sh->o->time_ms > 0 || sh->o->max_nodes > 0) {
        int64_t weighted = sh->min_us + sh->min_us / 2,
                cap = min_with_us - min_with_us / 10;
        if (cap < sh->min_us)
            cap = sh->min_us;
        sh->min_us = weighted < cap ? weighted : cap;
    }
}

int robot_solve(const qs_tables *t, const robot_model *rm,
                const robot_profile *prof, const qs_cube *c,
                const robot_solve_options *o, robot_solution *out,
                int max_out, int *n_out, qs_stats *stats)
{
    if (!t || !rm || !prof || !c || !o || !out || max_out < 1 || !n_out)
        return ROBOT_ERR_ARGUMENT;
    if (o->threads < 1 || o->threads > QS_MAX_THREADS || o->time_ms < 0 ||
        o->solutions < 1 || o->max_len < -1 || o->max_len > QS_MAX_MOVES ||
        (o->objective != ROBOT_OBJ_MOVES && o->objective != ROBOT_OBJ_TIME))
        return ROBOT_ERR_ARGUMENT;
    if (qs_tables_metric(t) != QS_METRIC_ROBOT || !t->rphase1 ||
        !t->rphase2 || !t->rcorners)
        return ROBOT_ERR_TABLES;
    if (qs_cube_check(c))
        return ROBOT_ERR_CUBE;
    *n_out = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (qs_cube_is_solved(c)) {
        memset(&out[0], 0, sizeof out[0]);
        *n_out = 1;
        return ROBOT_OK;
    }

    int want = o->solutions < max_out ? o->solutions : max_out;
    /* Spare candidates: the plan may beat the search's count, and least
     * time compares more solutions than it returns. */
    int pool = (o->objective == ROBOT_OBJ_TIME && want < 16 ? 16 : want) +
               SPARE_CANDIDATES;
    void *worker_mem;
    shared *sh = qs_run_alloc(sizeof *sh, sizeof(worker), (size_t)o->threads,
                              &worker_mem);
    if (!sh || qs_pool_init(&sh->cand, pool) != QS_OK) {
        if (sh)
            qs_pool_free(&sh->cand);
        free(sh);
        return ROBOT_ERR_NOMEM;
    }
    worker *workers = worker_mem;
    sh->t = t;
    sh->rm = rm;
    sh->prof = prof;
    sh->o = o;
    sh->cube = *c;
    sh->max_out = want;
    sh->deepest_done = -1;
    sh->by_time = o->objective == ROBOT_OBJ_TIME;
    sh->n_plan = want + MAX_EXTRA_TIME_PLANS;
    if (sh->by_time)
        step_durations(sh);
    read_limits(sh);
    atomic_init(&sh->bound_us, INT64_MAX);
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        sh->move_axis[m] = (uint8_t)axis_of(m);
    /* Least time plans its best two candidates with Dijkstra searches
     * after the search (0.1-0.3 ms each, bounded by the search's times):
     * a 25th of the time is kept for it. */
    uint64_t search_us = (uint64_t)o->time_ms * 1000u;
    if (o->objective == ROBOT_OBJ_TIME)
        search_us -= search_us / 25;
    qs_run_init(&sh->run, o->cancel, search_us, o->max_nodes, 0);
    atomic_init(&sh->limit, o->max_len >= 0 ? o->max_len : DEFAULT_LIMIT);
    atomic_init(&sh->found, 0);

    qs_cube sym[48], inv;
    qs_sym_cubes(sym);
    qs_cube_inverse(c, &inv);
    for (int d = 0; d < N_DIRS; d++)
        init_direction(sh, d, sym, &inv);
    sh->starts_per_len = 0;
    for (int start = 0; start < N_TILT; start++)
        for (int d = 0; d < N_DIRS; d++)
            if (start < sh->dir[d].n_starts) {
                sh->job_dir[sh->starts_per_len] = (uint8_t)d;
                sh->job_start[sh->starts_per_len++] = (uint8_t)start;
            }

    for (int i = 0; i < o->threads; i++) {
        workers[i].sh = sh;
        workers[i].t = t;
    }
    int err = qs_engine_run(o->threads, o->team, worker_main, workers,
                            sizeof *workers, &sh->run.halt);
    /* The search takes a tilt only right before a turn of the axis it
     * makes turnable: a tilt before a turn of the other one could come
     * after it. In cube moves that is so, but not in regrips: where the
     * tilt goes decides which grippers it can regrip on the way, so a few
     * executions are shorter only with the tilt first (1 of 150 scrambles
     * of 10 face turns, docs/benchmarks.md, forty-third session). Such a
     * solution is still found under a limit it beats by a move, but not
     * under a limit it only meets. Taking every tilt order costs more
     * nodes than it gains under a time limit, so the search runs again
     * with tilts free only when it has ended by itself (every length
     * searched in full, no time, node or length limit reached): on short
     * scrambles without a time limit that takes about twice as long as
     * the first run, and under a time limit it only uses time the first
     * run left. */
    if (err == QS_OK && !sh->by_time && !qs_halt_stopped(&sh->run.halt)) {
        sh->tilts_free = 1;
        memset(sh->full_done, 0, sizeof sh->full_done);
        qs_jobs_rewind(&sh->run.jobs);
        err = qs_engine_run(o->threads, o->team, worker_main, workers,
                            sizeof *workers, &sh->run.halt);
    }
    int n = err == QS_OK ? plan_all(sh, out, want) : 0;
    *n_out = n;
    if (stats) {
        stats->phase1_nodes = sh->nodes1;
        stats->phase2_nodes = sh->nodes2;
        stats->phase2_searches = sh->searches2;
        stats->phase1_depth = sh->deepest_done;
        stats->elapsed_ms = qs_ms_since(sh->run.start_ns);
        stats->first_ms = sh->first_ms;
    }
    if (err != QS_OK)
        err = robot_engine_error(err);
    else if (n == 0 && sh->cand.n > 0)
        err = ROBOT_ERR_NOT_SOLVED; /* no candidate survived its check */
    else
        err = robot_engine_error(qs_halt_result(&sh->run.halt, n > 0));
    qs_run_free(&sh->run);
    qs_pool_free(&sh->cand);
    free(sh);
    return err;
}
