#include "Semaphores.h"

namespace tessera::sim {

Semaphores::Semaphores(uint32_t count) : counts_(count, 0), waiters_(count, 0), events_(count) {}

void Semaphores::waitUntil(uint32_t sem, uint64_t target) {
  if (!events_[sem])
    events_[sem] = std::make_unique<sc_core::sc_event>();
  ++waiters_[sem];
  while (counts_[sem] < target)
    sc_core::wait(*events_[sem]);
  --waiters_[sem];
}

} // namespace tessera::sim
