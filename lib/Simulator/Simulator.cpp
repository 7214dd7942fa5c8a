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

#include "Device.h"
#include "Execute.h"

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

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

llvm::Error fail(const llvm::Twine &msg) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), msg);
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


/// What the timing model needs of one instruction; it does not depend on
/// data, so it is computed once per program and profile.
struct Timing {
  double ns = 0;          ///< compute: engine occupancy; DMA: bytes at queue bandwidth
  double rate = 0;        ///< DMA: the queue's bytes per ns for this transfer
  double latencyNs = 0;   ///< compute: until results are visible
  int64_t hbmRead = 0, hbmWrite = 0, bytes = 0;
  bool sbuf = false, psum = false; ///< touches SBUF / PSUM (port sharing)
  bool dma = false, signal = false;
  /// A collective: starts when every core of its group has reached it; `ns`
  /// is the ring's time (collectiveNs()).
  bool collective = false;
  int64_t group = 0;
  isa::Engine engine = isa::Engine::dma;
  uint32_t waitFirst = 0, waitCount = 0; ///< its waits in ProgramTiming::waits
  enum Row : uint8_t { Other, Load, Multiply, Both } row = Other; ///< TensorE rows
};

/// The timing inputs of a program, and whether it writes its inputs (then
/// they cannot be bound to the caller's memory).
struct ProgramTiming {
  std::array<std::vector<Timing>, kStreams> streams;
  std::vector<isa::Wait> waits;
  bool writesInputs = false;
  const std::vector<Timing> &operator[](int64_t s) const { return streams[s]; }
};

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

/// Bandwidth as capacity per time bin, drawn from by transfers in any order
/// (a transfer that starts later in simulated time may be planned first).
/// A bin's capacity is fixed when it is first booked, from the bandwidth
/// (bytes/ns) `bandwidthAt` gives for the bin's start then.
class BandwidthLedger {
public:
  static constexpr double kBinNs = 256;
  explicit BandwidthLedger(std::function<double(double)> bandwidthAt)
      : bandwidthAt(std::move(bandwidthAt)) {}
  /// Bytes still free in bin `b`.
  double &bin(int64_t b) {
    while (static_cast<int64_t>(free.size()) <= b)
      free.push_back(bandwidthAt(free.size() * kBinNs) * kBinNs);
    return free[b];
  }

private:
  std::function<double(double)> bandwidthAt;
  std::deque<double> free;
};

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
  auto b = static_cast<int64_t>(t / BandwidthLedger::kBinNs);
  for (;; ++b) {
    double binEnd = (b + 1) * BandwidthLedger::kBinNs;
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

/// One core: its queue of jobs and the state of the running one.
struct Core {
  std::vector<size_t> jobs;
  size_t next = 0;        ///< the next job to start
  int64_t job = -1;       ///< the running job, or -1
  const ProgramTiming *timing = nullptr;
  std::unique_ptr<Device> dev;
  std::unique_ptr<Executor> exec;
  /// Per DMA queue: its slice of the core's HBM share.
  std::array<std::unique_ptr<BandwidthLedger>, kStreams> hbm;
  std::vector<Tensor> outputs; ///< bound output tensors (invalid: decode)
  int64_t remaining = 0;
  double base = 0;        ///< the running job's start
  double lastEnd = 0;     ///< the previous job's end
  std::array<size_t, kStreams> cursor{};
  std::array<double, kStreams> freeAt{}, dataFree{}, candidate{};
  std::array<bool, kStreams> dirty{};
  std::array<std::vector<double>, kStreams> signals;
  double loadFree = 0, multiplyFree = 0, lastMultiplyStart = 0, loadDone = 0;
  double sbufPortFree = 0, psumPortFree = 0;
};

} // namespace

struct sim::TimingCache::Impl {
  std::map<std::pair<const neff::Program *, const HardwareModel *>,
           std::unique_ptr<ProgramTiming>>
      programs;
};
sim::TimingCache::TimingCache() : impl(std::make_unique<Impl>()) {}
sim::TimingCache::~TimingCache() = default;

namespace {

/// One run of jobs on the cores of a chip: the event loop of the timing
/// model, executing each instruction's values as it starts.
class ChipRun {
public:
  ChipRun(llvm::ArrayRef<Job> jobs, const Options &options, const HardwareModel *hw)
      : jobs(jobs), options(options), hw(hw), results(jobs.size()) {}

  llvm::Expected<std::vector<Result>> run();

private:
  llvm::ArrayRef<Job> jobs;
  const Options &options;
  const HardwareModel *hw;
  std::vector<Result> results;
  llvm::DenseMap<const neff::Program *, const ProgramTiming *> timings;
  std::vector<std::unique_ptr<ProgramTiming>> owned;
  std::vector<Core> cores;

