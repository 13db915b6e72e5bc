/*
 * fwp.c - the quadsolve firmware protocol: the codec (CRC-16, COBS, frame
 * encoding and decoding, the byte-stream decoder) and the endpoint (session
 * handshake, go-back-N window, acknowledgements, retransmission, heartbeat
 * and link watchdog). docs/firmware-protocol.md specifies what is
 * implemented here; the comments say why it is done this way.
 *
 * This file must stay portable to a microcontroller: C99, freestanding, no
 * allocation, no OS calls, only memcpy/memset from the C library, and no
 * arithmetic that assumes int is wider than 16 bits (hence the unsigned
 * casts before shifts). The ctest test fwp_freestanding compiles it so.
 */
#include <string.h>

#include "fwp.h"

/* _Static_assert is C11; the typedef fallback keeps C99 -Wpedantic quiet. */
#if defined(__STDC_VERSION__) && __STDC_VERSION__ >= 201112L
#define STATIC_ASSERT(cond, msg) _Static_assert(cond, msg)
#else
#define SA_CAT2(a, b) a##b
#define SA_CAT(a, b) SA_CAT2(a, b)
#define STATIC_ASSERT(cond, msg)                                            \
    typedef char SA_CAT(static_assert_line_, __LINE__)[(cond) ? 1 : -1]
#endif

STATIC_ASSERT(FWP_MAX_STEPS_PER_BATCH >= 1, "a batch holds at least a step");
STATIC_ASSERT(FWP_MAX_PAYLOAD <= 255,
              "the payload length field is one byte: at most 42 steps");
STATIC_ASSERT(FWP_HELLO_SIZE <= FWP_MAX_PAYLOAD &&
                  FWP_STATUS_CUBE_SIZE <= FWP_MAX_PAYLOAD,
              "every message fits the largest payload");
STATIC_ASSERT(FWP_GRIPPERS == 4 && FWP_STEP_SIZE == 2 + FWP_GRIPPERS,
              "a step is an id and one action per gripper, mask is 4 bits");
STATIC_ASSERT(FWP_WINDOW >= 1 && FWP_WINDOW + 1 < 128,
              "the window plus the ESTOP slot must stay below half the "
              "8-bit sequence space, or old and new frames are confused");
STATIC_ASSERT(sizeof(((fwp_endpoint *)0)->wire) >=
                  FWP_COBS_MAX(FWP_MAX_FRAME) + 2,
              "a maximal frame, COBS-encoded and delimited, fits the "
              "transmit buffer");
STATIC_ASSERT(sizeof(((fwp_stream *)0)->buf) >= FWP_COBS_MAX(FWP_MAX_FRAME),
              "a maximal encoded frame fits the receive buffer");
STATIC_ASSERT(FWP_MAX_WIRE <= 0x7FFF, "frame sizes fit a 16-bit int");

#define RING (FWP_WINDOW + 1)
#define TYPE_MAX FWP_MSG_STATUS
#define HELLO_FLAGS FWP_HELLO_CONNECTING
#define FEATURES (FWP_FEATURE_CUBE_STATE | FWP_FEATURE_ESTOP_BUTTON)
#define STATUS_F_CUBE 0x01
#define NO_GRIPPER 0xFF

/* ------------------------------------------------------------------ errors */

static const struct {
    int code;
    const char *id;
    const char *message;
} errors[] = {
    {FWP_OK, "OK", "success"},
    {FWP_ERR_CRC, "CRC", "frame CRC mismatch"},
    {FWP_ERR_COBS, "COBS", "invalid COBS encoding"},
    {FWP_ERR_TOO_LONG, "TOO_LONG", "frame longer than the maximum"},
    {FWP_ERR_SHORT, "SHORT", "frame shorter than header and CRC"},
    {FWP_ERR_VERSION, "VERSION", "unsupported protocol version"},
    {FWP_ERR_TYPE, "TYPE", "unknown or unexpected message type"},
    {FWP_ERR_LENGTH, "LENGTH", "payload length field does not match frame"},
    {FWP_ERR_PAYLOAD, "PAYLOAD", "payload invalid for its message type"},
    {FWP_ERR_BUFFER, "BUFFER", "output buffer too small"},
    {FWP_ERR_ARGUMENT, "ARGUMENT", "invalid argument"},
    {FWP_ERR_BUSY, "BUSY", "send window full"},
    {FWP_ERR_NOT_CONNECTED, "NOT_CONNECTED", "no session with the peer"},
    {FWP_ERR_ROLE, "ROLE", "message not sent by this role"},
    {FWP_ERR_LIMIT, "LIMIT", "beyond the limits the peer announced"},
};

static int find_error(int err)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == err)
            return (int)i;
    return -1;
}

const char *fwp_strerror(int err)
{
    int i = find_error(err);
    return i < 0 ? "unknown firmware protocol error" : errors[i].message;
}

const char *fwp_errcode(int err)
{
    int i = find_error(err);
    return i < 0 ? "UNKNOWN" : errors[i].id;
}

static const char *const type_names[TYPE_MAX + 1] = {
    "?",     "HELLO", "HOME",      "STEPS", "ACK",   "NAK",
    "EVENT", "FAULT", "HEARTBEAT", "ESTOP", "STATUS",
};

const char *fwp_type_name(int type)
{
    return type >= 1 && type <= TYPE_MAX ? type_names[type] : "?";
}

