// SPDX-License-Identifier: Apache-2.0
// Simple dual-port RAM, the simulator's form (docs/rtl.md "Simulation speed"):
// the module, ports and cycle behaviour of hw/vta_sram.v (the form that is
// synthesized), with the row written by a blocking assignment after the read
// in the same clocked block. The array is read nowhere else, so the read still
// returns the old row when both ports address it in one cycle; Verilator then
// writes the row in place instead of through the per-instance shadow it gives
// every array written with <= (a valid flag cleared and tested every clock,
// the row copied twice). The Verilator model is built from this file
// (hw/module.mk, RTL_SIM_SRCS); make lint and make synth read hw/vta_sram.v;
// tests/rtl/sram_equiv_tb.v checks that both give the same rd_data_o in every
// cycle.
`resetall
`timescale 1ns / 1ps
`default_nettype none
module vta_sram #(
    parameter Width    = 32,  // bits per row
    parameter LogDepth = 10,  // log2 of the number of rows
    parameter OutReg   = 0    // 1: registered output, data 2 cycles after rd_en
) (
    input  wire                clk_i,
    // write port
    input  wire                wr_en_i,
    input  wire [LogDepth-1:0] wr_addr_i,
    input  wire [Width-1:0]    wr_data_i,
    // read port (data valid 1 + OutReg cycles after rd_en_i)
    input  wire                rd_en_i,
    input  wire [LogDepth-1:0] rd_addr_i,
    output wire [Width-1:0]    rd_data_o
);
  reg [Width-1:0] mem [0:(1<<LogDepth)-1];
  reg [Width-1:0] rd_q;

  /* verilator lint_off BLKSEQ */
  always @(posedge clk_i) begin
    if (rd_en_i) rd_q <= mem[rd_addr_i];
    if (wr_en_i) mem[wr_addr_i] = wr_data_i;   // after the read: it sees the old row
  end
  /* verilator lint_on BLKSEQ */

  generate
    if (OutReg != 0) begin : gen_oreg
      reg             rd_d_q;
      reg [Width-1:0] out_q;
      always @(posedge clk_i) begin
        rd_d_q <= rd_en_i;
        if (rd_d_q) out_q <= rd_q;
      end
      assign rd_data_o = out_q;
    end else begin : gen_noreg
      assign rd_data_o = rd_q;
    end
  endgenerate
endmodule
`resetall
