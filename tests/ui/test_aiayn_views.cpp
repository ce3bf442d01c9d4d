// attention-is-all-you-need-pytorch's model ("architecture": "aiayn", seed 003) shown as itself:
// the navigator in its module names (slf_attn, enc_attn, pos_ffn, trg_word_prj), the scaled query
// as its own step, masks 1 = keep, dropout before each add, cal_loss's sum; the explanations of
// its lines; the mask panel hatching the 0s; the diagram with the LayerNorm before the layers and
// trg_word_prj drawn as shared only when it is; every forward and gradient step of a fixture
// visited in the main window, in every view.
//
// With STEPFORMER_SCREENSHOT_DIR set, it saves aiayn_*.png there.
#include <QtTest>

#include <QDockWidget>
#include <QLabel>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <memory>

#include "app/main_window.h"
#include "architecture/architecture_diagram.h"
#include "models/model_registry.h"
#include "architecture/architecture_parts.h"
#include "explain/explain_panel.h"
#include "steps/backward_steps.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "steps/step_panels.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "test_util.h"
#include "views/gradient_view.h"
#include "widgets/heatmap_widget.h"

using namespace stepformer;

namespace {

QString fixture(const char* name) { return QStringLiteral(STEPFORMER_FIXTURES_DIR "/aiayn/%1.weights.safetensors").arg(name); }

struct Traced {
    Config config;
    std::shared_ptr<Trace> trace;
};

// A fixture's model: forward, cal_loss and backward on the tutorial's sentence.
Traced traced(const char* name) {
    LoadedWeights lw = load_weights(fixture(name).toStdString(), nullptr);
    const Config c = lw.config;
    Transformer model(c, std::move(lw.params));
    const Batch batch = make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."}, {"i want a beer . E"});
    auto trace = std::make_shared<Trace>();
    model.forward(batch, *trace);
    model.loss(batch, *trace);
    ParamSet grads;
    model.backward(batch, *trace, grads);
    return {c, trace};
}


}  // namespace

class TestAiaynViews : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void navigatorNamesItsModules();
    void explanationsAreItsOwn();
    void masksKeepOnes();
    void diagramDrawsItsLayoutAndSharing();
    void mainWindowWalksEveryStep();
    void mainWindowWalksUnsharedModel();

private:
    QTemporaryDir cache_;
};

void TestAiaynViews::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

