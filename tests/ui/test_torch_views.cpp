// A model of PyTorch's nn.Transformer ("architecture": "torch") shown as itself: the navigator's
// tree and labels in PyTorch's names, the explanations of PyTorch's lines (the packed
// in_proj_weight, the additive 0 / −∞ mask, True = ignore), the diagram's post-norm and pre-norm
// pictures with the final norms, the mask panel's −∞ cells; every forward and gradient step of
// the fixture's trace visited in the main window. The tutorial's model keeps its own texts.
//
// With STEPFORMER_SCREENSHOT_DIR set, it saves torch_*.png there (the main window at 1366×768
// and 1920×1080, the pre-norm diagram).
#include <QtTest>

#include <QDockWidget>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTextBrowser>

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
#include "stepformer/model_io.h"
#include "stepformer/params.h"
#include "test_util.h"
#include "widgets/colormap.h"
#include "widgets/heatmap_widget.h"

using namespace stepformer;

namespace {

const QString kFixture = QStringLiteral(STEPFORMER_FIXTURES_DIR "/torch/seq2seq.weights.safetensors");

// A small torch seq2seq model's forward, loss and backward on the tutorial's sentence.
struct Traced {
    Config config;
    std::shared_ptr<Trace> trace;
};

Traced traced(Config c) {
    Transformer model(c, init_params(c, 5));
    const Batch batch = make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."}, {"i want a beer . E"});
    auto trace = std::make_shared<Trace>();
    model.forward(batch, *trace);
    model.loss(batch, *trace);
    ParamSet grads;
    model.backward(batch, *trace, grads);
    return {c, trace};
}

Config preNormGelu() {
    Config c = Config::torch_small();
    c.norm_first = true;
    c.activation = "gelu";
    return c;
}

// Every label of the tree, depth first, with its group path ("Encoder/Encoder layer 0/...").

}  // namespace

class TestTorchViews : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void navigatorNamesPyTorchsModules();
    void preNormTreeAndLabels();
    void explanationsArePyTorchs();
    void tutorialKeepsItsTexts();
    void maskPanelShowsMinusInfinity();
    void diagramPostAndPreNorm();
    void mainWindowWalksEveryStep();

private:
    QTemporaryDir cache_;
};

void TestTorchViews::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

