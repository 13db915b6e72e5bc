/*
 * fuzz_cube.c - libFuzzer harness for the text a user or a robot gives
 * (solver/facelet.c, solver/notation.c, robot/notation.c): facelet
 * strings, move sequences and robot steps. Whatever parses must print and
 * parse back to the same thing; whatever does not must say why in a
 * message that is plain text (qs_text_quote: no control bytes).
 */
#include "quadsolve.h"
#include "robot.h"

#include <stdlib.h>
#include <string.h>

static void check_plain(const char *s)
{
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || (unsigned char)*s >= 0x7f)
            abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    char detail[256];

    qs_cube c, c2;
    if (qs_cube_from_facelets(text, &c, detail, sizeof detail) == QS_OK) {
        char f[55];
        qs_cube_to_facelets(&c, f);
        if (qs_cube_from_facelets(f, &c2, NULL, 0) != QS_OK ||
            memcmp(&c, &c2, sizeof c))
            abort();
    } else {
        check_plain(detail);
    }

    qs_move m[QS_MAX_MOVES], m2[QS_MAX_MOVES];
    int n = qs_moves_parse(text, m, QS_MAX_MOVES, detail, sizeof detail);
    if (n >= 0) {
        char out[QS_MAX_MOVES * 8];
        if (qs_moves_format(m, n, out, sizeof out) < 0 ||
            qs_moves_parse(out, m2, QS_MAX_MOVES, NULL, 0) != n ||
            memcmp(m, m2, (size_t)n))
            abort();
    } else if (n != QS_ERR_BUFFER) {
        check_plain(detail);
    }

    static robot_step s[ROBOT_MAX_STEPS], s2[ROBOT_MAX_STEPS];
    n = robot_steps_parse(text, s, ROBOT_MAX_STEPS, detail, sizeof detail);
    if (n >= 0) {
        static char out[ROBOT_MAX_STEPS * 20 + 1];
        if (robot_steps_format(s, n, out, sizeof out) < 0 ||
            robot_steps_parse(out, s2, ROBOT_MAX_STEPS, NULL, 0) != n ||
            memcmp(s, s2, sizeof *s * (size_t)n))
            abort();
    } else if (n != ROBOT_ERR_BUFFER) {
        check_plain(detail);
    }
    free(text);
    return 0;
}
