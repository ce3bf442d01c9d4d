// The main window as a whole: it opens on the tutorial's example, stepping (actions and keys)
// moves every view and the explain panel, each view renders something, a bad sentence keeps the
// last good trace, exports write files, and the window remembers its sentences and view.
// Uses the Small preset (trained synchronously into a temporary cache) or the untrained one.
#include <QAction>
#include <QApplication>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QDir>
#include <QProgressBar>
#include <QSet>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QTreeView>

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QCompleter>
#include <QComboBox>
#include <QIcon>
#include <QMenu>
#include <QStandardItemModel>
#include <QStyle>
#include <QToolBar>
#include <QMessageBox>
#include <QTimer>

#include "steps/backward_steps.h"
#include "views/decode_view.h"
#include "explain/explain_panel.h"
#include "views/gradient_view.h"
#include "views/loss_view.h"
#include "training/training_panel.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"

#include <nlohmann/json.hpp>
#include "app/input_bar.h"
#include "app/main_window.h"
#include "app/session.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "architecture/architecture_diagram.h"
#include "views/attention_view.h"
#include "views/mask_view.h"
#include "views/pe_view.h"
#include "views/tensor_view.h"
#include "test_util.h"

using testutil::distinctColors;

namespace {

}  // namespace

class TestMainWindow : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void opensOnTheTutorialExample();
    void actionsAndKeysStepTheViews();
    void followStepPicksTheView();
    void viewsRenderSomething();
    void badSentenceKeepsLastGoodTrace();
    void vocabularyButtonListsEveryWord();
    void exportsWriteFiles();
    void remembersSentencesAndView();
    void architectureClickJumps();
    void openingWeightsRebuildsTheNavigator();
    void trainsInTheBackgroundWithVisibleProgress();
    void newViewsAreWired();
    void lossViewShowsTheTraceLoss();
    void backwardStepsGoToTheGradientsView();
    void directionToggleSwitchesTheNavigator();
    void installTrainedModelChangesTheTrace();
    void explanationFollowsWhatTheViewShows();
    void modelBoxMenuAndTitleAgree();
    void directionToggleSaysWhereItGoes();
    void exportImageIsNotTheFloppy();
    void trainingDockIsReachable();
    void closingWithUnsavedWeightsAsks();

private:
    MainWindow::Options smallOptions() const;
    QTemporaryDir cache_;
};

void TestMainWindow::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

void TestMainWindow::init() { QSettings().clear(); }

MainWindow::Options TestMainWindow::smallOptions() const {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Small;
    o.provisioning = Session::Provisioning::Synchronous;  // small trains in a moment, then is cached
    o.cacheDir = cache_.path();
    return o;
}

void TestMainWindow::opensOnTheTutorialExample() {
    MainWindow w(smallOptions());
    QCOMPARE(w.session()->source(), QStringLiteral("ich mochte ein bier P"));
    QCOMPARE(w.session()->target(), QStringLiteral("S i want a beer ."));
    QCOMPARE(w.inputBar()->source(), QStringLiteral("ich mochte ein bier P"));
    QCOMPARE(w.session()->modelState(), Session::ModelState::Trained);
    QVERIFY(QFileInfo::exists(w.session()->cachedModelPath(Session::Preset::Small)));
    QVERIFY(w.session()->trace());
    QCOMPARE(w.navigator()->stepCount(), w.navigator()->model()->stepOrder().size());
    QCOMPARE(w.currentStep(), w.navigator()->model()->stepOrder().first());
    // The controls tests and users rely on are there.
    for (const char* name : {"navigatorDock", "explainDock", "architectureDock", "inputDock"})
        QVERIFY2(w.findChild<QDockWidget*>(QLatin1String(name)), name);
    for (const char* name : {"actionOpenWeights", "actionExportCsv", "actionExportNpy", "actionExportPng",
                             "actionExportSvg", "actionQuit", "actionNextStep", "actionView_masks"})
        QVERIFY2(w.findChild<QAction*>(QLatin1String(name)), name);
    QCOMPARE(w.findChild<QAction*>(QStringLiteral("actionOpenWeights"))->shortcut(), QKeySequence::keyBindings(QKeySequence::Open).value(0));
    QCOMPARE(w.findChild<QAction*>(QStringLiteral("actionView_pe"))->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_4));
    QVERIFY(w.findChild<TensorView*>(QStringLiteral("tensorView")));
    QVERIFY(w.findChild<AttentionView*>(QStringLiteral("attentionView")));
    QVERIFY(w.findChild<MaskView*>(QStringLiteral("maskView")));
    QVERIFY(w.findChild<PositionalEncodingView*>());
}

