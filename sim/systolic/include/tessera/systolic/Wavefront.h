#pragma once
/// \file
/// Pictures of the PE model at work: a text frame per cycle (`tessera systolic --animate`) and an SVG of the
/// wavefront (`--svg FILE`): when each PE of the first fold starts, snapshots of that fold, and the number of
/// busy PEs in every cycle of the run.

#include "tessera/systolic/PeModel.h"

#include <string>
#include <string_view>
#include <vector>

namespace tessera::systolic {

/// One cycle as text: a header line and one line per array row, a character per PE:
/// '.' idle, 'w' loading a stationary value of the GEMM, '#' multiply-accumulate, 'o' bubble.
std::string renderFrame(const CycleView &view);

/// How the SVG's layout sizes a label without font metrics: each character kLabelCharEm of the font size wide
/// (kLabelBoldCharEm bold; DejaVu Sans's digits, the widest characters of common sans-serif labels), the box from
/// kLabelAscentEm above the baseline to kLabelDescentEm below. The layout keeps these boxes apart at every size.
inline constexpr double kLabelCharEm = 0.64, kLabelBoldCharEm = 0.7, kLabelAscentEm = 0.8, kLabelDescentEm = 0.25;
/// The estimated width of a label of `text` (UTF-8; characters, not bytes, count).
double labelWidth(std::string_view text, double fontSize, bool bold = false);

/// Records what the SVG needs; pass it (by reference, through std::ref) as the PE model's observer.
class WavefrontRecorder {
public:
  void operator()(const CycleView &view);
  /// The picture, once the model has run.
  std::string svg(const ArrayConfig &config, const Gemm &gemm, const Result &result) const;

private:
  int64_t rows_ = 0, cols_ = 0;
  std::vector<int64_t> firstMac_;               ///< first fold: the fold cycle of each PE's first MAC; -1: none
  std::vector<std::vector<PeActivity>> frames_; ///< first fold, every cycle (up to a limit)
  std::vector<double> busy_;                    ///< PEs doing a MAC, averaged over buckets of cycles
  int64_t bucket_ = 1, inBucket_ = 0;           ///< cycles per bucket; cycles in the bucket being filled
  double busySum_ = 0;
  std::vector<int64_t> foldStarts_;
};

} // namespace tessera::systolic
