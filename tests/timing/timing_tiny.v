// SPDX-License-Identifier: Apache-2.0
// The design of make test's check of the timing flow (hw/module.mk,
// test-timing-flow): its one register-to-register path, derived by hand from
// docs/timing.md, is FF clock-to-out 0.303 + route(1 sink) 0.400 + LUT 0.124
// (into the flip-flop of its slice: no route) = 0.827 ns on xc7z020, and
// 0.72 x 0.827 = 0.595 ns on xczu3eg.
`resetall
`timescale 1ns / 1ps
`default_nettype none
module timing_tiny (
    input  wire clk,
    input  wire a_i,
    input  wire b_i,
    output reg  q_o
);
  reg a_q, b_q;
  always @(posedge clk) begin
    a_q <= a_i;
    b_q <= b_i;
    q_o <= a_q ^ b_q;
  end
endmodule
`resetall
