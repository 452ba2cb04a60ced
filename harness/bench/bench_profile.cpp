// `kbench profile`'s names, command line and report; see harness/bench/bench_profile.hpp.
#include "harness/bench/bench_profile.hpp"

#include "harness/bench/bench_bicgstab_kernels.hpp"
#include "harness/bench/bench_dot.hpp"
#include "harness/bench/bench_spmm.hpp"
#include "harness/bench/bench_stream.hpp"
#include "harness/bench/bench_tall_skinny.hpp"
#include "harness/bench/bench_tsqr.hpp"
#include "harness/core/registry.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace kbench::harness {

namespace {

/// The shape of a family's benchmark names.
struct FamilyForm {
    const char* name;
    bool matrix;  // <matrix> after the precision
    bool n;       // n=<n>
    bool k;       // k=<k>
    std::vector<std::string> (*variants)();
};

template <typename List, typename Name>
std::vector<std::string> names_of(const List& list, Name&& name)
{
    std::vector<std::string> out;
    for (const auto& v : list) out.push_back(name(v));
    return out;
}

const std::vector<FamilyForm>& family_forms()
{
    static const std::vector<FamilyForm> forms{
        {"spmv", true, false, false, [] { return spmv_kernels(); }},
        {"spmm", true, false, true, [] { return spmm_kernels(); }},
        {"dot", false, true, true,
         [] { return names_of(dot_variants(), [](DotVariant v) { return to_string(v); }); }},
        {"tall-skinny", false, true, true,
         [] {
             return names_of(tall_skinny_variants(),
                             [](TallSkinnyVariant v) { return to_string(v); });
         }},
        {"stream", false, true, false,
         [] { return names_of(stream_variants(), [](StreamVariant v) { return to_string(v); }); }},
        {"tsqr", false, true, true,
         [] { return names_of(tsqr_variants(), [](const TsqrVariant& v) { return v.name; }); }},
        {"bicgstab-kernels", false, true, false,
         [] {
             return names_of(bicgstab_kernel_variants(),
                             [](BicgstabKernelVariant v) { return to_string(v); });
         }},
    };
    return forms;
}

/// "<family>/<variant>/<precision>/..." as the family writes its names.
std::string form_text(const FamilyForm& f)
{
    std::string text = std::string(f.name) + "/<variant>/<precision>";
    if (f.matrix) text += "/<matrix>";
    if (f.n) text += "/n=<n>";
    if (f.k) text += "/k=<k>";
    return text;
}

/// The positive integer of "<key>=<digits>", or throws naming the name and the form.
std::int64_t parse_count(const std::string& part, const std::string& key, const std::string& name,
                         const FamilyForm& f)
{
    const std::string prefix = key + "=";
    const std::string digits = part.rfind(prefix, 0) == 0 ? part.substr(prefix.size()) : "";
    const bool ok = !digits.empty() && digits.size() <= 18 &&
                    std::all_of(digits.begin(), digits.end(),
                                [](char c) { return c >= '0' && c <= '9'; });
    const std::int64_t value = ok ? std::stoll(digits) : 0;
    if (value < 1)
        throw std::invalid_argument(fmt::format(
            "benchmark name '{}': '{}' is not {}=<positive integer> (expected {})", name, part,
            key, form_text(f)));
    return value;
}

}  // namespace

std::vector<std::string> profile_families()
{
    return names_of(family_forms(), [](const FamilyForm& f) { return std::string(f.name); });
}

