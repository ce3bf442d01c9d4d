#include "views/parameter_pane.h"
#include "widgets/theme_colors.h"

#include <limits>

#include <QBoxLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QLocale>
#include <QStackedWidget>
#include <QStyle>

#include "app/core_text.h"
#include "steps/tensor_slice.h"
#include "views/gradient_numbers.h"
#include "views/param_blocks.h"
#include "views/param_layout.h"
#include "views/view_parts.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"
#include "widgets/wrapped_label.h"

using namespace stepformer;
using gradient_numbers::l2;

namespace {

QString optimizerText(const Optimizer& o) {
    const auto& oo = o.options();
    if (oo.kind == OptimizerKind::AdamW)
        return QStringLiteral("AdamW (lr %1, β₁ %2, β₂ %3, weight decay %4)")
            .arg(numfmt::gradientStat(o.current_lr()), numfmt::gradientStat(oo.beta1), numfmt::gradientStat(oo.beta2),
                 numfmt::gradientStat(oo.weight_decay));
    if (oo.kind == OptimizerKind::Adam)
        return QStringLiteral("Adam (lr %1, β₁ %2, β₂ %3)").arg(numfmt::gradientStat(o.current_lr()), numfmt::gradientStat(oo.beta1), numfmt::gradientStat(oo.beta2));
    return QStringLiteral("SGD (lr %1, momentum %2)").arg(numfmt::gradientStat(o.current_lr()), numfmt::gradientStat(oo.momentum));
}

}  // namespace

ParameterPane::ParameterPane(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("paramSection"));
    auto* lay = view_parts::makeColumn(this, 3, 0);
    auto* head = new QHBoxLayout;
    title_ = view_parts::makeTitleLabel(QStringLiteral("paramTitle"), this, view_parts::Selectable::Yes);
    picker_ = view_parts::named(new QComboBox(this), "parameterPicker");
    picker_->setToolTip(tr("Which weight to show with its gradient and update"));
    // The picker names the weight and its shape (the longest, with the shape, ~52 characters).
    picker_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    picker_->setMinimumContentsLength(52);
    picker_->setMaxVisibleItems(24);
    title_->setText(tr("<b>Weight:</b>"));
    title_->setBuddy(picker_);
    head->addWidget(title_);
    head->addWidget(picker_);
    head->addStretch(1);
    lay->addLayout(head);
    stats_ = view_parts::makeRichLabel(QStringLiteral("paramStatsLabel"), this, view_parts::Selectable::Yes);
    stats_->setTextColor(QColor(0x33, 0x33, 0x33));
    lay->addWidget(stats_);
    auto* blocksRow = new QHBoxLayout;
    blocksNote_ = view_parts::makeRichLabel(QStringLiteral("paramBlocksNote"), this, view_parts::Selectable::No);
    blocksNote_->setTextColor(QColor(0x55, 0x55, 0x55));
    everyEntryBox_ = view_parts::named(new QCheckBox(tr("Every entry"), this), "paramEveryEntry");
    everyEntryBox_->setToolTip(tr("Show every entry of the weight (zoom with Ctrl+wheel and scroll) instead of its blocks"));
    blocksRow->addWidget(blocksNote_, 1);
    blocksRow->addWidget(everyEntryBox_, 0, Qt::AlignTop);
    lay->addLayout(blocksRow);

    stack_ = new QStackedWidget(this);
    weight_ = view_parts::makeHeatmap(QStringLiteral("paramWeightHeatmap"), stack_);
    weightGrad_ = view_parts::makeHeatmap(QStringLiteral("paramGradientHeatmap"), stack_);
    update_ = view_parts::makeHeatmap(QStringLiteral("paramUpdateHeatmap"), stack_);
    for (HeatmapWidget* h : {weight_, weightGrad_, update_}) stack_->addWidget(h);
    stack_->setCurrentWidget(weightGrad_);
    lay->addWidget(stack_, 1);

    connect(picker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (updating_ || i < 0) return;
        emit parameterPicked(picker_->itemData(i).toString());
    });
    connect(everyEntryBox_, &QCheckBox::toggled, this, &ParameterPane::setEveryEntry);
    // Switching between the three keeps the zoom and the scrolled-to place.
    view_parts::linkHeatmaps({weight_, weightGrad_, update_});
}

void ParameterPane::setTrace(std::shared_ptr<const Trace> trace, const Config& config) {
    trace_ = std::move(trace);
    config_ = config;
    rebuild();
}

