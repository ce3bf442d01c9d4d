#include "views/decode_view.h"
#include "widgets/background_pool.h"
#include "widgets/theme_colors.h"
#include "app/core_text.h"
#include "views/view_parts.h"

#include <algorithm>
#include <cmath>

#include <QApplication>
#include <QBoxLayout>
#include <QElapsedTimer>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QTimer>
#include <QToolButton>

#include "stepformer/model.h"
#include "views/message_stack.h"

using namespace stepformer;

namespace {

// Models with more parameters than this decode on a worker thread; so do models on another
// device than the CPU (a test GPU or lavapipe takes seconds to decode even a small model).
constexpr int64_t kAsyncParameterThreshold = 1'000'000;

}  // namespace

struct DecodeView::Outcome {
    quint64 generation = 0;
    std::vector<DecodingStep> steps;
    bool reachedEos = false;
    QString text;
    QString error;
};

DecodeView::DecodeView(QWidget* parent) : StepView(parent, "decodeView") {
    auto* root = makeWhitePage(8, 6);

    // Source -> translation.
    auto* header = new QHBoxLayout;
    header->setSpacing(10);
    sourceLabel_ = view_parts::named(new QLabel(this), "decodeSourceLabel");
    sourceLabel_->setTextFormat(Qt::RichText);
    sourceLabel_->setToolTip(tr("enc_input: the source sentence the encoder reads once"));
    translationLabel_ = view_parts::named(new QLabel(this), "decodeTranslationLabel");
    translationLabel_->setTextFormat(Qt::RichText);
    // Wraps: at the last step "finished: the end token E after n steps" follows the translation,
    // and a label that does not wrap widened the view past a laptop's window.
    translationLabel_->setWordWrap(true);
    translationLabel_->setToolTip(
        tr("The greedy translation: the tokens chosen so far are dark, the ones still to come are pale"));
    QFont hf = sourceLabel_->font();
    hf.setPointSizeF(std::max(12.5, hf.pointSizeF() + 3.0));
    sourceLabel_->setFont(hf);
    translationLabel_->setFont(hf);
    auto* arrow = new QLabel(QStringLiteral("⟶"), this);
    arrow->setFont(hf);
    theme::makeQuiet(arrow);
    header->addWidget(sourceLabel_);
    header->addWidget(arrow);
    header->addWidget(translationLabel_, 1);
    root->addLayout(header);

    // Controls.
    auto* bar = new QHBoxLayout;
    bar->setSpacing(6);
    auto mkButton = [this](const QString& name, const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setObjectName(name);
        b->setText(text);
        b->setToolTip(tip);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        b->setMinimumWidth(70);
        return b;
    };
    resetButton_ = mkButton(QStringLiteral("decodeResetButton"), tr("↺ Reset"), tr("Back to the first step: only the start symbol S"));
    backButton_ = mkButton(QStringLiteral("decodeBackButton"), tr("◀ Back"), tr("The previous step"));
    stepButton_ = mkButton(QStringLiteral("decodeStepButton"), tr("Step ▶"), tr("Run the next forward pass and choose the next token"));
    playButton_ = mkButton(QStringLiteral("decodePlayButton"), tr("▶ Play"), tr("Step automatically until the end token"));
    playButton_->setCheckable(true);
    statusLabel_ = view_parts::named(new QLabel(this), "decodeStatusLabel");
    statusLabel_->setMinimumWidth(150);
    layerPicker_ = view_parts::named(new QSpinBox(this), "decodeLayerPicker");
    layerPicker_->setToolTip(tr("Which decoder layer's attention to show (the last one by default)"));
    headPicker_ = view_parts::named(new QSpinBox(this), "decodeHeadPicker");
    headPicker_->setToolTip(tr("Which attention head to show (the n_heads axis)"));
    auto* layerLabel = new QLabel(tr("Decoder layer:"), this);
    layerLabel->setBuddy(layerPicker_);
    auto* headLabel = new QLabel(tr("Head:"), this);
    headLabel->setBuddy(headPicker_);
    bar->addWidget(resetButton_);
    bar->addWidget(backButton_);
    bar->addWidget(stepButton_);
    bar->addWidget(playButton_);
    bar->addSpacing(8);
    bar->addWidget(statusLabel_);
    bar->addStretch(1);
    bar->addWidget(layerLabel);
    bar->addWidget(layerPicker_);
    bar->addSpacing(6);
    bar->addWidget(headLabel);
    bar->addWidget(headPicker_);
    root->addLayout(bar);

    messages_ = new MessageStack(this);
    page_ = new DecodeStepPage(messages_);
    messages_->setPage(page_, QStringLiteral("decodeMessageLabel"));
    root->addWidget(messages_, 1);

    playTimer_ = new QTimer(this);
    playTimer_->setInterval(900);
    connect(playTimer_, &QTimer::timeout, this, [this] {
        if (current_ + 1 >= stepCount()) {
            setPlaying(false);
            return;
        }
        setCurrentStep(current_ + 1);
        if (current_ + 1 >= stepCount()) setPlaying(false);
    });
    connect(stepButton_, &QToolButton::clicked, this, &DecodeView::stepForward);
    connect(backButton_, &QToolButton::clicked, this, &DecodeView::stepBackward);
    connect(resetButton_, &QToolButton::clicked, this, &DecodeView::reset);
    connect(playButton_, &QToolButton::toggled, this, &DecodeView::setPlaying);
    connect(headPicker_, &QSpinBox::valueChanged, this, &DecodeView::setHeadIndex);
    connect(layerPicker_, &QSpinBox::valueChanged, this, &DecodeView::setLayerIndex);
    watcher_ = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, [this] {
        const auto outcome = watcher_->result();
        if (outcome && outcome->generation == generation_) applyOutcome(outcome);
    });

    messages_->showMessage(tr("No model yet — the greedy decoder needs a trained model."));
    updateHeader();
    updateButtons();
}

