/*
 * qs_engine.h - the search engine every search of the project runs on: the
 * two-phase searches (qs_solve, robot_solve) and the optimal ones
 * (qs_solve_optimal, robot_solve_optimal) are its clients and hold only
 * what is specific to them (their nodes, bounds and move rules).
 *
 * The engine owns the mechanisms they share, written once here:
 * - the clock and the stop state: a caller's cancel flag, a deadline, a
 *   stop raised by any thread, and why the search ended (qs_halt);
 * - the split of one search over threads (qs_engine_run) and over jobs,
 *   listed up front or numbered and decoded by the client (qs_jobs);
 * - the pool of the best candidates found so far, ranked by a key and
 *   free of duplicates (qs_pool);
 * - the coordinates of a cube in the two-phase frame, their move tables,
 *   symmetry reduction, and the layout of every pruning table with the
 *   accessors that read an entry (struct qs_tables below).
 *
 * This is a public header of libqs_solver for the project's own searches
 * (the robot library includes it); applications use quadsolve.h. The
 * names it adds to the link are all prefixed qs_; the constants (N_*) and
 * the inline accessors are compile-time only.
 */
#ifndef QS_ENGINE_H
#define QS_ENGINE_H

#include "quadsolve.h"

#include <pthread.h>
#include <stddef.h>
#include <time.h>

/* ------------------------------------------------------ clock and stop */

/* Monotonic time in nanoseconds: time limits, deadlines and progress. */
static inline uint64_t qs_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Milliseconds since start_ns. */
static inline double qs_ms_since(uint64_t start_ns)
{
    return (double)(qs_now_ns() - start_ns) / 1e6;
}

/* The stop state a search's threads share. `stop` ends every thread,
 * whatever the reason (enough found, a limit reached, the caller's cancel
 * flag, the deadline); `cancelled` and `timed_out` record the caller's
 * flag and the deadline as reasons. Threads poll it every few hundred
 * nodes (qs_halt_poll). */
typedef struct {
    atomic_int stop;
    atomic_int cancelled;
    atomic_int timed_out;
    const atomic_int *cancel; /* the caller's flag, may be NULL */
    uint64_t deadline_ns;     /* 0: none */
    uint64_t node_limit;      /* 0: none (qs_halt_limit_nodes) */
    atomic_uint_least64_t nodes; /* counted by qs_halt_poll_nodes */
} qs_halt;

/* A stop state with the caller's cancel flag (may be NULL) and a deadline
 * on the qs_now_ns clock (0: none). */
void qs_halt_init(qs_halt *h, const atomic_int *cancel, uint64_t deadline_ns);

static inline int qs_halt_stopped(const qs_halt *h)
{
    return atomic_load_explicit(&h->stop, memory_order_relaxed);
}

static inline void qs_halt_stop(qs_halt *h)
{
    atomic_store(&h->stop, 1);
}

static inline int qs_halt_was_cancelled(const qs_halt *h)
{
    return atomic_load(&h->cancelled);
}

/* Nonzero when the threads must stop: already stopped, the caller's flag
 * is up, or (when deadline_applies) the deadline has passed; a flag or a
 * deadline stops every thread and is recorded as the reason. A search
 * whose time limit must not leave a cube unsolved passes deadline_applies
 * 0 until it has its first solution. */
int qs_halt_poll(qs_halt *h, int deadline_applies);

/* A limit of nodes (0: none) that acts like the deadline: once every
 * thread's nodes together reach it and deadline_applies, the search stops
 * as if out of time. With one thread the same cube then gets the same
 * search whatever the machine's speed, which a deadline cannot give. */
void qs_halt_limit_nodes(qs_halt *h, uint64_t node_limit);

/* qs_halt_poll for a thread that has visited `nodes` nodes since its last
 * poll: they are added to the count qs_halt_limit_nodes limits. */
int qs_halt_poll_nodes(qs_halt *h, int deadline_applies, unsigned nodes);

/* What a search that has stopped returns: QS_OK when it found something,
 * else QS_ERR_CANCELLED, QS_ERR_TIMEOUT or QS_ERR_NOT_FOUND by the
 * recorded reason. */
int qs_halt_result(const qs_halt *h, int found);

/* ----------------------------------------------------- threads and jobs */

/* Runs fn(worker) for `threads` workers laid out `stride` bytes apart from
 * `workers`, the calling thread running the first, and returns when all
 * have returned. The others run on team's threads when team (may be NULL)
 * has enough of them and no other search is using it, else on threads
 * started for this search. With more than one thread, each runs on a copy
 * of its `stride` bytes in memory it allocates itself, copied back when
 * fn returns: a worker must not point into itself before the run, and no
 * thread may touch another's worker during it. Returns QS_OK, or
 * QS_ERR_THREAD when a thread could not be started: then h is stopped,
 * the workers already running return at their next poll and are joined,
 * and the search's result must not be used. */
int qs_engine_run(int threads, qs_team *team, void (*fn)(void *worker),
                  void *workers, size_t stride, qs_halt *h);

/* The jobs of one search or of one iteration: either items listed up
 * front (an optimal search's subtrees, qs_jobs_add) and handed out once
 * each by qs_jobs_take, or an unbounded numbered sequence
 * (qs_jobs_next_index) that the client decodes into its own job, e.g.
 * (length, direction). */
typedef struct {
    unsigned char *items;
    int *promise;    /* per item: moves to spare beyond its bound */
    size_t size;     /* bytes per item */
    int n, cap;
    atomic_int next;
} qs_jobs;

/* An empty list of items of `size` bytes (0 for a numbered sequence). */
void qs_jobs_init(qs_jobs *j, size_t size);
void qs_jobs_free(qs_jobs *j);
/* Forgets the items and restarts the numbering; keeps the memory. */
void qs_jobs_clear(qs_jobs *j);
/* Hands the same items out again, in the order they have (an iteration
 * whose list would come out the same). */
