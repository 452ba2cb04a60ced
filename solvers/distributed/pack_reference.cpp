// CPU twins of the distributed layer's kernels (pack.hpp).
#include "solvers/distributed/pack.hpp"

#include <cmath>
#include <cstddef>

namespace kbench::dist::detail::reference {

template <typename T>
void scatter_add(T alpha, const T* t, const index_type* rows, index_type n, T* y)
{
    for (index_type i = 0; i < n; ++i) {
        T& out = y[static_cast<std::size_t>(rows[i])];
        out = std::fma(alpha, t[i], out);
    }
}

template void scatter_add<float>(float, const float*, const index_type*, index_type, float*);
template void scatter_add<double>(double, const double*, const index_type*, index_type,
                                  double*);

}  // namespace kbench::dist::detail::reference
