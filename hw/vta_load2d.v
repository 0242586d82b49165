// SPDX-License-Identifier: Apache-2.0
// LOAD_2D sequencer (VTA-SPEC 4.4): turns one LOAD instruction into DMA read
// requests and a stream of SRAM row writes (zero pads and DRAM elements).
//
// Two halves run at once (docs/rtl.md, DMA): the request side walks the DRAM
// rows and hands the DMA one request per row, or one for the whole block
// when the rows are contiguous (x_stride == x_size, padding or not), so
// later rows are in flight while earlier ones arrive; the write side walks
// the SRAM block (top pad rows, then per row left pad, data, right pad, then
// bottom pad rows) and takes the elements in stream order. Elements at least
// as wide as the bus are assembled from whole beats; narrower ones are cut
// out of beats at their byte offset (their DRAM address is a multiple of
// their size, VTA-SPEC 2.4). A block that does not fit the SRAM is refused
// before anything is read or written.
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
    input  wire                      start_i,      // taken when ready_o
    input  wire [127:0]              insn_i,
    input  wire [AddrWidth-1:0]      base_i,       // base register of the memory type
    input  wire [3:0]                log_elem_i,   // log2 of DRAM element bytes
    input  wire [31:0]               depth_i,      // SRAM rows
    input  wire [2:0]                tag_i,        // the caller's tag of the instruction
    output wire                      ready_o,      // a start is taken (one may wait behind the current)
    output wire                      busy_o,       // any instruction in progress
    output reg                       done_o,       // pulse: the oldest instruction's writes are done
    output reg  [2:0]                wr_tag_o,     // tag of the instruction the writes belong to
    output reg                       err_range_o,  // pulse: destination block beyond depth (nothing done)
    output reg                       err_dram_o,   // pulse: DMA error response
    // SRAM writes
    output reg                       wr_en_o,
    output reg                       elem_o,       // with wr_en_o: a DRAM element, not a pad
    output reg  [31:0]               wr_idx_o,     // unwrapped; the user wraps modulo depth
    output reg  [DataBits-1:0]       wr_data_o,
    // DMA read client
    output wire                      dma_req_valid_o,
    output wire [AddrWidth-1:0]      dma_req_addr_o,
    output wire [BeatWidth-1:0]      dma_req_beats_o,
    input  wire                      dma_req_ready_i,
    input  wire                      dma_valid_i,
    output wire                      dma_ready_o,
    input  wire [`VTA_BUS_WIDTH-1:0] dma_data_i,
    input  wire                      dma_err_i
);
  localparam BusBits     = `VTA_BUS_WIDTH;
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam MaxBeats    = (DataBits > BusBits) ? DataBits / BusBits : 1;
  localparam BidxW       = (MaxBeats > 1) ? $clog2(MaxBeats) : 1;
  localparam LowW        = (DataBits < BusBits) ? DataBits : BusBits;  // bits a beat fills

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

  // The instruction taken and waiting for the write side (which may still be
  // busy with the previous one while this one's requests already go out).
  reg                 nx_valid_q, nx_skip_q;
  reg [127:0]         nx_insn_q;
  reg [AddrWidth-1:0] nx_base_q;
  reg [3:0]           nx_log_e_q;
  reg [2:0]           nx_tag_q;
  wire [15:0] n_sram  = nx_insn_q[`VTA_MEM_SRAM_BASE_LSB +: `VTA_MEM_SRAM_BASE_WIDTH];
  wire [31:0] n_dram  = nx_insn_q[`VTA_MEM_DRAM_BASE_LSB +: `VTA_MEM_DRAM_BASE_WIDTH];
  wire [15:0] n_ysize = nx_insn_q[`VTA_MEM_Y_SIZE_LSB +: `VTA_MEM_Y_SIZE_WIDTH];
  wire [15:0] n_xsize = nx_insn_q[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
  wire [15:0] n_xstr  = nx_insn_q[`VTA_MEM_X_STRIDE_LSB +: `VTA_MEM_X_STRIDE_WIDTH];
  wire [3:0]  n_yp0   = nx_insn_q[`VTA_MEM_Y_PAD_0_LSB +: `VTA_MEM_Y_PAD_0_WIDTH];
  wire [3:0]  n_yp1   = nx_insn_q[`VTA_MEM_Y_PAD_1_LSB +: `VTA_MEM_Y_PAD_1_WIDTH];
  wire [3:0]  n_xp0   = nx_insn_q[`VTA_MEM_X_PAD_0_LSB +: `VTA_MEM_X_PAD_0_WIDTH];
  wire [3:0]  n_xp1   = nx_insn_q[`VTA_MEM_X_PAD_1_LSB +: `VTA_MEM_X_PAD_1_WIDTH];
  wire [31:0] n_width = {28'd0, n_xp0} + {16'd0, n_xsize} + {28'd0, n_xp1};
  wire        n_merge = (n_xstr == n_xsize);   // DRAM rows back to back: one request

  // ---------------------------------------------------------------- shared state
  reg [3:0]           log_e_q;
  reg [15:0]          xsize_q, stride_q;
  reg                 merge_q;
  wire narrow = (log_e_q < LogBusBytes);

  // ---------------------------------------------------------------- request side
  wire range_bad = ({32'd0, f_sram} + block_w > {16'd0, depth_i});
  wire req_busy;
  assign ready_o = !req_busy && !nx_valid_q;
  wire accept  = start_i && ready_o;
  wire go_load = accept && (f_xsize != 0) && !range_bad;
  vta_rowreq #(.AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_req (
      .clk_i(clk_i), .rst_i(rst_i), .start_i(go_load), .base_i(base_i), .elem_i(f_dram),
      .rows_i(f_ysize), .xsize_i(f_xsize), .stride_i(f_xstr), .log_e_i(log_elem_i),
      .busy_o(req_busy), .req_valid_o(dma_req_valid_o), .req_addr_o(dma_req_addr_o),
      .req_beats_o(dma_req_beats_o), .req_ready_i(dma_req_ready_i));
  reg  [31:0] seg_n_q;     // elements per request
  wire [AddrWidth-1:0] start_addr = nx_base_q + ({{(AddrWidth-32){1'b0}}, n_dram} << nx_log_e_q);

  // ---------------------------------------------------------------- write side
  localparam [2:0] SIdle = 3'd0, STop = 3'd1, SLeft = 3'd2, SData = 3'd3, SRight = 3'd4,
                   SBottom = 3'd5;
  reg [2:0]  state_q;
  reg [31:0] p_q;          // next SRAM row
  reg [31:0] cnt_q;        // zero rows/elements left in a pad phase, elements left in SData
  reg [15:0] row_left_q;   // DRAM rows left (including the current one)
  reg [47:0] c_elem_q;     // DRAM element index of the current row
  reg [31:0] seg_left_q;   // elements left in the current request's data
  reg [31:0] wpad_q;       // W
  reg [3:0]  xp0_q, xp1_q, yp1_q;
  reg [LogBusBytes-1:0] off_q;     // narrow: byte offset of the next element in its beat
  reg [LogBusBytes-1:0] row_off_q; // narrow: byte offset of the current row's first element
  reg                   first_q;   // still on the first DRAM row
  reg [BidxW-1:0]       bidx_q;    // wide: beat within the element
  assign busy_o = (state_q != SIdle) || nx_valid_q || req_busy;

  wire [15:0] elem_beats = narrow ? 16'd1 : (16'd1 << (log_e_q - LogBusBytes));
  wire [LogBusBytes:0] e_bytes = {{LogBusBytes{1'b0}}, 1'b1} << log_e_q;  // narrow only
  wire [LogBusBytes:0] off_next = {1'b0, off_q} + e_bytes;
  wire [AddrWidth-1:0] stride_bytes = {{(AddrWidth-16){1'b0}}, stride_q} << log_e_q;
  wire [LogBusBytes-1:0] row_off_next = row_off_q + stride_bytes[LogBusBytes-1:0];
  wire seg_last = (seg_left_q == 1);
  // a narrow beat is released with its last element, or with the last of its request
  assign dma_ready_o = (state_q == SData) && (seg_left_q != 0) &&
                       (!narrow || off_next[LogBusBytes] || seg_last);
  wire take = (state_q == SData) && (seg_left_q != 0) && dma_valid_i;

  // element cut out of a beat (narrow): the bytes from off_q, zero above the element
  wire [BusBits-1:0] shifted = dma_data_i >> {off_q, 3'b000};
  wire [BusBits-1:0] e_mask  = ~({BusBits{1'b1}} << {e_bytes, 3'b000});
  wire [BusBits-1:0] narrow_elem = shifted & e_mask;

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
        row_left_q <= row_left_q - 1'b1;
        c_elem_q   <= c_elem_q + {32'd0, stride_q};
        row_off_q  <= row_off_next;
        first_q    <= 1'b0;
        goto_row_start(1'b1);
      end else begin
        row_left_q <= 0;
        if (yp1_q != 0) begin
          state_q <= SBottom;
          cnt_q   <= {28'd0, yp1_q} * wpad_q;
        end else begin
          state_q <= SIdle;
          done_o  <= 1'b1;
        end
      end
    end
  endtask

  // adv: the row advanced in this cycle (row_off_q is not yet its offset)
  task goto_row_start;
    input adv;
    begin
      if (xp0_q != 0) begin
        state_q <= SLeft;
        cnt_q   <= {28'd0, xp0_q};
      end else begin
        goto_data(adv);
      end
    end
  endtask

  // a row's data begins; a new request (every row, or only the first when the
  // rows are merged) starts at the byte offset of its first element
  task goto_data;
    input adv;
    begin
      state_q <= SData;
      cnt_q   <= {16'd0, xsize_q};
      if (!merge_q || (first_q && !adv)) begin
        seg_left_q <= seg_n_q;
        off_q      <= adv ? row_off_next : row_off_q;
      end
    end
  endtask

  integer j;
  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q         <= SIdle;
      err_range_o     <= 1'b0;
      err_dram_o      <= 1'b0;
      wr_en_o         <= 1'b0;
      elem_o          <= 1'b0;
      done_o          <= 1'b0;
      nx_valid_q      <= 1'b0;
    end else begin
      err_range_o <= 1'b0;
      err_dram_o  <= 1'b0;
      wr_en_o     <= 1'b0;
      elem_o      <= 1'b0;
      done_o      <= 1'b0;

      // a start: its requests begin at once (vta_rowreq), its writes when the
      // write side is free; a block beyond the SRAM is refused before any access
      // (the golden model checks before it writes anything) and only counted done
      if (accept) begin
        nx_valid_q <= 1'b1;
        nx_skip_q  <= (f_xsize == 0) || range_bad;
        nx_insn_q  <= insn_i;
        nx_base_q  <= base_i;
        nx_log_e_q <= log_elem_i;
        nx_tag_q   <= tag_i;
        if (f_xsize != 0 && range_bad) err_range_o <= 1'b1;
      end

      case (state_q)
        SIdle: if (nx_valid_q) begin
          nx_valid_q <= 1'b0;
          wr_tag_o   <= nx_tag_q;
          if (nx_skip_q) begin
            done_o <= 1'b1;
          end else begin
            p_q        <= {16'd0, n_sram};
            wpad_q     <= n_width;
            xp0_q      <= n_xp0;
            xp1_q      <= n_xp1;
            yp1_q      <= n_yp1;
            xsize_q    <= n_xsize;
            stride_q   <= n_xstr;
            merge_q    <= n_merge;
            log_e_q    <= nx_log_e_q;
            c_elem_q   <= {16'd0, n_dram};
            row_off_q  <= start_addr[LogBusBytes-1:0];
            first_q    <= 1'b1;
            row_left_q <= n_ysize;
            seg_n_q    <= n_merge ? {16'd0, n_ysize} * {16'd0, n_xsize} : {16'd0, n_xsize};
            seg_left_q <= 0;
            bidx_q     <= 0;
            state_q    <= STop;
            cnt_q      <= {28'd0, n_yp0} * n_width;
          end
        end
        STop: if (cnt_q != 0) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          wr_data_o <= 0;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
        end else if (row_left_q != 0) begin
          goto_row_start(1'b0);
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
          goto_data(1'b0);
        end
        SData: begin
          if (take) begin
            if (dma_err_i) err_dram_o <= 1'b1;
            if (narrow) begin
              wr_en_o    <= 1'b1;
              elem_o     <= 1'b1;
              wr_idx_o   <= p_q;
              wr_data_o  <= 0;
              wr_data_o[LowW-1:0] <= narrow_elem[LowW-1:0];
              p_q        <= p_q + 1;
              off_q      <= off_next[LogBusBytes-1:0];
              seg_left_q <= seg_left_q - 1;
              cnt_q      <= cnt_q - 1;
              if (cnt_q == 1) goto_after_data;
            end else begin
              for (j = 0; j < MaxBeats; j = j + 1)
                if ({{(32-BidxW){1'b0}}, bidx_q} == j) wr_data_o[j*LowW +: LowW] <= dma_data_i[LowW-1:0];
              if ({{(16-BidxW){1'b0}}, bidx_q} == elem_beats - 1) begin
                bidx_q     <= 0;
                wr_en_o    <= 1'b1;
                elem_o     <= 1'b1;
                wr_idx_o   <= p_q;
                p_q        <= p_q + 1;
                seg_left_q <= seg_left_q - 1;
                cnt_q      <= cnt_q - 1;
                if (cnt_q == 1) goto_after_data;
              end else begin
                bidx_q <= bidx_q + 1'b1;
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
          done_o  <= 1'b1;
        end
        default: state_q <= SIdle;
      endcase
    end
  end
  wire unused_ok = ^{stride_bytes[AddrWidth-1:LogBusBytes], start_addr[AddrWidth-1:LogBusBytes],
                     narrow_elem, req_busy};
endmodule
`resetall
