// SPDX-License-Identifier: Apache-2.0
// The one AXI4 master of VTA: a read engine shared by NumRd clients (round
// robin, one request at a time) and a write engine for the store module.
// A request is (byte address aligned to the bus, number of beats); the engine
// cuts it into INCR bursts of at most 256 beats that never cross 4 KiB.
// hold_i (the soft reset, vta_top.v) stops both engines at the next burst
// boundary: no new request is taken, the rest of the current one is dropped,
// and bursts already on the bus complete.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_dma #(
    parameter NumRd     = 3,  // read clients
    parameter AddrWidth = 64, // AXI address bits
    parameter BeatWidth = 32  // bits of a request's beat count
) (
    input  wire                          clk_i,
    input  wire                          rst_i,
    input  wire                          hold_i,
    // read clients (client i uses slice i of the flattened vectors)
    input  wire [NumRd-1:0]              rd_req_valid_i,
    input  wire [NumRd*AddrWidth-1:0]    rd_req_addr_i,
    input  wire [NumRd*BeatWidth-1:0]    rd_req_beats_i,
    output reg  [NumRd-1:0]              rd_req_ready_o,
    output wire [NumRd-1:0]              rd_valid_o,     // a beat for client i
    input  wire [NumRd-1:0]              rd_ready_i,
    output wire [`VTA_BUS_WIDTH-1:0]     rd_data_o,
    output wire                          rd_err_o,       // the beat carries an error response
    // write client
    input  wire                          wr_req_valid_i,
    input  wire [AddrWidth-1:0]          wr_req_addr_i,
    input  wire [BeatWidth-1:0]          wr_req_beats_i,
    output wire                          wr_req_ready_o,
    input  wire                          wr_valid_i,
    input  wire [`VTA_BUS_WIDTH-1:0]     wr_data_i,
    output wire                          wr_ready_o,
    output reg                           wr_done_o,      // pulse: all responses of the request received
    output reg                           wr_err_o,       // pulse: an error response
    // no request in progress and no burst outstanding (stays so under hold_i)
    output wire                          idle_o,
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
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam OwnW = (NumRd > 1) ? $clog2(NumRd) : 1;

  assign m_axi_arsize  = LogBusBytes[2:0];
  assign m_axi_awsize  = LogBusBytes[2:0];
  assign m_axi_arburst = 2'b01;
  assign m_axi_awburst = 2'b01;
  assign m_axi_arcache = 4'b1111;
  assign m_axi_awcache = 4'b1111;
  assign m_axi_arprot  = 3'b000;
  assign m_axi_awprot  = 3'b000;

  // Beats of the next burst: at most 256, never across a 4 KiB line.
  function [8:0] burst_beats;
    input [AddrWidth-1:0] addr;
    input [BeatWidth-1:0] left;
    reg   [12:0] to_line;
    begin
      to_line = (13'd4096 - {1'b0, addr[11:0]}) >> LogBusBytes;
      burst_beats = 9'd256;
      if (to_line < {4'b0, burst_beats}) burst_beats = to_line[8:0];
      if (left < {{(BeatWidth-9){1'b0}}, burst_beats}) burst_beats = left[8:0];
    end
  endfunction

  // ---------------- read engine ----------------
  localparam [1:0] RdIdle = 2'd0, RdAddr = 2'd1, RdData = 2'd2;
  reg [1:0]           rd_state_q;
  reg [OwnW-1:0]      owner_q, rr_q;
  reg [AddrWidth-1:0] rd_addr_q;
  reg [BeatWidth-1:0] rd_left_q;
  reg [8:0]           rd_burst_q;

  wire rd_beat = m_axi_rvalid && m_axi_rready;
  assign m_axi_rready = (rd_state_q == RdData) && rd_ready_i[owner_q];
  assign rd_data_o    = m_axi_rdata;
  assign rd_err_o     = m_axi_rresp[1];
  genvar gi;
  generate
    for (gi = 0; gi < NumRd; gi = gi + 1) begin : gen_rd_valid
      assign rd_valid_o[gi] = (rd_state_q == RdData) && (owner_q == gi) && m_axi_rvalid;
    end
  endgenerate

  // round-robin pick among requesting clients, starting after rr_q: the lowest
  // requesting index above rr_q, else the lowest one at or below it. Written
  // as comparisons with constants (no modulo, no adder): `(k + rr_q + 1) % NumRd`
  // became a divider of about 490 logic levels, its adder-and-compare
  // replacement still a carry chain in front of every client's ready (make timing)
  reg [OwnW-1:0] pick;
  reg            pick_valid;
  integer k;
  always @* begin
    pick = 0;
    pick_valid = 1'b0;
    for (k = NumRd - 1; k >= 0; k = k - 1)
      if (rd_req_valid_i[k] && k <= {{(32-OwnW){1'b0}}, rr_q}) begin
        pick = k[OwnW-1:0];
        pick_valid = 1'b1;
      end
    for (k = NumRd - 1; k >= 0; k = k - 1)
      if (rd_req_valid_i[k] && k > {{(32-OwnW){1'b0}}, rr_q}) begin
        pick = k[OwnW-1:0];
        pick_valid = 1'b1;
      end
  end

  always @* begin
    rd_req_ready_o = 0;
    if (rd_state_q == RdIdle && pick_valid && !hold_i) rd_req_ready_o[pick] = 1'b1;
  end

  wire [8:0] rd_next_burst = burst_beats(rd_addr_q, rd_left_q);

  always @(posedge clk_i) begin
    if (rst_i) begin
      rd_state_q    <= RdIdle;
      owner_q       <= 0;
      rr_q          <= 0;
      m_axi_arvalid <= 1'b0;
      rd_left_q     <= 0;
    end else begin
      case (rd_state_q)
        RdIdle: if (pick_valid && !hold_i) begin
          owner_q   <= pick;
          rr_q      <= pick;
          rd_addr_q <= rd_req_addr_i[pick*AddrWidth +: AddrWidth];
          rd_left_q <= rd_req_beats_i[pick*BeatWidth +: BeatWidth];
          if (rd_req_beats_i[pick*BeatWidth +: BeatWidth] != 0) rd_state_q <= RdAddr;
        end
        RdAddr: if (!m_axi_arvalid) begin
          if (hold_i) rd_state_q <= RdIdle;
          else m_axi_arvalid <= 1'b1;
          m_axi_araddr  <= rd_addr_q;
          m_axi_arlen   <= rd_next_burst[7:0] - 8'd1;
          rd_burst_q    <= rd_next_burst;
        end else if (m_axi_arready) begin
          m_axi_arvalid <= 1'b0;
          rd_addr_q     <= rd_addr_q + ({{(AddrWidth-9){1'b0}}, rd_burst_q} << LogBusBytes);
          rd_state_q    <= RdData;
        end
        RdData: if (rd_beat) begin
          rd_left_q  <= rd_left_q - 1'b1;
          rd_burst_q <= rd_burst_q - 1'b1;
          if (rd_burst_q == 9'd1) rd_state_q <= (rd_left_q == 1) ? RdIdle : RdAddr;
        end
        default: rd_state_q <= RdIdle;
      endcase
    end
  end

  // ---------------- write engine ----------------
  localparam [1:0] WrIdle = 2'd0, WrAddr = 2'd1, WrData = 2'd2, WrResp = 2'd3;
  reg [1:0]           wr_state_q;
  reg [AddrWidth-1:0] wr_addr_q;
  reg [BeatWidth-1:0] wr_left_q;
  reg [8:0]           wr_burst_q;
  wire [8:0] wr_next_burst = burst_beats(wr_addr_q, wr_left_q);

  assign wr_req_ready_o = (wr_state_q == WrIdle) && !hold_i;
  assign m_axi_wvalid   = (wr_state_q == WrData) && wr_valid_i;
  assign wr_ready_o     = (wr_state_q == WrData) && m_axi_wready;
  assign m_axi_wdata    = wr_data_i;
  assign m_axi_wstrb    = {(`VTA_BUS_WIDTH/8){1'b1}};
  assign m_axi_wlast    = (wr_burst_q == 9'd1);
  assign m_axi_bready   = (wr_state_q == WrResp);
  assign idle_o         = (rd_state_q == RdIdle) && (wr_state_q == WrIdle);

  always @(posedge clk_i) begin
    if (rst_i) begin
      wr_state_q    <= WrIdle;
      m_axi_awvalid <= 1'b0;
      wr_done_o     <= 1'b0;
      wr_err_o      <= 1'b0;
      wr_left_q     <= 0;
      wr_burst_q    <= 0;
    end else begin
      wr_done_o <= 1'b0;
      wr_err_o  <= 1'b0;
      case (wr_state_q)
        WrIdle: if (wr_req_valid_i && !hold_i) begin
          wr_addr_q <= wr_req_addr_i;
          wr_left_q <= wr_req_beats_i;
          if (wr_req_beats_i != 0) wr_state_q <= WrAddr;
          else wr_done_o <= 1'b1;
        end
        WrAddr: if (!m_axi_awvalid) begin
          if (hold_i) wr_state_q <= WrIdle;
          else m_axi_awvalid <= 1'b1;
          m_axi_awaddr  <= wr_addr_q;
          m_axi_awlen   <= wr_next_burst[7:0] - 8'd1;
          wr_burst_q    <= wr_next_burst;
        end else if (m_axi_awready) begin
          m_axi_awvalid <= 1'b0;
          wr_addr_q     <= wr_addr_q + ({{(AddrWidth-9){1'b0}}, wr_burst_q} << LogBusBytes);
          wr_state_q    <= WrData;
        end
        WrData: if (m_axi_wvalid && m_axi_wready) begin
          wr_left_q  <= wr_left_q - 1'b1;
          wr_burst_q <= wr_burst_q - 1'b1;
          if (wr_burst_q == 9'd1) wr_state_q <= WrResp;
        end
        WrResp: if (m_axi_bvalid) begin
          if (m_axi_bresp[1]) wr_err_o <= 1'b1;
          if (wr_left_q == 0) begin
            wr_state_q <= WrIdle;
            wr_done_o  <= 1'b1;
          end else begin
            wr_state_q <= WrAddr;
          end
        end
        default: wr_state_q <= WrIdle;
      endcase
    end
  end
endmodule
`resetall
