// TensorView, AttentionView and MaskView on real traces: every step shows something (and
// nothing crashes, whatever the trace), the panels hold the traced numbers, tooltips explain the
// cells, masked attention weights are exactly 0, and the controls are named and explained.
#include <cmath>
#include <memory>

#include <QAbstractButton>
#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QHelpEvent>
#include <QImage>
#include <QLabel>
#include <QRegularExpression>
#include <QScrollBar>
#include <QSet>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTest>
#include <QToolTip>

#include "views/attention_lines_widget.h"
#include "views/attention_view.h"
#include "widgets/heatmap_widget.h"
#include "widgets/number_format.h"
#include "views/mask_view.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "steps/tensor_slice.h"
#include "views/tensor_view.h"
#include "test_util.h"

using namespace stepformer;

namespace {

std::shared_ptr<Trace> makeTrace(const Config& c, bool withGradients, int sentences = 2) {
    Transformer model(c, init_params(c, 1));
    std::vector<std::string> src = {"ich mochte ein bier P", "ich mochte ein cola P"};
    std::vector<std::string> tgt = {"S i want a beer .", "S i want a coke ."};
    std::vector<std::string> out = {"i want a beer . E", "i want a coke . E"};
    src.resize(size_t(sentences));
    tgt.resize(size_t(sentences));
    out.resize(size_t(sentences));
    const Batch b = make_batch(c, src, tgt, out);
    auto tr = std::make_shared<Trace>();
    model.forward(b, *tr);
    if (withGradients) {
        model.loss(b, *tr);
        ParamSet grads;
        model.backward(b, *tr, grads, true);
    }
    return tr;
}

// How many different colours a grab has: a blank or single-colour widget has very few.
int distinctColours(QWidget& w) {
    const QImage img = w.grab().toImage().convertToFormat(QImage::Format_RGB32);
    QSet<QRgb> set;
    for (int y = 0; y < img.height(); y += 3)
        for (int x = 0; x < img.width(); x += 3) set.insert(img.pixel(x, y));
    return set.size();
}

// Helpers return what failed (empty when all held); the test checks with VERIFY_HELPER.
[[nodiscard]] QString showAt(QWidget& w, int width = 1200, int height = 800) {
    w.resize(width, height);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w))
        return QStringLiteral("%1 was not exposed").arg(QString::fromLatin1(w.metaObject()->className()));
    return {};
}

[[nodiscard]] QString checkControlsNamedAndExplained(QWidget& view) {
    QStringList failures;
    const auto check = [&failures](QWidget* w) {
        const QString kind = QString::fromLatin1(w->metaObject()->className());
        if (w->objectName().isEmpty()) failures << QStringLiteral("a %1 has no object name").arg(kind);
        if (w->toolTip().isEmpty())
            failures << QStringLiteral("%1 has no tooltip").arg(w->objectName().isEmpty() ? kind : w->objectName());
    };
    for (auto* w : view.findChildren<QComboBox*>()) check(w);
    for (auto* w : view.findChildren<QSpinBox*>()) check(w);
    for (auto* w : view.findChildren<QAbstractButton*>()) check(w);
    return failures.join(QStringLiteral("; "));
}

}  // namespace

class TestTensorViews : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void objectNamesAndControls();
    void tensorViewEveryStep();
    void tensorViewScoresStep();
    void tensorViewGradientStep();
    void tensorViewHeadsAndBatch();
    void tensorViewWideTensorsZoomAndScrollTogether();
    void tensorViewTooltipThroughHelpEvent();
    void tensorViewNextStepOfSameShapeStartsFresh();
    void attentionViewBlocksHeadsAndLines();
    void maskViewMaskedAttentionIsExactlyZero();
    void viewsEveryStepDoNotCrash();
    void robustOnOddTraces();
    void screenshots();
    void pickersTellWhichEntryIsShown();
    void maskStepNamesNoLayer();

private:
    Config small_;
    std::shared_ptr<Trace> trace_;  // forward + loss + backward, 2 sentences
};

void TestTensorViews::initTestCase() {
    small_ = Config::small();
    trace_ = makeTrace(small_, true);
    QVERIFY(trace_->contains("grad.encoder.layers.0.enc_self_attn.scores"));
}

