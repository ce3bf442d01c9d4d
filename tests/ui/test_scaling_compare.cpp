// Issue 18's side-by-side score scaling: (q/√d_k)·kᵀ (A, PyTorch and aiayn) next to (q·kᵀ)/√d_k
// (B, the tutorial), computed from a trace's P.Q and P.K. Checks which one each model's own
// P.scores is, that the orders differ where √d_k is not a power of two, and that with d_k = 4
// they are the same bits and the window says why.
#include <QAction>
#include <QLabel>
#include <QMenu>
#include <QTemporaryDir>
#include <QTest>

#include "app/main_window.h"
#include "compare/scaling_compare_window.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "test_util.h"
#include "widgets/heatmap_widget.h"

using namespace stepformer;

namespace {

std::shared_ptr<const Trace> traceOf(const Config& c, const ParamSet& params) {
    Transformer model(c, params);
    auto t = std::make_shared<Trace>();
    model.forward(make_batch(c, {"ich mochte ein bier P", "ich mochte ein cola P"}, {"S i want a beer .", "S i want a coke ."}),
                  *t);
    return t;
}

QString labelText(QWidget& w, const char* name) {
    auto* l = w.findChild<QLabel*>(QString::fromLatin1(name));
    return l ? l->text() : QStringLiteral("<no label %1>").arg(QString::fromLatin1(name));
}

// Every block, sentence and head: how many (block, head) panels have P.scores == A / == B bit for
// bit, and how many cells A and B differ in, in all.
struct Tally {
    int panels = 0, traceIsA = 0, traceIsB = 0, traceIsEngineA = 0, traceIsEngineB = 0, cellsDiffering = 0, cells = 0;
    int64_t maxUlp = 0, traceMaxUlpA = 0, traceMaxUlpB = 0;
    double softmax = 0.0;
};
Tally tally(ScalingCompareWindow& w, const Trace& tr) {
    Tally t;
    for (const auto& block : scaling::attentionBlocks(tr)) {
        if (!w.setBlock(QString::fromStdString(block))) continue;
        const auto& q = tr.at(block + ".Q").value;
        for (int s = 0; s < q.dim(0); ++s)
            for (int h = 0; h < q.dim(1); ++h) {
                w.setSentence(s);
                w.setHead(h);
                const auto& c = w.comparison();
                if (!c.ok() || c.sentence != s || c.head != h) continue;
                ++t.panels;
                t.traceIsA += c.traceVsA.equal();
                t.traceIsB += c.traceVsB.equal();
                t.traceIsEngineA += c.traceVsEngineA.equal();
                t.traceIsEngineB += c.traceVsEngineB.equal();
                t.traceMaxUlpA = std::max(t.traceMaxUlpA, c.traceVsA.maxUlp);
                t.traceMaxUlpB = std::max(t.traceMaxUlpB, c.traceVsB.maxUlp);
                t.cells += c.rows * c.cols;
                t.softmax = std::max(t.softmax, c.softmaxMaxAbs);
                t.cellsDiffering += c.aVsB.differing;
                t.maxUlp = std::max(t.maxUlp, c.aVsB.maxUlp);
            }
    }
    qInfo("%d panels, %d cells: A vs B %d differ, max %lld ulp, softmax max %.3g; trace == plain A %d, B %d (max ulp %lld / "
          "%lld); == engine A %d, engine B %d",
          t.panels, t.cells, t.cellsDiffering, static_cast<long long>(t.maxUlp), t.softmax, t.traceIsA, t.traceIsB,
          static_cast<long long>(t.traceMaxUlpA), static_cast<long long>(t.traceMaxUlpB), t.traceIsEngineA, t.traceIsEngineB);
    return t;
}

}  // namespace

class TestScalingCompare : public QObject {
    Q_OBJECT
private slots:
    void tutorialScoresAreTheProductScaled();
    void aiaynScoresAreTheQueryScaled();
    void torchScoresHaveTheQueryFirstRounding();
    void trainedSmallModelDiffers();
    void powerOfFourDkGivesTheSameBits();
    void aiaynFixtureWithDk4IsIdentical();
    void ulpDistanceCountsFloats();
    void menuEntryOpensTheWindow();
};

