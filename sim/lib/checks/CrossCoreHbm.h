#pragma once
/// \file
/// Races between the cores of one chip on HBM. No semaphore spans two cores, so nothing orders one core's HBM
/// accesses against another's: bytes that one core writes and another reads or writes are a race, whatever the
/// timing. Checked before the run (with SimOptions::checks), from every instruction's HBM operands.

#include "tessera/isa/Program.h"

#include <span>

namespace tessera::sim {

/// Throws a KernelBugError (BugKind::Race) naming both cores' instructions and the element of the first HBM element
/// that one core writes and another core reads or writes. Nothing for one core.
void checkCoresTouchApart(std::span<const isa::Program> cores);

} // namespace tessera::sim