void TestTensorViews::objectNamesAndControls() {
    TensorView tv;
    AttentionView av;
    MaskView mv;
    QCOMPARE(tv.objectName(), QStringLiteral("tensorView"));
    QCOMPARE(av.objectName(), QStringLiteral("attentionView"));
    QCOMPARE(mv.objectName(), QStringLiteral("maskView"));
    QVERIFY(tv.findChild<QComboBox*>(QStringLiteral("batchPicker")));
    QVERIFY(tv.findChild<QSpinBox*>(QStringLiteral("headPicker")));
    QVERIFY(tv.findChild<QCheckBox*>(QStringLiteral("headGridToggle")));
    for (const char* n : {"zoomInButton", "zoomOutButton", "zoomFitButton"}) QVERIFY(tv.findChild<QAbstractButton*>(n));
    for (const char* n : {"layerPicker", "blockPicker", "batchPicker"}) QVERIFY(av.findChild<QComboBox*>(n));
    QVERIFY(av.findChild<QSpinBox*>(QStringLiteral("headPicker")));
    QVERIFY(av.findChild<AttentionLinesWidget*>(QStringLiteral("attentionLines")));
    for (const char* n : {"layerPicker", "blockPicker", "batchPicker"}) QVERIFY(mv.findChild<QComboBox*>(n));
    QVERIFY(mv.findChild<QSpinBox*>(QStringLiteral("headPicker")));
    tv.setTrace(trace_, small_);
    tv.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    av.setTrace(trace_, small_);
    mv.setTrace(trace_, small_);
    VERIFY_HELPER(checkControlsNamedAndExplained(tv));
    VERIFY_HELPER(checkControlsNamedAndExplained(av));
    VERIFY_HELPER(checkControlsNamedAndExplained(mv));
}

void TestTensorViews::tensorViewEveryStep() {
    TensorView tv;
    tv.setTrace(trace_, small_);
    VERIFY_HELPER(showAt(tv));
    int grabbed = 0;
    for (const auto& e : trace_->entries()) {
        const QString name = QString::fromStdString(e.name);
        tv.setStep(name);
        QCOMPARE(tv.currentTensorName(), name);
        QCOMPARE(tv.currentTensor(), &e.value);
        QVERIFY2(tv.hasData(), qPrintable(name));
        QVERIFY2(tv.outputHeatmap() && !tv.outputHeatmap()->isEmpty(), qPrintable(name));
        // The output panel holds the traced numbers of sentence 0 (head 0).
        const tensorviz::Matrix m = tensorviz::slice(*trace_, e, 0, 0, &small_);
        QCOMPARE(tv.outputHeatmap()->rows(), m.rows);
        QCOMPARE(tv.outputHeatmap()->cols(), m.cols);
        QCOMPARE(tv.outputHeatmap()->value(m.rows - 1, m.cols - 1), m.at(m.rows - 1, m.cols - 1));
        if (++grabbed % 25 == 1) QVERIFY2(distinctColours(tv) > 20, qPrintable(name));
    }
}

void TestTensorViews::tensorViewScoresStep() {
    TensorView tv;
    tv.setTrace(trace_, small_);
    tv.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    VERIFY_HELPER(showAt(tv));
    // Q, Kᵀ and the scores of the chosen head.
    QCOMPARE(tv.heatmaps().size(), 3);
    HeatmapWidget* q = tv.heatmaps()[0];
    HeatmapWidget* kt = tv.heatmaps()[1];
    HeatmapWidget* sc = tv.heatmaps()[2];
    QVERIFY(q->title().startsWith(QStringLiteral("Q")));
    QVERIFY(kt->title().startsWith(QStringLiteral("K\u1d40")));
    QCOMPARE(q->cols(), small_.d_k);
    QCOMPARE(kt->rows(), small_.d_k);  // transposed
    QCOMPARE(kt->cols(), small_.src_len);
    QCOMPARE(sc->rowLabels().first(), QStringLiteral("ich"));
    QCOMPARE(sc->colLabels().last(), QStringLiteral("P"));
    // scores = Q·Kᵀ/√d_k, cell by cell.
    for (int i = 0; i < sc->rows(); ++i)
        for (int j = 0; j < sc->cols(); ++j) {
            double dot = 0;
            for (int d = 0; d < small_.d_k; ++d) dot += double(q->value(i, d)) * kt->value(d, j);
            QVERIFY(std::fabs(dot / std::sqrt(double(small_.d_k)) - sc->value(i, j)) < 1e-4);
        }
    // The tooltip says how the cell was made, with the exact value, indices and tokens.
    const QString tip = sc->tooltipText(1, 4);
    QVERIFY2(tip.contains(QStringLiteral("\u221ad_k")), qPrintable(tip));
    QVERIFY(tip.contains(QStringLiteral("q<sub>1</sub>")));
    QVERIFY(tip.contains(QStringLiteral("k<sub>4</sub>")));
    QVERIFY(tip.contains(numfmt::exact(sc->value(1, 4))));
    QVERIFY(tip.contains(QStringLiteral("'mochte'")));
    QVERIFY(tip.contains(QStringLiteral("'P'")));
    QVERIFY(tip.contains(QStringLiteral("[0, 0, 1, 4]")));
    QVERIFY(tip.contains(QStringLiteral("masked")));  // key 'P' is padding
    // Diverging scale for signed values.
    QCOMPARE(sc->colormap().kind(), Colormap::Kind::Diverging);
    QVERIFY(!tv.findChild<QLabel*>(QStringLiteral("formulaLabel"))->text().isEmpty());
}

