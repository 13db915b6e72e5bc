/*
 * prune.c - generation of the large pruning tables ("blobs").
 *
 * phase1: for every symmetry class of (flip, slice positions) and every
 *   corner twist, the exact distance to the phase-2 group and the set of
 *   moves that lead one step closer, so the search reads one entry per node
 *   and never looks at children that cannot be on a shortest path.
 * phase2: for every symmetry class of the corner permutation and every
 *   permutation of the U/D edges, the distance to solved within the phase-2
 *   group (4 bits, saturated at 15).
 *
 * corners (HTM and QTM, for the optimal solver): for every symmetry class
 *   of the corner permutation and every twist, the distance to solved
 *   corners (4 bits, saturated at 15).
 * phase1-mod3 (HTM, the optimal solver's compact set): phase1's distances
 *   modulo 3, two bits each, without the moves.
 *
 * robot phase1 / phase2: the same distances in robot moves for each tilt
 *   class (the axis the robot cannot turn), see qs_internal.h; robot
 *   phase1-moves adds to the phase-1 distances what each turn does to them
 *   (robot_p1x); robot corners, the corner table's distances in robot
 *   moves per tilt class, bounds the whole cube anywhere in the search;
 *   robot corner paths, what the corners need when phase 1 has exactly j
 *   moves left and phase 2 follows (BLOB_ROBOT_PATHS), is the least over
 *   children of the step before, from the corners' phase-2 distances;
 *   its few distinct entries are stored once, each index holding a code.
 *
 * All are breadth-first searches in the metric's units (moves of cost 2
 * exist in the quarter-turn metrics), spread over threads: early levels
 * expand the frontier forwards, late levels let each unreached entry look
 * for a neighbour on the previous level, whichever touches fewer entries.
 */
#include "qs_internal.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

enum {
    UNREACHED = 0xff,
    CHUNK = 1 << 16,
    MAX_CHILDREN = QS_MOVE_COUNT,
    MAX_EQUIV = 48 /* other entries of one cube: the H48 stabilisers */
};

/* What a worker keeps of the children of the entry it made children for
 * last. Workers take entries in index order, and an index's high part (a
 * symmetry class; in robot phase 2 a class and an edge permutation) stays
 * the same over runs of entries (2,187 twists of a class, or nine pairs of
 * tilt classes): the part of each child it decides (the child's class,
 * offset to its block, and the symmetry that maps it there) is looked up
 * once per run instead of once per entry. Those lookups, in tables of
 * megabytes, were most of a generator's time. */
typedef struct {
    uint64_t key; /* the high part `base` and `sym` belong to; NO_MEMO none */
    uint64_t base[MAX_CHILDREN];
    uint8_t sym[MAX_CHILDREN];
} child_memo;

#define NO_MEMO UINT64_MAX

typedef struct space space;
struct space {
    const qs_tables *t;
    uint64_t n;
    int max_level; /* entries not reached by then get this value */
    /* children of entry idx; returns their number. memo is the calling
     * worker's own (see child_memo). */
    int (*children)(const space *sp, uint64_t idx, uint64_t *child,
                    uint8_t *cost, child_memo *memo);
    /* other entries that stand for the same cube as idx */
    int (*equivalents)(const space *sp, uint64_t idx, uint64_t *out);
    const qs_h48 *h48; /* the H48 space's tables, else NULL */
};

/* ---- phase 1 space */

/* Fills memo, for flipslice class cls, with each move's child class (its
 * first phase-1 index) and the symmetry that maps the child there. */
static void flipslice_memo(const qs_tables *t, uint64_t cls, child_memo *memo)
{
    if (memo->key == cls)
        return;
    int fs = (int)t->fs_rep[cls], comb = fs / N_FLIP, flip = fs % N_FLIP;
    for (int m = 0; m < t->n_moves; m++) {
        int fs2 = move_row(t, t->edge4_move, comb * 24)[m] / 24 * N_FLIP +
                  move_row(t, t->flip_move, flip)[m];
        memo->base[m] = (uint64_t)t->fs_class[fs2] * N_TWIST;
        memo->sym[m] = t->fs_sym[fs2];
    }
    memo->key = cls;
}

/* The children of twist tw of the class memo was filled for (its first
 * index N_TWIST times the class): one per move, in move order. Shared by
 * the phase-1 and corner spaces, which differ only in their class. */
static int twist_children(const qs_tables *t, int tw, const child_memo *memo,
                          uint64_t *child, uint8_t *cost)
{
    for (int m = 0; m < t->n_moves; m++) {
        child[m] = memo->base[m] +
                   t->twist_conj[move_row(t, t->twist_move, tw)[m]][memo->sym[m]];
        cost[m] = t->cost[m];
    }
    return t->n_moves;
}

static int phase1_children(const space *sp, uint64_t idx, uint64_t *child,
                           uint8_t *cost, child_memo *memo)
{
    flipslice_memo(sp->t, idx / N_TWIST, memo);
    return twist_children(sp->t, (int)(idx % N_TWIST), memo, child, cost);
}

static int phase1_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    const qs_tables *t = sp->t;
    uint64_t cls = idx / N_TWIST;
    int tw = (int)(idx % N_TWIST), n = 0;
    unsigned self = t->fs_selfsym[cls];
    for (int s = 1; s < N_SYM; s++)
        if (self >> s & 1)
            out[n++] = cls * N_TWIST + t->twist_conj[tw][s];
    return n;
}

/* ---- phase 2 space */

static int phase2_children(const space *sp, uint64_t idx, uint64_t *child,
                           uint8_t *cost, child_memo *memo)
{
    (void)memo; /* every entry has an edge permutation of its own */
    const qs_tables *t = sp->t;
    int cls = (int)(idx / N_PERM8), ud = (int)(idx % N_PERM8);
    int corners = t->corner_rep[cls];
    for (int k = 0; k < t->n_p2; k++) {
        int m = t->p2_move[k];
        int c2 = move_row(t, t->corners_move, corners)[m];
        int ud2 = t->udedges_conj[t->udedges_move[ud][k]][t->corner_sym[c2]];
        child[k] = (uint64_t)t->corner_class[c2] * N_PERM8 + ud2;
        cost[k] = t->cost[m];
    }
    return t->n_p2;
}

static int phase2_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    const qs_tables *t = sp->t;
    uint64_t cls = idx / N_PERM8;
    int ud = (int)(idx % N_PERM8), n = 0;
    unsigned self = t->corner_selfsym[cls];
    for (int s = 1; s < N_SYM; s++)
        if (self >> s & 1)
            out[n++] = cls * N_PERM8 + t->udedges_conj[ud][s];
    return n;
}

/* ---- corners: (corner class, twist in the class's frame) */

/* Fills memo, for corner class cls, with each move's child class (its
 * first index, N_TWIST times the class) and the symmetry that maps the
 * child there. */
static void corner_memo(const qs_tables *t, uint64_t cls, child_memo *memo)
{
    if (memo->key == cls)
        return;
    int corners = t->corner_rep[cls];
    for (int m = 0; m < t->n_moves; m++) {
        int c2 = move_row(t, t->corners_move, corners)[m];
        memo->base[m] = (uint64_t)t->corner_class[c2] * N_TWIST;
        memo->sym[m] = t->corner_sym[c2];
    }
    memo->key = cls;
}

static int corners_children(const space *sp, uint64_t idx, uint64_t *child,
                            uint8_t *cost, child_memo *memo)
{
    corner_memo(sp->t, idx / N_TWIST, memo);
    return twist_children(sp->t, (int)(idx % N_TWIST), memo, child, cost);
}

static int corners_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    const qs_tables *t = sp->t;
    uint64_t cls = idx / N_TWIST;
    int tw = (int)(idx % N_TWIST), n = 0;
    unsigned self = t->corner_selfsym[cls];
    for (int s = 1; s < N_SYM; s++)
        if (self >> s & 1)
            out[n++] = cls * N_TWIST + t->twist_conj[tw][s];
    return n;
}

/* The tilt children of a robot state in class k: the same position in
 * each other class k2, at index base + k2 * stride; returns n plus their
 * number. A tilt is one robot move. */
static int tilt_children(uint64_t base, uint64_t stride, int k, int n,
                         uint64_t *child, uint8_t *cost)
{
    for (int k2 = 0; k2 < N_TILT; k2++)
        if (k2 != k) {
            child[n] = base + (uint64_t)k2 * stride;
            cost[n++] = 1;
        }
    return n;
}

/* The index of a (class, twist, tilt class) state whose twist tw and
 * tilt class k are seen through symmetry s. */
static uint64_t twist_tilt_index(const qs_tables *t, uint64_t cls, int tw,
                                 int k, int s)
{
    return (cls * N_TWIST + t->twist_conj[tw][s]) * N_TILT + t->axis_conj[k][s];
}

/* ---- robot phase 1: (phase-1 entry, tilt class k), index entry * 3 + k.
 * A class turns every move off its axis; a tilt, one robot move, changes
 * the class to either other one and leaves the cube alone. */

/* The children of state idx = entry * 3 + k of a (class, twist, tilt
 * class) space whose memo holds entry's class: each move off axis k, then
 * the tilts. Shared by robot phase 1 and robot corners. */
static int twist_tilt_children(const qs_tables *t, uint64_t idx,
                               const child_memo *memo, uint64_t *child,
                               uint8_t *cost)
{
    uint64_t entry = idx / N_TILT;
    int k = (int)(idx % N_TILT), n = 0, tw = (int)(entry % N_TWIST);
    uint64_t moves = t->tilt_moves[k];
    while (moves) {
        int m = __builtin_ctzll(moves);
        moves &= moves - 1;
        int s = memo->sym[m];
        child[n] = (memo->base[m] +
                    t->twist_conj[move_row(t, t->twist_move, tw)[m]][s]) *
                       N_TILT +
                   t->axis_conj[k][s];
        cost[n++] = 1;
    }
    return tilt_children(entry * N_TILT, 1, k, n, child, cost);
}

static int rphase1_children(const space *sp, uint64_t idx, uint64_t *child,
                            uint8_t *cost, child_memo *memo)
{
    flipslice_memo(sp->t, idx / N_TILT / N_TWIST, memo);
    return twist_tilt_children(sp->t, idx, memo, child, cost);
}

/* The other indices of state idx of a (class, twist, tilt class) space
 * that the self-symmetries of its class (selfsym[class]) give. */
