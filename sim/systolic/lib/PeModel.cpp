#include "tessera/systolic/PeModel.h"

#include "tessera/isa/Error.h"
#include "tessera/systolic/Mapping.h"
#include "tessera/systolic/ReadBuffer.h"

#include <fmt/format.h>

#include <algorithm>
#include <cassert>

namespace tessera::systolic {

namespace {

/// What sits in a register between two PEs: a token (a datum, or a bubble standing in for one outside the fold's
/// slice of the GEMM) and the index along T it belongs to.
struct Reg {
  int64_t value = 0;
  int32_t t = 0;
  bool token = false;
  bool valid = false; ///< a datum, not a bubble
};

/// Small integers, different for every element, so that every product and sum is exact.
int64_t operandValue(int64_t row, int64_t col, uint64_t salt) {
  uint64_t h = uint64_t(row) * 0x9E3779B97F4A7C15ull ^ (uint64_t(col) + salt) * 0xC2B2AE3D27D4EB4Full;
  h ^= h >> 29;
  h *= 0xBF58476D1CE4E5B9ull;
  h ^= h >> 32;
  return int64_t(h % 9) - 4;
}

class PeArray {
public:
  PeArray(const ArrayConfig &config, const Gemm &gemm, const PeModelOptions &options)
      : config_(config), gemm_(gemm), options_(options), mapping_(mapGemm(config, gemm)), R_(config.rows),
        C_(config.cols), ifmapBuffer_(gemm.m * gemm.k, epochFetches(config.sramKiB[0])),
        filterBuffer_(gemm.k * gemm.n, epochFetches(config.sramKiB[1])), out_(size_t(gemm.m * gemm.n), 0),
        activity_(size_t(R_ * C_), PeActivity::Idle) {}

  Result run() {
    // SCALE-Sim's order: column folds outer, row folds inner.
    for (int64_t fc = 0; fc < mapping_.colFolds; ++fc)
      for (int64_t fr = 0; fr < mapping_.rowFolds; ++fr) {
        fold_ = fc * mapping_.rowFolds + fr, rowFold_ = fr, colFold_ = fc;
        foldCycle_ = 0;
        if (config_.dataflow == Dataflow::OutputStationary) runOutputStationaryFold(fr, fc);
        else runStationaryFold(fr, fc);
      }
    Result r;
    r.model = "pe";
    r.mapping = mapping_;
    r.computeCycles = cycle_;
    r.macs = macs_;
    r.usedPeFolds = usedPeFolds_;
    r.utilization = double(macs_) / (double(cycle_) * double(R_) * double(C_));
    r.mappingEfficiency = double(usedPeFolds_) / (double(mapping_.folds()) * double(R_) * double(C_));
    r.ifmap = {ifmapReads_, 0, ifmapBuffer_.dramReads(), 0};
    r.filter = {filterReads_, 0, filterBuffer_.dramReads(), 0};
    r.ofmap = {0, ofmapWrites_, 0, ofmapWrites_};
    if (options_.checkValues) {
      checkProduct();
      r.valuesChecked = true;
    }
    return r;
  }

private:
  // The operands, read through the SRAM (counted, and passed to the DRAM read model).
  int64_t readA(int64_t m, int64_t k) {
    ++ifmapReads_, ++readsThisCycle_;
    ifmapBuffer_.read(m * gemm_.k + k);
    return operandValue(m, k, 1);
  }
  int64_t readB(int64_t k, int64_t n) {
    ++filterReads_, ++readsThisCycle_;
    filterBuffer_.read(k * gemm_.n + n);
    return operandValue(k, n, 2);
  }
  /// Partial sums of different folds accumulate where they are written (one write each, as SCALE-Sim counts).
  void writeC(int64_t m, int64_t n, int64_t value) {
    ++ofmapWrites_, ++writesThisCycle_;
    out_[size_t(m * gemm_.n + n)] += value;
  }

  size_t at(int64_t i, int64_t j) const { return size_t(i * C_ + j); }
  void setActivity(int64_t i, int64_t j, PeActivity a) {
    if (options_.observer) activity_[at(i, j)] = a;
  }