void ParameterPane::setParameterGradients(std::shared_ptr<const ParamSet> params, std::shared_ptr<const ParamSet> grads,
                                          std::shared_ptr<const Optimizer> optimizer, const QString& param) {
    params_ = std::move(params);
    grads_ = std::move(grads);
    optimizer_ = std::move(optimizer);
    previews_.clear();
    norms_.clear();
    param_ = param;
    fillPicker();
    rebuild();
}

bool ParameterPane::has(const QString& name) const { return params_ && params_->contains(name.toStdString()); }

bool ParameterPane::hasWeights() const { return params_ && grads_ && params_->size() > 0; }

void ParameterPane::setParameter(const QString& name) {
    param_ = name;
    rebuild();
}

void ParameterPane::setShownMatrix(Matrix m) {
    shown_ = m;
    stack_->setCurrentWidget(shownHeatmap());
}

HeatmapWidget* ParameterPane::shownHeatmap() const {
    switch (shown_) {
    case Matrix::Weight: return weight_;
    case Matrix::Update: return update_;
    case Matrix::Gradient: break;
    }
    return weightGrad_;
}

void ParameterPane::setEveryEntry(bool on) {
    if (on == everyEntry_) return;
    everyEntry_ = on;
    {
        const QSignalBlocker block(everyEntryBox_);
        everyEntryBox_->setChecked(on);
    }
    rebuild();
}

bool ParameterPane::showsBlocks() const { return blocks_; }

int ParameterPane::blockRowsForHeight() const {
    // The cells get the stack's height less the heatmap's title, column labels and margins
    // (~110 px); 64 rows of blocks where they get at least 5 px each.
    if (!isVisible()) return 64;
    return stack_->height() - 110 >= 64 * 5 ? 64 : 32;
}

void ParameterPane::refitBlocks() {
    if (blockRowsForHeight() != maxBlockRows_) rebuild();
}

void ParameterPane::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    refitBlocks();
}

void ParameterPane::showEvent(QShowEvent* e) {
    QWidget::showEvent(e);
    refitBlocks();
}

const Tensor* ParameterPane::gradient() const {
    if (grads_ && !param_.isEmpty() && grads_->contains(param_.toStdString())) return &grads_->at(param_.toStdString());
    return nullptr;
}

QString ParameterPane::gradientName() const {
    return grads_ && !param_.isEmpty() ? QStringLiteral("grad.") + param_ : QString();
}

const Tensor& ParameterPane::previewedUpdate() const {
    static const Tensor none;
    return preview_ ? *preview_ : none;
}

void ParameterPane::fillPicker() {
    if (scanned_.lock() != params_) {
        scanned_ = params_;
        notFinite_.clear();
        notFiniteOrder_.clear();
        if (params_)
            for (auto& bad : non_finite_parameters(*params_)) {
                const QString n = QString::fromStdString(bad.name);
                notFiniteOrder_ << n;
                notFinite_.insert(n, std::move(bad));
            }
    }
    updating_ = true;
    picker_->clear();
    if (params_)
        for (size_t i = 0; i < params_->size(); ++i) {
            const QString n = QString::fromStdString(params_->name(i));
            const QString text = QStringLiteral("%1  %2").arg(n, tensorviz::shapeText((*params_)[i].shape));
            if (!notFinite_.contains(n)) {
                picker_->addItem(text, n);
                continue;
            }
            picker_->addItem(style()->standardIcon(QStyle::SP_MessageBoxWarning), tr("%1  — NaN/inf").arg(text), n);
            picker_->setItemData(picker_->count() - 1, coreText(non_finite_message(notFinite_.value(n))), Qt::ToolTipRole);
        }
    picker_->setCurrentIndex(picker_->findData(param_));
    updating_ = false;
}

