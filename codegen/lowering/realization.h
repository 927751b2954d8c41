#pragma once
// Where a stage's values live while a kernel is built: the realization of a tensor
// region in global, shared or register memory, its row-major (padded or XOR-swizzled)
// layout, and the flat index of a point in it.
#include <optional>
#include <string>
#include <vector>

#include "codegen/ir.h"

namespace cusched::lowering {

struct Realization {
  std::string buffer;
  MemScope scope = MemScope::Global;
  std::vector<Expr> min;
  std::vector<int64_t> extent;
  std::vector<int64_t> stride;
  int64_t size = 0;
  Expr offset;  // software pipelines: the element offset of the current buffer among several
  // The dimensions in memory order, outermost first (cache_read innermost moves one to
  // the end; otherwise the source's order).
  std::vector<size_t> layout;
  // XOR swizzle (cache_read swizzle): elements per 16-byte chunk and the number of rows
  // whose chunk orders differ; 0 = plain row-major. The swizzled rows run along dimension
  // swizzle_dim (the innermost in memory whose extent is over 1), the rows along
  // swizzle_row_dim (the next one out whose extent is over 1).
  int64_t swizzle_chunk = 0, swizzle_rows = 0;
  size_t swizzle_dim = 0, swizzle_row_dim = 0;
  // Shared: the byte alignment that the copies into it need (tensor copies: 128 bytes,
  // 1024 swizzled); 0 for the default.
  int64_t min_alignment = 0;
  // A shared copy of a tensor-core stage whose region spans the whole range of the loops
  // that index it, tails beyond the source included, and whose elements outside the source
  // are written (zero, or the padding value): a read at any index of those loops is
  // inside the copy and defined.
  bool spans_loop_tails = false;
  // cache_read registers: the elements at flat index tail->start and above live in the
  // register array of the thread that copied them.
  std::optional<RegisterTail> tail;
};

// A row-major realization of the region [min, min + extent), its rows padded by `pad`
// elements; with `innermost` >= 0 that dimension is laid out innermost (the rows run
// along it), the others keeping their order.
Realization dense(const std::string& buffer, MemScope scope, std::vector<Expr> min, std::vector<int64_t> extent,
                  int pad = 0, int innermost = -1);

// e / k when every coefficient and the constant of e's linear form (opaque terms
// allowed) are multiples of k; undefined otherwise.
Expr exact_quotient(const Expr& e, int64_t k);

// True when the integer expression is a multiple of n whatever values its variables
// and opaque terms (divisions, moduli) take.
bool provably_multiple_of(const Expr& e, int64_t n);

// Lays a shared copy's rows out with an XOR swizzle: in row `row`, 16-byte chunk c of
// the row is stored at chunk c ^ (row % S), so that the same column of S consecutive
// rows falls in S different bank groups. S = min(chunks per row, 8) must divide the
// number of chunks per row and be a power of two. A row runs along the innermost
// dimension in memory whose extent is over 1 (dimensions of extent 1 after it add nothing
// to the index), the rows along the next one out.
void swizzle_rows_of(Realization& r, int element_bytes, const std::string& source);

// The flat element index of the point `args` (coordinates of the whole tensor) in `r`.
Expr flat_index(const Realization& r, const std::vector<Expr>& args);

// The storage of a realization around `body`. A swizzled shared copy starts at a
// 1024-byte boundary, where the 128-byte swizzle pattern that wgmma reads starts.
Stmt allocate_realization(DType t, const Realization& r, Stmt body);

}  // namespace cusched::lowering