void TestMainWindow::actionsAndKeysStepTheViews() {
    MainWindow w(smallOptions());
    w.setFollowStep(false);
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    const QStringList order = w.navigator()->model()->stepOrder();
    QSignalSpy spy(w.navigator(), &StepNavigator::stepChanged);

    w.findChild<QAction*>(QStringLiteral("actionNextStep"))->trigger();
    QCOMPARE(w.currentStep(), order[1]);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(w.explainPanel()->currentStep(), order[1]);
    QCOMPARE(w.findChild<TensorView*>(QStringLiteral("tensorView"))->currentTensorName(), order[1]);
    QCOMPARE(w.architectureDiagram()->currentStep(), order[1]);

    // Keys, with the focus where the window starts it (the step tree).
    QWidget* focus = QApplication::focusWidget();
    QVERIFY(focus);
    QTest::keyClick(focus, Qt::Key_Right);
    QCOMPARE(w.currentStep(), order[2]);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_End);
    QCOMPARE(w.currentStep(), order.last());
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Left);
    QCOMPARE(w.currentStep(), order[order.size() - 2]);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Home);
    QCOMPARE(w.currentStep(), order.first());

    // In a sentence field the arrows move the cursor instead.
    w.inputBar()->sourceEdit()->setFocus();
    w.inputBar()->sourceEdit()->setCursorPosition(0);
    QTest::keyClick(w.inputBar()->sourceEdit(), Qt::Key_Right);
    QCOMPARE(w.currentStep(), order.first());
    QCOMPARE(w.inputBar()->sourceEdit()->cursorPosition(), 1);

    // The explain panel shows the shape line of the step.
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.layers.1.enc_self_attn.attn")));
    QCOMPARE(w.explainPanel()->shapeLine(), QStringLiteral("[batch_size=1, n_heads=4, len_q=5, len_k=5]"));
    QVERIFY(w.explainPanel()->plainText().contains(QStringLiteral("n_heads=4")));
    // Hidden views catch up with the step when they are shown (only the visible one repaints).
    QVERIFY(w.setCurrentView(QStringLiteral("attention")));
    QCOMPARE(w.findChild<AttentionView*>(QStringLiteral("attentionView"))->currentTensorName(),
             QStringLiteral("encoder.layers.1.enc_self_attn.attn"));
    QVERIFY(w.setCurrentView(QStringLiteral("masks")));
    QCOMPARE(w.findChild<MaskView*>(QStringLiteral("maskView"))->currentTensorName().isEmpty(), false);
}

void TestMainWindow::followStepPicksTheView() {
    MainWindow w(smallOptions());
    QSignalSpy spy(&w, &MainWindow::viewChanged);
    w.setFollowStep(true);
    QVERIFY(w.setCurrentStep(QStringLiteral("decoder.self_attn_mask")));
    QCOMPARE(w.currentViewName(), QStringLiteral("masks"));
    QVERIFY(w.setCurrentStep(QStringLiteral("decoder.layers.0.dec_enc_attn.attn")));
    QCOMPARE(w.currentViewName(), QStringLiteral("attention"));
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.pos_emb.pe")));
    QCOMPARE(w.currentViewName(), QStringLiteral("pe"));
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.layers.0.pos_ffn.hidden")));
    QCOMPARE(w.currentViewName(), QStringLiteral("tensor"));
    QVERIFY(spy.count() >= 4);
    w.setFollowStep(false);
    QVERIFY(w.setCurrentView(QStringLiteral("attention")));
    QVERIFY(w.setCurrentStep(QStringLiteral("decoder.self_attn_mask")));
    QCOMPARE(w.currentViewName(), QStringLiteral("attention"));
    QVERIFY(!w.setCurrentView(QStringLiteral("nonsense")));
    // Ctrl+1..4
    w.show();
    w.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    QTest::keyClick(&w, Qt::Key_3, Qt::ControlModifier);
    QCOMPARE(w.currentViewName(), QStringLiteral("masks"));
    QTest::keyClick(&w, Qt::Key_1, Qt::ControlModifier);
    QCOMPARE(w.currentViewName(), QStringLiteral("tensor"));
}

void TestMainWindow::viewsRenderSomething() {
    MainWindow w(smallOptions());
    w.resize(1400, 900);
    w.setFollowStep(false);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    const QList<QPair<QString, QString>> cases{
        {QStringLiteral("tensor"), QStringLiteral("encoder.layers.0.enc_self_attn.scores")},
        {QStringLiteral("attention"), QStringLiteral("encoder.layers.0.enc_self_attn.attn")},
        {QStringLiteral("masks"), QStringLiteral("decoder.self_attn_mask")},
        {QStringLiteral("pe"), QStringLiteral("encoder.pos_emb.pe")},
    };
    for (const auto& [view, step] : cases) {
        QVERIFY(w.setCurrentView(view));
        QVERIFY(w.setCurrentStep(step));
        QTest::qWait(30);
        const QImage img = w.currentViewWidget()->grab().toImage();
        QVERIFY(!img.isNull());
        const int n = distinctColors(img);
        QVERIFY2(n > 24, qPrintable(QStringLiteral("%1 view: only %2 colours").arg(view).arg(n)));
    }
    const QImage all = w.grab().toImage();
    QVERIFY(distinctColors(all) > 100);
}

