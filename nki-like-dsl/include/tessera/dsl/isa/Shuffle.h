#pragma once
/// \file
/// The Vector engine's cross-partition move as a tsr::isa call (NKI 0.6: nki.isa.nc_stream_shuffle), the way an
/// NKI kernel moves data between partitions on chip: a permutation within each quadrant of 32 partitions, or a
/// broadcast of one partition (a mask of zeros).
///
/// ```cpp
/// // row [1, n] onto all 128 partitions: one call per quadrant of dst, each copying partition 0 of row
/// tsr::Tile all = tsr::ndarray<tsr::f32>({128, n});
/// for (int64_t q = 0; q < 4; ++q)
///   tsr::isa::nc_stream_shuffle(all.partition_slice(32 * q, 32), row, tsr::isa::ShuffleMask{});
/// ```

#include "tessera/dsl/Ops.h"

#include <array>
#include <cstdint>

namespace tsr::isa {

/// For each partition i of a quadrant, the source partition it copies (0 to 31), or kShuffleKeep.
using ShuffleMask = std::array<int, 32>;
/// A shuffle_mask entry that leaves dst's partition unmodified (NKI: 255).
inline constexpr int kShuffleKeep = 255;

/// dst[32q + i, :] = src[32q + shuffle_mask[i], :] in each quadrant q (nki.isa.nc_stream_shuffle), on the Vector
/// engine; dst and src in SBUF or PSUM, of one dtype and as many elements per partition; src may start in another
/// quadrant than dst and have fewer partitions, as long as every partition a dst quadrant copies exists. With A
/// = the larger partition count rounded up to whole quadrants, both start at 0 (A of 96 or 128), at 0 or 64 (A =
/// 64), or at a quadrant's first (A = 32). In place (dst = src) is allowed.
void nc_stream_shuffle(const Tile &dst, const Tile &src, const ShuffleMask &shuffle_mask, Loc loc = Loc::current());

} // namespace tsr::isa
