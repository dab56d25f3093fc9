#pragma once
// What `planetgen compare`'s report.html says: title, summary paragraph, maps, charts and the
// metric table, from the comparison's figures. Internal to planet/compare.cpp.

#include <string>
#include <vector>

#include "export/compare_report.h"
#include "planet/config.h"
#include "planet/detail/compare_metrics.h"

namespace planet {

// x printed with a printf format, e.g. "%.2f".
std::string reportNumber(double x, const char* format = "%.3g");

// The report; globes are the globe pictures already written, in the order shown.
planet_export::CompareReport compareReport(const Config& config, const CompareMetrics& metrics,
                                           std::vector<planet_export::ReportImage> globes);

}  // namespace planet
