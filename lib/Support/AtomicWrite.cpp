//===- AtomicWrite.cpp - Output files that are complete or absent ---------===//

#include "neuronc/Support/AtomicWrite.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <cstdlib>

using namespace neuronc;

static bool injectFailure() {
  static const bool inject = [] {
    const char *env = std::getenv("NEURONC_INJECT_WRITE_FAILURE");
    return env && *env == '1';
  }();
  return inject;
}

llvm::Error neuronc::writeFilesAtomically(llvm::ArrayRef<OutputFile> files) {
  std::vector<std::pair<std::string, const OutputFile *>> done; // temporary, file
  auto cleanup = [&] {
    for (auto &[tmp, file] : done)
      llvm::sys::fs::remove(tmp);
  };
  auto failure = [&](const std::string &path, const std::string &reason) {
    cleanup();
    return llvm::createStringError("cannot write " + path + ": " + reason);
  };
  // Devices and pipes (/dev/null, a FIFO) are written in place: there is
  // nothing to rename over, and a temporary beside them would land in /dev.
  std::vector<const OutputFile *> direct;
  for (const OutputFile &f : files) {
    if (f.path == "-")
      continue; // standard output, written last
    llvm::sys::fs::file_status st;
    if (!llvm::sys::fs::status(f.path, st) && llvm::sys::fs::exists(st) &&
        st.type() != llvm::sys::fs::file_type::regular_file &&
        st.type() != llvm::sys::fs::file_type::directory_file) {
      direct.push_back(&f);
      continue;
    }
    size_t n = f.contents.size();
    if (injectFailure() && done.empty())
      n /= 2;
    llvm::SmallString<256> tmp;
    int fd;
    // The temporary is in the target's directory so that the rename cannot
    // cross file systems.
    if (std::error_code ec =
            llvm::sys::fs::createUniqueFile(f.path + ".tmp-%%%%%%%%", fd, tmp))
      return failure(f.path, ec.message());
    done.push_back({tmp.str().str(), &f});
    {
      llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
      os.write(f.contents.data(), n);
      os.close();
      if (os.has_error()) {
        std::string reason = os.error().message();
        os.clear_error();
        return failure(f.path, reason);
      }
    }
    if (n != f.contents.size())
      return failure(f.path, "injected write failure after " + std::to_string(n) + " bytes");
  }
  // Devices before the renames: a failing one (/dev/full) leaves nothing.
  for (const OutputFile *f : direct) {
    std::error_code ec;
    llvm::raw_fd_ostream os(f->path, ec);
    if (!ec) {
      os << f->contents;
      os.close();
      ec = os.error();
      os.clear_error();
    }
    if (ec)
      return failure(f->path, ec.message());
  }
  for (auto &[tmp, file] : done)
    if (std::error_code ec = llvm::sys::fs::rename(tmp, file->path))
      return failure(file->path, ec.message());
  for (const OutputFile &f : files)
    if (f.path == "-") {
      llvm::outs() << f.contents;
      llvm::outs().flush();
    }
  return llvm::Error::success();
}
