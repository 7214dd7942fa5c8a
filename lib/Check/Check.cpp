//===- Check.cpp - Checked runs: the simulator against the interpreter ----===//

#include "neuronc/Check/Check.h"

#include "neuronc/Dialect/Neuron/NeuronOps.h"
#include "neuronc/Dialect/Nisa/NisaOps.h"
#include "neuronc/Interpreter/Interpreter.h"
#include "neuronc/Pipelines/Registration.h"
#include "neuronc/Simulator/Simulator.h"
#include "neuronc/Conversion/NisaToNeff.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"

#include <cmath>
#include <map>

using namespace mlir;
using namespace neuronc;
using namespace neuronc::check;

namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

/// Per kernel of a lowered program, in order: the HBM tensors it writes.
struct KernelWrites {
  std::string name;
  SmallVector<std::string> tensors;
};

SmallVector<KernelWrites> kernelWrites(nisa::ProgramOp program) {
  SmallVector<KernelWrites> out;
  nisa::MemoryResolver resolver(program);
  for (nisa::KernelOp kernel : program.getBodyBlock().getOps<nisa::KernelOp>()) {
    KernelWrites k{kernel.getSymName().str(), {}};
    resolver.walkAccesses(kernel, [&](nisa::InstructionOpInterface, const nisa::MemoryAccess &a,
                                      Operation *decl) {
      if (auto hbm = dyn_cast_or_null<nisa::HbmOp>(decl); hbm && a.write)
        if (!llvm::is_contained(k.tensors, hbm.getSymName()))
          k.tensors.push_back(hbm.getSymName().str());
      return WalkResult::advance();
    });
    out.push_back(std::move(k));
  }
  return out;
}

std::string formatDifference(const Difference &d) {
  std::string s;
  llvm::raw_string_ostream os(s);
  if (d.shapeMismatch)
    return "shapes differ";
  os << llvm::format("max abs error %.3g, max rel error %.3g", d.maxAbs, d.maxRel);
  if (d.bad)
    os << ", " << d.bad << " of " << d.total << " elements outside (first: element "
       << d.firstBad << ")";
  return s;
}

} // namespace

Difference neuronc::check::compare(const Tensor &got, const Tensor &want, Tolerance tol) {
  Difference d;
  d.total = want.numel();
  if (got.shape() != want.shape()) {
    d.shapeMismatch = true;
    return d;
  }
  bool bf16 = want.dtype() == DType::BF16 || got.dtype() == DType::BF16;
  bool f16 = want.dtype() == DType::F16 || got.dtype() == DType::F16;
  if (bf16 || f16) {
    tol.rtol = std::max(tol.rtol, kLowPrecisionRtol);
    tol.atol = std::max(tol.atol, bf16 ? kBf16Atol : kF16Atol);
  }
  double scale = 1;
  for (int64_t k = 0; k < d.total; ++k)
    if (std::isfinite(want.get(k)))
      scale = std::max(scale, std::fabs(want.get(k)));
  for (int64_t k = 0; k < d.total; ++k) {
    double g = got.get(k), w = want.get(k);
    bool same;
    if (std::isnan(w) || std::isnan(g)) {
      same = std::isnan(w) && std::isnan(g);
    } else if (std::isinf(w) || std::isinf(g)) {
      same = g == w;
    } else {
      double abs = std::fabs(g - w);
      d.maxAbs = std::max(d.maxAbs, abs);
      if (w != 0)
        d.maxRel = std::max(d.maxRel, abs / std::fabs(w));
      same = abs <= tol.atol * scale + tol.rtol * std::fabs(w);
    }
    if (!same) {
      if (d.firstBad < 0)
        d.firstBad = k;
      ++d.bad;
    }
  }
  return d;
}

bool Report::ok() const {
  // Outputs beyond the tolerance while every kernel agrees on its own
  // inputs are rounding accumulated along the program, not a wrong kernel.
  return simulatorError.empty() && !first &&
         llvm::all_of(fusedOutputs, [](const Difference &d) { return d.ok(); });
}

