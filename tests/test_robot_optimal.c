/*
 * test_robot_optimal.c - robot_solve_optimal (robot/optimal.c), the
 * fewest-robot-moves search: its optimum equals the exact robot distance
 * that a breadth-first search written here finds on the robot's physics
 * (robot_sim_step, which shares nothing with the search or the automaton)
 * for short scrambles, is never longer than robot_solve's, and its
 * solution passes robot_check; threads, re-entrancy, progress, the length
 * limit, cancel and bad arguments behave as documented, and so does
 * `quadsolve solve --optimal --metric robot`.
 *
 * The breadth-first search meets in the middle. A state is a robot_sim
 * (cube, orientation, gripper quarters). If robot steps take the solved
 * cube, held at home with grippers in across-state g, to cube X, the same
 * steps solve X^-1 from that position (they depend on the orientation and
 * grippers, never on the cube). So one search from the solved cube per
 * gripper state g, to radius BACK, gives the exact distance of every cube
 * within BACK: the depth where its inverse first appears. A cube is then
 * solved to radius FORWARD + BACK by searching FORWARD steps from it and
 * looking up what is left, as the robot sees the cube at that point
 * (robot_sim_view). The checker's rules look at a gripper's quarter turns
 * modulo 2 only (across or not), so states are told apart by the cube,
 * the orientation and the across mask.
 */
#include "testutil.h"

#include "robot.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/wait.h>

enum {
    BACK = 3,        /* radius of the searches from the solved cube */
    FORWARD = 2,     /* radius of the search from a scrambled cube, */
    FORWARD_FAR = 3, /* or for a few cubes, to compare up to 6 moves */
    STATES = 7,      /* gripper across-states */
    TABLE_SLOTS = 1 << 18 /* hash slots: room for the largest search */
};

static qtab_set *robot_set;
static robot_model model;
static robot_profile profile;

static const qs_tables *robot_tables(void)
{
    if (!robot_set)
        robot_set = test_open_tables(QS_METRIC_ROBOT);
    return qtab_set_tables(robot_set);
}

/* ------------------------------------------------- hashed state sets */

typedef struct {
    uint64_t a, b;
} key;

/* Open addressing; value 0xff is an empty slot. */
typedef struct {
    key *keys;
    uint8_t *value;
    size_t cap;
} table;

static void table_init(table *t, size_t cap)
{
    t->cap = cap;
    t->keys = malloc(sizeof *t->keys * cap);
    t->value = malloc(cap);
    assert_non_null(t->keys);
    assert_non_null(t->value);
    memset(t->value, 0xff, cap);
}

static void table_free(table *t)
{
    free(t->keys);
    free(t->value);
}

static size_t slot(const table *t, key k)
{
    uint64_t h = k.a * 0x9e3779b97f4a7c15ull ^
                 (k.b + 0x632be59bd9b4e019ull) * 0xc2b2ae3d27d4eb4full;
    size_t i = (size_t)(h ^ h >> 29) & (t->cap - 1);
    while (t->value[i] != 0xff &&
           (t->keys[i].a != k.a || t->keys[i].b != k.b))
        i = (i + 1) & (t->cap - 1);
    return i;
}

/* Stores v under k unless k is there; returns 1 when it was new. */
static int table_add(table *t, key k, uint8_t v)
{
    size_t i = slot(t, k);
    if (t->value[i] != 0xff)
        return 0;
    t->keys[i] = k;
    t->value[i] = v;
    return 1;
}

/* The value under k, or -1. */
static int table_get(const table *t, key k)
{
    size_t i = slot(t, k);
    return t->value[i] == 0xff ? -1 : t->value[i];
}

static key cube_key(const qs_cube *c)
{
    key k = {0, 0};
    for (int i = 0; i < 8; i++)
        k.a = (k.a * 8 + c->cp[i]) * 3 + c->co[i];
    for (int i = 0; i < 12; i++)
        k.b = (k.b * 12 + c->ep[i]) * 2 + c->eo[i];
    return k;
}

