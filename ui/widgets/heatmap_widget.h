// A heatmap of one 2-D matrix (rows x cols floats) with row/column labels, an optional mask,
// a colour legend, hover tooltips, click signals and zoom.
//
// It is its own scroll area: the column labels (top), the row labels (left) and the legend
// (right) stay in place while the cells scroll, and only the visible cells are painted, from a
// one-pixel-per-cell image cache scaled without smoothing, so 512- or 2048-wide tensors zoom
// and scroll without lag.
//
// Layout: title, column axis title and labels (vertical when they do not fit), row labels and a
// rotated row axis title, the cells, and the legend on the right (or under the cells when the
// widget is short of width); the whole block is centred in the widget. Numbers are printed in
// the cells when every visible one fits (ValueText::Auto).
//
// Zoom: 1 fits the whole matrix into the widget (cells at most 64 px, at least 2 px wide);
// Ctrl+wheel zooms around the mouse, zoomIn()/zoomOut()/resetZoom() are for buttons. The
// mouse wheel scrolls (horizontally when only that direction scrolls).
//
// Masked cells (mask != 0): filled with the neutral "masked" grey when their value is the
// -1e9 fill (or beyond +-1e8), otherwise with their colour, and hatched either way; they show
// their value ("−1e9", "0") when the cell is big enough, and the tooltip explains them.
#pragma once

#include <algorithm>
#include <cmath>
#include <functional>
#include <memory>
#include <vector>

#include <QAbstractScrollArea>
#include <QColor>
#include <QFontMetrics>
#include <QImage>
#include <QRect>
#include <QString>
#include <QStringList>

#include "widgets/colormap.h"

class QKeyEvent;
class QPainter;

class HeatmapWidget : public QAbstractScrollArea {
    Q_OBJECT
public:
    enum class ColorMode { Diverging, Sequential, Auto };  // Auto: diverging iff a value < 0
    enum class ValueText { Auto, Always, Never };           // numbers printed inside cells
    using TooltipFn = std::function<QString(int r, int c)>;

    explicit HeatmapWidget(QWidget* parent = nullptr);

    // Holds back the recolouring and relayout of the setters called while it lives and does
    // them once at its end (a whole panel changes at once; each setter alone redoes both).
    class Batch {
    public:
        explicit Batch(HeatmapWidget* w);
        ~Batch();
        Batch(const Batch&) = delete;
        Batch& operator=(const Batch&) = delete;

    private:
        HeatmapWidget* w_;
    };

    // The matrix, row-major; values.size() must be rows*cols (otherwise the widget is emptied).
    void setMatrix(int rows, int cols, std::vector<float> values);
    // The same, sharing numbers that are not copied (a weight has up to a million); they must not
    // change while shown.
    void setMatrix(int rows, int cols, std::shared_ptr<const std::vector<float>> values);
    // Same size as the matrix, nonzero = masked; empty = no mask.
    void setMask(std::vector<float> mask);
    void clear();

    void setRowLabels(const QStringList& labels);
    void setColLabels(const QStringList& labels);
    void setTitle(const QString& title);
    void setRowAxisTitle(const QString& title);  // e.g. "len_q (query token)"
    void setColAxisTitle(const QString& title);
    void setLegendCaption(const QString& caption);
    void setEmptyMessage(const QString& message);  // shown when there is no matrix

    void setColorMode(ColorMode mode);
    ColorMode colorMode() const { return mode_; }
    // Fixed value range (e.g. 0..1 for probabilities); clearValueRange() goes back to the data's.
    void setValueRange(float lo, float hi);
    void clearValueRange();
    const Colormap& colormap() const { return cmap_; }

    // Tooltip text for a cell; without one, defaultTooltip() is used.
    void setTooltipFunction(TooltipFn fn);
    void setMaskedExplanation(const QString& html);  // appended to tooltips of masked cells

    void setValueText(ValueText mode);
    void setCompact(bool compact);  // small multiples: no legend, no axis titles, tighter
    bool isCompact() const { return compact_; }
    void setShowLegend(bool show);
    void setSelected(bool selected);  // a highlighted frame (the chosen head of a grid)
    bool isSelected() const { return selected_; }
    // An outlined row / column (linked views, e.g. the token hovered in the line view); -1 = none.
    void setHighlightedRow(int r);
    void setHighlightedCol(int c);
    int highlightedRow() const { return hlRow_; }
    int highlightedCol() const { return hlCol_; }
    // What the row title and labels left of the cells and the legend right of them take (px), as
    // the last layout found them; and a floor for each. Panels stacked over the same columns set
    // the largest on all of them, so that their cells have one width and column c lies at one x
    // in every panel (what a linked hover outlines, one above the other).
    int naturalLeftSide() const { return naturalLeft_; }
    int naturalRightSide() const { return naturalRight_; }
    void setMinimumSides(int left, int right);

