//===- FusionReport.cpp - Why each fusion happened or did not -------------===//

#include "neuronc/Transforms/FusionReport.h"

#include "neuronc/Dialect/Neuron/NeuronDialect.h"

#include "mlir/IR/Builders.h"

using namespace mlir;

namespace neuronc {

namespace {
constexpr llvm::StringLiteral kAttr = "neuron.fusion_decisions";
} // namespace

void recordFusionDecision(func::FuncOp fn, const FusionDecision &d) {
  Builder b(fn.getContext());
  SmallVector<Attribute> absorbed;
  for (Location l : d.absorbed)
    absorbed.push_back(l);
  NamedAttribute fields[] = {
      b.getNamedAttr("kernel", b.getStringAttr(d.kernel)),
      b.getNamedAttr("fused", b.getBoolAttr(d.fused)),
      b.getNamedAttr("reason", b.getStringAttr(d.reason)),
      b.getNamedAttr("loc", d.loc),
      b.getNamedAttr("absorbed", b.getArrayAttr(absorbed)),
      b.getNamedAttr("bytes_saved", b.getI64IntegerAttr(d.bytesSaved)),
  };
  SmallVector<Attribute> all;
  if (auto existing = fn->getAttrOfType<ArrayAttr>(kAttr))
    all.assign(existing.begin(), existing.end());
  all.push_back(b.getDictionaryAttr(fields));
  fn->setAttr(kAttr, b.getArrayAttr(all));
}

SmallVector<FusionDecision> collectFusionDecisions(ModuleOp module) {
  SmallVector<FusionDecision> out;
  module.walk([&](func::FuncOp fn) {
    auto list = fn->getAttrOfType<ArrayAttr>(kAttr);
    if (!list)
      return;
    for (auto dict : list.getAsRange<DictionaryAttr>()) {
      FusionDecision d{dict.getAs<StringAttr>("kernel").str(),
                       dict.getAs<BoolAttr>("fused").getValue(),
                       dict.getAs<StringAttr>("reason").str(),
                       cast<LocationAttr>(dict.get("loc")),
                       {},
                       dict.getAs<IntegerAttr>("bytes_saved").getInt()};
      for (Attribute l : dict.getAs<ArrayAttr>("absorbed"))
        d.absorbed.push_back(cast<LocationAttr>(l));
      out.push_back(std::move(d));
    }
  });
  return out;
}

void clearFusionDecisions(ModuleOp module) {
  module.walk([](func::FuncOp fn) { fn->removeAttr(kAttr); });
}

SmallVector<FusionDecision> takeLoweringSplits(ModuleOp module) {
  SmallVector<FusionDecision> out;
  if (auto list = module->getAttrOfType<ArrayAttr>(mlir::neuron::kLoweringSplitsAttrName))
    for (auto dict : list.getAsRange<DictionaryAttr>()) {
      FusionDecision d{dict.getAs<StringAttr>("kernel").str(), false,
                       dict.getAs<StringAttr>("reason").str(),
                       cast<LocationAttr>(dict.get("loc")), {}, 0};
      d.split = true;
      out.push_back(std::move(d));
    }
  module->removeAttr(mlir::neuron::kLoweringSplitsAttrName);
  return out;
}

std::string formatLocation(Location loc) {
  if (auto file = dyn_cast<FileLineColLoc>(loc))
    return (file.getFilename().getValue() + ":" + Twine(file.getLine()) + ":" +
            Twine(file.getColumn()))
        .str();
  if (auto named = dyn_cast<NameLoc>(loc)) {
    // The op name fusion wraps an absorbed op's location in says nothing the
    // report does not (fusion::fusedLocation).
    if (named.getName().strref().starts_with("neuron."))
      return formatLocation(named.getChildLoc());
    return named.getName().str() + "@" + formatLocation(named.getChildLoc());
  }
  // A fused op is where its last source op was (the one computing its value).
  if (auto fused = dyn_cast<FusedLoc>(loc); fused && !fused.getLocations().empty())
    return formatLocation(fused.getLocations().back());
  std::string s;
  llvm::raw_string_ostream os(s);
  os << loc;
  return s;
}

std::string formatFusionReportText(ArrayRef<FusionDecision> decisions) {
  std::string s;
  llvm::raw_string_ostream os(s);
  int64_t fused = 0, saved = 0, split = 0;
  for (const FusionDecision &d : decisions) {
    if (d.split) {
      ++split;
      os << "split " << d.kernel << " at " << formatLocation(d.loc)
         << ": the lowering runs it as two kernels: " << d.reason << "\n";
    } else if (d.fused) {
      ++fused;
      saved += d.bytesSaved;
      os << "fused " << d.kernel << " at " << formatLocation(d.loc) << ": absorbed "
         << d.absorbed.size() << " ops, saves " << d.bytesSaved << " bytes of HBM traffic\n";
      for (Location l : d.absorbed)
        os << "    " << formatLocation(l) << "\n";
    } else {
      os << "not fused " << d.kernel << " at " << formatLocation(d.loc) << ": " << d.reason
         << "\n";
    }
  }
  os << "fusion: " << fused << " kernel(s) formed, " << decisions.size() - fused - split
     << " candidate(s) rejected, ";
  if (split)
    os << split << " split by the lowering, ";
  os << saved << " bytes saved\n";
  return s;
}

llvm::json::Value formatFusionReportJSON(ArrayRef<FusionDecision> decisions) {
  llvm::json::Array kernels, rejected, split;
  for (const FusionDecision &d : decisions) {
    if (d.split) {
      split.push_back(llvm::json::Object{
          {"kernel", d.kernel}, {"loc", formatLocation(d.loc)}, {"reason", d.reason}});
    } else if (d.fused) {
      llvm::json::Array absorbed;
      for (Location l : d.absorbed)
        absorbed.push_back(formatLocation(l));
      kernels.push_back(llvm::json::Object{{"kernel", d.kernel},
                                           {"loc", formatLocation(d.loc)},
                                           {"absorbed", std::move(absorbed)},
                                           {"bytes_saved", d.bytesSaved}});
    } else {
      rejected.push_back(llvm::json::Object{
          {"kernel", d.kernel}, {"loc", formatLocation(d.loc)}, {"reason", d.reason}});
    }
  }
  return llvm::json::Object{{"kernels", std::move(kernels)},
                            {"rejected", std::move(rejected)},
                            {"split", std::move(split)}};
}

} // namespace neuronc
