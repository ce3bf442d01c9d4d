// The attention view's "All layers" mode (AttentionOverview): a grid of every layer x every head
// of the chosen block plus the heads' mean, token labels on the shared axes, the query hovered
// outlined in every cell, a click that enlarges the cell in "One layer" mode, and the mode
// remembered. The numbers are checked against the trace.
#include <cmath>
#include <memory>

#include <QComboBox>
#include <QCoreApplication>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTest>

#include "stepformer/model.h"
#include "stepformer/params.h"
#include "views/attention_overview.h"
#include "views/attention_view.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"
#include "test_util.h"

using namespace stepformer;

namespace {

// Three layers, four heads (every count differs from the others), two sentences.
Config overviewConfig() {
    Config c = Config::small();
    c.n_layers = 3;
    return c;
}

std::shared_ptr<Trace> makeTrace(const Config& c) {
    Transformer model(c, init_params(c, 3));
    const Batch b = make_batch(c, {"ich mochte ein bier P", "ich mochte ein cola P"}, {"S i want a beer .", "S i want a coke ."},
                               {"i want a beer . E", "i want a coke . E"});
    auto tr = std::make_shared<Trace>();
    model.forward(b, *tr);
    return tr;
}

[[nodiscard]] QString showAt(QWidget& w, int width = 1300, int height = 900) {
    w.resize(width, height);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return QStringLiteral("the view was not exposed");
    return {};
}

QStringList words(const char* sentence) { return QString::fromLatin1(sentence).split(QLatin1Char(' ')); }

struct BlockCase {
    const char* picker;  // the block picker's item data word
    const char* prefix;  // "<stack>.layers.%1.<word>"
    const char* queries;
    const char* keys;
};

const BlockCase kBlocks[] = {
    {"enc_self_attn", "encoder.layers.%1.enc_self_attn", "ich mochte ein bier P", "ich mochte ein bier P"},
    {"dec_self_attn", "decoder.layers.%1.dec_self_attn", "S i want a beer .", "S i want a beer ."},
    {"dec_enc_attn", "decoder.layers.%1.dec_enc_attn", "S i want a beer .", "ich mochte ein bier P"},
};

}  // namespace

class TestAttentionOverview : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void cleanupTestCase();
    void gridHasEveryLayerAndHeadOfEachBlock();
    void meanCellIsTheMeanOfTheHeads();
    void tokenLabelsAreTheSentencesWords();
    void clickEnlargesTheCell();
    void hoveredQueryOutlinedInEveryCell();
    void shownStepIsTheChosenLayers();
    void modeIsRemembered();

private:
    AttentionView* makeView();
    Config config_;
    std::shared_ptr<Trace> trace_;
    std::unique_ptr<AttentionView> view_;
};

void TestAttentionOverview::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    config_ = overviewConfig();
    trace_ = makeTrace(config_);
}

void TestAttentionOverview::init() {
    QSettings().remove(AttentionView::modeSettingsKey());
    view_.reset();
}

void TestAttentionOverview::cleanupTestCase() {
    view_.reset();
    QSettings().remove(AttentionView::modeSettingsKey());  // other tests start in "One layer"
}

AttentionView* TestAttentionOverview::makeView() {
    view_ = std::make_unique<AttentionView>();
    view_->setTrace(trace_, config_);
    return view_.get();
}

