// The desktop habits of the main window (issue 33): step search (Ctrl+F), step keys that never
// get stuck in a view's spin box and focus that never falls into a sentence field, tabs that stay
// where the user put them, Open Recent, dropped files, full screen, the window title, Escape on a
// window of its own, start-up file errors, and the learning-rate advice.
#include <QAction>
#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QHash>
#include <QLegend>
#include <QAbstractAxis>
#include <QClipboard>
#include <QComboBox>
#include <QDragEnterEvent>
#include <QPushButton>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QMenu>
#include <QMessageBox>
#include <QMimeData>
#include <QSettings>
#include <QTabWidget>
#include <QScrollBar>
#include <QScrollArea>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSplitter>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>
#include <QUrl>

#include "app/appearance.h"
#include "app/export.h"
#include "app/desktop_habits.h"
#include "app/input_bar.h"
#include "app/main_window.h"
#include "app/session.h"
#include "app/status_bar.h"
#include "compare/scaling_compare_window.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "steps/step_search.h"
#include "training/dataset_editor.h"
#include "training/hyperparameter_form.h"
#include "training/loss_chart.h"
#include "training/lr_advice.h"
#include "training/training_panel.h"
#include "widgets/heatmap_widget.h"
#include "test_util.h"

namespace {
const QString kWeights = QStringLiteral(STEPFORMER_FIXTURES_DIR "/tutorial_state_dict.weights.safetensors");

}  // namespace

class TestDesktopHabits : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void matchStepsByWords();
    void ctrlFFindsAStep();
    void stepKeysPassASpinBox();
    void focusNeverFallsIntoTheSentence();
    void editingTheSentenceKeepsTheTab();
    void openRecentRemembersAndForgets();
    void droppedFilesOpen();
    void fullScreenAndTitle();
    void escapeClosesTheCompareWindow();
    void ctrlCCopiesTheHoveredCell();
    void startUpFileErrorIsShown();
    void darkThemeAndPresentationZoom();
    void trainingLayoutGivesTheDockTheRoom();
    void speedValueIsVisibleOnALaptop();
    void adamGetsItsLearningRate();
    void untrainedRunIsNamed();

private:
    MainWindow::Options options() const;
    QTemporaryDir cache_;
};

void TestDesktopHabits::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

MainWindow::Options TestDesktopHabits::options() const {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Small;
    o.provisioning = Session::Provisioning::Synchronous;
    o.cacheDir = cache_.path();
    o.backend = QStringLiteral("cpu");
    return o;
}

void TestDesktopHabits::matchStepsByWords() {
    const QList<StepText> steps = {
        {QStringLiteral("encoder.layers.0.enc_self_attn.attn"), QStringLiteral("Softmax"),
         QStringLiteral("Encoder layer 0 › Self-attention")},
        {QStringLiteral("decoder.layers.1.dec_self_attn.attn"), QStringLiteral("Softmax"),
         QStringLiteral("Decoder layer 1 › Masked self-attention")},
        {QStringLiteral("decoder.layers.13.dec_self_attn.attn"), QStringLiteral("Softmax"),
         QStringLiteral("Decoder layer 13 › Masked self-attention")},
        {QStringLiteral("decoder.layers.1.dec_self_attn.scores"), QStringLiteral("Scores"),
         QStringLiteral("Decoder layer 1 › Masked self-attention")},
    };
    QCOMPARE(matchSteps(QStringLiteral("softmax decoder 1"), steps),
             QStringList{QStringLiteral("decoder.layers.1.dec_self_attn.attn")});  // 1 is not 13
    QCOMPARE(matchSteps(QStringLiteral("SOFT enc"), steps).value(0), QStringLiteral("encoder.layers.0.enc_self_attn.attn"));
    QCOMPARE(matchSteps(QStringLiteral("softmax"), steps).size(), 3);
    QCOMPARE(matchSteps(QStringLiteral("decoder.layers.1.dec_self_attn.scores"), steps).value(0),
             QStringLiteral("decoder.layers.1.dec_self_attn.scores"));
    QVERIFY(matchSteps(QStringLiteral("  "), steps).isEmpty());
    QVERIFY(matchSteps(QStringLiteral("softmax encoder 1"), steps).isEmpty());
}

