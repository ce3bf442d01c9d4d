// The application's style: the platform's (Fusion on a bare Linux desktop), with flat scroll bars
// when that is Fusion.
//
// Why: Fusion fills a scroll bar's groove and handle with gradients, and Qt 6.4's raster engine
// splits every such fill taller than ~100 px over its global thread pool, waking threads and
// waiting for them. Measured: 0.8 ms a repaint of one 400 px scroll bar (0.12 ms when pinned to one
// core), and ~90% of the thread hand-offs of a step switch (the heatmaps, the step tree and the
// explanation all have scroll bars). Solid fills take the engine's single-threaded fast path.
#pragma once

#include <QProxyStyle>

class AppStyle : public QProxyStyle {
    Q_OBJECT
public:
    explicit AppStyle(QStyle* base);

    void drawComplexControl(ComplexControl control, const QStyleOptionComplex* option, QPainter* painter,
                            const QWidget* widget = nullptr) const override;

    // Installs the style on the application once (later calls do nothing).
    static void install();

private:
    bool flatScrollBars_ = false;
};
