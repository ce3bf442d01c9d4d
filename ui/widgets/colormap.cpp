#include "widgets/colormap.h"

#include <QApplication>
#include <QPalette>
#include "widgets/theme_colors.h"
#include "widgets/number_format.h"

#include "widgets/elision_log.h"
#include "widgets/static_text_cache.h"

#include <algorithm>
#include <cmath>

#include <QFont>
#include <QFontMetrics>
#include <QImage>
#include <QPainter>

namespace {

struct Stop {
    double t;
    int r, g, b;
};

// ColorBrewer RdBu (11 classes), reversed so that negative is blue and positive red.
constexpr Stop kDiverging[] = {
    {-1.0, 5, 48, 97},    {-0.8, 33, 102, 172},  {-0.6, 67, 147, 195}, {-0.4, 146, 197, 222},
    {-0.2, 209, 229, 240}, {0.0, 247, 247, 247}, {0.2, 253, 219, 199}, {0.4, 244, 165, 130},
    {0.6, 214, 96, 77},   {0.8, 178, 24, 43},    {1.0, 103, 0, 31},
};

// ColorBrewer YlGnBu (9 classes), starting from an almost-white yellow.
constexpr Stop kSequential[] = {
    {0.0, 255, 255, 229}, {0.125, 237, 248, 177}, {0.25, 199, 233, 180}, {0.375, 127, 205, 187},
    {0.5, 65, 182, 196},  {0.625, 29, 145, 192},  {0.75, 34, 94, 168},   {0.875, 37, 52, 148},
    {1.0, 8, 29, 88},
};

// The colour at t, linear between the two stops around it, each channel rounded.
template <size_t N>
QRgb interpolate(const Stop (&stops)[N], double t) {
    if (!(t >= stops[0].t)) t = stops[0].t;  // also catches NaN
    if (t >= stops[N - 1].t) return qRgb(stops[N - 1].r, stops[N - 1].g, stops[N - 1].b);
    // The first stop at or above t. The stops are evenly spaced, so start at the computed one
    // and correct for rounding; a scan from the start finds the same stop, slower (the cell
    // images colour a million cells for a 512 x 2048 weight).
    const double span = stops[N - 1].t - stops[0].t;
    size_t i = std::clamp<size_t>(size_t((t - stops[0].t) / span * double(N - 1)) + 1, 1, N - 1);
    while (i > 1 && t <= stops[i - 1].t) --i;
    while (i < N - 1 && t > stops[i].t) ++i;
    const Stop& a = stops[i - 1];
    const Stop& b = stops[i];
    const double f = (t - a.t) / (b.t - a.t);
    auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
    return qRgb(mix(a.r, b.r), mix(a.g, b.g), mix(a.b, b.b));
}

}  // namespace

Colormap::Colormap(Kind kind, float lo, float hi) : kind_(kind) {
    if (!std::isfinite(lo)) lo = 0.0f;
    if (!std::isfinite(hi)) hi = 0.0f;
    if (lo > hi) std::swap(lo, hi);
    if (kind == Kind::Diverging) {
        float a = std::max(std::fabs(lo), std::fabs(hi));
        if (a <= 0.0f) a = 1.0f;
        lo_ = -a;
        hi_ = a;
    } else {
        if (hi <= lo) hi = lo + 1.0f;
        lo_ = lo;
        hi_ = hi;
    }
}

double Colormap::position(float v) const {
    if (!std::isfinite(v)) return v > 0 ? 1.0 : 0.0;
    const double t = (static_cast<double>(v) - lo_) / (static_cast<double>(hi_) - lo_);
    return std::clamp(t, 0.0, 1.0);
}

QColor Colormap::color(float v) const { return QColor::fromRgb(rgb(v)); }

QRgb Colormap::rgb(float v) const {
    if (std::isnan(v)) return nanColor().rgb();
    if (kind_ == Kind::Diverging) {
        const double a = hi_;
        return interpolate(kDiverging, std::clamp(static_cast<double>(v) / a, -1.0, 1.0));
    }
    return interpolate(kSequential, position(v));
}

QColor Colormap::diverging(double t) { return QColor::fromRgb(interpolate(kDiverging, t)); }
QColor Colormap::sequential(double t) { return QColor::fromRgb(interpolate(kSequential, t)); }

QColor Colormap::maskedColor() { return QColor(200, 200, 200); }
QColor Colormap::nanColor() { return QColor(255, 0, 255); }

QColor Colormap::textColorOn(const QColor& bg) {
    const double lum = 0.2126 * bg.redF() + 0.7152 * bg.greenF() + 0.0722 * bg.blueF();
    return lum < 0.5 ? QColor(Qt::white) : QColor(20, 20, 20);
}

