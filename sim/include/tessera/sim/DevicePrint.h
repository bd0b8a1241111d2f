#pragma once
/// \file
/// What a Print instruction (tsr::device_print) logs when it runs: a tile's values at a point of simulated time.

#include "tessera/isa/DType.h"
#include "tessera/isa/Error.h"

#include <cstdint>
#include <string>
#include <vector>

namespace tessera::sim {

/// What one Print instruction (tsr::device_print) logged: a tile's values at a point of simulated time.
struct DevicePrint {
  std::string name;            ///< the name the kernel gave it
  double timeNs = 0;           ///< when it ran: its producer had completed, later writers had not started
  std::string stream;          ///< the engine that ran it ("vector", ...)
  uint32_t index = 0;          ///< the instruction's index in that stream
  SourceLoc loc;               ///< the kernel source line of the device_print call
  isa::DType dtype = isa::DType::F32; ///< the tile's element type (values are decoded to FP32)
  std::vector<int64_t> shape;  ///< [partitions, elements per partition]
  std::vector<float> values = {}; ///< row-major, shape[0] x shape[1]; empty in a timing-only run
};

} // namespace tessera::sim
