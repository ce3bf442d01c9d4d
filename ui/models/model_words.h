// Private to the registry: each model's words (ui/models/<model>/words.cpp). Empty: the shared one.
#pragma once

#include <QString>

#include "stepformer/trace.h"

namespace models {
namespace torch {
QString blockWord(const stepformer::Block& b);
QString sublayerTitle(const stepformer::Block& b);
}  // namespace torch
namespace aiayn {
QString blockWord(const stepformer::Block& b);
QString sublayerTitle(const stepformer::Block& b);
}  // namespace aiayn
}  // namespace models
