// The library kernels rmsnorm, layernorm, gelu and mlp beyond matching their references at several shapes
// (RunKernelTest.cpp): what the registry and `tessera list --json` show of them; gelu's two forms; the fixed eps
// of the norms, where it matters; mlp at several block sizes, with the HBM bytes and FLOPs its loops imply and
// the weight reuse that its token blocks buy; gamma and beta loaded once; and misuse named with what was expected.

#include "tessera/Driver.h"
#include "tessera/dsl/tsr.h"
#include "tessera/isa/Cost.h"
#include "tessera/isa/Program.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace {

using tessera::driver::RunReport;
using tessera::driver::RunRequest;
using tessera::driver::runKernel;

using Values = std::map<std::string, int64_t>;
using Declared = std::vector<std::pair<std::string, int64_t>>;

const char *const kTargets[] = {"trn1", "trn2", "trn3", "tpu-v5e", "tpu-v6e"};

/// What each kernel declares: shape parameters and kernel parameters, with their defaults, in order.
struct Declaration {
  std::string kernel;
  Declared params, kernelParams;
};

const std::vector<Declaration> &declarations() {
  static const std::vector<Declaration> all{
      {"rmsnorm", {{"R", 512}, {"C", 1024}}, {}},
      {"layernorm", {{"R", 512}, {"C", 1024}}, {}},
      {"gelu", {{"R", 256}, {"C", 1024}}, {{"form", 1}}},
      {"mlp", {{"T", 512}, {"D", 512}, {"F", 1024}}, {{"bt", 512}, {"bf", 512}, {"bd", 1024}}},
  };
  return all;
}

TEST(LibraryKernels, RegisteredWithTheirParametersAndAReference) {
  for (const Declaration &d : declarations()) {
    const tsr::KernelInfo *k = tsr::Registry::instance().find(d.kernel);
    ASSERT_NE(k, nullptr) << d.kernel;
    EXPECT_EQ(k->params, d.params) << d.kernel;
    EXPECT_EQ(k->kernelParams, d.kernelParams) << d.kernel;
    EXPECT_FALSE(k->summary.empty()) << d.kernel;
    EXPECT_TRUE(bool(k->reference)) << d.kernel;
  }
}

/// What `command` prints on stdout; a test failure unless it exits with status 0.
std::string outputOf(const std::string &command) {
  std::unique_ptr<FILE, int (*)(FILE *)> pipe(popen(command.c_str(), "r"), pclose);
  if (!pipe) {
    ADD_FAILURE() << "cannot run " << command;
    return {};
  }
  std::string out;
  char buffer[4096];
  while (size_t n = fread(buffer, 1, sizeof buffer, pipe.get())) out.append(buffer, n);
  EXPECT_EQ(pclose(pipe.release()), 0) << command;
  return out;
}

TEST(LibraryKernels, TesseraListJsonShowsTheirParameters) {
  const nlohmann::json list = nlohmann::json::parse(outputOf(std::string(TESSERA_CLI) + " list --json"));
  for (const Declaration &d : declarations()) {
    auto entry = std::find_if(list.begin(), list.end(), [&](const nlohmann::json &k) { return k["name"] == d.kernel; });
    ASSERT_NE(entry, list.end()) << d.kernel << " is not in `tessera list --json`";
    nlohmann::json params = nlohmann::json::object(), kernelParams = nlohmann::json::object();
    for (const auto &[name, value] : d.params) params[name] = value;
    for (const auto &[name, value] : d.kernelParams) kernelParams[name] = value;
    EXPECT_EQ((*entry)["params"], params) << d.kernel;
    EXPECT_EQ((*entry)["kernel_params"], kernelParams) << d.kernel;
  }
}

/// Runs `request` and expects its outputs to match both the golden model and the kernel's reference.
void expectMatches(const RunRequest &request) {
  RunReport r = runKernel(request);
  const std::string what = request.kernel + " on " + request.target;
  EXPECT_EQ(r.reference, "golden+reference") << what;
  ASSERT_FALSE(r.checks.empty()) << what;
  for (const auto &check : r.checks)
    EXPECT_TRUE(check.ok) << what << ": " << check.name << " max rel err " << check.maxRelErr << " > "
                          << check.tolerance;
  EXPECT_TRUE(r.ok) << what;
}

// The tanh approximation differs from the exact form by up to 1.5e-4 on the inputs' range [-1, 1] (at an rms of
// 0.33), far above the FP32 tolerance (about 1e-5 of the rms): a kernel that ignored `form` would fail one of them.
TEST(LibraryKernels, GeluBothFormsMatchTheirReferencesOnEveryTarget) {
  for (const char *target : kTargets)
    for (int64_t form : {1, 2})
      expectMatches({.kernel = "gelu", .target = target, .shape = {{"R", 160}, {"C", 384}},
                     .kernelParams = {{"form", form}}, .seed = 5});
}

// eps (1e-6 in rmsnorm, 1e-5 in layernorm) is invisible at the usual shapes, where mean(x^2) and the variance are
// about 1/3. With one column (rmsnorm) or two (layernorm), many rows have a mean square or variance within a few
// hundred eps, where the result depends on eps: a kernel without it, or with another, fails here.
TEST(LibraryKernels, NormsUseTheirEpsWhereItMatters) {
  for (const char *target : kTargets) {
    expectMatches({.kernel = "rmsnorm", .target = target, .shape = {{"R", 512}, {"C", 1}}, .seed = 3});
    expectMatches({.kernel = "layernorm", .target = target, .shape = {{"R", 512}, {"C", 2}}, .seed = 3});
  }
}

