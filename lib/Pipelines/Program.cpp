//===- Program.cpp - Loading an input program the way every tool does ----===//

#include "neuronc/Pipelines/Program.h"

#include "neuronc/Pipelines/Pipelines.h"
#include "neuronc/Pipelines/Registration.h"

#include "neuronc/Conversion/OnnxImport.h"

#include "mlir/Support/FileUtilities.h"

using namespace mlir;

namespace {
DialectRegistry allDialects() {
  DialectRegistry registry;
  neuronc::registerAllDialects(registry);
  return registry;
}

/// One ONNX node a location names: its name and op type, from the importer's
/// NameLoc("onnx::OpType", NameLoc("node name", file:index:1)) chain.
struct OnnxNode {
  std::string name, opType;
};

/// The ONNX nodes `loc` names, in order (a fused kernel's location names
/// each op it absorbed), and its first file location.
void onnxNodesOf(Location loc, SmallVectorImpl<OnnxNode> &nodes, FileLineColLoc &file) {
  if (auto fused = dyn_cast<FusedLoc>(loc)) {
    for (Location l : fused.getLocations())
      onnxNodesOf(l, nodes, file);
    return;
  }
  OnnxNode node;
  while (auto name = dyn_cast<NameLoc>(loc)) {
    StringRef n = name.getName().getValue();
    if (n.consume_front("onnx::"))
      node.opType = n.str();
    else
      node.name = n.str(); // the innermost name: the node's, not a pass's
    loc = name.getChildLoc();
  }
  if (auto f = dyn_cast<FileLineColLoc>(loc); f && !file)
    file = f;
  if (node.name.empty() || node.opType == "initializer")
    return;
  if (llvm::none_of(nodes, [&](const OnnxNode &o) { return o.name == node.name; }))
    nodes.push_back(node);
}

/// Prints a diagnostic on an ONNX model: the node number as the line, and,
/// unless the importer's message already does, the ONNX node(s) the op came
/// from by name and op type, which is how a user finds it in the exporter's
/// graph (`/encoder/layers.0/self_attn/MatMul`).
LogicalResult printOnnxDiagnostic(Diagnostic &d) {
  llvm::raw_ostream &os = llvm::errs();
  SmallVector<OnnxNode> nodes;
  FileLineColLoc file;
  onnxNodesOf(d.getLocation(), nodes, file);
  if (file) {
    os << file.getFilename().getValue();
    if (file.getLine())
      os << ":" << file.getLine() << ":" << file.getColumn();
    os << ": ";
  }
  switch (d.getSeverity()) {
  case DiagnosticSeverity::Error: os << "error: "; break;
  case DiagnosticSeverity::Warning: os << "warning: "; break;
  case DiagnosticSeverity::Remark: os << "remark: "; break;
  case DiagnosticSeverity::Note: os << "note: "; break;
  }
  std::string message = d.str();
  if (!nodes.empty() && !StringRef(message).starts_with("ONNX ")) {
    os << "ONNX node '" << nodes[0].name << "'";
    if (!nodes[0].opType.empty())
      os << " (" << nodes[0].opType << ")";
    if (nodes.size() > 1)
      os << " and " << nodes.size() - 1 << " more fused with it";
    os << ": ";
  }
  os << message << "\n";
  return success();
}
} // namespace

neuronc::Program::Program() : context_(allDialects()) {
  context_.allowUnregisteredDialects();
  context_.printOpOnDiagnostic(false); // the location says where; IR dumps are noise here
}

std::unique_ptr<neuronc::Program> neuronc::Program::load(StringRef filename, StringRef tool) {
  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = openInputFile(filename, &error);
  if (!buffer) {
    llvm::errs() << tool << ": error: " << error << "\n";
    return nullptr;
  }
  return parse(std::move(buffer));
}

std::unique_ptr<neuronc::Program>
neuronc::Program::parse(std::unique_ptr<llvm::MemoryBuffer> buffer) {
  std::unique_ptr<Program> program(new Program());
  if (isOnnxBuffer(*buffer)) {
    // A binary model: locations are node numbers, with no line to quote.
    program->diagnostics_ =
        std::make_unique<ScopedDiagnosticHandler>(&program->context_, printOnnxDiagnostic);
    program->module_ = importOnnx(*buffer, &program->context_);
    program->sourceMgr_.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
    if (!program->module_)
      return nullptr;
    return program;
  }
  program->sourceMgr_.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  program->diagnostics_ =
      std::make_unique<SourceMgrDiagnosticHandler>(program->sourceMgr_, &program->context_);
  program->module_ = parseInput(program->sourceMgr_, &program->context_);
  if (!program->module_)
    return nullptr;
  return program;
}
