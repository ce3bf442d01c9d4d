// stepformer/heap.h: a hold on the speed policy applies it whatever the process chose, the chosen
// policy comes back with the last hold, and a choice made meanwhile waits for it. Checked by what
// glibc does with a 48 MB block: its own mapping under the memory policy, the heap's under speed.
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include "stepformer/heap.h"

using namespace stepformer;

namespace {

#if defined(__GLIBC__)
// Whether glibc serves a 48 MB block from a mapping of its own (the memory policy's 1 MB
// threshold) rather than from the heap (the speed policy's 64 MB). The heap's free memory goes
// first: glibc serves a block from a free chunk that fits, whatever the threshold.
bool mapped_on_its_own() {
    release_free_memory();
    const size_t before = mallinfo2().hblks;
    void* volatile p = std::malloc(48 << 20);  // volatile: a malloc freed unused may be elided
    const bool own = mallinfo2().hblks > before;
    std::free(p);
    return own;
}
#endif

struct Restore {
    ~Restore() { set_heap_policy(HeapPolicy::Speed); }  // the test binary's default
};

}  // namespace

TEST(HeapPolicy, AHoldAppliesSpeedUntilItsLastCopyGoes) {
    const Restore restore;
    set_heap_policy(HeapPolicy::Memory);
    EXPECT_EQ(heap_policy_in_effect(), HeapPolicy::Memory);
#if defined(__GLIBC__)
    EXPECT_TRUE(mapped_on_its_own());
#endif
    std::shared_ptr<const void> hold = hold_speed_heap();
    std::shared_ptr<const void> copy = hold;
    std::shared_ptr<const void> second = hold_speed_heap();
    EXPECT_EQ(heap_policy_in_effect(), HeapPolicy::Speed);
#if defined(__GLIBC__)
    EXPECT_FALSE(mapped_on_its_own());
#endif
    hold.reset();
    second.reset();
    EXPECT_EQ(heap_policy_in_effect(), HeapPolicy::Speed);  // a copy of the first still holds
    copy.reset();
    EXPECT_EQ(heap_policy_in_effect(), HeapPolicy::Memory);
#if defined(__GLIBC__)
    EXPECT_TRUE(mapped_on_its_own());
#endif
}

TEST(HeapPolicy, AChoiceMadeDuringAHoldWaitsForItsEnd) {
    const Restore restore;
    set_heap_policy(HeapPolicy::Speed);
    std::shared_ptr<const void> hold = hold_speed_heap();
    set_heap_policy(HeapPolicy::Memory);
    EXPECT_EQ(heap_policy_in_effect(), HeapPolicy::Speed);
    hold.reset();
    EXPECT_EQ(heap_policy_in_effect(), HeapPolicy::Memory);
}