static key state_key(const robot_sim *s)
{
    key k = cube_key(&s->cube);
    k.a = ((k.a * 6 + (uint64_t)robot_sim_face_at(s, 0)) * 6 +
           (uint64_t)robot_sim_face_at(s, 2)) * 16 + robot_sim_across(s);
    return k;
}

/* Every step the robot could try: turns of any face with any regrips,
 * tilts with any regrips, full regrips of any grippers. robot_sim_step
 * says which are legal. */
static int all_steps(robot_step *steps)
{
    int n = 0;
    for (int m = 0; m < QS_MOVE_COUNT; m++)
        for (int r = 0; r < 16; r++)
            steps[n++] = (robot_step){ROBOT_STEP_TURN, (uint8_t)m,
                                      (uint8_t)r};
    for (int t = 0; t < 2; t++)
        for (int r = 0; r < 16; r++)
            steps[n++] = (robot_step){ROBOT_STEP_TILT, (uint8_t)t,
                                      (uint8_t)r};
    for (int r = 1; r < 16; r++)
        steps[n++] = (robot_step){ROBOT_STEP_REGRIP, 0, (uint8_t)r};
    return n;
}

static robot_step steps[QS_MOVE_COUNT * 16 + 2 * 16 + 15];
static int n_steps;

/* Breadth-first search from *start to `radius` steps; calls visit for
 * every state at its depth (once per state). */
static void bfs(const robot_sim *start, int radius,
                void (*visit)(void *ctx, const robot_sim *s, int depth),
                void *ctx)
{
    table seen;
    table_init(&seen, TABLE_SLOTS);
    robot_sim *layer = malloc(sizeof *layer);
    assert_non_null(layer);
    layer[0] = *start;
    size_t n = 1;
    table_add(&seen, state_key(start), 0);
    size_t total = 1;
    for (int depth = 0;; depth++) {
        for (size_t i = 0; i < n; i++)
            visit(ctx, &layer[i], depth);
        if (depth == radius)
            break;
        size_t cap = 64, m = 0;
        robot_sim *next = malloc(sizeof *next * cap);
        assert_non_null(next);
        for (size_t i = 0; i < n; i++)
            for (int j = 0; j < n_steps; j++) {
                robot_sim s = layer[i];
                if (robot_sim_step(&s, &steps[j], NULL, NULL, 0) != ROBOT_OK)
                    continue;
                if (!table_add(&seen, state_key(&s), (uint8_t)(depth + 1)))
                    continue;
                if (m == cap) {
                    cap *= 2;
                    next = realloc(next, sizeof *next * cap);
                    assert_non_null(next);
                }
                next[m++] = s;
            }
        free(layer);
        layer = next;
        n = m;
        total += m;
        assert_true(total * 2 < seen.cap);
    }
    free(layer);
    table_free(&seen);
}

/* back[g]: cube X -> fewest steps that take the solved cube, at home with
 * grippers in state g, to X (so X^-1 is solved in as many). */
static table back[STATES];

static void record_back(void *ctx, const robot_sim *s, int depth)
{
    table_add(ctx, cube_key(&s->cube), (uint8_t)depth);
}

/* The gripper quarters of across mask `across`. */
static void set_grippers(robot_sim *s, unsigned across)
{
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        s->quarters[g] = (uint8_t)(across >> g & 1);
}

static int setup(void **state)
{
    (void)state;
    robot_model_init(&model);
    if (robot_profile_builtin("default", &profile) != ROBOT_OK)
        return 1;
    n_steps = all_steps(steps);
    for (int g = 0; g < STATES; g++) {
        robot_sim s;
        robot_sim_init(&s, NULL);
        set_grippers(&s, robot_state_across(g));
        table_init(&back[g], TABLE_SLOTS);
        bfs(&s, BACK, record_back, &back[g]);
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int g = 0; g < STATES; g++)
        table_free(&back[g]);
    qtab_close(robot_set);
    return 0;
}

typedef struct {
    int best;
} meet;

/* A state FORWARD or fewer steps from the scramble: what is left is the
 * distance of the cube the robot now sees, from home with its grippers. */
