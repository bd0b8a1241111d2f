// Filled in by its owner; see isa/include/tessera/isa/Error.h
