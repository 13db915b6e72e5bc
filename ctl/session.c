/*
 * session.c - quadctl's side of the firmware protocol: an fwp host
 * endpoint on a link, the handshake, HOME, STATUS, and the execution of a
 * list of primitive steps.
 *
 * Execution keeps at most `inflight` steps sent and not yet reported done
 * (by default the firmware's max_steps, which it must be able to queue),
 * so a conforming firmware never has to refuse a batch as BUSY; if one
 * does, the batch and every batch sent behind it are sent again, matched
 * by the sequence number the NAK names. Steps are confirmed only by EVENT
 * DONE, which arrives in order, so what ran is always a prefix of the list.
 *
 * Any failure (FAULT, a refused batch, a firmware ESTOP, a lost link, a
 * restarted firmware, a step that never finishes) stops the robot: ESTOP,
 * reconnecting first when the connection was lost, then waiting for the
 * STATUS that says it stands still. Reports are delivered in order, so
 * every DONE sent before that STATUS has arrived by then, and its
 * last_step settles the count even when reports were lost with a session.
 */
#include "ctl.h"

#include <poll.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define READ_CHUNK 4096

void ctl_say(const ctl_options *opt, int level, const char *fmt, ...)
{
    if (!opt->log || opt->verbose < level)
        return;
    va_list ap;
    va_start(ap, fmt);
    fputs("quadctl: ", opt->log);
    vfprintf(opt->log, fmt, ap);
    fputc('\n', opt->log);
    va_end(ap);
}

static uint16_t id_add(uint16_t id, int k)
{
    /* Step ids run 0..0xFFFE; 0xFFFF means "no step". */
    return (uint16_t)(((uint32_t)id + (uint32_t)k) % 0xFFFFu);
}

static int id_diff(uint16_t a, uint16_t b)
{
    return (int)(((uint32_t)a + 0xFFFFu - b) % 0xFFFFu);
}

static bool stopped_state(int st)
{
    return st == FWP_ROBOT_FAULT || st == FWP_ROBOT_STOPPED ||
           st == FWP_ROBOT_UNHOMED;
}

static const char *nak_name(int r)
{
    switch (r) {
    case FWP_NAK_BUSY: return "BUSY";
    case FWP_NAK_NOT_HOMED: return "NOT_HOMED";
    case FWP_NAK_FAULTED: return "FAULTED";
    case FWP_NAK_STOPPED: return "STOPPED";
    case FWP_NAK_BAD_STEP: return "BAD_STEP";
    case FWP_NAK_TOO_MANY: return "TOO_MANY";
    case FWP_NAK_UNSUPPORTED: return "UNSUPPORTED";
    default: return "?";
    }
}

static const char *fault_name(int code)
{
    switch (code) {
    case FWP_FAULT_STALL: return "STALL";
    case FWP_FAULT_OVERCURRENT: return "OVERCURRENT";
    case FWP_FAULT_GRIP: return "GRIP";
    case FWP_FAULT_TIMEOUT: return "TIMEOUT";
    case FWP_FAULT_LINK_LOST: return "LINK_LOST";
    case FWP_FAULT_HOMING: return "HOMING";
    default: return code >= 0x8000 ? "FIRMWARE" : "?";
    }
}

