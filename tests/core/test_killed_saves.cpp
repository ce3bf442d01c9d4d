// Killed saves (issue 34): a child process saving a tutorial-size file (a checkpoint, as `train
// --save` and the app's model cache write it; a .npz, as File › Export writes it) is SIGKILLed at
// points swept across its save, again and again. The path must always hold the previous complete
// file or the new complete one, and the temporary files of killed saves must not pile up: the
// next save removes them.
#include <gtest/gtest.h>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

#include "stepformer/atomic_file.h"

namespace fs = std::filesystem;
using namespace stepformer;

namespace {

struct Child {
    pid_t pid = -1;
    FILE* out = nullptr;  // its stdout
};

// Starts save_child KIND SEED TARGET and waits for its "ready" (the model is made, the save starts).
Child startSave(const std::string& kind, int seed, const std::string& target) {
    int fds[2];
    if (::pipe(fds) != 0) return {};
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(fds[1], STDOUT_FILENO);
        ::close(fds[0]);
        ::close(fds[1]);
        const std::string s = std::to_string(seed);
        ::execl(STEPFORMER_SAVE_CHILD, STEPFORMER_SAVE_CHILD, kind.c_str(), s.c_str(), target.c_str(), nullptr);
        ::_exit(127);
    }
    ::close(fds[1]);
    Child c{pid, ::fdopen(fds[0], "r")};
    char line[64] = {};
    if (!std::fgets(line, sizeof line, c.out) || std::string(line) != "ready\n") {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, nullptr, 0);
        std::fclose(c.out);
        return {};
    }
    return c;
}

// Runs a whole save; how long it took from "ready" to its end.
std::chrono::microseconds wholeSave(const std::string& kind, int seed, const std::string& target) {
    Child c = startSave(kind, seed, target);
    if (c.pid < 0) return std::chrono::microseconds(-1);
    const auto t0 = std::chrono::steady_clock::now();
    int status = 0;
    ::waitpid(c.pid, &status, 0);
    const auto t = std::chrono::steady_clock::now() - t0;
    std::fclose(c.out);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return std::chrono::microseconds(-1);
    return std::chrono::duration_cast<std::chrono::microseconds>(t);
}

std::vector<uint8_t> bytesOf(const std::string& path) { return read_file_bytes(path); }

void killedSaves(const std::string& kind) {
    const fs::path dir = fs::temp_directory_path() / ("stepformer-killed-" + kind + "-" + std::to_string(::getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const std::string target = (dir / ("model." + kind)).string();
    const std::string other = (dir / ("new." + kind)).string();
    // The new file's bytes (seed 2) and the previous one (seed 1) in place.
    const auto full = wholeSave(kind, 2, other);
    ASSERT_GT(full.count(), 0) << "the child could not save " << other;
    ASSERT_GT(wholeSave(kind, 1, target).count(), 0);
    const std::vector<uint8_t> previous = bytesOf(target), next = bytesOf(other);
    ASSERT_NE(previous, next);

    constexpr int kKills = 12;
    int sawPrevious = 0, sawNext = 0;
    for (int i = 0; i < kKills; ++i) {
        // Kill points swept from the save's start to past its end.
        const auto delay = full * i * 3 / (2 * kKills);
        Child c = startSave(kind, 2, target);
        ASSERT_GT(c.pid, 0);
        std::this_thread::sleep_for(delay);
        ::kill(c.pid, SIGKILL);
        ::waitpid(c.pid, nullptr, 0);
        std::fclose(c.out);
        const std::vector<uint8_t> now = bytesOf(target);
        if (now == previous) {
            ++sawPrevious;
        } else {
            ASSERT_EQ(now, next) << "killed after " << delay.count() << " us: the file is neither the previous nor the new one";
            ++sawNext;
            write_file_atomic(target, previous.data(), previous.size());  // the previous one again for the next kill
        }
        // A killed save may leave its own temporary file; the saves after it remove every earlier one.
        EXPECT_LE(stale_temp_count_for_testing(target), 1u) << "after kill " << i;
    }
    std::printf("%s: %d kills left the previous file, %d the new one (a whole save takes %lld us)\n", kind.c_str(),
                sawPrevious, sawNext, static_cast<long long>(full.count()));
    EXPECT_GT(sawPrevious, 0) << "no kill landed inside a save";
    ASSERT_GT(wholeSave(kind, 1, target).count(), 0);
    EXPECT_EQ(stale_temp_count_for_testing(target), 0u) << "a save leaves no temporary files of killed saves";
    fs::remove_all(dir);
}

}  // namespace

TEST(KilledSaves, CheckpointIsThePreviousOrTheNewFile) { killedSaves("checkpoint"); }

TEST(KilledSaves, NpzExportIsThePreviousOrTheNewFile) { killedSaves("npz"); }

TEST(KilledSaves, StaleTemporaryFilesOfDeadProcessesAreRemoved) {
    const fs::path dir = fs::temp_directory_path() / ("stepformer-stale-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    const std::string target = (dir / "f.bin").string();
    // A temp of a process that is gone (a pid that cannot exist), and one of a live process (ours).
    const std::string dead = target + ".tmp-2147483646-00000000deadbeef";
    const std::string alive = target + ".tmp-" + std::to_string(::getpid()) + "-0000000000000001";
    for (const auto& p : {dead, alive}) std::fclose(std::fopen(p.c_str(), "w"));
    EXPECT_EQ(stale_temp_count_for_testing(target), 2u);
    const char data[] = "new";
    write_file_atomic(target, data, sizeof data);
    EXPECT_FALSE(fs::exists(dead));
    EXPECT_TRUE(fs::exists(alive)) << "a live process's save in progress is left alone";
    EXPECT_EQ(bytesOf(target).size(), sizeof data);
    fs::remove_all(dir);
}
