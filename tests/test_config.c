/* SPDX-License-Identifier: Apache-2.0 */
/*
 * The configuration generator: valid files give the quantities of VTA-SPEC
 * 1.5, and every bad file is refused with a message naming the parameter.
 */
#include <stdio.h>
#include <unistd.h>

#include <vta/vta_config.h>

#include "test.h"

#ifndef CONFIGGEN
#error "build with -DCONFIGGEN=\"path/to/configgen\""
#endif

static const char *DEFAULTS =
	"\"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3, \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, "
	"\"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 15, \"LOG_INP_BUFF_SIZE\": 15, "
	"\"LOG_WGT_BUFF_SIZE\": 18, \"LOG_ACC_BUFF_SIZE\": 17";

static char dir[256];

/* Run configgen on text; returns its exit status and its stderr in msg. */
static int generate(const char *text, char *msg, size_t n)
{
	char json[300], cmd[1024], errf[300];
	snprintf(json, sizeof json, "%s/c.json", dir);
	snprintf(errf, sizeof errf, "%s/err.txt", dir);
	FILE *f = fopen(json, "w");
	fputs(text, f);
	fclose(f);
	snprintf(cmd, sizeof cmd, "%s %s %s 2>%s", CONFIGGEN, json, dir, errf);
	int rc = system(cmd);
	f = fopen(errf, "r");
	size_t got = f ? fread(msg, 1, n - 1, f) : 0;
	msg[got] = 0;
	if (f)
		fclose(f);
	return rc;
}

/* Value of "#define NAME value" in the generated header, as text. */
static const char *header_value(const char *name)
{
	static char value[128];
	char path[300], line[512], want[128];
	snprintf(path, sizeof path, "%s/vta_config.h", dir);
	snprintf(want, sizeof want, "#define %s ", name);
	FILE *f = fopen(path, "r");
	value[0] = 0;
	while (f && fgets(line, sizeof line, f))
		if (!strncmp(line, want, strlen(want))) {
			snprintf(value, sizeof value, "%s", line + strlen(want));
			value[strcspn(value, "\n")] = 0;
		}
	if (f)
		fclose(f);
	return value;
}

static void refuse(const char *body, const char *expect, int line)
{
	char text[1024], msg[1024];
	snprintf(text, sizeof text, "{%s}", body);
	int rc = generate(text, msg, sizeof msg);
	if (rc == 0)
		test_fail_(__FILE__, line, "configgen accepted {%s}", body);
	else if (!strstr(msg, expect))
		test_fail_(__FILE__, line, "message \"%s\" lacks \"%s\"", msg, expect);
}

