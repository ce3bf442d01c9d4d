// The step navigator and what feeds it: StepModel (tree = trace order, model tester), the
// navigator's actions and keys, the explain panel's shape line and texts, the input bar's live
// validation. (The Session that feeds them: test_session.)
#include <QAbstractItemModelTester>
#include <QAction>
#include <QCompleter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "explain/explain_panel.h"
#include "app/input_bar.h"
#include "app/session.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "stepformer/model.h"
#include "test_util.h"

using stepformer::Trace;

namespace {

QStringList forwardNames(const Trace& t) {
    QStringList out;
    for (const auto& e : t.entries())
        if (e.name.rfind("grad.", 0) != 0) out << QString::fromStdString(e.name);
    return out;
}

// Leaves with a trace name, depth first.
void collectLeaves(const QAbstractItemModel& m, const QModelIndex& parent, QStringList& out) {
    for (int r = 0; r < m.rowCount(parent); ++r) {
        const QModelIndex i = m.index(r, 0, parent);
        const QString name = i.data(StepModel::TraceNameRole).toString();
        if (!name.isEmpty()) out << name;
        collectLeaves(m, i, out);
    }
}

// A small untrained model's trace (no training, no cache).
std::shared_ptr<const Trace> smallTrace(Session& s) {
    s.setProvisioning(Session::Provisioning::Never);
    s.setPreset(Session::Preset::Small);
    return s.trace();
}

}  // namespace

class TestNavigator : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void stepOrderIsTraceOrder();
    void modelPassesTester();
    void labelsAndGroups();
    void actionsStepThrough();
    void keyboardStepsThrough();
    void clickingJumps();
    void playAdvancesAndStopsAtEnd();
    void keepsStepAcrossTraces();
    void explainPanelShowsShape();
    void everyStepKindHasAnExplanation();
    void inputBarFlagsUnknownWords();

private:
    QTemporaryDir cache_;
};

void TestNavigator::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

void TestNavigator::stepOrderIsTraceOrder() {
    Session s;
    auto trace = smallTrace(s);
    QVERIFY(trace);
    StepModel m;
    m.setTrace(trace);
    const QStringList want = forwardNames(*trace);
    QVERIFY(want.size() > 50);
    QCOMPARE(m.stepOrder(), want);
    QStringList leaves;
    collectLeaves(m, {}, leaves);
    QCOMPARE(leaves, want);  // the tree, read top to bottom, is the forward pass in order
    for (int i = 0; i < want.size(); ++i) {
        QCOMPARE(m.stepPosition(want[i]), i);
        const QModelIndex idx = m.indexForStep(want[i]);
        QVERIFY(idx.isValid());
        QCOMPARE(idx.data(StepModel::TraceNameRole).toString(), want[i]);
        QCOMPARE(m.stepForIndex(idx), want[i]);
    }
    QVERIFY(!m.indexForStep(QStringLiteral("no.such.step")).isValid());
}

void TestNavigator::modelPassesTester() {
    Session s;
    auto trace = smallTrace(s);
    StepModel m;
    QAbstractItemModelTester tester(&m, QAbstractItemModelTester::FailureReportingMode::QtTest);
    m.setTrace(trace);
    // Same steps, new values (another sentence): no reset, still valid.
    QVERIFY(s.setSentences(QStringLiteral("ich mochte ein cola P"), QStringLiteral("S i want a coke .")));
    m.setTrace(s.trace());
    // A different architecture: a reset.
    s.setPreset(Session::Preset::Untrained);
    m.setTrace(s.trace());
    QVERIFY(m.stepCount() > forwardNames(*trace).size());
    m.setTrace(nullptr);
    QCOMPARE(m.rowCount(), 0);
}

