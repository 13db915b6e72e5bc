/*
 * robot_internal.h - helpers shared by the robot library's source files;
 * not part of the public interface (robot.h).
 */
#ifndef ROBOT_INTERNAL_H
#define ROBOT_INTERNAL_H

#include <stddef.h>

/* Formats an error detail into the caller's buffer (both may be NULL/0). */
void robot_set_detail(char *detail, size_t detail_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* The robot_error for a result of the search engine (qs_engine.h):
 * QS_OK, QS_ERR_CANCELLED, TIMEOUT, NOT_FOUND, NOMEM, THREAD, ARGUMENT,
 * TABLES; any other is ROBOT_ERR_ARGUMENT. */
int robot_engine_error(int qs_err);

#endif