void TestTensorViews::tensorViewGradientStep() {
    TensorView tv;
    tv.setTrace(trace_, small_);
    const QString name = QStringLiteral("grad.decoder.layers.1.dec_self_attn.attn");
    tv.setStep(name);
    VERIFY_HELPER(showAt(tv));
    QCOMPARE(tv.currentTensorName(), name);
    QCOMPARE(tv.currentTensor(), &trace_->at(name.toStdString()).value);
    QCOMPARE(tv.heatmaps().size(), 2);  // the tensor beside its gradient
    const auto& attn = trace_->at("decoder.layers.1.dec_self_attn.attn").value;
    const auto& grad = trace_->at(name.toStdString()).value;
    QCOMPARE(tv.heatmaps()[0]->value(2, 1), attn.at({0, 0, 2, 1}));
    QCOMPARE(tv.heatmaps()[1]->value(2, 1), grad.at({0, 0, 2, 1}));
    QCOMPARE(tv.heatmaps()[1]->colormap().kind(), Colormap::Kind::Diverging);
    QVERIFY(tv.heatmaps()[1]->tooltipText(2, 1).contains(QStringLiteral("\u2202loss")));
    QVERIFY(distinctColours(tv) > 20);
}

void TestTensorViews::tensorViewHeadsAndBatch() {
    TensorView tv;
    tv.setTrace(trace_, small_);
    tv.setStep(QStringLiteral("decoder.layers.0.dec_enc_attn.Q"));
    VERIFY_HELPER(showAt(tv));
    auto* head = tv.findChild<QSpinBox*>(QStringLiteral("headPicker"));
    auto* batch = tv.findChild<QComboBox*>(QStringLiteral("batchPicker"));
    auto* grid = tv.findChild<QCheckBox*>(QStringLiteral("headGridToggle"));
    QVERIFY(head->isEnabled());
    QCOMPARE(head->maximum(), small_.n_heads - 1);
    QCOMPARE(batch->count(), 2);
    QVERIFY(batch->itemText(1).contains(QStringLiteral("cola")));
    head->setValue(2);
    QCOMPARE(tv.headIndex(), 2);
    const auto& Q = trace_->at("decoder.layers.0.dec_enc_attn.Q").value;
    QCOMPARE(tv.outputHeatmap()->value(3, 5), Q.at({0, 2, 3, 5}));
    tv.zoomIn();
    const double zoomed = tv.outputHeatmap()->zoom();
    QVERIFY(zoomed > 1.0);
    batch->setCurrentIndex(1);
    QCOMPARE(tv.batchIndex(), 1);
    QCOMPARE(tv.outputHeatmap()->value(3, 5), Q.at({1, 2, 3, 5}));
    QCOMPARE(tv.outputHeatmap()->zoom(), zoomed);  // refilled in place: the zoom stays
    tv.setTrace(makeTrace(small_, false), small_);  // a new trace of the same model (training)
    QCOMPARE(tv.outputHeatmap()->zoom(), zoomed);
    tv.setTrace(trace_, small_);
    // The source tokens of sentence 1 label the encoder's rows.
    tv.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.attn"));
    QCOMPARE(tv.outputHeatmap()->rowLabels()[3], QStringLiteral("cola"));
    QCOMPARE(tv.outputHeatmap()->colormap().kind(), Colormap::Kind::Sequential);
    // All heads as a grid; a click picks one.
    grid->setChecked(true);
    QVERIFY(tv.headGridShown());
    QCOMPARE(tv.heatmaps().size(), small_.n_heads);
    QVERIFY(distinctColours(tv) > 20);
    HeatmapWidget* third = tv.heatmaps()[3];
    QTest::mouseClick(third->viewport(), Qt::LeftButton, {}, third->viewport()->rect().center());
    QCOMPARE(tv.headIndex(), 3);
    QTRY_VERIFY(tv.heatmaps().size() == small_.n_heads && tv.heatmaps()[3]->isSelected());
    grid->setChecked(false);
    QCOMPARE(tv.heatmaps().size(), 2);  // masked_scores -> attn
    // Steps without heads disable the head controls.
    tv.setStep(QStringLiteral("encoder.layers.0.pos_ffn.out"));
    QVERIFY(!head->isEnabled());
    QVERIFY(!grid->isEnabled());
}

