/*
 * test_engine.c - the search engine's shared mechanisms (solver/engine.c,
 * qs_engine.h): the stop state's reasons and deadline rule, running
 * workers on threads started per search or kept in a team, job lists
 * handed out once each across threads, and
 * the candidate pool's ranking, repeats and capacity. The searches built
 * on them are tested in test_search, test_optimal, test_robot_search and
 * test_robot_optimal.
 */
#include "testutil.h"

#include "qs_engine.h"

static qs_candidate cand(int64_t key, const char *moves)
{
    qs_candidate c;
    memset(&c, 0, sizeof c);
    c.key = key;
    c.n = (int16_t)strlen(moves);
    for (int i = 0; i < c.n; i++)
        c.moves[i] = (qs_move)(moves[i] - 'a');
    return c;
}

static void test_halt_reasons(void **state)
{
    (void)state;
    atomic_int cancel = 0;
    qs_halt h;
    qs_halt_init(&h, &cancel, 0);
    assert_int_equal(qs_halt_poll(&h, 1), 0);
    assert_int_equal(qs_halt_result(&h, 0), QS_ERR_NOT_FOUND);
    assert_int_equal(qs_halt_result(&h, 1), QS_OK);
    atomic_store(&cancel, 1);
    assert_int_equal(qs_halt_poll(&h, 0), 1);
    assert_true(qs_halt_stopped(&h));
    assert_true(qs_halt_was_cancelled(&h));
    assert_int_equal(qs_halt_result(&h, 0), QS_ERR_CANCELLED);
    /* Found solutions win over the reason the search stopped. */
    assert_int_equal(qs_halt_result(&h, 1), QS_OK);

    /* A passed deadline stops only where it applies: a search without
     * its first solution (and no length limit) goes on. */
    qs_halt_init(&h, NULL, qs_now_ns() - 1);
    assert_int_equal(qs_halt_poll(&h, 0), 0);
    assert_false(qs_halt_stopped(&h));
    assert_int_equal(qs_halt_poll(&h, 1), 1);
    assert_int_equal(qs_halt_result(&h, 0), QS_ERR_TIMEOUT);
    assert_false(qs_halt_was_cancelled(&h));

    /* A node limit counts every poll's nodes, applies like the deadline
     * (not before the first solution) and is recorded as the time
     * limit. */
    qs_halt_init(&h, NULL, 0);
    qs_halt_limit_nodes(&h, 1000);
    assert_int_equal(qs_halt_poll_nodes(&h, 1, 600), 0);
    assert_int_equal(qs_halt_poll_nodes(&h, 0, 600), 0);
    assert_false(qs_halt_stopped(&h));
    assert_int_equal(qs_halt_poll_nodes(&h, 1, 0), 1);
    assert_true(qs_halt_stopped(&h));
    assert_int_equal(qs_halt_result(&h, 0), QS_ERR_TIMEOUT);
    /* Without a limit the count never stops a search. */
    qs_halt_init(&h, NULL, 0);
    assert_int_equal(qs_halt_poll_nodes(&h, 1, 4000000000u), 0);
    assert_int_equal(qs_halt_poll_nodes(&h, 1, 4000000000u), 0);

    /* A stop raised by a thread (enough found) is no reason of its own. */
    qs_halt_init(&h, NULL, qs_now_ns() + 3600ull * 1000000000ull);
    qs_halt_stop(&h);
    assert_int_equal(qs_halt_poll(&h, 1), 1);
    assert_int_equal(qs_halt_result(&h, 0), QS_ERR_NOT_FOUND);
}

/* Workers of test_run_threads: each takes jobs until none is left and
 * counts them in the job's own slot, so a job taken twice shows. */
typedef struct {
    qs_jobs *jobs;
    atomic_int *taken;  /* per job */
    int count;          /* jobs this worker ran */
    pthread_t self;
} job_worker;

