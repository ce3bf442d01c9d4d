#include "views/pe_heatmap.h"
#include "widgets/downsample.h"
#include "widgets/elision_log.h"
#include "widgets/number_format.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

namespace {

struct Stop {
    float t;
    QRgb c;
};

// ColorBrewer RdBu reversed (negative blue, positive red), white at 0.
const Stop kDiverging[] = {{0.0f, 0x053061}, {0.1f, 0x2166ac}, {0.2f, 0x4393c3}, {0.3f, 0x92c5de},
                           {0.4f, 0xd1e5f0}, {0.5f, 0xf7f7f7}, {0.6f, 0xfddbc7}, {0.7f, 0xf4a582},
                           {0.8f, 0xd6604d}, {0.9f, 0xb2182b}, {1.0f, 0x67001f}};
// Viridis.
const Stop kSequential[] = {{0.0f, 0x440154}, {0.111f, 0x482878}, {0.222f, 0x3e4989}, {0.333f, 0x31688e},
                            {0.444f, 0x26828e}, {0.555f, 0x1f9e89}, {0.666f, 0x35b779}, {0.777f, 0x6ece58},
                            {0.888f, 0xb5de2b}, {1.0f, 0xfde725}};

template <size_t N>
QRgb interpolate(const Stop (&stops)[N], float t) {
    if (!(t >= 0.0f)) t = 0.0f;  // also catches NaN
    if (t > 1.0f) t = 1.0f;
    for (size_t i = 1; i < N; ++i) {
        if (t <= stops[i].t) {
            const float f = (t - stops[i - 1].t) / (stops[i].t - stops[i - 1].t);
            const QRgb a = stops[i - 1].c, b = stops[i].c;
            auto mix = [f](int x, int y) { return static_cast<int>(std::lround(x + (y - x) * f)); };
            return qRgb(mix(qRed(a), qRed(b)), mix(qGreen(a), qGreen(b)), mix(qBlue(a), qBlue(b)));
        }
    }
    return stops[N - 1].c | 0xff000000u;
}

constexpr qreal kMargin = 4.0;
constexpr qreal kMarkerH = 6.0;

}  // namespace

PeHeatmap::PeHeatmap(QWidget* parent) : QWidget(parent) {
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    placeholder_ = tr("No data");
    setAccessibleName(tr("Positional encoding heatmap"));
}

void PeHeatmap::setMatrix(int rows, int cols, std::vector<float> values) {
    if (rows < 0 || cols < 0 || values.size() != static_cast<size_t>(rows) * static_cast<size_t>(cols)) {
        rows = cols = 0;
        values.clear();
    }
    if (rows != rows_) rowLabelsW_ = -1;
    if (cols != cols_) colLabelsW_ = -1;
    rows_ = rows;
    cols_ = cols;
    values_ = std::move(values);
    float amax = 0.0f, lo = 0.0f, hi = 0.0f;
    bool first = true;
    for (float v : values_) {
        if (!std::isfinite(v)) continue;
        amax = std::max(amax, std::fabs(v));
        if (first) lo = hi = v, first = false;
        lo = std::min(lo, v);
        hi = std::max(hi, v);
    }
    autoAbsMax_ = amax > 0.0f ? amax : 1.0f;
    autoLo_ = lo;
    autoHi_ = hi > lo ? hi : lo + 1.0f;
    hover_ = {-1, -1};
    imageDirty_ = true;  // coloured when next painted (setters often come in pairs)
    update();
}

void PeHeatmap::clear() { setMatrix(0, 0, {}); }

void PeHeatmap::setRowLabels(const QStringList& labels) {
    if (labels != rowLabels_) rowLabelsW_ = -1;
    rowLabels_ = labels;
    update();
}

void PeHeatmap::setColLabels(const QStringList& labels) {
    if (labels != colLabels_) colLabelsW_ = -1;
    colLabels_ = labels;
    update();
}

void PeHeatmap::setTitle(const QString& title) {
    title_ = title;
    update();
}

