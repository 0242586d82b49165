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
