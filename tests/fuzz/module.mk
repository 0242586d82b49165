# Fuzz targets: one libFuzzer program per reader of untrusted input, built by
# clang with ASan/UBSan and coverage in the SAN=fuzz tree (build/fuzz/). See
# docs/fuzzing.md.
#
#   make fuzz FUZZ_SECONDS=N   fuzz each target N seconds, one line per target:
#                              FUZZ <target> execs=<n> crashes=<n>
#   make fuzz FUZZ_TARGETS="asm program" ...   only those
#   make test-fuzz             (part of make test) every target for FUZZ_RUNS
#                              executions from its seeds, and every regression
#                              input under tests/fuzz/regress/<target>/ replayed
#
# Seeds: tests/fuzz/corpus/<target>/ (committed) plus inputs generated from the
# tree by tests/fuzz/seeds.sh into build/fuzz/seeds/<target>/ (the ONNX models
# of Debian's libonnx-testdata and ../shared, tiny TFLite models written by
# tests/fuzz/tflseeds.c, .vtam files compiled by this build, the synthetic
# bitstreams of tests/boards/bitgen.h, ...), so they follow format changes. A target whose reader is not built here is skipped.

FUZZ_ALL := isa asm program bitstream config onnx tflite darknet vtam
FUZZ_TARGETS ?= $(FUZZ_ALL)
FUZZ_SECONDS ?= 60
FUZZ_RUNS ?= 3000
FUZZ_WORK := build/fuzz

.PHONY: fuzz fuzz-build test-fuzz fuzz-seeds

# The programs, in the fuzz tree only.
ifeq ($(SAN),fuzz)
FUZZ_LINK := -fsanitize=fuzzer,address,undefined
FUZZ_BINS := $(FUZZ_ALL:%=$(BIN)/fuzz/fuzz_%)

$(OBJ)/tests/fuzz/%.o: tests/fuzz/%.c $(CONFIG_H) $$(BOARDS_H) | $$(CC_GEN)/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests/fuzz -Itests -Iboards/flash -Icompiler -I$(CC_GEN) $(CFLAGS) -MMD -MP -c $< -o $@
-include $(FUZZ_ALL:%=$(OBJ)/tests/fuzz/fuzz_%.d)

$(BIN)/fuzz/fuzz_isa $(BIN)/fuzz/fuzz_asm $(BIN)/fuzz/fuzz_program: $(BIN)/fuzz/fuzz_%: $(OBJ)/tests/fuzz/fuzz_%.o $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_LINK) -o $@ $^ $(LDLIBS)
$(BIN)/fuzz/fuzz_bitstream: $(OBJ)/tests/fuzz/fuzz_bitstream.o $(OBJ)/boards/flash/bitfile.o $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_LINK) -o $@ $^ $(LDLIBS)
# fuzz_config.c includes config/configgen.c (built without its main).
$(BIN)/fuzz/fuzz_config: $(OBJ)/tests/fuzz/fuzz_config.o
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_LINK) -o $@ $^ $(LDLIBS)
$(OBJ)/tests/fuzz/fuzz_config.o: CPPFLAGS += -I.
$(BIN)/fuzz/fuzz_onnx $(BIN)/fuzz/fuzz_tflite $(BIN)/fuzz/fuzz_darknet $(BIN)/fuzz/fuzz_vtam: $(BIN)/fuzz/fuzz_%: $(OBJ)/tests/fuzz/fuzz_%.o $(LIB)/libvtacc.a $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(FUZZ_LINK) -o $@ $< $(VC_LIBS) $(LDLIBS)

fuzz-build: $(FUZZ_TARGETS:%=$(BIN)/fuzz/fuzz_%)
endif

# tflseeds: tiny TFLite models for the tflite target (plain build).
$(OBJ)/tests/fuzz/tflseeds.o: CPPFLAGS += -Itests/compiler
$(BIN)/tests/fuzz/tflseeds: $(OBJ)/tests/fuzz/tflseeds.o $(OBJ)/tests/compiler/fbwrite.o $(OBJ)/tests/compiler/tflbuild.o
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/tests/fuzz/tflseeds.d

# Seeds generated from the tree (needs the plain build's vta for .vtam files).
FUZZ_SEED_TOOLS := $(BIN)/vta $(BIN)/tests/boards/bitgen $(BIN)/tests/fuzz/tflseeds
fuzz-seeds: $(FUZZ_SEED_TOOLS)
	@sh tests/fuzz/seeds.sh $(FUZZ_WORK)/seeds $(abspath $(FUZZ_SEED_TOOLS))

fuzz: fuzz-seeds
	@$(MAKE) --no-print-directory -j2 SAN=fuzz CONFIG=config/vta.json fuzz-build FUZZ_TARGETS="$(FUZZ_TARGETS)"
	@for t in $(FUZZ_TARGETS); do \
		sh tests/fuzz/run.sh time $(FUZZ_SECONDS) $$t build/fuzz/bin/fuzz/fuzz_$$t $(FUZZ_WORK); \
	done

# Part of make test: bounded runs from the seeds (a fixed libFuzzer seed, so a
# run is repeatable) and the regression inputs; PASS/FAIL lines to $(RESULTS).
# Targets whose findings are known bugs owned elsewhere: their FAIL lines are
# recorded as XFAIL (listed, not counted) until fixed. None now.
FUZZ_XFAIL ?=
TEST_EXTRA += test-fuzz
test-fuzz: fuzz-seeds
	@if ! $(MAKE) --no-print-directory -j2 SAN=fuzz CONFIG=config/vta.json fuzz-build \
		FUZZ_TARGETS="$(FUZZ_ALL)" > build/fuzz-build.log 2>&1; then \
		tail -20 build/fuzz-build.log; \
		echo "FAIL fuzz/build: the fuzz targets do not build (build/fuzz-build.log)" >> $(RESULTS); \
	else for t in $(FUZZ_ALL); do \
		case " $(FUZZ_XFAIL) " in \
		*" $$t "*) r=$(FUZZ_WORK)/xfail-$$t.txt; rm -f $$r; \
			sh tests/fuzz/run.sh test $(FUZZ_RUNS) $$t build/fuzz/bin/fuzz/fuzz_$$t $(FUZZ_WORK) $$r; \
			sed 's/^FAIL/XFAIL/' $$r >> $(RESULTS); \
			grep '^FAIL' $$r | sed 's/^/known, see FUZZ_XFAIL: /';; \
		*) sh tests/fuzz/run.sh test $(FUZZ_RUNS) $$t build/fuzz/bin/fuzz/fuzz_$$t $(FUZZ_WORK) $(RESULTS);; \
		esac; \
	done; fi
