#include "views/loss_view.h"
#include "widgets/theme_colors.h"
#include "views/loss_formula.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QBoxLayout>
#include <QComboBox>
#include <QEvent>
#include <QHeaderView>
#include <QLabel>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QTableWidget>

#include "widgets/heatmap_widget.h"
#include "stepformer/backend.h"
#include "stepformer/graph.h"
#include "stepformer/loss.h"
#include "stepformer/trace_graph.h"
#include "steps/step_panels.h"
#include "views/message_stack.h"
#include "views/target_heatmap.h"
#include "views/view_parts.h"
#include "widgets/wrapped_label.h"
#include "steps/tensor_slice.h"
#include "widgets/number_format.h"

using namespace stepformer;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
const QColor kIgnoredBg(0xee, 0xee, 0xee);
const QColor kIgnoredFg(0x9a, 0x9a, 0x9a);
const Block kLossBlock{Stack::None, BlockKind::Loss, -1};

QTableWidgetItem* item(const QString& text, Qt::Alignment align = Qt::AlignCenter) {
    auto* it = new QTableWidgetItem(text);
    it->setTextAlignment(align | Qt::AlignVCenter);
    it->setFlags(Qt::ItemIsEnabled | Qt::ItemIsSelectable);
    return it;
}

}  // namespace

LossView::LossView(QWidget* parent) : StepView(parent, "lossView") {
    auto* root = makeWhitePage(8, 6);

    auto* bar = new QHBoxLayout;
    batchPicker_ = tensorviz::makeBatchPicker(this, tr("Which sentence of the batch to show position by position (the loss averages over all of them)"));
    view_parts::addLabelled(bar, tr("Sentence:"), batchPicker_);
    bar->addStretch(1);
    root->addLayout(bar);

    titleLabel_ = view_parts::makeTitleLabel(QStringLiteral("lossTitleLabel"), this, view_parts::Selectable::No);
    root->addWidget(titleLabel_);

    messages_ = new MessageStack(this);
    auto* page = new QWidget(messages_);
    auto* pageLay = view_parts::makeColumn(page, 6);

    auto* maps = new QHBoxLayout;
    maps->setSpacing(8);
    logits_ = view_parts::makeHeatmap<TargetHeatmap>(QStringLiteral("lossLogitsHeatmap"), page);
    probs_ = view_parts::makeHeatmap<TargetHeatmap>(QStringLiteral("lossProbsHeatmap"), page);
    for (auto* h : {logits_, probs_}) h->setValueText(HeatmapWidget::ValueText::Always);  // tall enough: their hint
    QLabel* op = softmaxOp_ = view_parts::makeOpLabel(tr("softmax\n→"), 12.0, 3.0, page);
    op->setToolTip(tr("p[t, v] = exp(z[t, v]) / Σᵤ exp(z[t, u]) along the vocabulary"));
    maps->addWidget(logits_, 1);
    maps->addWidget(op, 0);
    maps->addWidget(probs_, 1);
    target_ = view_parts::makeHeatmap<TargetHeatmap>(QStringLiteral("lossTargetHeatmap"), page);
    target_->setValueText(HeatmapWidget::ValueText::Always);
    target_->setToolTip(tr("The distribution a label-smoothed loss compares p with, row by row"));
    target_->hide();  // a loss with label smoothing only
    maps->addWidget(target_, 1);
    pageLay->addLayout(maps, 1);
    // The maps take the height the table and the formula leave: their natural size (48 px a
    // row) would make the page taller than a laptop's view, where the scroll area asks the
    // page's height for its width. Their minimum (every row readable) is kept in rebuild().
    for (auto* h : {logits_, probs_, target_}) h->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Ignored);

    table_ = view_parts::named(new QTableWidget(page), "lossTable");
    table_->setColumnCount(8);
    table_->setHorizontalHeaderLabels({tr("t"), tr("decoder input"), tr("target"), tr("logit zₜ"),
                                       tr("log Σ e^z"), tr("p(target)"), tr("−log p(target)"), tr("in the loss?")});
    table_->horizontalHeaderItem(3)->setToolTip(tr("The target's logit: z[t, target]"));
    table_->horizontalHeaderItem(4)->setToolTip(tr("log of the softmax's denominator: log Σᵤ exp(z[t, u])"));
    table_->horizontalHeaderItem(5)->setToolTip(tr("softmax probability of the correct token = exp(zₜ − log Σ e^z)"));
    table_->horizontalHeaderItem(6)->setToolTip(tr("cross-entropy of this position = log Σ e^z − zₜ"));
    table_->verticalHeader()->hide();
    table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    table_->setSelectionMode(QAbstractItemView::NoSelection);
    table_->setFocusPolicy(Qt::NoFocus);
    table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
    table_->horizontalHeader()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    table_->setAlternatingRowColors(false);
    table_->setShowGrid(true);
    table_->setStyleSheet(QStringLiteral("QTableWidget { gridline-color: palette(midlight); }"));
    table_->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
    table_->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
    pageLay->addWidget(table_, 0);

    formulaLabel_ = view_parts::makeWrappingLabel(QStringLiteral("lossFormulaLabel"), page);
    formulaLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    formulaLabel_->setStyleSheet(
        QStringLiteral("QLabel { background:#f7f7fb; border:1px solid #dcdce6; border-radius:4px; padding:6px 10px; color:#222; }"));
    view_parts::enlargeFont(formulaLabel_, 11.0, 1.5);
    pageLay->addWidget(formulaLabel_, 0);

    messages_->setPage(page, QStringLiteral("lossMessageLabel"));
    root->addWidget(messages_, 1);

    onPicked(batchPicker_, [this](int i) { setBatchIndex(i); });

    rebuild();
}

