// SPDX-License-Identifier: Apache-2.0
// The one AXI4 master of VTA (docs/rtl.md, DMA).
//
// Reads: each of NumRd clients hands over one request at a time (a byte
// address aligned to the bus and a number of beats) and may hand over the
// next as soon as the previous one is taken, before its data has arrived.
// The engine cuts requests into INCR bursts of at most MaxBurst beats that
// never cross 4 KiB, picks the client of every burst round robin (so a long
// weight load does not lock out fetch or the micro-op loads) and keeps up to
// RdOut bursts in flight. All bursts use one ID, so data returns in order; a
// small FIFO says whose beats they are. The R channel enters through a
// two-entry skid buffer, so RREADY is a register.
//
// Writes: one client (store). Bursts are issued on AW without waiting for
// the B of the previous ones (up to WrOut outstanding), also across store
// instructions; W beats of a burst go out once its AW has been accepted;
// wr_idle_o says that every B has arrived. Each request carries a tag (the
// store instruction's index), kept with its bursts, so an error response
// names the instruction whose burst failed (wr_err_tag_o).
//
// hold_i (the soft reset, vta_top.v) drains the engine without abandoning a
// burst: no request is taken and the parts of requests not yet issued are
// dropped, no new burst starts (an AR or AW already raised stays until it is
// accepted), the R beats of bursts in flight are taken and discarded, the W
// beats of accepted AW bursts are sent with WSTRB 0 (they write nothing), and
// every B is taken; then idle_o rises and stays.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_dma #(
    parameter NumRd     = 3,  // read clients
    parameter AddrWidth = 64, // AXI address bits
    parameter BeatWidth = 32, // bits of a request's beat count
    parameter MaxBurst  = 16, // beats per burst: the Zynq HP ports are AXI3 (at most 16)
    parameter RdOut     = 8,  // read bursts in flight (HP port read acceptance, UG1085)
    parameter WrOut     = 8,  // write bursts whose B has not arrived
    parameter TagW      = 32  // bits of a write request's tag
) (
    input  wire                          clk_i,
    input  wire                          rst_i,
    input  wire                          hold_i,         // soft reset: drain and stay idle
    // read clients (client i uses slice i of the flattened vectors)
    input  wire [NumRd-1:0]              rd_req_valid_i,
    input  wire [NumRd*AddrWidth-1:0]    rd_req_addr_i,
    input  wire [NumRd*BeatWidth-1:0]    rd_req_beats_i,
    output wire [NumRd-1:0]              rd_req_ready_o,
    output wire [NumRd-1:0]              rd_valid_o,     // a beat for client i
    input  wire [NumRd-1:0]              rd_ready_i,
    output wire [`VTA_BUS_WIDTH-1:0]     rd_data_o,
    output wire                          rd_err_o,       // the beat carries an error response
    // write client
    input  wire                          wr_req_valid_i,
    input  wire [AddrWidth-1:0]          wr_req_addr_i,
    input  wire [BeatWidth-1:0]          wr_req_beats_i,
    input  wire [TagW-1:0]               wr_req_tag_i,
    output wire                          wr_req_ready_o,
    input  wire                          wr_valid_i,
    input  wire [`VTA_BUS_WIDTH-1:0]     wr_data_i,
    input  wire [`VTA_BUS_WIDTH/8-1:0]   wr_strb_i,
    output wire                          wr_ready_o,
    output wire                          wr_idle_o,      // no write request, burst or B outstanding
    output reg                           wr_err_o,       // pulse: an error response on B
    output reg  [TagW-1:0]               wr_err_tag_o,   // the tag of that burst's request
    // status for soft reset and error reporting (vta_top)
    output wire                          idle_o,         // nothing outstanding on any channel
    output reg                           err_o,          // pulse: an error response (R or B)
    output reg  [AddrWidth-1:0]          err_addr_o,     // address of that beat (R) or burst (B)
    // AXI4 master
    output reg  [AddrWidth-1:0]          m_axi_araddr,
    output reg  [7:0]                    m_axi_arlen,
    output wire [2:0]                    m_axi_arsize,
    output wire [1:0]                    m_axi_arburst,
    output wire [3:0]                    m_axi_arcache,
    output wire [2:0]                    m_axi_arprot,
    output reg                           m_axi_arvalid,
    input  wire                          m_axi_arready,
    input  wire [`VTA_BUS_WIDTH-1:0]     m_axi_rdata,
    input  wire [1:0]                    m_axi_rresp,
    input  wire                          m_axi_rlast,
    input  wire                          m_axi_rvalid,
    output wire                          m_axi_rready,
    output reg  [AddrWidth-1:0]          m_axi_awaddr,
    output reg  [7:0]                    m_axi_awlen,
    output wire [2:0]                    m_axi_awsize,
    output wire [1:0]                    m_axi_awburst,
    output wire [3:0]                    m_axi_awcache,
    output wire [2:0]                    m_axi_awprot,
    output reg                           m_axi_awvalid,
    input  wire                          m_axi_awready,
    output wire [`VTA_BUS_WIDTH-1:0]     m_axi_wdata,
    output wire [`VTA_BUS_WIDTH/8-1:0]   m_axi_wstrb,
    output wire                          m_axi_wlast,
    output wire                          m_axi_wvalid,
    input  wire                          m_axi_wready,
    input  wire [1:0]                    m_axi_bresp,
    input  wire                          m_axi_bvalid,
    output wire                          m_axi_bready
);
  localparam BusBits     = `VTA_BUS_WIDTH;
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam OwnW        = (NumRd > 1) ? $clog2(NumRd) : 1;
  localparam LenW        = $clog2(MaxBurst + 1);   // beats of one burst
  localparam LogRdOut    = $clog2(RdOut);
  localparam LogWrOut    = $clog2(WrOut);

  assign m_axi_arsize  = LogBusBytes[2:0];
  assign m_axi_awsize  = LogBusBytes[2:0];
  assign m_axi_arburst = 2'b01;
  assign m_axi_awburst = 2'b01;
  assign m_axi_arcache = 4'b1111;  // AxCACHE[1] set: the HP ports may upsize (UG585 5.3.9)
  assign m_axi_awcache = 4'b1111;
  assign m_axi_arprot  = 3'b000;
  assign m_axi_awprot  = 3'b000;

  // Beats of the next burst: at most MaxBurst, never across a 4 KiB line.
  // an address above this in its 4 KiB line leaves fewer than MaxBurst beats
  localparam [12:0] LineShort = 13'd4096 - MaxBurst[12:0] * (13'd1 << LogBusBytes);
  function [LenW-1:0] burst_beats;
    input [AddrWidth-1:0] addr;
    input [BeatWidth-1:0] left;
    reg   [12:0] to_line;
    reg          line_short, left_short;
    begin
      to_line = (13'd4096 - {1'b0, addr[11:0]}) >> LogBusBytes;
      // the three-way minimum as side-by-side comparisons (make timing):
      // the line ends within MaxBurst beats (a comparison with a constant),
      // and the beats left are fewer than both
      line_short = ({1'b0, addr[11:0]} > LineShort);
      left_short = (left < {{(BeatWidth-LenW){1'b0}}, MaxBurst[LenW-1:0]}) &&
                   (left < {{(BeatWidth-13){1'b0}}, to_line});
      if (left_short) burst_beats = left[LenW-1:0];
      else if (line_short) burst_beats = to_line[LenW-1:0];
      else burst_beats = MaxBurst[LenW-1:0];
    end
  endfunction

  // The burst above is the last of its request: the beats left fit in MaxBurst
  // and before the 4 KiB line (two comparisons side by side, not the cut and
  // then an equality: make timing).
  function burst_last;
    input [AddrWidth-1:0] addr;
    input [BeatWidth-1:0] left;
    reg   [BeatWidth:0]   end_beat;
    begin
      // the beat after the last one, counted from the line's start (a partial
      // first beat, never used, counts one more as in burst_beats)
      end_beat   = {{(BeatWidth-11+LogBusBytes){1'b0}}, addr[11:LogBusBytes]} + {1'b0, left} +
                   {{BeatWidth{1'b0}}, addr[LogBusBytes-1:0] != 0};
      burst_last = (left <= MaxBurst) && (end_beat <= (4096 >> LogBusBytes));
    end
  endfunction

  // ================================================================ reads
  // client requests being cut into bursts
  reg [NumRd-1:0]           ract_q;
  reg [NumRd*AddrWidth-1:0] raddr_q;
  reg [NumRd*BeatWidth-1:0] rleft_q;
  // the next burst of each client (beats, last of the request), registered
  // (make timing): valid in rok_q from the cycle after the request is taken or
  // a burst issued, so a client issues at most every other cycle
  reg [NumRd-1:0]           rok_q, rlast_q;
  reg [NumRd*LenW-1:0]      rburst_q;
  assign rd_req_ready_o = hold_i ? {NumRd{1'b0}} : ~ract_q;

  // bursts in flight: {owner, beats, address}, pushed when AR is loaded
  localparam RfW = OwnW + LenW + AddrWidth;
  wire            rf_push, rf_pop, rf_valid, rf_full;
  wire [RfW-1:0]  rf_head;
  reg  [RfW-1:0]  rf_in;
  wire [LogRdOut:0] rf_count;
  vta_fifo #(.Width(RfW), .LogDepth(LogRdOut)) u_rd_inflight (
      .clk_i(clk_i), .rst_i(rst_i), .clear_i(1'b0),
      .push_i(rf_push), .push_data_i(rf_in), .full_o(rf_full),
      .out_valid_o(rf_valid), .out_data_o(rf_head), .pop_i(rf_pop), .count_o(rf_count));
  // at most RdOut in flight (the FIFO holds RdOut in its RAM plus one at its
  // head); the bursts in flight are counted here, and whether one more fits is
  // a register (make timing: not the FIFO's count through an adder and a compare)
  reg  [LogRdOut+1:0] rd_n_q;
  reg                 rd_room_q;
  wire rd_slot = (!m_axi_arvalid || m_axi_arready) && rd_room_q && !hold_i;

  // round-robin pick among clients with beats to request, starting after rr_q:
  // the lowest active index above rr_q, else the lowest one at or below it.
  // Comparisons with constants (no modulo, no adder): `(k + rr_q + 1) % NumRd`
  // became a divider, its adder-and-compare replacement a carry chain in front
  // of every client's ready (hw-core, make timing)
  reg  [OwnW-1:0] rr_q, pick;
  reg             pick_valid;
  integer k;
  always @* begin
    pick = 0;
    pick_valid = 1'b0;
    for (k = NumRd - 1; k >= 0; k = k - 1)
      if (ract_q[k] && rok_q[k] && k <= {{(32-OwnW){1'b0}}, rr_q}) begin
        pick = k[OwnW-1:0];
        pick_valid = 1'b1;
      end
    for (k = NumRd - 1; k >= 0; k = k - 1)
      if (ract_q[k] && rok_q[k] && k > {{(32-OwnW){1'b0}}, rr_q}) begin
        pick = k[OwnW-1:0];
        pick_valid = 1'b1;
      end
  end
  wire [AddrWidth-1:0] pick_addr  = raddr_q[pick*AddrWidth +: AddrWidth];
  wire [LenW-1:0]      pick_burst = rburst_q[pick*LenW +: LenW];
  wire [8:0]           pick_len   = {{(9-LenW){1'b0}}, pick_burst} - 9'd1;  // ARLEN
  wire                 issue      = rd_slot && pick_valid;
  assign rf_push = issue;
  always @* rf_in = {pick, pick_burst, pick_addr};

  integer c;
  always @(posedge clk_i) begin
    if (rst_i) begin
      ract_q        <= 0;
      rok_q         <= 0;
      rr_q          <= 0;
      m_axi_arvalid <= 1'b0;
    end else begin
      // hold_i clears only the activity flags (below); issue already waits for
      // it, and a request taken into the address registers while held is never
      // used (its client sees no ready), so the ~400 address, count and burst
      // registers do not have the soft reset in their enables (make timing)
      if (m_axi_arvalid && m_axi_arready) m_axi_arvalid <= 1'b0;
      if (issue) begin
        m_axi_arvalid <= 1'b1;
        m_axi_araddr  <= pick_addr;
        m_axi_arlen   <= pick_len[7:0];
        rr_q          <= pick;
      end
      for (c = 0; c < NumRd; c = c + 1) begin
        // the next burst of a client, computed in the cycle after its address moved
        if (ract_q[c] && !rok_q[c]) begin
          rok_q[c] <= 1'b1;
          rburst_q[c*LenW +: LenW] <= burst_beats(raddr_q[c*AddrWidth +: AddrWidth],
                                                  rleft_q[c*BeatWidth +: BeatWidth]);
          rlast_q[c] <= burst_last(raddr_q[c*AddrWidth +: AddrWidth],
                                   rleft_q[c*BeatWidth +: BeatWidth]);
        end
        if (issue && {{(32-OwnW){1'b0}}, pick} == c) begin
          raddr_q[c*AddrWidth +: AddrWidth] <= raddr_q[c*AddrWidth +: AddrWidth] +
              ({{(AddrWidth-LenW){1'b0}}, rburst_q[c*LenW +: LenW]} << LogBusBytes);
          rleft_q[c*BeatWidth +: BeatWidth] <= rleft_q[c*BeatWidth +: BeatWidth] -
              {{(BeatWidth-LenW){1'b0}}, rburst_q[c*LenW +: LenW]};
          rok_q[c] <= 1'b0;
          if (rlast_q[c]) ract_q[c] <= 1'b0;
        end
        if (rd_req_valid_i[c] && !ract_q[c] && rd_req_beats_i[c*BeatWidth +: BeatWidth] != 0) begin
          ract_q[c] <= 1'b1;
          rok_q[c]  <= 1'b0;
          raddr_q[c*AddrWidth +: AddrWidth] <= rd_req_addr_i[c*AddrWidth +: AddrWidth];
          rleft_q[c*BeatWidth +: BeatWidth] <= rd_req_beats_i[c*BeatWidth +: BeatWidth];
        end
      end
      if (hold_i) begin
        ract_q <= 0;
        rok_q  <= 0;
      end
    end
  end

  // R skid buffer: sk0 is the beat offered to the clients, sk1 the overflow
  reg                sk0v_q, sk1v_q;
  reg [BusBits:0]    sk0_q, sk1_q;   // {error, data}
  assign m_axi_rready = !sk1v_q;
  wire r_in = m_axi_rvalid && m_axi_rready;

  wire [OwnW-1:0]      owner = rf_head[LenW+AddrWidth +: OwnW];
  wire [LenW-1:0]      blen  = rf_head[AddrWidth +: LenW];
  wire [AddrWidth-1:0] baddr = rf_head[0 +: AddrWidth];
  reg  [LenW-1:0]      bbeat_q;   // beats of the head burst delivered so far
  reg  [LenW-1:0]      bnext_q;   // bbeat_q + 1 (compared with the burst's length: no
                                  // subtraction in front of the FIFO's pop, make timing)
  genvar gi;
  generate
    for (gi = 0; gi < NumRd; gi = gi + 1) begin : gen_rd_valid
      assign rd_valid_o[gi] = sk0v_q && rf_valid && (owner == gi) && !hold_i;
    end
  endgenerate
  // The client's ready enters last (make timing: it comes from another module):
  // the head's beat and whether it ends its burst come from registers and the
  // FIFO's head, and the burst count and room are formed for both outcomes
  wire r_take    = rd_ready_i[owner] || hold_i;
  wire r_head    = sk0v_q && rf_valid;
  wire head_last = r_head && (bnext_q == blen);
  wire r_out     = r_head && r_take;
  // the pop as an OR of per-client terms, apart from r_out (which enables the
  // skid buffer's hundreds of flip-flops): head_last && r_take
  reg  [NumRd-1:0] own_last;
  integer oi;
  always @* for (oi = 0; oi < NumRd; oi = oi + 1)
    own_last[oi] = head_last && ({{(32-OwnW){1'b0}}, owner} == oi);
  assign rf_pop  = |(rd_ready_i & own_last) || (head_last && hold_i);
  // the count and the room for each of push / pop from rd_n_q alone, selected
  // by them at the end (no carry chain behind the issue or the pop)
  wire [LogRdOut+1:0] rd_n_inc = rd_n_q + 1'b1;
  wire [LogRdOut+1:0] rd_n_dec = rd_n_q - 1'b1;   // used only when a burst is in flight
  always @(posedge clk_i) begin
    if (rst_i) begin
      rd_n_q    <= 0;
      rd_room_q <= 1'b1;
    end else if (rf_push && !rf_pop) begin
      rd_n_q    <= rd_n_inc;
      rd_room_q <= (rd_n_q < RdOut - 1);
    end else if (rf_pop && !rf_push) begin
      rd_n_q    <= rd_n_dec;
      rd_room_q <= (rd_n_q <= RdOut);
    end
  end
  assign rd_data_o = sk0_q[BusBits-1:0];
  assign rd_err_o  = sk0_q[BusBits];

  always @(posedge clk_i) begin
    if (rst_i) begin
      sk0v_q  <= 1'b0;
      sk1v_q  <= 1'b0;
      bbeat_q <= 0;
      bnext_q <= 1;
    end else begin
      if (r_out) begin
        if (sk1v_q) begin
          sk0_q  <= sk1_q;
          sk1v_q <= 1'b0;
        end else if (r_in) begin
          sk0_q <= {m_axi_rresp[1], m_axi_rdata};
        end else begin
          sk0v_q <= 1'b0;
        end
        bbeat_q <= rf_pop ? {LenW{1'b0}} : bnext_q;
        bnext_q <= rf_pop ? {{(LenW-1){1'b0}}, 1'b1} : bnext_q + 1'b1;
      end else if (r_in) begin
        if (!sk0v_q) begin
          sk0_q  <= {m_axi_rresp[1], m_axi_rdata};
          sk0v_q <= 1'b1;
        end else begin
          sk1_q  <= {m_axi_rresp[1], m_axi_rdata};
          sk1v_q <= 1'b1;
        end
      end
    end
  end
  wire rd_idle = (ract_q == 0) && !m_axi_arvalid && !rf_valid && (rf_count == 0) &&
                 !sk0v_q && !sk1v_q;

  // ================================================================ writes
  reg                 wact_q;
  reg [AddrWidth-1:0] waddr_q;
  reg [BeatWidth-1:0] wleft_q;
  reg [TagW-1:0]      wtag_q;
  assign wr_req_ready_o = !wact_q && !hold_i;
  reg [LogWrOut+1:0]  wout_q;     // bursts issued whose B has not arrived
  reg [LogWrOut+1:0]  wopen_q;    // bursts whose AW was accepted and whose data is not all sent
  reg [LenW-1:0]      wbeat_q;    // beats of the oldest open burst sent so far, plus one

  // the next burst, registered as for the reads (valid in wok_q)
  reg             wok_q, wlast_q;
  reg [LenW-1:0]  w_burst;
  wire [8:0]      w_len   = {{(9-LenW){1'b0}}, w_burst} - 9'd1;  // AWLEN
  wire            b_in    = m_axi_bvalid;   // BREADY is always high
  wire            w_issue = wact_q && wok_q && (!m_axi_awvalid || m_axi_awready) && (wout_q < WrOut) &&
                            !hold_i;

  // beats of each issued burst (for WLAST), its tag and address (for an error on B)
  wire            wf_valid, wf_full, bf_valid, bf_full;
  wire [LenW-1:0] wf_head;
  wire [AddrWidth-1:0] bf_head;
  wire [TagW-1:0] bf_tag;
  wire [LogWrOut:0] wf_count, bf_count;
  wire w_hs  = m_axi_wvalid && m_axi_wready;
  wire w_end = w_hs && m_axi_wlast;
  vta_fifo #(.Width(LenW), .LogDepth(LogWrOut)) u_wr_len (
      .clk_i(clk_i), .rst_i(rst_i), .clear_i(1'b0),
      .push_i(w_issue), .push_data_i(w_burst), .full_o(wf_full),
      .out_valid_o(wf_valid), .out_data_o(wf_head), .pop_i(w_end), .count_o(wf_count));
  vta_fifo #(.Width(TagW + AddrWidth), .LogDepth(LogWrOut)) u_wr_addr (
      .clk_i(clk_i), .rst_i(rst_i), .clear_i(1'b0),
      .push_i(w_issue), .push_data_i({wtag_q, waddr_q}), .full_o(bf_full),
      .out_valid_o(bf_valid), .out_data_o({bf_tag, bf_head}), .pop_i(b_in), .count_o(bf_count));

  // hold_i: once the store has no beat to offer, filler beats (WSTRB 0) finish
  // the open bursts; a beat on the bus is never replaced before it is taken
  reg  wfill_q;   // a filler beat is on the bus, not yet taken
  wire w_open   = (wopen_q != 0) && wf_valid;
  wire use_fill = hold_i && (wfill_q || !wr_valid_i);
  assign m_axi_wvalid = w_open && (wr_valid_i || use_fill);
  // the store's beat is taken unless a filler beat is on the bus; without
  // wr_valid_i (the store looks at ready only with its valid), so no path
  // runs from the store through the DMA back into the store (make timing)
  assign wr_ready_o   = m_axi_wready && w_open && !(hold_i && wfill_q);
  assign m_axi_wdata  = use_fill ? {BusBits{1'b0}} : wr_data_i;
  assign m_axi_wstrb  = use_fill ? {(BusBits/8){1'b0}} : wr_strb_i;
  assign m_axi_wlast  = (wbeat_q == wf_head);   // counted from 1: no subtraction (make timing)
  assign m_axi_bready = 1'b1;
  assign wr_idle_o    = !wact_q && (wout_q == 0);

  always @(posedge clk_i) begin
    if (rst_i) begin
      wact_q        <= 1'b0;
      wok_q         <= 1'b0;
      m_axi_awvalid <= 1'b0;
      wout_q        <= 0;
      wopen_q       <= 0;
      wbeat_q       <= 1;
      wfill_q       <= 1'b0;
    end else begin
      wfill_q <= use_fill && m_axi_wvalid && !m_axi_wready;
      if (wact_q && !wok_q) begin
        wok_q   <= 1'b1;
        w_burst <= burst_beats(waddr_q, wleft_q);
        wlast_q <= burst_last(waddr_q, wleft_q);
      end
      // as for the reads: hold_i clears wact_q (at the end) but is not in the
      // enables of the request registers
      if (wr_req_valid_i && !wact_q && wr_req_beats_i != 0) begin
        wact_q  <= 1'b1;
        wok_q   <= 1'b0;
        waddr_q <= wr_req_addr_i;
        wleft_q <= wr_req_beats_i;
        wtag_q  <= wr_req_tag_i;
      end
      if (m_axi_awvalid && m_axi_awready) m_axi_awvalid <= 1'b0;
      if (w_issue) begin
        m_axi_awvalid <= 1'b1;
        m_axi_awaddr  <= waddr_q;
        m_axi_awlen   <= w_len[7:0];
        waddr_q       <= waddr_q + ({{(AddrWidth-LenW){1'b0}}, w_burst} << LogBusBytes);
        wleft_q       <= wleft_q - {{(BeatWidth-LenW){1'b0}}, w_burst};
        wok_q         <= 1'b0;
        if (wlast_q) wact_q <= 1'b0;
      end
      if (hold_i) wact_q <= 1'b0;
      wout_q  <= wout_q + {{(LogWrOut+1){1'b0}}, w_issue} - {{(LogWrOut+1){1'b0}}, b_in};
      wopen_q <= wopen_q + {{(LogWrOut+1){1'b0}}, m_axi_awvalid && m_axi_awready} -
                 {{(LogWrOut+1){1'b0}}, w_end};
      if (w_hs) wbeat_q <= m_axi_wlast ? {{(LenW-1){1'b0}}, 1'b1} : wbeat_q + 1'b1;
    end
  end

  // ================================================================ errors, idle
  always @(posedge clk_i) begin
    if (rst_i) begin
      err_o    <= 1'b0;
      wr_err_o <= 1'b0;
    end else begin
      err_o    <= (r_out && rd_err_o) || (b_in && m_axi_bresp[1]);
      wr_err_o <= b_in && m_axi_bresp[1];
      if (r_out && rd_err_o)
        err_addr_o <= baddr + ({{(AddrWidth-LenW){1'b0}}, bbeat_q} << LogBusBytes);
      else if (b_in && m_axi_bresp[1])
        err_addr_o <= bf_head;
      if (b_in) wr_err_tag_o <= bf_tag;
    end
  end
  assign idle_o = rd_idle && wr_idle_o;

  // rlast is implied by the burst lengths the engine keeps; the FIFOs cannot
  // overflow (issue stops at RdOut / WrOut)
  wire unused_ok = ^{m_axi_rlast, m_axi_rresp[0], m_axi_bresp[0], rf_full, wf_full, bf_full,
                     bf_valid, wf_count, bf_count, pick_len[8], w_len[8]};
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if (NumRd < 1 || NumRd > 8) begin : g_bad_num_rd
    $error("%m: NumRd = %0d read clients: 1 to 8", NumRd);
  end
  if (MaxBurst < 2 || MaxBurst > 16 || (MaxBurst & (MaxBurst - 1)) != 0) begin : g_bad_max_burst
    $error("%m: MaxBurst = %0d: the HP ports are AXI3, a power of two up to 16 beats", MaxBurst);
  end
  if (RdOut < 2 || (RdOut & (RdOut - 1)) != 0) begin : g_bad_rd_out
    $error("%m: RdOut = %0d: the read bursts in flight are counted modulo a power of two (at least 2)", RdOut);
  end
  if (WrOut < 2 || (WrOut & (WrOut - 1)) != 0) begin : g_bad_wr_out
    $error("%m: WrOut = %0d: the write bursts in flight are counted modulo a power of two (at least 2)", WrOut);
  end
  if (MaxBurst * (BusBits / 8) > 4096) begin : g_bad_burst_bytes
    $error("%m: a burst of %0d beats of %0d bits crosses a 4 KiB boundary", MaxBurst, BusBits);
  end
  if (AddrWidth < 32 || AddrWidth > 64) begin : g_bad_addr_width
    $error("%m: AddrWidth = %0d: AXI addresses of 32 to 64 bits", AddrWidth);
  end
  if (BeatWidth < LenW || TagW < 1) begin : g_bad_widths
    $error("%m: BeatWidth = %0d below the %0d bits of a burst length, or TagW = %0d", BeatWidth, LenW, TagW);
  end
`endif

endmodule
`resetall
