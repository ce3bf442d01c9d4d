#include "views/gradient_view.h"
#include "widgets/theme_colors.h"

#include <algorithm>
#include <cmath>

#include <QBoxLayout>
#include <QButtonGroup>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QStackedWidget>
#include <QTextDocumentFragment>
#include <QToolButton>

#include "steps/backward_steps.h"
#include "steps/step_model.h"
#include "steps/step_panels.h"
#include "steps/tensor_slice.h"
#include "stepformer/params.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"
#include "views/gradient_numbers.h"
#include "views/message_stack.h"
#include "views/parameter_pane.h"
#include "views/view_parts.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"
#include "widgets/wrapped_label.h"

using namespace stepformer;
using gradient_numbers::l2;
using tensorviz::PanelSpec;

namespace {

// The pages take the height they are given. The main window's scroll area sizes a view whose
// labels wrap by its height for width, which adds up the pages' size hints: a weight's heatmap
// asks for hundreds of pixels more than a laptop has and would scroll the whole view (nested
// scroll bars).
class PageStack : public QStackedWidget {
public:
    using QStackedWidget::QStackedWidget;
    QSize sizeHint() const override { return minimumSizeHint(); }
    bool hasHeightForWidth() const override { return false; }
    int heightForWidth(int) const override { return -1; }
};

}  // namespace

GradientView::GradientView(QWidget* parent) : StepView(parent, "gradientView") {
    auto* root = makeWhitePage(8, 4);

    QHBoxLayout* bar = makeSentenceHeadBar(batchPicker_, headPicker_);
    bar->addStretch(1);
    root->addLayout(bar);

    stepTitle_ = view_parts::makeTitleLabel(QStringLiteral("gradStepTitle"), this, view_parts::Selectable::Yes);
    root->addWidget(stepTitle_);

    // One page at a time: each gets the whole height (the weights are up to 2048 rows).
    auto* show = new QHBoxLayout;
    show->setSpacing(0);
    show->addWidget(new QLabel(tr("Show:"), this));
    show->addSpacing(6);
    switch_ = new QButtonGroup(this);
    const auto addSwitch = [&](Page p, const char* name, const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setObjectName(QLatin1String(name));
        b->setText(text);
        b->setToolTip(tip);
        b->setCheckable(true);
        b->setToolButtonStyle(Qt::ToolButtonTextOnly);
        switch_->addButton(b, int(p));
        show->addWidget(b);
    };
    addSwitch(Page::Tensor, "gradShowTensor", tr("Tensor and its gradient"),
              tr("The step's tensor beside its gradient ∂loss/∂tensor"));
    addSwitch(Page::Weight, "gradShowWeight", tr("Weight W"), tr("The weight that made this step's tensor"));
    addSwitch(Page::WeightGradient, "gradShowWeightGradient", tr("Its gradient ∂loss/∂W"),
              tr("The weight's gradient: what the backward pass computes for the optimizer"));
    addSwitch(Page::Update, "gradShowUpdate", tr("Update ΔW"),
              tr("What the optimizer's next step would add to the weight"));
    show->addStretch(1);
    root->addLayout(show);

    pages_ = view_parts::named(new PageStack(this), "gradPages");
    // The tensor and its gradient.
    auto* top = new QWidget(pages_);
    auto* topLay = view_parts::makeColumn(top, 3);
    stepStats_ = view_parts::makeRichLabel(QStringLiteral("gradStatsLabel"), top, view_parts::Selectable::Yes);
    stepStats_->setTextColor(QColor(0x33, 0x33, 0x33));
    topLay->addWidget(stepStats_);
    messages_ = new MessageStack(top);
    auto* pair = new QWidget(messages_);
    pairLayout_ = view_parts::makePanelRow(pair, 8);
    value_ = view_parts::makeHeatmap(QStringLiteral("gradValueHeatmap"), pair);
    grad_ = view_parts::makeHeatmap(QStringLiteral("gradGradientHeatmap"), pair);
    pairOp_ = view_parts::makeOpLabel(QStringLiteral("∂loss/∂\n→"), 12.0, 3.0, pair);
    pairOp_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    pairOp_->setToolTip(tr("The gradient has the tensor's shape: one number per entry, how much the loss changes when that entry changes"));
    pairLayout_->addWidget(value_, 1);
    pairLayout_->addWidget(pairOp_, 0, Qt::AlignCenter);
    pairLayout_->addWidget(grad_, 1);
    messages_->setPage(pair, QStringLiteral("gradMessageLabel"));
    topLay->addWidget(messages_, 1);
    pages_->addWidget(top);

    // The weight, its gradient or the optimizer's update.
    paramPane_ = new ParameterPane(pages_);
    pages_->addWidget(paramPane_);
    root->addWidget(pages_, 1);

    onPicked(batchPicker_, [this](int i) { setBatchIndex(i); });
    onPicked(headPicker_, [this](int h) { setHeadIndex(h); });
    connect(paramPane_, &ParameterPane::parameterPicked, this, &GradientView::showParameter);
    connect(switch_, &QButtonGroup::idClicked, this, [this](int id) { showPage(Page(id)); });
    // Zoom and scroll the pair together.
    view_parts::linkHeatmaps({value_, grad_});

    rebuildTensor();
    syncSwitch();
}

