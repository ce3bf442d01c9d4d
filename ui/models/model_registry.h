// The UI's one place that tells the models apart: what each model's presentation adds to the
// data its graph carries, keyed by the trace's naming (Block::naming, the registry key). Views
// ask for the fact they need (which explanation pages, which sentence describes the model),
// never which model they show.
#pragma once

#include <memory>

#include <QString>
#include <QStringList>

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace tensorviz {
struct PieceBuilder;
struct StepInfo;
struct CellScope;
}  // namespace tensorviz

namespace models {

struct Presentation {
    // The model's explanation folders, most specific first, tried before the shared pages
    // (resources/explain/<folder>/<kind>.md, then resources/explain/<kind>.md).
    QStringList explainPrefixes;
    // Which seed the model comes from and which order of the scaled product it computes
    // (the scaling comparison's sentence), untranslated: scalingSentence() translates it.
    const char* scalingSentenceSource = "";
    QString scalingSentence() const;
    // A step's pieces and formula in the model's own words; false for a step left to the
    // shared ones (the gradients, the loss). Null: the shared ones for every step.
    bool (*stepPieces)(tensorviz::PieceBuilder& pb, const tensorviz::StepInfo& s, const QString& step, int H, int hh) = nullptr;
    // A cell's tooltip in the model's own words; `handled` false leaves it to the shared one.
    QString (*cellTip)(const tensorviz::CellScope& cell, bool& handled) = nullptr;
    // The module name a block goes by ("multihead_attn") and the navigator's title of a
    // sub-layer ("Cross-attention (multihead_attn)"); empty, or null: the shared words.
    QString (*blockWord)(const stepformer::Block& b) = nullptr;
    // The navigator's label of a step in the model's words ("out_proj (+ bias)"); empty, or
    // null: the shared label.
    QString (*label)(stepformer::Role op, const stepformer::TraceEntry& e) = nullptr;
    QString (*sublayerTitle)(const stepformer::Block& b) = nullptr;
    // What the navigator's source and target nodes are in the model's code, untranslated
    // (translated with the "StepModel" context).
    const char* sourceTip = QT_TRANSLATE_NOOP("StepModel", "enc_inputs: the source sentence, padded to src_len with the pad token");
    const char* targetTip =
        QT_TRANSLATE_NOOP("StepModel", "dec_inputs: the target sentence starting with the start symbol, padded to tgt_len");
    // The architecture diagram's layout: resources/diagrams/<diagram>.json, or <diagramNormFirst>
    // for a configuration with norm_first (a LayerNorm before each sub-layer).
    const char* diagram = "paper";
    const char* diagramNormFirst = nullptr;
    QString diagramFor(const stepformer::Config& c) const;
    // A diagram block's tooltip (rich text) in the model's words, with the sizes of `c`; null:
    // the paper's (architecture/architecture_parts.h).
    QString (*blockTip)(const QString& blockId, const stepformer::Config& c) = nullptr;
    // The reference trace names are resolved against before a trace exists (steps/reference_trace.h),
    // with at least `referenceLayers` layers; null: the tutorial's small model.
    std::unique_ptr<stepformer::Trace> (*reference)(int layers) = nullptr;
    int referenceLayers = 6;
};

const Presentation& presentation(stepformer::Naming naming);

// The model a trace shows: its blocks' naming (the first block's; the tutorial's for an empty trace).
stepformer::Naming namingOf(const stepformer::Trace& tr);
// The model a configuration makes: the naming its traces will have.
stepformer::Naming namingOf(const stepformer::Config& c);

}  // namespace models
