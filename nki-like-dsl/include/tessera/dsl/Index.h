#pragma once
/// \file
/// Loop indices and `affine_range`: loops are traced, not unrolled. `for (auto i : tsr::affine_range(n))` runs its
/// body once, with `i` a symbolic index, and records a loop of n iterations in the kernel graph.

#include "tessera/dsl/Graph.h"

#include <cstdint>
#include <source_location>

namespace tsr {

/// A positive divisor of an index (`i / 2`, `i % 2`), with the caller's line for the errors.
struct Divisor {
  Divisor(int64_t value, std::source_location loc = std::source_location::current()) // NOLINT: from integers
      : value(value), loc(loc) {}
  int64_t value;
  std::source_location loc;
};

/// A symbolic index: built from loop variables with +, - and * by constants, and divided by positive constants with
/// / (floor division, NKI's `//`) and % (the remainder, NKI's `%`).
class Index {
public:
  Index(int64_t constant = 0) { expr_.constant = constant; } // NOLINT: implicit from integers on purpose
  explicit Index(graph::IndexExpr e) : expr_(std::move(e)) {}

  const graph::IndexExpr &expr() const { return expr_; }
  /// True when the index has no loop variable.
  bool isConstant() const { return expr_.terms.empty() && expr_.floors.empty(); }

  friend Index operator+(const Index &a, const Index &b);
  friend Index operator-(const Index &a, const Index &b);
  friend Index operator*(const Index &a, int64_t k);
  friend Index operator*(int64_t k, const Index &a) { return a * k; }
  /// floor(a / k) for a positive k (NKI's `a // k`). An index that already holds a division cannot be divided
  /// again unless it is one division alone (`i / 2 / 4` is `i / 8`): a tsr::Error at the caller's line.
  friend Index operator/(const Index &a, Divisor k);
  /// a - k * floor(a / k) for a positive k (NKI's `a % k`): in [0, k). The same rule as `/`.
  friend Index operator%(const Index &a, Divisor k);

private:
  graph::IndexExpr expr_;
};

/// A loop whose iterations are independent. Use in a range-for; the body is traced once.
class affine_range {
public:
  explicit affine_range(int64_t count, std::source_location loc = std::source_location::current());
  affine_range(int64_t start, int64_t stop, std::source_location loc = std::source_location::current());
  ~affine_range(); // closes the loop if the body left by break or exception
  affine_range(const affine_range &) = delete;
  affine_range &operator=(const affine_range &) = delete;

  struct Sentinel {};
  class Iterator {
  public:
    explicit Iterator(affine_range *range) : range_(range) {}
    Index operator*() const;
    Iterator &operator++();
    bool operator!=(Sentinel) const { return !done_; }

  private:
    affine_range *range_;
    bool done_ = false;
  };

  Iterator begin();
  Sentinel end() { return {}; }

private:
  void close();
  int64_t start_, count_;
  std::source_location loc_;
  int loopId_ = -1;
  bool open_ = false;
};

} // namespace tsr