bool fwp_type_is_sequenced(int type)
{
    return type >= 1 && type <= TYPE_MAX && type != FWP_MSG_HELLO &&
           type != FWP_MSG_ACK && type != FWP_MSG_HEARTBEAT;
}

/* --------------------------------------------------------------- bytes/CRC */

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = (uint8_t)(v & 0xFFu);
    p[1] = (uint8_t)(v >> 8);
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] | ((unsigned)p[1] << 8));
}

static void put32(uint8_t *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (uint8_t)(v >> (8 * i));
}

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
           (uint32_t)p[3] << 24;
}

/* Bitwise rather than a 512-byte table: frames are short, flash is not. */
uint16_t fwp_crc16(const uint8_t *data, size_t n)
{
    unsigned crc = 0xFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= (unsigned)data[i] << 8;
        for (int b = 0; b < 8; b++)
            crc = (crc & 0x8000u) ? ((crc << 1) ^ 0x1021u) : (crc << 1);
        crc &= 0xFFFFu;
    }
    return (uint16_t)crc;
}

/* -------------------------------------------------------------------- COBS */

/* Blocks end at a zero (code < 0xFF, the zero implied) or after 254
 * non-zero bytes (code 0xFF, no zero). Like Wikipedia's reference code and
 * Python's cobs package, and unlike the original paper, no empty block
 * follows a 0xFF block that ends the input: one byte shorter, and frames
 * from those tools decode here. */
int fwp_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                    size_t *out_len)
{
    if ((!in && n) || !out || !out_len)
        return FWP_ERR_ARGUMENT;
    if (cap == 0)
        return FWP_ERR_BUFFER;
    /* Invariant: code_at < o <= cap, so out[code_at] is always in bounds. */
    size_t code_at = 0, o = 1;
    unsigned code = 1;
    for (size_t i = 0; i < n; i++) {
        if (in[i] != 0) {
            if (o >= cap)
                return FWP_ERR_BUFFER;
            out[o++] = in[i];
            code++;
        }
        if (in[i] == 0 || code == 0xFF) {
            out[code_at] = (uint8_t)code;
            code = 1;
            if (in[i] != 0 && i + 1 == n) {
                *out_len = o; /* ended on a full block: nothing follows */
                return FWP_OK;
            }
            if (o >= cap)
                return FWP_ERR_BUFFER;
            code_at = o++;
        }
    }
    out[code_at] = (uint8_t)code;
    *out_len = o;
    return FWP_OK;
}

/* Strict: anything the encoder above would not produce is rejected, which
 * makes encode(decode(x)) == x and gives the fuzzer a sharp oracle. The
 * only other spelling of valid data is a final empty block after a 0xFF
 * block (the paper's form). */
int fwp_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                    size_t *out_len)
{
    if ((!in && n) || (!out && cap) || !out_len)
        return FWP_ERR_ARGUMENT;
    if (n == 0)
        return FWP_ERR_COBS;
    size_t i = 0, o = 0;
    unsigned prev = 0;
    while (i < n) {
        unsigned code = in[i++];
        if (code == 0 || code - 1 > n - i)
            return FWP_ERR_COBS;
        for (unsigned k = 1; k < code; k++) {
            uint8_t b = in[i++];
            if (b == 0)
                return FWP_ERR_COBS;
            if (o >= cap)
                return FWP_ERR_BUFFER;
            out[o++] = b;
        }
        if (i == n && code == 1 && prev == 0xFF)
            return FWP_ERR_COBS;
        if (i < n && code != 0xFF) {
            if (o >= cap)
                return FWP_ERR_BUFFER;
            out[o++] = 0;
        }
        prev = code;
    }
    *out_len = o;
    return FWP_OK;
}

/* ---------------------------------------------------------------- payloads */

static bool is_facelet(char c)
{
    return c == 'U' || c == 'R' || c == 'F' || c == 'D' || c == 'L' ||
           c == 'B';
}

