// Switching steps in the app at the tutorial's size (d_model 512, 8 heads), for each kind of
// view, offscreen, in a 1440 x 900 window:
//  - BM_StepSwitch/<view>: setCurrentStep(), then what the event loop does next: the layouts,
//    the repaint of what changed, the deletion of replaced widgets. What a student waits for.
//  - BM_StepSwitchFullRepaint/<view>: setCurrentStep(), then a synchronous repaint of the whole
//    window (menus, toolbars, docks and all): the worst case.
// The "paints" counter is the number of widgets painted per switch.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QEvent>
#include <QTemporaryDir>

#include "main_window.h"

namespace {

MainWindow* g_window = nullptr;

struct PaintCounter : QObject {
    long paints = 0;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) ++paints;
        return false;
    }
};

// Runs what the event loop would run after the step change (posted events may post more).
void settle() {
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents();
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

void switch_steps(benchmark::State& state, const char* view, const std::vector<QString>& steps, bool fullRepaint) {
    g_window->setFollowStep(false);
    g_window->setCurrentView(QString::fromLatin1(view));
    g_window->setCurrentStep(steps.front());
    settle();
    PaintCounter counter;
    qApp->installEventFilter(&counter);
    size_t i = 0;
    for (auto _ : state) {
        if (!g_window->setCurrentStep(steps[++i % steps.size()])) state.SkipWithError("not a step");
        if (fullRepaint)
            g_window->repaint();  // synchronous paint of everything visible
        settle();
    }
    qApp->removeEventFilter(&counter);
    state.counters["paints"] = benchmark::Counter(double(counter.paints) / double(state.iterations()));
}

const std::vector<QString> kTensorSteps{"encoder.layers.0.enc_self_attn.scores", "encoder.layers.0.pos_ffn.hidden",
                                        "decoder.layers.5.dec_enc_attn.attn", "decoder.layers.5.pos_ffn.out"};
const std::vector<QString> kAttentionSteps{"encoder.layers.0.enc_self_attn.attn", "decoder.layers.5.dec_enc_attn.attn"};
const std::vector<QString> kMaskSteps{"decoder.layers.0.dec_self_attn.masked_scores",
                                      "encoder.layers.3.enc_self_attn.masked_scores"};
const std::vector<QString> kPeSteps{"encoder.pos_emb.out", "decoder.pos_emb.out"};
const std::vector<QString> kGradientSteps{"grad.encoder.layers.0.pos_ffn.hidden", "grad.decoder.layers.5.dec_enc_attn.attn"};
// The decode and loss views do not follow the step: only the docks change.
const std::vector<QString> kOtherSteps{"encoder.layers.0.enc_self_attn.scores", "decoder.layers.5.pos_ffn.out"};

void register_all() {
    struct Case {
        const char* view;
        const std::vector<QString>* steps;
    };
    for (const Case& c : {Case{"tensor", &kTensorSteps}, Case{"attention", &kAttentionSteps}, Case{"masks", &kMaskSteps},
                          Case{"pe", &kPeSteps}, Case{"gradients", &kGradientSteps}, Case{"decode", &kOtherSteps},
                          Case{"loss", &kOtherSteps}}) {
        for (bool full : {false, true}) {
            const std::string name = std::string(full ? "BM_StepSwitchFullRepaint/" : "BM_StepSwitch/") + c.view;
            benchmark::RegisterBenchmark(name.c_str(), [c, full](benchmark::State& s) { switch_steps(s, c.view, *c.steps, full); })
                ->Unit(benchmark::kMillisecond);
        }
    }
}

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
    register_all();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
