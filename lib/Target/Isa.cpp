//===- Isa.cpp - The instruction set as the executable encodes it --------===//

#include "neuronc/Target/Isa.h"

#include "llvm/Support/ErrorHandling.h"

using namespace neuronc::isa;

llvm::StringRef neuronc::isa::opcodeName(Opcode op) {
  switch (op) {
  case Opcode::DmaCopy: return "dma_copy";
  case Opcode::LoadStationary: return "load_stationary";
  case Opcode::MultiplyMoving: return "multiply_moving";
  case Opcode::Transpose: return "transpose";
  case Opcode::Activation: return "activation";
  case Opcode::TensorTensor: return "tensor_tensor";
  case Opcode::TensorScalar: return "tensor_scalar";
  case Opcode::ScalarTensorTensor: return "scalar_tensor_tensor";
  case Opcode::TensorReduce: return "tensor_reduce";
  case Opcode::TensorCopy: return "tensor_copy";
  case Opcode::Reciprocal: return "reciprocal";
  case Opcode::Select: return "select";
  case Opcode::BnStats: return "bn_stats";
  case Opcode::BnAggr: return "bn_aggr";
  case Opcode::Iota: return "iota";
  case Opcode::AffineSelect: return "affine_select";
  case Opcode::PartitionReduce: return "partition_reduce";
  case Opcode::Memset: return "memset";
  }
  return "unknown";
}

llvm::ArrayRef<Engine> neuronc::isa::enginesOf(Opcode op) {
  static const Engine dma[] = {Engine::dma};
  static const Engine tensor[] = {Engine::tensor};
  static const Engine scalar[] = {Engine::scalar};
  static const Engine vector[] = {Engine::vector};
  static const Engine gpsimd[] = {Engine::gpsimd};
  static const Engine tensorVector[] = {Engine::tensor, Engine::vector};
  static const Engine vectorGpsimd[] = {Engine::vector, Engine::gpsimd};
  static const Engine any[] = {Engine::vector, Engine::scalar, Engine::gpsimd};
  switch (op) {
  case Opcode::DmaCopy: return dma;
  case Opcode::LoadStationary:
  case Opcode::MultiplyMoving: return tensor;
  case Opcode::Transpose: return tensorVector;
  case Opcode::Activation: return scalar;
  case Opcode::TensorTensor:
  case Opcode::ScalarTensorTensor:
  case Opcode::TensorReduce:
  case Opcode::Select:
  case Opcode::Memset: return vectorGpsimd;
  case Opcode::TensorScalar:
  case Opcode::TensorCopy: return any;
  case Opcode::Reciprocal:
  case Opcode::BnStats:
  case Opcode::BnAggr: return vector;
  case Opcode::Iota:
  case Opcode::AffineSelect:
  case Opcode::PartitionReduce: return gpsimd;
  }
  return {};
}

int64_t neuronc::isa::dtypeBytes(DType t) {
  switch (t) {
  case DType::F32:
  case DType::I32: return 4;
  case DType::BF16:
  case DType::F16: return 2;
  case DType::I1: return 1;
  }
  return 4;
}

llvm::StringRef neuronc::isa::dtypeName(DType t) {
  switch (t) {
  case DType::F32: return "f32";
  case DType::BF16: return "bf16";
  case DType::F16: return "f16";
  case DType::I32: return "i32";
  case DType::I1: return "i1";
  }
  return "?";
}

llvm::StringRef neuronc::isa::spaceName(Space s) {
  switch (s) {
  case Space::Hbm: return "hbm";
  case Space::Sbuf: return "sbuf";
  case Space::Psum: return "psum";
  }
  return "?";
}

int64_t Operand::numElements() const {
  int64_t n = 1;
  for (int d = 0; d < rank; ++d)
    n *= sizes[d];
  return n;
}