  /// Ends a cycle: reports it and moves the clocks on.
  void endCycle() {
    if (options_.observer) {
      CycleView view;
      view.cycle = cycle_, view.fold = fold_, view.folds = mapping_.folds();
      view.rowFold = rowFold_, view.colFold = colFold_, view.foldCycle = foldCycle_;
      view.rows = R_, view.cols = C_;
      view.macs = macsThisCycle_, view.sramReads = readsThisCycle_, view.sramWrites = writesThisCycle_;
      view.activity = &activity_;
      options_.observer(view);
    }
    macsThisCycle_ = readsThisCycle_ = writesThisCycle_ = 0;
    ++cycle_, ++foldCycle_;
  }

  /// ws and is: shift the stationary operand in from the top (rows cycles), then stream the other from the left;
  /// partial sums flow down and leave the bottom edge.
  ///   ws: stationary S[i][j] = B[k0+i][n0+j], stream X[t][i] = A[t][k0+i], out Y[t][j] -> C[t][n0+j]
  ///   is: stationary S[i][j] = A[m0+j][k0+i], stream X[t][i] = B[k0+i][t], out Y[t][j] -> C[m0+j][t]
  void runStationaryFold(int64_t fr, int64_t fc) {
    const bool ws = config_.dataflow == Dataflow::WeightStationary;
    const int64_t k0 = fr * R_, c0 = fc * C_;
    const int64_t usedRows = std::min(R_, gemm_.k - k0);
    const int64_t usedCols = std::min(C_, (ws ? gemm_.n : gemm_.m) - c0);
    const int64_t T = mapping_.temporal;
    auto stationary = [&](int64_t i, int64_t j) { return ws ? readB(k0 + i, c0 + j) : readA(c0 + j, k0 + i); };
    auto stream = [&](int64_t t, int64_t i) { return ws ? readA(t, k0 + i) : readB(k0 + i, t); };
    auto output = [&](int64_t t, int64_t j, int64_t v) { ws ? writeC(t, c0 + j, v) : writeC(c0 + j, t, v); };

    // Load: each cycle the rows shift down one and the top row takes the next row of the block, last row
    // first, so that after `rows` cycles row i of the block sits in row i of the array.
    std::vector<Reg> load(size_t(R_ * C_)), loadNext(load.size());
    for (int64_t step = 0; step < R_; ++step) {
      const int64_t blockRow = R_ - 1 - step;
      for (int64_t i = 0; i < R_; ++i)
        for (int64_t j = 0; j < C_; ++j) {
          Reg in;
          if (i > 0) in = load[at(i - 1, j)];
          else {
            in.token = true;
            in.valid = blockRow < usedRows && j < usedCols;
            if (in.valid) in.value = stationary(blockRow, j);
          }
          loadNext[at(i, j)] = in;
          // What the register holds: a weight of this GEMM, a bubble (a column outside the slice, or a row of
          // the block beyond the GEMM's K on its way to the bottom rows) or, below the first token, nothing.
          setActivity(i, j, !in.token ? PeActivity::Idle : in.valid ? PeActivity::Load : PeActivity::Bubble);
        }
      std::swap(load, loadNext);
      endCycle();
    }
    for (const Reg &w : load) usedPeFolds_ += w.valid;

    // Stream: row i takes X[t][i] at stream cycle t + i; the datum moves one PE right per cycle, and the partial
    // sum for the same t one PE down.
    std::vector<Reg> x(load.size()), xNext(load.size()), p(load.size()), pNext(load.size());
    for (int64_t s = 0;; ++s) {
      bool anyToken = false;
      for (int64_t i = 0; i < R_; ++i)
        for (int64_t j = 0; j < C_; ++j) {
          Reg xin;
          if (j > 0) xin = x[at(i, j - 1)];
          else if (s - i >= 0 && s - i < T) {
            xin.token = true, xin.t = int32_t(s - i), xin.valid = i < usedRows;
            if (xin.valid) xin.value = stream(s - i, i);
          }
          xNext[at(i, j)] = xin;
          if (!xin.token) {
            pNext[at(i, j)] = Reg{};
            setActivity(i, j, PeActivity::Idle);
            continue;
          }
          anyToken = true;
          Reg pin = i > 0 ? p[at(i - 1, j)] : Reg{0, xin.t, true, true};
          assert(pin.token && pin.t == xin.t && "partial sum and operand out of step");
          const Reg &w = load[at(i, j)];
          bool mac = xin.valid && w.valid;
          if (mac) pin.value += xin.value * w.value, ++macs_, ++macsThisCycle_;
          pNext[at(i, j)] = pin;
          setActivity(i, j, mac ? PeActivity::Mac : PeActivity::Bubble);
          if (i == R_ - 1 && j < usedCols) output(pin.t, j, pin.value);
        }
      if (!anyToken && s >= T + R_ - 1) break;
      std::swap(x, xNext);
      std::swap(p, pNext);
      endCycle();
    }
  }

