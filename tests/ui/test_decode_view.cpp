// DecodeView: the animated greedy decoder reaches the end token in as many steps as the core's
// greedy_decode, with the same tokens; the bar chart's highest bar is the highlighted (chosen)
// token at every step; the attention heatmaps grow by one query row per step and hold the
// step's trace values; step / play / reset; large models decode off the UI thread.
#include <limits>

#include <QtTest>

#include <QApplication>
#include <QBarCategoryAxis>
#include <QBarSeries>
#include <QBarSet>
#include <QChart>
#include <QSet>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QValueAxis>
#include <QToolButton>

#include <cmath>
#include <memory>

#include "app/appearance.h"
#include "app/main_window.h"
#include "views/decode_view.h"
#include "views/message_stack.h"
#include "widgets/heatmap_widget.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/model.h"
#include "stepformer/train.h"
#include "test_util.h"

using namespace stepformer;
using testutil::distinctColors;
using testutil::saveShot;
using testutil::trainedModel;

namespace {

QStringList tokens(const Config& c, const std::vector<int>& ids) {
    QStringList out;
    for (int id : ids) out << QString::fromStdString(c.tgt_vocab[size_t(id)]);
    return out;
}

}  // namespace

class TestDecodeView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void objectNamesAndEmptyState();
    void reachesTheEndTokenLikeTheCore_data();
    void reachesTheEndTokenLikeTheCore();
    void highestBarIsTheHighlightedChosenToken();
    void attentionGrowsByOneQueryPerStep();
    void headAndLayerPickers();
    void playRunsToTheEndAndResetGoesBack();
    void invalidSourceShowsTheReason();
    void modelFromConfigAndParams();
    void largeModelDecodesOffTheUiThread();
    void exportsTheCurrentProbabilities();
    void notFiniteProbabilitiesAreDrawnAsZero();
    void grabIsNotBlank();
    void barValuesNeverRunTogether();
    void valueAxisTitleIsNeverCut();
    void attentionWeightsSayTheyAreWeights();
    void wholeInTheWindowAtLaptopSizes_data();
    void wholeInTheWindowAtLaptopSizes();

private:
    QTemporaryDir cache_;
};

void TestDecodeView::initTestCase() {
    const auto m = trainedModel();
    // The model really learned: the decode below is meaningful.
    QCOMPARE(QString::fromStdString(greedy_decode(*m, "ich mochte ein bier P").text), QStringLiteral("i want a beer ."));
}

void TestDecodeView::objectNamesAndEmptyState() {
    DecodeView view;
    QCOMPARE(view.objectName(), QStringLiteral("decodeView"));
    for (const char* n : {"decodeStepButton", "decodePlayButton", "decodeResetButton"})
        QVERIFY2(view.findChild<QToolButton*>(QString::fromLatin1(n)), n);
    QVERIFY(view.findChild<QSpinBox*>(QStringLiteral("decodeHeadPicker")));
    QVERIFY(view.findChild<HeatmapWidget*>(QStringLiteral("decodeSelfAttnHeatmap")));
    QVERIFY(view.findChild<HeatmapWidget*>(QStringLiteral("decodeCrossAttnHeatmap")));
    QCOMPARE(view.stepCount(), 0);
    QCOMPARE(view.currentStep(), -1);
    QVERIFY(view.tokensSoFar().isEmpty());
    QCOMPARE(view.currentTensor(), nullptr);
    QVERIFY(!view.findChild<QToolButton*>(QStringLiteral("decodeStepButton"))->isEnabled());
}

void TestDecodeView::reachesTheEndTokenLikeTheCore_data() {
    QTest::addColumn<QString>("source");
    QTest::newRow("beer") << QStringLiteral("ich mochte ein bier P");
    QTest::newRow("coke") << QStringLiteral("ich mochte ein cola P");
}

