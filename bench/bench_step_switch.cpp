// Switching steps in the app at the tutorial's size (d_model 512, 8 heads), for each kind of
// view, offscreen, in a 1440 x 900 window:
//  - BM_StepSwitch/<view>: setCurrentStep(), then what the event loop does next: the layouts,
//    the repaint of what changed, the deletion of replaced widgets. What a student waits for.
//  - BM_StepNext/<view>: the "next step" action (→, or play) through the whole pass, forward (the
//    backward pass for the gradients view), with that view shown. What a student stepping waits for.
//  - BM_StepSwitchFullRepaint/<view>: setCurrentStep(), then a synchronous repaint of the whole
//    window (menus, toolbars, docks and all): the worst case.
//  - BM_Zoom/<view>/<width>/<height>: View › Zoom In or Zoom Out, then a synchronous repaint: every widget
//    lays out and paints again in the new font.
//  - BM_ShowView/<view>: the view shown (View menu) while the tensor view was, then a synchronous
//    repaint of the window: its layout and first paint.
// The "paints" counter is the number of widgets painted per switch.
//  - BM_TrainDockStep/<snapshots>: a training step as the Train dock runs it (below).
// With STEPFORMER_EVENT_PROFILE=1 in the environment, each benchmark also prints where the time
// of its switches went: per widget class and event type (paint, layout, ...), and in setCurrentStep.
#include <benchmark/benchmark.h>

#include <QAction>
#include <QApplication>
#include <QElapsedTimer>
#include <QEvent>
#include <QEventLoop>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <utility>

#include "app/main_window.h"
#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "steps/step_navigator.h"
#include "training/training_controller.h"

namespace {

MainWindow* g_window = nullptr;

// Times every event delivered to a widget, by (class, event type). Nested deliveries are counted
// in both (a layout request that triggers a resize event), so the rows overlap.
class ProfilingApp : public QApplication {
public:
    using QApplication::QApplication;
    bool enabled = false;
    std::map<std::pair<std::string, int>, std::pair<double, long>> totals;  // ms, count

    bool notify(QObject* receiver, QEvent* e) override {
        if (!enabled || !receiver->isWidgetType()) return QApplication::notify(receiver, e);
        const int type = e->type();
        // Named before delivery: the receiver may be deleted by the event. Plain widgets (viewports,
        // containers) and scroll bars are named after their parent.
        std::string cls = receiver->metaObject()->className();
        QObject* owner = receiver->parent();
        if (cls == "QScrollBar" && owner && owner->parent()) owner = owner->parent();  // past the scroll bar container
        if ((cls == "QWidget" || cls == "QScrollBar") && owner) {
            cls.append(" in ").append(owner->metaObject()->className()).append(" ");
            cls.append(owner->objectName().toStdString());
        } else if ((cls == "QLabel" || cls == "WrappedLabel") && !receiver->objectName().isEmpty()) {
            cls.append(" ").append(receiver->objectName().toStdString());
        } else if ((cls == "QLabel" || cls == "WrappedLabel") && owner) {
            cls.append(" in ").append(owner->metaObject()->className());
        }
        QElapsedTimer t;
        t.start();
        const bool r = QApplication::notify(receiver, e);
        auto& slot = totals[{cls, type}];
        slot.first += double(t.nsecsElapsed()) * 1e-6;
        ++slot.second;
        return r;
    }

