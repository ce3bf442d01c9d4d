#include "views/decode_step_page.h"

#include <cmath>
#include "widgets/theme_colors.h"

#include <algorithm>
#include <optional>

#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QBoxLayout>
#include <QChart>
#include <QChartView>
#include <QCursor>
#include <QFontMetrics>
#include <QLabel>
#include <QToolTip>
#include <QValueAxis>

#include "steps/block_text.h"
#include "steps/step_panels.h"
#include "stepformer/trace_graph.h"
#include "views/view_parts.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"

using namespace stepformer;

namespace {

// The chart's least height: lines of the view's font, and pixels.
constexpr int kChartLines = 11;
constexpr int kChartLeastHeight = 185;
// The values over the bars: significant digits. They, and the words under the bars, may shrink to
// this share of their size to fit; below it they are not shown.
constexpr int kBarLabelDigits = 3;
constexpr qreal kSmallestLabelScale = 0.75;
// The words under the bars: this much larger than the view's text, and at least this size (pt).
constexpr qreal kWordExtraPoints = 1.5;
constexpr qreal kWordLeastPoints = 11.0;
constexpr qreal kAxisLabelPadding = 2.0;  // px, Qt Charts' each side of an axis label
const QColor kBarColor(0x6b, 0xae, 0xd6);
const QColor kBarBorder(0x3f, 0x7f, 0xb0);

QString chipStyle(const QString& bg, const QString& border, const QString& fg, bool bold) {
    return QStringLiteral("QLabel { background: %1; border: 1px solid %2; color: %3; border-radius: 11px; "
                          "padding: 3px 11px; font-weight: %4; }")
        .arg(bg, border, fg, bold ? QStringLiteral("bold") : QStringLiteral("normal"));
}

QLabel* makeChip(const QString& text, const QString& style, const QString& tip, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    l->setStyleSheet(style);
    l->setToolTip(tip);
    view_parts::enlargeFont(l, 11.0, 1.5);
    l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    return l;
}

QLabel* makeCaption(QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setTextFormat(Qt::RichText);
    l->setWordWrap(true);
    return l;
}

}  // namespace

QColor DecodeStepPage::chosenColor() { return QColor(0xe6, 0x55, 0x0d); }

QString DecodeStepPage::token(const Config& config, int id) {
    if (id >= 0 && id < config.tgt_vocab_size()) return QString::fromStdString(config.tgt_vocab[size_t(id)]);
    return QString::number(id);
}

DecodeStepPage::DecodeStepPage(QWidget* parent) : QWidget(parent) {
    auto* pageLay = view_parts::makeColumn(this, 6);

    // Decoder input chips.
    chipsHost_ = view_parts::named(new QWidget(this), "decodeInputChips");
    chipsLayout_ = new QHBoxLayout(chipsHost_);
    chipsLayout_->setContentsMargins(0, 2, 0, 2);
    chipsLayout_->setSpacing(6);
    pageLay->addWidget(chipsHost_);

    // Probability chart.
    bars_ = new QBarSet(tr("probability"));
    bars_->setColor(kBarColor);
    bars_->setBorderColor(kBarBorder);
    bars_->setSelectedColor(chosenColor());
    bars_->setLabelColor(QColor(0x30, 0x30, 0x30));
    series_ = new QBarSeries;
    series_->append(bars_);
    series_->setBarWidth(0.7);
    series_->setLabelsVisible(true);
    series_->setLabelsPosition(QAbstractBarSeries::LabelsOutsideEnd);
    series_->setLabelsPrecision(kBarLabelDigits);
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
    axisY_ = new QValueAxis;
    // Ticks every 0.25 (not a fixed count): in a short chart twelve labels were all elided to "…".
    axisY_->setRange(0.0, 1.1);
    axisY_->setTickType(QValueAxis::TicksDynamic);
    axisY_->setTickAnchor(0.0);
    axisY_->setTickInterval(0.25);
    axisY_->setLabelFormat(QStringLiteral("%.2f"));
    axisY_->setTitleText(tr("probability"));
    axisY_->setMinorTickCount(0);
    chart_->addAxis(axisX_, Qt::AlignBottom);
    chart_->addAxis(axisY_, Qt::AlignLeft);
    series_->attachAxis(axisX_);
    series_->attachAxis(axisY_);
    wordColor_ = axisX_->labelsColor();  // the chart theme's
    chartView_ = view_parts::named(new QChartView(chart_, this), "decodeChart");
    chartView_->setRenderHint(QPainter::Antialiasing);
    // The bars and their words read at 185 px at 100 % zoom; the attention maps below need the height
    // more (a row per decoded token, their legends' masked swatch): they get two thirds of what is left.
    fitChartHeight();
    connect(chart_, &QChart::plotAreaChanged, this, [this] { fitBarText(); });
    pageLay->addWidget(chartView_, 4);

    // Attention heatmaps of the last decoder layer.
    auto* attnRow = new QHBoxLayout;
    attnRow->setSpacing(12);
    auto* selfCol = new QVBoxLayout;
    auto* crossCol = new QVBoxLayout;
    selfCaption_ = makeCaption(this);
    crossCaption_ = makeCaption(this);
    selfAttn_ = view_parts::makeHeatmap(QStringLiteral("decodeSelfAttnHeatmap"), this);
    crossAttn_ = view_parts::makeHeatmap(QStringLiteral("decodeCrossAttnHeatmap"), this);
    // Each heatmap's own minimum keeps every query row and its token label (few tokens keep a
    // readable cell size), so the page fits a laptop's window without a fixed height here.
    for (auto* h : {selfAttn_, crossAttn_}) h->setEmptyMessage(tr("Decode a sentence to see the attention."));
    selfCol->addWidget(selfCaption_);
    selfCol->addWidget(selfAttn_, 1);
    crossCol->addWidget(crossCaption_);
    crossCol->addWidget(crossAttn_, 1);
    attnRow->addLayout(selfCol, 1);
    attnRow->addLayout(crossCol, 1);
    pageLay->addLayout(attnRow, 6);

    connect(bars_, &QBarSet::hovered, this, &DecodeStepPage::showBarTip);
}

