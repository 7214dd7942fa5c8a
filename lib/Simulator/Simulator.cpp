//===- Simulator.cpp - Running executables on the simulated chip ----------===//
//
// The timing model. Each stream (engine or DMA queue) of a core runs its
// instructions in order. An instruction starts when its engine is free and
// every semaphore it waits for has reached its count (a signal is seen
// `semaphoreLatencyNs` after the signalling instruction completes).
//
// - Compute engines: an instruction occupies its engine for its cost-formula
//   cycles; its results are complete `accessLatencyCycles` later.
// - TensorE has two rows: a load_stationary may run while the previous
//   multiply_moving does (the stationary matrix is double-buffered), and a
//   multiply_moving waits for both the previous one and its load. A PE
//   transpose occupies both rows.
// - NeuronCore-v2 port sharing: VectorE and GpSimdE instructions that touch
//   SBUF do not overlap each other, nor VectorE and ScalarE ones that touch
//   PSUM (target flags vectorGpsimdShareSbuf, vectorScalarSharePsum).
// - DMA queues: issuing is pipelined; the data phase starts once the fixed
//   start latency has passed and the queue's previous transfer has moved its
//   data. It then pays the descriptor cost and moves its bytes at the
//   queue's bandwidth, as far as the HBM lets it: the chip's bandwidth is
//   divided among the cores that still have work (a core that finishes
//   frees its share), and a core's share evenly among its DMA engines
//   (queues); each queue draws its HBM bytes from its own ledger of
//   capacity per time bin.
//
// The simulation always starts the instruction, of any core, that can start
// earliest, so the functional effects happen in an order every semaphore
// allows.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Simulator/Simulator.h"

#include "ChipRun.h"

#include "neuronc/Host/Kernels.h"
#include "neuronc/Support/Float.h"
#include "neuronc/ISA/InstructionCost.h"

#include "llvm/ADT/DenseMap.h"

#include <cmath>
#include <deque>
#include <functional>
#include <map>
#include <limits>
#include <memory>

using namespace neuronc;
using namespace neuronc::sim;
using namespace neuronc::sim::detail;

