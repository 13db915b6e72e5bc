/*
 * random_cmd.c - `quadsolve random N [--seed S]`: prints N uniformly random
 * solvable cubes as facelet strings, one per line. A given seed always gives
 * the same cubes; without one the seed comes from the clock and process id.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* splitmix64: spreads nearby seeds (1, 2, 3 ...) over the whole state
 * space, which xorshift alone would not. */
static uint64_t mix(uint64_t x)
{
    x += 0x9E3779B97F4A7C15ULL;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ULL;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBULL;
    return x ^ (x >> 31);
}

int cmd_random(int argc, char **argv)
{
    const char *count_arg = NULL, *seed_arg = NULL, *v;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (cli_opt(argc, argv, &i, "--seed", &v))
            seed_arg = v;
        else if (a[0] == '-')
            cli_usage_error("random: unknown option '%s'", a);
        else if (!count_arg)
            count_arg = a;
        else
            cli_usage_error("random: unexpected argument '%s'", a);
    }
    if (!count_arg)
        cli_usage_error("random: expected the number of cubes N");
    long n = cli_parse_long("random N", count_arg, 0, 1000000000L);

    uint64_t seed;
    if (seed_arg) {
        char *end;
        errno = 0;
        unsigned long long s = strtoull(seed_arg, &end, 0);
        if (*seed_arg == '\0' || *seed_arg == '-' || *end != '\0' ||
            errno == ERANGE)
            cli_usage_error("--seed: '%s' is not an unsigned 64-bit number",
                            seed_arg);
        seed = (uint64_t)s;
    } else {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        seed = (uint64_t)ts.tv_sec * 1000000007ULL ^ (uint64_t)ts.tv_nsec ^
               ((uint64_t)getpid() << 32);
    }
    uint64_t state = mix(seed);
    if (state == 0)
        state = 1;

    for (long i = 0; i < n; i++) {
        qs_cube c;
        char s[55];
        qs_cube_random(&c, &state);
        qs_cube_to_facelets(&c, s);
        if (puts(s) < 0)
            return CLI_EXIT_FAIL; /* e.g. a closed pipe */
    }
    return fflush(stdout) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAIL;
}
