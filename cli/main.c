/*
 * main.c - entry point of the quadsolve command-line tool: dispatches to
 * the subcommands (solve, bench, random, tables, evaluate, compare) and
 * prints
 * help and version. Exit status 0 means success, 1 a failed input or
 * check, 2 a usage error, 130 an interrupt.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <string.h>

void cli_usage(FILE *out)
{
    fputs(
        "Usage: quadsolve COMMAND [OPTIONS]\n"
        "\n"
        "quadsolve solve [OPTIONS] [FACELETS...]\n"
        "  Solves each facelet string (54 letters URFDLB, faces in the\n"
        "  order U R F D L B) given as an argument or with --scramble;\n"
        "  with neither, reads one facelet string per line from standard\n"
        "  input. Prints exactly one line per input: the moves (an empty\n"
        "  line for a solved cube) or 'error: CODE: message'.\n"
        "    --metric htm|qtm|axht|axqt|robot  metric to minimise (default\n"
        "                       htm); robot: robot moves of a quad-arm robot\n"
        "    --profile NAME|PATH  robot timing profile (default, lego, servo\n"
        "                       or a JSON file; robot costs)\n"
        "    --objective moves|time  robot metric: fewest robot moves or\n"
        "                       least execution time (default moves)\n"
        "    --server ENDPOINT  ask the quadsolved daemon at ENDPOINT (e.g.\n"
        "                       tcp://127.0.0.1:5555) instead of solving here;\n"
        "                       the output is the same\n"
        "    --server-timeout-ms MS  with --server: how long to wait for the\n"
        "                       daemon beyond each request's own time limit,\n"
        "                       and for its first ping (default 5000)\n"
        "    --curve-server FILE --curve-key FILE  CURVE with --server: the\n"
        "                       daemon's public key and this client's secret\n"
        "                       key (files of quadsolved --keygen)\n"
        "    --time-ms T        search time per cube in ms, 0 = no limit\n"
        "                       (default 10)\n"
        "    --max-nodes N      also stop, like --time-ms, after N search\n"
        "                       nodes (local two-phase searches; with\n"
        "                       --threads 1 the same search on any machine)\n"
        "    --max-len L|none   stop at the first solution of length <= L\n"
        "                       (default none)\n"
        "    --solutions N      best solutions to find (1-16), listed with --json\n"
        "                       (default 1)\n"
        "    --threads N        search threads (default: online CPUs)\n"
        "    --optimal          a shortest solution (htm or qtm; seconds to\n"
        "                       minutes per cube; robot: fewest robot moves,\n"
        "                       short scrambles only), one progress line per\n"
        "                       length on stderr; --time-ms is ignored\n"
        "    --all              with --optimal: every optimal solution, one\n"
        "                       line each as found, commuting opposite-face\n"
        "                       pairs once, in parentheses: \"(U D') R2\"\n"
        "    --table-size S     the tables' size: for --optimal in HTM,\n"
        "                       h48h7 (default; 3.84 GB in all, generated\n"
        "                       once in about four minutes; the exact H48\n"
        "                       table with edge orientation), xl (2.47 GB\n"
        "                       beside the two-phase tables), large (845 MB\n"
        "                       more), large+h48, h48 (173 MB more), compact\n"
        "                       (211 MB in all) or small (no more: slow);\n"
        "                       in QTM h48h7, xl and large are the large set,\n"
        "                       the others the small one; h48h7 and compact\n"
        "                       serve --optimal only (a two-phase solve uses\n"
        "                       the small set). For --metric robot: small,\n"
        "                       h48 and compact take the small robot set\n"
        "                       (734 MB), medium the 862 MB one, the others\n"
        "                       the large one (3.12 GB, several times\n"
        "                       faster)\n"
        "    --keep-warm MS     while solving, read one byte of each 2 MiB\n"
        "                       table page every MS ms (default 50; 0 =\n"
        "                       never), so that a cube read after a pause\n"
        "                       is solved as fast as one in a run where idle\n"
        "                       pages go cold (docs/tables.md)\n"
        "    --json             one JSON object per input\n"
        "    --shard K/N        only every N-th input from the K-th (0-based)\n"
        "    --scramble MOVES   solve the cube MOVES produce, e.g.\n"
        "                       \"R U2 F' (U D')\" (may be repeated)\n"
        "\n"
        "quadsolve bench FILE [OPTIONS]\n"
        "  Solves every facelet string of FILE ('-' for standard input;\n"
        "  blank lines and '#' comments skipped), verifies each solution\n"
        "  and prints failures, lengths, times and the length distribution.\n"
        "    --metric M, --time-ms T, --max-len L, --max-nodes N, --threads N,\n"
        "    --keep-warm MS     as for solve;\n"
        "                       M and T may be lists (htm,robot 10,100): one\n"
        "                       run per combination\n"
        "    --limit K          only the first K cubes\n"
        "    --shard K/N        only every N-th cube from the K-th (0-based)\n"
        "    --html OUT         also write the HTML report of the run\n"
        "                       (as compare --html draws it)\n"
        "\n"
        "quadsolve bench-server FILE [OPTIONS]\n"
        "  Solves the cubes of FILE through a quadsolved daemon with N\n"
        "  concurrent clients; prints throughput, round trips and the\n"
        "  daemon's overhead (docs/benchmarks.md).\n"
        "    --server ENDPOINT  the daemon (default tcp://127.0.0.1:5555)\n"
        "    --clients N        concurrent clients (default 1)\n"
        "    --metric M, --time-ms T, --max-len L, --profile P, --limit K\n"
        "    --compare          also solve each cube in-process first and\n"
        "                       report the round trip minus that time\n"
        "    --threads N        threads of the in-process solves\n"
        "\n"
        "quadsolve random N [--seed S]\n"
        "  Prints N uniformly random solvable cubes as facelet strings.\n"
        "\n"
        "quadsolve tables generate|verify|info [--metric M|all] "
        "[--threads N] [--force]\n"
        "                [--optimal small|large|xl|h48|large+h48|compact|h48h7]\n"
        "                [--robot small|medium|large]\n"
        "  generate: loads each table, building those missing or damaged\n"
        "  (--force: builds all again); verify: checks every byte; info:\n"
        "  lists the tables and checks their headers. Default all metrics.\n"
        "  --optimal and --robot choose the sizes (default small and large):\n"
        "  verify and info fail when a table those sizes use is missing.\n"
        "  Tables live in $QUADSOLVE_TABLES, else $XDG_CACHE_HOME/quadsolve,\n"
        "  else ~/.cache/quadsolve.\n"
        "\n"
        "quadsolve evaluate [OPTIONS] [MOVES...]\n"
        "  Plans how a quad-arm robot executes the cube-frame MOVES (any\n"
        "  metric, pairs allowed): tilts, parallel and full regrips, and\n"
        "  checks the plan step by step. Without MOVES, reads lines\n"
        "  'FACELETS MOVES' or 'MOVES' from standard input. Prints one line\n"
        "  per input: robot_moves=N ... cost_ms=T: STEPS, or 'error: ...'.\n"
        "  Robot steps: R (R L') turns, tRL tFB tilts, +rF a regrip beside\n"
        "  a step, rF alone a full regrip (see docs/robot-model.md).\n"
        "    --profile NAME|PATH  timing: default, lego, servo or a JSON\n"
        "                       file (default: default)\n"
        "    --objective moves|time  fewest robot moves first, or least\n"
        "                       time first (default moves)\n"
        "    --facelets F       the cube the moves must solve (default: the\n"
        "                       cube they solve, i.e. their inverse)\n"
        "    --scramble S       the cube S makes from the solved cube\n"
        "    --robot            MOVES are a robot-frame plan in robot\n"
        "                       notation (another solver's); it is checked\n"
        "                       as written and its turns planned again\n"
        "    --json             one JSON object per input\n"
        "\n"
        "quadsolve compare CUBES LABEL=FILE... [OPTIONS]\n"
        "quadsolve compare --merge FILE... [--json|--csv] [--html OUT]\n"
        "  Compares solutions of the cubes of CUBES (one facelet string per\n"
        "  line) by several solvers: each FILE has one line per cube, in\n"
        "  quadsolve's output (text or --json), plain face turns (an\n"
        "  optional count like \"(20f)\" is ignored) or qphase's robot-frame\n"
        "  lines. Every solution is applied to its cube and planned for the\n"
        "  robot; a wrong one is reported by file and line, not counted.\n"
        "    --profile NAME|PATH  plan under this profile (repeatable;\n"
        "                       default: default)\n"
        "    --objective moves|time  what the planner minimises\n"
        "    --json | --csv     per cube, instead of the summary\n"
        "    --html OUT         also write a self-contained HTML report\n"
        "    --title TEXT       the report's title\n"
        "    --timeline N       draw the arm timelines of cube N (1-based,\n"
        "                       repeatable) instead of each solver's median\n"
        "                       and slowest cube\n"
        "    --shard K/N        only every N-th cube from the K-th (0-based);\n"
        "                       join the --json outputs with --merge\n"
        "    --shard-input LABEL  LABEL's file holds only this shard's\n"
        "                       lines (solve --shard K/N output)\n"
        "\n"
        "quadsolve --server ENDPOINT [SOLVE OPTIONS] [FACELETS...]\n"
        "  Short for 'quadsolve solve --server ENDPOINT ...'.\n"
        "\n"
        "quadsolve --help | --version\n"
        "\n"
        "Move notation: U R F D L B with '' (quarter turn clockwise), '2' or\n"
        "\"'\" (counter-clockwise); \"(U D')\" turns two opposite faces at once.\n"
        "Exit status: 0 success, 1 an input failed, 2 usage error,\n"
        "130 interrupted.\n",
        out);
}

int main(int argc, char **argv)
{
    if (argc < 2) {
        cli_usage(stderr);
        return CLI_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (strcmp(cmd, "--help") == 0 || strcmp(cmd, "-h") == 0 ||
        strcmp(cmd, "help") == 0) {
        cli_usage(stdout);
        return CLI_EXIT_OK;
    }
    if (strcmp(cmd, "--version") == 0) {
        printf("quadsolve %s\n", QS_VERSION);
        return CLI_EXIT_OK;
    }
    /* "quadsolve solve --help" and the like. */
    for (int i = 2; i < argc; i++) {
        if (strcmp(argv[i], "--") == 0)
            break;
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            cli_usage(stdout);
            return CLI_EXIT_OK;
        }
    }
    /* "quadsolve --server EP ..." is solve with the option in place: argv
     * from the option on becomes solve's arguments, its name "--server"
     * standing in for the subcommand name. */
    if (strncmp(cmd, "--server", 8) == 0 && (cmd[8] == '\0' || cmd[8] == '='))
        return cmd_solve(argc, argv);
    if (strcmp(cmd, "bench-server") == 0)
        return cmd_bench_server(argc - 1, argv + 1);
    if (strcmp(cmd, "solve") == 0)
        return cmd_solve(argc - 1, argv + 1);
    if (strcmp(cmd, "bench") == 0)
        return cmd_bench(argc - 1, argv + 1);
    if (strcmp(cmd, "random") == 0)
        return cmd_random(argc - 1, argv + 1);
    if (strcmp(cmd, "tables") == 0)
        return cmd_tables(argc - 1, argv + 1);
    if (strcmp(cmd, "evaluate") == 0)
        return cmd_evaluate(argc - 1, argv + 1);
    if (strcmp(cmd, "compare") == 0)
        return cmd_compare(argc - 1, argv + 1);
    cli_usage_error("unknown command '%s'", cmd);
}
