// HeatmapWidget and Colormap: the painted colours are the legend's, masked cells are hatched and
// explained, tooltips name value, indices and tokens, zoom/scroll/click behave, nothing crashes
// on empty or odd input.
#include <cmath>
#include <limits>

#include <QApplication>
#include <QElapsedTimer>
#include <QHelpEvent>
#include <QImage>
#include <QScrollBar>
#include <QSignalSpy>
#include <QTest>
#include <QToolTip>
#include <QWheelEvent>

#include "widgets/colormap.h"
#include "widgets/elision_log.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"

namespace {

int colorDistance(const QColor& a, const QColor& b) {
    return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

QImage grabImage(QWidget& w) { return w.grab().toImage().convertToFormat(QImage::Format_RGB32); }

}  // namespace

class TestHeatmap : public QObject {
    Q_OBJECT
private slots:
    void colormapScales();
    void colormapRanges();
    void paintsLegendColours();
    void sequentialForProbabilities();
    void maskedCellsAreHatchedAndExplained();
    void tooltipNamesValueIndicesAndTokens();
    void tooltipCallbackAndHelpEvent();
    void cellTextFormats();
    void zoomButtonsAndCtrlWheel();
    void wideMatrixScrollsAndPaintsFast();
    void clickEmitsCell();
    void emptyAndOddInputDoNotCrash();
    void legendIsPainted();
    void wideMatrixIsAveragedNotSampled();
    void fewTokensKeepEveryLabelAndTitlesWrap();
};

void TestHeatmap::colormapScales() {
    // Diverging: white at 0, red for positive, blue for negative.
    const QColor zero = Colormap::diverging(0.0);
    QVERIFY(zero.red() > 240 && zero.green() > 240 && zero.blue() > 240);
    const QColor pos = Colormap::diverging(1.0);
    QVERIFY(pos.red() > pos.blue() + 50);
    const QColor neg = Colormap::diverging(-1.0);
    QVERIFY(neg.blue() > neg.red() + 50);
    // Sequential: light at 0, dark at 1, monotone lightness.
    int prev = 1000;
    for (int i = 0; i <= 10; ++i) {
        const QColor c = Colormap::sequential(i / 10.0);
        const int light = c.red() + c.green() + c.blue();
        QVERIFY2(light <= prev, qPrintable(QString::number(i)));
        prev = light;
    }
    QVERIFY(Colormap::sequential(0.0).lightness() > 220);
    QVERIFY(Colormap::sequential(1.0).lightness() < 80);
}

void TestHeatmap::colormapRanges() {
    Colormap d(Colormap::Kind::Diverging, -0.5f, 2.0f);
    QCOMPARE(d.lo(), -2.0f);  // centred at 0
    QCOMPARE(d.hi(), 2.0f);
    QCOMPARE(d.color(0.0f), Colormap::diverging(0.0));
    QCOMPARE(d.color(2.0f), Colormap::diverging(1.0));
    QCOMPARE(d.color(5.0f), Colormap::diverging(1.0));  // saturates
    Colormap s(Colormap::Kind::Sequential, 0.0f, 1.0f);
    QCOMPARE(s.color(0.5f), Colormap::sequential(0.5));
    Colormap flat(Colormap::Kind::Sequential, 3.0f, 3.0f);  // no crash, valid range
    QVERIFY(flat.hi() > flat.lo());
    QCOMPARE(Colormap(Colormap::Kind::Diverging, 0, 0).hi(), 1.0f);
    QCOMPARE(numfmt::colorBarTick(-1e9), QStringLiteral("\u22121e9"));
}

void TestHeatmap::paintsLegendColours() {
    HeatmapWidget w;
    w.setValueText(HeatmapWidget::ValueText::Never);
    w.setColorMode(HeatmapWidget::ColorMode::Diverging);
    w.setMatrix(2, 3, {-1.0f, -0.5f, 0.0f, 0.25f, 0.75f, 1.0f});
    w.setRowLabels({"ich", "mochte"});
    w.setColLabels({"0", "1", "2"});
    w.resize(600, 400);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.colormap().kind(), Colormap::Kind::Diverging);
    QCOMPARE(w.colormap().hi(), 1.0f);
    const QImage img = grabImage(w);
    for (int r = 0; r < 2; ++r)
        for (int c = 0; c < 3; ++c) {
            const QRect cr = w.cellRect(r, c);
            QVERIFY(cr.width() >= 8 && cr.height() >= 8);
            const QColor px = img.pixelColor(cr.center());
            const QColor expected = w.colormap().color(w.value(r, c));
            QCOMPARE(w.colorAt(r, c), expected);
            QVERIFY2(colorDistance(px, expected) <= 3,
                     qPrintable(QStringLiteral("cell %1,%2: painted %3, legend %4")
                                    .arg(r).arg(c).arg(px.name(), expected.name())));
        }
    // The sign is the hue: -1 is blue, +1 red, 0 white.
    QVERIFY(w.colorAt(0, 0).blue() > w.colorAt(0, 0).red());
    QVERIFY(w.colorAt(1, 2).red() > w.colorAt(1, 2).blue());
    QVERIFY(w.colorAt(0, 2).lightness() > 240);
}

