// SPDX-License-Identifier: Apache-2.0
// The GEMM array's two forms against each other and against dot products
// computed here: hw/vta_gemm_array.v (synthesized; two products per packed
// multiplier) and sim/rtl/vta_gemm_array.v (what the Verilator model runs;
// plain int8 multiplies), the latter renamed vta_gemm_array_fast by the make
// rule. Both get the same stimulus: en_i in bursts with gaps, rst_i now and
// then (also while rows are in flight), operands from directed patterns (each
// input element and each weight lane alone, -128 x -128, 127 x -128, -128 x
// 127 in every element: the largest and smallest dot products) and random
// bytes (uniform, or drawn from -128, -127, -1, 0, 1, 127). Checked in every
// cycle: dot_o of both forms identical (===, X included); and in each cycle
// where a row reaches the output (4 cycles after its en_i, unless a reset
// stopped the pipeline's valid bits), dot_o equal to the dot products of that
// row computed by ref_dot below. Run: vvp tb.vvp [+seed=N] [+cycles=N];
// prints one PASS or FAIL line.
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"

module gemm_equiv_tb;
  localparam Batch  = `VTA_BATCH;
  localparam BlkIn  = `VTA_BLOCK_IN;
  localparam BlkOut = `VTA_BLOCK_OUT;
  localparam InpW   = `VTA_INP_WIDTH;
  localparam WgtW   = `VTA_WGT_WIDTH;
  localparam IW     = `VTA_INP_MATRIX_WIDTH;
  localparam WW     = `VTA_WGT_MATRIX_WIDTH;
  localparam DW     = Batch * BlkOut * 32;

  reg clk = 1'b0;
  reg rst = 1'b1;
  reg en = 1'b0;
  reg [IW-1:0] inp = {IW{1'b0}};
  reg [WW-1:0] wgt = {WW{1'b0}};
  wire [DW-1:0] dot_hw, dot_fast;

  vta_gemm_array u_hw (
      .clk_i(clk), .rst_i(rst), .en_i(en), .inp_i(inp), .wgt_i(wgt), .dot_o(dot_hw));
  vta_gemm_array_fast u_fast (
      .clk_i(clk), .rst_i(rst), .en_i(en), .inp_i(inp), .wgt_i(wgt), .dot_o(dot_fast));

  // dot[b][c] = sum_k inp[b][k] * wgt[c][k] (VTA-SPEC 4.5.4), 32-bit slots
  function [DW-1:0] ref_dot;
    input [IW-1:0] x;
    input [WW-1:0] w;
    integer b, c, k;
    reg signed [31:0] s;
    reg signed [InpW-1:0] xe;
    reg signed [WgtW-1:0] we;
    begin
      ref_dot = {DW{1'b0}};
      for (b = 0; b < Batch; b = b + 1)
        for (c = 0; c < BlkOut; c = c + 1) begin
          s = 0;
          for (k = 0; k < BlkIn; k = k + 1) begin
            xe = x[(b*BlkIn + k)*InpW +: InpW];
            we = w[(c*BlkIn + k)*WgtW +: WgtW];
            s = s + xe * we;
          end
          ref_dot[(b*BlkOut + c)*32 +: 32] = s;
        end
    end
  endfunction

  // the array's contract: 4 stages, each loads when the one before it held a
  // new row (stage 0 on en_i), reset clears the valid bits of stages 1..3
  reg [DW-1:0] ref0, ref1, ref2, ref3;
  reg [3:0]    refv = 4'b0;  // stage i holds a row that has not moved on
  reg          arrived = 1'b0;  // ref3 was loaded at the last edge
  always @(posedge clk) begin
    arrived <= refv[2] && !rst;
    if (refv[2] && !rst) ref3 <= ref2;
    if (refv[1] && !rst) ref2 <= ref1;
    if (refv[0] && !rst) ref1 <= ref0;
    if (en) ref0 <= ref_dot(inp, wgt);
    refv <= rst ? 4'b0 : {refv[2:0], en};
  end

  integer seed, seed0, cycles, cyc, errors, n_arrived, n_rst_flight, i, mode, run_left;
  reg [31:0] r;

  function [7:0] corner;  // one of -128, -127, -1, 0, 1, 127
    input [31:0] v;
    begin
      case (v % 6)
        0: corner = 8'h80;
        1: corner = 8'h81;
        2: corner = 8'hff;
        3: corner = 8'h00;
        4: corner = 8'h01;
        default: corner = 8'h7f;
      endcase
    end
  endfunction

  // operands of one cycle: directed patterns first (cyc < the sweep), then random
  task make_operands;
    input integer n;
    integer j, sweep_inp, sweep_wgt;
    begin
      sweep_inp = Batch * BlkIn;
      sweep_wgt = BlkOut;
      if (n < sweep_inp) begin
        // one input element alone (-128), random weights: routes element n
        for (j = 0; j < WW / 32; j = j + 1) wgt[j*32 +: 32] = $random(seed);
        inp = {IW{1'b0}};
        inp[n*InpW +: InpW] = 8'h80;
      end else if (n < sweep_inp + sweep_wgt) begin
        // one weight lane alone (all -128), random inputs: routes lane n
        for (j = 0; j < IW / 8; j = j + 1) inp[j*8 +: 8] = $random(seed);
        wgt = {WW{1'b0}};
        for (j = 0; j < BlkIn; j = j + 1) wgt[((n - sweep_inp)*BlkIn + j)*WgtW +: WgtW] = 8'h80;
      end else if (n < sweep_inp + sweep_wgt + 3) begin
        // the extremes: -128 x -128, 127 x -128, -128 x 127 in every element
        inp = {(IW/8){n == sweep_inp + sweep_wgt + 1 ? 8'h7f : 8'h80}};
        wgt = {(WW/8){n == sweep_inp + sweep_wgt + 2 ? 8'h7f : 8'h80}};
      end else begin
        r = $random(seed);
        mode = r % 4;
        if (mode[0])
          for (j = 0; j < IW / 8; j = j + 1) inp[j*8 +: 8] = corner($random(seed) >> 8);
        else
          for (j = 0; j < IW / 32; j = j + 1) inp[j*32 +: 32] = $random(seed);
        if (mode[1])
          for (j = 0; j < WW / 8; j = j + 1) wgt[j*8 +: 8] = corner($random(seed) >> 8);
        else
          for (j = 0; j < WW / 32; j = j + 1) wgt[j*32 +: 32] = $random(seed);
      end
    end
  endtask

  always #5 clk = !clk;

  initial begin
    if (!$value$plusargs("seed=%d", seed)) seed = 1;
    seed0 = seed;
    if (!$value$plusargs("cycles=%d", cycles)) cycles = 1000;
    errors = 0;
    n_arrived = 0;
    n_rst_flight = 0;
    run_left = 0;
    // stimulus changes after each rising edge (#1), checks before the next one
    @(posedge clk);
    #1 rst = 1'b0;
    for (cyc = 0; cyc < cycles; cyc = cyc + 1) begin
      make_operands(cyc);
      r = $random(seed);
      if (cyc < Batch * BlkIn + BlkOut + 3) en = 1'b1;           // the sweep back to back
      else begin
        if (run_left == 0) run_left = 1 + r[7:0] % 24;            // bursts of 1..24 cycles
        en = run_left > 1 ? 1'b1 : r[8];                          // then a cycle on or off
        run_left = run_left - 1;
      end
      rst = (cyc > 64) && (r[19:10] < 8);                         // ~0.8% of cycles
      if (rst && refv[2:0] != 3'b0) n_rst_flight = n_rst_flight + 1;
      #8;  // 1 ns before the edge
      if (dot_hw !== dot_fast) begin
        errors = errors + 1;
        if (errors <= 5)
          $display("cycle %0d: hw dot_o %h, fast %h", cyc, dot_hw, dot_fast);
      end
      if (arrived) begin
        n_arrived = n_arrived + 1;
        if (dot_hw !== ref3) begin
          errors = errors + 1;
          if (errors <= 5) $display("cycle %0d: dot_o %h, expected %h", cyc, dot_hw, ref3);
        end
      end
      @(posedge clk);
      #1;
    end
    if (errors == 0 && n_arrived > cycles / 2 && n_rst_flight > 0)
      $display("PASS gemm-equiv (batch %0d, %0dx%0d: %0d cycles, %0d rows checked, %0d resets with rows in flight, seed %0d)",
               Batch, BlkOut, BlkIn, cycles, n_arrived, n_rst_flight, seed0);
    else
      $display("FAIL gemm-equiv: %0d errors, %0d rows checked, %0d resets in flight (seed %0d)",
               errors, n_arrived, n_rst_flight, seed0);
    $finish;
  end
endmodule
