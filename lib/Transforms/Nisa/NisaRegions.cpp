//===- NisaRegions.cpp - The memory each nisa instruction touches ---------===//

#include "NisaRegions.h"

#include "llvm/Support/Format.h"

#include <algorithm>
#include <numeric>

using namespace mlir;
using namespace mlir::nisa;

namespace {

/// Scratch memory that every internal HBM tensor is placed in.
const char kScratch = 0;

/// Sets `r`'s runs to the element runs of a pattern (sorted, merged), or
/// leaves them empty when there would be too many to keep; sets its lattice
/// (period, phase, run length) in every case.
void runsOf(AccessPatternAttr ap, int64_t base, int64_t esize, MemRegion &r) {
  SmallVectorImpl<std::pair<int64_t, int64_t>> &runs = r.runs;
  ArrayRef<int64_t> sizes = ap.getSizes(), strides = ap.getStrides();
  int d = static_cast<int>(sizes.size()) - 1;
  int64_t run = 1;
  if (d >= 0 && strides[d] == 1) {
    run = sizes[d];
    for (--d; d >= 0 && strides[d] == run; --d)
      run *= sizes[d];
  }
  int64_t count = 1, period = 0;
  for (int k = 0; k <= d; ++k) {
    count *= sizes[k];
    if (sizes[k] > 1)
      period = std::gcd(period, std::abs(strides[k]) * esize);
  }
  r.period = period;
  r.runBytes = run * esize;
  // One contiguous run: its own start and length, which any lattice
  // reduces modulo its period.
  r.phase = base + ap.getOffset() * esize;
  if (period)
    r.phase = (r.phase % period + period) % period;
  if (count > 4096)
    return;
  SmallVector<int64_t, 4> idx(d + 1, 0);
  for (int64_t r = 0; r < count; ++r) {
    int64_t off = ap.getOffset();
    for (int k = 0; k <= d; ++k)
      off += idx[k] * strides[k];
    runs.push_back({base + off * esize, base + (off + run) * esize});
    for (int k = d; k >= 0; --k) {
      if (++idx[k] < sizes[k])
        break;
      idx[k] = 0;
    }
  }
  llvm::sort(runs);
  SmallVector<std::pair<int64_t, int64_t>> merged;
  for (auto r : runs) {
    if (!merged.empty() && r.first <= merged.back().second)
      merged.back().second = std::max(merged.back().second, r.second);
    else
      merged.push_back(r);
  }
  runs.assign(merged.begin(), merged.end());
}

bool runsIntersect(ArrayRef<std::pair<int64_t, int64_t>> a,
                   ArrayRef<std::pair<int64_t, int64_t>> b) {
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    if (a[i].second <= b[j].first)
      ++i;
    else if (b[j].second <= a[i].first)
      ++j;
    else
      return true;
  }
  return false;
}

} // namespace

bool MemRegion::overlaps(const MemRegion &o) const {
  if (space != o.space || memory != o.memory)
    return false;
  if (space != MemorySpace::hbm && (p1 <= o.p0 || o.p1 <= p0))
    return false;
  if (hi <= o.lo || o.hi <= lo)
    return false;
  if (period || o.period) {
    // Both lattices modulo the gcd of their periods (a single run has period
    // 0, so the other's): the runs of each cover [phase, phase + runBytes)
    // there, circularly; disjoint intervals mean no byte in common.
    int64_t g = std::gcd(period, o.period);
    if (runBytes < g && o.runBytes < g) {
      int64_t a = phase % g, b = o.phase % g;
      int64_t ab = ((b - a) % g + g) % g; // b's start after a's
      if (runBytes <= ab && ab + o.runBytes <= g)
        return false;
    }
  }
  if (!runs.empty() && !o.runs.empty())
    return runsIntersect(runs, o.runs);
  return true;
}

SmallVector<std::pair<int64_t, int64_t>, 1> MemRegion::buckets(int64_t bucketBytes) const {
  SmallVector<std::pair<int64_t, int64_t>, 1> out;
  auto add = [&](int64_t lo, int64_t hi) {
    int64_t b0 = lo / bucketBytes, b1 = (hi - 1) / bucketBytes;
    if (!out.empty() && b0 <= out.back().second + 1)
      out.back().second = std::max(out.back().second, b1);
    else
      out.push_back({b0, b1});
  };
  if (runs.empty())
    add(lo, hi);
  for (auto [a, b] : runs)
    add(a, b);
  return out;
}

bool MemRegion::covers(const MemRegion &o) const {
  if (space != o.space || memory != o.memory)
    return false;
  if (space != MemorySpace::hbm) {
    if (!(p0 <= o.p0 && o.p1 <= p1 && lo <= o.lo && o.hi <= hi))
      return false;
    if (runs.empty())
      return false; // too many runs to keep: claim nothing
    if (runs.size() == 1)
      return true; // contiguous in each partition
  } else if (runs.empty()) {
    return false;
  }
  auto within = [&](std::pair<int64_t, int64_t> r) {
    auto it =
        llvm::upper_bound(runs, r.first, [](int64_t v, const auto &run) { return v < run.second; });
    return it != runs.end() && it->first <= r.first && r.second <= it->second;
  };
  if (o.runs.empty())
    return within({o.lo, o.hi});
  return llvm::all_of(o.runs, within);
}

