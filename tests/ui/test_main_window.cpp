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
#include <QSettings>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <QAbstractItemView>
#include <QCompleter>
#include <QTreeView>
#include <QComboBox>
#include <QStyle>

#include "steps/backward_steps.h"
#include "views/decode_view.h"
#include "explain/explain_panel.h"
#include "views/gradient_view.h"
#include "views/loss_view.h"
#include "stepformer/model.h"
#include "stepformer/params.h"

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
    void newViewsAreWired();
    void lossViewShowsTheTraceLoss();
    void backwardStepsGoToTheGradientsView();
    void directionToggleSwitchesTheNavigator();
    void explanationFollowsWhatTheViewShows();
    void directionToggleSaysWhereItGoes();
    void exportImageIsNotTheFloppy();

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
    return testutil::smallWindow(cache_.path());  // small trains in a moment, then is cached
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
