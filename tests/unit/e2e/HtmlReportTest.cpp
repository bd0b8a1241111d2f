// The HTML report (tools/tessera/HtmlReport.h): every section is there, nothing comes from the network, the numbers
// are the run's, the analyses (live memory, stall reasons) give what hand-worked examples say, long runs stay small,
// the file appears whole or not at all, and headless Chromium draws something that is not blank.

#include "tessera/AtomicFile.h"
#include "tessera/HtmlReport.h"
#include "tessera/StallAnalysis.h"

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <png.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>
#include <unistd.h>

namespace {

namespace fs = std::filesystem;
using namespace tessera;
using namespace tessera::driver;

/// matmul on trn2 at the quick-start shape, with its timeline; run once for the whole file.
const RunReport &matmulRun() {
  static const RunReport r = runKernel({.kernel = "matmul",
                                        .target = "trn2",
                                        .shape = {{"M", 1024}, {"N", 1024}, {"K", 1024}},
                                        .recordTimeline = true});
  return r;
}

const std::string &matmulHtml() {
  static const std::string html = toHtml(matmulRun());
  return html;
}

/// The value of `attribute` on the element with `id`, as the report writes it: id=ID ... attribute='VALUE'.
std::string attributeOf(const std::string &html, const std::string &id, const std::string &attribute) {
  const size_t at = html.find("id=" + id + " ");
  if (at == std::string::npos) return "";
  const size_t end = html.find('>', at);
  std::smatch m;
  const std::string tag = html.substr(at, end - at);
  if (!std::regex_search(tag, m, std::regex(attribute + "='([^']*)'"))) return "";
  return m[1];
}

double numberOf(const std::string &html, const std::string &id, const std::string &attribute) {
  const std::string text = attributeOf(html, id, attribute);
  EXPECT_FALSE(text.empty()) << "no " << attribute << " on #" << id;
  return text.empty() ? -1 : std::stod(text);
}

std::string readFile(const fs::path &file) {
  std::stringstream text;
  text << std::ifstream(file).rdbuf();
  return text.str();
}

/// A fresh folder under the system's temporary directory, removed at the end of the test.
struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() /
           ("tessera-html-" + std::to_string(getpid()) + "-" +
            testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() { fs::remove_all(path); }
};

TEST(HtmlReport, HasEverySection) {
  const std::string &html = matmulHtml();
  ASSERT_TRUE(html.starts_with("<!DOCTYPE html>"));
  for (const char *id : {"summary", "utilisation", "stalls", "timeline", "roofline", "memory"})
    EXPECT_NE(html.find(fmt::format("<section id={}>", id)), std::string::npos) << "no section " << id;
  EXPECT_NE(html.find("id=verdict>ok<"), std::string::npos);
  // 304 instructions: small enough to draw one box per instruction, each with its details.
  EXPECT_EQ(attributeOf(html, "timeline-svg", "data-mode"), "exact");
  EXPECT_NE(html.find("<title>tensor #0 matmul"), std::string::npos);
  EXPECT_NE(html.find("kernels/matmul.cpp:"), std::string::npos);
  EXPECT_TRUE(html.ends_with("</html>\n"));
}

TEST(HtmlReport, NeedsNoNetwork) {
  const std::string &html = matmulHtml();
  EXPECT_EQ(html.find("http://"), std::string::npos);
  EXPECT_EQ(html.find("https://"), std::string::npos);
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("@import"), std::string::npos);
  for (size_t at = html.find("src="); at != std::string::npos; at = html.find("src=", at + 1)) {
    const std::string value = html.substr(at + 4, 6);
    EXPECT_TRUE(value == "'data:" || value == "\"data:") << "src= to something other than a data: URI: "
                                                         << html.substr(at, 60);
  }
  // CSS may only refer to the page's own SVG patterns.
  for (size_t at = html.find("url("); at != std::string::npos; at = html.find("url(", at + 1))
    EXPECT_EQ(html.substr(at, 5), "url(#") << html.substr(at, 40);
}

