#include "lab/lab_controls.h"
#include "views/view_parts.h"

#include <QCheckBox>
#include <QCoreApplication>
#include <QComboBox>
#include <QFileDialog>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

#include "lab/input_table.h"
#include "lab/lab_model.h"

using Side = LabModel::Side;

namespace {

QLabel* note(const QString& text, QWidget* parent, const char* name = nullptr) {
    auto* l = new QLabel(text, parent);
    l->setWordWrap(true);
    if (name) l->setObjectName(QLatin1String(name));
    QFont f = l->font();
    f.setPointSizeF(f.pointSizeF() * 0.92);
    l->setFont(f);
    return l;
}

QPushButton* button(const QString& text, const char* name, const QString& tip, QWidget* parent) {
    auto* b = new QPushButton(text, parent);
    b->setObjectName(QLatin1String(name));
    b->setToolTip(tip);
    return b;
}

QCheckBox* check(const QString& text, const char* name, const QString& tip, QWidget* parent) {
    auto* b = new QCheckBox(text, parent);
    b->setObjectName(QLatin1String(name));
    b->setToolTip(tip);
    return b;
}

QSpinBox* spin(const char* name, int lo, int hi, int value, QWidget* parent) {
    auto* s = new QSpinBox(parent);
    s->setObjectName(QLatin1String(name));
    s->setRange(lo, hi);
    s->setValue(value);
    return s;
}

// A seed for a random draw ("seed 7"), beside the button that draws with it.
QSpinBox* seedSpin(const char* name, int value, const QString& tip, QWidget* parent) {
    QSpinBox* s = spin(name, 0, 999999, value, parent);
    s->setPrefix(QCoreApplication::translate("LabControls", "seed "));
    s->setToolTip(tip);
    return s;
}

// `widgets` left to right, then a stretch, as a row added to `into`.
void addRow(QBoxLayout* into, std::initializer_list<QWidget*> widgets) {
    auto* row = new QHBoxLayout;
    for (QWidget* w : widgets) row->addWidget(w);
    row->addStretch(1);
    into->addLayout(row);
}

}  // namespace

LabControls::LabControls(LabModel* model, QWidget* parent) : QWidget(parent), model_(model) {
    auto* v = new QVBoxLayout(this);
    v->setContentsMargins(6, 6, 6, 6);
    error_ = view_parts::named(new QLabel(this), "labError");
    error_->setWordWrap(true);
    error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    error_->setStyleSheet(QStringLiteral("QLabel { color: #b00020; font-weight: bold; }"));
    error_->setVisible(false);
    v->addWidget(error_);
    status_ = note({}, this, "seedStatus");
    v->addWidget(status_);
    buildInputs(this);
    v->addWidget(buildOptions());
    v->addWidget(buildWeights());
    v->addStretch(1);

    connect(model_, &LabModel::shapeChanged, this, &LabControls::refresh);
    connect(model_, &LabModel::computed, this, &LabControls::refresh);
    refresh();
}