namespace {

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
  if ((t == isa::DType::F32 && in.dtype() == DType::F32) ||
      (t == isa::DType::I32 && in.dtype() == DType::I32)) {
    std::memcpy(out, in.f(), n * 4);
    return;
  }
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
  if (v.dtype == isa::DType::F32 || v.dtype == isa::DType::I32) {
    std::memcpy(t.f(), in, n * 4);
    return t;
  }
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


/// Whether tile access `read` may touch bytes that `write` wrote.
bool readsWritten(const isa::Operand &write, const isa::Operand &read) {
  if (write.space == isa::Space::Hbm || write.space != read.space)
    return false;
  if (read.partStart >= write.partStart + write.partCount ||
      write.partStart >= read.partStart + read.partCount)
    return false;
  auto [w0, w1] = write.tileBytes();
  auto [r0, r1] = read.tileBytes();
  return r0 < w1 && w0 < r1;
}

/// Whether compute instruction `inst` reads what `prev`, the instruction
/// before it on the same engine, wrote (its destination, operand 0).
bool dependsOnPrevious(const isa::Instruction &prev, const isa::Instruction &inst) {
  if (prev.opcode == isa::Opcode::LoadStationary || prev.operands.empty())
    return false;
  size_t firstRead = inst.opcode == isa::Opcode::LoadStationary ? 0 : 1;
  for (size_t k = firstRead; k < inst.operands.size(); ++k)
    if (readsWritten(prev.operands[0], inst.operands[k]))
      return true;
  return false;
}

ProgramTiming analyze(const HardwareModel &hw, const neff::Program &program) {
  ProgramTiming out;
  for (int64_t s = 0; s < kStreams; ++s) {
    int64_t stationaryCols = hw.partitions;
    const isa::Instruction *prev = nullptr;
    for (const isa::Instruction &inst : program.streams[s]) {
      Timing t;
      t.dma = inst.opcode == isa::Opcode::DmaCopy;
      t.signal = inst.has(isa::kSignal);
      t.engine = inst.engine;
      t.waitFirst = out.waits.size();
      t.waitCount = inst.waits.size();
      out.waits.insert(out.waits.end(), inst.waits.begin(), inst.waits.end());
      for (const isa::Operand &o : inst.operands) {
        t.sbuf |= o.space == isa::Space::Sbuf;
        t.psum |= o.space == isa::Space::Psum;
      }
      if (isa::isCollective(inst.opcode)) {
        t.collective = true;
        t.group = inst.params[0];
        t.bytes = inst.operands[1].bytes();
        t.hbmRead = t.bytes;
        t.hbmWrite = inst.operands[0].bytes();
        t.ns = collectiveNs(hw, inst);
      } else if (inst.opcode == isa::Opcode::DmaCopy) {
        DmaShape shape = dmaShapeOf(hw, inst);
        t.ns = dmaQueueNs(hw, shape.bytes, shape.runs, shape.stridedSbuf) -
               hw.dmaIssueNs;
        t.rate = hw.dmaBytesPerNsPerEngine * (shape.stridedSbuf ? 0.5 : 1.0);
        t.bytes = shape.bytes;
        t.hbmRead = shape.readsHbm ? shape.bytes : 0;
        t.hbmWrite = shape.writesHbm ? shape.bytes : 0;
        const isa::Operand &dst = inst.operands[0];
        if (dst.space == isa::Space::Hbm && dst.var < program.variables.size() &&
            program.variables[dst.var].kind == neff::VarKind::Input)
          out.writesInputs = true;
      } else {
        if (inst.opcode == isa::Opcode::LoadStationary)
          stationaryCols = inst.operands[0].numElements();
        CostQuery q = costQueryOf(inst, stationaryCols);
        t.ns = instructionNs(hw, q);
        // Back-to-back dependent instructions pay the static overhead (a
        // tiny tile already has it in its cost).
        if (prev && q.elements >= hw.tinyTileElements && dependsOnPrevious(*prev, inst))
          t.ns += hw.dependentOverheadCycles / engineClockGHz(hw, inst.engine);
        t.latencyNs = hw.accessLatencyCycles / engineClockGHz(hw, inst.engine);
        if (inst.engine == isa::Engine::tensor)
          t.row = inst.opcode == isa::Opcode::LoadStationary   ? Timing::Load
                  : inst.opcode == isa::Opcode::MultiplyMoving ? Timing::Multiply
                                                               : Timing::Both;
      }
      out.streams[s].push_back(t);
      prev = &inst;
    }
  }
  return out;
}

/// Whether a host tensor's storage is already the device format of `v`.
bool sameFormat(const Tensor &t, const neff::Variable &v) {
  return (v.dtype == isa::DType::F32 && t.dtype() == DType::F32) ||
         (v.dtype == isa::DType::I32 && t.dtype() == DType::I32);
}

/// Plans a transfer that moves `queueBytes` at `rate` bytes/ns from `t0`,
/// each queue byte costing `hbmPerByte` bytes of the core's HBM ledger.
/// Returns when it completes.
double planTransfer(double t0, double queueBytes, double rate, double hbmPerByte,
                    BandwidthLedger &hbm) {
  if (queueBytes <= 0)
    return t0;
  if (hbmPerByte <= 0)
    return t0 + queueBytes / rate;
  double t = t0, left = queueBytes;
  auto b = static_cast<int64_t>((t - hbm.origin()) / BandwidthLedger::kBinNs);
  for (;; ++b) {
    double binEnd = hbm.origin() + (b + 1) * BandwidthLedger::kBinNs;
    double dt = binEnd - t;
    double &c = hbm.bin(b);
    double rateCap = rate * dt, bandwidthCap = c / hbmPerByte;
    double can = std::min(rateCap, bandwidthCap);
    if (can >= left) {
      c -= left * hbmPerByte;
      // At the queue's rate the bytes finish early in the bin; where the
      // bandwidth limited it, they are spread over the bin.
      return rateCap <= bandwidthCap ? t + left / rate : t + dt * (left / can);
    }
    c -= can * hbmPerByte;
    left -= can;
    t = binEnd;
  }
}

} // namespace

struct sim::TimingCache::Impl {
  std::map<std::pair<const neff::Program *, const HardwareModel *>,
           std::unique_ptr<ProgramTiming>>
      programs;
};
sim::TimingCache::TimingCache() : impl(std::make_unique<Impl>()) {}
sim::TimingCache::~TimingCache() = default;

