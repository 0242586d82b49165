# The golden model. -ftree-vectorize lets gcc vectorize the GEMM and ALU lane
# loops (-O3 would unroll them completely, which is slower here).
LIB_SRCS += sim/fsim.c
$(OBJ)/sim/fsim.o: OPT := -O2 -ftree-vectorize
