// Private to the step panels (step_panels.cpp, step_tooltips.cpp, step_pieces.cpp): the small
// rich-text and lookup helpers their explanations share.
#pragma once

#include <QCoreApplication>
#include <QString>
#include <QStringList>

#include "stepformer/config.h"
#include "stepformer/trace.h"
#include "steps/tensor_slice.h"

// The step panels' translation context: StepPanels::tr("...") in the strip's labels, operators,
// formulas and mask reasons. At global scope, so that lupdate's context is the runtime one,
// "StepPanels".
struct StepPanels {
    Q_DECLARE_TR_FUNCTIONS(StepPanels)
};

namespace tensorviz::panel {

inline QString esc(const QString& s) { return s.toHtmlEscaped(); }
inline QString quoted(const QString& tok) { return QStringLiteral("'") + esc(tok) + QStringLiteral("'"); }
inline QString sub(const QString& s) { return QStringLiteral("<sub>") + s + QStringLiteral("</sub>"); }
// The tutorial's LayerNorm has no learned scale; say so where the formula would show one.
inline QString layerNormAffineText(const stepformer::Config& c) {
    return c.learns_layer_norm() ? StepPanels::tr(", then · γ + β (learned)")
                                 : StepPanels::tr(" (no learned γ/β: a fresh nn.LayerNorm each call is never trained)");
}

inline const stepformer::TraceEntry* findEntry(const stepformer::Trace& tr, const QString& name) {
    return tr.find(name.toStdString());
}

inline Matrix sliceOf(const stepformer::Trace& tr, const stepformer::Config* cfg, const QString& name, int b, int h) {
    const stepformer::TraceEntry* e = findEntry(tr, name);
    return e ? slice(tr, *e, b, h, cfg) : Matrix{};
}

inline bool inside(const Matrix& m, int r, int c) { return r >= 0 && c >= 0 && r < m.rows && c < m.cols; }

inline QString labelOf(const QStringList& l, int i) { return i >= 0 && i < l.size() ? l[i] : QString::number(i); }

// "scores  (layer 0 encoder self-attention)": an entry's short title with where it sits.
QString shortLeafTitle(const stepformer::Trace& tr, const QString& name);

}  // namespace tensorviz::panel
