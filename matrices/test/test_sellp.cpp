// SELL-P conversion tests: hand-checked layouts (anzt2015 Sec. 3.1, Fig. 3 with b = 2, t = 2),
// SELL-C-sigma sorting, the long-row split (kbench extension), padding ratio, round trip and
// parameter errors.
#include "matrices/sellp.hpp"
#include "matrices/test/random_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace kbench {
namespace {

// 6 x 6, row lengths 2, 1, 3, 0, 1, 2 (nnz = 9):
//   [1 . 2 . . .]
//   [. 3 . . . .]
//   [4 . . 5 . 6]
//   [. . . . . .]
//   [. . . . 7 .]
//   [. 8 . . . 9]
Csr<double> six_by_six()
{
    Csr<double> a;
    a.num_rows = a.num_cols = 6;
    a.row_ptr = {0, 2, 3, 6, 6, 7, 9};
    a.col_idx = {0, 2, 1, 0, 3, 5, 4, 1, 5};
    a.values = {1, 2, 3, 4, 5, 6, 7, 8, 9};
    return a;
}

TEST(Sellp, SixBySixSliceHeight2ThreadsPerRow2)
{
    const Sellp<double> s = to_sellp(six_by_six(), SellpParams{2, 2, 1});
    // Slice lengths: max(2,1) = 2; max(3,0) = 3 -> 4 (multiple of t); max(1,2) = 2.
    EXPECT_EQ(s.slice_ptr, (std::vector<index_type>{0, 4, 12, 16}));
    EXPECT_EQ(s.col_idx, (std::vector<index_type>{0, 1, 2, 0,              // slice 0
                                                  0, 0, 3, 0, 5, 0, 0, 0,  // slice 1
                                                  4, 1, 0, 5}));           // slice 2
    EXPECT_EQ(s.values, (std::vector<double>{1, 3, 2, 0,              //
                                             4, 0, 5, 0, 6, 0, 0, 0,  //
                                             7, 8, 0, 9}));
    EXPECT_TRUE(s.row_perm.empty());
    EXPECT_EQ(s.nnz, 9);
    EXPECT_EQ(s.num_slices(), 3);
    EXPECT_DOUBLE_EQ(s.padding_ratio(), 16.0 / 9.0);
}

TEST(Sellp, SigmaSortingWholeMatrixReducesPadding)
{
    const Sellp<double> unsorted = to_sellp(six_by_six(), SellpParams{2, 1, 1});
    const Sellp<double> s = to_sellp(six_by_six(), SellpParams{2, 1, 6});
    // Stable sort by decreasing length: rows 2 (3), 0 (2), 5 (2), 1 (1), 4 (1), 3 (0).
    EXPECT_EQ(s.row_perm, (std::vector<index_type>{2, 0, 5, 1, 4, 3}));
    EXPECT_EQ(s.slice_ptr, (std::vector<index_type>{0, 6, 10, 12}));
    EXPECT_EQ(s.col_idx, (std::vector<index_type>{0, 0, 3, 2, 5, 0, 1, 1, 5, 0, 4, 0}));
    EXPECT_EQ(s.values, (std::vector<double>{4, 1, 5, 2, 6, 0, 8, 3, 9, 0, 7, 0}));
    EXPECT_EQ(unsorted.stored_entries(), 14u);  // slices of length 2, 3, 2
    EXPECT_EQ(s.stored_entries(), 12u);
}

TEST(Sellp, SigmaWindowsSortOnlyWithinWindow)
{
    const Sellp<double> s = to_sellp(six_by_six(), SellpParams{2, 1, 2});
    // Windows {0,1}: lengths 2,1 kept; {2,3}: 3,0 kept; {4,5}: 1,2 swapped.
    EXPECT_EQ(s.row_perm, (std::vector<index_type>{0, 1, 2, 3, 5, 4}));
}

TEST(Sellp, LongRowIsSplitOffAndEmptyInItsSlice)
{
    // long_row_threshold = 2: row 2 (3 nonzeros) goes to the long part; rows with exactly 2 stay.
    const Sellp<double> s = to_sellp(six_by_six(), SellpParams{2, 2, 1, 2});
    // Slice lengths: max(2,1) = 2; rows 2 (split, 0) and 3 (0) -> 0; max(1,2) = 2.
    EXPECT_EQ(s.slice_ptr, (std::vector<index_type>{0, 4, 4, 8}));
    EXPECT_EQ(s.col_idx, (std::vector<index_type>{0, 1, 2, 0, /* slice 1 empty */ 4, 1, 0, 5}));
    EXPECT_EQ(s.values, (std::vector<double>{1, 3, 2, 0, 7, 8, 0, 9}));
    EXPECT_EQ(s.long_rows, (std::vector<index_type>{2}));
    EXPECT_EQ(s.long_row_ptr, (std::vector<index_type>{0, 3}));
    EXPECT_EQ(s.long_col_idx, (std::vector<index_type>{0, 3, 5}));
    EXPECT_EQ(s.long_values, (std::vector<double>{4, 5, 6}));
    EXPECT_EQ(s.stored_entries(), 11u);  // 8 slice entries + 3 long entries
    EXPECT_DOUBLE_EQ(s.padding_ratio(), 11.0 / 9.0);

    const SellpView<double> v = s.view();
    EXPECT_EQ(v.num_long_rows, 1);
    EXPECT_EQ(v.long_rows, s.long_rows.data());
    EXPECT_EQ(v.long_row_ptr, s.long_row_ptr.data());
    EXPECT_EQ(v.long_col_idx, s.long_col_idx.data());
    EXPECT_EQ(v.long_values, s.long_values.data());

    const Csr<double> back = to_csr(s);
    const Csr<double> a = six_by_six();
    EXPECT_EQ(back.row_ptr, a.row_ptr);
    EXPECT_EQ(back.col_idx, a.col_idx);
    EXPECT_EQ(back.values, a.values);
}

TEST(Sellp, LongRowCountsAsEmptyInSigmaSorting)
{
    // Threshold 2, sigma = 6: slice lengths 2, 1, 0 (row 2 split), 0, 1, 2 sort stably to rows
    // 0, 5, 1, 4, 2, 3; slices {0,5} -> 2, {1,4} -> 1, {2,3} -> 0: 6 entries, no padding.
    const Sellp<double> s = to_sellp(six_by_six(), SellpParams{2, 1, 6, 2});
    EXPECT_EQ(s.row_perm, (std::vector<index_type>{0, 5, 1, 4, 2, 3}));
    EXPECT_EQ(s.slice_ptr, (std::vector<index_type>{0, 4, 6, 6}));
    EXPECT_EQ(s.col_idx, (std::vector<index_type>{0, 1, 2, 5, 1, 4}));
    EXPECT_EQ(s.values, (std::vector<double>{1, 8, 2, 9, 3, 7}));
    EXPECT_EQ(s.long_rows, (std::vector<index_type>{2}));
    EXPECT_DOUBLE_EQ(s.padding_ratio(), 1.0);  // 6 + 3 stored for 9 nonzeros
    EXPECT_EQ(to_csr(s).values, six_by_six().values);
}

TEST(Sellp, NoSplitWithoutThresholdOrWhenNoRowExceedsIt)
{
    for (const index_type threshold : {0, 3, 100}) {
        const Sellp<double> s = to_sellp(six_by_six(), SellpParams{2, 2, 1, threshold});
        EXPECT_TRUE(s.long_rows.empty()) << "threshold " << threshold;
        EXPECT_EQ(s.long_row_ptr, (std::vector<index_type>{0}));
        EXPECT_EQ(s.stored_entries(), 16u);
        const SellpView<double> v = s.view();
        EXPECT_EQ(v.num_long_rows, 0);
        EXPECT_EQ(v.long_rows, nullptr);
        EXPECT_EQ(v.long_row_ptr, nullptr);
    }
}

TEST(Sellp, LastSliceIsPaddedWithRows)
{
    // 3 x 3 identity, b = 2: the second slice holds row 2 and one padding row.
    Csr<double> a;
    a.num_rows = a.num_cols = 3;
    a.row_ptr = {0, 1, 2, 3};
    a.col_idx = {0, 1, 2};
    a.values = {1, 1, 1};
    const Sellp<double> s = to_sellp(a, SellpParams{2, 1, 1});
    EXPECT_EQ(s.slice_ptr, (std::vector<index_type>{0, 2, 4}));
    EXPECT_EQ(s.col_idx, (std::vector<index_type>{0, 1, 2, 0}));
    EXPECT_EQ(s.values, (std::vector<double>{1, 1, 1, 0}));
    EXPECT_DOUBLE_EQ(s.padding_ratio(), 4.0 / 3.0);
}

TEST(Sellp, EmptyMatrix)
{
    Csr<double> a;  // 0 x 0
    const Sellp<double> s = to_sellp(a, SellpParams{32, 4, 1});
    EXPECT_EQ(s.num_slices(), 0);
    EXPECT_EQ(s.stored_entries(), 0u);
    EXPECT_DOUBLE_EQ(s.padding_ratio(), 1.0);
    EXPECT_EQ(to_csr(s).row_ptr, (std::vector<index_type>{0}));
}

Csr<double> random_csr(index_type n, index_type m, std::uint32_t seed)
{
    return test::random_csr(n, m, seed, {12, 0, -1, 0, 0.5, 2.0});
}

TEST(Sellp, RoundTripRestoresCsr)
{
    const Csr<double> a = random_csr(301, 77, 42);
    for (const SellpParams p : {SellpParams{1, 1, 1}, SellpParams{2, 2, 1}, SellpParams{32, 4, 1},
                                SellpParams{7, 8, 14}, SellpParams{32, 1, 128},
                                SellpParams{64, 16, 320}}) {
        SCOPED_TRACE(testing::Message() << "b=" << p.slice_height << " t=" << p.threads_per_row
                                        << " sigma=" << p.sigma);
        const Sellp<double> s = to_sellp(a, p);
        EXPECT_EQ(s.stored_entries() % p.threads_per_row, 0u);
        EXPECT_GE(s.padding_ratio(), 1.0);
        const Csr<double> back = to_csr(s);
        EXPECT_EQ(back.num_rows, a.num_rows);
        EXPECT_EQ(back.num_cols, a.num_cols);
        EXPECT_EQ(back.row_ptr, a.row_ptr);
        EXPECT_EQ(back.col_idx, a.col_idx);
        EXPECT_EQ(back.values, a.values);
    }
}

TEST(Sellp, RoundTripWithLongRowSplit)
{
    // Row lengths 0..12: thresholds 1, 5 and 11 split off many, some and few rows.
    const Csr<double> a = random_csr(301, 77, 7);
    for (const SellpParams p : {SellpParams{1, 1, 1, 1}, SellpParams{2, 2, 1, 5},
                                SellpParams{32, 4, 1, 11}, SellpParams{7, 8, 14, 5},
                                SellpParams{64, 16, 320, 11}}) {
        SCOPED_TRACE(testing::Message() << "b=" << p.slice_height << " t=" << p.threads_per_row
                                        << " sigma=" << p.sigma
                                        << " threshold=" << p.long_row_threshold);
        const Sellp<double> s = to_sellp(a, p);
        index_type expected_long = 0;
        for (index_type i = 0; i < a.num_rows; ++i)
            expected_long += a.row_ptr[i + 1] - a.row_ptr[i] > p.long_row_threshold;
        EXPECT_EQ(s.num_long_rows(), expected_long);
        EXPECT_GT(s.num_long_rows(), 0);
        EXPECT_TRUE(std::is_sorted(s.long_rows.begin(), s.long_rows.end()));
        EXPECT_EQ(s.stored_entries(), s.values.size() + s.long_values.size());
        const Csr<double> back = to_csr(s);
        EXPECT_EQ(back.row_ptr, a.row_ptr);
        EXPECT_EQ(back.col_idx, a.col_idx);
        EXPECT_EQ(back.values, a.values);
    }
}

TEST(Sellp, ToCsrRejectsInconsistentLongPart)
{
    Sellp<double> s = to_sellp(six_by_six(), SellpParams{2, 2, 1, 2});
    Sellp<double> bad_ptr = s;
    bad_ptr.long_row_ptr = {0};  // one row, one offset
    EXPECT_THROW(to_csr(bad_ptr), std::invalid_argument);
    Sellp<double> bad_row = s;
    bad_row.long_rows = {6};  // out of range
    EXPECT_THROW(to_csr(bad_row), std::invalid_argument);
    Sellp<double> bad_size = s;
    bad_size.long_values.pop_back();
    EXPECT_THROW(to_csr(bad_size), std::invalid_argument);
}

TEST(Sellp, RoundTripKeepsExplicitZeroInColumnZeroBeforeOtherEntries)
{
    Csr<double> a;
    a.num_rows = 2;
    a.num_cols = 3;
    a.row_ptr = {0, 2, 3};
    a.col_idx = {0, 2, 1};
    a.values = {0.0, 5.0, 1.0};
    const Csr<double> back = to_csr(to_sellp(a, SellpParams{2, 2, 1}));
    EXPECT_EQ(back.col_idx, a.col_idx);
    EXPECT_EQ(back.values, a.values);
}

TEST(Sellp, FloatConversionMatchesDoubleLayout)
{
    const Csr<double> a = six_by_six();
    const Sellp<float> s = to_sellp(a.cast<float>(), SellpParams{2, 2, 1});
    EXPECT_EQ(s.slice_ptr, (std::vector<index_type>{0, 4, 12, 16}));
    EXPECT_EQ(s.values, (std::vector<float>{1, 3, 2, 0, 4, 0, 5, 0, 6, 0, 0, 0, 7, 8, 0, 9}));
}

TEST(Sellp, RejectsBadParameters)
{
    const Csr<double> a = six_by_six();
    EXPECT_THROW(to_sellp(a, SellpParams{0, 1, 1}), std::invalid_argument);    // b < 1
    EXPECT_THROW(to_sellp(a, SellpParams{2, 0, 1}), std::invalid_argument);    // t < 1
    EXPECT_THROW(to_sellp(a, SellpParams{2, 3, 1}), std::invalid_argument);    // t not 2^k
    EXPECT_THROW(to_sellp(a, SellpParams{64, 32, 1}), std::invalid_argument);  // b*t > 1024
    EXPECT_THROW(to_sellp(a, SellpParams{2, 1, 3}), std::invalid_argument);    // sigma % b
    EXPECT_THROW(to_sellp(a, SellpParams{2, 1, 0}), std::invalid_argument);    // sigma < 1
    EXPECT_THROW(to_sellp(a, SellpParams{2, 1, -4}), std::invalid_argument);   // sigma < 1
    EXPECT_NO_THROW(to_sellp(a, SellpParams{32, 32, 1}));                      // b*t == 1024
    EXPECT_THROW(to_sellp(a, SellpParams{2, 1, 1, -1}), std::invalid_argument);  // threshold < 0
    try {
        to_sellp(a, SellpParams{2, 3, 1});
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("t = 3"), std::string::npos) << e.what();
    }
    try {
        to_sellp(a, SellpParams{2, 1, 1, -7});
        FAIL() << "expected std::invalid_argument";
    } catch (const std::invalid_argument& e) {
        EXPECT_NE(std::string(e.what()).find("long_row_threshold = -7"), std::string::npos)
            << e.what();
    }
}

TEST(Sellp, RejectsInvalidCsr)
{
    Csr<double> a = six_by_six();
    a.col_idx[0] = 6;  // out of range
    EXPECT_THROW(to_sellp(a, SellpParams{2, 1, 1}), std::invalid_argument);
}

}  // namespace
}  // namespace kbench
