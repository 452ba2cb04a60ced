// The host arithmetic of GMRES(m)'s one-reduce CGS2 Arnoldi step (ArnoldiOrth::cgs2_lowsync,
// solvers/gmres.hpp; Bielich et al. 2022, Alg. 4): what turns the values of the step's one fused
// reduction into the Hessenberg column and the coefficients of the vector updates. Shared by the
// device step (gmres_device.hpp) and the CPU backend (gmres_cpu.cpp), so that both compute them
// in the same order from their reduced values.
// Internal header: include only from the solver sources.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <limits>
#include <vector>

namespace kbench::solvers::detail {

/// The host state of one restart cycle of the one-reduce CGS2 Arnoldi process: the first-pass
/// coefficients c_j of the vector the next step finalizes (u_{j+1} = A v_j - V_j c_j) and the
/// final Hessenberg columns so far. Step j reads the fused product of V = [v_0 .. v_j, u_{j+1}]
/// (j + 2 columns) with [u_{j+1}, w], w = A u_{j+1}: G, column-major with ld j + 2,
///   G(0:j, 0) = a = V_j^T u_{j+1},  G(j + 1, 0) = u_{j+1}^T u_{j+1},
///   G(0:j, 1) = V_j^T w,            G(j + 1, 1) = u_{j+1}^T w   (column 1: lookahead steps only).
/// Sums in double, values stored in T.
template <typename T>
class LowSyncArnoldi {
public:
    /// Room for a cycle of m steps (m >= 1).
    explicit LowSyncArnoldi(int m)
        : ldh_(m + 1), c_(static_cast<std::size_t>(m) + 1),
          h_(static_cast<std::size_t>(m + 1) * m)
    {}

    /// Step 0's first pass: c_0 = v_0^T A v_0.
    void start(T c0) { c_[0] = c0; }

    /// Column j of H from G's column 0: h[0..j] = c_j + a. Returns the norm nu of
    /// u_{j+1} - V_j a by the Pythagorean identity, sqrt(u^T u - a^T a), when that difference
    /// keeps more than half of u^T u; -1 when it does not (the caller computes the norm
    /// explicitly); NaN when a value is not finite.
    double second_pass(int j, const T* G, std::vector<T>& h) const
    {
        double aa = 0.0;
        for (int i = 0; i <= j; ++i) {
            const double a = static_cast<double>(G[i]);
            aa += a * a;
            h[i] = static_cast<T>(static_cast<double>(c_[i]) + a);
        }
        const double uu = static_cast<double>(G[j + 1]);
        const double nu2 = uu - aa;
        if (std::isnan(nu2)) return std::numeric_limits<double>::quiet_NaN();
        return nu2 > 0.5 * uu ? std::sqrt(nu2) : -1.0;
    }

    /// h[j + 1] = nu; keeps column j of H (h[0..j + 1]).
    void finish_column(int j, double nu, std::vector<T>& h)
    {
        h[j + 1] = static_cast<T>(nu);
        for (int i = 0; i <= j + 1; ++i) h_[static_cast<std::size_t>(j) * ldh_ + i] = h[i];
    }

    /// The lookahead of step j, after finish_column(j) with nu > 0 and finite: returns
    /// d_{j+1} = v_{j+1}^T w = (u^T w - a^T V_j^T w) / nu (d_{0..j} = V_j^T w, G's column 1, as
    /// they are), and keeps c_{j+1} = (d - H(0:j+1, 0:j) a) / nu, the first-pass coefficients of
    /// A v_{j+1} = (w - A V_j a) / nu for the next step.
    T next_first_pass(int j, const T* G, double nu)
    {
        const T* a = G;
        const T* b = G + (j + 2);
        double ab = 0.0;
        for (int i = 0; i <= j; ++i) ab += static_cast<double>(a[i]) * static_cast<double>(b[i]);
        const double d_last = (static_cast<double>(b[j + 1]) - ab) / nu;
        for (int r = 0; r <= j + 1; ++r) {
            double ha = 0.0;  // (H a)_r: H(r, i) != 0 for i >= r - 1
            for (int i = r > 0 ? r - 1 : 0; i <= j; ++i)
                ha += static_cast<double>(h_[static_cast<std::size_t>(i) * ldh_ + r]) *
                      static_cast<double>(a[i]);
            const double d = r <= j ? static_cast<double>(b[r]) : d_last;
            c_[r] = static_cast<T>((d - ha) / nu);
        }
        return static_cast<T>(d_last);
    }

    /// The state as one array, c (m + 1 values) then H (column-major, ld m + 1, m columns):
    /// the layout lowsync_step_coefficients (gmres_lowsync_step.hpp) keeps on the device.
    std::size_t state_size() const { return c_.size() + h_.size(); }
    void save_state(T* out) const
    {
        std::copy(c_.begin(), c_.end(), out);
        std::copy(h_.begin(), h_.end(), out + c_.size());
    }
    void load_state(const T* in)
    {
        std::copy(in, in + c_.size(), c_.begin());
        std::copy(in + c_.size(), in + c_.size() + h_.size(), h_.begin());
    }

private:
    int ldh_;
    std::vector<T> c_;  // c_j (j + 1 values)
    std::vector<T> h_;  // H, column-major, ld m + 1
};

}  // namespace kbench::solvers::detail
