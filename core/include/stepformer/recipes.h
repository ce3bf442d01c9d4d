// The training presets the app offers: an architecture and the recipe that trains it on the
// tutorial's sentences. The Train panel's preset and the app's first-start training of the same
// preset are one recipe, defined here only.
#pragma once

#include <vector>

#include "stepformer/config.h"
#include "stepformer/train.h"

namespace stepformer {

enum class TrainingPreset {
    Tutorial,  // the tutorial's model and loop: 30 epochs of SGD(lr 1e-3, momentum 0.99), batches of 2
    Small,     // d_model 32, 2 layers: Adam(lr 5e-3), 60 epochs, readable and quick
    Torch,     // PyTorch's nn.Transformer at the small size (Config::torch_small()), the same recipe
    Aiayn,     // attention-is-all-you-need-pytorch's model at the small size (Config::aiayn_small()), the same recipe
    Gpt,       // nanoGPT's GPT at a readable size (Config::gpt_small()) on the toy lines: AdamW as nanoGPT sets it up
};

// Config::tutorial(), small(), torch_small(), aiayn_small() (the tutorial's vocabularies and lengths) or gpt_small().
Config preset_architecture(TrainingPreset p);

// The recipe's stages. The first is the preset itself (what the Train panel fills in). The
// later ones are a fallback for the app's cached model: each runs only when the model does not
// yet translate the training sentences after the earlier ones, starting from its weights.
std::vector<TrainOptions> preset_recipe(TrainingPreset p);

}  // namespace stepformer