BenchmarkName parse_benchmark_name(const std::string& name)
{
    std::vector<std::string> parts;
    std::stringstream in(name);
    for (std::string part; std::getline(in, part, '/');) parts.push_back(part);
    const std::string family = parts.empty() ? "" : parts[0];
    const auto& forms = family_forms();
    const auto f = std::find_if(forms.begin(), forms.end(),
                                [&](const FamilyForm& x) { return family == x.name; });
    if (f == forms.end())
        throw std::invalid_argument(fmt::format(
            "benchmark name '{}': unknown family '{}', expected <family>/<variant>/... with "
            "<family> one of {} (kbench list --kernels)",
            name, family, join(profile_families())));
    if (family == "spmv") {  // the names and messages of bench spmv (registry.hpp)
        const SpmvBenchmarkName s = parse_spmv_benchmark_name(name);
        return {"spmv", s.kernel, s.precision, 0, 0, s.matrix};
    }
    const std::size_t expected = 3 + f->matrix + f->n + f->k;
    if (parts.size() != expected || name.back() == '/')
        throw std::invalid_argument(
            fmt::format("benchmark name '{}': expected {}", name, form_text(*f)));
    BenchmarkName b;
    b.family = family;
    b.variant = parts[1];
    const std::vector<std::string> variants = f->variants();
    if (std::find(variants.begin(), variants.end(), b.variant) == variants.end())
        throw std::invalid_argument(
            fmt::format("benchmark name '{}': unknown {} variant '{}', expected one of {}", name,
                        family, b.variant, join(variants)));
    b.precision = parts[2];
    if (b.precision != "double" && b.precision != "float")
        throw std::invalid_argument(fmt::format(
            "benchmark name '{}': unknown precision '{}', expected double or float", name,
            b.precision));
    std::size_t next = 3;
    if (f->matrix) {
        b.matrix = parts[next++];
        if (b.matrix.empty())
            throw std::invalid_argument(fmt::format(
                "benchmark name '{}': empty <matrix>, expected {}", name, form_text(*f)));
    }
    if (f->n) b.n = parse_count(parts[next++], "n", name, *f);
    if (f->k) b.k = static_cast<int>(std::min<std::int64_t>(
                  parse_count(parts[next++], "k", name, *f), 1 << 30));
    return b;
}

std::string regex_escape(const std::string& text)
{
    static const std::string special = R"(\^$.|?*+()[]{}/)";
    std::string out;
    for (const char c : text) {
        if (special.find(c) != std::string::npos) out += '\\';
        out += c;
    }
    return out;
}

NcuRequest profile_request(const ProfileOptions& o)
{
    NcuRequest r;
    r.ncu = o.ncu;
    r.nvtx_include = {profile_nvtx_include(o.name)};
    r.metrics = {ncu_dram_read, ncu_dram_write, ncu_duration};
    if (o.metrics.empty()) return r;
    std::stringstream in(o.metrics);
    for (std::string item; std::getline(in, item, ',');) {
        if (item.empty())
            throw std::invalid_argument(fmt::format(
                "--metrics: empty item in '{}', expected comma-separated ncu section identifiers "
                "(e.g. SpeedOfLight) or metric names (e.g. "
                "sm__throughput.avg.pct_of_peak_sustained_elapsed)",
                o.metrics));
        const bool metric = item.find("__") != std::string::npos || item.rfind("regex:", 0) == 0;
        (metric ? r.metrics : r.sections).push_back(item);
    }
    if (o.metrics.back() == ',')
        throw std::invalid_argument(
            fmt::format("--metrics: empty item at the end of '{}', expected a section or metric",
                        o.metrics));
    return r;
}

std::vector<std::string> profile_bench_args(const BenchmarkName& b, const std::string& name,
                                            const MatrixSource& source,
                                            const std::string& json_out)
{
    std::vector<std::string> args{"bench", b.family};
    if (!b.matrix.empty()) args.insert(args.end(), {"--kernels", b.variant});
    if (b.n > 0) args.insert(args.end(), {"--n", std::to_string(b.n)});
    if (b.k > 0) args.insert(args.end(), {"--k", std::to_string(b.k)});
    args.insert(args.end(), {"--precision", b.precision, "--filter", "^" + regex_escape(name) + "$",
                             "--repetitions", "1", "--min-time", "0", "--no-machine", "--json",
                             json_out});
    if (!b.matrix.empty()) {
        if (!source.set.empty()) args.insert(args.end(), {"--set", source.set});
        if (!source.matrix_dir.empty())
            args.insert(args.end(), {"--matrix-dir", source.matrix_dir});
        if (source.real) args.push_back("--real");
    }
    return args;
}

