// SPDX-License-Identifier: Apache-2.0
// Store module (VTA-SPEC 4.6): OUT SRAM rows to strided DRAM rows.
//
// The request side hands the DMA one write request per DRAM row, or one for
// the whole block when the rows are contiguous (x_stride == x_size); the data
// side reads the OUT rows in order and sends them as beats: an element at
// least as wide as the bus in whole beats, narrower elements packed into
// beats with WSTRB set only for their bytes (so the neighbours in DRAM are
// untouched). The DMA does not wait for write responses between bursts, and
// store does not wait for them between instructions: the next STORE starts
// once this one's data is handed over. Only a push_prev token (it tells
// compute, and through FINISH the host, that the outputs are in DRAM) waits
// until every response has arrived (dma_idle_i); the DMA names the
// instruction of a failing response itself. A block beyond the OUT buffer is
// refused before anything is written.
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
    output wire                       dma_req_valid_o,
    output wire [AddrWidth-1:0]       dma_req_addr_o,
    output wire [BeatWidth-1:0]       dma_req_beats_o,
    input  wire                       dma_req_ready_i,
    output wire                       dma_valid_o,
    output wire [`VTA_BUS_WIDTH-1:0]  dma_data_o,
    output wire [`VTA_BUS_WIDTH/8-1:0] dma_strb_o,
    input  wire                       dma_ready_i,
    input  wire                       dma_idle_i,   // every write response has arrived
    // status
    output reg                        err_illegal_o,
    output reg                        err_range_o,
    output wire                       busy_o,
    output wire                       tokwait_o,
    output wire                       progress_o,
    output wire                       elem_o        // an element was handed to the DMA (pulse)
);
  localparam BusBits     = `VTA_BUS_WIDTH;
  localparam BusBytes    = BusBits / 8;
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam ElemBits    = `VTA_OUT_MATRIX_WIDTH;
  localparam ElemBytes   = `VTA_OUT_ELEM_BYTES;
  localparam Narrow      = (ElemBits < BusBits);              // several elements per beat
  localparam ElemBeats   = Narrow ? 1 : ElemBits / BusBits;
  localparam Slots       = Narrow ? BusBits / ElemBits : 1;
  localparam SlotW       = (Slots > 1) ? $clog2(Slots) : 1;
  localparam BeatIdxW    = (ElemBeats > 1) ? $clog2(ElemBeats) + 1 : 2;
  localparam SlotBits    = Narrow ? ElemBits : BusBits;   // bits of one slot of a beat
  localparam WideW       = Narrow ? ElemBits : BusBits;   // bits of one beat of an element
  localparam [BusBytes:0] StrbOne = 1;
  localparam [BusBytes:0] StrbAll = (StrbOne << (Narrow ? ElemBytes : 0)) - 1'b1;
  localparam [BusBytes-1:0] ElemStrb = StrbAll[BusBytes-1:0];     // strobes of one narrow element
  localparam LogOut      = `VTA_LOG_OUT_BUFF_DEPTH;
  localparam LogOutE = $clog2(ElemBytes);

  // SDec, SChk: the products and the range check of the instruction, registered
  // (docs/timing.md), before its tokens are taken
  localparam [2:0] SIdle = 3'd0, STok = 3'd1, SRun = 3'd2, SPush = 3'd3, SDec = 3'd4, SChk = 3'd5;
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
  reg  [31:0] elems_q;     // y_size * x_size
  reg         merge_q;     // x_stride == x_size: the rows are back to back, one request
  reg         bad_q;       // the block does not fit the OUT buffer
  // the range check sram + elems > depth as elems > depth - sram, the limit
  // computed in SDec beside the product: in SChk only a short compare follows
  // the multiplier's output register (make timing)
  reg         lim_neg_q;   // sram > depth: nothing fits
  reg  [LogOut:0] lim_q;   // depth - sram, when not negative
  wire [31:0] lim_full = (32'd1 << LogOut) - {16'd0, f_sram};
  reg  [AddrWidth-1:0] addr_q;   // DRAM byte address of the first element

  assign insn_pop_o = (state_q == SIdle) && insn_valid_i && run_i;
  assign g2s_pop_o  = (state_q == STok) && tok_ready && pop_prev;
  wire       push_go    = (state_q == SPush) && (!push_prev || dma_idle_i);
  assign s2g_push_o = push_go && push_prev;
  assign tokwait_o  = (state_q == STok) && !tok_ready;
  assign busy_o     = (state_q != SIdle);

  // ---------------------------------------------------------------- request side
  wire go_store  = (state_q == STok) && tok_ready && !flush_i && !bad_q;
  wire req_busy;
  wire [31:0] f_seg = merge_q ? elems_q : {16'd0, f_xsize};   // elements per request
  vta_rowreq #(.AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_req (
      .clk_i(clk_i), .rst_i(rst_i), .start_i(go_store), .addr_i(addr_q),
      .step_i({{(AddrWidth-16){1'b0}}, f_xstr} << LogOutE),
      .bytes_i({16'd0, f_seg} << LogOutE),
      .count_i((f_ysize == 0 || f_xsize == 0) ? 32'd0 : merge_q ? 32'd1 : {16'd0, f_ysize}),
      .narrow_i(Narrow != 0),
      .busy_o(req_busy), .req_valid_o(dma_req_valid_o), .req_addr_o(dma_req_addr_o),
      .req_beats_o(dma_req_beats_o), .req_ready_i(dma_req_ready_i));
  reg  [31:0] seg_n_q;     // elements per request
  reg  [15:0] stride_q;

  // ---------------------------------------------------------------- data side
  reg  [31:0] src_q;       // next OUT row to read
  reg  [31:0] rd_left_q;   // OUT rows still to read
  reg         rd_nz_q;     // rd_left_q != 0, registered (it gates the SRAM read)
  reg         nxt_valid_q; // the SRAM output register holds an unsent element
  reg  [31:0] seg_left_q;  // elements of the current request still to send (0: a new one starts)
  wire        beat_ok = dma_valid_o && dma_ready_i;

  // wide elements: shifted out beat by beat
  reg [ElemBits-1:0]  sh_q;
  reg [BeatIdxW-1:0]  sh_beats_q;   // beats of sh_q still to send
  reg [BeatIdxW-1:0]  sh_idx_q;
  // narrow elements: packed into one beat with its strobes
  reg [BusBits-1:0]   ob_q;
  reg [BusBytes-1:0]  ob_strb_q;
  reg                 ob_valid_q;   // the beat is complete and offered to the DMA
  reg [LogBusBytes-1:0] off_q;      // byte offset of the next element in the beat
  reg [LogBusBytes-1:0] seg_off_q;  // byte offset of the next request's first element
  wire [AddrWidth-1:0]  stride_bytes = {{(AddrWidth-16){1'b0}}, stride_q} << LogOutE;

  wire free    = Narrow ? (!ob_valid_q || beat_ok)
                        : ((sh_beats_q == 0) || (beat_ok && sh_beats_q == 1));
  wire consume = (state_q == SRun) && nxt_valid_q && free;
  assign out_rd_en_o   = (state_q == SRun) && rd_nz_q && (!nxt_valid_q || consume);
  assign out_rd_addr_o = src_q[LogOut-1:0];
  assign elem_o        = consume;

  wire [LogBusBytes-1:0] cur_off  = (seg_left_q == 0) ? seg_off_q : off_q;
  wire [LogBusBytes:0]   off_end  = {1'b0, cur_off} + ElemBytes[LogBusBytes:0];
  wire [31:0]            seg_now  = (seg_left_q == 0) ? seg_n_q : seg_left_q;
  wire [SlotW-1:0]       cur_slot = (Slots > 1) ? cur_off[LogBusBytes-1 -: SlotW] : {SlotW{1'b0}};
  wire [BusBytes-1:0]    slot_strb = ElemStrb << cur_off;

  reg [BusBits-1:0] wide_beat;
  integer bi;
  always @* begin
    wide_beat = {BusBits{1'b0}};
    for (bi = 0; bi < ElemBeats; bi = bi + 1)
      if ({{(32-BeatIdxW){1'b0}}, sh_idx_q} == bi) wide_beat[WideW-1:0] = sh_q[bi*WideW +: WideW];
  end
  assign dma_valid_o = Narrow ? ob_valid_q : (sh_beats_q != 0);
  assign dma_data_o  = Narrow ? ob_q : wide_beat;
  assign dma_strb_o  = Narrow ? ob_strb_q : {BusBytes{1'b1}};

  wire sent_all = !rd_nz_q && !nxt_valid_q && (Narrow ? !ob_valid_q : (sh_beats_q == 0));
  wire done     = (state_q == SRun) && sent_all && !req_busy;
  assign progress_o = beat_ok || out_rd_en_o || insn_pop_o || push_go || done;

  // the next state; the clocked block below loads each state's registers
  reg [2:0] state_d;
  always @* begin
    state_d = state_q;
    case (state_q)
      SIdle: if (insn_valid_i && run_i) state_d = SDec;
      SDec: state_d = flush_i ? SIdle : SChk;
      SChk: state_d = flush_i ? SIdle : STok;
      STok: if (flush_i) state_d = SIdle;
            else if (tok_ready) state_d = bad_q ? SIdle : (f_xsize != 0 && f_ysize != 0) ? SRun : SPush;
      SRun: if (done) state_d = SPush;
      SPush: if (push_go) state_d = SIdle;
      default: state_d = SIdle;
    endcase
  end

  integer si;
  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q         <= SIdle;
      err_illegal_o   <= 1'b0;
      err_range_o     <= 1'b0;
      nxt_valid_q     <= 1'b0;
      sh_beats_q      <= 0;
      ob_valid_q      <= 1'b0;
      ob_strb_q       <= 0;
      rd_left_q       <= 0;
      rd_nz_q         <= 1'b0;
    end else begin
      err_illegal_o <= 1'b0;
      err_range_o   <= 1'b0;
      state_q <= state_d;
      // each state's registers (the next state is state_d, above)
      case (state_q)
        SIdle: if (insn_valid_i && run_i) insn_q <= insn_i;
        SDec: if (!flush_i) begin
          elems_q <= {16'd0, f_ysize} * {16'd0, f_xsize};
          lim_neg_q <= ({16'd0, f_sram} > (32'd1 << LogOut));
          lim_q     <= lim_full[LogOut:0];
          merge_q <= (f_xstr == f_xsize);
          addr_q  <= out_base_i + ({{(AddrWidth-32){1'b0}}, f_dram} << LogOutE);
        end
        SChk: if (!flush_i) begin
          bad_q   <= (lim_neg_q || (elems_q[31:LogOut+1] != 0) || (elems_q[LogOut:0] > lim_q)) &&
                     (f_xsize != 0);
          // the data side's registers, used only from SRun on: loaded here, so
          // the token handshake enables only the state (make timing)
          seg_n_q    <= f_seg;
          seg_left_q <= 0;
          stride_q   <= f_xstr;
          src_q      <= {16'd0, f_sram};
          rd_left_q  <= (f_xsize == 0) ? 32'd0 : elems_q;
          rd_nz_q    <= (f_xsize != 0) && (elems_q != 0);
          seg_off_q  <= addr_q[LogBusBytes-1:0];
        end
        STok: if (!flush_i && tok_ready) begin
          if (pop_next || push_next || (f_xsize != 0 && f_pads != 0)) err_illegal_o <= 1'b1;
          if (bad_q) err_range_o <= 1'b1;   // the golden model checks before it writes anything
        end
        default: ;
      endcase


      // element streaming: SRAM read, then shift register (wide) or packing (narrow)
      if (out_rd_en_o) begin
        src_q     <= src_q + 1;
        rd_left_q <= rd_left_q - 1;
        rd_nz_q   <= (rd_left_q != 1);
      end
      if (out_rd_en_o) nxt_valid_q <= 1'b1;
      else if (consume) nxt_valid_q <= 1'b0;

      if (Narrow) begin
        if (beat_ok) begin
          ob_valid_q <= 1'b0;
          ob_strb_q  <= {BusBytes{1'b0}};
        end
        if (consume) begin
          // the element at its slot; a beat just sent starts afresh
          for (si = 0; si < Slots; si = si + 1)
            if ({{(32-SlotW){1'b0}}, cur_slot} == si)
              ob_q[si*SlotBits +: SlotBits] <= out_rd_data_i[SlotBits-1:0];
          ob_strb_q  <= (beat_ok ? {BusBytes{1'b0}} : ob_strb_q) | slot_strb;
          off_q      <= off_end[LogBusBytes-1:0];
          seg_left_q <= seg_now - 1;
          if (seg_now == 1) seg_off_q <= seg_off_q + stride_bytes[LogBusBytes-1:0];
          if (off_end[LogBusBytes] || seg_now == 1) ob_valid_q <= 1'b1;
        end
      end else begin
        if (consume) begin
          sh_q       <= out_rd_data_i;
          sh_beats_q <= ElemBeats[BeatIdxW-1:0];
          sh_idx_q   <= 0;
        end else if (beat_ok) begin
          sh_beats_q <= sh_beats_q - 1'b1;
          sh_idx_q   <= sh_idx_q + 1'b1;
        end
      end
    end
  end

  wire unused_ok = ^{stride_bytes[AddrWidth-1:LogBusBytes], lim_full[31:LogOut+1]};
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
