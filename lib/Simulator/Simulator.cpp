//===- Simulator.cpp - Running an executable on the simulated core --------===//
//
// The timing model. Each stream (engine or DMA queue) runs its instructions
// in order. An instruction starts when its engine is free and every
// semaphore it waits for has reached its count (a signal is seen
// `semaphoreLatencyNs` after the signalling instruction completes).
//
// - Compute engines: an instruction occupies its engine for its cost-formula
//   cycles; its results are complete `accessLatencyCycles` later.
// - DMA queues: issuing is pipelined; the data phase starts once the fixed
//   start latency has passed and the queue's previous transfer has moved its
//   data, then takes the queue time of dmaQueueNs().
//
// The simulation always picks the stream that can start earliest, so the
// functional effects happen in an order every semaphore allows.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Simulator/Simulator.h"

#include "Device.h"
#include "Execute.h"

#include "neuronc/Support/Float.h"
#include "neuronc/Target/InstructionCost.h"

#include <cmath>
#include <limits>

using namespace neuronc;
using namespace neuronc::sim;

namespace {

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
}

isa::DType hostToDevice(DType t) {
  switch (t) {
  case DType::BF16: return isa::DType::BF16;
  case DType::F16: return isa::DType::F16;
  case DType::I32: return isa::DType::I32;
  case DType::I1: return isa::DType::I1;
  default: return isa::DType::F32;
  }
}

DType deviceToHost(isa::DType t) {
  switch (t) {
  case isa::DType::BF16: return DType::BF16;
  case isa::DType::F16: return DType::F16;
  case isa::DType::I32: return DType::I32;
  case isa::DType::I1: return DType::I1;
  case isa::DType::F32: return DType::F32;
  }
  return DType::F32;
}

/// Copies a host tensor into device bytes of type `t`.
void toDevice(const Tensor &in, isa::DType t, uint8_t *out) {
  int64_t n = in.numel();
  for (int64_t k = 0; k < n; ++k) {
    switch (t) {
    case isa::DType::F32: {
      float v = static_cast<float>(in.get(k));
      std::memcpy(out + 4 * k, &v, 4);
      break;
    }
    case isa::DType::BF16: {
      uint16_t b = floatToBF16Bits(static_cast<float>(in.get(k)));
      std::memcpy(out + 2 * k, &b, 2);
      break;
    }
    case isa::DType::F16: {
      uint16_t b = floatToF16Bits(static_cast<float>(in.get(k)));
      std::memcpy(out + 2 * k, &b, 2);
      break;
    }
    case isa::DType::I32: {
      int32_t v = in.isFloat() ? floatToInt(in.f()[k]) : in.i()[k];
      std::memcpy(out + 4 * k, &v, 4);
      break;
    }
    case isa::DType::I1:
      out[k] = in.get(k) != 0.0;
      break;
    }
  }
}

Tensor fromDevice(const uint8_t *in, const neff::Variable &v) {
  Tensor t = Tensor::empty(deviceToHost(v.dtype), v.shape);
  int64_t n = v.numElements();
  for (int64_t k = 0; k < n; ++k) {
    switch (v.dtype) {
    case isa::DType::F32:
      std::memcpy(t.f() + k, in + 4 * k, 4);
      break;
    case isa::DType::BF16: {
      uint16_t b;
      std::memcpy(&b, in + 2 * k, 2);
      t.f()[k] = bf16BitsToFloat(b);
      break;
    }
    case isa::DType::F16: {
      uint16_t b;
      std::memcpy(&b, in + 2 * k, 2);
      t.f()[k] = f16BitsToFloat(b);
      break;
    }
    case isa::DType::I32:
      std::memcpy(t.i() + k, in + 4 * k, 4);
      break;
    case isa::DType::I1:
      t.i()[k] = in[k] ? 1 : 0;
      break;
    }
  }
  return t;
}

} // namespace

