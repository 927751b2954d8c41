#pragma once
// A self-contained HTML report of one search run: header, best time per round
// (SVG chart), leaderboard, and every candidate with its idea, schedule, CUDA
// source annotated with audit findings, diffs against its parent and verdict.
// No network: CSS and SVG are inline.
#include <cstdint>
#include <string>

namespace cusched::search {

class Store;

std::string render_report(const Store& store, int64_t run);
// Writes render_report to `path`; throws UserError when the run is unknown or
// the file cannot be written.
void write_report(const Store& store, int64_t run, const std::string& path);

// Text made safe for HTML element content and attribute values.
std::string html_escape(const std::string& text);

}  // namespace cusched::search
