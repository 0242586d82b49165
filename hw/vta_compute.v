// SPDX-License-Identifier: Apache-2.0
// Compute module (VTA-SPEC 4.5): LOAD UOP/ACC/ACC_8BIT, GEMM, ALU and FINISH.
// Owns the UOP and ACC SRAMs, reads INP/WGT, writes OUT. GEMM and ALU share
// one pipeline: S0 loop counters + UOP read, S1 index arithmetic + SRAM
// reads (ALU register mode reads the source first, so 2 cycles per uop),
// S2 products / ALU result, S3 adder tree + accumulate + ACC/OUT write.
// Read-after-write hazards between micro-ops stall S1 (sequential semantics).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
module vta_compute #(
    parameter AddrWidth = 64,
    parameter BeatWidth = 32
) (
    input  wire                            clk_i,
    input  wire                            rst_i,
    // run control (docs/rtl.md, FINISH): take instructions and tokens only while
    // run_i; flush_i (a run's start) drops an instruction still waiting for tokens
    input  wire                            run_i,
    input  wire                            flush_i,
    // instruction queue
    input  wire                            insn_valid_i,
    input  wire [127:0]                    insn_i,
    output wire                            insn_pop_o,
    // tokens
    input  wire                            l2g_avail_i,
    input  wire                            s2g_avail_i,
    output wire                            l2g_pop_o,
    output wire                            s2g_pop_o,
    output wire                            g2l_push_o,
    output wire                            g2s_push_o,
    // base registers
    input  wire [AddrWidth-1:0]            uop_base_i,
    input  wire [AddrWidth-1:0]            acc_base_i,
    // INP / WGT read ports
    output wire                            inp_rd_en_o,
    output wire [`VTA_LOG_INP_BUFF_DEPTH-1:0] inp_rd_addr_o,
    input  wire [`VTA_INP_MATRIX_WIDTH-1:0] inp_rd_data_i,
    output wire                            wgt_rd_en_o,
    output wire [`VTA_LOG_WGT_BUFF_DEPTH-1:0] wgt_rd_addr_o,
    input  wire [`VTA_WGT_MATRIX_WIDTH-1:0] wgt_rd_data_i,
    // OUT write port
    output wire                            out_wr_en_o,
    output wire [`VTA_LOG_OUT_BUFF_DEPTH-1:0] out_wr_addr_o,
    output wire [`VTA_OUT_MATRIX_WIDTH-1:0] out_wr_data_o,
    // DMA read client
    output wire                            dma_req_valid_o,
    output wire [AddrWidth-1:0]            dma_req_addr_o,
    output wire [BeatWidth-1:0]            dma_req_beats_o,
    input  wire                            dma_req_ready_i,
    input  wire                            dma_valid_i,
    output wire                            dma_ready_o,
    input  wire [`VTA_BUS_WIDTH-1:0]       dma_data_i,
    input  wire                            dma_err_i,
    // status
    output reg                             finish_o,      // pulse: FINISH executed
    output reg                             err_illegal_o, // pulse
    output reg                             err_range_o,   // pulse
    output wire                            err_dram_o,    // pulse
    output wire                            busy_gemm_o,
    output wire                            busy_alu_o,
    output wire                            busy_o,
    output wire                            tokwait_o,
    output wire                            gemm_uop_o,    // pulse per non-reset GEMM uop
    output wire                            reset_uop_o,   // pulse per reset GEMM uop
    output wire                            alu_uop_o,     // pulse per ALU uop
    output wire                            progress_o,
    output wire                            elem_o,        // DRAM element written to an SRAM (pulse)
    output wire [2:0]                      elem_type_o    // its memory type
);
  // ---------------------------------------------------------------- sizes
  localparam LogUop = `VTA_LOG_UOP_BUFF_DEPTH;
  localparam LogAcc = `VTA_LOG_ACC_BUFF_DEPTH;
  localparam LogInp = `VTA_LOG_INP_BUFF_DEPTH;
  localparam LogWgt = `VTA_LOG_WGT_BUFF_DEPTH;
  localparam Batch  = `VTA_BATCH;
  localparam BlkIn  = `VTA_BLOCK_IN;
  localparam BlkOut = `VTA_BLOCK_OUT;
  localparam Lanes  = Batch * BlkOut;
  localparam AccW   = `VTA_ACC_WIDTH;
  localparam InpW   = `VTA_INP_WIDTH;
  localparam WgtW   = `VTA_WGT_WIDTH;
  localparam OutW   = `VTA_OUT_WIDTH;
  localparam AccBits = `VTA_ACC_MATRIX_WIDTH;
  localparam ProdW  = InpW + WgtW;
  localparam PackW  = WgtW + ProdW + 1;  // packed weight operand (see mul1)
  localparam PairW  = PackW + InpW;      // packed product
  localparam SlotW  = (PairW + 31) / 32 * 32;  // its storage, word aligned (fast simulation)

  function integer clog2i;
    input integer v;
    integer r;
    begin
      r = 0;
      while ((1 << r) < v) r = r + 1;
      clog2i = r;
    end
  endfunction
  localparam integer LogAccEI = clog2i(`VTA_ACC_ELEM_BYTES);
  localparam [3:0] LogAccE = LogAccEI[3:0];
  localparam integer LogAcc8EI = clog2i(`VTA_ACC8_ELEM_BYTES);
  localparam [3:0] LogAcc8E = LogAcc8EI[3:0];

  // ---------------------------------------------------------------- instruction
  localparam [2:0] CIdle = 3'd0, CTok = 3'd1, CLoadStart = 3'd2, CLoadWait = 3'd3,
                   CRun = 3'd4, CPush = 3'd5;
  reg [2:0]   state_q;
  reg [127:0] insn_q;

  wire [2:0] op       = insn_q[`VTA_GEMM_OPCODE_LSB +: `VTA_GEMM_OPCODE_WIDTH];
  wire       pop_prev = insn_q[`VTA_GEMM_POP_PREV_LSB];
  wire       pop_next = insn_q[`VTA_GEMM_POP_NEXT_LSB];
  wire       push_prev = insn_q[`VTA_GEMM_PUSH_PREV_LSB];
  wire       push_next = insn_q[`VTA_GEMM_PUSH_NEXT_LSB];
  wire [2:0] mem_type = insn_q[`VTA_MEM_MEMORY_TYPE_LSB +: `VTA_MEM_MEMORY_TYPE_WIDTH];
  wire [15:0] x_size  = insn_q[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
  wire       g_reset  = insn_q[`VTA_GEMM_RESET_LSB];
  wire [`VTA_GEMM_UOP_BGN_WIDTH-1:0] uop_bgn = insn_q[`VTA_GEMM_UOP_BGN_LSB +: `VTA_GEMM_UOP_BGN_WIDTH];
  wire [`VTA_GEMM_UOP_END_WIDTH-1:0] uop_end = insn_q[`VTA_GEMM_UOP_END_LSB +: `VTA_GEMM_UOP_END_WIDTH];
  wire [`VTA_GEMM_ITER_OUT_WIDTH-1:0] iter_out = insn_q[`VTA_GEMM_ITER_OUT_LSB +: `VTA_GEMM_ITER_OUT_WIDTH];
  wire [`VTA_GEMM_ITER_IN_WIDTH-1:0]  iter_in  = insn_q[`VTA_GEMM_ITER_IN_LSB +: `VTA_GEMM_ITER_IN_WIDTH];
  wire [31:0] fd_out = {{(32-`VTA_GEMM_DST_FACTOR_OUT_WIDTH){1'b0}}, insn_q[`VTA_GEMM_DST_FACTOR_OUT_LSB +: `VTA_GEMM_DST_FACTOR_OUT_WIDTH]};
  wire [31:0] fd_in  = {{(32-`VTA_GEMM_DST_FACTOR_IN_WIDTH){1'b0}},  insn_q[`VTA_GEMM_DST_FACTOR_IN_LSB +: `VTA_GEMM_DST_FACTOR_IN_WIDTH]};
  // GEMM and ALU place the source factors at the same LSBs but with different widths
  wire [31:0] fs_out = (op == `VTA_OPCODE_ALU) ?
      {{(32-`VTA_ALU_SRC_FACTOR_OUT_WIDTH){1'b0}}, insn_q[`VTA_ALU_SRC_FACTOR_OUT_LSB +: `VTA_ALU_SRC_FACTOR_OUT_WIDTH]} :
      {{(32-`VTA_GEMM_SRC_FACTOR_OUT_WIDTH){1'b0}}, insn_q[`VTA_GEMM_SRC_FACTOR_OUT_LSB +: `VTA_GEMM_SRC_FACTOR_OUT_WIDTH]};
  wire [31:0] fs_in = (op == `VTA_OPCODE_ALU) ?
      {{(32-`VTA_ALU_SRC_FACTOR_IN_WIDTH){1'b0}}, insn_q[`VTA_ALU_SRC_FACTOR_IN_LSB +: `VTA_ALU_SRC_FACTOR_IN_WIDTH]} :
      {{(32-`VTA_GEMM_SRC_FACTOR_IN_WIDTH){1'b0}}, insn_q[`VTA_GEMM_SRC_FACTOR_IN_LSB +: `VTA_GEMM_SRC_FACTOR_IN_WIDTH]};
  wire [31:0] fw_out = {{(32-`VTA_GEMM_WGT_FACTOR_OUT_WIDTH){1'b0}}, insn_q[`VTA_GEMM_WGT_FACTOR_OUT_LSB +: `VTA_GEMM_WGT_FACTOR_OUT_WIDTH]};
  wire [31:0] fw_in  = {{(32-`VTA_GEMM_WGT_FACTOR_IN_WIDTH){1'b0}},  insn_q[`VTA_GEMM_WGT_FACTOR_IN_LSB +: `VTA_GEMM_WGT_FACTOR_IN_WIDTH]};
  wire [2:0]  alu_op  = insn_q[`VTA_ALU_ALU_OPCODE_LSB +: `VTA_ALU_ALU_OPCODE_WIDTH];
  wire        use_imm = insn_q[`VTA_ALU_USE_IMM_LSB];
  wire [15:0] imm     = insn_q[`VTA_ALU_IMM_LSB +: `VTA_ALU_IMM_WIDTH];

  wire is_load = (op == `VTA_OPCODE_LOAD);
  wire is_gemm = (op == `VTA_OPCODE_GEMM);
  wire is_alu  = (op == `VTA_OPCODE_ALU);
  wire is_fin  = (op == `VTA_OPCODE_FINISH);
  wire load_ok = (mem_type == `VTA_MEM_ID_UOP) || (mem_type == `VTA_MEM_ID_ACC) ||
                 (mem_type == `VTA_MEM_ID_ACC_8BIT);
  wire zero_iter = (iter_out == 0) || (iter_in == 0) ||
                   ({1'b0, uop_end} <= {2'b0, uop_bgn});

  wire tok_ready = run_i && !flush_i && (!pop_prev || l2g_avail_i) && (!pop_next || s2g_avail_i);
  assign insn_pop_o = (state_q == CIdle) && insn_valid_i && run_i;
  assign l2g_pop_o  = (state_q == CTok) && tok_ready && pop_prev;
  assign s2g_pop_o  = (state_q == CTok) && tok_ready && pop_next;
  assign g2l_push_o = (state_q == CPush) && push_prev;
  assign g2s_push_o = (state_q == CPush) && push_next;
  assign tokwait_o  = (state_q == CTok) && !tok_ready;
  assign busy_o     = (state_q != CIdle);

  // ---------------------------------------------------------------- loads
  wire                  l2d_busy, l2d_err_range, l2d_wr_en;
  wire [31:0]           l2d_wr_idx;
  wire [AccBits-1:0]    l2d_wr_data;
  wire                  l2d_start = (state_q == CLoadStart);
  reg  [AddrWidth-1:0]  l2d_base;
  reg  [3:0]            l2d_log_e;
  reg  [31:0]           l2d_depth;
  always @* begin
    l2d_base  = acc_base_i;
    l2d_log_e = LogAccE;
    l2d_depth = 32'd1 << LogAcc;
    if (mem_type == `VTA_MEM_ID_UOP) begin
      l2d_base  = uop_base_i;
      l2d_log_e = 4'd2;
      l2d_depth = 32'd1 << LogUop;
    end else if (mem_type == `VTA_MEM_ID_ACC_8BIT) begin
      l2d_log_e = LogAcc8E;
    end
  end

  vta_load2d #(.DataBits(AccBits), .AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_load2d (
      .clk_i           (clk_i),
      .rst_i           (rst_i),
      .start_i         (l2d_start),
      .insn_i          (insn_q),
      .base_i          (l2d_base),
      .log_elem_i      (l2d_log_e),
      .depth_i         (l2d_depth),
      .busy_o          (l2d_busy),
      .err_range_o     (l2d_err_range),
      .err_dram_o      (err_dram_o),
      .wr_en_o         (l2d_wr_en),
      .elem_o          (elem_o),
      .wr_idx_o        (l2d_wr_idx),
      .wr_data_o       (l2d_wr_data),
      .dma_req_valid_o (dma_req_valid_o),
      .dma_req_addr_o  (dma_req_addr_o),
      .dma_req_beats_o (dma_req_beats_o),
      .dma_req_ready_i (dma_req_ready_i),
      .dma_valid_i     (dma_valid_i),
      .dma_ready_o     (dma_ready_o),
      .dma_data_i      (dma_data_i),
      .dma_err_i       (dma_err_i)
  );

  // ACC image of a loaded element: ACC as is, ACC_8BIT sign-extended
  reg [AccBits-1:0] load_acc;
  integer li;
  always @* begin
    load_acc = l2d_wr_data;
    if (mem_type == `VTA_MEM_ID_ACC_8BIT)
      for (li = 0; li < Lanes; li = li + 1)
        load_acc[li*AccW +: AccW] = {{(AccW-8){l2d_wr_data[li*8+7]}}, l2d_wr_data[li*8 +: 8]};
  end
  wire load_uop_wr = l2d_wr_en && (mem_type == `VTA_MEM_ID_UOP);
  wire load_acc_wr = l2d_wr_en && (mem_type != `VTA_MEM_ID_UOP);

  // ---------------------------------------------------------------- UOP / ACC SRAMs
  wire              uop_rd_en;
  wire [LogUop-1:0] uop_rd_addr;
  wire [31:0]       uop_rd_data;
  vta_sram #(.Width(32), .LogDepth(LogUop)) u_uop (
      .clk_i(clk_i), .wr_en_i(load_uop_wr), .wr_addr_i(l2d_wr_idx[LogUop-1:0]),
      .wr_data_i(l2d_wr_data[31:0]), .rd_en_i(uop_rd_en), .rd_addr_i(uop_rd_addr),
      .rd_data_o(uop_rd_data));

  reg               acc_rd_en;
  reg  [LogAcc-1:0] acc_rd_addr;
  wire [AccBits-1:0] acc_rd_data;
  wire              acc_wr_en;
  wire [LogAcc-1:0] acc_wr_addr;
  wire [AccBits-1:0] acc_wr_data;
  vta_sram #(.Width(AccBits), .LogDepth(LogAcc)) u_acc (
      .clk_i(clk_i), .wr_en_i(acc_wr_en), .wr_addr_i(acc_wr_addr), .wr_data_i(acc_wr_data),
      .rd_en_i(acc_rd_en), .rd_addr_i(acc_rd_addr), .rd_data_o(acc_rd_data));

  // ---------------------------------------------------------------- S0: loop counters
  reg        gen_q;
  reg [`VTA_GEMM_UOP_END_WIDTH-1:0] u_q;
  reg [`VTA_GEMM_ITER_IN_WIDTH-1:0] i_q;
  reg [`VTA_GEMM_ITER_OUT_WIDTH-1:0] o_q;
  reg [31:0] od_q, os_q, ow_q;   // outer offsets
  reg [31:0] id_q, is_q, iw_q;   // current (outer + inner) offsets
  wire       stall;
  wire       s0_issue = gen_q && !stall;
  assign uop_rd_en   = s0_issue;
  assign uop_rd_addr = u_q[LogUop-1:0];

  // ---------------------------------------------------------------- S1: indices, reads
  reg        s1_valid_q, s1_phase_q;
  reg [31:0] s1_od_q, s1_os_q, s1_ow_q;
  wire [31:0] u_dst = {{(32-`VTA_UOP_DST_IDX_WIDTH){1'b0}}, uop_rd_data[`VTA_UOP_DST_IDX_LSB +: `VTA_UOP_DST_IDX_WIDTH]};
  wire [31:0] u_src = {{(32-`VTA_UOP_SRC_IDX_WIDTH){1'b0}}, uop_rd_data[`VTA_UOP_SRC_IDX_LSB +: `VTA_UOP_SRC_IDX_WIDTH]};
  wire [31:0] u_wgt = {{(32-`VTA_UOP_WGT_IDX_WIDTH){1'b0}}, uop_rd_data[`VTA_UOP_WGT_IDX_LSB +: `VTA_UOP_WGT_IDX_WIDTH]};
  wire [31:0] a_full = u_dst + s1_od_q;
  wire [31:0] s_full = u_src + s1_os_q;
  wire [31:0] w_full = u_wgt + s1_ow_q;
  wire [LogAcc-1:0] a_idx = a_full[LogAcc-1:0];
  wire [LogAcc-1:0] s_acc_idx = s_full[LogAcc-1:0];

  reg              s2_valid_q, s3_valid_q;
  reg [LogAcc-1:0] s2_a_q, s3_a_q;
  wire gemm_rst  = is_gemm && g_reset;
  wire alu_reg   = is_alu && !use_imm;
  wire need_a    = !gemm_rst;
  wire haz_a     = (s2_valid_q && s2_a_q == a_idx) || (s3_valid_q && s3_a_q == a_idx);
  wire haz_s     = (s2_valid_q && s2_a_q == s_acc_idx) || (s3_valid_q && s3_a_q == s_acc_idx);
  wire s1_phase0 = s1_valid_q && alu_reg && !s1_phase_q;
  wire s1_adv    = s1_valid_q && !s1_phase0 && !(need_a && haz_a);
  assign stall   = s1_valid_q && !s1_adv;

  wire range_bad = is_alu ? (a_full >= (32'd1 << LogAcc) || s_full >= (32'd1 << LogAcc)) :
                   gemm_rst ? (a_full >= (32'd1 << LogAcc)) :
                   (a_full >= (32'd1 << LogAcc) || s_full >= (32'd1 << LogInp) ||
                    w_full >= (32'd1 << LogWgt));

  always @* begin
    acc_rd_en   = 1'b0;
    acc_rd_addr = a_idx;
    if (s1_phase0 && !haz_s) begin
      acc_rd_en   = 1'b1;
      acc_rd_addr = s_acc_idx;
    end else if (s1_adv && need_a) begin
      acc_rd_en = 1'b1;
    end
  end
  assign inp_rd_en_o   = s1_adv && is_gemm && !g_reset;
  assign inp_rd_addr_o = s_full[LogInp-1:0];
  assign wgt_rd_en_o   = s1_adv && is_gemm && !g_reset;
  assign wgt_rd_addr_o = w_full[LogWgt-1:0];

  assign gemm_uop_o  = s1_adv && is_gemm && !g_reset;
  assign reset_uop_o = s1_adv && gemm_rst;
  assign alu_uop_o   = s1_adv && is_alu;
  assign busy_gemm_o = (state_q == CRun) && is_gemm;
  assign busy_alu_o  = (state_q == CRun) && is_alu;

  // ---------------------------------------------------------------- S2: products / ALU
  reg [1:0]         s2_kind_q;   // 0 GEMM accumulate, 1 reset, 2 ALU
  reg [AccBits-1:0] s2_b_q;      // ALU register operand
  reg [1:0]         s3_kind_q;
  reg [AccBits-1:0] s3_val_q;    // GEMM: old ACC; ALU/reset: result
  wire              s2_gemm = s2_valid_q && (s2_kind_q == 2'd0);

  // GEMM products, two per multiplier. The products x*w0 and x*w1 of one input
  // element with the weights of two adjacent output lanes (2j, 2j+1) come from
  // one (WgtW+ProdW+1) x InpW signed multiply, x * (w1 * 2^ProdW + w0): 25 x 8
  // at int8, one DSP48E1 (25x18) or DSP48E2 (27x18). The low ProdW bits are
  // x*w0 (it fits ProdW signed bits); the upper field is x*w1 minus the borrow
  // of a negative low product, so p1 = P[2*ProdW-1:ProdW] + P[ProdW-1]
  // (docs/rtl.md). The packed products are registered at the end of S2 (the
  // DSP P register) and split and summed in S3. An odd last lane gets w1 = 0.
  // One packed product x * (w1 * 2^16 + w0) (see the header), sign-extended to a
  // word-aligned slot. Narrow arguments: the simulator evaluates it on machine words.
  function [SlotW-1:0] mul1;
    input [InpW-1:0] xv;
    input [WgtW-1:0] w0v;
    input [WgtW-1:0] w1v;
    reg signed [InpW-1:0]  x;
    reg signed [PackW-1:0] wp;
    reg signed [PairW-1:0] p;
    begin
      x    = xv;
      wp   = {w1v[WgtW-1], w1v, {ProdW{1'b0}}} + {{(PackW-WgtW){w0v[WgtW-1]}}, w0v};
      p    = x * wp;
      mul1 = {{(SlotW-PairW){p[PairW-1]}}, p};
    end
  endfunction

  localparam NPairs = (BlkOut + 1) / 2;  // lane pairs per batch row
  localparam RowInp = BlkIn * InpW;
  localparam RowWgt = BlkIn * WgtW;
  wire [Batch*NPairs*2*AccW-1:0] dots;
  genvar gb, gj;
  generate
    for (gb = 0; gb < Batch; gb = gb + 1) begin : gen_b
      for (gj = 0; gj < NPairs; gj = gj + 1) begin : gen_pair
        wire [RowWgt-1:0] w0r = wgt_rd_data_i[(2*gj)*RowWgt +: RowWgt];
        wire [RowWgt-1:0] w1r;
        if (2*gj + 1 < BlkOut) begin : gen_w1
          assign w1r = wgt_rd_data_i[(2*gj+1)*RowWgt +: RowWgt];
        end else begin : gen_w1_zero
          assign w1r = {RowWgt{1'b0}};
        end
        // packed products (DSP P registers), written slot by slot only for GEMM
        // micro-ops: no wide temporaries (simulation speed, docs/rtl.md)
        reg [BlkIn*SlotW-1:0] m_q;
        integer mk;
        always @(posedge clk_i) begin
          if (s2_gemm)
            for (mk = 0; mk < BlkIn; mk = mk + 1)
              m_q[mk*SlotW +: SlotW] <= mul1(inp_rd_data_i[gb*RowInp + mk*InpW +: InpW],
                                             w0r[mk*WgtW +: WgtW], w1r[mk*WgtW +: WgtW]);
        end
        // the two dot products {lane 2j+1, lane 2j}: split each packed product
        // (x*w0 = P[15:0], x*w1 = P[31:16] + P[15]) and sum
        reg [AccW-1:0]  ds0, ds1;
        reg [ProdW-1:0] dp0, dp1;
        integer dk;
        always @* begin
          ds0 = {AccW{1'b0}};
          ds1 = {AccW{1'b0}};
          for (dk = 0; dk < BlkIn; dk = dk + 1) begin
            dp0 = m_q[dk*SlotW +: ProdW];
            dp1 = m_q[dk*SlotW + ProdW +: ProdW] + {{(ProdW-1){1'b0}}, m_q[dk*SlotW + ProdW-1]};
            ds0 = ds0 + {{(AccW-ProdW){dp0[ProdW-1]}}, dp0};
            ds1 = ds1 + {{(AccW-ProdW){dp1[ProdW-1]}}, dp1};
          end
        end
        assign dots[(gb*NPairs + gj)*2*AccW +: 2*AccW] = {ds1, ds0};
      end
    end
  endgenerate

  // ALU on every lane of a row (reset GEMM micro-ops are handled by the caller)
  function [AccBits-1:0] alu_row;
    input [AccBits-1:0] a;
    input [AccBits-1:0] b;
    input               imm_mode;
    input [15:0]        immv;
    input [2:0]         opc;
    integer ai;
    reg signed [AccW-1:0] la, lb, lr;
    reg [AccW-1:0] nb;
    begin
      alu_row = {AccBits{1'b0}};
      for (ai = 0; ai < Lanes; ai = ai + 1) begin
        la = a[ai*AccW +: AccW];
        lb = imm_mode ? {{(AccW-16){immv[15]}}, immv} : b[ai*AccW +: AccW];
        nb = -lb;
        case (opc)
          3'd0: lr = (la < lb) ? la : lb;
          3'd1: lr = (la < lb) ? lb : la;
          3'd2: lr = la + lb;
          3'd3: lr = lb[AccW-1] ? (la << nb[4:0]) : (la >>> lb[4:0]);
          default: lr = la * lb;
        endcase
        alu_row[ai*AccW +: AccW] = lr;
      end
    end
  endfunction

  // ---------------------------------------------------------------- S3: accumulate, write
  reg [AccBits-1:0] s3_res;
  integer ri;
  always @* begin
    for (ri = 0; ri < Lanes; ri = ri + 1)
      s3_res[ri*AccW +: AccW] = (s3_kind_q == 2'd0) ?
          s3_val_q[ri*AccW +: AccW] +
              dots[((ri / BlkOut * NPairs + ri % BlkOut / 2) * 2 + ri % 2) * AccW +: AccW] :
          s3_val_q[ri*AccW +: AccW];
  end

  reg [`VTA_OUT_MATRIX_WIDTH-1:0] out_from_acc, out_from_load;
  integer oi;
  always @* begin
    for (oi = 0; oi < Lanes; oi = oi + 1) begin
      out_from_acc[oi*OutW +: OutW]  = s3_res[oi*AccW +: OutW];
      out_from_load[oi*OutW +: OutW] = load_acc[oi*AccW +: OutW];
    end
  end

  assign acc_wr_en     = s3_valid_q || load_acc_wr;
  assign acc_wr_addr   = s3_valid_q ? s3_a_q : l2d_wr_idx[LogAcc-1:0];
  assign acc_wr_data   = s3_valid_q ? s3_res : load_acc;
  assign out_wr_en_o   = acc_wr_en;
  assign out_wr_addr_o = acc_wr_addr;
  assign out_wr_data_o = s3_valid_q ? out_from_acc : out_from_load;

  wire pipe_empty = !gen_q && !s1_valid_q && !s2_valid_q && !s3_valid_q;
  assign progress_o = s0_issue || s1_adv || acc_wr_en || (state_q == CPush) || insn_pop_o ||
                      (dma_valid_i && dma_ready_o);

  // ---------------------------------------------------------------- sequencing
  wire [31:0] fd_out_n = od_q + fd_out, fs_out_n = os_q + fs_out, fw_out_n = ow_q + fw_out;

  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q       <= CIdle;
      gen_q         <= 1'b0;
      s1_valid_q    <= 1'b0;
      s1_phase_q    <= 1'b0;
      s2_valid_q    <= 1'b0;
      s3_valid_q    <= 1'b0;
      finish_o      <= 1'b0;
      err_illegal_o <= 1'b0;
      err_range_o   <= 1'b0;
    end else begin
      finish_o      <= 1'b0;
      err_illegal_o <= 1'b0;
      err_range_o   <= l2d_err_range;

      case (state_q)
        CIdle: if (insn_valid_i && run_i) begin
          insn_q  <= insn_i;
          state_q <= CTok;
        end
        CTok: if (flush_i) state_q <= CIdle;
        else if (tok_ready) begin
          state_q <= CPush;
          if (is_load) begin
            if (x_size != 0) begin
              if (load_ok) state_q <= CLoadStart;
              else err_illegal_o <= 1'b1;
            end
          end else if (is_gemm || is_alu) begin
            if (is_alu && alu_op > `VTA_ALU_OPCODE_MUL) begin
              err_illegal_o <= 1'b1;
            end else if (!zero_iter) begin
              if ({1'b0, uop_end} > (15'd1 << LogUop)) err_range_o <= 1'b1;
              state_q <= CRun;
              gen_q   <= 1'b1;
              u_q     <= {1'b0, uop_bgn};
              i_q     <= 0;
              o_q     <= 0;
              od_q <= 0; os_q <= 0; ow_q <= 0;
              id_q <= 0; is_q <= 0; iw_q <= 0;
            end
          end else if (is_fin) begin
            finish_o <= 1'b1;
          end else begin
            err_illegal_o <= 1'b1;  // opcode 5-7: tokens only
          end
        end
        CLoadStart: state_q <= CLoadWait;
        CLoadWait: if (!l2d_busy) state_q <= CPush;
        CRun: if (pipe_empty) state_q <= CPush;
        CPush: state_q <= CIdle;
        default: state_q <= CIdle;
      endcase

      // S0
      if (s0_issue) begin
        if (u_q + 1'b1 < uop_end) begin
          u_q <= u_q + 1'b1;
        end else begin
          u_q <= {1'b0, uop_bgn};
          if (i_q + 1'b1 < iter_in) begin
            i_q  <= i_q + 1'b1;
            id_q <= id_q + fd_in;
            is_q <= is_q + fs_in;
            iw_q <= iw_q + fw_in;
          end else begin
            i_q <= 0;
            if (o_q + 1'b1 < iter_out) begin
              o_q  <= o_q + 1'b1;
              od_q <= fd_out_n; os_q <= fs_out_n; ow_q <= fw_out_n;
              id_q <= fd_out_n; is_q <= fs_out_n; iw_q <= fw_out_n;
            end else begin
              gen_q <= 1'b0;
            end
          end
        end
      end

      // S1
      if (s0_issue) begin
        s1_valid_q <= 1'b1;
        s1_od_q    <= id_q;
        s1_os_q    <= is_q;
        s1_ow_q    <= iw_q;
      end else if (s1_adv) begin
        s1_valid_q <= 1'b0;
      end
      if (s1_phase0 && !haz_s) s1_phase_q <= 1'b1;
      if (s1_adv) begin
        s1_phase_q <= 1'b0;
        s2_b_q     <= acc_rd_data;  // ALU register mode: ACC[src] read in phase 0
        if (range_bad) err_range_o <= 1'b1;
      end

      // S2
      s2_valid_q <= s1_adv;
      s2_a_q     <= a_idx;
      s2_kind_q  <= is_alu ? 2'd2 : (g_reset ? 2'd1 : 2'd0);

      // S3
      s3_valid_q <= s2_valid_q;
      s3_a_q     <= s2_a_q;
      s3_kind_q  <= s2_kind_q;
      if (s2_valid_q) begin
        if (s2_kind_q == 2'd0) s3_val_q <= acc_rd_data;
        else if (s2_kind_q == 2'd1) s3_val_q <= {AccBits{1'b0}};
        else s3_val_q <= alu_row(acc_rd_data, s2_b_q, use_imm, imm, alu_op);
      end
    end
  end
  assign elem_type_o = mem_type;
endmodule
`resetall
