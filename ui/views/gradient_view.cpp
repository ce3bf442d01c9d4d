#include "views/gradient_view.h"
#include "widgets/wrapped_label.h"

#include <algorithm>
#include <cmath>

#include <QBoxLayout>
#include <QComboBox>
#include <QLabel>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QSplitter>
#include <QStackedWidget>

#include "steps/backward_steps.h"
#include "widgets/heatmap_widget.h"
#include "steps/step_model.h"
#include "steps/step_panels.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"
#include "steps/tensor_slice.h"
#include "widgets/number_format.h"

using namespace stepformer;
using tensorviz::PanelSpec;

namespace {

// In SIMD lanes (no threads): one running sum was a long dependency chain, ~1 ms per weight of
// a million numbers; the norms are shown to 4 digits, which the summation order does not move.
double l2(const std::vector<float>& v) {
    double s = 0.0;
    const float* p = v.data();
    const size_t n = v.size();
#pragma omp simd reduction(+ : s)
    for (size_t i = 0; i < n; ++i) s += double(p[i]) * double(p[i]);
    return std::sqrt(s);
}

double l2(const Tensor& t) { return l2(t.data); }

QLabel* makeOpLabel(const QString& text, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setPointSizeF(std::max(12.0, f.pointSizeF() + 3.0));
    f.setBold(true);
    l->setFont(f);
    l->setAlignment(Qt::AlignCenter);
    l->setStyleSheet(QStringLiteral("color:#3a3a3a;"));
    l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    return l;
}

WrappedLabel* makeText(const QString& name, QWidget* parent, double growPt = 0.0) {
    auto* l = new WrappedLabel(parent);
    l->setObjectName(name);
    l->setTextFormat(Qt::RichText);
    l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    if (growPt > 0) {
        QFont f = l->font();
        f.setPointSizeF(std::max(11.0, f.pointSizeF() + growPt));
        l->setFont(f);
    }
    return l;
}

// Rows/columns of a parameter tensor shown as a matrix, with labels that say what they are.
struct ParamLayout {
    int rows = 0, cols = 0;
    QStringList rowLabels, colLabels;
    QString rowTitle, colTitle;
};

QStringList indexLabels(int n) {
    QStringList l;
    for (int i = 0; i < n; ++i) l << QString::number(i);
    return l;
}

QStringList headLabels(int heads, int per) {
    QStringList l;
    for (int h = 0; h < heads; ++h)
        for (int i = 0; i < per; ++i) l << QStringLiteral("h%1\u00b7%2").arg(h).arg(i);
    return l;
}

QStringList vocabLabels(const std::vector<std::string>& v) {
    QStringList l;
    for (const auto& s : v) l << QString::fromStdString(s);
    return l;
}

ParamLayout paramLayout(const Config& c, const Trace* tr, const QString& name, const Shape& shape) {
    ParamLayout p;
    if (shape.empty()) {
        p.rows = p.cols = 1;
    } else if (shape.size() == 1) {
        p.rows = 1;
        p.cols = int(shape[0]);
    } else {
        p.cols = int(shape.back());
        p.rows = int(numel(shape) / std::max<int64_t>(1, shape.back()));
    }
    p.rowLabels = indexLabels(p.rows);
    p.colLabels = indexLabels(p.cols);
    p.colTitle = QStringLiteral("in");
    p.rowTitle = QStringLiteral("out");
    const auto setCols = [&](const QStringList& l, const QString& t) {
        if (l.size() == p.cols) p.colLabels = l;
        p.colTitle = t;
    };
    const auto setRows = [&](const QStringList& l, const QString& t) {
        if (l.size() == p.rows) p.rowLabels = l;
        p.rowTitle = t;
    };
    // What the weight is for, from the step that reads it (and where in its arguments).
    const auto readers = tr ? graph::consumers(*tr, name.toStdString()) : std::vector<const TraceEntry*>{};
    const TraceEntry* use = readers.empty() ? nullptr : readers.front();
    const size_t arg = use ? size_t(std::find(use->inputs.begin(), use->inputs.end(), name.toStdString()) -
                                    use->inputs.begin())
                           : 0;
    const Role role = use ? use->role : Role::Gradient;
    if (role == Role::Embedding && !use->block.decoder()) {
        setRows(vocabLabels(c.src_vocab), QStringLiteral("src_vocab (token)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model"));
    } else if (role == Role::Embedding || role == Role::Logits) {
        setRows(vocabLabels(c.tgt_vocab), QStringLiteral("tgt_vocab (token)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model"));
    } else if (role == Role::Q || role == Role::K) {
        setRows(headLabels(c.n_heads, c.d_k), QStringLiteral("n_heads\u00b7d_k (out)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model (in)"));
    } else if (role == Role::V) {
        setRows(headLabels(c.n_heads, c.d_v), QStringLiteral("n_heads\u00b7d_v (out)"));
        setCols(indexLabels(p.cols), QStringLiteral("d_model (in)"));
    } else if (role == Role::OutProjection) {
        setRows(indexLabels(p.rows), QStringLiteral("d_model (out)"));
        setCols(headLabels(c.n_heads, c.d_v), QStringLiteral("n_heads\u00b7d_v (in)"));
    } else if (role == Role::FfnHidden) {
        p.rowTitle = QStringLiteral("d_ff (out)");
        p.colTitle = QStringLiteral("d_model (in)");
    } else if (role == Role::FfnOut) {
        p.rowTitle = QStringLiteral("d_model (out)");
        p.colTitle = QStringLiteral("d_ff (in)");
    } else if (role == Role::LayerNorm) {  // inputs: residual, gamma, beta
        p.rowTitle = QString();
        p.colTitle = QStringLiteral("d_model");
        p.rowLabels = {arg == 2 ? QStringLiteral("\u03b2") : QStringLiteral("\u03b3")};
    }
    return p;
}

QString optimizerText(const Optimizer& o) {
    const auto& oo = o.options();
    if (oo.kind == OptimizerKind::Adam)
        return QStringLiteral("Adam (lr %1, \u03b2\u2081 %2, \u03b2\u2082 %3)").arg(numfmt::gradientStat(o.current_lr()), numfmt::gradientStat(oo.beta1), numfmt::gradientStat(oo.beta2));
    return QStringLiteral("SGD (lr %1, momentum %2)").arg(numfmt::gradientStat(o.current_lr()), numfmt::gradientStat(oo.momentum));
}

}  // namespace

