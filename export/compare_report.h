#pragma once
// report.html of `planetgen compare`: one self-contained page (inline CSS and SVG charts) that
// shows the PNGs written next to it, a per-latitude chart and a metrics table.

#include <string>
#include <vector>

namespace planet_export {

struct ReportImage {
  std::string file;  // relative to report.html
  std::string caption;
};

struct ReportSeries {
  std::string name;            // legend label, e.g. "weather"
  std::string colour;          // CSS colour
  std::vector<double> values;  // one per x
};

struct ReportChart {
  std::string title;
  std::string y_label;
  std::vector<double> x;  // e.g. latitude band centres in degrees
  std::string x_label;
  std::vector<ReportSeries> series;
};

struct ReportMetric {
  std::string name;
  std::string explanation;          // one line: what it measures and how to read it
  std::vector<std::string> values;  // one per column
};

struct CompareReport {
  std::string title;
  std::string summary;               // a paragraph of plain text: what the comparison shows
  std::vector<std::string> columns;  // metric table columns, e.g. initial, weather, uniform
  std::vector<ReportImage> globes;   // shown side by side
  std::vector<ReportImage> maps;
  std::vector<ReportChart> charts;
  std::vector<ReportMetric> metrics;
};

// The HTML text. Text fields are HTML-escaped.
std::string compareReportHtml(const CompareReport& report);

}  // namespace planet_export
