/*
 * firmware.c - quadsim's firmware application: what a quad-arm robot's
 * microcontroller does with the messages the protocol delivers.
 *
 * It keeps the robot state of STATUS (UNHOMED, HOMING, IDLE, RUNNING,
 * FAULT, STOPPED) as docs/firmware-protocol.md draws it, a queue of steps,
 * the step in motion and its timing from the robot profile, and an outbox
 * of reports (EVENT, STATUS, FAULT, NAK) that waits for room in the
 * protocol's send window, so no report is lost when the host is slow to
 * acknowledge. A step starts only when the outbox has room for its
 * reports: a host that stops reading stops the robot, as a real
 * firmware's bounded buffers would.
 *
 * Every batch is checked step by step against the robot as it will be
 * after the queued steps; a physically impossible step refuses the batch
 * whole (NAK BAD_STEP) and faults the robot, since the host's later
 * batches were planned on the assumption that it would run. A stopped or
 * interrupted step is not applied: the cube in STATUS is always the cube
 * of the steps reported done.
 */
#include "sim.h"

#include <stdio.h>
#include <string.h>

/* Outbox slots a step needs before it starts: its two EVENTs, and room
 * for a STATUS and a FAULT if things go wrong. */
#define STEP_ROOM 8

static const char *const state_names[] = {"UNHOMED", "HOMING", "IDLE",
                                          "RUNNING", "FAULT",  "STOPPED"};

static const char *state_name(int s)
{
    return s >= 0 && s <= FWP_ROBOT_STOPPED ? state_names[s] : "?";
}

static uint16_t next_id(uint16_t id)
{
    /* Step ids run 0..0xFFFE; 0xFFFF means "no step". */
    return (uint16_t)(id >= 0xFFFEu ? 0 : id + 1);
}

void sim_fw_init(sim_fw *fw, const sim_fw_config *cfg, const qlog *log,
                 const qs_cube *cube)
{
    memset(fw, 0, sizeof *fw);
    fw->cfg = *cfg;
    if (fw->cfg.queue < 1 || fw->cfg.queue > SIM_QUEUE_MAX)
        fw->cfg.queue = SIM_QUEUE_MAX;
    fw->log = log;
    sim_robot_init(&fw->robot, cube);
    fw->planned = fw->robot;
    fw->state = FWP_ROBOT_UNHOMED;
    fw->last_step = FWP_NO_STEP;
    fw->rng = sim_rand_seed(cfg->seed ^ 0x51u);
}

/* ------------------------------------------------------------------ reports */

static void post(sim_fw *fw, const fwp_message *m)
{
    if (fw->ob_count == SIM_OUTBOX) {
        qlog_write(fw->log, QLOG_ERROR, "outbox full: %s report dropped",
                   fwp_type_name(m->type));
        return;
    }
    fw->outbox[(fw->ob_head + fw->ob_count) % SIM_OUTBOX] = *m;
    fw->ob_count++;
}

static void post_status(sim_fw *fw)
{
    fwp_message m;
    memset(&m, 0, sizeof m);
    m.type = FWP_MSG_STATUS;
    fwp_status *s = &m.u.status;
    s->state = fw->state;
    s->has_cube = true;
    s->last_step = fw->last_step;
    s->fault = fw->fault;
    /* Steps not done yet, the one in motion included. */
    s->queued = (uint16_t)(fw->q_count + fw->moving);
    /* The grippers as the last step done left them; before homing a
     * firmware cannot know them. The orientation is tracked from
     * power-up (the home orientation) and homing does not change it. */
    bool homed = fw->state != FWP_ROBOT_UNHOMED &&
                 fw->state != FWP_ROBOT_HOMING;
    for (int g = 0; g < FWP_GRIPPERS; g++)
        s->grip[g] = homed ? (uint8_t)((fw->robot.quarters[g] & 3) |
                                       ((fw->robot.closed >> g & 1)
                                            ? FWP_GRIP_CLOSED
                                            : 0))
                           : FWP_GRIP_UNKNOWN;
    s->up = (uint8_t)sim_robot_face_at(&fw->robot, 0);
    s->front = (uint8_t)sim_robot_face_at(&fw->robot, 2);
    char facelets[55];
    qs_cube_to_facelets(&fw->robot.cube, facelets);
    memcpy(s->cube, facelets, FWP_FACELETS);
    post(fw, &m);
    char grip[96];
    sim_robot_describe(&fw->robot, grip, sizeof grip);
    qlog_write(fw->log, QLOG_DEBUG,
               "STATUS %s last_step=%u fault=%u queued=%u %s cube=%s",
               state_name(fw->state), fw->last_step, fw->fault, s->queued,
               grip, facelets);
}

