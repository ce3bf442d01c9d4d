// What the cell-tooltip files share (steps/step_tooltips.cpp and each model's tooltips.cpp):
// the panels' text helpers, exact number formatting and the graph's types, in tensorviz's scope.
// Private to those files: include it from a .cpp only.
#pragma once

#include "steps/panel_text.h"
#include "steps/step_panels.h"
#include "steps/step_tooltips.h"
#include "stepformer/trace_graph.h"
#include "widgets/number_format.h"

namespace tensorviz {
using namespace stepformer;
using namespace panel;
using numfmt::exact;
using numfmt::exactOperand;
}  // namespace tensorviz
