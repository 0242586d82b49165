// SPDX-License-Identifier: Apache-2.0
// Simple dual-port RAM: one synchronous write port, one synchronous read
// port whose output holds while rd_en is low. Inferred as block RAM.
// OutReg = 1 adds an output register (read latency 2, the block RAM's
// DO_REG or a fabric register behind it): the 2.5 ns clock-to-out of a
// 7-series block RAM then no longer starts a logic path (docs/timing.md).
// A read and a write of the same row in the same cycle return the old row.
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

  always @(posedge clk_i) begin
    if (wr_en_i) mem[wr_addr_i] <= wr_data_i;
  end

  always @(posedge clk_i) begin
    if (rd_en_i) rd_q <= mem[rd_addr_i];
  end

  generate
    if (OutReg != 0) begin : gen_oreg
      // loaded only after a read (rd_q changes only then): the same data, and
      // the simulator copies no row in a cycle without a read
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
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if (Width < 1 || LogDepth < 1 || LogDepth > 16 || (OutReg != 0 && OutReg != 1)) begin : g_bad_params
    $error("%m: Width = %0d, LogDepth = %0d (1..16), OutReg = %0d (0 or 1)", Width, LogDepth, OutReg);
  end
`endif

endmodule
`resetall
