#include "app/main_window.h"
#include "app/desktop_habits.h"
#include "views/view_parts.h"

#include "app/app_style.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QMenu>
#include <QMenuBar>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>

#include "app/dock_layout.h"
#include "app/export.h"
#include "app/file_dialogs.h"
#include "app/device_chooser.h"
#include "app/input_bar.h"
#include "app/model_chooser.h"
#include "app/status_bar.h"
#include "app/unsaved_weights_prompt.h"
#include "app/window_actions.h"
#include "app/window_menus.h"
#include "app/window_settings.h"
#include "architecture/architecture_diagram.h"
#include "explain/device_agreement.h"
#include "explain/explain_panel.h"
#include "stepformer/trace_graph.h"
#include "steps/backward_steps.h"
#include "steps/step_navigator.h"
#include "training/training_panel.h"
#include "views/attention_view.h"
#include "views/decode_view.h"
#include "views/gradient_view.h"
#include "views/loss_view.h"
#include "views/step_view.h"
#include "views/view_table.h"
#include "widgets/number_format.h"
#include "widgets/wheel_guard.h"

using stepformer::Role;

MainWindow::MainWindow(QWidget* parent) : MainWindow(Options{}, parent) {}

MainWindow::MainWindow(const Options& options, QWidget* parent) : QMainWindow(parent), options_(options) {
    AppStyle::install();  // flat scroll bars: see app_style.h
    WheelGuard::install();  // the wheel scrolls forms past unfocused value controls
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Stepformer"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    session_ = view_parts::named(new Session(this), "session");
    session_->setProvisioning(options_.provisioning);
    if (!options_.cacheDir.isEmpty()) session_->setCacheDir(options_.cacheDir);

    buildViews();
    buildDocks();
    buildActions();
    buildMenus();
    habits_ = new DesktopHabits(this, actions_->findStep);
    status_ = new StatusBar(session_, actions_->cancelTrain, this);
    status_->setDeviceMenu(device_->menu());
    setStatusBar(status_);
    connectSession();
    resize(WindowSettings::defaultSize());
    defaultState_ = saveState();
    stateRestored_ = WindowSettings::restore(*this, options_);
}

MainWindow::~MainWindow() = default;

// ----- construction ---------------------------------------------------------------------------

void MainWindow::buildViews() {
    tabs_ = view_parts::named(new QTabWidget(this), "viewTabs");
    tabs_->setDocumentMode(true);
    for (const ViewInfo& v : viewTable()) views_ << v.make(tabs_);
    decodeView_ = qobject_cast<DecodeView*>(viewWidget(QStringLiteral("decode")));
    lossView_ = qobject_cast<LossView*>(viewWidget(QStringLiteral("loss")));
    gradientView_ = qobject_cast<GradientView*>(viewWidget(QStringLiteral("gradients")));
    // Each view sits in a scroll area: on a small screen the window may be narrower than a view's
    // minimum (the views are wide), and scrolls instead of growing off-screen.
    for (int i = 0; i < views_.size(); ++i) {
        auto* area = new QScrollArea(tabs_);
        area->setObjectName(views_[i]->objectName() + QStringLiteral("Scroll"));
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        area->setWidget(views_[i]);
        const ViewInfo& v = viewTable()[size_t(i)];
        tabs_->addTab(area, viewTitle(v));
        tabs_->setTabToolTip(i, viewToolTip(v));
    }
    setCentralWidget(tabs_);
    connect(tabs_, &QTabWidget::currentChanged, this, [this](int i) {
        if (i >= 0 && i < viewActs_.size()) viewActs_[i]->setChecked(true);
        if (navigator_ && session_) applyStepToView(currentViewName(), currentStep());
        emit viewChanged(currentViewName());
    });
}

