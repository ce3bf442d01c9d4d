#include "views/decode_view.h"

#include <algorithm>
#include <cmath>

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxLayout>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QElapsedTimer>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTimer>
#include <QToolButton>
#include <QToolTip>
#include <QValueAxis>
#include <QtConcurrent/QtConcurrentRun>

#include "steps/block_text.h"
#include "widgets/heatmap_widget.h"
#include "steps/step_panels.h"
#include "stepformer/model.h"
#include "stepformer/trace_graph.h"
#include "steps/tensor_slice.h"
#include "widgets/number_format.h"

using namespace stepformer;

namespace {

// Models with more parameters than this decode on a worker thread.
constexpr int64_t kAsyncParameterThreshold = 1'000'000;

const QColor kBarColor(0x6b, 0xae, 0xd6);
const QColor kBarBorder(0x3f, 0x7f, 0xb0);
const QColor kChosenColor(0xe6, 0x55, 0x0d);

QString chipStyle(const QString& bg, const QString& border, const QString& fg, bool bold) {
    return QStringLiteral("QLabel { background: %1; border: 1px solid %2; color: %3; border-radius: 11px; "
                          "padding: 3px 11px; font-weight: %4; }")
        .arg(bg, border, fg, bold ? QStringLiteral("bold") : QStringLiteral("normal"));
}

QLabel* makeChip(const QString& text, const QString& style, const QString& tip, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setStyleSheet(style);
    l->setToolTip(tip);
    QFont f = l->font();
    f.setPointSizeF(std::max(11.0, f.pointSizeF() + 1.5));
    l->setFont(f);
    l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    return l;
}

QLabel* makeCaption(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setTextFormat(Qt::RichText);
    l->setWordWrap(true);
    l->setStyleSheet(QStringLiteral("color: #333;"));
    return l;
}

}  // namespace

struct DecodeView::Outcome {
    quint64 generation = 0;
    std::vector<Step> steps;
    bool reachedEos = false;
    QString text;
    QString error;
};