void qs_jobs_rewind(qs_jobs *j);
/* Appends a copy of item, a subtree with `promise` moves to spare beyond
 * its lower bound (see qs_jobs_order); QS_OK or QS_ERR_NOMEM. */
int qs_jobs_add(qs_jobs *j, const void *item, int promise);
/* Puts the items in the order threads should take them: most promise
 * first, listing order among equals. The subtrees with the most to spare
 * are the largest and the likeliest to hold a solution, so a length that
 * has one tends to end sooner, and the threads finish the small ones
 * together. QS_OK, or QS_ERR_NOMEM with the order unchanged. Call before
 * the first qs_jobs_take. */
int qs_jobs_order(qs_jobs *j);
/* The next item not yet taken by any thread, or NULL when none is left
 * (items added after that are handed out only after qs_jobs_clear). */
const void *qs_jobs_take(qs_jobs *j);

/* The next number of the sequence, 0, 1, 2, ... once each. */
static inline int qs_jobs_next_index(qs_jobs *j)
{
    return atomic_fetch_add(&j->next, 1);
}

/* What every search keeps for one solve beside its own state: when it
 * started, its jobs and its stop state. Each search's shared block holds
 * one, so that setting them up and taking them down is written once. */
typedef struct {
    uint64_t start_ns;
    qs_jobs jobs;
    qs_halt halt;
} qs_run;

/* Starts r's clock now and sets up its stop state (the caller's cancel
 * flag, may be NULL; a deadline budget_us microseconds from now, 0 for
 * none; a node limit, 0 for none) and an empty job list of items of
 * job_size bytes (0 for a numbered sequence). */
void qs_run_init(qs_run *r, const atomic_int *cancel, uint64_t budget_us,
                 uint64_t max_nodes, size_t job_size);

/* Frees what qs_run_init allocated; r may be set up again. */
void qs_run_free(qs_run *r);

/* One zeroed block for a search: its shared part (shared_size bytes) and
 * then n workers of worker_size bytes, the first at a multiple of 64
 * bytes from the start. (Threads do not run their workers here but on
 * copies of their own, see qs_engine_run.) Returns the shared part, with
 * *workers set to the first worker, or NULL when out of memory. One free()
 * of the result frees both. */
void *qs_run_alloc(size_t shared_size, size_t worker_size, size_t n,
                   void **workers);

/* ------------------------------------------------------- candidate pool */

/* A solution candidate as a search records it: cube-frame moves, the rank
 * key (lower is better) and what the client needs to keep beside it. */
typedef struct {
    int64_t key;
    int64_t value;     /* client's: e.g. a time estimate */
    int32_t tag;       /* client's: e.g. a count of moves */
    int16_t origin;    /* client's: where it was found, e.g. a direction */
    int16_t n;
    qs_move moves[QS_MAX_MOVES];
} qs_candidate;

/* The best `cap` candidates so far, best first (equal keys in the order
 * found), no two with the same moves. The lock is the search's: a client
 * takes it around qs_pool_insert and whatever must agree with the pool
 * (bounds derived from it, the first solution's time). */
typedef struct {
    pthread_mutex_t lock;
    qs_candidate *c;
    int n, cap;
} qs_pool;

/* QS_OK or QS_ERR_NOMEM (cap >= 1). */
int qs_pool_init(qs_pool *p, int cap);
void qs_pool_free(qs_pool *p);
static inline void qs_pool_lock(qs_pool *p) { pthread_mutex_lock(&p->lock); }
static inline void qs_pool_unlock(qs_pool *p)
{
    pthread_mutex_unlock(&p->lock);
}
/* With the lock held: keeps c if it ranks among the best cap. The same
 * moves already held with a key at least as good make c a repeat (not
 * kept); held with a worse key, the old entry gives way. Returns c's
 * position in the pool, or -1 when it was not kept. */
int qs_pool_insert(qs_pool *p, const qs_candidate *c);

/* ---------------------------------------------------------- coordinates */

/* The 48 symmetries, index 16*urf3 + 8*f2 + 2*u4 + lr2; the first 16 keep
 * the U-D axis. */
void qs_sym_cubes(qs_cube out[48]);

#define N_TWIST 2187       /* 3^7 corner orientations */
#define N_FLIP 2048        /* 2^11 edge orientations */
#define N_COMB 495         /* C(12,4) positions of four edges */
#define N_EDGE4 11880      /* 12!/8! positions and order of four edges */
#define N_FLIPSLICE (N_COMB * N_FLIP)
#define N_PERM8 40320      /* 8! */
#define N_SLICE2 24        /* 4! order of the slice edges in the slice */
#define SLICE_SOLVED 494   /* comb of positions 8..11 */
#define N_SYM 16           /* symmetries that keep the U-D axis */
#define N_CSPLIT 70        /* C(8,4): the places of the four U-layer corners */

int qs_coord_twist(const qs_cube *c);
int qs_coord_flip(const qs_cube *c);
/* Positions and order of the edges first..first+3: slice edges (8), U edges
 * (0) or D edges (4). comb = value / 24, order = value % 24. */
int qs_coord_edge4(const qs_cube *c, int first);
int qs_coord_corners(const qs_cube *c);
/* Permutation of the first eight edges, valid in the phase-2 group. */
int qs_coord_udedges(const qs_cube *c);
/* Which four corner places hold the U layer's corners (0..69; 0 when they
 * are home): moves and symmetries act on it without the rest of the
 * corner permutation. */
int qs_coord_csplit(const qs_cube *c);

