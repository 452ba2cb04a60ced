// The matrix powers kernel on several ranks, on the CPU and on the GPU; see distributed_mpk.hpp.
#include "solvers/distributed/distributed_mpk.hpp"

#include "kernels/base/cuda_check.hpp"
#include "kernels/base/device_buffer.hpp"
#include "kernels/device_matrix.hpp"
#include "kernels/spmv.hpp"
#include "solvers/distributed/mpk_kernels.hpp"
#include "solvers/distributed/pack.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>

namespace kbench::dist {

namespace {

[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

std::string str(long long v) { return std::to_string(v); }

/// The first `rows` rows of a CSR (host or device arrays): same arrays, fewer rows.
template <typename T>
CsrView<T> prefix(CsrView<T> v, index_type rows, index_type nnz)
{
    v.num_rows = rows;
    v.nnz = nnz;
    return v;
}

template <typename T>
void check_local(const MpkLocalMatrix<T>& m)
{
    const index_type owned = m.num_owned(), size = m.local_size();
    const auto s = static_cast<std::size_t>(m.s);
    if (m.s < 1 || m.ghost_offsets.size() != s + 1 || m.ghost_offsets.front() != 0 ||
        m.ghost_offsets.back() != m.num_ghosts() ||
        !std::is_sorted(m.ghost_offsets.begin(), m.ghost_offsets.end()))
        fail("local: s = " + str(m.s) + " with " + str(static_cast<long long>(
                 m.ghost_offsets.size())) + " ghost offsets, expected s >= 1 and s + 1 "
             "non-decreasing offsets from 0 to num_ghosts = " + str(m.num_ghosts()));
    if (m.ghost_global.size() != static_cast<std::size_t>(m.num_ghosts()) ||
        m.expand.size() != static_cast<std::size_t>(size))
        fail("local: " + str(static_cast<long long>(m.ghost_global.size())) + " ghosts and " +
             str(static_cast<long long>(m.expand.size())) + " expand entries, expected " +
             str(m.num_ghosts()) + " and local_size() = " + str(size));
    for (const index_type e : m.expand)
        if (e < 0 || e >= size)
            fail("local: expand entry " + str(e) + " outside [0, local_size() = " + str(size) +
                 ")");
    if (m.a_own.num_rows != owned || m.a_own.num_cols != size)
        fail("local: A_own is " + str(m.a_own.num_rows) + " x " + str(m.a_own.num_cols) +
             ", expected num_owned x local_size() = " + str(owned) + " x " + str(size));
    const index_type boundary = m.ghost_offsets[s - 1];
    if (m.a_boundary.num_rows != boundary || m.a_boundary.num_cols != size)
        fail("local: A_boundary is " + str(m.a_boundary.num_rows) + " x " +
             str(m.a_boundary.num_cols) + ", expected ghost_offsets[s-1] x local_size() = " +
             str(boundary) + " x " + str(size));
    validate(m.a_own, "local: A_own");
    validate(m.a_boundary, "local: A_boundary");
}

/// The checks of one call on arguments every rank passes alike (see the header).
void check_call(const char* who, const std::vector<MpkStep>& steps, int s, const void* V,
                std::int64_t ld, index_type num_owned)
{
    check_mpk_steps(who, steps, s);
    if (ld < std::max<std::int64_t>(1, num_owned))
        fail(std::string(who) + ": ld = " + str(ld) + ", expected >= max(1, num_owned = " +
             str(num_owned) + ")");
    if (V == nullptr && num_owned > 0)
        fail(std::string(who) + ": V is null, expected num_owned x (steps + 1) entries");
}

}  // namespace

// ---- Local matrices --------------------------------------------------------------------------

template <typename T>
index_type MpkLocalMatrix<T>::step_rows(int k, int k_max) const
{
    if (k < 1 || k > k_max || k_max > s)
        fail("step " + str(k) + " of a " + str(k_max) + "-step call, expected 1 <= k <= k_max "
             "<= s = " + str(s));
    return num_owned() + ghost_offsets[static_cast<std::size_t>(k_max - k)];
}

template <typename T>
std::int64_t MpkLocalMatrix<T>::call_nnz(int k_max) const
{
    std::int64_t total = 0;
    for (int k = 1; k <= k_max; ++k) {
        const index_type b = step_rows(k, k_max) - num_owned();  // also checks k_max
        total += a_own.nnz() + a_boundary.row_ptr[static_cast<std::size_t>(b)];
    }
    return total;
}

void check_mpk_steps(const char* who, const std::vector<MpkStep>& steps, int s)
{
    const std::string w(who);
    if (steps.empty() || steps.size() > static_cast<std::size_t>(s))
        fail(w + ": steps has " + str(static_cast<long long>(steps.size())) +
             " entries, expected 1 to s = " + str(s));
    if (steps[0].b2 != 0.0)
        fail(w + ": steps[0].b2 = " + std::to_string(steps[0].b2) +
             ", expected 0 (a conjugate pair starts with {a, 0})");
    for (std::size_t k = 0; k < steps.size(); ++k)
        if (!std::isfinite(steps[k].alpha) || !std::isfinite(steps[k].b2))
            fail(w + ": steps[" + str(static_cast<long long>(k)) + "] = {" +
                 std::to_string(steps[k].alpha) + ", " + std::to_string(steps[k].b2) +
                 "}, expected finite values");
}

template <typename T>
MpkLocalMatrix<T> mpk_local_matrix(const Csr<T>& a, const RowDistribution& dist,
                                   const MpkIndexSets& sets, const HaloPlan& plan, int rank)
{
    validate(a, "a");
    if (a.num_rows != a.num_cols)
        fail("a: " + str(a.num_rows) + " x " + str(a.num_cols) + ", expected a square matrix");
    if (a.num_rows != dist.n)
        fail("a: " + str(a.num_rows) + " rows, expected the distribution's n = " + str(dist.n));
    const int s = sets.s;
    if (sets.part != rank || s < 1 || sets.levels.size() != static_cast<std::size_t>(s) + 1 ||
        sets.deltas.size() != static_cast<std::size_t>(s))
        fail("sets: part " + str(sets.part) + ", s = " + str(s) + ", " +
             str(static_cast<long long>(sets.levels.size())) + " levels and " +
             str(static_cast<long long>(sets.deltas.size())) + " deltas; expected part = rank " +
             str(rank) + ", s >= 1, s + 1 levels and s deltas (mpk_index_sets)");
    if (plan.s != s)
        fail("plan: s = " + str(plan.s) + ", expected the sets' s = " + str(s));

    MpkLocalMatrix<T> out;
    out.s = s;
    out.halo = halo_layout(dist, plan, rank);  // checks rank and the plan's ownership
    out.global_rows = a.num_rows;
    out.global_nnz = a.nnz();
    const HaloLayout& h = out.halo;
    if (sets.own() != h.owned_global)
        fail("sets: " + str(static_cast<long long>(sets.own().size())) + " own rows, expected "
             "the " + str(h.num_owned) + " rows part " + str(rank) + " owns (same partition)");

    // Ghosts by distance t = 1..s from the own rows: delta^(d, s-t+1).
    out.ghost_offsets.assign(1, 0);
    for (int t = 1; t <= s; ++t) {
        const auto& d = sets.delta(s - t + 1);
        out.ghost_global.insert(out.ghost_global.end(), d.begin(), d.end());
        out.ghost_offsets.push_back(static_cast<index_type>(out.ghost_global.size()));
    }
    if (out.ghost_global.size() != static_cast<std::size_t>(h.num_ghosts))
        fail("plan: " + str(h.num_ghosts) + " ghosts for part " + str(rank) + ", the sets have " +
             str(static_cast<long long>(out.ghost_global.size())) + " rows in delta^(d,1:s); "
             "expected the plan of these sets");

    // Global row -> MPK local index (-1: not held by this part).
    const std::vector<index_type> local =
        detail::local_numbering(a.num_rows, h.owned_global, out.ghost_global);
    out.expand.assign(static_cast<std::size_t>(h.local_size()), -1);
    for (index_type i = 0; i < h.num_owned; ++i) out.expand[static_cast<std::size_t>(i)] = i;
    for (index_type j = 0; j < h.num_ghosts; ++j) {
        const index_type g = h.ghost_global[static_cast<std::size_t>(j)];
        const index_type lp = local[static_cast<std::size_t>(g)];
        if (lp < h.num_owned)
            fail("plan: ghost row " + str(g) + " of part " + str(rank) + " is not in "
                 "delta^(d,1:s) of the sets; expected the plan of these sets");
        out.expand[static_cast<std::size_t>(lp)] = h.num_owned + j;
    }

    const auto unmapped = [&](index_type r, index_type c) {
        fail("sets: column " + str(c) + " of row " + str(r) + " (part " + str(rank) +
             ") lies outside i^(d,1); expected the index sets of this A and partition "
             "(mpk_index_sets)");
    };
    out.a_own = detail::renumbered_rows(a, h.owned_global.data(), h.num_owned, local,
                                        h.local_size(), unmapped);
    out.a_boundary = detail::renumbered_rows(a, out.ghost_global.data(),
                                             out.ghost_offsets[static_cast<std::size_t>(s) - 1],
                                             local, h.local_size(), unmapped);
    return out;
}

template <typename T>
MpkLocalMatrix<T> distribute_mpk(const Communicator& comm, const Csr<T>& a,
                                 const std::vector<int>& part, int num_parts, int s)
{
    if (s < 1) fail("s = " + str(s) + ", expected >= 1");
    distribute(comm, a, part, num_parts);  // the collective checks (same A and partition)
    const RowDistribution dist = row_distribution(a.num_rows, part, num_parts);
    const std::vector<MpkIndexSets> sets = mpk_index_sets(a, part, num_parts, s);
    const HaloPlan plan = halo_plan(sets, part, num_parts);
    return mpk_local_matrix(a, dist, sets[static_cast<std::size_t>(comm.rank())], plan,
                            comm.rank());
}

// ---- CPU -------------------------------------------------------------------------------------

template <typename T>
DistributedMpkCpu<T>::DistributedMpkCpu(const Communicator& comm, const MpkLocalMatrix<T>& local)
    : local_{(check_local(local), local)}, exchange_{comm, local.halo},
      received_(static_cast<std::size_t>(local.local_size()), T(0))
{
    for (auto& z : z_) z.assign(static_cast<std::size_t>(local.local_size()), T(0));
}

template <typename T>
void DistributedMpkCpu<T>::apply(const std::vector<MpkStep>& steps, T* V, std::int64_t ld)
{
    check_call("DistributedMpkCpu::apply", steps, local_.s, V, ld, local_.num_owned());
    if (local_.num_owned() > 0) std::copy(V, V + local_.num_owned(), received_.begin());
    exchange_.exchange(received_.data());
    auto& z = z_[0];
    for (std::size_t i = 0; i < z.size(); ++i)
        z[i] = received_[static_cast<std::size_t>(local_.expand[i])];
    products(steps, V, ld);
}

template <typename T>
void DistributedMpkCpu<T>::products(const std::vector<MpkStep>& steps, T* V, std::int64_t ld)
{
    check_call("DistributedMpkCpu::products", steps, local_.s, V, ld, local_.num_owned());
    const int k_max = static_cast<int>(steps.size());
    const index_type owned = local_.num_owned();
    const CsrView<T> boundary = local_.a_boundary.view();
    for (int k = 1; k <= k_max; ++k) {
        const T* w = z_[(k - 1) % 3].data();     // v_k
        const T* prev = z_[(k + 1) % 3].data();  // v_{k-1} (k >= 2)
        // v_{k+1}; the last step has no boundary row left and goes straight into V.
        T* y = k < k_max ? z_[k % 3].data() : owned > 0 ? V + k * ld : nullptr;
        const index_type rows = local_.step_rows(k, k_max);
        if (owned > 0) spmv::reference::csr(local_.a_own.view(), T(1), w, T(0), y);
        if (rows > owned)
            spmv::reference::csr(prefix(boundary, rows - owned,
                                        boundary.row_ptr[rows - owned]),
                                 T(1), w, T(0), y + owned);
        const MpkStep& st = steps[static_cast<std::size_t>(k - 1)];
        const auto alpha = static_cast<T>(st.alpha);
        const auto b2 = static_cast<T>(st.b2);
        if (st.alpha != 0.0 || st.b2 != 0.0)
            for (index_type i = 0; i < rows; ++i) {
                T v = y[i] - alpha * w[i];
                if (st.b2 != 0.0) v += b2 * prev[i];
                y[i] = v;
            }
        if (k < k_max && owned > 0) std::copy(y, y + owned, V + k * ld);
    }
}

// ---- GPU -------------------------------------------------------------------------------------

template <typename T>
struct DistributedMpk<T>::Impl {
    Impl(DeviceHaloExchange<T> ex, const MpkLocalMatrix<T>& m)
        : exchange{std::move(ex)}, s{m.s}, num_owned{m.num_owned()}, local_size{m.local_size()},
          ghost_offsets{m.ghost_offsets}, boundary_row_ptr{m.a_boundary.row_ptr},
          boundary{m.a_boundary}, expand{m.expand},
          received(static_cast<std::size_t>(m.local_size()))
    {
        for (auto& b : z) b = device_buffer<T>(static_cast<std::size_t>(m.local_size()));
        if (m.a_boundary.num_rows > 0) subwarp = spmv::choose_csr_subwarp(m.a_boundary.view());
    }
    DeviceHaloExchange<T> exchange;
    std::optional<spmv::SpmvOperator<T>> op;  // A_own; none for a part without rows
    int s;
    index_type num_owned, local_size;
    std::vector<index_type> ghost_offsets, boundary_row_ptr;  // host copies
    DeviceCsr<T> boundary;
    device_buffer<index_type> expand;
    device_buffer<T> received;
    device_buffer<T> z[3];
    int subwarp = 2;
};

template <typename T>
DistributedMpk<T>::DistributedMpk(const Communicator& comm, const MpkLocalMatrix<T>& local,
                                  Transport transport, const spmv::Policy& policy,
                                  const models::SpmvMachine& machine, NcclCommunicator* nccl)
{
    check_local(local);
    impl_ = std::make_unique<Impl>(DeviceHaloExchange<T>(comm, local.halo, transport, nccl),
                                   local);
    if (local.a_own.num_rows > 0) impl_->op.emplace(local.a_own, policy, machine);
}

template <typename T>
DistributedMpk<T>::~DistributedMpk() = default;
template <typename T>
DistributedMpk<T>::DistributedMpk(DistributedMpk&&) noexcept = default;
template <typename T>
DistributedMpk<T>& DistributedMpk<T>::operator=(DistributedMpk&&) noexcept = default;

template <typename T>
void DistributedMpk<T>::apply(const std::vector<MpkStep>& steps, T* d_V, std::int64_t ld,
                              cudaStream_t stream)
{
    Impl& m = *impl_;
    check_call("DistributedMpk::apply", steps, m.s, d_V, ld, m.num_owned);
    if (m.num_owned > 0)
        KBENCH_CUDA_CHECK(cudaMemcpyAsync(m.received.data(), d_V, sizeof(T) * m.num_owned,
                                          cudaMemcpyDeviceToDevice, stream));
    m.exchange.exchange(m.received.data(), stream);
    detail::gather(m.received.data(), m.expand.data(), m.local_size, m.z[0].data(), stream);
    products(steps, d_V, ld, stream);
}

template <typename T>
void DistributedMpk<T>::products(const std::vector<MpkStep>& steps, T* d_V, std::int64_t ld,
                                 cudaStream_t stream)
{
    Impl& m = *impl_;
    check_call("DistributedMpk::products", steps, m.s, d_V, ld, m.num_owned);
    const int k_max = static_cast<int>(steps.size());
    const CsrView<T> boundary = m.boundary.view();
    for (int k = 1; k <= k_max; ++k) {
        const T* w = m.z[(k - 1) % 3].data();
        const T* prev = m.z[(k + 1) % 3].data();
        const MpkStep& st = steps[static_cast<std::size_t>(k - 1)];
        const bool combine = st.alpha != 0.0 || st.b2 != 0.0;
        if (k == k_max) {  // own rows only (no boundary row left), straight into V
            if (m.num_owned == 0) continue;
            T* out = d_V + k * ld;
            if (m.op) m.op->apply(T(1), w, T(0), out, stream);
            if (combine)
                detail::mpk_combine(m.num_owned, m.num_owned, out, w,
                                    st.b2 != 0.0 ? prev : nullptr, static_cast<T>(st.alpha),
                                    static_cast<T>(st.b2), static_cast<T*>(nullptr), stream);
            continue;
        }
        T* y = m.z[k % 3].data();
        const index_type b = m.ghost_offsets[static_cast<std::size_t>(k_max - k)];
        if (m.op) m.op->apply(T(1), w, T(0), y, stream);
        if (b > 0)
            spmv::csr_vector(prefix(boundary, b, m.boundary_row_ptr[static_cast<std::size_t>(b)]),
                             T(1), w, T(0), y + m.num_owned, stream, m.subwarp);
        T* v_out = m.num_owned > 0 ? d_V + k * ld : nullptr;
        if (combine)
            detail::mpk_combine(m.num_owned + b, m.num_owned, y, w, st.b2 != 0.0 ? prev : nullptr,
                                static_cast<T>(st.alpha), static_cast<T>(st.b2), v_out, stream);
        else if (m.num_owned > 0)
            KBENCH_CUDA_CHECK(cudaMemcpyAsync(v_out, y, sizeof(T) * m.num_owned,
                                              cudaMemcpyDeviceToDevice, stream));
    }
}

template <typename T>
int DistributedMpk<T>::steps() const noexcept
{
    return impl_->s;
}
template <typename T>
index_type DistributedMpk<T>::num_owned() const noexcept
{
    return impl_->num_owned;
}
template <typename T>
index_type DistributedMpk<T>::local_size() const noexcept
{
    return impl_->local_size;
}
template <typename T>
const spmv::Choice* DistributedMpk<T>::choice() const noexcept
{
    return impl_->op ? &impl_->op->choice() : nullptr;
}
template <typename T>
DeviceHaloExchange<T>& DistributedMpk<T>::exchange() noexcept
{
    return impl_->exchange;
}
template <typename T>
const ExchangeCounters& DistributedMpk<T>::counters() const noexcept
{
    return impl_->exchange.counters();
}
template <typename T>
void DistributedMpk<T>::reset_counters() noexcept
{
    impl_->exchange.reset_counters();
}

#define KBENCH_INSTANTIATE(T)                                                                    \
    template struct MpkLocalMatrix<T>;                                                           \
    template MpkLocalMatrix<T> mpk_local_matrix<T>(const Csr<T>&, const RowDistribution&,        \
                                                   const MpkIndexSets&, const HaloPlan&, int);   \
    template MpkLocalMatrix<T> distribute_mpk<T>(const Communicator&, const Csr<T>&,             \
                                                 const std::vector<int>&, int, int);             \
    template class DistributedMpkCpu<T>;                                                         \
    template class DistributedMpk<T>;
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::dist