void TestScalingCompare::tutorialScoresAreTheProductScaled() {
    const Config c = Config::small();
    QCOMPARE(c.d_k, 8);
    const auto tr = traceOf(c, init_params(c, 7));
    ScalingCompareWindow w;
    w.resize(1366, 768);
    w.setTrace(tr);
    const Tally t = tally(w, *tr);
    QCOMPARE(t.panels, 2 * 3 * 2 * 4);  // 2 sentences x (2 encoder + 4 decoder blocks) x 4 heads
    // The trace is B's order bit for bit (replayed in the engine's summation order), never A's; the
    // plain loops sum in another order than Eigen's, so they match it only to some ulps.
    QCOMPARE(t.traceIsEngineB, t.panels);
    QVERIFY(t.traceIsEngineA < t.panels);
    QVERIFY(t.cellsDiffering > 0);
    QVERIFY(t.maxUlp >= 1);

    QVERIFY(w.setBlock(QStringLiteral("encoder.layers.0.enc_self_attn")));
    w.setSentence(0);
    w.setHead(0);
    QVERIFY2(labelText(w, "scalingTraceVerdict").contains(QStringLiteral("is <b>B</b>'s rounding: bit for bit")),
             qPrintable(labelText(w, "scalingTraceVerdict")));
    QVERIFY(labelText(w, "scalingExplanation").contains(QStringLiteral("not a power of two")));
    auto* a = w.findChild<HeatmapWidget*>(QStringLiteral("scalingA"));
    QVERIFY(a);
    QCOMPARE(a->rows(), 5);
    QCOMPARE(a->colLabels().value(0), QStringLiteral("ich"));
    testutil::saveShot(w, QStringLiteral("scaling_tutorial_dk8.png"));
}

void TestScalingCompare::aiaynScoresAreTheQueryScaled() {
    const Config c = Config::aiayn_small();
    QCOMPARE(c.d_k, 8);
    const auto tr = traceOf(c, init_params(c, 3));
    ScalingCompareWindow w;
    w.setTrace(tr);
    const Tally t = tally(w, *tr);
    QVERIFY(t.panels > 0);
    QCOMPARE(t.traceIsEngineA, t.panels);
    QVERIFY(t.traceIsEngineB < t.panels);
    QVERIFY(t.cellsDiffering > 0);
    QVERIFY(labelText(w, "scalingTraceVerdict").contains(QStringLiteral("attention-is-all-you-need-pytorch")));
}

// PyTorch scales the query first (A), and so does Stepformer's torch model (Attrs::scale_query in core/src/models/torch.cpp):
// its trace has A's rounding, not the tutorial's.
void TestScalingCompare::torchScoresHaveTheQueryFirstRounding() {
    const Config c = Config::torch_small();
    QCOMPARE(c.d_model / c.n_heads, 8);
    const auto tr = traceOf(c, init_params(c, 2));
    ScalingCompareWindow w;
    w.resize(1366, 768);
    w.setTrace(tr);
    const Tally t = tally(w, *tr);
    QVERIFY(t.panels > 0);
    QCOMPARE(t.traceIsEngineA, t.panels);
    QVERIFY(t.traceIsEngineB < t.panels);
    QVERIFY(t.cellsDiffering > 0);
    QVERIFY(labelText(w, "scalingTraceVerdict").contains(QStringLiteral("PyTorch's nn.Transformer layers")));
    QVERIFY(w.setBlock(QStringLiteral("transformer.decoder.layers.0.self_attn")));
    w.setHead(1);
    testutil::saveShot(w, QStringLiteral("scaling_torch_dk8.png"));
}

// The trained Small model (the "small" preset's recipe): real scores, real differences.
void TestScalingCompare::trainedSmallModelDiffers() {
    const auto& small = testutil::trainedSmall();
    Trace* raw = new Trace;
    small.model->forward(make_batch(small.config, {"ich mochte ein bier P"}, {"S i want a beer ."}), *raw);
    const std::shared_ptr<const Trace> tr(raw);
    ScalingCompareWindow w;
    w.setTrace(tr);
    const Tally t = tally(w, *tr);
    QCOMPARE(t.traceIsEngineB, t.panels);
    QVERIFY(t.cellsDiffering > 0);
    QVERIFY(t.softmax > 0.0 && t.softmax < 1e-5);
}