void MainWindow::buildDocks() {
    auto mkDock = [this](const QString& name, const QString& title, QWidget* w) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(name);
        d->setWidget(w);
        d->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable |
                       QDockWidget::DockWidgetClosable);
        return d;
    };
    navigator_ = new StepNavigator(this);
    navigatorDock_ = mkDock(QStringLiteral("navigatorDock"), tr("Forward Pass"), navigator_);
    navigator_->setMinimumWidth(230);
    diagram_ = new ArchitectureDiagram(this);
    diagramDock_ = mkDock(QStringLiteral("architectureDock"), tr("Architecture"), diagram_);
    explain_ = new ExplainPanel(this);
    explain_->setMinimumWidth(280);
    explainDock_ = mkDock(QStringLiteral("explainDock"), tr("Explanation"), explain_);
    input_ = new InputBar(this);
    inputDock_ = mkDock(QStringLiteral("inputDock"), tr("Sentences"), input_);
    inputDock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    trainingPanel_ = new TrainingPanel(this);
    trainingDock_ = mkDock(QStringLiteral("trainingDock"), tr("Train"), trainingPanel_);

    dockLayout_ = new DockLayout(this, tabs_, {navigatorDock_, explainDock_, diagramDock_, inputDock_, trainingDock_});
    dockLayout_->applyDefault();  // places them; sized again for the screen the window shows on
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    // Dock sizes only settle once the window has its real size, on its real screen.
    if (!shownOnce_ && !stateRestored_) QTimer::singleShot(0, dockLayout_, &DockLayout::arrangeForScreen);
    // An error from the start (a weights file given on the command line) opens over the window.
    if (!shownOnce_) QTimer::singleShot(0, status_, &StatusBar::openPendingError);
    shownOnce_ = true;
}

void MainWindow::buildActions() {
    actions_ = std::make_unique<WindowActions>(this, tabs_, viewNames());
    viewActs_ = actions_->views;
    directionAct_ = actions_->direction;
    const WindowActions& a = *actions_;
    connect(a.exportCsv, &QAction::triggered, this,
            [this] { FileDialogs::exportTensor(*this, QStringLiteral("csv")); });
    connect(a.exportNpy, &QAction::triggered, this,
            [this] { FileDialogs::exportTensor(*this, QStringLiteral("npy")); });
    connect(a.exportPng, &QAction::triggered, this, [this] { FileDialogs::exportView(*this, QStringLiteral("png")); });
    connect(a.exportSvg, &QAction::triggered, this, [this] { FileDialogs::exportView(*this, QStringLiteral("svg")); });
    connect(a.quit, &QAction::triggered, this, &QWidget::close);
    connect(a.follow, &QAction::toggled, this, [this](bool on) {
        if (!on) return;
        followedStep_.clear();  // turned on: the view that suits the step shown, now
        onStepChanged(currentStep());
    });
    connect(a.restoreLayout, &QAction::triggered, this, &MainWindow::restoreDefaultLayout);
    connect(a.saveTrained, &QAction::triggered, trainingPanel_, &TrainingPanel::saveCheckpointDialog);
    connect(a.direction, &QAction::toggled, this, &MainWindow::setBackwardDirection);
    model_ = new ModelChooser(session_, this, a, [this] { onModelChanged(); });
    device_ = new DeviceChooser(session_, this, [this](const QString& title, const QString& message) {
        showError(title, message);
    });
}

void MainWindow::buildMenus() {
    model_->setPresetBox(WindowMenus::build(
        this, *actions_, {navigatorDock_, explainDock_, diagramDock_, inputDock_, trainingDock_}, trainingDock_,
        navigator_, session_));
    if (auto* modelMenu = menuBar()->findChild<QMenu*>(QStringLiteral("menuModel"))) {
        modelMenu->addSeparator();
        modelMenu->addMenu(device_->menu());
    }
}