void DecodeStepPage::showStep(const DecodingStep* s, int index, const Config& config) {
    showChips(s, config);
    showChart(s, index, config);
}

void DecodeStepPage::showBarTip(bool hovered, int index) {
    if (!hovered || shownChosen_ < 0 || index < 0) {
        QToolTip::hideText();
        return;
    }
    if (size_t(index) >= shownProbs_.size()) return;
    QString tip = tr("<b>%1</b>: p = %2").arg(axisX_->categories().value(index).toHtmlEscaped(), numfmt::probability(shownProbs_[size_t(index)]));
    if (index == shownChosen_) tip += tr("<br>the largest probability: greedy decoding picks it");
    QToolTip::showText(QCursor::pos(), tip, chartView_);
}

QStringList DecodeStepPage::barCategories() const { return axisX_->categories(); }

std::vector<float> DecodeStepPage::barValues() const {
    std::vector<float> v;
    for (int i = 0; i < bars_->count(); ++i) v.push_back(float(bars_->at(i)));
    return v;
}

int DecodeStepPage::highestBarIndex() const {
    int best = -1;
    for (int i = 0; i < bars_->count(); ++i)
        if (best < 0 || bars_->at(i) > bars_->at(best)) best = i;
    return best;
}

int DecodeStepPage::highlightedBarIndex() const {
    const QList<int> sel = bars_->selectedBars();
    return sel.size() == 1 ? sel.first() : -1;
}

void DecodeStepPage::showChips(const DecodingStep* step, const Config& config) {
    while (QLayoutItem* item = chipsLayout_->takeAt(0)) {
        if (QWidget* w = item->widget()) w->deleteLater();
        delete item;
    }
    if (!step) return;
    const DecodingStep& s = *step;
    auto* lead = new QLabel(tr("dec_input:"), chipsHost_);
    theme::makeQuiet(lead);
    lead->setToolTip(tr("What the decoder reads in this forward pass: the start symbol and the tokens chosen so far"));
    chipsLayout_->addWidget(lead);
    const QString inStyle = chipStyle(QStringLiteral("#e8f0f8"), QStringLiteral("#9cb8d6"), QStringLiteral("#1b3a5c"), false);
    for (size_t i = 0; i < s.decInput.size(); ++i) {
        const QString tok = token(config, s.decInput[i]);
        const QString tip = i == 0 ? tr("position 0: the start symbol %1").arg(tok)
                                   : tr("position %1: chosen at step %2").arg(i).arg(i);
        chipsLayout_->addWidget(makeChip(tok, inStyle, tip, chipsHost_));
    }
    auto* arrow = new QLabel(QStringLiteral("⟶"), chipsHost_);
    view_parts::enlargeFont(arrow, 13.0, 3.0);
    theme::makeQuiet(arrow);
    chipsLayout_->addWidget(arrow);
    const QString chosen = token(config, s.chosen);
    const float p = size_t(s.chosen) < s.probs.size() ? s.probs[size_t(s.chosen)] : 0.0f;
    const QString chStyle = chipStyle(chosenColor().name(), chosenColor().darker(130).name(), QStringLiteral("white"), true);
    chipsLayout_->addWidget(makeChip(chosen, chStyle,
                                     tr("argmax of the probabilities at the last position: %1 (p = %2)").arg(chosen, numfmt::probability(p)),
                                     chipsHost_));
    auto* note = new QLabel(chipsHost_);
    note->setTextFormat(Qt::RichText);
    QString text = tr("next token = argmax p = <b>%1</b> &nbsp;(p = %2)").arg(chosen.toHtmlEscaped(), numfmt::probability(p));
    if (s.chosen == config.eos_id()) text += tr(" &nbsp;— the end token: decoding stops");
    note->setText(text);
    note->setWordWrap(true);  // six chips and the note must fit a laptop's window: the note wraps
    note->setMinimumWidth(120);
    chipsLayout_->addSpacing(8);
    chipsLayout_->addWidget(note, 1);
}

