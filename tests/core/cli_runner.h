// Runs the real stepformer-cli binary as a user would, its output captured: shared by the CLI
// tests (test_cli.cpp, test_cli_torch.cpp).
#pragma once

#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "temp_dir.h"

namespace clitest {

inline std::string quote(const std::string& s) {
    std::string q = "'";
    for (char ch : s) q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    return q + "'";
}

inline std::string read_text(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

struct Result {
    int rc = -1;
    std::string out, err;
};

// Runs the CLI with `args`, stdout and stderr captured to files.
inline Result cli(const std::vector<std::string>& args) {
    static testutil::TempDir capture;
    static int n = 0;
    const std::string out = capture.file("out" + std::to_string(n)), err = capture.file("err" + std::to_string(n));
    ++n;
    // Appended piecewise: GCC 12 -O3 warns falsely (-Wrestrict) on chains of string +.
    std::string cmd = quote(STEPFORMER_CLI_PATH);
    for (const auto& a : args) {
        cmd += ' ';
        cmd += quote(a);
    }
    cmd += " >";
    cmd += quote(out);
    cmd += " 2>";
    cmd += quote(err);
    cmd += " </dev/null";
    const int status = std::system(cmd.c_str());
    Result r;
    r.rc = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    r.out = read_text(out);
    r.err = read_text(err);
    return r;
}

inline bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace clitest

// docs/contracts.md: "Exit code 1 and an `error:` line naming the problem on bad input."
#define EXPECT_USER_ERROR(r)                                      \
    do {                                                          \
        EXPECT_EQ((r).rc, 1) << (r).err;                          \
        EXPECT_TRUE(clitest::has((r).err, "error: ")) << (r).err; \
    } while (0)

#define EXPECT_HAS(text, part) \
    EXPECT_TRUE(clitest::has(text, part)) << "missing \"" << (part) << "\" in:\n" << (text)
