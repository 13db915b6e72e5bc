/*
 * calibration.c - a robot profile from measured step durations, so the
 * solver's cost model (robot_step_us) predicts what the real robot, driven
 * by this controller, does.
 *
 * Each primitive's duration comes from the firmware's EVENT DONE. They are
 * sorted by what the primitive is: an opening, a closing, a turn of one
 * of the four turn classes, the motion of a tilt, a full regrip (its
 * three primitives together), and a turn with parallel regrips (its
 * three together). A settle time cannot be told apart from the motion it
 * follows, so the base profile's settle_ms is kept and subtracted. The
 * profile's parallel-regrip surcharge is then what such a step costs
 * beyond its turn: with the expansion of robot_expand that is the opening
 * and the closing, which the base profile assumes hidden.
 */
#include "ctl.h"

#include <string.h>

static void add(ctl_sample *s, double v)
{
    if (v < 0)
        v = 0;
    s->sum += v;
    s->n++;
}

static double mean(const ctl_sample *s, double fallback)
{
    return s->n ? s->sum / s->n : fallback;
}

static int turn_class(int m)
{
    if (m < 18)
        return m % 3 == 1 ? 1 : 0;
    int q0 = (m - 18) / 3 % 3, q1 = (m - 18) % 3;
    return q0 == 1 || q1 == 1 ? 3 : 2;
}

void ctl_calibration_add(ctl_calibration *c, const robot_step *plan,
                         const robot_prim *prims, int n_prims, int done,
                         const uint16_t *ms, double settle_ms)
{
    int i = 0;
    if (done > n_prims)
        done = n_prims;
    while (i < done) {
        int k = prims[i].step, j = i;
        double total = 0;
        while (j < done && prims[j].step == k)
            total += ms[j++];
        /* Only whole robot steps: a cut-off one says nothing of its kind. */
        if (j == done && j < n_prims && prims[j].step == k)
            break;
        const robot_step *s = &plan[k];
        for (int t = i; t < j; t++) {
            if (prims[t].role == ROBOT_PRIM_OPEN)
                add(&c->open, ms[t]);
            else if (prims[t].role == ROBOT_PRIM_CLOSE)
                add(&c->close, ms[t]);
            else if (s->kind == ROBOT_STEP_TURN && !s->regrips)
                add(&c->turn[turn_class(s->arg)], ms[t] - settle_ms);
            else if (s->kind == ROBOT_STEP_TILT && !s->regrips)
                add(&c->tilt, ms[t] - settle_ms);
        }
        if (s->kind == ROBOT_STEP_REGRIP)
            add(&c->regrip, total - settle_ms);
        else if (s->kind == ROBOT_STEP_TURN && s->regrips)
            add(&c->parallel[turn_class(s->arg)], total - settle_ms);
        i = j;
    }
}

int ctl_calibration_profile(const ctl_calibration *c,
                            const robot_profile *base, robot_profile *out)
{
    *out = *base;
    double *turn[CTL_TURN_CLASSES] = {&out->quarter_ms, &out->half_ms,
                                      &out->pair_quarter_ms,
                                      &out->pair_half_ms};
    int changed = 0;
    for (int t = 0; t < CTL_TURN_CLASSES; t++)
        if (c->turn[t].n) {
            *turn[t] = mean(&c->turn[t], *turn[t]);
            changed++;
        }
    if (c->open.n) {
        out->open_ms = mean(&c->open, 0);
        changed++;
    }
    if (c->close.n) {
        out->close_ms = mean(&c->close, 0);
        changed++;
    }
    if (c->tilt.n) {
        out->tilt_ms = mean(&c->tilt, 0);
        changed++;
    }
    if (c->regrip.n) {
        out->regrip_ms = mean(&c->regrip, 0);
        changed++;
    }
    /* The surcharge: each parallel step's total beyond its turn. */
    double extra = 0;
    int n = 0;
    for (int t = 0; t < CTL_TURN_CLASSES; t++) {
        extra += c->parallel[t].sum - c->parallel[t].n * *turn[t];
        n += c->parallel[t].n;
    }
    if (n) {
        out->regrip_parallel_ms = extra / n < 0 ? 0 : extra / n;
        changed++;
    }
    /* Keep what robot_profile_parse accepts. */
    double *all[] = {&out->quarter_ms, &out->half_ms, &out->pair_quarter_ms,
                     &out->pair_half_ms, &out->tilt_ms,
                     &out->regrip_parallel_ms, &out->regrip_ms,
                     &out->open_ms, &out->close_ms, &out->settle_ms};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        /* Whole microseconds: the JSON stays short and exact. */
        *all[i] = (double)(int64_t)(*all[i] * 1000.0 + 0.5) / 1000.0;
        if (*all[i] > ROBOT_PROFILE_MAX_MS)
            *all[i] = ROBOT_PROFILE_MAX_MS;
    }
    char name[sizeof out->name];
    snprintf(name, sizeof name, "%.40s-calibrated", base->name);
    memcpy(out->name, name, sizeof name);
    return changed;
}
