//===- Execute.cpp - What each instruction computes -----------------------===//
//
// One function per instruction kind over operands loaded into f32 (or i32)
// buffers in pattern order, partition-major. Semantics follow the nisa op
// descriptions (dialects/NisaOps.td) and match the reference kernels' per
// element formulas (shared in neuronc/Support/Activations.h); accumulation
// is in f32, as the device does it.
//
//===----------------------------------------------------------------------===//

#include "Execute.h"

#include "neuronc/Support/Activations.h"
#include "neuronc/Support/IntegerOps.h"

#include "llvm/ADT/bit.h"

#include <algorithm>
#include <cmath>

using namespace neuronc;
using namespace neuronc::sim;
using isa::AluOp;
using isa::Opcode;

namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

inline float alu(AluOp op, float a, float b) {
  switch (op) {
  case AluOp::bypass: return a;
  case AluOp::add: return a + b;
  case AluOp::subtract: return a - b;
  case AluOp::multiply: return a * b;
  case AluOp::divide: return a / b;
  case AluOp::max: return std::isnan(a) || a > b ? a : b;
  case AluOp::min: return std::isnan(a) || a < b ? a : b;
  case AluOp::pow: return std::pow(a, b);
  case AluOp::is_equal: return a == b ? 1.0f : 0.0f;
  case AluOp::is_lt: return a < b ? 1.0f : 0.0f;
  case AluOp::is_le: return a <= b ? 1.0f : 0.0f;
  case AluOp::is_gt: return a > b ? 1.0f : 0.0f;
  case AluOp::is_ge: return a >= b ? 1.0f : 0.0f;
  default: break;
  }
  // Bitwise ops and shifts see an f32 operand's bits (the lowering only
  // emits them on integer tiles).
  int32_t ia = llvm::bit_cast<int32_t>(a), ib = llvm::bit_cast<int32_t>(b), r = ia;
  switch (op) {
  case AluOp::bitwise_and: r = ia & ib; break;
  case AluOp::bitwise_or: r = ia | ib; break;
  case AluOp::bitwise_xor: r = ia ^ ib; break;
  case AluOp::shift_left: r = shiftLeft(ia, ib); break;
  case AluOp::shift_right_arithmetic: r = shiftRightArithmetic(ia, ib); break;
  case AluOp::shift_right_logical: r = shiftRightLogical(ia, ib); break;
  default: break;
  }
  return llvm::bit_cast<float>(r);
}

/// Integer ALU with the reference kernels' wrap-around arithmetic; false on
/// division by zero.
inline bool alu(AluOp op, int32_t a, int32_t b, int32_t &out) {
  auto u = [](int32_t v) { return static_cast<uint32_t>(v); };
  switch (op) {
  case AluOp::bypass: out = a; return true;
  case AluOp::add: out = int32_t(u(a) + u(b)); return true;
  case AluOp::subtract: out = int32_t(u(a) - u(b)); return true;
  case AluOp::multiply: out = int32_t(u(a) * u(b)); return true;
  case AluOp::divide:
    if (b == 0)
      return false;
    out = b == -1 ? int32_t(0u - u(a)) : a / b;
    return true;
  case AluOp::max: out = std::max(a, b); return true;
  case AluOp::min: out = std::min(a, b); return true;
  case AluOp::pow: out = static_cast<int32_t>(std::pow(double(a), double(b))); return true;
  case AluOp::is_equal: out = a == b; return true;
  case AluOp::is_lt: out = a < b; return true;
  case AluOp::is_le: out = a <= b; return true;
  case AluOp::is_gt: out = a > b; return true;
  case AluOp::is_ge: out = a >= b; return true;
  case AluOp::bitwise_and: out = a & b; return true;
  case AluOp::bitwise_or: out = a | b; return true;
  case AluOp::bitwise_xor: out = a ^ b; return true;
  case AluOp::shift_left: out = shiftLeft(a, b); return true;
  case AluOp::shift_right_arithmetic: out = shiftRightArithmetic(a, b); return true;
  case AluOp::shift_right_logical: out = shiftRightLogical(a, b); return true;
  }
  return true;
}

