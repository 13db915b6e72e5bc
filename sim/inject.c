/*
 * inject.c - quadsim's link fault injection: frames dropped, duplicated,
 * damaged or held back, at given rates, from a seeded PRNG.
 *
 * It works on whole frames, as a noisy serial line or a flaky USB adapter
 * damages them: what goes out comes from the endpoint one frame per write;
 * what comes in is cut into frames at the 0x00 delimiters first. Every
 * frame draws the same number of random values whatever the rates, so a
 * given seed makes the same decisions for the same sequence of frames (the
 * sequence itself still depends on timing: heartbeats and retransmissions
 * go out when the clock says so).
 */
#include "sim.h"

#include <string.h>

/* splitmix64: spreads any seed, 0 included, over the xorshift state. */
uint64_t sim_rand_seed(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    x ^= x >> 31;
    return x ? x : 1;
}

/* xorshift64*: fast, and plenty for picking which frames to spoil. */
uint64_t sim_rand_next(uint64_t *s)
{
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545F4914F6CDD1Dull;
}

/* Uniform in [0, 1). */
double sim_rand_uniform(uint64_t *s)
{
    return (double)(sim_rand_next(s) >> 11) * (1.0 / 9007199254740992.0);
}

void sim_inject_init(sim_inject *in, double drop, double dup, double corrupt,
                     double delay, uint32_t delay_ms, uint64_t seed)
{
    memset(in, 0, sizeof *in);
    in->drop = drop;
    in->dup = dup;
    in->corrupt = corrupt;
    in->delay = delay;
    in->delay_ms = delay_ms;
    in->rng = sim_rand_seed(seed);
}

bool sim_inject_active(const sim_inject *in)
{
    return in->drop > 0 || in->dup > 0 || in->corrupt > 0 ||
           (in->delay > 0 && in->delay_ms > 0);
}

static void hold(sim_inject *in, const uint8_t *b, size_t n, int64_t due,
                 sim_deliver_fn deliver, void *ctx)
{
    if (in->n_held == SIM_DELAY_SLOTS || n > sizeof in->held[0].bytes) {
        /* No room to hold it back: it goes now, still in one piece. */
        in->overflow++;
        deliver(ctx, b, n);
        return;
    }
    in->held[in->n_held].due_us = due;
    in->held[in->n_held].len = (uint16_t)n;
    memcpy(in->held[in->n_held].bytes, b, n);
    in->n_held++;
    in->delayed++;
}

void sim_inject_frame(sim_inject *in, const uint8_t *bytes, size_t n,
                      int64_t now_us, sim_deliver_fn deliver, void *ctx)
{
    if (!sim_inject_active(in)) {
        deliver(ctx, bytes, n);
        return;
    }
    in->frames++;
    double u_drop = sim_rand_uniform(&in->rng);
    double u_dup = sim_rand_uniform(&in->rng);
    double u_corrupt = sim_rand_uniform(&in->rng);
    double u_delay = sim_rand_uniform(&in->rng);
    uint64_t r_pos = sim_rand_next(&in->rng);
    uint64_t r_val = sim_rand_next(&in->rng);
    uint64_t r_wait = sim_rand_next(&in->rng);
    if (u_drop < in->drop) {
        in->dropped++;
        return;
    }
    uint8_t buf[SIM_UNIT_MAX + 1];
    if (n > sizeof buf) {
        deliver(ctx, bytes, n);
        return;
    }
    memcpy(buf, bytes, n);
    if (u_corrupt < in->corrupt) {
        /* Damage one byte other than a delimiter: the frame's bytes are
         * what a noisy line changes; a hit delimiter would only cut it. */
        size_t k = 0;
        for (size_t i = 0; i < n; i++)
            k += buf[i] != 0;
        if (k) {
            size_t want = (size_t)(r_pos % k);
            for (size_t i = 0; i < n; i++)
                if (buf[i] != 0 && want-- == 0) {
                    buf[i] ^= (uint8_t)(r_val % 255 + 1);
                    break;
                }
            in->corrupted++;
        }
    }
    int copies = u_dup < in->dup ? 2 : 1;
    in->duplicated += (uint32_t)(copies - 1);
    for (int c = 0; c < copies; c++) {
        if (u_delay < in->delay && in->delay_ms > 0) {
            /* The copy waits a little longer than the original, so a
             * delayed duplicate does not overtake it. */
            int64_t wait = (int64_t)(r_wait % (in->delay_ms + 1u)) * 1000 + c;
            hold(in, buf, n, now_us + wait, deliver, ctx);
        } else {
            deliver(ctx, buf, n);
        }
    }
}

void sim_inject_stream(sim_inject *in, const uint8_t *bytes, size_t n,
                       int64_t now_us, sim_deliver_fn deliver, void *ctx)
{
    if (!sim_inject_active(in)) {
        deliver(ctx, bytes, n);
        return;
    }
    for (size_t i = 0; i < n; i++) {
        in->unit[in->unit_len++] = bytes[i];
        if (bytes[i] == 0) {
            if (in->unit_len == 1) /* an empty frame: nothing to spoil */
                deliver(ctx, in->unit, 1);
            else
                sim_inject_frame(in, in->unit, in->unit_len, now_us, deliver,
                                 ctx);
            in->unit_len = 0;
        } else if (in->unit_len > SIM_UNIT_MAX) {
            /* Too long to be a frame: garbage, handed on as it is. */
            in->overflow++;
            deliver(ctx, in->unit, in->unit_len);
            in->unit_len = 0;
        }
    }
}

void sim_inject_due(sim_inject *in, int64_t now_us, sim_deliver_fn deliver,
                    void *ctx)
{
    for (;;) {
        int best = -1;
        for (int i = 0; i < in->n_held; i++)
            if (in->held[i].due_us <= now_us &&
                (best < 0 || in->held[i].due_us < in->held[best].due_us))
                best = i;
        if (best < 0)
            return;
        uint8_t buf[SIM_UNIT_MAX + 1];
        size_t n = in->held[best].len;
        memcpy(buf, in->held[best].bytes, n);
        /* Remove before delivering: delivery may hold new frames. */
        in->held[best] = in->held[--in->n_held];
        deliver(ctx, buf, n);
    }
}

int64_t sim_inject_next_us(const sim_inject *in)
{
    int64_t t = INT64_MAX;
    for (int i = 0; i < in->n_held; i++)
        if (in->held[i].due_us < t)
            t = in->held[i].due_us;
    return t;
}

void sim_inject_reset(sim_inject *in)
{
    in->n_held = 0;
    in->unit_len = 0;
}