void TestHeatmap::sequentialForProbabilities() {
    HeatmapWidget w;
    w.setValueText(HeatmapWidget::ValueText::Never);
    w.setColorMode(HeatmapWidget::ColorMode::Sequential);
    w.setValueRange(0.0f, 1.0f);
    w.setMatrix(1, 4, {0.0f, 0.2f, 0.7f, 1.0f});
    w.resize(500, 300);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.colormap().kind(), Colormap::Kind::Sequential);
    const QImage img = grabImage(w);
    for (int c = 0; c < 4; ++c) {
        const QColor px = img.pixelColor(w.cellRect(0, c).center());
        QVERIFY(colorDistance(px, Colormap::sequential(w.value(0, c))) <= 3);
    }
    // Auto picks sequential for non-negative data and diverging for signed data.
    HeatmapWidget a;
    a.setMatrix(1, 2, {0.1f, 0.9f});
    QCOMPARE(a.colormap().kind(), Colormap::Kind::Sequential);
    a.setMatrix(1, 2, {-0.1f, 0.9f});
    QCOMPARE(a.colormap().kind(), Colormap::Kind::Diverging);
}

void TestHeatmap::maskedCellsAreHatchedAndExplained() {
    HeatmapWidget w;
    w.setValueText(HeatmapWidget::ValueText::Never);
    w.setColorMode(HeatmapWidget::ColorMode::Diverging);
    // masked_scores of one query row: the last key is the pad, filled with -1e9.
    w.setMatrix(2, 3, {0.3f, -0.2f, -1e9f, 0.1f, 0.4f, -1e9f});
    w.setMask({0, 0, 1, 0, 0, 1});
    w.setRowLabels({"ich", "bier"});
    w.setColLabels({"ich", "bier", "P"});
    w.resize(600, 400);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // The -1e9 fill does not flatten the colour range of the other cells.
    QVERIFY(w.colormap().hi() < 1.0f);
    QVERIFY(w.isMasked(0, 2));
    QVERIFY(!w.isMasked(0, 1));
    QCOMPARE(w.colorAt(0, 2), Colormap::maskedColor());
    const QImage img = grabImage(w);
    auto distinctColours = [&](const QRect& cr) {
        QSet<QRgb> set;
        for (int y = cr.top() + 2; y < cr.bottom() - 1; ++y)
            for (int x = cr.left() + 2; x < cr.right() - 1; ++x) set.insert(img.pixel(x, y));
        return set.size();
    };
    QVERIFY2(distinctColours(w.cellRect(0, 2)) >= 2, "masked cell is not hatched");
    QCOMPARE(distinctColours(w.cellRect(0, 1)), 1);  // unmasked cells are flat
    const QString tip = w.tooltipText(0, 2);
    QVERIFY2(tip.contains(QStringLiteral("\u22121e9")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("Masked"), Qt::CaseInsensitive));
    QVERIFY(tip.contains(QStringLiteral("'P'")));
    QCOMPARE(w.cellText(0, 2), QStringLiteral("\u22121e9"));

    // With numbers shown the cell says −1e9.
    w.setValueText(HeatmapWidget::ValueText::Always);
    QVERIFY(w.valuesShown());
    // A mask over ordinary values (attention weights become 0): hatched, coloured by value.
    HeatmapWidget a;
    a.setColorMode(HeatmapWidget::ColorMode::Sequential);
    a.setValueRange(0, 1);
    a.setMatrix(1, 3, {0.6f, 0.4f, 0.0f});
    a.setMask({0, 0, 1});
    QCOMPARE(a.colorAt(0, 2), Colormap::sequential(0.0));
    QCOMPARE(a.cellText(0, 2), QStringLiteral("0"));
    QVERIFY(a.isMasked(0, 2));
}