inline float activate(isa::ActFunc f, float x) {
  switch (f) {
  case isa::ActFunc::copy: return x;
  case isa::ActFunc::exp: return std::exp(x);
  case isa::ActFunc::log: return std::log(x);
  case isa::ActFunc::sqrt: return std::sqrt(x);
  case isa::ActFunc::rsqrt: return 1.0f / std::sqrt(x);
  case isa::ActFunc::reciprocal: return 1.0f / x;
  case isa::ActFunc::tanh: return std::tanh(x);
  case isa::ActFunc::sigmoid: return sigmoidf(x);
  case isa::ActFunc::erf: return std::erf(x);
  case isa::ActFunc::gelu: return geluErf(x);
  case isa::ActFunc::gelu_tanh: return geluTanh(x);
  case isa::ActFunc::silu: return x * sigmoidf(x);
  case isa::ActFunc::square: return x * x;
  case isa::ActFunc::abs: return std::fabs(x);
  case isa::ActFunc::relu: return x > 0.0f ? x : 0.0f;
  case isa::ActFunc::round: return std::nearbyint(x);
  case isa::ActFunc::floor: return std::floor(x);
  case isa::ActFunc::ceil: return std::ceil(x);
  case isa::ActFunc::sin:
    return std::fabs(x) <= isa::kTrigActivationBound ? std::sin(x) : std::nanf("");
  case isa::ActFunc::cos:
    return std::fabs(x) <= isa::kTrigActivationBound ? std::cos(x) : std::nanf("");
  }
  return x;
}

bool isInt(isa::DType t) { return t == isa::DType::I32 || t == isa::DType::I1; }

/// Calls `body(f)` with `f(a, b)` computing `op`: a lambda of its own for
/// the common operations, so loops over it are not a switch per element.
template <typename B> void withAlu(AluOp op, B &&body) {
  switch (op) {
  case AluOp::bypass: return body([](float a, float) { return a; });
  case AluOp::add: return body([](float a, float b) { return a + b; });
  case AluOp::subtract: return body([](float a, float b) { return a - b; });
  case AluOp::multiply: return body([](float a, float b) { return a * b; });
  case AluOp::divide: return body([](float a, float b) { return a / b; });
  case AluOp::max: return body([](float a, float b) { return alu(AluOp::max, a, b); });
  default: return body([op](float a, float b) { return alu(op, a, b); });
  }
}

/// Calls `body(f)` with `f(x)` computing activation function `func`.
template <typename B> void withActivation(isa::ActFunc func, B &&body) {
  switch (func) {
  case isa::ActFunc::copy: return body([](float x) { return x; });
  case isa::ActFunc::square: return body([](float x) { return x * x; });
  case isa::ActFunc::exp: return body([](float x) { return std::exp(x); });
  case isa::ActFunc::rsqrt: return body([](float x) { return 1.0f / std::sqrt(x); });
  default: return body([func](float x) { return activate(func, x); });
  }
}

/// An f32 tile access that is one contiguous run per partition.
bool flatF32(const isa::Operand &o) {
  if (o.dtype != isa::DType::F32 || o.space == isa::Space::Hbm)
    return false;
  int64_t run = 1;
  for (int d = o.rank - 1; d >= 0; --d) {
    if (o.sizes[d] != 1 && o.strides[d] != run)
      return false;
    run *= o.sizes[d];
  }
  return true;
}

/// Two tile accesses that touch the same bytes at different positions (an
/// in-place pass over them would read what it already wrote).
bool overlapsShifted(const isa::Operand &a, const isa::Operand &b) {
  if (a.space != b.space)
    return false;
  if (a.partStart == b.partStart && a.offset == b.offset)
    return false;
  bool parts = a.partStart < b.partStart + b.partCount && b.partStart < a.partStart + a.partCount;
  int64_t ea = a.numElements() * isa::dtypeBytes(a.dtype),
          eb = b.numElements() * isa::dtypeBytes(b.dtype);
  return parts && a.offset < b.offset + eb && b.offset < a.offset + ea;
}


/// Calls `f(partition, indices...)` for every element of a tile pattern in
/// order: the free-dim index of each dim.
template <typename F> void forEachIndex(const isa::Operand &o, F &&f) {
  int64_t idx[isa::kMaxDims] = {};
  int64_t n = 1;
  for (int d = 0; d < o.rank; ++d)
    n *= o.sizes[d];
  for (uint32_t p = 0; p < o.partCount; ++p) {
    std::fill(idx, idx + isa::kMaxDims, 0);
    for (int64_t k = 0; k < n; ++k) {
      f(p, idx);
      for (int d = o.rank - 1; d >= 0; --d) {
        if (++idx[d] < o.sizes[d])
          break;
        idx[d] = 0;
      }
    }
  }
}

} // namespace

