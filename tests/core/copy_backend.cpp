#include "copy_backend.h"

#include "stepformer/devices.h"

#include <algorithm>
#include <atomic>
#include <cctype>
#include <climits>
#include <cstdint>
#include <cstring>
#include <functional>
#include <iterator>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <new>
#include <stdexcept>
#include <string>
#include <thread>
#include <type_traits>
#include <unordered_map>
#include <vector>

namespace stepformer::testing {

namespace {

// Floats either side of every scratch buffer, filled with a sentinel and checked afterwards.
constexpr size_t kGuard = 16;

template <class T>
T garbage() {
    if constexpr (std::is_floating_point_v<T>)
        return std::numeric_limits<T>::quiet_NaN();
    else
        return T(INT_MIN + 7);
}
template <class T>
T sentinel() {
    if constexpr (std::is_floating_point_v<T>)
        return T(-7.77e33f);
    else
        return T(0x5eadbeef);
}

enum class Mode {
    In,     // copied in; must come out unchanged
    Out,    // pre-filled with garbage; copied back
    InOut,  // copied in (accumulated into or updated in place); copied back
};

struct Scratch {
    virtual ~Scratch() = default;
    // Checks the guard zones and that an input is unchanged (first pass), then copies an
    // output back (second pass: an output that aliases an input on the caller's side must not
    // be taken for a write into the input).
    virtual void check(const std::string& kernel) = 0;
    virtual void copy_back() = 0;
};

template <class T>
struct Buffer : Scratch {
    const char* arg;
    T* host;
    size_t n;
    Mode mode;
    std::vector<T> mem;

    Buffer(const char* a, T* h, size_t count, Mode m) : arg(a), host(h), n(count), mode(m) {
        mem.assign(n + 2 * kGuard, sentinel<T>());
        if (mode == Mode::Out)
            std::fill(mem.begin() + kGuard, mem.begin() + kGuard + n, garbage<T>());
        else
            std::copy(host, host + n, mem.begin() + kGuard);
    }
    T* device() { return mem.data() + kGuard; }

    void check(const std::string& kernel) override {
        const T s = sentinel<T>();
        for (size_t i = 0; i < kGuard; ++i)
            if (std::memcmp(&mem[i], &s, sizeof(T)) != 0 || std::memcmp(&mem[kGuard + n + i], &s, sizeof(T)) != 0)
                throw std::logic_error(kernel + " wrote outside its argument " + arg + " (" + std::to_string(n) +
                                       " elements)");
        if (mode == Mode::In) {
            if (n && std::memcmp(device(), host, n * sizeof(T)) != 0)
                throw std::logic_error(kernel + " wrote into its input " + arg);
        }
    }
    void copy_back() override {
        if (mode != Mode::In) std::copy(device(), device() + n, host);
    }
};

// One kernel call's scratch buffers: made as the call maps its arguments, finished (checked,
// copied back) after the kernel. A scalar result is copied in and back like an argument the
// kernel adds to (sum_squares adds, a loss's mean is written: either is right).
class ScratchMap final : public ArgMap {
public:
    explicit ScratchMap(std::string kernel) : kernel_(std::move(kernel)) {}

    void* map(const KernelArg& a) override {
        const Mode m = a.access == Access::In ? Mode::In : a.access == Access::Out ? Mode::Out : Mode::InOut;
        switch (a.elem) {
        case Elem::F32: return add(a.name, static_cast<float*>(a.p), a.count, m);
        case Elem::I32: return add(a.name, static_cast<int*>(a.p), a.count, m);
        case Elem::F64: return add(a.name, static_cast<double*>(a.p), a.count, m);
        }
        return nullptr;
    }
    void done() {
        for (auto& b : bufs_) b->check(kernel_);
        for (auto& b : bufs_) b->copy_back();
    }

private:
    template <class T>
    T* add(const char* arg, T* host, size_t n, Mode m) {
        if (!host) return nullptr;
        auto b = std::make_unique<Buffer<T>>(arg, host, n, m);
        T* d = b->device();
        bufs_.push_back(std::move(b));
        return d;
    }
    std::string kernel_;
    std::vector<std::unique_ptr<Scratch>> bufs_;
};

class SameAddresses final : public ArgMap {
public:
    void* map(const KernelArg& a) override { return a.p; }
};


class CopyBackend final : public Backend {
public:
    explicit CopyBackend(int threads) : cpu_(make_cpu_backend(threads)) {}
    std::string name() const override { return kCopyBackendName; }
    std::string describe() const override { return "cpu-copy (" + cpu_describe() + ", through copies)"; }
    std::string cpu_describe() const { return cpu_->describe(); }
    bool supports(Kernel) const override { return true; }
    void sync() override { cpu_->sync(); }