void PeHeatmap::setRowAxisTitle(const QString& title) {
    rowAxisTitle_ = title;
    update();
}

void PeHeatmap::setColAxisTitle(const QString& title) {
    colAxisTitle_ = title;
    update();
}

void PeHeatmap::setColorMode(ColorMode mode) {
    mode_ = mode;
    imageDirty_ = true;  // coloured when next painted (setters often come in pairs)
    update();
}

void PeHeatmap::setValueRange(float absMax) {
    fixedAbsMax_ = absMax > 0.0f && std::isfinite(absMax) ? absMax : 0.0f;
    imageDirty_ = true;  // coloured when next painted (setters often come in pairs)
    update();
}

void PeHeatmap::setSequentialRange(float lo, float hi) {
    seqLo_ = lo;
    seqHi_ = hi;
    imageDirty_ = true;  // coloured when next painted (setters often come in pairs)
    update();
}

void PeHeatmap::setShowColorBar(bool on) {
    showColorBar_ = on;
    update();
}

void PeHeatmap::setPlaceholderText(const QString& text) {
    placeholder_ = text;
    update();
}

void PeHeatmap::setTooltipFn(TooltipFn fn) { tooltipFn_ = std::move(fn); }

void PeHeatmap::setColumnMarkers(const QHash<int, QColor>& markers) {
    markers_ = markers;
    update();
}

float PeHeatmap::value(int row, int col) const {
    if (row < 0 || col < 0 || row >= rows_ || col >= cols_) return std::nanf("");
    return values_[static_cast<size_t>(row) * static_cast<size_t>(cols_) + static_cast<size_t>(col)];
}

float PeHeatmap::displayedAbsMax() const { return fixedAbsMax_ > 0.0f ? fixedAbsMax_ : autoAbsMax_; }

QColor PeHeatmap::colorFor(float v) const {
    if (std::isnan(v)) return QColor(0x80, 0x80, 0x80);
    if (mode_ == ColorMode::Diverging) {
        const float m = displayedAbsMax();
        return QColor(interpolate(kDiverging, 0.5f + 0.5f * v / m));
    }
    const bool fixed = seqHi_ > seqLo_;
    const float lo = fixed ? seqLo_ : autoLo_, hi = fixed ? seqHi_ : autoHi_;
    return QColor(interpolate(kSequential, (v - lo) / (hi - lo)));
}

void PeHeatmap::rebuildImage() const {
    imageDirty_ = false;
    scaledDirty_ = true;
    if (rows_ == 0 || cols_ == 0) {
        image_ = QImage();
        return;
    }
    image_ = QImage(cols_, rows_, QImage::Format_RGB32);
    for (int r = 0; r < rows_; ++r) {
        auto* line = reinterpret_cast<QRgb*>(image_.scanLine(r));
        for (int c = 0; c < cols_; ++c) line[c] = colorFor(value(r, c)).rgb();
    }
}

