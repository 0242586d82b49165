# The VTA compiler (compiler/, docs/compiler.md): libvtacc.a, `vta compile`,
# `vta run`, its tests and benchmarks, and `make mnist-demo`.
# Host-only: left out of cross builds (CROSS=...).
ifeq ($(CROSS),)

CC_GEN := $(BUILD)/gen
ONNX_PROTO ?= /usr/include/onnx/onnx.proto
# Folders by stage (docs/compiler.md, "Source map"); each has one header.
VC_SRCS := $(addprefix compiler/, \
	ir/ir.c ir/print.c ir/parse.c ir/verify.c ir/verify_code.c ir/util.c \
	exec/tensor.c exec/ref.c exec/ref_int8.c exec/ref_float.c exec/interp.c exec/detect.c \
	import/import.c import/compose.c import/unsupported.c import/onnx.c import/onnx_freeze.c import/flatbuf.c import/tflite.c import/darknet.c \
	pass/pass.c pass/manager.c pass/analysis.c pipeline/registry.c pipeline/inject_fault.c \
	graph/canonicalize.c graph/fold_bn.c graph/fold_const.c graph/partition.c graph/fuse.c graph/pack.c \
	quant/calibrate.c quant/quantize.c \
	vta/plan.c vta/tile.c vta/lower.c vta/tokens.c vta/emit.c vta/cost.c vta/analyses.c \
	artifact/write.c artifact/read.c artifact/runner.c \
	data/dataset.c data/input.c data/calib.c data/npy.c \
	cli/args.c cli/driver.c cli/guard.c cli/compile.c cli/opt.c cli/run.c cli/profile.c)
VC_OBJS := $(VC_SRCS:%.c=$(OBJ)/%.o) $(OBJ)/gen/onnx.pb-c.o
# OpenBLAS: the float reference (calibration) runs its convolutions as sgemm.
OPENBLAS_CFLAGS := $(shell pkg-config --cflags openblas 2>/dev/null)
OPENBLAS_LIBS := $(or $(shell pkg-config --libs openblas 2>/dev/null),-lopenblas)
VC_LIBS := $(LIB)/libvtacc.a $(LIB)/libvta.a -lprotobuf-c -lstb $(OPENBLAS_LIBS) -lm

# protobuf-c code generated from Debian's onnx.proto at build time.
$(CC_GEN)/onnx.pb-c.c $(CC_GEN)/onnx.pb-c.h: $(ONNX_PROTO)
	@mkdir -p $(CC_GEN)
	protoc-c --proto_path=$(dir $(ONNX_PROTO)) --c_out=$(CC_GEN) $(ONNX_PROTO)

# The generated file only: some warnings of -Wextra are expected in it.
$(OBJ)/gen/onnx.pb-c.o: $(CC_GEN)/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -I$(CC_GEN) $(CFLAGS) -Wno-unused-parameter -Wno-missing-field-initializers -c $< -o $@

$(OBJ)/compiler/%.o: compiler/%.c $(CONFIG_H) | $(CC_GEN)/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Icompiler -I$(CC_GEN) $(OPENBLAS_CFLAGS) $(CFLAGS) -MMD -MP -c $< -o $@

$(LIB)/libvtacc.a: $(VC_OBJS)
	@mkdir -p $(dir $@)
	rm -f $@ && $(AR) rcs $@ $^

-include $(VC_SRCS:%.c=$(OBJ)/%.d)

# `vta compile` and `vta run` (rows in tools/commands.c).
# (cli/ is in libvtacc; tools/commands.c names its entry points)
VTA_TOOL_LIBS += $(VC_LIBS)
$(BIN)/vta: $(LIB)/libvtacc.a
ALL_TARGETS += $(LIB)/libvtacc.a

# Tests and benches of the compiler.
$(OBJ)/tests/compiler/%.o: tests/compiler/%.c $(CONFIG_H) | $(CC_GEN)/onnx.pb-c.h
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) -Itests -Icompiler -I$(CC_GEN) $(CFLAGS) -MMD -MP -c $< -o $@