void TestMainWindow::badSentenceKeepsLastGoodTrace() {
    MainWindow w(smallOptions());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto good = w.session()->trace();
    QSignalSpy rejected(w.session(), &Session::inputRejected);
    QSignalSpy changed(w.session(), &Session::traceChanged);
    SentenceEdit* src = w.inputBar()->sourceEdit();
    src->setFocus();
    src->selectAll();
    QTest::keyClicks(src, QStringLiteral("ich mochte ein bierr P"));
    QVERIFY(rejected.wait(3000));
    QVERIFY(rejected.last().at(0).toString().contains(QStringLiteral("bierr")));
    QCOMPARE(w.session()->trace(), good);
    QCOMPARE(changed.count(), 0);
    QVERIFY(w.inputBar()->hasError());
    QVERIFY(w.inputBar()->statusText().contains(QStringLiteral("bierr")));
    QCOMPARE(src->unknownWords(), QStringList{QStringLiteral("bierr")});

    // Fixed: the trace recomputes.
    src->selectAll();
    QTest::keyClicks(src, QStringLiteral("ich mochte ein cola P"));
    QVERIFY(changed.wait(3000));
    QVERIFY(w.session()->trace() != good);
    QCOMPARE(w.session()->source(), QStringLiteral("ich mochte ein cola P"));
    QVERIFY(!w.inputBar()->hasError());
    StepModel* m = w.navigator()->model();
    QCOMPARE(m->index(0, 0, m->index(0, 0)).data().toString(),
             QStringLiteral("Source: ich mochte ein cola P"));
}

// The button at the end of a sentence field lists the whole vocabulary (as Alt+/ does), and a
// word picked from it replaces the word under the cursor.
void TestMainWindow::vocabularyButtonListsEveryWord() {
    MainWindow w(smallOptions());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    SentenceEdit* src = w.inputBar()->sourceEdit();
    auto* list = src->findChild<QAction*>(QStringLiteral("vocabularyAction"));
    QVERIFY(list);
    QVERIFY(!list->toolTip().isEmpty());
    src->setCursorPosition(int(src->text().indexOf(QStringLiteral("bier"))) + 2);  // inside "bier"
    list->trigger();
    QAbstractItemView* popup = src->wordCompleter()->popup();
    QTRY_VERIFY(popup->isVisible());
    QCOMPARE(src->wordCompleter()->completionCount(), int(src->vocabulary().size()));
    QVERIFY(src->vocabulary().contains(QStringLiteral("cola")));
    emit src->wordCompleter()->activated(QStringLiteral("cola"));
    QCOMPARE(src->text(), QStringLiteral("ich mochte ein cola P"));
}

void TestMainWindow::exportsWriteFiles() {
    MainWindow w(smallOptions());
    w.resize(1200, 800);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QTemporaryDir out;
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.layers.0.enc_self_attn.scores")));
    QString err;
    QVERIFY2(w.exportCurrentTensor(out.filePath(QStringLiteral("scores.csv")), &err), qPrintable(err));
    QVERIFY2(w.exportCurrentTensor(out.filePath(QStringLiteral("scores.npy")), &err), qPrintable(err));
    QVERIFY2(w.exportCurrentView(out.filePath(QStringLiteral("view.png")), &err), qPrintable(err));
    QVERIFY2(w.exportCurrentView(out.filePath(QStringLiteral("view.svg")), &err), qPrintable(err));
    QFile csv(out.filePath(QStringLiteral("scores.csv")));
    QVERIFY(csv.open(QIODevice::ReadOnly));
    // Labelled, one row per number: the axes' indices, the tokens, the value.
    QCOMPARE(csv.readLine(), QByteArray("# encoder.layers.0.enc_self_attn.scores shape [1, 4, 5, 5]\n"));
    QCOMPARE(csv.readLine(), QByteArray("batch_size,n_heads,len_q,len_k,len_q_token,len_k_token,value\n"));
    const QList<QByteArray> first = csv.readLine().trimmed().split(',');
    QCOMPARE(first.size(), 7);
    QCOMPARE(first.mid(0, 6), (QList<QByteArray>{"0", "0", "0", "0", "ich", "ich"}));
    const auto* scores = w.session()->trace()->find("encoder.layers.0.enc_self_attn.scores");
    QCOMPARE(first[6].toFloat(), scores->value.data[0]);
    int rows = 1;
    while (!csv.readLine().isEmpty()) ++rows;
    QCOMPARE(rows, 1 * 4 * 5 * 5);
    QFile npy(out.filePath(QStringLiteral("scores.npy")));
    QVERIFY(npy.open(QIODevice::ReadOnly));
    QVERIFY(npy.read(6) == QByteArray("\x93NUMPY"));
    QVERIFY(!QImage(out.filePath(QStringLiteral("view.png"))).isNull());
    QVERIFY(QFileInfo(out.filePath(QStringLiteral("view.svg"))).size() > 1000);
    // An unwritable path: a clear error, no crash.
    QVERIFY(!w.exportCurrentTensor(QStringLiteral("/nonexistent-dir/x.csv"), &err));
    QVERIFY(err.contains(QStringLiteral("nonexistent-dir")));
}

