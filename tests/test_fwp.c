/*
 * test_fwp.c - tests of the firmware protocol (firmware-proto/fwp.c): the
 * CRC, COBS, frame encoding and decoding with every error, resynchronisation
 * of the stream decoder, and two endpoints talking over a simulated link.
 *
 * The expected bytes of the layout tests were computed independently (a
 * Python transcription of docs/firmware-protocol.md) and are the worked
 * examples of that document. The link simulation runs on a virtual clock
 * and a fixed-seed PRNG, so every run sees the same losses and is fast.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "fwp.h"
#include "testutil.h"

/* ------------------------------------------------------------- utilities */

static uint32_t rng_next(uint32_t *s)
{
    /* xorshift32: deterministic, and good enough to pick losses. */
    uint32_t x = *s;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    return *s = x;
}

/* Builds a frame by hand: raw header + payload + CRC (optionally spoiled),
 * then COBS. Returns the encoded length. */
static size_t hand_frame(uint8_t version, uint8_t type, uint8_t seq,
                         uint8_t ack, int length_field, const uint8_t *p,
                         size_t plen, int spoil_crc, uint8_t *out,
                         size_t cap)
{
    uint8_t raw[600];
    raw[0] = version;
    raw[1] = type;
    raw[2] = seq;
    raw[3] = ack;
    raw[4] = (uint8_t)(length_field < 0 ? (int)plen : length_field);
    if (plen)
        memcpy(raw + 5, p, plen);
    uint16_t crc = fwp_crc16(raw, 5 + plen);
    if (spoil_crc)
        crc ^= 0x0100;
    raw[5 + plen] = (uint8_t)(crc & 0xFF);
    raw[6 + plen] = (uint8_t)(crc >> 8);
    size_t n = 0;
    assert_int_equal(fwp_cobs_encode(raw, 7 + plen, out, cap, &n), FWP_OK);
    return n;
}

static int decode_hand(uint8_t type, int length_field, const uint8_t *p,
                       size_t plen)
{
    uint8_t enc[700];
    fwp_message m;
    size_t n = hand_frame(1, type, 0, 0, length_field, p, plen, 0, enc,
                          sizeof enc);
    return fwp_decode_frame(enc, n, &m);
}

static void fill_steps(fwp_message *m, int count, uint16_t first_id)
{
    /* memset, not an assignment: sample_messages compares whole
     * structs, padding included. */
    memset(m, 0, sizeof *m);
    m->type = FWP_MSG_STEPS;
    m->u.steps.count = (uint8_t)count;
    for (int i = 0; i < count; i++) {
        m->u.steps.step[i].id = (uint16_t)(first_id + i);
        for (int g = 0; g < FWP_GRIPPERS; g++)
            m->u.steps.step[i].action[g] =
                (uint8_t)((first_id + i + g) % (FWP_ACT_CLOSE + 1));
    }
}

static const char solved_cube[] =
    "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";

/* ---------------------------------------------------------------- CRC */

static void test_crc(void **state)
{
    (void)state;
    assert_int_equal(fwp_crc16((const uint8_t *)"123456789", 9), 0x29B1);
    assert_int_equal(fwp_crc16((const uint8_t *)"A", 1), 0xB915);
    assert_int_equal(fwp_crc16(NULL, 0), 0xFFFF);
    /* Every single-bit error in a frame-sized block changes the CRC. */
    uint8_t buf[200];
    for (int i = 0; i < 200; i++)
        buf[i] = (uint8_t)(i * 37 + 11);
    uint16_t good = fwp_crc16(buf, sizeof buf);
    for (int bit = 0; bit < 200 * 8; bit++) {
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
        assert_int_not_equal(fwp_crc16(buf, sizeof buf), good);
        buf[bit / 8] ^= (uint8_t)(1u << (bit % 8));
    }
}

/* ---------------------------------------------------------------- COBS */

static void check_cobs(const uint8_t *in, size_t n, const uint8_t *expect,
                       size_t elen)
{
    uint8_t out[600], back[600];
    size_t len = 0, blen = 0;
    assert_int_equal(fwp_cobs_encode(in, n, out, sizeof out, &len), FWP_OK);
    assert_int_equal(len, elen);
    assert_memory_equal(out, expect, elen);
    assert_int_equal(fwp_cobs_decode(out, len, back, sizeof back, &blen),
                     FWP_OK);
    assert_int_equal(blen, n);
    if (n)
        assert_memory_equal(back, in, n);
}

static void test_cobs_vectors(void **state)
{
    (void)state;
    /* The examples of the Wikipedia article on COBS. */
    check_cobs((const uint8_t *)"", 0, (const uint8_t *)"\x01", 1);
    check_cobs((const uint8_t *)"\x00", 1, (const uint8_t *)"\x01\x01", 2);
    check_cobs((const uint8_t *)"\x00\x00", 2,
               (const uint8_t *)"\x01\x01\x01", 3);
    check_cobs((const uint8_t *)"\x00\x11\x00", 3,
               (const uint8_t *)"\x01\x02\x11\x01", 4);
    check_cobs((const uint8_t *)"\x11\x22\x00\x33", 4,
               (const uint8_t *)"\x03\x11\x22\x02\x33", 5);
    check_cobs((const uint8_t *)"\x11\x22\x33\x44", 4,
               (const uint8_t *)"\x05\x11\x22\x33\x44", 5);
    check_cobs((const uint8_t *)"\x11\x00\x00\x00", 4,
               (const uint8_t *)"\x02\x11\x01\x01\x01", 5);

    uint8_t in[300], expect[300];
    /* 01..FE: one full block, nothing after it. */
    for (int i = 0; i < 254; i++)
        in[i] = (uint8_t)(i + 1);
    expect[0] = 0xFF;
    memcpy(expect + 1, in, 254);
    check_cobs(in, 254, expect, 255);
    /* 00 01..FE */
    in[0] = 0;
    for (int i = 1; i < 255; i++)
        in[i] = (uint8_t)i;
    expect[0] = 0x01;
    expect[1] = 0xFF;
    memcpy(expect + 2, in + 1, 254);
    check_cobs(in, 255, expect, 256);
    /* 01..FF: a full block, then a block of one. */
    for (int i = 0; i < 255; i++)
        in[i] = (uint8_t)(i + 1);
    expect[0] = 0xFF;
    memcpy(expect + 1, in, 254);
    expect[255] = 0x02;
    expect[256] = 0xFF;
    check_cobs(in, 255, expect, 257);
    /* 02..FF 00: a full block, the zero, the empty last block. */
    for (int i = 0; i < 254; i++)
        in[i] = (uint8_t)(i + 2);
    in[254] = 0;
    expect[0] = 0xFF;
    memcpy(expect + 1, in, 254);
    expect[255] = 0x01;
    expect[256] = 0x01;
    check_cobs(in, 255, expect, 257);
    /* 03..FF 00 01 */
    for (int i = 0; i < 253; i++)
        in[i] = (uint8_t)(i + 3);
    in[253] = 0;
    in[254] = 1;
    expect[0] = 0xFE;
    memcpy(expect + 1, in, 253);
    expect[254] = 0x02;
    expect[255] = 0x01;
    check_cobs(in, 255, expect, 256);
}

static void test_cobs_round_trips(void **state)
{
    (void)state;
    uint32_t seed = 12345;
    uint8_t in[600], enc[700], back[700];
    /* Lengths around the 254-byte block size, zero densities from none to
     * all. */
    static const int lengths[] = {0,   1,   2,   253, 254, 255, 256,
                                  507, 508, 509, 510, 600, 17,  100};
    static const int zero_pm[] = {0, 1, 10, 100, 500, 1000};
    for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++)
        for (size_t zi = 0; zi < sizeof zero_pm / sizeof zero_pm[0]; zi++)
            for (int rep = 0; rep < 20; rep++) {
                size_t n = (size_t)lengths[li];
                size_t zeros = 0;
                for (size_t i = 0; i < n; i++) {
                    uint32_t r = rng_next(&seed);
                    in[i] = (r % 1000 < (uint32_t)zero_pm[zi])
                                ? 0
                                : (uint8_t)(1 + (r >> 10) % 255);
                    zeros += in[i] == 0;
                }
                size_t len = 0, blen = 0;
                assert_int_equal(
                    fwp_cobs_encode(in, n, enc, sizeof enc, &len), FWP_OK);
                assert_true(len <= FWP_COBS_MAX(n));
                assert_true(len >= n + 1);
                /* Without zeros only full blocks add bytes. */
                if (zeros == 0 && n > 0)
                    assert_int_equal(len, n + (n + 253) / 254);
                assert_null(memchr(enc, 0, len));
                assert_int_equal(
                    fwp_cobs_decode(enc, len, back, sizeof back, &blen),
                    FWP_OK);
                assert_int_equal(blen, n);
                if (n)
                    assert_memory_equal(back, in, n);
                /* Exactly len bytes are needed, and n for the decoding. */
                size_t dummy;
                assert_int_equal(fwp_cobs_encode(in, n, enc, len - 1, &dummy),
                                 FWP_ERR_BUFFER);
                assert_int_equal(fwp_cobs_encode(in, n, enc, sizeof enc,
                                                 &len), FWP_OK);
                if (n > 0) {
                    assert_int_equal(
                        fwp_cobs_decode(enc, len, back, n - 1, &blen),
                        FWP_ERR_BUFFER);
                }
                assert_int_equal(fwp_cobs_decode(enc, len, back, n, &blen),
                                 FWP_OK);
            }
}

