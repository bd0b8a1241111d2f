// TileProgram's helpers (plain C++, no MLIR).

#include "tessera/compiler/TileProgram.h"

#include <algorithm>

namespace tessera::compiler {

int64_t LoopIndex::coefficient(int32_t loop) const {
  for (const auto &[l, c] : terms)
    if (l == loop) return c;
  return 0;
}

LoopIndex operator+(LoopIndex a, const LoopIndex &b) {
  a.constant += b.constant;
  for (const auto &[loop, c] : b.terms) {
    auto it = std::find_if(a.terms.begin(), a.terms.end(), [&](const auto &t) { return t.first == loop; });
    if (it == a.terms.end())
      a.terms.push_back({loop, c});
    else
      it->second += c;
  }
  std::erase_if(a.terms, [](const auto &t) { return t.second == 0; });
  a.floors.insert(a.floors.end(), b.floors.begin(), b.floors.end());
  return a;
}

LoopIndex operator*(LoopIndex a, int64_t k) {
  a.constant *= k;
  for (auto &t : a.terms) t.second *= k;
  for (auto &f : a.floors) f.coefficient *= k;
  std::erase_if(a.terms, [](const auto &t) { return t.second == 0; });
  std::erase_if(a.floors, [](const auto &f) { return f.coefficient == 0; });
  return a;
}

std::vector<int32_t> TileProgram::gridLoops() const {
  std::vector<int32_t> grid;
  for (size_t i = 0; i < loops.size(); ++i)
    if (loops[i].form == LoopForm::Grid) grid.push_back(static_cast<int32_t>(i));
  std::sort(grid.begin(), grid.end(), [&](int32_t a, int32_t b) { return loops[a].gridDim < loops[b].gridDim; });
  return grid;
}

} // namespace tessera::compiler
