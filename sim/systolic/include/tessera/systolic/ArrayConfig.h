#pragma once
/// \file
/// What `tessera systolic` models: one systolic array (rows x cols processing elements, a dataflow, three SRAMs)
/// and one GEMM, C[M][N] = A[M][K] * B[K][N]. SCALE-Sim calls A the ifmap, B the filter and C the ofmap; so do
/// the access counts here.

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace tessera::systolic {

/// Which operand stays in the processing elements while the others stream through.
enum class Dataflow {
  WeightStationary, ///< "ws": B (the filter) is held; A streams in from the left, partial sums flow down
  OutputStationary, ///< "os": C is accumulated in place; A streams from the left, B from the top
  InputStationary,  ///< "is": A (the ifmap) is held; B streams in from the left, partial sums flow down
};

/// "ws", "os" or "is"; throws tessera::Error for anything else.
Dataflow parseDataflow(std::string_view text);
/// "ws", "os", "is".
std::string_view shortName(Dataflow dataflow);
/// "weight stationary", ...
std::string_view longName(Dataflow dataflow);

/// C[M][N] = A[M][K] * B[K][N].
struct Gemm {
  int64_t m = 0, n = 0, k = 0;
  int64_t macs() const { return m * n * k; }
};

/// Parses "M,N,K" (positive integers); throws tessera::Error.
Gemm parseGemm(std::string_view text);

/// SRAM sizes of SCALE-Sim's configs/google.cfg (a TPU-v1-like array, InterfaceBandwidth CALC), in KiB of
/// one-byte words: the defaults here, so that the DRAM counts match that configuration's.
inline constexpr std::array<int64_t, 3> kDefaultSramKiB = {6144, 6144, 2048};

/// One systolic array.
struct ArrayConfig {
  int64_t rows = 0, cols = 0;
  Dataflow dataflow = Dataflow::WeightStationary;
  /// Scratchpad sizes of the ifmap, filter and ofmap SRAMs in KiB (SCALE-Sim's words are one byte). They only
  /// matter for DRAM traffic: an operand that does not fit half its SRAM is fetched from DRAM more than once.
  std::array<int64_t, 3> sramKiB = kDefaultSramKiB;
};

/// Parses "I,F,O" SRAM sizes in KiB; throws tessera::Error.
std::array<int64_t, 3> parseSramKiB(std::string_view text);

/// Checks sizes (positive, small enough that every count fits 63 bits); throws tessera::Error naming the flag.
void validate(const ArrayConfig &config, const Gemm &gemm);

} // namespace tessera::systolic
