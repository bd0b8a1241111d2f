#include "checks/NonMatmulPsum.h"

#include <utility>

namespace tessera::sim {

void NonMatmulPsum::write(const Region &region, Access writer, bool matmul) {
  if (rectangles_.empty() && matmul)
    return;
  std::vector<Rectangle> kept;
  kept.reserve(rectangles_.size() + 4);
  for (const Rectangle &r : rectangles_) {
    if (!r.region.overlaps(region)) {
      kept.push_back(r);
      continue;
    }
    // What of r lies outside `region`: the partitions above and below it (all bytes), then, within the shared
    // partitions, the bytes before and after it.
    const Region cut = r.region.intersection(region);
    auto keep = [&](uint32_t p0, uint32_t p1, int64_t b0, int64_t b1) {
      if (p0 < p1 && b0 < b1)
        kept.push_back({Region{.memory = r.region.memory, .p0 = p0, .p1 = p1, .b0 = b0, .b1 = b1}, r.writer});
    };
    keep(r.region.p0, cut.p0, r.region.b0, r.region.b1);
    keep(cut.p1, r.region.p1, r.region.b0, r.region.b1);
    keep(cut.p0, cut.p1, r.region.b0, cut.b0);
    keep(cut.p0, cut.p1, cut.b1, r.region.b1);
  }
  if (!matmul)
    kept.push_back({region, writer});
  rectangles_ = std::move(kept);
}

const NonMatmulPsum::Rectangle *NonMatmulPsum::find(const Region &region) const {
  for (const Rectangle &r : rectangles_)
    if (r.region.overlaps(region))
      return &r;
  return nullptr;
}

} // namespace tessera::sim
