// Private to the registry: each model's words (ui/models/<model>/words.cpp). Empty: the shared one.
#pragma once

#include <QString>

#include "stepformer/trace.h"

namespace models {
namespace torch {
QString label(stepformer::Role op, const stepformer::TraceEntry& e);
QString blockWord(const stepformer::Block& b);
QString sublayerTitle(const stepformer::Block& b);
}  // namespace torch
namespace aiayn {
QString label(stepformer::Role op, const stepformer::TraceEntry& e);
QString blockWord(const stepformer::Block& b);
QString sublayerTitle(const stepformer::Block& b);
}  // namespace aiayn
}  // namespace models