void TestDecodeView::reachesTheEndTokenLikeTheCore() {
    QFETCH(QString, source);
    const auto model = trainedModel();
    const Config& c = model->config();
    const DecodeResult core = greedy_decode(*model, source.toStdString(), true);
    QVERIFY(core.reached_eos);

    DecodeView view;
    view.setModel(model);
    view.setSource(source);
    QVERIFY(view.waitForDecode());
    QCOMPARE(view.stepCount(), int(core.steps.size()));
    QCOMPARE(view.currentStep(), 0);
    QVERIFY(view.reachedEos());
    QCOMPARE(view.translation(), QString::fromStdString(core.text));

    auto* stepButton = view.findChild<QToolButton*>(QStringLiteral("decodeStepButton"));
    int clicks = 0;
    while (stepButton->isEnabled()) {
        const int i = view.currentStep();
        QCOMPARE(view.decoderInput(), tokens(c, core.steps[size_t(i)].dec_input));
        QCOMPARE(view.tokensSoFar(), tokens(c, std::vector<int>(core.tokens.begin(), core.tokens.begin() + i + 1)));
        QTest::mouseClick(stepButton, Qt::LeftButton);
        QCOMPARE(view.currentStep(), i + 1);
        QVERIFY(++clicks < 100);
    }
    // The end token, in as many steps as the core took.
    QCOMPARE(clicks + 1, int(core.steps.size()));
    QCOMPARE(view.currentStep(), view.stepCount() - 1);
    QCOMPARE(view.tokensSoFar(), tokens(c, core.tokens));
    QCOMPARE(view.tokensSoFar().last(), QString::fromStdString(c.eos));
    QCOMPARE(view.decoderInput(), tokens(c, core.steps.back().dec_input));
}

void TestDecodeView::highestBarIsTheHighlightedChosenToken() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const DecodeResult core = greedy_decode(*model, "ich mochte ein bier P", true);
    DecodeView view;
    view.setModel(model);
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    QStringList vocab;
    for (const auto& t : c.tgt_vocab) vocab << QString::fromStdString(t);
    for (int i = 0; i < view.stepCount(); ++i) {
        view.setCurrentStep(i);
        QCOMPARE(view.currentStep(), i);
        QCOMPARE(view.barCategories(), vocab);
        const auto values = view.barValues();
        QCOMPARE(values.size(), core.steps[size_t(i)].probs.size());
        for (size_t v = 0; v < values.size(); ++v) QCOMPARE(values[v], core.steps[size_t(i)].probs[v]);
        QCOMPARE(view.highestBarIndex(), core.steps[size_t(i)].chosen);
        QCOMPARE(view.highlightedBarIndex(), core.steps[size_t(i)].chosen);
        QCOMPARE(view.highestBarIndex(), view.highlightedBarIndex());
    }
}

void TestDecodeView::attentionGrowsByOneQueryPerStep() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const DecodeResult core = greedy_decode(*model, "ich mochte ein bier P", true);
    DecodeView view;
    view.setModel(model);
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    QCOMPARE(view.layerIndex(), -1);  // the last layer
    const std::string last = "decoder.layers." + std::to_string(c.n_layers - 1) + ".";
    for (int i = 0; i < view.stepCount(); ++i) {
        view.setCurrentStep(i);
        HeatmapWidget* self = view.selfAttentionHeatmap();
        HeatmapWidget* cross = view.crossAttentionHeatmap();
        QCOMPARE(self->rows(), i + 1);
        QCOMPARE(self->cols(), i + 1);
        QCOMPARE(cross->rows(), i + 1);
        QCOMPARE(cross->cols(), c.src_len);
        QCOMPARE(self->rowLabels(), tokens(c, core.steps[size_t(i)].dec_input));
        const Tensor& sa = core.steps[size_t(i)].trace.at(last + "dec_self_attn.attn").value;  // [1, H, T, T]
        const Tensor& ca = core.steps[size_t(i)].trace.at(last + "dec_enc_attn.attn").value;  // [1, H, T, S]
        for (int r = 0; r <= i; ++r) {
            for (int k = 0; k <= i; ++k) QCOMPARE(self->value(r, k), sa.at({0, 0, r, k}));
            for (int k = 0; k < c.src_len; ++k) QCOMPARE(cross->value(r, k), ca.at({0, 0, r, k}));
            // The causal mask: a query never looks at a later token.
            for (int k = r + 1; k <= i; ++k) QVERIFY(self->isMasked(r, k));
        }
    }
}

