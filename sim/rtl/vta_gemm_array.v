// SPDX-License-Identifier: Apache-2.0
// GEMM dot-product array, the simulator's form (docs/rtl.md "Simulation speed"):
// the module, ports and cycle behaviour of hw/vta_gemm_array.v (the form that
// is synthesized), with the dot products written as plain int8 multiplies and
// sums instead of two products packed per DSP multiplier. The Verilator model
// is built from this file (hw/module.mk, RTL_SIM_SRCS); make lint and make
// synth read hw/vta_gemm_array.v; tests/rtl/gemm_equiv_tb.v checks that both
// give the same dot_o in every cycle.
//
// Timing, as in hw/vta_gemm_array.v: rows enter with en_i in cycle 0 and
// their dot products appear on dot_o 4 cycles later; each of the 4 register
// stages loads only when the stage before it held new data (en_i, then the
// valid shift register v_q) and holds otherwise. The arithmetic is done once,
// at the first stage (from inp_i/wgt_i, which is what hw's operand registers
// load); the later stages carry the finished 32-bit sums.
//
// Arithmetic: a weight w is (w ^ 0x80) - 128 with w ^ 0x80 in [0, 255], so
//   sum_k x_k * w_k = sum_k x_k * (w_k ^ 0x80) - 128 * sum_k x_k,
// which needs one sign extension per input element and row (shared by all
// lanes) and none per weight. Computed modulo 2^32; the exact dot product of
// at most 32 int8 products fits in 21 bits, so the 32-bit result is exact and
// equals hw's sign-extended DotW-bit sum.
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
  localparam RowInp = BlkIn * InpW;
  localparam RowWgt = BlkIn * WgtW;
  localparam RowDot = BlkOut * 32;

  function [31:0] sext_x;  // an input element sign-extended to a machine word
    input [InpW-1:0] x;
    begin
      sext_x = {{(32-InpW){x[InpW-1]}}, x};
    end
  endfunction
  function [31:0] bias_w;  // a weight plus 2^(WgtW-1), zero-extended
    input [WgtW-1:0] w;
    begin
      bias_w = {{(32-WgtW){1'b0}}, w ^ {1'b1, {(WgtW-1){1'b0}}}};
    end
  endfunction

  reg [2:0] v_q;  // stages 1..3 hold new data
  always @(posedge clk_i) begin
    if (rst_i) v_q <= 3'b0;
    else v_q <= {v_q[1:0], en_i};
  end

  genvar gb;
  generate
    for (gb = 0; gb < Batch; gb = gb + 1) begin : gen_b
      // the four stages of one batch row (hw: operands, products, partial
      // sums, dot products), each BlkOut 32-bit slots
      reg [RowDot-1:0] s0_q, s1_q, s2_q, s3_q;
      integer k, c;
      reg [31:0] xsum, acc;
      /* verilator lint_off BLKSEQ */
      always @(posedge clk_i) begin
        // each stage read before it is written: no shadow copies in Verilator
        if (v_q[2]) s3_q <= s2_q;
        if (v_q[1]) s2_q <= s1_q;
        if (v_q[0]) s1_q <= s0_q;
        if (en_i) begin
          xsum = 32'd0;
          for (k = 0; k < BlkIn; k = k + 1)
            xsum = xsum + sext_x(inp_i[gb*RowInp + k*InpW +: InpW]);
          for (c = 0; c < BlkOut; c = c + 1) begin
            acc = 32'd0;
            for (k = 0; k < BlkIn; k = k + 1)
              acc = acc + sext_x(inp_i[gb*RowInp + k*InpW +: InpW]) * bias_w(wgt_i[c*RowWgt + k*WgtW +: WgtW]);
            s0_q[c*32 +: 32] <= acc - (xsum << (WgtW - 1));
          end
        end
      end
      /* verilator lint_on BLKSEQ */
      assign dot_o[gb*RowDot +: RowDot] = s3_q;
    end
  endgenerate
endmodule
`resetall
