/*
 * search.c - Kociemba's two-phase search.
 *
 * Phase 1 brings the cube into the group <U, D, R2, L2, F2, B2> (edges
 * oriented, corners twisted home, slice edges in the slice); phase 2 solves
 * it inside that group. The search runs in six directions: the cube seen
 * along each of the three axes, and its inverse likewise. A job is one
 * direction at one exact phase-1 length; threads take jobs in order of
 * increasing length, so short phase-1 paths in all directions come first,
 * and every phase-1 end is completed by the shortest phase-2 path that
 * still beats the best solutions found so far.
 */
#include "qs_internal.h"

#include <stdlib.h>
#include <string.h>

enum {
    N_DIRS = 6,
    CHECK_EVERY = 255,
    /* Jobs interleaved by the search as a whole, shared out over its
     * threads (at least one each): a thread steps its lanes in turn to
     * hide memory latency. Four in all, not four per thread (a length has
     * only six jobs, so more lanes likely start the next length, ten times
     * the work, before the current one is done). Two threads of two lanes
     * each found solutions 0.04 HTM and 0.02-0.06 AXHT moves shorter at
     * 10 ms than two of four; one thread of eight was worse than one of
     * four (docs/benchmarks.md, fortieth session). */
    SEARCH_LANES = 4,
    MAX_P1_LEN = 24  /* longer phase-1 jobs never finish in practice */
};

/* Without a length limit, the first solutions only have to exist; these
 * bounds are far above what the two-phase search ever needs. */
static const int default_limit[QS_METRIC_COUNT] = {30, 42, 30, 42};

typedef struct {
    const qs_tables *t;
    const qs_options *o;
    qs_cube cube;
    qs_cube dir_cube[N_DIRS];

    qs_run run;               /* jobs: numbered: length * N_DIRS + direction */
    qs_pool best;             /* the best solutions, key: length; its lock also
                                 guards deepest_done and the counts */
    int deepest_done;
    atomic_int limit;         /* longest solution still worth finding */
    atomic_int found;         /* solutions recorded so far */
    double first_ms;
    uint64_t nodes1, nodes2, searches2;
    int lanes;                /* per thread */
} shared;

/* A phase-1 child as its parent computed it: coordinates, the symmetry and
 * table index of its pruning entry (already prefetched), or, for the last
 * move of the path, a mark that it reaches the phase-2 group. */
typedef struct {
    uint32_t index;
    uint16_t flip, twist, slice, corners;
    uint8_t move, sym, last;
} child;

/* A phase-1 node on a lane's stack: its children (listed and prefetched by
 * its parent), the next one to visit, and the grandchildren lists. */
typedef struct {
    const child *kids;
    int n, next, togo;
    child *grand;              /* kid k's children at grand + k * n_moves */
    int n_grand[QS_MOVE_COUNT];
} frame;

/* A lane runs one job (a direction at one phase-1 length) as a depth-first
 * search with an explicit stack, one node per step; each thread steps
 * several lanes in turn (see worker_main). */
typedef struct {
    shared *sh;
    const qs_tables *t;
    int dir, len1;     /* job: direction, phase-1 length in metric units */
    int top;           /* stack top, -1 when the lane has no job */
    int exhausted;     /* no job is left for this lane */
    frame stack[MAX_P1_LEN + 1];
    child root[QS_MOVE_COUNT];
    child *pool;       /* grandchildren lists of every stack level */
    int n1, n2;        /* moves in path1 and path2 of the current solution */
    /* U and D edge coordinates after path1[0..i), valid for i <= edges_ok:
     * consecutive phase-1 ends share most of their path. */
    uint16_t uedges[QS_MAX_MOVES + 1], dedges[QS_MAX_MOVES + 1];
    int edges_ok;
    qs_move path1[QS_MAX_MOVES];
    qs_move path2[QS_MAX_MOVES];
    uint64_t nodes1, nodes2, searches2;
    int halt;
} worker;

void qs_options_default(qs_options *o)
{
    memset(o, 0, sizeof *o);
    o->threads = 1;
    o->time_ms = 10;
    o->max_len = -1;
    o->solutions = 1;
}

/* Polled every CHECK_EVERY nodes. Without a length limit the time limit
 * never leaves a cube unsolved: past it, the search goes on until its
 * first solution. */
static int should_halt(worker *w, unsigned nodes)
{
    shared *sh = w->sh;
    int deadline_applies =
        atomic_load_explicit(&sh->found, memory_order_relaxed) ||
        sh->o->max_len >= 0;
    if (qs_halt_poll_nodes(&sh->run.halt, deadline_applies, nodes))
        return w->halt = 1;
    return 0;
}

