/*
 * report.c - the HTML report of `quadsolve compare --html` and
 * `quadsolve bench --html`: one self-contained file (inline CSS and SVG,
 * no script, nothing fetched), readable offline and printable. It shows
 * per solver the distribution of robot moves and execution time under each
 * profile, histograms, pairwise wins, a scatter of time against moves, and
 * the arm timeline of chosen cubes: what each gripper does when, as the
 * robot's primitive steps are timed under the profile (robot_expand,
 * robot_prims_us), with the tilts and the face on top marked.
 *
 * Elements carry classes the tests count (bar, point, gantt-op), so what
 * is drawn is checked, not only that the file exists.
 */
#define _POSIX_C_SOURCE 200809L

#include "cli.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static const char *const palette[] = {"#1f77b4", "#d62728", "#2ca02c",
                                      "#ff7f0e", "#9467bd", "#8c564b",
                                      "#e377c2", "#7f7f7f", "#bcbd22",
                                      "#17becf"};
#define COLOR(i) palette[(i) % (int)(sizeof palette / sizeof palette[0])]

/* Text into HTML: the five characters that could end an element or an
 * attribute are escaped, everything else goes as it is (UTF-8). */
static void esc(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '"': fputs("&quot;", f); break;
        case '\'': fputs("&#39;", f); break;
        default: fputc(*s, f);
        }
    }
}

static void stats_table(FILE *f, const cmp_data *d, int p)
{
    fprintf(f, "<table class=\"stats\"><tr><th>solver</th><th>solved</th>"
               "<th>HTM mean</th><th colspan=4>robot moves: mean, median, "
               "p90, max</th><th colspan=4>cost_ms: mean, median, p90, "
               "max</th></tr>\n");
    for (int l = 0; l < d->n_labels; l++) {
        cmp_stats h, m, c;
        cmp_stats_of(d, l, -1, 0, &h);
        cmp_stats_of(d, l, p, 0, &m);
        cmp_stats_of(d, l, p, 1, &c);
        fprintf(f, "<tr><td><span class=\"key\" style=\"background:%s\">"
                   "</span>",
                COLOR(l));
        esc(f, d->labels[l]);
        fprintf(f, "</td><td>%d of %d</td><td>%.3f</td><td>%.3f</td>"
                   "<td>%.0f</td><td>%.0f</td><td>%.0f</td><td>%.1f</td>"
                   "<td>%.1f</td><td>%.1f</td><td>%.1f</td></tr>\n",
                h.n, d->n_rows, h.mean, m.mean, m.median, m.p90, m.max,
                c.mean, c.median, c.p90, c.max);
    }
    fputs("</table>\n", f);
}

/* Grouped bars: for each robot-move count, one bar per solver. */
static void histogram(FILE *f, const cmp_data *d, int p)
{
    int lo = 1 << 30, hi = -1;
    for (int i = 0; i < d->n_rows; i++)
        for (int l = 0; l < d->n_labels; l++) {
            const cmp_entry *e = &d->rows[i].e[l];
            if (!e->ok)
                continue;
            int x = e->robot[p].robot_moves;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
        }
    if (hi < 0)
        return;
    int span = hi - lo + 1, peak = 1;
    int *count = calloc((size_t)span * (size_t)d->n_labels, sizeof *count);
    if (!count)
        return;
    for (int i = 0; i < d->n_rows; i++)
        for (int l = 0; l < d->n_labels; l++) {
            const cmp_entry *e = &d->rows[i].e[l];
            if (!e->ok)
                continue;
            int *c = &count[(e->robot[p].robot_moves - lo) * d->n_labels + l];
            if (++*c > peak)
                peak = *c;
        }
    const int W = 720, H = 260, L = 50, B = 30, T = 10;
    double group = (double)(W - L - 10) / span;
    double bw = group * 0.8 / d->n_labels;
    fprintf(f, "<svg class=\"hist\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\">\n",
            W, H, W, H);
    fprintf(f, "<line x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\" "
               "stroke=\"#444\"/>\n",
            L, H - B, W - 10, H - B);
    for (int k = 0; k < span; k++) {
        double gx = L + k * group;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"11\" "
                   "text-anchor=\"middle\">%d</text>\n",
                gx + group / 2, H - B + 14, lo + k);
        for (int l = 0; l < d->n_labels; l++) {
            int c = count[k * d->n_labels + l];
            double h = (double)(H - B - T) * c / peak;
            fprintf(f, "<rect class=\"bar\" x=\"%.1f\" y=\"%.1f\" "
                       "width=\"%.1f\" height=\"%.1f\" fill=\"%s\">"
                       "<title>",
                    gx + group * 0.1 + l * bw, H - B - h, bw, h, COLOR(l));
            esc(f, d->labels[l]);
            fprintf(f, ": %d cubes with %d robot moves</title></rect>\n", c,
                    lo + k);
        }
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%d</text>\n", 5,
            T + 10, peak);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
               "text-anchor=\"middle\">robot moves</text>\n",
            (W + L) / 2, H - 2);
    fputs("</svg>\n", f);
    free(count);
}

