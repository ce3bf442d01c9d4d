// Weights holding NaN or ±inf (a file from a run that diverged, a corrupted download): the app
// opens them and says so, naming the parameter; the weight page marks it in its list and paints
// the bad entries magenta; every view and step shows such a model without a crash or a Qt
// warning; training refuses to start from such a checkpoint, naming the parameter.
#include <cmath>
#include <limits>

#include <QComboBox>
#include <QLabel>
#include <QMessageBox>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QTest>

#include "app/main_window.h"
#include "app/session.h"
#include "stepformer/checkpoint.h"
#include "stepformer/config.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "test_util.h"
#include "training/training_panel.h"
#include "views/gradient_view.h"
#include "views/parameter_pane.h"
#include "widgets/colormap.h"
#include "widgets/heatmap_widget.h"

using namespace stepformer;

namespace {

// A decoder weight with one NaN (row 2, column 6 of a 64 × 32 matrix) and the output projection
// with a +inf: the encoder's numbers stay finite, the decoder's become NaN.
const char* const kNaNWeight = "decoder.layers.0.pos_ffn.fc.0.weight";
const char* const kInfWeight = "projection.weight";

ParamSet withBadEntries(const ParamSet& good) {
    ParamSet p = good;
    p.at(kNaNWeight).data[2 * 32 + 6] = std::numeric_limits<float>::quiet_NaN();
    p.at(kInfWeight).data[3] = std::numeric_limits<float>::infinity();
    return p;
}

}  // namespace

class TestNonFiniteWeights : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { testutil::recordQtWarnings(true); }
    void cleanupTestCase() { testutil::recordQtWarnings(false); }
    void opensTheModelAndMarksTheBadTensors();
    void trainingRefusesACheckpointWithThem();
};

void TestNonFiniteWeights::opensTheModelAndMarksTheBadTensors() {
    QTemporaryDir cache, dir;
    MainWindow w(testutil::smallWindow(cache.path()));
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const Config c = w.session()->config();
    const ParamSet bad = withBadEntries(*w.session()->params());
    std::vector<TensorToWrite> items;
    for (size_t i = 0; i < bad.size(); ++i) items.push_back({bad.name(i), &bad[i], DType::F32});
    const QString path = dir.filePath(QStringLiteral("diverged.safetensors"));
    write_safetensors(path.toStdString(), items, {{"stepformer.config", config_to_json_text(c)}});

    testutil::qtWarnings().clear();
    QSignalSpy warnings(w.session(), &Session::warningRaised);
    QVERIFY(w.session()->openWeights(path));
    QCOMPARE(warnings.count(), 1);
    const QString said = warnings.at(0).at(0).toString();
    for (const QString& part : {QStringLiteral("diverged.safetensors"), QString::fromLatin1(kNaNWeight),
                                QStringLiteral("holds 1 NaN or infinite values"), QStringLiteral("1 more parameter"),
                                QStringLiteral("magenta"), QStringLiteral("Training cannot start")})
        QVERIFY2(said.contains(part), qPrintable(said));
    bool boxShown = false;
    for (auto* box : w.findChildren<QMessageBox*>(QStringLiteral("errorMessageBox")))
        boxShown = boxShown || box->text().contains(QString::fromLatin1(kNaNWeight));
    QVERIFY(boxShown);
    // The model is the file's, not repaired.
    QVERIFY(std::isnan(w.session()->params()->at(kNaNWeight).data[70]));

    // The weight page: both parameters marked in the list, the NaN entry magenta, the stats say where.
    QVERIFY(w.setCurrentView(QStringLiteral("gradients")));
    GradientView* gv = w.gradientView();
    QVERIFY(gv->showParameter(QString::fromLatin1(kNaNWeight)));
    auto* pane = gv->findChild<ParameterPane*>();
    QVERIFY(pane);
    QCOMPARE(pane->notFiniteParameters(), QStringList({QString::fromLatin1(kNaNWeight), QString::fromLatin1(kInfWeight)}));
    auto* picker = gv->findChild<QComboBox*>(QStringLiteral("parameterPicker"));
    int marked = 0;
    for (int i = 0; i < picker->count(); ++i) {
        const bool isBad = pane->notFiniteParameters().contains(picker->itemData(i).toString());
        QCOMPARE(picker->itemText(i).contains(QStringLiteral("NaN/inf")), isBad);
        QCOMPARE(!picker->itemIcon(i).isNull(), isBad);
        marked += isBad;
    }
    QCOMPARE(marked, 2);
    pane->setShownMatrix(ParameterPane::Matrix::Weight);
    // 64 × 32: drawn in blocks of rows where the page is short; the NaN wins its block either way.
    auto* h = pane->weightHeatmap();
    const int rowStep = (64 + h->rows() - 1) / h->rows();
    QCOMPARE(h->cols(), 32);
    int nanCells = 0;
    for (int r = 0; r < h->rows(); ++r)
        for (int c = 0; c < h->cols(); ++c) nanCells += std::isnan(h->value(r, c));
    QCOMPARE(nanCells, 1);
    QVERIFY(std::isnan(h->value(2 / rowStep, 6)));
    QCOMPARE(h->colorAt(2 / rowStep, 6), Colormap::nanColor());
    QTest::qWait(50);
    testutil::saveShot(w, QStringLiteral("non_finite_weight_page.png"));
    auto* stats = pane->findChild<QLabel*>(QStringLiteral("paramStatsLabel"));
    QVERIFY(stats);
    QVERIFY2(stats->text().contains(QStringLiteral("row 2, column 6")), qPrintable(stats->text()));
    QVERIFY(gv->showParameter(QStringLiteral("encoder.layers.0.pos_ffn.fc.0.weight")));
    QVERIFY(!stats->text().contains(QStringLiteral("NaN")));

    // Every view and step of the model shows without a crash or a Qt warning.
    int steps = 0;
    VERIFY_HELPER(testutil::walkEveryStep(w, [&](const QString&) -> QString {
        ++steps;
        return testutil::qtWarnings().isEmpty() ? QString() : testutil::qtWarnings().join(QLatin1Char('\n'));
    }));
    QVERIFY(steps > 100);
    QVERIFY2(testutil::qtWarnings().isEmpty(), qPrintable(testutil::qtWarnings().join(QLatin1Char('\n'))));
}

void TestNonFiniteWeights::trainingRefusesACheckpointWithThem() {
    QTemporaryDir cache, dir;
    MainWindow w(testutil::smallWindow(cache.path()));
    const Transformer model(w.session()->config(), withBadEntries(*w.session()->params()));
    const QString path = dir.filePath(QStringLiteral("diverged.checkpoint.safetensors"));
    save_checkpoint(path.toStdString(), model);
    QString error;
    QVERIFY(!w.trainingPanel()->loadCheckpointForResume(path, &error));
    QVERIFY2(error.contains(QString::fromLatin1(kNaNWeight)) && error.contains(QStringLiteral("NaN or infinite")),
             qPrintable(error));
}

QTEST_MAIN(TestNonFiniteWeights)
#include "test_non_finite_weights.moc"
