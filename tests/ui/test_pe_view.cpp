// PositionalEncodingView: the table is the core's positional_table, the chart follows length /
// d_model / chosen dimensions (sin for even dims, cos for odd), the sum row shows the trace's
// embedding + PE = input for the current stack, and the widget actually paints.
#include <QtTest>

#include <QApplication>
#include <QChart>
#include <QLineEdit>
#include <QLineSeries>
#include <QSet>
#include <QSpinBox>
#include <QToolTip>

#include <cmath>
#include <memory>

#include "views/pe_heatmap.h"
#include "views/pe_view.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "test_util.h"

using testutil::distinctColors;

using namespace stepformer;

namespace {

std::shared_ptr<const Trace> makeTrace(const Config& c) {
    Transformer model(c, init_params(c, 7));
    const Batch batch = make_batch(c, {"ich mochte ein bier P", "ich mochte ein cola P"},
                                   {"S i want a beer .", "S i want a coke ."});
    auto trace = std::make_shared<Trace>();
    model.forward(batch, *trace);
    return trace;
}

QList<QLineSeries*> lineSeries(QChart* chart) {
    QList<QLineSeries*> out;
    for (QAbstractSeries* s : chart->series())
        if (auto* l = qobject_cast<QLineSeries*>(s)) out << l;
    return out;
}

}  // namespace

class TestPeView : public QObject {
    Q_OBJECT
private slots:
    void objectNames();
    void tableEqualsPositionalTable();
    void defaultsFollowTrace();
    void lengthAndDModelUpdateChart();
    void sinForEvenCosForOdd();
    void dimensionsFromLineEdit();
    void clickingColumnTogglesDimension();
    void sumShowsEncoderThenDecoder();
    void cellTooltipShowsTheSum();
    void grabIsNotBlank();
    void wideTableIsAveragedNotSampled();
};

void TestPeView::objectNames() {
    PositionalEncodingView view;
    QCOMPARE(view.objectName(), QStringLiteral("peView"));
    QVERIFY(view.findChild<QSpinBox*>(QStringLiteral("peLengthSpin")));
    QVERIFY(view.findChild<QSpinBox*>(QStringLiteral("peDModelSpin")));
    QVERIFY(view.findChild<QLineEdit*>(QStringLiteral("peDimsEdit")));
    QVERIFY(view.findChild<PeHeatmap*>(QStringLiteral("peTableHeatmap")));
}

void TestPeView::tableEqualsPositionalTable() {
    const Config c = Config::small();
    PositionalEncodingView view;
    view.setTrace(makeTrace(c), c);
    const int L = view.length(), D = view.dModel();
    const Tensor ref = positional_table(L, D);
    QCOMPARE(view.table().shape, ref.shape);
    const int cells[][2] = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {3, 4}, {L - 2, 7}, {L - 1, D - 1}, {2, D - 2}};
    for (const auto& cell : cells) {
        const int p = cell[0], d = cell[1];
        QCOMPARE(view.tableValue(p, d), ref.at({p, d}));
        QCOMPARE(view.tableHeatmap()->value(p, d), ref.at({p, d}));
    }
    // Another size, computed again by the core.
    view.setLength(50);
    view.setDModel(64);
    const Tensor ref2 = positional_table(50, 64);
    QCOMPARE(view.tableValue(49, 63), ref2.at({49, 63}));
    QCOMPARE(view.tableValue(17, 10), ref2.at({17, 10}));
    QCOMPARE(view.tableHeatmap()->rows(), 50);
    QCOMPARE(view.tableHeatmap()->cols(), 64);
    QVERIFY(std::isnan(view.tableValue(50, 0)));
}

void TestPeView::defaultsFollowTrace() {
    PositionalEncodingView view;
    const Config c = Config::small();
    view.setTrace(makeTrace(c), c);
    // As many positions as the table of the step's stack, as its explanation says.
    QCOMPARE(view.length(), c.src_len);
    QCOMPARE(view.dModel(), c.d_model);
    view.setStep(QStringLiteral("decoder.pos_emb.out"));
    QCOMPARE(view.length(), c.tgt_len);
    view.setStep(QStringLiteral("encoder.pos_emb.out"));
    QCOMPARE(view.length(), c.src_len);
    // A length the student chose survives another trace of the same model...
    view.setLength(40);
    view.setTrace(makeTrace(c), c);
    QCOMPARE(view.length(), 40);
    // ...but a different model resets to its defaults.
    Config c2 = c;
    c2.d_model = 16;
    c2.d_k = c2.d_v = 4;
    view.setTrace(makeTrace(c2), c2);
    QCOMPARE(view.dModel(), 16);
    QCOMPARE(view.length(), c2.src_len);
}

