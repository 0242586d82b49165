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

# The layering check (tests/layering/layers.txt): each file of the library
# and the compiler calls only its own layer or those its layer may call,
# and no two files call each other; then the check itself on a fixture with
# one upward call, which it must name.
LAYERING_FIXTURE := $(BUILD)/layering-fixture
LAYERING_OBJS = $(LIB_OBJS) $(VC_OBJS)
TEST_EXTRA += test-layering
.PHONY: check-layers test-layering
check-layers: $$(LAYERING_OBJS)
	sh tests/layering/check.sh tests/layering/layers.txt $(OBJ) $(LAYERING_OBJS)
test-layering: $$(LAYERING_OBJS)
	@if sh tests/layering/check.sh tests/layering/layers.txt $(OBJ) $(LAYERING_OBJS) \
			> $(BUILD)/layering.log 2>&1; then \
		echo "PASS layering/library" >> $(RESULTS); \
	else cat $(BUILD)/layering.log; \
		echo "FAIL layering/library: see $(BUILD)/layering.log" >> $(RESULTS); fi
	@mkdir -p $(LAYERING_FIXTURE)/tests/layering/fixture
	@for f in low high; do $(CC) -c tests/layering/fixture/$$f.c \
		-o $(LAYERING_FIXTURE)/tests/layering/fixture/$$f.o || exit 1; done
	@if sh tests/layering/check.sh tests/layering/fixture/layers.txt $(LAYERING_FIXTURE) \
			$(LAYERING_FIXTURE)/tests/layering/fixture/low.o \
			$(LAYERING_FIXTURE)/tests/layering/fixture/high.o > $(LAYERING_FIXTURE)/out.txt 2>&1; then \
		echo "FAIL layering/fixture: an upward call was not found" >> $(RESULTS); \
	elif grep -q "low.c (low) calls high_entry in tests/layering/fixture/high.c (high)" \
			$(LAYERING_FIXTURE)/out.txt && grep -q "^  tests/layering/fixture/low.c" \
			$(LAYERING_FIXTURE)/out.txt; then \
		echo "PASS layering/fixture" >> $(RESULTS); \
	else cat $(LAYERING_FIXTURE)/out.txt; \
		echo "FAIL layering/fixture: the report does not name the call and the circle" >> $(RESULTS); fi

# The vta command table and format detection (tests/tools/cli.sh).
TEST_EXTRA += test-cli
.PHONY: test-cli
test-cli: $(BIN)/vta
	@sh tests/tools/cli.sh $(BIN)/vta $(RESULTS)
