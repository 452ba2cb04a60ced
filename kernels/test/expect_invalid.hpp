// Test helper: an argument error must be std::invalid_argument whose message names what was
// wrong (function, parameter, value, expectation).
#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

namespace kbench::test {

/// Expects f() to throw std::invalid_argument whose message contains every one of `parts`.
inline void expect_invalid(const std::function<void()>& f, const std::vector<std::string>& parts)
{
    try {
        f();
        ADD_FAILURE() << "no std::invalid_argument thrown (expected one mentioning '"
                      << parts.front() << "')";
    } catch (const std::invalid_argument& e) {
        const std::string what = e.what();
        for (const std::string& p : parts)
            EXPECT_NE(what.find(p), std::string::npos) << "'" << p << "' missing in: " << what;
    }
}

}  // namespace kbench::test
