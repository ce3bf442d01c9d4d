#include "app/main_window.h"

#include "app/app_style.h"

#include <QAction>
#include <QCloseEvent>
#include <QDockWidget>
#include <QScrollArea>
#include <QTabWidget>
#include <QTimer>

#include "app/export.h"
#include "app/file_dialogs.h"
#include "app/input_bar.h"
#include "app/model_chooser.h"
#include "app/status_bar.h"
#include "app/unsaved_weights_prompt.h"
#include "app/window_actions.h"
#include "app/window_menus.h"
#include "app/window_settings.h"
#include "architecture/architecture_diagram.h"
#include "explain/explain_panel.h"
#include "stepformer/trace_graph.h"
#include "steps/backward_steps.h"
#include "steps/step_navigator.h"
#include "training/training_panel.h"
#include "views/attention_view.h"
#include "views/decode_view.h"
#include "views/gradient_view.h"
#include "views/loss_view.h"
#include "views/mask_view.h"
#include "views/pe_view.h"
#include "views/tensor_view.h"
#include "widgets/number_format.h"
#include "widgets/wheel_guard.h"

using stepformer::Role;

namespace {
const char* kViewNames[] = {"tensor", "attention", "masks", "pe", "decode", "loss", "gradients"};
constexpr int kViewCount = int(sizeof(kViewNames) / sizeof(kViewNames[0]));
// Another name for a view (the command line's --view backward).
QString canonicalView(const QString& name) {
    const QString n = name.trimmed().toLower();
    return n == QLatin1String("backward") ? QStringLiteral("gradients") : n;
}
}

MainWindow::MainWindow(QWidget* parent) : MainWindow(Options{}, parent) {}

MainWindow::MainWindow(const Options& options, QWidget* parent) : QMainWindow(parent), options_(options) {
    AppStyle::install();  // flat scroll bars: see app_style.h
    WheelGuard::install();  // the wheel scrolls forms past unfocused value controls
    setObjectName(QStringLiteral("mainWindow"));
    setWindowTitle(tr("Stepformer"));
    setDockOptions(QMainWindow::AnimatedDocks | QMainWindow::AllowTabbedDocks | QMainWindow::AllowNestedDocks);
    session_ = new Session(this);
    session_->setObjectName(QStringLiteral("session"));
    session_->setProvisioning(options_.provisioning);
    if (!options_.cacheDir.isEmpty()) session_->setCacheDir(options_.cacheDir);

    buildViews();
    buildDocks();
    buildActions();
    buildMenus();
    status_ = new StatusBar(session_, actions_->cancelTrain, this);
    setStatusBar(status_);
    connectSession();
    resize(WindowSettings::defaultSize());
    defaultState_ = saveState();
    stateRestored_ = WindowSettings::restore(*this, options_);
}

MainWindow::~MainWindow() = default;

// ----- construction ---------------------------------------------------------------------------

void MainWindow::buildViews() {
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("viewTabs"));
    tabs_->setDocumentMode(true);
    tensorView_ = new TensorView(tabs_);
    attentionView_ = new AttentionView(tabs_);
    maskView_ = new MaskView(tabs_);
    peView_ = new PositionalEncodingView(tabs_);
    decodeView_ = new DecodeView(tabs_);
    decodeView_->setObjectName(QStringLiteral("decodeView"));
    lossView_ = new LossView(tabs_);
    lossView_->setObjectName(QStringLiteral("lossView"));
    gradientView_ = new GradientView(tabs_);
    gradientView_->setObjectName(QStringLiteral("gradientView"));
    // Each view sits in a scroll area: on a small screen the window may be narrower than a view's
    // minimum (the views are wide), and scrolls instead of growing off-screen.
    auto wrap = [this](QWidget* view) {
        auto* area = new QScrollArea(tabs_);
        area->setObjectName(view->objectName() + QStringLiteral("Scroll"));
        area->setWidgetResizable(true);
        area->setFrameShape(QFrame::NoFrame);
        area->setWidget(view);
        views_ << view;
        return area;
    };
    tabs_->addTab(wrap(tensorView_), tr("Tensor"));
    tabs_->addTab(wrap(attentionView_), tr("Attention"));
    tabs_->addTab(wrap(maskView_), tr("Masks"));
    tabs_->addTab(wrap(peView_), tr("Positional Encoding"));
    tabs_->addTab(wrap(decodeView_), tr("Decode"));
    tabs_->addTab(wrap(lossView_), tr("Loss"));
    tabs_->addTab(wrap(gradientView_), tr("Gradients"));
    tabs_->setTabToolTip(0, tr("The current step's tensor as a heatmap, with the tutorial's axis names (Ctrl+1)"));
    tabs_->setTabToolTip(1, tr("Attention weights: which key each query looks at, per head (Ctrl+2)"));
    tabs_->setTabToolTip(2, tr("The pad and subsequence masks (Ctrl+3)"));
    tabs_->setTabToolTip(3, tr("The sinusoidal positional-encoding table and its sum with the embeddings (Ctrl+4)"));
    tabs_->setTabToolTip(4, tr("Greedy decoding, one token per step, with the probabilities and attention (Ctrl+5)"));
    tabs_->setTabToolTip(5, tr("The loss position by position: −log p of each expected token and their mean (Ctrl+6)"));
    tabs_->setTabToolTip(6, tr("The backward pass: each tensor beside its gradient, a weight, its gradient and the "
                               "optimizer's update (Ctrl+7)"));
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
    addDockWidget(Qt::LeftDockWidgetArea, navigatorDock_);

    diagram_ = new ArchitectureDiagram(this);
    diagramDock_ = mkDock(QStringLiteral("architectureDock"), tr("Architecture"), diagram_);
    addDockWidget(Qt::LeftDockWidgetArea, diagramDock_);
    splitDockWidget(navigatorDock_, diagramDock_, Qt::Vertical);

    explain_ = new ExplainPanel(this);
    explain_->setMinimumWidth(280);
    explainDock_ = mkDock(QStringLiteral("explainDock"), tr("Explanation"), explain_);
    addDockWidget(Qt::RightDockWidgetArea, explainDock_);

    input_ = new InputBar(this);
    inputDock_ = mkDock(QStringLiteral("inputDock"), tr("Sentences"), input_);
    inputDock_->setFeatures(QDockWidget::DockWidgetMovable | QDockWidget::DockWidgetFloatable);
    addDockWidget(Qt::TopDockWidgetArea, inputDock_);

    trainingPanel_ = new TrainingPanel(this);
    trainingDock_ = mkDock(QStringLiteral("trainingDock"), tr("Train"), trainingPanel_);
    addDockWidget(Qt::BottomDockWidgetArea, trainingDock_);
    trainingDock_->hide();  // View › Train (Ctrl+T) shows it

    applyDefaultDockSizes();
}

