/*
 * fuzz_profile.c - libFuzzer harness for timing profiles
 * (robot/profile.c): any text is a profile or a specific error; a profile
 * prints (robot_profile_to_json) and parses back to itself, and its
 * durations are finite and within the documented range (the derived one
 * finite).
 */
#include "robot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    char *text = malloc(size + 1);
    if (!text)
        return 0;
    memcpy(text, data, size);
    text[size] = '\0';
    robot_profile p, back;
    char detail[256];
    int rc = robot_profile_parse(text, &p, detail, sizeof detail);
    if (rc == ROBOT_OK) {
        /* The inputs within the documented range; the derived
         * regrip_parallel_ms (a regrip's open, rotation and close beyond
         * a turn) only finite, as it may exceed it. */
        const double *d = &p.quarter_ms;
        for (int i = 0; i < 10; i++)
            if (!isfinite(d[i]) || d[i] < 0 ||
                (&d[i] != &p.regrip_parallel_ms &&
                 d[i] > ROBOT_PROFILE_MAX_MS))
                abort();
        char json[2048];
        if (robot_profile_to_json(&p, json, sizeof json) < 0 ||
            robot_profile_parse(json, &back, NULL, 0) != ROBOT_OK ||
            memcmp(&p, &back, sizeof p))
            abort();
    } else if (rc > ROBOT_ERR_PROFILE_JSON + 1 ||
               rc < ROBOT_ERR_PROFILE_MISSING) {
        abort(); /* only the profile errors */
    }
    free(text);
    return 0;
}
