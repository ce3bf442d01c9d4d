#include "widgets/static_text_cache.h"

#include <QFontMetrics>
#include <QHash>
#include <QPainter>
#include <QStaticText>

#include "widgets/elision_log.h"

namespace {

struct Key {
    QString text;
    int font = 0;        // fontId()
    int elideWidth = 0;
    int rotation = 0;    // 0, 90, 270 (degrees): each rotation has its own prepared text
    bool operator==(const Key&) const = default;
};

size_t qHash(const Key& k, size_t seed = 0) { return qHashMulti(seed, k.text, k.font, k.elideWidth, k.rotation); }

struct Entry {
    QStaticText text;
    QSizeF size;
    QString shown;  // the text drawn: shorter than the key's when elided
};

// Bounded: cleared when full (the labels of a session fit many times over).
constexpr int kMaxEntries = 8192;

// A small id per distinct font; the last font asked for is remembered, so the usual call
// (same painter font as before) costs a pointer comparison.
int fontId(const QFont& font) {
    static QHash<QString, int> ids;
    static QFont last;
    static int lastId = -1;
    if (lastId >= 0 && font == last) return lastId;
    const QString key = font.key();
    auto it = ids.constFind(key);
    if (it == ids.constEnd()) it = ids.insert(key, int(ids.size()));
    last = font;
    lastId = it.value();
    return lastId;
}

// 0 for no rotation, 90 / 270 for the quarter turns heatmaps use, -1 for anything else.
int rotationOf(const QTransform& t) {
    if (t.m12() == 0 && t.m21() == 0 && t.m11() == 1 && t.m22() == 1) return 0;
    if (t.m11() == 0 && t.m22() == 0 && t.m12() == 1 && t.m21() == -1) return 90;
    if (t.m11() == 0 && t.m22() == 0 && t.m12() == -1 && t.m21() == 1) return 270;
    return -1;
}

const Entry& entryFor(const Key& key, const QFont& font, const QTransform& linear) {
    static QHash<Key, Entry> cache;
    if (auto it = cache.constFind(key); it != cache.constEnd()) return it.value();
    if (cache.size() >= kMaxEntries) cache.clear();
    const QString shown = key.elideWidth > 0 ? QFontMetrics(font).elidedText(key.text, Qt::ElideRight, key.elideWidth) : key.text;
    Entry e;
    e.shown = shown;
    e.text = QStaticText(shown);
    e.text.setTextFormat(Qt::PlainText);
    e.text.setPerformanceHint(QStaticText::AggressiveCaching);
    e.text.prepare(linear, font);
    e.size = e.text.size();
    return cache.insert(key, e).value();
}

}  // namespace

void drawCachedText(QPainter& p, const QRect& rect, int alignment, const QString& text, int elideWidth) {
    if (text.isEmpty()) return;
    const QTransform& t = p.transform();
    const int rotation = rotationOf(t);
    if (rotation < 0) {  // scaled or sheared: the plain way
        p.drawText(rect, alignment,
                   elideWidth > 0 ? elision_log::elidedText(p, p.fontMetrics(), text, Qt::ElideRight, elideWidth) : text);
        return;
    }
    const Entry& e = entryFor(Key{text, fontId(p.font()), elideWidth, rotation}, p.font(),
                              QTransform(t.m11(), t.m12(), t.m21(), t.m22(), 0, 0));
    if (elision_log::recording()) elision_log::note(p.device(), text, e.shown);
    qreal x = rect.left(), y = rect.top();
    if (alignment & Qt::AlignRight) x = rect.left() + rect.width() - e.size.width();
    else if (alignment & Qt::AlignHCenter) x = rect.left() + (rect.width() - e.size.width()) / 2;
    if (alignment & Qt::AlignBottom) y = rect.top() + rect.height() - e.size.height();
    else if (alignment & Qt::AlignVCenter) y = rect.top() + (rect.height() - e.size.height()) / 2;
    p.drawStaticText(QPointF(x, y), e.text);
}
