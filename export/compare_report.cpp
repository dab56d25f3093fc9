#include "export/compare_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace planet_export {
namespace {

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.4g", x);
  return text;
}

// A line chart as inline SVG: axes, ticks at the data range, one polyline per series.
std::string svgChart(const ReportChart& chart) {
  constexpr double kW = 640, kH = 300, kLeft = 70, kRight = 20, kTop = 30, kBottom = 45;
  double x0 = 0, x1 = 1, y1 = 0;
  if (!chart.x.empty()) {
    x0 = *std::min_element(chart.x.begin(), chart.x.end());
    x1 = *std::max_element(chart.x.begin(), chart.x.end());
  }
  for (const ReportSeries& s : chart.series)
    for (double v : s.values) y1 = std::max(y1, std::isfinite(v) ? v : 0.0);
  if (y1 <= 0) y1 = 1;
  if (x1 <= x0) x1 = x0 + 1;
  auto px = [&](double x) { return kLeft + (x - x0) / (x1 - x0) * (kW - kLeft - kRight); };
  auto py = [&](double y) { return kH - kBottom - y / y1 * (kH - kTop - kBottom); };
  std::ostringstream s;
  s << "<svg class=\"chart\" viewBox=\"0 0 " << kW << " " << kH
    << "\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" aria-label=\"" << escape(chart.title)
    << "\">\n";
  s << "<text x=\"" << kW / 2 << "\" y=\"18\" text-anchor=\"middle\" class=\"t\">"
    << escape(chart.title) << "</text>\n";
  s << "<line x1=\"" << kLeft << "\" y1=\"" << py(0) << "\" x2=\"" << kW - kRight << "\" y2=\""
    << py(0) << "\" class=\"axis\"/>\n";
  s << "<line x1=\"" << kLeft << "\" y1=\"" << kTop << "\" x2=\"" << kLeft << "\" y2=\"" << py(0)
    << "\" class=\"axis\"/>\n";
  for (int i = 0; i <= 4; ++i) {
    const double y = y1 * i / 4;
    s << "<text x=\"" << kLeft - 6 << "\" y=\"" << py(y) + 4 << "\" text-anchor=\"end\">"
      << number(y) << "</text>\n";
  }
  for (int i = 0; i <= 6; ++i) {
    const double x = x0 + (x1 - x0) * i / 6;
    s << "<text x=\"" << px(x) << "\" y=\"" << kH - kBottom + 16 << "\" text-anchor=\"middle\">"
      << number(x) << "</text>\n";
  }
  s << "<text x=\"" << (kLeft + kW - kRight) / 2 << "\" y=\"" << kH - 8
    << "\" text-anchor=\"middle\">" << escape(chart.x_label) << "</text>\n";
  s << "<text x=\"14\" y=\"" << (kTop + kH - kBottom) / 2 << "\" transform=\"rotate(-90 14 "
    << (kTop + kH - kBottom) / 2 << ")\" text-anchor=\"middle\">" << escape(chart.y_label)
    << "</text>\n";
  double legend_x = kLeft + 10;
  for (const ReportSeries& series : chart.series) {
    s << "<polyline fill=\"none\" stroke=\"" << escape(series.colour)
      << "\" stroke-width=\"2\" points=\"";
    for (size_t i = 0; i < series.values.size() && i < chart.x.size(); ++i)
      s << px(chart.x[i]) << "," << py(std::isfinite(series.values[i]) ? series.values[i] : 0.0)
        << " ";
    s << "\"/>\n";
    s << "<rect x=\"" << legend_x << "\" y=\"" << kTop << "\" width=\"12\" height=\"4\" fill=\""
      << escape(series.colour) << "\"/><text x=\"" << legend_x + 16 << "\" y=\"" << kTop + 6
      << "\">" << escape(series.name) << "</text>\n";
    legend_x += 110;
  }
  s << "</svg>\n";
  return s.str();
}

std::string figures(const std::vector<ReportImage>& images, const char* css_class) {
  std::ostringstream s;
  s << "<div class=\"" << css_class << "\">\n";
  for (const ReportImage& image : images) {
    s << "<figure><img src=\"" << escape(image.file) << "\" alt=\"" << escape(image.caption)
      << "\" loading=\"eager\"><figcaption>" << escape(image.caption) << "</figcaption></figure>\n";
  }
  s << "</div>\n";
  return s.str();
}

}  // namespace

std::string compareReportHtml(const CompareReport& report) {
  std::ostringstream s;
  s << "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
    << "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
    << "<title>" << escape(report.title) << "</title>\n<style>\n"
    << "body{font-family:system-ui,sans-serif;margin:24px;background:#fafafa;color:#222}\n"
    << "h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}\n"
    << ".globes,.maps{display:flex;flex-wrap:wrap;gap:12px}\n"
    << ".globes figure{flex:1 1 30%;margin:0}.maps figure{flex:1 1 45%;margin:0}\n"
    << "img{width:100%;height:auto;border:1px solid #ccc;background:#000}\n"
    << "figcaption{font-size:.9em;color:#555;text-align:center}\n"
    << "table{border-collapse:collapse;font-size:.9em}td,th{border:1px solid #ccc;"
       "padding:4px 8px;text-align:right}td.l,th.l{text-align:left}\n"
    << "td.e{color:#555;text-align:left;font-size:.85em}\n"
    << ".chart{width:100%;max-width:720px;background:#fff;border:1px solid #ccc}\n"
    << ".chart text{font-size:11px;fill:#333}.chart .t{font-size:13px;font-weight:bold}\n"
    << ".axis{stroke:#333;stroke-width:1}\n</style>\n</head>\n<body>\n";
  s << "<h1>" << escape(report.title) << "</h1>\n<p>" << escape(report.summary) << "</p>\n";
  s << "<h2>Globes</h2>\n" << figures(report.globes, "globes");
  s << "<h2>Maps</h2>\n" << figures(report.maps, "maps");
  s << "<h2>By latitude</h2>\n";
  for (const ReportChart& chart : report.charts) s << svgChart(chart);
  s << "<h2>Metrics</h2>\n<table>\n<tr><th class=\"l\">metric</th>";
  for (const std::string& c : report.columns) s << "<th>" << escape(c) << "</th>";
  s << "<th class=\"l\">what it means</th></tr>\n";
  for (const ReportMetric& m : report.metrics) {
    s << "<tr><td class=\"l\">" << escape(m.name) << "</td>";
    for (size_t i = 0; i < report.columns.size(); ++i)
      s << "<td>" << escape(i < m.values.size() ? m.values[i] : "") << "</td>";
    s << "<td class=\"e\">" << escape(m.explanation) << "</td></tr>\n";
  }
  s << "</table>\n</body>\n</html>\n";
  return s.str();
}

}  // namespace planet_export
