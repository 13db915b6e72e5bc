/*
 * fuzz_decode.c - libFuzzer harness for the firmware protocol (fwp.c).
 * Built only with -DQS_FUZZ=ON and clang (see firmware-proto/CMakeLists.txt
 * and the fuzzing section of docs/firmware-protocol.md for the command).
 *
 * Every input goes, as arbitrary bytes, through
 *   1. fwp_decode_frame: on success the message must re-encode to exactly
 *      the input, on failure the error must be one of the decode errors;
 *   2. COBS decode and encode, with the same round-trip oracle, also on
 *      the input with runs expanded (to reach 254-byte blocks quickly);
 *   3. the stream decoder, byte by byte: every frame it yields must
 *      re-encode to the bytes between its delimiters, and it must agree
 *      with fwp_decode_frame on every delimited segment.
 * Then the first byte picks one of three structure-aware modes, because
 * random bytes almost never carry a valid CRC and would leave the payload
 * and endpoint logic unexplored:
 *   A. an endpoint (either role) fed frames the harness completes with CRC
 *      and COBS (any type, seq, ack, length field and payload; each also
 *      goes through the round-trip oracle of 1), HELLOs from peers of
 *      several sessions, clock jumps and application sends; it checks that
 *      the endpoint only ever writes valid frames, never holds more than
 *      the window, and delivers sequence numbers consecutively within a
 *      session pairing;
 *   B. two endpoints over a link the input controls (deliver any queued
 *      frame, drop, duplicate, flip a bit, advance time): the firmware
 *      must see the host's batches strictly in order without duplicates,
 *      and, if no session was reset, all of them once the link heals;
 *   C. messages of every type built field by field from the input (mostly
 *      valid): fwp_check_message must agree with fwp_encode_frame, and what
 *      encodes must decode to the same message and bytes, also through the
 *      stream decoder.
 * Any violation aborts, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fwp.h"

#define CHECK(cond)                                                         \
    do {                                                                    \
        if (!(cond)) {                                                      \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__,          \
                    __LINE__, #cond);                                       \
            abort();                                                        \
        }                                                                   \
    } while (0)

static int is_decode_error(int rc)
{
    return rc <= FWP_ERR_CRC && rc >= FWP_ERR_PAYLOAD;
}

/* A reader over the script part of the input; zeros once exhausted. */
typedef struct {
    const uint8_t *p;
    size_t n, at;
} script;

static int more(const script *s)
{
    return s->at < s->n;
}

static uint8_t next(script *s)
{
    return s->at < s->n ? s->p[s->at++] : 0;
}

/* A STATUS orientation byte: a face 0..5, mostly, else unknown or junk. */
static uint8_t face_byte(uint8_t v)
{
    return v < 200 ? (uint8_t)(v % 6) : v < 250 ? FWP_FACE_UNKNOWN : v;
}

/* ------------------------------------------------------------- the codec */

static void check_frame(const uint8_t *d, size_t n)
{
    fwp_message m;
    int rc = fwp_decode_frame(d, n, &m);
    if (rc != FWP_OK) {
        CHECK(is_decode_error(rc));
        return;
    }
    uint8_t enc[FWP_MAX_ENCODED];
    size_t len = 0;
    CHECK(fwp_encode_frame(&m, enc, sizeof enc, &len) == FWP_OK);
    CHECK(len == n && memcmp(enc, d, n) == 0);
}