int fwp_check_message(const fwp_message *m)
{
    if (!m)
        return FWP_ERR_ARGUMENT;
    switch (m->type) {
    case FWP_MSG_HELLO: {
        const fwp_hello *h = &m->u.hello;
        if (h->version_min < 1 || h->version_min > h->version_max ||
            (h->role != FWP_ROLE_HOST && h->role != FWP_ROLE_FIRMWARE) ||
            (h->flags & ~HELLO_FLAGS) || h->gripper_mask == 0 ||
            h->gripper_mask > 0x0F || h->max_steps == 0 || h->window == 0 ||
            h->window >= 128 || (h->features & ~FEATURES) || h->session == 0)
            return FWP_ERR_PAYLOAD;
        return FWP_OK;
    }
    case FWP_MSG_HOME:
    case FWP_MSG_ACK:
    case FWP_MSG_HEARTBEAT:
    case FWP_MSG_ESTOP:
        return FWP_OK;
    case FWP_MSG_STEPS: {
        const fwp_steps *s = &m->u.steps;
        if (s->count < 1 || s->count > FWP_MAX_STEPS_PER_BATCH)
            return FWP_ERR_PAYLOAD;
        for (int i = 0; i < s->count; i++) {
            if (s->step[i].id == FWP_NO_STEP)
                return FWP_ERR_PAYLOAD;
            for (int g = 0; g < FWP_GRIPPERS; g++)
                if (s->step[i].action[g] > FWP_ACT_MAX)
                    return FWP_ERR_PAYLOAD;
        }
        return FWP_OK;
    }
    case FWP_MSG_NAK: {
        const fwp_nak *k = &m->u.nak;
        bool rule = k->rule == FWP_RULE_NONE ||
                    (k->rule >= FWP_RULE_ACTION &&
                     k->rule <= FWP_RULE_COLLISION) ||
                    k->rule == FWP_RULE_OPEN_TURN;
        if (!k->reason || !rule ||
            (k->gripper >= FWP_GRIPPERS && k->gripper != NO_GRIPPER))
            return FWP_ERR_PAYLOAD;
        return FWP_OK;
    }
    case FWP_MSG_EVENT:
        if ((m->u.event.kind != FWP_STEP_STARTED &&
             m->u.event.kind != FWP_STEP_DONE) ||
            m->u.event.step_id == FWP_NO_STEP)
            return FWP_ERR_PAYLOAD;
        return FWP_OK;
    case FWP_MSG_FAULT:
        if (m->u.fault.code == 0 ||
            (m->u.fault.gripper >= FWP_GRIPPERS &&
             m->u.fault.gripper != NO_GRIPPER))
            return FWP_ERR_PAYLOAD;
        return FWP_OK;
    case FWP_MSG_STATUS: {
        const fwp_status *s = &m->u.status;
        if (s->query)
            return FWP_OK;
        if (s->state > FWP_ROBOT_STOPPED)
            return FWP_ERR_PAYLOAD;
        for (int g = 0; g < FWP_GRIPPERS; g++)
            if (s->grip[g] != FWP_GRIP_UNKNOWN &&
                (s->grip[g] & ~(FWP_GRIP_ANGLE | FWP_GRIP_CLOSED)))
                return FWP_ERR_PAYLOAD;
        /* Both faces known or neither; known ones on different axes. */
        if ((s->up == FWP_FACE_UNKNOWN) != (s->front == FWP_FACE_UNKNOWN))
            return FWP_ERR_PAYLOAD;
        if (s->up != FWP_FACE_UNKNOWN &&
            (s->up > 5 || s->front > 5 || s->up % 3 == s->front % 3))
            return FWP_ERR_PAYLOAD;
        if (s->has_cube)
            for (int i = 0; i < FWP_FACELETS; i++)
                if (!is_facelet(s->cube[i]))
                    return FWP_ERR_PAYLOAD;
        return FWP_OK;
    }
    default:
        return FWP_ERR_TYPE;
    }
}

static void put_hello(const fwp_hello *h, uint8_t *p)
{
    p[0] = h->version_min;
    p[1] = h->version_max;
    p[2] = h->role;
    p[3] = h->flags;
    p[4] = h->gripper_mask;
    p[5] = h->max_steps;
    p[6] = h->window;
    p[7] = h->features;
    put16(p + 8, h->heartbeat_ms);
    put16(p + 10, h->link_timeout_ms);
    put32(p + 12, h->session);
    put32(p + 16, h->peer_session);
}

/* Writes the payload of a checked message at p; returns its length. */
static size_t put_payload(const fwp_message *m, uint8_t *p)
{
    switch (m->type) {
    case FWP_MSG_HELLO:
        put_hello(&m->u.hello, p);
        return FWP_HELLO_SIZE;
    case FWP_MSG_STEPS: {
        const fwp_steps *s = &m->u.steps;
        p[0] = s->count;
        for (int i = 0; i < s->count; i++) {
            uint8_t *q = p + 1 + FWP_STEP_SIZE * i;
            put16(q, s->step[i].id);
            memcpy(q + 2, s->step[i].action, FWP_GRIPPERS);
        }
        return FWP_STEPS_SIZE((size_t)s->count);
    }
    case FWP_MSG_NAK:
        p[0] = m->u.nak.reason;
        p[1] = m->u.nak.ref_seq;
        put16(p + 2, m->u.nak.step_id);
        p[4] = m->u.nak.rule;
        p[5] = m->u.nak.gripper;
        return FWP_NAK_SIZE;
    case FWP_MSG_EVENT:
        p[0] = m->u.event.kind;
        put16(p + 1, m->u.event.step_id);
        put16(p + 3, m->u.event.duration_ms);
        return FWP_EVENT_SIZE;
    case FWP_MSG_FAULT:
        put16(p, m->u.fault.code);
        put16(p + 2, m->u.fault.step_id);
        p[4] = m->u.fault.gripper;
        return FWP_FAULT_SIZE;
    case FWP_MSG_STATUS: {
        const fwp_status *s = &m->u.status;
        if (s->query)
            return 0;
        p[0] = s->state;
        p[1] = s->has_cube ? STATUS_F_CUBE : 0;
        put16(p + 2, s->last_step);
        put16(p + 4, s->fault);
        put16(p + 6, s->queued);
        memcpy(p + 8, s->grip, FWP_GRIPPERS);
        p[12] = s->up;
        p[13] = s->front;
        if (!s->has_cube)
            return FWP_STATUS_SIZE;
        memcpy(p + FWP_STATUS_SIZE, s->cube, FWP_FACELETS);
        return FWP_STATUS_CUBE_SIZE;
    }
    default: /* HOME, ACK, HEARTBEAT, ESTOP */
        return 0;
    }
}

