# Boards: the board table (boards/boards.txt -> vta_boards.h), `vta flash`
# (fpga_manager, xdevcfg, USB-JTAG), its tests, the cross-built runtime under
# qemu-user (make test-cross), and the Vivado projects (make bitstream).
# See docs/boards.md.

BOARDS_H := $(GEN)/vta_boards.h
$(BOARDS_H): boards/boards.txt boards/boardgen.sh
	@mkdir -p $(dir $@)
	sh boards/boardgen.sh boards/boards.txt > $@.tmp && mv $@.tmp $@
ALL_TARGETS += $(BOARDS_H)

# ---------------------------------------------------------------- vta flash
# The USB-JTAG cable needs libusb-1.0 for the machine we build for. For a
# cross build pkg-config looks only in that architecture's pkgconfig folder,
# so the cable is compiled in only when libusb-1.0-0-dev:armhf/arm64 is
# installed; without it `vta flash --jtag` says so (the on-board fpga_manager
# path needs no library).
ifeq ($(CROSS),)
USB_PKG_CONFIG := pkg-config
else
USB_PKG_CONFIG := PKG_CONFIG_PATH= PKG_CONFIG_LIBDIR=/usr/lib/$(patsubst %-,%,$(CROSS))/pkgconfig pkg-config
endif
HAVE_LIBUSB := $(shell $(USB_PKG_CONFIG) --exists libusb-1.0 2>/dev/null && echo 1)
ifeq ($(HAVE_LIBUSB),1)
USB_CFLAGS := $(shell $(USB_PKG_CONFIG) --cflags libusb-1.0) -DVTA_HAVE_LIBUSB
USB_LIBS := $(shell $(USB_PKG_CONFIG) --libs libusb-1.0)
endif

FLASH_SRCS := boards/flash/bitfile.c boards/flash/fpgamgr.c boards/flash/jtag.c boards/flash/ftdi.c
FLASH_OBJS := $(FLASH_SRCS:%.c=$(OBJ)/%.o)
VTA_TOOL_SRCS += $(FLASH_SRCS) boards/flash/flash_cmd.c
VTA_TOOL_LIBS += $(USB_LIBS)

$(FLASH_OBJS) $(OBJ)/boards/flash/flash_cmd.o: $(BOARDS_H)
$(OBJ)/boards/flash/ftdi.o: CPPFLAGS += $(USB_CFLAGS)
$(OBJ)/boards/flash/fpgamgr.o: $$(REGMAP_H)

# Tests: .bit parsing and the fpga_manager path on a fake sysfs tree
# (test_flash), the JTAG engine against a software TAP chain (test_jtag).
BOARD_TEST_OBJS := $(addprefix $(OBJ)/tests/boards/,test_flash.o test_jtag.o tap_model.o bitgen.o)
$(BOARD_TEST_OBJS): $(BOARDS_H)
$(OBJ)/tests/boards/%.o: CPPFLAGS += -Iboards/flash -Itests

define board_test
TEST_PROGS += $(BIN)/tests/boards/$(1)
$(BIN)/tests/boards/$(1): $(OBJ)/tests/boards/$(1).o $(2) $(TEST_HARNESS) $(LIB)/libvta.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
-include $(OBJ)/tests/boards/$(1).d
endef
$(eval $(call board_test,test_flash,$(OBJ)/boards/flash/bitfile.o $(OBJ)/boards/flash/fpgamgr.o))
$(eval $(call board_test,test_jtag,$(OBJ)/tests/boards/tap_model.o $(OBJ)/boards/flash/bitfile.o $(OBJ)/boards/flash/jtag.o))
-include $(OBJ)/tests/boards/tap_model.d

# bitgen: the synthetic bitstreams of tests/boards/bitgen.h as files (fuzz
# seeds, the valgrind runs of vta flash).
$(OBJ)/tests/boards/bitgen.o: $(BOARDS_H)
$(BIN)/tests/boards/bitgen: $(OBJ)/tests/boards/bitgen.o $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/tests/boards/bitgen.d

# ---------------------------------------------------------------- test-cross
# Build libvta, vta and the test programs that need no Verilator model for
# PYNQ (armhf) and Ultra96 (arm64), then run them under qemu-user with the
# fsim backend. Appends PASS/FAIL lines to $(RESULTS).
CROSS_TRIPLETS := arm-linux-gnueabihf aarch64-linux-gnu
# Test programs that do not link the Verilator model.
CROSS_TEST_PROGS = $(foreach p,$(TEST_PROGS),$(if $(findstring rtl,$(notdir $(p)))$(findstring cosim,$(notdir $(p))),,$(p)))