static void take_all(void *arg)
{
    job_worker *w = arg;
    w->self = pthread_self();
    const int *job;
    while ((job = qs_jobs_take(w->jobs)) != NULL) {
        atomic_fetch_add(&w->taken[*job], 1);
        w->count++;
    }
}

/* A worker that records which thread ran it, how often, and where it
 * lay while it ran. */
typedef struct {
    int runs;
    pthread_t self;
    const void *at;
} team_worker;

static void count_run(void *arg)
{
    team_worker *w = arg;
    w->self = pthread_self();
    w->runs++;
    w->at = w;
}

enum { TEAM_THREADS = 3, TEAM_ROUNDS = 300 };

typedef struct {
    qs_team *team;
    int threads;
    team_worker w[TEAM_THREADS];
} team_user;

/* TEAM_ROUNDS searches of `threads` workers each on one team. */
static void *use_team(void *arg)
{
    team_user *u = arg;
    memset(u->w, 0, sizeof u->w);
    for (int r = 0; r < TEAM_ROUNDS; r++) {
        qs_halt h;
        qs_halt_init(&h, NULL, 0);
        if (qs_engine_run(u->threads, u->team, count_run, u->w,
                          sizeof u->w[0], &h) != QS_OK)
            return NULL;
    }
    return u;
}

/* A team runs every worker of every search exactly once, the first on the
 * caller's thread and the others on its own threads (the same ones from
 * search to search), also when a search uses fewer threads than it has;
 * a search that needs more threads, or finds the team busy with another
 * search, starts its own and still runs every worker once. */
static void test_team(void **state)
{
    (void)state;
    qs_team *team = (qs_team *)&team; /* not NULL: a failure clears it */
    assert_int_equal(qs_team_create(0, &team), QS_ERR_ARGUMENT);
    assert_null(team);
    assert_int_equal(qs_team_create(QS_MAX_THREADS + 1, &team),
                     QS_ERR_ARGUMENT);
    assert_null(team);
    assert_int_equal(qs_team_create(2, NULL), QS_ERR_ARGUMENT);
    assert_int_equal(qs_team_threads(NULL), 0);
    assert_int_equal(qs_team_create(TEAM_THREADS, &team), QS_OK);
    assert_int_equal(qs_team_threads(team), TEAM_THREADS);

    team_user u = {team, TEAM_THREADS, {{0}}};
    assert_ptr_equal(use_team(&u), &u);
    pthread_t first[TEAM_THREADS];
    for (int i = 0; i < TEAM_THREADS; i++) {
        assert_int_equal(u.w[i].runs, TEAM_ROUNDS);
        first[i] = u.w[i].self;
    }
    assert_true(pthread_equal(u.w[0].self, pthread_self()));
    for (int i = 1; i < TEAM_THREADS; i++)
        assert_false(pthread_equal(u.w[i].self, pthread_self()));
    /* Each thread ran its worker in a page of its own, and what the
     * worker wrote there came back to the caller's array. */
    for (int i = 0; i < TEAM_THREADS; i++) {
        assert_true((uintptr_t)u.w[i].at % 4096 == 0);
        assert_false(u.w[i].at == (const void *)&u.w[i]);
    }
    /* the same threads serve the next searches */
    assert_ptr_equal(use_team(&u), &u);
    for (int i = 0; i < TEAM_THREADS; i++)
        assert_true(pthread_equal(u.w[i].self, first[i]));

    u.threads = 2;
    assert_ptr_equal(use_team(&u), &u);
    assert_int_equal(u.w[0].runs, TEAM_ROUNDS);
    assert_int_equal(u.w[1].runs, TEAM_ROUNDS);
    assert_int_equal(u.w[2].runs, 0);

    /* More threads than the team has: started for the search, each on
     * a copy of its own too. */
    enum { MORE = TEAM_THREADS + 1 };
    team_worker more[MORE];
    memset(more, 0, sizeof more);
    qs_halt h;
    qs_halt_init(&h, NULL, 0);
    assert_int_equal(qs_engine_run(MORE, team, count_run, more,
                                   sizeof more[0], &h), QS_OK);
    for (int i = 0; i < MORE; i++) {
        assert_int_equal(more[i].runs, 1);
        assert_true((uintptr_t)more[i].at % 4096 == 0);
    }
    /* One thread runs the caller's worker where it lies. */
    assert_int_equal(qs_engine_run(1, team, count_run, more, sizeof more[0],
                                   &h), QS_OK);
    assert_int_equal(more[0].runs, 2);
    assert_ptr_equal(more[0].at, &more[0]);

    /* Two callers sharing the team: one at a time uses it. */
    team_user a = {team, TEAM_THREADS, {{0}}}, b = a;
    pthread_t ta, tb;
    assert_int_equal(pthread_create(&ta, NULL, use_team, &a), 0);
    assert_int_equal(pthread_create(&tb, NULL, use_team, &b), 0);
    void *ra, *rb;
    pthread_join(ta, &ra);
    pthread_join(tb, &rb);
    assert_ptr_equal(ra, &a);
    assert_ptr_equal(rb, &b);
    for (int i = 0; i < TEAM_THREADS; i++) {
        assert_int_equal(a.w[i].runs, TEAM_ROUNDS);
        assert_int_equal(b.w[i].runs, TEAM_ROUNDS);
    }
    qs_team_free(team);
    qs_team_free(NULL);
}

