//===- KeyAverages.cpp - The key-averages table ---------------------------===//
//
// Laid out like torch.profiler's key_averages().table(): a dashed rule, the
// header, a rule, one row per key, a rule, and the total.
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/Format.h"

using namespace neuronc;
using namespace neuronc::profile;

namespace {

/// A fixed-width text table.
class Table {
public:
  explicit Table(std::vector<std::pair<std::string, bool>> columns) : columns(std::move(columns)) {
    for (auto &c : this->columns)
      widths.push_back(c.first.size());
  }
  void add(std::vector<std::string> row) {
    for (size_t i = 0; i < row.size(); ++i)
      widths[i] = std::max(widths[i], row[i].size());
    rows.push_back(std::move(row));
  }
  std::string render() const {
    std::string out;
    auto rule = [&] {
      for (size_t i = 0; i < widths.size(); ++i)
        out += std::string(widths[i], '-') + (i + 1 < widths.size() ? "  " : "\n");
    };
    auto line = [&](const std::vector<std::string> &cells) {
      for (size_t i = 0; i < cells.size(); ++i) {
        size_t pad = widths[i] - cells[i].size();
        bool right = columns[i].second;
        out += right ? std::string(pad, ' ') + cells[i] : cells[i] + std::string(pad, ' ');
        out += i + 1 < cells.size() ? "  " : "\n";
      }
    };
    rule();
    std::vector<std::string> header;
    for (auto &c : columns)
      header.push_back(c.first);
    line(header);
    rule();
    for (auto &r : rows)
      line(r);
    rule();
    return out;
  }

private:
  std::vector<std::pair<std::string, bool>> columns; ///< name, right-aligned
  std::vector<size_t> widths;
  std::vector<std::vector<std::string>> rows;
};

std::string pct(double part, double whole) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format("%.2f %%", whole > 0 ? 100 * part / whole : 0.0);
  return s;
}

} // namespace

std::string neuronc::profile::keyAveragesTable(const Profile &p, size_t rowLimit) {
  std::string out;
  Table ops({{"Name", false},
             {"Self Device %", true},
             {"Self Device", true},
             {"Device avg", true},
             {"# of Calls", true},
             {"Instrs", true},
             {"HBM read", true},
             {"HBM write", true}});
  size_t n = 0;
  for (const OpStats &o : p.ops) {
    if (rowLimit && n++ >= rowLimit)
      break;
    ops.add({o.name, pct(o.deviceNs, p.deviceNs), formatNs(o.deviceNs),
             formatNs(o.deviceNs / std::max<int64_t>(1, o.calls)), std::to_string(o.calls),
             std::to_string(o.instructions), formatBytes(o.hbmReadBytes),
             formatBytes(o.hbmWriteBytes)});
  }
  out += ops.render();
  std::string tail;
  llvm::raw_string_ostream os(tail);
  os << "Self device time total: " << formatNs(p.deviceNs) << " (" << p.runs.size() << " run"
     << (p.runs.size() == 1 ? "" : "s") << " on " << p.hw->name << ", "
     << llvm::format("%.1f", p.deviceNs > 0 ? 100 * p.idleNs / p.deviceNs : 0.0)
     << " % with no kernel active)\n";
  os << bucketSummaryText(p) << "\n";
  out += tail;

  Table ks({{"Kernel", false},
            {"Kind", false},
            {"Source", false},
            {"Self Device %", true},
            {"Self Device", true},
            {"# of Calls", true},
            {"Verdict", false},
            {"Measured", false}});
  n = 0;
  for (const KernelStats &k : p.kernels) {
    if (rowLimit && n++ >= rowLimit)
      break;
    ks.add({k.program + "/" + k.name, k.kind, k.source, pct(k.deviceNs, p.deviceNs),
            formatNs(k.deviceNs), std::to_string(k.calls), k.verdict.verdict,
            k.verdict.evidence});
  }
  out += ks.render();
  out += bottleneckText(p);
  out += predictionText(p);
  return out;
}

std::vector<neuronc::profile::BucketUse> neuronc::profile::bucketUses(const Profile &p) {
  std::vector<BucketUse> uses;
  for (const rt::Run *r : p.runs) {
    if (r->bucket < 0 || !r->signature)
      continue;
    const BucketSignature &sig = *r->signature;
    std::string bucket = sig.formatSizes(sig.buckets[r->bucket]);
    std::string sizes = sig.formatSizes(r->trueSizes);
    auto it = llvm::find_if(uses, [&](const BucketUse &u) {
      return u.entry == r->entry && u.bucket == bucket;
    });
    if (it == uses.end()) {
      uses.push_back({r->entry, bucket, sizes, 0, 0});
      it = std::prev(uses.end());
    } else if (it->trueSizes != sizes) {
      it->trueSizes = "several";
    }
    it->paddingFraction = (it->paddingFraction * it->runs + r->paddingFraction) / (it->runs + 1);
    ++it->runs;
  }
  return uses;
}

std::string neuronc::profile::bucketSummaryText(const Profile &p) {
  std::string out;
  llvm::raw_string_ostream os(out);
  for (const BucketUse &u : bucketUses(p))
    os << "@" << u.entry << " bucket " << u.bucket << " ran " << u.runs << " time(s) for "
       << (u.trueSizes == "several" ? "several sizes" : u.trueSizes) << ": "
       << llvm::format("%.1f", 100 * u.paddingFraction) << " % of its work was padding\n";
  return out;
}