void TestHeatmap::tooltipNamesValueIndicesAndTokens() {
    HeatmapWidget w;
    w.setTitle(QStringLiteral("attn"));
    w.setMatrix(2, 3, {0.125f, 0.25f, 0.625f, 0.1f, 0.2f, 0.7f});
    w.setRowLabels({"ich", "mochte"});
    w.setColLabels({"ein", "bier", "P"});
    w.setRowAxisTitle(QStringLiteral("len_q"));
    w.setColAxisTitle(QStringLiteral("len_k"));
    const QString tip = w.tooltipText(0, 2);
    QVERIFY2(tip.contains(QStringLiteral("0.625")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("row 0")));
    QVERIFY(tip.contains(QStringLiteral("column 2")));
    QVERIFY(tip.contains(QStringLiteral("'ich'")));
    QVERIFY(tip.contains(QStringLiteral("'P'")));
    QVERIFY(tip.contains(QStringLiteral("len_k")));
    // The exact value: shortest text that reads back as the float.
    QVERIFY(w.tooltipText(1, 0).contains(QStringLiteral("0.1")));
    QVERIFY(!w.tooltipText(1, 0).contains(QStringLiteral("0.100000")));
    QVERIFY(w.tooltipText(5, 5).isEmpty());
}

void TestHeatmap::tooltipCallbackAndHelpEvent() {
    HeatmapWidget w;
    w.setMatrix(2, 2, {1, 2, 3, 4});
    w.setTooltipFunction([](int r, int c) { return QStringLiteral("cell %1/%2").arg(r).arg(c); });
    QCOMPARE(w.tooltipText(1, 0), QStringLiteral("cell 1/0"));
    w.resize(400, 300);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QRect cr = w.cellRect(1, 0);
    const QPoint vp = w.viewport()->mapFrom(&w, cr.center());
    QHelpEvent he(QEvent::ToolTip, vp, w.viewport()->mapToGlobal(vp));
    QApplication::sendEvent(w.viewport(), &he);
    QTRY_VERIFY(QToolTip::isVisible());
    QCOMPARE(QToolTip::text(), QStringLiteral("cell 1/0"));
    QToolTip::hideText();
    QCOMPARE(w.cellAt(cr.center()), QPoint(1, 0));
}

void TestHeatmap::cellTextFormats() {
    QCOMPARE(numfmt::cell(0.0f), QStringLiteral("0"));
    QCOMPARE(numfmt::cell(0.4213f), QStringLiteral("0.42"));
    QCOMPARE(numfmt::cell(-1e9f), QStringLiteral("\u22121e9"));
    QCOMPARE(numfmt::cell(2e-7f), QStringLiteral("2e\u22127"));  // tiny but not zero: not "0"
    QCOMPARE(numfmt::cell(-12.34f), QStringLiteral("\u221212.3"));
    QCOMPARE(numfmt::exact(0.1f), QStringLiteral("0.1"));
    QCOMPARE(numfmt::exact(-1e9f), QStringLiteral("\u22121e9"));
    QCOMPARE(numfmt::exact(std::numeric_limits<float>::quiet_NaN()), QStringLiteral("NaN"));
}

