/*
 * engine.c - the mechanisms every search shares (see qs_engine.h): the
 * stop state, running a search's workers on threads (started per search,
 * or kept between searches in a qs_team), job lists and the pool of best
 * candidates. They sit outside the node loops, so they favour being simple
 * and correct over being fast; only qs_halt_poll runs often, and even it
 * only every few hundred nodes.
 */
#include "qs_engine.h"

#include <sched.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* How long a team's helper keeps polling for the next search before it
 * sleeps: searches run back to back (a benchmark, a robot's queue) find
 * it running, where a thread that is started or woken may wait
 * milliseconds for a core on a loaded machine. */
#define TEAM_SPIN_NS 2000000u

struct qs_team {
    int helpers;             /* threads besides the caller's */
    pthread_t *tid;
    pthread_mutex_t busy;    /* held by the search using the team */
    pthread_mutex_t mu;      /* with wake: sleeping helpers */
    pthread_cond_t wake;
    atomic_uint round;       /* one more per search; helpers follow it */
    atomic_int pending;      /* helpers still in the current round */
    atomic_int quit;
    /* the current round's work, written before round is raised */
    void (*fn)(void *);
    char *workers;
    size_t stride;
    int used;                /* helpers that run a worker this round */
};

typedef struct {
    qs_team *team;
    int index;
} helper_arg;

static uint64_t mono_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Runs fn on the worker (its `size` bytes) from memory the running thread
 * allocates itself, page-aligned, and copies the worker back when fn
 * returns. With the workers of every thread in the caller's one block,
 * the plain search's second thread visited 40 % fewer nodes than its
 * first on this project's VMs, and the split depended on how far apart
 * the threads' workers lay (not on sharing a line: they were already on
 * lines of their own); in memory of its own each thread went as fast as
 * the first (docs/benchmarks.md, fortieth session). A thread that cannot
 * allocate runs on the caller's copy. */
static void run_worker(void (*fn)(void *), void *worker, size_t size)
{
    enum { PAGE = 4096 };
    void *own = aligned_alloc(PAGE, (size + PAGE - 1) / PAGE * PAGE);
    if (!own) {
        fn(worker);
        return;
    }
    memcpy(own, worker, size);
    fn(own);
    memcpy(worker, own, size);
    free(own);
}

static void *helper_main(void *arg)
{
    helper_arg a = *(helper_arg *)arg;
    free(arg);
    qs_team *t = a.team;
    unsigned seen = 0;
    for (;;) {
        uint64_t since = mono_ns();
        while (atomic_load(&t->round) == seen && !atomic_load(&t->quit) &&
               mono_ns() - since < TEAM_SPIN_NS)
            ;
        pthread_mutex_lock(&t->mu);
        while (atomic_load(&t->round) == seen && !atomic_load(&t->quit))
            pthread_cond_wait(&t->wake, &t->mu);
        pthread_mutex_unlock(&t->mu);
        if (atomic_load(&t->quit))
            return NULL;
        seen = atomic_load(&t->round);
        if (a.index < t->used)
            run_worker(t->fn, t->workers + (size_t)(a.index + 1) * t->stride,
                       t->stride);
        atomic_fetch_sub(&t->pending, 1);
    }
}

int qs_team_create(int threads, qs_team **out)
{
    if (!out)
        return QS_ERR_ARGUMENT;
    *out = NULL;
    if (threads < 1 || threads > QS_MAX_THREADS)
        return QS_ERR_ARGUMENT;
    qs_team *t = calloc(1, sizeof *t);
    if (!t)
        return QS_ERR_NOMEM;
    t->tid = malloc(sizeof *t->tid * (size_t)threads);
    if (!t->tid) {
        free(t);
        return QS_ERR_NOMEM;
    }
    pthread_mutex_init(&t->busy, NULL);
    pthread_mutex_init(&t->mu, NULL);
    pthread_cond_init(&t->wake, NULL);
    atomic_init(&t->round, 0);
    atomic_init(&t->pending, 0);
    atomic_init(&t->quit, 0);
    for (int i = 0; i < threads - 1; i++) {
        helper_arg *a = malloc(sizeof *a);
        if (!a) {
            qs_team_free(t);
            return QS_ERR_NOMEM;
        }
        a->team = t;
        a->index = i;
        if (pthread_create(&t->tid[i], NULL, helper_main, a) != 0) {
            free(a);
            qs_team_free(t);
            return QS_ERR_THREAD;
        }
        t->helpers++;
    }
    *out = t;
    return QS_OK;
}

void qs_team_free(qs_team *t)
{
    if (!t)
        return;
    pthread_mutex_lock(&t->mu);
    atomic_store(&t->quit, 1);
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mu);
    for (int i = 0; i < t->helpers; i++)
        pthread_join(t->tid[i], NULL);
    pthread_cond_destroy(&t->wake);
    pthread_mutex_destroy(&t->mu);
    pthread_mutex_destroy(&t->busy);
    free(t->tid);
    free(t);
}

