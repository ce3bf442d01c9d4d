// The pieces the step views are built of, in the views' common look: enlarged fonts, the rich-text
// title and formula labels, labelled pickers and the bold operators between panels.
#pragma once

#include <initializer_list>

#include <QMargins>
#include <QString>

class HeatmapWidget;
class QBoxLayout;
class QHBoxLayout;
class QLabel;
class QLayout;
class QSpinBox;
class QVBoxLayout;
class QWidget;
class WrappedLabel;

namespace view_parts {

// `w`'s font `grow` points larger than it is, and at least `atLeast` points.
void enlargeFont(QWidget* w, double atLeast, double grow);

enum class Selectable { No, Yes };
// A word-wrapping rich-text label named `name` (a view's formula or caption).
WrappedLabel* makeRichLabel(const QString& name, QWidget* parent, Selectable selectable);
// The same for a title: a point larger, at least 11 points.
WrappedLabel* makeTitleLabel(const QString& name, QWidget* parent, Selectable selectable);

// A vertical (horizontal) layout on `w` (none: to be added to another) with these margins.
QVBoxLayout* makeColumn(QWidget* w, int spacing, QMargins margins = {});
QVBoxLayout* makeColumn(QWidget* w, int spacing, int margin);
QHBoxLayout* makeRow(QWidget* w, int spacing, QMargins margins = {});
QHBoxLayout* makeRow(QWidget* w, int spacing, int margin);

// The row of panels under a view's text (2 px below it), left to right; a view showing wide
// tensors turns it top to bottom.
QBoxLayout* makePanelRow(QWidget* w, int spacing);

// `w` with the objectName `name` (what the tests and the style sheets find it by); returns `w`.
template <class W>
W* named(W* w, const char* name) {
    w->setObjectName(QString::fromLatin1(name));
    return w;
}

// A plain label named `name` that shows rich text and wraps (a caption or a summary line).
QLabel* makeWrappingLabel(const QString& name, QWidget* parent);

// A heatmap (HeatmapWidget or a kind of one) named `name`.
template <class Heatmap = HeatmapWidget>
Heatmap* makeHeatmap(const QString& name, QWidget* parent) {
    auto* h = new Heatmap(parent);
    h->setObjectName(name);
    return h;
}

// A label saying what `buddy` picks ("Sentence:"), then `buddy`, added to `row`.
void addLabelled(QBoxLayout* row, const QString& text, QWidget* buddy);
// The same as one widget (an item of a FlowLayout: the label never parts from its picker).
QWidget* labelled(const QString& text, QWidget* buddy);
// The row of a view's pickers under `parent`'s root layout: a FlowLayout that wraps onto a
// second line in a narrow window; add widgets (labelled() pairs) to it.
QLayout* addPickerBar(QBoxLayout* root, QWidget* parent);
// The attention head picker ("headPicker").
QSpinBox* makeHeadPicker(QWidget* parent, const QString& toolTip);

// The bold dark-grey operator between two panels ("softmax\n→"), its font as enlargeFont's.
QLabel* makeOpLabel(const QString& text, double atLeast, double grow, QWidget* parent);

// Zooming or scrolling one of `maps` zooms or scrolls the others alike.
void linkHeatmaps(std::initializer_list<HeatmapWidget*> maps);

}  // namespace view_parts
