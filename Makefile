# wasmgraph build. `make` builds the compiler/host CLI and the wasm32 kernel library;
# `make demo` and `make test` run scripts/setup.sh first when something is missing.
# `make SAN=1 ...` builds everything with AddressSanitizer + UndefinedBehaviorSanitizer
# into build-san/; `make SAN=thread ...` with ThreadSanitizer into build-tsan/ (`make tsan`).

CACHE        ?= $(HOME)/.cache/wasmgraph
WASMTIME     ?= $(CACHE)/wasmtime-48.0.8-threads
CC           := clang-19
AR_WASM      := llvm-ar-19
SAN          ?= 0

ifeq ($(SAN),1)
BUILD        ?= build-san
SANFLAGS     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT          := -O1 -g
else ifeq ($(SAN),thread)
BUILD        ?= build-tsan
SANFLAGS     := -fsanitize=thread -fno-omit-frame-pointer
OPT          := -O1 -g
else
BUILD        ?= build
SANFLAGS     :=
OPT          := -O2 -g
endif

KERNEL_INC   := $(CURDIR)/kernels/include
# The wasm32 kernels do not depend on the host's sanitizers: every build (build-san,
# build-tsan, build-fuzz too) shares the plain build's objects and archives.
KBUILD       := build
KERNEL_LIB   := $(abspath $(KBUILD))/kernels/lib
CFLAGS       := -std=c11 $(OPT) -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Isrc \
                -isystem $(WASMTIME)/include $(SANFLAGS) \
                -DWG_KERNEL_INCLUDE_DIR='"$(KERNEL_INC)"' -DWG_KERNEL_LIB_DIR='"$(KERNEL_LIB)"'
LDLIBS       := $(WASMTIME)/target/release/libwasmtime.a -lpthread -ldl -lm
WASMTIME_LIB := $(WASMTIME)/target/release/libwasmtime.a

SRC          := $(shell find src -name '*.c' | sort)
OBJ          := $(SRC:%.c=$(BUILD)/obj/%.o)
LIB_OBJ      := $(filter-out $(BUILD)/obj/src/cli/main.o,$(OBJ))
BIN          := $(BUILD)/bin/wasmgraph