static void test_cobs_decode_errors(void **state)
{
    (void)state;
    uint8_t out[300], bad[300] = {0};
    size_t len;
    /* Empty, a zero byte, a code byte of zero, blocks past the end. */
    assert_int_equal(fwp_cobs_decode(bad, 0, out, sizeof out, &len),
                     FWP_ERR_COBS);
    assert_int_equal(fwp_cobs_decode((const uint8_t *)"\x03\x11\x00", 3,
                                     out, sizeof out, &len),
                     FWP_ERR_COBS);
    assert_int_equal(fwp_cobs_decode((const uint8_t *)"\x00", 1, out,
                                     sizeof out, &len),
                     FWP_ERR_COBS);
    assert_int_equal(fwp_cobs_decode((const uint8_t *)"\x05\x11\x22", 3,
                                     out, sizeof out, &len),
                     FWP_ERR_COBS);
    assert_int_equal(fwp_cobs_decode((const uint8_t *)"\x02\x11\x03\x22",
                                     4, out, sizeof out, &len),
                     FWP_ERR_COBS);
    /* The paper's spelling of 01..FE, with an empty block after the full
     * one, is refused so that every datum has one encoding... */
    bad[0] = 0xFF;
    for (int i = 0; i < 254; i++)
        bad[1 + i] = (uint8_t)(i + 1);
    bad[255] = 0x01;
    assert_int_equal(fwp_cobs_decode(bad, 256, out, sizeof out, &len),
                     FWP_ERR_COBS);
    /* ...while an empty block that is not last, after a full one, is the
     * zero it stands for. */
    bad[256] = 0x01;
    assert_int_equal(fwp_cobs_decode(bad, 257, out, sizeof out, &len),
                     FWP_OK);
    assert_int_equal(len, 255);
    assert_int_equal(out[254], 0);
    /* Bad arguments. */
    assert_int_equal(fwp_cobs_decode(NULL, 3, out, sizeof out, &len),
                     FWP_ERR_ARGUMENT);
    assert_int_equal(fwp_cobs_encode(bad, 3, NULL, 10, &len),
                     FWP_ERR_ARGUMENT);
    assert_int_equal(fwp_cobs_encode(bad, 3, out, 0, &len), FWP_ERR_BUFFER);
}

/* -------------------------------------------------------------- frames */

/* A message of every type with every field away from zero. */
static int sample_messages(fwp_message *m)
{
    int n = 0;
    memset(m, 0, 12 * sizeof *m);

    m[n].type = FWP_MSG_HELLO;
    m[n].u.hello = (fwp_hello){.version_min = 1,
                               .version_max = 3,
                               .role = FWP_ROLE_FIRMWARE,
                               .flags = FWP_HELLO_CONNECTING,
                               .gripper_mask = 0x0B,
                               .max_steps = 17,
                               .window = 3,
                               .features = FWP_FEATURE_CUBE_STATE |
                                           FWP_FEATURE_ESTOP_BUTTON,
                               .heartbeat_ms = 0x1234,
                               .link_timeout_ms = 0xBEEF,
                               .session = 0xDEADBEEF,
                               .peer_session = 0x01020304};
    n++;
    m[n++].type = FWP_MSG_HOME;
    fill_steps(&m[n++], FWP_MAX_STEPS_PER_BATCH, 0xFF00);
    fill_steps(&m[n++], 1, 0);
    m[n++].type = FWP_MSG_ACK;
    m[n].type = FWP_MSG_NAK;
    m[n].u.nak = (fwp_nak){.reason = FWP_NAK_BAD_STEP,
                           .ref_seq = 0xFE,
                           .step_id = 0x1234,
                           .rule = FWP_RULE_COLLISION,
                           .gripper = FWP_GRIPPER_F};
    n++;
    /* Field by field: these structs have padding, which memcmp sees. */
    m[n].type = FWP_MSG_EVENT;
    m[n].u.event.kind = FWP_STEP_DONE;
    m[n].u.event.step_id = 0xFFFE;
    m[n].u.event.duration_ms = 65535;
    n++;
    m[n].type = FWP_MSG_FAULT;
    m[n].u.fault.code = 0x8001;
    m[n].u.fault.step_id = FWP_NO_STEP;
    m[n].u.fault.gripper = FWP_GRIPPER_B;
    n++;
    m[n++].type = FWP_MSG_HEARTBEAT;
    m[n++].type = FWP_MSG_ESTOP;
    m[n].type = FWP_MSG_STATUS;
    m[n].u.status.query = true;
    n++;
    m[n].type = FWP_MSG_STATUS;
    m[n].u.status.state = FWP_ROBOT_RUNNING;
    m[n].u.status.has_cube = true;
    m[n].u.status.last_step = 0x0A0B;
    m[n].u.status.fault = 0;
    m[n].u.status.queued = 300;
    m[n].u.status.grip[0] = 1 | FWP_GRIP_CLOSED;
    m[n].u.status.grip[1] = 3;
    m[n].u.status.grip[2] = FWP_GRIP_CLOSED;
    m[n].u.status.grip[3] = 2 | FWP_GRIP_CLOSED;
    m[n].u.status.up = 2;
    m[n].u.status.front = 3;
    memcpy(m[n].u.status.cube,
           "DRBLUUDDUFRDRRLRFLFFLBFDULUBFFRDUBUULBRLLDRBRLFFDBUBBD", 54);
    n++;
    for (int i = 0; i < n; i++) {
        m[i].seq = (uint8_t)(0xF0 + i * 3);
        m[i].ack = (uint8_t)(0x0F * i);
    }
    return n;
}

static void test_frame_round_trip(void **state)
{
    (void)state;
    fwp_message msgs[12], back;
    int n = sample_messages(msgs);
    int seen[FWP_MSG_STATUS + 1] = {0};
    for (int i = 0; i < n; i++) {
        uint8_t enc[FWP_MAX_ENCODED], again[FWP_MAX_ENCODED];
        size_t len = 0, len2 = 0;
        assert_int_equal(fwp_encode_frame(&msgs[i], enc, sizeof enc, &len),
                         FWP_OK);
        assert_null(memchr(enc, 0, len));
        assert_int_equal(fwp_decode_frame(enc, len, &back), FWP_OK);
        /* Both sides zeroed unused bytes, so whole structs compare. */
        assert_memory_equal(&back, &msgs[i], sizeof back);
        assert_int_equal(fwp_encode_frame(&back, again, sizeof again, &len2),
                         FWP_OK);
        assert_int_equal(len2, len);
        assert_memory_equal(again, enc, len);
        /* One byte less than needed is refused, without overrun. */
        assert_int_equal(fwp_encode_frame(&msgs[i], enc, len - 1, &len2),
                         FWP_ERR_BUFFER);
        seen[msgs[i].type] = 1;
    }
    for (int t = FWP_MSG_HELLO; t <= FWP_MSG_STATUS; t++) {
        assert_true(seen[t]);
        assert_string_not_equal(fwp_type_name(t), "?");
    }
    assert_string_equal(fwp_type_name(FWP_MSG_STEPS), "STEPS");
    assert_string_equal(fwp_type_name(0), "?");
    assert_string_equal(fwp_type_name(11), "?");
    /* STATUS without cube too, and the largest frame fits the limits. */
    fwp_message s = msgs[n - 1];
    s.u.status.has_cube = false;
    memset(s.u.status.cube, 0, sizeof s.u.status.cube);
    uint8_t enc[FWP_MAX_ENCODED];
    size_t len;
    assert_int_equal(fwp_encode_frame(&s, enc, sizeof enc, &len), FWP_OK);
    assert_int_equal(fwp_decode_frame(enc, len, &back), FWP_OK);
    assert_memory_equal(&back, &s, sizeof s);
    assert_int_equal(fwp_encode_frame(&msgs[2], enc, sizeof enc, &len),
                     FWP_OK);
    assert_int_equal(len, FWP_MAX_ENCODED);
}

static void expect_wire(const fwp_message *m, const char *hex)
{
    uint8_t enc[FWP_MAX_ENCODED], want[FWP_MAX_ENCODED];
    size_t len, wlen = 0;
    for (const char *p = hex; *p;) {
        unsigned v;
        if (*p == ' ') {
            p++;
            continue;
        }
        assert_int_equal(sscanf(p, "%2x", &v), 1);
        want[wlen++] = (uint8_t)v;
        p += 2;
    }
    assert_int_equal(fwp_encode_frame(m, enc, sizeof enc, &len), FWP_OK);
    assert_int_equal(len, wlen);
    assert_memory_equal(enc, want, len);
}