void TestTorchViews::navigatorNamesPyTorchsModules() {
    const Traced t = traced(Config::torch_small());
    StepModel m;
    m.setTrace(t.trace);
    QStringList groups;
    QHash<QString, QString> labels;
    testutil::collectSteps(m, {}, {}, groups, labels);
    for (const char* g : {"Encoder/Encoder layer 0/Self-attention (self_attn)", "Encoder/Final norm (encoder.norm)",
                          "Decoder/Decoder layer 1/Masked self-attention (self_attn)",
                          "Decoder/Decoder layer 1/Cross-attention (multihead_attn)",
                          "Decoder/Decoder layer 0/Feed-forward (linear1, linear2)", "Decoder/Final norm (decoder.norm)",
                          "Generator (generator)"})
        QVERIFY2(groups.contains(QLatin1String(g)), qPrintable(QStringLiteral("%1 not in %2").arg(g, groups.join(", "))));
    QVERIFY(!groups.contains(QStringLiteral("Projection")));
    const auto label = [&](const char* n) { return labels.value(QLatin1String(n)); };
    QCOMPARE(label("src_tok_emb.out"), QStringLiteral("src_tok_emb (× √d_model)"));
    QCOMPARE(label("transformer.encoder.layers.0.self_attn.Q"), QStringLiteral("Q (in_proj: q rows + bias)"));
    QCOMPARE(label("transformer.encoder.layers.0.self_attn.mask"), QStringLiteral("mask (additive: 0 / −∞)"));
    QCOMPARE(label("transformer.encoder.layers.0.self_attn.out_proj"), QStringLiteral("out_proj (+ bias)"));
    QCOMPARE(label("transformer.encoder.layers.0.add1"), QStringLiteral("add1 (+ residual)"));
    QCOMPARE(label("transformer.decoder.layers.1.norm3"), QStringLiteral("norm3 (LayerNorm)"));
    QCOMPARE(label("transformer.decoder.layers.0.linear1"), QStringLiteral("linear1 (+ bias)"));
    QCOMPARE(label("transformer.decoder.layers.0.activation"), QStringLiteral("activation (ReLU)"));
    QCOMPARE(label("transformer.encoder.norm.out"), QStringLiteral("encoder.norm (LayerNorm)"));
    QCOMPARE(label("generator.logits"), QStringLiteral("generator (logits)"));
    // Every step has a label of its own, never its bare name.
    for (auto it = labels.cbegin(); it != labels.cend(); ++it) QVERIFY2(!it.value().isEmpty() && it.value() != it.key(), qPrintable(it.key()));

    // The tooltips of the kinds the tutorial lacks say what they are.
    const QModelIndex mask = m.indexForStep(QStringLiteral("transformer.decoder.layers.0.self_attn.mask"));
    QVERIFY(mask.data(Qt::ToolTipRole).toString().contains(QStringLiteral("−∞ = ignored")));
    QVERIFY(mask.data(Qt::ToolTipRole).toString().contains(QStringLiteral("True = ignore")));
    QVERIFY(m.indexForStep(QStringLiteral("transformer.encoder.norm.out")).data(Qt::ToolTipRole).toString().contains(
        QStringLiteral("final LayerNorm")));
    // The source node jumps to PyTorch's embedding.
    QCOMPARE(m.index(0, 0, m.index(0, 0)).data(StepModel::JumpTargetRole).toString(), QStringLiteral("src_tok_emb.out"));

    // Gradients are labelled from their forward step.
    QCOMPARE(BackwardStepList::friendlyLabel(*t.trace, QStringLiteral("grad.transformer.encoder.layers.1.linear2")),
             QStringLiteral("∂loss/∂ linear2 (+ bias)"));
    QCOMPARE(StepModel::locationText(*t.trace->find("grad.transformer.decoder.layers.0.multihead_attn.K")),
             QStringLiteral("Decoder layer 0 › Cross-attention (multihead_attn)"));
}

void TestTorchViews::preNormTreeAndLabels() {
    const Traced t = traced(preNormGelu());
    StepModel m;
    m.setTrace(t.trace);
    // Pre-norm: norm1 comes before the attention, inside the self-attention group.
    const QStringList order = m.stepOrder();
    const int norm1 = order.indexOf(QStringLiteral("transformer.encoder.layers.0.norm1"));
    const int q = order.indexOf(QStringLiteral("transformer.encoder.layers.0.self_attn.Q"));
    QVERIFY(norm1 >= 0 && q >= 0);
    QVERIFY(norm1 < q);
    const QModelIndex n1 = m.indexForStep(QStringLiteral("transformer.encoder.layers.0.norm1"));
    QCOMPARE(n1.parent().data().toString(), QStringLiteral("Self-attention (self_attn)"));
    QCOMPARE(m.index(0, 0, n1.parent()).data(StepModel::TraceNameRole).toString(), QStringLiteral("transformer.encoder.layers.0.norm1"));
    QCOMPARE(m.indexForStep(QStringLiteral("transformer.encoder.layers.1.activation")).data().toString(),
             QStringLiteral("activation (GELU)"));
    QVERIFY(m.indexForStep(QStringLiteral("transformer.encoder.layers.1.activation")).data(Qt::ToolTipRole).toString().contains(
        QStringLiteral("erf")));
}

