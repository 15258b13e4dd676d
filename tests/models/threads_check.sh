# tests/models/threads_check.sh: sourced by tests/models.sh (uses its W, OUT, ok, bad).
#
# threads_check NAME MODEL INPUT_DIR [COMPILE ARGS...]
# Compiles MODEL twice with the same arguments, as it is and with --threads (up to 3),
# runs both on INPUT_DIR/input_*.pb (two runs in one session: the second takes the
# Winograd paths the first runs direct) and checks that the threaded module gives the
# single-threaded one's outputs bit for bit on 1, 2 and 3 threads, and that `info` says
# ABI 2 and threads for the threaded build only (docs/abi.md
# "Threads": each output element is computed by one thread, in the same order).
threads_check() {
    local name=$1 model=$2 indir=$3 dir=$OUT/threads/$1 args=() f n
    shift 3
    mkdir -p "$dir"
    for f in "$indir"/input_*.pb; do args+=(--input "$f"); done
    if ! "$W" compile "$model" -o "$dir/one.wasm" -q "$@" ||
        ! "$W" compile "$model" -o "$dir/threads.wasm" -q --threads --max-threads 3 "$@"; then
        bad "$name threads (compile)"; return
    fi
    if ! "$W" info "$dir/threads.wasm" | grep -q '^module: .*ABI 2, .*threads (up to 3, shared memory)' ||
        "$W" info "$dir/one.wasm" | grep -q '^module: .*threads'; then
        bad "$name threads (info should say ABI 2 and threads for the --threads build only)"; return
    fi
    rm -rf "$dir/want"
    if ! "$W" run "$dir/one.wasm" "${args[@]}" --runs 2 --output-dir "$dir/want" > "$dir/run.log" 2>&1; then
        cat "$dir/run.log"; bad "$name threads (single-threaded run)"; return
    fi
    for n in 1 2 3; do
        rm -rf "$dir/got$n"
        if ! "$W" run "$dir/threads.wasm" "${args[@]}" --runs 2 --threads "$n" --output-dir "$dir/got$n" \
            > "$dir/run$n.log" 2>&1; then
            cat "$dir/run$n.log"; bad "$name on $n threads (run)"; return
        fi
        for f in "$dir"/want/output_*.pb; do
            if ! cmp -s "$f" "$dir/got$n/$(basename "$f")"; then
                bad "$name on $n threads: $(basename "$f") differs from the single-threaded module's"; return
            fi
        done
    done
    ok "$name: --threads module on 1, 2, 3 threads gives the single-threaded bits"
}
