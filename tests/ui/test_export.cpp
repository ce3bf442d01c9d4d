// Export helpers: PNG / SVG of a widget, CSV / NPY of a tensor (round-trips), errors that name
// the path, and atomic writes (a failed export leaves the previous file intact); the loss curve as
// CSV and PNG, the whole trace or its gradients as .npz.
#include <QtTest>

#include <QAbstractAxis>
#include <QAction>
#include <QApplication>
#include <QChartView>
#include <QSplitter>
#include <QStandardPaths>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <QTemporaryDir>

#include "architecture/architecture_diagram.h"
#include "app/main_window.h"
#include "app/session.h"
#include "training/loss_chart.h"
#include "app/export.h"
#include "widgets/heatmap_widget.h"
#include "stepformer/atomic_file.h"
#include "stepformer/npy.h"
#include "test_util.h"

using namespace stepformer;

namespace {

Tensor sampleTensor() {
    Tensor t({2, 3, 4});
    for (size_t i = 0; i < t.data.size(); ++i) t.data[i] = static_cast<float>(i) * 0.37f - 3.1f + 1e-7f * static_cast<float>(i * i);
    t.data[5] = 1.0f / 3.0f;
    t.data[6] = -1e9f;
    return t;
}

QByteArray readAll(const QString& path) {
    QFile f(path);
    if (!f.open(QIODevice::ReadOnly)) return {};
    return f.readAll();
}

// Parses tensor_to_csv output back into values (skipping the "# shape" line).
std::vector<float> parseCsv(const QByteArray& text) {
    std::vector<float> out;
    for (const QByteArray& line : text.split('\n')) {
        if (line.isEmpty() || line.startsWith('#')) continue;
        for (const QByteArray& cell : line.split(',')) out.push_back(std::strtof(cell.trimmed().constData(), nullptr));
    }
    return out;
}

const QString kBadDir = QStringLiteral("/nonexistent-stepformer-dir/sub");

}  // namespace

class TestExport : public QObject {
    Q_OBJECT
private slots:
    void png();
    void svg();
    void csvRoundTrip();
    void npyRoundTrip();
    void unwritablePath_data();
    void unwritablePath();
    void failedExportKeepsOldFile();
    void nullWidget();
    void svgHeatmapIsVectorWithoutControls();
    void lossCurveSavesAsCsvAndPng();  // the Train dock's curve, right click
    void traceAndGradientsExportAsNpz();
};

void TestExport::png() {
    QTemporaryDir dir;
    ArchitectureDiagram d;
    d.resize(320, 480);
    d.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    const QString path = dir.filePath(QStringLiteral("diagram.png"));
    QString err;
    QVERIFY2(exportWidgetPng(&d, path, &err), qPrintable(err));
    QVERIFY(QFileInfo(path).size() > 1000);
    QImage img(path);
    QVERIFY(!img.isNull());
    QCOMPARE(img.size(), QSize(320, 480));
    // No temporary file left beside it.
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("diagram.png")});
}

void TestExport::svg() {
    QTemporaryDir dir;
    ArchitectureDiagram d;
    d.resize(320, 480);
    const QString path = dir.filePath(QStringLiteral("diagram.svg"));
    QString err;
    QVERIFY2(exportWidgetSvg(&d, path, &err), qPrintable(err));
    const QByteArray svg = readAll(path);
    QVERIFY(svg.size() > 1000);
    QVERIFY(svg.contains("<svg"));
    QVERIFY(svg.contains("</svg>"));
    QVERIFY(svg.contains("Multi-Head"));  // text stays text
}

void TestExport::csvRoundTrip() {
    QTemporaryDir dir;
    const Tensor t = sampleTensor();
    const QString path = dir.filePath(QStringLiteral("t.csv"));
    QString err;
    QVERIFY2(exportTensorCsv(t, path, &err), qPrintable(err));
    const QByteArray text = readAll(path);
    QCOMPARE(text.toStdString(), tensor_to_csv(t));
    QVERIFY(text.startsWith("# shape [2, 3, 4]\n"));
    const std::vector<float> back = parseCsv(text);
    QCOMPARE(back.size(), t.data.size());
    for (size_t i = 0; i < back.size(); ++i) QCOMPARE(back[i], t.data[i]);  // %.9g: exact
}