/* The worked examples of docs/firmware-protocol.md, byte for byte. */
static void test_frame_layout(void **state)
{
    (void)state;
    fwp_message m = test_fwp_message(FWP_MSG_STEPS, 0x12, 0x34);
    m.u.steps.count = 2;
    m.u.steps.step[0] = test_fwp_step(0x0102, "+.2.");
    m.u.steps.step[1] = test_fwp_step(0x0103, "oc..");
    expect_wire(&m, "0A 01 03 12 34 0D 02 02 01 01 02 03 05 03 01 04 05 01 "
                    "03 B9 74");

    m = test_fwp_message(FWP_MSG_HELLO, 0, 0);
    m.u.hello = test_fwp_hello(1, 0x11223344);
    m.u.hello.features = FWP_FEATURE_CUBE_STATE;
    expect_wire(&m, "03 01 01 01 0B 14 01 01 02 01 0F 20 04 01 FA 07 E8 03 "
                    "44 33 22 11 01 01 01 03 4B D9");

    m = test_fwp_message(FWP_MSG_ACK, 0x35, 0x13);
    expect_wire(&m, "05 01 04 35 13 03 D9 09");

    m = test_fwp_message(FWP_MSG_EVENT, 0x80, 0x13);
    m.u.event = (fwp_step_event){FWP_STEP_DONE, 0x0102, 850};
    expect_wire(&m, "0D 01 06 80 13 05 02 02 01 52 03 E8 43");

    /* Version 2: a tilt tRL (id 0x0200), then R +90 with L regripping
     * +90, back home (id 0x0201), each one step. */
    m = test_fwp_message(FWP_MSG_STEPS, 0x20, 0x05);
    m.u.steps.count = 2;
    m.u.steps.step[0] = test_fwp_step(0x0200, "tT..");
    m.u.steps.step[1] = test_fwp_step(0x0201, "+g..");
    expect_wire(&m, "07 01 03 20 05 0D 02 04 02 08 09 01 05 01 02 01 06 01 "
                    "03 9C FD");

    /* The firmware's HELLO of version 2. */
    m = test_fwp_message(FWP_MSG_HELLO, 0, 0);
    m.u.hello = test_fwp_hello(2, 0x11223344);
    m.u.hello.features = FWP_FEATURE_CUBE_STATE;
    expect_wire(&m, "03 01 01 01 0B 14 02 02 02 01 0F 20 04 01 FA 07 E8 03 "
                    "44 33 22 11 01 01 01 03 9E F5");

    /* NAK BAD_STEP of message 0x20: step 0x0201 breaks rule TILT at R. */
    m = test_fwp_message(FWP_MSG_NAK, 0x81, 0x21);
    m.u.nak = (fwp_nak){FWP_NAK_BAD_STEP, 0x20, 0x0201, FWP_RULE_TILT,
                        FWP_GRIPPER_R};
    expect_wire(&m, "0B 01 05 81 21 06 05 20 01 02 07 03 CF CD");

    /* STATUS IDLE after the tilt: R at +90 and L at -90 closed, F and B
     * closed at home, cube F up and D in front. */
    m = test_fwp_message(FWP_MSG_STATUS, 0x82, 0x21);
    m.u.status.state = FWP_ROBOT_IDLE;
    m.u.status.last_step = 0x0201;
    m.u.status.grip[0] = 1 | FWP_GRIP_CLOSED;
    m.u.status.grip[1] = 3 | FWP_GRIP_CLOSED;
    m.u.status.grip[2] = FWP_GRIP_CLOSED;
    m.u.status.grip[3] = FWP_GRIP_CLOSED;
    m.u.status.up = 2;
    m.u.status.front = 3;
    expect_wire(&m, "07 01 0A 82 21 0E 02 03 01 02 01 01 01 09 05 07 04 04 "
                    "02 03 61 93");
}

/* Feeds an endpoint one HELLO (encoded and framed as on the wire). */
static void feed_hello(fwp_endpoint *ep, const fwp_hello *h)
{
    fwp_message m = test_fwp_message(FWP_MSG_HELLO, 0, 0);
    m.u.hello = *h;
    uint8_t wire[FWP_MAX_WIRE];
    fwp_feed(ep, wire, test_fwp_wire(&m, wire));
}

static int vn_events[8], vn_written;
static int vn_write(void *ctx, const uint8_t *b, size_t n)
{
    (void)ctx;
    (void)b;
    (void)n;
    vn_written++;
    return 0;
}
static uint32_t vn_now(void *ctx)
{
    (void)ctx;
    return 1000;
}
static void vn_event(void *ctx, int ev, int detail)
{
    (void)ctx;
    if (ev == FWP_EV_INCOMPATIBLE)
        vn_events[0] = detail;
    if (ev == FWP_EV_CONNECTED)
        vn_events[1]++;
}

/* Version negotiation: a peer of version 1 only is refused with
 * INCOMPATIBLE (detail 1) once, and its HELLO is kept for the error
 * message; a peer whose range includes 2 pairs. The frame's version byte
 * stays 1, so a version-1 peer decodes our HELLO and refuses it alike. */
static void test_version_negotiation(void **state)
{
    (void)state;
    static fwp_endpoint ep;
    fwp_config cfg;
    fwp_config_default(&cfg, FWP_ROLE_HOST);
    cfg.session = 0x484F5354;
    cfg.write = vn_write;
    cfg.now_ms = vn_now;
    cfg.on_event = vn_event;
    memset(vn_events, 0, sizeof vn_events);
    assert_int_equal(fwp_init(&ep, &cfg), FWP_OK);
    assert_null(fwp_refused_peer(&ep));
    fwp_hello old = test_fwp_hello(1, 0x0BAD);
    feed_hello(&ep, &old);
    feed_hello(&ep, &old);
    assert_int_equal(vn_events[0], 1);
    assert_int_equal(fwp_link(&ep), FWP_LINK_CONNECTING);
    assert_null(fwp_peer(&ep));
    const fwp_hello *r = fwp_refused_peer(&ep);
    assert_non_null(r);
    assert_int_equal(r->version_min, 1);
    assert_int_equal(r->version_max, 1);
    assert_int_equal(fwp_get_stats(&ep)->unpaired, 2);
    assert_int_equal(fwp_get_stats(&ep)->version_errors, 0);
    /* A newer peer that also speaks 2 is taken. */
    fwp_hello newer = old;
    newer.version_min = 2;
    newer.version_max = 5;
    newer.session = 0x600D;
    newer.peer_session = 0x484F5354;
    feed_hello(&ep, &newer);
    assert_int_equal(fwp_link(&ep), FWP_LINK_CONNECTED);
    assert_int_equal(vn_events[1], 1);
    assert_int_equal(fwp_peer(&ep)->version_max, 5);
    /* Our HELLO says 2..2 in a frame of version byte 1. */
    assert_int_equal(FWP_PROTOCOL_VERSION, 2);
    assert_int_equal(FWP_FRAME_VERSION, 1);
}

static void test_decode_errors(void **state)
{
    (void)state;
    uint8_t enc[700] = {0}, p[300];
    fwp_message m;
    size_t n;

    /* Sizes: nothing, and more than the largest encoded frame. */
    assert_int_equal(fwp_decode_frame(enc, 0, &m), FWP_ERR_SHORT);
    memset(p, 0x55, sizeof p);
    assert_int_equal(fwp_decode_frame(p, FWP_MAX_ENCODED + 1, &m),
                     FWP_ERR_TOO_LONG);
    /* Bad COBS. */
    assert_int_equal(fwp_decode_frame((const uint8_t *)"\x09\x01\x02", 3,
                                      &m),
                     FWP_ERR_COBS);
    assert_int_equal(fwp_decode_frame((const uint8_t *)"\x03\x01\x00\x04",
                                      4, &m),
                     FWP_ERR_COBS);
    /* Fewer than 7 bytes after COBS, however valid the COBS. */
    for (size_t len = 1; len < 7; len++) {
        uint8_t raw[7] = {1, 4, 0, 0, 0, 0, 0};
        assert_int_equal(fwp_cobs_encode(raw, len, enc, sizeof enc, &n),
                         FWP_OK);
        assert_int_equal(fwp_decode_frame(enc, n, &m), FWP_ERR_SHORT);
    }
    /* CRC, and CRC before everything else. */
    n = hand_frame(1, FWP_MSG_ACK, 1, 2, -1, NULL, 0, 1, enc, sizeof enc);
    assert_int_equal(fwp_decode_frame(enc, n, &m), FWP_ERR_CRC);
    n = hand_frame(9, 0x77, 1, 2, 40, NULL, 0, 1, enc, sizeof enc);
    assert_int_equal(fwp_decode_frame(enc, n, &m), FWP_ERR_CRC);
    /* Version, then type, then length. */
    n = hand_frame(2, FWP_MSG_ACK, 1, 2, -1, NULL, 0, 0, enc, sizeof enc);
    assert_int_equal(fwp_decode_frame(enc, n, &m), FWP_ERR_VERSION);
    n = hand_frame(0, 0x77, 1, 2, 9, NULL, 0, 0, enc, sizeof enc);
    assert_int_equal(fwp_decode_frame(enc, n, &m), FWP_ERR_VERSION);
    static const uint8_t bad_types[] = {0, 11, 0x80, 0xFF};
    for (size_t i = 0; i < sizeof bad_types; i++)
        assert_int_equal(decode_hand(bad_types[i], -1, NULL, 0),
                         FWP_ERR_TYPE);
    assert_int_equal(decode_hand(0x77, 5, NULL, 0), FWP_ERR_TYPE);
    /* reason 0 is not a reason; no step, no rule, no gripper */
    uint8_t nak[6] = {0, 0, 0xFF, 0xFF, 0, 0xFF};
    assert_int_equal(decode_hand(FWP_MSG_NAK, 5, nak, 6), FWP_ERR_LENGTH);
    assert_int_equal(decode_hand(FWP_MSG_NAK, 7, nak, 6), FWP_ERR_LENGTH);
    assert_int_equal(decode_hand(FWP_MSG_ACK, 255, NULL, 0), FWP_ERR_LENGTH);
    assert_int_equal(decode_hand(FWP_MSG_NAK, -1, nak, 6), FWP_ERR_PAYLOAD);
    nak[0] = FWP_NAK_BUSY;
    assert_int_equal(decode_hand(FWP_MSG_NAK, -1, nak, 6), FWP_OK);
    /* The 2-byte NAK of version 1 is not one of version 2. */
    assert_int_equal(decode_hand(FWP_MSG_NAK, -1, nak, 2), FWP_ERR_PAYLOAD);
    /* Error leaves *m zeroed. */
    n = hand_frame(1, FWP_MSG_NAK, 7, 7, -1, (const uint8_t *)"\x00\x01", 2,
                   0, enc, sizeof enc);
    memset(&m, 0xAA, sizeof m);
    assert_int_equal(fwp_decode_frame(enc, n, &m), FWP_ERR_PAYLOAD);
    fwp_message zero;
    memset(&zero, 0, sizeof zero);
    assert_memory_equal(&m, &zero, sizeof m);
}

/* Takes a valid encoded sample of type t, changes payload byte `at` to v
 * (or the size by `grow`) and returns what decoding says. */
static int spoil(const fwp_message *good, int at, int v, int grow)
{
    uint8_t enc[FWP_MAX_ENCODED], raw[FWP_MAX_ENCODED + 8], out[700];
    size_t len, rlen;
    fwp_message m;
    assert_int_equal(fwp_encode_frame(good, enc, sizeof enc, &len), FWP_OK);
    assert_int_equal(fwp_cobs_decode(enc, len, raw, sizeof raw, &rlen),
                     FWP_OK);
    size_t plen = rlen - 7;
    if (at >= 0)
        raw[5 + at] = (uint8_t)v;
    plen = (size_t)((int)plen + grow);
    if (grow > 0)
        memset(raw + 5 + plen - (size_t)grow, 0x01, (size_t)grow);
    size_t n = hand_frame(raw[0], raw[1], raw[2], raw[3], -1, raw + 5, plen,
                          0, out, sizeof out);
    return fwp_decode_frame(out, n, &m);
}

