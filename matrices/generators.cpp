// PDE stencil matrices and Trefethen matrices, written straight into CSR arrays.
//
// Every generator counts first (closed formulas in 64-bit arithmetic, checked against the
// 32-bit index_type), allocates exactly, then fills row by row in increasing column order, so
// no triplet sort is needed even for 1e7 rows and 2.7e8 nonzeros.
#include "matrices/generators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kbench {
namespace {

constexpr std::int64_t index_max = std::numeric_limits<index_type>::max();

void require_positive(const char* fn, const char* what, index_type v)
{
    if (v < 1) {
        throw std::invalid_argument(fmt::format("{}: {} = {}, expected >= 1", fn, what, v));
    }
}

/// Checks that `count` fits index_type; `what` names the quantity ("rows", "nonzeros").
index_type checked_index(const char* fn, const char* what, std::int64_t count)
{
    if (count > index_max) {
        throw std::invalid_argument(fmt::format(
            "{}: {} {} overflow the 32-bit index type (max {})", fn, count, what, index_max));
    }
    return static_cast<index_type>(count);
}

/// Number of pairs (i, i') in [0, n) with |i - i'| <= 1.
std::int64_t tridiag_pairs(index_type n) { return 3 * static_cast<std::int64_t>(n) - 2; }

Csr<double> allocate(index_type n, index_type nnz)
{
    Csr<double> a;
    a.num_rows = n;
    a.num_cols = n;
    a.row_ptr.assign(static_cast<std::size_t>(n) + 1, 0);
    a.col_idx.resize(static_cast<std::size_t>(nnz));
    a.values.resize(static_cast<std::size_t>(nnz));
    return a;
}

/// Coefficients of a 7-point (or 5-point when nz == 1) stencil: centre and the two neighbours
/// in each direction (minus side, plus side).
struct Stencil7 {
    double centre;
    double minus[3];
    double plus[3];
};

/// Fills a 7-point (5-point for nz == 1) stencil matrix on nx x ny x nz, Dirichlet boundary.
Csr<double> stencil7(const char* fn, index_type nx, index_type ny, index_type nz,
                     const Stencil7& s)
{
    require_positive(fn, "nx", nx);
    require_positive(fn, "ny", ny);
    require_positive(fn, "nz", nz);
    const std::int64_t n64 = static_cast<std::int64_t>(nx) * ny * nz;
    const index_type n = checked_index(fn, "rows", n64);
    const std::int64_t nnz64 = n64 + 2 * (static_cast<std::int64_t>(nx - 1) * ny * nz +
                                          static_cast<std::int64_t>(nx) * (ny - 1) * nz +
                                          static_cast<std::int64_t>(nx) * ny * (nz - 1));
    Csr<double> a = allocate(n, checked_index(fn, "nonzeros", nnz64));
    const index_type sx = 1, sy = nx, sz = nx * ny;  // strides; sz <= n fits
    index_type* col = a.col_idx.data();
    double* val = a.values.data();
    index_type k = 0, row = 0;
    auto put = [&](index_type c, double v) {
        col[k] = c;
        val[k] = v;
        ++k;
    };
    for (index_type z = 0; z < nz; ++z) {
        for (index_type y = 0; y < ny; ++y) {
            for (index_type x = 0; x < nx; ++x, ++row) {
                if (z > 0) put(row - sz, s.minus[2]);
                if (y > 0) put(row - sy, s.minus[1]);
                if (x > 0) put(row - sx, s.minus[0]);
                put(row, s.centre);
                if (x + 1 < nx) put(row + sx, s.plus[0]);
                if (y + 1 < ny) put(row + sy, s.plus[1]);
                if (z + 1 < nz) put(row + sz, s.plus[2]);
                a.row_ptr[static_cast<std::size_t>(row) + 1] = k;
            }
        }
    }
    return a;
}

/// The first n primes (sieve of Eratosthenes up to an upper bound of the n-th prime).
std::vector<std::int64_t> first_primes(index_type n)
{
    // Rosser's bound p_n < n (ln n + ln ln n) for n >= 6.
    const double dn = static_cast<double>(n);
    const std::int64_t limit =
        n < 6 ? 15 : static_cast<std::int64_t>(dn * (std::log(dn) + std::log(std::log(dn)))) + 2;
    std::vector<bool> composite(static_cast<std::size_t>(limit) + 1, false);
    std::vector<std::int64_t> primes;
    primes.reserve(static_cast<std::size_t>(n));
    for (std::int64_t p = 2; p <= limit && static_cast<index_type>(primes.size()) < n; ++p) {
        if (composite[static_cast<std::size_t>(p)]) continue;
        primes.push_back(p);
        for (std::int64_t q = p * p; q <= limit; q += p) {
            composite[static_cast<std::size_t>(q)] = true;
        }
    }
    return primes;
}

}  // namespace

Csr<double> laplacian_2d_5pt(index_type nx, index_type ny)
{
    return stencil7("laplacian_2d_5pt", nx, ny, 1, {4.0, {-1.0, -1.0, 0.0}, {-1.0, -1.0, 0.0}});
}