DecodeView::~DecodeView() = default;

// ----- inputs -----------------------------------------------------------------------------------

void DecodeView::setModel(std::shared_ptr<const Transformer> model) {
    model_ = std::move(model);
    if (model_) config_ = model_->config();
    startDecode();
}

void DecodeView::setModel(const Config& config, const ParamSet& params) {
    setModel(std::make_shared<const Transformer>(config, params));
}

void DecodeView::setSource(const QString& source) {
    source_ = source.simplified();
    startDecode();
}

bool DecodeView::isDecoding() const { return decoding_; }

bool DecodeView::waitForDecode(int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (decoding_ && t.elapsed() < timeoutMs) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    return !decoding_;
}

void DecodeView::startDecode() {
    setPlaying(false);
    ++generation_;
    srcTokens_ = source_.split(QLatin1Char(' '), Qt::SkipEmptyParts);
    if (!model_) {
        decoding_ = false;
        steps_.clear();
        current_ = -1;
        messages_->showMessage(tr("No model yet — the greedy decoder needs a trained model."));
        updateHeader();
        updateButtons();
        return;
    }
    const quint64 gen = generation_;
    const auto model = model_;
    const std::string src = source_.toStdString();
    auto work = [model, src, gen]() -> std::shared_ptr<Outcome> {
        auto o = std::make_shared<Outcome>();
        o->generation = gen;
        try {
            DecodeResult r = greedy_decode(*model, src, true);
            for (auto& s : r.steps) {
                DecodingStep st;
                st.decInput = s.dec_input;
                st.probs = s.probs;
                st.chosen = s.chosen;
                st.trace = std::make_shared<const Trace>(std::move(s.trace));
                o->steps.push_back(std::move(st));
            }
            o->reachedEos = r.reached_eos;
            o->text = QString::fromStdString(r.text);
        } catch (const std::exception& e) {
            o->error = coreText(e);
        }
        return o;
    };
    decoding_ = true;
    if (model->params().total_elements() > kAsyncParameterThreshold || model->backend().name() != "cpu") {
        statusLabel_->setText(tr("Decoding…"));
        // With nothing decoded yet the pane said "No model yet" until the worker finished.
        if (steps_.empty())
            messages_->showMessage(source_.isEmpty() ? tr("Decoding…") : tr("Decoding “%1”…").arg(source_));
        stepButton_->setEnabled(false);
        playButton_->setEnabled(false);
        watcher_->setFuture(runInBackground(work));
    } else {
        applyOutcome(work());
    }
}