llvm::Error Executor::dma(const isa::Instruction &inst) {
  const isa::Operand &dst = inst.operands[0], &src = inst.operands[1];
  int64_t esize = isa::dtypeBytes(src.dtype);
  // Walks both patterns' runs side by side, copying the overlap of the
  // current source and destination runs at a time.
  auto copy = [&](const isa::Operand &to, const isa::Operand &from) -> llvm::Error {
    if (dev.checksReads())
      if (llvm::Error e = checkRead(from, 1))
        return e;
    std::vector<Run> &a = runsFrom, &b = runsTo;
    a.clear();
    b.clear();
    dev.forEachRun(from, [&](uint32_t, uint8_t *p, int64_t n, int64_t st) { a.push_back({p, n, st}); });
    dev.forEachRun(to, [&](uint32_t, uint8_t *p, int64_t n, int64_t st) { b.push_back({p, n, st}); });
    size_t i = 0, j = 0;
    int64_t ia = 0, jb = 0; // elements done in the current runs
    while (i < a.size() && j < b.size()) {
      int64_t n = std::min(a[i].n - ia, b[j].n - jb);
      uint8_t *r = a[i].p + ia * a[i].s * esize, *w = b[j].p + jb * b[j].s * esize;
      if (a[i].s == 1 && b[j].s == 1) {
        std::memmove(w, r, n * esize);
      } else {
        for (int64_t k = 0; k < n; ++k)
          std::memmove(w + k * b[j].s * esize, r + k * a[i].s * esize, esize);
      }
      ia += n;
      jb += n;
      if (ia == a[i].n) {
        ++i;
        ia = 0;
      }
      if (jb == b[j].n) {
        ++j;
        jb = 0;
      }
    }
    dev.markWritten(to);
    return llvm::Error::success();
  };
  if (!inst.has(isa::kIndirect))
    return copy(dst, src);
  // Indirect: each partition row of the tile side moves its HBM offset by
  // index * stride.
  bool toTile = dst.space != isa::Space::Hbm;
  const isa::Operand &tile = toTile ? dst : src;
  const isa::Operand &mem = toTile ? src : dst;
  const isa::Operand &index = inst.operands[2];
  int64_t stride = inst.params[1], bound = inst.params[2];
  if (dev.checksReads())
    if (llvm::Error e = checkRead(index, 2))
      return e;
  int32_t *idx = ibufOf(0, index.totalElements());
  dev.load(index, idx);
  for (uint32_t r = 0; r < tile.partCount; ++r) {
    if (idx[r] < 0 || idx[r] >= bound)
      return fail("gather index " + llvm::Twine(idx[r]) + " (row " + llvm::Twine(r) +
                  ") is outside [0, " + llvm::Twine(bound) + ")");
    isa::Operand row = mem;
    row.offset = mem.offset + r * mem.strides[0] + int64_t(idx[r]) * stride;
    for (int d = 1; d < mem.rank; ++d) {
      row.sizes[d - 1] = mem.sizes[d];
      row.strides[d - 1] = mem.strides[d];
    }
    row.rank = mem.rank - 1;
    isa::Operand part = tile;
    part.partStart = tile.partStart + r;
    part.partCount = 1;
    if (llvm::Error e = toTile ? copy(part, row) : copy(row, part))
      return e;
  }
  return llvm::Error::success();
}

llvm::Error Executor::execute(const isa::Instruction &inst) {
  if (inst.opcode == Opcode::DmaCopy)
    return dma(inst); // checks and marks each side as it copies
  const auto &ops = inst.operands;
  // Destination first; load_stationary only reads; an accumulating
  // multiply_moving reads its accumulator; an activation's accumulator is
  // its last operand and is written.
  bool writesDst = inst.opcode != Opcode::LoadStationary;
  size_t accIndex = inst.opcode == Opcode::Activation && inst.has(isa::kHasAcc)
                        ? ops.size() - 1
                        : ops.size();
  if (dev.checksReads()) {
    for (size_t i = 0; i < ops.size(); ++i) {
      bool read = i != accIndex && (i != 0 || !writesDst ||
                                    (inst.opcode == Opcode::MultiplyMoving &&
                                     !inst.has(isa::kStart)));
      if (read)
        if (llvm::Error e = checkRead(ops[i], i))
          return e;
    }
  }
  if (llvm::Error e = elementwise(inst))
    return e;
  if (writesDst)
    dev.markWritten(ops[0]);
  if (accIndex < ops.size())
    dev.markWritten(ops[accIndex]);
  return llvm::Error::success();
}