/* Takes all `count` items of test_jobs_order's list (item i has promise
 * (7 i) % 5 - 2) and checks they come most promise first, in listing
 * order among equals, down to the least promise, -2. */
static void take_by_promise(qs_jobs *jobs, int count)
{
    int prev = -1, prev_promise = 3;
    for (int k = 0; k < count; k++) {
        const int *job = qs_jobs_take(jobs);
        assert_non_null(job);
        int promise = (*job * 7) % 5 - 2;
        assert_true(promise <= prev_promise);
        if (promise == prev_promise)
            assert_true(*job > prev);
        prev = *job;
        prev_promise = promise;
    }
    assert_null(qs_jobs_take(jobs));
    assert_int_equal(prev_promise, -2);
}

/* Jobs are handed out most promise first, in listing order among equal
 * promises; an empty or one-item list orders without trouble. */
static void test_jobs_order(void **state)
{
    (void)state;
    /* More than the first allocation (1,024), so that growing keeps the
     * promises beside their items. */
    enum { JOBS = 3000 };
    qs_jobs jobs;
    qs_jobs_init(&jobs, sizeof(int));
    assert_int_equal(qs_jobs_order(&jobs), QS_OK);
    assert_null(qs_jobs_take(&jobs));
    qs_jobs_clear(&jobs);
    for (int i = 0; i < JOBS; i++)
        assert_int_equal(qs_jobs_add(&jobs, &i, (i * 7) % 5 - 2), QS_OK);
    assert_int_equal(qs_jobs_order(&jobs), QS_OK);
    take_by_promise(&jobs, JOBS);
    /* Rewound, the same items come out again in the same order. */
    qs_jobs_rewind(&jobs);
    take_by_promise(&jobs, JOBS);

    qs_jobs_clear(&jobs);
    int one = 1;
    assert_int_equal(qs_jobs_add(&jobs, &one, 5), QS_OK);
    assert_int_equal(qs_jobs_order(&jobs), QS_OK);
    const int *j = qs_jobs_take(&jobs);
    assert_non_null(j);
    assert_int_equal(*j, 1);
    qs_jobs_free(&jobs);
}

