#include "views/tensor_view.h"
#include "widgets/theme_colors.h"

#include <algorithm>
#include <cmath>

#include <QBoxLayout>
#include <QCheckBox>
#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QLabel>
#include <QMap>
#include <QScrollArea>
#include <QScrollBar>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QToolButton>

#include "views/message_stack.h"
#include "views/view_parts.h"
#include "widgets/heatmap_widget.h"
#include "widgets/wrapped_label.h"
#include "steps/step_panels.h"
#include "steps/tensor_slice.h"
#include "widgets/number_format.h"

using namespace tensorviz;

namespace {

QLabel* makeOpLabel(const QString& text, bool vertical, QWidget* parent) {
    const bool symbol = text.size() <= 2;
    QLabel* l = view_parts::makeOpLabel(vertical ? QString(text).replace(QLatin1Char('\n'), QLatin1Char(' ')) : text,
                                        symbol ? 22.0 : 12.0, symbol ? 12.0 : 3.0, parent);
    l->setObjectName(QStringLiteral("opLabel"));
    l->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    l->setToolTip(TensorView::tr("The operation between the panels"));
    return l;
}

// Space is shared in proportion to what each panel would like (its size hint).
int stretchFor(const HeatmapWidget* hm, bool vertical, bool output) {
    const QSize hint = hm->sizeHint();
    const int s = vertical ? hint.height() / 10 : hint.width() / 10;
    return std::max(1, output ? s * 5 / 4 : s);
}

}  // namespace

TensorView::TensorView(QWidget* parent) : StepView(parent, "tensorView") {
    auto* root = makeWhitePage(6, 4);

    QHBoxLayout* bar = makeSentenceHeadBar(batchPicker_, headPicker_);
    headPicker_->setRange(0, 0);
    headGridToggle_ = view_parts::named(new QCheckBox(tr("All heads"), this), "headGridToggle");
    headGridToggle_->setToolTip(tr("Show every head of this tensor side by side (click one to pick it)"));
    auto mkButton = [this](const QString& name, const QString& text, const QString& tip) {
        auto* b = new QToolButton(this);
        b->setObjectName(name);
        b->setText(text);
        b->setToolTip(tip);
        b->setAutoRaise(false);
        b->setMinimumWidth(32);
        return b;
    };
    zoomOutButton_ = mkButton(QStringLiteral("zoomOutButton"), QStringLiteral("−"), tr("Zoom out (Ctrl+mouse wheel)"));
    zoomInButton_ = mkButton(QStringLiteral("zoomInButton"), QStringLiteral("+"), tr("Zoom in (Ctrl+mouse wheel)"));
    zoomFitButton_ = mkButton(QStringLiteral("zoomFitButton"), tr("Fit"), tr("Fit the whole tensor into the view"));
    bar->addWidget(headGridToggle_);
    bar->addStretch(1);
    auto* zoomLabel = new QLabel(tr("Zoom:"), this);
    bar->addWidget(zoomLabel);
    bar->addWidget(zoomOutButton_);
    bar->addWidget(zoomInButton_);
    bar->addWidget(zoomFitButton_);
    root->addLayout(bar);

    titleLabel_ = view_parts::makeTitleLabel(QStringLiteral("stepTitle"), this, view_parts::Selectable::Yes);
    root->addWidget(titleLabel_);

    formulaLabel_ = view_parts::makeRichLabel(QStringLiteral("formulaLabel"), this, view_parts::Selectable::Yes);
    formulaLabel_->setTextColor(QColor(0x30, 0x30, 0x30));
    view_parts::enlargeFont(formulaLabel_, 10.5, 0.0);
    root->addWidget(formulaLabel_);

    messages_ = new MessageStack(this);
    scroll_ = view_parts::named(new QScrollArea(messages_), "tensorScroll");
    scroll_->setWidgetResizable(true);
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->viewport()->installEventFilter(this);
    messages_->setPage(scroll_, QStringLiteral("noDataLabel"));
    root->addWidget(messages_, 1);

    onPicked(batchPicker_, [this](int i) { setBatchIndex(i); });
    onPicked(headPicker_, [this](int h) { setHeadIndex(h); });
    connect(headGridToggle_, &QCheckBox::toggled, this, [this](bool on) {
        if (!updating_) setHeadGridShown(on);
    });
    connect(zoomInButton_, &QToolButton::clicked, this, &TensorView::zoomIn);
    connect(zoomOutButton_, &QToolButton::clicked, this, &TensorView::zoomOut);
    connect(zoomFitButton_, &QToolButton::clicked, this, &TensorView::resetZoom);

    rebuild();
}