static int twist_tilt_equivalents(const qs_tables *t, const uint16_t *selfsym,
                                  uint64_t idx, uint64_t *out)
{
    uint64_t entry = idx / N_TILT, cls = entry / N_TWIST;
    int k = (int)(idx % N_TILT), tw = (int)(entry % N_TWIST), n = 0;
    unsigned self = selfsym[cls];
    for (int s = 1; s < N_SYM; s++)
        if (self >> s & 1)
            out[n++] = twist_tilt_index(t, cls, tw, k, s);
    return n;
}

static int rphase1_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    return twist_tilt_equivalents(sp->t, sp->t->fs_selfsym, idx, out);
}

/* ---- robot corners: (corner class, twist, tilt class k), index
 * (class * N_TWIST + twist) * 3 + k; moves as in robot phase 1. */

static int rcorners_children(const space *sp, uint64_t idx, uint64_t *child,
                             uint8_t *cost, child_memo *memo)
{
    corner_memo(sp->t, idx / N_TILT / N_TWIST, memo);
    return twist_tilt_children(sp->t, idx, memo, child, cost);
}

static int rcorners_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    return twist_tilt_equivalents(sp->t, sp->t->corner_selfsym, idx, out);
}

/* ---- robot phase 2: (phase-2 entry, class k, class e to end in), index
 * (entry * 3 + k) * 3 + e. The end class is part of the state because the
 * symmetries that swap the R-L and F-B axes swap end classes too. */

static int rphase2_children(const space *sp, uint64_t idx, uint64_t *child,
                            uint8_t *cost, child_memo *memo)
{
    const qs_tables *t = sp->t;
    int e = (int)(idx % N_TILT), k = (int)(idx / N_TILT % N_TILT), n = 0;
    uint64_t p2 = idx / (N_TILT * N_TILT);
    if (memo->key != p2) {
        /* base: the child's phase-2 index, for all nine pairs at once */
        int cls = (int)(p2 / N_PERM8), ud = (int)(p2 % N_PERM8);
        int corners = t->corner_rep[cls];
        for (int j = 0; j < t->n_p2; j++) {
            int c2 = move_row(t, t->corners_move, corners)[t->p2_move[j]];
            int s = t->corner_sym[c2];
            memo->base[j] = (uint64_t)t->corner_class[c2] * N_PERM8 +
                            t->udedges_conj[t->udedges_move[ud][j]][s];
            memo->sym[j] = (uint8_t)s;
        }
        memo->key = p2;
    }
    for (int j = 0; j < t->n_p2; j++) {
        if (!(t->tilt_moves[k] >> t->p2_move[j] & 1))
            continue;
        int s = memo->sym[j];
        child[n] = (memo->base[j] * N_TILT + t->axis_conj[k][s]) * N_TILT +
                   t->axis_conj[e][s];
        cost[n++] = 1;
    }
    return tilt_children(p2 * N_TILT * N_TILT + (uint64_t)e, N_TILT, k, n,
                         child, cost);
}

static int rphase2_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    const qs_tables *t = sp->t;
    int e = (int)(idx % N_TILT), k = (int)(idx / N_TILT % N_TILT), n = 0;
    uint64_t p2 = idx / (N_TILT * N_TILT), cls = p2 / N_PERM8;
    int ud = (int)(p2 % N_PERM8);
    unsigned self = t->corner_selfsym[cls];
    for (int s = 1; s < N_SYM; s++)
        if (self >> s & 1)
            out[n++] = ((cls * N_PERM8 + t->udedges_conj[ud][s]) * N_TILT +
                        t->axis_conj[k][s]) * N_TILT + t->axis_conj[e][s];
    return n;
}

/* ---- H48 (h = 0, any corner level): index class * H48_N_ESEP + esep,
 * esep in the class representative's frame (see qs_internal.h). */

static int h48_children(const space *sp, uint64_t idx, uint64_t *child,
                        uint8_t *cost, child_memo *memo)
{
    const qs_h48 *x = sp->h48;
    uint64_t cls = idx / H48_N_ESEP;
    int esep = (int)(idx % H48_N_ESEP);
    if (memo->key != cls) {
        uint32_t cocsep = x->class_rep[cls];
        for (int m = 0; m < 18; m++) {
            uint32_t p = x->cocsep_packed[h48_cocsep_move(x, cocsep, m)];
            memo->base[m] = (uint64_t)(p >> 6) * H48_N_ESEP;
            memo->sym[m] = (uint8_t)(p & 63);
        }
        memo->key = cls;
    }
    /* Each child's esep is seen through its own symmetry, an entry of a
     * 3.3 MB table beyond the core's cache: all 18 are fetched first and
     * then read, so that they arrive together (a third less time). */
    for (int m = 0; m < 18; m++)
        __builtin_prefetch(&x->esep_conj[x->esep_move[esep][m]][memo->sym[m]]);
    for (int m = 0; m < 18; m++) {
        child[m] = memo->base[m] + x->esep_conj[x->esep_move[esep][m]][memo->sym[m]];
        cost[m] = 1;
    }
    return 18;
}

static int h48_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    const qs_h48 *x = sp->h48;
    uint64_t cls = idx / H48_N_ESEP, self = x->class_stab[cls] & ~1ull;
    int esep = (int)(idx % H48_N_ESEP), n = 0;
    while (self) {
        int s = __builtin_ctzll(self);
        self &= self - 1;
        out[n++] = cls * H48_N_ESEP + x->esep_conj[esep][s];
    }
    return n;
}

/* ---- threaded breadth-first search */

typedef struct {
    const space *sp;
    uint8_t *dist;
    int level;
    int backward;
    atomic_uint_fast64_t next_chunk;
    atomic_int failed;         /* a worker ran out of memory or met a bug */
    const atomic_int *cancel;
    /* for the move-mask pass */
    void *entries;
    int entry_size;
    /* the robot move table's: each entry's own dead-end flags, bit
     * 2 * kk + slot = robot_p1x_dead(entry, kk, slot) */
    uint8_t *dead_ends;
    qs_progress_fn progress;
    void *progress_ctx;
    double progress_base, progress_span;
    pthread_mutex_t progress_lock;
} bfs_job;

