#include "views/attention_lines_widget.h"
#include "widgets/theme_colors.h"
#include "widgets/elision_log.h"

#include "widgets/offthread_paint.h"

#include <algorithm>
#include <cmath>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPaintEngine>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include "steps/tensor_slice.h"
#include "widgets/number_format.h"

namespace {
constexpr double kFaded = 0.07;  // opacity factor of lines that are not highlighted
}

AttentionLinesWidget::AttentionLinesWidget(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("attentionLines"));
    setAccessibleName(tr("Attention lines"));
    setAccessibleDescription(tr("Each query token joined to the key tokens it attends to; a thicker line is a larger weight."));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
}

// Okabe and Ito's colour-blind-safe palette (each pair tells apart under deuteranopia, protanopia
// and tritanopia), with a grey for the eighth instead of black so it shows on the dark theme too;
// the tutorial's 8 heads get one each. Beyond 8 heads the colours repeat.
QColor AttentionLinesWidget::headColor(int head) {
    static const QColor colors[] = {
        QColor(0, 114, 178),   QColor(213, 94, 0),   QColor(0, 158, 115),  QColor(230, 159, 0),
        QColor(204, 121, 167), QColor(86, 180, 233), QColor(240, 228, 66), QColor(128, 128, 128),
    };
    return colors[std::abs(head) % 8];
}

void AttentionLinesWidget::setAttention(const QStringList& queries, const QStringList& keys,
                                        std::vector<std::vector<float>> heads, std::vector<int> headIds) {
    queries_ = queries;
    keys_ = keys;
    heads_.clear();
    headIds_.clear();
    const size_t n = size_t(queries.size()) * size_t(keys.size());
    for (size_t i = 0; i < heads.size(); ++i) {
        if (heads[i].size() != n || n == 0) continue;
        heads_.push_back(std::move(heads[i]));
        headIds_.push_back(i < headIds.size() ? headIds[i] : int(i));
    }
    if (!mask_.empty() && mask_.size() != n) mask_.clear();
    if (hlQuery_ >= queries_.size()) hlQuery_ = -1;
    if (hlKey_ >= keys_.size()) hlKey_ = -1;
    updateGeometry();
    update();
}

void AttentionLinesWidget::setMask(std::vector<float> mask) {
    mask_ = std::move(mask);
    if (mask_.size() != size_t(queries_.size()) * size_t(keys_.size())) mask_.clear();
    update();
}

void AttentionLinesWidget::setTitle(const QString& title) {
    title_ = title;
    update();
}

void AttentionLinesWidget::clear() {
    queries_.clear();
    keys_.clear();
    heads_.clear();
    headIds_.clear();
    mask_.clear();
    hlQuery_ = hlKey_ = -1;
    update();
}

void AttentionLinesWidget::setHighlight(bool querySide, int index) {
    int q = -1, k = -1;
    if (querySide && index >= 0 && index < queries_.size()) q = index;
    if (!querySide && index >= 0 && index < keys_.size()) k = index;
    if (q == hlQuery_ && k == hlKey_) return;
    hlQuery_ = q;
    hlKey_ = k;
    update();
    emit tokenHovered(querySide, querySide ? q : k);
}

float AttentionLinesWidget::weight(int slot, int q, int k) const {
    if (slot < 0 || size_t(slot) >= heads_.size() || q < 0 || k < 0 || q >= queries_.size() || k >= keys_.size()) return 0.0f;
    const float w = heads_[size_t(slot)][size_t(q) * keys_.size() + k];
    return std::isfinite(w) ? std::clamp(w, 0.0f, 1.0f) : 0.0f;
}

bool AttentionLinesWidget::masked(int q, int k) const {
    return !mask_.empty() && mask_[size_t(q) * keys_.size() + k] != 0.0f;
}

double AttentionLinesWidget::lineOpacity(int slot, int q, int k) const {
    double a = weight(slot, q, k);
    if (hlQuery_ >= 0 && q != hlQuery_) a *= kFaded;
    if (hlKey_ >= 0 && k != hlKey_) a *= kFaded;
    return a;
}

