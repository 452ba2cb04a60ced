// Reading Nsight Compute's `--csv` metric output (one row per kernel and metric).
#pragma once

#include <map>
#include <string>
#include <vector>

namespace kbench::harness {

/// One profiled kernel launch and its metrics converted to base units (bytes, seconds).
struct NcuKernel {
    std::string id;    // ncu's launch ID
    std::string name;  // kernel (function) name
    std::map<std::string, double> metrics;  // e.g. "dram__bytes_read.sum" -> bytes
};

/// Parses ncu --csv output: lines before the header row ("ID",...,"Metric Name","Metric Unit",
/// "Metric Value") are skipped (==PROF== lines, program output). Units are converted to bytes
/// (byte, Kbyte, Mbyte, Gbyte, KB/KiB...), seconds (nsecond, usecond, msecond, second) or kept
/// (other units); thousands separators in values are removed. Kernels in launch order.
/// Throws std::invalid_argument when no header row is found or a row's value is not a number.
std::vector<NcuKernel> parse_ncu_csv(const std::string& text);

/// Splits one CSV line with double-quoted fields ("" inside quotes is a quote).
std::vector<std::string> split_csv_line(const std::string& line);

}  // namespace kbench::harness