/* Maps a path found in direction dir back to the cube's own frame and
 * keeps it if it is among the best. */
static void record(worker *w)
{
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    qs_candidate s;
    int rot = w->dir % 3, inverse = w->dir >= 3;
    int back = t->sym_inv[16 * rot];
    qs_move seq[QS_MAX_MOVES];
    int n = 0;
    for (int i = 0; i < w->n1; i++)
        seq[n++] = t->move_conj[w->path1[i]][back];
    for (int i = 0; i < w->n2; i++)
        seq[n++] = t->move_conj[w->path2[i]][back];
    if (inverse)
        qs_moves_invert(seq, n, s.moves);
    else
        memcpy(s.moves, seq, (size_t)n);
    s.n = n;
    s.key = qs_moves_length(s.moves, n, t->metric);
    s.value = 0;
    s.tag = 0;

    qs_cube check = sh->cube;
    qs_cube_apply_moves(&check, s.moves, n);
    if (!qs_cube_is_solved(&check))
        return; /* cannot happen with consistent tables; never report it */

    qs_pool *p = &sh->best;
    qs_pool_lock(p);
    int pos = qs_pool_insert(p, &s);
    if (pos >= 0) {
        if (atomic_load(&sh->found) == 0)
            sh->first_ms = qs_ms_since(sh->run.start_ns);
        atomic_store(&sh->found, p->n);
        if (p->n == p->cap) {
            int worst = (int)p->c[p->n - 1].key;
            /* In QTM all solutions of a cube have one parity, so the next
             * useful one is two shorter. */
            int next = worst - t->parity_step;
            if (next < atomic_load(&sh->limit))
                atomic_store(&sh->limit, next);
            if (sh->o->max_len >= 0 && worst <= sh->o->max_len)
                qs_halt_stop(&sh->run.halt);
        }
        if (pos == 0 && sh->o->on_improve)
            sh->o->on_improve(sh->o->improve_ctx, (int)s.key);
    }
    qs_pool_unlock(p);
}

static int phase2(worker *w, int corners, int udedges, int slice2, int togo,
                  int canon, int depth)
{
    const qs_tables *t = w->t;
    if (togo == 0) {
        w->n2 = depth;
        return corners == 0 && udedges == 0 && slice2 == 0;
    }
    if ((++w->nodes2 & CHECK_EVERY) == 0 && should_halt(w, CHECK_EVERY + 1))
        return 0;
    uint64_t allowed = t->canon_allowed[canon];
    for (int k = 0; k < t->n_p2; k++) {
        int m = t->p2_move[k], rest = togo - t->cost[m];
        if (!(allowed >> m & 1) || rest < 0)
            continue;
        int c2 = move_row(t, t->corners_move, corners)[m];
        int s2 = t->slice2_move[slice2][m];
        if (t->cornslice[c2 * N_SLICE2 + s2] > rest)
            continue;
        int u2 = t->udedges_move[udedges][k];
        if (t->edgeslice[u2 * N_SLICE2 + s2] > rest ||
            phase2_prune(t, c2, u2) > rest)
            continue;
        w->path2[depth] = (qs_move)m;
        if (phase2(w, c2, u2, s2, rest, t->canon_next[m], depth + 1))
            return 1;
        if (w->halt)
            return 0;
    }
    return 0;
}

/* A phase-1 path of the job's length ends in the phase-2 group (its last
 * move not a phase-2 move, checked by the caller). */
static void phase1_end(worker *w, int slice, int corners, int depth)
{
    const qs_tables *t = w->t;
    int limit = atomic_load_explicit(&w->sh->limit, memory_order_relaxed);
    int room = limit - w->len1;
    int s2 = slice - SLICE_SOLVED * 24;
    int lb = t->cornslice[corners * N_SLICE2 + s2];
    if (lb > room)
        return;
    for (int i = w->edges_ok; i < depth; i++) {
        int m = w->path1[i];
        w->uedges[i + 1] = move_row(t, t->edge4_move, w->uedges[i])[m];
        w->dedges[i + 1] = move_row(t, t->edge4_move, w->dedges[i])[m];
    }
    w->edges_ok = depth;
    int udedges = udedges_of(t, w->uedges[depth], w->dedges[depth]);
    int lb2 = t->edgeslice[udedges * N_SLICE2 + s2];
    if (lb2 > lb)
        lb = lb2;
    lb2 = phase2_prune(t, corners, udedges);
    if (lb2 > lb)
        lb = lb2;
    if (lb > room)
        return;
    /* In QTM each quarter turn is an odd corner permutation, so a phase-2
     * path has the parity of the corner permutation it undoes. */
    int step2 = t->parity_step;
    int odd = t->corner_parity[corners >> 3] >> (corners & 7) & 1;
    if (step2 == 2 && (lb & 1) != odd)
        lb++;
    if (lb > room)
        return;
    w->searches2++;
    int canon = depth > 0 ? t->canon_next[w->path1[depth - 1]] : 0;
    for (int len2 = lb; len2 <= room && !w->halt; len2 += step2) {
        if (phase2(w, corners, udedges, s2, len2, canon, 0)) {
            w->n1 = depth;
            record(w);
            return;
        }
        room = atomic_load_explicit(&w->sh->limit, memory_order_relaxed) -
               w->len1;
    }
}

