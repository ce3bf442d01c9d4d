// The main window when the model changes: opening a weights file, the preset trained in the
// background with its progress visible, trained weights installed, the model box's menu and the
// title agreeing, the Train dock reachable, and the question before closing with unsaved weights.
// Uses the Small preset (trained synchronously into a temporary cache) or the untrained one.
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileInfo>
#include <QMenu>
#include <QMessageBox>
#include <QProgressBar>
#include <QSettings>
#include <QSignalSpy>
#include <QStandardItemModel>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QToolBar>

#include <nlohmann/json.hpp>

#include "app/input_bar.h"
#include "app/main_window.h"
#include "app/session.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "test_util.h"
#include "stepformer/model.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "training/training_panel.h"
#include "views/decode_view.h"
#include "views/loss_view.h"

class TestModelSwitching : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init();
    void openingWeightsRebuildsTheNavigator();
    void trainsInTheBackgroundWithVisibleProgress();
    void installTrainedModelChangesTheTrace();
    void trainingDockIsReachable();
    void closingWithUnsavedWeightsAsks();
    void modelBoxMenuAndTitleAgree();

private:
    MainWindow::Options smallOptions() const;
    QTemporaryDir cache_;
};

void TestModelSwitching::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

void TestModelSwitching::init() { QSettings().clear(); }

MainWindow::Options TestModelSwitching::smallOptions() const {
    return testutil::smallWindow(cache_.path());  // small trains in a moment, then is cached
}

void TestModelSwitching::openingWeightsRebuildsTheNavigator() {
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

void TestModelSwitching::trainsInTheBackgroundWithVisibleProgress() {
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

void TestModelSwitching::installTrainedModelChangesTheTrace() {
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

void TestModelSwitching::trainingDockIsReachable() {
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

void TestModelSwitching::closingWithUnsavedWeightsAsks() {
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

// The model box, the Model menu and the title say the same in every state.
void TestModelSwitching::modelBoxMenuAndTitleAgree() {
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
    // While training (the box must not say "trained" yet): the tutorial-size preset, whose run
    // lasts long enough to be seen (the Small one may finish before its untrained model's pass
    // arrives from the worker, and then "training…" is never shown).
    w.session()->setProvisioning(Session::Provisioning::Background);
    QVERIFY(w.session()->setPreset(Session::Preset::Tutorial));
    QTRY_COMPARE_WITH_TIMEOUT(w.session()->modelState(), Session::ModelState::Training, 20000);
    VERIFY_HELPER(agree(QStringLiteral("training…")));
    QVERIFY(!box->currentText().contains(QStringLiteral(", trained")));
    w.session()->cancelTraining();
    QTRY_VERIFY_WITH_TIMEOUT(!w.session()->isTraining(), 20000);
    // Trained (the Small preset, trained here and now).
    w.session()->setProvisioning(Session::Provisioning::Synchronous);
    QVERIFY(w.session()->setPreset(Session::Preset::Small));
    QCOMPARE(w.session()->modelState(), Session::ModelState::Trained);
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

QTEST_MAIN(TestModelSwitching)
#include "test_model_switching.moc"
