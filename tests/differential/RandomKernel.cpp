#include "RandomKernel.h"

#include "tessera/HostData.h"
#include "tessera/compiler/Compiler.h"
#include "tessera/compiler/Golden.h"
#include "tessera/sim/Simulator.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <random>
#include <sstream>

namespace tessera::difftest {

namespace {

/// What the generator and valid() know of a value: its shape ([pb, fb] or [pb, 1]) and a bound on |element|.
struct Value {
  bool column = false;
  double bound = 1;
};

constexpr double kMaxBound = 1e5;  // keeps sums and products far from overflow in bf16/f32
constexpr double kMaxExpArg = 4;   // exp only of values within [-4, 4]

bool isBinary(OpSpec::Kind k) {
  return k == OpSpec::Add || k == OpSpec::Subtract || k == OpSpec::Multiply || k == OpSpec::Maximum;
}
bool yieldsValue(OpSpec::Kind k) { return k != OpSpec::Print; }

/// The value an op yields, from its operands; false when the op is invalid.
bool apply(const OpSpec &op, const std::vector<Value> &v, int64_t fb, Value &out) {
  auto ok = [&](int x) { return x >= 0 && x < int(v.size()); };
  switch (op.kind) {
  case OpSpec::Add: case OpSpec::Subtract: case OpSpec::Multiply: case OpSpec::Maximum: {
    if (!ok(op.a) || !ok(op.b)) return false;
    const Value &a = v[op.a], &b = v[op.b];
    out.column = a.column && b.column;
    out.bound = op.kind == OpSpec::Multiply ? a.bound * b.bound
                : op.kind == OpSpec::Maximum ? std::max(a.bound, b.bound)
                                              : a.bound + b.bound;
    break;
  }
  case OpSpec::Exp:
    if (!ok(op.a) || v[op.a].bound > kMaxExpArg) return false;
    out = {v[op.a].column, std::exp(v[op.a].bound)};
    break;
  case OpSpec::Sum: case OpSpec::Max:
    if (!ok(op.a) || v[op.a].column) return false;
    out = {true, op.kind == OpSpec::Sum ? v[op.a].bound * double(fb) : v[op.a].bound};
    break;
  case OpSpec::Copy:
    if (!ok(op.a)) return false;
    out = v[op.a];
    break;
  case OpSpec::Full:
    out = {op.column, std::abs(op.value)};
    break;
  case OpSpec::Print:
    return ok(op.a);
  }
  return out.bound <= kMaxBound;
}

std::vector<Value> initial(const KernelSpec &s) {
  std::vector<Value> v;
  if (s.matmul) v.push_back({false, double(s.kb * s.kBlocks)});
  for (size_t i = 0; i < s.inputs.size(); ++i) v.push_back({false, 1});
  return v;
}

const char *kindName(OpSpec::Kind k) {
  switch (k) {
  case OpSpec::Add: return "Add";
  case OpSpec::Subtract: return "Subtract";
  case OpSpec::Multiply: return "Multiply";
  case OpSpec::Maximum: return "Maximum";
  case OpSpec::Exp: return "Exp";
  case OpSpec::Sum: return "Sum";
  case OpSpec::Max: return "Max";
  case OpSpec::Copy: return "Copy";
  case OpSpec::Full: return "Full";
  case OpSpec::Print: return "Print";
  }
  return "?";
}

std::string dt(tsr::DType t) { return std::string(tessera::isa::name(t)); }

} // namespace

bool KernelSpec::valid() const {
  if (pb < 1 || pb > tsr::tile_size::pmax || fb < 1 || kb < 1 || kb > tsr::tile_size::pmax) return false;
  if (matmul && (pb > tsr::tile_size::gemm_stationary_fmax || fb > tsr::tile_size::gemm_moving_fmax)) return false;
  if (rowBlocks < 1 || colBlocks < 1 || kBlocks < 1) return false;
  if (rowSplit < 0 || (rowSplit > 0 && (!rowLoop || rowSplit >= rowBlocks))) return false;
  std::vector<Value> v = initial(*this);
  for (const OpSpec &op : ops) {
    Value out;
    if (!apply(op, v, fb, out)) return false;
    if (yieldsValue(op.kind)) v.push_back(out);
  }
  if (result < 0 || result >= int(v.size()) || v[result].column) return false;
  if (columnResult >= int(v.size())) return false;
  if (columnResult >= 0 && !v[columnResult].column) return false;
  return true;
}

KernelSpec generate(uint64_t seed) {
  std::mt19937_64 rng(seed * 0x9E3779B97F4A7C15ull + 12345);
  auto pick = [&](auto... choices) {
    std::vector<std::common_type_t<decltype(choices)...>> c{choices...};
    return c[std::uniform_int_distribution<size_t>(0, c.size() - 1)(rng)];
  };
  auto between = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  auto chance = [&](double p) { return std::uniform_real_distribution<double>(0, 1)(rng) < p; };
  auto dtype = [&] { return chance(0.5) ? tsr::f32 : tsr::bf16; };

  KernelSpec s;
  s.seed = seed;
  s.matmul = chance(0.3);
  if (s.matmul) {
    s.kb = pick(int64_t(16), int64_t(32), int64_t(64), int64_t(128));
    s.pb = pick(int64_t(16), int64_t(64), int64_t(128));
    s.fb = pick(int64_t(32), int64_t(128), int64_t(200), int64_t(512));
    s.kBlocks = between(1, 3);
    s.rowBlocks = between(1, 2);
    s.colBlocks = between(1, 2);
    s.aDtype = dtype();
    s.bDtype = dtype();
    for (int i = between(0, 1); i > 0; --i) s.inputs.push_back(dtype());
  } else {
    s.pb = pick(int64_t(1), int64_t(16), int64_t(32), int64_t(64), int64_t(96), int64_t(128));
    s.fb = pick(int64_t(1), int64_t(8), int64_t(64), int64_t(100), int64_t(128), int64_t(256), int64_t(512));
    s.rowBlocks = between(1, 3);
    s.colBlocks = between(1, 3);
    for (int i = between(1, 3); i > 0; --i) s.inputs.push_back(dtype());
  }
  s.rowLoop = s.rowBlocks > 1 ? chance(0.85) : chance(0.3);
  s.colLoop = s.colBlocks > 1 ? chance(0.85) : chance(0.3);
  s.kLoop = s.kBlocks > 1 ? chance(0.85) : chance(0.3);
  s.colsOuter = chance(0.3);
  s.loopBuffers = pick(1u, 2u, 4u, 4u);
  if (s.rowLoop && s.rowBlocks > 1 && chance(0.25)) s.rowSplit = between(1, s.rowBlocks - 1);
  s.outDtype = dtype();
  s.columnDtype = chance(0.8) ? tsr::f32 : tsr::bf16;

  std::vector<Value> v = initial(s);
  // Which values depend on the matmul's accumulator (value 0 of a matmul kernel): the result is chosen among them.
  std::vector<bool> fromAcc(v.size(), false);
  if (s.matmul) fromAcc[0] = true;
  const int nOps = s.matmul ? between(0, 6) : between(1, 12);
  for (int attempts = 0; int(s.ops.size()) < nOps && attempts < 200; ++attempts) {
    OpSpec op;
    auto any = [&] { return between(0, int(v.size()) - 1); };
    int r = between(0, 99);
    if (r < 40) {
      op.kind = pick(OpSpec::Add, OpSpec::Subtract, OpSpec::Multiply, OpSpec::Maximum);
      op.a = any();
      op.b = any();
      // Prefer recent values, so op chains grow deep rather than wide.
      if (chance(0.5)) op.a = int(v.size()) - 1;
    } else if (r < 52) {
      op.kind = OpSpec::Exp;
      op.a = any();
    } else if (r < 64) {
      op.kind = chance(0.5) ? OpSpec::Sum : OpSpec::Max;
      op.a = any();
    } else if (r < 80) {
      op.kind = OpSpec::Copy;
      op.a = any();
      op.dtype = dtype();
    } else if (r < 92) {
      op.kind = OpSpec::Full;
      op.column = chance(0.4);
      op.dtype = dtype();
      op.value = float(between(-8, 8)) / 4.0f;
    } else {
      op.kind = OpSpec::Print;
      op.a = any();
    }
    if (s.matmul && s.ops.empty() && op.kind != OpSpec::Full) op.a = 0; // start from the matmul's result
    Value out;
    if (!apply(op, v, s.fb, out)) continue;
    s.ops.push_back(op);
    if (yieldsValue(op.kind)) {
      v.push_back(out);
      fromAcc.push_back(op.a >= 0 && (fromAcc[size_t(op.a)] || (isBinary(op.kind) && fromAcc[size_t(op.b)])));
    }
  }
  // The main output: most often the last full value, so the whole chain is live.
  std::vector<int> full, column;
  for (int i = 0; i < int(v.size()); ++i)
    if (!s.matmul || fromAcc[size_t(i)] || v[i].column) (v[i].column ? column : full).push_back(i);
  s.result = chance(0.75) ? full.back() : full[std::uniform_int_distribution<size_t>(0, full.size() - 1)(rng)];
  if (!column.empty() && chance(0.6)) s.columnResult = column.back();
  return s;
}

tsr::KernelInfo kernelOf(const KernelSpec &spec) {
  tsr::KernelInfo k;
  k.name = fmt::format("diff_{}", spec.seed);
  k.summary = "a random kernel (tests/differential)";
  k.signature = [spec](const tsr::Params &) {
    std::vector<tsr::TensorSpec> t;
    const int64_t K = spec.kb * spec.kBlocks;
    if (spec.matmul) {
      t.push_back(tsr::input("a_t", {K, spec.rows()}, spec.aDtype));
      t.push_back(tsr::input("b", {K, spec.cols()}, spec.bDtype));
    }
    for (size_t i = 0; i < spec.inputs.size(); ++i)
      t.push_back(tsr::input(fmt::format("x{}", i), {spec.rows(), spec.cols()}, spec.inputs[i]));
    t.push_back(tsr::output("out", {spec.rows(), spec.cols()}, spec.outDtype));
    if (spec.columnResult >= 0) t.push_back(tsr::output("col", {spec.rows(), spec.colBlocks}, spec.columnDtype));
    return t;
  };
  k.body = [spec](std::span<const tsr::Hbm> t) {
    const size_t first = spec.matmul ? 2 : 0; // the elementwise inputs
    const tsr::Hbm &out = t[first + spec.inputs.size()];
    auto block = [&](const tsr::Index &i, const tsr::Index &j) {
      std::vector<tsr::Tile> v;
      if (spec.matmul) {
        tsr::Tile acc = tsr::psum<tsr::f32>({spec.pb, spec.fb});
        auto step = [&](const tsr::Index &k) {
          acc += tsr::matmul(tsr::load(t[0].tile(k, i, {spec.kb, spec.pb})),
                             tsr::load(t[1].tile(k, j, {spec.kb, spec.fb})));
        };
        if (spec.kLoop)
          for (auto k : tsr::affine_range(spec.kBlocks)) step(k);
        else
          for (int k = 0; k < spec.kBlocks; ++k) step(k);
        v.push_back(acc);
      }
      for (size_t e = 0; e < spec.inputs.size(); ++e) v.push_back(tsr::load(t[first + e].tile(i, j, {spec.pb, spec.fb})));
      for (const OpSpec &op : spec.ops) {
        switch (op.kind) {
        case OpSpec::Add: v.push_back(tsr::add(v[op.a], v[op.b])); break;
        case OpSpec::Subtract: v.push_back(tsr::subtract(v[op.a], v[op.b])); break;
        case OpSpec::Multiply: v.push_back(tsr::multiply(v[op.a], v[op.b])); break;
        case OpSpec::Maximum: v.push_back(tsr::maximum(v[op.a], v[op.b])); break;
        case OpSpec::Exp: v.push_back(tsr::exp(v[op.a])); break;
        case OpSpec::Sum: v.push_back(tsr::sum(v[op.a])); break;
        case OpSpec::Max: v.push_back(tsr::max(v[op.a])); break;
        case OpSpec::Copy: v.push_back(tsr::copy(v[op.a], op.dtype)); break;
        case OpSpec::Full: v.push_back(tsr::full(op.dtype, {spec.pb, op.column ? 1 : spec.fb}, op.value)); break;
        case OpSpec::Print: tsr::device_print(fmt::format("v{}", op.a), v[op.a]); break;
        }
      }
      tsr::Tile r = v[spec.result];
      if (r.dtype() != spec.outDtype) r = tsr::copy(r, spec.outDtype);
      tsr::store(out.tile(i, j, {spec.pb, spec.fb}), r);
      if (spec.columnResult >= 0) {
        tsr::Tile c = v[spec.columnResult];
        if (c.dtype() != spec.columnDtype) c = tsr::copy(c, spec.columnDtype);
        tsr::store(t[first + spec.inputs.size() + 1].tile(i, j, {spec.pb, 1}), c);
      }
    };
    // The loop nest: rows and columns, either order, each an affine_range or unrolled by hand.
    auto loop = [](bool affine, int count, const auto &f) {
      if (affine)
        for (auto x : tsr::affine_range(count)) f(tsr::Index(x));
      else
        for (int x = 0; x < count; ++x) f(tsr::Index(x));
    };
    auto rowLoops = [&](const auto &f) {
      if (spec.rowSplit > 0) {
        for (auto x : tsr::affine_range(0, spec.rowSplit)) f(tsr::Index(x));
        for (auto x : tsr::affine_range(spec.rowSplit, spec.rowBlocks)) f(tsr::Index(x));
      } else {
        loop(spec.rowLoop, spec.rowBlocks, f);
      }
    };
    if (spec.colsOuter)
      loop(spec.colLoop, spec.colBlocks, [&](const tsr::Index &j) {
        rowLoops([&](const tsr::Index &i) { block(i, j); });
      });
    else
      rowLoops([&](const tsr::Index &i) {
        loop(spec.colLoop, spec.colBlocks, [&](const tsr::Index &j) { block(i, j); });
      });
  };
  return k;
}

std::string KernelSpec::str() const {
  std::ostringstream o;
  const int64_t K = kb * kBlocks;
  o << fmt::format("// seed {}: {} kernel, tiles [{}, {}]{}, {}x{} blocks{}\n", seed, matmul ? "matmul" : "elementwise",
                   pb, fb, matmul ? fmt::format(", k tile {} x {} blocks", kb, kBlocks) : "", rowBlocks, colBlocks,
                   colsOuter ? ", columns outer" : "");
  if (loopBuffers != 4) o << fmt::format("// compiled with loopBuffers = {}\n", loopBuffers);
  if (matmul)
    o << fmt::format("a_t: {}[{}, {}], b: {}[{}, {}]\n", dt(aDtype), K, rows(), dt(bDtype), K, cols());
  for (size_t i = 0; i < inputs.size(); ++i) o << fmt::format("x{}: {}[{}, {}]\n", i, dt(inputs[i]), rows(), cols());
  o << fmt::format("out: {}[{}, {}]\n", dt(outDtype), rows(), cols());
  if (columnResult >= 0) o << fmt::format("col: {}[{}, {}]\n", dt(columnDtype), rows(), colBlocks);
  auto loopLine = [&](const char *var, bool affine, int n) {
    if (var[0] == 'i' && rowSplit > 0)
      return fmt::format("for i in affine_range(0, {}) then affine_range({}, {})", rowSplit, rowSplit, n);
    return affine ? fmt::format("for {} in affine_range({})", var, n) : fmt::format("for {} in 0..{} (unrolled)", var, n);
  };
  if (colsOuter) o << loopLine("j", colLoop, colBlocks) << ": " << loopLine("i", rowLoop, rowBlocks) << ":\n";
  else o << loopLine("i", rowLoop, rowBlocks) << ": " << loopLine("j", colLoop, colBlocks) << ":\n";
  int n = 0;
  if (matmul) {
    o << fmt::format("  v0 = psum<f32>; {}: v0 += matmul(load(a_t[k, i]), load(b[k, j]))\n",
                     loopLine("k", kLoop, kBlocks));
    ++n;
  }
  for (size_t i = 0; i < inputs.size(); ++i) o << fmt::format("  v{} = load(x{}[i, j])\n", n++, i);
  for (const OpSpec &op : ops) {
    switch (op.kind) {
    case OpSpec::Print: o << fmt::format("  device_print(v{})\n", op.a); continue;
    case OpSpec::Full:
      o << fmt::format("  v{} = full({}, [{}, {}], {})\n", n++, dt(op.dtype), pb, op.column ? 1 : fb, op.value);
      continue;
    case OpSpec::Copy: o << fmt::format("  v{} = copy<{}>(v{})\n", n++, dt(op.dtype), op.a); continue;
    default: break;
    }
    if (isBinary(op.kind)) o << fmt::format("  v{} = {}(v{}, v{})\n", n++, kindName(op.kind), op.a, op.b);
    else o << fmt::format("  v{} = {}(v{})\n", n++, kindName(op.kind), op.a);
  }
  o << fmt::format("  store(out[i, j], v{})\n", result);
  if (columnResult >= 0) o << fmt::format("  store(col[i, j], v{})\n", columnResult);
  return o.str();
}

std::string KernelSpec::cpp() const {
  auto d = [](tsr::DType t) { return "tsr::" + dt(t); };
  std::ostringstream o;
  o << "KernelSpec s;\n";
  o << fmt::format("s.seed = {}; s.matmul = {}; s.pb = {}; s.fb = {}; s.kb = {};\n", seed, matmul, pb, fb, kb);
  o << fmt::format("s.rowBlocks = {}; s.colBlocks = {}; s.kBlocks = {};\n", rowBlocks, colBlocks, kBlocks);
  o << fmt::format("s.rowLoop = {}; s.colLoop = {}; s.kLoop = {}; s.colsOuter = {}; s.rowSplit = {};\n", rowLoop,
                   colLoop, kLoop, colsOuter, rowSplit);
  o << fmt::format("s.loopBuffers = {}; s.aDtype = {}; s.bDtype = {};\n", loopBuffers, d(aDtype), d(bDtype));
  o << "s.inputs = {";
  for (size_t i = 0; i < inputs.size(); ++i) o << (i ? ", " : "") << d(inputs[i]);
  o << "};\n";
  o << fmt::format("s.outDtype = {}; s.columnDtype = {};\n", d(outDtype), d(columnDtype));
  o << "s.ops = {\n";
  for (const OpSpec &op : ops)
    o << fmt::format("    {{OpSpec::{}, {}, {}, {}, float({}), {}}},\n", kindName(op.kind), op.a, op.b, d(op.dtype),
                     op.value, op.column);
  o << "};\n";
  o << fmt::format("s.result = {}; s.columnResult = {};\n", result, columnResult);
  return o.str();
}

Outcome run(const KernelSpec &spec, const std::string &targetName, uint64_t dataSeed) {
  Outcome r;
  try {
    tsr::KernelInfo kernel = kernelOf(spec);
    tsr::graph::KernelGraph graph = tsr::trace(kernel, tsr::Params{});
    std::function<size_t(const tsr::graph::Block &)> count = [&](const tsr::graph::Block &b) {
      size_t n = 0;
      for (const auto &s : b.stmts) {
        if (std::holds_alternative<tsr::graph::Op>(s)) ++n;
        else if (const auto *l = std::get_if<tsr::graph::Loop>(&s)) n += count(l->body);
      }
      return n;
    };
    r.ops = count(graph.body);
    isa::Target target = driver::loadTarget(targetName);
    compiler::CompileOptions options;
    options.loopBuffers = spec.loopBuffers;
    compiler::CompileResult compiled = compiler::compile(graph, target, options);
    const isa::Program &program = compiled.program;
    r.instructions = program.instructionCount();
    sim::HbmImage hbm = driver::makeInputs(program, dataSeed);
    sim::HbmImage golden = hbm;
    sim::SimOptions simOptions;
    simOptions.computeValues = true;
    simOptions.checks = true;
    sim::simulate(program, target, hbm, simOptions);
    compiler::runGolden(graph, golden);
    r.ok = true;
    for (size_t i = 0; i < program.tensors.size(); ++i) {
      const isa::TensorInfo &t = program.tensors[i];
      if (!t.isOutput) continue;
      tsr::HostTensor simulated = driver::decodeTensor(program, hbm, i);
      driver::TensorCheck c = driver::compare(t.name, t.dtype, simulated, driver::decodeTensor(program, golden, i));
      // The generator bounds every value, so NaN or Inf (an element never written: outputs start as NaN) is wrong
      // even where the golden model agrees.
      auto bad = std::find_if(simulated.begin(), simulated.end(), [](float x) { return !std::isfinite(x); });
      if (bad != simulated.end()) {
        r.ok = false;
        r.message += fmt::format("output {}: element {} is {}\n", t.name, bad - simulated.begin(), *bad);
      }
      if (hbm[i] != golden[i]) r.bitExact = false;
      if (!c.ok) {
        r.ok = false;
        r.message += fmt::format("output {}: simulator vs golden max abs err {}, max rel err {} > tolerance {}\n",
                                 t.name, c.maxAbsErr, c.maxRelErr, c.tolerance);
      }
    }
  } catch (const std::exception &e) {
    r.ok = false;
    r.bitExact = false;
    r.message = std::string("threw: ") + e.what();
  }
  return r;
}

namespace {

/// `s` without op `index`; a value it yielded is replaced by its first operand (or the op is not removable).
bool withoutOp(const KernelSpec &s, size_t index, KernelSpec &out) {
  out = s;
  const OpSpec &op = s.ops[index];
  out.ops.erase(out.ops.begin() + long(index));
  if (!yieldsValue(op.kind)) return out.valid();
  int removed = s.initialValues();
  for (size_t i = 0; i < index; ++i) removed += yieldsValue(s.ops[i].kind) ? 1 : 0;
  const int replacement = op.a; // -1 for Full: only removable when unused
  auto remap = [&](int &x) {
    if (x == removed) x = replacement;
    else if (x > removed) --x;
  };
  for (size_t i = index; i < out.ops.size(); ++i) {
    remap(out.ops[i].a);
    if (isBinary(out.ops[i].kind)) remap(out.ops[i].b);
  }
  remap(out.result);
  if (out.columnResult >= 0) {
    remap(out.columnResult);
    if (out.columnResult < 0) return false;
  }
  return out.valid();
}

/// `s` without elementwise input `e`: what read it reads another initial value instead.
bool withoutInput(const KernelSpec &s, size_t e, KernelSpec &out) {
  out = s;
  const int value = int(e) + (s.matmul ? 1 : 0);
  if (s.initialValues() < 2) return false;
  const int other = value == 0 ? 0 : value - 1; // after the shift below: value 1 becomes 0, or the one before
  out.inputs.erase(out.inputs.begin() + long(e));
  auto remap = [&](int &x) {
    if (x == value) x = other;
    else if (x > value) --x;
  };
  for (OpSpec &op : out.ops) {
    remap(op.a);
    if (isBinary(op.kind)) remap(op.b);
  }
  remap(out.result);
  if (out.columnResult >= 0) remap(out.columnResult);
  return out.valid();
}

/// Smaller variants of `s`, simplest first.
std::vector<KernelSpec> shrinks(const KernelSpec &s) {
  std::vector<KernelSpec> c;
  KernelSpec t;
  for (size_t i = s.ops.size(); i-- > 0;)
    if (withoutOp(s, i, t)) c.push_back(t);
  if (s.columnResult >= 0) {
    t = s;
    t.columnResult = -1;
    c.push_back(t);
  }
  for (int r = 0; r < s.result; ++r) { // an earlier value as the result (the ops after it become removable)
    t = s;
    t.result = r;
    if (t.valid()) c.push_back(t);
  }
  for (size_t e = s.inputs.size(); e-- > 0;)
    if (withoutInput(s, e, t)) c.push_back(t);
  auto variant = [&](auto change) {
    KernelSpec v = s;
    change(v);
    if (v.valid()) c.push_back(v);
  };
  if (s.rowSplit > 0) variant([](KernelSpec &v) { v.rowSplit = 0; });
  if (s.rowBlocks > 1) variant([](KernelSpec &v) { v.rowBlocks = 1; v.rowSplit = 0; });
  if (s.colBlocks > 1) variant([](KernelSpec &v) { v.colBlocks = 1; });
  if (s.kBlocks > 1) variant([](KernelSpec &v) { v.kBlocks = 1; });
  if (s.rowLoop) variant([](KernelSpec &v) { v.rowLoop = false; v.rowSplit = 0; });
  if (s.colLoop) variant([](KernelSpec &v) { v.colLoop = false; });
  if (s.kLoop) variant([](KernelSpec &v) { v.kLoop = false; });
  if (s.colsOuter) variant([](KernelSpec &v) { v.colsOuter = false; });
  if (s.loopBuffers != 4) variant([](KernelSpec &v) { v.loopBuffers = 4; });
  if (s.fb > 1) variant([](KernelSpec &v) { v.fb = (v.fb + 1) / 2; });
  if (s.pb > 1) variant([](KernelSpec &v) { v.pb = (v.pb + 1) / 2; });
  if (s.kb > 1 && s.matmul) variant([](KernelSpec &v) { v.kb = (v.kb + 1) / 2; });
  if (s.outDtype != tsr::f32) variant([](KernelSpec &v) { v.outDtype = tsr::f32; });
  if (s.aDtype != tsr::f32) variant([](KernelSpec &v) { v.aDtype = tsr::f32; });
  if (s.bDtype != tsr::f32) variant([](KernelSpec &v) { v.bDtype = tsr::f32; });
  for (size_t i = 0; i < s.inputs.size(); ++i)
    if (s.inputs[i] != tsr::f32) variant([i](KernelSpec &v) { v.inputs[i] = tsr::f32; });
  return c;
}

} // namespace

KernelSpec minimise(const KernelSpec &failing, const std::string &target) {
  return minimise(failing, [&](const KernelSpec &s) { return !run(s, target).ok; });
}

KernelSpec minimise(const KernelSpec &failing, const std::function<bool(const KernelSpec &)> &fails) {
  KernelSpec best = failing;
  for (bool shrunk = true; shrunk;) {
    shrunk = false;
    for (const KernelSpec &candidate : shrinks(best))
      if (fails(candidate)) {
        best = candidate;
        shrunk = true;
        break;
      }
  }
  return best;
}

BatchResult runSeeds(uint64_t first, uint64_t last, const std::string &target, bool minimiseFailures) {
  BatchResult b;
  for (uint64_t seed = first; seed <= last; ++seed) {
    KernelSpec spec = generate(seed);
    Outcome r = run(spec, target);
    ++b.kernels;
    b.ops += r.ops;
    b.instructions += r.instructions;
    if (r.bitExact) ++b.bitExact;
    if (r.ok) continue;
    ++b.failures;
    std::string report = fmt::format("seed {} failed: {}\n{}", seed, r.message, spec.str());
    if (minimiseFailures) {
      KernelSpec small = minimise(spec, target);
      report += fmt::format("minimised ({}):\n{}as a regression test:\n{}", run(small, target).message, small.str(),
                            small.cpp());
    }
    b.failureReports.push_back(report);
  }
  return b;
}

} // namespace tessera::difftest
