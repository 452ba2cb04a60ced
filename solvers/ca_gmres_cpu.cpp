// CA-GMRES(s, m) on the CPU with Eigen (declarations in solvers/ca_gmres.hpp): the reference
// twin of the GPU solver, and the host pieces both share (option checks, Leja ordering, the
// Newton steps and basis-change matrix, the Hessenberg reconstruction, Ritz values, the Gram
// condition estimate, balancing, the CPU matrix powers kernel).
#include "solvers/ca_gmres.hpp"
#include "solvers/ca_gmres_cycle.hpp"
#include "solvers/gmres.hpp"

#include "kernels/dot.hpp"
#include "kernels/tall_skinny.hpp"

#include <Eigen/Dense>
#include <Eigen/Eigenvalues>
#include <Eigen/SparseCore>

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <stdexcept>
#include <string>

namespace kbench::solvers {

namespace {

template <typename T>
using SparseRowMajor = Eigen::SparseMatrix<T, Eigen::RowMajor, index_type>;
template <typename T>
using Matrix = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
template <typename T>
using Vector = Eigen::Matrix<T, Eigen::Dynamic, 1>;

[[noreturn]] void invalid(const std::string& who, const std::string& what)
{
    throw std::invalid_argument(who + ": " + what);
}

std::string number(double v)
{
    std::ostringstream os;
    os.precision(6);
    os << v;
    return os.str();
}

std::string number(std::complex<double> z)
{
    return number(z.real()) + (z.imag() < 0 ? " - " : " + ") + number(std::abs(z.imag())) + "i";
}

}  // namespace

const char* to_string(CaBasis basis)
{
    return basis == CaBasis::monomial ? "monomial" : "newton";
}

CaBasis parse_ca_basis(const std::string& name)
{
    if (name == "monomial") return CaBasis::monomial;
    if (name == "newton") return CaBasis::newton;
    throw std::invalid_argument("CA-GMRES basis '" + name + "': expected 'monomial' or 'newton'");
}

const char* to_string(CaBorth borth)
{
    return borth == CaBorth::block ? "block" : "two_stage";
}

CaBorth parse_ca_borth(const std::string& name)
{
    if (name == "block") return CaBorth::block;
    if (name == "two_stage") return CaBorth::two_stage;
    throw std::invalid_argument("CA-GMRES block orthogonalization '" + name +
                                "': expected 'block' or 'two_stage'");
}

std::vector<std::complex<double>> leja_order(const std::vector<std::complex<double>>& values)
{
    const std::string who = "kbench::solvers::leja_order";
    std::vector<std::complex<double>> v = values;
    for (auto& z : v) {
        if (!std::isfinite(z.real()) || !std::isfinite(z.imag()))
            invalid(who, "shift " + number(z) + " is not finite, expected finite shifts");
        if (std::abs(z.imag()) <= 1e-14 * std::abs(z)) z = z.real();
    }
    // Candidates: real values, and one representative (Im > 0) per conjugate pair.
    struct Candidate {
        std::complex<double> z;
        bool pair;
    };
    std::vector<Candidate> cand;
    std::vector<char> matched(v.size(), 0);
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (matched[i]) continue;
        matched[i] = 1;
        if (v[i].imag() == 0.0) {
            cand.push_back({v[i], false});
            continue;
        }
        std::size_t best = v.size();
        double best_distance = 0.0;
        for (std::size_t p = i + 1; p < v.size(); ++p) {
            if (matched[p] || v[p].imag() * v[i].imag() >= 0.0) continue;
            const double d = std::abs(v[p] - std::conj(v[i]));
            if (d <= 1e-12 * std::abs(v[i]) && (best == v.size() || d < best_distance)) {
                best = p;
                best_distance = d;
            }
        }
        if (best == v.size())
            invalid(who, "shift " + number(v[i]) +
                             " has no conjugate, expected complex shifts in conjugate pairs");
        matched[best] = 1;
        cand.push_back({v[i].imag() > 0.0 ? v[i] : v[best], true});
    }
    // Modified Leja ordering: maximize the product of distances (as a sum of logarithms).
    std::vector<std::complex<double>> out;
    out.reserve(v.size());
    std::vector<char> taken(cand.size(), 0);
    std::vector<double> score(cand.size(), 0.0);
    for (std::size_t round = 0; round < cand.size(); ++round) {
        std::size_t best = cand.size();
        double best_score = 0.0;
        for (std::size_t c = 0; c < cand.size(); ++c) {
            if (taken[c]) continue;
            const double sc = out.empty() ? std::abs(cand[c].z) : score[c];
            if (best == cand.size() || sc > best_score) {
                best = c;
                best_score = sc;
            }
        }
        taken[best] = 1;
        const std::complex<double> z = cand[best].z;
        out.push_back(z);
        if (cand[best].pair) out.push_back(std::conj(z));
        for (std::size_t c = 0; c < cand.size(); ++c) {
            if (taken[c]) continue;
            score[c] += std::log(std::abs(cand[c].z - z));
            if (cand[best].pair) score[c] += std::log(std::abs(cand[c].z - std::conj(z)));
        }
    }
    return out;
}

