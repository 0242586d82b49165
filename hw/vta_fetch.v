// SPDX-License-Identifier: Apache-2.0
// Fetch module (VTA-SPEC 4.2): reads the instruction stream into a small
// buffer and dispatches each instruction, in program order with head-of-line
// blocking, to the load, compute or store queue.
//
// The stream is requested in groups of up to 16 instructions that end on
// 256-byte boundaries (so a group never crosses 4 KiB and, for buses of at
// most 2048 bits, ends on a beat boundary); several groups may be in flight,
// as many as the buffer has room for. Buses narrower than an instruction
// assemble it from 128/BUS beats; wider buses carry BUS/128 instructions per
// beat, the first group starting at the instruction's slot of its beat.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_fetch #(
    parameter AddrWidth = 64,
    parameter BeatWidth = 32
) (
    input  wire                      clk_i,
    input  wire                      rst_i,
    input  wire                      start_i,      // pulse; taken only while idle
    input  wire                      halt_i,       // the run ended (FINISH or an error): stop dispatching
    // dispatch nothing in the next cycle: the run ends (set whenever halt_i
    // will be) or FINISH is about to end it; the next value of registers in top,
    // registered here with the dispatch's other terms (disp_ok_q)
    input  wire                      nodisp_nx_i,
    input  wire [AddrWidth-1:0]      insn_addr_i,
    input  wire [31:0]               insn_count_i,
    output wire                      busy_o,
    // the rest of the stream is dispatched, or the head waits for a full
    // queue: FINISH may execute (docs/rtl.md, FINISH); one cycle old
    output reg                       quiet_o,
    output wire                      quiet_nx_o,   // quiet_o's next value (outside reset)
    output reg                       err_dram_o,   // pulse
    output reg                       err_illegal_o, // pulse: illegal instruction at the head
    // DMA read client
    output reg                       dma_req_valid_o,
    output reg  [AddrWidth-1:0]      dma_req_addr_o,
    output reg  [BeatWidth-1:0]      dma_req_beats_o,
    input  wire                      dma_req_ready_i,
    input  wire                      dma_valid_i,
    output wire                      dma_ready_o,
    input  wire [`VTA_BUS_WIDTH-1:0] dma_data_i,
    input  wire                      dma_err_i,
    // module queues
    output wire                      ld_push_o,
    input  wire                      ld_full_i,
    output wire                      cp_push_o,
    input  wire                      cp_full_i,
    output wire                      st_push_o,
    input  wire                      st_full_i,
    output wire                      fin_push_o,   // cp_push_o of a FINISH
    output wire [127:0]              insn_o,
    output wire                      progress_o
);
  localparam BusBits     = `VTA_BUS_WIDTH;
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam Wide        = (BusBits < 128);                  // an instruction spans beats
  localparam BeatsPerIns = Wide ? 128 / BusBits : 1;
  localparam InsPerBeat  = Wide ? 1 : BusBits / 128;
  localparam SlotW       = (InsPerBeat > 1) ? $clog2(InsPerBeat) : 1;
  localparam BidxW       = (BeatsPerIns > 1) ? $clog2(BeatsPerIns) : 1;  // beat of an instruction
  localparam LogBuf      = 5;                                // buffer of 32 (+1 output register)

  // ---------------------------------------------------------------- requests
  reg  [AddrWidth-1:0] req_addr_q;   // byte address of the next instruction to request
  reg  [31:0]          req_left_q;   // instructions not yet requested
  reg  [LogBuf+1:0]    inflight_q;   // requested (accepted by the DMA), not yet buffered
  reg                  stop_q;       // an illegal instruction was seen: drop the rest of the run
  wire                 buf_full, head_valid;
  wire [127:0]         head;
  wire [LogBuf:0]      buf_count;

  // Request arithmetic on narrow, registered values (make timing,
  // docs/timing.md): the size of the next group (group_n_q, set at the start and
  // when a request is accepted, in 5 bits), its beats from the address bits
  // below the bus width, and the following request's address and count computed
  // when the request goes out, so the handshake only selects registered values.
  // instructions of a group from addr: up to the next 256-byte line, at most left
  function [4:0] group_of;
    input [31:0] left;
    input [3:0]  line_pos;  // address bits 7:4
    reg   [4:0]  to_line;
    begin
      to_line  = 5'd16 - {1'b0, line_pos};
      group_of = ((left[31:5] != 0) || (left[4:0] >= to_line)) ? to_line : left[4:0];
    end
  endfunction
  reg  [4:0]  group_n_q;  // also the size of the request on the DMA port
  // instructions requested and not yet dispatched or dropped (in flight, in the
  // buffer, at its head), counted in a register of its own
  reg  [LogBuf+2:0] held_q;
  wire        room     = ({{(LogBuf-2){1'b0}}, group_n_q} + held_q) <= (1 << LogBuf);
  // beats of a request of group_n_q instructions from req_addr_q: only the offset
  // within a beat matters, (off + 16 * group_n_q - 1) / bus bytes + 1
  wire [15:0] span_end = {{(16-LogBusBytes){1'b0}}, req_addr_q[LogBusBytes-1:0]} +
                         ({11'd0, group_n_q} << 4) - 16'd1;
  wire [15:0] req_span = (span_end >> LogBusBytes) + 16'd1;
  // after this group: the next 256-byte line (a group either ends there or is the
  // stream's last), and the instructions left
  reg  [AddrWidth-9:0] next_line_q;
  reg  [31:0]          next_left_q;
  wire accept = dma_req_valid_o && dma_req_ready_i;
  wire halted = stop_q || halt_i;

  // ---------------------------------------------------------------- data
  reg [AddrWidth-1:0] rcv_addr_q;    // byte address of the next instruction to arrive
  reg [31:0]          rcv_left_q;    // instructions of the stream still to arrive
  reg [127:0]         asm_q;         // wide buses: the beats of an instruction so far
  reg [BidxW-1:0]     bidx_q;        // (as wide as the beat count: its compares are small)
  reg [127:0]         insn_now;
  wire [SlotW-1:0]    slot = rcv_addr_q[4 +: SlotW];
  integer j;
  generate
    if (Wide) begin : gen_wide
      always @* begin
        insn_now = asm_q;
        for (j = 0; j < BeatsPerIns; j = j + 1)
          if ({{(32-BidxW){1'b0}}, bidx_q} == j) insn_now[j*BusBits +: BusBits] = dma_data_i;
      end
    end else begin : gen_narrow
      always @* begin
        insn_now = dma_data_i[127:0];
        for (j = 0; j < InsPerBeat; j = j + 1)
          if ({{(32-SlotW){1'b0}}, slot} == j) insn_now = dma_data_i[j*128 +: 128];
      end
    end
  endgenerate
  // a narrow beat is released at its last slot, or after the stream's last instruction
  wire last_slot = Wide || (InsPerBeat == 1) || ({{(32-SlotW){1'b0}}, slot} == InsPerBeat - 1) ||
                   (rcv_left_q == 1);
  assign dma_ready_o = Wide ? 1'b1 : last_slot;
  wire beat     = dma_valid_i && dma_ready_o;
  wire bidx_last = ({{(32-BidxW){1'b0}}, bidx_q} == BeatsPerIns - 1);
  wire buf_push = dma_valid_i && (Wide ? bidx_last : 1'b1);

  // ---------------------------------------------------------------- dispatch of the buffer head
  // Each instruction is decoded as it enters the buffer (its queue and its
  // legality travel with it), so the dispatch of the head only combines flags.
  // Static legality, checked at dispatch as the golden model does (docs/golden-model.md,
  // Errors): reserved opcode, LOAD of type 4/6/7 with x_size != 0, reserved ALU
  // opcode, STORE with padding, a dependency flag without a queue. An illegal
  // instruction is not dispatched; fetch stops and drops the rest of the stream.
  // {fin, bad, ld_ok, st_ok, cp_ok} of an instruction: exactly one of bad and
  // the three legal queue flags is set (to compute: neither load nor store;
  // fin: FINISH, to compute, never illegal). A push is then one LUT of three
  // registers: the head's flag, its queue's full flag and disp_ok_q (make
  // timing: the push's fanout follows it). The legality is that of the golden
  // model above, written per queue.
  function [4:0] decode;
    input [127:0] insn;
    reg   [2:0]   op, mt, aluop;
    reg           ld, st, pads, ld_ok, st_ok, cp_ok;
    reg   [15:0]  xsize;
    begin
      op    = insn[`VTA_MEM_OPCODE_LSB +: `VTA_MEM_OPCODE_WIDTH];
      mt    = insn[`VTA_MEM_MEMORY_TYPE_LSB +: `VTA_MEM_MEMORY_TYPE_WIDTH];
      aluop = insn[`VTA_ALU_ALU_OPCODE_LSB +: `VTA_ALU_ALU_OPCODE_WIDTH];
      xsize = insn[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
      ld    = (op == `VTA_OPCODE_LOAD) && (mt == `VTA_MEM_ID_INP || mt == `VTA_MEM_ID_WGT);
      st    = (op == `VTA_OPCODE_STORE);
      pads  = (insn[`VTA_MEM_Y_PAD_0_LSB +: `VTA_MEM_Y_PAD_0_WIDTH] != 0) ||
              (insn[`VTA_MEM_Y_PAD_1_LSB +: `VTA_MEM_Y_PAD_1_WIDTH] != 0) ||
              (insn[`VTA_MEM_X_PAD_0_LSB +: `VTA_MEM_X_PAD_0_WIDTH] != 0) ||
              (insn[`VTA_MEM_X_PAD_1_LSB +: `VTA_MEM_X_PAD_1_WIDTH] != 0);
      // each queue's legal instructions (illegal: none of the three)
      ld_ok = ld && !insn[`VTA_MEM_POP_PREV_LSB] && !insn[`VTA_MEM_PUSH_PREV_LSB];
      st_ok = st && !insn[`VTA_MEM_POP_NEXT_LSB] && !insn[`VTA_MEM_PUSH_NEXT_LSB] &&
              !((xsize != 0) && pads);
      cp_ok = ((op == `VTA_OPCODE_LOAD) && !ld &&
               !((xsize != 0) && (mt == `VTA_MEM_ID_OUT || mt > `VTA_MEM_ID_ACC_8BIT))) ||
              (op == `VTA_OPCODE_GEMM) || (op == `VTA_OPCODE_FINISH) ||
              ((op == `VTA_OPCODE_ALU) && (aluop <= `VTA_ALU_OPCODE_MUL));
      decode = {op == `VTA_OPCODE_FINISH, !ld_ok && !st_ok && !cp_ok, ld_ok, st_ok, cp_ok};
    end
  endfunction
  wire [4:0] head_dec;
  wire fin   = head_dec[4];
  wire bad   = head_dec[3];
  wire ld_ok = head_dec[2];
  wire st_ok = head_dec[1];
  wire cp_ok = head_dec[0];
  // a legal head at a full queue
  wire full  = (ld_ok && ld_full_i) || (st_ok && st_full_i) || (cp_ok && cp_full_i);
  wire drop  = head_valid && (halted || bad);
  // disp_ok_q = head_valid && !stop_q && !nodisp, nodisp the value nodisp_nx_i
  // had in the last cycle (it covers halt_i); loaded with the next values of
  // the three: the buffer's (its next out_valid_o, from the count and the pop),
  // stop_q's and nodisp_nx_i. The buffer's pop is formed from a copy of it,
  // disp_ok_b, not from the pushes (make timing: their fanout).
  reg  disp_ok_q, disp_ok_b;
  wire disp_ok_d;
  assign ld_push_o = disp_ok_q && ld_ok && !ld_full_i;
  assign st_push_o = disp_ok_q && st_ok && !st_full_i;
  assign cp_push_o = disp_ok_q && cp_ok && !cp_full_i;
  assign fin_push_o = cp_push_o && fin;
  wire go      = ld_push_o || st_push_o || cp_push_o;
  wire buf_pop = (disp_ok_b && ((ld_ok && !ld_full_i) || (st_ok && !st_full_i) ||
                                (cp_ok && !cp_full_i))) || drop;  // = go || drop
  // the buffer's next out_valid_o (vta_fifo: its RAM holds an entry when the
  // count is non-zero, and a take loads the head) and stop_q's next value
  wire head_valid_nx = ((buf_count != 0) && (!head_valid || buf_pop)) || (head_valid && !buf_pop);
  wire stop_nx       = !(start_i && !busy_o) && (stop_q || (head_valid && bad && !halt_i));
  assign disp_ok_d   = !rst_i && head_valid_nx && !stop_nx && !nodisp_nx_i;
  (* keep *) always @(posedge clk_i) disp_ok_q <= disp_ok_d;
  (* keep *) always @(posedge clk_i) disp_ok_b <= disp_ok_d;
  assign insn_o    = head;
  wire   fetching  = (req_left_q != 0) || dma_req_valid_o || (inflight_q != 0);
  assign busy_o    = fetching || head_valid || (buf_count != 0);
  // quiet_o is registered (make timing: the queues' full flags come late in the
  // cycle, and the FINISH gate feeds compute's pop). A stream fully dispatched
  // stays so until the next start, which clears the queues, so FINISH never
  // goes early on that side; a head blocked by a full queue is held (nodisp)
  // from then until FINISH has executed (vta_top.v, fin_hold).
  wire   quiet     = (!fetching && !head_valid && (buf_count == 0)) ||
                     (head_valid && !stop_q && full);
  assign quiet_nx_o = quiet;
  assign progress_o = beat || go;

  vta_fifo #(.Width(133), .LogDepth(LogBuf)) u_buf (
      .clk_i       (clk_i),
      .rst_i       (rst_i),
      .clear_i     (1'b0),
      .push_i      (buf_push),
      .push_data_i ({decode(insn_now), insn_now}),
      .full_o      (buf_full),
      .out_valid_o (head_valid),
      .out_data_o  ({head_dec, head}),
      .pop_i       (buf_pop),
      .count_o     (buf_count)
  );

  always @(posedge clk_i) begin
    if (rst_i) begin
      dma_req_valid_o <= 1'b0;
      err_dram_o      <= 1'b0;
      err_illegal_o   <= 1'b0;
      quiet_o         <= 1'b0;
      stop_q          <= 1'b0;
      req_left_q      <= 0;
      rcv_left_q      <= 0;
      inflight_q      <= 0;
      held_q          <= 0;
      bidx_q          <= 0;
    end else begin
      quiet_o       <= quiet;
      err_dram_o    <= beat && dma_err_i;
      err_illegal_o <= head_valid && bad && !stop_q && !halt_i;
      if (head_valid && bad && !halt_i) stop_q <= 1'b1;
      if (start_i && !busy_o) begin
        stop_q     <= 1'b0;
        req_addr_q <= insn_addr_i;
        req_left_q <= insn_count_i;
        group_n_q  <= group_of(insn_count_i, insn_addr_i[7:4]);
        rcv_addr_q <= insn_addr_i;
        rcv_left_q <= insn_count_i;
      end

      // requests: one on the DMA port at a time; withdrawn if the run stops first
      if (dma_req_valid_o) begin
        if (accept) begin
          dma_req_valid_o <= 1'b0;
          req_addr_q <= {next_line_q, 4'd0, req_addr_q[3:0]};
          req_left_q <= next_left_q;
          group_n_q  <= group_of(next_left_q, 4'd0);
        end else if (halted) begin
          dma_req_valid_o <= 1'b0;
        end
      end else if (req_left_q != 0 && !halted && room) begin
        dma_req_valid_o <= 1'b1;
        dma_req_addr_o  <= {req_addr_q[AddrWidth-1:LogBusBytes], {LogBusBytes{1'b0}}};
        dma_req_beats_o <= Wide ? {{(BeatWidth-5){1'b0}}, group_n_q} * BeatsPerIns :
                                  {{(BeatWidth-16){1'b0}}, req_span};
        next_line_q     <= req_addr_q[AddrWidth-1:8] + 1'b1;
        next_left_q     <= req_left_q - {27'd0, group_n_q};
      end
      if (halted && !accept) req_left_q <= 0;
      held_q     <= held_q + (accept ? {{(LogBuf-2){1'b0}}, group_n_q} : {(LogBuf+3){1'b0}}) -
                    {{(LogBuf+2){1'b0}}, buf_pop};
      inflight_q <= inflight_q + (accept ? {{(LogBuf-3){1'b0}}, group_n_q} : {(LogBuf+2){1'b0}}) -
                    {{(LogBuf+1){1'b0}}, buf_push};

      // data: instructions in stream order
      if (dma_valid_i) begin
        if (Wide) begin
          asm_q  <= insn_now;
          bidx_q <= bidx_last ? {BidxW{1'b0}} : bidx_q + 1'b1;
        end
        if (buf_push) begin
          rcv_addr_q <= rcv_addr_q + 16;
          rcv_left_q <= rcv_left_q - 1;
        end
      end
    end
  end

  // buf_full cannot happen: a group is requested only when it fits
  wire unused_ok = buf_full ^ (^req_span) ^ (^asm_q);
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
