// The Vulkan backend's memory: allocations, buffers kept for reuse, uploads and downloads.
#include <algorithm>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>
#include <utility>

#include "vulkan/vk_backend_internal.h"

namespace stepformer::vk {

void* VulkanBackend::alloc(size_t bytes) {
    const std::lock_guard lock(mem_mu_);
    Alloc a = obtain(std::max<size_t>(bytes, 4), !device_memory_);
    // The address handed out: the mapped pointer, or for unmapped memory the device address
    // (never dereferenced on the host; only this backend reads it).
    const uintptr_t key = a.mapped ? reinterpret_cast<uintptr_t>(a.mapped) : uintptr_t(a.address);
    allocs_[key] = a;
    return reinterpret_cast<void*>(key);
}

// Queued kernels run only at the next flush: memory none of the calling thread's kernels uses
// gets the data now (when the host can write it); otherwise (or into memory the host cannot see)
// it goes through a staging buffer, copied in order with the queue.
void VulkanBackend::upload(void* dst, const void* src, size_t bytes) {
    if (!bytes) return;
    const QueueLock lock(*this);
    const Span d = find(dst, bytes, "upload");
    count([&](BackendCounters& c) {
        ++c.uploads;
        c.bytes_uploaded += bytes;
    });
    const VkDeviceAddress lo = d.alloc->address + d.offset, hi = lo + bytes;
    const auto& accesses = q().accesses;
    const bool used = std::any_of(accesses.begin(), accesses.end(), [&](const Access& a) { return a.lo < hi && lo < a.hi; });
    if (!used && d.alloc->mapped) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const Alloc s = scratch(bytes);
    std::memcpy(s.mapped, src, bytes);
    if (bytes % 4 == 0) {
        const ElementwiseArgs args{lo, s.address, 0, uint32_t(bytes / 4), uint32_t(Elementwise::CopyBits), 0.0f, 0};
        note(s.address, bytes, false);
        note(lo, bytes, true);
        dispatch("elementwise", &args, sizeof args, uint32_t(std::min<size_t>((bytes / 4 + 255) / 256, 65535)), 1);
    } else {
        queue_copy(s, 0, *d.alloc, d.offset, bytes);
    }
}

void VulkanBackend::download(void* dst, const void* src, size_t bytes) {
    if (!bytes) return;
    const QueueLock lock(*this);
    const Span from = find(src, bytes, "download");
    count([&](BackendCounters& c) {
        ++c.downloads;
        c.bytes_downloaded += bytes;
    });
    if (from.alloc->mapped) {
        flush();
        std::memcpy(dst, src, bytes);
        return;
    }
    // Unmapped: copied into a staging buffer after the queued kernels, then to the host.
    const Retired s(this, [&] {
        const std::lock_guard mem(mem_mu_);
        return obtain(bytes, true);
    }());
    if (bytes % 4 == 0) copy_words(s.a, 0, src, bytes, "download");
    else queue_copy(*from.alloc, from.offset, s.a, 0, bytes);
    flush();
    std::memcpy(dst, s.a.mapped, bytes);
}

// The unmapped ranges are copied into one staging buffer after the queued kernels, all with one
// submission and one wait. The copies are queued by size and device address, not in the
// caller's order (a pass's tensors by host address, which moves from step to step, while its
// device buffers are reused in the same order): the same pass queues the same commands, and its
// command buffer is submitted again rather than recorded anew.
void VulkanBackend::download_many(std::span<const DownloadRange> ranges) {
    const QueueLock lock(*this);
    constexpr size_t kAlign = 16;
    std::vector<Span> from;
    from.reserve(ranges.size());
    for (const DownloadRange& r : ranges)  // every range checked before anything is queued
        from.push_back(r.bytes ? find(r.src, r.bytes, "download") : Span{});
    std::vector<size_t> order(ranges.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    const auto where = [&](size_t i) { return from[i].alloc ? from[i].alloc->address + from[i].offset : 0; };
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
        return ranges[a].bytes != ranges[b].bytes ? ranges[a].bytes < ranges[b].bytes : where(a) < where(b);
    });
    std::vector<size_t> at(ranges.size(), 0);
    size_t staged = 0;
    for (size_t i : order) {
        if (!ranges[i].bytes || from[i].alloc->mapped) continue;
        at[i] = staged;
        staged += (ranges[i].bytes + kAlign - 1) / kAlign * kAlign;
    }
    std::optional<Retired> s;  // recycled as it goes, whatever happens
    if (staged) {
        const std::lock_guard mem(mem_mu_);
        s.emplace(this, obtain(staged, true));
    }
    for (size_t i : order) {
        const DownloadRange& r = ranges[i];
        if (!r.bytes || from[i].alloc->mapped) continue;
        if (r.bytes % 4 == 0) copy_words(s->a, at[i], r.src, r.bytes, "download");
        else queue_copy(*from[i].alloc, from[i].offset, s->a, at[i], r.bytes);
    }
    flush();
    size_t downloads = 0, bytes = 0;
    for (size_t i = 0; i < ranges.size(); ++i) {
        const DownloadRange& r = ranges[i];
        if (!r.bytes) continue;
        ++downloads;
        bytes += r.bytes;
        std::memcpy(r.dst, from[i].alloc->mapped ? r.src : static_cast<const char*>(s->a.mapped) + at[i], r.bytes);
    }
    count([&](BackendCounters& c) {
        c.downloads += downloads;
        c.bytes_downloaded += bytes;
    });
}

