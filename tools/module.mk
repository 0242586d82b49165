# The vta command-line tool. Every command is a row of tools/commands.c;
# sources outside tools/ are added to VTA_TOOL_SRCS, their libraries to
# VTA_TOOL_LIBS. Where the RTL simulation is built (hw/module.mk sets
# RTLSIM_LIB), the tool links it too, so `--target rtl` works from the CLI.
VTA_TOOL_SRCS += tools/vta.c tools/commands.c tools/program.c
VTA_TOOL_OBJS = $(VTA_TOOL_SRCS:%.c=$(OBJ)/%.o)
VTA_TOOL_RTL = $(if $(RTLSIM_LIB),$(RTL_BACKEND_LINK))

$(BIN)/vta: $$(VTA_TOOL_OBJS) $(LIB)/libvta.a $$(VTA_TOOL_RTL)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(VTA_TOOL_OBJS) $(VTA_TOOL_LIBS) $(VTA_TOOL_RTL) $(LIB)/libvta.a \
		$(LDLIBS) $(if $(RTLSIM_LIB),$(RTL_LDLIBS))
-include $(VTA_TOOL_OBJS:.o=.d)

# The main commands under valgrind, once for the default configuration's
# plain build (tests/valgrind.sh): memory errors and leaks fail.
TEST_EXTRA += test-valgrind
.PHONY: test-valgrind
test-valgrind: $(BIN)/vta $(BIN)/tests/boards/bitgen $$(REGMAP_H)
	@if ! command -v valgrind >/dev/null; then \
		echo "FAIL valgrind: no valgrind (make deps installs it)" >> $(RESULTS); exit 0; fi; \
	echo "== valgrind vta"; \
	sh tests/valgrind.sh $(abspath $(BIN)/vta) $(abspath $(BIN)/tests/boards/bitgen) $(GEN) \
		$(BUILD)/valgrind $(RESULTS)