LossView::~LossView() = default;

// The maps' least height is every row readable in the current font: kept from the last rebuild,
// View › Zoom 150 % left the 100 % one and the maps scrolled, two rows of six shown.
void LossView::fitMapHeights() {
    for (auto* h : {logits_, probs_, target_}) h->setMinimumHeight(h->minimumSizeHint().height());
}

void LossView::changeEvent(QEvent* e) {
    StepView::changeEvent(e);
    if (e->type() == QEvent::FontChange) fitMapHeights();
}

std::vector<int> LossView::encodeTargets(const Config& config, const QStringList& outputs, int T) {
    const int len = T > 0 ? T : config.tgt_len;
    std::vector<int> ids;
    for (const QString& s : outputs) {
        const auto row = encode_sentence(s.toStdString(), config.tgt_vocab, len, "expected output");
        ids.insert(ids.end(), row.begin(), row.end());
    }
    return ids;
}

void LossView::setTrace(std::shared_ptr<const Trace> trace, const Config& config, std::vector<int> targets) {
    targets_ = std::move(targets);
    setTrace(std::move(trace), config);
}

void LossView::setTrace(std::shared_ptr<const Trace> trace, const Config& config) {
    StepView::setTrace(std::move(trace), config);
    recompute();
    rebuild();
}

void LossView::setTargets(std::vector<int> targets) {
    if (targets == targets_) return;
    targets_ = std::move(targets);
    recompute();
    rebuild();
}

void LossView::setBatchIndex(int b) {
    b = std::clamp(b, 0, std::max(0, B_ - 1));
    if (b == batch_) return;
    batch_ = b;
    rebuild();
    emit batchChanged(batch_);
}

bool LossView::hasData() const { return valid_ && StepView::hasData(); }

bool LossView::isIgnored(int b, int t) const {
    if (!valid_ || b < 0 || t < 0 || b >= B_ || t >= T_) return true;
    return targets_[size_t(b) * T_ + t] == ignoreIndex_;
}

double LossView::probabilityOfTarget(int b, int t) const {
    if (isIgnored(b, t)) return kNaN;
    return p_[size_t(b) * T_ + t];
}

double LossView::negLogProb(int b, int t) const {
    if (isIgnored(b, t)) return kNaN;
    return nll_[size_t(b) * T_ + t];
}

bool LossView::tableMarksIgnored(int t) const {
    if (t < 0 || t >= table_->rowCount()) return false;
    const auto* it = table_->item(t, 7);
    return it && it->text().contains(QLatin1String("ignored"));
}

QString LossView::formulaText() const { return formulaLabel_->text(); }

