//===- HtmlReport.cpp - The self-contained HTML report --------------------===//
//
// One file, no network: inline CSS, the tables as HTML, the roofline chart
// as SVG written here (labels placed so that none overlaps another), and the
// engine timeline of the first profiled run drawn by an inline script from
// the segments embedded as JSON: a kernel row on top, one row per engine and
// DMA queue, time ticks, a tooltip (<title>) and data attributes on every
// block, zoom (wheel, +/- buttons, #timeline=START,END in the address) and
// drag to pan. After drawing, the script counts the text labels of each
// chart whose boxes overlap and writes the count as data-overlaps on the
// chart's <svg> (html-report.test pins 0).
//
//===----------------------------------------------------------------------===//

#include "neuronc/Profile/Profile.h"

#include "llvm/Support/Format.h"

#include <cmath>
#include <set>

using namespace neuronc;
using namespace neuronc::profile;

namespace {

/// `s` with the characters HTML gives a meaning escaped.
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

/// `v` printed with the printf format `f`.
std::string fmt(const char *f, double v) {
  std::string s;
  llvm::raw_string_ostream(s) << llvm::format(f, v);
  return s;
}

//===----------------------------------------------------------------------===//
// Roofline chart
//===----------------------------------------------------------------------===//

/// A rectangle on a chart, in SVG user units (y grows downwards).
struct Box {
  double x0, y0, x1, y1;
  bool intersects(const Box &o) const { return x0 < o.x1 && o.x0 < x1 && y0 < o.y1 && o.y0 < y1; }
  bool inside(const Box &o) const { return x0 >= o.x0 && x1 <= o.x1 && y0 >= o.y0 && y1 <= o.y1; }
};

/// A generous average advance of a sans-serif glyph (DejaVu Sans, the widest
/// common default, averages about 0.6 em), in ems, so estimated label boxes
/// contain the rendered ones.
constexpr double kGlyphEm = 0.66;

/// `v` with one decimal: an SVG coordinate.
std::string num(double v) { return fmt("%.1f", v); }

/// The estimated box of `text` drawn at font size `size` with its baseline
/// at `y`, anchored at `x` by `anchor` ("start", "middle" or "end").
Box textBox(llvm::StringRef text, double size, double x, double y, llvm::StringRef anchor) {
  double w = static_cast<double>(text.size()) * kGlyphEm * size + 2;
  double x0 = anchor == "end" ? x - w : anchor == "middle" ? x - w / 2 : x;
  return {x0, y - size, x0 + w, y + 0.35 * size};
}

/// Places chart labels greedily: each takes the first of its candidate
/// positions whose box lies within the bounds and misses every box taken
/// before it.
class LabelPlacer {
public:
  explicit LabelPlacer(Box bounds) : bounds(bounds) {}
  /// Marks `box` as taken (a point, an axis label).
  void take(const Box &box) { taken.push_back(box); }
  /// Whether `box` is within the bounds and free.
  bool fits(const Box &box) const {
    if (!box.inside(bounds))
      return false;
    return llvm::none_of(taken, [&](const Box &t) { return t.intersects(box); });
  }

private:
  Box bounds;
  std::vector<Box> taken;
};

/// A label candidate: where the text goes and how it is anchored.
struct Spot {
  double x, y;
  const char *anchor;
};

/// Places `text` at the first of `spots` that fits, marks its box taken and
/// returns the spot; std::nullopt when none fits.
std::optional<Spot> place(LabelPlacer &placer, llvm::StringRef text, double size,
                          llvm::ArrayRef<Spot> spots) {
  for (const Spot &sp : spots) {
    Box b = textBox(text, size, sp.x, sp.y, sp.anchor);
    if (placer.fits(b)) {
      placer.take(b);
      return sp;
    }
  }
  return std::nullopt;
}

/// The roofline chart: log-log, arithmetic intensity (FLOP/B) against
/// achieved FLOP/s, under the HBM slope, the TensorE bf16 and fp32 ceilings
/// and the VectorE+ScalarE ceiling; one point per kernel. Every label is
/// placed clear of the others and of the points (a leader line joins a
/// kernel's label to its point when it had to move); a kernel whose label
/// finds no room is named in the legend below only.
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
  double bw = hw.memoryGBps() * 1e9;              // bytes/s
  double peak = hw.tensorBf16Tflops * 1e12;       // FLOP/s
  double peakFp32 = peak * hw.tensorFp32Fraction; // fp32 operands (InstructionCost)
  double vs = (hw.vectorElementsPerCycle * hw.vectorClockGHz + hw.scalarLanes * hw.scalarClockGHz) *
              1e9; // element ops/s
  std::string s;
  llvm::raw_string_ostream os(s);
  os << "<svg id=\"roofline\" xmlns=\"http://www.w3.org/2000/svg\" width=\"" << num(W)
     << "\" height=\"" << num(H) << "\" viewBox=\"0 0 " << num(W) << " " << num(H) << "\">\n";
  os << "<rect x=\"" << num(L) << "\" y=\"" << num(T) << "\" width=\"" << num(W - L - R)
     << "\" height=\"" << num(H - T - B) << "\" fill=\"#fafafa\" stroke=\"#999\"/>\n";
  for (int e = -3; e <= 4; ++e)
    os << "<text x=\"" << num(X(std::pow(10, e))) << "\" y=\"" << num(H - B + 19)
       << "\" font-size=\"11\" text-anchor=\"middle\">1e" << e << "</text>\n";
  for (int e = 8; e <= 15; ++e)
    os << "<text x=\"" << num(L - 6) << "\" y=\"" << num(Y(std::pow(10, e)) + 4)
       << "\" font-size=\"11\" text-anchor=\"end\">1e" << e << "</text>\n";
  os << "<text x=\"" << num((L + W - R) / 2) << "\" y=\"" << num(H - 12)
     << "\" font-size=\"12\" text-anchor=\"middle\">arithmetic intensity (FLOP per HBM byte)"
        "</text>\n";
  os << "<text x=\"14\" y=\"" << num((T + H - B) / 2)
     << "\" font-size=\"12\" transform=\"rotate(-90 14 " << num((T + H - B) / 2)
     << ")\" text-anchor=\"middle\">achieved FLOP/s</text>\n";

