//===- IsaDescriptionTest.cpp - The dialect and Isa.def describe one ISA --===//
//
// Each nisa instruction op declares how its attributes fill its executable
// record (NisaOps.td, `record*`), and Isa.def says how many operands that
// record carries. The generic encoder trusts both; these tests fail when an
// op and its Isa.def row drift apart.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Dialect/Nisa/NisaOps.h"
#include "neuronc/ISA/Isa.h"
#include "neuronc/Pipelines/Registration.h"

#include "mlir/IR/MLIRContext.h"

#include "llvm/ADT/STLExtras.h"

#include <gtest/gtest.h>

using namespace mlir;
using neuronc::isa::Opcode;

namespace {

class IsaDescription : public ::testing::Test {
protected:
  IsaDescription() {
    DialectRegistry registry;
    neuronc::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// The registered nisa ops that are instructions.
  llvm::SmallVector<RegisteredOperationName> instructions() {
    llvm::SmallVector<RegisteredOperationName> ops;
    for (RegisteredOperationName name : context.getRegisteredOperations())
      if (name.getDialectNamespace() == "nisa" &&
          name.hasInterface<nisa::InstructionOpInterface>())
        ops.push_back(name);
    return ops;
  }

  MLIRContext context;
};

TEST_F(IsaDescription, EveryOpcodeHasAnOpAndEveryInstructionOpAnOpcode) {
  llvm::SmallVector<RegisteredOperationName> ops = instructions();
  EXPECT_EQ(ops.size(), neuronc::isa::kLastOpcode);
  for (RegisteredOperationName name : ops)
    EXPECT_TRUE(neuronc::isa::symbolizeOpcode(name.stripDialect()))
        << name.getStringRef().str() << " has no Isa.def row";
  for (uint8_t v = 1; v <= neuronc::isa::kLastOpcode; ++v) {
    std::string mnemonic = ("nisa." + neuronc::isa::opcodeName(static_cast<Opcode>(v))).str();
    EXPECT_TRUE(RegisteredOperationName::lookup(mnemonic, &context))
        << "Isa.def opcode " << int(v) << " has no op " << mnemonic;
  }
}

TEST_F(IsaDescription, RecordOperandsAgreeWithIsaDef) {
  for (RegisteredOperationName name : instructions()) {
    std::optional<Opcode> opcode = neuronc::isa::symbolizeOpcode(name.stripDialect());
    ASSERT_TRUE(opcode);
    const nisa::RecordEncoding &enc =
        name.getInterface<nisa::InstructionOpInterface>()->getRecordEncoding();
    int fixed = 0, optional = 0;
    for (llvm::StringRef spec : enc.operands)
      ++(spec.ends_with("?") ? optional : fixed);
    std::string op = name.getStringRef().str();
    if (*opcode == Opcode::DmaCopy) {
      // Its operands live in the descriptor table: dst, src and the index.
      EXPECT_EQ(neuronc::isa::operandCount(*opcode, 0), 0) << op;
      EXPECT_EQ(fixed, 2) << op;
      EXPECT_EQ(optional, 1) << op;
      continue;
    }
    EXPECT_EQ(fixed, neuronc::isa::operandCount(*opcode, 0)) << op;
    EXPECT_EQ(optional, llvm::popcount(neuronc::isa::optionalFlagsOf(*opcode))) << op;
  }
}

TEST_F(IsaDescription, RecordFieldsNameAttributesOfTheOp) {
  for (RegisteredOperationName name : instructions()) {
    const nisa::RecordEncoding &enc =
        name.getInterface<nisa::InstructionOpInterface>()->getRecordEncoding();
    llvm::ArrayRef<StringAttr> attrs = name.getAttributeNames();
    auto has = [&](llvm::StringRef a) {
      return llvm::any_of(attrs, [&](StringAttr n) { return n.getValue() == a; });
    };
    std::string op = name.getStringRef().str();
    for (llvm::StringRef spec : enc.operands) {
      spec.consume_back("?");
      EXPECT_TRUE(has(spec) && has((spec + "_ap").str())) << op << " operand " << spec.str();
    }
    for (llvm::StringRef spec : enc.immediates)
      EXPECT_TRUE(has(spec.split('=').first)) << op << " immediate " << spec.str();
    for (llvm::StringRef p : enc.params)
      EXPECT_TRUE(has(p)) << op << " parameter " << p.str();
    for (auto [a, flag] : enc.flags)
      EXPECT_TRUE(has(a) && flag) << op << " flag " << a.str();
  }
}

} // namespace