void TestMainWindow::remembersSentencesAndView() {
    MainWindow::Options o = smallOptions();
    o.restoreSettings = true;
    o.saveSettings = true;
    {
        MainWindow w(o);  // the Small preset, given explicitly
        QVERIFY(w.session()->setSentences(QStringLiteral("ich mochte ein cola P"), QStringLiteral("S i want a coke .")));
        w.setFollowStep(false);
        w.setCurrentView(QStringLiteral("masks"));
        QVERIFY(w.setCurrentStep(QStringLiteral("decoder.self_attn_mask")));
        w.close();
    }
    o.preset.reset();  // now from the settings
    o.provisioning = Session::Provisioning::Never;  // (it is cached anyway: never the tutorial size here)
    MainWindow again(o);
    QCOMPARE(again.session()->source(), QStringLiteral("ich mochte ein cola P"));
    QCOMPARE(again.inputBar()->target(), QStringLiteral("S i want a coke ."));
    QCOMPARE(again.session()->preset(), Session::Preset::Small);
    QCOMPARE(again.currentViewName(), QStringLiteral("masks"));
    QCOMPARE(again.currentStep(), QStringLiteral("decoder.self_attn_mask"));
    QVERIFY(!again.followsStep());
}

void TestMainWindow::architectureClickJumps() {
    MainWindow w(smallOptions());
    QSignalSpy spy(w.navigator(), &StepNavigator::stepChanged);
    emit w.architectureDiagram()->stepRequested(QStringLiteral("decoder.layers.1.pos_ffn.hidden"));
    QCOMPARE(w.currentStep(), QStringLiteral("decoder.layers.1.pos_ffn.hidden"));
    QCOMPARE(spy.count(), 1);
}

void TestMainWindow::openingWeightsRebuildsTheNavigator() {
    MainWindow w(smallOptions());
    const int before = w.navigator()->stepCount();
    QVERIFY(w.session()->openWeights(QStringLiteral(STEPFORMER_FIXTURES_DIR "/tutorial_state_dict.weights.safetensors")));
    QVERIFY(w.navigator()->stepCount() < before);  // one layer instead of two
    QCOMPARE(w.navigator()->model()->stepOrder().size(), w.navigator()->stepCount());
    QVERIFY(!w.currentStep().isEmpty());
    QVERIFY(w.windowTitle().contains(QStringLiteral("tutorial_state_dict")));
    // A bad file: the error is reported, the model stays.
    QSignalSpy errors(w.session(), &Session::errorOccurred);
    QVERIFY(!w.session()->openWeights(QStringLiteral(STEPFORMER_FIXTURES_DIR "/tiny.inputs.json")));
    QCOMPARE(errors.count(), 1);
    QCOMPARE(w.session()->config().d_model, 8);

    // A checkpoint from before "learn_layer_norm" (trained gamma/beta, a config without the key)
    // opens with its numbers unchanged and a warning saying what to do.
    using namespace stepformer;
    Config learned = Config::small();
    learned.learn_layer_norm = true;
    ParamSet p = init_params(learned, 4);
    p.at("decoder.layers.0.pos_ffn.layer_norm.weight").data[3] = 1.25f;
    nlohmann::json old = nlohmann::json::parse(config_to_json_text(learned));
    old.erase("learn_layer_norm");
    std::vector<TensorToWrite> items;
    for (size_t i = 0; i < p.size(); ++i) items.push_back({p.name(i), &p[i], DType::F32});
    QTemporaryDir dir;
    const QString path = dir.filePath(QStringLiteral("old.safetensors"));
    write_safetensors(path.toStdString(), items, {{"stepformer.config", old.dump()}});
    QSignalSpy warnings(w.session(), &Session::warningRaised);
    QVERIFY(w.session()->openWeights(path));
    QCOMPARE(warnings.count(), 1);
    QVERIFY(warnings.at(0).at(0).toString().contains(QStringLiteral("earlier Stepformer")));
    QVERIFY(w.session()->config().learn_layer_norm);
    QCOMPARE(w.session()->model()->params().at("decoder.layers.0.pos_ffn.layer_norm.weight").data[3], 1.25f);
    bool shown = false;  // the earlier error's box may still be waiting for deletion
    for (auto* box : w.findChildren<QMessageBox*>(QStringLiteral("errorMessageBox")))
        shown = shown || box->text().contains(QStringLiteral("learn_layer_norm"));
    QVERIFY(shown);
}