static void check_cobs(const uint8_t *d, size_t n)
{
    /* Exactly sized heap buffers, so ASan sees a one-byte overrun. */
    uint8_t *out = malloc(n ? n - 1 : 1), *again = malloc(n + n / 254 + 2);
    size_t len = 0, len2 = 0;
    int rc = fwp_cobs_decode(d, n, out, n ? n - 1 : 0, &len);
    CHECK(rc == FWP_OK || rc == FWP_ERR_COBS);
    if (rc == FWP_OK) {
        CHECK(fwp_cobs_encode(out, len, again, FWP_COBS_MAX(len), &len2) ==
              FWP_OK);
        CHECK(len2 == n && memcmp(again, d, n) == 0);
        /* An empty block appended is the one place where COBS has two
         * spellings (after a full block); probe it for every valid input. */
        uint8_t *plus = malloc(n + 1), *out2 = malloc(n);
        memcpy(plus, d, n);
        plus[n] = 0x01;
        size_t len3 = 0;
        rc = fwp_cobs_decode(plus, n + 1, out2, n, &len3);
        CHECK(rc == FWP_OK || rc == FWP_ERR_COBS);
        if (rc == FWP_OK) {
            CHECK(fwp_cobs_encode(out2, len3, again, FWP_COBS_MAX(len3),
                                  &len2) == FWP_OK);
            CHECK(len2 == n + 1 && memcmp(again, plus, n + 1) == 0);
        }
        free(plus);
        free(out2);
    }
    /* And the other way: any bytes encode, and decode back. */
    CHECK(fwp_cobs_encode(d, n, again, FWP_COBS_MAX(n), &len2) == FWP_OK);
    CHECK(memchr(again, 0, len2) == NULL);
    uint8_t *back = malloc(n ? n : 1);
    CHECK(fwp_cobs_decode(again, len2, back, n, &len) == FWP_OK);
    CHECK(len == n && (n == 0 || memcmp(back, d, n) == 0));
    free(out);
    free(again);
    free(back);
}

/* COBS changes behaviour every 254 bytes, a length libFuzzer reaches
 * slowly; so COBS also gets the input with runs expanded: FE n v stands for
 * n copies of v. */
static void check_cobs_expanded(const uint8_t *d, size_t n)
{
    static uint8_t big[4096];
    size_t len = 0;
    int runs = 0;
    for (size_t i = 0; i < n && len < sizeof big; i++) {
        if (d[i] == 0xFE && i + 2 < n) {
            for (int k = 0; k < d[i + 1] && len < sizeof big; k++)
                big[len++] = d[i + 2];
            i += 2;
            runs++;
        } else {
            big[len++] = d[i];
        }
    }
    if (runs == 0)
        return; /* the same as check_cobs */
    uint8_t *copy = malloc(len ? len : 1); /* exactly sized for ASan */
    memcpy(copy, big, len);
    check_cobs(copy, len);
    free(copy);
}

static void check_stream(const uint8_t *d, size_t n)
{
    fwp_stream s;
    fwp_message m, direct;
    size_t start = 0;
    int overflowed = 0;
    fwp_stream_init(&s);
    for (size_t i = 0; i < n; i++) {
        int rc = fwp_stream_push(&s, d[i], &m);
        if (rc == FWP_ERR_TOO_LONG && d[i] != 0) {
            CHECK(i - start == FWP_MAX_ENCODED);
            overflowed = 1;
            continue;
        }
        if (d[i] != 0) {
            CHECK(rc == 0);
            continue;
        }
        /* A delimiter: the stream's verdict on d[start..i) must be the
         * frame decoder's (silence for empty or overflowed segments). */
        size_t len = i - start;
        if (overflowed || len == 0) {
            CHECK(rc == 0);
        } else {
            int want = fwp_decode_frame(d + start, len, &direct);
            CHECK(rc == (want == FWP_OK ? 1 : want));
            if (rc == 1) {
                uint8_t enc[FWP_MAX_ENCODED];
                size_t elen = 0;
                CHECK(memcmp(&m, &direct, sizeof m) == 0);
                CHECK(fwp_encode_frame(&m, enc, sizeof enc, &elen) ==
                      FWP_OK);
                CHECK(elen == len && memcmp(enc, d + start, len) == 0);
            }
        }
        start = i + 1;
        overflowed = 0;
    }
}

/* ------------------------------------------------------ shared endpoints */

typedef struct {
    fwp_endpoint ep;
    uint32_t *clock;
    int resets;      /* PEER_RESET, RETRY_LIMIT: a new pairing */
    int seq_known;   /* a sequenced message was delivered this pairing */
    uint8_t last_seq;
    /* mode B */
    void *link;
    int dir;
    int got;         /* batches (firmware) or events (host) delivered */
    int last_id;     /* last batch number seen, -1 before any */
    int owed;        /* firmware: events owed to the host */
} node;

static uint32_t node_now(void *ctx)
{
    return *((node *)ctx)->clock;
}

/* Everything an endpoint writes must be one valid, delimited frame. */
static void check_written(const uint8_t *b, size_t n)
{
    fwp_message m;
    CHECK(n >= 3 && n <= FWP_MAX_WIRE);
    CHECK(b[0] == 0 && b[n - 1] == 0);
    CHECK(fwp_decode_frame(b + 1, n - 2, &m) == FWP_OK);
}

