#pragma once
// Programmatic dependent launch (sm_90). The runtime launches every kernel of a
// sequence after the first so that its blocks may be scheduled while the previous
// kernel's last blocks still run; each generated kernel lets the next one be scheduled
// and then waits for the previous one before any of its own work.
namespace cusched {

// The next kernel of the sequence may be scheduled once every block of this grid has
// called this or exited. It still waits (wait_for_previous_grid) for this grid to finish.
__device__ __forceinline__ void allow_next_grid() { asm volatile("griddepcontrol.launch_dependents;" ::: "memory"); }

// Waits until the previous kernel of the sequence has completed and its writes are
// visible; returns at once when this kernel was not launched as a programmatic dependent.
__device__ __forceinline__ void wait_for_previous_grid() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

}  // namespace cusched
