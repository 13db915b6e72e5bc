/*
 * error.c - messages and stable identifiers for qtab_error codes.
 *
 * Kept in its own file so that programs using only the file layer (the
 * file-format tests, for one) do not pull in the solver-facing code.
 */
#include "qtab.h"

static const struct {
    int code;
    const char *id;
    const char *message;
} errors[] = {
    {QTAB_OK, "OK", "success"},
    {QTAB_ERR_IO, "IO", "input/output error"},
    {QTAB_ERR_NOT_FOUND, "NOT_FOUND", "table file not found"},
    {QTAB_ERR_TRUNCATED, "TRUNCATED", "table file is truncated"},
    {QTAB_ERR_MAGIC, "MAGIC", "not a quadsolve table file (bad magic)"},
    {QTAB_ERR_VERSION, "VERSION", "unsupported table file format version"},
    {QTAB_ERR_ENDIAN, "ENDIAN",
     "table file was written on a machine of other byte order"},
    {QTAB_ERR_HEADER_CHECKSUM, "HEADER_CHECKSUM",
     "table file header is damaged (header checksum mismatch)"},
    {QTAB_ERR_KIND, "KIND", "table file holds another kind of table"},
    {QTAB_ERR_METRIC, "METRIC", "table file is for another metric"},
    {QTAB_ERR_SIZE, "SIZE", "table file size or entry count is not as expected"},
    {QTAB_ERR_CHECKSUM, "CHECKSUM",
     "table file payload is damaged (checksum mismatch)"},
    {QTAB_ERR_NOMEM, "NOMEM", "out of memory"},
    {QTAB_ERR_GENERATE, "GENERATE", "table generation failed"},
    {QTAB_ERR_CACHE_DIR, "CACHE_DIR", "no usable table cache directory"},
    {QTAB_ERR_ARGUMENT, "ARGUMENT", "invalid argument"},
    {QTAB_ERR_NOT_REGULAR, "NOT_REGULAR",
     "not a regular file (a directory, FIFO, socket or device)"},
};

static int find(int err)
{
    for (size_t i = 0; i < sizeof errors / sizeof errors[0]; i++)
        if (errors[i].code == err)
            return (int)i;
    return -1;
}

const char *qtab_strerror(int err)
{
    int i = find(err);
    return i < 0 ? "unknown tables error" : errors[i].message;
}

const char *qtab_errcode(int err)
{
    int i = find(err);
    return i < 0 ? "UNKNOWN" : errors[i].id;
}
