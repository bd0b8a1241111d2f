/// \file
/// Executing an instruction: its definition's reference semantics (isa/lib/instructions/).

#include "tessera/isa/Semantics.h"

#include "instructions/Common.h"
#include "tessera/isa/PackedOperands.h"

namespace tessera::isa {

void execute(const Instruction &inst, const Memories &mem) {
  definition(inst.op).execute(inst, mem);
  if (mem.packedOperands)
    forEachOperand(inst, [&](const char *, const AccessPattern &ap, bool write) {
      if (write)
        mem.packedOperands->written(ap);
    });
}

std::vector<float> readValues(const AccessPattern &ap, const Memories &mem) {
  const instructions::ResolvedPattern r = instructions::resolve(ap, mem);
  std::vector<float> values(static_cast<size_t>(r.rows) * r.rowElements);
  instructions::gather(r, values.data());
  return values;
}

} // namespace tessera::isa