QImage PeHeatmap::downsampled(QSize size) const {
    if (image_.isNull() || size.isEmpty()) return {};
    if (scaled_.size() == size && !scaledDirty_) return scaled_;
    // Rows and columns averaged over windows of at least two cells (downsample.h); a direction
    // with cells of two pixels or more is sampled as it is drawn otherwise.
    const double cpx = double(cols_) / size.width(), cpy = double(rows_) / size.height();
    auto along = [](int n, int px, double perPixel) {
        if (perPixel <= 0.5) {  // whole cells: the nearest
            std::vector<std::vector<std::pair<int, double>>> w(static_cast<size_t>(px));
            for (int p = 0; p < px; ++p) w[size_t(p)] = {{std::min(n - 1, int((p + 0.5) * perPixel)), 1.0}};
            return w;
        }
        return downsample::weights(n, px, perPixel);
    };
    const auto wx = along(cols_, size.width(), cpx), wy = along(rows_, size.height(), cpy);
    // Rows first (each source row to the target width), then columns.
    std::vector<double> tmp(size_t(rows_) * size_t(size.width()) * 3);
    for (int r = 0; r < rows_; ++r) {
        const auto* line = reinterpret_cast<const QRgb*>(image_.constScanLine(r));
        for (int x = 0; x < size.width(); ++x) {
            double c[3] = {0, 0, 0};
            for (const auto& [i, wt] : wx[size_t(x)]) {
                c[0] += wt * qRed(line[i]);
                c[1] += wt * qGreen(line[i]);
                c[2] += wt * qBlue(line[i]);
            }
            for (int k = 0; k < 3; ++k) tmp[(size_t(r) * size_t(size.width()) + size_t(x)) * 3 + size_t(k)] = c[k];
        }
    }
    scaled_ = QImage(size, QImage::Format_RGB32);
    for (int y = 0; y < size.height(); ++y) {
        auto* out = reinterpret_cast<QRgb*>(scaled_.scanLine(y));
        for (int x = 0; x < size.width(); ++x) {
            double c[3] = {0, 0, 0};
            for (const auto& [i, wt] : wy[size_t(y)])
                for (int k = 0; k < 3; ++k) c[k] += wt * tmp[(size_t(i) * size_t(size.width()) + size_t(x)) * 3 + size_t(k)];
            auto ch = [](double v) { return std::clamp(int(std::lround(v)), 0, 255); };
            out[x] = qRgb(ch(c[0]), ch(c[1]), ch(c[2]));
        }
    }
    scaledDirty_ = false;
    return scaled_;
}

QString PeHeatmap::rowLabel(int r) const {
    return r < rowLabels_.size() ? rowLabels_[r] : QString::number(r);
}

QString PeHeatmap::colLabel(int c) const {
    return c < colLabels_.size() ? colLabels_[c] : QString::number(c);
}

PeHeatmap::Layout PeHeatmap::computeLayout() const {
    Layout l;
    const QFontMetricsF fm(font());
    QRectF area = QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin);
    if (!title_.isEmpty()) {
        // First line bold, further lines (e.g. the trace name) in the normal font; each wraps
        // when it is wider than the widget (never shortened).
        qreal h = 2;
        const QStringList lines = title_.split(QLatin1Char('\n'));
        for (int i = 0; i < lines.size(); ++i) h += titleLineHeight(lines[i], i == 0, area.width());
        l.title = QRectF(area.left(), area.top(), area.width(), h);
        area.setTop(area.top() + h + 2);
    }
    if (showColorBar_ && rows_ > 0) {
        const qreal h = 10 + fm.height() + 2;
        l.colorBar = QRectF(area.left(), area.bottom() - h, area.width(), h);
        area.setBottom(area.bottom() - h - 4);
    }
    if (!colAxisTitle_.isEmpty()) area.setBottom(area.bottom() - fm.height() - 2);
    if (!rowAxisTitle_.isEmpty()) area.setLeft(area.left() + fm.height() + 2);
    if (rows_ == 0 || cols_ == 0) {
        l.cells = area;
        return l;
    }
    // Column labels above the cells, markers between labels and cells.
    l.colLabelH = fm.height() + 2;
    area.setTop(area.top() + l.colLabelH + (markers_.isEmpty() ? 0 : kMarkerH + 1));
    // The widest labels, measured once per set of labels: 512 columns measured on every paint
    // (and every hover) were most of a step switch in this view.
    if (rowLabelsW_ < 0) {
        rowLabelsW_ = 0;
        for (int r = 0; r < rows_; ++r) rowLabelsW_ = std::max(rowLabelsW_, fm.horizontalAdvance(rowLabel(r)));
    }
    if (colLabelsW_ < 0) {
        colLabelsW_ = 0;
        for (int c = 0; c < cols_; ++c) colLabelsW_ = std::max(colLabelsW_, fm.horizontalAdvance(colLabel(c)));
    }
    const qreal rowW = rowLabelsW_;
    l.rowLabelW = std::min(rowW + 6, area.width() * 0.35);
    area.setLeft(area.left() + l.rowLabelW);
    l.cells = area;
    // Every k-th column label, so that labels do not overlap.
    const qreal colW = colLabelsW_;
    const qreal cw = area.width() / cols_;
    int step = 1;
    while (step < cols_ && cw * step < colW + 6) {
        // Steps of 1, 2, 4, 5, 8, 10, 16, 20, 32, ... read well for dimension indices.
        step = step < 2 ? 2 : (step < 4 ? 4 : (step < 5 ? 5 : (step < 8 ? 8 : step * 2)));
    }
    l.colLabelStep = step;
    return l;
}

