// Declining kernels (backend_ops.h, Backend::supports and run_elsewhere): a backend that leaves
// a kernel to the interface's default gets the CPU's numbers for it, bit for bit, whether its
// memory is the host's or its own; and the backends that compute for real say they compute
// every kernel.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "copy_backend.h"
#include "model_cases.h"
#include "stepformer/backend.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/train.h"

namespace {

using namespace stepformer;
using stepformer::testing::model_config;
using stepformer::testing::sentence_batch;

// The smallest backend there is: a name, and nothing computed itself.
class NothingBackend final : public Backend {
public:
    std::string name() const override { return "nothing"; }
    std::string describe() const override { return "nothing (every kernel on the CPU)"; }
    void sync() override {}
};

const std::vector<KernelFamily> kFamilies = {
    KernelFamily::Linear, KernelFamily::Embedding, KernelFamily::Attention,
    KernelFamily::Rows,   KernelFamily::Elementwise, KernelFamily::Loss,
    KernelFamily::Inputs, KernelFamily::Optimizer,   KernelFamily::Reduction,
};

TEST(KernelList, EveryFamilyHasKernelsAndEveryKernelANameAndFamily) {
    std::set<KernelFamily> used;
    std::set<std::string> names;
    for (int k = 0; k < kKernelCount; ++k) {
        const Kernel kernel = static_cast<Kernel>(k);
        EXPECT_TRUE(names.insert(kernel_name(kernel)).second) << kernel_name(kernel);
        used.insert(kernel_family(kernel));
    }
    EXPECT_EQ(used.size(), kFamilies.size());
    std::set<std::string> family_names;
    for (KernelFamily f : kFamilies) EXPECT_TRUE(family_names.insert(family_name(f)).second) << family_name(f);
}

TEST(KernelFallback, TheRealBackendsComputeEveryKernelThemselves) {
    for (const std::string& name : available_backends()) {
        std::unique_ptr<Backend> be;
        try {
            be = make_backend(name, 1);
        } catch (const std::exception& e) {
            ADD_FAILURE() << name << " is registered but cannot be made: " << e.what();
            continue;
        }
        for (int k = 0; k < kKernelCount; ++k)
            EXPECT_TRUE(be->supports(static_cast<Kernel>(k))) << name << " declines " << kernel_name(Kernel(k));
    }
    NothingBackend nothing;
    for (int k = 0; k < kKernelCount; ++k) EXPECT_FALSE(nothing.supports(static_cast<Kernel>(k)));
}

// One model's forward, loss and backward on `be`: every traced value and every gradient.
struct Pass {
    std::vector<std::vector<float>> values;
    std::vector<std::vector<float>> grads;
    float loss = 0;
};
Pass run_pass(const std::string& which, Backend& be) {
    Config c = model_config(which);
    c.dropout = 0.1;  // dropout masks and their kernels too
    const Transformer model(c, init_params(c, 11), &be);
    const Batch batch = sentence_batch(c);
    Trace t;
    ForwardOptions fo;
    fo.train = true;
    fo.seed = 9;
    model.forward(batch, t, fo);
    Pass p;
    p.loss = model.loss(batch, t);
    ParamSet grads;
    model.backward(batch, t, grads, false);
    for (const TraceEntry& e : t.entries()) p.values.push_back(e.value.data);
    for (size_t i = 0; i < grads.size(); ++i) p.grads.push_back(grads[i].data);
    return p;
}

void expect_same(const Pass& a, const Pass& b, const std::string& what) {
    EXPECT_EQ(a.loss, b.loss) << what;
    ASSERT_EQ(a.values.size(), b.values.size()) << what;
    for (size_t i = 0; i < a.values.size(); ++i) EXPECT_EQ(a.values[i], b.values[i]) << what << ", value " << i;
    ASSERT_EQ(a.grads.size(), b.grads.size()) << what;
    for (size_t i = 0; i < a.grads.size(); ++i) EXPECT_EQ(a.grads[i], b.grads[i]) << what << ", gradient " << i;
}

TEST(KernelFallback, ABackendThatComputesNothingItselfGivesTheCpusNumbers) {
    const std::unique_ptr<Backend> cpu = make_cpu_backend();
    NothingBackend nothing;
    for (const std::string which : {"tutorial", "torch", "aiayn"})
        expect_same(run_pass(which, *cpu), run_pass(which, nothing), which);
}

class DeclinedFamily : public ::testing::TestWithParam<KernelFamily> {};

TEST_P(DeclinedFamily, FallsBackToTheCpuThroughTheDevicesOwnMemory) {
    const KernelFamily f = GetParam();
    const std::unique_ptr<Backend> cpu = make_cpu_backend();
    const std::unique_ptr<Backend> all = stepformer::testing::make_device_backend(0);
    const std::unique_ptr<Backend> some = stepformer::testing::make_device_backend_declining(0, {f});
    for (int k = 0; k < kKernelCount; ++k)
        EXPECT_EQ(some->supports(Kernel(k)), kernel_family(Kernel(k)) != f) << kernel_name(Kernel(k));
    for (const std::string which : {"tutorial", "torch", "aiayn"}) {
        const size_t down_all = stepformer::testing::device_bytes_downloaded(*all);
        const size_t down_some = stepformer::testing::device_bytes_downloaded(*some);
        const Pass ref = run_pass(which, *cpu);
        expect_same(ref, run_pass(which, *all), which + " on the device");
        expect_same(ref, run_pass(which, *some), which + " on the device declining " + family_name(f));
        // The declined kernels' inputs crossed to the host: more was downloaded than by the
        // device that computes everything (the optimizer's kernels are not in this pass).
        if (f != KernelFamily::Optimizer) {
            EXPECT_GT(stepformer::testing::device_bytes_downloaded(*some) - down_some,
                      stepformer::testing::device_bytes_downloaded(*all) - down_all)
                << which;
        }
    }
    EXPECT_EQ(stepformer::testing::device_live_bytes(*some), 0u) << "the fallback leaked device memory";
}

// Training steps with the optimizer's kernels on the fallback: the losses of later steps read
// the weights the earlier steps updated.
TEST_P(DeclinedFamily, TrainingStepsGiveTheCpusLosses) {
    const auto losses = [](Backend& be) {
        const Config c = model_config("torch");
        Transformer model(c, init_params(c, 4), &be);
        const Batch batch = sentence_batch(c);
        OptimizerOptions oo;
        oo.kind = OptimizerKind::Adam;
        Optimizer opt(oo, model.params());
        std::vector<double> out;
        Trace t;
        ParamSet grads;
        for (int step = 0; step < 3; ++step) out.push_back(train_step(model, batch, t, grads, opt));
        return out;
    };
    const std::unique_ptr<Backend> cpu = make_cpu_backend();
    const std::unique_ptr<Backend> some = stepformer::testing::make_device_backend_declining(0, {GetParam()});
    const std::vector<double> want = losses(*cpu);
    EXPECT_EQ(want, losses(*some));
    EXPECT_NE(want.front(), want.back()) << "the steps changed nothing: the test would not see a wrong update";
}

INSTANTIATE_TEST_SUITE_P(Families, DeclinedFamily, ::testing::ValuesIn(kFamilies),
                         [](const ::testing::TestParamInfo<KernelFamily>& i) {
                             return std::string(family_name(i.param));
                         });

}  // namespace