static void post_event(sim_fw *fw, int kind, uint16_t id, uint16_t ms)
{
    fwp_message m;
    memset(&m, 0, sizeof m);
    m.type = FWP_MSG_EVENT;
    m.u.event.kind = (uint8_t)kind;
    m.u.event.step_id = id;
    m.u.event.duration_ms = ms;
    post(fw, &m);
}

static void post_fault(sim_fw *fw, uint16_t code, uint16_t step, int gripper)
{
    fwp_message m;
    memset(&m, 0, sizeof m);
    m.type = FWP_MSG_FAULT;
    m.u.fault.code = code;
    m.u.fault.step_id = step;
    m.u.fault.gripper = (uint8_t)(gripper < 0 ? 0xFF : gripper);
    post(fw, &m);
}

/* A NAK naming the refused message, and for BAD_STEP the step, the rule
 * it breaks (fwp_rule, the model's error) and the gripper at fault. */
static void post_nak_step(sim_fw *fw, int reason, uint8_t ref_seq,
                          uint16_t step, int rule, int gripper)
{
    fwp_message m;
    memset(&m, 0, sizeof m);
    m.type = FWP_MSG_NAK;
    m.u.nak.reason = (uint8_t)reason;
    m.u.nak.ref_seq = ref_seq;
    m.u.nak.step_id = step;
    m.u.nak.rule = (uint8_t)rule;
    m.u.nak.gripper = (uint8_t)(gripper < 0 ? 0xFF : gripper);
    post(fw, &m);
}

static void post_nak(sim_fw *fw, int reason, uint8_t ref_seq)
{
    post_nak_step(fw, reason, ref_seq, FWP_NO_STEP, FWP_RULE_NONE, -1);
}

/* Every change of state is reported with STATUS. */
static void set_state(sim_fw *fw, int state)
{
    if (fw->state == state)
        return;
    qlog_write(fw->log, QLOG_INFO, "state %s -> %s", state_name(fw->state),
               state_name(state));
    fw->state = (uint8_t)state;
    post_status(fw);
}

/* ------------------------------------------------------------------- motion */

/* Stops at once: the step in motion is abandoned (not applied), the queue
 * and homing are dropped. */
static void stop_motion(sim_fw *fw, const char *why)
{
    if (fw->moving)
        qlog_write(fw->log, QLOG_WARN, "step %u interrupted (%s): not done",
                   fw->cur.id, why);
    if (fw->q_count)
        qlog_write(fw->log, QLOG_INFO, "%d queued steps dropped (%s)",
                   fw->q_count, why);
    fw->moving = false;
    fw->cur_fault_code = 0;
    fw->q_count = 0;
    fw->q_head = 0;
    fw->planned = fw->robot;
    fw->busy_refused = false;
    fw->have_expect = false;
}

/* The gripper a motor fault names: the first one that moves. */
static int moving_gripper(const fwp_step *st)
{
    for (int g = 0; g < FWP_GRIPPERS; g++)
        if (st->action[g] >= FWP_ACT_CW && st->action[g] <= FWP_ACT_HALF)
            return g;
    for (int g = 0; g < FWP_GRIPPERS; g++)
        if (st->action[g] != FWP_ACT_NONE)
            return g;
    return -1;
}

