// Backward stepping: backwardStepOrder / BackwardStepList visit the grad.* entries in reverse
// computation order with friendly labels; GradientView shows each tensor beside its gradient
// with the core's numbers, and a weight beside its gradient and the optimizer's previewed update.
#include <QtTest>

#include <QApplication>
#include <QAbstractButton>
#include <QCheckBox>
#include <QComboBox>
#include <QScrollBar>
#include <QSet>
#include <QSpinBox>

#include <cmath>
#include <limits>
#include <memory>

#include "explain/explain_panel.h"
#include "steps/backward_steps.h"
#include "steps/step_navigator.h"
#include "views/param_blocks.h"
#include "views/parameter_pane.h"
#include "views/gradient_view.h"
#include "widgets/heatmap_widget.h"
#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/train.h"
#include "steps/tensor_slice.h"
#include "test_util.h"

using namespace stepformer;
using testutil::distinctColors;
using testutil::saveShot;

namespace {

struct Fixture {
    Config config;
    std::shared_ptr<const Transformer> model;
    std::shared_ptr<const Trace> trace;  // forward + loss + grad.*
    std::shared_ptr<const ParamSet> params, grads;
    std::shared_ptr<const Optimizer> optimizer;
};

// testutil::trainedSmall() (Config::small(), 60 epochs of Adam 5e-3 on the tutorial's sentences), then one more
// traced forward/backward pass on the batch, as the GUI would show for the next training step.
const Fixture& fixture() {
    static Fixture f = [] {
        Fixture x;
        const testutil::TrainedSmall& trained = testutil::trainedSmall();
        x.config = trained.config;
        x.model = trained.model;
        x.optimizer = trained.optimizer;
        const Batch b = make_training_batch(x.config, builtin_examples(), {0, 1});
        auto t = std::make_shared<Trace>();
        x.model->forward(b, *t);
        x.model->loss(b, *t);
        auto g = std::make_shared<ParamSet>(param_specs(x.config));
        x.model->backward(b, *t, *g, true);
        x.trace = t;
        x.grads = g;
        x.params = std::make_shared<const ParamSet>(x.model->params());
        return x;
    }();
    return f;
}

// The heatmap shows exactly the (batch b, head h) slice of `e`.
bool heatmapShows(const HeatmapWidget* w, const Trace& tr, const TraceEntry& e, int b, int h, const Config& c, QString* why) {
    const tensorviz::Matrix m = tensorviz::slice(tr, e, b, h, &c);
    if (w->rows() != m.rows || w->cols() != m.cols) {
        *why = QStringLiteral("%1: shape %2x%3 vs %4x%5")
                   .arg(QString::fromStdString(e.name))
                   .arg(w->rows())
                   .arg(w->cols())
                   .arg(m.rows)
                   .arg(m.cols);
        return false;
    }
    for (int r = 0; r < m.rows; ++r)
        for (int col = 0; col < m.cols; ++col)
            if (w->value(r, col) != m.at(r, col)) {
                *why = QStringLiteral("%1[%2,%3]: %4 vs %5")
                           .arg(QString::fromStdString(e.name))
                           .arg(r)
                           .arg(col)
                           .arg(w->value(r, col))
                           .arg(m.at(r, col));
                return false;
            }
    return true;
}

}  // namespace

class TestGradientView : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void backwardOrderIsReverseComputationOrder();
    void stepListModelHasFriendlyLabels();
    void counterpartStepForTheToggle();
    void gradientViewShowsTheCoreGradients();
    void forwardNameSelectsItsGradient();
    void headAndBatchPickers();
    void weightGradientAndPreviewedUpdate();
    void weightFollowsTheStep();
    void traceWithoutGradientsSaysSo();
    void exportsTheGradientInFocus();
    void grabIsNotBlank();
    void blocksShowEachBlocksLargestEntry();
    void panelsReadableAtLaptopSize();
    void tutorialWeightsFitWhole();
    void explanationFollowsTheForwardRole();
    void headerNumbersStepsAsTheNavigator();
};

void TestGradientView::initTestCase() {
    const Fixture& f = fixture();
    QVERIFY(f.trace->contains("grad.projection.logits"));
    QVERIFY(f.trace->at("loss").value.data[0] < 0.05f);  // it learned
}

