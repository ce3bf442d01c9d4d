// The top of the explain panel: the step's name in words, where it sits in the model, its trace
// name and its shape with statistics. Drawn from a few QTextLayouts (no rich-text document):
// it changes on every step, and a document's parse and layout cost more than the rest of a
// step switch in the panel.
#pragma once

#include <memory>
#include <vector>

#include <QString>
#include <QTextLayout>
#include <QWidget>

class ExplainHeader : public QWidget {
    Q_OBJECT
public:
    struct Content {
        QString title;     // "scores = QKᵀ/√d_k"
        QString location;  // "Encoder layer 0 › Self-attention"
        QString name;      // the step's trace name
        QString shape;     // "[batch_size=1, n_heads=8, len_q=5, len_k=5]"
        QString stats;     // "200 values, min -1.472, max 1.351, mean 0.07657"
        bool operator==(const Content&) const = default;
    };

    explicit ExplainHeader(QWidget* parent = nullptr);

    void setContent(const Content& content);
    const Content& content() const { return content_; }
    // What it shows, one paragraph per line ("Shape " before the shape).
    QString plainText() const;

    bool hasHeightForWidth() const override { return true; }
    int heightForWidth(int width) const override;
    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

protected:
    void paintEvent(QPaintEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    struct Paragraph {
        QString text;
        QFont font;
        QColor color;
        qreal spaceBefore = 0;
    };
    std::vector<Paragraph> paragraphs() const;
    // Lays the paragraphs out for `width` (cached: the layout is redone only for another width or
    // content) and returns the total height.
    int layoutFor(int width) const;

    Content content_;
    mutable int laidOutWidth_ = -1;
    mutable int laidOutHeight_ = 0;
    mutable std::vector<std::unique_ptr<QTextLayout>> layouts_;
    mutable std::vector<QColor> colors_;
};
