// SPDX-License-Identifier: Apache-2.0
// First-word-fall-through synchronous FIFO on an inferred RAM (instruction
// queues, fetch buffer). out_valid_o/out_data_o show the head; pop_i takes it.
`resetall
`timescale 1ns / 1ps
`default_nettype none
module vta_fifo #(
    parameter Width    = 128, // bits per entry
    parameter LogDepth = 9    // log2 of the RAM entries (one more is held in the output register)
) (
    input  wire             clk_i,
    input  wire             rst_i,
    input  wire             clear_i,  // synchronous: drop every entry
    // write side
    input  wire             push_i,
    input  wire [Width-1:0] push_data_i,
    output wire             full_o,
    // read side
    output reg              out_valid_o,
    output wire [Width-1:0] out_data_o,
    input  wire             pop_i,
    // occupancy of the RAM part
    output reg  [LogDepth:0] count_o
);
  reg  [LogDepth-1:0] wptr_q, rptr_q;
  wire                ram_nonempty = (count_o != 0);
  wire                take = ram_nonempty && (!out_valid_o || pop_i);
  wire                do_push = push_i && !full_o;

  assign full_o = (count_o == (1 << LogDepth));

  vta_sram #(.Width(Width), .LogDepth(LogDepth)) u_mem (
      .clk_i    (clk_i),
      .wr_en_i  (do_push),
      .wr_addr_i(wptr_q),
      .wr_data_i(push_data_i),
      .rd_en_i  (take),
      .rd_addr_i(rptr_q),
      .rd_data_o(out_data_o)
  );

  always @(posedge clk_i) begin
    if (rst_i || clear_i) begin
      wptr_q      <= 0;
      rptr_q      <= 0;
      count_o     <= 0;
      out_valid_o <= 1'b0;
    end else begin
      if (do_push) wptr_q <= wptr_q + 1'b1;
      if (take) rptr_q <= rptr_q + 1'b1;
      count_o <= count_o + {{LogDepth{1'b0}}, do_push} - {{LogDepth{1'b0}}, take};
      if (take) out_valid_o <= 1'b1;
      else if (pop_i) out_valid_o <= 1'b0;
    end
  end
endmodule
`resetall
