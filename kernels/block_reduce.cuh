// Deterministic block-wide sums of K values per thread (block_sum), and the single-launch grid
// sum built on them (grid_sum: per-block partials, a ticket counter, the last block sums the
// partials), for the reductions of the dot kernels (kernels/dot.hpp) and the fused BiCGSTAB
// kernels (kernels/bicgstab_kernels.hpp). The ticket alone (draw_last_ticket, block_is_last)
// also serves kernels whose blocks store several partials each (the Gram kernels of
// kernels/gram.cu, which finish with their own fixed-order sum). Device code only: include from
// .cu files.
//
// Determinism: every sum is taken in a fixed order that depends only on the launch shape (warp
// butterflies, then the warps' totals in warp order; grid_sum: the partials in block order),
// never on timing or on which block finishes last; with the same grid and the same input the
// result has the same bits (anzt2015 Sec. 3.2's reduction, kbench variant).
#pragma once

#include <cuda_runtime.h>

namespace kbench::reduce {

/// Sums v[0..K) over the calling warp (full warp, all lanes active); every lane gets the sums.
template <typename T, int K>
__device__ __forceinline__ void warp_sum(T (&v)[K])
{
#pragma unroll
    for (int m = 16; m > 0; m /= 2) {
#pragma unroll
        for (int j = 0; j < K; ++j) v[j] += __shfl_xor_sync(0xffffffffu, v[j], m);
    }
}

/// Sums v[0..K) over a block of BlockSize threads (a multiple of 32, at most 1024, every thread
/// calling). On return thread 0 holds the block sums in v; other threads hold partial values.
/// `smem` is shared memory of at least K * BlockSize / 32 elements; the call starts with no
/// barrier and ends with one, so `smem` may be reused afterwards.
template <typename T, int K, int BlockSize>
__device__ __forceinline__ void block_sum(T (&v)[K], T* smem)
{
    static_assert(BlockSize % 32 == 0 && BlockSize <= 1024, "BlockSize: multiple of 32, <= 1024");
    constexpr int warps = BlockSize / 32;
    warp_sum<T, K>(v);
    const int lane = static_cast<int>(threadIdx.x % 32);
    const int warp = static_cast<int>(threadIdx.x / 32);
    if (lane == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j) smem[j * warps + warp] = v[j];
    }
    __syncthreads();
    if (warp == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j) v[j] = lane < warps ? smem[j * warps + lane] : T{0};
        warp_sum<T, K>(v);
    }
    __syncthreads();
}

/// The ticket of a single-launch reduction, taken by ONE thread of a block (1-D blocks) once
/// the block's partials are stored and visible to that thread: __threadfence() (release: the
/// partials before the ticket, device-wide), then atomicInc(counter, tickets - 1), which hands
/// out tickets 0 .. tickets - 1 in arrival order and wraps the counter back to 0 with the last
/// one, so the next launch finds it zero. Returns true for the last ticket, after a second
/// __threadfence() (acquire: every other block's partials before the caller's reads of them).
/// `tickets` is the number of blocks that take a ticket from *counter in this launch (>= 1).
/// Contract as grid_sum's: *counter is 0 when the launch starts; a ticket >= tickets (a counter
/// never zeroed, or written by other work) traps (__trap: the launch fails with a CUDA error)
/// instead of letting a wrong sum through.
__device__ __forceinline__ bool draw_last_ticket(unsigned int* counter, unsigned int tickets)
{
    __threadfence();  // release: the partials before the ticket
    const unsigned ticket = atomicInc(counter, tickets - 1);
    if (ticket >= tickets) __trap();  // the counter was not zero at launch: broken contract
    const bool last = ticket == tickets - 1;
    if (last) __threadfence();  // acquire: every other block's partials before ours
    return last;
}

