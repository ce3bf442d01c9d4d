// The token-to-token line view of attention, in the manner of BertViz's head view: the query
// tokens in a column on the left, the key tokens on the right, and a line from query i to key j
// whose opacity is the attention weight attn[i, j]. Hovering a token highlights its lines (the
// others fade), tints the tokens on the other side by their weight and prints the weights.
// Several heads can be drawn at once, one colour per head.
#pragma once

#include <vector>

#include <QColor>
#include <QFontMetrics>
#include <QStringList>
#include <QWidget>

class AttentionLinesWidget : public QWidget {
    Q_OBJECT
public:
    explicit AttentionLinesWidget(QWidget* parent = nullptr);

    // heads[i] is a queries.size() x keys.size() row-major weight matrix of head headIds[i]
    // (headIds default to 0, 1, ...). Matrices of the wrong size are dropped.
    void setAttention(const QStringList& queries, const QStringList& keys, std::vector<std::vector<float>> heads,
                      std::vector<int> headIds = {});
    // queries x keys, nonzero = masked (drawn hatched on the highlighted side); empty = none.
    void setMask(std::vector<float> mask);
    void setTitle(const QString& title);
    void clear();

    // Highlight a token: query side (left) or key side (right); index -1 = none.
    void setHighlight(bool querySide, int index);
    int highlightedQuery() const { return hlQuery_; }
    int highlightedKey() const { return hlKey_; }

    int queryCount() const { return queries_.size(); }
    int keyCount() const { return keys_.size(); }
    int headCount() const { return static_cast<int>(heads_.size()); }
    // Token box in widget coordinates.
    QRect tokenRect(bool querySide, int index) const;
    // The opacity (0..1) the line of head slot `slot` from query q to key k is painted with.
    double lineOpacity(int slot, int q, int k) const;
    QString tokenTooltip(bool querySide, int index) const;

    static QColor headColor(int head);

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void tokenHovered(bool querySide, int index);  // index -1 when leaving

protected:
    void paintEvent(QPaintEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    bool event(QEvent* e) override;

private:
    struct Geometry {
        int boxW = 0, boxH = 0, pitch = 0, top = 0, leftX = 0, rightX = 0;
    };
    Geometry geometry() const;
    // tokenRect() with the geometry at hand: measuring the tokens once per paint, not per line.
    QRect tokenRect(const Geometry& g, bool querySide, int index) const;
    QPair<bool, int> tokenAt(const QPoint& p) const;  // (querySide, index), index -1 if none
    int legendRows(const QFontMetrics& fm) const;
    float weight(int slot, int q, int k) const;
    bool masked(int q, int k) const;

    QStringList queries_, keys_;
    std::vector<std::vector<float>> heads_;
    std::vector<int> headIds_;
    std::vector<float> mask_;
    QString title_;
    int hlQuery_ = -1, hlKey_ = -1;
};