void TestGradientView::backwardOrderIsReverseComputationOrder() {
    const Fixture& f = fixture();
    const Trace& tr = *f.trace;
    const QStringList order = backwardStepOrder(tr);
    // Every grad.* entry, in the order the trace recorded them.
    QStringList expected;
    QHash<QString, int> forwardPos;
    int i = 0;
    for (const auto& e : tr.entries()) {
        const QString n = QString::fromStdString(e.name);
        if (n.startsWith(QLatin1String("grad.")))
            expected << n;
        else
            forwardPos.insert(n, i);
        ++i;
    }
    QCOMPARE(order, expected);
    QVERIFY(order.size() > 50);
    // Loss side first, embeddings last ...
    QCOMPARE(order.first(), QStringLiteral("grad.projection.logits"));
    QCOMPARE(order.last(), QStringLiteral("grad.encoder.src_emb.out"));
    // ... and in between strictly the reverse of the forward computation.
    int prev = INT_MAX;
    for (const QString& g : order) {
        const QString base = g.mid(5);
        QVERIFY2(forwardPos.contains(base), qPrintable(base));
        QVERIFY2(forwardPos.value(base) < prev, qPrintable(g));
        prev = forwardPos.value(base);
    }
}

void TestGradientView::stepListModelHasFriendlyLabels() {
    const Fixture& f = fixture();
    BackwardStepList list;
    QSignalSpy reset(&list, &QAbstractItemModel::modelReset);
    list.setTrace(f.trace);
    QCOMPARE(reset.count(), 1);
    const QStringList order = backwardStepOrder(*f.trace);
    QCOMPARE(list.rowCount(), int(order.size()));
    QCOMPARE(list.stepOrder(), order);
    for (int r = 0; r < list.rowCount(); ++r) {
        const QModelIndex ix = list.index(r);
        QCOMPARE(ix.data(BackwardStepList::TraceNameRole).toString(), order[r]);
        QCOMPARE(ix.data(BackwardStepList::JumpTargetRole).toString(), order[r]);
        QCOMPARE(ix.data(BackwardStepList::ForwardNameRole).toString(), order[r].mid(5));
        QVERIFY(ix.data(BackwardStepList::IsStepRole).toBool());
        QVERIFY(ix.data(Qt::DisplayRole).toString().startsWith(QStringLiteral("\u2202loss/\u2202 ")));
        QVERIFY(!ix.data(BackwardStepList::ShapeRole).toString().isEmpty());
        QVERIFY(!ix.data(Qt::ToolTipRole).toString().isEmpty());
    }
    QCOMPARE(list.index(0).data(BackwardStepList::ShortLabelRole).toString(), QStringLiteral("\u2202loss/\u2202 logits"));
    QCOMPARE(list.stepPosition(QStringLiteral("projection.logits")), 0);
    QCOMPARE(list.stepPosition(QStringLiteral("grad.encoder.src_emb.out")), list.stepCount() - 1);
    QCOMPARE(list.indexForStep(QStringLiteral("grad.projection.logits")).row(), 0);
    QCOMPARE(list.stepPosition(QStringLiteral("encoder.self_attn_mask")), -1);
    const int q = list.stepPosition(QStringLiteral("decoder.layers.1.dec_self_attn.Q"));
    QVERIFY(q > 0);
    QVERIFY(list.index(q).data(Qt::DisplayRole).toString().contains(QStringLiteral("Q (queries)")));
    QVERIFY(list.index(q).data(BackwardStepList::LocationRole).toString().contains(QStringLiteral("layer 1")));
    // The same trace again: no reset (a view keeps its selection).
    list.setTrace(f.trace);
    QCOMPARE(reset.count(), 1);
    // A forward-only trace: empty.
    auto fwd = std::make_shared<Trace>();
    f.model->forward(make_training_batch(f.config, builtin_examples(), {0, 1}), *fwd);
    list.setTrace(fwd);
    QCOMPARE(list.rowCount(), 0);
}

void TestGradientView::counterpartStepForTheToggle() {
    const Trace& tr = *fixture().trace;
    QCOMPARE(BackwardStepList::counterpartStep(tr, QStringLiteral("decoder.layers.0.pos_ffn.relu"), BackwardStepList::Direction::Backward),
             QStringLiteral("grad.decoder.layers.0.pos_ffn.relu"));
    QCOMPARE(BackwardStepList::counterpartStep(tr, QStringLiteral("grad.decoder.layers.0.pos_ffn.relu"), BackwardStepList::Direction::Forward),
             QStringLiteral("decoder.layers.0.pos_ffn.relu"));
    // A mask has no gradient: the first backward step.
    QCOMPARE(BackwardStepList::counterpartStep(tr, QStringLiteral("encoder.self_attn_mask"), BackwardStepList::Direction::Backward),
             QStringLiteral("grad.projection.logits"));
}