void TestTensorViews::tensorViewWideTensorsZoomAndScrollTogether() {
    const Config tut = Config::tutorial();
    auto tr = makeTrace(tut, false);
    TensorView tv;
    tv.setTrace(tr, tut);
    tv.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.residual"));
    VERIFY_HELPER(showAt(tv));
    QCOMPARE(tv.heatmaps().size(), 3);  // fc_out + input = residual
    for (auto* h : tv.heatmaps()) QCOMPARE(h->cols(), 512);
    auto* zoomIn = tv.findChild<QAbstractButton*>(QStringLiteral("zoomInButton"));
    const int w0 = tv.heatmaps()[0]->cellSize().width();
    for (int i = 0; i < 4; ++i) zoomIn->click();
    for (auto* h : tv.heatmaps()) {
        QVERIFY(h->cellSize().width() > w0);
        QCOMPARE(h->zoom(), tv.heatmaps()[0]->zoom());
    }
    // Scrolling one wide panel scrolls the others: one column is one feature everywhere.
    auto* bar0 = tv.heatmaps()[0]->horizontalScrollBar();
    QVERIFY(bar0->maximum() > 0);
    bar0->setValue(bar0->maximum() / 2);
    for (auto* h : tv.heatmaps()) QCOMPARE(h->horizontalScrollBar()->value(), bar0->value());
    tv.findChild<QAbstractButton*>(QStringLiteral("zoomFitButton"))->click();
    QCOMPARE(tv.heatmaps()[2]->zoom(), 1.0);
    // Ctrl+wheel on one panel zooms all of them.
    HeatmapWidget* h1 = tv.heatmaps()[1];
    const QPoint pos = h1->viewport()->rect().center();
    QWheelEvent ev(pos, h1->viewport()->mapToGlobal(pos), QPoint(), QPoint(0, 120), Qt::NoButton, Qt::ControlModifier,
                   Qt::NoScrollPhase, false);
    QApplication::sendEvent(h1->viewport(), &ev);
    QVERIFY(h1->zoom() > 1.0);
    QCOMPARE(tv.heatmaps()[0]->zoom(), h1->zoom());
    QVERIFY(distinctColours(tv) > 20);
}

// Steps whose panels have the same structure refill the panels: the new numbers and titles, and
// zoom and scrolling back at the start, as for a new panel.
void TestTensorViews::tensorViewNextStepOfSameShapeStartsFresh() {
    const Config tut = Config::tutorial();
    auto tr = makeTrace(tut, false);
    TensorView tv;
    tv.setTrace(tr, tut);
    const QString first = QStringLiteral("encoder.layers.0.enc_self_attn.residual");
    const QString second = QStringLiteral("encoder.layers.1.enc_self_attn.residual");
    tv.setStep(first);
    VERIFY_HELPER(showAt(tv));
    QCOMPARE(tv.heatmaps().size(), 3);
    QCOMPARE(tv.heatmaps()[1]->title(), QStringLiteral("input (residual): encoder.pos_emb.out"));
    for (int i = 0; i < 3; ++i) tv.findChild<QAbstractButton*>(QStringLiteral("zoomInButton"))->click();
    auto* bar = tv.heatmaps()[0]->horizontalScrollBar();
    bar->setValue(bar->maximum());
    QVERIFY(tv.heatmaps()[0]->zoom() > 1.0);
    QVERIFY(bar->value() > 0);

    tv.setStep(second);
    QCOMPARE(tv.heatmaps().size(), 3);
    const TraceEntry* e = tr->find(second.toStdString());
    QVERIFY(e);
    const tensorviz::Matrix m = tensorviz::slice(*tr, *e, 0, 0, &tut);
    QCOMPARE(tv.outputHeatmap()->value(m.rows - 1, m.cols - 1), m.at(m.rows - 1, m.cols - 1));
    QCOMPARE(tv.outputHeatmap()->value(0, 0), m.at(0, 0));
    // Layer 1's residual input is layer 0's output.
    QCOMPARE(tv.heatmaps()[1]->title(), QStringLiteral("input (residual): encoder.layers.0.pos_ffn.out"));
    for (auto* h : tv.heatmaps()) {
        QCOMPARE(h->zoom(), 1.0);
        QCOMPARE(h->horizontalScrollBar()->value(), 0);
    }
    QVERIFY(distinctColours(tv) > 20);
}