void TestDesktopHabits::ctrlFFindsAStep() {
    MainWindow w(options());
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    auto* find = w.findChild<QAction*>(QStringLiteral("actionFindStep"));
    QVERIFY(find);
    QCOMPARE(find->shortcut(), QKeySequence(QKeySequence::Find));
    QCOMPARE(w.findChild<QAction*>(QStringLiteral("actionFollowStep"))->shortcut(),
             QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_F, Qt::ControlModifier);
    StepSearchPopup* popup = w.desktopHabits()->stepSearch();
    QTRY_VERIFY(popup->isVisible());
    QTRY_COMPARE(QApplication::focusWidget(), popup->field());
    QTest::keyClicks(popup->field(), QStringLiteral("softmax decoder 1"));
    QVERIFY(popup->results()->count() >= 1);
    const QString want = popup->results()->item(0)->data(Qt::UserRole).toString();
    QVERIFY2(want.contains(QStringLiteral("decoder.layers.1")), qPrintable(want));
    QTest::keyClick(popup->field(), Qt::Key_Return);
    QTRY_VERIFY(!popup->isVisible());
    QCOMPARE(w.currentStep(), want);
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.navigator()->treeView()));
    // Escape closes it without moving.
    find->trigger();
    QTRY_VERIFY(popup->isVisible());
    QTest::keyClicks(popup->field(), QStringLiteral("embedding"));
    QTest::keyClick(popup->field(), Qt::Key_Escape);
    QTRY_VERIFY(!popup->isVisible());
    QCOMPARE(w.currentStep(), want);
}

void TestDesktopHabits::stepKeysPassASpinBox() {
    MainWindow w(options());
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.setFollowStep(false);
    QVERIFY(w.setCurrentView(QStringLiteral("pe")));
    auto* spin = w.viewWidget(QStringLiteral("pe"))->findChild<QSpinBox*>();
    QVERIFY(spin);
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    const QStringList order = w.navigator()->model()->stepOrder();
    QVERIFY(w.setCurrentStep(order[3]));
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Right);
    QCOMPARE(w.currentStep(), order[4]);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Left);
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Left);
    QCOMPARE(w.currentStep(), order[2]);
    const int before = spin->value();
    QTest::keyClick(QApplication::focusWidget(), Qt::Key_Up);  // ↑ still edits the spin box
    QCOMPARE(spin->value(), std::min(before + 1, spin->maximum()));
}

void TestDesktopHabits::focusNeverFallsIntoTheSentence() {
    MainWindow w(options());
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.setFollowStep(true);
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.pos_emb.pe")));
    QCOMPARE(w.currentViewName(), QStringLiteral("pe"));
    auto* spin = w.viewWidget(QStringLiteral("pe"))->findChild<QSpinBox*>();
    spin->setFocus();
    QTRY_VERIFY(spin->hasFocus());
    // Follow Step changes the tab: the spin box disappears with its view.
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.layers.0.pos_ffn.hidden")));
    QCOMPARE(w.currentViewName(), QStringLiteral("tensor"));
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.navigator()->treeView()));
    QTest::qWait(1);  // the tab switch is over (a user acts in a later pass of the event loop)
    // A focused button that hides itself (Compare with the CPU does): the tree again.
    w.inputBar()->sourceEdit()->setCursorPosition(0);
    auto* button = new QPushButton(QStringLiteral("probe"), w.viewWidget(QStringLiteral("tensor")));
    button->show();
    button->setFocus();
    QTRY_VERIFY(button->hasFocus());
    button->hide();
    QTRY_COMPARE(QApplication::focusWidget(), static_cast<QWidget*>(w.navigator()->treeView()));
    QVERIFY(!w.inputBar()->sourceEdit()->hasSelectedText());
}

