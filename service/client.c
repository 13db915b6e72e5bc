/*
 * client.c - a small synchronous ZeroMQ client of quadsolved: a DEALER
 * socket, one request at a time, replies matched by id, progress events
 * passed to a callback, cancellation through the caller's flag, and every
 * solution verified before it is returned.
 *
 * Replies to earlier requests (a result that crossed a cancel, or arrived
 * after a timeout) carry other ids and are dropped, so a late frame can
 * never be taken for the answer to the current request.
 */
#include "qsservice.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zmq.h>

struct qsv_client {
    void *ctx;
    void *sock;
    int timeout_ms;
    unsigned long next_id;
    char frame[QSV_MAX_FRAME];
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int transport(qsv_failure *f, const char *what)
{
    f->code = QSV_ERR_TRANSPORT;
    f->reason[0] = '\0';
    snprintf(f->message, sizeof f->message, "%s: %s", what,
             zmq_strerror(zmq_errno()));
    return QSV_ERR_TRANSPORT;
}

void qsv_client_options_default(qsv_client_options *o)
{
    memset(o, 0, sizeof *o);
    o->timeout_ms = 30000;
}

/* The first line of path as a 40-character Z85 key that decodes. */
static int read_key(const char *path, char key[41], qsv_failure *f)
{
    FILE *in = fopen(path, "r");
    char line[128] = "";
    int ok = in && fgets(line, sizeof line, in) != NULL;
    if (in)
        fclose(in);
    line[strcspn(line, " \t\r\n")] = '\0';
    uint8_t raw[32];
    ok = ok && strlen(line) == 40 && zmq_z85_decode(raw, line) != NULL;
    if (!ok) {
        f->code = QSV_ERR_TRANSPORT;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message,
                 "%.200s: %s", path,
                 in ? "no 40-character Z85 key on its first line"
                    : strerror(errno));
        return QSV_ERR_TRANSPORT;
    }
    memcpy(key, line, 41);
    return QSV_OK;
}

int qsv_curve_load(const char *server_public_file,
                   const char *client_secret_file, qsv_curve_keys *keys,
                   qsv_client_options *o, qsv_failure *f)
{
    if (!keys || !o || !f)
        return QSV_ERR_ARGUMENT;
    if (!server_public_file || !client_secret_file) {
        f->code = QSV_ERR_TRANSPORT;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message,
                 "CURVE needs both the daemon's public key file and this "
                 "client's secret key file");
        return QSV_ERR_TRANSPORT;
    }
    int rc = read_key(server_public_file, keys->server_public, f);
    if (rc == QSV_OK)
        rc = read_key(client_secret_file, keys->client_secret, f);
    if (rc == QSV_OK &&
        zmq_curve_public(keys->client_public, keys->client_secret) != 0) {
        f->code = rc = QSV_ERR_TRANSPORT;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message,
                 "%.200s: not a CURVE secret key", client_secret_file);
    }
    if (rc != QSV_OK)
        return rc;
    o->server_public = keys->server_public;
    o->client_public = keys->client_public;
    o->client_secret = keys->client_secret;
    return QSV_OK;
}

static int set_key(void *sock, int option, const char *z85, qsv_failure *f)
{
    if (!z85 || strlen(z85) != 40) {
        f->code = QSV_ERR_TRANSPORT;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message,
                 "CURVE keys are 40 Z85 characters");
        return QSV_ERR_TRANSPORT;
    }
    if (zmq_setsockopt(sock, option, z85, 40) != 0)
        return transport(f, "setting a CURVE key");
    return QSV_OK;
}

