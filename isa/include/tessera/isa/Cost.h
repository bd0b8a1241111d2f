#pragma once
/// \file
/// What each instruction costs: the documented NeuronCore formulas, with every coefficient read from the
/// target (see isa/targets/*.toml for each figure's source).

#include "tessera/isa/Program.h"
#include "tessera/isa/Target.h"

#include <cstdint>

namespace tessera::isa {

/// Cycles `inst` occupies compute engine `engine`, at that engine's clock. Not for DMA: a transfer's time
/// depends on the bandwidth the queues share, which the simulator models (Target::dma).
uint64_t engineCycles(const Instruction &inst, Engine engine, const Target &target);

/// What a strided access multiplies an instruction's streaming cycles by: cost.strided_access_factor when an
/// operand it uses walks its innermost free dimension with a stride over cost.strided_access_bytes (NKI: such a
/// stride halves the access bandwidth), else 1.
uint64_t stridedAccessFactor(const Instruction &inst, const Target &target);

/// Tensor engine cycles of the LoadStationary that precedes a matmul or a tensor-engine transpose: the
/// stationary's M columns at load_stationary_factor per cycle (times matmul_fp32_factor for an FP32 matmul); 0
/// for other instructions. engineCycles() assumes it hidden behind the previous multiply; the simulator charges
/// it when the tensor engine had no multiply to hide it behind.
uint64_t loadStationaryCycles(const Instruction &inst, const Target &target);

/// The clock of the engine running a stream of this kind, in GHz (DMA: 1, costs are in ns).
double clockGhz(Engine engine, const Target &target);

/// Floating-point operations `inst` performs (a multiply-add counts 2).
uint64_t flops(const Instruction &inst);

/// Which of the matrix unit's published peaks `inst`'s FLOPs are measured against: a matmul's moving operand's
/// dtype (FP8 or FP32 have their own peaks); everything else, and BF16/FP16 matmuls, against the BF16 peak.
enum class PeakDtype : uint8_t { Bf16, Fp8, Fp32 };
inline constexpr unsigned kPeakDtypeCount = 3;
PeakDtype peakDtypeOf(const Instruction &inst);

/// The target's published peak for `dtype`, in TFLOP/s; the BF16 peak where it publishes none for that dtype.
double peakTflops(PeakDtype dtype, const Target &target);

/// HBM bytes `inst` moves (0 for compute instructions).
uint64_t hbmBytes(const Instruction &inst);

/// Whether activation function `f` is transcendental (exp, log, tanh, sqrt, rsqrt, reciprocal and the functions
/// built from them); identity, relu and square are not.
bool isTranscendental(ActFunc f);
/// Transcendental functions `inst` evaluates: one per destination element of an instruction that applies a
/// transcendental activation function (XLA's and Pallas' `transcendentals` count), else 0.
uint64_t transcendentals(const Instruction &inst);

} // namespace tessera::isa
