/*
 * test_service.c - the service library's parsing and printing without a
 * daemon (service/request.c, reply.c): requests survive a round trip
 * through their JSON, and replies from a hostile peer are refused with
 * PROTOCOL rather than read into undefined values. The daemon around
 * them is tested in test_daemon.
 */
#include "testutil.h"

#include "qsservice.h"

static int parse_text(const char *json, qsv_request *r, qsv_failure *f)
{
    return qsv_request_parse(json, strlen(json), r, f);
}

/* A request printed and parsed again is the same request. */
static void assert_round_trip(const qsv_request *r)
{
    char text[4096];
    qsv_request back;
    qsv_failure f;
    assert_true(qsv_request_to_json(r, text, sizeof text) > 0);
    if (parse_text(text, &back, &f) != QSV_OK)
        fail_msg("%s does not parse: %s", text, f.message);
    assert_string_equal(back.id, r->id);
    assert_int_equal(back.op, r->op);
    assert_string_equal(back.cube, r->cube);
    assert_int_equal(back.is_scramble, r->is_scramble);
    assert_int_equal(back.metric, r->metric);
    assert_int_equal(back.time_ms, r->time_ms);
    assert_int_equal(back.max_len, r->max_len);
    assert_int_equal(back.solutions, r->solutions);
    assert_int_equal(back.optimal, r->optimal);
    assert_int_equal(back.all, r->all);
    assert_int_equal(back.objective, r->objective);
    assert_string_equal(back.profile.name, r->profile.name);
}

static void test_request_round_trip(void **state)
{
    (void)state;
    qsv_request r;
    qsv_request_init(&r);
    strcpy(r.id, "\"a1\"");
    strcpy(r.cube, "R U R' U'");
    r.is_scramble = 1;
    r.metric = QS_METRIC_HTM;
    assert_round_trip(&r);

    /* Issue 15, item 6: one optimal solution of `all` came back as 16,
     * the parser's default for `all` without a count. */
    r.optimal = 1;
    r.all = 1;
    r.solutions = 1;
    assert_round_trip(&r);
    r.solutions = 5;
    assert_round_trip(&r);

    qsv_request_init(&r);
    strcpy(r.id, "7");
    strcpy(r.cube, "F2 B");
    r.is_scramble = 1;
    r.metric = QS_METRIC_ROBOT;
    r.time_ms = 250;
    r.max_len = 21;
    r.solutions = 3;
    r.objective = ROBOT_OBJ_TIME;
    assert_int_equal(robot_profile_builtin("lego", &r.profile), ROBOT_OK);
    assert_round_trip(&r);
}

/* A result reply with its stats replaced by `stats`. */
static int parse_result_with(const char *stats, qsv_failure *f)
{
    static qsv_result res;
    char frame[2048];
    snprintf(frame, sizeof frame,
             "{\"id\":1,\"type\":\"result\",\"metric\":\"htm\","
             "\"profile\":\"default\",\"objective\":\"moves\","
             "\"solutions\":[{\"moves\":\"R\",\"length\":1,\"robot\":\"R\","
             "\"robot_moves\":1,\"turns\":1,\"tilts\":0,\"full_regrips\":0,"
             "\"safe\":1,\"cost_ms\":100}],\"stats\":{%s}}",
             stats);
    qsv_reply_type type;
    char id[QSV_MAX_ID + 1];
    return qsv_reply_parse(frame, strlen(frame), &type, id, &res, NULL, f);
}

static int parse_progress_with(const char *nodes, qsv_failure *f)
{
    char frame[512];
    snprintf(frame, sizeof frame,
             "{\"id\":1,\"type\":\"progress\",\"depth\":17,\"found\":0,"
             "\"nodes\":%s,\"elapsed_ms\":5}",
             nodes);
    qsv_reply_type type;
    char id[QSV_MAX_ID + 1];
    qsv_progress p;
    int rc = qsv_reply_parse(frame, strlen(frame), &type, id, NULL, &p, f);
    assert_null(p.solution);
    return rc;
}

