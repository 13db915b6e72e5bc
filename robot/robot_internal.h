/*
 * robot_internal.h - helpers shared by the robot library's source files;
 * not part of the public interface (robot.h).
 */
#ifndef ROBOT_INTERNAL_H
#define ROBOT_INTERNAL_H

#include "robot.h"

#include <stddef.h>
#include <stdint.h>

/* Formats an error detail into the caller's buffer (both may be NULL/0). */
void robot_set_detail(char *detail, size_t detail_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The robot_error for a result of the search engine (qs_engine.h):
 * QS_OK, QS_ERR_CANCELLED, TIMEOUT, NOT_FOUND, NOMEM, THREAD, ARGUMENT,
 * TABLES; any other is ROBOT_ERR_ARGUMENT. */
int robot_engine_error(int qs_err);

/* robot_plan, told that a plan exists whose first criterion (robot moves,
 * or microseconds under ROBOT_OBJ_TIME) is at most `bound` (INT64_MAX:
 * nothing known). Nodes that cannot finish within it are dropped, which
 * makes planning several times faster when the bound is tight (a
 * search's own count or time of the path); the result is robot_plan's
 * whatever the bound: one below the optimum costs a second, unbounded
 * run. */
int robot_plan_within(const robot_model *m, const robot_profile *p,
                      robot_objective obj, const qs_move *moves, int n,
                      int64_t bound, robot_schedule *out);

#endif
