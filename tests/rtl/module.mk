# RTL tests that are not programs of the C harness (included after hw/module.mk).

# test-fifo-headreg: vta_fifo's HeadReg = 1 form against HeadReg = 0 and a
# behavioural queue, cycle by cycle, under one random push/pop/clear/reset
# stream (tests/rtl/fifo_headreg_tb.v, Icarus Verilog). The shapes include
# vta_top's instruction queues at this build's VTA_INSN_QUEUE_DEPTH. About 3 s
# of CPU. make test-fifo-headreg FIFO_SEED=n [FIFO_CYCLES=n] runs another stream.
IVERILOG ?= iverilog
VVP ?= vvp
FIFO_SEED ?= 1
FIFO_CYCLES ?=
TEST_EXTRA += test-fifo-headreg
.PHONY: test-fifo-headreg
test-fifo-headreg: $(GEN)/vta_config.vh
	@mkdir -p $(BUILD)/fifo-headreg $(dir $(RESULTS)); out=$(BUILD)/fifo-headreg; \
	if ! command -v "$(IVERILOG)" >/dev/null || ! command -v "$(VVP)" >/dev/null; then \
		echo "FAIL fifo-headreg: no $(IVERILOG) or $(VVP) (make deps installs iverilog)" >> $(RESULTS); exit 0; fi; \
	$(IVERILOG) -g2012 -Wall -I$(GEN) -o $$out/tb.vvp tests/rtl/fifo_headreg_tb.v hw/vta_fifo.v hw/vta_sram.v \
		> $$out/run.log 2>&1 && \
	$(VVP) -n $$out/tb.vvp +seed=$(FIFO_SEED) $(if $(FIFO_CYCLES),+cycles=$(FIFO_CYCLES)) >> $$out/run.log 2>&1; \
	if grep -q '^PASS fifo-headreg' $$out/run.log; then grep '^PASS fifo-headreg' $$out/run.log >> $(RESULTS); \
	else tail -20 $$out/run.log; echo "FAIL fifo-headreg: see $$out/run.log" >> $(RESULTS); fi

# test_axi_monitor: the harness's AXI protocol monitor on scripted port
# sequences, no RTL: sim/rtl/rtlsim.c is compiled into the test with a
# stand-in for the Verilated model (tests/rtl/test_axi_monitor.c).
ifeq ($(CROSS),)
$(OBJ)/tests/rtl/test_axi_monitor.o: CPPFLAGS += -Isim/rtl $(RTLSIM_CPPFLAGS)
$(OBJ)/tests/rtl/test_axi_monitor.o: $(RTL_PORTS) sim/rtl/rtlsim.c
$(BIN)/tests/test_axi_monitor: $(OBJ)/tests/rtl/test_axi_monitor.o $(TEST_HARNESS) $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/tests/rtl/test_axi_monitor.d
TEST_PROGS += $(BIN)/tests/test_axi_monitor
endif

# test-gemm-equiv: the GEMM array as synthesized (hw/vta_gemm_array.v) against
# the form the Verilator model is built from (sim/rtl/vta_gemm_array.v, renamed
# vta_gemm_array_fast here) and against dot products computed in the bench,
# cycle by cycle (tests/rtl/gemm_equiv_tb.v, Icarus Verilog), for this build's
# configuration and for batch2_block8 (two batch rows, 8x8 blocks). About 7 s
# of CPU. make test-gemm-equiv GEMM_SEED=n [GEMM_CYCLES=n] runs another stream.
GEMM_SEED ?= 1
GEMM_CYCLES ?=
GEMM_EQUIV_CONFIGS := $(sort $(CONFIG) config/batch2_block8.json)
TEST_EXTRA += test-gemm-equiv
.PHONY: test-gemm-equiv
test-gemm-equiv: $(CONFIGGEN)
	@mkdir -p $(BUILD)/gemm-equiv $(dir $(RESULTS)); out=$(BUILD)/gemm-equiv; \
	if ! command -v "$(IVERILOG)" >/dev/null || ! command -v "$(VVP)" >/dev/null; then \
		echo "FAIL gemm-equiv: no $(IVERILOG) or $(VVP) (make deps installs iverilog)" >> $(RESULTS); exit 0; fi; \
	sed 's/^module vta_gemm_array (/module vta_gemm_array_fast (/' sim/rtl/vta_gemm_array.v > $$out/fast.v; \
	if ! grep -q '^module vta_gemm_array_fast (' $$out/fast.v; then \
		echo "FAIL gemm-equiv: no 'module vta_gemm_array (' line in sim/rtl/vta_gemm_array.v" >> $(RESULTS); exit 0; fi; \
	for c in $(GEMM_EQUIV_CONFIGS); do \
		n=$$(basename $$c .json); mkdir -p $$out/$$n; \
		$(CONFIGGEN) $$c $$out/$$n > $$out/$$n/run.log 2>&1 && \
		$(IVERILOG) -g2012 -Wall -I$$out/$$n -o $$out/$$n/tb.vvp tests/rtl/gemm_equiv_tb.v \
			hw/vta_gemm_array.v $$out/fast.v >> $$out/$$n/run.log 2>&1 && \
		$(VVP) -n $$out/$$n/tb.vvp +seed=$(GEMM_SEED) $(if $(GEMM_CYCLES),+cycles=$(GEMM_CYCLES)) >> $$out/$$n/run.log 2>&1; \
		if grep -q '^PASS gemm-equiv' $$out/$$n/run.log; then \
			sed -n "s/^PASS gemm-equiv/PASS gemm-equiv $$n/p" $$out/$$n/run.log >> $(RESULTS); \
		else tail -20 $$out/$$n/run.log; echo "FAIL gemm-equiv $$n: see $$out/$$n/run.log" >> $(RESULTS); fi; \
	done