void ParameterPane::showStats(const Tensor& W, const Tensor& G, bool haveUpdate) {
    // Cached per weight and gradient (the sets do not change while shown): a weight has up to a
    // million numbers.
    auto norm = [this](const std::vector<float>& v) {
        const auto it = norms_.constFind(v.data());
        if (it != norms_.constEnd()) return it.value();
        if (norms_.size() >= 256) norms_.clear();
        return norms_.insert(v.data(), l2(v)).value();
    };
    QString stats;
    if (const auto bad = notFinite_.constFind(param_); bad != notFinite_.constEnd()) {
        const auto& shape = W.shape;
        const int64_t cols = shape.size() >= 2 ? shape.back() : 0;
        const QString where = cols > 0 ? tr("row %1, column %2").arg(bad->first_index / cols).arg(bad->first_index % cols)
                                       : tr("entry %1").arg(bad->first_index);
        stats = tr("<span style='color:#c62828'>⚠ This weight holds %n NaN or infinite value(s), shown magenta; the first "
                   "is at %1. Everything computed from it is NaN.</span><br>",
                   nullptr, int(std::min<int64_t>(bad->count, std::numeric_limits<int>::max())))
                    .arg(where);
    }
    stats += tr("‖W‖ = %1, ‖∂loss/∂W‖ = %2").arg(numfmt::gradientStat(norm(W.data)), numfmt::gradientStat(norm(G.data)));
    if (haveUpdate)
        stats += tr(", ‖ΔW‖ = %1 with %2, step %3")
                     .arg(numfmt::gradientStat(previewNorm_), optimizerText(*optimizer_))
                     .arg(optimizer_->step_count() + 1);
    else
        stats += tr("<br>No optimizer given: the update cannot be previewed.");
    if (haveUpdate) {
        stats += optimizer_->options().kind != OptimizerKind::SGD
                     ? tr("<br><span style='color:#555'>Adam divides the (averaged) gradient by its running RMS, so "
                          "every weight moves about lr against the sign of its gradient.</span>")
                     : tr("<br><span style='color:#555'>SGD with momentum: ΔW = −lr · (momentum buffer + "
                          "gradient).</span>");
    }
    stats_->setText(theme::themed(stats));
}

