// The simulator is deterministic: the same program, inputs and seed give bit-identical HBM outputs, the same
// simulated time and the same per-stream statistics and timeline, run after run, and whether simulations run one
// at a time or from several host threads at once (sim::simulate serialises its SystemC runs with a mutex).

#include "tessera/Driver.h"
#include "tessera/HostData.h"
#include "tessera/sim/Simulator.h"

#include <gtest/gtest.h>

#include <atomic>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

namespace {

namespace driver = tessera::driver;
namespace isa = tessera::isa;
namespace sim = tessera::sim;

struct Case {
  std::string kernel, target;
  std::map<std::string, int64_t> shape;
};

std::vector<Case> cases() {
  std::vector<Case> all;
  for (std::string target : {"trn1", "trn2", "trn3"}) {
    all.push_back({"add", target, {{"M", 256}, {"N", 512}}});
    all.push_back({"matmul", target, {{"M", 256}, {"N", 512}, {"K", 256}}});
    all.push_back({"softmax", target, {{"R", 256}, {"C", 256}}});
  }
  return all;
}

std::string caseName(const testing::TestParamInfo<Case> &info) {
  return info.param.kernel + "_" + info.param.target;
}

/// A compiled kernel, ready to simulate again and again.
struct Compiled {
  std::shared_ptr<const isa::Program> program;
  isa::Target target;
};

driver::RunRequest request(const Case &c, uint64_t seed) {
  driver::RunRequest r;
  r.kernel = c.kernel;
  r.target = c.target;
  r.shape = c.shape;
  r.seed = seed;
  return r;
}

Compiled compile(const Case &c) {
  driver::RunReport r = driver::runKernel(request(c, 3));
  EXPECT_TRUE(r.ok) << c.kernel << " on " << c.target;
  return {r.program, r.target};
}

/// What one simulation produced: the HBM image after the run and the simulator's result.
struct Outcome {
  sim::HbmImage hbm;
  sim::SimResult result;
};

Outcome simulateOnce(const Compiled &c, uint64_t seed) {
  Outcome o{driver::makeInputs(*c.program, seed), {}};
  sim::SimOptions options;
  options.recordTimeline = true;
  o.result = sim::simulate(*c.program, c.target, o.hbm, options);
  return o;
}

/// Bit-for-bit equality of everything a run reports (doubles compared as bits: no tolerance).
bool sameBits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

void expectIdentical(const Outcome &a, const Outcome &b, const std::string &what) {
  SCOPED_TRACE(what);
  ASSERT_EQ(a.hbm.size(), b.hbm.size());
  for (size_t t = 0; t < a.hbm.size(); ++t) {
    ASSERT_EQ(a.hbm[t].size(), b.hbm[t].size()) << "tensor " << t;
    EXPECT_TRUE(a.hbm[t] == b.hbm[t]) << "tensor " << t << " differs";
  }
  EXPECT_TRUE(sameBits(a.result.timeNs, b.result.timeNs)) << a.result.timeNs << " vs " << b.result.timeNs;
  EXPECT_EQ(a.result.instructions, b.result.instructions);
  EXPECT_EQ(a.result.flops, b.result.flops);
  EXPECT_EQ(a.result.hbmBytes, b.result.hbmBytes);
  ASSERT_EQ(a.result.streams.size(), b.result.streams.size());
  for (size_t s = 0; s < a.result.streams.size(); ++s) {
    const sim::StreamStats &x = a.result.streams[s], &y = b.result.streams[s];
    EXPECT_EQ(x.name, y.name);
    EXPECT_EQ(x.engine, y.engine);
    EXPECT_EQ(x.instructions, y.instructions) << x.name;
    EXPECT_TRUE(sameBits(x.busyNs, y.busyNs)) << x.name << ": " << x.busyNs << " vs " << y.busyNs;
    EXPECT_TRUE(sameBits(x.waitNs, y.waitNs)) << x.name << ": " << x.waitNs << " vs " << y.waitNs;
  }
  ASSERT_EQ(a.result.timeline.size(), b.result.timeline.size());
  size_t timelineDiffs = 0;
  for (size_t i = 0; i < a.result.timeline.size(); ++i) {
    const sim::InstructionEvent &x = a.result.timeline[i], &y = b.result.timeline[i];
    if (x.stream != y.stream || x.index != y.index || !sameBits(x.issueNs, y.issueNs) ||
        !sameBits(x.startNs, y.startNs) || !sameBits(x.endNs, y.endNs))
      ++timelineDiffs;
  }
  EXPECT_EQ(timelineDiffs, 0u) << "timeline events differ";
}

class Determinism : public testing::TestWithParam<Case> {};

TEST_P(Determinism, SameSeedSameBitsAndTime) {
  const Compiled c = compile(GetParam());
  ASSERT_TRUE(c.program);
  const Outcome first = simulateOnce(c, 42), second = simulateOnce(c, 42);
  EXPECT_GT(first.result.timeNs, 0);
  EXPECT_EQ(first.result.timeline.size(), first.result.instructions);
  expectIdentical(first, second, "second run");

  // The comparison can tell runs apart: another seed changes the inputs and so the outputs.
  const Outcome other = simulateOnce(c, 43);
  EXPECT_FALSE(other.hbm == first.hbm);
}

TEST_P(Determinism, WholeRunsAgree) {
  const Case &k = GetParam();
  driver::RunReport a = driver::runKernel(request(k, 9)), b = driver::runKernel(request(k, 9));
  ASSERT_TRUE(a.ok);
  ASSERT_TRUE(b.ok);
  EXPECT_TRUE(sameBits(a.sim.timeNs, b.sim.timeNs));
  EXPECT_EQ(a.sim.instructions, b.sim.instructions);
  ASSERT_EQ(a.checks.size(), b.checks.size());
  for (size_t i = 0; i < a.checks.size(); ++i) {
    EXPECT_TRUE(sameBits(a.checks[i].maxAbsErr, b.checks[i].maxAbsErr)) << a.checks[i].name;
    EXPECT_TRUE(sameBits(a.checks[i].maxRelErr, b.checks[i].maxRelErr)) << a.checks[i].name;
  }
}

INSTANTIATE_TEST_SUITE_P(Kernels, Determinism, testing::ValuesIn(cases()), caseName);

/// Runs every (kernel, seed) job on `threads` host threads at once, each thread taking the next job; returns the
/// outcomes in job order.
std::vector<Outcome> runConcurrently(const std::vector<Compiled> &kernels, const std::vector<uint64_t> &seeds,
                                     unsigned threads) {
  const size_t jobs = kernels.size() * seeds.size();
  std::vector<Outcome> out(jobs);
  std::vector<std::string> errors(jobs);
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t j; (j = next.fetch_add(1)) < jobs;) {
      try {
        out[j] = simulateOnce(kernels[j / seeds.size()], seeds[j % seeds.size()]);
      } catch (const std::exception &e) {
        errors[j] = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back(worker);
  for (std::thread &t : pool)
    t.join();
  for (size_t j = 0; j < jobs; ++j)
    EXPECT_EQ(errors[j], "") << "job " << j;
  return out;
}

TEST(DeterminismAcrossThreads, OneThreadAndFourAgree) {
  std::vector<Compiled> kernels;
  for (const Case &c : cases())
    kernels.push_back(compile(c));
  for (const Compiled &k : kernels)
    ASSERT_TRUE(k.program);
  const std::vector<uint64_t> seeds = {1, 2};

  // The reference: one simulation at a time on this thread.
  std::vector<Outcome> sequential;
  for (const Compiled &k : kernels)
    for (uint64_t seed : seeds)
      sequential.push_back(simulateOnce(k, seed));

  const std::vector<Outcome> one = runConcurrently(kernels, seeds, 1);
  const std::vector<Outcome> four = runConcurrently(kernels, seeds, 4);
  ASSERT_EQ(one.size(), sequential.size());
  ASSERT_EQ(four.size(), sequential.size());
  for (size_t j = 0; j < sequential.size(); ++j) {
    const std::string what = cases()[j / seeds.size()].kernel + "/" + cases()[j / seeds.size()].target +
                             " seed " + std::to_string(seeds[j % seeds.size()]);
    expectIdentical(sequential[j], one[j], what + ", 1 thread");
    expectIdentical(sequential[j], four[j], what + ", 4 threads");
  }
}

} // namespace