void TestDesktopHabits::editingTheSentenceKeepsTheTab() {
    MainWindow w(options());
    w.setFollowStep(true);
    QVERIFY(w.setCurrentStep(w.navigator()->model()->stepOrder().first()));
    QVERIFY(w.setCurrentView(QStringLiteral("decode")));
    QVERIFY(w.session()->setSentences(QStringLiteral("ich mochte ein cola P"), w.session()->target()));
    QCOMPARE(w.currentViewName(), QStringLiteral("decode"));
    // Another step still picks its view.
    QVERIFY(w.setCurrentStep(QStringLiteral("decoder.self_attn_mask")));
    QCOMPARE(w.currentViewName(), QStringLiteral("masks"));
}

void TestDesktopHabits::openRecentRemembersAndForgets() {
    MainWindow w(options());
    DesktopHabits* habits = w.desktopHabits();
    QVERIFY(!habits->recentMenu()->isEnabled());
    QTemporaryDir dir;
    const QString copy = dir.filePath(QStringLiteral("copy.safetensors"));
    QVERIFY(QFile::copy(kWeights, copy));
    // Its config beside it, as the fixture has one (a bare state_dict of another size).
    QVERIFY(QFile::copy(QStringLiteral(STEPFORMER_FIXTURES_DIR "/tutorial_state_dict.config.json"),
                        dir.filePath(QStringLiteral("copy.config.json"))));
    QVERIFY(w.session()->openWeights(kWeights));
    QVERIFY(w.session()->openWeights(copy));
    QCOMPARE(habits->recentFiles(), (QStringList{copy, kWeights}));
    QVERIFY(habits->recentMenu()->isEnabled());
    auto* first = w.findChild<QAction*>(QStringLiteral("actionRecent_0"));
    QVERIFY(first);
    QVERIFY(first->text().contains(QStringLiteral("copy.safetensors")));
    // Opening it from the menu; then, once the file is gone, it leaves the list with a word why.
    QVERIFY(w.setCurrentStep(w.navigator()->model()->stepOrder().last()));
    w.findChild<QAction*>(QStringLiteral("actionRecent_1"))->trigger();
    QCOMPARE(habits->recentFiles().first(), kWeights);
    QVERIFY(QFile::remove(copy));
    w.findChild<QAction*>(QStringLiteral("actionRecent_1"))->trigger();
    QCOMPARE(habits->recentFiles(), QStringList{kWeights});
    QVERIFY(w.statusBarWidget()->pendingErrorText().contains(QStringLiteral("copy.safetensors")));
    w.findChild<QAction*>(QStringLiteral("actionClearRecent"))->trigger();
    QVERIFY(habits->recentFiles().isEmpty());
}

void TestDesktopHabits::droppedFilesOpen() {
    MainWindow w(options());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto drop = [&w](const QString& path) {
        QMimeData mime;
        mime.setUrls({QUrl::fromLocalFile(path)});
        QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &enter);
        if (!enter.isAccepted()) return false;
        QDropEvent ev(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
        QApplication::sendEvent(&w, &ev);
        return ev.isAccepted();
    };
    QVERIFY(drop(kWeights));
    QCOMPARE(w.session()->modelState(), Session::ModelState::FromFile);
    // A dataset goes to the Train panel's table.
    QTemporaryDir dir;
    const QString tsv = dir.filePath(QStringLiteral("pairs.tsv"));
    QFile f(tsv);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("ich mochte ein bier P\tS i want a beer .\ti want a beer . E\n"
            "ich mochte ein cola P\tS i want a coke .\ti want a coke . E\n"
            "ich mochte ein bier P\tS i want a beer .\ti want a beer . E\n");
    f.close();
    QVERIFY(drop(tsv));
    QCOMPARE(w.trainingPanel()->datasetEditor()->examples().size(), size_t(3));
    QVERIFY(w.trainingDock()->isVisible());
    // Anything else is not taken.
    QVERIFY(!drop(dir.filePath(QStringLiteral("notes.docx"))));
}