AttentionLinesWidget::Geometry AttentionLinesWidget::geometry() const {
    Geometry g;
    const QFontMetrics fm(font());
    int maxW = fm.horizontalAdvance(QStringLiteral("WWW"));
    for (const auto& t : queries_) maxW = std::max(maxW, fm.horizontalAdvance(t));
    for (const auto& t : keys_) maxW = std::max(maxW, fm.horizontalAdvance(t));
    g.boxW = std::min(maxW + 18, std::max(60, width() / 4));
    const int n = std::max<int>({int(queries_.size()), int(keys_.size()), 1});
    const int headerH = fm.height() * (title_.isEmpty() ? 1 : 2) + 18;
    const int legendH = heads_.size() > 1 ? legendRows(fm) * (fm.height() + 2) + 10 : 6;
    const int avail = std::max(40, height() - headerH - legendH);
    g.pitch = std::clamp(avail / n, fm.height() + 4, fm.height() * 3);
    g.boxH = std::min(g.pitch - 4, fm.height() + 12);
    g.top = headerH + std::max(0, (avail - g.pitch * n) / 2);
    const int margin = 12;
    g.leftX = margin;
    const int span = std::min(width() - 2 * margin - 2 * g.boxW, std::max(160, 3 * g.boxW + 120));
    g.rightX = g.leftX + g.boxW + std::max(60, span);
    const int used = g.rightX + g.boxW - g.leftX;
    const int shift = std::max(0, (width() - used) / 2 - margin);
    g.leftX += shift;
    g.rightX += shift;
    return g;
}

QRect AttentionLinesWidget::tokenRect(bool querySide, int index) const { return tokenRect(geometry(), querySide, index); }

QRect AttentionLinesWidget::tokenRect(const Geometry& g, bool querySide, int index) const {
    const int n = querySide ? queries_.size() : keys_.size();
    if (index < 0 || index >= n) return {};
    return QRect(querySide ? g.leftX : g.rightX, g.top + index * g.pitch + (g.pitch - g.boxH) / 2, g.boxW, g.boxH);
}

QPair<bool, int> AttentionLinesWidget::tokenAt(const QPoint& p) const {
    const Geometry g = geometry();
    for (int i = 0; i < queries_.size(); ++i)
        if (tokenRect(g, true, i).adjusted(-4, -2, 4, 2).contains(p)) return {true, i};
    for (int i = 0; i < keys_.size(); ++i)
        if (tokenRect(g, false, i).adjusted(-4, -2, 4, 2).contains(p)) return {false, i};
    return {true, -1};
}

QString AttentionLinesWidget::tokenTooltip(bool querySide, int index) const {
    const QStringList& own = querySide ? queries_ : keys_;
    if (index < 0 || index >= own.size() || heads_.empty()) return {};
    QString s = querySide ? tr("Query <b>'%1'</b> (position %2) attends to:").arg(own[index].toHtmlEscaped()).arg(index)
                          : tr("Key <b>'%1'</b> (position %2) is attended by:").arg(own[index].toHtmlEscaped()).arg(index);
    for (size_t slot = 0; slot < heads_.size(); ++slot) {
        std::vector<std::pair<float, int>> w;
        const int n = querySide ? keys_.size() : queries_.size();
        for (int j = 0; j < n; ++j)
            w.emplace_back(querySide ? weight(int(slot), index, j) : weight(int(slot), j, index), j);
        std::stable_sort(w.begin(), w.end(), [](auto a, auto b) { return a.first > b.first; });
        QStringList parts;
        for (size_t i = 0; i < w.size() && i < 6; ++i) {
            const int j = w[i].second;
            const bool m = querySide ? masked(index, j) : masked(j, index);
            parts << QStringLiteral("'%1' %2%3")
                         .arg((querySide ? keys_ : queries_)[j].toHtmlEscaped(), numfmt::cell(w[i].first),
                              m ? tr(" (masked)") : QString());
        }
        s += QStringLiteral("<br><span style='color:%1'>■</span> head %2: %3")
                 .arg(headColor(headIds_[slot]).name())
                 .arg(headIds_[slot])
                 .arg(parts.join(QStringLiteral(", ")));
    }
    return s;
}

QSize AttentionLinesWidget::sizeHint() const {
    const QFontMetrics fm(font());
    const int n = std::max<int>({int(queries_.size()), int(keys_.size()), 4});
    return {420, std::min(900, fm.height() * 4 + n * (fm.height() + 18))};
}

QSize AttentionLinesWidget::minimumSizeHint() const { return {220, 160}; }