void TestNavigator::labelsAndGroups() {
    Session s;
    StepModel m;
    m.setTrace(smallTrace(s));
    const QModelIndex scores = m.indexForStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    QCOMPARE(scores.data().toString(), QStringLiteral("scores = QKᵀ/√d_k"));
    QCOMPARE(scores.data(StepModel::OpKindRole).toString(), QStringLiteral("scores"));
    QCOMPARE(scores.data(StepModel::ShapeRole).toString(),
             QStringLiteral("[batch_size=1, n_heads=4, len_q=5, len_k=5]"));
    QCOMPARE(scores.parent().data().toString(), QStringLiteral("Self-attention"));
    QCOMPARE(scores.parent().parent().data().toString(), QStringLiteral("Encoder layer 0"));
    QCOMPARE(scores.parent().parent().parent().data().toString(), QStringLiteral("Encoder"));
    QCOMPARE(m.indexForStep(QStringLiteral("encoder.layers.0.enc_self_attn.Q")).data().toString(),
             QStringLiteral("Q (queries)"));
    QCOMPARE(m.indexForStep(QStringLiteral("encoder.layers.1.enc_self_attn.masked_scores")).data().toString(),
             QStringLiteral("masked scores"));
    QCOMPARE(m.indexForStep(QStringLiteral("decoder.layers.0.dec_enc_attn.attn")).data().toString(),
             QStringLiteral("softmax (attention)"));
    QCOMPARE(m.indexForStep(QStringLiteral("decoder.layers.0.dec_enc_attn.attn")).parent().data().toString(),
             QStringLiteral("Encoder-decoder attention"));
    QVERIFY(m.indexForStep(QStringLiteral("encoder.layers.0.pos_ffn.out")).data().toString().contains(
        QStringLiteral("Add & Norm")));
    // Top level: Inputs, Encoder, Decoder, Projection, Loss.
    QStringList top;
    for (int r = 0; r < m.rowCount(); ++r) top << m.index(r, 0).data().toString();
    QCOMPARE(top, (QStringList{"Inputs", "Encoder", "Decoder", "Projection", "Loss"}));
    const QModelIndex inputs = m.index(0, 0);
    QCOMPARE(m.rowCount(inputs), 2);
    QVERIFY(m.index(0, 0, inputs).data().toString().contains(QStringLiteral("ich mochte ein bier P")));
    QCOMPARE(m.stepForIndex(m.index(1, 0, inputs)), QStringLiteral("decoder.tgt_emb.out"));
    QVERIFY(!m.index(1, 0, inputs).data(StepModel::IsStepRole).toBool());
    // A group jumps to its first step.
    QCOMPARE(m.stepForIndex(m.index(1, 0)), QStringLiteral("encoder.src_emb.out"));
}

void TestNavigator::actionsStepThrough() {
    Session s;
    StepNavigator nav;
    nav.setTrace(smallTrace(s));
    const QStringList order = nav.model()->stepOrder();
    QCOMPARE(nav.currentStep(), order.first());
    QSignalSpy spy(&nav, &StepNavigator::stepChanged);
    QVERIFY(!nav.previousAction()->isEnabled());
    nav.nextAction()->trigger();
    QCOMPARE(nav.currentStep(), order[1]);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.takeFirst().at(0).toString(), order[1]);
    nav.lastAction()->trigger();
    QCOMPARE(nav.currentStep(), order.last());
    QVERIFY(!nav.nextAction()->isEnabled());
    nav.nextAction()->trigger();  // disabled: nothing happens
    QCOMPARE(nav.currentStep(), order.last());
    nav.previousAction()->trigger();
    QCOMPARE(nav.currentStep(), order[order.size() - 2]);
    nav.firstAction()->trigger();
    QCOMPARE(nav.currentStep(), order.first());
    QCOMPARE(spy.count(), 3);
    // The tree follows.
    QCOMPARE(nav.treeView()->currentIndex().data(StepModel::TraceNameRole).toString(), order.first());
    QVERIFY(!nav.setCurrentStep(QStringLiteral("bogus")));
    QCOMPARE(nav.currentStep(), order.first());
    // Shortcuts and tooltips are there.
    QCOMPARE(nav.nextAction()->shortcut(), QKeySequence(Qt::Key_Right));
    QCOMPARE(nav.previousAction()->shortcut(), QKeySequence(Qt::Key_Left));
    QCOMPARE(nav.playAction()->shortcut(), QKeySequence(Qt::Key_Space));
    QCOMPARE(nav.firstAction()->shortcut(), QKeySequence(Qt::Key_Home));
    QCOMPARE(nav.lastAction()->shortcut(), QKeySequence(Qt::Key_End));
    for (QAction* a : nav.navigationActions()) {
        QVERIFY(!a->toolTip().isEmpty());
        QVERIFY(!a->objectName().isEmpty());
    }
}