void TestDesktopHabits::fullScreenAndTitle() {
    MainWindow w(options());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* fs = w.findChild<QAction*>(QStringLiteral("actionFullScreen"));
    QVERIFY(fs);
    QCOMPARE(fs->shortcut(), QKeySequence(Qt::Key_F11));
    fs->trigger();
    QTRY_VERIFY(w.windowState() & Qt::WindowFullScreen);
    fs->trigger();
    QTRY_VERIFY(!(w.windowState() & Qt::WindowFullScreen));
    QVERIFY(!fs->isChecked());
    // The title names the model; Qt adds the app's display name once.
    QVERIFY2(!w.windowTitle().contains(QStringLiteral("Stepformer")), qPrintable(w.windowTitle()));
    QVERIFY2(w.windowTitle().contains(QStringLiteral("small")), qPrintable(w.windowTitle()));
}

void TestDesktopHabits::escapeClosesTheCompareWindow() {
    MainWindow w(options());
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.setCurrentStep(QStringLiteral("encoder.layers.0.enc_self_attn.attn")));
    w.findChild<QAction*>(QStringLiteral("actionCompareScaling"))->trigger();
    auto* compare = w.findChild<ScalingCompareWindow*>(QStringLiteral("scalingCompareWindow"));
    QVERIFY(compare);
    QTRY_VERIFY(compare->isVisible());
    compare->activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(compare));
    QTest::keyClick(compare, Qt::Key_Escape);
    QTRY_VERIFY(!compare->isVisible());
}

void TestDesktopHabits::ctrlCCopiesTheHoveredCell() {
    MainWindow w(options());
    HeatmapWidget* map = testutil::showAttentionHeatmap(w);
    QVERIFY(map);
    QApplication::clipboard()->clear();
    w.findChild<QAction*>(QStringLiteral("actionCopyCell"))->trigger();  // nothing hovered: nothing copied
    QVERIFY(QApplication::clipboard()->text().isEmpty());
    QTest::mouseMove(map->viewport(), map->viewport()->mapFrom(map, map->cellRect(1, 2).center()));
    QTRY_COMPARE(map->hoveredCell(), QPoint(1, 2));
    w.findChild<QAction*>(QStringLiteral("actionCopyCell"))->trigger();
    const QStringList parts = QApplication::clipboard()->text().split(QLatin1Char('\t'));
    QCOMPARE(parts.size(), 3);
    QCOMPARE(parts[0], map->rowLabels().value(1));
    QCOMPARE(parts[1], map->colLabels().value(2));
    QCOMPARE(parts[2].toFloat(), map->value(1, 2));
}

void TestDesktopHabits::startUpFileErrorIsShown() {
    QTemporaryDir dir;
    const QString junk = dir.filePath(QStringLiteral("junk.safetensors"));
    QFile f(junk);
    QVERIFY(f.open(QIODevice::WriteOnly));
    f.write("this is not a weights file, only some text");
    f.close();
    MainWindow::Options o = options();
    o.weightsPath = junk;
    MainWindow w(o);
    const QString error = w.statusBarWidget()->pendingErrorText();
    QVERIFY2(error.contains(QStringLiteral("junk.safetensors")), qPrintable(error));
    QVERIFY2(!error.contains(QStringLiteral("config.json")), qPrintable(error));  // no advice about a config
    w.show();
    QTRY_VERIFY(w.findChild<QMessageBox*>(QStringLiteral("errorMessageBox")) &&
                w.findChild<QMessageBox*>(QStringLiteral("errorMessageBox"))->isVisible());
    // A PyTorch checkpoint says what it is and how to convert it.
    const QString pth = dir.filePath(QStringLiteral("model.pth"));
    QFile p(pth);
    QVERIFY(p.open(QIODevice::WriteOnly));
    p.write(QByteArray("PK\x03\x04", 4) + QByteArray(100, 'x'));
    p.close();
    QSignalSpy errors(w.session(), &Session::errorOccurred);
    QVERIFY(!w.desktopHabits()->openFile(pth));
    QCOMPARE(errors.count(), 1);
    QVERIFY2(errors[0][0].toString().contains(QStringLiteral("pth_to_safetensors")), qPrintable(errors[0][0].toString()));
}