int qsv_client_open(const char *endpoint, const qsv_client_options *o,
                    qsv_client **out, qsv_failure *f)
{
    qsv_client_options def;
    if (!endpoint || !out || !f)
        return QSV_ERR_ARGUMENT;
    *out = NULL;
    if (!o) {
        qsv_client_options_default(&def);
        o = &def;
    }
    qsv_client *c = calloc(1, sizeof *c);
    if (!c)
        return QSV_ERR_INTERNAL;
    c->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : 30000;
    c->next_id = 1;
    c->ctx = zmq_ctx_new();
    c->sock = c->ctx ? zmq_socket(c->ctx, ZMQ_DEALER) : NULL;
    int rc = c->sock ? QSV_OK : transport(f, "creating a socket");
    int linger = 0;
    if (rc == QSV_OK)
        zmq_setsockopt(c->sock, ZMQ_LINGER, &linger, sizeof linger);
    if (rc == QSV_OK && (o->server_public || o->client_public ||
                         o->client_secret)) {
        if (!zmq_has("curve")) {
            f->code = rc = QSV_ERR_TRANSPORT;
            f->reason[0] = '\0';
            snprintf(f->message, sizeof f->message,
                     "this libzmq has no CURVE support");
        }
        if (rc == QSV_OK)
            rc = set_key(c->sock, ZMQ_CURVE_SERVERKEY, o->server_public, f);
        if (rc == QSV_OK)
            rc = set_key(c->sock, ZMQ_CURVE_PUBLICKEY, o->client_public, f);
        if (rc == QSV_OK)
            rc = set_key(c->sock, ZMQ_CURVE_SECRETKEY, o->client_secret, f);
    }
    if (rc == QSV_OK && zmq_connect(c->sock, endpoint) != 0) {
        rc = transport(f, "connecting");
        snprintf(f->message + strlen(f->message),
                 sizeof f->message - strlen(f->message), " (%.80s)",
                 endpoint);
    }
    if (rc != QSV_OK) {
        qsv_client_close(c);
        return rc;
    }
    *out = c;
    return QSV_OK;
}

void qsv_client_close(qsv_client *c)
{
    if (!c)
        return;
    if (c->sock)
        zmq_close(c->sock);
    if (c->ctx)
        zmq_ctx_term(c->ctx);
    free(c);
}

static int send_text(qsv_client *c, const char *text, qsv_failure *f)
{
    if (zmq_send(c->sock, text, strlen(text), 0) < 0)
        return transport(f, "sending");
    return QSV_OK;
}

/* Receives one single-frame message into c->frame within wait_ms; returns
 * its length, 0 on timeout (f says so), or a negative error. */
static int receive(qsv_client *c, int wait_ms, qsv_failure *f)
{
    zmq_pollitem_t item = {c->sock, 0, ZMQ_POLLIN, 0};
    int n = zmq_poll(&item, 1, wait_ms);
    if (n < 0)
        return errno == EINTR ? 0 : transport(f, "polling");
    if (n == 0)
        return 0;
    int len = zmq_recv(c->sock, c->frame, sizeof c->frame - 1, 0);
    if (len < 0)
        return transport(f, "receiving");
    int more = 0;
    size_t sz = sizeof more;
    zmq_getsockopt(c->sock, ZMQ_RCVMORE, &more, &sz);
    while (more) { /* a reply is one frame: drop anything tacked on */
        char dummy[1];
        zmq_recv(c->sock, dummy, 0, 0);
        zmq_getsockopt(c->sock, ZMQ_RCVMORE, &more, &sz);
        len = -1;
    }
    if (len < 0 || len >= (int)sizeof c->frame) {
        f->code = QSV_ERR_PROTOCOL;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message,
                 "reply frame too large or multi-part");
        return QSV_ERR_PROTOCOL;
    }
    c->frame[len] = '\0';
    return len > 0 ? len : QSV_ERR_PROTOCOL;
}

static int no_reply(qsv_failure *f, int waited_ms)
{
    f->code = QSV_ERR_NO_REPLY;
    f->reason[0] = '\0';
    snprintf(f->message, sizeof f->message,
             "no reply from the daemon within %d ms", waited_ms);
    return QSV_ERR_NO_REPLY;
}