void TestMainWindow::trainsInTheBackgroundWithVisibleProgress() {
    QTemporaryDir fresh;  // nothing cached: the window opens at once and trains on a worker
    MainWindow::Options o = smallOptions();
    o.cacheDir = fresh.path();
    o.provisioning = Session::Provisioning::Background;
    MainWindow w(o);
    QSignalSpy finished(w.session(), &Session::trainingFinished);
    QSignalSpy progress(w.session(), &Session::trainingProgress);
    w.resize(1600, 900);  // room for the sparkline (a narrower bar leaves it out: test_status_bar)
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.session()->isTraining());
    QVERIFY(w.session()->trace());  // usable at once, with the untrained model
    // (The Train panel has a "trainingProgress" of its own: the status bar's sits in "trainingBox".)
    auto* bar = w.findChild<QWidget*>(QStringLiteral("trainingBox"))->findChild<QProgressBar*>(QStringLiteral("trainingProgress"));
    QVERIFY(bar);
    QVERIFY(bar->isVisible());
    QVERIFY(w.findChild<QWidget*>(QStringLiteral("lossSparkline"))->isVisible());
    // Stepping still works while it trains.
    w.findChild<QAction*>(QStringLiteral("actionNextStep"))->trigger();
    QCOMPARE(w.navigator()->currentPosition(), 1);
    // (A signal that came while an earlier wait ran the event loop counts: wait() only sees new ones.)
    QVERIFY(progress.count() > 0 || progress.wait(60000));
    QVERIFY(bar->value() > 0);
    const QByteArray shots = qgetenv("STEPFORMER_TEST_SCREENSHOT_DIR");
    if (!shots.isEmpty()) w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/training.png"));
    QVERIFY(finished.count() > 0 || finished.wait(120000));
    QVERIFY(!bar->isVisible());
    QCOMPARE(w.session()->modelState(), Session::ModelState::Trained);
    QCOMPARE(w.navigator()->currentPosition(), 1);  // the step survives the new trace
    QVERIFY(QFileInfo::exists(QDir(fresh.path()).filePath(QStringLiteral("small.safetensors"))));
}

void TestMainWindow::newViewsAreWired() {
    MainWindow w(smallOptions());
    QVERIFY(w.findChild<DecodeView*>(QStringLiteral("decodeView")));
    QVERIFY(w.findChild<LossView*>(QStringLiteral("lossView")));
    QVERIFY(w.findChild<GradientView*>(QStringLiteral("gradientView")));
    for (const char* v : {"decode", "loss", "gradients", "backward"})
        QVERIFY2(MainWindow::viewNames().contains(QLatin1String(v)), v);
    QVERIFY(w.setCurrentView(QStringLiteral("decode")));
    QCOMPARE(w.currentViewWidget(), static_cast<QWidget*>(w.decodeView()));
    QVERIFY(w.setCurrentView(QStringLiteral("backward")));
    QCOMPARE(w.currentViewName(), QStringLiteral("gradients"));
    QCOMPARE(w.viewWidget(QStringLiteral("backward")), static_cast<QWidget*>(w.gradientView()));
    // The decode view decodes the session's sentence with the session's model.
    QVERIFY(w.decodeView()->waitForDecode());
    QCOMPARE(w.decodeView()->source(), w.session()->source());
    QCOMPARE(w.decodeView()->translation(), w.session()->translate(w.session()->source()));
    // The backward pass is in the trace, with the parameter gradients and the optimizer.
    QVERIFY(w.session()->trace()->contains("grad.projection.logits"));
    QVERIFY(w.session()->gradients());
    QVERIFY(w.session()->optimizer());
    QCOMPARE(w.session()->gradients()->size(), w.session()->params()->size());
    QVERIFY(w.findChild<QAction*>(QStringLiteral("actionSaveTrainedCheckpoint")));
    QCOMPARE(w.saveTrainedAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_S));
    QVERIFY(!w.saveTrainedAction()->isEnabled());
}

void TestMainWindow::lossViewShowsTheTraceLoss() {
    MainWindow w(smallOptions());
    w.setFollowStep(false);
    QVERIFY(w.setCurrentView(QStringLiteral("loss")));
    auto* lv = qobject_cast<LossView*>(w.currentViewWidget());
    QVERIFY(lv);
    const auto* loss = w.session()->trace()->find("loss");
    QVERIFY(loss);
    QVERIFY(lv->hasData());
    QVERIFY(qAbs(lv->displayedMean() - double(loss->value.data[0])) < 1e-4);
    QVERIFY(qAbs(lv->traceLoss() - double(loss->value.data[0])) < 1e-6);
    // Follow Step shows the loss view for the loss.
    w.setFollowStep(true);
    QVERIFY(w.setCurrentView(QStringLiteral("tensor")));
    QVERIFY(w.setCurrentStep(QStringLiteral("loss")));
    QCOMPARE(w.currentViewName(), QStringLiteral("loss"));
}

