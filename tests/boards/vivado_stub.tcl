# SPDX-License-Identifier: Apache-2.0
# Runs boards/common/vta_bd.tcl under plain tclsh with every Vivado command
# stubbed out and logged, so the board-table parsing, the configuration
# checks and the values the flow hands to Vivado are tested without Vivado.
#   tclsh tests/boards/vivado_stub.tcl boards/common/vta_bd.tcl BOARD ROOT GEN OUT
# Prints the logged set_property/exclude/add_files commands after the flow's output.
set ::log {}
proc unknown {args} { lappend ::log $args; return "obj" }
proc get_property {name obj} {
    switch -glob -- $name {
        *ACT_FPGA0* { return 100.000000 }
        *ACT_FREQMHZ { return 187.498123 }
        PROGRESS { return 100% }
        STATS.WNS { return 0.123 }
        SLACK { return 0.456 }
        NAME { return $obj }
        default { return stub }
    }
}
proc get_clocks {args} { return clk_fpga_0 }
proc report_utilization {args} {
    if {[lsearch $args -return_string] < 0} { lappend ::log [list report_utilization {*}$args]; return }
    return "+------+\n| Slice LUTs       | 41234 |     0 |     53200 | 77.51 |\n| DSPs             |   187 |     0 |       220 | 85.00 |\n+------+"
}
proc get_bd_addr_segs {args} { return {SEG_ps_HP0_DDR_LOW SEG_ps_HP0_DDR_HIGH} }
proc get_ipdefs {args} { return {xilinx.com:ip:stub:1.0} }
proc get_board_parts {args} { return {} }
rename file ::tcl_file
proc file {sub args} {
    if {$sub eq "copy"} { lappend ::log [list file copy {*}$args]; return }
    return [::tcl_file $sub {*}$args]
}
rename glob ::tcl_glob
proc glob {args} {
    if {[lindex $args 0] eq "-nocomplain"} { return stub.hwh }
    return [::tcl_glob {*}$args]
}
set script [lindex $::argv 0]
set ::argv [lrange $::argv 1 end]
set argv $::argv
source $script
foreach l $::log {
    if {[string match *set_property* $l] || [string match exclude* $l] || [string match *USERID* $l]} {
        puts "LOG $l"
    }
}