static void test_payload_errors(void **state)
{
    (void)state;
    fwp_message s[12];
    sample_messages(s);
    const fwp_message *hello = &s[0], *home = &s[1], *steps = &s[2],
                      *one = &s[3], *ack = &s[4], *nak = &s[5],
                      *event = &s[6], *fault = &s[7], *hb = &s[8],
                      *estop = &s[9], *query = &s[10], *status = &s[11];
    /* Unchanged: valid. */
    assert_int_equal(spoil(hello, -1, 0, 0), FWP_OK);
    assert_int_equal(spoil(status, -1, 0, 0), FWP_OK);
    /* Wrong sizes for every type. */
    const fwp_message *all[] = {hello, home, one, ack,   nak,  event,
                                fault, hb,  estop, query, status};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        assert_int_equal(spoil(all[i], -1, 0, 1), FWP_ERR_PAYLOAD);
        if (all[i] != home && all[i] != ack && all[i] != hb &&
            all[i] != estop && all[i] != query)
            assert_int_equal(spoil(all[i], -1, 0, -1), FWP_ERR_PAYLOAD);
    }
    /* HELLO fields. */
    assert_int_equal(spoil(hello, 0, 0, 0), FWP_ERR_PAYLOAD);    /* vmin 0 */
    assert_int_equal(spoil(hello, 0, 4, 0), FWP_ERR_PAYLOAD);    /* > vmax */
    assert_int_equal(spoil(hello, 2, 3, 0), FWP_ERR_PAYLOAD);    /* role */
    assert_int_equal(spoil(hello, 3, 0x02, 0), FWP_ERR_PAYLOAD); /* flag */
    assert_int_equal(spoil(hello, 4, 0, 0), FWP_ERR_PAYLOAD);    /* mask */
    assert_int_equal(spoil(hello, 4, 0x10, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(hello, 5, 0, 0), FWP_ERR_PAYLOAD);  /* steps */
    assert_int_equal(spoil(hello, 6, 0, 0), FWP_ERR_PAYLOAD);  /* window */
    assert_int_equal(spoil(hello, 6, 128, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(hello, 7, 0x04, 0), FWP_ERR_PAYLOAD); /* feat. */
    fwp_message h0 = *hello;
    h0.u.hello.session = 0;
    assert_int_equal(fwp_check_message(&h0), FWP_ERR_PAYLOAD);
    {
        /* A session of zero on the wire. */
        uint8_t p[FWP_HELLO_SIZE] = {1, 1, 1, 0, 0x0F, 4, 4, 0, 1, 0, 1, 0,
                                     0, 0, 0, 0, 0, 0, 0, 0};
        assert_int_equal(decode_hand(FWP_MSG_HELLO, -1, p, sizeof p),
                         FWP_ERR_PAYLOAD);
        p[12] = 1;
        assert_int_equal(decode_hand(FWP_MSG_HELLO, -1, p, sizeof p),
                         FWP_OK);
    }
    /* STEPS: count 0, count above the limit with a matching size, an
     * action beyond TILT_CCW, the reserved step id. */
    assert_int_equal(spoil(one, 0, 0, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(one, 0, 2, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(one, 0, 2, FWP_STEP_SIZE), FWP_OK);
    /* One step more than the maximum: refused for its count when the
     * payload limit leaves room for it, else for its size. */
    assert_int_equal(
        spoil(steps, 0, FWP_MAX_STEPS_PER_BATCH + 1, FWP_STEP_SIZE),
        FWP_STEPS_SIZE(FWP_MAX_STEPS_PER_BATCH + 1) <= FWP_MAX_PAYLOAD
            ? FWP_ERR_PAYLOAD
            : FWP_ERR_TOO_LONG);
    assert_int_equal(spoil(one, 3, FWP_ACT_CLOSE, 0), FWP_OK);
    assert_int_equal(spoil(one, 3, FWP_ACT_MAX, 0), FWP_OK);
    assert_int_equal(spoil(one, 3, FWP_ACT_MAX + 1, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(one, 6, 0xFF, 0), FWP_ERR_PAYLOAD);
    {
        fwp_message x = *one;
        x.u.steps.step[0].id = FWP_NO_STEP;
        assert_int_equal(fwp_check_message(&x), FWP_ERR_PAYLOAD);
        uint8_t p[7] = {1, 0xFF, 0xFF, 0, 0, 0, 0};
        assert_int_equal(decode_hand(FWP_MSG_STEPS, -1, p, 7),
                         FWP_ERR_PAYLOAD);
        p[1] = 0xFE;
        assert_int_equal(decode_hand(FWP_MSG_STEPS, -1, p, 7), FWP_OK);
    }
    /* NAK reason 0, EVENT kind and step, FAULT code and gripper. */
    assert_int_equal(spoil(nak, 0, 0, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(event, 0, 0, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(event, 0, 3, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(event, 0, FWP_STEP_STARTED, 0), FWP_OK);
    assert_int_equal(spoil(event, 1, 0xFF, 0), FWP_ERR_PAYLOAD); /* FFFF */
    assert_int_equal(spoil(fault, 0, 0, 0), FWP_OK);      /* 0x8000 */
    {
        uint8_t p[5] = {0, 0, 0xFF, 0xFF, 0xFF};
        assert_int_equal(decode_hand(FWP_MSG_FAULT, -1, p, 5),
                         FWP_ERR_PAYLOAD);
        p[0] = 1;
        assert_int_equal(decode_hand(FWP_MSG_FAULT, -1, p, 5), FWP_OK);
    }
    assert_int_equal(spoil(fault, 4, 4, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(fault, 4, 0xFE, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(fault, 4, 0xFF, 0), FWP_OK);
    /* STATUS: state, a flag that disagrees with the size, reserved flags,
     * a facelet letter, sizes between the two valid ones. */
    assert_int_equal(spoil(status, 0, FWP_ROBOT_STOPPED, 0), FWP_OK);
    assert_int_equal(spoil(status, 0, FWP_ROBOT_STOPPED + 1, 0),
                     FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 1, 0, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 1, 0x03, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 14 + 53, 'X', 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 14, 'u', 0), FWP_ERR_PAYLOAD);
    /* Grippers: an angle with a reserved bit; unknown is 0xFF. The
     * orientation: both faces known or neither, on different axes. */
    assert_int_equal(spoil(status, 8, 0x08, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 9, 0xFF, 0), FWP_OK);
    assert_int_equal(spoil(status, 12, 0xFF, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 12, 5, 0), FWP_OK);
    assert_int_equal(spoil(status, 12, 0, 0), FWP_ERR_PAYLOAD); /* U, D */
    assert_int_equal(spoil(status, 13, 6, 0), FWP_ERR_PAYLOAD);
    /* NAK: a rule that is not defined, a gripper out of range. */
    assert_int_equal(spoil(nak, 4, FWP_RULE_OPEN_TURN, 0), FWP_OK);
    assert_int_equal(spoil(nak, 4, 1, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(nak, 4, 10, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(nak, 5, 4, 0), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(nak, 5, 0xFF, 0), FWP_OK);
    assert_int_equal(spoil(nak, -1, 0, -4), FWP_ERR_PAYLOAD); /* version 1 */
    assert_int_equal(spoil(status, -1, 0, -54), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 1, 0, -54), FWP_OK);
    assert_int_equal(spoil(status, 1, 1, -54), FWP_ERR_PAYLOAD);
    assert_int_equal(spoil(status, 1, 0, -53), FWP_ERR_PAYLOAD);
    /* The encoder refuses what the decoder would. */
    fwp_message x = *status;
    x.u.status.cube[0] = 'x';
    uint8_t enc[FWP_MAX_ENCODED];
    size_t len;
    assert_int_equal(fwp_encode_frame(&x, enc, sizeof enc, &len),
                     FWP_ERR_PAYLOAD);
    x.type = 0;
    assert_int_equal(fwp_encode_frame(&x, enc, sizeof enc, &len),
                     FWP_ERR_TYPE);
    x.type = 12;
    assert_int_equal(fwp_check_message(&x), FWP_ERR_TYPE);
    assert_int_equal(fwp_encode_frame(NULL, enc, sizeof enc, &len),
                     FWP_ERR_ARGUMENT);
}

/* -------------------------------------------------------------- stream */

typedef struct {
    fwp_message got[16];
    int frames;
    int errors[16]; /* by -error */
} stream_log;

static void push_all(fwp_stream *s, const uint8_t *b, size_t n,
                     stream_log *log)
{
    fwp_message m;
    for (size_t i = 0; i < n; i++) {
        int rc = fwp_stream_push(s, b[i], &m);
        if (rc == 1) {
            assert_true(log->frames < 16);
            log->got[log->frames++] = m;
        } else if (rc < 0) {
            assert_true(-rc < 16);
            log->errors[-rc]++;
        }
    }
}

static void test_stream_resync(void **state)
{
    (void)state;
    fwp_message msgs[12];
    sample_messages(msgs);
    uint8_t w1[FWP_MAX_WIRE], w2[FWP_MAX_WIRE], junk[1000];
    size_t n1 = test_fwp_wire(&msgs[2], w1);
    size_t n2 = test_fwp_wire(&msgs[11], w2);
    uint32_t seed = 99;
    fwp_stream s;

    /* Garbage without a delimiter, then frames: the leading delimiter of
     * the first frame ends the garbage (one dropped frame), both frames
     * arrive. */
    for (int trial = 0; trial < 50; trial++) {
        stream_log log = {0};
        fwp_stream_init(&s);
        size_t jn = 1 + rng_next(&seed) % 150;
        for (size_t i = 0; i < jn; i++)
            junk[i] = (uint8_t)(1 + rng_next(&seed) % 255);
        push_all(&s, junk, jn, &log);
        push_all(&s, w1, n1, &log);
        push_all(&s, w2, n2, &log);
        assert_int_equal(log.frames, 2);
        assert_memory_equal(&log.got[0], &msgs[2], sizeof msgs[2]);
        assert_memory_equal(&log.got[1], &msgs[11], sizeof msgs[11]);
    }
    /* Garbage with zeros in it: only what precedes frame 1 is lost. */
    for (int trial = 0; trial < 50; trial++) {
        stream_log log = {0};
        fwp_stream_init(&s);
        size_t jn = 1 + rng_next(&seed) % 400;
        for (size_t i = 0; i < jn; i++)
            junk[i] = (uint8_t)(rng_next(&seed) % 4 ? rng_next(&seed) : 0);
        push_all(&s, junk, jn, &log);
        push_all(&s, w1, n1, &log);
        assert_int_equal(log.frames, 1);
        assert_memory_equal(&log.got[0], &msgs[2], sizeof msgs[2]);
    }
    /* A frame cut short, and one with bytes injected inside: each is
     * dropped with an error, the next frame is not. */
    for (size_t cut = 1; cut < n1 - 1; cut += 7) {
        stream_log log = {0};
        fwp_stream_init(&s);
        push_all(&s, w1, cut, &log);
        push_all(&s, w2, n2, &log);
        assert_int_equal(log.frames, 1);
        assert_memory_equal(&log.got[0], &msgs[11], sizeof msgs[11]);
        int errs = 0;
        for (int e = 0; e < 16; e++)
            errs += log.errors[e];
        assert_int_equal(errs, cut > 1 ? 1 : 0);
    }
    for (size_t at = 2; at < n2 - 1; at += 3) {
        stream_log log = {0};
        uint8_t bent[FWP_MAX_WIRE + 3];
        memcpy(bent, w2, at);
        bent[at] = 0x5A;
        bent[at + 1] = 0xA5;
        memcpy(bent + at + 2, w2 + at, n2 - at);
        fwp_stream_init(&s);
        push_all(&s, bent, n2 + 2, &log);
        push_all(&s, w1, n1, &log);
        assert_int_equal(log.frames, 1);
        assert_memory_equal(&log.got[0], &msgs[2], sizeof msgs[2]);
        assert_int_equal(log.errors[-FWP_ERR_CRC] + log.errors[-FWP_ERR_COBS],
                         1);
    }
    /* Endless garbage: TOO_LONG once, then the next frame is fine. */
    {
        stream_log log = {0};
        fwp_stream_init(&s);
        memset(junk, 0x42, sizeof junk);
        push_all(&s, junk, sizeof junk, &log);
        assert_int_equal(log.errors[-FWP_ERR_TOO_LONG], 1);
        push_all(&s, w1, n1, &log);
        assert_int_equal(log.frames, 1);
        assert_int_equal(log.errors[-FWP_ERR_TOO_LONG], 1);
        /* Exactly the largest frame still fits. */
        push_all(&s, w1 + 1, n1 - 1, &log);
        assert_int_equal(log.frames, 2);
        assert_int_equal(n1 - 2, FWP_MAX_ENCODED);
    }
    /* Each decode error comes out of the stream as itself. */
    {
        stream_log log = {0};
        uint8_t f[700];
        fwp_stream_init(&s);
        size_t n = hand_frame(1, FWP_MSG_ACK, 0, 0, -1, NULL, 0, 1, f + 1,
                              sizeof f - 2);
        f[0] = 0;
        f[n + 1] = 0;
        push_all(&s, f, n + 2, &log);
        assert_int_equal(log.errors[-FWP_ERR_CRC], 1);
        n = hand_frame(3, FWP_MSG_ACK, 0, 0, -1, NULL, 0, 0, f + 1,
                       sizeof f - 2);
        f[n + 1] = 0;
        push_all(&s, f, n + 2, &log);
        assert_int_equal(log.errors[-FWP_ERR_VERSION], 1);
        push_all(&s, (const uint8_t *)"\x00\x00\x00", 3, &log);
        assert_int_equal(log.frames, 0);
        assert_int_equal(log.errors[-FWP_ERR_SHORT], 0);
    }
}

/* ------------------------------------------------------- link simulation */

#define PIPE_CAP 512

typedef struct {
    uint8_t data[FWP_MAX_WIRE + 8];
    size_t len;
    uint32_t due, order;
} packet;

typedef struct {
    packet q[PIPE_CAP];
    int n;
    int drop_pm, dup_pm, flip_pm, reorder_pm, junk_pm; /* per mille */
    int cut;                                           /* drop everything */
    int dropped, duplicated, flipped, reordered, junked, sent;
} pipe_t;

typedef struct sim sim;

typedef struct {
    int kind; /* fwp_link_event */
    int detail;
    uint32_t at;
} ev_rec;

typedef struct {
    sim *s;
    int dir; /* the pipe this side writes into */
    fwp_endpoint ep;
    fwp_config cfg;
    ev_rec ev[64];
    int n_ev;
    int hellos;
    /* Application state of the streaming tests. */
    int check_batches; /* compare contents with the streamed batches */
    int steps_got, events_got, others_got;
    int events_to_send;
    uint8_t last_seq;
    int seq_seen, seq_wraps;
} side;

struct sim {
    uint32_t now, order;
    uint32_t rng;
    pipe_t pipe[2]; /* 0: host to firmware, 1: firmware to host */
    side host, fw;
};

static uint32_t sim_now(void *ctx)
{
    return ((side *)ctx)->s->now;
}

static void enqueue(sim *s, pipe_t *p, const uint8_t *b, size_t n,
                    uint32_t delay)
{
    assert_true(p->n < PIPE_CAP);
    assert_true(n <= sizeof p->q[0].data);
    packet *k = &p->q[p->n++];
    memcpy(k->data, b, n);
    k->len = n;
    k->due = s->now + delay;
    k->order = s->order++;
}

static int roll(sim *s, int pm)
{
    return (int)(rng_next(&s->rng) % 1000) < pm;
}

/* Transport: two milliseconds of latency, and the faults of the pipe. */
static int sim_write(void *ctx, const uint8_t *b, size_t n)
{
    side *sd = ctx;
    sim *s = sd->s;
    pipe_t *p = &s->pipe[sd->dir];
    p->sent++;
    if (p->cut || roll(s, p->drop_pm)) {
        p->dropped++;
        return 0;
    }
    uint8_t copy[FWP_MAX_WIRE + 8];
    memcpy(copy, b, n);
    if (roll(s, p->flip_pm)) {
        size_t at = rng_next(&s->rng) % n;
        copy[at] ^= (uint8_t)(1u << (rng_next(&s->rng) % 8));
        p->flipped++;
    }
    uint32_t delay = 2;
    if (roll(s, p->reorder_pm)) {
        delay += 1 + rng_next(&s->rng) % 6; /* later frames overtake it */
        p->reordered++;
    }
    enqueue(s, p, copy, n, delay);
    if (roll(s, p->dup_pm)) {
        enqueue(s, p, copy, n, 2 + rng_next(&s->rng) % 8);
        p->duplicated++;
    }
    if (roll(s, p->junk_pm)) {
        uint8_t junk[40];
        size_t jn = 1 + rng_next(&s->rng) % sizeof junk;
        for (size_t i = 0; i < jn; i++)
            junk[i] = (uint8_t)rng_next(&s->rng);
        enqueue(s, p, junk, jn, 1 + rng_next(&s->rng) % 4);
        p->junked++;
    }
    return 0;
}

static void sim_event(void *ctx, int event, int detail)
{
    side *sd = ctx;
    assert_true(sd->n_ev < 64);
    sd->ev[sd->n_ev++] = (ev_rec){event, detail, sd->s->now};
}

static int count_ev(const side *sd, int kind)
{
    int n = 0;
    for (int i = 0; i < sd->n_ev; i++)
        n += sd->ev[i].kind == kind;
    return n;
}

static const ev_rec *find_ev(const side *sd, int kind)
{
    for (int i = 0; i < sd->n_ev; i++)
        if (sd->ev[i].kind == kind)
            return &sd->ev[i];
    return NULL;
}

/* What batch k of the streaming tests holds: sizes cycle through 1..max. */
static int batch_size(int k)
{
    return 1 + (k * 7) % FWP_MAX_STEPS_PER_BATCH;
}

static uint16_t batch_first_id(int k)
{
    uint32_t id = 0;
    for (int i = 0; i < k; i++)
        id += (uint32_t)batch_size(i);
    return (uint16_t)(id % 0xFFFF);
}

static void note_seq(side *sd, uint8_t seq)
{
    if (sd->seq_seen) {
        /* Exactly once, in order: each sequence number is the one after
         * the last, across the wrap from 255 to 0. */
        assert_int_equal(seq, (uint8_t)(sd->last_seq + 1));
        if (seq == 0)
            sd->seq_wraps++;
    }
    sd->seq_seen = 1;
    sd->last_seq = seq;
}

/* The firmware application: checks every batch against what the host
 * sends as batch number steps_got, and owes one EVENT per batch. */
static void fw_message(void *ctx, const fwp_message *m)
{
    side *sd = ctx;
    if (m->type == FWP_MSG_HELLO) {
        sd->hellos++;
        return;
    }
    note_seq(sd, m->seq);
    if (m->type != FWP_MSG_STEPS) {
        sd->others_got++;
        return;
    }
    if (!sd->check_batches) {
        sd->steps_got++;
        return;
    }
    fwp_message want;
    int k = sd->steps_got;
    fill_steps(&want, batch_size(k), batch_first_id(k));
    assert_int_equal(m->u.steps.count, want.u.steps.count);
    assert_memory_equal(m->u.steps.step, want.u.steps.step,
                        sizeof(fwp_step) * want.u.steps.count);
    sd->steps_got++;
    sd->events_to_send++;
}

/* The host application: EVENT number k names the last step of batch k. */
static void host_message(void *ctx, const fwp_message *m)
{
    side *sd = ctx;
    if (m->type == FWP_MSG_HELLO) {
        sd->hellos++;
        return;
    }
    note_seq(sd, m->seq);
    if (m->type != FWP_MSG_EVENT) {
        sd->others_got++;
        return;
    }
    if (!sd->check_batches) {
        sd->events_got++;
        return;
    }
    int k = sd->events_got;
    assert_int_equal(m->u.event.kind, FWP_STEP_DONE);
    assert_int_equal(m->u.event.step_id,
                     (uint16_t)(batch_first_id(k) + batch_size(k) - 1));
    assert_int_equal(m->u.event.duration_ms, (uint16_t)(k * 3));
    sd->events_got++;
}

static void side_config(sim *s, side *sd, fwp_role role, uint32_t session)
{
    sd->s = s;
    sd->dir = role == FWP_ROLE_HOST ? 0 : 1;
    fwp_config_default(&sd->cfg, role);
    sd->cfg.session = session;
    sd->cfg.write = sim_write;
    sd->cfg.now_ms = sim_now;
    sd->cfg.on_event = sim_event;
    sd->cfg.on_message = role == FWP_ROLE_HOST ? host_message : fw_message;
    sd->cfg.ctx = sd;
}

/* Sets up both sides with default configurations; adjust sd->cfg and call
 * sim_start. */
static void sim_init(sim *s, uint32_t seed)
{
    memset(s, 0, sizeof *s);
    s->rng = seed;
    s->now = 1000000; /* any origin */
    side_config(s, &s->host, FWP_ROLE_HOST, 0x484F5354);
    side_config(s, &s->fw, FWP_ROLE_FIRMWARE, 0x46574657);
}

static void sim_start(sim *s)
{
    assert_int_equal(fwp_init(&s->host.ep, &s->host.cfg), FWP_OK);
    assert_int_equal(fwp_init(&s->fw.ep, &s->fw.cfg), FWP_OK);
    /* No numbers are given out before the handshake. */
    assert_int_equal(fwp_next_seq(&s->host.ep), -1);
}

/* One millisecond: deliver what is due in arrival order, then poll. */
static void sim_step(sim *s)
{
    for (int dir = 0; dir < 2; dir++) {
        pipe_t *p = &s->pipe[dir];
        fwp_endpoint *to = dir == 0 ? &s->fw.ep : &s->host.ep;
        for (;;) {
            int best = -1;
            for (int i = 0; i < p->n; i++)
                if (p->q[i].due <= s->now &&
                    (best < 0 || p->q[i].due < p->q[best].due ||
                     (p->q[i].due == p->q[best].due &&
                      p->q[i].order < p->q[best].order)))
                    best = i;
            if (best < 0)
                break;
            packet k = p->q[best];
            p->q[best] = p->q[--p->n];
            fwp_feed(to, k.data, k.len);
        }
    }
    fwp_poll(&s->host.ep);
    fwp_poll(&s->fw.ep);
    s->now++;
}

static void sim_run(sim *s, uint32_t ms)
{
    for (uint32_t i = 0; i < ms; i++)
        sim_step(s);
}

static void sim_connect(sim *s)
{
    for (int i = 0; i < 5000 && (fwp_link(&s->host.ep) != FWP_LINK_CONNECTED ||
                                 fwp_link(&s->fw.ep) != FWP_LINK_CONNECTED);
         i++)
        sim_step(s);
    assert_int_equal(fwp_link(&s->host.ep), FWP_LINK_CONNECTED);
    assert_int_equal(fwp_link(&s->fw.ep), FWP_LINK_CONNECTED);
}

/* The applications' main loops: the host streams batches 0..total-1 as
 * the window allows, the firmware pays the EVENTs it owes. */
static void apps_send(sim *s, int total, int *next_batch)
{
    while (*next_batch < total && fwp_window_free(&s->host.ep) > 0) {
        fwp_message m;
        fill_steps(&m, batch_size(*next_batch),
                   batch_first_id(*next_batch));
        assert_int_equal(fwp_send(&s->host.ep, &m), FWP_OK);
        (*next_batch)++;
    }
    while (s->fw.events_to_send > 0 && fwp_window_free(&s->fw.ep) > 0) {
        int k = s->fw.steps_got - s->fw.events_to_send;
        fwp_message m = test_fwp_message(FWP_MSG_EVENT, 0, 0);
        m.u.event.kind = FWP_STEP_DONE;
        m.u.event.step_id =
            (uint16_t)(batch_first_id(k) + batch_size(k) - 1);
        m.u.event.duration_ms = (uint16_t)(k * 3);
        assert_int_equal(fwp_send(&s->fw.ep, &m), FWP_OK);
        s->fw.events_to_send--;
    }
}

/* Streams `total` batches each way (STEPS, EVENTs back); returns the
 * virtual ms it took. */
static uint32_t stream_batches(sim *s, int total, uint32_t limit_ms)
{
    int next = 0;
    uint32_t start = s->now;
    s->fw.check_batches = s->host.check_batches = 1;
    while (s->now - start < limit_ms &&
           (s->fw.steps_got < total || s->host.events_got < total ||
            fwp_unacked(&s->host.ep) || fwp_unacked(&s->fw.ep))) {
        apps_send(s, total, &next);
        sim_step(s);
    }
    assert_int_equal(s->fw.steps_got, total);
    assert_int_equal(s->host.events_got, total);
    s->fw.check_batches = s->host.check_batches = 0;
    return s->now - start;
}

static void test_handshake(void **state)
{
    (void)state;
    static sim s;
    sim_init(&s, 1);
    s.fw.cfg.max_steps = 8;
    s.fw.cfg.window = 2;
    s.fw.cfg.gripper_mask = 0x03;
    s.fw.cfg.features = FWP_FEATURE_CUBE_STATE;
    sim_start(&s);
    assert_null(fwp_peer(&s.host.ep));
    fwp_message home = test_fwp_message(FWP_MSG_HOME, 0, 0);
    assert_int_equal(fwp_send(&s.host.ep, &home), FWP_ERR_NOT_CONNECTED);
    assert_int_equal(fwp_window_free(&s.host.ep), 0);
    sim_connect(&s);
    /* One HELLO exchange of a few frames, well within 10 ms. */
    assert_true(s.now - 1000000 < 10);
    assert_int_equal(s.host.hellos, 1);
    assert_int_equal(s.fw.hellos, 1);
    assert_int_equal(count_ev(&s.host, FWP_EV_CONNECTED), 1);
    assert_int_equal(count_ev(&s.fw, FWP_EV_CONNECTED), 1);
    const fwp_hello *p = fwp_peer(&s.host.ep);
    assert_non_null(p);
    assert_int_equal(p->role, FWP_ROLE_FIRMWARE);
    assert_int_equal(p->max_steps, 8);
    assert_int_equal(p->window, 2);
    assert_int_equal(p->gripper_mask, 0x03);
    assert_int_equal(p->features, FWP_FEATURE_CUBE_STATE);
    assert_int_equal(p->link_timeout_ms, 1000);
    assert_int_equal(p->session, 0x46574657);
    assert_int_equal(fwp_peer(&s.fw.ep)->session, 0x484F5354);
    /* The smaller of the two windows, seen from either side. */
    assert_int_equal(fwp_window_free(&s.host.ep), 2);
    assert_int_equal(fwp_window_free(&s.fw.ep), 2);
    /* Quiet afterwards: no more HELLOs. */
    uint32_t out = fwp_get_stats(&s.host.ep)->frames_out;
    sim_run(&s, 100);
    assert_int_equal(fwp_get_stats(&s.host.ep)->frames_out, out);
    assert_int_equal(s.host.hellos, 1);
    assert_int_equal(s.fw.hellos, 1);

    /* Two hosts cannot pair; the event comes once, not per HELLO. */
    static sim t;
    sim_init(&t, 2);
    side_config(&t, &t.fw, FWP_ROLE_HOST, 0x1111);
    t.fw.dir = 1;
    sim_start(&t);
    sim_run(&t, 1000);
    assert_int_equal(fwp_link(&t.host.ep), FWP_LINK_CONNECTING);
    assert_int_equal(count_ev(&t.host, FWP_EV_INCOMPATIBLE), 1);
    assert_int_equal(find_ev(&t.host, FWP_EV_INCOMPATIBLE)->detail, 2);
    assert_int_equal(count_ev(&t.fw, FWP_EV_CONNECTED), 0);
    assert_null(fwp_peer(&t.host.ep));
}

static void test_send_rules(void **state)
{
    (void)state;
    static sim s;
    sim_init(&s, 3);
    s.fw.cfg.max_steps = 4;
    s.fw.cfg.gripper_mask = 0x07; /* no B gripper */
    s.host.cfg.window = 3;
    sim_start(&s);
    sim_connect(&s);
    fwp_message m = test_fwp_message(FWP_MSG_ACK, 0, 0);
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_TYPE);
    m.type = FWP_MSG_HELLO;
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_TYPE);
    m.type = FWP_MSG_HEARTBEAT;
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_TYPE);
    assert_int_equal(fwp_send(NULL, &m), FWP_ERR_ARGUMENT);
    assert_int_equal(fwp_send(&s.host.ep, NULL), FWP_ERR_ARGUMENT);

    /* Roles. */
    fill_steps(&m, 1, 5);
    assert_int_equal(fwp_send(&s.fw.ep, &m), FWP_ERR_ROLE);
    m = test_fwp_message(FWP_MSG_HOME, 0, 0);
    assert_int_equal(fwp_send(&s.fw.ep, &m), FWP_ERR_ROLE);
    m.type = FWP_MSG_EVENT;
    m.u.event = (fwp_step_event){FWP_STEP_STARTED, 1, 0};
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_ROLE);
    m = test_fwp_message(FWP_MSG_FAULT, 0, 0);
    m.u.fault = (fwp_fault){FWP_FAULT_STALL, 3, 0};
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_ROLE);
    m = test_fwp_message(FWP_MSG_STATUS, 0, 0);
    m.u.status.query = true;
    assert_int_equal(fwp_send(&s.fw.ep, &m), FWP_ERR_ROLE);
    m.u.status.query = false;
    m.u.status.up = m.u.status.front = FWP_FACE_UNKNOWN;
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_ROLE);
    m.u.status.has_cube = true;
    memcpy(m.u.status.cube, solved_cube, 54);
    m.u.status.cube[5] = '?';
    assert_int_equal(fwp_send(&s.fw.ep, &m), FWP_ERR_PAYLOAD);

    /* The peer's limits: batch size, fitted grippers. */
    fill_steps(&m, 5, 0);
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_LIMIT);
    m = test_fwp_message(FWP_MSG_STEPS, 0, 0);
    m.u.steps.count = 1;
    m.u.steps.step[0].action[FWP_GRIPPER_B] = FWP_ACT_CW;
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_LIMIT);
    m.u.steps.step[0].action[FWP_GRIPPER_B] = FWP_ACT_NONE;
    m.u.steps.step[0].action[FWP_GRIPPER_F] = FWP_ACT_OPEN;

    /* The window (3 here), then ESTOP's extra slot, then nothing. Each
     * message takes the sequence number fwp_next_seq announced. */
    int seq0 = fwp_next_seq(&s.host.ep);
    assert_true(seq0 >= 0 && seq0 <= 255);
    for (int i = 0; i < 3; i++) {
        m.u.steps.step[0].id = (uint16_t)i;
        assert_int_equal(fwp_window_free(&s.host.ep), 3 - i);
        assert_int_equal(fwp_next_seq(&s.host.ep), (seq0 + i) & 0xFF);
        assert_int_equal(fwp_send(&s.host.ep, &m), FWP_OK);
        assert_int_equal(
            s.host.ep.tx[(s.host.ep.tx_head + i) % (FWP_WINDOW + 1)].seq,
            (seq0 + i) & 0xFF);
    }
    /* A refused send takes no number. */
    assert_int_equal(fwp_window_free(&s.host.ep), 0);
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_BUSY);
    assert_int_equal(fwp_next_seq(&s.host.ep), (seq0 + 3) & 0xFF);
    fwp_message stop = test_fwp_message(FWP_MSG_ESTOP, 0, 0);
    assert_int_equal(fwp_send(&s.host.ep, &stop), FWP_OK);
    assert_int_equal(fwp_send(&s.host.ep, &stop), FWP_ERR_BUSY);
    assert_int_equal(fwp_unacked(&s.host.ep), 4);
    /* All four arrive in order (3 STEPS, then ESTOP) and are acked. */
    sim_run(&s, 20);
    assert_int_equal(s.fw.others_got, 1);
    assert_int_equal(fwp_unacked(&s.host.ep), 0);
    assert_int_equal(fwp_window_free(&s.host.ep), 3);
    assert_int_equal(fwp_get_stats(&s.host.ep)->retransmits, 0);
}

