// ArchitectureDiagram's painting: the static picture (frames, arrows, blocks, texts; drawn once per
// size and trace into an image) and, over it, the current step's block, the hovered block, the
// N× labels with the current layer and the current step's name.
#include "architecture/architecture_diagram.h"

#include <algorithm>
#include <cmath>
#include <numbers>

#include <QPaintEngine>
#include <QPaintEvent>
#include <QPainter>
#include <QPainterPath>
#include <QTextOption>

using namespace architecture;

namespace {

// No text smaller than this, however small the diagram (at 7 px, a 1366×768 window's dock showed
// the hint and labels ~6 px high).
constexpr qreal kMinFontPx = 9.0;
// A block's label may shrink one pixel further to stay on one line in its box.
constexpr qreal kMinLabelPx = 8.0;

// Lets long dotted trace names wrap after each dot.
QString wrappable(const QString& name) {
    QString s = name;
    s.replace(QLatin1Char('.'), QStringLiteral(".\u200B"));
    return s;
}

void drawArrowHead(QPainter& p, QPointF from, QPointF to, qreal size) {
    const QLineF l(to, from);
    if (l.length() < 1e-6) return;
    const qreal a = std::atan2(-l.dy(), l.dx());
    const qreal spread = 0.45;
    const QPointF p1 = to + QPointF(std::cos(a + spread) * size, -std::sin(a + spread) * size);
    const QPointF p2 = to + QPointF(std::cos(a - spread) * size, -std::sin(a - spread) * size);
    QPainterPath path;
    path.moveTo(to);
    path.lineTo(p1);
    path.lineTo(p2);
    path.closeSubpath();
    p.fillPath(path, p.pen().color());
}

}  // namespace

void ArchitectureDiagram::drawBlock(QPainter& p, const Block& b, bool hi, bool hov) const {
    const qreal u = unit();
    QColor fill = QColor::fromRgb(b.fill);
    if (hov) fill = fill.lighter(106);
    const QColor border = hi ? QColor::fromRgb(kHighlight) : (hov ? QColor::fromRgb(kHover) : QColor(0x55, 0x55, 0x55));
    const qreal bw = hi ? std::max<qreal>(2.5, 3.2 * u) : (hov ? std::max<qreal>(1.8, 2.2 * u) : std::max<qreal>(1.0, 1.1 * u));
    if (b.shape == Shape::Box) {
        const qreal radius = 5 * u;
        if (hi) {  // a soft glow so the current block is found at a glance, also on a projector
            p.setPen(QPen(QColor(214, 39, 40, 70), bw * 3));
            p.setBrush(Qt::NoBrush);
            p.drawRoundedRect(b.rect, radius, radius);
        }
        p.setPen(QPen(border, bw));
        p.setBrush(fill);
        p.drawRoundedRect(b.rect, radius, radius);
        // Label: the largest font up to the base size that fits, wrapped; never below the least.
        QFont f = font();
        f.setBold(hi);  // measured as drawn: bold is wider
        const QRectF inner = b.rect.adjusted(3 * u, 1, -3 * u, -1);
        QTextOption opt(Qt::AlignCenter);
        opt.setWrapMode(QTextOption::WordWrap);
        for (qreal px = std::max<qreal>(kMinFontPx, 12.5 * u);; px -= 0.5) {
            f.setPixelSize(static_cast<int>(std::round(px)));
            const QRectF need = QFontMetricsF(f).boundingRect(inner, Qt::AlignCenter | Qt::TextWordWrap, b.label);
            if (px - 0.5 < kMinLabelPx || (need.height() <= inner.height() + 1 && need.width() <= inner.width() + 1))
                break;
        }
        p.setFont(f);
        p.setPen(QColor(0x20, 0x20, 0x20));
        p.drawText(inner, b.label, opt);
        // A small tag: on the box's top edge at its right (+b), or just above its top left
        // (dropout), where it covers neither the label nor the arrow into the box's middle.
        const auto badge = [&](const QString& t, bool right, bool bold) {
            QFont bf = font();
            bf.setPixelSize(static_cast<int>(std::round(std::max<qreal>(kMinLabelPx, 9 * u))));
            bf.setBold(bold);
            const QFontMetricsF fm(bf);
            const QSizeF sz(fm.horizontalAdvance(t) + 4, fm.height());
            const qreal x = right ? b.rect.right() - sz.width() + 2 : b.rect.left() - 2;
            const QRectF r(QPointF(x, right ? b.rect.top() - sz.height() / 2 : b.rect.top() - sz.height() - 1), sz);
            p.setPen(QPen(QColor(0x55, 0x55, 0x55), std::max<qreal>(1.0, 0.8 * u)));
            p.setBrush(Qt::white);
            p.drawRoundedRect(r, 3 * u, 3 * u);
            p.setFont(bf);
            p.setPen(QColor(0x20, 0x20, 0x20));
            p.drawText(r, Qt::AlignCenter, t);
        };
        // "+b": this block's linear maps have biases; "dropout": its input went through dropout first.
        for (const QString& t : b.badges) {
            const bool edge = t.startsWith(QLatin1Char('+'));
            badge(tr(t.toUtf8().constData()), edge, edge);
        }
        return;
    }
    if (hi) {
        p.setPen(QPen(QColor(214, 39, 40, 70), bw * 3));
        p.setBrush(Qt::NoBrush);
        p.drawEllipse(b.rect);
    }
    p.setPen(QPen(border, bw));
    p.setBrush(fill);
    p.drawEllipse(b.rect);
    const QPointF c = b.rect.center();
    const qreal r = b.rect.width() / 2;
    if (b.shape == Shape::Circle) {  // the ⊕
        p.setPen(QPen(QColor(0x20, 0x20, 0x20), std::max<qreal>(1.0, 1.3 * u)));
        p.drawLine(QPointF(c.x() - r * 0.6, c.y()), QPointF(c.x() + r * 0.6, c.y()));
        p.drawLine(QPointF(c.x(), c.y() - r * 0.6), QPointF(c.x(), c.y() + r * 0.6));
    } else {  // one period of a sine wave
        QPainterPath wave;
        const int n = 24;
        for (int i = 0; i <= n; ++i) {
            const qreal t = static_cast<qreal>(i) / n;
            const QPointF pt(c.x() - r * 0.7 + t * r * 1.4, c.y() - std::sin(t * 2 * std::numbers::pi) * r * 0.45);
            if (i == 0) wave.moveTo(pt);
            else wave.lineTo(pt);
        }
        p.setPen(QPen(QColor(0x20, 0x20, 0x20), std::max<qreal>(1.0, 1.3 * u)));
        p.setBrush(Qt::NoBrush);
        p.drawPath(wave);
    }
}

