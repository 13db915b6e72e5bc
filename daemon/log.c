/*
 * log.c - the daemon's log: one line per message on stderr with a UTC
 * timestamp to the millisecond and a level, written with a single call so
 * lines from different threads never interleave.
 */
#define _POSIX_C_SOURCE 200809L

#include "daemon.h"

#include <stdio.h>
#include <time.h>

static qsd_log_level min_level = QSD_LOG_INFO;

void qsd_log_set_level(qsd_log_level level)
{
    min_level = level;
}

void qsd_log(qsd_log_level level, const char *fmt, ...)
{
    static const char *names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    if (level < min_level)
        return;
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    char line[1200];
    int n = snprintf(line, sizeof line,
                     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %-5s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
                     names[level]);
    va_list ap;
    va_start(ap, fmt);
    if (n > 0 && n < (int)sizeof line)
        vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", line);
}
