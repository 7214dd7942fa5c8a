//===- Profiler.cpp - Collecting and exporting a runtime's profile --------===//

#include "neuronc/Profile/Profile.h"
#include "neuronc/Support/AtomicWrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

using namespace neuronc;
using namespace neuronc::profile;

void Profiler::start() {
  savedModes = runtime.config().traceModes;
  runtime.clearHistory();
  runtime.setTraceModes(rt::kTraceAll);
}

void Profiler::stop() { runtime.setTraceModes(savedModes); }

llvm::Expected<Profile> Profiler::collect() {
  // Every queued run gets its device time before anything is exported.
  if (llvm::Error err = runtime.synchronize())
    return std::move(err);
  return analyze(runtime);
}

llvm::Expected<Profile> Profiler::exportTo(llvm::StringRef dir) {
  llvm::Expected<Profile> prof = collect();
  if (!prof)
    return prof.takeError();
  if (std::error_code ec = llvm::sys::fs::create_directories(dir))
    return llvm::createStringError(ec, "cannot create the profile directory " + dir + ": " +
                                           ec.message());
  // All five files or none: a failure leaves an earlier profile in `dir`
  // as it was.
  auto in = [&](llvm::StringRef name) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    return path.str().str();
  };
  if (llvm::Error err = writeFilesAtomically(
          {{in("key_averages.txt"), keyAveragesTable(*prof)},
           {in("summary.json"), llvm::formatv("{0:2}", summaryJson(*prof)).str() + "\n"},
           {in("trace.json"), llvm::formatv("{0}", chromeTrace(*prof)).str() + "\n"},
           {in("report.html"), htmlReport(*prof)},
           {in("instructions.json"),
            llvm::formatv("{0}", instructionTimes(*prof)).str() + "\n"}}))
    return std::move(err);
  return prof;
}
