//===- Tpu.td - TPU TensorCore instructions (Mosaic level) ---------------------------------------------------===//
//
// The machine level of the TPU family: one op per TensorCore instruction, in program order, with resolved
// addresses (#tpu.ref access patterns in the flat VMEM, SMEM or an HBM tensor), the unit that runs it (and DMA
// queue), and the semaphores it waits on and signals. Loops are unrolled; the grid loop's bookkeeping is an
// explicit tpu.grid_step on the scalar core.
//
// Each op is named as its instruction's definition names it (isa/lib/instructions/Tpu*.cpp):
//
//   op               isa::Opcode  unit     what it does
//   tpu.mxu_matmul   MxuMatmul    mxu      dst[M, N] f32 (+)= lhs[K, M]^T @ weights[K, N]
//   tpu.vpu_binary   VpuBinary    vpu      dst = lhs <op> rhs elementwise ([R, 1] operands broadcast)
//   tpu.vpu_unary    VpuUnary     vpu      dst = func(src * scale) (transcendentals on the EUP)
//   tpu.vpu_reduce   VpuReduce    vpu      dst[r, 0] = reduce_op(src[r, :]) (cross-lane reduce on the XLU)
//   tpu.vpu_convert  VpuConvert   vpu      dst = src, converting the element type
//   tpu.vpu_fill     VpuFill      vpu      dst = value
//   tpu.dma          TpuDma       dma      dst <- src between HBM and VMEM, same element type
//   tpu.grid_step    GridStep     scalar   the scalar core's work between grid steps
//   tpu.print        Print        vpu      log src's values with the simulated time (tsr::device_print)
//
// The MXU, VPU and scalar-core instructions issue in program order (isa::Instruction::issue, numbered when the
// module becomes an isa::Program); DMA queues run ahead of them, ordered only by semaphores.
//
//===-------------------------------------------------------------------------------------------------------===//

#ifndef TESSERA_TPU_TD
#define TESSERA_TPU_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"

def Tpu_Dialect : Dialect {
  let name = "tpu";
  let cppNamespace = "::tessera::tpu";
  let summary = "TPU TensorCore instructions (MXU, VPU, scalar core, DMA) with resolved addresses and semaphores";
  let useDefaultAttributePrinterParser = 1;
}

def Tpu_RefAttr : AttrDef<Tpu_Dialect, "Ref"> {
  let mnemonic = "ref";
  let summary = "where an operand lives in a flat memory and how it is walked (isa::AccessPattern)";
  let description = [{
    `space` is vmem, smem or hbm. The operand is `rows` rows, `pitch` elements apart, each walked by `dims` and
    `strides` (elements, outermost first). In VMEM and SMEM `offset` is the byte address of element (0, 0); in
    HBM it is an element offset into kernel tensor `tensor` (-1 on chip), whose rows are `pitch` elements long.
  }];
  let parameters = (ins StringRefParameter<"memory space">:$space, "::mlir::Type":$dtype, "int64_t":$tensor,
                        "int64_t":$rows, "int64_t":$pitch, "int64_t":$offset, ArrayRefParameter<"int64_t">:$dims,
                        ArrayRefParameter<"int64_t">:$strides);
  let assemblyFormat = [{
    `<` $space `,` $dtype `,` `tensor` `=` $tensor `,` `rows` `=` $rows `,` `pitch` `=` $pitch `,`
    `offset` `=` $offset `,` `dims` `=` `[` $dims `]` `,` `strides` `=` `[` $strides `]` `>`
  }];
}

// Every instruction: the unit that runs it ("mxu", "vpu", "scalar", "dma"), its DMA queue, the (semaphore, count)
// pairs it waits for before starting, and the semaphores it increments when done (as nc ops have them).
class Tpu_Op<string mnemonic, dag operands, string format> : Op<Tpu_Dialect, mnemonic> {
  let arguments = !con(operands, (ins StrAttr:$engine, DefaultValuedAttr<I64Attr, "0">:$queue,
                                      OptionalAttr<DenseI64ArrayAttr>:$waits,
                                      OptionalAttr<DenseI64ArrayAttr>:$signals));
  let assemblyFormat = format # " attr-dict";
  let hasVerifier = 1;
  // The rules of every op are its instruction definition's (lib/Targets/Tpu/TpuDialect.cpp).
  let extraClassDefinition = [{
    ::mlir::LogicalResult $cppClass::verify() { return verifyCommon(*this); }
  }];
}

