/*
 * fwp.h - public interface of the quadsolve firmware protocol (library fwp).
 *
 * The wire protocol between the robot controller (the "host") and the
 * quad-arm firmware, used unchanged on both ends. It has two layers:
 *
 *  - a pure codec: CRC-16/CCITT-FALSE, COBS, and fwp_encode_frame /
 *    fwp_decode_frame / fwp_stream_push, which turn messages into
 *    delimited byte frames and back and reject every malformed input with a
 *    specific error;
 *  - an endpoint (fwp_endpoint): session handshake, a go-back-N sliding
 *    window with cumulative acks, retransmission on timeout and duplicate
 *    suppression, so every sequenced message reaches the peer's application
 *    exactly once and in order over a link that loses, duplicates, reorders
 *    and corrupts frames; heartbeats, and on the firmware a link watchdog.
 *
 * docs/firmware-protocol.md is the specification: byte layouts, state
 * machines and timeouts.
 *
 * Conventions (after the MIN protocol and nanopb): every public name starts
 * with fwp_ / FWP_; functions return 0 (FWP_OK) or a negative fwp_error; the
 * library never allocates, makes no OS calls and uses only <stdint.h>,
 * <stddef.h>, <stdbool.h> and memcpy/memset, so the same file builds for a
 * microcontroller (C99, freestanding). All state lives in structures the
 * caller provides, sized by the compile-time limits below; the transport
 * and the clock are callbacks. Nothing is thread-safe: one endpoint is used
 * from one context (not from an interrupt and the main loop at once).
 */
#ifndef FWP_H
#define FWP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ------------------------------------------------------------------ limits */

/* Both may be overridden with -D, identically for the library and every
 * file that includes this header (they size the structures below). The
 * values a peer works with are exchanged in HELLO, so the two ends need not
 * agree. */
#ifndef FWP_MAX_STEPS_PER_BATCH
#define FWP_MAX_STEPS_PER_BATCH 32 /* steps in one STEPS message, 1..42 */
#endif
#ifndef FWP_WINDOW
#define FWP_WINDOW 4 /* unacknowledged frames in flight, 1..126 */
#endif

/* The protocol version negotiated in HELLO: 2 adds the regrip and tilt
 * actions (one wire step per robot step). The frame layout is that of
 * version 1, and frames keep the version byte FWP_FRAME_VERSION, so that a
 * version-1 peer still decodes a version-2 HELLO and reports the mismatch
 * (FWP_EV_INCOMPATIBLE) instead of dropping every frame as noise. */
#define FWP_PROTOCOL_VERSION 2
#define FWP_FRAME_VERSION 1    /* the frame's version byte */
#define FWP_GRIPPERS 4         /* R, L, F, B on the wire, always */
#define FWP_FACELETS 54        /* cube state in STATUS */
#define FWP_NO_STEP 0xFFFFu    /* "no step" in step id fields */
#define FWP_DELIMITER 0x00     /* ends (and starts) every frame on the wire */

/* Byte sizes on the wire (docs/firmware-protocol.md has the layouts). */
#define FWP_HEADER_SIZE 5 /* version, type, seq, ack, payload length */
#define FWP_CRC_SIZE 2
#define FWP_STEP_SIZE 6 /* id u16, then one action byte per gripper */
#define FWP_HELLO_SIZE 20
#define FWP_NAK_SIZE 6
#define FWP_EVENT_SIZE 5
#define FWP_FAULT_SIZE 5
#define FWP_STATUS_SIZE 14 /* without the cube; a query is empty */
#define FWP_STATUS_CUBE_SIZE (FWP_STATUS_SIZE + FWP_FACELETS)
#define FWP_STEPS_SIZE(n) (1 + FWP_STEP_SIZE * (n))

/* The largest payload: a full STEPS batch or a STATUS with the cube. */
#define FWP_MAX_PAYLOAD                                                     \
    (FWP_STEPS_SIZE(FWP_MAX_STEPS_PER_BATCH) > FWP_STATUS_CUBE_SIZE         \
         ? FWP_STEPS_SIZE(FWP_MAX_STEPS_PER_BATCH)                          \
         : FWP_STATUS_CUBE_SIZE)