/* The first failure of an execution wins; later ones are consequences. */
static void fail(ctl_session *s, int err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(ctl_session *s, int err, const char *fmt, ...)
{
    ctl_exec *x = s->x;
    if (!x || x->err)
        return;
    x->err = err;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(x->message, sizeof x->message, fmt, ap);
    va_end(ap);
    ctl_say(&s->opt, 1, "%s", x->message);
}

/* ---------------------------------------------------- endpoint callbacks */

static int ep_write(void *ctx, const uint8_t *b, size_t n)
{
    ctl_session *s = ctx;
    if (!s->link_up)
        return -1;
    if (ctl_link_write(&s->link, b, n) < 0) {
        /* Let the event loop notice at its next read. */
        return -1;
    }
    return 0;
}

static uint32_t ep_now(void *ctx)
{
    (void)ctx;
    return (uint32_t)(ctl_now_us() / 1000);
}

static void on_done(ctl_session *s, const fwp_step_event *e)
{
    ctl_exec *x = s->x;
    if (!x) {
        ctl_say(&s->opt, 2, "DONE of step %u outside an execution",
                e->step_id);
        return;
    }
    int idx = id_diff(e->step_id, x->first_id);
    if (idx != x->confirmed || idx >= x->sent) {
        fail(s, CTL_ERR_PROTOCOL,
             "the firmware reported step %u done, expected step %u",
             e->step_id, id_add(x->first_id, x->confirmed));
        return;
    }
    int64_t t = ctl_now_us();
    x->ms[idx] = e->duration_ms;
    x->done_us[idx] = t;
    x->confirmed++;
    x->busy_until_us = 0; /* room again: refused steps may go */
    x->end_us = t;
    s->progress_us = t;
}

/* A NAK names the refused message by sequence number only. */
static void on_nak(ctl_session *s, const fwp_nak *k)
{
    ctl_exec *x = s->x;
    int b = -1;
    for (int i = 0; i < s->n_batch; i++)
        if (s->batch[i].live && s->batch[i].seq == k->ref_seq)
            b = i;
    if (!x || b < 0) {
        ctl_say(&s->opt, 1, "the firmware refused message %u (%s)", k->ref_seq,
                nak_name(k->reason));
        if (x && k->reason != FWP_NAK_BUSY)
            fail(s, CTL_ERR_REFUSED, "the firmware refused a message: NAK %s",
                 nak_name(k->reason));
        return;
    }
    int first = s->batch[b].first;
    if (k->reason == FWP_NAK_BUSY) {
        /* The firmware takes nothing after a BUSY batch until that batch
         * comes again, so it and everything behind it is resent. */
        for (int i = 0; i < s->n_batch; i++)
            if (s->batch[i].live && s->batch[i].first >= first)
                s->batch[i].live = false;
        if (first < x->sent)
            x->sent = first;
        /* Resending at once would only be refused again, in a storm of
         * frames whose 8-bit sequence numbers soon wrap, so that a late
         * NAK could name a newer batch: wait for room instead. */
        x->busy_until_us = ctl_now_us() + 50000;
        x->busy_naks++;
        ctl_say(&s->opt, 2, "steps from %u refused BUSY: sending them again",
                id_add(x->first_id, first));
        return;
    }
    x->nak_reason = k->reason;
    x->nak = *k;
    if (k->step_id != FWP_NO_STEP) {
        /* Protocol 2 names the step and the rule it breaks. */
        char grip[16] = "";
        if (k->gripper < FWP_GRIPPERS)
            snprintf(grip, sizeof grip, ", gripper %c", "RLFB"[k->gripper]);
        fail(s, CTL_ERR_REFUSED,
             "the firmware refused steps %u..%u (protocol steps %d..%d): NAK "
             "%s: step %u (protocol step %d) breaks rule %s%s",
             id_add(x->first_id, first),
             id_add(x->first_id, first + s->batch[b].count - 1), first + 1,
             first + s->batch[b].count, nak_name(k->reason), k->step_id,
             ((int)k->step_id - (int)x->first_id + 0xFFFF) % 0xFFFF + 1,
             fwp_rule_name(k->rule), grip);
        return;
    }
    fail(s, CTL_ERR_REFUSED,
         "the firmware refused steps %u..%u (protocol steps %d..%d): NAK %s",
         id_add(x->first_id, first),
         id_add(x->first_id, first + s->batch[b].count - 1), first + 1,
         first + s->batch[b].count, nak_name(k->reason));
}

static void ep_message(void *ctx, const fwp_message *m)
{
    ctl_session *s = ctx;
    switch (m->type) {
    case FWP_MSG_HELLO:
        s->peer = m->u.hello;
        s->have_peer = true;
        ctl_say(&s->opt, 2,
                "firmware HELLO: session 0x%08x, max_steps %u, window %u, "
                "watchdog %u ms, features 0x%02x",
                m->u.hello.session, m->u.hello.max_steps, m->u.hello.window,
                m->u.hello.link_timeout_ms, m->u.hello.features);
        break;
    case FWP_MSG_EVENT:
        if (m->u.event.kind == FWP_STEP_DONE)
            on_done(s, &m->u.event);
        break;
    case FWP_MSG_STATUS:
        s->status = m->u.status;
        s->n_status++;
        s->states_seen |= 1u << (m->u.status.state & 31);
        if (stopped_state(m->u.status.state))
            s->stopped_seen = true;
        ctl_say(&s->opt, 2,
                "STATUS state %u last_step %u fault 0x%04x queued %u",
                m->u.status.state, m->u.status.last_step, m->u.status.fault,
                m->u.status.queued);
        if (s->x && (m->u.status.state == FWP_ROBOT_FAULT ||
                     m->u.status.state == FWP_ROBOT_STOPPED))
            fail(s, m->u.status.state == FWP_ROBOT_FAULT ? CTL_ERR_FAULT
                                                          : CTL_ERR_STOPPED,
                 "the firmware is %s",
                 m->u.status.state == FWP_ROBOT_FAULT ? "faulted" : "stopped");
        break;
    case FWP_MSG_FAULT:
        s->last_fault = m->u.fault;
        s->have_fault = true;
        if (s->x) {
            s->x->fault = m->u.fault;
            if (m->u.fault.code == FWP_FAULT_LINK_LOST)
                fail(s, CTL_ERR_LINK_LOST,
                     "the firmware lost the link and stopped (FAULT "
                     "LINK_LOST)");
            else
                fail(s, CTL_ERR_FAULT,
                     "firmware fault %s (0x%04x) at step %u, gripper %s",
                     fault_name(m->u.fault.code), m->u.fault.code,
                     m->u.fault.step_id,
                     m->u.fault.gripper < 4
                         ? (const char *[]){"R", "L", "F", "B"}
                               [m->u.fault.gripper]
                         : "none");
        }
        break;
    case FWP_MSG_NAK:
        on_nak(s, &m->u.nak);
        break;
    case FWP_MSG_ESTOP:
        fail(s, CTL_ERR_STOPPED, "the firmware sent ESTOP (stop button)");
        break;
    default:
        break;
    }
}

static void ep_event(void *ctx, int event, int detail)
{
    ctl_session *s = ctx;
    switch (event) {
    case FWP_EV_CONNECTED:
        s->connected = true;
        s->n_connects++;
        ctl_say(&s->opt, 2, "connected");
        break;
    case FWP_EV_PEER_RESET:
        s->connected = false;
        s->link_event = CTL_ERR_PEER_RESET;
        fail(s, CTL_ERR_PEER_RESET,
             "the firmware restarted (%d messages unacknowledged)", detail);
        break;
    case FWP_EV_RETRY_LIMIT:
        s->connected = false;
        s->link_event = CTL_ERR_LINK_LOST;
        fail(s, CTL_ERR_LINK_LOST,
             "the firmware stopped answering (%d messages unacknowledged)",
             detail);
        break;
    case FWP_EV_LINK_LOST:
        s->link_event = CTL_ERR_LINK_LOST;
        fail(s, CTL_ERR_LINK_LOST, "nothing heard from the firmware for %d ms",
             detail);
        break;
    case FWP_EV_LINK_RESTORED:
        if (s->link_event == CTL_ERR_LINK_LOST)
            s->link_event = 0;
        break;
    case FWP_EV_INCOMPATIBLE:
        s->incompatible = detail;
        ctl_say(&s->opt, 1, "incompatible firmware HELLO (%s)",
                detail == 1 ? "protocol version" : "not a firmware");
        break;
    default:
        break;
    }
}

/* ------------------------------------------------------------ event loop */

/* Feeds whatever bytes are waiting. Returns false when the link is gone. */
static bool drain(ctl_session *s)
{
    uint8_t buf[READ_CHUNK];
    for (int i = 0; i < 64; i++) {
        long k = ctl_link_read(&s->link, buf, sizeof buf);
        if (k > 0) {
            fwp_feed(&s->ep, buf, (size_t)k);
            continue;
        }
        if (k < 0) {
            ctl_say(&s->opt, 1, "the connection to %s was closed",
                    s->link.spec);
            ctl_link_close(&s->link);
            s->link_up = false;
            s->link_event = CTL_ERR_LINK_LOST;
            fail(s, CTL_ERR_LINK_LOST, "the connection to %s was lost",
                 s->link.spec);
            return false;
        }
        break;
    }
    return true;
}

/* Waits up to max_ms for bytes (less when an fwp timer is due), feeds
 * them and runs the timers. Bytes that waited while this process was busy
 * elsewhere (a replan) are fed before the timers run, so our own pause is
 * not taken for a silent firmware. Returns false when the link is gone. */
static bool pump(ctl_session *s, int max_ms)
{
    if (!s->link_up || !drain(s))
        return false;
    uint32_t due = fwp_poll(&s->ep);
    int wait = (int)(due < (uint32_t)max_ms ? due : (uint32_t)max_ms);
    struct pollfd p = {s->link.fd, POLLIN, 0};
    if (poll(&p, 1, wait < 0 ? 0 : wait) > 0 && !drain(s))
        return false;
    fwp_poll(&s->ep);
    return s->link_up;
}

static void session_config(ctl_session *s)
{
    fwp_config_default(&s->cfg, FWP_ROLE_HOST);
    /* A session id that differs at every start, so the firmware knows a
     * restarted controller from a reconnected one. */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec) ^
                 ((uint64_t)getpid() << 32);
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    s->cfg.session = (uint32_t)x ? (uint32_t)x : 1;
    /* Step ids continue from a random point, so a STATUS last_step left
     * by an earlier controller is not taken for one of ours. */
    s->next_id = (uint16_t)((x >> 32) % 0xFFFFu);
    if (s->opt.retransmit_ms > 0)
        s->cfg.retransmit_ms = (uint16_t)s->opt.retransmit_ms;
    /* The host's own watchdog: a firmware sends heartbeats, so silence
     * means it is gone even when nothing of ours awaits an ack. */
    s->cfg.link_timeout_ms = 3000;
    s->cfg.write = ep_write;
    s->cfg.now_ms = ep_now;
    s->cfg.on_message = ep_message;
    s->cfg.on_event = ep_event;
    s->cfg.ctx = s;
}

