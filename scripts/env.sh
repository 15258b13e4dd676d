# Environment for wasmgraph's build, tests and tools. Source it (POSIX sh or bash):
#     . scripts/env.sh
# from the repository root (or anywhere, in bash). scripts/setup.sh fills the
# places named here; this file only sets variables and installs nothing.

if [ -z "${WASMGRAPH_ROOT:-}" ]; then
    if [ -n "${BASH_SOURCE:-}" ]; then
        WASMGRAPH_ROOT=$(cd "$(dirname "$BASH_SOURCE")/.." && pwd)
    else
        WASMGRAPH_ROOT=$(pwd)  # plain sh cannot tell where a sourced file is: assume the root
    fi
fi
WASMGRAPH_CACHE=${WASMGRAPH_CACHE:-$HOME/.cache/wasmgraph}

# wasmtime C API, built from crates.io by scripts/wasmtime-capi (see setup.sh)
WASMTIME_VERSION=48.0.8
# "-threads": built with the threads feature (scripts/wasmtime-capi/Cargo.toml); its own folder
# so that trees built against the earlier library keep theirs
WASMTIME_PREFIX=$WASMGRAPH_CACHE/wasmtime-$WASMTIME_VERSION-threads
WASMTIME_INCLUDE=$WASMTIME_PREFIX/include
WASMTIME_LIB=$WASMTIME_PREFIX/target/release/libwasmtime.a
WASMTIME_LIBS="-lpthread -ldl -lm"  # what the static library needs besides itself

# Python (onnx, numpy) for test-model generation and training; not needed by the product
WG_VENV=$WASMGRAPH_CACHE/venv
WG_PYTHON=$WG_VENV/bin/python
# torch, torchvision, transformers, onnxruntime: builds the benchmark's transformer, int8
# and fp16 models (tools/make_bench_models.py) into $WG_MODELS_DIR; `setup.sh --models`
WG_MODELS_VENV=$WASMGRAPH_CACHE/venv-models
WG_MODELS_PYTHON=$WG_MODELS_VENV/bin/python
WG_MODELS_DIR=$WASMGRAPH_CACHE/models
# optimum-onnx (transformers 4.x) for the Hugging Face test models (tools/make_hf_models.py,
# written into $WASMGRAPH_CACHE/hf-models); `setup.sh --hf`
WG_HF_VENV=$WASMGRAPH_CACHE/venv-hf

# onnxruntime-node etc. (tools/package.json); tools/*.js also find it without NODE_PATH
WG_NODE_MODULES=$WASMGRAPH_ROOT/tools/node_modules
case ":${NODE_PATH:-}:" in
    *":$WG_NODE_MODULES:"*) ;;
    *) NODE_PATH=$WG_NODE_MODULES${NODE_PATH:+:$NODE_PATH} ;;
esac

if [ -d "$HOME/.cargo/bin" ]; then
    case ":$PATH:" in
        *":$HOME/.cargo/bin:"*) ;;
        *) PATH=$HOME/.cargo/bin:$PATH ;;
    esac
fi

export WASMGRAPH_ROOT WASMGRAPH_CACHE WASMTIME_VERSION WASMTIME_PREFIX WASMTIME_INCLUDE \
    WASMTIME_LIB WASMTIME_LIBS WG_VENV WG_PYTHON WG_MODELS_VENV WG_MODELS_PYTHON WG_MODELS_DIR WG_HF_VENV WG_NODE_MODULES NODE_PATH PATH