/* A frame before COBS: header, payload, CRC. */
#define FWP_MAX_FRAME (FWP_HEADER_SIZE + FWP_MAX_PAYLOAD + FWP_CRC_SIZE)
/* COBS adds one code byte, plus one per 254 bytes without a zero. */
#define FWP_COBS_MAX(n) ((n) + (n) / 254 + 1)
/* A COBS-encoded frame, delimiters excluded. */
#define FWP_MAX_ENCODED FWP_COBS_MAX(FWP_MAX_FRAME)
/* A frame as written to the transport: delimiter, COBS text, delimiter. */
#define FWP_MAX_WIRE (FWP_MAX_ENCODED + 2)

/* ------------------------------------------------------------------ errors */

typedef enum {
    FWP_OK = 0,
    FWP_ERR_CRC = -1,       /* frame check sequence mismatch */
    FWP_ERR_COBS = -2,      /* not valid (canonical) COBS */
    FWP_ERR_TOO_LONG = -3,  /* longer than the largest frame */
    FWP_ERR_SHORT = -4,     /* shorter than header + CRC */
    FWP_ERR_VERSION = -5,   /* version byte is not FWP_FRAME_VERSION */
    FWP_ERR_TYPE = -6,      /* unknown message type, or wrong kind of type */
    FWP_ERR_LENGTH = -7,    /* length field disagrees with the frame size */
    FWP_ERR_PAYLOAD = -8,   /* payload size or content invalid for the type */
    FWP_ERR_BUFFER = -9,    /* output buffer too small */
    FWP_ERR_ARGUMENT = -10, /* NULL pointer or configuration out of range */
    FWP_ERR_BUSY = -11,     /* the send window is full; try after an ack */
    FWP_ERR_NOT_CONNECTED = -12, /* no session with the peer yet */
    FWP_ERR_ROLE = -13,     /* this role does not send that message */
    FWP_ERR_LIMIT = -14,    /* beyond what the peer announced in HELLO */
} fwp_error;

/* A human-readable message for an error code (never NULL). */
const char *fwp_strerror(int err);
/* A short stable identifier for an error code, e.g. "CRC"; "UNKNOWN" for a
 * code that is not an fwp_error. */
const char *fwp_errcode(int err);

/* ---------------------------------------------------------------- messages */

typedef enum {
    FWP_MSG_HELLO = 0x01,     /* session handshake and capabilities */
    FWP_MSG_HOME = 0x02,      /* host: home all grippers */
    FWP_MSG_STEPS = 0x03,     /* host: a batch of parallel steps */
    FWP_MSG_ACK = 0x04,       /* acknowledgement only */
    FWP_MSG_NAK = 0x05,       /* a message was refused, with a reason */
    FWP_MSG_EVENT = 0x06,     /* firmware: a step started or finished */
    FWP_MSG_FAULT = 0x07,     /* firmware: a fault stopped the robot */
    FWP_MSG_HEARTBEAT = 0x08, /* liveness when idle */
    FWP_MSG_ESTOP = 0x09,     /* emergency stop, either direction */
    FWP_MSG_STATUS = 0x0A,    /* host: query (empty); firmware: report */
} fwp_type;

/* Whether a message type travels in the reliable, sequenced stream
 * (HOME, STEPS, NAK, EVENT, FAULT, ESTOP, STATUS) or stands alone (HELLO,
 * ACK, HEARTBEAT). False for unknown types. */
bool fwp_type_is_sequenced(int type);
/* "STEPS" etc.; "?" for an unknown type. */
const char *fwp_type_name(int type);

typedef enum { FWP_ROLE_HOST = 1, FWP_ROLE_FIRMWARE = 2 } fwp_role;

/* Gripper indices: the order of the action bytes in a step. */
typedef enum {
    FWP_GRIPPER_R = 0,
    FWP_GRIPPER_L = 1,
    FWP_GRIPPER_F = 2,
    FWP_GRIPPER_B = 3,
} fwp_gripper;

/* What one gripper does in a step. Version 2 added REGRIP_* and TILT_*.
 * A step holding a TILT_* action is a tilt: both grippers of one axis carry
 * opposite TILT_* actions and turn the whole cube between them, while the
 * other axis opens before and closes after (its grippers' actions may only
 * be NONE or REGRIP_*, which then rotate while open). So a tilt is never
 * the same bytes as a pair turn (CW with CCW). */