// ~11 lines of the view's font: 185 px at 100 % zoom. A fixed 185 px left the chart at 150 %
// zoom too short for its own text: every word under the bars, and the axes' titles, became "…".
void DecodeStepPage::fitChartHeight() {
    chartView_->setMinimumHeight(std::max(kChartLeastHeight, kChartLines * fontMetrics().lineSpacing()));
}

void DecodeStepPage::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange && chartView_) fitChartHeight();
}

namespace {

// `font` scaled down, where needed, so that the widest of `texts` takes at most `room` pixels;
// nullopt where that would take it below kSmallestLabelScale of its size.
std::optional<QFont> fitted(QFont font, const QStringList& texts, qreal room) {
    int widest = 0;
    const QFontMetrics fm(font);
    for (const QString& t : texts) widest = std::max(widest, fm.horizontalAdvance(t));
    const qreal scale = widest > 0 ? room / widest : 1.0;  // a text's width scales with its font
    if (scale < kSmallestLabelScale) return std::nullopt;
    if (scale < 1.0) {
        if (font.pointSizeF() > 0)
            font.setPointSizeF(font.pointSizeF() * scale);
        else  // a font sized in pixels
            font.setPixelSize(std::max(1, int(font.pixelSize() * scale)));
    }
    return font;
}

}  // namespace

// The text in the bars' slots, side by side, with a tenth of a slot between neighbours.
// - The values over the bars, as Qt Charts writes them (%g, kBarLabelDigits digits): a small
//   probability reads "0.000499", and with a dozen words two such labels ran into one
//   ("0.0004990.000524"). A smaller font where that fits; else hidden (hovering a bar still shows
//   its value).
// - The words under them: Qt Charts cuts a word that does not fit to "w…". A smaller font where
//   that fits; else none, and the axis's title sends to the bars' tooltips.
void DecodeStepPage::fitBarText() {
    const int n = bars_->count();
    const qreal room = n > 0 ? 0.9 * chart_->plotArea().width() / n : 0.0;
    QStringList values;
    for (int i = 0; i < n; ++i) values << QString::number(bars_->at(i), 'g', kBarLabelDigits);
    const std::optional<QFont> valueFont = fitted(chartView_->font(), values, room);
    if (valueFont) bars_->setLabelFont(*valueFont);
    series_->setLabelsVisible(n > 0 && valueFont);
    QFont words = chartView_->font();  // the words a size larger than the view's text, 11 pt at least
    if (words.pointSizeF() > 0) words.setPointSizeF(std::max(kWordLeastPoints, words.pointSizeF() + kWordExtraPoints));
    QFont title = words;  // the axis's title keeps the words' full size
    title.setBold(true);
    axisX_->setTitleFont(title);
    // Qt Charts cuts a word to the axis's width over n + 1 (its ticks), less a padding each side.
    const qreal wordRoom = n > 0 ? 0.9 * (chart_->plotArea().width() / (n + 1) - 2 * kAxisLabelPadding) : 0.0;
    const std::optional<QFont> wordFont = fitted(words, axisX_->categories(), wordRoom);
    // Still too wide at the smallest size (many words, or a large zoom): Qt Charts would show
    // every one as "…" (slanted too: the slots are then narrower than a line). None, and the
    // title says where they are. (Drawn in no colour rather than hidden: hidden, Qt Charts 6.4
    // left the title no room and cut it to "…" too.)
    if (wordFont) axisX_->setLabelsFont(*wordFont);
    const bool wordsShown = n == 0 || wordFont;
    axisX_->setLabelsColor(wordsShown ? wordColor_ : QColor(Qt::transparent));
    axisX_->setTitleText(wordsShown ? tr("next token (target vocabulary)")
                                    : tr("next token: %n words, hover a bar for its word", nullptr, n));
    // The value axis's title runs along the plot's height: at 150 % zoom "probability" became
    // "probabil…". Where it does not fit, the p of the chart's title.
    const QString probability = tr("probability");
    const bool fits = QFontMetricsF(axisY_->titleFont()).horizontalAdvance(probability) <= chart_->plotArea().height();
    axisY_->setTitleText(fits ? probability : QStringLiteral("p"));
}