static void enter_fault(sim_fw *fw, uint16_t code, uint16_t step, int gripper,
                        const char *why)
{
    qlog_write(fw->log, QLOG_ERROR, "FAULT 0x%04x at step %u gripper %d: %s",
               code, step, gripper, why);
    stop_motion(fw, "fault");
    fw->faults++;
    fw->fault = code;
    post_fault(fw, code, step, gripper);
    if (fw->state == FWP_ROBOT_FAULT)
        post_status(fw);
    else
        set_state(fw, FWP_ROBOT_FAULT);
}

/* Stopped by the link (watchdog, lost connection, host restart). */
static void link_stop(sim_fw *fw, const char *why, bool report_fault)
{
    if (fw->state != FWP_ROBOT_IDLE && fw->state != FWP_ROBOT_RUNNING &&
        fw->state != FWP_ROBOT_HOMING) {
        qlog_write(fw->log, QLOG_INFO, "%s while %s: nothing to stop", why,
                   state_name(fw->state));
        return;
    }
    uint16_t step = fw->moving ? fw->cur.id : FWP_NO_STEP;
    qlog_write(fw->log, QLOG_WARN, "%s: stopping all motion", why);
    stop_motion(fw, why);
    if (report_fault) {
        fw->faults++;
        fw->fault = FWP_FAULT_LINK_LOST;
        post_fault(fw, FWP_FAULT_LINK_LOST, step, -1);
    }
    set_state(fw, FWP_ROBOT_STOPPED);
}

static void start_step(sim_fw *fw, int64_t now_us)
{
    fw->cur = fw->queue[fw->q_head];
    fw->q_head = (fw->q_head + 1) % SIM_QUEUE_MAX;
    fw->q_count--;
    fw->steps_started++;
    /* Chain onto the previous motion when the loop woke late, so wake-up
     * latency does not add up over a long run. */
    int64_t start = fw->last_end_us > now_us - 2000 && fw->last_end_us <= now_us
                        ? fw->last_end_us
                        : now_us;
    sim_motion mo;
    char why[160];
    fw->cur_after = fw->robot;
    int rc = sim_robot_step(&fw->cur_after, &fw->cur, &mo, why, sizeof why);
    if (rc != SIM_OK) {
        /* Checked when queued against the same state, so this is a bug. */
        fw->moving = true;
        enter_fault(fw, (uint16_t)(SIM_FAULT_BASE + (unsigned)-rc), fw->cur.id,
                    mo.gripper, why);
        return;
    }
    int64_t us = sim_motion_us(&mo, &fw->cfg.profile);
    if (fw->cfg.jitter > 0) {
        double f = 1 + fw->cfg.jitter * (2 * sim_rand_uniform(&fw->rng) - 1);
        us = (int64_t)((double)us * f + 0.5);
    }
    fw->cur_sim_us = us;
    int64_t real = fw->cfg.speed > 0 ? (int64_t)((double)us / fw->cfg.speed)
                                     : 0;
    fw->moving = true;
    fw->cur_start_us = start;
    fw->cur_end_us = start + real;
    fw->cur_fault_code = 0;
    post_event(fw, FWP_STEP_STARTED, fw->cur.id, 0);
    if (fw->cfg.stall_step && fw->steps_started == fw->cfg.stall_step) {
        /* The motor never arrives; the firmware notices after three times
         * the step's expected duration. */
        fw->cur_fault_code = FWP_FAULT_STALL;
        fw->cur_fault_us = start + 3 * real;
    } else if (fw->cfg.motor_fault_step &&
               fw->steps_started == fw->cfg.motor_fault_step) {
        fw->cur_fault_code = FWP_FAULT_OVERCURRENT;
        fw->cur_fault_us = start + real / 2;
    }
    qlog_write(fw->log, QLOG_DEBUG, "step %u started (#%u, %.1f ms)",
               fw->cur.id, fw->steps_started, (double)us / 1000.0);
}

