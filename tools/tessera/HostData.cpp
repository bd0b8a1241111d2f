#include "tessera/HostData.h"

#include "tessera/Driver.h"
#include "tessera/Npy.h"
#include "tessera/isa/NumberFormats.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <future>
#include <limits>
#include <unistd.h>

namespace tessera::driver {

sim::HbmImage makeInputs(const isa::Program &program, uint64_t seed, const InputDistribution &dist,
                         const std::function<void()> &checkpoint) {
  return makeInputs(program.tensors, seed, dist, checkpoint);
}

sim::HbmImage makeInputs(std::span<const isa::TensorInfo> tensors, uint64_t seed, const InputDistribution &dist,
                         const std::function<void()> &checkpoint) {
  for (const isa::TensorInfo &t : tensors)
    if (t.isInput() && !isa::isInteger(t.dtype) && dist.largestMagnitude() > isa::largestFinite(t.dtype))
      throw InputError(fmt::format("--input-dist {}: input '{}' is {}, whose largest finite value is {}, and draws "
                                   "reach {}",
                                   dist.describe(), t.name, isa::name(t.dtype), isa::largestFinite(t.dtype),
                                   dist.largestMagnitude()),
                       {}, "choose a narrower distribution, or give the input as a file (--input NAME=FILE.npy)");
  InputDraws draws(dist, seed);
  constexpr size_t kChunk = size_t{1} << 20; // values drawn and encoded at a time, between checkpoints
  std::vector<float> values;
  sim::HbmImage hbm;
  for (const isa::TensorInfo &t : tensors) {
    const size_t n = static_cast<size_t>(t.elements()), width = isa::byteSize(t.dtype);
    std::vector<std::byte> bytes(static_cast<size_t>(t.bytes()));
    for (size_t at = 0; at < n; at += kChunk) {
      if (checkpoint) checkpoint();
      values.resize(std::min(kChunk, n - at));
      if (!t.isInput()) std::fill(values.begin(), values.end(), std::numeric_limits<float>::quiet_NaN());
      else draws.fill(values);
      isa::encode(t.dtype, values.data(), bytes.data() + at * width, values.size());
    }
    hbm.push_back(std::move(bytes));
  }
  return hbm;
}

namespace {

/// The elements of a .npy array as FP32 (for a number type NumPy names), or nullopt for another type.
std::optional<std::vector<float>> npyValues(const NpyArray &a) {
  const size_t n = a.data.size() / std::max<size_t>(1, static_cast<size_t>(a.descr.back() - '0'));
  std::vector<float> v(n);
  auto each = [&](auto sample) {
    using T = decltype(sample);
    for (size_t i = 0; i < n; ++i) {
      T x;
      std::memcpy(&x, a.data.data() + i * sizeof(T), sizeof(T));
      v[i] = static_cast<float>(x);
    }
  };
  const std::string kind = a.descr.substr(1);
  if (kind == "f4") each(float{});
  else if (kind == "f8") each(double{});
  else if (kind == "i4") each(int32_t{});
  else if (kind == "i8") each(int64_t{});
  else if (kind == "u4") each(uint32_t{});
  else if (kind == "u1") each(uint8_t{});
  else if (kind == "i1") each(int8_t{});
  else if (kind == "i2") each(int16_t{});
  else if (kind == "u2") each(uint16_t{});
  else if (kind == "f2") isa::decode(isa::DType::F16, a.data.data(), v.data(), n);
  else return std::nullopt;
  return v;
}

} // namespace

namespace {

/// The index of input `name` in `program`, or an InputError starting with `what` that lists the inputs.
size_t inputIndex(const isa::Program &program, const std::string &name, const std::string &what) {
  std::vector<std::string> inputs;
  for (size_t i = 0; i < program.tensors.size(); ++i) {
    if (!program.tensors[i].isInput()) continue;
    if (program.tensors[i].name == name) return i;
    inputs.push_back(program.tensors[i].name);
  }
  throw InputError(fmt::format("{}: kernel '{}' has no input '{}' (its inputs: {})", what, program.kernel, name,
                               fmt::join(inputs, ", ")));
}

std::string shapeText(const std::vector<int64_t> &s) { return fmt::format("({})", fmt::join(s, ", ")); }

/// Every value of `values` must be an integer the tensor's integer type holds (encoding would round or saturate
/// it); `what` starts the error.
void requireIntegers(const isa::TensorInfo &t, const std::vector<float> &values, const std::string &what) {
  if (!isa::isInteger(t.dtype)) return;
  const auto [lowest, highest] = isa::integerRange(t.dtype);
  for (float v : values) {
    if (v != std::nearbyint(v))
      throw InputError(fmt::format("{} holds {}, not an integer, for the {} tensor", what, v, isa::name(t.dtype)));
    if (double(v) < double(lowest) || double(v) > double(highest))
      throw InputError(fmt::format("{} holds {}, outside the {} range [{}, {}]", what, v, isa::name(t.dtype),
                                   lowest, highest),
                       {}, "give values the tensor's dtype holds, or a wider integer dtype in the kernel's signature");
  }
}

/// Element `flat` of a tensor of `shape` as its index: "[3, 17]".
std::string indexText(const std::vector<int64_t> &shape, int64_t flat) {
  std::vector<int64_t> index(shape.size());
  for (size_t d = shape.size(); d-- > 0;) {
    index[d] = shape[d] == 0 ? 0 : flat % shape[d];
    flat = shape[d] == 0 ? 0 : flat / shape[d];
  }
  return fmt::format("[{}]", fmt::join(index, ", "));
}

/// A finite input the tensor's dtype cannot hold (1000 in an f8e4m3 tensor) would reach the kernel as NaN or Inf,
/// and its outputs would be blamed for it: refused before the run, naming the first such element. `encoded` is
/// what isa::encode made of `values`.
void requireRepresentable(const isa::TensorInfo &t, const float *values, const std::vector<std::byte> &encoded,
                          const std::string &what) {
  if (t.dtype != isa::DType::BF16 && t.dtype != isa::DType::F16 && !isa::isFp8(t.dtype)) return;
  constexpr size_t kChunk = 4096;
  std::array<float, kChunk> back;
  const size_t n = static_cast<size_t>(t.elements()), bytes = isa::byteSize(t.dtype);
  for (size_t i = 0; i < n; i += kChunk) {
    const size_t count = std::min(kChunk, n - i);
    isa::decode(t.dtype, encoded.data() + i * bytes, back.data(), count);
    for (size_t j = 0; j < count; ++j)
      if (std::isfinite(values[i + j]) && !std::isfinite(back[j]))
        throw InputError(fmt::format("{} holds {} at {}, beyond the largest finite {} ({}): the kernel would read {}",
                                     what, values[i + j], indexText(t.shape, static_cast<int64_t>(i + j)),
                                     isa::name(t.dtype), isa::largestFinite(t.dtype),
                                     std::isnan(back[j]) ? "NaN" : "Inf"),
                         {}, fmt::format("scale the input into {}'s range, or give the kernel a wider dtype",
                                         isa::name(t.dtype)));
  }
}

} // namespace

void loadInputArray(const isa::Program &program, sim::HbmImage &hbm, const std::string &name, const HostArray &array) {
  const size_t index = inputIndex(program, name, "inputs");
  const isa::TensorInfo &t = program.tensors[index];
  if (array.shape != t.shape)
    throw InputError(fmt::format("input '{}': the array has shape {}, but the kernel's '{}' is {}", name,
                                 shapeText(array.shape), name, shapeText(t.shape)),
                     {}, "give the request a shape (RunRequest::shape) that makes the kernel's tensors the arrays'");
  if (array.values.size() != static_cast<size_t>(t.elements()))
    throw InputError(fmt::format("input '{}': the array has {} values for its shape {} of {} elements", name,
                                 array.values.size(), shapeText(array.shape), t.elements()));
  requireIntegers(t, array.values, fmt::format("input '{}'", name));
  isa::encode(t.dtype, array.values.data(), hbm[index].data(), array.values.size());
  requireRepresentable(t, array.values.data(), hbm[index], fmt::format("input '{}'", name));
}

void loadInputFile(const isa::Program &program, sim::HbmImage &hbm, const std::string &name, const std::string &path) {
  const size_t index = inputIndex(program, name, "--input");
  const isa::TensorInfo &t = program.tensors[index];
  // The shape is compared before the data is read: a file of another shape is refused without allocating it.
  const NpyArray a = readNpy(path, [&](const NpyArray &header) {
    if (header.shape != t.shape)
      throw InputError(fmt::format("--input {}: '{}' holds an array of shape {}, but the kernel's '{}' is {}", name,
                                   path, shapeText(header.shape), name, shapeText(t.shape)),
                       {}, "pass --shape so that the kernel's tensors have the arrays' shapes");
  });
  const bool narrowFloat = t.dtype == isa::DType::BF16 || t.dtype == isa::DType::F8E4M3 || t.dtype == isa::DType::F8E5M2;
  const std::string bits = isa::byteSize(t.dtype) == 2 ? "2" : "1";
  if (narrowFloat && (a.descr.substr(1) == "u" + bits || a.descr.substr(1) == "V" + bits)) {
    hbm[index] = a.data; // the dtype's own bits
    return;
  }
  std::optional<std::vector<float>> values = npyValues(a);
  if (!values)
    throw InputError(fmt::format("--input {}: '{}' holds elements of type '{}', which Tessera cannot read as {}", name,
                                 path, a.descr, isa::name(t.dtype)),
                     {}, "save float32 (or the tensor's dtype) with numpy.save");
  requireIntegers(t, *values, fmt::format("--input {}: '{}'", name, path));
  isa::encode(t.dtype, values->data(), hbm[index].data(), values->size());
  requireRepresentable(t, values->data(), hbm[index], fmt::format("--input {}: '{}'", name, path));
}

void prepareOutputDir(const std::string &dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || !std::filesystem::is_directory(dir))
    throw InputError(fmt::format("--output-dir: cannot create '{}': {}", dir, ec ? ec.message() : "a file is in the way"));
  if (::access(dir.c_str(), W_OK | X_OK) != 0)
    throw InputError(fmt::format("--output-dir: cannot write in '{}': {}", dir, std::strerror(errno)), {},
                     "choose a folder you can write to");
}