TEST(HtmlReport, NumbersAreTheRuns) {
  const RunReport &r = matmulRun();
  const std::string &html = matmulHtml();
  ASSERT_TRUE(r.ok);
  EXPECT_DOUBLE_EQ(numberOf(html, "time-us", "data-value"), r.timeUs());
  EXPECT_NE(html.find(fmt::format(">{:.3f} us<", r.timeUs())), std::string::npos);
  EXPECT_DOUBLE_EQ(numberOf(html, "achieved-tflops", "data-value"), r.achievedTflops());
  EXPECT_DOUBLE_EQ(numberOf(html, "hbm-bytes", "data-value"), double(r.sim.hbmBytes));
  EXPECT_DOUBLE_EQ(numberOf(html, "busy-tensor", "data-value"), r.busyPercent().at("tensor"));
  // The roofline: the kernel at flops / HBM bytes and its achieved rate, the ridge where the roofs meet.
  EXPECT_DOUBLE_EQ(numberOf(html, "kernel-point", "data-intensity"), double(r.sim.flops) / double(r.sim.hbmBytes));
  EXPECT_DOUBLE_EQ(numberOf(html, "kernel-point", "data-tflops"), r.achievedTflops());
  EXPECT_DOUBLE_EQ(numberOf(html, "roofline-svg", "data-peak-tflops"), r.target.tensor.peakBf16Tflops);
  EXPECT_DOUBLE_EQ(numberOf(html, "roofline-svg", "data-bytes-per-ns"), r.target.dma.bytesPerNs());
  EXPECT_DOUBLE_EQ(numberOf(html, "roofline-svg", "data-ridge"),
                   r.target.tensor.peakBf16Tflops * 1000 / r.target.dma.bytesPerNs());
}

// The stall attribution accounts for every nanosecond the simulator counted as waiting, stream by stream.
TEST(HtmlReport, StallsAddUpToTheSimulatorsWaits) {
  const RunReport &r = matmulRun();
  std::vector<double> waited(r.sim.streams.size(), 0);
  for (const Stall &s : stallReasons(*r.program, r.sim)) {
    waited[s.waiter] += s.waitNs;
    EXPECT_GE(s.producer, 0) << "a wait no signal explains, in stream " << r.sim.streams[s.waiter].name;
    EXPECT_NE(s.producer, static_cast<int32_t>(s.waiter));
  }
  for (size_t s = 0; s < waited.size(); ++s)
    EXPECT_NEAR(waited[s], r.sim.streams[s].waitNs, 1e-6 * r.sim.timeNs) << r.sim.streams[s].name;
}

// Live data never exceeds what the compiler allocated, and the matmul does hold some in both memories.
TEST(HtmlReport, LiveBytesWithinTheAllocation) {
  const RunReport &r = matmulRun();
  const LiveBytes live = liveBytesOverTime(*r.program, r.target, r.sim.timeline);
  const LiveSeries &sbuf = live.of(isa::MemSpace::Sbuf), &psum = live.of(isa::MemSpace::Psum);
  EXPECT_GT(sbuf.peak, 0);
  EXPECT_GT(psum.peak, 0);
  EXPECT_LE(sbuf.peak, r.sbufPeakBytes);
  EXPECT_LE(psum.peak, r.psumPeakBytes);
  EXPECT_EQ(sbuf.steps.back().second, 0);
  EXPECT_EQ(psum.steps.back().second, 0);
}

// A TPU run's report speaks of its own machine (issue 24): the memory chart is VMEM's (there is no SBUF or PSUM),
// with live data within what the compiler allocated; the roofline's roof is the MXUs'; the engines are units.
TEST(HtmlReport, ATpuRunShowsVmemAndTheMxus) {
  const RunReport r = runKernel({.kernel = "matmul",
                                 .target = "tpu-v5e",
                                 .shape = {{"M", 256}, {"N", 512}, {"K", 256}},
                                 .recordTimeline = true});
  ASSERT_TRUE(r.ok);
  const LiveBytes live = liveBytesOverTime(*r.program, r.target, r.sim.timeline);
  const LiveSeries &vmem = live.of(isa::MemSpace::Vmem);
  EXPECT_EQ(vmem.partitions, 1u);
  EXPECT_GT(vmem.peak, 0);
  EXPECT_LE(vmem.peak, r.vmemPeakBytes);
  EXPECT_EQ(vmem.steps.back().second, 0);
  const std::string html = toHtml(r);
  EXPECT_GT(numberOf(html, "memory-svg", "data-vmem-peak"), 0);
  EXPECT_EQ(html.find("data-sbuf-peak"), std::string::npos);
  EXPECT_NE(html.find(">VMEM <tspan"), std::string::npos);
  EXPECT_EQ(html.find(">SBUF <tspan"), std::string::npos);
  EXPECT_NE(html.find("(MXUs, bf16)"), std::string::npos);
  EXPECT_EQ(html.find("tensor engine"), std::string::npos);
}

