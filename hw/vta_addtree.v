// SPDX-License-Identifier: Apache-2.0
// Balanced binary adder tree (combinational): the sum of 2^L signed W-bit
// values. Each level is its own set of adders (one carry chain per sum, L
// chains deep), so synthesis neither chains the terms linearly nor turns the
// tree into one wide multi-operand adder.
`resetall
`timescale 1ns / 1ps
`default_nettype none
module vta_addtree #(
    parameter L = 2,   // levels: 2^L terms
    parameter W = 16   // width of a term (signed)
) (
    input  wire [(W << L)-1:0] in_i,
    output wire [W+L-1:0]      sum_o
);
  genvar gl, gi;
  generate
    for (gl = 0; gl <= L; gl = gl + 1) begin : gen_lvl
      // level gl: 2^(L-gl) sums of W+gl bits
      wire [((1 << L) >> gl)*(W+gl)-1:0] s;
      if (gl == 0) begin : gen_in
        assign s = in_i;
      end else begin : gen_add
        for (gi = 0; gi < ((1 << L) >> gl); gi = gi + 1) begin : gen_sum
          wire [W+gl-2:0] a = gen_lvl[gl-1].s[(2*gi)*(W+gl-1) +: W+gl-1];
          wire [W+gl-2:0] b = gen_lvl[gl-1].s[(2*gi+1)*(W+gl-1) +: W+gl-1];
          assign s[gi*(W+gl) +: W+gl] = {a[W+gl-2], a} + {b[W+gl-2], b};
        end
      end
    end
  endgenerate
  assign sum_o = gen_lvl[L].s;
endmodule
`resetall
