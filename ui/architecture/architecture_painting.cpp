// ArchitectureDiagram's painting: the static picture (frames, arrows, blocks, texts; drawn once per
// size and trace into an image) and, over it, the current step's block, the hovered block, the
// N× labels with the current layer and the current step's name.
#include "architecture/architecture_diagram.h"
#include "models/aiayn/diagram_layout.h"
#include "models/torch/diagram_layout.h"

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
        const auto listed = [&](const auto& ids) {
            return std::any_of(std::begin(ids), std::end(ids), [&](const char* id) { return b.id == QLatin1String(id); });
        };
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
        // "+b": this block's linear maps have biases (PyTorch's default), the tutorial's have none.
        if ((torch() && listed(kBiasBadge)) || (aiayn() && listed(kAiaynBiasBadge))) badge(QStringLiteral("+b"), true, true);
        // attention-is-all-you-need-pytorch: dropout comes before the add (and before the input norm).
        if (aiayn() && listed(kAiaynDropoutBadge)) badge(tr("dropout"), false, false);
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
    const QColor ink(0x30, 0x30, 0x30);
    const qreal lineW = std::max<qreal>(1.0, 1.2 * u);
    const qreal head = std::max<qreal>(4.0, 5.5 * u);
    auto px = [](qreal v) { return static_cast<int>(std::round(std::max<qreal>(kMinFontPx, v))); };
    auto poly = [&](std::initializer_list<QPointF> pts, bool arrow) {
        QPolygonF poly;
        for (const QPointF& q : pts) poly << map(q.x(), q.y());
        p.setPen(QPen(ink, lineW, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
        p.setBrush(Qt::NoBrush);
        p.drawPolyline(poly);
        if (arrow && poly.size() >= 2) drawArrowHead(p, poly[poly.size() - 2], poly.back(), head);
    };

    // Stack frames.
    const QRectF encFrame(map(kEncFrameL, frameTop(true)), map(kEncFrameR, frameBottom()));
    const QRectF decFrame(map(kDecFrameL, frameTop(false)), map(kDecFrameR, frameBottom()));
    for (const QRectF& fr : {encFrame, decFrame}) {
        p.setPen(QPen(QColor(0x9e, 0x9e, 0x9e), lineW));
        p.setBrush(QColor(0xf2, 0xf2, 0xf2));
        p.drawRoundedRect(fr, 8 * u, 8 * u);
    }

    if (torch()) {
        paintTorchArrows(p, lineW, head);
    } else if (aiayn()) {
        paintAiaynArrows(p, lineW, head);
    } else {
        // Arrows: encoder.
        poly({{kEncCx, 490}, {kEncCx, 480}}, true);                                 // inputs -> embedding
        poly({{kEncCx, 456}, {kEncCx, kAddY + kAddR}}, true);                       // embedding -> +
        poly({{kEncCx - 36 + kPeR, kAddY}, {kEncCx - kAddR, kAddY}}, true);         // PE -> +
        poly({{kEncCx, kAddY - kAddR}, {kEncCx, kBranchY}}, false);                 // + -> branch
        poly({{kEncLane, kBranchY}, {kEncCx + 30, kBranchY}}, false);
        for (qreal x : {kEncCx - 30, kEncCx, kEncCx + 30}) poly({{x, kBranchY}, {x, 390}}, true);  // Q, K, V
        poly({{kEncLane, kBranchY}, {kEncLane, 323}, {kEncX0, 323}}, true);         // residual 1
        poly({{kEncCx, 350}, {kEncCx, 334}}, true);
        poly({{kEncCx, 312}, {kEncCx, 298}}, true);
        poly({{kEncCx, 305}, {kEncLane, 305}, {kEncLane, 233}, {kEncX0, 233}}, true);  // residual 2
        poly({{kEncCx, 260}, {kEncCx, 244}}, true);
        // Encoder output -> K, V of the decoder's second attention.
        poly({{kEncX1, 233}, {200, 233}, {200, 306}, {kDecX0 + 30, 306}}, false);
        poly({{kDecX0 + 14, 306}, {kDecX0 + 14, 298}}, true);
        poly({{kDecX0 + 30, 306}, {kDecX0 + 30, 298}}, true);

        // Arrows: decoder.
        poly({{kDecCx, 490}, {kDecCx, 480}}, true);
        poly({{kDecCx, 456}, {kDecCx, kAddY + kAddR}}, true);
        poly({{kDecCx + 36 - kPeR, kAddY}, {kDecCx + kAddR, kAddY}}, true);
        poly({{kDecCx, kAddY - kAddR}, {kDecCx, kBranchY}}, false);
        poly({{kDecCx - 30, kBranchY}, {kDecLane, kBranchY}}, false);
        for (qreal x : {kDecCx - 30, kDecCx, kDecCx + 30}) poly({{x, kBranchY}, {x, 390}}, true);
        poly({{kDecLane, kBranchY}, {kDecLane, 323}, {kDecX1, 323}}, true);
        poly({{kDecCx, 350}, {kDecCx, 334}}, true);
        poly({{kDecCx + 26, 312}, {kDecCx + 26, 298}}, true);                        // Q from the decoder
        poly({{kDecCx + 26, 305}, {kDecLane, 305}, {kDecLane, 233}, {kDecX1, 233}}, true);
        poly({{kDecCx, 258}, {kDecCx, 244}}, true);
        poly({{kDecCx, 222}, {kDecCx, 204}}, true);
        poly({{kDecCx, 213}, {kDecLane, 213}, {kDecLane, 141}, {kDecX1, 141}}, true);
        poly({{kDecCx, 166}, {kDecCx, 152}}, true);
        poly({{kDecCx, 130}, {kDecCx, 96}}, true);                                   // -> Linear
        poly({{kDecCx, 72}, {kDecCx, 58}}, true);
        poly({{kDecCx, 34}, {kDecCx, 20}}, true);
    }

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
    // PyTorch's picture: the stacks sit lower; attention-is-all-you-need-pytorch's: its input norm
    // makes the bottom taller.
    const qreal dy = torch() ? kTorchShift : aiayn() ? kAiaynShift : 0;
    text(kEncFrameL, 490 + dy, kEncFrameR, 506 + dy, Qt::AlignCenter,
         torch() ? tr("src") : aiayn() ? tr("src_seq") : tr("Inputs"));
    text(kDecFrameL - 12, 490 + dy, kDecFrameR + 12, 506 + dy, Qt::AlignCenter,
         torch() ? tr("tgt (shifted right)") : aiayn() ? tr("trg_seq (shifted right)") : tr("Outputs (shifted right)"));
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
        const QRectF er(map(kEncFrameL - 30, 506 + dy), map(kEncFrameR + 10, 524 + dy));
        const QRectF dr(map(kDecFrameL - 10, 506 + dy), map(kDecFrameR + 30, 524 + dy));
        p.drawText(er, Qt::AlignCenter, fm.elidedText(joined(trace_->src_tokens), Qt::ElideRight, er.width()));
        p.drawText(dr, Qt::AlignCenter, fm.elidedText(joined(trace_->tgt_tokens), Qt::ElideRight, dr.width()));
    }
    // "Positional Encoding" labels beside the sine icons.
    QFont sf = font();
    sf.setPixelSize(px(10 * u));
    p.setFont(sf);
    p.setPen(QColor(0x20, 0x20, 0x20));
    const qreal addY = aiayn() ? kAiaynAddY : kAddY + dy;
    // "position_" / "enc" may wrap at the zero-width space in a narrow dock.
    const QString peText = aiayn() ? tr("position_\u200Benc") : tr("Positional Encoding");
    text(0, addY - 14, kEncCx - 36 - kPeR - 2, addY + 14, Qt::AlignRight | Qt::AlignVCenter, peText);
    text(kDecCx + 36 + kPeR + 2, addY - 14, aiayn() ? kAiaynShareX - 3 : kW, addY + 14, Qt::AlignLeft | Qt::AlignVCenter, peText);

    // Stack titles.
    QFont bf = font();
    bf.setPixelSize(px(12 * u));
    bf.setBold(true);
    p.setFont(bf);
    p.setPen(QColor(0x40, 0x40, 0x40));
    // PyTorch's encoder has its final norm above the frame: the title goes above that.
    const qreal encTitle = torch() ? 204 : kEncFrameTop - 2;
    text(kEncFrameL, encTitle - 16, kEncFrameR, encTitle, Qt::AlignLeft | Qt::AlignBottom,
         tr("Encoder"));
    // "Decoder" ends before the arrow into Linear; in a small diagram, whose least font is large
    // for it, it starts left of the frame rather than wrap.
    const qreal decoderEnd = kDecCx - 4;
    const qreal decoderStart =
        std::min(kDecFrameL, decoderEnd - QFontMetricsF(bf).horizontalAdvance(tr("Decoder")) / sx_ - 2);
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
    // Above the encoder's title (PyTorch's picture: above its final norm's title; the paper's
    // picture with its dropout tags: under the current step, clear of the encoder's title).
    const qreal hintBottom = torch() ? 184 : aiayn() ? 160 : 196;
    text(6, hintBottom - 46, 196, hintBottom, Qt::AlignLeft | Qt::AlignBottom,
         torch()   ? tr("+b: with bias. Click a block to go to its first step; hover for details.")
         : aiayn() ? tr("+b: bias. dropout: before the add. Dashed: a shared weight.")
                   : tr("Click a block to go to its first step; hover for details."));
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
    nx(QStringLiteral("encoder"), 0, kEncFrameL - 2, (frameTop(true) + frameBottom()) / 2);
    nx(QStringLiteral("decoder"), kDecFrameR + 2, kW, (frameTop(false) + frameBottom()) / 2);

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
    const qreal x0 = encoder ? 0 : kDecFrameR + 2, x1 = encoder ? kEncFrameL - 2 : kW;
    return QRectF(map(std::max<qreal>(0, x0 - 2), cy - 22), map(std::min(kW, x1 + 2), cy + 30));
}

