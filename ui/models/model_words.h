// Private to the registry: each model's words and labels (ui/models/<model>/words.cpp). Empty: the shared one.
#pragma once

#include <memory>

#include <QString>

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace models {

using stepformer::Block;
using stepformer::BlockKind;
using stepformer::Role;
using stepformer::Stack;
using stepformer::TraceEntry;

// The hooks a model's folder defines (words.cpp, diagram_tips.cpp), declared alike for each.
#define STEPFORMER_MODEL_HOOKS                                                 \
    std::unique_ptr<stepformer::Trace> reference(int layers);                  \
    QString label(stepformer::Role op, const stepformer::TraceEntry& e);       \
    QString blockWord(const stepformer::Block& b);                             \
    QString sublayerTitle(const stepformer::Block& b);                         \
    QString blockTip(const QString& blockId, const stepformer::Config& c);

namespace torch {
STEPFORMER_MODEL_HOOKS
std::unique_ptr<stepformer::Trace> layerLabReference(int layers);  // seed 004's layer lab
}  // namespace torch
namespace aiayn {
STEPFORMER_MODEL_HOOKS
}  // namespace aiayn
namespace gpt {
STEPFORMER_MODEL_HOOKS
}  // namespace gpt
}  // namespace models
