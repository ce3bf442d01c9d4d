// LossView: the mean it shows is the core's loss (trace "loss"), per position −log p is
// loss.per_token, pad targets are marked as ignored (ignore_index=0) and left out of the count,
// the batch picker switches sentences, and the view paints.
#include <QtTest>

#include <QApplication>
#include <QComboBox>
#include <QLabel>
#include <QSet>
#include <QTableWidget>

#include <cmath>
#include <memory>

#include "app/appearance.h"
#include "widgets/heatmap_widget.h"
#include "views/loss_view.h"
#include "stepformer/dataset.h"
#include "stepformer/loss.h"
#include "stepformer/model.h"
#include "stepformer/train.h"
#include "test_util.h"

using namespace stepformer;
using testutil::distinctColors;
using testutil::saveShot;
using testutil::trainedModel;

namespace {

// Two sentences; the second target is one word shorter, so its last position is a pad target.
Batch lossBatch(const Config& c) {
    return make_batch(c, {"ich mochte ein bier P", "ich mochte ein cola P"}, {"S i want a beer .", "S i want a coke"},
                      {"i want a beer . E", "i want a coke E"});
}

std::shared_ptr<const Trace> forwardWithLoss(const Transformer& m, const Batch& b) {
    auto t = std::make_shared<Trace>();
    m.forward(b, *t);
    m.loss(b, *t);
    return t;
}

}  // namespace

class TestLossView : public QObject {
    Q_OBJECT
private slots:
    void objectNamesAndEmptyState();
    void meanEqualsTheCoreLoss();
    void meanEqualsTheCoreLossOnTheTutorialBatch();
    void perPositionMatchesLossPerToken();
    void displayedNumbersAreTheCoresExactly();
    void anUnderflowedProbabilityShowsTheCoresClampedLoss();
    void padPositionsAreMarkedIgnored();
    void formulaShowsTheNumbers();
    void batchPickerSwitchesSentence();
    void encodeTargetsMatchesMakeBatch();
    void missingTargetsShowAMessage();
    void exportsLossPerToken();
    void grabIsNotBlank();
    void everyModelShowsItsOwnLoss_data();
    void everyModelShowsItsOwnLoss();
    void mapsKeepEveryRowAtEveryZoom();
};

void TestLossView::objectNamesAndEmptyState() {
    LossView view;
    QCOMPARE(view.objectName(), QStringLiteral("lossView"));
    QVERIFY(view.findChild<QComboBox*>(QStringLiteral("batchPicker")));
    QVERIFY(view.findChild<QTableWidget*>(QStringLiteral("lossTable")));
    QVERIFY(view.findChild<HeatmapWidget*>(QStringLiteral("lossLogitsHeatmap")));
    QVERIFY(view.findChild<HeatmapWidget*>(QStringLiteral("lossProbsHeatmap")));
    QVERIFY(!view.hasData());
    QVERIFY(!view.message().isEmpty());
    QVERIFY(std::isnan(view.displayedMean()));
    QCOMPARE(view.currentTensor(), nullptr);
}

void TestLossView::everyModelShowsItsOwnLoss_data() {
    QTest::addColumn<int>("which");
    QTest::newRow("tutorial") << 0;
    QTest::newRow("torch") << 1;
    QTest::newRow("aiayn") << 2;
}

