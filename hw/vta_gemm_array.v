// SPDX-License-Identifier: Apache-2.0
// GEMM dot-product array (VTA-SPEC 4.5.4): for every batch row b and output
// lane c, dot[b][c] = sum over k of INP[b][k] * WGT[c][k]. Fully pipelined,
// one row pair per cycle, no stall input: the rows enter in cycle 0 (the raw
// SRAM outputs, en_i high) and the dot products leave 4 cycles later (dot_o,
// registered):
//   cycle 0  packed weight w1 * 2^16 + w0 formed, operands registered (DSP A/B)
//   cycle 1  x * (w1 * 2^16 + w0) + 2^15, registered (DSP P)
//   cycle 2  split, first two adder-tree levels, registered
//   cycle 3  remaining levels, registered
// Two products per multiplier: the products x*w0 and x*w1 of one input element
// with the weights of two adjacent lanes come from one 25 x 8 signed multiply
// plus the constant 2^15 (the DSP post-adder): x*w0 + 2^15 lies in [0, 2^16),
// so P[31:16] is exactly x*w1 and P[15:0] - 2^15 (bit 15 inverted) is x*w0.
// No borrow fix-up is needed (docs/rtl.md).
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
  localparam PackW  = WgtW + ProdW + 1;   // packed weight operand w1 * 2^ProdW + w0
  localparam NPairs = (BlkOut + 1) / 2;   // multipliers per batch row and input element
  localparam RowInp = BlkIn * InpW;
  localparam RowWgt = BlkIn * WgtW;

  function integer clog2i;
    input integer v;
    integer r;
    begin
      r = 0;
      while ((1 << r) < v) r = r + 1;
      clog2i = r;
    end
  endfunction
  localparam LogBlk = clog2i(BlkIn);
  localparam LG   = (LogBlk < 2) ? LogBlk : 2;  // first tree stage: 2^LG terms
  localparam G    = 1 << LG;
  localparam NG   = BlkIn / G;                  // partial sums per lane
  localparam T1W  = ProdW + LG;
  localparam DotW = ProdW + LogBlk;

  reg [2:0] v_q;  // valid of the operand, product and partial-sum registers
  always @(posedge clk_i) begin
    if (rst_i) v_q <= 3'b0;
    else v_q <= {v_q[1:0], en_i};
  end

  // the 32 low product bits of every multiplier, [((b*NPairs)+j)*BlkIn + k]
  wire [Batch*NPairs*BlkIn*32-1:0] prods;

  genvar gb, gj, gk, gc, gg;
  generate
    for (gb = 0; gb < Batch; gb = gb + 1) begin : gen_b
      for (gj = 0; gj < NPairs; gj = gj + 1) begin : gen_pair
        for (gk = 0; gk < BlkIn; gk = gk + 1) begin : gen_k
          wire [WgtW-1:0] w0 = wgt_i[(2*gj)*RowWgt + gk*WgtW +: WgtW];
          wire [WgtW-1:0] w1;
          if (2*gj + 1 < BlkOut) begin : gen_w1
            assign w1 = wgt_i[(2*gj+1)*RowWgt + gk*WgtW +: WgtW];
          end else begin : gen_w1_zero
            assign w1 = {WgtW{1'b0}};
          end
          // w1 * 2^ProdW + w0: the upper field is w1 minus the sign of w0
          wire [WgtW:0] hi = {w1[WgtW-1], w1} - {{WgtW{1'b0}}, w0[WgtW-1]};
          reg signed [InpW-1:0]  x_q;
          reg signed [PackW-1:0] wp_q;
          reg signed [31:0]      p_q;
          always @(posedge clk_i) begin
            if (en_i) begin
              x_q  <= inp_i[gb*RowInp + gk*InpW +: InpW];
              wp_q <= {hi, {(ProdW-WgtW){w0[WgtW-1]}}, w0};
            end
            if (v_q[0]) p_q <= x_q * wp_q + (32'sd1 <<< (ProdW - 1));
          end
          assign prods[((gb*NPairs + gj)*BlkIn + gk)*32 +: 32] = p_q;
        end
      end
      for (gc = 0; gc < BlkOut; gc = gc + 1) begin : gen_lane
        // term k of this lane: low field (bit 15 inverted) or high field
        wire [BlkIn*ProdW-1:0] terms;
        for (gk = 0; gk < BlkIn; gk = gk + 1) begin : gen_t
          localparam Base = ((gb*NPairs + gc/2)*BlkIn + gk)*32;
          if (gc % 2 == 0) begin : gen_lo
            wire [ProdW-1:0] p = prods[Base +: ProdW];
            assign terms[gk*ProdW +: ProdW] = {~p[ProdW-1], p[ProdW-2:0]};
          end else begin : gen_hi
            assign terms[gk*ProdW +: ProdW] = prods[Base + ProdW +: ProdW];
          end
        end
        wire [NG*T1W-1:0] part;
        for (gg = 0; gg < NG; gg = gg + 1) begin : gen_grp
          wire [T1W-1:0] s;
          reg  [T1W-1:0] t1_q;
          vta_addtree #(.L(LG), .W(ProdW)) u_t1 (.in_i(terms[gg*G*ProdW +: G*ProdW]), .sum_o(s));
          always @(posedge clk_i) if (v_q[1]) t1_q <= s;
          assign part[gg*T1W +: T1W] = t1_q;
        end
        wire [DotW-1:0] d;
        reg  [DotW-1:0] dot_q;
        vta_addtree #(.L(LogBlk - LG), .W(T1W)) u_t2 (.in_i(part), .sum_o(d));
        always @(posedge clk_i) if (v_q[2]) dot_q <= d;
        assign dot_o[(gb*BlkOut + gc)*32 +: 32] = {{(32-DotW){dot_q[DotW-1]}}, dot_q};
      end
    end
  endgenerate
endmodule
`resetall
