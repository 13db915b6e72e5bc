/*
 * cachedir.c - where table files live: the cache directory resolution
 * ($QUADSOLVE_TABLES, $XDG_CACHE_HOME/quadsolve, $HOME/.cache/quadsolve).
 *
 * No solver dependency, so the file-format tests can exercise it alone.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "qtab.h"

/* Unset and empty mean the same, so `QUADSOLVE_TABLES= cmd` falls back. */
static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : NULL;
}

int qtab_cache_dir(char *buf, size_t len)
{
    if (buf == NULL || len == 0)
        return QTAB_ERR_ARGUMENT;
    const char *v;
    int n;
    if ((v = env("QUADSOLVE_TABLES")) != NULL) {
        n = snprintf(buf, len, "%s", v);
    } else if ((v = env("XDG_CACHE_HOME")) != NULL && v[0] == '/') {
        /* The XDG spec says relative values are invalid and to be ignored. */
        n = snprintf(buf, len, "%s/quadsolve", v);
    } else if ((v = env("HOME")) != NULL) {
        n = snprintf(buf, len, "%s/.cache/quadsolve", v);
    } else {
        buf[0] = '\0';
        errno = ENOENT;
        return QTAB_ERR_CACHE_DIR;
    }
    if (n < 0 || (size_t)n >= len) {
        buf[0] = '\0';
        return QTAB_ERR_ARGUMENT;
    }
    /* Trailing slashes would only double up in the file names. */
    while (n > 1 && buf[n - 1] == '/')
        buf[--n] = '\0';
    return qtab_mkdirs(buf);
}
