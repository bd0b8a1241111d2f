/// \file
/// Build IDs of loaded files (BuildIdentity.h), read from their PT_NOTE segments through dl_iterate_phdr.

#include "BuildIdentity.h"

#include "tessera/isa/InstructionSet.h"

#include "llvm/TargetParser/Host.h"

#include <elf.h>
#include <link.h>

#include <cstdint>
#include <cstring>
#include <fmt/format.h>

namespace tessera::compiler::golden {

namespace {

struct Search {
  uintptr_t address = 0;
  bool found = false;               ///< a loaded file holds the address
  std::optional<std::string> id;    ///< its build ID, as hex
};

/// The NT_GNU_BUILD_ID note among the notes of [begin, end), as hex.
std::optional<std::string> buildIdIn(const std::byte *begin, const std::byte *end) {
  const auto align4 = [](size_t n) { return (n + 3) & ~size_t{3}; };
  while (begin + sizeof(ElfW(Nhdr)) <= end) {
    ElfW(Nhdr) note;
    std::memcpy(&note, begin, sizeof note);
    const std::byte *name = begin + sizeof note, *desc = name + align4(note.n_namesz);
    const std::byte *next = desc + align4(note.n_descsz);
    if (next > end) return std::nullopt;
    if (note.n_type == NT_GNU_BUILD_ID && note.n_namesz == 4 && std::memcmp(name, "GNU", 4) == 0 && note.n_descsz > 0) {
      std::string hex;
      for (uint32_t i = 0; i < note.n_descsz; ++i) hex += fmt::format("{:02x}", static_cast<unsigned>(desc[i]));
      return hex;
    }
    begin = next;
  }
  return std::nullopt;
}

int visit(dl_phdr_info *info, size_t, void *data) {
  auto &search = *static_cast<Search *>(data);
  bool holds = false;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr) &segment = info->dlpi_phdr[i];
    const uintptr_t start = info->dlpi_addr + segment.p_vaddr;
    if (segment.p_type == PT_LOAD && search.address >= start && search.address < start + segment.p_memsz) holds = true;
  }
  if (!holds) return 0;
  search.found = true;
  for (ElfW(Half) i = 0; i < info->dlpi_phnum && !search.id; ++i) {
    const ElfW(Phdr) &segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const auto *begin = reinterpret_cast<const std::byte *>(info->dlpi_addr + segment.p_vaddr);
    search.id = buildIdIn(begin, begin + segment.p_memsz);
  }
  return 1; // found the file: stop
}

/// A function of this file, to find the compiler library by.
void anchor() {}

} // namespace

std::optional<std::string> buildIdsOf(std::initializer_list<const void *> addresses) {
  std::string ids;
  for (const void *address : addresses) {
    Search search{.address = reinterpret_cast<uintptr_t>(address)};
    dl_iterate_phdr(visit, &search);
    if (!search.found || !search.id) return std::nullopt;
    ids += (ids.empty() ? "" : ",") + *search.id;
  }
  return ids;
}

const std::optional<std::string> &loweringIdentity() {
  static const std::optional<std::string> identity =
      buildIdsOf({reinterpret_cast<const void *>(&anchor), reinterpret_cast<const void *>(&isa::definition),
                  reinterpret_cast<const void *>(&llvm::sys::getProcessTriple)});
  return identity;
}

} // namespace tessera::compiler::golden