    // Every kernel arrives here (none is overridden): its arguments are copied into guarded
    // scratch buffers, the CPU kernel runs on them, and the buffers are checked and copied back.
    void run_elsewhere(Kernel k, const KernelCall& call) override {
        ScratchMap scratch(kernel_name(k));
        call(*cpu_, scratch);
        scratch.done();
    }

private:
    std::unique_ptr<Backend> cpu_;

};

// ----- "cpu-device": a backend with memory of its own and a queue, as a GPU has.

// Bytes either side of every allocation, filled with kZoneByte and checked at release and sync.
// 64 keeps the allocation 64-byte aligned, as Backend::alloc promises.
constexpr size_t kZone = 64;
constexpr unsigned char kZoneByte = 0xa5;
// A fresh allocation's contents: NaN as floats, -1 as ints, so that reading memory nothing wrote
// gives numbers nobody mistakes for results.
constexpr unsigned char kFreshByte = 0xff;

// One pointer argument of a kernel or a copy, as the device must see it.
struct Arg {
    const char* name;
    const void* p;
    size_t bytes;
    size_t align;
    bool optional;  // null is allowed (the interface says so)
};
template <class T>
Arg need(const char* name, const T* p, size_t n) {
    return {name, p, n * sizeof(T), alignof(T), false};
}
template <class T>
Arg opt(const char* name, const T* p, size_t n) {
    return {name, p, n * sizeof(T), alignof(T), true};
}

class DeviceBackend final : public Backend {
public:
    explicit DeviceBackend(int threads) : inner_(threads) {}
    ~DeviceBackend() override {
        // Queued kernels would run on memory freed below: drop them. Allocations still live are
        // a leak the tests find with device_live_bytes(); freed here all the same.
        queues_.clear();
        for (auto& [base, a] : allocs_) ::operator delete(a.raw, std::align_val_t(64));
    }

    std::string name() const override { return kDeviceBackendName; }
    std::string describe() const override {
        return std::string(kDeviceBackendName) + " (" + inner_.cpu_describe() + ", own memory, deferred)";
    }

    size_t memory_in_use() const override { return live_bytes(); }
    size_t sync_waits() const { return waits_.load(); }
    void reset_sync_waits() { waits_.store(0); }
    size_t live_bytes() const {
        std::lock_guard lock(mu_);
        return live_bytes_;
    }

    // ----- Memory

    bool host_memory() const override { return false; }

    void* alloc(size_t bytes) override {
        auto* raw = static_cast<unsigned char*>(::operator new(bytes + 2 * kZone, std::align_val_t(64)));
        std::memset(raw, kZoneByte, kZone);
        std::memset(raw + kZone, kFreshByte, bytes);
        std::memset(raw + kZone + bytes, kZoneByte, kZone);
        std::lock_guard lock(mu_);
        allocs_.emplace(reinterpret_cast<uintptr_t>(raw + kZone), Allocation{raw, bytes});
        live_bytes_ += bytes;
        return raw + kZone;
    }

    void release(void* p) override {
        if (!p) return;
        {
            std::lock_guard lock(mu_);
            if (!allocs_.count(reinterpret_cast<uintptr_t>(p)))
                throw std::logic_error(
                    "release: the pointer is not an allocation of the backend's (a host pointer, an offset into "
                    "an allocation, or released twice?)");
        }
        // This thread's queued kernels may use the memory: wait for them first, as cudaFree does.
        drain(/*report_loss=*/false);
        std::lock_guard lock(mu_);
        auto it = allocs_.find(reinterpret_cast<uintptr_t>(p));
        if (it == allocs_.end()) throw std::logic_error("release: the allocation was released by another thread");
        const Allocation a = it->second;
        allocs_.erase(it);
        live_bytes_ -= a.bytes;
        const bool intact = zones_intact(a);
        ::operator delete(a.raw, std::align_val_t(64));
        if (!intact)
            throw std::logic_error("release: something wrote outside an allocation of " + std::to_string(a.bytes) +
                                   " bytes");
    }

