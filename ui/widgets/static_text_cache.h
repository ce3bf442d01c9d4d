// Drawing short labels (indices, tokens, tick values) from a cache of prepared QStaticTexts.
//
// Why: QPainter::drawText(rect, flags, text) shapes and lays the text out on every call, and
// eliding measures it again; a heatmap draws dozens of labels per paint and the same ones (0..511,
// the sentence's tokens) come back step after step. Measured: drawText + elidedText were about
// half of a heatmap's paint.
#pragma once

#include <QRect>
#include <QString>

class QPainter;

// Draws `text` with the painter's font and pen, aligned in `rect` as drawText would (one line,
// Qt::AlignLeft/Right/HCenter with AlignTop/Bottom/VCenter), elided on the right to `elideWidth`
// when that is > 0. Painters turned by a quarter are cached too (each turn has its own texts).
void drawCachedText(QPainter& p, const QRect& rect, int alignment, const QString& text, int elideWidth = 0);
