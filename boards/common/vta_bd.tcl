# SPDX-License-Identifier: Apache-2.0
# Vivado batch flow for a VTA board: project, block design (Zynq PS, the VTA
# RTL top as a module reference, SmartConnects, reset, clock), address map,
# synthesis, implementation, and vta-BOARD.{bit,bin,hwh}.
#
#   vivado -mode batch -source boards/common/vta_bd.tcl \
#          -tclargs BOARD REPO_ROOT GEN_DIR OUT_DIR
#
# BOARD is a row of boards/boards.txt, the one source of the part, clock and
# address map (the C header vta_boards.h is generated from the same row).
# GEN_DIR holds vta_config.vh and vta_regmap.vh of the configuration built
# (make bitstream passes $(BUILD)/include/vta). `make bitstream` runs this.

if {[llength $argv] != 4} {
    error "usage: -tclargs BOARD REPO_ROOT GEN_DIR OUT_DIR"
}
lassign $argv board root gen out
file mkdir $out

# ---------------------------------------------------------------- the board row
set row {}
set f [open $root/boards/boards.txt]
foreach line [split [read $f] "\n"] {
    if {[lindex $line 0] eq "BOARD" && [lindex $line 1] eq $board} { set row $line }
}
close $f
if {$row eq {}} { error "board $board is not in $root/boards/boards.txt" }
lassign $row - name part family target fclk_khz reg_base reg_size reg_port mem_port \
    bus_bits ddr_base ddr_size coherent idcode clock_src
set fclk_mhz [expr {$fclk_khz / 1000.0}]
puts "vta: $board: $part ($family), PL clock $fclk_mhz MHz, registers $reg_base+$reg_size\
 on $reg_port, DMA $bus_bits-bit on $mem_port"