void AttentionLinesWidget::paintEvent(QPaintEvent*) {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    p.setRenderHint(QPainter::Antialiasing, true);
    const QFontMetrics fm(font());
    if (queries_.isEmpty() || keys_.isEmpty() || heads_.empty()) {
        p.setPen(theme::quietText());
        p.drawText(rect(), Qt::AlignCenter | Qt::TextWordWrap, tr("No attention weights to draw."));
        return;
    }
    const Geometry g = geometry();
    int y = 6;
    if (!title_.isEmpty()) {
        QFont bf = font();
        bf.setBold(true);
        p.setFont(bf);
        p.setPen(palette().color(QPalette::Text));
        p.drawText(QRect(8, y, width() - 16, fm.height()), Qt::AlignLeft | Qt::AlignVCenter,
                   elision_log::elidedText(p, QFontMetrics(bf), title_, Qt::ElideRight, width() - 16));
        y += fm.height() + 4;
        p.setFont(font());
    }
    p.setPen(theme::quietText());
    const int hy = std::max(y, g.top - fm.height() - 4);
    p.drawText(QRect(g.leftX - 40, hy, g.boxW + 80, fm.height()), Qt::AlignCenter, tr("query"));
    p.drawText(QRect(g.rightX - 40, hy, g.boxW + 80, fm.height()), Qt::AlignCenter, tr("key"));

    // Lines: faded ones first, highlighted ones on top. Drawn into an image in a pool thread
    // (see offthread_paint.h): every line is an antialiased translucent stroke.
    struct Line {
        QPointF a, b;
        QColor color;
    };
    std::vector<Line> lines;
    const bool single = heads_.size() == 1;
    const bool anyHl = hlQuery_ >= 0 || hlKey_ >= 0;
    for (int pass = 0; pass < 2; ++pass) {
        for (size_t slot = 0; slot < heads_.size(); ++slot) {
            QColor c = headColor(headIds_[slot]);
            for (int q = 0; q < queries_.size(); ++q) {
                for (int k = 0; k < keys_.size(); ++k) {
                    const bool hl = anyHl && (hlQuery_ < 0 || q == hlQuery_) && (hlKey_ < 0 || k == hlKey_);
                    if (anyHl ? ((pass == 1) != hl) : pass == 1) continue;
                    const double a = lineOpacity(int(slot), q, k);
                    if (a < 0.004) continue;
                    const QRect lq = tokenRect(g, true, q), rk = tokenRect(g, false, k);
                    c.setAlphaF(float(std::min(1.0, a)));
                    lines.push_back({QPointF(lq.right() + 3, lq.center().y() + 0.5), QPointF(rk.left() - 3, rk.center().y() + 0.5), c});
                }
            }
        }
    }
    const qreal penWidth = single ? 3.0 : 2.2;
    auto drawLines = [&lines, penWidth](QPainter& lp) {
        lp.setRenderHint(QPainter::Antialiasing, true);
        for (const Line& l : lines) {
            lp.setPen(QPen(l.color, penWidth, Qt::SolidLine, Qt::RoundCap));
            lp.drawLine(l.a, l.b);
        }
    };
    if (p.paintEngine()->type() == QPaintEngine::Raster) {
        p.drawImage(QPointF(0, 0), paintImageInPool(size(), devicePixelRatioF(), drawLines));
    } else {
        drawLines(p);  // e.g. into an SVG: stay vector
    }

    // Token boxes.
    auto drawToken = [&](bool querySide, int i) {
        const QRect r = tokenRect(g, querySide, i);
        const QString& text = (querySide ? queries_ : keys_)[i];
        const bool hl = querySide ? i == hlQuery_ : i == hlKey_;
        double tint = 0.0;   // weight of this token for the highlighted one on the other side
        bool isMasked = false;
        bool other = false;
        if (querySide && hlKey_ >= 0) {
            other = true;
            for (size_t s = 0; s < heads_.size(); ++s) tint = std::max(tint, double(weight(int(s), i, hlKey_)));
            isMasked = masked(i, hlKey_);
        }
        if (!querySide && hlQuery_ >= 0) {
            other = true;
            for (size_t s = 0; s < heads_.size(); ++s) tint = std::max(tint, double(weight(int(s), hlQuery_, i)));
            isMasked = masked(hlQuery_, i);
        }
        QColor fill = palette().color(QPalette::AlternateBase);
        if (other) {
            QColor c = headColor(headIds_.front());
            c.setAlphaF(float(std::clamp(tint, 0.0, 1.0)));
            p.setPen(Qt::NoPen);
            p.setBrush(palette().color(QPalette::Base));
            p.drawRoundedRect(r, 5, 5);
            p.setBrush(c);
            p.drawRoundedRect(r, 5, 5);
            if (isMasked) {
                p.setBrush(QBrush(QColor(90, 90, 90, 170), Qt::BDiagPattern));
                p.drawRoundedRect(r, 5, 5);
            }
            fill = QColor(0, 0, 0, 0);
        } else {
            p.setPen(Qt::NoPen);
            p.setBrush(hl ? QColor(255, 236, 179) : fill);
            p.drawRoundedRect(r, 5, 5);
        }
        p.setBrush(Qt::NoBrush);
        p.setPen(QPen(hl ? QColor(230, 120, 0) : QColor(170, 170, 170), hl ? 2.0 : 1.0));
        p.drawRoundedRect(r, 5, 5);
        QFont f = font();
        f.setBold(hl);
        p.setFont(f);
        const bool dark = other && tint > 0.55;
        // On a tint the head's colour decides; on the plain box the palette's text.
        p.setPen(dark ? QColor(255, 255, 255) : hl || (other && tint > 0.2) ? QColor(20, 20, 20) : palette().color(QPalette::Text));
        p.drawText(r, Qt::AlignCenter, elision_log::elidedText(p, QFontMetrics(f), text, Qt::ElideRight, r.width() - 6));
        p.setFont(font());
        if (other) {  // the weight next to the token
            p.setPen(theme::quietText());
            const QString wt = isMasked ? tr("0 (masked)") : numfmt::cell(float(tint));
            const int tw = fm.horizontalAdvance(wt) + 4;
            const QRect wr = querySide ? QRect(r.right() + 6, r.top(), tw, r.height())
                                       : QRect(r.left() - 6 - tw, r.top(), tw, r.height());
            p.drawText(wr, Qt::AlignVCenter | (querySide ? Qt::AlignLeft : Qt::AlignRight), wt);
        }
    };
    for (int i = 0; i < queries_.size(); ++i) drawToken(true, i);
    for (int i = 0; i < keys_.size(); ++i) drawToken(false, i);

    // Head colours, wrapped over as many rows as needed.
    if (heads_.size() > 1) {
        int x = 8;
        int yy = height() - legendRows(fm) * (fm.height() + 2) - 4;
        for (size_t s = 0; s < heads_.size(); ++s) {
            const QString t = tr("head %1").arg(headIds_[s]);
            const int w = 16 + fm.horizontalAdvance(t) + 12;
            if (x + w > width() - 4 && x > 8) {
                x = 8;
                yy += fm.height() + 2;
            }
            p.fillRect(QRect(x, yy + 3, 12, fm.height() - 6), headColor(headIds_[s]));
            p.setPen(palette().color(QPalette::Text));
            p.drawText(QRect(x + 16, yy, fm.horizontalAdvance(t) + 4, fm.height()), Qt::AlignVCenter, t);
            x += w;
        }
    }
}