void TestGradientView::gradientViewShowsTheCoreGradients() {
    const Fixture& f = fixture();
    GradientView view;
    view.setTrace(f.trace, f.config);
    BackwardStepList list;
    list.setTrace(f.trace);
    for (int r = 0; r < list.rowCount(); ++r) {
        const QString step = list.stepAt(r);
        view.setStep(step);
        QCOMPARE(view.currentStep(), step);
        QVERIFY2(view.hasData(), qPrintable(step));
        const TraceEntry& g = f.trace->at(step.toStdString());
        const TraceEntry& x = f.trace->at(step.mid(5).toStdString());
        QString why;
        QVERIFY2(heatmapShows(view.gradientHeatmap(), *f.trace, g, 0, 0, f.config, &why), qPrintable(why));
        QVERIFY2(heatmapShows(view.valueHeatmap(), *f.trace, x, 0, 0, f.config, &why), qPrintable(why));
        // Same token labels on both sides.
        QCOMPARE(view.gradientHeatmap()->rowLabels(), view.valueHeatmap()->rowLabels());
        QCOMPARE(view.gradientHeatmap()->colLabels(), view.valueHeatmap()->colLabels());
        // Tooltips give both numbers.
        QVERIFY(view.gradientHeatmap()->tooltipText(0, 0).contains(QStringLiteral("forward value")));
        QVERIFY(view.valueHeatmap()->tooltipText(0, 0).contains(QStringLiteral("\u2202loss/\u2202")));
    }
}

void TestGradientView::forwardNameSelectsItsGradient() {
    const Fixture& f = fixture();
    GradientView view;
    view.setTrace(f.trace, f.config);
    view.setStep(QStringLiteral("projection.logits"));
    QCOMPARE(view.currentStep(), QStringLiteral("grad.projection.logits"));
    QCOMPARE(view.gradientHeatmap()->rowLabels().first(), QStringLiteral("S"));
    QCOMPARE(view.gradientHeatmap()->colLabels().size(), f.config.tgt_vocab_size());
    const Tensor& g = f.trace->at("grad.projection.logits").value;
    QCOMPARE(view.gradientHeatmap()->value(2, 3), g.at({0, 2, 3}));
}

void TestGradientView::headAndBatchPickers() {
    const Fixture& f = fixture();
    GradientView view;
    view.setTrace(f.trace, f.config);
    view.setStep(QStringLiteral("grad.decoder.layers.1.dec_enc_attn.attn"));
    auto* head = view.findChild<QSpinBox*>(QStringLiteral("headPicker"));
    auto* batch = view.findChild<QComboBox*>(QStringLiteral("batchPicker"));
    QCOMPARE(head->maximum(), f.config.n_heads - 1);
    QCOMPARE(batch->count(), 2);
    head->setValue(3);
    batch->setCurrentIndex(1);
    QCOMPARE(view.headIndex(), 3);
    QCOMPARE(view.batchIndex(), 1);
    QString why;
    QVERIFY2(heatmapShows(view.gradientHeatmap(), *f.trace, f.trace->at("grad.decoder.layers.1.dec_enc_attn.attn"), 1, 3,
                          f.config, &why),
             qPrintable(why));
    QVERIFY2(heatmapShows(view.valueHeatmap(), *f.trace, f.trace->at("decoder.layers.1.dec_enc_attn.attn"), 1, 3, f.config, &why),
             qPrintable(why));
    QCOMPARE(view.gradientHeatmap()->colLabels().first(), QStringLiteral("ich"));
}

void TestGradientView::weightGradientAndPreviewedUpdate() {
    const Fixture& f = fixture();
    GradientView view;
    view.setTrace(f.trace, f.config);
    QVERIFY(!view.parameterSectionVisible());
    view.setParameterGradients(f.params, f.grads, f.optimizer);
    QVERIFY(view.parameterSectionVisible());
    QVERIFY(!view.showParameter(QStringLiteral("no.such.weight")));
    for (const char* name : {"projection.weight", "decoder.layers.1.dec_self_attn.W_Q.weight",
                             "encoder.layers.0.pos_ffn.fc.2.weight", "encoder.src_emb.weight"}) {
        QVERIFY(view.showParameter(QString::fromLatin1(name)));
        QCOMPARE(view.currentParameter(), QString::fromLatin1(name));
        QCOMPARE(view.focus(), GradientView::Focus::Parameter);
        const Tensor& W = f.params->at(name);
        const Tensor& G = f.grads->at(name);
        const Tensor U = f.optimizer->preview_update(f.params->index_of(name), W, G);
        const int cols = int(W.shape.back());
        const int rows = int(W.size() / cols);
        for (auto* h : {view.weightHeatmap(), view.weightGradientHeatmap(), view.updateHeatmap()}) {
            QCOMPARE(h->rows(), rows);
            QCOMPARE(h->cols(), cols);
        }
        for (int r = 0; r < rows; ++r)
            for (int c = 0; c < cols; ++c) {
                const size_t i = size_t(r) * cols + c;
                QCOMPARE(view.weightHeatmap()->value(r, c), W.data[i]);
                QCOMPARE(view.weightGradientHeatmap()->value(r, c), G.data[i]);
                QCOMPARE(view.updateHeatmap()->value(r, c), U.data[i]);
            }
        QCOMPARE(view.previewedUpdate().data, U.data);
    }
    // Labels say what the rows are.
    view.showParameter(QStringLiteral("projection.weight"));
    QCOMPARE(view.weightHeatmap()->rowLabels().at(4), QStringLiteral("beer"));
    QVERIFY(view.updateHeatmap()->tooltipText(4, 0).contains(QStringLiteral("after the step")));
    // The picker lists every parameter and selects through showParameter.
    auto* picker = view.findChild<QComboBox*>(QStringLiteral("parameterPicker"));
    QCOMPARE(picker->count(), int(f.params->size()));
    picker->setCurrentIndex(0);
    QCOMPARE(view.currentParameter(), QString::fromStdString(f.params->name(0)));
    // Without an optimizer the update is not shown.
    view.setParameterGradients(f.params, f.grads, nullptr);
    QVERIFY(view.updateHeatmap()->isEmpty());
    QVERIFY(view.weightGradientHeatmap()->rows() > 0);
}