void TestDesktopHabits::darkThemeAndPresentationZoom() {
    MainWindow w(options());
    HeatmapWidget* map = testutil::showAttentionHeatmap(w);
    QVERIFY(map);
    auto cornerLightness = [map] { return map->viewport()->grab().toImage().pixelColor(1, 1).lightness(); };
    QVERIFY(cornerLightness() > 200);  // the light theme's white page
    w.findChild<QAction*>(QStringLiteral("actionTheme_dark"))->trigger();
    QCOMPARE(Appearance::theme(), Appearance::Theme::Dark);
    QVERIFY(QApplication::palette().color(QPalette::Window).lightness() < 80);
    QTRY_VERIFY(cornerLightness() < 80);  // the heatmap's page follows the palette
    // The text of a view reads on it: the title's colour is light.
    QVERIFY(map->palette().color(QPalette::Text).lightness() > 180);
    w.findChild<QAction*>(QStringLiteral("actionTheme_system"))->trigger();
    QTRY_VERIFY(cornerLightness() > 200);

    const qreal base = QApplication::font().pointSizeF();
    // Texts with a size of their own (a view's title, the bold Start button) and the charts' texts.
    QHash<QWidget*, qreal> own;
    for (QWidget* c : w.findChildren<QWidget*>())
        if (c->testAttribute(Qt::WA_SetFont) && (c->font().resolveMask() & QFont::SizeResolved) && c->font().pointSizeF() > 0)
            own.insert(c, c->font().pointSizeF());
    QVERIFY(own.size() > 3);
    QChart* lossChart = w.trainingPanel()->findChild<LossChart*>()->lossView()->chart();
    const qreal legend = lossChart->legend()->font().pointSizeF(), axis = lossChart->axes().value(0)->labelsFont().pointSizeF();
    auto* in = w.findChild<QAction*>(QStringLiteral("actionZoomIn"));
    QCOMPARE(in->shortcut(), QKeySequence(Qt::CTRL | Qt::Key_Plus));
    in->trigger();
    in->trigger();
    QCOMPARE(Appearance::zoom(), 150);
    QVERIFY(std::abs(QApplication::font().pointSizeF() - 1.5 * base) < 0.01);
    QTRY_VERIFY(map->font().pointSizeF() > base * 1.4);  // the views' text grows with it
    for (auto it = own.cbegin(); it != own.cend(); ++it)
        QVERIFY2(std::abs(it.key()->font().pointSizeF() - 1.5 * it.value()) < 0.01,
                 qPrintable(QStringLiteral("%1 '%2': %3 pt").arg(QString::fromLatin1(it.key()->metaObject()->className()),
                                                                   it.key()->objectName()).arg(it.key()->font().pointSizeF())));
    QVERIFY(std::abs(lossChart->legend()->font().pointSizeF() - 1.5 * legend) < 0.01);
    QVERIFY(std::abs(lossChart->axes().value(0)->labelsFont().pointSizeF() - 1.5 * axis) < 0.01);
    w.findChild<QAction*>(QStringLiteral("actionZoomReset"))->trigger();
    QCOMPARE(Appearance::zoom(), 100);
    QVERIFY(std::abs(QApplication::font().pointSizeF() - base) < 0.01);
    for (auto it = own.cbegin(); it != own.cend(); ++it) QVERIFY(std::abs(it.key()->font().pointSizeF() - it.value()) < 0.01);
    QVERIFY(std::abs(lossChart->legend()->font().pointSizeF() - legend) < 0.01);
}

