// SPDX-License-Identifier: Apache-2.0
// One dependency-token queue (VTA-SPEC 4.3): a counter of outstanding tokens.
// A push that would exceed VTA_TOKEN_QUEUE_DEPTH is dropped and flagged.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_tokq #(
    parameter CntW = $clog2(`VTA_TOKEN_QUEUE_DEPTH + 1)  // bits of the count: enough for VTA_TOKEN_QUEUE_DEPTH
) (
    input  wire clk_i,
    input  wire rst_i,
    input  wire push_i,
    input  wire pop_i,       // only when avail_o
    output reg  avail_o,     // count_o != 0, a register (make timing: it decides the pop)
    output reg  overflow_o,  // one-cycle pulse
    output reg  [CntW-1:0] count_o
);
  localparam [CntW-1:0] Max = `VTA_TOKEN_QUEUE_DEPTH;
  wire do_pop = pop_i && avail_o;
  wire ovf = push_i && !do_pop && (count_o == Max);

  always @(posedge clk_i) begin
    if (rst_i) begin
      count_o    <= 0;
      avail_o    <= 1'b0;
      overflow_o <= 1'b0;
    end else begin
      overflow_o <= ovf;
      // the next count is non-zero: a push adds one (or overflows at Max, or
      // meets a pop), a pop without a push leaves count_o - 1
      avail_o <= push_i || (count_o > 1) || (avail_o && !do_pop);
      // the pop only in the enable, the push selects the value (make timing:
      // a module's pop decision arrives late)
      if (push_i ? !do_pop && (count_o != Max) : do_pop)
        count_o <= push_i ? count_o + 1'b1 : count_o - 1'b1;
    end
  end
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if ((1 << CntW) <= `VTA_TOKEN_QUEUE_DEPTH) begin : g_bad_cnt_w
    $error("%m: CntW = %0d bits cannot count %0d tokens", CntW, `VTA_TOKEN_QUEUE_DEPTH);
  end
`endif

endmodule
`resetall