void TestGradientView::weightFollowsTheStep() {
    const Fixture& f = fixture();
    const Trace& tr = *f.trace;
    QCOMPARE(GradientView::relatedParameter(tr, QStringLiteral("grad.decoder.layers.1.dec_self_attn.Q"), false),
             QStringLiteral("decoder.layers.1.dec_self_attn.W_Q.weight"));
    QCOMPARE(GradientView::relatedParameter(tr, QStringLiteral("encoder.layers.0.pos_ffn.hidden"), false),
             QStringLiteral("encoder.layers.0.pos_ffn.fc.0.weight"));
    QCOMPARE(GradientView::relatedParameter(tr, QStringLiteral("grad.projection.logits"), false),
             QStringLiteral("projection.weight"));
    QCOMPARE(GradientView::relatedParameter(tr, QStringLiteral("grad.decoder.tgt_emb.out"), false),
             QStringLiteral("decoder.tgt_emb.weight"));
    // The tutorial's LayerNorm has no weight: its output leads to the sub-layer's last linear.
    QCOMPARE(GradientView::relatedParameter(tr, QStringLiteral("grad.encoder.layers.1.enc_self_attn.out"), false),
             QStringLiteral("encoder.layers.1.enc_self_attn.fc.weight"));
    QCOMPARE(GradientView::relatedParameter(tr, QStringLiteral("grad.encoder.layers.1.pos_ffn.out"), false),
             QStringLiteral("encoder.layers.1.pos_ffn.fc.2.weight"));
    // Every related parameter exists, with fixed and with learned LayerNorm.
    QVERIFY(!f.config.learn_layer_norm);
    for (const QString& s : backwardStepOrder(*f.trace)) {
        const QString p = GradientView::relatedParameter(tr, s, false);
        if (!p.isEmpty()) QVERIFY2(f.params->contains(p.toStdString()), qPrintable(p));
    }
    // A learned LayerNorm leads to its own γ, the parameter its step reads.
    Config learned = f.config;
    learned.learn_layer_norm = true;
    const Transformer learnedModel(learned, init_params(learned, 2));
    const Batch batch = make_batch(learned, {"ich mochte ein bier P"}, {"S i want a beer ."}, {"i want a beer . E"});
    Trace learnedTrace;
    learnedModel.forward(batch, learnedTrace);
    learnedModel.loss(batch, learnedTrace);
    ParamSet learnedGrads;
    learnedModel.backward(batch, learnedTrace, learnedGrads);
    QCOMPARE(GradientView::relatedParameter(learnedTrace, QStringLiteral("grad.encoder.layers.1.enc_self_attn.out"), true),
             QStringLiteral("encoder.layers.1.enc_self_attn.layer_norm.weight"));
    for (const QString& s : backwardStepOrder(learnedTrace)) {
        const QString p = GradientView::relatedParameter(learnedTrace, s, true);
        if (!p.isEmpty()) QVERIFY2(learnedModel.params().contains(p.toStdString()), qPrintable(p));
    }
    GradientView view;
    view.setTrace(f.trace, f.config);
    view.setParameterGradients(f.params, f.grads, f.optimizer);
    view.setStep(QStringLiteral("grad.decoder.layers.0.dec_enc_attn.K"));
    QCOMPARE(view.currentParameter(), QStringLiteral("decoder.layers.0.dec_enc_attn.W_K.weight"));
    QCOMPARE(view.focus(), GradientView::Focus::Tensor);
    // Once a weight is picked by hand it stays.
    view.showParameter(QStringLiteral("projection.weight"));
    view.setStep(QStringLiteral("grad.decoder.layers.0.dec_enc_attn.V"));
    QCOMPARE(view.currentParameter(), QStringLiteral("projection.weight"));
}