llvm::Expected<Result> neuronc::sim::run(const neff::Executable &exe, const neff::Program &program,
                                         llvm::ArrayRef<Tensor> inputs, const Options &options) {
  const HardwareModel *hw = options.target ? options.target : lookupHardwareModel(program.target);
  if (!hw)
    return fail("unknown target '" + program.target + "'");
  // The executable's tiles must fit the profile it is replayed on.
  const HardwareModel *built = lookupHardwareModel(program.target);
  if (built && hw != built &&
      (hw->sbufPartitionBytes < built->sbufPartitionBytes || hw->partitions < built->partitions ||
       hw->psumPartitionBytes < built->psumPartitionBytes))
    return fail("the program was compiled for " + built->name + " and needs its memories; " +
                hw->name + " has less SBUF or PSUM");
  std::vector<const neff::Variable *> ins = program.inputs(), outs = program.outputs();
  if (inputs.size() != ins.size())
    return fail("program '" + program.name + "' takes " + llvm::Twine(ins.size()) +
                " input(s), " + llvm::Twine(inputs.size()) + " given");
  Device dev(*hw, exe, program);
  for (size_t i = 0; i < ins.size(); ++i) {
    const neff::Variable &v = *ins[i];
    if (llvm::ArrayRef<int64_t>(v.shape) != inputs[i].shape())
      return fail("input #" + llvm::Twine(i) + " ('" + v.name + "') must be " +
                  Tensor::empty(deviceToHost(v.dtype), v.shape).typeString() + ", got " +
                  inputs[i].typeString());
    if (options.data)
      toDevice(inputs[i], v.dtype, dev.variable(&v - program.variables.data()));
  }

  Executor exec(dev);
  Result result;
  constexpr int64_t S = mlir::nisa::kMaxStreams;
  std::array<size_t, S> cursor{};
  std::array<double, S> freeAt{}, dataFree{};
  std::array<std::vector<double>, S> signals;
  std::array<int64_t, S> stationaryCols;
  stationaryCols.fill(128);
  double latencyNs[4];
  for (int e = 0; e < 4; ++e)
    latencyNs[e] = hw->accessLatencyCycles / engineClockGHz(*hw, static_cast<isa::Engine>(e));
  int64_t remaining = program.instructionCount();
  if (options.trace)
    result.trace.reserve(remaining);
  while (remaining > 0) {
    // The stream whose next instruction can start first.
    int64_t best = -1;
    double bestAt = std::numeric_limits<double>::infinity();
    for (int64_t s = 0; s < S; ++s) {
      const auto &stream = program.streams[s];
      if (cursor[s] >= stream.size())
        continue;
      const isa::Instruction &inst = stream[cursor[s]];
      double at = freeAt[s];
      bool ready = true;
      for (const isa::Wait &w : inst.waits) {
        if (signals[w.stream].size() < w.count) {
          ready = false;
          break;
        }
        at = std::max(at, signals[w.stream][w.count - 1] + hw->semaphoreLatencyNs);
      }
      if (ready && at < bestAt) {
        bestAt = at;
        best = s;
      }
    }
    if (best < 0)
      return fail("the program deadlocked: every stream waits for a signal that never comes "
                  "(the executable's semaphores are inconsistent)");
    const isa::Instruction &inst = program.streams[best][cursor[best]];
    double start = bestAt, end, done;
    if (inst.opcode == isa::Opcode::DmaCopy) {
      DmaShape shape = dmaShapeOf(*hw, inst);
      double dataStart = std::max(start + hw->dmaLatencyNs, dataFree[best]);
      end = dataStart + dmaQueueNs(*hw, shape.bytes, shape.runs, shape.runBytes,
                                   shape.stridedSbuf);
      dataFree[best] = end;
      freeAt[best] = start; // issuing is pipelined
      done = end;
      result.busyNs[best] += end - dataStart;
      if (options.trace)
        result.trace.push_back({static_cast<uint8_t>(best), static_cast<uint32_t>(cursor[best]),
                                dataStart, end, start, 0});
    } else {
      if (inst.opcode == isa::Opcode::LoadStationary)
        stationaryCols[best] = inst.operands[0].numElements();
      double ns = instructionNs(*hw, costQueryOf(inst, stationaryCols[best]));
      end = start + ns;
      freeAt[best] = end;
      done = end + latencyNs[static_cast<int>(inst.engine)];
      result.busyNs[best] += ns;
      if (options.trace)
        result.trace.push_back({static_cast<uint8_t>(best), static_cast<uint32_t>(cursor[best]),
                                start, end, start, 0});
    }
    if (options.data)
      if (llvm::Error err = exec.execute(inst)) {
        std::string where;
        if (inst.debug < program.debug.size()) {
          const neff::DebugEntry &d = program.debug[inst.debug];
          where = ", kernel " + program.kernels[d.kernel].name + " from " + d.op;
          if (!d.location.empty())
            where += " at " + d.location;
        }
        return fail("instruction " + llvm::Twine(cursor[best]) + " of stream " +
                    mlir::nisa::streamName(best) + " (" + isa::opcodeName(inst.opcode) + where +
                    "): " + llvm::toString(std::move(err)));
      }
    if (inst.has(isa::kSignal))
      signals[best].push_back(done);
    result.deviceNs = std::max(result.deviceNs, done);
    ++result.instructions[best];
    ++cursor[best];
    --remaining;
  }
  for (const neff::Variable *v : outs)
    result.outputs.push_back(fromDevice(dev.variable(v - program.variables.data()), *v));
  return result;
}
