// SPDX-License-Identifier: Apache-2.0
// Load module (VTA-SPEC 4.4): LOAD INP and LOAD WGT into their SRAMs.
// The next LOAD is taken (tokens popped, its DMA requests started) while the
// writes of the previous one are still arriving, so DRAM latency is paid once
// per stream of loads rather than once per instruction; each instruction's
// tokens are pushed in program order once its own writes are done.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_load #(
    parameter AddrWidth = 64,
    parameter BeatWidth = 32,
    parameter IdxW      = 32   // bits of an instruction's index in the stream
) (
    input  wire                       clk_i,
    input  wire                       rst_i,
    // run control (docs/rtl.md, FINISH): take instructions and tokens only while
    // run_i; flush_i (a run's start) drops an instruction still waiting for tokens
    input  wire                       run_i,
    input  wire                       flush_i,
    // instruction queue
    input  wire                       insn_valid_i,
    input  wire [127:0]               insn_i,
    input  wire [IdxW-1:0]            insn_idx_i,   // its index in the stream (for errors)
    output wire                       insn_pop_o,
    // tokens: pop_next consumes g2l, push_next produces l2g
    input  wire                       g2l_avail_i,
    output wire                       g2l_pop_o,
    output wire                       l2g_push_o,
    // base registers
    input  wire [AddrWidth-1:0]       inp_base_i,
    input  wire [AddrWidth-1:0]       wgt_base_i,
    // SRAM write ports
    output wire                       inp_wr_en_o,
    output wire [`VTA_LOG_INP_BUFF_DEPTH-1:0] inp_wr_addr_o,
    output wire [`VTA_INP_MATRIX_WIDTH-1:0]   inp_wr_data_o,
    output wire                       wgt_wr_en_o,
    output wire [`VTA_LOG_WGT_BUFF_DEPTH-1:0] wgt_wr_addr_o,
    output wire [`VTA_WGT_MATRIX_WIDTH-1:0]   wgt_wr_data_o,
    // DMA read client
    output wire                       dma_req_valid_o,
    output wire [AddrWidth-1:0]       dma_req_addr_o,
    output wire [BeatWidth-1:0]       dma_req_beats_o,
    input  wire                       dma_req_ready_i,
    input  wire                       dma_valid_i,
    output wire                       dma_ready_o,
    input  wire [`VTA_BUS_WIDTH-1:0]  dma_data_i,
    input  wire                       dma_err_i,
    // status
    output reg                        err_illegal_o,
    output reg  [IdxW-1:0]            err_idx_o,    // the instruction an error flag belongs to
    output reg  [IdxW-1:0]            push_idx_o,   // the instruction of the last l2g push
    output wire                       err_range_o,
    output wire                       err_dram_o,
    output wire                       busy_o,
    output wire                       tokwait_o,
    output wire                       progress_o,
    output wire                            elem_o,        // DRAM element written to an SRAM (pulse)
    output wire [2:0]                      elem_type_o    // its memory type
);
  localparam DataBits = (`VTA_WGT_MATRIX_WIDTH > `VTA_INP_MATRIX_WIDTH) ?
                        `VTA_WGT_MATRIX_WIDTH : `VTA_INP_MATRIX_WIDTH;
  localparam integer LogInpEI = $clog2(`VTA_INP_ELEM_BYTES);
  localparam [3:0] LogInpE = LogInpEI[3:0];
  localparam integer LogWgtEI = $clog2(`VTA_WGT_ELEM_BYTES);
  localparam [3:0] LogWgtE = LogWgtEI[3:0];

  // LHold1/2: after a start, the cycles load2d takes to check the block's range
  // (its err_range_o comes three cycles after the start), so that a refused
  // LOAD stops the run before the next instruction takes its tokens
  localparam [2:0] LIdle = 3'd0, LTok = 3'd1, LStart = 3'd2, LDrain = 3'd3, LPush = 3'd4,
                   LHold1 = 3'd5, LHold2 = 3'd6;
  reg [2:0]   state_q;
  // push_next of the instructions in load2d, oldest first (at most two)
  reg [1:0]   pend_n_q;
  reg [1:0]   pend_push_q;
  reg [IdxW-1:0] idx_q, pend_idx0_q, pend_idx1_q;  // the taken instruction's, and the loads' indices
  reg [127:0] insn_q;
  wire       pop_prev  = insn_q[`VTA_MEM_POP_PREV_LSB];
  wire       pop_next  = insn_q[`VTA_MEM_POP_NEXT_LSB];
  wire       push_prev = insn_q[`VTA_MEM_PUSH_PREV_LSB];
  wire       push_next = insn_q[`VTA_MEM_PUSH_NEXT_LSB];
  wire [2:0] mem_type  = insn_q[`VTA_MEM_MEMORY_TYPE_LSB +: `VTA_MEM_MEMORY_TYPE_WIDTH];
  wire [15:0] x_size   = insn_q[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
  wire       is_wgt    = (mem_type == `VTA_MEM_ID_WGT);
  wire       tok_ready = run_i && !flush_i && (!pop_next || g2l_avail_i);

  wire               l2d_busy, l2d_ready, l2d_done, l2d_wr_en;
  wire [2:0]         l2d_wr_tag;
  assign insn_pop_o = (state_q == LIdle) && insn_valid_i && run_i;
  assign g2l_pop_o  = (state_q == LTok) && tok_ready && pop_next;
  // pushes in program order: a finished load's, or (LPush) a no-op's once all are done
  assign l2g_push_o = (l2d_done && pend_push_q[0]) || ((state_q == LPush) && push_next);
  assign tokwait_o  = (state_q == LTok) && !tok_ready;
  // busy_o is a register (make timing: it feeds top's queue-full, fetch's
  // dispatch and FINISH's gate) with the value the flags below have in the same
  // cycle: an instruction taken (state not idle) or a load in load2d (pend_n).
  // load2d's own busy is not needed: from its start to its done pulse a load is
  // counted in pend_n_q.
  reg    busy_q;
  assign busy_o     = busy_q;
  wire   wr_is_wgt  = (l2d_wr_tag == `VTA_MEM_ID_WGT);
  wire [31:0]        l2d_wr_idx;
  wire [DataBits-1:0] l2d_wr_data;
  vta_load2d #(.DataBits(DataBits), .AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_load2d (
      .clk_i           (clk_i),
      .rst_i           (rst_i),
      .start_i         (state_q == LStart),
      .insn_i          (insn_q),
      .base_i          (is_wgt ? wgt_base_i : inp_base_i),
      .log_elem_i      (is_wgt ? LogWgtE : LogInpE),
      .depth_i         (is_wgt ? (32'd1 << `VTA_LOG_WGT_BUFF_DEPTH) : (32'd1 << `VTA_LOG_INP_BUFF_DEPTH)),
      .tag_i           (mem_type),
      .ready_o         (l2d_ready),
      .busy_o          (l2d_busy),
      .done_o          (l2d_done),
      .wr_tag_o        (l2d_wr_tag),
      .err_range_o     (err_range_o),
      .err_dram_o      (err_dram_o),
      .wr_en_o         (l2d_wr_en),
      .elem_o          (elem_o),
      .wr_idx_o        (l2d_wr_idx),
      .wr_data_o       (l2d_wr_data),
      .dma_req_valid_o (dma_req_valid_o),
      .dma_req_addr_o  (dma_req_addr_o),
      .dma_req_beats_o (dma_req_beats_o),
      .dma_req_ready_i (dma_req_ready_i),
      .dma_valid_i     (dma_valid_i),
      .dma_ready_o     (dma_ready_o),
      .dma_data_i      (dma_data_i),
      .dma_err_i       (dma_err_i)
  );

  assign inp_wr_en_o   = l2d_wr_en && !wr_is_wgt;
  assign inp_wr_addr_o = l2d_wr_idx[`VTA_LOG_INP_BUFF_DEPTH-1:0];
  assign inp_wr_data_o = l2d_wr_data[`VTA_INP_MATRIX_WIDTH-1:0];
  assign wgt_wr_en_o   = l2d_wr_en && wr_is_wgt;
  assign wgt_wr_addr_o = l2d_wr_idx[`VTA_LOG_WGT_BUFF_DEPTH-1:0];
  assign wgt_wr_data_o = l2d_wr_data[`VTA_WGT_MATRIX_WIDTH-1:0];
  assign progress_o    = l2d_wr_en || insn_pop_o || (state_q == LPush) || l2d_done ||
                         (dma_valid_i && dma_ready_o);

  wire start = (state_q == LStart) && l2d_ready;
  // next state and next load count (busy_q is computed from them)
  reg [2:0] state_d;
  always @* begin
    state_d = state_q;
    case (state_q)
      LIdle:  if (insn_valid_i && run_i) state_d = LTok;
      LTok:   if (flush_i) state_d = LIdle;
              else if (tok_ready) state_d = (x_size != 0) ? LStart : LDrain;
      LStart: if (l2d_ready) state_d = LHold1;
      LHold1: state_d = LHold2;
      LHold2: state_d = LIdle;
      LDrain: if (pend_n_q == 0) state_d = LPush;   // a no-op pushes after the loads before it
      LPush:  state_d = LIdle;
      default: state_d = LIdle;
    endcase
  end
  wire [1:0] pend_n_d = pend_n_q + {1'b0, start} - {1'b0, l2d_done};
  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q       <= LIdle;
      busy_q        <= 1'b0;
      err_illegal_o <= 1'b0;
      pend_n_q      <= 0;
      pend_push_q   <= 0;
    end else begin
      state_q       <= state_d;
      busy_q        <= (state_d != LIdle) || (pend_n_d != 0);
      pend_n_q      <= pend_n_d;
      err_illegal_o <= 1'b0;
      if (l2g_push_o) push_idx_o <= (l2d_done && pend_push_q[0]) ? pend_idx0_q : idx_q;
      if (state_q == LIdle && insn_valid_i && run_i) begin
        insn_q  <= insn_i;
        idx_q   <= insn_idx_i;
      end
      // flags without a queue (VTA-SPEC 4.3) are illegal
      if (state_q == LTok && !flush_i && tok_ready && (pop_prev || push_prev))
        err_illegal_o <= 1'b1;
      // the loads in load2d, oldest in bit 0
      case ({start, l2d_done})
        2'b10: begin
          pend_push_q[pend_n_q[0]] <= push_next;
          if (pend_n_q == 0) pend_idx0_q <= idx_q;
          else pend_idx1_q <= idx_q;
        end
        2'b01: begin
          pend_push_q <= {1'b0, pend_push_q[1]};
          pend_idx0_q <= pend_idx1_q;
        end
        2'b11: begin
          pend_push_q <= (pend_n_q == 1) ? {1'b0, push_next} : {push_next, pend_push_q[1]};
          if (pend_n_q == 1) pend_idx0_q <= idx_q;
          else begin
            pend_idx0_q <= pend_idx1_q;
            pend_idx1_q <= idx_q;
          end
        end
        default: ;
      endcase
    end
  end
  assign elem_type_o = l2d_wr_tag;
  wire unused_ok = l2d_busy;
  // Errors: a DRAM error response belongs to the oldest load in load2d (whose
  // data arrives), a refused block to the newest (flagged as it starts), an
  // illegal flag to the instruction being taken.
  always @* begin
    err_idx_o = idx_q;
    if (err_dram_o) err_idx_o = pend_idx0_q;
    else if (err_range_o) err_idx_o = (pend_n_q == 2'd2) ? pend_idx1_q : pend_idx0_q;
  end
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
  if (IdxW < 1 || IdxW > 32) begin : g_bad_idx_w
    $error("%m: IdxW = %0d: an instruction index of 1 to 32 bits", IdxW);
  end
`endif

endmodule
`resetall
