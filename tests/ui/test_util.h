// Helpers shared by the widget tests (linked into every QtTest program as stepformer_ui_test_util).
#pragma once

#include <memory>

#include <QString>
#include <QTest>

#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "training/training_controller.h"

#include <functional>

#include <QHash>
#include <QModelIndex>
#include <QStringList>

#include "app/main_window.h"

class HeatmapWidget;
class QImage;
class QWidget;
class StepModel;
class TrainingPanel;

namespace testutil {

// Config::small() from init_params(c, 7), trained for 60 epochs (Adam 5e-3, batch 2) on the
// tutorial's two sentences, as tests/core/test_training.cpp trains it. Trained once per process.
struct TrainedSmall {
    stepformer::Config config;
    std::shared_ptr<const stepformer::Transformer> model;
    std::shared_ptr<const stepformer::Optimizer> optimizer;  // its state after the last step
};
const TrainedSmall& trainedSmall();
inline std::shared_ptr<const stepformer::Transformer> trainedModel() { return trainedSmall().model; }

// How many colours the pixels of `img` at every `step`-th row and column have (opaque RGB): a
// blank or one-colour widget has few, a drawn heatmap or figure many.
int distinctColors(const QImage& img, int step = 2);

// Saves a grab of `w` as `name` under $STEPFORMER_SCREENSHOT_DIR when that is set.
void saveShot(QWidget& w, const QString& name);

// The Train dock set to the small preset, `epochs` epochs of batch size `batch` (batch 1: two
// steps an epoch on the tutorial's sentences).
void smallRun(TrainingPanel& p, int epochs, int batch = 1);
// Waits on the panel's controller's stateChanged until the panel is in state `s`; false when
// `timeoutMs` passed first.
bool waitForState(TrainingPanel& p, TrainingController::State s, int timeoutMs = 60000);

// A main window on a weights file (its config in the metadata), computing on the CPU, trained
// presets cached in `cacheDir`, nothing read from or written to the settings.
MainWindow::Options fixtureWindow(const QString& weightsPath, const QString& cacheDir);
// The same on the Small preset (trained on first use into `cacheDir`, before the window shows).
MainWindow::Options smallWindow(const QString& cacheDir);
// The Tensor view of the first encoder layer's attention weights at 1366x768, the window shown
// and active (keyboard tests need the focus): its first visible, filled heatmap, or nullptr.
HeatmapWidget* showAttentionHeatmap(MainWindow& w);
// Qt's warnings (not debug or info messages, nor the offscreen platform's notes about what it
// cannot do) while recording: tests that must cause none start recording in initTestCase, stop in
// cleanupTestCase, and check qtWarnings(). Messages still reach the previous handler.
void recordQtWarnings(bool on);
QStringList& qtWarnings();
// The navigator's groups ("Encoder/Encoder layer 0/Self-attention (self_attn)") and its steps'
// labels by trace name, below `parent`.
void collectSteps(const StepModel& m, const QModelIndex& parent, const QString& path, QStringList& groups,
                  QHash<QString, QString>& leafLabels);
// Every step of the window's trace, forward then gradients, in every view but the backward list:
// `check(step)` returns a problem for the step now shown ("" when none). The first problem found,
// with its view and step, or "" (for VERIFY_HELPER).
[[nodiscard]] QString walkEveryStep(MainWindow& w, const std::function<QString(const QString& step)>& check);

}  // namespace testutil

// Checks in helpers: a QVERIFY inside a helper returns from the helper only and the test goes on.
// So a helper returns what failed as a QString (empty when everything held), [[nodiscard]], and
// the test checks it with VERIFY_HELPER(helper(...)), which fails and ends the test itself.
#define VERIFY_HELPER(call)                                       \
    do {                                                          \
        const QString helperFailure_ = (call);                    \
        QVERIFY2(helperFailure_.isEmpty(), qPrintable(helperFailure_)); \
    } while (false)