void TestMainWindow::backwardStepsGoToTheGradientsView() {
    MainWindow w(smallOptions());
    w.setFollowStep(true);
    const QString step = QStringLiteral("grad.decoder.layers.1.dec_enc_attn.attn");
    QVERIFY(w.setCurrentStep(step));
    QCOMPARE(w.currentStep(), step);
    QVERIFY(w.navigator()->isBackward());
    QVERIFY(w.directionAction()->isChecked());
    QCOMPARE(w.currentViewName(), QStringLiteral("gradients"));
    QCOMPARE(w.gradientView()->currentStep(), step);
    QVERIFY(w.gradientView()->hasData());
    QVERIFY(w.gradientView()->parameterSectionVisible());
    // A forward step again: back to forward.
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.pos_emb.pe")));
    QVERIFY(!w.navigator()->isBackward());
    QCOMPARE(w.currentViewName(), QStringLiteral("pe"));
}

void TestMainWindow::directionToggleSwitchesTheNavigator() {
    MainWindow w(smallOptions());
    w.setFollowStep(false);
    QAction* dir = w.findChild<QAction*>(QStringLiteral("directionToggle"));
    QVERIFY(dir);
    QCOMPARE(dir->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_B));
    const QString fwd = QStringLiteral("decoder.layers.0.dec_enc_attn.attn");
    QVERIFY(w.setCurrentStep(fwd));
    const int forwardCount = w.navigator()->stepCount();
    dir->trigger();
    QVERIFY(w.navigator()->isBackward());
    QCOMPARE(w.currentStep(), QStringLiteral("grad.") + fwd);
    QCOMPARE(w.navigator()->treeView()->model(), static_cast<QAbstractItemModel*>(w.navigator()->backwardModel()));
    QCOMPARE(w.navigator()->stepCount(), w.navigator()->backwardModel()->stepCount());
    QCOMPARE(w.navigator()->backwardModel()->stepAt(0), backwardStepOrder(*w.session()->trace()).value(0));
    w.navigator()->goFirst();
    QCOMPARE(w.currentStep(), w.navigator()->backwardModel()->stepAt(0));
    w.navigator()->goNext();
    QCOMPARE(w.currentStep(), w.navigator()->backwardModel()->stepAt(1));
    QVERIFY(w.setCurrentStep(QStringLiteral("grad.") + fwd));
    dir->trigger();
    QVERIFY(!w.navigator()->isBackward());
    QCOMPARE(w.currentStep(), fwd);
    QCOMPARE(w.navigator()->stepCount(), forwardCount);
    QCOMPARE(w.navigator()->treeView()->model(), static_cast<QAbstractItemModel*>(w.navigator()->model()));
    // Without a loss there is no backward pass: the toggle stays off.
    QVERIFY(w.session()->setSentences(QStringLiteral("ich mochte ein bier P"), QStringLiteral("i want")));
    QVERIFY(!w.session()->trace()->contains("grad.projection.logits"));
    dir->trigger();
    QVERIFY(!w.navigator()->isBackward());
    QVERIFY(!dir->isChecked());
}

void TestMainWindow::installTrainedModelChangesTheTrace() {
    MainWindow w(smallOptions());
    const auto before = w.session()->trace();
    const double lossBefore = before->at("loss").value.data[0];
    // Different weights of the same architecture, as the training panel would hand them over.
    const stepformer::Config cfg = w.session()->config();
    auto params = std::make_shared<const stepformer::ParamSet>(stepformer::init_params(cfg, 99));
    QSignalSpy traceSpy(w.session(), &Session::traceChanged);
    QSignalSpy modelSpy(w.session(), &Session::modelChanged);
    QMetaObject::invokeMethod(
        w.session(), [&] { w.session()->installTrainedModel(cfg, params); }, Qt::QueuedConnection);
    QVERIFY(traceSpy.wait(5000));
    QCOMPARE(modelSpy.count(), 1);
    QVERIFY(w.session()->trace() != before);
    QVERIFY(w.session()->trace()->contains("grad.projection.logits"));
    QVERIFY(qAbs(double(w.session()->trace()->at("loss").value.data[0]) - lossBefore) > 1e-6);
    const auto* lv = w.lossView();
    QVERIFY(qAbs(lv->displayedMean() - double(w.session()->trace()->at("loss").value.data[0])) < 1e-4);
    QVERIFY(w.decodeView()->waitForDecode());
    QCOMPARE(w.decodeView()->translation(), w.session()->translate(w.session()->source()));
    // Weights that do not fit are refused with a message; the model stays.
    QSignalSpy errSpy(w.session(), &Session::errorOccurred);
    QVERIFY(!w.session()->installTrainedModel(cfg, nullptr));
    QCOMPARE(errSpy.count(), 1);
}

void TestMainWindow::trainingDockIsReachable() {
    MainWindow w(smallOptions());
    auto* dock = w.findChild<QDockWidget*>(QStringLiteral("trainingDock"));
    QVERIFY(dock);
    QCOMPARE(dock->windowTitle(), QStringLiteral("Train"));
    QCOMPARE(dock->widget(), static_cast<QWidget*>(w.trainingPanel()));
    QCOMPARE(dock->toggleViewAction()->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_T));
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    dock->toggleViewAction()->trigger();
    QVERIFY(dock->isVisible());
}