void TestAttentionOverview::gridHasEveryLayerAndHeadOfEachBlock() {
    AttentionView* av = makeView();
    VERIFY_HELPER(showAt(*av));
    QCOMPARE(av->mode(), AttentionView::Mode::OneLayer);
    QVERIFY(!av->overview()->isVisible());
    auto* modes = av->findChild<QComboBox*>(QStringLiteral("attentionModeSwitch"));
    QVERIFY(modes);
    QVERIFY(!modes->toolTip().isEmpty());
    modes->setCurrentIndex(modes->findData(int(AttentionView::Mode::AllLayers)));
    QCOMPARE(av->mode(), AttentionView::Mode::AllLayers);
    QVERIFY(av->overview()->isVisible());
    QCOMPARE(av->overview()->objectName(), QStringLiteral("attentionOverview"));
    QVERIFY(!av->headHeatmaps().first()->isVisible());  // the one layer's page is put away

    for (const BlockCase& b : kBlocks) {
        av->setStep(QString::fromLatin1(b.prefix).arg(1) + QStringLiteral(".attn"));
        QCOMPARE(av->blockKind(), QString::fromLatin1(b.picker));
        AttentionOverview* ov = av->overview();
        QCOMPARE(ov->layerCount(), config_.n_layers);
        QCOMPARE(ov->headCount(), config_.n_heads);
        int visibleCells = 0;
        for (auto* hm : ov->findChildren<HeatmapWidget*>())
            if (hm->isVisible() && !hm->isEmpty()) ++visibleCells;
        QCOMPARE(visibleCells, config_.n_layers * (config_.n_heads + 1));
        for (int l = 0; l < config_.n_layers; ++l) {
            for (int h = 0; h < config_.n_heads; ++h) {
                auto* c = ov->findChild<HeatmapWidget*>(QStringLiteral("overviewCell_%1_%2").arg(l).arg(h));
                QVERIFY2(c && c == ov->cell(l, h), qPrintable(QStringLiteral("cell %1 %2").arg(l).arg(h)));
                // Head h of layer l, sentence 0: [batch, n_heads, len_q, len_k].
                const Tensor& attn = trace_->at((QString::fromLatin1(b.prefix).arg(l) + QStringLiteral(".attn")).toStdString()).value;
                QCOMPARE(c->rows(), int(attn.shape[2]));
                QCOMPARE(c->cols(), int(attn.shape[3]));
                QCOMPARE(c->value(1, 0), attn.at({0, h, 1, 0}));
                QVERIFY(!c->toolTip().isEmpty());
            }
            auto* mean = ov->findChild<HeatmapWidget*>(QStringLiteral("overviewMean_%1").arg(l));
            QVERIFY(mean && mean == ov->meanCell(l));
            // One colour scale, 0..1, for every cell.
            QCOMPARE(mean->colorAt(0, 0), ov->cell(l, 0)->colormap().color(mean->value(0, 0)));
        }
        // Every cell is at least as large as its labels need: none thinned, none scrolled.
        QCoreApplication::processEvents();  // the grid lays the cells out at their sizes
        for (auto* hm : ov->findChildren<HeatmapWidget*>()) {
            QVERIFY2(hm->width() >= hm->minimumSizeHint().width() && hm->height() >= hm->minimumSizeHint().height(),
                     qPrintable(hm->objectName()));
            QCOMPARE(hm->rowLabelStep(), 1);
            QCOMPARE(hm->colLabelStep(), 1);
        }
    }
}

void TestAttentionOverview::meanCellIsTheMeanOfTheHeads() {
    AttentionView* av = makeView();
    av->setMode(AttentionView::Mode::AllLayers);
    VERIFY_HELPER(showAt(*av));
    for (const BlockCase& b : kBlocks) {
        av->setStep(QString::fromLatin1(b.prefix).arg(0) + QStringLiteral(".attn"));
        av->setBatchIndex(1);
        for (int l = 0; l < config_.n_layers; ++l) {
            const Tensor& attn = trace_->at((QString::fromLatin1(b.prefix).arg(l) + QStringLiteral(".attn")).toStdString()).value;
            HeatmapWidget* mean = av->overview()->meanCell(l);
            QVERIFY(mean);
            QCOMPARE(mean->rows(), int(attn.shape[2]));
            QCOMPARE(mean->cols(), int(attn.shape[3]));
            for (int r = 0; r < mean->rows(); ++r) {
                double rowSum = 0.0;
                for (int c = 0; c < mean->cols(); ++c) {
                    double sum = 0.0;
                    for (int h = 0; h < config_.n_heads; ++h) sum += attn.at({1, h, r, c});
                    const double expected = sum / config_.n_heads;
                    QVERIFY2(std::fabs(mean->value(r, c) - expected) < 1e-6,
                             qPrintable(QStringLiteral("%1 layer %2 [%3, %4]: %5 vs %6")
                                            .arg(QLatin1String(b.picker)).arg(l).arg(r).arg(c)
                                            .arg(mean->value(r, c)).arg(expected)));
                    rowSum += mean->value(r, c);
                }
                QVERIFY(std::fabs(rowSum - 1.0) < 1e-4);  // a mean of distributions is one
            }
            // Its tooltip says what it is and its exact value.
            const QString tip = mean->tooltipText(1, 0);
            QVERIFY2(tip.contains(QStringLiteral("mean of the %1 heads").arg(config_.n_heads)), qPrintable(tip));
        }
    }
}

