// The options, names, entries and document of the kernel-family benchmarks; see
// harness/bench/kernel_bench.hpp.
#include "harness/bench/kernel_bench.hpp"

#include "harness/core/registry.hpp"
#include "harness/core/results_json.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace kbench::harness {

namespace {

/// The integer `text` names ("1000", "1e6", "2.5e5"), or nullopt-like false.
bool parse_size(const std::string& text, std::int64_t& value)
{
    if (text.empty()) return false;
    std::size_t used = 0;
    try {
        const long long v = std::stoll(text, &used, 10);
        if (used == text.size()) {
            value = v;
            return true;
        }
    } catch (const std::exception&) {
    }
    // Decimal forms such as 1e6 or 2.5e5: accepted when they name an integer exactly.
    try {
        const double d = std::stod(text, &used);
        if (used != text.size() || !std::isfinite(d) || d != std::floor(d) ||
            std::fabs(d) > 9.0e18)
            return false;
        value = static_cast<std::int64_t>(d);
        return true;
    } catch (const std::exception&) {
        return false;
    }
}

}  // namespace

std::vector<std::int64_t> parse_sizes(const std::vector<std::string>& texts,
                                      const std::string& option, std::int64_t lo,
                                      std::int64_t hi)
{
    if (texts.empty())
        throw std::invalid_argument(
            fmt::format("{}: expected at least one integer in [{}, {}]", option, lo, hi));
    std::vector<std::int64_t> values;
    for (const std::string& t : texts) {
        std::int64_t v = 0;
        if (!parse_size(t, v))
            throw std::invalid_argument(fmt::format(
                "{}: expected an integer in [{}, {}] (e.g. 1000 or 1e6), got '{}'", option, lo,
                hi, t));
        if (v < lo || v > hi)
            throw std::invalid_argument(
                fmt::format("{}: expected an integer in [{}, {}], got {}", option, lo, hi, v));
        values.push_back(v);
    }
    return values;
}

std::vector<std::string> parse_bench_precision(const std::string& text)
{
    if (text == "double" || text == "float") return {text};
    if (text == "both") return {"double", "float"};
    throw std::invalid_argument(
        fmt::format("--precision: expected double, float or both, got '{}'", text));
}

void validate(const KernelBenchOptions& o, std::int64_t n_max, int k_max)
{
    if (n_max == 0 && !o.ns.empty())
        throw std::invalid_argument("--n: this family has no n (its sizes are its matrices')");
    if (n_max > 0 && o.ns.empty())
        throw std::invalid_argument(
            fmt::format("--n: expected at least one length in [1, {}]", n_max));
    for (const std::int64_t n : o.ns)
        if (n < 1 || n > n_max)
            throw std::invalid_argument(
                fmt::format("--n: expected an integer in [1, {}], got {}", n_max, n));
    if (k_max == 0 && !o.ks.empty())
        throw std::invalid_argument("--k: this family has no k");
    if (k_max > 0 && o.ks.empty())
        throw std::invalid_argument(fmt::format("--k: expected at least one k in [1, {}]", k_max));
    for (const int k : o.ks)
        if (k < 1 || k > k_max)
            throw std::invalid_argument(
                fmt::format("--k: expected an integer in [1, {}], got {}", k_max, k));
    if (o.precisions.empty())
        throw std::invalid_argument("--precision: expected double, float or both, got none");
    for (const std::string& p : o.precisions)
        if (p != "double" && p != "float")
            throw std::invalid_argument(
                fmt::format("--precision: expected double, float or both, got '{}'", p));
    validate(o.run);
    compile_filter(o.filter);
}

std::string kernel_benchmark_name(const std::string& family, const std::string& variant,
                                  const std::string& precision, std::int64_t n, int k)
{
    if (k <= 0) return fmt::format("{}/{}/{}/n={}", family, variant, precision, n);
    return fmt::format("{}/{}/{}/n={}/k={}", family, variant, precision, n, k);
}

nlohmann::json kernel_bench_document(const std::string& id, const std::string& family,
                                     const KernelBenchOptions& o, const MachineProfile* machine,
                                     nlohmann::json method)
{
    MatrixSet none;
    none.name = "none";
    none.description = "kernel benchmarks on generated vectors: no matrix is used";
    return kernel_bench_document(id, family, o, machine, std::move(method), MatrixSource{}, none);
}

