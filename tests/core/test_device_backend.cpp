// The "cpu-device" test backend (copy_backend.h) itself: that it rejects what a GPU could not
// run (host pointers, ranges past an allocation, unknown releases), defers its kernels to
// sync(), and counts what the model's tests read from it (waits, live bytes).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "copy_backend.h"
#include "stepformer/backend.h"
#include "stepformer/staging.h"
#include "stepformer/tensor.h"

using namespace stepformer;
using stepformer::testing::device_live_bytes;
using stepformer::testing::device_sync_waits;
using stepformer::testing::reset_device_sync_waits;

namespace {

std::unique_ptr<Backend> device() { return stepformer::testing::make_device_backend(1); }

// Runs f, expecting a std::logic_error whose message contains `part`.
template <class F>
void expect_logic_error(F f, const std::string& part) {
    try {
        f();
    } catch (const std::logic_error& e) {
        EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << "message: " << e.what();
        return;
    }
    ADD_FAILURE() << "no std::logic_error (wanted one saying \"" << part << "\")";
}

// n floats in the backend's memory, holding `values`.
float* upload(Backend& be, const std::vector<float>& values) {
    auto* d = static_cast<float*>(be.alloc(values.size() * sizeof(float)));
    be.upload(d, values.data(), values.size() * sizeof(float));
    return d;
}
std::vector<float> download(Backend& be, const float* d, size_t n) {
    std::vector<float> v(n);
    be.download(v.data(), d, n * sizeof(float));
    return v;
}

}  // namespace

TEST(DeviceBackend, IsRegisteredBesideTheOthers) {
    const auto names = stepformer::testing::registered_backends();
    for (const char* n : {"cpu", "cpu-copy", "cpu-device"})
        EXPECT_NE(std::find(names.begin(), names.end(), n), names.end()) << n;
    auto be = make_backend("cpu-device", 1);
    EXPECT_EQ(be->name(), "cpu-device");
    EXPECT_FALSE(be->host_memory());
    EXPECT_NE(be->describe().find("own memory, deferred"), std::string::npos) << be->describe();
    EXPECT_TRUE(make_backend("cpu-copy", 1)->host_memory());
    EXPECT_THROW(device_sync_waits(*make_backend("cpu", 1)), std::invalid_argument);
    EXPECT_THROW(device_live_bytes(*make_backend("cpu-copy", 1)), std::invalid_argument);
}

TEST(DeviceBackend, KernelGivenAHostPointerThrowsNamingTheArgument) {
    auto be = device();
    std::vector<float> host(8, 1.0f);
    float* d = upload(*be, host);
    expect_logic_error([&] { be->relu_forward(d, host.data(), 8); },
                       "relu_forward: argument in is not in the backend's memory (a host pointer?)");
    expect_logic_error([&] { be->relu_forward(host.data(), d, 8); },
                       "relu_forward: argument out is not in the backend's memory (a host pointer?)");
    // The optimizer's state is checked too, not only the kernel's own arguments.
    std::vector<float> buf(8);
    WeightUpdate upd;
    upd.buf1 = buf.data();
    expect_logic_error([&] { be->apply_update(d, d, 8, upd); }, "apply_update: argument upd.buf1 is not in");
    be->release(d);
}

TEST(DeviceBackend, ArgumentThatRunsPastItsAllocationThrows) {
    auto be = device();
    float* a = upload(*be, std::vector<float>(4, 2.0f));
    float* b = upload(*be, std::vector<float>(8, 0.0f));
    expect_logic_error([&] { be->relu_forward(b, a, 8); }, "relu_forward: argument in runs past its allocation");
    expect_logic_error([&] { be->fill(a + 2, 3, 0.0f); }, "fill: argument x runs past its allocation");
    // Inside, at an offset: fine.
    be->fill(a + 2, 2, 5.0f);
    EXPECT_EQ(download(*be, a, 4), (std::vector<float>{2, 2, 5, 5}));
    be->release(a);
    be->release(b);
}

TEST(DeviceBackend, NullOnlyWhereTheInterfaceAllowsIt) {
    auto be = device();
    float* x = upload(*be, {1, -2, 3});
    float* y = static_cast<float*>(be->alloc(3 * sizeof(float)));
    be->positional_forward(y, x, x, nullptr, 1, 1, 3);  // keep is optional
    expect_logic_error([&] { be->relu_forward(y, nullptr, 3); }, "relu_forward: argument in is null");
    be->relu_forward(nullptr, nullptr, 0);  // nothing to touch
    be->sync();
    EXPECT_EQ(download(*be, y, 3), (std::vector<float>{2, -4, 6}));
    be->release(x);
    be->release(y);
}

TEST(DeviceBackend, ResultsAppearOnlyAfterSync) {
    auto be = device();
    float* x = upload(*be, {1, 2, 3});
    double acc = 0.5;  // a host scalar, by contract
    be->sum_squares(&acc, x, 3);
    EXPECT_EQ(acc, 0.5);  // queued, not run
    be->sync();
    EXPECT_EQ(acc, 14.5);

    // Device outputs: a download waits for the kernels queued before it.
    float* y = static_cast<float*>(be->alloc(3 * sizeof(float)));
    be->fill(y, 3, 7.0f);
    be->relu_forward(y, x, 3);
    EXPECT_EQ(download(*be, y, 3), (std::vector<float>{1, 2, 3}));

    // Cross-entropy's scalars likewise.
    float* probs = upload(*be, {0.25f, 0.75f});
    int* targets = static_cast<int*>(be->alloc(sizeof(int)));
    const int t = 1;
    be->upload(targets, &t, sizeof(int));
    float* losses = static_cast<float*>(be->alloc(sizeof(float)));
    float mean = -1.0f;
    int counted = -1;
    be->cross_entropy_forward(losses, &mean, &counted, probs, targets, 1, 2, -100);
    EXPECT_EQ(mean, -1.0f);
    EXPECT_EQ(counted, -1);
    be->sync();
    EXPECT_EQ(counted, 1);
    EXPECT_FLOAT_EQ(mean, -std::log(0.75f));
    for (void* p : {static_cast<void*>(x), static_cast<void*>(y), static_cast<void*>(probs),
                    static_cast<void*>(targets), static_cast<void*>(losses)})
        be->release(p);
}

