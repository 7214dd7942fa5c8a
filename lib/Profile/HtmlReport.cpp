//===- HtmlReport.cpp - The self-contained HTML report --------------------===//
//
// One file, no network: inline CSS, the tables as HTML, the roofline chart
// as SVG written here, and the engine timeline drawn by an inline script
// from the segments embedded as JSON (one row per engine and DMA queue, the
// first profiled run, busy segments merged below a pixel).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/Format.h"

#include <cmath>

using namespace neuronc;
using namespace neuronc::profile;

namespace {

std::string esc(llvm::StringRef s) {
  std::string out;
  for (char c : s) {
    switch (c) {
    case '&': out += "&amp;"; break;
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::string fmt(const char *f, double v) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format(f, v);
  return s;
}

/// The roofline chart: log-log, arithmetic intensity (FLOP/B) against
/// achieved FLOP/s, under the HBM slope, the TensorE and the VectorE+ScalarE
/// ceilings; one point per kernel.
std::string rooflineSvg(const Profile &p) {
  const HardwareModel &hw = *p.hw;
  const double W = 720, H = 420, L = 70, R = 20, T = 20, B = 50;
  double xmin = 1e-3, xmax = 1e4, ymin = 1e8, ymax = 1e15;
  auto X = [&](double v) {
    return L + (std::log10(std::max(v, xmin)) - std::log10(xmin)) /
                   (std::log10(xmax) - std::log10(xmin)) * (W - L - R);
  };
  auto Y = [&](double v) {
    return H - B - (std::log10(std::max(v, ymin)) - std::log10(ymin)) /
                       (std::log10(ymax) - std::log10(ymin)) * (H - T - B);
  };
  double bw = hw.memoryGBps() * 1e9;            // bytes/s
  double peak = hw.tensorBf16Tflops * 1e12;     // FLOP/s
  double vs = (hw.vectorElementsPerCycle * hw.vectorClockGHz + hw.scalarLanes * hw.scalarClockGHz) *
              1e9;                              // element ops/s
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "<svg id=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << W
     << "\" height=\"" << H << "\" viewBox=\"0 0 " << W << " " << H << "\">\n";
  os << "<rect x=\"" << L << "\" y=\"" << T << "\" width=\"" << W - L - R << "\" height=\""
     << H - T - B << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
  for (int e = -3; e <= 4; ++e)
    os << "<text x=\"" << X(std::pow(10, e)) << "\" y=\"" << H - B + 16
       << "\" font-size=\"11\" text-anchor=\"middle\">1e" << e << "</text>\n";
  for (int e = 8; e <= 15; ++e)
    os << "<text x=\"" << L - 6 << "\" y=\"" << Y(std::pow(10, e)) + 4
       << "\" font-size=\"11\" text-anchor=\"end\">1e" << e << "</text>\n";
  os << "<text x=\"" << (L + W - R) / 2 << "\" y=\"" << H - 12
     << "\" font-size=\"12\" text-anchor=\"middle\">arithmetic intensity (FLOP per HBM byte)"
        "</text>\n";
  os << "<text x=\"14\" y=\"" << (T + H - B) / 2 << "\" font-size=\"12\" transform=\"rotate(-90 14 "
     << (T + H - B) / 2 << ")\" text-anchor=\"middle\">achieved FLOP/s</text>\n";
  // HBM slope up to each ceiling.
  auto roof = [&](double ceiling, const char *color, const char *label, const char *cls) {
    double ridge = ceiling / bw;
    os << "<polyline class=\"" << cls << "\" fill=\"none\" stroke=\"" << color
       << "\" stroke-width=\"2\" points=\"" << X(xmin) << "," << Y(xmin * bw) << " " << X(ridge)
       << "," << Y(ceiling) << " " << X(xmax) << "," << Y(ceiling) << "\"/>\n";
    os << "<text x=\"" << X(xmax) - 4 << "\" y=\"" << Y(ceiling) - 5
       << "\" font-size=\"11\" text-anchor=\"end\" fill=\"" << color << "\">" << label
       << "</text>\n";
  };
  roof(peak, "#c0392b", ("TensorE bf16 peak " + fmt("%.1f", peak / 1e12) + " TFLOP/s").c_str(),
       "roof-tensor");
  roof(vs, "#2980b9", ("VectorE+ScalarE " + fmt("%.0f", vs / 1e9) + " Gop/s").c_str(),
       "roof-vector");
  os << "<text x=\"" << X(0.01) << "\" y=\"" << Y(0.01 * bw) - 8
     << "\" font-size=\"11\" fill=\"#555\">HBM " << fmt("%.0f", bw / 1e9) << " GB/s</text>\n";
  for (const KernelStats &k : p.kernels) {
    double bytes = static_cast<double>(k.hbmReadBytes + k.hbmWriteBytes);
    double flops = static_cast<double>(k.matmulFlops + k.vectorScalarElements);
    if (bytes <= 0 || flops <= 0 || k.spanNs <= 0)
      continue;
    double ai = flops / bytes, achieved = flops / (k.spanNs * 1e-9);
    os << "<circle class=\"kernel-point\" data-kernel=\"" << esc(k.program + "/" + k.name)
       << "\" cx=\"" << X(ai) << "\" cy=\"" << Y(achieved) << "\" r=\"5\" fill=\""
       << (k.matmulFlops ? "#c0392b" : "#2980b9") << "\" fill-opacity=\"0.7\"><title>"
       << esc(k.program + "/" + k.name + " " + k.kind) << ": " << fmt("%.3g", ai) << " FLOP/B, "
       << fmt("%.3g", achieved) << " FLOP/s, " << esc(k.verdict.verdict) << "</title></circle>\n";
    os << "<text x=\"" << X(ai) + 7 << "\" y=\"" << Y(achieved) + 4 << "\" font-size=\"10\">"
       << esc(k.name) << "</text>\n";
  }
  os << "</svg>\n";
  return s;
}

/// The timeline segments of the first run, as JSON for the page's script.
std::string timelineJson(const Profile &p) {
  const rt::Run &run = *p.runs.front();
  const neff::Program &prog = *run.program;
  double t0 = run.device.startNs, t1 = std::max(run.device.endNs, t0 + 1);
  double merge = (t1 - t0) / 2000; // below a pixel at 2000 px
  struct Row {
    std::string name;
    std::vector<std::array<double, 2>> segs;
  };
  std::map<int, Row> rows;
  auto rowOf = [&](const isa::Instruction &inst) -> std::pair<int, std::string> {
    switch (inst.engine) {
    case isa::Engine::tensor:
      return inst.opcode == isa::Opcode::LoadStationary
                 ? std::pair<int, std::string>{0, "TensorE (LoadStationary)"}
                 : std::pair<int, std::string>{1, "TensorE (MultiplyMoving)"};
    case isa::Engine::vector: return {2, "VectorE"};
    case isa::Engine::scalar: return {3, "ScalarE"};
    case isa::Engine::gpsimd: return {4, "GpSimdE"};
    case isa::Engine::dma: return {10 + inst.queue, "DMA q" + std::to_string(inst.queue)};
    }
    return {2, "VectorE"};
  };
  for (int i = 0; i < 5; ++i)
    rows[i].name = std::array<const char *, 5>{"TensorE (LoadStationary)",
                                               "TensorE (MultiplyMoving)", "VectorE", "ScalarE",
                                               "GpSimdE"}[i];
  for (const sim::TraceEvent &e : run.device.trace) {
    auto [id, name] = rowOf(prog.streams[e.stream][e.index]);
    Row &r = rows[id];
    r.name = name;
    double s = e.start - t0, d = e.end - e.start;
    if (!r.segs.empty() && s - (r.segs.back()[0] + r.segs.back()[1]) <= merge)
      r.segs.back()[1] = std::max(r.segs.back()[1], s + d - r.segs.back()[0]);
    else
      r.segs.push_back({s, d});
  }
  llvm::json::Array out;
  for (auto &[id, r] : rows) {
    llvm::json::Array segs;
    for (auto &sg : r.segs)
      segs.push_back(llvm::json::Array{std::round(sg[0]), std::max(1.0, std::round(sg[1]))});
    out.push_back(llvm::json::Object{{"name", r.name}, {"segs", std::move(segs)}});
  }
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(llvm::json::Object{{"duration_ns", t1 - t0},
                                             {"run", static_cast<int64_t>(run.id)},
                                             {"rows", std::move(out)}});
  // Never close the script element early.
  std::string safe;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '<' )
      safe += "\\u003c";
    else
      safe += s[i];
  }
  return safe;
}

const char *kStyle = R"(
body { font-family: sans-serif; margin: 24px; color: #222; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; }
table { border-collapse: collapse; font-size: 13px; }
th, td { border-bottom: 1px solid #ddd; padding: 3px 10px; text-align: right; }
th { background: #f0f0f0; } td.l, th.l { text-align: left; }
.verdict { font-weight: bold; }
#timeline text { font-size: 11px; }
)";

const char *kScript = R"(
(function () {
  var data = JSON.parse(document.getElementById('timeline-data').textContent);
  var svg = document.getElementById('timeline');
  var ns = 'http://www.w3.org/2000/svg';
  var left = 170, width = 900, rowH = 16;
  svg.setAttribute('width', left + width + 20);
  svg.setAttribute('height', data.rows.length * rowH + 30);
  var colors = ['#8e44ad', '#c0392b', '#27ae60', '#e67e22', '#16a085'];
  data.rows.forEach(function (row, i) {
    var label = document.createElementNS(ns, 'text');
    label.setAttribute('x', 4); label.setAttribute('y', i * rowH + 12);
    label.textContent = row.name; svg.appendChild(label);
    row.segs.forEach(function (sg) {
      var r = document.createElementNS(ns, 'rect');
      r.setAttribute('class', 'seg'); r.setAttribute('data-row', row.name);
      r.setAttribute('x', left + sg[0] / data.duration_ns * width);
      r.setAttribute('width', Math.max(0.5, sg[1] / data.duration_ns * width));
      r.setAttribute('y', i * rowH + 2); r.setAttribute('height', rowH - 4);
      r.setAttribute('fill', i < colors.length ? colors[i] : '#7f8c8d');
      svg.appendChild(r);
    });
  });
  var axis = document.createElementNS(ns, 'text');
  axis.setAttribute('x', left); axis.setAttribute('y', data.rows.length * rowH + 20);
  axis.textContent = '0 .. ' + (data.duration_ns / 1000).toFixed(1) + ' us (run ' + data.run + ')';
  svg.appendChild(axis);
  svg.setAttribute('data-rendered', 'yes');
})();
)";

} // namespace

std::string neuronc::profile::htmlReport(const Profile &p) {
  std::string s;
  llvm::raw_string_ostream os(s);
  const HardwareModel &hw = *p.hw;
  auto metric = [&](const char *name) {
    auto it = p.summary.find(name);
    return it == p.summary.end() ? 0.0 : it->second;
  };
  os << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
     << "<title>neuronc profile (" << esc(hw.name) << ")</title>\n<style>" << kStyle
     << "</style>\n</head>\n<body>\n";
  os << "<h1>neuronc profile: " << esc(p.runs.front()->model->name()) << " on "
     << esc(hw.name) << " (" << esc(hw.core) << ", simulated)</h1>\n";
  std::vector<double> sorted = p.runDeviceNs;
  llvm::sort(sorted);
  os << "<p id=\"overview\">" << p.runs.size() << " run(s); device time per run: min "
     << esc(formatNs(sorted.front())) << ", median " << esc(formatNs(medianOf(sorted)))
     << ", max " << esc(formatNs(sorted.back())) << ".</p>\n";

  os << "<h2>Summary</h2>\n<table id=\"summary\">\n<tr><th class=\"l\">metric</th><th>value</th>"
        "</tr>\n";
  auto row = [&](const std::string &name, const std::string &value) {
    os << "<tr><td class=\"l\">" << esc(name) << "</td><td>" << esc(value) << "</td></tr>\n";
  };
  row("total_time", formatNs(metric("total_time") * 1e9));
  for (const char *e : {"tensor", "vector", "scalar", "gpsimd"})
    row(std::string(e) + "_engine_active_time_percent",
        fmt("%.1f %%", metric((std::string(e) + "_engine_active_time_percent").c_str())));
  row("dma_active_time_percent", fmt("%.1f %%", metric("dma_active_time_percent")));
  row("mfu_estimated_percent", fmt("%.1f %%", metric("mfu_estimated_percent")));
  row("mbu_estimated_percent", fmt("%.1f %%", metric("mbu_estimated_percent")));
  row("hbm_mbu_estimated_percent", fmt("%.1f %%", metric("hbm_mbu_estimated_percent")));
  row("dma_mbu_estimated_percent", fmt("%.1f %%", metric("dma_mbu_estimated_percent")));
  row("hbm_read_bytes", formatBytes(metric("hbm_read_bytes")));
  row("hbm_write_bytes", formatBytes(metric("hbm_write_bytes")));
  row("mm_arithmetic_intensity", fmt("%.2f FLOP/B", metric("mm_arithmetic_intensity")));
  row("peak_flops_bandwidth_ratio", fmt("%.1f FLOP/B", metric("peak_flops_bandwidth_ratio")));
  row("dma_transfer_average_bytes", formatBytes(metric("dma_transfer_average_bytes")));
  os << "</table>\n";

  if (std::string buckets = bucketSummaryText(p); !buckets.empty()) {
    os << "<h2>Buckets</h2>\n<pre id=\"buckets\">";
    for (char c : buckets)
      os << (c == '<' ? std::string("&lt;") : c == '&' ? std::string("&amp;") : std::string(1, c));
    os << "</pre>\n";
  }
  os << "<h2>Engine timeline</h2>\n<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\">"
        "</svg>\n<script id=\"timeline-data\" type=\"application/json\">"
     << timelineJson(p) << "</script>\n";

  os << "<h2>Device time by source op</h2>\n<table id=\"key-averages\">\n<tr><th class=\"l\">"
        "Name</th><th>Self Device %</th><th>Self Device</th><th>Device avg</th><th># of Calls"
        "</th><th>HBM read</th><th>HBM write</th></tr>\n";
  for (const OpStats &o : p.ops)
    os << "<tr><td class=\"l\">" << esc(o.name) << "</td><td>"
       << fmt("%.2f %%", p.deviceNs > 0 ? 100 * o.deviceNs / p.deviceNs : 0) << "</td><td>"
       << esc(formatNs(o.deviceNs)) << "</td><td>"
       << esc(formatNs(o.deviceNs / std::max<int64_t>(1, o.calls))) << "</td><td>" << o.calls
       << "</td><td>" << esc(formatBytes(o.hbmReadBytes)) << "</td><td>"
       << esc(formatBytes(o.hbmWriteBytes)) << "</td></tr>\n";
  os << "</table>\n";

  os << "<h2>Kernels</h2>\n<table id=\"kernels\">\n<tr><th class=\"l\">Kernel</th><th "
        "class=\"l\">Kind</th><th class=\"l\">Source</th><th>Self Device %</th><th>Self Device"
        "</th><th># of Calls</th><th class=\"l\">Verdict</th><th class=\"l\">Measured</th><th "
        "class=\"l\">What would help</th><th class=\"l\">Static prediction</th></tr>\n";
  for (const KernelStats &k : p.kernels)
    os << "<tr><td class=\"l\">" << esc(k.program + "/" + k.name) << "</td><td class=\"l\">"
       << esc(k.kind) << "</td><td class=\"l\">" << esc(k.source) << "</td><td>"
       << fmt("%.2f %%", p.deviceNs > 0 ? 100 * k.deviceNs / p.deviceNs : 0) << "</td><td>"
       << esc(formatNs(k.deviceNs)) << "</td><td>" << k.calls
       << "</td><td class=\"l verdict\">" << esc(k.verdict.verdict) << "</td><td class=\"l\">"
       << esc(k.verdict.evidence) << "</td><td class=\"l\">" << esc(k.verdict.hint)
       << "</td><td class=\"l\">"
       << esc(k.predictionNote.empty()
                  ? formatNs(k.predictedNs) + " (" + k.predictedVerdict + "), within 1.5x"
                  : k.predictionNote)
       << "</td></tr>\n";
  os << "</table>\n";

  os << "<h2>Roofline</h2>\n" << rooflineSvg(p);
  os << "<script>" << kScript << "</script>\n</body>\n</html>\n";
  return s;
}