void TestAttentionOverview::tokenLabelsAreTheSentencesWords() {
    AttentionView* av = makeView();
    av->setMode(AttentionView::Mode::AllLayers);
    VERIFY_HELPER(showAt(*av));
    for (const BlockCase& b : kBlocks) {
        av->setStep(QString::fromLatin1(b.prefix).arg(0) + QStringLiteral(".attn"));
        av->setBatchIndex(0);
        AttentionOverview* ov = av->overview();
        // Queries down the first column of every layer; the keys over every column of cells, in
        // the header, which stays in view when the layers scroll.
        for (int l = 0; l < ov->layerCount(); ++l) QCOMPARE(ov->cell(l, 0)->rowLabels(), words(b.queries));
        QCOMPARE(ov->keyLabels(), words(b.keys));
        for (int h = 0; h < ov->headCount(); ++h) {
            auto* strip = ov->findChild<QWidget*>(QStringLiteral("overviewKeys_%1").arg(h));
            QVERIFY(strip && strip->isVisible() && strip->height() > 0);
            // Over its own column of cells.
            const QRect cells = ov->cell(0, h)->geometry();
            const int mid = strip->mapTo(ov, strip->rect().center()).x();
            QVERIFY2(mid > ov->cell(0, h)->mapTo(ov, QPoint(0, 0)).x() &&
                         mid < ov->cell(0, h)->mapTo(ov, QPoint(cells.width(), 0)).x(),
                     qPrintable(QStringLiteral("head %1's keys at x %2").arg(h).arg(mid)));
        }
        QVERIFY(ov->findChild<QWidget*>(QStringLiteral("overviewKeys_mean"))->isVisible());
        // The cells' tooltips name the words too (also where the axis is not labelled).
        QVERIFY2(ov->cell(1, 2)->tooltipText(1, 0).contains(words(b.keys)[0]), qPrintable(ov->cell(1, 2)->tooltipText(1, 0)));
    }
    // The second sentence's words.
    av->setStep(QStringLiteral("encoder.layers.0.enc_self_attn.attn"));
    av->findChild<QComboBox*>(QStringLiteral("batchPicker"))->setCurrentIndex(1);
    QCOMPARE(av->overview()->cell(2, 0)->rowLabels()[3], QStringLiteral("cola"));
    QCOMPARE(av->overview()->keyLabels()[3], QStringLiteral("cola"));
}

void TestAttentionOverview::clickEnlargesTheCell() {
    AttentionView* av = makeView();
    av->setMode(AttentionView::Mode::AllLayers);
    VERIFY_HELPER(showAt(*av));
    av->setStep(QStringLiteral("decoder.layers.0.dec_enc_attn.attn"));
    QSignalSpy shown(av, &StepView::shownStepChanged);
    HeatmapWidget* c = av->overview()->cell(2, 1);
    QVERIFY(c);
    QTest::mouseClick(c->viewport(), Qt::LeftButton, {}, c->visibleGrid().center());
    QCOMPARE(av->mode(), AttentionView::Mode::OneLayer);
    QCOMPARE(av->findChild<QComboBox*>(QStringLiteral("attentionModeSwitch"))->currentData().toInt(),
             int(AttentionView::Mode::OneLayer));
    QCOMPARE(av->layerIndex(), 2);
    QCOMPARE(av->headIndex(), 1);
    QCOMPARE(av->blockKind(), QStringLiteral("dec_enc_attn"));
    QCOMPARE(av->findChild<QSpinBox*>(QStringLiteral("headPicker"))->value(), 1);
    QVERIFY(av->enlargedHeatmap()->isVisible());
    QVERIFY(!av->overview()->isVisible());
    QVERIFY2(av->enlargedHeatmap()->title().contains(QStringLiteral("Layer 2")) &&
                 av->enlargedHeatmap()->title().contains(QStringLiteral("head 1")),
             qPrintable(av->enlargedHeatmap()->title()));
    QVERIFY(av->headHeatmaps()[1]->isSelected());
    QCOMPARE(shown.count(), 1);
    QCOMPARE(shown.last().at(0).toString(), QStringLiteral("decoder.layers.2.dec_enc_attn.attn"));

    // The mean cell: that layer, the head kept.
    av->setMode(AttentionView::Mode::AllLayers);
    QVERIFY(av->overview()->cell(2, 1)->isSelected());  // the chosen layer and head are framed
    HeatmapWidget* mean = av->overview()->meanCell(0);
    QTest::mouseClick(mean->viewport(), Qt::LeftButton, {}, mean->visibleGrid().center());
    QCOMPARE(av->mode(), AttentionView::Mode::OneLayer);
    QCOMPARE(av->layerIndex(), 0);
    QCOMPARE(av->headIndex(), 1);
    QCOMPARE(av->shownStep(), QStringLiteral("decoder.layers.0.dec_enc_attn.attn"));
}

