# The vta command-line tool. Subcommands in other files are listed in
# tools/commands.c; their sources are added to VTA_TOOL_SRCS.
VTA_TOOL_SRCS += tools/vta.c tools/commands.c
VTA_TOOL_OBJS = $(VTA_TOOL_SRCS:%.c=$(OBJ)/%.o)

$(BIN)/vta: $$(VTA_TOOL_OBJS) $(LIB)/libvta.a
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) -o $@ $(VTA_TOOL_OBJS) $(LIB)/libvta.a $(LDLIBS) $(VTA_TOOL_LIBS)
-include $(VTA_TOOL_OBJS:.o=.d)