GradientView::~GradientView() = default;

// ----- inputs -----------------------------------------------------------------------------------

void GradientView::setTrace(std::shared_ptr<const Trace> trace, const Config& config) {
    StepView::setTrace(std::move(trace), config);
    backwardOrder_ = trace_ ? backwardStepOrder(*trace_) : QStringList();  // once per trace, not per step
    forwardOrder_.clear();
    if (trace_) {
        StepModel forward;  // the navigator's forward numbering
        forward.setTrace(trace_);
        forwardOrder_ = forward.stepOrder();
    }
    if (step_.isEmpty() && !backwardOrder_.isEmpty()) step_ = backwardOrder_.first();
    rebuildTensor();
    paramPane_->setTrace(trace_, config_);
    syncSwitch();
}

void GradientView::setStep(const QString& step) {
    step_ = step.isEmpty() ? QString() : BackwardStepList::gradientName(step);
    fromForward_ = !step.isEmpty() && step != step_;
    focus_ = Focus::Tensor;
    page_ = Page::Tensor;
    rebuildTensor();
    syncSwitch();
    if (!paramPinned_ && paramPane_->params()) {
        const QString rel = canonical(trace_ ? relatedParameter(*trace_, step_, config_.learns_layer_norm()) : QString());
        if (!rel.isEmpty() && paramPane_->has(rel) && rel != paramPane_->parameter()) {
            paramPane_->setParameter(rel);
            emit parameterChanged(rel);
        }
    }
    emit stepChanged(step_);
}

void GradientView::setParameterGradients(std::shared_ptr<const ParamSet> params, std::shared_ptr<const ParamSet> grads,
                                         std::shared_ptr<const Optimizer> optimizer) {
    QString param = paramPane_->parameter();
    if (params && (param.isEmpty() || !params->contains(param.toStdString()))) {
        QString rel = canonical(trace_ ? relatedParameter(*trace_, step_, config_.learns_layer_norm()) : QString());
        if (rel.isEmpty() || !params->contains(rel.toStdString()))
            rel = params->size() ? QString::fromStdString(params->name(params->size() - 1)) : QString();
        param = rel;
        paramPinned_ = false;
    }
    paramPane_->setParameterGradients(std::move(params), std::move(grads), std::move(optimizer), param);
    syncSwitch();
}

bool GradientView::showParameter(const QString& name) {
    if (!paramPane_->has(name)) return false;
    paramPinned_ = true;
    focus_ = Focus::Parameter;
    if (page_ == Page::Tensor) page_ = Page::WeightGradient;
    paramPane_->setParameter(name);
    syncSwitch();
    emit parameterChanged(name);
    return true;
}

void GradientView::showPage(Page p) {
    if (p != Page::Tensor && !parameterSectionVisible()) p = Page::Tensor;
    page_ = p;
    focus_ = p == Page::Tensor ? Focus::Tensor : Focus::Parameter;
    syncSwitch();
}

