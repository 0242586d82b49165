# SPDX-License-Identifier: Apache-2.0
# Vivado batch build of VTA for the pynq-z2 (see README.md in this folder):
#   vivado -mode batch -source boards/pynq-z2/build.tcl -tclargs GEN_DIR OUT_DIR
# where GEN_DIR holds vta_config.vh and vta_regmap.vh ($(BUILD)/include/vta).
# `make bitstream BOARD=pynq-z2` does this for you. Part, clock and address map
# come from the pynq-z2 row of boards/boards.txt.
set here [file dirname [file normalize [info script]]]
set argv [list pynq-z2 [file dirname [file dirname $here]] {*}$argv]
source $here/../common/vta_bd.tcl
