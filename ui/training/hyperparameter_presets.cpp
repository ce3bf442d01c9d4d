// The form's presets: applying one, and which one the form's values (or a model's
// architecture) are.
#include <cmath>

#include <QLabel>

#include "stepformer/recipes.h"
#include "training/hyperparameter_form.h"

using namespace stepformer;

TrainingPreset HyperparameterForm::corePreset(Preset p) {
    switch (p) {
    case Preset::Small: return TrainingPreset::Small;
    case Preset::Torch: return TrainingPreset::Torch;
    case Preset::Aiayn: return TrainingPreset::Aiayn;
    case Preset::Gpt: return TrainingPreset::Gpt;
    default: return TrainingPreset::Tutorial;
    }
}

void HyperparameterForm::applyPreset(Preset p) {
    if (p == Preset::Custom) return;
    lastPreset_ = p;
    lrNote_->hide();
    updating_ = true;
    if (!locked_) setArchitecture(preset_architecture(corePreset(p)));
    setTrainOptions(preset_recipe(corePreset(p)).front());
    updating_ = false;
    onEdited();
    emit presetApplied(p);
}

namespace {

// The same layers and sizes; and, with `dropoutToo`, the same dropout.
bool sameArchitecture(const Config& c, const Config& p, bool dropoutToo) {
    return c.architecture == p.architecture && c.d_model == p.d_model && c.d_ff == p.d_ff && c.d_k == p.d_k &&
           c.d_v == p.d_v && c.n_heads == p.n_heads && c.n_layers == p.n_layers &&
           c.decoder_layers() == p.decoder_layers() && (!dropoutToo || std::abs(c.dropout - p.dropout) < 1e-9) &&
           c.learn_layer_norm == p.learn_layer_norm && c.norm_first == p.norm_first && c.activation == p.activation;
}

constexpr HyperparameterForm::Preset kPresets[] = {HyperparameterForm::Preset::Tutorial,
                                                   HyperparameterForm::Preset::Small, HyperparameterForm::Preset::Torch,
                                                   HyperparameterForm::Preset::Aiayn, HyperparameterForm::Preset::Gpt};

}  // namespace

// A shown model's dropout says nothing (the app's presets show theirs with none: it never acts
// in the views' passes), so it is not compared.
HyperparameterForm::Preset HyperparameterForm::presetOfArchitecture(const Config& c) {
    for (Preset p : kPresets)
        if (sameArchitecture(c, preset_architecture(corePreset(p)), false)) return p;
    return Preset::Custom;
}

HyperparameterForm::Preset HyperparameterForm::preset() const {
    const Config c = config();
    const TrainOptions o = trainOptions();
    auto sameArch = [&](const Config& p) { return sameArchitecture(c, p, true); };
    const double lr = o.optimizer.lr;  // NaN where the field does not parse
    if (std::isnan(lr)) return Preset::Custom;
    for (Preset p : kPresets) {
        const TrainOptions r = preset_recipe(corePreset(p)).front();
        const bool sgd = r.optimizer.kind == OptimizerKind::SGD;
        if (sameArch(preset_architecture(corePreset(p))) && o.batch_size == r.batch_size && o.shuffle == r.shuffle &&
            o.optimizer.warmup_schedule == r.optimizer.warmup_schedule && o.epochs == r.epochs &&
            o.optimizer.kind == r.optimizer.kind && std::abs(lr - r.optimizer.lr) < 1e-12 &&
            (!sgd || std::abs(o.optimizer.momentum - r.optimizer.momentum) < 1e-9))
            return p;
    }
    return Preset::Custom;
}
