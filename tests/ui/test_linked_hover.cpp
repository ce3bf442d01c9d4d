// Linked hover (issue 14): the rule (views/linked_hover.h) on real trace entries, and the Tensor
// view applying it. Pointing at scores[r, c] outlines Q's row r and K\u1d40's column c; at attn[r, c]
// the masked scores' row r; at a residual sum's cell the same cell of both summands; at a
// LayerNorm's row the input's row; leaving clears everything; and for every step of a trace
// (small and tutorial-sized, forward and gradients) no outline points outside its panel.
#include <memory>

#include <QApplication>
#include <QMouseEvent>
#include <QTest>

#include "stepformer/dataset.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "views/attention_lines_widget.h"
#include "views/attention_view.h"
#include "views/linked_hover.h"
#include "views/tensor_view.h"
#include "widgets/heatmap_widget.h"
#include "test_util.h"

using namespace stepformer;
using linked_hover::Cell;
using linked_hover::From;
using linked_hover::Link;

namespace {

const QString kLayer = QStringLiteral("encoder.layers.0.");
const QString kScores = kLayer + QStringLiteral("enc_self_attn.scores");

std::shared_ptr<Trace> traceOf(const Transformer& model, const Config& c) {
    const Batch b = make_training_batch(c, builtin_examples(), {0, 1});
    auto tr = std::make_shared<Trace>();
    model.forward(b, *tr);
    model.loss(b, *tr);
    ParamSet grads(param_specs(c));
    model.backward(b, *tr, grads, true);
    return tr;
}

// A mouse move over cell (r, c) of `hm`, as the student's pointer makes it. Where cells are
// narrower than a pixel (2048 columns fitted) the pointer reaches a neighbour: `*got` says which
// cell it is; without `got` it must be (r, c).
[[nodiscard]] QString hover(HeatmapWidget* hm, int r, int c, Cell* got = nullptr) {
    hm->ensureCellVisible(r, c);
    const QRect cell = hm->cellRect(r, c);
    if (!cell.isValid()) return QStringLiteral("cell (%1, %2) of %3 has no rectangle").arg(r).arg(c).arg(hm->title());
    const QPoint pos = cell.center() - hm->viewport()->pos();
    QMouseEvent ev(QEvent::MouseMove, pos, hm->viewport()->mapToGlobal(pos), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
    QApplication::sendEvent(hm->viewport(), &ev);
    const QPoint under = hm->cellAt(cell.center());
    if (got) *got = Cell{under.x(), under.y()};
    if (under.x() < 0 || (!got && under != QPoint(r, c)))
        return QStringLiteral("the point hovered is not cell (%1, %2) of %3").arg(r).arg(c).arg(hm->title());
    return {};
}

void leave(HeatmapWidget* hm) {
    QEvent ev(QEvent::Leave);
    QApplication::sendEvent(hm->viewport(), &ev);
}

Cell outlined(const HeatmapWidget* hm) { return Cell{hm->highlightedRow(), hm->highlightedCol()}; }

[[nodiscard]] QString expectOutline(const HeatmapWidget* hm, Cell want) {
    const Cell got = outlined(hm);
    if (got == want) return {};
    return QStringLiteral("%1: outlined row %2 col %3, expected row %4 col %5")
        .arg(hm->title())
        .arg(got.row)
        .arg(got.col)
        .arg(want.row)
        .arg(want.col);
}

[[nodiscard]] QString expectNoOutlines(const TensorView& tv) {
    for (auto* hm : tv.heatmaps())
        if (hm->highlightedRow() != -1 || hm->highlightedCol() != -1)
            return QStringLiteral("%1 still outlined after leaving").arg(hm->title());
    return {};
}

// Whether an outlined token label can be the hovered cell's: one of its tokens (numbered axes,
// features and positions, are not compared: the PE table's position 4 is the token at 4).
bool sameLabel(const QString& outlinedLabel, const QString& hoveredRowLabel, const QString& hoveredColLabel) {
    const auto number = [](const QString& s) {
        bool ok = false;
        s.toInt(&ok);
        return ok;
    };
    bool compared = false;
    for (const QString& h : {hoveredRowLabel, hoveredColLabel}) {
        if (outlinedLabel.isEmpty() || h.isEmpty() || number(outlinedLabel) || number(h)) continue;
        if (outlinedLabel == h) return true;
        compared = true;
    }
    return !compared;
}

// Hovers cell `rc` of `hovered` (a panel of the step `tv` shows) and checks every outline: inside
// its panel, naming the hovered cell's token or index, none on the hovered panel, all gone after
// leaving. Returns whether the outlines reached another panel.
bool checkHover(TensorView& tv, const QString& step, HeatmapWidget* hovered, Cell rc, QStringList& failures) {
    Cell got;
    const QString moved = hover(hovered, rc.row, rc.col, &got);
    if (!moved.isEmpty()) failures << step + QStringLiteral(": ") + moved;
    const QString hr = hovered->rowLabels().value(got.row), hc = hovered->colLabels().value(got.col);
    bool any = false;
    for (const HeatmapWidget* hm : tv.heatmaps()) {
        const Cell o = outlined(hm);
        if (o.row >= hm->rows() || o.col >= hm->cols())
            failures << QStringLiteral("%1: %2 outlined (%3, %4) of %5x%6")
                            .arg(step, hm->title())
                            .arg(o.row)
                            .arg(o.col)
                            .arg(hm->rows())
                            .arg(hm->cols());
        for (const QString& l : {o.row >= 0 ? hm->rowLabels().value(o.row) : QString(),
                                 o.col >= 0 ? hm->colLabels().value(o.col) : QString()})
            if (!sameLabel(l, hr, hc))
                failures << QStringLiteral("%1: %2 outlines '%3' for cell '%4', '%5' of %6")
                                .arg(step, hm->title(), l, hr, hc, hovered->title());
        if (hm == hovered && (o.row >= 0 || o.col >= 0)) failures << step + QStringLiteral(": the hovered panel is outlined");
        any = any || o.row >= 0 || o.col >= 0;
    }
    leave(hovered);
    const QString cleared = expectNoOutlines(tv);
    if (!cleared.isEmpty()) failures << step + QStringLiteral(": ") + cleared;
    return any;
}

// Every step of `tr`, every panel: the last cell and one of the first column hovered (in a
// square attention matrix the last row's and column's tokens are the same), checkHover on each.
// `*linkedSteps`: the steps whose output outlined something. Returns what failed.
[[nodiscard]] QString walkAllSteps(TensorView& tv, const Trace& tr, int* linkedSteps) {
    QStringList failures;
    *linkedSteps = 0;
    for (const TraceEntry& e : tr.entries()) {
        const QString step = QString::fromStdString(e.name);
        tv.setStep(step);
        for (HeatmapWidget* hovered : tv.heatmaps()) {
            if (hovered->isEmpty()) continue;
            bool any = false;
            for (const Cell rc : {Cell{hovered->rows() - 1, hovered->cols() - 1}, Cell{hovered->rows() / 3, 0}})
                any = checkHover(tv, step, hovered, rc, failures) || any;
            if (hovered == tv.outputHeatmap() && any) ++*linkedSteps;
        }
    }
    return failures.mid(0, 8).join(QStringLiteral("\n"));
}

}  // namespace

class TestLinkedHover : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void ruleOnTraceEntries();
    void ruleCellsStayInRange();
    void scoresOutlineQueryRowAndKeyColumn();
    void softmaxLayerNormResidualContextAndFfn();
    void operandRowOutlinesOutputRow();
    void gradientStepSameCell();
    void headGridSameCellInEveryHead();
    void everyStepInRange();
    void everyStepInRangeTutorialSize();
    void highlightIsPainted();
    void stackedPanelsLineUpTheirColumns();
    void screenshots();

private:
    TensorView* showView(const QString& step, QSize size = QSize(1366, 768));
    const TraceEntry& at(const QString& name) const { return trace_->at(name.toStdString()); }

