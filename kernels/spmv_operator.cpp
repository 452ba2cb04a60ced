// The SpMV operator (declarations in kernels/spmv_operator.hpp).
#include "kernels/spmv_operator.hpp"

#include "kernels/base/cuda_handles.hpp"
#include "kernels/device_matrix.hpp"
#include "kernels/spmm.hpp"
#include "kernels/spmv.hpp"
#include "kernels/spmv_cusparse.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <optional>
#include <stdexcept>

namespace kbench::spmv {
namespace {

/// The device data of one configuration and how to multiply with it.
template <typename T>
struct Storage {
    Kernel kernel = Kernel::csr_vector;
    int subwarp = 0;
    std::optional<DeviceCsr<T>> csr;               // csr_scalar, csr_vector
    std::optional<DeviceCsrAdaptive<T>> adaptive;  // csr_adaptive
    std::optional<DeviceCsrMerge<T>> merge;        // csr_merge (plan and carry-out workspace)
    std::optional<DeviceSellp<T>> sellp;           // sellp
    std::unique_ptr<CusparseSpmv<T>> vendor;       // cusparse_csr(_alg2), cusparse_sell
    std::size_t stored = 0;
    std::int64_t aux = 0;        // SELL-P slices / CSR-Adaptive row blocks / merge tiles
    std::int64_t long_rows = 0;  // rows of the long-row kernel / merge: rows split across tiles
    std::int64_t carry_tiles = 0;  // merge: tiles whose carry-out the fix-up reads

    Storage(const Csr<T>& a, Kernel k, const SellpParams& params, int sw) : kernel{k}, subwarp{sw}
    {
        stored = static_cast<std::size_t>(a.nnz());
        switch (k) {
        case Kernel::csr_scalar:
        case Kernel::csr_vector: csr.emplace(a); break;
        case Kernel::csr_adaptive: {
            const CsrAdaptivePlan plan = make_csr_adaptive_plan(a.view());
            aux = static_cast<std::int64_t>(plan.blocks.size());
            long_rows = static_cast<std::int64_t>(plan.long_rows.size());
            adaptive.emplace(a, plan);
            break;
        }
        case Kernel::csr_merge: {
            const CsrMergePlan plan = make_csr_merge_plan(a.view());
            aux = plan.num_tiles();
            long_rows = static_cast<std::int64_t>(plan.runs.size());
            carry_tiles = plan.carry_tiles();
            merge.emplace(a, plan);
            break;
        }
        case Kernel::sellp: {
            const Sellp<T> host = to_sellp(a, params);
            stored = host.stored_entries();
            aux = host.num_slices();
            long_rows = host.num_long_rows();
            sellp.emplace(host);
            break;
        }
        case Kernel::cusparse_csr:
        case Kernel::cusparse_csr_alg2:
        case Kernel::cusparse_sell:
            vendor = std::make_unique<CusparseSpmv<T>>(
                a, k == Kernel::cusparse_csr        ? CusparseFormat::csr
                   : k == Kernel::cusparse_csr_alg2 ? CusparseFormat::csr_alg2
                                                    : CusparseFormat::sliced_ell);
            stored = vendor->stored_entries();
            aux = (std::int64_t{a.num_rows} + 31) / 32;
            break;
        }
    }

    void apply(T alpha, const T* x, T beta, T* y, cudaStream_t s)
    {
        switch (kernel) {
        case Kernel::csr_scalar: return csr_scalar(csr->view(), alpha, x, beta, y, s);
        case Kernel::csr_vector: return csr_vector(csr->view(), alpha, x, beta, y, s, subwarp);
        case Kernel::csr_adaptive: return csr_adaptive(adaptive->view(), alpha, x, beta, y, s);
        case Kernel::csr_merge: return csr_merge(merge->view(), alpha, x, beta, y, s);
        case Kernel::sellp: return spmv::sellp(sellp->view(), alpha, x, beta, y, s);
        default: return vendor->run(alpha, x, beta, y, s);
        }
    }

