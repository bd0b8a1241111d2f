#include "tessera/dsl/Tile.h"

#include "Tracer.h"
#include "tessera/dsl/TileSize.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <iterator>

namespace tsr {

using detail::toLoc;
using detail::Tracer;

namespace {
const graph::Buffer &bufferOf(int id) { return Tracer::current(std::source_location::current()).graph().buffers[id]; }
/// `loc` is the user's call, where a call outside a kernel is reported.
const graph::TensorArg &tensorOf(int id, const std::source_location &loc = std::source_location::current()) {
  return Tracer::current(loc).graph().tensors[id];
}

std::pair<int64_t, int64_t> range(const graph::IndexExpr &e, const std::source_location &loc) {
  return Tracer::current(loc).range(e, loc);
}
} // namespace

const Shape &Tile::shape() const { return bufferOf(buffer_).shape; }

namespace {

/// The checks every view of `buffer` shares: alive, not a zero-filled accumulator, a positive size. Returns how the
/// user's tile is named in messages.
std::string checkViewable(Tracer &tracer, int buffer, const char *what, int64_t size, const std::source_location &loc) {
  tracer.checkAlive(buffer, loc);
  const graph::Buffer &base = tracer.graph().buffers[buffer];
  std::string shown = fmt::format("tile '{}' [{}]", base.name, fmt::join(base.shape, ", "));
  if (!base.viewPattern.empty())
    throw tessera::Error(fmt::format("{}: {} is an access pattern (Tile::ap), which cannot be viewed again", what, shown),
                         toLoc(loc), "write the window into the pattern itself (its offset, steps and counts)");
  const int root = base.viewOf >= 0 ? base.viewOf : buffer;
  if (base.space == tessera::isa::MemSpace::Psum && tracer.isAccumulator(root))
    throw tessera::Error(fmt::format("{}: {} is a zero-filled PSUM accumulator (tsr::psum): matmuls accumulate "
                                     "into it whole, and its first one starts the accumulation group",
                                     what, shown),
                         toLoc(loc),
                         "to write a PSUM tile piece by piece (transposes side by side), make it with "
                         "tsr::ndarray(dtype, shape, tsr::buffer::psum)");
  if (size <= 0) throw tessera::Error(fmt::format("{}: size {} of {} must be positive", what, size, shown), toLoc(loc));
  return shown;
}

/// A view of `buffer` (itself a view or not) of `shape`, `partition` partitions and `offset` elements into it.
Tile viewOf(Tracer &tracer, int buffer, Shape shape, int64_t partition, const Index &offset,
            const std::source_location &loc) {
  const graph::Buffer &base = tracer.graph().buffers[buffer];
  const bool nested = base.viewOf >= 0;
  graph::Buffer view;
  view.shape = std::move(shape);
  view.dtype = base.dtype;
  view.space = base.space;
  view.loc = toLoc(loc);
  view.viewOf = nested ? base.viewOf : buffer;
  view.viewOffset = nested ? (Index(base.viewOffset) + offset).expr() : offset.expr();
  view.viewPartition = (nested ? base.viewPartition : 0) + partition;
  return Tile(tracer.allocate(std::move(view)));
}

} // namespace

Tile Tile::slice(const Index &start, int64_t size, std::source_location loc) const {
  Tracer &tracer = Tracer::current(loc);
  const std::string shown = checkViewable(tracer, buffer_, "slice", size, loc);
  const Shape &shape = tracer.graph().buffers[buffer_].shape;
  auto [lo, hi] = range(start.expr(), loc);
  if (lo < 0 || hi + size > shape[1])
    throw tessera::Error(fmt::format("slice: {} elements at offsets from {} to {} leave {}", size, lo, hi, shown),
                         toLoc(loc), "a slice must stay within the free dimension of its tile for every loop index");
  return viewOf(tracer, buffer_, {shape[0], size}, 0, start, loc);
}

Tile Tile::partition_slice(int64_t start, int64_t size, std::source_location loc) const {
  Tracer &tracer = Tracer::current(loc);
  const std::string shown = checkViewable(tracer, buffer_, "partition_slice", size, loc);
  const Shape &shape = tracer.graph().buffers[buffer_].shape;
  if (start < 0 || start + size > shape[0])
    throw tessera::Error(fmt::format("partition_slice: partitions [{}, {}) leave {}, which has {}", start,
                                     start + size, shown, shape[0]),
                         toLoc(loc), "a partition slice must stay within its tile's partitions");
  return viewOf(tracer, buffer_, {size, shape[1]}, start, Index(0), loc);
}
Tile Tile::ap(std::vector<std::array<int64_t, 2>> pattern, const Index &offset, std::source_location loc) const {
  Tracer &tracer = Tracer::current(loc);
  const std::string shown = checkViewable(tracer, buffer_, "ap", 1, loc);
  const graph::Buffer &base = tracer.graph().buffers[buffer_];
  const int64_t partitions = base.shape[0], free = base.shape[1];
  auto fail = [&](const std::string &what, const std::string &hint) {
    throw tessera::Error(fmt::format("ap: {} ({})", what, shown), toLoc(loc), hint);
  };
  if (base.viewOf >= 0)
    fail("an access pattern is taken on a whole tile, not on a slice of one",
         "call .ap on the tile and put the slice's start in the pattern's offset (NKI: .ap is only allowed on an "
         "nl.ndarray)");
  if (pattern.size() < 2 || pattern.size() > 1 + tessera::isa::AccessPattern::kMaxFreeDims)
    fail(fmt::format("a pattern of {} pairs; it has the partitions' [{}, n] and then 1 to {} [step, count] pairs of "
                     "the free dimension",
                     pattern.size(), free, tessera::isa::AccessPattern::kMaxFreeDims),
         "e.g. t.ap({{" + std::to_string(free) + ", " + std::to_string(partitions) + "}, {1, " + std::to_string(free) +
             "}}) walks the whole tile");
  if (pattern[0][0] != free)
    fail(fmt::format("the partition pair's step is {}, not the tile's free size {}", pattern[0][0], free),
         "partitions are walked whole: the first pair is [free size, partitions] (NKI Access Patterns, \"Restriction "
         "on SBUF/PSUM Tensors\")");
  int64_t first = 0, span = 0, elements = 1; // the pattern's own extent in a partition: [first, first + span]
  std::vector<int64_t> flat;
  for (size_t d = 1; d < pattern.size(); ++d) {
    const auto [step, count] = pattern[d];
    if (count <= 0 || step < 0)
      fail(fmt::format("pair {} is [{}, {}]; a step is at least 0 and a count at least 1", d, step, count),
           "steps and counts are in elements of the tile's dtype");
    span += step * (count - 1);
    elements *= count;
    flat.insert(flat.end(), {step, count});
  }
  int64_t partition = 0;
  Index start = offset;
  if (offset.isConstant()) {
    first = offset.expr().constant;
    if (first < 0) fail(fmt::format("offset {} is negative", first), "the offset counts elements from the tile's start");
    partition = first / free;
    start = Index(first % free);
  }
  auto [lo, hi] = range(start.expr(), loc);
  if (lo < 0 || hi + span >= free)
    fail(fmt::format("the pattern reaches elements {} to {} of a partition, which has {}", lo, hi + span, free),
         offset.isConstant()
             ? "offset % free size + sum((count - 1) * step) must stay below the tile's free size"
             : "an offset that depends on loop indices addresses the first partition's row: offset + sum((count - "
               "1) * step) must stay below the tile's free size for every loop index (a number picks a later "
               "partition: offset / free size)");
  if (partition + pattern[0][1] > partitions || pattern[0][1] <= 0)
    fail(fmt::format("partitions [{}, {}) of {}", partition, partition + pattern[0][1], partitions),
         "the first pair's count is the partitions walked, from offset / free size");
  Tile view = viewOf(tracer, buffer_, {pattern[0][1], elements}, partition, start, loc);
  tracer.graph().buffers[view.buffer()].viewPattern = std::move(flat);
  return view;
}

DType Tile::dtype() const { return bufferOf(buffer_).dtype; }
tessera::isa::MemSpace Tile::space() const { return bufferOf(buffer_).space; }

HbmTile::HbmTile(graph::HbmWindow window)
    : window_(std::move(window)), shape_(window_.sizes.end() - 2, window_.sizes.end()) {
  if (window_.transposed) std::swap(shape_[0], shape_[1]);
}

DType HbmTile::dtype() const { return tensorOf(window_.tensor).dtype; }

HbmTile HbmTile::transposed(std::source_location loc) const {
  const graph::TensorArg &t = tensorOf(window_.tensor, loc);
  if (window_.transposed)
    throw tessera::Error(fmt::format("{}: the window is transposed already", t.name), toLoc(loc),
                         "transposing it again gives the window itself: take the window without .transposed()");
  if (window_.strided())
    throw tessera::Error(fmt::format("{}: a strided window (steps [{}]) cannot be transposed", t.name,
                                     fmt::join(window_.steps.end() - 2, window_.steps.end(), ", ")),
                         toLoc(loc),
                         "transpose a window of steps 1 (load it, then pick its elements on chip), or load the "
                         "strided window and tsr::transpose it on chip");
  if (const int64_t columns = window_.sizes.back(); columns > tile_size::pmax)
    throw tessera::Error(fmt::format("{}: the window's {} columns would be the transposed tile's partitions, more than "
                                     "the {} a tile has",
                                     t.name, columns, tile_size::pmax),
                         toLoc(loc),
                         fmt::format("transpose windows of at most {} columns, one per block of columns",
                                     tile_size::pmax));
  graph::HbmWindow w = window_;
  w.transposed = true;
  return HbmTile(std::move(w));
}

const std::string &Hbm::name() const { return tensorOf(tensor_).name; }
const Shape &Hbm::shape() const { return fixed_.empty() ? tensorOf(tensor_).shape : rest_; }
DType Hbm::dtype() const { return tensorOf(tensor_).dtype; }

int64_t Hbm::dim(int d, std::source_location loc) const {
  const Shape &s = fixed_.empty() ? tensorOf(tensor_, loc).shape : rest_;
  if (d < 0 || d >= static_cast<int>(s.size()))
    throw tessera::Error(fmt::format("{}.dim({}): the tensor has {} dimensions", name(), d, s.size()), toLoc(loc));
  return s[d];
}

namespace {
/// How a view is shown in messages: "x", and "x[.]" for one with a fixed index (its value is not known here).
std::string viewName(const std::string &name, size_t fixed) {
  std::string s = name;
  for (size_t i = 0; i < fixed; ++i) s += "[.]";
  return s;
}
} // namespace

Hbm Hbm::operator[](const LeadingIndex &index) const {
  const std::source_location &loc = index.loc;
  const graph::TensorArg &t = tensorOf(tensor_, loc);
  const Shape &s = fixed_.empty() ? t.shape : rest_;
  if (s.size() <= 2)
    throw tessera::Error(fmt::format("{}[...]: {} is [{}] here, its rows and columns: it has no leading dimension "
                                     "left to fix",
                                     viewName(t.name, fixed_.size()), viewName(t.name, fixed_.size()),
                                     fmt::join(s, ", ")),
                         toLoc(loc), "take a window of the last two dimensions with .tile(i, j, size) or .window");
  auto [lo, hi] = range(index.index.expr(), loc);
  if (lo < 0 || hi >= s[0])
    throw tessera::Error(fmt::format("{}[...]: index from {} to {} along dimension {} leaves the tensor [{}]: "
                                     "its {} would be {}, {}",
                                     viewName(t.name, fixed_.size()), lo, hi, fixed_.size(), fmt::join(t.shape, ", "),
                                     lo < 0 ? "first" : "last", lo < 0 ? lo : hi,
                                     lo < 0 ? std::string("before index 0")
                                            : fmt::format("past the last index {}", s[0] - 1)),
                         toLoc(loc), "a leading index lies inside its dimension for every value of its loop indices");
  Hbm view(tensor_);
  view.fixed_ = fixed_;
  view.fixed_.push_back(index.index.expr());
  view.rest_.assign(s.begin() + 1, s.end());
  return view;
}

void Hbm::checkTwoDimensional(const char *what, const std::source_location &loc) const {
  const Shape &s = fixed_.empty() ? tensorOf(tensor_, loc).shape : rest_;
  if (s.size() == 2) return;
  const std::string name = viewName(this->name(), fixed_.size());
  const size_t leading = s.size() - 2;
  // The hint's indices: b, then h, then k (at most kMaxHbmRank - 2 of them).
  constexpr const char *kIndexNames[] = {"b", "h", "k"};
  static_assert(std::size(kIndexNames) >= kMaxHbmRank - 2, "a name for every leading index");
  std::string chained, listed;
  for (size_t i = 0; i < leading; ++i) {
    chained += fmt::format("[{}]", kIndexNames[i]);
    listed += fmt::format("{}, ", kIndexNames[i]);
  }
  throw tessera::Error(fmt::format("{}.{}: {} is [{}]; a window is 2-D [rows, columns] of the last two dimensions: "
                                   "fix the {} leading dimension{} first",
                                   name, what, name, fmt::join(s, ", "), leading, leading == 1 ? "" : "s"),
                       toLoc(loc),
                       fmt::format("index them as NKI does: {}{}.{}(...) for {}[{}rows, columns]", name, chained, what,
                                   name, listed));
}

HbmTile Hbm::tile(const Index &i, const Index &j, Shape size, std::source_location loc) const {
  checkTwoDimensional("tile", loc);
  if (size.size() != 2)
    throw tessera::Error(fmt::format("{}.tile: expected a 2-D tile size, got [{}]", name(), fmt::join(size, ", ")),
                         toLoc(loc));
  Index row = i * size[0], col = j * size[1];
  return window(row, col, std::move(size), loc);
}

HbmTile Hbm::window(const Index &row, const Index &col, Shape size, std::source_location loc) const {
  return window(row, col, std::move(size), Shape{1, 1}, loc);
}

HbmTile Hbm::window(const Index &row, const Index &col, Shape size, Shape step, std::source_location loc) const {
  const graph::TensorArg &t = tensorOf(tensor_, loc);
  checkTwoDimensional("window", loc);
  if (step.size() != 2 || step[0] < 0 || step[1] < 0 || (step[0] == 0 && step[1] == 0))
    throw tessera::Error(fmt::format("{}: window steps [{}] must be two numbers (rows, columns), each 0 or more and "
                                     "not both 0",
                                     t.name, fmt::join(step, ", ")),
                         toLoc(loc),
                         "a step of 0 repeats one row (or column) of the tensor along the window, a broadcast to load");
  if (size.size() != 2)
    throw tessera::Error(fmt::format("{}: windows are 2-D (tensor is [{}], window [{}])", t.name,
                                     fmt::join(shape(), ", "), fmt::join(size, ", ")),
                         toLoc(loc));
  const Index *offsets[2] = {&row, &col};
  const size_t lead = fixed_.size(); // the tensor's dimension of the window's rows
  graph::HbmWindow w;
  w.tensor = tensor_;
  w.offsets = fixed_;
  w.sizes.assign(lead, 1);
  w.sizes.insert(w.sizes.end(), size.begin(), size.end());
  for (int d = 0; d < 2; ++d) {
    if (size[d] <= 0)
      throw tessera::Error(fmt::format("{}: window size [{}] must be positive", t.name, fmt::join(size, ", ")),
                           toLoc(loc));
    auto [lo, hi] = range(offsets[d]->expr(), loc);
    const int64_t extent = (size[d] - 1) * step[d] + 1; // elements from the window's first to its last
    const int64_t dimSize = t.shape[lead + d];
    if (lo < 0 || hi + extent > dimSize)
      throw tessera::Error(
          fmt::format("{}: window [{}]{} at offsets from {} to {} along dimension {} leaves the tensor [{}]: its {} "
                      "element along dimension {} would be at index {}, {}",
                      t.name, fmt::join(size, ", "),
                      step[d] == 1 ? std::string{} : fmt::format(" with step {}", step[d]), lo, hi, lead + d,
                      fmt::join(t.shape, ", "), lo < 0 ? "first" : "last", lead + d, lo < 0 ? lo : hi + extent - 1,
                      lo < 0 ? std::string("before index 0") : fmt::format("past the last index {}", dimSize - 1)),
          toLoc(loc),
          "a window lies inside its tensor: start it within the tensor and take fewer elements (or steps), or, for "
          "blocks of a loop, handle the last, smaller block apart when the dimension is not a multiple of the block");
    w.offsets.push_back(offsets[d]->expr());
  }
  if (step[0] != 1 || step[1] != 1) {
    w.steps.assign(lead, 1);
    w.steps.insert(w.steps.end(), step.begin(), step.end());
  }
  return HbmTile(std::move(w));
}

Tile Operand::tile(const char *op, const char *role, Patterns patterns) const {
  if (hbm_)
    throw tessera::Error(fmt::format("{}: the {} operand is in HBM; engines read only SBUF and PSUM", op, role),
                         toLoc(loc_), "load it into SBUF first with tsr::load");
  Tracer &tracer = Tracer::current(loc_);
  tracer.checkAlive(tile_, loc_);
  const graph::Buffer &b = tracer.graph().buffers[tile_];
  if (!b.viewPattern.empty() && patterns == Patterns::Refused)
    throw tessera::Error(fmt::format("{}: the {} operand is an access pattern of tile '{}' (Tile::ap), which it "
                                     "does not take (copies, reductions, the inputs of elementwise ops and the "
                                     "tsr::isa calls read one)",
                                     op, role, tracer.graph().buffers[b.viewOf].name),
                         toLoc(loc_), "copy the pattern into a tile first (tsr::copy(t.ap(...)))");
  return Tile(tile_);
}

} // namespace tsr
