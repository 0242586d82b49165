# The runtime: TVM-compatible C API (VTA-SPEC 6 and 7) over the driver.
LIB_SRCS += runtime/alloc.c runtime/validate.c runtime/devices.c runtime/cmdq.c \
	runtime/uopcache.c runtime/context.c runtime/api_thread.c runtime/api_mem.c \
	runtime/api_cmd.c runtime/api_regs.c runtime/vtam.c \
	runtime/model/graph.c runtime/model/hostgemm.c runtime/model/hostops.c runtime/model/hostelem.c \
	runtime/model/model.c runtime/model/image.c \
	runtime/model/segments.c
# The host convolutions' GEMM and im2col loops (as the golden model's, sim/module.mk).
$(OBJ)/runtime/model/hostgemm.o: OPT := -O2 -ftree-vectorize

# <vta/pynq_driver.h>: the register window of the configuration's board.
BOARD_REGS_H := $(GEN)/vta_board_regs.h
$(BOARD_REGS_H): boards/boards.txt runtime/board_regs.sh $(CONFIG_H)
	@mkdir -p $(dir $@)
	sh runtime/board_regs.sh boards/boards.txt $(CONFIG_H) > $@.tmp && mv $@.tmp $@
$(OBJ)/runtime/api_regs.o: $$(REGMAP_H) $(BOARD_REGS_H)
ALL_TARGETS += $(BOARD_REGS_H)

# Tests: the runtime on the golden model.
RT_TEST_OBJS := $(OBJ)/tests/runtime/rt_cases.o
TEST_PROGS += $(BIN)/tests/runtime/test_runtime
$(BIN)/tests/runtime/test_runtime: $(OBJ)/tests/runtime/test_runtime.o $(RT_TEST_OBJS) $(TEST_HARNESS) $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) -pthread
$(OBJ)/tests/runtime/test_runtime.o: $$(REGMAP_H) $$(BOARD_REGS_H)
-include $(OBJ)/tests/runtime/test_runtime.d $(OBJ)/tests/runtime/rt_cases.d

# The .vtam container: checksum vectors and a mutation corpus.
TEST_PROGS += $(BIN)/tests/runtime/test_vtam
$(BIN)/tests/runtime/test_vtam: $(OBJ)/tests/runtime/test_vtam.o $(TEST_HARNESS) $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/tests/runtime/test_vtam.d

# The GRAPH section's decoder, on graphs written by hand.
TEST_PROGS += $(BIN)/tests/runtime/test_mgraph
$(BIN)/tests/runtime/test_mgraph: $(OBJ)/tests/runtime/test_mgraph.o $(TEST_HARNESS) $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/tests/runtime/test_mgraph.d

# Benches: fsim only here; with the RTL the rtl-linked one below replaces it.
$(BIN)/tests/runtime/bench_runtime: $(OBJ)/tests/runtime/bench_runtime.o $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/tests/runtime/bench_runtime.d

# `vta info`
VTA_TOOL_SRCS += tools/info.c

# The example for users, built against the in-tree library.
ALL_TARGETS += $(BIN)/matmul
$(BIN)/matmul: $(OBJ)/examples/matmul.o $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/examples/matmul.d

# pkg-config file and `make install` (PREFIX, DESTDIR).
PREFIX ?= /usr/local
VTA_VERSION := 0.1.0

INSTALL_HEADERS := include/vta/driver.h include/vta/runtime.h include/vta/hw_spec.h \
	include/vta/error.h include/vta/device.h include/vta/isa.h include/vta/fsim.h \
	include/vta/pynq_driver.h include/vta/vtam.h include/vta/model.h
.PHONY: install
install: build-all
	install -d $(DESTDIR)$(PREFIX)/include/vta/runtime $(DESTDIR)$(PREFIX)/lib/pkgconfig \
		$(DESTDIR)$(PREFIX)/bin
	install -m 644 $(INSTALL_HEADERS) $(CONFIG_H) $(REGMAP_H) $(BOARD_REGS_H) \
		$(DESTDIR)$(PREFIX)/include/vta/
	install -m 644 include/vta/runtime/runtime.h $(DESTDIR)$(PREFIX)/include/vta/runtime/
	install -m 644 $(LIB)/libvta.a $(DESTDIR)$(PREFIX)/lib/
	install -m 755 $(LIB)/libvta.so $(DESTDIR)$(PREFIX)/lib/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VTA_VERSION)|g' \
		-e 's|@CONFIG@|$(CFG_NAME)|g' runtime/vta.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/vta.pc
	install -m 755 $(BIN)/vta $(DESTDIR)$(PREFIX)/bin/
	$(if $(RTLSIM_LIB),install -m 755 $(LIB)/libvta-rtl.so $(DESTDIR)$(PREFIX)/lib/)
	$(if $(RTLSIM_LIB),sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VTA_VERSION)|g' \
		-e 's|@CONFIG@|$(CFG_NAME)|g' runtime/vta-rtl.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/vta-rtl.pc)