// Whichever loss the model's graph holds, the view shows its numbers: the model's `loss` (a mean,
// or aiayn's label-smoothed sum), loss.per_token position by position, and for a smoothed loss
// the target distribution q row by row.
void TestLossView::everyModelShowsItsOwnLoss() {
    QFETCH(int, which);
    const Config c = which == 0 ? Config::small() : which == 1 ? Config::torch_small() : Config::aiayn_small();
    Transformer model(c, init_params(c, 5));
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(model, b);
    LossView view;
    view.resize(1200, 700);
    view.setTrace(trace, c, b.out);
    QVERIFY(view.hasData());
    const float core = trace->at("loss").value.data[0];
    QCOMPARE(float(view.displayedLoss()), core);
    const Tensor& per = trace->at("loss.per_token").value;
    for (int bi = 0; bi < b.B; ++bi)
        for (int t = 0; t < b.T; ++t)
            if (!view.isIgnored(bi, t)) QCOMPARE(float(view.negLogProb(bi, t)), per.at({bi, t}));
    const bool smoothed = which == 2;
    QCOMPARE(view.smoothed(), smoothed);
    QCOMPARE(view.targetHeatmap()->isHidden(), !smoothed);
    QVERIFY(view.formulaText().contains(smoothed ? QStringLiteral("Sum over the batch") : QStringLiteral("Mean over the batch")));
    if (smoothed) {
        const int V = c.tgt_vocab_size();
        const HeatmapWidget* q = view.targetHeatmap();
        QCOMPARE(q->rows(), b.T);
        QCOMPARE(q->cols(), V);
        for (int t = 0; t < b.T; ++t) {
            const int target = b.out[size_t(t)];
            float row = 0.0f;
            for (int v = 0; v < V; ++v) {
                QCOMPARE(q->value(t, v), v == target ? 0.9f : float(0.1 / (V - 1)));
                row += q->value(t, v);
            }
            QVERIFY(std::fabs(row - 1.0f) < 1e-5f);
        }
        QVERIFY(view.table()->horizontalHeaderItem(6)->text().contains(QStringLiteral("q log p")));
    }
    // The title names the model's own loss code.
    const QString title = view.findChild<QLabel*>(QStringLiteral("lossTitleLabel"))->text();
    QVERIFY2(title.contains(smoothed ? QStringLiteral("cal_loss") : QStringLiteral("nn.CrossEntropyLoss")), qPrintable(title));
    saveShot(view, QStringLiteral("loss_view_model_%1").arg(which));
}

// The maps' least height (every row readable) follows the font: after View › Zoom 150 % it kept
// the 100 % one, and the label-smoothed target showed two rows of six.
void TestLossView::mapsKeepEveryRowAtEveryZoom() {
    const Config c = Config::aiayn_small();
    Transformer model(c, init_params(c, 5));
    const Batch b = lossBatch(c);
    LossView view;
    view.resize(1000, 600);
    view.setTrace(forwardWithLoss(model, b), c, b.out);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    for (int percent : {100, 150, 200, 100}) {
        Appearance::applyZoom(percent);
        QTest::qWait(50);
        for (const char* name : {"lossProbsHeatmap", "lossTargetHeatmap"}) {
            const auto* h = view.findChild<HeatmapWidget*>(QLatin1String(name));
            QVERIFY2(h && h->isVisible(), name);
            QVERIFY2(h->height() >= h->minimumSizeHint().height(),
                     qPrintable(QStringLiteral("at %1 %: %2 is %3 px tall, its rows need %4")
                                    .arg(percent).arg(QLatin1String(name)).arg(h->height()).arg(h->minimumSizeHint().height())));
        }
    }
}

void TestLossView::meanEqualsTheCoreLoss() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    QVERIFY(view.hasData());
    const double core = trace->at("loss").value.data[0];
    QVERIFY2(std::fabs(view.displayedMean() - core) <= 1e-5 * std::max(1.0, std::fabs(core)),
             qPrintable(QStringLiteral("%1 vs %2").arg(view.displayedMean(), 0, 'g', 9).arg(core, 0, 'g', 9)));
    QCOMPARE(view.traceLoss(), core);
    QCOMPARE(view.countedPositions(), 11);  // 6 + 5: one pad target ignored
    QCOMPARE(view.displayedMean(), view.displayedSum() / view.countedPositions());
}

void TestLossView::meanEqualsTheCoreLossOnTheTutorialBatch() {
    // Also for an untrained model, where the loss is large and every probability matters.
    const Config c = Config::small();
    Transformer model(c, init_params(c, 3));
    const Batch b = make_training_batch(c, builtin_examples(), {0, 1});
    const auto trace = forwardWithLoss(model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    const double core = trace->at("loss").value.data[0];
    QVERIFY(core > 0.5);
    QVERIFY(std::fabs(view.displayedMean() - core) <= 1e-5 * core);
    QCOMPARE(view.countedPositions(), 12);
}

void TestLossView::perPositionMatchesLossPerToken() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    const Tensor& per = trace->at("loss.per_token").value;
    const Tensor& probs = trace->at("projection.probs").value;
    for (int bi = 0; bi < b.B; ++bi)
        for (int t = 0; t < b.T; ++t) {
            const int target = b.out[size_t(bi) * b.T + t];
            if (target == 0) continue;
            QVERIFY(std::fabs(view.negLogProb(bi, t) - per.at({bi, t})) <= 1e-4 * std::max(1.0f, per.at({bi, t})));
            QVERIFY(std::fabs(view.probabilityOfTarget(bi, t) - probs.at({bi, t, target})) <= 1e-5);
        }
    // The probabilities heatmap shows projection.probs of the chosen sentence.
    const HeatmapWidget* ph = view.probsHeatmap();
    QCOMPARE(ph->rows(), b.T);
    QCOMPARE(ph->cols(), c.tgt_vocab_size());
    for (int t = 0; t < b.T; ++t)
        for (int v = 0; v < c.tgt_vocab_size(); ++v) QCOMPARE(ph->value(t, v), probs.at({0, t, v}));
    const Tensor& logits = trace->at("projection.logits").value;
    for (int t = 0; t < b.T; ++t)
        for (int v = 0; v < c.tgt_vocab_size(); ++v) QCOMPARE(view.logitsHeatmap()->value(t, v), logits.at({0, t, v}));
}