llvm::Error ChipRun::prepare() {
  // Every program must fit the profile it is replayed on, and the chip has
  // so many cores.
  unsigned numCores = 0;
  for (const Job &job : jobs) {
    const neff::Program &program = *job.program;
    const HardwareModel *built = lookupHardwareModel(program.target);
    if (built && hw != built &&
        (hw->sbufPartitionBytes < built->sbufPartitionBytes || hw->partitions < built->partitions ||
         hw->psumPartitionBytes < built->psumPartitionBytes))
      return fail("the program was compiled for " + built->name + " and needs its memories; " +
                  hw->name + " has less SBUF or PSUM");
    if (job.core >= static_cast<unsigned>(hw->instanceCores()))
      return fail(missingCoreMessage(*hw, job.core));
    numCores = std::max(numCores, job.core + 1);
    std::vector<const neff::Variable *> ins = program.inputs();
    if (!job.inputBytes.empty()) {
      if (job.inputBytes.size() != ins.size())
        return fail("program '" + program.name + "' takes " + llvm::Twine(ins.size()) +
                    " input(s), " + llvm::Twine(job.inputBytes.size()) + " given");
      for (size_t i = 0; i < ins.size(); ++i)
        if (static_cast<int64_t>(job.inputBytes[i].size()) != ins[i]->bytes())
          return fail("input #" + llvm::Twine(i) + " ('" + ins[i]->name + "') must have " +
                      llvm::Twine(ins[i]->bytes()) + " bytes, got " +
                      llvm::Twine(job.inputBytes[i].size()));
    } else if (options.data || !job.inputs.empty()) {
      if (job.inputs.size() != ins.size())
        return fail("program '" + program.name + "' takes " + llvm::Twine(ins.size()) +
                    " input(s), " + llvm::Twine(job.inputs.size()) + " given");
      for (size_t i = 0; i < ins.size(); ++i)
        if (llvm::ArrayRef<int64_t>(ins[i]->hostShape()) != job.inputs[i].shape())
          return fail("input #" + llvm::Twine(i) + " ('" + ins[i]->name + "') must be " +
                      variableType(*ins[i]) + ", got " + job.inputs[i].typeString());
    }
    if (timings.count(&program))
      continue;
    if (options.cache) {
      auto &cached = options.cache->impl->programs[{&program, hw}];
      if (!cached)
        cached = std::make_unique<ProgramTiming>(analyze(*hw, program));
      timings[&program] = cached.get();
    } else {
      owned.push_back(std::make_unique<ProgramTiming>(analyze(*hw, program)));
      timings[&program] = owned.back().get();
    }
  }

  cores = std::vector<Core>(numCores);
  for (size_t j = 0; j < jobs.size(); ++j)
    cores[jobs[j].core].jobs.push_back(j);
  for (auto [i, c] : llvm::enumerate(cores)) {
    int64_t chip = static_cast<int64_t>(i) / hw->coresPerChip;
    for (auto &queue : c.hbm)
      queue = std::make_unique<BandwidthLedger>([this, chip](double t) {
        return hbmShareAt(t, chip) / static_cast<double>(hw->dmaEngines);
      });
  }
  // A program with collectives runs on every core of its group, the same
  // program on each, one job per core.
  for (const Job &job : jobs) {
    int64_t group = job.program->collectiveGroup();
    if (group <= 1)
      continue;
    for (int64_t k = 0; k < group; ++k)
      if (k >= static_cast<int64_t>(cores.size()) || cores[k].jobs.size() != 1 ||
          jobs[cores[k].jobs.front()].program != job.program)
        return fail("program '" + job.program->name +
                    "' is one core's part of a tensor-parallel group of " + llvm::Twine(group) +
                    " cores: run it once on each of cores 0-" + llvm::Twine(group - 1) +
                    " together (neuron-run does for an executable built with --tp)");
  }
  return llvm::Error::success();
}

double ChipRun::hbmShareAt(double t, int64_t chip) const {
  unsigned busy = 0;
  int64_t first = chip * hw->coresPerChip;
  int64_t last = std::min<int64_t>(first + hw->coresPerChip, cores.size());
  for (int64_t i = first; i < last; ++i) {
    const Core &c = cores[i];
    busy += c.job >= 0 || c.next < c.jobs.size() || (!c.jobs.empty() && c.lastEnd > t);
  }
  return hw->chipHbmGBps / std::max(1u, busy);
}

