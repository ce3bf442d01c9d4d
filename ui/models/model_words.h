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

namespace torch {
std::unique_ptr<stepformer::Trace> reference(int layers);
std::unique_ptr<stepformer::Trace> layerLabReference(int layers);
QString label(stepformer::Role op, const stepformer::TraceEntry& e);
QString blockWord(const stepformer::Block& b);
QString sublayerTitle(const stepformer::Block& b);
QString blockTip(const QString& blockId, const stepformer::Config& c);  // diagram_tips.cpp
}  // namespace torch
namespace aiayn {
std::unique_ptr<stepformer::Trace> reference(int layers);
QString label(stepformer::Role op, const stepformer::TraceEntry& e);
QString blockWord(const stepformer::Block& b);
QString sublayerTitle(const stepformer::Block& b);
QString blockTip(const QString& blockId, const stepformer::Config& c);  // diagram_tips.cpp
}  // namespace aiayn
}  // namespace models