void TestLossView::displayedNumbersAreTheCoresExactly() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    const Tensor& per = trace->at("loss.per_token").value;
    const Tensor& probs = trace->at("projection.probs").value;
    const CrossEntropy ce = cross_entropy(probs.ptr(), b.out.data(), b.B * b.T, c.tgt_vocab_size(), 0);
    QVERIFY(view.displayedSum() == ce.sum);
    QVERIFY(view.displayedMean() == ce.mean());
    QVERIFY(float(view.displayedMean()) == trace->at("loss").value.data[0]);
    QCOMPARE(view.countedPositions(), ce.counted);
    for (int bi = 0; bi < b.B; ++bi)
        for (int t = 0; t < b.T; ++t) {
            const int target = b.out[size_t(bi) * b.T + t];
            if (target == 0) continue;
            QVERIFY(view.negLogProb(bi, t) == double(per.at({bi, t})));
            QVERIFY(view.probabilityOfTarget(bi, t) == double(probs.at({bi, t, target})));
            // and the table writes that number
            if (bi == 0) QCOMPARE(view.table()->item(t, 6)->text(), QString::number(per.at({0, t}), 'f', 4));
        }
    QVERIFY(view.formulaText().contains(QString::number(ce.mean(), 'f', 6)));
}

void TestLossView::anUnderflowedProbabilityShowsTheCoresClampedLoss() {
    // A probability that underflowed to 0 in float: the model's loss is −log(1e-38), not the
    // exact −log p a double log-sum-exp of the logits would give; the view shows the model's.
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    Trace forward;
    model->forward(b, forward);
    // The same trace with that probability set to 0 (a trace is append-only: copy it).
    auto trace = std::make_shared<Trace>();
    trace->src_tokens = forward.src_tokens;
    trace->tgt_tokens = forward.tgt_tokens;
    const int target = b.out[0];
    for (const TraceEntry& e : forward.entries()) {
        Tensor v = e.value;
        if (e.role == Role::Probs) v.data[size_t(target)] = 0.0f;
        trace->add(e.name, Node{e.role, e.op, e.block, e.inputs}, e.axes, std::move(v), e.is_mask);
    }
    model->loss(b, *trace);
    LossView view;
    view.setTrace(trace, c, b.out);
    QVERIFY(view.negLogProb(0, 0) == double(token_loss(0.0f)));
    QVERIFY(view.negLogProb(0, 0) == double(trace->at("loss.per_token").value.data[0]));
    QVERIFY(float(view.displayedMean()) == trace->at("loss").value.data[0]);
    QVERIFY(view.formulaText().contains(QStringLiteral("\u2714")));
}

