# SPDX-License-Identifier: Apache-2.0
# Liberty timing library of the Xilinx primitives Yosys' synth_xilinx emits,
# for OpenSTA (docs/timing.md has the model, its sources and its limits).
#   awk -v family=xc7|xcup -f libgen.awk CELLS.v TYPES > part.lib
# CELLS.v: Yosys' "write_verilog -blackboxes" (port names and widths);
# TYPES: the cell types of the netlist, DSP/RAMB as netprep.awk's variants.
# Delays in ns. Each arc is intrinsic + route(load): the load of a net is the
# number of its routed sinks (every input pin has capacitance 1, except the
# dedicated connections inside a slice or a DSP column, which have 0), and
# route() estimates the interconnect delay from that fanout.

function route(f) {  # interconnect estimate (ns) for a net with f routed sinks
	if (f <= 0) return 0
	return SC * (0.40 + 0.15 * log(f) / log(2) + 0.0003 * f)
}
function tbl(d,    s, i) {  # "values" of a delay table: intrinsic d + route()
	s = ""
	for (i = 1; i <= NIDX; i++) s = s (i > 1 ? ", " : "") sprintf("%.4f", SC * d + route(IDX[i]))
	return s
}
function bits(p,    w, i, s) {  # a bus of the current cell as its bit names
	w = W[CUR, p]
	if (w <= 1) return p
	s = ""
	for (i = 0; i < w; i++) s = s (i ? " " : "") p "[" i "]"
	return s
}
# one timing group on the current output pin; a bus as related pin means
# every bit of it to every bit of the output (not bit i to bit i)
function arc(rel, d, kind) {
	printf "      timing() {\n        related_pin : \"%s\";\n", bits(rel)
	if (kind ~ /_unate$/) printf "        timing_sense : %s;\n", kind
	else if (kind != "") printf "        timing_type : %s;\n", kind
	printf "        cell_rise(load) { values(\"%s\"); }\n", tbl(d)
	printf "        cell_fall(load) { values(\"%s\"); }\n", tbl(d)
	printf "        rise_transition(scalar) { values(\"0\"); }\n"
	printf "        fall_transition(scalar) { values(\"0\"); }\n      }\n"
}
function check(rel, d) {  # setup requirement of the current input pin
	printf "      timing() {\n        related_pin : \"%s\";\n        timing_type : setup_rising;\n", rel
	printf "        rise_constraint(scalar) { values(\"%.4f\"); }\n", SC * d
	printf "        fall_constraint(scalar) { values(\"%.4f\"); }\n      }\n", SC * d
}
# pin header (bus or single bit) and its capacitance
function pin_open(cell, p, cap,    w) {
	w = W[cell, p]
	if (w > 1) {
		BUSW[w] = 1
		printf "    bus(%s) {\n      bus_type : bus%d;\n", p, w
	} else {
		printf "    pin(%s) {\n", p
	}
	printf "      direction : %s;\n", DIR[cell, p]
	if (DIR[cell, p] == "input") printf "      capacitance : %g;\n", cap
}
function pin_close() { printf "    }\n" }