define vc_test
TEST_PROGS += $(BIN)/tests/compiler/$(1)
$(BIN)/tests/compiler/$(1): $(OBJ)/tests/compiler/$(1).o $(TEST_HARNESS) $(LIB)/libvtacc.a $(LIB)/libvta.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $(OBJ)/tests/compiler/$(1).o $$(VC_TEST_EXTRA) $(TEST_HARNESS) $(VC_LIBS) $$(LDLIBS)
-include $(OBJ)/tests/compiler/$(1).d
endef
$(eval $(call vc_test,test_compiler))
$(eval $(call vc_test,test_onnx))
# test_onnx and bench_onnx share the libonnx-testdata runner (onnx_conf.h).
$(BIN)/tests/compiler/test_onnx: $(OBJ)/tests/compiler/onnx_conf.o
$(BIN)/tests/compiler/test_onnx: VC_TEST_EXTRA = $(OBJ)/tests/compiler/onnx_conf.o
-include $(OBJ)/tests/compiler/onnx_conf.d
$(eval $(call vc_test,test_lowering))
$(eval $(call vc_test,test_datasets))
$(eval $(call vc_test,test_darknet))
# test_tflite writes its models with a FlatBuffers writer of its own.
$(eval $(call vc_test,test_tflite))
$(BIN)/tests/compiler/test_tflite: $(OBJ)/tests/compiler/fbwrite.o $(OBJ)/tests/compiler/tflbuild.o
$(BIN)/tests/compiler/test_tflite: VC_TEST_EXTRA = $(OBJ)/tests/compiler/fbwrite.o $(OBJ)/tests/compiler/tflbuild.o
$(eval $(call vc_test,test_ir))
$(eval $(call vc_test,test_verify))
$(eval $(call vc_test,test_passes))

