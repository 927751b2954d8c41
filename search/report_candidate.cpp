#include "search/report_candidate.h"

#include <sstream>

#include "codegen/bundle.h"
#include "codegen/ir.h"
#include "codegen/lower.h"
#include "dsl/error.h"
#include "dsl/schedule.h"
#include "search/diff.h"
#include "search/report.h"
#include "search/report_sections.h"
#include "search/stall_diagnosis.h"
#include "search/steered_kernel.h"

namespace cusched::search {
namespace {

std::string dims(const std::array<int64_t, 3>& d) {
  return "(" + std::to_string(d[0]) + ", " + std::to_string(d[1]) + ", " + std::to_string(d[2]) + ")";
}

// Unchanged lines more than kContext lines from a change are hidden.
constexpr size_t kContext = 2;

std::vector<char> near_a_change(const std::vector<DiffLine>& lines) {
  std::vector<char> near(lines.size(), 0);
  for (size_t i = 0; i < lines.size(); ++i)
    if (lines[i].kind != DiffLine::Kind::same)
      for (size_t k = i >= kContext ? i - kContext : 0; k <= i + kContext && k < lines.size(); ++k) near[k] = 1;
  return near;
}

std::string hidden_text(size_t hidden) {
  return "&hellip; " + std::to_string(hidden) + " unchanged line" + (hidden == 1 ? "" : "s");
}

}  // namespace

CandidateLowering candidate_lowering(const Store& store, const RunInfo& run, const CandidateRecord& c, bool verified,
                                     const ReportOptions& options) {
  CandidateLowering out;
  out.size = run.size;
  if (auto a = store.artifacts(c.id)) {
    out.cuda_source = a->cuda_source;
    out.ir_text = a->ir_text;
    if (a->kernel_bundle.is_object()) try {
        out.launches = KernelBundle::from_json(a->kernel_bundle).launches;
      } catch (const std::exception&) {
        // A bundle that does not read back leaves the launch plan to lowering below.
      }
  }
  if (is_handwritten(c)) return out;
  out.schedule_text = schedule_one_line(c.schedule);
  const Problem* p = options.problem;
  if (!p) return out;
  try {
    Schedule at_run = Schedule::from_json(p->context(run.size), c.schedule);
    out.schedule_text = at_run.to_text();
  } catch (const UserError&) {
    // An illegal schedule keeps its one-line form; its verdict says why.
    return out;
  }
  const std::string size = options.size.empty() ? run.size : options.size;
  std::optional<LoweredProgram> at_size;
  if (size != run.size || out.ir_text.empty() || out.launches.empty() || out.cuda_source.empty()) try {
      at_size = lower(Schedule::from_json(p->context(size), c.schedule), p->name);
      KernelBundle b = make_bundle(*at_size);
      out.ir_text = print_ir(*at_size);
      out.cuda_source = b.source;
      out.launches = b.launches;
      out.size = size;
      out.relowered = true;
    } catch (const UserError& e) {
      out.error = "Not lowered at " + size + ": " + e.error().to_string();
    }
  if (verified && p->sizes.count("bench")) try {
      // The program lowered above when it is the bench size's, else the bench size's own.
      out.cost = estimate_cost(
          at_size && size == "bench" ? *at_size : lower(Schedule::from_json(p->context("bench"), c.schedule), p->name));
    } catch (const UserError&) {
      // Not legal at the bench size: no per-kernel estimate.
    }
  return out;
}

std::string render_diff(const std::string& before, const std::string& after) {
  std::ostringstream s;
  s << "<pre class=\"diff\">";
  auto lines = diff_lines(split_lines(before), split_lines(after));
  auto near = near_a_change(lines);
  size_t hidden = 0;
  auto flush_hidden = [&] {
    if (hidden) s << "<span class=\"same collapsed\">  " << hidden_text(hidden) << "</span>";
    hidden = 0;
  };
  for (size_t i = 0; i < lines.size(); ++i) {
    const auto& d = lines[i];
    if (d.kind == DiffLine::Kind::same && !near[i]) {
      ++hidden;
      continue;
    }
    flush_hidden();
    const char* cls = d.kind == DiffLine::Kind::added ? "add" : d.kind == DiffLine::Kind::removed ? "del" : "same";
    const char* mark = d.kind == DiffLine::Kind::added ? "+ " : d.kind == DiffLine::Kind::removed ? "- " : "  ";
    s << "<span class=\"" << cls << "\">" << mark << html_escape(d.text) << "</span>";
  }
  flush_hidden();
  s << "</pre>\n";
  return s.str();
}

std::string render_side_by_side(const std::string& before, const std::string& after) {
  auto lines = diff_lines(split_lines(before), split_lines(after));
  auto near = near_a_change(lines);
  std::ostringstream s;
  s << "<table class=\"side-by-side\"><thead><tr><th colspan=\"2\">parent</th><th colspan=\"2\">candidate</th></tr>"
       "</thead><tbody>\n";
  auto cell = [&](const DiffLine* d, int line, const char* cls) {
    if (!d) return std::string("<td class=\"ln\"></td><td class=\"code empty\"></td>");
    return "<td class=\"ln\">" + std::to_string(line) + "</td><td class=\"code " + cls + "\"><pre>" +
           html_escape(d->text) + "</pre></td>";
  };
  size_t i = 0;
  while (i < lines.size()) {
    if (lines[i].kind == DiffLine::Kind::same) {
      if (!near[i]) {
        size_t hidden = 0;
        while (i < lines.size() && lines[i].kind == DiffLine::Kind::same && !near[i]) ++hidden, ++i;
        s << "<tr class=\"collapsed\"><td colspan=\"4\">" << hidden_text(hidden) << "</td></tr>\n";
        continue;
      }
      s << "<tr class=\"same\">" << cell(&lines[i], lines[i].old_line, "same")
        << cell(&lines[i], lines[i].new_line, "same") << "</tr>\n";
      ++i;
      continue;
    }
    // A change: its removed lines beside its added lines, row by row.
    std::vector<const DiffLine*> removed, added;
    while (i < lines.size() && lines[i].kind == DiffLine::Kind::removed) removed.push_back(&lines[i++]);
    while (i < lines.size() && lines[i].kind == DiffLine::Kind::added) added.push_back(&lines[i++]);
    for (size_t r = 0; r < std::max(removed.size(), added.size()); ++r) {
      const DiffLine* left = r < removed.size() ? removed[r] : nullptr;
      const DiffLine* right = r < added.size() ? added[r] : nullptr;
      s << "<tr class=\"changed\">" << cell(left, left ? left->old_line : 0, "del")
        << cell(right, right ? right->new_line : 0, "add") << "</tr>\n";
    }
  }
  s << "</tbody></table>\n";
  return s.str();
}

std::string render_review_tables(const Store& store, const CandidateRecord& c, const CandidateLowering& l,
                                 const std::string& run_size) {
  std::ostringstream h;
  h << "<div class=\"review-tables\">\n<h4>Launch plan (at " << html_escape(l.size) << ")</h4>\n";
  if (l.launches.empty()) {
    h << "<p class=\"note\">No launch plan is known" << (l.error.empty() ? "" : ": " + html_escape(l.error))
      << ".</p>\n";
  } else {
    h << "<table class=\"launch-plan\"><thead><tr><th>kernel</th><th>grid (blocks, x y z)</th><th>block (threads, x "
         "y z)</th><th>dynamic shared memory (bytes)</th><th>cluster (blocks)</th></tr></thead><tbody>\n";
    for (const auto& k : l.launches)
      h << "<tr class=\"launch-row\"><td><code>" << html_escape(k.kernel) << "</code></td><td class=\"num\">"
        << dims(k.grid) << "</td><td class=\"num\">" << dims(k.block) << "</td><td class=\"num\">"
        << k.dynamic_smem_bytes << "</td><td class=\"num\">" << k.cluster << "</td></tr>\n";
    h << "</tbody></table>\n";
  }
  h << "<h4>ptxas resources (as compiled at " << html_escape(run_size) << ")</h4>\n";
  nlohmann::json r = candidate_resources(store, c.id);
  if (!r.value("available", false)) {
    h << "<p class=\"note ptxas-unknown\">" << html_escape(r.value("why", "Not known.")) << "</p>\n";
  } else {
    h << "<table class=\"ptxas\"><thead><tr><th>kernel</th><th>registers (per thread)</th><th>spill stores "
         "(bytes)</th><th>spill loads (bytes)</th><th>static shared memory (bytes)</th><th>dynamic shared memory "
         "(bytes)</th><th>occupancy (% of an H200 SM's warps)</th></tr></thead><tbody>\n";
    for (const auto& k : r["kernels"]) {
      h << "<tr class=\"ptxas-row\"><td><code>" << html_escape(k.value("kernel", "")) << "</code></td><td "
        << "class=\"num\">" << k.value("registers", 0) << "</td><td class=\"num\">" << k.value("spill_store_bytes", 0)
        << "</td><td class=\"num\">" << k.value("spill_load_bytes", 0) << "</td><td class=\"num\">"
        << k.value("static_smem_bytes", 0) << "</td><td class=\"num\">";
      if (k.contains("dynamic_smem_bytes")) h << k["dynamic_smem_bytes"].get<int64_t>();
      h << "</td><td class=\"num\">";
      if (k.contains("occupancy")) h << report_number(100 * k["occupancy"].get<double>(), 3);
      h << "</td></tr>\n";
    }
    h << "</tbody></table>\n";
  }
  h << "<h4>Cost model estimate per kernel (bench size)</h4>\n";
  if (!l.cost) {
    h << "<p class=\"note\">No estimate: the problem"
      << " is not known to this report or the schedule is not legal at its bench size.</p>\n";
  } else {
    h << "<table class=\"cost\"><thead><tr><th>kernel</th><th>estimate (ms)</th><th>global traffic (MB)</th>"
         "<th>work (GFLOP, f32 equivalent)</th><th>bandwidth (GB/s, estimated)</th><th>occupancy (% of the GPU's "
         "threads)</th></tr></thead><tbody>\n";
    auto row = [&](const std::string& name, double ms, double bytes, double flops, double occ, const char* cls) {
      h << "<tr class=\"" << cls << "\"><td>" << name << "</td><td class=\"num\">" << report_number(ms) << "</td><td "
        << "class=\"num\">" << report_number(bytes / 1e6) << "</td><td class=\"num\">" << report_number(flops / 1e9)
        << "</td><td class=\"num\">" << (ms > 0 ? report_number(bytes / (ms * 1e-3) / 1e9) : "&ndash;")
        << "</td><td class=\"num\">" << report_number(100 * occ, 3) << "</td></tr>\n";
    };
    for (const auto& k : l.cost->per_kernel)
      row("<code>" + html_escape(k.kernel) + "</code>", k.ms, k.global_bytes, k.flops, k.occupancy, "cost-row");
    row("total", l.cost->ms, l.cost->global_bytes, l.cost->flops, l.cost->occupancy, "cost-total");
    h << "</tbody></table>\n<p class=\"note\">The cost model's estimate for an H200, not a measurement.</p>\n";
  }
  h << "</div>\n";
  return h.str();
}

}  // namespace cusched::search
