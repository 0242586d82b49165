# Top-level build of the open VTA stack. See README.md.
#
#   make                 build libraries and the vta command for CONFIG
#   make deps            install every Debian package the project needs, then build
#   make test            the whole suite (every configuration, plain and ASan/UBSan)
#   make bench           print BENCH lines
#   make fuzz            run every fuzz target (FUZZ_SECONDS each)
#   make demo            the main job
#   make CONFIG=config/small.json   another configuration, built in its own folder
#
# Every part of the stack reads the headers generated from CONFIG into
# $(BUILD)/include/vta by config/configgen.

CONFIG ?= config/vta.json
CFG_NAME := $(basename $(notdir $(CONFIG)))

# CROSS=arm-linux-gnueabihf- (PYNQ) or CROSS=aarch64-linux-gnu- (Ultra96)
# cross-compiles the libraries and the vta command into build/<triplet>/.
ifneq ($(CROSS),)
CC := $(CROSS)gcc
AR := $(CROSS)ar
CROSS_DIR := $(patsubst %-,%,$(CROSS))/
endif

ifeq ($(CFG_NAME),vta)
BUILD ?= build/$(CROSS_DIR:%/=%)
else
BUILD ?= build/$(CROSS_DIR)cfg-$(CFG_NAME)
endif
BUILD := $(patsubst %/,%,$(BUILD))

# SAN=1 builds everything with AddressSanitizer and UBSan into $(BUILD)/asan,
# objects, libraries and programs alike, so the two builds never mix.
ifeq ($(SAN),1)
OBJ := $(BUILD)/asan/obj
BIN := $(BUILD)/asan/bin
LIB := $(BUILD)/asan/lib
SANFLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else ifeq ($(SAN),fuzz)
# SAN=fuzz: the libFuzzer build (tests/fuzz/module.mk, make fuzz): clang with
# coverage instrumentation, ASan and UBSan in every object, in $(BUILD)/fuzz.
CC := clang
OBJ := $(BUILD)/fuzz/obj
BIN := $(BUILD)/fuzz/bin
LIB := $(BUILD)/fuzz/lib
SANFLAGS := -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
else
OBJ := $(BUILD)/obj
BIN := $(BUILD)/bin
LIB := $(BUILD)/lib
SANFLAGS :=
endif

CC ?= cc
HOSTCC ?= cc
AR ?= ar
OPT ?= -O2
GEN := $(BUILD)/include/vta
CPPFLAGS := -Iinclude -Iinternal -I$(BUILD)/include $(EXTRA_CPPFLAGS)
CFLAGS = -std=c11 -D_POSIX_C_SOURCE=200809L -Wall -Wextra -Werror -g $(OPT) -fPIC $(SANFLAGS) $(EXTRA_CFLAGS)
LDFLAGS := $(SANFLAGS) $(EXTRA_LDFLAGS)
LDLIBS := -lm

CONFIG_H := $(GEN)/vta_config.h

# Filled in by the module.mk files below.
LIB_SRCS :=
TEST_PROGS :=
BENCH_PROGS :=
ALL_TARGETS :=
TEST_EXTRA :=

.SECONDEXPANSION:
.PHONY: all deps test test-one bench demo clean lint synth timing
all: build-all

include config/module.mk
include isa/module.mk
include sim/module.mk
include tools/module.mk
include tests/module.mk
# Parts of the stack that are built only where their module file exists.
-include hw/module.mk
-include tests/rtl/module.mk
-include driver/module.mk
-include runtime/module.mk
-include compiler/module.mk
-include boards/module.mk
include tests/fuzz/module.mk

test-extra: $$(TEST_EXTRA)

LIB_OBJS := $(LIB_SRCS:%.c=$(OBJ)/%.o)
# The shared library exports its public API only: what the installed headers
# declare under "#pragma GCC visibility push(default)" (runtime/exports.txt).
$(LIB_OBJS): CFLAGS += -fvisibility=hidden

build-all: $(LIB)/libvta.a $(LIB)/libvta.so $(BIN)/vta $(ALL_TARGETS)

$(OBJ)/%.o: %.c $(CONFIG_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB)/libvta.a: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(LIB)/libvta.so: $(LIB_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -o $@ $^ $(LDLIBS)

-include $(LIB_OBJS:.o=.d)

# ---------------------------------------------------------------------------
# Dependencies: every Debian package the whole project needs.
DEB_PACKAGES := build-essential clang libclang-rt-14-dev pkg-config \
	verilator yosys iverilog \
	libusb-1.0-0-dev protobuf-c-compiler libprotobuf-c-dev libonnx-dev libonnx-testdata \
	libstb-dev tcl qemu-user-static gcc-arm-linux-gnueabihf gcc-aarch64-linux-gnu \
	libc6-dev-armhf-cross libc6-dev-arm64-cross \
	libopenblas-dev opensta libxrt-dev uuid-dev valgrind \
	python3-torch python3-torchvision python3-onnx

deps:
	apt-get update
	DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(DEB_PACKAGES)
	$(MAKE) all

# ---------------------------------------------------------------------------
# Tests: the whole suite for every shipped configuration, plain and sanitized.
TEST_CONFIGS := config/vta.json config/batch2_block8.json config/small.json config/ultra96.json

test:
	@rm -f build/test-results.txt; mkdir -p build
	@set -e; for c in $(TEST_CONFIGS); do \
		$(MAKE) -j2 --no-print-directory CONFIG=$$c test-one RESULTS=$(CURDIR)/build/test-results.txt; \
		$(MAKE) -j2 --no-print-directory CONFIG=$$c SAN=1 test-one RESULTS=$(CURDIR)/build/test-results.txt; \
	done
	@$(MAKE) --no-print-directory test-extra RESULTS=$(CURDIR)/build/test-results.txt
	@sh tests/summarize.sh build/test-results.txt

# Suites that are not per configuration (cross builds under qemu, ...): module
# files add phony targets to TEST_EXTRA; each appends PASS/FAIL lines to $(RESULTS).
.PHONY: test-extra

RESULTS ?= $(CURDIR)/$(BUILD)/test-results.txt
test-one: build-all $(TEST_PROGS)
	@set -e; for t in $(TEST_PROGS); do \
		echo "== $$t ($(CFG_NAME)$(if $(SAN), asan))"; \
		VTA_ROOT=$(CURDIR) $$t --results $(RESULTS) --label "$(CFG_NAME)$(if $(SAN),/asan)" \
			|| echo "FAIL $(CFG_NAME)$(if $(SAN),/asan) $$t exited with status $$?" >> $(RESULTS); \
	done

bench: build-all $(BENCH_PROGS)
	@for b in $(BENCH_PROGS); do $$b || exit 1; done

clean:
	rm -rf build

# ---------------------------------------------------------------------------
# The demo, the main job: compile the MNIST network for VTA, run digits on
# the golden model and show a few of them with their predictions
# (compiler/module.mk). demo-asm: assemble a small GEMM program, run it on
# the golden model and show it disassembled.
demo: mnist-demo

.PHONY: demo-asm
demo-asm: build-all
	$(BIN)/vta asm examples/gemm.s -o $(BUILD)/gemm.bin
	$(BIN)/vta sim $(BUILD)/gemm.bin
	$(BIN)/vta disasm $(BUILD)/gemm.bin