Csr<double> laplacian_3d_7pt(index_type nx, index_type ny, index_type nz)
{
    return stencil7("laplacian_3d_7pt", nx, ny, nz,
                    {6.0, {-1.0, -1.0, -1.0}, {-1.0, -1.0, -1.0}});
}

Csr<double> laplacian_3d_27pt(index_type nx, index_type ny, index_type nz)
{
    const char* fn = "laplacian_3d_27pt";
    require_positive(fn, "nx", nx);
    require_positive(fn, "ny", ny);
    require_positive(fn, "nz", nz);
    const index_type n =
        checked_index(fn, "rows", static_cast<std::int64_t>(nx) * ny * nz);
    // Pairs of grid points within the 3x3x3 cube factor per direction.
    const std::int64_t nnz64 = tridiag_pairs(nx) * tridiag_pairs(ny) * tridiag_pairs(nz);
    Csr<double> a = allocate(n, checked_index(fn, "nonzeros", nnz64));
    const index_type sy = nx, sz = nx * ny;
    index_type* col = a.col_idx.data();
    double* val = a.values.data();
    index_type k = 0, row = 0;
    for (index_type z = 0; z < nz; ++z) {
        for (index_type y = 0; y < ny; ++y) {
            // Offsets of the (up to 9) neighbouring grid lines, in increasing order.
            index_type lines[9];
            int num_lines = 0;
            for (index_type dz = -1; dz <= 1; ++dz) {
                for (index_type dy = -1; dy <= 1; ++dy) {
                    if (z + dz >= 0 && z + dz < nz && y + dy >= 0 && y + dy < ny) {
                        lines[num_lines++] = dz * sz + dy * sy;
                    }
                }
            }
            for (index_type x = 0; x < nx; ++x, ++row) {
                const index_type lo = x > 0 ? -1 : 0, hi = x + 1 < nx ? 1 : 0;
                for (int l = 0; l < num_lines; ++l) {
                    for (index_type dx = lo; dx <= hi; ++dx) {
                        col[k] = row + lines[l] + dx;
                        val[k] = -1.0;
                        ++k;
                    }
                }
                a.row_ptr[static_cast<std::size_t>(row) + 1] = k;
            }
        }
    }
    // The diagonal: the one column equal to the row.
    for (index_type i = 0; i < n; ++i) {
        const index_type* b = col + a.row_ptr[i];
        const index_type* e = col + a.row_ptr[i + 1];
        val[std::lower_bound(b, e, i) - col] = 26.0;
    }
    return a;
}

Csr<double> convection_diffusion(index_type nx, index_type ny, index_type nz, double wx,
                                 double wy, double wz)
{
    const char* fn = "convection_diffusion";
    require_positive(fn, "nx", nx);
    const double w[3] = {wx, wy, wz};
    for (int d = 0; d < 3; ++d) {
        if (!std::isfinite(w[d])) {
            throw std::invalid_argument(
                fmt::format("{}: velocity component {} = {}, expected a finite number", fn, d,
                            w[d]));
        }
    }
    const double h = 1.0 / (static_cast<double>(nx) + 1.0);
    const int dims = nz == 1 ? 2 : 3;
    Stencil7 s{2.0 * dims, {0.0, 0.0, 0.0}, {0.0, 0.0, 0.0}};
    for (int d = 0; d < dims; ++d) {
        // h^2 * [ -(u_{+} - 2u + u_{-})/h^2 + w_d * upwind difference / h ]
        s.centre += h * std::abs(w[d]);
        s.minus[d] = -1.0 - h * std::max(w[d], 0.0);
        s.plus[d] = -1.0 + h * std::min(w[d], 0.0);
    }
    return stencil7(fn, nx, ny, nz, s);
}

Csr<double> trefethen(index_type n)
{
    require_positive("trefethen", "n", n);
    // Off-diagonal offsets: powers of two below n, on both sides.
    std::vector<index_type> offsets;
    for (std::int64_t p = 1; p < n; p *= 2) offsets.push_back(static_cast<index_type>(p));
    std::int64_t nnz64 = n;
    for (index_type p : offsets) nnz64 += 2 * static_cast<std::int64_t>(n - p);
    Csr<double> a = allocate(n, checked_index("trefethen", "nonzeros", nnz64));
    const std::vector<std::int64_t> primes = first_primes(n);
    index_type k = 0;
    for (index_type i = 0; i < n; ++i) {
        for (auto it = offsets.rbegin(); it != offsets.rend(); ++it) {
            if (i - *it >= 0) {
                a.col_idx[k] = i - *it;
                a.values[k++] = 1.0;
            }
        }
        a.col_idx[k] = i;
        a.values[k++] = static_cast<double>(primes[static_cast<std::size_t>(i)]);
        for (index_type p : offsets) {
            if (static_cast<std::int64_t>(i) + p < n) {
                a.col_idx[k] = i + p;
                a.values[k++] = 1.0;
            }
        }
        a.row_ptr[static_cast<std::size_t>(i) + 1] = k;
    }
    return a;
}

}  // namespace kbench