void TestScalingCompare::powerOfFourDkGivesTheSameBits() {
    for (Config c : {Config::small(), Config::aiayn_small()}) {
        c.d_k = c.d_v = 4;
        const auto tr = traceOf(c, init_params(c, 5));
        ScalingCompareWindow w;
        w.setTrace(tr);
        const Tally t = tally(w, *tr);
        QVERIFY(t.panels > 0);
        QCOMPARE(t.cellsDiffering, 0);
        QCOMPARE(t.traceIsEngineA, t.panels);
        QCOMPARE(t.traceIsEngineB, t.panels);
        QVERIFY(w.comparison().sqrtIsPowerOfTwo);
        QVERIFY2(labelText(w, "scalingSummary").contains(QStringLiteral("0 of")), qPrintable(labelText(w, "scalingSummary")));
        QVERIFY(labelText(w, "scalingExplanation").contains(QStringLiteral("is a power of 4")));
    }
}

void TestScalingCompare::aiaynFixtureWithDk4IsIdentical() {
    const auto loaded = load_weights(STEPFORMER_FIXTURES_DIR "/aiayn/unshared_none.weights.safetensors", nullptr);
    QCOMPARE(loaded.config.d_k, 4);
    const auto tr = traceOf(loaded.config, loaded.params);
    ScalingCompareWindow w;
    w.resize(1366, 768);
    w.setTrace(tr);
    const Tally t = tally(w, *tr);
    QVERIFY(t.panels > 0);
    QCOMPARE(t.cellsDiffering, 0);
    QCOMPARE(t.traceIsEngineA, t.panels);
    QVERIFY(labelText(w, "scalingExplanation").contains(QStringLiteral("Why they are identical here")));
    testutil::saveShot(w, QStringLiteral("scaling_aiayn_fixture_dk4.png"));
}

void TestScalingCompare::ulpDistanceCountsFloats() {
    QCOMPARE(scaling::ulpDistance(1.0f, std::nextafter(1.0f, 2.0f)), int64_t(1));
    QCOMPARE(scaling::ulpDistance(0.0f, -0.0f), int64_t(0));
    QCOMPARE(scaling::ulpDistance(-std::numeric_limits<float>::denorm_min(), std::numeric_limits<float>::denorm_min()),
             int64_t(2));
    QCOMPARE(scaling::ulpDistance(1.0f, 1.0f + 3 * std::numeric_limits<float>::epsilon()), int64_t(3));
}

void TestScalingCompare::menuEntryOpensTheWindow() {
    QTemporaryDir cache;
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Untrained;
    o.provisioning = Session::Provisioning::Never;
    o.cacheDir = cache.path();
    MainWindow mw(o);
    auto* act = mw.findChild<QAction*>(QStringLiteral("actionCompareScaling"));
    QVERIFY(act);
    auto* menu = mw.findChild<QMenu*>(QStringLiteral("menuView"));
    QVERIFY(menu && menu->actions().contains(act));
    QVERIFY(!mw.findChild<ScalingCompareWindow*>());
    QVERIFY(mw.setCurrentStep(QStringLiteral("decoder.layers.1.dec_enc_attn.scores")));
    act->trigger();
    auto* w = mw.findChild<ScalingCompareWindow*>();
    QVERIFY(w && w->isVisible());
    QCOMPARE(w->comparison().block, std::string("decoder.layers.1.dec_enc_attn"));
    // The untrained tutorial preset: d_k 64, √64 = 8, identical bits.
    QCOMPARE(w->comparison().dk, 64);
    QCOMPARE(w->comparison().aVsB.differing, 0);
    QVERIFY(w->comparison().traceVsEngineB.equal());
    QVERIFY(w->comparison().traceVsEngineA.equal());
}

QTEST_MAIN(TestScalingCompare)
#include "test_scaling_compare.moc"
