#pragma once
/// \file
/// HBM as one core's DMA queues see it: the kernel's tensors (the caller's HbmImage) and the bandwidth that all
/// queues share.
///
/// Bandwidth model (an assumption; its two coefficients come from the target's [dma] table): the queues share one
/// server of `Target::dma.bytesPerNs()` bytes/ns. A transfer ready at time t starts streaming at
/// max(t, when the server frees), holds the server for bytes / bytesPerNs, and completes `fixedLatencyNs` after
/// its last byte (descriptor processing and the round trip). So a queue has one transfer in flight, several
/// queues overlap their fixed latencies, and together they never exceed the aggregate bandwidth. Transfers are
/// served in the order they become ready (ties: in SystemC's process order, which is deterministic).

#include "tessera/isa/Target.h"
#include "tessera/sim/Simulator.h"

#include <systemc>

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace tessera::sim {

class Hbm {
public:
  /// `image` must already hold one correctly sized buffer per tensor and outlive this object; the target's DMA
  /// figures must have passed checkTarget().
  Hbm(HbmImage &image, const isa::DmaSpec &dma);

  /// Base address of each tensor, in Program::tensors order.
  std::span<std::byte *const> tensorBases() const { return tensorBases_; }

  /// Reserves the shared bandwidth for a transfer of `bytes` that is ready at `ready`; returns when it completes.
  sc_core::sc_time reserveTransfer(const sc_core::sc_time &ready, uint64_t bytes);

private:
  std::vector<std::byte *> tensorBases_;
  double psPerByte_ = 0;
  sc_core::sc_time fixedLatency_;
  sc_core::sc_time freeAt_;  ///< when the last reserved transfer's final byte has streamed
};

} // namespace tessera::sim
