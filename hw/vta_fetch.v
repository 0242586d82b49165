// SPDX-License-Identifier: Apache-2.0
// Fetch module (VTA-SPEC 4.2): reads the instruction stream in bursts into a
// small buffer and dispatches each instruction, in program order with
// head-of-line blocking, to the load, compute or store queue.
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
    input  wire                      start_i,      // pulse
    input  wire                      halt_i,       // the run ended (FINISH or an error): stop dispatching
    input  wire [AddrWidth-1:0]      insn_addr_i,
    input  wire [31:0]               insn_count_i,
    output wire                      busy_o,
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
    output wire [127:0]              insn_o,
    output wire                      progress_o
);
  localparam BusBits   = `VTA_BUS_WIDTH;
  localparam InsBeats  = 128 / BusBits;   // bus is at most 128 bits
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam Group     = 16;              // instructions per request
  localparam LogBuf    = 5;

  localparam [1:0] FIdle = 2'd0, FReq = 2'd1, FData = 2'd2;
  reg [1:0]           state_q;
  reg [AddrWidth-1:0] addr_q;
  reg [31:0]          left_q;     // instructions not yet requested
  reg [31:0]          pending_q;  // instructions requested, not yet received
  reg [127:0]         asm_q;
  reg [7:0]           bidx_q;

  wire              buf_full, head_valid;
  wire [127:0]      head;
  wire [LogBuf:0]   buf_count;
  reg  [127:0]      insn_now;
  integer j;
  always @* begin
    insn_now = asm_q;
    for (j = 0; j < InsBeats; j = j + 1)
      if ({24'd0, bidx_q} == j) insn_now[j*BusBits +: BusBits] = dma_data_i;
  end
  wire beat     = dma_valid_i && dma_ready_o;
  wire buf_push = beat && (bidx_q == InsBeats - 1);
  assign dma_ready_o = (state_q == FData);

  // dispatch of the buffer head
  wire [2:0] op   = head[`VTA_MEM_OPCODE_LSB +: `VTA_MEM_OPCODE_WIDTH];
  wire [2:0] mt   = head[`VTA_MEM_MEMORY_TYPE_LSB +: `VTA_MEM_MEMORY_TYPE_WIDTH];
  wire to_ld = (op == `VTA_OPCODE_LOAD) && (mt == `VTA_MEM_ID_INP || mt == `VTA_MEM_ID_WGT);
  wire to_st = (op == `VTA_OPCODE_STORE);
  wire to_cp = !to_ld && !to_st;
  // Static legality, checked at dispatch as the golden model does (docs/golden-model.md,
  // Errors): reserved opcode, LOAD of type 4/6/7 with x_size != 0, reserved ALU
  // opcode, STORE with padding, a dependency flag without a queue. An illegal
  // instruction is not dispatched; fetch stops and drops the rest of the stream.
  wire [15:0] h_xsize = head[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
  wire h_pads = (head[`VTA_MEM_Y_PAD_0_LSB +: `VTA_MEM_Y_PAD_0_WIDTH] != 0) ||
                (head[`VTA_MEM_Y_PAD_1_LSB +: `VTA_MEM_Y_PAD_1_WIDTH] != 0) ||
                (head[`VTA_MEM_X_PAD_0_LSB +: `VTA_MEM_X_PAD_0_WIDTH] != 0) ||
                (head[`VTA_MEM_X_PAD_1_LSB +: `VTA_MEM_X_PAD_1_WIDTH] != 0);
  wire [2:0] h_aluop = head[`VTA_ALU_ALU_OPCODE_LSB +: `VTA_ALU_ALU_OPCODE_WIDTH];
  wire h_prev = head[`VTA_MEM_POP_PREV_LSB] || head[`VTA_MEM_PUSH_PREV_LSB];
  wire h_next = head[`VTA_MEM_POP_NEXT_LSB] || head[`VTA_MEM_PUSH_NEXT_LSB];
  wire bad = (op > `VTA_OPCODE_ALU) ||
             ((op == `VTA_OPCODE_LOAD) && (h_xsize != 0) &&
              (mt == `VTA_MEM_ID_OUT || mt > `VTA_MEM_ID_ACC_8BIT)) ||
             (to_ld && h_prev) ||
             (to_st && (h_next || ((h_xsize != 0) && h_pads))) ||
             ((op == `VTA_OPCODE_ALU) && (h_aluop > `VTA_ALU_OPCODE_MUL));
  reg  stop_q;  // an illegal instruction was seen: drop the rest of this run's stream
  wire drop  = head_valid && (stop_q || halt_i || bad);
  wire go    = head_valid && !stop_q && !halt_i && !bad &&
               (to_ld ? !ld_full_i : to_st ? !st_full_i : !cp_full_i);
  assign ld_push_o = go && to_ld;
  assign st_push_o = go && to_st;
  assign cp_push_o = go && to_cp;
  assign insn_o    = head;
  assign busy_o    = (state_q != FIdle) || head_valid || (buf_count != 0);
  assign progress_o = beat || go;

  vta_fifo #(.Width(128), .LogDepth(LogBuf)) u_buf (
      .clk_i       (clk_i),
      .rst_i       (rst_i),
      .clear_i     (1'b0),
      .push_i      (buf_push),
      .push_data_i (insn_now),
      .full_o      (buf_full),
      .out_valid_o (head_valid),
      .out_data_o  (head),
      .pop_i       (go || drop),
      .count_o     (buf_count)
  );

  wire [31:0] group_n = (left_q < Group) ? left_q : Group;
  wire        room    = ({{(31-LogBuf){1'b0}}, buf_count} + Group) <= (1 << LogBuf);

  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q         <= FIdle;
      dma_req_valid_o <= 1'b0;
      err_dram_o      <= 1'b0;
      err_illegal_o   <= 1'b0;
      stop_q          <= 1'b0;
      left_q          <= 0;
      pending_q       <= 0;
      bidx_q          <= 0;
    end else begin
      err_dram_o <= beat && dma_err_i;
      err_illegal_o <= head_valid && bad && !stop_q && !halt_i;
      if (head_valid && bad && !halt_i) stop_q <= 1'b1;
      case (state_q)
        FIdle: if (start_i) begin
          stop_q  <= 1'b0;
          addr_q  <= insn_addr_i;
          left_q  <= insn_count_i;
          state_q <= (insn_count_i != 0) ? FReq : FIdle;
        end
        FReq: if (!dma_req_valid_o) begin
          if (stop_q || halt_i) state_q <= FIdle;
          else if (room) begin
            dma_req_valid_o <= 1'b1;
            dma_req_addr_o  <= addr_q;
            dma_req_beats_o <= group_n * InsBeats;
            pending_q       <= group_n;
          end
        end else if (dma_req_ready_i) begin
          dma_req_valid_o <= 1'b0;
          left_q  <= left_q - pending_q;
          addr_q  <= addr_q + ({{(AddrWidth-32){1'b0}}, pending_q} << 4);
          bidx_q  <= 0;
          state_q <= FData;
        end
        FData: if (beat) begin
          asm_q  <= insn_now;
          bidx_q <= (bidx_q == InsBeats - 1) ? 8'd0 : bidx_q + 8'd1;
          if (bidx_q == InsBeats - 1) begin
            pending_q <= pending_q - 1;
            if (pending_q == 1) state_q <= (left_q != 0 && !stop_q && !halt_i) ? FReq : FIdle;
          end
        end
        default: state_q <= FIdle;
      endcase
    end
  end

  // buf_full cannot happen: a group is requested only when it fits
  wire unused_ok = buf_full ^ LogBusBytes[0];
endmodule
`resetall