    Config cfg_;
    std::shared_ptr<Trace> trace_;
    std::unique_ptr<TensorView> view_;
};

void TestLinkedHover::initTestCase() {
    const testutil::TrainedSmall& t = testutil::trainedSmall();
    cfg_ = t.config;
    trace_ = traceOf(*t.model, cfg_);
    QVERIFY(trace_->contains(kScores.toStdString()));
    QVERIFY(trace_->contains("grad." + kScores.toStdString()));
}

TensorView* TestLinkedHover::showView(const QString& step, QSize size) {
    view_ = std::make_unique<TensorView>();
    view_->setTrace(trace_, cfg_);
    view_->setStep(step);
    view_->resize(size);
    view_->show();
    if (!QTest::qWaitForWindowExposed(view_.get())) return nullptr;
    return view_.get();
}

void TestLinkedHover::ruleOnTraceEntries() {
    const QString a = kLayer + QStringLiteral("enc_self_attn.");
    const TraceEntry& scores = at(kScores);
    // scores = Q K^T: Q's row r, K's row c (shown transposed: K^T's column c).
    QCOMPARE(linked_hover::panelLink(*trace_, scores, at(a + "Q")), (Link{From::OutRow, From::None}));
    QCOMPARE(linked_hover::panelLink(*trace_, scores, at(a + "K")), (Link{From::OutCol, From::None}));
    QCOMPARE(linked_hover::transposed(linked_hover::panelLink(*trace_, scores, at(a + "K"))), (Link{From::None, From::OutCol}));
    // Not an input of scores: nothing.
    QVERIFY(!linked_hover::panelLink(*trace_, scores, at(a + "V")).any());
    // context = attn V: attn's row r, V's column c.
    QCOMPARE(linked_hover::panelLink(*trace_, at(a + "context"), at(a + "attn")), (Link{From::OutRow, From::None}));
    QCOMPARE(linked_hover::panelLink(*trace_, at(a + "context"), at(a + "V")), (Link{From::None, From::OutCol}));
    // Row-wise and element-wise.
    QCOMPARE(linked_hover::panelLink(*trace_, at(a + "attn"), at(a + "masked_scores")), (Link{From::OutRow, From::None}));
    QCOMPARE(linked_hover::panelLink(*trace_, at(a + "out"), at(a + "residual")), (Link{From::OutRow, From::None}));
    QCOMPARE(linked_hover::panelLink(*trace_, at(a + "residual"), at(a + "fc_out")), (Link{From::OutRow, From::OutCol}));
    QCOMPARE(linked_hover::panelLink(*trace_, at(a + "masked_scores"), at(a + "scores")), (Link{From::OutRow, From::OutCol}));
    // A gradient beside its tensor: the same cell.
    QCOMPARE(linked_hover::panelLink(*trace_, at("grad." + kScores), scores), (Link{From::OutRow, From::OutCol}));
    // FFN: the hidden layer reads the input's row; its weight's row c is hidden unit c.
    const TraceEntry& hidden = at(kLayer + QStringLiteral("pos_ffn.hidden"));
    QCOMPARE(linked_hover::inputLink(hidden, 0, trace_->find(hidden.inputs[0])), (Link{From::OutRow, From::None}));
    QCOMPARE(linked_hover::inputLink(hidden, 1, nullptr), (Link{From::OutCol, From::None}));
    // Q's weight rows are split into heads: not known from the head's slice, so nothing.
    QVERIFY(!linked_hover::inputLink(at(a + "Q"), 1, nullptr).any());
    // The loss of position t comes from probs' row t; the mean, from everything: nothing.
    const TraceEntry* perToken = nullptr;
    const TraceEntry* loss = nullptr;
    for (const TraceEntry& e : trace_->entries()) {
        if (e.role == Role::LossPerToken) perToken = &e;
        if (e.role == Role::Loss) loss = &e;
    }
    QVERIFY(perToken && loss);
    QCOMPARE(linked_hover::inputLink(*perToken, 0, trace_->find(perToken->inputs[0])), (Link{From::OutCol, From::None}));
    QVERIFY(!linked_hover::inputLink(*loss, 0, perToken).any());
    // Shapes that do not line up link nothing rather than something wrong: Q against a
    // scores entry with one key fewer.
    TraceEntry odd = scores;
    odd.value = Tensor({scores.value.dim(0), scores.value.dim(1), scores.value.dim(2), scores.value.dim(3) - 1});
    QVERIFY(!linked_hover::panelLink(*trace_, odd, at(a + "K")).any());
    QVERIFY(linked_hover::panelLink(*trace_, odd, at(a + "Q")).any());  // its rows still line up
}

