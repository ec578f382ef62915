// Copyright (c) linebloom authors. Licensed under the Apache License 2.0.
//
// A small line-plot writer: axes, ticks, a legend, and one polyline with
// markers per series, as standalone SVG text (no plotting dependency).

#pragma once

#include <string>
#include <vector>

namespace linebloom::harness {

struct Series {
  std::string name;
  std::string color;    // any SVG color, e.g. "#1f77b4"
  bool dashed = false;  // theory / predictions
  bool markers = true;
  bool line = true;                               // connect the points
  double width = 2;                               // of the line
  std::vector<std::pair<double, double>> points;  // (x, y), drawn in x order
};

struct PlotSpec {
  std::string title;
  std::string subtitle;
  std::string x_label, y_label;
  bool log_y = false;
  // Axis ranges; NaN means "from the data".
  double x_min, x_max, y_min, y_max;
  bool y_percent = false;  // tick labels as percentages of 1
  // For fractions close to 1 (90 %, 99 %, 99.9 %, ...): log scale of 1 - y,
  // drawn so that larger y is higher. Implies log_y and y_percent.
  bool y_nines = false;
};

PlotSpec DefaultPlotSpec();

// The SVG document for `series` drawn per `spec`.
std::string RenderLinePlot(const PlotSpec& spec, const std::vector<Series>& series);

}  // namespace linebloom::harness
