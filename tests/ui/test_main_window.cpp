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

#include "explain_panel.h"
#include "input_bar.h"
#include "main_window.h"
#include "session.h"
#include "step_model.h"
#include "step_navigator.h"
#include "view_placeholders.h"

namespace {

int distinctColors(const QImage& img) {
    QSet<QRgb> colors;
    const QImage im = img.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < im.height(); y += 2)
        for (int x = 0; x < im.width(); x += 2) colors.insert(im.pixel(x, y));
    return colors.size();
}

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
    void exportsWriteFiles();
    void remembersSentencesAndView();
    void architectureClickJumps();
    void openingWeightsRebuildsTheNavigator();
    void trainsInTheBackgroundWithVisibleProgress();

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
#ifdef STEPFORMER_HAS_ARCHITECTURE_DIAGRAM
    QCOMPARE(w.architectureDiagram()->currentStep(), order[1]);
#endif

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
    QVERIFY(w.explainPanel()->browser()->toPlainText().contains(QStringLiteral("n_heads=4")));
    QCOMPARE(w.findChild<AttentionView*>(QStringLiteral("attentionView"))->currentTensorName(),
             QStringLiteral("encoder.layers.1.enc_self_attn.attn"));
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
    QVERIFY(csv.readLine().startsWith("# shape [1, 4, 5, 5]"));
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
#ifdef STEPFORMER_HAS_ARCHITECTURE_DIAGRAM
    MainWindow w(smallOptions());
    QSignalSpy spy(w.navigator(), &StepNavigator::stepChanged);
    emit w.architectureDiagram()->stepRequested(QStringLiteral("decoder.layers.1.pos_ffn.hidden"));
    QCOMPARE(w.currentStep(), QStringLiteral("decoder.layers.1.pos_ffn.hidden"));
    QCOMPARE(spy.count(), 1);
#else
    QSKIP("the architecture diagram is not in the tree yet");
#endif
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
}

void TestMainWindow::trainsInTheBackgroundWithVisibleProgress() {
    QTemporaryDir fresh;  // nothing cached: the window opens at once and trains on a worker
    MainWindow::Options o = smallOptions();
    o.cacheDir = fresh.path();
    o.provisioning = Session::Provisioning::Background;
    MainWindow w(o);
    QSignalSpy finished(w.session(), &Session::trainingFinished);
    QSignalSpy progress(w.session(), &Session::trainingProgress);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.session()->isTraining());
    QVERIFY(w.session()->trace());  // usable at once, with the untrained model
    auto* bar = w.findChild<QProgressBar*>(QStringLiteral("trainingProgress"));
    QVERIFY(bar);
    QVERIFY(bar->isVisible());
    QVERIFY(w.findChild<QWidget*>(QStringLiteral("lossSparkline"))->isVisible());
    // Stepping still works while it trains.
    w.findChild<QAction*>(QStringLiteral("actionNextStep"))->trigger();
    QCOMPARE(w.navigator()->currentPosition(), 1);
    QVERIFY(progress.wait(60000));
    QVERIFY(bar->value() > 0);
    const QByteArray shots = qgetenv("STEPFORMER_TEST_SCREENSHOT_DIR");
    if (!shots.isEmpty()) w.grab().save(QString::fromLocal8Bit(shots) + QStringLiteral("/training.png"));
    QVERIFY(finished.wait(120000));
    QVERIFY(!bar->isVisible());
    QCOMPARE(w.session()->modelState(), Session::ModelState::Trained);
    QCOMPARE(w.navigator()->currentPosition(), 1);  // the step survives the new trace
    QVERIFY(QFileInfo::exists(QDir(fresh.path()).filePath(QStringLiteral("small.safetensors"))));
}

QTEST_MAIN(TestMainWindow)
#include "test_main_window.moc"
