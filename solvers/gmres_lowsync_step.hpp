// The one-reduce CGS2 Arnoldi step's host arithmetic (LowSyncArnoldi, gmres_lowsync.hpp) on the
// device, so that a GMRES(m) step on one GPU needs no host round trip (issue 28): from the step's
// fused product G it forms the Hessenberg column, the next first-pass coefficients and the
// coefficients C of the vector update, in the host's order of operations (no contracted
// multiply-adds: the same bits as LowSyncArnoldi). Internal header: include only from the
// solver sources.
#pragma once

#include <cuda_runtime_api.h>

namespace kbench::solvers::detail {

/// Step j (0 <= j < m) of the one-reduce CGS2 on the device, one thread block on `stream`.
/// G: the step's fused product as LowSyncArnoldi reads it (column-major, ld j + 2; column 1
/// only when `ahead`, i.e. j + 2 <= m). state: LowSyncArnoldi's state, c (m + 1 values) then H
/// (column-major, ld m + 1, m columns), read and updated. flag: 0 while every step so far took
/// the fast path; a step whose norm nu is not positive and finite by the Pythagorean identity
/// (LowSyncArnoldi::second_pass not > 0: the host's slow path must take the step) sets it to
/// j + 1, and every step while it is non-zero leaves `state` alone and writes the identity
/// update. h: m + 2 values, h[0..j + 1] := column j of H (fast path), h[m + 1] := the flag
/// after the step (as T: 0 on the fast path); h may be mapped pinned host memory (its device
/// pointer), which the host reads once the stream has passed the launch. C: the update's
/// coefficients, for gemm_rowwise over V's columns 0..j + 2 into columns j + 1, j + 2 (ahead:
/// (j + 3) x 2, ld j + 3: [u, w] := [V_j, u, w] C, solvers/gmres_device.hpp fused_update) or
/// over columns 0..j + 1 into column j + 1 (not ahead: (j + 2) x 1, u := (u - V_j a) / nu);
/// the identity on [u, w] (or u) when flagged. Throws kbench::cuda_error when the launch fails.
template <typename T>
void lowsync_step_coefficients(int j, int m, bool ahead, const T* G, T* state, int* flag, T* h,
                               T* C, cudaStream_t stream);

}  // namespace kbench::solvers::detail