  // Labels go inside the plot area, clear of each other and of the points.
  LabelPlacer placer({L + 2, T + 2, W - R - 2, H - B - 2});
  struct Point {
    const KernelStats *k;
    double ai, achieved, x, y;
  };
  std::vector<Point> points;
  std::vector<const KernelStats *> unplotted;
  std::set<std::string> programs;
  for (const KernelStats &k : p.kernels)
    programs.insert(k.program);
  for (const KernelStats &k : p.kernels) {
    double bytes = static_cast<double>(k.hbmReadBytes + k.hbmWriteBytes);
    double flops = static_cast<double>(k.matmulFlops + k.vectorScalarElements);
    if (bytes <= 0 || flops <= 0 || k.spanNs <= 0) {
      unplotted.push_back(&k);
      continue;
    }
    double ai = flops / bytes, achieved = flops / (k.spanNs * 1e-9);
    points.push_back({&k, ai, achieved, X(ai), Y(achieved)});
    placer.take({X(ai) - 5, Y(achieved) - 5, X(ai) + 5, Y(achieved) + 5});
  }

  // The HBM slope up to each ceiling, its label right-aligned at the ceiling's
  // end, above the line if there is room, else below.
  auto roof = [&](double ceiling, const char *color, const std::string &label, const char *cls,
                  const char *dash) {
    double ridge = ceiling / bw;
    os << "<polyline class=\"" << cls << "\" fill=\"none\" stroke=\"" << color
       << "\" stroke-width=\"2\"" << dash << " points=\"" << num(X(xmin)) << ","
       << num(Y(xmin * bw)) << " " << num(X(ridge)) << "," << num(Y(ceiling)) << " " << num(X(xmax))
       << "," << num(Y(ceiling)) << "\"/>\n";
    std::vector<Spot> spots;
    for (int i = 0; i < 6; ++i)
      spots.push_back({X(xmax) - 4, Y(ceiling) - 5 - 12.0 * i, "end"});
    for (int i = 0; i < 6; ++i)
      spots.push_back({X(xmax) - 4, Y(ceiling) + 14 + 12.0 * i, "end"});
    if (auto sp = place(placer, label, 11, spots))
      os << "<text class=\"roof-label\" x=\"" << num(sp->x) << "\" y=\"" << num(sp->y)
         << "\" font-size=\"11\" text-anchor=\"end\" fill=\"" << color << "\">" << esc(label)
         << "</text>\n";
  };
  roof(peak, "#c0392b", "TensorE bf16 peak " + fmt("%.4g", peak / 1e12) + " TFLOP/s", "roof-tensor",
       "");
  roof(peakFp32, "#cd6155", "TensorE fp32 peak " + fmt("%.4g", peakFp32 / 1e12) + " TFLOP/s",
       "roof-tensor-fp32", " stroke-dasharray=\"6 3\"");
  roof(vs, "#2980b9", "VectorE+ScalarE " + fmt("%.0f", vs / 1e9) + " Gop/s", "roof-vector", "");
  // The slope's label sits just above the slope, where there is room.
  std::string hbm = "HBM " + fmt("%.0f", bw / 1e9) + " GB/s";
  std::vector<Spot> hbmSpots;
  for (double ai : {1e-2, 3e-3, 3e-2, 1e-1, 3e-1})
    hbmSpots.push_back({X(ai), Y(ai * bw) - 8, "start"});
  if (auto sp = place(placer, hbm, 11, hbmSpots))
    os << "<text class=\"roof-label\" x=\"" << num(sp->x) << "\" y=\"" << num(sp->y)
       << "\" font-size=\"11\" fill=\"#555\">" << esc(hbm) << "</text>\n";