void TestExport::npyRoundTrip() {
    QTemporaryDir dir;
    const Tensor t = sampleTensor();
    const QString path = dir.filePath(QStringLiteral("t.npy"));
    QString err;
    QVERIFY2(exportTensorNpy(t, path, &err), qPrintable(err));
    const Tensor back = read_npy(path.toStdString());
    QCOMPARE(back.shape, t.shape);
    QCOMPARE(back.data, t.data);
}

void TestExport::unwritablePath_data() {
    QTest::addColumn<QString>("kind");
    QTest::newRow("png") << "png";
    QTest::newRow("svg") << "svg";
    QTest::newRow("csv") << "csv";
    QTest::newRow("npy") << "npy";
}

void TestExport::unwritablePath() {
    QFETCH(QString, kind);
    const QString path = kBadDir + QStringLiteral("/out.") + kind;
    QLabel label(QStringLiteral("hello"));
    label.resize(100, 40);
    QString err;
    bool ok = true;
    if (kind == QLatin1String("png")) ok = exportWidgetPng(&label, path, &err);
    if (kind == QLatin1String("svg")) ok = exportWidgetSvg(&label, path, &err);
    if (kind == QLatin1String("csv")) ok = exportTensorCsv(sampleTensor(), path, &err);
    if (kind == QLatin1String("npy")) ok = exportTensorNpy(sampleTensor(), path, &err);
    QVERIFY(!ok);
    QVERIFY2(err.contains(path), qPrintable(err));
    QVERIFY(!QFile::exists(path));
    // Without an error pointer it still fails cleanly.
    QVERIFY(!exportTensorCsv(sampleTensor(), path, nullptr));
}

void TestExport::failedExportKeepsOldFile() {
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("t.csv"));
    QString err;
    Tensor first({2}, std::vector<float>{1.0f, 2.0f});
    QVERIFY2(exportTensorCsv(first, path, &err), qPrintable(err));
    const QByteArray before = readAll(path);
    set_atomic_write_fault_for_testing(4);  // the next write dies after 4 bytes
    QVERIFY(!exportTensorCsv(sampleTensor(), path, &err));
    QVERIFY2(err.contains(path), qPrintable(err));
    QCOMPARE(readAll(path), before);
    QCOMPARE(QDir(dir.path()).entryList(QDir::Files), QStringList{QStringLiteral("t.csv")});
    set_atomic_write_fault_for_testing(-1);
}

void TestExport::nullWidget() {
    QString err;
    QVERIFY(!exportWidgetPng(nullptr, QStringLiteral("/tmp/x.png"), &err));
    QVERIFY(err.contains(QStringLiteral("/tmp/x.png")));
    QVERIFY(!exportWidgetSvg(nullptr, QStringLiteral("/tmp/x.svg"), &err));
    QVERIFY(!exportTensorNpy(sampleTensor(), QString(), &err));
    QVERIFY(!err.isEmpty());
}

// A view with a heatmap and a button: the SVG has a rectangle per cell, not a bitmap of the
// cells, and not the button (its text is nowhere in the file).
void TestExport::svgHeatmapIsVectorWithoutControls() {
    QWidget view;
    auto* layout = new QVBoxLayout(&view);
    auto* button = new QPushButton(QStringLiteral("ZoomButtonXYZ"), &view);
    auto* map = new HeatmapWidget(&view);
    layout->addWidget(button);
    layout->addWidget(map);
    std::vector<float> values(6 * 7);
    for (size_t i = 0; i < values.size(); ++i) values[i] = float(i) * 0.37f - 5.0f;
    map->setMatrix(6, 7, values);
    map->setTitle(QStringLiteral("scores"));
    view.resize(600, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("view.svg"));
    QString err;
    QVERIFY2(exportWidgetSvg(&view, path, &err), qPrintable(err));
    const QByteArray svg = readAll(path);
    QVERIFY2(!svg.contains("ZoomButtonXYZ"), "the button is in the SVG");
    QVERIFY(svg.contains("scores"));
    // Each cell a filled shape of its own colour: all 42 cells' colours appear as fills.
    int fills = 0;
    for (int r = 0; r < 6; ++r)
        for (int c = 0; c < 7; ++c)
            if (svg.contains(map->colorAt(r, c).name().toLatin1())) ++fills;
    QCOMPARE(fills, 42);
    // The cells are not a bitmap (the legend's colour bar may be one).
    QVERIFY2(svg.count("<image") <= 1, qPrintable(QString::number(svg.count("<image"))));
}

