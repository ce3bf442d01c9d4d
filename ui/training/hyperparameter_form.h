// The hyperparameters of a training run: the model's size (d_model, d_ff, d_k, d_v, heads,
// layers, dropout, learned or fixed LayerNorm), the optimizer (SGD with momentum, or Adam with an optional warm-up
// schedule), learning rate, momentum, epochs, batch size, seed and shuffling.
//
// Presets: "the tutorial's" (d_model 512, d_ff 2048, d_k = d_v 64, 8 heads, 6 layers, dropout
// 0.1, SGD lr 1e-3 momentum 0.99, 30 epochs, batches of 2), "small" (Config::small(), Adam
// lr 5e-3, 60 epochs) and "PyTorch's nn.Transformer" (Config::torch_small(), the same recipe).
// Editing a value switches the preset picker to "Custom".
//
// The architecture: the tutorial's (seed 001), PyTorch's nn.Transformer (seed 002; then the
// head width is d_model / heads, LayerNorm is always learned, and pre-norm and the activation
// are choices) or attention-is-all-you-need-pytorch's (seed 003; LayerNorm learned, its output
// projection shares the target embedding).
//
// Invalid values are explained inline (a red message under the form, the field outlined);
// isValid() / validityChanged() let the Start button follow.
//
// objectNames: presetCombo, architectureCombo, normFirstCheck, activationCombo, dModelSpin, dFfSpin, dKSpin, dVSpin, headsSpin, layersSpin,
// dropoutSpin, learnLayerNormCheck, optimizerCombo, learningRateEdit, momentumSpin, warmupCheck, warmupStepsSpin,
// epochsSpin, batchSizeSpin, seedSpin, shuffleCheck, hyperparameterError, modelSizeLabel.
#pragma once

#include <functional>

#include <cstdint>

#include <QList>
#include <QPair>
#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/recipes.h"
#include "stepformer/train.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QFormLayout;
class QHBoxLayout;
class QLabel;
class QLineEdit;
class QSpinBox;

class HyperparameterForm : public QWidget {
    Q_OBJECT
public:
    enum class Preset { Tutorial, Small, Torch, Aiayn, Gpt, Custom };
    Q_ENUM(Preset)

    explicit HyperparameterForm(QWidget* parent = nullptr);

    void applyPreset(Preset p);
    Preset preset() const;  // Custom unless every value equals a preset's
    // The preset whose architecture (family, sizes, norms; not dropout) `c` has; Custom when none.
    static Preset presetOfArchitecture(const stepformer::Config& c);

    // The model's architecture and dropout (with the tutorial's vocabulary: the dataset decides
    // the vocabulary of a run).
    stepformer::Config config() const;
    // Epochs, batch size, shuffle, seed and the optimizer (its d_model set from config()).
    stepformer::TrainOptions trainOptions() const;
    uint64_t seed() const;  // initial weights, shuffling and dropout

    void setArchitecture(const stepformer::Config& c);
    void setTrainOptions(const stepformer::TrainOptions& o);
    void setLearningRate(double lr);
    // Architecture fixed by a checkpoint to resume: its fields are read-only, with a note.
    void setArchitectureLocked(bool locked, const QString& reason = {});
    bool isArchitectureLocked() const { return locked_; }

    // The epoch count's field (the training panel mirrors it beside Start).
    QSpinBox* epochsSpin() const { return epochs_; }

    bool isValid() const { return errors_.isEmpty(); }
    QString validationMessage() const;  // all problems, one per line; empty when valid

    // "≈ 44.1 M parameters (168 MB)"
    static QString describeSize(const stepformer::Config& c);

signals:
    void changed();
    void validityChanged(bool valid);
    // applyPreset() set a preset's values (the training panel picks its pace from it).
    void presetApplied(HyperparameterForm::Preset p);

private:
    void onEdited();
    void validate();
    void updateOptimizerFields();
    void onOptimizerChosen();
    void markInvalid(QWidget* w, bool invalid);
    QSpinBox* intSpin(const char* name, int lo, int hi, const QString& tip);
    void setQuietly(const std::function<void()>& set);

    void updateArchitectureFields();
    static stepformer::TrainingPreset corePreset(Preset p);  // hyperparameter_presets.cpp

    QComboBox* presetCombo_ = nullptr;
    QComboBox* architecture_ = nullptr;  // Config::architecture
    QCheckBox* normFirst_ = nullptr;     // torch: norm_first
    QComboBox* activation_ = nullptr;    // torch: relu | gelu
    QHBoxLayout* torchRow_ = nullptr;    // activation_ and normFirst_, shown for torch only
    QFormLayout* modelForm_ = nullptr;
    QSpinBox *dModel_ = nullptr, *dFf_ = nullptr, *dK_ = nullptr, *dV_ = nullptr, *heads_ = nullptr,
             *layers_ = nullptr;
    QDoubleSpinBox* dropout_ = nullptr;
    QCheckBox* learnNorm_ = nullptr;  // Config::learn_layer_norm; off is the tutorial
    QComboBox* optimizer_ = nullptr;
    QLineEdit* lr_ = nullptr;
    QLabel* lrNote_ = nullptr;  // what the learning rate was set to when the optimizer changed, and why
    Preset lastPreset_ = Preset::Tutorial;
    QDoubleSpinBox* momentum_ = nullptr;
    QLabel* momentumLabel_ = nullptr;
    QCheckBox* warmup_ = nullptr;
    QSpinBox* warmupSteps_ = nullptr;
    QSpinBox *epochs_ = nullptr, *batch_ = nullptr, *seed_ = nullptr;
    QCheckBox* shuffle_ = nullptr;
    QLabel *sizeLabel_ = nullptr, *lockLabel_ = nullptr, *errorLabel_ = nullptr;
    QList<QPair<QWidget*, QString>> errors_;
    bool updating_ = false;
    bool locked_ = false;
    bool lastValid_ = true;
};
