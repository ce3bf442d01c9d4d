// Colour scales for the tensor heatmaps and the helper that paints their legend.
//
//  - Diverging: blue (negative) - white (0) - red (positive), always centred at 0 so that the
//    sign of a number is its hue and its magnitude its saturation (ColorBrewer RdBu).
//  - Sequential: pale yellow (low) -> green -> dark blue (high) (ColorBrewer YlGnBu), for
//    probabilities (attn, probs) and masks: 0 is almost white, so "nothing" looks empty.
//
// A Colormap value is a scale plus its value range; color(v) maps a number to its colour.
#pragma once

#include <QColor>
#include <QRect>
#include <QString>

#include <vector>

class QPainter;
class QFont;

class Colormap {
public:
    enum class Kind { Diverging, Sequential };

    Colormap() = default;
    // Diverging uses the symmetric range [-a, a] with a = max(|lo|, |hi|) (a = 1 when both are 0);
    // Sequential uses [lo, hi] (hi = lo + 1 when they are equal).
    Colormap(Kind kind, float lo, float hi);

    Kind kind() const { return kind_; }
    float lo() const { return lo_; }
    float hi() const { return hi_; }

    // The colour of a value; values outside the range saturate at the ends. NaN/inf -> nanColor().
    QColor color(float v) const;
    QRgb rgb(float v) const;  // color(v).rgb(), for colouring many cells
    // Position of v in the scale, 0 (lo) .. 1 (hi), clamped.
    double position(float v) const;

    // The raw scales: t in [-1, 1] for diverging (0 = white), [0, 1] for sequential.
    static QColor diverging(double t);
    static QColor sequential(double t);

    // Neutral colours shared by every heatmap.
    static QColor maskedColor();  // base of a cell filled with -1e9 (hatched on top)
    static QColor nanColor();
    // Black or white, whichever reads better on `background`.
    static QColor textColorOn(const QColor& background);
    // Hatch line colour for a masked cell of colour `background`.
    static QColor hatchColorOn(const QColor& background);

    // Paints a legend inside `area`: vertical (colour bar, tick labels on its right, caption above,
    // optional hatched "masked" swatch below) or horizontal (caption left, bar with tick labels
    // below it, swatch right). `maskCaption` empty = no swatch.
    void paintLegend(QPainter& p, const QRect& area, const QFont& font, const QString& caption = {},
                     const QString& maskCaption = {}, Qt::Orientation orientation = Qt::Vertical) const;
    // The width a vertical legend needs with `font` (bar + this range's tick labels, caption).
    int legendWidth(const QFont& font, const QString& caption = {}, const QString& maskCaption = {}) const;
    // The height a horizontal legend needs with `font` (with room for the masked swatch on a
    // second row when the bar's row is too short for it).
    static int horizontalLegendHeight(const QFont& font, bool withMaskRow = false);
    // The values with a tick: lo, (mid,) hi; 0 included for diverging scales.
    std::vector<double> ticks(bool dense) const;

private:
    Kind kind_ = Kind::Diverging;
    float lo_ = -1.0f;
    float hi_ = 1.0f;
};