/* Within one pairing, delivered sequence numbers go up by one. */
static void check_seq(node *nd, const fwp_message *m)
{
    if (m->type == FWP_MSG_HELLO) {
        nd->seq_known = 0; /* a HELLO is delivered when a pairing starts */
        return;
    }
    CHECK(fwp_type_is_sequenced(m->type));
    if (nd->seq_known)
        CHECK(m->seq == (uint8_t)(nd->last_seq + 1));
    nd->seq_known = 1;
    nd->last_seq = m->seq;
}

static void build_steps(fwp_message *m, int batch, int count, uint8_t act)
{
    memset(m, 0, sizeof *m);
    m->type = FWP_MSG_STEPS;
    m->u.steps.count = (uint8_t)count;
    for (int i = 0; i < count; i++) {
        /* The batch number travels as the first step's id. */
        m->u.steps.step[i].id = (uint16_t)(batch + i);
        for (int g = 0; g < FWP_GRIPPERS; g++)
            m->u.steps.step[i].action[g] =
                (uint8_t)((act >> g) % (FWP_ACT_MAX + 1));
    }
}

/* ------------------------------------------- mode A: adversarial frames */

#define OUR_SESSION 0x51534657u

static int a_write(void *ctx, const uint8_t *b, size_t n)
{
    (void)ctx;
    check_written(b, n);
    return 0;
}

static void a_message(void *ctx, const fwp_message *m)
{
    check_seq(ctx, m);
}

static void a_event(void *ctx, int event, int detail)
{
    node *nd = ctx;
    CHECK(event >= FWP_EV_CONNECTED && event <= FWP_EV_INCOMPATIBLE);
    CHECK(detail >= 0);
    if (event == FWP_EV_RETRY_LIMIT || event == FWP_EV_PEER_RESET) {
        nd->resets++;
        nd->seq_known = 0;
    }
}

/* Feeds a frame of the given header fields and payload, CRC made right. */
static void feed_frame(fwp_endpoint *ep, uint8_t version, uint8_t type,
                       uint8_t seq, uint8_t ack, int length_field,
                       const uint8_t *p, size_t plen)
{
    uint8_t raw[FWP_MAX_FRAME + 8], wire[FWP_MAX_WIRE + 8];
    size_t len;
    if (plen > FWP_MAX_PAYLOAD)
        plen = FWP_MAX_PAYLOAD;
    raw[0] = version;
    raw[1] = type;
    raw[2] = seq;
    raw[3] = ack;
    raw[4] = (uint8_t)(length_field < 0 ? (int)plen : length_field);
    if (plen)
        memcpy(raw + 5, p, plen);
    uint16_t crc = fwp_crc16(raw, 5 + plen);
    raw[5 + plen] = (uint8_t)crc;
    raw[6 + plen] = (uint8_t)(crc >> 8);
    wire[0] = 0;
    CHECK(fwp_cobs_encode(raw, plen + 7, wire + 1, sizeof wire - 2, &len) ==
          FWP_OK);
    wire[len + 1] = 0;
    check_frame(wire + 1, len); /* a valid CRC: the decoder's real work */
    fwp_feed(ep, wire, len + 2);
}

static void app_send(fwp_endpoint *ep, script *s)
{
    fwp_message m;
    memset(&m, 0, sizeof m);
    uint8_t kind = next(s);
    switch (kind % 8) {
    case 0: {
        int first = next(s), count = 1 + next(s) % FWP_MAX_STEPS_PER_BATCH;
        build_steps(&m, first, count, next(s));
        break;
    }
    case 1: m.type = FWP_MSG_HOME; break;
    case 2: m.type = FWP_MSG_ESTOP; break;
    case 3:
        m.type = FWP_MSG_NAK;
        m.u.nak.reason = next(s);
        m.u.nak.ref_seq = next(s);
        break;
    case 4:
        m.type = FWP_MSG_EVENT;
        m.u.event.kind = next(s) % 3;
        m.u.event.step_id = next(s);
        m.u.event.step_id = (uint16_t)(m.u.event.step_id | next(s) << 8);
        break;
    case 5:
        m.type = FWP_MSG_FAULT;
        m.u.fault.code = next(s);
        m.u.fault.gripper = next(s);
        break;
    case 6:
        m.type = FWP_MSG_STATUS;
        m.u.status.query = next(s) & 1;
        m.u.status.state = next(s) % 8;
        m.u.status.up = face_byte(next(s));
        m.u.status.front = face_byte(next(s));
        break;
    default:
        m.type = next(s); /* anything, valid or not */
        break;
    }
    int rc = fwp_send(ep, &m);
    CHECK(rc <= 0 && rc >= FWP_ERR_LIMIT);
}