/* Sends a cancel for request `id`. */
static int send_cancel(qsv_client *c, const char *id, qsv_failure *f)
{
    char text[2 * QSV_MAX_ID + 64];
    snprintf(text, sizeof text,
             "{\"id\":\"cancel-%lu\",\"op\":\"cancel\",\"target\":%s}",
             c->next_id++, id);
    return send_text(c, text, f);
}

/* Waits for the final reply to request `id` (a result, error, pong, status
 * or cancel frame), passing progress on; the final frame stays in
 * c->frame. limit_ms bounds the whole wait; a negative limit_ms means the
 * request has no bound of its own (an optimal solve without a deadline):
 * the wait then lasts as long as the daemon shows it is alive. Silence
 * alone cannot tell a long search from a dead daemon, so after
 * c->timeout_ms without a frame a ping goes out, and only a ping left
 * unanswered for another c->timeout_ms ends the wait. */
static int await(qsv_client *c, const char *id, double limit_ms,
                 const atomic_int *cancel, qsv_progress_fn on_progress,
                 void *ctx, qsv_reply_type *type, qsv_result *res,
                 qsv_failure *f)
{
    double start = now_ms(), heard = start, ping_at = -1;
    int cancel_sent = 0;
    for (;;) {
        if (cancel && !cancel_sent && atomic_load(cancel)) {
            int rc = send_cancel(c, id, f);
            if (rc != QSV_OK)
                return rc;
            cancel_sent = 1;
            /* The daemon answers within milliseconds once it has it. */
            limit_ms = (now_ms() - start) + (c->timeout_ms < 5000
                                                  ? c->timeout_ms
                                                  : 5000);
        }
        double now = now_ms(), left;
        if (limit_ms >= 0) {
            left = limit_ms - (now - start);
            if (left <= 0)
                return no_reply(f, (int)limit_ms);
        } else {
            if (ping_at >= 0 && now - ping_at >= c->timeout_ms) {
                no_reply(f, c->timeout_ms);
                snprintf(f->message, sizeof f->message,
                         "the daemon stopped answering (no reply to a ping "
                         "within %d ms)",
                         c->timeout_ms);
                return QSV_ERR_NO_REPLY;
            }
            if (ping_at < 0 && now - heard >= c->timeout_ms) {
                char text[64];
                snprintf(text, sizeof text,
                         "{\"id\":\"alive-%lu\",\"op\":\"ping\"}",
                         c->next_id++);
                int rc = send_text(c, text, f);
                if (rc != QSV_OK)
                    return rc;
                ping_at = now;
            }
            left = c->timeout_ms - (now - (ping_at >= 0 ? ping_at : heard));
        }
        /* Short polls keep the cancel flag responsive. */
        int wait = cancel && !cancel_sent ? (left < 5 ? (int)left + 1 : 5)
                                          : (int)left + 1;
        int len = receive(c, wait, f);
        if (len < 0)
            return len;
        if (len == 0)
            continue;
        /* Any frame, a stale one or a pong, shows the daemon alive. */
        heard = now_ms();
        ping_at = -1;
        char rid[QSV_MAX_ID + 1];
        qsv_progress progress;
        qsv_failure pf;
        int rc = qsv_reply_parse(c->frame, (size_t)len, type, rid, NULL,
                                 &progress, &pf);
        if (rc != QSV_OK) {
            *f = pf;
            return rc;
        }
        if (strcmp(rid, id) != 0)
            continue; /* a stale reply, our cancel's answer, a pong */
        if (*type == QSV_REPLY_ACCEPTED)
            continue;
        if (*type == QSV_REPLY_PROGRESS) {
            if (on_progress)
                on_progress(ctx, &progress);
            continue;
        }
        if (*type == QSV_REPLY_RESULT || *type == QSV_REPLY_ERROR)
            return qsv_reply_parse(c->frame, (size_t)len, type, rid, res,
                                   NULL, f);
        return QSV_OK;
    }
}