static void finish_step(sim_fw *fw)
{
    fw->robot = fw->cur_after;
    fw->moving = false;
    fw->last_step = fw->cur.id;
    fw->steps_done++;
    fw->last_end_us = fw->cur_end_us;
    int64_t ms = (fw->cur_sim_us + 500) / 1000;
    post_event(fw, FWP_STEP_DONE, fw->cur.id,
               (uint16_t)(ms > 65535 ? 65535 : ms));
    if (qlog_enabled(fw->log, QLOG_DEBUG)) {
        char grip[96], facelets[55];
        sim_robot_describe(&fw->robot, grip, sizeof grip);
        qs_cube_to_facelets(&fw->robot.cube, facelets);
        qlog_write(fw->log, QLOG_DEBUG, "step %u done (#%u) %s cube=%s",
                   fw->cur.id, fw->steps_done, grip, facelets);
    }
    if (fw->cfg.disconnect_after &&
        fw->steps_done == fw->cfg.disconnect_after) {
        qlog_write(fw->log, QLOG_WARN,
                   "--disconnect-after %u: cutting the link",
                   fw->cfg.disconnect_after);
        fw->cut_link = true;
    }
}

void sim_fw_tick(sim_fw *fw, int64_t now_us)
{
    /* Bounded so that an instant robot (--speed 0) still lets the network
     * run; the outbox bounds it far earlier in practice. */
    for (int guard = 0; guard < 4 * SIM_QUEUE_MAX; guard++) {
        if (fw->state == FWP_ROBOT_HOMING) {
            if (now_us < fw->homing_end_us)
                return;
            sim_robot_home(&fw->robot);
            fw->planned = fw->robot;
            fw->last_end_us = fw->homing_end_us;
            qlog_write(fw->log, QLOG_INFO, "homed");
            set_state(fw, FWP_ROBOT_IDLE);
            continue;
        }
        if (fw->moving) {
            if (fw->cur_fault_code) {
                if (now_us < fw->cur_fault_us)
                    return;
                enter_fault(fw, fw->cur_fault_code, fw->cur.id,
                            moving_gripper(&fw->cur),
                            fw->cur_fault_code == FWP_FAULT_STALL
                                ? "injected stall (--stall-step)"
                                : "injected motor fault (--motor-fault)");
                return;
            }
            if (now_us < fw->cur_end_us)
                return;
            finish_step(fw);
            continue;
        }
        if (fw->state != FWP_ROBOT_RUNNING || fw->cut_link)
            return;
        if (fw->q_count == 0) {
            set_state(fw, FWP_ROBOT_IDLE);
            return;
        }
        if (SIM_OUTBOX - fw->ob_count < STEP_ROOM)
            return;
        start_step(fw, now_us);
    }
}

int64_t sim_fw_next_us(const sim_fw *fw, int64_t now_us)
{
    if (fw->state == FWP_ROBOT_HOMING)
        return fw->homing_end_us;
    if (fw->moving)
        return fw->cur_fault_code ? fw->cur_fault_us : fw->cur_end_us;
    if (fw->state == FWP_ROBOT_RUNNING && !fw->cut_link &&
        (fw->q_count == 0 || SIM_OUTBOX - fw->ob_count >= STEP_ROOM))
        return now_us;
    return INT64_MAX;
}

/* ----------------------------------------------------------------- messages */