void TestTorchViews::explanationsArePyTorchs() {
    const Traced t = traced(Config::torch_small());
    ExplainPanel p;
    p.setTrace(t.trace, t.config);
    const auto text = [&](const char* step) {
        p.setStep(QLatin1String(step));
        return p.plainText();
    };
    const QString q = text("transformer.encoder.layers.0.self_attn.Q");
    QVERIFY(q.contains(QStringLiteral("in_proj_weight")));
    QVERIFY(q.contains(QStringLiteral("head_dim = d_model / nhead = 8")));  // 32 / 4
    QVERIFY(!q.contains(QStringLiteral("W_Q")));
    QVERIFY(text("transformer.encoder.layers.0.self_attn.scores").contains(QStringLiteral("q / math.sqrt(head_dim)")));
    const QString mask = text("transformer.decoder.layers.0.self_attn.mask");
    QVERIFY(mask.contains(QStringLiteral("−∞")));
    QVERIFY(mask.contains(QStringLiteral("True = ignore")));
    QVERIFY(mask.contains(QStringLiteral("key_padding_mask")));
    QVERIFY(mask.contains(QStringLiteral("positions −∞ (ignored)")));  // the header's count, not min/max of −∞
    const QString masked = text("transformer.encoder.layers.0.self_attn.masked_scores");
    QVERIFY(masked.contains(QStringLiteral("baddbmm")));
    QVERIFY(masked.contains(QStringLiteral("× −∞ (masked)")));  // the source's pad: −∞ counted apart
    QVERIFY(text("transformer.encoder.layers.0.self_attn.attn").contains(QStringLiteral("NaN")));
    QVERIFY(text("transformer.encoder.layers.0.self_attn.out_proj").contains(QStringLiteral("out_proj.bias")));
    QVERIFY(text("transformer.encoder.layers.0.norm2").contains(QStringLiteral("post-norm")));
    QVERIFY(text("transformer.encoder.norm.out").contains(QStringLiteral("transformer.encoder.norm")));
    QVERIFY(text("generator.logits").contains(QStringLiteral("generator.bias")));
    QVERIFY(text("src_tok_emb.out").contains(QStringLiteral("math.sqrt(emb_size)")));
    QVERIFY(text("grad.transformer.encoder.layers.0.self_attn.Q").contains(QStringLiteral("in_proj_bias")));
    QVERIFY(text("grad.generator.logits").contains(QStringLiteral("generator.weight")));
    // No step of PyTorch's model quotes the tutorial's code.
    for (const TraceEntry& e : t.trace->entries()) {
        const QString s = text(e.name.c_str());
        QVERIFY2(!s.contains(QStringLiteral("In the tutorial")), e.name.c_str());
        QVERIFY2(!s.contains(QStringLiteral("No explanation")), e.name.c_str());
    }

    const Traced pre = traced(preNormGelu());
    p.setTrace(pre.trace, pre.config);
    QVERIFY(text("transformer.encoder.layers.0.activation").contains(QStringLiteral("erf(h/√2)")));
    QVERIFY(text("grad.transformer.encoder.layers.0.activation").contains(QStringLiteral("GELU′")));
    QVERIFY(text("transformer.encoder.layers.0.norm1").contains(QStringLiteral("pre-norm")));
}

void TestTorchViews::tutorialKeepsItsTexts() {
    const Traced t = traced(Config::small());
    ExplainPanel p;
    p.setTrace(t.trace, t.config);
    p.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.Q"));
    QVERIFY(p.plainText().contains(QStringLiteral("W_Q")));
    QVERIFY(p.plainText().contains(QStringLiteral("In the tutorial")));
    QVERIFY(!p.plainText().contains(QStringLiteral("in_proj_weight")));
    StepModel m;
    m.setTrace(t.trace);
    QCOMPARE(m.indexForStep(QStringLiteral("encoder.layers.0.enc_self_attn.Q")).data().toString(), QStringLiteral("Q (queries)"));
    QCOMPARE(m.indexForStep(QStringLiteral("encoder.layers.0.enc_self_attn.Q")).parent().data().toString(),
             QStringLiteral("Self-attention"));
}

