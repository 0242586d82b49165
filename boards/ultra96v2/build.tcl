# SPDX-License-Identifier: Apache-2.0
# Vivado batch build of VTA for the ultra96v2 (see README.md in this folder):
#   vivado -mode batch -source boards/ultra96v2/build.tcl -tclargs GEN_DIR OUT_DIR
# where GEN_DIR holds vta_config.vh and vta_regmap.vh ($(BUILD)/include/vta).
# `make bitstream BOARD=ultra96v2` does this for you. Part, clock and address map
# come from the ultra96v2 row of boards/boards.txt.
set here [file dirname [file normalize [info script]]]
set argv [list ultra96v2 [file dirname [file dirname $here]] {*}$argv]
source $here/../common/vta_bd.tcl