// A hand-built program and timeline: dma0 loads 1 KiB per partition, the vector engine (waiting on it) copies it
// to another 1 KiB, dma1 (waiting on the vector engine) stores that.
struct Handmade {
  isa::Program program;
  sim::SimResult result;

  Handmade() {
    using isa::AccessPattern, isa::MemSpace, isa::DType;
    program.kernel = "handmade";
    program.target = "trn2";
    program.tensors = {{"x", {128, 256}, DType::F32, false}, {"y", {128, 256}, DType::F32, true}};
    program.semaphores = 2;
    program.signals = {0, 1};
    program.waits = {{0, 1}, {1, 1}};
    program.locations = {{}};
    const AccessPattern a = AccessPattern::dense(MemSpace::Sbuf, DType::F32, 0, 128, 0, 256);
    const AccessPattern b = AccessPattern::dense(MemSpace::Sbuf, DType::F32, 0, 128, 1024, 256);
    AccessPattern x = AccessPattern::dense(MemSpace::Hbm, DType::F32, 0, 128, 0, 256), y = x;
    x.tensor = 0, y.tensor = 1, x.partitionStride = y.partitionStride = 256;
    isa::Stream vector{.engine = isa::Engine::Vector}, dma0{.engine = isa::Engine::Dma, .queue = 0},
        dma1{.engine = isa::Engine::Dma, .queue = 1};
    dma0.instructions.push_back({.op = isa::Opcode::DmaCopy, .dst = a, .src0 = x, .signalBegin = 0, .signalCount = 1});
    vector.instructions.push_back({.op = isa::Opcode::TensorCopy, .dst = b, .src0 = a, .waitBegin = 0, .waitCount = 1,
                                   .signalBegin = 1, .signalCount = 1});
    dma1.instructions.push_back({.op = isa::Opcode::DmaCopy, .dst = y, .src0 = b, .waitBegin = 1, .waitCount = 1});
    program.streams = {vector, dma0, dma1};
    result.timeNs = 300;
    result.instructions = 3;
    result.hbmBytes = 2 * 128 * 1024;
    result.streams = {{"vector", isa::Engine::Vector, 1, 100, 100},
                      {"dma0", isa::Engine::Dma, 1, 100, 0},
                      {"dma1", isa::Engine::Dma, 1, 100, 200}};
    result.timeline = {{.stream = 1, .index = 0, .issueNs = 0, .startNs = 0, .endNs = 100},
                       {.stream = 0, .index = 0, .issueNs = 0, .startNs = 100, .endNs = 200},
                       {.stream = 2, .index = 0, .issueNs = 0, .startNs = 200, .endNs = 300}};
  }
};

TEST(HtmlReport, LiveFromFirstWriteToEndOfLastRead) {
  Handmade h;
  const LiveBytes live = liveBytesOverTime(h.program, isa::Target::find("trn2"), h.result.timeline);
  // a: live [0, 200) (written by dma0, last read by the copy ending at 200); b: live [100, 300).
  const std::vector<std::pair<double, int64_t>> expected = {{0, 1024}, {100, 2048}, {200, 1024}, {300, 0}};
  EXPECT_EQ(live.of(isa::MemSpace::Sbuf).steps, expected);
  EXPECT_EQ(live.of(isa::MemSpace::Sbuf).peak, 2048);
  EXPECT_EQ(live.of(isa::MemSpace::Psum).peak, 0);
}

TEST(HtmlReport, StallsNameTheStreamWaitedFor) {
  Handmade h;
  const std::vector<Stall> stalls = stallReasons(h.program, h.result);
  ASSERT_EQ(stalls.size(), 2u);
  EXPECT_EQ(stalls[0].waiter, 2u); // dma1 waited 200 ns, for the vector engine
  EXPECT_EQ(stalls[0].producer, 0);
  EXPECT_DOUBLE_EQ(stalls[0].waitNs, 200);
  EXPECT_EQ(stalls[1].waiter, 0u); // the vector engine waited 100 ns, for dma0
  EXPECT_EQ(stalls[1].producer, 1);
  EXPECT_DOUBLE_EQ(stalls[1].waitNs, 100);

  RunReport report;
  report.kernel = "handmade";
  report.target = loadTarget("trn2");
  report.program = std::make_shared<const isa::Program>(h.program);
  report.sim = h.result;
  report.instructions = 3;
  report.timingOnly = true;
  report.ok = true;
  const std::string html = toHtml(report);
  EXPECT_NE(html.find("<b>dma1 queue</b> waited <b>66.7%</b> of the run on <b>vector</b>"), std::string::npos);
  EXPECT_NE(html.find("<b>vector engine</b> waited <b>33.3%</b> of the run on <b>dma0</b>"), std::string::npos);
}

