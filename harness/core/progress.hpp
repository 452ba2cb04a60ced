// Progress lines on stderr with the elapsed wall time since the start of the run.
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

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

/// A duration for progress lines: "42 s" below a minute, "3 min 05 s" below an hour, else
/// "1 h 02 min"; "?" for a negative or non-finite value.
inline std::string format_duration(double seconds)
{
    if (!(seconds >= 0.0) || !std::isfinite(seconds)) return "?";
    const long s = std::lround(seconds);
    if (s < 60) return fmt::format("{} s", s);
    if (s < 3600) return fmt::format("{} min {:02} s", s / 60, s % 60);
    return fmt::format("{} h {:02} min", s / 3600, (s % 3600) / 60);
}

/// The line `kbench reproduce` prints before id k of n (1-based): "[id k/n] <id> (elapsed <t>,
/// about <r> left)", r the sum of `remaining`, the durations the last stored run of ids k..n
/// took (context.kbench.run_seconds.total of their results); "(elapsed <t>, no estimate: j of
/// the m ids left have no stored duration)" when some are NaN.
inline std::string id_progress_line(std::size_t k, std::size_t n, const std::string& id,
                                    double elapsed, const std::vector<double>& remaining)
{
    double sum = 0.0;
    std::size_t unknown = 0;
    for (const double d : remaining) {
        if (std::isfinite(d) && d >= 0.0) sum += d;
        else ++unknown;
    }
    const std::string estimate =
        unknown == 0 ? fmt::format("about {} left", format_duration(sum))
                     : fmt::format("no estimate: {} of the {} ids left have no stored duration",
                                   unknown, remaining.size());
    return fmt::format("[id {}/{}] {} (elapsed {}, {})", k, n, id, format_duration(elapsed),
                       estimate);
}

/// What a time budget allows for the next id of a run (`kbench reproduce --budget`).
enum class BudgetVerdict {
    run,       // it fits (or there is no budget)
    defer,     // it would end past the budget: left for a later call (--resume)
    too_long,  // its last run alone took longer than the whole budget
};

/// The verdict for an id whose last stored run took `estimate` seconds (NaN: none stored), with
/// `elapsed` seconds of the call spent and a budget of `budget` seconds (<= 0: none). An id
/// without a stored duration runs only as the call's first (`ran_any` false), so that every call
/// makes progress and none starts an unknown length late.
inline BudgetVerdict budget_verdict(double budget, double elapsed, double estimate, bool ran_any)
{
    if (!(budget > 0.0)) return BudgetVerdict::run;
    if (!std::isfinite(estimate)) return ran_any ? BudgetVerdict::defer : BudgetVerdict::run;
    if (estimate > budget) return BudgetVerdict::too_long;
    return elapsed + estimate > budget ? BudgetVerdict::defer : BudgetVerdict::run;
}

}  // namespace kbench::harness