void LabControls::buildInputs(QWidget* host) {
    auto* v = static_cast<QVBoxLayout*>(host->layout());
    auto* src = new QGroupBox(tr("src [seq_len, batch, d_model]"), host);
    src->setToolTip(tr("The encoder layer's input, in PyTorch's layout (batch_first=False)"));
    auto* sv = new QVBoxLayout(src);
    auto* sizes = new QHBoxLayout;
    srcLen_ = spin("srcLenSpin", 1, LabModel::kMaxLen, model_->length(Side::Src), src);
    batch_ = spin("batchSpin", 1, LabModel::kMaxBatch, model_->batch(), src);
    srcLen_->setPrefix(tr("seq_len "));
    batch_->setPrefix(tr("batch "));
    sizes->addWidget(srcLen_);
    sizes->addWidget(batch_);
    sv->addLayout(sizes);

    auto* seedX = button(tr("Seed 004's x"), "seedInputsButton",
                         tr("torch.manual_seed(42); x = torch.randn(3, 1, 4): the notebook's encoder_input (and, with "
                            "the decoder layer, a tgt [5, 1, 4] drawn next from the same stream)"),
                         src);
    auto* random = button(tr("Random"), "randomButton",
                          tr("Standard-normal numbers (like torch.randn, from Stepformer's own generator) with the seed "
                             "beside it; src and, with the decoder layer, tgt"),
                          src);
    randomSeed_ = seedSpin("randomSeedSpin", 0, tr("The seed Random uses"), src);
    auto* npy = button(tr("Load .npy…"), "loadSrcNpyButton",
                       tr("A NumPy array [seq_len, batch, d_model] (or [seq_len, d_model]), e.g. np.save('x.npy', "
                          "x.numpy())"),
                       src);
    sizes->addWidget(seedX);
    sizes->addStretch(1);
    addRow(sv, {random, randomSeed_, npy});
    srcOrigin_ = note({}, src, "srcOrigin");
    sv->addWidget(srcOrigin_);
    srcTable_ = view_parts::named(new InputTable(src), "srcTable");
    sv->addWidget(srcTable_);
    v->addWidget(src);

    decoder_ = check(tr("Decoder layer (nn.TransformerDecoderLayer)"), "decoderCheck",
                     tr("output = decoder_layer(tgt, memory): a decoder layer of the same size after the encoder "
                        "layer, reading its output as memory (seed 004's second part, with trg_seq_len 5)"),
                     host);
    v->addWidget(decoder_);
    tgtBox_ = view_parts::named(new QGroupBox(tr("tgt [tgt_len, batch, d_model]"), host), "tgtBox");
    auto* tv = new QVBoxLayout(tgtBox_);
    auto* trow = new QHBoxLayout;
    tgtLen_ = spin("tgtLenSpin", 1, LabModel::kMaxLen, model_->length(Side::Tgt), tgtBox_);
    trow->addWidget(tgtLen_);
    tgtLen_->setPrefix(tr("tgt_len "));
    auto* tgtRandom = button(tr("Random"), "randomTgtButton", tr("Standard-normal tgt with the seed of src's Random"), tgtBox_);
    auto* tgtNpy = button(tr("Load .npy…"), "loadTgtNpyButton", tr("A NumPy array [tgt_len, batch, d_model]"), tgtBox_);
    trow->addWidget(tgtRandom);
    trow->addWidget(tgtNpy);
    trow->addStretch(1);
    tv->addLayout(trow);
    causal_ = check(tr("causal tgt_mask (-inf above the diagonal)"), "causalCheck",
                    tr("tgt_mask = nn.Transformer.generate_square_subsequent_mask(tgt_len): position i may not look "
                       "at the positions after it"),
                    tgtBox_);
    tv->addWidget(causal_);
    tgtOrigin_ = note({}, tgtBox_, "tgtOrigin");
    tv->addWidget(tgtOrigin_);
    tgtTable_ = view_parts::named(new InputTable(tgtBox_), "tgtTable");
    tv->addWidget(tgtTable_);
    tv->addWidget(note(tr("src's pad column is also the decoder's memory_key_padding_mask."), tgtBox_));
    v->addWidget(tgtBox_);

    connect(srcLen_, &QSpinBox::valueChanged, model_, [this](int n) { model_->setLength(Side::Src, n); });
    connect(tgtLen_, &QSpinBox::valueChanged, model_, [this](int n) { model_->setLength(Side::Tgt, n); });
    connect(batch_, &QSpinBox::valueChanged, model_, [this](int n) { model_->setBatch(n); });
    connect(seedX, &QPushButton::clicked, this, [this] {
        QString e;
        showError(model_->loadSeedInputs(&e) ? QString() : e);
    });
    connect(random, &QPushButton::clicked, this, [this] {
        model_->randomize(Side::Src, uint32_t(randomSeed_->value()));
        if (model_->decoder()) model_->randomize(Side::Tgt, uint32_t(randomSeed_->value()) + 1);
    });
    connect(tgtRandom, &QPushButton::clicked, this,
            [this] { model_->randomize(Side::Tgt, uint32_t(randomSeed_->value()) + 1); });
    const auto pick = [this](bool tgt) {
        const QString path = QFileDialog::getOpenFileName(this, tgt ? tr("Load tgt") : tr("Load src"), QString(),
                                                          tr("NumPy arrays (*.npy);;All files (*)"));
        if (!path.isEmpty()) loadInputNpy(tgt, path);
    };
    connect(npy, &QPushButton::clicked, this, [pick] { pick(false); });
    connect(tgtNpy, &QPushButton::clicked, this, [pick] { pick(true); });
    connect(decoder_, &QCheckBox::toggled, model_, &LabModel::setDecoder);
    connect(causal_, &QCheckBox::toggled, model_, &LabModel::setCausal);
    for (auto [table, side] : {std::pair{srcTable_, Side::Src}, std::pair{tgtTable_, Side::Tgt}}) {
        const Side s = side;
        connect(table, &InputTable::valueEdited, model_, [this, s](int l, int b, int d, float x) {
            showError({});
            model_->setValue(s, l, b, d, x);
        });
        connect(table, &InputTable::paddingToggled, model_,
                [this, s](int b, int l, bool on) { model_->setPadded(s, b, l, on); });
        connect(table, &InputTable::rejected, this, &LabControls::showError);
    }
}

QGroupBox* LabControls::buildOptions() {
    auto* box = new QGroupBox(tr("Layer options"), this);
    auto* f = new QFormLayout(box);
    normFirst_ = check(tr("norm_first (pre-norm)"), "normFirstCheck",
                       tr("norm_first=True: LayerNorm before each sub-layer, x + sub-layer(norm(x)); the layer ends "
                          "on the residual, without a norm after it"),
                       box);
    activation_ = view_parts::named(new QComboBox(box), "activationCombo");
    activation_->addItems({QStringLiteral("relu"), QStringLiteral("gelu")});
    grads_ = check(tr("Gradients of loss = output[..., 0].sum()"), "gradCheck",
                   tr("Adds a grad.<step> for every step, in the order backpropagation computes them. (Not "
                      "output.sum(): a LayerNorm's outputs always sum to the sum of its bias, so its gradient "
                      "would be 0.)"),
                   box);
    f->addRow(normFirst_);
    f->addRow(tr("activation"), activation_);
    f->addRow(grads_);
    f->addRow(note(tr("PyTorch's initialisation does not depend on norm_first or activation: torch.manual_seed(42) gives "
                      "these same weights for every choice. The notebook's printed numbers are the defaults' (post-norm, "
                      "relu)."),
                   box, "optionsNote"));
    connect(normFirst_, &QCheckBox::toggled, model_, &LabModel::setNormFirst);
    connect(activation_, &QComboBox::currentTextChanged, model_, &LabModel::setActivation);
    connect(grads_, &QCheckBox::toggled, model_, &LabModel::setGradients);
    return box;
}

