// SPDX-License-Identifier: Apache-2.0
// Store module (VTA-SPEC 4.6): OUT SRAM rows to strided DRAM rows. Tokens
// are pushed only after every DRAM write has been acknowledged.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_store #(
    parameter AddrWidth = 64,
    parameter BeatWidth = 32
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
    output wire                       insn_pop_o,
    // tokens: pop_prev consumes g2s, push_prev produces s2g
    input  wire                       g2s_avail_i,
    output wire                       g2s_pop_o,
    output wire                       s2g_push_o,
    input  wire [AddrWidth-1:0]       out_base_i,
    // OUT SRAM read port
    output wire                       out_rd_en_o,
    output wire [`VTA_LOG_OUT_BUFF_DEPTH-1:0] out_rd_addr_o,
    input  wire [`VTA_OUT_MATRIX_WIDTH-1:0]   out_rd_data_i,
    // DMA write client
    output reg                        dma_req_valid_o,
    output reg  [AddrWidth-1:0]       dma_req_addr_o,
    output reg  [BeatWidth-1:0]       dma_req_beats_o,
    input  wire                       dma_req_ready_i,
    output wire                       dma_valid_o,
    output wire [`VTA_BUS_WIDTH-1:0]  dma_data_o,
    input  wire                       dma_ready_i,
    input  wire                       dma_done_i,
    // status
    output reg                        err_illegal_o,
    output reg                        err_range_o,
    output wire                       busy_o,
    output wire                       tokwait_o,
    output wire                       progress_o
);
  localparam BusBits   = `VTA_BUS_WIDTH;
  localparam ElemBits  = `VTA_OUT_MATRIX_WIDTH;
  localparam ElemBeats = (ElemBits > BusBits) ? ElemBits / BusBits : 1;
  localparam LogOut    = `VTA_LOG_OUT_BUFF_DEPTH;
  function integer clog2i;
    input integer v;
    integer r;
    begin
      r = 0;
      while ((1 << r) < v) r = r + 1;
      clog2i = r;
    end
  endfunction
  localparam LogOutE = clog2i(`VTA_OUT_ELEM_BYTES);

  localparam [2:0] SIdle = 3'd0, STok = 3'd1, SRow = 3'd2, SData = 3'd3, SPush = 3'd4;
  reg [2:0]   state_q;
  reg [127:0] insn_q;
  wire       pop_prev  = insn_q[`VTA_MEM_POP_PREV_LSB];
  wire       pop_next  = insn_q[`VTA_MEM_POP_NEXT_LSB];
  wire       push_prev = insn_q[`VTA_MEM_PUSH_PREV_LSB];
  wire       push_next = insn_q[`VTA_MEM_PUSH_NEXT_LSB];
  wire [15:0] f_sram  = insn_q[`VTA_MEM_SRAM_BASE_LSB +: `VTA_MEM_SRAM_BASE_WIDTH];
  wire [31:0] f_dram  = insn_q[`VTA_MEM_DRAM_BASE_LSB +: `VTA_MEM_DRAM_BASE_WIDTH];
  wire [15:0] f_ysize = insn_q[`VTA_MEM_Y_SIZE_LSB +: `VTA_MEM_Y_SIZE_WIDTH];
  wire [15:0] f_xsize = insn_q[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
  wire [15:0] f_xstr  = insn_q[`VTA_MEM_X_STRIDE_LSB +: `VTA_MEM_X_STRIDE_WIDTH];
  wire [15:0] f_pads  = insn_q[`VTA_MEM_Y_PAD_0_LSB +: 16];
  wire        tok_ready = run_i && !flush_i && (!pop_prev || g2s_avail_i);

  assign insn_pop_o = (state_q == SIdle) && insn_valid_i && run_i;
  assign g2s_pop_o  = (state_q == STok) && tok_ready && pop_prev;
  assign s2g_push_o = (state_q == SPush) && push_prev;
  assign tokwait_o  = (state_q == STok) && !tok_ready;
  assign busy_o     = (state_q != SIdle);

  reg [15:0] rows_left_q;
  reg [47:0] row_elem_q;    // DRAM element index of the current row
  reg [31:0] src_q;         // next OUT row to read
  reg [31:0] rd_left_q;     // OUT rows of this DRAM row still to read
  reg        nxt_valid_q;   // the SRAM output register holds an unsent element
  reg [ElemBits-1:0] sh_q;  // element being sent
  reg [7:0]  sh_beats_q;    // beats of sh_q still to send
  reg [7:0]  sh_idx_q;

  wire beat_ok   = dma_valid_o && dma_ready_i;
  wire sh_free   = (sh_beats_q == 0) || (beat_ok && sh_beats_q == 1);
  wire load_sh   = (state_q == SData) && nxt_valid_q && sh_free;
  assign out_rd_en_o   = (state_q == SData) && (rd_left_q != 0) && (!nxt_valid_q || load_sh);
  assign out_rd_addr_o = src_q[LogOut-1:0];
  assign dma_valid_o   = (sh_beats_q != 0);
  reg [BusBits-1:0] beat;
  integer bi;
  always @* begin
    beat = sh_q[BusBits-1:0];
    for (bi = 0; bi < ElemBeats; bi = bi + 1)
      if ({24'd0, sh_idx_q} == bi) beat = sh_q[bi*BusBits +: BusBits];
  end
  assign dma_data_o = beat;
  assign progress_o = beat_ok || out_rd_en_o || insn_pop_o || (state_q == SPush) || dma_done_i;

  wire [AddrWidth-1:0] row_addr = out_base_i + ({{(AddrWidth-48){1'b0}}, row_elem_q} << LogOutE);

  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q         <= SIdle;
      err_illegal_o   <= 1'b0;
      err_range_o     <= 1'b0;
      dma_req_valid_o <= 1'b0;
      nxt_valid_q     <= 1'b0;
      sh_beats_q      <= 0;
      rd_left_q       <= 0;
    end else begin
      err_illegal_o <= 1'b0;
      err_range_o   <= 1'b0;
      case (state_q)
        SIdle: if (insn_valid_i && run_i) begin
          insn_q  <= insn_i;
          state_q <= STok;
        end
        STok: if (flush_i) state_q <= SIdle;
        else if (tok_ready) begin
          if (pop_next || push_next || (f_xsize != 0 && f_pads != 0)) err_illegal_o <= 1'b1;
          if ({16'd0, f_sram} + {16'd0, f_ysize} * {16'd0, f_xsize} > (32'd1 << LogOut) &&
              f_xsize != 0)
            err_range_o <= 1'b1;
          rows_left_q <= f_ysize;
          row_elem_q  <= {16'd0, f_dram};
          src_q       <= {16'd0, f_sram};
          state_q     <= (f_xsize != 0 && f_ysize != 0) ? SRow : SPush;
        end
        SRow: if (!dma_req_valid_o) begin
          dma_req_valid_o <= 1'b1;
          dma_req_addr_o  <= row_addr;
          dma_req_beats_o <= {{(BeatWidth-16){1'b0}}, f_xsize} * ElemBeats;
        end else if (dma_req_ready_i) begin
          dma_req_valid_o <= 1'b0;
          rd_left_q       <= {16'd0, f_xsize};
          state_q         <= SData;
        end
        SData: if (dma_done_i) begin
          rows_left_q <= rows_left_q - 1'b1;
          row_elem_q  <= row_elem_q + {32'd0, f_xstr};
          state_q     <= (rows_left_q == 1) ? SPush : SRow;
        end
        SPush: state_q <= SIdle;
        default: state_q <= SIdle;
      endcase

      // element streaming (SData only)
      if (out_rd_en_o) begin
        src_q     <= src_q + 1;
        rd_left_q <= rd_left_q - 1;
      end
      if (load_sh) begin
        sh_q       <= out_rd_data_i;
        sh_beats_q <= ElemBeats[7:0];
        sh_idx_q   <= 0;
      end else if (beat_ok) begin
        sh_beats_q <= sh_beats_q - 1'b1;
        sh_idx_q   <= sh_idx_q + 1'b1;
      end
      if (out_rd_en_o) nxt_valid_q <= 1'b1;
      else if (load_sh) nxt_valid_q <= 1'b0;
    end
  end
endmodule
`resetall
