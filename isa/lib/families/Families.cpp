/// \file
/// The one list of target families: where a target's family is chosen.

#include "Families.h"

#include "tessera/isa/Error.h"

#include <fmt/format.h>

#include <array>

namespace tessera::isa {
namespace {

const std::array<const Family *, 2> &all() {
  static const std::array<const Family *, 2> list = {&builtin::neuronCore(), &builtin::tpu()};
  return list;
}

} // namespace

std::span<const Family *const> families() { return all(); }

const Family *findFamily(std::string_view name) {
  // Asked for every instruction the simulator checks: the names are read once, not with a virtual call each time.
  static const auto names = [] {
    std::array<std::string_view, std::tuple_size_v<std::remove_cvref_t<decltype(all())>>> n;
    for (size_t i = 0; i < n.size(); ++i) n[i] = all()[i]->name();
    return n;
  }();
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return all()[i];
  return nullptr;
}

const Family &familyOf(const Target &target) {
  if (const Family *family = findFamily(target.family)) return *family;
  throw Error(fmt::format("target {} is of family '{}', which Tessera does not know", target.name, target.family), {},
              "a target file's [target] family is one of the families in isa/lib/families/");
}

} // namespace tessera::isa