nlohmann::json kernel_bench_document(const std::string& id, const std::string& family,
                                     const KernelBenchOptions& o, const MachineProfile* machine,
                                     nlohmann::json method, const MatrixSource& source,
                                     const MatrixSet& set)
{
    nlohmann::json doc =
        make_results_document(kbench_context(id, source, set, machine, o.run.cold));
    if (!o.ns.empty()) method["n"] = o.ns;
    if (!o.ks.empty()) method["k"] = o.ks;
    method["precisions"] = o.precisions;
    method["repetitions"] = o.run.repetitions;
    method["min_time"] = o.run.min_time;
    method["filter"] = o.filter;
    method["read_gbps"] = machine != nullptr ? machine->read_gbps : 0.0;
    method["seconds"] = o.run.cold
                            ? "median over the repetitions of one call timed after an untimed "
                              "L2 flush (--cold)"
                            : "median over the repetitions of (elapsed time of `loops` "
                              "back-to-back calls) / loops, loops calibrated to >= min_time";
    doc["context"]["kbench"][family] = std::move(method);
    return doc;
}

namespace {

nlohmann::json kbench_object(const KernelPoint& p, long long loops, double max_rel_error)
{
    nlohmann::json params = p.params;
    params["n"] = p.n;
    if (p.k > 0) params["k"] = p.k;
    if (loops > 0) params["loops"] = loops;
    nlohmann::json o{{"study", p.family}, {"kernel", p.variant}, {"precision", p.precision}};
    if (!p.matrix.empty()) o["matrix"] = p.matrix;
    o["params"] = std::move(params);
    o["max_rel_error"] =
        std::isfinite(max_rel_error) ? nlohmann::json(max_rel_error) : nlohmann::json(nullptr);
    return o;
}

}  // namespace

std::string point_name(const KernelPoint& p)
{
    if (p.matrix.empty()) return kernel_benchmark_name(p.family, p.variant, p.precision, p.n, p.k);
    const std::string name = fmt::format("{}/{}/{}/{}", p.family, p.variant, p.precision, p.matrix);
    return p.k > 0 ? fmt::format("{}/k={}", name, p.k) : name;
}

nlohmann::json kernel_bench_entry(const KernelPoint& p, const PointTiming& t, int repetitions,
                                  double max_rel_error, const MachineProfile* machine)
{
    const std::string name = point_name(p);
    const double us = t.seconds * 1e6;
    const double gbps = p.traffic.bytes() / t.seconds * 1e-9;
    nlohmann::json e{{"name", name + "_median"},
                     {"run_name", name},
                     {"run_type", "aggregate"},
                     {"repetitions", repetitions},
                     {"threads", 1},
                     {"aggregate_name", "median"},
                     {"aggregate_unit", "time"},
                     {"iterations", t.loops},
                     {"real_time", us},
                     {"cpu_time", us},
                     {"time_unit", "us"},
                     {"bytes_read", p.traffic.bytes_read},
                     {"bytes_written", p.traffic.bytes_written},
                     {"flops", p.traffic.flops},
                     {"GBps", gbps},
                     {"GFlops", p.traffic.flops / t.seconds * 1e-9}};
    if (machine != nullptr && machine->read_gbps > 0.0) e["bw_frac_read"] = gbps / machine->read_gbps;
    if (machine != nullptr && machine->triad_gbps > 0.0)
        e["bw_frac_triad"] = gbps / machine->triad_gbps;
    e["max_rel_error"] = max_rel_error;
    e["n"] = p.n;
    if (p.k > 0) e["k"] = p.k;
    e["kbench"] = kbench_object(p, t.loops, max_rel_error);
    return e;
}

bool selected(const std::optional<std::regex>& filter, const std::string& name)
{
    return !filter || std::regex_search(name, *filter);
}

nlohmann::json tolerance_error_entry(const KernelPoint& p, double max_rel_error,
                                     double tolerance)
{
    return kernel_bench_error_entry(
        p, fmt::format("max_rel_error {:.3e} exceeds the {} tolerance {:.0e}", max_rel_error,
                       p.precision, tolerance),
        max_rel_error);
}

nlohmann::json measurement_entry(const KernelPoint& p, const PointMeasurement& m,
                                 int repetitions, double tolerance,
                                 const MachineProfile* machine)
{
    return m.timed ? kernel_bench_entry(p, m.timing, repetitions, m.max_rel_error, machine)
                   : tolerance_error_entry(p, m.max_rel_error, tolerance);
}

nlohmann::json kernel_bench_error_entry(const KernelPoint& p, const std::string& message,
                                        double max_rel_error)
{
    const std::string name = point_name(p);
    return {{"name", name},
            {"run_name", name},
            {"run_type", "iteration"},
            {"repetitions", 1},
            {"threads", 1},
            {"iterations", 0},
            {"error_occurred", true},
            {"error_message", message},
            {"kbench", kbench_object(p, 0, max_rel_error)}};
}

double bench_tolerance(const std::string& precision)
{
    return precision == "float" ? 1e-3 : 1e-8;
}

}  // namespace kbench::harness
