// Helpers shared by the widget tests (linked into every QtTest program as stepformer_ui_test_util).
#pragma once

#include <memory>

#include <QString>

#include "stepformer/model.h"
#include "stepformer/optimizer.h"

class QWidget;

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

// Saves a grab of `w` as `name` under $STEPFORMER_SCREENSHOT_DIR when that is set.
void saveShot(QWidget& w, const QString& name);

}  // namespace testutil