GradientView::GradientView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("gradientView"));
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);

    auto* root = new QVBoxLayout(this);
    root->setContentsMargins(8, 6, 8, 6);
    root->setSpacing(4);

    auto* bar = new QHBoxLayout;
    bar->setSpacing(6);
    auto* batchLabel = new QLabel(tr("Sentence:"), this);
    batchPicker_ = tensorviz::makeBatchPicker(this, tr("Which sentence of the batch to show (the batch_size axis)"));
    batchLabel->setBuddy(batchPicker_);
    auto* headLabel = new QLabel(tr("Head:"), this);
    headPicker_ = new QSpinBox(this);
    headPicker_->setObjectName(QStringLiteral("headPicker"));
    headPicker_->setToolTip(tr("Which attention head to show (the n_heads axis)"));
    headLabel->setBuddy(headPicker_);
    bar->addWidget(batchLabel);
    bar->addWidget(batchPicker_);
    bar->addSpacing(10);
    bar->addWidget(headLabel);
    bar->addWidget(headPicker_);
    bar->addStretch(1);
    root->addLayout(bar);

    splitter_ = new QSplitter(Qt::Vertical, this);
    splitter_->setChildrenCollapsible(false);

    // Tensor and its gradient.
    auto* top = new QWidget(splitter_);
    auto* topLay = new QVBoxLayout(top);
    topLay->setContentsMargins(0, 0, 0, 0);
    topLay->setSpacing(3);
    stepTitle_ = makeText(QStringLiteral("gradStepTitle"), top, 1.0);
    stepStats_ = makeText(QStringLiteral("gradStatsLabel"), top);
    stepStats_->setTextColor(QColor(0x33, 0x33, 0x33));
    topLay->addWidget(stepTitle_);
    topLay->addWidget(stepStats_);
    tensorStack_ = new QStackedWidget(top);
    auto* pair = new QWidget(tensorStack_);
    pairLayout_ = new QBoxLayout(QBoxLayout::LeftToRight, pair);
    pairLayout_->setContentsMargins(0, 2, 0, 0);
    pairLayout_->setSpacing(8);
    value_ = new HeatmapWidget(pair);
    value_->setObjectName(QStringLiteral("gradValueHeatmap"));
    grad_ = new HeatmapWidget(pair);
    grad_->setObjectName(QStringLiteral("gradGradientHeatmap"));
    pairOp_ = makeOpLabel(QStringLiteral("\u2202loss/\u2202\n\u2192"), pair);
    pairOp_->setToolTip(tr("The gradient has the tensor's shape: one number per entry, how much the loss changes when that entry changes"));
    pairLayout_->addWidget(value_, 1);
    pairLayout_->addWidget(pairOp_, 0, Qt::AlignCenter);
    pairLayout_->addWidget(grad_, 1);
    tensorMessage_ = new QLabel(tensorStack_);
    tensorMessage_->setObjectName(QStringLiteral("gradMessageLabel"));
    tensorMessage_->setAlignment(Qt::AlignCenter);
    tensorMessage_->setWordWrap(true);
    QFont mf = tensorMessage_->font();
    mf.setPointSizeF(std::max(12.0, mf.pointSizeF() + 2.0));
    tensorMessage_->setFont(mf);
    tensorMessage_->setStyleSheet(QStringLiteral("color:#666;"));
    tensorStack_->addWidget(pair);
    tensorStack_->addWidget(tensorMessage_);
    topLay->addWidget(tensorStack_, 1);

    // The weight, its gradient and the optimizer's update.
    paramSection_ = new QWidget(splitter_);
    paramSection_->setObjectName(QStringLiteral("paramSection"));
    auto* botLay = new QVBoxLayout(paramSection_);
    botLay->setContentsMargins(0, 6, 0, 0);
    botLay->setSpacing(3);
    auto* pbar = new QHBoxLayout;
    paramTitle_ = makeText(QStringLiteral("paramTitle"), paramSection_, 1.0);
    paramPicker_ = new QComboBox(paramSection_);
    paramPicker_->setObjectName(QStringLiteral("parameterPicker"));
    paramPicker_->setToolTip(tr("Which weight to show with its gradient and update"));
    paramPicker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    paramPicker_->setMaxVisibleItems(24);
    auto* plabel = new QLabel(tr("Weight:"), paramSection_);
    plabel->setBuddy(paramPicker_);
    pbar->addWidget(paramTitle_, 1);
    pbar->addWidget(plabel);
    pbar->addWidget(paramPicker_);
    botLay->addLayout(pbar);
    paramStats_ = makeText(QStringLiteral("paramStatsLabel"), paramSection_);
    paramStats_->setTextColor(QColor(0x33, 0x33, 0x33));
    botLay->addWidget(paramStats_);
    auto* triple = new QWidget(paramSection_);
    paramLayout_ = new QBoxLayout(QBoxLayout::LeftToRight, triple);
    paramLayout_->setContentsMargins(0, 2, 0, 0);
    paramLayout_->setSpacing(6);
    weight_ = new HeatmapWidget(triple);
    weight_->setObjectName(QStringLiteral("paramWeightHeatmap"));
    weightGrad_ = new HeatmapWidget(triple);
    weightGrad_->setObjectName(QStringLiteral("paramGradientHeatmap"));
    update_ = new HeatmapWidget(triple);
    update_->setObjectName(QStringLiteral("paramUpdateHeatmap"));
    paramLayout_->addWidget(weight_, 1);
    paramLayout_->addWidget(makeOpLabel(QStringLiteral("\u2202loss/\u2202W\n\u2192"), triple), 0, Qt::AlignCenter);
    paramLayout_->addWidget(weightGrad_, 1);
    paramLayout_->addWidget(makeOpLabel(QStringLiteral("optimizer\n\u2192"), triple), 0, Qt::AlignCenter);
    paramLayout_->addWidget(update_, 1);
    botLay->addWidget(triple, 1);

    splitter_->addWidget(top);
    splitter_->addWidget(paramSection_);
    splitter_->setStretchFactor(0, 1);
    splitter_->setStretchFactor(1, 1);
    root->addWidget(splitter_, 1);
    paramSection_->hide();

    connect(batchPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (!updating_ && i >= 0) setBatchIndex(i);
    });
    connect(headPicker_, &QSpinBox::valueChanged, this, [this](int h) {
        if (!updating_) setHeadIndex(h);
    });
    connect(paramPicker_, &QComboBox::currentIndexChanged, this, [this](int i) {
        if (updating_ || i < 0) return;
        showParameter(paramPicker_->itemData(i).toString());
    });
    // Zoom the pair together, and the triple together.
    for (auto* a : {value_, grad_})
        for (auto* b : {value_, grad_})
            if (a != b) {
                connect(a, &HeatmapWidget::zoomChanged, b, &HeatmapWidget::setZoom);
                connect(a->horizontalScrollBar(), &QScrollBar::valueChanged, b->horizontalScrollBar(), &QScrollBar::setValue);
                connect(a->verticalScrollBar(), &QScrollBar::valueChanged, b->verticalScrollBar(), &QScrollBar::setValue);
            }
    for (auto* a : {weight_, weightGrad_, update_})
        for (auto* b : {weight_, weightGrad_, update_})
            if (a != b) {
                connect(a, &HeatmapWidget::zoomChanged, b, &HeatmapWidget::setZoom);
                connect(a->horizontalScrollBar(), &QScrollBar::valueChanged, b->horizontalScrollBar(), &QScrollBar::setValue);
                connect(a->verticalScrollBar(), &QScrollBar::valueChanged, b->verticalScrollBar(), &QScrollBar::setValue);
            }

    rebuildTensor();
}