static void scatter(FILE *f, const cmp_data *d, int p)
{
    double xmin = 1e300, xmax = -1, ymin = 1e300, ymax = -1;
    for (int i = 0; i < d->n_rows; i++)
        for (int l = 0; l < d->n_labels; l++) {
            const cmp_entry *e = &d->rows[i].e[l];
            if (!e->ok)
                continue;
            double x = e->robot[p].robot_moves, y = e->robot[p].cost_ms;
            xmin = fmin(xmin, x);
            xmax = fmax(xmax, x);
            ymin = fmin(ymin, y);
            ymax = fmax(ymax, y);
        }
    if (xmax < 0)
        return;
    if (xmax == xmin)
        xmax = xmin + 1;
    if (ymax == ymin)
        ymax = ymin + 1;
    const int W = 720, H = 320, L = 60, B = 30, T = 10, R = 10;
    fprintf(f, "<svg class=\"scatter\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\">\n",
            W, H, W, H);
    fprintf(f, "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" "
               "fill=\"none\" stroke=\"#444\"/>\n",
            L, T, W - L - R, H - T - B);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.0f</text>"
               "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.0f</text>\n",
            2, H - B, ymin, 2, T + 10, ymax);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\">%.0f</text>"
               "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
               "text-anchor=\"end\">%.0f</text>\n",
            L, H - B + 14, xmin, W - R, H - B + 14, xmax);
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
               "text-anchor=\"middle\">robot moves (jittered) against "
               "cost_ms</text>\n",
            (W + L) / 2, H - 2);
    for (int i = 0; i < d->n_rows; i++)
        for (int l = 0; l < d->n_labels; l++) {
            const cmp_entry *e = &d->rows[i].e[l];
            if (!e->ok)
                continue;
            /* A fixed jitter per cube and solver spreads the integer
             * columns without randomness: the report is reproducible. */
            double jit = ((i * 37 + l * 11) % 21 - 10) / 40.0;
            double x = L + (W - L - R) *
                               (e->robot[p].robot_moves + jit - xmin + 0.5) /
                               (xmax - xmin + 1);
            double y = H - B - (H - T - B) * (e->robot[p].cost_ms - ymin) /
                                   (ymax - ymin);
            fprintf(f, "<circle class=\"point\" cx=\"%.1f\" cy=\"%.1f\" "
                       "r=\"2.2\" fill=\"%s\" fill-opacity=\"0.6\"><title>"
                       "cube %d, ",
                    x, y, COLOR(l), d->rows[i].cube + 1);
            esc(f, d->labels[l]);
            fprintf(f, ": %d moves, %.1f ms</title></circle>\n",
                    e->robot[p].robot_moves, e->robot[p].cost_ms);
        }
    fputs("</svg>\n", f);
}