std::vector<MpkStep> newton_steps(const std::vector<std::complex<double>>& shifts, int k)
{
    if (k < 1)
        throw std::invalid_argument("kbench::solvers::newton_steps: k = " + std::to_string(k) +
                                    ", expected >= 1");
    std::vector<MpkStep> steps(static_cast<std::size_t>(k));
    if (shifts.empty()) return steps;  // monomial
    const std::size_t count = shifts.size();
    for (int t = 0; t < k; ++t) {
        const std::complex<double> z = shifts[static_cast<std::size_t>(t) % count];
        steps[t].alpha = z.real();
        if (z.imag() < 0.0 && t > 0) {
            // The second member of a pair (leja_order puts Im > 0 first); a block starting with
            // it (cycled shifts never do: pairs stay aligned) would have no first step.
            steps[t].b2 = z.imag() * z.imag();
        }
        // A first member at t = k - 1 stays a real step {a, 0}: the pair is cut by the block.
    }
    return steps;
}

double mpk_scale(double norm2)
{
    return norm2 > 0.0 && norm2 < std::numeric_limits<double>::infinity() ? std::sqrt(norm2)
                                                                          : 1.0;
}

std::vector<double> basis_change_matrix(const std::vector<MpkStep>& steps,
                                        const std::vector<double>& sigma)
{
    const int k = static_cast<int>(steps.size());
    if (k < 1 || sigma.size() != steps.size() + 1)
        throw std::invalid_argument("kbench::solvers::basis_change_matrix: " +
                                    std::to_string(steps.size()) + " steps and " +
                                    std::to_string(sigma.size()) +
                                    " scales, expected k >= 1 steps and k + 1 scales");
    const int ldb = k + 1;
    std::vector<double> b(static_cast<std::size_t>(ldb) * k, 0.0);
    for (int t = 0; t < k; ++t) {
        b[t + t * ldb] = steps[t].alpha;
        b[t + 1 + t * ldb] = sigma[t + 1];
        if (steps[t].b2 != 0.0 && t > 0) b[t - 1 + t * ldb] = -steps[t].b2 / sigma[t];
    }
    return b;
}

template <typename T>
Balanced<T> balance(const Csr<T>& a)
{
    Balanced<T> out;
    out.matrix = a;
    out.row_scale.assign(static_cast<std::size_t>(a.num_rows), T(1));
    out.col_scale.assign(static_cast<std::size_t>(a.num_cols), T(1));
    for (index_type i = 0; i < a.num_rows; ++i) {
        double sum = 0.0;
        for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            sum += static_cast<double>(a.values[p]) * a.values[p];
        if (sum > 0.0) out.row_scale[i] = static_cast<T>(1.0 / std::sqrt(sum));
        for (index_type p = a.row_ptr[i]; p < a.row_ptr[i + 1]; ++p)
            out.matrix.values[p] *= out.row_scale[i];
    }
    std::vector<double> col(static_cast<std::size_t>(a.num_cols), 0.0);
    for (std::size_t p = 0; p < out.matrix.values.size(); ++p)
        col[out.matrix.col_idx[p]] +=
            static_cast<double>(out.matrix.values[p]) * out.matrix.values[p];
    for (index_type j = 0; j < a.num_cols; ++j)
        if (col[j] > 0.0) out.col_scale[j] = static_cast<T>(1.0 / std::sqrt(col[j]));
    for (std::size_t p = 0; p < out.matrix.values.size(); ++p)
        out.matrix.values[p] *= out.col_scale[out.matrix.col_idx[p]];
    return out;
}

template Balanced<float> balance<float>(const Csr<float>&);
template Balanced<double> balance<double>(const Csr<double>&);