DecodeView::DecodeView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("decodeView"));
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);

    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(8, 6, 8, 6);
    root->setSpacing(6);

    // Source -> translation.
    auto* header = new QHBoxLayout;
    header->setSpacing(10);
    sourceLabel_ = new QLabel(this);
    sourceLabel_->setObjectName(QStringLiteral("decodeSourceLabel"));
    sourceLabel_->setTextFormat(Qt::RichText);
    sourceLabel_->setToolTip(tr("enc_input: the source sentence the encoder reads once"));
    translationLabel_ = new QLabel(this);
    translationLabel_->setObjectName(QStringLiteral("decodeTranslationLabel"));
    translationLabel_->setTextFormat(Qt::RichText);
    translationLabel_->setToolTip(
        tr("The greedy translation: the tokens chosen so far are dark, the ones still to come are pale"));
    QFont hf = sourceLabel_->font();
    hf.setPointSizeF(std::max(12.5, hf.pointSizeF() + 3.0));
    sourceLabel_->setFont(hf);
    translationLabel_->setFont(hf);
    auto* arrow = new QLabel(QStringLiteral("\u27f6"), this);
    arrow->setFont(hf);
    arrow->setStyleSheet(QStringLiteral("color: #888;"));
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
    resetButton_ = mkButton(QStringLiteral("decodeResetButton"), tr("\u21ba Reset"), tr("Back to the first step: only the start symbol S"));
    backButton_ = mkButton(QStringLiteral("decodeBackButton"), tr("\u25c0 Back"), tr("The previous step"));
    stepButton_ = mkButton(QStringLiteral("decodeStepButton"), tr("Step \u25b6"), tr("Run the next forward pass and choose the next token"));
    playButton_ = mkButton(QStringLiteral("decodePlayButton"), tr("\u25b6 Play"), tr("Step automatically until the end token"));
    playButton_->setCheckable(true);
    statusLabel_ = new QLabel(this);
    statusLabel_->setObjectName(QStringLiteral("decodeStatusLabel"));
    statusLabel_->setMinimumWidth(150);
    layerPicker_ = new QSpinBox(this);
    layerPicker_->setObjectName(QStringLiteral("decodeLayerPicker"));
    layerPicker_->setToolTip(tr("Which decoder layer's attention to show (the last one by default)"));
    headPicker_ = new QSpinBox(this);
    headPicker_->setObjectName(QStringLiteral("decodeHeadPicker"));
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

    stack_ = new QStackedWidget(this);
    auto* page = new QWidget(stack_);
    auto* pageLay = new QVBoxLayout(page);
    pageLay->setContentsMargins(0, 0, 0, 0);
    pageLay->setSpacing(6);

    // Decoder input chips.
    chipsHost_ = new QWidget(page);
    chipsHost_->setObjectName(QStringLiteral("decodeInputChips"));
    chipsLayout_ = new QHBoxLayout(chipsHost_);
    chipsLayout_->setContentsMargins(0, 2, 0, 2);
    chipsLayout_->setSpacing(6);
    pageLay->addWidget(chipsHost_);

    // Probability chart.
    bars_ = new QBarSet(tr("probability"));
    bars_->setColor(kBarColor);
    bars_->setBorderColor(kBarBorder);
    bars_->setSelectedColor(kChosenColor);
    bars_->setLabelColor(QColor(0x30, 0x30, 0x30));
    series_ = new QBarSeries;
    series_->append(bars_);
    series_->setBarWidth(0.7);
    series_->setLabelsVisible(true);
    series_->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    series_->setLabelsPrecision(3);
    chart_ = new QChart;
    chart_->addSeries(series_);
    chart_->legend()->hide();
    chart_->setAnimationOptions(QChart::SeriesAnimations);
    chart_->setAnimationDuration(250);
    chart_->setMargins(QMargins(4, 2, 4, 2));
    chart_->setBackgroundRoundness(0);
    QFont titleFont = chart_->titleFont();
    titleFont.setPointSizeF(std::max(11.0, titleFont.pointSizeF() + 1.0));
    chart_->setTitleFont(titleFont);
    axisX_ = new QBarCategoryAxis;
    axisX_->setTitleText(tr("next token (target vocabulary)"));
    QFont catFont = axisX_->labelsFont();
    catFont.setPointSizeF(std::max(11.0, catFont.pointSizeF() + 1.5));
    axisX_->setLabelsFont(catFont);
    axisY_ = new QValueAxis;
    axisY_->setRange(0.0, 1.1);
    axisY_->setTickCount(12);
    axisY_->setLabelFormat(QStringLiteral("%.1f"));
    axisY_->setTitleText(tr("probability"));
    axisY_->setMinorTickCount(0);
    chart_->addAxis(axisX_, Qt::AlignBottom);
    chart_->addAxis(axisY_, Qt::AlignLeft);
    series_->attachAxis(axisX_);
    series_->attachAxis(axisY_);
    chartView_ = new QChartView(chart_, page);
    chartView_->setObjectName(QStringLiteral("decodeChart"));
    chartView_->setRenderHint(QPainter::Antialiasing);
    chartView_->setMinimumHeight(200);
    pageLay->addWidget(chartView_, 4);

    // Attention heatmaps of the last decoder layer.
    auto* attnRow = new QHBoxLayout;
    attnRow->setSpacing(12);
    auto* selfCol = new QVBoxLayout;
    auto* crossCol = new QVBoxLayout;
    selfCaption_ = makeCaption(page);
    crossCaption_ = makeCaption(page);
    selfAttn_ = new HeatmapWidget(page);
    selfAttn_->setObjectName(QStringLiteral("decodeSelfAttnHeatmap"));
    crossAttn_ = new HeatmapWidget(page);
    crossAttn_->setObjectName(QStringLiteral("decodeCrossAttnHeatmap"));
    for (auto* h : {selfAttn_, crossAttn_}) {
        h->setMinimumHeight(150);
        h->setEmptyMessage(tr("Decode a sentence to see the attention."));
    }
    selfCol->addWidget(selfCaption_);
    selfCol->addWidget(selfAttn_, 1);
    crossCol->addWidget(crossCaption_);
    crossCol->addWidget(crossAttn_, 1);
    attnRow->addLayout(selfCol, 1);
    attnRow->addLayout(crossCol, 1);
    pageLay->addLayout(attnRow, 5);

    messageLabel_ = new QLabel(stack_);
    messageLabel_->setObjectName(QStringLiteral("decodeMessageLabel"));
    messageLabel_->setAlignment(Qt::AlignCenter);
    messageLabel_->setWordWrap(true);
    QFont mf = messageLabel_->font();
    mf.setPointSizeF(std::max(12.0, mf.pointSizeF() + 2.0));
    messageLabel_->setFont(mf);
    messageLabel_->setStyleSheet(QStringLiteral("color: #666;"));
    stack_->addWidget(page);
    stack_->addWidget(messageLabel_);
    root->addWidget(stack_, 1);

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
    connect(bars_, &QBarSet::hovered, this, [this](bool status, int index) {
        if (!status || current_ < 0 || index < 0) {
            QToolTip::hideText();
            return;
        }
        const Step& s = steps_[size_t(current_)];
        if (size_t(index) >= s.probs.size()) return;
        QString tip = tr("<b>%1</b>: p = %2").arg(tgtToken(index).toHtmlEscaped(), numfmt::probability(s.probs[size_t(index)]));
        if (index == s.chosen) tip += tr("<br>the largest probability: greedy decoding picks it");
        QToolTip::showText(QCursor::pos(), tip, chartView_);
    });

    watcher_ = new QFutureWatcher<std::shared_ptr<Outcome>>(this);
    connect(watcher_, &QFutureWatcherBase::finished, this, [this] {
        const auto outcome = watcher_->result();
        if (outcome && outcome->generation == generation_) applyOutcome(outcome);
    });

    showMessage(tr("No model yet \u2014 the greedy decoder needs a trained model."));
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
        showMessage(tr("No model yet \u2014 the greedy decoder needs a trained model."));
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
                Step st;
                st.decInput = s.dec_input;
                st.probs = s.probs;
                st.chosen = s.chosen;
                st.trace = std::make_shared<const Trace>(std::move(s.trace));
                o->steps.push_back(std::move(st));
            }
            o->reachedEos = r.reached_eos;
            o->text = QString::fromStdString(r.text);
        } catch (const std::exception& e) {
            o->error = QString::fromUtf8(e.what());
        }
        return o;
    };
    decoding_ = true;
    if (model->params().total_elements() > kAsyncParameterThreshold) {
        statusLabel_->setText(tr("Decoding\u2026"));
        stepButton_->setEnabled(false);
        playButton_->setEnabled(false);
        watcher_->setFuture(QtConcurrent::run(work));
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
        showMessage(tr("Cannot decode \u201c%1\u201d:\n%2").arg(source_, error_));
    } else if (steps_.empty()) {
        showMessage(tr("Nothing to decode."));
    } else {
        stack_->setCurrentIndex(0);
        const int L = std::max(1, config_.n_layers);
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

void DecodeView::showMessage(const QString& text) {
    messageLabel_->setText(text);
    stack_->setCurrentIndex(1);
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
        playButton_->setText(playing ? tr("\u2016 Pause") : tr("\u25b6 Play"));
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
    const int L = std::max(1, config_.n_layers);
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

QString DecodeView::tgtToken(int id) const {
    if (id >= 0 && id < config_.tgt_vocab_size()) return QString::fromStdString(config_.tgt_vocab[size_t(id)]);
    return QString::number(id);
}

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

QStringList DecodeView::barCategories() const { return axisX_->categories(); }

std::vector<float> DecodeView::barValues() const {
    std::vector<float> v;
    for (int i = 0; i < bars_->count(); ++i) v.push_back(float(bars_->at(i)));
    return v;
}

int DecodeView::highestBarIndex() const {
    int best = -1;
    for (int i = 0; i < bars_->count(); ++i)
        if (best < 0 || bars_->at(i) > bars_->at(best)) best = i;
    return best;
}

int DecodeView::highlightedBarIndex() const {
    const QList<int> sel = bars_->selectedBars();
    return sel.size() == 1 ? sel.first() : -1;
}

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
    sourceLabel_->setText(QStringLiteral("<span style='color:#666'>%1</span>&nbsp;<b>%2</b>")
                              .arg(tr("Source:"), srcText().toHtmlEscaped()));
    if (steps_.empty()) {
        translationLabel_->setText(QStringLiteral("<span style='color:#666'>%1</span>&nbsp;%2")
                                       .arg(tr("Translation:"), decoding_ ? tr("decoding\u2026") : QStringLiteral("\u2014")));
        statusLabel_->setText(decoding_ ? tr("Decoding\u2026") : QString());
        return;
    }
    QStringList parts;
    for (int i = 0; i < stepCount(); ++i) {
        const int id = steps_[size_t(i)].chosen;
        const QString tok = tgtToken(id).toHtmlEscaped();
        const bool shown = i <= current_;
        const bool isEnd = id == config_.eos_id();
        QString style = shown ? QStringLiteral("color:#111; font-weight:bold;") : QStringLiteral("color:#c4c4c4;");
        if (i == current_) style = QStringLiteral("color:%1; font-weight:bold;").arg(kChosenColor.name());
        if (isEnd) style += QStringLiteral(" font-size:small;");
        parts << QStringLiteral("<span style='%1'>%2</span>").arg(style, tok);
    }
    const bool finished = current_ == stepCount() - 1;
    QString tail;
    if (finished)
        tail = reachedEos_ ? QStringLiteral("&nbsp;&nbsp;<span style='color:#2e7d32; font-size:small'>\u2714 %1</span>")
                                 .arg(tr("finished: the end token E after %1 steps").arg(stepCount()))
                           : QStringLiteral("&nbsp;&nbsp;<span style='color:#b26a00; font-size:small'>%1</span>")
                                 .arg(tr("stopped at tgt_len = %1 without the end token").arg(config_.tgt_len));
    translationLabel_->setText(QStringLiteral("<span style='color:#666'>%1</span>&nbsp;%2%3")
                                   .arg(tr("Translation:"), parts.join(QStringLiteral("&nbsp;")), tail));
    translationLabel_->setToolTip(tr("Greedy translation: %1").arg(translation_));
    statusLabel_->setText(tr("Step %1 of %2").arg(current_ + 1).arg(stepCount()));
}

void DecodeView::updateButtons() {
    const bool have = stepCount() > 0 && !decoding_;
    stepButton_->setEnabled(have && current_ + 1 < stepCount());
    backButton_->setEnabled(have && current_ > 0);
    resetButton_->setEnabled(have && current_ > 0);
    playButton_->setEnabled(have && (isPlaying() || stepCount() > 1));
    headPicker_->setEnabled(have && config_.n_heads > 1);
    layerPicker_->setEnabled(have && config_.n_layers > 1);
}

void DecodeView::updateStep() {
    updateChips();
    updateChart();
    updateHeatmaps();
}

void DecodeView::updateChips() {
    while (QLayoutItem* item = chipsLayout_->takeAt(0)) {
        if (QWidget* w = item->widget()) w->deleteLater();
        delete item;
    }
    if (current_ < 0) return;
    const Step& s = steps_[size_t(current_)];
    auto* lead = new QLabel(tr("dec_input:"), chipsHost_);
    lead->setStyleSheet(QStringLiteral("color:#555;"));
    lead->setToolTip(tr("What the decoder reads in this forward pass: the start symbol and the tokens chosen so far"));
    chipsLayout_->addWidget(lead);
    const QString inStyle = chipStyle(QStringLiteral("#e8f0f8"), QStringLiteral("#9cb8d6"), QStringLiteral("#1b3a5c"), false);
    for (size_t i = 0; i < s.decInput.size(); ++i) {
        const QString tok = tgtToken(s.decInput[i]);
        const QString tip = i == 0 ? tr("position 0: the start symbol %1").arg(tok)
                                   : tr("position %1: chosen at step %2").arg(i).arg(i);
        chipsLayout_->addWidget(makeChip(tok, inStyle, tip, chipsHost_));
    }
    auto* arrow = new QLabel(QStringLiteral("\u27f6"), chipsHost_);
    QFont af = arrow->font();
    af.setPointSizeF(std::max(13.0, af.pointSizeF() + 3.0));
    arrow->setFont(af);
    arrow->setStyleSheet(QStringLiteral("color:#888;"));
    chipsLayout_->addWidget(arrow);
    const QString chosen = tgtToken(s.chosen);
    const float p = size_t(s.chosen) < s.probs.size() ? s.probs[size_t(s.chosen)] : 0.0f;
    const QString chStyle = chipStyle(kChosenColor.name(), kChosenColor.darker(130).name(), QStringLiteral("white"), true);
    chipsLayout_->addWidget(makeChip(chosen, chStyle,
                                     tr("argmax of the probabilities at the last position: %1 (p = %2)").arg(chosen, numfmt::probability(p)),
                                     chipsHost_));
    auto* note = new QLabel(chipsHost_);
    note->setTextFormat(Qt::RichText);
    QString text = tr("next token = argmax p = <b>%1</b> &nbsp;(p = %2)").arg(chosen.toHtmlEscaped(), numfmt::probability(p));
    if (s.chosen == config_.eos_id()) text += tr(" &nbsp;\u2014 the end token: decoding stops");
    note->setText(text);
    note->setStyleSheet(QStringLiteral("color:#333;"));
    chipsLayout_->addSpacing(8);
    chipsLayout_->addWidget(note);
    chipsLayout_->addStretch(1);
}

void DecodeView::updateChart() {
    if (current_ < 0) {
        bars_->remove(0, bars_->count());
        axisX_->clear();
        return;
    }
    const Step& s = steps_[size_t(current_)];
    const int V = static_cast<int>(s.probs.size());
    QStringList cats;
    for (int v = 0; v < V; ++v) cats << tgtToken(v);
    if (axisX_->categories() != cats) {
        axisX_->clear();
        axisX_->append(cats);
    }
    QList<qreal> values;
    values.reserve(V);
    for (float p : s.probs) values << qreal(p);
    if (bars_->count() == V) {
        for (int v = 0; v < V; ++v) bars_->replace(v, values[v]);
    } else {
        bars_->remove(0, bars_->count());
        bars_->append(values);
    }
    bars_->deselectAllBars();
    bars_->selectBar(s.chosen);
    QStringList ctx;
    for (int id : s.decInput) ctx << tgtToken(id);
    chart_->setTitle(tr("Step %1: P(next token | %2) \u2014 softmax of the logits at the last position")
                         .arg(current_ + 1)
                         .arg(ctx.join(QLatin1Char(' ')).toHtmlEscaped()));
}

void DecodeView::updateHeatmaps() {
    if (current_ < 0) {
        selfAttn_->clear();
        crossAttn_->clear();
        selfCaption_->clear();
        crossCaption_->clear();
        return;
    }
    const Step& s = steps_[size_t(current_)];
    const int L = std::max(1, config_.n_layers);
    const int layer = layer_ < 0 ? L - 1 : std::min(layer_, L - 1);
    {
        const QSignalBlocker b(layerPicker_);
        layerPicker_->setValue(layer);
    }
    // The attention weights (softmax) of the layer's two attention blocks, titled by the block's word.
    const Block selfBlock{Stack::Decoder, BlockKind::MaskedSelfAttention, layer};
    const Block crossBlock{Stack::Decoder, BlockKind::CrossAttention, layer};
    auto softmaxOf = [&](const Block& b) {
        return s.trace ? QString::fromStdString(graph::name_of(*s.trace, b, Role::Softmax)) : QString();
    };
    auto title = [&](const Block& b) {
        return tr("%1 \u00b7 layer %2 \u00b7 head %3").arg(tensorviz::blockWord(b.kind)).arg(layer).arg(head_);
    };
    const QString selfName = softmaxOf(selfBlock);
    const QString crossName = softmaxOf(crossBlock);
    const int T = static_cast<int>(s.decInput.size());
    const QString newest = tgtToken(s.decInput.back()).toHtmlEscaped();

    tensorviz::PanelSpec ps = tensorviz::panelFor(s.trace, config_, selfName, 0, head_, title(selfBlock));
    tensorviz::applyPanel(selfAttn_, ps);
    tensorviz::PanelSpec pc = tensorviz::panelFor(s.trace, config_, crossName, 0, head_, title(crossBlock));
    tensorviz::applyPanel(crossAttn_, pc);
    selfCaption_->setText(tr("<b>Masked self-attention</b> (<tt>%1</tt>): each decoder token looks at itself and the "
                             "tokens before it. %2 query row(s) now; the new one is <b>\u201c%3\u201d</b>.")
                              .arg(selfName.toHtmlEscaped())
                              .arg(T)
                              .arg(newest));
    crossCaption_->setText(tr("<b>Encoder-decoder attention</b> (<tt>%1</tt>): which source words each decoder "
                              "token reads. The new row <b>\u201c%2\u201d</b> decides the next token.")
                               .arg(crossName.toHtmlEscaped(), newest));
    selfAttn_->setToolTip(QString());
    crossAttn_->setToolTip(QString());
}