int AttentionLinesWidget::legendRows(const QFontMetrics& fm) const {
    if (heads_.size() <= 1) return 0;
    int rows = 1, x = 8;
    for (size_t s = 0; s < heads_.size(); ++s) {
        const int w = 16 + fm.horizontalAdvance(tr("head %1").arg(headIds_[s])) + 12;
        if (x + w > width() - 4 && x > 8) {
            ++rows;
            x = 8;
        }
        x += w;
    }
    return rows;
}

void AttentionLinesWidget::mouseMoveEvent(QMouseEvent* e) {
    const auto hit = tokenAt(e->position().toPoint());
    if (hit.second < 0) {
        if (hlQuery_ >= 0 || hlKey_ >= 0) {
            hlQuery_ = hlKey_ = -1;
            update();
            emit tokenHovered(true, -1);
        }
    } else {
        setHighlight(hit.first, hit.second);
    }
    QWidget::mouseMoveEvent(e);
}

void AttentionLinesWidget::leaveEvent(QEvent* e) {
    if (hlQuery_ >= 0 || hlKey_ >= 0) {
        hlQuery_ = hlKey_ = -1;
        update();
        emit tokenHovered(true, -1);
    }
    QWidget::leaveEvent(e);
}

bool AttentionLinesWidget::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const auto hit = tokenAt(he->pos());
        if (hit.second >= 0)
            QToolTip::showText(he->globalPos(), tokenTooltip(hit.first, hit.second), this, tokenRect(hit.first, hit.second));
        else {
            QToolTip::showText(he->globalPos(), tr("Each line joins a query (left) to a key (right); the more opaque, the "
                                                   "larger the attention weight. Hover a token to see its lines."),
                               this);
        }
        return true;
    }
    return QWidget::event(e);
}