void TestMainWindow::closingWithUnsavedWeightsAsks() {
    MainWindow w(smallOptions());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    // Nothing trained: closes without asking.
    QVERIFY(!w.trainingPanel()->hasUnsavedWeights());
    QVERIFY(w.confirmDiscardTrainedWeights());

    // Train a short run in the panel; its weights reach the session.
    TrainingPanel* panel = w.trainingPanel();
    QSignalSpy trained(panel, &TrainingPanel::modelTrained);
    QSignalSpy traceSpy(w.session(), &Session::traceChanged);
    QVERIFY2(panel->start(), qPrintable(QStringLiteral("cannot start training: %1").arg(panel->startBlockedReason())));
    // Stop after the first step: a stopped run hands its weights over.
    QObject::connect(panel, &TrainingPanel::progressChanged, panel, [panel](int step) {
        if (step >= 1 && panel->isTraining()) panel->stop();
    });
    QVERIFY(trained.count() > 0 || trained.wait(120000));
    QVERIFY(traceSpy.count() >= 1);
    QVERIFY(panel->hasUnsavedWeights());
    QVERIFY(w.saveTrainedAction()->isEnabled());

    // Cancel keeps the window open; Discard lets it close.
    int asked = 0;
    auto answer = [&asked](QMessageBox::StandardButton b) {
        QTimer::singleShot(50, [&asked, b] {
            for (QWidget* top : QApplication::topLevelWidgets())
                if (auto* box = qobject_cast<QMessageBox*>(top);
                    box && box->objectName() == QLatin1String("unsavedWeightsBox") && box->isVisible()) {
                    ++asked;
                    box->button(b)->click();
                    return;
                }
        });
    };
    answer(QMessageBox::Cancel);
    QVERIFY(!w.close());
    QCOMPARE(asked, 1);
    QVERIFY(w.isVisible());
    answer(QMessageBox::Discard);
    QVERIFY(w.close());
    QCOMPARE(asked, 2);

    // Offscreen with STEPFORMER_NO_CLOSE_PROMPT: no question.
    if (QGuiApplication::platformName() == QLatin1String("offscreen")) {
        w.show();
        qputenv("STEPFORMER_NO_CLOSE_PROMPT", "1");
        QVERIFY(w.confirmDiscardTrainedWeights());
        qunsetenv("STEPFORMER_NO_CLOSE_PROMPT");
    }
}

// The explanation (and the diagram) describe what the visible view shows: a layer picked in the
// attention view, and the navigator's step again on a tab that shows it.
void TestMainWindow::explanationFollowsWhatTheViewShows() {
    MainWindow w(smallOptions());
    w.resize(1440, 900);
    auto* explain = w.findChild<ExplainPanel*>();
    QVERIFY(explain);
    const QString layer0 = QStringLiteral("decoder.layers.0.dec_enc_attn.attn");
    const QString layer1 = QStringLiteral("decoder.layers.1.dec_enc_attn.attn");
    QVERIFY(w.setCurrentStep(layer0));
    QCOMPARE(w.currentViewName(), QStringLiteral("attention"));
    QCOMPARE(explain->currentStep(), layer0);
    w.viewWidget(QStringLiteral("attention"))->findChild<QComboBox*>(QStringLiteral("layerPicker"))->setCurrentIndex(1);
    QCOMPARE(explain->currentStep(), layer1);
    QCOMPARE(w.architectureDiagram()->currentStep(), layer1);
    QCOMPARE(w.currentStep(), layer0);  // the navigator stays
    // The tensor tab shows the navigator's step: so does the explanation.
    QVERIFY(w.setCurrentView(QStringLiteral("tensor")));
    QCOMPARE(explain->currentStep(), layer0);
    // Back on the attention tab, which kept its layer.
    QVERIFY(w.setCurrentView(QStringLiteral("attention")));
    QCOMPARE(explain->currentStep(), layer1);
    // Without Follow Step, a step outside attention leaves the attention view (and its
    // explanation) on its block.
    w.setFollowStep(false);
    QVERIFY(w.setCurrentStep(QStringLiteral("decoder.layers.1.pos_ffn.hidden")));
    QCOMPARE(w.currentViewName(), QStringLiteral("attention"));
    QCOMPARE(explain->currentStep(), layer1);
    QVERIFY(w.setCurrentView(QStringLiteral("tensor")));
    QCOMPARE(explain->currentStep(), QStringLiteral("decoder.layers.1.pos_ffn.hidden"));
}