    void apply_block(T alpha, const T* x, index_type ldx, T beta, T* y, index_type ldy,
                     index_type k, cudaStream_t s)
    {
        switch (kernel) {
        case Kernel::csr_scalar:
        case Kernel::csr_vector:
            return spmm::csr_vector(csr->view(), alpha, x, ldx, beta, y, ldy, k, s, subwarp);
        case Kernel::csr_adaptive:
            return spmm::csr_vector(adaptive->view().csr, alpha, x, ldx, beta, y, ldy, k, s);
        case Kernel::csr_merge:
            return spmm::csr_vector(merge->view().csr, alpha, x, ldx, beta, y, ldy, k, s);
        case Kernel::sellp: return spmm::sellp(sellp->view(), alpha, x, ldx, beta, y, ldy, k, s);
        default: return vendor->run_block(alpha, x, ldx, beta, y, ldy, k, s);
        }
    }
};

/// Median time in microseconds of `st`'s product on scratch vectors (2 warm-ups, 9 timed).
template <typename T>
double time_storage(Storage<T>& st, const T* x, T* y, cudaStream_t stream)
{
    cuda_event start, stop;
    std::vector<double> us;
    for (int r = 0; r < 11; ++r) {
        start.record(stream);
        st.apply(T{1}, x, T{0}, y, stream);
        stop.record(stream);
        stop.synchronize();
        if (r >= 2) us.push_back(stop.seconds_since(start) * 1e6);
    }
    std::nth_element(us.begin(), us.begin() + us.size() / 2, us.end());
    return us[us.size() / 2];
}

std::string describe(const Candidate& c)
{
    std::string s = fmt::format("{} ({}-bound, {:.3g} us", c.label(), c.time.bound(), c.predicted_us());
    if (c.kernel == Kernel::sellp) s += fmt::format(", padding {:.3f}", c.padding_ratio());
    return s + ")";
}

}  // namespace

template <typename T>
struct SpmvOperator<T>::Impl {
    index_type rows = 0, cols = 0;
    std::int64_t nnz = 0;
    Choice choice;
    std::optional<Storage<T>> storage;
};

template <typename T>
SpmvOperator<T>::SpmvOperator(const Csr<T>& a, const Policy& policy,
                              const models::SpmvMachine& machine)
    : impl_{std::make_unique<Impl>()}
{
    Impl& im = *impl_;
    im.rows = a.num_rows;
    im.cols = a.num_cols;
    im.nnz = a.nnz();
    Choice& ch = im.choice;
    ch.policy = policy.kernel;
    if (policy.kernel != "auto") {
        if (policy.trial)
            throw std::invalid_argument("SpMV policy: trial timing applies to kernel 'auto' only, "
                                        "not to '" + policy.kernel + "'");
        ch.kernel = parse_kernel(policy.kernel);
        if (ch.kernel == Kernel::sellp) ch.sellp = resolve_sellp_params(a.view(), policy.sellp);
        if (ch.kernel == Kernel::csr_vector)
            ch.subwarp = policy.subwarp != 0 ? policy.subwarp : choose_csr_subwarp(a.view());
        ch.reason = "asked for by name";
        im.storage.emplace(a, ch.kernel, ch.sellp, ch.subwarp);
        if (ch.kernel == Kernel::csr_vector || ch.kernel == Kernel::csr_adaptive ||
            ch.kernel == Kernel::csr_merge || ch.kernel == Kernel::sellp)
            ch.predicted_us =
                model_candidate(a.view(), ch.kernel, ch.sellp, ch.subwarp, machine).predicted_us();
        return;
    }
    if (policy.trial_candidates < 1)
        throw std::invalid_argument("SpMV policy: trial_candidates = " +
                                    std::to_string(policy.trial_candidates) + ", expected >= 1");
    ch.candidates = rank_candidates(a.view(), machine);
    const auto pick = [&](const Candidate& c) {
        ch.kernel = c.kernel;
        ch.sellp = c.sellp;
        ch.subwarp = c.subwarp;
        ch.predicted_us = c.predicted_us();
    };
    const Candidate& best = ch.candidates.front();
    pick(best);
    ch.reason = "fastest modeled of " + std::to_string(ch.candidates.size()) +
                " configurations: " + describe(best);
    if (ch.candidates.size() > 1) {
        const Candidate& next = ch.candidates[1];
        ch.reason += fmt::format("; next {} (+{:.1f} %)", describe(next),
                                 100.0 * (next.predicted_us() / best.predicted_us() - 1.0));
    }
    if (im.nnz == 0) {
        im.storage.emplace(a, ch.kernel, ch.sellp, ch.subwarp);
        return;
    }
    const cuda_stream stream;
    device_buffer<T> x(std::max<std::size_t>(1, std::size_t(a.num_cols)));
    device_buffer<T> y(std::max<std::size_t>(1, std::size_t(a.num_rows)));
    KBENCH_CUDA_CHECK(cudaMemsetAsync(x.data(), 0x3f, x.bytes(), stream));  // finite, non-zero
    double best_us = 0.0;
    std::string ours_label = best.label();  // our configuration kept
    if (!policy.trial || ch.candidates.size() == 1) {
        im.storage.emplace(a, ch.kernel, ch.sellp, ch.subwarp);
        best_us = time_storage(*im.storage, x.data(), y.data(), stream);
        ch.trial_us.emplace_back(ours_label, best_us);
    } else {
        // Trial: build and time the best few, keep the fastest (its storage stays).
        const std::size_t tries =
            std::min<std::size_t>(policy.trial_candidates, ch.candidates.size());
        std::size_t best_rank = 0;
        for (std::size_t r = 0; r < tries; ++r) {
            const Candidate& c = ch.candidates[r];
            Storage<T> st(a, c.kernel, c.sellp, c.subwarp);
            const double us = time_storage(st, x.data(), y.data(), stream);
            ch.trial_us.emplace_back(c.label(), us);
            if (r == 0 || us < best_us) {
                best_us = us;
                best_rank = r;
                im.storage.reset();  // free the slower one before keeping this one
                im.storage.emplace(std::move(st));
            }
        }
        pick(ch.candidates[best_rank]);
        ours_label = ch.candidates[best_rank].label();
        ch.reason = fmt::format("trial: {} measured fastest ({:.3g} us) of the {} best modeled; "
                                "model rank {}; {}",
                                ours_label, best_us, tries, best_rank + 1,
                                ch.reason);
    }
    // cuSPARSE: no model figure, so each vendor candidate is timed once against our pick.
    const double ours_us = best_us;
    bool vendor_kept = false;
    std::string vendor_times;
    for (const Kernel k : vendor_candidates(row_length_stats(a.view()))) {
        Storage<T> st(a, k, SellpParams{0, 0, 0, 0}, 0);
        const double us = time_storage(st, x.data(), y.data(), stream);
        ch.trial_us.emplace_back(kernel_name(k), us);
        vendor_times += fmt::format("{}{} {:.3g} us", vendor_times.empty() ? "" : ", ",
                                    kernel_name(k), us);
        if (us < best_us) {
            best_us = us;
            im.storage.reset();
            im.storage.emplace(std::move(st));
            ch.kernel = k;
            ch.sellp = SellpParams{0, 0, 0, 0};
            ch.subwarp = 0;
            ch.predicted_us = 0.0;  // not modeled
            vendor_kept = true;
        }
    }
    if (vendor_kept)
        ch.reason = fmt::format("vendor: {} measured fastest ({:.3g} us) against our {} ({:.3g} "
                                "us); {}",
                                kernel_name(ch.kernel), best_us, ours_label, ours_us, ch.reason);
    else if (!vendor_times.empty())
        ch.reason += fmt::format("; measured {:.3g} us against cuSPARSE's {}", ours_us,
                                 vendor_times);
}

template <typename T>
SpmvOperator<T>::~SpmvOperator() = default;
template <typename T>
SpmvOperator<T>::SpmvOperator(SpmvOperator&&) noexcept = default;
template <typename T>
SpmvOperator<T>& SpmvOperator<T>::operator=(SpmvOperator&&) noexcept = default;

template <typename T>
index_type SpmvOperator<T>::num_rows() const { return impl_->rows; }
template <typename T>
index_type SpmvOperator<T>::num_cols() const { return impl_->cols; }
template <typename T>
std::int64_t SpmvOperator<T>::nnz() const { return impl_->nnz; }
template <typename T>
const Choice& SpmvOperator<T>::choice() const { return impl_->choice; }
template <typename T>
std::size_t SpmvOperator<T>::stored_entries() const { return impl_->storage->stored; }

template <typename T>
void SpmvOperator<T>::apply(T alpha, const T* x, T beta, T* y, cudaStream_t stream)
{
    impl_->storage->apply(alpha, x, beta, y, stream);
}

template <typename T>
void SpmvOperator<T>::apply_block(T alpha, const T* x, index_type ldx, T beta, T* y,
                                  index_type ldy, index_type k, cudaStream_t stream)
{
    impl_->storage->apply_block(alpha, x, ldx, beta, y, ldy, k, stream);
}

template <typename T>
models::Traffic SpmvOperator<T>::traffic(bool beta_nonzero) const
{
    const Impl& im = *impl_;
    const Storage<T>& st = *im.storage;
    constexpr int vb = sizeof(T);
    switch (st.kernel) {
    case Kernel::csr_adaptive:
        return models::csr_adaptive_spmv(im.rows, im.cols, im.nnz, st.aux, st.long_rows, vb, 4,
                                          beta_nonzero);
    case Kernel::csr_merge:
        return models::csr_merge_spmv(im.rows, im.cols, im.nnz, st.aux, st.long_rows,
                                      st.carry_tiles, vb, 4, beta_nonzero);
    case Kernel::sellp:
        return models::sellp_spmv(im.rows, im.cols, im.nnz, std::int64_t(st.stored), st.aux, vb,
                                  4, beta_nonzero, im.choice.sellp.sigma > 1, st.long_rows);
    case Kernel::cusparse_sell:
        return models::sellp_spmv(im.rows, im.cols, im.nnz, std::int64_t(st.stored), st.aux, vb,
                                  4, beta_nonzero);
    default: return models::csr_spmv(im.rows, im.cols, im.nnz, vb, 4, beta_nonzero);
    }
}

template <typename T>
SellpParams resolve_sellp_params(const CsrView<T>& a, const SellpParams& overrides)
{
    SellpParams p = choose_sellp_params(a);
    if (overrides.slice_height != 0) p.slice_height = overrides.slice_height;
    if (overrides.threads_per_row != 0) p.threads_per_row = overrides.threads_per_row;
    if (overrides.sigma != 0) p.sigma = overrides.sigma;
    if (overrides.long_row_threshold != 0) p.long_row_threshold = overrides.long_row_threshold;
    return p;
}

namespace {

/// Parameters of one configuration as results files show them (see choice_params).
nlohmann::json config_params(Kernel kernel, const SellpParams& sellp, int subwarp)
{
    switch (kernel) {
    case Kernel::sellp:
        return {{"slice_height", sellp.slice_height},
                {"threads_per_row", sellp.threads_per_row},
                {"sigma", sellp.sigma},
                {"long_row_threshold", sellp.long_row_threshold}};
    case Kernel::csr_vector: return {{"subwarp", subwarp}};
    case Kernel::csr_merge:
        return {{"items_per_thread", csr_merge_items_per_thread},
                {"tile_items", csr_merge_tile_items}};
    case Kernel::cusparse_csr:
        return {{"format", "csr"}, {"algorithm", "CUSPARSE_SPMV_CSR_ALG1"}};
    case Kernel::cusparse_csr_alg2:
        return {{"format", "csr"}, {"algorithm", "CUSPARSE_SPMV_CSR_ALG2"}};
    case Kernel::cusparse_sell:
        return {{"format", "sliced_ell"}, {"slice_size", 32},
                {"algorithm", "CUSPARSE_SPMV_SELL_ALG1"}};
    default: return nlohmann::json::object();
    }
}

}  // namespace

nlohmann::json choice_params(const Choice& c) { return config_params(c.kernel, c.sellp, c.subwarp); }

nlohmann::json choice_summary(const Choice& c)
{
    return {{"policy", c.policy},
            {"kernel", kernel_names()[static_cast<std::size_t>(c.kernel)]},
            {"params", choice_params(c)}};
}

nlohmann::json choice_json(const Choice& c, std::size_t max_candidates)
{
    nlohmann::json j{{"policy", c.policy},
                     {"kernel", kernel_name(c.kernel)},
                     {"params", choice_params(c)},
                     {"reason", c.reason},
                     {"predicted_us", c.predicted_us}};
    nlohmann::json cands = nlohmann::json::array();
    const std::size_t shown = std::max(max_candidates, c.trial_us.size());  // every one timed
    for (std::size_t i = 0; i < std::min(shown, c.candidates.size()); ++i) {
        const Candidate& k = c.candidates[i];
        cands.push_back({{"kernel", kernel_name(k.kernel)},
                         {"label", k.label()},
                         {"params", config_params(k.kernel, k.sellp, k.subwarp)},
                         {"bytes", k.traffic.bytes()},
                         {"l2_bytes", k.l2_bytes},
                         {"padding_ratio", k.padding_ratio()},
                         {"sectors_per_gather", k.sectors_per_gather},
                         {"gather_bytes", k.gather_bytes},
                         {"bound", k.time.bound()},
                         {"predicted_us", k.predicted_us()}});
    }
    if (!c.candidates.empty()) j["candidates"] = cands;
    if (!c.trial_us.empty()) {
        nlohmann::json t = nlohmann::json::object();
        for (const auto& [label, us] : c.trial_us) t[label] = us;
        j["trial_us"] = t;
    }
    return j;
}

template SellpParams resolve_sellp_params<float>(const CsrView<float>&, const SellpParams&);
template SellpParams resolve_sellp_params<double>(const CsrView<double>&, const SellpParams&);
template class SpmvOperator<float>;
template class SpmvOperator<double>;

}  // namespace kbench::spmv