static void test_run_threads_and_jobs(void **state)
{
    (void)state;
    enum { JOBS = 5000, THREADS = 4 };
    qs_jobs jobs;
    qs_jobs_init(&jobs, sizeof(int));
    for (int i = 0; i < JOBS; i++)
        assert_int_equal(qs_jobs_add(&jobs, &i, 0), QS_OK);
    atomic_int *taken = calloc(JOBS, sizeof *taken);
    assert_non_null(taken);
    job_worker w[THREADS];
    memset(w, 0, sizeof w);
    for (int i = 0; i < THREADS; i++) {
        w[i].jobs = &jobs;
        w[i].taken = taken;
    }
    qs_halt h;
    qs_halt_init(&h, NULL, 0);
    assert_int_equal(qs_engine_run(THREADS, NULL, take_all, w, sizeof w[0], &h),
                     QS_OK);
    int total = 0;
    for (int i = 0; i < THREADS; i++)
        total += w[i].count;
    assert_int_equal(total, JOBS);
    for (int i = 0; i < JOBS; i++)
        assert_int_equal(atomic_load(&taken[i]), 1);
    /* The caller's thread runs the first worker; the others their own. */
    assert_true(pthread_equal(w[0].self, pthread_self()));
    for (int i = 1; i < THREADS; i++)
        assert_false(pthread_equal(w[i].self, pthread_self()));
    assert_null(qs_jobs_take(&jobs));

    /* Cleared, the list hands out new items from the start. */
    qs_jobs_clear(&jobs);
    int seven = 7;
    assert_int_equal(qs_jobs_add(&jobs, &seven, 0), QS_OK);
    const int *j = qs_jobs_take(&jobs);
    assert_non_null(j);
    assert_int_equal(*j, 7);
    assert_null(qs_jobs_take(&jobs));
    qs_jobs_free(&jobs);
    free(taken);

    /* A numbered sequence gives each number once. */
    qs_jobs seq;
    qs_jobs_init(&seq, 0);
    for (int i = 0; i < 10; i++)
        assert_int_equal(qs_jobs_next_index(&seq), i);
    qs_jobs_free(&seq);

    assert_int_equal(qs_engine_run(0, NULL, take_all, w, sizeof w[0], &h),
                     QS_ERR_ARGUMENT);
}

static void test_pool_ranking(void **state)
{
    (void)state;
    qs_pool p;
    assert_int_equal(qs_pool_init(&p, 3), QS_OK);
    qs_pool_lock(&p);
    qs_candidate a = cand(20, "abc"), b = cand(18, "abd"),
                 c = cand(20, "abe"), d = cand(19, "abf");
    assert_int_equal(qs_pool_insert(&p, &a), 0);
    assert_int_equal(qs_pool_insert(&p, &b), 0); /* better: first */
    assert_int_equal(qs_pool_insert(&p, &c), 2); /* equal keys: in order */
    assert_int_equal(p.n, 3);
    assert_int_equal(qs_pool_insert(&p, &d), 1); /* the last one drops */
    assert_int_equal(p.n, 3);
    assert_int_equal(p.c[0].key, 18);
    assert_int_equal(p.c[1].key, 19);
    assert_int_equal(p.c[2].key, 20);
    assert_memory_equal(p.c[2].moves, a.moves, 3);

    /* Beyond the capacity: not kept. */
    qs_candidate e = cand(25, "abg");
    assert_int_equal(qs_pool_insert(&p, &e), -1);

    /* The same moves again: a repeat unless its key is better, when the
     * old entry gives way. */
    qs_candidate a_same = cand(20, "abc");
    assert_int_equal(qs_pool_insert(&p, &a_same), -1);
    qs_candidate a_better = cand(17, "abc");
    assert_int_equal(qs_pool_insert(&p, &a_better), 0);
    assert_int_equal(p.n, 3);
    assert_int_equal(p.c[0].key, 17);
    assert_int_equal(p.c[1].key, 18);
    assert_int_equal(p.c[2].key, 19);
    for (int i = 1; i < p.n; i++)
        assert_false(p.c[i].n == 3 &&
                     memcmp(p.c[i].moves, a.moves, 3) == 0);
    qs_pool_unlock(&p);
    qs_pool_free(&p);
    qs_pool_free(&p); /* freeing twice is harmless */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_halt_reasons),
        cmocka_unit_test(test_run_threads_and_jobs),
        cmocka_unit_test(test_team),
        cmocka_unit_test(test_jobs_order),
        cmocka_unit_test(test_pool_ranking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
