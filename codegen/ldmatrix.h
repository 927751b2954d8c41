#pragma once
// Where each lane's data comes from in a warp-wide ldmatrix.sync.aligned.m8n8 load (PTX
// ISA), as the interpreter executes the IR's LdMatrix statement. The lowering's plan
// (codegen/passes/ldmatrix_plan.h) derives the same row addresses from the fragment
// layout; tensor-core schedules lowered with the plan are verified in the interpreter,
// which executes this mapping.
// Each 8x8 matrix has 8 rows of 16 bytes; lane l gives the address of row l % 8 of
// matrix (l / 8) % matrices. A row is four 32-bit words of `per_word` elements
// (1 for 32-bit, 2 for 16-bit elements); from every matrix, lane t receives one word.
namespace cusched {

struct LdMatrixSource {
  int address_lane = 0;  // the lane whose row address the element is read at
  int column = 0;        // elements past that address
};

// The source of element `element` (0 .. per_word-1) of the word that lane `lane`
// receives from matrix `matrix`. Without transpose: word lane % 4 of row lane / 4.
// With transpose (16-bit elements): column lane / 4 of rows 2 (lane % 4) + element.
LdMatrixSource ldmatrix_source(int matrix, int lane, int element, int per_word, bool transpose);

}  // namespace cusched