void qs_coord_set_twist(qs_cube *c, int twist);
void qs_coord_set_flip(qs_cube *c, int flip);
/* Places edges first..first+3 as value says and the other edges in
 * ascending order in the remaining positions. */
void qs_coord_set_edge4(qs_cube *c, int first, int value);
void qs_coord_set_corners(qs_cube *c, int corners);
void qs_coord_set_udedges(qs_cube *c, int udedges);
/* Places the U layer's corners at the places csplit names, each layer's in
 * ascending order; orientations are left alone. */
void qs_coord_set_csplit(qs_cube *c, int csplit);

/* Positions (4 bytes, in member order) of an edge4 value. */
void qs_coord_edge4_positions(int value, uint8_t pos[4]);
/* Lehmer rank / unrank of a permutation of 0..n-1. */
int qs_perm_rank(const uint8_t *p, int n);
void qs_perm_unrank(int rank, uint8_t *p, int n);

/* ----------------------------------------------------------------- tables */

#define N_FS_CLASS 64430   /* flipslice classes under the 16 symmetries */
#define N_CORNER_CLASS 2768
#define N_PHASE1 ((uint64_t)N_FS_CLASS * N_TWIST)
#define N_PHASE2 ((uint64_t)N_CORNER_CLASS * N_PERM8)
#define N_TILT 3           /* tilt classes of the robot metric */
#define N_CANON 7          /* canonical-sequence states: none + 6 faces */
#define MAX_P2_MOVES 21
#define PHASE2_MAX_DIST 15 /* nibble entries saturate here */

/* Phase-1 pruning entries: bits 0..3 the exact distance d to the phase-2
 * group in the metric's units, then one bit per move, then (in the metrics
 * where every move costs 1) one flag per group of moves. 32-bit entries
 * for the 18 face moves, 64-bit for the 45 axial moves.
 *
 * Write delta(m) = d(child) - d + cost(m) >= 0: a move is usable at a node
 * with `slack` = moves to go - d exactly when delta(m) <= slack.
 *
 * Where moves cost 2 (quarter-turn metrics), bit m says delta(m) = 0 and
 * nothing more is stored: slack-1 children are looked up.
 *
 * Where every move costs 1, the moves of one group (a face; an axis in the
 * axial metric) differ from each other by one move of the group, so their
 * deltas lie within {0,1} (flag 0) or {1,2} (flag 1), and bit m says
 * whether delta(m) is the lower value. That gives both the moves usable at
 * slack 0 and at slack 1 without looking at any child (after Rokicki and
 * Frantar's encodings). */
#define P1_DIST_MASK 15u
#define P1_MASK_SHIFT 4

enum { BLOB_PHASE1 = 0, BLOB_PHASE2 = 1, BLOB_COUNT = 2 };

/* The optimal solver's corner table (HTM and QTM only, blob index
 * BLOB_CORNERS): one nibble per corner-permutation class and twist
 * (conjugated into the class's frame), the exact distance to solved
 * corners in the metric's units. Small (3 MB) and cheap to build, so it
 * rides along with the two-phase blobs of those metrics. */
enum { BLOB_CORNERS = 2 };
#define N_CORNERS_OPT ((uint64_t)N_CORNER_CLASS * N_TWIST)

/* The optimal solver's large table (HTM and QTM, optional blob index
 * BLOB_OPT_LARGE): for every flipslice class, every order of the four
 * slice edges and every twist (both seen in the class representative's
 * frame), the exact distance to "edges oriented, corners oriented, slice
 * edges home in order" modulo 3, two bits per entry (3 = not reached, only
 * while generating). A search that knows a node's exact distance learns
 * each child's from two bits, since a move changes it by at most one
 * (Kociemba's optimal solver uses the same coordinate and encoding).
 * Index: (class * 24 + order) * N_TWIST + twist, four entries per byte,
 * the first in the low bits. */
enum { BLOB_OPT_LARGE = 3 };
#define N_OPT_LARGE ((uint64_t)N_FS_CLASS * N_SLICE2 * N_TWIST)

/* The optimal solver's H48 table (HTM only, optional blob index
 * BLOB_H48, qs_blob_info.optional 2): see H48 in qs_internal.h. The blob
 * holds parameter h = H48_BLOB_H. */
enum { BLOB_H48 = 4, H48_BLOB_H = 0, H48_BLOB_LEVEL = 1 };

/* The optimal solver's exact H48 table with edge orientation (HTM only,
 * optional blob index BLOB_H48X, qs_blob_info.optional 16, 3.76 GB):
 * level H48X_LEVEL, h = H48X_H, base H48X_BASE, made by h48gen.c with an
 * endgame of H48X_ENDGAME moves. Where the set has it, it takes the H48
 * table's place in the search (tables.h48_blob). */
enum {
    BLOB_H48X = 7,
    H48X_LEVEL = 0,
    H48X_H = 7,
    H48X_BASE = 9,
    H48X_ENDGAME = 7
};

/* The optimal solver's compact phase-1 table (HTM only, optional blob
 * index BLOB_P1M3, qs_blob_info.optional 4): the phase-1 table's distance
 * of every entry modulo 3, two bits per entry at the phase-1 index, four
 * entries per byte (opt_large_value reads it). 35 MB against the 564 MB
 * of the phase-1 table, whose per-move bits it lacks: the compact size
 * (the H48 table beside it, no two-phase tables) reads every child. */
enum { BLOB_P1M3 = 5 };

