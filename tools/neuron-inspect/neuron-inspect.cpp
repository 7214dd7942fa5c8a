//===- neuron-inspect.cpp - Look inside an executable ---------------------===//
//
// neuron-inspect model.neff [--disassemble] [--json] [--profile DIR]
// Prints the header, sections, entry points and their buckets, each
// program's variables and instruction counts per engine, and per kernel its
// static roofline bound and the prediction of a replay of the program alone
// without data: its time and the verdict, evidence and hint a profile would
// give (docs/diagnosis.md). With a profile of the
// same executable (neuron-run --profile DIR), the disassembly shows each
// instruction's measured start, duration and semaphore wait.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Inspect.h"
#include "neuronc/Profile/Profile.h"
#include "neuronc/Support/Version.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"
#include "neuronc/ISA/Roofline.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/raw_ostream.h"

#include <array>
#include <map>

using namespace neuronc;
namespace cl = llvm::cl;

static cl::OptionCategory category("neuron-inspect options");
static cl::opt<std::string> inputFilename(cl::Positional, cl::desc("<executable .neff>"),
                                          cl::Required, cl::cat(category));
static cl::opt<bool> disassemble("disassemble",
                                 cl::desc("List every engine's instructions with their "
                                          "semaphores and source ops"),
                                 cl::cat(category));
static cl::opt<bool> json("json", cl::desc("Print everything as JSON"), cl::cat(category));
static cl::opt<std::string> profilePath(
    "profile",
    cl::desc("Annotate the disassembly with the measured times of a profile of this executable "
             "(the directory neuron-run --profile wrote, or its instructions.json); implies "
             "--disassemble"),
    cl::value_desc("DIR"), cl::cat(category));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::HideUnrelatedOptions({&category});
  cl::SetVersionPrinter([](llvm::raw_ostream &os) {
    os << "neuron-inspect " << getVersionString() << " (executable format "
       << neff::kMajorVersion << "." << neff::kMinorVersion << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv, "neuron-inspect: look inside a neuronc executable\n");
  std::vector<neff::SectionInfo> sections;
  auto exe = neff::readNeffFile(inputFilename, &sections);
  if (!exe) {
    llvm::errs() << "neuron-inspect: error: " << llvm::toString(exe.takeError()) << "\n";
    return 1;
  }
  const HardwareModel *hw = lookupHardwareModel(exe->target);
  profile::MeasuredTimes measured;
  if (!profilePath.empty()) {
    auto times = profile::readInstructionTimes(profilePath, *exe);
    if (!times) {
      llvm::errs() << "neuron-inspect: error: " << llvm::toString(times.takeError()) << "\n";
      return 1;
    }
    measured = std::move(*times);
  }
  profile::InspectOptions options;
  options.disassemble = disassemble || !profilePath.empty();
  options.json = json;
  options.measured = profilePath.empty() ? nullptr : &measured;
  profile::printExecutable(llvm::outs(), *exe, sections, *hw, options);
  return 0;
}