static void test_reply_counts_from_a_peer(void **state)
{
    (void)state;
    qsv_failure f;
    assert_int_equal(parse_result_with("\"phase1_nodes\":123456789012,"
                                       "\"phase2_nodes\":0",
                                       &f),
                     QSV_OK);
    assert_int_equal(parse_result_with("", &f), QSV_OK); /* absent: 0 */
    /* Issue 15, item 7: converting these to uint64_t was undefined. */
    static const char *const bad[] = {"-1", "1e30", "1e400", "-1e400",
                                      "2.5", "\"7\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char stats[64];
        snprintf(stats, sizeof stats, "\"phase1_nodes\":%s", bad[i]);
        assert_int_equal(parse_result_with(stats, &f), QSV_ERR_PROTOCOL);
        assert_non_null(strstr(f.message, "node count"));
        snprintf(stats, sizeof stats, "\"phase2_nodes\":%s", bad[i]);
        assert_int_equal(parse_result_with(stats, &f), QSV_ERR_PROTOCOL);
        snprintf(stats, sizeof stats, "\"phase2_searches\":%s", bad[i]);
        assert_int_equal(parse_result_with(stats, &f), QSV_ERR_PROTOCOL);
        assert_int_equal(parse_progress_with(bad[i], &f), QSV_ERR_PROTOCOL);
        assert_non_null(strstr(f.message, "'nodes'"));
    }
    assert_int_equal(parse_progress_with("4096", &f), QSV_OK);
}

/* Issue 15, item 5 from the client's side: a reply that is not UTF-8 is
 * PROTOCOL, so that its text never reaches the caller's output. */
static void test_reply_not_utf8(void **state)
{
    (void)state;
    static const char *const frames[] = {
        "{\"id\":1,\"type\":\"error\",\"error\":{\"code\":\"BUSY\","
        "\"message\":\"caf\xc3\"}}",
        "{\"id\":\"\xff\",\"type\":\"pong\"}",
        "{\"id\":1,\"type\":\"pong\",\"x\":\"\xed\xa0\x80\"}",
    };
    qsv_reply_type type;
    char id[QSV_MAX_ID + 1];
    qsv_failure f;
    for (size_t i = 0; i < sizeof frames / sizeof frames[0]; i++) {
        assert_int_equal(qsv_reply_parse(frames[i], strlen(frames[i]), &type,
                                         id, NULL, NULL, &f),
                         QSV_ERR_PROTOCOL);
        assert_non_null(strstr(f.message, "not valid UTF-8"));
    }
    const char *ok = "{\"id\":1,\"type\":\"error\",\"error\":{\"code\":"
                     "\"BUSY\",\"message\":\"caf\xc3\xa9\"}}";
    assert_int_equal(qsv_reply_parse(ok, strlen(ok), &type, id, NULL, NULL,
                                     &f),
                     QSV_OK);
    assert_string_equal(f.message, "caf\xc3\xa9");
}

/* A peer's text is cut short only between UTF-8 characters (a cut inside
 * one made a reply whose result did not parse again: fuzz_reply), and a
 * profile name longer than any profile's is refused. */
static void test_reply_text_cut_at_characters(void **state)
{
    (void)state;
    qsv_reply_type type;
    char id[QSV_MAX_ID + 1];
    qsv_failure f;
    static qsv_result res;
    char frame[1024], text[400];
    for (int odd = 0; odd < 2; odd++) {
        /* "e" then two-byte characters: with odd, the 255-byte message
         * buffer ends in the middle of one */
        size_t n = 0;
        if (odd)
            text[n++] = 'e';
        while (n + 2 < 300) {
            text[n++] = '\xc3';
            text[n++] = '\xa9';
        }
        text[n] = '\0';
        snprintf(frame, sizeof frame,
                 "{\"id\":1,\"type\":\"error\",\"error\":{\"code\":"
                 "\"BUSY\",\"message\":\"%s\"}}",
                 text);
        assert_int_equal(qsv_reply_parse(frame, strlen(frame), &type, id,
                                         NULL, NULL, &f),
                         QSV_OK);
        size_t len = strlen(f.message);
        assert_int_equal(qsv_utf8_check(f.message, len), len);
        assert_int_equal(len, odd ? 255 : 254);
        assert_memory_equal(f.message, text, len);
    }
    for (int extra = 0; extra < 2; extra++) {
        char name[80];
        memset(name, 'p', sizeof name);
        name[63 + extra] = '\0'; /* 63 bytes fit, 64 do not */
        snprintf(frame, sizeof frame,
                 "{\"id\":1,\"type\":\"result\",\"metric\":\"htm\","
                 "\"profile\":\"%s\",\"solutions\":[{\"moves\":\"R\","
                 "\"length\":1,\"robot\":\"R\",\"robot_moves\":1,"
                 "\"turns\":1,\"tilts\":0,\"full_regrips\":0,"
                 "\"safe\":1,\"cost_ms\":100}]}",
                 name);
        int rc = qsv_reply_parse(frame, strlen(frame), &type, id, &res,
                                 NULL, &f);
        if (extra) {
            assert_int_equal(rc, QSV_ERR_PROTOCOL);
            assert_non_null(strstr(f.message, "'profile'"));
        } else {
            assert_int_equal(rc, QSV_OK);
            assert_string_equal(res.profile, name);
        }
    }
}