    void report(const char* name, long switches, double stepMs) {
        std::vector<std::pair<double, std::string>> rows;
        for (const auto& [key, v] : totals)
            rows.push_back({v.first, key.first + " event " + std::to_string(key.second) + " x" + std::to_string(v.second)});
        std::sort(rows.rbegin(), rows.rend());
        std::printf("--- %s: per switch, setCurrentStep %.2f ms; events:\n", name, stepMs / double(switches));
        for (size_t i = 0; i < std::min<size_t>(rows.size(), 25); ++i)
            std::printf("%8.3f ms  %s\n", rows[i].first / double(switches), rows[i].second.c_str());
        totals.clear();
    }
};

ProfilingApp* g_app = nullptr;

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

// The timed loop: `advance` changes the step (false: not a step), then the event loop settles.
// Counts the paints, and with STEPFORMER_EVENT_PROFILE=1 reports where the time went.
void time_switches(benchmark::State& state, const char* view, const std::function<bool()>& advance, bool fullRepaint) {
    PaintCounter counter;
    qApp->installEventFilter(&counter);
    const bool profile = qEnvironmentVariableIntValue("STEPFORMER_EVENT_PROFILE") != 0;
    g_app->enabled = profile;
    double stepMs = 0;
    for (auto _ : state) {
        QElapsedTimer t;
        t.start();
        if (!advance()) state.SkipWithError("not a step");
        stepMs += double(t.nsecsElapsed()) * 1e-6;
        if (fullRepaint)
            g_window->repaint();  // synchronous paint of everything visible
        settle();
    }
    g_app->enabled = false;
    if (profile) g_app->report(view, long(state.iterations()), stepMs);
    qApp->removeEventFilter(&counter);
    state.counters["paints"] = benchmark::Counter(double(counter.paints) / double(state.iterations()));
}

void switch_steps(benchmark::State& state, const char* view, const std::vector<QString>& steps, bool fullRepaint) {
    g_window->setFollowStep(false);
    g_window->setCurrentView(QString::fromLatin1(view));
    g_window->setCurrentStep(steps.front());
    settle();
    size_t i = 0;
    time_switches(state, view, [&] { return g_window->setCurrentStep(steps[++i % steps.size()]); }, fullRepaint);
}

void step_next(benchmark::State& state, const char* view) {
    const bool backward = QLatin1String(view) == QLatin1String("gradients");
    g_window->setFollowStep(false);
    g_window->setCurrentView(QString::fromLatin1(view));
    StepNavigator* nav = g_window->navigator();
    if (backward) nav->setBackward(true);
    nav->goFirst();
    settle();
    time_switches(
        state, view,
        [nav] {
            if (nav->currentPosition() + 1 >= nav->stepCount()) nav->goFirst();
            else nav->goNext();
            return true;
        },
        false);
    if (backward) nav->setBackward(false);
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

// Showing a view (from the tensor view, which is shown again between iterations, untimed): its
// layout and first paint after the window was showing another one. What the View menu costs.
void show_view(benchmark::State& state, const char* view) {
    g_window->setFollowStep(false);
    const QString name = QString::fromLatin1(view), other = QStringLiteral("tensor");
    bool shown = false;
    time_switches(
        state, view,
        [&] {
            if (shown) {
                state.PauseTiming();
                g_window->setCurrentView(other);
                g_window->repaint();
                settle();
                state.ResumeTiming();
            }
            shown = true;
            g_window->setCurrentView(name);
            return true;
        },
        true);
}

// View › Zoom In then Zoom Out (alternating; every iteration one of them) on a view, in a window of
// the given size: the application font changes, every widget lays out and repaints.
void zoom_steps(benchmark::State& state, const char* view) {
    g_window->setFollowStep(false);
    g_window->setCurrentView(QString::fromLatin1(view));
    const QSize before = g_window->size();
    g_window->resize(int(state.range(0)), int(state.range(1)));
    settle();
    QAction* in = g_window->findChild<QAction*>(QStringLiteral("actionZoomIn"));
    QAction* out = g_window->findChild<QAction*>(QStringLiteral("actionZoomOut"));
    if (!in || !out) {
        state.SkipWithError("no zoom actions");
        return;
    }
    bool larger = false;
    time_switches(
        state, view,
        [&] {
            larger = !larger;
            (larger ? in : out)->trigger();
            return true;
        },
        true);
    if (larger) out->trigger();
    g_window->resize(before);
    settle();
}

void register_all() {
    for (const char* view : {"tensor", "gradients", "attention", "backward"}) {
        const std::string name = std::string("BM_Zoom/") + view;
        benchmark::RegisterBenchmark(name.c_str(), [view](benchmark::State& s) { zoom_steps(s, view); })
            ->Args({1440, 900})
            ->Args({1600, 1360})
            ->Args({2560, 1440})
            ->Unit(benchmark::kMillisecond);
    }
    struct Case {
        const char* view;
        const std::vector<QString>* steps;
    };
    for (const Case& c : {Case{"tensor", &kTensorSteps}, Case{"attention", &kAttentionSteps}, Case{"masks", &kMaskSteps},
                          Case{"pe", &kPeSteps}, Case{"gradients", &kGradientSteps}, Case{"decode", &kOtherSteps},
                          Case{"loss", &kOtherSteps}}) {
        if (std::string(c.view) != "tensor") {
            const std::string show = std::string("BM_ShowView/") + c.view;
            benchmark::RegisterBenchmark(show.c_str(), [c](benchmark::State& s) { show_view(s, c.view); })
                ->Unit(benchmark::kMillisecond);
        }
        const std::string next = std::string("BM_StepNext/") + c.view;
        benchmark::RegisterBenchmark(next.c_str(), [c](benchmark::State& s) { step_next(s, c.view); })
            ->Unit(benchmark::kMillisecond);
        for (bool full : {false, true}) {
            const std::string name = std::string(full ? "BM_StepSwitchFullRepaint/" : "BM_StepSwitch/") + c.view;
            benchmark::RegisterBenchmark(name.c_str(), [c, full](benchmark::State& s) { switch_steps(s, c.view, *c.steps, full); })
                ->Unit(benchmark::kMillisecond);
        }
    }
}

}  // namespace

// A training step at the tutorial's size as the Train dock runs it: TrainingController (the
// Trainer, step reports through its mailbox); a step's time is (the last report's elapsed time -
// the first's) / (steps - 1), so the start-up is not in it. Arg 0: synchronous (this thread runs
// the run and waits), without the attention snapshots, as `stepformer-cli train` runs; 1: the
// same with the snapshots the dock's replay takes after each epoch (at one step an epoch, a
// traced forward pass of the replay sentence every step); 2: as the app runs it, on the run's own
// thread, this thread having computed a pass first (as the GUI thread has: its OpenMP team stays,
// stepformer/compute_threads.h). Compare with stepformer_bench's
// BM_TrainStep_Tutorial_B2_NoParamGrads. DOCK_EPOCHS sets the run's length (default 30).
void BM_TrainDockStep(benchmark::State& state) {
    const stepformer::Config c = stepformer::Config::tutorial();
    stepformer::TrainOptions o;
    o.epochs = std::getenv("DOCK_EPOCHS") ? std::max(2, std::atoi(std::getenv("DOCK_EPOCHS"))) : 30;  // SGD, lr 1e-3, momentum 0.99, batch 2: the CLI's defaults
    const bool threaded = state.range(0) == 2;
    if (threaded) {  // a pass on this thread, as the GUI thread computes the views'
        stepformer::Transformer model(c, stepformer::init_params(c, 1));
        stepformer::Trace trace;
        model.forward(stepformer::make_training_batch(c, stepformer::builtin_examples(c), {0, 1}), trace);
    }
    for (auto _ : state) {
        TrainingController t;
        t.setSynchronous(!threaded);
        t.setAttentionSnapshots(state.range(0) == 1);
        t.setKeepOptimizerState(false);
        double first = -1.0, last = 0.0;
        int steps = 0;
        QObject::connect(&t, &TrainingController::stepReported, [&](const TrainingStep& s) {
            if (first < 0.0) first = s.elapsedS;
            last = s.elapsedS;
            ++steps;
        });
        QEventLoop loop;
        QObject::connect(&t, &TrainingController::finished, &loop, &QEventLoop::quit);
        QString error;
        if (!t.start(c, TrainingController::StartPoint{}, stepformer::builtin_examples(c), o, &error)) {
            state.SkipWithError(("training did not run: " + error.toStdString()).c_str());
            return;
        }
        if (threaded) loop.exec();
        if (steps < 2) {
            state.SkipWithError("training reported fewer than two steps");
            return;
        }
        state.SetIterationTime((last - first) / (steps - 1));
    }
}
BENCHMARK(BM_TrainDockStep)->Arg(0)->Arg(1)->Arg(2)->UseManualTime()->Unit(benchmark::kMillisecond)->Iterations(3);

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    ProfilingApp app(argc, argv);
    g_app = &app;
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
