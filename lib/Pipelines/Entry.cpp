//===- Entry.cpp - Choosing the function to compile or run ---------------===//

#include "neuronc/Pipelines/Entry.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
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

bool neuronc::isHostFunction(func::FuncOp f) {
  return f.getSymName() == "main" && f.getNumArguments() == 0;
}

void neuronc::dropUnreferencedHostSymbols(ModuleOp module) {
  // A global may be referenced only by another one: repeat until stable.
  for (bool changed = true; changed;) {
    changed = false;
    for (Operation &op : llvm::make_early_inc_range(module.getBody()->getOperations())) {
      if (!isa<LLVM::GlobalOp, LLVM::LLVMFuncOp, memref::GlobalOp>(op))
        continue;
      if (!SymbolTable::symbolKnownUseEmpty(&op, module))
        continue;
      op.erase();
      changed = true;
    }
  }
}

SmallVector<func::FuncOp> neuronc::entryCandidates(ModuleOp module) {
  // A dispatcher's bucket functions are its parts, not entry points.
  llvm::DenseSet<StringAttr> buckets;
  module.walk([&](neuron::DispatchOp d) {
    for (Attribute callee : d.getCallees())
      buckets.insert(cast<FlatSymbolRefAttr>(callee).getAttr());
  });
  SmallVector<func::FuncOp> candidates;
  for (auto f : module.getOps<func::FuncOp>()) {
    if (!f.isExternal() && f.isPublic() && !isHostFunction(f) &&
        !buckets.contains(f.getSymNameAttr()))
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
