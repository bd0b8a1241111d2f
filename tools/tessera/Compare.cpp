#include "tessera/Compare.h"
#include "tessera/isa/Family.h"

#include "tessera/HostData.h"

#include <fmt/format.h>

#include <cmath>

namespace tessera::driver {

namespace {

/// Every output of a run as FP32, by name.
std::map<std::string, tsr::HostTensor> outputsOf(const RunReport &r) {
  std::map<std::string, tsr::HostTensor> out;
  for (size_t i = 0; i < r.program->tensors.size(); ++i)
    if (r.program->tensors[i].isOutput) out[r.program->tensors[i].name] = decodeTensor(*r.program, *r.hbm, i);
  return out;
}

Difference differenceOf(const std::string &name, const tsr::HostTensor &a, const tsr::HostTensor &b) {
  Difference d{name};
  double squares = 0;
  for (float x : b) squares += double(x) * x;
  const double rms = b.empty() ? 0 : std::sqrt(squares / double(b.size()));
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double diff = std::abs(double(a[i]) - double(b[i]));
    d.maxAbs = std::max(d.maxAbs, diff);
    const double scale = std::max<double>(std::abs(b[i]), rms);
    if (scale > 0) d.maxRel = std::max(d.maxRel, diff / scale);
  }
  return d;
}

} // namespace

std::optional<double> CompareRow::dollarsPerMillionCalls() const {
  if (!report || pricePerChipHour <= 0) return std::nullopt;
  constexpr double kCalls = 1e6, kUsPerHour = 3.6e9;
  return report->timeUs() * kCalls / kUsPerHour * pricePerChipHour / std::max(1u, coresPerChip);
}

Comparison compareTargets(const RunRequest &request, const std::vector<std::string> &targets,
                          const std::map<std::string, double> &prices) {
  if (targets.empty()) throw InputError("--targets: no targets given", {}, "e.g. --targets trn1,trn2,tpu-v5e");
  Comparison c;
  c.kernel = findKernel(request.kernel).name;
  std::optional<std::map<std::string, tsr::HostTensor>> first;
  for (const std::string &name : targets) {
    const isa::Target target = loadTarget(name); // an unknown target is bad input, before anything runs
    CompareRow row;
    row.target = target.name;
    row.coresPerChip = isa::familyOf(target).coresPerChip(target);
    row.pricePerChipHour = target.pricePerChipHour;
    if (auto p = prices.find(target.name); p != prices.end()) row.pricePerChipHour = p->second;
    RunRequest r = request;
    r.target = name;
    r.keepTensors = true;
    try {
      row.report = runKernel(r);
    } catch (const CompileRefused &e) { // the kernel does not compile there (an isa op of another family)
      row.error = e.message();
      c.rows.push_back(std::move(row));
      continue;
    } catch (const InputError &) {
      throw;
    } catch (const LimitError &) {
      throw;
    } catch (const Error &e) { // the kernel does not compile or run there
      row.error = e.message();
      c.rows.push_back(std::move(row));
      continue;
    }
    c.params = row.report->params;
    c.ok = c.ok && row.report->ok;
    const std::map<std::string, tsr::HostTensor> outputs = outputsOf(*row.report);
    for (const TensorCheck &check : row.report->checks) { // the hand-written FP32 reference, else the golden model
      const auto &against = check.vsReference ? check.vsReference : check.vsGolden;
      if (against) row.vsReference.push_back({check.name, against->maxAbsErr, against->maxRelErr});
    }
    if (!first) first = outputs;
    for (const auto &[output, values] : outputs) row.vsFirst.push_back(differenceOf(output, values, first->at(output)));
    c.rows.push_back(std::move(row));
  }
  return c;
}

} // namespace tessera::driver
