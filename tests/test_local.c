/*
 * test_local.c - qsv_local (service/local.c), the daemon's exchange in
 * process: request frames in, the daemon's reply frames out, tables of
 * each metric opened on first use and shared by threads; every error a
 * reply with its code. Solutions are checked by applying their moves.
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */

#include "testutil.h"

#include "qsservice.h"

#include <cjson/cJSON.h>
#include <pthread.h>
#include <unistd.h>

/* The reply to frame, parsed (the test fails when it is not JSON). */
static cJSON *ask(qsv_local *l, const char *frame)
{
    char *text = qsv_local_solve(l, frame, strlen(frame), NULL);
    assert_non_null(text);
    cJSON *o = cJSON_Parse(text);
    if (!o)
        fail_msg("reply is not JSON: %s", text);
    qsv_free(text);
    return o;
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, key);
    assert_true(cJSON_IsString(v));
    return v->valuestring;
}

/* The reply is an error with this code (and reason, unless NULL). */
static void assert_error(cJSON *o, const char *code, const char *reason)
{
    assert_string_equal(str(o, "type"), "error");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    assert_string_equal(str(e, "code"), code);
    if (reason)
        assert_string_equal(str(e, "reason"), reason);
    assert_true(strlen(str(e, "message")) > 0);
    cJSON_Delete(o);
}

/* The reply is a result whose best solution solves cube (facelets). */
static void assert_solves(cJSON *o, const char *facelets, const char *metric)
{
    assert_string_equal(str(o, "type"), "result");
    assert_string_equal(str(o, "metric"), metric);
    const cJSON *sols = cJSON_GetObjectItemCaseSensitive(o, "solutions");
    assert_true(cJSON_GetArraySize(sols) >= 1);
    const char *moves = str(cJSON_GetArrayItem(sols, 0), "moves");
    qs_cube c;
    qs_move m[QS_MAX_MOVES];
    char detail[128];
    assert_int_equal(qs_cube_from_facelets(facelets, &c, detail,
                                           sizeof detail), QS_OK);
    int n = qs_moves_parse(moves, m, QS_MAX_MOVES, detail, sizeof detail);
    assert_true(n >= 0);
    qs_cube_apply_moves(&c, m, n);
    assert_true(qs_cube_is_solved(&c));
    cJSON_Delete(o);
}

static const char *HARD =
    "DRBLUUDDUFRDRRLRFLFFLBFDULUBFFRDUBUULBRLLDRBRLFFDBUBBD";