static void assert_refused(const char *json, int code, const char *says)
{
    qsv_request r;
    qsv_failure f;
    int rc = qsv_request_parse(json, strlen(json), &r, &f);
    if (rc != code)
        fail_msg("%s: %d, not %d", json, rc, code);
    if (!strstr(f.message, says))
        fail_msg("%s: '%s' does not say '%s'", json, f.message, says);
    assert_int_equal(qsv_utf8_check(f.message, strlen(f.message)),
                     strlen(f.message));
}

static void assert_bad_request(const char *json, const char *says)
{
    assert_refused(json, QSV_ERR_BAD_REQUEST, says);
}

static void test_request_hostile_strings(void **state)
{
    (void)state;
    const char *cube =
        "UUUUUUUUURRRRRRRRRFFFFFFFFFDDDDDDDDDLLLLLLLLLBBBBBBBBB";
    char json[512];
    /* Issue 15, item 4: an escaped NUL cut strings and keys short. */
    snprintf(json, sizeof json, "{\"id\":1,\"facelets\":\"%s\\u0000JUNK\"}",
             cube);
    assert_bad_request(json, "escaped NUL");
    assert_bad_request("{\"id\":1,\"op\":\"ping\\u0000x\"}", "escaped NUL");
    assert_bad_request("{\"id\":\"a\\u0000b\",\"op\":\"ping\"}",
                       "escaped NUL");
    snprintf(json, sizeof json,
             "{\"id\":1,\"facelets\":\"%s\",\"metric\\u0000x\":\"htm\"}",
             cube);
    assert_bad_request(json, "escaped NUL");
    /* An escaped backslash before "u0000" is text, not a NUL. */
    qsv_request r;
    qsv_failure f;
    const char *text = "{\"id\":\"a\\\\u0000\",\"op\":\"ping\"}";
    assert_int_equal(qsv_request_parse(text, strlen(text), &r, &f), QSV_OK);
    assert_string_equal(r.id, "\"a\\\\u0000\"");
    /* A raw NUL byte. */
    const char raw[] = "{\"id\":1,\"op\":\"ping\"}\0junk";
    assert_int_equal(qsv_request_parse(raw, sizeof raw - 1, &r, &f),
                     QSV_ERR_BAD_REQUEST);

    /* Item 5: invalid UTF-8 anywhere is refused, and messages that show
     * a request's text stay valid UTF-8 even when cut. */
    assert_bad_request("{\"id\":\"\xff\",\"op\":\"ping\"}", "not valid UTF-8");
    assert_bad_request("{\"id\":1,\"op\":\"ping\",\"x\":\"\xc0\xaf\"}",
                       "not valid UTF-8"); /* overlong '/' */
    assert_bad_request("{\"id\":1,\"op\":\"ping\",\"x\":\"\xed\xa0\x80\"}",
                       "not valid UTF-8"); /* a surrogate */
    char key[200] = "";
    for (int i = 0; i < 30; i++)
        strcat(key, "\xc3\xa9"); /* é: 60 bytes, cut anywhere by %.60s */
    snprintf(json, sizeof json,
             "{\"id\":1,\"op\":\"solve\",\"facelets\":\"%s\",\"x%s\":1}",
             cube, key);
    assert_bad_request(json, "unknown field 'x\\xc3\\xa9");
    assert_refused("{\"id\":1,\"op\":\"\x1b[31mred\"}", QSV_ERR_UNKNOWN_OP,
                   "unknown op '\\x1b[31mred'");

    /* Item 11: 1e400 is no number a profile can use, and says so. */
    snprintf(json, sizeof json,
             "{\"id\":1,\"op\":\"solve\",\"facelets\":\"%s\",\"profile\":{\"quarter_ms\":"
             "1e400}}",
             cube);
    assert_bad_request(json, "\"quarter_ms\" is not a finite number");

    assert_int_equal(qsv_utf8_check("a\xc3\xa9z", 4), 4);
    assert_int_equal(qsv_utf8_check("a\xc3", 2), 1);
    assert_int_equal(qsv_utf8_check("\xf4\x90\x80\x80", 4), 0); /* > 10FFFF */
    assert_int_equal(qsv_utf8_check("\xf0\x9f\x98\x80", 4), 4); /* emoji */
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_request_round_trip),
        cmocka_unit_test(test_reply_counts_from_a_peer),
        cmocka_unit_test(test_reply_not_utf8),
        cmocka_unit_test(test_reply_text_cut_at_characters),
        cmocka_unit_test(test_request_hostile_strings),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