void ChipRun::startJob(Core &c, double at) {
  c.job = -1;
  if (c.next >= c.jobs.size())
    return;
  size_t j = c.jobs[c.next++];
  const Job &job = jobs[j];
  const neff::Program &program = *job.program;
  c.job = static_cast<int64_t>(j);
  c.timing = timings[&program];
  c.base = std::max(at, job.notBeforeNs);
  for (auto &queue : c.hbm)
    queue->anchor(c.base);
  c.remaining = program.instructionCount();
  c.cursor.fill(0);
  c.freeAt.fill(c.base);
  c.dataFree.fill(c.base);
  c.dirty.fill(true);
  for (auto &s : c.signals)
    s.clear();
  c.loadFree = c.multiplyFree = c.lastMultiplyStart = c.loadDone = c.base;
  c.sbufPortFree = c.psumPortFree = c.base;
  Result &r = results[j];
  r.core = job.core;
  r.startNs = r.endNs = c.base;
  if (options.trace)
    r.trace.reserve(c.remaining);
  c.exec.reset();
  c.dev.reset();
  c.outputs.clear();
  if (options.data) {
    c.dev = std::make_unique<Device>(*hw, *job.exe, program);
    c.dev->trackWrites(options.checkReads);
    bool canBind = !c.timing->writesInputs;
    std::vector<const neff::Variable *> ins = program.inputs();
    for (size_t i = 0; i < ins.size(); ++i) {
      size_t v = ins[i] - program.variables.data();
      if (!job.inputBytes.empty()) {
        if (canBind)
          c.dev->bind(v, const_cast<uint8_t *>(job.inputBytes[i].data()));
        else
          std::memcpy(c.dev->variable(v), job.inputBytes[i].data(), ins[i]->bytes());
      } else if (ins[i]->sharded() || ins[i]->hostTransposed) {
        // This core's part of a sharded input; a prepacked input: the
        // runtime's load swaps its last two dims.
        std::vector<uint8_t> bytes = encodeInput(job.inputs[i], *ins[i], job.core,
                                                 program.collectiveGroup());
        std::memcpy(c.dev->variable(v), bytes.data(), bytes.size());
      } else if (canBind && sameFormat(job.inputs[i], *ins[i])) {
        // The host tensor already is the device's bytes: no copy.
        c.dev->bind(v, reinterpret_cast<uint8_t *>(const_cast<float *>(job.inputs[i].f())));
      } else {
        toDevice(job.inputs[i], ins[i]->dtype, c.dev->variable(v));
      }
    }
    // Outputs in the host's format are written in place.
    for (const neff::Variable *out : program.outputs()) {
      size_t v = out - program.variables.data();
      Tensor t;
      if (job.decodeOutputs && (out->dtype == isa::DType::F32 || out->dtype == isa::DType::I32)) {
        t = Tensor::filled(deviceToHost(out->dtype), out->shape, 0);
        c.dev->bind(v, reinterpret_cast<uint8_t *>(t.f()));
      } else {
        c.dev->variable(v);
      }
      c.outputs.push_back(t);
    }
    c.exec = std::make_unique<Executor>(*c.dev);
  }
}

llvm::Error ChipRun::finishJob(Core &c) {
  Result &r = results[c.job];
  const neff::Program &program = *jobs[c.job].program;
  r.deviceNs = r.endNs - r.startNs;
  // Timing only: no values.
  std::vector<const neff::Variable *> outs = program.outputs();
  for (size_t i = 0; c.dev && i < outs.size(); ++i) {
    const neff::Variable *v = outs[i];
    // An output the program did not fully write would read as zeros.
    auto [count, first] = c.dev->unwrittenElements(v - program.variables.data());
    if (count)
      return fail("program '" + program.name + "' did not write output #" + llvm::Twine(i) +
                  " ('" + v->name + "', " + variableType(*v) + "): " + llvm::Twine(count) +
                  " of its " + llvm::Twine(v->numElements()) +
                  " elements were never written (the first is element " +
                  llvm::Twine(first) +
                  "); the executable is wrong: report it with the program that produced it");
    const uint8_t *bytes = c.dev->variable(v - program.variables.data());
    if (!jobs[c.job].decodeOutputs)
      r.outputBytes.push_back(std::vector<uint8_t>(bytes, bytes + v->bytes()));
    else if (c.outputs[i].valid())
      r.outputs.push_back(c.outputs[i]);
    else
      r.outputs.push_back(fromDevice(bytes, *v));
  }
  if (c.dev && options.keepScratch)
    r.scratch.assign(c.dev->scratchBytes(), c.dev->scratchBytes() + program.scratchBytes);
  c.outputs.clear();
  c.lastEnd = r.endNs;
  return llvm::Error::success();
}