QColor Colormap::hatchColorOn(const QColor& bg) {
    const double lum = 0.2126 * bg.redF() + 0.7152 * bg.greenF() + 0.0722 * bg.blueF();
    return lum < 0.45 ? QColor(255, 255, 255, 200) : QColor(60, 60, 60, 190);
}

std::vector<double> Colormap::ticks(bool dense) const {
    if (kind_ == Kind::Diverging) {
        if (dense) return {double(hi_), double(hi_) / 2, 0.0, double(lo_) / 2, double(lo_)};
        return {double(hi_), 0.0, double(lo_)};
    }
    if (dense) return {double(hi_), (double(hi_) + lo_) / 2, double(lo_)};
    return {double(hi_), double(lo_)};
}

int Colormap::legendWidth(const QFont& font, const QString& caption, const QString& maskCaption) const {
    QFontMetrics fm(font);
    int w = 0;
    for (double t : ticks(true)) w = std::max(w, fm.horizontalAdvance(numfmt::colorBarTick(t)));
    w += 16 + 6 + 4;
    w = std::max(w, fm.horizontalAdvance(caption) + 2);
    for (const QString& line : maskCaption.split(QLatin1Char('\n'))) w = std::max(w, fm.horizontalAdvance(line) + 2);
    return w;
}

int Colormap::horizontalLegendHeight(const QFont& font, bool withMaskRow) {
    QFontMetrics fm(font);
    return 12 + 4 + fm.height() + 4 + (withMaskRow ? 12 + 8 : 0);
}

// The legend's sample of a masked cell (hatched), outlined; leaves the pen ready for its caption.
static void paintMaskSwatch(QPainter& p, const QRect& swatch) {
    p.fillRect(swatch, Colormap::maskedColor());
    p.fillRect(swatch, QBrush(Colormap::hatchColorOn(Colormap::maskedColor()), Qt::BDiagPattern));
    p.setPen(theme::quietText());
    p.drawRect(swatch.adjusted(0, 0, -1, -1));
    p.setPen(QApplication::palette().color(QPalette::Text));
}