// gamma (and beta) are loaded once, before the row loop, and broadcast to the partitions on chip: each row of X
// crosses HBM once each way, and R not a multiple of 128 costs no more.
TEST(LibraryKernels, NormsMoveEachRowOnceAndGammaOnce) {
  const int64_t C = 512, f32 = 4;
  for (const char *target : {"trn2", "tpu-v5e"})
    for (int64_t R : {384, 200}) {
      const Values shape{{"R", R}, {"C", C}};
      RunReport rms = runKernel({.kernel = "rmsnorm", .target = target, .shape = shape, .timingOnly = true});
      EXPECT_EQ(rms.sim.hbmBytes, static_cast<uint64_t>((2 * R * C + C) * f32)) << target << " R=" << R;
      RunReport layer = runKernel({.kernel = "layernorm", .target = target, .shape = shape, .timingOnly = true});
      EXPECT_EQ(layer.sim.hbmBytes, static_cast<uint64_t>((2 * R * C + 2 * C) * f32)) << target << " R=" << R;
    }
}

// Several token, hidden and model-dimension blocks (and blocks as large as the tensors), against the reference and
// the golden model.
TEST(LibraryKernels, MlpMatchesAtSeveralBlockSizes) {
  const Values shape{{"T", 256}, {"D", 256}, {"F", 512}};
  for (const char *target : {"trn1", "trn2", "tpu-v5e"})
    for (const Values &blocks : {Values{{"bt", 128}, {"bf", 256}, {"bd", 128}},
                                 Values{{"bt", 256}, {"bf", 128}, {"bd", 256}}, Values{{"bt", 128}}})
      expectMatches({.kernel = "mlp", .target = target, .shape = shape, .kernelParams = blocks, .seed = 9});
}

/// The FLOPs of `r`'s tensor-engine (MXU) instructions.
double matmulFlops(const RunReport &r) {
  double flops = 0;
  for (const tessera::isa::Stream &s : r.program->streams)
    if (s.engine == tessera::isa::Engine::Tensor || s.engine == tessera::isa::Engine::Mxu)
      for (const tessera::isa::Instruction &inst : s.instructions) flops += double(tessera::isa::flops(inst));
  return flops;
}

// x_t is read once and y written once; the three weight matrices cross HBM once per block of bt tokens. The
// matmuls are the three projections' and no more: 2 T D F FLOPs each.
TEST(LibraryKernels, MlpMovesTheWeightsOncePerTokenBlock) {
  const int64_t T = 512, D = 256, F = 384, bf16 = 2;
  for (const char *target : {"trn2", "tpu-v5e"})
    for (int64_t bt : {128, 256, 512}) {
      RunReport r = runKernel({.kernel = "mlp", .target = target, .shape = {{"T", T}, {"D", D}, {"F", F}},
                               .kernelParams = {{"bt", bt}}, .timingOnly = true});
      const int64_t activations = 2 * T * D * bf16, weights = (T / bt) * 3 * D * F * bf16;
      EXPECT_EQ(r.sim.hbmBytes, static_cast<uint64_t>(activations + weights)) << target << " bt=" << bt;
      EXPECT_DOUBLE_EQ(matmulFlops(r), 6.0 * T * D * F) << target << " bt=" << bt;
    }
}

// At bt=128 the weights give 128 FLOP per byte of HBM traffic, below trn2's BF16 ridge point (about 220): the
// kernel waits for DMA. At the default bt=512 they give 512, and it is faster.
TEST(LibraryKernels, MlpLargerTokenBlocksAreFasterOnTrn2) {
  const Values shape{{"T", 1024}, {"D", 1024}, {"F", 1024}};
  RunReport small = runKernel(
      {.kernel = "mlp", .target = "trn2", .shape = shape, .kernelParams = {{"bt", 128}}, .timingOnly = true});
  RunReport large = runKernel({.kernel = "mlp", .target = "trn2", .shape = shape, .timingOnly = true});
  EXPECT_LT(large.sim.timeNs, 0.8 * small.sim.timeNs);
}

/// The message of the tessera::Error that running `request` throws; a test failure if it throws none.
std::string errorOf(const RunRequest &request) {
  try {
    runKernel(request);
  } catch (const tessera::Error &e) {
    return e.message();
  }
  ADD_FAILURE() << request.kernel << ": expected an error";
  return {};
}

TEST(LibraryKernels, MisuseSaysWhatWasExpected) {
  EXPECT_EQ(errorOf({.kernel = "gelu", .kernelParams = {{"form", 3}}}),
            "gelu: form must be 1 (exact, erf) or 2 (tanh approximation)");
  EXPECT_EQ(errorOf({.kernel = "mlp", .shape = {{"T", 200}}}), "mlp: T must be a multiple of 128");
  EXPECT_EQ(errorOf({.kernel = "mlp", .shape = {{"T", 512}}, .kernelParams = {{"bt", 384}}}),
            "mlp: block bt=384 must be a multiple of 128 that divides T=512");
  EXPECT_EQ(errorOf({.kernel = "mlp", .shape = {{"T", 1024}}, .kernelParams = {{"bt", 1024}}}),
            "mlp: block bt=1024 must be at most 512 tokens (the moving tile of the gate and up projections)");
}

} // namespace
