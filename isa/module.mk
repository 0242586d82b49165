# The ISA library: error codes, instruction codec, assembler and program images.
LIB_SRCS += isa/error.c isa/isa.c isa/asm.c
