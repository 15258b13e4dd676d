#!/usr/bin/env bash
# tools/codegen_record.sh ARGS...: runs build/bin/wasmgraph (or $WG_REAL_CLI) with ARGS and,
# for a compile, first appends the model's absolute path and the options other than
# `-o OUT` to $WG_RECORD, one compile a line. With WG_CLI set to this script the test
# suites record every model they compile (symbolic, threaded, scalar ...), so that
# `tools/codegen_diff.sh OLD NEW --replay FILE` compares two compilers on all of them:
#     WG_CLI=$PWD/tools/codegen_record.sh WG_RECORD=/tmp/compiles.txt tests/run.sh models
set -uo pipefail
real=${WG_REAL_CLI:-$(cd "$(dirname "$0")/.." && pwd)/build/bin/wasmgraph}
if [ "${1:-}" = compile ] && [ -n "${WG_RECORD:-}" ] && [ $# -ge 2 ]; then
    line=$(realpath "$2")
    shift_next=0
    for a in "${@:3}"; do
        if [ "$shift_next" = 1 ]; then shift_next=0; continue; fi
        case "$a" in
            -o) shift_next=1 ;;
            -o*|-q|--quiet) ;;
            *) line+=$'\t'$a ;;
        esac
    done
    printf '%s\n' "$line" >> "$WG_RECORD"
fi
exec "$real" "$@"