// Everything that does not depend on the current step or the hovered block.
void ArchitectureDiagram::paintStatic(QPainter& p) const {
    // Always on white, like the paper's figure (its colours are fixed, also under a dark theme).
    p.fillRect(rect(), Qt::white);
    p.setRenderHint(QPainter::Antialiasing);
    const qreal u = unit();
    const qreal lineW = std::max<qreal>(1.0, 1.2 * u);
    const qreal head = std::max<qreal>(4.0, 5.5 * u);
    auto px = [](qreal v) { return static_cast<int>(std::round(std::max<qreal>(kMinFontPx, v))); };

    // Stack frames.
    const QRectF encFrame(map(layout_->encoderFrame.left(), frameTop(true)), map(layout_->encoderFrame.right(), frameBottom()));
    const QRectF decFrame(map(layout_->decoderFrame.left(), frameTop(false)), map(layout_->decoderFrame.right(), frameBottom()));
    QList<QRectF> frames{decFrame};
    if (layout_->hasEncoder()) frames.prepend(encFrame);  // else a decoder-only model's one stack
    for (const QRectF& fr : frames) {
        p.setPen(QPen(QColor(0x9e, 0x9e, 0x9e), lineW));
        p.setBrush(QColor(0xf2, 0xf2, 0xf2));
        p.drawRoundedRect(fr, 8 * u, 8 * u);
    }

    paintArrows(p, lineW, head);
    paintSharedLinks(p);

    // Blocks.
    for (const Block& b : blocks_) drawBlock(p, b, false, false);

    // Texts.
    QFont f = font();
    f.setPixelSize(px(12 * u));
    p.setFont(f);
    p.setPen(QColor(0x20, 0x20, 0x20));
    auto text = [&](qreal x0, qreal y0, qreal x1, qreal y1, int align, const QString& s) {
        p.drawText(QRectF(map(x0, y0), map(x1, y1)), align | Qt::TextWordWrap, s);
    };
    text(200, 2, 360, 20, Qt::AlignCenter, tr("Output Probabilities"));
    const QRectF enc = layout_->encoderFrame, dec = layout_->decoderFrame;
    const qreal inY = layout_->inputsY;
    if (layout_->hasEncoder())
        text(enc.left(), inY, enc.right(), inY + 16, Qt::AlignCenter, tr(layout_->inputs.toUtf8().constData()));
    text(dec.left() - 12, inY, dec.right() + 12, inY + 16, Qt::AlignCenter, tr(layout_->outputs.toUtf8().constData()));
    // The sentences of batch item 0 under the inputs.
    if (trace_) {
        QFont tf = f;
        tf.setItalic(true);
        tf.setPixelSize(px(10 * u));
        p.setFont(tf);
        p.setPen(QColor(0x55, 0x55, 0x55));
        auto joined = [](const std::vector<std::vector<std::string>>& t) {
            QStringList w;
            if (!t.empty())
                for (const auto& s : t[0]) w << QString::fromStdString(s);
            return w.join(QLatin1Char(' '));
        };
        const QFontMetricsF fm(tf);
        const QRectF er(map(enc.left() - 30, inY + 16), map(enc.right() + 10, inY + 34));
        const QRectF dr(map(dec.left() - 10, inY + 16), map(dec.right() + 30, inY + 34));
        if (layout_->hasEncoder())
            p.drawText(er, Qt::AlignCenter, fm.elidedText(joined(trace_->src_tokens), Qt::ElideRight, er.width()));
        p.drawText(dr, Qt::AlignCenter, fm.elidedText(joined(trace_->tgt_tokens), Qt::ElideRight, dr.width()));
    }
    // "Positional Encoding" labels beside the sine icons.
    QFont sf = font();
    sf.setPixelSize(px(10 * u));
    p.setFont(sf);
    p.setPen(QColor(0x20, 0x20, 0x20));
    // Beside the two sine icons ("position_" / "enc" may wrap at a zero-width space in a narrow dock).
    const QString peText = tr(layout_->positional.toUtf8().constData());
    const qreal addY = layout_->positionalY;
    for (const Block& b : blocks_) {
        if (b.shape != Shape::PeIcon) continue;
        if (b.logical.center().x() < enc.right())
            text(0, addY - 14, b.logical.left() - 2, addY + 14, Qt::AlignRight | Qt::AlignVCenter, peText);
        else
            text(b.logical.right() + 2, addY - 14, layout_->positionalRight, addY + 14, Qt::AlignLeft | Qt::AlignVCenter, peText);
    }

    // Stack titles.
    QFont bf = font();
    bf.setPixelSize(px(12 * u));
    bf.setBold(true);
    p.setFont(bf);
    p.setPen(QColor(0x40, 0x40, 0x40));
    const qreal encTitle = layout_->encoderTitleBottom;  // above a final norm over the frame, if any
    if (layout_->hasEncoder())
        text(enc.left(), encTitle - 16, enc.right(), encTitle, Qt::AlignLeft | Qt::AlignBottom, tr("Encoder"));
    // "Decoder" ends before the arrow into Linear; in a small diagram, whose least font is large
    // for it, it starts left of the frame rather than wrap.
    const qreal decoderEnd = dec.center().x() - 4;
    const qreal decoderStart =
        std::min(dec.left(), decoderEnd - QFontMetricsF(bf).horizontalAdvance(tr("Decoder")) / sx_ - 2);
    text(decoderStart, frameTop(false) - 18, decoderEnd, frameTop(false) - 2, Qt::AlignLeft | Qt::AlignBottom, tr("Decoder"));

    // The current step's header, top left, and a hint.
    QFont hf = font();
    hf.setPixelSize(px(11 * u));
    hf.setBold(true);
    p.setFont(hf);
    p.setPen(QColor(0x40, 0x40, 0x40));
    text(6, 4, 196, 20, Qt::AlignLeft | Qt::AlignVCenter, tr("Current step"));
    QFont gf = font();
    gf.setPixelSize(px(9.5 * u));
    p.setFont(gf);
    p.setPen(QColor(0x80, 0x80, 0x80));
    // Above the encoder's title and what stands over its frame.
    const qreal hintBottom = layout_->hintBottom;
    text(6, hintBottom - 46, 196, hintBottom, Qt::AlignLeft | Qt::AlignBottom, tr(layout_->hint.toUtf8().constData()));
}