void TestLinkedHover::ruleCellsStayInRange() {
    const Link row{From::OutRow, From::None}, kt{From::None, From::OutCol}, cell{From::OutRow, From::OutCol};
    QCOMPARE(linked_hover::operandCell(row, Cell{2, 3}, 5, 8), (Cell{2, -1}));
    QCOMPARE(linked_hover::operandCell(kt, Cell{2, 3}, 8, 5), (Cell{-1, 3}));
    QCOMPARE(linked_hover::operandCell(cell, Cell{4, 7}, 5, 5), (Cell{4, -1}));  // column 7 of 5: dropped
    QCOMPARE(linked_hover::operandCell(Link{}, Cell{1, 1}, 5, 5), (Cell{}));
    // The reverse: K^T's column 3 is the scores' column 3; Q's row 2 the scores' row 2.
    QCOMPARE(linked_hover::outputCell(kt, Cell{6, 3}, 5, 5), (Cell{-1, 3}));
    QCOMPARE(linked_hover::outputCell(row, Cell{2, 6}, 5, 5), (Cell{2, -1}));
    QCOMPARE(linked_hover::outputCell(Link{From::OutCol, From::None}, Cell{4, 0}, 1, 5), (Cell{-1, 4}));
    QCOMPARE(linked_hover::outputCell(row, Cell{9, 0}, 5, 5), (Cell{}));
}