void VulkanBackend::copy_words(const Alloc& to, size_t offset, const void* from, size_t bytes, const char* what) {
    const ElementwiseArgs args{to.address + offset, addr(from, bytes / 4, what), 0, uint32_t(bytes / 4),
                               uint32_t(Elementwise::CopyBits), 0.0f, 0};
    note(to.address + offset, bytes, true);
    dispatch("elementwise", &args, sizeof args, uint32_t(std::min<size_t>((bytes / 4 + 255) / 256, 65535)), 1);
}

size_t VulkanBackend::trim() {
    const std::lock_guard lock(mem_mu_);
    for (auto& cache : cache_) {
        for (const auto& [capacity, a] : cache) destroy(a);
        cache.clear();
    }
    size_t freed = std::exchange(cached_bytes_, 0);
    // Blocks nothing is lent from (while kernels are queued, retired parts still count as lent).
    for (auto& blocks : blocks_) {
        for (auto it = blocks.begin(); it != blocks.end();) {
            Block& b = **it;
            if (b.free.size() == 1 && b.free.begin()->second == b.size) {
                vkDestroyBuffer(ctx_.device(), b.buffer, nullptr);
                vkFreeMemory(ctx_.device(), b.memory, nullptr);
                freed += b.size;
                it = blocks.erase(it);
            } else {
                ++it;
            }
        }
    }
    return freed;
}

// What alloc() lent (not the queues' own few buffers: the counters' allocations count those).
size_t VulkanBackend::memory_in_use() const {
    size_t n = 0;
    const std::lock_guard lock(mem_mu_);
    for (const auto& [base, a] : allocs_) n += a.bytes;
    return n;
}