int qs_team_threads(const qs_team *t)
{
    return t ? t->helpers + 1 : 0;
}

/* Runs the search on the team's threads; 0 when the team is too small or
 * in use by another search (the caller then starts threads itself). */
static int team_run(qs_team *t, int threads, void (*fn)(void *),
                    void *workers, size_t stride)
{
    if (!t || t->helpers < threads - 1 || pthread_mutex_trylock(&t->busy))
        return 0;
    t->fn = fn;
    t->workers = workers;
    t->stride = stride;
    t->used = threads - 1;
    atomic_store(&t->pending, t->helpers);
    pthread_mutex_lock(&t->mu);
    atomic_fetch_add(&t->round, 1);
    pthread_cond_broadcast(&t->wake);
    pthread_mutex_unlock(&t->mu);
    run_worker(fn, workers, stride);
    /* The helpers return at their next poll of the stop state; one that
     * has not had a core yet gets this one. */
    for (unsigned spins = 0; atomic_load(&t->pending) > 0; spins++)
        if (spins >= 1000)
            sched_yield();
    pthread_mutex_unlock(&t->busy);
    return 1;
}

void qs_halt_init(qs_halt *h, const atomic_int *cancel, uint64_t deadline_ns)
{
    atomic_init(&h->stop, 0);
    atomic_init(&h->cancelled, 0);
    atomic_init(&h->timed_out, 0);
    h->cancel = cancel;
    h->deadline_ns = deadline_ns;
    h->node_limit = 0;
    atomic_init(&h->nodes, 0);
}

void qs_halt_limit_nodes(qs_halt *h, uint64_t node_limit)
{
    h->node_limit = node_limit;
}

int qs_halt_poll_nodes(qs_halt *h, int deadline_applies, unsigned nodes)
{
    if (qs_halt_poll(h, deadline_applies))
        return 1;
    if (h->node_limit == 0)
        return 0;
    uint64_t seen = atomic_fetch_add_explicit(&h->nodes, nodes,
                                              memory_order_relaxed) +
                    nodes;
    if (deadline_applies && seen >= h->node_limit) {
        atomic_store(&h->timed_out, 1);
        qs_halt_stop(h);
        return 1;
    }
    return 0;
}

int qs_halt_poll(qs_halt *h, int deadline_applies)
{
    if (qs_halt_stopped(h))
        return 1;
    if (h->cancel && atomic_load_explicit(h->cancel, memory_order_relaxed)) {
        atomic_store(&h->cancelled, 1);
        qs_halt_stop(h);
        return 1;
    }
    if (deadline_applies && h->deadline_ns && qs_now_ns() >= h->deadline_ns) {
        atomic_store(&h->timed_out, 1);
        qs_halt_stop(h);
        return 1;
    }
    return 0;
}

int qs_halt_result(const qs_halt *h, int found)
{
    if (found)
        return QS_OK;
    if (atomic_load(&h->cancelled))
        return QS_ERR_CANCELLED;
    if (atomic_load(&h->timed_out))
        return QS_ERR_TIMEOUT;
    return QS_ERR_NOT_FOUND;
}

typedef struct {
    void (*fn)(void *);
    void *worker;
    size_t size;
} thread_arg;

static void *thread_main(void *arg)
{
    thread_arg *a = arg;
    run_worker(a->fn, a->worker, a->size);
    return NULL;
}

int qs_engine_run(int threads, qs_team *team, void (*fn)(void *worker),
                  void *workers, size_t stride, qs_halt *h)
{
    if (threads < 1 || !fn || !workers || !h)
        return QS_ERR_ARGUMENT;
    if (threads == 1) {
        fn(workers);
        return QS_OK;
    }
    if (team_run(team, threads, fn, workers, stride))
        return QS_OK;
    pthread_t *tid = malloc(sizeof *tid * (size_t)threads);
    thread_arg *args = malloc(sizeof *args * (size_t)threads);
    if (!tid || !args) {
        free(tid);
        free(args);
        return QS_ERR_NOMEM;
    }
    int started = 1, err = QS_OK;
    for (int i = 1; i < threads; i++) {
        args[i].fn = fn;
        args[i].worker = (char *)workers + (size_t)i * stride;
        args[i].size = stride;
        if (pthread_create(&tid[i], NULL, thread_main, &args[i]) != 0) {
            /* A search on fewer threads than asked would be a different
             * search (slower, so worse at a time limit): stop and say so. */
            err = QS_ERR_THREAD;
            qs_halt_stop(h);
            break;
        }
        started = i + 1;
    }
    if (err == QS_OK)
        run_worker(fn, workers, stride);
    for (int i = 1; i < started; i++)
        pthread_join(tid[i], NULL);
    free(tid);
    free(args);
    return err;
}

void qs_jobs_init(qs_jobs *j, size_t size)
{
    j->items = NULL;
    j->promise = NULL;
    j->size = size;
    j->n = j->cap = 0;
    atomic_init(&j->next, 0);
}