  // Kernel points, largest device time first (so they get the nearest
  // spots): right of the point, left of it, then shifted up and down.
  std::vector<std::pair<const KernelStats *, bool>> legend;
  for (const Point &pt : points) {
    const KernelStats &k = *pt.k;
    std::string label = programs.size() > 1 ? k.program + "/" + k.name : k.name;
    os << "<circle class=\"kernel-point\" data-kernel=\"" << esc(k.program + "/" + k.name)
       << "\" cx=\"" << num(pt.x) << "\" cy=\"" << num(pt.y) << "\" r=\"5\" fill=\""
       << (k.matmulFlops ? "#c0392b" : "#2980b9") << "\" fill-opacity=\"0.7\"><title>"
       << esc(k.program + "/" + k.name + " " + k.kind) << ": " << fmt("%.3g", pt.ai) << " FLOP/B, "
       << fmt("%.3g", pt.achieved) << " FLOP/s, " << esc(k.verdict.verdict)
       << "</title></circle>\n";
    std::vector<Spot> spots = {{pt.x + 7, pt.y + 4, "start"}, {pt.x - 7, pt.y + 4, "end"}};
    for (int i = 1; i <= 8; ++i)
      for (double dy : {12.0 * i, -12.0 * i}) {
        spots.push_back({pt.x + 7, pt.y + 4 + dy, "start"});
        spots.push_back({pt.x - 7, pt.y + 4 + dy, "end"});
      }
    std::optional<Spot> sp = place(placer, label, 10, spots);
    legend.push_back({&k, sp.has_value()});
    if (!sp)
      continue;
    if (sp->y != pt.y + 4) // a leader from the point to the moved label
      os << "<line class=\"point-leader\" x1=\"" << num(pt.x) << "\" y1=\"" << num(pt.y)
         << "\" x2=\"" << num(sp->x) << "\" y2=\"" << num(sp->y - 3)
         << "\" stroke=\"#aaa\" stroke-width=\"0.5\"/>\n";
    os << "<text class=\"point-label\" data-kernel=\"" << esc(k.program + "/" + k.name) << "\" x=\""
       << num(sp->x) << "\" y=\"" << num(sp->y) << "\" font-size=\"10\" text-anchor=\""
       << sp->anchor << "\">" << esc(label) << "</text>\n";
  }
  os << "</svg>\n<ul id=\"roofline-legend\">\n";
  for (auto [k, labelled] : legend) {
    double bytes = static_cast<double>(k->hbmReadBytes + k->hbmWriteBytes);
    double flops = static_cast<double>(k->matmulFlops + k->vectorScalarElements);
    os << "<li>" << esc(k->program + "/" + k->name) << " (" << esc(k->kind)
       << "): " << fmt("%.3g", flops / bytes) << " FLOP/B, "
       << fmt("%.3g", flops / (k->spanNs * 1e-9)) << " FLOP/s, " << esc(k->verdict.verdict)
       << (labelled ? "" : " (unlabelled on the chart)") << "</li>\n";
  }
  if (!unplotted.empty()) {
    os << "<li>not plotted (no HBM bytes, no arithmetic or no time):";
    for (const KernelStats *k : unplotted)
      os << " " << esc(k->program + "/" + k->name);
    os << "</li>\n";
  }
  os << "</ul>\n";
  return s;
}