void TestDecodeView::headAndLayerPickers() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const DecodeResult core = greedy_decode(*model, "ich mochte ein bier P", true);
    DecodeView view;
    view.setModel(model);
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    view.setCurrentStep(3);
    auto* head = view.findChild<QSpinBox*>(QStringLiteral("decodeHeadPicker"));
    QCOMPARE(head->maximum(), c.n_heads - 1);
    head->setValue(2);
    QCOMPARE(view.headIndex(), 2);
    const Tensor& ca = core.steps[3].trace.at("decoder.layers.0.dec_enc_attn.attn").value;
    view.setLayerIndex(0);
    QCOMPARE(view.layerIndex(), 0);
    for (int k = 0; k < c.src_len; ++k) QCOMPARE(view.crossAttentionHeatmap()->value(3, k), ca.at({0, 2, 3, k}));
    QVERIFY(view.crossAttentionHeatmap()->title().contains(QStringLiteral("head 2")));
}

void TestDecodeView::playRunsToTheEndAndResetGoesBack() {
    DecodeView view;
    view.setModel(trainedModel());
    view.setSource(QStringLiteral("ich mochte ein cola P"));
    view.setPlayInterval(20);
    QSignalSpy steps(&view, &DecodeView::currentStepChanged);
    auto* play = view.findChild<QToolButton*>(QStringLiteral("decodePlayButton"));
    QTest::mouseClick(play, Qt::LeftButton);
    QVERIFY(view.isPlaying());
    QTRY_COMPARE(view.currentStep(), view.stepCount() - 1);
    QTRY_VERIFY(!view.isPlaying());
    QCOMPARE(steps.count(), view.stepCount() - 1);
    QCOMPARE(view.tokensSoFar().last(), QStringLiteral("E"));
    QTest::mouseClick(view.findChild<QToolButton*>(QStringLiteral("decodeResetButton")), Qt::LeftButton);
    QCOMPARE(view.currentStep(), 0);
    QCOMPARE(view.tokensSoFar(), QStringList{QStringLiteral("i")});
    QCOMPARE(view.decoderInput(), QStringList{QStringLiteral("S")});
}

void TestDecodeView::invalidSourceShowsTheReason() {
    DecodeView view;
    view.setModel(trainedModel());
    view.setSource(QStringLiteral("ich mochte ein wasser P"));
    QCOMPARE(view.stepCount(), 0);
    QCOMPARE(view.currentStep(), -1);
    QVERIFY2(view.errorMessage().contains(QStringLiteral("wasser")), qPrintable(view.errorMessage()));
    QVERIFY(!view.findChild<QToolButton*>(QStringLiteral("decodeStepButton"))->isEnabled());
    // And back to a good one.
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    QVERIFY(view.stepCount() > 0);
    QVERIFY(view.errorMessage().isEmpty());
}

void TestDecodeView::modelFromConfigAndParams() {
    const auto model = trainedModel();
    DecodeView view;
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    QCOMPARE(view.stepCount(), 0);
    view.setModel(model->config(), model->params());
    QVERIFY(view.waitForDecode());
    QCOMPARE(view.translation(), QStringLiteral("i want a beer ."));
}

void TestDecodeView::largeModelDecodesOffTheUiThread() {
    // The tutorial's size (about 40M parameters): decoded by a worker, the view keeps working.
    const Config c = Config::tutorial();
    auto model = std::make_shared<const Transformer>(c, init_params(c, 1));
    const DecodeResult core = greedy_decode(*model, "ich mochte ein bier P", true);
    DecodeView view;
    QSignalSpy done(&view, &DecodeView::decodeFinished);
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    view.setModel(model);
    QVERIFY(view.isDecoding());
    QCOMPARE(done.count(), 0);
    // Meanwhile the pane says so (it read "No model yet" until the worker finished).
    auto* pane = view.findChild<MessageStack*>();
    QVERIFY(pane);
    QCOMPARE(pane->message(), QStringLiteral("Decoding “ich mochte ein bier P”…"));
    QVERIFY(view.waitForDecode(60000));
    QCOMPARE(done.count(), 1);
    QCOMPARE(view.stepCount(), int(core.steps.size()));
    for (int i = 0; i < view.stepCount(); ++i) {
        view.setCurrentStep(i);
        QCOMPARE(view.highlightedBarIndex(), core.steps[size_t(i)].chosen);
    }
    // A new source while a decode is pending: only the latest result is shown.
    view.setSource(QStringLiteral("ich mochte ein cola P"));
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    QVERIFY(view.waitForDecode(60000));
    QTest::qWait(50);
    QCOMPARE(view.source(), QStringLiteral("ich mochte ein bier P"));
    QCOMPARE(view.tokensSoFar().first(), QString::fromStdString(c.tgt_vocab[size_t(core.tokens.front())]));
}

