// SPDX-License-Identifier: Apache-2.0
// The SRAM's two forms against each other and against a row array kept here:
// hw/vta_sram.v (synthesized) and sim/rtl/vta_sram.v (what the Verilator model
// runs: the row written by a blocking assignment after the read), the latter
// renamed vta_sram_fast by the make rule. Four instances of each, for the
// shapes the design uses (a narrow and a wide row; OutReg 0 and 1), all given
// the same random stimulus: write and read enables on and off, addresses
// drawn from a few rows (so a read and a write of the same row in one cycle
// are frequent) or from all of them, random data. Checked in every cycle:
// rd_data_o of both forms identical (===, X included); and once a read has
// returned, rd_data_o equal to the row the array held when it was read (the
// old row when the same cycle writes it), held while no new read arrives.
// Run: vvp tb.vvp [+seed=N] [+cycles=N]; prints one PASS or FAIL line.
`timescale 1ns / 1ps
`default_nettype none

module sram_equiv_pair #(
    parameter Width    = 32,
    parameter LogDepth = 4,
    parameter OutReg   = 0
) (
    input  wire                clk_i,
    input  wire                wr_en_i,
    input  wire [LogDepth-1:0] wr_addr_i,
    input  wire [Width-1:0]    wr_data_i,
    input  wire                rd_en_i,
    input  wire [LogDepth-1:0] rd_addr_i,
    output wire [Width-1:0]    hw_o,
    output wire [Width-1:0]    fast_o,
    output reg  [Width-1:0]    ref_o,    // the row read, 1 + OutReg cycles later
    output reg                 ref_ok_o  // ref_o holds a row read (not X)
);
  vta_sram #(.Width(Width), .LogDepth(LogDepth), .OutReg(OutReg)) u_hw (
      .clk_i(clk_i), .wr_en_i(wr_en_i), .wr_addr_i(wr_addr_i), .wr_data_i(wr_data_i),
      .rd_en_i(rd_en_i), .rd_addr_i(rd_addr_i), .rd_data_o(hw_o));
  vta_sram_fast #(.Width(Width), .LogDepth(LogDepth), .OutReg(OutReg)) u_fast (
      .clk_i(clk_i), .wr_en_i(wr_en_i), .wr_addr_i(wr_addr_i), .wr_data_i(wr_data_i),
      .rd_en_i(rd_en_i), .rd_addr_i(rd_addr_i), .rd_data_o(fast_o));

  // the reference: rows known once written (unknown rows are never compared)
  reg [Width-1:0] rows  [0:(1<<LogDepth)-1];
  reg             known [0:(1<<LogDepth)-1];
  reg [Width-1:0] r1;
  reg             r1_ok, rd_d;
  integer i;
  initial begin
    for (i = 0; i < (1 << LogDepth); i = i + 1) known[i] = 1'b0;
    r1_ok = 1'b0;
    ref_ok_o = 1'b0;
    rd_d = 1'b0;
  end
  always @(posedge clk_i) begin
    if (rd_en_i) begin
      r1    <= rows[rd_addr_i];
      r1_ok <= known[rd_addr_i];
    end
    rd_d <= rd_en_i;
    if (wr_en_i) begin
      rows[wr_addr_i]  <= wr_data_i;
      known[wr_addr_i] <= 1'b1;
    end
  end
  generate
    if (OutReg != 0) begin : gen_oreg
      always @(posedge clk_i)
        if (rd_d) begin
          ref_o    <= r1;
          ref_ok_o <= r1_ok;
        end
    end else begin : gen_noreg
      always @* begin
        ref_o    = r1;
        ref_ok_o = r1_ok;
      end
    end
  endgenerate
endmodule