TEST(DeviceBackend, UploadTakesTheHostBytesWhenCalled) {
    auto be = device();
    std::vector<float> host = {1, 2, 3};
    float* d = static_cast<float*>(be->alloc(3 * sizeof(float)));
    be->upload(d, host.data(), 3 * sizeof(float));
    host = {9, 9, 9};  // the caller reuses its buffer before the queue runs
    EXPECT_EQ(download(*be, d, 3), (std::vector<float>{1, 2, 3}));
    be->release(d);
}

TEST(DeviceBackend, CopiesCheckTheirDeviceRange) {
    auto be = device();
    std::vector<float> host(4);
    float* d = static_cast<float*>(be->alloc(2 * sizeof(float)));
    expect_logic_error([&] { be->upload(host.data(), host.data(), 4); }, "upload");
    expect_logic_error([&] { be->upload(d, host.data(), 4 * sizeof(float)); }, "upload: argument dst runs past");
    expect_logic_error([&] { be->download(host.data(), d, 3 * sizeof(float)); }, "download: argument src runs past");
    expect_logic_error([&] { be->download(d, d, sizeof(float)); }, "download: argument dst is in the backend's memory");
    be->release(d);
}

TEST(DeviceBackend, ReleaseChecksThePointer) {
    auto be = device();
    be->release(nullptr);
    std::vector<float> host(4);
    expect_logic_error([&] { be->release(host.data()); }, "release");
    auto* d = static_cast<float*>(be->alloc(4 * sizeof(float)));
    expect_logic_error([&] { be->release(d + 1); }, "release");
    be->release(d);
    expect_logic_error([&] { be->release(d); }, "release");  // twice
}

TEST(DeviceBackend, GuardZonesCatchAWriteOutsideAnAllocation) {
    auto be = device();
    auto* d = static_cast<float*>(be->alloc(4 * sizeof(float)));
    d[4] = 1.0f;  // what a kernel that overruns would do (the memory is the host's underneath)
    expect_logic_error([&] { be->sync(); }, "sync: something wrote outside an allocation of 16 bytes");
    expect_logic_error([&] { be->release(d); }, "release: something wrote outside an allocation of 16 bytes");
    EXPECT_EQ(device_live_bytes(*be), 0u);  // released all the same
}

TEST(DeviceBackend, LiveBytesReturnToZero) {
    auto be = device();
    EXPECT_EQ(device_live_bytes(*be), 0u);
    void* a = be->alloc(100);
    void* b = be->alloc(28);
    void* c = be->alloc(0);
    EXPECT_NE(c, nullptr);
    EXPECT_EQ(device_live_bytes(*be), 128u);
    EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 64, 0u);
    be->release(a);
    EXPECT_EQ(device_live_bytes(*be), 28u);
    be->release(b);
    be->release(c);
    EXPECT_EQ(device_live_bytes(*be), 0u);
}

TEST(DeviceBackend, CountsOneWaitPerSyncWithWork) {
    auto be = device();
    float* x = upload(*be, {1, 2});
    be->sync();
    reset_device_sync_waits(*be);
    be->sync();  // nothing queued
    EXPECT_EQ(device_sync_waits(*be), 0u);
    be->fill(x, 2, 0.0f);
    be->relu_forward(x, x, 2);
    be->sync();
    EXPECT_EQ(device_sync_waits(*be), 1u);
    be->sync();
    EXPECT_EQ(device_sync_waits(*be), 1u);
    be->fill(x, 2, 3.0f);
    EXPECT_EQ(download(*be, x, 2), (std::vector<float>{3, 3}));  // a download waits too
    EXPECT_EQ(device_sync_waits(*be), 2u);
    download(*be, x, 2);
    EXPECT_EQ(device_sync_waits(*be), 2u);
    be->release(x);
    reset_device_sync_waits(*be);
    EXPECT_EQ(device_sync_waits(*be), 0u);
}

TEST(DeviceBackend, StagingMovesAPassThroughIt) {
    auto be = device();
    Tensor x({2, 2}, std::vector<float>{1, -2, 3, -4}), y({2, 2});
    double ss = 0.0;
    {
        Staging st(*be);
        EXPECT_FALSE(st.passthrough());
        float* dy = st.out(y);
        be->relu_forward(dy, st.in(x), 4);
        be->sum_squares(&ss, dy, 4);
        expect_logic_error([&] { be->relu_forward(dy, x.ptr(), 4); }, "argument in is not in the backend's memory");
        EXPECT_EQ(y.data, (std::vector<float>{0, 0, 0, 0}));  // nothing copied back yet
        reset_device_sync_waits(*be);
        st.finish();
        EXPECT_EQ(device_sync_waits(*be), 1u);
        EXPECT_GT(device_live_bytes(*be), 0u);
    }
    EXPECT_EQ(y.data, (std::vector<float>{1, 0, 3, 0}));
    EXPECT_EQ(ss, 10.0);
    EXPECT_EQ(device_live_bytes(*be), 0u);  // the staging released what it held
}