namespace detail {

void check_ca_gmres_options(const char* who, long long rows, long long cols,
                            const CaGmresOptions& o)
{
    check_krylov_options(who, rows, cols, o.restart, o.tolerance, o.max_iterations,
                         o.stagnation_cycles);
    const std::string w{who};
    if (o.s < 1) invalid(w, "s = " + std::to_string(o.s) + ", expected a step size >= 1");
    if (o.s > o.restart)
        invalid(w, "s = " + std::to_string(o.s) + ", expected s <= restart = " +
                       std::to_string(o.restart));
    if (o.s > blas::max_block_columns)
        invalid(w, "s = " + std::to_string(o.s) + ", expected s <= " +
                       std::to_string(blas::max_block_columns) + " (the TSQR block limit)");
    if (o.s > rows)
        invalid(w, "s = " + std::to_string(o.s) + ", expected s <= n = " + std::to_string(rows));
    if (o.max_restarts < 0)
        invalid(w, "max_restarts = " + std::to_string(o.max_restarts) +
                       ", expected >= 0 (0: no limit)");
    if (o.borth_passes != 1 && o.borth_passes != 2)
        invalid(w, "borth_passes = " + std::to_string(o.borth_passes) +
                       ", expected 1 (CGS) or 2 (CGS2)");
    if (o.panel_columns != 0 &&
        (o.panel_columns < o.s || o.panel_columns > blas::max_block_columns))
        invalid(w, "panel_columns = " + std::to_string(o.panel_columns) +
                       ", expected 0 (min(restart, 64)) or s = " + std::to_string(o.s) +
                       " <= panel_columns <= " + std::to_string(blas::max_block_columns));
    if (o.measure_orthogonality && o.borth == CaBorth::two_stage)
        invalid(w, "measure_orthogonality = true with borth = two_stage, expected borth = block "
                   "(the records measure the TSQR of each block)");
    if (!o.shifts.empty()) {
        if (o.basis == CaBasis::monomial)
            invalid(w, "shifts = " + std::to_string(o.shifts.size()) +
                           " values with the monomial basis, expected none (or basis = newton)");
        try {
            (void)leja_order(o.shifts);
        } catch (const std::invalid_argument& e) {
            invalid(w, std::string{"shifts: "} + e.what());
        }
    }
}

void reconstruct_hessenberg(int j, int k, int used, const double* C, const double* R,
                            const double* B, double* H, int ldh)
{
    if (j < 0 || k < 1 || used < 1 || used > k || ldh < j + used + 1)
        throw std::invalid_argument(
            "kbench::solvers::detail::reconstruct_hessenberg: j = " + std::to_string(j) +
            ", k = " + std::to_string(k) + ", used = " + std::to_string(used) + ", ldh = " +
            std::to_string(ldh) + ", expected j >= 0, 1 <= used <= k, ldh >= j + used + 1");
    const int ldc = j + 1, ldb = k + 1;
    // Rh = [e_j, [C; R]]: (j + 1 + k) x (k + 1).
    auto rh = [&](int r, int t) -> double {
        if (t == 0) return r == j ? 1.0 : 0.0;
        if (r <= j) return C[r + static_cast<std::size_t>(t - 1) * ldc];
        const int rr = r - j - 1;
        return rr <= t - 1 ? R[rr + static_cast<std::size_t>(t - 1) * k] : 0.0;
    };
    const int rows = j + used + 1;
    std::vector<double> out(static_cast<std::size_t>(rows) * used, 0.0);
    for (int i = 0; i < used; ++i) {
        double* col = out.data() + static_cast<std::size_t>(i) * rows;
        // M(:, i) = Rh B(:, i) - [H(0:j, 0:j-1) X(:, i); 0]; B(:, i) has rows i-1 .. i+1.
        for (int r = 0; r < rows; ++r) {
            double sum = 0.0;
            for (int t = std::max(0, i - 1); t <= std::min(k, i + 1); ++t)
                sum += rh(r, t) * B[t + static_cast<std::size_t>(i) * ldb];
            col[r] = sum;
        }
        for (int l = 0; l < j; ++l) {
            const double xl = rh(l, i);
            if (xl == 0.0) continue;
            for (int r = 0; r <= std::min(j, l + 1); ++r)
                col[r] -= H[r + static_cast<std::size_t>(l) * ldh] * xl;
        }
        // Right triangular solve with Y = Rh(j:j+k-1, 0:k-1): column i of (M Y^-1).
        for (int l = 0; l < i; ++l) {
            const double y = rh(j + l, i);
            if (y == 0.0) continue;
            const double* prev = out.data() + static_cast<std::size_t>(l) * rows;
            for (int r = 0; r < rows; ++r) col[r] -= prev[r] * y;
        }
        const double diag = rh(j + i, i);
        for (int r = 0; r < rows; ++r) col[r] = r <= j + i + 1 ? col[r] / diag : 0.0;
    }
    for (int i = 0; i < used; ++i)
        for (int r = 0; r < rows; ++r)
            H[r + static_cast<std::size_t>(j + i) * ldh] =
                out[r + static_cast<std::size_t>(i) * rows];
}

void change_panel_basis(int a, int e, int last, const double* C2, const double* R2, double* H,
                        int ldh)
{
    if (a < 1 || e < a || last < a - 1 || last > e || ldh < last + 2)
        throw std::invalid_argument(
            "kbench::solvers::detail::change_panel_basis: a = " + std::to_string(a) + ", e = " +
            std::to_string(e) + ", last = " + std::to_string(last) + ", ldh = " +
            std::to_string(ldh) + ", expected 1 <= a <= e, a - 1 <= last <= e, ldh >= last + 2");
    const int kp = e - a + 1;
    // T(r, i): Z = Q T, the identity outside the panel's columns.
    auto t = [&](int r, int i) -> double {
        if (i < a || i > e) return r == i ? 1.0 : 0.0;
        if (r < a) return C2[r + static_cast<std::size_t>(i - a) * a];
        return r <= i ? R2[(r - a) + static_cast<std::size_t>(i - a) * kp] : 0.0;
    };
    std::vector<double> y;
    for (int l = a - 1; l <= last; ++l) {
        double* col = H + static_cast<std::size_t>(l) * ldh;
        y.assign(static_cast<std::size_t>(l) + 2, 0.0);  // T H1(:, l), rows 0 .. l + 1
        for (int r = 0; r <= l + 1; ++r)
            for (int i = r; i <= l + 1; ++i) y[r] += t(r, i) * col[i];
        for (int i = 0; i < l; ++i) {
            const double ti = t(i, l);
            if (ti == 0.0) continue;
            const double* prev = H + static_cast<std::size_t>(i) * ldh;
            for (int r = 0; r <= i + 1; ++r) y[r] -= prev[r] * ti;
        }
        const double diag = t(l, l);
        for (int r = 0; r <= l + 1; ++r) col[r] = y[r] / diag;
        for (int r = l + 2; r <= std::min(e, ldh - 1); ++r) col[r] = 0.0;
    }
}

int usable_columns(int j, int k, const double* C, const double* R, double eps, bool* happy)
{
    *happy = false;
    const int ldc = j + 1;
    for (int i = 0; i < k; ++i) {
        double norm2 = 0.0;
        for (int r = 0; r <= j; ++r) norm2 += C[r + i * ldc] * C[r + i * ldc];
        for (int r = 0; r <= i; ++r) norm2 += R[r + i * k] * R[r + i * k];
        if (!(std::abs(R[i + i * k]) > 10.0 * eps * std::sqrt(norm2))) {
            if (i > 0) return i;
            *happy = true;
            return 1;
        }
    }
    return k;
}

double gram_condition(int k, const double* R, int ldr)
{
    using Strided = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
    const Strided r(R, k, k, Eigen::OuterStride<>(ldr));
    const Eigen::MatrixXd upper = r.triangularView<Eigen::Upper>();
    const Eigen::VectorXd sv = Eigen::JacobiSVD<Eigen::MatrixXd>(upper).singularValues();
    if (!sv.allFinite()) return std::numeric_limits<double>::quiet_NaN();
    const double smax = sv.maxCoeff(), smin = sv.minCoeff();
    if (!(smin > 0.0)) return std::numeric_limits<double>::infinity();
    return (smax / smin) * (smax / smin);
}

std::vector<std::complex<double>> ritz_values(int c, const double* H, int ldh)
{
    if (c < 1) return {};
    using Strided = Eigen::Map<const Eigen::MatrixXd, 0, Eigen::OuterStride<>>;
    const Strided h(H, c, c, Eigen::OuterStride<>(ldh));
    if (!h.allFinite()) return {};
    const Eigen::EigenSolver<Eigen::MatrixXd> es(Eigen::MatrixXd(h), false);
    if (es.info() != Eigen::Success) return {};
    const Eigen::VectorXcd ev = es.eigenvalues();
    return std::vector<std::complex<double>>(ev.data(), ev.data() + ev.size());
}

}  // namespace detail