void TestTensorViews::tensorViewTooltipThroughHelpEvent() {
    TensorView tv;
    tv.setTrace(trace_, small_);
    tv.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.residual"));
    VERIFY_HELPER(showAt(tv));
    HeatmapWidget* out = tv.outputHeatmap();
    QVERIFY(out);
    out->ensureCellVisible(2, 7);
    const QRect cr = out->cellRect(2, 7);
    const QPoint vp = out->viewport()->mapFrom(out, cr.center());
    QHelpEvent he(QEvent::ToolTip, vp, out->viewport()->mapToGlobal(vp));
    QApplication::sendEvent(out->viewport(), &he);
    QTRY_VERIFY(QToolTip::isVisible());
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QStringLiteral("'ein'")), qPrintable(tip));  // the token of row 2
    QVERIFY(tip.contains(QStringLiteral("fc_out + input")));
    QVERIFY(tip.contains(numfmt::exact(out->value(2, 7))));
    QToolTip::hideText();
}

void TestTensorViews::attentionViewBlocksHeadsAndLines() {
    AttentionView av;
    av.setTrace(trace_, small_);
    VERIFY_HELPER(showAt(av));
    QVERIFY(av.hasData());
    QVERIFY(distinctColours(av) > 20);
    av.setStep(QStringLiteral("decoder.layers.1.dec_enc_attn.scores"));
    QCOMPARE(av.layerIndex(), 1);
    QCOMPARE(av.blockKind(), QStringLiteral("dec_enc_attn"));
    QCOMPARE(av.currentTensorName(), QStringLiteral("decoder.layers.1.dec_enc_attn.attn"));
    QCOMPARE(av.headHeatmaps().size(), small_.n_heads);
    // Clicking a small multiple enlarges it.
    HeatmapWidget* thumb = av.headHeatmaps()[2];
    QTest::mouseClick(thumb->viewport(), Qt::LeftButton, {}, thumb->viewport()->rect().center());
    QCOMPARE(av.headIndex(), 2);
    QVERIFY(thumb->isSelected());
    QVERIFY(av.enlargedHeatmap()->title().contains(QStringLiteral("head 2")));
    const auto& attn = trace_->at("decoder.layers.1.dec_enc_attn.attn").value;
    QCOMPARE(av.enlargedHeatmap()->value(4, 1), attn.at({0, 2, 4, 1}));
    // Token labels: decoder queries, encoder keys.
    QCOMPARE(av.enlargedHeatmap()->rowLabels()[2], QStringLiteral("want"));
    QCOMPARE(av.enlargedHeatmap()->colLabels()[3], QStringLiteral("bier"));
    // The line view: opacity = weight; hovering a token highlights its lines.
    AttentionLinesWidget* lines = av.linesWidget();
    QCOMPARE(lines->queryCount(), small_.tgt_len);
    QCOMPARE(lines->keyCount(), small_.src_len);
    QVERIFY(std::fabs(lines->lineOpacity(0, 4, 1) - attn.at({0, 2, 4, 1})) < 1e-6);
    QCOMPARE(lines->lineOpacity(0, 4, 4), 0.0);  // the source pad is masked: weight 0
    const QRect tok = lines->tokenRect(true, 3);
    QTest::mouseMove(lines, tok.center());
    QTRY_COMPARE(lines->highlightedQuery(), 3);
    QCOMPARE(av.enlargedHeatmap()->highlightedRow(), 3);  // linked: the matrix outlines that query's row
    QVERIFY(lines->lineOpacity(0, 0, 1) < attn.at({0, 2, 0, 1}) * 0.2);  // others fade
    QVERIFY(std::fabs(lines->lineOpacity(0, 3, 1) - attn.at({0, 2, 3, 1})) < 1e-6);
    QVERIFY(lines->tokenTooltip(true, 3).contains(QStringLiteral("'a'")));
    QVERIFY(distinctColours(*lines) > 10);
    // Every head at once.
    av.findChild<QCheckBox*>(QStringLiteral("allHeadsLinesToggle"))->setChecked(true);
    QCOMPARE(lines->headCount(), small_.n_heads);
    // Pickers.
    auto* block = av.findChild<QComboBox*>(QStringLiteral("blockPicker"));
    block->setCurrentIndex(0);
    QCOMPARE(av.blockKind(), QStringLiteral("enc_self_attn"));
    QCOMPARE(av.enlargedHeatmap()->colLabels()[0], QStringLiteral("ich"));
    av.findChild<QComboBox*>(QStringLiteral("layerPicker"))->setCurrentIndex(0);
    QCOMPARE(av.currentBlock(), QStringLiteral("encoder.layers.0.enc_self_attn"));
    av.findChild<QComboBox*>(QStringLiteral("batchPicker"))->setCurrentIndex(1);
    QCOMPARE(av.enlargedHeatmap()->rowLabels()[3], QStringLiteral("cola"));
}