void GradientView::syncSwitch() {
    const bool weights = parameterSectionVisible();
    if (!weights) page_ = Page::Tensor;
    for (QAbstractButton* b : switch_->buttons()) {
        const Page p = Page(switch_->id(b));
        b->setEnabled(p == Page::Tensor || weights);
        b->setChecked(p == page_);
    }
    switch (page_) {
    case Page::Weight: paramPane_->setShownMatrix(ParameterPane::Matrix::Weight); break;
    case Page::WeightGradient: paramPane_->setShownMatrix(ParameterPane::Matrix::Gradient); break;
    case Page::Update: paramPane_->setShownMatrix(ParameterPane::Matrix::Update); break;
    case Page::Tensor: break;
    }
    pages_->setCurrentWidget(page_ == Page::Tensor ? static_cast<QWidget*>(messages_->parentWidget()) : paramPane_);
}

QString GradientView::headerText() const { return stepTitle_->text().isEmpty() ? QString() : QTextDocumentFragment::fromHtml(stepTitle_->text()).toPlainText(); }

QString GradientView::relatedParameter(const Trace& tr, const QString& step, bool learnedLayerNorm) {
    using stepformer::Role;
    const tensorviz::StepInfo s = tensorviz::stepInfo(tr, step);
    if (!s.forward) return {};
    // The step whose weight stands for this one: a step with no weight of its own leads to the
    // linear layer that made its input.
    const auto weightOf = [&](const stepformer::Block& b, Role r) -> QString {
        const TraceEntry* e = tensorviz::roleEntry(tr, b, r);
        if (!e) return {};
        const auto ps = stepformer::graph::params(tr, *e);
        return ps.empty() ? QString() : QString::fromStdString(ps.front());
    };
    const bool ffn = s.block.kind == stepformer::BlockKind::FeedForward;
    switch (s.role) {
    case Role::Q:
    case Role::ScaledQ:
    case Role::Scores:
    case Role::MaskedScores:
    case Role::Softmax: return weightOf(s.block, Role::Q);
    case Role::K: return weightOf(s.block, Role::K);
    case Role::V:
    case Role::Context: return weightOf(s.block, Role::V);
    case Role::AttnMask: return weightOf(s.block, Role::Q);
    case Role::LayerNorm:
        // A LayerNorm with a learned γ reads its own weight, as its step says (PyTorch's normK, a
        // stack's final norm, attention-is-all-you-need-pytorch's layer_norm).
        if (learnedLayerNorm)
            if (const auto ps = stepformer::graph::params(tr, *s.forward); !ps.empty()) return QString::fromStdString(ps.front());
        [[fallthrough]];
    case Role::OutProjection:
    case Role::FfnOut:
    case Role::Residual: return weightOf(s.block, ffn ? Role::FfnOut : Role::OutProjection);
    case Role::FfnHidden:
    case Role::Relu:
    case Role::Gelu: return weightOf(s.block, Role::FfnHidden);
    case Role::Embedding:
    case Role::PositionalAdd: return weightOf(s.block, Role::Embedding);
    case Role::Logits:
    case Role::Probs:
    case Role::LossPerToken:
    case Role::Loss:
        for (const TraceEntry& e : tr.entries())
            if (e.role == Role::Logits) return weightOf(e.block, Role::Logits);
        return {};
    default: return {};
    }
}

// A shared weight's use (attention-is-all-you-need-pytorch's trg_word_prj.weight) names the one
// parameter it is: the parameter set holds it under its own name.
QString GradientView::canonical(const QString& param) const {
    return param.isEmpty() ? param : QString::fromStdString(stepformer::canonical_param(config_, param.toStdString()));
}

void GradientView::setBatchIndex(int b) {
    if (setIndex(batch_, b)) rebuildTensor();
}

void GradientView::setHeadIndex(int h) {
    if (setIndex(head_, h)) rebuildTensor();
}

bool GradientView::parameterSectionVisible() const { return paramPane_->hasWeights(); }

HeatmapWidget* GradientView::weightHeatmap() const { return paramPane_->weightHeatmap(); }

HeatmapWidget* GradientView::weightGradientHeatmap() const { return paramPane_->weightGradientHeatmap(); }

HeatmapWidget* GradientView::updateHeatmap() const { return paramPane_->updateHeatmap(); }

QString GradientView::currentParameter() const { return paramPane_->parameter(); }

const Tensor& GradientView::previewedUpdate() const { return paramPane_->previewedUpdate(); }