static void default_quantities(void)
{
	char text[1024], msg[512];
	snprintf(text, sizeof text, "{\"TARGET\": \"pynq\", %s}", DEFAULTS);
	CHECK_EQ(generate(text, msg, sizeof msg), 0);
	/* VTA-SPEC 1.5 and 1.7 for the default configuration. */
	CHECK(!strcmp(header_value("VTA_CONFIG_NAME"), "\"1x16_i8w8a32_15_15_18_17\""));
	CHECK(!strcmp(header_value("VTA_INP_ELEM_BYTES"), "16"));
	CHECK(!strcmp(header_value("VTA_WGT_ELEM_BYTES"), "256"));
	CHECK(!strcmp(header_value("VTA_ACC_ELEM_BYTES"), "64"));
	CHECK(!strcmp(header_value("VTA_UOP_BUFF_DEPTH"), "8192"));
	CHECK(!strcmp(header_value("VTA_INP_BUFF_DEPTH"), "2048"));
	CHECK(!strcmp(header_value("VTA_WGT_BUFF_DEPTH"), "1024"));
	CHECK(!strcmp(header_value("VTA_ACC_BUFF_DEPTH"), "2048"));
	CHECK(!strcmp(header_value("VTA_LOG_OUT_BUFF_SIZE"), "15"));
	CHECK(!strcmp(header_value("VTA_BUS_WIDTH"), "64"));
	CHECK(!strcmp(header_value("VTA_WGT_MAT_AXI_RATIO"), "32"));
	char id_pynq[64];
	snprintf(id_pynq, sizeof id_pynq, "%s", header_value("VTA_CONFIG_ID"));

	/* Ultra96 has a 128-bit bus and so another bitstream and ID. */
	snprintf(text, sizeof text, "{\"TARGET\": \"ultra96\", %s}", DEFAULTS);
	CHECK_EQ(generate(text, msg, sizeof msg), 0);
	CHECK(!strcmp(header_value("VTA_BUS_WIDTH"), "128"));
	CHECK(!strcmp(header_value("VTA_WGT_MAT_AXI_RATIO"), "16"));
	CHECK(strcmp(header_value("VTA_CONFIG_ID"), id_pynq) != 0);

	/* Layout and key order do not change the ID; a parameter does. */
	snprintf(text, sizeof text, "{\n  %s,\n  \"TARGET\": \"pynq\"\n}\n", DEFAULTS);
	CHECK_EQ(generate(text, msg, sizeof msg), 0);
	CHECK(!strcmp(header_value("VTA_CONFIG_ID"), id_pynq));
	snprintf(text, sizeof text, "{\"TARGET\": \"pynq\", \"INSN_QUEUE_DEPTH\": 64, %s}", DEFAULTS);
	CHECK_EQ(generate(text, msg, sizeof msg), 0);
	CHECK(strcmp(header_value("VTA_CONFIG_ID"), id_pynq) != 0);
	snprintf(text, sizeof text, "{\"HW_VER\": \"1.2.3\", %s}", DEFAULTS);
	CHECK_EQ(generate(text, msg, sizeof msg), 0);
	CHECK(!strcmp(header_value("VTA_HW_VERSION"), "0x00010203u"));
}

static void this_build(void)
{
	/* The header this test was compiled with is self-consistent. */
	CHECK_EQ(VTA_INP_ELEM_BYTES * VTA_INP_BUFF_DEPTH, VTA_INP_BUFF_SIZE);
	CHECK_EQ(VTA_WGT_ELEM_BYTES * VTA_WGT_BUFF_DEPTH, VTA_WGT_BUFF_SIZE);
	CHECK_EQ(VTA_ACC_ELEM_BYTES * VTA_ACC_BUFF_DEPTH, VTA_ACC_BUFF_SIZE);
	CHECK_EQ(VTA_OUT_BUFF_DEPTH, VTA_ACC_BUFF_DEPTH);
	CHECK_EQ(4 * VTA_UOP_BUFF_DEPTH, VTA_UOP_BUFF_SIZE);
}