    void upload(void* dst, const void* src, size_t bytes) override {
        check("upload", {need("dst", static_cast<const unsigned char*>(dst), bytes)});
        check_host("upload", "src", src, bytes);
        if (!bytes) return;
        uploaded_ += bytes;
        // The host may change its buffer as soon as upload returns: take the bytes now.
        auto copy = std::make_shared<std::vector<unsigned char>>(static_cast<const unsigned char*>(src),
                                                                 static_cast<const unsigned char*>(src) + bytes);
        later([dst, copy] { std::memcpy(dst, copy->data(), copy->size()); });
    }

    void download(void* dst, const void* src, size_t bytes) override {
        check("download", {need("src", static_cast<const unsigned char*>(src), bytes)});
        check_host("download", "dst", dst, bytes);
        drain();
        check_zones("download");
        downloaded_ += bytes;
        if (bytes) std::memcpy(dst, src, bytes);
    }

    void sync() override {
        drain();
        check_zones("sync");
        inner_.sync();
    }

    // ----- Kernels: none is overridden, each arrives here. Its arguments are checked now; it runs
    // at this thread's next sync() or download(). A kernel of a declined family goes to the
    // base's CPU fallback instead, through this backend's own download() and upload().

    bool supports(Kernel k) const override { return !declined_.count(kernel_family(k)); }
    void decline(KernelFamily f) { declined_.insert(f); }

    void run_elsewhere(Kernel k, const KernelCall& call) override {
        if (!supports(k)) {
            Backend::run_elsewhere(k, call);
            return;
        }
        Checks checks(*this, kernel_name(k));
        call(sink_, checks);
        later([this, call] {
            SameAddresses same;
            call(inner_, same);
        });
    }

private:
    // Checks each argument as the call maps it and runs nothing.
    class Checks final : public ArgMap {
    public:
        Checks(const DeviceBackend& be, const char* kernel) : be_(be), kernel_(kernel) {}
        void* map(const KernelArg& a) override {
            if (a.access == Access::HostResult) return a.p;  // the host's by contract
            const size_t align = a.elem == Elem::F64 ? 8 : 4;
            be_.check(kernel_, {Arg{a.name, a.p, a.bytes(), align, a.optional}});
            return a.p;
        }

    private:
        const DeviceBackend& be_;
        const char* kernel_;
    };
    // A backend whose every kernel does nothing: what a call is made on to check its arguments.
    class Sink final : public Backend {
    public:
        std::string name() const override { return "sink"; }
        std::string describe() const override { return "sink"; }
        void sync() override {}

    protected:
        void run_elsewhere(Kernel, const KernelCall&) override {}
    };

private:
    struct Allocation {
        unsigned char* raw;  // the zone before, then the bytes, then the zone after
        size_t bytes;
    };
    using Queue = std::vector<std::function<void()>>;

    static bool zones_intact(const Allocation& a) {
        for (size_t i = 0; i < kZone; ++i)
            if (a.raw[i] != kZoneByte || a.raw[kZone + a.bytes + i] != kZoneByte) return false;
        return true;
    }

    // Every argument lies in one live allocation with room for what the kernel touches. Null is
    // allowed for an optional argument, and for any argument of no elements.
    void check(const char* kernel, std::initializer_list<Arg> args) const {
        std::lock_guard lock(mu_);
        for (const Arg& a : args) {
            const std::string what = std::string(kernel) + ": argument " + a.name;
            if (!a.p) {
                if (a.optional || a.bytes == 0) continue;
                throw std::logic_error(what + " is null");
            }
            const auto p = reinterpret_cast<uintptr_t>(a.p);
            auto it = allocs_.upper_bound(p);
            if (it == allocs_.begin()) throw std::logic_error(what + " is not in the backend's memory (a host pointer?)");
            --it;
            const uintptr_t base = it->first;
            const size_t size = it->second.bytes;
            if (p > base + size) throw std::logic_error(what + " is not in the backend's memory (a host pointer?)");
            if (p % a.align) throw std::logic_error(what + " is misaligned");
            if (a.bytes > base + size - p)
                throw std::logic_error(what + " runs past its allocation (" + std::to_string(a.bytes) + " bytes from " +
                                       std::to_string(p - base) + " into an allocation of " + std::to_string(size) +
                                       ")");
        }
    }