std::vector<std::string> profile_child(const ProfileOptions& o, const std::string& self,
                                       const std::string& json_out)
{
    std::vector<std::string> child{self};
    for (std::string& a : profile_bench_args(parse_benchmark_name(o.name), o.name, o.source,
                                             json_out))
        child.push_back(std::move(a));
    return child;
}

std::vector<std::string> ncu_command(const ProfileOptions& o, const std::string& self,
                                     const std::string& json_out)
{
    return ncu_argv(profile_request(o), profile_child(o, self, json_out));
}

models::Traffic model_traffic(const nlohmann::json& doc, const std::string& name)
{
    const nlohmann::json* entry = nullptr;
    const auto it = doc.find("benchmarks");
    if (it != doc.end() && it->is_array())
        for (const auto& e : *it)
            if (e.is_object() && e.value("run_name", e.value("name", "")) == name) entry = &e;
    if (entry == nullptr)
        throw std::runtime_error("the profiled run has no result for " + name +
                                 " (does the benchmark exist, e.g. the matrix in the set?)");
    if (entry->value("error_occurred", false))
        throw std::runtime_error(fmt::format("the profiled run of {} reports an error: {}", name,
                                             entry->value("error_message", "")));
    if (!entry->contains("bytes_read") || !entry->contains("bytes_written"))
        throw std::runtime_error("the result of " + name + " has no bytes_read/bytes_written");
    models::Traffic t;
    t.bytes_read = entry->at("bytes_read").get<double>();
    t.bytes_written = entry->at("bytes_written").get<double>();
    return t;
}

std::string format_profile_report(const std::string& name, const std::vector<NcuKernel>& kernels,
                                  const models::Traffic& model, const NcuRequest& request)
{
    const auto cut = [](const std::string& s) {
        return s.size() <= 60 ? s : s.substr(0, 57) + "...";
    };
    const auto ratio = [](double measured, double modeled) {
        return modeled > 0.0 ? fmt::format("{:.3f}", measured / modeled) : std::string("-");
    };
    std::string out = fmt::format("benchmark   {}\nNVTX range  {} (its warm-up call)\n", name,
                                  profile_nvtx_include(name));
    out += fmt::format("{:>3}  {:<60} {:>16} {:>16} {:>11}\n", "#", "kernel", "DRAM read (B)",
                       "DRAM written (B)", "time (us)");
    NcuTotals total;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        NcuTotals one;
        one.add(kernels[i]);
        total.add(kernels[i]);
        out += fmt::format("{:>3}  {:<60} {:>16.0f} {:>16.0f} {:>11.3f}\n", i + 1,
                           cut(kernels[i].name), one.bytes_read, one.bytes_written,
                           one.seconds * 1e6);
    }
    out += fmt::format("{:>3}  {:<60} {:>16.0f} {:>16.0f} {:>11.3f}\n", "",
                       fmt::format("total ({} kernels)", total.kernels), total.bytes_read,
                       total.bytes_written, total.seconds * 1e6);
    out += fmt::format("{:>3}  {:<60} {:>16.0f} {:>16.0f}\n", "",
                       "model (bytes_read, bytes_written)", model.bytes_read, model.bytes_written);
    out += fmt::format("{:>3}  {:<60} {:>16} {:>16}\n", "", "measured / model",
                       ratio(total.bytes_read, model.bytes_read),
                       ratio(total.bytes_written, model.bytes_written));
    if (request.sections.empty() && request.metrics.size() <= 3) return out;
    for (std::size_t i = 0; i < kernels.size(); ++i) {
        out += fmt::format("\nkernel {}: {}\n", i + 1, kernels[i].name);
        for (const NcuRow& r : kernels[i].rows) {
            if (r.metric == ncu_dram_read || r.metric == ncu_dram_write || r.metric == ncu_duration)
                continue;
            out += fmt::format("  {:<34} {:<52} {:>16} {}\n", cut(r.section), r.metric, r.value,
                               r.unit);
        }
    }
    return out;
}

}  // namespace kbench::harness