# test-sram-equiv: the SRAM as synthesized (hw/vta_sram.v) against the form the
# Verilator model is built from (sim/rtl/vta_sram.v, renamed vta_sram_fast here)
# and a row array kept in the bench, cycle by cycle, four shapes (narrow and
# wide rows, OutReg 0 and 1), random enables and addresses (tests/rtl/
# sram_equiv_tb.v, Icarus Verilog). About 1 s of CPU. make test-sram-equiv
# SRAM_SEED=n [SRAM_CYCLES=n] runs another stream.
SRAM_SEED ?= 1
SRAM_CYCLES ?=
TEST_EXTRA += test-sram-equiv
.PHONY: test-sram-equiv
test-sram-equiv:
	@mkdir -p $(BUILD)/sram-equiv $(dir $(RESULTS)); out=$(BUILD)/sram-equiv; \
	if ! command -v "$(IVERILOG)" >/dev/null || ! command -v "$(VVP)" >/dev/null; then \
		echo "FAIL sram-equiv: no $(IVERILOG) or $(VVP) (make deps installs iverilog)" >> $(RESULTS); exit 0; fi; \
	sed 's/^module vta_sram #(/module vta_sram_fast #(/' sim/rtl/vta_sram.v > $$out/fast.v; \
	if ! grep -q '^module vta_sram_fast #(' $$out/fast.v; then \
		echo "FAIL sram-equiv: no 'module vta_sram #(' line in sim/rtl/vta_sram.v" >> $(RESULTS); exit 0; fi; \
	$(IVERILOG) -g2012 -Wall -o $$out/tb.vvp tests/rtl/sram_equiv_tb.v hw/vta_sram.v $$out/fast.v \
		> $$out/run.log 2>&1 && \
	$(VVP) -n $$out/tb.vvp +seed=$(SRAM_SEED) $(if $(SRAM_CYCLES),+cycles=$(SRAM_CYCLES)) >> $$out/run.log 2>&1; \
	if grep -q '^PASS sram-equiv' $$out/run.log; then grep '^PASS sram-equiv' $$out/run.log >> $(RESULTS); \
	else tail -20 $$out/run.log; echo "FAIL sram-equiv: see $$out/run.log" >> $(RESULTS); fi

# test-rtl-params: the RTL's elaboration checks stop Verilator and Yosys on
# parameters the design cannot take, naming the parameter (a DMA whose
# in-flight count is not a power of two, a burst longer than AXI3's 16
# beats, a FIFO whose HeadReg is neither 0 nor 1), and let the shipped
# values through.
TEST_EXTRA += test-rtl-params
.PHONY: test-rtl-params
test-rtl-params: $(GEN)/vta_config.vh
	@mkdir -p $(dir $(RESULTS)); \
	lint="verilator --lint-only -Wall -I$(GEN) hw/lint.vlt hw/vta_dma.v hw/vta_fifo.v hw/vta_sram.v --top-module vta_dma"; \
	for c in "RdOut=6:RdOut = 6" "WrOut=1:WrOut = 1" "MaxBurst=32:MaxBurst = 32"; do \
		p=$${c%%:*}; want=$${c#*:}; \
		if $$lint -G$$p 2>&1 | grep -q "USERERROR.*$$want"; then echo "PASS rtl-params/dma-$$p refused" >> $(RESULTS); \
		else echo "FAIL rtl-params/dma-$$p: no elaboration error naming $$want" >> $(RESULTS); fi; \
	done; \
	if $$lint > /dev/null 2>&1; then echo "PASS rtl-params/dma-defaults" >> $(RESULTS); \
	else echo "FAIL rtl-params/dma-defaults: the shipped parameters are refused" >> $(RESULTS); fi; \
	if yosys -q -p "read_verilog -I$(GEN) hw/vta_fifo.v hw/vta_sram.v; chparam -set HeadReg 2 vta_fifo; hierarchy -top vta_fifo" 2>&1 \
		| grep -q "ERROR.*HeadReg"; then echo "PASS rtl-params/fifo-headreg-yosys refused" >> $(RESULTS); \
	else echo "FAIL rtl-params/fifo-headreg-yosys: Yosys took HeadReg = 2" >> $(RESULTS); fi
