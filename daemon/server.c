/*
 * server.c - the ZeroMQ side of quadsolved (protocol: docs/protocol.md).
 *
 * Threads and ownership:
 *  - the main thread owns the ROUTER socket: it receives and validates
 *    requests, answers ping/status/cancel itself, queues solves, enforces
 *    deadlines and sends every reply (ZeroMQ sockets are not thread-safe);
 *  - a loader thread opens the table sets one metric after another, so the
 *    daemon answers "loading" from its first millisecond;
 *  - worker threads take solves from the queue and run qsv_solve.
 * Workers never touch the socket: they append finished frames to an
 *  outbox and write a byte to a pipe that the main thread polls next to
 *  the socket. The same pipe carries the signal handler's wake-up, so
 *  SIGTERM is handled in the main loop, not in the handler.
 *
 * The queue is fair: each client (ROUTER identity) has its own FIFO and
 * the clients take turns, so one client pipelining many requests cannot
 * starve the others. It is bounded (BUSY beyond), and so is everything a
 * request can make the daemon allocate.
 */
#define _POSIX_C_SOURCE 200809L

#include "daemon.h"
#include "qtab.h"

#include <cJSON.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zmq.h>

#define MAX_IDENTITY 255
/* Frames beyond this are refused by libzmq itself (the peer is dropped);
 * between QSV_MAX_FRAME and this they get a TOO_LARGE reply. */
#define HARD_FRAME_LIMIT (256 * 1024)
/* Messages libzmq buffers per client and direction. With the frame limit
 * this bounds what one client can make the daemon hold: 100 frames in
 * (25 MiB at most; the main loop drains them at once anyway) and 1000
 * replies out for a client that does not read (beyond, replies to it are
 * dropped and logged). */
#define RECEIVE_HWM 100
/* Descriptors whose connection is tracked by identity (higher ones are
 * cancelled by descriptor alone). */
#define MAX_TRACKED_FD 1024
#define EARLIER_IDS 2      /* earlier connections remembered per descriptor */
#define SEND_HWM 1000

typedef enum { TABLES_LOADING, TABLES_READY, TABLES_FAILED } table_state;

typedef struct job job;
typedef struct client_queue client_queue;
typedef struct server server;

struct job {
    job *next;               /* in its client's FIFO */
    server *srv;
    uint8_t identity[MAX_IDENTITY];
    size_t identity_len;
    int envelope;            /* came from a REQ socket: final reply only */
    qsv_request req;
    double received_ms;
    double deadline_at;      /* 0: none */
    double started_ms;
    atomic_int cancel;
    int reason;              /* why cancel was raised: CANCELLED/DEADLINE */
    int srcfd;               /* the connection it came on (ZMQ_SRCFD) */
    int orphan;              /* that connection closed: nobody to answer */
    int implicit_deadline;   /* deadline_at is --request-limit-ms */
    int shutdown;            /* raised by shutdown */
};

struct client_queue {
    client_queue *next;      /* in the ring of clients with queued jobs */
    job *head, *tail;
    int n;                   /* jobs queued */
    int served;              /* a job of it was taken since it joined */
};

typedef struct outmsg {
    struct outmsg *next;
    uint8_t identity[MAX_IDENTITY];
    size_t identity_len;
    int envelope;
    char *text;              /* qsv_free */
} outmsg;

struct server {
    const qsd_config *cfg;
    const qlog *log;         /* &cfg->log */
    double start_ms;
    void *zctx, *router;
    void *monitor;           /* PAIR: the router's connection events */
    /* The connection each descriptor carries, by the identity its last
     * message came with (see note_connection); main thread only. */
    struct {
        uint8_t identity[MAX_IDENTITY];
        uint8_t len;             /* 0: none known */
        uint8_t closed;          /* its connection closed, and no new one
                                    has been accepted on it yet */
        int stale_events;        /* disconnects already handled */
        /* The identities of the connections the descriptor carried
         * before (EARLIER_IDS, most recent first): a request that comes
         * with one of them while another connection holds the descriptor
         * was read late, after its connection closed (see receive_one). */
        uint8_t earlier[EARLIER_IDS][MAX_IDENTITY];
        uint8_t earlier_len[EARLIER_IDS];
    } conn[MAX_TRACKED_FD];
    char endpoint[256];
    int wake[2];             /* pipe: workers and signals -> main loop */

    pthread_mutex_t mu;      /* everything below up to the outbox */
    pthread_cond_t work;
    client_queue *ring;      /* first client to serve */
    int queued;
    job **running;           /* one slot per worker */
    int n_running;
    unsigned long served;
    int stopping;
    table_state tables[QS_METRIC_COUNT];
    qtab_set *sets[QS_METRIC_COUNT];
    /* the optimal requests' set where the optimal size has no two-phase
     * tables (compact, h48h7: qtab_optimal_size_two_phase); else NULL and
     * sets[m] serves them too */
    qtab_set *optimal_sets[QS_METRIC_COUNT];
    char table_error[QS_METRIC_COUNT][128];

    pthread_mutex_t out_mu;
    outmsg *out_head, *out_tail;

    atomic_int loader_cancel;
    robot_model model;
    pthread_t loader;
    int loader_running;
    pthread_t *workers;
    int n_workers;
    pthread_t zap;
    int zap_running;
};

static int signal_pipe = -1; /* the only thing a signal handler touches */

/* The optimal tables a loaded set holds, as a size. */
static qtab_optimal_size optimal_tables_held(const qtab_set *set)
{
    const qs_tables *t = qtab_set_tables(set);
    if (qs_tables_optimal_h48h7(t))
        return QTAB_OPTIMAL_H48H7;
    if (qs_tables_optimal_compact(t))
        return QTAB_OPTIMAL_COMPACT;
    return (qtab_optimal_size)((qs_tables_optimal_large(t)
                                    ? QTAB_OPTIMAL_LARGE
                                    : 0) |
                               (qs_tables_optimal_h48(t) ? QTAB_OPTIMAL_H48
                                                         : 0) |
                               (qs_tables_optimal_xl(t) ? QTAB_OPTIMAL_XL
                                                        : 0));
}

/* The set that serves metric m's optimal requests. */
static const qtab_set *optimal_set(const server *s, int m)
{
    return s->optimal_sets[m] ? s->optimal_sets[m] : s->sets[m];
}

/* The robot set's size by the tables it holds (a set may lack a table its
 * size asks for: it then searches without it). */
