//===- Profiler.cpp - Collecting and exporting a runtime's profile --------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/FileSystem.h"
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
  auto write = [&](llvm::StringRef name, llvm::function_ref<void(llvm::raw_ostream &)> body) {
    llvm::SmallString<256> path(dir);
    llvm::sys::path::append(path, name);
    // writeToOutput writes a temporary file and renames it into place.
    return llvm::writeToOutput(path, [&](llvm::raw_ostream &os) {
      body(os);
      return llvm::Error::success();
    });
  };
  if (llvm::Error err = write("key_averages.txt",
                              [&](llvm::raw_ostream &os) { os << keyAveragesTable(*prof); }))
    return std::move(err);
  if (llvm::Error err = write("summary.json", [&](llvm::raw_ostream &os) {
        os << llvm::formatv("{0:2}", summaryJson(*prof)) << "\n";
      }))
    return std::move(err);
  if (llvm::Error err =
          write("trace.json", [&](llvm::raw_ostream &os) { os << chromeTrace(*prof) << "\n"; }))
    return std::move(err);
  if (llvm::Error err =
          write("report.html", [&](llvm::raw_ostream &os) { os << htmlReport(*prof); }))
    return std::move(err);
  if (llvm::Error err = write("instructions.json", [&](llvm::raw_ostream &os) {
        os << instructionTimes(*prof) << "\n";
      }))
    return std::move(err);
  return prof;
}
