#include "CrossCoreHbm.h"

#include "ProgramChecks.h"
#include "tessera/sim/KernelBug.h"

#include <fmt/format.h>

#include <cstdint>
#include <optional>
#include <vector>

namespace tessera::sim {

namespace {

/// Calls `visit(element)` for every element (from the tensor's start) an HBM operand touches.
template <typename Visit> void forEachElement(const isa::AccessPattern &ap, Visit &&visit) {
  std::array<int64_t, isa::AccessPattern::kMaxFreeDims> index{};
  for (uint32_t p = 0; p < ap.partitions; ++p) {
    const int64_t row = ap.offset + int64_t(p) * ap.partitionStride;
    for (int64_t n = 0, count = ap.freeElements(); n < count; ++n) {
      int64_t element = row;
      int64_t rest = n;
      for (int d = ap.freeRank - 1; d >= 0; --d) {
        index[d] = rest % ap.sizes[d];
        rest /= ap.sizes[d];
        element += index[d] * ap.strides[d];
      }
      visit(element);
    }
  }
}

/// Calls `visit(stream, index, role, pattern, isWrite)` for every HBM operand of every instruction of `program`.
template <typename Visit> void forEachHbmOperand(const isa::Program &program, Visit &&visit) {
  for (const isa::Stream &stream : program.streams)
    for (size_t i = 0; i < stream.instructions.size(); ++i)
      isa::forEachOperand(stream.instructions[i], [&](std::string_view role, const isa::AccessPattern &ap, bool write) {
        if (ap.space == isa::MemSpace::Hbm && ap.tensor >= 0) visit(stream, i, role, ap, write);
      });
}

struct Touch {
  const isa::Stream *stream = nullptr;
  size_t index = 0;
  std::string action;
};

/// The first instruction of `program` that touches `element` of `tensor` (writing it, when `write`).
std::optional<Touch> firstTouch(const isa::Program &program, int32_t tensor, int64_t element, bool write) {
  std::optional<Touch> found;
  forEachHbmOperand(program, [&](const isa::Stream &stream, size_t index, std::string_view role,
                                 const isa::AccessPattern &ap, bool isWrite) {
    if (found || ap.tensor != tensor || (write && !isWrite)) return;
    forEachElement(ap, [&](int64_t e) {
      if (!found && e == element)
        found = Touch{&stream, index, fmt::format("{} {}", isWrite ? "writes" : "reads", role)};
    });
  });
  return found;
}

[[noreturn]] void throwRace(std::span<const isa::Program> cores, size_t core, const isa::Stream &stream, size_t index,
                            std::string_view role, bool write, int32_t tensor, int64_t element, size_t writer) {
  const isa::Program &program = cores[core];
  const isa::TensorInfo &t = program.tensors[tensor];
  const int64_t columns = t.shape.empty() ? 1 : t.shape.back();
  const std::optional<Touch> other = firstTouch(cores[writer], tensor, element, true);
  KernelBug bug{.kind = BugKind::Race, .detail = write ? "write after write" : "read after write"};
  bug.instructions.push_back(bugInstruction(program, stream, index, fmt::format("{} {}", write ? "writes" : "reads", role)));
  bug.instructions.back().core = static_cast<uint32_t>(core);
  if (other) {
    bug.instructions.push_back(bugInstruction(cores[writer], *other->stream, other->index, other->action));
    bug.instructions.back().core = static_cast<uint32_t>(writer);
  }
  const int64_t bytes = isa::byteSize(t.dtype);
  bug.region = {.memory = "hbm", .tensor = t.name, .b0 = element * bytes, .b1 = (element + 1) * bytes};
  const SourceLoc where = locationOf(program, stream.instructions[index]);
  const SourceLoc otherWhere = other ? locationOf(cores[writer], other->stream->instructions[other->index]) : SourceLoc{};
  throw KernelBugError(
      std::move(bug),
      fmt::format("race between cores: core {}'s {}{} {} {}[{}, {}], which core {}'s {}{} writes; no semaphore orders "
                  "the accesses of two cores",
                  core, describeInstruction(stream, index), where.known() ? " at " + where.str() : "",
                  write ? "writes" : "reads", t.name, element / columns, element % columns, writer,
                  other ? describeInstruction(*other->stream, other->index) : std::string("instruction"),
                  otherWhere.known() ? " at " + otherWhere.str() : ""),
      where,
      "each program of an SPMD launch must write its own part of the outputs and read no other program's: index "
      "their windows with tsr::program_id");
}

} // namespace

void checkCoresTouchApart(std::span<const isa::Program> cores) {
  if (cores.size() < 2) return;
  const std::vector<isa::TensorInfo> &tensors = cores.front().tensors;
  // Which core wrote each element of each tensor (0: none, else core + 1), first every core's writes, then the reads.
  std::vector<std::vector<uint16_t>> writer(tensors.size());
  for (size_t c = 0; c < cores.size(); ++c)
    forEachHbmOperand(cores[c], [&](const isa::Stream &stream, size_t index, std::string_view role,
                                    const isa::AccessPattern &ap, bool write) {
      if (!write || static_cast<size_t>(ap.tensor) >= tensors.size()) return;
      std::vector<uint16_t> &owners = writer[ap.tensor];
      if (owners.empty()) owners.assign(static_cast<size_t>(tensors[ap.tensor].elements()), 0);
      forEachElement(ap, [&](int64_t e) {
        if (e < 0 || static_cast<size_t>(e) >= owners.size()) return; // the bounds checks report it
        uint16_t &owner = owners[static_cast<size_t>(e)];
        if (owner != 0 && owner != c + 1) throwRace(cores, c, stream, index, role, true, ap.tensor, e, owner - 1);
        owner = static_cast<uint16_t>(c + 1);
      });
    });
  for (size_t c = 0; c < cores.size(); ++c)
    forEachHbmOperand(cores[c], [&](const isa::Stream &stream, size_t index, std::string_view role,
                                    const isa::AccessPattern &ap, bool write) {
      if (write || static_cast<size_t>(ap.tensor) >= tensors.size() || writer[ap.tensor].empty()) return;
      const std::vector<uint16_t> &owners = writer[ap.tensor];
      forEachElement(ap, [&](int64_t e) {
        if (e < 0 || static_cast<size_t>(e) >= owners.size()) return;
        const uint16_t owner = owners[static_cast<size_t>(e)];
        if (owner != 0 && owner != c + 1) throwRace(cores, c, stream, index, role, false, ap.tensor, e, owner - 1);
      });
    });
}

} // namespace tessera::sim