void TestLinkedHover::scoresOutlineQueryRowAndKeyColumn() {
    TensorView* tv = showView(kScores);
    QVERIFY(tv);
    const auto hms = tv->heatmaps();
    QCOMPARE(hms.size(), 3);  // Q, K^T, scores
    HeatmapWidget *q = hms[0], *kt = hms[1], *out = tv->outputHeatmap();
    QCOMPARE(out, hms[2]);
    QVERIFY(out->rows() >= 3 && out->cols() >= 3);
    for (const Cell rc : {Cell{1, 2}, Cell{2, 0}, Cell{out->rows() - 1, out->cols() - 1}}) {
        VERIFY_HELPER(hover(out, rc.row, rc.col));
        VERIFY_HELPER(expectOutline(q, Cell{rc.row, -1}));
        VERIFY_HELPER(expectOutline(kt, Cell{-1, rc.col}));
        VERIFY_HELPER(expectOutline(out, Cell{}));  // its own hover box, no outline
    }
    leave(out);
    VERIFY_HELPER(expectNoOutlines(*tv));
    // The view's links follow the entries, not the panel order: the same on another head.
    tv->setHeadIndex(2);
    VERIFY_HELPER(hover(tv->outputHeatmap(), 0, 1));
    VERIFY_HELPER(expectOutline(tv->heatmaps()[0], Cell{0, -1}));
    VERIFY_HELPER(expectOutline(tv->heatmaps()[1], Cell{-1, 1}));
    leave(tv->outputHeatmap());
    VERIFY_HELPER(expectNoOutlines(*tv));
}

