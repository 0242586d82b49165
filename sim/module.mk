# The golden model. -O3 lets gcc vectorize the GEMM and ALU lane loops.
LIB_SRCS += sim/fsim.c
$(OBJ)/sim/fsim.o: OPT := -O3