/* Parses the payload of m->type from p[0..n) into m; the size must be the
 * exact size of the type, and the content must pass fwp_check_message. */
static int get_payload(fwp_message *m, const uint8_t *p, size_t n)
{
    switch (m->type) {
    case FWP_MSG_HELLO: {
        fwp_hello *h = &m->u.hello;
        if (n != FWP_HELLO_SIZE)
            return FWP_ERR_PAYLOAD;
        h->version_min = p[0];
        h->version_max = p[1];
        h->role = p[2];
        h->flags = p[3];
        h->gripper_mask = p[4];
        h->max_steps = p[5];
        h->window = p[6];
        h->features = p[7];
        h->heartbeat_ms = get16(p + 8);
        h->link_timeout_ms = get16(p + 10);
        h->session = get32(p + 12);
        h->peer_session = get32(p + 16);
        break;
    }
    case FWP_MSG_STEPS: {
        fwp_steps *s = &m->u.steps;
        /* The count is checked before it sizes anything. */
        if (n < 1 || p[0] < 1 || p[0] > FWP_MAX_STEPS_PER_BATCH ||
            n != FWP_STEPS_SIZE((size_t)p[0]))
            return FWP_ERR_PAYLOAD;
        s->count = p[0];
        for (int i = 0; i < s->count; i++) {
            const uint8_t *q = p + 1 + FWP_STEP_SIZE * i;
            s->step[i].id = get16(q);
            memcpy(s->step[i].action, q + 2, FWP_GRIPPERS);
        }
        break;
    }
    case FWP_MSG_NAK:
        if (n != FWP_NAK_SIZE)
            return FWP_ERR_PAYLOAD;
        m->u.nak.reason = p[0];
        m->u.nak.ref_seq = p[1];
        m->u.nak.step_id = get16(p + 2);
        m->u.nak.rule = p[4];
        m->u.nak.gripper = p[5];
        break;
    case FWP_MSG_EVENT:
        if (n != FWP_EVENT_SIZE)
            return FWP_ERR_PAYLOAD;
        m->u.event.kind = p[0];
        m->u.event.step_id = get16(p + 1);
        m->u.event.duration_ms = get16(p + 3);
        break;
    case FWP_MSG_FAULT:
        if (n != FWP_FAULT_SIZE)
            return FWP_ERR_PAYLOAD;
        m->u.fault.code = get16(p);
        m->u.fault.step_id = get16(p + 2);
        m->u.fault.gripper = p[4];
        break;
    case FWP_MSG_STATUS: {
        fwp_status *s = &m->u.status;
        if (n == 0) {
            s->query = true;
            break;
        }
        if (n != FWP_STATUS_SIZE && n != FWP_STATUS_CUBE_SIZE)
            return FWP_ERR_PAYLOAD;
        /* The flag must agree with the size, so a frame has one meaning. */
        if (p[1] != (n == FWP_STATUS_CUBE_SIZE ? STATUS_F_CUBE : 0))
            return FWP_ERR_PAYLOAD;
        s->state = p[0];
        s->has_cube = p[1] != 0;
        s->last_step = get16(p + 2);
        s->fault = get16(p + 4);
        s->queued = get16(p + 6);
        memcpy(s->grip, p + 8, FWP_GRIPPERS);
        s->up = p[12];
        s->front = p[13];
        if (s->has_cube)
            memcpy(s->cube, p + FWP_STATUS_SIZE, FWP_FACELETS);
        break;
    }
    default: /* HOME, ACK, HEARTBEAT, ESTOP */
        if (n != 0)
            return FWP_ERR_PAYLOAD;
        break;
    }
    return fwp_check_message(m) == FWP_OK ? FWP_OK : FWP_ERR_PAYLOAD;
}

/* ------------------------------------------------------------------ frames */

/* raw holds plen payload bytes at raw + FWP_HEADER_SIZE; fills in the
 * header and the CRC and COBS-encodes the frame into out. */
static int seal(uint8_t *raw, uint8_t type, uint8_t seq, uint8_t ack,
                size_t plen, uint8_t *out, size_t cap, size_t *out_len)
{
    size_t len = FWP_HEADER_SIZE + plen;
    raw[0] = FWP_FRAME_VERSION;
    raw[1] = type;
    raw[2] = seq;
    raw[3] = ack;
    raw[4] = (uint8_t)plen;
    put16(raw + len, fwp_crc16(raw, len));
    return fwp_cobs_encode(raw, len + FWP_CRC_SIZE, out, cap, out_len);
}

int fwp_encode_frame(const fwp_message *m, uint8_t *out, size_t cap,
                     size_t *out_len)
{
    if (!m || !out || !out_len)
        return FWP_ERR_ARGUMENT;
    int rc = fwp_check_message(m);
    if (rc != FWP_OK)
        return rc;
    uint8_t raw[FWP_MAX_FRAME];
    size_t plen = put_payload(m, raw + FWP_HEADER_SIZE);
    return seal(raw, m->type, m->seq, m->ack, plen, out, cap, out_len);
}

