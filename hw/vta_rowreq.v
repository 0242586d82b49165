// SPDX-License-Identifier: Apache-2.0
// DMA requests of a 2-D transfer (LOAD and STORE, docs/rtl.md, DMA): one
// request per DRAM row, or one for the whole block when the rows are back to
// back (x_stride == x_size), handed to the DMA one at a time as fast as it
// takes them, so later rows are in flight while earlier ones transfer.
// Elements narrower than the bus are requested from the beat that holds the
// first one to the beat that holds the last.
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_rowreq #(
    parameter AddrWidth = 64,
    parameter BeatWidth = 32
) (
    input  wire                 clk_i,
    input  wire                 rst_i,
    input  wire                 start_i,     // pulse (ignored while busy)
    input  wire [AddrWidth-1:0] base_i,      // base register of the memory type
    input  wire [31:0]          elem_i,      // dram_base: element index of row 0
    input  wire [15:0]          rows_i,      // y_size
    input  wire [15:0]          xsize_i,
    input  wire [15:0]          stride_i,
    input  wire [3:0]           log_e_i,     // log2 of the element bytes
    output wire                 busy_o,      // requests not yet all taken
    output reg                  req_valid_o,
    output reg  [AddrWidth-1:0] req_addr_o,
    output reg  [BeatWidth-1:0] req_beats_o,
    input  wire                 req_ready_i
);
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;

  reg  [AddrWidth-1:0] base_q;
  reg  [3:0]           log_e_q;
  reg  [15:0]          stride_q;
  reg                  merge_q;
  reg  [31:0]          left_q;    // requests still to hand over
  reg  [47:0]          elem_q;    // element index of the next request
  reg  [31:0]          n_q;       // elements per request
  assign busy_o = (left_q != 0) || req_valid_o;

  wire narrow = (log_e_q < LogBusBytes);
  wire [AddrWidth-1:0] bus_mask = {{(AddrWidth-LogBusBytes){1'b0}}, {LogBusBytes{1'b1}}};
  wire [AddrWidth-1:0] addr  = base_q + ({{(AddrWidth-48){1'b0}}, elem_q} << log_e_q);
  wire [AddrWidth-1:0] bytes = {{(AddrWidth-32){1'b0}}, n_q} << log_e_q;
  // narrow: from the beat of the first byte to the beat of the last
  wire [AddrWidth-1:0] beats = narrow ? ((addr & bus_mask) + bytes + bus_mask) >> LogBusBytes
                                      : bytes >> LogBusBytes;
  wire merge = (stride_i == xsize_i);

  always @(posedge clk_i) begin
    if (rst_i) begin
      req_valid_o <= 1'b0;
      left_q      <= 0;
    end else begin
      if (start_i && !busy_o) begin
        base_q   <= base_i;
        log_e_q  <= log_e_i;
        stride_q <= stride_i;
        merge_q  <= merge;
        elem_q   <= {16'd0, elem_i};
        left_q   <= (rows_i == 0 || xsize_i == 0) ? 32'd0 : merge ? 32'd1 : {16'd0, rows_i};
        n_q      <= merge ? {16'd0, rows_i} * {16'd0, xsize_i} : {16'd0, xsize_i};
      end else if (req_valid_o) begin
        if (req_ready_i) begin
          req_valid_o <= 1'b0;
          elem_q <= elem_q + (merge_q ? {16'd0, n_q} : {32'd0, stride_q});
          left_q <= left_q - 1;
        end
      end else if (left_q != 0) begin
        req_valid_o <= 1'b1;
        req_addr_o  <= narrow ? (addr & ~bus_mask) : addr;
        req_beats_o <= beats[BeatWidth-1:0];
      end
    end
  end

  wire unused_ok = ^beats[AddrWidth-1:BeatWidth];
endmodule
`resetall
