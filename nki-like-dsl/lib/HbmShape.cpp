#include "HbmShape.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

namespace tsr::detail {

void requireHbmShape(std::string_view tensor, const Shape &shape, const tessera::SourceLoc &where) {
  if (shape.size() < 2 || shape.size() > static_cast<size_t>(kMaxHbmRank))
    throw tessera::Error(fmt::format("{} is [{}]; HBM tensors have 2 to {} dimensions, the last two [rows, columns]",
                                     tensor, fmt::join(shape, ", "), kMaxHbmRank),
                         where,
                         shape.size() < 2 ? "give a vector as one row, [1, N] (or one column, [N, 1])"
                                          : fmt::format("merge leading dimensions into one ([A, B, C, ...] as [A * B, "
                                                        "C, ...]) to have at most {}",
                                                        kMaxHbmRank));
  for (int64_t d : shape)
    if (d < 1)
      throw tessera::Error(fmt::format("{} is [{}]; each dimension must be at least 1", tensor, fmt::join(shape, ", ")),
                           where);
}

} // namespace tsr::detail
