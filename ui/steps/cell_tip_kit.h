// What the cell-tooltip files share (steps/step_tooltips.cpp and each model's tooltips.cpp):
// the panels' text helpers, exact number formatting and the graph's types, in tensorviz's scope.
// Private to those files: include it from a .cpp only.
#pragma once

#include <utility>
#include <vector>

#include <QCoreApplication>

#include "steps/panel_text.h"
#include "steps/step_panels.h"
#include "steps/step_tooltips.h"
#include "stepformer/trace_graph.h"
#include "widgets/number_format.h"

// The cell tooltips' translation context: CellTip::tr("...") (CellScope's member `tr`, the trace,
// hides a bare tr()). At global scope, so that lupdate's context is the runtime one, "CellTip".
struct CellTip {
    Q_DECLARE_TR_FUNCTIONS(CellTip)
};

namespace tensorviz {
using namespace stepformer;
using namespace panel;
using numfmt::exact;
using numfmt::exactOperand;
// "a·b + c·d + … (n terms) = <b>total</b>": a row times a column, its first terms written out.
QString sumTerms(const std::vector<std::pair<double, double>>& terms, double total);
// The column of row `row` of a probability matrix whose value is closest to `p` (the target word
// a per-token loss −log p was taken of).
int columnOfProbability(const Matrix& probs, int row, double p);
}  // namespace tensorviz
