// Filled in by its owner; see isa/include/tessera/isa/DType.h
