//===- Tile.td - the hardware-neutral tile dialect ---------------------------------------------------------===//
//
// What a DSL kernel becomes first: HBM tensors are memrefs in the default memory space, on-chip tiles are
// memrefs in #tile.space<sbuf> or #tile.space<psum>, loops are scf.for with constant bounds, and tile offsets
// are index arithmetic. Ops write their last operand (buffer semantics, as in NKI).
//
// Two discardable attributes mark ops the kernel wrote at the tsr::isa level:
//   tile.isa     lower to exactly this one instruction (no zero fill dropped, no accumulation rewritten);
//   tile.manual  recorded in a tsr::isa::manual_sync scope: exactly one instruction, which the compiler orders
//                only after instructions outside such scopes (tile.wait / tile.signal order the rest).
//
//===----------------------------------------------------------------------------------------------------===//

#ifndef TESSERA_TILE_TD
#define TESSERA_TILE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Tile_Dialect : Dialect {
  let name = "tile";
  let cppNamespace = "::tessera::tile";
  let summary = "Hardware-neutral tiles, loops and tile operations traced from a Tessera DSL kernel";
  let useDefaultAttributePrinterParser = 1;
  let dependentDialects = ["::mlir::memref::MemRefDialect", "::mlir::scf::SCFDialect", "::mlir::arith::ArithDialect"];
}

def Tile_MemorySpace : I32EnumAttr<"MemorySpace", "where a tile lives", [
    I32EnumAttrCase<"hbm", 0>, I32EnumAttrCase<"sbuf", 1>, I32EnumAttrCase<"psum", 2>]> {
  let genSpecializedAttr = 0;
  let cppNamespace = "::tessera::tile";
}
def Tile_MemorySpaceAttr : EnumAttr<Tile_Dialect, Tile_MemorySpace, "space"> {
  let assemblyFormat = "`<` $value `>`";
}

// The names are isa::AluOp's and isa::ActFunc's (isa/lib/Operators.cpp): conversions go through them.
def Tile_Alu : I32EnumAttr<"Alu", "an elementwise or reduction operator", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"subtract", 1>, I32EnumAttrCase<"multiply", 2>,
    I32EnumAttrCase<"max", 3>, I32EnumAttrCase<"min", 4>, I32EnumAttrCase<"divide", 5>,
    I32EnumAttrCase<"bypass", 6>, I32EnumAttrCase<"power", 7>, I32EnumAttrCase<"abs_max", 8>,
    I32EnumAttrCase<"is_equal", 9>, I32EnumAttrCase<"not_equal", 10>, I32EnumAttrCase<"is_gt", 11>,
    I32EnumAttrCase<"is_ge", 12>, I32EnumAttrCase<"is_lt", 13>, I32EnumAttrCase<"is_le", 14>,
    I32EnumAttrCase<"logical_and", 15>, I32EnumAttrCase<"logical_or", 16>]> {
  let cppNamespace = "::tessera::tile";
}
def Tile_Func : I32EnumAttr<"Func", "an activation function", [
    I32EnumAttrCase<"identity", 0>, I32EnumAttrCase<"exp", 1>, I32EnumAttrCase<"log", 2>,
    I32EnumAttrCase<"tanh", 3>, I32EnumAttrCase<"gelu", 4>, I32EnumAttrCase<"gelu_apprx_tanh", 5>,
    I32EnumAttrCase<"silu", 6>, I32EnumAttrCase<"sigmoid", 7>, I32EnumAttrCase<"relu", 8>,
    I32EnumAttrCase<"rsqrt", 9>, I32EnumAttrCase<"square", 10>, I32EnumAttrCase<"sqrt", 11>,
    I32EnumAttrCase<"reciprocal", 12>]> {
  let cppNamespace = "::tessera::tile";
}

class Tile_Op<string mnemonic, list<Trait> traits = []> : Op<Tile_Dialect, mnemonic, traits>;