static void test_lossy_link(void **state)
{
    (void)state;
    static sim s;
    sim_init(&s, 0xC0FFEE);
    for (int d = 0; d < 2; d++) {
        s.pipe[d].drop_pm = 100;
        s.pipe[d].dup_pm = 50;
        s.pipe[d].flip_pm = 20;
        s.pipe[d].reorder_pm = 50;
        s.pipe[d].junk_pm = 10;
    }
    s.host.cfg.retransmit_ms = 20;
    s.fw.cfg.retransmit_ms = 20;
    sim_start(&s);
    sim_connect(&s);
    uint32_t ms = stream_batches(&s, 1000, 600000);
    const fwp_stats *h = fwp_get_stats(&s.host.ep),
                    *f = fwp_get_stats(&s.fw.ep);
    /* The link did misbehave in every way... */
    for (int d = 0; d < 2; d++) {
        assert_true(s.pipe[d].dropped > 100);
        assert_true(s.pipe[d].duplicated > 50);
        assert_true(s.pipe[d].flipped > 10);
        assert_true(s.pipe[d].reordered > 50);
    }
    assert_true(f->crc_errors + f->cobs_errors > 0);
    assert_true(h->crc_errors + h->cobs_errors > 0);
    assert_true(f->duplicates > 0 && h->duplicates > 0);
    assert_true(f->out_of_order > 0 && h->out_of_order > 0);
    assert_true(h->retransmits > 0 && f->retransmits > 0);
    /* ...and every message was delivered once, in order (checked in the
     * callbacks), with the sequence numbers wrapping several times. */
    assert_int_equal(f->delivered, 1000 + 1); /* + the HELLO */
    assert_int_equal(h->delivered, 1000 + 1);
    assert_true(s.fw.seq_wraps >= 3);
    assert_true(s.host.seq_wraps >= 3);
    /* Without giving up or losing the session. */
    assert_int_equal(count_ev(&s.host, FWP_EV_RETRY_LIMIT), 0);
    assert_int_equal(count_ev(&s.fw, FWP_EV_RETRY_LIMIT), 0);
    assert_int_equal(count_ev(&s.host, FWP_EV_PEER_RESET), 0);
    assert_int_equal(count_ev(&s.fw, FWP_EV_PEER_RESET), 0);
    assert_int_equal(count_ev(&s.fw, FWP_EV_LINK_LOST), 0);
    assert_true(ms < 600000);
}

