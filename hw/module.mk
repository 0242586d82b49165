# The VTA RTL: register map generation, Verilator C model (built once per
# configuration, shared by the plain and SAN=1 passes), the C harness
# (sim/rtl), directed and random co-simulation tests, lint, synth, benches.
VERILATOR ?= verilator
YOSYS ?= yosys
RTL_SRCS := $(sort $(wildcard hw/*.v))
# The Verilator model's sources: hw/ with each module that has a simulation
# form in sim/rtl/ replaced by it (the same ports and cycles; docs/rtl.md
# "Simulation speed"): the GEMM array (plain int8 multiplies) and the SRAM
# (the row written in place); lint checks both sets, synth reads hw/ only;
# test-gemm-equiv and test-sram-equiv check each pair against each other.
RTL_SIM_FORMS := $(sort $(wildcard sim/rtl/*.v))
RTL_SIM_SRCS := $(filter-out $(addprefix hw/,$(notdir $(RTL_SIM_FORMS))),$(RTL_SRCS)) $(RTL_SIM_FORMS)
RTL_DIR := $(BUILD)/rtl
RTL_OBJDIR := $(RTL_DIR)/obj
RTL_LIB := $(RTL_OBJDIR)/libvtartl.a
RTL_PORTS := $(RTL_DIR)/vtartl_ports.h
REGMAP_VH := $(GEN)/vta_regmap.vh
REGMAP_H := $(GEN)/vta_regmap.h
VLTSTD := $(shell $(VERILATOR) --getenv VERILATOR_ROOT 2>/dev/null)/include/vltstd
RTL_LDLIBS := -lstdc++ -lm -pthread
RTL_VFLAGS := -Wno-fatal -Wno-lint -Wno-style
# The model's C++ is compiled for the building machine (AVX2 here: 10% fewer
# instructions a cycle than plain -O2, docs/rtl.md "Simulation speed"); the
# model is always built where it runs (tests, vta, libvta-rtl.so). For a
# library copied to other machines: make RTL_MARCH= (any CPU of the arch).
RTL_MARCH ?= -march=native
RTL_OPT := -O3 $(RTL_MARCH)
# Waveform build: make BUILD=build/trace RTL_TRACE=1 <targets> (a build tree of
# its own); programs linked there write an FST file named by VTA_TRACE at run
# time (docs/rtl.md). The trace model is 2-5x slower.
RTL_TRACE ?=
ifeq ($(RTL_TRACE),1)
RTL_VFLAGS += --trace-fst +define+VTA_TRACE
RTLSIM_TRACE_DEF := -DVTA_RTL_TRACE
RTL_LDLIBS += -lz
endif

$(REGMAP_VH): hw/regmap.txt hw/regmap.sh
	@mkdir -p $(dir $@)
	sh hw/regmap.sh vh $< > $@.tmp && mv $@.tmp $@
$(REGMAP_H): hw/regmap.txt hw/regmap.sh
	@mkdir -p $(dir $@)
	sh hw/regmap.sh h $< > $@.tmp && mv $@.tmp $@
docs/registers.md: hw/regmap.txt hw/regmap.sh
	sh hw/regmap.sh md $< > $@

# Cross builds (CROSS=...) get only the register map header (the zynq driver
# backend includes it); the Verilator model, harness and tests are host-only.
ifeq ($(CROSS),)
# One Verilator build per configuration (not per SAN pass), RTL_OPT (TOOLCHAIN-NOTES 3).
# hw/protogen.sh then writes the C interface (vtartl_ports.h) and the one-call
# evaluation vtartl_eval (vtartl_glue.cpp, generated C++), which Verilator's
# makefile compiles with the model's flags into the same library; after a rising
# edge it copies back only irq (the harness reads the rest after the next inputs).
# The flags the model was built with: rewritten only when they differ, so
# `make RTL_MARCH=` after a native build rebuilds the model (and nothing else does).
RTL_FLAGS_STAMP := $(RTL_DIR)/model.flags
$(RTL_FLAGS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@echo '$(RTL_OPT) $(RTL_VFLAGS)' | cmp -s - $@ || echo '$(RTL_OPT) $(RTL_VFLAGS)' > $@
.PHONY: FORCE
FORCE:
$(RTL_LIB): $(RTL_SIM_SRCS) $(GEN)/vta_config.vh $(REGMAP_VH) hw/protogen.sh hw/module.mk $(RTL_FLAGS_STAMP)
	@rm -rf $(RTL_OBJDIR) && mkdir -p $(RTL_OBJDIR)
	$(VERILATOR) --cc $(RTL_SIM_SRCS) --top-module vta_top --lib-create vtartl -I$(GEN) \
		$(RTL_VFLAGS) --Mdir $(RTL_OBJDIR) --build -j 2 \
		-MAKEFLAGS "OPT_FAST='$(RTL_OPT)'" >$(RTL_DIR)/verilator.log 2>&1 || \
		{ tail -30 $(RTL_DIR)/verilator.log; exit 1; }
	sh hw/protogen.sh vtartl $(RTL_OBJDIR)/vtartl.cpp > $(RTL_PORTS).tmp
	sh hw/protogen.sh vtartl $(RTL_OBJDIR)/vtartl.cpp glue > $(RTL_OBJDIR)/vtartl_glue.cpp
	mv $(RTL_PORTS).tmp $(RTL_PORTS)
	$(MAKE) --no-print-directory -C $(RTL_OBJDIR) -f Vvta_top.mk VM_USER_CLASSES=vtartl_glue \
		"VM_USER_CFLAGS=-fPIC -I$(abspath $(RTL_DIR))" "OPT_FAST=$(RTL_OPT)" libvtartl >>$(RTL_DIR)/verilator.log 2>&1 || \
		{ tail -30 $(RTL_DIR)/verilator.log; exit 1; }
	@touch $(RTL_PORTS)
$(RTL_PORTS): $(RTL_LIB)
	@test -f $@

RTLSIM_CPPFLAGS := -I$(RTL_DIR) -I$(VLTSTD)
$(OBJ)/sim/rtl/%.o: sim/rtl/%.c $(CONFIG_H) $(RTL_PORTS) $(REGMAP_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(RTLSIM_CPPFLAGS) $(RTLSIM_TRACE_DEF) $(CFLAGS) -MMD -MP -c $< -o $@
-include $(OBJ)/sim/rtl/rtlsim.d

RTLSIM_LIB := $(LIB)/libvta_rtlsim.a
$(RTLSIM_LIB): $(OBJ)/sim/rtl/rtlsim.o
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

$(OBJ)/tests/rtl/%.o: tests/rtl/%.c $(CONFIG_H) $(REGMAP_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests $(CFLAGS) -MMD -MP -c $< -o $@

RTL_TEST_LINK = $(RTLSIM_LIB) $(LIB)/libvta.a $(RTL_LIB)

define rtl_program
$(BIN)/tests/$(1): $(OBJ)/tests/rtl/$(1).o $(OBJ)/tests/rtl/cosim_lib.o $(TEST_HARNESS) $(RTL_TEST_LINK)
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(RTL_LDLIBS)
-include $(OBJ)/tests/rtl/$(1).d
endef
$(eval $(call rtl_program,test_rtl))
$(eval $(call rtl_program,test_cosim))

$(eval $(call rtl_program,bench_rtl))
-include $(OBJ)/tests/rtl/cosim_lib.d

TEST_PROGS += $(BIN)/tests/test_rtl $(BIN)/tests/test_cosim
BENCH_PROGS += $(BIN)/tests/bench_rtl
ALL_TARGETS += $(RTLSIM_LIB)
endif
ALL_TARGETS += $(REGMAP_H)

# make cosim N=100000 SEED=s LATENCY=100 BACKPRESSURE=1: a long random
# co-simulation soak (LATENCY may be a list, 1,8,100; default the board's
# modelled latency; SEED default: a fresh one, printed); ends with
# "cosim: N programs, M mismatches".
N ?= 10000
SEED ?=
LATENCY ?=
BACKPRESSURE ?= 0
ifeq ($(CROSS),)
cosim: build-all $(BIN)/tests/test_cosim
	$(BIN)/tests/test_cosim -n $(N) $(if $(SEED),--seed $(SEED)) $(if $(LATENCY),--latency $(LATENCY)) \
		--backpressure $(BACKPRESSURE) --save tests/rtl/repro
endif

# test-rtl-bus256: the RTL tests once more for config/bus256.json (a 256-bit
# bus, 8-byte INP/OUT elements packed into beats with partial WSTRB, two
# instructions per beat, 512-deep token queues), plain build only: the fifth
# configuration of make test, kept cheap by building only these three programs
# (the runtime's backends over the RTL: its checks of sizes in elements).
RTL_EXTRA_CONFIG := config/bus256.json
TEST_EXTRA += test-rtl-bus256
.PHONY: test-rtl-bus256
test-rtl-bus256:
	@mkdir -p build
	@c=$(RTL_EXTRA_CONFIG); n=$$(basename $$c .json); b=build/cfg-$$n; \
	echo "== RTL tests ($$n)"; \
	if ! $(MAKE) --no-print-directory -j2 CONFIG=$$c $$b/bin/tests/test_rtl $$b/bin/tests/test_cosim \
		$$b/bin/tests/runtime/test_runtime_rtl \
		> build/rtl-$$n.log 2>&1; then \
		tail -20 build/rtl-$$n.log; \
		echo "FAIL $$n: the RTL tests do not build (build/rtl-$$n.log)" >> $(RESULTS); exit 0; fi; \
	for t in test_rtl test_cosim runtime/test_runtime_rtl; do \
		VTA_ROOT=$(CURDIR) $$b/bin/tests/$$t --results $(RESULTS) --label $$n \
			|| echo "FAIL $$n $$t exited with status $$?" >> $(RESULTS); \
	done

# ---------------------------------------------------------------- lint / synth
lint: $(GEN)/vta_config.vh $(REGMAP_VH)
	$(VERILATOR) --lint-only -Wall -I$(GEN) hw/lint.vlt $(RTL_SRCS) --top-module vta_top
	$(VERILATOR) --lint-only -Wall -I$(GEN) hw/lint.vlt $(RTL_SIM_SRCS) --top-module vta_top
	@echo "lint: clean"

SYNTH_DIR := $(BUILD)/synth
SYNTH_STAMP := $(SYNTH_DIR)/netlists.stamp
STA ?= sta
# make synth always runs (about 15 minutes); make timing reuses its netlists
# while the RTL and the configuration are unchanged.
# The stamp carries the time synthesis started (touched before, renamed after),
# so a source edited during the run is newer and the next make timing re-synthesizes.
synth: $(GEN)/vta_config.vh $(REGMAP_VH)
	@mkdir -p $(SYNTH_DIR)
	@touch $(SYNTH_STAMP).start
	sh hw/synth.sh "$(YOSYS)" $(GEN) $(SYNTH_DIR) $(RTL_SRCS)
	@mv $(SYNTH_STAMP).start $(SYNTH_STAMP)
$(SYNTH_STAMP): $(RTL_SRCS) $(GEN)/vta_config.vh $(REGMAP_VH) hw/synth.sh
	@mkdir -p $(SYNTH_DIR)
	@touch $@.start
	sh hw/synth.sh "$(YOSYS)" $(GEN) $(SYNTH_DIR) $(RTL_SRCS)
	@mv $@.start $@
timing: $(SYNTH_STAMP) hw/timing.sh hw/timing/netprep.awk hw/timing/libgen.awk hw/timing/sta.tcl
	sh hw/timing.sh "$(STA)" $(SYNTH_DIR)

# test-timing-flow: make timing's whole flow (synth.sh's netlist steps,
# netprep, libgen, OpenSTA) on a three-register design whose one path is
# derived by hand from docs/timing.md (tests/timing/timing_tiny.v): 0.83 ns on
# xc7z020, 0.60 ns on xczu3eg; once more with the clock named clk_i, as a
# submodule timed as top has it (xczu3eg only). About 20 s of CPU.
TEST_EXTRA += test-timing-flow
.PHONY: test-timing-flow
test-timing-flow:
	@mkdir -p $(BUILD)/timing-flow $(dir $(RESULTS)); out=$(BUILD)/timing-flow; \
	if ! command -v "$(STA)" >/dev/null || ! command -v "$(YOSYS)" >/dev/null; then \
		echo "FAIL timing-flow: no $(STA) or $(YOSYS) (make deps installs them)" >> $(RESULTS); exit 0; fi; \
	VTA_TOP=timing_tiny sh hw/synth.sh "$(YOSYS)" $(GEN) $$out tests/timing/timing_tiny.v > $$out/run.log 2>&1 && \
	VTA_TOP=timing_tiny sh hw/timing.sh "$(STA)" $$out >> $$out/run.log 2>&1; \
	mkdir -p $$out/clk_i && sed 's/\<clk\>/clk_i/g' tests/timing/timing_tiny.v > $$out/clk_i/timing_tiny.v && \
	VTA_PARTS=xczu3eg VTA_TOP=timing_tiny sh hw/synth.sh "$(YOSYS)" $(GEN) $$out/clk_i $$out/clk_i/timing_tiny.v > $$out/clk_i/run.log 2>&1 && \
	VTA_PARTS=xczu3eg VTA_TOP=timing_tiny sh hw/timing.sh "$(STA)" $$out/clk_i >> $$out/clk_i/run.log 2>&1; \
	if grep -Eq '^TIMING xc7z020 est_ns=0\.83 levels=1 path=[ab]_q_FDRE_Q -> q_o_FDRE_Q$$' $$out/run.log && \
	   grep -Eq '^TIMING xczu3eg est_ns=0\.60 levels=1 path=[ab]_q_FDRE_Q -> q_o_FDRE_Q$$' $$out/run.log && \
	   grep -Eq '^TIMING xczu3eg est_ns=0\.60 levels=1 path=[ab]_q_FDRE_Q -> q_o_FDRE_Q$$' $$out/clk_i/run.log; then \
		echo "PASS timing-flow (the hand-derived path of tests/timing/timing_tiny.v on both parts, and clocked by clk_i)" >> $(RESULTS); \
	else echo "FAIL timing-flow: see $$out/run.log and $$out/clk_i/run.log" >> $(RESULTS); fi