void MainWindow::applyDefaultDockSizes() {
    resizeDocks({navigatorDock_, explainDock_}, {280, 350}, Qt::Horizontal);
    resizeDocks({navigatorDock_, diagramDock_}, {500, 340}, Qt::Vertical);
}

void MainWindow::showEvent(QShowEvent* e) {
    QMainWindow::showEvent(e);
    // Dock sizes only settle once the window has its real size.
    if (!shownOnce_ && !stateRestored_) QTimer::singleShot(0, this, &MainWindow::applyDefaultDockSizes);
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
        if (on) onStepChanged(currentStep());
    });
    connect(a.restoreLayout, &QAction::triggered, this, &MainWindow::restoreDefaultLayout);
    connect(a.saveTrained, &QAction::triggered, trainingPanel_, &TrainingPanel::saveCheckpointDialog);
    connect(a.direction, &QAction::toggled, this, &MainWindow::setBackwardDirection);
    model_ = new ModelChooser(session_, this, a, [this] { onModelChanged(); });
}

void MainWindow::buildMenus() {
    model_->setPresetBox(WindowMenus::build(
        this, *actions_, {navigatorDock_, explainDock_, diagramDock_, inputDock_, trainingDock_}, trainingDock_,
        navigator_, session_));
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

    connect(input_, &InputBar::sentencesEdited, session_, &Session::setSentences);
    connect(input_, &InputBar::resetRequested, this, [this] {
        input_->setSentences(Session::defaultSource(), Session::defaultTarget());
        session_->setSentences(Session::defaultSource(), Session::defaultTarget());
    });
    connect(navigator_, &StepNavigator::stepChanged, this, &MainWindow::onStepChanged);

    // The training panel: its weights go to the step-through views; it flags dataset rows the
    // shown model cannot read and replays the shown sentence.
    connect(trainingPanel_, &TrainingPanel::modelTrained, this,
            [this](const stepformer::Config& config, std::shared_ptr<const stepformer::ParamSet> params) {
                session_->installTrainedModel(config, std::move(params));
                updateSaveTrainedAction();
            });
    connect(session_, &Session::modelChanged, this,
            [this] { trainingPanel_->setReferenceConfig(session_->config(), tr("the current model's")); });
    connect(session_, &Session::inputAccepted, this,
            [this] { trainingPanel_->setReplaySentence(session_->source(), session_->target()); });
    connect(trainingPanel_, &TrainingPanel::stateChanged, this, &MainWindow::updateSaveTrainedAction);
    connect(trainingPanel_, &TrainingPanel::checkpointSaved, this, &MainWindow::updateSaveTrainedAction);
    connect(trainingPanel_, &TrainingPanel::errorOccurred, this,
            [this](const QString& msg) { statusBar()->showMessage(msg.section(QLatin1Char('\n'), 0, 0), 10000); });
    updateSaveTrainedAction();
    connect(diagram_, &ArchitectureDiagram::stepRequested, this, &MainWindow::setCurrentStep);
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
}

