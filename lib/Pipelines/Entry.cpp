//===- Entry.cpp - Choosing the function to compile or run ---------------===//

#include "neuronc/Pipelines/Entry.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;

namespace {
std::string listNames(ArrayRef<func::FuncOp> funcs) {
  std::string s;
  for (func::FuncOp f : funcs)
    s += (s.empty() ? "@" : ", @") + f.getSymName().str();
  return s.empty() ? "(none)" : s;
}
} // namespace

SmallVector<func::FuncOp> neuronc::entryCandidates(ModuleOp module) {
  // A dispatcher's bucket functions are its parts, not entry points.
  llvm::DenseSet<StringAttr> buckets;
  module.walk([&](neuron::DispatchOp d) {
    for (Attribute callee : d.getCallees())
      buckets.insert(cast<FlatSymbolRefAttr>(callee).getAttr());
  });
  SmallVector<func::FuncOp> candidates;
  for (auto f : module.getOps<func::FuncOp>()) {
    bool hostMain = f.getSymName() == "main" && f.getNumArguments() == 0;
    if (!f.isExternal() && f.isPublic() && !hostMain && !buckets.contains(f.getSymNameAttr()))
      candidates.push_back(f);
  }
  return candidates;
}

FailureOr<func::FuncOp> neuronc::selectEntry(ModuleOp module, StringRef name) {
  SmallVector<func::FuncOp> all, candidates = entryCandidates(module);
  for (auto f : module.getOps<func::FuncOp>())
    if (!f.isExternal())
      all.push_back(f);
  if (!name.empty()) {
    for (func::FuncOp f : all)
      if (f.getSymName() == name)
        return f;
    return module.emitError("no function named @")
           << name << " in this module; functions with a body: " << listNames(all);
  }
  if (candidates.size() == 1)
    return candidates.front();
  if (candidates.empty())
    return module.emitError("no entry function: expected a public func.func with a body "
                            "(other than a host-side `main` with no arguments); functions: ")
           << listNames(all) << "; pick one with --entry NAME";
  return module.emitError("several functions could be the entry point: ")
         << listNames(candidates) << "; pick one with --entry NAME";
}
