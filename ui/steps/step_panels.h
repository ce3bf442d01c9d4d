// What to draw for a step: the heatmap panels (a 2-D slice of a traced tensor with its colour
// scale, mask, legend and an explanatory tooltip per cell) and the operators between them.
// Shared by TensorView, AttentionView and MaskView.
#pragma once

#include <memory>
#include <vector>

#include <QString>

#include "widgets/heatmap_widget.h"
#include "stepformer/config.h"
#include "stepformer/trace.h"
#include "steps/tensor_slice.h"

class QComboBox;
class QWidget;

namespace tensorviz {

struct PanelSpec {
    QString title;
    QString traceName;     // the entry shown ("" for a derived panel)
    bool present = false;  // the entry exists in the trace
    bool hasHead = false;  // the entry has a head axis (the head picker applies)
    bool transposed = false;  // rows and columns swapped from the entry's slice (K shown as Kᵀ)
    Matrix m;
    std::vector<float> mask;  // same size as m.values or empty
    HeatmapWidget::ColorMode mode = HeatmapWidget::ColorMode::Diverging;
    bool fixedRange = false;
    float lo = 0.0f, hi = 1.0f;
    QString legendCaption;
    QString maskedExplanation;
    QString emptyMessage;
    HeatmapWidget::TooltipFn tooltip;
};

struct Piece {
    bool isOp = false;
    QString op;       // operator text between panels ("·", "+", "softmax →")
    PanelSpec panel;  // when !isOp
};

struct StepPieces {
    std::vector<Piece> pieces;  // inputs ..., output last
    QString formula;            // rich text: what the step computes
    bool anyHead = false;
};

using TracePtr = std::shared_ptr<const stepformer::Trace>;

// A panel for trace entry `name` at batch b, head h: colour scale by its kind (masks and
// probabilities sequential 0..1, everything else diverging around 0), the attention mask on
// masked_scores / attn, and tooltips that say how the cell was computed.
PanelSpec panelFor(const TracePtr& tr, const stepformer::Config& cfg, const QString& name, int b, int h,
                   const QString& title = {});
// The inputs -> output panels of a step (see TensorView).
StepPieces stepPieces(const TracePtr& tr, const stepformer::Config& cfg, const QString& step, int b, int h);
// Puts a panel into a heatmap.
void applyPanel(HeatmapWidget* w, const PanelSpec& p);
// Why query i may not look at key j under a mask entry ("key 'P' is padding", "a future word"):
// a pad or subsequence mask says so itself, a combined mask gives the reasons of its inputs.
QString maskReason(const stepformer::Trace& tr, const stepformer::TraceEntry& mask, int b, int i, int j);
// attention-is-all-you-need-pytorch's masks: 1 = keep (the tutorial's and PyTorch's bool masks: 1 = masked).
bool keepsOnes(const stepformer::TraceEntry& mask);
// A sentence picker (objectName "batchPicker"), sized to its items but never narrower than a few
// words (a crowded bar elides it rather than cutting it to a few letters).
QComboBox* makeBatchPicker(QWidget* parent, const QString& toolTip);
// Fills a sentence picker with "0: ich mochte ein bier P  →  S i want a beer ." items (keeps the
// current index when the count is unchanged); returns the number of sentences (at least 1).
int fillBatchPicker(QComboBox* box, const stepformer::Trace* tr);
// fillBatchPicker, then `batch` clamped to the sentences, shown, and the picker enabled only when
// there is a choice. Returns the number of sentences.
int syncBatchPicker(QComboBox* box, const stepformer::Trace* tr, int& batch);
// The attention-block picker (items carry a BlockKind) set to `block`'s kind, and the layer
// picker filled with that stack's layers ("Layer 0", ...; "—" when there are none); `block`
// takes its stack from the trace and its layer clamped to them.
void syncBlockLayerPickers(QComboBox* blockBox, QComboBox* layerBox, const stepformer::Trace* tr,
                           stepformer::Block& block);
// The three attention kinds of the tutorial's model, before a trace says which there are.
void fillBlockPicker(QComboBox* blockBox);
// The attention block of `kind` at `layer`, in the stack where the trace has that kind.
stepformer::Block attentionBlockOf(const stepformer::Trace& tr, stepformer::BlockKind kind, int layer);
// "[0, 2, 3, 1]": the full index of cell (r, c) of the slice (b, h) of an entry.
QString indexText(const stepformer::TraceEntry& e, int b, int h, int r, int c);

}  // namespace tensorviz
