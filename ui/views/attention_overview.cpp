#include "views/attention_overview.h"
#include "views/view_parts.h"

#include <algorithm>
#include <cmath>

#include <QEvent>
#include <QFontMetrics>
#include <QGridLayout>
#include <QBoxLayout>
#include <QLabel>
#include <QPainter>
#include <QScrollArea>
#include <QScrollBar>
#include <QTimer>

#include "steps/step_panels.h"
#include "steps/tensor_slice.h"
#include "widgets/colormap.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"

using namespace tensorviz;

namespace {

// The compact heatmap's geometry the cells are sized by (HeatmapWidget's compact mode: 3 px
// padding, labels 8 px from the cells, row labels capped at 80 px and vertical column labels at
// 60 px, its label font a point smaller than the widget's and at least 8 pt).
constexpr int kPad = 3;
constexpr int kLabelGap = 8;
constexpr int kRowLabelCap = 80;
constexpr int kColLabelCap = 60;
constexpr int kMaxToken = 40;  // px per token: larger says nothing more
constexpr int kMeanGap = 6;    // sets the mean column apart from the heads

QFont cellLabelFont(const QWidget* cell) {
    QFont f = cell->font();
    const double base = f.pointSizeF() > 0 ? f.pointSizeF() : 10.0;
    f.setPointSizeF(std::max(8.0, base - 1.0));
    return f;
}

int widest(const QFontMetrics& fm, const QStringList& labels) {
    int w = 0;
    for (const QString& s : labels) w = std::max(w, fm.horizontalAdvance(s));
    return w;
}

QStringList blanks(int n) { return QStringList(std::max(0, n), QString()); }

}  // namespace

// The cells' one colour scale (0..1, as the enlarged head's legend) and the masked swatch.
class AttentionOverview::Legend : public QWidget {
public:
    explicit Legend(QWidget* parent) : QWidget(parent), cmap_(Colormap::Kind::Sequential, 0.0f, 1.0f) {
        setObjectName(QStringLiteral("overviewLegend"));
        setAccessibleName(AttentionOverview::tr("Colour scale of the attention weights"));
        setToolTip(AttentionOverview::tr("Every cell's colour scale: the attention weight from 0 to 1; hatched = masked"));
        setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
    }
    QSize sizeHint() const override { return {420, Colormap::horizontalLegendHeight(font()) + 2}; }
    QSize minimumSizeHint() const override { return sizeHint(); }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        cmap_.paintLegend(p, rect().adjusted(0, 0, -1, 0), font(), AttentionOverview::tr("weight"),
                          AttentionOverview::tr("masked"), Qt::Horizontal);
    }

private:
    Colormap cmap_;
};

// "layer N" turned up the side of its row, like an axis title: a column of horizontal labels
// took the width a laptop's screen needs for the eight heads and the mean.
class AttentionOverview::LayerLabel : public QWidget {
public:
    LayerLabel(const QString& text, QWidget* parent) : QWidget(parent), text_(text) {
        setAccessibleName(text);
        setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Preferred);
    }
    QString text() const { return text_; }
    QSize sizeHint() const override {
        const QFontMetrics fm(font());
        return {fm.height() + 4, fm.horizontalAdvance(text_) + 8 + topMargin_};
    }
    QSize minimumSizeHint() const override { return sizeHint(); }
    // The rows' cells start below their column labels: the text is centred on the cells.
    void setTopMargin(int m) {
        if (m == topMargin_) return;
        topMargin_ = m;
        updateGeometry();
        update();
    }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setPen(palette().color(QPalette::WindowText));
        const QRect area(0, topMargin_, width(), height() - topMargin_);
        p.translate(area.center());
        p.rotate(-90);
        const QFontMetrics fm(font());
        const int w = fm.horizontalAdvance(text_);
        p.drawText(QRect(-w / 2 - 2, -fm.height() / 2, w + 4, fm.height()), Qt::AlignCenter, text_);
    }

private:
    QString text_;
    int topMargin_ = 0;
};