void TestPeView::lengthAndDModelUpdateChart() {
    PositionalEncodingView view;
    const Config c = Config::small();
    view.setTrace(makeTrace(c), c);
    view.setDimensions({0, 1, 4, 5});
    QList<QLineSeries*> s = lineSeries(view.chart());
    QCOMPARE(s.size(), 4);
    for (QLineSeries* l : s) QCOMPARE(l->count(), view.length());

    view.findChild<QSpinBox*>(QStringLiteral("peLengthSpin"))->setValue(25);
    s = lineSeries(view.chart());
    QCOMPARE(s.size(), 4);
    for (QLineSeries* l : s) QCOMPARE(l->count(), 25);

    // d_model 4: dimensions 4 and 5 no longer exist.
    view.findChild<QSpinBox*>(QStringLiteral("peDModelSpin"))->setValue(4);
    s = lineSeries(view.chart());
    QCOMPARE(s.size(), 2);
    QCOMPARE(view.plottedDimensions(), (QList<int>{0, 1}));
    QCOMPARE(view.tableHeatmap()->cols(), 4);
    // Back to a wide model: they come back.
    view.setDModel(32);
    QCOMPARE(lineSeries(view.chart()).size(), 4);
    // The legend names the dimension and its function.
    QVERIFY(lineSeries(view.chart())[0]->name().contains(QStringLiteral("dim 0")));
    QVERIFY(lineSeries(view.chart())[0]->name().contains(QStringLiteral("sin")));
    QVERIFY(lineSeries(view.chart())[1]->name().contains(QStringLiteral("cos")));
    QVERIFY(view.chart()->legend()->isVisible());
    // Axis titles.
    QCOMPARE(view.chart()->axes(Qt::Horizontal).size(), 1);
    QCOMPARE(view.chart()->axes(Qt::Horizontal)[0]->titleText(), QStringLiteral("position"));
    QVERIFY(!view.chart()->axes(Qt::Vertical)[0]->titleText().isEmpty());
}

void TestPeView::sinForEvenCosForOdd() {
    PositionalEncodingView view;
    view.setLength(30);
    view.setDModel(32);
    view.setDimensions({0, 1, 2, 3, 10, 31});
    const QList<QLineSeries*> s = lineSeries(view.chart());
    const QList<int> dims = view.plottedDimensions();
    QCOMPARE(s.size(), dims.size());
    for (int k = 0; k < s.size(); ++k) {
        const int d = dims[k];
        QCOMPARE(s[k]->count(), 30);
        const double at0 = s[k]->at(0).y();
        if (d % 2 == 0)
            QCOMPARE(at0, 0.0);  // sin(0)
        else
            QCOMPARE(at0, 1.0);  // cos(0)
        // Every point is the table's value, and follows sin / cos of pos * div_term.
        const double div = std::exp(static_cast<double>(d - d % 2) * -std::log(10000.0) / 32.0);
        for (int pos = 0; pos < 30; ++pos) {
            QCOMPARE(s[k]->at(pos).x(), static_cast<double>(pos));
            QCOMPARE(static_cast<float>(s[k]->at(pos).y()), view.tableValue(pos, d));
            const double expect = d % 2 == 0 ? std::sin(pos * div) : std::cos(pos * div);
            QVERIFY2(std::fabs(s[k]->at(pos).y() - expect) < 1e-4, qPrintable(QStringLiteral("dim %1 pos %2").arg(d).arg(pos)));
        }
    }
}

void TestPeView::dimensionsFromLineEdit() {
    PositionalEncodingView view;
    view.setDModel(32);
    auto* edit = view.findChild<QLineEdit*>(QStringLiteral("peDimsEdit"));
    QVERIFY(edit);
    edit->setText(QStringLiteral("0-3, 7 8"));
    QCOMPARE(view.plottedDimensions(), (QList<int>{0, 1, 2, 3, 7, 8}));
    QCOMPARE(lineSeries(view.chart()).size(), 6);
    edit->setText(QStringLiteral("5, 99, x"));  // 99 out of range, x not a number: both ignored
    QCOMPARE(view.plottedDimensions(), (QList<int>{5}));
    QCOMPARE(lineSeries(view.chart()).size(), 1);
    edit->clear();
    QCOMPARE(lineSeries(view.chart()).size(), 0);
}

void TestPeView::clickingColumnTogglesDimension() {
    PositionalEncodingView view;
    view.resize(1100, 750);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setDModel(16);
    view.setLength(10);
    view.setDimensions({0, 1});
    PeHeatmap* map = view.tableHeatmap();
    QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(3, 6).center().toPoint());
    QCOMPARE(view.plottedDimensions(), (QList<int>{0, 1, 6}));
    QTest::mouseClick(map, Qt::LeftButton, {}, map->cellRect(0, 0).center().toPoint());
    QCOMPARE(view.plottedDimensions(), (QList<int>{1, 6}));
}

