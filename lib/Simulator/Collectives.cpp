//===- Collectives.cpp - Collectives on the simulated instance -------------===//
//
// The instructions a group of cores runs together: a collective starts when
// the group's last core reaches it (the rendezvous), occupies each core's
// DMA queue for the ring's time (collectiveNs) while the other streams go
// on, and, with values, sums the sources in f32 (all_reduce, reduce_scatter)
// or lays the parts side by side (all_gather).
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
  if (options.data && inst0.opcode == isa::Opcode::AllGather) {
    // The values: every core's part into its place in each destination.
    if (llvm::Error e = gatherParts(s, t.group))
      return e;
  } else if (options.data &&
             (inst0.opcode == isa::Opcode::AllToAll || inst0.opcode == isa::Opcode::SendRecv)) {
    llvm::Error e = isa::isFloat(inst0.operands[1].dtype) ? exchangeParts<float>(s, t.group)
                                                          : exchangeParts<int32_t>(s, t.group);
    if (e)
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

template <typename T> llvm::Error ChipRun::exchangeParts(int64_t s, int64_t group) {
  const isa::Instruction &inst0 = jobs[cores[0].job].program->streams[s][cores[0].cursor[s]];
  int64_t n = inst0.operands[1].totalElements();
  std::vector<std::vector<T>> src(group, std::vector<T>(n)), dst(group, std::vector<T>(n, T(0)));
  for (int64_t r = 0; r < group; ++r) {
    Core &c = cores[r];
    if (llvm::Error e = checkCollectiveSource(c, s))
      return e;
    c.dev->load(jobs[c.job].program->streams[s][c.cursor[s]].operands[1], src[r].data());
  }
  if (inst0.opcode == isa::Opcode::SendRecv) {
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