static void meet_back(void *ctx, const robot_sim *s, int depth)
{
    meet *mt = ctx;
    char view[55];
    qs_cube seen, inverse;
    robot_sim_view(s, view);
    assert_int_equal(qs_cube_from_facelets(view, &seen, NULL, 0), QS_OK);
    qs_cube_inverse(&seen, &inverse);
    int g = robot_state_of(robot_sim_across(s));
    assert_true(g >= 0);
    int rest = table_get(&back[g], cube_key(&inverse));
    if (rest >= 0 && depth + rest < mt->best)
        mt->best = depth + rest;
}

/* The exact robot distance of c when at most forward + BACK, else -1. */
static int bfs_distance(const qs_cube *c, int forward)
{
    robot_sim s;
    robot_sim_init(&s, c);
    meet mt = {forward + BACK + 1};
    bfs(&s, forward, meet_back, &mt);
    return mt.best <= forward + BACK ? mt.best : -1;
}

/* -------------------------------------------------------------- helpers */

static uint64_t next_random(uint64_t *rng)
{
    *rng ^= *rng << 13;
    *rng ^= *rng >> 7;
    *rng ^= *rng << 17;
    return *rng;
}

static int solve(const qs_cube *c, const robot_optimal_options *o,
                 robot_solution *s, qs_stats *stats)
{
    return robot_solve_optimal(robot_tables(), &model, &profile, c, o, s,
                               stats);
}

/* The solution solves c, its plan passes the independent checker, and
 * the plan's count is what the search promised. */
static void assert_executes(const qs_cube *c, const robot_solution *s)
{
    qs_cube d = *c;
    char detail[256];
    qs_cube_apply_moves(&d, s->moves, s->n);
    assert_true(qs_cube_is_solved(&d));
    int rc = robot_check(&s->plan, c, &profile, detail, sizeof detail);
    if (rc != ROBOT_OK)
        fail_msg("plan rejected: %s: %s", robot_errcode(rc), detail);
    assert_int_equal(s->plan.robot_moves, s->plan.n);
}

/* robot_solve's robot moves for c at its default 10 ms. */
static int two_phase_moves(const qs_cube *c)
{
    robot_solve_options o;
    robot_solve_options_default(&o);
    o.time_ms = 10;
    robot_solution s;
    int n = 0;
    assert_int_equal(robot_solve(robot_tables(), &model, &profile, c, &o, &s,
                                 1, &n, NULL),
                     ROBOT_OK);
    return s.plan.robot_moves;
}

/* A cube `len` random cube-frame moves (faces and pairs) from solved. */
static qs_cube scrambled(uint64_t *rng, int len)
{
    qs_cube c;
    qs_cube_solved(&c);
    for (int i = 0; i < len; i++)
        qs_cube_apply_move(&c, (qs_move)(next_random(rng) % QS_MOVE_COUNT));
    return c;
}

/* A cube `len` random legal robot steps from solved, inverted: the steps
 * solve it, so its distance is at most len. */
static qs_cube walked(uint64_t *rng, int len)
{
    robot_sim s;
    robot_sim_init(&s, NULL);
    for (int i = 0; i < len;) {
        const robot_step *st = &steps[next_random(rng) % (uint64_t)n_steps];
        i += robot_sim_step(&s, st, NULL, NULL, 0) == ROBOT_OK;
    }
    qs_cube c;
    qs_cube_inverse(&s.cube, &c);
    return c;
}

/* --------------------------------------------------------------- tests */

/* The breadth-first search itself on cases worked out by hand
 * (docs/robot-model.md): R is one move, U three, R U three. */
static void test_bfs_known_distances(void **state)
{
    (void)state;
    static const struct {
        const char *scramble;
        int distance;
    } cases[] = {
        {"", 0}, {"R'", 1}, {"(R L2)", 1}, {"U'", 3}, {"U' R'", 3},
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        qs_move moves[8];
        int n = qs_moves_parse(cases[i].scramble, moves, 8, NULL, 0);
        assert_true(n >= 0);
        qs_cube c;
        qs_cube_solved(&c);
        qs_cube_apply_moves(&c, moves, n);
        assert_int_equal(bfs_distance(&c, FORWARD), cases[i].distance);
    }
}