//===----------------------------------------------------------------------===//
// Engine timeline
//===----------------------------------------------------------------------===//

/// At most this many segments are embedded (more are merged at a coarser
/// resolution); the page merges further, below a pixel, as it draws.
constexpr size_t kMaxSegments = 40000;

/// A busy segment of one timeline row: one instruction, or several merged.
struct Segment {
  double start, end;
  int64_t instructions = 0;
  std::map<std::string, int64_t> opcodes;
  std::set<std::string> ops, kernels;
};

/// At most three items of `items`, comma separated, "..." after them.
std::string listOf(const std::set<std::string> &items) {
  std::string s;
  size_t n = 0;
  for (const std::string &i : items) {
    if (n++ == 3) {
      s += ", ...";
      break;
    }
    s += (s.empty() ? "" : ", ") + i;
  }
  return s;
}

/// What a segment is, for its tooltip: "multiply_moving: neuron.matmul in
/// mlp/k0", or "12 instructions (multiply_moving x8, ...): ... in ...".
std::string describe(const Segment &sg) {
  std::string s;
  if (sg.instructions == 1) {
    s = sg.opcodes.begin()->first;
  } else {
    s = std::to_string(sg.instructions) + " instructions (";
    size_t n = 0;
    for (auto &[name, count] : sg.opcodes)
      s += (n++ ? ", " : "") + name + " x" + std::to_string(count);
    s += ")";
  }
  if (!sg.ops.empty())
    s += ": " + listOf(sg.ops);
  if (!sg.kernels.empty())
    s += " in " + listOf(sg.kernels);
  return s;
}