void TestGradientView::traceWithoutGradientsSaysSo() {
    const Fixture& f = fixture();
    auto fwd = std::make_shared<Trace>();
    f.model->forward(make_training_batch(f.config, builtin_examples(), {0, 1}), *fwd);
    GradientView view;
    view.setTrace(fwd, f.config);
    QVERIFY(!view.hasData());
    QVERIFY(view.message().contains(QStringLiteral("backward")));
    view.setStep(QStringLiteral("projection.logits"));
    QVERIFY(!view.hasData());
    QVERIFY(view.message().contains(QStringLiteral("No gradient")));
    QCOMPARE(view.currentTensor(), nullptr);
    GradientView empty;
    QVERIFY(!empty.hasData());
    QVERIFY(!empty.message().isEmpty());
}

void TestGradientView::exportsTheGradientInFocus() {
    const Fixture& f = fixture();
    GradientView view;
    view.setTrace(f.trace, f.config);
    view.setParameterGradients(f.params, f.grads, f.optimizer);
    view.setStep(QStringLiteral("decoder.layers.1.pos_ffn.relu"));
    QCOMPARE(view.exportWidget(), static_cast<QWidget*>(&view));
    QCOMPARE(view.currentTensorName(), QStringLiteral("grad.decoder.layers.1.pos_ffn.relu"));
    QCOMPARE(view.currentTensor(), &f.trace->at("grad.decoder.layers.1.pos_ffn.relu").value);
    view.showParameter(QStringLiteral("projection.weight"));
    QCOMPARE(view.currentTensorName(), QStringLiteral("grad.projection.weight"));
    QCOMPARE(view.currentTensor(), &f.grads->at("projection.weight"));
    view.setStep(QStringLiteral("grad.projection.logits"));
    QCOMPARE(view.currentTensorName(), QStringLiteral("grad.projection.logits"));
}

void TestGradientView::grabIsNotBlank() {
    const Fixture& f = fixture();
    GradientView view;
    view.resize(1200, 800);
    view.setTrace(f.trace, f.config);
    view.setParameterGradients(f.params, f.grads, f.optimizer);
    view.setStep(QStringLiteral("grad.decoder.layers.1.dec_self_attn.Q"));
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const QImage img = view.grab().toImage();
    QVERIFY(!img.isNull());
    QVERIFY2(distinctColors(img) > 50, qPrintable(QString::number(distinctColors(img))));
    QVERIFY(distinctColors(view.gradientHeatmap()->grab().toImage()) > 5);
    QVERIFY(distinctColors(view.updateHeatmap()->grab().toImage()) > 5);
    saveShot(view, QStringLiteral("gradient_view.png"));
    view.setStep(QStringLiteral("grad.projection.logits"));
    QTest::qWait(50);
    saveShot(view, QStringLiteral("gradient_view_logits.png"));
    view.setStep(QStringLiteral("grad.encoder.layers.0.pos_ffn.hidden"));
    QTest::qWait(50);
    saveShot(view, QStringLiteral("gradient_view_ffn.png"));
}

// The central view's size at 1366 × 768 with the default docks (measured: ~724 × 565), rounded down.
constexpr int kLaptopW = 700, kLaptopH = 540;