static void mode_endpoint(const uint8_t *d, size_t n)
{
    static node nd;
    static uint32_t clock;
    fwp_config cfg;
    script s = {d, n, 0};
    memset(&nd, 0, sizeof nd);
    clock = 0xFFFFF000u; /* the clock wraps during the run */
    nd.clock = &clock;
    fwp_config_default(&cfg, next(&s) & 1 ? FWP_ROLE_HOST
                                          : FWP_ROLE_FIRMWARE);
    cfg.link_timeout_ms = 300;
    cfg.session = OUR_SESSION;
    cfg.max_retries = 3;
    cfg.write = a_write;
    cfg.now_ms = node_now;
    cfg.on_message = a_message;
    cfg.on_event = a_event;
    cfg.ctx = &nd;
    CHECK(fwp_init(&nd.ep, &cfg) == FWP_OK);
    fwp_poll(&nd.ep);
    while (more(&s)) {
        uint8_t op = next(&s);
        switch (op % 5) {
        case 0: { /* a frame of any content, CRC right */
            uint8_t version = op & 0x80 ? next(&s) : FWP_FRAME_VERSION;
            int length = op & 0x40 ? next(&s) : -1;
            uint8_t type = next(&s), seq = next(&s), ack = next(&s);
            size_t plen = next(&s);
            if (plen > s.n - s.at)
                plen = s.n - s.at;
            feed_frame(&nd.ep, version, type, seq, ack, length, s.p + s.at,
                       plen);
            s.at += plen;
            break;
        }
        case 1: { /* raw bytes */
            size_t len = next(&s);
            if (len > s.n - s.at)
                len = s.n - s.at;
            fwp_feed(&nd.ep, s.p + s.at, len);
            s.at += len;
            break;
        }
        case 2: /* time passes */
            clock += (uint32_t)next(&s) * (op & 0x80 ? 16u : 1u);
            fwp_poll(&nd.ep);
            break;
        case 3: { /* a HELLO from one of a few host sessions */
            uint8_t f = next(&s);
            uint8_t p[FWP_HELLO_SIZE];
            uint32_t peer = 0x1000 + (f & 3);
            uint32_t names = f & 4 ? OUR_SESSION : (f & 8 ? 1 : 0);
            p[0] = f & 0x80 ? 2 : 1; /* 2..x excludes our version */
            p[1] = f & 0x10 ? 2 : 1;
            p[2] = f & 0x20 ? FWP_ROLE_FIRMWARE : FWP_ROLE_HOST;
            p[3] = f & 0x40 ? FWP_HELLO_CONNECTING : 0;
            p[4] = (uint8_t)(1 + next(&s) % 15);
            p[5] = 1 + next(&s) % 40;
            p[6] = 1 + next(&s) % 8;
            p[7] = 0;
            p[8] = 100;
            p[9] = 0;
            p[10] = next(&s);
            p[11] = 0;
            for (int i = 0; i < 4; i++) {
                p[12 + i] = (uint8_t)(peer >> (8 * i));
                p[16 + i] = (uint8_t)(names >> (8 * i));
            }
            uint8_t seq = next(&s), ack = next(&s);
            feed_frame(&nd.ep, 1, FWP_MSG_HELLO, seq, ack, -1, p, sizeof p);
            break;
        }
        default:
            app_send(&nd.ep, &s);
            break;
        }
        CHECK(fwp_unacked(&nd.ep) <= FWP_WINDOW + 1);
        CHECK(fwp_window_free(&nd.ep) >= 0 &&
              fwp_window_free(&nd.ep) <= FWP_WINDOW);
    }
}

/* --------------------------------------- mode B: two ends, hostile link */