/// draw_last_ticket for a block whose threads each stored some of the block's partials: every
/// thread of the (1-D) block calls it after its own stores; each thread fences them (release),
/// a barrier, thread 0 draws the ticket, a barrier. Returns the same value in every thread of
/// the block: true in the block that drew the last of `tickets` tickets from *counter, which may
/// then read every block's partials (through L2: __ldcg, never the read-only or L1 path, since
/// other blocks wrote them in this launch). Contract and trap as draw_last_ticket. Starts and
/// ends with a barrier, so every thread of the block must call it (no early return before it).
__device__ __forceinline__ bool block_is_last(unsigned int* counter, unsigned int tickets)
{
    __shared__ bool last;  // set by thread 0: this block drew the last ticket
    __threadfence();       // this thread's partial stores, device-wide, before the ticket
    __syncthreads();
    if (threadIdx.x == 0) last = draw_last_ticket(counter, tickets);
    __syncthreads();
    return last;
}

/// Single-launch grid sum over the row of gridDim.x blocks that the calling block belongs to
/// (blocks (0 .. gridDim.x - 1, blockIdx.y)): every thread of every block of the row calls it
/// with its K values v; the first `count` (1 <= count <= K) are summed over the row, the others
/// are ignored. Returns true in exactly one thread of the row, thread 0 of the block that
/// finishes last (or of the only block), which then holds the row's sums in v[0 .. count).
///
/// Steps: block_sum over the block; with one block per row that is all (no memory is touched).
/// Otherwise thread 0 stores the block's sums to partials[j * gridDim.x + blockIdx.x] (j <
/// count), __threadfence()s them (visible device-wide before the ticket) and takes a ticket
/// from *counter with atomicInc(counter, gridDim.x - 1) (draw_last_ticket): tickets 0 ..
/// gridDim.x - 1 in arrival order, and the last one wraps the counter back to 0, so the next
/// launch finds it zero. The block that drew the last ticket fences (acquire) and re-sums the
/// partials in block order:
/// thread t adds partials b = t, t + BlockSize, ... in order (L2 loads, __ldcg, never the
/// read-only or L1 path: the other blocks wrote them in this launch), then block_sum. That is
/// the fixed order of a separate one-block-per-product finishing launch of BlockSize threads
/// (kbench's former stage 2), so the bits are the same as that two-launch sum for the same grid.
///
/// Contract: *counter is 0 when the launch starts (zeroed once by the owner of the memory; every
/// launch leaves it 0) and no other work touches it or the partials during the launch; each row
/// has its own counter. `partials` holds count x gridDim.x values. A counter found at gridDim.x
/// or more (never zeroed, or overwritten by other work) traps (__trap: the launch fails with a
/// CUDA error) instead of returning a wrong sum; a stale value below gridDim.x cannot be told
/// apart and gives a wrong sum, hence the contract. `smem`: shared memory of at least
/// K * BlockSize / 32 elements (as block_sum). Ends with a barrier in the finishing block;
/// the other blocks return false after a barrier and one shared-memory read (the flag).
template <typename T, int K, int BlockSize>
__device__ __forceinline__ bool grid_sum(T (&v)[K], int count, T* partials,
                                         unsigned int* counter, T* smem)
{
    __shared__ bool finishing;  // set by thread 0: this block drew the last ticket
    block_sum<T, K, BlockSize>(v, smem);
    const unsigned blocks = gridDim.x;
    if (blocks == 1) return threadIdx.x == 0;
    if (threadIdx.x == 0) {
#pragma unroll
        for (int j = 0; j < K; ++j) {
            if (j < count) partials[static_cast<long long>(j) * blocks + blockIdx.x] = v[j];
        }
        finishing = draw_last_ticket(counter, blocks);  // fences, ticket, trap
    }
    __syncthreads();
    if (!finishing) return false;  // uniform over the block
#pragma unroll
    for (int j = 0; j < K; ++j) v[j] = T{0};
#pragma unroll
    for (int j = 0; j < K; ++j) {
        if (j < count) {
            const T* row = partials + static_cast<long long>(j) * blocks;
            for (unsigned b = threadIdx.x; b < blocks; b += BlockSize) v[j] += __ldcg(row + b);
        }
    }
    block_sum<T, K, BlockSize>(v, smem);
    return threadIdx.x == 0;
}

}  // namespace kbench::reduce
