#include "training/lr_advice.h"

#include <cmath>

#include "widgets/number_format.h"

using stepformer::OptimizerKind;

namespace {
// Adam's usual rate: 1e-4 for the wide models (the tutorial's and PyTorch's 512), 1e-3 for the
// small ones, which train in a few hundred steps at it.
double adamRate(int dModel) { return dModel >= 256 ? 1e-4 : 1e-3; }
}  // namespace

LrAdvice LearningRateAdvice::forOptimizer(OptimizerKind kind, int dModel, double sgdLr, bool warmup) {
    if (kind == OptimizerKind::SGD)
        return {sgdLr, tr("Learning rate %1: SGD's for this model.").arg(numfmt::learningRate(sgdLr))};
    if (warmup)  // the field is the schedule's multiplier then
        return {1.0, tr("With the warm-up schedule the learning rate is a multiplier: 1, as in the paper.")};
    const double lr = adamRate(dModel);
    return {lr, tr("Learning rate %1: Adam's usual for a model %2 wide (SGD's rate makes Adam overshoot and "
                   "learn nothing).")
                    .arg(numfmt::learningRate(lr))
                    .arg(dModel)};
}

QString LearningRateAdvice::untrainedRun(double firstLoss, double lastLoss, int steps, OptimizerKind kind, double lr,
                                         int dModel, bool warmup) {
    if (steps < 10 || !(firstLoss > 0.0) || !std::isfinite(lastLoss) || lastLoss <= 0.5 * firstLoss) return {};
    QString why;
    if (kind != OptimizerKind::SGD && !warmup && lr > 3.0 * adamRate(dModel))
        why = tr("Adam's learning rate %1 is high for a model %2 wide: try %3.")
                  .arg(numfmt::learningRate(lr))
                  .arg(dModel)
                  .arg(numfmt::learningRate(adamRate(dModel)));
    else
        why = tr("Try more epochs, or another learning rate.");
    return tr("The loss barely fell (%1 → %2): the model has not learned the data. %3")
        .arg(numfmt::chartReadout(firstLoss), numfmt::chartReadout(lastLoss), why);
}