typedef enum {
    FWP_ACT_NONE = 0,
    FWP_ACT_CW = 1,   /* rotate +90 degrees */
    FWP_ACT_CCW = 2,  /* rotate -90 degrees */
    FWP_ACT_HALF = 3, /* rotate 180 degrees */
    FWP_ACT_OPEN = 4,
    FWP_ACT_CLOSE = 5,
    FWP_ACT_REGRIP_CW = 6,  /* open, rotate +90 degrees, close */
    FWP_ACT_REGRIP_CCW = 7, /* open, rotate -90 degrees, close */
    FWP_ACT_TILT_CW = 8,    /* turn the whole cube +90 degrees (tilt) */
    FWP_ACT_TILT_CCW = 9,   /* the partner's side of a tilt: -90 degrees */
} fwp_action;
#define FWP_ACT_MAX FWP_ACT_TILT_CCW

/* One step: every gripper with an action other than NONE starts at once;
 * the step is done when all its actions are. */
typedef struct {
    uint16_t id;                    /* 0..0xFFFE, named again in EVENTs */
    uint8_t action[FWP_GRIPPERS];   /* fwp_action, indexed by fwp_gripper */
} fwp_step;

typedef struct {
    uint8_t count; /* 1..FWP_MAX_STEPS_PER_BATCH */
    fwp_step step[FWP_MAX_STEPS_PER_BATCH];
} fwp_steps;

/* HELLO flags and features. */
#define FWP_HELLO_CONNECTING 0x01   /* sender awaits confirmation: reply */
#define FWP_FEATURE_CUBE_STATE 0x01 /* STATUS can carry the cube */
#define FWP_FEATURE_ESTOP_BUTTON 0x02 /* firmware has a physical stop */

typedef struct {
    uint8_t version_min, version_max; /* protocol versions supported */
    uint8_t role;           /* fwp_role of the sender */
    uint8_t flags;          /* FWP_HELLO_* */
    uint8_t gripper_mask;   /* bit i: gripper i fitted (host: driven) */
    uint8_t max_steps;      /* largest STEPS batch the sender accepts */
    uint8_t window;         /* frames the sender accepts in flight */
    uint8_t features;       /* FWP_FEATURE_* */
    uint16_t heartbeat_ms;  /* the sender's heartbeat interval */
    uint16_t link_timeout_ms; /* the sender's watchdog; 0: none */
    uint32_t session;       /* the sender's session id, never 0 */
    uint32_t peer_session;  /* the receiver's session as the sender knows
                               it; 0: unknown */
} fwp_hello;

/* NAK reasons (any nonzero value may be sent; these are the defined ones,
 * 0x80 and up are left to the firmware). */
typedef enum {
    FWP_NAK_BUSY = 1,        /* queue full, send again later */
    FWP_NAK_NOT_HOMED = 2,   /* STEPS before HOME */
    FWP_NAK_FAULTED = 3,     /* in FAULT state: HOME first */
    FWP_NAK_STOPPED = 4,     /* in ESTOP state: HOME first */
    FWP_NAK_BAD_STEP = 5,    /* a step the mechanism cannot do */
    FWP_NAK_TOO_MANY = 6,    /* more steps than the queue can ever take */
    FWP_NAK_UNSUPPORTED = 7, /* message not supported */
} fwp_nak_reason;

/* Why a step was refused (NAK BAD_STEP's rule; quadsim's FAULT codes are
 * 0x8000 + rule). 0 when the NAK is not about a step. */
typedef enum {
    FWP_RULE_NONE = 0,
    FWP_RULE_ACTION = 2,      /* an action the firmware does not know */
    FWP_RULE_GRIP = 3,        /* opening an open gripper, closing a closed
                                 one, a regrip or tilt from an open one */
    FWP_RULE_DROP = 4,        /* nothing would hold the cube */
    FWP_RULE_SUPPORT = 5,     /* a face turn nobody holds the middle for */
    FWP_RULE_JAM = 6,         /* grippers of both axes turning at once */
    FWP_RULE_TILT = 7,        /* a whole-cube turn that is not a tilt */
    FWP_RULE_GRIP_MOVING = 8, /* gripping a moving face */
    FWP_RULE_COLLISION = 9,   /* grippers across on both axes */
    FWP_RULE_OPEN_TURN = 12,  /* an open gripper asked to turn its face */
} fwp_rule;

/* "TILT" etc.; "NONE" for 0, "?" for a value that is no fwp_rule. */
const char *fwp_rule_name(int rule);