/* Compares the optimum of c with the breadth-first distance (radius
 * forward + BACK); counts[d] gets one more for distance d, counts[0] for
 * one beyond the radius. */
static void check_against_bfs(const qs_cube *c, int forward, int counts[])
{
    robot_optimal_options o;
    robot_optimal_options_default(&o);
    robot_solution s;
    assert_int_equal(solve(c, &o, &s, NULL), ROBOT_OK);
    assert_executes(c, &s);
    int d = bfs_distance(c, forward);
    if (d >= 0) {
        assert_int_equal(s.plan.robot_moves, d);
        counts[d]++;
    } else {
        assert_true(s.plan.robot_moves > forward + BACK);
        counts[0]++;
    }
    assert_true(s.plan.robot_moves <= two_phase_moves(c));
}

/* Random cube-frame scrambles (faces and pairs) of 2 to 4 moves and
 * random robot walks of 3 to 7 steps, those at distance 3 or more (the
 * single moves have a test of their own): the optimum is the
 * breadth-first distance. */
static void test_equals_breadth_first(void **state)
{
    (void)state;
    uint64_t rng = 0x2545f4914f6cdd1dull;
    int counts[FORWARD_FAR + BACK + 1] = {0}, tried = 0;
    for (int i = 0; tried < 80; i++) {
        qs_cube c = i % 2 ? scrambled(&rng, 2 + i / 2 % 3)
                          : walked(&rng, 3 + i / 2 % 5);
        int d = bfs_distance(&c, FORWARD);
        if (d >= 0 && d < 3)
            continue;
        check_against_bfs(&c, FORWARD, counts);
        tried++;
    }
    /* Further out for a few: the optimum of those beyond 5 moves. */
    for (int i = 0, far = 0; far < 6; i++) {
        qs_cube c = scrambled(&rng, 4);
        if (bfs_distance(&c, FORWARD) >= 0)
            continue;
        check_against_bfs(&c, FORWARD_FAR, counts);
        far++;
    }
    print_message("optima equal to the breadth-first distance: %d at 3, %d "
                  "at 4, %d at 5, %d at 6; %d beyond the radius\n",
                  counts[3], counts[4], counts[5], counts[6], counts[0]);
    assert_true(counts[4] >= 10 && counts[5] >= 10 && counts[6] >= 1);
}

/* Half-turn scrambles lie in all three phase-2 groups, where the phase-1
 * table reads 0 and the bound is the corners' robot distance alone: the
 * optimum is still the breadth-first distance, so that bound is never too
 * high (whatever the class a tilt leaves the cube in). */
static void test_corner_bound_in_phase2_groups(void **state)
{
    (void)state;
    uint64_t rng = 0x5851f42d4c957f2dull;
    int counts[FORWARD_FAR + BACK + 1] = {0};
    for (int i = 0; i < 24; i++) {
        qs_cube c;
        qs_cube_solved(&c);
        for (int k = 0; k < 2 + i % 4; k++)
            qs_cube_apply_move(&c, (qs_move)(next_random(&rng) % 6 * 3 + 1));
        if (qs_cube_is_solved(&c))
            continue;
        check_against_bfs(&c, FORWARD, counts);
    }
    print_message("half-turn scrambles: %d at 3, %d at 4, %d at 5, %d at 6; "
                  "%d beyond the radius\n",
                  counts[3], counts[4], counts[5], counts[6], counts[0]);
    assert_true(counts[4] + counts[5] + counts[6] >= 5);
}

/* Longer scrambles: never longer than robot_solve, always executable. */
static void test_never_longer_than_two_phase(void **state)
{
    (void)state;
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    robot_optimal_options o;
    robot_optimal_options_default(&o);
    o.threads = 2;
    for (int i = 0; i < 20; i++) {
        qs_cube c = scrambled(&rng, 5 + i % 3);
        robot_solution s;
        qs_stats st;
        assert_int_equal(solve(&c, &o, &s, &st), ROBOT_OK);
        assert_executes(&c, &s);
        assert_true(s.plan.robot_moves <= two_phase_moves(&c));
        assert_int_equal(st.phase1_depth, s.plan.robot_moves - 1);
    }
}