llvm::Error Executor::checkRead(const isa::Operand &o, size_t index) {
  int64_t missing = dev.unwrittenBytes(o);
  if (missing == 0)
    return llvm::Error::success();
  std::string where;
  llvm::raw_string_ostream os(where);
  os << isa::spaceName(o.space);
  if (o.space == isa::Space::Hbm)
    os << " variable " << o.var << " elements from " << o.offset;
  else
    os << " partitions " << o.partStart << ":" << o.partStart + o.partCount << " bytes from "
       << o.offset;
  return fail("reads memory nothing wrote: operand #" + llvm::Twine(index) + " (" + where +
              ", " + llvm::Twine(o.bytes()) + " bytes) has " + llvm::Twine(missing) +
              " bytes no earlier instruction wrote");
}

/// Dispatches every non-DMA instruction to its semantics below.
llvm::Error Executor::elementwise(const isa::Instruction &inst) {
  switch (inst.opcode) {
  case Opcode::DmaCopy:
    return llvm::Error::success();
  case Opcode::LoadStationary:
    return loadStationary(inst);
  case Opcode::MultiplyMoving:
    return multiplyMoving(inst);
  case Opcode::Transpose:
    return transpose(inst);
  case Opcode::Activation:
    return activation(inst);
  case Opcode::TensorTensor:
    return tensorTensor(inst);
  case Opcode::TensorScalar:
  case Opcode::ScalarTensorTensor:
    return tensorScalar(inst);
  case Opcode::TensorReduce:
  case Opcode::PartitionReduce:
    return reduce(inst);
  case Opcode::TensorCopy:
    return tensorCopy(inst);
  case Opcode::Reciprocal:
    return reciprocal(inst);
  case Opcode::Select:
    return select(inst);
  case Opcode::BnStats:
    return bnStats(inst);
  case Opcode::BnAggr:
    return bnAggr(inst);
  case Opcode::Iota:
    return iota(inst);
  case Opcode::AffineSelect:
    return affineSelect(inst);
  case Opcode::Memset:
    return memset(inst);
  }
  return llvm::Error::success();
}

float *Executor::scalars(int slot, const isa::Operand *o, float imm, int64_t n) {
  float *s = fbuf(slot, n);
  if (o)
    dev.load(*o, s);
  else
    std::fill(s, s + n, imm);
  return s;
}

/// load_stationary: keeps the stationary matrix.
llvm::Error Executor::loadStationary(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  stationaryK = ops[0].partCount;
  stationaryM = ops[0].numElements();
  stationary.resize(stationaryK * stationaryM);
  dev.load(ops[0], stationary.data());
  return llvm::Error::success();
}

/// multiply_moving: stationaryᵀ · moving into the PSUM accumulator.
llvm::Error Executor::multiplyMoving(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = inst.operands[0];
  int64_t k = ops[1].partCount, n = ops[1].numElements(), m = dst.partCount;
  if (k != stationaryK || m != stationaryM)
    return fail("multiply_moving with K=" + llvm::Twine(k) + ", M=" + llvm::Twine(m) +
                " after a stationary matrix of " + llvm::Twine(stationaryK) + "x" +
                llvm::Twine(stationaryM));
  float *mov = fbuf(1, k * n);
  dev.load(ops[1], mov);
  float *acc = fbuf(0, m * n);
  if (inst.has(isa::kStart))
    std::fill(acc, acc + m * n, 0.0f);
  else
    dev.load(dst, acc);
  for (int64_t i = 0; i < m; ++i) {
    float *row = acc + i * n;
    for (int64_t kk = 0; kk < k; ++kk) {
      float a = stationary[kk * stationaryM + i];
      const float *b = mov + kk * n;
      for (int64_t j = 0; j < n; ++j)
        row[j] += a * b[j];
    }
  }
  dev.store(dst, acc);
  return llvm::Error::success();
}

