# The ISA library: error codes, instruction codec, assembler, program images
# and small shared helpers.
LIB_SRCS += isa/error.c isa/isa.c isa/asm.c isa/util.c isa/bytes.c
