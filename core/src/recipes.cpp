#include "stepformer/recipes.h"

namespace stepformer {

Config preset_architecture(TrainingPreset p) {
    switch (p) {
        case TrainingPreset::Small: return Config::small();
        case TrainingPreset::Torch: return Config::torch_small();
        case TrainingPreset::Aiayn: return Config::aiayn_small();
        case TrainingPreset::Gpt: return Config::gpt_small();
        case TrainingPreset::Tutorial: break;
    }
    return Config::tutorial();
}

std::vector<TrainOptions> preset_recipe(TrainingPreset p) {
    TrainOptions a;
    a.batch_size = 2;
    a.shuffle = true;
    a.seed = 1;
    a.optimizer.momentum = 0.99;  // SGD's; Adam ignores it, so switching back gives the tutorial's
    TrainOptions b;
    if (p == TrainingPreset::Gpt) {  // configure_optimizers' AdamW (betas 0.9/0.95, decay 0.1 on matrices)
        a.epochs = 80;
        a.optimizer = optimizer_defaults(OptimizerKind::AdamW);
        a.optimizer.lr = 1e-2;
        b = a;
        b.epochs = 100;
        b.optimizer.lr = 2e-3;
        return {a, b};
    }
    if (p == TrainingPreset::Small || p == TrainingPreset::Torch || p == TrainingPreset::Aiayn) {
        a.epochs = 60;
        a.optimizer.kind = OptimizerKind::Adam;
        a.optimizer.lr = 5e-3;
        b = a;
        b.epochs = 100;
        b.optimizer.lr = 1e-3;
    } else {
        a.epochs = 30;
        a.optimizer.kind = OptimizerKind::SGD;
        a.optimizer.lr = 1e-3;
        // Should SGD not reach exact translations: Adam, gently, from where it stopped.
        b = a;
        b.epochs = 60;
        b.optimizer.kind = OptimizerKind::Adam;
        b.optimizer.lr = 1e-4;
    }
    return {a, b};
}

}  // namespace stepformer