typedef struct {
    uint8_t reason;   /* fwp_nak_reason, not 0 */
    uint8_t ref_seq;  /* sequence number of the refused message */
    uint16_t step_id; /* the refused step, or FWP_NO_STEP */
    uint8_t rule;     /* fwp_rule: why that step, or 0 */
    uint8_t gripper;  /* fwp_gripper at fault, or 0xFF for none/all */
} fwp_nak;

typedef enum { FWP_STEP_STARTED = 1, FWP_STEP_DONE = 2 } fwp_step_event_kind;

typedef struct {
    uint8_t kind;         /* fwp_step_event_kind */
    uint16_t step_id;     /* not FWP_NO_STEP */
    uint16_t duration_ms; /* DONE: measured, saturated at 65535; STARTED: 0 */
} fwp_step_event;

/* FAULT codes (nonzero; 0x8000 and up are left to the firmware). */
typedef enum {
    FWP_FAULT_STALL = 1,       /* a rotation did not complete */
    FWP_FAULT_OVERCURRENT = 2,
    FWP_FAULT_GRIP = 3,        /* a gripper did not reach open/closed */
    FWP_FAULT_TIMEOUT = 4,     /* a step took far longer than expected */
    FWP_FAULT_LINK_LOST = 5,   /* stopped by the link watchdog */
    FWP_FAULT_HOMING = 6,      /* homing failed */
} fwp_fault_code;

typedef struct {
    uint16_t code;    /* fwp_fault_code, not 0 */
    uint16_t step_id; /* step being executed, or FWP_NO_STEP */
    uint8_t gripper;  /* fwp_gripper, or 0xFF for none/all */
} fwp_fault;

/* Robot states reported in STATUS (the firmware's application state). */
typedef enum {
    FWP_ROBOT_UNHOMED = 0, /* after power-up: position unknown */
    FWP_ROBOT_HOMING = 1,
    FWP_ROBOT_IDLE = 2,    /* homed, no step queued */
    FWP_ROBOT_RUNNING = 3, /* executing queued steps */
    FWP_ROBOT_FAULT = 4,   /* stopped by a fault until HOME */
    FWP_ROBOT_STOPPED = 5, /* stopped by ESTOP or link loss until HOME */
} fwp_robot_state;

/* A gripper in STATUS: its angle in quarter turns from home (clockwise
 * seen from it, 0..3; odd = across its face) in bits 0-1 and bit 2 set
 * when closed; FWP_GRIP_UNKNOWN before homing. */
#define FWP_GRIP_ANGLE 0x03u
#define FWP_GRIP_CLOSED 0x04u
#define FWP_GRIP_UNKNOWN 0xFFu
/* A cube face (0..5 = U R F D L B of the cube) in STATUS' orientation, or
 * FWP_FACE_UNKNOWN. */
#define FWP_FACE_UNKNOWN 0xFFu

typedef struct {
    bool query;         /* an empty STATUS: "send me your STATUS"; the
                           other fields are then unused (zero) */
    uint8_t state;      /* fwp_robot_state */
    bool has_cube;      /* cube[] is valid */
    uint16_t last_step; /* id of the last step done, or FWP_NO_STEP */
    uint16_t fault;     /* current fwp_fault_code, 0 for none */
    uint16_t queued;    /* steps waiting in the firmware */
    uint8_t grip[FWP_GRIPPERS]; /* each gripper after the last step done:
                                   FWP_GRIP_* */
    uint8_t up, front;  /* the cube faces at robot U and robot F, or
                           FWP_FACE_UNKNOWN */
    char cube[FWP_FACELETS]; /* facelets in URFDLB order and letters, as
                                quadsolve prints them; no terminator */
} fwp_status;

/* A decoded frame, or a message to send. seq and ack are the header
 * fields: filled in on receipt (seq lets a NAK name the message it refuses)
 * and set by the endpoint when sending. HOME, ACK, HEARTBEAT and ESTOP
 * have no payload. */
typedef struct {
    uint8_t type; /* fwp_type */
    uint8_t seq;
    uint8_t ack;
    union {
        fwp_hello hello;
        fwp_steps steps;
        fwp_nak nak;
        fwp_step_event event;
        fwp_fault fault;
        fwp_status status;
    } u;
} fwp_message;

/* ------------------------------------------------------------------- codec */