void TestHeatmap::zoomButtonsAndCtrlWheel() {
    HeatmapWidget w;
    std::vector<float> v(5 * 64);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::sin(float(i));
    w.setMatrix(5, 64, v);
    w.resize(700, 400);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const int w0 = w.cellRect(0, 0).width();
    QSignalSpy spy(&w, &HeatmapWidget::zoomChanged);
    w.zoomIn();
    QVERIFY(w.cellRect(0, 0).width() > w0);
    QCOMPARE(spy.count(), 1);
    w.resetZoom();
    QCOMPARE(w.cellRect(0, 0).width(), w0);
    const QPoint pos = w.viewport()->mapFrom(&w, w.cellRect(2, 10).center());
    QWheelEvent ev(pos, w.viewport()->mapToGlobal(pos), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::ControlModifier,
                   Qt::NoScrollPhase, false);
    QApplication::sendEvent(w.viewport(), &ev);
    QVERIFY(w.zoom() > 1.0);
    QVERIFY(w.cellRect(0, 0).width() > w0);
    // Zooming keeps the column under the mouse under the mouse (the rows all fit: no scrolling).
    QCOMPARE(w.cellAt(w.viewport()->mapTo(&w, pos)).y(), 10);
    w.zoomOut();
    w.zoomOut();
    QVERIFY(w.zoom() < 1.0);
}

void TestHeatmap::wideMatrixScrollsAndPaintsFast() {
    HeatmapWidget w;
    const int rows = 6, cols = 2048;
    std::vector<float> v(size_t(rows) * cols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = std::cos(float(i) * 0.01f);
    w.setMatrix(rows, cols, v);
    w.resize(900, 400);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // Fit fits (issue 14: "Fit" kept 2 px per feature and scrolled): a feature is a fraction
    // of a pixel, zooming in scrolls.
    QCOMPARE(w.horizontalScrollBar()->maximum(), 0);
    QVERIFY(w.cellWidth() < 1.0);
    QVERIFY(w.cellRect(0, cols - 1).right() <= w.viewport()->geometry().right());
    for (int i = 0; i < 6; ++i) w.zoomIn();
    QVERIFY(w.horizontalScrollBar()->maximum() > 0);
    QElapsedTimer t;
    t.start();
    for (int i = 0; i < 40; ++i) {
        w.horizontalScrollBar()->setValue(i * 500);
        w.viewport()->repaint();
    }
    QVERIFY2(t.elapsed() < 4000, qPrintable(QString::number(t.elapsed())));
    // After scrolling, painted colours still match the legend.
    w.horizontalScrollBar()->setValue(w.horizontalScrollBar()->maximum() / 2);
    const QImage img = grabImage(w);
    const QPoint rc = w.cellAt(w.viewport()->geometry().center());
    QVERIFY(rc.x() >= 0);
    w.setValueText(HeatmapWidget::ValueText::Never);
    const QImage img2 = grabImage(w);
    QVERIFY(colorDistance(img2.pixelColor(w.cellRect(rc.x(), rc.y()).center()), w.colorAt(rc.x(), rc.y())) <= 3);
    Q_UNUSED(img);
}

void TestHeatmap::clickEmitsCell() {
    HeatmapWidget w;
    w.setMatrix(3, 3, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    w.resize(400, 400);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QSignalSpy spy(&w, &HeatmapWidget::cellClicked);
    QSignalSpy any(&w, &HeatmapWidget::clicked);
    const QPoint p = w.viewport()->mapFrom(&w, w.cellRect(2, 1).center());
    QTest::mouseClick(w.viewport(), Qt::LeftButton, {}, p);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), 2);
    QCOMPARE(spy.at(0).at(1).toInt(), 1);
    QCOMPARE(any.count(), 1);
}

void TestHeatmap::emptyAndOddInputDoNotCrash() {
    HeatmapWidget w;
    w.resize(300, 200);
    w.setEmptyMessage(QStringLiteral("no data here"));
    QVERIFY(!w.grab().isNull());
    QVERIFY(w.isEmpty());
    w.setMatrix(2, 2, {1, 2, 3});  // wrong size -> empty
    QVERIFY(w.isEmpty());
    w.setMatrix(1, 1, {std::numeric_limits<float>::quiet_NaN()});
    QVERIFY(!w.grab().isNull());
    QCOMPARE(w.colorAt(0, 0), Colormap::nanColor());
    w.setMatrix(1, 2, {std::numeric_limits<float>::infinity(), 1.0f});
    w.setMask({1});  // wrong size: ignored
    QVERIFY(!w.grab().isNull());
    w.setMatrix(1, 1, {-1e9f});  // only a fill value
    QVERIFY(!w.grab().isNull());
    QVERIFY(w.tooltipText(-1, 0).isEmpty());
    QVERIFY(!w.colorAt(3, 3).isValid());
    w.clear();
    w.setCompact(true);
    w.resize(10, 10);
    QVERIFY(!w.grab().isNull());
    w.setMatrix(3, 3, std::vector<float>(9, 0.0f));
    QVERIFY(!w.grab().isNull());
}