static void pairwise(FILE *f, const cmp_data *d, int p)
{
    if (d->n_labels < 2)
        return;
    fprintf(f, "<h3>Pairwise, robot moves under %s</h3>\n<p>Each cell: "
               "cubes where the row's solver needs fewer robot moves than "
               "the column's / as many / more (cubes both solved).</p>\n"
               "<table class=\"pairs\"><tr><th></th>",
            d->profiles[p].name);
    for (int b = 0; b < d->n_labels; b++) {
        fputs("<th>", f);
        esc(f, d->labels[b]);
        fputs("</th>", f);
    }
    fputs("</tr>\n", f);
    for (int a = 0; a < d->n_labels; a++) {
        fputs("<tr><th>", f);
        esc(f, d->labels[a]);
        fputs("</th>", f);
        for (int b = 0; b < d->n_labels; b++) {
            if (a == b) {
                fputs("<td>-</td>", f);
                continue;
            }
            long w = 0, t = 0, lo = 0;
            for (int i = 0; i < d->n_rows; i++) {
                const cmp_entry *x = &d->rows[i].e[a], *y = &d->rows[i].e[b];
                if (!x->ok || !y->ok)
                    continue;
                int dx = x->robot[p].robot_moves, dy = y->robot[p].robot_moves;
                w += dx < dy;
                t += dx == dy;
                lo += dx > dy;
            }
            fprintf(f, "<td>%ld / %ld / %ld</td>", w, t, lo);
        }
        fputs("</tr>\n", f);
    }
    fputs("</table>\n", f);
}

static const char *action_name(int a)
{
    switch (a) {
    case ROBOT_ACT_CW: return "+90";
    case ROBOT_ACT_CCW: return "-90";
    case ROBOT_ACT_HALF: return "180";
    case ROBOT_ACT_OPEN: return "open";
    case ROBOT_ACT_CLOSE: return "close";
    case ROBOT_ACT_REGRIP_CW: return "regrip +90";
    case ROBOT_ACT_REGRIP_CCW: return "regrip -90";
    case ROBOT_ACT_TILT_CW: return "tilt +90";
    case ROBOT_ACT_TILT_CCW: return "tilt -90";
    default: return "";
    }
}

static const char *action_color(int a, int tilt)
{
    if (a == ROBOT_ACT_TILT_CW || a == ROBOT_ACT_TILT_CCW ||
        (tilt && (a == ROBOT_ACT_CW || a == ROBOT_ACT_CCW)))
        return "#9467bd"; /* turning the whole cube */
    switch (a) {
    case ROBOT_ACT_REGRIP_CW:
    case ROBOT_ACT_REGRIP_CCW: return "#ff7f0e";
    case ROBOT_ACT_CW:
    case ROBOT_ACT_CCW:
    case ROBOT_ACT_HALF: return "#1f77b4";
    case ROBOT_ACT_OPEN: return "#ffbb78";
    case ROBOT_ACT_CLOSE: return "#98df8a";
    default: return "#ccc";
    }
}

/* The arm timeline of one solution under profile p: a Gantt chart with a
 * row per gripper; each primitive's actions start together and it lasts
 * as long as its longest motion (robot_prims_us). */
