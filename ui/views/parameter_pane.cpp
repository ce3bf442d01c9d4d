#include "views/parameter_pane.h"

#include <QBoxLayout>
#include <QComboBox>
#include <QLabel>

#include "steps/tensor_slice.h"
#include "views/gradient_numbers.h"
#include "views/param_layout.h"
#include "views/view_parts.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"
#include "widgets/wrapped_label.h"

using namespace stepformer;
using gradient_numbers::l2;

namespace {

QLabel* makeOpLabel(const QString& text, QWidget* parent) {
    QLabel* l = view_parts::makeOpLabel(text, 12.0, 3.0, parent);
    l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    return l;
}

QString optimizerText(const Optimizer& o) {
    const auto& oo = o.options();
    if (oo.kind == OptimizerKind::Adam)
        return QStringLiteral("Adam (lr %1, \u03b2\u2081 %2, \u03b2\u2082 %3)").arg(numfmt::gradientStat(o.current_lr()), numfmt::gradientStat(oo.beta1), numfmt::gradientStat(oo.beta2));
    return QStringLiteral("SGD (lr %1, momentum %2)").arg(numfmt::gradientStat(o.current_lr()), numfmt::gradientStat(oo.momentum));
}

}  // namespace

ParameterPane::ParameterPane(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("paramSection"));
    auto* botLay = new QVBoxLayout(this);
    botLay->setContentsMargins(0, 6, 0, 0);
    botLay->setSpacing(3);
    auto* pbar = new QHBoxLayout;
    title_ = view_parts::makeTitleLabel(QStringLiteral("paramTitle"), this, view_parts::Selectable::Yes);
    picker_ = new QComboBox(this);
    picker_->setObjectName(QStringLiteral("parameterPicker"));
    picker_->setToolTip(tr("Which weight to show with its gradient and update"));
    picker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    picker_->setMaxVisibleItems(24);
    pbar->addWidget(title_, 1);
    view_parts::addLabelled(pbar, tr("Weight:"), picker_);
    botLay->addLayout(pbar);
    stats_ = view_parts::makeRichLabel(QStringLiteral("paramStatsLabel"), this, view_parts::Selectable::Yes);
    stats_->setTextColor(QColor(0x33, 0x33, 0x33));
    botLay->addWidget(stats_);
    auto* triple = new QWidget(this);
    layout_ = view_parts::makePanelRow(triple, 6);
    weight_ = view_parts::makeHeatmap(QStringLiteral("paramWeightHeatmap"), triple);
    weightGrad_ = view_parts::makeHeatmap(QStringLiteral("paramGradientHeatmap"), triple);
    update_ = view_parts::makeHeatmap(QStringLiteral("paramUpdateHeatmap"), triple);
    layout_->addWidget(weight_, 1);
    layout_->addWidget(makeOpLabel(QStringLiteral("\u2202loss/\u2202W\n\u2192"), triple), 0, Qt::AlignCenter);
    layout_->addWidget(weightGrad_, 1);
    layout_->addWidget(makeOpLabel(QStringLiteral("optimizer\n\u2192"), triple), 0, Qt::AlignCenter);
    layout_->addWidget(update_, 1);
    botLay->addWidget(triple, 1);

    connect(picker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (updating_ || i < 0) return;
        emit parameterPicked(picker_->itemData(i).toString());
    });
    // Zoom the triple together.
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

void ParameterPane::setParameter(const QString& name) {
    param_ = name;
    rebuild();
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
    updating_ = true;
    picker_->clear();
    if (params_)
        for (size_t i = 0; i < params_->size(); ++i) {
            const QString n = QString::fromStdString(params_->name(i));
            picker_->addItem(QStringLiteral("%1  %2").arg(n, tensorviz::shapeText((*params_)[i].shape)), n);
        }
    picker_->setCurrentIndex(picker_->findData(param_));
    updating_ = false;
}