static void lower_to(uint8_t *slot, uint8_t value)
{
    uint8_t cur = __atomic_load_n(slot, __ATOMIC_RELAXED);
    while (cur > value &&
           !__atomic_compare_exchange_n(slot, &cur, value, 1,
                                        __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        ;
}

static int cancelled(const bfs_job *job)
{
    return job->cancel && atomic_load_explicit(job->cancel,
                                               memory_order_relaxed);
}

static void report(bfs_job *job, uint64_t chunk, uint64_t chunks)
{
    if (!job->progress || chunk % 64)
        return;
    pthread_mutex_lock(&job->progress_lock);
    job->progress(job->progress_ctx,
                  job->progress_base +
                      job->progress_span * (double)chunk / (double)chunks);
    pthread_mutex_unlock(&job->progress_lock);
}

/* Claims the job's next chunk of entries, [*begin, *end); 0 when none is
 * left or the job is cancelled. With `progress`, a pass over the whole
 * space: its share of the job's progress is reported as chunks pass (a
 * breadth-first level reports its own). */
static int claim_chunk(bfs_job *job, int progress, uint64_t *begin,
                       uint64_t *end)
{
    uint64_t n = job->sp->n, chunks = (n + CHUNK - 1) / CHUNK;
    uint64_t chunk = atomic_fetch_add(&job->next_chunk, 1);
    if (chunk >= chunks || cancelled(job))
        return 0;
    if (progress && chunk > 0)
        report(job, chunk - 1, chunks);
    *begin = chunk * CHUNK;
    *end = *begin + CHUNK < n ? *begin + CHUNK : n;
    return 1;
}

/* Entries of a chunk are taken in batches: the children of every entry of
 * a batch are made and their distances fetched before any is read, so
 * that the reads of a batch, scattered over a table far beyond the cache,
 * overlap instead of following one another. A backward look fetches only
 * its first children: it mostly stops at one of them. */
enum { BFS_BATCH = 16, BACKWARD_FETCH = 4 };

static void *bfs_level_worker(void *arg)
{
    bfs_job *job = arg;
    const space *sp = job->sp;
    uint8_t *dist = job->dist;
    const int d = job->level;
    uint64_t child[BFS_BATCH][MAX_CHILDREN], equiv[MAX_EQUIV];
    uint8_t cost[BFS_BATCH][MAX_CHILDREN];
    uint64_t idx[BFS_BATCH];
    int n_child[BFS_BATCH];
    uint64_t begin, end;
    child_memo memo = {.key = NO_MEMO};
    while (claim_chunk(job, 0, &begin, &end)) {
        uint64_t i = begin;
        while (i < end) {
            int batch = 0;
            for (; i < end && batch < BFS_BATCH; i++) {
                uint8_t here = __atomic_load_n(&dist[i], __ATOMIC_RELAXED);
                /* Forward: the level's entries expand; backward: entries
                 * already at d or closer are final. */
                if (job->backward ? here <= d : here != d)
                    continue;
                int n = sp->children(sp, i, child[batch], cost[batch], &memo);
                int fetch = job->backward && n > BACKWARD_FETCH
                                ? BACKWARD_FETCH
                                : n;
                for (int k = 0; k < fetch; k++)
                    __builtin_prefetch(&dist[child[batch][k]]);
                idx[batch] = i;
                n_child[batch++] = n;
            }
            for (int b = 0; b < batch; b++) {
                const uint64_t *ch = child[b];
                const uint8_t *co = cost[b];
                if (!job->backward) {
                    for (int k = 0; k < n_child[b]; k++) {
                        uint8_t nd = (uint8_t)(d + co[k]);
                        if (__atomic_load_n(&dist[ch[k]],
                                            __ATOMIC_RELAXED) <= nd)
                            continue;
                        lower_to(&dist[ch[k]], nd);
                        int ne = sp->equivalents(sp, ch[k], equiv);
                        for (int e = 0; e < ne; e++)
                            lower_to(&dist[equiv[e]], nd);
                    }
                    continue;
                }
                for (int k = 0; k < n_child[b]; k++) {
                    if (co[k] > d)
                        continue;
                    if (__atomic_load_n(&dist[ch[k]], __ATOMIC_RELAXED) ==
                        d - co[k]) {
                        __atomic_store_n(&dist[idx[b]], (uint8_t)d,
                                         __ATOMIC_RELAXED);
                        break;
                    }
                }
            }
        }
    }
    return NULL;
}

static int run_threads(int threads, void *(*fn)(void *), void *arg)
{
    pthread_t tid[64];
    int started = 0;
    if (threads > 64)
        threads = 64;
    for (int i = 1; i < threads; i++) {
        if (pthread_create(&tid[started], NULL, fn, arg) != 0)
            break;
        started++;
    }
    fn(arg);
    for (int i = 0; i < started; i++)
        pthread_join(tid[i], NULL);
    return QS_OK;
}

/* Fills dist (sp->n bytes) with distances from the entries `starts`. */
static int bfs(const space *sp, const uint64_t *starts, int n_starts,
               uint8_t *dist, int threads, bfs_job *job)
{
    uint64_t equiv[MAX_EQUIV];
    memset(dist, UNREACHED, sp->n);
    for (int i = 0; i < n_starts; i++) {
        dist[starts[i]] = 0;
        int ne = sp->equivalents(sp, starts[i], equiv);
        for (int e = 0; e < ne; e++)
            dist[equiv[e]] = 0;
    }

    uint64_t reached = 0, at_level = 0;
    for (uint64_t i = 0; i < sp->n; i++)
        reached += dist[i] == 0;
    at_level = reached;
    for (int d = 0; d < sp->max_level; d++) {
        uint64_t unreached = sp->n - reached;
        if (unreached == 0)
            break;
        /* Expanding the level costs about its size; checking every entry
         * not reached yet costs about their number, and most of those
         * find a neighbour after a few tries once the frontier is large. */
        job->backward = at_level > unreached / 4;
        job->level = job->backward ? d + 1 : d;
        atomic_store(&job->next_chunk, 0);
        run_threads(threads, bfs_level_worker, job);
        if (cancelled(job))
            return QS_ERR_CANCELLED;
        /* Forward expansion of level d settles level d+1. */
        uint64_t count = 0, total = 0;
        for (uint64_t i = 0; i < sp->n; i++) {
            count += dist[i] == d + 1;
            total += dist[i] != UNREACHED;
        }
        reached = total;
        at_level = count;
        if (job->progress)
            job->progress(job->progress_ctx,
                          job->progress_span * (double)reached /
                              (double)sp->n);
    }
    for (uint64_t i = 0; i < sp->n; i++)
        if (dist[i] > sp->max_level)
            dist[i] = (uint8_t)sp->max_level;
    return QS_OK;
}

/* The phase-1 entries: distance plus the mask of moves that get closer. */
static void *mask_worker(void *arg)
{
    bfs_job *job = arg;
    const space *sp = job->sp;
    const qs_tables *t = sp->t;
    const uint8_t *dist = job->dist;
    uint64_t child[MAX_CHILDREN], begin, end;
    uint8_t cost[MAX_CHILDREN];
    child_memo memo = {.key = NO_MEMO};
    while (claim_chunk(job, 1, &begin, &end)) {
        for (uint64_t i = begin; i < end; i++) {
            int n = sp->children(sp, i, child, cost, &memo);
            for (int k = 0; k < n; k++)
                __builtin_prefetch(&dist[child[k]]);
            /* Without branches: which way each test goes is close to a
             * coin toss, and mispredictions cost more than the tests. */
            uint8_t delta[MAX_CHILDREN];
            unsigned high = 0; /* groups with a delta of 2 */
            const int here = dist[i];
            for (int k = 0; k < n; k++) {
                delta[k] = (uint8_t)(dist[child[k]] + cost[k] - here);
                high |= (unsigned)(delta[k] == 2) << t->group_of[k];
            }
            const unsigned grouped = t->grouped ? 1u : 0u;
            uint64_t mask = 0;
            for (int k = 0; k < n; k++) {
                unsigned low = grouped & (high >> t->group_of[k]);
                mask |= (uint64_t)(delta[k] == low) << k;
            }
            uint64_t entry = (uint64_t)here | mask << P1_MASK_SHIFT;
            if (t->grouped)
                entry |= (uint64_t)high << (P1_MASK_SHIFT + n);
            if (job->entry_size == 8)
                ((uint64_t *)job->entries)[i] = entry;
            else
                ((uint32_t *)job->entries)[i] = (uint32_t)entry;
        }
    }
    return NULL;
}

static int solved_flipslice_index(const qs_tables *t)
{
    int fs = SLICE_SOLVED * N_FLIP; /* flip 0 */
    return t->fs_class[fs] * N_TWIST + t->twist_conj[0][t->fs_sym[fs]];
}

/* The distances in space sp from its starts, a byte each, into *out
 * (malloc'ed, sp->n long); the progress bar runs from 0 to `span`. job
 * keeps sp and dist for a pass over them that may follow (the phase-1
 * masks), so sp must outlive that use. A distance of `too_far` or more is
 * QS_ERR_TABLES (what the caller's entries cannot hold; pass sp->max_level
 * + 1 where bfs()'s saturation at max_level is wanted). */
static int space_distances(const space *sp, const uint64_t *starts,
                           int n_starts, int threads, bfs_job *job,
                           double span, int too_far, uint8_t **out)
{
    uint8_t *dist = malloc(sp->n);
    if (!dist)
        return QS_ERR_NOMEM;
    job->sp = sp;
    job->dist = dist;
    job->progress_base = 0;
    job->progress_span = span;
    int err = bfs(sp, starts, n_starts, dist, threads, job);
    for (uint64_t i = 0; !err && i < sp->n; i++)
        if (dist[i] >= too_far)
            err = QS_ERR_TABLES;
    if (err) {
        free(dist);
        return err;
    }
    *out = dist;
    return QS_OK;
}

/* space_distances() for a phase-1 space (plain or robot): a distance a
 * phase-1 entry cannot hold (P1_DIST_MASK or more) is QS_ERR_TABLES. */
static int p1_space_distances(const space *sp, const uint64_t *starts,
                              int n_starts, int threads, bfs_job *job,
                              double span, uint8_t **out)
{
    return space_distances(sp, starts, n_starts, threads, job, span,
                           (int)P1_DIST_MASK, out);
}

/* The phase-1 distance of every entry (see p1_space_distances). */
static int phase1_distances(const qs_tables *t, space *sp, int threads,
                            bfs_job *job, double span, uint8_t **out)
{
    *sp = (space){t, N_PHASE1, (int)P1_DIST_MASK, phase1_children,
                  phase1_equivalents, NULL};
    uint64_t start = (uint64_t)solved_flipslice_index(t);
    return p1_space_distances(sp, &start, 1, threads, job, span, out);
}

static int generate_phase1(const qs_tables *t, void *buf, int threads,
                           bfs_job *job)
{
    space sp;
    uint8_t *dist;
    int err = phase1_distances(t, &sp, threads, job, 0.5, &dist);
    if (err)
        return err;
    job->entries = buf;
    job->entry_size = phase1_entry_size(t->axial);
    job->progress_base = 0.5;
    atomic_store(&job->next_chunk, 0);
    run_threads(threads, mask_worker, job);
    if (cancelled(job))
        err = QS_ERR_CANCELLED;
    free(dist);
    return err;
}

/* The compact phase-1 table (BLOB_P1M3): the same breadth-first search as
 * the phase-1 table's, each distance kept modulo 3 in two bits. */
static int generate_p1m3(const qs_tables *t, uint8_t *buf, int threads,
                         bfs_job *job)
{
    space sp;
    uint8_t *dist;
    int err = phase1_distances(t, &sp, threads, job, 1.0, &dist);
    if (err)
        return err;
    memset(buf, 0, (size_t)((sp.n + 3) / 4));
    for (uint64_t i = 0; i < sp.n; i++)
        buf[i >> 2] |= (uint8_t)(dist[i] % 3 << ((i & 3) * 2));
    free(dist);
    return QS_OK;
}

/* A space's distances from entry `start`, saturated at PHASE2_MAX_DIST,
 * packed two nibbles per byte (sp->n is even: no byte is shared). */
static int generate_nibbles(const space *sp, uint64_t start, uint8_t *buf,
                            int threads, bfs_job *job)
{
    uint8_t *dist;
    int err = space_distances(sp, &start, 1, threads, job, 1.0,
                              sp->max_level + 1, &dist);
    if (err)
        return err;
    for (uint64_t i = 0; i < sp->n; i += 2)
        buf[i / 2] = (uint8_t)(dist[i] | dist[i + 1] << 4);
    free(dist);
    return QS_OK;
}

static int generate_phase2(const qs_tables *t, uint8_t *buf, int threads,
                           bfs_job *job)
{
    space sp = {t, N_PHASE2, PHASE2_MAX_DIST, phase2_children,
                phase2_equivalents, NULL};
    return generate_nibbles(&sp, (uint64_t)t->corner_class[0] * N_PERM8,
                            buf, threads, job);
}

static int generate_corners(const qs_tables *t, uint8_t *buf, int threads,
                            bfs_job *job)
{
    space sp = {t, N_CORNERS_OPT, PHASE2_MAX_DIST, corners_children,
                corners_equivalents, NULL};
    return generate_nibbles(&sp, (uint64_t)t->corner_class[0] * N_TWIST,
                            buf, threads, job);
}

/* The robot phase-1 distances, a byte per (phase-1 entry, class), into
 * *out (malloc'ed); the progress bar runs to `span`. */
static int rphase1_distances(const qs_tables *t, space *sp, int threads,
                             bfs_job *job, double span, uint8_t **out)
{
    *sp = (space){t, N_PHASE1 * N_TILT, (int)P1_DIST_MASK, rphase1_children,
                  rphase1_equivalents, NULL};
    uint64_t solved = (uint64_t)solved_flipslice_index(t), starts[N_TILT];
    for (int k = 0; k < N_TILT; k++)
        starts[k] = solved * N_TILT + k;
    return p1_space_distances(sp, starts, N_TILT, threads, job, span, out);
}

static uint16_t rphase1_nibbles(const uint8_t *d)
{
    return (uint16_t)(d[0] | d[1] << 4 | d[2] << 8);
}

static int generate_rphase1(const qs_tables *t, uint16_t *buf, int threads,
                            bfs_job *job)
{
    space sp;
    uint8_t *dist;
    int err = rphase1_distances(t, &sp, threads, job, 1.0, &dist);
    if (err)
        return err;
    for (uint64_t i = 0; i < N_PHASE1; i++)
        buf[i] = rphase1_nibbles(&dist[i * N_TILT]);
    free(dist);
    return QS_OK;
}

/* The large robot entries (robot_p1x), one flipslice class per unit of
 * work: a move sends all 2,187 twists of a class to one class, so the
 * children's distances of a whole class are read from one block of the
 * distance array per move. */
static void *rphase1x_worker(void *arg)
{
    bfs_job *job = arg;
    const qs_tables *t = job->sp->t;
    const uint8_t *dist = job->dist;
    robot_p1x *out = job->entries;
    /* child[tw][m][kk]: the child's distance from the parent's class kk */
    uint8_t(*child)[QS_MOVE_COUNT][N_TILT] =
        malloc(sizeof *child * N_TWIST);
    if (!child) {
        atomic_store(&job->failed, 1);
        return NULL;
    }
    /* The moves of each group in move order, the order of an entry's bits
     * (every entry looks at each group twice, once per other class). */
    uint8_t group_moves[N_TILT][QS_MOVE_COUNT];
    int n_group[N_TILT] = {0, 0, 0};
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        if (t->group_of[m] < N_TILT)
            group_moves[t->group_of[m]][n_group[t->group_of[m]]++] =
                (uint8_t)m;
    for (;;) {
        uint64_t cls = atomic_fetch_add(&job->next_chunk, 1);
        if (cls >= N_FS_CLASS || cancelled(job) || atomic_load(&job->failed))
            break;
        int fs = (int)t->fs_rep[cls], comb = fs / N_FLIP, flip = fs % N_FLIP;
        for (int m = 0; m < QS_MOVE_COUNT; m++) {
            int fs2 = move_row(t, t->edge4_move, comb * 24)[m] / 24 *
                          N_FLIP +
                      move_row(t, t->flip_move, flip)[m];
            int s2 = t->fs_sym[fs2];
            uint64_t base = (uint64_t)t->fs_class[fs2] * N_TWIST;
            int ac[N_TILT];
            for (int k = 0; k < N_TILT; k++)
                ac[k] = t->axis_conj[k][s2];
            for (int tw = 0; tw < N_TWIST; tw++) {
                int tw2 = t->twist_conj[move_row(t, t->twist_move, tw)[m]][s2];
                const uint8_t *cd = &dist[(base + tw2) * N_TILT];
                for (int k = 0; k < N_TILT; k++)
                    child[tw][m][k] = cd[ac[k]];
            }
        }
        for (int tw = 0; tw < N_TWIST; tw++) {
            uint64_t i = cls * N_TWIST + tw;
            const uint8_t *d = &dist[i * N_TILT];
            robot_p1x e = {rphase1_nibbles(d), 0, {0, 0, 0}};
            for (int kk = 0; kk < N_TILT; kk++) {
                uint32_t w = 0;
                int slot = 0;
                for (int a = 0; a < N_TILT; a++) {
                    if (a == kk)
                        continue;
                    uint32_t bits = 0;
                    int i_axis = 0, high = 0;
                    uint8_t delta[16];
                    for (int g = 0; g < n_group[a]; g++) {
                        int m = group_moves[a][g];
                        int dd = child[tw][m][kk] + 1 - d[kk];
                        if (dd < 0 || dd > 2)
                            atomic_store(&job->failed, 1); /* a bug */
                        delta[i_axis++] = (uint8_t)dd;
                        high |= dd == 2;
                    }
                    for (int j = 0; j < i_axis; j++)
                        if (delta[j] == high)
                            bits |= 1u << j;
                    w |= bits << (15 * slot);
                    w |= (uint32_t)high << (30 + slot);
                    slot++;
                }
                e.moves[kk] = w;
            }
            out[i] = e;
            uint8_t own = 0;
            for (int kk = 0; kk < N_TILT; kk++)
                for (int slot = 0; slot < 2; slot++)
                    own |= (uint8_t)(robot_p1x_dead(&e, kk, slot)
                                     << (2 * kk + slot));
            job->dead_ends[i] = own;
        }
        report(job, cls, N_FS_CLASS);
    }
    free(child);
    return NULL;
}

/* The dead bits of the large robot entries (robot_p1x.dead), once every
 * entry's own dead-end flags are known (job->dead_ends), one flipslice
 * class per unit of work: as in rphase1x_worker, a move sends the class's
 * 2,187 twists to one block, where their children's distances and flags
 * are read. */
static void *rphase1x_dead_worker(void *arg)
{
    bfs_job *job = arg;
    const qs_tables *t = job->sp->t;
    const uint8_t *dist = job->dist, *flags = job->dead_ends;
    robot_p1x *out = job->entries;
    uint16_t *dead = malloc(sizeof *dead * N_TWIST);
    if (!dead) {
        atomic_store(&job->failed, 1);
        return NULL;
    }
    for (;;) {
        uint64_t cls = atomic_fetch_add(&job->next_chunk, 1);
        if (cls >= N_FS_CLASS || cancelled(job) || atomic_load(&job->failed))
            break;
        int fs = (int)t->fs_rep[cls], comb = fs / N_FLIP, flip = fs % N_FLIP;
        const uint8_t *mine = &dist[cls * N_TWIST * N_TILT];
        /* A bit stays set while every turn of its group leads to a dead
         * end; a group with no turn at all keeps it, and no turn reads it. */
        for (int tw = 0; tw < N_TWIST; tw++)
            dead[tw] = 0xfff;
        for (int m = 0; m < QS_MOVE_COUNT; m++) {
            int a = t->group_of[m];
            if (a >= N_TILT)
                continue;
            int fs2 = move_row(t, t->edge4_move, comb * 24)[m] / 24 *
                          N_FLIP +
                      move_row(t, t->flip_move, flip)[m];
            int s2 = t->fs_sym[fs2];
            uint64_t block = (uint64_t)t->fs_class[fs2] * N_TWIST;
            /* The two classes that can turn axis a, seen from the parent
             * and, through s2, from the child's representative. */
            int kk[2], kk2[2], flag2[2], shift[2], n = 0;
            for (int k = 0; k < N_TILT; k++) {
                if (k == a)
                    continue;
                kk[n] = k;
                kk2[n] = t->axis_conj[k][s2];
                flag2[n] = 2 * kk2[n] +
                           robot_axis_slot(kk2[n], t->axis_conj[a][s2]);
                shift[n] = 4 * k + 2 * robot_axis_slot(k, a);
                n++;
            }
            for (int tw = 0; tw < N_TWIST; tw++) {
                uint64_t child =
                    block +
                    t->twist_conj[move_row(t, t->twist_move, tw)[m]][s2];
                /* without branches: which way they go is random */
                for (int i = 0; i < 2; i++) {
                    int delta = dist[child * N_TILT + kk2[i]] + 1 -
                                mine[tw * N_TILT + kk[i]];
                    unsigned live = !(flags[child] >> flag2[i] & 1),
                             bits = (unsigned)(delta == 1) |
                                    (unsigned)(delta == 2) << 1;
                    dead[tw] &= (uint16_t)~(live * bits << shift[i]);
                }
            }
        }
        for (int tw = 0; tw < N_TWIST; tw++)
            out[cls * N_TWIST + tw].dead = dead[tw];
        report(job, cls, N_FS_CLASS);
    }
    free(dead);
    return NULL;
}

/* rphase1, when not NULL, is the robot phase-1 blob: its distances are
 * the breadth-first search's, read instead of searched again. */
static int generate_rphase1x(const qs_tables *t, robot_p1x *buf, int threads,
                             const uint16_t *rphase1, bfs_job *job)
{
    space sp = {t, N_PHASE1 * N_TILT, (int)P1_DIST_MASK, rphase1_children,
                rphase1_equivalents, NULL};
    uint8_t *dist;
    int err = QS_OK;
    double searched = 0.0;
    if (rphase1) {
        dist = malloc(sp.n);
        if (!dist)
            return QS_ERR_NOMEM;
        for (uint64_t i = 0; i < N_PHASE1; i++)
            for (int k = 0; k < N_TILT; k++)
                dist[i * N_TILT + k] = (uint8_t)(rphase1[i] >> (4 * k) & 15);
        job->sp = &sp;
        job->dist = dist;
    } else {
        searched = 0.4;
        err = rphase1_distances(t, &sp, threads, job, searched, &dist);
        if (err)
            return err;
    }
    /* Two passes over the classes: every entry's moves, distances and
     * own dead-end flags, then the dead bits, which read the children's
     * (141 MB of flags besides the distances). */
    job->dead_ends = malloc(N_PHASE1);
    if (!job->dead_ends) {
        free(dist);
        return QS_ERR_NOMEM;
    }
    job->entries = buf;
    job->progress_base = searched;
    job->progress_span = (1.0 - searched) / 2;
    atomic_store(&job->next_chunk, 0);
    run_threads(threads, rphase1x_worker, job);
    if (!cancelled(job) && !atomic_load(&job->failed)) {
        job->progress_base = searched + job->progress_span;
        atomic_store(&job->next_chunk, 0);
        run_threads(threads, rphase1x_dead_worker, job);
    }
    free(job->dead_ends);
    job->dead_ends = NULL;
    if (cancelled(job))
        err = QS_ERR_CANCELLED;
    else if (atomic_load(&job->failed))
        err = QS_ERR_TABLES;
    free(dist);
    return err;
}

static int generate_rphase2(const qs_tables *t, uint32_t *buf, int threads,
                            bfs_job *job)
{
    const int pairs = N_TILT * N_TILT;
    space sp = {t, N_PHASE2 * pairs, PHASE2_MAX_DIST, rphase2_children,
                rphase2_equivalents, NULL};
    uint64_t solved = (uint64_t)t->corner_class[0] * N_PERM8, starts[N_TILT];
    for (int e = 0; e < N_TILT; e++)
        starts[e] = (solved * N_TILT + e) * N_TILT + e;
    uint8_t *dist;
    int err = space_distances(&sp, starts, N_TILT, threads, job, 1.0,
                              sp.max_level + 1, &dist);
    if (err)
        return err;
    for (uint64_t i = 0; i < N_PHASE2; i++) {
        const uint8_t *d = &dist[i * pairs]; /* d[k * 3 + e] */
        uint32_t entry = 0;
        for (int k = 0; k < N_TILT; k++) {
            int any = d[k * 3];
            for (int e = 1; e < N_TILT; e++)
                if (d[k * 3 + e] < any)
                    any = d[k * 3 + e];
            entry |= (uint32_t)any << (4 * k);
            for (int e = 0; e < N_TILT; e++)
                if (any < PHASE2_MAX_DIST && d[k * 3 + e] > any)
                    entry |= 1u << (RP2_EXCESS + 3 * e + k);
        }
        buf[i] = entry;
    }
    free(dist);
    return err;
}

/* The robot corner distances (rcorners_children's space, index
 * (class * N_TWIST + twist) * 3 + k), a byte each, into *out (see
 * space_distances). */
static int rcorners_dist(const qs_tables *t, int threads, bfs_job *job,
                         double span, uint8_t **out)
{
    space sp = {t, N_CORNERS_OPT * N_TILT, PHASE2_MAX_DIST, rcorners_children,
                rcorners_equivalents, NULL};
    uint64_t solved = (uint64_t)t->corner_class[0] * N_TWIST, starts[N_TILT];
    for (int k = 0; k < N_TILT; k++)
        starts[k] = solved * N_TILT + k;
    int err = space_distances(&sp, starts, N_TILT, threads, job, span,
                              sp.max_level + 1, out);
    job->sp = NULL; /* sp lives here only */
    return err;
}

static int generate_rcorners(const qs_tables *t, uint8_t *buf, int threads,
                             bfs_job *job)
{
    uint8_t *dist;
    int err = rcorners_dist(t, threads, job, 1.0, &dist);
    if (err)
        return err;
    for (uint64_t i = 0; !err && i < N_CORNERS_OPT; i++) {
        const uint8_t *d = &dist[i * N_TILT];
        int least = d[0] < d[1] ? d[0] : d[1];
        if (d[2] < least)
            least = d[2];
        uint8_t e = (uint8_t)least;
        for (int k = 0; k < N_TILT; k++) {
            if (d[k] > least + 1)
                err = QS_ERR_TABLES; /* a tilt reaches every class */
            e |= (uint8_t)((d[k] > least) << (4 + k));
        }
        buf[i] = e;
    }
    free(dist);
    return err;
}

/* ---- robot corner paths (BLOB_ROBOT_PATHS) */

/* The phase-2 robot moves the corners alone need, for every corner
 * permutation c and tilt class k (index c * 3 + k), ending in any class:
 * 120,960 states, a plain breadth-first search. */
static void phase2_corner_moves(const qs_tables *t, uint8_t *d)
{
    memset(d, UNREACHED, (size_t)N_PERM8 * N_TILT);
    for (int k = 0; k < N_TILT; k++)
        d[k] = 0;
    for (int level = 0, more = 1; more; level++) {
        more = 0;
        for (int c = 0; c < N_PERM8; c++)
            for (int k = 0; k < N_TILT; k++) {
                if (d[c * N_TILT + k] != level)
                    continue;
                for (int x = 0; x < t->n_p2; x++) {
                    int m = t->p2_move[x];
                    uint8_t *to = &d[move_row(t, t->corners_move, c)[m] *
                                         N_TILT + k];
                    if ((t->tilt_moves[k] >> m & 1) && *to == UNREACHED) {
                        *to = (uint8_t)(level + 1);
                        more = 1;
                    }
                }
                for (int k2 = 0; k2 < N_TILT; k2++)
                    if (d[c * N_TILT + k2] == UNREACHED) {
                        d[c * N_TILT + k2] = (uint8_t)(level + 1);
                        more = 1;
                    }
            }
    }
}

/* One step of the corner-path bounds: next[i], the least over entry i and
 * its children (one turn or tilt each) of prev, job->dist = prev, next in
 * job->entries. A path with j moves left either stays or moves. */
static void *paths_worker(void *arg)
{
    bfs_job *job = arg;
    const space *sp = job->sp;
    const uint8_t *prev = job->dist;
    uint8_t *next = job->entries;
    uint64_t child[MAX_CHILDREN], begin, end;
    uint8_t cost[MAX_CHILDREN];
    child_memo memo = {.key = NO_MEMO};
    while (claim_chunk(job, 1, &begin, &end)) {
        for (uint64_t i = begin; i < end; i++) {
            uint8_t least = prev[i];
            int n = sp->children(sp, i, child, cost, &memo);
            for (int k = 0; k < n; k++)
                if (prev[child[k]] < least)
                    least = prev[child[k]];
            next[i] = least;
        }
    }
    return NULL;
}

/* Fills nibble j of every entry from nibble j - 1 (prev), for j = 1 to
 * 14, through paths_worker. */
static int rpaths_steps(const qs_tables *t, uint64_t *buf, uint8_t *prev,
                        uint8_t *next, int threads, bfs_job *job)
{
    space sp = {t, N_CORNERS_OPT * N_TILT, 0, rcorners_children,
                rcorners_equivalents, NULL};
    job->sp = &sp;
    for (int j = 1; j < ROBOT_PATH_NIBBLES; j++) {
        job->dist = prev;
        job->entries = next;
        job->progress_base = 0.25 + 0.75 * (j - 1) / (ROBOT_PATH_NIBBLES - 1);
        job->progress_span = 0.75 / (ROBOT_PATH_NIBBLES - 1);
        atomic_store(&job->next_chunk, 0);
        run_threads(threads, paths_worker, job);
        if (cancelled(job))
            return QS_ERR_CANCELLED;
        for (uint64_t i = 0; i < sp.n; i++)
            buf[i] |= (uint64_t)next[i] << (4 * j);
        uint8_t *swap = prev;
        prev = next;
        next = swap;
    }
    job->sp = NULL;
    return QS_OK;
}

/* The blob from the entries (see BLOB_ROBOT_PATHS): each distinct entry
 * once in dict, in the order first met (so the file is the same at every
 * generation), and each entry's place in it in code. QS_ERR_TABLES if
 * there were more than ROBOT_PATH_DICT distinct entries. */
static int path_codes(const uint64_t *entries, uint64_t n, uint64_t *dict,
                      uint16_t *code)
{
    enum { SLOT_BITS = 18 }; /* four times the dictionary: short probes */
    const uint32_t mask = (1u << SLOT_BITS) - 1;
    uint32_t *slot = calloc((size_t)mask + 1, sizeof *slot); /* code + 1 */
    if (!slot)
        return QS_ERR_NOMEM;
    memset(dict, 0, ROBOT_PATH_DICT * sizeof *dict);
    uint32_t count = 0;
    int err = QS_OK;
    for (uint64_t i = 0; i < n && !err; i++) {
        uint64_t e = entries[i];
        uint32_t h = (uint32_t)((e * 0x9e3779b97f4a7c15ull) >> (64 - SLOT_BITS));
        while (slot[h] && dict[slot[h] - 1] != e)
            h = (h + 1) & mask;
        if (!slot[h]) {
            if (count == ROBOT_PATH_DICT) {
                err = QS_ERR_TABLES;
                break;
            }
            dict[count] = e;
            slot[h] = ++count;
        }
        code[i] = (uint16_t)(slot[h] - 1);
    }
    free(slot);
    return err;
}

/* The room tables after the codes (see BLOB_ROBOT_PATHS): for room r
 * and each (corner class, twist), the least j of each class's entry whose
 * nibble is at most r, as a least value and a bit per class that is one
 * more. QS_ERR_TABLES where the classes differ by more (a tilt reaches
 * any class, so they cannot). */
static int path_rooms(const uint64_t *dict, const uint16_t *code,
                      uint8_t *rooms)
{
    uint8_t *first = malloc((size_t)ROBOT_PATH_DICT * ROBOT_PATH_ROOMS);
    if (!first)
        return QS_ERR_NOMEM;
    for (uint32_t c = 0; c < ROBOT_PATH_DICT; c++)
        for (int r = 0; r < ROBOT_PATH_ROOMS; r++) {
            int j = 0;
            while (j < ROBOT_PATH_NIBBLES && (int)(dict[c] >> (4 * j) & 15) > r)
                j++;
            first[c * ROBOT_PATH_ROOMS + r] = (uint8_t)j;
        }
    int err = QS_OK;
    for (int r = 0; r < ROBOT_PATH_ROOMS && !err; r++)
        for (uint64_t e = 0; e < N_CORNERS_OPT; e++) {
            int j[N_TILT], least = 15;
            for (int k = 0; k < N_TILT; k++) {
                j[k] = first[(size_t)code[e * N_TILT + k] * ROBOT_PATH_ROOMS + r];
                if (j[k] < least)
                    least = j[k];
            }
            uint8_t byte = (uint8_t)least;
            for (int k = 0; k < N_TILT; k++) {
                if (j[k] > least + 1)
                    err = QS_ERR_TABLES;
                byte |= (uint8_t)((j[k] - least) << (4 + k));
            }
            rooms[(size_t)r * N_CORNERS_OPT + e] = byte;
        }
    free(first);
    return err;
}

static int generate_rpaths(const qs_tables *t, void *blob, int threads,
                           bfs_job *job)
{
    const uint64_t n = N_CORNERS_OPT * N_TILT;
    uint8_t *corners = NULL;
    int err = rcorners_dist(t, threads, job, 0.25, &corners);
    uint8_t *p2 = malloc((size_t)N_PERM8 * N_TILT), *prev = malloc(n),
            *next = malloc(n);
    uint64_t *buf = malloc(n * sizeof *buf);
    if (!err && (!p2 || !prev || !next || !buf))
        err = QS_ERR_NOMEM;
    if (!err) {
        phase2_corner_moves(t, p2);
        /* No phase-1 move left: the corners are oriented, phase 2 follows. */
        for (uint64_t i = 0; i < n; i++) {
            uint64_t e = i / N_TILT;
            int c = t->corner_rep[e / N_TWIST], k = (int)(i % N_TILT);
            int v = e % N_TWIST == 0 ? p2[c * N_TILT + k] : 15;
            prev[i] = (uint8_t)(v < 15 ? v : 15);
            buf[i] = prev[i] |
                     (uint64_t)(corners[i] < 15 ? corners[i] : 15) << 60;
        }
        err = rpaths_steps(t, buf, prev, next, threads, job);
    }
    uint64_t *dict = blob;
    if (!err)
        err = path_codes(buf, n, dict, (uint16_t *)(dict + ROBOT_PATH_DICT));
    /* The search skips reading entries by robot_path_most: a table that
     * exceeds it would lose solutions, so it is refused. */
    for (uint64_t i = 0; !err && i < ROBOT_PATH_DICT; i++)
        for (int j = 0; j < ROBOT_PATH_NIBBLES; j++)
            if (robot_path_bound(dict[i], j) > robot_path_most[j])
                err = QS_ERR_TABLES;
    if (!err)
        err = path_rooms(dict, (uint16_t *)(dict + ROBOT_PATH_DICT),
                         (uint8_t *)blob + ROBOT_PATH_DICT * sizeof *dict +
                             n * sizeof(uint16_t));
    free(corners);
    free(p2);
    free(prev);
    free(next);
    free(buf);
    return err;
}

/* ---- the optimal solver's large and extra-large tables (BLOB_OPT_LARGE,
 * BLOB_OPT_XL)
 *
 * A breadth-first search of its own rather than bfs(): at 3.4e9 entries
 * (9.9e9 for xl) a byte per entry would need 3.4 GB, while the 2-bit
 * entries themselves (value 3 = not reached) are enough to run it, so
 * generation needs no more memory than the table. The entries of one
 * (class, order) block, (class, csplit) for xl, are its 2,187 twists: a
 * move sends the whole block to one block (the child's class, symmetry and
 * third coordinate depend on the flipslice and that coordinate only), so
 * the flipslice work is done once per block and move and the twist loop
 * writes within 550 bytes. Only unit-cost moves are expanded: in QTM a
 * half turn is two quarter turns. */

enum {
    LARGE_CHUNK = 64,    /* blocks per unit of work */
    LARGE_FETCH_ALL = 16 /* entries of a block from which its children's
                            blocks are fetched whole */
};

typedef struct {
    const qs_tables *t;
    uint8_t *tab;
    int xl;        /* BLOB_OPT_XL: the third coordinate is csplit, not the
                      slice order */
    uint64_t blocks; /* classes x values of the third coordinate */
    int level;     /* forward: entries at this level settle level + 1;
                      backward: unreached entries look for level - 1 */
    int backward;
    int n_unit;    /* unit-cost moves */
    uint8_t unit[QS_MOVE_COUNT];
    atomic_uint_fast64_t next_chunk;
    atomic_uint_fast64_t settled;
    bfs_job *job;  /* cancel flag and progress */
    double shown, from, to; /* progress: this pass moves it from..to */
} large_job;

/* Sets entry i to v if it is still unreached; nonzero if this call did. */
static int settle(uint8_t *tab, uint64_t i, int v)
{
    int shift = (int)(i & 3) * 2;
    uint8_t *p = &tab[i >> 2];
    if ((__atomic_load_n(p, __ATOMIC_RELAXED) >> shift & 3) != 3)
        return 0;
    /* Clearing bits turns 3 into v; a thread racing on the same entry in
     * the same pass writes the same v, so the AND cannot mix values. */
    uint8_t old = __atomic_fetch_and(p, (uint8_t)~((3 ^ v) << shift),
                                     __ATOMIC_RELAXED);
    return (old >> shift & 3) == 3;
}

static inline int large_value(const uint8_t *tab, uint64_t i)
{
    return __atomic_load_n(&tab[i >> 2], __ATOMIC_RELAXED) >>
               ((i & 3) * 2) & 3;
}

/* Values of the third coordinate of a block (after the flipslice class,
 * before the twist). */
static int large_third_n(int xl)
{
    return xl ? N_CSPLIT : N_SLICE2;
}

/* The block a move sends block (cls, third) to, and the symmetry that
 * takes the child into its class representative's frame. The class and
 * symmetry follow from the flipslice alone; the third coordinate, the
 * slice order or csplit, moves with it and is seen through that symmetry. */
static uint64_t large_child_block(const qs_tables *t, int xl, int cls,
                                  int third, int m, int *sym)
{
    uint32_t fs = t->fs_rep[cls];
    int ss = (int)(fs / N_FLIP) * 24 + (xl ? 0 : third);
    int ss2 = move_row(t, t->edge4_move, ss)[m];
    int flip2 = move_row(t, t->flip_move, fs % N_FLIP)[m];
    uint32_t packed = t->fs_packed[ss2 / 24 * N_FLIP + flip2];
    *sym = (int)(packed & 15);
    int third2 = xl ? t->csplit_conj[t->csplit_move[third][m]][*sym]
                    : t->slice_order_conj[ss2][*sym];
    return (uint64_t)(packed >> 4) * (uint64_t)large_third_n(xl) +
           (uint64_t)third2;
}

/* The twist, in the child block's frame, of twist tw after move m (the
 * child seen through symmetry s). */
static inline int large_child_twist(const qs_tables *t, int tw, int m, int s)
{
    return t->twist_conj[move_row(t, t->twist_move, tw)[m]][s];
}

/* Settles entry (block, twist) and the entries its class's own
 * symmetries make the same cube; returns how many it settled. */
static uint64_t settle_all(const qs_tables *t, int xl, uint8_t *tab,
                           uint64_t block, int twist, int v)
{
    uint64_t n = (uint64_t)settle(tab, block * N_TWIST + (uint64_t)twist, v);
    const int n3 = large_third_n(xl);
    int cls = (int)(block / (uint64_t)n3), third = (int)(block % (uint64_t)n3);
    unsigned self = t->fs_selfsym[cls] & ~1u;
    if (n && self) {
        int ss = xl ? 0 : (int)(t->fs_rep[cls] / N_FLIP) * 24 + third;
        for (int s = 1; s < N_SYM; s++)
            if (self >> s & 1) {
                int third2 = xl ? t->csplit_conj[third][s]
                                : t->slice_order_conj[ss][s];
                n += (uint64_t)settle(
                    tab,
                    ((uint64_t)cls * (uint64_t)n3 + (uint64_t)third2) *
                            N_TWIST +
                        t->twist_conj[twist][s],
                    v);
            }
    }
    return n;
}

static void large_progress(large_job *lj, uint64_t chunk, uint64_t chunks)
{
    bfs_job *job = lj->job;
    if (!job->progress || chunk % 256)
        return;
    double f = lj->from + (lj->to - lj->from) * (double)chunk / (double)chunks;
    pthread_mutex_lock(&job->progress_lock);
    if (f > lj->shown) {
        lj->shown = f;
        job->progress(job->progress_ctx, f);
    }
    pthread_mutex_unlock(&job->progress_lock);
}

/* A block whose entries at the pass's value are to be worked: those
 * entries' twists and the blocks its unit moves lead to. */
typedef struct {
    uint64_t b;
    int n;
    uint16_t tw[N_TWIST];
    uint64_t child[QS_MOVE_COUNT];
    int csym[QS_MOVE_COUNT];
} large_block;

/* Finds the twists of block b whose entries hold `want`, into tw; returns
 * their number. Every pass scans the whole table, so entries are compared
 * 32 at a time: each aligned 64-bit word of the block is XORed with `want`
 * in every 2-bit field and the zero fields picked out. The table's last
 * block (whose last word may reach past the table), a table not aligned
 * to 8 bytes and a big-endian machine read entry by entry. */
static int block_find(const uint8_t *tab, uint64_t b, uint64_t blocks,
                      int want, uint16_t *tw)
{
    const uint64_t first = b * N_TWIST, stop = first + N_TWIST;
    int n = 0;
    const int words_ok = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ &&
                         !((uintptr_t)tab & 7);
    if (b + 1 == blocks || !words_ok) {
        for (int w = 0; w < N_TWIST; w++)
            if (large_value(tab, first + (uint64_t)w) == want)
                tw[n++] = (uint16_t)w;
        return n;
    }
    const uint64_t fields = 0x5555555555555555ull;
    const uint64_t pattern = fields * (uint64_t)want;
    const uint64_t *words = (const uint64_t *)(const void *)tab;
    for (uint64_t k = first / 32; k * 32 < stop; k++) {
        uint64_t x = __atomic_load_n(&words[k], __ATOMIC_RELAXED) ^ pattern;
        uint64_t eq = ~(x | x >> 1) & fields;
        uint64_t lo = k * 32;
        if (lo < first)
            eq &= ~0ull << (2 * (first - lo));
        if (lo + 32 > stop)
            eq &= ~0ull >> (2 * (lo + 32 - stop));
        while (eq) {
            tw[n++] = (uint16_t)(lo + (uint64_t)(__builtin_ctzll(eq) / 2) -
                                 first);
            eq &= eq - 1;
        }
    }
    return n;
}

/* Loads the next block from *b on (before end) that has entries to work,
 * and fetches the child entries they will read: every line of each child
 * block when there are many, else just those entries. 0 if none is left. */
static int large_next(const large_job *lj, uint64_t *b, uint64_t end,
                      large_block *lb)
{
    const qs_tables *t = lj->t;
    const uint8_t *tab = lj->tab;
    const int want = lj->backward ? 3 : lj->level % 3;
    const int n3 = large_third_n(lj->xl);
    for (; *b < end; (*b)++) {
        int n = block_find(tab, *b, lj->blocks, want, lb->tw);
        if (n == 0)
            continue;
        lb->b = (*b)++;
        lb->n = n;
        int cls = (int)(lb->b / (uint64_t)n3),
            third = (int)(lb->b % (uint64_t)n3);
        for (int k = 0; k < lj->n_unit; k++) {
            lb->child[k] = large_child_block(t, lj->xl, cls, third,
                                             lj->unit[k], &lb->csym[k]);
            if (n >= LARGE_FETCH_ALL) {
                /* the block's 547 bytes, from p's line to the last */
                const uint8_t *p = &tab[lb->child[k] * N_TWIST / 4];
                for (int off = 0; off < (N_TWIST + 3) / 4 + 64; off += 64)
                    __builtin_prefetch(p + off);
            } else {
                for (int j = 0; j < n; j++) {
                    int w2 = large_child_twist(t, lb->tw[j], lj->unit[k],
                                               lb->csym[k]);
                    __builtin_prefetch(
                        &tab[(lb->child[k] * N_TWIST + (uint64_t)w2) / 4]);
                }
            }
        }
        return 1;
    }
    return 0;
}

/* One pass over the blocks. The children of the next block to work are
 * fetched while this one is worked, so that its reads, scattered over a
 * table far beyond the cache, are on their way before they are needed. */
static void *large_worker(void *arg)
{
    large_job *lj = arg;
    const qs_tables *t = lj->t;
    uint8_t *tab = lj->tab;
    const int here = lj->level % 3;
    const int prev = (lj->level + 2) % 3, next = (lj->level + 1) % 3;
    const uint64_t blocks = lj->blocks;
    const uint64_t chunks = (blocks + LARGE_CHUNK - 1) / LARGE_CHUNK;
    const int xl = lj->xl;
    large_block lb[2];
    uint64_t count = 0;

    for (;;) {
        uint64_t chunk = atomic_fetch_add(&lj->next_chunk, 1);
        if (chunk >= chunks || cancelled(lj->job))
            break;
        uint64_t b = chunk * LARGE_CHUNK, end = (chunk + 1) * LARGE_CHUNK;
        if (end > blocks)
            end = blocks;
        int cur = 0;
        int have = large_next(lj, &b, end, &lb[cur]);
        while (have) {
            const large_block *c = &lb[cur];
            have = large_next(lj, &b, end, &lb[cur ^ 1]);
            uint64_t base = c->b * N_TWIST;
            if (!lj->backward) {
                for (int k = 0; k < lj->n_unit; k++) {
                    int m = lj->unit[k], s = c->csym[k];
                    for (int j = 0; j < c->n; j++) {
                        int w2 = large_child_twist(t, c->tw[j], m, s);
                        if (large_value(tab, c->child[k] * N_TWIST +
                                                 (uint64_t)w2) == 3)
                            count += settle_all(t, xl, tab, c->child[k], w2,
                                                next);
                    }
                }
            } else {
                /* Unreached entries are at level or beyond; one neighbour
                 * at level - 1 puts them at level. Nobody else writes them
                 * in this pass, and level - 1 differs from level modulo 3. */
                for (int j = 0; j < c->n; j++) {
                    for (int k = 0; k < lj->n_unit; k++) {
                        int w2 = large_child_twist(t, c->tw[j], lj->unit[k],
                                                   c->csym[k]);
                        if (large_value(tab, c->child[k] * N_TWIST +
                                                 (uint64_t)w2) == prev) {
                            count += (uint64_t)settle(tab, base + c->tw[j],
                                                      here);
                            break;
                        }
                    }
                }
            }
            cur ^= 1;
        }
        large_progress(lj, chunk, chunks);
    }
    atomic_fetch_add(&lj->settled, count);
    return NULL;
}

/* The large table (xl = 0) or the extra-large one (xl = 1): the same
 * search, over blocks of a class and the slice order or csplit. */
static int generate_opt_large(const qs_tables *t, int xl, uint8_t *tab,
                              int threads, bfs_job *job)
{
    large_job lj;
    memset(&lj, 0, sizeof lj);
    lj.t = t;
    lj.tab = tab;
    lj.job = job;
    lj.xl = xl;
    lj.blocks = (uint64_t)N_FS_CLASS * (uint64_t)large_third_n(xl);
    const uint64_t entries = lj.blocks * N_TWIST;
    for (int m = 0; m < t->n_moves; m++)
        if (t->cost[m] == 1)
            lj.unit[lj.n_unit++] = (uint8_t)m;
    memset(tab, 0xff, entries / 4);

    qs_cube solved;
    qs_cube_solved(&solved);
    int ss = qs_coord_edge4(&solved, 8);
    uint32_t packed = t->fs_packed[ss / 24 * N_FLIP];
    int s = (int)(packed & 15);
    uint64_t goal = (uint64_t)(packed >> 4) * (uint64_t)large_third_n(xl) +
                    (xl ? t->csplit_conj[qs_coord_csplit(&solved)][s]
                        : t->slice_order_conj[ss][s]);
    uint64_t reached = settle_all(t, xl, tab, goal, 0, 0), frontier = reached;

    for (int d = 0; reached < entries; d++) {
        if (d >= 3 * 10) /* far beyond any distance of this coordinate */
            return QS_ERR_TABLES;
        uint64_t unreached = entries - reached;
        /* As bfs(): expand the frontier while it is small, then let the
         * unreached entries look for a neighbour. Forward passes also
         * re-expand entries three, six ... levels back (same two bits),
         * which is cheap while the levels grow tenfold. */
        lj.backward = frontier > unreached / 8;
        lj.level = lj.backward ? d + 1 : d;
        lj.from = (double)reached / (double)entries;
        lj.to = lj.backward ? 1.0 : (double)(reached + 13 * frontier) /
                                     (double)entries;
        if (lj.to > 1.0)
            lj.to = 1.0;
        atomic_store(&lj.next_chunk, 0);
        atomic_store(&lj.settled, 0);
        run_threads(threads, large_worker, &lj);
        if (cancelled(job))
            return QS_ERR_CANCELLED;
        frontier = atomic_load(&lj.settled);
        if (frontier == 0)
            return QS_ERR_TABLES; /* some entry unreachable: a bug */
        reached += frontier;
    }
    return QS_OK;
}

/* The H48 blob for h = 0 and a corner level: the exact distances of
 * bfs() (each level's coordinate follows from moves, so the search can walk
 * it), then two bits per entry relative to the base that makes the bound
 * largest on average (the fallback of value 0 included), chosen from a
 * histogram of (distance, fallback). Larger h need a search over the full
 * edge orientation (the orientation of some edges alone does not follow
 * from moves), which is not built yet: QS_ERR_ARGUMENT. */
static int generate_h48(const qs_tables *t, int h, int level, uint8_t *buf,
                        int threads, bfs_job *job)
{
    if (h != 0)
        return QS_ERR_ARGUMENT;
    qs_h48 *x;
    int err = qs_h48_create(t, h, level, &x);
    if (err)
        return err;
    space sp = {t, H48_ENTRIES(level, 0), 20, h48_children, h48_equivalents,
                x};
    qs_cube solved;
    qs_cube_solved(&solved);
    int cls;
    uint64_t start = h48_index(x, qs_h48_cocsep(x, &solved),
                               qs_h48_esep(x, &solved), &cls);
    /* a distance of max_level means unreached (bfs() saturates there) */
    uint8_t *dist;
    err = space_distances(&sp, &start, 1, threads, job, 0.9, sp.max_level,
                          &dist);
    if (err) {
        qs_h48_free(x);
        return err;
    }
    enum { MAXD = 21 };
    uint64_t hist[MAXD][MAXD];
    memset(hist, 0, sizeof hist);
    for (uint64_t i = 0; !err && i < sp.n; i++) {
        uint64_t c = i / H48_N_ESEP;
        int a = x->class_dist[c], b = x->esep_dist[i % H48_N_ESEP];
        /* esep in the representative's frame: its distance is the same
         * in every frame, the goal being symmetric */
        int fb = a > b ? a : b;
        if (fb > dist[i])
            err = QS_ERR_TABLES; /* a fallback too high */
        else
            hist[dist[i]][fb]++;
    }
    int base = 0;
    double best = -1;
    for (int b = 0; !err && b < MAXD - 3; b++) {
        double sum = 0;
        for (int d = 0; d < MAXD; d++)
            for (int f = 0; f < MAXD; f++)
                sum += (double)hist[d][f] *
                       (d <= b ? f : d < b + 3 ? d : b + 3);
        if (sum > best) {
            best = sum;
            base = b;
        }
    }
    if (!err) {
        uint32_t magic = H48_MAGIC;
        memset(buf, 0, H48_HEADER + (sp.n + 3) / 4);
        memcpy(buf, &magic, sizeof magic);
        buf[H48_HDR_H] = (uint8_t)h;
        buf[H48_HDR_BASE] = (uint8_t)base;
        buf[H48_HDR_LEVEL] = (uint8_t)level;
        for (uint64_t i = 0; i < sp.n; i++) {
            int v = dist[i] <= base ? 0 : dist[i] - base > 3 ? 3
                                                             : dist[i] - base;
            buf[H48_HEADER + (i >> 2)] |= (uint8_t)(v << ((i & 3) * 2));
        }
    }
    free(dist);
    qs_h48_free(x);
    return err;
}

/* The exact H48 blob for h > 0 (h48gen.c): the endgame once, then the
 * corner classes spread over threads, each filling its own block. */
typedef struct {
    bfs_job *job;
    const qs_h48 *x;
    const qs_h48_endgame *eg;
    int base;
    uint8_t *entries;
} h48x_job;

static void *h48x_worker(void *arg)
{
    h48x_job *hj = arg;
    bfs_job *job = hj->job;
    const qs_h48 *x = hj->x;
    const uint64_t block = ((uint64_t)H48_N_ESEP << x->h) / 4;
    void *scratch = malloc(qs_h48_class_scratch(x->h));
    if (!scratch) {
        atomic_store(&job->failed, 1);
        return NULL;
    }
    for (;;) {
        uint64_t cls = atomic_fetch_add(&job->next_chunk, 1);
        if (cls >= (uint64_t)x->n_class || cancelled(job))
            break;
        report(job, cls, (uint64_t)x->n_class);
        if (qs_h48_fill_class(x, hj->eg, (int)cls, hj->base,
                              hj->entries + cls * block, scratch, NULL)) {
            atomic_store(&job->failed, 1);
            break;
        }
    }
    free(scratch);
    return NULL;
}

/* ---- the edge table (BLOB_EDGES): esep * 2048 + orientation of the
 * edges at positions 0..10, moved through the flip coordinate */

static int edges_children(const space *sp, uint64_t idx, uint64_t *child,
                          uint8_t *cost, child_memo *memo)
{
    (void)memo;
    const qs_tables *t = sp->t;
    const qs_h48 *x = sp->h48;
    int esep = (int)(idx / 2048), flip = x->flip_of_eo[idx % 2048];
    const uint16_t *frow = move_row(t, t->flip_move, flip);
    for (int m = 0; m < t->n_moves; m++) {
        child[m] = edges_index(x->esep_move[esep][m], x->eo_of_flip[frow[m]]);
        cost[m] = 1;
    }
    return t->n_moves;
}

static int no_equivalents(const space *sp, uint64_t idx, uint64_t *out)
{
    (void)sp;
    (void)idx;
    (void)out;
    return 0;
}

static int generate_edges(const qs_tables *t, uint8_t *buf, int threads,
                          bfs_job *job)
{
    /* h = 1: the orientation lookups exist only with orientation bits */
    qs_h48 *x;
    int err = qs_h48_create(t, 1, 0, &x);
    if (err)
        return err;
    /* every entry is within 11 moves (measured); a nibble holds 15 */
    space sp = {t, N_EDGES_OPT, 15, edges_children, no_equivalents, x};
    qs_cube solved;
    qs_cube_solved(&solved);
    err = generate_nibbles(&sp, edges_index(qs_h48_esep(x, &solved), 0),
                           buf, threads, job);
    qs_h48_free(x);
    return err;
}

static int generate_h48x(const qs_tables *t, int h, int level, int base,
                         int endgame, uint8_t *buf, int threads,
                         bfs_job *job)
{
    if (h < 1)
        return QS_ERR_ARGUMENT;
    qs_h48 *x;
    int err = qs_h48_create(t, h, level, &x);
    if (err)
        return err;
    qs_h48_endgame *eg;
    err = qs_h48_endgame_create(x, endgame, &eg);
    if (err) {
        qs_h48_free(x);
        return err;
    }
    uint32_t magic = H48_MAGIC;
    memset(buf, 0, H48_HEADER);
    memcpy(buf, &magic, sizeof magic);
    buf[H48_HDR_H] = (uint8_t)h;
    buf[H48_HDR_BASE] = (uint8_t)base;
    buf[H48_HDR_LEVEL] = (uint8_t)level;
    h48x_job hj = {job, x, eg, base, buf + H48_HEADER};
    atomic_store(&job->next_chunk, 0);
    atomic_store(&job->failed, 0);
    job->progress_base = 0;
    job->progress_span = 1;
    run_threads(threads, h48x_worker, &hj);
    err = cancelled(job)                ? QS_ERR_CANCELLED
          : atomic_load(&job->failed) ? QS_ERR_NOMEM
                                        : QS_OK;
    qs_h48_endgame_free(eg);
    qs_h48_free(x);
    return err;
}

int qs_h48_generate(const qs_tables *t, int h, int level, int base,
                    int endgame, uint8_t *buf, int threads)
{
    if (!t || !buf || threads < 1)
        return QS_ERR_ARGUMENT;
    bfs_job job;
    memset(&job, 0, sizeof job);
    pthread_mutex_init(&job.progress_lock, NULL);
    int err = generate_h48x(t, h, level, base, endgame, buf, threads, &job);
    pthread_mutex_destroy(&job.progress_lock);
    return err;
}

int qs_blob_count(qs_metric m)
{
    if ((int)m < 0 || m >= QS_METRIC_COUNT)
        return QS_ERR_ARGUMENT;
    /* The optimal solver's corner table exists where it is searched; the
     * H48 table in HTM only, so far. */
    if (m == QS_METRIC_HTM)
        return BLOB_COUNT + 7;
    if (m == QS_METRIC_QTM)
        return BLOB_COUNT + 2;
    /* The robot set's move and corner-path tables are optional
     * (--table-size large). */
    return m == QS_METRIC_ROBOT ? BLOB_COUNT + 3 : BLOB_COUNT;
}

int qs_blob_describe(qs_metric m, int i, qs_blob_info *info)
{
    if ((int)m < 0 || m >= QS_METRIC_COUNT || !info)
        return QS_ERR_ARGUMENT;
    memset(info, 0, sizeof *info);
    int axial = m == QS_METRIC_AXHT || m == QS_METRIC_AXQT;
    if (m == QS_METRIC_ROBOT) {
        if (i == BLOB_ROBOT_MOVES) {
            info->name = "phase1-moves";
            /* 12 was the layout before the dead bits */
            info->kind = 29;
            info->entries = N_PHASE1;
            info->bytes = N_PHASE1 * sizeof(robot_p1x);
            info->optional = 1;
            return QS_OK;
        }
        if (i == BLOB_ROBOT_PATHS) {
            info->name = "corner-paths";
            /* 14 was the layout of one 64-bit entry per index, 15 the
             * dictionary without the room tables */
            info->kind = 16;
            info->entries = N_CORNERS_OPT * N_TILT;
            info->bytes = ROBOT_PATH_DICT * sizeof(uint64_t) +
                          N_CORNERS_OPT * N_TILT * sizeof(uint16_t) +
                          ROBOT_PATH_ROOMS * N_CORNERS_OPT;
            info->optional = 1 | QS_BLOB_ROBOT_MEDIUM;
            return QS_OK;
        }
        if (i == BLOB_ROBOT_CORNERS) {
            info->name = "corners";
            info->kind = 13;
            info->entries = N_CORNERS_OPT;
            info->bytes = N_CORNERS_OPT;
            return QS_OK;
        }
        if (i != BLOB_PHASE1 && i != BLOB_PHASE2)
            return QS_ERR_ARGUMENT;
        int p1 = i == BLOB_PHASE1;
        info->name = p1 ? "phase1" : "phase2";
        info->feeds = p1 ? 1 << BLOB_ROBOT_MOVES : 0;
        /* Kinds of their own: a robot blob is never taken for another. */
        info->kind = p1 ? 10 : 11;
        info->entries = p1 ? N_PHASE1 : N_PHASE2;
        info->bytes = p1 ? N_PHASE1 * sizeof(uint16_t)
                         : N_PHASE2 * sizeof(uint32_t);
        return QS_OK;
    }
    switch (i) {
    case BLOB_PHASE1:
        info->name = "phase1";
        /* The kind names the entry layout too: 1 was the layout before the
         * group flags, so files of that layout are rebuilt, never misread.
         * Change it whenever the meaning of an entry changes. */
        info->kind = 3;
        info->entries = N_PHASE1;
        info->bytes = N_PHASE1 * (uint64_t)phase1_entry_size(axial);
        /* The compact optimal size has the 2-bit phase-1 table instead. */
        info->omit = m == QS_METRIC_HTM ? 4 : 0;
        return QS_OK;
    case BLOB_PHASE2:
        info->name = "phase2";
        info->kind = 2;
        info->entries = N_PHASE2;
        info->bytes = N_PHASE2 / 2;
        info->omit = m == QS_METRIC_HTM ? 4 : 0;
        return QS_OK;
    case BLOB_CORNERS:
        if (m != QS_METRIC_HTM && m != QS_METRIC_QTM)
            return QS_ERR_ARGUMENT;
        info->name = "corners";
        info->kind = 20;
        info->entries = N_CORNERS_OPT;
        info->bytes = N_CORNERS_OPT / 2;
        return QS_OK;
    case BLOB_OPT_LARGE:
        if (m != QS_METRIC_HTM && m != QS_METRIC_QTM)
            return QS_ERR_ARGUMENT;
        info->name = "optimal";
        info->kind = 21;
        info->entries = N_OPT_LARGE;
        info->bytes = N_OPT_LARGE / 4; /* N_TWIST * 24 * classes: even */
        /* QTM has neither the extra-large table nor h48h7: its xl and
         * h48h7 sizes are the large one. */
        info->optional = m == QS_METRIC_QTM ? 1 | 8 | 16 : 1;
        return QS_OK;
    case BLOB_OPT_XL:
        if (m != QS_METRIC_HTM)
            return QS_ERR_ARGUMENT;
        info->name = "optimal-xl";
        info->kind = 26;
        info->entries = N_OPT_XL;
        info->bytes = N_OPT_XL / 4; /* N_TWIST * 70 * classes: 4 divides */
        info->optional = 8;
        return QS_OK;
    case BLOB_H48:
        if (m != QS_METRIC_HTM)
            return QS_ERR_ARGUMENT;
        /* One kind per level: a file of another level is rebuilt, never
         * misread. Kind 22 was level 0, the blob before level 1. */
        info->name = H48_BLOB_LEVEL == 0   ? "h48h0"
                     : H48_BLOB_LEVEL == 1 ? "h48c1"
                                           : "h48c2";
        info->kind = 22 + H48_BLOB_LEVEL;
        info->entries = H48_ENTRIES(H48_BLOB_LEVEL, H48_BLOB_H);
        info->bytes = H48_HEADER + (info->entries + 3) / 4;
        info->optional = 2;
        return QS_OK;
    case BLOB_H48X:
        if (m != QS_METRIC_HTM)
            return QS_ERR_ARGUMENT;
        info->name = "h48h7";
        info->kind = 27;
        info->entries = H48_ENTRIES(H48X_LEVEL, H48X_H);
        info->bytes = H48_HEADER + info->entries / 4;
        info->optional = 16;
        return QS_OK;
    case BLOB_EDGES:
        if (m != QS_METRIC_HTM)
            return QS_ERR_ARGUMENT;
        info->name = "edges";
        info->kind = 28;
        info->entries = N_EDGES_OPT;
        info->bytes = N_EDGES_OPT / 2;
        info->optional = 16; /* with h48h7, whose bound it completes */
        return QS_OK;
    case BLOB_P1M3:
        if (m != QS_METRIC_HTM)
            return QS_ERR_ARGUMENT;
        info->name = "phase1-mod3";
        info->kind = 25;
        info->entries = N_PHASE1;
        info->bytes = (N_PHASE1 + 3) / 4;
        info->optional = 4;
        return QS_OK;
    default:
        return QS_ERR_ARGUMENT;
    }
}

int qs_blob_generate(qs_metric m, int i, void *buf, int threads,
                     const void *const *made, qs_progress_fn progress,
                     void *progress_ctx, const atomic_int *cancel)
{
    qs_blob_info info;
    if (qs_blob_describe(m, i, &info) || !buf || threads < 1)
        return QS_ERR_ARGUMENT;
    qs_tables *t = malloc(sizeof *t);
    if (!t)
        return QS_ERR_NOMEM;
    int err = qs_tables_init_base(t, m);
    if (!err) {
        bfs_job job;
        memset(&job, 0, sizeof job);
        job.cancel = cancel;
        job.progress = progress;
        job.progress_ctx = progress_ctx;
        pthread_mutex_init(&job.progress_lock, NULL);
        if (m == QS_METRIC_ROBOT)
            err = i == BLOB_PHASE1   ? generate_rphase1(t, buf, threads, &job)
                  : i == BLOB_PHASE2 ? generate_rphase2(t, buf, threads, &job)
                  : i == BLOB_ROBOT_CORNERS
                      ? generate_rcorners(t, buf, threads, &job)
                  : i == BLOB_ROBOT_PATHS
                      ? generate_rpaths(t, buf, threads, &job)
                      : generate_rphase1x(t, buf, threads,
                                          made ? made[BLOB_PHASE1] : NULL,
                                          &job);
        else if (i == BLOB_PHASE1)
            err = generate_phase1(t, buf, threads, &job);
        else if (i == BLOB_PHASE2)
            err = generate_phase2(t, buf, threads, &job);
        else if (i == BLOB_CORNERS)
            err = generate_corners(t, buf, threads, &job);
        else if (i == BLOB_H48)
            err = generate_h48(t, H48_BLOB_H, H48_BLOB_LEVEL, buf, threads,
                               &job);
        else if (i == BLOB_H48X)
            err = generate_h48x(t, H48X_H, H48X_LEVEL, H48X_BASE,
                                H48X_ENDGAME, buf, threads, &job);
        else if (i == BLOB_P1M3)
            err = generate_p1m3(t, buf, threads, &job);
        else if (i == BLOB_EDGES)
            err = generate_edges(t, buf, threads, &job);
        else
            err = generate_opt_large(t, i == BLOB_OPT_XL, buf, threads, &job);
        pthread_mutex_destroy(&job.progress_lock);
        if (!err && progress)
            progress(progress_ctx, 1.0);
    }
    qs_tables_free_base(t);
    free(t);
    return err;
}
