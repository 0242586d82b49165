// SPDX-License-Identifier: Apache-2.0
// Compute module (VTA-SPEC 4.5): LOAD UOP/ACC/ACC_8BIT, GEMM, ALU and FINISH.
// Owns the UOP and ACC SRAMs, reads INP/WGT, writes OUT. A GEMM runs in the
// GEMM unit, the rest in the sequencer and the ALU pipeline; neither stalls
// behind its read stage (docs/rtl.md, Compute pipeline). An ALU instruction
// may start while the GEMM before it still runs, once the GEMM's ACC footprint
// is known and no index of it is out of range; the ALU then waits for rows of
// that footprint and for ACC banks the GEMM uses, so the results are those of
// running the instructions one after the other. k is the cycle after the
// micro-op was issued:
//   k=0  loop counters, UOP read
//   k=1  indices (offset + micro-op field), range and bank checks
//   k=2  INP/WGT reads (GEMM) or the ACC reads (ALU: dst and src)
//   k=3..6 GEMM only: dot-product array (vta_gemm_array); ACC read at k=5
//   PA   accumulate (GEMM) or ALU, k=7 for GEMM and k=4 for ALU; the result
//        goes to the history register H1 and is written to ACC/OUT one cycle later
// Read-after-write hazards are resolved by forwarding: the ACC operands are
// read two cycles before PA, and every row written since (the last three
// results, H1..H3) is taken from the history instead of the SRAM. The only
// waits are in front of the ALU's read stage: a register-mode micro-op whose
// dst and src lie in the same ACC bank reads them in two cycles, and a MUL
// (three cycles, DSP-pipelined) makes the next micro-op wait for its result.
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
    // OUT write port of the ALU (a different OUT bank, row % 4, than port G when both write)
    output wire                            out_alu_wr_en_o,
    output wire [`VTA_LOG_OUT_BUFF_DEPTH-1:0] out_alu_wr_addr_o,
    output wire [`VTA_OUT_MATRIX_WIDTH-1:0] out_alu_wr_data_o,
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
    output reg                             gemm_uop_o,    // pulse per non-reset GEMM uop
    output reg                             reset_uop_o,   // pulse per reset GEMM uop
    output reg                             alu_uop_o,     // pulse per ALU uop
    output reg                             progress_o,
    output wire                            elem_o,        // DRAM element written to an SRAM (pulse)
    output wire [2:0]                      elem_type_o    // its memory type
);
  // ---------------------------------------------------------------- sizes
  localparam LogUop = `VTA_LOG_UOP_BUFF_DEPTH;
  localparam LogAcc = `VTA_LOG_ACC_BUFF_DEPTH;
  localparam LogInp = `VTA_LOG_INP_BUFF_DEPTH;
  localparam LogWgt = `VTA_LOG_WGT_BUFF_DEPTH;
  localparam Batch  = `VTA_BATCH;
  localparam BlkOut = `VTA_BLOCK_OUT;
  localparam Lanes  = Batch * BlkOut;
  localparam AccW   = `VTA_ACC_WIDTH;
  localparam OutW   = `VTA_OUT_WIDTH;
  localparam AccBits = `VTA_ACC_MATRIX_WIDTH;

  localparam integer LogAccEI = $clog2(`VTA_ACC_ELEM_BYTES);
  localparam [3:0] LogAccE = LogAccEI[3:0];
  localparam integer LogAcc8EI = $clog2(`VTA_ACC8_ELEM_BYTES);
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

  wire is_alu  = (op == `VTA_OPCODE_ALU);

  // What CTok does with the instruction (VTA-SPEC 4.5), decoded from the
  // queue's head while idle and loaded with insn_q, so that the start of a
  // GEMM or an ALU loop and the state after CTok depend on registers and the
  // tokens only (no opcode decode or loop-extent comparison in that cycle).
  wire [2:0]  nx_op   = insn_i[`VTA_GEMM_OPCODE_LSB +: `VTA_GEMM_OPCODE_WIDTH];
  wire [2:0]  nx_aop  = insn_i[`VTA_ALU_ALU_OPCODE_LSB +: `VTA_ALU_ALU_OPCODE_WIDTH];
  wire [2:0]  nx_mem  = insn_i[`VTA_MEM_MEMORY_TYPE_LSB +: `VTA_MEM_MEMORY_TYPE_WIDTH];
  wire [15:0] nx_xs   = insn_i[`VTA_MEM_X_SIZE_LSB +: `VTA_MEM_X_SIZE_WIDTH];
  wire [`VTA_GEMM_UOP_BGN_WIDTH-1:0]  nx_ubgn = insn_i[`VTA_GEMM_UOP_BGN_LSB +: `VTA_GEMM_UOP_BGN_WIDTH];
  wire [`VTA_GEMM_UOP_END_WIDTH-1:0]  nx_uend = insn_i[`VTA_GEMM_UOP_END_LSB +: `VTA_GEMM_UOP_END_WIDTH];
  wire [`VTA_GEMM_ITER_OUT_WIDTH-1:0] nx_io   = insn_i[`VTA_GEMM_ITER_OUT_LSB +: `VTA_GEMM_ITER_OUT_WIDTH];
  wire [`VTA_GEMM_ITER_IN_WIDTH-1:0]  nx_ii   = insn_i[`VTA_GEMM_ITER_IN_LSB +: `VTA_GEMM_ITER_IN_WIDTH];
  wire nx_load = (nx_op == `VTA_OPCODE_LOAD);
  wire nx_gemm = (nx_op == `VTA_OPCODE_GEMM);
  wire nx_alu  = (nx_op == `VTA_OPCODE_ALU);
  wire nx_fin  = (nx_op == `VTA_OPCODE_FINISH);
  wire nx_zero = (nx_io == 0) || (nx_ii == 0) || ({1'b0, nx_uend} <= {2'b0, nx_ubgn});
  wire nx_ld   = nx_load && (nx_xs != 0);  // a load that moves data
  wire nx_ldok = (nx_mem == `VTA_MEM_ID_UOP) || (nx_mem == `VTA_MEM_ID_ACC) ||
                 (nx_mem == `VTA_MEM_ID_ACC_8BIT);
  wire nx_aill = nx_alu && (nx_aop > `VTA_ALU_OPCODE_MUL);
  wire nx_loop = (nx_gemm || (nx_alu && !nx_aill)) && !nx_zero;  // micro-ops run
  reg [2:0] c_next_q;  // the state after CTok
  reg       c_ill_q, c_rng_q, c_fin_q;  // err_illegal_o / err_range_o / finish_o then
  reg       c_gemm_q, c_alu_q, c_isalu_q;  // the GEMM unit / ALU loop starts; an ALU instruction
  always @(posedge clk_i) begin
    if (state_q == CIdle) begin
      c_next_q  <= (nx_ld && nx_ldok) ? CLoadStart : !nx_loop ? CPush : nx_gemm ? CIdle : CRun;
      c_ill_q   <= (nx_ld && !nx_ldok) || nx_aill || !(nx_load || nx_gemm || nx_alu || nx_fin);
      c_rng_q   <= nx_loop && ({{(32-`VTA_GEMM_UOP_END_WIDTH){1'b0}}, nx_uend} > (32'd1 << LogUop));
      c_fin_q   <= nx_fin;
      c_gemm_q  <= nx_gemm && !nx_zero;
      c_alu_q   <= nx_alu && !nx_zero && !nx_aill;
      c_isalu_q <= nx_alu;
    end
  end

  wire ctok      = (state_q == CTok);
  reg  c_idle_q, c_tok_q;  // state_q == CIdle / CTok (below)
  wire tok_ready = run_i && !flush_i && (!pop_prev || l2g_avail_i) && (!pop_next || s2g_avail_i);
  assign l2g_pop_o  = c_tok_q && tok_ready && pop_prev;
  assign s2g_pop_o  = c_tok_q && tok_ready && pop_next;
  assign tokwait_o  = ctok && !tok_ready;

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

  // one load at a time (compute waits for busy_o): the overlap handshake is unused
  wire                  l2d_ready, l2d_done;
  wire [2:0]            l2d_wr_tag;
  wire                  unused_ok_l2d = ^{l2d_ready, l2d_done, l2d_wr_tag};
  vta_load2d #(.DataBits(AccBits), .AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_load2d (
      .clk_i           (clk_i),
      .rst_i           (rst_i),
      .start_i         (l2d_start),
      .insn_i          (insn_q),
      .base_i          (l2d_base),
      .log_elem_i      (l2d_log_e),
      .depth_i         (l2d_depth),
      .tag_i           (mem_type),
      .ready_o         (l2d_ready),
      .busy_o          (l2d_busy),
      .done_o          (l2d_done),
      .wr_tag_o        (l2d_wr_tag),
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

  wire load_uop_wr = l2d_wr_en && (mem_type == `VTA_MEM_ID_UOP);
  wire load_acc_wr = l2d_wr_en && (mem_type != `VTA_MEM_ID_UOP);
  // A loaded ACC element is written one cycle later from registers: its ACC
  // image (ACC as is, ACC_8BIT sign-extended) and its OUT image (low bytes),
  // formed only when an element arrives.
  function [AccBits-1:0] acc_image;
    input [AccBits-1:0] d;
    input               is8;
    integer li;
    begin
      acc_image = d;
      if (is8)
        for (li = 0; li < Lanes; li = li + 1)
          acc_image[li*AccW +: AccW] = {{(AccW-8){d[li*8+7]}}, d[li*8 +: 8]};
    end
  endfunction
  function [`VTA_OUT_MATRIX_WIDTH-1:0] out_image;
    input [AccBits-1:0] d;
    input               is8;
    integer li;
    begin
      for (li = 0; li < Lanes; li = li + 1)
        out_image[li*OutW +: OutW] = is8 ? d[li*8 +: OutW] : d[li*AccW +: OutW];
    end
  endfunction
  reg                 ld_v_q;
  reg [LogAcc-1:0]    ld_idx_q;
  reg [AccBits-1:0]   ld_acc_q;
  reg [`VTA_OUT_MATRIX_WIDTH-1:0] ld_out_q;
  always @(posedge clk_i) begin
    if (load_acc_wr) begin
      ld_idx_q <= l2d_wr_idx[LogAcc-1:0];
      ld_acc_q <= acc_image(l2d_wr_data, mem_type == `VTA_MEM_ID_ACC_8BIT);
      ld_out_q <= out_image(l2d_wr_data, mem_type == `VTA_MEM_ID_ACC_8BIT);
    end
  end

  // ---------------------------------------------------------------- UOP SRAM
  // Two copies written by the same loads: one read port for the ALU's and one
  // for the GEMM unit's loop, which run at once.
  wire              uop_rd_en, g_uop_rd_en;
  wire [LogUop-1:0] uop_rd_addr, g_uop_rd_addr;
  wire [31:0]       uop_rd_data, g_uop_rd_data;
  vta_sram #(.Width(32), .LogDepth(LogUop)) u_uop (
      .clk_i(clk_i), .wr_en_i(load_uop_wr), .wr_addr_i(l2d_wr_idx[LogUop-1:0]),
      .wr_data_i(l2d_wr_data[31:0]), .rd_en_i(uop_rd_en), .rd_addr_i(uop_rd_addr),
      .rd_data_o(uop_rd_data));
  vta_sram #(.Width(32), .LogDepth(LogUop)) u_uop_g (
      .clk_i(clk_i), .wr_en_i(load_uop_wr), .wr_addr_i(l2d_wr_idx[LogUop-1:0]),
      .wr_data_i(l2d_wr_data[31:0]), .rd_en_i(g_uop_rd_en), .rd_addr_i(g_uop_rd_addr),
      .rd_data_o(g_uop_rd_data));

  // ---------------------------------------------------------------- ACC SRAM: four banks
  // Row r lives in bank r % 4 at row r / 4. Each bank has its own read port and
  // its own write port (address and data per bank): the GEMM unit and the ALU
  // read and write different banks in the same cycle (the ALU waits when they
  // would not). The bank outputs are registered (read latency 2).
  localparam NBank  = 4;
  localparam LogRow = LogAcc - 2;
  wire [NBank*AccBits-1:0] bk_rd_data;
  // (the bank instances follow the lanes, at "ACC / OUT writes")

  // static per instruction of the ALU pipeline (it drains before the next one starts)
  wire alu_reg  = is_alu && !use_imm;
  wire alu_mul  = is_alu && (alu_op == `VTA_ALU_OPCODE_MUL);
  // the same as registers of small fanout for the k=2 control (set in CTok,
  // before the instruction runs)
  reg  ctl_reg_q, ctl_mul_q;

  // Index widths: dst LogAcc, src LogInp (GEMM) or LogAcc (ALU), wgt LogWgt. An
  // index is out of range when the offset has a bit at or above the depth, the
  // micro-op field has one, or the low-part sum carries there (the sums stay
  // far below 2^32, so this equals "offset + field >= depth").
  function hi_nz;  // any bit of v at or above position n
    input [31:0] v;
    input integer n;
    begin
      hi_nz = (v >> n) != 0;
    end
  endfunction

  // ================================================================ GEMM unit
  // Takes a GEMM from the instruction sequencer and runs it to its end and its
  // token pushes on its own pipeline (k=0 counters .. PA, history G1..G3), so
  // the sequencer can go on with ALU instructions meanwhile. Its footprint (the
  // ACC rows it reads and writes) is the interval [dst_min, dst_max +
  // (iter_out-1)*dst_factor_out + (iter_in-1)*dst_factor_in] of the micro-op
  // fields seen in its first pass over the micro-ops (the factors are unsigned);
  // g_safe_q says that interval is known and that no index of the GEMM (dst,
  // src, wgt, computed the same way) is out of range, so it raises no error.
  localparam [1:0] GIdle = 2'd0, GRun = 2'd1, GPush = 2'd2;
  reg [1:0]  g_st_q;
  reg        g_rst_q, g_pp_q, g_pn_q;  // reset micro-ops; push flags
  reg [`VTA_GEMM_ITER_IN_WIDTH-1:0] g_ilast_q;
  reg [`VTA_GEMM_ITER_OUT_WIDTH-1:0] g_olast_q;
  // the factors, for the footprint's products
  reg [`VTA_GEMM_DST_FACTOR_OUT_WIDTH-1:0] g_fdo_q;
  reg [`VTA_GEMM_DST_FACTOR_IN_WIDTH-1:0]  g_fdi_q;
  reg [`VTA_GEMM_SRC_FACTOR_OUT_WIDTH-1:0] g_fso_q;
  reg [`VTA_GEMM_SRC_FACTOR_IN_WIDTH-1:0]  g_fsi_q;
  reg [`VTA_GEMM_WGT_FACTOR_OUT_WIDTH-1:0] g_fwo_q;
  reg [`VTA_GEMM_WGT_FACTOR_IN_WIDTH-1:0]  g_fwi_q;
  wire       g_idle  = (g_st_q == GIdle);
  wire       g_start = ctok && tok_ready && g_idle && c_gemm_q;
  // the GEMM unit takes the instruction's fields in every cycle while idle (so
  // also in g_start's cycle, from the instruction register): only its state and
  // its loop's gen_o wait for g_start, and the copies' enable is a copy of
  // g_idle (g_ld, its ~250 loads kept off g_idle, which the ALU's conflict test reads)
  (* keep *) reg g_ld;
  // k=0 (never waits)
  wire       g_gen_q;
  wire [`VTA_GEMM_UOP_END_WIDTH-1:0] g_u_q, g_ulast_q;
  wire [`VTA_GEMM_ITER_IN_WIDTH-1:0] g_i_q;
  wire [`VTA_GEMM_ITER_OUT_WIDTH-1:0] g_o_q;
  wire [31:0] g_id_q, g_is_q, g_iw_q;
  vta_uoploop u_gloop (
      .clk_i(clk_i), .rst_i(rst_i), .start_i(g_start), .bgn_i(uop_bgn), .end_i(uop_end),
      .iter_out_i(iter_out), .iter_in_i(iter_in), .fd_out_i(fd_out), .fd_in_i(fd_in),
      .fs_out_i(fs_out), .fs_in_i(fs_in), .fw_out_i(fw_out), .fw_in_i(fw_in), .adv_i(g_gen_q),
      .gen_o(g_gen_q), .u_o(g_u_q), .u_last_o(g_ulast_q), .i_o(g_i_q), .o_o(g_o_q),
      .id_o(g_id_q), .is_o(g_is_q), .iw_o(g_iw_q));
  assign g_uop_rd_en   = g_gen_q;
  assign g_uop_rd_addr = g_u_q[LogUop-1:0];

  // k=1: indices (the first pass: outer and inner counters at 0)
  reg        g1_v, g1_first, g1_lastfirst;
  reg [LogAcc-1:0] g1_od;
  reg [LogInp-1:0] g1_os;
  reg [LogWgt-1:0] g1_ow;
  reg        g1_dhi, g1_shi, g1_whi;
  wire [31:0] gu_dst = {{(32-`VTA_UOP_DST_IDX_WIDTH){1'b0}}, g_uop_rd_data[`VTA_UOP_DST_IDX_LSB +: `VTA_UOP_DST_IDX_WIDTH]};
  wire [31:0] gu_src = {{(32-`VTA_UOP_SRC_IDX_WIDTH){1'b0}}, g_uop_rd_data[`VTA_UOP_SRC_IDX_LSB +: `VTA_UOP_SRC_IDX_WIDTH]};
  wire [31:0] gu_wgt = {{(32-`VTA_UOP_WGT_IDX_WIDTH){1'b0}}, g_uop_rd_data[`VTA_UOP_WGT_IDX_LSB +: `VTA_UOP_WGT_IDX_WIDTH]};
  wire unused_ok_g = &{1'b0, g_uop_rd_data};
  wire [LogAcc:0] ga_sum = {1'b0, gu_dst[LogAcc-1:0]} + {1'b0, g1_od};
  wire [LogInp:0] gs_sum = {1'b0, gu_src[LogInp-1:0]} + {1'b0, g1_os};
  wire [LogWgt:0] gw_sum = {1'b0, gu_wgt[LogWgt-1:0]} + {1'b0, g1_ow};
  wire ga_bad = g1_dhi || ga_sum[LogAcc] || hi_nz(gu_dst, LogAcc);
  wire gs_bad = g1_shi || gs_sum[LogInp] || hi_nz(gu_src, LogInp);
  wire gw_bad = g1_whi || gw_sum[LogWgt] || hi_nz(gu_wgt, LogWgt);
  wire g_idx_bad = g_rst_q ? ga_bad : (ga_bad || gs_bad || gw_bad);

  // footprint: field extremes of the first pass, loop extents times the factors
  reg [31:0] gf_dmin_q, gf_dmax_q, gf_smax_q, gf_wmax_q;
  reg        gf_done_q, g_safe_q;
  reg [31:0] gp_do_q, gp_di_q, gp_so_q, gp_si_q, gp_wo_q, gp_wi_q;
  reg [LogAcc-1:0] g_lo_q, g_hi_q;
  wire [33:0] gf_dhi = {2'b0, gf_dmax_q} + {2'b0, gp_do_q} + {2'b0, gp_di_q};
  wire [33:0] gf_shi = {2'b0, gf_smax_q} + {2'b0, gp_so_q} + {2'b0, gp_si_q};
  wire [33:0] gf_whi = {2'b0, gf_wmax_q} + {2'b0, gp_wo_q} + {2'b0, gp_wi_q};
  wire gf_ok = (gf_dhi < (34'd1 << LogAcc)) &&
               (g_rst_q || ((gf_shi < (34'd1 << LogInp)) && (gf_whi < (34'd1 << LogWgt))));

  // k=2: INP/WGT reads
  reg        g2_v, g2_bad;
  reg [LogAcc-1:0] g2_a;
  reg [LogInp-1:0] g2_s;
  reg [LogWgt-1:0] g2_w;
  assign inp_rd_en_o   = g2_v && !g_rst_q;
  assign inp_rd_addr_o = g2_s;
  assign wgt_rd_en_o   = g2_v && !g_rst_q;
  assign wgt_rd_addr_o = g2_w;

  // k=3..6: the dot-product array; ACC read of dst at k=5
  reg        g3_v, g4_v, g5_v, g6_v, g3_ge;
  reg [LogAcc-1:0] g3_a, g4_a, g5_a, g6_a;
  wire [Lanes*32-1:0] dots;
  vta_gemm_array u_array (
      .clk_i(clk_i), .rst_i(rst_i), .en_i(g3_ge),
      .inp_i(inp_rd_data_i), .wgt_i(wgt_rd_data_i), .dot_o(dots));
  wire g_rd = g5_v && !g_rst_q;  // reset micro-ops read nothing

  // PA: the forwarded ACC row + the dot product to G1, written one cycle later;
  // the rows written since the read at k=5 are exactly G1..G3 (the GEMM unit's
  // own results: the ALU writes no row of the GEMM's footprint while it runs)
  reg        gpa_v, gh1_v, gh2_v;
  reg [LogAcc-1:0] gpa_a, gh1_a, gh2_a;
  function [1:0] gfwd_sel;
    input [LogAcc-1:0] idx;
    begin
      if (gpa_v && gpa_a == idx) gfwd_sel = 2'd0;
      else if (gh1_v && gh1_a == idx) gfwd_sel = 2'd1;
      else if (gh2_v && gh2_a == idx) gfwd_sel = 2'd2;
      else gfwd_sel = 2'd3;
    end
  endfunction
  wire [1:0] g_sel = gfwd_sel(g6_a);
  wire g_pipe_empty = !g_gen_q && !g1_v && !g2_v && !g3_v && !g4_v && !g5_v && !g6_v &&
                      !gpa_v && !gh1_v;
  assign busy_gemm_o = (g_st_q == GRun);

  // Registers are read before they are written in the text (the reset comes
  // last): Verilator then updates them in place, without a shadow copy per clock.
  always @(posedge clk_i) begin
    if (gf_done_q && (g_st_q == GRun)) begin
      g_safe_q <= gf_ok;
      g_lo_q   <= gf_dmin_q[LogAcc-1:0];
      g_hi_q   <= gf_dhi[LogAcc-1:0];
    end
    // the footprint of the first pass (g1_v is 0 when a GEMM starts)
    if (g1_v && g1_first) begin
      if (gu_dst < gf_dmin_q) gf_dmin_q <= gu_dst;
      if (gu_dst > gf_dmax_q) gf_dmax_q <= gu_dst;
      if (gu_src > gf_smax_q) gf_smax_q <= gu_src;
      if (gu_wgt > gf_wmax_q) gf_wmax_q <= gu_wgt;
      if (g1_lastfirst) gf_done_q <= 1'b1;
    end
    if (g_st_q == GPush) g_safe_q <= 1'b0;
    case (g_st_q)
      GIdle: if (g_start) g_st_q <= GRun;
      GRun: if (g_pipe_empty) g_st_q <= GPush;
      default: g_st_q <= GIdle;  // GPush: one cycle
    endcase
    if (g_ld) begin
      g_rst_q <= g_reset;
      g_pp_q <= push_prev;
      g_pn_q <= push_next;
      g_ilast_q <= iter_in - 1'b1;
      g_olast_q <= iter_out - 1'b1;
      g_fdo_q <= fd_out[`VTA_GEMM_DST_FACTOR_OUT_WIDTH-1:0];
      g_fdi_q <= fd_in[`VTA_GEMM_DST_FACTOR_IN_WIDTH-1:0];
      g_fso_q <= fs_out[`VTA_GEMM_SRC_FACTOR_OUT_WIDTH-1:0];
      g_fsi_q <= fs_in[`VTA_GEMM_SRC_FACTOR_IN_WIDTH-1:0];
      g_fwo_q <= fw_out[`VTA_GEMM_WGT_FACTOR_OUT_WIDTH-1:0];
      g_fwi_q <= fw_in[`VTA_GEMM_WGT_FACTOR_IN_WIDTH-1:0];
      gf_dmin_q <= 32'hffffffff;
      gf_dmax_q <= 0; gf_smax_q <= 0; gf_wmax_q <= 0;
      gf_done_q <= 1'b0;
      g_safe_q <= 1'b0;
    end
    g_ld <= rst_i || (g_idle && !g_start) || (g_st_q != GIdle && g_st_q != GRun);  // (g_st_q == GIdle) next
    // PA and history (each stage before the one that feeds it)
    gh2_v <= gh1_v; gh2_a <= gh1_a;
    gh1_v <= gpa_v; gh1_a <= gpa_a;
    gpa_v <= g6_v; gpa_a <= g6_a;
    // k=3..6
    g6_v <= g5_v;  g6_a <= g5_a;
    g5_v <= g4_v;  g5_a <= g4_a;
    g4_v <= g3_v;  g4_a <= g3_a;
    g3_v <= g2_v;  g3_ge <= g2_v && !g_rst_q;  g3_a <= g2_a;
    // k=2
    g2_v <= g1_v;
    g2_a <= ga_sum[LogAcc-1:0];
    g2_s <= gs_sum[LogInp-1:0];
    g2_w <= gw_sum[LogWgt-1:0];
    g2_bad <= g1_v && g_idx_bad;
    // k=1
    g1_v <= g_gen_q;
    g1_first <= (g_i_q == 0) && (g_o_q == 0);
    g1_lastfirst <= (g_i_q == 0) && (g_o_q == 0) && (g_u_q == g_ulast_q);
    g1_od  <= g_id_q[LogAcc-1:0];
    g1_os  <= g_is_q[LogInp-1:0];
    g1_ow  <= g_iw_q[LogWgt-1:0];
    g1_dhi <= hi_nz(g_id_q, LogAcc);
    g1_shi <= hi_nz(g_is_q, LogInp);
    g1_whi <= hi_nz(g_iw_q, LogWgt);
    // the footprint (products registered, the sum and the checks a cycle later)
    gp_do_q <= g_olast_q * g_fdo_q;
    gp_di_q <= g_ilast_q * g_fdi_q;
    gp_so_q <= g_olast_q * g_fso_q;
    gp_si_q <= g_ilast_q * g_fsi_q;
    gp_wo_q <= g_olast_q * g_fwo_q;
    gp_wi_q <= g_ilast_q * g_fwi_q;
    if (rst_i) begin
      g_st_q <= GIdle;
      g1_v <= 1'b0; g2_v <= 1'b0; g3_v <= 1'b0; g3_ge <= 1'b0; g4_v <= 1'b0;
      g5_v <= 1'b0; g6_v <= 1'b0; gpa_v <= 1'b0; gh1_v <= 1'b0; gh2_v <= 1'b0;
      gf_done_q <= 1'b0; g_safe_q <= 1'b0;
      // (a reset, though none is needed, keeps the k=2..5 rows in flip-flops:
      // synthesis maps a plain delay chain to a shift-register LUT, whose
      // clock-to-out is about three times a flip-flop's; g4_a/g5_a start the
      // ALU's conflict checks and the ACC read address)
      g2_a <= 0; g3_a <= 0; g4_a <= 0; g5_a <= 0;
    end
  end

  // ================================================================ ALU pipeline
  // ---------------------------------------------------------------- k=0: loop counters
  wire       gen_q;
  wire [`VTA_GEMM_UOP_END_WIDTH-1:0] u_q, u_last_q;
  wire [`VTA_GEMM_ITER_IN_WIDTH-1:0] i_q;
  wire [`VTA_GEMM_ITER_OUT_WIDTH-1:0] o_q;
  wire [31:0] id_q, is_q, iw_q;  // current (outer + inner) offsets; wgt unused
  wire       hold;               // the micro-op at k=2 does not advance
  // Issue buffer: the loop's counters advance on registers only (a_adv), not
  // on the cycle's hold (k=2's conflict checks, late in the cycle, drove the
  // enables of every counter). A micro-op the loop generated in a cycle it was
  // not issued waits in ib_* while the loop moves on to the next one, which
  // it then holds: the micro-ops are issued in the same cycles as when the
  // loop advanced on the issue itself (ib_v set: the loop waits one cycle).
  reg        ib_v;
  reg [LogUop-1:0] ib_u;
  reg [LogAcc-1:0] ib_od, ib_os;
  reg        ib_dhi, ib_shi;
  wire       a_adv    = gen_q && !ib_v;
  // ib_vc: ib_v for the loop's advance alone (make timing: ib_v also selects
  // the micro-op to issue, the advance enables every counter of the loop)
  reg        ib_vc;
  wire       a_adv_l  = gen_q && !ib_vc;  // = a_adv
  wire       s0_v     = ib_v || gen_q;  // a micro-op to issue
  wire       s0_issue = s0_v && !hold;
  wire       a_start = ctok && tok_ready && c_alu_q;
  wire       unused_ok_a = ^{u_q, u_last_q, i_q, o_q, iw_q};  // (the top uop bit: the index wraps in the SRAM)
  vta_uoploop u_aloop (
      .clk_i(clk_i), .rst_i(rst_i), .start_i(a_start), .bgn_i(uop_bgn), .end_i(uop_end),
      .iter_out_i(iter_out), .iter_in_i(iter_in), .fd_out_i(fd_out), .fd_in_i(fd_in),
      .fs_out_i(fs_out), .fs_in_i(fs_in), .fw_out_i(32'd0), .fw_in_i(32'd0), .adv_i(a_adv_l),
      .gen_o(gen_q), .u_o(u_q), .u_last_o(u_last_q), .i_o(i_q), .o_o(o_q),
      .id_o(id_q), .is_o(is_q), .iw_o(iw_q));
  // the micro-op to issue: the buffered one, else the loop's
  wire [LogAcc-1:0] s0_od  = ib_v ? ib_od : id_q[LogAcc-1:0];
  wire [LogAcc-1:0] s0_os  = ib_v ? ib_os : is_q[LogAcc-1:0];
  wire              s0_dhi = ib_v ? ib_dhi : hi_nz(id_q, LogAcc);
  wire              s0_shi = ib_v ? ib_shi : hi_nz(is_q, LogAcc);
  always @(posedge clk_i) begin
    if (a_adv) begin
      ib_u   <= u_q[LogUop-1:0];
      ib_od  <= id_q[LogAcc-1:0];
      ib_os  <= is_q[LogAcc-1:0];
      ib_dhi <= hi_nz(id_q, LogAcc);
      ib_shi <= hi_nz(is_q, LogAcc);
    end
  end
  // ib_v and its copy ib_vc have the same next value: each in a kept block of
  // its own (a copy kept alone is merged with its original by Yosys, which
  // keeps the kept one with the loads of both: the loop's enables were then
  // behind ib_v's ~40 loads)
  (* keep *) always @(posedge clk_i) ib_v  <= !rst_i && (ib_v || a_adv) && !s0_issue;
  (* keep *) always @(posedge clk_i) ib_vc <= !rst_i && (ib_v || a_adv) && !s0_issue;
  assign uop_rd_en   = s0_issue;
  assign uop_rd_addr = ib_v ? ib_u : u_q[LogUop-1:0];

  // ---------------------------------------------------------------- k=1: indices
  reg        r1_v;
  reg [LogAcc-1:0] r1_od;
  reg [LogAcc-1:0] r1_os;
  reg        r1_dhi, r1_shi;  // the offset alone is out of range
  wire [31:0] u_dst = {{(32-`VTA_UOP_DST_IDX_WIDTH){1'b0}}, uop_rd_data[`VTA_UOP_DST_IDX_LSB +: `VTA_UOP_DST_IDX_WIDTH]};
  wire [31:0] u_src = {{(32-`VTA_UOP_SRC_IDX_WIDTH){1'b0}}, uop_rd_data[`VTA_UOP_SRC_IDX_LSB +: `VTA_UOP_SRC_IDX_WIDTH]};
  wire unused_ok = &{1'b0, uop_rd_data};  // small configurations leave top bits unused
  wire [LogAcc:0] a_sum = {1'b0, u_dst[LogAcc-1:0]} + {1'b0, r1_od};
  wire [LogAcc:0] s_sum = {1'b0, u_src[LogAcc-1:0]} + {1'b0, r1_os};
  wire a_bad = r1_dhi || a_sum[LogAcc] || hi_nz(u_dst, LogAcc);
  wire s_bad = r1_shi || s_sum[LogAcc] || hi_nz(u_src, LogAcc);
  wire idx_bad = a_bad || s_bad;
  // A row of the running GEMM's footprint: in_fp(r), r = (field + offset) mod
  // depth, lo <= r <= hi. Compared without the sum (make timing: the UOP
  // RAM's clock-to-out -> the sum's carry chain -> the two compares): for the
  // offset od (a register at k=1) the rows [lo, hi] are the fields of the
  // cyclic interval [D, E], D = (lo - od) mod depth, E = (hi - od) mod depth,
  // registered with the offset (fp_pre below, r1_fpa/r1_fps). It wraps when
  // lo < od <= hi: in_fp is then "field >= D or field <= E", else "field >= D
  // and field <= E". An empty footprint (lo > hi, or the src of a micro-op
  // that reads none) is D = all ones, E = 0, no wrap: never true. The k=1
  // test is then two compares of the RAM's field with registers and one LUT.
  // (g_lo_q/g_hi_q do not change while an ALU micro-op can be in the
  // GEMM's way: they are set in the cycle g_safe_q is, before an ALU
  // instruction beside the GEMM is taken.)
  function [2*LogAcc:0] fp_pre;  // {wrap, D, E}
    input [LogAcc-1:0] od;
    input              none;  // no row to compare
    begin
      if (none || (g_lo_q > g_hi_q))
        fp_pre = {1'b0, {LogAcc{1'b1}}, {LogAcc{1'b0}}};
      else
        fp_pre = {(g_lo_q < od) && (od <= g_hi_q), g_lo_q - od, g_hi_q - od};
    end
  endfunction
  function fp_hit;
    input [LogAcc-1:0] f;    // the micro-op's field (low bits)
    input [2*LogAcc:0] pre;  // fp_pre of the offset
    begin
      if (pre[2*LogAcc])
        fp_hit = (f >= pre[2*LogAcc-1:LogAcc]) || (f <= pre[LogAcc-1:0]);
      else
        fp_hit = (f >= pre[2*LogAcc-1:LogAcc]) && (f <= pre[LogAcc-1:0]);
    end
  endfunction
  reg [2*LogAcc:0] r1_fpa, r1_fps;  // fp_pre of r1_od, and of r1_os (none unless alu_reg)

  // ---------------------------------------------------------------- k=2: reads
  reg        r2_v, r2_bad, r2_conf, r2_hit, r2_fp;
  reg [LogAcc-1:0] r2_a;
  reg [LogAcc-1:0] r2_sa;
  reg        phase_q;   // the src of a same-bank micro-op has been read
  // Source-row cache: the row the last fresh src read of this instruction
  // fetched (tag at k=2, value at PA, kept coherent with every write). A
  // register-mode micro-op whose src is that row reads no src: one cycle
  // even with dst in the same bank (a bias row broadcast over many rows).
  reg        tag_v;
  reg [LogAcc-1:0] tag_q;
  reg        r3_v, r3_pseudo, r3_bc, pa_v, pa_pseudo;
  // a MUL at k=3 or in PA: its result reaches H1 two cycles after PA, so the
  // next micro-op must not reach PA before then
  // (mb_q: a micro-op, not a src-only read, at k=3 or in PA, from the cycle
  // before; r3_v itself enables the selects of every lane)
  reg  mb_q;
  wire mul_busy  = ctl_mul_q && mb_q;
  // The ALU takes two cycles (PA, PA2): a micro-op that reads the row the one
  // just ahead of it writes waits one cycle at k=2, so it reaches PA when that
  // result is in H1 (r2_dep: set when it enters k=2 behind that micro-op, for
  // its first cycle there).
  reg  r2_dep;
  // Beside a running GEMM the micro-op waits while its rows lie in the GEMM's
  // footprint (until the GEMM has written its last row), while the GEMM reads a
  // bank it reads (k=5 now) and while the GEMM would write its dst bank in the
  // cycle it does (the GEMM micro-op at k=4: both write four cycles on). (MUL,
  // three cycles, never runs beside a GEMM.)
  // The bank compares are registers, formed a cycle ahead from the GEMM rows one
  // stage earlier and the k=2 rows of the next cycle (the hold's stall
  // decision then starts from flip-flops): gc4_q "the GEMM micro-op at k=4 writes
  // dst's bank", gc5a_q/gc5s_q "the one at k=5 is in dst's / src's bank".
  reg  gc4_q, gc5a_q, gc5s_q;
  // the banks of the rows at k=2 in the next cycle
  wire       r2_ld  = !hold && r1_v;
  wire [1:0] nx_r2a = r2_ld ? a_sum[1:0] : r2_a[1:0];
  wire [1:0] nx_r2s = r2_ld ? s_sum[1:0] : r2_sa[1:0];
  wire g_conf    = !g_idle && (r2_fp || (!g_rst_q && (gc5a_q || (ctl_reg_q && gc5s_q))) || gc4_q);
  wire emit      = r2_v && !mul_busy && !r2_dep && !g_conf;  // something enters k=3
  wire pseudo    = emit && r2_conf && !r2_hit && !phase_q; // a src-only read (same-bank operands)
  wire adv2      = emit && !pseudo;             // the micro-op itself leaves k=2
  assign hold    = r2_v && !adv2;

  assign busy_alu_o  = (state_q == CRun);

  // ACC bank reads: the GEMM unit's at its k=5 (dst; reset micro-ops read
  // nothing), the ALU's at k=2 (dst, and src unless it waits in the cache) in
  // the other banks
  wire rd_a_alu = adv2;
  wire rd_s_alu = pseudo || (adv2 && alu_reg && !r2_conf && !r2_hit);
  // r2_hit: the tag after this cycle (r2_sa if a fresh src read replaces it,
  // else tag_q while tag_v) is the next src row s_sum. Compared without the
  // sum: each candidate tag minus r1_os (registers) against the micro-op's src
  // field, rd_s_alu last (make timing: the UOP RAM's read -> the sum's carry
  // -> the compare)
  wire [LogAcc-1:0] u_src_lo = u_src[LogAcc-1:0];
  wire [LogAcc-1:0] u_dst_lo = u_dst[LogAcc-1:0];
  wire hit_sa  = (r2_sa - r1_os) == u_src_lo;
  wire hit_tag = (tag_q - r1_os) == u_src_lo;
  // r2_dep's "r2_a == a_sum / s_sum" the same way
  wire dep_a   = (r2_a - r1_od) == u_dst_lo;
  wire dep_s   = (r2_a - r1_os) == u_src_lo;
  // (each bank's read port is formed at its instance, "ACC / OUT writes")

  // ---------------------------------------------------------------- PA: ALU
  // PA selects the operands and computes MIN/MAX/ADD and the shift amount, PA2
  // the shift, then H1 (an ALU micro-op reading the row of the one just ahead
  // waits at k=2, see r2_dep). Operand selects, computed when a micro-op enters
  // PA: 0..2 = H1..H3 (the results of the micro-ops before it, newest first),
  // 3 = the SRAM bank (one-hot in the lanes, below). Each lane has its own copy
  // of the selects and of the instruction's mode (their fanout stays within a lane).
  reg [LogAcc-1:0] pa_a;
  reg        pa_bc;      // B comes from the source-row cache
  reg [LogAcc-1:0] pa_s, bc_a;  // src row; the row the cache holds
  reg        pa2_v;      // an ALU result in PA2
  reg [LogAcc-1:0] pa2_a;
  reg        h1_v, h2_v;
  reg [LogAcc-1:0] h1_a, h2_a;
  reg        m0_v, m1_v;
  reg [LogAcc-1:0] m0_a, m1_a;
  reg [LogAcc-1:0] r3_a, r3_s;
  wire       pa_alu = pa_v && !pa_pseudo && !alu_mul;  // to PA2
  // the cache after PA: a fresh src read loads it; a write of its row updates it
  wire       pa_fresh = pa_v && alu_reg && !pa_bc;
  // copies of m1_v and pa2_v for the row compares (the originals also enable
  // H1 and select its value in every lane: about 1,000 loads)
  (* keep *) reg m1_vc, pa2_vc;
  always @(posedge clk_i) begin
    m1_vc  <= !rst_i && m0_v;
    pa2_vc <= !rst_i && pa_alu;
  end
  wire       bc_snoop = (pa2_vc && pa2_a == bc_a) || (m1_vc && m1_a == bc_a);
  // what H1 will hold in the next cycle
  wire       nh1_v = m1_vc || pa2_vc;
  wire [LogAcc-1:0] nh1_a = m1_vc ? m1_a : pa2_a;
  function [1:0] fwd_sel;
    input [LogAcc-1:0] idx;
    begin
      if (nh1_v && nh1_a == idx) fwd_sel = 2'd0;
      else if (h1_v && h1_a == idx) fwd_sel = 2'd1;
      else if (h2_v && h2_a == idx) fwd_sel = 2'd2;
      else fwd_sel = 2'd3;
    end
  endfunction
  wire [1:0] x_sel_a = fwd_sel(r3_a), x_sel_b = fwd_sel(r3_s);
  // The lanes keep the ALU's selects one-hot, bits {bank 3..0, H3, H2, H1}, and
  // B's with the immediate (bit 8) and the cached row (bit 7) folded in: an
  // operand is then an AND-OR of its sources, two LUT levels with a select of 32
  // loads in front of MIN/MAX/ADD and the MUL (a 2-bit select and bank made a
  // multiplexer tree behind a select of the whole lane).
  function [6:0] onehot7;
    input [1:0] sel;
    input [1:0] bank;
    begin
      onehot7 = (sel == 2'd3) ? (7'd8 << bank) : (7'd1 << sel);
    end
  endfunction
  wire [6:0] x_oa = onehot7(x_sel_a, r3_a[1:0]);
  wire [8:0] x_ob = use_imm ? 9'h100 : r3_bc ? 9'h080 : {2'b00, onehot7(x_sel_b, r3_s[1:0])};

  wire [31:0] imm32 = {{16{imm[15]}}, imm};
  // The lane datapath is written as functions called in the clocked blocks, so
  // the simulator computes a lane only in a cycle that uses it.
  // the GEMM's operand select: G1..G3 or the row of one of the four banks
  // (2-bit select and bank: the accumulate has time for the multiplexer tree,
  // and the simulator runs it in most cycles)
  function [AccW-1:0] gopnd;
    input [1:0]      sel;
    input [1:0]      bank;
    input [AccW-1:0] h1, h2, h3, b0, b1, b2, b3;
    begin
      case (sel)
        2'd0: gopnd = h1;
        2'd1: gopnd = h2;
        2'd2: gopnd = h3;
        default: gopnd = (bank == 2'd0) ? b0 : (bank == 2'd1) ? b1 : (bank == 2'd2) ? b2 : b3;
      endcase
    end
  endfunction
  // the ALU's operand select (one-hot): H1..H3 or the row of one of the four banks.
  // parallel_case: synthesis makes the AND-OR of the sources (no priority
  // chain); the simulator tests the bits in turn (cheaper than the AND-OR).
  // The items overlap only in values a one-hot select never has.
  /* verilator lint_off CASEOVERLAP */
  function [AccW-1:0] opnd;
    input [6:0]      s;
    input [AccW-1:0] h1, h2, h3, b0, b1, b2, b3;
    begin
      (* parallel_case *)
      casez (s)
        7'b??????1: opnd = h1;
        7'b?????1?: opnd = h2;
        7'b????1??: opnd = h3;
        7'b???1???: opnd = b0;
        7'b??1????: opnd = b1;
        7'b?1?????: opnd = b2;
        7'b1??????: opnd = b3;
        default:    opnd = {AccW{1'b0}};
      endcase
    end
  endfunction
  // arithmetic shift of a by lb (VTA-SPEC 4.5.5): right by lb[4:0], or left by
  // (-lb)[4:0] when lb is negative; amt = {left, amount} is formed in PA
  function [5:0] shamt;
    input [AccW-1:0] lb;
    reg   [4:0]      nb;
    begin
      nb = 5'd0 - lb[4:0];
      shamt = {lb[AccW-1], lb[AccW-1] ? nb : lb[4:0]};
    end
  endfunction
  function [AccW-1:0] shift;
    input [AccW-1:0] a;
    input [5:0]      amt;
    reg signed [AccW-1:0] sra;  // signed: an arithmetic shift in an unsigned expression is logical
    begin
      sra = $signed(a) >>> amt[4:0];
      shift = amt[5] ? (a << amt[4:0]) : sra;
    end
  endfunction

  // operand B: the immediate, the cached source row or the forwarded/read row
  function [AccW-1:0] opb;
    input [8:0]      s;
    input [AccW-1:0] immv, cached, h1, h2, h3, b0, b1, b2, b3;
    begin
      (* parallel_case *)
      casez (s)
        9'b1????????: opb = immv;
        9'b01???????: opb = cached;
        default:      opb = opnd(s[6:0], h1, h2, h3, b0, b1, b2, b3);
      endcase
    end
  endfunction
  /* verilator lint_on CASEOVERLAP */
  // the ALU's first stage: MIN / MAX / ADD
  function [AccW-1:0] alu1;
    input [2:0]      aop;
    input [AccW-1:0] la, lb;
    begin
      case (aop)
        3'd0: alu1 = ($signed(la) < $signed(lb)) ? la : lb;
        3'd1: alu1 = ($signed(la) < $signed(lb)) ? lb : la;
        default: alu1 = la + lb;
      endcase
    end
  endfunction

  wire [AccBits-1:0] h1_data, gh1_data;
  wire [`VTA_OUT_MATRIX_WIDTH-1:0] h1_out, gh1_out;  // their OUT images (low bytes)
  genvar gl;
  generate
    for (gl = 0; gl < Lanes; gl = gl + 1) begin : gen_lane
      // this lane's copy of the selects and of the instruction's mode (kept:
      // synthesis must not merge the copies back into one)
      (* keep *) reg [6:0] oa;
      (* keep *) reg [8:0] ob;
      (* keep *) reg [1:0] gsel, gbank;
      (* keep *) reg       grst, is_shr;
      (* keep *) reg [2:0] aop;
      (* keep *) reg [AccW-1:0] immv;
      // (loaded only when a micro-op enters PA, resp. before an instruction runs)
      (* keep *)
      always @(posedge clk_i) begin
        if (r3_v) begin
          oa <= x_oa;
          ob <= x_ob;
        end
        if (g6_v) begin
          gsel  <= g_sel;
          gbank <= g6_a[1:0];
        end
        if (g_ld) grst <= g_reset;
        if (ctok) begin
          aop    <= alu_op;
          is_shr <= alu_op == `VTA_ALU_OPCODE_SHR;
          immv   <= imm32;
        end
      end
      reg  [AccW-1:0] h1_q, h2_q, h3_q, bc_q, g1_q, g2_q, g3_q;
      reg  [AccW-1:0] r1_q, sa_q;   // PA2: MIN/MAX/ADD result, the value to shift
      reg  [5:0]      amt_q;
      // MUL: wrap32(A * B) from three 16 x 16 products (one DSP each)
      reg  [AccW-1:0] m0a_q, m0b_q, lo_q;
      reg  [15:0]     mh1_q, mh2_q;
      wire [AccW-1:0] b0 = bk_rd_data[0*AccBits + gl*AccW +: AccW];
      wire [AccW-1:0] b1 = bk_rd_data[1*AccBits + gl*AccW +: AccW];
      wire [AccW-1:0] b2 = bk_rd_data[2*AccBits + gl*AccW +: AccW];
      wire [AccW-1:0] b3 = bk_rd_data[3*AccBits + gl*AccW +: AccW];
      // The statements are ordered so that a register is read before it is
      // written (only G1, H1 and the cache are read after): Verilator then
      // updates the others in place instead of through a shadow copy per clock.
      always @(posedge clk_i) begin
        // GEMM unit: G1 from PA, then the history
        if (gpa_v)
          g1_q <= grst ? {AccW{1'b0}} : gopnd(gsel, gbank, g1_q, g2_q, g3_q, b0, b1, b2, b3) + dots[gl*32 +: AccW];
        if (gh2_v) g3_q <= g2_q;
        if (gh1_v) g2_q <= g1_q;
        // the cache: a fresh read, else the written value when its row is written
        if (pa_fresh)
          bc_q <= opnd(ob[6:0], h1_q, h2_q, h3_q, b0, b1, b2, b3);  // (a fresh read: B is the row)
        else if (bc_snoop)
          bc_q <= m1_v ? lo_q + {mh1_q + mh2_q, 16'd0} : is_shr ? shift(sa_q, amt_q) : r1_q;
        // ALU: H1 from a MUL or from PA2
        if (m1_v)
          h1_q <= lo_q + {mh1_q + mh2_q, 16'd0};
        else if (pa2_v)
          h1_q <= is_shr ? shift(sa_q, amt_q) : r1_q;
        if (m0_v) begin
          lo_q  <= m0a_q[15:0] * m0b_q[15:0];
          mh1_q <= m0a_q[31:16] * m0b_q[15:0];
          mh2_q <= m0a_q[15:0] * m0b_q[31:16];
        end
        if (pa_v && !pa_pseudo && alu_mul) begin
          m0a_q <= opnd(oa, h1_q, h2_q, h3_q, b0, b1, b2, b3);
          m0b_q <= opb(ob, immv, bc_q, h1_q, h2_q, h3_q, b0, b1, b2, b3);
        end
        if (pa_alu) begin
          r1_q  <= alu1(aop, opnd(oa, h1_q, h2_q, h3_q, b0, b1, b2, b3), opb(ob, immv, bc_q, h1_q, h2_q, h3_q, b0, b1, b2, b3));
          sa_q  <= opnd(oa, h1_q, h2_q, h3_q, b0, b1, b2, b3);
          amt_q <= shamt(opb(ob, immv, bc_q, h1_q, h2_q, h3_q, b0, b1, b2, b3));
        end
        if (h2_v) h3_q <= h2_q;
        if (h1_v) h2_q <= h1_q;
      end
      assign h1_data[gl*AccW +: AccW] = h1_q;
      assign h1_out[gl*OutW +: OutW] = h1_q[OutW-1:0];
      assign gh1_data[gl*AccW +: AccW] = g1_q;
      assign gh1_out[gl*OutW +: OutW] = g1_q[OutW-1:0];
    end
  endgenerate

  // ---------------------------------------------------------------- ACC / OUT writes
  // G1 and H1 one cycle after they are loaded (in different banks when both
  // are: the ALU waits otherwise); a loaded element (ld_*) only while both
  // pipelines are empty. OUT has the same four banks (vta_top): port G takes
  // the GEMM's results and loaded elements, port A the ALU's. Each bank's
  // port is driven by its own expression (no 2,048-bit write vector to
  // assemble in every simulated cycle).
  // Which of the three writes each bank takes is registered beside G1, H1
  // and the loaded element (the same value as the valid and the bank compare
  // of the row: the selects of the 512-bit data multiplexers come from a
  // flip-flop).
  genvar gbk;
  generate
    for (gbk = 0; gbk < NBank; gbk = gbk + 1) begin : gen_bank
      // the write: G1, else H1, else a loaded element
      reg wr_g, wr_h, wr_l;
      always @(posedge clk_i) begin
        wr_g <= !rst_i && gpa_v && gpa_a[1:0] == gbk;
        wr_h <= !rst_i && nh1_v && !load_acc_wr && nh1_a[1:0] == gbk;
        wr_l <= !rst_i && load_acc_wr && l2d_wr_idx[1:0] == gbk;
      end
      // the read: the GEMM's, else the ALU's src (when it reads one here), else its dst
      // (one signal per bank: no read-address vector assembled field by field
      // in every simulated cycle)
      wire rd_g = g_rd && g5_a[1:0] == gbk;
      wire rd_s = rd_s_alu && r2_sa[1:0] == gbk;
      wire rd_a = rd_a_alu && r2_a[1:0] == gbk;
      vta_sram #(.Width(AccBits), .LogDepth(LogRow), .OutReg(1)) u_acc (
          .clk_i(clk_i), .wr_en_i(wr_g || wr_h || wr_l),
          .wr_addr_i(wr_g ? gh1_a[LogAcc-1:2] : wr_h ? h1_a[LogAcc-1:2] : ld_idx_q[LogAcc-1:2]),
          .wr_data_i(wr_g ? gh1_data : wr_h ? h1_data : ld_acc_q), .rd_en_i(rd_g || rd_s || rd_a),
          .rd_addr_i(rd_g ? g5_a[LogAcc-1:2] : rd_s ? r2_sa[LogAcc-1:2] : r2_a[LogAcc-1:2]),
          .rd_data_o(bk_rd_data[gbk*AccBits +: AccBits]));
    end
  endgenerate
  // gh1_vc: gh1_v for the OUT write's enable and address (make timing: gh1_v
  // also selects the write data, hundreds of loads)
  reg gh1_vc;
  (* keep *) always @(posedge clk_i) gh1_vc <= !rst_i && gpa_v;
  assign out_wr_en_o       = gh1_vc || ld_v_q;
  assign out_wr_addr_o     = gh1_vc ? gh1_a : ld_idx_q;
  assign out_wr_data_o     = gh1_v ? gh1_out : ld_out_q;
  assign out_alu_wr_en_o   = h1_v;
  assign out_alu_wr_addr_o = h1_a;
  assign out_alu_wr_data_o = h1_out;

  wire pipe_empty = !s0_v && !r1_v && !r2_v && !r3_v && !pa_v &&
                    !pa2_v && !h1_v && !m0_v && !m1_v;
  // registered outputs (counters and the watchdog see them one cycle later)
  always @(posedge clk_i) begin
    gemm_uop_o  <= !rst_i && g2_v && !g_rst_q;
    reset_uop_o <= !rst_i && g2_v && g_rst_q;
    alu_uop_o   <= !rst_i && adv2;
    progress_o  <= !rst_i && (s0_issue || adv2 || h1_v || g_gen_q || gh1_v || ld_v_q ||
                              (state_q == CPush) || (g_st_q == GPush) ||
                              insn_pop_o || (dma_valid_i && dma_ready_o));
  end

  // ---------------------------------------------------------------- sequencing
  // An instruction with push flags pushes after every earlier one has ended: a
  // GEMM in the GEMM unit's last cycle, anything else in CPush once the GEMM
  // unit is idle.
  wire fg_push = (state_q == CPush) && g_idle;
  assign g2l_push_o = (fg_push && push_prev) || ((g_st_q == GPush) && g_pp_q);
  assign g2s_push_o = (fg_push && push_next) || ((g_st_q == GPush) && g_pn_q);
  assign busy_o     = (state_q != CIdle) || !g_idle;
  // The next instruction is taken while the GEMM unit runs only if it is an
  // ALU instruction that may run beside it (not MUL, a legal opcode) and the
  // GEMM can raise no error any more (so the instruction the top reports an
  // error at stays the golden model's).
  wire nx_beside = (nx_op == `VTA_OPCODE_ALU) && (nx_aop < `VTA_ALU_OPCODE_MUL);
  assign insn_pop_o = c_idle_q && insn_valid_i && run_i && (g_idle || (g_safe_q && nx_beside));

  // The state's next value. c_idle_q and c_tok_q are "state_q is CIdle / CTok"
  // in flip-flops of their own, read only by the pops (make timing: the
  // state's decodes have hundreds of loads, the pops go to top's queue and
  // token counters).
  wire ctok_go = tok_ready && (g_idle || c_isalu_q);  // CTok ends (tok_ready: no flush)
  reg [2:0] state_d;
  always @* begin
    case (state_q)
      CIdle:      state_d = insn_pop_o ? CTok : CIdle;
      // with the tokens: a load starts (CLoadStart), a GEMM goes to the GEMM
      // unit (CIdle: it pushes the tokens), an ALU loop starts (CRun), FINISH,
      // an illegal instruction (opcode 5-7: tokens only) or an empty loop
      // pushes (CPush)
      CTok:       state_d = flush_i ? CIdle : ctok_go ? c_next_q : CTok;
      CLoadStart: state_d = CLoadWait;
      CLoadWait:  state_d = (!l2d_busy && !ld_v_q) ? CPush : CLoadWait;
      CRun:       state_d = pipe_empty ? CPush : CRun;
      CPush:      state_d = (g_idle || !(push_prev || push_next)) ? CIdle : CPush;
      default:    state_d = CIdle;
    endcase
  end
  (* keep *) always @(posedge clk_i) c_idle_q <= rst_i || (state_d == CIdle);
  (* keep *) always @(posedge clk_i) c_tok_q  <= !rst_i && (state_d == CTok);

  always @(posedge clk_i) begin
    if (rst_i) begin
      state_q       <= CIdle;
      r1_v          <= 1'b0;
      ld_v_q        <= 1'b0;
      r2_v          <= 1'b0;
      phase_q       <= 1'b0;
      tag_v         <= 1'b0;
      r3_v          <= 1'b0;
      mb_q          <= 1'b0;
      pa_v          <= 1'b0;
      pa2_v         <= 1'b0;
      h1_v          <= 1'b0;
      h2_v          <= 1'b0;
      m0_v          <= 1'b0;
      m1_v          <= 1'b0;
      finish_o      <= 1'b0;
      err_illegal_o <= 1'b0;
      err_range_o   <= 1'b0;
      gc4_q         <= 1'b0;
      gc5a_q        <= 1'b0;
      gc5s_q        <= 1'b0;
    end else begin
      finish_o      <= 1'b0;
      err_illegal_o <= 1'b0;
      err_range_o   <= l2d_err_range || g2_bad;
      ld_v_q        <= load_acc_wr;

      state_q <= state_d;
      // the instruction register (and the c_* decode) loads the queue's head
      // in every idle cycle: its enable is the state decode alone, not the
      // pop decision (insn_q is read from CTok on, after a pop)
      if (state_q == CIdle) insn_q <= insn_i;
      if (ctok && ctok_go) begin
        err_illegal_o <= c_ill_q;
        finish_o      <= c_fin_q;
        if (c_rng_q) err_range_o <= 1'b1;
      end

      // k=1 and k=2 (they hold together)
      if (!hold) begin
        r1_v <= s0_issue;
        r2_v <= r1_v;
        if (s0_issue) begin
          r1_od  <= s0_od;
          r1_os  <= s0_os;
          r1_fpa <= fp_pre(s0_od, 1'b0);
          r1_fps <= fp_pre(s0_os, !alu_reg);
          r1_dhi <= s0_dhi;
          r1_shi <= s0_shi;
        end
        if (r1_v) begin
          r2_a    <= a_sum[LogAcc-1:0];
          r2_sa   <= s_sum[LogAcc-1:0];
          r2_bad  <= idx_bad;
          r2_conf <= alu_reg && (a_sum[1:0] == s_sum[1:0]);
          r2_hit  <= alu_reg && (rd_s_alu ? hit_sa : (tag_v && hit_tag));
          r2_fp   <= fp_hit(u_dst_lo, r1_fpa) || fp_hit(u_src_lo, r1_fps);
          // the micro-op now at k=2 moves to k=3 in this cycle, ahead of this one
          r2_dep  <= r2_v && (dep_a || (ctl_reg_q && dep_s));
        end
      end
      if (hold) r2_dep <= 1'b0;  // the micro-op ahead has moved on
      gc4_q  <= g3_v && g3_a[1:0] == nx_r2a;
      gc5a_q <= g4_v && g4_a[1:0] == nx_r2a;
      gc5s_q <= g4_v && g4_a[1:0] == nx_r2s;
      if (state_q != CRun) tag_v <= 1'b0;  // a new instruction starts uncached
      if (ctok) begin
        ctl_reg_q <= alu_reg;
        ctl_mul_q <= alu_mul;
      end
      else if (rd_s_alu) begin
        tag_v <= 1'b1;
        tag_q <= r2_sa;
      end
      if (pseudo) phase_q <= 1'b1;
      if (adv2) begin
        phase_q <= 1'b0;
        if (r2_bad) err_range_o <= 1'b1;
      end

      // k=3
      mb_q      <= adv2 || (r3_v && !r3_pseudo);
      r3_v      <= emit;
      r3_pseudo <= pseudo;
      r3_bc     <= adv2 && (r2_hit || r2_conf);
      r3_a      <= r2_a;
      r3_s      <= r2_sa;

      // PA
      pa_v      <= r3_v;
      pa_pseudo <= r3_pseudo;
      pa_bc     <= r3_bc;
      pa_s      <= r3_s;
      pa_a      <= r3_a;
      pa2_v     <= pa_alu;
      pa2_a     <= pa_a;

      if (pa_fresh) bc_a <= pa_s;

      // MUL and history
      m0_v <= pa_v && !pa_pseudo && alu_mul;
      m0_a <= pa_a;
      m1_v <= m0_v;
      m1_a <= m0_a;
      h1_v <= nh1_v && !load_acc_wr;
      h1_a <= nh1_a;
      h2_v <= h1_v && !load_acc_wr;
      h2_a <= h1_a;
    end
  end
  assign elem_type_o = mem_type;
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
