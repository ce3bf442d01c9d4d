// The Session behind the views: recomputing the trace for new sentences (rejected input keeps the
// last good trace), a training run's pass taken as is, typed sentences computed on a worker (the
// latest request wins; a model switch meanwhile), training in the background with its cache, and
// opening a state_dict.
#include <QFileInfo>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include "app/session.h"
#include "stepformer/model.h"
#include "test_util.h"

class TestSession : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void recomputesAndRejects();
    void takesAPrecomputedPassOfItsSentences();
    void computesTypedSentencesOnAWorker();
    void trainsInBackgroundAndCaches();
    void opensTutorialStateDict();

private:
    QTemporaryDir cache_;
};

void TestSession::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

void TestSession::recomputesAndRejects() {
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
void TestSession::takesAPrecomputedPassOfItsSentences() {
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
void TestSession::computesTypedSentencesOnAWorker() {
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

void TestSession::trainsInBackgroundAndCaches() {
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

void TestSession::opensTutorialStateDict() {
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

QTEST_MAIN(TestSession)
#include "test_session.moc"
