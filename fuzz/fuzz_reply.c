/*
 * fuzz_reply.c - libFuzzer harness for daemon replies as a client reads
 * them (service/reply.c): whatever a peer sends, qsv_reply_parse returns
 * QSV_OK or PROTOCOL without undefined behaviour, and a result it accepts
 * prints again (qsv_reply_result) into a reply it accepts too.
 */
#include "qsservice.h"

#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static qsv_result res, again;
    qsv_reply_type type;
    char id[QSV_MAX_ID + 1];
    qsv_progress p;
    qsv_failure f = {0, "", ""};
    int rc = qsv_reply_parse((const char *)data, size, &type, id, &res, &p,
                             &f);
    if (rc != QSV_OK) {
        if (rc != QSV_ERR_PROTOCOL)
            abort();
        return 0;
    }
    if (type == QSV_REPLY_RESULT) {
        char *text = qsv_reply_result(id, &res);
        if (text) {
            qsv_reply_type t2;
            char id2[QSV_MAX_ID + 1];
            if (qsv_reply_parse(text, strlen(text), &t2, id2, &again, NULL,
                                &f) != QSV_OK ||
                t2 != QSV_REPLY_RESULT || again.n != res.n)
                abort();
            qsv_free(text);
        }
    }
    return 0;
}