TOOLS        := $(BUILD)/tests/compare_tensors $(BUILD)/tests/kv_resident $(BUILD)/bin/fashion_demo
UNIT_SRC     := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# The kernel library: one archive per variant and opt level, all from the same sources.
KSRC         := $(shell find kernels -name '*.c' -not -path 'kernels/tests/*' | sort)
KHDR         := $(wildcard kernels/include/*.h)
# the kernels' own headers beside their sources (templates, internal helpers) too
KHDR_ALL     := $(shell find kernels -name '*.h' -not -path 'kernels/tests/*')
VARIANTS     := simd scalar relaxed
OLEVELS      := 0 1 2 3
KFLAGS_simd    := -msimd128
KFLAGS_scalar  :=
KFLAGS_relaxed := -msimd128 -mrelaxed-simd
KLIBS        := $(foreach v,$(VARIANTS),$(foreach o,$(OLEVELS),$(KERNEL_LIB)/libwgk-$(v)-O$(o).a))

.PHONY: all setup demo demo-resnet50 test test-unit test-kernels test-models test-errors \
        clean bench fuzz conformance sanitize test-sanitized tsan
all: $(BIN) $(KLIBS) $(TOOLS) $(BUILD)/obj/src/ops/TEMPLATE.o

# Op emitters include kernel headers (packing layouts live there), hence $(KHDR).
$(BUILD)/obj/%.o: %.c $(wildcard include/*.h) $(shell find src -name '*.h' -o -name '*.def') $(KHDR)
	@mkdir -p $(@D)
	@echo "CC $<"
	@$(CC) $(CFLAGS) -c $< -o $@

# The op template is compiled (not linked) so that it keeps up with the hooks.
$(BUILD)/obj/src/ops/TEMPLATE.o: src/ops/TEMPLATE $(shell find src -name '*.h' -o -name '*.def')
	@mkdir -p $(@D)
	@echo "CC $< (as C)"
	@$(CC) $(CFLAGS) -x c -c $< -o $@

$(BIN): $(OBJ) $(WASMTIME_LIB)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(OBJ) $(LDLIBS) -o $@

$(BUILD)/tests/compare_tensors: tests/tools/compare_tensors.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

$(BUILD)/tests/kv_resident: tests/tools/kv_resident.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

$(BUILD)/bin/fashion_demo: examples/fashion_demo.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) tests/test.h tests/unit/graph_build.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

# $(1) variant, $(2) opt level
define kernel_lib
$(KBUILD)/kernels/obj/$(1)-O$(2)/%.o: kernels/%.c $(KHDR_ALL)
	@mkdir -p $$(@D)
	@echo "CC wasm32 $(1) -O$(2) $$<"
	@$(CC) --target=wasm32 -nostdlib -ffreestanding -std=c11 -O$(2) $(KFLAGS_$(1)) -Wall -Wextra -Werror \
	  -Ikernels/include -c $$< -o $$@
$(KERNEL_LIB)/libwgk-$(1)-O$(2).a: $(KSRC:kernels/%.c=$(KBUILD)/kernels/obj/$(1)-O$(2)/%.o)
	@mkdir -p $$(@D)
	rm -f $$@ && $(AR_WASM) rcs $$@ $$^
endef
$(foreach v,$(VARIANTS),$(foreach o,$(OLEVELS),$(eval $(call kernel_lib,$(v),$(o)))))

$(WASMTIME_LIB):
	scripts/setup.sh

setup:
	scripts/setup.sh

demo: setup
	$(MAKE) all
	scripts/demo.sh

demo-resnet50: setup
	$(MAKE) all
	scripts/demo-resnet50.sh

test: setup
	$(MAKE) all $(UNIT_BIN)
	BUILD=$(BUILD) WG_SANFLAGS="$(SANFLAGS)" tests/run.sh

# The unit, error and model tests again under ASan + UBSan (LeakSanitizer included), as CI runs them.
sanitize: setup
	$(MAKE) SAN=1 test-sanitized

test-sanitized: all $(UNIT_BIN)
	BUILD=$(BUILD) WG_SANFLAGS="$(SANFLAGS)" tests/run.sh unit errors malformed regression models

# The host's threads under ThreadSanitizer (issue: threaded sessions, the watchdog, concurrent
# runs): the host and threads unit tests. report_signal_unsafe=0: wasmtime's trap handler
# allocates inside its signal handler by design (it then unwinds out of it), which TSan
# would otherwise flag on every trap the tests provoke.
TSAN_TESTS := test_host test_threads
tsan: setup
	$(MAKE) SAN=thread all $(TSAN_TESTS:%=build-tsan/tests/%)
	@for t in $(TSAN_TESTS); do \
	  BUILD=build-tsan TSAN_OPTIONS="halt_on_error=1 report_signal_unsafe=0" build-tsan/tests/$$t || exit 1; \
	done

test-unit: all $(UNIT_BIN)
	BUILD=$(BUILD) WG_SANFLAGS="$(SANFLAGS)" tests/run.sh unit

clean:
	rm -rf build build-san build-tsan build-fuzz

# `make bench`: engines compared on the benchmark models (bench/run; about 15 minutes).
# BENCH_ARGS passes options, e.g. make bench BENCH_ARGS=--quick, or
# BENCH_ARGS="--models resnet50v2,squeezenet --threads 1 --rounds 3". Results: stdout
# (Markdown) and bench/results/*.json (gitignored).
# The transformer / int8 / fp16 models need the models venv: `setup.sh --models` (once, ~6 GB).
# Then the generation rows (bench/generate): decoders of SmolLM2-135M's, GPT-2 small's and
# Qwen2.5-0.5B's sizes and Whisper-tiny (encoder and merged decoder) as transformers.js
# publishes them, built by the hf venv
# (`setup.sh --hf`, ~6 GB) once (~10 GB of models).
WG_CACHE ?= $(or $(WASMGRAPH_CACHE),$(HOME)/.cache/wasmgraph)
bench: setup
	scripts/setup.sh --models --hf --no-apt --no-wasmtime --no-node --no-python
	$(MAKE) all
	BUILD=$(BUILD) bench/run $(BENCH_ARGS)
	$(WG_CACHE)/venv-hf/bin/python tools/make_hf_models.py --set full --only smollm2-135m,gpt2-124m,qwen2.5-0.5b,whisper-tiny \
	    --variants fp32,fp16,q8,q4,q4f16
	BUILD=$(BUILD) bench/generate $(GENERATE_ARGS)

# ONNX backend conformance (libonnx-testdata): per-suite "N passed, M failed, K unsupported",
# results in $(BUILD)/conformance/results.json; then the node tests again with every input
# constant (host constant folding, tests/conformance/folded.sh); then the support section of
# docs/support.md is regenerated from the results (tools/support_table.py). Fails when any test fails.
conformance: all
	BUILD=$(BUILD) tests/conformance/run.sh; rc=$$?; \
	BUILD=$(BUILD) tests/conformance/folded.sh || rc=1; \
	BUILD=$(BUILD) python3 tools/support_table.py $(BUILD)/conformance/results.json || rc=1; \
	exit $$rc

# --- fuzzing -------------------------------------------------------------------------
# `make fuzz FUZZ_SECONDS=60` builds the two libFuzzer targets (fuzz/fuzz_onnx.c: reader,
# passes and C generation; fuzz/fuzz_module.c: host library on wasmtime) with ASan+UBSan
# into build-fuzz/ and runs each for FUZZ_SECONDS. Corpora grow in
# build-fuzz/corpus-<target>/ (seeded once by fuzz/seeds.sh); crash inputs land in
# build-fuzz/crashes-<target>/. A target with a build-fuzz/<target>.dict gets it as its
# libFuzzer dictionary (fuzz_onnx: op types, attribute names and values, generated from
# src/ir/ops.def and the sources by fuzz/make_dict.sh).
# `make fuzz-build` only builds. Uses CC, SRC, WASMTIME, LDLIBS, KERNEL_INC from above.
FUZZ_SECONDS ?= 60
# A fixed seed makes a CI run repeatable: the same tree mutates the same way.
FUZZ_SEED    ?= 1
FUZZ_DIR     := build-fuzz
FUZZ_SAN     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS  := -std=c11 -O1 -g -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Isrc \
                -isystem $(WASMTIME)/include $(FUZZ_SAN) -fsanitize=fuzzer-no-link \
                -DWG_KERNEL_INCLUDE_DIR='"$(KERNEL_INC)"' \
                -DWG_KERNEL_LIB_DIR='"$(KERNEL_LIB)"'
FUZZ_LIB_OBJ := $(patsubst %.c,$(FUZZ_DIR)/obj/%.o,$(filter-out src/cli/main.c,$(SRC)))
FUZZ_TARGETS := fuzz_onnx fuzz_module
FUZZ_BINS    := $(FUZZ_TARGETS:%=$(FUZZ_DIR)/%)

$(FUZZ_DIR)/obj/%.o: %.c $(wildcard include/*.h) $(shell find src -name '*.h' -o -name '*.def') $(KHDR)
	@mkdir -p $(@D)
	@echo "CC fuzz $<"
	@$(CC) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_BINS): $(FUZZ_DIR)/%: $(FUZZ_DIR)/obj/fuzz/%.o $(FUZZ_LIB_OBJ) $(WASMTIME_LIB)
	@echo "LD fuzz $@"
	@$(CC) $(FUZZ_SAN) -fsanitize=fuzzer $< $(FUZZ_LIB_OBJ) $(LDLIBS) -o $@

.PHONY: fuzz fuzz-build fuzz-sweep
fuzz-build: $(FUZZ_BINS)

# `make fuzz-sweep`: every node-test mutant of fuzz/mutants.py (edge values, dropped inputs,
# changed dims; ~80,000 models) once through fuzz_onnx (fuzz/sweep.sh; about 3 minutes).
fuzz-sweep: fuzz-build
	fuzz/sweep.sh $(FUZZ_DIR)

# Seeds once (when the corpus folder is missing), then runs each target for FUZZ_SECONDS
# and prints the executions from libFuzzer's final stats.
fuzz: fuzz-build
	@fuzz/make_dict.sh > $(FUZZ_DIR)/fuzz_onnx.dict
	@bad=0; for t in $(FUZZ_TARGETS); do \
	  c=$(FUZZ_DIR)/corpus-$$t; x=$(FUZZ_DIR)/crashes-$$t; mkdir -p $$x; \
	  if [ ! -d $$c ]; then [ -d $(FUZZ_DIR)/seeds/$$t ] || fuzz/seeds.sh $(FUZZ_DIR)/seeds >/dev/null; \
	    mkdir -p $$c && cp $(FUZZ_DIR)/seeds/$$t/* $$c/; fi; \
	  echo "== $$t for $(FUZZ_SECONDS)s (corpus $$c: $$(ls $$c | wc -l) files)"; \
	  d=; [ -f $(FUZZ_DIR)/$$t.dict ] && d=-dict=$(FUZZ_DIR)/$$t.dict; \
	  $(FUZZ_DIR)/$$t -seed=$(FUZZ_SEED) -max_total_time=$(FUZZ_SECONDS) -timeout=20 -rss_limit_mb=4096 \
	    -max_len=262144 -print_final_stats=1 $$d -artifact_prefix=$$x/ $$c > $(FUZZ_DIR)/$$t.log 2>&1 || \
	    { echo "$$t: FAILED, see $(FUZZ_DIR)/$$t.log and $$x/"; grep -E -A12 '^==[0-9]+==|runtime error' \
	      $(FUZZ_DIR)/$$t.log | head -30; bad=1; }; \
	  echo "$$t: $$(grep -Eo 'stat::number_of_executed_units: *[0-9]+' $(FUZZ_DIR)/$$t.log | \
	    awk '{s+=$$2} END {print s+0}') executions, corpus $$(ls $$c | wc -l) files"; \
	done; exit $$bad