/* Lists the children of a node worth visiting, first pass: their raw
 * coordinates, with the read of their symmetry class started. Children on
 * the last move are listed only when they reach the phase-2 group, which
 * shows in their raw coordinates. */
static int expand(const qs_tables *t, int flip, int twist, int slice,
                  int corners, uint64_t entry, int sym, int togo, int canon,
                  child *out)
{
    int dist = (int)(entry & P1_DIST_MASK), slack = togo - dist;
    uint64_t moves;
    if (t->grouped) {
        /* Every child's distance is known here: keep those that fit and
         * that Rokicki's rule (see phase1) would not skip. */
        uint64_t by_delta[3];
        phase1_deltas(t, entry, sym, by_delta);
        moves = 0;
        for (int delta = 0; delta <= slack && delta < 3; delta++)
            if (delta == slack || dist + delta + togo - 2 >= 5)
                moves |= by_delta[delta];
    } else {
        moves = phase1_moves(t, entry, sym, slack);
    }
    moves &= t->canon_allowed[canon];
    const uint16_t *flip_row = move_row(t, t->flip_move, flip);
    const uint16_t *twist_row = move_row(t, t->twist_move, twist);
    const uint16_t *slice_row = move_row(t, t->edge4_move, slice);
    const uint16_t *corners_row = move_row(t, t->corners_move, corners);
    int n = 0;
    while (moves) {
        int m = __builtin_ctzll(moves);
        moves &= moves - 1;
        int rest = togo - t->cost[m];
        if (rest < 0)
            continue;
        int f2 = flip_row[m], s2 = slice_row[m], tw2 = twist_row[m];
        child *c = &out[n];
        c->corners = corners_row[m];
        if (rest == 0) {
            /* A last move inside the phase-2 group would mean a shorter
             * phase-1 path exists. */
            if (!position_in_phase2_group(f2, tw2, s2) ||
                (t->g1_moves >> m & 1))
                continue;
            c->last = 1;
            /* phase1_end's first test: prefetched now, read later */
            __builtin_prefetch(&t->cornslice[c->corners * N_SLICE2 + s2 -
                                             SLICE_SOLVED * 24]);
        } else {
            c->last = 0;
            c->index = (uint32_t)(s2 / 24 * N_FLIP + f2); /* for finish */
            __builtin_prefetch(&t->fs_packed[c->index]);
        }
        c->move = (uint8_t)m;
        c->flip = (uint16_t)f2;
        c->twist = (uint16_t)tw2;
        c->slice = (uint16_t)s2;
        n++;
    }
    return n;
}

/* Second pass over a list from expand: the pruning-table index of each
 * child, with the reads of its entry and of the move-table rows its own
 * expansion needs started. */
static void finish(const qs_tables *t, child *kids, int n)
{
    for (int k = 0; k < n; k++) {
        child *c = &kids[k];
        if (c->last)
            continue;
        uint32_t cs = t->fs_packed[c->index];
        c->sym = (uint8_t)(cs & 15);
        c->index = (uint32_t)((cs >> 4) * N_TWIST +
                              t->twist_conj[c->twist][c->sym]);
        __builtin_prefetch((const char *)t->phase1 +
                           (uint64_t)c->index *
                               (uint64_t)phase1_entry_size(t->axial));
        move_row_prefetch(t, t->flip_move, c->flip);
        move_row_prefetch(t, t->twist_move, c->twist);
        move_row_prefetch(t, t->edge4_move, c->slice);
        move_row_prefetch(t, t->corners_move, c->corners);
    }
}

/* Pushes a node onto the lane's stack: reads its children's entries
 * (prefetched by its parent), lists the grandchildren of every child worth
 * visiting and starts all their table reads. */
