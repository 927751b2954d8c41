// The realization of a tensor region: its layout and the flat index of a point in it.
#include "codegen/lowering/realization.h"

#include <algorithm>

#include "codegen/linear_form.h"
#include "codegen/wgmma_layout.h"
#include "dsl/error.h"

namespace cusched::lowering {

Realization dense(const std::string& buffer, MemScope scope, std::vector<Expr> min, std::vector<int64_t> extent,
                  int pad, int innermost) {
  Realization r;
  r.buffer = buffer;
  r.scope = scope;
  r.min = std::move(min);
  r.extent = std::move(extent);
  r.stride.assign(r.extent.size(), 1);
  for (size_t d = 0; d < r.extent.size(); ++d)
    if (static_cast<int>(d) != innermost) r.layout.push_back(d);
  if (innermost >= 0 && innermost < static_cast<int>(r.extent.size())) r.layout.push_back(innermost);
  int64_t s = 1;
  for (size_t i = r.layout.size(); i-- > 0;) {
    const size_t d = r.layout[i];
    r.stride[d] = s;
    s *= r.extent[d] + (i + 1 == r.layout.size() ? pad : 0);
  }
  r.size = s;
  return r;
}

Expr exact_quotient(const Expr& e, int64_t k) {
  auto f = linear_form(e, true);
  if (!f || f->constant % k != 0) return Expr();
  for (auto& [term, c] : f->coeff) {
    if (c % k != 0) return Expr();
    c /= k;
  }
  f->constant /= k;
  return f->to_expr();
}

void swizzle_rows_of(Realization& r, int element_bytes, const std::string& source) {
  // Positions in memory order of the rows' dimension and the one outside it.
  size_t column = r.layout.size() < 2 ? 0 : r.layout.size() - 1;
  while (column > 0 && r.extent[r.layout[column]] == 1) --column;
  size_t row = column;
  while (row > 1 && r.extent[r.layout[row - 1]] == 1) --row;
  const int64_t chunk = 16 / element_bytes, cols = r.layout.empty() ? 0 : r.extent[r.layout[column]];
  const int64_t chunks = cols % chunk == 0 ? cols / chunk : 0, rows = std::min<int64_t>(chunks, 8);
  if (column == 0 || chunks == 0 || (rows & (rows - 1)) != 0 || chunks % rows != 0)
    fail("swizzle-layout",
         "cache_read of '" + source + "' asks for a swizzle, but its copy's rows of " + std::to_string(cols) +
             " elements are not a power-of-two or multiple-of-8 number of 16-byte chunks (or its rows are "
             "its only dimension of more than one element).",
         "Use pad instead of swizzle for this copy, or choose tile sizes whose staged rows are 4, 8, 16, 32, ... "
         "floats.");
  r.swizzle_chunk = chunk;
  r.swizzle_rows = rows;
  r.swizzle_dim = r.layout[column];
  r.swizzle_row_dim = r.layout[row - 1];
}

Expr flat_index(const Realization& r, const std::vector<Expr>& args) {
  Expr idx;
  for (size_t d = 0; d < args.size(); ++d) {
    Expr local = args[d];
    int64_t m;
    if (!(is_const_int(r.min[d], &m) && m == 0)) local = local - r.min[d];
    if (r.swizzle_chunk > 0 && d == r.swizzle_dim) {
      const size_t rd = r.swizzle_row_dim;
      Expr row = args[rd];
      if (!(is_const_int(r.min[rd], &m) && m == 0)) row = row - r.min[rd];
      const Expr chunk = make_int(r.swizzle_chunk);
      if (Expr q = exact_quotient(local, r.swizzle_chunk); q.defined())  // a whole chunk's first element
        local = bit_xor(q, row % make_int(r.swizzle_rows)) * chunk;
      else
        local = bit_xor(local / chunk, row % make_int(r.swizzle_rows)) * chunk + local % chunk;
    }
    Expr term = r.stride[d] == 1 ? local : local * make_int(r.stride[d]);
    idx = idx.defined() ? idx + term : term;
  }
  if (r.offset.defined()) idx = idx.defined() ? idx + r.offset : r.offset;
  return idx.defined() ? idx : make_int(0);
}

// A block's copy loop over `units` units, each thread taking every n-th: unrolled when
bool provably_multiple_of(const Expr& e, int64_t n) { return exact_quotient(e, n).defined(); }

Stmt allocate_realization(DType t, const Realization& r, Stmt body) {
  if (r.scope == MemScope::Shared && (r.swizzle_chunk > 0 || r.min_alignment > 0))
    return make_aligned_allocate(r.buffer, r.scope, t, r.size,
                                 std::max<int64_t>(r.swizzle_chunk > 0 ? kWgmmaSwizzleAtomBytes : 16, r.min_alignment),
                                 body);
  return make_allocate(r.buffer, r.scope, t, r.size, body);
}

}  // namespace cusched::lowering