void TestDecodeView::exportsTheCurrentProbabilities() {
    const auto model = trainedModel();
    DecodeView view;
    view.setModel(model);
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    view.setCurrentStep(2);
    QCOMPARE(view.exportWidget(), static_cast<QWidget*>(&view));
    const Tensor* t = view.currentTensor();
    QVERIFY(t);
    QCOMPARE(t->shape, (Shape{model->config().tgt_vocab_size()}));
    const auto values = view.barValues();
    for (size_t v = 0; v < values.size(); ++v) QCOMPARE(t->data[v], values[v]);
    QCOMPARE(view.currentTensorName(), QStringLiteral("decode.step3.probs"));
}

// Weights that overflow (a file may hold NaN): the probabilities are NaN; the bars are drawn as 0
// with the title saying so, and Qt Charts has nothing to warn about.
void TestDecodeView::notFiniteProbabilitiesAreDrawnAsZero() {
    const auto good = trainedModel();
    stepformer::ParamSet params = good->params();
    params.at("projection.weight").data[3] = std::numeric_limits<float>::quiet_NaN();
    const auto model = std::make_shared<const Transformer>(good->config(), std::move(params));
    DecodeView view;
    view.resize(1000, 700);
    view.show();
    testutil::qtWarnings().clear();
    testutil::recordQtWarnings(true);
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    view.setModel(model);
    QVERIFY(view.waitForDecode());
    QTest::qWait(20);
    testutil::recordQtWarnings(false);
    QVERIFY2(testutil::qtWarnings().isEmpty(), qPrintable(testutil::qtWarnings().join(QLatin1Char('\n'))));
    QVERIFY(view.stepCount() > 0);
    const auto values = view.barValues();
    QVERIFY(!values.empty());
    for (float v : values) QCOMPARE(v, 0.0f);
    QVERIFY2(view.chart()->title().contains(QStringLiteral("not finite")), qPrintable(view.chart()->title()));
}

void TestDecodeView::grabIsNotBlank() {
    DecodeView view;
    view.resize(1200, 800);
    view.setModel(trainedModel());
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setCurrentStep(3);
    QTest::qWait(400);  // the bars' animation
    const QImage img = view.grab().toImage();
    QVERIFY(!img.isNull());
    QVERIFY2(distinctColors(img) > 50, qPrintable(QString::number(distinctColors(img))));
    QVERIFY(distinctColors(view.selfAttentionHeatmap()->grab().toImage()) > 5);
    saveShot(view, QStringLiteral("decode_view.png"));
    view.setCurrentStep(view.stepCount() - 1);
    QTest::qWait(400);
    saveShot(view, QStringLiteral("decode_view_end.png"));
}