static void enter(worker *w, int level, const child *kids, int n, int togo)
{
    const qs_tables *t = w->t;
    frame *f = &w->stack[level];
    f->kids = kids;
    f->n = n;
    f->next = 0;
    f->togo = togo;
    f->grand = w->pool + (size_t)level * t->n_moves * t->n_moves;
    for (int k = 0; k < n; k++) {
        const child *c = &kids[k];
        f->n_grand[k] = -1;
        if (c->last)
            continue;
        int rest = togo - t->cost[c->move];
        uint64_t e = phase1_entry(t, c->index);
        int d = (int)(e & P1_DIST_MASK);
        /* Rokicki's observation: a child with slack that is already close
         * to the phase-2 group mostly repeats phase-2 solutions found from
         * shorter phase-1 paths; skipping it loses little. */
        if (d > rest || (d < rest && d + rest < 5))
            continue;
        f->n_grand[k] = expand(t, c->flip, c->twist, c->slice, c->corners, e,
                               c->sym, rest, t->canon_next[c->move],
                               f->grand + k * t->n_moves);
    }
    for (int k = 0; k < n; k++)
        if (f->n_grand[k] > 0)
            finish(t, f->grand + k * t->n_moves, f->n_grand[k]);
    w->top = level;
}

/* Advances a lane's depth-first search until it enters one more node (and
 * so has table reads in flight); returns 0 when the job is done or the
 * search must stop. Phase-1 ends met on the way are completed at once. */
static int step(worker *w)
{
    const qs_tables *t = w->t;
    while (w->top >= 0) {
        frame *f = &w->stack[w->top];
        if (f->next == f->n) {
            w->top--;
            continue;
        }
        int depth = w->top, k = f->next++;
        const child *c = &f->kids[k];
        if (!c->last && f->n_grand[k] <= 0)
            continue;
        w->path1[depth] = c->move;
        if (w->edges_ok > depth)
            w->edges_ok = depth;
        if (c->last) {
            phase1_end(w, c->slice, c->corners, depth + 1);
            if (w->halt)
                return 0;
            continue;
        }
        if ((++w->nodes1 & CHECK_EVERY) == 0 && should_halt(w, CHECK_EVERY + 1))
            return 0;
        enter(w, depth + 1, f->grand + k * t->n_moves, f->n_grand[k],
              f->togo - t->cost[c->move]);
        return 1;
    }
    return 0;
}

/* Gives a lane the next job (lengths in increasing order, all directions
 * for each); returns 0 when no job is left that could improve on the best
 * solutions. */
static int start_job(worker *w)
{
    shared *sh = w->sh;
    const qs_tables *t = w->t;
    for (;;) {
        int job = qs_jobs_next_index(&sh->run.jobs);
        int len1 = job / N_DIRS, dir = job % N_DIRS;
        /* A phase-1 path as long as the limit leaves no room to improve. */
        if (len1 > atomic_load(&sh->limit) || len1 > MAX_P1_LEN)
            return 0;
        const qs_cube *c = &sh->dir_cube[dir];
        int flip = qs_coord_flip(c), twist = qs_coord_twist(c);
        int slice = qs_coord_edge4(c, 8);
        int fs = slice / 24 * N_FLIP + flip, s = t->fs_sym[fs];
        uint64_t e = phase1_entry(t, (uint64_t)t->fs_class[fs] * N_TWIST +
                                         t->twist_conj[twist][s]);
        if ((int)(e & P1_DIST_MASK) > len1)
            continue;
        w->dir = dir;
        w->len1 = len1;
        w->uedges[0] = (uint16_t)qs_coord_edge4(c, 0);
        w->dedges[0] = (uint16_t)qs_coord_edge4(c, 4);
        w->edges_ok = 0;
        int corners = qs_coord_corners(c);
        if (len1 == 0) {
            phase1_end(w, slice, corners, 0);
            if (w->halt)
                return 0;
            continue;
        }
        int n = expand(t, flip, twist, slice, corners, e, s, len1, 0, w->root);
        finish(t, w->root, n);
        enter(w, 0, w->root, n, len1);
        return 1;
    }
}

/* One search thread: it steps its lanes in turn, so that while one lane
 * waits for its table reads the others compute. */
static void worker_main(void *arg)
{
    worker *lanes = arg;
    shared *sh = lanes[0].sh;
    int busy = 1;
    while (busy && !qs_halt_stopped(&sh->run.halt)) {
        busy = 0;
        for (int i = 0; i < sh->lanes; i++) {
            worker *w = &lanes[i];
            if (w->exhausted || w->halt)
                continue;
            if (w->top < 0 && !start_job(w)) {
                w->exhausted = 1;
                continue;
            }
            busy = 1;
            if (!step(w) && !w->halt && w->dir == N_DIRS - 1) {
                qs_pool_lock(&sh->best);
                if (w->len1 > sh->deepest_done)
                    sh->deepest_done = w->len1;
                qs_pool_unlock(&sh->best);
            }
        }
    }
    qs_pool_lock(&sh->best);
    for (int i = 0; i < sh->lanes; i++) {
        sh->nodes1 += lanes[i].nodes1;
        sh->nodes2 += lanes[i].nodes2;
        sh->searches2 += lanes[i].searches2;
    }
    qs_pool_unlock(&sh->best);
}