int fwp_decode_frame(const uint8_t *in, size_t n, fwp_message *m)
{
    if (!m || (!in && n))
        return FWP_ERR_ARGUMENT;
    memset(m, 0, sizeof *m);
    if (n > FWP_MAX_ENCODED)
        return FWP_ERR_TOO_LONG;
    if (n == 0)
        return FWP_ERR_SHORT;
    /* n - 1 bytes always hold the decoded frame, so COBS errors are
     * reported as such before the frame size is judged. */
    uint8_t raw[FWP_MAX_ENCODED];
    size_t len;
    if (fwp_cobs_decode(in, n, raw, sizeof raw, &len) != FWP_OK)
        return FWP_ERR_COBS;
    if (len > FWP_MAX_FRAME)
        return FWP_ERR_TOO_LONG;
    if (len < FWP_HEADER_SIZE + FWP_CRC_SIZE)
        return FWP_ERR_SHORT;
    len -= FWP_CRC_SIZE;
    /* CRC first: in a damaged frame every other field is noise. */
    if (get16(raw + len) != fwp_crc16(raw, len))
        return FWP_ERR_CRC;
    if (raw[0] != FWP_FRAME_VERSION)
        return FWP_ERR_VERSION;
    if (raw[1] < 1 || raw[1] > TYPE_MAX)
        return FWP_ERR_TYPE;
    if (raw[4] != len - FWP_HEADER_SIZE)
        return FWP_ERR_LENGTH;
    m->type = raw[1];
    m->seq = raw[2];
    m->ack = raw[3];
    int rc = get_payload(m, raw + FWP_HEADER_SIZE, raw[4]);
    if (rc != FWP_OK)
        memset(m, 0, sizeof *m);
    return rc;
}

void fwp_stream_init(fwp_stream *s)
{
    if (s) {
        s->len = 0;
        s->overflow = false;
    }
}

int fwp_stream_push(fwp_stream *s, uint8_t byte, fwp_message *out)
{
    if (!s || !out)
        return FWP_ERR_ARGUMENT;
    if (byte == FWP_DELIMITER) {
        size_t len = s->len;
        bool overflow = s->overflow;
        s->len = 0;
        s->overflow = false;
        if (overflow || len == 0) /* reported already / idle delimiter */
            return 0;
        int rc = fwp_decode_frame(s->buf, len, out);
        return rc == FWP_OK ? 1 : rc;
    }
    if (s->overflow)
        return 0;
    if (s->len >= sizeof s->buf) {
        s->overflow = true;
        s->len = 0;
        return FWP_ERR_TOO_LONG;
    }
    s->buf[s->len++] = byte;
    return 0;
}

/* ---------------------------------------------------------------- endpoint */

static uint32_t now(const fwp_endpoint *ep)
{
    return ep->cfg.now_ms(ep->cfg.ctx);
}

static void emit(fwp_endpoint *ep, int event, int detail)
{
    if (ep->cfg.on_event)
        ep->cfg.on_event(ep->cfg.ctx, event, detail);
}

static void deliver(fwp_endpoint *ep, const fwp_message *m)
{
    ep->stats.delivered++;
    if (ep->cfg.on_message)
        ep->cfg.on_message(ep->cfg.ctx, m);
}

static uint32_t min32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

/* The first sequence number of a session pair, per direction. Starting
 * every pairing at a number derived from both sessions, rather than at 0,
 * makes a stray frame of an earlier pairing unlikely to be taken for the
 * next expected one. */
static uint8_t initial_seq(uint32_t from, uint32_t to)
{
    uint32_t x = (uint32_t)(from ^ (uint32_t)(to * 0x9E3779B1u));
    x ^= x >> 16;
    x = (uint32_t)(x * 0x85EBCA6Bu);
    x ^= x >> 13;
    return (uint8_t)(x & 0xFFu);
}

/* Starts numbering afresh for the current (our, peer) session pair; what
 * was unacknowledged belonged to the previous pairing and is discarded. */
static void pair(fwp_endpoint *ep)
{
    ep->state = FWP_LINK_CONNECTING;
    ep->tx_head = 0;
    ep->tx_count = 0;
    ep->tx_base = initial_seq(ep->session, ep->peer.session);
    ep->rx_next = initial_seq(ep->peer.session, ep->session);
    ep->retries = 0;
    ep->ack_pending = false;
}

/* raw holds a payload of plen bytes after the header; sends it as one
 * delimited frame. The leading delimiter ends any garbage the receiver may
 * have collected, so this frame is not lost with it. */
static void put_frame(fwp_endpoint *ep, uint8_t *raw, uint8_t type,
                      uint8_t seq, size_t plen, uint32_t t)
{
    uint8_t ack = 0;
    size_t len;
    /* HELLO's ack field is ignored by receivers, so it carries none. */
    if (type != FWP_MSG_HELLO && ep->state == FWP_LINK_CONNECTED) {
        ack = ep->rx_next;
        ep->ack_pending = false;
    }
    ep->wire[0] = FWP_DELIMITER;
    /* Cannot fail: messages are checked when queued, sizes statically. */
    if (seal(raw, type, seq, ack, plen, ep->wire + 1, sizeof ep->wire - 2,
             &len) != FWP_OK)
        return;
    ep->wire[len + 1] = FWP_DELIMITER;
    ep->stats.frames_out++;
    ep->last_tx_ms = t;
    if (ep->cfg.write(ep->cfg.ctx, ep->wire, len + 2) < 0)
        ep->stats.write_errors++;
}