QString GradientView::stepFor(const QString& step) const {
    // A grad.* step, or a forward step whose gradient is traced.
    const QString grad = BackwardStepList::gradientName(step);
    return trace_ && trace_->contains(grad.toStdString()) ? step : QString();
}

const Tensor* GradientView::currentTensor() const {
    if (focus_ == Focus::Parameter)
        if (const Tensor* g = paramPane_->gradient()) return g;
    if (trace_ && !step_.isEmpty())
        if (const auto* e = trace_->find(step_.toStdString())) return &e->value;
    return nullptr;
}

QString GradientView::currentTensorName() const {
    if (focus_ == Focus::Parameter)
        if (const QString g = paramPane_->gradientName(); !g.isEmpty()) return g;
    return step_;
}

// ----- the tensor and its gradient --------------------------------------------------------------

void GradientView::showTitle(const QString& base, const TraceEntry* fe) {
    const QString label = BackwardStepList::friendlyLabel(fe, step_);
    const QString where = fe ? StepModel::locationText(*fe) : StepModel::locationText(base);
    QString title = QStringLiteral("<b>%1</b>&nbsp;&nbsp;<tt>%2</tt>").arg(label.toHtmlEscaped(), step_.toHtmlEscaped());
    if (!where.isEmpty()) title += QStringLiteral("&nbsp;&nbsp;<span style='color:#666'>%1</span>").arg(where.toHtmlEscaped());
    // Numbered as the navigator numbers it: through the forward pass or back through the gradients.
    const int back = backwardOrder_.indexOf(step_), fwd = forwardOrder_.indexOf(base);
    QString pos;
    if (fromForward_ && fwd >= 0)
        pos = back >= 0 ? tr("forward step %1 of %2; its gradient is backward step %3 of %4")
                              .arg(fwd + 1)
                              .arg(forwardOrder_.size())
                              .arg(back + 1)
                              .arg(backwardOrder_.size())
                        : tr("forward step %1 of %2").arg(fwd + 1).arg(forwardOrder_.size());
    else if (back >= 0)
        pos = tr("backward step %1 of %2").arg(back + 1).arg(backwardOrder_.size());
    if (!pos.isEmpty()) title += QStringLiteral("&nbsp;&nbsp;<span style='color:#666'>(%1)</span>").arg(pos);
    stepTitle_->setText(theme::themed(title));
}

void GradientView::syncPickers() {
    updating_ = true;
    tensorviz::syncBatchPicker(batchPicker_, trace_.get(), batch_);
    int H = 0;
    if (trace_ && !step_.isEmpty())
        if (const auto* e = trace_->find(step_.toStdString())) H = tensorviz::axisSize(*e, AxisKind::Head);
    headPicker_->setRange(0, std::max(0, H - 1));
    if (H > 0) head_ = std::clamp(head_, 0, H - 1);
    headPicker_->setValue(std::min(head_, std::max(0, H - 1)));
    headPicker_->setEnabled(H > 1);
    updating_ = false;
}

void GradientView::showTensorMessage(const QString& text) {
    messages_->showMessage(text);
    value_->clear();
    grad_->clear();
    stepStats_->clear();
}