void TestNavigator::keyboardStepsThrough() {
    Session s;
    StepNavigator nav;
    nav.setTrace(smallTrace(s));
    nav.resize(400, 600);
    nav.show();
    nav.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&nav));
    nav.treeView()->setFocus();
    const QStringList order = nav.model()->stepOrder();
    QTest::keyClick(nav.treeView(), Qt::Key_Right);
    QCOMPARE(nav.currentStep(), order[1]);
    QTest::keyClick(nav.treeView(), Qt::Key_Right);
    QCOMPARE(nav.currentStep(), order[2]);
    QTest::keyClick(nav.treeView(), Qt::Key_Left);
    QCOMPARE(nav.currentStep(), order[1]);
    QTest::keyClick(nav.treeView(), Qt::Key_End);
    QCOMPARE(nav.currentStep(), order.last());
    QTest::keyClick(nav.treeView(), Qt::Key_Home);
    QCOMPARE(nav.currentStep(), order.first());
    QTest::keyClick(nav.treeView(), Qt::Key_Space);
    QVERIFY(nav.isPlaying());
    QTest::keyClick(nav.treeView(), Qt::Key_Space);
    QVERIFY(!nav.isPlaying());
}

void TestNavigator::clickingJumps() {
    Session s;
    StepNavigator nav;
    nav.setTrace(smallTrace(s));
    nav.resize(400, 900);
    nav.show();
    QVERIFY(QTest::qWaitForWindowExposed(&nav));
    QSignalSpy spy(&nav, &StepNavigator::stepChanged);
    const QString target = QStringLiteral("encoder.self_attn_mask");
    const QModelIndex idx = nav.model()->indexForStep(target);
    nav.treeView()->scrollTo(idx);
    const QRect r = nav.treeView()->visualRect(idx);
    QVERIFY(r.isValid());
    QTest::mouseClick(nav.treeView()->viewport(), Qt::LeftButton, {}, r.center());
    QCOMPARE(nav.currentStep(), target);
    QCOMPARE(spy.count(), 1);
    // A group: its first step.
    const QModelIndex decoder = nav.model()->index(2, 0);
    QCOMPARE(decoder.data().toString(), QStringLiteral("Decoder"));
    nav.treeView()->scrollTo(decoder);
    QTest::mouseClick(nav.treeView()->viewport(), Qt::LeftButton, {}, nav.treeView()->visualRect(decoder).center());
    QCOMPARE(nav.currentStep(), QStringLiteral("decoder.tgt_emb.out"));
}

void TestNavigator::playAdvancesAndStopsAtEnd() {
    Session s;
    StepNavigator nav;
    nav.setTrace(smallTrace(s));
    nav.setPlaySpeed(10.0);
    QCOMPARE(nav.playSpeed(), 10.0);
    const QStringList order = nav.model()->stepOrder();
    nav.setCurrentStep(order[order.size() - 3]);
    QSignalSpy stepped(&nav, &StepNavigator::stepChanged);
    QSignalSpy playing(&nav, &StepNavigator::playingChanged);
    nav.playAction()->trigger();
    QVERIFY(nav.isPlaying());
    QVERIFY(stepped.wait(2000));
    QCOMPARE(nav.currentStep(), order[order.size() - 2]);
    QTRY_VERIFY_WITH_TIMEOUT(!nav.isPlaying(), 3000);
    QCOMPARE(nav.currentStep(), order.last());
    QCOMPARE(playing.count(), 2);
    QVERIFY(!nav.playAction()->isChecked());
}

void TestNavigator::keepsStepAcrossTraces() {
    Session s;
    StepNavigator nav;
    nav.setTrace(smallTrace(s));
    const QString step = QStringLiteral("decoder.layers.1.dec_self_attn.attn");
    QVERIFY(nav.setCurrentStep(step));
    QSignalSpy spy(&nav, &StepNavigator::stepChanged);
    QVERIFY(s.setSentences(QStringLiteral("ich mochte ein cola P"), QStringLiteral("S i want a coke .")));
    nav.setTrace(s.trace());
    QCOMPARE(nav.currentStep(), step);
    QCOMPARE(spy.count(), 1);  // the same step, new values: the views refresh
}

