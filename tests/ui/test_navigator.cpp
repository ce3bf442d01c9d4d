// The step navigator and what feeds it: StepModel (tree = trace order, model tester), the
// navigator's actions and keys, the explain panel's shape line and texts, the input bar's live
// validation, and the Session (trace recomputation, rejected input, training + cache).
#include <QAbstractItemModelTester>
#include <QAction>
#include <QCompleter>
#include <QFileInfo>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
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
    void sessionRecomputesAndRejects();
    void sessionTakesAPrecomputedPassOfItsSentences();
    void sessionComputesTypedSentencesOnAWorker();
    void sessionTrainsInBackgroundAndCaches();
    void sessionOpensTutorialStateDict();

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

void TestNavigator::sessionRecomputesAndRejects() {
    Session s;
    s.setProvisioning(Session::Provisioning::Never);
    QSignalSpy changed(&s, &Session::traceChanged);
    QSignalSpy rejected(&s, &Session::inputRejected);
    s.setPreset(Session::Preset::Small);
    QVERIFY(changed.count() >= 1);
    auto good = s.trace();
    QVERIFY(good && good->contains("loss"));  // the expected output was derived from the target
    QCOMPARE(s.expectedOutput(), QStringLiteral("i want a beer . E"));
    changed.clear();

    QVERIFY(!s.setSentences(QStringLiteral("ich mochte ein bierr P"), QStringLiteral("S i want a beer .")));
    QCOMPARE(rejected.count(), 1);
    QVERIFY(rejected.first().at(0).toString().contains(QStringLiteral("bierr")));
    QCOMPARE(changed.count(), 0);
    QCOMPARE(s.trace(), good);  // the last good trace is kept
    QCOMPARE(s.source(), QStringLiteral("ich mochte ein bier P"));

    QVERIFY(!s.setSentences(QStringLiteral("ich mochte ein bier P P"), QStringLiteral("S i want a beer .")));
    QVERIFY(rejected.last().at(0).toString().contains(QStringLiteral("long")) ||
            rejected.last().at(0).toString().contains(QStringLiteral("5")));
    QVERIFY(!s.setSentences(QString(), QStringLiteral("S i")));
    QCOMPARE(s.trace(), good);

    QVERIFY(s.setSentences(QStringLiteral("ich mochte ein cola"), QStringLiteral("S i want a coke")));
    QCOMPARE(changed.count(), 1);
    QVERIFY(s.trace() != good);
    QCOMPARE(s.trace()->src_tokens.at(0).back(), std::string("P"));  // padded
    // No bos: no loss, still a trace.
    QVERIFY(s.setSentences(QStringLiteral("ich"), QStringLiteral("i want")));
    QVERIFY(!s.trace()->contains("loss"));
    QVERIFY(s.expectedOutput().isEmpty());
    QVERIFY(s.validateSentence(QStringLiteral("ich xyz"), true).contains(QStringLiteral("xyz")));
    QVERIFY(s.validateSentence(QStringLiteral("S i"), false).isEmpty());
}

// Trained weights arrive with their pass of the shown sentences, computed on the training worker:
// the Session shows that one (no second forward and backward pass on the GUI thread); a pass of
// other sentences is not shown, the shown ones are computed.
void TestNavigator::sessionTakesAPrecomputedPassOfItsSentences() {
    const testutil::TrainedSmall& t = testutil::trainedSmall();
    auto params = std::shared_ptr<const stepformer::ParamSet>(t.model, &t.model->params());
    Session s;
    s.setProvisioning(Session::Provisioning::Never);
    s.setPreset(Session::Preset::Small);
    auto mine = std::make_shared<const SentencePass>(Session::computePass(*t.model, t.config, s.source(), s.target()));
    QVERIFY(mine->trace && mine->trace->contains("loss") && mine->grads);
    QVERIFY(s.installTrainedModel(t.config, params, mine));
    QCOMPARE(s.modelState(), Session::ModelState::TrainedInApp);
    QCOMPARE(s.trace().get(), mine->trace.get());  // shown as is
    QCOMPARE(s.gradients().get(), mine->grads.get());
    QCOMPARE(s.expectedOutput(), mine->expected);

    auto other = std::make_shared<const SentencePass>(
        Session::computePass(*t.model, t.config, QStringLiteral("ich mochte ein cola"), QStringLiteral("S i want a coke")));
    QVERIFY(s.installTrainedModel(t.config, params, other));
    QVERIFY(s.trace().get() != other->trace.get());
    QCOMPARE(s.source(), QStringLiteral("ich mochte ein bier P"));
    // What it computed itself is what the pass had: the same weights, the same sentences.
    QCOMPARE(s.trace()->at("projection.logits").value.data, mine->trace->at("projection.logits").value.data);
}

