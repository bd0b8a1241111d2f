// Tessera's SCALE-Sim v3 model against SCALE-Sim 3.0.0 itself: every case of tests/unit/systolic/scalesim3/
// (made by its generate.py: SCALE-Sim's configuration, topology and the three reports it wrote) is simulated
// here and its reports must equal SCALE-Sim's byte for byte.

#include "tessera/systolic/scalesim/LayerRun.h"
#include "tessera/systolic/scalesim/Reports.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace fs = std::filesystem;
using namespace tessera::systolic::scalesim;

namespace {

const fs::path kCases = TESSERA_SCALESIM3_CASES;

std::string readText(const fs::path &path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

struct Case {
  std::string name, inputType;
};

std::vector<Case> loadCases() {
  std::vector<Case> cases;
  std::istringstream in(readText(kCases / "cases.csv"));
  std::string line;
  std::getline(in, line); // header
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    size_t comma = line.find(',');
    cases.push_back({line.substr(0, comma), line.substr(comma + 1)});
  }
  return cases;
}

class ScaleSim3 : public testing::TestWithParam<Case> {};

TEST_P(ScaleSim3, ReportsEqualScaleSims) {
  const Case &c = GetParam();
  const fs::path dir = kCases / "cases" / c.name;
  const Config config = readConfig(dir / "scale.cfg");
  const Topology topo = readTopology(dir / "topology.csv", c.inputType);
  std::vector<LayerReport> layers;
  for (const Layer &layer : topo.layers) layers.push_back(simulateLayer(config, layer));
  EXPECT_EQ(computeReportCsv(layers), readText(dir / "COMPUTE_REPORT.csv"));
  EXPECT_EQ(bandwidthReportCsv(layers), readText(dir / "BANDWIDTH_REPORT.csv"));
  EXPECT_EQ(detailedAccessReportCsv(layers), readText(dir / "DETAILED_ACCESS_REPORT.csv"));
}

INSTANTIATE_TEST_SUITE_P(Cases, ScaleSim3, testing::ValuesIn(loadCases()), [](const auto &info) {
  std::string name = info.param.name;
  for (char &ch : name)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return name;
});

} // namespace