const Tensor* LossView::currentTensor() const {
    if (!valid_) return nullptr;
    if (trace_)
        if (const auto* e = trace_->find("loss.per_token")) return &e->value;
    return &perToken_;
}

void LossView::recompute() {
    valid_ = false;
    B_ = T_ = V_ = 0;
    lse_.clear();
    zTarget_.clear();
    p_.clear();
    nll_.clear();
    sentenceSum_.clear();
    sentenceCount_.clear();
    sum_ = 0.0;
    mean_ = kNaN;
    loss_ = kNaN;
    logitsName_.clear();
    spec_ = LossSpec{};
    count_ = 0;
    traceLoss_ = kNaN;
    perToken_ = Tensor();
    ownProbs_ = Tensor();
    probValues_ = nullptr;
    ignoreIndex_ = std::max(0, config_.tgt_id(config_.pad));
    if (!trace_) return;
    spec_ = trace_->graph ? trace_->graph->loss : LossSpec{};
    const TraceEntry* logits = graph::output_logits(*trace_);
    if (!logits || logits->value.rank() != 3) return;
    logitsName_ = logits->name;
    B_ = int(logits->value.dim(0));
    T_ = int(logits->value.dim(1));
    V_ = int(logits->value.dim(2));
    if (const TraceEntry* l = graph::find(*trace_, kLossBlock, Role::Loss))
        traceLoss_ = l->value.empty() ? kNaN : double(l->value.data[0]);
    if (targets_.size() != size_t(B_) * T_) return;
    for (int id : targets_)
        if (id < 0 || id >= V_) return;

    const size_t N = size_t(B_) * T_;
    const float* z = logits->value.ptr();
    // The model's softmax; a trace without it gets the same kernel's, never a recomputation here.
    if (const TraceEntry* pe = graph::output_probs(*trace_); pe && pe->value.shape == logits->value.shape) {
        probValues_ = pe->value.ptr();
    } else {
        ownProbs_ = Tensor(logits->value.shape);
        default_backend().softmax_forward(ownProbs_.ptr(), z, int(N), V_);
        probValues_ = ownProbs_.ptr();
    }
    CrossEntropy ce;
    if (smoothed()) {
        // The model's own kernel on the same logits: its per-position terms and their sum.
        ce.per_token.assign(N, 0.0f);
        float total = 0.0f;
        Backend& be = default_backend();
        be.smoothed_cross_entropy_forward(ce.per_token.data(), &total, z, targets_.data(), int(N), V_, ignoreIndex_,
                                          spec_.label_smoothing);
        be.sync();
        for (size_t i = 0; i < N; ++i)
            if (targets_[i] != ignoreIndex_) ++ce.counted;
        ce.sum = total;
    } else {
        ce = cross_entropy(probValues_, targets_.data(), int(N), V_, ignoreIndex_);
    }
    lse_.assign(N, kNaN);
    zTarget_.assign(N, kNaN);
    p_.assign(N, kNaN);
    nll_.assign(ce.per_token.begin(), ce.per_token.end());
    sentenceSum_.assign(size_t(B_), 0.0);
    sentenceCount_.assign(size_t(B_), 0);
    for (size_t i = 0; i < N; ++i) {
        lse_[i] = log_sum_exp(z + i * V_, V_);
        zTarget_[i] = z[i * V_ + targets_[i]];
        p_[i] = probValues_[i * V_ + targets_[i]];
        if (targets_[i] == ignoreIndex_) continue;
        sentenceSum_[i / T_] += nll_[i];
        sentenceCount_[i / T_] += 1;
    }
    perToken_ = Tensor({B_, T_}, ce.per_token);
    sum_ = ce.sum;
    count_ = ce.counted;
    mean_ = count_ > 0 ? ce.mean() : kNaN;
    loss_ = spec_.sum ? double(float(sum_)) : mean_;
    valid_ = true;
}