// The key tokens over one column of cells, in the header (so they stay in view while the layers
// scroll): each written at its token's x in the top row's cell, upright when it fits the token's
// width, else turned, as the cell itself would write them.
class AttentionOverview::KeyStrip : public QWidget {
public:
    KeyStrip(AttentionOverview* owner, int column, QWidget* parent) : QWidget(parent), owner_(owner), column_(column) {
        setAccessibleName(AttentionOverview::tr("Key tokens"));
        setSizePolicy(QSizePolicy::Preferred, QSizePolicy::Fixed);
    }
    void setVertical(bool v) { vertical_ = v; }

protected:
    void paintEvent(QPaintEvent*) override {
        if (owner_->rows_.empty() || column_ >= owner_->rows_[0].cells.size()) return;
        const HeatmapWidget* cell = owner_->rows_[0].cells[column_];
        QPainter p(this);
        p.setFont(cellLabelFont(cell));
        p.setPen(palette().color(QPalette::WindowText));
        const QFontMetrics fm(p.font());
        const QStringList& keys = owner_->keyLabels_;
        for (int k = 0; k < keys.size() && k < cell->cols(); ++k) {
            const QRect r = cell->cellRect(0, k);
            const int x = mapFromGlobal(cell->mapToGlobal(r.topLeft())).x();
            const QString t = fm.elidedText(keys[k], Qt::ElideRight, kColLabelCap);
            if (!vertical_) {
                p.drawText(QRect(x, 0, r.width(), height() - 2), Qt::AlignHCenter | Qt::AlignBottom, t);
                continue;
            }
            p.save();
            p.translate(x + r.width() / 2 + fm.ascent() / 2 - 1, height() - 3);
            p.rotate(-90);
            p.drawText(0, 0, t);
            p.restore();
        }
    }

private:
    AttentionOverview* owner_;
    int column_;
    bool vertical_ = true;
};

AttentionOverview::AttentionOverview(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("attentionOverview"));
    setToolTip(tr("Every layer (rows) and head (columns) of this attention block, and the mean of the heads: "
                  "hover a cell for its weight, click one to enlarge it"));
    auto* root = view_parts::makeColumn(this, 1, 0);
    // The heads' names stay above the columns while the layers scroll under them.
    header_ = view_parts::named(new QWidget(this), "overviewHeader");
    headerBox_ = new QHBoxLayout(header_);
    headerBox_->setContentsMargins(0, 0, 0, 0);
    headerBox_->setSpacing(0);
    root->addWidget(header_);
    scroll_ = view_parts::named(new QScrollArea(this), "attentionOverviewScroll");
    scroll_->setFrameShape(QFrame::NoFrame);
    scroll_->setWidgetResizable(true);
    scroll_->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);  // more layers scroll down, never sideways
    host_ = new QWidget;
    host_->setObjectName(QStringLiteral("attentionOverviewGrid"));
    auto* outer = new QVBoxLayout(host_);
    outer->setContentsMargins(0, 0, 0, 0);
    auto* centred = new QHBoxLayout;
    grid_ = new QGridLayout;
    grid_->setHorizontalSpacing(0);  // the cells' own padding and label room part them
    grid_->setVerticalSpacing(2);
    centred->addStretch(1);
    centred->addLayout(grid_);
    centred->addStretch(1);
    outer->addLayout(centred);
    outer->addStretch(1);
    scroll_->setWidget(host_);
    scroll_->installEventFilter(this);
    root->addWidget(scroll_, 1);
    // The header is centred over the cells: beside the scroll bar when there is one.
    connect(scroll_->verticalScrollBar(), &QScrollBar::rangeChanged, this, [this](int, int max) {
        headerBox_->setContentsMargins(0, 0, max > 0 ? scroll_->verticalScrollBar()->sizeHint().width() : 0, 0);
    });
}

AttentionOverview::~AttentionOverview() = default;

HeatmapWidget* AttentionOverview::cell(int layer, int head) const {
    if (layer < 0 || layer >= layerCount() || head < 0 || head >= heads_) return nullptr;
    return rows_[size_t(layer)].cells[head];
}

HeatmapWidget* AttentionOverview::meanCell(int layer) const {
    if (layer < 0 || layer >= layerCount()) return nullptr;
    return rows_[size_t(layer)].cells.last();
}

HeatmapWidget* AttentionOverview::makeCell(int layer, int head) {
    auto* c = new HeatmapWidget(host_);
    const bool mean = head < 0;
    c->setObjectName(mean ? QStringLiteral("overviewMean_%1").arg(layer) : QStringLiteral("overviewCell_%1_%2").arg(layer).arg(head));
    c->setCompact(true);
    c->setValueText(HeatmapWidget::ValueText::Never);
    c->setShowLegend(false);
    c->setToolTip(mean ? tr("Layer %1, the mean of the heads: click to enlarge the layer").arg(layer)
                       : tr("Layer %1, head %2: click to enlarge").arg(layer).arg(head));
    c->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    c->setVerticalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    connect(c, &HeatmapWidget::clicked, this, [this, layer, head] { emit cellActivated(layer, head); });
    // The hovered query's row in every cell: one query, all layers and heads at once.
    connect(c, &HeatmapWidget::cellHovered, this, [this](int r, int) { highlightRow(r); });
    return c;
}