  /// os: A streams in from the left (row i takes A[m0+i][t] at cycle t + i), B from the top (column j takes
  /// B[t][n0+j] at cycle t + j); they meet in PE (i, j) at cycle t + i + j, which accumulates C[m0+i][n0+j].
  void runOutputStationaryFold(int64_t fr, int64_t fc) {
    const int64_t m0 = fr * R_, n0 = fc * C_;
    const int64_t usedRows = std::min(R_, gemm_.m - m0), usedCols = std::min(C_, gemm_.n - n0);
    const int64_t T = mapping_.temporal;
    std::vector<Reg> a(size_t(R_ * C_)), aNext(a.size()), b(a.size()), bNext(a.size());
    std::vector<int64_t> acc(a.size(), 0);
    std::vector<uint8_t> used(a.size(), 0);
    for (int64_t s = 0;; ++s) {
      bool anyToken = false;
      for (int64_t i = 0; i < R_; ++i)
        for (int64_t j = 0; j < C_; ++j) {
          Reg ain, bin;
          if (j > 0) ain = a[at(i, j - 1)];
          else if (s - i >= 0 && s - i < T) {
            ain.token = true, ain.t = int32_t(s - i), ain.valid = i < usedRows;
            if (ain.valid) ain.value = readA(m0 + i, s - i);
          }
          if (i > 0) bin = b[at(i - 1, j)];
          else if (s - j >= 0 && s - j < T) {
            bin.token = true, bin.t = int32_t(s - j), bin.valid = j < usedCols;
            if (bin.valid) bin.value = readB(s - j, n0 + j);
          }
          aNext[at(i, j)] = ain, bNext[at(i, j)] = bin;
          assert(ain.token == bin.token && (!ain.token || ain.t == bin.t) && "operands out of step");
          if (!ain.token) {
            setActivity(i, j, PeActivity::Idle);
            continue;
          }
          anyToken = true;
          bool mac = ain.valid && bin.valid;
          if (mac) acc[at(i, j)] += ain.value * bin.value, used[at(i, j)] = 1, ++macs_, ++macsThisCycle_;
          setActivity(i, j, mac ? PeActivity::Mac : PeActivity::Bubble);
          if (ain.t == T - 1 && i < usedRows && j < usedCols) writeC(m0 + i, n0 + j, acc[at(i, j)]);
        }
      if (!anyToken && s >= T + std::max(R_, C_) - 1) break;
      std::swap(a, aNext);
      std::swap(b, bNext);
      endCycle();
    }
    for (uint8_t u : used) usedPeFolds_ += u;
  }

  void checkProduct() const {
    for (int64_t m = 0; m < gemm_.m; ++m)
      for (int64_t n = 0; n < gemm_.n; ++n) {
        int64_t want = 0;
        for (int64_t k = 0; k < gemm_.k; ++k) want += operandValue(m, k, 1) * operandValue(k, n, 2);
        int64_t got = out_[size_t(m * gemm_.n + n)];
        if (got != want)
          throw Error(fmt::format("internal error: the PE model computed C[{}][{}] = {}, the reference {} ({}x{} "
                                  "array, {}, GEMM {}x{}x{})",
                                  m, n, got, want, R_, C_, shortName(config_.dataflow), gemm_.m, gemm_.n, gemm_.k));
      }
  }

  const ArrayConfig &config_;
  const Gemm &gemm_;
  const PeModelOptions &options_;
  Mapping mapping_;
  int64_t R_, C_;
  ReadBuffer ifmapBuffer_, filterBuffer_;
  std::vector<int64_t> out_;
  std::vector<PeActivity> activity_;
  int64_t cycle_ = 0, foldCycle_ = 0, fold_ = 0, rowFold_ = 0, colFold_ = 0;
  int64_t macs_ = 0, usedPeFolds_ = 0, ifmapReads_ = 0, filterReads_ = 0, ofmapWrites_ = 0;
  int64_t macsThisCycle_ = 0, readsThisCycle_ = 0, writesThisCycle_ = 0;
};

} // namespace

Result runPeModel(const ArrayConfig &config, const Gemm &gemm, const PeModelOptions &options) {
  validate(config, gemm);
  return PeArray(config, gemm, options).run();
}

} // namespace tessera::systolic
