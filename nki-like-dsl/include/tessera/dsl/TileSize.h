#pragma once
/// \file
/// NKI's language-level tile limits (`nki.language.tile_size`), which the DSL checks at trace time so misuse is
/// reported at the user's line. They are NKI language constants, not properties of one target: the compiler's
/// target verification pass checks each kernel again against the actual target file (which may differ, e.g. a
/// user's 64x64 design).
/// Source: NKI API reference, nki.language.tile_size (pmax, psum_fmax, gemm_stationary_fmax, gemm_moving_fmax).

#include <cstdint>

namespace tsr::tile_size {
inline constexpr int64_t pmax = 128;                 ///< partitions of a tile
inline constexpr int64_t psum_fmax = 512;            ///< FP32 elements per partition of one PSUM bank (2 KiB)
inline constexpr int64_t psum_bytes = 2048;          ///< bytes per partition of one PSUM bank
inline constexpr int64_t gemm_stationary_fmax = 128; ///< stationary free size of one matmul
inline constexpr int64_t gemm_moving_fmax = 512;     ///< moving free size of one matmul
} // namespace tsr::tile_size
