/*
 * qlog.c - the programs' logger (qlog.h): formats the whole line, time,
 * tag, level and message, into one buffer and writes it with one call.
 */
#define _POSIX_C_SOURCE 200809L

#include "qlog.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const level_names[] = {"DEBUG", "INFO", "WARN", "ERROR"};

bool qlog_enabled(const qlog *lg, qlog_level level)
{
    return lg && level >= lg->level && level >= QLOG_DEBUG &&
           level < QLOG_OFF;
}

void qlog_vwrite(const qlog *lg, qlog_level level, const char *fmt,
                 va_list ap)
{
    if (!qlog_enabled(lg, level))
        return;
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    char line[1200];
    int n = snprintf(line, sizeof line,
                     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ %s%s%-5s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
                     lg->tag ? lg->tag : "", lg->tag ? " " : "",
                     level_names[level]);
    if (n < 0 || n >= (int)sizeof line - 1)
        return;
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    /* stderr may be a pipe nobody reads any more (a test that stopped
     * reading): a lost log line is no reason to stop a server or a robot. */
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}

void qlog_write(const qlog *lg, qlog_level level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    qlog_vwrite(lg, level, fmt, ap);
    va_end(ap);
}

int qlog_level_parse(const char *name)
{
    static const char *const names[] = {"debug", "info", "warn", "error",
                                        "off"};
    for (int i = 0; name && i < (int)(sizeof names / sizeof names[0]); i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}