/* The optimal solver's edge table (HTM only, optional blob index
 * BLOB_EDGES, qs_blob_info.optional 16, 35.5 MB): for every set of
 * places of the three slices' edges (the H48 esep, 34,650 values) and
 * orientation of the edges at positions 0..10 (bit q for position q),
 * the exact distance to "every edge in its own slice and oriented", a
 * nibble per entry at esep * 2048 + orientation, the first of each byte in
 * its low bits. It goes with the exact H48 table: where an entry of that
 * says only "at most base", its fallback knew nothing of the edges'
 * orientation, and read 0 for the superflip (see docs/optimal.md). */
enum { BLOB_EDGES = 8 };
#define N_EDGES_OPT ((uint64_t)34650 * 2048)

/* The entry of esep and orientation eo12 (bit q for position q; the
 * twelfth follows from the others). */
static inline uint64_t edges_index(int esep, unsigned eo12)
{
    return (uint64_t)esep * 2048 + (eo12 & 0x7ff);
}

static inline int edges_value(const uint8_t *tab, uint64_t i)
{
    return tab[i >> 1] >> ((i & 1) * 4) & 15;
}

/* The optimal solver's extra-large table (HTM only, optional blob index
 * BLOB_OPT_XL, qs_blob_info.optional 8): BLOB_OPT_LARGE with the places of
 * the U-layer corners (csplit, 70 values) in the slice order's stead, so
 * the goal is "edges and corners oriented, slice edges in their slice,
 * U-layer corners in the U layer" (the coset space of Rokicki's nxopt31).
 * Its goal is closed under U and D turns like the large table's. Index:
 * (class * 70 + csplit) * N_TWIST + twist, both seen in the class
 * representative's frame; 2 bits per entry, the distance modulo 3. */
enum { BLOB_OPT_XL = 6 };
#define N_OPT_XL ((uint64_t)N_FS_CLASS * N_CSPLIT * N_TWIST)

static inline int opt_large_value(const uint8_t *tab, uint64_t i)
{
    return tab[i >> 2] >> ((i & 3) * 2) & 3;
}

/* Robot-metric blobs, in robot moves (turns and tilts; the gripper
 * regrips are left to the search):
 * rphase1: one uint16_t per phase-1 entry (flipslice class, twist); nibble
 *   k is the distance to the phase-2 group from tilt class k.
 * rphase2: one uint32_t per phase-2 entry (corner class, U/D edges);
 *   nibble k (bits 4k..4k+3, saturated at 15) is the distance to solved
 *   from class k, ending in any class; bit RP2_EXCESS + 3e + k says that
 *   ending in class e takes one move more (one tilt at the end always
 *   reaches any class, so it is never more than one). */
#define RP2_EXCESS 12

/* The robot set's optional large blob (BLOB_ROBOT_MOVES), the default for
 * the robot search: one 16-byte entry per phase-1 entry (flipslice class,
 * twist) with the three distances of rphase1 and, for each tilt class kk
 * (of the representative's frame), what every turn of that class does to
 * the distance, so a node learns which children can finish in time without
 * reading theirs. A turn costs one robot move and keeps the class, so
 * delta = d_kk(child) + 1 - d_kk lies in {0,1,2}, and the 15 turns of one
 * axis lie within {0,1} or {1,2} (they reach each other by a turn of that
 * axis): moves[kk] holds, for the two axes other than kk in ascending
 * order, 15 bits each (bit i: move i of the axis, by move number, has the
 * lower of the two values) and then the two axes' flags (bit 30, 31: the
 * values are {1,2}). The tilt children need nothing more: a tilt keeps the
 * position, and dist has every class's distance.
 *
 * dead, bit 4 * kk + 2 * slot + delta - 1 (slot: the axis's place above,
 * delta 1 or 2): every turn of that axis in class kk whose delta is that
 * value leads to a child that is a dead end when it has no move to spare
 * (its distance is its phase-1 moves left). Such a child may only make
 * turns that bring it closer, and a canonical sequence cannot turn the
 * axis it was just turned on again: it is a dead end when none of its
 * other axis's turns brings it closer and no tilt does (robot_p1x_dead).
 * Of the children with no move to spare that a search makes by a turn
 * that does not bring them closer, three in four are such dead ends (a
 * child that a turn brought closer never is: a second turn of the same
 * axis would then gain two moves by one), and the bits name four in five
 * of those, so the search drops them without reading their entries. */
enum { BLOB_ROBOT_MOVES = 2 };

/* The robot set's corner table (BLOB_ROBOT_CORNERS): one byte per
 * (corner class, twist in the class's frame), indexed as the optimal
 * solver's corners, for the distance in robot moves (turns and tilts) to
 * solved corners from each tilt class k, ending in any class. A tilt
 * reaches any class, so the three differ by at most one: the low nibble
 * is the least of them, bit 4 + k says class k's is one more. The
 * corners alone bound the whole cube's distance, so the search can use it
 * at any node, in phase 1 too, where the phase-1 table says nothing of how
 * long phase 2 will be. */
enum { BLOB_ROBOT_CORNERS = 3 };