/* CRC-16/CCITT-FALSE of data[0..n): polynomial 0x1021, initial value
 * 0xFFFF, no reflection, no final xor ("123456789" gives 0x29B1). */
uint16_t fwp_crc16(const uint8_t *data, size_t n);

/* COBS-encodes in[0..n) into out (at most cap bytes; FWP_COBS_MAX(n)
 * always suffice) without delimiter, in the form of Wikipedia's reference
 * encoder (no empty block after a final 0xFF block, see
 * docs/firmware-protocol.md); *out_len receives the length. Returns FWP_OK,
 * FWP_ERR_BUFFER (nothing useful in out) or FWP_ERR_ARGUMENT (NULL). */
int fwp_cobs_encode(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                    size_t *out_len);
/* Decodes one COBS block sequence in[0..n) (no delimiter) into out (cap
 * bytes; n - 1 always suffice). Accepts only what fwp_cobs_encode
 * produces, so encoding the result gives back in exactly. Returns FWP_OK,
 * FWP_ERR_COBS (empty input, a zero byte, a block running past the end, an
 * empty final block after a 0xFF block), FWP_ERR_BUFFER or
 * FWP_ERR_ARGUMENT. Never reads or
 * writes outside in[0..n) and out[0..cap). */
int fwp_cobs_decode(const uint8_t *in, size_t n, uint8_t *out, size_t cap,
                    size_t *out_len);

/* Checks a message as the decoder would: known type, payload fields in
 * range (actions, flags, facelets...). Returns FWP_OK, FWP_ERR_TYPE,
 * FWP_ERR_PAYLOAD or FWP_ERR_ARGUMENT. */
int fwp_check_message(const fwp_message *m);

/* Encodes m (type, seq, ack and payload) as one frame: header, payload,
 * CRC, COBS, without the delimiters, into out (cap bytes; FWP_MAX_ENCODED
 * always suffice). Uses about FWP_MAX_FRAME bytes of stack. Returns FWP_OK,
 * or an error of fwp_check_message, or FWP_ERR_BUFFER. */
int fwp_encode_frame(const fwp_message *m, uint8_t *out, size_t cap,
                     size_t *out_len);
/* Decodes one COBS-encoded frame in[0..n) (the bytes between two
 * delimiters) into *m. Checks, in this order, the first failure winning:
 * size (FWP_ERR_TOO_LONG; FWP_ERR_SHORT if empty), COBS (FWP_ERR_COBS),
 * size after COBS (FWP_ERR_TOO_LONG, FWP_ERR_SHORT), CRC (FWP_ERR_CRC), version
 * (FWP_ERR_VERSION), type (FWP_ERR_TYPE), length field (FWP_ERR_LENGTH),
 * payload (FWP_ERR_PAYLOAD). Whatever is accepted re-encodes to in exactly.
 * *m is zeroed on entry and meaningful only on FWP_OK. */
int fwp_decode_frame(const uint8_t *in, size_t n, fwp_message *m);

/* A byte-stream decoder: collects bytes up to each delimiter and decodes
 * them, so a receiver resynchronises at the first delimiter after any
 * garbage. Empty frames (two delimiters in a row) are skipped silently. */
typedef struct {
    uint8_t buf[FWP_MAX_ENCODED];
    size_t len;
    bool overflow; /* discarding until the next delimiter */
} fwp_stream;

/* Makes s empty, ready for the first byte. */
void fwp_stream_init(fwp_stream *s);
/* Feeds one received byte. Returns 1 when the byte completed a valid frame
 * (decoded into *out), 0 when more bytes are needed, or a negative
 * fwp_error when a frame was dropped: a decode error at its delimiter, or
 * FWP_ERR_TOO_LONG once, at the byte that overflowed the buffer (the rest
 * up to the next delimiter is then discarded). */
int fwp_stream_push(fwp_stream *s, uint8_t byte, fwp_message *out);

/* ---------------------------------------------------------------- endpoint */

/* Link states of an endpoint. */
typedef enum {
    FWP_LINK_CONNECTING = 0, /* sending HELLO until the peer confirms us */
    FWP_LINK_CONNECTED = 1,  /* sequenced messages flow */
} fwp_link_state;

