// Progress lines on stderr with the elapsed wall time since the start of the run.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <string>

namespace kbench::harness {

class Progress {
public:
    /// Prints "[k/N] <what> (<elapsed> s)" to stderr; k is 1-based.
    void report(std::size_t k, std::size_t total, const std::string& what) const
    {
        fmt::print(stderr, "[{}/{}] {} ({:.1f} s)\n", k, total, what, elapsed());
        std::fflush(stderr);
    }
    /// Seconds since construction.
    double elapsed() const
    {
        return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
    }

private:
    std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace kbench::harness
