// The restart length of the GMRES family: GMRES(m), block GMRES, CA-GMRES(s, m) and their
// distributed forms size their basis by this one formula.
// Internal header: include only from the solver sources.
#pragma once

#include <algorithm>

namespace kbench::solvers::detail {

/// Basis vectors (block GMRES: block steps) per restart cycle: the restart length o.restart, but
/// no more than the iterations allow (o.max_iterations), and at least 1. Options is any options
/// struct with int members restart and max_iterations.
template <typename Options>
int restart_length(const Options& o)
{
    return std::max(1, std::min(o.restart, std::max(o.max_iterations, 1)));
}

}  // namespace kbench::solvers::detail