// The current step's block (highlighted), the hovered block, the N× labels with the current layer,
// and the current step's name: drawn over the static picture, in dynamicRegion().
void ArchitectureDiagram::paintDynamic(QPainter& p) const {
    p.setRenderHint(QPainter::Antialiasing);
    const qreal u = unit();
    auto px = [](qreal v) { return static_cast<int>(std::round(std::max<qreal>(kMinFontPx, v))); };
    auto text = [&](qreal x0, qreal y0, qreal x1, qreal y1, int align, const QString& s) {
        p.drawText(QRectF(map(x0, y0), map(x1, y1)), align | Qt::TextWordWrap, s);
    };
    for (const Block& b : blocks_) {
        const bool hi = b.id == highlighted_, hov = b.id == hovered_;
        if (hi || hov) drawBlock(p, b, hi, hov);
    }

    // N× with the current layer.
    auto nx = [&](const QString& stack, qreal x0, qreal x1, qreal cy) {
        QFont nf = font();
        nf.setPixelSize(px(18 * u));
        nf.setBold(true);
        p.setFont(nf);
        const bool active = !layerText(stack).isEmpty();
        p.setPen(active ? QColor::fromRgb(kHighlight) : QColor(0x30, 0x30, 0x30));
        text(x0, cy - 22, x1, cy, Qt::AlignHCenter | Qt::AlignBottom, QStringLiteral("%1×").arg(layersOf(stack)));
        if (active) {
            QFont lf = font();
            lf.setPixelSize(px(9.5 * u));
            lf.setBold(true);
            p.setFont(lf);
            // "layer" above "k/N"; just "k/N" when the margin is too narrow for the word.
            const QString word = tr("layer");
            const qreal l0 = std::max<qreal>(0, x0 - 2), l1 = std::min(kW, x1 + 2);
            const bool fits = QFontMetricsF(lf).horizontalAdvance(word) + 6 <= (l1 - l0) * sx_;
            const QString frac = QStringLiteral("%1/%2").arg(layer_ + 1).arg(layersOf(stack));
            text(l0, cy + 1, l1, cy + 30, Qt::AlignHCenter | Qt::AlignTop,
                 fits ? word + QLatin1Char('\n') + frac : frac);
        }
    };
    if (layout_->hasEncoder())
        nx(QStringLiteral("encoder"), 0, layout_->encoderFrame.left() - 2, (frameTop(true) + frameBottom()) / 2);
    nx(QStringLiteral("decoder"), layout_->decoderFrame.right() + 2, kW, (frameTop(false) + frameBottom()) / 2);

    // The current step, top left (its header is static).
    QFont mf = QFont(QStringLiteral("DejaVu Sans Mono"));
    mf.setStyleHint(QFont::Monospace);
    mf.setPixelSize(px(11 * u));
    p.setFont(mf);
    p.setPen(step_.isEmpty() ? QColor(0x80, 0x80, 0x80) : QColor::fromRgb(kHighlight));
    QTextOption wrap(Qt::AlignLeft | Qt::AlignTop);
    wrap.setWrapMode(QTextOption::WrapAtWordBoundaryOrAnywhere);
    QString stepText = step_.isEmpty() ? tr("(none)") : wrappable(step_);
    p.drawText(QRectF(map(6, 22), map(196, 110)), stepText, wrap);
}