#define LINK_CAP 16
#define MAX_AGE 32

typedef struct {
    uint8_t b[FWP_MAX_WIRE];
    size_t n;
    int dir; /* 0: to the firmware, 1: to the host */
    int age;
} pkt;

typedef struct {
    pkt q[LINK_CAP];
    int n;
    node host, fw;
    uint32_t clock;
    int sent;    /* batches the host application sent */
    int events;  /* events the firmware application sent */
} link_t;

static int b_write(void *ctx, const uint8_t *b, size_t n)
{
    node *nd = ctx;
    link_t *l = nd->link;
    check_written(b, n);
    if (l->n == LINK_CAP)
        return -1; /* the link is full: lost, and the writer is told */
    pkt *k = &l->q[l->n++];
    memcpy(k->b, b, n);
    k->n = n;
    k->dir = nd->dir;
    k->age = 0;
    return 0;
}

/* The protocol assumes no frame outlives the pairing it was sent in (as on
 * a serial line); the harness honours that by emptying the link whenever a
 * side starts a new pairing. */
static void b_event(void *ctx, int event, int detail)
{
    node *nd = ctx;
    link_t *l = nd->link;
    (void)detail;
    if (event == FWP_EV_PEER_RESET || event == FWP_EV_RETRY_LIMIT) {
        nd->resets++;
        nd->seq_known = 0;
        l->n = 0;
    }
}

static void b_message(void *ctx, const fwp_message *m)
{
    node *nd = ctx;
    link_t *l = nd->link;
    check_seq(nd, m);
    int id;
    if (nd == &l->fw && m->type == FWP_MSG_STEPS) {
        id = m->u.steps.step[0].id;
        nd->owed++;
    } else if (nd == &l->host && m->type == FWP_MSG_EVENT) {
        id = m->u.event.step_id;
    } else {
        return;
    }
    /* Exactly once and in order: never the same or an earlier one. */
    CHECK(id > nd->last_id);
    nd->last_id = id;
    nd->got++;
}

static void deliver(link_t *l, int i)
{
    pkt k = l->q[i];
    l->q[i] = l->q[--l->n];
    for (int j = 0; j < l->n; j++)
        l->q[j].age++;
    /* A frame may be overtaken, but not forever: that bounds how far
     * behind a stray copy can be, as the sequence space requires. */
    for (int j = 0; j < l->n;)
        if (l->q[j].age > MAX_AGE)
            l->q[j] = l->q[--l->n];
        else
            j++;
    fwp_feed(k.dir == 0 ? &l->fw.ep : &l->host.ep, k.b, k.n);
}

static void b_apps(link_t *l, int host_sends, int fw_sends)
{
    fwp_message m;
    if (host_sends && fwp_window_free(&l->host.ep) > 0) {
        build_steps(&m, l->sent, 1 + l->sent % 3, (uint8_t)l->sent);
        if (fwp_send(&l->host.ep, &m) == FWP_OK)
            l->sent++;
    }
    if (fw_sends && l->fw.owed > 0 && fwp_window_free(&l->fw.ep) > 0) {
        memset(&m, 0, sizeof m);
        m.type = FWP_MSG_EVENT;
        m.u.event.kind = FWP_STEP_DONE;
        m.u.event.step_id = (uint16_t)l->events;
        if (fwp_send(&l->fw.ep, &m) == FWP_OK) {
            l->events++;
            l->fw.owed--;
        }
    }
}

static void b_init(link_t *l, node *nd, fwp_role role, uint32_t session)
{
    fwp_config cfg;
    fwp_config_default(&cfg, role);
    cfg.session = session;
    cfg.retransmit_ms = 20;
    cfg.max_retries = 4;
    cfg.heartbeat_ms = 50;
    cfg.link_timeout_ms = role == FWP_ROLE_FIRMWARE ? 200 : 0;
    cfg.write = b_write;
    cfg.now_ms = node_now;
    cfg.on_message = b_message;
    cfg.on_event = b_event;
    cfg.ctx = nd;
    nd->clock = &l->clock;
    nd->link = l;
    nd->dir = role == FWP_ROLE_HOST ? 0 : 1;
    nd->last_id = -1;
    CHECK(fwp_init(&nd->ep, &cfg) == FWP_OK);
}