void TestPeView::sumShowsEncoderThenDecoder() {
    const Config c = Config::small();
    auto trace = makeTrace(c);
    PositionalEncodingView view;
    view.setTrace(trace, c);
    view.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    QCOMPARE(view.sumSource(), QStringLiteral("encoder"));
    const Tensor& emb = trace->at("encoder.src_emb.out").value;
    const Tensor& pe = trace->at("encoder.pos_emb.pe").value;
    const Tensor& out = trace->at("encoder.pos_emb.out").value;
    QCOMPARE(view.sumHeatmap(0)->rows(), c.src_len);
    QCOMPARE(view.sumHeatmap(0)->cols(), c.d_model);
    for (int p : {0, 2, 4})
        for (int d : {0, 5, 31}) {
            QCOMPARE(view.sumHeatmap(0)->value(p, d), emb.at({0, p, d}));  // batch item 0
            QCOMPARE(view.sumHeatmap(1)->value(p, d), pe.at({p, d}));
            QCOMPARE(view.sumHeatmap(2)->value(p, d), out.at({0, p, d}));
            QVERIFY(std::fabs(view.sumHeatmap(0)->value(p, d) + view.sumHeatmap(1)->value(p, d) -
                              view.sumHeatmap(2)->value(p, d)) < 1e-5);
        }
    QVERIFY(view.sumHeatmap(0)->title().contains(QStringLiteral("encoder.src_emb.out")));
    // One colour scale for the three.
    QCOMPARE(view.sumHeatmap(0)->displayedAbsMax(), view.sumHeatmap(2)->displayedAbsMax());
    QCOMPARE(view.sumHeatmap(1)->displayedAbsMax(), view.sumHeatmap(2)->displayedAbsMax());

    view.setStep(QStringLiteral("decoder.layers.1.dec_enc_attn.attn"));
    QCOMPARE(view.sumSource(), QStringLiteral("decoder"));
    QCOMPARE(view.sumHeatmap(0)->rows(), c.tgt_len);
    QVERIFY(view.sumHeatmap(2)->title().contains(QStringLiteral("decoder.pos_emb.out")));
    QCOMPARE(view.sumHeatmap(2)->value(3, 9), trace->at("decoder.pos_emb.out").value.at({0, 3, 9}));
    view.setStep(QStringLiteral("grad.encoder.pos_emb.out"));
    QCOMPARE(view.sumSource(), QStringLiteral("encoder"));

    // No trace: nothing to add up, no crash.
    view.setTrace(nullptr, c);
    QCOMPARE(view.sumHeatmap(0)->rows(), 0);
}

void TestPeView::cellTooltipShowsTheSum() {
    const Config c = Config::small();
    auto trace = makeTrace(c);
    PositionalEncodingView view;
    view.resize(1100, 750);
    view.setTrace(trace, c);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    PeHeatmap* out = view.sumHeatmap(2);
    const QPoint at = out->cellRect(1, 3).center().toPoint();
    QHelpEvent ev(QEvent::ToolTip, at, out->mapToGlobal(at));
    QApplication::sendEvent(out, &ev);
    QTRY_VERIFY(QToolTip::isVisible());
    const QString text = QToolTip::text();
    QVERIFY2(text.contains(QStringLiteral("mochte")), qPrintable(text));  // token of position 1
    QVERIFY2(text.contains(QStringLiteral("embedding")) && text.contains(QStringLiteral("PE")), qPrintable(text));
    QVERIFY(text.contains(QString::number(static_cast<double>(trace->at("encoder.pos_emb.out").value.at({0, 1, 3})), 'g', 4)));
    QToolTip::hideText();
}

void TestPeView::grabIsNotBlank() {
    const Config c = Config::small();
    PositionalEncodingView view;
    view.resize(1100, 750);
    view.setTrace(makeTrace(c), c);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = view.grab().toImage();
    QVERIFY(!img.isNull());
    QVERIFY2(distinctColors(img) > 50, qPrintable(QString::number(distinctColors(img))));
    const QImage table = view.tableHeatmap()->grab().toImage();
    QVERIFY(distinctColors(table) > 10);
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestPeView t;
    return QTest::qExec(&t, argc, argv);
}

// Issue 14: a 512-column table in a few hundred pixels showed moiré stripes (columns sampled,
// not averaged). Columns alternating +1/−1 must come out as an even colour, not stripes.
void TestPeView::wideTableIsAveragedNotSampled() {
    PeHeatmap map;
    map.setShowColorBar(false);
    const int rows = 4, cols = 512;
    std::vector<float> v(size_t(rows) * cols);
    for (size_t i = 0; i < v.size(); ++i) v[i] = (i % 2 == 0) ? 1.0f : -1.0f;
    map.setMatrix(rows, cols, v);
    map.setValueRange(1.0f);
    map.resize(420, 200);
    const QImage img = map.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QRect cells = map.cellsRect().toAlignedRect().adjusted(3, 3, -3, -3);
    QVERIFY(cells.width() > 200 && cells.width() < cols);
    int worst = 0;
    const int y = cells.center().y();
    for (int x = cells.left(); x < cells.right(); ++x) {
        const QColor a = img.pixelColor(x, y), b = img.pixelColor(x + 1, y);
        worst = std::max({worst, std::abs(a.red() - b.red()), std::abs(a.green() - b.green()), std::abs(a.blue() - b.blue())});
    }
    // Sampled, neighbours jump between dark red and dark blue (differences over 150).
    QVERIFY2(worst <= 12, qPrintable(QString::number(worst)));
}

#include "test_pe_view.moc"