void DecodeView::applyOutcome(const std::shared_ptr<Outcome>& o) {
    decoding_ = false;
    steps_ = o->steps;
    reachedEos_ = o->reachedEos;
    translation_ = o->text;
    error_ = o->error;
    current_ = steps_.empty() ? -1 : 0;
    if (steps_.empty()) updateStep();  // clears the chips, the bars and the heatmaps
    if (!error_.isEmpty()) {
        messages_->showMessage(tr("Cannot decode “%1”:\n%2").arg(source_, error_));
    } else if (steps_.empty()) {
        messages_->showMessage(tr("Nothing to decode."));
    } else {
        messages_->showPage();
        const int L = std::max(1, config_.decoder_layers());
        {
            const QSignalBlocker b1(layerPicker_), b2(headPicker_);
            layerPicker_->setRange(0, L - 1);
            headPicker_->setRange(0, std::max(0, config_.n_heads - 1));
            head_ = std::clamp(head_, 0, std::max(0, config_.n_heads - 1));
            headPicker_->setValue(head_);
        }
        updateStep();
    }
    updateHeader();
    updateButtons();
    emit decodeFinished();
    emit currentStepChanged(current_);
}

// ----- navigation -------------------------------------------------------------------------------

void DecodeView::stepForward() {
    if (current_ + 1 < stepCount()) setCurrentStep(current_ + 1);
}

void DecodeView::stepBackward() {
    if (current_ > 0) setCurrentStep(current_ - 1);
}

void DecodeView::reset() {
    setPlaying(false);
    if (stepCount() > 0) setCurrentStep(0);
}

void DecodeView::setCurrentStep(int step) {
    if (stepCount() == 0) return;
    step = std::clamp(step, 0, stepCount() - 1);
    if (step == current_) return;
    current_ = step;
    updateStep();
    updateHeader();
    updateButtons();
    emit currentStepChanged(current_);
}

bool DecodeView::isPlaying() const { return playTimer_->isActive(); }

void DecodeView::setPlaying(bool playing) {
    if (playing && stepCount() == 0) playing = false;
    if (playing == isPlaying()) {
        const QSignalBlocker b(playButton_);
        playButton_->setChecked(playing);
        return;
    }
    if (playing) {
        if (current_ + 1 >= stepCount()) setCurrentStep(0);  // play again from the start
        playTimer_->start();
    } else {
        playTimer_->stop();
    }
    {
        const QSignalBlocker b(playButton_);
        playButton_->setChecked(playing);
        playButton_->setText(playing ? tr("‖ Pause") : tr("▶ Play"));
    }
    updateButtons();
    emit playingChanged(playing);
}

void DecodeView::setPlayInterval(int ms) { playTimer_->setInterval(std::max(50, ms)); }

void DecodeView::setHeadIndex(int h) {
    h = std::clamp(h, 0, std::max(0, config_.n_heads - 1));
    if (h == head_) return;
    head_ = h;
    {
        const QSignalBlocker b(headPicker_);
        headPicker_->setValue(h);
    }
    updateHeatmaps();
}

void DecodeView::setLayerIndex(int l) {
    const int L = std::max(1, config_.decoder_layers());
    l = std::clamp(l, 0, L - 1);
    const int stored = l == L - 1 ? -1 : l;
    if (stored == layer_) return;
    layer_ = stored;
    {
        const QSignalBlocker b(layerPicker_);
        layerPicker_->setValue(l);
    }
    updateHeatmaps();
}

// ----- accessors --------------------------------------------------------------------------------

QString DecodeView::tgtToken(int id) const { return DecodeStepPage::token(config_, id); }

QStringList DecodeView::tokensSoFar() const {
    QStringList out;
    for (int i = 0; i <= current_ && i < stepCount(); ++i) out << tgtToken(steps_[size_t(i)].chosen);
    return out;
}

QStringList DecodeView::decoderInput() const {
    QStringList out;
    if (current_ < 0) return out;
    for (int id : steps_[size_t(current_)].decInput) out << tgtToken(id);
    return out;
}

QChart* DecodeView::chart() const { return page_->chart(); }

QStringList DecodeView::barCategories() const { return page_->barCategories(); }

std::vector<float> DecodeView::barValues() const { return page_->barValues(); }

int DecodeView::highestBarIndex() const { return page_->highestBarIndex(); }

int DecodeView::highlightedBarIndex() const { return page_->highlightedBarIndex(); }

HeatmapWidget* DecodeView::selfAttentionHeatmap() const { return page_->selfAttentionHeatmap(); }

HeatmapWidget* DecodeView::crossAttentionHeatmap() const { return page_->crossAttentionHeatmap(); }

const Tensor* DecodeView::currentTensor() const {
    if (current_ < 0 || current_ >= stepCount()) return nullptr;
    const auto& p = steps_[size_t(current_)].probs;
    currentProbs_ = Tensor({int64_t(p.size())}, std::vector<float>(p));
    return &currentProbs_;
}

QString DecodeView::currentTensorName() const {
    if (current_ < 0) return {};
    return QStringLiteral("decode.step%1.probs").arg(current_ + 1);
}