static void take_steps(sim_fw *fw, const fwp_message *m)
{
    const fwp_steps *b = &m->u.steps;
    uint16_t first = b->step[0].id, last = b->step[b->count - 1].id;
    switch (fw->state) {
    case FWP_ROBOT_UNHOMED:
    case FWP_ROBOT_HOMING:
        post_nak(fw, FWP_NAK_NOT_HOMED, m->seq);
        qlog_write(fw->log, QLOG_WARN, "steps %u..%u refused: not homed",
                   first, last);
        return;
    case FWP_ROBOT_FAULT:
        post_nak(fw, FWP_NAK_FAULTED, m->seq);
        qlog_write(fw->log, QLOG_WARN, "steps %u..%u refused: faulted", first,
                   last);
        return;
    case FWP_ROBOT_STOPPED:
        post_nak(fw, FWP_NAK_STOPPED, m->seq);
        qlog_write(fw->log, QLOG_WARN, "steps %u..%u refused: stopped", first,
                   last);
        return;
    default:
        break;
    }
    if (b->count > fw->cfg.queue) {
        post_nak(fw, FWP_NAK_TOO_MANY, m->seq);
        qlog_write(fw->log, QLOG_WARN, "%u steps refused: the queue holds %d",
                   b->count, fw->cfg.queue);
        return;
    }
    /* After a BUSY, only the refused batch may come next: a batch sent
     * behind it must not overtake it. */
    if (fw->busy_refused && fw->have_expect && first != fw->expect_id) {
        post_nak(fw, FWP_NAK_BUSY, m->seq);
        qlog_write(fw->log, QLOG_INFO,
                   "steps %u..%u refused: waiting for step %u again", first,
                   last, fw->expect_id);
        return;
    }
    if (b->count > fw->cfg.queue - fw->q_count) {
        post_nak(fw, FWP_NAK_BUSY, m->seq);
        fw->busy_refused = true;
        fw->expect_id = first;
        fw->have_expect = true;
        qlog_write(fw->log, QLOG_INFO,
                   "steps %u..%u refused: queue full (%d of %d)", first, last,
                   fw->q_count, fw->cfg.queue);
        return;
    }
    if (fw->have_expect && first != fw->expect_id)
        qlog_write(fw->log, QLOG_WARN, "step ids jump from %u to %u",
                   fw->expect_id, first);
    sim_robot plan = fw->planned;
    for (int i = 0; i < b->count; i++) {
        sim_motion mo;
        char why[160];
        int rc = sim_robot_step(&plan, &b->step[i], &mo, why, sizeof why);
        if (rc != SIM_OK) {
            fw->refused++;
            qlog_write(fw->log, QLOG_ERROR,
                       "step %u (%d of batch %u..%u) is impossible: %s: %s",
                       b->step[i].id, i + 1, first, last, sim_errcode(rc),
                       why);
            post_nak_step(fw, FWP_NAK_BAD_STEP, m->seq, b->step[i].id, -rc,
                          mo.gripper);
            enter_fault(fw, (uint16_t)(SIM_FAULT_BASE + (unsigned)-rc),
                        b->step[i].id, mo.gripper, why);
            return;
        }
    }
    for (int i = 0; i < b->count; i++)
        fw->queue[(fw->q_head + fw->q_count + i) % SIM_QUEUE_MAX] = b->step[i];
    fw->q_count += b->count;
    fw->planned = plan;
    fw->busy_refused = false;
    fw->expect_id = next_id(last);
    fw->have_expect = true;
    fw->batches++;
    qlog_write(fw->log, QLOG_DEBUG, "steps %u..%u queued (%d waiting)", first,
               last, fw->q_count);
    set_state(fw, FWP_ROBOT_RUNNING);
}

