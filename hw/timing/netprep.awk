# SPDX-License-Identifier: Apache-2.0
# Netlist preparation for static timing (docs/timing.md): Yosys writes one
# cell type per primitive, but the timing of a DSP or block RAM depends on
# its register parameters. Each DSP48E1/E2 and RAMB18/36 E1/E2 instance is
# renamed to a variant that names those parameters, e.g.
#   DSP48E1_V1110011MFN  (AREG BREG CREG DREG ADREG MREG PREG, USE_MULT
#                         M/N/D, USE_DPORT T/F, pattern detect P/N)
#   RAMB36E1_V01         (DOA_REG DOB_REG)
# Parameter blocks are dropped (OpenSTA reads no parameter overrides; the
# timing of the other primitives does not depend on them). Prints the cell
# types used, one per line, to the file named by -v types=FILE.
#   awk -v types=T -f netprep.awk netlist.v > netlist.sta.v
function pval(s,    v) {  # value of a parameter line ".NAME(VALUE)," -> VALUE
	v = s
	sub(/^[^(]*\(/, "", v)
	sub(/\),?[ \t]*$/, "", v)
	gsub(/"/, "", v)
	if (v ~ /'/) { sub(/^[0-9]*'s?[dhb]/, "", v) }  # 32'sd1, 1'h1
	return v
}
function variant(base,    k) {
	if (base ~ /^DSP48E[12]$/) {
		k = P["AREG"] P["BREG"] P["CREG"] P["DREG"] P["ADREG"] P["MREG"] P["PREG"]
		k = k (P["USE_MULT"] == "NONE" ? "N" : P["USE_MULT"] == "DYNAMIC" ? "D" : "M")
		k = k (P["USE_DPORT"] == "TRUE" ? "T" : "F")
		k = k (P["USE_PATTERN_DETECT"] == "PATDET" ? "P" : "N")
		return base "_V" k
	}
	if (base ~ /^RAMB(18|36)E1$/) return base "_V" (P["DOA_REG"] + 0) (P["DOB_REG"] + 0)
	if (base ~ /^RAMB(18|36)E2$/) return base "_V" (P["DOA_REG"] + 0) (P["DOB_REG"] + 0)
	return base
}
function defaults() {
	split("", P)
	# the primitives' defaults (UG953/UG974) for parameters Yosys may omit
	P["AREG"] = 1; P["BREG"] = 1; P["CREG"] = 1; P["DREG"] = 1; P["ADREG"] = 1
	P["MREG"] = 1; P["PREG"] = 1; P["USE_MULT"] = "MULTIPLY"; P["USE_DPORT"] = "FALSE"
	P["USE_PATTERN_DETECT"] = "NO_PATDET"; P["DOA_REG"] = 0; P["DOB_REG"] = 0
}
# start of a parameterized instance: collect the parameters until "  ) name ("
/^  [A-Z][A-Z0-9_]* #\($/ {
	base = $1; inst = 1; defaults(); next
}
inst && /^    \./ {
	name = $0; sub(/^ *\./, "", name); sub(/\(.*/, "", name)
	P[name] = pval($0)
	next
}
inst && /^  \) / {
	v = variant(base)
	used[v] = 1
	line = $0; sub(/^  \)/, "  " v, line)
	print line
	inst = 0
	next
}
# a cell instance without parameters: "  TYPE name ("
/^  [A-Z][A-Z0-9_]* / && $1 != "wire" && $1 != "input" && $1 != "output" && $1 != "reg" && $1 != "assign" {
	used[$1] = 1
}
{ print }
END { for (t in used) print t > types }