static int wait_connected(ctl_session *s, char *err, size_t err_len)
{
    int64_t end = ctl_now_us() + (int64_t)s->opt.connect_timeout_ms * 1000;
    while (!s->connected) {
        const fwp_hello *h = fwp_refused_peer(&s->ep);
        if (s->incompatible && h) {
            /* The peer answers but cannot be talked to: waiting for the
             * timeout would only hide why. */
            if (s->incompatible == 1)
                snprintf(err, err_len,
                         "the firmware on %s speaks protocol version%s "
                         "%u..%u; quadctl speaks version %d",
                         s->opt.port,
                         h->version_min == h->version_max ? "" : "s",
                         h->version_min, h->version_max,
                         FWP_PROTOCOL_VERSION);
            else
                snprintf(err, err_len,
                         "the peer on %s is a host, not a firmware",
                         s->opt.port);
            return CTL_ERR_CONNECT;
        }
        if (ctl_now_us() > end) {
            snprintf(err, err_len,
                     "no protocol handshake with the firmware on %s within "
                     "%d ms",
                     s->opt.port, s->opt.connect_timeout_ms);
            return CTL_ERR_CONNECT;
        }
        if (!pump(s, 20)) {
            /* Never connected, so nothing was lost: the robot could not
             * be reached (a firmware busy with another host closes the
             * connection at once). */
            snprintf(err, err_len,
                     "cannot reach the robot: %s closed the connection "
                     "before the handshake (is another host connected?)",
                     s->opt.port);
            return CTL_ERR_CONNECT;
        }
    }
    return CTL_OK;
}

