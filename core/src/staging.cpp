#include "stepformer/staging.h"

#include <algorithm>
#include <new>
#include <stdexcept>

namespace stepformer {

Staging::Staging(Backend& be) : be_(be), pass_(be.host_memory()) {}

Staging::~Staging() {
    if (pass_) {
        // Host memory, given back without the backend: a trace may outlive it (a static one at exit).
        for (const Block& b : spare_) ::operator delete(b.p, std::align_val_t(64));
        return;
    }
    // Kernels may still be queued on these buffers. A destructor must not throw: a device that
    // failed (lost) has said so to the pass that used it already.
    try {
        if (!map_.empty() || !ids_.empty() || !spare_.empty()) be_.sync();
        for (auto& [host, e] : map_) be_.release(e.dev);
        for (void* p : ids_) be_.release(p);
        for (const Block& b : spare_) be_.release(b.p);
    } catch (...) {
    }
}

Staging::Temp::~Temp() {
    // Back to the staging for the next temp(): a kernel queued after this reads or writes it only
    // after the kernels queued before (the queue is in order), so it needs no wait.
    if (p_) st_->spare_.push_back(Block{p_, bytes_});
}

Staging::Temp Staging::temp(int64_t n) {
    const size_t bytes = size_t(std::max<int64_t>(n, 1)) * sizeof(float);
    // The smallest spare block that fits.
    size_t best = spare_.size();
    for (size_t i = 0; i < spare_.size(); ++i)
        if (spare_[i].bytes >= bytes && (best == spare_.size() || spare_[i].bytes < spare_[best].bytes)) best = i;
    if (best < spare_.size()) {
        const Block b = spare_[best];
        spare_.erase(spare_.begin() + long(best));
        return Temp(this, b.p, b.bytes);
    }
    return Temp(this, pass_ ? ::operator new(bytes, std::align_val_t(64)) : be_.alloc(bytes), bytes);
}

// The device storage of host storage `host`, at least `bytes` big. A new or too small one is
// allocated; with keep_contents, the host's contents are uploaded into a new one.
Staging::Entry& Staging::place(const void* host, size_t bytes, bool keep_contents) {
    Entry& e = map_[host];
    if (e.dev && e.capacity >= bytes) {
        e.bytes = std::max(e.bytes, bytes);
        return e;
    }
    if (e.dev && e.copy_back)
        throw std::logic_error("Staging: a tensor grew while its device copy was newer than the host's");
    be_.release(e.dev);
    e = Entry{};
    e.dev = be_.alloc(bytes);
    e.capacity = e.bytes = bytes;
    if (keep_contents && bytes) be_.upload(e.dev, host, bytes);
    return e;
}

void Staging::keep(float* host, int64_t n) {
    if (pass_ || !host) return;
    place(host, size_t(n) * sizeof(float), true);
}

void Staging::set_parent(Staging* parent) {
    if (parent && &parent->be_ != &be_) throw std::logic_error("Staging: a parent on another backend");
    parent_ = parent && !parent->pass_ ? parent : nullptr;
}

Staging::Entry* Staging::kept(const void* host, size_t bytes) {
    if (!parent_) return nullptr;
    auto it = parent_->map_.find(host);
    if (it == parent_->map_.end()) return nullptr;
    if (it->second.capacity < bytes) throw std::logic_error("Staging: a pass uses more of a kept tensor than was kept");
    return &it->second;
}

const float* Staging::in(const float* host, int64_t n) {
    if (pass_ || !host) return host;
    const size_t bytes = size_t(n) * sizeof(float);
    if (Entry* k = kept(host, bytes)) return dev<float>(*k);
    return dev<float>(place(host, bytes, true));
}

const int* Staging::in(const std::vector<int>& ids) {
    if (pass_ || ids.empty()) return ids.data();
    const size_t bytes = ids.size() * sizeof(int);
    void* d = be_.alloc(bytes);
    ids_.push_back(d);
    be_.upload(d, ids.data(), bytes);
    return static_cast<const int*>(d);
}

float* Staging::out(float* host, int64_t n) {
    if (pass_ || !host) return host;
    const size_t bytes = size_t(n) * sizeof(float);
    if (Entry* k = kept(host, bytes)) {
        k->copy_back = true;  // newer on the device: the parent's finish() brings it
        return dev<float>(*k);
    }
    auto it = map_.find(host);
    // Declared afresh: whatever was staged at this address before belongs to another tensor.
    if (it != map_.end()) it->second.copy_back = false, it->second.bytes = 0;
    Entry& e = place(host, bytes, false);
    e.bytes = bytes;
    e.copy_back = copy_back_;
    return dev<float>(e);
}

float* Staging::inout(float* host, int64_t n) {
    if (pass_ || !host) return host;
    if (Entry* k = kept(host, size_t(n) * sizeof(float))) {
        k->copy_back = true;
        return dev<float>(*k);
    }
    Entry& e = place(host, size_t(n) * sizeof(float), true);
    e.copy_back = copy_back_;
    return dev<float>(e);
}

float* Staging::zeros(Tensor& t) {
    if (pass_) return t.ptr();  // a fresh Tensor is zeros
    float* d = out(t);
    if (d) be_.fill(d, t.size(), 0.0f);
    return d;
}

void Staging::forget(const Tensor& t) {
    if (pass_ || kept(t.ptr(), 0)) return;  // the parent's to keep
    // Out of the table, so that the address is free for whatever the host puts there next; the
    // memory may still be in use by queued kernels, and goes to the spares.
    if (auto it = map_.find(t.ptr()); it != map_.end()) {
        spare_.push_back(Block{it->second.dev, it->second.capacity});
        map_.erase(it);
    }
}

void Staging::finish() {
    if (pass_) {
        be_.sync();
        return;
    }
    std::vector<DownloadRange> back;
    for (auto& [host, e] : map_)
        if (e.copy_back && e.bytes) back.push_back(DownloadRange{const_cast<void*>(host), e.dev, e.bytes});
    // (download_many waits for the queued kernels as sync() does: one wait for the whole pass)
    if (back.empty())
        be_.sync();
    else
        be_.download_many(back);
    for (auto& [host, e] : map_) e.copy_back = false;
}

size_t Staging::device_bytes() const {
    if (pass_) return 0;
    size_t n = 0;
    for (const auto& [host, e] : map_) n += e.capacity;
    for (const Block& b : spare_) n += b.bytes;
    return n;
}

StagedUpdate stage_update(Staging& st, float* weight, int64_t n, const WeightUpdate& upd) {
    StagedUpdate s{nullptr, upd};
    s.update.buf1 = st.inout(upd.buf1, n);
    s.update.buf2 = st.inout(upd.buf2, n);
    s.update.apply_if = st.in(upd.apply_if, 1);
    if (upd.out && upd.out != weight) {
        s.weight = const_cast<float*>(st.in(weight, n));  // the kernel leaves it as it is
        // A guarded update may write nothing: then `out` must come back as it was.
        s.update.out = upd.apply_if ? st.inout(upd.out, n) : st.out(upd.out, n);
    } else {
        s.weight = st.inout(weight, n);
        s.update.out = upd.out ? s.weight : nullptr;
    }
    return s;
}

}  // namespace stepformer