QRectF ArchitectureDiagram::nxRect(bool encoder) const {
    const qreal cy = (frameTop(encoder) + frameBottom()) / 2;
    const qreal x0 = encoder ? 0 : layout_->decoderFrame.right() + 2, x1 = encoder ? layout_->encoderFrame.left() - 2 : kW;
    return QRectF(map(std::max<qreal>(0, x0 - 2), cy - 22), map(std::min(kW, x1 + 2), cy + 30));
}

void ArchitectureDiagram::paintArrows(QPainter& p, qreal lineW, qreal head) const {
    p.setPen(QPen(QColor(0x30, 0x30, 0x30), lineW, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
    p.setBrush(Qt::NoBrush);
    for (const DiagramArrow& a : layout_->arrows) {
        QPolygonF poly;
        for (const QPointF& q : a.points) poly << map(q.x(), q.y());
        p.drawPolyline(poly);
        if (a.head) drawArrowHead(p, poly[poly.size() - 2], poly.back(), head);
    }
}

// Weight sharing as dashed links labelled "shared" (e.g. trg_word_prj ↔ trg_word_emb), each
// where the configuration turns it on.
void ArchitectureDiagram::paintSharedLinks(QPainter& p) const {
    const QColor shareInk(0x6a, 0x3d, 0x9a);
    const QPen dashed(shareInk, std::max<qreal>(1.2, 1.5 * unit()), Qt::DashLine, Qt::FlatCap, Qt::MiterJoin);
    QFont f = font();
    f.setPixelSize(static_cast<int>(std::round(std::max<qreal>(kMinFontPx, 9.5 * unit()))));
    f.setBold(true);
    for (const SharedLink& l : layout_->sharedLinks) {
        if (!drawsSharedLink(l.when)) continue;
        QPolygonF poly;
        for (const QPointF& q : l.points) poly << map(q.x(), q.y());
        p.setPen(dashed);
        p.drawPolyline(poly);
        p.setFont(f);
        p.setPen(shareInk);
        const QRectF room(map(l.label.left(), l.label.top()), map(l.label.right(), l.label.bottom()));
        // Where the word does not fit (the fonts' floor in a small dock), the hint's "Dashed: a
        // shared weight" says it, rather than a clipped word.
        if (l.labelIfFits && QFontMetricsF(f).horizontalAdvance(tr("shared")) > room.width()) continue;
        p.drawText(room, l.labelAtBottomLeft ? Qt::AlignLeft | Qt::AlignBottom : Qt::AlignCenter, tr("shared"));
    }
}

QRectF ArchitectureDiagram::stepTextRect() const { return QRectF(map(6, 22), map(196, 110)); }

QRegion ArchitectureDiagram::dynamicRegion() const {
    QRegion r;
    QList<QRectF> parts{nxRect(false), stepTextRect()};
    if (layout_->hasEncoder()) parts << nxRect(true);
    for (const QRectF& f : parts) r += f.toAlignedRect().adjusted(-2, -2, 2, 2);
    // Half the glow's pen and the antialiasing; badges stick out above their box.
    const qreal glow = std::max<qreal>(2.5, 3.2 * unit()) * 1.5 + 3 + (layout_->hasBadges() ? 6 * std::max<qreal>(1.0, unit()) : 0);
    for (const Block& b : blocks_)
        if (b.id == highlighted_ || b.id == hovered_)
            r += b.rect.adjusted(-glow, -glow, glow, glow).toAlignedRect();
    return r;
}

void ArchitectureDiagram::paintEvent(QPaintEvent* e) {
    QPainter p(this);
    if (p.paintEngine()->type() != QPaintEngine::Raster) {  // e.g. rendered into an SVG: keep it vector
        paintStatic(p);
        paintDynamic(p);
        return;
    }
    // The static picture is drawn once per size and trace; a step change repaints only
    // dynamicRegion() (a few blocks and labels), which is a copy from it plus the dynamic parts.
    const qreal dpr = devicePixelRatioF();
    const QSize px = (QSizeF(size()) * dpr).toSize();
    if (staticImage_.size() != px || staticImage_.devicePixelRatio() != dpr) {
        staticImage_ = QImage(px, QImage::Format_ARGB32_Premultiplied);
        staticImage_.setDevicePixelRatio(dpr);
        QPainter ip(&staticImage_);
        paintStatic(ip);
    }
    for (const QRect& r : e->region())
        p.drawImage(r, staticImage_, QRectF(r.x() * dpr, r.y() * dpr, r.width() * dpr, r.height() * dpr));
    paintDynamic(p);
}

void ArchitectureDiagram::changeEvent(QEvent* e) {
    if (e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) staticImage_ = QImage();
    QWidget::changeEvent(e);
}
