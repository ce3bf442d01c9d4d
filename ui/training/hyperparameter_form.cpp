#include "training/hyperparameter_form.h"
#include "widgets/theme_colors.h"
#include "training/lr_advice.h"
#include "app/core_text.h"
#include "views/view_parts.h"

#include <cmath>

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QStyle>
#include <QVBoxLayout>

#include "stepformer/params.h"
#include "stepformer/recipes.h"
#include "widgets/number_format.h"

using namespace stepformer;

namespace {

constexpr double kMaxTrainingBytes = 8.0 * 1024 * 1024 * 1024;  // refuse runs that would need more

// Bytes a training run holds per parameter: weights, gradients, the trainer's last-good copy,
// the GUI's copy, and the optimizer's one (SGD) or two (Adam) buffers.
double trainingBytes(int64_t params, OptimizerKind k) {
    return double(params) * 4.0 * (4.0 + (k == OptimizerKind::SGD ? 1.0 : 2.0));
}

// "1e-3", "0.001", "5e-3" (locale independent).
bool parseNumber(const QString& text, double* out) {
    bool ok = false;
    const double v = text.trimmed().replace(QLatin1Char(','), QLatin1Char('.')).toDouble(&ok);
    if (ok) *out = v;
    return ok;
}

// The form inside one of the panel's group boxes: its fields take the width there is.
QFormLayout* growingForm(QGroupBox* box) {
    auto* form = new QFormLayout(box);
    form->setFieldGrowthPolicy(QFormLayout::AllNonFixedFieldsGrow);
    return form;
}

// Two fields sharing a form row: `a`, then `b` after its label (each field half the width).
QHBoxLayout* pairRow(QWidget* a, const QString& bLabel, QWidget* b) {
    auto* row = new QHBoxLayout;
    row->addWidget(a, 1);
    row->addWidget(new QLabel(bLabel, a->parentWidget()));
    row->addWidget(b, 1);
    return row;
}

}  // namespace