static void test_solves_and_refuses(void **state)
{
    (void)state;
    qsv_local *l = NULL;
    assert_int_equal(qsv_local_open(NULL, 2, QSV_TABLES_SMALL, &l), QSV_OK);
    char frame[256];
    snprintf(frame, sizeof frame,
             "{\"id\":1,\"op\":\"solve\",\"facelets\":\"%s\","
             "\"metric\":\"htm\",\"time_ms\":20}", HARD);
    assert_solves(ask(l, frame), HARD, "htm");
    snprintf(frame, sizeof frame,
             "{\"id\":\"r\",\"op\":\"solve\",\"facelets\":\"%s\","
             "\"metric\":\"robot\",\"time_ms\":20}", HARD);
    assert_solves(ask(l, frame), HARD, "robot");

    char bad[64];
    snprintf(bad, sizeof bad, "%.53s", HARD);
    snprintf(frame, sizeof frame,
             "{\"id\":2,\"op\":\"solve\",\"facelets\":\"%s\"}", bad);
    assert_error(ask(l, frame), "INVALID_CUBE", "LENGTH");
    assert_error(ask(l, "{\"id\":3,\"op\":\"solve\",\"scramble\":\"R X\"}"),
                 "INVALID_MOVES", "MOVE");
    assert_error(ask(l, "{\"id\":4,\"op\":\"solve\",\"scramble\":\"R\","
                        "\"metric\":\"stm\"}"),
                 "BAD_REQUEST", NULL);
    assert_error(ask(l, "{\"id\":5,\"op\":\"status\"}"), "UNKNOWN_OP", NULL);
    assert_error(ask(l, "{\"id\":8,\"op\":\"solve\",\"scramble\":\"R\","
                        "\"deadline_ms\":100}"),
                 "BAD_REQUEST", NULL);
    assert_error(ask(l, "not json"), "BAD_REQUEST", NULL);
    snprintf(frame, sizeof frame,
             "{\"id\":6,\"op\":\"solve\",\"facelets\":\"%s\","
             "\"metric\":\"htm\",\"max_len\":5,\"time_ms\":100}", HARD);
    assert_error(ask(l, frame), "NOT_FOUND", NULL);
    /* The id comes back as it was sent. */
    cJSON *o = ask(l, "{\"id\":\"x7\",\"op\":\"solve\",\"scramble\":\"R U\","
                      "\"metric\":\"qtm\"}");
    assert_string_equal(str(o, "id"), "x7");
    cJSON_Delete(o);

    qsv_local_close(l);
    /* the medium robot set serves robot solves too */
    assert_int_equal(qsv_local_open(NULL, 2, QSV_TABLES_MEDIUM, &l), QSV_OK);
    snprintf(frame, sizeof frame,
             "{\"id\":\"m\",\"op\":\"solve\",\"facelets\":\"%s\","
             "\"metric\":\"robot\",\"time_ms\":20}", HARD);
    assert_solves(ask(l, frame), HARD, "robot");

    char *none = qsv_local_solve(NULL, "{}", 2, NULL);
    assert_non_null(none);
    assert_non_null(strstr(none, "ARGUMENT"));
    qsv_free(none);
    qsv_local_close(l);
    qsv_local_close(NULL);
    assert_int_equal(qsv_local_open(NULL, -1, 0, &l), QSV_ERR_ARGUMENT);
    assert_int_equal(qsv_local_open(NULL, 1, 0, NULL), QSV_ERR_ARGUMENT);
    assert_int_equal(qsv_local_open(NULL, 1, QSV_TABLES_MEDIUM + 1, &l),
                     QSV_ERR_ARGUMENT);
    assert_int_equal(qsv_local_open(NULL, 1, -1, &l), QSV_ERR_ARGUMENT);
}

/* A table directory that is a regular file: UNAVAILABLE, nothing made. */
static void test_unusable_tables(void **state)
{
    (void)state;
    char path[] = "/tmp/qs-test-local.XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    qsv_local *l = NULL;
    assert_int_equal(qsv_local_open(path, 1, 0, &l), QSV_OK);
    cJSON *o = ask(l, "{\"id\":1,\"op\":\"solve\",\"scramble\":\"R\","
                      "\"metric\":\"axht\"}");
    const cJSON *e = cJSON_GetObjectItemCaseSensitive(o, "error");
    assert_non_null(strstr(str(e, "message"), "axht tables"));
    assert_error(o, "UNAVAILABLE", NULL);
    qsv_local_close(l);
    close(fd);
    unlink(path);
}

struct job {
    qsv_local *l;
    char facelets[55];
    cJSON *reply;
};

static void *run(void *arg)
{
    struct job *j = arg;
    char frame[160];
    snprintf(frame, sizeof frame,
             "{\"id\":0,\"op\":\"solve\",\"facelets\":\"%s\","
             "\"metric\":\"qtm\",\"time_ms\":20}", j->facelets);
    char *text = qsv_local_solve(j->l, frame, strlen(frame), NULL);
    j->reply = text ? cJSON_Parse(text) : NULL;
    qsv_free(text);
    return NULL;
}

/* Threads whose first solves race for the same tables. */
static void test_threads_share(void **state)
{
    (void)state;
    qsv_local *l = NULL;
    assert_int_equal(qsv_local_open(NULL, 1, QSV_TABLES_SMALL, &l), QSV_OK);
    struct job jobs[4];
    pthread_t t[4];
    uint64_t rng = 18;
    for (int i = 0; i < 4; i++) {
        qs_cube c;
        qs_cube_random(&c, &rng);
        jobs[i].l = l;
        qs_cube_to_facelets(&c, jobs[i].facelets);
        assert_int_equal(pthread_create(&t[i], NULL, run, &jobs[i]), 0);
    }
    for (int i = 0; i < 4; i++) {
        pthread_join(t[i], NULL);
        assert_non_null(jobs[i].reply);
        assert_solves(jobs[i].reply, jobs[i].facelets, "qtm");
    }
    qsv_local_close(l);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_solves_and_refuses),
        cmocka_unit_test(test_unusable_tables),
        cmocka_unit_test(test_threads_share),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