/* The robot set's corner-path table (BLOB_ROBOT_PATHS, optional: the
 * large and medium sizes): what the corners say of the rest of a path whose
 * phase 1 has exactly j robot moves left. Such a path first makes at most
 * j turns and tilts (a full regrip moves nothing) and reaches corners that
 * are oriented, then solves them with phase-2 moves alone, which takes
 * many more moves than the corners' own distance (a mean of 9.5 robot
 * moves from a random phase-2 corner permutation). A 64-bit entry per
 * (corner class, twist in the class's frame, tilt class kk of that frame),
 * index robot_corner_index * 3 + kk: nibble j (0..14) is the least, over
 * those first j moves, of the phase-2 robot moves the corners then need
 * (15: 15 or more, or no way to orient them in j moves); nibble 15 is the
 * corners' distance from class kk, as rcorners says. The phase-1 search
 * drops a child whose bound exceeds the moves the best solution leaves:
 * at a fixed length limit it visits about 40% fewer nodes.
 *
 * Of the 18 M entries only about 14,000 differ, so the blob holds each
 * distinct entry once, in a dictionary of ROBOT_PATH_DICT 64-bit entries
 * (those beyond the distinct ones are 0), followed by one 16-bit code per
 * (corner class, twist, class): 36 MB rather than 145 MB, so that far
 * more of the search's reads of it hit the cache, and a code can never
 * point outside the dictionary.
 *
 * Then ROBOT_PATH_ROOMS room tables of N_CORNERS_OPT bytes, for the
 * search in robot moves. Its question at a child with j phase-1 moves
 * left is only whether the bound exceeds j plus the room, the robot moves
 * phase 2 may take, which is the same for every node of a job: whether
 * nibble j exceeds the room. The nibbles never grow with j (a path with
 * more moves left may also make fewer), so for each room r an entry's
 * answer is one number, the least j whose nibble is at most r (15 if
 * none): the child is refused when it has fewer moves left. A tilt reaches
 * any class, so that number differs by at most one between the three
 * classes of a (corner class, twist), and one byte holds all three, as
 * rcorners does (robot_corner_value). Table r is 6 MB where the codes of
 * a job take 36 MB: its reads hit the cache far more often. */
enum {
    BLOB_ROBOT_PATHS = 4,
    ROBOT_PATH_NIBBLES = 15,
    ROBOT_PATH_DICT = 1 << 16,
    ROBOT_PATH_ROOMS = 15 /* rooms 0 to 14; with 15 or more none refuses */
};

typedef struct {
    uint16_t dist;      /* nibble k: distance from class k, as rphase1 */
    uint16_t dead;      /* bits 0-11: dead ends (BLOB_ROBOT_MOVES) */
    uint32_t moves[N_TILT];
} robot_p1x;

/* Memory of 2 MiB pages for tables read at random (a 4 KiB page per read
 * would miss the TLB on most reads); untouched pages cost nothing. */
typedef struct {
    void *base;
    size_t used, size;
} qs_arena;

/* Reserves room for `capacity` bytes in a zeroed arena: QS_OK or
 * QS_ERR_NOMEM. */
int qs_arena_reserve(qs_arena *a, size_t capacity);
/* bytes (rounded up to 64) from a, NULL when it is full or not reserved. */
void *qs_arena_carve(qs_arena *a, size_t bytes);
void qs_arena_free(qs_arena *a);

struct qs_tables {
    qs_metric metric;
    qs_arena arena;            /* backs every table below but the blobs */
    int axial;                 /* phase-1 moves are all 45, else 0..17 */
    int n_moves;               /* 18 or 45 */
    uint8_t cost[QS_MOVE_COUNT];
    uint64_t all_moves;        /* bit m for each searchable move */
    int grouped;               /* entries carry group flags (unit costs) */
    int parity_step;           /* 2 in QTM, where the length of every
                                  solution has the cube's corner parity */
    uint8_t corner_parity[N_PERM8 / 8]; /* bit x: corners x is odd */
    int n_groups;              /* 6 faces or 3 axes */
    uint8_t group_of[QS_MOVE_COUNT];
    uint64_t g1_moves;         /* moves that keep the phase-2 group */
    int n_p2;                  /* phase-2 moves, in p2_move order */
    uint8_t p2_move[MAX_P2_MOVES];
    int8_t p2_index[QS_MOVE_COUNT]; /* inverse of p2_move, -1 if none */
    /* canonical sequences: allowed[state] moves may follow; a move m leads
     * to state canon_next[m]; state 0 is the start. */
    uint64_t canon_allowed[N_CANON];
    uint8_t canon_next[QS_MOVE_COUNT];

    /* symmetries */
    uint8_t sym_inv[48];
    uint8_t move_conj[QS_MOVE_COUNT][48]; /* S m S^-1 */

    /* move tables, [coordinate][move] */
    /* rows of n_moves entries: read with move_row() */
    uint16_t *twist_move;
    uint16_t *flip_move;
    /* any four edges' places and order (edge4): the slice, U and D edges
     * alike, since a move acts on places, not on which edges fill them */
    uint16_t *edge4_move;
    uint16_t *corners_move;
    uint16_t (*udedges_move)[MAX_P2_MOVES];  /* phase-2 moves only */
    uint8_t slice2_move[N_SLICE2][QS_MOVE_COUNT];
    /* The moves after which flip, twist ([N_FLIP], [N_TWIST]) or the slice
     * edges' places ([N_COMB], by edge4 value / 24) have their phase-2
     * value (0, 0, SLICE_SOLVED): the AND of the three is the moves that
     * reach the phase-2 group, known without a pruning table. */
    uint64_t *g1_by_flip, *g1_by_twist, *g1_by_comb;
    uint8_t csplit_move[N_CSPLIT][QS_MOVE_COUNT];
    /* Ranks from cubie places, for coordinates made from cubies (the
     * optimal search's inverse): comb_of[mask] the rank of a 12-bit mask
     * of four edge places, as qs_coord_edge4 ranks them (divided by 24);
     * csplit_of[mask] qs_coord_csplit of the corner places in an 8-bit
     * mask; rank4[key] qs_perm_rank of four slice edges' order, two bits
     * each in place order; gather[mask] a byte shuffle that brings the
     * bytes at the four places of a 12-bit mask to the front, in place
     * order. */
    uint16_t comb_of[4096];
    uint8_t csplit_of[256];
    uint8_t rank4[256];
    _Alignas(16) uint8_t gather[4096][16];
    uint8_t (*edge4_pos)[4];   /* [N_EDGE4] positions of the four edges */
    /* [N_EDGE4][24]: udedges_of(u, d) for u in the U and D layers, by the
     * order of the D edges (d % 24; their places are the other four) */
    uint16_t (*udedges_pair)[24];