TensorView::~TensorView() = default;

void TensorView::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    StepView::setTrace(std::move(trace), config);
    rebuild();
}

void TensorView::setStep(const QString& traceName) {
    StepView::setStep(traceName);
    rebuild();
}

bool TensorView::hasData() const { return StepView::hasData() && !heatmaps_.isEmpty(); }

void TensorView::setBatchIndex(int b) {
    if (!setIndex(batch_, b)) return;
    rebuild();
    emit batchChanged(batch_);
}

void TensorView::setHeadIndex(int h) {
    if (!setIndex(head_, h)) return;
    rebuild();
    emit headChanged(head_);
}

void TensorView::setHeadGridShown(bool on) {
    if (on == headGrid_) return;
    headGrid_ = on;
    rebuild();
}

void TensorView::zoomIn() {
    if (heatmaps_.isEmpty()) return;
    const double z = heatmaps_.first()->zoom() * 1.25;
    for (auto* h : heatmaps_) h->setZoom(z);
}

void TensorView::zoomOut() {
    if (heatmaps_.isEmpty()) return;
    const double z = heatmaps_.first()->zoom() / 1.25;
    for (auto* h : heatmaps_) h->setZoom(z);
}

void TensorView::resetZoom() {
    for (auto* h : heatmaps_) h->setZoom(1.0);
}

void TensorView::syncPickers() {
    updating_ = true;
    // Sentences.
    syncBatchPicker(batchPicker_, trace_.get(), batch_);

    // Heads: from the step's tensor, or its attention block.
    int H = 0;
    if (trace_ && !step_.isEmpty()) {
        using stepformer::Role;
        const StepInfo s = stepInfo(*trace_, step_);
        if (s.entry) H = axisSize(*s.entry, stepformer::AxisKind::Head);
        // A step before the heads are merged (its inputs have them) offers the head picker too.
        if (H == 0 && s.isAttention() && !s.isGrad && s.role != Role::OutProjection && s.role != Role::Residual &&
            s.role != Role::LayerNorm)
            if (const auto* q = roleEntry(*trace_, s.block, Role::Q)) H = axisSize(*q, stepformer::AxisKind::Head);
    }
    headPicker_->setRange(0, std::max(0, H - 1));
    if (H > 0) head_ = std::clamp(head_, 0, H - 1);
    headPicker_->setValue(std::min(head_, std::max(0, H - 1)));
    headPicker_->setEnabled(H > 1);
    headGridToggle_->setEnabled(H > 1);
    headGridToggle_->setChecked(headGrid_);
    updating_ = false;
}

void TensorView::showMessage(const QString& text) {
    messages_->showMessage(text);
    setContent(nullptr);
}

void TensorView::setContent(QWidget* w) {
    if (content_) {
        // Deferred: the old panels may be emitting the signal that got us here (a click).
        if (scroll_->widget() == content_) scroll_->takeWidget();
        content_->hide();
        content_->deleteLater();
    }
    content_ = w;
    if (w) {
        scroll_->setWidget(w);
        messages_->showPage();
    }
}