void AttentionOverview::ensureGrid(int layers, int heads) {
    if (layers == layerCount() && heads == heads_) return;
    for (Row& r : rows_) {
        delete r.label;
        qDeleteAll(r.cells);
    }
    rows_.clear();
    while (QLayoutItem* item = headerBox_->takeAt(0)) {
        delete item->widget();
        delete item;
    }
    headLabels_.clear();
    keyStrips_.clear();
    cornerSpace_ = nullptr;
    delete legend_;
    legend_ = nullptr;
    heads_ = heads;
    if (layers == 0) return;
    headerBox_->addStretch(1);
    cornerSpace_ = new QSpacerItem(0, 0, QSizePolicy::Fixed, QSizePolicy::Minimum);  // over the layer labels
    headerBox_->addSpacerItem(cornerSpace_);
    for (int h = 0; h <= heads; ++h) {
        // A box as wide as the column holds the name (a QLabel of a fixed width would keep the
        // size it asked for first).
        auto* box = new QWidget(header_);
        box->setObjectName(h < heads ? QStringLiteral("overviewHeadColumn_%1").arg(h) : QStringLiteral("overviewMeanColumn"));
        auto* inBox = view_parts::makeColumn(box, 0, 0);
        auto* l = new QLabel(h < heads ? tr("head %1").arg(h) : tr("mean"), box);
        l->setObjectName(h < heads ? QStringLiteral("overviewHeadLabel_%1").arg(h) : QStringLiteral("overviewMeanLabel"));
        l->setToolTip(h < heads ? tr("Attention head %1 of every layer").arg(h)
                                : tr("The mean of the heads' weights in every layer (rows still sum to 1)"));
        l->setAlignment(Qt::AlignHCenter | Qt::AlignBottom);
        if (h == heads) {
            QFont f = l->font();
            f.setItalic(true);
            l->setFont(f);
        }
        inBox->addWidget(l);
        auto* keys = new KeyStrip(this, h, box);
        keys->setObjectName(h < heads ? QStringLiteral("overviewKeys_%1").arg(h) : QStringLiteral("overviewKeys_mean"));
        keys->setToolTip(tr("The key tokens: each column of the cells below is one of them"));
        inBox->addWidget(keys);
        if (h == heads) headerBox_->addSpacing(kMeanGap);  // the mean set apart, as its cells
        headerBox_->addWidget(box);
        headLabels_ << l;
        keyStrips_ << keys;
    }
    headerBox_->addStretch(1);
    grid_->setColumnMinimumWidth(heads + 1, kMeanGap);
    for (int layer = 0; layer < layers; ++layer) {
        Row r;
        r.label = new LayerLabel(tr("layer %1").arg(layer), host_);
        r.label->setObjectName(QStringLiteral("overviewLayerLabel_%1").arg(layer));
        r.label->setToolTip(tr("Layer %1 (numbered from 0)").arg(layer));
        grid_->addWidget(r.label, layer, 0);
        for (int h = 0; h < heads; ++h) {
            r.cells << makeCell(layer, h);
            grid_->addWidget(r.cells.last(), layer, h + 1);
        }
        r.cells << makeCell(layer, -1);
        grid_->addWidget(r.cells.last(), layer, heads + 2);
        if (layer == 0)
            for (HeatmapWidget* c : r.cells) c->installEventFilter(this);
        rows_.push_back(r);
    }
    legend_ = new Legend(host_);
    grid_->addWidget(legend_, layers, 1, 1, heads + 2, Qt::AlignLeft | Qt::AlignTop);
    legend_->show();
    // Shown now, not when the layout gets round to it (the view may be on screen already).
    for (QLabel* l : headLabels_) {
        l->parentWidget()->show();
        l->show();
    }
    for (Row& r : rows_) {
        r.label->show();
        for (HeatmapWidget* c : r.cells) c->show();
    }
}

