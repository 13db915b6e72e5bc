/*
 * test_qlog.c - the programs' logger (qlog/): the line it writes (UTC
 * time to the millisecond, tag, level padded to five, message, one
 * newline), the level kept by the caller's qlog, a message too long for
 * a line, and the names --log-level accepts. Standard error is swapped
 * for a pipe while a test logs, and the pipe read back.
 */
#define _GNU_SOURCE /* strptime, timegm */

#include "testutil.h"

#include <regex.h>
#include <time.h>
#include <unistd.h>

#include "qlog.h"

/* One message, and the logger's stderr while it is written. */
typedef struct {
    const qlog *lg;
    qlog_level level;
    const char *msg;
} logged;

static size_t capture(const logged *what, char *out, size_t cap)
{
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    fflush(stderr);
    int saved = dup(STDERR_FILENO);
    assert_true(saved >= 0);
    assert_true(dup2(fds[1], STDERR_FILENO) >= 0);
    qlog_write(what->lg, what->level, "%s", what->msg);
    assert_true(dup2(saved, STDERR_FILENO) >= 0);
    close(saved);
    close(fds[1]);
    size_t n = 0;
    ssize_t got;
    while (n < cap - 1 && (got = read(fds[0], out + n, cap - 1 - n)) > 0)
        n += (size_t)got;
    close(fds[0]);
    out[n] = 0;
    return n;
}

static void assert_matches(const char *text, const char *pattern)
{
    regex_t re;
    assert_int_equal(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB), 0);
    int rc = regexec(&re, text, 0, NULL, 0);
    regfree(&re);
    if (rc != 0)
        fail_msg("'%s' does not match %s", text, pattern);
}

static void test_line_format(void **state)
{
    (void)state;
    char out[2048];
    qlog sim = {QLOG_INFO, "quadsim"};
    time_t before = time(NULL);
    size_t n = capture(&(logged){&sim, QLOG_INFO, "client connected (#1)"},
                       out, sizeof out);
    time_t after = time(NULL);
    assert_int_equal(n, strlen(out));
    assert_matches(out, "^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:"
                        "[0-9]{2}\\.[0-9]{3}Z quadsim INFO  "
                        "client connected \\(#1\\)\n$");
    /* The time is UTC and now. */
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    assert_non_null(strptime(out, "%Y-%m-%dT%H:%M:%S", &tm));
    time_t t = timegm(&tm);
    assert_true(t >= before - 1 && t <= after + 1);

    /* Without a tag the level follows the time; every level's name. */
    qlog daemon = {QLOG_DEBUG, NULL};
    static const char *const names[] = {"DEBUG", "INFO ", "WARN ", "ERROR"};
    for (int l = QLOG_DEBUG; l <= QLOG_ERROR; l++) {
        capture(&(logged){&daemon, (qlog_level)l, "x: 100%"}, out,
                sizeof out);
        char pattern[160];
        snprintf(pattern, sizeof pattern,
                 "^[0-9-]{10}T[0-9:]{8}\\.[0-9]{3}Z %s x: 100%%\n$",
                 names[l]);
        assert_matches(out, pattern);
    }
}

static void test_levels(void **state)
{
    (void)state;
    char out[2048];
    qlog warn = {QLOG_WARN, NULL};
    assert_int_equal(capture(&(logged){&warn, QLOG_INFO, "no"}, out,
                             sizeof out),
                     0);
    assert_int_equal(capture(&(logged){&warn, QLOG_DEBUG, "no"}, out,
                             sizeof out),
                     0);
    assert_true(capture(&(logged){&warn, QLOG_WARN, "yes"}, out,
                        sizeof out) > 0);
    assert_true(capture(&(logged){&warn, QLOG_ERROR, "yes"}, out,
                        sizeof out) > 0);
    /* off keeps nothing; no qlog, or a level that is none, writes nothing */
    qlog off = {QLOG_OFF, "quadsim"};
    assert_int_equal(capture(&(logged){&off, QLOG_ERROR, "no"}, out,
                             sizeof out),
                     0);
    assert_int_equal(capture(&(logged){NULL, QLOG_ERROR, "no"}, out,
                             sizeof out),
                     0);
    qlog all = {QLOG_DEBUG, NULL};
    assert_int_equal(capture(&(logged){&all, QLOG_OFF, "no"}, out,
                             sizeof out),
                     0);
    assert_int_equal(capture(&(logged){&all, (qlog_level)-1, "no"}, out,
                             sizeof out),
                     0);

    assert_false(qlog_enabled(&warn, QLOG_INFO));
    assert_true(qlog_enabled(&warn, QLOG_WARN));
    assert_true(qlog_enabled(&all, QLOG_DEBUG));
    assert_false(qlog_enabled(&off, QLOG_ERROR));
    assert_false(qlog_enabled(NULL, QLOG_ERROR));
}

/* A message longer than a line is cut, and the line still ends with its
 * one newline. */
static void test_long_message(void **state)
{
    (void)state;
    char msg[5000], out[8192];
    memset(msg, 'm', sizeof msg - 1);
    msg[sizeof msg - 1] = 0;
    qlog lg = {QLOG_INFO, "quadsim"};
    size_t n = capture(&(logged){&lg, QLOG_ERROR, msg}, out, sizeof out);
    assert_true(n > 1000 && n < 1200);
    assert_int_equal(out[n - 1], '\n');
    assert_ptr_equal(strchr(out, '\n'), out + n - 1);
    assert_matches(out, "Z quadsim ERROR m+\n$");
}

static void test_level_names(void **state)
{
    (void)state;
    assert_int_equal(qlog_level_parse("debug"), QLOG_DEBUG);
    assert_int_equal(qlog_level_parse("info"), QLOG_INFO);
    assert_int_equal(qlog_level_parse("warn"), QLOG_WARN);
    assert_int_equal(qlog_level_parse("error"), QLOG_ERROR);
    assert_int_equal(qlog_level_parse("off"), QLOG_OFF);
    assert_int_equal(qlog_level_parse("loud"), -1);
    assert_int_equal(qlog_level_parse("INFO"), -1);
    assert_int_equal(qlog_level_parse("warning"), -1);
    assert_int_equal(qlog_level_parse(""), -1);
    assert_int_equal(qlog_level_parse(NULL), -1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_line_format),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_long_message),
        cmocka_unit_test(test_level_names),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