qreal PeHeatmap::titleLineHeight(const QString& line, bool bold, qreal width) const {
    QFont f = font();
    f.setBold(bold);
    const QFontMetricsF fm(f);
    if (fm.horizontalAdvance(line) <= width) return fm.height();
    // Wrapped at spaces (a trace name without any wraps anywhere).
    const QRectF r = fm.boundingRect(QRectF(0, 0, std::max<qreal>(1, width), 1e6),
                                     (line.contains(QLatin1Char(' ')) ? Qt::TextWordWrap : Qt::TextWrapAnywhere), line);
    return std::max(fm.height(), r.height());
}

QRectF PeHeatmap::cellsRect() const { return computeLayout().cells; }

QRectF PeHeatmap::cellRect(int row, int col) const {
    const QRectF c = cellsRect();
    if (rows_ == 0 || cols_ == 0) return {};
    const qreal w = c.width() / cols_, h = c.height() / rows_;
    return QRectF(c.left() + col * w, c.top() + row * h, w, h);
}

QPoint PeHeatmap::cellAt(QPointF pos) const {
    const QRectF c = cellsRect();
    if (rows_ == 0 || cols_ == 0 || !c.contains(pos)) return {-1, -1};
    const int col = std::clamp(static_cast<int>((pos.x() - c.left()) / c.width() * cols_), 0, cols_ - 1);
    const int row = std::clamp(static_cast<int>((pos.y() - c.top()) / c.height() * rows_), 0, rows_ - 1);
    return {col, row};
}

QSize PeHeatmap::sizeHint() const { return {360, 220}; }
QSize PeHeatmap::minimumSizeHint() const { return {120, 90}; }

void PeHeatmap::changeEvent(QEvent* e) {
    if (e->type() == QEvent::FontChange) rowLabelsW_ = colLabelsW_ = -1;
    QWidget::changeEvent(e);
}

