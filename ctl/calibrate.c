/*
 * calibrate.c - `quadctl calibrate`: executes moves that exercise every
 * kind of robot step on the robot, several rounds, and turns the measured
 * durations into a calibrated robot profile (calibration.c), written as
 * the JSON that --profile and the solver read.
 */
#include "ctl.h"

#include <stdlib.h>
#include <string.h>

/* Cube-frame moves that exercise every kind of robot step (quarter and
 * half turns, both kinds of pairs, tilts about both axes, a full regrip
 * and parallel regrips); followed by their inverse they leave the cube
 * as it was. */
static const char calibration_moves[] =
    "R2 F2 U R2 (F B') L (R2 L') D' F2 B (U D2) R' (R L) F' B2 R (F2 B2) D";

int ctl_calibrate(const ctl_options *o, const robot_profile *base,
                  const qs_move *moves, int n_moves, int rounds,
                  const char *out_path, FILE *log, char *err, size_t err_len)
{
    qs_move seq[QS_MAX_MOVES];
    int n = 0;
    if (moves && n_moves > 0) {
        memcpy(seq, moves, sizeof(qs_move) * (size_t)n_moves);
        n = n_moves;
    } else {
        int k = qs_moves_parse(calibration_moves, seq, QS_MAX_MOVES / 2, NULL,
                               0);
        qs_moves_invert(seq, k, seq + k);
        n = 2 * k;
    }
    robot_model *m = malloc(sizeof *m);
    ctl_attempt *a = calloc(1, sizeof *a);
    ctl_session *s = calloc(1, sizeof *s);
    ctl_calibration *c = calloc(1, sizeof *c);
    int rc = CTL_OK;
    if (!m || !a || !s || !c) {
        snprintf(err, err_len, "out of memory");
        rc = CTL_ERR_NOMEM;
        goto out;
    }
    robot_model_init(m);
    if (robot_plan(m, base, ROBOT_OBJ_MOVES, seq, n, &a->plan) != ROBOT_OK) {
        snprintf(err, err_len, "the calibration moves cannot be planned");
        rc = CTL_ERR_PLAN;
        goto out;
    }
    char detail[200];
    /* Probes first (each gripper opens and closes), then the plan. */
    int probes = ctl_calibration_probes(a->prims, ROBOT_MAX_PRIMS);
    int k = robot_expand(a->plan.steps, a->plan.n, a->prims + probes,
                         ROBOT_MAX_PRIMS - probes, detail, sizeof detail);
    if (k < 0) {
        snprintf(err, err_len, "%s", detail);
        rc = CTL_ERR_PLAN;
        goto out;
    }
    a->n_prims = probes + k;
    rc = ctl_session_open(s, o, err, err_len);
    if (rc != CTL_OK)
        goto out;
    for (int r = 0; r < rounds && rc == CTL_OK; r++) {
        rc = ctl_session_home(s, err, err_len);
        if (rc != CTL_OK)
            break;
        for (int i = 0; i < a->n_prims; i++) {
            memset(&a->steps[i], 0, sizeof a->steps[i]);
            memcpy(a->steps[i].action, a->prims[i].action, FWP_GRIPPERS);
        }
        memset(&a->x, 0, sizeof a->x);
        a->x.n = a->n_prims;
        a->x.ms = a->ms;
        a->x.done_us = a->done_us;
        rc = ctl_session_execute(s, a->steps, &a->x);
        /* What ran before a failure still measured something. */
        ctl_calibration_add(c, a->plan.steps, a->prims, a->n_prims,
                            a->x.confirmed - a->x.by_status, a->ms,
                            base->settle_ms);
        if (rc != CTL_OK)
            snprintf(err, err_len, "round %d: %s", r + 1, a->x.message);
    }
    ctl_session_close(s);
    if (rc != CTL_OK)
        goto out;
    robot_profile cal;
    ctl_calibration_profile(c, base, &cal);
    if (log) {
        const struct {
            const char *key;
            double from, to;
            int n;
        } rows[] = {
            {"quarter_ms", base->quarter_ms, cal.quarter_ms, c->turn[0].n},
            {"half_ms", base->half_ms, cal.half_ms, c->turn[1].n},
            {"pair_quarter_ms", base->pair_quarter_ms, cal.pair_quarter_ms,
             c->turn[2].n},
            {"pair_half_ms", base->pair_half_ms, cal.pair_half_ms,
             c->turn[3].n},
            {"tilt_ms", base->tilt_ms, cal.tilt_ms, c->tilt.n},
            {"regrip_parallel_ms", base->regrip_parallel_ms,
             cal.regrip_parallel_ms, 0},
            {"regrip_ms", base->regrip_ms, cal.regrip_ms, c->regrip.n},
            {"open_ms", base->open_ms, cal.open_ms, c->open.n},
            {"close_ms", base->close_ms, cal.close_ms, c->close.n},
            {"settle_ms", base->settle_ms, cal.settle_ms, 0},
        };
        fprintf(log, "%-20s %10s %12s %8s\n", "key", base->name, "calibrated",
                "samples");
        for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
            fprintf(log, "%-20s %10.1f %12.1f %8d%s\n", rows[i].key,
                    rows[i].from, rows[i].to, rows[i].n,
                    i == 5 ? " (derived)" : rows[i].n ? "" : " (kept)");
    }
    char json[2048];
    if (robot_profile_to_json(&cal, json, sizeof json) < 0) {
        snprintf(err, err_len, "the profile cannot be written as JSON");
        rc = CTL_ERR_NOMEM;
        goto out;
    }
    FILE *f = out_path ? fopen(out_path, "w") : stdout;
    if (!f) {
        snprintf(err, err_len, "cannot write %s", out_path);
        rc = CTL_ERR_IO;
        goto out;
    }
    fprintf(f, "%s\n", json);
    if (out_path)
        fclose(f);
    else
        fflush(f);
out:
    free(m);
    free(a);
    free(s);
    free(c);
    return rc;
}
