# Unit tests of the foundation: ISA codec, assembler, golden model.
TEST_HARNESS := $(OBJ)/tests/test.o

define test_program
TEST_PROGS += $(BIN)/tests/$(1)
$(BIN)/tests/$(1): $(OBJ)/tests/$(1).o $(TEST_HARNESS) $(LIB)/libvta.a
	@mkdir -p $$(dir $$@)
	$$(CC) $$(LDFLAGS) -o $$@ $$^ $$(LDLIBS)
-include $(OBJ)/tests/$(1).d
endef

$(eval $(call test_program,test_isa))
$(eval $(call test_program,test_asm))
$(eval $(call test_program,test_fsim))
$(eval $(call test_program,test_config))

BENCH_PROGS += $(BIN)/bench_fsim
$(BIN)/bench_fsim: $(OBJ)/tests/bench_fsim.o $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)
-include $(OBJ)/tests/bench_fsim.d

# test_config runs the generator binary of this build.
$(OBJ)/tests/test_config.o: EXTRA_CFLAGS += -DCONFIGGEN='"$(abspath $(CONFIGGEN))"'
$(BIN)/tests/test_config: | $(CONFIGGEN)

# The foundation's tests again, built with clang (the project builds with gcc
# and clang): a suite that is not per configuration.
CORE_TESTS := test_isa test_asm test_fsim test_config
TEST_EXTRA += test-clang
.PHONY: test-clang
test-clang:
	@$(MAKE) -j2 --no-print-directory CC=clang BUILD=build/clang \
		$(foreach t,$(CORE_TESTS),build/clang/bin/tests/$(t)) build/clang/bin/vta
	@set -e; for t in $(CORE_TESTS); do \
		echo "== build/clang/bin/tests/$$t (clang)"; \
		VTA_ROOT=$(CURDIR) build/clang/bin/tests/$$t --results $(RESULTS) --label clang \
			|| echo "FAIL clang $$t exited with status $$?" >> $(RESULTS); \
	done