# TRIPLET:PROGRAM pairs whose failures under qemu are known bugs owned
# elsewhere: their FAIL lines are recorded as XFAIL (not counted, but listed
# on the console) until fixed. Remove an entry as soon as it passes. None now.
CROSS_XFAIL ?=

.PHONY: cross-build cross-build-tests cross-list test-cross
cross-build: cross-build-tests $(BIN)/vta
cross-build-tests: $(LIB)/libvta.a $(LIB)/libvta.so $$(CROSS_TEST_PROGS)
cross-list:
	@echo $(CROSS_TEST_PROGS)

TEST_EXTRA += test-cross
test-cross:
	@mkdir -p $(dir $(RESULTS))
	@for t in $(CROSS_TRIPLETS); do \
		case $$t in aarch64*) q=qemu-aarch64-static;; *) q=qemu-arm-static;; esac; \
		label=cross-$$t; \
		if ! command -v $${t}-gcc >/dev/null || ! command -v $$q >/dev/null; then \
			echo "FAIL $$label: $${t}-gcc or $$q is missing (make deps installs them)" >> $(RESULTS); \
			continue; \
		fi; \
		echo "== cross build $$t"; \
		if ! $(MAKE) --no-print-directory -j2 CROSS=$$t- cross-build-tests > build/cross-$$t.log 2>&1; then \
			tail -20 build/cross-$$t.log; \
			echo "FAIL $$label/build: make CROSS=$$t- failed (build/cross-$$t.log)" >> $(RESULTS); \
			continue; \
		fi; \
		echo "PASS $$label/build (libvta, test programs)" >> $(RESULTS); \
		vta_ok=1; \
		if ! $(MAKE) --no-print-directory -j2 CROSS=$$t- cross-build >> build/cross-$$t.log 2>&1; then \
			vta_ok=; grep -E 'error|undefined' build/cross-$$t.log | tail -5; \
			echo "FAIL $$label/build-vta: the vta command does not build for $$t (build/cross-$$t.log)" >> $(RESULTS); \
		else echo "PASS $$label/build-vta" >> $(RESULTS); fi; \
		d=build/$$t; \
		for p in $$($(MAKE) --no-print-directory -s CROSS=$$t- cross-list); do \
			file $$p | grep -q 'ARM\|aarch64' || { echo "FAIL $$label $$p is not an ARM binary" >> $(RESULTS); continue; }; \
			echo "== $$q $$p"; \
			r=$(RESULTS); x=; \
			for k in $(CROSS_XFAIL); do case $$t:$$p in $${k%%:*}:*/$${k#*:}) x=1; r=build/cross-$$t-xfail.txt; rm -f $$r;; esac; done; \
			QEMU_LD_PREFIX=/usr/$$t VTA_ROOT=$(CURDIR) VTA_TARGET=fsim $$q $$p --results $$r --label $$label \
				|| echo "FAIL $$label $$p exited with status $$?" >> $$r; \
			if [ -n "$$x" ]; then sed 's/^FAIL/XFAIL/' $$r >> $(RESULTS); grep '^FAIL' $$r | sed 's/^/known, see CROSS_XFAIL: /'; fi; \
		done; \
		[ -n "$$vta_ok" ] || continue; \
		if QEMU_LD_PREFIX=/usr/$$t VTA_TARGET=fsim $$q $$d/bin/vta sim examples/gemm.s > build/cross-$$t-sim.txt 2>&1 \
		   && $(BIN)/vta sim examples/gemm.s > build/cross-host-sim.txt 2>&1 \
		   && cmp -s build/cross-$$t-sim.txt build/cross-host-sim.txt; then \
			echo "PASS $$label/vta-sim-gemm (same output as the host build)" >> $(RESULTS); \
		else \
			echo "FAIL $$label/vta-sim-gemm: $$q $$d/bin/vta sim examples/gemm.s differs from the host (build/cross-$$t-sim.txt)" >> $(RESULTS); \
		fi; \
		if QEMU_LD_PREFIX=/usr/$$t $$q $$d/bin/vta flash --info /nonexistent.bit 2>&1 | grep -q 'cannot open /nonexistent.bit'; then \
			echo "PASS $$label/vta-flash-error" >> $(RESULTS); \
		else \
			echo "FAIL $$label/vta-flash-error: vta flash did not name the missing file" >> $(RESULTS); \
		fi; \
	done
test-cross: $(BIN)/vta

# test-boards-tcl: the Vivado flow under tclsh with Vivado's commands stubbed
# (tests/boards/vivado_stub.tcl): the board rows reach Vivado as expected and
# a configuration of the wrong bus width is refused. Needs only tclsh.
TEST_EXTRA += test-boards-tcl
.PHONY: test-boards-tcl
test-boards-tcl: $(GEN)/vta_config.vh
	@if ! command -v tclsh >/dev/null; then \
		echo "FAIL boards-tcl: no tclsh (make deps installs the tcl package)" >> $(RESULTS); exit 0; fi; \
	id=$$(sed -n "s/.*VTA_CONFIG_ID 32'h\([0-9A-Fa-f]*\).*/\1/p" $(GEN)/vta_config.vh); \
	bus=$$(sed -n 's/.*VTA_BUS_WIDTH \([0-9]*\).*/\1/p' $(GEN)/vta_config.vh); \
	out=$(BUILD)/boards/tcltest; mkdir -p $$out; \
	for b in $(BOARD_NAMES); do \
		tclsh tests/boards/vivado_stub.tcl boards/common/vta_bd.tcl $$b $(CURDIR) $(CURDIR)/$(GEN) $$out > $$out/$$b.log 2>&1; rc=$$?; \
		want=$$(awk -v b=$$b '$$1=="BOARD" && $$2==b {print $$7, $$11}' boards/boards.txt); \
		base=$${want% *}; bits=$${want#* }; \
		if [ "$$bits" = "$$bus" ]; then \
			if [ $$rc -eq 0 ] && grep -q "offset $$base" $$out/$$b.log && grep -q "DATA_WIDTH $$bits" $$out/$$b.log \
			   && grep -q "USERID 0x$$id" $$out/vta_userid.xdc && grep -q "vta: WNS clk_fpga_0 0.456 ns" $$out/$$b.log \
			   && grep -q "^  | Slice LUTs  *| 41234" $$out/$$b.log; then \
				echo "PASS boards-tcl/$$b (registers at $$base, $$bits-bit port, UserID 0x$$id, WNS and resources printed)" >> $(RESULTS); \
			else echo "FAIL boards-tcl/$$b: see $$out/$$b.log" >> $(RESULTS); fi; \
		else \
			if [ $$rc -ne 0 ] && grep -q "has a $$bus-bit AXI bus" $$out/$$b.log; then \
				echo "PASS boards-tcl/$$b refuses a $$bus-bit configuration" >> $(RESULTS); \
			else echo "FAIL boards-tcl/$$b: a $$bus-bit configuration was not refused ($$out/$$b.log)" >> $(RESULTS); fi; \
		fi; \
	done

# ---------------------------------------------------------------- bitstream
# make bitstream BOARD=pynq-z1|pynq-z2|ultra96v2 (Ultra96 with
# CONFIG=config/ultra96.json: its AXI port is 128 bits wide).
VIVADO ?= vivado
BOARD ?=
BOARD_NAMES := $(shell awk '$$1=="BOARD" {print $$2}' boards/boards.txt)
BITSTREAM_DIR = $(BUILD)/boards/$(BOARD)
.PHONY: bitstream
bitstream: $(GEN)/vta_config.vh $(if $(REGMAP_H),$(GEN)/vta_regmap.vh)
	@if [ -z "$(filter $(BOARD),$(BOARD_NAMES))" ] || [ -z "$(BOARD)" ]; then \
		echo "make bitstream: say which board: BOARD=$(subst $(eval) ,|,$(BOARD_NAMES))" >&2; exit 2; fi
	@if ! command -v $(VIVADO) >/dev/null 2>&1; then \
		echo "make bitstream: Vivado is not installed (no '$(VIVADO)' on PATH)." >&2; \
		echo "  It needs AMD Vivado 2020.2 or newer with Zynq-7000 and Zynq UltraScale+ device" >&2; \
		echo "  support (the free ML Standard edition covers xc7z020 and xczu3eg): run" >&2; \
		echo "  'source <Vivado>/settings64.sh' first, or set VIVADO=/path/to/vivado." >&2; \
		exit 2; fi
	@mkdir -p $(BITSTREAM_DIR)
	cd $(BITSTREAM_DIR) && $(VIVADO) -mode batch -nojournal -log vivado.log \
		-source $(CURDIR)/boards/common/vta_bd.tcl \
		-tclargs $(BOARD) $(CURDIR) $(CURDIR)/$(GEN) $(CURDIR)/$(BITSTREAM_DIR)
	@ls -l $(BITSTREAM_DIR)/vta-$(BOARD).bit $(BITSTREAM_DIR)/vta-$(BOARD).bin $(BITSTREAM_DIR)/vta-$(BOARD).hwh