int ctl_session_open(ctl_session *s, const ctl_options *o, char *err,
                     size_t err_len)
{
    memset(s, 0, sizeof *s);
    s->opt = *o;
    s->link.fd = -1;
    int rc = ctl_link_open(&s->link, o->port, o->baud, err, err_len);
    if (rc != CTL_OK)
        return rc;
    s->link_up = true;
    session_config(s);
    if (fwp_init(&s->ep, &s->cfg) != FWP_OK) {
        snprintf(err, err_len, "protocol settings rejected");
        ctl_link_close(&s->link);
        s->link_up = false;
        return CTL_ERR_CONNECT;
    }
    return wait_connected(s, err, err_len);
}

void ctl_session_close(ctl_session *s)
{
    if (s->link_up) {
        /* Let the last acks go out. */
        for (int i = 0; i < 5 && fwp_unacked(&s->ep); i++)
            pump(s, 10);
        ctl_link_close(&s->link);
    }
    s->link_up = false;
}

/* Reopens a lost connection, keeping the endpoint (and its session): the
 * firmware then delivers the reports it could not send. */
static int reconnect(ctl_session *s, char *err, size_t err_len)
{
    int64_t end = ctl_now_us() + (int64_t)s->opt.connect_timeout_ms * 1000;
    if (s->link_up) {
        ctl_link_close(&s->link);
        s->link_up = false;
    }
    for (;;) {
        char why[256];
        ctl_link l;
        if (ctl_link_open(&l, s->opt.port, s->opt.baud, why, sizeof why) ==
            CTL_OK) {
            s->link = l;
            s->link_up = true;
            ctl_say(&s->opt, 1, "reconnected to %s", s->opt.port);
            break;
        }
        if (ctl_now_us() > end) {
            snprintf(err, err_len, "cannot reconnect: %s", why);
            return CTL_ERR_LINK_LOST;
        }
        struct timespec ts = {0, 100 * 1000000L};
        nanosleep(&ts, NULL);
    }
    if (s->link_event == CTL_ERR_LINK_LOST)
        s->link_event = 0;
    return wait_connected(s, err, err_len);
}

