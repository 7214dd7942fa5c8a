//===- Profiler.cpp - Collecting and exporting a runtime's profile --------===//

#include "neuronc/Profile/Profile.h"

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
  // All five files or none: each is rendered, written to a temporary file
  // in `dir`, and only when every one is complete are they renamed into
  // place. A failure removes the temporaries and leaves an earlier profile
  // in `dir` as it was.
  std::vector<std::pair<std::string, std::string>> files = {
      {"key_averages.txt", keyAveragesTable(*prof)},
      {"summary.json", llvm::formatv("{0:2}", summaryJson(*prof)).str() + "\n"},
      {"trace.json", llvm::formatv("{0}", chromeTrace(*prof)).str() + "\n"},
      {"report.html", htmlReport(*prof)},
      {"instructions.json", llvm::formatv("{0}", instructionTimes(*prof)).str() + "\n"}};
  std::vector<std::pair<std::string, std::string>> written; // temporary, final
  auto cleanup = [&] {
    for (auto &[tmp, final] : written)
      llvm::sys::fs::remove(tmp);
  };
  for (auto &[name, text] : files) {
    llvm::SmallString<256> path(dir), tmp;
    llvm::sys::path::append(path, name);
    int fd;
    std::error_code ec = llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%", fd, tmp);
    if (!ec) {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os << text;
      os.close();
      ec = os.error();
      written.push_back({tmp.str().str(), path.str().str()});
    }
    if (ec) {
      cleanup();
      return llvm::createStringError(ec, "cannot write " + path + ": " + ec.message());
    }
  }
  for (auto &[tmp, final] : written)
    if (std::error_code ec = llvm::sys::fs::rename(tmp, final)) {
      cleanup();
      return llvm::createStringError(ec, "cannot write " + final + ": " + ec.message());
    }
  return prof;
}
