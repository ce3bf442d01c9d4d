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
    const std::lock_guard lock(mu_);
    Alloc a = obtain(std::max<size_t>(bytes, 4), !device_memory_);
    // The address handed out: the mapped pointer, or for unmapped memory the device address
    // (never dereferenced on the host; only this backend reads it).
    const uintptr_t key = a.mapped ? reinterpret_cast<uintptr_t>(a.mapped) : uintptr_t(a.address);
    allocs_[key] = a;
    return reinterpret_cast<void*>(key);
}

void VulkanBackend::release(void* p) {
    if (!p) return;
    const std::lock_guard lock(mu_);
    auto it = allocs_.find(reinterpret_cast<uintptr_t>(p));
    if (it == allocs_.end()) throw std::logic_error("gpu: release of memory the backend did not allocate");
    if (recording_)
        retired_.push_back(it->second);  // queued kernels may still use it
    else
        recycle(it->second);
    allocs_.erase(it);
}

void VulkanBackend::upload(void* dst, const void* src, size_t bytes) {
    if (!bytes) return;
    const std::lock_guard lock(mu_);
    const Span d = find(dst, bytes, "upload");
    ++counts_.uploads;
    counts_.bytes_uploaded += bytes;
    if (!recording_ && d.alloc->mapped) {
        std::memcpy(dst, src, bytes);
        return;
    }
    // In order with the queued kernels (or into memory the host cannot see): through a
    // staging buffer and a recorded copy.
    begin();
    Alloc s = obtain(bytes, true);
    std::memcpy(s.mapped, src, bytes);
    retired_.push_back(s);
    const VkBufferCopy region{0, d.offset, bytes};
    vkCmdCopyBuffer(cb_, s.buffer, d.alloc->buffer, 1, &region);
    barrier();
}

void VulkanBackend::download(void* dst, const void* src, size_t bytes) {
    if (!bytes) return;
    const std::lock_guard lock(mu_);
    const Span from = find(src, bytes, "download");
    ++counts_.downloads;
    counts_.bytes_downloaded += bytes;
    if (from.alloc->mapped) {
        flush();
        std::memcpy(dst, src, bytes);
        return;
    }
    // Unmapped: copied into a staging buffer after the queued kernels, then to the host.
    begin();
    Alloc s = obtain(bytes, true);
    const VkBufferCopy region{from.offset, 0, bytes};
    vkCmdCopyBuffer(cb_, from.alloc->buffer, s.buffer, 1, &region);
    barrier();
    try {
        flush();
    } catch (...) {
        recycle(s);
        throw;
    }
    std::memcpy(dst, s.mapped, bytes);
    recycle(s);
}

size_t VulkanBackend::trim() {
    const std::lock_guard lock(mu_);
    for (auto& cache : cache_) {
        for (const auto& [capacity, a] : cache) destroy(a);
        cache.clear();
    }
    return std::exchange(cached_bytes_, 0);
}

size_t VulkanBackend::memory_in_use() const {
    const std::lock_guard lock(mu_);
    size_t n = scalars_ ? scalars_->bytes : 0;
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
    ++counts_.allocations;
    counts_.bytes_allocated += req.size;
    check(vkBindBufferMemory(ctx_.device(), a.buffer, a.memory, 0), "vkBindBufferMemory");
    if (mapped) check(vkMapMemory(ctx_.device(), a.memory, 0, VK_WHOLE_SIZE, 0, &a.mapped), "vkMapMemory");
    VkBufferDeviceAddressInfo bai{VK_STRUCTURE_TYPE_BUFFER_DEVICE_ADDRESS_INFO};
    bai.buffer = a.buffer;
    a.address = vkGetBufferDeviceAddress(ctx_.device(), &bai);
    return a;
}

void VulkanBackend::destroy(const Alloc& a) {
    vkDestroyBuffer(ctx_.device(), a.buffer, nullptr);
    vkFreeMemory(ctx_.device(), a.memory, nullptr);
}

namespace {

// Buffers freed are kept for reuse, by size class (a power of two from 256 bytes to 64 MB;
// larger ones are exact and not kept) and by kind (mapped or not), up to kCacheBytes in all:
// allocating device memory is slow, and drivers allow a few thousand allocations at once,
// while a pass makes and frees hundreds of tensors. Contents are not cleared (a pass writes
// what it reads; the tests' cpu-device fills fresh memory with garbage to make sure).
constexpr size_t kCacheBytes = size_t(128) << 20, kLargestClass = size_t(64) << 20;

size_t size_class(size_t bytes) {
    if (bytes > kLargestClass) return bytes;
    size_t c = 256;
    while (c < bytes) c <<= 1;
    return c;
}

}  // namespace

VulkanBackend::Alloc VulkanBackend::obtain(size_t bytes, bool mapped) {
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
    if (a.capacity > kLargestClass || cached_bytes_ + a.capacity > kCacheBytes) {
        destroy(a);
        return;
    }
    cache_[a.mapped ? 1 : 0].emplace(a.capacity, a);
    cached_bytes_ += a.capacity;
}

// The allocation holding [p, p + bytes), or a logic_error naming the call.
VulkanBackend::Span VulkanBackend::find(const void* p, size_t bytes, const char* what) const {
    const auto u = reinterpret_cast<uintptr_t>(p);
    auto it = allocs_.upper_bound(u);
    if (it == allocs_.begin()) throw std::logic_error(std::string("gpu: ") + what + " is not in the backend's memory");
    --it;
    const size_t off = size_t(u - it->first);
    if (off + bytes > it->second.bytes)
        throw std::logic_error(std::string("gpu: ") + what + " is not in the backend's memory or runs past its allocation");
    return Span{&it->second, off};
}

VkDeviceAddress VulkanBackend::addr(const void* p, size_t floats, const char* what) const {
    if (!p) return 0;
    // A scalar slot (host-visible, outside the table: its mapped address and the device
    // addresses the table holds may be from different spaces).
    if (scalars_) {
        const auto u = reinterpret_cast<uintptr_t>(p), base = reinterpret_cast<uintptr_t>(scalars_->mapped);
        if (u >= base && u + floats * sizeof(float) <= base + scalars_->bytes) return scalars_->address + (u - base);
    }
    const Span s = find(p, floats * sizeof(float), what);
    return s.alloc->address + s.offset;
}

}  // namespace stepformer::vk
