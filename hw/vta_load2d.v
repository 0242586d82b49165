// SPDX-License-Identifier: Apache-2.0
// LOAD_2D sequencer (VTA-SPEC 4.4): turns one LOAD instruction into a stream
// of SRAM row writes (zero pads and DRAM elements) and DMA read requests.
// Elements at least as wide as the bus are assembled from whole beats;
// narrower elements (32-bit micro-ops) are cut out of beats.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_load2d #(
    parameter DataBits  = 128, // widest element this instance writes
    parameter AddrWidth = 64,
    parameter BeatWidth = 32
) (
    input  wire                      clk_i,
    input  wire                      rst_i,
    // instruction
    input  wire                      start_i,
    input  wire [127:0]              insn_i,
    input  wire [AddrWidth-1:0]      base_i,       // base register of the memory type
    input  wire [3:0]                log_elem_i,   // log2 of DRAM element bytes
    input  wire [31:0]               depth_i,      // SRAM rows
    output wire                      busy_o,
    output reg                       err_range_o,  // pulse: destination block beyond depth
    output reg                       err_dram_o,   // pulse: DMA error response
    // SRAM writes
    output reg                       wr_en_o,
    output reg                       elem_o,       // with wr_en_o: a DRAM element, not a pad
    output reg  [31:0]               wr_idx_o,     // unwrapped; the user wraps modulo depth
    output reg  [DataBits-1:0]       wr_data_o,
    // DMA read client
    output reg                       dma_req_valid_o,
    output reg  [AddrWidth-1:0]      dma_req_addr_o,
    output reg  [BeatWidth-1:0]      dma_req_beats_o,
    input  wire                      dma_req_ready_i,
    input  wire                      dma_valid_i,
    output wire                      dma_ready_o,
    input  wire [`VTA_BUS_WIDTH-1:0] dma_data_i,
    input  wire                      dma_err_i
);
  localparam BusBits     = `VTA_BUS_WIDTH;
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam MaxBeats    = (DataBits > BusBits) ? DataBits / BusBits : 1;
  localparam WordsPerBeat = BusBits / 32;

  // instruction fields
  wire [15:0] f_sram  = insn_i[`VTA_MEM_SRAM_BASE_LSB +: `VTA_MEM_SRAM_BASE_WIDTH];
  wire [31:0] f_dram  = insn_i[`VTA_MEM_DRAM_BASE_LSB +: `VTA_MEM_DRAM_BASE_WIDTH];
  wire [15:0] f_ysize = insn_i[`VTA_MEM_Y_SIZE_LSB +: `VTA_MEM_Y_SIZE_WIDTH];
  wire [15:0] f_xsize = insn_i[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
  wire [15:0] f_xstr  = insn_i[`VTA_MEM_X_STRIDE_LSB +: `VTA_MEM_X_STRIDE_WIDTH];
  wire [3:0]  f_yp0   = insn_i[`VTA_MEM_Y_PAD_0_LSB +: `VTA_MEM_Y_PAD_0_WIDTH];
  wire [3:0]  f_yp1   = insn_i[`VTA_MEM_Y_PAD_1_LSB +: `VTA_MEM_Y_PAD_1_WIDTH];
  wire [3:0]  f_xp0   = insn_i[`VTA_MEM_X_PAD_0_LSB +: `VTA_MEM_X_PAD_0_WIDTH];
  wire [3:0]  f_xp1   = insn_i[`VTA_MEM_X_PAD_1_LSB +: `VTA_MEM_X_PAD_1_WIDTH];

  wire [31:0] width_w = {28'd0, f_xp0} + {16'd0, f_xsize} + {28'd0, f_xp1};
  wire [31:0] rows_w  = {28'd0, f_yp0} + {16'd0, f_ysize} + {28'd0, f_yp1};
  wire [47:0] block_w = rows_w * width_w;
  wire        contig  = (f_xp0 == 0) && (f_xp1 == 0) && (f_xstr == f_xsize);

  localparam [2:0] SIdle = 3'd0, STop = 3'd1, SLeft = 3'd2, SReq = 3'd3, SData = 3'd4,
                   SRight = 3'd5, SBottom = 3'd6;
  reg [2:0]  state_q;
  reg [31:0] p_q;          // next SRAM row
  reg [31:0] cnt_q;        // remaining zero rows or elements in this phase
  reg [31:0] row_left_q;   // DRAM rows left (including the current one)
  reg [31:0] row_len_q;    // elements per DRAM row
  reg [47:0] row_elem_q;   // DRAM element index of the current row
  reg [15:0] stride_q;
  reg [31:0] wpad_q;       // W
  reg [3:0]  xp0_q, xp1_q, yp1_q;
  reg [3:0]  log_e_q;
  reg [AddrWidth-1:0] base_q;
  reg [7:0]  bidx_q;       // beat within element (wide) or word within beat (narrow)
  reg [DataBits-1:0] asm_q;

  wire narrow = (log_e_q < LogBusBytes);
  assign busy_o = (state_q != SIdle);

  // wide mode: element beats; narrow mode: words of a beat still to hand out
  wire [7:0] elem_beats = narrow ? 8'd1 : (8'd1 << (log_e_q - LogBusBytes));
  reg        narrow_last_word;  // current word is the last needed one of this beat
  wire [AddrWidth-1:0] row_addr = base_q + ({{(AddrWidth-48){1'b0}}, row_elem_q} << log_e_q);

  // Element assembly (wide mode): beat bidx_q of an element goes to its slot of
  // asm_q (and of wr_data_o for the last beat), written slot by slot in the
  // clocked block: no wide function temporaries, which the simulator would
  // clear on every clock (docs/rtl.md).
  integer j;

  // word selected from the beat (narrow mode)
  reg [31:0] word_now;
  integer m;
  always @* begin
    word_now = 32'd0;
    for (m = 0; m < WordsPerBeat; m = m + 1)
      if ({24'd0, bidx_q} == m) word_now = dma_data_i[m*32 +: 32];
    narrow_last_word = (bidx_q == WordsPerBeat - 1) || (cnt_q == 1);
  end

  assign dma_ready_o = (state_q == SData) && (!narrow || narrow_last_word || cnt_q == 0);

  // next phase after a row's data (or its absence)
  task goto_after_data;
    begin
      if (xp1_q != 0) begin
        state_q <= SRight;
        cnt_q   <= {28'd0, xp1_q};
      end else begin
        goto_next_row;
      end
    end
  endtask

  task goto_next_row;
    begin
      if (row_left_q > 1) begin
        row_left_q <= row_left_q - 1;
        row_elem_q <= row_elem_q + {32'd0, stride_q};
        goto_row_start;
      end else begin
        row_left_q <= 0;
        if (yp1_q != 0) begin
          state_q <= SBottom;
          cnt_q   <= {28'd0, yp1_q} * wpad_q;
        end else begin
          state_q <= SIdle;
        end
      end
    end
  endtask

  task goto_row_start;
    begin
      if (xp0_q != 0) begin
        state_q <= SLeft;
        cnt_q   <= {28'd0, xp0_q};
      end else begin
        state_q <= SReq;
      end
    end
  endtask

  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q         <= SIdle;
      err_range_o     <= 1'b0;
      err_dram_o      <= 1'b0;
      wr_en_o         <= 1'b0;
      elem_o          <= 1'b0;
      dma_req_valid_o <= 1'b0;
    end else begin
      err_range_o <= 1'b0;
      err_dram_o  <= 1'b0;
      wr_en_o     <= 1'b0;
      elem_o      <= 1'b0;
      case (state_q)
        SIdle: if (start_i && f_xsize != 0) begin
          p_q       <= {16'd0, f_sram};
          wpad_q    <= width_w;
          xp0_q     <= f_xp0;
          xp1_q     <= f_xp1;
          yp1_q     <= f_yp1;
          stride_q  <= f_xstr;
          log_e_q   <= log_elem_i;
          base_q    <= base_i;
          row_elem_q <= {16'd0, f_dram};
          if (contig) begin
            row_left_q <= (f_ysize != 0) ? 32'd1 : 32'd0;
            row_len_q  <= {16'd0, f_ysize} * {16'd0, f_xsize};
          end else begin
            row_left_q <= {16'd0, f_ysize};
            row_len_q  <= {16'd0, f_xsize};
          end
          if ({32'd0, f_sram} + block_w > {16'd0, depth_i}) err_range_o <= 1'b1;
          state_q <= STop;
          cnt_q   <= {28'd0, f_yp0} * width_w;
        end
        STop: if (cnt_q != 0) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          wr_data_o <= 0;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
        end else if (row_left_q != 0) begin
          goto_row_start;
        end else begin
          goto_next_row;
        end
        SLeft: if (cnt_q != 0) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          wr_data_o <= 0;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
        end else begin
          state_q <= SReq;
        end
        SReq: if (!dma_req_valid_o) begin
          dma_req_valid_o <= 1'b1;
          if (narrow) begin
            dma_req_addr_o  <= row_addr & ~({{(AddrWidth-LogBusBytes){1'b0}}, {LogBusBytes{1'b1}}});
            dma_req_beats_o <= ({{(BeatWidth-32){1'b0}}, row_len_q} +
                                {{(BeatWidth-LogBusBytes+2){1'b0}}, row_addr[LogBusBytes-1:2]} +
                                WordsPerBeat - 1) >> (LogBusBytes - 2);
            bidx_q <= {{(8-LogBusBytes+2){1'b0}}, row_addr[LogBusBytes-1:2]};
          end else begin
            dma_req_addr_o  <= row_addr;
            dma_req_beats_o <= {{(BeatWidth-32){1'b0}}, row_len_q} << (log_e_q - LogBusBytes);
            bidx_q <= 0;
          end
          cnt_q <= row_len_q;
        end else if (dma_req_ready_i) begin
          dma_req_valid_o <= 1'b0;
          state_q <= SData;
        end
        SData: begin
          if (dma_valid_i) begin
            if (dma_err_i) err_dram_o <= 1'b1;
            if (narrow) begin
              if (cnt_q != 0) begin
                wr_en_o   <= 1'b1;
                elem_o    <= 1'b1;
                wr_idx_o  <= p_q;
                wr_data_o <= {{(DataBits-32){1'b0}}, word_now};
                p_q       <= p_q + 1;
                cnt_q     <= cnt_q - 1;
                bidx_q    <= (bidx_q == WordsPerBeat - 1) ? 8'd0 : bidx_q + 8'd1;
                if (cnt_q == 1) goto_after_data;  // the last beat ends with this word
              end
            end else begin
              if (bidx_q == elem_beats - 1) begin
                bidx_q    <= 0;
                wr_en_o   <= 1'b1;
                elem_o    <= 1'b1;
                wr_idx_o  <= p_q;
                wr_data_o <= asm_q;
                for (j = 0; j < MaxBeats; j = j + 1)
                  if ({24'd0, bidx_q} == j) wr_data_o[j*BusBits +: BusBits] <= dma_data_i;
                p_q       <= p_q + 1;
                cnt_q     <= cnt_q - 1;
                if (cnt_q == 1) goto_after_data;
              end else begin
                for (j = 0; j < MaxBeats; j = j + 1)
                  if ({24'd0, bidx_q} == j) asm_q[j*BusBits +: BusBits] <= dma_data_i;
                bidx_q <= bidx_q + 8'd1;
              end
            end
          end
        end
        SRight: if (cnt_q != 0) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          wr_data_o <= 0;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
        end else begin
          goto_next_row;
        end
        SBottom: if (cnt_q != 0) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          wr_data_o <= 0;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
        end else begin
          state_q <= SIdle;
        end
        default: state_q <= SIdle;
      endcase
    end
  end
endmodule
`resetall
