# wasmgraph build. `make` builds the compiler/host CLI and the wasm32 kernel library;
# `make demo` and `make test` run scripts/setup.sh first when something is missing.
# `make SAN=1 ...` builds everything with AddressSanitizer + UndefinedBehaviorSanitizer
# into build-san/.

CACHE        ?= $(HOME)/.cache/wasmgraph
WASMTIME     ?= $(CACHE)/wasmtime-48.0.8
CC           := clang-19
AR_WASM      := llvm-ar-19
SAN          ?= 0

ifeq ($(SAN),1)
BUILD        ?= build-san
SANFLAGS     := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
OPT          := -O1 -g
else
BUILD        ?= build
SANFLAGS     :=
OPT          := -O2 -g
endif

KERNEL_INC   := $(CURDIR)/kernels/include
KERNEL_LIB   := $(abspath $(BUILD))/kernels/lib
CFLAGS       := -std=c11 $(OPT) -Wall -Wextra -Werror -D_GNU_SOURCE -Iinclude -Isrc \
                -isystem $(WASMTIME)/include $(SANFLAGS) \
                -DWG_KERNEL_INCLUDE_DIR='"$(KERNEL_INC)"' -DWG_KERNEL_LIB_DIR='"$(KERNEL_LIB)"'
LDLIBS       := $(WASMTIME)/target/release/libwasmtime.a -lpthread -ldl -lm
WASMTIME_LIB := $(WASMTIME)/target/release/libwasmtime.a

SRC          := $(shell find src -name '*.c' | sort)
OBJ          := $(SRC:%.c=$(BUILD)/obj/%.o)
LIB_OBJ      := $(filter-out $(BUILD)/obj/src/cli/main.o,$(OBJ))
BIN          := $(BUILD)/bin/wasmgraph

TOOLS        := $(BUILD)/tests/compare_tensors $(BUILD)/bin/fashion_demo
UNIT_SRC     := $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN     := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

# The kernel library: one archive per variant and opt level, all from the same sources.
KSRC         := $(shell find kernels -name '*.c' -not -path 'kernels/tests/*' | sort)
KHDR         := $(wildcard kernels/include/*.h)
VARIANTS     := simd scalar relaxed
OLEVELS      := 0 1 2 3
KFLAGS_simd    := -msimd128
KFLAGS_scalar  :=
KFLAGS_relaxed := -msimd128 -mrelaxed-simd
KLIBS        := $(foreach v,$(VARIANTS),$(foreach o,$(OLEVELS),$(KERNEL_LIB)/libwgk-$(v)-O$(o).a))

.PHONY: all setup demo demo-resnet50 test test-unit test-kernels test-models test-errors \
        clean bench fuzz conformance sanitize test-sanitized
all: $(BIN) $(KLIBS) $(TOOLS)

$(BUILD)/obj/%.o: %.c $(wildcard include/*.h) $(shell find src -name '*.h' -o -name '*.def')
	@mkdir -p $(@D)
	@echo "CC $<"
	@$(CC) $(CFLAGS) -c $< -o $@

$(BIN): $(OBJ) $(WASMTIME_LIB)
	@mkdir -p $(@D)
	$(CC) $(SANFLAGS) $(OBJ) $(LDLIBS) -o $@

$(BUILD)/tests/compare_tensors: tests/tools/compare_tensors.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

$(BUILD)/bin/fashion_demo: examples/fashion_demo.c $(LIB_OBJ)
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

$(BUILD)/tests/%: tests/unit/%.c $(LIB_OBJ) tests/test.h
	@mkdir -p $(@D)
	$(CC) $(CFLAGS) $< $(LIB_OBJ) $(LDLIBS) -o $@

# $(1) variant, $(2) opt level
define kernel_lib
$(BUILD)/kernels/obj/$(1)-O$(2)/%.o: kernels/%.c $(KHDR)
	@mkdir -p $$(@D)
	@echo "CC wasm32 $(1) -O$(2) $$<"
	@$(CC) --target=wasm32 -nostdlib -ffreestanding -std=c11 -O$(2) $(KFLAGS_$(1)) -Wall -Wextra -Werror \
	  -Ikernels/include -c $$< -o $$@
$(KERNEL_LIB)/libwgk-$(1)-O$(2).a: $(KSRC:kernels/%.c=$(BUILD)/kernels/obj/$(1)-O$(2)/%.o)
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
	BUILD=$(BUILD) WG_SANFLAGS="$(SANFLAGS)" tests/run.sh unit errors models

test-unit: all $(UNIT_BIN)
	BUILD=$(BUILD) WG_SANFLAGS="$(SANFLAGS)" tests/run.sh unit

clean:
	rm -rf build build-san