void writeOutputFiles(const isa::Program &program, const sim::HbmImage &hbm, const std::string &dir) {
  prepareOutputDir(dir);
  for (size_t i = 0; i < program.tensors.size(); ++i) {
    const isa::TensorInfo &t = program.tensors[i];
    if (!t.isOutput) continue;
    NpyArray a{npyDescr(t.dtype), t.shape, hbm[i]};
    if (t.dtype == isa::DType::BF16 || t.dtype == isa::DType::F8E4M3 || t.dtype == isa::DType::F8E5M2) {
      const tsr::HostTensor values = decodeTensor(program, hbm, i);
      a.descr = "<f4";
      a.data.resize(values.size() * sizeof(float));
      std::memcpy(a.data.data(), values.data(), a.data.size());
    }
    writeNpy(std::filesystem::path(dir) / (t.name + ".npy"), a);
  }
}

tsr::HostTensor decodeTensor(const isa::Program &program, const sim::HbmImage &hbm, size_t index) {
  const isa::TensorInfo &t = program.tensors[index];
  tsr::HostTensor values(static_cast<size_t>(t.elements()));
  isa::decode(t.dtype, hbm[index].data(), values.data(), values.size());
  return values;
}

std::optional<UnwrittenElements> unwrittenElements(const isa::TensorInfo &t, const std::vector<std::byte> &bytes) {
  const size_t width = isa::byteSize(t.dtype);
  std::vector<std::byte> fill(width);
  const float nan = std::numeric_limits<float>::quiet_NaN();
  isa::encode(t.dtype, &nan, fill.data(), 1);
  float back = 0;
  isa::decode(t.dtype, fill.data(), &back, 1);
  if (!std::isnan(back)) return std::nullopt;
  const int64_t columns = t.shape.empty() ? 1 : t.shape.back(), n = t.elements();
  UnwrittenElements u{.elements = n, .firstRow = n, .firstColumn = columns};
  // Row by row, the runs of unwritten columns; a run that continues one of the row above (the same columns) makes
  // its rectangle taller, any other starts one. `open`: the runs of the row above, with their rectangles.
  std::vector<ElementRegion> regions;
  std::vector<size_t> openIndex, nextIndex;
  const auto unwritten = [&](int64_t i) { return std::memcmp(bytes.data() + i * width, fill.data(), width) == 0; };
  for (int64_t row = 0; row * columns < n; ++row) {
    nextIndex.clear();
    size_t above = 0; // the first run of the row above that may still match
    for (int64_t column = 0; column < columns;) {
      if (!unwritten(row * columns + column)) {
        ++column;
        continue;
      }
      const int64_t first = column;
      while (column < columns && unwritten(row * columns + column)) ++column;
      const int64_t last = column - 1;
      u.count += last - first + 1;
      u.firstRow = std::min(u.firstRow, row), u.lastRow = std::max(u.lastRow, row);
      u.firstColumn = std::min(u.firstColumn, first), u.lastColumn = std::max(u.lastColumn, last);
      while (above < openIndex.size() && regions[openIndex[above]].lastColumn < first) ++above;
      if (above < openIndex.size() && regions[openIndex[above]].firstColumn == first &&
          regions[openIndex[above]].lastColumn == last) {
        regions[openIndex[above]].lastRow = row;
        nextIndex.push_back(openIndex[above]);
        continue;
      }
      regions.push_back({.firstRow = row, .lastRow = row, .firstColumn = first, .lastColumn = last});
      nextIndex.push_back(regions.size() - 1);
    }
    std::swap(openIndex, nextIndex);
  }
  if (u.count == 0) return std::nullopt;
  u.regionCount = regions.size();
  // Started in row order; a rectangle is listed where it starts.
  regions.resize(std::min(regions.size(), UnwrittenElements::kMaxRegions));
  u.regions = std::move(regions);
  return u;
}