void TestAiaynViews::navigatorNamesItsModules() {
    const Traced t = traced("unshared_none");
    QVERIFY(t.config.aiayn());
    StepModel m;
    m.setTrace(t.trace);
    QStringList groups;
    QHash<QString, QString> labels;
    testutil::collectSteps(m, {}, {}, groups, labels);
    for (const char* g : {"Encoder/Encoder layer 0/Self-attention (slf_attn)", "Decoder/Decoder layer 1/Masked self-attention (slf_attn)",
                          "Decoder/Decoder layer 0/Encoder-decoder attention (enc_attn)",
                          "Encoder/Encoder layer 1/Feed-forward (pos_ffn: w_1, w_2)", "Projection (trg_word_prj)"})
        QVERIFY2(groups.contains(QLatin1String(g)), qPrintable(QStringLiteral("%1 not in %2").arg(g, groups.join(", "))));
    QVERIFY(!groups.contains(QStringLiteral("Projection")));
    const auto label = [&](const char* n) { return labels.value(QLatin1String(n)); };
    const char* P = "encoder.layer_stack.0.slf_attn";
    const auto in = [&](const char* leaf) { return label(QStringLiteral("%1.%2").arg(QLatin1String(P), QLatin1String(leaf)).toUtf8().constData()); };
    QCOMPARE(in("q_scaled"), QStringLiteral("q / temperature (temperature = √d_k)"));
    QCOMPARE(in("scores"), QStringLiteral("scores = q_scaled·kᵀ (no second scale)"));
    QCOMPARE(in("masked_scores"), QStringLiteral("masked_fill(mask == 0, −1e9)"));
    QCOMPARE(in("Q"), QStringLiteral("Q = w_qs(q) (no bias)"));
    QCOMPARE(in("fc_out"), QStringLiteral("fc (no bias)"));
    QCOMPARE(in("residual"), QStringLiteral("dropout(fc(·)) + residual"));
    QCOMPARE(label("encoder.layer_stack.0.pos_ffn.residual"), QStringLiteral("dropout(w_2(·)) + residual"));
    QCOMPARE(label("encoder.layer_stack.0.pos_ffn.hidden"), QStringLiteral("w_1 (+ bias)"));
    QCOMPARE(label("encoder.src_word_emb.out"), QStringLiteral("src_word_emb"));
    QCOMPARE(label("decoder.trg_word_emb.out"), QStringLiteral("trg_word_emb"));
    QCOMPARE(label("encoder.layer_norm.out"), QStringLiteral("layer_norm (before layer 0)"));
    QCOMPARE(label("encoder.position_enc.out"), QStringLiteral("+ position_enc, dropout"));
    QCOMPARE(label("trg_word_prj.logits"), QStringLiteral("trg_word_prj (logits, no bias)"));
    // The loss's labels are read from its steps (a sum; label smoothing ε 0.1), as for any model.
    QCOMPARE(label("loss"), QStringLiteral("loss (summed)"));
    QCOMPARE(label("loss.per_token"), QStringLiteral("loss per token (label-smoothed, ε 0.1)"));
    QVERIFY(label("src_mask").contains(QStringLiteral("1 = keep")));
    QVERIFY(label("trg_mask").contains(QStringLiteral("1 = keep")));
    for (auto it = labels.cbegin(); it != labels.cend(); ++it) QVERIFY2(!it.value().isEmpty() && it.value() != it.key(), qPrintable(it.key()));

    // The scaled query is its own step, before the product.
    const QStringList order = m.stepOrder();
    const int qs = order.indexOf(QStringLiteral("encoder.layer_stack.0.slf_attn.q_scaled"));
    QVERIFY(qs > 0);
    QVERIFY(qs < order.indexOf(QStringLiteral("encoder.layer_stack.0.slf_attn.scores")));
    // The layer_norm after the positional encoding, before the first layer.
    QVERIFY(order.indexOf(QStringLiteral("encoder.layer_norm.out")) < order.indexOf(QStringLiteral("encoder.layer_stack.0.slf_attn.Q")));
    const QString maskTip = m.indexForStep(QStringLiteral("src_mask")).data(Qt::ToolTipRole).toString();
    QVERIFY2(maskTip.contains(QStringLiteral("1 = keep")) && maskTip.contains(QStringLiteral("opposite")), qPrintable(maskTip));
    QVERIFY(m.indexForStep(QStringLiteral("loss")).data(Qt::ToolTipRole).toString().contains(QStringLiteral("summed")));
    QCOMPARE(BackwardStepList::friendlyLabel(*t.trace, QStringLiteral("grad.encoder.layer_stack.0.slf_attn.q_scaled")),
             QStringLiteral("∂loss/∂ q / temperature (temperature = √d_k)"));
    QCOMPARE(StepModel::locationText(*t.trace->find("grad.decoder.layer_stack.1.enc_attn.K")),
             QStringLiteral("Decoder layer 1 › Encoder-decoder attention (enc_attn)"));

    // The tutorial keeps its labels.
    Config tc = Config::small();
    Transformer tm(tc, init_params(tc, 5));
    auto tt = std::make_shared<Trace>();
    tm.forward(make_batch(tc, {"ich mochte ein bier P"}, {"S i want a beer ."}, {"i want a beer . E"}), *tt);
    m.setTrace(tt);
    QCOMPARE(m.indexForStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores")).data().toString(), QStringLiteral("scores = QKᵀ/√d_k"));
    QCOMPARE(m.indexForStep(QStringLiteral("encoder.layers.0.enc_self_attn.Q")).parent().data().toString(), QStringLiteral("Self-attention"));
}

void TestAiaynViews::explanationsAreItsOwn() {
    const Traced t = traced("shared_prj");
    ExplainPanel p;
    p.setTrace(t.trace, t.config);
    const auto text = [&](const char* step) {
        p.setStep(QLatin1String(step));
        return p.plainText();
    };
    const QString qs = text("encoder.layer_stack.0.slf_attn.q_scaled");
    QVERIFY2(qs.contains(QStringLiteral("temperature")) && qs.contains(QStringLiteral("same mathematics")), qPrintable(qs));
    QVERIFY(text("encoder.layer_stack.0.slf_attn.scores").contains(QStringLiteral("no second scale")));
    const QString ms = text("decoder.layer_stack.0.slf_attn.masked_scores");
    QVERIFY2(ms.contains(QStringLiteral("1 = keep")) && ms.contains(QStringLiteral("mask == 0, -1e9")), qPrintable(ms));
    QVERIFY(text("src_mask").contains(QStringLiteral("1 = keep")));
    QVERIFY(text("trg_mask").contains(QStringLiteral("1 = keep")));
    // 6 target positions, the lower triangle kept: 15 of 36 masked, not the 21 kept.
    QVERIFY2(text("trg_mask").contains(QStringLiteral("15 of 36 positions masked (0)")), qPrintable(text("trg_mask")));
    QVERIFY(text("encoder.layer_stack.0.slf_attn.Q").contains(QStringLiteral("bias=False")));
    QVERIFY(text("encoder.layer_stack.0.slf_attn.out").contains(QStringLiteral("eps = 1e-6")));
    QVERIFY(text("encoder.layer_norm.out").contains(QStringLiteral("before the first layer")));
    QVERIFY(text("encoder.position_enc.pe").contains(QStringLiteral("float64")));
    QVERIFY(text("trg_word_prj.logits").contains(QStringLiteral("shared")));
    QVERIFY(text("loss").contains(QStringLiteral("summed")));
    QVERIFY(text("loss.per_token").contains(QStringLiteral("label smoothing")));
    QVERIFY(text("grad.encoder.layer_stack.0.slf_attn.q_scaled").contains(QStringLiteral("temperature")));
    const QString gl = text("grad.trg_word_prj.logits");
    QVERIFY2(gl.contains(QStringLiteral("smoothed")) && !gl.contains(QStringLiteral("their mean")), qPrintable(gl));
    QVERIFY(text("grad.decoder.trg_word_emb.out").contains(QStringLiteral("pad row")));
    for (const TraceEntry& e : t.trace->entries())
        QVERIFY2(!text(e.name.c_str()).contains(QStringLiteral("No explanation")), e.name.c_str());
    // The tutorial's own model keeps its texts.
    const Config tc = Config::small();
    Transformer tm(tc, init_params(tc, 5));
    auto tt = std::make_shared<Trace>();
    tm.forward(make_batch(tc, {"ich mochte ein bier P"}, {"S i want a beer ."}, {"i want a beer . E"}), *tt);
    p.setTrace(tt, tc);
    QVERIFY(text("encoder.layers.0.enc_self_attn.scores").contains(QStringLiteral("In the tutorial")));
    QVERIFY(!text("encoder.layers.0.enc_self_attn.scores").contains(QStringLiteral("temperature")));
}

void TestAiaynViews::masksKeepOnes() {
    const Traced t = traced("unshared_none");
    // "ich mochte ein bier P": the pad at position 4 is the mask's 0.
    const tensorviz::PanelSpec m = tensorviz::panelFor(t.trace, t.config, QStringLiteral("src_mask"), 0, 0);
    QCOMPARE(m.legendCaption, QStringLiteral("1 = keep, 0 = masked"));
    QCOMPARE(m.m.cols, 5);
    QCOMPARE(m.m.at(0, 4), 0.0f);
    QCOMPARE(m.m.at(0, 3), 1.0f);
    QCOMPARE(m.mask[4], 1.0f);  // hatched: the 0
    QCOMPARE(m.mask[3], 0.0f);
    QVERIFY2(m.tooltip(0, 4).contains(QStringLiteral("0 = masked")), qPrintable(m.tooltip(0, 4)));
    QVERIFY(m.tooltip(0, 3).contains(QStringLiteral("1 = keep")));

    // The scores of every query hide the padded key (the [B, 1, S] mask broadcast).
    const tensorviz::PanelSpec ms =
        tensorviz::panelFor(t.trace, t.config, QStringLiteral("encoder.layer_stack.0.slf_attn.masked_scores"), 0, 1);
    QCOMPARE(ms.mask.size(), ms.m.values.size());
    QCOMPARE(ms.mask[size_t(2 * 5 + 4)], 1.0f);
    QCOMPARE(ms.mask[size_t(2 * 5 + 3)], 0.0f);
    QCOMPARE(ms.m.at(2, 4), -1e9f);
    QVERIFY2(ms.tooltip(2, 4).contains(QStringLiteral("mask = 0")), qPrintable(ms.tooltip(2, 4)));
    QVERIFY(ms.tooltip(2, 3).contains(QStringLiteral("mask = 1 (keep)")));
    // The decoder's trg_mask: a later word is 0, hatched.
    const tensorviz::PanelSpec tm = tensorviz::panelFor(t.trace, t.config, QStringLiteral("trg_mask"), 0, 0);
    QCOMPARE(tm.m.at(1, 2), 0.0f);
    QCOMPARE(tm.mask[size_t(1 * tm.m.cols + 2)], 1.0f);
    QCOMPARE(tm.mask[size_t(1 * tm.m.cols + 1)], 0.0f);
    QVERIFY(tm.tooltip(1, 2).contains(QStringLiteral("comes after")));

    HeatmapWidget w;
    w.resize(400, 300);
    tensorviz::applyPanel(&w, ms);
    QVERIFY(w.isMasked(2, 4));
    QVERIFY(!w.isMasked(2, 3));

    // The scaled query's tooltip divides by the temperature.
    const tensorviz::PanelSpec q =
        tensorviz::panelFor(t.trace, t.config, QStringLiteral("encoder.layer_stack.0.slf_attn.q_scaled"), 0, 0);
    QVERIFY2(q.tooltip(0, 0).contains(QStringLiteral("temperature")), qPrintable(q.tooltip(0, 0)));
    const tensorviz::StepPieces pieces =
        tensorviz::stepPieces(t.trace, t.config, QStringLiteral("encoder.layer_stack.0.slf_attn.q_scaled"), 0, 0);
    QVERIFY(pieces.formula.contains(QStringLiteral("temperature")));
    QCOMPARE(int(pieces.pieces.size()), 3);  // q, "/ temperature", q_scaled
    // The loss (a block of no model's names) is cal_loss's sum, not the tutorial's mean.
    const tensorviz::StepPieces loss = tensorviz::stepPieces(t.trace, t.config, QStringLiteral("loss"), 0, 0);
    QVERIFY2(loss.formula.contains(QStringLiteral("sum")) && !loss.formula.contains(QStringLiteral("mean of")), qPrintable(loss.formula));
}

void TestAiaynViews::diagramDrawsItsLayoutAndSharing() {
    const Traced shared = traced("shared_prj");
    const Traced unshared = traced("unshared_none");
    QVERIFY(shared.config.trg_emb_prj_weight_sharing);
    QVERIFY(!unshared.config.trg_emb_prj_weight_sharing);
    ArchitectureDiagram d;
    d.resize(360, 520);
    d.setTrace(unshared.trace, unshared.config);
    QCOMPARE(d.layout(), QStringLiteral("aiayn"));
    QVERIFY(d.blockIds().contains(QStringLiteral("encoder.input_norm")));
    QVERIFY(!d.blockIds().contains(QStringLiteral("encoder.final_norm")));
    QVERIFY(!d.drawsSharedLink(QStringLiteral("trg_emb_prj_weight_sharing")));
    const auto highlightOf = [&](const char* step) {
        d.setStep(QLatin1String(step));
        return d.highlightedBlock();
    };
    QCOMPARE(highlightOf("encoder.layer_stack.1.slf_attn.q_scaled"), QStringLiteral("encoder.mha"));
    QCOMPARE(d.currentLayer(), 1);
    QCOMPARE(highlightOf("encoder.layer_norm.out"), QStringLiteral("encoder.input_norm"));
    QCOMPARE(highlightOf("decoder.layer_norm.out"), QStringLiteral("decoder.input_norm"));
    QCOMPARE(highlightOf("encoder.layer_stack.0.slf_attn.residual"), QStringLiteral("encoder.mha_norm"));
    QCOMPARE(highlightOf("decoder.layer_stack.1.enc_attn.masked_scores"), QStringLiteral("decoder.cross_mha"));
    QCOMPARE(highlightOf("trg_mask"), QStringLiteral("decoder.masked_mha"));
    QCOMPARE(highlightOf("trg_word_prj.logits"), QStringLiteral("linear"));
    QCOMPARE(highlightOf("grad.encoder.layer_norm.out"), QStringLiteral("encoder.input_norm"));
    // The LayerNorm sits between the positional encoding and the first layer.
    QVERIFY(d.blockRect(QStringLiteral("encoder.input_norm")).bottom() < d.blockRect(QStringLiteral("encoder.add_pe")).top());
    QVERIFY(d.blockRect(QStringLiteral("encoder.input_norm")).top() > d.blockRect(QStringLiteral("encoder.mha")).bottom());
    QCOMPARE(d.stepForBlock(QStringLiteral("encoder.input_norm")), QStringLiteral("encoder.layer_norm.out"));
    QVERIFY(!models::presentation(models::namingOf(unshared.config)).blockTip(QStringLiteral("linear"), unshared.config).contains(QStringLiteral("shared")));
    QVERIFY(models::presentation(models::namingOf(unshared.config)).blockTip(QStringLiteral("encoder.mha"), unshared.config).contains(QStringLiteral("without bias")));
    const QImage unsharedImage = d.grab().toImage();
    d.resize(420, 640);
    testutil::saveShot(d, QStringLiteral("aiayn_diagram_unshared.png"));
    d.resize(360, 520);

    d.setTrace(shared.trace, shared.config);
    QVERIFY(d.drawsSharedLink(QStringLiteral("trg_emb_prj_weight_sharing")));
    QVERIFY(models::presentation(models::namingOf(shared.config)).blockTip(QStringLiteral("linear"), shared.config).contains(QStringLiteral("shared")));
    QVERIFY(models::presentation(models::namingOf(shared.config)).blockTip(QStringLiteral("decoder.embedding"), shared.config).contains(QStringLiteral("Shared")));
    d.setStep(QStringLiteral("encoder.layer_stack.1.slf_attn.q_scaled"));
    const QImage sharedImage = d.grab().toImage();
    QVERIFY(sharedImage != unsharedImage);  // the dashed link and the × d_model^−0.5
    // The link's violet ink is there with sharing only.
    const auto violet = [](const QImage& img) {
        int n = 0;
        for (int y = 0; y < img.height(); ++y)
            for (int x = 0; x < img.width(); ++x)
                if (QColor(img.pixel(x, y)) == QColor(0x6a, 0x3d, 0x9a)) ++n;
        return n;
    };
    QVERIFY(violet(sharedImage) > 20);
    QCOMPARE(violet(unsharedImage), 0);
    d.resize(420, 640);
    testutil::saveShot(d, QStringLiteral("aiayn_diagram_shared.png"));
}

void TestAiaynViews::mainWindowWalksEveryStep() {
    MainWindow w(testutil::fixtureWindow(fixture("shared_prj"), cache_.path()));
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.session()->trace());
    QCOMPARE(w.session()->config().architecture, Architecture::Aiayn);
    auto* explain = w.findChild<ExplainPanel*>(QStringLiteral("explainPanel"));
    QVERIFY(explain);
    QCOMPARE(w.architectureDiagram()->layout(), QStringLiteral("aiayn"));
    QVERIFY(w.architectureDiagram()->drawsSharedLink(QStringLiteral("trg_emb_prj_weight_sharing")));

    QVERIFY(w.navigator()->model()->stepOrder().contains(QStringLiteral("encoder.layer_stack.0.slf_attn.q_scaled")));
    QVERIFY(backwardStepOrder(*w.session()->trace()).contains(QStringLiteral("grad.encoder.layer_stack.0.slf_attn.q_scaled")));
    VERIFY_HELPER(testutil::walkEveryStep(w, [&](const QString& s) -> QString {
        if (explain->currentStep() != s) return QStringLiteral("the explanation shows %1").arg(explain->currentStep());
        if (explain->plainText().contains(QStringLiteral("No explanation"))) return QStringLiteral("no explanation");
        if (w.architectureDiagram()->highlightedBlock().isEmpty() && !s.contains(QStringLiteral("loss")) &&
            !s.endsWith(QStringLiteral(".pe")))
            return QStringLiteral("no diagram block highlighted");
        return {};
    }));

    w.setCurrentView(QStringLiteral("tensor"));
    w.setCurrentStep(QStringLiteral("encoder.layer_stack.0.slf_attn.q_scaled"));
    if (auto* dock = w.findChild<QDockWidget*>(QStringLiteral("architectureDock"))) {
        dock->show();
        dock->raise();
    }
    QCOMPARE(w.architectureDiagram()->highlightedBlock(), QStringLiteral("encoder.mha"));
    testutil::saveShot(w, QStringLiteral("aiayn_window_1366.png"));
    w.setCurrentView(QStringLiteral("masks"));
    w.setCurrentStep(QStringLiteral("trg_mask"));
    testutil::saveShot(w, QStringLiteral("aiayn_masks_1366.png"));
    // The positional-encoding page: the sum is normalised before layer 0.
    w.setCurrentView(QStringLiteral("pe"));
    w.setCurrentStep(QStringLiteral("encoder.position_enc.out"));
    auto* peCaption = w.findChild<QLabel*>(QStringLiteral("peSumCaption"));
    QVERIFY(peCaption);
    QVERIFY2(peCaption->text().contains(QStringLiteral("encoder.layer_norm")), qPrintable(peCaption->text()));
    // The loss page names cal_loss, never the tutorial's CrossEntropyLoss.
    w.setCurrentView(QStringLiteral("loss"));
    w.setCurrentStep(QStringLiteral("loss"));
    auto* lossTitle = w.findChild<QLabel*>(QStringLiteral("lossTitleLabel"));
    QVERIFY(lossTitle);
    QVERIFY2(lossTitle->text().contains(QStringLiteral("cal_loss")) && !lossTitle->text().contains(QStringLiteral("CrossEntropyLoss(")),
             qPrintable(lossTitle->text()));
    w.setCurrentView(QStringLiteral("gradients"));
    auto* grads = w.findChild<GradientView*>();
    QVERIFY(grads);
    // The shared projection's weight is the one parameter it is: decoder.trg_word_emb.weight.
    w.setCurrentStep(QStringLiteral("grad.trg_word_prj.logits"));
    QCOMPARE(grads->currentParameter(), QStringLiteral("decoder.trg_word_emb.weight"));
    w.setCurrentStep(QStringLiteral("grad.encoder.layer_norm.out"));
    QCOMPARE(grads->currentParameter(), QStringLiteral("encoder.layer_norm.weight"));
    w.setCurrentStep(QStringLiteral("grad.encoder.layer_stack.0.slf_attn.q_scaled"));
    QCOMPARE(grads->currentParameter(), QStringLiteral("encoder.layer_stack.0.slf_attn.w_qs.weight"));
    testutil::saveShot(w, QStringLiteral("aiayn_gradient_1366.png"));
    w.resize(1920, 1080);
    w.setCurrentView(QStringLiteral("tensor"));
    w.setCurrentStep(QStringLiteral("decoder.layer_stack.0.enc_attn.masked_scores"));
    QCoreApplication::processEvents();
    testutil::saveShot(w, QStringLiteral("aiayn_window_1920.png"));
}