// The input bar's sentences (requestSentences) under Background provisioning: checked at once,
// their pass computed on a worker and shown when it arrives; only the latest request is shown.
void TestNavigator::sessionComputesTypedSentencesOnAWorker() {
    Session s;
    s.setProvisioning(Session::Provisioning::Never);  // the untrained Small model, no training
    s.setPreset(Session::Preset::Small);
    s.setProvisioning(Session::Provisioning::Background);
    QSignalSpy accepted(&s, &Session::inputAccepted), rejected(&s, &Session::inputRejected),
        changed(&s, &Session::traceChanged);
    const auto before = s.trace();
    const QString cola = QStringLiteral("ich mochte ein cola P"), coke = QStringLiteral("S i want a coke .");

    s.requestSentences(cola, coke);
    // Not computed here: the views keep the old trace until the worker's pass arrives.
    QCOMPARE(s.trace().get(), before.get());
    QCOMPARE(s.source(), Session::defaultSource());
    QVERIFY(s.sentencesPending());
    QVERIFY(changed.wait(20000));
    QVERIFY(!s.sentencesPending());
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(s.source(), cola);
    QCOMPARE(s.target(), coke);
    QVERIFY(s.trace().get() != before.get());
    QVERIFY(s.gradients());
    const auto here = Session::computePass(*s.model(), s.config(), cola, coke);  // the same numbers
    QCOMPARE(s.trace()->at("loss").value.data, here.trace->at("loss").value.data);
    QCOMPARE(s.trace()->at("projection.logits").value.data, here.trace->at("projection.logits").value.data);

    // Two requests before the first is shown: one pass at a time, only the second shown.
    accepted.clear();
    s.requestSentences(Session::defaultSource(), coke);
    s.requestSentences(Session::defaultSource(), Session::defaultTarget());
    QTRY_VERIFY_WITH_TIMEOUT(!s.sentencesPending(), 20000);
    QCOMPARE(accepted.count(), 1);
    QCOMPARE(s.target(), Session::defaultTarget());

    // A good request, then a bad one: rejected at once, and the good one's pass is not shown
    // after the rejection (it is of older text).
    accepted.clear();
    s.requestSentences(cola, coke);
    s.requestSentences(QStringLiteral("ich mochte ein wasser P"), coke);
    QCOMPARE(rejected.count(), 1);
    QVERIFY(rejected.first().first().toString().contains(QStringLiteral("wasser")));
    QTRY_VERIFY_WITH_TIMEOUT(!s.sentencesPending(), 20000);
    QTest::qWait(50);
    QCOMPARE(accepted.count(), 0);
    QCOMPARE(s.source(), Session::defaultSource());

    // The model changes while a pass computes: the switch computes the sentences asked for last,
    // on the new model, and the pass of the old one is not shown.
    s.requestSentences(cola, coke);
    const auto small = s.model();
    QSignalSpy modelChanged(&s, &Session::modelChanged);
    s.setPreset(Session::Preset::Untrained);  // the tutorial's size, the same vocabulary
    QCOMPARE(s.model().get(), small.get());   // the switch's pass computes on a worker too
    QVERIFY(modelChanged.wait(60000));
    QVERIFY(s.model().get() != small.get());
    QCOMPARE(s.modelState(), Session::ModelState::Untrained);
    QCOMPARE(s.source(), cola);
    QTRY_VERIFY_WITH_TIMEOUT(!s.sentencesPending(), 20000);
    QTest::qWait(50);
    QCOMPARE(s.source(), cola);
    const auto onNew = Session::computePass(*s.model(), s.config(), cola, coke);
    QCOMPARE(s.trace()->at("projection.logits").value.data, onNew.trace->at("projection.logits").value.data);

    // Two switches before the first is made: only the second is made.
    modelChanged.clear();
    s.setPreset(Session::Preset::Small);
    s.setPreset(Session::Preset::Untrained);
    QVERIFY(modelChanged.wait(60000));
    QTest::qWait(200);
    QCOMPARE(modelChanged.count(), 1);
    QCOMPARE(s.preset(), Session::Preset::Untrained);
    QCOMPARE(s.config().d_model, Session::presetConfig(Session::Preset::Untrained).d_model);
    QCOMPARE(s.source(), cola);
}