void MainWindow::connectSession() {
    connect(session_, &Session::traceChanged, this, &MainWindow::onTraceChanged);
    connect(session_, &Session::modelChanged, this, &MainWindow::onModelChanged);
    connect(session_, &Session::inputRejected, input_, &InputBar::showError);
    connect(session_, &Session::inputAccepted, this, &MainWindow::onInputAccepted);
    connect(session_, &Session::sentencesReset, input_, &InputBar::setSentences);
    connect(session_, &Session::errorOccurred, this,
            [this](const QString& msg) { showError(tr("Stepformer"), msg); });
    connect(session_, &Session::warningRaised, this,
            [this](const QString& msg) { showError(tr("Stepformer"), msg); });
    // The status bar follows the training itself.
    connect(session_, &Session::trainingFailed, this,
            [this](const QString& msg) { showError(tr("Training failed"), msg); });
    // The Train panel computes where the views do; a GPU lost under it sends the app to the CPU.
    trainingPanel_->controller()->setBackend(&session_->backend());
    connect(session_, &Session::computeDeviceChanged, this,
            [this] { trainingPanel_->controller()->setBackend(&session_->backend()); });
    connect(trainingPanel_->controller(), &TrainingController::deviceLost, session_, &Session::handleDeviceLost);
    connect(session_, &Session::deviceLost, this, [this](const QString& msg) { showError(tr("GPU lost"), msg); });

    connect(input_, &InputBar::sentencesEdited, session_, &Session::requestSentences);
    connect(input_, &InputBar::resetRequested, this, [this] {
        input_->setSentences(Session::defaultSource(), Session::defaultTarget());
        session_->requestSentences(Session::defaultSource(), Session::defaultTarget());
    });
    connect(navigator_, &StepNavigator::stepChanged, this, &MainWindow::onStepChanged);

    // The training panel: its weights go to the step-through views; it flags dataset rows the
    // shown model cannot read and replays the shown sentence.
    // The run computes the shown sentences' pass on its trained weights on its worker (the forward
    // and backward pass of a tutorial-size model, ~150 ms the GUI thread would otherwise stall for
    // when the weights arrive); the Session shows it if the sentences are still those.
    auto trainedPass = std::make_shared<PassSlot>();
    const auto setEpilogue = [this, trainedPass] {
        const QString source = session_->source(), target = session_->target();
        trainingPanel_->setRunEpilogue([trainedPass, source, target](const stepformer::Transformer& model,
                                                                     stepformer::TrainStatus status) {
            if (status == stepformer::TrainStatus::Diverged) return;  // its weights are not handed over
            trainedPass->put(Session::tryComputePass(model, source, target));
        });
    };
    setEpilogue();
    connect(trainingPanel_, &TrainingPanel::modelTrained, this,
            [this, trainedPass](const stepformer::Config& config, std::shared_ptr<const stepformer::ParamSet> params) {
                session_->installTrainedModel(config, std::move(params), trainedPass->take());
                updateSaveTrainedAction();
            });
    connect(session_, &Session::modelChanged, this,
            [this] { trainingPanel_->setReferenceConfig(session_->config(), tr("the current model's")); });
    connect(session_, &Session::inputAccepted, this, [this, setEpilogue] {
        trainingPanel_->setReplaySentence(session_->source(), session_->target());
        setEpilogue();
    });
    // Live views: the run computes the shown sentences' forward pass on its weights now and then.
    connect(session_, &Session::liveTraceChanged, this, &MainWindow::onLiveTraceChanged);
    connect(trainingPanel_, &TrainingPanel::liveTraceReady, this, &MainWindow::onLiveTrace);
    connect(trainingPanel_, &TrainingPanel::liveViewsToggled, this, [this](bool on) {
        if (!on) endLiveTrace();
    });
    // A run that ends hands its weights over first (modelTrained, which ends the live trace);
    // one that diverged, stopped before its first step or was reset goes back to the model's.
    connect(trainingPanel_, &TrainingPanel::stateChanged, this, [this](TrainingController::State s) {
        if (s != TrainingController::State::Running && s != TrainingController::State::Paused) endLiveTrace();
    });
    connect(trainingPanel_, &TrainingPanel::stateChanged, this, &MainWindow::updateSaveTrainedAction);
    connect(trainingPanel_, &TrainingPanel::checkpointSaved, this, &MainWindow::updateSaveTrainedAction);
    connect(trainingPanel_, &TrainingPanel::errorOccurred, this,
            [this](const QString& msg) { statusBar()->showMessage(msg.section(QLatin1Char('\n'), 0, 0), 10000); });
    updateSaveTrainedAction();
    connect(diagram_, &ArchitectureDiagram::stepRequested, this, &MainWindow::setCurrentStep);

    // The explanation and the diagram describe what the visible view shows: after the navigator's
    // step and a tab switch (these run after onStepChanged / applyStepToView, connected earlier)
    // and when a view's picker shows another entry (StepView::shownStepChanged).
    const auto explainShown = [this] {
        auto* v = qobject_cast<StepView*>(currentViewWidget());
        QString shown = v ? v->shownStep() : QString();
        const auto trace = session_->trace();
        if (shown.isEmpty() || !trace || !trace->contains(shown.toStdString())) shown = currentStep();
        if (shown.isEmpty() || shown == explain_->currentStep()) return;
        explain_->setStep(shown);
        diagram_->setStep(shown);
    };
    connect(navigator_, &StepNavigator::stepChanged, this, explainShown);
    connect(tabs_, &QTabWidget::currentChanged, this, explainShown);
    for (StepView* v : views_)
        connect(v, &StepView::shownStepChanged, this, [this, v, explainShown] {
            if (v == currentViewWidget()) explainShown();
        });
}

void MainWindow::saveSettings() const {
    if (options_.saveSettings) WindowSettings::save(*this);
}

