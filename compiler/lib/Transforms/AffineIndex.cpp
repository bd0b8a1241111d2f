//===- AffineIndex.cpp - tile-dialect indices as affine functions of loop iterations ------------------------===//
//
// Test: compiler/test/Transforms/legalize-for-tpu.mlir (DMA alignment), plan-pallas.mlir (blocks, dynamic offsets),
// tests/unit/compiler/AffineIndexTest.cpp.
//
//===------------------------------------------------------------------------------------------------------===//

#include "Transforms/AffineIndex.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

#include <algorithm>
#include <numeric>

using namespace mlir;

namespace tessera::compiler {

namespace {

std::optional<int64_t> constantOf(Value v) {
  if (auto c = v.getDefiningOp<arith::ConstantIndexOp>()) return c.value();
  return std::nullopt;
}

} // namespace

int64_t AffineIndex::coefficient(scf::ForOp loop) const {
  for (const auto &[l, c] : terms)
    if (l == loop) return c;
  return 0;
}

std::optional<int64_t> AffineIndex::residue(int64_t m) const {
  for (const auto &[loop, c] : terms)
    if (c % m != 0) return std::nullopt;
  return ((constant % m) + m) % m;
}

int64_t AffineIndex::alignment(int64_t limit) const {
  int64_t g = std::abs(constant);
  for (const auto &[loop, c] : terms) g = std::gcd(g, std::abs(c));
  int64_t a = 1;
  while (a < limit && (g == 0 || g % (a * 2) == 0)) a *= 2;
  return a;
}

std::optional<std::pair<int64_t, int64_t>> AffineIndex::range() const {
  int64_t lo = constant, hi = constant;
  for (const auto &[loop, c] : terms) {
    const std::optional<int64_t> trips = tripCountOf(loop);
    if (!trips) return std::nullopt;
    if (*trips == 0) continue;
    const int64_t last = c * (*trips - 1);
    lo += std::min<int64_t>(0, last);
    hi += std::max<int64_t>(0, last);
  }
  return std::make_pair(lo, hi);
}

AffineIndex &AffineIndex::operator+=(const AffineIndex &o) {
  constant += o.constant;
  for (const auto &[loop, c] : o.terms) {
    auto it = std::find_if(terms.begin(), terms.end(), [&](const auto &t) { return t.first == loop; });
    if (it == terms.end())
      terms.push_back({loop, c});
    else
      it->second += c;
  }
  llvm::erase_if(terms, [](const auto &t) { return t.second == 0; });
  return *this;
}

AffineIndex &AffineIndex::operator*=(int64_t k) {
  constant *= k;
  for (auto &term : terms) term.second *= k;
  llvm::erase_if(terms, [](const auto &t) { return t.second == 0; });
  return *this;
}

std::optional<AffineIndex> affineIndexOf(Value v) {
  if (std::optional<int64_t> c = constantOf(v)) return AffineIndex{{}, *c};
  if (auto loop = scf::getForInductionVarOwner(v)) {
    const std::optional<int64_t> lb = constantOf(loop.getLowerBound()), step = constantOf(loop.getStep());
    if (!lb || !step) return std::nullopt;
    AffineIndex a{{}, *lb};
    if (*step != 0) a.terms.push_back({loop, *step});
    return a;
  }
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumOperands() != 2) return std::nullopt;
  std::optional<AffineIndex> a = affineIndexOf(def->getOperand(0)), b = affineIndexOf(def->getOperand(1));
  if (!a || !b) return std::nullopt;
  if (llvm::isa<arith::AddIOp>(def)) return *a += *b;
  if (llvm::isa<arith::SubIOp>(def)) return *a += (*b *= -1);
  if (llvm::isa<arith::MulIOp>(def)) {
    if (b->isConstant()) return *a *= b->constant;
    if (a->isConstant()) return *b *= a->constant;
  }
  return std::nullopt;
}

std::optional<int64_t> residueOf(Value v, int64_t m) {
  if (std::optional<AffineIndex> a = affineIndexOf(v)) return a->residue(m);
  Operation *def = v.getDefiningOp();
  if (!def || def->getNumOperands() != 2) return std::nullopt;
  const auto modulo = [m](int64_t x) { return ((x % m) + m) % m; };
  if (llvm::isa<arith::MulIOp>(def)) {
    for (unsigned k = 0; k < 2; ++k)
      if (std::optional<int64_t> factor = constantOf(def->getOperand(k))) {
        if (*factor % m == 0) return 0; // whatever the other side is (an integer)
        std::optional<int64_t> r = residueOf(def->getOperand(1 - k), m);
        return r ? std::optional(modulo(*r * *factor)) : std::nullopt;
      }
    return std::nullopt;
  }
  if (!llvm::isa<arith::AddIOp, arith::SubIOp>(def)) return std::nullopt;
  std::optional<int64_t> a = residueOf(def->getOperand(0), m), b = residueOf(def->getOperand(1), m);
  if (!a || !b) return std::nullopt;
  return modulo(llvm::isa<arith::AddIOp>(def) ? *a + *b : *a - *b);
}

std::optional<int64_t> tripCountOf(scf::ForOp loop) {
  const std::optional<int64_t> lb = constantOf(loop.getLowerBound()), ub = constantOf(loop.getUpperBound()),
                               step = constantOf(loop.getStep());
  if (!lb || !ub || !step || *step <= 0) return std::nullopt;
  return *ub > *lb ? (*ub - *lb + *step - 1) / *step : 0;
}

} // namespace tessera::compiler