/// The timeline of the first run as JSON for the page's script: the kernel
/// spans (with their lanes), the rows' segments as [start_ns, duration_ns,
/// instructions, what, kernel] (the last two index "strings"): one per
/// instruction, unless that makes more than kMaxSegments; then instructions
/// closer than `duration / 20000` are merged, and coarser until they fit.
std::string timelineJson(const Profile &p) {
  const HardwareModel &hw = *p.hw;
  const rt::Run &run = *p.runs.front();
  const neff::Program &prog = *run.program;
  double t0 = run.device.startNs, t1 = std::max(run.device.endNs, t0 + 1);
  auto rowOf = [&](const isa::Instruction &inst) -> std::pair<int, std::string> {
    switch (inst.engine) {
    case isa::Engine::tensor:
      return inst.opcode == isa::Opcode::LoadStationary
                 ? std::pair<int, std::string>{0, "TensorE (LoadStationary)"}
                 : std::pair<int, std::string>{1, "TensorE (MultiplyMoving)"};
    case isa::Engine::vector: return {2, "VectorE"};
    case isa::Engine::scalar: return {3, "ScalarE"};
    case isa::Engine::gpsimd: return {4, "GpSimdE"};
    case isa::Engine::dma:
      if (isa::isCollective(inst.opcode))
        return {5, "Collectives (" + std::to_string(inst.params[0]) + " cores)"};
      return {10 + inst.queue, "DMA q" + std::to_string(inst.queue)};
    }
    return {2, "VectorE"};
  };
  auto kernelName = [&](uint32_t i) { return prog.name + "/" + prog.kernels[i].name; };

  // Kernel spans as the profile measures them (Analyze.cpp).
  std::vector<double> kbegin(prog.kernels.size(), INFINITY), kend(prog.kernels.size(), -INFINITY);
  for (const sim::TraceEvent &e : run.device.trace) {
    const isa::Instruction &inst = prog.streams[e.stream][e.index];
    if (inst.debug >= prog.debug.size() || prog.debug[inst.debug].kernel >= prog.kernels.size())
      continue;
    uint32_t k = prog.debug[inst.debug].kernel;
    bool dma = inst.opcode == isa::Opcode::DmaCopy;
    kbegin[k] = std::min(kbegin[k], dma ? std::max(e.issue, e.start - hw.dmaLatencyNs) : e.start);
    kend[k] = std::max(kend[k], e.end);
  }

  struct Row {
    std::string name;
    std::vector<Segment> segs;
  };
  std::map<int, Row> rows;
  size_t total = 0;
  for (double merge = -1;; merge = merge < 0 ? (t1 - t0) / 20000 : 2 * merge) {
    rows.clear();
    for (int i = 0; i < 5; ++i)
      rows[i].name =
          std::array<const char *, 5>{"TensorE (LoadStationary)", "TensorE (MultiplyMoving)",
                                      "VectorE", "ScalarE", "GpSimdE"}[i];
    total = 0;
    for (const sim::TraceEvent &e : run.device.trace) {
      const isa::Instruction &inst = prog.streams[e.stream][e.index];
      auto [id, name] = rowOf(inst);
      Row &r = rows[id];
      r.name = name;
      double s = e.start - t0, end = e.end - t0;
      if (r.segs.empty() || s - r.segs.back().end > merge) {
        r.segs.push_back({s, end});
        ++total;
      }
      Segment &sg = r.segs.back();
      sg.end = std::max(sg.end, end);
      ++sg.instructions;
      ++sg.opcodes[isa::opcodeName(inst.opcode).str()];
      if (inst.debug < prog.debug.size()) {
        const neff::DebugEntry &d = prog.debug[inst.debug];
        if (!d.op.empty())
          sg.ops.insert(d.op);
        if (d.kernel < prog.kernels.size())
          sg.kernels.insert(kernelName(d.kernel));
      }
    }
    if (total <= kMaxSegments)
      break;
  }

  std::vector<std::string> strings;
  std::map<std::string, int64_t> stringIndex;
  auto intern = [&](const std::string &str) {
    auto [it, added] = stringIndex.try_emplace(str, static_cast<int64_t>(strings.size()));
    if (added)
      strings.push_back(str);
    return it->second;
  };
  llvm::json::Array out;
  for (auto &[id, r] : rows) {
    llvm::json::Array segs;
    for (const Segment &sg : r.segs) {
      std::string kernel = sg.kernels.size() == 1 ? *sg.kernels.begin()
                           : sg.kernels.empty()   ? std::string()
                                                  : std::string("several");
      segs.push_back(llvm::json::Array{std::round(sg.start),
                                       std::max(1.0, std::round(sg.end - sg.start)),
                                       sg.instructions, intern(describe(sg)), intern(kernel)});
    }
    out.push_back(llvm::json::Object{{"name", r.name}, {"segs", std::move(segs)}});
  }

  // Kernel spans, each on the first lane free at its start.
  std::vector<size_t> order;
  for (size_t i = 0; i < prog.kernels.size(); ++i)
    if (kend[i] >= kbegin[i])
      order.push_back(i);
  llvm::sort(order, [&](size_t a, size_t b) { return kbegin[a] < kbegin[b]; });
  std::vector<double> laneEnds;
  llvm::json::Array kernels;
  for (size_t i : order) {
    size_t lane = 0;
    while (lane < laneEnds.size() && laneEnds[lane] > kbegin[i])
      ++lane;
    if (lane == laneEnds.size())
      laneEnds.push_back(0);
    laneEnds[lane] = kend[i];
    const neff::Kernel &k = prog.kernels[i];
    kernels.push_back(llvm::json::Object{{"name", kernelName(static_cast<uint32_t>(i))},
                                         {"short", k.name},
                                         {"kind", k.kind},
                                         {"source", k.source},
                                         {"s", std::round((kbegin[i] - t0) * 10) / 10},
                                         {"d", std::round((kend[i] - kbegin[i]) * 10) / 10},
                                         {"lane", static_cast<int64_t>(lane)},
                                         {"color", static_cast<int64_t>(i)}});
  }

  llvm::json::Array strs;
  for (std::string &str : strings)
    strs.push_back(std::move(str));
  std::string s;
  llvm::raw_string_ostream os(s);
  os << llvm::json::Value(
      llvm::json::Object{{"duration_ns", t1 - t0},
                         {"run", static_cast<int64_t>(run.id)},
                         {"instructions", static_cast<int64_t>(run.device.trace.size())},
                         {"lanes", static_cast<int64_t>(std::max<size_t>(1, laneEnds.size()))},
                         {"kernels", std::move(kernels)},
                         {"rows", std::move(out)},
                         {"strings", std::move(strs)}});
  // Never close the script element early.
  std::string safe;
  for (char c : s) {
    if (c == '<')
      safe += "\\u003c";
    else
      safe += c;
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
#timeline { cursor: grab; user-select: none; }
#timeline text { font-size: 11px; }
#timeline-controls { font-size: 13px; margin: 6px 0; }
#timeline-controls button { min-width: 28px; }
#roofline-legend { font-size: 12px; }
)";

const char *kScript = R"(
(function () {
  // Counts the <text> elements of `svg` whose rendered boxes overlap, into
  // data-texts / data-overlaps (and the first such pair, data-overlap-first).
  function markOverlaps(svg) {
    var texts = svg.querySelectorAll('text'), boxes = [], n = 0, first = '';
    for (var i = 0; i < texts.length; ++i) {
      var r = texts[i].getBoundingClientRect();
      if (r.width > 0 && r.height > 0) boxes.push([r, texts[i].textContent]);
    }
    for (i = 0; i < boxes.length; ++i)
      for (var j = i + 1; j < boxes.length; ++j) {
        var a = boxes[i][0], b = boxes[j][0];
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5 &&
            Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5) {
          if (!n) first = boxes[i][1] + ' / ' + boxes[j][1];
          ++n;
        }
      }
    svg.setAttribute('data-texts', boxes.length);
    svg.setAttribute('data-overlaps', n);
    if (n) svg.setAttribute('data-overlap-first', first);
    else svg.removeAttribute('data-overlap-first');
  }

  // "830 ns", "1.234 us", "2.500 ms".
  function fmtNs(ns) {
    if (ns < 1e3) return Math.round(ns) + ' ns';
    if (ns < 1e6) return (ns / 1e3).toFixed(3) + ' us';
    return (ns / 1e6).toFixed(3) + ' ms';
  }

  function drawTimeline(data, svg) {
    var NS = svg.namespaceURI, left = 170, width = 900, rowH = 16;
    var lanes = data.lanes, rows = lanes + data.rows.length, axisY = rows * rowH + 2;
    var full = Math.max(1, data.duration_ns), view = [0, full];
    var colors = ['#8e44ad', '#c0392b', '#27ae60', '#e67e22', '#16a085'];
    var kcolors = ['#34495e', '#7d3c98', '#1f618d', '#117864', '#9a7d0a', '#a04000', '#5d6d7e'];
    var range = document.getElementById('timeline-range');
    svg.setAttribute('width', left + width + 40);
    svg.setAttribute('height', axisY + 22);

    function add(parent, name, attrs, text) {
      var e = document.createElementNS(NS, name);
      for (var k in attrs) e.setAttribute(k, attrs[k]);
      if (text !== undefined) e.textContent = text;
      parent.appendChild(e);
      return e;
    }

    // A 1, 2 or 5 times a power of ten step giving 5 to 10 ticks.
    function tickStep(span) {
      var raw = span / 7, p = Math.pow(10, Math.floor(Math.log10(raw))), m = raw / p;
      return (m <= 1.5 ? 1 : m <= 3.5 ? 2 : m <= 7.5 ? 5 : 10) * p;
    }

    function draw() {
      while (svg.firstChild) svg.removeChild(svg.firstChild);
      var v0 = view[0], v1 = view[1], px = (v1 - v0) / width;
      function X(t) { return +(left + (Math.min(Math.max(t, v0), v1) - v0) / px).toFixed(2); }

      // Kernel lanes on top.
      for (var l = 0; l < lanes; ++l)
        add(svg, 'text', {'class': 'row-label', x: 4, y: l * rowH + 12},
            l ? 'Kernels (' + (l + 1) + ')' : 'Kernels');
      data.kernels.forEach(function (k) {
        if (k.s + k.d < v0 || k.s > v1) return;
        var x0 = X(k.s), w = Math.max(0.5, +(X(k.s + k.d) - x0).toFixed(2));
        var y = k.lane * rowH + 1;
        var r = add(svg, 'rect', {'class': 'kernel', 'data-kernel': k.name, 'data-kind': k.kind,
                                  'data-start-ns': k.s, 'data-dur-ns': k.d, x: x0, y: y,
                                  width: w, height: rowH - 2, stroke: '#fff',
                                  fill: kcolors[k.color % kcolors.length]});
        add(r, 'title', {}, 'kernel ' + k.name + ' (' + k.kind + ', ' + k.source + ')\nstart ' +
            fmtNs(k.s) + ', duration ' + fmtNs(k.d));
        var t = add(svg, 'text', {'class': 'kernel-label', x: x0 + 3, y: y + 11, fill: '#fff',
                                  'pointer-events': 'none'}, k.short);
        if (t.getComputedTextLength() > w - 6) svg.removeChild(t);
      });

      // Engine and queue rows.
      data.rows.forEach(function (row, i) {
        var y = (lanes + i) * rowH;
        add(svg, 'text', {'class': 'row-label', x: 4, y: y + 12}, row.name);
        var fill = i < colors.length ? colors[i] : '#7f8c8d', cur = null;
        function flush() {
          if (!cur) return;
          var x0 = X(cur.s), what = cur.pieces == 1 ? data.strings[cur.what]
              : cur.n + ' instructions in ' + cur.pieces + ' segments (zoom in to separate them)';
          var kernel = cur.kernel < 0 ? 'several' : data.strings[cur.kernel];
          var r = add(svg, 'rect', {'class': 'seg', 'data-row': row.name, 'data-what': what,
                                    'data-kernel': kernel, 'data-start-ns': cur.s,
                                    'data-dur-ns': cur.e - cur.s, x: x0, y: y + 2,
                                    width: Math.max(0.5, +(X(cur.e) - x0).toFixed(2)),
                                    height: rowH - 4,
                                    fill: fill});
          add(r, 'title', {}, row.name + ': ' + what +
              (cur.pieces > 1 && kernel ? '\nkernel ' + kernel : '') +
              '\nstart ' + fmtNs(cur.s) + ', duration ' + fmtNs(cur.e - cur.s));
          cur = null;
        }
        row.segs.forEach(function (sg) {
          var s = sg[0], e = sg[0] + sg[1];
          if (e < v0 || s > v1) return;
          // Join the block when closer than a pixel and either is thinner than
          // two: at most one block per two pixels, and no thin ones.
          if (cur && s - cur.e <= px && Math.min(cur.e - cur.s, e - s) < 2 * px) {
            cur.e = Math.max(cur.e, e); cur.n += sg[2]; ++cur.pieces;
            if (cur.kernel != sg[4]) cur.kernel = -1;
            return;
          }
          flush();
          cur = {s: s, e: e, n: sg[2], pieces: 1, what: sg[3], kernel: sg[4]};
        });
        flush();
      });

      // The time axis.
      add(svg, 'line', {x1: left, x2: left + width, y1: axisY, y2: axisY, stroke: '#999'});
      var step = tickStep(v1 - v0);
      var unit = v1 >= 1e6 ? [1e6, 'ms'] : v1 >= 1e3 ? [1e3, 'us'] : [1, 'ns'];
      var digits = Math.max(0, Math.ceil(-Math.log10(step / unit[0]) - 1e-9));
      for (var i = Math.ceil(v0 / step - 1e-9); i * step <= v1 + step * 1e-9; ++i) {
        var x = X(i * step);
        add(svg, 'line', {'class': 'tick', x1: x, x2: x, y1: axisY, y2: axisY + 4,
                          stroke: '#999'});
        add(svg, 'text', {'class': 'tick-label', x: x, y: axisY + 16, 'text-anchor': 'middle'},
            (i * step / unit[0]).toFixed(digits) + ' ' + unit[1]);
      }
      svg.setAttribute('data-view', v0 + ',' + v1);
      if (range)
        range.textContent = 'run ' + data.run + ': ' + fmtNs(v0) + ' to ' + fmtNs(v1) + ' of ' +
            fmtNs(full) + ' (wheel or +/- to zoom, drag to pan)';
      markOverlaps(svg);
    }

    // Zoom and pan keep the view within the run, at least 10 ns wide.
    function setView(a, b) {
      var span = Math.min(full, Math.max(b - a, 10));
      a = Math.max(0, Math.min(a, full - span));
      view = [a, a + span];
      draw();
    }
    function zoom(factor, at) {
      if (at === undefined) at = (view[0] + view[1]) / 2;
      setView(at - (at - view[0]) * factor, at + (view[1] - at) * factor);
    }
    svg.addEventListener('wheel', function (ev) {
      ev.preventDefault();
      var x = ev.clientX - svg.getBoundingClientRect().left - left;
      zoom(ev.deltaY < 0 ? 0.8 : 1.25,
           view[0] + Math.min(Math.max(x, 0), width) / width * (view[1] - view[0]));
    }, {passive: false});
    var drag = null;
    svg.addEventListener('mousedown', function (ev) {
      drag = {x: ev.clientX, view: view.slice()};
      ev.preventDefault();
    });
    window.addEventListener('mousemove', function (ev) {
      if (!drag) return;
      var dt = (ev.clientX - drag.x) / width * (drag.view[1] - drag.view[0]);
      setView(drag.view[0] - dt, drag.view[1] - dt);
    });
    window.addEventListener('mouseup', function () { drag = null; });
    function button(id, f) {
      var b = document.getElementById(id);
      if (b) b.addEventListener('click', f);
    }
    button('timeline-zoom-in', function () { zoom(0.5); });
    button('timeline-zoom-out', function () { zoom(2); });
    button('timeline-reset', function () { setView(0, full); });

    // #timeline=START,END (ns) opens on that range.
    var m = /timeline=([0-9.e+]+),([0-9.e+]+)/.exec(location.hash);
    if (m) setView(parseFloat(m[1]), parseFloat(m[2]));
    else draw();
    svg.setAttribute('data-rendered', 'yes');
  }

  var holder = document.getElementById('timeline-data');
  var timeline = document.getElementById('timeline');
  if (holder && timeline) drawTimeline(JSON.parse(holder.textContent), timeline);
  var roofline = document.getElementById('roofline');
  if (roofline) markOverlaps(roofline);
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
  os << "<h2>Engine timeline</h2>\n";
  if (const rt::Run &first = *p.runs.front(); first.device.trace.empty()) {
    os << "<p id=\"timeline-empty\">Run " << first.id
       << ": no device instructions ran (the program has 0 instructions), so there is no "
          "timeline to draw.</p>\n";
  } else {
    os << "<div id=\"timeline-controls\"><button type=\"button\" id=\"timeline-zoom-in\" "
          "title=\"zoom in\">+</button> <button type=\"button\" id=\"timeline-zoom-out\" "
          "title=\"zoom out\">&minus;</button> <button type=\"button\" id=\"timeline-reset\">"
          "whole run</button> <span id=\"timeline-range\"></span></div>\n"
          "<svg id=\"timeline\" xmlns=\"http://www.w3.org/2000/svg\"></svg>\n"
          "<script id=\"timeline-data\" type=\"application/json\">"
       << timelineJson(p) << "</script>\n";
  }

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
