// SPDX-License-Identifier: Apache-2.0
// vta_fifo with its head in flip-flops (HeadReg = 1) against the RAM-read-port
// form (HeadReg = 0): both get the same random push/pop/clear/reset stream and
// every visible output (out_valid_o, out_data_o, full_o, count_o) must be the
// same in every cycle (===, so X matters too). Both are also checked against a
// behavioural queue written here from the FIFO's contract (first-word fall-
// through: a push is visible at the head two cycles later, the head is an
// output register in front of 2^LogDepth RAM entries, count_o and full_o count
// the RAM part). Run: vvp tb.vvp [+seed=N] [+cycles=N]; prints one PASS or
// FAIL line. Shapes: vta_top's instruction queues (TagW + 128 bits, the
// configuration's VTA_INSN_QUEUE_DEPTH), fetch's buffer (131 bits, 32 deep)
// and small depths where full and empty come every few cycles.
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"

module fifo_pair #(
    parameter Width    = 8,
    parameter LogDepth = 1,
    parameter Inst     = 0  // mixed into the seed: each pair its own stream
) (
    input  wire        clk,
    input  wire [31:0] seed0,
    input  wire [31:0] cycles,  // stimulus cycles
    output reg  [31:0] errors,
    output reg  [31:0] n_full_push,  // pushes refused at full
    output reg  [31:0] n_both,       // push and pop (of a valid head) in one cycle
    output reg  [31:0] n_take_push,  // the RAM's last entry taken while a push writes
    output reg  [31:0] n_empty_pop,  // pops with no valid head
    output reg  [31:0] n_clear,      // clears of a non-empty FIFO
    output reg         done
);
  localparam Depth = 1 << LogDepth;

  reg             rst, clear, push, pop;
  reg [Width-1:0] data;

  wire             v0, v1, f0, f1;
  wire [Width-1:0] d0, d1;
  wire [LogDepth:0] c0, c1;
  vta_fifo #(.Width(Width), .LogDepth(LogDepth), .HeadReg(0)) u_ram (
      .clk_i(clk), .rst_i(rst), .clear_i(clear), .push_i(push), .push_data_i(data), .full_o(f0),
      .out_valid_o(v0), .out_data_o(d0), .pop_i(pop), .count_o(c0));
  vta_fifo #(.Width(Width), .LogDepth(LogDepth), .HeadReg(1)) u_reg (
      .clk_i(clk), .rst_i(rst), .clear_i(clear), .push_i(push), .push_data_i(data), .full_o(f1),
      .out_valid_o(v1), .out_data_o(d1), .pop_i(pop), .count_o(c1));

  // the reference queue: RAM part q[qh .. qh+qn) and the head (hv, hd)
  reg [Width-1:0] q [0:Depth-1];
  integer         qh, qn;
  reg             hv;
  reg [Width-1:0] hd;
  reg             took;
  integer         seed, cyc, mode, left, pct_push, pct_pop, i;

  function [Width-1:0] rnd_word(input integer dummy);
    integer k;
    reg [Width+31:0] w;
    begin
      w = 0;
      for (k = 0; k < Width; k = k + 32) w = (w << 32) | $random(seed);
      rnd_word = w[Width-1:0];
    end
  endfunction

  initial begin
    errors = 0; n_full_push = 0; n_both = 0; n_take_push = 0; n_empty_pop = 0; n_clear = 0;
    done = 0; rst = 1; clear = 0; push = 0; pop = 0; data = 0;
    qh = 0; qn = 0; hv = 0; hd = {Width{1'bx}};
    mode = 0; left = 0; pct_push = 50; pct_pop = 50;
    #1 seed = seed0 * 7919 + Inst;
    for (cyc = 0; cyc < cycles; cyc = cyc + 1) begin
      @(negedge clk);
      // outputs of the last rising edge: the two forms and the reference
      if (v0 !== v1 || d0 !== d1 || f0 !== f1 || c0 !== c1) begin
        if (errors < 5)
          $display("fifo W%0d D%0d cycle %0d: HeadReg 0 valid %b full %b count %0d data %h, HeadReg 1 valid %b full %b count %0d data %h",
                   Width, Depth, cyc, v0, f0, c0, d0, v1, f1, c1, d1);
        errors = errors + 1;
      end
      if (v0 !== hv || c0 !== qn || f0 !== (qn == Depth) || (hv && d0 !== hd) ||
          v1 !== hv || c1 !== qn || f1 !== (qn == Depth) || (hv && d1 !== hd)) begin
        if (errors < 5)
          $display("fifo W%0d D%0d cycle %0d: expected valid %b count %0d full %b data %h; HeadReg 0 %b %0d %b %h, HeadReg 1 %b %0d %b %h",
                   Width, Depth, cyc, hv, qn, qn == Depth, hd, v0, c0, f0, d0, v1, c1, f1, d1);
        errors = errors + 1;
      end
      // next inputs: phases that fill, drain, stream (push and pop every cycle) or idle
      if (left == 0) begin
        mode = ($random(seed) & 32'h7fffffff) % 6;
        left = 1 + ($random(seed) & 32'h7fffffff) % (3 * Depth + 8);
        case (mode)
          0: begin pct_push = 90; pct_pop = 15; end  // fill
          1: begin pct_push = 10; pct_pop = 90; end  // drain
          2: begin pct_push = 100; pct_pop = 100; end
          3: begin pct_push = 50; pct_pop = 50; end
          4: begin pct_push = 100; pct_pop = 0; end  // to full and stay there
          default: begin pct_push = 5; pct_pop = 5; end
        endcase
      end
      left = left - 1;
      rst   = cyc < 2 || ($random(seed) & 32'h7fffffff) % 5000 == 0;
      clear = ($random(seed) & 32'h7fffffff) % 1000 == 0;
      push  = ($random(seed) & 32'h7fffffff) % 100 < pct_push;
      pop   = ($random(seed) & 32'h7fffffff) % 100 < pct_pop;
      data  = rnd_word(0);
    end
    @(negedge clk);
    done = 1;
  end

  // the reference queue at the rising edge (inputs are stable since the falling one)
  always @(posedge clk) begin
    if (!done) begin
      if (push && qn == Depth && !rst && !clear) n_full_push = n_full_push + 1;
      if (push && pop && hv && !rst && !clear) n_both = n_both + 1;
      if (pop && !hv && !rst && !clear) n_empty_pop = n_empty_pop + 1;
      if (clear && !rst && (qn != 0 || hv)) n_clear = n_clear + 1;
      if (rst || clear) begin
        qh = 0; qn = 0; hv = 0;
      end else begin
        took = qn != 0 && (!hv || pop);
        if (push && qn < Depth && took && qn == 1) n_take_push = n_take_push + 1;
        if (took) begin
          hd = q[qh]; hv = 1; qh = (qh + 1) % Depth; qn = qn - 1;
        end else if (pop) begin
          hv = 0;
        end
        if (push && qn + (took ? 1 : 0) < Depth) begin
          q[(qh + qn) % Depth] = data; qn = qn + 1;
        end
      end
    end
  end
endmodule

module fifo_headreg_tb;
  localparam NP = 6;
  reg clk = 0;
  always #5 clk = ~clk;

  reg [31:0] seed, cycles;
  wire [31:0] err [0:NP-1], nfp [0:NP-1], nb [0:NP-1], ntp [0:NP-1], nep [0:NP-1], ncl [0:NP-1];
  wire [NP-1:0] done;

  // vta_top's three instruction queues: {instruction index (32), instruction (128)}
  fifo_pair #(.Width(160), .LogDepth($clog2(`VTA_INSN_QUEUE_DEPTH)), .Inst(0)) p0 (clk, seed, cycles,
      err[0], nfp[0], nb[0], ntp[0], nep[0], ncl[0], done[0]);
  // fetch's buffer: {decode (3), instruction (128)}, 32 deep
  fifo_pair #(.Width(131), .LogDepth(5), .Inst(1)) p1 (clk, seed, cycles,
      err[1], nfp[1], nb[1], ntp[1], nep[1], ncl[1], done[1]);
  // small depths: full and empty every few cycles
  fifo_pair #(.Width(1), .LogDepth(1), .Inst(2)) p2 (clk, seed, cycles,
      err[2], nfp[2], nb[2], ntp[2], nep[2], ncl[2], done[2]);
  fifo_pair #(.Width(33), .LogDepth(2), .Inst(3)) p3 (clk, seed, cycles,
      err[3], nfp[3], nb[3], ntp[3], nep[3], ncl[3], done[3]);
  fifo_pair #(.Width(64), .LogDepth(3), .Inst(4)) p4 (clk, seed, cycles,
      err[4], nfp[4], nb[4], ntp[4], nep[4], ncl[4], done[4]);
  fifo_pair #(.Width(160), .LogDepth(4), .Inst(5)) p5 (clk, seed, cycles,
      err[5], nfp[5], nb[5], ntp[5], nep[5], ncl[5], done[5]);

  integer k, bad, thin;
  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    if (!$value$plusargs("cycles=%d", cycles)) cycles = 12000;
    wait (&done);
    bad = 0; thin = 0;
    for (k = 0; k < NP; k = k + 1) begin
      bad = bad + err[k];
      // every pair must have met each edge case, or the run proves little
      if (nfp[k] == 0 || nb[k] == 0 || ntp[k] == 0 || nep[k] == 0 || ncl[k] == 0) thin = thin + 1;
      $display("fifo pair %0d: %0d mismatches; full pushes %0d, push+pop %0d, take+push at one entry %0d, empty pops %0d, clears %0d",
               k, err[k], nfp[k], nb[k], ntp[k], nep[k], ncl[k]);
    end
    if (bad == 0 && thin == 0)
      $display("PASS fifo-headreg (HeadReg 1 = HeadReg 0 = the reference queue, %0d shapes, %0d cycles, seed %0d)",
               NP, cycles, seed);
    else
      $display("FAIL fifo-headreg: %0d mismatches, %0d shapes missed an edge case (seed %0d)", bad, thin, seed);
    $finish;
  end
endmodule
`default_nettype wire
