//===- Tile.td - the hardware-neutral tile dialect ---------------------------------------------------------===//
//
// What a DSL kernel becomes first: HBM tensors are memrefs in the default memory space, on-chip tiles are
// memrefs in #tile.space<sbuf> or #tile.space<psum>, loops are scf.for with constant bounds, and tile offsets
// are index arithmetic. Ops write their last operand (buffer semantics, as in NKI).
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

def Tile_Alu : I32EnumAttr<"Alu", "an elementwise or reduction operator", [
    I32EnumAttrCase<"add", 0>, I32EnumAttrCase<"subtract", 1>, I32EnumAttrCase<"multiply", 2>,
    I32EnumAttrCase<"max", 3>, I32EnumAttrCase<"min", 4>, I32EnumAttrCase<"divide", 5>]> {
  let cppNamespace = "::tessera::tile";
}
def Tile_Func : I32EnumAttr<"Func", "an activation function", [
    I32EnumAttrCase<"identity", 0>, I32EnumAttrCase<"exp", 1>]> {
  let cppNamespace = "::tessera::tile";
}

class Tile_Op<string mnemonic, list<Trait> traits = []> : Op<Tile_Dialect, mnemonic, traits>;

def Tile_AllocOp : Tile_Op<"alloc"> {
  let summary = "an on-chip tile buffer, live until the end of its block";
  let description = [{
    `offset` (bytes within each partition) and `bufs` (rotating copies, one per loop iteration in flight) are
    set by the memory allocation pass.
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$name, OptionalAttr<I64Attr>:$offset, OptionalAttr<I64Attr>:$bufs);
  let results = (outs AnyStaticShapeMemRef:$result);
  let assemblyFormat = "attr-dict `:` type($result)";
  let hasVerifier = 1;
}

def Tile_LoadOp : Tile_Op<"load"> {
  let summary = "DMA a window of an HBM tensor into a tile";
  let arguments = (ins AnyStaticShapeMemRef:$src, Variadic<Index>:$indices, AnyStaticShapeMemRef:$dst);
  let assemblyFormat = "$src `[` $indices `]` `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_StoreOp : Tile_Op<"store"> {
  let summary = "DMA a tile into a window of an HBM tensor";
  let arguments = (ins AnyStaticShapeMemRef:$src, AnyStaticShapeMemRef:$dst, Variadic<Index>:$indices);
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

def Tile_ActivationOp : Tile_Op<"activation"> {
  let summary = "dst = func(src * scale)";
  let arguments = (ins Tile_Func:$func, AnyStaticShapeMemRef:$src, AnyStaticShapeMemRef:$dst,
                       DefaultValuedAttr<F32Attr, "1.0">:$scale);
  let assemblyFormat = "$func $src `,` $dst attr-dict `:` type($src) `,` type($dst)";
  let hasVerifier = 1;
}

def Tile_ReduceOp : Tile_Op<"reduce"> {
  let summary = "dst[p, 0] = reduction of src[p, :] with op";
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

#endif // TESSERA_TILE_TD