HyperparameterForm::HyperparameterForm(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("hyperparameterForm"));
    auto* outer = view_parts::makeColumn(this, 8, 6);

    auto* presetRow = new QHBoxLayout;
    presetRow->addWidget(new QLabel(tr("Preset:"), this));
    presetCombo_ = view_parts::named(new QComboBox(this), "presetCombo");
    presetCombo_->addItem(tr("The tutorial's (d_model 512, 6 layers, SGD)"), int(Preset::Tutorial));
    presetCombo_->addItem(tr("Small and readable (d_model 32, 2 layers, Adam)"), int(Preset::Small));
    presetCombo_->addItem(tr("PyTorch's nn.Transformer (d_model 32, 2 + 2 layers, Adam)"), int(Preset::Torch));
    presetCombo_->addItem(tr("attention-is-all-you-need-pytorch (d_model 32, 2 layers, Adam)"), int(Preset::Aiayn));
    presetCombo_->addItem(tr("nanoGPT (n_embd 32, 2 layers, AdamW)"), int(Preset::Gpt));
    presetCombo_->addItem(tr("Custom"), int(Preset::Custom));
    presetCombo_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    presetCombo_->setMinimumContentsLength(14);
    presetCombo_->setToolTip(tr("The tutorial's hyperparameters train slowly (about 0.1 s a step); the small "
                                "model trains in a second and its attention maps are easy to read."));
    presetRow->addWidget(presetCombo_, 1);
    outer->addLayout(presetRow);

    lockLabel_ = view_parts::named(new QLabel(this), "architectureLockLabel");
    lockLabel_->setWordWrap(true);
    lockLabel_->setStyleSheet(QStringLiteral("QLabel { color: palette(text); background: #fff4d6; border: 1px solid #e0c060;"
                                             " border-radius: 3px; padding: 3px 6px; }"));
    lockLabel_->hide();
    outer->addWidget(lockLabel_);

    // --- the model ---
    auto* modelBox = new QGroupBox(tr("Model"), this);
    QFormLayout* mf = growingForm(modelBox);
    dModel_ = intSpin("dModelSpin", 1, 4096, tr("d_model: the width of every token's vector (the tutorial: 512)."));
    dFf_ = intSpin("dFfSpin", 1, 16384, tr("d_ff: the hidden width of the feed-forward network (the tutorial: 2048)."));
    dK_ = intSpin("dKSpin", 1, 1024, tr("d_k: the width of each head's queries and keys (the tutorial: 64)."));
    dV_ = intSpin("dVSpin", 1, 1024, tr("d_v: the width of each head's values (the tutorial: 64)."));
    heads_ = intSpin("headsSpin", 1, 64, tr("n_heads: attention heads per block (the tutorial: 8)."));
    layers_ = intSpin("layersSpin", 1, 24, tr("n_layers: encoder and decoder layers each (the tutorial: 6)."));
    dropout_ = view_parts::named(new QDoubleSpinBox(this), "dropoutSpin");
    dropout_->setRange(0.0, 1.0);
    dropout_->setDecimals(2);
    dropout_->setSingleStep(0.05);
    dropout_->setToolTip(tr("Dropout after the positional encoding, active while training only (the tutorial: 0.1). "
                            "Must be below 1."));
    architecture_ = view_parts::named(new QComboBox(this), "architectureCombo");
    architecture_->addItem(tr("The tutorial's (seed 001)"), int(Architecture::Tutorial));
    architecture_->addItem(tr("PyTorch's nn.Transformer (seed 002)"), int(Architecture::Torch));
    architecture_->addItem(tr("attention-is-all-you-need-pytorch (seed 003)"), int(Architecture::Aiayn));
    architecture_->addItem(tr("nanoGPT (decoder only)"), int(Architecture::Gpt));
    architecture_->setItemData(architecture_->count() - 1,
                               tr("Karpathy's nanoGPT: no encoder; it learns each next word of the target sentences"),
                               Qt::ToolTipRole);
    architecture_->setToolTip(tr("The tutorial's model, or PyTorch's own nn.Transformer layers: packed in-projection "
                                 "with biases, learned LayerNorm, final encoder and decoder norms, masks of 0 / −inf."));
    normFirst_ = view_parts::named(new QCheckBox(tr("pre-norm (norm_first)"), this), "normFirstCheck");
    normFirst_->setToolTip(tr("nn.TransformerEncoderLayer(norm_first=True): LayerNorm before each sub-layer, the "
                              "residual around it (off: after the residual sum, as the paper)."));
    activation_ = view_parts::named(new QComboBox(this), "activationCombo");
    activation_->addItem(QStringLiteral("relu"));
    activation_->addItem(QStringLiteral("gelu"));
    activation_->setToolTip(tr("The feed-forward network's activation (nn.Transformer's activation argument)."));
    mf->addRow(tr("architecture"), architecture_);
    // PyTorch's layers' own choices, a row of their own: beside the architecture they made the
    // form wider than the Train dock's left pane at 1366 x 768, which clipped every row.
    torchRow_ = new QHBoxLayout;
    torchRow_->addWidget(activation_, 1);
    torchRow_->addWidget(normFirst_);
    mf->addRow(tr("activation"), torchRow_);
    modelForm_ = mf;
    mf->addRow(tr("d_model"), dModel_);
    mf->addRow(tr("d_ff"), dFf_);
    QHBoxLayout* kv = pairRow(dK_, tr("d_v"), dV_);
    mf->addRow(tr("d_k"), kv);
    QHBoxLayout* hl = pairRow(heads_, tr("layers"), layers_);
    mf->addRow(tr("heads"), hl);
    learnNorm_ = view_parts::named(new QCheckBox(tr("learn LayerNorm γ, β"), this), "learnLayerNormCheck");
    learnNorm_->setToolTip(tr("Off (the tutorial): LayerNorm has no learned scale, γ = 1 and β = 0, because the "
                              "tutorial builds a fresh nn.LayerNorm in every forward, so they are never trained.\n"
                              "On: γ and β are parameters, trained and saved (config key learn_layer_norm)."));
    auto* dl = new QHBoxLayout;
    dl->addWidget(dropout_, 1);
    dl->addWidget(learnNorm_);
    mf->addRow(tr("dropout"), dl);
    sizeLabel_ = view_parts::named(new QLabel(this), "modelSizeLabel");
    theme::makeQuiet(sizeLabel_);
    mf->addRow(QString(), sizeLabel_);
    outer->addWidget(modelBox);

    // --- the optimizer ---
    auto* optBox = new QGroupBox(tr("Optimizer"), this);
    QFormLayout* of = growingForm(optBox);
    optimizer_ = view_parts::named(new QComboBox(this), "optimizerCombo");
    optimizer_->addItem(tr("SGD with momentum (the tutorial's)"), int(OptimizerKind::SGD));
    optimizer_->addItem(tr("Adam"), int(OptimizerKind::Adam));
    optimizer_->addItem(tr("AdamW (nanoGPT's)"), int(OptimizerKind::AdamW));
    optimizer_->setItemData(optimizer_->count() - 1,
                            tr("torch.optim.AdamW as nanoGPT sets it up: β 0.9/0.95, ε 1e-8, weight decay 0.1 on the "
                               "matrices and embeddings, none on biases and LayerNorm weights"),
                            Qt::ToolTipRole);
    optimizer_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    optimizer_->setMinimumContentsLength(12);
    lr_ = view_parts::named(new QLineEdit(this), "learningRateEdit");
    lr_->setPlaceholderText(QStringLiteral("1e-3"));
    lr_->setToolTip(tr("Learning rate, e.g. 1e-3 or 0.001. Between 0 (exclusive) and 100."));
    momentum_ = view_parts::named(new QDoubleSpinBox(this), "momentumSpin");
    momentum_->setRange(0.0, 1.0);
    momentum_->setDecimals(3);
    momentum_->setSingleStep(0.01);
    momentum_->setToolTip(tr("SGD momentum (the tutorial: 0.99). Must be below 1."));
    warmup_ = view_parts::named(new QCheckBox(tr("warm-up schedule"), this), "warmupCheck");
    warmup_->setToolTip(tr("The paper's schedule: lr × d_model^−0.5 × min(step^−0.5, step × warmup^−1.5). "
                           "With it, the learning rate field is a multiplier (the paper: 1)."));
    warmupSteps_ = intSpin("warmupStepsSpin", 1, 1000000, tr("Warm-up steps (the paper: 4000)."));
    auto* wl = new QHBoxLayout;
    wl->addWidget(warmup_);
    wl->addWidget(warmupSteps_, 1);
    of->addRow(tr("optimizer"), optimizer_);
    of->addRow(tr("learning rate"), lr_);
    lrNote_ = view_parts::named(new QLabel(this), "learningRateNote");
    lrNote_->setWordWrap(true);
    lrNote_->setEnabled(false);  // the palette's quieter text, in either theme
    lrNote_->hide();
    of->addRow(QString(), lrNote_);
    momentumLabel_ = new QLabel(tr("momentum"), this);
    of->addRow(momentumLabel_, momentum_);
    of->addRow(tr("Adam"), wl);
    outer->addWidget(optBox);

    // --- the loop ---
    auto* loopBox = new QGroupBox(tr("Training loop"), this);
    QFormLayout* lf = growingForm(loopBox);
    epochs_ = intSpin("epochsSpin", 1, 100000, tr("Passes over the dataset (the tutorial: 30)."));
    batch_ = intSpin("batchSizeSpin", 1, 4096, tr("Sentences per optimizer step (the tutorial: 2)."));
    seed_ = intSpin("seedSpin", 0, 2147483647, tr("Seeds the initial weights, the shuffling and dropout: the same seed "
                                                   "gives the same run."));
    shuffle_ = view_parts::named(new QCheckBox(tr("shuffle every epoch"), this), "shuffleCheck");
    shuffle_->setToolTip(tr("The tutorial's DataLoader shuffles (shuffle=True)."));
    QHBoxLayout* eb = pairRow(epochs_, tr("batch size"), batch_);
    lf->addRow(tr("epochs"), eb);
    auto* ss = new QHBoxLayout;
    ss->addWidget(seed_, 1);
    ss->addWidget(shuffle_);
    lf->addRow(tr("seed"), ss);
    outer->addWidget(loopBox);

    errorLabel_ = view_parts::named(new QLabel(this), "hyperparameterError");
    errorLabel_->setWordWrap(true);
    errorLabel_->setTextFormat(Qt::PlainText);
    errorLabel_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: 600; }"));
    errorLabel_->hide();
    outer->addWidget(errorLabel_);
    outer->addStretch(1);

    applyPreset(Preset::Tutorial);

    connect(presetCombo_, &QComboBox::activated, this, [this](int index) {
        const auto p = Preset(presetCombo_->itemData(index).toInt());
        if (p != Preset::Custom) applyPreset(p);
    });
    for (QSpinBox* s : {dModel_, dFf_, dK_, dV_, heads_, layers_, warmupSteps_, epochs_, batch_, seed_})
        connect(s, &QSpinBox::valueChanged, this, &HyperparameterForm::onEdited);
    connect(dropout_, &QDoubleSpinBox::valueChanged, this, &HyperparameterForm::onEdited);
    connect(architecture_, &QComboBox::currentIndexChanged, this, &HyperparameterForm::onEdited);
    connect(activation_, &QComboBox::currentIndexChanged, this, &HyperparameterForm::onEdited);
    connect(normFirst_, &QCheckBox::toggled, this, &HyperparameterForm::onEdited);
    connect(momentum_, &QDoubleSpinBox::valueChanged, this, &HyperparameterForm::onEdited);
    connect(lr_, &QLineEdit::textChanged, this, &HyperparameterForm::onEdited);
    connect(optimizer_, &QComboBox::currentIndexChanged, this, &HyperparameterForm::onEdited);
    connect(optimizer_, &QComboBox::activated, this, &HyperparameterForm::onOptimizerChosen);
    connect(warmup_, &QCheckBox::toggled, this, &HyperparameterForm::onEdited);
    connect(shuffle_, &QCheckBox::toggled, this, &HyperparameterForm::onEdited);
    connect(learnNorm_, &QCheckBox::toggled, this, &HyperparameterForm::onEdited);
}

