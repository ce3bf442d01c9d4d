// Switching steps in the app: the time from setCurrentStep() to the repainted window, at the
// tutorial's size (d_model 512, 8 heads), for each kind of view. Runs offscreen.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QTemporaryDir>

#include "main_window.h"

namespace {

MainWindow* g_window = nullptr;

void switch_steps(benchmark::State& state, const char* view, std::vector<QString> steps) {
    g_window->setFollowStep(false);
    g_window->setCurrentView(QString::fromLatin1(view));
    size_t i = 0;
    for (auto _ : state) {
        g_window->setCurrentStep(steps[i++ % steps.size()]);
        g_window->repaint();  // synchronous paint of everything visible
    }
}

void BM_StepSwitch_Tensor(benchmark::State& s) {
    switch_steps(s, "tensor", {"encoder.layers.0.enc_self_attn.scores", "encoder.layers.0.pos_ffn.hidden",
                               "decoder.layers.5.dec_enc_attn.attn", "decoder.layers.5.pos_ffn.out"});
}
void BM_StepSwitch_Attention(benchmark::State& s) {
    switch_steps(s, "attention", {"encoder.layers.0.enc_self_attn.attn", "decoder.layers.5.dec_enc_attn.attn"});
}
void BM_StepSwitch_Masks(benchmark::State& s) {
    switch_steps(s, "masks", {"decoder.layers.0.dec_self_attn.masked_scores", "encoder.layers.3.enc_self_attn.masked_scores"});
}
BENCHMARK(BM_StepSwitch_Tensor)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepSwitch_Attention)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StepSwitch_Masks)->Unit(benchmark::kMillisecond);

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    QTemporaryDir cache;
    MainWindow::Options opt;
    opt.restoreSettings = false;
    opt.saveSettings = false;
    opt.preset = Session::Preset::Untrained;  // the tutorial's size; no training needed to time painting
    opt.cacheDir = cache.path();
    MainWindow window(opt);
    window.resize(1440, 900);
    window.show();
    QApplication::processEvents();
    g_window = &window;
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
