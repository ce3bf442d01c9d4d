// A word-wrapped (usually rich-text) label whose size hints cost at most one text layout per
// width. QLabel's own minimum size hint lays rich text out at several widths, and the views set
// new text on their title and formula labels on every step: measured, those layouts were most
// of a step switch's layout time.
#pragma once

#include <QLabel>

class WrappedLabel : public QLabel {
    Q_OBJECT
public:
    explicit WrappedLabel(QWidget* parent = nullptr);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;
    int heightForWidth(int width) const override;

    // The text colour, through the palette (a style sheet would route the label's painting and
    // sizing through the slower style-sheet style).
    void setTextColor(const QColor& color);

private:
    struct Cached {
        int width = -1, height = 0;
    };
    mutable QString cachedText_;
    mutable Cached cache_[2];
    mutable int nextSlot_ = 0;
};