// PyTorch's picture's arrows, from models/torch/diagram_layout.h.
void ArchitectureDiagram::paintTorchArrows(QPainter& p, qreal lineW, qreal head) const {
    p.setPen(QPen(QColor(0x30, 0x30, 0x30), lineW, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
    p.setBrush(Qt::NoBrush);
    const auto draw = [&](const auto& arrows) {
        for (const Arrow& a : arrows) {
            QPolygonF poly;
            for (int i = 0; i < a.n; ++i) poly << map(a.pts[i].x(), a.pts[i].y());
            p.drawPolyline(poly);
            if (a.head) drawArrowHead(p, poly[poly.size() - 2], poly.back(), head);
        }
    };
    draw(kTorchCommonArrows);
    if (layout_ == Layout::TorchPreNorm) draw(kTorchPreArrows);
    else draw(kTorchPostArrows);
}

// attention-is-all-you-need-pytorch's picture's arrows (models/aiayn/diagram_layout.h), and its weight sharing as
// dashed links labelled "shared": trg_word_prj ↔ trg_word_emb, src_word_emb ↔ trg_word_emb.
void ArchitectureDiagram::paintAiaynArrows(QPainter& p, qreal lineW, qreal head) const {
    p.setPen(QPen(QColor(0x30, 0x30, 0x30), lineW, Qt::SolidLine, Qt::FlatCap, Qt::MiterJoin));
    p.setBrush(Qt::NoBrush);
    for (const Arrow& a : kAiaynArrows) {
        QPolygonF poly;
        for (int i = 0; i < a.n; ++i) poly << map(a.pts[i].x(), a.pts[i].y());
        p.drawPolyline(poly);
        if (a.head) drawArrowHead(p, poly[poly.size() - 2], poly.back(), head);
    }
    const QColor shareInk(0x6a, 0x3d, 0x9a);
    QPen dashed(shareInk, std::max<qreal>(1.2, 1.5 * unit()), Qt::DashLine, Qt::FlatCap, Qt::MiterJoin);
    QFont f = font();
    f.setPixelSize(static_cast<int>(std::round(std::max<qreal>(kMinFontPx, 9.5 * unit()))));
    f.setBold(true);
    const qreal embY = (kAiaynEmbY0 + kAiaynEmbY1) / 2;
    if (drawsSharedProjection()) {
        p.setPen(dashed);
        // From trg_word_prj's right edge (its box in diagram_layout.h: x 214–344, y 64–100).
        const QPolygonF link{map(344, 84), map(kAiaynShareX, 84), map(kAiaynShareX, embY), map(kDecX1 + 12, embY)};
        p.drawPolyline(link);
        p.setFont(f);
        p.setPen(shareInk);
        // Beside the box where the word fits; at a small size (the fonts' floor) the legend's
        // "Dashed: a shared weight" says it, rather than a clipped word.
        const QRectF room(map(346, 62), map(kW, 82));
        if (QFontMetricsF(f).horizontalAdvance(tr("shared")) <= room.width())
            p.drawText(room, Qt::AlignLeft | Qt::AlignBottom, tr("shared"));
    }
    if (drawsSharedEmbeddings()) {
        p.setPen(dashed);
        p.drawLine(map(kEncX1 + 8, embY), map(kDecX0 - 8, embY));
        p.setFont(f);
        p.setPen(shareInk);
        p.drawText(QRectF(map(kEncX1 - 10, kAiaynEmbY1 + 1), map(kDecX0 + 10, kAiaynEmbY1 + 14)), Qt::AlignCenter, tr("shared"));
    }
}

QRectF ArchitectureDiagram::stepTextRect() const { return QRectF(map(6, 22), map(196, 110)); }

QRegion ArchitectureDiagram::dynamicRegion() const {
    QRegion r;
    for (const QRectF& f : {nxRect(true), nxRect(false), stepTextRect()}) r += f.toAlignedRect().adjusted(-2, -2, 2, 2);
    // Half the glow's pen and the antialiasing; PyTorch's "+b" badges stick out above their box.
    const qreal glow = std::max<qreal>(2.5, 3.2 * unit()) * 1.5 + 3 + (torch() || aiayn() ? 6 * std::max<qreal>(1.0, unit()) : 0);
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