def Tpu_MxuMatmulOp : Tpu_Op<"mxu_matmul", (ins Tpu_RefAttr:$dst, Tpu_RefAttr:$lhs, Tpu_RefAttr:$weights,
                                               UnitAttr:$accumulate),
                              "qualified($dst) `,` qualified($lhs) `,` qualified($weights)"> {
  let summary = "MXU: dst[M, N] (+)= lhs[K, M]^T @ weights[K, N] into an f32 VMEM accumulator";
  let description = [{
    `weights` is held in the MXUs in tiles of the array's rows x cols while `lhs`'s M columns stream through as
    rows; `accumulate` adds to dst instead of overwriting it.
  }];
}

def Tpu_VpuBinaryOp : Tpu_Op<"vpu_binary", (ins StrAttr:$op, Tpu_RefAttr:$dst, Tpu_RefAttr:$lhs,
                                               OptionalAttr<Tpu_RefAttr>:$rhs, OptionalAttr<F32Attr>:$operand0,
                                               UnitAttr:$reverse0),
                             "$op qualified($dst) `,` qualified($lhs) (`,` qualified($rhs)^)?"> {
  let summary = "VPU: dst = lhs <op> rhs elementwise (an [R, 1] operand broadcasts with stride 0)";
  let description = [{
    Without `rhs`, dst = lhs <op> operand0 (operand0 <op> lhs with `reverse0`): a number of the kernel, splatted.
  }];
}

def Tpu_VpuUnaryOp : Tpu_Op<"vpu_unary", (ins StrAttr:$func, Tpu_RefAttr:$dst, Tpu_RefAttr:$src, F32Attr:$scale),
                            "$func qualified($dst) `,` qualified($src)"> {
  let summary = "VPU: dst = func(src * scale), transcendentals on the EUP";
}

def Tpu_VpuReduceOp : Tpu_Op<"vpu_reduce", (ins StrAttr:$op, Tpu_RefAttr:$dst, Tpu_RefAttr:$src),
                             "$op qualified($dst) `,` qualified($src)"> {
  let summary = "VPU: dst[r, 0] = reduce_op(src[r, :]), the last step a cross-lane reduce on the XLU";
}

def Tpu_VpuConvertOp : Tpu_Op<"vpu_convert", (ins Tpu_RefAttr:$dst, Tpu_RefAttr:$src),
                              "qualified($dst) `,` qualified($src)"> {
  let summary = "VPU: dst = src, converting the element type";
}

def Tpu_VpuFillOp : Tpu_Op<"vpu_fill", (ins Tpu_RefAttr:$dst, F32Attr:$value), "qualified($dst) `,` $value"> {
  let summary = "VPU: dst = value (stores of a splatted vreg)";
}

def Tpu_DmaOp : Tpu_Op<"dma", (ins Tpu_RefAttr:$dst, Tpu_RefAttr:$src, UnitAttr:$preserve),
                     "qualified($dst) `,` qualified($src)"> {
  let summary = "DMA between an HBM tensor and VMEM, without conversion (an async copy and its semaphore); "
                "`preserve`: the read of a read-modify-write, which writes the bytes back as they were";
}

def Tpu_GridStepOp : Tpu_Op<"grid_step", (ins), ""> {
  let summary = "scalar core: the bookkeeping between two grid steps (and before the first)";
}

def Tpu_PrintOp : Tpu_Op<"print", (ins StrAttr:$label, Tpu_RefAttr:$src), "$label qualified($src)"> {
  let summary = "log src's values with the simulated time (tsr::device_print); writes nothing";
}

#endif // TESSERA_TPU_TD
