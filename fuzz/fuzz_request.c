/*
 * fuzz_request.c - libFuzzer harness for daemon requests
 * (service/request.c). Any bytes go through qsv_request_parse; a request
 * it accepts must print (qsv_request_to_json) and parse back to the same
 * request (the round-trip oracle), and its cube must parse or fail with
 * INVALID_CUBE / INVALID_MOVES. Every message must be valid UTF-8.
 */
#include "qsservice.h"

#include <stdlib.h>
#include <string.h>

static void check_utf8(const char *s)
{
    if (qsv_utf8_check(s, strlen(s)) != strlen(s))
        abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qsv_request r, back;
    qsv_failure f = {0, "", ""};
    int rc = qsv_request_parse((const char *)data, size, &r, &f);
    if (rc != QSV_OK) {
        check_utf8(f.message);
        if (rc != QSV_ERR_BAD_REQUEST && rc != QSV_ERR_TOO_LARGE &&
            rc != QSV_ERR_UNKNOWN_OP)
            abort();
        return 0;
    }
    static char text[QSV_MAX_FRAME + 1];
    int n = qsv_request_to_json(&r, text, sizeof text);
    if (n < 0)
        abort();
    if (qsv_request_parse(text, (size_t)n, &back, &f) != QSV_OK)
        abort();
    if (strcmp(back.id, r.id) || back.op != r.op ||
        strcmp(back.cube, r.cube) || back.is_scramble != r.is_scramble ||
        back.metric != r.metric || back.time_ms != r.time_ms ||
        back.max_len != r.max_len || back.solutions != r.solutions ||
        back.deadline_ms != r.deadline_ms || back.progress != r.progress ||
        back.optimal != r.optimal || back.all != r.all ||
        back.objective != r.objective ||
        memcmp(&back.profile, &r.profile, sizeof r.profile) ||
        strcmp(back.target, r.target))
        abort();
    if (r.op == QSV_OP_SOLVE) {
        qs_cube c;
        rc = qsv_request_cube(&r, &c, &f);
        if (rc != QSV_OK && rc != QSV_ERR_INVALID_CUBE &&
            rc != QSV_ERR_INVALID_MOVES)
            abort();
        if (rc != QSV_OK)
            check_utf8(f.message);
    }
    return 0;
}
