#pragma once
/// \file
/// The tsr::isa level (NKI's `nki.isa`): calls that map 1:1 onto engine instructions, for authors who want
/// control. Each records exactly one instruction that the compiler neither drops nor merges; tiles can be placed
/// at explicit addresses; and inside a `manual_sync` scope the kernel synchronises the engines itself, with
/// semaphores, instead of the compiler.
///
/// ```cpp
/// tsr::isa::manual_sync sync;            // until the end of the C++ scope: no automatic semaphore waits
/// tsr::isa::Semaphore loaded;
/// Tile x = tsr::load(a.tile(0, 0, {128, 512}));
/// tsr::isa::signal(loaded);              // the DMA above signals `loaded` when it completes
/// tsr::isa::wait(loaded, 1);             // the next instruction starts once `loaded` has been signalled once
/// Tile y = tsr::exp(x);
/// ```

#include "tessera/dsl/Operators.h"
#include "tessera/dsl/Ops.h"
#include "tessera/dsl/isa/Scalar.h"

#include <optional>

namespace tsr::isa {

// ---- Engine instructions (nki.isa), dst first ------------------------------------------------------------
// Each becomes exactly one instruction of the instruction set (see `tessera isa`); its operands are checked
// against the instruction's definition here, at the kernel's line.

/// dst = src, converting to dst's dtype, on `engine` (nki.isa.tensor_copy).
void tensor_copy(const Tile &dst, const Operand &src, std::optional<Engine> engine = std::nullopt,
                 Loc loc = Loc::current());
/// dst = data1 <op> data2, elementwise (nki.isa.tensor_tensor).
void tensor_tensor(const Tile &dst, const Operand &data1, const Operand &data2, tessera::isa::AluOp op,
                   Loc loc = Loc::current());
/// dst = func(data * scale + bias) on the scalar engine (nki.isa.activation); `bias` a [P, 1] tile or none;
/// `scale` a number or a [P, 1] tile of each partition's scale (NKI's `scale: float | tile`).
void activation(const Tile &dst, tessera::isa::ActFunc func, const Operand &data,
                const std::optional<Operand> &bias = std::nullopt, const Scalar &scale = 1.0f,
                Loc loc = Loc::current());
/// dst[p, 0] = reduce_op(data[p, :]), negated when `negate` (nki.isa.tensor_reduce over the free axis).
void tensor_reduce(const Tile &dst, tessera::isa::AluOp op, const Operand &data, bool negate = false,
                   Loc loc = Loc::current());

/// dst = value, as one memset instruction (nki.isa.memset). Unlike tsr::psum's zero fill, never dropped: a
/// matmul accumulating onto it accumulates onto the memset data (undefined on NeuronCore v2/v3).
void memset(const Tile &dst, float value, Loc loc = Loc::current());

/// dst (+)= stationary.T @ moving as one matmul instruction (nki.isa.nc_matmul): `accumulate` false starts an
/// accumulation group (overwrites dst), true adds to what dst holds, exactly as given. The operands are checked
/// as tsr::matmul's are.
void nc_matmul(const Tile &dst, const Operand &stationary, const Operand &moving, bool accumulate,
               Loc loc = Loc::current());

/// A new SBUF tile placed by the kernel at byte `offset` of each partition, not by the compiler's allocator:
/// the compiler neither moves it nor checks it against the target's SBUF (the simulator does, at run time),
/// and other tiles may overlap it. `offset` must be a multiple of 4.
Tile sbuf_tile_at(DType dtype, int64_t offset, Shape shape, Loc loc = Loc::current());
template <DType T> Tile sbuf_tile_at(int64_t offset, Shape shape, Loc loc = Loc::current()) {
  return sbuf_tile_at(T, offset, std::move(shape), loc);
}

/// Until it is destroyed (the end of its C++ scope), the compiler inserts no semaphores between the instructions
/// recorded here: the kernel orders them with Semaphore, signal and wait. Across the scope's edge the compiler
/// still synchronises: an instruction here waits for what was computed before the scope, and instructions after
/// it wait for the ones here. Every call inside the scope becomes exactly one instruction, so `signal` and
/// `wait` attach to a known one.
class manual_sync {
public:
  explicit manual_sync(Loc loc = Loc::current());
  ~manual_sync();
  manual_sync(const manual_sync &) = delete;
  manual_sync &operator=(const manual_sync &) = delete;

private:
  Loc loc_;
};

/// A counting semaphore of the kernel's own: it starts at 0, and each signal adds one.
class Semaphore {
public:
  explicit Semaphore(Loc loc = Loc::current());
  int id() const { return id_; }

private:
  int id_;
};

/// The instruction recorded just before (in a manual_sync scope) signals `semaphore` when it completes.
void signal(const Semaphore &semaphore, Loc loc = Loc::current());

/// The next instruction recorded (in a manual_sync scope) starts only once `semaphore` has been signalled at
/// least `count` times. `count` may depend on loop indices (e.g. `i + 1`) and must be at least 1.
void wait(const Semaphore &semaphore, const Index &count, Loc loc = Loc::current());

} // namespace tsr::isa