    /* symmetry reduction */
    uint16_t *fs_class;        /* [N_FLIPSLICE] */
    uint8_t *fs_sym;           /* [N_FLIPSLICE] S x S^-1 is the class rep */
    uint32_t *fs_packed;       /* [N_FLIPSLICE] class << 4 | sym, one read */
    uint32_t *fs_rep;          /* [N_FS_CLASS] */
    uint16_t *fs_selfsym;      /* [N_FS_CLASS] bit s: S rep S^-1 = rep */
    uint16_t (*twist_conj)[N_SYM];
    uint16_t *corner_class;    /* [N_PERM8] */
    uint8_t *corner_sym;
    uint16_t *corner_rep;      /* [N_CORNER_CLASS] */
    uint16_t *corner_selfsym;
    /* Corners carried as class << 4 | sym ("cs"; S x S^-1 is the class
     * representative R, so x = S^-1 R S): corner_cs_move[class * n_moves
     * + m] is the cs of R turned by m. x turned by m is R turned by
     * S m S^-1, seen through S: corner_cs_step. The table is 250 KB in
     * the axial metrics where the raw corners_move is 3.6 MB, so a search
     * that steps its corners this way keeps them in the cache its other
     * reads compete for. corner_of_cs[cs] is x itself, and
     * sym_mult[a][b] the index of the product S_a S_b. */
    uint16_t *corner_cs_move;  /* [N_CORNER_CLASS][n_moves] */
    uint16_t *corner_of_cs;    /* [N_CORNER_CLASS << 4] */
    uint8_t sym_mult[N_SYM][N_SYM];
    uint16_t (*udedges_conj)[N_SYM];
    /* [N_EDGE4] the order of the slice edges (0..23) after S x S^-1: the
     * only part of the conjugated slice coordinate any table index uses */
    uint8_t (*slice_order_conj)[N_SYM];
    uint8_t csplit_conj[N_CSPLIT][N_SYM]; /* csplit after S x S^-1 */
    /* remap[s][chunk][byte]: a representative's move mask, 8 bits at a
     * time, turned into the mask of the cube that symmetry s maps onto it */
    uint64_t (*remap)[6][256];
    /* flag_remap[s][flags]: the moves, for the cube that s maps onto the
     * representative, in groups whose flag is set */
    uint64_t (*flag_remap)[64];

    /* robot metric: the tilt class of a position is the axis (0 U-D, 1 R-L,
     * 2 F-B, in the frame of the coordinates) that the robot cannot turn
     * because it lies at the robot's U-D position. */
    uint8_t axis_conj[N_TILT][N_SYM]; /* the class after S x S^-1 */
    uint64_t tilt_moves[N_TILT];      /* moves a class can turn */
    /* rloc_move[s][kk][b]: the move that bit b of a robot_p1x word of
     * tilt class kk names (see robot_p1x_local), as a move of the cube
     * that symmetry s maps onto the representative; 1.5 KB, so a node
     * maps only the turns it makes instead of remapping whole masks. */
    uint8_t (*rloc_move)[N_TILT][32];
    /* rmove_local[k][m]: the local bit of turn m in class k of the
     * position's own frame (rloc_move[0] inverted; 255 for the class's
     * own axis) */
    uint8_t rmove_local[N_TILT][QS_MOVE_COUNT];

    /* pruning */
    const void *phase1;        /* blob: uint32_t or uint64_t entries */
    const uint8_t *phase2;     /* blob: nibbles [corner class][udedges] */
    uint8_t *cornslice;        /* [N_PERM8 * 24] exact phase-2 distance */
    uint8_t *edgeslice;        /* [N_PERM8 * 24] */
    const uint8_t *opt_corners; /* blob: nibbles [corner class][twist] */
    const uint8_t *opt_large;  /* optional blob, NULL when not loaded: 2 bits
                                  per entry, see BLOB_OPT_LARGE */
    const uint8_t *h48_blob;   /* optional blob, NULL when not loaded */
    struct qs_h48 *h48;        /* its coordinate tables, built with it */
    const uint8_t *opt_p1m3;   /* optional blob, NULL when not loaded: 2 bits
                                  per entry, see BLOB_P1M3 */
    const uint8_t *opt_xl;     /* optional blob, NULL when not loaded: 2 bits
                                  per entry, see BLOB_OPT_XL */
    const uint8_t *opt_edges;  /* optional blob, NULL when not loaded: a
                                  nibble per entry, see BLOB_EDGES */
    const uint16_t *rphase1;   /* robot blobs, see below */
    const uint32_t *rphase2;
    const robot_p1x *rphase1x; /* optional blob, NULL when not loaded */
    const uint8_t *rcorners;   /* see BLOB_ROBOT_CORNERS */
    /* optional blob, NULL when not loaded: see BLOB_ROBOT_PATHS; read
     * through robot_path_entry */
    const uint64_t *rpath_dict; /* [ROBOT_PATH_DICT] */
    const uint16_t *rpath_code; /* [N_CORNERS_OPT * N_TILT] */
    const uint8_t *rpath_rooms; /* [ROBOT_PATH_ROOMS][N_CORNERS_OPT] */
};

/* The row of a move table for coordinate value x, one entry per move. Rows
 * are as short as the metric's move set, so more of them stay in cache. */
#define move_row(t, table, x) ((table) + (size_t)(x) * (size_t)(t)->n_moves)

/* Fetches a move-table row ahead of its reads: every cache line it
 * touches. A row of 36 bytes spans one or two lines, one of 90 bytes two
 * or three (three for 3 rows in 8), so fetching its two ends alone left
 * the middle line of those to be read from memory when needed. */