void Colormap::paintLegend(QPainter& p, const QRect& area, const QFont& font, const QString& caption,
                           const QString& maskCaption, Qt::Orientation orientation) const {
    const bool horizontal = orientation == Qt::Horizontal;
    if (horizontal ? area.width() < 60 || area.height() < 12 : area.width() < 20 || area.height() < 40) return;
    p.save();
    p.setFont(font);
    const QFontMetrics fm(font);
    if (horizontal) {
        const int barH = 12;
        int x0 = area.left();
        int x1 = area.right();
        const int y = area.top() + 2;
        if (!caption.isEmpty()) {
            const int cw = fm.horizontalAdvance(caption) + 8;
            if (x1 - x0 - cw > 80) {
                p.setPen(theme::quietText());
                drawCachedText(p, QRect(x0, y - 2, cw, barH + 4), Qt::AlignLeft | Qt::AlignVCenter, caption);
                x0 += cw;
            }
        }
        const QString maskLine = QString(maskCaption).replace(QLatin1Char('\n'), QLatin1Char(' '));
        QRect swatch;
        if (!maskLine.isEmpty()) {
            const int mw = 16 + 4 + fm.horizontalAdvance(maskLine) + 12;
            if (x1 - x0 - mw > 180) {  // room on the bar's row
                swatch = QRect(x1 - mw + 12, y, 16, barH);
                x1 -= mw;
            } else if (area.height() >= 2 * (barH + 4) + fm.height()) {  // a second row
                swatch = QRect(area.left(), y + barH + 4 + fm.height() + 4, 16, barH);
            }
        }
        const int lw = fm.horizontalAdvance(numfmt::colorBarTick(lo_)) / 2 + 2;
        const int hw = fm.horizontalAdvance(numfmt::colorBarTick(hi_)) / 2 + 2;
        x0 += lw;
        x1 -= hw;
        if (x1 - x0 >= 30) {
            // The bar as an image, one column per pixel: the same pixels as a line per column,
            // without hundreds of pen changes and line draws on every repaint.
            QImage bar(x1 - x0 + 1, barH, QImage::Format_RGB32);
            for (int x = x0; x <= x1; ++x) {
                const double t = double(x - x0) / double(std::max(1, x1 - x0));
                const QRgb c = rgb(static_cast<float>(lo_ + t * (double(hi_) - lo_)));
                for (int r = 0; r < barH; ++r) reinterpret_cast<QRgb*>(bar.scanLine(r))[x - x0] = c;
            }
            p.drawImage(x0, y, bar);
            p.setPen(theme::quietText());
            p.setBrush(Qt::NoBrush);
            p.drawRect(QRect(x0, y, x1 - x0, barH - 1));
            p.setPen(QApplication::palette().color(QPalette::Text));
            // The densest set of ticks whose labels do not collide.
            auto xOf = [&](double tv) { return x0 + static_cast<int>(std::lround((tv - lo_) / (double(hi_) - lo_) * (x1 - x0))); };
            auto fits = [&](std::vector<double> ts) {
                std::sort(ts.begin(), ts.end());
                int lastRight = -100000;
                for (double tv : ts) {
                    const int w = fm.horizontalAdvance(numfmt::colorBarTick(tv));
                    const int left = xOf(tv) - w / 2;
                    if (left < lastRight + 6) return false;
                    lastRight = left + w;
                }
                return true;
            };
            std::vector<double> chosen = ticks(true);
            if (!fits(chosen)) chosen = ticks(false);
            if (!fits(chosen)) chosen = {double(lo_), double(hi_)};
            for (double tv : chosen) {
                const int x = xOf(tv);
                p.drawLine(x, y + barH, x, y + barH + 3);
                const QString label = numfmt::colorBarTick(tv);
                const int w = fm.horizontalAdvance(label);
                drawCachedText(p, QRect(x - w / 2 - 2, y + barH + 3, w + 4, fm.height()), Qt::AlignCenter, label);
            }
        }
        if (!swatch.isNull()) {
            paintMaskSwatch(p, swatch);
            const QRect tr(swatch.right() + 5, swatch.top() - 3, area.right() - swatch.right() - 4, barH + 6);
            p.drawText(tr, Qt::AlignLeft | Qt::AlignVCenter, elision_log::elidedText(p, fm, maskLine, Qt::ElideRight, tr.width()));
        }
        p.restore();
        return;
    }
    const int barW = 16;
    int top = area.top();
    if (!caption.isEmpty()) {
        p.setPen(theme::quietText());
        drawCachedText(p, QRect(area.left(), top, area.width(), fm.height()), Qt::AlignLeft | Qt::AlignVCenter, caption,
                       area.width());
        top += fm.height() + 4;
    }
    int bottom = area.bottom();
    const int swatchH = std::max(16, fm.height());
    QRect swatch;
    if (!maskCaption.isEmpty()) {
        const int lines = maskCaption.count(QLatin1Char('\n')) + 1;
        const int need = swatchH + 4 + lines * fm.height();
        if (bottom - top > need + 50) {
            swatch = QRect(area.left(), bottom - need + 1, barW, swatchH);
            bottom -= need + 10;
        }
    }
    const int y0 = top + fm.height() / 2;
    const int y1 = bottom - fm.height() / 2;
    if (y1 - y0 >= 12) {
        const int x = area.left();
        QImage bar(barW, y1 - y0 + 1, QImage::Format_RGB32);  // one row per pixel, as above
        for (int y = y0; y <= y1; ++y) {
            const double t = 1.0 - double(y - y0) / double(std::max(1, y1 - y0));
            const QRgb c = rgb(static_cast<float>(lo_ + t * (double(hi_) - lo_)));
            std::fill_n(reinterpret_cast<QRgb*>(bar.scanLine(y - y0)), barW, c);
        }
        p.drawImage(x, y0, bar);
        p.setPen(theme::quietText());
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRect(x, y0, barW - 1, y1 - y0));
        p.setPen(QApplication::palette().color(QPalette::Text));
        for (double tv : ticks(y1 - y0 >= 5 * fm.height())) {
            const double t = (tv - lo_) / (double(hi_) - lo_);
            const int y = y1 - static_cast<int>(std::lround(t * (y1 - y0)));
            p.drawLine(x + barW, y, x + barW + 3, y);
            drawCachedText(p, QRect(x + barW + 6, y - fm.height() / 2, area.width() - barW - 6, fm.height()),
                           Qt::AlignLeft | Qt::AlignVCenter, numfmt::colorBarTick(tv));
        }
    }
    if (!swatch.isNull()) {
        paintMaskSwatch(p, swatch);
        const QRect text(area.left(), swatch.bottom() + 3, area.width(),
                         fm.height() * (maskCaption.count(QLatin1Char('\n')) + 1));
        p.drawText(text, Qt::AlignLeft | Qt::AlignTop, maskCaption);
    }
    p.restore();
}