void sim_fw_message(sim_fw *fw, const fwp_message *m, int64_t now_us)
{
    switch (m->type) {
    case FWP_MSG_HELLO:
        qlog_write(fw->log, QLOG_INFO,
                   "HELLO from host session 0x%08x (max_steps %u, window %u, "
                   "heartbeat %u ms)",
                   m->u.hello.session, m->u.hello.max_steps, m->u.hello.window,
                   m->u.hello.heartbeat_ms);
        break;
    case FWP_MSG_HOME: {
        qlog_write(fw->log, QLOG_INFO, "HOME");
        stop_motion(fw, "HOME");
        fw->fault = 0;
        int64_t us = sim_homing_us(&fw->cfg.profile);
        fw->homing_end_us =
            now_us + (fw->cfg.speed > 0 ? (int64_t)((double)us / fw->cfg.speed)
                                        : 0);
        if (fw->state == FWP_ROBOT_HOMING)
            post_status(fw);
        else
            set_state(fw, FWP_ROBOT_HOMING);
        break;
    }
    case FWP_MSG_STEPS:
        take_steps(fw, m);
        break;
    case FWP_MSG_STATUS:
        if (m->u.status.query) {
            post_status(fw);
        } else {
            post_nak(fw, FWP_NAK_UNSUPPORTED, m->seq);
            qlog_write(fw->log, QLOG_WARN, "a STATUS report from the host");
        }
        break;
    case FWP_MSG_ESTOP:
        qlog_write(fw->log, QLOG_WARN, "ESTOP from the host");
        if (fw->state == FWP_ROBOT_IDLE || fw->state == FWP_ROBOT_RUNNING ||
            fw->state == FWP_ROBOT_HOMING) {
            stop_motion(fw, "ESTOP");
            fw->fault = 0;
        }
        /* ESTOP is always answered with STATUS. */
        if (fw->state == FWP_ROBOT_STOPPED || fw->state == FWP_ROBOT_FAULT ||
            fw->state == FWP_ROBOT_UNHOMED)
            post_status(fw);
        else
            set_state(fw, FWP_ROBOT_STOPPED);
        break;
    case FWP_MSG_NAK:
        qlog_write(fw->log, QLOG_WARN,
                   "the host refused our message %u (reason %u)",
                   m->u.nak.ref_seq, m->u.nak.reason);
        break;
    default:
        /* EVENT and FAULT are the firmware's to send. */
        post_nak(fw, FWP_NAK_UNSUPPORTED, m->seq);
        qlog_write(fw->log, QLOG_WARN, "unexpected %s from the host",
                   fwp_type_name(m->type));
        break;
    }
}

static void clear_outbox(sim_fw *fw, const char *why)
{
    if (fw->ob_count)
        qlog_write(fw->log, QLOG_INFO, "%d unsent reports dropped (%s)",
                   fw->ob_count, why);
    fw->ob_head = 0;
    fw->ob_count = 0;
}

void sim_fw_link_event(sim_fw *fw, int event, int detail, int64_t now_us)
{
    (void)now_us;
    switch (event) {
    case FWP_EV_CONNECTED:
        qlog_write(fw->log, QLOG_INFO, "connected");
        post_status(fw);
        break;
    case FWP_EV_PEER_RESET:
        /* A new host knows nothing of the old queue or reports. */
        qlog_write(fw->log, QLOG_WARN,
                   "host restarted (%d unacknowledged reports dropped)",
                   detail);
        clear_outbox(fw, "host restarted");
        link_stop(fw, "host restarted", false);
        break;
    case FWP_EV_LINK_LOST:
        link_stop(fw, "link lost (watchdog)", true);
        break;
    case FWP_EV_LINK_RESTORED:
        qlog_write(fw->log, QLOG_INFO, "link restored");
        break;
    case FWP_EV_RETRY_LIMIT:
        qlog_write(
            fw->log, QLOG_WARN,
            "host does not acknowledge: %d reports dropped, new session",
            detail);
        clear_outbox(fw, "retry limit");
        break;
    case FWP_EV_INCOMPATIBLE:
        qlog_write(fw->log, QLOG_WARN, "incompatible HELLO (%s)",
                   detail == 1 ? "version" : "same role");
        break;
    default:
        break;
    }
}

void sim_fw_link_cut(sim_fw *fw, int64_t now_us)
{
    (void)now_us;
    link_stop(fw, "connection closed", true);
}

void sim_fw_flush(sim_fw *fw, fwp_endpoint *ep)
{
    while (fw->ob_count && fwp_link(ep) == FWP_LINK_CONNECTED) {
        const fwp_message *m = &fw->outbox[fw->ob_head];
        int rc = fwp_send(ep, m);
        if (rc == FWP_ERR_BUSY)
            return;
        if (rc != FWP_OK)
            qlog_write(fw->log, QLOG_ERROR, "%s report not sent: %s",
                       fwp_type_name(m->type), fwp_strerror(rc));
        fw->ob_head = (fw->ob_head + 1) % SIM_OUTBOX;
        fw->ob_count--;
    }
}
