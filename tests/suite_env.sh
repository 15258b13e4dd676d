# tests/suite_env.sh: the settings the shell test suites share (tests/errors.sh,
# tests/models.sh). Source it from the repository root (bash):
#     cd "$(dirname "$0")/.." && source tests/suite_env.sh
# BUILD (the build folder, default build), PY (the project venv's python, WG_PYTHON of
# scripts/env.sh), W (the built wasmgraph CLI, or WG_CLI when set: tools/codegen_record.sh
# records every compile the suites run, for tools/codegen_diff.sh --replay), SHARED (the
# shared test data, ../shared).
BUILD=${BUILD:-build}
[ -f scripts/env.sh ] && source scripts/env.sh
PY=${WG_PYTHON:-$HOME/.cache/wasmgraph/venv/bin/python}
W=${WG_CLI:-$BUILD/bin/wasmgraph}
SHARED=${WG_SHARED:-../shared}