    int rows() const { return rows_; }
    int cols() const { return cols_; }
    bool isEmpty() const { return rows_ == 0 || cols_ == 0; }
    float value(int r, int c) const;
    bool isMasked(int r, int c) const;
    QStringList rowLabels() const { return rowLabels_; }
    QStringList colLabels() const { return colLabels_; }
    QString title() const { return title_; }
    QString rowAxisTitle() const { return rowTitle_; }
    QString colAxisTitle() const { return colTitle_; }
    QString legendCaption() const { return legendCaption_; }
    QString emptyMessage() const { return emptyMessage_; }
    // Whether the legend is a mask's two swatches ("0 = visible", "1 = masked") instead of a
    // colour bar: only for a 0/1 matrix that is its own mask.
    bool hasMaskLegend() const { return binary_; }

    // The colour the cell is filled with (before hatching / text): what the legend says.
    QColor colorAt(int r, int c) const;
    // The cell's rectangle in this widget's coordinates (may lie outside the visible part).
    QRect cellRect(int r, int c) const;
    // Scrolls so that the cell is visible.
    void ensureCellVisible(int r, int c);
    // The text a cell shows when it is big enough, e.g. "0.42", "0", "−1e9".
    QString cellText(int r, int c) const;
    // Whether numbers are currently printed in the cells.
    bool valuesShown() const;
    QString tooltipText(int r, int c) const;
    // The cell under the mouse as QPoint(x = row, y = column), or (-1, -1).
    QPoint hoveredCell() const { return {hoverR_, hoverC_}; }
    // A cell for the clipboard: "<row label>\t<column label>\t<value, 9 significant digits>".
    QString cellCopyText(int r, int c) const;
    QString defaultTooltip(int r, int c) const;
    // The cell under a point in this widget's coordinates as QPoint(x = row, y = column), or
    // (-1, -1).
    QPoint cellAt(const QPoint& widgetPos) const;

    // The keyboard's cell cursor. It is on after the heatmap gets the focus by Tab (or ↑ ↓ are
    // pressed while it has the focus): the arrow keys, Home / End and Page Up / Down then move it,
    // Enter clicks its cell, Escape gives the arrows back to stepping. The cursor's cell is the
    // hovered one (linked views outline it, Ctrl+C copies it) and its value goes to the status bar.
    bool cellCursorOn() const { return cursorOn_; }
    QPoint cellCursor() const { return {cursorR_, cursorC_}; }  // QPoint(x = row, y = column)
    void setCellCursor(int r, int c);  // turns the cursor on (clamped to the matrix)
    void leaveCellCursor();
    // The status bar's line for a cell: its row and column (with their labels) and its value.
    QString cellStatusText(int r, int c) const;

    // A block of cells, chosen by dragging the mouse over them or with Shift and the arrow keys
    // from the cell cursor (x = column, y = row; empty when none). Ctrl+C copies it.
    QRect selection() const { return selection_; }
    void setSelection(const QRect& cells);  // clipped to the matrix
    void clearSelection() { setSelection({}); }
    // The selection as tab-separated text: a header of the column labels, then each row's label
    // and its values (9 significant digits), as a spreadsheet pastes it.
    QString selectionCopyText() const;

    // Every how many rows / columns a label is drawn (1: all; more when the cells are thinner
    // than the text): the layout check fails on thinned token labels.
    int rowLabelStep() const { return rowLabelStep_; }
    int colLabelStep() const { return colLabelStep_; }

