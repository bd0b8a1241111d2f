// Every kernel registered in this binary (the library's and the tests' own, which between them call every
// tsr::isa instruction) through the NKI backend on trn1 and trn2, and each module then through
// hw-backends/check/check_nki.py: it compiles and uses only NKI 0.6 names as the API manifest defines them.
// The Pallas side of the library kernels runs under JAX in the backends/pallas/* tests (tests/backends.cmake).

#include "tessera/DeviceCode.h"
#include "tessera/Driver.h"
#include "tessera/dsl/Kernel.h"
#include "tessera/isa/InstructionSet.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>

namespace {

using namespace tessera;
namespace fs = std::filesystem;

TEST(BackendCoverage, EveryRegisteredKernelEmitsNkiThatPassesTheManifestCheck) {
  const fs::path dir = fs::temp_directory_path() / ("tessera-nki-coverage-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  size_t emitted = 0;
  std::vector<std::string> refused;
  std::set<isa::Opcode> covered;
  for (const tsr::KernelInfo *kernel : tsr::Registry::instance().all()) {
    for (const char *target : {"trn1", "trn2"}) {
      driver::RunRequest request{.kernel = kernel->name, .target = target};
      request.compile.recordProvenance = true;
      std::optional<driver::CompiledKernel> k;
      try {
        k = driver::compileKernel(request);
      } catch (const Error &e) { // e.g. a NeuronCore-v3 instruction on trn1: refused before any backend runs
        refused.push_back(kernel->name + " on " + target + ": " + e.message());
        continue;
      }
      const std::string code = driver::emitDeviceCode(
          driver::kernelSource(*k->kernel, k->params, k->target, k->compiled.program, k->compiled.provenance,
                               &k->compiled.tileProgram,
                               "test"),
          "nki");
      std::ofstream(dir / (kernel->name + "_" + target + ".py")) << code;
      ++emitted;
      for (const isa::Stream &stream : k->compiled.program.streams)
        for (const isa::Instruction &inst : stream.instructions) covered.insert(inst.op);
    }
  }
  EXPECT_GE(emitted, tsr::Registry::instance().all().size()) << "fewer modules than kernels";
  for (const isa::InstructionDef &def : isa::instructionSet()) // every NeuronCore instruction is emitted somewhere
    if (isa::runsOnFamily(def, "neuroncore")) EXPECT_TRUE(covered.count(def.op)) << def.name << " is in no kernel";
  const std::string command = "python3 '" TESSERA_SOURCE_DIR "/hw-backends/check/check_nki.py' '" + dir.string() +
                              "'/*.py > '" + (dir / "check.log").string() + "' 2>&1";
  const int status = std::system(command.c_str());
  std::ifstream log(dir / "check.log");
  const std::string output((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
  EXPECT_EQ(status, 0) << output;
  EXPECT_NE(output.find("use only NKI 0.6.0 names"), std::string::npos) << output;
  for (const std::string &r : refused) EXPECT_NE(r.find("on trn1"), std::string::npos) << r; // only v3+ on trn1
  fs::remove_all(dir);
}

TEST(BackendCoverage, TheNkiTableOfDocsBackendsNamesEveryNeuronCoreInstruction) {
  std::ifstream in(TESSERA_SOURCE_DIR "/docs/backends.md");
  const std::string doc((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(doc.empty());
  for (const isa::InstructionDef &def : isa::instructionSet()) {
    if (!isa::runsOnFamily(def, "neuroncore")) continue;
    EXPECT_NE(doc.find("`" + std::string(def.name) + "`"), std::string::npos) << def.name << " is not in the table";
    std::string call(def.nki); // nki.isa.tensor_scalar -> nisa.tensor_scalar
    if (call.starts_with("nki.isa.")) call = "nisa." + call.substr(8);
    if (call.starts_with("nki.language.")) call = "nl." + call.substr(13);
    EXPECT_NE(doc.find(call + "("), std::string::npos) << call << " is not in the table";
  }
}

} // namespace
