# SPDX-License-Identifier: Apache-2.0
# OpenSTA: worst register-to-register paths of the flattened netlist against
# the estimated primitive library (docs/timing.md).
# Environment: STA_LIB, STA_NET, STA_TOP, STA_PERIOD (ns, the budget), STA_REPORT,
# and STA_CLK, the clock port (default: clk, or clk_i for a submodule as top).
# Prints, one line each (hw/timing.sh formats them):
#   WORST <est_ns> <levels> <from> <to>            the worst path of the design
#   MODULE <name> <est_ns> <levels> <from> <to>    worst path inside each module
# and writes the worst path in full to STA_REPORT.
read_liberty $::env(STA_LIB)
read_verilog $::env(STA_NET)
link_design $::env(STA_TOP)
set period $::env(STA_PERIOD)
# ideal clock; the ports carry no input or output delay, so only paths from
# a register (or RAM/DSP register) to a register are timed
# (vta_top's clock is clk; the submodules', timed on their own, is clk_i)
if {[info exists ::env(STA_CLK)] && $::env(STA_CLK) ne ""} {
  set clk_port $::env(STA_CLK)
} elseif {[llength [get_ports -quiet clk]] == 0 && [llength [get_ports -quiet clk_i]] > 0} {
  set clk_port clk_i
} else {
  set clk_port clk
}
if {[llength [get_ports -quiet $clk_port]] == 0} {
  puts "ERROR no clock port $clk_port in $::env(STA_TOP) (set STA_CLK)"
  error "no clock port $clk_port"
}
create_clock -name clk -period $period [get_ports $clk_port]

# the instance a pin belongs to, and whether it is one of the flow's wires
proc inst_of {pin} { return [get_cells -of_objects $pin] }
proc ref_of {pin} { return [get_property [inst_of $pin] ref_name] }

# est_ns, logic levels, start and end instance of a path end
proc describe {pe} {
  global period
  set est [expr {$period - [$pe slack] * 1e9}]
  set pins [lreverse [[$pe path] pins]]
  # skip the clock network up to the start register's output pin
  set i 0
  while {$i < [llength $pins] && [get_property [lindex $pins $i] direction] ne "output"
         || [ref_of [lindex $pins $i]] eq "BUFG"} { incr i }
  set start [get_full_name [inst_of [lindex $pins $i]]]
  set end [get_full_name [inst_of [lindex $pins end]]]
  set levels 0
  foreach pin [lrange $pins [expr {$i + 1}] end-1] {
    if {[get_property $pin direction] eq "output" && [ref_of $pin] ne "VTA_WIRE"} { incr levels }
  }
  return [list [format %.3f $est] $levels $start $end]
}

set worst [find_timing_paths -path_delay max -group_count 1]
puts "WORST [join [describe $worst] { }]"
# the worst path in full
report_checks -path_delay max -group_count 1 -fields {fanout} -digits 3 > $::env(STA_REPORT)

# Modules: the prefix of an instance name (the netlist is flat). Each row is
# the worst path that starts and ends inside the module, so one module's
# long path does not hide another's.
set groups {u_compute.u_load2d u_load.u_load2d u_compute u_load u_store u_fetch u_dma}
foreach c [get_cells *] {
  set n [get_full_name $c]
  set g top
  foreach p $groups { if {[string match "$p.*" $n]} { set g $p; break } }
  lappend members($g) $c
}
foreach g [concat $groups top] {
  if {![info exists members($g)]} { continue }
  set pe [find_timing_paths -path_delay max -group_count 1 -from $members($g) -to $members($g)]
  if {[llength $pe] == 0} { continue }
  puts "MODULE $g [join [describe [lindex $pe 0]] { }]"
}