static void test_sequence_wrap(void **state)
{
    (void)state;
    static sim s;
    sim_init(&s, 5);
    sim_start(&s);
    sim_connect(&s);
    stream_batches(&s, 700, 100000);
    const fwp_stats *h = fwp_get_stats(&s.host.ep),
                    *f = fwp_get_stats(&s.fw.ep);
    /* A clean link: any trouble at the wrap would show as a timeout. */
    assert_int_equal(h->retransmits, 0);
    assert_int_equal(f->retransmits, 0);
    assert_int_equal(h->duplicates + h->out_of_order, 0);
    assert_int_equal(f->duplicates + f->out_of_order, 0);
    assert_true(s.fw.seq_wraps >= 2);
    assert_true(s.host.seq_wraps >= 2);
    assert_int_equal(fwp_unacked(&s.host.ep), 0);
    /* And stale acks from before the wrap change nothing. */
    uint8_t w[FWP_MAX_WIRE];
    fwp_message ack;
    memset(&ack, 0, sizeof ack);
    fwp_message m;
    fill_steps(&m, 1, 1);
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_OK);
    ack.type = FWP_MSG_ACK;
    for (int back = 1; back < 128; back++) {
        ack.ack = (uint8_t)(s.host.ep.tx_base - back);
        size_t n = test_fwp_wire(&ack, w);
        fwp_feed(&s.host.ep, w, n);
        assert_int_equal(fwp_unacked(&s.host.ep), 1);
    }
    ack.ack = (uint8_t)(s.host.ep.tx_base + 2); /* beyond what was sent */
    fwp_feed(&s.host.ep, w, test_fwp_wire(&ack, w));
    assert_int_equal(fwp_unacked(&s.host.ep), 1);
    sim_run(&s, 10);
    assert_int_equal(fwp_unacked(&s.host.ep), 0);
}