void TestAttentionOverview::hoveredQueryOutlinedInEveryCell() {
    AttentionView* av = makeView();
    av->setMode(AttentionView::Mode::AllLayers);
    VERIFY_HELPER(showAt(*av));
    AttentionOverview* ov = av->overview();
    HeatmapWidget* c = ov->cell(1, 3);
    const QRect cell = c->cellRect(2, 1);
    QVERIFY(cell.isValid());
    QTest::mouseMove(c->viewport(), cell.center() - c->viewport()->pos());
    QTRY_COMPARE(ov->highlightedRow(), 2);
    for (int l = 0; l < ov->layerCount(); ++l) {
        for (int h = 0; h < ov->headCount(); ++h) QCOMPARE(ov->cell(l, h)->highlightedRow(), 2);
        QCOMPARE(ov->meanCell(l)->highlightedRow(), 2);
    }
    // The tooltip gives the exact weight.
    const Tensor& attn = trace_->at("encoder.layers.1.enc_self_attn.attn").value;
    QVERIFY(c->tooltipText(2, 1).contains(numfmt::exact(attn.at({0, 3, 2, 1}))));
}

void TestAttentionOverview::shownStepIsTheChosenLayers() {
    AttentionView* av = makeView();
    av->setMode(AttentionView::Mode::AllLayers);
    VERIFY_HELPER(showAt(*av));
    av->setStep(QStringLiteral("decoder.layers.1.dec_self_attn.scores"));
    QCOMPARE(av->shownStep(), QStringLiteral("decoder.layers.1.dec_self_attn.attn"));
    QSignalSpy shown(av, &StepView::shownStepChanged);
    av->findChild<QComboBox*>(QStringLiteral("layerPicker"))->setCurrentIndex(2);
    QCOMPARE(shown.count(), 1);
    QCOMPARE(av->shownStep(), QStringLiteral("decoder.layers.2.dec_self_attn.attn"));
    QCOMPARE(av->mode(), AttentionView::Mode::AllLayers);  // the layer picker frames a row, it does not leave
    QVERIFY(av->overview()->cell(2, 0)->isSelected());
    QVERIFY(!av->overview()->cell(1, 0)->isSelected());
}

void TestAttentionOverview::modeIsRemembered() {
    {
        AttentionView* av = makeView();
        auto* modes = av->findChild<QComboBox*>(QStringLiteral("attentionModeSwitch"));
        modes->setCurrentIndex(modes->findData(int(AttentionView::Mode::AllLayers)));
        QCOMPARE(QSettings().value(AttentionView::modeSettingsKey()).toString(), QStringLiteral("all"));
    }
    AttentionView* again = makeView();
    QCOMPARE(again->mode(), AttentionView::Mode::AllLayers);
    QCOMPARE(again->findChild<QComboBox*>(QStringLiteral("attentionModeSwitch"))->currentData().toInt(),
             int(AttentionView::Mode::AllLayers));
    // setMode (the command line's --attention-mode) shows a mode without remembering it.
    again->setMode(AttentionView::Mode::OneLayer);
    QCOMPARE(QSettings().value(AttentionView::modeSettingsKey()).toString(), QStringLiteral("all"));
    QCOMPARE(AttentionView::modeFromKey(QStringLiteral(" All ")), AttentionView::Mode::AllLayers);
    QVERIFY(!AttentionView::modeFromKey(QStringLiteral("both")));
}

QTEST_MAIN(TestAttentionOverview)
#include "test_attention_overview.moc"