static int send_simple(ctl_session *s, int type, bool query)
{
    fwp_message m;
    memset(&m, 0, sizeof m);
    m.type = (uint8_t)type;
    if (type == FWP_MSG_STATUS)
        m.u.status.query = query;
    for (int i = 0; i < 200; i++) {
        int rc = fwp_send(&s->ep, &m);
        if (rc != FWP_ERR_BUSY)
            return rc;
        if (!pump(s, 10))
            return FWP_ERR_NOT_CONNECTED;
    }
    return FWP_ERR_BUSY;
}

int ctl_session_status(ctl_session *s, fwp_status *st, char *err,
                       size_t err_len)
{
    for (int attempt = 0; attempt < 2; attempt++) {
        if (!s->link_up || !s->connected) {
            int rc = reconnect(s, err, err_len);
            if (rc != CTL_OK)
                return rc;
        }
        uint32_t before = s->n_status;
        if (send_simple(s, FWP_MSG_STATUS, true) != FWP_OK)
            continue;
        int64_t end = ctl_now_us() + 3000000;
        while (s->n_status == before && ctl_now_us() < end)
            if (!pump(s, 20))
                break;
        if (s->n_status != before) {
            /* The first report may be one posted before the query was
             * handled. Callers ask after the last DONE, and any report
             * after that shows the final state, which is all they need. */
            *st = s->status;
            return CTL_OK;
        }
    }
    snprintf(err, err_len, "no STATUS from the firmware");
    return CTL_ERR_LINK_LOST;
}

int ctl_session_home(ctl_session *s, char *err, size_t err_len)
{
    if (!s->link_up || !s->connected) {
        int rc = reconnect(s, err, err_len);
        if (rc != CTL_OK)
            return rc;
    }
    /* Several reports may arrive in one read: remember every state seen
     * since HOME, so HOMING then IDLE is recognised however they come. */
    s->states_seen = 0;
    if (send_simple(s, FWP_MSG_HOME, false) != FWP_OK) {
        snprintf(err, err_len, "HOME could not be sent");
        return CTL_ERR_LINK_LOST;
    }
    int64_t end = ctl_now_us() + (int64_t)s->opt.home_timeout_ms * 1000;
    for (;;) {
        bool homing = s->states_seen >> FWP_ROBOT_HOMING & 1;
        if (homing && s->status.state == FWP_ROBOT_IDLE)
            break;
        if (homing && s->status.state == FWP_ROBOT_FAULT) {
            snprintf(err, err_len, "homing failed (fault 0x%04x)",
                     s->status.fault);
            return CTL_ERR_HOMING;
        }
        if (ctl_now_us() > end) {
            snprintf(err, err_len, "the robot did not finish homing within "
                                   "%d ms", s->opt.home_timeout_ms);
            return CTL_ERR_HOMING;
        }
        if (!pump(s, 20)) {
            snprintf(err, err_len, "the connection was lost while homing");
            return CTL_ERR_LINK_LOST;
        }
    }
    ctl_say(&s->opt, 1, "homed");
    return CTL_OK;
}

