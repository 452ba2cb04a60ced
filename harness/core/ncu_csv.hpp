// Reading Nsight Compute's `--csv` metric output (one row per kernel and metric).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kbench::harness {

/// One metric row of a kernel as ncu printed it.
struct NcuRow {
    std::string section;  // "Section Name" ("" when the CSV has no such column)
    std::string metric;   // "Metric Name"
    std::string unit;     // "Metric Unit"
    std::string value;    // "Metric Value" as printed (numeric or not)
};

/// One profiled kernel launch and its metrics converted to base units (bytes, seconds).
struct NcuKernel {
    std::string id;    // ncu's launch ID
    std::string name;  // kernel (function) name
    std::map<std::string, double> metrics;  // numeric values, e.g. "dram__bytes_read.sum" -> bytes
    std::vector<NcuRow> rows;               // every row of the kernel, in ncu's order
};

/// What parse_ncu_csv does with a value that is not a number (e.g. a section's
/// "CachePreferNone").
enum class NcuText { reject, keep };

/// Parses ncu --csv output: lines before the header row ("ID",...,"Metric Name","Metric Unit",
/// "Metric Value") are skipped (==PROF== lines, program output). Units are converted to bytes
/// (byte, Kbyte, Mbyte, Gbyte, KB/KiB...), seconds (nsecond, usecond, msecond, second) or kept
/// (other units); thousands separators in values are removed. Kernels in launch order.
/// Throws std::invalid_argument when no header row is found, or (text == NcuText::reject) a
/// row's value is not a number; with NcuText::keep such a row is only in NcuKernel::rows.
std::vector<NcuKernel> parse_ncu_csv(const std::string& text,
                                     NcuText text_values = NcuText::reject);

/// Splits one CSV line with double-quoted fields ("" inside quotes is a quote).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace kbench::harness