static void test_special_positions(void **state)
{
    (void)state;
    robot_optimal_options o;
    robot_optimal_options_default(&o);
    robot_solution s;
    qs_cube c;

    /* Solved: the empty solution. */
    qs_cube_solved(&c);
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_OK);
    assert_int_equal(s.n, 0);
    assert_int_equal(s.plan.robot_moves, 0);

    /* Every single move: one robot move on R, L, F, B and their pairs,
     * three on U, D and (U D) (a tilt and a full regrip; see
     * docs/robot-model.md). */
    for (int m = 0; m < QS_MOVE_COUNT; m++) {
        qs_cube_solved(&c);
        qs_cube_apply_move(&c, (qs_move)m);
        assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_OK);
        assert_executes(&c, &s);
        int ud = m < 18 ? m / 3 % 3 == 0 : (m - 18) / 9 == 0;
        assert_int_equal(s.plan.robot_moves, ud ? 3 : 1);
    }

    /* The checkerboard: three pairs, and one tilt to reach (U D). */
    qs_move moves[8];
    int n = qs_moves_parse("U2 D2 F2 B2 L2 R2", moves, 8, NULL, 0);
    qs_cube_solved(&c);
    qs_cube_apply_moves(&c, moves, n);
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_OK);
    assert_executes(&c, &s);
    assert_int_equal(s.plan.robot_moves, 4);
}

typedef struct {
    qs_cube cube;
    int threads, rc, moves;
} job;

static void *solve_job(void *arg)
{
    job *j = arg;
    robot_optimal_options o;
    robot_optimal_options_default(&o);
    o.threads = j->threads;
    robot_solution *s = malloc(sizeof *s);
    j->rc = s ? solve(&j->cube, &o, s, NULL) : ROBOT_ERR_NOMEM;
    if (j->rc == ROBOT_OK) {
        assert_executes(&j->cube, s);
        j->moves = s->plan.robot_moves;
    }
    free(s);
    return NULL;
}

/* One thread or two, alone or two solves at once: the same optima. */
static void test_threads_and_reentrancy(void **state)
{
    (void)state;
    uint64_t rng = 0x853c49e6748fea9bull;
    job jobs[4];
    for (int i = 0; i < 4; i++) {
        jobs[i].cube = scrambled(&rng, 7);
        jobs[i].threads = 1 + i % 2;
    }
    int alone[4];
    for (int i = 0; i < 4; i++) {
        job j = jobs[i];
        j.threads = 1;
        solve_job(&j);
        assert_int_equal(j.rc, ROBOT_OK);
        alone[i] = j.moves;
    }
    pthread_t tid[4];
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&tid[i], NULL, solve_job, &jobs[i]),
                         0);
    for (int i = 0; i < 4; i++) {
        pthread_join(tid[i], NULL);
        assert_int_equal(jobs[i].rc, ROBOT_OK);
        assert_int_equal(jobs[i].moves, alone[i]);
    }
}

typedef struct {
    int calls, first, last, last_found, ordered;
    uint64_t nodes;
    atomic_int *cancel_at_depth;
    int cancel_depth;
} progress;

static void on_depth(void *ctx, int depth, int found, uint64_t nodes,
                     double elapsed_ms)
{
    progress *p = ctx;
    if (p->calls == 0)
        p->first = depth;
    else if (depth != p->last + 1 || p->last_found || nodes < p->nodes)
        p->ordered = 0;
    assert_true(elapsed_ms >= 0);
    p->calls++;
    p->last = depth;
    p->last_found = found;
    p->nodes = nodes;
    if (p->cancel_at_depth && depth >= p->cancel_depth)
        atomic_store(p->cancel_at_depth, 1);
}

/* One progress call per length, consecutive, the last one the optimum;
 * the length limit stops short of it. */