void TestLossView::padPositionsAreMarkedIgnored() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    QCOMPARE(view.ignoreIndex(), 0);
    for (int t = 0; t < b.T; ++t) QVERIFY(!view.isIgnored(0, t));
    for (int t = 0; t < b.T - 1; ++t) QVERIFY(!view.isIgnored(1, t));
    QVERIFY(view.isIgnored(1, b.T - 1));
    QVERIFY(std::isnan(view.negLogProb(1, b.T - 1)));

    view.setBatchIndex(1);
    QCOMPARE(view.batchIndex(), 1);
    QVERIFY(view.tableMarksIgnored(b.T - 1));
    for (int t = 0; t < b.T - 1; ++t) QVERIFY(!view.tableMarksIgnored(t));
    const QTableWidget* table = view.table();
    QCOMPARE(table->rowCount(), b.T);
    QCOMPARE(table->item(b.T - 1, 2)->text(), QStringLiteral("P"));
    QVERIFY(table->item(b.T - 1, 7)->text().contains(QStringLiteral("ignore_index=0")));
    // Greyed out: a different background than a counted row.
    QVERIFY(table->item(b.T - 1, 0)->background() != table->item(0, 0)->background());
    // And hatched in both heatmaps, with the reason in the tooltip.
    for (int v = 0; v < c.tgt_vocab_size(); ++v) {
        QVERIFY(view.probsHeatmap()->isMasked(b.T - 1, v));
        QVERIFY(view.logitsHeatmap()->isMasked(b.T - 1, v));
        QVERIFY(!view.probsHeatmap()->isMasked(0, v));
    }
    QVERIFY(view.probsHeatmap()->tooltipText(b.T - 1, 0).contains(QStringLiteral("ignore")));
}

void TestLossView::formulaShowsTheNumbers() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    const QString f = view.formulaText();
    QVERIFY2(f.contains(QStringLiteral("(6 + 5)")), qPrintable(f));
    QVERIFY(f.contains(QStringLiteral("/ 11")));
    QVERIFY(f.contains(QString::number(view.displayedMean(), 'f', 6)));
    QVERIFY(f.contains(QStringLiteral("\u2714")));  // agrees with the model's loss
}

void TestLossView::batchPickerSwitchesSentence() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    auto* picker = view.findChild<QComboBox*>(QStringLiteral("batchPicker"));
    QCOMPARE(picker->count(), 2);
    QVERIFY(picker->isEnabled());
    const double mean = view.displayedMean();
    picker->setCurrentIndex(1);
    QCOMPARE(view.batchIndex(), 1);
    QCOMPARE(view.table()->item(3, 2)->text(), QStringLiteral("coke"));
    QCOMPARE(view.table()->item(4, 2)->text(), QStringLiteral("E"));
    const Tensor& probs = trace->at("projection.probs").value;
    QCOMPARE(view.probsHeatmap()->value(4, 5), probs.at({1, 4, 5}));
    QCOMPARE(view.displayedMean(), mean);  // the loss is the batch's, whatever sentence is shown
}

void TestLossView::encodeTargetsMatchesMakeBatch() {
    const Config c = Config::small();
    const Batch b = lossBatch(c);
    const auto ids = LossView::encodeTargets(c, {QStringLiteral("i want a beer . E"), QStringLiteral("i want a coke E")});
    QCOMPARE(ids, b.out);
    QVERIFY_THROWS_EXCEPTION(ConfigError, LossView::encodeTargets(c, {QStringLiteral("i want a wine E")}));
}

void TestLossView::missingTargetsShowAMessage() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, {});
    QVERIFY(!view.hasData());
    QVERIFY(view.message().contains(QStringLiteral("expected output")));
    view.setTrace(trace, c, {1, 2, 3});  // wrong size
    QVERIFY(!view.hasData());
    view.setTrace(trace, c, b.out);
    QVERIFY(view.hasData());
}

void TestLossView::exportsLossPerToken() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.setTrace(trace, c, b.out);
    QCOMPARE(view.exportWidget(), static_cast<QWidget*>(&view));
    QCOMPARE(view.currentTensorName(), QStringLiteral("loss.per_token"));
    QCOMPARE(view.currentTensor(), &trace->at("loss.per_token").value);
}

void TestLossView::grabIsNotBlank() {
    const auto model = trainedModel();
    const Config& c = model->config();
    const Batch b = lossBatch(c);
    const auto trace = forwardWithLoss(*model, b);
    LossView view;
    view.resize(1200, 800);
    view.setTrace(trace, c, b.out);
    view.setBatchIndex(1);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = view.grab().toImage();
    QVERIFY(!img.isNull());
    QVERIFY2(distinctColors(img) > 50, qPrintable(QString::number(distinctColors(img))));
    QVERIFY(distinctColors(view.probsHeatmap()->grab().toImage()) > 5);
    saveShot(view, QStringLiteral("loss_view.png"));
    // The untrained model: a loss worth looking at.
    Transformer untrained(c, init_params(c, 3));
    view.setTrace(forwardWithLoss(untrained, b), c, b.out);
    QTest::qWait(50);
    saveShot(view, QStringLiteral("loss_view_untrained.png"));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestLossView t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_loss_view.moc"
