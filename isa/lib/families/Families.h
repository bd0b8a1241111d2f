#pragma once
/// \file
/// The families isa/lib/families/ defines (internal to TesseraIsa); Families.cpp lists them for familyOf().

#include "tessera/isa/Family.h"

namespace tessera::isa::builtin {

const Family &neuronCore();
const Family &tpu();

} // namespace tessera::isa::builtin