bool MainWindow::confirmDiscardTrainedWeights() {
    return UnsavedWeightsPrompt::confirmDiscard(this, trainingPanel_);
}

QAction* MainWindow::saveTrainedAction() const { return actions_->saveTrained; }

void MainWindow::updateSaveTrainedAction() {
    if (actions_) actions_->saveTrained->setEnabled(trainingPanel_->hasTrainedWeights());
    if (model_) model_->showModel();  // "Trained in the app" can be chosen while there are weights
}

void MainWindow::setBackwardDirection(bool on) {
    if (on && session_->isLive()) endLiveTrace();  // a live trace has no backward pass
    if (on != navigator_->isBackward() && !navigator_->setBackward(on)) {
        if (isVisible())
            statusBar()->showMessage(tr("No backward pass: the loss needs a target that starts with %1.")
                                         .arg(QString::fromStdString(session_->config().bos)),
                                     6000);
    }
    const QSignalBlocker block(directionAct_);
    directionAct_->setChecked(navigator_->isBackward());
    navigatorDock_->setWindowTitle(navigator_->isBackward() ? tr("Backward Pass") : tr("Forward Pass"));
}

void MainWindow::closeEvent(QCloseEvent* e) {
    if (!confirmDiscardTrainedWeights()) {
        e->ignore();
        return;
    }
    if (trainingPanel_->isTraining()) trainingPanel_->stop();
    navigator_->setPlaying(false);
    saveSettings();
    QMainWindow::closeEvent(e);
}

void MainWindow::restoreDefaultLayout() {
    restoreState(defaultState_);  // the toolbar
    dockLayout_->applyDefault();  // the docks, as suits the window's current screen
}

// ----- views and steps ------------------------------------------------------------------------

QStringList MainWindow::viewNames() {
    QStringList l;
    for (const ViewInfo& v : viewTable()) l << QLatin1String(v.name);
    l << QStringLiteral("backward");  // = gradients
    return l;
}

QString MainWindow::currentViewName() const {
    const int i = tabs_->currentIndex();
    return i >= 0 && i < int(viewTable().size()) ? QLatin1String(viewTable()[size_t(i)].name) : QString();
}

bool MainWindow::setCurrentView(const QString& name) {
    const int i = viewIndex(name);
    if (i < 0) return false;
    tabs_->setCurrentIndex(i);
    return true;
}

QWidget* MainWindow::viewWidget(const QString& name) const { return views_.value(viewIndex(name)); }

QWidget* MainWindow::currentViewWidget() const { return views_.value(tabs_->currentIndex()); }

bool MainWindow::followsStep() const { return actions_->follow->isChecked(); }

void MainWindow::setFollowStep(bool on) { actions_->follow->setChecked(on); }

bool MainWindow::setCurrentStep(const QString& traceName) {
    if (navigator_->setCurrentStep(traceName)) return true;
    // A step of the other direction: switch the navigator over, then go there.
    const auto trace = session_->trace();
    const auto* e = trace ? trace->find(traceName.toStdString()) : nullptr;
    if (!e) return false;
    setBackwardDirection(e->role == Role::Gradient);
    return navigator_->setCurrentStep(traceName);
}

QString MainWindow::currentStep() const { return navigator_->currentStep(); }

QString MainWindow::viewForStep(const QString& traceName) const {
    const auto trace = session_->trace();
    const auto* e = trace ? trace->find(traceName.toStdString()) : nullptr;
    return e ? QLatin1String(viewTable()[size_t(homeView(e->role))].name) : QString();
}

void MainWindow::changeEvent(QEvent* e) {
    QMainWindow::changeEvent(e);
    // A new language or theme (View › Appearance): the texts the views compose (some carry colours)
    // are made again.
    if ((e->type() != QEvent::LanguageChange && e->type() != QEvent::PaletteChange) || retranslating_) return;
    retranslating_ = true;
    QTimer::singleShot(0, this, [this] {
        retranslating_ = false;
        const QString step = currentStep();
        const QString view = currentViewName();
        onTraceChanged();
        if (!step.isEmpty()) setCurrentStep(step);
        setCurrentView(view);
    });
}