/// transpose (TensorE or VectorE).
llvm::Error Executor::transpose(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = inst.operands[0];
  int64_t p = ops[1].partCount, f = ops[1].numElements();
  float *src = fbuf(1, p * f), *out = fbuf(0, p * f);
  dev.load(ops[1], src);
  for (int64_t i = 0; i < p; ++i)
    for (int64_t j = 0; j < f; ++j)
      out[j * p + i] = src[i * f + j];
  dev.store(dst, out);
  return llvm::Error::success();
}

/// activation: func(scale * x + bias), with the row sum when accumulating.
llvm::Error Executor::activation(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t total = dst.totalElements();
  int64_t parts = dst.partCount;
  int64_t per = ops[1].numElements();
  if (flatF32(dst) && flatF32(ops[1]) && !overlapsShifted(dst, ops[1])) {
    // In place over the tiles' rows.
    size_t next = 2;
    const isa::Operand *scaleOp = inst.has(isa::kHasScale) ? &ops[next++] : nullptr;
    const isa::Operand *biasOp = inst.has(isa::kHasBias) ? &ops[next++] : nullptr;
    const isa::Operand *accOp = inst.has(isa::kHasAcc) ? &ops[next++] : nullptr;
    float *scale = scalars(2, scaleOp, inst.imm0, parts);
    float *bias = scalars(3, biasOp, inst.imm1, parts);
    float *acc = fbuf(4, parts);
    withActivation(static_cast<isa::ActFunc>(inst.func), [&](auto f) {
      for (int64_t p = 0; p < parts; ++p) {
        const float *x = reinterpret_cast<const float *>(dev.base(ops[1], p));
        float *y = reinterpret_cast<float *>(dev.base(dst, p));
        float sum = 0.0f, sc = scale[p], bi = bias[p];
        for (int64_t j = 0; j < per; ++j) {
          float v = f(x[j] * sc + bi);
          y[j] = v;
          sum += v;
        }
        acc[p] = sum;
      }
    });
    if (accOp)
      dev.store(*accOp, acc);
    return llvm::Error::success();
  }
  float *x = fbuf(1, total);
  dev.load(ops[1], x);
  size_t next = 2;
  const isa::Operand *scaleOp = inst.has(isa::kHasScale) ? &ops[next++] : nullptr;
  const isa::Operand *biasOp = inst.has(isa::kHasBias) ? &ops[next++] : nullptr;
  const isa::Operand *accOp = inst.has(isa::kHasAcc) ? &ops[next++] : nullptr;
  float *scale = scalars(2, scaleOp, inst.imm0, parts);
  float *bias = scalars(3, biasOp, inst.imm1, parts);
  float *acc = fbuf(4, parts);
  auto func = static_cast<isa::ActFunc>(inst.func);
  for (int64_t p = 0; p < parts; ++p) {
    float sum = 0.0f;
    float *v = x + p * per;
    for (int64_t j = 0; j < per; ++j) {
      v[j] = activate(func, v[j] * scale[p] + bias[p]);
      sum += v[j];
    }
    acc[p] = sum;
  }
  dev.store(dst, x);
  if (accOp)
    dev.store(*accOp, acc);
  return llvm::Error::success();
}

/// tensor_tensor: a op b elementwise, in i32 when every operand is integer.
llvm::Error Executor::tensorTensor(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t total = dst.totalElements();
  int64_t parts = dst.partCount;
  bool allInt = llvm::all_of(inst.operands, [](const isa::Operand &o) { return isInt(o.dtype); });
  AluOp op0 = static_cast<AluOp>(inst.func);
  if (allInt) {
    int32_t *a = ibufOf(1, total), *b = ibufOf(2, total), *o = ibufOf(0, total);
    dev.load(ops[1], a);
    dev.load(ops[2], b);
    for (int64_t i = 0; i < total; ++i)
      if (!alu(op0, a[i], b[i], o[i]))
        return fail("integer division by zero");
    dev.store(dst, o);
    return llvm::Error::success();
  }
  if (flatF32(dst) && flatF32(ops[1]) && flatF32(ops[2]) && !overlapsShifted(dst, ops[1]) &&
      !overlapsShifted(dst, ops[2])) {
    int64_t per = dst.numElements();
    withAlu(op0, [&](auto f) {
      for (int64_t p = 0; p < parts; ++p) {
        const float *x = reinterpret_cast<const float *>(dev.base(ops[1], p));
        const float *y = reinterpret_cast<const float *>(dev.base(ops[2], p));
        float *o = reinterpret_cast<float *>(dev.base(dst, p));
        for (int64_t j = 0; j < per; ++j)
          o[j] = f(x[j], y[j]);
      }
    });
    return llvm::Error::success();
  }
  float *a = fbuf(1, total), *b = fbuf(2, total);
  dev.load(ops[1], a);
  dev.load(ops[2], b);
  for (int64_t i = 0; i < total; ++i)
    a[i] = alu(op0, a[i], b[i]);
  dev.store(dst, a);
  return llvm::Error::success();
}

