#include "harness/core/ncu_csv.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>

namespace kbench::harness {

std::vector<std::string> split_csv_line(const std::string& line)
{
    std::vector<std::string> fields(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted) {
            if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
                fields.back() += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                fields.back() += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            fields.emplace_back();
        } else if (c != '\r') {
            fields.back() += c;
        }
    }
    return fields;
}

namespace {

double unit_scale(const std::string& unit)
{
    static const std::map<std::string, double> scale{
        {"byte", 1.0},     {"Kbyte", 1e3},      {"Mbyte", 1e6},     {"Gbyte", 1e9},
        {"Tbyte", 1e12},   {"KB", 1e3},         {"MB", 1e6},        {"GB", 1e9},
        {"KiB", 1024.0},   {"MiB", 1048576.0},  {"GiB", 1073741824.0},
        {"nsecond", 1e-9}, {"usecond", 1e-6},   {"msecond", 1e-3},  {"second", 1.0},
        {"ns", 1e-9},      {"us", 1e-6},        {"ms", 1e-3},       {"s", 1.0}};
    const auto it = scale.find(unit);
    return it == scale.end() ? 1.0 : it->second;
}

std::size_t column(const std::vector<std::string>& header, const std::string& name)
{
    const auto it = std::find(header.begin(), header.end(), name);
    if (it == header.end()) {
        throw std::invalid_argument("ncu CSV header lacks the column \"" + name + "\"");
    }
    return static_cast<std::size_t>(it - header.begin());
}

}  // namespace

std::vector<NcuKernel> parse_ncu_csv(const std::string& text, NcuText text_values)
{
    std::istringstream in(text);
    std::string line;
    std::vector<std::string> header;
    while (std::getline(in, line)) {
        if (line.rfind("\"ID\"", 0) == 0) {
            header = split_csv_line(line);
            break;
        }
    }
    if (header.empty()) {
        throw std::invalid_argument("no ncu CSV header row (\"ID\",...) in the profiler output");
    }
    const std::size_t c_id = column(header, "ID"), c_kernel = column(header, "Kernel Name"),
                      c_metric = column(header, "Metric Name"),
                      c_unit = column(header, "Metric Unit"),
                      c_value = column(header, "Metric Value");
    const auto section_it = std::find(header.begin(), header.end(), "Section Name");
    const bool has_section = section_it != header.end();
    const auto c_section = static_cast<std::size_t>(section_it - header.begin());
    std::vector<NcuKernel> kernels;
    while (std::getline(in, line)) {
        const auto f = split_csv_line(line);
        if (f.size() != header.size()) continue;  // program output interleaved with the CSV
        std::string value = f[c_value];
        value.erase(std::remove(value.begin(), value.end(), ','), value.end());
        double v = 0.0;
        bool numeric = true;
        try {
            std::size_t used = 0;
            v = std::stod(value, &used);
            numeric = used == value.size();
        } catch (const std::exception&) {
            numeric = false;
        }
        if (!numeric && text_values == NcuText::reject) {
            throw std::invalid_argument("ncu metric " + f[c_metric] + " has the non-numeric value '" +
                                        f[c_value] + "'");
        }
        if (kernels.empty() || kernels.back().id != f[c_id]) {
            kernels.push_back({f[c_id], f[c_kernel], {}, {}});
        }
        NcuKernel& k = kernels.back();
        k.rows.push_back({has_section ? f[c_section] : "", f[c_metric], f[c_unit], f[c_value]});
        if (numeric) k.metrics[f[c_metric]] = v * unit_scale(f[c_unit]);
    }
    return kernels;
}

}  // namespace kbench::harness