void TestNavigator::explainPanelShowsShape() {
    Session s;
    auto trace = smallTrace(s);
    ExplainPanel panel;
    panel.setTrace(trace, s.config());
    panel.setStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores"));
    QCOMPARE(panel.shapeLine(), QStringLiteral("[batch_size=1, n_heads=4, len_q=5, len_k=5]"));
    const QString text = panel.plainText();
    QVERIFY2(text.contains(QStringLiteral("[batch_size=1, n_heads=4, len_q=5, len_k=5]")), qPrintable(text));
    QVERIFY(text.contains(QStringLiteral("np.sqrt(d_k)")));        // the tutorial's line
    QVERIFY(text.contains(QStringLiteral("√8")));                   // placeholder filled from the config
    panel.setStep(QStringLiteral("decoder.self_attn_mask"));
    QCOMPARE(panel.shapeLine(), QStringLiteral("[batch_size=1, len_q=6, len_k=6]"));
    QVERIFY(panel.plainText().contains(QStringLiteral("masked")));
    panel.setStep(QStringLiteral("projection.probs"));
    QVERIFY(panel.plainText().contains(QStringLiteral("Predicted tokens")));
    panel.setStep(QStringLiteral("loss"));
    QCOMPARE(panel.shapeLine(), QStringLiteral("[]"));
    panel.setStep(QStringLiteral("not.a.step"));
    QVERIFY(panel.shapeLine().isEmpty());
}

void TestNavigator::everyStepKindHasAnExplanation() {
    const auto cfg = stepformer::Config::tutorial();
    for (int k = 0; k <= static_cast<int>(stepformer::Role::Gradient); ++k) {
        const QString name = QString::fromLatin1(stepformer::role_name(static_cast<stepformer::Role>(k)));
        const QString text = ExplainPanel::explanationFor(name, cfg);
        QVERIFY2(!text.isEmpty(), qPrintable(QStringLiteral("no :/explain/%1.md").arg(name)));
        QVERIFY2(text.contains(QStringLiteral("**Formula:**")), qPrintable(name));
        QVERIFY2(text.contains(QStringLiteral("```python")), qPrintable(name));
        QVERIFY2(!text.contains(QRegularExpression(QStringLiteral("\\{[a-z_]+\\}"))), qPrintable(name));
    }
}

void TestNavigator::inputBarFlagsUnknownWords() {
    InputBar bar;
    Session s;
    bar.setVocabularies(s.sourceVocabulary(), s.targetVocabulary(), 5, 6);
    bar.setSentences(Session::defaultSource(), Session::defaultTarget());
    QVERIFY(!bar.hasError());
    bar.setDebounceInterval(30);
    bar.show();
    QSignalSpy edited(&bar, &InputBar::sentencesEdited);
    bar.sourceEdit()->setFocus();
    bar.sourceEdit()->selectAll();
    QTest::keyClicks(bar.sourceEdit(), QStringLiteral("ich mochte ein bierr"));
    QCOMPARE(bar.sourceEdit()->unknownWords(), QStringList{QStringLiteral("bierr")});
    QVERIFY(bar.hasError());
    QVERIFY2(bar.statusText().contains(QStringLiteral("bierr")), qPrintable(bar.statusText()));
    QVERIFY(edited.wait(2000));
    QCOMPARE(edited.last().at(0).toString(), QStringLiteral("ich mochte ein bierr"));
    // Fixing the word: no local problem left, waiting for the model's answer.
    QTest::keyClick(bar.sourceEdit(), Qt::Key_Backspace);
    QVERIFY(bar.sourceEdit()->unknownWords().isEmpty());
    bar.showAccepted(QStringLiteral("fine"));
    QVERIFY(!bar.hasError());
    // The model's own error (e.g. too long) is shown until it accepts again.
    bar.showError(QStringLiteral("the source sentence has 6 tokens"));
    QVERIFY(bar.hasError());
    QVERIFY(bar.statusText().contains(QStringLiteral("6 tokens")));
    // The completer offers the vocabulary.
    QCOMPARE(bar.sourceEdit()->wordCompleter()->model()->rowCount(), 6);
}

QTEST_MAIN(TestNavigator)
#include "test_navigator.moc"
