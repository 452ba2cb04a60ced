#include "harness/core/registry.hpp"

#include "kernels/spmv_policy.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <sstream>
#include <stdexcept>

namespace kbench::harness {

std::string join(const std::vector<std::string>& names, const std::string& sep)
{
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) out += (i ? sep : "") + names[i];
    return out;
}

std::pair<std::string, std::string> split_id(const std::string& id)
{
    const auto slash = id.find('/');
    if (slash == std::string::npos || slash == 0 || slash + 1 == id.size() ||
        id.find('/', slash + 1) != std::string::npos) {
        throw std::invalid_argument("reproduction id '" + id +
                                    "' is not of the form <study>/<item> (kbench list --ids "
                                    "lists them)");
    }
    return {id.substr(0, slash), id.substr(slash + 1)};
}

const std::vector<std::string>& spmv_kernels()
{
    static const std::vector<std::string> kernels = [] {
        std::vector<std::string> k = spmv::kernel_names();
        k.push_back("auto");
        return k;
    }();
    return kernels;
}

std::vector<std::string> parse_kernel_list(const std::string& list)
{
    if (list.empty()) return spmv_kernels();
    std::vector<std::string> out;
    std::stringstream in(list);
    std::string name;
    while (std::getline(in, name, ',')) {
        const auto& all = spmv_kernels();
        if (std::find(all.begin(), all.end(), name) == all.end()) {
            throw std::invalid_argument("unknown SpMV kernel '" + name + "' (valid kernels: " +
                                        join(all) + ")");
        }
        if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
    }
    if (out.empty()) {
        throw std::invalid_argument("empty kernel list '" + list + "' (valid kernels: " +
                                    join(spmv_kernels()) + ")");
    }
    return out;
}

std::vector<std::string> parse_precision(const std::string& precision)
{
    if (precision == "double" || precision == "float") return {precision};
    if (precision == "both") return {"double", "float"};
    throw std::invalid_argument("unknown precision '" + precision +
                                "' (valid: double, float, both)");
}

std::string spmv_benchmark_name(const std::string& kernel, const std::string& precision,
                                const std::string& matrix)
{
    return "spmv/" + kernel + "/" + precision + "/" + matrix;
}

SpmvBenchmarkName parse_spmv_benchmark_name(const std::string& name)
{
    std::vector<std::string> parts;
    std::stringstream in(name);
    std::string part;
    while (std::getline(in, part, '/')) parts.push_back(part);
    if (parts.size() != 4 || parts[0] != "spmv" || parts[3].empty()) {
        throw std::invalid_argument("benchmark name '" + name +
                                    "' is not of the form spmv/<kernel>/<precision>/<matrix>");
    }
    parse_kernel_list(parts[1]);
    if (parts[2] != "double" && parts[2] != "float") {
        throw std::invalid_argument("unknown precision '" + parts[2] + "' in benchmark name '" +
                                    name + "' (valid: double, float)");
    }
    return {parts[1], parts[2], parts[3]};
}

std::string gpu_slug(const std::string& gpu_name)
{
    if (gpu_name.empty()) throw std::invalid_argument("gpu_slug: empty GPU name");
    std::string slug = gpu_name;
    for (char& c : slug) {
        if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
    }
    return slug;
}

std::string results_dir(const std::string& results_root, const std::string& gpu_name,
                        const std::string& id)
{
    const auto [study, item] = split_id(id);
    return (std::filesystem::path(results_root) / gpu_slug(gpu_name) / study / item).string();
}

}  // namespace kbench::harness