namespace reference {

template <typename T>
void matrix_powers(const Csr<T>& a, const std::vector<MpkStep>& steps, int k, bool normalize,
                   T* V, std::int64_t ld, T* norm2)
{
    const std::string who = "kbench::solvers::reference::matrix_powers";
    if (a.num_rows != a.num_cols)
        invalid(who, "the matrix is " + std::to_string(a.num_rows) + " x " +
                         std::to_string(a.num_cols) + ", expected square");
    if (k < 1) invalid(who, "k = " + std::to_string(k) + ", expected >= 1");
    if (steps.size() < static_cast<std::size_t>(k))
        invalid(who, "steps has " + std::to_string(steps.size()) + " entries, expected >= k = " +
                         std::to_string(k));
    if (steps[0].b2 != 0.0) invalid(who, "steps[0].b2 = " + number(steps[0].b2) + ", expected 0");
    if (ld < a.num_rows) invalid(who, "ld = " + std::to_string(ld) + ", expected >= n");
    if (V == nullptr || (normalize && norm2 == nullptr))
        invalid(who, std::string{V == nullptr ? "V" : "norm2"} + " is null, expected a host array");
    const Eigen::Index n = a.num_rows;
    const Eigen::Map<const SparseRowMajor<T>> A(a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(),
                                                a.col_idx.data(), a.values.data());
    for (int t = 0; t < k; ++t) {
        Eigen::Map<const Vector<T>> w(V + t * ld, n);
        Eigen::Map<Vector<T>> y(V + (t + 1) * ld, n);
        y.noalias() = A * w;
        if (steps[t].alpha != 0.0) y -= static_cast<T>(steps[t].alpha) * w;
        if (steps[t].b2 != 0.0) {
            const double sigma = normalize ? mpk_scale(static_cast<double>(norm2[t])) : 1.0;
            const Eigen::Map<const Vector<T>> previous(V + (t - 1) * ld, n);
            y += static_cast<T>(steps[t].b2 / sigma) * previous;
        }
        if (normalize) {
            const T q = y.squaredNorm();
            norm2[t + 1] = q;
            if (q > T(0) && q < std::numeric_limits<T>::infinity()) y *= T(1) / std::sqrt(q);
        }
    }
}

template void matrix_powers<float>(const Csr<float>&, const std::vector<MpkStep>&, int, bool,
                                   float*, std::int64_t, float*);
template void matrix_powers<double>(const Csr<double>&, const std::vector<MpkStep>&, int, bool,
                                    double*, std::int64_t, double*);

}  // namespace reference

