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
  return r;
}
} // namespace

Index operator+(const Index &a, const Index &b) { return Index(combine(a.expr_, b.expr_, 1)); }
Index operator-(const Index &a, const Index &b) { return Index(combine(a.expr_, b.expr_, -1)); }
Index operator*(const Index &a, int64_t k) {
  graph::IndexExpr r = a.expr_;
  r.constant *= k;
  for (auto &t : r.terms) t.second *= k;
  std::erase_if(r.terms, [](auto &t) { return t.second == 0; });
  return Index(std::move(r));
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