static void timeline(FILE *f, const cmp_data *d, const cmp_row *r, int l,
                     int p, const char *why)
{
    const cmp_entry *e = &r->e[l];
    robot_schedule plan;
    static robot_prim prims[ROBOT_MAX_PRIMS];
    static int64_t us[ROBOT_MAX_PRIMS];
    char detail[128];
    if (robot_plan(&d->model, &d->profiles[p], d->objective, e->moves, e->n,
                   &plan) != ROBOT_OK)
        return;
    int n = robot_expand(plan.steps, plan.n, prims, ROBOT_MAX_PRIMS, detail,
                         sizeof detail);
    if (n < 0 || robot_prims_us(&d->profiles[p], prims, n, us) != ROBOT_OK)
        return;
    int64_t total = 0;
    for (int i = 0; i < n; i++)
        total += us[i];
    if (total <= 0)
        total = 1;
    char steps[ROBOT_MAX_STEPS * 20 + 1];
    if (robot_steps_format(plan.steps, plan.n, steps, sizeof steps) < 0)
        steps[0] = '\0';
    fprintf(f, "<h3>Arm timeline: cube %d, %s (", r->cube + 1, why);
    esc(f, d->labels[l]);
    fprintf(f, ", profile %s)</h3>\n<p>%d robot moves, %.1f ms planned "
               "(%d primitive steps, %.1f ms as expanded); plan: <code>",
            d->profiles[p].name, plan.robot_moves, plan.cost_ms, n,
            (double)total / 1000.0);
    esc(f, steps);
    fputs("</code></p>\n", f);

    const int W = 900, L = 40, R = 10, T = 22, ROW = 26, H = T + 4 * ROW + 30;
    double scale = (double)(W - L - R) / (double)total;
    fprintf(f, "<svg class=\"gantt\" width=\"%d\" height=\"%d\" "
               "viewBox=\"0 0 %d %d\" role=\"img\">\n",
            W, H, W, H);
    static const char *const grip[ROBOT_GRIPPERS] = {"R", "L", "F", "B"};
    for (int g = 0; g < ROBOT_GRIPPERS; g++)
        fprintf(f, "<text x=\"5\" y=\"%d\" font-size=\"12\">%s</text>\n",
                T + g * ROW + 17, grip[g]);
    /* The cube's orientation: which face is on top, marked where it
     * changes (after each tilt). */
    robot_sim sim;
    qs_cube cube;
    qs_cube_from_facelets(r->facelets, &cube, NULL, 0);
    robot_sim_init(&sim, &cube);
    static const char faces[] = "URFDLB";
    fprintf(f, "<text x=\"%d\" y=\"12\" font-size=\"11\">top: %c</text>\n", L,
            faces[robot_sim_face_at(&sim, 0)]);
    int64_t t = 0;
    int last_step = -1;
    for (int i = 0; i < n; i++) {
        const robot_prim *pr = &prims[i];
        int tilt = plan.steps[pr->step].kind == ROBOT_STEP_TILT;
        double x = L + scale * (double)t, w = scale * (double)us[i];
        for (int g = 0; g < ROBOT_GRIPPERS; g++) {
            int a = pr->action[g];
            if (a == ROBOT_ACT_NONE)
                continue;
            fprintf(f, "<rect class=\"gantt-op\" x=\"%.2f\" y=\"%d\" "
                       "width=\"%.2f\" height=\"%d\" fill=\"%s\" "
                       "stroke=\"#fff\" stroke-width=\"0.5\"><title>%s %s, "
                       "%.1f ms at %.1f ms (step %d%s)</title></rect>\n",
                    x, T + g * ROW + 3, w > 0.5 ? w : 0.5, ROW - 6,
                    action_color(a, tilt), grip[g], action_name(a),
                    (double)us[i] / 1000.0, (double)t / 1000.0, pr->step + 1,
                    tilt ? ", tilt" : "");
        }
        t += us[i];
        if (pr->step != last_step && pr->role == ROBOT_PRIM_MOTION) {
            last_step = pr->step;
            int safe;
            robot_sim_step(&sim, &plan.steps[pr->step], &safe, NULL, 0);
            if (tilt) {
                double xe = L + scale * (double)t;
                fprintf(f, "<line class=\"tilt\" x1=\"%.2f\" y1=\"16\" "
                           "x2=\"%.2f\" y2=\"%d\" stroke=\"#9467bd\" "
                           "stroke-dasharray=\"3,2\"/><text x=\"%.2f\" "
                           "y=\"12\" font-size=\"11\">top: %c</text>\n",
                        xe, xe, T + 4 * ROW, xe + 2,
                        faces[robot_sim_face_at(&sim, 0)]);
            }
        }
    }
    for (int s = 0; s <= 10; s++) {
        double x = L + (W - L - R) * s / 10.0;
        fprintf(f, "<text x=\"%.1f\" y=\"%d\" font-size=\"10\" "
                   "text-anchor=\"middle\">%.0f</text>\n",
                x, T + 4 * ROW + 14, (double)total / 1000.0 * s / 10.0);
    }
    fprintf(f, "<text x=\"%d\" y=\"%d\" font-size=\"11\" "
               "text-anchor=\"middle\">ms</text>\n",
            (W + L) / 2, H - 2);
    fputs("</svg>\n<p class=\"legend\"><span class=\"key\" "
          "style=\"background:#1f77b4\"></span>turn "
          "<span class=\"key\" style=\"background:#9467bd\"></span>tilt "
          "<span class=\"key\" style=\"background:#ffbb78\"></span>open "
          "<span class=\"key\" style=\"background:#98df8a\"></span>close "
          "<span class=\"key\" style=\"background:#ff7f0e\"></span>regrip "
          "(open, rotate, close in one step)</p>\n",
          f);
}