static void test_heartbeat_watchdog(void **state)
{
    (void)state;
    static sim s;
    sim_init(&s, 7);
    s.host.cfg.heartbeat_ms = 100;
    s.fw.cfg.heartbeat_ms = 100;
    s.fw.cfg.link_timeout_ms = 500;
    sim_start(&s);
    sim_connect(&s);
    /* Idle for 10 s: heartbeats alone keep the link up. */
    uint32_t hb0 = fwp_get_stats(&s.host.ep)->frames_out;
    sim_run(&s, 10000);
    assert_int_equal(count_ev(&s.fw, FWP_EV_LINK_LOST), 0);
    uint32_t beats = fwp_get_stats(&s.host.ep)->frames_out - hb0;
    assert_in_range(beats, 95, 101);

    /* Cut host -> firmware; note when the firmware last heard anything. */
    s.pipe[0].cut = 1;
    uint32_t heard = 0, frames = fwp_get_stats(&s.fw.ep)->frames_in;
    for (int i = 0; i < 2000 && !count_ev(&s.fw, FWP_EV_LINK_LOST); i++) {
        uint32_t t = s.now;
        sim_step(&s);
        if (fwp_get_stats(&s.fw.ep)->frames_in != frames) {
            frames = fwp_get_stats(&s.fw.ep)->frames_in;
            heard = t;
        }
    }
    const ev_rec *lost = find_ev(&s.fw, FWP_EV_LINK_LOST);
    assert_non_null(lost);
    assert_true(heard > 0);
    /* Exactly at the timeout: not a millisecond early or late. */
    assert_int_equal(lost->at, heard + 500);
    assert_int_equal(lost->detail, 500);
    /* Once, however long the silence. */
    sim_run(&s, 3000);
    assert_int_equal(count_ev(&s.fw, FWP_EV_LINK_LOST), 1);
    assert_int_equal(count_ev(&s.fw, FWP_EV_LINK_RESTORED), 0);
    assert_int_equal(count_ev(&s.host, FWP_EV_LINK_LOST), 0); /* no dog */
    /* Back: restored on the first frame. */
    s.pipe[0].cut = 0;
    sim_run(&s, 300);
    assert_int_equal(count_ev(&s.fw, FWP_EV_LINK_RESTORED), 1);
    assert_int_equal(count_ev(&s.fw, FWP_EV_LINK_LOST), 1);

    /* A host heartbeat slower than the firmware's timeout is sped up to
     * three per timeout, so an idle link stays up. */
    static sim t;
    sim_init(&t, 8);
    t.host.cfg.heartbeat_ms = 5000;
    t.fw.cfg.link_timeout_ms = 300;
    sim_start(&t);
    sim_connect(&t);
    hb0 = fwp_get_stats(&t.host.ep)->frames_out;
    sim_run(&t, 10000);
    assert_int_equal(count_ev(&t.fw, FWP_EV_LINK_LOST), 0);
    assert_in_range(fwp_get_stats(&t.host.ep)->frames_out - hb0, 95, 101);
}