/* Link events, reported through on_event with a detail value. */
typedef enum {
    FWP_EV_CONNECTED = 1,    /* handshake done: fwp_send may be used */
    FWP_EV_PEER_RESET = 2,   /* the peer started a new session (restart,
                                or gave up retrying): every unacknowledged
                                message was discarded, detail = how many;
                                the endpoint reconnects by itself */
    FWP_EV_LINK_LOST = 3,    /* nothing heard from the peer for
                                link_timeout_ms: the firmware must stop all
                                motion now; detail = ms since last frame */
    FWP_EV_LINK_RESTORED = 4, /* a frame from the peer after LINK_LOST */
    FWP_EV_RETRY_LIMIT = 5,  /* max_retries retransmissions unanswered:
                                unacknowledged messages discarded (detail =
                                how many), new session, reconnecting */
    FWP_EV_INCOMPATIBLE = 6, /* a HELLO we cannot talk to: detail 1 =
                                version range, 2 = same role as ours */
} fwp_link_event;

/* Transport: queue all n bytes for sending (one whole frame per call) or
 * drop them; return 0, or a negative value when they were dropped (counted;
 * retransmission recovers as from a lost frame). */
typedef int (*fwp_write_fn)(void *ctx, const uint8_t *bytes, size_t n);
/* Clock: milliseconds from any origin; may wrap at 2^32. */
typedef uint32_t (*fwp_now_fn)(void *ctx);
/* A message for the application: every sequenced message exactly once and
 * in order, and the peer's HELLO once per peer session. msg is valid
 * during the call only. May call fwp_send, not fwp_feed/fwp_poll/fwp_init. */
typedef void (*fwp_message_fn)(void *ctx, const fwp_message *msg);
/* A link event (fwp_link_event), same rules as fwp_message_fn. */
typedef void (*fwp_event_fn)(void *ctx, int event, int detail);

typedef struct {
    fwp_role role;
    uint32_t session;  /* nonzero and different at every start (hardware
                          RNG, boot counter, time of day): a restarted
                          peer is recognised by a new session */
    uint16_t retransmit_ms;   /* resend unacknowledged frames, and HELLO
                                 while connecting, after this long */
    uint8_t max_retries;      /* retransmissions without progress; the
                                 next timeout gives up (RETRY_LIMIT) */
    uint8_t window;           /* 1..FWP_WINDOW frames in flight */
    uint16_t heartbeat_ms;    /* send HEARTBEAT after this long without
                                 sending anything (faster if the peer's
                                 watchdog needs it) */
    uint16_t link_timeout_ms; /* report LINK_LOST after this long without a
                                 frame from the peer; 0: no watchdog */
    /* Advertised in HELLO; the host's mask and max_steps are those it
     * drives; a firmware's limit what the host may send it. */
    uint8_t gripper_mask;     /* bit i: gripper fwp_gripper i */
    uint8_t max_steps;        /* 1..FWP_MAX_STEPS_PER_BATCH */
    uint8_t features;         /* FWP_FEATURE_* */
    fwp_write_fn write;       /* required */
    fwp_now_fn now_ms;        /* required */
    fwp_message_fn on_message; /* may be NULL */
    fwp_event_fn on_event;    /* may be NULL */
    void *ctx;                /* passed to every callback */
} fwp_config;

/* Counters, for diagnostics and tests; they wrap at 2^32. */
typedef struct {
    uint32_t frames_in;    /* valid frames decoded */
    uint32_t frames_out;   /* frames written, retransmissions included */
    uint32_t delivered;    /* calls of on_message */
    uint32_t retransmits;  /* frames written again after a timeout */
    uint32_t duplicates;   /* sequenced frames received again: dropped */
    uint32_t out_of_order; /* sequenced frames ahead of the next expected
                              one: dropped (go-back-N) */
    uint32_t unpaired;     /* frames dropped outside a session */
    uint32_t write_errors; /* write callback failures */
    uint32_t crc_errors, cobs_errors, too_long, short_frames,
        version_errors, type_errors, length_errors, payload_errors;
} fwp_stats;

/* One end of a link. Caller-allocated (about 1.7 KB with the default
 * limits); the fields are private: use the functions below. */