llvm::Error ChipRun::advance(Core &c) {
  while (c.job >= 0 && c.remaining == 0) {
    if (llvm::Error e = finishJob(c))
      return e;
    startJob(c, c.lastEnd);
  }
  return llvm::Error::success();
}

double ChipRun::readyAt(Core &c, int64_t s, const Timing &t) {
  double at = c.freeAt[s];
  switch (t.row) {
  case Timing::Load:
    at = std::max({at, c.loadFree, c.lastMultiplyStart});
    break;
  case Timing::Multiply:
    at = std::max({at, c.multiplyFree, c.loadDone});
    break;
  case Timing::Both:
    at = std::max({at, c.multiplyFree, c.loadFree});
    break;
  case Timing::Other:
    break;
  }
  if (t.sbuf && hw->vectorGpsimdShareSbuf &&
      (t.engine == isa::Engine::vector || t.engine == isa::Engine::gpsimd))
    at = std::max(at, c.sbufPortFree);
  if (t.psum && hw->vectorScalarSharePsum &&
      (t.engine == isa::Engine::vector || t.engine == isa::Engine::scalar))
    at = std::max(at, c.psumPortFree);
  return at;
}

double ChipRun::ownCandidateOf(Core &c, int64_t s) {
  const auto &stream = (*c.timing)[s];
  if (c.cursor[s] >= stream.size())
    return kInf;
  const Timing &t = stream[c.cursor[s]];
  double at = readyAt(c, s, t);
  for (const isa::Wait &w : llvm::ArrayRef(c.timing->waits).slice(t.waitFirst, t.waitCount)) {
    if (c.signals[w.stream].size() < w.count)
      return kInf;
    at = std::max(at, c.signals[w.stream][w.count - 1] + hw->semaphoreLatencyNs);
  }
  return at;
}

llvm::Expected<bool> ChipRun::pick(Core *&bestCore, int64_t &best, double &bestAt) {
  // The instruction, of any core, that can start first.
  bestCore = nullptr;
  best = -1;
  bestAt = kInf;
  bool running = false;
  for (Core &c : cores) {
    if (c.job < 0)
      continue;
    running = true;
    for (int64_t s = 0; s < kStreams; ++s) {
      // A collective's start also depends on the other cores: recomputed.
      bool collective = c.cursor[s] < (*c.timing)[s].size() &&
                        (*c.timing)[s][c.cursor[s]].collective;
      if (c.dirty[s] || collective) {
        c.candidate[s] = candidateOf(c, s);
        c.dirty[s] = false;
      }
      if (c.candidate[s] < bestAt) {
        bestAt = c.candidate[s];
        best = s;
        bestCore = &c;
      }
    }
  }
  if (!running)
    return false;
  if (!bestCore) {
    for (Core &c : cores)
      if (c.job >= 0)
        return fail("program '" + jobs[c.job].program->name +
                    "' deadlocked: every stream waits for a signal that never comes (the "
                    "executable's semaphores are inconsistent)");
  }
  return true;
}

double ChipRun::timeDma(Core &c, int64_t best, const Timing &t, Result &r, double &start) {
  double dataStart = std::max(start + hw->dmaLatencyNs, c.dataFree[best]);
  double rate = t.rate;
  double queueBytes = t.ns * rate;
  double hbmBytes = t.hbmRead + t.hbmWrite;
  double end = planTransfer(dataStart + hw->dmaIssueNs, queueBytes, rate,
                     queueBytes > 0 ? hbmBytes / queueBytes : 0, *c.hbm[best]);
  c.dataFree[best] = end;
  c.freeAt[best] = start; // issuing is pipelined
  r.busyNs[best] += end - dataStart;
  r.hbmReadBytes += t.hbmRead;
  r.hbmWriteBytes += t.hbmWrite;
  ++r.dmaTransfers;
  r.dmaBytes += t.bytes;
  start = dataStart;
  return end;
}