void TestNavigator::sessionTrainsInBackgroundAndCaches() {
    QTemporaryDir dir;
    Session s;
    s.setCacheDir(dir.path());
    QCOMPARE(s.cachedModelPath(Session::Preset::Small), dir.filePath(QStringLiteral("small.safetensors")));
    QSignalSpy started(&s, &Session::trainingStarted);
    QSignalSpy progress(&s, &Session::trainingProgress);
    QSignalSpy finished(&s, &Session::trainingFinished);
    QSignalSpy changed(&s, &Session::traceChanged);
    s.setPreset(Session::Preset::Small);
    QCOMPARE(started.count(), 1);
    QVERIFY(s.isTraining());
    QCOMPARE(s.modelState(), Session::ModelState::Training);
    QVERIFY(s.trace());  // the untrained model's trace meanwhile
    auto untrained = s.trace();
    QVERIFY(finished.wait(120000));
    QVERIFY(!s.isTraining());
    QCOMPARE(s.modelState(), Session::ModelState::Trained);
    QVERIFY(progress.count() > 10);
    const auto last = progress.last();
    QCOMPARE(last.at(0).toInt(), last.at(1).toInt());  // step == total at the end
    QVERIFY(last.at(2).toDouble() < 0.5);
    QVERIFY(s.trace() != untrained);
    QVERIFY(QFileInfo::exists(s.cachedModelPath(Session::Preset::Small)));
    QCOMPARE(s.translate(QStringLiteral("ich mochte ein bier P")), QStringLiteral("i want a beer ."));
    QCOMPARE(s.translate(QStringLiteral("ich mochte ein cola P")), QStringLiteral("i want a coke ."));

    // A second session finds the cached model: no training.
    Session again;
    again.setCacheDir(dir.path());
    QSignalSpy started2(&again, &Session::trainingStarted);
    again.setPreset(Session::Preset::Small);
    QCOMPARE(started2.count(), 0);
    QCOMPARE(again.modelState(), Session::ModelState::Trained);
    QCOMPARE(again.translate(QStringLiteral("ich mochte ein cola P")), QStringLiteral("i want a coke ."));

    // Switching away while training stops the worker cleanly.
    QTemporaryDir dir2;
    Session third;
    third.setCacheDir(dir2.path());
    third.setPreset(Session::Preset::Small);
    QVERIFY(third.isTraining());
    third.setProvisioning(Session::Provisioning::Never);
    third.setPreset(Session::Preset::Untrained);
    QVERIFY(!third.isTraining());
    QCOMPARE(third.modelState(), Session::ModelState::Untrained);
}

void TestNavigator::sessionOpensTutorialStateDict() {
    Session s;
    s.setProvisioning(Session::Provisioning::Never);
    s.setPreset(Session::Preset::Small);
    QSignalSpy errors(&s, &Session::errorOccurred);
    QSignalSpy changed(&s, &Session::traceChanged);
    // A state_dict saved from the tutorial's code; its config sits beside it.
    QVERIFY(s.openWeights(QStringLiteral(STEPFORMER_FIXTURES_DIR "/tutorial_state_dict.weights.safetensors")));
    QCOMPARE(errors.count(), 0);
    QCOMPARE(s.modelState(), Session::ModelState::FromFile);
    QCOMPARE(s.config().d_model, 8);
    QVERIFY(changed.count() >= 1);
    QVERIFY(s.trace()->contains("decoder.layers.0.dec_enc_attn.attn"));
    QVERIFY(!s.trace()->contains("decoder.layers.1.dec_enc_attn.attn"));

    const auto before = s.trace();
    QVERIFY(!s.openWeights(QStringLiteral("/nonexistent/weights.safetensors")));
    QCOMPARE(errors.count(), 1);
    QVERIFY(errors.last().at(0).toString().contains(QStringLiteral("does not exist")));
    // A file that is not safetensors: a clear error, the model stays.
    QVERIFY(!s.openWeights(QStringLiteral(STEPFORMER_FIXTURES_DIR "/small.config.json")));
    QCOMPARE(errors.count(), 2);
    QCOMPARE(s.trace(), before);
    QCOMPARE(s.config().d_model, 8);
}

QTEST_MAIN(TestNavigator)
#include "test_navigator.moc"
