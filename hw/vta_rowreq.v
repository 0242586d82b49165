// SPDX-License-Identifier: Apache-2.0
// DMA requests of a 2-D transfer (LOAD and STORE, docs/rtl.md, DMA): one
// request per DRAM row, or one for the whole block when the rows are back to
// back (x_stride == x_size), handed to the DMA one at a time as fast as it
// takes them, so later rows are in flight while earlier ones transfer.
// Elements narrower than the bus are requested from the beat that holds the
// first one to the beat that holds the last.
// The caller gives byte quantities, computed in its decode cycles, so no
// multiply or variable shift sits in front of a request (docs/timing.md).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_rowreq #(
    parameter AddrWidth = 64,
    parameter BeatWidth = 32
) (
    input  wire                 clk_i,
    input  wire                 rst_i,
    input  wire                 start_i,     // pulse (ignored while busy)
    input  wire [AddrWidth-1:0] addr_i,      // byte address of the first request
    input  wire [AddrWidth-1:0] step_i,      // bytes from one request to the next
    input  wire [47:0]          bytes_i,     // bytes per request
    input  wire [31:0]          count_i,     // requests (0: none)
    input  wire                 narrow_i,    // elements narrower than a beat
    output wire                 busy_o,      // requests not yet all taken (a register)
    output reg                  req_valid_o,
    output reg  [AddrWidth-1:0] req_addr_o,
    output reg  [BeatWidth-1:0] req_beats_o,
    input  wire                 req_ready_i
);
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;

  reg  [AddrWidth-1:0] addr_q;    // byte address of the next request
  reg  [AddrWidth-1:0] step_q;
  reg  [47:0]          bpm_q;     // narrow: bytes + the bytes of a beat less one
  reg  [BeatWidth-1:0] wbeats_q;  // wide: beats per request
  reg                  narrow_q;
  reg  [31:0]          left_q;    // requests still to hand over
  reg                  more_q;    // left_q != 0, registered (it gates the caller's start)
  // Copies of the state with their own loads, so the caller's start logic
  // sees a flip-flop of few loads (make timing): idle_q is !more_q and
  // enables the ~240 registers that follow the inputs while idle; form_q is
  // more_q && !req_valid_o (the next request is formed in this cycle) and
  // enables the request's output registers.
  reg                  idle_q;
  reg                  form_q;
  // more_q is 1 whenever req_valid_o is (it clears only with the last
  // request's handshake), so it is the whole of busy
  assign busy_o = more_q;

  wire [AddrWidth-1:0] bus_mask = {{(AddrWidth-LogBusBytes){1'b0}}, {LogBusBytes{1'b1}}};
  // narrow: from the beat of the first byte to the beat of the last. A
  // function called where a request is made: the Verilated model computes it
  // only then (docs/rtl.md, Simulation speed)
  function [BeatWidth-1:0] nbeats;
    input [LogBusBytes-1:0] off;
    input [47:0] bpm;
    reg   [47:0] t;
    begin
      t = ({{(48-LogBusBytes){1'b0}}, off} + bpm) >> LogBusBytes;
      nbeats = t[BeatWidth-1:0];
    end
  endfunction
  wire [47:0] wbeats = bytes_i >> LogBusBytes;

  always @(posedge clk_i) begin
    if (rst_i) begin
      req_valid_o <= 1'b0;
      form_q      <= 1'b0;
      left_q      <= 0;
      more_q      <= 1'b0;
      idle_q      <= 1'b1;
    end else begin
      // the request's quantities follow the inputs while idle (they are read
      // only while busy), so only left_q and more_q wait for the start: the
      // start then enables few flip-flops (make timing)
      if (idle_q) begin
        addr_q   <= addr_i;
        step_q   <= step_i;
        bpm_q    <= bytes_i + {{(48-LogBusBytes){1'b0}}, {LogBusBytes{1'b1}}};
        wbeats_q <= wbeats[BeatWidth-1:0];
        narrow_q <= narrow_i;
      end
      // idle_q, req_valid_o and form_q are never 1 together, so each branch
      // depends on its own flag only (the start does not reach addr_q)
      if (req_valid_o && req_ready_i) begin
        req_valid_o <= 1'b0;
        addr_q <= addr_q + step_q;
        left_q <= left_q - 1;
        more_q <= (left_q != 1);
        form_q <= (left_q != 1);
        idle_q <= (left_q == 1);
      end else if (start_i && idle_q) begin
        left_q   <= count_i;
        more_q   <= (count_i != 0);
        form_q   <= (count_i != 0);
        idle_q   <= (count_i == 0);
      end else if (form_q) begin
        req_valid_o <= 1'b1;
        form_q      <= 1'b0;
      end
      // the request, loaded under form_q alone (not behind the start)
      if (form_q) begin
        req_addr_o  <= narrow_q ? (addr_q & ~bus_mask) : addr_q;
        req_beats_o <= narrow_q ? nbeats(addr_q[LogBusBytes-1:0], bpm_q) : wbeats_q;
      end
    end
  end

  wire unused_ok = ^wbeats[47:BeatWidth];
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if (AddrWidth < 32 || AddrWidth > 64) begin : g_bad_addr_width
    $error("%m: AddrWidth = %0d: AXI addresses of 32 to 64 bits", AddrWidth);
  end
  if (BeatWidth < 16 || BeatWidth > 32) begin : g_bad_beat_width
    $error("%m: BeatWidth = %0d: a request's beat count of 16 to 32 bits", BeatWidth);
  end
`endif

endmodule
`resetall