int AttentionOverview::setAttention(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config,
                                    stepformer::Stack stack, stepformer::BlockKind kind, int batch) {
    // Every layer's "<block>.attn", [batch, n_heads, len_q, len_k], while the trace has one.
    QStringList names;
    int heads = 0;
    if (trace)
        for (int l = 0;; ++l) {
            const QString n = roleName(*trace, stepformer::Block{stack, kind, l}, stepformer::Role::Softmax);
            const stepformer::TraceEntry* e = n.isEmpty() ? nullptr : trace->find(n.toStdString());
            if (!e || e->value.empty()) break;
            if (l == 0) heads = tensorviz::headCount(*e);
            if (tensorviz::headCount(*e) != heads) break;  // a grid needs one number of heads
            names << n;
        }
    if (names.isEmpty() || heads == 0) {
        ensureGrid(0, 0);
        queries_ = keys_ = 0;
        return 0;
    }
    ensureGrid(int(names.size()), heads);
    hlRow_ = -1;
    for (int l = 0; l < int(names.size()); ++l) {
        Row& row = rows_[size_t(l)];
        std::vector<PanelSpec> ps;
        for (int h = 0; h < heads; ++h) ps.push_back(panelFor(trace, config, names[l], batch, h, tr("head %1").arg(h)));
        const Matrix& m0 = ps.front().m;
        queries_ = m0.rows;
        keys_ = m0.cols;
        // The mean of the heads, [len_q, len_k]: its rows still sum to 1.
        std::vector<float> mean(m0.values.size(), 0.0f);
        for (const PanelSpec& p : ps)
            if (p.m.values.size() == mean.size())
                for (size_t i = 0; i < mean.size(); ++i) mean[i] += p.m.values[i];
        for (float& v : mean) v /= float(heads);
        PanelSpec mp = ps.front();
        mp.m.values = mean;
        const QStringList qs = m0.rowLabels, ks = m0.colLabels;
        std::vector<std::vector<float>> each;
        for (const PanelSpec& p : ps) each.push_back(p.m.values);
        const std::vector<float> mask = mp.mask;
        const QString expl = mp.maskedExplanation;
        const int cols = m0.cols;
        mp.tooltip = [qs, ks, each, mean, mask, expl, cols, l](int r, int c) {
            const size_t i = size_t(r) * cols + c;
            QStringList perHead;
            for (size_t h = 0; h < each.size(); ++h)
                if (i < each[h].size()) perHead << numfmt::cell(each[h][i]);
            QString s = AttentionOverview::tr("<b>Layer %1 · mean of the %2 heads</b><br>query <b>'%3'</b> → key "
                                              "<b>'%4'</b>: <b>%5</b><br>per head: %6")
                            .arg(l)
                            .arg(each.size())
                            .arg(qs.value(r).toHtmlEscaped(), ks.value(c).toHtmlEscaped(), numfmt::exact(mean[i]),
                                 perHead.join(QStringLiteral(", ")));
            if (i < mask.size() && mask[i] != 0.0f && !expl.isEmpty()) s += QStringLiteral("<br>") + expl;
            return s;
        };
        ps.push_back(std::move(mp));
        // Shared axes: the query tokens label the first column's rows, the key tokens stand in
        // the header over every column (KeyStrip); the tooltips still name both.
        keyLabels_ = ks;
        for (int h = 0; h <= heads; ++h) {
            PanelSpec& p = ps[size_t(h)];
            p.title.clear();
            if (h != 0) p.m.rowLabels = blanks(p.m.rows);
            p.m.colLabels = blanks(p.m.cols);
            applyPanel(row.cells[h], p);
        }
    }
    placeCells();
    return int(names.size());
}

void AttentionOverview::setSelected(int layer, int head) {
    for (int l = 0; l < layerCount(); ++l)
        for (int h = 0; h < heads_; ++h) rows_[size_t(l)].cells[h]->setSelected(l == layer && h == head);
    if (layer != selectedLayer_) {
        selectedLayer_ = layer;
        scrollToSelected();
    }
}

void AttentionOverview::scrollToSelected() {
    // Once the grid has its new sizes (after this event): the chosen layer's row in view.
    if (scrollPending_) return;
    scrollPending_ = true;
    QTimer::singleShot(0, this, [this] {
        scrollPending_ = false;
        if (selectedLayer_ <= 0 || selectedLayer_ >= layerCount()) {
            scroll_->verticalScrollBar()->setValue(0);
            return;
        }
        host_->layout()->activate();
        scroll_->ensureWidgetVisible(rows_[size_t(selectedLayer_)].cells.first(), 0, 4);
    });
}

void AttentionOverview::highlightRow(int r) {
    if (r == hlRow_) return;
    hlRow_ = r;
    for (const Row& row : rows_)
        for (HeatmapWidget* c : row.cells) c->setHighlightedRow(r);
}