// The report's bound is the one the run had, as --json says (issue 24: it named the larger lower bound, and the
// README's matmul on trn2, whose tensor bound of 27.3 us is above its DMA bound of 23.1, was called compute-bound).
// No resource is busy half of that run: overhead-bound, and its tensor engine waited longest on DMA's fixed
// per-transfer costs. 2048^3 on v5e keeps the MXUs busy: compute-bound.
TEST(HtmlReport, TheBoundIsTheOneTheRunHad) {
  Handmade h; // the vector engine, busy a third of the run, waited a third on dma0
  const LeadWait wait = leadWait(h.program, h.result, stallReasons(h.program, h.result));
  EXPECT_EQ(wait.lead, 0);
  EXPECT_DOUBLE_EQ(wait.leadBusyShare, 100.0 / 300);
  EXPECT_EQ(wait.waitedFor, "DMA");
  EXPECT_DOUBLE_EQ(wait.waitShare, 100.0 / 300);

  const RunReport readme = runKernel({.kernel = "matmul",
                                      .target = "trn2",
                                      .shape = {{"M", 1024}, {"N", 1024}, {"K", 1024}},
                                      .timingOnly = true,
                                      .recordTimeline = true});
  ASSERT_GT(readme.tensorBoundUs(), readme.dmaBoundUs()); // the larger lower bound is the compute one
  EXPECT_EQ(readme.bound().kind, "overhead");
  const LeadWait readmeWait = leadWait(*readme.program, readme.sim, stallReasons(*readme.program, readme.sim));
  EXPECT_EQ(readme.sim.streams[readmeWait.lead].name, "tensor");
  EXPECT_EQ(readmeWait.waitedFor, "DMA");
  const std::string html = toHtml(readme);
  EXPECT_NE(html.find(">overhead-bound</span>"), std::string::npos);
  EXPECT_NE(html.find("tensor busy 30.0% of the run, waiting"), std::string::npos);
  EXPECT_EQ(html.find(">compute-bound</span>"), std::string::npos); // the roofline may still say which side of the ridge

  const RunReport big = runKernel({.kernel = "matmul",
                                   .target = "tpu-v5e",
                                   .shape = {{"M", 2048}, {"N", 2048}, {"K", 2048}},
                                   .timingOnly = true,
                                   .recordTimeline = true});
  EXPECT_EQ(big.bound().kind, "compute");
  EXPECT_NE(toHtml(big).find(">compute-bound</span>"), std::string::npos);
}

// A long run is drawn per pixel column: 100k+ instructions stay well under 5 MB.
TEST(HtmlReport, LongRunStaysSmall) {
  RunReport r = runKernel({.kernel = "matmul",
                           .target = "trn2",
                           .shape = {{"M", 4096}, {"N", 8192}, {"K", 12288}},
                           .timingOnly = true,
                           .checks = false,
                           .recordTimeline = true});
  ASSERT_GE(r.sim.timeline.size(), 100000u);
  const std::string html = toHtml(r);
  EXPECT_EQ(attributeOf(html, "timeline-svg", "data-mode"), "aggregated");
  EXPECT_LT(html.size(), 5u << 20);
  EXPECT_DOUBLE_EQ(numberOf(html, "time-us", "data-value"), r.timeUs());
}