    // A copy's host side must not be the backend's memory (a device pointer passed as the host's).
    void check_host(const char* call, const char* arg, const void* host, size_t bytes) const {
        if (!host) {
            if (bytes) throw std::logic_error(std::string(call) + ": argument " + arg + " is null");
            return;
        }
        std::lock_guard lock(mu_);
        const auto p = reinterpret_cast<uintptr_t>(host);
        auto it = allocs_.upper_bound(p);
        if (it != allocs_.begin() && p < std::prev(it)->first + std::prev(it)->second.bytes)
            throw std::logic_error(std::string(call) + ": argument " + arg +
                                   " is in the backend's memory, not the host's (a device pointer?)");
    }

    void check_zones(const char* call) const {
        std::lock_guard lock(mu_);
        for (const auto& [base, a] : allocs_)
            if (!zones_intact(a))
                throw std::logic_error(std::string(call) + ": something wrote outside an allocation of " +
                                       std::to_string(a.bytes) + " bytes");
    }

    void later(std::function<void()> f) {
        std::lock_guard lock(mu_);
        queues_[std::this_thread::get_id()].push_back(std::move(f));
    }

    // Runs this thread's queue, in order; counts a wait if there was anything to run. A kernel
    // that throws drops the rest of the queue.
    // `report_loss` false (release): a lost device drops the queue silently, as freeing memory on
    // a lost device succeeds.
    void drain(bool report_loss = true) {
        Queue q;
        {
            std::lock_guard lock(mu_);
            auto it = queues_.find(std::this_thread::get_id());
            if (it == queues_.end() || it->second.empty()) return;
            q.swap(it->second);
        }
        ++waits_;
        // The simulated driver reset: the queued work is lost, and so is every later wait's.
        int left = lose_after_.load();
        while (left > 0 && !lose_after_.compare_exchange_weak(left, left - 1)) {
        }
        if (left == 1) lost_.store(true);
        if (lost_.load()) {
            if (!report_loss) return;
            throw DeviceLost("cpu-device: the device was lost (simulated by the test)");
        }
        for (auto& f : q) f();
    }

public:
    void lose_after(int waits) { lose_after_.store(waits); }
    size_t uploaded() const { return uploaded_.load(); }
    size_t downloaded() const { return downloaded_.load(); }

private:

    CopyBackend inner_;
    Sink sink_;
    std::set<KernelFamily> declined_;
    mutable std::mutex mu_;  // guards allocs_, live_bytes_, queues_
    std::map<uintptr_t, Allocation> allocs_;  // by the address handed out
    size_t live_bytes_ = 0;
    std::unordered_map<std::thread::id, Queue> queues_;
    std::atomic<size_t> waits_{0};
    std::atomic<size_t> uploaded_{0}, downloaded_{0};
    std::atomic<int> lose_after_{0};  // > 0: the wait that brings it to 0 loses the device
    std::atomic<bool> lost_{false};
};

template <class B>
auto& as_device(B& be) {
    using D = std::conditional_t<std::is_const_v<B>, const DeviceBackend, DeviceBackend>;
    auto* d = dynamic_cast<D*>(&be);
    if (!d) throw std::invalid_argument("not a " + std::string(kDeviceBackendName) + " backend: " + be.name());
    return *d;
}

}  // namespace

std::unique_ptr<Backend> make_copy_backend(int threads) { return std::make_unique<CopyBackend>(threads); }

std::unique_ptr<Backend> make_device_backend(int threads) { return std::make_unique<DeviceBackend>(threads); }
std::unique_ptr<Backend> make_device_backend_declining(int threads, const std::vector<KernelFamily>& declined) {
    auto be = std::make_unique<DeviceBackend>(threads);
    for (KernelFamily f : declined) be->decline(f);
    return be;
}

size_t device_sync_waits(const Backend& be) { return as_device(be).sync_waits(); }
void reset_device_sync_waits(Backend& be) { as_device(be).reset_sync_waits(); }
size_t device_live_bytes(const Backend& be) { return as_device(be).live_bytes(); }
void lose_device_after(Backend& be, int waits) { as_device(be).lose_after(waits); }
size_t device_bytes_uploaded(const Backend& be) { return as_device(be).uploaded(); }
size_t device_bytes_downloaded(const Backend& be) { return as_device(be).downloaded(); }

void register_copy_backend() {
    static std::once_flag once;
    std::call_once(once, [] {
        register_backend(kCopyBackendName, &make_copy_backend);
        register_backend(kDeviceBackendName, &make_device_backend);
    });
}

std::vector<std::string> registered_backends() {
    register_copy_backend();
    return available_backends();
}

std::string test_name(std::string backend) {
    for (char& ch : backend)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return backend;
}

}  // namespace stepformer::testing
