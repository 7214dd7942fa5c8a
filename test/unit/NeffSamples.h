//===- NeffSamples.h - Hand-built executables for the reader tests -*- C++ -*-===//
//
// A small executable exercising every field (one program, a DMA load, an
// activation and a DMA store) and a bucketed variant, shared by the round
// trip tests and the validation tests.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_TEST_UNIT_NEFFSAMPLES_H
#define NEURONC_TEST_UNIT_NEFFSAMPLES_H

#include "neuronc/ISA/Neff.h"

namespace neuronc::testing {

using namespace neuronc::neff;

/// An SBUF tile access: `parts` partitions, `n` elements at byte `offset`.
inline isa::Operand tile(uint32_t parts, int64_t offset, int64_t n, isa::DType t = isa::DType::F32) {
  isa::Operand o;
  o.space = isa::Space::Sbuf;
  o.dtype = t;
  o.partCount = parts;
  o.offset = offset;
  o.rank = 1;
  o.sizes[0] = n;
  o.strides[0] = 1;
  return o;
}

/// An HBM access of variable `var` as rows x cols.
inline isa::Operand hbm(uint32_t var, int64_t rows, int64_t cols) {
  isa::Operand o;
  o.space = isa::Space::Hbm;
  o.var = var;
  o.rank = 2;
  o.sizes = {rows, cols};
  o.strides = {cols, 1};
  return o;
}

/// trn1, program f: x (128x64 f32) -> exp -> y, a constant and a scratch tensor.
inline Executable sample() {
  Executable exe;
  exe.target = "trn1";
  exe.compiler = "neuronc test";
  exe.constants = {1, 2, 3, 4, 0, 0, 128, 63};
  Program p;
  p.name = "f";
  p.target = "trn1";
  p.scratchBytes = 4096;
  p.variables = {{"x", VarKind::Input, isa::DType::F32, {128, 64}, 0, 0},
                 {"y", VarKind::Output, isa::DType::F32, {128, 64}, 0, 0},
                 {"c", VarKind::Const, isa::DType::F32, {2}, 0, 0},
                 {"t", VarKind::Internal, isa::DType::BF16, {16, 16}, 0, 512}};
  Kernel k;
  k.name = "k0";
  k.kind = "exp";
  k.source = "neuron.exp";
  k.location = "model.mlir:3:5";
  k.absorbed = {{"neuron.mul", "model.mlir:2:5"}, {"aten::exp", "model.mlir:3:5"}};
  k.cost.instructions = {0, 1, 0, 0};
  k.cost.cycles = {0, 64, 0, 0};
  k.cost.dmaCount = 2;
  k.cost.hbmReadBytes = 32768;
  p.kernels = {k};
  p.debug = {{0, "aten::exp", "model.mlir:3:5"}};
  isa::Instruction load;
  load.opcode = isa::Opcode::DmaCopy;
  load.engine = isa::Engine::dma;
  load.queue = 2;
  load.flags = isa::kSignal;
  load.operands = {tile(128, 0, 64), hbm(0, 128, 64)};
  load.params[0] = 0;
  p.dma.push_back({load.operands[0], load.operands[1], false, {}, 0, 0});
  isa::Instruction act;
  act.opcode = isa::Opcode::Activation;
  act.engine = isa::Engine::scalar;
  act.func = static_cast<uint8_t>(isa::ActFunc::exp);
  act.flags = isa::kSignal | isa::kHasBias;
  act.imm0 = 0.5f;
  act.waits = {{6, 1}};
  act.operands = {tile(128, 256, 64), tile(128, 0, 64), tile(128, 512, 1)};
  isa::Instruction store = load;
  store.queue = 3;
  store.flags = 0;
  store.waits = {{1, 1}};
  store.operands = {hbm(1, 128, 64), tile(128, 256, 64)};
  store.params[0] = 1;
  p.dma.push_back({store.operands[0], store.operands[1], false, {}, 0, 0});
  p.streams[6].push_back(load);
  p.streams[1].push_back(act);
  p.streams[7].push_back(store);
  exe.programs.push_back(p);
  exe.entries.push_back({"f", {}, {{0, {}}}});
  return exe;
}

/// A bucketed entry point: seq is dim 0 of the input and the output.
inline Executable bucketed(int64_t bucketSize) {
  Executable exe = sample();
  EntryPoint &e = exe.entries.front();
  e.signature.symbols = {"seq"};
  e.signature.inputs = {{neuronc::symbolDim(0), 64}};
  e.signature.outputs = {{neuronc::symbolDim(0), 64}};
  e.signature.work = {{2.5, {1}}};
  e.signature.buckets = {{bucketSize}};
  e.buckets = {{0, {bucketSize}}};
  exe.requiredFeatures |= kFeatureBuckets;
  return exe;
}

} // namespace neuronc::testing

#endif // NEURONC_TEST_UNIT_NEFFSAMPLES_H
