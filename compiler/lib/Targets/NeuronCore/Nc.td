//===- Nc.td - NeuronCore engine instructions ----------------------------------------------------------------===//
//
// The machine level: one op per engine instruction (nki.isa level), in program order, with resolved addresses
// (#nc.ap access patterns), the engine (and DMA queue) that runs it, and the semaphores it waits on and
// signals. Loops are unrolled, as in the instruction streams the hardware runs.
//
//===-------------------------------------------------------------------------------------------------------===//

#ifndef TESSERA_NC_TD
#define TESSERA_NC_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Nc_Dialect : Dialect {
  let name = "nc";
  let cppNamespace = "::tessera::nc";
  let summary = "NeuronCore engine instructions with resolved addresses and semaphores";
  let useDefaultAttributePrinterParser = 1;
}

def Nc_AccessPatternAttr : AttrDef<Nc_Dialect, "AccessPattern"> {
  let mnemonic = "ap";
  let summary = "where an operand lives and how it is walked (isa::AccessPattern)";
  let description = [{
    `space` is hbm, sbuf or psum. On chip, `offset` is a byte address within each of the partitions
    [start, start + count); in HBM it is an element offset into kernel tensor `tensor`, whose rows are `pstride`
    elements apart. `dims` and `strides` (elements) walk the free dimensions, outermost first.
  }];
  let parameters = (ins StringRefParameter<"memory space">:$space, "::mlir::Type":$dtype,
                        "int64_t":$tensor, "int64_t":$start, "int64_t":$count, "int64_t":$pstride,
                        "int64_t":$offset, ArrayRefParameter<"int64_t">:$dims, ArrayRefParameter<"int64_t">:$strides);
  let assemblyFormat = [{
    `<` $space `,` $dtype `,` `tensor` `=` $tensor `,` `partitions` `=` `[` $start `,` $count `]` `,`
    `pstride` `=` $pstride `,` `offset` `=` $offset `,` `dims` `=` `[` $dims `]` `,` `strides` `=` `[` $strides `]` `>`
  }];
}

// Every instruction: the engine that runs it ("tensor", "vector", "scalar", "gpsimd", "dma"), its DMA queue,
// the (semaphore, count) pairs it waits for before starting, and the semaphores it increments when done.
// An instruction from a tsr::isa::manual_sync scope carries the unit attribute `nc.manual`: the kernel's own
// waits order it after the other instructions of such scopes, and nc-insert-semaphores only adds waits for
// instructions outside them.
class Nc_Op<string mnemonic, dag operands, string format> : Op<Nc_Dialect, mnemonic> {
  let arguments = !con(operands, (ins StrAttr:$engine, DefaultValuedAttr<I64Attr, "0">:$queue,
                                      OptionalAttr<DenseI64ArrayAttr>:$waits,
                                      OptionalAttr<DenseI64ArrayAttr>:$signals));
  let assemblyFormat = format # " attr-dict";
  let hasVerifier = 1;
}

def Nc_DmaCopyOp : Nc_Op<"dma_copy", (ins Nc_AccessPatternAttr:$dst, Nc_AccessPatternAttr:$src),
                         "qualified($dst) `,` qualified($src)"> {
  let summary = "DMA transfer between HBM and SBUF/PSUM";
}

def Nc_MatmulOp : Nc_Op<"matmul", (ins Nc_AccessPatternAttr:$dst, Nc_AccessPatternAttr:$stationary,
                                      Nc_AccessPatternAttr:$moving, UnitAttr:$accumulate),
                        "qualified($dst) `,` qualified($stationary) `,` qualified($moving)"> {
  let summary = "tensor engine: dst[M, N] (+)= stationary[K, M]^T @ moving[K, N] into PSUM (nc_matmul)";
}

def Nc_TensorTensorOp : Nc_Op<"tensor_tensor", (ins StrAttr:$op, Nc_AccessPatternAttr:$dst,
                                                    Nc_AccessPatternAttr:$lhs, Nc_AccessPatternAttr:$rhs),
                              "$op qualified($dst) `,` qualified($lhs) `,` qualified($rhs)"> {
  let summary = "elementwise dst = lhs <op> rhs (tensor_tensor)";
}

def Nc_ActivationOp : Nc_Op<"activation", (ins StrAttr:$func, Nc_AccessPatternAttr:$dst,
                                               Nc_AccessPatternAttr:$src, F32Attr:$scale),
                            "$func qualified($dst) `,` qualified($src)"> {
  let summary = "scalar engine: dst = func(src * scale) (activation)";
}

def Nc_TensorReduceOp : Nc_Op<"tensor_reduce", (ins StrAttr:$op, Nc_AccessPatternAttr:$dst,
                                                    Nc_AccessPatternAttr:$src),
                              "$op qualified($dst) `,` qualified($src)"> {
  let summary = "dst[p, 0] = reduce_op(src[p, :]) (tensor_reduce)";
}

def Nc_TensorCopyOp : Nc_Op<"tensor_copy", (ins Nc_AccessPatternAttr:$dst, Nc_AccessPatternAttr:$src),
                            "qualified($dst) `,` qualified($src)"> {
  let summary = "dst = src with conversion (tensor_copy)";
}

def Nc_MemsetOp : Nc_Op<"memset", (ins Nc_AccessPatternAttr:$dst, F32Attr:$value),
                        "qualified($dst) `,` $value"> {
  let summary = "dst = value (memset)";
}

def Nc_PrintOp : Nc_Op<"print", (ins StrAttr:$label, Nc_AccessPatternAttr:$src),
                       "$label qualified($src)"> {
  let summary = "log src's values with the simulated time (tsr::device_print); writes nothing, costs nothing";
}

def Nc_InstOp : Nc_Op<"inst", (ins StrAttr:$opcode, OptionalAttr<Nc_AccessPatternAttr>:$dst,
                                  OptionalAttr<Nc_AccessPatternAttr>:$dst2, OptionalAttr<Nc_AccessPatternAttr>:$src0,
                                  OptionalAttr<Nc_AccessPatternAttr>:$src1, OptionalAttr<Nc_AccessPatternAttr>:$src2,
                                  OptionalAttr<DictionaryAttr>:$params),
                      "$opcode"> {
  let summary = "any other instruction of the instruction set, by its NKI name (isa/InstructionSet.h)";
  let description = [{
    The instructions without an op of their own above: `opcode` names the definition (tensor_scalar, iota,
    bn_stats, ...) that says which operands it uses and what `params` mean (isa::Instruction's fields: alu,
    alu1, func, imm, imm1, bias, reverse0, reverse1, negate, mode, count0, count1, pattern). The verifier is the
    definition's.
  }];
}

#endif // TESSERA_NC_TD
