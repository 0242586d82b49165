// SPDX-License-Identifier: Apache-2.0
// GEMM dot-product array (VTA-SPEC 4.5.4): for every batch row b and output
// lane c, dot[b][c] = sum over k of INP[b][k] * WGT[c][k]. Fully pipelined,
// one row pair per cycle, no stall input: the rows enter in cycle 0 (the raw
// SRAM outputs, en_i high) and the dot products leave 4 cycles later (dot_o,
// registered):
//   cycle 0  input row registered; the weights of lanes 2j and 2j+1 packed
//            into one operand w1 * 2^16 + w0 and registered
//   cycle 1  x * (w1 * 2^16 + w0), registered (a bare multiply: its operands
//            and product are registers, nothing in front or behind it)
//   cycle 2  split, first two adder-tree levels, registered
//   cycle 3  remaining levels, registered
// Two products per multiplier: the products x*w0 and x*w1 of one input element
// with the weights of two adjacent lanes come from one 25 x 8 signed multiply:
// P[15:0] is x*w0 exactly (|x*w0| < 2^15), and P[31:16] is x*w1 - P[15] (the
// borrow of a negative x*w0). The borrows are added back in the adder tree,
// as the carry-ins of its adders (one incrementer per odd lane for the last
// one), so no carry chain sits behind the multiplier (docs/rtl.md).
// All arithmetic sits in enable-gated clocked blocks (through functions), so
// the simulator computes nothing in a cycle without GEMM work.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_gemm_array (
    input  wire                                       clk_i,
    input  wire                                       rst_i,
    input  wire                                       en_i,
    input  wire [`VTA_INP_MATRIX_WIDTH-1:0]           inp_i,
    input  wire [`VTA_WGT_MATRIX_WIDTH-1:0]           wgt_i,
    output wire [`VTA_BATCH*`VTA_BLOCK_OUT*32-1:0]    dot_o   // one 32-bit slot per lane
);
  localparam Batch  = `VTA_BATCH;
  localparam BlkIn  = `VTA_BLOCK_IN;
  localparam BlkOut = `VTA_BLOCK_OUT;
  localparam InpW   = `VTA_INP_WIDTH;
  localparam WgtW   = `VTA_WGT_WIDTH;
  localparam ProdW  = InpW + WgtW;        // one signed product
  localparam NPairs = (BlkOut + 1) / 2;   // multipliers per batch row and input element
  localparam RowInp = BlkIn * InpW;
  localparam RowWgt = BlkIn * WgtW;

  localparam LogBlk = $clog2(BlkIn);
  localparam LG   = (LogBlk < 2) ? LogBlk : 2;  // first tree stage: 2^LG terms
  localparam G    = 1 << LG;
  localparam NG   = BlkIn / G;                  // partial sums per lane (at most 8)
  // sum widths fixed for every configuration (the unused top bits are sign
  // copies): a partial sum of up to 4 products, a dot product of up to 8 of them
  localparam T1W  = ProdW + 2;
  localparam DotW = T1W + 3;

  // w1 * 2^ProdW + w0 in a 32-bit slot; the multiply reads its low PackW = 25
  // bits (the value, a width one DSP takes; the bits above are unused)
  localparam PackW = WgtW + ProdW + 1;
  function [31:0] pack_w;
    input [WgtW-1:0] w0;
    input [WgtW-1:0] w1;
    reg signed [31:0] a, b;
    begin
      // sign extension by assignment: Verilator's cheapest form (two
      // shifts; a replicated sign bit costs about three operations more)
      /* verilator lint_off WIDTH */
      a = $signed(w1);
      b = $signed(w0);
      /* verilator lint_on WIDTH */
      pack_w = (a <<< ProdW) + b;
    end
  endfunction

  // an input element sign-extended to a machine word (synthesis sees the copies
  // of its sign bit and keeps an 8-bit multiplier port; the simulator's multiply
  // then needs no sign extension of its own)
  function [31:0] sext_x;
    input [InpW-1:0] x;
    begin
      sext_x = {{(32-InpW){x[InpW-1]}}, x};
    end
  endfunction

  // one product of a packed pair: the low field (even lanes) or the high field
  // (odd lanes, still without its borrow bit)
  function [ProdW-1:0] term;
    input [31:0] p;
    input        odd;
    begin
      term = odd ? p[2*ProdW-1:ProdW] : p[ProdW-1:0];
    end
  endfunction
  // the borrow an odd lane's term lacks: the low product's sign bit
  function borrow;
    input [31:0] p;
    input        odd;
    begin
      borrow = odd & p[ProdW-1];
    end
  endfunction

  // first stage: G = 2^LG products of a lane, balanced (each sum its own adder)
  // with one borrow as each adder's carry-in. Returns the sum and the borrow
  // left over: {left, sum}.
  function [T1W:0] sum_g;
    input [31:0] p0, p1, p2, p3;  // the packed products (p1..p3 unused when G is smaller)
    input        odd;
    reg [ProdW-1:0] t0, t1, t2, t3;
    reg             c0, c1, c2, c3;
    reg [ProdW:0]   s01, s23;
    begin
      t0 = term(p0, odd);
      t1 = term(p1, odd);
      t2 = term(p2, odd);
      t3 = term(p3, odd);
      c0 = borrow(p0, odd);
      c1 = borrow(p1, odd);
      c2 = borrow(p2, odd);
      c3 = borrow(p3, odd);
      s01 = {t0[ProdW-1], t0} + {t1[ProdW-1], t1} + {{ProdW{1'b0}}, c0};
      s23 = {t2[ProdW-1], t2} + {t3[ProdW-1], t3} + {{ProdW{1'b0}}, c1};
      if (G == 4) sum_g = {c3, {s01[ProdW], s01} + {s23[ProdW], s23} + {{(ProdW+1){1'b0}}, c2}};
      else if (G == 2) sum_g = {c1, s01[ProdW], s01};
      else sum_g = {c0, {2{t0[ProdW-1]}}, t0};
    end
  endfunction
  // second stage: the NG partial sums (32-bit slots: the sum in the low T1W
  // bits, its left-over borrow at bit T1W), the borrows as the adders'
  // carry-ins; NG sums have NG - 1 adders, so the last part takes its borrow
  // through an incrementer (from a register: the stage has the slack)
  function [DotW-1:0] sum_parts;
    input [NG*32-1:0] q;
    input             odd;  // even lanes have no borrows (fewer simulator operations)
    reg [T1W-1:0] a0, a1, a2, a3, a4, a5, a6, a7;
    reg           l0, l1, l2, l3, l4, l5, l6, l7;
    reg [T1W:0]   b0, b1, b2, b3;
    reg [T1W+1:0] c0, c1;
    begin
      a0 = q[0 +: T1W];
      a1 = q[(NG > 1 ? 1 : 0)*32 +: T1W];
      a2 = q[(NG > 2 ? 2 : 0)*32 +: T1W];
      a3 = q[(NG > 3 ? 3 : 0)*32 +: T1W];
      a4 = q[(NG > 4 ? 4 : 0)*32 +: T1W];
      a5 = q[(NG > 5 ? 5 : 0)*32 +: T1W];
      a6 = q[(NG > 6 ? 6 : 0)*32 +: T1W];
      a7 = q[(NG > 7 ? 7 : 0)*32 +: T1W];
      l0 = odd & q[T1W];
      l1 = odd & q[(NG > 1 ? 1 : 0)*32 + T1W];
      l2 = odd & q[(NG > 2 ? 2 : 0)*32 + T1W];
      l3 = odd & q[(NG > 3 ? 3 : 0)*32 + T1W];
      l4 = odd & q[(NG > 4 ? 4 : 0)*32 + T1W];
      l5 = odd & q[(NG > 5 ? 5 : 0)*32 + T1W];
      l6 = odd & q[(NG > 6 ? 6 : 0)*32 + T1W];
      l7 = odd & q[(NG > 7 ? 7 : 0)*32 + T1W];
      if (NG == 8) a7 = a7 + {{(T1W-1){1'b0}}, l7};
      if (NG == 4) a3 = a3 + {{(T1W-1){1'b0}}, l3};
      if (NG == 2) a1 = a1 + {{(T1W-1){1'b0}}, l1};
      if (NG == 1) a0 = a0 + {{(T1W-1){1'b0}}, l0};
      b0 = {a0[T1W-1], a0} + {a1[T1W-1], a1} + {{T1W{1'b0}}, l0};
      b1 = {a2[T1W-1], a2} + {a3[T1W-1], a3} + {{T1W{1'b0}}, l2};
      b2 = {a4[T1W-1], a4} + {a5[T1W-1], a5} + {{T1W{1'b0}}, l4};
      b3 = {a6[T1W-1], a6} + {a7[T1W-1], a7} + {{T1W{1'b0}}, l6};
      c0 = {b0[T1W], b0} + {b1[T1W], b1} + {{(T1W+1){1'b0}}, l1};
      c1 = {b2[T1W], b2} + {b3[T1W], b3} + {{(T1W+1){1'b0}}, l5};
      if (NG == 8) sum_parts = {c0[T1W+1], c0} + {c1[T1W+1], c1} + {{(T1W+2){1'b0}}, l3};
      else if (NG == 4) sum_parts = {c0[T1W+1], c0};
      else if (NG == 2) sum_parts = {{2{b0[T1W]}}, b0};
      else sum_parts = {{3{a0[T1W-1]}}, a0};
    end
  endfunction

  reg [2:0] v_q;  // valid of the operand, product and partial-sum registers
  always @(posedge clk_i) begin
    if (rst_i) v_q <= 3'b0;
    else v_q <= {v_q[1:0], en_i};
  end

  // cycle 0: the input row as it comes (whole, so the simulator copies words
  // instead of assembling fields) and the weights packed in pairs, one 32-bit
  // slot per pair and input element (the multipliers' operand registers)
  reg [`VTA_INP_MATRIX_WIDTH-1:0] inp_q;
  reg [NPairs*BlkIn*32-1:0]       wp_q;
  integer pj, pk;
  always @(posedge clk_i) begin
    if (en_i) begin
      inp_q <= inp_i;
      for (pj = 0; pj < NPairs; pj = pj + 1)
        for (pk = 0; pk < BlkIn; pk = pk + 1)
          // lanes 2j and 2j+1 (an odd last lane multiplies by w1 = 0)
          wp_q[(pj*BlkIn + pk)*32 +: 32] <= pack_w(wgt_i[(2*pj)*RowWgt + pk*WgtW +: WgtW],
                                                   2*pj + 1 < BlkOut ? wgt_i[(2*pj + 1)*RowWgt + pk*WgtW +: WgtW] : {WgtW{1'b0}});
    end
  end

  genvar gb, gj, gc;
  generate
    for (gb = 0; gb < Batch; gb = gb + 1) begin : gen_b
      for (gj = 0; gj < NPairs; gj = gj + 1) begin : gen_pair
        // one 32-bit slot per product (the simulator moves machine words)
        reg [BlkIn*32-1:0] p_q;   // the multipliers' product registers
        integer k;
        always @(posedge clk_i) begin
          if (v_q[0])
            for (k = 0; k < BlkIn; k = k + 1)
              // x * (w1 * 2^ProdW + w0): the low field x*w0, the high x*w1 less the borrow
              p_q[k*32 +: 32] <= $signed(sext_x(inp_q[gb*RowInp + k*InpW +: InpW])) * $signed(wp_q[(gj*BlkIn + k)*32 +: PackW]);
        end
        for (gc = 2*gj; gc < 2*gj + 2 && gc < BlkOut; gc = gc + 1) begin : gen_lane
          reg [NG*32-1:0] t1_q;
          reg [DotW-1:0]  dot_q;
          integer g;
          always @(posedge clk_i) begin
            if (v_q[1])
              for (g = 0; g < NG; g = g + 1)
                // whole slots (the top bits zero): the simulator stores words
                t1_q[g*32 +: 32] <= {{(31-T1W){1'b0}}, sum_g(p_q[(g*G)*32 +: 32], p_q[(g*G + (G > 1 ? 1 : 0))*32 +: 32],
                                           p_q[(g*G + (G > 2 ? 2 : 0))*32 +: 32],
                                           p_q[(g*G + (G > 3 ? 3 : 0))*32 +: 32], gc % 2 == 1)};
            if (v_q[2]) dot_q <= sum_parts(t1_q, gc % 2 == 1);
          end
          assign dot_o[(gb*BlkOut + gc)*32 +: 32] = {{(32-DotW){dot_q[DotW-1]}}, dot_q};
        end
      end
    end
  endgenerate
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if (InpW != 8 || WgtW != 8) begin : g_bad_operand_width
    $error("%m: the products are int8 x int8 (INP_WIDTH %0d, WGT_WIDTH %0d)", InpW, WgtW);
  end
  if (BlkIn < 2 || BlkIn > 32 || (BlkIn & (BlkIn - 1)) != 0) begin : g_bad_block_in
    $error("%m: BLOCK_IN = %0d: the adder tree sums a power of two of 2 to 32 products", BlkIn);
  end
`endif

endmodule
`resetall