void TestTensorViews::maskViewMaskedAttentionIsExactlyZero() {
    MaskView mv;
    mv.setTrace(trace_, small_);
    VERIFY_HELPER(showAt(mv));
    QVERIFY(mv.hasData());
    QVERIFY(distinctColours(mv) > 20);
    QCOMPARE(mv.maskHeatmaps().size(), 5);
    for (auto* m : mv.maskHeatmaps()) QVERIFY2(!m->isEmpty(), qPrintable(m->objectName()));
    // Every mask carries its tokens.
    QCOMPARE(mv.maskHeatmaps()[0]->colLabels().last(), QStringLiteral("P"));
    QCOMPARE(mv.maskHeatmaps()[4]->rowLabels().first(), QStringLiteral("S"));
    QCOMPARE(mv.maskHeatmaps()[4]->colLabels().first(), QStringLiteral("ich"));
    // The subsequence mask is 1 above the diagonal.
    HeatmapWidget* subm = mv.findChild<HeatmapWidget*>(QStringLiteral("subsequenceMask"));
    QCOMPARE(subm->value(1, 3), 1.0f);
    QCOMPARE(subm->value(3, 1), 0.0f);
    QVERIFY(subm->isMasked(1, 3));
    QCOMPARE(subm->cellText(1, 3), QStringLiteral("1"));

    for (const char* step : {"decoder.self_attn_mask", "encoder.layers.1.enc_self_attn.attn", "decoder.layers.0.dec_enc_attn.attn"}) {
        mv.setStep(QString::fromLatin1(step));
        for (int h = 0; h < small_.n_heads; ++h) {
            mv.findChild<QSpinBox*>(QStringLiteral("headPicker"))->setValue(h);
            QCOMPARE(mv.headIndex(), h);
            HeatmapWidget* sc = mv.scoresHeatmap();
            HeatmapWidget* ms = mv.maskedScoresHeatmap();
            HeatmapWidget* at = mv.attnHeatmap();
            QVERIFY(!at->isEmpty());
            int masked = 0;
            for (int i = 0; i < at->rows(); ++i) {
                float rowSum = 0;
                for (int j = 0; j < at->cols(); ++j) {
                    rowSum += at->value(i, j);
                    if (!ms->isMasked(i, j)) {
                        QVERIFY(at->value(i, j) > 0.0f);
                        continue;
                    }
                    ++masked;
                    QCOMPARE(ms->value(i, j), -1e9f);
                    QCOMPARE(ms->cellText(i, j), QStringLiteral("\u22121e9"));
                    QVERIFY(ms->tooltipText(i, j).contains(QStringLiteral("\u22121e9")));
                    QVERIFY(sc->value(i, j) > -1e8f);  // before masking: an ordinary score
                    QVERIFY(sc->isMasked(i, j));       // marked where the mask will hit
                    QCOMPARE(at->value(i, j), 0.0f);   // exactly 0 after the softmax
                    QCOMPARE(at->cellText(i, j), QStringLiteral("0"));
                    QVERIFY(at->isMasked(i, j));
                    QVERIFY(at->tooltipText(i, j).contains(QStringLiteral("exactly")));
                }
                QVERIFY(std::fabs(rowSum - 1.0f) < 1e-5f);
            }
            QVERIFY2(masked > 0, step);
        }
    }
    // The masked attention weights are printed (the cells are big enough at this size).
    mv.setStep(QStringLiteral("decoder.layers.0.dec_self_attn.attn"));
    QVERIFY(mv.attnHeatmap()->valuesShown());
    QVERIFY(mv.findChild<HeatmapWidget*>(QStringLiteral("decoderSelfMask"))->isSelected() == false);
    mv.setStep(QStringLiteral("decoder.self_attn_mask"));
    QVERIFY(mv.findChild<HeatmapWidget*>(QStringLiteral("decoderSelfMask"))->isSelected());
    QCOMPARE(mv.currentTensorName(), QStringLiteral("decoder.self_attn_mask"));
    QCOMPARE(mv.blockKind(), QStringLiteral("dec_self_attn"));
}

void TestTensorViews::viewsEveryStepDoNotCrash() {
    AttentionView av;
    MaskView mv;
    av.setTrace(trace_, small_);
    mv.setTrace(trace_, small_);
    av.resize(900, 600);
    mv.resize(900, 600);
    for (const auto& e : trace_->entries()) {
        const QString name = QString::fromStdString(e.name);
        av.setStep(name);
        mv.setStep(name);
        QVERIFY(av.hasData());
        QVERIFY(mv.hasData());
        QVERIFY(av.currentTensor() != nullptr);
    }
    QVERIFY(distinctColours(av) > 20);
    QVERIFY(distinctColours(mv) > 20);
}