void MainWindow::setBackwardDirection(bool on) {
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
    restoreState(defaultState_);
    for (QDockWidget* d : {navigatorDock_, explainDock_, diagramDock_, inputDock_}) {
        d->setFloating(false);
        d->show();
    }
    trainingDock_->setFloating(false);
    applyDefaultDockSizes();
}

// ----- views and steps ------------------------------------------------------------------------

QStringList MainWindow::viewNames() {
    QStringList l;
    for (const char* n : kViewNames) l << QLatin1String(n);
    l << QStringLiteral("backward");  // = gradients
    return l;
}

QString MainWindow::currentViewName() const {
    const int i = tabs_->currentIndex();
    return i >= 0 && i < kViewCount ? QLatin1String(kViewNames[i]) : QString();
}

bool MainWindow::setCurrentView(const QString& name) {
    const int i = viewNames().indexOf(canonicalView(name));
    if (i < 0 || i >= kViewCount) return false;
    tabs_->setCurrentIndex(i);
    return true;
}

QWidget* MainWindow::viewWidget(const QString& name) const {
    const int i = viewNames().indexOf(canonicalView(name));
    return i < 0 ? nullptr : views_.value(i);
}

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
    if (!e) return {};
    switch (e->role) {
    case Role::Gradient: return QStringLiteral("gradients");
    case Role::Loss:
    case Role::LossPerToken: return QStringLiteral("loss");
    case Role::PadMask:
    case Role::SubsequenceMask:
    case Role::CombinedMask:
    case Role::MaskedScores: return QStringLiteral("masks");
    case Role::PositionalTable:
    case Role::PositionalAdd: return QStringLiteral("pe");
    case Role::Softmax: return QStringLiteral("attention");
    default: return QStringLiteral("tensor");
    }
}

void MainWindow::onTraceChanged() {
    const auto trace = session_->trace();
    if (!trace) return;
    appliedSteps_.clear();  // every view must take the new trace's step again
    const auto& cfg = session_->config();
    tensorView_->setTrace(trace, cfg);
    attentionView_->setTrace(trace, cfg);
    maskView_->setTrace(trace, cfg);
    peView_->setTrace(trace, cfg);
    lossView_->setTrace(trace, cfg, session_->targetIds());
    gradientView_->setTrace(trace, cfg);
    gradientView_->setParameterGradients(session_->params(), session_->gradients(), session_->optimizer());
    diagram_->setTrace(trace, cfg);
    explain_->setTrace(trace, cfg);
    navigator_->setTrace(trace);  // emits stepChanged: the views follow
    if (directionAct_->isChecked() != navigator_->isBackward()) setBackwardDirection(navigator_->isBackward());
    onInputAccepted();            // the expected output and the loss of the new trace
}

// Only the visible view follows the step; a view catches up when it is shown. Rebuilding every
// hidden view's heatmaps on each step cost ~80 ms per step at the tutorial's size.
void MainWindow::applyStepToView(const QString& view, const QString& traceName) {
    if (traceName.isEmpty() || appliedSteps_.value(view) == traceName) return;
    appliedSteps_.insert(view, traceName);
    if (view == QLatin1String("tensor")) {
        tensorView_->setStep(traceName);
    } else if (view == QLatin1String("attention")) {
        attentionView_->setStep(traceName);
    } else if (view == QLatin1String("masks")) {
        maskView_->setStep(traceName);
    } else if (view == QLatin1String("pe")) {
        peView_->setStep(traceName);
    } else if (view == QLatin1String("gradients") || view == QLatin1String("backward")) {
        // The gradients view follows a grad.* step, and a forward step whose gradient is traced.
        const auto t = session_->trace();
        const QString grad = BackwardStepList::gradientName(traceName);
        if (t && t->contains(grad.toStdString())) gradientView_->setStep(grad);
    }
}

void MainWindow::onStepChanged(const QString& traceName) {
    if (followsStep()) {
        const QString v = viewForStep(traceName);
        if (!v.isEmpty()) setCurrentView(v);
    }
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
    const bool fromFile = session_->modelState() == Session::ModelState::FromFile;
    setWindowTitle(fromFile ? tr("Stepformer — %1").arg(session_->modelDescription())
                            : tr("Stepformer — %1 model (%2)")
                                  .arg(Session::presetKey(session_->preset()), session_->modelStateText()));
    decodeView_->setModel(session_->model());
}

void MainWindow::onInputAccepted() {
    if (decodeView_->source() != session_->source()) decodeView_->setSource(session_->source());
    QString detail;
    const QString expected = session_->expectedOutput();
    const auto trace = session_->trace();
    if (!expected.isEmpty()) {
        detail = tr("expected output (dec_outputs): %1").arg(expected.toHtmlEscaped());
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
    return exportTensorCsv(e->value, path, error);
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
