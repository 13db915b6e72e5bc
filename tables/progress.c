/*
 * progress.c - a one-line text progress bar for long table generations:
 * "[##########..........]  45% htm-phase1 12.3 s", redrawn in place with \r.
 *
 * Generators report progress from worker threads, possibly very often, so
 * updates take a lock and redraw at most every 100 ms; the elapsed time in
 * the line is what tells a user that a slow generation is still alive.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "qtab.h"

#define BAR_WIDTH 30
#define REDRAW_SECONDS 0.1

struct qtab_progress {
    pthread_mutex_t lock;
    FILE *out;
    char label[64];
    double start;
    double last_draw;
    double fraction;
    int drawn; /* length of the last line drawn, to blank its leftovers */
};

/* Caller holds p->lock. */
static void draw(qtab_progress *p, double now)
{
    char bar[BAR_WIDTH + 1];
    int filled = (int)(p->fraction * BAR_WIDTH);
    for (int i = 0; i < BAR_WIDTH; i++)
        bar[i] = i < filled ? '#' : '.';
    bar[BAR_WIDTH] = '\0';
    char line[160];
    int n = snprintf(line, sizeof line, "[%s] %3d%% %s %.1f s", bar,
                     (int)(p->fraction * 100.0), p->label, now - p->start);
    if (n < 0)
        return;
    if ((size_t)n >= sizeof line)
        n = (int)sizeof line - 1;
    int pad = p->drawn > n ? p->drawn - n : 0;
    fprintf(p->out, "\r%s%*s", line, pad, "");
    fflush(p->out);
    p->drawn = n;
    p->last_draw = now;
}

qtab_progress *qtab_progress_start(FILE *out, const char *label)
{
    qtab_progress *p = calloc(1, sizeof *p);
    if (p == NULL)
        return NULL;
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        free(p);
        return NULL;
    }
    p->out = out;
    snprintf(p->label, sizeof p->label, "%s", label != NULL ? label : "");
    p->start = qtab_now();
    pthread_mutex_lock(&p->lock);
    draw(p, p->start);
    pthread_mutex_unlock(&p->lock);
    return p;
}

void qtab_progress_update(qtab_progress *p, double fraction)
{
    if (p == NULL)
        return;
    /* The negated comparison also maps NaN to 0. */
    if (!(fraction > 0.0))
        fraction = 0.0;
    if (fraction > 1.0)
        fraction = 1.0;
    pthread_mutex_lock(&p->lock);
    p->fraction = fraction;
    double now = qtab_now();
    if (now - p->last_draw >= REDRAW_SECONDS)
        draw(p, now);
    pthread_mutex_unlock(&p->lock);
}

void qtab_progress_callback(void *ctx, double fraction)
{
    qtab_progress_update(ctx, fraction);
}

double qtab_progress_elapsed(const qtab_progress *p)
{
    /* start is written once before p is shared, so no lock is needed. */
    return p == NULL ? 0.0 : qtab_now() - p->start;
}

void qtab_progress_finish(qtab_progress *p, int clear)
{
    if (p == NULL)
        return;
    pthread_mutex_lock(&p->lock);
    if (clear) {
        fprintf(p->out, "\r%*s\r", p->drawn, "");
    } else {
        draw(p, qtab_now());
        fputc('\n', p->out);
    }
    fflush(p->out);
    pthread_mutex_unlock(&p->lock);
    pthread_mutex_destroy(&p->lock);
    free(p);
}
