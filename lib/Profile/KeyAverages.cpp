//===- KeyAverages.cpp - The key-averages table ---------------------------===//
//
// Laid out like torch.profiler's key_averages().table(): a dashed rule, the
// header, a rule, one row per key, a rule, and the total.
//
//===----------------------------------------------------------------------===//

#include "SourceOps.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/Path.h"

#include <map>

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

std::string neuronc::profile::shortLocation(llvm::StringRef location) {
  llvm::SmallVector<llvm::StringRef> parts;
  location.split(parts, "; ", -1, /*KeepEmpty=*/false);
  // file -> (first line, last line); a part that is not file:line:col as is.
  llvm::MapVector<llvm::StringRef, std::pair<unsigned, unsigned>> lines;
  std::vector<std::string> other;
  for (llvm::StringRef part : parts) {
    auto [rest, col] = part.rsplit(':');
    auto [file, lineText] = rest.rsplit(':');
    unsigned line = 0, column = 0;
    if (file.empty() || lineText.getAsInteger(10, line) || col.getAsInteger(10, column)) {
      other.push_back(part.str());
      continue;
    }
    if (parts.size() == 1)
      return (llvm::sys::path::filename(file) + ":" + lineText + ":" + col).str();
    auto [it, inserted] = lines.insert({file, {line, line}});
    it->second.first = std::min(it->second.first, line);
    it->second.second = std::max(it->second.second, line);
  }
  std::string out;
  for (auto &[file, range] : lines) {
    out += (out.empty() ? "" : ", ") + llvm::sys::path::filename(file).str() + ":" +
           std::to_string(range.first);
    if (range.second != range.first)
      out += "-" + std::to_string(range.second);
  }
  for (const std::string &o : other)
    out += (out.empty() ? "" : ", ") + o;
  return out;
}

std::string neuronc::profile::absorbedText(llvm::ArrayRef<neff::AbsorbedOp> absorbed) {
  if (absorbed.empty())
    return "";
  llvm::MapVector<llvm::StringRef, int> counts;
  std::string locations;
  for (const neff::AbsorbedOp &a : absorbed) {
    ++counts[a.op];
    if (!a.location.empty())
      locations += (locations.empty() ? "" : "; ") + a.location;
  }
  std::string out;
  for (auto &[op, n] : counts)
    out += (out.empty() ? "" : ", ") + op.str() + (n > 1 ? " x" + std::to_string(n) : "");
  if (!locations.empty())
    out += " (" + shortLocation(locations) + ")";
  return out;
}

const neff::Kernel *neuronc::profile::kernelRecord(const Profile &p, const KernelStats &k) {
  for (const rt::Run *r : p.runs)
    if (r->program && r->program->name == k.program)
      for (const neff::Kernel &kernel : r->program->kernels)
        if (kernel.name == k.name)
          return &kernel;
  return nullptr;
}

std::vector<OpNameTotal> neuronc::profile::opNameTotals(const Profile &p) {
  llvm::MapVector<llvm::StringRef, OpNameTotal> byName;
  for (const OpStats &o : p.ops) {
    OpNameTotal &t = byName[o.name];
    t.name = o.name;
    ++t.rows;
    t.calls += o.calls;
    t.instructions += o.instructions;
    t.deviceNs += o.deviceNs;
  }
  std::vector<OpNameTotal> totals;
  for (auto &[name, t] : byName)
    totals.push_back(std::move(t));
  llvm::stable_sort(
      totals, [](const OpNameTotal &a, const OpNameTotal &b) { return a.deviceNs > b.deviceNs; });
  return totals;
}

