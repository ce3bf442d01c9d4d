// ArchitectureDiagram: trace names map to the right block of Figure 1, the current layer is
// shown beside N×, clicking a block asks for its first step (in the current layer), every
// block can be hit at dock-like sizes, and the diagram actually paints.
#include <QtTest>

#include <QApplication>
#include <QSet>
#include <QSignalSpy>
#include <QToolTip>

#include <memory>

#include "architecture/architecture_diagram.h"
#include "architecture/architecture_parts.h"
#include "architecture/diagram_layout.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "test_util.h"

using testutil::distinctColors;

using namespace stepformer;

namespace {

std::shared_ptr<const Trace> makeTrace(const Config& c) {
    Transformer model(c, init_params(c, 3));
    const Batch batch = make_batch(c, {"ich mochte ein bier P"}, {"S i want a beer ."});
    auto trace = std::make_shared<Trace>();
    model.forward(batch, *trace);
    return trace;
}

}  // namespace

class TestArchitecture : public QObject {
    Q_OBJECT
private slots:
    void highlight_data();
    void highlight();
    void everyTraceNameHasABlock();
    void layerText();
    void click_data();
    void click();
    void blocksHitAtDockSizes_data();
    void blocksHitAtDockSizes();
    void hover();
    void tooltip();
    void grabIsNotBlank();
    void everyLayoutReads();
    void malformedLayoutIsNamed();
};

void TestArchitecture::highlight_data() {
    QTest::addColumn<QString>("name");
    QTest::addColumn<QString>("block");
    QTest::newRow("src emb") << "encoder.src_emb.out" << "encoder.embedding";
    QTest::newRow("enc pe") << "encoder.pos_emb.pe" << "encoder.pe";
    QTest::newRow("enc sum") << "encoder.pos_emb.out" << "encoder.add_pe";
    QTest::newRow("enc mask") << "encoder.self_attn_mask" << "encoder.mha";
    QTest::newRow("enc scores") << "encoder.layers.3.enc_self_attn.scores" << "encoder.mha";
    QTest::newRow("enc Q") << "encoder.layers.0.enc_self_attn.Q" << "encoder.mha";
    QTest::newRow("enc fc_out") << "encoder.layers.1.enc_self_attn.fc_out" << "encoder.mha";
    QTest::newRow("enc residual") << "encoder.layers.1.enc_self_attn.residual" << "encoder.mha_norm";
    QTest::newRow("enc attn out") << "encoder.layers.5.enc_self_attn.out" << "encoder.mha_norm";
    QTest::newRow("enc relu") << "encoder.layers.2.pos_ffn.relu" << "encoder.ffn";
    QTest::newRow("enc ffn out") << "encoder.layers.2.pos_ffn.out" << "encoder.ffn_norm";
    QTest::newRow("tgt emb") << "decoder.tgt_emb.out" << "decoder.embedding";
    QTest::newRow("dec pe") << "decoder.pos_emb.pe" << "decoder.pe";
    QTest::newRow("subseq mask") << "decoder.self_attn_subsequence_mask" << "decoder.masked_mha";
    QTest::newRow("dec self attn") << "decoder.layers.0.dec_self_attn.attn" << "decoder.masked_mha";
    QTest::newRow("dec self out") << "decoder.layers.0.dec_self_attn.out" << "decoder.masked_mha_norm";
    QTest::newRow("enc attn mask") << "decoder.enc_attn_mask" << "decoder.cross_mha";
    QTest::newRow("cross K") << "decoder.layers.1.dec_enc_attn.K" << "decoder.cross_mha";
    QTest::newRow("cross residual") << "decoder.layers.1.dec_enc_attn.residual" << "decoder.cross_mha_norm";
    QTest::newRow("dec hidden") << "decoder.layers.1.pos_ffn.hidden" << "decoder.ffn";
    QTest::newRow("dec ffn out") << "decoder.layers.1.pos_ffn.out" << "decoder.ffn_norm";
    QTest::newRow("logits") << "projection.logits" << "linear";
    QTest::newRow("probs") << "projection.probs" << "softmax";
    QTest::newRow("grad") << "grad.encoder.layers.0.enc_self_attn.attn" << "encoder.mha";
    QTest::newRow("unknown") << "something.else" << "";
}

