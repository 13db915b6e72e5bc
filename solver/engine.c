/*
 * engine.c - the mechanisms every search shares (see qs_engine.h): the
 * stop state, running a search's workers on threads, job lists and the
 * pool of best candidates. They sit outside the node loops, so they favour
 * being simple and correct over being fast; only qs_halt_poll runs often,
 * and even it only every few hundred nodes.
 */
#include "qs_engine.h"

#include <stdlib.h>
#include <string.h>

void qs_halt_init(qs_halt *h, const atomic_int *cancel, uint64_t deadline_ns)
{
    atomic_init(&h->stop, 0);
    atomic_init(&h->cancelled, 0);
    atomic_init(&h->timed_out, 0);
    h->cancel = cancel;
    h->deadline_ns = deadline_ns;
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
} thread_arg;

static void *thread_main(void *arg)
{
    thread_arg *a = arg;
    a->fn(a->worker);
    return NULL;
}

int qs_engine_run(int threads, void (*fn)(void *worker), void *workers,
                  size_t stride, qs_halt *h)
{
    if (threads < 1 || !fn || !workers || !h)
        return QS_ERR_ARGUMENT;
    if (threads == 1) {
        fn(workers);
        return QS_OK;
    }
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
        fn(workers);
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

void qs_jobs_clear(qs_jobs *j)
{
    j->n = 0;
    atomic_store(&j->next, 0);
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