void MainWindow::onTraceChanged() {
    const auto trace = session_->trace();
    if (!session_->isLive()) status_->showLive({});
    trainingPanel_->setLiveInput(session_->source(), session_->target());
    if (!trace) return;
    appliedSteps_.clear();  // every view must take the new trace's step again
    const auto& cfg = session_->config();
    for (StepView* v : views_) v->setTrace(trace, cfg);
    lossView_->setTargets(session_->targetIds());
    gradientView_->setParameterGradients(session_->params(), session_->gradients(), session_->optimizer());
    diagram_->setTrace(trace, cfg);
    explain_->setTrace(trace, cfg);
    // Computed on the GPU: the explanation can set it beside the CPU's numbers, on demand.
    if (auto replay = session_->cpuReplay())
        explain_->agreement()->setTrace(trace, session_->computeDeviceLabel(), std::move(replay));
    navigator_->setTrace(trace);  // emits stepChanged: the views follow
    if (directionAct_->isChecked() != navigator_->isBackward()) setBackwardDirection(navigator_->isBackward());
    onInputAccepted();            // the expected output and the loss of the new trace
}

// Only the visible view follows the step; a view catches up when it is shown. Rebuilding every
// hidden view's heatmaps on each step cost ~80 ms per step at the tutorial's size.
void MainWindow::applyStepToView(const QString& view, const QString& traceName) {
    if (traceName.isEmpty() || appliedSteps_.value(view) == traceName) return;
    appliedSteps_.insert(view, traceName);
    StepView* v = views_.value(viewIndex(view));
    const QString step = v ? v->stepFor(traceName) : QString();
    if (!step.isEmpty()) v->setStep(step);
}

void MainWindow::onStepChanged(const QString& traceName) {
    // Follow Step picks a view when the step changes; the same step again (new sentences, a new
    // trace) leaves the tab where the user put it.
    if (followsStep() && traceName != followedStep_) {
        const QString v = viewForStep(traceName);
        if (!v.isEmpty()) setCurrentView(v);
    }
    followedStep_ = traceName;
    applyStepToView(currentViewName(), traceName);
    diagram_->setStep(traceName);
    explain_->setStep(traceName);
    const auto trace = session_->trace();
    const auto* e = trace ? trace->find(traceName.toStdString()) : nullptr;
    status_->showStep(navigator_->currentPosition() + 1, navigator_->stepCount(), traceName, e);
    const bool haveTensor = e != nullptr;
    actions_->exportCsv->setEnabled(haveTensor);
    actions_->exportNpy->setEnabled(haveTensor);
}

void MainWindow::onModelChanged() {
    const auto& c = session_->config();
    input_->setVocabularies(session_->sourceVocabulary(), session_->targetVocabulary(), c.src_len, c.tgt_len);
    model_->showModel();
    status_->showModel();
    setWindowTitle(model_->windowTitle());
    decodeView_->setModel(session_->model());
}

void MainWindow::onInputAccepted() {
    if (decodeView_->source() != session_->decodeInput()) decodeView_->setSource(session_->decodeInput());
    QString detail;
    const QString expected = session_->expectedOutput();
    const auto trace = session_->trace();
    if (!expected.isEmpty()) {
        detail = (session_->config().reads_source() ? tr("expected output (dec_outputs): %1")
                                                    : tr("targets (each next word): %1"))
                     .arg(expected.toHtmlEscaped());
        if (const auto* l = trace ? stepformer::graph::find(*trace, {stepformer::Stack::None, stepformer::BlockKind::Loss, -1},
                                                            Role::Loss)
                                  : nullptr)
            if (!l->value.data.empty()) detail += tr(" · loss %1").arg(numfmt::plainDecimals(l->value.data[0], 4));
    } else {
        detail = tr("no loss: the target does not start with %1").arg(QString::fromStdString(session_->config().bos));
    }
    input_->showAccepted(detail);
}

void MainWindow::showError(const QString& title, const QString& message) { status_->showError(title, message); }

// ----- export ---------------------------------------------------------------------------------

bool MainWindow::exportCurrentTensor(const QString& path, QString* error) {
    const auto trace = session_->trace();
    const auto* e = trace ? trace->find(currentStep().toStdString()) : nullptr;
    if (!e) {
        if (error) *error = tr("There is no current step to export.");
        return false;
    }
    if (path.endsWith(QLatin1String(".npy"), Qt::CaseInsensitive)) return exportTensorNpy(e->value, path, error);
    return exportEntryCsv(*trace, *e, &session_->config(), path, error);
}

bool MainWindow::exportCurrentView(const QString& path, QString* error) {
    QWidget* w = currentViewWidget();
    if (!w) {
        if (error) *error = tr("There is no view to export.");
        return false;
    }
    if (path.endsWith(QLatin1String(".svg"), Qt::CaseInsensitive)) return exportWidgetSvg(w, path, error);
    return exportWidgetPng(w, path, error);
}