void LossView::rebuild() {
    updating_ = true;
    const int B = tensorviz::fillBatchPicker(batchPicker_, trace_.get());
    batch_ = std::clamp(batch_, 0, std::max(0, (B_ > 0 ? B_ : B) - 1));
    batchPicker_->setCurrentIndex(batch_);
    batchPicker_->setEnabled(B > 1);
    updating_ = false;

    const QString ignoreTok = QString::fromStdString(config_.tgt_vocab.empty() ? std::string("P") : config_.pad);
    const QString code = QString::fromStdString(spec_.code).toHtmlEscaped();
    const double eps = spec_.label_smoothing;
    if (smoothed())
        // One line: the target distribution is spelled out in its heatmap's title.
        titleLabel_->setText(theme::themed(tr("<b>Label-smoothed cross-entropy, summed</b> &nbsp;<tt>%1</tt>"
                                "<span style='color:#555'> &nbsp;— pad targets (<b>%2</b>) ignored</span>")
                                 .arg(code, ignoreTok.toHtmlEscaped())));
    else
        titleLabel_->setText(theme::themed(tr("<b>Cross-entropy loss</b> &nbsp;<tt>%1</tt>"
                                "<span style='color:#555'> &nbsp;— per position: softmax of the logits, p of the correct "
                                "token, −log p; pad targets (<b>%2</b>, id %3) are ignored.</span>")
                                 .arg(code, ignoreTok.toHtmlEscaped())
                                 .arg(ignoreIndex_)));

    if (!trace_) {
        messages_->showMessage(tr("No data yet — run the forward pass to see the loss."));
        return;
    }
    if (!graph::output_logits(*trace_)) {
        messages_->showMessage(tr("This trace has no logits to compute the loss from."));
        return;
    }
    if (!valid_) {
        messages_->showMessage(tr("No expected output for this target.\nThe loss compares the prediction with dec_output "
                                  "(the target shifted left, ending with the end token %1); type a target sentence "
                                  "that starts with %2 to see it.")
                                   .arg(QString::fromStdString(config_.eos), QString::fromStdString(config_.bos)));
        return;
    }
    messages_->showPage();

    const int b = batch_;
    const Trace& trc = *trace_;
    const TraceEntry& le = trc.at(logitsName_);
    const tensorviz::Matrix ml = tensorviz::slice(trc, le, b, 0, &config_);
    const TraceEntry* pe = graph::output_probs(trc);
    tensorviz::Matrix mp;
    if (pe) {
        mp = tensorviz::slice(trc, *pe, b, 0, &config_);
    } else {
        mp = ml;
        std::copy_n(probValues_ + size_t(b) * T_ * V_, size_t(T_) * V_, mp.values.begin());
    }

    QStringList rowLabels;
    std::vector<int> tcols;
    std::vector<float> mask(size_t(T_) * V_, 0.0f);
    const auto tgtTok = [&](int id) { return QString::fromStdString(config_.tgt_vocab[size_t(id)]); };
    const auto inTok = [&trc, b](int t) {
        return b < int(trc.tgt_tokens.size()) && t < int(trc.tgt_tokens[size_t(b)].size())
                   ? QString::fromStdString(trc.tgt_tokens[size_t(b)][size_t(t)])
                   : QString::number(t);
    };
    for (int t = 0; t < T_; ++t) {
        const int id = targets_[size_t(b) * T_ + t];
        rowLabels << QStringLiteral("%1→%2").arg(inTok(t), tgtTok(id));
        tcols.push_back(id);
        if (id == ignoreIndex_)
            for (int v = 0; v < V_; ++v) mask[size_t(t) * V_ + v] = 1.0f;
    }
    const QString ignoredExpl =
        (spec_.sum ? tr("<i>ignored: the target here is the pad token %1 (id %2), which the loss leaves out of the sum</i>")
                   : tr("<i>ignored: the target here is the pad token %1 (id %2), which the loss leaves out of the mean</i>"))
            .arg(ignoreTok.toHtmlEscaped())
            .arg(ignoreIndex_);
    const QString rowTitle = tr("position t: input → target");

    logits_->setMatrix(ml.rows, ml.cols, ml.values);
    logits_->setMask(mask);
    logits_->setMaskedExplanation(ignoredExpl);
    logits_->setRowLabels(rowLabels);
    logits_->setColLabels(ml.colLabels);
    logits_->setRowAxisTitle(rowTitle);
    logits_->setColAxisTitle(tr("tgt_vocab"));
    logits_->setTitle(tr("logits z = %1").arg(QString::fromStdString(logitsName_)));
    logits_->setColorMode(HeatmapWidget::ColorMode::Diverging);
    logits_->clearValueRange();
    logits_->setLegendCaption(tr("logit"));

    probs_->setMatrix(mp.rows, mp.cols, mp.values);
    probs_->setMask(mask);
    probs_->setMaskedExplanation(ignoredExpl);
    probs_->setRowLabels(rowLabels);
    probs_->setColLabels(mp.colLabels);
    probs_->setRowAxisTitle(rowTitle);
    probs_->setColAxisTitle(tr("tgt_vocab"));
    probs_->setTitle(tr("softmax p (target outlined)"));
    probs_->setColorMode(HeatmapWidget::ColorMode::Sequential);
    probs_->setValueRange(0.0f, 1.0f);
    probs_->setLegendCaption(tr("probability"));
    static_cast<TargetHeatmap*>(logits_)->setTargets(tcols);
    static_cast<TargetHeatmap*>(probs_)->setTargets(tcols);

    // A label-smoothed loss's target distribution q, row by row, and its term per position.
    // Beside p, the q it is compared with; the logits are in the table (z of the target, log Σ e^z).
    target_->setVisible(smoothed());
    logits_->setVisible(!smoothed());
    softmaxOp_->setVisible(!smoothed());
    const double off = eps / std::max(1, V_ - 1);
    if (smoothed()) {
        std::vector<float> q(size_t(T_) * V_, float(off));
        for (int t = 0; t < T_; ++t) q[size_t(t) * V_ + size_t(tcols[size_t(t)])] = float(1.0 - eps);
        target_->setMatrix(T_, V_, q);
        target_->setMask(mask);
        target_->setMaskedExplanation(ignoredExpl);
        target_->setRowLabels(rowLabels);
        target_->setColLabels(mp.colLabels);
        target_->setRowAxisTitle(rowTitle);
        target_->setColAxisTitle(tr("tgt_vocab"));
        target_->setTitle(tr("target q: %1 on the target, %2 elsewhere")
                              .arg(QString::number(1.0 - eps, 'g', 4), QString::number(off, 'g', 4)));
        target_->setToolTip(tr("The label-smoothed target: 1 − ε = %1 on the expected token and ε/(V−1) = %2 "
                               "on each of the other %3 tokens (ε = %4)")
                                .arg(QString::number(1.0 - eps, 'g', 4), QString::number(off, 'g', 4))
                                .arg(V_ - 1)
                                .arg(QString::number(eps, 'g', 4)));
        target_->setColorMode(HeatmapWidget::ColorMode::Sequential);
        target_->setValueRange(0.0f, 1.0f);
        target_->setLegendCaption(tr("q"));
        static_cast<TargetHeatmap*>(target_)->setTargets(tcols);
    }
    fitMapHeights();
    table_->horizontalHeaderItem(6)->setText(smoothed() ? tr("−Σ q log p") : tr("−log p(target)"));
    table_->horizontalHeaderItem(6)->setToolTip(
        smoothed() ? tr("this position's term: −(1−ε) log p(target) − ε/(V−1) Σ of log p over "
                        "the other tokens")
                   : tr("cross-entropy of this position = log Σ e^z − zₜ"));

    const auto cellTip = [this, b, rowLabels, ignoredExpl](bool isProb) {
        return [this, b, rowLabels, ignoredExpl, isProb](int r, int c) {
            const size_t i = size_t(b) * T_ + r;
            const int target = targets_[i];
            const float z = trace_->at(logitsName_).value.ptr()[i * V_ + c];
            const float p = probValues_[i * V_ + c];
            const QString tok = QString::fromStdString(config_.tgt_vocab[size_t(c)]).toHtmlEscaped();
            QString t = tr("<b>position %1</b> (%2)<br>").arg(r).arg(rowLabels.value(r).toHtmlEscaped());
            if (isProb)
                t += tr("p[%1, <b>%2</b>] = exp(z) / Σ exp(z) = exp(%3 − %4) = <b>%5</b>")
                         .arg(r)
                         .arg(tok, numfmt::decimals(z), numfmt::decimals(lse_[i]), numfmt::exact(p));
            else
                t += tr("logit z[%1, <b>%2</b>] = <b>%3</b>").arg(r).arg(tok, numfmt::exact(z));
            if (c == target) {
                if (target == ignoreIndex_)
                    t += QStringLiteral("<br>") + ignoredExpl;
                else
                    t += tr("<br>the correct token: −log p = %1").arg(numfmt::decimals(nll_[i]));
            } else if (target == ignoreIndex_) {
                t += QStringLiteral("<br>") + ignoredExpl;
            }
            return t;
        };
    };
    logits_->setTooltipFunction(cellTip(false));
    probs_->setTooltipFunction(cellTip(true));

    // The −log p of every counted position with as many decimals as the smallest needs, in the
    // table and in the sums (four printed 0.0000 six times and a sum of 0.0001).
    std::vector<double> counted;
    for (size_t i = 0; i < nll_.size(); ++i)
        if (targets_[i] != ignoreIndex_) counted.push_back(nll_[i]);
    const int places = numfmt::decimalsForTerms(counted);

    // The table.
    table_->setRowCount(T_);
    for (int t = 0; t < T_; ++t) {
        const size_t i = size_t(b) * T_ + t;
        const int id = targets_[i];
        const bool ignored = id == ignoreIndex_;
        table_->setItem(t, 0, item(QString::number(t)));
        table_->setItem(t, 1, item(inTok(t)));
        table_->setItem(t, 2, item(tgtTok(id)));
        table_->setItem(t, 3, item(ignored ? QStringLiteral("—") : numfmt::decimals(zTarget_[i])));
        table_->setItem(t, 4, item(ignored ? QStringLiteral("—") : numfmt::decimals(lse_[i])));
        table_->setItem(t, 5, item(ignored ? QStringLiteral("—") : numfmt::decimals(p_[i])));
        table_->setItem(t, 6, item(ignored ? QStringLiteral("—") : numfmt::decimals(nll_[i], places)));
        table_->setItem(t, 7, item(ignored ? tr("ignored (ignore_index=%1)").arg(ignoreIndex_) : tr("✔ counted")));
        for (int c = 0; c < table_->columnCount(); ++c) {
            QTableWidgetItem* it = table_->item(t, c);
            if (ignored) {
                it->setBackground(kIgnoredBg);
                it->setForeground(kIgnoredFg);
                QFont f = it->font();
                f.setItalic(true);
                it->setFont(f);
                it->setToolTip(tr("The target at position %1 is the pad token %2 (id %3): the loss skips it, so it "
                                  "adds nothing to the sum and is not counted.")
                                   .arg(t)
                                   .arg(ignoreTok)
                                   .arg(ignoreIndex_));
            } else if (c == 6) {
                QFont f = it->font();
                f.setBold(true);
                it->setFont(f);
                it->setForeground(QColor(0xb0, 0x3a, 0x00));
            } else if (c == 7) {
                it->setForeground(QColor(0x2e, 0x7d, 0x32));
            }
        }
    }
    {
        // As tall as its rows (up to 10), the heatmaps get the rest. Compact rows (a line of
        // digits and a little room, in the font of the moment: Chinese is taller): the heatmaps
        // above keep their rows at 1366x768.
        table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 3);
        const int shown = std::min(T_, 10);
        const int h = table_->horizontalHeader()->sizeHint().height() + shown * table_->verticalHeader()->defaultSectionSize() +
                      2 * table_->frameWidth() + (T_ > shown ? table_->horizontalScrollBar()->sizeHint().height() : 2);
        table_->setFixedHeight(h);
    }

    // The formula.
    LossFormula f;
    f.sentence = b;
    f.sentences = B_;
    f.summed = spec_.sum;
    for (int t = 0; t < T_; ++t)
        if (const size_t i = size_t(b) * T_ + t; targets_[i] != ignoreIndex_) f.terms.push_back(nll_[i]);
    f.ignoredHere = T_ - sentenceCount_[size_t(b)];
    f.sentenceSums = sentenceSum_;
    f.sentenceCounts = sentenceCount_;
    f.sum = sum_;
    f.count = count_;
    f.mean = mean_;
    f.loss = loss_;
    f.traceLoss = traceLoss_;
    f.places = places;
    formulaLabel_->setText(theme::themed(lossFormulaHtml(f)));
}