// The values over the bars sit side by side in the bars' slots: where the widest would not fit
// its slot (a small probability reads "0.000499"), they are drawn smaller or not at all, never
// into each other; the words under them are whole or not shown, never cut to "w…". The tutorial's
// nine words show their values, straight, at 1200 px; thirty untrained words (each ~"0.0333") do
// not fit at the view's narrowest.
void TestDecodeView::barValuesNeverRunTogether() {
    const Config wide = synthetic_config(Config::small(), 30, 5, 5);
    const auto thirty = std::make_shared<const Transformer>(wide, init_params(wide, 1));
    struct Case {
        std::shared_ptr<const Transformer> model;
        QString source;
        bool shownAt1200;
    };
    for (const Case& c : {Case{trainedModel(), QStringLiteral("ich mochte ein bier P"), true},
                          Case{thirty, QStringLiteral("s1 s2 s3"), false}}) {
        DecodeView view;
        view.setModel(c.model);
        view.setSource(c.source);
        view.resize(1200, 800);
        view.show();
        QVERIFY(QTest::qWaitForWindowExposed(&view));
        QVERIFY(view.waitForDecode());
        auto* series = qobject_cast<QBarSeries*>(view.chart()->series().value(0));
        QVERIFY(series && !series->barSets().isEmpty());
        const QBarSet* bars = series->barSets().first();
        for (int width : {1200, view.minimumSizeHint().width()}) {
            view.resize(width, 800);
            QTest::qWait(50);
            const int n = bars->count();
            QCOMPARE(n, c.model->config().tgt_vocab_size());
            // The words under the bars: whole (Qt Charts cuts one wider than the axis over n + 1,
            // less 2 px each side), or none, and the axis's title sends to the bars' tooltips.
            auto* words = qobject_cast<QBarCategoryAxis*>(view.chart()->axes(Qt::Horizontal).value(0));
            QVERIFY(words);
            QCOMPARE(words->labelsAngle(), 0);
            const bool wordsShown = words->labelsColor().alpha() > 0;
            QCOMPARE(words->titleText().contains(QStringLiteral("hover a bar")), !wordsShown);
            if (wordsShown) {
                const QFontMetrics wm(words->labelsFont());
                const qreal wordSlot = view.chart()->plotArea().width() / (n + 1) - 4;
                for (const QString& w : words->categories())
                    QVERIFY2(wm.horizontalAdvance(w) <= wordSlot,
                             qPrintable(QStringLiteral("%1 px wide: \"%2\" is %3 px in %4")
                                            .arg(width).arg(w).arg(wm.horizontalAdvance(w)).arg(wordSlot)));
            }
            if (width == 1200 && c.shownAt1200) {
                QVERIFY(series->isLabelsVisible());
                QVERIFY(wordsShown);
            }
            if (!c.shownAt1200 && width != 1200) saveShot(view, QStringLiteral("decode_view_thirty_words.png"));
            if (!series->isLabelsVisible()) continue;
            const qreal slot = view.chart()->plotArea().width() / n;
            const QFontMetrics fm(bars->labelFont());
            for (int i = 0; i < n; ++i) {
                const QString label = QString::number(bars->at(i), 'g', 3);
                QVERIFY2(fm.horizontalAdvance(label) <= slot,
                         qPrintable(QStringLiteral("%1 words, %2 px wide: \"%3\" is %4 px in a %5 px slot")
                                        .arg(n).arg(width).arg(label).arg(fm.horizontalAdvance(label)).arg(slot)));
            }
        }
    }
}

// Qt Charts cuts the value axis's title to the plot's height: at 150 % zoom "probability" read
// "probabil…". It is whole, or the chart title's "p".
void TestDecodeView::valueAxisTitleIsNeverCut() {
    DecodeView view;
    view.setModel(trainedModel());
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    view.resize(1000, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QVERIFY(view.waitForDecode());
    for (int percent : {100, 150, 200, 100}) {
        Appearance::applyZoom(percent);  // as View › Zoom does
        QTest::qWait(50);
        auto* values = qobject_cast<QValueAxis*>(view.chart()->axes(Qt::Vertical).value(0));
        QVERIFY(values);
        const QString title = values->titleText();
        const qreal length = QFontMetricsF(values->titleFont()).horizontalAdvance(title);
        const qreal room = view.chart()->plotArea().height();
        QVERIFY2(length <= room, qPrintable(QStringLiteral("at %1 %: \"%2\" is %3 px along a %4 px plot")
                                                .arg(percent).arg(title).arg(length).arg(room)));
        QVERIFY2(title == QStringLiteral("probability") || title == QStringLiteral("p"), qPrintable(title));
        if (percent == 100) QCOMPARE(title, QStringLiteral("probability"));
    }
}

void TestDecodeView::attentionWeightsSayTheyAreWeights() {
    // At the first step the masked self-attention is 1x1 with weight exactly 1 (and its mask is
    // 0): a weights panel keeps its colour bar ("probability"), never the mask's "1 = masked".
    DecodeView view;
    view.resize(1200, 800);
    view.setModel(trainedModel());
    view.setSource(QStringLiteral("ich mochte ein bier P"));
    view.setCurrentStep(0);
    HeatmapWidget* self = view.selfAttentionHeatmap();
    QCOMPARE(self->rows(), 1);
    QCOMPARE(self->cols(), 1);
    QCOMPARE(self->value(0, 0), 1.0f);
    QVERIFY(!self->hasMaskLegend());
    QVERIFY(!view.crossAttentionHeatmap()->hasMaskLegend());
}

void TestDecodeView::wholeInTheWindowAtLaptopSizes_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1366x768") << QSize(1366, 768);
    QTest::newRow("1440x900") << QSize(1440, 900);
}