void TestArchitecture::highlight() {
    QFETCH(QString, name);
    QFETCH(QString, block);
    ArchitectureDiagram d;
    d.setStep(name);
    QCOMPARE(d.highlightedBlock(), block);
    QCOMPARE(ArchitectureDiagram::blockForTraceName(name), block);
    if (!block.isEmpty()) QVERIFY(!d.blockRect(block).isEmpty());
}

void TestArchitecture::everyTraceNameHasABlock() {
    const Config c = Config::small();
    auto trace = makeTrace(c);
    ArchitectureDiagram d;
    d.setTrace(trace, c);
    const QStringList ids = d.blockIds();
    for (const TraceEntry& e : trace->entries()) {
        const QString block = ArchitectureDiagram::blockForTraceName(QString::fromStdString(e.name));
        QVERIFY2(ids.contains(block), qPrintable(QString::fromStdString(e.name)));
    }
    // And every block's click target exists in a real trace.
    for (const QString& id : ids) {
        const QString step = d.stepForBlock(id);
        QVERIFY2(trace->contains(step.toStdString()), qPrintable(id + QStringLiteral(" -> ") + step));
        QCOMPARE(ArchitectureDiagram::blockForTraceName(step), id);  // clicking lands on the same block
    }
}

void TestArchitecture::layerText() {
    ArchitectureDiagram d;
    d.setTrace(nullptr, Config::tutorial());  // n_layers 6
    d.setStep(QStringLiteral("encoder.layers.3.enc_self_attn.scores"));
    QCOMPARE(d.currentLayer(), 3);
    QCOMPARE(d.currentStack(), QStringLiteral("encoder"));
    QCOMPARE(d.layerText(QStringLiteral("encoder")), QStringLiteral("layer 4/6"));  // 4th of 6 (0-based layers.3)
    QCOMPARE(d.layerText(QStringLiteral("decoder")), QString());
    d.setStep(QStringLiteral("decoder.layers.5.pos_ffn.out"));
    QCOMPARE(d.layerText(QStringLiteral("decoder")), QStringLiteral("layer 6/6"));
    QCOMPARE(d.layerText(QStringLiteral("encoder")), QString());
    d.setStep(QStringLiteral("projection.logits"));
    QCOMPARE(d.currentLayer(), -1);
    QCOMPARE(d.layerText(QStringLiteral("decoder")), QString());
}

void TestArchitecture::click_data() {
    QTest::addColumn<QString>("current");
    QTest::addColumn<QString>("block");
    QTest::addColumn<QString>("expected");
    QTest::newRow("enc mha, layer 1") << "encoder.layers.1.pos_ffn.relu" << "encoder.mha" << "encoder.layers.1.enc_self_attn.Q";
    QTest::newRow("enc mha, no layer") << "projection.logits" << "encoder.mha" << "encoder.layers.0.enc_self_attn.Q";
    QTest::newRow("enc mha from decoder") << "decoder.layers.1.pos_ffn.relu" << "encoder.mha" << "encoder.layers.0.enc_self_attn.Q";
    QTest::newRow("enc ffn") << "encoder.layers.1.enc_self_attn.attn" << "encoder.ffn" << "encoder.layers.1.pos_ffn.hidden";
    QTest::newRow("enc norm 1") << "encoder.layers.1.enc_self_attn.attn" << "encoder.mha_norm" << "encoder.layers.1.enc_self_attn.out";
    QTest::newRow("enc norm 2") << "" << "encoder.ffn_norm" << "encoder.layers.0.pos_ffn.out";
    QTest::newRow("embedding") << "" << "encoder.embedding" << "encoder.src_emb.out";
    QTest::newRow("pe") << "" << "encoder.pe" << "encoder.pos_emb.pe";
    QTest::newRow("sum") << "" << "encoder.add_pe" << "encoder.pos_emb.out";
    QTest::newRow("dec embedding") << "" << "decoder.embedding" << "decoder.tgt_emb.out";
    QTest::newRow("dec pe") << "" << "decoder.pe" << "decoder.pos_emb.pe";
    QTest::newRow("masked mha") << "decoder.layers.1.pos_ffn.out" << "decoder.masked_mha" << "decoder.layers.1.dec_self_attn.Q";
    QTest::newRow("cross mha") << "decoder.layers.1.dec_self_attn.V" << "decoder.cross_mha" << "decoder.layers.1.dec_enc_attn.Q";
    QTest::newRow("cross norm") << "grad.decoder.layers.1.dec_self_attn.V" << "decoder.cross_mha_norm" << "decoder.layers.1.dec_enc_attn.out";
    QTest::newRow("dec ffn") << "" << "decoder.ffn" << "decoder.layers.0.pos_ffn.hidden";
    QTest::newRow("dec ffn norm") << "" << "decoder.ffn_norm" << "decoder.layers.0.pos_ffn.out";
    QTest::newRow("linear") << "decoder.layers.1.pos_ffn.out" << "linear" << "projection.logits";
    QTest::newRow("softmax") << "" << "softmax" << "projection.probs";
}

