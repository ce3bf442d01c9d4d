#include "test_util.h"

#include <QElapsedTimer>
#include <QImage>
#include <QSet>
#include <QSignalSpy>
#include <QWidget>
#include <QtGlobal>

#include "stepformer/dataset.h"
#include "stepformer/params.h"
#include "stepformer/train.h"
#include "training/hyperparameter_form.h"
#include "training/training_panel.h"

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

}  // namespace testutil