void ParameterPane::rebuild() {
    if (!hasWeights()) {
        preview_.reset();
        return;
    }
    {
        updating_ = true;
        picker_->setCurrentIndex(picker_->findData(param_));
        updating_ = false;
    }
    const std::string pn = param_.toStdString();
    if (param_.isEmpty() || !params_->contains(pn) || !grads_->contains(pn)) {
        stats_->setText(tr("Pick a weight to see its gradient and the optimizer's update."));
        blocksNote_->clear();
        everyEntryBox_->hide();
        weight_->clear();
        weightGrad_->clear();
        update_->clear();
        preview_.reset();
        return;
    }
    const size_t index = params_->index_of(pn);
    const Tensor& W = params_->at(pn);
    const Tensor& G = grads_->at(pn);
    if (!optimizer_) {
        preview_.reset();
    } else if (const auto it = previews_.constFind(param_); it != previews_.constEnd()) {
        preview_ = it.value().first;
        previewNorm_ = it.value().second;
    } else {
        if (previews_.size() >= 16) previews_.clear();
        preview_ = std::make_shared<const Tensor>(optimizer_->preview_update(index, W, G));
        previewNorm_ = l2(*preview_);
        previews_.insert(param_, {preview_, previewNorm_});
    }
    const ParamLayout L = paramLayout(config_, trace_.get(), param_, W.shape);
    const bool haveUpdate = preview_ && !preview_->empty() && preview_->size() == W.size();

    showStats(W, G, haveUpdate);

    maxBlockRows_ = blockRowsForHeight();
    const ParamBlocks B = paramBlocks(L.rows, L.cols, maxBlockRows_, 64);
    blocks_ = B.pooled() && !everyEntry_;
    everyEntryBox_->setVisible(B.pooled());
    const QLocale loc;
    if (!B.pooled())
        blocksNote_->setText(tr("Every entry is shown. Hover a cell for its weight, gradient and update."));
    else if (blocks_)
        blocksNote_->setText(tr("%1 entries, shown as %2 × %3 blocks of %4 × %5: each cell is the block's "
                                "largest entry (with its sign). Hover a cell to see which entry it is.")
                                 .arg(loc.toString(qlonglong(W.size())))
                                 .arg(B.blockRows())
                                 .arg(B.blockCols())
                                 .arg(B.rowStep)
                                 .arg(B.colStep));
    else
        blocksNote_->setText(tr("Every one of the %1 entries: Ctrl+wheel zooms, the wheel scrolls.").arg(loc.toString(qlonglong(W.size()))));

    const QStringList rowLabels = blocks_ ? blockLabels(L.rowLabels, B.rowStep) : L.rowLabels;
    const QStringList colLabels = blocks_ ? blockLabels(L.colLabels, B.colStep) : L.colLabels;
    const auto blockTitle = [&](const QString& t, int step) {
        return blocks_ && step > 1 && !t.isEmpty() ? tr("%1 · %2 per cell").arg(t).arg(step) : t;
    };
    // The heatmaps share the numbers with the (immutable) sets instead of copying a million of
    // them; in blocks, the cells with the index of the entry each shows (for the tooltips).
    const auto fill = [&](HeatmapWidget* w, std::shared_ptr<const std::vector<float>> values, const QString& title,
                          const QString& caption) -> std::shared_ptr<const std::vector<int64_t>> {
        std::shared_ptr<const std::vector<int64_t>> source;
        const HeatmapWidget::Batch batch(w);  // one recolour and relayout
        if (blocks_) {
            PooledValues p = poolLargest(*values, B);
            w->setMatrix(B.blockRows(), B.blockCols(), std::move(p.values));
            source = std::move(p.source);
        } else {
            w->setMatrix(L.rows, L.cols, std::move(values));
        }
        w->setMask({});
        w->setRowLabels(rowLabels);
        w->setColLabels(colLabels);
        w->setRowAxisTitle(blockTitle(L.rowTitle, B.rowStep));
        w->setColAxisTitle(blockTitle(L.colTitle, B.colStep));
        w->setTitle(title);
        w->setColorMode(HeatmapWidget::ColorMode::Diverging);
        w->clearValueRange();
        w->setLegendCaption(blocks_ ? tr("%1 (block's largest)").arg(caption) : caption);
        return source;
    };
    const auto wSource = fill(weight_, std::shared_ptr<const std::vector<float>>(params_, &W.data), tr("W"), tr("weight"));
    const auto gSource = fill(weightGrad_, std::shared_ptr<const std::vector<float>>(grads_, &G.data), tr("∂loss/∂W"), tr("gradient"));
    std::shared_ptr<const std::vector<int64_t>> uSource;
    if (haveUpdate) {
        uSource = fill(update_, std::shared_ptr<const std::vector<float>>(preview_, &preview_->data), tr("ΔW (next step)"), tr("update"));
    } else {
        update_->clear();
        update_->setEmptyMessage(tr("No optimizer"));
    }
    // The tooltips read the weight and its gradient from the (immutable, shared) sets rather
    // than from copies: a weight has up to a million numbers.
    const std::shared_ptr<const ParamSet> params = params_, grads = grads_;
    const std::shared_ptr<const Tensor> update = haveUpdate ? preview_ : nullptr;
    const QString name = param_;
    const int cols = L.cols;
    const QStringList rl = L.rowLabels, cl = L.colLabels;
    const size_t gIndex = grads_->index_of(pn);
    const auto entryTip = [params, grads, index, gIndex, update, name, cols, rl, cl](int r, int c) {
        const std::vector<float>& w = (*params)[index].data;
        const std::vector<float>& g = (*grads)[gIndex].data;
        const size_t i = size_t(r) * cols + c;
        if (i >= w.size() || i >= g.size()) return QString();
        QString t = QStringLiteral("<b>%1</b>[%2, %3]").arg(name.toHtmlEscaped(), rl.value(r).toHtmlEscaped(), cl.value(c).toHtmlEscaped());
        t += QStringLiteral("<br>W = <b>%1</b>").arg(numfmt::exact(w[i]));
        t += QStringLiteral("<br>∂loss/∂W = <b>%1</b>").arg(numfmt::exact(g[i]));
        if (update && i < update->data.size())
            t += QStringLiteral("<br>update ΔW = <b>%1</b><br>after the step: W = %2")
                     .arg(numfmt::exact(update->data[i]), numfmt::exact(w[i] + update->data[i]));
        return t;
    };
    const auto tipFor = [&](std::shared_ptr<const std::vector<int64_t>> source, const QString& what) -> HeatmapWidget::TooltipFn {
        if (!source) return entryTip;
        const ParamBlocks b = B;
        return [entryTip, source, b, what, rl, cl](int r, int c) {
            const size_t cell = size_t(r) * size_t(b.blockCols()) + size_t(c);
            if (cell >= source->size() || (*source)[cell] < 0) return QString();
            const int64_t i = (*source)[cell];
            const auto range = [](const QStringList& l, int first, int last) {
                return first == last ? l.value(first) : l.value(first) + QStringLiteral("–") + l.value(last);
            };
            return tr("<i>Block: rows %1, columns %2; its largest %3 is</i><br>")
                       .arg(range(rl, b.firstRow(r), b.lastRow(r)).toHtmlEscaped(),
                            range(cl, b.firstCol(c), b.lastCol(c)).toHtmlEscaped(), what) +
                   entryTip(int(i / b.cols), int(i % b.cols));
        };
    };
    weight_->setTooltipFunction(tipFor(wSource, tr("weight")));
    weightGrad_->setTooltipFunction(tipFor(gSource, tr("gradient")));
    update_->setTooltipFunction(tipFor(uSource, tr("update")));
}