void qs_jobs_free(qs_jobs *j)
{
    free(j->items);
    free(j->promise);
    j->items = NULL;
    j->promise = NULL;
    j->n = j->cap = 0;
}

void qs_run_init(qs_run *r, const atomic_int *cancel, uint64_t budget_us,
                 uint64_t max_nodes, size_t job_size)
{
    r->start_ns = qs_now_ns();
    qs_halt_init(&r->halt, cancel,
                 budget_us ? r->start_ns + budget_us * 1000u : 0);
    qs_halt_limit_nodes(&r->halt, max_nodes);
    qs_jobs_init(&r->jobs, job_size);
}

void qs_run_free(qs_run *r)
{
    qs_jobs_free(&r->jobs);
}

void *qs_run_alloc(size_t shared_size, size_t worker_size, size_t n,
                   void **workers)
{
    size_t offset = (shared_size + 63) / 64 * 64;
    if (n && worker_size > (SIZE_MAX - offset) / n)
        return NULL;
    unsigned char *block = calloc(1, offset + n * worker_size);
    if (block)
        *workers = block + offset;
    return block;
}

void qs_jobs_rewind(qs_jobs *j)
{
    atomic_store(&j->next, 0);
}

void qs_jobs_clear(qs_jobs *j)
{
    j->n = 0;
    qs_jobs_rewind(j);
}

int qs_jobs_add(qs_jobs *j, const void *item, int promise)
{
    if (j->n == j->cap) {
        int cap = j->cap ? 2 * j->cap : 1024;
        unsigned char *p = realloc(j->items, j->size * (size_t)cap);
        if (!p)
            return QS_ERR_NOMEM;
        j->items = p;
        int *q = realloc(j->promise, sizeof *q * (size_t)cap);
        if (!q)
            return QS_ERR_NOMEM;
        j->promise = q;
        j->cap = cap;
    }
    j->promise[j->n] = promise;
    memcpy(j->items + j->size * (size_t)j->n++, item, j->size);
    return QS_OK;
}

typedef struct {
    int promise, index;
} ranked;

static int by_promise(const void *a, const void *b)
{
    const ranked *x = a, *y = b;
    if (x->promise != y->promise)
        return y->promise - x->promise;
    return x->index - y->index;
}

int qs_jobs_order(qs_jobs *j)
{
    /* (An empty list has no buffer, and qsort must not be handed NULL.) */
    if (j->n < 2)
        return QS_OK;
    ranked *r = malloc(sizeof *r * (size_t)j->n);
    unsigned char *items = malloc(j->size * (size_t)j->cap);
    if (!r || !items) {
        free(r);
        free(items);
        return QS_ERR_NOMEM;
    }
    for (int i = 0; i < j->n; i++)
        r[i] = (ranked){j->promise[i], i};
    qsort(r, (size_t)j->n, sizeof *r, by_promise);
    for (int i = 0; i < j->n; i++) {
        memcpy(items + j->size * (size_t)i,
               j->items + j->size * (size_t)r[i].index, j->size);
        j->promise[i] = r[i].promise;
    }
    free(j->items);
    free(r);
    j->items = items;
    return QS_OK;
}

const void *qs_jobs_take(qs_jobs *j)
{
    int i = atomic_fetch_add(&j->next, 1);
    return i < j->n ? j->items + j->size * (size_t)i : NULL;
}

int qs_pool_init(qs_pool *p, int cap)
{
    p->n = 0;
    p->cap = cap;
    p->c = cap >= 1 ? malloc(sizeof *p->c * (size_t)cap) : NULL;
    if (!p->c)
        return QS_ERR_NOMEM;
    pthread_mutex_init(&p->lock, NULL);
    return QS_OK;
}

void qs_pool_free(qs_pool *p)
{
    if (!p->c)
        return;
    pthread_mutex_destroy(&p->lock);
    free(p->c);
    p->c = NULL;
}

int qs_pool_insert(qs_pool *p, const qs_candidate *c)
{
    for (int i = 0; i < p->n; i++)
        if (p->c[i].n == c->n &&
            memcmp(p->c[i].moves, c->moves, (size_t)c->n) == 0) {
            if (c->key >= p->c[i].key)
                return -1;
            memmove(&p->c[i], &p->c[i + 1],
                    sizeof *c * (size_t)(p->n - i - 1));
            p->n--;
            break;
        }
    int pos = p->n;
    for (int i = 0; i < p->n; i++)
        if (c->key < p->c[i].key) {
            pos = i;
            break;
        }
    if (pos >= p->cap)
        return -1;
    int keep = p->n < p->cap ? p->n : p->cap - 1;
    memmove(&p->c[pos + 1], &p->c[pos], sizeof *c * (size_t)(keep - pos));
    p->c[pos] = *c;
    if (p->n < p->cap)
        p->n++;
    return pos;
}