/// tensor_scalar and scalar_tensor_tensor: one or two operations with per-partition scalars.
llvm::Error Executor::tensorScalar(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t total = dst.totalElements();
  int64_t parts = dst.partCount;
  bool allInt = llvm::all_of(inst.operands, [](const isa::Operand &o) { return isInt(o.dtype); });
  AluOp op0 = static_cast<AluOp>(inst.func);
  AluOp op1 = static_cast<AluOp>(inst.op1);
  bool stt = inst.opcode == Opcode::ScalarTensorTensor;
  int64_t per = ops[1].numElements();
  size_t next = 2;
  const isa::Operand *s0 = inst.has(isa::kHasS0) ? &ops[next++] : nullptr;
  const isa::Operand *s1 = !stt && inst.has(isa::kHasS1) ? &ops[next++] : nullptr;
  bool hasOp1 = stt || inst.has(isa::kHasOp1);
  if (allInt) {
    int32_t *x = ibufOf(1, total), *o = ibufOf(0, total);
    int32_t *a = ibufOf(2, parts), *c = ibufOf(3, parts);
    int32_t *rhs = stt ? ibufOf(4, total) : nullptr;
    dev.load(ops[1], x);
    if (stt)
      dev.load(ops.back(), rhs);
    if (s0)
      dev.load(*s0, a);
    else
      std::fill(a, a + parts, floatToInt(inst.imm0));
    if (s1)
      dev.load(*s1, c);
    else
      std::fill(c, c + parts, floatToInt(inst.imm1));
    for (int64_t p = 0; p < parts; ++p)
      for (int64_t j = 0; j < per; ++j) {
        int64_t i = p * per + j;
        int32_t t = 0;
        bool ok = inst.has(isa::kReverse0) ? alu(op0, a[p], x[i], t) : alu(op0, x[i], a[p], t);
        if (ok && hasOp1) {
          int32_t other = stt ? rhs[i] : c[p];
          ok = !stt && inst.has(isa::kReverse1) ? alu(op1, other, t, t) : alu(op1, t, other, t);
        }
        if (!ok)
          return fail("integer division by zero");
        o[i] = t;
      }
    dev.store(dst, o);
    return llvm::Error::success();
  }
  bool rev0 = inst.has(isa::kReverse0), rev1 = inst.has(isa::kReverse1);
  if (flatF32(dst) && flatF32(ops[1]) && !overlapsShifted(dst, ops[1]) &&
      (!stt || (flatF32(ops.back()) && !overlapsShifted(dst, ops.back())))) {
    float *a = scalars(2, s0, inst.imm0, parts);
    float *c = scalars(3, s1, inst.imm1, parts);
    AluOp second = hasOp1 ? op1 : AluOp::bypass;
    withAlu(op0, [&](auto f0) {
      withAlu(second, [&](auto f1) {
        for (int64_t p = 0; p < parts; ++p) {
          const float *x = reinterpret_cast<const float *>(dev.base(ops[1], p));
          const float *r =
              stt ? reinterpret_cast<const float *>(dev.base(ops.back(), p)) : nullptr;
          float *o = reinterpret_cast<float *>(dev.base(dst, p));
          float ap = a[p], cp = c[p];
          for (int64_t j = 0; j < per; ++j) {
            float t = rev0 ? f0(ap, x[j]) : f0(x[j], ap);
            if (stt)
              t = f1(t, r[j]);
            else
              t = rev1 ? f1(cp, t) : f1(t, cp);
            o[j] = t;
          }
        }
      });
    });
    return llvm::Error::success();
  }
  float *x = fbuf(1, total);
  dev.load(ops[1], x);
  float *a = scalars(2, s0, inst.imm0, parts);
  float *c = scalars(3, s1, inst.imm1, parts);
  float *rhs = nullptr;
  if (stt) {
    rhs = fbuf(0, total);
    dev.load(ops.back(), rhs);
  }
  for (int64_t p = 0; p < parts; ++p) {
    float *v = x + p * per;
    for (int64_t j = 0; j < per; ++j) {
      float t = rev0 ? alu(op0, a[p], v[j]) : alu(op0, v[j], a[p]);
      if (stt)
        t = alu(op1, t, rhs[p * per + j]);
      else if (hasOp1)
        t = rev1 ? alu(op1, c[p], t) : alu(op1, t, c[p]);
      v[j] = t;
    }
  }
  dev.store(dst, x);
  return llvm::Error::success();
}