typedef struct {
    fwp_config cfg;
    fwp_stream stream;
    fwp_message rx;                   /* the frame being handled */
    fwp_message tx[FWP_WINDOW + 1];   /* unacknowledged, ring; +1: ESTOP */
    uint8_t tx_head, tx_count, tx_base; /* ring start, size, seq of start */
    uint8_t rx_next;                  /* next sequence number expected */
    uint8_t state;                    /* fwp_link_state */
    uint8_t retries;                  /* timeouts since the last progress */
    bool peer_known, ack_pending, hello_due, link_lost;
    uint32_t session;                 /* ours, now */
    uint32_t bad_session;             /* last peer reported INCOMPATIBLE */
    fwp_hello refused;                /* its HELLO */
    fwp_hello peer;                   /* the peer's last HELLO */
    uint32_t timer_ms;  /* last (re)transmission of the window or HELLO */
    uint32_t last_tx_ms, last_rx_ms;
    fwp_stats stats;
    uint8_t wire[FWP_MAX_WIRE];
} fwp_endpoint;

/* Fills *cfg with the defaults of a role: retransmit 200 ms, 8 retries,
 * window FWP_WINDOW, heartbeat 250 ms, link timeout 1000 ms on the
 * firmware and none on the host, all four grippers, FWP_MAX_STEPS_PER_BATCH
 * steps, no features; session 0 and no callbacks, which the caller must
 * set. */
void fwp_config_default(fwp_config *cfg, fwp_role role);

/* Initialises *ep from *cfg (copied) in state CONNECTING; the first HELLO
 * goes out at the first fwp_poll. Does no I/O. Returns FWP_OK or
 * FWP_ERR_ARGUMENT (NULL, missing write/now_ms, session 0, a limit out of
 * range). Also the way to restart an endpoint (with a new session). */
int fwp_init(fwp_endpoint *ep, const fwp_config *cfg);

/* Hands received bytes (any amount, any split) to the endpoint: frames are
 * decoded, acknowledged, and delivered through on_message; bad frames are
 * dropped and counted. Sends at most one ACK at the end when something
 * needs acknowledging and nothing carried it already. */
void fwp_feed(fwp_endpoint *ep, const uint8_t *bytes, size_t n);

/* Runs the timers: HELLO while connecting, retransmission, giving up,
 * heartbeat, watchdog. Call it often (at least every few ms, and after
 * fwp_feed). Returns the ms until the next timer is due, so a device may
 * sleep that long if no byte arrives. */
uint32_t fwp_poll(fwp_endpoint *ep);

/* Queues a sequenced message (HOME, STEPS, NAK, EVENT, FAULT, ESTOP,
 * STATUS; seq/ack are ignored) and sends it at once. Returns FWP_OK, or:
 * FWP_ERR_ARGUMENT (NULL), FWP_ERR_TYPE (not a sequenced type),
 * FWP_ERR_PAYLOAD (as fwp_check_message), FWP_ERR_ROLE (HOME/STEPS/STATUS
 * query are the host's, EVENT/FAULT/STATUS report the firmware's),
 * FWP_ERR_NOT_CONNECTED, FWP_ERR_LIMIT (a STEPS batch larger than the
 * peer's max_steps or moving a gripper outside its gripper_mask),
 * FWP_ERR_BUSY (window full; one extra slot is kept for ESTOP). The
 * message is copied. */
int fwp_send(fwp_endpoint *ep, const fwp_message *m);

/* How many more messages fwp_send would accept now (ESTOP's reserved slot
 * not counted); 0 when not connected. */
int fwp_window_free(const fwp_endpoint *ep);
/* Messages sent and not yet acknowledged. */
int fwp_unacked(const fwp_endpoint *ep);
/* The sequence number the next successful fwp_send will give its message
 * (0..255), or -1 when not connected. A NAK names the message it refuses
 * only by this number (ref_seq), so a host that may have several STEPS
 * batches in flight records it to know which batch was refused. */
int fwp_next_seq(const fwp_endpoint *ep);
/* FWP_LINK_CONNECTING or FWP_LINK_CONNECTED. */
fwp_link_state fwp_link(const fwp_endpoint *ep);
/* The peer's HELLO (capabilities, session), or NULL before the first. */
const fwp_hello *fwp_peer(const fwp_endpoint *ep);
/* The last HELLO refused as INCOMPATIBLE (its version range and role say
 * why), or NULL when none was. */
const fwp_hello *fwp_refused_peer(const fwp_endpoint *ep);
/* The endpoint's counters. */
const fwp_stats *fwp_get_stats(const fwp_endpoint *ep);

#ifdef __cplusplus
}
#endif

#endif
