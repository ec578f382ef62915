// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.

#include "svg_plot.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace linebloom::harness {
namespace {

constexpr double kWidth = 900, kHeight = 500;
constexpr double kLeft = 96, kRight = 290, kTop = 64, kBottom = 56;
constexpr double kPlotW = kWidth - kLeft - kRight, kPlotH = kHeight - kTop - kBottom;

std::string Num(double v) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.2f", v);
  return buf;
}

std::string Escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else out.push_back(c);
  }
  return out;
}

// 1, 2 or 5 times a power of ten, near range / 6.
double NiceStep(double range) {
  const double raw = range / 6;
  const double p = std::pow(10, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0}) {
    if (m * p >= raw) return m * p;
  }
  return 10 * p;
}

std::string TickLabel(double v, bool percent) {
  char buf[32];
  if (percent) {
    const double pct = 100 * v;
    // Enough decimals for the tick's first significant digit: 0.001%, 99.99%.
    const double frac = std::min(pct, 100 - pct);
    const int decimals = frac >= 1 || frac <= 0 ? 0 : static_cast<int>(std::ceil(-std::log10(frac) - 1e-9));
    std::snprintf(buf, sizeof(buf), "%.*f%%", decimals, pct);
  } else {
    std::snprintf(buf, sizeof(buf), "%g", v);
  }
  return buf;
}

}  // namespace

PlotSpec DefaultPlotSpec() {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  PlotSpec s;
  s.x_min = s.x_max = s.y_min = s.y_max = nan;
  return s;
}