void TestLinkedHover::softmaxLayerNormResidualContextAndFfn() {
    const QString a = kLayer + QStringLiteral("enc_self_attn.");
    TensorView* tv = showView(a + QStringLiteral("attn"));
    QVERIFY(tv);
    struct Case {
        QString step;
        QList<Cell> want;  // per operand panel, for output cell (1, 2)
    };
    const QList<Case> cases = {
        {a + "attn", {Cell{1, -1}}},                      // softmax: the input's row
        {a + "masked_scores", {Cell{1, 2}, Cell{1, 2}}},  // scores and the mask: the same cell
        {a + "context", {Cell{1, -1}, Cell{-1, 2}}},      // attn's row, V's column
        {a + "fc_out", {Cell{1, -1}}},                    // the merged heads' row
        {a + "residual", {Cell{1, 2}, Cell{1, 2}}},       // both summands: the same cell
        {a + "out", {Cell{1, -1}}},                       // LayerNorm: the input's row
        {kLayer + "pos_ffn.hidden", {Cell{1, -1}}},       // the input's row (the unit's weights are not shown)
        {kLayer + "pos_ffn.relu", {Cell{1, 2}}},
        {kLayer + "pos_ffn.fc_out", {Cell{1, -1}}},
        {kLayer + "pos_ffn.residual", {Cell{1, 2}, Cell{1, 2}}},
        {kLayer + "pos_ffn.out", {Cell{1, -1}}},
    };
    for (const Case& k : cases) {
        tv->setStep(k.step);
        const auto hms = tv->heatmaps();
        QCOMPARE(hms.size(), k.want.size() + 1);
        VERIFY_HELPER(hover(tv->outputHeatmap(), 1, 2));
        for (int i = 0; i < k.want.size(); ++i) VERIFY_HELPER(expectOutline(hms[i], k.want[i]));
        leave(tv->outputHeatmap());
        VERIFY_HELPER(expectNoOutlines(*tv));
    }
}

void TestLinkedHover::operandRowOutlinesOutputRow() {
    TensorView* tv = showView(kScores);
    QVERIFY(tv);
    HeatmapWidget *q = tv->heatmaps()[0], *kt = tv->heatmaps()[1], *out = tv->outputHeatmap();
    VERIFY_HELPER(hover(q, 3, 1));  // query 3: the scores' row 3
    VERIFY_HELPER(expectOutline(out, Cell{3, -1}));
    VERIFY_HELPER(expectOutline(kt, Cell{}));
    leave(q);
    VERIFY_HELPER(hover(kt, 0, 2));  // key 2: the scores' column 2
    VERIFY_HELPER(expectOutline(out, Cell{-1, 2}));
    VERIFY_HELPER(expectOutline(q, Cell{}));
    leave(kt);
    VERIFY_HELPER(expectNoOutlines(*tv));
    // Element-wise: one summand's cell outlines the sum's cell and the other summand's.
    tv->setStep(kLayer + QStringLiteral("enc_self_attn.residual"));
    VERIFY_HELPER(hover(tv->heatmaps()[0], 2, 5));
    VERIFY_HELPER(expectOutline(tv->outputHeatmap(), Cell{2, 5}));
    VERIFY_HELPER(expectOutline(tv->heatmaps()[1], Cell{2, 5}));
    leave(tv->heatmaps()[0]);
    VERIFY_HELPER(expectNoOutlines(*tv));
}

void TestLinkedHover::gradientStepSameCell() {
    TensorView* tv = showView(QStringLiteral("grad.") + kScores);
    QVERIFY(tv);
    QCOMPARE(tv->heatmaps().size(), 2);  // the tensor, its gradient
    VERIFY_HELPER(hover(tv->outputHeatmap(), 2, 3));
    VERIFY_HELPER(expectOutline(tv->heatmaps()[0], Cell{2, 3}));
    leave(tv->outputHeatmap());
    VERIFY_HELPER(expectNoOutlines(*tv));
    VERIFY_HELPER(hover(tv->heatmaps()[0], 1, 4));
    VERIFY_HELPER(expectOutline(tv->outputHeatmap(), Cell{1, 4}));
}

