#include "Jnp.h"

#include "tessera/isa/Cost.h"
#include "tessera/isa/Error.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>

namespace tessera::backends {

std::string jnpDtype(isa::DType dtype) {
  switch (dtype) {
  case isa::DType::F32: return "jnp.float32";
  case isa::DType::BF16: return "jnp.bfloat16";
  case isa::DType::F16: return "jnp.float16";
  case isa::DType::F8E4M3: return "jnp.float8_e4m3fn";
  case isa::DType::F8E5M2: return "jnp.float8_e5m2";
  case isa::DType::I32: return "jnp.int32";
  case isa::DType::U32: return "jnp.uint32";
  case isa::DType::U8: return "jnp.uint8";
  case isa::DType::I8: return "jnp.int8";
  case isa::DType::I16: return "jnp.int16";
  case isa::DType::U16: return "jnp.uint16";
  }
  return "jnp.float32";
}

std::string numpyDtype(isa::DType dtype) { return jnpDtype(dtype).substr(4); }

std::string binary(isa::AluOp op, const std::string &l, const std::string &r) {
  auto truth = [](const std::string &condition) { return fmt::format("({}).astype(jnp.float32)", condition); };
  switch (op) {
  case isa::AluOp::Add: return fmt::format("{} + {}", l, r);
  case isa::AluOp::Subtract: return fmt::format("{} - {}", l, r);
  case isa::AluOp::Multiply: return fmt::format("{} * {}", l, r);
  case isa::AluOp::Max: return fmt::format("jnp.maximum({}, {})", l, r);
  case isa::AluOp::Min: return fmt::format("jnp.minimum({}, {})", l, r);
  case isa::AluOp::Divide: return fmt::format("{} / {}", l, r);
  case isa::AluOp::Bypass: return l;
  case isa::AluOp::Power: return fmt::format("jnp.power({}, {})", l, r);
  case isa::AluOp::AbsMax: return fmt::format("jnp.maximum(jnp.abs({}), jnp.abs({}))", l, r);
  case isa::AluOp::IsEqual: return truth(fmt::format("{} == {}", l, r));
  case isa::AluOp::NotEqual: return truth(fmt::format("{} != {}", l, r));
  case isa::AluOp::IsGt: return truth(fmt::format("{} > {}", l, r));
  case isa::AluOp::IsGe: return truth(fmt::format("{} >= {}", l, r));
  case isa::AluOp::IsLt: return truth(fmt::format("{} < {}", l, r));
  case isa::AluOp::IsLe: return truth(fmt::format("{} <= {}", l, r));
  case isa::AluOp::LogicalAnd: return truth(fmt::format("({} != 0) & ({} != 0)", l, r));
  case isa::AluOp::LogicalOr: return truth(fmt::format("({} != 0) | ({} != 0)", l, r));
  }
  return l;
}

std::string unary(isa::ActFunc f, const std::string &x) {
  switch (f) {
  case isa::ActFunc::Identity: return x;
  case isa::ActFunc::Exp: return fmt::format("jnp.exp({})", x);
  case isa::ActFunc::Log: return fmt::format("jnp.log({})", x);
  case isa::ActFunc::Tanh: return fmt::format("jnp.tanh({})", x);
  case isa::ActFunc::Gelu: // through erf: Mosaic lowers lax.erf, not the erfc jax.nn.gelu uses
    return fmt::format("0.5 * {0} * (1.0 + jax.lax.erf({0} * 0.7071067811865476))", x);
  case isa::ActFunc::GeluApproxTanh: return fmt::format("jax.nn.gelu({}, approximate=True)", x);
  case isa::ActFunc::Silu: return fmt::format("jax.nn.silu({})", x);
  case isa::ActFunc::Sigmoid: return fmt::format("jax.nn.sigmoid({})", x);
  case isa::ActFunc::Relu: return fmt::format("jnp.maximum({}, 0.0)", x);
  case isa::ActFunc::Rsqrt: return fmt::format("jax.lax.rsqrt({})", x);
  case isa::ActFunc::Square: return fmt::format("jnp.square({})", x);
  case isa::ActFunc::Sqrt: return fmt::format("jnp.sqrt({})", x);
  case isa::ActFunc::Reciprocal: return fmt::format("1.0 / {}", x);
  }
  return x;
}

std::string postfixOperand(const std::string &x) {
  int depth = 0;
  for (char c : x) {
    if (c == '(' || c == '[') ++depth;
    if (c == ')' || c == ']') --depth;
    if (depth == 0 && (c == ' ' || c == '-' || c == '~')) return "(" + x + ")";
  }
  return x;
}

std::optional<std::string> reduction(isa::AluOp op, const std::string &x, int64_t groups, int64_t size) {
  const char *f = nullptr;
  switch (op) {
  case isa::AluOp::Add: f = "sum"; break;
  case isa::AluOp::Multiply: f = "prod"; break;
  case isa::AluOp::Max: f = "max"; break;
  case isa::AluOp::Min: f = "min"; break;
  default: return std::nullopt;
  }
  if (groups > 1) return fmt::format("jnp.{}({}.reshape(-1, {}, {}), axis=2)", f, postfixOperand(x), groups, size);
  return fmt::format("jnp.{}({}, axis=1, keepdims=True)", f, x);
}

std::string convert(const std::string &value, isa::DType dtype) {
  if (dtype == isa::DType::F16) return fmt::format("_round_to_f16({})", value);
  const std::string t = jnpDtype(dtype);
  if (isa::isInteger(dtype))
    return fmt::format(
        "jnp.clip(jnp.nan_to_num(jnp.round({}), nan=0.0), jnp.iinfo({}).min, jnp.iinfo({}).max).astype({})", value, t,
        t, t);
  if (dtype == isa::DType::F32) return value;
  return fmt::format("({}).astype({})", value, t);
}

isa::DType kernelDtype(isa::DType dtype) { return dtype == isa::DType::F16 ? isa::DType::F32 : dtype; }

std::string kernelOperand(const std::string &name, isa::DType dtype) {
  if (kernelDtype(dtype) == dtype) return name;
  return fmt::format("{}.astype({})", name, jnpDtype(kernelDtype(dtype)));
}

bool convertsOutputs(const std::vector<isa::DType> &dtypes) {
  return std::any_of(dtypes.begin(), dtypes.end(), [](isa::DType d) { return kernelDtype(d) != d; });
}

void returnOutputs(PythonWriter &out, const std::vector<isa::DType> &dtypes,
                   const std::vector<std::vector<int64_t>> &reshapes, size_t dropped) {
  auto back = [&](std::string value, size_t i) {
    if (kernelDtype(dtypes[i]) != dtypes[i]) value = fmt::format("{}.astype({})", value, jnpDtype(dtypes[i]));
    if (!reshapes[i].empty()) value = fmt::format("{}.reshape({})", value, pythonShape(reshapes[i]));
    return value;
  };
  if (dtypes.size() == 1) {
    out.line("return " + back(dropped ? "result[0]" : "result", 0));
    return;
  }
  std::vector<std::string> items;
  for (size_t i = 0; i < dtypes.size(); ++i) items.push_back(back(fmt::format("result[{}]", i), i));
  out.line(fmt::format("return ({})", fmt::join(items, ", ")));
}

namespace {

/// Whether some tensor or instruction operand of `program` is float16.
bool usesF16(const isa::Program &program) {
  for (const isa::TensorInfo &t : program.tensors)
    if (t.dtype == isa::DType::F16) return true;
  for (const isa::Stream &stream : program.streams)
    for (const isa::Instruction &i : stream.instructions)
      for (const isa::AccessPattern *ap : {&i.dst, &i.dst2, &i.src0, &i.src1, &i.src2})
        if (ap->partitions > 0 && ap->dtype == isa::DType::F16) return true;
  return false;
}

/// _round_to_f16: float32 values rounded to the nearest float16 (ties to even, overflow to infinity, NaN kept),
/// in float32 and with 32-bit integer operations only, which Mosaic lowers.
void roundToF16Helper(PythonWriter &out) {
  out.line();
  out.line();
  out.line("def _round_to_f16(v):");
  out.indent();
  out.line("\"\"\"v (float32) rounded to float16's precision and range, kept in float32: Mosaic has no float16 "
           "vectors.\"\"\"");
  out.line("bits = jax.lax.bitcast_convert_type(v, jnp.int32)");
  out.line("# normal float16 range (|v| >= 2^-14): 10 of the 23 mantissa bits, rounded to nearest even");
  out.line("normal = jax.lax.bitcast_convert_type((bits + 0xFFF + ((bits >> 13) & 1)) & -0x2000, jnp.float32)");
  out.line("# below it: a multiple of 2^-24 (float16's subnormals), the ulp of 0.75");
  out.line("subnormal = (v + 0.75) - 0.75");
  out.line("r = jnp.where(jnp.abs(v) < 2.0**-14, subnormal, normal)");
  out.line("r = jnp.where(jnp.abs(r) > 65504.0, jnp.where(v > 0, jnp.inf, -jnp.inf), r)");
  out.line("return jnp.where(v != v, v, r)");
  out.dedent();
}

} // namespace

void pallasPreamble(PythonWriter &out, const KernelSource &kernel, uint64_t vmemBufferBytes) {
  out.line("import jax");
  out.line("import jax.numpy as jnp");
  out.line("from jax.experimental import pallas as pl");
  out.line("from jax.experimental.pallas import tpu as pltpu");
  out.line();
  out.line(fmt::format("KERNEL = \"{}\"", kernel.kernel));
  out.line(fmt::format("TARGET = \"{}\"", kernel.target->name));
  const std::string &topology = kernel.target->tpu.libtpuTopology;
  out.line(fmt::format("TOPOLOGY = {}  # libtpu's name of {}: run.py --compile / compile_tpu.py compile for it",
                       topology.empty() ? "None" : fmt::format("\"{}\"", topology), kernel.target->name));
  std::vector<std::string> inputs, outputs;
  for (const isa::TensorInfo &tensor : kernel.program->tensors)
    if (!tensor.isScratch) // the kernel's own HBM tensors: not the module's to take or give
      (tensor.isOutput ? outputs : inputs)
          .push_back(fmt::format("(\"{}\", {}, \"{}\")", tensor.name, pythonShape(tensor.shape),
                                 numpyDtype(tensor.dtype)));
  out.line(fmt::format("INPUTS = ({}{})", fmt::join(inputs, ", "), inputs.size() == 1 ? "," : ""));
  out.line(fmt::format("OUTPUTS = ({}{})", fmt::join(outputs, ", "), outputs.size() == 1 ? "," : ""));
  out.line(fmt::format("VMEM_BUFFER_BYTES = {}  # the scratch, and two copies of each block, padded to (8, 128) tiles",
                       vmemBufferBytes));
  if (usesF16(*kernel.program)) roundToF16Helper(out);
  out.line();
  out.line();
}

uint64_t mosaicVmemBytes(const std::vector<int64_t> &shape, isa::DType dtype) {
  constexpr int64_t kTileRows = 8, kTileCols = 128;
  uint64_t bytes = isa::byteSize(dtype);
  for (size_t d = 0; d < shape.size(); ++d) {
    int64_t n = shape[d];
    if (d + 2 == shape.size()) n = (n + kTileRows - 1) / kTileRows * kTileRows;
    if (d + 1 == shape.size()) n = (n + kTileCols - 1) / kTileCols * kTileCols;
    bytes *= static_cast<uint64_t>(n);
  }
  return bytes;
}

namespace {

/// Whether the buffers, and what Mosaic takes beyond them ([libtpu] mosaic_internal_vmem_bytes), pass libtpu's
/// default scoped limit.
bool needsRaisedLimit(const isa::Target &t, uint64_t needBytes) {
  return t.tpu.scopedVmemDefaultBytes != 0 && needBytes + t.tpu.mosaicInternalVmemBytes > t.tpu.scopedVmemDefaultBytes;
}

double mib(uint64_t bytes) { return double(bytes) / (1024.0 * 1024.0); }

} // namespace

std::string vmemLimitArgument(const KernelSource &kernel, uint64_t needBytes) {
  const isa::Target &t = *kernel.target;
  if (!needsRaisedLimit(t, needBytes)) return "";
  if (needBytes > t.tpu.kernelVmemMaxBytes)
    throw Error(fmt::format("Pallas: the kernel's VMEM buffers take {:.2f} MiB padded to (8, 128) tiles (Pallas "
                            "double-buffers each block; with the largest statement's relayouts), more than the "
                            "{:.2f} MiB libtpu gives one kernel on {}",
                            mib(needBytes), mib(t.tpu.kernelVmemMaxBytes), t.name),
                {}, "use smaller tiles or blocks; [libtpu] kernel_vmem_max_bytes in the target file is the limit");
  return fmt::format("vmem_limit_bytes={}", t.tpu.kernelVmemMaxBytes);
}

std::string vmemLimitComment(const KernelSource &kernel, uint64_t needBytes) {
  const isa::Target &t = *kernel.target;
  if (!needsRaisedLimit(t, needBytes)) return "";
  return fmt::format("# VMEM: the buffers take {:.2f} MiB padded to (8, 128) tiles (and relayouts of access "
                     "patterns) and Mosaic up to {:.2f} MiB more, over libtpu's default scoped limit ({:.0f} MiB on {}): the kernel may have all {:.2f} MiB",
                     mib(needBytes), mib(t.tpu.mosaicInternalVmemBytes), mib(t.tpu.scopedVmemDefaultBytes), t.name,
                     mib(t.tpu.kernelVmemMaxBytes));
}

std::string costEstimateArgument(const KernelSource &kernel) {
  if (!kernel.program) return "";
  uint64_t flops = 0, transcendentals = 0, bytes = 0;
  for (const isa::Stream &stream : kernel.program->streams)
    for (const isa::Instruction &i : stream.instructions) {
      flops += isa::flops(i);
      transcendentals += isa::transcendentals(i);
      bytes += isa::hbmBytes(i);
    }
  return fmt::format("cost_estimate=pl.CostEstimate(flops={}, transcendentals={}, bytes_accessed={})", flops,
                     transcendentals, bytes);
}

} // namespace tessera::backends