static inline void move_row_prefetch(const qs_tables *t, const uint16_t *table,
                                     int x)
{
    const uint16_t *row = move_row(t, table, x);
    __builtin_prefetch(row);
    if (t->n_moves > 32)
        __builtin_prefetch(row + 32);
    __builtin_prefetch(row + t->n_moves - 1);
}

static inline int phase1_entry_size(int axial) { return axial ? 8 : 4; }

static inline uint64_t phase1_entry(const qs_tables *t, uint64_t index)
{
    return t->axial ? ((const uint64_t *)t->phase1)[index]
                    : ((const uint32_t *)t->phase1)[index];
}

static inline uint64_t remap_mask(const qs_tables *t, uint64_t mask, int s)
{
    uint64_t out = 0;
    for (int k = 0; mask; k++, mask >>= 8)
        out |= t->remap[s][k][mask & 255];
    return out;
}

/* An entry's move bits (low) and its groups' flags (high), both as masks
 * of the moves `all` in one frame, split by the change of distance: the
 * moves whose child is at distance d - 1 + delta, delta = 0, 1, 2. */
static inline void deltas_split(uint64_t low, uint64_t high, uint64_t all,
                                uint64_t by_delta[3])
{
    by_delta[0] = low & ~high;
    by_delta[1] = (low & high) | (~low & ~high & all);
    by_delta[2] = ~low & high;
}

/* For entries with group flags: the moves whose child is at distance
 * d - 1 + delta, for delta = 0, 1, 2, seen through symmetry sym. */
static inline void phase1_deltas(const qs_tables *t, uint64_t e, int sym,
                                 uint64_t by_delta[3])
{
    uint64_t low = remap_mask(t, (e >> P1_MASK_SHIFT) & t->all_moves, sym);
    uint64_t high = t->flag_remap[sym][e >> (P1_MASK_SHIFT + t->n_moves)];
    deltas_split(low, high, t->all_moves, by_delta);
}

/* The moves usable at a node whose entry is e, seen through symmetry sym,
 * with `slack` moves to spare (see the entry layout above). */
static inline uint64_t phase1_moves(const qs_tables *t, uint64_t e, int sym,
                                    int slack)
{
    if (slack > 1 || (slack == 1 && !t->grouped))
        return t->all_moves;
    if (!t->grouped)
        return remap_mask(t, (e >> P1_MASK_SHIFT) & t->all_moves, sym);
    uint64_t by_delta[3];
    phase1_deltas(t, e, sym, by_delta);
    return slack == 0 ? by_delta[0] : by_delta[0] | by_delta[1];
}

/* The three robot phase-1 distances of a position, by the tilt class in
 * its own frame, read through symmetry sym: class k of the position is
 * class axis_conj[k][sym] of the representative. */
static inline int robot_p1_dist(const qs_tables *t, uint16_t e, int sym,
                                int k)
{
    return e >> (4 * t->axis_conj[k][sym]) & 15;
}

/* The turns of a tilt class as the bits of a robot_p1x word: bits 0-14
 * the 15 turns of the lower-numbered axis other than the class's, in
 * move-number order, bits 15-29 those of the higher one (ROBOT_LOCAL_ALL:
 * all 30). rloc_move names each bit's move. */
#define ROBOT_LOCAL_ALL 0x3fffffffu

/* The local slot (0: bits 0-14, 1: bits 15-29) of axis a, one of the two
 * axes class kk turns. */
static inline int robot_axis_slot(int kk, int a)
{
    return a == (kk == 0 ? 1 : 0) ? 0 : 1;
}

/* The local bits (above) of the turns of axis a in class kk: 0 for the
 * class's own axis, which it cannot turn. */
static inline uint32_t robot_local_axis(int kk, int a)
{
    if (a == kk)
        return 0;
    return 0x7fffu << (15 * robot_axis_slot(kk, a));
}

/* For a large robot entry e in tilt class kk of the representative's
 * frame: the turns (local bits, see above) whose child lies at distance
 * d_kk - 1 + delta, for delta = 0, 1, 2 (see robot_p1x). A position in
 * class k seen through symmetry sym reads class kk = axis_conj[k][sym]
 * and names its turns by rloc_move[sym][kk]. */
static inline void robot_p1x_local(const robot_p1x *e, int kk,
                                   uint32_t by_delta[3])
{
    uint32_t w = e->moves[kk];
    uint32_t low = w & ROBOT_LOCAL_ALL;
    uint32_t high = ((0u - (w >> 30 & 1)) & 0x7fffu) |
                    ((0u - (w >> 31)) & (0x7fffu << 15));
    by_delta[0] = low & ~high;
    by_delta[1] = (low & high) | (~low & ~high & ROBOT_LOCAL_ALL);
    by_delta[2] = ~low & high;
}

/* Whether a position with large entry e, in class kk of e's frame, turned
 * last on the axis in local slot `slot` and with no move to spare, is a
 * dead end: no turn of its other axis brings it closer (delta 0), nor
 * does a tilt (a class with a smaller distance). The search would make
 * no child there; BLOB_ROBOT_MOVES's dead bits are made of this. */
static inline int robot_p1x_dead(const robot_p1x *e, int kk, int slot)
{
    uint32_t by_delta[3];
    robot_p1x_local(e, kk, by_delta);
    if (by_delta[0] & 0x7fffu << (15 * (1 - slot)))
        return 0;
    int d = e->dist >> (4 * kk) & 15;
    for (int k2 = 0; k2 < N_TILT; k2++)
        if (k2 != kk && (e->dist >> (4 * k2) & 15) < d)
            return 0;
    return 1;
}