void TestTorchViews::maskPanelShowsMinusInfinity() {
    const Traced t = traced(Config::torch_small());
    // The source "ich mochte ein bier P" ends on a pad: its key is −∞ in every row.
    const QString name = QStringLiteral("transformer.encoder.layers.0.self_attn.mask");
    const tensorviz::PanelSpec p = tensorviz::panelFor(t.trace, t.config, name, 0, 1);
    QCOMPARE(p.legendCaption, QStringLiteral("additive mask"));
    QCOMPARE(p.m.cols, 5);
    QCOMPARE(p.m.at(2, 4), -INFINITY);
    QCOMPARE(p.m.at(2, 3), 0.0f);
    QCOMPARE(p.mask.size(), p.m.values.size());
    QCOMPARE(p.mask[size_t(2 * 5 + 4)], 1.0f);
    QCOMPARE(p.mask[size_t(2 * 5 + 3)], 0.0f);
    const QString tip = p.tooltip(2, 4);
    QVERIFY2(tip.contains(QStringLiteral("−∞ = ignored")) && tip.contains(QStringLiteral("key_padding_mask is True")),
             qPrintable(tip));
    QVERIFY(p.tooltip(2, 3).contains(QStringLiteral("0 = may attend")));

    HeatmapWidget w;
    w.resize(400, 300);
    tensorviz::applyPanel(&w, p);
    QCOMPARE(w.colorAt(2, 4), Colormap::maskedColor());  // drawn as masked, not as a broken scale
    QVERIFY(w.colorAt(2, 3) != Colormap::nanColor());
    QVERIFY(w.isMasked(2, 4));
    QVERIFY(!w.isMasked(2, 3));
    QVERIFY(testutil::distinctColors(w.grab().toImage()) > 4);

    // The masked scores' −∞ cell explains the addition.
    const tensorviz::PanelSpec ms =
        tensorviz::panelFor(t.trace, t.config, QStringLiteral("transformer.encoder.layers.0.self_attn.masked_scores"), 0, 0);
    QVERIFY(ms.tooltip(1, 4).contains(QStringLiteral("+ (−∞) = <b>−∞</b>")));
}

void TestTorchViews::diagramPostAndPreNorm() {
    const Traced post = traced(Config::torch_small());
    const Traced pre = traced(preNormGelu());
    ArchitectureDiagram d;
    d.resize(360, 520);
    d.setTrace(post.trace, post.config);
    QCOMPARE(d.layout(), QStringLiteral("torch_post_norm"));
    QVERIFY(d.blockIds().contains(QStringLiteral("encoder.final_norm")));
    QVERIFY(d.blockIds().contains(QStringLiteral("decoder.final_norm")));
    QVERIFY(!d.blockIds().contains(QStringLiteral("encoder.mha_add")));
    const auto highlightOf = [&](const char* step) {
        d.setStep(QLatin1String(step));
        return d.highlightedBlock();
    };
    QCOMPARE(highlightOf("transformer.encoder.layers.1.self_attn.scores"), QStringLiteral("encoder.mha"));
    QCOMPARE(d.currentLayer(), 1);
    QCOMPARE(d.layerText(QStringLiteral("encoder")), QStringLiteral("layer 2/2"));
    QCOMPARE(highlightOf("transformer.encoder.layers.1.add1"), QStringLiteral("encoder.mha_norm"));
    QCOMPARE(highlightOf("transformer.decoder.layers.0.multihead_attn.mask"), QStringLiteral("decoder.cross_mha"));
    QCOMPARE(highlightOf("transformer.encoder.norm.out"), QStringLiteral("encoder.final_norm"));
    QCOMPARE(highlightOf("grad.transformer.decoder.norm.out"), QStringLiteral("decoder.final_norm"));
    QCOMPARE(highlightOf("generator.logits"), QStringLiteral("linear"));
    QCOMPARE(highlightOf("tgt_tok_emb.out"), QStringLiteral("decoder.embedding"));
    QCOMPARE(d.stepForBlock(QStringLiteral("decoder.final_norm")), QStringLiteral("transformer.decoder.norm.out"));
    QCOMPARE(d.stepForBlock(QStringLiteral("encoder.mha")), QStringLiteral("transformer.encoder.layers.0.self_attn.Q"));
    QVERIFY(models::presentation(models::namingOf(post.config)).blockTip(QStringLiteral("encoder.ffn"), post.config).contains(QStringLiteral("ReLU")));
    QVERIFY(models::presentation(models::namingOf(post.config)).blockTip(QStringLiteral("encoder.mha"), post.config).contains(QStringLiteral("in_proj_bias")));
    const QImage postImage = d.grab().toImage();
    d.resize(420, 640);
    testutil::saveShot(d, QStringLiteral("torch_diagram_postnorm.png"));
    d.resize(360, 520);

    d.setTrace(pre.trace, pre.config);
    QCOMPARE(d.layout(), QStringLiteral("torch_pre_norm"));
    QVERIFY(d.blockIds().contains(QStringLiteral("encoder.mha_add")));
    QCOMPARE(highlightOf("transformer.encoder.layers.0.norm1"), QStringLiteral("encoder.mha_norm"));
    QCOMPARE(highlightOf("transformer.encoder.layers.0.add1"), QStringLiteral("encoder.mha_add"));
    QCOMPARE(highlightOf("transformer.decoder.layers.1.add3"), QStringLiteral("decoder.ffn_add"));
    // Pre-norm: the LayerNorm sits below (before) the sub-layer it feeds.
    QVERIFY(d.blockRect(QStringLiteral("encoder.mha_norm")).top() > d.blockRect(QStringLiteral("encoder.mha")).bottom());
    QVERIFY(d.blockRect(QStringLiteral("encoder.mha_add")).bottom() < d.blockRect(QStringLiteral("encoder.mha")).top());
    QVERIFY(models::presentation(models::namingOf(pre.config)).blockTip(QStringLiteral("encoder.ffn"), pre.config).contains(QStringLiteral("GELU")));
    QVERIFY(models::presentation(models::namingOf(pre.config)).blockTip(QStringLiteral("encoder.mha_norm"), pre.config).contains(QStringLiteral("norm_first=True")));
    const QImage preImage = d.grab().toImage();
    QVERIFY(preImage != postImage);
    QVERIFY(testutil::distinctColors(preImage) > 10);
    d.resize(420, 640);
    testutil::saveShot(d, QStringLiteral("torch_diagram_prenorm.png"));

    // The tutorial's model: its own figure again.
    const Traced tut = traced(Config::small());
    d.setTrace(tut.trace, tut.config);
    QCOMPARE(d.layout(), QStringLiteral("paper"));
    QVERIFY(!d.blockIds().contains(QStringLiteral("encoder.final_norm")));
    QCOMPARE(highlightOf("encoder.layers.0.enc_self_attn.residual"), QStringLiteral("encoder.mha_norm"));
}

