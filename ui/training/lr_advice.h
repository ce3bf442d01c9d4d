// Learning-rate advice: what a learning rate should be when the optimizer changes, and what to
// say when a run ends with the loss where it started. SGD with the tutorial's momentum 0.99 wants
// 1e-3 on the tutorial's 512-wide model; Adam at that rate overshoots (the run ends near loss 2,
// nothing learned), Adam's usual rate for a model that wide is 1e-4.
#pragma once

#include <QCoreApplication>
#include <QString>

#include "stepformer/optimizer.h"

struct LrAdvice {
    double lr;    // the suggested learning rate (a multiplier with the warm-up schedule: unchanged)
    QString why;  // one sentence for the form, saying what was set and why
};

class LearningRateAdvice {
    Q_DECLARE_TR_FUNCTIONS(LearningRateAdvice)

public:
    // The rate to use after switching to `kind` on a model d_model wide; `sgdLr` is the preset's
    // SGD rate (the tutorial's 1e-3).
    static LrAdvice forOptimizer(stepformer::OptimizerKind kind, int dModel, double sgdLr, bool warmup);
    // A hint when a finished run barely lowered its loss (last > half the first, after at least
    // 10 steps); empty otherwise.
    static QString untrainedRun(double firstLoss, double lastLoss, int steps, stepformer::OptimizerKind kind,
                                double lr, int dModel, bool warmup);
};
