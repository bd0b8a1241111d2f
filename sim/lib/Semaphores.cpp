#include "Semaphores.h"

namespace tessera::sim {

Semaphores::Semaphores(uint32_t count) : counts_(count, 0), waiters_(count, 0), events_(count) {}

void Semaphores::startWaiting(uint32_t sem) {
  if (!events_[sem])
    events_[sem] = std::make_unique<sc_core::sc_event>();
  ++waiters_[sem];
}

} // namespace tessera::sim