static void mode_link(const uint8_t *d, size_t n)
{
    static link_t l;
    script s = {d, n, 0};
    memset(&l, 0, sizeof l);
    l.clock = 77;
    b_init(&l, &l.host, FWP_ROLE_HOST, 0xA1);
    b_init(&l, &l.fw, FWP_ROLE_FIRMWARE, 0xB2);
    while (more(&s)) {
        uint8_t op = next(&s);
        int i = l.n ? next(&s) % l.n : 0;
        switch (op % 7) {
        case 0:
        case 1:
            if (l.n)
                deliver(&l, i);
            break;
        case 2: /* lost */
            if (l.n)
                l.q[i] = l.q[--l.n];
            break;
        case 3: /* duplicated */
            if (l.n && l.n < LINK_CAP)
                l.q[l.n++] = l.q[i];
            break;
        case 4: { /* damaged */
            if (l.n) {
                uint8_t bit = next(&s);
                l.q[i].b[(size_t)bit % l.q[i].n] ^= (uint8_t)(1u << (bit >> 5));
            }
            break;
        }
        case 5: /* time passes */
            l.clock += 1 + next(&s) % 64;
            fwp_poll(&l.host.ep);
            fwp_poll(&l.fw.ep);
            break;
        default:
            b_apps(&l, op & 0x10, op & 0x20);
            break;
        }
    }
    /* The link heals: everything is delivered in order, time runs. */
    for (int round = 0; round < 200; round++) {
        while (l.n)
            deliver(&l, 0);
        if (round < 100)
            b_apps(&l, 0, 1);
        l.clock += 10;
        fwp_poll(&l.host.ep);
        fwp_poll(&l.fw.ep);
    }
    while (l.n)
        deliver(&l, 0);
    CHECK(fwp_link(&l.host.ep) == FWP_LINK_CONNECTED);
    CHECK(fwp_link(&l.fw.ep) == FWP_LINK_CONNECTED);
    CHECK(fwp_unacked(&l.host.ep) == 0 && fwp_unacked(&l.fw.ep) == 0);
    if (l.host.resets == 0 && l.fw.resets == 0) {
        /* Nothing was discarded, so nothing may be missing. */
        CHECK(l.fw.got == l.sent);
        CHECK(l.host.got == l.events);
    }
}

/* ---------------------------------------- mode C: generated messages */

static uint16_t next16(script *s)
{
    uint16_t lo = next(s);
    return (uint16_t)(lo | next(s) << 8);
}

static uint32_t next32(script *s)
{
    uint32_t lo = next16(s);
    return lo | (uint32_t)next16(s) << 16;
}

/* A message of any type, valid more often than not: each field is drawn
 * from a range slightly wider than the valid one. */
static void gen_message(script *s, fwp_message *m)
{
    memset(m, 0, sizeof *m);
    m->type = next(s) % 12; /* 0 and 11 are not types */
    m->seq = next(s);
    m->ack = next(s);
    switch (m->type) {
    case FWP_MSG_HELLO: {
        fwp_hello *h = &m->u.hello;
        h->version_min = next(s) % 3;
        h->version_max = (uint8_t)(h->version_min + next(s) % 3);
        h->role = next(s) % 4;
        h->flags = next(s) % 3;
        h->gripper_mask = next(s) % 17;
        h->max_steps = next(s);
        h->window = next(s);
        h->features = next(s) % 5;
        h->heartbeat_ms = next16(s);
        h->link_timeout_ms = next16(s);
        h->session = next(s) & 1 ? 0 : next32(s);
        h->peer_session = next32(s);
        break;
    }
    case FWP_MSG_STEPS: {
        fwp_steps *st = &m->u.steps;
        st->count = next(s) % (FWP_MAX_STEPS_PER_BATCH + 2);
        int n = st->count <= FWP_MAX_STEPS_PER_BATCH ? st->count
                                                     : FWP_MAX_STEPS_PER_BATCH;
        for (int i = 0; i < n; i++) {
            st->step[i].id = next16(s);
            for (int g = 0; g < FWP_GRIPPERS; g++)
                st->step[i].action[g] = next(s) % (FWP_ACT_MAX + 2);
        }
        break;
    }
    case FWP_MSG_NAK: {
        m->u.nak.reason = next(s);
        m->u.nak.ref_seq = next(s);
        m->u.nak.step_id = next16(s);
        m->u.nak.rule = next(s) % 14;
        uint8_t g = next(s);
        m->u.nak.gripper = g & 0x80 ? 0xFF : g % 6;
        break;
    }
    case FWP_MSG_EVENT:
        m->u.event.kind = next(s) % 4;
        m->u.event.step_id = next16(s);
        m->u.event.duration_ms = next16(s);
        break;
    case FWP_MSG_FAULT: {
        m->u.fault.code = next16(s);
        m->u.fault.step_id = next16(s);
        uint8_t g = next(s);
        m->u.fault.gripper = g & 0x80 ? 0xFF : g % 6;
        break;
    }
    case FWP_MSG_STATUS: {
        fwp_status *st = &m->u.status;
        uint8_t f = next(s);
        st->query = f & 1;
        st->has_cube = (f >> 1) & 1;
        st->state = next(s) % 7;
        st->last_step = next16(s);
        st->fault = next16(s);
        st->queued = next16(s);
        for (int g = 0; g < FWP_GRIPPERS; g++) {
            uint8_t v = next(s);
            st->grip[g] = v & 0x80 ? FWP_GRIP_UNKNOWN : v % 9;
        }
        st->up = face_byte(next(s));
        st->front = face_byte(next(s));
        for (int i = 0; i < FWP_FACELETS; i++) {
            uint8_t c = next(s);
            st->cube[i] = c == 0xFF ? 'x' : "URFDLB"[c % 6];
        }
        break;
    }
    default:
        break;
    }
}

