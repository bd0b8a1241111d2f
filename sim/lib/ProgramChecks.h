#pragma once
/// \file
/// The checks that stop a run with a message instead of letting it compute garbage or crash: the HBM image and
/// the streams are checked before the run starts, and so is each instruction (in timing-only runs too): the first
/// one that fails is checked again by its engine just before it would execute, which stops the run there.

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"
#include "tessera/sim/KernelBug.h"
#include "tessera/sim/Simulator.h"

#include <string>

namespace tessera::sim {

/// Gives `hbm` one buffer per tensor of the tensor's size: missing trailing buffers and empty ones are added,
/// zero-filled (outputs need not be passed in), unless `withStorage` is false (timing only: no value is ever read
/// or written, so empty buffers stay empty rather than costing a zero-filled copy of every tensor). A buffer of
/// any other size is an Error naming the tensor.
void prepareHbm(const isa::Program &program, HbmImage &hbm, bool withStorage = true);

/// Checks the program's engines against the target's family (no NeuronCore engine on a TPU, no TPU unit on a
/// NeuronCore) and the target figures the run divides by: the clock of each engine with a stream, the DMA
/// bandwidth and fixed latency when there are DMA streams, and the memory sizes (on a TPU also the MXUs, the vreg
/// shape and the per-cycle rates of its cost formulas).
void checkTarget(const isa::Program &program, const isa::Target &target);

/// Checks that each compute engine and each DMA queue has at most one stream, and the TPU's grid steps
/// (Instruction::step): only MXU, VPU and scalar-unit instructions carry them, all of those do, never decreasing
/// along a stream, and every step s of 1..S has exactly one GridStep, the scalar stream's s-th instruction
/// (anything else would hold the grid-step barrier forever or start a step twice).
void checkStreams(const isa::Program &program);

/// Checks what executing instruction `index` of `stream` relies on: the stream's engine can run its opcode;
/// its semaphore ids and wait/signal ranges are valid; its operand shapes agree (copies: same partitions and
/// elements; matmul: K, M, N); and every operand lies inside its memory (SBUF/PSUM partitions and bytes per
/// partition, VMEM/SMEM bytes of all its rows, HBM tensor bytes), a memory of the target's family. Throws an
/// Error naming the stream, the instruction, its opcode and source line, the operand and the range.
void checkInstruction(const isa::Program &program, const isa::Target &target, const isa::Stream &stream,
                      size_t index);

/// The index of the first instruction of `stream` that checkInstruction() rejects, or the stream's size: what each
/// engine finds before the run, in one tight loop. A compute engine's stream repeats itself (a loop's body over
/// rotating buffers: matmul 8192^3 on trn2 has 65,536 matmuls and about 2,000 different ones), so an instruction
/// whose work (opcode, settings, operands) equals one that passed has only its semaphores checked. A DMA queue's
/// transfers each move another tile of a few shapes: one whose work, operand offsets aside, equals one that passed
/// has its semaphores and operands' bounds checked (the instruction's own rules never read an offset; the TPU
/// family's VMEM bound, which does, is the operand bound again).
size_t firstInvalidInstruction(const isa::Program &program, const isa::Target &target, const isa::Stream &stream);

/// "stream 'vector', instruction 3 (tensor_copy)": how errors name an instruction.
std::string describeInstruction(const isa::Stream &stream, size_t index);

/// The instruction's kernel source location (unknown when the program has none).
SourceLoc locationOf(const isa::Program &program, const isa::Instruction &inst);

/// Instruction `index` of `stream` as a kernel-bug report names it, doing `action` ("reads src0", ...).
BugInstruction bugInstruction(const isa::Program &program, const isa::Stream &stream, size_t index,
                              std::string action);

} // namespace tessera::sim