static qtab_robot_size robot_tables_held(const qtab_set *set)
{
    const qs_tables *t = qtab_set_tables(set);
    return qs_tables_robot_large(t)   ? QTAB_ROBOT_LARGE
           : qs_tables_robot_paths(t) ? QTAB_ROBOT_MEDIUM
                                      : QTAB_ROBOT_SMALL;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void on_signal(int sig)
{
    char c = sig == SIGINT ? 'I' : 'T';
    int saved = errno;
    if (signal_pipe >= 0 && write(signal_pipe, &c, 1) < 0) {
        /* Nothing to do: the pipe is full, so a wake-up is pending. */
    }
    errno = saved;
}

/* ------------------------------------------------------------ the outbox */

static void wake_main(server *s, char c)
{
    if (write(s->wake[1], &c, 1) < 0 && errno != EAGAIN)
        qlog_write(s->log, QLOG_WARN, "wake pipe: %s", strerror(errno));
}

/* Queues a frame for the main thread (takes text, which may be NULL when
 * out of memory: the reply is then lost and logged). */
static void post(server *s, const uint8_t *identity, size_t identity_len,
                 int envelope, char *text)
{
    outmsg *m = text ? malloc(sizeof *m) : NULL;
    if (!m) {
        qlog_write(s->log, QLOG_ERROR, "out of memory: a reply is lost");
        qsv_free(text);
        return;
    }
    m->next = NULL;
    memcpy(m->identity, identity, identity_len);
    m->identity_len = identity_len;
    m->envelope = envelope;
    m->text = text;
    pthread_mutex_lock(&s->out_mu);
    if (s->out_tail)
        s->out_tail->next = m;
    else
        s->out_head = m;
    s->out_tail = m;
    pthread_mutex_unlock(&s->out_mu);
    wake_main(s, 'o');
}

/* Sends one frame to a client. A client that has gone away, or that does
 * not read its replies, loses the frame; nobody else notices. */
static void send_frame(server *s, const uint8_t *identity, size_t len,
                       int envelope, const char *text)
{
    if (zmq_send(s->router, identity, len, ZMQ_SNDMORE | ZMQ_DONTWAIT) < 0) {
        qlog_write(s->log, errno == EHOSTUNREACH ? QLOG_DEBUG : QLOG_WARN,
                   "reply dropped: %s", zmq_strerror(errno));
        return;
    }
    if (envelope)
        zmq_send(s->router, "", 0, ZMQ_SNDMORE | ZMQ_DONTWAIT);
    if (zmq_send(s->router, text, strlen(text), ZMQ_DONTWAIT) < 0)
        qlog_write(s->log, QLOG_WARN, "reply dropped: %s",
                   zmq_strerror(errno));
}

static void flush_outbox(server *s)
{
    pthread_mutex_lock(&s->out_mu);
    outmsg *m = s->out_head;
    s->out_head = s->out_tail = NULL;
    pthread_mutex_unlock(&s->out_mu);
    while (m) {
        outmsg *next = m->next;
        send_frame(s, m->identity, m->identity_len, m->envelope, m->text);
        qsv_free(m->text);
        free(m);
        m = next;
    }
}

static void post_job_error(server *s, job *j, int code, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void post_job_error(server *s, job *j, int code, const char *fmt, ...)
{
    qsv_failure f = {code, "", ""};
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(f.message, sizeof f.message, fmt, ap);
    va_end(ap);
    post(s, j->identity, j->identity_len, j->envelope,
         qsv_reply_error(j->req.id, &f));
}

/* ------------------------------------------------------------- the queue */

static int same_client(const job *a, const uint8_t *identity, size_t len)
{
    return a->identity_len == len && memcmp(a->identity, identity, len) == 0;
}

static client_queue *find_queue(server *s, const uint8_t *identity,
                                size_t len)
{
    for (client_queue *q = s->ring; q; q = q->next)
        if (same_client(q->head, identity, len))
            return q;
    return NULL;
}

static int has_running(const server *s, const uint8_t *identity, size_t len)
{
    for (int i = 0; i < s->n_workers; i++)
        if (s->running[i] && same_client(s->running[i], identity, len))
            return 1;
    return 0;
}

/* Appends j to its client's FIFO. A client new to the ring goes before
 * every client served since it joined (behind the other newcomers), so
 * that it waits for at most one solve per worker however long the
 * others' backlogs are. A client with a solve running counts as served
 * and goes to the end, as if it had stayed in the ring: sending the next
 * request while one runs must not gain it a turn. */
static int enqueue(server *s, job *j)
{
    client_queue *q = find_queue(s, j->identity, j->identity_len);
    if (!q) {
        q = calloc(1, sizeof *q);
        if (!q)
            return -1;
        client_queue **at = &s->ring;
        q->served = has_running(s, j->identity, j->identity_len);
        while (*at && (q->served || !(*at)->served))
            at = &(*at)->next;
        q->next = *at;
        *at = q;
    }
    if (q->tail)
        q->tail->next = j;
    else
        q->head = j;
    q->tail = j;
    j->next = NULL;
    q->n++;
    s->queued++;
    return 0;
}

/* Unlinks client queue q from the ring (it must be there). */
static void ring_remove(server *s, client_queue *q)
{
    client_queue **p = &s->ring;
    while (*p != q)
        p = &(*p)->next;
    *p = q->next;
    q->next = NULL;
}

/* Removes job j from its client's FIFO. */
static void dequeue(server *s, client_queue *q, job *j)
{
    job **p = &q->head;
    job *prev = NULL;
    while (*p != j) {
        prev = *p;
        p = &(*p)->next;
    }
    *p = j->next;
    if (q->tail == j)
        q->tail = prev;
    j->next = NULL;
    q->n--;
    s->queued--;
    if (!q->head) {
        ring_remove(s, q);
        free(q);
    }
}

/* The next job a worker may run: the head of the first client in the ring
 * whose tables are no longer loading; that client then goes to the back of
 * the ring. Called with mu held. */
static job *take_job(server *s)
{
    for (client_queue *q = s->ring; q; q = q->next) {
        job *j = q->head;
        if (s->tables[j->req.metric] == TABLES_LOADING)
            continue;
        ring_remove(s, q);
        client_queue **end = &s->ring;
        while (*end)
            end = &(*end)->next;
        *end = q;
        q->served = 1;
        dequeue(s, q, j); /* frees q when it was its last job */
        return j;
    }
    return NULL;
}

/* A queued or running job of this client with this id, or NULL; *queue is
 * set for a queued one. Called with mu held. */
static job *find_job(server *s, const uint8_t *identity, size_t len,
                     const char *id, client_queue **queue)
{
    *queue = NULL;
    client_queue *q = find_queue(s, identity, len);
    for (job *j = q ? q->head : NULL; j; j = j->next)
        if (strcmp(j->req.id, id) == 0) {
            *queue = q;
            return j;
        }
    for (int i = 0; i < s->n_workers; i++) {
        job *j = s->running[i];
        if (j && same_client(j, identity, len) && strcmp(j->req.id, id) == 0)
            return j;
    }
    return NULL;
}

/* ------------------------------------------------------------ the loader */

static void table_log(void *ctx, qtab_log_level level, const char *msg)
{
    server *s = ctx;
    /* A generation stopped by a shutdown is not an error. */
    if (atomic_load(&s->loader_cancel) && level != QTAB_LOG_INFO) {
        qlog_write(s->log, QLOG_INFO, "tables: %s", msg);
        return;
    }
    qlog_write(s->log,
               level == QTAB_LOG_ERROR  ? QLOG_ERROR
               : level == QTAB_LOG_WARN ? QLOG_WARN
                                        : QLOG_INFO,
               "tables: %s", msg);
}

static void *loader_main(void *arg)
{
    server *s = arg;
    /* Robot first: it is the default metric and what robots ask for. */
    static const qs_metric order[] = {QS_METRIC_ROBOT, QS_METRIC_HTM,
                                      QS_METRIC_QTM, QS_METRIC_AXHT,
                                      QS_METRIC_AXQT};
    for (int k = 0; k < QS_METRIC_COUNT; k++) {
        qs_metric m = order[k];
        if (!s->cfg->metrics[m])
            continue;
        qtab_options o;
        qtab_options_default(&o);
        o.threads = s->cfg->threads;
        o.keep_warm_ms = s->cfg->keep_warm_ms;
        o.dir = s->cfg->tables_dir;
        o.log = table_log;
        o.log_ctx = s;
        o.cancel = &s->loader_cancel;
        o.progress = 1;
        /* Only the optimal solver's metrics have a choice of size; a
         * size without the two-phase tables gets a set of its own beside
         * the small one, which serves the two-phase requests. */
        qtab_optimal_size size = QTAB_OPTIMAL_SMALL;
        if (qsv_optimal_supported(m))
            size = s->cfg->optimal_tables;
        int split = !qtab_optimal_size_two_phase(m, size);
        o.optimal = split ? QTAB_OPTIMAL_SMALL : size;
        o.robot = s->cfg->robot_tables;
        double t0 = now_ms();
        qlog_write(s->log, QLOG_INFO, "loading %s tables", qs_metric_name(m));
        qtab_set *set = NULL, *oset = NULL;
        int rc = atomic_load(&s->loader_cancel) ? QTAB_ERR_GENERATE
                                                : qtab_open(m, &o, &set);
        if (rc == QTAB_OK && split) {
            o.optimal = size;
            rc = atomic_load(&s->loader_cancel) ? QTAB_ERR_GENERATE
                                                : qtab_open(m, &o, &oset);
            if (rc != QTAB_OK) {
                qtab_close(set);
                set = NULL;
            }
        }
        pthread_mutex_lock(&s->mu);
        if (rc == QTAB_OK) {
            s->sets[m] = set;
            s->optimal_sets[m] = oset;
            s->tables[m] = TABLES_READY;
            qlog_write(s->log, QLOG_INFO, "%s tables ready in %.0f ms",
                       qs_metric_name(m), now_ms() - t0);
            /* The H48, xl and h48h7 tables exist in HTM only: QTM sets
             * never have them, and their xl and h48h7 sizes are the
             * large set. */
            int asked = (int)s->cfg->optimal_tables;
            int wanted = m == QS_METRIC_HTM ? asked
                         : qtab_optimal_size_saving(s->cfg->optimal_tables)
                             ? 0
                             : QTAB_OPTIMAL_LARGE;
            qtab_optimal_size held = optimal_tables_held(optimal_set(s, m));
            if (qsv_optimal_supported(m) && (wanted & ~(int)held))
                qlog_write(s->log, QLOG_WARN,
                           "%s: --optimal-tables %s, but the set has only "
                           "the %s tables; optimal solves use those",
                           qs_metric_name(m),
                           qtab_optimal_size_name(s->cfg->optimal_tables),
                           qtab_optimal_size_name(held));
        } else {
            s->tables[m] = TABLES_FAILED;
            snprintf(s->table_error[m], sizeof s->table_error[m], "%s",
                     atomic_load(&s->loader_cancel) ? "daemon stopping"
                                                    : qtab_strerror(rc));
            qlog_write(s->log,
                       atomic_load(&s->loader_cancel) ? QLOG_INFO : QLOG_ERROR,
                       "%s tables not loaded: %s", qs_metric_name(m),
                       s->table_error[m]);
        }
        pthread_cond_broadcast(&s->work);
        pthread_mutex_unlock(&s->mu);
        wake_main(s, 'l');
    }
    return NULL;
}

/* ------------------------------------------------------------ the workers */

/* Called from a search thread: the event goes out through the outbox
 * like every frame a worker makes. */
static void on_progress(void *ctx, const qsv_progress *p)
{
    job *j = ctx;
    server *s = j->srv;
    /* Solutions as found (optimal, all) are an in-process event. */
    if (!j->req.progress || j->envelope || p->solution)
        return;
    post(s, j->identity, j->identity_len, 0,
         qsv_reply_progress(j->req.id, p));
}

/* Runs job j and returns its final reply frame (NULL when out of
 * memory); the caller posts it. */
/* How a job's deadline is named in its DEADLINE error. */
static const char *deadline_text(const job *j, char *buf, size_t len)
{
    if (j->implicit_deadline)
        snprintf(buf, len, "the daemon's limit for requests without "
                           "deadline_ms (%d ms)",
                 j->srv->cfg->request_limit_ms);
    else
        snprintf(buf, len, "deadline_ms=%d", j->req.deadline_ms);
    return buf;
}

static char *run_job(server *s, job *j, qs_team *team, qsv_result *res)
{
    char dl[96];
    qsv_failure f = {0, "", ""};
    qsv_request req = j->req;
    double now = now_ms();
    j->started_ms = now;
    int rc;
    if (atomic_load(&j->cancel)) {
        rc = f.code = j->reason;
        if (rc == QSV_ERR_DEADLINE)
            snprintf(f.message, sizeof f.message, "%s passed while queued",
                     deadline_text(j, dl, sizeof dl));
        else
            snprintf(f.message, sizeof f.message, "%s",
                     j->shutdown ? "daemon shutting down"
                     : j->orphan ? "the client's connection closed"
                                 : "cancelled by the client");
    } else if (s->tables[req.metric] != TABLES_READY) {
        rc = f.code = QSV_ERR_UNAVAILABLE;
        snprintf(f.message, sizeof f.message, "%s tables failed to load: %s",
                 qs_metric_name(req.metric), s->table_error[req.metric]);
    } else {
        /* The search's own limit ends at the deadline at the latest;
         * the main loop cancels it there if it has nothing yet. An
         * optimal search has no time limit: only that cancel ends it. */
        int cut = 0; /* the deadline shortened the search */
        if (!req.optimal) {
            int want = qsv_request_time_ms(&req), left = want;
            if (j->deadline_at > 0)
                left = (int)(j->deadline_at - now);
            cut = left < want;
            req.time_ms = cut ? (left > 0 ? left : 1) : want;
        }
        const qs_tables *t = qtab_set_tables(
            req.optimal ? optimal_set(s, req.metric) : s->sets[req.metric]);
        rc = qsv_solve(t, &s->model, &req, s->cfg->threads, team,
                       &j->cancel, on_progress, j, res, &f);
        /* A client's cancel and a shutdown discard what the search found;
         * a deadline keeps it (the client asked for an answer by then). */
        if (rc == QSV_OK && atomic_load(&j->cancel) &&
            j->reason == QSV_ERR_CANCELLED)
            rc = QSV_ERR_CANCELLED;
        if (rc == QSV_ERR_NOT_FOUND && cut)
            rc = QSV_ERR_DEADLINE;
        if (rc == QSV_ERR_DEADLINE) {
            f.code = rc;
            snprintf(f.message, sizeof f.message, "no solution within %s",
                     deadline_text(j, dl, sizeof dl));
        } else if (rc == QSV_ERR_CANCELLED) {
            rc = f.code = j->reason ? j->reason : QSV_ERR_CANCELLED;
            f.reason[0] = '\0';
            if (j->shutdown)
                snprintf(f.message, sizeof f.message, "daemon shutting down");
            else if (rc == QSV_ERR_DEADLINE)
                snprintf(f.message, sizeof f.message,
                         "no %ssolution within %s",
                         req.optimal ? "optimal " : "",
                         deadline_text(j, dl, sizeof dl));
            else
                snprintf(f.message, sizeof f.message,
                         "cancelled by the client");
        }
    }
    char *text;
    if (rc == QSV_OK) {
        res->queue_ms = j->started_ms - j->received_ms;
        text = qsv_reply_result(j->req.id, res);
        qlog_write(s->log, QLOG_DEBUG, "solved %s: %s%s %d in %.1f ms",
                   j->req.id, qs_metric_name(req.metric),
                   req.optimal ? " optimal" : "", res->sol[0].length,
                   res->solve_ms);
    } else {
        if (rc == QSV_ERR_INTERNAL)
            qlog_write(s->log, QLOG_ERROR, "request %s: %s", j->req.id,
                       f.message);
        text = qsv_reply_error(j->req.id, &f);
    }
    return text;
}

static void *worker_main(void *arg)
{
    server *s = arg;
    qsv_result *res = malloc(sizeof *res);
    if (!res) {
        qlog_write(s->log, QLOG_ERROR, "worker: out of memory");
        return NULL;
    }
    /* This worker's search threads, kept from request to request (see
     * qs_team); without them each search starts its own. */
    qs_team *team = NULL;
    if (s->cfg->threads > 1 &&
        qs_team_create(s->cfg->threads, &team) != QS_OK)
        qlog_write(s->log, QLOG_WARN,
                   "worker: search threads not kept between requests");
    for (;;) {
        pthread_mutex_lock(&s->mu);
        job *j = NULL;
        while (!(j = take_job(s)) && !s->stopping)
            pthread_cond_wait(&s->work, &s->mu);
        if (!j) {
            pthread_mutex_unlock(&s->mu);
            break;
        }
        int i = 0;
        while (s->running[i])
            i++;
        s->running[i] = j;
        s->n_running++;
        pthread_mutex_unlock(&s->mu);

        char *reply = run_job(s, j, team, res);

        /* Off the running list before the reply can reach the client, so
         * that its next request may reuse the id at once. */
        pthread_mutex_lock(&s->mu);
        s->running[i] = NULL;
        s->n_running--;
        s->served++;
        int orphan = j->orphan;
        pthread_mutex_unlock(&s->mu);
        if (orphan) {
            /* Its client is gone; the main loop still hears that a
             * worker is free (a stopping daemon waits for that). */
            qsv_free(reply);
            wake_main(s, 'w');
        } else
            post(s, j->identity, j->identity_len, j->envelope, reply);
        free(j);
    }
    qs_team_free(team);
    free(res);
    return NULL;
}

/* --------------------------------------------------------- the main loop */

static void reply_now(server *s, const uint8_t *identity, size_t len,
                      int envelope, char *text)
{
    if (!text) {
        qlog_write(s->log, QLOG_ERROR, "out of memory: a reply is lost");
        return;
    }
    send_frame(s, identity, len, envelope, text);
    qsv_free(text);
}

static void reply_failure(server *s, const uint8_t *identity, size_t len,
                          int envelope, const char *id, const qsv_failure *f)
{
    qlog_write(s->log, QLOG_DEBUG, "request %s refused: %s: %s", id,
               qsv_errcode(f->code), f->message);
    reply_now(s, identity, len, envelope, qsv_reply_error(id, f));
}

static char *status_reply(server *s, const char *id)
{
    static const char *names[] = {"loading", "ready", "failed"};
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON *idv = cJSON_Parse(id);
    cJSON_AddItemToObject(o, "id", idv ? idv : cJSON_CreateNull());
    cJSON_AddStringToObject(o, "type", "status");
    pthread_mutex_lock(&s->mu);
    int loading = 0, failed = 0;
    cJSON *tables = cJSON_CreateObject();
    for (int m = 0; m < QS_METRIC_COUNT; m++) {
        if (!s->cfg->metrics[m])
            continue;
        loading |= s->tables[m] == TABLES_LOADING;
        failed |= s->tables[m] == TABLES_FAILED;
        cJSON_AddStringToObject(tables, qs_metric_name((qs_metric)m),
                                names[s->tables[m]]);
    }
    cJSON_AddStringToObject(o, "state",
                            s->stopping ? "stopping"
                            : loading   ? "loading"
                            : failed    ? "degraded"
                                        : "ready");
    cJSON_AddItemToObject(o, "tables", tables);
    /* The optimal solver's table size per ready htm/qtm set (the robot
     * optimum has one size): what an optimal request will get. */
    cJSON *optimal = cJSON_CreateObject();
    for (int m = 0; m < QS_METRIC_COUNT; m++)
        if (s->cfg->metrics[m] &&
            (m == QS_METRIC_HTM || m == QS_METRIC_QTM) &&
            s->tables[m] == TABLES_READY)
            cJSON_AddStringToObject(
                optimal, qs_metric_name((qs_metric)m),
                qtab_optimal_size_name(optimal_tables_held(optimal_set(s, m))));
    cJSON_AddItemToObject(o, "optimal_tables", optimal);
    /* The robot search's table size, once its set is ready. */
    if (s->cfg->metrics[QS_METRIC_ROBOT] &&
        s->tables[QS_METRIC_ROBOT] == TABLES_READY)
        cJSON_AddStringToObject(
            o, "robot_tables",
            qtab_robot_size_name(
                robot_tables_held(s->sets[QS_METRIC_ROBOT])));
    cJSON_AddStringToObject(o, "version", QS_VERSION);
    cJSON_AddNumberToObject(o, "threads", s->cfg->threads);
    cJSON_AddNumberToObject(o, "workers", s->n_workers);
    cJSON_AddNumberToObject(o, "queue_depth", s->queued);
    cJSON_AddNumberToObject(o, "queue_limit", s->cfg->queue);
    cJSON_AddNumberToObject(o, "running", s->n_running);
    cJSON_AddNumberToObject(o, "served", (double)s->served);
    /* The thread keeping the tables warm (--keep-warm): its sweeps over
     * every set held so far and what they cost. */
    uint64_t sweeps = 0;
    double sweep_s = 0;
    int keepers = 0;
    for (int m = 0; m < QS_METRIC_COUNT; m++) {
        const qtab_set *held[2] = {s->sets[m], s->optimal_sets[m]};
        for (int i = 0; i < 2; i++) {
            qtab_stats st;
            if (!held[i])
                continue;
            qtab_set_stats(held[i], &st);
            sweeps += st.warm_sweeps;
            sweep_s += st.warm_seconds;
            keepers += st.warm_threads;
        }
    }
    cJSON *warm = cJSON_CreateObject();
    cJSON_AddNumberToObject(warm, "period_ms", s->cfg->keep_warm_ms);
    /* The period is the one asked for; a keeper that failed to start is
     * only logged, so the threads running say whether it is kept. */
    cJSON_AddNumberToObject(warm, "threads", keepers);
    cJSON_AddNumberToObject(warm, "sweeps", (double)sweeps);
    cJSON_AddNumberToObject(warm, "seconds", floor(sweep_s * 1e3 + 0.5) / 1e3);
    cJSON_AddItemToObject(o, "keep_warm", warm);
    pthread_mutex_unlock(&s->mu);
    cJSON_AddNumberToObject(
        o, "uptime_s",
        floor((now_ms() - s->start_ms) + 0.5) / 1000.0);
    cJSON_AddStringToObject(o, "endpoint", s->endpoint);
    char *text = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return text;
}

static void handle_request(server *s, const uint8_t *identity, size_t idlen,
                           int envelope, int srcfd, const char *frame,
                           size_t len)
{
    qsv_request *req = malloc(sizeof *req);
    if (!req) {
        qlog_write(s->log, QLOG_ERROR, "out of memory: a request is dropped");
        return;
    }
    qsv_failure f = {0, "", ""};
    int rc = qsv_request_parse(frame, len, req, &f);
    if (rc != QSV_OK) {
        reply_failure(s, identity, idlen, envelope, req->id, &f);
        free(req);
        return;
    }
    switch (req->op) {
    case QSV_OP_PING:
        reply_now(s, identity, idlen, envelope, qsv_reply_pong(req->id));
        break;
    case QSV_OP_STATUS:
        reply_now(s, identity, idlen, envelope, status_reply(s, req->id));
        break;
    case QSV_OP_CANCEL: {
        client_queue *q;
        pthread_mutex_lock(&s->mu);
        job *j = find_job(s, identity, idlen, req->target, &q);
        if (j && q) {
            dequeue(s, q, j);
        } else if (j && !atomic_load(&j->cancel)) {
            j->reason = QSV_ERR_CANCELLED;
            atomic_store(&j->cancel, 1);
        }
        pthread_mutex_unlock(&s->mu);
        if (j && q) {
            j->reason = QSV_ERR_CANCELLED;
            post_job_error(s, j, QSV_ERR_CANCELLED, "cancelled by the client");
            free(j);
        }
        reply_now(s, identity, idlen, envelope,
                  qsv_reply_cancel(req->id, req->target, j != NULL));
        break;
    }
    case QSV_OP_SOLVE: {
        f.reason[0] = '\0';
        if (!s->cfg->metrics[req->metric]) {
            f.code = QSV_ERR_UNAVAILABLE;
            snprintf(f.message, sizeof f.message,
                     "this daemon does not serve metric %s (see --metrics)",
                     qs_metric_name(req->metric));
            reply_failure(s, identity, idlen, envelope, req->id, &f);
            break;
        }
        /* A bad cube is answered at once, without queueing. */
        qs_cube cube;
        if (qsv_request_cube(req, &cube, &f) != QSV_OK) {
            reply_failure(s, identity, idlen, envelope, req->id, &f);
            break;
        }
        job *j = calloc(1, sizeof *j);
        if (!j) {
            f.code = QSV_ERR_INTERNAL;
            snprintf(f.message, sizeof f.message, "out of memory");
            reply_failure(s, identity, idlen, envelope, req->id, &f);
            break;
        }
        j->srv = s;
        memcpy(j->identity, identity, idlen);
        j->identity_len = idlen;
        j->envelope = envelope;
        j->req = *req;
        j->received_ms = now_ms();
        j->srcfd = srcfd;
        if (req->deadline_ms > 0) {
            j->deadline_at = j->received_ms + req->deadline_ms;
        } else if (s->cfg->request_limit_ms > 0) {
            j->deadline_at = j->received_ms + s->cfg->request_limit_ms;
            j->implicit_deadline = 1;
        }
        client_queue *q;
        int mine = 0;
        pthread_mutex_lock(&s->mu);
        if (s->stopping) {
            f.code = QSV_ERR_CANCELLED;
            snprintf(f.message, sizeof f.message, "daemon shutting down");
        } else if (s->tables[req->metric] == TABLES_FAILED) {
            f.code = QSV_ERR_UNAVAILABLE;
            snprintf(f.message, sizeof f.message,
                     "%s tables failed to load: %s",
                     qs_metric_name(req->metric),
                     s->table_error[req->metric]);
        } else if ((q = find_queue(s, identity, idlen)) != NULL &&
                   (mine = q->n) >= s->cfg->client_queue) {
            f.code = QSV_ERR_BUSY;
            snprintf(f.message, sizeof f.message,
                     "this client has %d requests waiting, the most one "
                     "client may queue (--client-queue)",
                     mine);
        } else if (s->queued >= s->cfg->queue) {
            f.code = QSV_ERR_BUSY;
            snprintf(f.message, sizeof f.message,
                     "queue full (%d requests waiting)", s->queued);
        } else if (find_job(s, identity, idlen, req->id, &q)) {
            f.code = QSV_ERR_BAD_REQUEST;
            snprintf(f.reason, sizeof f.reason, "DUPLICATE_ID");
            /* Quoted: a cut of the id's text could split a character. */
            char shown[80];
            snprintf(f.message, sizeof f.message,
                     "id %s is already used by a request in flight",
                     qs_text_quote(req->id, strlen(req->id), shown,
                                   sizeof shown));
        } else if (enqueue(s, j) != 0) {
            f.code = QSV_ERR_INTERNAL;
            snprintf(f.message, sizeof f.message, "out of memory");
        }
        int position = s->queued;
        if (!f.code)
            pthread_cond_signal(&s->work);
        pthread_mutex_unlock(&s->mu);
        if (f.code) {
            reply_failure(s, identity, idlen, envelope, req->id, &f);
            free(j);
        } else if (!envelope) {
            reply_now(s, identity, idlen, 0,
                      qsv_reply_accepted(req->id, position));
        }
        break;
    }
    }
    free(req);
}

static void note_connection(server *s, int fd, const uint8_t *identity,
                            size_t idlen);
static void drain_monitor(server *s);
static int from_earlier_connection(const server *s, int fd,
                                   const uint8_t *identity, size_t idlen);

/* Receives one whole message from the ROUTER (identity, an optional empty
 * delimiter, the request) and handles it. Returns 0 when there was none. */
static int receive_one(server *s, char *frame)
{
    uint8_t identity[MAX_IDENTITY];
    zmq_msg_t msg;
    zmq_msg_init(&msg);
    if (zmq_msg_recv(&msg, s->router, ZMQ_DONTWAIT) < 0) {
        zmq_msg_close(&msg);
        return 0;
    }
    /* The connection the message came on (known on the frames that came
     * over the wire, not on the identity the ROUTER adds): a request's
     * work is cancelled when it closes (see drain_monitor). */
    int srcfd = -1;
    size_t idlen = zmq_msg_size(&msg);
    if (idlen > MAX_IDENTITY)
        idlen = MAX_IDENTITY; /* cannot happen: ZeroMQ caps it at 255 */
    memcpy(identity, zmq_msg_data(&msg), idlen);
    int parts = 0, envelope = 0, oversize = 0;
    size_t len = 0, first_size = 0;
    while (zmq_msg_more(&msg)) {
        zmq_msg_close(&msg);
        zmq_msg_init(&msg);
        if (zmq_msg_recv(&msg, s->router, 0) < 0)
            break;
        size_t n = zmq_msg_size(&msg);
        if (srcfd < 0)
            srcfd = zmq_msg_get(&msg, ZMQ_SRCFD);
        if (parts == 0 && n == 0 && !envelope) {
            envelope = 1; /* REQ's empty delimiter */
            continue;
        }
        if (parts == 0) {
            first_size = n;
            if (n > QSV_MAX_FRAME)
                oversize = 1;
            else
                memcpy(frame, zmq_msg_data(&msg), n);
            len = n;
        }
        parts++;
    }
    zmq_msg_close(&msg);
    if (envelope && parts == 0) {
        /* A lone empty frame is an empty request from a DEALER, not a REQ
         * envelope around nothing. */
        envelope = 0;
        parts = 1;
        len = 0;
    }
    /* A client may send and close at once, and its request then be read
     * after the close was reported, when that connection's work has
     * already been cancelled: nobody is left to answer, and a search
     * started now would hold a worker with nothing to cancel it. The
     * monitor is read first (see drain_monitor for why that is enough). */
    drain_monitor(s);
    if ((srcfd >= 0 && srcfd < MAX_TRACKED_FD && s->conn[srcfd].closed) ||
        from_earlier_connection(s, srcfd, identity, idlen)) {
        qlog_write(s->log, QLOG_DEBUG,
                   "a request from a closed connection is dropped");
        return 1;
    }
    qsv_failure f = {0, "", ""};
    if (parts != 1 || oversize) {
        if (oversize) {
            f.code = QSV_ERR_TOO_LARGE;
            snprintf(f.message, sizeof f.message,
                     "request frame is %zu bytes; at most %d", first_size,
                     QSV_MAX_FRAME);
        } else {
            f.code = QSV_ERR_BAD_REQUEST;
            snprintf(f.message, sizeof f.message,
                     "a request is exactly one frame; got %d", parts);
        }
        reply_failure(s, identity, idlen, envelope, "null", &f);
        return 1;
    }
    note_connection(s, srcfd, identity, idlen);
    handle_request(s, identity, idlen, envelope, srcfd, frame, len);
    return 1;
}

/* Cancels what has passed its deadline; returns ms until the next
 * deadline (or -1 when there is none). */
static int enforce_deadlines(server *s)
{
    double now = now_ms(), next = -1;
    job *expired = NULL;
    pthread_mutex_lock(&s->mu);
    for (client_queue *q = s->ring, *qn; q; q = qn) {
        qn = q->next;
        for (job *j = q->head, *jn; j; j = jn) {
            jn = j->next;
            if (j->deadline_at <= 0)
                continue;
            if (j->deadline_at <= now) {
                dequeue(s, q, j); /* may free q: qn was read first */
                j->next = expired;
                expired = j;
            } else if (next < 0 || j->deadline_at < next) {
                next = j->deadline_at;
            }
        }
    }
    for (int i = 0; i < s->n_workers; i++) {
        job *j = s->running[i];
        if (!j || j->deadline_at <= 0 || atomic_load(&j->cancel))
            continue;
        if (j->deadline_at <= now) {
            j->reason = QSV_ERR_DEADLINE;
            atomic_store(&j->cancel, 1);
        } else if (next < 0 || j->deadline_at < next) {
            next = j->deadline_at;
        }
    }
    pthread_mutex_unlock(&s->mu);
    while (expired) {
        job *j = expired;
        expired = j->next;
        char dl[96];
        post_job_error(s, j, QSV_ERR_DEADLINE, "%s passed while queued",
                       deadline_text(j, dl, sizeof dl));
        free(j);
    }
    return next < 0 ? -1 : (int)(next - now) + 1;
}

/* A client connection has closed: nobody is left to read what its
 * requests would answer, so the queued ones are dropped and the running
 * ones cancelled (an orphaned optimal solve would otherwise hold a worker
 * for as long as it searches). Called from the main loop. */
static void cancel_connection(server *s, int fd, const uint8_t *identity,
                              size_t idlen)
{
    int dropped = 0, stopped = 0;
    job *gone = NULL;
    pthread_mutex_lock(&s->mu);
    for (client_queue *q = s->ring, *qn; q; q = qn) {
        qn = q->next;
        for (job *j = q->head, *jn; j; j = jn) {
            jn = j->next;
            if (j->srcfd != fd ||
                (identity && !same_client(j, identity, idlen)))
                continue;
            dequeue(s, q, j); /* may free q: qn was read first */
            j->next = gone;
            gone = j;
            dropped++;
        }
    }
    for (int i = 0; i < s->n_workers; i++) {
        job *j = s->running[i];
        if (!j || j->srcfd != fd || j->orphan ||
            (identity && !same_client(j, identity, idlen)))
            continue;
        j->orphan = 1;
        if (!atomic_load(&j->cancel)) {
            j->reason = QSV_ERR_CANCELLED;
            atomic_store(&j->cancel, 1);
        }
        stopped++;
    }
    pthread_mutex_unlock(&s->mu);
    while (gone) {
        job *j = gone;
        gone = j->next;
        free(j);
    }
    if (dropped || stopped)
        qlog_write(s->log, QLOG_INFO,
                   "a client connection closed: %d queued request(s) dropped, "
                   "%d running cancelled",
                   dropped, stopped);
}

/* The descriptor's current connection has closed: its identity joins
 * the earlier ones. */
static void remember_earlier(server *s, int fd)
{
    memmove(s->conn[fd].earlier[1], s->conn[fd].earlier[0],
            sizeof s->conn[fd].earlier[0] * (EARLIER_IDS - 1));
    memmove(&s->conn[fd].earlier_len[1], &s->conn[fd].earlier_len[0],
            EARLIER_IDS - 1);
    memcpy(s->conn[fd].earlier[0], s->conn[fd].identity, s->conn[fd].len);
    s->conn[fd].earlier_len[0] = s->conn[fd].len;
}

/* Whether a request that came on descriptor fd with this identity belongs
 * to a connection of fd that has closed: the ROUTER queues each
 * connection apart and reads them in turn, so a request sent just before
 * its connection closed can be read after the close was reported and a
 * new connection accepted on the same descriptor (whose accept cleared
 * fd's closed flag), even after that one's first request. Only identities
 * the ROUTER generated are judged (they begin with a zero byte, which
 * ZeroMQ forbids to identities a peer sets, and are never given twice);
 * a peer that sets its own may reconnect with it. */
static int from_earlier_connection(const server *s, int fd,
                                   const uint8_t *identity, size_t idlen)
{
    if (fd < 0 || fd >= MAX_TRACKED_FD || idlen == 0 || identity[0] != 0 ||
        (s->conn[fd].len == idlen &&
         memcmp(s->conn[fd].identity, identity, idlen) == 0))
        return 0;
    for (int i = 0; i < EARLIER_IDS; i++)
        if (s->conn[fd].earlier_len[i] == idlen &&
            memcmp(s->conn[fd].earlier[i], identity, idlen) == 0)
            return 1;
    return 0;
}

/* Called for each request with the descriptor it came on. A descriptor
 * is reused as soon as its connection closes, and the request of a new
 * connection can be read before the monitor's event about the old one:
 * so a new identity on a descriptor means its previous connection is
 * gone. That connection's work is cancelled here and its disconnect
 * event, when it comes, is known to be stale; an event that is not
 * cancels the current connection's work. */
static void note_connection(server *s, int fd, const uint8_t *identity,
                            size_t idlen)
{
    if (fd < 0 || fd >= MAX_TRACKED_FD)
        return;
    if (s->conn[fd].len &&
        (s->conn[fd].len != idlen ||
         memcmp(s->conn[fd].identity, identity, idlen) != 0)) {
        cancel_connection(s, fd, s->conn[fd].identity, s->conn[fd].len);
        s->conn[fd].stale_events++;
        remember_earlier(s, fd);
    }
    memcpy(s->conn[fd].identity, identity, idlen);
    s->conn[fd].len = (uint8_t)idlen;
}

/* Reads the router's monitor events: a disconnect cancels that
 * connection's requests and marks its descriptor closed until an accept
 * gives it to a new connection. Drained before each batch of requests
 * and again after each request is read (receive_one): libzmq reports a
 * connection's accept before any of its messages can be read and its
 * disconnect before its descriptor can be reused, so once this has run,
 * a request's descriptor says whether the connection it came on is still
 * open, and an event about a closed connection is handled before the
 * requests of a new connection given the same descriptor. */
static void drain_monitor(server *s)
{
    for (;;) {
        zmq_msg_t ev, addr;
        zmq_msg_init(&ev);
        if (zmq_msg_recv(&ev, s->monitor, ZMQ_DONTWAIT) < 0) {
            zmq_msg_close(&ev);
            return;
        }
        /* Two frames: event number (16 bits) and value (32 bits, the
         * descriptor), then the endpoint. */
        uint16_t event = 0;
        uint32_t value = 0;
        if (zmq_msg_size(&ev) >= 6) {
            memcpy(&event, zmq_msg_data(&ev), 2);
            memcpy(&value, (const char *)zmq_msg_data(&ev) + 2, 4);
        }
        int more = zmq_msg_more(&ev);
        zmq_msg_close(&ev);
        if (more) {
            zmq_msg_init(&addr);
            zmq_msg_recv(&addr, s->monitor, 0);
            zmq_msg_close(&addr);
        }
        qlog_write(s->log, QLOG_DEBUG, "socket event %u on descriptor %u",
                   (unsigned)event, (unsigned)value);
        int fd = (int)value;
        if (event == ZMQ_EVENT_ACCEPTED && fd >= 0 && fd < MAX_TRACKED_FD)
            s->conn[fd].closed = 0;
        if (event != ZMQ_EVENT_DISCONNECTED)
            continue;
        if (fd >= 0 && fd < MAX_TRACKED_FD)
            s->conn[fd].closed = 1;
        if (fd < 0 || fd >= MAX_TRACKED_FD) {
            cancel_connection(s, fd, NULL, 0);
        } else if (s->conn[fd].stale_events > 0) {
            s->conn[fd].stale_events--; /* handled in note_connection */
        } else if (s->conn[fd].len) {
            cancel_connection(s, fd, s->conn[fd].identity, s->conn[fd].len);
            remember_earlier(s, fd);
            s->conn[fd].len = 0;
        }
    }
}

/* Answers everything queued with CANCELLED and cancels what runs. */
static void begin_shutdown(server *s)
{
    job *all = NULL;
    pthread_mutex_lock(&s->mu);
    if (s->stopping) {
        pthread_mutex_unlock(&s->mu);
        return;
    }
    s->stopping = 1;
    atomic_store(&s->loader_cancel, 1);
    while (s->ring) {
        job *j = s->ring->head;
        dequeue(s, s->ring, j);
        j->next = all;
        all = j;
    }
    for (int i = 0; i < s->n_workers; i++) {
        job *j = s->running[i];
        if (j) {
            j->shutdown = 1;
            j->reason = QSV_ERR_CANCELLED;
            atomic_store(&j->cancel, 1);
        }
    }
    pthread_cond_broadcast(&s->work);
    int running = s->n_running;
    pthread_mutex_unlock(&s->mu);
    int n = 0;
    while (all) {
        job *j = all;
        all = j->next;
        post_job_error(s, j, QSV_ERR_CANCELLED, "daemon shutting down");
        free(j);
        n++;
    }
    qlog_write(s->log, QLOG_INFO,
               "stopping: %d queued request(s) cancelled, %d running", n,
               running);
}

/* ------------------------------------------------------------------ CURVE */

/* Reads a 40-character Z85 key from the first line of a file. */
static int read_key(const char *path, char key[41])
{
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    char line[128];
    int ok = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    if (!ok)
        return -1;
    line[strcspn(line, " \t\r\n")] = '\0';
    if (strlen(line) != 40)
        return -1;
    uint8_t raw[32];
    if (!zmq_z85_decode(raw, line))
        return -1;
    memcpy(key, line, 41);
    return 0;
}

typedef struct {
    server *srv;
    uint8_t (*keys)[32];
    int n_keys;
    atomic_int ready; /* 1 bound, -1 failed */
} zap_ctx;

/* The ZAP handler (RFC 27): lets in CURVE clients whose public key is one
 * of the files in --curve-clients. */
static void *zap_main(void *arg)
{
    zap_ctx *z = arg;
    const server *s = z->srv;
    void *sock = zmq_socket(s->zctx, ZMQ_REP);
    if (!sock || zmq_bind(sock, "inproc://zeromq.zap.01") != 0) {
        qlog_write(s->log, QLOG_ERROR, "ZAP handler: %s", zmq_strerror(errno));
        if (sock)
            zmq_close(sock);
        atomic_store(&z->ready, -1);
        return NULL;
    }
    atomic_store(&z->ready, 1);
    for (;;) {
        char part[7][256];
        size_t size[7];
        int n = 0, more = 1, ok = 1;
        while (more) {
            int len = zmq_recv(sock, n < 7 ? part[n] : part[6], 256, 0);
            if (len < 0) {
                if (errno == ETERM) {
                    zmq_close(sock);
                    free(z->keys);
                    free(z);
                    return NULL;
                }
                ok = 0;
                break;
            }
            if (n < 7)
                size[n] = (size_t)len;
            n++;
            size_t sz = sizeof more;
            zmq_getsockopt(sock, ZMQ_RCVMORE, &more, &sz);
        }
        if (!ok || n < 6)
            continue;
        int allowed = 0;
        if (n >= 7 && size[5] == 5 && memcmp(part[5], "CURVE", 5) == 0 &&
            size[6] == 32)
            for (int i = 0; i < z->n_keys && !allowed; i++)
                allowed = memcmp(z->keys[i], part[6], 32) == 0;
        char client[41] = "?";
        if (n >= 7 && size[6] == 32)
            zmq_z85_encode(client, (uint8_t *)part[6], 32);
        qlog_write(s->log, allowed ? QLOG_DEBUG : QLOG_WARN,
                   "CURVE client %s %s", client,
                   allowed ? "accepted" : "refused");
        zmq_send(sock, "1.0", 3, ZMQ_SNDMORE);
        zmq_send(sock, part[1], size[1] < 256 ? size[1] : 255, ZMQ_SNDMORE);
        zmq_send(sock, allowed ? "200" : "400", 3, ZMQ_SNDMORE);
        zmq_send(sock, allowed ? "OK" : "unknown client key",
                 allowed ? 2 : 18, ZMQ_SNDMORE);
        zmq_send(sock, allowed ? client : "", allowed ? 40 : 0, ZMQ_SNDMORE);
        zmq_send(sock, "", 0, 0);
    }
}

static int setup_curve(server *s)
{
    const qsd_config *cfg = s->cfg;
    if (!cfg->curve_secret) {
        if (cfg->curve_clients) {
            qlog_write(s->log, QLOG_ERROR,
                       "--curve-clients needs --curve-secret");
            return -1;
        }
        return 0;
    }
    if (!zmq_has("curve")) {
        qlog_write(s->log, QLOG_ERROR, "this libzmq was built without CURVE");
        return -1;
    }
    char secret[41], public[41];
    if (read_key(cfg->curve_secret, secret) != 0) {
        qlog_write(s->log, QLOG_ERROR,
                   "--curve-secret %s: no 40-character Z85 key on its first "
                   "line",
                   cfg->curve_secret);
        return -1;
    }
    if (zmq_curve_public(public, secret) != 0) {
        qlog_write(s->log, QLOG_ERROR,
                   "--curve-secret: not a valid secret key");
        return -1;
    }
    int one = 1;
    zmq_setsockopt(s->router, ZMQ_CURVE_SERVER, &one, sizeof one);
    zmq_setsockopt(s->router, ZMQ_CURVE_SECRETKEY, secret, 40);
    qlog_write(s->log, QLOG_INFO, "CURVE on; server public key %s", public);
    if (!cfg->curve_clients) {
        qlog_write(s->log, QLOG_WARN,
                   "CURVE without --curve-clients: any client that knows the "
                   "server key may connect");
        return 0;
    }
    zap_ctx *z = calloc(1, sizeof *z);
    DIR *dir = z ? opendir(cfg->curve_clients) : NULL;
    if (!dir) {
        qlog_write(s->log, QLOG_ERROR, "--curve-clients %s: %s",
                   cfg->curve_clients, strerror(errno));
        free(z);
        return -1;
    }
    z->srv = s;
    struct dirent *e;
    while ((e = readdir(dir)) != NULL) {
        if (e->d_name[0] == '.')
            continue;
        char path[4096], key[41];
        snprintf(path, sizeof path, "%s/%s", cfg->curve_clients, e->d_name);
        if (read_key(path, key) != 0) {
            qlog_write(s->log, QLOG_WARN,
                       "--curve-clients: %s holds no key; ignored", path);
            continue;
        }
        void *grown = realloc(z->keys, (size_t)(z->n_keys + 1) * 32);
        if (!grown)
            break;
        z->keys = grown;
        zmq_z85_decode(z->keys[z->n_keys++], key);
    }
    closedir(dir);
    qlog_write(s->log, QLOG_INFO, "CURVE: %d client key(s) allowed",
               z->n_keys);
    if (pthread_create(&s->zap, NULL, zap_main, z) != 0) {
        free(z->keys);
        free(z);
        return -1;
    }
    s->zap_running = 1;
    /* The handler must be bound before a client can connect, or that
     * client's handshake would find no handler and be let in. */
    while (atomic_load(&z->ready) == 0) {
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
    if (atomic_load(&z->ready) < 0) {
        pthread_join(s->zap, NULL);
        s->zap_running = 0;
        free(z->keys);
        free(z);
        return -1;
    }
    int domain_ok = zmq_setsockopt(s->router, ZMQ_ZAP_DOMAIN, "quadsolved",
                                   10) == 0;
    return domain_ok ? 0 : -1;
}

/* -------------------------------------------------------------- serving */

/* tcp://HOST:0 asks for any free port; ZeroMQ spells that "*". */
static void endpoint_for_bind(const char *in, char *out, size_t len)
{
    size_t n = strlen(in);
    if (strncmp(in, "tcp://", 6) == 0 && n > 2 &&
        strcmp(in + n - 2, ":0") == 0)
        snprintf(out, len, "%.*s:*", (int)(n - 2), in);
    else
        snprintf(out, len, "%s", in);
}

static int open_socket(server *s)
{
    s->zctx = zmq_ctx_new();
    s->router = s->zctx ? zmq_socket(s->zctx, ZMQ_ROUTER) : NULL;
    if (!s->router) {
        qlog_write(s->log, QLOG_ERROR, "cannot create a ZeroMQ socket: %s",
                   zmq_strerror(errno));
        return -1;
    }
    int one = 1, linger = 1000, sndhwm = SEND_HWM, rcvhwm = RECEIVE_HWM;
    int64_t maxmsg = HARD_FRAME_LIMIT;
    zmq_setsockopt(s->router, ZMQ_ROUTER_MANDATORY, &one, sizeof one);
    zmq_setsockopt(s->router, ZMQ_LINGER, &linger, sizeof linger);
    zmq_setsockopt(s->router, ZMQ_SNDHWM, &sndhwm, sizeof sndhwm);
    zmq_setsockopt(s->router, ZMQ_RCVHWM, &rcvhwm, sizeof rcvhwm);
    zmq_setsockopt(s->router, ZMQ_MAXMSGSIZE, &maxmsg, sizeof maxmsg);
    if (setup_curve(s) != 0)
        return -1;
    char ep[512];
    endpoint_for_bind(s->cfg->bind, ep, sizeof ep);
    if (zmq_bind(s->router, ep) != 0) {
        qlog_write(s->log, QLOG_ERROR, "cannot bind %s: %s", s->cfg->bind,
                   zmq_strerror(errno));
        return -1;
    }
    size_t len = sizeof s->endpoint;
    zmq_getsockopt(s->router, ZMQ_LAST_ENDPOINT, s->endpoint, &len);
    /* Accepts and disconnects, to cancel the work of clients that are
     * gone. */
    char mon[64];
    snprintf(mon, sizeof mon, "inproc://quadsolved-monitor-%p", (void *)s);
    s->monitor = zmq_socket(s->zctx, ZMQ_PAIR);
    if (!s->monitor ||
        zmq_socket_monitor(s->router, mon,
                           ZMQ_EVENT_ACCEPTED | ZMQ_EVENT_DISCONNECTED) !=
            0 ||
        zmq_connect(s->monitor, mon) != 0) {
        qlog_write(s->log, QLOG_ERROR, "cannot monitor the socket: %s",
                   zmq_strerror(errno));
        return -1;
    }
    return 0;
}

static int start_threads(server *s)
{
    s->running = calloc((size_t)s->cfg->workers, sizeof *s->running);
    s->workers = calloc((size_t)s->cfg->workers, sizeof *s->workers);
    if (!s->running || !s->workers)
        return -1;
    for (int i = 0; i < s->cfg->workers; i++)
        if (pthread_create(&s->workers[s->n_workers], NULL, worker_main, s) ==
            0)
            s->n_workers++;
    if (pthread_create(&s->loader, NULL, loader_main, s) != 0) {
        qlog_write(s->log, QLOG_ERROR, "cannot start the table loader");
        return -1;
    }
    s->loader_running = 1;
    return s->n_workers > 0 ? 0 : -1;
}

int qsd_serve(const qsd_config *cfg)
{
    server *s = calloc(1, sizeof *s);
    if (!s)
        return 1;
    s->cfg = cfg;
    s->log = &cfg->log;
    s->start_ms = now_ms();
    robot_model_init(&s->model);
    pthread_mutex_init(&s->mu, NULL);
    pthread_mutex_init(&s->out_mu, NULL);
    pthread_cond_init(&s->work, NULL);
    if (pipe(s->wake) != 0) {
        qlog_write(s->log, QLOG_ERROR, "pipe: %s", strerror(errno));
        return 1;
    }
    for (int i = 0; i < 2; i++)
        fcntl(s->wake[i], F_SETFL, fcntl(s->wake[i], F_GETFL) | O_NONBLOCK);
    signal_pipe = s->wake[1];
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    int status = 0;
    char *frame = malloc(QSV_MAX_FRAME + 1);
    if (!frame || open_socket(s) != 0) {
        status = 1;
        goto out;
    }
    printf("listening %s\n", s->endpoint);
    fflush(stdout);
    qlog_write(s->log, QLOG_INFO,
               "quadsolved %s listening on %s (%d worker(s) x %d thread(s), "
               "queue %d)",
               QS_VERSION, s->endpoint, cfg->workers, cfg->threads,
               cfg->queue);
    if (start_threads(s) != 0) {
        status = 1;
        begin_shutdown(s);
    }

    while (status == 0) {
        int timeout = enforce_deadlines(s);
        zmq_pollitem_t items[3] = {{s->router, 0, ZMQ_POLLIN, 0},
                                   {NULL, s->wake[0], ZMQ_POLLIN, 0},
                                   {s->monitor, 0, ZMQ_POLLIN, 0}};
        int n = zmq_poll(items, 3, timeout);
        if (n < 0 && errno != EINTR) {
            qlog_write(s->log, QLOG_ERROR, "poll: %s", zmq_strerror(errno));
            status = 1;
            begin_shutdown(s);
        }
        if (n > 0 && (items[1].revents & ZMQ_POLLIN)) {
            char buf[64];
            ssize_t got;
            while ((got = read(s->wake[0], buf, sizeof buf)) > 0)
                for (ssize_t i = 0; i < got; i++)
                    if (buf[i] == 'T' || buf[i] == 'I') {
                        qlog_write(s->log, QLOG_INFO, "%s received",
                                   buf[i] == 'T' ? "SIGTERM" : "SIGINT");
                        begin_shutdown(s);
                    }
        }
        /* A bounded batch, so replies and deadlines are never starved by
         * a flood of requests. */
        drain_monitor(s);
        for (int k = 0; k < 256 && receive_one(s, frame); k++) {
        }
        flush_outbox(s);
        pthread_mutex_lock(&s->mu);
        int done = s->stopping && s->n_running == 0;
        pthread_mutex_unlock(&s->mu);
        if (done)
            break;
    }

    begin_shutdown(s); /* no-op after a signal; else stops the threads */
    for (int i = 0; i < s->n_workers; i++)
        pthread_join(s->workers[i], NULL);
    flush_outbox(s);
    if (s->loader_running)
        pthread_join(s->loader, NULL);
    qlog_write(s->log, QLOG_INFO, "stopped after %lu request(s)", s->served);

out:
    signal_pipe = -1;
    if (s->monitor) {
        zmq_socket_monitor(s->router, NULL, 0);
        zmq_close(s->monitor);
    }
    if (s->router)
        zmq_close(s->router);
    if (s->zctx) {
        zmq_ctx_shutdown(s->zctx);
        if (s->zap_running)
            pthread_join(s->zap, NULL);
        zmq_ctx_term(s->zctx);
    }
    for (int m = 0; m < QS_METRIC_COUNT; m++) {
        qtab_close(s->sets[m]);
        qtab_close(s->optimal_sets[m]);
    }
    free(frame);
    free(s->running);
    free(s->workers);
    pthread_mutex_destroy(&s->mu);
    pthread_mutex_destroy(&s->out_mu);
    pthread_cond_destroy(&s->work);
    close(s->wake[0]);
    close(s->wake[1]);
    free(s);
    return status;
}
