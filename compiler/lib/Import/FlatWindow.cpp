#include "tessera/compiler/FlatWindow.h"

#include <algorithm>
#include <cassert>

namespace tessera::compiler {

namespace {

/// e * k, with e's floor divisions kept (their coefficients scaled).
tsr::graph::IndexExpr scaled(tsr::graph::IndexExpr e, int64_t k) {
  for (auto &term : e.terms) term.second *= k;
  e.constant *= k;
  for (tsr::graph::FloorTerm &f : e.floors) f.coefficient *= k;
  return e;
}

/// a + b, one term per loop.
tsr::graph::IndexExpr plus(tsr::graph::IndexExpr a, const tsr::graph::IndexExpr &b) {
  for (const auto &[loop, coefficient] : b.terms) {
    auto same = std::find_if(a.terms.begin(), a.terms.end(), [&](const auto &t) { return t.first == loop; });
    if (same == a.terms.end()) {
      a.terms.emplace_back(loop, coefficient);
      continue;
    }
    same->second += coefficient;
    if (same->second == 0) a.terms.erase(same);
  }
  a.constant += b.constant;
  a.floors.insert(a.floors.end(), b.floors.begin(), b.floors.end());
  return a;
}

} // namespace

tsr::graph::HbmWindow flatWindow(const tsr::graph::HbmWindow &w, const std::vector<int64_t> &shape) {
  const size_t rank = shape.size();
  if (rank <= 2) return w;
  assert(w.offsets.size() == rank && w.sizes.size() == rank && "a window has one offset and size per dimension");
  const size_t rowDim = rank - 2;
  tsr::graph::HbmWindow flat;
  flat.tensor = w.tensor;
  flat.transposed = w.transposed;
  tsr::graph::IndexExpr row = w.offsets[rowDim];
  int64_t below = shape[rowDim]; // rows of the matrix one step of dimension d moves
  for (size_t d = rowDim; d-- > 0;) {
    assert(w.sizes[d] == 1 && "a leading dimension of a window is fixed");
    row = plus(std::move(row), scaled(w.offsets[d], below));
    below *= shape[d];
  }
  flat.offsets = {std::move(row), w.offsets[rowDim + 1]};
  flat.sizes = {w.sizes[rowDim], w.sizes[rowDim + 1]};
  if (!w.steps.empty()) flat.steps = {w.steps[rowDim], w.steps[rowDim + 1]};
  return flat;
}

} // namespace tessera::compiler
