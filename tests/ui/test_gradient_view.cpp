// Backward stepping: backwardStepOrder / BackwardStepList visit the grad.* entries in reverse
// computation order with friendly labels; GradientView shows each tensor beside its gradient
// with the core's numbers, and a weight beside its gradient and the optimizer's previewed update.
#include <QtTest>

#include <QApplication>
#include <QComboBox>
#include <QSet>
#include <QSpinBox>

#include <cmath>
#include <memory>

#include "steps/backward_steps.h"
#include "views/gradient_view.h"
#include "widgets/heatmap_widget.h"
#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/optimizer.h"
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
    QCOMPARE(GradientView::relatedParameter(tr, QStringLiteral("grad.encoder.layers.1.enc_self_attn.out"), true),
             QStringLiteral("encoder.layers.1.enc_self_attn.layer_norm.weight"));
    // Every related parameter exists, with fixed and with learned LayerNorm.
    QVERIFY(!f.config.learn_layer_norm);
    for (const QString& s : backwardStepOrder(*f.trace)) {
        const QString p = GradientView::relatedParameter(tr, s, false);
        if (!p.isEmpty()) QVERIFY2(f.params->contains(p.toStdString()), qPrintable(p));
    }
    Config learned = f.config;
    learned.learn_layer_norm = true;
    const ParamSet learnedParams(param_specs(learned));
    for (const QString& s : backwardStepOrder(*f.trace)) {
        const QString p = GradientView::relatedParameter(tr, s, true);
        if (!p.isEmpty()) QVERIFY2(learnedParams.contains(p.toStdString()), qPrintable(p));
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

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestGradientView t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_gradient_view.moc"