    double zoom() const { return zoom_; }
    // The cells' size in pixels (a cell may be narrower than a pixel: "Fit" fits hundreds or
    // thousands of columns, each pixel column then shows the average colour of its columns).
    QSize cellSize() const { return QSize(std::max(1, int(std::lround(cellW_))), cellH_); }
    double cellWidth() const { return cellW_; }
    // The visible part of the cells, in the viewport's coordinates.
    QRect visibleGrid() const { return gridRect_; }

    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

public slots:
    void setZoom(double zoom);
    void zoomIn();
    void zoomOut();
    void resetZoom();

signals:
    void cellClicked(int r, int c);
    void cellHovered(int r, int c);  // (-1, -1) when the mouse leaves the cells
    void clicked();                  // anywhere in the widget (small multiples)
    void zoomChanged(double zoom);
    void sidesChanged();  // naturalLeftSide() or naturalRightSide() changed

protected:
    void paintEvent(QPaintEvent* e) override;
    void resizeEvent(QResizeEvent* e) override;
    bool viewportEvent(QEvent* e) override;
    void wheelEvent(QWheelEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void mouseReleaseEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;
    void scrollContentsBy(int dx, int dy) override;
    void changeEvent(QEvent* e) override;
    bool event(QEvent* e) override;
    void keyPressEvent(QKeyEvent* e) override;
    void focusInEvent(QFocusEvent* e) override;
    void focusOutEvent(QFocusEvent* e) override;

private:
    bool cursorKey(const QKeyEvent* e) const;  // a key the cell cursor takes (ShortcutOverride)
    void extendSelection(int r, int c);        // from anchor_ to the cell
    void updateAccessibleText();
    static int wrappedHeight(const QFontMetrics& fm, const QString& text, int width, int lines);
    void invalidate();      // data / colours changed
    void layoutChanged();   // labels / titles changed
    void rebuildColors();   // colormap + cache image
    void relayout();        // geometry from viewport size, zoom
    QFont labelFont() const;
    QFont titleFont() const;
    QPoint cellAtViewport(const QPoint& p) const;
    QRect cellRectViewport(int r, int c) const;
    QRect visibleCells() const;  // the cells at least partly in view (x: columns, y: rows); not when empty
    int colX(int c) const;       // the left edge of column c in viewport coordinates
    // The smallest cells that show every label of an axis of at most 16 entries (tokens).
    int minCellWidth(const QFontMetrics& fm) const;
    int minCellHeight(const QFontMetrics& fm) const;
    int rowLabelCap() const { return compact_ ? 80 : 140; }
    int colLabelCap() const { return compact_ ? 60 : 100; }
    // The visible cells averaged down to one pixel column each (cells narrower than 2 px).
    QImage resampledCells(const QRect& cells) const;
    void setHover(int r, int c);
    void zoomAround(double newZoom, const QPoint& viewportPos);
    int labelExtent(bool rows, const QFontMetrics& fm) const;  // widest label, cached
    const QImage& cellImage(const QRect& cells) const;  // colours at least these cells
    QString maskCaption() const;
    // paintEvent's parts, in this order (heatmap_painting.cpp).
    void paintAxisTitles(QPainter& p, const QFontMetrics& fm) const;
    void paintCells(QPainter& p, const QFontMetrics& fm, const QRect& cells) const;
    void paintAxisLabels(QPainter& p, const QFont& font, const QRect& cells) const;
    void paintLegend(QPainter& p, const QFont& font) const;

    int rows_ = 0, cols_ = 0;
    std::shared_ptr<const std::vector<float>> values_ = std::make_shared<const std::vector<float>>();  // never null
    const std::vector<float>& vals() const { return *values_; }
    std::vector<unsigned char> mask_;  // empty = none
    QStringList rowLabels_, colLabels_;
    QString title_, rowTitle_, colTitle_, legendCaption_, emptyMessage_;
    QString maskedExplanation_;
    ColorMode mode_ = ColorMode::Auto;
    bool fixedRange_ = false;
    float fixedLo_ = 0.0f, fixedHi_ = 1.0f;
    Colormap cmap_;
    mutable QImage cache_;  // one pixel per cell, coloured when first painted
    static constexpr int kTile = 64;
    mutable std::vector<bool> tilesDone_;  // kTile x kTile tiles of cache_ already coloured
    mutable int rowLabelExtent_ = -1, colLabelExtent_ = -1, labelFontKey_ = -1;
    TooltipFn tooltipFn_;
    ValueText valueText_ = ValueText::Auto;
    bool compact_ = false;
    bool showLegend_ = true;
    bool selected_ = false;

    double zoom_ = 1.0;
    // Layout (viewport coordinates), recomputed by relayout().
    double cellW_ = 10;  // whole pixels from 2 px up; a fraction below (Fit of many columns)
    int cellH_ = 10;
    QRect gridRect_;      // visible part of the cells
    int titleH_ = 0, colTitleH_ = 0, colHeaderH_ = 0, rowHeaderW_ = 0, rowTitleW_ = 0, legendW_ = 0;
    // Lines the title and the axis titles are wrapped into (they are never shortened).
    int titleLines_ = 1, colTitleLines_ = 1, rowTitleLines_ = 1;
    int titleTextH_ = 0;  // the title's lines, measured (wrappedHeight)
    QRect legendRect_;
    QPoint origin_;        // top-left of the title / the centred block
    bool legendBottom_ = false;
    bool hasFill_ = false;
    bool negInfFill_ = false;  // the fills are −∞ (PyTorch's additive mask): said so in the legend
    bool integral_ = false;  // every value is a whole number: cells say "1", not "1.00"
    bool binary_ = false;    // a 0/1 mask: a two-swatch legend
    bool colLabelsVertical_ = false;
    int colLabelStep_ = 1, rowLabelStep_ = 1;
    bool inRelayout_ = false;
    int batchDepth_ = 0;  // Batch
    bool colorsPending_ = false, layoutPending_ = false;

    int minLeft_ = 0, minRight_ = 0, naturalLeft_ = 0, naturalRight_ = 0;

    int hoverR_ = -1, hoverC_ = -1;
    bool cursorOn_ = false;
    int cursorR_ = 0, cursorC_ = 0;
    QRect selection_;               // cells (x = column, y = row)
    QPoint anchor_{-1, -1};         // where a selection started (x = column, y = row)
    bool dragging_ = false;
    int hlRow_ = -1, hlCol_ = -1;
};