TEST(AtomicFile, UnwritablePathIsNamedAndNothingIsLeft) {
  TempDir dir;
  const fs::path path = dir.path / "missing-folder" / "report.html";
  try {
    AtomicFile file(path);
    FAIL() << "expected an InputError";
  } catch (const InputError &e) {
    EXPECT_NE(std::string(e.what()).find(path.string()), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(dir.path / "missing-folder"));
}

/// An RGB image decoded with libpng.
struct Image {
  unsigned width = 0, height = 0;
  std::vector<uint8_t> rgb;
};

Image readPng(const fs::path &file) {
  png_image image{};
  image.version = PNG_IMAGE_VERSION;
  Image out;
  if (!png_image_begin_read_from_file(&image, file.c_str())) {
    ADD_FAILURE() << "cannot read " << file << ": " << image.message;
    return out;
  }
  image.format = PNG_FORMAT_RGB;
  out.width = image.width, out.height = image.height;
  out.rgb.resize(PNG_IMAGE_SIZE(image));
  if (!png_image_finish_read(&image, nullptr, out.rgb.data(), 0, nullptr)) {
    ADD_FAILURE() << "cannot decode " << file << ": " << image.message;
    out = {};
  }
  return out;
}

/// Pixels within `tolerance` (per channel) of `colour` (0xRRGGBB).
size_t pixelsNear(const Image &img, uint32_t colour, int tolerance = 6) {
  size_t n = 0;
  for (size_t i = 0; i + 2 < img.rgb.size(); i += 3)
    n += std::abs(img.rgb[i] - int(colour >> 16 & 255)) <= tolerance &&
         std::abs(img.rgb[i + 1] - int(colour >> 8 & 255)) <= tolerance &&
         std::abs(img.rgb[i + 2] - int(colour & 255)) <= tolerance;
  return n;
}

/// Headless Chromium (Debian's `chromium`, which scripts/install-deps.sh installs) renders `html`: the screenshot
/// must show a page with charts, not a blank or an error page.
void expectChromiumDraws(const std::string &html, const std::string &name) {
  std::string chromium;
  for (const char *candidate : {"chromium", "chromium-browser", "google-chrome"})
    if (std::system(fmt::format("command -v {} >/dev/null 2>&1", candidate).c_str()) == 0) {
      chromium = candidate;
      break;
    }
  ASSERT_FALSE(chromium.empty()) << "headless Chromium is needed to check the report renders: install Debian's "
                                    "`chromium` package (scripts/install-deps.sh does)";
  TempDir dir;
  const fs::path page = dir.path / (name + ".html"), shot = dir.path / (name + ".png"), log = dir.path / "chromium.log";
  std::ofstream(page) << html;
  const std::string command = fmt::format(
      "timeout 120 {} --headless --no-sandbox --disable-gpu --hide-scrollbars --user-data-dir='{}' "
      "--screenshot='{}' --window-size=1280,2000 'file://{}' >'{}' 2>&1",
      chromium, (dir.path / "profile").string(), shot.string(), page.string(), log.string());
  const int status = std::system(command.c_str());
  ASSERT_EQ(status, 0) << command << "\n" << readFile(log);
  ASSERT_TRUE(fs::exists(shot)) << readFile(log);

  const Image img = readPng(shot);
  ASSERT_EQ(img.width, 1280u);
  ASSERT_GE(img.height, 1000u);
  size_t ink = 0;
  std::set<uint32_t> colours;
  for (size_t i = 0; i + 2 < img.rgb.size(); i += 3) {
    const uint8_t r = img.rgb[i], g = img.rgb[i + 1], b = img.rgb[i + 2];
    ink += r < 245 || g < 245 || b < 245;
    colours.insert((r >> 4) << 8 | (g >> 4) << 4 | (b >> 4));
  }
  const double pixels = double(img.width) * img.height;
  EXPECT_GT(ink / pixels, 0.08) << name << ": the page is nearly blank";
  EXPECT_GT(colours.size(), 40u) << name << ": too few colours for charts";
  // The timeline and the bars draw the matmul and DMA-load colours in solid blocks; the roofline's kernel point
  // and the verdict badge add theirs.
  EXPECT_GT(pixelsNear(img, 0x4e79a7), 2000u) << name << ": no matmul (tensor engine, MXU) colour";
  EXPECT_GT(pixelsNear(img, 0xe15759), 500u) << name << ": no DMA-load colour";
  EXPECT_GT(pixelsNear(img, 0xdafbe1), 200u) << name << ": no green 'ok' badge";
}

TEST(HtmlReport, ChromiumDrawsIt) { expectChromiumDraws(matmulHtml(), "matmul"); }

// A TPU run's page draws as a NeuronCore run's does (issue 24: its MXU instructions were once all "copies /
// gathers", its memory panel SBUF and PSUM charts with nothing in them).
TEST(HtmlReport, ChromiumDrawsATpuRun) {
  const RunReport r = runKernel({.kernel = "matmul",
                                 .target = "tpu-v5e",
                                 .shape = {{"M", 1024}, {"N", 1024}, {"K", 1024}},
                                 .recordTimeline = true});
  ASSERT_TRUE(r.ok);
  const std::string html = toHtml(r);
  EXPECT_NE(html.find("VMEM"), std::string::npos);
  EXPECT_EQ(html.find("SBUF"), std::string::npos);
  expectChromiumDraws(html, "matmul-tpu-v5e");
}

} // namespace