void TensorView::rebuild() {
    syncPickers();
    auto message = [this](const QString& text) {
        heatmaps_.clear();
        hoverLinks_.clear();
        output_ = nullptr;
        gridLegend_ = nullptr;
        structureKey_.clear();
        showMessage(text);
    };
    if (!trace_) {
        titleLabel_->clear();
        formulaLabel_->clear();
        message(tr("No data yet — run the forward pass to see the tensors."));
        return;
    }
    if (step_.isEmpty()) {
        titleLabel_->clear();
        formulaLabel_->clear();
        message(tr("Choose a step to see its tensors."));
        return;
    }
    const auto* e = trace_->find(step_.toStdString());
    const StepInfo s = stepInfo(*trace_, step_);
    if (!e) {
        titleLabel_->setText(QStringLiteral("<b><tt>%1</tt></b>").arg(step_.toHtmlEscaped()));
        formulaLabel_->clear();
        if (s.isGrad)
            message(tr("No gradient for “%1” yet.\nRun a backward pass (a training step) to see the gradients.")
                        .arg(s.base));
        else
            message(tr("No data for “%1” in this trace.").arg(step_));
        return;
    }

    QStringList axes;
    for (const auto& a : e->axes) axes << QString::fromStdString(a.name);
    titleLabel_->setText(theme::themed(QStringLiteral("<b><tt>%1</tt></b>&nbsp;&nbsp;<span style='color:#555'>%2&nbsp; %3</span>")
                             .arg(step_.toHtmlEscaped(), shapeText(e->value.shape),
                                  axes.isEmpty() ? QString() : QStringLiteral("(") + axes.join(QStringLiteral(", ")) + QStringLiteral(")"))));

    // When only the numbers change (a new trace of the same model, another sentence or head),
    // the panels are refilled in place: zoom and scrolling stay where the student left them.
    auto dims = [](const PanelSpec& p) { return QStringLiteral("%1x%2,").arg(p.m.rows).arg(p.m.cols); };

    const int H = headCount(*e);
    if (headGrid_ && H > 1 && axisIndex(*e, stepformer::AxisKind::Head) >= 0) {
        formulaLabel_->setText(tr("All %1 heads of <tt>%2</tt> for sentence %3, on one colour scale. Click a head to pick it.")
                                   .arg(H)
                                   .arg(step_.toHtmlEscaped())
                                   .arg(batch_));
        QString legendText;
        const std::vector<PanelSpec> panels = gridPanels(step_, H, &legendText);
        QString key = QStringLiteral("grid|") + step_ + QLatin1Char('|');
        for (const auto& p : panels) key += dims(p);
        if (key == structureKey_ && content_ && heatmaps_.size() == int(panels.size())) {
            for (int h = 0; h < H; ++h) {
                applyPanel(heatmaps_[h], panels[size_t(h)]);
                heatmaps_[h]->setSelected(h == head_);
            }
            if (gridLegend_) gridLegend_->setText(legendText);
            output_ = heatmaps_.value(std::clamp(head_, 0, H - 1));
            updateHoverLinks({}, true);
            return;
        }
        heatmaps_.clear();
        setContent(buildHeadGrid(panels, legendText));
        structureKey_ = key;
        updateHoverLinks({}, true);
        return;
    }

    const StepPieces sp = stepPieces(trace_, config_, step_, batch_, head_);
    formulaLabel_->setText(sp.formula);
    std::vector<const PanelSpec*> shown;  // the panels, for the hover links
    for (const auto& pc : sp.pieces)
        if (!pc.isOp) shown.push_back(&pc.panel);
    bool vertical = false;
    // The panels' structure (operators and sizes), not the step: the next step often has the
    // same one (Q, K, V; the two Add & Norms), and refilling widgets is cheaper than making them.
    QString key = QStringLiteral("panels|");
    int panels = 0;
    for (const auto& pc : sp.pieces) {
        if (pc.isOp) {
            key += pc.op + QLatin1Char(',');
            continue;
        }
        key += dims(pc.panel);
        ++panels;
        if (pc.panel.m.cols > 100) vertical = true;
    }
    if (key == structureKey_ && content_ && heatmaps_.size() == panels) {
        int i = 0;
        for (const auto& pc : sp.pieces)
            if (!pc.isOp) applyPanel(heatmaps_[i++], pc.panel);
        if (panelsStep_ != step_) {  // another step: from the start, as newly made panels
            for (auto* h : heatmaps_) {
                h->setZoom(1.0);
                h->horizontalScrollBar()->setValue(0);
                h->verticalScrollBar()->setValue(0);
            }
            panelsStep_ = step_;
        }
        updateHoverLinks(shown, false);
        return;
    }

    heatmaps_.clear();
    gridLegend_ = nullptr;
    auto* w = new QWidget;
    w->setObjectName(QStringLiteral("tensorPanels"));
    auto* lay = new QBoxLayout(vertical ? QBoxLayout::TopToBottom : QBoxLayout::LeftToRight, w);
    lay->setContentsMargins(0, 4, 0, 0);
    lay->setSpacing(vertical ? 2 : 6);
    int index = 0;
    for (const auto& pc : sp.pieces) {
        if (pc.isOp) {
            lay->addWidget(makeOpLabel(pc.op, vertical, w), 0, Qt::AlignCenter);
            continue;
        }
        auto* hm = new HeatmapWidget(w);
        hm->setObjectName(QStringLiteral("tensorHeatmap%1").arg(index++));
        applyPanel(hm, pc.panel);
        lay->addWidget(hm, stretchFor(hm, vertical, index == panels));
        heatmaps_ << hm;
        watchHover(hm);
    }
    output_ = heatmaps_.isEmpty() ? nullptr : heatmaps_.last();
    if (output_) output_->setObjectName(QStringLiteral("outputHeatmap"));
    setContent(w);
    linkHeatmaps(vertical);
    structureKey_ = key;
    panelsStep_ = step_;
    panelsLayout_ = lay;
    panelsWide_ = vertical;
    updateHoverLinks(shown, false);
    fitPanels();
}

