#include "tessera/isa/RowRelayout.h"

#include <fmt/format.h>

#include <algorithm>
#include <numeric>

namespace tessera::isa {
namespace {

/// floor(a / b) for b > 0.
int64_t floorDiv(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/// The least and the greatest of sum(multiplier x i) over the iterations of the terms `moves` names.
std::pair<int64_t, int64_t> reach(const std::vector<std::pair<std::size_t, int64_t>> &moves,
                                  const MovingOffset &offset) {
  int64_t lo = 0, hi = 0;
  for (const auto &[term, multiplier] : moves) {
    const int64_t last = multiplier * (offset.terms[term].second - 1);
    lo += std::min<int64_t>(0, last);
    hi += std::max<int64_t>(0, last);
  }
  return {lo, hi};
}

} // namespace

int64_t RowRelayout::span() const {
  return std::accumulate(box.begin(), box.end(), int64_t{1}, [](int64_t n, const Dim &d) { return n * d.size; });
}

bool RowRelayout::isPermutation() const {
  return std::all_of(box.begin(), box.end(),
                     [](const Dim &d) { return d.first == 0 && d.count == d.size && d.moves.empty(); });
}

bool RowRelayout::isWindow() const { return isPermutation() && std::is_sorted(walk.begin(), walk.end()); }

std::vector<std::vector<int64_t>> RowRelayout::intermediates(int64_t rows) const {
  if (isWindow()) return {};
  std::vector<int64_t> boxed{rows}, walked{rows};
  for (const Dim &d : box) boxed.push_back(d.size);
  for (std::size_t b : walk) walked.push_back(box[b].count);
  std::vector<std::vector<int64_t>> arrays{boxed};
  if (!std::is_sorted(walk.begin(), walk.end())) arrays.push_back(walked);
  return arrays;
}

int64_t RowRelayout::vmemBytes(int64_t rows, int64_t sublanes, int64_t lanes) const {
  int64_t bytes = 0;
  for (const std::vector<int64_t> &array : intermediates(rows)) bytes += paddedVregBytes(array, sublanes, lanes);
  return bytes;
}

std::vector<std::vector<int64_t>> groupedReductionArrays(int64_t rows, int64_t cols, int64_t groups) {
  if (groups <= 1) return {};
  return {{rows, groups, cols / groups}};
}

int64_t paddedVregBytes(std::span<const int64_t> shape, int64_t sublanes, int64_t lanes) {
  return paddedVregs(shape, sublanes, lanes) * sublanes * lanes * int64_t{sizeof(float)};
}

int64_t paddedVregs(std::span<const int64_t> shape, int64_t sublanes, int64_t lanes) {
  const std::size_t k = shape.size();
  if (k == 0) return 0;
  int64_t vregs = (shape[k - 1] + lanes - 1) / lanes;
  vregs *= k >= 2 ? (shape[k - 2] + sublanes - 1) / sublanes : 1;
  for (std::size_t d = 0; d + 2 < k; ++d) vregs *= shape[d];
  return vregs;
}

int64_t outermostStep(std::span<const int64_t> freePattern) {
  int64_t largest = 1;
  for (std::size_t i = 0; i + 1 < freePattern.size(); i += 2)
    if (freePattern[i + 1] > 1) largest = std::max(largest, freePattern[i]);
  return largest;
}

std::variant<RowRelayout, RelayoutRefusal> rowRelayout(std::span<const int64_t> freePattern,
                                                       const MovingOffset &offset, int64_t rowSize) {
  using Kind = RelayoutRefusal::Kind;
  // The dimensions that walk more than one element, outermost first in the pattern.
  struct Walked {
    std::size_t d;
    int64_t step, count;
  };
  std::vector<Walked> walked;
  for (std::size_t i = 0; i + 1 < freePattern.size(); i += 2) {
    const int64_t step = freePattern[i], count = freePattern[i + 1];
    if (count <= 1) continue;
    if (step == 0)
      return RelayoutRefusal{Kind::Repeats,
                             fmt::format("its dimension {} repeats one element {} times (a step of 0)", i / 2, count)};
    if (step < 0)
      return RelayoutRefusal{Kind::Backwards, fmt::format("its dimension {} walks backwards (a step of {})", i / 2, step)};
    walked.push_back({walked.size(), step, count});
  }
  RowRelayout r;
  if (walked.empty()) walked.push_back({0, 1, 1}); // one element: a window of one
  // The box: the walked dimensions by decreasing step, each as many elements as the one outside it steps over.
  std::vector<Walked> byStep = walked;
  std::stable_sort(byStep.begin(), byStep.end(), [](const Walked &a, const Walked &b) { return a.step > b.step; });
  r.walk.resize(walked.size());
  for (std::size_t j = 0; j < byStep.size(); ++j) {
    const Walked &w = byStep[j];
    if (j > 0 && w.step == byStep[j - 1].step)
      return RelayoutRefusal{
          Kind::Steps, fmt::format("two of its dimensions step {} elements, so they walk the same elements", w.step)};
    if (j > 0 && byStep[j - 1].step % w.step != 0)
      return RelayoutRefusal{
          Kind::Steps, fmt::format("its steps {} and {} do not divide one another, so the walk is not a reshape of "
                                   "the row",
                                   byStep[j - 1].step, w.step)};
    const int64_t size = j == 0 ? w.count : byStep[j - 1].step / w.step;
    r.box.push_back({.size = size, .stride = w.step, .count = w.count, .moves = {}});
    r.walk[w.d] = j;
  }
  if (const int64_t inner = byStep.back().step; inner > 1) // the elements between the innermost step's
    r.box.push_back({.size = inner, .stride = 1, .count = 0, .moves = {}});

  // The offset's constant: the window starts at a multiple of the outermost stride, the rest picks the first
  // index of each box dimension inside it (a mixed-radix number).
  const int64_t outer = r.box.front().stride;
  r.start = floorDiv(offset.constant, outer) * outer;
  const int64_t rest = offset.constant - r.start;
  for (std::size_t b = 1; b < r.box.size(); ++b) r.box[b].first = rest / r.box[b].stride % r.box[b].size;

  // Each moving term moves the window (a multiple of the outermost stride) or one box dimension's index.
  for (std::size_t t = 0; t < offset.terms.size(); ++t) {
    const auto [coefficient, trips] = offset.terms[t];
    if (coefficient == 0 || trips <= 1) continue;
    if (coefficient % outer == 0) {
      r.startMoves.push_back({t, coefficient});
      continue;
    }
    std::size_t b = r.box.size();
    for (std::size_t i = 1; i < r.box.size() && b == r.box.size(); ++i)
      if (coefficient % r.box[i].stride == 0) b = i;
    r.box[b].moves.push_back({t, coefficient / r.box[b].stride});
  }
  for (std::size_t b = 1; b < r.box.size(); ++b) {
    const RowRelayout::Dim &dim = r.box[b];
    const auto [lo, hi] = reach(dim.moves, offset);
    const int64_t taken = std::max<int64_t>(dim.count, 1);
    const char *loops = offset.terms.empty() ? "" : " and the offsets its loops add";
    if (dim.count == 0 && (dim.first + lo < 0 || dim.first + hi >= dim.size))
      return RelayoutRefusal{
          Kind::Crosses, fmt::format("at offset {}{}, its first element's place in groups of {} reaches {}, past the "
                                     "group",
                                     offset.constant, loops, dim.size, dim.first + (dim.first + lo < 0 ? lo : hi))};
    if (dim.first + lo < 0 || dim.first + hi + taken > dim.size)
      return RelayoutRefusal{
          Kind::Crosses, fmt::format("at offset {}{}, its walk at step {} takes indices {} to {} of groups of {}, so "
                                     "it crosses into the next group",
                                     offset.constant, loops, dim.stride, dim.first + lo, dim.first + hi + taken - 1,
                                     dim.size)};
  }
  const auto [lo, hi] = reach(r.startMoves, offset);
  if (r.start + lo < 0 || r.start + hi + r.span() > rowSize)
    return RelayoutRefusal{Kind::PastTheRow, fmt::format("it is a relayout of elements {} to {} of the row, which "
                                                         "has {}",
                                                         r.start + lo, r.start + hi + r.span() - 1, rowSize)};
  return r;
}

} // namespace tessera::isa
