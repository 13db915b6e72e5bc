/*
 * qlog.h - the programs' logger: one line per message on standard error,
 *
 *     2026-01-31T12:00:00.123Z [TAG ]LEVEL message
 *
 * with the UTC time to the millisecond, the caller's tag (a program name;
 * none when NULL) and the level padded to five characters. Each line is
 * one write, so lines of different threads, or of programs sharing the
 * terminal, never interleave. The level to keep is state the caller owns
 * and passes in (a qlog), never a global.
 */
#ifndef QLOG_H
#define QLOG_H

#include <stdarg.h>
#include <stdbool.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
    QLOG_DEBUG = 0,
    QLOG_INFO = 1,
    QLOG_WARN = 2,
    QLOG_ERROR = 3,
    QLOG_OFF = 4, /* as a threshold: nothing is written */
} qlog_level;

/* Where logs go and how much; set up before any thread logs. */
typedef struct {
    qlog_level level; /* messages below it are dropped */
    const char *tag;  /* written before the level ("quadsim"); NULL: none */
} qlog;

/* Whether a message at this level would be written (to skip the work of
 * making one that would not). */
bool qlog_enabled(const qlog *lg, qlog_level level);

/* Writes one line at this level, when lg keeps it. A message longer than
 * a line holds (about 1 KiB) is cut. Thread-safe. */
void qlog_write(const qlog *lg, qlog_level level, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
void qlog_vwrite(const qlog *lg, qlog_level level, const char *fmt,
                 va_list ap) __attribute__((format(printf, 3, 0)));

/* The level a name spells ("debug", "info", "warn", "error", "off"), or
 * -1 for any other name. */
int qlog_level_parse(const char *name);

#ifdef __cplusplus
}
#endif

#endif
