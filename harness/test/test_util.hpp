// Helpers shared by the harness tests: an environment variable set for one scope, and the
// message of an expected std::invalid_argument.
#pragma once

#include <cstdlib>
#include <stdexcept>
#include <string>

namespace kbench::harness::test {

/// Sets (value != nullptr) or unsets an environment variable for one scope and restores what
/// it was (set to its old value, or unset) when the scope ends.
class ScopedEnv {
public:
    ScopedEnv(const char* name, const char* value) : name_(name)
    {
        if (const char* old = std::getenv(name)) old_ = old, had_ = true;
        if (value != nullptr) setenv(name, value, 1);
        else unsetenv(name);
    }
    ScopedEnv(const char* name, const std::string& value) : ScopedEnv(name, value.c_str()) {}
    ~ScopedEnv()
    {
        if (had_) setenv(name_, old_.c_str(), 1);
        else unsetenv(name_);
    }
    ScopedEnv(const ScopedEnv&) = delete;
    ScopedEnv& operator=(const ScopedEnv&) = delete;

private:
    const char* name_;
    std::string old_;
    bool had_ = false;
};

/// The message of the std::invalid_argument that fn throws ("no exception" otherwise).
template <typename F>
std::string invalid_argument_message(F&& fn)
{
    try {
        fn();
    } catch (const std::invalid_argument& e) {
        return e.what();
    }
    return "no exception";
}

}  // namespace kbench::harness::test