double ChipRun::timeCompute(Core &c, int64_t best, const Timing &t, Result &r, double start) {
  double end = start + t.ns;
  // TensorE issues in order, but a load may overlap the multiply before.
  c.freeAt[best] = t.engine == isa::Engine::tensor ? start : end;
  switch (t.row) {
  case Timing::Load:
    c.loadFree = c.loadDone = end;
    break;
  case Timing::Multiply:
    c.multiplyFree = end;
    c.lastMultiplyStart = start;
    break;
  case Timing::Both:
    c.loadFree = c.loadDone = c.multiplyFree = end;
    c.lastMultiplyStart = start;
    break;
  case Timing::Other:
    break;
  }
  if (t.sbuf && (t.engine == isa::Engine::vector || t.engine == isa::Engine::gpsimd))
    c.sbufPortFree = std::max(c.sbufPortFree, end);
  if (t.psum && (t.engine == isa::Engine::vector || t.engine == isa::Engine::scalar))
    c.psumPortFree = std::max(c.psumPortFree, end);
  r.busyNs[best] += t.ns;
  return end;
}

llvm::Error ChipRun::issue(Core &c, int64_t best, double bestAt) {
  if ((*c.timing)[best][c.cursor[best]].collective)
    return issueCollective(best, bestAt);
  const Job &job = jobs[c.job];
  const neff::Program &program = *job.program;
  Result &r = results[c.job];
  const Timing &t = (*c.timing)[best][c.cursor[best]];
  double start = bestAt, end, done, issuedAt = bestAt;
  // Only what the semaphores added: the engine was ready earlier.
  double waitNs = std::max(0.0, start - readyAt(c, best, t));
  if (t.dma) {
    end = timeDma(c, best, t, r, start);
    done = end;
  } else {
    end = timeCompute(c, best, t, r, start);
    done = end + t.latencyNs;
  }
  r.waitNs += waitNs;
  if (options.trace)
    r.trace.push_back({static_cast<uint8_t>(best), static_cast<uint32_t>(c.cursor[best]), issuedAt,
                       start, end, done, waitNs});
  if (c.exec)
    if (llvm::Error err = c.exec->execute(program.streams[best][c.cursor[best]])) {
      const isa::Instruction &inst = program.streams[best][c.cursor[best]];
      std::string where;
      if (inst.debug < program.debug.size()) {
        const neff::DebugEntry &d = program.debug[inst.debug];
        where = ", kernel " + program.kernels[d.kernel].name + " from " + d.op;
        if (!d.location.empty())
          where += " at " + d.location;
      }
      return fail("instruction " + llvm::Twine(c.cursor[best]) + " of stream " +
                  isa::streamName(best) + " (" + isa::opcodeName(inst.opcode) + where +
                  "): " + llvm::toString(std::move(err)));
    }
  c.dirty[best] = true;
  if (t.signal) {
    c.signals[best].push_back(done);
    // Only streams whose next instruction waits for this one may move.
    for (int64_t s = 0; s < kStreams; ++s) {
      const auto &stream = (*c.timing)[s];
      if (c.dirty[s] || c.cursor[s] + (s == best) >= stream.size())
        continue;
      const Timing &next = stream[c.cursor[s] + (s == best)];
      for (const isa::Wait &w :
           llvm::ArrayRef(c.timing->waits).slice(next.waitFirst, next.waitCount))
        if (w.stream == best) {
          c.dirty[s] = true;
          break;
        }
    }
  }
  // Shared ports may hold the other engines back.
  if ((t.sbuf && hw->vectorGpsimdShareSbuf) || (t.psum && hw->vectorScalarSharePsum)) {
    c.dirty[static_cast<int>(isa::Engine::vector)] = true;
    c.dirty[static_cast<int>(isa::Engine::scalar)] = true;
    c.dirty[static_cast<int>(isa::Engine::gpsimd)] = true;
  }
  r.endNs = std::max(r.endNs, done);
  ++r.instructions[best];
  ++c.cursor[best];
  if (--c.remaining == 0)
    return advance(c);
  return llvm::Error::success();
}

