//===- Collectives.cpp - Collectives on the simulated instance -------------===//
//
// The instructions a group of cores runs together: a collective starts when
// the group's last core reaches it (the rendezvous), occupies each core's
// DMA queue for the model's time (collectiveNs) while the other streams go
// on, and, with values, sums the sources in f32 (all_reduce, reduce_scatter)
// or moves elements between the cores unchanged (all_gather, all_to_all,
// send_recv).
//
//===----------------------------------------------------------------------===//

#include "ChipRun.h"

using namespace neuronc;
using namespace neuronc::sim;
using namespace neuronc::sim::detail;

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

llvm::Error ChipRun::issueCollective(int64_t s, double at) {
  const Timing &t = (*cores[0].timing)[s][cores[0].cursor[s]];
  const isa::Instruction &inst0 = jobs[cores[0].job].program->streams[s][cores[0].cursor[s]];
  if (options.data) {
    // The values: sums, or elements moved unchanged (floats or i32).
    bool sums = inst0.opcode == isa::Opcode::AllReduce ||
                inst0.opcode == isa::Opcode::ReduceScatter;
    llvm::Error e = sums ? sumParts(s, t.group)
                    : isa::isFloat(inst0.operands[1].dtype) ? moveParts<float>(s, t.group)
                                                            : moveParts<int32_t>(s, t.group);
    if (e)
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

template <typename T> llvm::Error ChipRun::moveParts(int64_t s, int64_t group) {
  const isa::Instruction &inst0 = jobs[cores[0].job].program->streams[s][cores[0].cursor[s]];
  int64_t n = inst0.operands[1].totalElements();
  std::vector<std::vector<T>> src(group, std::vector<T>(n)),
      dst(group, std::vector<T>(inst0.operands[0].totalElements(), T(0)));
  for (int64_t r = 0; r < group; ++r) {
    Core &c = cores[r];
    if (llvm::Error e = checkCollectiveSource(c, s))
      return e;
    c.dev->load(jobs[c.job].program->streams[s][c.cursor[s]].operands[1], src[r].data());
  }
  if (inst0.opcode == isa::Opcode::AllGather) {
    // Every core's part, as `outer` blocks, into its place in each
    // destination: block o of core r at (o * group + r) * block.
    int64_t outer = inst0.params[1], block = n / outer;
    for (int64_t r = 0; r < group; ++r)
      for (int64_t o = 0; o < outer; ++o)
        for (int64_t i = 0; i < block; ++i)
          dst[0][(o * group + r) * block + i] = src[r][o * block + i];
    for (int64_t r = 1; r < group; ++r)
      dst[r] = dst[0];
  } else if (inst0.opcode == isa::Opcode::SendRecv) {
    // Core r's source into core r + shift's destination (mod group when
    // cyclic); a core nothing sends to keeps zeros.
    int64_t shift = inst0.params[1];
    bool cyclic = inst0.params[2] != 0;
    for (int64_t r = 0; r < group; ++r) {
      int64_t to = r + shift;
      if (cyclic)
        to = ((to % group) + group) % group;
      if (to >= 0 && to < group)
        dst[to] = src[r];
    }
  } else {
    // Core r's part j, read as [outer, group, split] runs at j, lands in
    // core j's destination as part r, written as [outer', group, concat]
    // runs at r.
    int64_t part = n / group, split = inst0.params[1], concat = inst0.params[2];
    std::vector<T> piece(part);
    for (int64_t r = 0; r < group; ++r)
      for (int64_t j = 0; j < group; ++j) {
        for (int64_t e = 0; e < part; ++e)
          piece[e] = src[r][((e / split) * group + j) * split + e % split];
        for (int64_t e = 0; e < part; ++e)
          dst[j][((e / concat) * group + r) * concat + e % concat] = piece[e];
      }
  }
  for (int64_t r = 0; r < group; ++r) {
    Core &c = cores[r];
    const isa::Operand &out = jobs[c.job].program->streams[s][c.cursor[s]].operands[0];
    c.dev->store(out, dst[r].data());
    c.dev->markWritten(out);
  }
  return llvm::Error::success();
}
