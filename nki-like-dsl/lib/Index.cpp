#include "tessera/dsl/Index.h"

#include "Tracer.h"

#include <fmt/format.h>

#include <algorithm>

namespace tsr {

namespace {
graph::IndexExpr combine(const graph::IndexExpr &a, const graph::IndexExpr &b, int64_t sign) {
  graph::IndexExpr r = a;
  r.constant += sign * b.constant;
  for (auto [loop, coeff] : b.terms) {
    auto it = std::find_if(r.terms.begin(), r.terms.end(), [&](auto &t) { return t.first == loop; });
    if (it == r.terms.end()) r.terms.emplace_back(loop, sign * coeff);
    else it->second += sign * coeff;
  }
  std::erase_if(r.terms, [](auto &t) { return t.second == 0; });
  for (graph::FloorTerm f : b.floors) {
    f.coefficient *= sign;
    auto same = std::find_if(r.floors.begin(), r.floors.end(), [&](const graph::FloorTerm &g) {
      return g.terms == f.terms && g.constant == f.constant && g.divisor == f.divisor;
    });
    if (same == r.floors.end()) r.floors.push_back(std::move(f));
    else same->coefficient += f.coefficient;
  }
  std::erase_if(r.floors, [](const graph::FloorTerm &f) { return f.coefficient == 0; });
  return r;
}

/// Checks `k` and `a` for `/` and `%`: k positive; `a` affine, or one division alone.
void checkDivision(const char *op, const graph::IndexExpr &a, const Divisor &k) {
  if (k.value <= 0)
    throw tessera::Error(fmt::format("index {} {}: the divisor must be positive", op, k.value), detail::toLoc(k.loc),
                         "divide loop indices by a positive integer, as NKI's // and % on indices");
  if (a.floors.empty()) return;
  const bool oneDivision = a.terms.empty() && a.constant == 0 && a.floors.size() == 1 && a.floors[0].coefficient == 1;
  if (!oneDivision || std::string_view(op) == "%")
    throw tessera::Error(fmt::format("index {} {}: the index already holds a division (/ or %), and only a division "
                                     "alone can be divided again",
                                     op, k.value),
                         detail::toLoc(k.loc),
                         "divide the loop index itself (i / 8 rather than (i / 2 + 1) / 4), or use a loop per level");
}
} // namespace

Index operator+(const Index &a, const Index &b) { return Index(combine(a.expr_, b.expr_, 1)); }
Index operator-(const Index &a, const Index &b) { return Index(combine(a.expr_, b.expr_, -1)); }
Index operator*(const Index &a, int64_t k) {
  graph::IndexExpr r = a.expr_;
  r.constant *= k;
  for (auto &t : r.terms) t.second *= k;
  std::erase_if(r.terms, [](auto &t) { return t.second == 0; });
  for (auto &f : r.floors) f.coefficient *= k;
  std::erase_if(r.floors, [](const graph::FloorTerm &f) { return f.coefficient == 0; });
  return Index(std::move(r));
}

Index operator/(const Index &a, Divisor k) {
  checkDivision("/", a.expr_, k);
  const graph::IndexExpr &e = a.expr_;
  if (!e.floors.empty()) { // floor(floor(x / d) / k) = floor(x / (d k)) for positive d and k
    graph::IndexExpr r = e;
    r.floors[0].divisor *= k.value;
    return Index(std::move(r));
  }
  const bool exact = e.constant % k.value == 0 &&
                     std::all_of(e.terms.begin(), e.terms.end(), [&](auto &t) { return t.second % k.value == 0; });
  if (exact) { // every value divides: an affine index again
    graph::IndexExpr r = e;
    r.constant /= k.value;
    for (auto &t : r.terms) t.second /= k.value;
    return Index(std::move(r));
  }
  if (e.terms.empty()) return Index(detail::floorDiv(e.constant, k.value));
  graph::IndexExpr r;
  r.floors.push_back({e.terms, e.constant, k.value, 1});
  return Index(std::move(r));
}

Index operator%(const Index &a, Divisor k) {
  checkDivision("%", a.expr_, k);
  const graph::IndexExpr &e = a.expr_;
  if (e.terms.empty()) return Index(e.constant - k.value * detail::floorDiv(e.constant, k.value));
  return a - (a / k) * k.value;
}

affine_range::affine_range(int64_t count, std::source_location loc) : affine_range(0, count, loc) {}

affine_range::affine_range(int64_t start, int64_t stop, std::source_location loc)
    : start_(start), count_(stop - start), loc_(loc) {
  if (count_ <= 0)
    throw tessera::Error(fmt::format("affine_range({}, {}) has no iterations", start, stop), detail::toLoc(loc),
                         "a loop over a dimension smaller than its tile; check the shape parameters");
}

affine_range::~affine_range() {
  if (open_) close();
}

affine_range::Iterator affine_range::begin() {
  loopId_ = detail::Tracer::current(loc_).openLoop(count_, loc_);
  open_ = true;
  return Iterator(this);
}

void affine_range::close() {
  detail::Tracer::current(loc_).closeLoop(loopId_);
  open_ = false;
}

Index affine_range::Iterator::operator*() const {
  graph::IndexExpr e;
  e.terms.emplace_back(range_->loopId_, 1);
  e.constant = range_->start_;
  return Index(std::move(e));
}

affine_range::Iterator &affine_range::Iterator::operator++() {
  range_->close();
  done_ = true;
  return *this;
}

} // namespace tsr