void TestExport::lossCurveSavesAsCsvAndPng() {
    LossChart chart;
    chart.resize(600, 400);
    chart.show();
    QVERIFY(QTest::qWaitForWindowExposed(&chart));
    QTemporaryDir dir;
    QString err;
    QVERIFY(!chart.saveCsv(dir.filePath(QStringLiteral("empty.csv")), &err));  // nothing yet: said
    QVERIFY(err.contains(QStringLiteral("empty.csv")));
    QVERIFY(!QFile::exists(dir.filePath(QStringLiteral("empty.csv"))));
    for (int s = 1; s <= 5; ++s) chart.addStep(s, 2.0 / s, 0.5 * s, 1e-3);
    chart.flush();
    const QStringList lines = chart.csv().trimmed().split(QLatin1Char('\n'));
    QCOMPARE(lines.size(), 6);
    QCOMPARE(lines[0], QStringLiteral("step,loss,smoothed,grad_norm,lr"));
    QCOMPARE(lines[2].split(QLatin1Char(',')).value(0), QStringLiteral("2"));
    QCOMPARE(lines[2].split(QLatin1Char(',')).value(1).toDouble(), 1.0);
    QCOMPARE(lines[2].split(QLatin1Char(',')).value(3).toDouble(), 1.0);
    QVERIFY2(chart.saveCsv(dir.filePath(QStringLiteral("loss.csv")), &err), qPrintable(err));
    QFile f(dir.filePath(QStringLiteral("loss.csv")));
    QVERIFY(f.open(QIODevice::ReadOnly));
    QCOMPARE(QString::fromUtf8(f.readAll()), chart.csv());
    QVERIFY2(chart.savePng(dir.filePath(QStringLiteral("loss.png")), &err), qPrintable(err));
    const QImage png(dir.filePath(QStringLiteral("loss.png")));
    QVERIFY(!png.isNull());
    QVERIFY(png.height() > chart.lossView()->height());  // both charts, one above the other
    // A wide, short panel (a projector's training layout): side by side, each with the height.
    auto* split = chart.findChild<QSplitter*>(QStringLiteral("lossChartSplit"));
    QVERIFY(split);
    QCOMPARE(split->orientation(), Qt::Vertical);
    chart.resize(1200, 380);
    QTRY_COMPARE(split->orientation(), Qt::Horizontal);
    QTRY_VERIFY(chart.statsView()->height() > 300);
    QVERIFY(chart.statsView()->width() > 300 && chart.lossView()->width() > chart.statsView()->width());
    QVERIFY2(chart.savePng(dir.filePath(QStringLiteral("wide.png")), &err), qPrintable(err));
    QVERIFY(QImage(dir.filePath(QStringLiteral("wide.png"))).width() > chart.lossView()->width() + chart.statsView()->width());
}

void TestExport::traceAndGradientsExportAsNpz() {
    QTemporaryDir cache;
    QStandardPaths::setTestModeEnabled(true);
    MainWindow w(testutil::smallWindow(cache.path()));
    QVERIFY(w.findChild<QAction*>(QStringLiteral("actionExportTraceNpz")));
    QVERIFY(w.findChild<QAction*>(QStringLiteral("actionExportGradientsNpz")));
    const auto trace = w.session()->trace();
    QVERIFY(trace);
    QTemporaryDir dir;
    for (const bool gradients : {false, true}) {
        const QString path = dir.filePath(gradients ? QStringLiteral("g.npz") : QStringLiteral("t.npz"));
        QString err;
        QVERIFY2(exportTraceNpz(*trace, gradients, path, &err), qPrintable(err));
        QFile f(path);
        QVERIFY(f.open(QIODevice::ReadOnly));
        const QByteArray bytes = f.readAll();
        QVERIFY(bytes.startsWith(QByteArray("PK\x03\x04", 4)));
        int expected = 0;
        for (const auto& e : trace->entries())
            if ((e.name.rfind("grad.", 0) == 0) == gradients && !e.value.data.empty()) {
                ++expected;
                QVERIFY2(bytes.contains(QByteArray::fromStdString(e.name + ".npy")), e.name.c_str());
            }
        // One local header and one central record per tensor (the core's test reads them back).
        QCOMPARE(int(bytes.count(QByteArray("PK\x03\x04", 4))), expected);
        QCOMPARE(int(bytes.count(QByteArray("PK\x01\x02", 4))), expected);
        QVERIFY(expected > 10);
    }
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestExport t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_export.moc"
