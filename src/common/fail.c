/* fail.c: see fail.h. */
#include "fail.h"

#include <stdarg.h>
#include <stdio.h>

wg_status wg_fail(char *err, size_t errlen, wg_status st, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, errlen, fmt, ap);
    va_end(ap);
    return st;
}
