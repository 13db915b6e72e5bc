/*
 * test_engine.c - the search engine's shared mechanisms (solver/engine.c,
 * qs_engine.h): the stop state's reasons and deadline rule, running
 * workers on threads, job lists handed out once each across threads, and
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
    int prev = -1, prev_promise = 3;
    for (int k = 0; k < JOBS; k++) {
        const int *job = qs_jobs_take(&jobs);
        assert_non_null(job);
        int promise = (*job * 7) % 5 - 2;
        assert_true(promise <= prev_promise);
        if (promise == prev_promise)
            assert_true(*job > prev);
        prev = *job;
        prev_promise = promise;
    }
    assert_null(qs_jobs_take(&jobs));
    assert_int_equal(prev_promise, -2);

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
    assert_int_equal(qs_engine_run(THREADS, take_all, w, sizeof w[0], &h),
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

    assert_int_equal(qs_engine_run(0, take_all, w, sizeof w[0], &h),
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
        cmocka_unit_test(test_jobs_order),
        cmocka_unit_test(test_pool_ranking),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
