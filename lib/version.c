/*
 * version.c - the one function that belongs to libquadsolve itself rather
 * than to one of the libraries it is made of: the version it was built
 * as, for programs that check the header they compiled against.
 */
#include "quadsolve.h"

const char *qs_version(void)
{
    return QS_VERSION;
}