void TestGradientView::blocksShowEachBlocksLargestEntry() {
    // 130 × 3: rows in blocks of 3 (44 blocks, the last of 1 row), columns one by one.
    const ParamBlocks b = paramBlocks(130, 3);
    QCOMPARE(b.rowStep, 3);
    QCOMPARE(b.colStep, 1);
    QCOMPARE(b.blockRows(), 44);
    QCOMPARE(b.lastRow(43), 129);
    std::vector<float> v(130 * 3);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(std::sin(double(i) * 1.7)) * float(i % 7);
    const PooledValues p = poolLargest(v, b);
    QCOMPARE(int(p.values->size()), 44 * 3);
    for (int r = 0; r < 44; ++r)
        for (int c = 0; c < 3; ++c) {
            float best = 0.0f;
            for (int rr = b.firstRow(r); rr <= b.lastRow(r); ++rr)
                if (std::fabs(v[size_t(rr) * 3 + c]) > std::fabs(best)) best = v[size_t(rr) * 3 + c];
            const size_t cell = size_t(r) * 3 + size_t(c);
            QCOMPARE((*p.values)[cell], best);
            QCOMPARE(v[size_t((*p.source)[cell])], best);  // the entry it names
        }
    // Blocks across columns too (the segment scan), with ties, a segment of NaNs only, one NaN and
    // one +inf among numbers: the first largest entry of a block wins, except that a NaN or ±inf
    // always wins (the first of its block), so a bad weight is never hidden in the overview.
    const ParamBlocks wide = paramBlocks(70, 300);  // blocks of 2 rows × 5 columns
    QCOMPARE(wide.colStep, 5);
    std::vector<float> w(70 * 300);
    for (size_t i = 0; i < w.size(); ++i) w[i] = float(std::cos(double(i) * 0.37)) * float(1 + i % 13);
    w[7] = 50.0f, w[8] = -50.0f;  // a tie in block (0, 1): the first, at column 7, wins
    for (int c = 10; c < 15; ++c) w[size_t(c)] = w[300 + size_t(c)] = std::nanf("");  // block (0, 2): NaNs only
    w[300 * 4 + 20] = std::nanf("");
    w[300 * 10 + 33] = std::numeric_limits<float>::infinity();
    const PooledValues q = poolLargest(w, wide);
    for (int r = 0; r < wide.blockRows(); ++r)
        for (int c = 0; c < wide.blockCols(); ++c) {
            int64_t at = -1, firstBad = -1;
            float bestAbs = -1.0f;
            for (int rr = wide.firstRow(r); rr <= wide.lastRow(r); ++rr)
                for (int cc = wide.firstCol(c); cc <= wide.lastCol(c); ++cc) {
                    const float x = w[size_t(rr) * 300 + size_t(cc)], a = std::fabs(x);
                    if (!std::isfinite(x) && firstBad < 0) firstBad = int64_t(rr) * 300 + cc;
                    if (a > bestAbs) bestAbs = a, at = int64_t(rr) * 300 + cc;
                }
            if (firstBad >= 0) at = firstBad;
            const size_t cell = size_t(r) * size_t(wide.blockCols()) + size_t(c);
            QCOMPARE((*q.source)[cell], at);
            const float shown = (*q.values)[cell], entry = w[size_t(at)];
            QVERIFY(shown == entry || (std::isnan(shown) && std::isnan(entry)));
        }
    QCOMPARE((*q.source)[1], int64_t(7));
    QCOMPARE((*q.source)[2], int64_t(10));  // the block of NaNs: its first
    const int C = wide.blockCols();
    QCOMPARE((*q.source)[size_t(2 * C + 4)], int64_t(300 * 4 + 20));   // one NaN among numbers
    QCOMPARE((*q.source)[size_t(5 * C + 6)], int64_t(300 * 10 + 33));  // +inf
    QVERIFY(std::isinf((*q.values)[size_t(5 * C + 6)]));

    QCOMPARE(blockLabels({"0", "1", "2", "3", "4"}, 2), QStringList({"0\u20131", "2\u20133", "4"}));
    QVERIFY(!paramBlocks(64, 64).pooled());
    QCOMPARE(paramBlocks(2048, 512).blockRows(), 64);
    QCOMPARE(paramBlocks(2048, 512).blockCols(), 64);
}

void TestGradientView::panelsReadableAtLaptopSize() {
    const Fixture& f = fixture();
    GradientView view;
    view.resize(kLaptopW, kLaptopH);
    view.setTrace(f.trace, f.config);
    view.setParameterGradients(f.params, f.grads, f.optimizer);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    // It fits without the main window's scroll area scrolling it (no nested scroll bars).
    QVERIFY2(view.minimumSizeHint().width() <= kLaptopW && view.minimumSizeHint().height() <= kLaptopH,
             qPrintable(QStringLiteral("%1x%2").arg(view.minimumSizeHint().width()).arg(view.minimumSizeHint().height())));
    // The scroll area sizes a view with wrapped labels by its height for width, whichever page.
    view.showParameter(QStringLiteral("encoder.layers.0.pos_ffn.fc.0.weight"));
    QVERIFY2(view.heightForWidth(kLaptopW) <= kLaptopH, qPrintable(QString::number(view.heightForWidth(kLaptopW))));
    for (const QString& step : backwardStepOrder(*f.trace)) {
        view.setStep(step);
        QCOMPARE(view.page(), GradientView::Page::Tensor);
        QCoreApplication::processEvents();
        for (HeatmapWidget* h : {view.valueHeatmap(), view.gradientHeatmap()}) {
            QVERIFY2(h->isVisible(), qPrintable(step));
            // Every token row readable (at least 8 px) and in view.
            QVERIFY2(h->cellSize().height() >= 8, qPrintable(step + QStringLiteral(": %1 px").arg(h->cellSize().height())));
            QVERIFY2(h->rows() * h->cellSize().height() <= h->viewport()->height(), qPrintable(step));
        }
    }
    // The weight pages: one matrix at a time, each with the page's height.
    view.setStep(QStringLiteral("grad.encoder.layers.0.pos_ffn.hidden"));
    const struct {
        const char* button;
        HeatmapWidget* map;
    } pages[] = {{"gradShowWeight", view.weightHeatmap()},
                 {"gradShowWeightGradient", view.weightGradientHeatmap()},
                 {"gradShowUpdate", view.updateHeatmap()}};
    for (const auto& pg : pages) {
        auto* b = view.findChild<QAbstractButton*>(QLatin1String(pg.button));
        QVERIFY(b && b->isEnabled());
        b->click();
        QCoreApplication::processEvents();
        QVERIFY2(pg.map->isVisible(), pg.button);
        QVERIFY(!view.valueHeatmap()->isVisible());
        QCOMPARE(view.focus(), GradientView::Focus::Parameter);
        // fc.0 of the small model (64 × 32): whole, in rows of at least 5 px, 150 px in all.
        QVERIFY2(pg.map->rows() >= 32, pg.button);
        QVERIFY2(pg.map->cellSize().height() >= 5, pg.button);
        QVERIFY2(pg.map->rows() * pg.map->cellSize().height() >= 150, pg.button);
        QCOMPARE(pg.map->verticalScrollBar()->maximum(), 0);
        QCOMPARE(pg.map->horizontalScrollBar()->maximum(), 0);
        for (HeatmapWidget* other : {view.weightHeatmap(), view.weightGradientHeatmap(), view.updateHeatmap()})
            if (other != pg.map) QVERIFY(!other->isVisible());
    }
    view.findChild<QAbstractButton*>(QStringLiteral("gradShowTensor"))->click();
    QCOMPARE(view.focus(), GradientView::Focus::Tensor);
    QVERIFY(view.gradientHeatmap()->isVisible());
    // Picking a weight shows its gradient.
    view.showParameter(QStringLiteral("projection.weight"));
    QCOMPARE(view.page(), GradientView::Page::WeightGradient);
    QVERIFY(view.weightGradientHeatmap()->isVisible());
}

