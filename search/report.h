#pragma once
// A self-contained HTML report of one search run: header, best time per round
// (SVG chart), leaderboard with ties flagged, and every candidate with its idea,
// schedule, verdict, launch plan, ptxas resources, cost estimate per kernel, CUDA
// source annotated with audit findings, loop IR and diffs against its parent.
// No network: CSS and SVG are inline.
#include <cstdint>
#include <string>

#include "search/report_candidate.h"

namespace cusched::search {

class Store;

std::string render_report(const Store& store, int64_t run, const ReportOptions& options = {});
// Writes render_report to `path`; throws UserError when the run is unknown or
// the file cannot be written.
void write_report(const Store& store, int64_t run, const std::string& path, const ReportOptions& options = {});

// Text made safe for HTML element content and attribute values.
std::string html_escape(const std::string& text);

// A number as the report prints it: `digits` significant digits (printf %g).
std::string report_number(double v, int digits = 4);

}  // namespace cusched::search