void TestTensorViews::robustOnOddTraces() {
    TensorView tv;
    AttentionView av;
    MaskView mv;
    auto all = [&](const std::shared_ptr<const Trace>& tr, const Config& c, const QStringList& steps) -> QString {
        tv.setTrace(tr, c);
        av.setTrace(tr, c);
        mv.setTrace(tr, c);
        for (const auto& s : steps) {
            tv.setStep(s);
            av.setStep(s);
            mv.setStep(s);
            for (QWidget* w : {static_cast<QWidget*>(&tv), static_cast<QWidget*>(&av), static_cast<QWidget*>(&mv)}) {
                w->resize(700, 500);
                if (w->grab().isNull())
                    return QStringLiteral("%1 at step '%2' grabbed a null pixmap").arg(w->objectName(), s);
            }
        }
        return {};
    };
    // No trace at all, then an empty one: friendly messages.
    tv.setStep(QStringLiteral("encoder.src_emb.out"));
    QVERIFY(!tv.hasData());
    QVERIFY(tv.message().contains(QStringLiteral("No data")));
    QVERIFY(!av.hasData());
    QVERIFY(!mv.hasData());
    QVERIFY(tv.currentTensor() == nullptr);
    VERIFY_HELPER(all(std::make_shared<Trace>(), small_,
                      {QString(), QStringLiteral("loss"), QStringLiteral("encoder.layers.0.enc_self_attn.attn")}));
    QVERIFY(!tv.hasData());
    QVERIFY(!tv.message().isEmpty());
    QVERIFY(av.message().contains(QStringLiteral("No attention")));
    QVERIFY(mv.message().contains(QStringLiteral("No masks")));
    // Missing names.
    VERIFY_HELPER(all(trace_, small_,
                      {QStringLiteral("no.such.tensor"), QStringLiteral("grad.no.such"),
                       QStringLiteral("encoder.layers.9.enc_self_attn.Q"), QStringLiteral("decoder.layers.7.dec_enc_attn.attn"),
                       QString()}));
    tv.setStep(QStringLiteral("no.such.tensor"));
    QVERIFY(!tv.hasData());
    QVERIFY(tv.message().contains(QStringLiteral("No data")));
    QVERIFY(tv.currentTensor() == nullptr);
    av.setStep(QStringLiteral("decoder.layers.7.dec_enc_attn.attn"));  // clamped to the last layer
    QVERIFY(av.hasData());
    // A forward-only trace: gradient steps say how to get them.
    auto fwd = makeTrace(small_, false);
    tv.setTrace(fwd, small_);
    tv.setStep(QStringLiteral("grad.loss"));
    QVERIFY(tv.message().contains(QStringLiteral("backward")));
    // One layer, one head, one sentence: every step of every view.
    Config one = Config::small();
    one.n_layers = 1;
    one.n_heads = 1;
    auto tr1 = makeTrace(one, true, 1);
    QStringList steps;
    for (const auto& e : tr1->entries()) steps << QString::fromStdString(e.name);
    VERIFY_HELPER(all(tr1, one, steps));
    tv.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    QVERIFY(tv.hasData());
    QVERIFY(!tv.findChild<QSpinBox*>(QStringLiteral("headPicker"))->isEnabled());
    tv.setHeadGridShown(true);  // one head: no grid, still the panels
    QCOMPARE(tv.heatmaps().size(), 3);
    QVERIFY(av.hasData());
    QCOMPARE(av.headHeatmaps().size(), 1);
    tv.setHeadGridShown(false);
    // A partial trace (inputs of steps missing, no tokens): panels say what is missing.
    auto partial = std::make_shared<Trace>();
    for (const auto& e : trace_->entries()) {
        if (e.name.find(".Q") != std::string::npos || e.name.find("mask") != std::string::npos) continue;
        partial->add(e.name, e.role, e.axes, e.value, e.is_mask);
    }
    QStringList some = {QStringLiteral("encoder.layers.0.enc_self_attn.scores"), QStringLiteral("decoder.layers.0.dec_self_attn.masked_scores"),
                        QStringLiteral("decoder.layers.0.dec_self_attn.attn"), QStringLiteral("encoder.layers.1.enc_self_attn.residual"),
                        QStringLiteral("projection.probs")};
    VERIFY_HELPER(all(partial, small_, some));
    tv.setStep(some[0]);
    QVERIFY(tv.hasData());
    QVERIFY(tv.heatmaps().first()->isEmpty());  // Q is missing: its panel says so
    QVERIFY(!tv.outputHeatmap()->isEmpty());
    QVERIFY(!tv.outputHeatmap()->tooltipText(0, 0).isEmpty());
    QVERIFY(!mv.hasData());  // no masks at all
    // Back to null: still no crash.
    tv.setTrace(nullptr, small_);
    av.setTrace(nullptr, small_);
    mv.setTrace(nullptr, small_);
    QVERIFY(!tv.hasData() && !av.hasData() && !mv.hasData());
}