void TestHeatmap::legendIsPainted() {
    HeatmapWidget w;
    w.setColorMode(HeatmapWidget::ColorMode::Diverging);
    w.setMatrix(2, 2, {-2, -1, 1, 2});
    w.resize(500, 350);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QImage img = grabImage(w);
    // Right of the cells there are the legend's extreme colours.
    const QRect last = w.cellRect(0, 1);
    bool red = false, blue = false;
    for (int x = last.right() + 5; x < img.width(); ++x)
        for (int y = last.top(); y < img.height(); ++y) {
            const QColor c = img.pixelColor(x, y);
            if (colorDistance(c, Colormap::diverging(1.0)) < 20) red = true;
            if (colorDistance(c, Colormap::diverging(-1.0)) < 20) blue = true;
        }
    QVERIFY(red);
    QVERIFY(blue);
}

// Cells under a pixel (Fit of many columns) are averaged: columns alternating +1/\u22121 read as
// one even colour, not as stripes of red and blue.
void TestHeatmap::wideMatrixIsAveragedNotSampled() {
    HeatmapWidget w;
    const int rows = 4, cols = 512;
    std::vector<float> v(size_t(rows) * cols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = (i % 2 == 0) ? 1.0f : -1.0f;
    w.setMatrix(rows, cols, v);
    w.setValueText(HeatmapWidget::ValueText::Never);
    w.resize(500, 240);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.cellWidth() < 1.0);
    const QImage img = grabImage(w);
    const QRect first = w.cellRect(1, 0), last = w.cellRect(1, cols - 1);
    const int y = first.center().y();
    int worst = 0;
    for (int x = first.left() + 2; x < last.left() - 2; ++x)
        worst = std::max(worst, colorDistance(img.pixelColor(x, y), img.pixelColor(x + 1, y)));
    QVERIFY2(worst <= 12, qPrintable(QString::number(worst)));
}

// An axis of a few tokens shows every label, and titles wrap instead of being shortened.
void TestHeatmap::fewTokensKeepEveryLabelAndTitlesWrap() {
    HeatmapWidget w;
    w.setMatrix(6, 9, std::vector<float>(54, 0.5f));
    w.setRowLabels({QStringLiteral("S"), QStringLiteral("i"), QStringLiteral("want"), QStringLiteral("a"),
                    QStringLiteral("beer"), QStringLiteral(".")});
    w.setColLabels({QStringLiteral("P"), QStringLiteral("i"), QStringLiteral("want"), QStringLiteral("a"), QStringLiteral("beer"),
                    QStringLiteral("coke"), QStringLiteral("S"), QStringLiteral("E"), QStringLiteral(".")});
    w.setTitle(QStringLiteral("softmax p over the target vocabulary (target outlined)"));
    w.setRowAxisTitle(QStringLiteral("position t: input \u2192 target"));
    w.setColAxisTitle(QStringLiteral("tgt_vocab \u00b7 target word"));
    w.resize(w.minimumSizeHint());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QCOMPARE(w.rowLabelStep(), 1);
    QCOMPARE(w.colLabelStep(), 1);
    elision_log::setRecording(true);
    (void)w.grab();
    const auto elided = elision_log::take();
    elision_log::setRecording(false);
    QStringList texts;
    for (const auto& e : elided) texts << e.text;
    QVERIFY2(elided.empty(), qPrintable(texts.join(QStringLiteral(" | "))));
    // In a narrower widget the cells stay readable and scroll instead.
    w.resize(90, 300);
    QCOMPARE(w.colLabelStep(), 1);
    QVERIFY(w.horizontalScrollBar()->maximum() > 0);
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestHeatmap t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_heatmap.moc"
