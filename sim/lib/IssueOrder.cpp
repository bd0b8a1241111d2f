#include "IssueOrder.h"

namespace tessera::sim {

void IssueOrder::awaitTurn(uint32_t issue) {
  if (next_ != issue) {
    ++waiters_;
    while (next_ != issue)
      sc_core::wait(advanced_);
    --waiters_;
  }
  const uint64_t now = sc_core::sc_time_stamp().value();
  if (nextAtPs_ > now)
    sc_core::wait(sc_core::sc_time::from_value(nextAtPs_ - now));
}

void IssueOrder::issued(uint32_t issue, uint64_t nextAtPs) {
  next_ = issue + 1;
  nextAtPs_ = nextAtPs;
  if (waiters_ != 0)
    advanced_.notify();
}

} // namespace tessera::sim
