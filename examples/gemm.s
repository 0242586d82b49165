# A small GEMM on VTA (default configuration: 1x16x16 int8 tiles).
#
# Computes OUT = clip((X . W^T) >> 2, -128, 127) for a 4x16 int8 matrix X and
# a 16x16 int8 weight matrix W (stored output-channel-major, VTA-SPEC 2.3):
# one reset GEMM and one accumulating GEMM over 4 input rows, then ALU
# requantization (shift right, clip), then a STORE. Tokens order the three
# modules: load -> compute (l2g), compute -> store (g2s), store -> compute (s2g).
#
# Run it:  build/bin/vta sim examples/gemm.s

# instructions at address 0
load uop sram=0 dram=0x400 y=1 x=1 stride=1           # micro-op from 0x1000
load inp sram=0 dram=0x200 y=1 x=4 stride=4           # X from 0x2000
load wgt sram=0 dram=0x30 y=1 x=1 stride=1 push_next  # W from 0x3000
gemm reset uop=0,1 iter=1,4 dst=0,1 src=0,1 wgt=0,0 pop_prev
gemm uop=0,1 iter=1,4 dst=0,1 src=0,1 wgt=0,0
alu shr uop=0,1 iter=1,4 dst=0,1 src=0,1 imm=2
alu max uop=0,1 iter=1,4 dst=0,1 src=0,1 imm=-128
alu min uop=0,1 iter=1,4 dst=0,1 src=0,1 imm=127 push_next
store out sram=0 dram=0x400 y=1 x=4 stride=4 pop_prev push_prev  # to 0x4000
load uop sram=0 dram=0 y=0 x=0 stride=0 pop_next      # compute waits for the store
finish

# the micro-op: acc 0, inp 0, wgt 0 (the loops add the row offsets)
.org 0x1000
.uop 0 0 0

# X: 4 rows of 16 int8 (one INP element per row)
.org 0x2000
.byte -7 -6 -5 -4 -3 -2 -1 0 1 2 3 4 5 6 7 8
.byte -14 -12 -10 -8 -6 -4 -2 0 2 4 6 8 10 12 14 16
.byte -21 -18 -15 -12 -9 -6 -3 0 3 6 9 12 15 18 21 24
.byte -28 -24 -20 -16 -12 -8 -4 0 4 8 12 16 20 24 28 32

# W: 16 output channels x 16 input channels (one WGT element)
.org 0x3000
.byte 3 0 3 -1 2 -2 1 -3 0 3 -1 2 -2 1 -3 0
.byte 2 3 1 -3 0 3 -1 2 -2 1 -3 0 3 -1 2 -2
.byte 0 3 3 2 -2 1 -3 0 3 -1 2 -2 1 -3 0 3
.byte -2 1 -3 3 3 -1 2 -2 1 -3 0 3 -1 2 -2 1
.byte 3 -1 2 -2 3 -3 0 3 -1 2 -2 1 -3 0 3 -1
.byte 1 -3 0 3 -1 3 -2 1 -3 0 3 -1 2 -2 1 -3
.byte -1 2 -2 1 -3 0 3 -1 2 -2 1 -3 0 3 -1 2
.byte -3 0 3 -1 2 -2 1 3 0 3 -1 2 -2 1 -3 0
.byte 2 -2 1 -3 0 3 -1 2 3 1 -3 0 3 -1 2 -2
.byte 0 3 -1 2 -2 1 -3 0 3 3 2 -2 1 -3 0 3
.byte -2 1 -3 0 3 -1 2 -2 1 -3 3 3 -1 2 -2 1
.byte 3 -1 2 -2 1 -3 0 3 -1 2 -2 3 -3 0 3 -1
.byte 1 -3 0 3 -1 2 -2 1 -3 0 3 -1 3 -2 1 -3
.byte -1 2 -2 1 -3 0 3 -1 2 -2 1 -3 0 3 -1 2
.byte -3 0 3 -1 2 -2 1 -3 0 3 -1 2 -2 1 3 0
.byte 2 -2 1 -3 0 3 -1 2 -2 1 -3 0 3 -1 2 3

.print X 0x2000 i8 4 16
.print OUT 0x4000 i8 4 16