static void fresh_id(qsv_client *c, char *id)
{
    snprintf(id, QSV_MAX_ID + 1, "\"q%lu\"", c->next_id++);
}

int qsv_client_solve(qsv_client *c, const qsv_request *r,
                     const atomic_int *cancel, qsv_progress_fn on_progress,
                     void *progress_ctx, qsv_result *out, qsv_failure *f)
{
    if (!c || !r || !out || !f || r->op != QSV_OP_SOLVE)
        return QSV_ERR_ARGUMENT;
    qsv_request req = *r;
    fresh_id(c, req.id);
    if (on_progress)
        req.progress = 1;
    int len = qsv_request_to_json(&req, c->frame, sizeof c->frame);
    if (len < 0) {
        f->code = QSV_ERR_ARGUMENT;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message, "request too large");
        return QSV_ERR_ARGUMENT;
    }
    int rc = send_text(c, c->frame, f);
    if (rc != QSV_OK)
        return rc;
    /* The request's own bound plus the client's timeout; none for an
     * optimal solve without a deadline (see await). */
    double limit = req.deadline_ms > 0 ? req.deadline_ms
                   : req.optimal       ? -1
                   : req.time_ms > 0   ? req.time_ms
                                       : QSV_DEFAULT_HARD_MS;
    if (limit >= 0)
        limit += c->timeout_ms;
    qsv_reply_type type;
    rc = await(c, req.id, limit, cancel, on_progress, progress_ctx, &type,
               out, f);
    if (rc != QSV_OK)
        return rc;
    if (type == QSV_REPLY_ERROR)
        return f->code;
    if (type != QSV_REPLY_RESULT || out->metric != req.metric) {
        f->code = QSV_ERR_PROTOCOL;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message,
                 "reply to a solve is not a result for its metric");
        return QSV_ERR_PROTOCOL;
    }
    for (int i = 0; i < out->n; i++) {
        rc = qsv_verify(&req, &out->sol[i], f);
        if (rc != QSV_OK)
            return rc;
    }
    return QSV_OK;
}

/* Sends a request without fields and waits for a reply of type want. */
static int simple(qsv_client *c, const char *op, qsv_reply_type want,
                  qsv_failure *f)
{
    char id[QSV_MAX_ID + 1], text[QSV_MAX_ID + 64];
    fresh_id(c, id);
    snprintf(text, sizeof text, "{\"id\":%s,\"op\":\"%s\"}", id, op);
    int rc = send_text(c, text, f);
    if (rc != QSV_OK)
        return rc;
    qsv_reply_type type;
    rc = await(c, id, c->timeout_ms, NULL, NULL, NULL, &type, NULL, f);
    if (rc == QSV_OK && type == QSV_REPLY_ERROR)
        return f->code;
    if (rc == QSV_OK && type != want) {
        f->code = rc = QSV_ERR_PROTOCOL;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message, "unexpected reply to %s", op);
    }
    return rc;
}

int qsv_client_ping(qsv_client *c, qsv_failure *f)
{
    if (!c || !f)
        return QSV_ERR_ARGUMENT;
    return simple(c, "ping", QSV_REPLY_PONG, f);
}

int qsv_client_status(qsv_client *c, char *out, size_t out_len,
                      qsv_failure *f)
{
    if (!c || !out || !f || out_len == 0)
        return QSV_ERR_ARGUMENT;
    int rc = simple(c, "status", QSV_REPLY_STATUS, f);
    if (rc != QSV_OK)
        return rc;
    if (strlen(c->frame) >= out_len) {
        f->code = QSV_ERR_ARGUMENT;
        f->reason[0] = '\0';
        snprintf(f->message, sizeof f->message, "status buffer too small");
        return QSV_ERR_ARGUMENT;
    }
    strcpy(out, c->frame);
    return QSV_OK;
}