std::string describe(const UnwrittenElements &u) {
  std::string where;
  for (const ElementRegion &r : u.regions)
    where += fmt::format("{}rows {}..{}, columns {}..{}", where.empty() ? "" : "; ", r.firstRow, r.lastRow,
                         r.firstColumn, r.lastColumn);
  if (u.regionCount > u.regions.size())
    where += fmt::format("; and {} more region{} within rows {}..{} and columns {}..{}",
                         u.regionCount - u.regions.size(), u.regionCount - u.regions.size() == 1 ? "" : "s",
                         u.firstRow, u.lastRow, u.firstColumn, u.lastColumn);
  return fmt::format("{} ({} of {} elements still hold the NaN an output starts with): a store is missing or too "
                     "small",
                     where, u.count, u.elements);
}

double tolerance(isa::DType dtype, double kernelTolerance) {
  // Four roundings of the output type, plus room for FP32 accumulation-order differences.
  // Assumption: a kernel's own arithmetic errs by a few units of the output's last place; a kernel whose errs by
  // more says so (KernelInfo::referenceTolerance).
  constexpr double kRoundings = 4, kAccumulationSlack = 1e-5;
  return std::max(kRoundings * isa::unitRoundoff(dtype) + kAccumulationSlack, kernelTolerance);
}