static void send_slot(fwp_endpoint *ep, const fwp_message *m, uint32_t t)
{
    uint8_t raw[FWP_MAX_FRAME];
    size_t plen = put_payload(m, raw + FWP_HEADER_SIZE);
    put_frame(ep, raw, m->type, m->seq, plen, t);
}

/* ACK and HEARTBEAT: seq is the next number we would send (informative). */
static void send_control(fwp_endpoint *ep, uint8_t type, uint32_t t)
{
    uint8_t raw[FWP_HEADER_SIZE + FWP_CRC_SIZE];
    put_frame(ep, raw, type, (uint8_t)(ep->tx_base + ep->tx_count), 0, t);
}

static void send_hello(fwp_endpoint *ep, uint32_t t)
{
    fwp_hello h;
    uint8_t raw[FWP_HEADER_SIZE + FWP_HELLO_SIZE + FWP_CRC_SIZE];
    memset(&h, 0, sizeof h);
    h.version_min = FWP_PROTOCOL_VERSION;
    h.version_max = FWP_PROTOCOL_VERSION;
    h.role = (uint8_t)ep->cfg.role;
    h.flags = ep->state == FWP_LINK_CONNECTING ? FWP_HELLO_CONNECTING : 0;
    h.gripper_mask = ep->cfg.gripper_mask;
    h.max_steps = ep->cfg.max_steps;
    h.window = ep->cfg.window;
    h.features = ep->cfg.features;
    h.heartbeat_ms = ep->cfg.heartbeat_ms;
    h.link_timeout_ms = ep->cfg.link_timeout_ms;
    h.session = ep->session;
    h.peer_session = ep->peer_known ? ep->peer.session : 0;
    put_hello(&h, raw + FWP_HEADER_SIZE);
    put_frame(ep, raw, FWP_MSG_HELLO, 0, FWP_HELLO_SIZE, t);
}

/* Any valid frame from the peer feeds the watchdog. */
static void heard(fwp_endpoint *ep, uint32_t t)
{
    ep->last_rx_ms = t;
    if (ep->link_lost) {
        ep->link_lost = false;
        emit(ep, FWP_EV_LINK_RESTORED, 0);
    }
}

/* Cumulative: ack is the next sequence number the peer expects. Anything
 * outside (base, base + count] is stale or bogus and changes nothing. */
static void process_ack(fwp_endpoint *ep, uint8_t ack, uint32_t t)
{
    uint8_t done = (uint8_t)(ack - ep->tx_base);
    if (done == 0 || done > ep->tx_count)
        return;
    ep->tx_head = (uint8_t)((ep->tx_head + done) % RING);
    ep->tx_count = (uint8_t)(ep->tx_count - done);
    ep->tx_base = ack;
    ep->retries = 0;
    ep->timer_ms = t;
}

static void handle_hello(fwp_endpoint *ep, const fwp_hello *h, uint32_t t)
{
    int bad = 0;
    if (h->version_min > FWP_PROTOCOL_VERSION ||
        h->version_max < FWP_PROTOCOL_VERSION)
        bad = 1;
    else if (h->role == ep->cfg.role)
        bad = 2;
    if (bad) {
        /* Once per session, not at every HELLO it repeats. */
        if (h->session != ep->bad_session) {
            ep->bad_session = h->session;
            ep->refused = *h;
            emit(ep, FWP_EV_INCOMPATIBLE, bad);
        }
        ep->stats.unpaired++;
        return;
    }
    heard(ep, t);
    if (!ep->peer_known || h->session != ep->peer.session) {
        bool reset = ep->peer_known;
        int dropped = ep->tx_count;
        ep->peer = *h;
        ep->peer_known = true;
        pair(ep);
        if (reset)
            emit(ep, FWP_EV_PEER_RESET, dropped);
        deliver(ep, &ep->rx);
    } else {
        ep->peer = *h;
    }
    bool confirmed = h->peer_session == ep->session;
    bool connects = confirmed && ep->state == FWP_LINK_CONNECTING;
    if (connects) {
        ep->state = FWP_LINK_CONNECTED;
        ep->retries = 0;
        ep->timer_ms = t;
    }
    /* Reply while either side still lacks proof that the other knows it;
     * a connected peer naming us needs nothing, which ends the exchange. */
    if (!confirmed || (h->flags & FWP_HELLO_CONNECTING))
        send_hello(ep, t);
    /* After the reply, so that whatever the application sends on CONNECTED
     * reaches a peer that is connected too. */
    if (connects)
        emit(ep, FWP_EV_CONNECTED, 0);
}

static void handle_frame(fwp_endpoint *ep, uint32_t t)
{
    const fwp_message *m = &ep->rx;
    ep->stats.frames_in++;
    if (m->type == FWP_MSG_HELLO) {
        handle_hello(ep, &m->u.hello, t);
        return;
    }
    if (!ep->peer_known) {
        ep->stats.unpaired++;
        return;
    }
    heard(ep, t);
    /* Before the peer confirmed our session its frames may belong to an
     * older pairing; it retransmits them once we are connected. */
    if (ep->state != FWP_LINK_CONNECTED) {
        ep->stats.unpaired++;
        return;
    }
    process_ack(ep, m->ack, t);
    if (!fwp_type_is_sequenced(m->type))
        return;
    /* Acknowledge duplicates too: their ack may be what got lost. */
    ep->ack_pending = true;
    uint8_t behind = (uint8_t)(ep->rx_next - m->seq);
    if (behind == 0) {
        ep->rx_next++;
        deliver(ep, m);
    } else if (behind < 128) {
        ep->stats.duplicates++;
    } else {
        ep->stats.out_of_order++;
    }
}