void GradientView::rebuildTensor() {
    syncPickers();
    if (!trace_) {
        stepTitle_->setText(tr("<b>Backward pass</b>"));
        showTensorMessage(tr("No data yet — run a training step to see the gradients."));
        return;
    }
    if (step_.isEmpty()) {
        stepTitle_->setText(tr("<b>Backward pass</b>"));
        showTensorMessage(backwardOrder_.isEmpty()
                              ? tr("This trace has no gradients yet.\nRun a backward pass (a training step) to see them.")
                              : tr("Choose a backward step to see a tensor beside its gradient."));
        return;
    }
    const QString base = BackwardStepList::forwardName(step_);
    const TraceEntry* ge = trace_->find(step_.toStdString());
    const TraceEntry* fe = trace_->find(base.toStdString());
    showTitle(base, fe);
    if (!ge) {
        showTensorMessage(tr("No gradient for “%1” in this trace.\nRun a backward pass (a training step) to see it, "
                             "or pick a step on the loss's path (masks and the positional table have none).")
                              .arg(base));
        return;
    }
    messages_->showPage();

    const QString leaf = [&] {
        return tensorviz::leafName(base);
    }();
    PanelSpec pg = tensorviz::panelFor(trace_, config_, step_, batch_, head_, QStringLiteral("∂loss/∂ ") + leaf);
    PanelSpec pv;
    if (fe)
        pv = tensorviz::panelFor(trace_, config_, base, batch_, head_, leaf + tr("  (forward value)"));
    else
        pv.emptyMessage = tr("'%1' is not in this trace.").arg(base);
    if (pg.hasHead) {
        const QString h = tr("  · head %1").arg(std::clamp(head_, 0, tensorviz::headCount(*ge) - 1));
        pg.title += h;
        if (fe) pv.title += h;
    }
    pg.mode = HeatmapWidget::ColorMode::Diverging;
    pg.fixedRange = false;
    pg.legendCaption = tr("∂loss/∂x");
    const bool sameShape = !pv.m.empty() && pv.m.rows == pg.m.rows && pv.m.cols == pg.m.cols;
    if (sameShape) {
        const tensorviz::Matrix gm = pg.m, vm = pv.m;
        const auto vt = pv.tooltip, gt = pg.tooltip;
        const QString lh = leaf.toHtmlEscaped();
        pv.tooltip = [vt, gm, lh](int r, int c) {
            return (vt ? vt(r, c) : QString()) +
                   tr("<br>∂loss/∂%1 here = <b>%2</b>").arg(lh, numfmt::exact(gm.at(r, c)));
        };
        pg.tooltip = [gt, vm, gm, lh](int r, int c) {
            const float g = gm.at(r, c);
            QString t = gt ? gt(r, c) : QString();
            t += tr("<br>forward value %1 = <b>%2</b>").arg(lh, numfmt::exact(vm.at(r, c)));
            if (g > 0)
                t += tr("<br><i>positive: making this number larger would raise the loss</i>");
            else if (g < 0)
                t += tr("<br><i>negative: making this number larger would lower the loss</i>");
            else
                t += tr("<br><i>zero: this number does not affect the loss here</i>");
            return t;
        };
    }
    // Wide tensors (d_k = 64 per head, d_model = 512, d_ff = 2048) read better stacked: each
    // heatmap then has the whole width for its features, the few token rows lose little height.
    const bool vertical = pg.m.cols > 16 && pg.m.cols >= 2 * pg.m.rows;
    pairLayout_->setDirection(vertical ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
    // Stacked, the gradient's title says it (the page's height goes to the token rows).
    pairOp_->setText(tr("its\ngradient\n→"));
    pairOp_->setVisible(!vertical);
    if (vertical) pg.title = tr("↓ its gradient: %1").arg(pg.title);
    tensorviz::applyPanel(value_, pv);
    tensorviz::applyPanel(grad_, pg);

    // Numbers: the largest gradient entry of the slice and the norms.
    int br = -1, bc = -1;
    float best = 0.0f;
    for (int r = 0; r < pg.m.rows; ++r)
        for (int c = 0; c < pg.m.cols; ++c)
            if (std::fabs(pg.m.at(r, c)) > best) {
                best = std::fabs(pg.m.at(r, c));
                br = r;
                bc = c;
            }
    QString stats = tr("‖∂loss/∂%1‖ = %2 over the whole tensor %3")
                        .arg(leaf.toHtmlEscaped(), numfmt::gradientStat(l2(ge->value)), tensorviz::shapeText(ge->value.shape));
    if (br >= 0)
        stats += tr(";&nbsp; largest here: <b>%1</b> at (%2, %3)")
                     .arg(numfmt::gradientStat(pg.m.at(br, bc)), pg.m.rowLabels.value(br, QString::number(br)).toHtmlEscaped(),
                          pg.m.colLabels.value(bc, QString::number(bc)).toHtmlEscaped());
    // One line on a laptop: the rest of the page is the heatmaps'.
    stats += tr("<br><span style='color:#555'>Red: raising that number would raise the loss; blue: would lower it.</span>");
    stepStats_->setText(theme::themed(stats));
    stepStats_->setToolTip(tr("Gradient descent moves every number against its gradient: the optimizer subtracts "
                              "(a multiple of) it from each weight."));
}