void TestGradientView::tutorialWeightsFitWhole() {
    // The tutorial's sizes (d_model 512, d_ff 2048): a few of its weights are enough.
    const Config tut;
    QCOMPARE(tut.d_model, 512);
    std::vector<ParamSpec> specs;
    for (const ParamSpec& s : param_specs(tut))
        if (s.name == "encoder.layers.0.enc_self_attn.W_Q.weight" || s.name == "encoder.layers.0.pos_ffn.fc.0.weight")
            specs.push_back(s);
    QCOMPARE(specs.size(), size_t(2));
    auto params = std::make_shared<ParamSet>(specs);
    auto grads = std::make_shared<ParamSet>(specs);
    for (size_t i = 0; i < params->size(); ++i)
        for (size_t k = 0; k < (*params)[i].data.size(); ++k) {
            (*params)[i].data[k] = float(std::sin(double(k) * 0.37));
            (*grads)[i].data[k] = float(std::cos(double(k) * 0.11)) * 1e-3f;
        }
    auto optimizer = std::make_shared<const Optimizer>(OptimizerOptions{}, *params);
    GradientView view;
    view.resize(kLaptopW, kLaptopH);
    view.setParameterGradients(params, grads, optimizer);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    auto* pane = view.findChild<ParameterPane*>(QStringLiteral("paramSection"));
    QVERIFY(pane);
    for (const char* name : {"encoder.layers.0.enc_self_attn.W_Q.weight", "encoder.layers.0.pos_ffn.fc.0.weight"}) {
        QVERIFY(view.showParameter(QLatin1String(name)));
        QVERIFY(pane->showsBlocks());
        for (const GradientView::Page p : {GradientView::Page::Weight, GradientView::Page::WeightGradient, GradientView::Page::Update}) {
            view.showPage(p);
            QCoreApplication::processEvents();
            HeatmapWidget* h = pane->shownHeatmap();
            QVERIFY(h->isVisible());
            // 512 or 2048 rows as 32 blocks (64 where the page is taller), 512 columns as 64:
            // the whole weight in view, rows of at least 5 px, at least 150 px tall, no scrolling.
            QCOMPARE(h->rows(), 32);
            QCOMPARE(h->cols(), 64);
            QVERIFY2(h->cellSize().height() >= 5, name);
            QVERIFY2(h->rows() * h->cellSize().height() >= 150, name);
            QCOMPARE(h->verticalScrollBar()->maximum(), 0);
            QCOMPARE(h->horizontalScrollBar()->maximum(), 0);
            QVERIFY2(h->tooltipText(0, 0).contains(QStringLiteral("Block")), name);
        }
        saveShot(view, QStringLiteral("gradient_view_%1.png").arg(QLatin1String(name)));
    }
    // Every entry on demand: the full matrix, to zoom and scroll.
    auto* every = view.findChild<QCheckBox*>(QStringLiteral("paramEveryEntry"));
    QVERIFY(every && every->isVisible());
    view.showPage(GradientView::Page::WeightGradient);
    every->click();
    QVERIFY(!pane->showsBlocks());
    QCOMPARE(pane->shownHeatmap()->rows(), 2048);
    QCOMPARE(pane->shownHeatmap()->value(2047, 511), grads->at("encoder.layers.0.pos_ffn.fc.0.weight").data.back());
    every->click();
    // A taller page (1920 × 1080) has room for 64 rows of blocks.
    view.resize(1200, 900);
    QCoreApplication::processEvents();
    QVERIFY(pane->showsBlocks());
    QCOMPARE(pane->shownHeatmap()->rows(), 64);
    QCOMPARE(pane->shownHeatmap()->verticalScrollBar()->maximum(), 0);
    saveShot(view, QStringLiteral("gradient_view_fc0_tall.png"));
}