// The fixture without weight sharing (its own trg_word_prj, scale_emb_or_prj "none"): every step
// in every view, and no "shared" link in the diagram.
void TestAiaynViews::mainWindowWalksUnsharedModel() {
    MainWindow w(testutil::fixtureWindow(fixture("unshared_none"), cache_.path()));
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.session()->trace());
    QVERIFY(!w.session()->config().trg_emb_prj_weight_sharing);
    QCOMPARE(w.architectureDiagram()->layout(), QStringLiteral("aiayn"));
    QVERIFY(!w.architectureDiagram()->drawsSharedLink(QStringLiteral("trg_emb_prj_weight_sharing")));
    auto* explain = w.findChild<ExplainPanel*>(QStringLiteral("explainPanel"));
    QVERIFY(explain);
    QVERIFY(backwardStepOrder(*w.session()->trace()).contains(QStringLiteral("grad.trg_word_prj.logits")));
    VERIFY_HELPER(testutil::walkEveryStep(w, [&](const QString&) -> QString {
        return explain->plainText().contains(QStringLiteral("No explanation")) ? QStringLiteral("no explanation") : QString();
    }));
    // Its own projection weight: the gradient view shows trg_word_prj.weight itself.
    w.setCurrentView(QStringLiteral("gradients"));
    w.setCurrentStep(QStringLiteral("grad.trg_word_prj.logits"));
    auto* grads = w.findChild<GradientView*>();
    QVERIFY(grads);
    QCOMPARE(grads->currentParameter(), QStringLiteral("trg_word_prj.weight"));
}

QTEST_MAIN(TestAiaynViews)
#include "test_aiayn_views.moc"
