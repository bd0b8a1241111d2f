#include "tessera/HostData.h"

#include "tessera/isa/NumberFormats.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace tessera::driver {

sim::HbmImage makeInputs(const isa::Program &program, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  sim::HbmImage hbm;
  for (const isa::TensorInfo &t : program.tensors) {
    std::vector<float> values(static_cast<size_t>(t.elements()));
    if (t.isOutput) std::fill(values.begin(), values.end(), std::numeric_limits<float>::quiet_NaN());
    else
      for (float &v : values) v = uniform(rng);
    std::vector<std::byte> bytes(static_cast<size_t>(t.bytes()));
    isa::encode(t.dtype, values.data(), bytes.data(), values.size());
    hbm.push_back(std::move(bytes));
  }
  return hbm;
}

tsr::HostTensor decodeTensor(const isa::Program &program, const sim::HbmImage &hbm, size_t index) {
  const isa::TensorInfo &t = program.tensors[index];
  tsr::HostTensor values(static_cast<size_t>(t.elements()));
  isa::decode(t.dtype, hbm[index].data(), values.data(), values.size());
  return values;
}

double tolerance(isa::DType dtype) {
  // Four roundings of the output type, plus room for FP32 accumulation-order differences.
  // Assumption: a kernel's own arithmetic errs by a few units of the output's last place.
  constexpr double kRoundings = 4, kAccumulationSlack = 1e-5;
  return kRoundings * isa::unitRoundoff(dtype) + kAccumulationSlack;
}

TensorCheck compare(const std::string &name, isa::DType dtype, const tsr::HostTensor &out,
                    const tsr::HostTensor &ref) {
  TensorCheck c;
  c.name = name;
  c.tolerance = tolerance(dtype);
  double sumSquares = 0;
  for (float r : ref) sumSquares += double(r) * r;
  double rms = ref.empty() ? 0 : std::sqrt(sumSquares / double(ref.size()));
  bool finite = true;
  for (size_t i = 0; i < ref.size(); ++i) {
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
                            const tsr::HostTensor *golden, const tsr::HostTensor *reference) {
  TensorCheck worst;
  worst.name = name;
  worst.ok = true;
  auto against = [&](const tsr::HostTensor &ref) {
    TensorCheck c = compare(name, dtype, out, ref);
    worst.maxAbsErr = std::max(worst.maxAbsErr, c.maxAbsErr);
    worst.maxRelErr = std::max(worst.maxRelErr, c.maxRelErr);
    worst.tolerance = c.tolerance;
    worst.ok = worst.ok && c.ok;
    return TensorCheck::Against{c.maxAbsErr, c.maxRelErr, c.tolerance, c.ok};
  };
  if (golden) worst.vsGolden = against(*golden);
  if (reference) worst.vsReference = against(*reference);
  return worst;
}

} // namespace tessera::driver