TensorCheck compare(const std::string &name, isa::DType dtype, const tsr::HostTensor &out,
                    const tsr::HostTensor &ref, double kernelTolerance) {
  TensorCheck c;
  c.name = name;
  c.tolerance = tolerance(dtype, kernelTolerance);
  // The rms of the finite reference values: an infinity among them once made it infinite, and every other
  // element's relative error 0, so a wrong value beside an infinity passed.
  double sumSquares = 0;
  size_t finiteCount = 0;
  for (float r : ref)
    if (std::isfinite(r)) sumSquares += double(r) * r, ++finiteCount;
  const double rms = finiteCount == 0 ? 0 : std::sqrt(sumSquares / double(finiteCount));
  bool finite = true;
  for (size_t i = 0; i < ref.size(); ++i) {
    if (out[i] == ref[i]) continue; // as IEEE compares: equal infinities agree, NaN agrees with nothing
    double diff = std::abs(double(out[i]) - double(ref[i]));
    if (!std::isfinite(diff)) {
      finite = false;
      c.maxAbsErr = c.maxRelErr = std::numeric_limits<double>::infinity();
      break;
    }
    c.maxAbsErr = std::max(c.maxAbsErr, diff);
    double scale = std::max<double>(std::abs(ref[i]), rms);
    if (scale > 0) c.maxRelErr = std::max(c.maxRelErr, diff / scale);
  }
  c.ok = finite && c.maxRelErr <= c.tolerance;
  return c;
}

TensorCheck compareWithBoth(const std::string &name, isa::DType dtype, const tsr::HostTensor &out,
                            const tsr::HostTensor *golden, const tsr::HostTensor *reference,
                            double referenceTolerance) {
  TensorCheck worst;
  worst.name = name;
  worst.ok = true;
  double worstShare = -1; // maxRelErr / tolerance of the check the summary's error and tolerance come from
  auto against = [&](const TensorCheck &c) {
    worst.maxAbsErr = std::max(worst.maxAbsErr, c.maxAbsErr);
    const double share = c.tolerance > 0 ? c.maxRelErr / c.tolerance : c.maxRelErr;
    if (share > worstShare) worstShare = share, worst.maxRelErr = c.maxRelErr, worst.tolerance = c.tolerance;
    worst.ok = worst.ok && c.ok;
    return TensorCheck::Against{c.maxAbsErr, c.maxRelErr, c.tolerance, c.ok};
  };
  // Two independent passes over the output: the one against the golden model on a thread of its own (the cores
  // are idle by now; a 2048 x 2048 output takes 13 ms a pass on this project's 2-core machine), or here should no
  // thread start.
  std::future<TensorCheck> vsGolden;
  if (golden)
    vsGolden = std::async(std::launch::async | std::launch::deferred,
                          [&] { return compare(name, dtype, out, *golden); });
  std::optional<TensorCheck> vsReference;
  if (reference) vsReference = compare(name, dtype, out, *reference, referenceTolerance);
  if (golden) worst.vsGolden = against(vsGolden.get());
  if (vsReference) worst.vsReference = against(*vsReference);
  return worst;
}

} // namespace tessera::driver
