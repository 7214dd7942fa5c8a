//===- Device.cpp - Memories of the simulated core and operand access -----===//

#include "Device.h"

#include "neuronc/Support/Float.h"

#include <climits>
#include <cmath>

using namespace neuronc;
using namespace neuronc::sim;

int32_t neuronc::sim::floatToInt(float v) {
  if (std::isnan(v))
    return 0;
  if (v >= 2147483647.0f)
    return INT32_MAX;
  if (v <= -2147483648.0f)
    return INT32_MIN;
  return static_cast<int32_t>(v);
}

Device::Device(const HardwareModel &hw, const neff::Executable &exe, const neff::Program &program)
    : program(program), sbufStride(hw.sbufPartitionBytes), psumStride(hw.psumPartitionBytes),
      sbufPartitions(hw.partitions) {
  sbuf = allocate(int64_t(hw.partitions) * hw.sbufPartitionBytes);
  psum = allocate(int64_t(hw.partitions) * hw.psumPartitionBytes);
  scratch = allocate(program.scratchBytes);
  for (const neff::Variable &v : program.variables) {
    switch (v.kind) {
    case neff::VarKind::Internal:
      varBase.push_back(scratch + v.offset);
      break;
    case neff::VarKind::Const: {
      uint8_t *c = allocate(v.bytes());
      std::memcpy(c, exe.constants.data() + v.offset, v.bytes());
      varBase.push_back(c);
      break;
    }
    default:
      varBase.push_back(nullptr); // bound, or allocated on first use
      break;
    }
  }
}

uint8_t *Device::allocate(int64_t bytes) {
  owned.push_back(Tensor::empty(DType::I32, {(std::max<int64_t>(bytes, 1) + 3) / 4}));
  uint8_t *p = reinterpret_cast<uint8_t *>(owned.back().i());
  std::memset(p, 0, bytes);
  return p;
}

uint8_t *Device::variable(size_t v) {
  if (!varBase[v])
    varBase[v] = allocate(program.variables[v].bytes());
  return varBase[v];
}

namespace {

template <typename T> T readRaw(const uint8_t *p) {
  T v;
  std::memcpy(&v, p, sizeof(T));
  return v;
}
template <typename T> void writeRaw(uint8_t *p, T v) { std::memcpy(p, &v, sizeof(T)); }

} // namespace

void Device::load(const isa::Operand &o, float *out) {
  isa::DType t = o.dtype;
  forEachRun(o, [&](uint32_t, uint8_t *p, int64_t n, int64_t s) {
    switch (t) {
    case isa::DType::F32:
      if (s == 1)
        std::memcpy(out, p, n * 4);
      else
        for (int64_t i = 0; i < n; ++i)
          out[i] = readRaw<float>(p + i * s * 4);
      break;
    case isa::DType::BF16:
      for (int64_t i = 0; i < n; ++i)
        out[i] = bf16BitsToFloat(readRaw<uint16_t>(p + i * s * 2));
      break;
    case isa::DType::F16:
      for (int64_t i = 0; i < n; ++i)
        out[i] = f16BitsToFloat(readRaw<uint16_t>(p + i * s * 2));
      break;
    case isa::DType::I32:
      for (int64_t i = 0; i < n; ++i)
        out[i] = static_cast<float>(readRaw<int32_t>(p + i * s * 4));
      break;
    case isa::DType::I1:
      for (int64_t i = 0; i < n; ++i)
        out[i] = p[i * s] ? 1.0f : 0.0f;
      break;
    }
    out += n;
  });
}

void Device::load(const isa::Operand &o, int32_t *out) {
  isa::DType t = o.dtype;
  forEachRun(o, [&](uint32_t, uint8_t *p, int64_t n, int64_t s) {
    switch (t) {
    case isa::DType::I32:
      if (s == 1)
        std::memcpy(out, p, n * 4);
      else
        for (int64_t i = 0; i < n; ++i)
          out[i] = readRaw<int32_t>(p + i * s * 4);
      break;
    case isa::DType::I1:
      for (int64_t i = 0; i < n; ++i)
        out[i] = p[i * s] ? 1 : 0;
      break;
    case isa::DType::F32:
      for (int64_t i = 0; i < n; ++i)
        out[i] = floatToInt(readRaw<float>(p + i * s * 4));
      break;
    case isa::DType::BF16:
      for (int64_t i = 0; i < n; ++i)
        out[i] = floatToInt(bf16BitsToFloat(readRaw<uint16_t>(p + i * s * 2)));
      break;
    case isa::DType::F16:
      for (int64_t i = 0; i < n; ++i)
        out[i] = floatToInt(f16BitsToFloat(readRaw<uint16_t>(p + i * s * 2)));
      break;
    }
    out += n;
  });
}