// A buffer of `bytes`: host-visible and mapped, or (mapped false) in the device's memory.
VulkanBackend::Alloc VulkanBackend::make(size_t bytes, bool mapped) {
    Alloc a;
    a.bytes = a.capacity = bytes;
    VkBufferCreateInfo bci{VK_STRUCTURE_TYPE_BUFFER_CREATE_INFO};
    bci.size = bytes;
    bci.usage = VK_BUFFER_USAGE_STORAGE_BUFFER_BIT | VK_BUFFER_USAGE_TRANSFER_SRC_BIT |
                VK_BUFFER_USAGE_TRANSFER_DST_BIT | VK_BUFFER_USAGE_SHADER_DEVICE_ADDRESS_BIT;
    bci.sharingMode = VK_SHARING_MODE_EXCLUSIVE;
    check(vkCreateBuffer(ctx_.device(), &bci, nullptr, &a.buffer), "vkCreateBuffer");
    VkMemoryRequirements req{};
    vkGetBufferMemoryRequirements(ctx_.device(), a.buffer, &req);
    VkMemoryAllocateFlagsInfo flags{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_FLAGS_INFO};
    flags.flags = VK_MEMORY_ALLOCATE_DEVICE_ADDRESS_BIT;
    VkMemoryAllocateInfo mai{VK_STRUCTURE_TYPE_MEMORY_ALLOCATE_INFO};
    mai.pNext = &flags;
    mai.allocationSize = req.size;
    mai.memoryTypeIndex = mapped ? ctx_.host_memory_type() : ctx_.device_memory_type();
    if (!(req.memoryTypeBits & (1u << mai.memoryTypeIndex))) mai.memoryTypeIndex = ctx_.host_memory_type();
    if (VkResult r = vkAllocateMemory(ctx_.device(), &mai, nullptr, &a.memory); r != VK_SUCCESS) {
        vkDestroyBuffer(ctx_.device(), a.buffer, nullptr);
        throw std::bad_alloc();
    }
    count([&](BackendCounters& c) {
        ++c.allocations;
        c.bytes_allocated += req.size;
    });
    check(vkBindBufferMemory(ctx_.device(), a.buffer, a.memory, 0), "vkBindBufferMemory");
    if (mapped) check(vkMapMemory(ctx_.device(), a.memory, 0, VK_WHOLE_SIZE, 0, &a.mapped), "vkMapMemory");
    VkBufferDeviceAddressInfo bai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    bai.buffer = a.buffer;
    a.address = vkGetBufferDeviceAddress(ctx_.device(), &bai);
    return a;
}

void VulkanBackend::destroy(const Alloc& a) {
    if (a.block) {
        give_back(a);
        return;
    }
    vkDestroyBuffer(ctx_.device(), a.buffer, nullptr);
    vkFreeMemory(ctx_.device(), a.memory, nullptr);
}

namespace {

// Up to kPartBytes a buffer is a part of a block of kBlockBytes (a first fit in the blocks of its
// kind, parts rounded to kPartAlign); larger ones are allocations of their own, kept for reuse
// when freed by size class (a power of two up to 64 MB; larger ones are exact and not kept), up
// to kCacheBytes in all. A training step makes and frees hundreds of tensors: after the first,
// none of them allocates. Contents are not cleared (a pass writes what it reads; the tests'
// cpu-device fills fresh memory with garbage to make sure).
constexpr size_t kBlockBytes = size_t(64) << 20, kPartBytes = size_t(16) << 20, kPartAlign = 256;
constexpr size_t kCacheBytes = size_t(128) << 20, kLargestClass = size_t(64) << 20;

size_t size_class(size_t bytes) {
    if (bytes > kLargestClass) return bytes;
    size_t c = 256;
    while (c < bytes) c <<= 1;
    return c;
}

}  // namespace