std::string RenderLinePlot(const PlotSpec& nines_spec, const std::vector<Series>& nines_series) {
  // A "nines" plot is a log plot of 1 - y, flipped, with relabelled ticks.
  PlotSpec spec = nines_spec;
  std::vector<Series> series = nines_series;
  if (spec.y_nines) {
    spec.log_y = spec.y_percent = true;
    for (Series& s : series) {
      for (auto& point : s.points) point.second = 1 - point.second;
    }
    const double y_min = spec.y_min;
    spec.y_min = 1 - spec.y_max;
    spec.y_max = 1 - y_min;
  }
  const bool flip = spec.y_nines;
  auto label_y = [&](double y) { return flip ? 1 - y : y; };
  double x0 = spec.x_min, x1 = spec.x_max, y0 = spec.y_min, y1 = spec.y_max;
  double dx0 = INFINITY, dx1 = -INFINITY, dy0 = INFINITY, dy1 = -INFINITY;
  for (const Series& s : series) {
    for (auto [x, y] : s.points) {
      if (spec.log_y && y <= 0) continue;
      dx0 = std::min(dx0, x), dx1 = std::max(dx1, x), dy0 = std::min(dy0, y), dy1 = std::max(dy1, y);
    }
  }
  if (std::isnan(x0)) x0 = dx0;
  if (std::isnan(x1)) x1 = std::ceil((dx1 + 1) / 5) * 5;  // room for the last marker
  if (std::isnan(y0)) y0 = spec.log_y ? std::pow(10, std::floor(std::log10(dy0))) : std::min(0.0, dy0);
  if (std::isnan(y1)) y1 = spec.log_y ? std::pow(10, std::ceil(std::log10(dy1))) : dy1;
  if (!(x1 > x0)) x1 = x0 + 1;
  if (!(y1 > y0)) y1 = y0 + 1;

  auto px = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * kPlotW; };
  auto py = [&](double y) {
    const double f =
        spec.log_y ? (std::log10(y) - std::log10(y0)) / (std::log10(y1) - std::log10(y0)) : (y - y0) / (y1 - y0);
    return kTop + (flip ? f : 1 - f) * kPlotH;
  };

  std::string svg;
  svg += "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + Num(kWidth) + "\" height=\"" + Num(kHeight) +
         "\" viewBox=\"0 0 " + Num(kWidth) + " " + Num(kHeight) +
         "\" font-family=\"DejaVu Sans, Helvetica, Arial, sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + Num(kLeft) + "\" y=\"24\" font-size=\"16\" font-weight=\"bold\">" + Escape(spec.title) +
         "</text>\n";
  svg += "<text x=\"" + Num(kLeft) + "\" y=\"44\" fill=\"#555\">" + Escape(spec.subtitle) + "</text>\n";

  // Grid and tick labels.
  const std::string grid = "stroke=\"#ddd\" stroke-width=\"1\"";
  const double xs = NiceStep(x1 - x0);
  for (double x = std::ceil(x0 / xs) * xs; x <= x1 + 1e-9; x += xs) {
    svg += "<line x1=\"" + Num(px(x)) + "\" y1=\"" + Num(kTop) + "\" x2=\"" + Num(px(x)) + "\" y2=\"" +
           Num(kTop + kPlotH) + "\" " + grid + "/>\n";
    svg += "<text x=\"" + Num(px(x)) + "\" y=\"" + Num(kTop + kPlotH + 18) + "\" text-anchor=\"middle\">" +
           TickLabel(x, false) + "</text>\n";
  }
  if (spec.log_y) {
    for (double d = y0; d <= y1 * 1.0001; d *= 10) {
      for (int m = 1; m < 10; ++m) {
        const double y = d * m;
        if (y > y1 * 1.0001) break;
        svg += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py(y)) + "\" x2=\"" + Num(kLeft + kPlotW) + "\" y2=\"" +
               Num(py(y)) + "\" stroke=\"" + (m == 1 ? "#ccc" : "#f0f0f0") + "\" stroke-width=\"1\"/>\n";
        if (m == 1) {
          svg += "<text x=\"" + Num(kLeft - 8) + "\" y=\"" + Num(py(y) + 4) + "\" text-anchor=\"end\">" +
                 TickLabel(label_y(y), spec.y_percent) + "</text>\n";
        }
      }
    }
  } else {
    const double ys = NiceStep(y1 - y0);
    for (double y = std::ceil(y0 / ys) * ys; y <= y1 + 1e-9; y += ys) {
      svg += "<line x1=\"" + Num(kLeft) + "\" y1=\"" + Num(py(y)) + "\" x2=\"" + Num(kLeft + kPlotW) + "\" y2=\"" +
             Num(py(y)) + "\" " + grid + "/>\n";
      svg += "<text x=\"" + Num(kLeft - 8) + "\" y=\"" + Num(py(y) + 4) + "\" text-anchor=\"end\">" +
             TickLabel(y, spec.y_percent) + "</text>\n";
    }
  }
  svg += "<rect x=\"" + Num(kLeft) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(kPlotW) + "\" height=\"" +
         Num(kPlotH) + "\" fill=\"none\" stroke=\"#333\"/>\n";
  svg += "<text x=\"" + Num(kLeft + kPlotW / 2) + "\" y=\"" + Num(kHeight - 14) + "\" text-anchor=\"middle\">" +
         Escape(spec.x_label) + "</text>\n";
  svg += "<text transform=\"translate(18," + Num(kTop + kPlotH / 2) + ") rotate(-90)\" text-anchor=\"middle\">" +
         Escape(spec.y_label) + "</text>\n";

  // Series, clipped to the plot area.
  svg += "<clipPath id=\"plot\"><rect x=\"" + Num(kLeft) + "\" y=\"" + Num(kTop) + "\" width=\"" + Num(kPlotW) +
         "\" height=\"" + Num(kPlotH) + "\"/></clipPath>\n<g clip-path=\"url(#plot)\">\n";
  for (const Series& s : series) {
    auto pts = s.points;
    std::sort(pts.begin(), pts.end());
    std::string path;
    for (auto [x, y] : pts) {
      if (spec.log_y && y <= 0) continue;
      path += (path.empty() ? "M" : " L") + Num(px(x)) + " " + Num(py(y));
    }
    if (s.line) {
      svg += "<path d=\"" + path + "\" fill=\"none\" stroke=\"" + s.color + "\" stroke-width=\"" + Num(s.width) + "\"" +
             (s.dashed ? " stroke-dasharray=\"6 4\"" : "") + "/>\n";
    }
    if (s.markers) {
      for (auto [x, y] : pts) {
        if (spec.log_y && y <= 0) continue;
        svg += "<circle cx=\"" + Num(px(x)) + "\" cy=\"" + Num(py(y)) + "\" r=\"3.5\" fill=\"" + s.color + "\"/>\n";
      }
    }
  }
  svg += "</g>\n";

  // Legend.
  double ly = kTop + 10;
  for (const Series& s : series) {
    const double lx = kLeft + kPlotW + 16;
    if (s.line) {
      svg += "<line x1=\"" + Num(lx) + "\" y1=\"" + Num(ly) + "\" x2=\"" + Num(lx + 26) + "\" y2=\"" + Num(ly) +
             "\" stroke=\"" + s.color + "\" stroke-width=\"2\"" + (s.dashed ? " stroke-dasharray=\"6 4\"" : "") +
             "/>\n";
    }
    if (s.markers)
      svg += "<circle cx=\"" + Num(lx + 13) + "\" cy=\"" + Num(ly) + "\" r=\"3.5\" fill=\"" + s.color + "\"/>\n";
    svg += "<text x=\"" + Num(lx + 34) + "\" y=\"" + Num(ly + 4) + "\">" + Escape(s.name) + "</text>\n";
    ly += 22;
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace linebloom::harness