/* ------------------------------------------------------------- execution */

static int send_batch(ctl_session *s, fwp_step *steps, int count)
{
    ctl_exec *x = s->x;
    fwp_message m;
    memset(&m, 0, sizeof m);
    m.type = FWP_MSG_STEPS;
    m.u.steps.count = (uint8_t)count;
    memcpy(m.u.steps.step, steps + x->sent, sizeof(fwp_step) * (size_t)count);
    int seq = fwp_next_seq(&s->ep);
    int rc = fwp_send(&s->ep, &m);
    if (rc != FWP_OK)
        return rc;
    /* Keep the records of batches that may still be refused. */
    int keep = 0;
    for (int i = 0; i < s->n_batch; i++)
        if (s->batch[i].live &&
            s->batch[i].first + s->batch[i].count > x->confirmed)
            s->batch[keep++] = s->batch[i];
    s->n_batch = keep;
    if (s->n_batch == (int)(sizeof s->batch / sizeof s->batch[0])) {
        memmove(s->batch, s->batch + 1,
                sizeof s->batch[0] * (size_t)(s->n_batch - 1));
        s->n_batch--;
    }
    s->batch[s->n_batch].seq = (uint8_t)seq;
    s->batch[s->n_batch].first = x->sent;
    s->batch[s->n_batch].count = count;
    s->batch[s->n_batch].live = true;
    s->n_batch++;
    if (x->sent == 0 && !x->start_us)
        x->start_us = ctl_now_us();
    x->sent += count;
    return FWP_OK;
}

/* Stops the robot after a failure and settles what ran: ESTOP (over a new
 * connection if the old one died), then the STATUS saying it stands. */
static void stop_and_settle(ctl_session *s)
{
    ctl_exec *x = s->x;
    char why[256];
    if (!s->link_up || !s->connected) {
        if (reconnect(s, why, sizeof why) != CTL_OK) {
            ctl_say(&s->opt, 1,
                    "%s; what ran beyond the confirmed steps is unknown", why);
            return;
        }
    }
    /* ESTOP, and a STATUS query for the answer; again in every new
     * pairing, since a session that was given up took both with it. */
    s->stopped_seen = false;
    uint32_t sent_in = s->n_connects - 1;
    int64_t end = ctl_now_us() + (int64_t)s->opt.connect_timeout_ms * 1000;
    while (!s->stopped_seen && ctl_now_us() < end) {
        if (s->connected && sent_in != s->n_connects) {
            sent_in = s->n_connects;
            if (send_simple(s, FWP_MSG_ESTOP, false) == FWP_OK)
                ctl_say(&s->opt, 1, "ESTOP sent");
            send_simple(s, FWP_MSG_STATUS, true);
        }
        if (!pump(s, 20)) {
            if (reconnect(s, why, sizeof why) != CTL_OK) {
                ctl_say(&s->opt, 1, "%s", why);
                return;
            }
        }
    }
    if (!s->stopped_seen) {
        ctl_say(&s->opt, 1, "the firmware did not confirm that it stopped");
        return;
    }
    /* Every DONE the firmware sent came before this STATUS; when reports
     * were lost (a restarted session), last_step still says what ran. */
    uint16_t last = s->status.last_step;
    if (last != FWP_NO_STEP) {
        int idx = id_diff(last, x->first_id);
        if (idx >= x->confirmed && idx < x->sent) {
            int64_t t = ctl_now_us();
            for (int i = x->confirmed; i <= idx; i++) {
                x->ms[i] = 0;
                x->done_us[i] = t;
            }
            x->by_status += idx + 1 - x->confirmed;
            x->confirmed = idx + 1;
        }
    }
    x->exact = true;
}