void PeHeatmap::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().base());
    const Layout l = computeLayout();
    const QFontMetricsF fm(font());
    const QColor textColor = palette().color(QPalette::Text);
    if (!title_.isEmpty()) {
        QFont tf = font();
        tf.setBold(true);
        const QStringList lines = title_.split(QLatin1Char('\n'));
        qreal y = l.title.top();
        for (int i = 0; i < lines.size(); ++i) {
            const QFont lf = i == 0 ? tf : font();
            const qreal h = titleLineHeight(lines[i], i == 0, l.title.width());
            p.setFont(lf);
            p.setPen(i == 0 ? textColor : palette().color(QPalette::PlaceholderText).darker(130));
            const int wrap = lines[i].contains(QLatin1Char(' ')) ? Qt::TextWordWrap : Qt::TextWrapAnywhere;
            p.drawText(QRectF(l.title.left(), y, l.title.width(), h), Qt::AlignLeft | Qt::AlignVCenter | wrap, lines[i]);
            y += h;
        }
        p.setFont(font());
    }
    if (rows_ == 0 || cols_ == 0) {
        p.setPen(palette().color(QPalette::PlaceholderText));
        p.drawText(l.cells, Qt::AlignCenter | Qt::TextWordWrap, placeholder_);
        return;
    }
    const QRectF cells = l.cells;
    const qreal cw = cells.width() / cols_, ch = cells.height() / rows_;
    // Cells: one image pixel per cell, scaled without smoothing (sharp cell edges).
    p.setRenderHint(QPainter::SmoothPixmapTransform, false);
    if (imageDirty_) rebuildImage();
    if (cw < 2.0 || ch < 2.0) {  // cells of about a pixel: averaged, not sampled
        const QRect px = cells.toAlignedRect();
        p.drawImage(px.topLeft(), downsampled(px.size()));
    } else {
        p.drawImage(cells, image_);
    }
    if (cw >= 7 && ch >= 7) {
        p.setPen(QPen(QColor(255, 255, 255, 140), 1));
        for (int c = 1; c < cols_; ++c) p.drawLine(QPointF(cells.left() + c * cw, cells.top()), QPointF(cells.left() + c * cw, cells.bottom()));
        for (int r = 1; r < rows_; ++r) p.drawLine(QPointF(cells.left(), cells.top() + r * ch), QPointF(cells.right(), cells.top() + r * ch));
    }
    p.setPen(QPen(QColor(0x60, 0x60, 0x60), 1));
    p.setBrush(Qt::NoBrush);
    p.drawRect(cells);

    // Row labels, every k-th when the rows are thinner than the text.
    p.setPen(textColor);
    int rowStep = 1;
    while (rowStep < rows_ && ch * rowStep < fm.height() * 0.9) rowStep = rowStep < 2 ? 2 : (rowStep < 5 ? 5 : rowStep * 2);
    for (int r = 0; r < rows_; r += rowStep) {
        const QRectF lr(cells.left() - l.rowLabelW, cells.top() + r * ch + ch / 2 - fm.height() / 2, l.rowLabelW - 4,
                        fm.height());
        p.drawText(lr, Qt::AlignRight | Qt::AlignVCenter, elision_log::elidedText(p, fm, rowLabel(r), Qt::ElideRight, lr.width()));
    }
    // Column labels.
    const qreal markerSpace = markers_.isEmpty() ? 0 : kMarkerH + 1;
    const qreal labelTop = cells.top() - markerSpace - l.colLabelH;
    for (int c = 0; c < cols_; c += l.colLabelStep) {
        const QString s = colLabel(c);
        const qreal w = fm.horizontalAdvance(s);
        qreal x = cells.left() + c * cw + cw / 2 - w / 2;
        x = std::clamp(x, cells.left() - l.rowLabelW, width() - kMargin - w);
        p.drawText(QRectF(x, labelTop, w + 1, l.colLabelH), Qt::AlignCenter, s);
    }
    // Column markers: a coloured tick above each marked column and a thin outline of the column.
    for (auto it = markers_.cbegin(); it != markers_.cend(); ++it) {
        const int c = it.key();
        if (c < 0 || c >= cols_) continue;
        const QRectF tick(cells.left() + c * cw, cells.top() - kMarkerH - 1, std::max<qreal>(cw, 3), kMarkerH);
        p.fillRect(tick, it.value());
        if (cw >= 3) {
            p.setPen(QPen(it.value(), 1.5));
            p.drawRect(QRectF(cells.left() + c * cw, cells.top(), cw, cells.height()));
        }
    }
    // Hovered cell.
    if (hover_.x() >= 0) {
        p.setPen(QPen(Qt::black, 2));
        p.setBrush(Qt::NoBrush);
        p.drawRect(QRectF(cells.left() + hover_.x() * cw, cells.top() + hover_.y() * ch, cw, ch));
    }
    // Axis titles.
    p.setPen(textColor);
    if (!colAxisTitle_.isEmpty()) {
        const QRectF r(cells.left(), cells.bottom() + 1, cells.width(), fm.height());
        p.drawText(r, Qt::AlignCenter, elision_log::elidedText(p, fm, colAxisTitle_, Qt::ElideRight, r.width()));
    }
    if (!rowAxisTitle_.isEmpty()) {
        p.save();
        const qreal x = cells.left() - l.rowLabelW - 2 - fm.height() / 2;
        p.translate(x, cells.center().y());
        p.rotate(-90);
        const qreal w = std::max<qreal>(cells.height(), 40);
        p.drawText(QRectF(-w / 2, -fm.height() / 2, w, fm.height()), Qt::AlignCenter,
                   elision_log::elidedText(p, fm, rowAxisTitle_, Qt::ElideRight, w));
        p.restore();
    }
    // Colour bar: the gradient with its end values and 0.
    if (!l.colorBar.isEmpty()) {
        const qreal barW = std::min<qreal>(l.colorBar.width() * 0.6, 240);
        const QRectF bar(l.colorBar.center().x() - barW / 2, l.colorBar.top() + 2, barW, 8);
        const int n = std::max(2, static_cast<int>(barW));
        for (int i = 0; i < n; ++i) {
            const float t = static_cast<float>(i) / static_cast<float>(n - 1);
            float v;
            if (mode_ == ColorMode::Diverging) {
                v = (2.0f * t - 1.0f) * displayedAbsMax();
            } else {
                const bool fixed = seqHi_ > seqLo_;
                const float lo = fixed ? seqLo_ : autoLo_, hi = fixed ? seqHi_ : autoHi_;
                v = lo + t * (hi - lo);
            }
            p.fillRect(QRectF(bar.left() + bar.width() * i / n, bar.top(), bar.width() / n + 1, bar.height()), colorFor(v));
        }
        p.setPen(QColor(0x80, 0x80, 0x80));
        p.drawRect(bar);
        QString lo, mid, hi;
        if (mode_ == ColorMode::Diverging) {
            lo = numfmt::fourDigits(-displayedAbsMax());
            mid = QStringLiteral("0");
            hi = numfmt::fourDigits(displayedAbsMax());
        } else {
            const bool fixed = seqHi_ > seqLo_;
            lo = numfmt::fourDigits(fixed ? seqLo_ : autoLo_);
            hi = numfmt::fourDigits(fixed ? seqHi_ : autoHi_);
        }
        p.setPen(textColor);
        const qreal ty = bar.bottom() + 1;
        const qreal wl = fm.horizontalAdvance(lo), wh = fm.horizontalAdvance(hi);
        p.drawText(QPointF(bar.left() - wl / 2, ty + fm.ascent()), lo);
        p.drawText(QPointF(bar.right() - wh / 2, ty + fm.ascent()), hi);
        if (!mid.isEmpty()) p.drawText(QPointF(bar.center().x() - fm.horizontalAdvance(mid) / 2, ty + fm.ascent()), mid);
    }
}

