# The configuration generator runs on the build machine (HOSTCC), also when
# cross-compiling, and writes the headers every other module includes.
CONFIGGEN := $(BUILD)/host/configgen

$(CONFIGGEN): config/configgen.c
	@mkdir -p $(dir $@)
	$(HOSTCC) -std=c11 -Wall -Wextra -Werror -O2 $< -o $@

$(CONFIG_H) $(GEN)/vta_config.vh $(GEN)/vta_config.mk &: $(CONFIGGEN) $(CONFIG)
	@mkdir -p $(GEN)
	$(CONFIGGEN) $(CONFIG) $(GEN)
