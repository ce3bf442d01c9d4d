// Painting an image in one thread of Qt's global pool, for pictures made of many antialiased
// shapes (the attention lines).
//
// Why: Qt 6.4's raster engine splits every antialiased or translucent fill of more than ~100
// scanlines over the global thread pool and waits for it, unless it already runs in a thread of
// that pool. Painted from the GUI thread, 25 attention lines cost ~5 ms in thread wake-ups on a
// 2-core machine; painted in one pool thread they run straight through.
#pragma once

#include <functional>

#include <QImage>

class QPainter;

// A transparent ARGB32 premultiplied image of `size` (device-independent pixels) at `dpr`, with
// `paint` run on it. In a pool thread when one is free (the caller waits), else in this thread.
QImage paintImageInPool(QSize size, qreal dpr, const std::function<void(QPainter&)>& paint);
