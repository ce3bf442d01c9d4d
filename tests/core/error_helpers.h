// What the error tests share: the message an expected exception carries, whether it names the
// parts it must, and raw file reading and writing for corrupted inputs.
#pragma once

#include <gtest/gtest.h>

#include <fstream>
#include <initializer_list>
#include <iterator>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace errortest {

// The message of the `E` that `fn` throws. Any other outcome fails the test.
template <typename E, typename F>
std::string error_of(F&& fn) {
    try {
        fn();
    } catch (const E& e) {
        return e.what();
    } catch (const std::exception& e) {
        ADD_FAILURE() << "threw the wrong exception type: " << e.what();
        return {};
    }
    ADD_FAILURE() << "expected an exception, nothing was thrown";
    return {};
}

inline ::testing::AssertionResult mentions(const std::string& message, std::initializer_list<std::string> parts) {
    for (const auto& p : parts)
        if (message.find(p) == std::string::npos)
            return ::testing::AssertionFailure() << "message \"" << message << "\" does not mention \"" << p << "\"";
    return ::testing::AssertionSuccess();
}

using testutil::TempDir;

inline std::vector<uint8_t> slurp(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::vector<uint8_t>(std::istreambuf_iterator<char>(in), {});
}

inline void put(const std::string& path, const std::vector<uint8_t>& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

const std::string kSrcVocab = "P ich mochte ein bier cola";
const std::string kTgtVocab = "P i want a beer coke S E .";

}  // namespace errortest
