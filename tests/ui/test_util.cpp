#include "test_util.h"

#include <QElapsedTimer>
#include <QImage>
#include <QSet>
#include <QSignalSpy>
#include <QWidget>
#include <QtGlobal>

#include <execinfo.h>

#include "app/session.h"
#include "steps/backward_steps.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "stepformer/dataset.h"
#include "stepformer/params.h"
#include "stepformer/train.h"
#include "training/hyperparameter_form.h"
#include "training/training_panel.h"
#include "widgets/heatmap_widget.h"

using namespace stepformer;

namespace testutil {

const TrainedSmall& trainedSmall() {
    static const TrainedSmall trained = [] {
        TrainedSmall t;
        t.config = Config::small();
        auto m = std::make_shared<Transformer>(t.config, init_params(t.config, 7));
        TrainOptions to;
        to.epochs = 60;
        to.batch_size = 2;
        to.optimizer.kind = OptimizerKind::Adam;
        to.optimizer.lr = 5e-3;
        Trainer trainer(*m, builtin_examples(), to);
        const auto r = trainer.run();
        if (r.status != TrainStatus::Finished) qFatal("training failed: %s", r.message.c_str());
        t.optimizer = std::make_shared<const Optimizer>(trainer.optimizer());
        t.model = std::move(m);
        return t;
    }();
    return trained;
}

int distinctColors(const QImage& img, int step) {
    const QImage rgb = img.convertToFormat(QImage::Format_RGB32);
    QSet<QRgb> colors;
    for (int y = 0; y < rgb.height(); y += step)
        for (int x = 0; x < rgb.width(); x += step) colors.insert(rgb.pixel(x, y));
    return int(colors.size());
}

void saveShot(QWidget& w, const QString& name) {
    const QString dir = qEnvironmentVariable("STEPFORMER_SCREENSHOT_DIR");
    if (!dir.isEmpty()) w.grab().save(dir + QLatin1Char('/') + name);
}

void smallRun(TrainingPanel& p, int epochs, int batch) {
    p.hyperparameters()->applyPreset(HyperparameterForm::Preset::Small);
    stepformer::TrainOptions o = p.hyperparameters()->trainOptions();
    o.epochs = epochs;
    o.batch_size = batch;
    p.hyperparameters()->setTrainOptions(o);
}

bool waitForState(TrainingPanel& p, TrainingController::State s, int timeoutMs) {
    if (p.state() == s) return true;
    QSignalSpy spy(p.controller(), &TrainingController::stateChanged);
    QElapsedTimer t;
    t.start();
    while (p.state() != s && t.elapsed() < timeoutMs) spy.wait(std::max<int>(1, timeoutMs - int(t.elapsed())));
    return p.state() == s;
}

MainWindow::Options fixtureWindow(const QString& weightsPath, const QString& cacheDir) {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.weightsPath = weightsPath;
    o.provisioning = Session::Provisioning::Synchronous;
    o.cacheDir = cacheDir;
    o.backend = QStringLiteral("cpu");
    return o;
}

MainWindow::Options smallWindow(const QString& cacheDir) {
    MainWindow::Options o = fixtureWindow(QString(), cacheDir);
    o.preset = Session::Preset::Small;
    return o;
}

namespace {
QtMessageHandler g_previousHandler = nullptr;
void recordWarning(QtMsgType type, const QMessageLogContext& context, const QString& msg) {
    const bool platformNote = msg.contains(QLatin1String("This plugin does not support")) ||
                              msg.contains(QLatin1String("XDG_RUNTIME_DIR"));
    if (type != QtDebugMsg && type != QtInfoMsg && !platformNote) {
        qtWarnings() << msg;
        // Where it came from, for a warning that is hard to place (the monkey's long runs).
        if (qEnvironmentVariableIsSet("STEPFORMER_WARNING_BACKTRACE") && qtWarnings().size() <= 3) {
            void* frames[48];
            backtrace_symbols_fd(frames, backtrace(frames, 48), 2);
        }
    }
    if (g_previousHandler) g_previousHandler(type, context, msg);
}
}  // namespace

QStringList& qtWarnings() {
    static QStringList warnings;
    return warnings;
}

void recordQtWarnings(bool on) {
    if (on)
        g_previousHandler = qInstallMessageHandler(recordWarning);
    else
        qInstallMessageHandler(g_previousHandler);
}

HeatmapWidget* showAttentionHeatmap(MainWindow& w) {
    w.resize(1366, 768);
    w.show();
    if (!QTest::qWaitForWindowActive(&w)) return nullptr;
    w.setFollowStep(false);
    if (!w.setCurrentView(QStringLiteral("tensor")) ||
        !w.setCurrentStep(QStringLiteral("encoder.layers.0.enc_self_attn.attn")))
        return nullptr;
    for (HeatmapWidget* m : w.viewWidget(QStringLiteral("tensor"))->findChildren<HeatmapWidget*>())
        if (m->isVisible() && !m->isEmpty() && m->rows() > 2 && m->cols() > 2) return m;
    return nullptr;
}

void collectSteps(const StepModel& m, const QModelIndex& parent, const QString& path, QStringList& groups,
                  QHash<QString, QString>& leafLabels) {
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        const QString label = i.data().toString();
        const QString name = i.data(StepModel::TraceNameRole).toString();
        if (name.isEmpty()) {
            groups << path + label;
            collectSteps(m, i, path + label + QLatin1Char('/'), groups, leafLabels);
        } else {
            leafLabels.insert(name, label);
        }
    }
}

QString walkEveryStep(MainWindow& w, const std::function<QString(const QString& step)>& check) {
    const QStringList forward = w.navigator()->model()->stepOrder();
    const QStringList backward = backwardStepOrder(*w.session()->trace());
    for (const QString& view : MainWindow::viewNames()) {
        if (view == QLatin1String("backward")) continue;
        if (!w.setCurrentView(view)) return QStringLiteral("no view '%1'").arg(view);
        for (const QStringList& steps : {forward, backward})
            for (const QString& s : steps) {
                if (!w.setCurrentStep(s)) return QStringLiteral("%1: cannot show %2").arg(view, s);
                if (const QString problem = check(s); !problem.isEmpty())
                    return QStringLiteral("%1, %2: %3").arg(view, s, problem);
            }
    }
    return {};
}

}  // namespace testutil