llvm::Expected<Report> neuronc::check::checkEntry(ModuleOp module, StringRef entry,
                                                  ArrayRef<Tensor> args, const Options &options) {
  Report report;
  report.entry = entry.str();
  report.target = options.backend.target;
  report.tolerance = options.tolerance;

  // The reference: the unfused program, interpreted.
  OwningOpRef<ModuleOp> unfused = module.clone();
  auto unfusedFn = unfused->lookupSymbol<func::FuncOp>(entry);
  if (!unfusedFn)
    return fail("no function @" + entry);
  FailureOr<SmallVector<Tensor>> want = interpret(unfusedFn, args);
  if (failed(want))
    return fail("the interpreter cannot run @" + entry + " (see the error above)");

  // Sharding comes first, as in neuronc's fused stage.
  report.cores = options.tp;
  if (options.tp > 1 && failed(shardModule(module, options.tp, options.sequenceParallel)))
    return fail("sharding @" + entry + " over " + llvm::Twine(options.tp) +
                " cores failed (see the error above)");
  if (options.prepackWeights && failed(prepackWeights(module)))
    return fail("prepacking the weights failed (see the error above)");
  if (options.fuse && failed(fuseModule(module)))
    return fail("fusion failed (see the error above)");
  auto fn = module.lookupSymbol<func::FuncOp>(entry);
  if (!fn || !fn.getOps<neuron::DispatchOp>().empty())
    return fail("--check runs static programs; @" + entry +
                " is bucketed (check one bucket's function with --entry)");
  // Number the entry's ops: each internal tensor will say whose value it is.
  int64_t numbered = 0;
  for (Operation &op : fn.getBody().front().without_terminator())
    op.setAttr(nisa::kValueIdAttrName,
               IntegerAttr::get(IntegerType::get(module.getContext(), 64), numbered++));
  OwningOpRef<ModuleOp> fused = module.clone();

  // Lower, keeping each kernel's remark.
  std::map<std::string, std::string> remarks; // location -> remark
  BackendOptions backend = options.backend;
  backend.remarks = true;
  backend.distinctScratch = true;
  backend.forwardStores = options.fuse;
  backend.prefetchLoads = options.fuse;
  backend.foldCopies = options.fuse;
  LogicalResult lowered = success();
  {
    ScopedDiagnosticHandler handler(module.getContext(), [&](Diagnostic &d) {
      if (d.getSeverity() != DiagnosticSeverity::Remark)
        return failure(); // errors go on to the caller's handler
      std::string &r = remarks[formatSourceLocation(d.getLocation())];
      r += (r.empty() ? "" : "; ") + d.str();
      return success();
    });
    lowered = lowerModule(module, backend);
  }
  if (failed(lowered))
    return fail("@" + entry + " does not compile (see the error above)");
  auto program = module.lookupSymbol<nisa::ProgramOp>(entry);
  if (!program)
    return fail("the lowering made no program @" + entry);
  SmallVector<KernelWrites> writes = kernelWrites(program);
  // Internal tensor -> (op, result) of the value it holds.
  llvm::StringMap<std::pair<int64_t, int64_t>> valueOf;
  for (nisa::HbmOp hbm : program.getBodyBlock().getOps<nisa::HbmOp>())
    if (auto id = hbm->getAttrOfType<DenseI64ArrayAttr>(nisa::kValueIdAttrName))
      valueOf[hbm.getSymName()] = {id[0], id[1]};
  FailureOr<neff::Executable> exe = assemble(module, getVersionString());
  if (failed(exe))
    return fail("@" + entry + " does not assemble (see the error above)");
  const neff::Program *device = nullptr;
  for (const neff::Program &p : exe->programs)
    if (p.name == entry)
      device = &p;
  if (!device)
    return fail("the executable has no program @" + entry);
  for (const neff::Variable *v : device->outputs())
    report.outputTypes.push_back(sim::variableType(*v));

  sim::Options simOptions;
  simOptions.checkReads = true;
  simOptions.keepScratch = true;
  // One job per core of the group (one for an unsharded program), each
  // given the whole arguments: the simulator hands each core its part.
  std::vector<sim::Job> jobs(options.tp);
  for (auto [core, job] : llvm::enumerate(jobs)) {
    job.exe = &*exe;
    job.program = device;
    job.inputs.assign(args.begin(), args.end());
    job.core = static_cast<unsigned>(core);
  }
  llvm::Expected<std::vector<sim::Result>> ran = sim::runChip(jobs, simOptions);
  if (!ran) {
    report.simulatorError = llvm::toString(ran.takeError());
    return report;
  }
  sim::Result *got = &ran->front();
  // Each output as the core that is furthest off computed it (a sharded
  // output: each core's part against that part of the unsharded result).
  std::vector<const neff::Variable *> outVars = device->outputs();
  for (auto [i, w] : llvm::enumerate(*want)) {
    auto expected = [&, &w = w](int64_t rank) {
      return i < outVars.size() ? sim::shardInput(w, *outVars[i], rank, options.tp) : w;
    };
    Difference worst = compare(got->outputs[i], expected(0), options.tolerance);
    for (auto [rank, r] : llvm::enumerate(llvm::drop_begin(*ran))) {
      Difference d = compare(r.outputs[i], expected(rank + 1), options.tolerance);
      if (d.bad > worst.bad || (d.bad == worst.bad && d.maxAbs > worst.maxAbs))
        worst = d;
    }
    report.outputs.push_back(worst);
  }

  // Every kernel's result against the interpreter's value of the op it
  // computes, evaluated on the simulator's own values of that op's
  // operands: rounding that accumulates along the program (f32 sums over
  // long contractions) does not make a later kernel look wrong, and a
  // wrong kernel is found even when the outputs stay within tolerance.
  auto fusedFn = fused->lookupSymbol<func::FuncOp>(entry);
  // The lowering consumed the entry's ops; the clone has them in order.
  SmallVector<Operation *> ops;
  for (Operation &op : fusedFn.getBody().front().without_terminator())
    ops.push_back(&op);
  std::vector<const neff::Variable *> outs = device->outputs();
  // The simulator's value of (op, result), and the tensor and kernel that hold it.
  struct SimValue {
    Tensor tensor;
    std::string variable, kernel;
  };
  std::map<std::pair<int64_t, int64_t>, SimValue> simValues;
  llvm::StringMap<std::string> writerOf;
  for (const KernelWrites &k : writes)
    for (const std::string &t : k.tensors)
      writerOf.try_emplace(t, k.name);
  for (const neff::Variable &v : device->variables) {
    auto it = valueOf.find(v.name);
    if (v.kind != neff::VarKind::Internal || it == valueOf.end() || !writerOf.count(v.name))
      continue;
    simValues[it->second] = {sim::decodeOutput(got->scratch.data() + v.offset, v), v.name,
                             writerOf.lookup(v.name)};
  }
  auto ret = cast<func::ReturnOp>(fusedFn.getBody().front().getTerminator());
  for (auto [i, v] : llvm::enumerate(ret.getOperands())) {
    auto r = dyn_cast<OpResult>(v);
    if (!r || i >= outs.size())
      continue;
    auto id = r.getOwner()->getAttrOfType<IntegerAttr>(nisa::kValueIdAttrName);
    if (id && writerOf.count(outs[i]->name))
      simValues[{id.getInt(), r.getResultNumber()}] = {got->outputs[i], outs[i]->name,
                                                       writerOf.lookup(outs[i]->name)};
  }
  auto kernelInfo = [&](StringRef name) -> const neff::Kernel * {
    for (const neff::Kernel &k : device->kernels)
      if (k.name == name)
        return &k;
    return nullptr;
  };
  llvm::DenseMap<Value, Tensor> local;
  // Core 0's arguments: its part of each sharded one.
  SmallVector<Tensor> coreArgs(args.begin(), args.end());
  std::vector<const neff::Variable *> ins = device->inputs();
  for (auto [i, t] : llvm::enumerate(coreArgs))
    if (i < ins.size())
      t = sim::shardInput(t, *ins[i], /*rank=*/0, options.tp);
  for (auto [arg, t] : llvm::zip(fusedFn.getArguments(), deviceArguments(fusedFn, coreArgs)))
    local[arg] = t;
  for (auto [index, op] : llvm::enumerate(ops)) {
    SmallVector<Tensor> operands;
    for (Value v : op->getOperands())
      operands.push_back(local.lookup(v));
    if (mlir::isa<neuron::AllReduceOp, neuron::AllGatherOp, neuron::ReduceScatterOp,
                  neuron::AllToAllOp, neuron::SendRecvOp>(op)) {
      // The sum over the cores is the simulator's to give: core 0's value
      // goes on (the outputs check the sums against the unsharded program).
      auto sv = simValues.find({static_cast<int64_t>(index), 0});
      if (sv == simValues.end())
        break; // no kernel after it can be checked on its own inputs
      local[op->getResult(0)] = sv->second.tensor;
      continue;
    }
    FailureOr<SmallVector<Tensor>> ref = evaluateOperation(op, operands);
    if (failed(ref))
      return fail("the interpreter cannot evaluate " + op->getName().getStringRef() +
                  " (see the error above)");
    for (auto [r, value] : llvm::enumerate(*ref)) {
      auto sv = simValues.find({static_cast<int64_t>(index), static_cast<int64_t>(r)});
      if (sv == simValues.end()) {
        local[op->getResult(r)] = value;
        continue;
      }
      Difference d = compare(sv->second.tensor, value, options.tolerance);
      local[op->getResult(r)] = sv->second.tensor;
      if (d.ok() || report.first)
        continue;
      Divergence div;
      div.kernel = sv->second.kernel;
      if (const neff::Kernel *info = kernelInfo(div.kernel)) {
        div.kind = info->kind;
        div.source = info->source;
        div.location = info->location;
        div.remark = remarks[info->location];
      }
      div.tensor = sv->second.variable;
      div.value = "result of " + op->getName().getStringRef().str();
      if (std::string l = formatSourceLocation(op->getLoc()); !l.empty())
        div.value += " at " + l;
      for (size_t i = 0; i < outs.size(); ++i)
        if (outs[i]->name == div.tensor)
          div.value = "output #" + std::to_string(i) + ", the " + div.value;
      div.difference = d;
      report.first = div;
    }
  }

  // Fusion's own effect: the fused program, interpreted, against the
  // unfused one.
  // (A sharded program's all-reduces are not the interpreter's to run.)
  if (options.fuse && options.tp <= 1) {
    FailureOr<SmallVector<Tensor>> fusedWant = interpret(fusedFn, args);
    if (failed(fusedWant))
      return fail("the interpreter cannot run the fused @" + entry + " (see the error above)");
    bool changed = false;
    for (auto [f, w] : llvm::zip(*fusedWant, *want)) {
      report.fusedOutputs.push_back(compare(f, w, options.tolerance));
      changed |= !report.fusedOutputs.back().ok();
    }
    if (!changed)
      report.fusedOutputs.clear();
  }
  return report;
}