static void mode_messages(const uint8_t *d, size_t n)
{
    script s = {d, n, 0};
    while (more(&s)) {
        fwp_message m, back;
        uint8_t enc[FWP_MAX_ENCODED], again[FWP_MAX_ENCODED];
        uint8_t wire[FWP_MAX_WIRE];
        size_t len = 0, len2 = 0;
        gen_message(&s, &m);
        int rc = fwp_check_message(&m);
        CHECK(rc == FWP_OK || rc == FWP_ERR_PAYLOAD || rc == FWP_ERR_TYPE);
        /* The encoder refuses exactly what the checker refuses. */
        CHECK(fwp_encode_frame(&m, enc, sizeof enc, &len) == rc);
        if (rc != FWP_OK)
            continue;
        CHECK(fwp_decode_frame(enc, len, &back) == FWP_OK);
        CHECK(back.type == m.type && back.seq == m.seq && back.ack == m.ack);
        if (m.type == FWP_MSG_HELLO)
            CHECK(memcmp(&back.u.hello, &m.u.hello, sizeof m.u.hello) == 0);
        if (m.type == FWP_MSG_STEPS)
            CHECK(back.u.steps.count == m.u.steps.count &&
                  memcmp(back.u.steps.step, m.u.steps.step,
                         m.u.steps.count * sizeof(fwp_step)) == 0);
        if (m.type == FWP_MSG_STATUS && !m.u.status.query &&
            m.u.status.has_cube)
            CHECK(memcmp(back.u.status.cube, m.u.status.cube,
                         FWP_FACELETS) == 0);
        CHECK(fwp_encode_frame(&back, again, sizeof again, &len2) == FWP_OK);
        CHECK(len2 == len && memcmp(again, enc, len) == 0);
        /* On the wire, through the stream decoder: the same message. */
        fwp_stream st;
        fwp_message got;
        int frames = 0;
        wire[0] = 0;
        memcpy(wire + 1, enc, len);
        wire[len + 1] = 0;
        fwp_stream_init(&st);
        for (size_t i = 0; i < len + 2; i++) {
            int r = fwp_stream_push(&st, wire[i], &got);
            CHECK(r == 0 || r == 1);
            frames += r;
        }
        CHECK(frames == 1 && memcmp(&got, &back, sizeof got) == 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    check_frame(data, size);
    check_cobs(data, size);
    check_cobs_expanded(data, size);
    check_stream(data, size);
    if (size > 0) {
        switch (data[0] % 4) {
        case 1: mode_endpoint(data + 1, size - 1); break;
        case 2: mode_link(data + 1, size - 1); break;
        case 3: mode_messages(data + 1, size - 1); break;
        default: break; /* the raw checks only */
        }
    }
    return 0;
}