// The three views drawn at 1200 x 800 show a picture, not a blank page (set
// STEPFORMER_SCREENSHOT_DIR to look at them).
void TestTensorViews::screenshots() {
    TensorView tv;
    tv.setTrace(trace_, small_);
    tv.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    VERIFY_HELPER(showAt(tv));
    QVERIFY(testutil::distinctColors(tv.grab().toImage()) > 20);
    testutil::saveShot(tv, QStringLiteral("tensor_view_scores.png"));
    AttentionView av;
    av.setTrace(trace_, small_);
    av.setStep(QStringLiteral("decoder.layers.0.dec_self_attn.attn"));
    VERIFY_HELPER(showAt(av));
    QVERIFY(testutil::distinctColors(av.grab().toImage()) > 20);
    testutil::saveShot(av, QStringLiteral("attention_view.png"));
    MaskView mv;
    mv.setTrace(trace_, small_);
    mv.setStep(QStringLiteral("decoder.self_attn_mask"));
    VERIFY_HELPER(showAt(mv));
    QVERIFY(testutil::distinctColors(mv.grab().toImage()) > 5);
    testutil::saveShot(mv, QStringLiteral("mask_view.png"));
}

// A block or layer picked in the attention and mask views changes the entry they show, and they
// say so (the window passes it on to the explanation).
void TestTensorViews::pickersTellWhichEntryIsShown() {
    AttentionView av;
    av.setTrace(trace_, small_);
    VERIFY_HELPER(showAt(av));
    av.setStep(QStringLiteral("decoder.layers.0.dec_enc_attn.attn"));
    QCOMPARE(av.shownStep(), QStringLiteral("decoder.layers.0.dec_enc_attn.attn"));
    QSignalSpy shown(&av, &StepView::shownStepChanged);
    av.findChild<QComboBox*>(QStringLiteral("layerPicker"))->setCurrentIndex(1);
    QCOMPARE(shown.count(), 1);
    QCOMPARE(shown.last().at(0).toString(), QStringLiteral("decoder.layers.1.dec_enc_attn.attn"));
    QCOMPARE(av.shownStep(), QStringLiteral("decoder.layers.1.dec_enc_attn.attn"));
    // The navigator's own steps are not the student's picks: no signal.
    av.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.attn"));
    QCOMPARE(shown.count(), 1);

    MaskView mv;
    mv.setTrace(trace_, small_);
    VERIFY_HELPER(showAt(mv));
    mv.setStep(QStringLiteral("decoder.layers.0.dec_self_attn.masked_scores"));
    QSignalSpy maskShown(&mv, &StepView::shownStepChanged);
    mv.findChild<QComboBox*>(QStringLiteral("layerPicker"))->setCurrentIndex(1);
    QCOMPARE(maskShown.count(), 1);
    QCOMPARE(maskShown.last().at(0).toString(), QStringLiteral("decoder.layers.1.dec_self_attn.masked_scores"));
}

// The subsequence mask is made once, before layer 0, for every layer: its step names no layer,
// even when a layer was picked before.
void TestTensorViews::maskStepNamesNoLayer() {
    MaskView mv;
    mv.setTrace(trace_, small_);
    VERIFY_HELPER(showAt(mv));
    mv.setStep(QStringLiteral("decoder.layers.1.dec_self_attn.masked_scores"));
    QVERIFY(!mv.showsMaskStep());
    QVERIFY2(mv.flowTitle().contains(QStringLiteral("layer 1")), qPrintable(mv.flowTitle()));
    const QRegularExpression namedLayer(QStringLiteral("layer \\d"));
    for (const char* mask : {"decoder.self_attn_subsequence_mask", "decoder.self_attn_mask", "decoder.enc_attn_mask"}) {
        QVERIFY2(trace_->contains(mask), mask);
        mv.setStep(QString::fromLatin1(mask));
        QVERIFY2(mv.showsMaskStep(), mask);
        QVERIFY2(!mv.flowTitle().contains(namedLayer), qPrintable(mv.flowTitle()));
    }
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestTensorViews t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_tensor_views.moc"