void neuronc::check::printReport(llvm::raw_ostream &os, const Report &r) {
  os << "check @" << r.entry << " on " << r.target;
  if (r.cores > 1)
    os << ", sharded over " << r.cores << " cores (each core's outputs)";
  os << ": simulator against the interpreter"
     << llvm::format(" (rtol %g, atol %g x max(1, max|expected|))", r.tolerance.rtol,
                     r.tolerance.atol)
     << "\n";
  if (!r.simulatorError.empty()) {
    os << "  the simulator stopped: " << r.simulatorError << "\n";
    os << "check: FAILED\n";
    return;
  }
  for (size_t i = 0; i < r.outputs.size(); ++i) {
    os << "  output #" << i << " " << (i < r.outputTypes.size() ? r.outputTypes[i] : "") << ": "
       << formatDifference(r.outputs[i]);
    if (r.outputs[i].ok())
      os << ": ok\n";
    else if (r.first)
      os << ": WRONG\n";
    else
      os << ": beyond the tolerance, but every kernel agrees with the interpreter on its own "
            "inputs: rounding accumulated along the program\n";
  }
  for (size_t i = 0; i < r.fusedOutputs.size(); ++i)
    if (!r.fusedOutputs[i].ok())
      os << "  fusion changed output #" << i << " (the fused program, interpreted): "
         << formatDifference(r.fusedOutputs[i]) << "\n";
  if (r.first) {
    const Divergence &d = *r.first;
    os << "  first kernel that diverges: @" << d.kernel << " \"" << d.kind << "\" from "
       << d.source;
    if (!d.location.empty())
      os << " at " << d.location;
    os << "\n    writes " << d.tensor << " (" << d.value << "): " << formatDifference(d.difference)
       << "\n";
    if (!d.remark.empty())
      os << "    lowering: " << d.remark << "\n";
  }
  os << (r.ok() ? "check: ok\n" : "check: FAILED\n");
}
