// SPDX-License-Identifier: Apache-2.0
// VTA top level: AXI4-Lite control slave (register map in hw/regmap.txt),
// one AXI4 master, fetch/load/compute/store, the three instruction queues,
// the four token queues, the INP/WGT/OUT SRAMs, watchdog, event counters,
// interrupts, error capture and the soft reset (docs/rtl.md, Control).
`resetall
`timescale 1ns / 1ps
`default_nettype none
`include "vta_config.vh"
`include "vta_regmap.vh"
module vta_top #(
    parameter AddrWidth = 64   // AXI4 master address bits
) (
    input  wire                        clk_i,
    input  wire                        rst_i,          // active-high, synchronous: power-on only
    // AXI4-Lite control slave
    input  wire [15:0]                 s_axil_awaddr,
    input  wire                        s_axil_awvalid,
    output wire                        s_axil_awready,
    input  wire [31:0]                 s_axil_wdata,
    input  wire [3:0]                  s_axil_wstrb,
    input  wire                        s_axil_wvalid,
    output wire                        s_axil_wready,
    output wire [1:0]                  s_axil_bresp,
    output reg                         s_axil_bvalid,
    input  wire                        s_axil_bready,
    input  wire [15:0]                 s_axil_araddr,
    input  wire                        s_axil_arvalid,
    output wire                        s_axil_arready,
    output reg  [31:0]                 s_axil_rdata,
    output wire [1:0]                  s_axil_rresp,
    output reg                         s_axil_rvalid,
    input  wire                        s_axil_rready,
    // AXI4 master
    output wire [AddrWidth-1:0]        m_axi_araddr,
    output wire [7:0]                  m_axi_arlen,
    output wire [2:0]                  m_axi_arsize,
    output wire [1:0]                  m_axi_arburst,
    output wire [3:0]                  m_axi_arcache,
    output wire [2:0]                  m_axi_arprot,
    output wire                        m_axi_arvalid,
    input  wire                        m_axi_arready,
    input  wire [`VTA_BUS_WIDTH-1:0]   m_axi_rdata,
    input  wire [1:0]                  m_axi_rresp,
    input  wire                        m_axi_rlast,
    input  wire                        m_axi_rvalid,
    output wire                        m_axi_rready,
    output wire [AddrWidth-1:0]        m_axi_awaddr,
    output wire [7:0]                  m_axi_awlen,
    output wire [2:0]                  m_axi_awsize,
    output wire [1:0]                  m_axi_awburst,
    output wire [3:0]                  m_axi_awcache,
    output wire [2:0]                  m_axi_awprot,
    output wire                        m_axi_awvalid,
    input  wire                        m_axi_awready,
    output wire [`VTA_BUS_WIDTH-1:0]   m_axi_wdata,
    output wire [`VTA_BUS_WIDTH/8-1:0] m_axi_wstrb,
    output wire                        m_axi_wlast,
    output wire                        m_axi_wvalid,
    input  wire                        m_axi_wready,
    input  wire [1:0]                  m_axi_bresp,
    input  wire                        m_axi_bvalid,
    output wire                        m_axi_bready,
    // interrupt (level): GIE_ENABLE and an enabled pending FETCH_ISR source
    output reg                         irq
);
  localparam BeatWidth  = 32;
  localparam LogInsnQ   = $clog2(`VTA_INSN_QUEUE_DEPTH);
  localparam [31:0] HwVersion = `VTA_HW_VERSION;
  localparam TagW       = 32;  // instruction index carried with each queued instruction
  localparam SrResetCycles = 3'd4;  // cycles the internal reset is held
  // event counters: 14 named ones, then instructions by opcode, then DRAM
  // element bytes read by memory type (hw/regmap.txt, contiguous from CNT_CYCLES)
  localparam CiInsnOp   = 14;
  localparam CiRdType   = 22;
  localparam NumCnt     = 30;
  localparam LogBusBytes = `VTA_LOG_BUS_WIDTH - 3;
  localparam integer CiCycles = 0, CiLoadBusy = 1, CiGemmBusy = 2, CiAluBusy = 3, CiStoreBusy = 4,
                   CiLoadWait = 5, CiCompWait = 6, CiStoreWait = 7, CiRdBytes = 8,
                   CiWrBytes = 9, CiGemmUops = 10, CiResetUops = 11, CiAluUops = 12, CiInsns = 13;

  // ---------------------------------------------------------------- registers
  reg        fetch_start_q, fetch_done_q, compute_done_q, running_q;
  reg [31:0] insn_count_q, done_wr_q, watchdog_q;
  reg        gie_q;
  reg [1:0]  ier_q, isr_q;
  reg [7:0]  ld_ctrl_q, cp_ctrl_q, st_ctrl_q, fetch_ar_q;
  reg [63:0] insn_addr_q, inp_base_q, wgt_base_q, uop_base_q, acc_base_q, out_base_q;
  reg        err_illegal_q, err_range_q, err_dram_q, err_token_q, err_wd_q, err_busy_q;
  reg [2:0]  err_info_q;
  reg [31:0] err_insn_q;
  reg [63:0] err_addr_q;
  reg        err_addr_v_q;
  reg [31:0] hi_snap_q;  // high word of a ro64 register, latched by the low-word read
  reg [NumCnt*64-1:0] cnt_q;  // counter i is cnt_q[64*i +: 64]
  reg [31:0] wd_cnt_q;

  // ---------------------------------------------------------------- soft reset
  // Request (CONTROL_SOFT_RESET): the run stops (running_q low: fetch halts, the
  // modules take no new instruction and pop no token) and the DMA stops at the
  // next burst boundary (dma_hold): bursts already on the bus complete, no new
  // one starts, and it goes idle. Then core_rst resets every module, queue and
  // counter for SrResetCycles cycles. The AXI4-Lite slave and the configuration
  // registers see only the power-on rst_i.
  localparam [1:0] SrIdle = 2'd0, SrDrain = 2'd1, SrReset = 2'd2;
  reg [1:0] sr_state_q;
  reg       fetch_start, start_busy, sr_req;  // a write's request, acting one cycle after it
  reg [2:0] sr_cnt_q;
  reg       reset_done_q, core_rst_q, dma_idle_q;
  wire      dma_idle;
  // sr_active: the state is not idle or the internal reset is on, kept in a
  // register of its own (it holds the DMA and gates the error events): set
  // with the request, cleared when the last reset cycle ends
  reg       sr_active;
  reg       dma_hold;  // sr_active for the DMA (make timing: sr_active's fanout)
  wire      core_rst  = rst_i || core_rst_q;  // fetch's, the queues' and top's own reset
  // The reset of load, compute, store and the DMA: a register each that holds
  // rst_i or the soft reset (make timing: core_rst, one LUT after core_rst_q,
  // had ~3,900 loads). In a soft reset the same cycles as core_rst; at
  // power-on one cycle later, from the second rst_i cycle to the first cycle
  // after rst_i. Kept apart (keep: Yosys would merge equal flip-flops).
  reg       rst_ld_q, rst_cp_q, rst_st_q, rst_dma_q;
  wire      rst_mod_d   = rst_i || (sr_state_q == SrReset);                 // their next value
  wire      sr_active_d = !rst_i && (sr_req || (sr_state_q != SrIdle));     // sr_active's, dma_hold's
  (* keep *) always @(posedge clk_i) rst_ld_q  <= rst_mod_d;
  (* keep *) always @(posedge clk_i) rst_cp_q  <= rst_mod_d;
  (* keep *) always @(posedge clk_i) rst_st_q  <= rst_mod_d;
  (* keep *) always @(posedge clk_i) rst_dma_q <= rst_mod_d;
  (* keep *) always @(posedge clk_i) sr_active <= sr_active_d;
  (* keep *) always @(posedge clk_i) dma_hold  <= sr_active_d;
  always @(posedge clk_i) begin
    core_rst_q <= !rst_i && (sr_state_q == SrReset);
    dma_idle_q <= dma_idle;
  end

  // ---------------------------------------------------------------- datapath wires
  wire [127:0] f_insn;
  wire f_ld_push, f_cp_push, f_st_push, f_fin_push, f_busy, f_quiet, f_quiet_nx, f_err_dram;
  wire f_err_illegal;
  wire f_progress;
  // fetch dispatches nothing in the next cycle: the run ended or FINISH is
  // about to end it (below); fetch registers it with its own no-dispatch terms
  wire f_nodisp_nx;
  reg  halt_q;    // !running_q && !fetch_start, a register of its own (below): fetch's halt
  wire halt_d;    // halt_q's next value
  wire ldq_fullq, cpq_fullq, stq_fullq;  // full as fetch sees it (below)
  wire ldq_full, cpq_full, stq_full, ldq_valid, cpq_valid, stq_valid, ldq_pop, cpq_pop, stq_pop;
  wire [TagW+127:0] ldq_data, cpq_data, stq_data;
  reg  [TagW-1:0] disp_idx_q;                  // index of the next instruction fetch dispatches
  reg  [TagW-1:0] ld_idx_q, cp_idx_q, st_idx_q;  // instruction each module took last
  wire [LogInsnQ:0] ldq_cnt, cpq_cnt, stq_cnt;
  wire l2g_push, l2g_pop, l2g_avail, l2g_ovf, g2l_push, g2l_pop, g2l_avail, g2l_ovf;
  wire g2s_push, g2s_pop, g2s_avail, g2s_ovf, s2g_push, s2g_pop, s2g_avail, s2g_ovf;
  localparam TokW = $clog2(`VTA_TOKEN_QUEUE_DEPTH + 1);
  wire [TokW-1:0] l2g_cnt, g2l_cnt, g2s_cnt, s2g_cnt;

  // ---------------------------------------------------------------- AXI4-Lite slave
  // A write is decoded in the cycle of its handshake; a start or soft-reset
  // request acts in the next cycle (from registers: it fans out to every
  // module), and B follows it, so the host sees the effect once it has B.
  reg  wr_pend_q;     // a write was accepted last cycle: B goes out now
  wire wr_go = s_axil_awvalid && s_axil_wvalid && !s_axil_bvalid && !wr_pend_q;
  wire rd_go = s_axil_arvalid && !s_axil_rvalid;
  assign s_axil_awready = wr_go;
  assign s_axil_wready  = wr_go;
  assign s_axil_bresp   = 2'b00;
  assign s_axil_arready = rd_go;
  assign s_axil_rresp   = 2'b00;
  wire [15:0] wa = {s_axil_awaddr[15:2], 2'b00};
  wire [15:0] ra = {s_axil_araddr[15:2], 2'b00};
  wire [31:0] wd = s_axil_wdata;
  // A start is accepted only when no run, fetch drain or soft reset is in
  // progress; otherwise it is refused and STATUS_ERR_BUSY is raised.
  // (the write decode is in the clocked block: logic that depends on an input
  // is otherwise evaluated on every eval of the simulated model, docs/rtl.md)
  wire dev_busy    = running_q || fetch_start_q || sr_active;
  // {accepted, refused} of a write of FETCH_CTRL's start bit, decoded once
  function [1:0] start_decode;
    input        rst_v, go;
    input [15:0] a;
    input        start_bit, busy;
    reg          start_wr;
    begin
      start_wr     = !rst_v && go && a == `VTA_REG_FETCH_CTRL && start_bit;
      start_decode = {start_wr && !busy, start_wr && busy};
    end
  endfunction
  wire [1:0] start_d = start_decode(rst_i, wr_go, wa, wd[0], dev_busy);  // {accepted, refused}
  // fetch_start for load, compute and store (their flush): copies, kept apart
  // (make timing: fetch_start's fanout; keep: Yosys merges equal flip-flops)
  reg        flush_ld_q, flush_cp_q, flush_st_q;
  (* keep *) always @(posedge clk_i) flush_ld_q <= start_d[1];
  (* keep *) always @(posedge clk_i) flush_cp_q <= start_d[1];
  (* keep *) always @(posedge clk_i) flush_st_q <= start_d[1];
  // (keep here too: Yosys merged fetch_start into a kept copy)
  (* keep *) always @(posedge clk_i) begin
    {fetch_start, start_busy} <= start_d;
    sr_req      <= !rst_i && wr_go && wa == `VTA_REG_CONTROL && wd[`VTA_CONTROL_SOFT_RESET] &&
                   (sr_state_q == SrIdle);
  end

  // Register reads: the mux is evaluated in the clocked block, only for an
  // accepted read (it is the widest mux of the design); so are the counter
  // index and its range check (functions of the read address).
  // (counter registers are 8-byte aligned: ra[2] picks the high word)
  localparam [15:0] CntBase = `VTA_REG_CNT_CYCLES;
  function [4:0] cnt_idx;  // counter of a counter register's address (bits 7:3)
    input [4:0] a;
    cnt_idx = a - CntBase[7:3];
  endfunction
  function cnt_hit;  // the address is a counter register's
    input [15:0] a;
    reg   [15:0] off;
    begin
      off     = a - CntBase;
      cnt_hit = (a >= CntBase) && ({16'd0, off} < NumCnt * 8);
    end
  endfunction
  reg  [31:0] status_word;
  always @* begin
    status_word = 32'd0;
    status_word[`VTA_STATUS_RUNNING]      = running_q;
    status_word[`VTA_STATUS_DONE]         = compute_done_q;
    status_word[`VTA_STATUS_IDLE]         = all_idle_q;
    status_word[`VTA_STATUS_RESET_DONE]   = reset_done_q;
    status_word[`VTA_STATUS_ERR_BUSY]     = err_busy_q;
    status_word[`VTA_STATUS_RESETTING]    = sr_active;
    status_word[`VTA_STATUS_ERR_ILLEGAL]  = err_illegal_q;
    status_word[`VTA_STATUS_ERR_RANGE]    = err_range_q;
    status_word[`VTA_STATUS_ERR_DRAM]     = err_dram_q;
    status_word[`VTA_STATUS_ERR_TOKEN]    = err_token_q;
    status_word[`VTA_STATUS_ERR_WATCHDOG] = err_wd_q;
  end

  // ---------------------------------------------------------------- modules
  wire [2:0] rd_req_valid, rd_req_ready, rd_valid, rd_ready;
  wire [3*AddrWidth-1:0] rd_req_addr;
  wire [3*BeatWidth-1:0] rd_req_beats;
  wire [`VTA_BUS_WIDTH-1:0] rd_data;
  wire rd_err;
  wire wr_req_valid, wr_req_ready, wr_valid, wr_ready, wr_idle, wr_err;
  wire [`VTA_BUS_WIDTH/8-1:0] wr_strb;
  // DMA error reporting: an error response and its address (dma_idle is above)
  wire dma_err;
  wire [AddrWidth-1:0] dma_err_addr;
  wire [TagW-1:0] wr_err_idx;   // the STORE of a failing write response
  wire [AddrWidth-1:0] wr_req_addr;
  wire [BeatWidth-1:0] wr_req_beats;
  wire [`VTA_BUS_WIDTH-1:0] wr_data;

  vta_fetch #(.AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_fetch (
      .clk_i(clk_i), .rst_i(core_rst), .start_i(fetch_start), .halt_i(halt_q), .nodisp_nx_i(f_nodisp_nx),
      .insn_addr_i(insn_addr_q[AddrWidth-1:0]), .insn_count_i(insn_count_q),
      .busy_o(f_busy), .quiet_o(f_quiet), .quiet_nx_o(f_quiet_nx), .err_dram_o(f_err_dram), .err_illegal_o(f_err_illegal),
      .dma_req_valid_o(rd_req_valid[0]), .dma_req_addr_o(rd_req_addr[0*AddrWidth +: AddrWidth]),
      .dma_req_beats_o(rd_req_beats[0*BeatWidth +: BeatWidth]), .dma_req_ready_i(rd_req_ready[0]),
      .dma_valid_i(rd_valid[0]), .dma_ready_o(rd_ready[0]), .dma_data_i(rd_data), .dma_err_i(rd_err),
      .ld_push_o(f_ld_push), .ld_full_i(ldq_fullq), .cp_push_o(f_cp_push), .cp_full_i(cpq_fullq),
      .st_push_o(f_st_push), .st_full_i(stq_fullq), .fin_push_o(f_fin_push), .insn_o(f_insn),
      .progress_o(f_progress));

  vta_fifo #(.Width(TagW+128), .LogDepth(LogInsnQ)) u_ldq (
      .clk_i(clk_i), .rst_i(core_rst), .clear_i(fetch_start), .push_i(f_ld_push), .push_data_i({disp_idx_q, f_insn}), .full_o(ldq_full),
      .out_valid_o(ldq_valid), .out_data_o(ldq_data), .pop_i(ldq_pop), .count_o(ldq_cnt));
  // the compute queue's head in flip-flops: its opcode bits decide, through the
  // FINISH gate and compute's pop, the queue's own take (make timing)
  vta_fifo #(.Width(TagW+128), .LogDepth(LogInsnQ), .HeadReg(1)) u_cpq (
      .clk_i(clk_i), .rst_i(core_rst), .clear_i(fetch_start), .push_i(f_cp_push), .push_data_i({disp_idx_q, f_insn}), .full_o(cpq_full),
      .out_valid_o(cpq_valid), .out_data_o(cpq_data), .pop_i(cpq_pop), .count_o(cpq_cnt));
  vta_fifo #(.Width(TagW+128), .LogDepth(LogInsnQ)) u_stq (
      .clk_i(clk_i), .rst_i(core_rst), .clear_i(fetch_start), .push_i(f_st_push), .push_data_i({disp_idx_q, f_insn}), .full_o(stq_full),
      .out_valid_o(stq_valid), .out_data_o(stq_data), .pop_i(stq_pop), .count_o(stq_cnt));

  vta_tokq #(.CntW(TokW)) u_l2g (.clk_i(clk_i), .rst_i(core_rst), .push_i(l2g_push), .pop_i(l2g_pop),
                  .avail_o(l2g_avail), .overflow_o(l2g_ovf), .count_o(l2g_cnt));
  vta_tokq #(.CntW(TokW)) u_g2l (.clk_i(clk_i), .rst_i(core_rst), .push_i(g2l_push), .pop_i(g2l_pop),
                  .avail_o(g2l_avail), .overflow_o(g2l_ovf), .count_o(g2l_cnt));
  vta_tokq #(.CntW(TokW)) u_g2s (.clk_i(clk_i), .rst_i(core_rst), .push_i(g2s_push), .pop_i(g2s_pop),
                  .avail_o(g2s_avail), .overflow_o(g2s_ovf), .count_o(g2s_cnt));
  vta_tokq #(.CntW(TokW)) u_s2g (.clk_i(clk_i), .rst_i(core_rst), .push_i(s2g_push), .pop_i(s2g_pop),
                  .avail_o(s2g_avail), .overflow_o(s2g_ovf), .count_o(s2g_cnt));

  // SRAMs shared between modules
  wire inp_wr_en, inp_rd_en, wgt_wr_en, wgt_rd_en, out_wr_en, out_rd_en;
  wire [`VTA_LOG_INP_BUFF_DEPTH-1:0] inp_wr_addr, inp_rd_addr;
  wire [`VTA_LOG_WGT_BUFF_DEPTH-1:0] wgt_wr_addr, wgt_rd_addr;
  wire [`VTA_LOG_OUT_BUFF_DEPTH-1:0] out_wr_addr, out_rd_addr;
  wire [`VTA_INP_MATRIX_WIDTH-1:0] inp_wr_data, inp_rd_data;
  wire [`VTA_WGT_MATRIX_WIDTH-1:0] wgt_wr_data, wgt_rd_data;
  wire [`VTA_OUT_MATRIX_WIDTH-1:0] out_wr_data, out_rd_data;
  vta_sram #(.Width(`VTA_INP_MATRIX_WIDTH), .LogDepth(`VTA_LOG_INP_BUFF_DEPTH)) u_inp (
      .clk_i(clk_i), .wr_en_i(inp_wr_en), .wr_addr_i(inp_wr_addr), .wr_data_i(inp_wr_data),
      .rd_en_i(inp_rd_en), .rd_addr_i(inp_rd_addr), .rd_data_o(inp_rd_data));
  vta_sram #(.Width(`VTA_WGT_MATRIX_WIDTH), .LogDepth(`VTA_LOG_WGT_BUFF_DEPTH)) u_wgt (
      .clk_i(clk_i), .wr_en_i(wgt_wr_en), .wr_addr_i(wgt_wr_addr), .wr_data_i(wgt_wr_data),
      .rd_en_i(wgt_rd_en), .rd_addr_i(wgt_rd_addr), .rd_data_o(wgt_rd_data));
  // OUT in four banks (row % 4) like ACC: compute writes the GEMM unit's
  // results (port G) and the ALU's (port A) in the same cycle, in different banks
  localparam LogOutRow = `VTA_LOG_OUT_BUFF_DEPTH - 2;
  wire out_a_wr_en;
  wire [`VTA_LOG_OUT_BUFF_DEPTH-1:0] out_a_wr_addr;
  wire [`VTA_OUT_MATRIX_WIDTH-1:0] out_a_wr_data;
  wire [4*`VTA_OUT_MATRIX_WIDTH-1:0] out_bk_rd_data;
  reg  [1:0] out_rd_bank_q;
  always @(posedge clk_i) if (out_rd_en) out_rd_bank_q <= out_rd_addr[1:0];
  assign out_rd_data = out_bk_rd_data[out_rd_bank_q*`VTA_OUT_MATRIX_WIDTH +: `VTA_OUT_MATRIX_WIDTH];
  genvar gob;
  generate
    for (gob = 0; gob < 4; gob = gob + 1) begin : gen_out_bank
      wire g_hit = out_wr_en && out_wr_addr[1:0] == gob;
      wire a_hit = out_a_wr_en && out_a_wr_addr[1:0] == gob;
      vta_sram #(.Width(`VTA_OUT_MATRIX_WIDTH), .LogDepth(LogOutRow)) u_out (
          .clk_i(clk_i), .wr_en_i(g_hit || a_hit),
          .wr_addr_i(g_hit ? out_wr_addr[`VTA_LOG_OUT_BUFF_DEPTH-1:2] : out_a_wr_addr[`VTA_LOG_OUT_BUFF_DEPTH-1:2]),
          .wr_data_i(g_hit ? out_wr_data : out_a_wr_data),
          .rd_en_i(out_rd_en && out_rd_addr[1:0] == gob), .rd_addr_i(out_rd_addr[`VTA_LOG_OUT_BUFF_DEPTH-1:2]),
          .rd_data_o(out_bk_rd_data[gob*`VTA_OUT_MATRIX_WIDTH +: `VTA_OUT_MATRIX_WIDTH]));
    end
  endgenerate

  wire ld_err_illegal, ld_err_range, ld_err_dram, ld_busy, ld_tokwait, ld_progress;
  wire ld_elem, cp_elem;  // a DRAM element (not a pad) was written to an SRAM
  wire [2:0] ld_elem_type, cp_elem_type;
  wire [TagW-1:0] ld_err_idx, ld_push_idx;  // a load error's and the last l2g push's instruction
  vta_load #(.AddrWidth(AddrWidth), .BeatWidth(BeatWidth), .IdxW(TagW)) u_load (
      .clk_i(clk_i), .rst_i(rst_ld_q), .run_i(running_q), .flush_i(flush_ld_q),
      .insn_valid_i(ldq_valid), .insn_i(ldq_data[127:0]), .insn_idx_i(ldq_data[TagW+127:128]),
      .insn_pop_o(ldq_pop),
      .g2l_avail_i(g2l_avail), .g2l_pop_o(g2l_pop), .l2g_push_o(l2g_push),
      .inp_base_i(inp_base_q[AddrWidth-1:0]), .wgt_base_i(wgt_base_q[AddrWidth-1:0]),
      .inp_wr_en_o(inp_wr_en), .inp_wr_addr_o(inp_wr_addr), .inp_wr_data_o(inp_wr_data),
      .wgt_wr_en_o(wgt_wr_en), .wgt_wr_addr_o(wgt_wr_addr), .wgt_wr_data_o(wgt_wr_data),
      .dma_req_valid_o(rd_req_valid[1]), .dma_req_addr_o(rd_req_addr[1*AddrWidth +: AddrWidth]),
      .dma_req_beats_o(rd_req_beats[1*BeatWidth +: BeatWidth]), .dma_req_ready_i(rd_req_ready[1]),
      .dma_valid_i(rd_valid[1]), .dma_ready_o(rd_ready[1]), .dma_data_i(rd_data), .dma_err_i(rd_err),
      .err_illegal_o(ld_err_illegal), .err_idx_o(ld_err_idx), .push_idx_o(ld_push_idx),
      .err_range_o(ld_err_range),
      .err_dram_o(ld_err_dram),
      .busy_o(ld_busy), .tokwait_o(ld_tokwait), .progress_o(ld_progress),
      .elem_o(ld_elem), .elem_type_o(ld_elem_type));

  wire cp_finish, cp_err_illegal, cp_err_range, cp_err_dram, cp_busy_gemm, cp_busy_alu, cp_busy;
  wire cp_tokwait, cp_gemm_uop, cp_reset_uop, cp_alu_uop, cp_progress;
  // FINISH waits until fetch has dispatched the rest of the stream or is
  // blocked by a full queue, so an illegal instruction behind FINISH is found
  // whatever the DRAM timing, as in the golden model (docs/rtl.md, FINISH)
  wire cpq_finish = (cpq_data[`VTA_GEMM_OPCODE_LSB +: `VTA_GEMM_OPCODE_WIDTH] == `VTA_OPCODE_FINISH);
  // Once fetch's head waits at a full queue (quiet_o, a cycle old) while a
  // FINISH is queued for compute or held by it, fetch holds its head until
  // that FINISH has executed: the golden model executes FINISH in the round
  // its fetch stopped at the full queue (docs/rtl.md, FINISH). Not while
  // compute waits for a token (it may come from an instruction not yet
  // dispatched); FINISH may go while fetch holds.
  // (make timing: fetch's dispatch gate is a register, loaded with the hold's
  // next value; compute's token wait is taken a cycle late, a wait releases the
  // hold a cycle later)
  // "A FINISH is queued for compute or held by it" is, while the run is on, "a
  // FINISH was dispatched in this run" (fin_seen_q): the first FINISH compute
  // takes ends the run when it executes, and the run stays off until the next
  // start, which clears the flag.
  // The hold is
  //   fin_hold_w = !cp_tokwait_q && fin_seen_q && (f_quiet || fin_hold_q),
  //   fin_hold   = running_q && fin_hold_w  (fin_hold_q: fin_hold a cycle old),
  // with cp_tokwait_q compute's token wait a cycle old. fin_hold_w is a register
  // of its own, fin_hold_wq, loaded with that expression's next value
  // (fin_hold_wd): the next values of its four registers are those of the token
  // wait, of fin_seen_q (this cycle's FINISH push), of quiet_o (fetch's
  // quiet_nx_o) and of fin_hold_q (running_q && fin_hold_wq); a start or reset
  // clears all of them (make timing: quiet_o fed fetch's dispatch through this
  // LUT, then the pushes and their fanout).
  reg  fin_seen_q;   // fetch dispatched a FINISH since the start
  reg  fin_hold_q;   // fin_hold, a cycle old
  reg  fin_hold_wq;  // = fin_hold_w
  wire fin_hold_wd = !(core_rst || fetch_start) && !cp_tokwait && (fin_seen_q || f_fin_push) &&
                     (f_quiet_nx || (running_q && fin_hold_wq));
  // fetch's no-dispatch (next cycle): halt or hold. fin_hold_w without running_q:
  // it differs from fin_hold only while running_q is low, where halt_q is set,
  // except in a start's cycle, where fetch has nothing to dispatch (a start is
  // accepted only once fetch is idle) (make timing: running_q's fanout)
  assign f_nodisp_nx = halt_d || fin_hold_wd;
  wire cpq_valid_gated = cpq_valid && !(cpq_finish && !f_quiet && !fin_hold_q);
  always @(posedge clk_i) begin
    fin_hold_wq <= fin_hold_wd;
    if (core_rst || fetch_start) begin
      fin_seen_q  <= 1'b0;
      fin_hold_q  <= 1'b0;
    end else begin
      if (f_fin_push) fin_seen_q <= 1'b1;
      fin_hold_q  <= running_q && fin_hold_wq;
    end
  end
  vta_compute #(.AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_compute (
      .clk_i(clk_i), .rst_i(rst_cp_q), .run_i(running_q), .flush_i(flush_cp_q),
      .insn_valid_i(cpq_valid_gated), .insn_i(cpq_data[127:0]), .insn_pop_o(cpq_pop),
      .l2g_avail_i(l2g_avail), .s2g_avail_i(s2g_avail), .l2g_pop_o(l2g_pop), .s2g_pop_o(s2g_pop),
      .g2l_push_o(g2l_push), .g2s_push_o(g2s_push),
      .uop_base_i(uop_base_q[AddrWidth-1:0]), .acc_base_i(acc_base_q[AddrWidth-1:0]),
      .inp_rd_en_o(inp_rd_en), .inp_rd_addr_o(inp_rd_addr), .inp_rd_data_i(inp_rd_data),
      .wgt_rd_en_o(wgt_rd_en), .wgt_rd_addr_o(wgt_rd_addr), .wgt_rd_data_i(wgt_rd_data),
      .out_wr_en_o(out_wr_en), .out_wr_addr_o(out_wr_addr), .out_wr_data_o(out_wr_data),
      .out_alu_wr_en_o(out_a_wr_en), .out_alu_wr_addr_o(out_a_wr_addr), .out_alu_wr_data_o(out_a_wr_data),
      .dma_req_valid_o(rd_req_valid[2]), .dma_req_addr_o(rd_req_addr[2*AddrWidth +: AddrWidth]),
      .dma_req_beats_o(rd_req_beats[2*BeatWidth +: BeatWidth]), .dma_req_ready_i(rd_req_ready[2]),
      .dma_valid_i(rd_valid[2]), .dma_ready_o(rd_ready[2]), .dma_data_i(rd_data), .dma_err_i(rd_err),
      .finish_o(cp_finish), .err_illegal_o(cp_err_illegal), .err_range_o(cp_err_range),
      .err_dram_o(cp_err_dram), .busy_gemm_o(cp_busy_gemm), .busy_alu_o(cp_busy_alu),
      .busy_o(cp_busy), .tokwait_o(cp_tokwait), .gemm_uop_o(cp_gemm_uop),
      .reset_uop_o(cp_reset_uop), .alu_uop_o(cp_alu_uop), .progress_o(cp_progress),
      .elem_o(cp_elem), .elem_type_o(cp_elem_type));

  wire st_err_illegal, st_err_range, st_busy, st_tokwait, st_progress, st_elem;
  vta_store #(.AddrWidth(AddrWidth), .BeatWidth(BeatWidth)) u_store (
      .clk_i(clk_i), .rst_i(rst_st_q), .run_i(running_q), .flush_i(flush_st_q),
      .insn_valid_i(stq_valid), .insn_i(stq_data[127:0]), .insn_pop_o(stq_pop),
      .g2s_avail_i(g2s_avail), .g2s_pop_o(g2s_pop), .s2g_push_o(s2g_push),
      .out_base_i(out_base_q[AddrWidth-1:0]),
      .out_rd_en_o(out_rd_en), .out_rd_addr_o(out_rd_addr), .out_rd_data_i(out_rd_data),
      .dma_req_valid_o(wr_req_valid), .dma_req_addr_o(wr_req_addr), .dma_req_beats_o(wr_req_beats),
      .dma_req_ready_i(wr_req_ready), .dma_valid_o(wr_valid), .dma_data_o(wr_data),
      .dma_strb_o(wr_strb), .dma_ready_i(wr_ready), .dma_idle_i(wr_idle),
      .err_illegal_o(st_err_illegal), .err_range_o(st_err_range), .busy_o(st_busy),
      .tokwait_o(st_tokwait), .progress_o(st_progress), .elem_o(st_elem));

  vta_dma #(.NumRd(3), .AddrWidth(AddrWidth), .BeatWidth(BeatWidth), .TagW(TagW)) u_dma (
      .clk_i(clk_i), .rst_i(rst_dma_q), .hold_i(dma_hold),
      .rd_req_valid_i(rd_req_valid), .rd_req_addr_i(rd_req_addr), .rd_req_beats_i(rd_req_beats),
      .rd_req_ready_o(rd_req_ready), .rd_valid_o(rd_valid), .rd_ready_i(rd_ready),
      .rd_data_o(rd_data), .rd_err_o(rd_err),
      .wr_req_valid_i(wr_req_valid), .wr_req_addr_i(wr_req_addr), .wr_req_beats_i(wr_req_beats),
      .wr_req_tag_i(st_idx_q), .wr_req_ready_o(wr_req_ready), .wr_valid_i(wr_valid),
      .wr_data_i(wr_data), .wr_strb_i(wr_strb), .wr_ready_o(wr_ready), .wr_idle_o(wr_idle),
      .wr_err_o(wr_err), .wr_err_tag_o(wr_err_idx),
      .idle_o(dma_idle), .err_o(dma_err), .err_addr_o(dma_err_addr),
      .m_axi_araddr(m_axi_araddr), .m_axi_arlen(m_axi_arlen), .m_axi_arsize(m_axi_arsize),
      .m_axi_arburst(m_axi_arburst), .m_axi_arcache(m_axi_arcache), .m_axi_arprot(m_axi_arprot),
      .m_axi_arvalid(m_axi_arvalid), .m_axi_arready(m_axi_arready), .m_axi_rdata(m_axi_rdata),
      .m_axi_rresp(m_axi_rresp), .m_axi_rlast(m_axi_rlast), .m_axi_rvalid(m_axi_rvalid),
      .m_axi_rready(m_axi_rready), .m_axi_awaddr(m_axi_awaddr), .m_axi_awlen(m_axi_awlen),
      .m_axi_awsize(m_axi_awsize), .m_axi_awburst(m_axi_awburst), .m_axi_awcache(m_axi_awcache),
      .m_axi_awprot(m_axi_awprot), .m_axi_awvalid(m_axi_awvalid), .m_axi_awready(m_axi_awready),
      .m_axi_wdata(m_axi_wdata), .m_axi_wstrb(m_axi_wstrb), .m_axi_wlast(m_axi_wlast),
      .m_axi_wvalid(m_axi_wvalid), .m_axi_wready(m_axi_wready), .m_axi_bresp(m_axi_bresp),
      .m_axi_bvalid(m_axi_bvalid), .m_axi_bready(m_axi_bready));

  // Fetch sees a queue as full when the queue and its module together hold
  // VTA_INSN_QUEUE_DEPTH instructions (the FIFO's RAM, its output register and the
  // module's current instruction): the depth of the golden model's queues, so a
  // program that fills a queue deadlocks exactly where the golden model does.
  // The flags are registers (make timing: they feed fetch's dispatch, the queues'
  // push and the FINISH gate), set from this cycle's occupancy and what changes it:
  // fetch's push adds one; the module's pop removes one if it holds an instruction
  // (busy) and none if it does not (it holds the one it takes). A module becomes
  // busy only by a pop, so that bounds the next occupancy from above, and equals it
  // unless the module finishes an instruction without taking the next: then the
  // flag may stay set one cycle longer (fetch waits a cycle), never clear early.
  // The RAM count is compared with constants; the late flags enter the last gates.
  function occ_ge;  // occupancy cnt + valid + busy >= k
    input [LogInsnQ:0] cnt;
    input              valid, busy;
    input integer      k;
    reg   [31:0]       c;
    begin
      c      = {{(31-LogInsnQ){1'b0}}, cnt};
      occ_ge = (c >= k) || ((c >= k - 1) && (valid || busy)) || ((c >= k - 2) && valid && busy);
    end
  endfunction
  function full_next;
    input [LogInsnQ:0] cnt;
    input              valid, busy, push, pop;
    reg                up, down;
    begin
      up        = push && !(pop && busy);
      down      = !push && pop && busy;
      full_next = up   ? occ_ge(cnt, valid, busy, `VTA_INSN_QUEUE_DEPTH - 1) :
                  down ? occ_ge(cnt, valid, busy, `VTA_INSN_QUEUE_DEPTH + 1) :
                         occ_ge(cnt, valid, busy, `VTA_INSN_QUEUE_DEPTH);
    end
  endfunction
  reg ldq_full_q, cpq_full_q, stq_full_q;
  always @(posedge clk_i) begin
    // a start empties the queues (a module may still hold an instruction)
    if (core_rst || fetch_start) begin
      ldq_full_q <= 1'b0;
      cpq_full_q <= 1'b0;
      stq_full_q <= 1'b0;
    end else begin
      ldq_full_q <= full_next(ldq_cnt, ldq_valid, ld_busy, f_ld_push, ldq_pop);
      cpq_full_q <= full_next(cpq_cnt, cpq_valid, cp_busy, f_cp_push, cpq_pop);
      stq_full_q <= full_next(stq_cnt, stq_valid, st_busy, f_st_push, stq_pop);
    end
  end
  assign ldq_fullq = ldq_full_q;
  assign cpq_fullq = cpq_full_q;
  assign stq_fullq = stq_full_q;

  // ---------------------------------------------------------------- status
  wire all_idle = !f_busy && !ld_busy && !cp_busy && !st_busy && !ldq_valid && !cpq_valid &&
                  !stq_valid && wr_idle;
  // as the registers show them: one cycle old (the busy flags come late in the cycle)
  reg  all_idle_q, f_idle_q;
  always @(posedge clk_i) begin
    all_idle_q <= all_idle;
    f_idle_q   <= !f_busy;
  end   // writes of finished STOREs may still await B
  // Error events; those of a run that a soft reset is draining are ignored.
  wire ev_ok     = !sr_active;
  wire e_illegal = ev_ok && (f_err_illegal || ld_err_illegal || cp_err_illegal || st_err_illegal);
  wire e_range   = ev_ok && (ld_err_range || cp_err_range || st_err_range);
  wire e_dram    = ev_ok && (f_err_dram || ld_err_dram || cp_err_dram || wr_err);
  wire e_token   = ev_ok && (l2g_ovf || g2l_ovf || g2s_ovf || s2g_ovf);
  wire progress  = f_progress || ld_progress || cp_progress || st_progress;
  // The watchdog works one cycle behind the modules, from registered progress
  // and a registered comparison (make timing): it fires two cycles later than
  // a combinational one would, and only while the run is still on.
  reg  progress_q, wd_hit_q;
  wire any_err   = err_illegal_q || err_range_q || err_dram_q || err_token_q || err_wd_q ||
                   err_busy_q;
  // WATCHDOG = 0 disables the watchdog
  wire wd_fire   = wd_hit_q && running_q;
  always @(posedge clk_i) begin
    progress_q <= progress;
    wd_hit_q   <= !core_rst && running_q && !progress_q && (watchdog_q != 32'd0) &&
                  (wd_cnt_q >= watchdog_q);
  end
  wire e_stop    = e_illegal || e_range || e_dram || e_token || wd_fire;  // ends the run
  wire e_any     = e_stop || start_busy;
  // the run's next state (running_q's only assignment): a start or a soft-reset
  // request sets it (to whether it is a start), FINISH and every error clear it
  wire running_d = (fetch_start || sr_req) ? fetch_start :
                   (running_q && !(cp_finish && ev_ok) && !e_stop);
  // fetch's halt from the next values of running_q and fetch_start, so it is a
  // flip-flop (make timing: fetch_start fans out to every module, and the
  // halt is the first gate of fetch's dispatch)
  // (fetch_start's next value: start_d[1])
  assign halt_d = rst_i || (!running_d && !start_d[1]);
  always @(posedge clk_i) halt_q <= halt_d;

  reg [2:0] err_src;
  always @* begin
    err_src = 3'd0;
    if (!ev_ok) err_src = 3'd0;
    else if (f_err_dram || f_err_illegal) err_src = `VTA_ERRSRC_FETCH;
    else if (ld_err_illegal || ld_err_range || ld_err_dram) err_src = `VTA_ERRSRC_LOAD;
    else if (cp_err_illegal || cp_err_range || cp_err_dram) err_src = `VTA_ERRSRC_COMPUTE;
    else if (st_err_illegal || st_err_range || wr_err) err_src = `VTA_ERRSRC_STORE;
    else if (e_token) err_src = `VTA_ERRSRC_TOKEN;
    else if (wd_fire) err_src = `VTA_ERRSRC_WATCHDOG;
    if (start_busy && err_src == 3'd0) err_src = `VTA_ERRSRC_BUSY;
  end

  // AXI addresses for ERR_ADDR: vta_dma names the beat (reads) or burst (writes)
  // of an error response (dma_err, dma_err_addr), in the cycle the client's
  // error flag rises.

  // Instruction indices for ERR_INSN: each queued instruction carries its index
  // in the stream (disp_idx_q when fetch dispatched it); a module's current
  // instruction is the last one it popped.
  always @(posedge clk_i) begin
    if (core_rst || fetch_start) disp_idx_q <= 0;
    else if (f_ld_push || f_cp_push || f_st_push) disp_idx_q <= disp_idx_q + 1'b1;
    if (ldq_pop) ld_idx_q <= ldq_data[TagW+127:128];
    if (cpq_pop) cp_idx_q <= cpq_data[TagW+127:128];
    if (stq_pop) st_idx_q <= stq_data[TagW+127:128];
  end
  wire [AddrWidth-1:0] f_err_off = dma_err_addr - insn_addr_q[AddrWidth-1:0];
  // deadlock: the earliest instruction a module waits at, else the last one
  // (the stream ended without FINISH), as the golden model reports it
  // The minimum of the four is taken in three registered steps (a deadlock
  // holds still; the watchdog fires at least three cycles after the last
  // progress): the stream's last instruction, then each busy module's.
  reg [TagW-1:0] wd_a_q, wd_b_q, wd_c_q, wd_d_q, wd_ab_q, wd_cd_q, wd_idx, err_idx;
  always @(posedge clk_i) begin
    wd_a_q  <= insn_count_q - 1'b1;
    wd_b_q  <= ld_busy ? ld_idx_q : {TagW{1'b1}};
    wd_c_q  <= cp_busy ? cp_idx_q : {TagW{1'b1}};
    wd_d_q  <= st_busy ? st_idx_q : {TagW{1'b1}};
    wd_ab_q <= (wd_b_q < wd_a_q) ? wd_b_q : wd_a_q;
    wd_cd_q <= (wd_d_q < wd_c_q) ? wd_d_q : wd_c_q;
    wd_idx  <= (wd_cd_q < wd_ab_q) ? wd_cd_q : wd_ab_q;
  end
  always @* begin
    case (err_src)
      `VTA_ERRSRC_FETCH:    err_idx = f_err_illegal ? disp_idx_q : f_err_off[TagW+3:4];
      `VTA_ERRSRC_LOAD:     err_idx = ld_err_idx;
      `VTA_ERRSRC_COMPUTE:  err_idx = cp_idx_q;
      // a failing write response: the STORE whose burst it was (store may be at a later one)
      `VTA_ERRSRC_STORE:    err_idx = wr_err ? wr_err_idx : st_idx_q;
      // the queue's producer: l2g load, g2l and g2s compute, s2g store
      `VTA_ERRSRC_TOKEN:    err_idx = l2g_ovf ? ld_push_idx : s2g_ovf ? st_idx_q : cp_idx_q;
      `VTA_ERRSRC_WATCHDOG: err_idx = wd_idx;
      default:              err_idx = {TagW{1'b1}};
    endcase
  end

  // The first error's source and instruction are recorded a cycle after the
  // event, from registers (make timing: the source's priority, the index mux
  // and the enable of 35 flip-flops were one path); STATUS and the run's end
  // are not delayed. A start or soft-reset request in that cycle clears them
  // as it would have cleared the record.
  reg  [2:0]      err_src_q;
  reg  [TagW-1:0] err_idx_q;
  reg             err_rec_q;  // err_src_q is the first error since the flags were clear
  always @(posedge clk_i) begin
    err_src_q <= err_src;
    err_idx_q <= err_idx;
    err_rec_q <= !rst_i && !fetch_start && !sr_req && !any_err && err_src != 0;
  end

  // increment of each counter: bus bytes, element bytes of a memory type, or 1
  function [NumCnt*16-1:0] cnt_steps;
    input integer first;  // 0 (a constant function needs an input)
    integer i;
    begin
      cnt_steps = {(NumCnt*16){1'b0}};
      for (i = first; i < NumCnt; i = i + 1) cnt_steps[i*16 +: 16] = 16'd1;
      cnt_steps[CiRdBytes*16 +: 16] = 16'd1 << LogBusBytes;
      cnt_steps[CiWrBytes*16 +: 16] = `VTA_OUT_ELEM_BYTES;
      cnt_steps[(CiRdType + `VTA_MEM_ID_UOP)*16 +: 16]      = `VTA_UOP_ELEM_BYTES;
      cnt_steps[(CiRdType + `VTA_MEM_ID_WGT)*16 +: 16]      = `VTA_WGT_ELEM_BYTES;
      cnt_steps[(CiRdType + `VTA_MEM_ID_INP)*16 +: 16]      = `VTA_INP_ELEM_BYTES;
      cnt_steps[(CiRdType + `VTA_MEM_ID_ACC)*16 +: 16]      = `VTA_ACC_ELEM_BYTES;
      cnt_steps[(CiRdType + `VTA_MEM_ID_ACC_8BIT)*16 +: 16] = `VTA_ACC8_ELEM_BYTES;
    end
  endfunction
  localparam [NumCnt*16-1:0] CntStep = cnt_steps(0);
  // The counters take their events and their clear one cycle late, from
  // registers (make timing): each value is the same, one cycle later. The
  // events are gathered in the clocked block: the R handshake and the store's
  // elements depend on inputs, and logic outside a clocked block that does is
  // evaluated on every eval of the simulated model (docs/rtl.md, Simulation speed).
  // The dispatch by opcode: the push and the opcode are registered, the one-hot
  // decode is formed after them in front of the counters' enables (make timing:
  // the push was the decode's synchronous reset, at the end of fetch's dispatch
  // path). The same increments in the same cycles.
  wire f_push = f_ld_push || f_cp_push || f_st_push;
  reg [CiInsnOp-1:0]  cnt_inc_q;   // the named counters' events
  reg [NumCnt-CiRdType-1:0] rd_inc_q;  // element bytes read, by memory type
  reg [2:0]           disp_op_q;   // the opcode of the instruction fetch offered last cycle
  reg                 cnt_clr_q;
  wire [NumCnt-1:0]   cnt_inc = {rd_inc_q, cnt_inc_q[CiInsns] ? (8'd1 << disp_op_q) : 8'd0,
                                 cnt_inc_q};
  always @(posedge clk_i) begin
    cnt_inc_q[CiCycles]    <= running_q;
    cnt_inc_q[CiLoadBusy]  <= ld_busy;
    cnt_inc_q[CiGemmBusy]  <= cp_busy_gemm;
    cnt_inc_q[CiAluBusy]   <= cp_busy_alu;
    cnt_inc_q[CiStoreBusy] <= st_busy;
    cnt_inc_q[CiLoadWait]  <= ld_tokwait;
    cnt_inc_q[CiCompWait]  <= cp_tokwait;
    cnt_inc_q[CiStoreWait] <= st_tokwait;
    cnt_inc_q[CiRdBytes]   <= m_axi_rvalid && m_axi_rready;
    cnt_inc_q[CiWrBytes]   <= st_elem;  // element bytes: narrow elements fill part of a beat
    cnt_inc_q[CiGemmUops]  <= cp_gemm_uop;
    cnt_inc_q[CiResetUops] <= cp_reset_uop;
    cnt_inc_q[CiAluUops]   <= cp_alu_uop;
    cnt_inc_q[CiInsns]     <= f_push;
    disp_op_q              <= f_insn[`VTA_GEMM_OPCODE_LSB +: 3];
    // by memory type: a one-hot decode
    rd_inc_q <= (ld_elem ? (8'd1 << ld_elem_type) : 8'd0) |
                (cp_elem ? (8'd1 << cp_elem_type) : 8'd0);
    cnt_clr_q <= core_rst || fetch_start;
  end
  // The counters, one vector in one block, cleared at reset and at the start of
  // a run. For the simulator this is the cheap form: one copy of the vector a
  // clock (its shadow, a few wide moves) and a test and 64-bit add per counter;
  // 30 registers in blocks of their own each got a shadow and the read mux a
  // 1,920-bit vector assembled from them every clock (docs/rtl.md, Simulation speed).
  // The clear is the last branch so that the increments read the vector first.
  integer ci;
  always @(posedge clk_i) begin
    if (!(rst_i || cnt_clr_q)) begin
      for (ci = 0; ci < NumCnt; ci = ci + 1)
        if (cnt_inc[ci]) cnt_q[ci*64 +: 64] <= cnt_q[ci*64 +: 64] + {48'd0, CntStep[ci*16 +: 16]};
    end else cnt_q <= {(NumCnt*64){1'b0}};
  end
  always @(posedge clk_i) begin
    if (rst_i) begin
      fetch_start_q  <= 1'b0;
      fetch_done_q   <= 1'b0;
      compute_done_q <= 1'b0;
      running_q      <= 1'b0;
      gie_q <= 1'b0; ier_q <= 2'd0; isr_q <= 2'd0; irq <= 1'b0;
      insn_count_q <= 0; done_wr_q <= 0;
      watchdog_q     <= 32'd65536;
      ld_ctrl_q <= 0; cp_ctrl_q <= 0; st_ctrl_q <= 0; fetch_ar_q <= 0;
      insn_addr_q <= 0; inp_base_q <= 0; wgt_base_q <= 0; uop_base_q <= 0; acc_base_q <= 0;
      out_base_q  <= 0;
      err_illegal_q <= 1'b0; err_range_q <= 1'b0; err_dram_q <= 1'b0; err_token_q <= 1'b0;
      err_wd_q <= 1'b0; err_busy_q <= 1'b0; err_info_q <= 0; err_insn_q <= {TagW{1'b1}};
      err_addr_q <= 64'd0; err_addr_v_q <= 1'b0;
      wd_cnt_q <= 0;
      sr_state_q <= SrIdle; sr_cnt_q <= 3'd0; reset_done_q <= 1'b1;
      s_axil_bvalid <= 1'b0;
      wr_pend_q     <= 1'b0;
      s_axil_rvalid <= 1'b0;
    end else begin
      // AXI4-Lite handshakes
      if (s_axil_bvalid && s_axil_bready) s_axil_bvalid <= 1'b0;
      wr_pend_q <= wr_go;
      if (wr_pend_q) s_axil_bvalid <= 1'b1;
      if (s_axil_rvalid && s_axil_rready) s_axil_rvalid <= 1'b0;
      if (rd_go) begin
        s_axil_rvalid <= 1'b1;
        case (ra)
          `VTA_REG_FETCH_CTRL:        s_axil_rdata <= {24'd0, fetch_ar_q[7], 4'd0, f_idle_q, fetch_done_q, fetch_start_q};
          `VTA_REG_FETCH_GIE:         s_axil_rdata <= {31'd0, gie_q};
          `VTA_REG_FETCH_IER:         s_axil_rdata <= {30'd0, ier_q};
          `VTA_REG_FETCH_ISR:         s_axil_rdata <= {30'd0, isr_q};
          `VTA_REG_FETCH_INSN_COUNT:  s_axil_rdata <= insn_count_q;
          `VTA_REG_FETCH_INSN_ADDR:   s_axil_rdata <= insn_addr_q[31:0];
          `VTA_REG_FETCH_INSN_ADDR_HI: s_axil_rdata <= insn_addr_q[63:32];
          `VTA_REG_LOAD_CTRL:         s_axil_rdata <= {24'd0, ld_ctrl_q[7], 3'd0, 1'b1, 1'b1, 1'b0, ld_ctrl_q[0]};
          `VTA_REG_LOAD_INP_ADDR:     s_axil_rdata <= inp_base_q[31:0];
          `VTA_REG_LOAD_INP_ADDR_HI:  s_axil_rdata <= inp_base_q[63:32];
          `VTA_REG_LOAD_WGT_ADDR:     s_axil_rdata <= wgt_base_q[31:0];
          `VTA_REG_LOAD_WGT_ADDR_HI:  s_axil_rdata <= wgt_base_q[63:32];
          `VTA_REG_COMPUTE_CTRL:      s_axil_rdata <= {24'd0, cp_ctrl_q[7], 3'd0, 1'b1, 1'b1, 1'b0, cp_ctrl_q[0]};
          `VTA_REG_COMPUTE_DONE_WR:   s_axil_rdata <= done_wr_q;
          `VTA_REG_COMPUTE_DONE:      s_axil_rdata <= {31'd0, compute_done_q};
          `VTA_REG_COMPUTE_UOP_ADDR:  s_axil_rdata <= uop_base_q[31:0];
          `VTA_REG_COMPUTE_UOP_ADDR_HI: s_axil_rdata <= uop_base_q[63:32];
          `VTA_REG_COMPUTE_BIAS_ADDR: s_axil_rdata <= acc_base_q[31:0];
          `VTA_REG_COMPUTE_BIAS_ADDR_HI: s_axil_rdata <= acc_base_q[63:32];
          `VTA_REG_STORE_CTRL:        s_axil_rdata <= {24'd0, st_ctrl_q[7], 3'd0, 1'b1, 1'b1, 1'b0, st_ctrl_q[0]};
          `VTA_REG_STORE_OUT_ADDR:    s_axil_rdata <= out_base_q[31:0];
          `VTA_REG_STORE_OUT_ADDR_HI: s_axil_rdata <= out_base_q[63:32];
          `VTA_REG_CONFIG_ID:         s_axil_rdata <= `VTA_CONFIG_ID;
          `VTA_REG_HW_VERSION:        s_axil_rdata <= HwVersion;
          `VTA_REG_WATCHDOG:          s_axil_rdata <= watchdog_q;
          `VTA_REG_TOKENS:            s_axil_rdata <= {{(16-TokW){1'b0}}, g2l_cnt, {(16-TokW){1'b0}}, l2g_cnt};
          `VTA_REG_TOKENS2:           s_axil_rdata <= {{(16-TokW){1'b0}}, s2g_cnt, {(16-TokW){1'b0}}, g2s_cnt};
          `VTA_REG_ERR_INFO:          s_axil_rdata <= {29'd0, err_info_q};
          `VTA_REG_CONTROL:           s_axil_rdata <= {31'd0, sr_active};
          `VTA_REG_STATUS:            s_axil_rdata <= status_word;
          `VTA_REG_ERR_INSN:          s_axil_rdata <= err_insn_q;
          `VTA_REG_ERR_ADDR: begin
            s_axil_rdata <= err_addr_q[31:0];
            hi_snap_q    <= err_addr_q[63:32];
          end
          `VTA_REG_ERR_ADDR_HI:       s_axil_rdata <= hi_snap_q;
          default:
            if (!cnt_hit(ra)) s_axil_rdata <= 32'd0;
            else if (ra[2]) s_axil_rdata <= hi_snap_q;  // the high word latched with the low
            else begin
              s_axil_rdata <= cnt_q[cnt_idx(ra[7:3])*64 +: 32];
              hi_snap_q    <= cnt_q[cnt_idx(ra[7:3])*64 + 32 +: 32];
            end
        endcase
        if (ra == `VTA_REG_FETCH_CTRL) fetch_done_q <= 1'b0;  // ap_done clears on read
      end
      if (wr_go) begin
        case (wa)
          `VTA_REG_FETCH_CTRL:        fetch_ar_q <= wd[7:0];
          `VTA_REG_FETCH_GIE:         gie_q <= wd[`VTA_GIE_ENABLE];
          `VTA_REG_FETCH_IER:         ier_q <= {wd[`VTA_IRQ_ERROR], wd[`VTA_IRQ_DONE]};
          `VTA_REG_FETCH_ISR:         isr_q <= isr_q & ~{wd[`VTA_IRQ_ERROR], wd[`VTA_IRQ_DONE]};
          `VTA_REG_FETCH_INSN_COUNT:  insn_count_q <= wd;
          `VTA_REG_FETCH_INSN_ADDR:   insn_addr_q[31:0] <= wd;
          `VTA_REG_FETCH_INSN_ADDR_HI: insn_addr_q[63:32] <= wd;
          `VTA_REG_LOAD_CTRL:         ld_ctrl_q <= wd[7:0];
          `VTA_REG_LOAD_INP_ADDR:     inp_base_q[31:0] <= wd;
          `VTA_REG_LOAD_INP_ADDR_HI:  inp_base_q[63:32] <= wd;
          `VTA_REG_LOAD_WGT_ADDR:     wgt_base_q[31:0] <= wd;
          `VTA_REG_LOAD_WGT_ADDR_HI:  wgt_base_q[63:32] <= wd;
          `VTA_REG_COMPUTE_CTRL:      cp_ctrl_q <= wd[7:0];
          `VTA_REG_COMPUTE_DONE_WR:   done_wr_q <= wd;
          `VTA_REG_COMPUTE_UOP_ADDR:  uop_base_q[31:0] <= wd;
          `VTA_REG_COMPUTE_UOP_ADDR_HI: uop_base_q[63:32] <= wd;
          `VTA_REG_COMPUTE_BIAS_ADDR: acc_base_q[31:0] <= wd;
          `VTA_REG_COMPUTE_BIAS_ADDR_HI: acc_base_q[63:32] <= wd;
          `VTA_REG_STORE_CTRL:        st_ctrl_q <= wd[7:0];
          `VTA_REG_STORE_OUT_ADDR:    out_base_q[31:0] <= wd;
          `VTA_REG_STORE_OUT_ADDR_HI: out_base_q[63:32] <= wd;
          `VTA_REG_WATCHDOG:          watchdog_q <= wd;
          `VTA_REG_STATUS: begin
            if (wd[`VTA_STATUS_ERR_ILLEGAL])  err_illegal_q <= 1'b0;
            if (wd[`VTA_STATUS_ERR_RANGE])    err_range_q <= 1'b0;
            if (wd[`VTA_STATUS_ERR_DRAM])     err_dram_q <= 1'b0;
            if (wd[`VTA_STATUS_ERR_TOKEN])    err_token_q <= 1'b0;
            if (wd[`VTA_STATUS_ERR_WATCHDOG]) err_wd_q <= 1'b0;
            if (wd[`VTA_STATUS_ERR_BUSY])     err_busy_q <= 1'b0;
            if (wd[`VTA_STATUS_RESET_DONE])   reset_done_q <= 1'b0;
          end
          default: ;
        endcase
      end

      // run control: an accepted start and a soft-reset request clear the run's
      // status and the error registers (the request also ISR and the run)
      running_q <= running_d;
      if (fetch_start || sr_req) begin
        fetch_done_q   <= 1'b0;
        compute_done_q <= 1'b0;
        reset_done_q   <= 1'b0;
        err_illegal_q <= 1'b0; err_range_q <= 1'b0; err_dram_q <= 1'b0; err_token_q <= 1'b0;
        err_wd_q <= 1'b0; err_busy_q <= 1'b0; err_info_q <= 0; err_insn_q <= {TagW{1'b1}};
        err_addr_q <= 64'd0; err_addr_v_q <= 1'b0;
        wd_cnt_q <= 0;
        if (fetch_start) fetch_start_q <= 1'b1;
        if (sr_req) isr_q <= 2'd0;
      end else begin
        if (fetch_start_q && !f_busy) begin
          fetch_start_q <= 1'b0;
          if (ev_ok) fetch_done_q <= 1'b1;
        end
        if (cp_finish && ev_ok) begin
          compute_done_q <= 1'b1;
          isr_q[0]       <= 1'b1;
        end
        if (e_illegal)  err_illegal_q <= 1'b1;
        if (e_range)    err_range_q <= 1'b1;
        if (e_dram)     err_dram_q <= 1'b1;
        if (e_token)    err_token_q <= 1'b1;
        if (wd_fire)    err_wd_q <= 1'b1;
        if (start_busy) err_busy_q <= 1'b1;
        if (e_any)      isr_q[1] <= 1'b1;
        if (err_rec_q) begin
          err_info_q <= err_src_q;
          err_insn_q <= err_idx_q;
        end
        if (ev_ok && !err_addr_v_q && dma_err) begin
          err_addr_q <= 64'd0;
          err_addr_q[AddrWidth-1:0] <= dma_err_addr;
          err_addr_v_q <= 1'b1;
        end
        wd_cnt_q <= (progress_q || !running_q) ? 32'd0 : wd_cnt_q + 1;
      end

      // soft reset (see above); the request cleared STATUS, the reset phase does the rest
      case (sr_state_q)
        SrIdle: if (sr_req) begin
          sr_state_q <= SrDrain;
          sr_cnt_q   <= 3'd0;
        end
        // dma_idle_q is one cycle old: from the second cycle on it shows a DMA
        // that can no longer leave idle (dma_hold)
        SrDrain: begin
          sr_cnt_q <= 3'd1;
          if (sr_cnt_q != 3'd0 && dma_idle_q) begin
            sr_state_q <= SrReset;
            sr_cnt_q   <= 3'd0;
          end
        end
        default: begin  // SrReset
          sr_cnt_q      <= sr_cnt_q + 3'd1;
          fetch_start_q <= 1'b0;
          if (sr_cnt_q == SrResetCycles - 3'd1) begin
            sr_state_q   <= SrIdle;
            reset_done_q <= 1'b1;
          end
        end
      endcase
      irq <= gie_q && ((isr_q & ier_q) != 2'd0);
    end
  end

`ifdef VTA_TRACE
  // Waveform builds only (RTL_TRACE=1, docs/rtl.md): the C harness names the
  // FST file (environment variable VTA_TRACE) through a DPI-C import.
  import "DPI-C" function string vta_trace_file();
  initial begin
    $dumpfile(vta_trace_file());
    $dumpvars(0, vta_top);
  end
`endif

  // Unused: upper AXI-Lite address bits below the word, write strobes, queue counts.
  // (the FIFOs' own full flags: the occupancy above reaches the depth first)
  wire unused_ok = ^{s_axil_awaddr[1:0], s_axil_araddr[1:0], s_axil_wstrb, ldq_full, cpq_full,
                     stq_full, m_axi_rresp[0], m_axi_bresp[0],
                     m_axi_rlast, f_err_off};
  // Parameter checks at elaboration (Verilator and Yosys stop on them;
  // Icarus 11, which only the equivalence testbenches use, does not take
  // $error outside procedures).
`ifndef __ICARUS__
  if (AddrWidth < 32 || AddrWidth > 64) begin : g_bad_addr_width
    $error("%m: AddrWidth = %0d: AXI addresses of 32 to 64 bits", AddrWidth);
  end
  if (`VTA_BUS_WIDTH < 32 || `VTA_BUS_WIDTH > 512) begin : g_bad_bus_width
    $error("%m: VTA_BUS_WIDTH = %0d: an AXI data bus of 32 to 512 bits", `VTA_BUS_WIDTH);
  end
  if (`VTA_INP_WIDTH != 8 || `VTA_WGT_WIDTH != 8 || `VTA_ACC_WIDTH != 32) begin : g_bad_operand_width
    $error("%m: int8 inputs and weights, int32 accumulators (INP %0d, WGT %0d, ACC %0d)", `VTA_INP_WIDTH, `VTA_WGT_WIDTH, `VTA_ACC_WIDTH);
  end
`endif

endmodule
`resetall