void TestLinkedHover::headGridSameCellInEveryHead() {
    TensorView* tv = showView(kLayer + QStringLiteral("enc_self_attn.attn"), QSize(1366, 900));
    QVERIFY(tv);
    tv->setHeadGridShown(true);
    const auto hms = tv->heatmaps();
    QCOMPARE(hms.size(), cfg_.n_heads);
    VERIFY_HELPER(hover(hms[1], 2, 3));
    for (int h = 0; h < hms.size(); ++h) VERIFY_HELPER(expectOutline(hms[h], h == 1 ? Cell{} : Cell{2, 3}));
    leave(hms[1]);
    VERIFY_HELPER(expectNoOutlines(*tv));
}

void TestLinkedHover::everyStepInRange() {
    TensorView* tv = showView(kScores);
    QVERIFY(tv);
    int linked = 0;
    VERIFY_HELPER(walkAllSteps(*tv, *trace_, &linked));
    QVERIFY2(linked > int(trace_->size()) / 2, qPrintable(QStringLiteral("only %1 steps linked").arg(linked)));
}

// The tutorial's sizes: 512 and 2048 features, stacked wide panels that share columns.
void TestLinkedHover::everyStepInRangeTutorialSize() {
    const Config tut = Config::tutorial();
    const Transformer model(tut, init_params(tut, 3));
    const auto tr = traceOf(model, tut);
    TensorView tv;
    tv.setTrace(tr, tut);
    tv.resize(1366, 768);
    tv.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tv));
    int linked = 0;
    VERIFY_HELPER(walkAllSteps(tv, *tr, &linked));
    QVERIFY(linked > int(tr->size()) / 2);
}

// The outline is drawn: the grab changes where the highlighted row is, and its amber shows.
void TestLinkedHover::highlightIsPainted() {
    TensorView* tv = showView(kScores);
    QVERIFY(tv);
    HeatmapWidget* q = tv->heatmaps()[0];
    const QImage before = q->grab().toImage();
    q->setHighlightedRow(1);
    const QImage after = q->grab().toImage();
    QCOMPARE(before.size(), after.size());
    const QRect row = q->cellRect(1, 0).united(q->cellRect(1, q->cols() - 1));
    int amber = 0;
    for (int x = row.left(); x <= row.right(); ++x)
        for (int y = row.top(); y <= row.bottom(); ++y) {
            const QColor c = after.pixelColor(x, y);
            if (c.red() > 230 && c.green() > 150 && c.green() < 215 && c.blue() < 60) ++amber;
        }
    QVERIFY2(amber > row.width(), qPrintable(QStringLiteral("%1 amber pixels along a %2 px row").arg(amber).arg(row.width())));
    q->setHighlightedRow(-1);
    QCOMPARE(q->grab().toImage(), before);
}

// Stacked wide panels over the same 512 features: column c is at one x in each (their colour bars
// have labels of different widths, "−0.889" and "−3.98", which made the cells of one narrower), so
// the outline in an operand sits right above the hovered cell.
void TestLinkedHover::stackedPanelsLineUpTheirColumns() {
    const Config tut = Config::tutorial();
    const Transformer model(tut, init_params(tut, 3));
    TensorView tv;
    tv.setTrace(traceOf(model, tut), tut);
    tv.resize(1366, 768);
    tv.show();
    QVERIFY(QTest::qWaitForWindowExposed(&tv));
    for (const QString& leaf : {QStringLiteral("enc_self_attn.residual"), QStringLiteral("pos_ffn.residual")}) {
        tv.setStep(kLayer + leaf);
        QApplication::processEvents();
        const QList<HeatmapWidget*> hms = tv.heatmaps();
        QVERIFY(hms.size() >= 2);
        const HeatmapWidget* out = tv.outputHeatmap();
        QCOMPARE(out->cols(), tut.d_model);
        for (const HeatmapWidget* h : hms) {
            if (h == out || h->cols() != out->cols()) continue;
            for (int c : {0, 1, 255, out->cols() - 1}) {
                const int xo = out->mapTo(&tv, out->cellRect(0, c).topLeft()).x();
                const int xh = h->mapTo(&tv, h->cellRect(0, c).topLeft()).x();
                QVERIFY2(xo == xh && out->cellRect(0, c).width() == h->cellRect(0, c).width(),
                         qPrintable(QStringLiteral("%1, column %2: x %3 in %4, x %5 in the output").arg(leaf).arg(c).arg(xh).arg(h->title()).arg(xo)));
            }
        }
    }
}