# Per-layer statistics and vta profile's report, on fsim and (where the
# Verilator model is built) on the rtl backend; ResNet-18 on the RTL (make bench).
TEST_PROGS += $(BIN)/tests/compiler/test_stats
BENCH_PROGS += $(BIN)/bench_r18
VC_RTL_LINK = $(if $(RTLSIM_LIB),$(RTL_BACKEND_LINK),$(LIB)/libvta.a)
$(BIN)/tests/compiler/test_stats: $(OBJ)/tests/compiler/test_stats.o $(TEST_HARNESS) $(LIB)/libvtacc.a $$(VC_RTL_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/test_stats.o $(TEST_HARNESS) $(LIB)/libvtacc.a $(VC_RTL_LINK) \
		$(VC_LIBS) $(LDLIBS) $(if $(RTLSIM_LIB),$(RTL_LDLIBS))
$(BIN)/bench_r18: $(OBJ)/tests/compiler/bench_r18.o $(TEST_HARNESS) $(LIB)/libvtacc.a $$(VC_RTL_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/bench_r18.o $(TEST_HARNESS) $(LIB)/libvtacc.a $(VC_RTL_LINK) \
		$(VC_LIBS) $(LDLIBS) $(if $(RTLSIM_LIB),$(RTL_LDLIBS))
-include $(OBJ)/tests/compiler/test_stats.d $(OBJ)/tests/compiler/bench_r18.d

# The cycle model against the RTL (the Verilator model is linked where it is built).
ifneq ($(RTLSIM_LIB),)
TEST_PROGS += $(BIN)/tests/compiler/test_cost
$(BIN)/tests/compiler/test_cost: $(OBJ)/tests/compiler/test_cost.o $(OBJ)/tests/compiler/r18.o $(TEST_HARNESS) $(LIB)/libvtacc.a $(RTL_BACKEND_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/test_cost.o $(OBJ)/tests/compiler/r18.o $(TEST_HARNESS) $(LIB)/libvtacc.a $(RTL_BACKEND_LINK) \
		$(VC_LIBS) $(LDLIBS) $(RTL_LDLIBS)
endif
-include $(OBJ)/tests/compiler/test_cost.d

# With the Verilator model (hw/module.mk), the bench also runs on the rtl backend.
BENCH_PROGS += $(BIN)/bench_compiler
ifneq ($(RTLSIM_LIB),)
$(BIN)/bench_compiler: $(OBJ)/tests/compiler/bench_compiler.o $(OBJ)/tests/compiler/r18.o $(LIB)/libvtacc.a $(RTL_BACKEND_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/bench_compiler.o $(OBJ)/tests/compiler/r18.o $(LIB)/libvtacc.a $(RTL_BACKEND_LINK) \
		-lprotobuf-c -lstb $(OPENBLAS_LIBS) $(LDLIBS) $(RTL_LDLIBS)
else
$(BIN)/bench_compiler: $(OBJ)/tests/compiler/bench_compiler.o $(OBJ)/tests/compiler/r18.o $(LIB)/libvtacc.a $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/bench_compiler.o $(OBJ)/tests/compiler/r18.o $(VC_LIBS) $(LDLIBS)
endif
-include $(OBJ)/tests/compiler/bench_compiler.d $(OBJ)/tests/compiler/r18.d

# Device cycles of ResNet-18 kernels on the RTL against recorded budgets
# (tests/compiler/test_r18_cycles.c; the default configuration only).
ifneq ($(RTLSIM_LIB),)
TEST_PROGS += $(BIN)/tests/compiler/test_r18_cycles
$(BIN)/tests/compiler/test_r18_cycles: $(OBJ)/tests/compiler/test_r18_cycles.o $(OBJ)/tests/compiler/r18.o \
		$(TEST_HARNESS) $(LIB)/libvtacc.a $(RTL_BACKEND_LINK)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/test_r18_cycles.o $(OBJ)/tests/compiler/r18.o \
		$(TEST_HARNESS) $(LIB)/libvtacc.a $(RTL_BACKEND_LINK) -lprotobuf-c -lstb $(OPENBLAS_LIBS) \
		$(LDLIBS) $(RTL_LDLIBS)
-include $(OBJ)/tests/compiler/test_r18_cycles.d
endif

# Whole Darknet networks on the golden model (synthetic weights).
BENCH_PROGS += $(BIN)/bench_darknet
$(BIN)/bench_darknet: $(OBJ)/tests/compiler/bench_darknet.o $(TEST_HARNESS) $(LIB)/libvtacc.a $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/bench_darknet.o $(TEST_HARNESS) $(VC_LIBS) $(LDLIBS)
-include $(OBJ)/tests/compiler/bench_darknet.d
BENCH_PROGS += $(BIN)/bench_onnx
$(BIN)/bench_onnx: $(OBJ)/tests/compiler/bench_onnx.o $(OBJ)/tests/compiler/onnx_conf.o $(LIB)/libvtacc.a $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/bench_onnx.o $(OBJ)/tests/compiler/onnx_conf.o $(VC_LIBS) $(LDLIBS)
-include $(OBJ)/tests/compiler/bench_onnx.d
BENCH_PROGS += $(BIN)/bench_tflite
$(BIN)/bench_tflite: $(OBJ)/tests/compiler/bench_tflite.o $(LIB)/libvtacc.a $(if $(RTLSIM_LIB),$(RTL_BACKEND_LINK),$(LIB)/libvta.a)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(OBJ)/tests/compiler/bench_tflite.o $(LIB)/libvtacc.a \
		$(if $(RTLSIM_LIB),$(RTL_BACKEND_LINK),$(LIB)/libvta.a) -lprotobuf-c -lstb $(OPENBLAS_LIBS) $(LDLIBS) \
		$(if $(RTLSIM_LIB),$(RTL_LDLIBS))
-include $(OBJ)/tests/compiler/bench_tflite.d

# The MNIST demo: compile, run on the golden model, show a few digits.
MNIST_ONNX ?= ../shared/models/mnist-8.onnx
MNIST_IMAGES ?= ../shared/data/mnist-10k-images-idx3-ubyte
MNIST_LABELS ?= ../shared/data/mnist-10k-labels-idx1-ubyte
.PHONY: mnist-demo
mnist-demo: build-all
	$(BIN)/vta compile $(MNIST_ONNX) -o $(BUILD)/mnist.vtam --calib=$(MNIST_IMAGES) --calib-count=500 --verify-each
	$(BIN)/vta run $(BUILD)/mnist.vtam --target=fsim --dataset=$(MNIST_IMAGES) --labels=$(MNIST_LABELS) \
		--count=1000 --show=4 --top=3

# libvta's model API on compiled models, against the host execution.
$(eval $(call vc_test,test_model))

# PyTorch exports (opset 13) of torchvision architectures with random
# weights, compiled with vta compile and run with vta run on fsim against
# PyTorch's float outputs (tests/compiler/torchvision_e2e.py; Debian's
# python3-torch, python3-torchvision, python3-onnx). About 90 s of CPU (ViT-B and ConvNeXt most of it).
TORCH_PYTHON ?= /usr/bin/python3
TEST_EXTRA += test-torchvision
.PHONY: test-torchvision
test-torchvision: $(BIN)/vta
	@mkdir -p $(BUILD)/torchvision $(dir $(RESULTS)); log=$(BUILD)/torchvision/run.log; \
	if ! $(TORCH_PYTHON) -c 'import torch, torchvision, onnx' >$$log 2>&1; then tail -5 $$log; \
		echo "FAIL torchvision: $(TORCH_PYTHON) cannot import torch, torchvision and onnx (make deps)" >> $(RESULTS); \
	elif ! $(TORCH_PYTHON) tests/compiler/torchvision_e2e.py --vta $(BIN)/vta --out $(BUILD)/torchvision \
		--results $(RESULTS) >$$log 2>&1; then grep -v -i warn $$log | tail -20; fi

else
# Cross builds: `vta compile` and `vta run` say they are host-only.
VTA_TOOL_SRCS += compiler/cli/nocompiler.c
endif
