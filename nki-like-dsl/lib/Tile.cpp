#include "tessera/dsl/Tile.h"

#include "Tracer.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

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
DType Tile::dtype() const { return bufferOf(buffer_).dtype; }
tessera::isa::MemSpace Tile::space() const { return bufferOf(buffer_).space; }

DType HbmTile::dtype() const { return tensorOf(window_.tensor).dtype; }

const std::string &Hbm::name() const { return tensorOf(tensor_).name; }
const Shape &Hbm::shape() const { return tensorOf(tensor_).shape; }
DType Hbm::dtype() const { return tensorOf(tensor_).dtype; }

int64_t Hbm::dim(int d, std::source_location loc) const {
  const Shape &s = tensorOf(tensor_, loc).shape;
  if (d < 0 || d >= static_cast<int>(s.size()))
    throw tessera::Error(fmt::format("{}.dim({}): the tensor has {} dimensions", name(), d, s.size()), toLoc(loc));
  return s[d];
}

HbmTile Hbm::tile(const Index &i, const Index &j, Shape size, std::source_location loc) const {
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
  if (step.size() != 2 || step[0] < 0 || step[1] < 0 || (step[0] == 0 && step[1] == 0))
    throw tessera::Error(fmt::format("{}: window steps [{}] must be two numbers (rows, columns), each 0 or more and "
                                     "not both 0",
                                     t.name, fmt::join(step, ", ")),
                         toLoc(loc),
                         "a step of 0 repeats one row (or column) of the tensor along the window, a broadcast to load");
  if (t.shape.size() != 2 || size.size() != 2)
    throw tessera::Error(fmt::format("{}: windows are 2-D in this version (tensor is [{}], window [{}])", t.name,
                                     fmt::join(t.shape, ", "), fmt::join(size, ", ")),
                         toLoc(loc));
  const Index *offsets[2] = {&row, &col};
  graph::HbmWindow w;
  w.tensor = tensor_;
  w.sizes = size;
  for (int d = 0; d < 2; ++d) {
    if (size[d] <= 0)
      throw tessera::Error(fmt::format("{}: window size [{}] must be positive", t.name, fmt::join(size, ", ")),
                           toLoc(loc));
    auto [lo, hi] = range(offsets[d]->expr(), loc);
    const int64_t extent = (size[d] - 1) * step[d] + 1; // elements from the window's first to its last
    if (lo < 0 || hi + extent > t.shape[d])
      throw tessera::Error(
          fmt::format("{}: window [{}]{} at offsets from {} to {} along dimension {} leaves the tensor [{}]: its {} "
                      "element along dimension {} would be at index {}, {}",
                      t.name, fmt::join(size, ", "),
                      step[d] == 1 ? std::string{} : fmt::format(" with step {}", step[d]), lo, hi, d,
                      fmt::join(t.shape, ", "), lo < 0 ? "first" : "last", d, lo < 0 ? lo : hi + extent - 1,
                      lo < 0 ? std::string("before index 0") : fmt::format("past the last index {}", t.shape[d] - 1)),
          toLoc(loc),
          "a window lies inside its tensor: start it within the tensor and take fewer elements (or steps), or, for "
          "blocks of a loop, handle the last, smaller block apart when the dimension is not a multiple of the block");
    w.offsets.push_back(offsets[d]->expr());
  }
  if (step[0] != 1 || step[1] != 1) w.steps = step;
  return HbmTile(std::move(w));
}

Tile Operand::tile(const char *op, const char *role) const {
  if (hbm_)
    throw tessera::Error(fmt::format("{}: the {} operand is in HBM; engines read only SBUF and PSUM", op, role),
                         toLoc(loc_), "load it into SBUF first with tsr::load");
  Tracer::current(loc_).checkAlive(tile_, loc_);
  return Tile(tile_);
}

} // namespace tsr