QGroupBox* LabControls::buildWeights() {
    auto* box = new QGroupBox(tr("Weights"), this);
    auto* v = new QVBoxLayout(box);
    auto* seedW = button(tr("Seed 004's"), "seedWeightsButton",
                         tr("PyTorch's own initialisation of nn.TransformerEncoderLayer(d_model=4, nhead=2, "
                            "dim_feedforward=8, dropout=0.0) after torch.manual_seed(42) and x = torch.randn(3, 1, 4)"),
                         box);
    auto* fresh = button(tr("Fresh"), "freshWeightsButton",
                         tr("init_params with the seed beside it: PyTorch's schemes, Stepformer's random generator"), box);
    freshSeed_ = seedSpin("freshSeedSpin", int(model_->freshSeed()), tr("The seed Fresh uses"), box);
    auto* open = button(tr("Open state_dict…"), "openWeightsButton",
                        tr("A safetensors file with encoder_layer.* (and decoder_layer.*) names, e.g. "
                           "save_file({'encoder_layer.' + k: v for k, v in layer.state_dict().items()}, 'w.safetensors')"),
                        box);
    addRow(v, {seedW, fresh, freshSeed_});
    addRow(v, {open});
    weights_ = note({}, box, "weightsLabel");
    v->addWidget(weights_);
    connect(seedW, &QPushButton::clicked, model_, &LabModel::useSeedWeights);
    connect(fresh, &QPushButton::clicked, this, [this] { model_->useFreshWeights(uint64_t(freshSeed_->value())); });
    connect(open, &QPushButton::clicked, this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open state_dict"), QString(),
                                                          tr("safetensors (*.safetensors);;All files (*)"));
        if (!path.isEmpty()) loadWeights(path);
    });
    return box;
}

bool LabControls::loadInputNpy(bool tgt, const QString& path) {
    QString e;
    const bool ok = model_->loadNpy(tgt ? Side::Tgt : Side::Src, path, &e);
    showError(ok ? QString() : tr("Could not load %1: %2. The inputs are unchanged.").arg(tgt ? "tgt" : "src", e));
    return ok;
}

bool LabControls::loadWeights(const QString& path) {
    QString e;
    const bool ok = model_->loadWeights(path, &e);
    showError(ok ? QString() : tr("Could not open the weights: %1. The weights are unchanged.").arg(e));
    return ok;
}

QString LabControls::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void LabControls::showError(const QString& message) {
    error_->setText(message);
    error_->setVisible(!message.isEmpty());
}

void LabControls::refresh() {
    const QSignalBlocker b1(srcLen_), b2(tgtLen_), b3(batch_), b4(decoder_), b5(causal_), b6(normFirst_), b7(activation_),
        b8(grads_);
    srcLen_->setValue(model_->length(Side::Src));
    tgtLen_->setValue(model_->length(Side::Tgt));
    batch_->setValue(model_->batch());
    decoder_->setChecked(model_->decoder());
    causal_->setChecked(model_->causal());
    normFirst_->setChecked(model_->normFirst());
    activation_->setCurrentText(model_->activation());
    grads_->setChecked(model_->gradients());
    tgtBox_->setVisible(model_->decoder());
    const auto padFn = [this](Side s) { return [this, s](int b, int l) { return model_->padded(s, b, l); }; };
    srcTable_->setTensor(model_->input(Side::Src), padFn(Side::Src));
    tgtTable_->setTensor(model_->input(Side::Tgt), padFn(Side::Tgt));
    srcOrigin_->setText(tr("Numbers: %1. Row [l, b] = position l of batch element b; double-click a number to type "
                           "another.")
                            .arg(model_->inputOrigin(Side::Src)));
    tgtOrigin_->setText(tr("Numbers: %1.").arg(model_->inputOrigin(Side::Tgt)));
    weights_->setText(tr("d_model %1, nhead %2, dim_feedforward %3. %4")
                          .arg(model_->dModel())
                          .arg(model_->nhead())
                          .arg(model_->config().d_ff)
                          .arg(model_->weightsDescription()));
    status_->setText(model_->isSeed004()
                         ? tr("<b>Seed 004's setup</b>: the encoder layer's output is the notebook's printed memory.")
                         : tr("Not seed 004's setup (its x, its weights, post-norm relu, no padding): the numbers differ "
                              "from the notebook's print."));
}