# ---------------------------------------------------------------- the configuration
set f [open $gen/vta_config.vh]
set vh [read $f]
close $f
if {![regexp {`define VTA_BUS_WIDTH (\d+)} $vh -> cfg_bus]} {
    error "$gen/vta_config.vh has no VTA_BUS_WIDTH"
}
regexp {`define VTA_CONFIG_ID 32'h([0-9A-Fa-f]+)} $vh -> cfg_id
regexp {`define VTA_CONFIG_NAME "([^"]*)"} $vh -> cfg_name
if {$cfg_bus != $bus_bits} {
    error "the configuration in $gen has a $cfg_bus-bit AXI bus, the $board's $mem_port is\
 $bus_bits bits: build with CONFIG=[expr {$bus_bits == 128 ? {config/ultra96.json} : {config/vta.json}}]"
}
puts "vta: configuration $cfg_name (ID 0x$cfg_id)"

# ---------------------------------------------------------------- project and RTL
set proj vta_$board
create_project -force $proj $out/proj -part $part
set_property target_language Verilog [current_project]
# The board files give the PS its DDR and MIO presets where installed.
set bp [lindex [get_board_parts -quiet -latest_file_version *[string map {v2 {}} $board]*] 0]
if {$bp ne {}} {
    set_property board_part $bp [current_project]
    puts "vta: board part $bp"
} else {
    puts "vta: no board files for $board: the PS keeps its default presets (the PL\
 bitstream is the same; the board's boot image configures the PS)"
}
add_files -norecurse [glob $root/hw/*.v]
add_files -norecurse [list $gen/vta_config.vh $gen/vta_regmap.vh]
set_property file_type {Verilog Header} [get_files -of_objects [get_filesets sources_1] *.vh]
set_property include_dirs [list $gen] [get_filesets sources_1]
update_compile_order -fileset sources_1

# ---------------------------------------------------------------- block design
create_bd_design vta
proc ipdef {name} {
    set d [lindex [lsort [get_ipdefs -filter "NAME == $name"]] end]
    if {$d eq {}} { error "Vivado has no IP $name: install device support for the part" }
    return $d
}

if {$family eq "zynq-7000"} {
    set ps [create_bd_cell -type ip -vlnv [ipdef processing_system7] ps]
    if {$bp ne {}} {
        apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 \
            -config {make_external "FIXED_IO, DDR" apply_board_preset "1"} $ps
    } else {
        apply_bd_automation -rule xilinx.com:bd_rule:processing_system7 \
            -config {make_external "FIXED_IO, DDR" apply_board_preset "0"} $ps
    }
    set_property -dict [list \
        CONFIG.PCW_FPGA0_PERIPHERAL_FREQMHZ $fclk_mhz \
        CONFIG.PCW_USE_M_AXI_GP0 1 \
        CONFIG.PCW_USE_S_AXI_HP0 1 \
        CONFIG.PCW_S_AXI_HP0_DATA_WIDTH $bus_bits \
        CONFIG.PCW_USE_FABRIC_INTERRUPT 1 \
        CONFIG.PCW_IRQ_F2P_INTR 1] $ps
    set clk [get_bd_pins ps/FCLK_CLK0]
    set rstn [get_bd_pins ps/FCLK_RESET0_N]
    set ctl_master [get_bd_intf_pins ps/M_AXI_GP0]
    set mem_slave [get_bd_intf_pins ps/S_AXI_HP0]
    connect_bd_net $clk [get_bd_pins ps/M_AXI_GP0_ACLK] [get_bd_pins ps/S_AXI_HP0_ACLK]
    set irq_pin [get_bd_pins ps/IRQ_F2P]
    set act [get_property CONFIG.PCW_ACT_FPGA0_PERIPHERAL_FREQMHZ $ps]
} else {
    set ps [create_bd_cell -type ip -vlnv [ipdef zynq_ultra_ps_e] ps]
    if {$bp ne {}} {
        apply_bd_automation -rule xilinx.com:bd_rule:zynq_ultra_ps_e \
            -config {apply_board_preset "1"} $ps
    }
    set_property -dict [list \
        CONFIG.PSU__CRL_APB__PL0_REF_CTRL__SRCSEL IOPLL \
        CONFIG.PSU__CRL_APB__PL0_REF_CTRL__FREQMHZ $fclk_mhz \
        CONFIG.PSU__USE__M_AXI_GP0 1 \
        CONFIG.PSU__MAXIGP0__DATA_WIDTH 32 \
        CONFIG.PSU__USE__M_AXI_GP1 0 \
        CONFIG.PSU__USE__M_AXI_GP2 0 \
        CONFIG.PSU__USE__S_AXI_GP2 1 \
        CONFIG.PSU__SAXIGP2__DATA_WIDTH $bus_bits \
        CONFIG.PSU__USE__IRQ0 1] $ps
    set clk [get_bd_pins ps/pl_clk0]
    set rstn [get_bd_pins ps/pl_resetn0]
    set ctl_master [get_bd_intf_pins ps/M_AXI_HPM0_FPD]
    set mem_slave [get_bd_intf_pins ps/S_AXI_HP0_FPD]
    connect_bd_net $clk [get_bd_pins ps/maxihpm0_fpd_aclk] [get_bd_pins ps/saxihp0_fpd_aclk]
    set irq_pin [get_bd_pins ps/pl_ps_irq0]
    set act [get_property CONFIG.PSU__CRL_APB__PL0_REF_CTRL__ACT_FREQMHZ $ps]
}
# The PS must really produce the clock of boards.txt (the runtime and docs assume it).
if {abs($act - $fclk_mhz) > 0.01 * $fclk_mhz} {
    error "the PS gives $act MHz for a requested $fclk_mhz MHz PL clock: change fclk_khz of\
 $board in boards/boards.txt to a frequency its PLL can make"
}

# VTA: the RTL top as a module reference, 32-bit AXI addresses (DDR is below 4 GiB).
set vta [create_bd_cell -type module -reference vta_top vta]
set_property CONFIG.AddrWidth 32 $vta
set_property CONFIG.POLARITY ACTIVE_HIGH [get_bd_pins vta/rst_i]
set_property CONFIG.ASSOCIATED_BUSIF {s_axil:m_axi} [get_bd_pins vta/clk_i]

# Reset: an active-high synchronous reset for VTA, active-low for the fabric.
set rst [create_bd_cell -type ip -vlnv [ipdef proc_sys_reset] rst]
connect_bd_net $clk [get_bd_pins rst/slowest_sync_clk]
connect_bd_net $rstn [get_bd_pins rst/ext_reset_in]

# Control: PS master port -> SmartConnect (to AXI4-Lite) -> VTA's register slave.
set sc_ctl [create_bd_cell -type ip -vlnv [ipdef smartconnect] sc_ctl]
set_property -dict [list CONFIG.NUM_SI 1 CONFIG.NUM_MI 1] $sc_ctl
connect_bd_intf_net $ctl_master [get_bd_intf_pins sc_ctl/S00_AXI]
connect_bd_intf_net [get_bd_intf_pins sc_ctl/M00_AXI] [get_bd_intf_pins vta/s_axil]

# Memory: VTA's AXI4 master -> SmartConnect -> the PS's HP port at the bus width.
set sc_mem [create_bd_cell -type ip -vlnv [ipdef smartconnect] sc_mem]
set_property -dict [list CONFIG.NUM_SI 1 CONFIG.NUM_MI 1] $sc_mem
connect_bd_intf_net [get_bd_intf_pins vta/m_axi] [get_bd_intf_pins sc_mem/S00_AXI]
connect_bd_intf_net [get_bd_intf_pins sc_mem/M00_AXI] $mem_slave

connect_bd_net $clk [get_bd_pins vta/clk_i] [get_bd_pins sc_ctl/aclk] [get_bd_pins sc_mem/aclk]
connect_bd_net [get_bd_pins rst/peripheral_reset] [get_bd_pins vta/rst_i]
connect_bd_net [get_bd_pins rst/interconnect_aresetn] \
    [get_bd_pins sc_ctl/aresetn] [get_bd_pins sc_mem/aresetn]
connect_bd_net [get_bd_pins vta/irq] $irq_pin

# ---------------------------------------------------------------- address map
assign_bd_address -quiet
foreach seg [get_bd_addr_segs -of_objects [get_bd_addr_spaces ps/*] -filter {NAME =~ *vta*}] {
    set_property offset $reg_base $seg
    set_property range [expr {$reg_size / 1024}]K $seg
}
# VTA reaches the low DDR window only (not OCM, QSPI, PCIe or DDR_HIGH).
foreach seg [get_bd_addr_segs -of_objects [get_bd_addr_spaces vta/m_axi]] {
    if {[string match *DDR_LOW* [get_property NAME $seg]]} {
        set_property offset $ddr_base $seg
        set_property range [expr {$ddr_size / 1048576}]M $seg
    } else {
        exclude_bd_addr_seg $seg
    }
}
validate_bd_design
save_bd_design
puts "vta: address map:"
foreach seg [get_bd_addr_segs -of_objects [get_bd_addr_spaces]] {
    puts [format "  %-40s %s %s" $seg [get_property offset $seg] [get_property range $seg]]
}

set bd_file [get_files vta.bd]
generate_target all $bd_file
set wrapper [make_wrapper -files $bd_file -top]
add_files -norecurse $wrapper
set_property top vta_wrapper [current_fileset]
update_compile_order -fileset sources_1

# The configuration ID goes into the .bit header (UserID) so `vta flash`
# refuses a bitstream of another configuration before loading it.
set xdc $out/vta_userid.xdc
set f [open $xdc w]
puts $f "set_property BITSTREAM.CONFIG.USERID 0x$cfg_id \[current_design\]"
puts $f "set_property BITSTREAM.CONFIG.USR_ACCESS 0x$cfg_id \[current_design\]"
close $f
add_files -fileset constrs_1 -norecurse $xdc
set_property used_in_synthesis false [get_files $xdc]

# ---------------------------------------------------------------- build
set jobs [expr {[info exists ::env(VTA_VIVADO_JOBS)] ? $::env(VTA_VIVADO_JOBS) : 2}]
launch_runs synth_1 -jobs $jobs
wait_on_run synth_1
if {[get_property PROGRESS [get_runs synth_1]] ne "100%"} { error "synthesis failed: see $out/proj" }
set_property STEPS.WRITE_BITSTREAM.ARGS.BIN_FILE true [get_runs impl_1]
launch_runs impl_1 -to_step write_bitstream -jobs $jobs
wait_on_run impl_1
if {[get_property PROGRESS [get_runs impl_1]] ne "100%"} { error "implementation failed: see $out/proj" }

open_run impl_1
report_utilization -file $out/utilization.txt
report_timing_summary -file $out/timing.txt
set wns [get_property STATS.WNS [get_runs impl_1]]
# what a user checks first: the setup slack of every clock and the resources
# (make timing gives the estimate of the same RTL without Vivado, docs/timing.md)
foreach clk [get_clocks] {
    set path [get_timing_paths -setup -max_paths 1 -group $clk]
    set slack [expr {$path eq {} ? "(no paths)" : "[get_property SLACK $path] ns"}]
    puts "vta: WNS $clk $slack"
}
puts "vta: resources (the VTA core, vta_wrapper/vta/vta):"
foreach line [split [report_utilization -return_string -cells [get_cells -hierarchical -filter {ORIG_REF_NAME == vta_top || REF_NAME == vta_top}]] "\n"] {
    if {[regexp {^\|\s*(Slice LUTs|Slice Registers|CLB LUTs|CLB Registers|Block RAM Tile|DSPs)\s*\|} $line]} {
        puts "  $line"
    }
}
set impl_dir [get_property DIRECTORY [get_runs impl_1]]
file copy -force $impl_dir/vta_wrapper.bit $out/vta-$board.bit
file copy -force $impl_dir/vta_wrapper.bin $out/vta-$board.bin
set hwh [lindex [glob -nocomplain $out/proj/$proj.gen/sources_1/bd/vta/hw_handoff/vta.hwh \
                 $out/proj/$proj.srcs/sources_1/bd/vta/hw_handoff/vta.hwh] 0]
if {$hwh eq {}} { error "no vta.hwh was generated" }
file copy -force $hwh $out/vta-$board.hwh
if {$wns < 0} {
    error "timing not met at $act MHz: worst negative slack $wns ns (see $out/timing.txt);\
 lower fclk_khz of $board in boards/boards.txt. vta-$board.bit was written but must not be used."
}
puts "vta: wrote $out/vta-$board.bit, .bin and .hwh (WNS $wns ns at $act MHz)"
