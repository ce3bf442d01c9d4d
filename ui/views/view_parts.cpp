#include "views/view_parts.h"

#include <algorithm>

#include <QBoxLayout>
#include <QLabel>
#include <QScrollBar>
#include <QSpinBox>

#include "widgets/flow_layout.h"
#include "widgets/heatmap_widget.h"
#include "widgets/wrapped_label.h"

namespace view_parts {

void enlargeFont(QWidget* w, double atLeast, double grow) {
    QFont f = w->font();
    f.setPointSizeF(std::max(atLeast, f.pointSizeF() + grow));
    w->setFont(f);
}

WrappedLabel* makeRichLabel(const QString& name, QWidget* parent, Selectable selectable) {
    auto* l = new WrappedLabel(parent);
    l->setObjectName(name);
    l->setTextFormat(Qt::RichText);
    if (selectable == Selectable::Yes) l->setTextInteractionFlags(Qt::TextSelectableByMouse);
    return l;
}

QLabel* makeWrappingLabel(const QString& name, QWidget* parent) {
    auto* l = new QLabel(parent);
    l->setObjectName(name);
    l->setTextFormat(Qt::RichText);
    l->setWordWrap(true);
    return l;
}

WrappedLabel* makeTitleLabel(const QString& name, QWidget* parent, Selectable selectable) {
    WrappedLabel* l = makeRichLabel(name, parent, selectable);
    enlargeFont(l, 11.0, 1.0);
    return l;
}

namespace {
template <class Box>
Box* makeBox(QWidget* w, int spacing, QMargins margins) {
    auto* box = new Box(w);
    box->setContentsMargins(margins);
    box->setSpacing(spacing);
    return box;
}
}  // namespace

QVBoxLayout* makeColumn(QWidget* w, int spacing, QMargins m) { return makeBox<QVBoxLayout>(w, spacing, m); }
QHBoxLayout* makeRow(QWidget* w, int spacing, QMargins m) { return makeBox<QHBoxLayout>(w, spacing, m); }
QVBoxLayout* makeColumn(QWidget* w, int spacing, int m) { return makeColumn(w, spacing, QMargins(m, m, m, m)); }
QHBoxLayout* makeRow(QWidget* w, int spacing, int m) { return makeRow(w, spacing, QMargins(m, m, m, m)); }

QBoxLayout* makePanelRow(QWidget* w, int spacing) {
    auto* row = new QBoxLayout(QBoxLayout::LeftToRight, w);
    row->setContentsMargins(0, 2, 0, 0);
    row->setSpacing(spacing);
    return row;
}

void addLabelled(QBoxLayout* row, const QString& text, QWidget* buddy) {
    auto* l = new QLabel(text, buddy->parentWidget());
    l->setBuddy(buddy);
    row->addWidget(l);
    row->addWidget(buddy);
}

QWidget* labelled(const QString& text, QWidget* buddy) {
    auto* pair = new QWidget(buddy->parentWidget());
    auto* row = makeRow(pair, 4, 0);
    buddy->setParent(pair);
    auto* l = new QLabel(text, pair);
    l->setBuddy(buddy);
    row->addWidget(l);
    row->addWidget(buddy);
    return pair;
}

QLayout* addPickerBar(QBoxLayout* root, QWidget* parent) {
    auto* host = view_parts::named(new QWidget(parent), "pickerBar");
    auto* bar = new FlowLayout(host, 12, 4);
    root->addWidget(host);
    return bar;
}

QSpinBox* makeHeadPicker(QWidget* parent, const QString& toolTip) {
    auto* box = view_parts::named(new QSpinBox(parent), "headPicker");
    box->setToolTip(toolTip);
    return box;
}

QLabel* makeOpLabel(const QString& text, double atLeast, double grow, QWidget* parent) {
    auto* l = new QLabel(text, parent);
    QFont f = l->font();
    f.setPointSizeF(std::max(atLeast, f.pointSizeF() + grow));
    f.setBold(true);
    l->setFont(f);
    l->setAlignment(Qt::AlignCenter);
    return l;
}

void linkHeatmaps(std::initializer_list<HeatmapWidget*> maps) {
    for (auto* a : maps)
        for (auto* b : maps)
            if (a != b) {
                QObject::connect(a, &HeatmapWidget::zoomChanged, b, &HeatmapWidget::setZoom);
                QObject::connect(a->horizontalScrollBar(), &QScrollBar::valueChanged, b->horizontalScrollBar(),
                                 &QScrollBar::setValue);
                QObject::connect(a->verticalScrollBar(), &QScrollBar::valueChanged, b->verticalScrollBar(),
                                 &QScrollBar::setValue);
            }
}

}  // namespace view_parts