int ctl_session_execute(ctl_session *s, fwp_step *steps, ctl_exec *x)
{
    x->sent = x->confirmed = x->by_status = x->busy_naks = 0;
    x->busy_until_us = 0;
    x->err = CTL_OK;
    x->message[0] = '\0';
    x->exact = false;
    x->start_us = x->end_us = 0;
    x->first_id = s->next_id;
    for (int i = 0; i < x->n; i++)
        steps[i].id = id_add(x->first_id, i);
    s->next_id = id_add(x->first_id, x->n);
    s->x = x;
    s->n_batch = 0;
    s->steps = steps;
    s->have_fault = false;
    s->link_event = 0;
    s->progress_us = ctl_now_us();
    if (!s->link_up || !s->connected)
        fail(s, CTL_ERR_LINK_LOST, "not connected to the firmware");
    int max_batch = s->peer.max_steps ? s->peer.max_steps : 1;
    if (max_batch > FWP_MAX_STEPS_PER_BATCH)
        max_batch = FWP_MAX_STEPS_PER_BATCH;
    int inflight = s->opt.inflight > 0 ? s->opt.inflight : max_batch;

    while (!x->err && x->confirmed < x->n) {
        /* Refill when half the allowance is free (or the rest fits): fewer,
         * fuller frames, and the robot never runs dry on a real link. */
        for (;;) {
            int out = x->sent - x->confirmed, left = x->n - x->sent;
            int room = inflight - out;
            int want = room < left ? room : left;
            if (want > max_batch)
                want = max_batch;
            int enough = inflight / 2 < left ? inflight / 2 : left;
            if (enough > max_batch)
                enough = max_batch;
            if (want <= 0 || want < enough || fwp_window_free(&s->ep) <= 0 ||
                ctl_now_us() < x->busy_until_us)
                break;
            int rc = send_batch(s, steps, want);
            if (rc == FWP_ERR_BUSY)
                break;
            if (rc != FWP_OK) {
                fail(s, CTL_ERR_PROTOCOL, "STEPS not sent: %s",
                     fwp_strerror(rc));
                break;
            }
        }
        if (x->err)
            break;
        if (!pump(s, 50))
            break;
        int64_t now = ctl_now_us();
        if (x->sent > x->confirmed &&
            now - s->progress_us > (int64_t)s->opt.step_timeout_ms * 1000)
            fail(s, CTL_ERR_TIMEOUT,
                 "step %u (protocol step %d) did not finish within %d ms",
                 id_add(x->first_id, x->confirmed), x->confirmed + 1,
                 s->opt.step_timeout_ms);
        if (x->sent == x->confirmed)
            s->progress_us = now;
    }
    if (!x->err && x->confirmed == x->n) {
        x->exact = true;
        s->x = NULL;
        return CTL_OK;
    }
    if (!x->err)
        fail(s, CTL_ERR_LINK_LOST, "the link was lost");
    stop_and_settle(s);
    s->x = NULL;
    return x->err;
}

void ctl_status_grip(const fwp_status *st, int g, char out[3])
{
    uint8_t v = st->grip[g];
    if (v == FWP_GRIP_UNKNOWN) {
        memcpy(out, "?", 2);
        return;
    }
    out[0] = (char)('0' + (v & FWP_GRIP_ANGLE));
    out[1] = (v & FWP_GRIP_CLOSED) ? 'c' : 'o';
    out[2] = '\0';
}

char ctl_status_face(uint8_t f)
{
    return f < 6 ? "URFDLB"[f] : '?';
}

void ctl_status_describe(const fwp_status *st, char *out, size_t len)
{
    char g[4][3];
    for (int i = 0; i < 4; i++)
        ctl_status_grip(st, i, g[i]);
    snprintf(out, len, "R=%s L=%s F=%s B=%s up=%c front=%c", g[0], g[1], g[2],
             g[3], ctl_status_face(st->up), ctl_status_face(st->front));
}