bool PeHeatmap::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QPoint cell = cellAt(he->pos());
        if (cell.x() < 0) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        const float v = value(cell.y(), cell.x());
        QString text = tooltipFn_ ? tooltipFn_(cell.y(), cell.x(), v) : QString();
        if (text.isEmpty())
            text = tr("row %1, column %2: %3").arg(rowLabel(cell.y()), colLabel(cell.x()), numfmt::fourDigits(v));
        QToolTip::showText(he->globalPos(), text, this, cellRect(cell.y(), cell.x()).toAlignedRect());
        return true;
    }
    return QWidget::event(e);
}

void PeHeatmap::mousePressEvent(QMouseEvent* e) {
    const QPoint cell = cellAt(e->position());
    if (e->button() == Qt::LeftButton && cell.x() >= 0) {
        emit cellClicked(cell.y(), cell.x());
        emit columnClicked(cell.x());
        e->accept();
        return;
    }
    QWidget::mousePressEvent(e);
}

void PeHeatmap::mouseMoveEvent(QMouseEvent* e) {
    const QPoint cell = cellAt(e->position());
    if (cell != hover_) {
        hover_ = cell;
        update();
    }
    QWidget::mouseMoveEvent(e);
}

void PeHeatmap::leaveEvent(QEvent* e) {
    if (hover_.x() >= 0) {
        hover_ = {-1, -1};
        update();
    }
    QWidget::leaveEvent(e);
}
