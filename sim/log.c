/*
 * log.c - quadsim's log lines on stderr: UTC time to the millisecond,
 * level, message. One write per line, so lines from the simulator and
 * from a test or controller sharing the terminal do not interleave.
 */
#include "sim.h"

#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

void sim_logf(const sim_log *lg, int level, const char *fmt, ...)
{
    static const char *const names[] = {"DEBUG", "INFO", "WARN", "ERROR"};
    if (!lg || level < lg->level || level < 0 || level > SIM_LOG_ERROR)
        return;
    struct timespec ts;
    struct tm tm;
    clock_gettime(CLOCK_REALTIME, &ts);
    gmtime_r(&ts.tv_sec, &tm);
    char line[1024];
    int n = snprintf(line, sizeof line,
                     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ quadsim %-5s ",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
                     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000L,
                     names[level]);
    if (n < 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    int m = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
    va_end(ap);
    if (m < 0)
        return;
    size_t len = (size_t)n + (size_t)m;
    if (len > sizeof line - 2)
        len = sizeof line - 2;
    line[len++] = '\n';
    /* stderr may be a pipe a test stopped reading; a lost log line is no
     * reason to stop the robot. */
    ssize_t w = write(STDERR_FILENO, line, len);
    (void)w;
}