# ------------------------------------------------------------ per-primitive arcs
# For output pin p of cell (base type b, variant v): print its arcs.
# For input pin p: print its setup checks. Unknown pins of sequential
# primitives get the generic numbers (no path left untimed).
function lut_out(cell, b, p,    i) {
	for (i = 1; i <= NP[cell]; i++)
		if (DIR[cell, PN[cell, i]] == "input") arc(PN[cell, i], T_LUT, "")
}
function is_dedicated(b, p) {
	if (b == "VTA_WIRE") return 1                              # an alias: the routing is that of its output
	if (b ~ /^FD/ && p == "D") return 1                       # LUT -> FF in the same slice
	if (b ~ /^CARRY/ && (p == "CI" || p == "CI_TOP")) return 1  # carry chain
	if (b ~ /^MUXF/ && (p == "I0" || p == "I1")) return 1     # LUT -> F7 -> F8 -> F9
	if (b ~ /^DSP48/ && (p ~ /^(PCIN|ACIN|BCIN|CARRYCASCIN|MULTSIGNIN)$/)) return 1
	return 0
}
function clock_pin(b, p) {
	return p == "C" || p == "CLK" || p == "WCLK" || p ~ /^CLK(ARDCLK|BWRCLK)$/
}
# carry chain CARRY4 (prjxray-db via Yosys cells_sim.v); CARRY8 continues the
# same per-bit pattern. p is "CO" or "O"; one pin group per bit.
function carry_out(b, p, n,    i, j) {
	for (j = 0; j < n; j++) {
		printf "      pin(%s[%d]) {\n", p, j
		for (i = 0; i <= j; i++) {
			arc(sprintf("S[%d]", i), i == j && p == "O" ? 0.227 : 0.38 + 0.04 * (j - i) + (p == "O" ? 0.15 : 0), "")
			if (i < j || p == "CO") arc(sprintf("DI[%d]", i), 0.40 + 0.04 * (j - i) + (p == "O" ? 0.15 : 0), "")
		}
		arc("CI", (p == "CO" ? 0.114 * (j + 1) / 4 : 0.313), "")
		if (b == "CARRY4") arc("CYINIT", 0.60, "")
		if (b == "CARRY8" && j >= 4) arc("CI_TOP", (p == "CO" ? 0.114 * (j - 3) / 4 : 0.313), "")
		printf "      }\n"
	}
}
# arcs to the current output from every input pin whose name starts with pfx
# (address buses and single-bit address pins A0..A5 alike)
function arcs_from(cell, pfx, d,    i, q) {
	for (i = 1; i <= NP[cell]; i++) {
		q = PN[cell, i]
		if (DIR[cell, q] == "input" && index(q, pfx) == 1 && substr(q, length(pfx) + 1) ~ /^[0-9]*$/)
			arc(q, d, "")
	}
}
# DSP48E1 boundary timing as a function of its registers (Yosys cells_sim.v,
# from prjxray-db); DSP48E2 uses the same numbers (scaled with the family)
function dsp_params(v,    k) {
	k = v; sub(/^DSP48E[12]_V/, "", k)
	AREG = substr(k, 1, 1) + 0; BREG = substr(k, 2, 1) + 0; CREG = substr(k, 3, 1) + 0
	DREG = substr(k, 4, 1) + 0; ADREG = substr(k, 5, 1) + 0; MREG = substr(k, 6, 1) + 0
	PREG = substr(k, 7, 1) + 0; MULT = substr(k, 8, 1); DPORT = substr(k, 9, 1); PAT = substr(k, 10, 1)
	MUL = (MULT != "N")
}
function dsp_req(port) {  # setup of a data input, or -1 when it is combinational to P
	if (port == "A") {
		if (PREG == 0 && MREG == 0 && AREG == 0 && ADREG == 0) return -1
		if (AREG) return 0.254
		if (MUL && DPORT == "F") return MREG ? 1.416 : (PAT == "P" ? 3.030 : 2.739)
		if (MUL) return MREG ? 2.400 : ADREG ? 1.283 : 3.723
		return PAT == "P" ? 1.730 : 1.441
	}
	if (port == "B") {
		if (PREG == 0 && MREG == 0 && BREG == 0) return -1
		if (BREG) return 0.324
		if (MREG) return 1.285
		if (MUL) return PAT == "P" ? 2.898 : 2.608
		return PAT == "P" ? 1.718 : 1.428
	}
	if (port == "C") {
		if (PREG == 0 && CREG == 0) return -1
		return CREG ? 0.168 : (PAT == "P" ? 1.534 : 1.244)
	}
	if (port == "D") {
		if (PREG == 0 && MREG == 0 && ADREG == 0 && DREG == 0) return -1
		return DREG ? 0.248 : ADREG ? 1.195 : MREG ? 2.310 : 3.635
	}
	if (port == "PCIN") return PREG ? (PAT == "P" ? 1.315 : 1.025) : -1
	return 0.5  # controls, clock enables, resets (estimate)
}
function dsp_arrival(cas) {  # clock to P (cas: PCOUT), -1 when no register is used
	if (PREG) return cas ? 0.435 : 0.329
	if (CREG) return cas ? 1.835 : 1.687
	if (MREG && MUL) return cas ? 1.819 : 1.671
	if (MUL && DPORT == "T") {
		if (AREG) return cas ? 4.083 : 3.935
		if (DREG) return cas ? 4.056 : 3.908
		if (ADREG) return cas ? 2.859 : 2.958
	}
	if (AREG) return MUL ? (cas ? 3.098 : 2.952) : (cas ? 1.780 : 1.632)
	if (BREG) return MUL ? (cas ? 2.960 : 2.813) : (cas ? 1.765 : 1.616)
	return -1
}
function dsp_comb(port, cas) {
	if (port == "A") return MUL ? (DPORT == "T" ? 3.806 : 2.823) + 0.148 * cas : 1.523 + 0.148 * cas
	if (port == "B") return MUL ? 2.690 + 0.148 * cas : 1.509 + 0.149 * cas
	if (port == "C") return 1.325 + 0.149 * cas
	if (port == "D") return 3.717
	return 1.107 + 0.148 * cas  # PCIN
}
function dsp_out(cell, p,    cas, t, q, d) {
	if (p !~ /^(P|PCOUT|CARRYOUT|CARRYCASCOUT|PATTERNDETECT|PATTERNBDETECT|OVERFLOW|UNDERFLOW|MULTSIGNOUT|XOROUT)$/) {
		if (dsp_arrival(0) >= 0) arc("CLK", 1.0, "rising_edge")  # cascade A/B outputs
		return
	}
	cas = (p != "P")
	t = dsp_arrival(cas)
	if (t >= 0) arc("CLK", t, "rising_edge")
	split("A B C D PCIN", q, " ")
	for (d = 1; d <= 5; d++)
		if ((cell, q[d]) in DIR && dsp_req(q[d]) < 0) arc(q[d], dsp_comb(q[d], cas), "")
}
function dsp_in(p,    r) {
	r = dsp_req(p ~ /^(A|B|C|D|PCIN)$/ ? p : "ctl")
	if (r >= 0) check("CLK", r)
}
# block RAM (prjxray-db via Yosys cells_sim.v; DS189/DS187 -1: 2.46 / 0.89 ns)
function ram_out(b, v, p,    rega, regb, k) {
	k = v; sub(/^.*_V/, "", k)
	rega = substr(k, 1, 1) + 0; regb = substr(k, 2, 1) + 0
	if (p ~ /^(DOADO|DOPADOP|DOUTADOUT|DOUTPADOUTP)$/) arc("CLKARDCLK", rega ? 0.882 : 2.454, "rising_edge")
	else if (p ~ /^(DOBDO|DOPBDOP|DOUTBDOUT|DOUTPBDOUTP)$/) arc("CLKBWRCLK", regb ? 0.882 : 2.454, "rising_edge")
	else arc("CLKARDCLK", 2.454, "rising_edge")  # ECC, cascade and FIFO-style outputs
}
function ram_in(p,    clk, d) {
	clk = (p ~ /(B|BWR|BWE|BDI|BDIN|BDINP|BDIP)$/ || p ~ /^(ADDRBWRADDR|DIBDI|DIPBDIP|WEBWE|ENBWREN|REGCEB|RSTRAMB|RSTREGB|DINBDIN|DINPBDINP|ADDRENB)$/) ? "CLKBWRCLK" : "CLKARDCLK"
	if (p ~ /^ADDR/) d = 0.566
	else if (p ~ /^DI/) d = 0.737
	else if (p ~ /^WE/) d = 0.532
	else if (p ~ /^REGCE/) d = 0.360
	else if (p ~ /^RSTREG/) d = 0.342
	else d = 0.500  # enables, RAM resets, cascade inputs (estimate)
	check(clk, d)
}

