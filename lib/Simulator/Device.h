//===- Device.h - Memories of the simulated core and operand access -*- C++ -*-===//
//
// HBM (one buffer per bound variable, one scratch area for internal ones),
// SBUF and PSUM as bytes, and the walks an operand's access pattern makes
// over them, converting elements to and from the f32/i32 the engines
// compute in.
//
//===----------------------------------------------------------------------===//

#ifndef NEURONC_LIB_SIMULATOR_DEVICE_H
#define NEURONC_LIB_SIMULATOR_DEVICE_H

#include "neuronc/Host/Tensor.h"
#include "neuronc/ISA/HardwareModel.h"
#include "neuronc/ISA/Neff.h"

#include <cstring>
#include <vector>

namespace neuronc::sim {

/// Device memory of one running program. Memories come from the host
/// tensor pool (recycled, so a run does not page-fault megabytes in) and are
/// zeroed; inputs and outputs may instead be bound to caller memory.
class Device {
public:
  Device(const HardwareModel &hw, const neff::Executable &exe, const neff::Program &program);
  /// The byte of element 0 of `o` on partition `p` (tiles) or of the
  /// variable (HBM, p ignored).
  uint8_t *base(const isa::Operand &o, uint32_t p) {
    if (o.space == isa::Space::Hbm)
      return varBase[o.var] + o.offset * isa::dtypeBytes(o.dtype);
    uint8_t *mem = o.space == isa::Space::Sbuf ? sbuf : psum;
    size_t stride = o.space == isa::Space::Sbuf ? sbufStride : psumStride;
    return mem + (o.partStart + p) * stride + o.offset;
  }
  /// The scratch area internal variables live in.
  const uint8_t *scratchBytes() const { return scratch; }
  /// Variable `v`'s bytes: its binding, or zeroed memory of its own.
  uint8_t *variable(size_t v);
  /// Makes variable `v` (an input or output) live in `memory`, which must
  /// hold its bytes and outlive the run.
  void bind(size_t v, uint8_t *memory) { varBase[v] = memory; }
  /// Calls `f(partition, elementPtr, count, strideElements)` for every run
  /// of the innermost dim, in pattern order.
  template <typename F> void forEachRun(const isa::Operand &o, F &&f) {
    uint32_t parts = o.space == isa::Space::Hbm ? 1 : o.partCount;
    int64_t esize = isa::dtypeBytes(o.dtype);
    int r = o.rank;
    int64_t n = r ? o.sizes[r - 1] : 1;
    int64_t s = r ? o.strides[r - 1] : 1;
    int64_t outer = 1;
    for (int d = 0; d + 1 < r; ++d)
      outer *= o.sizes[d];
    for (uint32_t p = 0; p < parts; ++p) {
      uint8_t *b = base(o, p);
      int64_t idx[isa::kMaxDims] = {};
      int64_t off = 0;
      for (int64_t k = 0; k < outer; ++k) {
        f(p, b + off * esize, n, s);
        for (int d = r - 2; d >= 0; --d) {
          off += o.strides[d];
          if (++idx[d] < o.sizes[d])
            break;
          off -= o.strides[d] * o.sizes[d];
          idx[d] = 0;
        }
      }
    }
  }

  /// Reads every element of `o`, partition-major, as f32.
  void load(const isa::Operand &o, float *out);
  /// Reads every element of `o` as i32 (floats truncate).
  void load(const isa::Operand &o, int32_t *out);
  /// Writes `in` (one value per element of `o`) converting to o's type:
  /// bf16/f16 round to nearest even, integers truncate and saturate, i1 is
  /// `x != 0`.
  void store(const isa::Operand &o, const float *in);
  void store(const isa::Operand &o, const int32_t *in);

  /// Which bytes have been written. Output variables are always tracked (an
  /// output the program does not fully write is an error, not zeros); with
  /// `everything`, SBUF, PSUM and the scratch area are too, so that a read
  /// of bytes nothing wrote can be reported. Call before the run.
  void trackWrites(bool everything);
  /// True when SBUF, PSUM and scratch writes are tracked.
  bool checksReads() const { return trackAll; }
  /// Marks every byte of `o` written.
  void markWritten(const isa::Operand &o);
  /// Bytes of `o` nothing has written (0 for untracked memory: inputs,
  /// constants, and everything but outputs unless all is tracked).
  int64_t unwrittenBytes(const isa::Operand &o);
  /// Elements of variable `v` never written, and the first of them (-1 when
  /// none, or when `v` is not tracked).
  std::pair<int64_t, int64_t> unwrittenElements(size_t v) const;

private:
  /// The validity byte of `p`, a byte of `o`'s memory; null when untracked.
  uint8_t *validOf(const isa::Operand &o, const uint8_t *p);
  bool trackAll = false;
  std::vector<uint8_t> sbufValid, psumValid, scratchValid;
  std::vector<std::vector<uint8_t>> varValid; ///< per output variable
  /// Zeroed pooled memory of `bytes`.
  uint8_t *allocate(int64_t bytes);
  std::vector<Tensor> owned; ///< pooled storage this device allocated
  uint8_t *sbuf, *psum, *scratch;
  const neff::Program &program;
  std::vector<uint8_t *> varBase;
  size_t sbufStride, psumStride;
  int64_t sbufPartitions;
};

/// f32 to i32 as the cast op defines it: truncation toward zero, NaN to 0,
/// saturation at the limits.
int32_t floatToInt(float v);

} // namespace neuronc::sim

#endif // NEURONC_LIB_SIMULATOR_DEVICE_H