namespace {

/// The CPU backend of detail::run_ca_gmres (see ca_gmres_cycle.hpp): the basis Q (n x (m + 1))
/// as an Eigen matrix.
template <typename T>
struct CpuBackend {
    const Csr<T>& csr;
    Eigen::Map<const SparseRowMajor<T>> A;
    Eigen::Map<const Vector<T>> b;
    Eigen::Map<Vector<T>> x;
    int passes;
    bool normalize;
    Matrix<T> v, c, saved, g;  // g: two_stage's fused product [Q_{0:j}, W]^T W
    std::vector<T> n2;
    detail::PhaseLog log;

    CpuBackend(const Csr<T>& a, const std::vector<T>& b_, std::vector<T>& x_, int m,
               const CaGmresOptions& o)
        : csr(a), A(a.num_rows, a.num_cols, a.nnz(), a.row_ptr.data(), a.col_idx.data(),
                    a.values.data()),
          b(b_.data(), a.num_rows), x(x_.data(), a.num_rows), passes(o.borth_passes),
          normalize(o.normalize_basis), v(Matrix<T>::Zero(a.num_rows, m + 1))
    {
    }
    Eigen::Index n() const { return b.size(); }
    std::int64_t rows() const { return b.size(); }
    void sync() const {}
    auto block(int j, int k) { return v.middleCols(j + 1, k); }