GradientView::~GradientView() = default;

// ----- inputs -----------------------------------------------------------------------------------

void GradientView::setTrace(std::shared_ptr<const Trace> trace, const Config& config) {
    trace_ = std::move(trace);
    config_ = config;
    backwardOrder_ = trace_ ? backwardStepOrder(*trace_) : QStringList();  // once per trace, not per step
    if (step_.isEmpty() && !backwardOrder_.isEmpty()) step_ = backwardOrder_.first();
    rebuildTensor();
    rebuildParameter();
}

void GradientView::setStep(const QString& step) {
    step_ = step.isEmpty() ? QString() : BackwardStepList::gradientName(step);
    focus_ = Focus::Tensor;
    rebuildTensor();
    if (!paramPinned_ && params_) {
        const QString rel = (trace_ ? relatedParameter(*trace_, step_, config_.learn_layer_norm) : QString());
        if (!rel.isEmpty() && params_->contains(rel.toStdString()) && rel != param_) {
            param_ = rel;
            rebuildParameter();
            emit parameterChanged(param_);
        }
    }
    emit stepChanged(step_);
}

void GradientView::setParameterGradients(std::shared_ptr<const ParamSet> params, std::shared_ptr<const ParamSet> grads,
                                         std::shared_ptr<const Optimizer> optimizer) {
    params_ = std::move(params);
    grads_ = std::move(grads);
    optimizer_ = std::move(optimizer);
    previews_.clear();
    norms_.clear();
    if (params_ && (param_.isEmpty() || !params_->contains(param_.toStdString()))) {
        QString rel = (trace_ ? relatedParameter(*trace_, step_, config_.learn_layer_norm) : QString());
        if (rel.isEmpty() || !params_->contains(rel.toStdString()))
            rel = params_->size() ? QString::fromStdString(params_->name(params_->size() - 1)) : QString();
        param_ = rel;
        paramPinned_ = false;
    }
    fillParameterPicker();
    rebuildParameter();
}