module sram_equiv_tb;
  localparam N = 4;
  reg clk = 1'b0;
  reg [N-1:0] we, re;
  reg [7:0] wa [0:N-1];
  reg [7:0] ra [0:N-1];
  reg [135:0] wd;
  integer seed, seed0, cycles, cyc, errors, n_reads, n_same, k;

  // instance 0: 32 bits x 16 (OutReg 0); 1: 136 bits x 8 (OutReg 0);
  // 2: 40 bits x 16 (OutReg 1); 3: 136 bits x 4 (OutReg 1)
  wire [31:0]  h0, f0, r0;
  wire [135:0] h1, f1, r1;
  wire [39:0]  h2, f2, r2;
  wire [135:0] h3, f3, r3;
  wire [N-1:0] ok;
  sram_equiv_pair #(.Width(32), .LogDepth(4), .OutReg(0)) p0 (
      .clk_i(clk), .wr_en_i(we[0]), .wr_addr_i(wa[0][3:0]), .wr_data_i(wd[31:0]),
      .rd_en_i(re[0]), .rd_addr_i(ra[0][3:0]), .hw_o(h0), .fast_o(f0), .ref_o(r0), .ref_ok_o(ok[0]));
  sram_equiv_pair #(.Width(136), .LogDepth(3), .OutReg(0)) p1 (
      .clk_i(clk), .wr_en_i(we[1]), .wr_addr_i(wa[1][2:0]), .wr_data_i(wd),
      .rd_en_i(re[1]), .rd_addr_i(ra[1][2:0]), .hw_o(h1), .fast_o(f1), .ref_o(r1), .ref_ok_o(ok[1]));
  sram_equiv_pair #(.Width(40), .LogDepth(4), .OutReg(1)) p2 (
      .clk_i(clk), .wr_en_i(we[2]), .wr_addr_i(wa[2][3:0]), .wr_data_i(wd[39:0]),
      .rd_en_i(re[2]), .rd_addr_i(ra[2][3:0]), .hw_o(h2), .fast_o(f2), .ref_o(r2), .ref_ok_o(ok[2]));
  sram_equiv_pair #(.Width(136), .LogDepth(2), .OutReg(1)) p3 (
      .clk_i(clk), .wr_en_i(we[3]), .wr_addr_i(wa[3][1:0]), .wr_data_i(wd),
      .rd_en_i(re[3]), .rd_addr_i(ra[3][1:0]), .hw_o(h3), .fast_o(f3), .ref_o(r3), .ref_ok_o(ok[3]));

  task check;
    begin
      if (h0 !== f0 || h1 !== f1 || h2 !== f2 || h3 !== f3) begin
        errors = errors + 1;
        if (errors <= 5) $display("cycle %0d: the two forms differ (%h/%h %h/%h %h/%h %h/%h)",
                                  cyc, h0, f0, h1, f1, h2, f2, h3, f3);
      end
      if ((ok[0] && h0 !== r0) || (ok[1] && h1 !== r1) || (ok[2] && h2 !== r2) ||
          (ok[3] && h3 !== r3)) begin
        errors = errors + 1;
        if (errors <= 5) $display("cycle %0d: a read returned the wrong row", cyc);
      end
    end
  endtask

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed0 = seed;
    if (!$value$plusargs("cycles=%d", cycles)) cycles = 20000;
    errors = 0;
    n_reads = 0;
    n_same = 0;
    we = 0;
    re = 0;
    wd = 0;
    for (k = 0; k < N; k = k + 1) begin
      wa[k] = 0;
      ra[k] = 0;
    end
    for (cyc = 0; cyc < cycles; cyc = cyc + 1) begin
      // inputs change after the falling edge, are sampled at the rising one
      #5 clk = 1'b1;
      #1 check;
      #4 clk = 1'b0;
      for (k = 0; k < N; k = k + 1) begin
        we[k] = ($random(seed) & 3) != 0;
        re[k] = ($random(seed) & 3) != 0;
        if ((cyc / 500) % 2 == 0) begin   // a few rows: same-row read and write often
          wa[k] = $random(seed) & 1;
          ra[k] = $random(seed) & 1;
        end else begin
          wa[k] = $random(seed);
          ra[k] = $random(seed);
        end
        if (we[k] && re[k] && wa[k][1:0] == ra[k][1:0]) n_same = n_same + 1;
        if (re[k]) n_reads = n_reads + 1;
      end
      wd = {$random(seed), $random(seed), $random(seed), $random(seed), $random(seed)};
      #1 check;
    end
    if (errors == 0)
      $display("PASS sram-equiv: %0d cycles, %0d reads, %0d same-row read and write (seed %0d)",
               cycles, n_reads, n_same, seed0);
    else
      $display("FAIL sram-equiv: %0d errors in %0d cycles (seed %0d)", errors, cycles, seed0);
    $finish;
  end
endmodule