// The model box, the Model menu and the title say the same in every state.
void TestMainWindow::modelBoxMenuAndTitleAgree() {
    MainWindow::Options o = smallOptions();
    o.provisioning = Session::Provisioning::Never;  // the Small preset at its initial weights
    QTemporaryDir emptyCache;  // nothing cached: the preset starts untrained
    QVERIFY(emptyCache.isValid());
    o.cacheDir = emptyCache.path();
    MainWindow w(o);
    auto* toolBar = w.findChild<QToolBar*>(QStringLiteral("mainToolBar"));
    QVERIFY(toolBar);
    auto* box = toolBar->findChild<QComboBox*>(QStringLiteral("presetCombo"));  // (the Train form has one too)
    auto* menu = w.findChild<QMenu*>(QStringLiteral("menuModel"));
    QVERIFY(box && menu);
    const auto checkedInMenu = [&] {
        for (QAction* a : menu->actions())
            if (a->isCheckable() && a->isChecked()) return a->text();
        return QString();
    };
    const auto agree = [&](const QString& word) -> QString {
        if (!box->currentText().contains(word, Qt::CaseInsensitive)) return QStringLiteral("box: ") + box->currentText();
        if (checkedInMenu() != box->currentText()) return QStringLiteral("menu: ") + checkedInMenu();
        if (!w.windowTitle().contains(word, Qt::CaseInsensitive)) return QStringLiteral("title: ") + w.windowTitle();
        return {};
    };
    QCOMPARE(w.session()->modelState(), Session::ModelState::Untrained);
    VERIFY_HELPER(agree(QStringLiteral("untrained")));
    QVERIFY(!box->currentText().contains(QStringLiteral(", trained")));
    // While training (the box must not say "trained" yet).
    w.session()->setProvisioning(Session::Provisioning::Background);
    QVERIFY(w.session()->setPreset(Session::Preset::Small));
    // (In the background the switch is made when the untrained model's pass arrives from its worker.)
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->modelState(), Session::ModelState::Training, 20000);
    VERIFY_HELPER(agree(QStringLiteral("training…")));
    QVERIFY(!box->currentText().contains(QStringLiteral(", trained")));
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->modelState(), Session::ModelState::Trained, 120000);
    VERIFY_HELPER(agree(QStringLiteral("trained")));
    // Weights from the Train panel.
    const stepformer::Config cfg = w.session()->config();
    QVERIFY(w.session()->installTrainedModel(cfg, std::make_shared<const stepformer::ParamSet>(stepformer::init_params(cfg, 5))));
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->modelState(), Session::ModelState::TrainedInApp, 20000);
    VERIFY_HELPER(agree(QStringLiteral("trained in the app")));
    QVERIFY(box->currentText() != QStringLiteral("From file…"));
    auto* items = qobject_cast<QStandardItemModel*>(box->model());
    QVERIFY(items->item(box->currentIndex())->isEnabled());
    // From a file.
    QVERIFY(w.session()->openWeights(QStringLiteral(STEPFORMER_FIXTURES_DIR "/tutorial_state_dict.weights.safetensors")));
    QTRY_COMPARE_WITH_TIMEOUT(box->currentText(), QStringLiteral("From file…"), 20000);
    QCOMPARE(checkedInMenu(), QStringLiteral("From File…"));
    QVERIFY(w.windowTitle().contains(QStringLiteral("tutorial_state_dict")));
    // "Trained in the app" is no choice once another model is shown.
    QVERIFY(!items->item(box->findData(-2))->isEnabled());
}

// Ctrl+B goes where its text says: the gradient of the step shown (from the first forward step,
// one of the last gradients computed).
void TestMainWindow::directionToggleSaysWhereItGoes() {
    MainWindow w(smallOptions());
    w.setFollowStep(false);
    QAction* dir = w.findChild<QAction*>(QStringLiteral("directionToggle"));
    QVERIFY(dir->text().contains(QStringLiteral("Gradient of This Step")));
    QVERIFY(dir->toolTip().contains(QStringLiteral("gradient of the current step")));
    w.navigator()->goFirst();
    const QString first = w.currentStep();
    dir->trigger();
    QVERIFY(w.navigator()->isBackward());
    QCOMPARE(w.currentStep(), BackwardStepList::counterpartStep(*w.session()->trace(), first,
                                                                 BackwardStepList::Direction::Backward));
    QVERIFY(w.currentStep().startsWith(QStringLiteral("grad.")));
}

void TestMainWindow::exportImageIsNotTheFloppy() {
    MainWindow w(smallOptions());
    QAction* png = w.findChild<QAction*>(QStringLiteral("actionExportPng"));
    QAction* save = w.findChild<QAction*>(QStringLiteral("actionSaveTrainedCheckpoint"));
    QVERIFY(png && save);
    const QImage floppy = w.style()->standardIcon(QStyle::SP_DialogSaveButton).pixmap(20, 20).toImage();
    const QImage exportIcon = png->icon().pixmap(20, 20).toImage();
    QVERIFY(!exportIcon.isNull());
    QVERIFY(distinctColors(exportIcon, 1) > 3);  // drawn (the SVG loaded)
    QVERIFY(exportIcon != floppy);
    QCOMPARE(save->icon().pixmap(20, 20).toImage(), floppy);  // the floppy saves weights
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