// The decode view in the main window at a laptop's size: at its first and its last step nothing
// sticks out sideways (no horizontal scrolling, the status text and the pickers inside the view).
void TestDecodeView::wholeInTheWindowAtLaptopSizes() {
    QFETCH(QSize, size);
    QVERIFY(cache_.isValid());
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Small;
    o.provisioning = Session::Provisioning::Synchronous;
    o.cacheDir = cache_.path();
    MainWindow w(o);
    w.resize(size);
    QVERIFY(w.setCurrentView(QStringLiteral("decode")));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* view = qobject_cast<DecodeView*>(w.viewWidget(QStringLiteral("decode")));
    QVERIFY(view);
    QVERIFY(view->waitForDecode());
    QVERIFY(view->stepCount() > 1);
    auto* area = w.findChild<QScrollArea*>(QStringLiteral("decodeViewScroll"));
    QVERIFY(area);
    const QString tag = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
    for (const int step : {0, view->stepCount() - 1}) {
        view->setCurrentStep(step);
        QTest::qWait(400);  // the bars' animation
        saveShot(w, QStringLiteral("decode_window_%1_step%2.png").arg(tag).arg(step + 1));
        const QString where = QStringLiteral("%1, step %2").arg(tag).arg(step + 1);
        QVERIFY2(area->horizontalScrollBar()->maximum() == 0,
                 qPrintable(where + QStringLiteral(": the view is %1 px wide in %2 px")
                                        .arg(view->width())
                                        .arg(area->viewport()->width())));
        const QRect inside = area->viewport()->rect();
        for (const char* n : {"decodeStatusLabel", "decodeLayerPicker", "decodeHeadPicker", "decodeTranslationLabel",
                              "decodeChart"}) {
            auto* c = view->findChild<QWidget*>(QString::fromLatin1(n));
            QVERIFY2(c, n);
            const QRect r(c->mapTo(area->viewport(), QPoint(0, 0)), c->size());
            QVERIFY2(r.right() <= inside.right(), qPrintable(where + QLatin1String(": ") + QLatin1String(n)));
        }
        // Every query row of both attention maps, and their legends, in view (no scrolling in them).
        for (const char* n : {"decodeSelfAttnHeatmap", "decodeCrossAttnHeatmap"}) {
            auto* map = view->findChild<HeatmapWidget*>(QString::fromLatin1(n));
            QVERIFY2(map && !map->isEmpty(), n);
            const QRect last = map->cellRect(map->rows() - 1, map->cols() - 1);
            QVERIFY2(map->verticalScrollBar()->maximum() == 0 && last.bottom() < map->height(),
                     qPrintable(where + QStringLiteral(": %1's last row ends at %2 in %3 px (minimum %4)")
                                            .arg(QLatin1String(n)).arg(last.bottom()).arg(map->height())
                                            .arg(map->minimumSizeHint().height())));
            // Rows as tall as their token labels (the legend then has its masked swatch too).
            QVERIFY2(map->cellSize().height() >= QFontMetrics(map->font()).height(),
                     qPrintable(where + QStringLiteral(": %1's rows are %2 px").arg(QLatin1String(n)).arg(map->cellSize().height())));
            const QRect onPage(map->mapTo(area->viewport(), QPoint(0, 0)), map->size());
            QVERIFY2(onPage.bottom() <= inside.bottom() || area->verticalScrollBar()->maximum() > 0,
                     qPrintable(where + QLatin1String(": ") + QLatin1String(n) + QLatin1String(" below the window")));
        }
        auto* status = view->findChild<QLabel*>(QStringLiteral("decodeStatusLabel"));
        QVERIFY2(status->heightForWidth(status->width()) <= status->height() ||
                     status->fontMetrics().horizontalAdvance(status->text()) <= status->width(),
                 qPrintable(where + QLatin1String(": ") + status->text()));
    }
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestDecodeView t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_decode_view.moc"
