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

  // The instruction taken and not yet handed to the write side. It is decoded
  // in three cycles (docs/timing.md: no multiply, variable shift or wide
  // compare sits between an instruction register and a control signal):
  //   stage 1 (the cycle after the start): products and shifts of the fields,
  //   stage 2: the range check (err_range_o), the byte quantities of the requests,
  //   stage 3: decoded; its requests start when those of the previous one are all
  //            taken, its writes when the write side is free.
  // So err_range_o pulses three cycles after the start (vta_load waits that long
  // before it takes the next instruction: an error stops the run first).
  reg                 nx_valid_q, nx_rq_q, nx_skip_q, nx_zero_q, nx_merge_q, nx_narrow_q;
  reg [1:0]           nx_stage_q;
  reg [15:0]          nx_sram_q, nx_ysize_q, nx_xsize_q, nx_xstr_q;
  reg [31:0]          nx_dram_q;
  reg [3:0]           nx_yp0_q, nx_yp1_q, nx_xp0_q, nx_xp1_q;
  reg [AddrWidth-1:0] nx_base_q;
  reg [3:0]           nx_log_e_q;
  reg [2:0]           nx_tag_q;
  reg [16:0]          nx_width_q, nx_rows_q;   // W and H with the pads
  reg [48:0]          nx_lim_q;                // depth - sram_base (two's complement)
  reg [47:0]          nx_block_q;              // W * H
  reg [31:0]          nx_seg_q;                // elements per request
  reg [31:0]          nx_top_q, nx_bot_q;      // zero elements of the top and bottom pads
  reg [AddrWidth-1:0] nx_eoff_q;               // byte offset of the first element
  reg [LogBusBytes:0] nx_ebytes_q;             // element bytes (narrow)
  reg [BusBits-1:0]   nx_emask_q;              // the bits of an element in a beat (narrow)
  reg [15:0]          nx_blast_q;              // beats of an element less one (wide)
  reg [LogBusBytes-1:0] nx_soff_q;             // stride bytes modulo the beat (narrow)
  reg [AddrWidth-1:0] nx_addr_q, nx_step_q;    // request side: first address, step
  reg [47:0]          nx_bytes_q;              // bytes per request
  reg [31:0]          nx_count_q;              // requests

  // ---------------------------------------------------------------- request side
  wire req_busy;
  assign ready_o = !nx_valid_q;
  wire accept  = start_i && ready_o;
  reg  decoded_q;   // nx_valid_q && nx_stage_q == 3, registered (it enables the write
                    // side's copies of the instruction)
  wire decoded = decoded_q;
  wire rq_go   = decoded && !nx_skip_q && !nx_rq_q && !req_busy;
  vta_rowreq #(.AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_req (
      .clk_i(clk_i), .rst_i(rst_i), .start_i(rq_go), .addr_i(nx_addr_q), .step_i(nx_step_q),
      .bytes_i(nx_bytes_q), .count_i(nx_count_q), .narrow_i(nx_narrow_q),
      .busy_o(req_busy), .req_valid_o(dma_req_valid_o), .req_addr_o(dma_req_addr_o),
      .req_beats_o(dma_req_beats_o), .req_ready_i(dma_req_ready_i));

  // ---------------------------------------------------------------- write side
  localparam [2:0] SIdle = 3'd0, STop = 3'd1, SLeft = 3'd2, SData = 3'd3, SRight = 3'd4,
                   SBottom = 3'd5;
  // one-hot after synthesis (Yosys recodes it): the phase decode feeds the
  // enables of the row registers (make timing, xczu3eg)
  (* fsm_encoding = "one-hot" *) reg [2:0] state_q;
  reg        data_q;       // state_q == SData, registered (it gates the beat handshake)
  reg        pad_q;        // a pad phase (STop, SLeft, SRight, SBottom), registered
  reg        cnt_nz_q;     // cnt_q != 0, registered (pad writes zero the element register)
  reg        cnt_one_q;    // cnt_q == 1, registered (it selects the next phase)
  reg        active_q;     // state_q != SIdle, a copy of few loads for busy_o
  reg [31:0] p_q;          // next SRAM row
  reg [31:0] cnt_q;        // zero rows/elements left in a pad phase, elements left in SData
  reg [15:0] row_left_q;   // DRAM rows left (including the current one)
  reg        more_rows_q;  // row_left_q > 1, registered (it selects the next phase)
  reg        has_rows_q;   // y_size != 0
  reg [31:0] seg_n_q;      // elements per request
  reg [31:0] seg_left_q;   // elements left in the current request's data
  reg        seg_nz_q;     // seg_left_q != 0, registered
  reg        seg_one_q;    // seg_left_q == 1, registered (it releases a narrow beat)
  reg        seg_n_nz_q;   // seg_n_q != 0
  reg        seg_n_one_q;  // seg_n_q == 1
  reg [31:0] bot_q;        // zero elements of the bottom pad
  reg [15:0] xsize_q;
  reg        merge_q;
  reg [3:0]  xp0_q, xp1_q, yp1_q;
  reg                   narrow_q;  // elements narrower than a beat
  reg [LogBusBytes:0]   ebytes_q;  // narrow: element bytes
  reg [BusBits-1:0]     emask_q;   // narrow: the element's bits
  reg [15:0]            blast_q;   // wide: beats per element less one
  reg [LogBusBytes-1:0] soff_q;    // narrow: stride bytes modulo the beat
  reg [LogBusBytes-1:0] off_q;     // narrow: byte offset of the next element in its beat
  reg                   oend_q;    // a beat ends with the element at off_q: wide elements, or
                                   // narrow ones where off_q + ebytes_q carries out; set with
                                   // off_q, so the DMA's ready is a function of a few registers
                                   // of small fanout (make timing; narrow_q has ~140 loads)
  reg [LogBusBytes-1:0] row_off_q; // narrow: byte offset of the current row's first element
  reg                   first_q;   // still on the first DRAM row
  reg [BidxW-1:0]       bidx_q;    // wide: beat within the element
  reg                   eend_q;    // bidx_q == blast_q: the next beat ends an element
                                   // (always for narrow elements: blast_q and bidx_q are 0)
  assign busy_o = active_q || nx_valid_q || req_busy;
  wire take = (state_q == SIdle) && decoded && (nx_skip_q || nx_rq_q || rq_go);

  wire [LogBusBytes-1:0] row_off_next = row_off_q + soff_q;
  wire seg_last = seg_one_q;
  // a narrow beat is released with its last element, or with the last of its request
  assign dma_ready_o = data_q && seg_nz_q && (oend_q || seg_last);
  wire beat_in = data_q && seg_nz_q && dma_valid_i;

  // The decode and the narrow cut are functions called in the clocked block
  // where their results are stored: the same logic, but the Verilated model
  // computes them only in the cycles that use them (docs/rtl.md, Simulation speed).
  // element cut out of a beat (narrow): the bytes from off, zero above the element
  function [LowW-1:0] cut_elem;
    input [BusBits-1:0] data;
    input [LogBusBytes-1:0] off;
    input [BusBits-1:0] mask;
    reg   [BusBits-1:0] t;
    begin
      t = (data >> {off, 3'b000}) & mask;
      cut_elem = t[LowW-1:0];
    end
  endfunction
  // stage 1: element bytes (narrow), the bits of an element in a beat
  function [LogBusBytes:0] ebytes_of;
    input [3:0] log_e;
    ebytes_of = {{LogBusBytes{1'b0}}, 1'b1} << log_e;
  endfunction
  function [BusBits-1:0] emask_of;
    input [3:0] log_e;
    emask_of = ~({BusBits{1'b1}} << {ebytes_of(log_e), 3'b000});
  endfunction
  // beats of an element less one: bit i set when the element has more than 2^i
  // beats (one comparison with a constant per bit, no subtract-and-shift)
  function [15:0] blast_of;
    input [3:0] log_e;
    integer bi;
    for (bi = 0; bi < 16; bi = bi + 1) blast_of[bi] = ({28'd0, log_e} > LogBusBytes + bi);
  endfunction
  // stage 1: byte offset of the first element, and the stride in bytes
  function [AddrWidth-1:0] ebyte_addr;
    input [31:0] elems;
    input [3:0] log_e;
    ebyte_addr = {{(AddrWidth-32){1'b0}}, elems} << log_e;
  endfunction
  wire [LogBusBytes-1:0] off_next = off_q + ebytes_q[LogBusBytes-1:0];  // wraps at the beat
  // oend_q for an offset: it carries out of the beat after one more element.
  // ebytes_q is that of the instruction whenever off_q is assigned (it loads
  // only in SIdle; off_q only in the phases after the take)
  function off_end;
    input [LogBusBytes-1:0] off;
    input [LogBusBytes:0]   eb;
    reg   [LogBusBytes:0]   t;
    begin
      t = {1'b0, off} + eb;
      off_end = t[LogBusBytes];
    end
  endfunction

  // The next phase: after a row's data its right pad, else the next row
  // (its left pad, else its data) or the bottom pad, else done. The tasks
  // below set the phase's other registers on the same transitions.
  wire [2:0] row_start_s  = (xp0_q != 0) ? SLeft : SData;
  wire [2:0] next_row_s   = more_rows_q ? row_start_s : (yp1_q != 0) ? SBottom : SIdle;
  wire [2:0] after_data_s = (xp1_q != 0) ? SRight : next_row_s;
  reg  [2:0] state_d;
  always @* begin
    state_d = state_q;
    case (state_q)
      SIdle:   if (take && !nx_skip_q) state_d = STop;
      STop:    if (!cnt_nz_q) state_d = has_rows_q ? row_start_s : next_row_s;
      SLeft:   if (!cnt_nz_q) state_d = SData;
      SData:   if (beat_in && eend_q && cnt_one_q) state_d = after_data_s;
      SRight:  if (!cnt_nz_q) state_d = next_row_s;
      SBottom: if (!cnt_nz_q) state_d = SIdle;
      default: state_d = SIdle;
    endcase
  end

  // next phase after a row's data (or its absence)
  task goto_after_data;
    begin
      if (xp1_q != 0) begin
        data_q  <= 1'b0;
        pad_q   <= 1'b1;
        cnt_q   <= {28'd0, xp1_q};
        cnt_nz_q <= (xp1_q != 0);
        cnt_one_q <= (xp1_q == 1);
      end else begin
        goto_next_row;
      end
    end
  endtask

  task goto_next_row;
    begin
      if (more_rows_q) begin
        row_left_q  <= row_left_q - 1'b1;
        more_rows_q <= (row_left_q > 2);
        row_off_q  <= row_off_next;
        first_q    <= 1'b0;
        goto_row_start(1'b1);
      end else begin
        row_left_q  <= 0;
        more_rows_q <= 1'b0;
        if (yp1_q != 0) begin
          data_q  <= 1'b0;
          pad_q   <= 1'b1;
          cnt_q   <= bot_q;
          cnt_nz_q <= 1'b1;   // yp1_q != 0 and W >= x_size > 0
          cnt_one_q <= (bot_q == 1);
        end else begin
          active_q <= 1'b0;
          data_q  <= 1'b0;
          pad_q   <= 1'b0;
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
        data_q  <= 1'b0;
        pad_q   <= 1'b1;
        cnt_q   <= {28'd0, xp0_q};
        cnt_nz_q <= (xp0_q != 0);
        cnt_one_q <= (xp0_q == 1);
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
      data_q  <= 1'b1;
      pad_q   <= 1'b0;
      cnt_q   <= {16'd0, xsize_q};
      cnt_nz_q <= (xsize_q != 0);
      cnt_one_q <= (xsize_q == 1);
      if (!merge_q || (first_q && !adv)) begin
        seg_left_q <= seg_n_q;
        seg_nz_q   <= seg_n_nz_q;
        seg_one_q  <= seg_n_one_q;
        off_q      <= adv ? row_off_next : row_off_q;
        oend_q     <= !narrow_q || off_end(adv ? row_off_next : row_off_q, ebytes_q);
      end
    end
  endtask

  integer j;
  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q         <= SIdle;
      active_q        <= 1'b0;
      data_q          <= 1'b0;
      pad_q           <= 1'b0;
      err_range_o     <= 1'b0;
      err_dram_o      <= 1'b0;
      wr_en_o         <= 1'b0;
      elem_o          <= 1'b0;
      done_o          <= 1'b0;
      nx_valid_q      <= 1'b0;
      nx_rq_q         <= 1'b0;
      nx_stage_q      <= 2'd0;
      decoded_q       <= 1'b0;
    end else begin
      state_q     <= state_d;
      err_range_o <= 1'b0;
      err_dram_o  <= 1'b0;
      wr_en_o     <= 1'b0;
      elem_o      <= 1'b0;
      done_o      <= 1'b0;

      // a start: decoded in three cycles, then its requests begin (vta_rowreq)
      // and, when the write side is free, its writes; a block beyond the SRAM
      // is refused before any access (the golden model checks before it writes
      // anything) and only counted done
      if (accept) begin
        nx_valid_q <= 1'b1;
        nx_rq_q    <= 1'b0;
        nx_stage_q <= 2'd1;
        nx_sram_q  <= f_sram;
        nx_dram_q  <= f_dram;
        nx_ysize_q <= f_ysize;
        nx_xsize_q <= f_xsize;
        nx_xstr_q  <= f_xstr;
        nx_yp0_q   <= f_yp0;
        nx_yp1_q   <= f_yp1;
        nx_xp0_q   <= f_xp0;
        nx_xp1_q   <= f_xp1;
        nx_base_q  <= base_i;
        nx_log_e_q <= log_elem_i;
        nx_tag_q   <= tag_i;
        nx_width_q <= {13'd0, f_xp0} + {1'b0, f_xsize} + {13'd0, f_xp1};
        nx_rows_q  <= {13'd0, f_yp0} + {1'b0, f_ysize} + {13'd0, f_yp1};
        nx_lim_q   <= {17'd0, depth_i} - {33'd0, f_sram};
        nx_zero_q  <= (f_xsize == 0);
        nx_merge_q <= (f_xstr == f_xsize);   // DRAM rows back to back: one request
      end
      if (nx_valid_q && nx_stage_q == 2'd1) begin
        nx_stage_q  <= 2'd2;
        nx_block_q  <= {31'd0, nx_rows_q} * {31'd0, nx_width_q};
        nx_seg_q    <= nx_merge_q ? {16'd0, nx_ysize_q} * {16'd0, nx_xsize_q} : {16'd0, nx_xsize_q};
        nx_top_q    <= {28'd0, nx_yp0_q} * {15'd0, nx_width_q};
        nx_bot_q    <= {28'd0, nx_yp1_q} * {15'd0, nx_width_q};
        nx_eoff_q   <= ebyte_addr(nx_dram_q, nx_log_e_q);
        nx_narrow_q <= (nx_log_e_q < LogBusBytes);
        nx_ebytes_q <= ebytes_of(nx_log_e_q);
        nx_emask_q  <= emask_of(nx_log_e_q);
        nx_blast_q  <= blast_of(nx_log_e_q);
        nx_step_q   <= ebyte_addr({16'd0, nx_xstr_q}, nx_log_e_q);
        nx_soff_q   <= nx_xstr_q[LogBusBytes-1:0] << nx_log_e_q;
      end
      if (nx_valid_q && nx_stage_q == 2'd2) begin
        nx_stage_q <= 2'd3;
        decoded_q  <= 1'b1;
        nx_skip_q  <= nx_zero_q || nx_lim_q[48] || (nx_block_q > nx_lim_q[47:0]);
        if (!nx_zero_q && (nx_lim_q[48] || (nx_block_q > nx_lim_q[47:0]))) err_range_o <= 1'b1;
        nx_addr_q  <= nx_base_q + nx_eoff_q;
        nx_bytes_q <= {16'd0, nx_seg_q} << nx_log_e_q;
        nx_count_q <= (nx_ysize_q == 0 || nx_zero_q) ? 32'd0 : nx_merge_q ? 32'd1 : {16'd0, nx_ysize_q};
      end
      if (rq_go) nx_rq_q <= 1'b1;

      // a pad write (in the states below) writes a zero row; from registered
      // flags, since it drives the reset pins of the whole element register
      if (pad_q && cnt_nz_q) wr_data_o <= 0;
      case (state_q)
        SIdle: begin
          // the write side's registers follow the decoded instruction while
          // it waits (it does not change until taken, and they are read only
          // after the take), so the take, which waits for the request side,
          // enables only the phase registers (make timing)
          if (decoded) begin
            p_q        <= {16'd0, nx_sram_q};
            xp0_q      <= nx_xp0_q;
            xp1_q      <= nx_xp1_q;
            yp1_q      <= nx_yp1_q;
            xsize_q    <= nx_xsize_q;
            merge_q    <= nx_merge_q;
            narrow_q   <= nx_narrow_q;
            ebytes_q   <= nx_ebytes_q;
            emask_q    <= nx_emask_q;
            blast_q    <= nx_blast_q;
            soff_q     <= nx_soff_q;
            row_off_q  <= nx_addr_q[LogBusBytes-1:0];
            first_q    <= 1'b1;
            row_left_q <= nx_ysize_q;
            more_rows_q <= (nx_ysize_q > 1);
            has_rows_q     <= (nx_ysize_q != 0);
            seg_n_q    <= nx_seg_q;
            seg_left_q <= 0;
            seg_nz_q   <= 1'b0;
            seg_one_q  <= 1'b0;
            seg_n_nz_q <= (nx_seg_q != 0);
            seg_n_one_q <= (nx_seg_q == 1);
            bidx_q     <= 0;
            eend_q     <= (nx_blast_q == 0);
            bot_q      <= nx_bot_q;
            cnt_q      <= nx_top_q;
            cnt_nz_q   <= (nx_top_q != 0);
            cnt_one_q  <= (nx_top_q == 1);
          end
          if (take) begin
            nx_valid_q <= 1'b0;
            decoded_q  <= 1'b0;
            wr_tag_o   <= nx_tag_q;
            if (nx_skip_q) begin
              done_o <= 1'b1;
            end else begin
              active_q <= 1'b1;
              data_q   <= 1'b0;
              pad_q    <= 1'b1;
            end
          end
        end
        STop: if (cnt_nz_q) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
          cnt_nz_q  <= !cnt_one_q;
          cnt_one_q <= (cnt_q == 2);
        end else if (has_rows_q) begin
          goto_row_start(1'b0);
        end else begin
          goto_next_row;
        end
        SLeft: if (cnt_nz_q) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
          cnt_nz_q  <= !cnt_one_q;
          cnt_one_q <= (cnt_q == 2);
        end else begin
          goto_data(1'b0);
        end
        SData: begin
          // the beat on the DMA port into its slice of the element, in every
          // cycle of the phase: the last write before the beat index moves on
          // is the beat's own, and the element is written out (wr_en_o) the
          // cycle after its last beat, before the slice can change again. So
          // the enables of the element register's thousands of flip-flops
          // depend only on the phase and the beat index, not on the DMA's
          // valid (make timing). A narrow element (bidx_q is 0) is cut out of
          // the beat. The bits above a narrow element are never read (every
          // user takes the element's width, below LowW), so they are not cleared
          for (j = 0; j < MaxBeats; j = j + 1)
            if ({{(32-BidxW){1'b0}}, bidx_q} == j)
              wr_data_o[j*LowW +: LowW] <= (j == 0 && narrow_q)
                                           ? cut_elem(dma_data_i, off_q, emask_q)
                                           : dma_data_i[LowW-1:0];
          if (beat_in) begin
            if (dma_err_i) err_dram_o <= 1'b1;
            if (narrow_q) begin
              off_q  <= off_next;
              oend_q <= off_end(off_next, ebytes_q);
            end
            if (eend_q) begin
              bidx_q     <= 0;
              eend_q     <= (blast_q == 0);
              wr_en_o    <= 1'b1;
              elem_o     <= 1'b1;
              wr_idx_o   <= p_q;
              p_q        <= p_q + 1;
              seg_left_q <= seg_left_q - 1;
              seg_nz_q   <= !seg_last;
              seg_one_q  <= (seg_left_q == 2);
              cnt_q      <= cnt_q - 1;
              cnt_nz_q   <= !cnt_one_q;
              cnt_one_q  <= (cnt_q == 2);
              if (cnt_one_q) goto_after_data;
            end else begin
              bidx_q <= bidx_q + 1'b1;
              eend_q <= ({{(16-BidxW){1'b0}}, bidx_q} + 16'd1 == blast_q);
            end
          end
        end
        SRight: if (cnt_nz_q) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
          cnt_nz_q  <= !cnt_one_q;
          cnt_one_q <= (cnt_q == 2);
        end else begin
          goto_next_row;
        end
        SBottom: if (cnt_nz_q) begin
          wr_en_o   <= 1'b1;
          wr_idx_o  <= p_q;
          p_q       <= p_q + 1;
          cnt_q     <= cnt_q - 1;
          cnt_nz_q  <= !cnt_one_q;
          cnt_one_q <= (cnt_q == 2);
        end else begin
          active_q <= 1'b0;
          data_q  <= 1'b0;
          pad_q   <= 1'b0;
          done_o  <= 1'b1;
        end
        default: begin
          active_q <= 1'b0;
          data_q  <= 1'b0;
          pad_q   <= 1'b0;
        end
      endcase
    end
  end
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if (DataBits < 8 || (DataBits & (DataBits - 1)) != 0) begin : g_bad_data_bits
    $error("%m: DataBits = %0d: elements of a power of two of bytes", DataBits);
  end
  if (AddrWidth < 32 || AddrWidth > 64) begin : g_bad_addr_width
    $error("%m: AddrWidth = %0d: AXI addresses of 32 to 64 bits", AddrWidth);
  end
`endif

endmodule
`resetall