void TestArchitecture::click() {
    QFETCH(QString, current);
    QFETCH(QString, block);
    QFETCH(QString, expected);
    const Config c = Config::small();  // 2 layers
    ArchitectureDiagram d;
    d.setTrace(makeTrace(c), c);
    d.resize(360, 560);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    d.setStep(current);
    QSignalSpy spy(&d, &ArchitectureDiagram::stepRequested);
    const QRectF r = d.blockRect(block);
    QVERIFY(!r.isEmpty());
    QCOMPARE(d.blockAt(r.center().toPoint()), block);
    QTest::mouseClick(&d, Qt::LeftButton, {}, r.center().toPoint());
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toString(), expected);
    // Empty space emits nothing.
    QTest::mouseClick(&d, Qt::LeftButton, {}, QPoint(2, d.height() - 2));
    QCOMPARE(spy.count(), 1);
}

void TestArchitecture::blocksHitAtDockSizes_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("narrow dock") << QSize(300, 520);
    QTest::newRow("dock") << QSize(380, 700);
    QTest::newRow("wide") << QSize(900, 600);
    QTest::newRow("tiny") << QSize(220, 300);
}

void TestArchitecture::blocksHitAtDockSizes() {
    QFETCH(QSize, size);
    ArchitectureDiagram d;
    d.resize(size);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    const QRectF all(QPointF(0, 0), QSizeF(size));
    const QStringList ids = d.blockIds();
    QCOMPARE(ids.size(), 18);
    for (const QString& id : ids) {
        const QRectF r = d.blockRect(id);
        QVERIFY2(all.contains(r), qPrintable(id));
        QCOMPARE(d.blockAt(r.center().toPoint()), id);
        for (const QString& other : ids)
            if (other != id) QVERIFY2(!r.intersects(d.blockRect(other)), qPrintable(id + QStringLiteral(" / ") + other));
    }
    QVERIFY(d.blockAt(QPoint(0, 0)).isEmpty());
}

void TestArchitecture::hover() {
    ArchitectureDiagram d;
    d.resize(360, 560);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    QTest::mouseMove(&d, d.blockRect(QStringLiteral("encoder.ffn")).center().toPoint());
    QTRY_COMPARE(d.hoveredBlock(), QStringLiteral("encoder.ffn"));
    QTest::mouseMove(&d, QPoint(1, d.height() - 1));
    QTRY_COMPARE(d.hoveredBlock(), QString());
}