std::optional<VulkanBackend::Alloc> VulkanBackend::from_blocks(size_t bytes, bool mapped) {
    if (bytes > kPartBytes) return std::nullopt;
    const size_t len = (bytes + kPartAlign - 1) / kPartAlign * kPartAlign;
    auto& blocks = blocks_[mapped ? 1 : 0];
    const auto take = [&](Block& b) -> std::optional<Alloc> {
        for (auto it = b.free.begin(); it != b.free.end(); ++it) {
            if (it->second < len) continue;
            const size_t off = it->first, rest = it->second - len;
            b.free.erase(it);
            if (rest) b.free.emplace(off + len, rest);
            Alloc a;
            a.buffer = b.buffer;
            a.mapped = b.mapped ? static_cast<char*>(b.mapped) + off : nullptr;
            a.bytes = bytes;
            a.capacity = len;
            a.address = b.address + off;
            a.block = &b;
            a.offset = off;
            return a;
        }
        return std::nullopt;
    };
    for (auto& b : blocks)
        if (auto a = take(*b)) return a;
    const Alloc whole = make(kBlockBytes, mapped);
    auto b = std::make_unique<Block>();
    b->buffer = whole.buffer;
    b->memory = whole.memory;
    b->mapped = whole.mapped;
    b->address = whole.address;
    b->size = kBlockBytes;
    b->free.emplace(0, kBlockBytes);
    blocks.push_back(std::move(b));
    return take(*blocks.back());
}

void VulkanBackend::give_back(const Alloc& a) {
    auto& free = a.block->free;
    size_t off = a.offset, len = a.capacity;
    auto next = free.lower_bound(off);
    if (next != free.begin()) {
        auto prev = std::prev(next);
        if (prev->first + prev->second == off) {
            off = prev->first;
            len += prev->second;
            free.erase(prev);
        }
    }
    if (next != free.end() && off + len == next->first) {
        len += next->second;
        free.erase(next);
    }
    free.emplace(off, len);
}

VulkanBackend::Alloc VulkanBackend::obtain(size_t bytes, bool mapped) {
    if (auto part = from_blocks(bytes, mapped)) return *part;
    const size_t cls = size_class(bytes);
    auto& cache = cache_[mapped ? 1 : 0];
    Alloc a;
    if (auto it = cache.find(cls); it != cache.end()) {
        a = it->second;
        cache.erase(it);
        cached_bytes_ -= a.capacity;
    } else {
        a = make(cls, mapped);
    }
    a.bytes = bytes;
    return a;
}

void VulkanBackend::recycle(const Alloc& a) {
    if (a.block) {
        give_back(a);
        return;
    }
    if (a.capacity > kLargestClass || cached_bytes_ + a.capacity > kCacheBytes) {
        destroy(a);
        return;
    }
    cache_[a.mapped ? 1 : 0].emplace(a.capacity, a);
    cached_bytes_ += a.capacity;
}

// The allocation holding [p, p + bytes), or a logic_error naming the call. The Alloc pointed to
// stays while its memory is lent (a map's nodes do not move).
VulkanBackend::Span VulkanBackend::find(const void* p, size_t bytes, const char* what) const {
    const auto u = reinterpret_cast<uintptr_t>(p);
    const std::lock_guard lock(mem_mu_);
    auto it = allocs_.upper_bound(u);
    if (it == allocs_.begin()) throw std::logic_error(std::string("gpu: ") + what + " is not in the backend's memory");
    --it;
    const size_t off = size_t(u - it->first);
    if (off + bytes > it->second.bytes)
        throw std::logic_error(std::string("gpu: ") + what + " is not in the backend's memory or runs past its allocation");
    return Span{&it->second, off};
}

VkDeviceAddress VulkanBackend::address(const void* p, size_t floats, const char* what, bool write) {
    if (!p) return 0;
    const size_t bytes = floats * sizeof(float);
    // A scalar slot (host-visible, outside the table: its mapped address and the device
    // addresses the table holds may be from different spaces).
    const Alloc& scalars = q().scalars;
    const auto u = reinterpret_cast<uintptr_t>(p), base = reinterpret_cast<uintptr_t>(scalars.mapped);
    if (u >= base && u + bytes <= base + scalars.bytes) {
        const VkDeviceAddress a = scalars.address + (u - base);
        note(a, bytes, write);
        return a;
    }
    const Span s = find(p, bytes, what);
    const VkDeviceAddress a = s.alloc->address + s.offset;
    note(a, bytes, write);
    return a;
}

}  // namespace stepformer::vk