def Tile_AllocOp : Tile_Op<"alloc"> {
  let summary = "an on-chip tile buffer, live until the end of its block (its bytes may be reused after its last use)";
  let description = [{
    `offset` (bytes within each partition) and `bufs` (rotating copies, one per loop iteration in flight) are
    set by the memory allocation pass, except for a `fixed` tile, which the kernel placed itself
    (tsr::isa::sbuf_tile_at): it keeps its `offset`, has one copy, and is not checked against the target's
    memory (the simulator checks every access at run time).
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$name, OptionalAttr<I64Attr>:$offset, OptionalAttr<I64Attr>:$bufs,
                       UnitAttr:$fixed);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_ViewOp : Tile_Op<"view"> {
  let summary = "a window of an SBUF or PSUM tile, sharing its memory (Tile::slice, Tile::partition_slice)";
  let description = [{
    The result is the free-dimension elements [offset, offset + result's free size) of partitions
    [partition, partition + result's partitions) of `source` (`partition` absent: 0): no memory of its own and no
    copy. Writes through it change `source`. `offset` is in elements and must keep the window inside `source`
    (checked here when constant, by the DSL for every loop index).

    With `pattern` (Tile::ap, NKI's access patterns), the result walks the partitions' elements as the pattern
    says: [step0, count0, step1, count1, ...], outermost first; free element i of the result, i = (i_0 ... i_k)
    row-major over the counts, is element offset + sum(i_d * step_d) of its partition of `source` (a tile, not a
    view). Only tile.copy and tile.inst (either side) and tile.reduce (its src) take such a view.
  }];
  let arguments = (ins AnyStaticShapeMemRef:$source, Index:$offset, OptionalAttr<I64Attr>:$partition,
                       OptionalAttr<DenseI64ArrayAttr>:$pattern);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "$source `[` $offset `]` attr-dict `:` type($source) `to` type($result)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The first partition of `source` the view covers (0 when `partition` is absent).
    int64_t firstPartition() { return getPartitionAttr() ? getPartitionAttr().getInt() : 0; }
    /// The counts of an access-pattern view's free dimensions, outermost first (empty without a pattern).
    llvm::SmallVector<int64_t> patternCounts();
    /// The steps of an access-pattern view's free dimensions, outermost first (empty without a pattern).
    llvm::SmallVector<int64_t> patternSteps();
  }];
}

def Tile_LoadOp : Tile_Op<"load"> {
  let summary = "DMA a window of an HBM tensor into a tile";
  let description = [{
    The window starts at `indices` and has the tile's shape. With `steps` (one non-negative step per dimension),
    it is strided: tile element (i, j) is the tensor's (indices[0] + i * steps[0], indices[1] + j * steps[1]); a
    step of 0 repeats one row (or column) along the tile, a broadcast. With `transpose` (and no steps) the window
    has the tile's shape swapped and the tile is its transpose: tile element (i, j) is the tensor's
    (indices[0] + j, indices[1] + i) (NKI's nl.load_transpose2d).
  }];
  let arguments = (ins AnyStaticShapeMemRef:$src, Variadic<Index>:$indices, AnyStaticShapeMemRef:$dst,
                       OptionalAttr<DenseI64ArrayAttr>:$steps, UnitAttr:$transpose);
  let assemblyFormat = "$src `[` $indices `]` `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store"> {
  let summary = "DMA a tile into a window of an HBM tensor";
  let description = [{
    The window starts at `indices` and has the tile's shape; `steps`, when present, strides it as tile.load's (but
    each is positive: no two elements of the tile go to one place); `transpose` transposes it as tile.load's: tile
    element (i, j) goes to the tensor's (indices[0] + j, indices[1] + i).
  }];
  let arguments = (ins AnyStaticShapeMemRef:$src, AnyStaticShapeMemRef:$dst, Variadic<Index>:$indices,
                       OptionalAttr<DenseI64ArrayAttr>:$steps, UnitAttr:$transpose);
  let assemblyFormat = "$src `,` $dst `[` $indices `]` attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_MatmulOp : Tile_Op<"matmul"> {
  let summary = "acc (+)= stationary^T @ moving, contraction over partitions";
  let arguments = (ins AnyStaticShapeMemRef:$stationary, AnyStaticShapeMemRef:$moving, AnyStaticShapeMemRef:$acc,
                       UnitAttr:$accumulate);
  let assemblyFormat = "$stationary `,` $moving `,` $acc attr-dict `:` type($stationary) `,` type($moving) `,` type($acc)";
  let hasVerifier = 1;
}

def Tile_BinaryOp : Tile_Op<"binary"> {
  let summary = "dst = lhs <op> rhs elementwise; a [P, 1] operand broadcasts along the free dimension";
  let arguments = (ins Tile_Alu:$op, AnyStaticShapeMemRef:$lhs, AnyStaticShapeMemRef:$rhs, AnyStaticShapeMemRef:$dst);
  let assemblyFormat = "$op $lhs `,` $rhs `,` $dst attr-dict `:` type($lhs) `,` type($rhs) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_BinaryScalarOp : Tile_Op<"binary_scalar"> {
  let summary = "dst = src <op> scalar elementwise, or scalar <op> src when `reverse` (a number in the kernel)";
  let description = [{
    The language-level `x * 2.0`, `x + eps`, `1.0 - x` (NKI: nl.multiply(x, 2.0)): the number is an f32
    immediate, src and dst have one shape. A NeuronCore runs it as tensor_scalar with operand0 the number; a TPU
    as a VPU operation with a splatted scalar.
  }];
  let arguments = (ins Tile_Alu:$op, AnyStaticShapeMemRef:$src, F32Attr:$scalar, AnyStaticShapeMemRef:$dst,
                       UnitAttr:$reverse);
  let assemblyFormat = "$op $src `,` $scalar `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_ActivationOp : Tile_Op<"activation", [AttrSizedOperandSegments]> {
  let summary = "dst = func(src * scale + bias); sum[p, 0] = the sum of row p of the result, before dst's rounding";
  let description = [{
    `bias`, when present, is a [P, 1] tile added to row p after the scale; `scales`, when present, a [P, 1] tile
    whose row p is row p's scale (the `scale` attribute is then 1); `sum`, when present, a [P, 1] f32 tile that
    receives the row sums of the FP32 results (tsr::activation with ActivationOptions).
  }];
  let arguments = (ins Tile_Func:$func, AnyStaticShapeMemRef:$src, Optional<AnyStaticShapeMemRef>:$bias,
                       AnyStaticShapeMemRef:$dst, Optional<AnyStaticShapeMemRef>:$sum,
                       Optional<AnyStaticShapeMemRef>:$scales, DefaultValuedAttr<F32Attr, "1.0">:$scale);
  let assemblyFormat = [{
    $func $src (`bias` `(` $bias^ `:` type($bias) `)`)? (`scales` `(` $scales^ `:` type($scales) `)`)? `,` $dst
    (`sum` `(` $sum^ `:` type($sum) `)`)? attr-dict `:` type($src) `,` type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_TransposeOp : Tile_Op<"transpose"> {
  let summary = "dst[f, p] = src[p, f] (tsr::transpose)";
  let description = [{
    src is an SBUF tile [P, F]; dst is [F, P], in PSUM (the NeuronCore's tensor engine; dst's element type src's or
    f32) or in SBUF (a DMA transpose; a 2-byte element type, the same on both sides). A TPU runs it as an MXU
    matmul with an identity matrix (tile-legalize-for-tpu).
  }];
  let arguments = (ins AnyStaticShapeMemRef:$src, AnyStaticShapeMemRef:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_BroadcastOp : Tile_Op<"broadcast"> {
  let summary = "dst = src repeated along src's dimensions of size 1, converting the element type (tsr::broadcast_to)";
  let description = [{
    src is [1, F], [P, 1] or [1, 1] in SBUF or PSUM; dst is [P, F] in SBUF: each of its dimensions equals src's
    or src's is 1, and at least one differs (an equal shape is a tile.copy). dst[p, f] = src[p or 0, f or 0].
    A NeuronCore runs it as a tensor_copy along the free dimension and one nc_stream_shuffle per quadrant of dst
    onto the partitions (tile-legalize-for-neuroncore makes a broadcast of a row just loaded from HBM a broadcast
    load); a TPU as one VPU copy that reads the source row or column repeatedly.
  }];
  let arguments = (ins AnyStaticShapeMemRef:$src, AnyStaticShapeMemRef:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_ScanOp : Tile_Op<"scan"> {
  let summary = "dst[p, f] = a[p, f] * dst[p, f - 1] + b[p, f] along the free dimension (tsr::scan)";
  let description = [{
    The linear recurrence, row by row, from dst[p, -1] = initial[p, 0] (a [P, 1] tile) or 0 without `initial`,
    in FP32. a, b and dst share a shape; a and b are in sbuf or psum (not both in psum), dst in sbuf.
  }];
  let arguments = (ins AnyStaticShapeMemRef:$a, AnyStaticShapeMemRef:$b, AnyStaticShapeMemRef:$dst,
                       Optional<AnyStaticShapeMemRef>:$initial);
  let assemblyFormat = [{
    $a `,` $b `,` $dst (`init` `(` $initial^ `:` type($initial) `)`)? attr-dict `:` type($a) `,` type($b) `,`
    type($dst)
  }];
  let hasVerifier = 1;
}

def Tile_FillWhereOp : Tile_Op<"fill_where"> {
  let summary = "dst[p, f] = value where offset + partition * p + free * f <cmp> 0 (tsr::fill with a Position)";
  let description = [{
    The other elements keep their values. `cmp` is a comparison and the test linear in f, so the elements of a row
    that are filled form at most two runs; `offset` may depend on loop indices. dst is an SBUF tile.
  }];
  let arguments = (ins Tile_Alu:$cmp, AnyStaticShapeMemRef:$dst, Index:$offset, F32Attr:$value, I64Attr:$partition,
                       I64Attr:$free);
  let assemblyFormat = "$cmp $dst `[` $offset `]` `,` $value attr-dict `:` type($dst)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "dst[p, g] = reduction of src[p, g * n : (g + 1) * n] with op, n = src's free size / dst's";
  let description = [{
    dst is [P, G]; each of its elements reduces n consecutive free elements of src (in an access pattern's order:
    n is then the product of its innermost counts).
  }];
  let arguments = (ins Tile_Alu:$op, AnyStaticShapeMemRef:$src, AnyStaticShapeMemRef:$dst);
  let assemblyFormat = "$op $src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_CopyOp : Tile_Op<"copy"> {
  let summary = "dst = src, converting the element type";
  let arguments = (ins AnyStaticShapeMemRef:$src, AnyStaticShapeMemRef:$dst);
  let assemblyFormat = "$src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_MemsetOp : Tile_Op<"memset"> {
  let summary = "dst = value";
  let arguments = (ins AnyStaticShapeMemRef:$dst, F32Attr:$value);
  let assemblyFormat = "$dst `,` $value attr-dict `:` type($dst)";
  let hasVerifier = 1;
}

def Tile_PrintOp : Tile_Op<"print"> {
  let summary = "log a tile's values at this point of the kernel's time (tsr::device_print)";
  let description = [{
    Reads `src`; the simulator logs its values under `label` with the simulated time. The golden model drops it.
  }];
  let arguments = (ins StrAttr:$label, AnyStaticShapeMemRef:$src);
  let assemblyFormat = "$label `,` $src attr-dict `:` type($src)";
  let hasVerifier = 1;
}

def Tile_WaitOp : Tile_Op<"wait"> {
  let summary = "the next op waits until a kernel semaphore reaches `count` (tsr::isa::wait)";
  let description = [{
    Only in a manual_sync scope (it carries tile.manual): the next op, which must be tile.manual too, becomes an
    instruction that waits for semaphore `semaphore` to have been signalled `count` times (at least 1).
  }];
  let arguments = (ins I64Attr:$semaphore, Index:$count);
  let assemblyFormat = "$semaphore `,` $count attr-dict";
  let hasVerifier = 1;
}

def Tile_SignalOp : Tile_Op<"signal"> {
  let summary = "the previous op signals a kernel semaphore when done (tsr::isa::signal)";
  let description = [{
    Only in a manual_sync scope (it carries tile.manual): the instruction of the previous op, which must be
    tile.manual too, adds one to semaphore `semaphore` when it completes.
  }];
  let arguments = (ins I64Attr:$semaphore);
  let assemblyFormat = "$semaphore attr-dict";
  let hasVerifier = 1;
}

def Tile_InstOp : Tile_Op<"inst", [AttrSizedOperandSegments]> {
  let summary = "one instruction of the instruction set, by name, on whole tiles (a tsr::isa call)";
  let description = [{
    The tsr::isa calls that have no op of their own: `opcode` names the instruction's definition
    (isa/InstructionSet.h), the optional operands fill its slots (dst, dst2, src0, src1, src2: each a whole
    tile), `params` holds its settings as nc.inst's do, and `engine` the engine the kernel chose (else the
    definition's preferred one). It always becomes exactly one instruction.
  }];
  let arguments = (ins StrAttr:$opcode, Optional<AnyStaticShapeMemRef>:$dst, Optional<AnyStaticShapeMemRef>:$dst2,
                       Optional<AnyStaticShapeMemRef>:$src0, Optional<AnyStaticShapeMemRef>:$src1,
                       Optional<AnyStaticShapeMemRef>:$src2, OptionalAttr<DictionaryAttr>:$params,
                       OptionalAttr<StrAttr>:$engine);
  let assemblyFormat = [{
    $opcode (`dst` `(` $dst^ `:` type($dst) `)`)? (`dst2` `(` $dst2^ `:` type($dst2) `)`)?
    (`src0` `(` $src0^ `:` type($src0) `)`)? (`src1` `(` $src1^ `:` type($src1) `)`)?
    (`src2` `(` $src2^ `:` type($src2) `)`)? attr-dict
  }];
  let hasVerifier = 1;
}

#endif // TESSERA_TILE_TD
