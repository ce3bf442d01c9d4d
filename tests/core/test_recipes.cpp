// The training presets' recipes: the tutorial preset's first stage is the tutorial program's
// loop (the one the recipe fixture was made with), and every stage is a valid run.
#include <gtest/gtest.h>

#include "fixture_util.h"
#include "stepformer/recipes.h"

using namespace stepformer;

TEST(Recipes, TheTutorialPresetIsTheTutorialsLoop) {
    const auto stages = preset_recipe(TrainingPreset::Tutorial);
    ASSERT_GE(stages.size(), 1u);
    const TrainOptions& o = stages.front();
    EXPECT_EQ(o.epochs, fixtures::read_json("recipe.losses.json").at("epochs").get<int>());
    EXPECT_EQ(o.batch_size, 2);
    EXPECT_EQ(o.optimizer.kind, OptimizerKind::SGD);
    EXPECT_EQ(o.optimizer.lr, 1e-3);
    EXPECT_EQ(o.optimizer.momentum, 0.99);
    EXPECT_FALSE(o.optimizer.warmup_schedule);
    const Config c = preset_architecture(TrainingPreset::Tutorial);
    EXPECT_EQ(c.d_model, 512);
    EXPECT_EQ(c.n_layers, 6);
    EXPECT_EQ(c.n_heads, 8);
}

TEST(Recipes, TheSmallPresetUsesAdam) {
    const auto stages = preset_recipe(TrainingPreset::Small);
    ASSERT_GE(stages.size(), 1u);
    EXPECT_EQ(stages.front().optimizer.kind, OptimizerKind::Adam);
    EXPECT_EQ(stages.front().optimizer.lr, 5e-3);
    EXPECT_EQ(stages.front().epochs, 60);
    EXPECT_EQ(preset_architecture(TrainingPreset::Small).d_model, Config::small().d_model);
}

TEST(Recipes, EveryStageIsValid) {
    for (TrainingPreset p : {TrainingPreset::Tutorial, TrainingPreset::Small})
        for (const TrainOptions& o : preset_recipe(p)) {
            EXPECT_NO_THROW(o.validate());
            EXPECT_EQ(o.batch_size, preset_recipe(p).front().batch_size);
        }
}