bool GradientView::showParameter(const QString& name) {
    if (!params_ || !params_->contains(name.toStdString())) return false;
    param_ = name;
    paramPinned_ = true;
    focus_ = Focus::Parameter;
    rebuildParameter();
    emit parameterChanged(param_);
    return true;
}

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
    case Role::Scores:
    case Role::MaskedScores:
    case Role::Softmax: return weightOf(s.block, Role::Q);
    case Role::K: return weightOf(s.block, Role::K);
    case Role::V:
    case Role::Context: return weightOf(s.block, Role::V);
    case Role::LayerNorm:
        if (learnedLayerNorm) return QString::fromStdString(stepformer::names::param(s.block, "layer_norm.weight"));
        [[fallthrough]];
    case Role::OutProjection:
    case Role::FfnOut:
    case Role::Residual: return weightOf(s.block, ffn ? Role::FfnOut : Role::OutProjection);
    case Role::FfnHidden:
    case Role::Relu: return weightOf(s.block, Role::FfnHidden);
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

void GradientView::setBatchIndex(int b) {
    b = std::max(0, b);
    if (b == batch_) return;
    batch_ = b;
    rebuildTensor();
}

void GradientView::setHeadIndex(int h) {
    h = std::max(0, h);
    if (h == head_) return;
    head_ = h;
    rebuildTensor();
}