LogicalResult mlir::nisa::collectSteps(ProgramOp program, SmallVectorImpl<Step> &steps) {
  MemoryResolver resolver(program);
  SmallVector<int64_t> positions(kMaxStreams, 0);
  for (KernelOp kernel : program.getBodyBlock().getOps<KernelOp>()) {
    for (Operation &op : kernel.getBodyBlock()) {
      auto inst = dyn_cast<InstructionOpInterface>(op);
      if (!inst)
        continue;
      Step step{inst, inst.getStream(), 0, {}, {}};
      step.pos = positions[step.stream]++;
      SmallVector<MemoryAccess> accesses;
      inst.getAccesses(accesses);
      for (const MemoryAccess &a : accesses) {
        Operation *decl = resolver.lookup(kernel, a.memory);
        MemRegion r;
        auto [lo, hi] = a.ap.getExtent();
        if (auto tile = dyn_cast_or_null<AllocOp>(decl)) {
          if (!tile.getOffset())
            return tile.emitOpError("has no offset: run --nisa-allocate-memory first");
          int64_t esize = elementBytes(tile.getElementType());
          r.space = tile.getSpace();
          r.discard = tile.getDiscard();
          r.p0 = a.ap.getPartStart();
          r.p1 = a.ap.getPartStart() + a.ap.getPartCount();
          r.lo = *tile.getOffset() + lo * esize;
          r.hi = *tile.getOffset() + hi * esize;
          // Within each partition, a strided pattern's exact runs: windows
          // interleaved in one tile (a convolution's padding columns and the
          // rows loaded between them) do not overlap.
          runsOf(a.ap, *tile.getOffset(), esize, r);
        } else if (auto hbm = dyn_cast_or_null<HbmOp>(decl)) {
          int64_t esize = elementBytes(hbm.getElementType());
          int64_t base = 0;
          r.space = MemorySpace::hbm;
          r.memory = hbm.getOperation();
          if (hbm.getKind() == HbmKind::internal) {
            if (!hbm.getOffset())
              return hbm.emitOpError("has no offset: run --nisa-allocate-memory first");
            base = *hbm.getOffset();
            r.memory = &kScratch;
          }
          r.lo = base + lo * esize;
          r.hi = base + hi * esize;
          runsOf(a.ap, base, esize, r);
        } else {
          return op.emitOpError("names unknown memory ") << a.memory;
        }
        (a.write ? step.writes : step.reads).push_back(std::move(r));
      }
      steps.push_back(std::move(step));
    }
  }
  return success();
}

std::string mlir::nisa::describeAccess(Operation *inst, const MemRegion &r) {
  std::string s;
  llvm::raw_string_ostream os(s);
  os << stringifyMemorySpace(r.space);
  if (r.space != MemorySpace::hbm)
    os << " partitions " << r.p0 << ":" << r.p1;
  else if (r.memory && r.memory != &kScratch)
    os << " " << cast<HbmOp>(static_cast<Operation *>(const_cast<void *>(r.memory))).getSymName();
  else
    os << " scratch";
  os << " bytes " << r.lo << ".." << r.hi;
  return s;
}

void ConflictIndex::visit(
    int64_t index, const Step &step,
    llvm::function_ref<void(int64_t, const MemRegion &, const MemRegion &)> onConflict) {
  auto keyOf = [](const MemRegion &r, int64_t b) {
    return std::make_tuple(r.memory, static_cast<int>(r.space), b);
  };
  auto compact = [&](SmallVectorImpl<int64_t> &list) {
    llvm::erase_if(list, [&](int64_t e) { return entries[e].dead; });
  };
  llvm::SmallDenseSet<int64_t, 16> seen;
  // A read conflicts with earlier writes; a write with earlier reads too.
  auto query = [&](const MemRegion &r, bool write) {
    seen.clear();
    for (auto [b0, b1] : r.buckets(kBucketBytes))
      for (int64_t b = b0; b <= b1; ++b) {
        auto it = buckets.find(keyOf(r, b));
        if (it == buckets.end())
          continue;
        Bucket &bucket = it->second;
        compact(bucket.writes);
        for (int64_t e : bucket.writes)
          if (seen.insert(e).second && entries[e].region.overlaps(r))
            onConflict(entries[e].step, entries[e].region, r);
        if (!write)
          continue;
        compact(bucket.reads);
        for (int64_t e : bucket.reads)
          if (seen.insert(e).second && entries[e].region.overlaps(r))
            onConflict(entries[e].step, entries[e].region, r);
      }
  };
  for (const MemRegion &r : step.reads)
    query(r, false);
  for (const MemRegion &r : step.writes)
    query(r, true);
  // Drop what can no longer matter.
  auto retire = [&](const MemRegion &by, bool byWrite) {
    for (auto [b0, b1] : by.buckets(kBucketBytes))
      for (int64_t b = b0; b <= b1; ++b) {
        auto it = buckets.find(keyOf(by, b));
        if (it == buckets.end())
          continue;
        for (auto *list : {&it->second.reads, &it->second.writes}) {
          bool isWriteList = list == &it->second.writes;
          if (!byWrite && isWriteList)
            continue;
          for (int64_t e : *list) {
            Entry &entry = entries[e];
            if (entry.dead || entry.step == index)
              continue;
            if (!byWrite && entry.stream != step.stream)
              continue;
            if (by.covers(entry.region))
              entry.dead = true;
          }
          // Keep the lists short: an index revisited kernel after kernel
          // (reused scratch) would otherwise scan every access ever made to it.
          compact(*list);
        }
      }
  };
  for (const MemRegion &w : step.writes)
    retire(w, true);
  for (const MemRegion &r : step.reads)
    retire(r, false);
  auto add = [&](const MemRegion &r, bool write) {
    int64_t e = entries.size();
    entries.push_back({index, step.stream, r, write});
    for (auto [b0, b1] : r.buckets(kBucketBytes))
      for (int64_t b = b0; b <= b1; ++b) {
        Bucket &bucket = buckets[keyOf(r, b)];
        (write ? bucket.writes : bucket.reads).push_back(e);
      }
  };
  for (const MemRegion &r : step.reads)
    add(r, false);
  for (const MemRegion &r : step.writes)
    add(r, true);
}
