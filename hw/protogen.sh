#!/bin/sh
# SPDX-License-Identifier: Apache-2.0
# Generate the C interface of a `verilator --lib-create LIB` model from the
# generated LIB.cpp, so that no prototype is written by hand (the ABI groups
# ports by C type, not in declaration order; a mismatch corrupts silently).
#   hw/protogen.sh LIB obj/LIB.cpp > LIB_ports.h
# Emits: the extern "C" prototypes, a struct LIB_ports_t with one field per
# port (svLogic for 1-bit, svLogicVecVal[16] for vectors: up to 512 bits), and
# LIB_combo(h, p) / LIB_seq(h, p) that pass the fields in the right order.
# LIB_combo skips the model's evaluation when no input changed since the last
# one it passed (the outputs are then already those of these inputs; every
# evaluation costs the model's whole input logic): the struct keeps a copy of
# the inputs, valid while combo_valid is set (a zeroed struct: none yet).
#
#   hw/protogen.sh LIB obj/LIB.cpp glue > LIB_glue.cpp
# Emits LIB_eval(h, p, clk): one evaluation of the model behind a
# LIB_protectlib_create handle with every input of the struct and clk, the
# outputs copied back (those the model sets only at its initialization, the
# constant ones, only with clk 0: power-on makes such a call first). With clk 1 it is a whole clock cycle: the rising edge,
# then the clock set low without an evaluation (the model keeps the clock's
# last value for its edge detection, __Vtrigrprev__TOP__clk_i in Verilator
# 5.006: set to 0 with it; the model has no falling-edge logic), so the next
# call with clk 1 is the next rising edge and a cycle costs one evaluation.
# The outputs copied back are those of the new state with the inputs of the
# edge; outputs that depend on an input with no register between (see below)
# need a call with clk 0 and the new inputs before they are read. The
# lib-create ABI sets clk and the inputs in separate calls, each with its own
# evaluation: 2-3 a cycle (docs/rtl.md, "Simulation speed"). The statements
# are those of LIB.cpp's combo_update and seq_update with the struct's fields
# for the arguments: generated C++, none written by hand.
#
# The header also defines LIB_COMB_<port> for each output port the model
# computes in its input-combinational region (an output that follows an
# input without a register; Verilator 5.006's ico_sequent functions in the
# generated V<top>___024root__DepSet_*.cpp) and LIB_N_COMB, their number: the
# harness reads such an output only after an evaluation with the new inputs.
# Without any ico_sequent function in the generated code (another Verilator)
# LIB_N_COMB is 1000: every output counts as combinational.
set -e
lib=$1
cpp=$2
[ -f "$cpp" ] || { echo "protogen: $cpp not found" >&2; exit 1; }
dir=$(dirname "$cpp")
topv=$(sed -n 's/^#include "\(V[A-Za-z0-9_]*\)\.h"$/\1/p' "$cpp" | head -1)
if [ "$3" = glue ]; then
grep -q '__Vtrigrprev__TOP__clk_i;' "$dir/${topv}___024root.h" 2>/dev/null ||
	{ echo "protogen: $dir/${topv}___024root.h: no __Vtrigrprev__TOP__clk_i (not Verilator 5.006?)" >&2; exit 1; }
# the identifiers the generated code names after the model's initialization
# (all but the __Slow files, which hold the initial and settle code): an output
# never named there is a constant, copied back only by an evaluation with clk 0
# (power-on makes one first)
dyn=$(for f in "$dir/${topv}"___024root__DepSet_*.cpp; do case $f in *__Slow.cpp) ;; *) cat "$f" ;; esac; done 2>/dev/null |
	grep -o 'vlSelf->[A-Za-z0-9_]*' | sed 's/^vlSelf->//' | sort -u | tr '\n' ' ')