QSpinBox* HyperparameterForm::intSpin(const char* name, int lo, int hi, const QString& tip) {
    auto* s = new QSpinBox(this);
    s->setObjectName(QString::fromLatin1(name));
    s->setRange(lo, hi);
    s->setToolTip(tip);
    s->setAccelerated(true);
    return s;
}

Config HyperparameterForm::config() const {
    const Architecture arch = Architecture(architecture_->currentData().toInt());
    const bool torch = arch == Architecture::Torch;
    Config c = torch                         ? Config::torch_small()
               : arch == Architecture::Aiayn ? Config::aiayn_small()
               : arch == Architecture::Gpt   ? Config::gpt_small()
                                             : Config::tutorial();
    c.d_model = dModel_->value();
    c.d_ff = dFf_->value();
    c.d_k = dK_->value();
    c.d_v = dV_->value();
    c.n_heads = heads_->value();
    c.n_layers = layers_->value();
    c.dropout = dropout_->value();
    c.learn_layer_norm = arch == Architecture::Tutorial && learnNorm_->isChecked();
    if (arch == Architecture::Gpt) {  // GPTConfig: the heads split n_embd, the MLP is 4 · n_embd wide
        c.d_k = c.d_v = c.n_heads > 0 ? c.d_model / c.n_heads : 0;
        c.d_ff = 4 * c.d_model;
    }
    if (torch) {  // nn.MultiheadAttention's heads split d_model; one depth for both stacks
        c.d_k = c.d_v = c.n_heads > 0 ? c.d_model / c.n_heads : 0;
        c.n_decoder_layers = c.n_layers;
        c.norm_first = normFirst_->isChecked();
        c.activation = activation_->currentText().toStdString();
    }
    return c;
}

