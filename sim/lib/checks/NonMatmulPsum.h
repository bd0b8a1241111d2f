#pragma once
/// \file
/// Which PSUM bytes a non-matmul instruction (memset, a copy, a DMA, an activation...) wrote last, and which
/// instruction that was: rectangles of partitions x bytes. On NeuronCore v2/v3 a matmul that accumulates onto
/// such bytes is undefined (the first write of an accumulation group must be a matmul that overwrites;
/// docs/targets.md "nc_matmul"), so the kernel-bug checks look here before every accumulating matmul.
///
/// A write removes what it covers from every rectangle (splitting a partly covered one into at most four), and
/// a non-matmul write adds its own. Compiled kernels rarely write PSUM except by matmul, so the set is usually
/// empty and a matmul's write costs one test.

#include "checks/AccessHistory.h"

#include <vector>

namespace tessera::sim {

class NonMatmulPsum {
public:
  /// Instruction `writer` wrote PSUM `region`; `matmul` when it is a matmul.
  void write(const Region &region, Access writer, bool matmul);

  struct Rectangle {
    Region region;
    Access writer;
  };
  /// A rectangle overlapping `region` that a non-matmul instruction wrote last, or null when there is none.
  const Rectangle *find(const Region &region) const;

private:
  std::vector<Rectangle> rectangles_;
};

} // namespace tessera::sim