awk -v lib="$lib" -v dyn="$dyn" '
BEGIN { nd = split(dyn, dl, " "); for (i = 1; i <= nd; i++) isdyn[dl[i]] = 1 }
/^#include "V.*\.h"$/ { top = $0 }
/^class [A-Za-z0-9_]+_container: public / { incls = 1 }
incls { cls = cls $0 "\n"; if ($0 ~ /^};/) incls = 0; next }
/_protectlib_combo_update\($/ { fn = "combo"; next }
/_protectlib_seq_update\($/ { fn = "seq"; next }
fn != "" && /^[ \t]*,/ {
	n = $0; sub(/^.*[ *]/, "", n); port[n] = 1
	if (fn == "combo" && ($0 ~ /const / || $0 !~ /\*/)) nin++
	if (fn == "seq" && $0 ~ /\*/ && $0 !~ /const /) nout++
	next
}
fn != "" && /static_cast</ { cast = $0; sub(/handlep__V/, "m", cast); sub(/vhandlep__V/, "h", cast); next }
fn != "" && /handlep__V->eval\(\);/ { after = 1; next }
fn != "" && /return handlep__V->m_seqnum/ { fn = ""; after = 0; next }
fn == "combo" && !after && /^[ \t]*(handlep__V->[A-Za-z0-9_]+ = |VL_SET_W_SVLV\()/ {
	line = $0; sub(/^[ \t]*/, "", line); sub(/^handlep__V->/, "m->", line)
	for (n in port) {
		gsub("[(]" n "[)]", "(p->" n ")", line); gsub(", " n "[)]", ", p->" n ")", line)
		gsub("= " n ";", "= p->" n ";", line); gsub(", " n " ", ", p->" n " ", line)
	}
	gsub(/handlep__V->/, "m->", line)
	ins = ins "\t" line "\n"; nset++; next
}
fn == "seq" && after && /^[ \t]*for \(size_t / {
	line = $0; sub(/^[ \t]*for \([^)]*\) /, "", line)
	sub(/ \+ [0-9]+ \* [A-Za-z0-9_]+__Vidx/, "", line)
	if (match(line, /^\*[A-Za-z0-9_]+ = /)) { n = substr(line, 2, RLENGTH - 4); sub(/^\*[A-Za-z0-9_]+/, "p->" n, line) }
	else if (match(line, /\([0-9]+, [A-Za-z0-9_]+,/)) { n = substr(line, RSTART, RLENGTH); sub(/^\([0-9]+, /, "", n); sub(/,$/, "", n); sub(", " n ",", ", p->" n ",", line) }
	gsub(/handlep__V->/, "m->", line)
	if (!nd || (n in isdyn)) outs = outs "\t" line "\n"
	else consts = consts "\t\t" line "\n"
	nget++
	next
}
END {
	if (top == "" || cls == "" || cast == "" || ins == "" || outs == "" || nset != nin || nget != nout) { print "protogen: " FILENAME ": unexpected lib-create wrapper" > "/dev/stderr"; exit 1 }
	print "// Generated by hw/protogen.sh from the Verilator lib-create model. Do not edit."
	print top
	root = top; sub(/\.h"$/, "___024root.h\"", root); print root
	print "#include \"verilated_dpi.h\""
	print "extern \"C\" {"
	print "#include \"" lib "_ports.h\""
	print "}"
	printf "%s", cls
	print "extern \"C\" void " lib "_eval(void *h, " lib "_ports_t *p, int clk)\n{"
	print cast
	printf "%s", ins
	print "\tm->clk_i = clk;"
	print "\tm->eval();"
	printf "%s", outs
	print "\tif (clk) {"
	print "\t\t// the falling edge, with nothing to evaluate"
	print "\t\tm->clk_i = 0;"
	print "\t\tm->rootp->__Vtrigrprev__TOP__clk_i = 0;"
	if (consts != "") { print "\t} else {\n\t\t// the outputs the model sets only at its initialization"; printf "%s", consts }
	print "\t}"
	print "}"
}' "$cpp"
exit 0
fi
# the identifiers the input-combinational region assigns: each statement of
# an ico_sequent function (lines joined up to the ";"), its target when it
# starts with one (vlSelf->x = ..., vlSelf->x[i] = ...), every identifier it
# names when it is a macro call (VL_...(..., vlSelf->x, ...) may write any of
# its arguments); an empty list: no ico_sequent function found
icos=$(for f in "$dir/${topv}"___024root__DepSet_*.cpp; do case $f in *__Slow.cpp) ;; *) cat "$f" ;; esac; done 2>/dev/null |
	awk '/^[A-Za-z_].*___ico_sequent__[A-Za-z0-9_]*\(.*\) *\{$/ { f = 1; found = 1; st = ""; next }
	f && /^}/ { f = 0; next }
	f && /^[ \t]*\/\// { next }
	f { l = $0; sub(/[ \t]*\/\/.*$/, "", l); st = st " " l; if (l !~ /[;{}][ \t]*$/) next
		sub(/^[ \t]+/, "", st)
		if (match(st, /^vlSelf->[A-Za-z0-9_]+/)) print substr(st, 9, RLENGTH - 8)
		else if (st ~ /^VL_/) while (match(st, /vlSelf->[A-Za-z0-9_]+/)) {
			print substr(st, RSTART + 8, RLENGTH - 8); st = substr(st, RSTART + RLENGTH) }
		st = "" }
	END { if (found) print "__ico_found__" }' | sort -u | tr '\n' ' ')
awk -v lib="$lib" -v icos="$icos" '
# First pass: the words of each vector input the model reads (the body of
# combo_update converts each with VL_SET_I/Q/W_SVLV), so that LIB_combo compares
# and keeps only those words, not all 16 of the field.
FNR == NR {
	if (match($0, /handlep__V->[A-Za-z0-9_]+ = VL_SET_[IQ]_SVLV\(/)) {
		s = substr($0, RSTART + 12, RLENGTH - 12); n = s; sub(/ = .*/, "", n);
		inw[n] = (s ~ /_Q_SVLV/) ? 2 : 1;
	} else if (match($0, /VL_SET_W_SVLV\([0-9]+, handlep__V->[A-Za-z0-9_]+,/)) {
		s = substr($0, RSTART, RLENGTH); b = s; sub(/^VL_SET_W_SVLV\(/, "", b); sub(/,.*/, "", b);
		n = s; sub(/^.*handlep__V->/, "", n); sub(/,$/, "", n);
		inw[n] = int((b + 31) / 32);
	}
	next
}
function flush_fn(   i, s, call) {
	# prototype
	s = proto_ret " " fn "(void *h";
	for (i = 1; i <= np; i++) s = s ", " ptype[i] " " pname[i];
	protos = protos s ");\n";
	# wrapper
	if (fn ~ /_combo_update$/ || fn ~ /_seq_update$/) {
		short = (fn ~ /_combo_update$/) ? "combo" : "seq";
		call = "static inline long long " lib "_" short "(void *h, " lib "_ports_t *p)\n{\n";
		if (short == "combo") {
			same = "";
			keep = "";
			for (i = 1; i <= np; i++) {
				if (ptype[i] == "svLogic") {
					same = same " && p->" pname[i] " == p->in_" pname[i];
					keep = keep "\tp->in_" pname[i] " = p->" pname[i] ";\n";
					infields = infields "\tsvLogic in_" pname[i] ";\n";
				} else if (ptype[i] ~ /^const /) {
					sz = (pname[i] in inw) ? inw[pname[i]] " * sizeof p->" pname[i] "[0]" : "sizeof p->" pname[i];
					same = same " && !memcmp(p->" pname[i] ", p->in_" pname[i] ", " sz ")";
					keep = keep "\tmemcpy(p->in_" pname[i] ", p->" pname[i] ", " sz ");\n";
					infields = infields "\tsvLogicVecVal in_" pname[i] "[16];\n";
				}
			}
			call = call "\tif (p->combo_valid" same ")\n\t\treturn 0;\n" keep "\tp->combo_valid = 1;\n";
		}
		call = call "\treturn " fn "(h";
		for (i = 1; i <= np; i++) {
			if (ptype[i] == "svLogic") call = call ", p->" pname[i];
			else if (ptype[i] == "svLogic*") call = call ", &p->" pname[i];
			else call = call ", p->" pname[i];
			if (ptype[i] ~ /\*$/ && ptype[i] !~ /^const /) outp[pname[i]] = 1;
			if (!(pname[i] in seen)) {
				seen[pname[i]] = 1;
				if (ptype[i] ~ /^svLogic\*?$/) fields = fields "\tsvLogic " pname[i] ";\n";
				else fields = fields "\tsvLogicVecVal " pname[i] "[16];\n";
			}
		}
		wrappers = wrappers call ");\n}\n\n";
	}
}
/_protectlib_(combo_update|seq_update)\($/ {
	infn = 1; np = 0; fn = $0; sub(/^[ \t]*long long[ \t]+/, "", fn); sub(/\($/, "", fn);
	proto_ret = "long long"; next
}
infn && /^[ \t]*\)[ \t]*$/ { flush_fn(); infn = 0; next }
infn {
	line = $0; sub(/^[ \t]*,?[ \t]*/, "", line);
	if (line ~ /vhandlep__V/) next;
	n = split(line, w, /[ \t]+/);
	name = w[n]; t = "";
	for (i = 1; i < n; i++) t = t (i > 1 ? " " : "") w[i];
	np++; ptype[np] = t; pname[np] = name; next
}
END {
	print "/* Generated by hw/protogen.sh from the Verilator lib-create model. Do not edit. */";
	print "#ifndef " toupper(lib) "_PORTS_H";
	print "#define " toupper(lib) "_PORTS_H";
	print "#include <string.h>";
	print "#include <svdpi.h>";
	print "void *" lib "_protectlib_create(const char *scope);";
	print "void " lib "_protectlib_final(void *h);";
	print "void " lib "_protectlib_check_hash(int hash);";
	print "struct " lib "_ports;";
	print "void " lib "_eval(void *h, struct " lib "_ports *p, int clk); /* " lib "_glue.cpp */";
	printf "%s", protos;
	print "typedef struct " lib "_ports {";
	printf "%s", fields;
	print "\t/* the inputs of the last evaluation (" lib "_combo) */";
	printf "%s", infields;
	print "\tint combo_valid;";
	print "} " lib "_ports_t;\n";
	printf "%s", wrappers;
	ni = split(icos, il, " "); ico_found = 0; ncomb = 0;
	for (i = 1; i <= ni; i++) { if (il[i] == "__ico_found__") ico_found = 1; else inico[il[i]] = 1 }
	print "/* outputs that follow an input with no register between (the model computes";
	print "   them in its input-combinational region) */";
	for (n in outp) if (n in inico) { combs = combs "#define " toupper(lib) "_COMB_" n " 1\n"; ncomb++ }
	printf "%s", combs;
	print "#define " toupper(lib) "_N_COMB " (ico_found ? ncomb : 1000);
	print "#endif";
}' "$cpp" "$cpp"