static void test_progress_and_max_len(void **state)
{
    (void)state;
    uint64_t rng = 0x1234567887654321ull;
    qs_cube c = scrambled(&rng, 8);
    robot_optimal_options o;
    robot_optimal_options_default(&o);
    progress p = {0, 0, 0, 0, 1, 0, NULL, 0};
    o.on_depth = on_depth;
    o.depth_ctx = &p;
    robot_solution s;
    qs_stats st;
    assert_int_equal(solve(&c, &o, &s, &st), ROBOT_OK);
    int best = s.plan.robot_moves;
    assert_true(p.ordered);
    assert_int_equal(p.last, best);
    assert_int_equal(p.last_found, 1);
    assert_int_equal(p.calls, best - p.first + 1);
    assert_true(st.phase1_nodes == p.nodes);

    o.on_depth = NULL;
    o.max_len = best - 1;
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_ERR_NOT_FOUND);
    o.max_len = best;
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_OK);
    assert_int_equal(s.plan.robot_moves, best);
}

typedef struct {
    atomic_int *flag;
    atomic_int *started;
} raiser;

/* Raises the cancel flag once the search has reported its first length,
 * so it stops in the middle of a later one. */
static void *raise_later(void *arg)
{
    raiser *r = arg;
    while (!atomic_load(r->started))
        sched_yield();
    atomic_store(r->flag, 1);
    return NULL;
}

static void mark_started(void *ctx, int depth, int found, uint64_t nodes,
                         double elapsed_ms)
{
    (void)depth;
    (void)found;
    (void)nodes;
    (void)elapsed_ms;
    atomic_store((atomic_int *)ctx, 1);
}

/* A random cube is far beyond reach: only cancel ends its search. */
static void test_cancel(void **state)
{
    (void)state;
    char cubes[1][55];
    assert_int_equal(test_read_bench("random-1k.txt", cubes, 1), 1);
    qs_cube c;
    assert_int_equal(qs_cube_from_facelets(cubes[0], &c, NULL, 0), QS_OK);
    robot_optimal_options o;
    robot_optimal_options_default(&o);
    o.threads = 2;
    robot_solution s;
    atomic_int cancel = 1;
    o.cancel = &cancel;
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_ERR_CANCELLED);

    /* Raised from a progress callback: the next length does not run. */
    atomic_store(&cancel, 0);
    progress p = {0, 0, 0, 0, 1, 0, &cancel, 0};
    o.on_depth = on_depth;
    o.depth_ctx = &p;
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_ERR_CANCELLED);
    assert_int_equal(p.calls, 1);

    /* Raised by another thread while a length is being searched. */
    atomic_store(&cancel, 0);
    atomic_int started = 0;
    raiser r = {&cancel, &started};
    o.on_depth = mark_started;
    o.depth_ctx = &started;
    pthread_t tid;
    assert_int_equal(pthread_create(&tid, NULL, raise_later, &r), 0);
    int rc = solve(&c, &o, &s, NULL);
    pthread_join(tid, NULL);
    assert_int_equal(rc, ROBOT_ERR_CANCELLED);
}