# examples/classify.c on a compiled ResNet-8 (CIFAR-10), against `vta run --simulate`.
CLASSIFY_MODEL ?= ../shared/models/resnet8-cifar10-float.tflite
CLASSIFY_CALIB ?= --calib=../shared/data/cifar10-test-2k.bin --calib-count=20
CLASSIFY_LABELS ?= ../shared/models/cifar10_labels.txt
CLASSIFY_IMAGES ?= ../shared/images/cat.bmp ../shared/images/bird.bmp ../shared/images/owl.jpg

# include/vta/ holds exactly the installed headers (the rest, shared inside
# the tree, are in internal/). The example must build against the installed
# library with pkg-config; the
# libraries export exactly runtime/exports.txt, each name declared by an
# installed header, and an application's own functions named like the
# library's internals do not replace them.
.PHONY: check-install
check-install:
	@for h in include/vta/*.h include/vta/runtime/*.h; do \
		case " $(INSTALL_HEADERS) include/vta/runtime/runtime.h " in *" $$h "*) ;; \
		*) echo "$$h is in include/vta/ but not installed: install it or move it to internal/vta/"; \
		   exit 1;; esac; done
	rm -rf $(BUILD)/stage && $(MAKE) --no-print-directory install DESTDIR=$(CURDIR)/$(BUILD)/stage PREFIX=/usr
	@for so in $(BUILD)/stage/usr/lib/libvta*.so; do \
		nm -D --defined-only $$so | awk '{print $$3}' | sort > $(BUILD)/stage/exports.txt; \
		if ! diff -u runtime/exports.txt $(BUILD)/stage/exports.txt; then \
			echo "$$so exports other symbols than runtime/exports.txt (diff above)"; exit 1; fi; \
	done
	@for s in $$(cat runtime/exports.txt); do \
		grep -qw "$$s" $(BUILD)/stage/usr/include/vta/*.h $(BUILD)/stage/usr/include/vta/runtime/*.h || \
			{ echo "exported $$s is declared by no installed header"; exit 1; }; done
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(BUILD)/stage \
	PKG_CONFIG_LIBDIR=$(CURDIR)/$(BUILD)/stage/usr/lib/pkgconfig \
		sh -c '$(CC) -std=c11 -Wall -Wextra -Werror tests/runtime/interpose.c \
			$$(pkg-config --cflags --libs vta) -o $(BUILD)/stage/interpose'
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/stage/usr/lib VTA_TARGET=fsim $(BUILD)/stage/interpose
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(BUILD)/stage \
	PKG_CONFIG_LIBDIR=$(CURDIR)/$(BUILD)/stage/usr/lib/pkgconfig \
		sh -c '$(CC) -std=c11 -Wall -Wextra -Werror examples/matmul.c \
			$$(pkg-config --cflags --libs --static vta) -o $(BUILD)/stage/matmul'
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/stage/usr/lib VTA_TARGET=fsim $(BUILD)/stage/matmul
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(BUILD)/stage \
	PKG_CONFIG_LIBDIR=$(CURDIR)/$(BUILD)/stage/usr/lib/pkgconfig \
		sh -c '$(CC) -std=c11 -Wall -Wextra -Werror examples/classify.c \
			$$(pkg-config --cflags --libs --static vta) -o $(BUILD)/stage/classify'
	$(BIN)/vta compile $(CLASSIFY_MODEL) -o $(BUILD)/stage/classify.vtam $(CLASSIFY_CALIB)
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/stage/usr/lib VTA_TARGET=fsim sh tests/runtime/classify_check.sh \
		$(BIN)/vta $(BUILD)/stage/classify $(BUILD)/stage/classify.vtam $(CLASSIFY_LABELS) $(CLASSIFY_IMAGES)
ifneq ($(RTLSIM_LIB),)
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(BUILD)/stage \
	PKG_CONFIG_LIBDIR=$(CURDIR)/$(BUILD)/stage/usr/lib/pkgconfig \
		sh -c '$(CC) -std=c11 -Wall -Wextra -Werror examples/classify.c \
			$$(pkg-config --cflags --libs --static vta-rtl) -o $(BUILD)/stage/classify-rtl'
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/stage/usr/lib VTA_TARGET=rtl sh tests/runtime/classify_check.sh \
		$(BIN)/vta $(BUILD)/stage/classify-rtl $(BUILD)/stage/classify.vtam $(CLASSIFY_LABELS) $(CLASSIFY_IMAGES)
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(BUILD)/stage \
	PKG_CONFIG_LIBDIR=$(CURDIR)/$(BUILD)/stage/usr/lib/pkgconfig \
		sh -c '$(CC) -std=c11 -Wall -Wextra -Werror examples/matmul.c \
			$$(pkg-config --cflags --libs vta-rtl) -o $(BUILD)/stage/matmul-rtl'
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/stage/usr/lib VTA_TARGET=rtl $(BUILD)/stage/matmul-rtl 4 32 32
	PKG_CONFIG_SYSROOT_DIR=$(CURDIR)/$(BUILD)/stage \
	PKG_CONFIG_LIBDIR=$(CURDIR)/$(BUILD)/stage/usr/lib/pkgconfig \
		sh -c '$(CXX) -std=c++11 -Wall -Wextra -Werror tests/runtime/tvm_board_test.cc \
			$$(pkg-config --cflags --libs vta-rtl) -o $(BUILD)/stage/tvm_board_test'
	LD_LIBRARY_PATH=$(CURDIR)/$(BUILD)/stage/usr/lib VTA_TARGET=rtl $(BUILD)/stage/tvm_board_test
endif

# `make test` runs check-install (plain build only) and records the result.
TEST_EXTRA += test-install
.PHONY: test-install
test-install:
	@if $(MAKE) --no-print-directory check-install > $(BUILD)/check-install.log 2>&1; then \
		echo "PASS install/pkg-config-matmul" >> $(RESULTS); \
		echo "PASS install/pkg-config-classify" >> $(RESULTS); \
	else tail -20 $(BUILD)/check-install.log; \
		echo "FAIL install/pkg-config-matmul-classify: see $(BUILD)/check-install.log" >> $(RESULTS); fi

# `vta info zynq` on a fake board tree, and the device lock between processes.
TEST_EXTRA += test-fake-board
.PHONY: test-fake-board
test-fake-board: $(BIN)/vta
	@sh tests/runtime/fake_board.sh $(BIN)/vta $(RESULTS)

# The rtl backend and the runtime cases on the RTL (rtl and zynq-over-RTL):
# only where hw/module.mk builds the Verilator model.
ifneq ($(RTLSIM_LIB),)
$(OBJ)/driver/backend_rtl.o: $(REGMAP_H)
RTL_BACKEND_LINK := $(OBJ)/driver/backend_rtl.o $(RTLSIM_LIB) $(LIB)/libvta.a $(RTL_LIB)
TEST_PROGS += $(BIN)/tests/runtime/test_runtime_rtl
$(BIN)/tests/runtime/test_runtime_rtl: $(OBJ)/tests/runtime/test_runtime_rtl.o $(RT_TEST_OBJS) \
		$(OBJ)/tests/runtime/rt_recovery.o $(OBJ)/tests/runtime/board_model.o \
		$(OBJ)/tests/runtime/xrt_model.o $(TEST_HARNESS) $(RTL_BACKEND_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(RTL_LDLIBS)
$(OBJ)/tests/runtime/test_runtime_rtl.o $(OBJ)/tests/runtime/board_model.o: $$(REGMAP_H) \
	$$(BOARD_REGS_H)
-include $(OBJ)/tests/runtime/test_runtime_rtl.d $(OBJ)/driver/backend_rtl.d \
	$(OBJ)/tests/runtime/rt_recovery.d $(OBJ)/tests/runtime/board_model.d \
	$(OBJ)/tests/runtime/xrt_model.d

BENCH_PROGS += $(BIN)/tests/runtime/bench_runtime_rtl
# The same bench source with the simulated board (board_model.c) compiled in.
$(OBJ)/tests/runtime/bench_runtime_rtl.o: tests/runtime/bench_runtime.c $(CONFIG_H) $$(REGMAP_H)
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -DVTA_BENCH_BOARD $(CFLAGS) -MMD -MP -c $< -o $@
-include $(OBJ)/tests/runtime/bench_runtime_rtl.d
$(BIN)/tests/runtime/bench_runtime_rtl: $(OBJ)/tests/runtime/bench_runtime_rtl.o \
		$(OBJ)/tests/runtime/board_model.o $(RTL_BACKEND_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(RTL_LDLIBS)

ALL_TARGETS += $(BIN)/matmul-rtl $(LIB)/libvta-rtl.so
# The whole library with the rtl backend and the Verilator model inside, for
# programs built against the installed library (pkg-config vta-rtl).
# The Verilator model's C++ symbols stay inside (runtime/exports.map).
$(OBJ)/driver/backend_rtl.o $(OBJ)/sim/rtl/rtlsim.o: CFLAGS += -fvisibility=hidden
$(LIB)/libvta-rtl.so: $$(LIB_OBJS) $(OBJ)/driver/backend_rtl.o $(OBJ)/sim/rtl/rtlsim.o $(RTL_LIB) runtime/exports.map
	@mkdir -p $(dir $@)
	$(CC) -shared $(LDFLAGS) -Wl,--version-script=runtime/exports.map -o $@ $(LIB_OBJS) \
		$(OBJ)/driver/backend_rtl.o $(OBJ)/sim/rtl/rtlsim.o \
		-Wl,--whole-archive $(RTL_LIB) -Wl,--no-whole-archive $(LDLIBS) $(RTL_LDLIBS)
$(BIN)/matmul-rtl: $(OBJ)/examples/matmul.o $(RTL_BACKEND_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS) $(RTL_LDLIBS)
else
BENCH_PROGS += $(BIN)/tests/runtime/bench_runtime
endif
