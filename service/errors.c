/*
 * errors.c - names and messages of the service's error codes. The names
 * are the "code" strings of error replies, so they are part of the wire
 * protocol and must never change.
 */
#include "qsservice.h"

#include <string.h>

static const struct {
    int err;
    const char *code;
    const char *message;
} errors[] = {
    {QSV_OK, "OK", "success"},
    {QSV_ERR_INVALID_CUBE, "INVALID_CUBE", "the cube is not a solvable cube"},
    {QSV_ERR_INVALID_MOVES, "INVALID_MOVES", "the scramble does not parse"},
    {QSV_ERR_BAD_REQUEST, "BAD_REQUEST", "malformed request"},
    {QSV_ERR_UNKNOWN_OP, "UNKNOWN_OP", "unknown operation"},
    {QSV_ERR_TOO_LARGE, "TOO_LARGE", "request frame too large"},
    {QSV_ERR_BUSY, "BUSY", "request queue full; try again later"},
    {QSV_ERR_CANCELLED, "CANCELLED", "request cancelled"},
    {QSV_ERR_DEADLINE, "DEADLINE", "deadline passed before a solution"},
    {QSV_ERR_NOT_FOUND, "NOT_FOUND",
     "no solution within the length limit in the time allowed"},
    {QSV_ERR_UNAVAILABLE, "UNAVAILABLE", "metric not available"},
    {QSV_ERR_INTERNAL, "INTERNAL", "internal error"},
    {QSV_ERR_TRANSPORT, "TRANSPORT", "ZeroMQ transport error"},
    {QSV_ERR_NO_REPLY, "NO_REPLY", "no reply from the daemon in time"},
    {QSV_ERR_PROTOCOL, "PROTOCOL", "reply breaks the protocol"},
    {QSV_ERR_ARGUMENT, "ARGUMENT", "argument out of range"},
};

#define N_ERRORS (sizeof errors / sizeof errors[0])

const char *qsv_errcode(int err)
{
    for (size_t i = 0; i < N_ERRORS; i++)
        if (errors[i].err == err)
            return errors[i].code;
    return "UNKNOWN";
}

const char *qsv_strerror(int err)
{
    for (size_t i = 0; i < N_ERRORS; i++)
        if (errors[i].err == err)
            return errors[i].message;
    return "unknown error";
}

int qsv_error_parse(const char *code)
{
    for (size_t i = 1; code && i < N_ERRORS; i++)
        if (strcmp(errors[i].code, code) == 0)
            return errors[i].err;
    return 0;
}
