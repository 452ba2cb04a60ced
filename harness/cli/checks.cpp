// Option checks shared by the subcommands; see cli.hpp.
#include "harness/cli/cli.hpp"
#include "matrices/matrix_set.hpp"

#include <fmt/format.h>

#include <regex>

namespace kbench::harness {

CLI::Validator regex_check()
{
    return CLI::Validator(
        [](std::string& text) -> std::string {
            try {
                std::regex check(text);
            } catch (const std::regex_error& e) {
                return fmt::format("'{}' is not a valid regular expression ({})", text, e.what());
            }
            return {};
        },
        "REGEX");
}

CLI::Validator sellp_check(bool power_of_two, long long max)
{
    return CLI::Validator(
        [power_of_two, max](std::string& text) -> std::string {
            long long v = 0;
            if (!CLI::detail::lexical_cast(text, v) || v < 1 || v > max ||
                (power_of_two && (v & (v - 1)) != 0))
                return fmt::format("{}, expected {} in [1, {}] (leave it out for "
                                   "spmv::choose_sellp_params' choice)",
                                   text, power_of_two ? "a power of two" : "an integer", max);
            return {};
        },
        power_of_two ? "POW2" : "INT>=1");
}

void check_matrix_source(const MatrixSource& source)
{
    if (!source.set.empty()) load_matrix_set(source.set, resolve_matrix_dir(source.matrix_dir));
}

}  // namespace kbench::harness