bool TensorView::eventFilter(QObject* watched, QEvent* event) {
    if (watched == scroll_->viewport() && event->type() == QEvent::Resize) fitPanels();
    return StepView::eventFilter(watched, event);
}

void TensorView::fitPanels() {
    if (!panelsLayout_ || panelsWide_) return;
    panelsLayout_->setDirection(QBoxLayout::LeftToRight);
    const bool fits = panelsLayout_->minimumSize().width() <= scroll_->viewport()->width();
    panelsLayout_->setDirection(fits ? QBoxLayout::LeftToRight : QBoxLayout::TopToBottom);
}

std::vector<PanelSpec> TensorView::gridPanels(const QString& name, int heads, QString* legendText) const {
    std::vector<PanelSpec> panels;
    float lo = 0.0f, hi = 0.0f;
    bool any = false;
    for (int h = 0; h < heads; ++h) {
        panels.push_back(panelFor(trace_, config_, name, batch_, h, tr("head %1").arg(h)));
        const auto& p = panels.back();
        for (size_t i = 0; i < p.m.values.size(); ++i) {
            const float v = p.m.values[i];
            if (!std::isfinite(v) || std::fabs(v) >= 1e8f || (!p.mask.empty() && p.mask[i] != 0.0f)) continue;
            lo = any ? std::min(lo, v) : v;
            hi = any ? std::max(hi, v) : v;
            any = true;
        }
    }
    for (auto& p : panels) {  // one colour scale for all heads
        if (!p.fixedRange && any) {
            p.fixedRange = true;
            p.lo = lo;
            p.hi = hi;
        }
    }
    const PanelSpec& p0 = panels.front();
    if (p0.mode == HeatmapWidget::ColorMode::Sequential) {
        *legendText = tr("Colour scale shared by all heads: pale = %1, dark blue = %2. Hatched = masked.")
                          .arg(numfmt::colorBarTick(p0.lo), numfmt::colorBarTick(p0.hi));
    } else {
        const float a = std::max(std::fabs(lo), std::fabs(hi));
        *legendText = tr("Colour scale shared by all heads: blue = %1, white = 0, red = +%2. Hatched = masked.")
                          .arg(numfmt::colorBarTick(-a), numfmt::colorBarTick(a));
    }
    return panels;
}

QWidget* TensorView::buildHeadGrid(const std::vector<PanelSpec>& panels, const QString& legendText) {
    auto* w = new QWidget;
    w->setObjectName(QStringLiteral("headGrid"));
    auto* grid = new QGridLayout(w);
    grid->setContentsMargins(0, 4, 0, 0);
    grid->setSpacing(8);
    const int heads = int(panels.size());
    const int columns = heads <= 4 ? heads : (heads + 1) / 2;
    for (int h = 0; h < heads; ++h) {
        auto* hm = new HeatmapWidget(w);
        hm->setObjectName(QStringLiteral("headHeatmap%1").arg(h));
        hm->setCompact(true);
        applyPanel(hm, panels[size_t(h)]);
        hm->setSelected(h == head_);
        hm->setMinimumSize(160, 130);
        connect(hm, &HeatmapWidget::clicked, this, [this, h] { setHeadIndex(h); });
        grid->addWidget(hm, h / columns, h % columns);
        heatmaps_ << hm;
        watchHover(hm);
    }
    // One legend for the whole grid, in words.
    gridLegend_ = view_parts::named(new QLabel(legendText, w), "headGridLegend");
    theme::makeQuiet(gridLegend_);
    grid->addWidget(gridLegend_, (heads + columns - 1) / columns, 0, 1, columns);
    output_ = heatmaps_.value(std::clamp(head_, 0, heads - 1));
    linkHeatmaps(false);
    return w;
}