void TestGradientView::explanationFollowsTheForwardRole() {
    const Fixture& f = fixture();
    ExplainPanel panel;
    panel.setTrace(f.trace, f.config);
    QHash<Role, QString> byRole;  // the explanation of each forward role's gradient
    for (const QString& step : backwardStepOrder(*f.trace)) {
        const TraceEntry* fwd = f.trace->find(step.mid(5).toStdString());
        QVERIFY(fwd);
        panel.setStep(step);
        const QString md = panel.markdown();
        QVERIFY2(!md.contains(QStringLiteral("for this intermediate tensor")), qPrintable(step));  // not the generic text
        const QString body = md.mid(md.indexOf(QStringLiteral("**Formula:**")));
        if (byRole.contains(fwd->role))
            QCOMPARE(body, byRole.value(fwd->role));  // the same role, the same text
        byRole.insert(fwd->role, body);
    }
    QVERIFY(byRole.size() >= 14);
    const QStringList bodies = byRole.values();
    QCOMPARE(QSet<QString>(bodies.begin(), bodies.end()).size(), bodies.size());  // every role its own
    const auto has = [&](Role r, const char* words) {
        return byRole.value(r).contains(QLatin1String(words), Qt::CaseInsensitive);
    };
    QVERIFY(has(Role::Softmax, "Jacobian"));
    QVERIFY(has(Role::Scores, "split into Q and K"));
    QVERIFY(has(Role::Residual, "both branches"));
    QVERIFY(has(Role::Relu, "negative"));
    QVERIFY(has(Role::Embedding, "sum of the gradients"));
    QVERIFY(has(Role::LayerNorm, "LayerNorm"));
    // A forward step keeps its own explanation.
    panel.setStep(QStringLiteral("projection.logits"));
    QVERIFY(!panel.markdown().contains(QStringLiteral("where the backward pass starts")));
}

void TestGradientView::headerNumbersStepsAsTheNavigator() {
    const Fixture& f = fixture();
    StepNavigator nav;
    nav.setTrace(f.trace);
    GradientView view;
    view.setTrace(f.trace, f.config);
    const auto follow = [&] {  // what the main window does on a step
        const QString s = view.stepFor(nav.currentStep());
        if (!s.isEmpty()) view.setStep(s);
        return !s.isEmpty();
    };
    // Forward: the navigator's "Step p/n" is the header's forward step p of n.
    int checked = 0;
    for (const char* step : {"encoder.src_emb.out", "encoder.layers.0.enc_self_attn.Q", "projection.logits"}) {
        QVERIFY(nav.setCurrentStep(QLatin1String(step)));
        QVERIFY(follow());
        const QString want = QStringLiteral("forward step %1 of %2").arg(nav.currentPosition() + 1).arg(nav.stepCount());
        QVERIFY2(view.headerText().contains(want), qPrintable(view.headerText() + QStringLiteral(" / ") + want));
        QVERIFY(!view.headerText().contains(QStringLiteral("(backward step")));
        ++checked;
    }
    // Backward: the navigator's "Step p/n" is the header's backward step p of n.
    QVERIFY(nav.setBackward(true));
    for (const char* step : {"grad.projection.logits", "grad.encoder.layers.0.enc_self_attn.Q", "grad.encoder.src_emb.out"}) {
        QVERIFY(nav.setCurrentStep(QLatin1String(step)));
        QVERIFY(follow());
        const QString want = QStringLiteral("(backward step %1 of %2)").arg(nav.currentPosition() + 1).arg(nav.stepCount());
        QVERIFY2(view.headerText().contains(want), qPrintable(view.headerText() + QStringLiteral(" / ") + want));
        QVERIFY(!view.headerText().contains(QStringLiteral("forward step")));
        ++checked;
    }
    QCOMPARE(checked, 6);
    QCOMPARE(view.currentStep(), QStringLiteral("grad.encoder.src_emb.out"));
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestGradientView t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_gradient_view.moc"