static void bad_configs(void)
{
	char body[1024];
	refuse("\"LOG_INP_WIDTH\": 4, \"LOG_WGT_WIDTH\": 3, \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, "
	       "\"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 15, \"LOG_INP_BUFF_SIZE\": 15, "
	       "\"LOG_WGT_BUFF_SIZE\": 18, \"LOG_ACC_BUFF_SIZE\": 17",
	       "LOG_INP_WIDTH = 4 is out of range", __LINE__);
	snprintf(body, sizeof body, "%s, \"LOG_BLOCK\": 7", DEFAULTS);
	refuse(body, "key LOG_BLOCK appears twice", __LINE__);
	refuse("\"LOG_INP_WIDTH\": 3", "missing key LOG_WGT_WIDTH", __LINE__);
	snprintf(body, sizeof body, "%s, \"LOG_FOO\": 1", DEFAULTS);
	refuse(body, "unknown key LOG_FOO", __LINE__);
	snprintf(body, sizeof body, "%s, \"TARGET\": \"vc707\"", DEFAULTS);
	refuse(body, "TARGET \"vc707\" is not one of", __LINE__);
	snprintf(body, sizeof body, "%s, \"LOG_BUS_WIDTH\": \"wide\"", DEFAULTS);
	refuse(body, "LOG_BUS_WIDTH must be an integer", __LINE__);
	/* HW_VER is the RTL's HW_VERSION register: major.minor.patch, each 0..255 */
	snprintf(body, sizeof body, "%s, \"HW_VER\": \"0.256.1\"", DEFAULTS);
	refuse(body, "HW_VER \"0.256.1\" is not major.minor.patch", __LINE__);
	snprintf(body, sizeof body, "%s, \"HW_VER\": \"1.2\"", DEFAULTS);
	refuse(body, "HW_VER \"1.2\" is not major.minor.patch", __LINE__);
	/* Depth 2^21 does not fit the 16-bit sram_base field. */
	refuse("\"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3, \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, "
	       "\"LOG_BLOCK\": 1, \"LOG_UOP_BUFF_SIZE\": 15, \"LOG_INP_BUFF_SIZE\": 15, "
	       "\"LOG_WGT_BUFF_SIZE\": 18, \"LOG_ACC_BUFF_SIZE\": 24",
	       "LOG_ACC_BUFF_SIZE gives a depth of 2^21 elements, which does not fit the 16-bit "
	       "sram_base field",
	       __LINE__);
	/* WGT depth 2^12 makes the GEMM instruction 140 bits. */
	refuse("\"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3, \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, "
	       "\"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 15, \"LOG_INP_BUFF_SIZE\": 15, "
	       "\"LOG_WGT_BUFF_SIZE\": 20, \"LOG_ACC_BUFF_SIZE\": 17",
	       "the GEMM format needs 140 bits but has only 128: the buffer depths given by "
	       "LOG_UOP_BUFF_SIZE, LOG_ACC_BUFF_SIZE, LOG_INP_BUFF_SIZE and LOG_WGT_BUFF_SIZE",
	       __LINE__);
	/* ACC 2^11, INP 2^9, WGT 2^11: instructions fit, the micro-op needs 33 bits. */
	refuse("\"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3, \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, "
	       "\"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 15, \"LOG_INP_BUFF_SIZE\": 13, "
	       "\"LOG_WGT_BUFF_SIZE\": 19, \"LOG_ACC_BUFF_SIZE\": 17",
	       "the UOP format needs 33 bits but has only 32", __LINE__);
	refuse("\"LOG_INP_WIDTH\": 3, \"LOG_WGT_WIDTH\": 3, \"LOG_ACC_WIDTH\": 5, \"LOG_BATCH\": 0, "
	       "\"LOG_BLOCK\": 4, \"LOG_UOP_BUFF_SIZE\": 2, \"LOG_INP_BUFF_SIZE\": 15, "
	       "\"LOG_WGT_BUFF_SIZE\": 18, \"LOG_ACC_BUFF_SIZE\": 17",
	       "LOG_UOP_BUFF_SIZE is too small", __LINE__);
	char msg[512];
	CHECK(generate("{\"LOG_INP_WIDTH\": 3", msg, sizeof msg) != 0);
	CHECK_STR_CONTAINS(msg, "c.json:1: expected '}'");
	CHECK(generate("{\"LOG_INP_WIDTH\" 3}", msg, sizeof msg) != 0);
	CHECK_STR_CONTAINS(msg, "expected ':'");
	CHECK(generate("{\"LOG_INP_WIDTH\": three}", msg, sizeof msg) != 0);
	CHECK_STR_CONTAINS(msg, "value of LOG_INP_WIDTH must be an integer or a string");
}

int main(int argc, char **argv)
{
	snprintf(dir, sizeof dir, "/tmp/vta-configgen-%d", (int)getpid());
	char cmd[300];
	snprintf(cmd, sizeof cmd, "mkdir -p %s", dir);
	if (system(cmd))
		return 1;
	static const test_case_t cases[] = {
		{"default_quantities", default_quantities},
		{"this_build", this_build},
		{"bad_configs", bad_configs},
		{NULL, NULL},
	};
	int rc = test_main(argc, argv, cases);
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd))
		rc = 1;
	return rc;
}