void TestArchitecture::tooltip() {
    const Config c = Config::small();
    ArchitectureDiagram d;
    d.setTrace(makeTrace(c), c);
    d.setStep(QStringLiteral("encoder.layers.1.enc_self_attn.V"));
    d.resize(360, 560);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    const QPoint at = d.blockRect(QStringLiteral("encoder.ffn")).center().toPoint();
    QHelpEvent ev(QEvent::ToolTip, at, d.mapToGlobal(at));
    QApplication::sendEvent(&d, &ev);
    QTRY_VERIFY(QToolTip::isVisible());
    QVERIFY2(QToolTip::text().contains(QStringLiteral("Feed Forward")), qPrintable(QToolTip::text()));
    QVERIFY(QToolTip::text().contains(QStringLiteral("d_ff 64")));
    QVERIFY(QToolTip::text().contains(QStringLiteral("encoder.layers.1.pos_ffn.hidden")));  // where a click goes
    QToolTip::hideText();
}

void TestArchitecture::grabIsNotBlank() {
    const Config c = Config::small();
    ArchitectureDiagram d;
    d.setTrace(makeTrace(c), c);
    d.setStep(QStringLiteral("decoder.layers.1.dec_enc_attn.scores"));
    d.resize(360, 560);
    d.show();
    QVERIFY(QTest::qWaitForWindowExposed(&d));
    const QImage img = d.grab().toImage();
    QVERIFY2(distinctColors(img, 1) > 20, qPrintable(QString::number(distinctColors(img, 1))));
    // The highlight colour is painted around the current block.
    const QRectF r = d.blockRect(QStringLiteral("decoder.cross_mha"));
    const QColor edge = img.pixelColor(QPoint(static_cast<int>(r.center().x()), static_cast<int>(r.top()) ));
    QVERIFY2(edge.red() > 150 && edge.green() < 120, qPrintable(edge.name()));
    testutil::saveShot(d, QStringLiteral("paper_diagram.png"));
}

// Every layout in resources/diagrams/ reads, names only blocks the diagram knows (so a click
// and a highlight can find them), once each, inside its design space, with its arrows there too.
void TestArchitecture::everyLayoutReads() {
    const QStringList files = QDir(QStringLiteral(":/diagrams")).entryList({QStringLiteral("*.json")});
    QVERIFY2(files.size() >= 5, qPrintable(files.join(u',')));
    for (const QString& f : files) {
        const architecture::DiagramLayout& d = architecture::diagramLayout(QFileInfo(f).completeBaseName());
        const QRectF space(0, 0, architecture::kW, d.height);
        QSet<QString> seen;
        for (const architecture::DiagramBlock& b : d.blocks) {
            QVERIFY2(architecture::part(b.id), qPrintable(f + u' ' + b.id));
            QVERIFY2(!seen.contains(b.id), qPrintable(f + QStringLiteral(" repeats ") + b.id));
            seen.insert(b.id);
            QVERIFY2(space.contains(b.logical), qPrintable(f + u' ' + b.id));
            QVERIFY(!b.label.isEmpty());
        }
        for (const architecture::DiagramArrow& a : d.arrows)
            for (const QPointF& p : a.points) QVERIFY2(space.contains(p), qPrintable(f));
        // An attention block and the output projection in every layout; an encoder's inputs text
        // only where there is an encoder (nanoGPT's layout has one stack, the decoder's).
        const bool attention = seen.contains(QStringLiteral("encoder.mha")) || seen.contains(QStringLiteral("decoder.masked_mha"));
        QVERIFY2(attention && seen.contains(QStringLiteral("linear")), qPrintable(f));
        QVERIFY2(d.hasEncoder() == seen.contains(QStringLiteral("encoder.mha")), qPrintable(f));
        QVERIFY(!d.hint.isEmpty() && (!d.hasEncoder() || !d.inputs.isEmpty()) && !d.outputs.isEmpty());
    }
}

void TestArchitecture::malformedLayoutIsNamed() {
    try {
        architecture::diagramLayout(QStringLiteral("no_such_layout"));
        QFAIL("no error");
    } catch (const std::runtime_error& e) {
        QVERIFY2(QString::fromUtf8(e.what()).contains(QStringLiteral(":/diagrams/no_such_layout.json")), e.what());
    }
}

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    TestArchitecture t;
    return QTest::qExec(&t, argc, argv);
}

#include "test_architecture.moc"
