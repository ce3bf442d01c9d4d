#include "stepformer/atomic_file.h"

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <stdexcept>

#include "stepformer/message.h"

namespace stepformer {

namespace {

// Armed by set_atomic_write_fault_for_testing; consumed (reset to -1) by the next write.
std::atomic<int> g_fault_after_bytes{-1};

// "cannot <action> '<path>': <the system's reason>"
[[noreturn]] void throw_os_error(Msg action, const std::string& path, int err) {
    throw Error(Message(action, {path, std::strerror(err)}));
}

// pid keeps concurrent processes apart; the random part keeps threads (and a
// stale temp left by a killed run with a recycled pid) apart.
std::string temp_path_for(const std::string& path) {
    std::random_device rd;
    const uint64_t r = (static_cast<uint64_t>(rd()) << 32) ^ rd();
    char suffix[17];
    std::snprintf(suffix, sizeof suffix, "%016llx", static_cast<unsigned long long>(r));
    return path + ".tmp-" + std::to_string(::getpid()) + "-" + suffix;
}

std::string parent_dir(const std::string& path) {
    const auto slash = path.find_last_of('/');
    if (slash == std::string::npos) return ".";
    if (slash == 0) return "/";
    return path.substr(0, slash);
}

// Owns the temporary file: closes it and, unless committed, deletes it, so every
// early throw below cleans up without repeating itself.
class TempFile {
public:
    TempFile(std::string path, int fd) : path_(std::move(path)), fd_(fd) {}
    TempFile(const TempFile&) = delete;
    TempFile& operator=(const TempFile&) = delete;
    ~TempFile() {
        if (fd_ >= 0) ::close(fd_);
        if (!committed_) ::unlink(path_.c_str());
    }
    int fd() const { return fd_; }
    // close() can report deferred write errors (e.g. on NFS), so its result matters.
    int close() {
        const int rc = ::close(fd_);
        fd_ = -1;
        return rc;
    }
    void commit() { committed_ = true; }

private:
    std::string path_;
    int fd_;
    bool committed_ = false;
};

// Returns 0 or the errno of the failure; retries short writes and EINTR.
int write_all(int fd, const char* p, size_t n) {
    while (n > 0) {
        const ssize_t w = ::write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            return errno;
        }
        p += w;
        n -= static_cast<size_t>(w);
    }
    return 0;
}

// Replacing a file should not silently change who may read it.
void copy_mode_of_existing(const std::string& path, int fd) {
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) ::fchmod(fd, st.st_mode & 07777);
}

// Makes the rename itself durable. Best effort: some filesystems refuse fsync on
// directories, and the data is already safely in place either way.
void fsync_directory(const std::string& dir) {
    const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) return;
    ::fsync(fd);
    ::close(fd);
}

// A save killed before its rename (SIGKILL, a power cut) leaves its temporary file behind: the
// next save of the same path removes those whose process is gone, so they never pile up. A temp
// of a live process (a concurrent save) is left alone; one whose pid was reused goes later.
void remove_stale_temps(const std::string& path) {
    const std::string dir = parent_dir(path);
    const auto slash = path.find_last_of('/');
    const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp-";
    DIR* d = ::opendir(dir.c_str());
    if (!d) return;
    while (const dirent* e = ::readdir(d)) {
        const std::string name = e->d_name;
        if (name.compare(0, prefix.size(), prefix) != 0) continue;
        char* end = nullptr;
        const long pid = std::strtol(name.c_str() + prefix.size(), &end, 10);
        if (pid <= 0 || !end || *end != '-') continue;
        if (::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;  // alive, or not ours to judge
        ::unlinkat(::dirfd(d), name.c_str(), 0);
    }
    ::closedir(d);
}

}  // namespace

size_t stale_temp_count_for_testing(const std::string& path) {
    const std::string dir = parent_dir(path);
    const auto slash = path.find_last_of('/');
    const std::string prefix = (slash == std::string::npos ? path : path.substr(slash + 1)) + ".tmp-";
    size_t n = 0;
    if (DIR* d = ::opendir(dir.c_str())) {
        while (const dirent* e = ::readdir(d)) n += std::string(e->d_name).compare(0, prefix.size(), prefix) == 0;
        ::closedir(d);
    }
    return n;
}

void set_atomic_write_fault_for_testing(int fail_after_bytes) { g_fault_after_bytes = fail_after_bytes; }

void write_file_atomic(const std::string& path, const void* data, size_t size) {
    if (path.empty()) throw Error(Message(Msg::file_empty_path));

    remove_stale_temps(path);
    const std::string tmp = temp_path_for(path);
    const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd < 0) throw_os_error(Msg::file_cannot_create_temp, path, errno);
    TempFile file(tmp, fd);
    copy_mode_of_existing(path, fd);

    const int fault = g_fault_after_bytes.exchange(-1);
    const size_t to_write = fault >= 0 ? std::min(size, static_cast<size_t>(fault)) : size;
    if (const int err = write_all(fd, static_cast<const char*>(data), to_write)) throw_os_error(Msg::file_cannot_write, path, err);
    if (fault >= 0)
        throw std::runtime_error("cannot write '" + path + "': simulated interruption after " + std::to_string(to_write) +
                                 " bytes (test fault hook)");

    if (::fsync(fd) != 0) throw_os_error(Msg::file_cannot_flush, path, errno);
    if (file.close() != 0) throw_os_error(Msg::file_cannot_close, path, errno);
    if (::rename(tmp.c_str(), path.c_str()) != 0) throw_os_error(Msg::file_cannot_replace, path, errno);
    file.commit();
    fsync_directory(parent_dir(path));
}

std::vector<uint8_t> read_file_bytes(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw_os_error(Msg::file_cannot_open, path, errno);
    struct Closer {
        int fd;
        ~Closer() { ::close(fd); }
    } closer{fd};

    struct stat st {};
    if (::fstat(fd, &st) != 0) throw_os_error(Msg::file_cannot_stat, path, errno);
    if (S_ISDIR(st.st_mode)) throw_os_error(Msg::file_cannot_read, path, EISDIR);

    // Size from fstat is only a hint (pipes report 0, files may grow): read to EOF.
    std::vector<uint8_t> bytes(S_ISREG(st.st_mode) ? static_cast<size_t>(st.st_size) : 0);
    size_t have = 0;
    for (;;) {
        if (have == bytes.size()) bytes.resize(bytes.size() + (1 << 16));
        const ssize_t n = ::read(fd, bytes.data() + have, bytes.size() - have);
        if (n < 0) {
            if (errno == EINTR) continue;
            throw_os_error(Msg::file_cannot_read, path, errno);
        }
        if (n == 0) break;
        have += static_cast<size_t>(n);
    }
    bytes.resize(have);
    return bytes;
}

}  // namespace stepformer