TrainOptions HyperparameterForm::trainOptions() const {
    TrainOptions o;
    o.epochs = epochs_->value();
    o.batch_size = batch_->value();
    o.shuffle = shuffle_->isChecked();
    o.seed = uint64_t(seed_->value());
    o.optimizer = optimizer_defaults(OptimizerKind(optimizer_->currentData().toInt()));  // AdamW: nanoGPT's betas and decay
    double lr = 0.0;
    o.optimizer.lr = parseNumber(lr_->text(), &lr) ? lr : std::nan("");
    o.optimizer.momentum = momentum_->value();
    o.optimizer.warmup_schedule = o.optimizer.kind != OptimizerKind::SGD && warmup_->isChecked();
    o.optimizer.warmup_steps = warmupSteps_->value();
    o.optimizer.d_model = dModel_->value();
    return o;
}

uint64_t HyperparameterForm::seed() const { return uint64_t(seed_->value()); }

// The form's own edits stay quiet while `set` fills it; then one edit is reported (unless this
// runs inside another such fill).
void HyperparameterForm::setQuietly(const std::function<void()>& set) {
    const bool was = updating_;
    updating_ = true;
    set();
    updating_ = was;
    if (!was) onEdited();
}

void HyperparameterForm::setArchitecture(const Config& c) {
    setQuietly([&] {
        dModel_->setValue(c.d_model);
        dFf_->setValue(c.d_ff);
        dK_->setValue(c.d_k);
        dV_->setValue(c.d_v);
        heads_->setValue(c.n_heads);
        layers_->setValue(c.n_layers);
        dropout_->setValue(c.dropout);
        learnNorm_->setChecked(c.learns_layer_norm());
        architecture_->setCurrentIndex(architecture_->findData(int(c.architecture)));
        normFirst_->setChecked(c.norm_first);
        activation_->setCurrentText(QString::fromStdString(c.activation));
        updateArchitectureFields();
    });
}