// ----- drawing ----------------------------------------------------------------------------------

QString DecodeView::srcText() const { return srcTokens_.join(QLatin1Char(' ')); }

void DecodeView::updateHeader() {
    // A model without a source (nanoGPT) continues a prompt instead of translating a sentence.
    const bool translates = config_.reads_source();
    const QString outputWord = translates ? tr("Translation:") : tr("Generated:");
    sourceLabel_->setText(QStringLiteral("<span style='color:%q'>%1</span>&nbsp;<b>%2</b>").replace(QStringLiteral("%q"), theme::quietText().name())
                              .arg(translates ? tr("Source:") : tr("Prompt:"), srcText().toHtmlEscaped()));
    sourceLabel_->setToolTip(translates ? tr("enc_input: the source sentence the encoder reads once")
                                        : tr("The prompt: the first two words of the text; the model continues it word by word"));
    if (steps_.empty()) {
        translationLabel_->setText(QStringLiteral("<span style='color:%q'>%1</span>&nbsp;%2").replace(QStringLiteral("%q"), theme::quietText().name())
                                       .arg(outputWord, decoding_ ? tr("decoding…") : QStringLiteral("—")));
        statusLabel_->setText(decoding_ ? tr("Decoding…") : QString());
        return;
    }
    QStringList parts;
    for (int i = 0; i < stepCount(); ++i) {
        const int id = steps_[size_t(i)].chosen;
        const QString tok = tgtToken(id).toHtmlEscaped();
        const bool shown = i <= current_;
        const bool isEnd = id == config_.eos_id();
        QString style = shown ? QStringLiteral("color:#111; font-weight:bold;") : QStringLiteral("color:#c4c4c4;");
        if (i == current_) style = QStringLiteral("color:%1; font-weight:bold;").arg(DecodeStepPage::chosenColor().name());
        if (isEnd) style += QStringLiteral(" font-size:small;");
        parts << QStringLiteral("<span style='%1'>%2</span>").arg(style, tok);
    }
    const bool finished = current_ == stepCount() - 1;
    QString tail;
    if (finished)
        tail = reachedEos_ ? QStringLiteral("&nbsp;&nbsp;<span style='color:#2e7d32; font-size:small'>✔ %1</span>")
                                 .arg(tr("finished: the end token E after %1 steps").arg(stepCount()))
                           : QStringLiteral("&nbsp;&nbsp;<span style='color:#b26a00; font-size:small'>%1</span>")
                                 .arg(translates ? tr("stopped at tgt_len = %1 without the end token").arg(config_.tgt_len)
                                                 : tr("stopped after %1 new words (block_size) without the end token")
                                                       .arg(stepCount()));
    translationLabel_->setText(QStringLiteral("<span style='color:%q'>%1</span>&nbsp;%2%3").replace(QStringLiteral("%q"), theme::quietText().name())
                                   .arg(outputWord, parts.join(QStringLiteral("&nbsp;")), tail));
    translationLabel_->setToolTip(translates ? tr("Greedy translation: %1").arg(translation_)
                                             : tr("Generated greedily: %1").arg(translation_));
    statusLabel_->setText(tr("Step %1 of %2").arg(current_ + 1).arg(stepCount()));
}

void DecodeView::updateButtons() {
    const bool have = stepCount() > 0 && !decoding_;
    stepButton_->setEnabled(have && current_ + 1 < stepCount());
    backButton_->setEnabled(have && current_ > 0);
    resetButton_->setEnabled(have && current_ > 0);
    playButton_->setEnabled(have && (isPlaying() || stepCount() > 1));
    headPicker_->setEnabled(have && config_.n_heads > 1);
    layerPicker_->setEnabled(have && config_.decoder_layers() > 1);
}

void DecodeView::updateStep() {
    const DecodingStep* s = current_ < 0 ? nullptr : &steps_[size_t(current_)];
    page_->showStep(s, current_, config_);
    updateHeatmaps();
}

void DecodeView::updateHeatmaps() {
    if (current_ < 0) {
        page_->showAttention(nullptr, config_, 0, head_);
        return;
    }
    const int L = std::max(1, config_.decoder_layers());
    const int layer = layer_ < 0 ? L - 1 : std::min(layer_, L - 1);
    {
        const QSignalBlocker b(layerPicker_);
        layerPicker_->setValue(layer);
    }
    page_->showAttention(&steps_[size_t(current_)], config_, layer, head_);
}
