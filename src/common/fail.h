/*
 * fail.h: the one way to report an error into a caller's (err, errlen) buffer.
 *
 *     return wg_fail(err, errlen, WG_ERR_FORMAT, "%s: bad header", path);
 *
 * formats the message into err (truncated to errlen, always terminated) and returns st,
 * so a failing path is a single return statement.
 */
#ifndef WG_FAIL_H
#define WG_FAIL_H

#include <stddef.h>

#include "wasmgraph.h"

#if defined(__GNUC__) || defined(__clang__)
__attribute__((format(printf, 4, 5)))
#endif
wg_status wg_fail(char *err, size_t errlen, wg_status st, const char *fmt, ...);

#endif