static void test_retry_limit(void **state)
{
    (void)state;
    static sim s;
    sim_init(&s, 9);
    s.host.cfg.retransmit_ms = 50;
    s.host.cfg.max_retries = 3;
    sim_start(&s);
    sim_connect(&s);
    /* Acks never come back. */
    s.pipe[1].cut = 1;
    fwp_message m;
    fill_steps(&m, 2, 0);
    uint32_t t0 = s.now;
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_OK);
    fill_steps(&m, 2, 2);
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_OK);
    while (s.now < t0 + 199) {
        sim_step(&s);
        assert_int_equal(count_ev(&s.host, FWP_EV_RETRY_LIMIT), 0);
    }
    sim_step(&s); /* t0 + 199 */
    assert_int_equal(count_ev(&s.host, FWP_EV_RETRY_LIMIT), 0);
    /* 3 retries of both frames at +50, +100, +150... */
    assert_int_equal(fwp_get_stats(&s.host.ep)->retransmits, 3 * 2);
    sim_step(&s); /* t0 + 200: the 4th timeout gives up */
    const ev_rec *gave = find_ev(&s.host, FWP_EV_RETRY_LIMIT);
    assert_non_null(gave);
    assert_int_equal(gave->at, t0 + 200);
    assert_int_equal(gave->detail, 2);
    assert_int_equal(fwp_get_stats(&s.host.ep)->retransmits, 3 * 2);
    assert_int_equal(fwp_unacked(&s.host.ep), 0);
    assert_int_equal(fwp_link(&s.host.ep), FWP_LINK_CONNECTING);
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_ERR_NOT_CONNECTED);
    /* The firmware got each batch once and dropped the copies. */
    assert_int_equal(s.fw.steps_got, 2);
    assert_int_equal(fwp_get_stats(&s.fw.ep)->duplicates, 3 * 2);

    /* The host's new session resets the firmware's view; when the link
     * returns both reconnect and the stream resumes from batch 2. */
    sim_run(&s, 100);
    assert_int_equal(count_ev(&s.fw, FWP_EV_PEER_RESET), 1);
    s.pipe[1].cut = 0;
    sim_run(&s, 300);
    assert_int_equal(fwp_link(&s.host.ep), FWP_LINK_CONNECTED);
    assert_int_equal(fwp_link(&s.fw.ep), FWP_LINK_CONNECTED);
    assert_int_equal(count_ev(&s.host, FWP_EV_CONNECTED), 2);
    assert_int_equal(count_ev(&s.host, FWP_EV_PEER_RESET), 0);
    assert_int_equal(count_ev(&s.fw, FWP_EV_RETRY_LIMIT), 0);
    s.fw.seq_seen = 0; /* a new pairing numbers afresh */
    s.host.seq_seen = 0;
    fill_steps(&m, batch_size(2), batch_first_id(2));
    assert_int_equal(fwp_send(&s.host.ep, &m), FWP_OK);
    sim_run(&s, 20);
    assert_int_equal(s.fw.steps_got, 3);
}

static void test_peer_reset(void **state)
{
    (void)state;
    static sim s;
    sim_init(&s, 11);
    sim_start(&s);
    sim_connect(&s);
    int next = 0;
    apps_send(&s, 3, &next);
    assert_int_equal(fwp_unacked(&s.host.ep), 3);
    /* The firmware restarts before the batches arrive: they reach an
     * endpoint without a session and are dropped, not delivered. */
    s.fw.cfg.session = 0x2222;
    s.fw.steps_got = 0;
    s.fw.hellos = 0;
    s.fw.seq_seen = 0;
    s.fw.n_ev = 0;
    assert_int_equal(fwp_init(&s.fw.ep, &s.fw.cfg), FWP_OK);
    sim_run(&s, 50);
    assert_int_equal(s.fw.steps_got, 0);
    assert_true(fwp_get_stats(&s.fw.ep)->unpaired >= 3);
    const ev_rec *r = find_ev(&s.host, FWP_EV_PEER_RESET);
    assert_non_null(r);
    assert_int_equal(r->detail, 3);
    assert_int_equal(fwp_unacked(&s.host.ep), 0);
    /* The new HELLO was delivered, and the link came back by itself. */
    assert_int_equal(s.host.hellos, 2);
    assert_int_equal(fwp_peer(&s.host.ep)->session, 0x2222);
    assert_int_equal(count_ev(&s.host, FWP_EV_CONNECTED), 2);
    assert_int_equal(fwp_link(&s.fw.ep), FWP_LINK_CONNECTED);
    assert_int_equal(count_ev(&s.fw, FWP_EV_PEER_RESET), 0);
    /* The application starts over; everything flows again. */
    s.host.seq_seen = 0;
    stream_batches(&s, 50, 10000);
}

/* ------------------------------------------------------- config, errors */

static int null_write(void *ctx, const uint8_t *b, size_t n)
{
    (void)ctx;
    (void)b;
    (void)n;
    return -1;
}

static uint32_t zero_clock(void *ctx)
{
    (void)ctx;
    return 0;
}

static void test_init_arguments(void **state)
{
    (void)state;
    static fwp_endpoint ep;
    fwp_config c, good;
    fwp_config_default(&good, FWP_ROLE_FIRMWARE);
    assert_int_equal(good.link_timeout_ms, 1000);
    assert_int_equal(good.window, FWP_WINDOW);
    good.session = 1;
    good.write = null_write;
    good.now_ms = zero_clock;
    assert_int_equal(fwp_init(&ep, &good), FWP_OK);
    assert_int_equal(fwp_link(&ep), FWP_LINK_CONNECTING);
    assert_int_equal(fwp_get_stats(&ep)->frames_out, 0); /* no I/O */
    /* The first poll sends HELLO; a failing write is counted. */
    fwp_poll(&ep);
    assert_int_equal(fwp_get_stats(&ep)->frames_out, 1);
    assert_int_equal(fwp_get_stats(&ep)->write_errors, 1);
    fwp_config_default(&c, FWP_ROLE_HOST);
    assert_int_equal(c.link_timeout_ms, 0);

    assert_int_equal(fwp_init(NULL, &good), FWP_ERR_ARGUMENT);
    assert_int_equal(fwp_init(&ep, NULL), FWP_ERR_ARGUMENT);
#define BAD(field, value)                                                  \
    do {                                                                   \
        c = good;                                                          \
        c.field = value;                                                   \
        assert_int_equal(fwp_init(&ep, &c), FWP_ERR_ARGUMENT);             \
    } while (0)
    BAD(session, 0);
    BAD(write, NULL);
    BAD(now_ms, NULL);
    BAD(role, (fwp_role)3);
    BAD(window, 0);
    BAD(window, FWP_WINDOW + 1);
    BAD(retransmit_ms, 0);
    BAD(heartbeat_ms, 0);
    BAD(gripper_mask, 0);
    BAD(gripper_mask, 0x10);
    BAD(max_steps, 0);
    BAD(max_steps, FWP_MAX_STEPS_PER_BATCH + 1);
    BAD(features, 0x80);
#undef BAD
}

static void test_error_names(void **state)
{
    (void)state;
    static const char *ids[] = {
        "OK",      "CRC",    "COBS",     "TOO_LONG", "SHORT",
        "VERSION", "TYPE",   "LENGTH",   "PAYLOAD",  "BUFFER",
        "ARGUMENT", "BUSY",  "NOT_CONNECTED", "ROLE", "LIMIT",
    };
    for (int i = 0; i < (int)(sizeof ids / sizeof ids[0]); i++) {
        assert_string_equal(fwp_errcode(-i), ids[i]);
        const char *msg = fwp_strerror(-i);
        assert_non_null(msg);
        assert_true(strlen(msg) > 0);
        for (int j = 0; j < i; j++)
            assert_string_not_equal(msg, fwp_strerror(-j));
    }
    assert_string_equal(fwp_errcode(-15), "UNKNOWN");
    assert_string_equal(fwp_errcode(1), "UNKNOWN");
    assert_non_null(fwp_strerror(-999));
    assert_true(fwp_type_is_sequenced(FWP_MSG_STEPS));
    assert_true(fwp_type_is_sequenced(FWP_MSG_ESTOP));
    assert_false(fwp_type_is_sequenced(FWP_MSG_ACK));
    assert_false(fwp_type_is_sequenced(FWP_MSG_HELLO));
    assert_false(fwp_type_is_sequenced(FWP_MSG_HEARTBEAT));
    assert_false(fwp_type_is_sequenced(0));
    assert_false(fwp_type_is_sequenced(11));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_crc),
        cmocka_unit_test(test_cobs_vectors),
        cmocka_unit_test(test_cobs_round_trips),
        cmocka_unit_test(test_cobs_decode_errors),
        cmocka_unit_test(test_frame_round_trip),
        cmocka_unit_test(test_frame_layout),
        cmocka_unit_test(test_version_negotiation),
        cmocka_unit_test(test_decode_errors),
        cmocka_unit_test(test_payload_errors),
        cmocka_unit_test(test_stream_resync),
        cmocka_unit_test(test_handshake),
        cmocka_unit_test(test_send_rules),
        cmocka_unit_test(test_lossy_link),
        cmocka_unit_test(test_sequence_wrap),
        cmocka_unit_test(test_heartbeat_watchdog),
        cmocka_unit_test(test_retry_limit),
        cmocka_unit_test(test_peer_reset),
        cmocka_unit_test(test_init_arguments),
        cmocka_unit_test(test_error_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