void ParameterPane::rebuild() {
    const bool have = params_ && grads_ && params_->size() > 0;
    setVisible(have);
    if (!have) {
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
        title_->setText(tr("<b>Weights</b>"));
        stats_->setText(tr("Pick a weight to see its gradient and the optimizer's update."));
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

    title_->setText(tr("<b>Weight <tt>%1</tt></b> %2, its gradient and the update the next optimizer step applies")
                             .arg(param_.toHtmlEscaped(), tensorviz::shapeText(W.shape)));
    // Cached per weight and gradient (the sets do not change while shown): a weight has up to a
    // million numbers.
    auto norm = [this](const std::vector<float>& v) {
        const auto it = norms_.constFind(v.data());
        if (it != norms_.constEnd()) return it.value();
        if (norms_.size() >= 256) norms_.clear();
        return norms_.insert(v.data(), l2(v)).value();
    };
    QString stats = tr("\u2016W\u2016 = %1, \u2016\u2202loss/\u2202W\u2016 = %2").arg(numfmt::gradientStat(norm(W.data)), numfmt::gradientStat(norm(G.data)));
    if (haveUpdate)
        stats += tr(", \u2016\u0394W\u2016 = %1 with %2, step %3")
                     .arg(numfmt::gradientStat(previewNorm_), optimizerText(*optimizer_))
                     .arg(optimizer_->step_count() + 1);
    else
        stats += tr("<br>No optimizer given: the update cannot be previewed.");
    if (haveUpdate) {
        stats += optimizer_->options().kind == OptimizerKind::Adam
                     ? tr("<br><span style='color:#555'>Adam divides the (averaged) gradient by its running RMS, so "
                          "every weight moves about lr against the sign of its gradient.</span>")
                     : tr("<br><span style='color:#555'>SGD with momentum: \u0394W = \u2212lr \u00b7 (momentum buffer + "
                          "gradient).</span>");
    }
    stats_->setText(stats);

    // The heatmaps share the numbers with the (immutable) sets instead of copying a million of them.
    const auto fill = [&](HeatmapWidget* w, std::shared_ptr<const std::vector<float>> values, const QString& title,
                          const QString& caption) {
        const HeatmapWidget::Batch batch(w);  // one recolour and relayout
        w->setMatrix(L.rows, L.cols, std::move(values));
        w->setMask({});
        w->setRowLabels(L.rowLabels);
        w->setColLabels(L.colLabels);
        w->setRowAxisTitle(L.rowTitle);
        w->setColAxisTitle(L.colTitle);
        w->setTitle(title);
        w->setColorMode(HeatmapWidget::ColorMode::Diverging);
        w->clearValueRange();
        w->setLegendCaption(caption);
    };
    fill(weight_, std::shared_ptr<const std::vector<float>>(params_, &W.data), tr("W"), tr("weight"));
    fill(weightGrad_, std::shared_ptr<const std::vector<float>>(grads_, &G.data), tr("\u2202loss/\u2202W"), tr("gradient"));
    if (haveUpdate) {
        fill(update_, std::shared_ptr<const std::vector<float>>(preview_, &preview_->data), tr("\u0394W (next step)"), tr("update"));
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
    const auto tip = [params, grads, index, gIndex, update, name, cols, rl, cl](int r, int c) {
        const std::vector<float>& w = (*params)[index].data;
        const std::vector<float>& g = (*grads)[gIndex].data;
        const size_t i = size_t(r) * cols + c;
        if (i >= w.size() || i >= g.size()) return QString();
        QString t = QStringLiteral("<b>%1</b>[%2, %3]").arg(name.toHtmlEscaped(), rl.value(r).toHtmlEscaped(), cl.value(c).toHtmlEscaped());
        t += QStringLiteral("<br>W = <b>%1</b>").arg(numfmt::exact(w[i]));
        t += QStringLiteral("<br>\u2202loss/\u2202W = <b>%1</b>").arg(numfmt::exact(g[i]));
        if (update && i < update->data.size())
            t += QStringLiteral("<br>update \u0394W = <b>%1</b><br>after the step: W = %2")
                     .arg(numfmt::exact(update->data[i]), numfmt::exact(w[i] + update->data[i]));
        return t;
    };
    weight_->setTooltipFunction(tip);
    weightGrad_->setTooltipFunction(tip);
    update_->setTooltipFunction(tip);
    const bool vertical = L.cols > 100 && L.rows < 40;
    layout_->setDirection(vertical ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
}
