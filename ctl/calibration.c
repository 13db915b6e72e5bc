/*
 * calibration.c - a robot profile of physical durations from measured
 * steps, so the solver's cost model (robot_step_us) and the robot agree.
 *
 * Each protocol step's duration comes from the firmware's EVENT DONE.
 * With protocol version 2 every robot step is one protocol step, timed as
 * the longest of its grippers' actions (docs/robot-model.md, "Timing"), so
 * each kind of step measures one physical duration or a known sum: a lone
 * turn its turn class plus the settle, a full regrip the regrip, a tilt
 * open + tilt + settle + close. The opening, closing and regrip are
 * measured by probe steps of their own (one gripper opens, closes,
 * regrips ahead and back), and the tilt is what a tilt takes beyond its
 * opening and closing. A settle time cannot be told apart
 * from the motion it follows, so the base profile's settle_ms is kept and
 * subtracted. Turns with parallel regrips measure max(turn, regrip), which
 * fits nothing new; they are counted for the table only.
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

int ctl_calibration_probes(robot_prim *out, int cap)
{
    /* Each gripper opens and closes again while the other three hold,
     * then regrips a quarter ahead and back: the robot ends as it began,
     * and plans rarely need a full regrip to measure. */
    static const uint8_t acts[4] = {ROBOT_ACT_OPEN, ROBOT_ACT_CLOSE,
                                    ROBOT_ACT_REGRIP_CW, ROBOT_ACT_REGRIP_CCW};
    static const uint8_t roles[4] = {ROBOT_PRIM_OPEN, ROBOT_PRIM_CLOSE,
                                     ROBOT_PRIM_MOTION, ROBOT_PRIM_MOTION};
    int n = 0;
    for (int g = 0; g < ROBOT_GRIPPERS && n + 4 <= cap; g++)
        for (int k = 0; k < 4; k++) {
            memset(&out[n], 0, sizeof out[n]);
            out[n].step = CTL_PROBE_STEP;
            out[n].role = roles[k];
            out[n].action[g] = acts[k];
            n++;
        }
    return n;
}

void ctl_calibration_add(ctl_calibration *c, const robot_step *plan,
                         const robot_prim *prims, int n_prims, int done,
                         const uint16_t *ms, double settle_ms)
{
    if (done > n_prims)
        done = n_prims;
    for (int t = 0; t < done; t++) {
        if (prims[t].step == CTL_PROBE_STEP) {
            int r = prims[t].role;
            add(r == ROBOT_PRIM_OPEN    ? &c->open
                : r == ROBOT_PRIM_CLOSE ? &c->close
                                        : &c->regrip,
                ms[t]);
            continue;
        }
        const robot_step *s = &plan[prims[t].step];
        if (s->kind == ROBOT_STEP_TURN && !s->regrips)
            add(&c->turn[turn_class(s->arg)], ms[t] - settle_ms);
        else if (s->kind == ROBOT_STEP_TURN)
            add(&c->parallel[turn_class(s->arg)], ms[t]);
        else if (s->kind == ROBOT_STEP_TILT && !s->regrips)
            add(&c->tilt, ms[t] - settle_ms); /* open + tilt + close */
        else if (s->kind == ROBOT_STEP_REGRIP)
            add(&c->regrip, ms[t]);
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
        double t = mean(&c->tilt, 0) - out->open_ms - out->close_ms;
        out->tilt_ms = t > 0 ? t : 0;
        changed++;
    }
    if (c->regrip.n) {
        out->regrip_ms = mean(&c->regrip, 0);
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
    robot_profile_derive(out);
    char name[sizeof out->name];
    snprintf(name, sizeof name, "%.40s-calibrated", base->name);
    memcpy(out->name, name, sizeof name);
    return changed;
}
