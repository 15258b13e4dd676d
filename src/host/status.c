/* status.c: wg_status_str, the names of wg_status values (shared by compiler and host). */
#include "wasmgraph.h"

const char *wg_status_str(wg_status st)
{
    static const char *const names[] = {
        [WG_OK] = "ok",
        [WG_ERR_IO] = "i/o error",
        [WG_ERR_FORMAT] = "bad format",
        [WG_ERR_UNSUPPORTED] = "unsupported",
        [WG_ERR_INVALID] = "invalid",
        [WG_ERR_ABI] = "ABI mismatch",
        [WG_ERR_TRAP] = "trap",
        [WG_ERR_LIMIT] = "limit exceeded",
        [WG_ERR_NOMEM] = "out of memory",
        [WG_ERR_TOOL] = "tool failed",
        [WG_ERR_ENGINE] = "engine error",
    };
    _Static_assert(sizeof names / sizeof names[0] == WG_STATUS_COUNT, "a status has no name");
    if ((unsigned)st >= WG_STATUS_COUNT)
        return "unknown status";
    return names[st];
}