bool GradientView::hasData() const { return tensorStack_->currentIndex() == 0; }

QString GradientView::message() const { return tensorStack_->currentIndex() == 1 ? tensorMessage_->text() : QString(); }

bool GradientView::parameterSectionVisible() const { return !paramSection_->isHidden(); }

const Tensor* GradientView::currentTensor() const {
    if (focus_ == Focus::Parameter && grads_ && !param_.isEmpty() && grads_->contains(param_.toStdString()))
        return &grads_->at(param_.toStdString());
    if (trace_ && !step_.isEmpty())
        if (const auto* e = trace_->find(step_.toStdString())) return &e->value;
    return nullptr;
}

QString GradientView::currentTensorName() const {
    if (focus_ == Focus::Parameter && grads_ && !param_.isEmpty()) return QStringLiteral("grad.") + param_;
    return step_;
}

// ----- the tensor and its gradient --------------------------------------------------------------

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
    tensorMessage_->setText(text);
    tensorStack_->setCurrentIndex(1);
    value_->clear();
    grad_->clear();
    stepStats_->clear();
}

void GradientView::rebuildTensor() {
    syncPickers();
    if (!trace_) {
        stepTitle_->setText(tr("<b>Backward pass</b>"));
        showTensorMessage(tr("No data yet \u2014 run a training step to see the gradients."));
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
    const QString label = BackwardStepList::friendlyLabel(fe, step_);
    const QString where = fe ? StepModel::locationText(*fe) : StepModel::locationText(base);
    const QStringList& order = backwardOrder_;
    const int pos = order.indexOf(step_);
    QString title = QStringLiteral("<b>%1</b>&nbsp;&nbsp;<tt>%2</tt>").arg(label.toHtmlEscaped(), step_.toHtmlEscaped());
    if (!where.isEmpty()) title += QStringLiteral("&nbsp;&nbsp;<span style='color:#666'>%1</span>").arg(where.toHtmlEscaped());
    if (pos >= 0)
        title += QStringLiteral("&nbsp;&nbsp;<span style='color:#666'>%1</span>")
                     .arg(tr("(backward step %1 of %2)").arg(pos + 1).arg(order.size()));
    stepTitle_->setText(title);
    if (!ge) {
        showTensorMessage(tr("No gradient for \u201c%1\u201d in this trace.\nRun a backward pass (a training step) to see it, "
                             "or pick a step on the loss's path (masks and the positional table have none).")
                              .arg(base));
        return;
    }
    tensorStack_->setCurrentIndex(0);

    const QString leaf = [&] {
        return tensorviz::leafName(base);
    }();
    PanelSpec pg = tensorviz::panelFor(trace_, config_, step_, batch_, head_, QStringLiteral("\u2202loss/\u2202 ") + leaf);
    PanelSpec pv;
    if (fe)
        pv = tensorviz::panelFor(trace_, config_, base, batch_, head_, leaf + tr("  (forward value)"));
    else
        pv.emptyMessage = tr("'%1' is not in this trace.").arg(base);
    if (pg.hasHead) {
        const QString h = tr("  \u00b7 head %1").arg(std::clamp(head_, 0, tensorviz::headCount(*ge) - 1));
        pg.title += h;
        if (fe) pv.title += h;
    }
    pg.mode = HeatmapWidget::ColorMode::Diverging;
    pg.fixedRange = false;
    pg.legendCaption = tr("\u2202loss/\u2202x");
    const bool sameShape = !pv.m.empty() && pv.m.rows == pg.m.rows && pv.m.cols == pg.m.cols;
    if (sameShape) {
        const tensorviz::Matrix gm = pg.m, vm = pv.m;
        const auto vt = pv.tooltip, gt = pg.tooltip;
        const QString lh = leaf.toHtmlEscaped();
        pv.tooltip = [vt, gm, lh](int r, int c) {
            return (vt ? vt(r, c) : QString()) +
                   QStringLiteral("<br>\u2202loss/\u2202%1 here = <b>%2</b>").arg(lh, numfmt::exact(gm.at(r, c)));
        };
        pg.tooltip = [gt, vm, gm, lh](int r, int c) {
            const float g = gm.at(r, c);
            QString t = gt ? gt(r, c) : QString();
            t += QStringLiteral("<br>forward value %1 = <b>%2</b>").arg(lh, numfmt::exact(vm.at(r, c)));
            if (g > 0)
                t += tr("<br><i>positive: making this number larger would raise the loss</i>");
            else if (g < 0)
                t += tr("<br><i>negative: making this number larger would lower the loss</i>");
            else
                t += tr("<br><i>zero: this number does not affect the loss here</i>");
            return t;
        };
    }
    // Wide tensors (d_model = 512, d_ff = 2048) read better stacked, one column per feature.
    const bool vertical = pg.m.cols > 100;
    pairLayout_->setDirection(vertical ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
    pairOp_->setText(vertical ? tr("\u2193 its gradient") : tr("its\ngradient\n\u2192"));
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
    QString stats = tr("\u2016\u2202loss/\u2202%1\u2016 = %2 over the whole tensor %3")
                        .arg(leaf.toHtmlEscaped(), numfmt::gradientStat(l2(ge->value)), tensorviz::shapeText(ge->value.shape));
    if (br >= 0)
        stats += tr(";&nbsp; largest here: <b>%1</b> at (%2, %3)")
                     .arg(numfmt::gradientStat(pg.m.at(br, bc)), pg.m.rowLabels.value(br, QString::number(br)).toHtmlEscaped(),
                          pg.m.colLabels.value(bc, QString::number(bc)).toHtmlEscaped());
    stats += tr("<br><span style='color:#555'>Red: raising that number would raise the loss; blue: it would lower it. "
                "Gradient descent moves every number against its gradient.</span>");
    stepStats_->setText(stats);
}

const Tensor& GradientView::previewedUpdate() const {
    static const Tensor none;
    return preview_ ? *preview_ : none;
}

// ----- the weight, its gradient and the update ---------------------------------------------------

void GradientView::fillParameterPicker() {
    updating_ = true;
    paramPicker_->clear();
    if (params_)
        for (size_t i = 0; i < params_->size(); ++i) {
            const QString n = QString::fromStdString(params_->name(i));
            paramPicker_->addItem(QStringLiteral("%1  %2").arg(n, tensorviz::shapeText((*params_)[i].shape)), n);
        }
    paramPicker_->setCurrentIndex(paramPicker_->findData(param_));
    updating_ = false;
}

void GradientView::rebuildParameter() {
    const bool have = params_ && grads_ && params_->size() > 0;
    paramSection_->setVisible(have);
    if (!have) {
        preview_.reset();
        return;
    }
    {
        updating_ = true;
        paramPicker_->setCurrentIndex(paramPicker_->findData(param_));
        updating_ = false;
    }
    const std::string pn = param_.toStdString();
    if (param_.isEmpty() || !params_->contains(pn) || !grads_->contains(pn)) {
        paramTitle_->setText(tr("<b>Weights</b>"));
        paramStats_->setText(tr("Pick a weight to see its gradient and the optimizer's update."));
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

    paramTitle_->setText(tr("<b>Weight <tt>%1</tt></b> %2, its gradient and the update the next optimizer step applies")
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
    paramStats_->setText(stats);

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
    paramLayout_->setDirection(vertical ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight);
}