static void count_error(fwp_stats *s, int err)
{
    switch (err) {
    case FWP_ERR_CRC: s->crc_errors++; break;
    case FWP_ERR_COBS: s->cobs_errors++; break;
    case FWP_ERR_TOO_LONG: s->too_long++; break;
    case FWP_ERR_SHORT: s->short_frames++; break;
    case FWP_ERR_VERSION: s->version_errors++; break;
    case FWP_ERR_TYPE: s->type_errors++; break;
    case FWP_ERR_LENGTH: s->length_errors++; break;
    default: s->payload_errors++; break;
    }
}

void fwp_config_default(fwp_config *cfg, fwp_role role)
{
    if (!cfg)
        return;
    memset(cfg, 0, sizeof *cfg);
    cfg->role = role;
    cfg->retransmit_ms = 200;
    cfg->max_retries = 8;
    cfg->window = FWP_WINDOW;
    cfg->heartbeat_ms = 250;
    cfg->link_timeout_ms = role == FWP_ROLE_FIRMWARE ? 1000 : 0;
    cfg->gripper_mask = 0x0F;
    cfg->max_steps = FWP_MAX_STEPS_PER_BATCH;
}

int fwp_init(fwp_endpoint *ep, const fwp_config *cfg)
{
    if (!ep || !cfg || !cfg->write || !cfg->now_ms || cfg->session == 0 ||
        (cfg->role != FWP_ROLE_HOST && cfg->role != FWP_ROLE_FIRMWARE) ||
        cfg->window < 1 || cfg->window > FWP_WINDOW ||
        cfg->retransmit_ms == 0 || cfg->heartbeat_ms == 0 ||
        cfg->gripper_mask == 0 || cfg->gripper_mask > 0x0F ||
        cfg->max_steps < 1 || cfg->max_steps > FWP_MAX_STEPS_PER_BATCH ||
        (cfg->features & ~FEATURES))
        return FWP_ERR_ARGUMENT;
    memset(ep, 0, sizeof *ep);
    ep->cfg = *cfg;
    ep->session = cfg->session;
    ep->state = FWP_LINK_CONNECTING;
    ep->hello_due = true;
    fwp_stream_init(&ep->stream);
    uint32_t t = now(ep);
    ep->timer_ms = t;
    ep->last_tx_ms = t;
    ep->last_rx_ms = t;
    return FWP_OK;
}

void fwp_feed(fwp_endpoint *ep, const uint8_t *bytes, size_t n)
{
    if (!ep || (!bytes && n))
        return;
    for (size_t i = 0; i < n; i++) {
        int rc = fwp_stream_push(&ep->stream, bytes[i], &ep->rx);
        if (rc == 1)
            handle_frame(ep, now(ep));
        else if (rc < 0)
            count_error(&ep->stats, rc);
    }
    /* One cumulative ACK for everything in this chunk, unless a reply
     * sent from on_message carried it already. */
    if (ep->ack_pending && ep->state == FWP_LINK_CONNECTED)
        send_control(ep, FWP_MSG_ACK, now(ep));
}

/* Our heartbeat, made fast enough for the peer's watchdog to see three
 * per timeout, so one or two lost heartbeats do not trip it. */
static uint32_t heartbeat_interval(const fwp_endpoint *ep)
{
    uint32_t hb = ep->cfg.heartbeat_ms;
    if (ep->peer_known && ep->peer.link_timeout_ms)
        hb = min32(hb, ep->peer.link_timeout_ms / 3u);
    return hb ? hb : 1;
}

static int window(const fwp_endpoint *ep)
{
    return ep->cfg.window < ep->peer.window ? ep->cfg.window
                                            : ep->peer.window;
}

uint32_t fwp_poll(fwp_endpoint *ep)
{
    if (!ep)
        return 0;
    uint32_t t = now(ep), next = 0xFFFFFFFFu;
    uint32_t rto = ep->cfg.retransmit_ms;

    if (ep->peer_known && ep->cfg.link_timeout_ms && !ep->link_lost) {
        uint32_t quiet = t - ep->last_rx_ms;
        if (quiet >= ep->cfg.link_timeout_ms) {
            ep->link_lost = true;
            emit(ep, FWP_EV_LINK_LOST, (int)min32(quiet, 0x7FFF));
        } else {
            next = ep->cfg.link_timeout_ms - quiet;
        }
    }

    if (ep->state == FWP_LINK_CONNECTED && ep->tx_count &&
        t - ep->timer_ms >= rto) {
        if (++ep->retries > ep->cfg.max_retries) {
            /* The link is broken or the peer gone: start a new session,
             * which also tells the peer to resynchronise. */
            int dropped = ep->tx_count;
            ep->session = ep->session + 1 ? ep->session + 1 : 1;
            pair(ep);
            ep->hello_due = true;
            emit(ep, FWP_EV_RETRY_LIMIT, dropped);
        } else {
            /* Go-back-N: the receiver keeps nothing out of order, so
             * everything from the oldest unacknowledged frame goes again. */
            for (int i = 0; i < ep->tx_count; i++) {
                send_slot(ep, &ep->tx[(ep->tx_head + i) % RING], t);
                ep->stats.retransmits++;
            }
            ep->timer_ms = t;
        }
    }

    if (ep->state == FWP_LINK_CONNECTING) {
        if (ep->hello_due || t - ep->timer_ms >= rto) {
            ep->hello_due = false;
            ep->timer_ms = t;
            send_hello(ep, t);
        }
        return min32(next, rto - (t - ep->timer_ms));
    }

    if (ep->tx_count)
        next = min32(next, rto - (t - ep->timer_ms));
    /* No pending ACK to flush here: fwp_feed sends it before returning. */
    uint32_t hb = heartbeat_interval(ep);
    if (t - ep->last_tx_ms >= hb)
        send_control(ep, FWP_MSG_HEARTBEAT, t);
    return min32(next, hb - (t - ep->last_tx_ms));
}

