// SPDX-License-Identifier: Apache-2.0
// Simple dual-port RAM: one synchronous write port, one synchronous read
// port whose output holds while rd_en is low. Inferred as block RAM.
`resetall
`timescale 1ns / 1ps
`default_nettype none
module vta_sram #(
    parameter Width    = 32,  // bits per row
    parameter LogDepth = 10   // log2 of the number of rows
) (
    input  wire                clk_i,
    // write port
    input  wire                wr_en_i,
    input  wire [LogDepth-1:0] wr_addr_i,
    input  wire [Width-1:0]    wr_data_i,
    // read port (data valid the cycle after rd_en_i)
    input  wire                rd_en_i,
    input  wire [LogDepth-1:0] rd_addr_i,
    output reg  [Width-1:0]    rd_data_o
);
  reg [Width-1:0] mem [0:(1<<LogDepth)-1];

  always @(posedge clk_i) begin
    if (wr_en_i) mem[wr_addr_i] <= wr_data_i;
  end

  always @(posedge clk_i) begin
    if (rd_en_i) rd_data_o <= mem[rd_addr_i];
  end
endmodule
`resetall