void TestLinkedHover::screenshots() {
    TensorView* tv = showView(kScores);
    QVERIFY(tv);
    VERIFY_HELPER(hover(tv->outputHeatmap(), 2, 1));
    testutil::saveShot(*tv, QStringLiteral("linked_hover_scores.png"));
    tv->setStep(kLayer + QStringLiteral("pos_ffn.residual"));
    VERIFY_HELPER(hover(tv->outputHeatmap(), 3, 10));
    testutil::saveShot(*tv, QStringLiteral("linked_hover_ffn_residual.png"));
    leave(tv->outputHeatmap());
    tv->setStep(kLayer + QStringLiteral("pos_ffn.hidden"));
    VERIFY_HELPER(hover(tv->outputHeatmap(), 2, 20));
    testutil::saveShot(*tv, QStringLiteral("linked_hover_ffn_hidden.png"));

    // Tutorial sizes: 2048 hidden units, stacked panels.
    const Config tut = Config::tutorial();
    const Transformer model(tut, init_params(tut, 3));
    TensorView wide;
    wide.setTrace(traceOf(model, tut), tut);
    wide.setStep(kLayer + QStringLiteral("pos_ffn.residual"));
    wide.resize(1366, 768);
    wide.show();
    QVERIFY(QTest::qWaitForWindowExposed(&wide));
    Cell got;
    VERIFY_HELPER(hover(wide.outputHeatmap(), 2, 300, &got));
    QCOMPARE(outlined(wide.heatmaps()[0]), got);
    QCOMPARE(outlined(wide.heatmaps()[1]), got);
    testutil::saveShot(wide, QStringLiteral("linked_hover_ffn_residual_tutorial.png"));
    leave(wide.outputHeatmap());
    wide.setStep(kLayer + QStringLiteral("pos_ffn.hidden"));  // 512 -> 2048 features
    VERIFY_HELPER(hover(wide.outputHeatmap(), 3, 1500, &got));
    QCOMPARE(outlined(wide.heatmaps()[0]), (Cell{got.row, -1}));
    testutil::saveShot(wide, QStringLiteral("linked_hover_ffn_hidden_tutorial.png"));

    // The attention view's own use of the outline: a key token hovered in the line view
    // outlines its column of the enlarged matrix.
    AttentionView av;
    av.setTrace(trace_, cfg_);
    av.setStep(kLayer + QStringLiteral("enc_self_attn.attn"));
    av.resize(1366, 768);
    av.show();
    QVERIFY(QTest::qWaitForWindowExposed(&av));
    auto* lines = av.findChild<AttentionLinesWidget*>();
    auto* enlarged = av.findChild<HeatmapWidget*>(QStringLiteral("enlargedHeatmap"));
    QVERIFY(lines && enlarged);
    emit lines->tokenHovered(false, 2);
    QCOMPARE(outlined(enlarged), (Cell{-1, 2}));
    testutil::saveShot(av, QStringLiteral("linked_hover_attention_view.png"));
}

QTEST_MAIN(TestLinkedHover)
#include "test_linked_hover.moc"