int qs_solve(const qs_tables *t, const qs_cube *c, const qs_options *o,
             qs_solution *out, int max_out, int *n_out, qs_stats *stats)
{
    if (!t || !c || !o || !out || max_out < 1 || !n_out)
        return QS_ERR_ARGUMENT;
    if (!t->phase1 || !t->phase2)
        return QS_ERR_TABLES;
    if (o->threads < 1 || o->threads > QS_MAX_THREADS || o->time_ms < 0 ||
        o->solutions < 1 || o->max_len < -1 || o->max_len > QS_MAX_MOVES)
        return QS_ERR_ARGUMENT;
    int err = qs_cube_check(c);
    if (err)
        return err;
    *n_out = 0;
    if (stats)
        memset(stats, 0, sizeof *stats);
    if (qs_cube_is_solved(c)) {
        out[0].n = 0;
        out[0].length = 0;
        *n_out = 1;
        return QS_OK;
    }

    int per_thread = SEARCH_LANES / o->threads > 1 ? SEARCH_LANES / o->threads
                                                   : 1;
    size_t n_lanes = (size_t)o->threads * (size_t)per_thread;
    size_t pool = (size_t)(MAX_P1_LEN + 1) * t->n_moves * t->n_moves;
    void *lanes;
    shared *sh = qs_run_alloc(sizeof *sh, sizeof(worker), n_lanes, &lanes);
    worker *workers = lanes;
    child *pools = malloc(n_lanes * pool * sizeof *pools);
    int want = o->solutions < max_out ? o->solutions : max_out;
    if (!sh || !pools || qs_pool_init(&sh->best, want) != QS_OK) {
        if (sh)
            qs_pool_free(&sh->best);
        free(sh);
        free(pools);
        return QS_ERR_NOMEM;
    }
    sh->t = t;
    sh->o = o;
    sh->cube = *c;
    sh->deepest_done = -1;
    sh->lanes = per_thread;
    qs_run_init(&sh->run, o->cancel, (uint64_t)o->time_ms * 1000u,
                o->max_nodes, 0);
    atomic_init(&sh->limit,
                o->max_len >= 0 ? o->max_len : default_limit[t->metric]);
    atomic_init(&sh->found, 0);

    /* Direction r solves S c S^-1 with S the r-th rotation about the URF
     * corner, directions 3..5 the same for the inverse cube. */
    qs_cube sym[48], inv;
    qs_sym_cubes(sym);
    qs_cube_inverse(c, &inv);
    for (int d = 0; d < N_DIRS; d++) {
        int s = 16 * (d % 3);
        qs_cube tmp;
        qs_cube_multiply(&sym[s], d < 3 ? c : &inv, &tmp);
        qs_cube_multiply(&tmp, &sym[t->sym_inv[s]], &sh->dir_cube[d]);
    }

    for (size_t i = 0; i < n_lanes; i++) {
        workers[i].sh = sh;
        workers[i].t = t;
        workers[i].top = -1;
        workers[i].pool = pools + i * pool;
    }
    err = qs_engine_run(o->threads, o->team, worker_main, workers,
                        (size_t)per_thread * sizeof *workers,
                        &sh->run.halt);

    int n = err == QS_OK ? sh->best.n : 0;
    for (int i = 0; i < n; i++) {
        memcpy(out[i].moves, sh->best.c[i].moves, (size_t)sh->best.c[i].n);
        out[i].n = sh->best.c[i].n;
        out[i].length = (int)sh->best.c[i].key;
    }
    *n_out = n;
    if (stats) {
        stats->phase1_nodes = sh->nodes1;
        stats->phase2_nodes = sh->nodes2;
        stats->phase2_searches = sh->searches2;
        stats->phase1_depth = sh->deepest_done;
        stats->elapsed_ms = qs_ms_since(sh->run.start_ns);
        stats->first_ms = sh->first_ms;
    }
    if (err == QS_OK)
        err = qs_halt_result(&sh->run.halt, n > 0);
    qs_run_free(&sh->run);
    qs_pool_free(&sh->best);
    free(sh);
    free(pools);
    return err;
}
