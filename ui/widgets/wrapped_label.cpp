#include "widgets/wrapped_label.h"

WrappedLabel::WrappedLabel(QWidget* parent) : QLabel(parent) {
    setWordWrap(true);
    QSizePolicy sp(QSizePolicy::Preferred, QSizePolicy::Preferred);
    sp.setHeightForWidth(true);
    setSizePolicy(sp);
}

int WrappedLabel::heightForWidth(int width) const {
    if (text() != cachedText_) {
        cachedText_ = text();
        cache_[0] = cache_[1] = Cached{};
    }
    for (const Cached& c : cache_)
        if (c.width == width) return c.height;
    const int h = QLabel::heightForWidth(width);
    cache_[nextSlot_] = {width, h};
    nextSlot_ = 1 - nextSlot_;
    return h;
}

QSize WrappedLabel::sizeHint() const {
    const int w = width() > 0 ? width() : 400;
    return {w, text().isEmpty() ? 0 : heightForWidth(w)};
}

QSize WrappedLabel::minimumSizeHint() const {
    const QMargins m = contentsMargins();
    return {fontMetrics().averageCharWidth() * 12 + m.left() + m.right(),
            text().isEmpty() ? 0 : fontMetrics().height() + m.top() + m.bottom()};
}

void WrappedLabel::setTextColor(const QColor& color) {
    QPalette pal = palette();
    pal.setColor(QPalette::WindowText, color);
    setPalette(pal);
}