void TensorView::linkHeatmaps(bool scrollTogether) {
    for (auto* a : heatmaps_) {
        for (auto* b : heatmaps_) {
            if (a == b) continue;
            connect(a, &HeatmapWidget::zoomChanged, b, &HeatmapWidget::setZoom);
            if (scrollTogether && a->cols() == b->cols())
                connect(a->horizontalScrollBar(), &QScrollBar::valueChanged, b->horizontalScrollBar(), &QScrollBar::setValue);
        }
    }
    if (!scrollTogether) return;
    for (auto* h : heatmaps_) connect(h, &HeatmapWidget::sidesChanged, this, &TensorView::alignStackedColumns);
    alignStackedColumns();
}

void TensorView::alignStackedColumns() {
    // Panels one above the other over the same columns get the widest row labels and legend of
    // them all, so that their cells are equally wide and column c is at one x in each.
    QMap<int, QPair<int, int>> sides;  // columns -> (left, right)
    QMap<int, int> count;
    for (auto* h : heatmaps_) {
        auto& s = sides[h->cols()];
        s.first = std::max(s.first, h->naturalLeftSide());
        s.second = std::max(s.second, h->naturalRightSide());
        ++count[h->cols()];
    }
    for (auto* h : heatmaps_)
        if (count.value(h->cols()) > 1) h->setMinimumSides(sides[h->cols()].first, sides[h->cols()].second);
}

void TensorView::watchHover(HeatmapWidget* hm) {
    connect(hm, &HeatmapWidget::cellHovered, this, [this, hm](int r, int c) { onPanelHovered(hm, r, c); });
}

void TensorView::updateHoverLinks(const std::vector<const PanelSpec*>& panels, bool grid) {
    using linked_hover::Link;
    hoverGrid_ = grid;
    hoverLinks_.assign(size_t(heatmaps_.size()), Link{});
    if (grid || !trace_ || panels.size() != size_t(heatmaps_.size()) || panels.empty()) return;
    // The output is the last panel, and it must be the step itself; operands are linked by
    // what their entry is to it (an operand panel not among its inputs links nothing).
    const auto* out = trace_->find(step_.toStdString());
    if (!out || panels.back()->traceName != step_) return;
    for (size_t i = 0; i + 1 < panels.size(); ++i) {
        const PanelSpec& p = *panels[i];
        const auto* operand = p.present ? trace_->find(p.traceName.toStdString()) : nullptr;
        if (!operand) continue;
        const Link l = linked_hover::panelLink(*trace_, *out, *operand);
        hoverLinks_[i] = p.transposed ? linked_hover::transposed(l) : l;
    }
}

void TensorView::onPanelHovered(HeatmapWidget* hm, int r, int c) {
    using linked_hover::Cell;
    const int index = int(heatmaps_.indexOf(hm));
    const auto outline = [](HeatmapWidget* w, Cell cell) {
        w->setHighlightedRow(cell.row);
        w->setHighlightedCol(cell.col);
    };
    if (index < 0 || r < 0 || c < 0 || hoverLinks_.size() != size_t(heatmaps_.size())) {
        for (auto* w : heatmaps_) outline(w, Cell{});
        return;
    }
    if (hoverGrid_) {  // every head has the same shape: the same (query, key) cell in each
        const linked_hover::Link same{linked_hover::From::OutRow, linked_hover::From::OutCol};
        for (auto* w : heatmaps_)
            outline(w, w == hm ? Cell{} : linked_hover::operandCell(same, Cell{r, c}, w->rows(), w->cols()));
        return;
    }
    const int outIndex = int(heatmaps_.size()) - 1;
    HeatmapWidget* out = heatmaps_[outIndex];
    // The output cell as far as the hovered panel says (an operand's row may fix only its row).
    const Cell o = index == outIndex
                       ? Cell{r, c}
                       : linked_hover::outputCell(hoverLinks_[size_t(index)], Cell{r, c}, out->rows(), out->cols());
    for (int i = 0; i < heatmaps_.size(); ++i) {
        HeatmapWidget* w = heatmaps_[i];
        if (i == index)
            outline(w, Cell{});  // the hovered panel has its own hover box
        else if (i == outIndex)
            outline(w, o);
        else
            outline(w, linked_hover::operandCell(hoverLinks_[size_t(i)], o, w->rows(), w->cols()));
    }
}