void DecodeStepPage::showChart(const DecodingStep* step, int index, const Config& config) {
    shownProbs_.clear();
    shownChosen_ = -1;
    if (!step) {
        bars_->remove(0, bars_->count());
        axisX_->clear();
        return;
    }
    const DecodingStep& s = *step;
    shownProbs_ = s.probs;
    shownChosen_ = s.chosen;
    const int V = static_cast<int>(s.probs.size());
    QStringList cats;
    for (int v = 0; v < V; ++v) cats << token(config, v);
    if (axisX_->categories() != cats) {
        axisX_->clear();
        axisX_->append(cats);
    }
    // A model whose numbers overflowed gives NaN probabilities: Qt Charts ignores such a bar with
    // a warning, so it is drawn as 0 and the title says why (the tooltips show the value itself).
    QList<qreal> values;
    values.reserve(V);
    bool finite = true;
    for (float p : s.probs) {
        finite = finite && std::isfinite(p);
        values << (std::isfinite(p) ? qreal(p) : 0.0);
    }
    if (bars_->count() == V) {
        for (int v = 0; v < V; ++v) bars_->replace(v, values[v]);
    } else {
        bars_->remove(0, bars_->count());
        bars_->append(values);
    }
    bars_->deselectAllBars();
    bars_->selectBar(s.chosen);
    fitBarText();
    QStringList ctx;
    for (int id : s.decInput) ctx << token(config, id);
    QString title = tr("Step %1: P(next token | %2) = softmax(logits)")
                        .arg(index + 1)
                        .arg(ctx.join(QLatin1Char(' ')).toHtmlEscaped());
    if (!finite) title += tr(" — not finite (NaN or ∞): the model's numbers overflowed");
    chart_->setTitle(title);
}

void DecodeStepPage::showAttention(const DecodingStep* step, const Config& config, int layer, int head) {
    if (!step) {
        selfAttn_->clear();
        crossAttn_->clear();
        selfCaption_->clear();
        crossCaption_->clear();
        return;
    }
    const DecodingStep& s = *step;
    // The attention weights (softmax) of the layer's two attention blocks, titled by the block's word.
    const stepformer::Naming naming = s.trace ? tensorviz::traceNaming(*s.trace) : stepformer::Naming{};
    const Block selfBlock{Stack::Decoder, BlockKind::MaskedSelfAttention, layer, naming};
    const Block crossBlock{Stack::Decoder, BlockKind::CrossAttention, layer, naming};
    auto softmaxOf = [&](const Block& b) {
        return s.trace ? QString::fromStdString(graph::name_of(*s.trace, b, Role::Softmax)) : QString();
    };
    auto title = [&](const Block& b) {
        return tr("%1 · layer %2 · head %3").arg(tensorviz::blockWord(b)).arg(layer).arg(head);
    };
    const QString selfName = softmaxOf(selfBlock);
    const QString crossName = softmaxOf(crossBlock);
    const int T = static_cast<int>(s.decInput.size());
    const QString newest = token(config, s.decInput.back()).toHtmlEscaped();

    tensorviz::PanelSpec ps = tensorviz::panelFor(s.trace, config, selfName, 0, head, title(selfBlock));
    tensorviz::applyPanel(selfAttn_, ps);
    tensorviz::PanelSpec pc = tensorviz::panelFor(s.trace, config, crossName, 0, head, title(crossBlock));
    tensorviz::applyPanel(crossAttn_, pc);
    // A decoder-only model has no cross-attention: its self-attention's new row decides the next word.
    const bool hasCross = !crossName.isEmpty();
    crossAttn_->setVisible(hasCross);
    crossCaption_->setVisible(hasCross);
    selfCaption_->setText(hasCross ? tr("<b>Masked self-attention</b> (<tt>%1</tt>): each decoder token looks at itself and the "
                                        "tokens before it. %n query rows now; the new one is <b>“%2”</b>.", nullptr, int(T))
                                         .arg(selfName.toHtmlEscaped(), newest)
                                   : tr("<b>Causal self-attention</b> (<tt>%1</tt>): each token looks at itself and the "
                                        "tokens before it. %n query rows now; the new row <b>“%2”</b> decides the next word.",
                                        nullptr, int(T))
                                         .arg(selfName.toHtmlEscaped(), newest));
    crossCaption_->setText(tr("<b>Encoder-decoder attention</b> (<tt>%1</tt>): which source words each decoder "
                              "token reads. The new row <b>“%2”</b> decides the next token.")
                               .arg(crossName.toHtmlEscaped(), newest));
    selfAttn_->setToolTip(QString());
    crossAttn_->setToolTip(QString());
}