/// tensor_reduce (the innermost free dim) and partition_reduce (across partitions).
llvm::Error Executor::reduce(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = inst.operands[0];
  bool allInt = llvm::all_of(inst.operands, [](const isa::Operand &o) { return isInt(o.dtype); });
  AluOp op0 = static_cast<AluOp>(inst.func);
  const isa::Operand &src = ops[1];
  bool across = inst.opcode == Opcode::PartitionReduce;
  int64_t srcTotal = src.totalElements();
  int64_t last = src.rank ? src.sizes[src.rank - 1] : 1;
  int64_t groups = across ? src.numElements() : srcTotal / last;
  int64_t len = across ? src.partCount : last;
  // Element j of group g: within a row (free axis) or down the partitions.
  auto at = [&](int64_t g, int64_t j) {
    return across ? j * src.numElements() + g : g * last + j;
  };
  if (allInt) {
    int32_t *x = ibufOf(1, srcTotal), *o = ibufOf(0, groups);
    dev.load(src, x);
    for (int64_t g = 0; g < groups; ++g) {
      int32_t acc = x[at(g, 0)];
      for (int64_t j = 1; j < len; ++j)
        alu(op0, acc, x[at(g, j)], acc);
      o[g] = acc;
    }
    dev.store(dst, o);
    return llvm::Error::success();
  }
  float *x = fbuf(1, srcTotal), *o = fbuf(0, groups);
  dev.load(src, x);
  for (int64_t g = 0; g < groups; ++g) {
    float acc = x[at(g, 0)];
    for (int64_t j = 1; j < len; ++j)
      acc = alu(op0, acc, x[at(g, j)]);
    o[g] = acc;
  }
  dev.store(dst, o);
  return llvm::Error::success();
}

/// tensor_copy: converts the element type.
llvm::Error Executor::tensorCopy(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t total = dst.totalElements();
  bool allInt = llvm::all_of(inst.operands, [](const isa::Operand &o) { return isInt(o.dtype); });
  if (allInt) {
    int32_t *x = ibufOf(1, total);
    dev.load(ops[1], x);
    dev.store(dst, x);
    return llvm::Error::success();
  }
  float *x = fbuf(1, total);
  dev.load(ops[1], x);
  dev.store(dst, x);
  return llvm::Error::success();
}

/// reciprocal: 1 / x.
llvm::Error Executor::reciprocal(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t total = dst.totalElements();
  float *x = fbuf(1, total);
  dev.load(ops[1], x);
  for (int64_t i = 0; i < total; ++i)
    x[i] = 1.0f / x[i];
  dev.store(dst, x);
  return llvm::Error::success();
}

/// select: c != 0 ? a : b.
llvm::Error Executor::select(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t total = dst.totalElements();
  bool allInt = llvm::all_of(inst.operands, [](const isa::Operand &o) { return isInt(o.dtype); });
  float *c = fbuf(1, total);
  dev.load(ops[1], c);
  if (allInt || (isInt(ops[2].dtype) && isInt(ops[3].dtype) && isInt(dst.dtype))) {
    int32_t *a = ibufOf(2, total), *b = ibufOf(3, total);
    dev.load(ops[2], a);
    dev.load(ops[3], b);
    for (int64_t i = 0; i < total; ++i)
      a[i] = c[i] != 0.0f ? a[i] : b[i];
    dev.store(dst, a);
    return llvm::Error::success();
  }
  float *a = fbuf(2, total), *b = fbuf(3, total);
  dev.load(ops[2], a);
  dev.load(ops[3], b);
  for (int64_t i = 0; i < total; ++i)
    a[i] = c[i] != 0.0f ? a[i] : b[i];
  dev.store(dst, a);
  return llvm::Error::success();
}