/* Who sends what: commands come from the host, reports from the firmware;
 * NAK and ESTOP go either way. */
static bool role_may_send(int role, const fwp_message *m)
{
    switch (m->type) {
    case FWP_MSG_HOME:
    case FWP_MSG_STEPS:
        return role == FWP_ROLE_HOST;
    case FWP_MSG_EVENT:
    case FWP_MSG_FAULT:
        return role == FWP_ROLE_FIRMWARE;
    case FWP_MSG_STATUS:
        return role == (m->u.status.query ? FWP_ROLE_HOST
                                          : FWP_ROLE_FIRMWARE);
    default:
        return true;
    }
}

int fwp_send(fwp_endpoint *ep, const fwp_message *m)
{
    if (!ep || !m)
        return FWP_ERR_ARGUMENT;
    if (!fwp_type_is_sequenced(m->type))
        return FWP_ERR_TYPE;
    int rc = fwp_check_message(m);
    if (rc != FWP_OK)
        return rc;
    if (!role_may_send(ep->cfg.role, m))
        return FWP_ERR_ROLE;
    if (ep->state != FWP_LINK_CONNECTED)
        return FWP_ERR_NOT_CONNECTED;
    if (m->type == FWP_MSG_STEPS) {
        const fwp_steps *s = &m->u.steps;
        if (s->count > ep->peer.max_steps)
            return FWP_ERR_LIMIT;
        for (int i = 0; i < s->count; i++)
            for (int g = 0; g < FWP_GRIPPERS; g++)
                if (s->step[i].action[g] != FWP_ACT_NONE &&
                    !(ep->peer.gripper_mask & (1u << g)))
                    return FWP_ERR_LIMIT;
    }
    /* ESTOP may use one slot beyond the window: a full queue of steps must
     * never be what keeps the robot from stopping. */
    if (ep->tx_count >= window(ep) + (m->type == FWP_MSG_ESTOP))
        return FWP_ERR_BUSY;
    uint32_t t = now(ep);
    fwp_message *slot = &ep->tx[(ep->tx_head + ep->tx_count) % RING];
    *slot = *m;
    slot->seq = (uint8_t)(ep->tx_base + ep->tx_count);
    slot->ack = 0;
    if (ep->tx_count++ == 0) {
        ep->timer_ms = t;
        ep->retries = 0;
    }
    send_slot(ep, slot, t);
    return FWP_OK;
}

int fwp_window_free(const fwp_endpoint *ep)
{
    if (!ep || ep->state != FWP_LINK_CONNECTED)
        return 0;
    int free_slots = window(ep) - ep->tx_count;
    return free_slots > 0 ? free_slots : 0;
}

int fwp_unacked(const fwp_endpoint *ep)
{
    return ep ? ep->tx_count : 0;
}

int fwp_next_seq(const fwp_endpoint *ep)
{
    if (!ep || ep->state != FWP_LINK_CONNECTED)
        return -1;
    return (uint8_t)(ep->tx_base + ep->tx_count);
}

fwp_link_state fwp_link(const fwp_endpoint *ep)
{
    return ep && ep->state == FWP_LINK_CONNECTED ? FWP_LINK_CONNECTED
                                                 : FWP_LINK_CONNECTING;
}

const char *fwp_rule_name(int rule)
{
    switch (rule) {
    case FWP_RULE_NONE: return "NONE";
    case FWP_RULE_ACTION: return "ACTION";
    case FWP_RULE_GRIP: return "GRIP";
    case FWP_RULE_DROP: return "DROP";
    case FWP_RULE_SUPPORT: return "SUPPORT";
    case FWP_RULE_JAM: return "JAM";
    case FWP_RULE_TILT: return "TILT";
    case FWP_RULE_GRIP_MOVING: return "GRIP_MOVING";
    case FWP_RULE_COLLISION: return "COLLISION";
    case FWP_RULE_OPEN_TURN: return "OPEN_TURN";
    default: return "?";
    }
}

const fwp_hello *fwp_refused_peer(const fwp_endpoint *ep)
{
    return ep && ep->bad_session ? &ep->refused : NULL;
}

const fwp_hello *fwp_peer(const fwp_endpoint *ep)
{
    return ep && ep->peer_known ? &ep->peer : NULL;
}

const fwp_stats *fwp_get_stats(const fwp_endpoint *ep)
{
    return ep ? &ep->stats : NULL;
}
