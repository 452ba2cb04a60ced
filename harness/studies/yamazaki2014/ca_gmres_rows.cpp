// The rows of yamazaki2014 Fig. 14 shared by the one-GPU runner and the MPI worker; see
// ca_gmres_rows.hpp.
#include "harness/studies/yamazaki2014/ca_gmres_rows.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>
#include <stdexcept>

namespace kbench::harness::fig14 {
namespace {

namespace sv = kbench::solvers;
using ortho::TsqrMethod;
using json = nlohmann::json;

const char* orth_label(sv::ArnoldiOrth orth)
{
    switch (orth) {
    case sv::ArnoldiOrth::cgs2: return "CGS2";
    case sv::ArnoldiOrth::mgs: return "MGS";
    case sv::ArnoldiOrth::cgs2_lowsync: return "CGS2 low-sync";
    }
    return "?";
}

}  // namespace

double phase_seconds(const std::vector<sv::PhaseTime>& phases, const char* name)
{
    double s = 0.0;
    for (const auto& p : phases)
        if (p.name == name) s += p.seconds;
    return s;
}

PaperSetup paper_setup(const MatrixEntry& entry, const std::string& manifest)
{
    auto bad = [&](const std::string& what) {
        return std::invalid_argument(fmt::format(
            "{}: matrix '{}': {}; yamazaki2014/fig14 needs \"study\": {{\"restart\": m, "
            "\"steps\": s}} in every entry (the paper's m and s for the matrix it stands for, "
            "1 <= s <= m; optional \"paper_matrix\")",
            manifest, entry.name, what));
    };
    if (entry.study.empty()) throw bad("no \"study\"");
    const json study = json::parse(entry.study);
    auto positive_int = [&](const char* key) {
        if (!study.contains(key)) throw bad(fmt::format("\"study\" has no \"{}\"", key));
        const json& v = study.at(key);
        if (!v.is_number_integer() || v.get<long long>() < 1 || v.get<long long>() > 100000)
            throw bad(fmt::format("\"study\".\"{}\" = {}, expected an integer >= 1", key,
                                  v.dump()));
        return v.get<int>();
    };
    PaperSetup p;
    p.m = positive_int("restart");
    p.s = positive_int("steps");
    if (p.s > p.m)
        throw bad(fmt::format("\"steps\" = {} > \"restart\" = {}", p.s, p.m));
    if (study.contains("paper_matrix")) {
        if (!study.at("paper_matrix").is_string())
            throw bad("\"study\".\"paper_matrix\" must be a string");
        p.matrix = study.at("paper_matrix").get<std::string>();
    }
    return p;
}

std::vector<double> balanced_rhs(const std::vector<double>& row_scale)
{
    std::mt19937_64 gen(rhs_seed);
    std::uniform_real_distribution<double> u(-1.0, 1.0);
    std::vector<double> b(row_scale.size());
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = u(gen) * row_scale[i];
    return b;
}

std::vector<CaConfig> ca_configs(int s, bool gram_only)
{
    std::vector<CaConfig> configs{{1, TsqrMethod::cholqr2, sv::CaBasis::monomial, false}};
    const std::vector<TsqrMethod> tsqrs =
        gram_only ? std::vector<TsqrMethod>{TsqrMethod::cholqr, TsqrMethod::cholqr2,
                                            TsqrMethod::svqr, TsqrMethod::shifted_cholqr3}
                  : std::vector<TsqrMethod>{TsqrMethod::cgs2, TsqrMethod::cholqr,
                                            TsqrMethod::cholqr2, TsqrMethod::svqr,
                                            TsqrMethod::caqr};
    for (TsqrMethod t : tsqrs) configs.push_back({s, t, sv::CaBasis::monomial, false});
    configs.push_back({s, TsqrMethod::cholqr2, sv::CaBasis::newton, true});
    return configs;
}

int timed_iterations(int converged_iterations, int m)
{
    if (m < 1) throw std::invalid_argument(fmt::format("fig14: restart m = {}, expected >= 1", m));
    return converged_iterations >= min_timed_cycles * m ? 0 : min_timed_cycles * m;
}

sv::GmresOptions gmres_options(int m, sv::ArnoldiOrth orth, int fixed_iterations)
{
    sv::GmresOptions o;
    o.restart = m;
    o.tolerance = tolerance;
    o.max_iterations = fixed_iterations > 0 ? fixed_iterations : m * restart_cap;
    o.timing_mode = fixed_iterations > 0;
    o.orth = orth;
    return o;
}

sv::CaGmresOptions ca_options(const CaConfig& c, int m, sv::CaBorth borth, int fixed_iterations)
{
    sv::CaGmresOptions o;
    o.s = c.s;
    o.restart = m;
    o.tolerance = tolerance;
    o.max_iterations = fixed_iterations > 0 ? fixed_iterations : m * restart_cap;
    o.timing_mode = fixed_iterations > 0;
    o.basis = c.basis;
    o.normalize_basis = c.normalized;
    o.tsqr = c.tsqr;
    o.borth_passes = 2;
    o.borth = borth;
    o.fallback_tsqr = TsqrMethod::shifted_cholqr3;
    return o;
}

int timed_repetitions(double warmup_seconds, int max_repetitions)
{
    constexpr double budget = 0.5;  // seconds of timed solves per row
    const int cap = std::max(1, max_repetitions);
    if (!(warmup_seconds > 0.0)) return std::min(2, cap);
    const double wanted = std::ceil(budget / warmup_seconds);
    return static_cast<int>(std::clamp(wanted, double(std::min(2, cap)), double(cap)));
}

double per_cycle(double seconds, int iterations, int m)
{
    return iterations > 0 ? seconds * m / iterations : std::numeric_limits<double>::quiet_NaN();
}

json finite_or_null(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json gmres_row(int m, sv::ArnoldiOrth orth, const sv::SolveResult& r, double seconds,
               int timed_its, double spmv_cycle_seconds)
{
    const double cycle = per_cycle(seconds, timed_its, m);
    const std::string name = sv::to_string(orth);
    return {{"name", "gmres/" + name},
            {"method", "gmres"},
            {"label", fmt::format("GMRES({}) {}", m, orth_label(orth))},
            {"s", 1},
            {"restart", m},
            {"orth", name},
            {"borth", nullptr},
            {"basis", nullptr},
            {"normalized", nullptr},
            {"status", sv::to_string(r.status)},
            {"iterations", r.iterations},
            {"restarts", (r.iterations + m - 1) / m},
            {"seconds", seconds},
            {"timed_iterations", timed_its},
            {"timing_mode", timed_iterations(r.iterations, m) > 0},
            {"per_restart_seconds", finite_or_null(cycle)},
            {"spmv_seconds", spmv_cycle_seconds},
            {"orth_seconds", finite_or_null(cycle - spmv_cycle_seconds)},
            {"tsqr_seconds", nullptr},
            {"tsqr_fallbacks", nullptr},
            {"first_gram_condition", nullptr},
            {"ritz_top", nullptr}};
}

json ca_row(int m, const CaConfig& c, sv::CaBorth borth, const sv::CaGmresResult& r,
            double seconds, int timed_its, const sv::CaGmresResult& d)
{
    const double per = d.iterations > 0 ? double(m) / d.iterations : 0.0;  // to one cycle
    const double borth_s = phase_seconds(d.phases, "BOrth") * per, tsqr_s = phase_seconds(d.phases, "TSQR") * per;
    json ritz = nullptr;
    if (r.shifts.size() >= 2) {
        std::vector<double> mod;
        for (const auto& z : r.shifts) mod.push_back(std::abs(z));
        std::sort(mod.rbegin(), mod.rend());
        ritz = {mod[0], mod[1]};
    }
    const std::string basis = sv::to_string(c.basis);
    const std::string tname = ortho::to_string(c.tsqr);
    const bool two = borth == sv::CaBorth::two_stage;
    return {{"name", fmt::format("ca_gmres/s={}/{}/{}{}", c.s, basis, tname,
                                 two ? "/two_stage" : "")},
            {"method", "ca_gmres"},
            {"label", fmt::format("CA-GMRES({}, {}) {}{}{}", c.s, m, tname,
                                  c.basis == sv::CaBasis::newton ? " Newton" : "",
                                  two ? " two-stage" : "")},
            {"s", c.s},
            {"restart", m},
            {"orth", tname},
            {"borth", sv::to_string(borth)},
            {"basis", basis},
            {"normalized", c.normalized},
            {"status", sv::to_string(r.status)},
            {"detail", r.detail},
            {"iterations", r.iterations},
            {"restarts", r.restarts},
            {"seconds", seconds},
            {"timed_iterations", timed_its},
            {"timing_mode", timed_iterations(r.iterations, m) > 0},
            {"per_restart_seconds", finite_or_null(per_cycle(seconds, timed_its, m))},
            {"orth_seconds", borth_s + tsqr_s},
            {"tsqr_seconds", tsqr_s},
            {"spmv_seconds", phase_seconds(d.phases, "MPK") * per},
            {"tsqr_fallbacks", r.tsqr_fallbacks},
            {"first_gram_condition", finite_or_null(r.first_gram_condition)},
            {"ritz_top", ritz}};
}

}  // namespace kbench::harness::fig14
