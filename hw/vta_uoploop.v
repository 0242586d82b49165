// SPDX-License-Identifier: Apache-2.0
// The two hardware loops of a GEMM or ALU instruction (VTA-SPEC 4.5): the
// micro-op index runs from uop_bgn to uop_end - 1 inside the inner loop
// (iter_in) inside the outer loop (iter_out); the dst/src/wgt offsets are the
// loop indices times their factors. One micro-op is issued in each cycle with
// adv_i (the caller's "gen_o and not held"). Used by the GEMM unit and the ALU
// pipeline of vta_compute.v. While the loop does not generate it loads the
// fields and presets the counters in every cycle (enabled by a flip-flop of
// its own, idle_q), so start_i, which the caller gives only then, with the
// fields of the instruction to run, sets gen_o alone: the start decision
// (tokens, decode) drives one flip-flop, not the clock enables of every
// counter.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_uoploop (
    input  wire                                 clk_i,
    input  wire                                 rst_i,
    // start_i: generate (only while not generating; the fields are taken in
    // every cycle until then)
    input  wire                                 start_i,
    input  wire [`VTA_GEMM_UOP_BGN_WIDTH-1:0]   bgn_i,
    input  wire [`VTA_GEMM_UOP_END_WIDTH-1:0]   end_i,
    input  wire [`VTA_GEMM_ITER_OUT_WIDTH-1:0]  iter_out_i,
    input  wire [`VTA_GEMM_ITER_IN_WIDTH-1:0]   iter_in_i,
    input  wire [31:0]                          fd_out_i,
    input  wire [31:0]                          fd_in_i,
    input  wire [31:0]                          fs_out_i,
    input  wire [31:0]                          fs_in_i,
    input  wire [31:0]                          fw_out_i,
    input  wire [31:0]                          fw_in_i,
    // the micro-op of this cycle is issued
    input  wire                                 adv_i,
    output reg                                  gen_o,    // a micro-op is to be issued
    output reg  [`VTA_GEMM_UOP_END_WIDTH-1:0]   u_o,      // its micro-op index
    output reg  [`VTA_GEMM_UOP_END_WIDTH-1:0]   u_last_o, // uop_end - 1
    output reg  [`VTA_GEMM_ITER_IN_WIDTH-1:0]   i_o,      // inner index
    output reg  [`VTA_GEMM_ITER_OUT_WIDTH-1:0]  o_o,      // outer index
    output reg  [31:0]                          id_o,     // dst offset
    output reg  [31:0]                          is_o,     // src offset
    output reg  [31:0]                          iw_o      // wgt offset
);
  // the last value of each counter, set at the start: "u + 1 < uop_end" is
  // "u != u_last" (an equality, no adder and comparator chain in front of the
  // counters' muxes), and that equality is itself a register (u_end_q, set when
  // the counter takes its last value: "u == u_last - 1" before it counts, or a
  // loop of one value), so the counters' enables are the advance and three
  // flip-flops
  reg [`VTA_GEMM_UOP_BGN_WIDTH-1:0]  bgn_q;
  reg [`VTA_GEMM_UOP_END_WIDTH-1:0]  u_lm1_q;   // u_last - 1
  reg [`VTA_GEMM_ITER_IN_WIDTH-1:0]  i_lm1_q;
  reg [`VTA_GEMM_ITER_OUT_WIDTH-1:0] o_lm1_q;
  reg        u_end_q, i_end_q, o_end_q;   // the counter is at its last value
  reg        u_one_q, i_one_q;            // the loop has one value
  reg [31:0] fdo_q, fdi_q, fso_q, fsi_q, fwo_q, fwi_q;
  reg [31:0] od_q, os_q, ow_q;  // outer offsets
  (* keep *) reg idle_q;        // !gen_o (a copy: the enable of the preset, about 250 loads)

  // The advance comes first in the text: every register is read before it
  // is written (else Verilator keeps a shadow copy of each per clock).
  always @(posedge clk_i) begin
    if (adv_i) begin
      if (!u_end_q) begin
        u_end_q <= u_o == u_lm1_q;
        u_o <= u_o + 1'b1;
      end else begin
        u_end_q <= u_one_q;
        u_o <= {1'b0, bgn_q};
        if (!i_end_q) begin
          i_end_q <= i_o == i_lm1_q;
          i_o  <= i_o + 1'b1;
          id_o <= id_o + fdi_q;
          is_o <= is_o + fsi_q;
          iw_o <= iw_o + fwi_q;
        end else begin
          i_end_q <= i_one_q;
          i_o <= 0;
          if (!o_end_q) begin
            o_end_q <= o_o == o_lm1_q;
            o_o  <= o_o + 1'b1;
            id_o <= od_q + fdo_q; is_o <= os_q + fso_q; iw_o <= ow_q + fwo_q;
            od_q <= od_q + fdo_q; os_q <= os_q + fso_q; ow_q <= ow_q + fwo_q;
          end else begin
            gen_o  <= 1'b0;
            idle_q <= 1'b1;
          end
        end
      end
    end
    // (never in a cycle of adv_i, which comes only while generating)
    if (idle_q) begin
      bgn_q    <= bgn_i;
      u_o      <= {1'b0, bgn_i};
      i_o      <= 0;
      o_o      <= 0;
      u_last_o <= end_i - 1'b1;
      u_lm1_q  <= end_i - 1'b1 - 1'b1;
      i_lm1_q  <= iter_in_i - 1'b1 - 1'b1;
      o_lm1_q  <= iter_out_i - 1'b1 - 1'b1;
      u_one_q  <= {1'b0, bgn_i} == end_i - 1'b1;
      u_end_q  <= {1'b0, bgn_i} == end_i - 1'b1;
      i_one_q  <= iter_in_i == 1;
      i_end_q  <= iter_in_i == 1;
      o_end_q  <= iter_out_i == 1;
      fdo_q <= fd_out_i; fdi_q <= fd_in_i; fso_q <= fs_out_i; fsi_q <= fs_in_i;
      fwo_q <= fw_out_i; fwi_q <= fw_in_i;
      od_q <= 0; os_q <= 0; ow_q <= 0;
      id_o <= 0; is_o <= 0; iw_o <= 0;
    end
    if (start_i) begin
      gen_o  <= 1'b1;
      idle_q <= 1'b0;
    end
    if (rst_i) begin
      gen_o  <= 1'b0;
      idle_q <= 1'b1;
    end
  end
endmodule
`resetall