void Device::store(const isa::Operand &o, const float *in) {
  isa::DType t = o.dtype;
  forEachRun(o, [&](uint32_t, uint8_t *p, int64_t n, int64_t s) {
    switch (t) {
    case isa::DType::F32:
      if (s == 1)
        std::memcpy(p, in, n * 4);
      else
        for (int64_t i = 0; i < n; ++i)
          writeRaw<float>(p + i * s * 4, in[i]);
      break;
    case isa::DType::BF16:
      for (int64_t i = 0; i < n; ++i)
        writeRaw<uint16_t>(p + i * s * 2, floatToBF16Bits(in[i]));
      break;
    case isa::DType::F16:
      for (int64_t i = 0; i < n; ++i)
        writeRaw<uint16_t>(p + i * s * 2, floatToF16Bits(in[i]));
      break;
    case isa::DType::I32:
      for (int64_t i = 0; i < n; ++i)
        writeRaw<int32_t>(p + i * s * 4, floatToInt(in[i]));
      break;
    case isa::DType::I1:
      for (int64_t i = 0; i < n; ++i)
        p[i * s] = in[i] != 0.0f;
      break;
    }
    in += n;
  });
}

void Device::store(const isa::Operand &o, const int32_t *in) {
  isa::DType t = o.dtype;
  forEachRun(o, [&](uint32_t, uint8_t *p, int64_t n, int64_t s) {
    for (int64_t i = 0; i < n; ++i) {
      switch (t) {
      case isa::DType::I32:
        writeRaw<int32_t>(p + i * s * 4, in[i]);
        break;
      case isa::DType::I1:
        p[i * s] = in[i] != 0;
        break;
      case isa::DType::F32:
        writeRaw<float>(p + i * s * 4, static_cast<float>(in[i]));
        break;
      case isa::DType::BF16:
        writeRaw<uint16_t>(p + i * s * 2, floatToBF16Bits(static_cast<float>(in[i])));
        break;
      case isa::DType::F16:
        writeRaw<uint16_t>(p + i * s * 2, floatToF16Bits(static_cast<float>(in[i])));
        break;
      }
    }
    in += n;
  });
}

//===----------------------------------------------------------------------===//
// Write tracking
//===----------------------------------------------------------------------===//

void Device::trackWrites(bool everything) {
  trackAll = everything;
  varValid.assign(program.variables.size(), {});
  for (size_t v = 0; v < program.variables.size(); ++v)
    if (program.variables[v].kind == neff::VarKind::Output)
      varValid[v].assign(program.variables[v].bytes(), 0);
  if (!everything)
    return;
  sbufValid.assign(static_cast<size_t>(sbufPartitions) * sbufStride, 0);
  psumValid.assign(static_cast<size_t>(sbufPartitions) * psumStride, 0);
  scratchValid.assign(program.scratchBytes, 0);
}

uint8_t *Device::validOf(const isa::Operand &o, const uint8_t *p) {
  switch (o.space) {
  case isa::Space::Sbuf:
    return sbufValid.empty() ? nullptr : sbufValid.data() + (p - sbuf);
  case isa::Space::Psum:
    return psumValid.empty() ? nullptr : psumValid.data() + (p - psum);
  case isa::Space::Hbm:
    break;
  }
  if (o.var >= varValid.size())
    return nullptr;
  const neff::Variable &v = program.variables[o.var];
  if (!varValid[o.var].empty())
    return varValid[o.var].data() + (p - varBase[o.var]);
  if (v.kind == neff::VarKind::Internal && !scratchValid.empty())
    return scratchValid.data() + v.offset + (p - varBase[o.var]);
  return nullptr;
}

void Device::markWritten(const isa::Operand &o) {
  int64_t esize = isa::dtypeBytes(o.dtype);
  forEachRun(o, [&](uint32_t, uint8_t *p, int64_t n, int64_t s) {
    uint8_t *valid = validOf(o, p);
    if (!valid)
      return;
    if (s == 1) {
      std::memset(valid, 1, n * esize);
      return;
    }
    for (int64_t i = 0; i < n; ++i)
      std::memset(valid + i * s * esize, 1, esize);
  });
}

int64_t Device::unwrittenBytes(const isa::Operand &o) {
  int64_t esize = isa::dtypeBytes(o.dtype), missing = 0;
  forEachRun(o, [&](uint32_t, uint8_t *p, int64_t n, int64_t s) {
    const uint8_t *valid = validOf(o, p);
    if (!valid)
      return;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t b = 0; b < esize; ++b)
        missing += !valid[i * s * esize + b];
  });
  return missing;
}

std::pair<int64_t, int64_t> Device::unwrittenElements(size_t v) const {
  if (v >= varValid.size() || varValid[v].empty())
    return {0, -1};
  const neff::Variable &var = program.variables[v];
  int64_t esize = isa::dtypeBytes(var.dtype), count = 0, first = -1;
  for (int64_t e = 0; e < var.bytes() / esize; ++e)
    for (int64_t b = 0; b < esize; ++b)
      if (!varValid[v][e * esize + b]) {
        if (first < 0)
          first = e;
        ++count;
        break;
      }
  return {count, first};
}