    double norm_b() const { return static_cast<double>(b.norm()); }
    double residual()
    {
        v.col(0) = b - A * x;
        return static_cast<double>(v.col(0).norm());
    }
    void scale_first(double inv) { v.col(0) *= static_cast<T>(inv); }
    void mpk(int j, int k, const std::vector<MpkStep>& steps)
    {
        n2.assign(static_cast<std::size_t>(k) + 1, T(0));
        reference::matrix_powers(csr, steps, k, normalize, v.col(j).data(), n(), n2.data());
    }
    void borth(int j, int k)
    {
        const auto q = v.leftCols(j + 1);
        auto w = block(j, k);
        c = q.transpose() * w;
        w.noalias() -= q * c;
        if (passes == 2) {
            const Matrix<T> c2 = q.transpose() * w;
            w.noalias() -= q * c2;
            c += c2;
        }
    }
    void save(int j, int k) { saved = block(j, k); }
    void restore(int j, int k) { block(j, k) = saved; }
    ortho::TsqrOutcome tsqr(ortho::TsqrMethod method, int j, int k, T* R)
    {
        return ortho::reference::tsqr(method, n(), k, v.col(j + 1).data(), n(), R, k);
    }
    void fetch(int j, int k, T* C, T* norm2)
    {
        Eigen::Map<Matrix<T>>(C, j + 1, k) = c;
        std::copy_n(n2.begin(), std::min(n2.size(), static_cast<std::size_t>(k) + 1), norm2);
    }
    void project(int j, int k) { g = v.leftCols(j + 1 + k).transpose() * block(j, k); }
    void fetch_projection(int j, int k, T* G, T* norm2)
    {
        Eigen::Map<Matrix<T>>(G, j + 1 + k, k) = g;
        std::copy_n(n2.begin(), std::min(n2.size(), static_cast<std::size_t>(k) + 1), norm2);
    }
    void stage1(int j, int k, const T* R)
    {
        auto w = block(j, k);
        w.noalias() -= v.leftCols(j + 1) * g.topRows(j + 1);
        if (R == nullptr) return;
        const Eigen::Map<const Matrix<T>> r(R, k, k);
        r.template triangularView<Eigen::Upper>().template solveInPlace<Eigen::OnTheRight>(w);
    }
    bool block_finite(int j, int k) { return block(j, k).allFinite(); }
    ortho::TsqrQuality quality(int j, int k, const T* R)
    {
        return ortho::tsqr_quality<T>(n(), k, saved.data(), n(), v.col(j + 1).data(), n(), R, k);
    }
    void update(const std::vector<T>& y)
    {
        const Eigen::Map<const Vector<T>> yv(y.data(), static_cast<Eigen::Index>(y.size()));
        x += v.leftCols(yv.size()) * yv;
    }
    void basis(int cols, std::vector<T>& out)
    {
        out.assign(v.data(), v.data() + n() * (cols + 1));
    }
};

template <typename T>
CaGmresResult run_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                      const CaGmresOptions& o, const detail::CaCycleObserver<T>* observer)
{
    detail::check_ca_gmres_options("ca_gmres_cpu", a.num_rows, a.num_cols, o);
    const auto n = static_cast<std::size_t>(a.num_rows);
    if (b.size() != n || x.size() != n)
        throw std::invalid_argument("ca_gmres_cpu: b has " + std::to_string(b.size()) + " and x " +
                                    std::to_string(x.size()) + " entries, expected " +
                                    std::to_string(n));
    CpuBackend<T> be(a, b, x, detail::restart_length(o), o);
    return detail::run_ca_gmres<T>(be, o, observer);
}

}  // namespace

template <typename T>
CaGmresResult ca_gmres_cpu(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                           const CaGmresOptions& options)
{
    return run_cpu<T>(a, b, x, options, nullptr);
}

namespace detail {
template <typename T>
CaGmresResult ca_gmres_cpu_observed(const Csr<T>& a, const std::vector<T>& b, std::vector<T>& x,
                                    const CaGmresOptions& options,
                                    const CaCycleObserver<T>& observer)
{
    return run_cpu<T>(a, b, x, options, &observer);
}
}  // namespace detail

#define KBENCH_INSTANTIATE(T)                                                                  \
    template CaGmresResult ca_gmres_cpu<T>(const Csr<T>&, const std::vector<T>&,               \
                                           std::vector<T>&, const CaGmresOptions&);            \
    template CaGmresResult detail::ca_gmres_cpu_observed<T>(                                   \
        const Csr<T>&, const std::vector<T>&, std::vector<T>&, const CaGmresOptions&,          \
        const detail::CaCycleObserver<T>&);
KBENCH_INSTANTIATE(float)
KBENCH_INSTANTIATE(double)
#undef KBENCH_INSTANTIATE

}  // namespace kbench::solvers