/// bn_stats: count, mean and M2 per partition.
llvm::Error Executor::bnStats(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t parts = dst.partCount;
  int64_t per = ops[1].numElements();
  float *x = fbuf(1, ops[1].totalElements()), *o = fbuf(0, parts * 3);
  dev.load(ops[1], x);
  for (int64_t p = 0; p < parts; ++p) {
    double mean = 0, m2 = 0;
    for (int64_t j = 0; j < per; ++j)
      mean += x[p * per + j];
    mean /= per;
    for (int64_t j = 0; j < per; ++j)
      m2 += (x[p * per + j] - mean) * (x[p * per + j] - mean);
    o[p * 3] = static_cast<float>(per);
    o[p * 3 + 1] = static_cast<float>(mean);
    o[p * 3 + 2] = static_cast<float>(m2);
  }
  dev.store(dst, o);
  return llvm::Error::success();
}

/// bn_aggr: combines bn_stats triples into mean and variance.
llvm::Error Executor::bnAggr(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t parts = dst.partCount;
  int64_t per = ops[1].numElements();
  float *x = fbuf(1, ops[1].totalElements()), *o = fbuf(0, parts * 2);
  dev.load(ops[1], x);
  for (int64_t p = 0; p < parts; ++p) {
    double n = 0, mean = 0;
    const float *t = x + p * per;
    for (int64_t j = 0; j + 2 < per; j += 3) {
      n += t[j];
      mean += double(t[j]) * t[j + 1];
    }
    mean = n ? mean / n : 0;
    double m2 = 0;
    for (int64_t j = 0; j + 2 < per; j += 3)
      m2 += t[j + 2] + t[j] * (t[j + 1] - mean) * (t[j + 1] - mean);
    o[p * 2] = static_cast<float>(mean);
    o[p * 2 + 1] = static_cast<float>(n ? m2 / n : 0);
  }
  dev.store(dst, o);
  return llvm::Error::success();
}

/// iota: base + p * ps + the free-dim steps.
llvm::Error Executor::iota(const isa::Instruction &inst) {
  const isa::Operand &dst = inst.operands[0];
  int64_t total = dst.totalElements();
  int32_t *o = ibufOf(0, total);
  int64_t k = 0;
  forEachIndex(dst, [&](uint32_t p, const int64_t *idx) {
    int64_t v = inst.params[0] + int64_t(dst.partStart + p) * inst.params[1];
    for (int d = 0; d < dst.rank; ++d)
      v += idx[d] * inst.params[2 + d];
    o[k++] = static_cast<int32_t>(v);
  });
  dev.store(dst, o);
  return llvm::Error::success();
}

/// affine_select: keeps src where the affine predicate holds.
llvm::Error Executor::affineSelect(const isa::Instruction &inst) {
  const auto &ops = inst.operands;
  const isa::Operand &dst = ops[0];
  int64_t total = dst.totalElements();
  float *x = fbuf(1, total);
  dev.load(ops[1], x);
  int64_t k = 0;
  auto cmp = static_cast<isa::CmpOp>(inst.func);
  forEachIndex(dst, [&](uint32_t p, const int64_t *idx) {
    int64_t v = inst.params[0] + int64_t(dst.partStart + p) * inst.params[1];
    for (int d = 0; d < dst.rank; ++d)
      v += idx[d] * inst.params[2 + d];
    bool keep = false;
    switch (cmp) {
    case isa::CmpOp::eq: keep = v == 0; break;
    case isa::CmpOp::ne: keep = v != 0; break;
    case isa::CmpOp::lt: keep = v < 0; break;
    case isa::CmpOp::le: keep = v <= 0; break;
    case isa::CmpOp::gt: keep = v > 0; break;
    case isa::CmpOp::ge: keep = v >= 0; break;
    }
    if (!keep)
      x[k] = inst.imm0;
    ++k;
  });
  dev.store(dst, x);
  return llvm::Error::success();
}

/// memset: fills the destination.
llvm::Error Executor::memset(const isa::Instruction &inst) {
  const isa::Operand &dst = inst.operands[0];
  int64_t total = dst.totalElements();
  if (isInt(dst.dtype)) {
    int32_t *o = ibufOf(0, total);
    std::fill(o, o + total, floatToInt(inst.imm0));
    dev.store(dst, o);
    return llvm::Error::success();
  }
  float *o = fbuf(0, total);
  std::fill(o, o + total, inst.imm0);
  dev.store(dst, o);
  return llvm::Error::success();
}

