// Host tensors seen from a backend's memory, for one pass: which host storage has a copy in the
// backend's memory, whether the host or the device copy is newer, and what to copy back at the
// end. OpenMP's "present table" (target data map to/from/alloc) for the Backend interface.
//
// On a backend that computes in host memory (Backend::host_memory(), the CPU) every call returns
// the host pointer it was given and finish() is one sync(): a pass written against Staging costs
// the CPU nothing. On any other backend:
//   in()      data the host made (weights, token ids, optimizer state): uploaded on first use,
//             then the device copy is reused for the rest of the staging's life;
//   out()     a kernel writes it: device memory, copied back to the host tensor at finish();
//   inout()   a kernel reads and writes it (accumulates into it, updates it in place);
//   zeros()   out(), filled with 0 on the device (the host tensor is zeros already);
//   forget()  the host tensor is going away before finish(): do not copy it back.
// A temporary that only kernels read (a head split's input, say) has no host tensor at all:
// temp() lends backend memory until its handle goes, then keeps it for the next temp().
// Storage is found by its host address, so a tensor the pass makes is declared (out, zeros)
// before a kernel reads it, and is either kept until finish() or forgotten: then no address is
// ever taken for another tensor's while the staging lives. Token ids are uploaded on every in()
// (they are small, and a batch's storage is often reused).
//
// Residency across passes (a training run's weights and optimizer state): a staging that lives
// as long as the run keeps tensors in the backend's memory (keep()), and each pass's staging
// takes it as its parent (set_parent()): every call for a tensor the parent keeps returns the
// parent's device copy — no upload, and no copy back at the pass's finish(); a kernel writing it
// marks it newer on the device, and the parent's own finish() copies such tensors back (once, when
// the host needs them: the run's end, a checkpoint). Meanwhile the host tensors are stale.
//
// Not thread-safe: one pass, one thread. The backend must outlive a staging that is not a
// passthrough (one on the CPU keeps nothing of the backend's).
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "stepformer/backend.h"
#include "stepformer/tensor.h"

namespace stepformer {

class Staging {
public:
    explicit Staging(Backend& be);
    ~Staging();
    Staging(const Staging&) = delete;
    Staging& operator=(const Staging&) = delete;

    Backend& backend() const { return be_; }
    // The backend computes in host memory: nothing is staged.
    bool passthrough() const { return pass_; }

    const float* in(const Tensor& t) { return pass_ ? t.ptr() : in(t.ptr(), t.size()); }
    const float* in(const float* host, int64_t n);
    const int* in(const std::vector<int>& ids);
    float* out(Tensor& t) { return pass_ ? t.ptr() : out(t.ptr(), t.size()); }
    float* out(float* host, int64_t n);
    float* inout(Tensor& t) { return pass_ ? t.ptr() : inout(t.ptr(), t.size()); }
    float* inout(float* host, int64_t n);
    float* zeros(Tensor& t);
    void forget(const Tensor& t);

    // Backend memory for n floats, uninitialised, lent until the handle goes.
    class Temp {
    public:
        Temp(Temp&& o) noexcept : st_(o.st_), p_(o.p_), bytes_(o.bytes_) { o.p_ = nullptr; }
        Temp& operator=(Temp&&) = delete;
        ~Temp();
        float* get() const { return static_cast<float*>(p_); }

    private:
        friend class Staging;
        Temp(Staging* st, void* p, size_t bytes) : st_(st), p_(p), bytes_(bytes) {}
        Staging* st_;
        void* p_;
        size_t bytes_;
    };
    Temp temp(int64_t n);

    // Waits for the backend (one Backend::sync()), then copies every out/inout tensor back to the
    // host. The device copies stay and equal the host ones: a later pass in the same staging (the
    // backward after the forward) reads them without uploading again.
    void finish();

    // What the staging holds in the backend's memory (0 on a passthrough backend).
    size_t device_bytes() const;

    // Residency (see the top): keeps host storage in the backend's memory from now on, its
    // contents uploaded once. Nothing on a passthrough backend.
    void keep(float* host, int64_t n);
    void keep(Tensor& t) { keep(t.ptr(), t.size()); }
    // A pass's staging uses `parent`'s kept tensors (null: none). Both on the same backend.
    void set_parent(Staging* parent);
    // false: tensors declared from now on (out, inout, zeros) are not copied back at finish():
    // their device copies are the only ones (a training step's trace, which nobody reads).
    void set_copy_back(bool on) { copy_back_ = on; }

private:
    struct Entry {
        void* dev = nullptr;
        size_t capacity = 0;  // bytes allocated
        size_t bytes = 0;     // bytes in use
        bool copy_back = false;
    };
    Entry& place(const void* host, size_t bytes, bool keep_contents);
    template <class T>
    T* dev(Entry& e) {
        return static_cast<T*>(e.dev);
    }

    struct Block {
        void* p;
        size_t bytes;
    };
    // The parent's entry for `host`, when the parent keeps it.
    Entry* kept(const void* host, size_t bytes);

    Backend& be_;
    bool pass_;
    Staging* parent_ = nullptr;
    bool copy_back_ = true;
    std::unordered_map<const void*, Entry> map_;
    std::vector<void*> ids_;    // the token-id uploads, released with the staging
    std::vector<Block> spare_;  // returned temps and forgotten tensors' memory, for the next temp()
};

// An optimizer update of one weight (n elements) with its arguments in the backend's memory: the
// optimizer state read and written; the weight read and written in place, or only read when the
// update goes to upd.out (which is then written, or kept as it was when upd.apply_if says no).
// Copied back at finish().
struct StagedUpdate {
    float* weight;
    WeightUpdate update;
};
StagedUpdate stage_update(Staging& st, float* weight, int64_t n, const WeightUpdate& upd);

}  // namespace stepformer