static void test_bad_arguments(void **state)
{
    (void)state;
    const qs_tables *t = robot_tables();
    robot_optimal_options o;
    robot_optimal_options_default(&o);
    robot_solution s;
    qs_cube c;
    qs_cube_solved(&c);
    qs_cube_apply_move(&c, 3);

    assert_int_equal(
        robot_solve_optimal(NULL, &model, &profile, &c, &o, &s, NULL),
        ROBOT_ERR_ARGUMENT);
    assert_int_equal(robot_solve_optimal(t, NULL, &profile, &c, &o, &s, NULL),
                     ROBOT_ERR_ARGUMENT);
    assert_int_equal(robot_solve_optimal(t, &model, NULL, &c, &o, &s, NULL),
                     ROBOT_ERR_ARGUMENT);
    assert_int_equal(
        robot_solve_optimal(t, &model, &profile, NULL, &o, &s, NULL),
        ROBOT_ERR_ARGUMENT);
    assert_int_equal(
        robot_solve_optimal(t, &model, &profile, &c, NULL, &s, NULL),
        ROBOT_ERR_ARGUMENT);
    assert_int_equal(
        robot_solve_optimal(t, &model, &profile, &c, &o, NULL, NULL),
        ROBOT_ERR_ARGUMENT);
    o.threads = 0;
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_ERR_ARGUMENT);
    o.threads = 1;
    o.max_len = -2;
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_ERR_ARGUMENT);
    o.max_len = QS_MAX_MOVES + 1;
    assert_int_equal(solve(&c, &o, &s, NULL), ROBOT_ERR_ARGUMENT);
    o.max_len = -1;

    /* Not solvable: one corner twisted. */
    qs_cube twisted = c;
    twisted.co[0] = (uint8_t)((twisted.co[0] + 1) % 3);
    assert_int_equal(solve(&twisted, &o, &s, NULL), ROBOT_ERR_CUBE);

    /* A table set of another metric: refused before any table is read,
     * so placeholder blobs do. */
    static uint64_t placeholder[8];
    const void *blobs[QS_BLOB_MAX] = {placeholder, placeholder, placeholder,
                                      placeholder};
    qs_tables *htm = NULL;
    assert_int_equal(qs_tables_create(QS_METRIC_HTM, blobs, &htm), QS_OK);
    assert_int_equal(
        robot_solve_optimal(htm, &model, &profile, &c, &o, &s, NULL),
        ROBOT_ERR_TABLES);
    qs_tables_free(htm);
}

/* Runs "quadsolve ARGS" with stderr into stdout; returns the exit status
 * and the output (caller frees). */
static int run_cli(const char *args, char **out)
{
    const char *path = getenv("QUADSOLVE_CLI");
    if (!path || !*path)
        fail_msg("QUADSOLVE_CLI is not set");
    char cmd[4096];
    snprintf(cmd, sizeof cmd, "'%s' %s 2>&1 </dev/null", path, args);
    return test_run(cmd, out);
}

static void test_cli(void **state)
{
    (void)state;
    char *out;
    /* U' R' is solved by R U: three robot moves (docs/robot-model.md);
     * a progress line per length, then the JSON line with the plan. */
    assert_int_equal(run_cli("solve --optimal --metric robot --json "
                             "--scramble \"U' R'\"",
                             &out),
                     0);
    assert_non_null(strstr(out, "optimal: length 3: found"));
    char *line = strchr(out, '{');
    assert_non_null(line);
    cJSON *j = cJSON_Parse(line);
    assert_non_null(j);
    assert_true(cJSON_IsTrue(cJSON_GetObjectItem(j, "ok")));
    assert_int_equal(cJSON_GetObjectItem(j, "robot_moves")->valueint, 3);
    const char *robot = cJSON_GetObjectItem(j, "robot")->valuestring;
    robot_step plan[8];
    assert_int_equal(robot_steps_parse(robot, plan, 8, NULL, 0), 3);
    cJSON_Delete(j);
    free(out);

    /* Beyond --max-len: NOT_FOUND, exit 1. --objective time: usage. */
    assert_int_equal(run_cli("solve --optimal --metric robot --max-len 2 "
                             "--scramble \"U' R'\"",
                             &out),
                     1);
    assert_non_null(strstr(out, "error: NOT_FOUND"));
    free(out);
    assert_int_equal(run_cli("solve --optimal --metric robot --objective "
                             "time --scramble R",
                             &out),
                     2);
    free(out);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_bfs_known_distances),
        cmocka_unit_test(test_equals_breadth_first),
        cmocka_unit_test(test_special_positions),
        cmocka_unit_test(test_corner_bound_in_phase2_groups),
        cmocka_unit_test(test_never_longer_than_two_phase),
        cmocka_unit_test(test_threads_and_reentrancy),
        cmocka_unit_test(test_progress_and_max_len),
        cmocka_unit_test(test_cancel),
        cmocka_unit_test(test_bad_arguments),
        cmocka_unit_test(test_cli),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
