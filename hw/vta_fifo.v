// SPDX-License-Identifier: Apache-2.0
// First-word-fall-through synchronous FIFO on an inferred RAM (instruction
// queues, fetch buffer). out_valid_o/out_data_o show the head; pop_i takes it.
// HeadReg = 1 keeps the head in flip-flops instead of the RAM's read port, so
// the head's data start no path with the block RAM's 2.2-2.5 ns clock-to-out
// (make timing: the compute queue's opcode bits decide its own pop). The
// visible behaviour (valid, data, count, full) is the same cycle for cycle.
`resetall
`timescale 1ns / 1ps
`default_nettype none
module vta_fifo #(
    parameter Width    = 128, // bits per entry
    parameter LogDepth = 9,   // log2 of the RAM entries (one more is held in the output register)
    parameter HeadReg  = 0    // 1: the head in flip-flops (2 x Width more flip-flops)
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
  // count_o + 1 and count_o - 1 in registers of their own: the next count is
  // one of them, so push and take (either may come late: fetch's push, a
  // module's pop) reach the count through one LUT, not a carry chain (make
  // timing; an adder after a select by the push or the take is what Yosys
  // builds from any form that computes the count from count_o in the cycle)
  reg  [LogDepth:0]   cnt_p1_q, cnt_m1_q;
  localparam [LogDepth:0] Two = 2;
  localparam [LogDepth:0] Max = 1 << LogDepth;
  reg                 ram_nonempty;  // count_o != 0, a register: take is one LUT after pop_i (make timing)
  reg                 full_q;        // count_o == Max, a register: the push's enable is one LUT
  wire                take = ram_nonempty && (!out_valid_o || pop_i);
  // The count's enable (take_c) and the head's (take_h) are take formed from
  // copies of ram_nonempty and out_valid_o of their own, so each is one LUT
  // from pop_i: no term is shared with take, whose net has the other loads
  // (make timing: Yosys shares !out_valid_o || pop_i between the takes, one
  // more LUT with the fanout of all of them).
  reg                 nonempty_c, valid_c, nonempty_h, valid_h;  // = ram_nonempty, out_valid_o
  wire                take_c = nonempty_c && (!valid_c || pop_i);  // = take
  wire                take_h = nonempty_h && (!valid_h || pop_i);  // = take
  wire                do_push = push_i && !full_q;
  // rows left after this cycle's take, not counting this cycle's push
  wire                left = (count_o > 1) || (ram_nonempty && !take);
  // next values of the flags, each also that of its kept copies
  wire                clr        = rst_i || clear_i;
  wire                nonempty_d = !clr && (do_push || left);
  wire                valid_d    = !clr && (take || (out_valid_o && !pop_i));
  wire                full_d     = !clr && (full_q ? !take : (count_o == Max - 1) && do_push && !take);

  assign full_o = full_q;

  always @(posedge clk_i) begin
    if (rst_i || clear_i) begin
      wptr_q       <= 0;
      rptr_q       <= 0;
      count_o      <= 0;
      cnt_p1_q     <= 1;
      cnt_m1_q     <= {(LogDepth+1){1'b1}};
    end else begin
      if (do_push) wptr_q <= wptr_q + 1'b1;
      if (take) rptr_q <= rptr_q + 1'b1;
      if (do_push != take_c) begin
        count_o  <= do_push ? cnt_p1_q : cnt_m1_q;
        cnt_p1_q <= do_push ? count_o + Two : count_o;
        cnt_m1_q <= do_push ? count_o : count_o - Two;
      end
    end
  end

  // all kept (Yosys merges a flip-flop into an equal kept one)
  (* keep *) always @(posedge clk_i) ram_nonempty <= nonempty_d;
  (* keep *) always @(posedge clk_i) nonempty_c   <= nonempty_d;
  (* keep *) always @(posedge clk_i) nonempty_h   <= nonempty_d;
  (* keep *) always @(posedge clk_i) out_valid_o  <= valid_d;
  (* keep *) always @(posedge clk_i) valid_c      <= valid_d;
  (* keep *) always @(posedge clk_i) valid_h      <= valid_d;
  always @(posedge clk_i) full_q <= full_d;

  generate
    if (HeadReg == 0) begin : gen_ram_head
      // the head is the RAM's read port, loaded by take (take_h: its Width enables)
      vta_sram #(.Width(Width), .LogDepth(LogDepth)) u_mem (
          .clk_i    (clk_i),
          .wr_en_i  (do_push),
          .wr_addr_i(wptr_q),
          .wr_data_i(push_data_i),
          .rd_en_i  (take_h),
          .rd_addr_i(rptr_q),
          .rd_data_o(out_data_o)
      );
    end else begin : gen_reg_head
      // The read port holds the oldest RAM entry ahead of time: it reads the
      // entry that is oldest after this cycle's take. next_ok_q says that it
      // does (the entry was written before the read); otherwise the oldest
      // entry was pushed in the last cycle (the RAM returns the old row for a
      // read of the row being written) and comes from push_q. take loads the
      // head as the RAM's read port was loaded before, with the same row.
      //
      // The read address is a function of registers (make timing: take
      // follows the reader's late pop): rptr_q + 1 while next_ok_q (read only
      // with take: the entry after the one taken), else rptr_q. It differs from
      // "rptr_q + take" only in a take without next_ok_q, whose read is not
      // used: next_ok_q is clear only while the RAM holds at most one entry
      // (the oldest was read before it was written), so that take leaves none
      // behind (left is clear) and the next cycle reads again.
      // The read enable is formed from copies of ram_nonempty and out_valid_o
      // too, in one expression: take || (!next_ok_q && ram_nonempty) (make
      // timing: one LUT from the reader's pop, not two after take's net).
      // The head's enable is take_h (its Width enables off take's own net).
      // push_q is loaded in every cycle, without an enable: it is read only
      // when the oldest entry was pushed in the last cycle (make timing: the
      // push's fanout).
      reg  [Width-1:0]    head_q, push_q;
      reg                 next_ok_q;
      reg                 nonempty_r, valid_r;  // = ram_nonempty, out_valid_o
      wire [Width-1:0]    next_data;
      wire [LogDepth-1:0] rd_addr = next_ok_q ? rptr_q + 1'b1 : rptr_q;
      wire                rd   = nonempty_r && (!valid_r || pop_i || !next_ok_q);
      vta_sram #(.Width(Width), .LogDepth(LogDepth)) u_mem (
          .clk_i    (clk_i),
          .wr_en_i  (do_push),
          .wr_addr_i(wptr_q),
          .wr_data_i(push_data_i),
          .rd_en_i  (rd),
          .rd_addr_i(rd_addr),
          .rd_data_o(next_data)
      );
      (* keep *) always @(posedge clk_i) nonempty_r <= nonempty_d;
      (* keep *) always @(posedge clk_i) valid_r    <= valid_d;
      always @(posedge clk_i) begin
        if (rst_i || clear_i) next_ok_q <= 1'b0;
        else if (rd) next_ok_q <= left;
        push_q <= push_data_i;  // the last cycle's push data (above)
        if (take_h) head_q <= next_ok_q ? next_data : push_q;
      end
      assign out_data_o = head_q;
    end
  endgenerate
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if (Width < 1 || LogDepth < 1 || LogDepth > 16 || (HeadReg != 0 && HeadReg != 1)) begin : g_bad_params
    $error("%m: Width = %0d, LogDepth = %0d (1..16), HeadReg = %0d (0 or 1)", Width, LogDepth, HeadReg);
  end
`endif

endmodule
`resetall