/* The corners' class << 4 | sym (see corner_cs_move). */
static inline int corner_cs(const qs_tables *t, int corners)
{
    return t->corner_class[corners] << 4 | t->corner_sym[corners];
}

/* Corners cs (class << 4 | sym) turned by move m, as class << 4 | sym. */
static inline int corner_cs_step(const qs_tables *t, int cs, int m)
{
    int s = cs & 15;
    int e = t->corner_cs_move[(cs >> 4) * t->n_moves + t->move_conj[m][s]];
    return (e & ~15) | t->sym_mult[e & 15][s];
}

/* robot_corner_dist in two steps, so that a search can fetch the entry
 * ahead of reading it: the entry's index, and in *shift the position of
 * class k's nibble in it; for corners given as cs (corner_cs). */
static inline uint32_t robot_corner_index_cs(const qs_tables *t, int cs,
                                             int twist, int k, uint8_t *shift)
{
    int s = cs & 15;
    *shift = (uint8_t)(4 + t->axis_conj[k][s]);
    return (uint32_t)(cs >> 4) * N_TWIST + t->twist_conj[twist][s];
}

/* robot_corner_index_cs for a raw corner coordinate. */
static inline uint32_t robot_corner_index(const qs_tables *t, int corners,
                                          int twist, int k, uint8_t *shift)
{
    return robot_corner_index_cs(t, corner_cs(t, corners), twist, k, shift);
}

/* The distance an entry holds for the class whose bit is at shift. */
static inline int robot_corner_value(uint8_t e, int shift)
{
    return (e & 15) + (e >> shift & 1);
}

/* The robot moves from tilt class k (of the position's own frame) to
 * solved corners, for corners and twist coordinates (see rcorners). */
static inline int robot_corner_dist(const qs_tables *t, int corners,
                                    int twist, int k)
{
    uint8_t shift;
    uint32_t i = robot_corner_index(t, corners, twist, k, &shift);
    return robot_corner_value(t->rcorners[i], shift);
}

/* The index of a corner-path entry: that of the corner entry at `index`
 * (robot_corner_index) for the class whose bit is at `shift`. */
static inline uint32_t robot_path_index(uint32_t index, int shift)
{
    return index * N_TILT + (uint32_t)(shift - 4);
}

/* The corner-path entry at index i (robot_path_index); a search fetches
 * &t->rpath_code[i] ahead of it (the dictionary stays in the cache). */
static inline uint64_t robot_path_entry(const qs_tables *t, uint32_t i)
{
    return t->rpath_dict[t->rpath_code[i]];
}

/* The room table of the corner-path blob (see BLOB_ROBOT_PATHS) for a
 * job whose phase 2 may take `room` robot moves; NULL without the blob or
 * where the room has no table. Entry robot_corner_index for the class
 * whose bit is at shift: robot_corner_value of it is the fewest phase-1
 * moves left at which the corners let a path through. */
static inline const uint8_t *robot_path_rooms(const qs_tables *t, int room)
{
    if (!t->rpath_rooms || room < 0 || room >= ROBOT_PATH_ROOMS)
        return NULL;
    return t->rpath_rooms + (size_t)room * N_CORNERS_OPT;
}

/* The least robot moves left to a path at the corner-path entry e whose
 * phase 1 has exactly j robot moves left (see BLOB_ROBOT_PATHS). */
static inline int robot_path_bound(uint64_t e, int j)
{
    if (j < ROBOT_PATH_NIBBLES)
        return j + (int)(e >> (4 * j) & 15);
    int corners = (int)(e >> 60);
    return corners > j ? corners : j;
}

/* The largest robot_path_bound(e, j) of any entry e, for j = 0 to 14: a
 * property of the corners and the robot's moves, not of a table file
 * (the generator refuses a table that exceeds it; test_prune checks that
 * every value is reached). For j of 15 or more the bound is j, since the
 * corners never need more than 12 robot moves. A search whose child has
 * j phase-1 moves left and at least this many robot moves to spare needs
 * not read the child's entry: it cannot refuse the child. For j up to 6
 * some entries say "impossible" (15), so only the deeper values help. */
static const uint8_t robot_path_most[ROBOT_PATH_NIBBLES] = {
    15, 16, 17, 18, 19, 20, 21, 16, 15, 14, 13, 12, 12, 13, 14};

static inline int robot_path_may_refuse(int j, int spare)
{
    return (j < ROBOT_PATH_NIBBLES ? robot_path_most[j] : j) > spare;
}

/* Whether a position with these flip, twist and slice (edge4)
 * coordinates is in the phase-2 group. */
static inline int position_in_phase2_group(int flip, int twist, int slice)
{
    return flip == 0 && twist == 0 && slice / 24 == SLICE_SOLVED;
}

/* The moves that take a position with these flip, twist and slice
 * (edge4) coordinates into the phase-2 group. */
static inline uint64_t g1_entering_moves(const qs_tables *t, int flip,
                                         int twist, int slice)
{
    return t->g1_by_flip[flip] & t->g1_by_twist[twist] &
           t->g1_by_comb[slice / 24];
}

/* The phase-2 U/D-edge coordinate (udedges) of a cube in the phase-2
 * group whose U and D edges have edge4 values u and d: the two-phase
 * searches track those two along phase 1, where udedges is undefined. */
static inline int udedges_of(const qs_tables *t, int u, int d)
{
    return t->udedges_pair[u][d % 24];
}

static inline int phase2_prune(const qs_tables *t, int corners, int udedges)
{
    int s = t->corner_sym[corners];
    uint64_t i = (uint64_t)t->corner_class[corners] * N_PERM8 +
                 t->udedges_conj[udedges][s];
    return (t->phase2[i >> 1] >> ((i & 1) * 4)) & 15;
}

#endif
