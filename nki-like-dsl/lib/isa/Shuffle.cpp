#include "tessera/dsl/isa/Shuffle.h"

#include "../IsaCall.h"
#include "../Recording.h"

#include <fmt/format.h>

namespace tsr::isa {

void nc_stream_shuffle(const Tile &dst, const Tile &src, const ShuffleMask &shuffle_mask, Loc loc) {
  detail::IsaCall call{.dst = dst, .src0 = src};
  call.settings.op = tessera::isa::Opcode::StreamShuffle;
  for (size_t i = 0; i < shuffle_mask.size(); ++i) {
    const int from = shuffle_mask[i];
    if ((from < 0 || from >= int(tessera::isa::kShuffleMaskSize)) && from != kShuffleKeep)
      detail::fail(loc,
                   fmt::format("tsr::isa::nc_stream_shuffle: shuffle_mask[{}] is {}; each entry is a partition of the "
                               "quadrant, 0 to 31, or tsr::isa::kShuffleKeep (255) to leave dst's partition as it is",
                               i, from));
    call.settings.shuffleMask[i] = static_cast<uint8_t>(from);
  }
  detail::recordInstruction(call, loc);
}

} // namespace tsr::isa
