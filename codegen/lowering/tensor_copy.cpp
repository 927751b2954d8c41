// pipeline engine "tensor": a software-pipelined cache_read on the Hopper tensor memory
// accelerator (cp.async.bulk.tensor): the whole region of each iteration in one copy
// issued by one thread, zeros where the region leaves the source, tracked by one
// mbarrier per buffer of the pipeline (issue_bulk_pipeline).
#include "codegen/linear_form.h"
#include "codegen/lowering/kernel_builder.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"
#include "dsl/expr_substitute.h"

namespace cusched::lowering {
namespace {

std::string region_text(const std::vector<int64_t>& ex) {
  std::string s;
  for (size_t d = 0; d < ex.size(); ++d) s += (d ? " x " : "") + std::to_string(ex[d]);
  return s;
}

}  // namespace

void KernelBuilder::place_tensor_copy(Placement& pl, StagedCopy& cp) {
  const CacheRead& cr = cp.cr;
  const std::string& loop = pl.loop;
  const DType t = cp.t;
  const std::vector<int64_t>& full = cp.full;
  const std::vector<int64_t>& ex = cp.ex;
  Realization& r = cp.r;
  const DerivedLoop& here = pl.here;
  const int64_t depth = pl.depth, lead = pl.lead, esize = dtype_bytes(t);
  const std::string what =
      "cache_read of '" + cr.source + "' is pipelined on the tensor memory accelerator at loop '" + loop + "', but ";
  // The source must be a global buffer laid out row-major in the source's own shape, so
  // that a tensor map of that buffer addresses the region by its coordinates.
  std::vector<Expr> probe;
  for (size_t d = 0; d < full.size(); ++d) probe.push_back(make_var(cr.name + "_coord" + std::to_string(d)));
  const Expr src = load(cr.source, probe, t, pl.env, {});
  const BufferSpec* g = globals_.count(src->name) ? &globals_.at(src->name) : nullptr;
  bool row_major =
      g && (!pl.env.count(cr.source) || pl.env.at(cr.source).scope == MemScope::Global) && g->shape == full;
  if (row_major) {
    auto form = linear_form(src->args[0]);
    int64_t stride = 1;
    row_major = form.has_value() && form->constant == 0;
    for (const auto& [v, k] : row_major ? form->coeff : std::map<std::string, int64_t>{})
      row_major &= k == 0 || v.rfind(cr.name + "_coord", 0) == 0;
    for (size_t d = full.size(); row_major && d-- > 0;) {
      row_major = form->coeff[cr.name + "_coord" + std::to_string(d)] == stride;
      stride *= full[d];
    }
  }
  if (!row_major)
    fail("tensor-copy-source", what + "its source is not a global buffer of its own shape here.",
         "Copy an input, or a stage computed at root, with the tensor engine; or use the pipeline's cp.async engine.");
  if (static_cast<int64_t>(ex.size()) > kTensorMapMaxRank)
    fail("tensor-copy-box",
         what + "its source has " + std::to_string(ex.size()) + " dimensions, more than the " +
             std::to_string(kTensorMapMaxRank) + " a tensor map describes.",
         "Use the pipeline's cp.async engine for this copy.");
  for (size_t d = 0; d < ex.size(); ++d)
    if (ex[d] > kTensorMapMaxBoxExtent)
      fail("tensor-copy-box",
           what + "its region of " + region_text(ex) + " elements spans more than " +
               std::to_string(kTensorMapMaxBoxExtent) + " elements along dimension " + std::to_string(d) +
               ", the most one tensor copy moves.",
           "Tile the loops so that each staged region spans at most 256 elements along every dimension.");
  if ((full.back() * esize) % 16 != 0)
    fail("tensor-copy-alignment",
         what + "its source's rows of " + std::to_string(full.back() * esize) +
             " bytes are not multiples of 16 bytes, which a tensor map's strides must be.",
         "Use the pipeline's cp.async engine for sources whose rows are not a multiple of 16 bytes (4 floats).");
  // The accelerator reads each box row from a 16-byte aligned global address. A region
  // whose first column sits a fixed number of elements off that grid (a padded
  // convolution's column -1) is copied from the aligned column before it: its shared rows
  // start with those extra columns, and the realization's minimum moves with them.
  const int64_t chunk = 16 / esize;
  std::vector<Expr> mn = cp.mn;
  std::vector<int64_t> region = ex;
  const auto first = linear_form(mn.back(), true);
  const int64_t shift = first ? ((first->constant % chunk) + chunk) % chunk : 0;
  if (!first || !provably_multiple_of(mn.back() - make_int(shift), chunk))
    fail("tensor-copy-alignment",
         what +
             "the first column of its region does not stay a fixed number of elements off the 16-byte grid "
             "that the accelerator reads rows from, whatever the loops' values.",
         "Tile the innermost dimension in multiples of 16 bytes (4 floats), or use the pipeline's cp.async engine.");
  if (shift != 0) {
    mn.back() = mn.back() - make_int(shift);
    region.back() += shift;
  }
  const bool swizzled = r.swizzle_chunk > 0;
  if (swizzled && shift != 0)
    fail("tensor-copy-swizzle",
         what + "the first column of its region is " + std::to_string(shift) +
             " elements off the 16-byte grid, and a swizzled copy's rows must start on it.",
         "Swizzle only copies whose regions start at multiples of 16 bytes, or drop swizzle and pad.");
  if (swizzled && (ex.back() * esize != kWgmmaSwizzleRowBytes || r.swizzle_rows != 8 ||
                   (ex.size() > 2 && ex[ex.size() - 2] % 8 != 0)))
    fail("tensor-copy-swizzle",
         what + "its swizzled rows of " + std::to_string(ex.back() * esize) +
             " bytes do not follow the accelerator's 128-byte swizzle (rows of exactly 128 bytes, the rows of each "
             "outer index a multiple of 8).",
         "Swizzle only copies whose staged rows are 128 bytes (32 floats), or drop swizzle and pad.");
  // Padded rows (cache_read pad) are refused by the schedule's rule tensor-copy-pad.
  const int64_t alignment = swizzled ? kTensorCopySwizzledAlignment : kTensorCopyAlignment;
  // The box's rows are whole 16-byte chunks: a region row of another length is copied
  // with the columns after it, and the shared rows are as long as the box's.
  std::vector<int64_t> box = region;
  box.back() = (region.back() + chunk - 1) / chunk * chunk;
  if (box.back() != region.back() || shift != 0) {
    r = dense(cr.name, cp.scope, mn, region, static_cast<int>(box.back() - region.back()));
    cp.pitch = box.back();
  }
  if (box.back() > kTensorMapMaxBoxExtent)
    fail("tensor-copy-box",
         what + "its rows of " + std::to_string(box.back()) + " elements exceed the " +
             std::to_string(kTensorMapMaxBoxExtent) + " one tensor copy moves.",
         "Tile the loops so that each staged row spans at most 256 elements.");
  // Each buffer of the pipeline starts aligned for its copy.
  const int64_t S = (r.size * esize + alignment - 1) / alignment * alignment / esize;
  r.min_alignment = alignment;
  int64_t box_bytes = esize;
  for (auto e : box) box_bytes *= e;
  const std::string map = cr.name + "_map";
  // The copy for iteration `it` into buffer it % depth: the box at the region's first
  // coordinates for that iteration.
  auto issue = [&](const Expr& it) {
    std::vector<Expr> at;
    for (const auto& m : mn) at.push_back(substitute(m, {{here.var, it}}));
    return make_tensor_copy(cr.name, buffer_of(it, depth) * make_int(S), src->name, at, box, swizzled ? 128 : 0, map,
                            pl.bar, buffer_of(it, depth));
  };
  for (int64_t s = 0; s <= lead; ++s) {
    pl.async_copies[s].push_back(issue(s < lead ? make_int(s) : make_var(here.var) + make_int(lead)));
    pl.bulk_bytes[s] = pl.bulk_bytes[s].defined() ? pl.bulk_bytes[s] + make_int(box_bytes) : make_int(box_bytes);
  }
  keep_pipeline_buffers(pl, cr.source, t, r, S);
}

}  // namespace cusched::lowering