# ------------------------------------------------------------ reading
FNR == 1 { file++ }
file == 1 && /^module / {
	m = $2; sub(/\(.*/, "", m); gsub(/\\/, "", m); cur = m; next
}
file == 1 && /^  (input|output|inout) / {
	w = 1; n = $2
	if ($2 ~ /^\[/) { split($2, r, /[\[:\]]/); w = r[2] - r[3] + 1; n = $3 }
	sub(/;$/, "", n)
	DIR[cur, n] = ($1 == "output" ? "output" : "input")
	W[cur, n] = w
	NP[cur]++
	PN[cur, NP[cur]] = n
	next
}
file == 2 && NF { TYPES[++NT] = $1 }

END {
	SC = (family == "xcup") ? 0.72 : 1.0
	T_LUT = 0.124
	split("0 1 2 4 8 16 32 64 128 256 512 1024 2048 4096 8192", IDX, " ")
	NIDX = 15
	name = (family == "xcup") ? "xilinx_xcup_est" : "xilinx_xc7_est"
	printf "/* Generated by hw/timing/libgen.awk (family %s); see docs/timing.md. */\n", family
	printf "library(%s) {\n  delay_model : table_lookup;\n  time_unit : \"1ns\";\n", name
	printf "  voltage_unit : \"1V\";\n  current_unit : \"1mA\";\n  pulling_resistance_unit : \"1kohm\";\n"
	printf "  capacitive_load_unit(1, pf);\n  leakage_power_unit : \"1nW\";\n"
	printf "  input_threshold_pct_rise : 50;\n  input_threshold_pct_fall : 50;\n"
	printf "  output_threshold_pct_rise : 50;\n  output_threshold_pct_fall : 50;\n"
	printf "  slew_lower_threshold_pct_rise : 20;\n  slew_upper_threshold_pct_rise : 80;\n"
	printf "  slew_lower_threshold_pct_fall : 20;\n  slew_upper_threshold_pct_fall : 80;\n"
	printf "  default_max_transition : 10;\n  nom_voltage : 1;\n  nom_temperature : 25;\n  nom_process : 1;\n"
	s = ""
	for (i = 1; i <= NIDX; i++) s = s (i > 1 ? ", " : "") IDX[i]
	printf "  lu_table_template(load) {\n    variable_1 : total_output_net_capacitance;\n"
	printf "    index_1(\"%s\");\n  }\n", s
	# bus types: every width a used cell needs
	# the flow's own cells: VTA_WIRE stands for a netlist "assign" (OpenSTA reads
	# none), VTA_TIE0/1 for a constant driver; no delay, no routing
	NP["VTA_WIRE"] = 2; PN["VTA_WIRE", 1] = "I"; PN["VTA_WIRE", 2] = "O"
	DIR["VTA_WIRE", "I"] = "input"; DIR["VTA_WIRE", "O"] = "output"; W["VTA_WIRE", "I"] = W["VTA_WIRE", "O"] = 1
	NP["VTA_TIE0"] = NP["VTA_TIE1"] = 1; PN["VTA_TIE0", 1] = PN["VTA_TIE1", 1] = "O"
	DIR["VTA_TIE0", "O"] = DIR["VTA_TIE1", "O"] = "output"; W["VTA_TIE0", "O"] = W["VTA_TIE1", "O"] = 1
	for (t = 1; t <= NT; t++) {
		v = TYPES[t]; b = v; sub(/_V[0-9A-Z]+$/, "", b)
		if (!(b in NP)) { printf "libgen: no port list for cell %s\n", b > "/dev/stderr"; bad = 1; continue }
		for (i = 1; i <= NP[b]; i++) if (W[b, PN[b, i]] > 1) BW[W[b, PN[b, i]]] = 1
	}
	for (w in BW)
		printf "  type(bus%d) {\n    base_type : array;\n    data_type : bit;\n    bit_width : %d;\n    bit_from : %d;\n    bit_to : 0;\n    downto : true;\n  }\n", w, w, w - 1
	for (t = 1; t <= NT; t++) {
		v = TYPES[t]; b = v; sub(/_V[0-9A-Z]+$/, "", b)
		if (!(b in NP)) continue
		known = (b ~ /^(VTA_WIRE|VTA_TIE[01]|LUT[1-6]|LUT6_2|INV|BUF|BUFG|BUFGCTRL|MUXF[789]|CARRY[48]|FD[RSCP]E|RAM(32M|64M|32X1D|64X1D|128X1D|32M16|64M8)|SRL16E|SRLC32E|DSP48E[12]|RAMB(18|36)E[12])$/)
		if (!known) { printf "libgen: no delay model for cell %s\n", b > "/dev/stderr"; bad = 1; continue }
		seqcell = (b ~ /^(FD|RAM|SRL|DSP48)/)
		if (b ~ /^DSP48/) dsp_params(v)
		printf "  cell(%s) {\n    area : 1;\n", v
		CUR = b
		if (b ~ /^FD/) {
			printf "    ff(IQ, IQN) {\n      clocked_on : \"C\";\n      next_state : \"D\";\n    }\n"
		}
		for (i = 1; i <= NP[b]; i++) {
			p = PN[b, i]
			if (DIR[b, p] == "input") {
				cap = (clock_pin(b, p) || is_dedicated(b, p)) ? 0 : 1
				pin_open(b, p, cap)
				if (clock_pin(b, p)) printf "      clock : true;\n"
				else if (b ~ /^FD/) check("C", p == "D" ? 0 : p == "CE" ? 0.109 : 0.404)
				else if (b ~ /^RAM(32M|64M|32M16|64M8)$/ && p !~ /^ADDR[ABC]$/) check("WCLK", p ~ /^DI/ ? 0.453 : p == "WE" ? 0.654 : 0.245)
				else if (b ~ /^RAM.*X1D$/ && p !~ /^DPRA/) check("WCLK", p == "D" ? 0.453 : p == "WE" ? 0.654 : 0.362)
				else if (b ~ /^SRL/ && p !~ /^A/) check("CLK", p == "CE" ? 0.109 : 0.173)
				else if (b ~ /^DSP48/) dsp_in(p)
				else if (b ~ /^RAMB/) ram_in(p)
				pin_close()
			}
		}
		for (i = 1; i <= NP[b]; i++) {
			p = PN[b, i]
			if (DIR[b, p] != "output") continue
			pin_open(b, p, 0)
			if (b ~ /^FD/) { printf "      function : \"IQ\";\n"; arc("C", 0.303, "rising_edge") }
			else if (b == "VTA_WIRE") arc("I", 0, "positive_unate")
			else if (b ~ /^VTA_TIE/) printf "      function : \"%d\";\n", (b == "VTA_TIE1")
			else if (b ~ /^BUF/) arc("I", 0, "positive_unate")  # the clock tree is ideal
			else if (b == "INV") arc("I", T_LUT, "negative_unate")
			else if (b ~ /^LUT/) lut_out(b, b, p)
			else if (b ~ /^MUXF/) { arc("I0", 0.217, ""); arc("I1", 0.223, ""); arc("S", 0.296, "") }
			else if (b ~ /^CARRY/) carry_out(b, p, W[b, p])
			else if (b ~ /^RAM(32M|64M|32M16|64M8)$/) {
				q = p; sub(/^DO/, "", q)
				arcs_from(b, "ADDR" q, T_LUT); arc("WCLK", 1.153, "rising_edge")
			} else if (b ~ /^RAM.*X1D$/) {
				extra = (b == "RAM128X1D") ? 0.39 : 0  # the F7 mux behind the two LUTs
				arcs_from(b, p == "SPO" ? "A" : "DPRA", T_LUT + extra)
				arc("WCLK", 1.153 + extra, "rising_edge")
			} else if (b ~ /^SRL/) { arcs_from(b, "A", T_LUT); arc("CLK", 1.153, "rising_edge") }
			else if (b ~ /^DSP48/) dsp_out(b, p)
			else if (b ~ /^RAMB/) ram_out(b, v, p)
			pin_close()
		}
		printf "  }\n"
	}
	printf "}\n"
	exit bad
}
