#pragma once
/// \file
/// The vendor's rules that several NeuronCore instructions share (internal to TesseraIsa), each citing the page
/// that states it. An instruction's own rules live beside its definition; these are listed in the definitions of
/// every instruction they apply to.

#include "tessera/isa/InstructionSet.h"

namespace tessera::isa::instructions {

/// NKI's ALU operator table: divide is no ALU operator (multiply by a reciprocal instead), power runs on the GpSimd
/// engine only, abs_max exists from NeuronCore-v4 on.
std::string obeysAluTable(const Instruction &inst, Engine engine, const Target *target);
inline constexpr Rule kAluTableRule{
    "alu.table",
    "NKI API reference (Neuron 2.32), Supported Math Operators for NKI ISA (nki.api.shared.rst); NKI release notes "
    "0.3.0/0.4.0 known issues: \"Division is not available as a hardware instruction\"",
    obeysAluTable};

/// No operand in PSUM: NKI's DMA cannot read or write it.
std::string avoidsPsum(const Instruction &inst, Engine engine, const Target *target);

/// The two tensor inputs (src0 and src1, or src0 and src2 where `second` says) are not both in PSUM.
std::string inputsNotBothInPsum(const AccessPattern &first, const AccessPattern &second, const char *firstName,
                                const char *secondName);

} // namespace tessera::isa::instructions