llvm::Expected<std::vector<Result>> ChipRun::run() {
  if (llvm::Error e = prepare())
    return std::move(e);
  for (Core &c : cores) {
    startJob(c, 0);
    if (llvm::Error e = advance(c))
      return std::move(e);
  }
  for (;;) {
    Core *bestCore;
    int64_t best;
    double bestAt;
    llvm::Expected<bool> found = pick(bestCore, best, bestAt);
    if (!found)
      return found.takeError();
    if (!*found)
      break;
    if (llvm::Error e = issue(*bestCore, best, bestAt))
      return std::move(e);
  }
  return std::move(results);
}


llvm::Expected<std::vector<Result>> neuronc::sim::runChip(llvm::ArrayRef<Job> jobs,
                                                          const Options &options) {
  if (jobs.empty())
    return std::vector<Result>();
  const HardwareModel *hw =
      options.target ? options.target : lookupHardwareModel(jobs.front().program->target);
  if (!hw)
    return fail("unknown target '" + jobs.front().program->target + "'");
  return ChipRun(jobs, options, hw).run();
}

Tensor neuronc::sim::shardInput(const Tensor &t, const neff::Variable &v, int64_t rank,
                                int64_t group) {
  if (!v.sharded())
    return t;
  std::vector<int64_t> local = v.localHostShape();
  llvm::SmallVector<int64_t> offsets(local.size(), 0), strides(local.size(), 1);
  offsets[v.shardDim] = v.shardOf(rank, group) * local[v.shardDim];
  // The reader checked the shard against the shape; the caller the shape.
  return llvm::cantFail(ref::slice(t, offsets, local, strides));
}

Tensor neuronc::sim::gatherOutput(llvm::ArrayRef<Tensor> parts, const neff::Variable &v,
                                  int64_t group) {
  if (!v.sharded())
    return parts.front();
  // Part k is held by the cores k * group / shardParts onwards.
  std::vector<Tensor> inOrder;
  for (int64_t k = 0; k < v.shardParts; ++k)
    inOrder.push_back(parts[k * (group / v.shardParts)]);
  // The reader checked that the parts divide the group; the shapes agree.
  return llvm::cantFail(ref::concat(inOrder, v.shardDim));
}

std::vector<uint8_t> neuronc::sim::encodeInput(const Tensor &t, const neff::Variable &v,
                                               int64_t rank, int64_t group) {
  std::vector<uint8_t> bytes(v.bytes());
  Tensor part = shardInput(t, v, rank, group);
  toDevice(v.hostTransposed ? ref::swapLastTwoDims(part) : part, v.dtype, bytes.data());
  return bytes;
}

std::string neuronc::sim::missingCoreMessage(const HardwareModel &hw, unsigned core) {
  return ("NeuronCore " + llvm::Twine(core) + " does not exist: a " + hw.name + " instance has " +
          llvm::Twine(hw.instanceCores()) + " (0-" + llvm::Twine(hw.instanceCores() - 1) + ", " +
          llvm::Twine(hw.coresPerChip) + " per chip)")
      .str();
}

DType neuronc::sim::hostDType(isa::DType t) { return deviceToHost(t); }

std::string neuronc::sim::variableType(const neff::Variable &v) {
  std::string s = "tensor<";
  for (int64_t d : v.hostShape())
    s += std::to_string(d) + "x";
  return s + dtypeName(deviceToHost(v.dtype)).str() + ">";
}

Tensor neuronc::sim::decodeOutput(const uint8_t *bytes, const neff::Variable &v) {
  return fromDevice(bytes, v);
}

llvm::Expected<Result> neuronc::sim::run(const neff::Executable &exe, const neff::Program &program,
                                         llvm::ArrayRef<Tensor> inputs, const Options &options) {
  Job job;
  job.exe = &exe;
  job.program = &program;
  job.inputs.assign(inputs.begin(), inputs.end());
  llvm::Expected<std::vector<Result>> results = runChip(job, options);
  if (!results)
    return results.takeError();
  return std::move(results->front());
}