  /// Checks every job against the profile and the chip, and analyzes each
  /// program's timing once.
  llvm::Error prepare();
  /// The HBM bandwidth of one core at `t`: the chip's, divided among the
  /// cores that have work then (a core whose last transfer has completed
  /// by `t` and that has no job left frees its share).
  double hbmShareAt(double t, int64_t chip) const;
  /// Starts the next job of `c` (if any), not before `at`.
  void startJob(Core &c, double at);
  /// Finishes the running job of `c`: reads its outputs back.
  llvm::Error finishJob(Core &c);
  /// Finishes `c`'s job when its last instruction issued and starts the
  /// next ones (empty programs finish at once).
  llvm::Error advance(Core &c);
  /// When the engine (and its TensorE row or shared port) is ready for `t`,
  /// semaphores aside.
  double readyAt(Core &c, int64_t s, const Timing &t);
  /// The earliest time stream `s` of `c` can start its next instruction, or
  /// infinity when it is blocked or done.
  double candidateOf(Core &c, int64_t s);
  /// candidateOf for `c` alone: its engine and its semaphores.
  double ownCandidateOf(Core &c, int64_t s);
  /// Issues the collective at the head of stream `s` on every core of its
  /// group at `at`: the sum of their sources (all_reduce) or their parts in
  /// order (all_gather) into each destination.
  llvm::Error issueCollective(int64_t s, double at);
  /// The values of an all_reduce (or reduce_scatter) at the head of stream
  /// `s` of cores 0..group-1: the f32 sum of the sources into each
  /// destination (its part of it), rounded to its type once.
  llvm::Error sumParts(int64_t s, int64_t group);
  /// The values of an all_gather at the head of stream `s` of cores
  /// 0..group-1.
  llvm::Error gatherParts(int64_t s, int64_t group);
  /// With Options::checkReads: fails when the source of the collective at
  /// the head of stream `s` of `c` holds bytes nothing wrote.
  llvm::Error checkCollectiveSource(Core &c, int64_t s);
  /// The instruction, of any core, that can start first; false when no core
  /// has work left. Fails on a deadlock.
  llvm::Expected<bool> pick(Core *&bestCore, int64_t &best, double &bestAt);
  /// Issues the next instruction of stream `best` of `c` at `bestAt`: its
  /// timing, its values, its signal.
  llvm::Error issue(Core &c, int64_t best, double bestAt);
  /// A DMA's data phase from `start`: returns when its data has moved.
  double timeDma(Core &c, int64_t best, const Timing &t, Result &r, double &start);
  /// A compute instruction from `start`: returns when it ends.
  double timeCompute(Core &c, int64_t best, const Timing &t, Result &r, double start);
};

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

double ChipRun::candidateOf(Core &c, int64_t s) {
  double at = ownCandidateOf(c, s);
  if (at == kInf)
    return at;
  const Timing &t = (*c.timing)[s][c.cursor[s]];
  if (!t.collective)
    return at;
  // A collective starts when every core of the group has reached it.
  for (int64_t k = 0; k < t.group; ++k) {
    Core &peer = cores[k];
    if (&peer == &c)
      continue;
    if (peer.job < 0 || peer.cursor[s] != c.cursor[s])
      return kInf;
    at = std::max(at, ownCandidateOf(peer, s));
    if (at == kInf)
      return at;
  }
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

llvm::Error ChipRun::issueCollective(int64_t s, double at) {
  const Timing &t = (*cores[0].timing)[s][cores[0].cursor[s]];
  const isa::Instruction &inst0 = jobs[cores[0].job].program->streams[s][cores[0].cursor[s]];
  if (options.data && inst0.opcode == isa::Opcode::AllGather) {
    // The values: every core's part into its place in each destination.
    if (llvm::Error e = gatherParts(s, t.group))
      return e;
  } else if (options.data) {
    if (llvm::Error e = sumParts(s, t.group))
      return e;
  }
  for (int64_t k = 0; k < t.group; ++k) {
    Core &c = cores[k];
    Result &r = results[c.job];
    double waitNs = std::max(0.0, at - ownCandidateOf(c, s));
    double end = at + t.ns;
    c.freeAt[s] = c.dataFree[s] = end;
    r.busyNs[s] += t.ns;
    r.hbmReadBytes += t.hbmRead;
    r.hbmWriteBytes += t.hbmWrite;
    r.collectiveNs += t.ns;
    r.collectiveBytes += t.bytes;
    r.waitNs += waitNs;
    r.collectiveWaitNs += waitNs;
    if (options.trace)
      r.trace.push_back({static_cast<uint8_t>(s), static_cast<uint32_t>(c.cursor[s]), at, at,
                         end, end, waitNs});
    c.dirty[s] = true;
    if (t.signal) {
      c.signals[s].push_back(end);
      for (int64_t o = 0; o < kStreams; ++o)
        c.dirty[o] = true;
    }
    r.endNs = std::max(r.endNs, end);
    ++r.instructions[s];
    ++c.cursor[s];
    if (--c.remaining == 0)
      if (llvm::Error e = advance(c))
        return e;
  }
  return llvm::Error::success();
}

llvm::Error ChipRun::checkCollectiveSource(Core &c, int64_t s) {
  const isa::Instruction &inst = jobs[c.job].program->streams[s][c.cursor[s]];
  if (!options.checkReads)
    return llvm::Error::success();
  int64_t missing = c.dev->unwrittenBytes(inst.operands[1]);
  if (missing == 0)
    return llvm::Error::success();
  return fail("program '" + jobs[c.job].program->name + "' on core " +
              llvm::Twine(jobs[c.job].core) + ": " + isa::opcodeName(inst.opcode) +
              " (instruction " + llvm::Twine(c.cursor[s]) + " of stream " + isa::streamName(s) +
              ") reads " + llvm::Twine(missing) + " bytes nothing wrote");
}

llvm::Error ChipRun::sumParts(int64_t s, int64_t group) {
  const isa::Instruction &inst0 = jobs[cores[0].job].program->streams[s][cores[0].cursor[s]];
  int64_t n = inst0.operands[1].totalElements();
  std::vector<float> sum(n, 0.0f), part(n);
  for (int64_t k = 0; k < group; ++k) {
    Core &c = cores[k];
    if (llvm::Error e = checkCollectiveSource(c, s))
      return e;
    c.dev->load(jobs[c.job].program->streams[s][c.cursor[s]].operands[1], part.data());
    for (int64_t i = 0; i < n; ++i)
      sum[i] += part[i];
  }
  for (int64_t k = 0; k < group; ++k) {
    Core &c = cores[k];
    const isa::Instruction &inst = jobs[c.job].program->streams[s][c.cursor[s]];
    const isa::Operand &dst = inst.operands[0];
    if (inst.opcode == isa::Opcode::ReduceScatter) {
      // Core k keeps part k of each of the `outer` blocks.
      int64_t part = dst.totalElements(), outer = inst.params[1], block = part / outer;
      std::vector<float> mine(part);
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < block; ++i)
          mine[o * block + i] = sum[(o * group + k) * block + i];
      c.dev->store(dst, mine.data());
    } else {
      c.dev->store(dst, sum.data());
    }
    c.dev->markWritten(dst);
  }
  return llvm::Error::success();
}

llvm::Error ChipRun::gatherParts(int64_t s, int64_t group) {
  const isa::Instruction &inst0 = jobs[cores[0].job].program->streams[s][cores[0].cursor[s]];
  int64_t part = inst0.operands[1].totalElements(), outer = inst0.params[1];
  int64_t block = part / outer;
  bool floats = isa::isFloat(inst0.operands[1].dtype);
  std::vector<float> whole(floats ? part * group : 0), piece(floats ? part : 0);
  std::vector<int32_t> wholeI(floats ? 0 : part * group), pieceI(floats ? 0 : part);
  for (int64_t r = 0; r < group; ++r) {
    Core &c = cores[r];
    const isa::Instruction &inst = jobs[c.job].program->streams[s][c.cursor[s]];
    if (llvm::Error e = checkCollectiveSource(c, s))
      return e;
    if (floats)
      c.dev->load(inst.operands[1], piece.data());
    else
      c.dev->load(inst.operands[1], pieceI.data());
    for (int64_t o = 0; o < outer; ++o)
      for (int64_t i = 0; i < block; ++i) {
        int64_t to = (o * group + r) * block + i, from = o * block + i;
        if (floats)
          whole[to] = piece[from];
        else
          wholeI[to] = pieceI[from];
      }
  }
  for (int64_t r = 0; r < group; ++r) {
    Core &c = cores[r];
    const isa::Instruction &inst = jobs[c.job].program->streams[s][c.cursor[s]];
    if (floats)
      c.dev->store(inst.operands[0], whole.data());
    else
      c.dev->store(inst.operands[0], wholeI.data());
    c.dev->markWritten(inst.operands[0]);
  }
  return llvm::Error::success();
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

} // namespace

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