bool AttentionOverview::eventFilter(QObject* watched, QEvent* event) {
    if (watched == scroll_ && event->type() == QEvent::Resize) placeCells();
    // The key strips write over the top row's cells wherever those are.
    if ((event->type() == QEvent::Move || event->type() == QEvent::Resize) && !rows_.empty() &&
        rows_[0].cells.contains(static_cast<HeatmapWidget*>(watched)))
        for (KeyStrip* k : keyStrips_) k->update();
    return QWidget::eventFilter(watched, event);
}

void AttentionOverview::placeCells() {
    if (rows_.empty() || queries_ == 0 || keys_ == 0) return;
    const int L = layerCount(), C = heads_ + 1;
    const QFontMetrics fm(cellLabelFont(rows_[0].cells[0]));
    // The smallest token cell that shows every label of a few tokens (the heatmap's own minimum).
    const int minTok = std::max(fm.ascent() + 1, fm.height() - 2);
    const int queryW = std::min(widest(fm, rows_[0].cells[0]->rowLabels()), kRowLabelCap);
    const int keyW = std::min(widest(fm, keyLabels_), kColLabelCap);
    const int plainHeader = fm.height() + 6;  // a line of upright key tokens in the header
    const int sp = grid_->horizontalSpacing(), vsp = grid_->verticalSpacing();
    int labelW = 0;
    for (const Row& r : rows_) labelW = std::max(labelW, r.label->sizeHint().width());
    const int legendH = legend_->sizeHint().height() + 4;

    // Cells of t px per token: widths and heights; the key tokens above them in the header.
    const auto cellW = [&](int t) { return 2 * kPad + kLabelGap + keys_ * t; };
    const auto keysVertical = [&](int t) { return keyW + 6 > t; };
    const auto keysH = [&](int t) { return keysVertical(t) ? keyW + 6 : plainHeader; };
    const auto cellH = [&](int t) { return 2 * kPad + queries_ * t; };  // its column labels are the header's
    const auto totalW = [&](int t) { return labelW + queryW + C * cellW(t) + (C + 1) * sp + kMeanGap + sp; };
    const auto totalH = [&](int t) { return L * (cellH(t) + vsp) + legendH; };

    // The strip's height comes out of the scroll area's (it is above it): taken as for the
    // smallest cells, whose keys are turned when any are.
    const int stripNow = keyStrips_.isEmpty() ? 0 : keyStrips_[0]->height();
    const int availH = scroll_->height() + stripNow - keysH(minTok) - 2;
    // Layers that do not fit at the smallest cells scroll down: the bar's width is kept for them.
    const int vbar = totalH(minTok) > availH ? scroll_->verticalScrollBar()->sizeHint().width() : 0;
    const int availW = scroll_->width() - vbar - 2;
    int t = minTok;
    while (t < kMaxToken && totalW(t + 1) <= availW && totalH(t + 1) <= availH) ++t;
    // When the layers do not fit in the height anyway, the width decides (they scroll).
    if (totalH(minTok) > availH)
        while (t < kMaxToken && totalW(t + 1) <= availW) ++t;
    scroll_->setMinimumWidth(totalW(minTok) + vbar + 2);

    for (int l = 0; l < L; ++l) {
        const int h = cellH(t);
        for (int c = 0; c < C; ++c) {
            HeatmapWidget* w = rows_[size_t(l)].cells[c];
            const int wd = cellW(t) + (c == 0 ? queryW : 0);
            w->setFixedSize(QSize(wd, h).expandedTo(w->minimumSizeHint()));
        }
        // "layer N" beside the cells' rows, not their column labels.
        rows_[size_t(l)].label->setTopMargin(kPad);
    }
    scrollToSelected();
    // The header's columns as wide as the cells'; "head 0" over its cells, not the query tokens.
    cornerSpace_->changeSize(labelW, 0, QSizePolicy::Fixed, QSizePolicy::Minimum);
    for (int c = 0; c < C; ++c) {
        const QSize cs = rows_[0].cells[c]->minimumSize();  // the fixed size just set
        QWidget* box = headLabels_[c]->parentWidget();
        box->setFixedWidth(cs.width());
        box->layout()->setContentsMargins(kLabelGap + (c == 0 ? queryW : 0), 0, 0, 0);
        keyStrips_[c]->setVertical(keysVertical(t));
        keyStrips_[c]->setFixedHeight(keysH(t));
        keyStrips_[c]->update();
    }
    headerBox_->invalidate();
}