void TestDesktopHabits::trainingLayoutGivesTheDockTheRoom() {
    MainWindow w(options());
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QDockWidget* nav = w.findChild<QDockWidget*>(QStringLiteral("navigatorDock"));
    QVERIFY(nav->isVisible());
    QVERIFY(!w.trainingDock()->isVisible());
    auto* layout = w.findChild<QAction*>(QStringLiteral("actionTrainingLayout"));
    QVERIFY(layout);
    QCOMPARE(layout->shortcut(), QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    layout->trigger();
    QTRY_VERIFY(w.trainingDock()->isVisible());
    QVERIFY(!nav->isVisible());
    QTRY_VERIFY2(w.trainingDock()->height() > w.centralWidget()->height(),
                 qPrintable(QStringLiteral("dock %1 px, central %2 px").arg(w.trainingDock()->height()).arg(w.centralWidget()->height())));
    QVERIFY(w.trainingDock()->width() > 1300);  // across the whole window
    // The panel does not scroll around the form's own scroll bar; the two charts side by side,
    // each tall enough for its axes.
    auto* page = w.trainingPanel()->findChild<QScrollArea*>(QStringLiteral("trainingScroll"));
    QVERIFY(page);
    QTRY_COMPARE(page->verticalScrollBar()->maximum(), 0);
    auto* chart = w.trainingPanel()->findChild<LossChart*>();
    w.trainingPanel()->findChild<QTabWidget*>(QStringLiteral("trainingTabs"))->setCurrentWidget(chart);
    QTRY_VERIFY2(chart->statsView()->height() > 250, qPrintable(QString::number(chart->statsView()->height())));
    QCOMPARE(chart->statsView()->height(), chart->lossView()->height());
    layout->trigger();
    QTRY_VERIFY(nav->isVisible());
    QTRY_VERIFY(!w.trainingDock()->isVisible());
    // The dock in the usual layout, under the views: no scrolling either, and both charts.
    w.trainingDock()->show();
    QTRY_VERIFY(w.trainingDock()->isVisible());
    QTRY_COMPARE(page->verticalScrollBar()->maximum(), 0);
    QTRY_VERIFY(chart->statsView()->height() > 120);
}

void TestDesktopHabits::speedValueIsVisibleOnALaptop() {
    MainWindow w(options());
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* speed = w.navigator()->findChild<QLabel*>(QStringLiteral("playSpeedLabel"));
    QVERIFY(speed);
    QTRY_VERIFY2(speed->isVisible(), "the play speed's value is hidden behind the toolbar's extension");
    QVERIFY(w.navigator()->findChild<QLabel*>(QStringLiteral("stepPositionLabel"))->isVisible());
}

void TestDesktopHabits::adamGetsItsLearningRate() {
    HyperparameterForm form;
    form.applyPreset(HyperparameterForm::Preset::Tutorial);
    auto* optimizer = form.findChild<QComboBox*>(QStringLiteral("optimizerCombo"));
    auto* lr = form.findChild<QLineEdit*>(QStringLiteral("learningRateEdit"));
    auto* note = form.findChild<QLabel*>(QStringLiteral("learningRateNote"));
    QVERIFY(optimizer && lr && note);
    QCOMPARE(lr->text(), QStringLiteral("1e-3"));
    QVERIFY(note->isHidden());
    const int adam = optimizer->findData(int(stepformer::OptimizerKind::Adam));
    optimizer->setCurrentIndex(adam);
    emit optimizer->activated(adam);  // as a user's choice
    QCOMPARE(lr->text(), QStringLiteral("1e-4"));
    QVERIFY(!note->isHidden());
    QVERIFY(note->text().contains(QStringLiteral("512")));
    const int sgd = optimizer->findData(int(stepformer::OptimizerKind::SGD));
    optimizer->setCurrentIndex(sgd);
    emit optimizer->activated(sgd);
    QCOMPARE(lr->text(), QStringLiteral("1e-3"));  // the preset's own again
}

void TestDesktopHabits::untrainedRunIsNamed() {
    using stepformer::OptimizerKind;
    const QString adam = LearningRateAdvice::untrainedRun(2.4, 1.94, 100, OptimizerKind::Adam, 1e-3, 512, false);
    QVERIFY2(adam.contains(QStringLiteral("1e-4")), qPrintable(adam));
    QVERIFY(LearningRateAdvice::untrainedRun(2.4, 0.01, 100, OptimizerKind::Adam, 1e-3, 512, false).isEmpty());
    QVERIFY(LearningRateAdvice::untrainedRun(2.4, 2.3, 5, OptimizerKind::SGD, 1e-3, 512, false).isEmpty());
    const QString sgd = LearningRateAdvice::untrainedRun(2.4, 2.3, 50, OptimizerKind::SGD, 1e-3, 512, false);
    QVERIFY(!sgd.isEmpty() && !sgd.contains(QStringLiteral("Adam")));
}

QTEST_MAIN(TestDesktopHabits)
#include "test_desktop_habits.moc"