void TestTorchViews::mainWindowWalksEveryStep() {
    MainWindow w(testutil::fixtureWindow(kFixture, cache_.path()));
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.session()->trace());
    QCOMPARE(w.session()->config().architecture, Architecture::Torch);
    auto* explain = w.findChild<ExplainPanel*>(QStringLiteral("explainPanel"));
    QVERIFY(explain);
    QCOMPARE(w.architectureDiagram()->layout(), QStringLiteral("torch_post_norm"));

    QVERIFY(w.navigator()->model()->stepOrder().contains(QStringLiteral("transformer.encoder.layers.0.self_attn.masked_scores")));
    QVERIFY(backwardStepOrder(*w.session()->trace()).contains(QStringLiteral("grad.transformer.encoder.layers.0.self_attn.Q")));
    VERIFY_HELPER(testutil::walkEveryStep(w, [&](const QString& s) -> QString {
        if (explain->currentStep() != s) return QStringLiteral("the explanation shows %1").arg(explain->currentStep());
        const QString text = explain->plainText();
        if (text.contains(QStringLiteral("No explanation"))) return QStringLiteral("no explanation");
        if (text.contains(QStringLiteral("In the tutorial"))) return QStringLiteral("the tutorial's text");
        if (w.architectureDiagram()->highlightedBlock().isEmpty() && !s.contains(QStringLiteral("loss")) &&
            !s.endsWith(QStringLiteral(".pe")))
            return QStringLiteral("no diagram block highlighted");
        return {};
    }));

    w.setCurrentView(QStringLiteral("tensor"));
    w.setCurrentStep(QStringLiteral("transformer.encoder.layers.0.self_attn.masked_scores"));
    if (auto* dock = w.findChild<QDockWidget*>(QStringLiteral("architectureDock"))) {
        dock->show();
        dock->raise();
    }
    QCOMPARE(w.architectureDiagram()->highlightedBlock(), QStringLiteral("encoder.mha"));
    testutil::saveShot(w, QStringLiteral("torch_window_1366.png"));
    w.resize(1920, 1080);
    QCoreApplication::processEvents();
    testutil::saveShot(w, QStringLiteral("torch_window_1920.png"));
}

QTEST_MAIN(TestTorchViews)
#include "test_torch_views.moc"
