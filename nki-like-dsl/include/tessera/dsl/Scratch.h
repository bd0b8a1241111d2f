#pragma once
/// \file
/// HBM tensors a kernel makes for its own intermediates (NKI: `nl.ndarray(shape, dtype, buffer=nl.shared_hbm)` that
/// the kernel does not return): a stage that does not fit on chip writes them, a later loop reads them back.

#include "tessera/dsl/Tile.h"

#include <source_location>
#include <string>

namespace tsr {

/// A new HBM tensor of `shape` and `dtype`, neither an input nor an output: nothing is in it until the kernel stores
/// into it (the simulator starts it as NaN), and no one checks it after the run. It lives for the whole kernel and
/// every program of an SPMD launch sees the same one, as NKI's shared_hbm. Make it at the kernel's top level, not
/// inside a loop. `name` is how reports and the emitted NKI and Pallas name it (default "scratch0", "scratch1"...).
/// Windows, loads and stores work on it as on the kernel's arguments.
///   tsr::Hbm qk = tsr::shared_hbm(tsr::f32, {seqlen, seqlen}, "qk");
Hbm shared_hbm(DType dtype, Shape shape, std::string name = {},
               std::source_location loc = std::source_location::current());

} // namespace tsr
