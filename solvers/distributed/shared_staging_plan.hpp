// The host-only planning of the shared-memory fast path of the host_staged transport
// (shared_staging.hpp, zianekhodja2014 Sec. 4): how each neighbour's packed words are cut into
// pieces that are copied device -> shared host memory -> device one at a time, and which page
// ranges of the mapped segments are registered for the CUDA copy engines. Pure functions, no MPI
// or CUDA.
#pragma once

#include "matrices/csr.hpp"  // index_type

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::dist::detail {

/// Bytes of one piece of the shared-memory path: a copy of 2 MiB takes ~40 us at the ~54 GB/s of
/// a pinned H100 copy, long against the few us of a copy launch, an event poll and a zero-byte
/// MPI message per piece, and short enough that the receiver's host -> device copy of piece i
/// overlaps the sender's device -> host copy of piece i + 1 (16 MiB: 8 pieces in flight).
inline constexpr std::size_t staging_chunk_bytes = std::size_t{2} << 20;

/// Words of T in one piece (staging_chunk_bytes / sizeof(T)).
template <typename T>
constexpr index_type staging_chunk_words()
{
    return static_cast<index_type>(staging_chunk_bytes / sizeof(T));
}

/// Pieces of a range of `words` words: ceil(words / max_words) (0 for 0 words). Throws
/// std::invalid_argument for words < 0 or max_words < 1.
inline index_type piece_count(index_type words, index_type max_words)
{
    if (words < 0 || max_words < 1)
        throw std::invalid_argument("piece_count: words = " + std::to_string(words) +
                                    ", max_words = " + std::to_string(max_words) +
                                    ", expected words >= 0 and max_words >= 1");
    return words / max_words + (words % max_words != 0 ? 1 : 0);
}

/// Piece `index` of a neighbour's range: words [offset, offset + count) of the packed buffer;
/// piece i of a range starting at b covers [b + i max_words, min(b + (i + 1) max_words, end)).
struct StagingPiece {
    int neighbour = 0;     // k: the range [offsets[k], offsets[k + 1])
    int index = 0;         // i: its i-th piece (the receiver counts them in this order)
    index_type offset = 0; // first word, in the packed buffer
    index_type count = 0;  // words, 1..max_words
};

/// The pieces of the ranges [offsets[k], offsets[k + 1]) (k < offsets.size() - 1; empty ranges
/// have none), each range cut separately into pieces of max_words words (the last one shorter),
/// in round-robin order over the neighbours: piece 0 of every neighbour, then piece 1, ... so
/// that every receiver starts copying early. Within one neighbour the pieces come in increasing
/// order, which is the order their "ready" messages reach the receiver. Throws
/// std::invalid_argument for max_words < 1 or decreasing offsets.
inline std::vector<StagingPiece> staging_pieces(const std::vector<index_type>& offsets,
                                                index_type max_words)
{
    if (max_words < 1)
        throw std::invalid_argument("staging_pieces: max_words = " + std::to_string(max_words) +
                                    ", expected >= 1");
    const int ranges = offsets.empty() ? 0 : static_cast<int>(offsets.size()) - 1;
    index_type rounds = 0;
    for (int k = 0; k < ranges; ++k) {
        const index_type words = offsets[k + 1] - offsets[k];
        if (words < 0)
            throw std::invalid_argument("staging_pieces: offsets decrease at " +
                                        std::to_string(k));
        rounds = std::max(rounds, piece_count(words, max_words));
    }
    std::vector<StagingPiece> pieces;
    for (index_type i = 0; i < rounds; ++i)
        for (int k = 0; k < ranges; ++k) {
            const index_type begin = offsets[k] + i * max_words;
            if (begin >= offsets[k + 1]) continue;
            pieces.push_back({k, static_cast<int>(i), begin,
                              std::min(max_words, offsets[k + 1] - begin)});
        }
    return pieces;
}

/// A byte range [begin, end) of the address space.
struct ByteRange {
    std::uintptr_t begin = 0;
    std::uintptr_t end = 0;
    bool operator==(const ByteRange& o) const { return begin == o.begin && end == o.end; }
};

/// The ranges to register (cudaHostRegister) so that every byte of `segments` is page-locked:
/// each non-empty segment rounded out to whole pages of `page_size` bytes (a power of two), then
/// sorted, and ranges that overlap or touch merged (contiguous segments, as MPI allocates a
/// shared window by default, give one range; two ranges never share a page, which
/// cudaHostRegister would refuse as registered twice). Rounding out stays inside the mapping:
/// mappings are whole pages. Throws std::invalid_argument for a page size that is not a power of
/// two or a segment with end < begin.
inline std::vector<ByteRange> registration_ranges(std::vector<ByteRange> segments,
                                                  std::size_t page_size)
{
    if (page_size == 0 || (page_size & (page_size - 1)) != 0)
        throw std::invalid_argument("registration_ranges: page_size = " +
                                    std::to_string(page_size) + ", expected a power of two");
    const std::uintptr_t mask = static_cast<std::uintptr_t>(page_size) - 1;
    std::vector<ByteRange> pages;
    for (const ByteRange& s : segments) {
        if (s.end < s.begin)
            throw std::invalid_argument("registration_ranges: a segment ends before it begins");
        if (s.end == s.begin) continue;
        pages.push_back({s.begin & ~mask, (s.end + mask) & ~mask});
    }
    std::sort(pages.begin(), pages.end(),
              [](const ByteRange& a, const ByteRange& b) { return a.begin < b.begin; });
    std::vector<ByteRange> merged;
    for (const ByteRange& p : pages) {
        if (!merged.empty() && p.begin <= merged.back().end)
            merged.back().end = std::max(merged.back().end, p.end);
        else
            merged.push_back(p);
    }
    return merged;
}

}  // namespace kbench::dist::detail
