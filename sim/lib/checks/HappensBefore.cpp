#include "checks/HappensBefore.h"

#include <algorithm>

namespace tessera::sim {

HappensBefore::HappensBefore(const isa::Program &program)
    : program_(program), streams_(static_cast<uint32_t>(program.streams.size())) {
  const uint32_t semaphores = program.semaphores;
  clocks_.assign(size_t{streams_} * streams_, 0);
  published_.assign(size_t{semaphores} * streams_, 0);
  signalled_.assign(semaphores, 0);

  // How often each semaphore is signalled in all; ranges the engines will reject (checkInstruction) count for
  // nothing, since no instruction runs with them.
  firstSignal_.assign(size_t{semaphores} + 1, 0);
  for (const isa::Stream &stream : program.streams)
    for (const isa::Instruction &inst : stream.instructions) {
      if (uint64_t{inst.signalBegin} + inst.signalCount > program.signals.size())
        continue;
      for (uint32_t sem : program.signalsOf(inst))
        if (sem < semaphores)
          ++firstSignal_[sem + 1];
    }
  for (uint32_t sem = 0; sem < semaphores; ++sem)
    firstSignal_[sem + 1] += firstSignal_[sem];

  // A snapshot slot for each count some wait names (and the signals can reach; a higher one never returns).
  slotOfSignal_.assign(firstSignal_[semaphores], kNoSlot);
  slotOfWait_.assign(program.waits.size(), kNoSlot);
  auto signalOf = [&](const isa::SemWait &w) -> uint32_t * {
    if (w.sem >= semaphores || w.count == 0 || w.count > firstSignal_[w.sem + 1] - firstSignal_[w.sem])
      return nullptr;
    return &slotOfSignal_[firstSignal_[w.sem] + w.count - 1];
  };
  for (const isa::SemWait &w : program.waits)
    if (uint32_t *slot = signalOf(w))
      *slot = 0;
  uint32_t slots = 0;
  for (uint32_t &slot : slotOfSignal_)
    if (slot != kNoSlot)
      slot = slots++;
  for (size_t w = 0; w < program.waits.size(); ++w)
    if (const uint32_t *slot = signalOf(program.waits[w]))
      slotOfWait_[w] = *slot;
  snapshots_.assign(size_t{slots} * streams_, 0);
}

void HappensBefore::signal(uint32_t s, uint32_t sem) {
  uint32_t *published = &published_[size_t{sem} * streams_];
  join(published, clockOf(s));
  const uint32_t signal = firstSignal_[sem] + signalled_[sem]++;
  if (signal >= firstSignal_[sem + 1])
    return; // more signals than the program lists: cannot happen once checkInstruction has passed
  if (const uint32_t slot = slotOfSignal_[signal]; slot != kNoSlot)
    std::copy_n(published, streams_, &snapshots_[size_t{slot} * streams_]);
}

} // namespace tessera::sim