void HyperparameterForm::setTrainOptions(const TrainOptions& o) {
    setQuietly([&] {
        epochs_->setValue(o.epochs);
        batch_->setValue(o.batch_size);
        shuffle_->setChecked(o.shuffle);
        seed_->setValue(int(std::min<uint64_t>(o.seed, 2147483647u)));
        optimizer_->setCurrentIndex(optimizer_->findData(int(o.optimizer.kind)));
        lr_->setText(numfmt::learningRate(o.optimizer.lr));
        momentum_->setValue(o.optimizer.momentum);
        warmup_->setChecked(o.optimizer.warmup_schedule);
        warmupSteps_->setValue(o.optimizer.warmup_steps);
    });
}

void HyperparameterForm::setLearningRate(double lr) { lr_->setText(numfmt::learningRate(lr)); }

void HyperparameterForm::setArchitectureLocked(bool locked, const QString& reason) {
    locked_ = locked;
    for (QWidget* w : std::initializer_list<QWidget*>{architecture_, normFirst_, activation_, dModel_, dFf_, dK_, dV_,
                                                      heads_, layers_, learnNorm_})
        w->setEnabled(!locked);
    lockLabel_->setText(reason);
    lockLabel_->setVisible(locked && !reason.isEmpty());
    updateArchitectureFields();
}

// PyTorch's layers take their head width from d_model / heads and always learn LayerNorm; the
// tutorial's has no pre-norm or activation choice.
void HyperparameterForm::updateArchitectureFields() {
    const Architecture arch = Architecture(architecture_->currentData().toInt());
    const bool torch = arch == Architecture::Torch, gpt = arch == Architecture::Gpt;
    modelForm_->setRowVisible(torchRow_, torch);
    if (locked_) return;
    dK_->setEnabled(!torch && !gpt);
    dV_->setEnabled(!torch && !gpt);
    dFf_->setEnabled(!gpt);
    learnNorm_->setEnabled(arch == Architecture::Tutorial);
    if (gpt) {  // n_embd / n_head each, an MLP 4 · n_embd wide, LayerNorm learned
        const QSignalBlocker b1(dK_), b2(dV_), b3(learnNorm_), b4(dFf_);
        const int hd = heads_->value() > 0 ? dModel_->value() / heads_->value() : 0;
        dK_->setValue(std::max(1, hd));
        dV_->setValue(std::max(1, hd));
        dFf_->setValue(4 * dModel_->value());
        learnNorm_->setChecked(true);
    }
    if (arch == Architecture::Aiayn) {
        const QSignalBlocker b(learnNorm_);
        learnNorm_->setChecked(true);
    }
    if (torch) {
        const QSignalBlocker b1(dK_), b2(dV_), b3(learnNorm_);
        const int hd = heads_->value() > 0 ? dModel_->value() / heads_->value() : 0;
        dK_->setValue(std::max(1, hd));
        dV_->setValue(std::max(1, hd));
        learnNorm_->setChecked(true);
    }
}

QString HyperparameterForm::validationMessage() const {
    QStringList lines;
    for (const auto& e : errors_) lines << e.second;
    return lines.join(QLatin1Char('\n'));
}

QString HyperparameterForm::describeSize(const Config& c) {
    int64_t n = 0;
    try {
        for (const auto& s : param_specs(c)) n += numel(s.shape);
    } catch (const std::exception&) {
        return {};
    }
    return tr("≈ %1 parameters (%2 of weights)").arg(numfmt::abbreviatedCount(n), numfmt::byteSize(double(n) * 4.0));
}

void HyperparameterForm::onEdited() {
    if (updating_) return;
    updateArchitectureFields();
    updateOptimizerFields();
    {
        const QSignalBlocker block(presetCombo_);
        presetCombo_->setCurrentIndex(presetCombo_->findData(int(preset())));
    }
    validate();
    emit changed();
}