/* The cube whose cost under profile p for label l is the median (which
 * 1) or the largest (which 2); -1 when none is solved. */
static int pick_cube(const cmp_data *d, int l, int p, int which)
{
    int n = 0, best = -1;
    int *idx = malloc(sizeof *idx * (size_t)(d->n_rows ? d->n_rows : 1));
    if (!idx)
        return -1;
    for (int i = 0; i < d->n_rows; i++)
        if (d->rows[i].e[l].ok)
            idx[n++] = i;
    /* Insertion by cost keeps it simple and stable; reports are built
     * once, and n is at most the cubes of one study. */
    for (int a = 1; a < n; a++)
        for (int b = a; b > 0 && d->rows[idx[b]].e[l].robot[p].cost_ms <
                                     d->rows[idx[b - 1]].e[l].robot[p].cost_ms;
             b--) {
            int tmp = idx[b];
            idx[b] = idx[b - 1];
            idx[b - 1] = tmp;
        }
    if (n > 0)
        best = which == 1 ? idx[(n - 1) / 2] : idx[n - 1];
    free(idx);
    return best;
}

int cmp_report_html(const cmp_data *d, const char *title, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return -1;
    char when[64];
    time_t now = time(NULL);
    strftime(when, sizeof when, "%Y-%m-%d %H:%M UTC", gmtime(&now));
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
          "<title>",
          f);
    esc(f, title);
    fputs("</title>\n<style>\nbody{font-family:sans-serif;margin:2em;"
          "max-width:960px;color:#222}\ntable{border-collapse:collapse;"
          "margin:0.5em 0 1.5em}\ntd,th{border:1px solid #ccc;padding:3px "
          "8px;text-align:right}\nth:first-child,td:first-child{text-align:"
          "left}\n.key{display:inline-block;width:10px;height:10px;"
          "margin-right:5px}\ncode{font-size:12px;word-break:break-all}\n"
          "svg{display:block;margin:0.5em 0 1.5em}\n</style></head><body>\n"
          "<h1>",
          f);
    esc(f, title);
    fprintf(f, "</h1>\n<p>%d cubes, %d solvers, planner objective %s, "
               "made %s by quadsolve %s. Every solution was applied to its "
               "cube and its robot plan replayed by the checker; solutions "
               "that did not parse or did not solve their cube are not "
               "counted (the solved column says how many were).</p>\n",
            d->n_rows, d->n_labels,
            d->objective == ROBOT_OBJ_TIME ? "time" : "moves", when,
            QS_VERSION);
    for (int p = 0; p < d->n_profiles; p++) {
        fprintf(f, "<h2>Profile %s</h2>\n", d->profiles[p].name);
        stats_table(f, d, p);
        fputs("<h3>Robot moves per cube</h3>\n", f);
        histogram(f, d, p);
        fputs("<h3>Execution time against robot moves</h3>\n", f);
        scatter(f, d, p);
        pairwise(f, d, p);
    }
    fputs("<h2>Arm timelines</h2>\n", f);
    for (int t = 0; t < d->n_timeline; t++)
        for (int i = 0; i < d->n_rows; i++) {
            if (d->rows[i].cube != d->timeline[t])
                continue;
            for (int l = 0; l < d->n_labels; l++) {
                if (d->rows[i].e[l].ok) {
                    timeline(f, d, &d->rows[i], l, 0, "chosen");
                    continue;
                }
                fprintf(f, "<p>Cube %d: ", d->timeline[t] + 1);
                esc(f, d->labels[l]);
                fputs(" has no solution of it (", f);
                esc(f, d->rows[i].e[l].error);
                fputs(").</p>\n", f);
            }
        }
    for (int l = 0; l < d->n_labels && d->n_timeline == 0; l++) {
        int med = pick_cube(d, l, 0, 1), worst = pick_cube(d, l, 0, 2);
        if (med >= 0)
            timeline(f, d, &d->rows[med], l, 0, "the median by cost");
        if (worst >= 0 && worst != med)
            timeline(f, d, &d->rows[worst], l, 0, "the slowest");
    }
    fputs("</body></html>\n", f);
    return fclose(f) == 0 ? 0 : -1;
}
