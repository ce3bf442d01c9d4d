// A small painter-based heatmap used by the positional-encoding view: a matrix of floats drawn
// with a diverging (blue-white-red, centred on 0) or sequential colour map, optional row/column
// labels, a title, a colour bar and per-column markers. Large matrices are drawn through a
// one-pixel-per-cell image scaled without smoothing, so a 512 x 512 table stays fast.
#pragma once

#include <functional>
#include <vector>

#include <QColor>
#include <QHash>
#include <QImage>
#include <QStringList>
#include <QWidget>

class PeHeatmap : public QWidget {
    Q_OBJECT
public:
    enum class ColorMode { Diverging, Sequential };
    // Returns the tooltip text for a cell; an empty string falls back to the default.
    using TooltipFn = std::function<QString(int row, int col, float value)>;

    explicit PeHeatmap(QWidget* parent = nullptr);

    // Row-major rows x cols values. An empty matrix draws a placeholder text.
    void setMatrix(int rows, int cols, std::vector<float> values);
    void clear();
    void setRowLabels(const QStringList& labels);  // empty: row indices
    void setColLabels(const QStringList& labels);  // empty: column indices
    void setTitle(const QString& title);
    void setRowAxisTitle(const QString& title);    // drawn vertically left of the row labels
    void setColAxisTitle(const QString& title);    // drawn under the cells
    void setColorMode(ColorMode mode);
    // Symmetric range +-absMax for Diverging, [lo, hi] for Sequential; <= 0 / lo == hi: automatic.
    void setValueRange(float absMax);
    void setSequentialRange(float lo, float hi);
    void setShowColorBar(bool on);
    void setPlaceholderText(const QString& text);
    void setTooltipFn(TooltipFn fn);
    // Small coloured ticks above the given columns (e.g. the dimensions plotted in a chart).
    void setColumnMarkers(const QHash<int, QColor>& markers);

    int rows() const { return rows_; }
    int cols() const { return cols_; }
    float value(int row, int col) const;
    QString title() const { return title_; }
    float displayedAbsMax() const;  // the range the colours currently use (Diverging)
    QColor colorFor(float v) const;

    QRectF cellsRect() const;            // where the cells are drawn, in widget coordinates
    QRectF cellRect(int row, int col) const;
    // Cell under `pos` as (col, row) in a QPoint; (-1, -1) when outside the cells.
    QPoint cellAt(QPointF pos) const;

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void cellClicked(int row, int col);
    void columnClicked(int col);

protected:
    void paintEvent(QPaintEvent*) override;
    bool event(QEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void changeEvent(QEvent* e) override;

private:
    struct Layout {
        QRectF title, cells, colorBar;
        qreal rowLabelW = 0, colLabelH = 0;
        bool drawRowLabels = true;
        int colLabelStep = 1;
    };
    Layout computeLayout() const;
    void rebuildImage() const;
    // The height of a line of the title wrapped into `width`.
    qreal titleLineHeight(const QString& line, bool bold, qreal width) const;
    // The cells as drawn into a `size`-pixel rectangle: each pixel the area-weighted average of
    // the cells it covers (a 512-wide table in 300 px shows no moiré stripes).
    QImage downsampled(QSize size) const;
    QString rowLabel(int r) const;
    QString colLabel(int c) const;

    int rows_ = 0, cols_ = 0;
    std::vector<float> values_;
    QStringList rowLabels_, colLabels_;
    QString title_, rowAxisTitle_, colAxisTitle_, placeholder_;
    ColorMode mode_ = ColorMode::Diverging;
    float fixedAbsMax_ = 0.0f, seqLo_ = 0.0f, seqHi_ = 0.0f;
    float autoAbsMax_ = 1.0f, autoLo_ = 0.0f, autoHi_ = 1.0f;
    bool showColorBar_ = true;
    TooltipFn tooltipFn_;
    QHash<int, QColor> markers_;
    mutable QImage image_;
    mutable bool imageDirty_ = false;
    mutable QImage scaled_;  // downsampled() of image_, for its size
    mutable bool scaledDirty_ = true;
    QPoint hover_{-1, -1};
    mutable qreal rowLabelsW_ = -1, colLabelsW_ = -1;  // widest label widths; -1 = measure again
};