// The user picked an optimizer: the learning rate follows (the preset's own for its optimizer,
// else the usual rate for that optimizer on this width), saying so under the field.
void HyperparameterForm::onOptimizerChosen() {
    const auto kind = OptimizerKind(optimizer_->currentData().toInt());
    const TrainOptions recipe = preset_recipe(corePreset(lastPreset_)).front();
    const double sgdLr = recipe.optimizer.kind == OptimizerKind::SGD ? recipe.optimizer.lr : 1e-3;
    const LrAdvice advice =
        recipe.optimizer.kind == kind && recipe.optimizer.warmup_schedule == warmup_->isChecked()
            ? LrAdvice{recipe.optimizer.lr, tr("Learning rate %1: the preset's for this optimizer.")
                                                .arg(numfmt::learningRate(recipe.optimizer.lr))}
            : LearningRateAdvice::forOptimizer(kind, dModel_->value(), sgdLr,
                                               kind != OptimizerKind::SGD && warmup_->isChecked());
    lr_->setText(numfmt::learningRate(advice.lr));
    lrNote_->setText(advice.why);
    lrNote_->show();
}

void HyperparameterForm::updateOptimizerFields() {
    const bool sgd = OptimizerKind(optimizer_->currentData().toInt()) == OptimizerKind::SGD;
    momentum_->setEnabled(sgd);
    momentumLabel_->setEnabled(sgd);
    warmup_->setEnabled(!sgd);
    warmupSteps_->setEnabled(!sgd && warmup_->isChecked());
}

void HyperparameterForm::markInvalid(QWidget* w, bool invalid) {
    if (w->property("invalid").toBool() == invalid) return;
    w->setProperty("invalid", invalid);
    w->setStyleSheet(invalid ? QStringLiteral("border: 2px solid #d0203a; border-radius: 3px;") : QString());
}

void HyperparameterForm::validate() {
    errors_.clear();
    const Config c = config();
    const TrainOptions o = trainOptions();

    double lr = 0.0;
    const QString lrText = lr_->text().trimmed();
    if (lrText.isEmpty())
        errors_.append({lr_, tr("Learning rate: enter a number, e.g. 1e-3.")});
    else if (!parseNumber(lrText, &lr) || !std::isfinite(lr))
        errors_.append({lr_, tr("Learning rate: \"%1\" is not a number (write e.g. 1e-3 or 0.001).").arg(lrText)});
    else if (lr <= 0.0)
        errors_.append({lr_, tr("Learning rate: must be greater than 0, got %1.").arg(lrText)});
    else if (lr > 100.0)
        errors_.append({lr_, tr("Learning rate: at most 100, got %1.").arg(lrText)});
    if (o.optimizer.kind == OptimizerKind::SGD && !(o.optimizer.momentum < 1.0))
        errors_.append({momentum_, tr("Momentum: must be below 1 (at 1 the velocity never decays), got %1.")
                                       .arg(o.optimizer.momentum)});
    if (!(c.dropout < 1.0))
        errors_.append({dropout_, tr("Dropout: must be below 1 (at 1 every activation is dropped), got %1.").arg(c.dropout)});
    if (errors_.isEmpty()) {
        // Whatever the core still objects to, in its words.
        try {
            c.validate();
        } catch (const std::exception& e) {
            errors_.append({nullptr, tr("Model: %1").arg(coreText(e))});
        }
        try {
            o.validate();
        } catch (const std::exception& e) {
            errors_.append({nullptr, tr("Training: %1").arg(coreText(e))});
        }
    }
    int64_t n = 0;
    try {
        for (const auto& s : param_specs(c)) n += numel(s.shape);
    } catch (const std::exception&) {
    }
    const double need = trainingBytes(n, o.optimizer.kind);
    if (need > kMaxTrainingBytes)
        errors_.append({dModel_, tr("Model size: %1 parameters would need about %2 of memory to train; make d_model, "
                                    "d_ff or the number of layers smaller.")
                                     .arg(numfmt::abbreviatedCount(n), numfmt::byteSize(need))});
    sizeLabel_->setText(describeSize(c));

    QList<QWidget*> bad;
    for (const auto& e : errors_)
        if (e.first) bad << e.first;
    for (QWidget* w : std::initializer_list<QWidget*>{lr_, momentum_, dropout_, dModel_}) markInvalid(w, bad.contains(w));
    errorLabel_->setText(validationMessage());
    errorLabel_->setVisible(!errors_.isEmpty());
    const bool valid = errors_.isEmpty();
    if (valid != lastValid_) {
        lastValid_ = valid;
        emit validityChanged(valid);
    }
}