std::string neuronc::profile::keyAveragesTable(const Profile &p, size_t rowLimit) {
  std::string out;
  // Rows are source ops by name and location; a fused op also says what it
  // absorbed, in a last column present when one did.
  bool opsAbsorbed = llvm::any_of(p.ops, [](const OpStats &o) { return !o.absorbed.empty(); });
  std::vector<std::pair<std::string, bool>> opColumns = {
      {"Name", false},       {"Location", false},  {"Self Device %", true},
      {"Self Device", true}, {"Device avg", true}, {"# of Calls", true},
      {"Instrs", true},      {"HBM read", true},   {"HBM write", true}};
  if (opsAbsorbed)
    opColumns.push_back({"Absorbed", false});
  Table ops(opColumns);
  size_t n = 0;
  for (const OpStats &o : p.ops) {
    if (rowLimit && n++ >= rowLimit)
      break;
    std::vector<std::string> row = {o.name,
                                    shortLocation(o.location),
                                    pct(o.deviceNs, p.deviceNs),
                                    formatNs(o.deviceNs),
                                    formatNs(o.deviceNs / std::max<int64_t>(1, o.calls)),
                                    std::to_string(o.calls),
                                    std::to_string(o.instructions),
                                    formatBytes(o.hbmReadBytes),
                                    formatBytes(o.hbmWriteBytes)};
    if (opsAbsorbed)
      row.push_back(absorbedText(o.absorbed));
    ops.add(std::move(row));
  }
  out += ops.render();
  std::string tail;
  llvm::raw_string_ostream os(tail);
  os << "Self device time total: " << formatNs(p.deviceNs) << " (" << p.runs.size() << " run"
     << (p.runs.size() == 1 ? "" : "s") << " on " << p.hw->name << ", "
     << llvm::format("%.1f", p.deviceNs > 0 ? 100 * p.idleNs / p.deviceNs : 0.0)
     << " % with no kernel active)\n";
  os << bucketSummaryText(p) << "\n";
  os << communicationText(p);
  out += tail;

  // Per-name totals, when some name is at several locations.
  std::vector<OpNameTotal> totals = opNameTotals(p);
  if (llvm::any_of(totals, [](const OpNameTotal &t) { return t.rows > 1; })) {
    out += "By op name (the rows above summed over their locations):\n";
    Table byName({{"Name", false},
                  {"Self Device %", true},
                  {"Self Device", true},
                  {"# of Calls", true},
                  {"Instrs", true},
                  {"Locations", true}});
    n = 0;
    for (const OpNameTotal &t : totals) {
      if (rowLimit && n++ >= rowLimit)
        break;
      byName.add({t.name, pct(t.deviceNs, p.deviceNs), formatNs(t.deviceNs),
                  std::to_string(t.calls), std::to_string(t.instructions), std::to_string(t.rows)});
    }
    out += byName.render() + "\n";
  }

  std::vector<const neff::Kernel *> records;
  for (const KernelStats &k : p.kernels)
    records.push_back(kernelRecord(p, k));
  bool kernelsAbsorbed =
      llvm::any_of(records, [](const neff::Kernel *r) { return r && !r->absorbed.empty(); });
  std::vector<std::pair<std::string, bool>> kernelColumns = {
      {"Kernel", false},    {"Kind", false},         {"Source", false},
      {"Location", false},  {"Self Device %", true}, {"Self Device", true},
      {"# of Calls", true}, {"Verdict", false},      {"Measured", false}};
  if (kernelsAbsorbed)
    kernelColumns.push_back({"Absorbed", false});
  Table ks(kernelColumns);
  n = 0;
  for (auto [k, record] : llvm::zip(p.kernels, records)) {
    if (rowLimit && n++ >= rowLimit)
      break;
    std::vector<std::string> row = {k.program + "/" + k.name,
                                    k.kind,
                                    k.source,
                                    shortLocation(k.location),
                                    pct(k.deviceNs, p.deviceNs),
                                    formatNs(k.deviceNs),
                                    std::to_string(k.calls),
                                    k.verdict.verdict,
                                    k.verdict.evidence};
    if (kernelsAbsorbed)
      row.push_back(record ? absorbedText(record->absorbed) : "");
    ks.add(std::move(row));
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

std::string neuronc::profile::communicationText(const Profile &p) {
  if (p.communication.empty())
    return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  auto line = [&](const CoreCommunication &c) {
    double d = std::max(c.deviceNs, 1e-9);
    os << "device " << formatNs(c.deviceNs) << ", compute " << formatNs(c.computeNs)
       << ", collective " << formatNs(c.collectiveNs) << " ("
       << llvm::format("%.1f", 100 * c.collectiveNs / d) << " %), exposed "
       << formatNs(c.exposedNs) << " (" << llvm::format("%.1f", 100 * c.exposedNs / d)
       << " %), waiting for the group " << formatNs(c.waitNs) << "\n";
  };
  os << "Tensor parallel, each core's last run (compute: any other instruction running; "
        "exposed: a collective with nothing else running):\n";
  // Each core's last profiled run, and the group's figure: each quantity's
  // slowest core.
  std::map<unsigned, CoreCommunication> last;
  for (const CoreCommunication &c : p.communication)
    last[c.core] = c;
  CoreCommunication worst;
  worst.group = p.communication.front().group;
  for (const auto &[core, c] : last) {
    os << "  core " << core << ": ";
    line(c);
    worst.deviceNs = std::max(worst.deviceNs, c.deviceNs);
    worst.computeNs = std::max(worst.computeNs, c.computeNs);
    worst.collectiveNs = std::max(worst.collectiveNs, c.collectiveNs);
    worst.exposedNs = std::max(worst.exposedNs, c.exposedNs);
    worst.waitNs = std::max(worst.waitNs, c.waitNs);
  }
  os << "  group of " << worst.group << " (the slowest core in each): ";
  line(worst);
  return out;
}
