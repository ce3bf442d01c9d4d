#include "app/main_window.h"

#include "app/app_style.h"

#include <cmath>

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QCloseEvent>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QPainterPath>
#include <QProgressBar>
#include <QSettings>
#include <QStandardPaths>
#include <QStatusBar>
#include <QStyle>
#include <QTabWidget>
#include <QToolBar>
#include <QTimer>
#include <QScreen>
#include <QScrollArea>
#include <QToolButton>
#include <QGuiApplication>
#include <QPushButton>

#include "steps/backward_steps.h"
#include "views/decode_view.h"
#include "explain/explain_panel.h"
#include "views/gradient_view.h"
#include "views/loss_view.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"
#include "training/training_panel.h"
#include "app/export.h"
#include "app/input_bar.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "architecture/architecture_diagram.h"
#include "views/step_view.h"
#include "views/view_table.h"

#include <QTreeView>

using stepformer::Role;

// A tiny loss curve for the status bar while the model trains.
class LossSparkline : public QWidget {
public:
    explicit LossSparkline(QWidget* parent = nullptr) : QWidget(parent) {
        setObjectName(QStringLiteral("lossSparkline"));
        setFixedSize(120, 20);
        setToolTip(tr("Training loss per step"));
    }
    void clear() {
        losses_.clear();
        update();
    }
    void add(double loss) {
        if (std::isfinite(loss)) losses_.push_back(loss);
        update();
    }
    int count() const { return int(losses_.size()); }

protected:
    void paintEvent(QPaintEvent*) override {
        QPainter p(this);
        p.setRenderHint(QPainter::Antialiasing);
        const QRectF r = QRectF(rect()).adjusted(1, 2, -1, -2);
        p.setPen(QPen(palette().color(QPalette::Mid), 1));
        p.drawLine(r.bottomLeft(), r.bottomRight());
        if (losses_.size() < 2) return;
        double hi = losses_.front(), lo = losses_.front();
        for (double v : losses_) {
            hi = std::max(hi, v);
            lo = std::min(lo, v);
        }
        if (hi - lo < 1e-12) hi = lo + 1;
        QPainterPath path;
        for (size_t i = 0; i < losses_.size(); ++i) {
            const QPointF pt(r.left() + r.width() * double(i) / double(losses_.size() - 1),
                             r.bottom() - r.height() * (losses_[i] - lo) / (hi - lo));
            if (i == 0)
                path.moveTo(pt);
            else
                path.lineTo(pt);
        }
        p.setPen(QPen(QColor(0xe1, 0x57, 0x59), 1.5));
        p.drawPath(path);
    }

private:
    std::vector<double> losses_;
};

namespace {
// The views' names, in tab order, for the View menu's actions (buildActions).
const QList<const char*> kViewNames = [] {
    QList<const char*> names;
    for (const ViewInfo& v : viewTable()) names << v.name;
    return names;
}();
const int kViewCount = int(kViewNames.size());
}

MainWindow::MainWindow(QWidget* parent) : MainWindow(Options{}, parent) {}

MainWindow::MainWindow(const Options& options, QWidget* parent) : QMainWindow(parent), options_(options) {
    AppStyle::install();  // flat scroll bars: see app_style.h
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
    buildToolBar();
    buildStatusBar();
    connectSession();
    // 1440 x 900, or less on a smaller screen.
    QSize size(1440, 900);
    if (const QScreen* screen = QGuiApplication::primaryScreen()) {
        const QRect avail = screen->availableGeometry();
        if (avail.width() > 640 && avail.height() > 480)
            size = size.boundedTo(QSize(avail.width() * 95 / 100, avail.height() * 92 / 100));
    }
    resize(size);
    defaultState_ = saveState();
    restoreSettings();
}

MainWindow::~MainWindow() = default;

// ----- construction ---------------------------------------------------------------------------

void MainWindow::buildViews() {
    tabs_ = new QTabWidget(this);
    tabs_->setObjectName(QStringLiteral("viewTabs"));
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
    openAct_ = new QAction(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open Weights…"), this);
    openAct_->setObjectName(QStringLiteral("actionOpenWeights"));
    openAct_->setShortcut(QKeySequence::Open);
    openAct_->setToolTip(tr("Open a weights file: a Stepformer checkpoint or a state_dict saved from the "
                            "tutorial's PyTorch code (safetensors) (Ctrl+O)"));
    openAct_->setStatusTip(openAct_->toolTip());
    connect(openAct_, &QAction::triggered, this, &MainWindow::openWeightsDialog);

    auto mkExport = [this](const QString& name, const QString& text, const QString& tip) {
        auto* a = new QAction(text, this);
        a->setObjectName(name);
        a->setToolTip(tip);
        a->setStatusTip(tip);
        return a;
    };
    exportCsvAct_ = mkExport(QStringLiteral("actionExportCsv"), tr("Export Tensor as &CSV…"),
                             tr("Save the current step's tensor as comma-separated values"));
    exportNpyAct_ = mkExport(QStringLiteral("actionExportNpy"), tr("Export Tensor as &NumPy…"),
                             tr("Save the current step's tensor as a NumPy .npy file (np.load reads it)"));
    exportPngAct_ = mkExport(QStringLiteral("actionExportPng"), tr("Export View as &PNG…"),
                             tr("Save the current view as an image"));
    exportSvgAct_ = mkExport(QStringLiteral("actionExportSvg"), tr("Export View as &SVG…"),
                             tr("Save the current view as vector graphics"));
    exportCsvAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    exportPngAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    exportPngAct_->setIcon(style()->standardIcon(QStyle::SP_DialogSaveButton));
    connect(exportCsvAct_, &QAction::triggered, this, [this] { exportTensorDialog(QStringLiteral("csv")); });
    connect(exportNpyAct_, &QAction::triggered, this, [this] { exportTensorDialog(QStringLiteral("npy")); });
    connect(exportPngAct_, &QAction::triggered, this, [this] { exportViewDialog(QStringLiteral("png")); });
    connect(exportSvgAct_, &QAction::triggered, this, [this] { exportViewDialog(QStringLiteral("svg")); });

    quitAct_ = new QAction(tr("&Quit"), this);
    quitAct_->setObjectName(QStringLiteral("actionQuit"));
    quitAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quitAct_->setMenuRole(QAction::QuitRole);
    connect(quitAct_, &QAction::triggered, this, &QWidget::close);

    viewGroup_ = new QActionGroup(this);
    viewGroup_->setExclusive(true);
    const QStringList titles{tr("&Tensor"),  tr("&Attention"), tr("&Masks"),    tr("&Positional Encoding"),
                             tr("&Decode"), tr("&Loss"),      tr("&Gradients")};
    for (int i = 0; i < kViewCount; ++i) {
        auto* a = new QAction(titles[i], this);
        a->setObjectName(QStringLiteral("actionView_%1").arg(QLatin1String(kViewNames[i])));
        a->setCheckable(true);
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        a->setToolTip(tabs_->tabToolTip(i));
        a->setData(QLatin1String(kViewNames[i]));
        viewGroup_->addAction(a);
        connect(a, &QAction::triggered, this, [this, i] { tabs_->setCurrentIndex(i); });
        viewActs_ << a;
    }
    viewActs_[0]->setChecked(true);

    followAct_ = new QAction(tr("&Follow Step"), this);
    followAct_->setObjectName(QStringLiteral("actionFollowStep"));
    followAct_->setCheckable(true);
    followAct_->setChecked(true);
    followAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_F));
    followAct_->setToolTip(tr("Switch to the view that suits each step: masks for a mask and the masked scores, "
                              "attention for the softmax, the positional encoding for PE, the tensor otherwise"));
    followAct_->setStatusTip(followAct_->toolTip());
    connect(followAct_, &QAction::toggled, this, [this](bool on) {
        if (on) onStepChanged(currentStep());
    });

    restoreLayoutAct_ = new QAction(tr("&Restore Default Layout"), this);
    restoreLayoutAct_->setObjectName(QStringLiteral("actionRestoreLayout"));
    restoreLayoutAct_->setToolTip(tr("Put the docks back where they were at first start"));
    connect(restoreLayoutAct_, &QAction::triggered, this, &MainWindow::restoreDefaultLayout);

    presetGroup_ = new QActionGroup(this);
    presetGroup_->setExclusive(true);
    for (Session::Preset p : Session::allPresets()) {
        auto* a = new QAction(Session::presetTitle(p), this);
        a->setObjectName(QStringLiteral("actionPreset_%1").arg(Session::presetKey(p)));
        a->setCheckable(true);
        a->setData(static_cast<int>(p));
        a->setToolTip(Session::presetToolTip(p));
        a->setStatusTip(Session::presetToolTip(p));
        presetGroup_->addAction(a);
        connect(a, &QAction::triggered, this, [this, p] { choosePreset(p); });
    }

    retrainAct_ = new QAction(tr("&Train Again"), this);
    retrainAct_->setObjectName(QStringLiteral("actionRetrain"));
    retrainAct_->setToolTip(tr("Forget the cached trained model of this preset and train it again"));
    retrainAct_->setStatusTip(retrainAct_->toolTip());
    connect(retrainAct_, &QAction::triggered, this, &MainWindow::retrainPreset);

    cancelTrainAct_ = new QAction(style()->standardIcon(QStyle::SP_DialogCancelButton), tr("&Cancel Training"), this);
    cancelTrainAct_->setObjectName(QStringLiteral("actionCancelTraining"));
    cancelTrainAct_->setToolTip(tr("Stop training and keep showing the untrained model"));
    cancelTrainAct_->setEnabled(false);
    connect(cancelTrainAct_, &QAction::triggered, session_, &Session::cancelTraining);

    saveTrainedAct_ = new QAction(tr("&Save Trained Checkpoint…"), this);
    saveTrainedAct_->setObjectName(QStringLiteral("actionSaveTrainedCheckpoint"));
    saveTrainedAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    saveTrainedAct_->setToolTip(tr("Save the weights, config and optimizer state of the last run of the Train "
                                   "panel (Ctrl+S)"));
    saveTrainedAct_->setStatusTip(saveTrainedAct_->toolTip());
    connect(saveTrainedAct_, &QAction::triggered, trainingPanel_, &TrainingPanel::saveCheckpointDialog);

    directionAct_ = new QAction(tr("&Backward"), this);
    directionAct_->setObjectName(QStringLiteral("directionToggle"));
    directionAct_->setCheckable(true);
    directionAct_->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    directionAct_->setToolTip(tr("Walk back through the backward pass: the gradients in the order they were "
                                 "computed, loss first (Ctrl+B)"));
    directionAct_->setStatusTip(directionAct_->toolTip());
    connect(directionAct_, &QAction::toggled, this, &MainWindow::setBackwardDirection);
}

void MainWindow::buildMenus() {
    QMenu* file = menuBar()->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("menuFile"));
    file->addAction(openAct_);
    file->addAction(saveTrainedAct_);
    file->addSeparator();
    file->addAction(exportCsvAct_);
    file->addAction(exportNpyAct_);
    file->addAction(exportPngAct_);
    file->addAction(exportSvgAct_);
    file->addSeparator();
    file->addAction(quitAct_);

    QMenu* view = menuBar()->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("menuView"));
    view->addActions(viewActs_);
    view->addSeparator();
    view->addAction(followAct_);
    view->addSeparator();
    for (QDockWidget* d : {navigatorDock_, explainDock_, diagramDock_, inputDock_, trainingDock_}) {
        QAction* t = d->toggleViewAction();
        t->setObjectName(QStringLiteral("actionToggle_%1").arg(d->objectName()));
        t->setToolTip(tr("Show or hide the %1 panel").arg(d->windowTitle()));
        if (d == trainingDock_) t->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
        view->addAction(t);
    }
    view->addSeparator();
    view->addAction(restoreLayoutAct_);

    QMenu* nav = menuBar()->addMenu(tr("&Step"));
    nav->setObjectName(QStringLiteral("menuStep"));
    nav->addActions(navigator_->navigationActions());
    nav->addSeparator();
    nav->addAction(directionAct_);

    QMenu* model = menuBar()->addMenu(tr("&Model"));
    model->setObjectName(QStringLiteral("menuModel"));
    model->setToolTipsVisible(true);
    model->addActions(presetGroup_->actions());
    model->addSeparator();
    model->addAction(retrainAct_);
    model->addAction(cancelTrainAct_);

    QMenu* help = menuBar()->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("menuHelp"));
    auto* keys = help->addAction(tr("&Keyboard Shortcuts"), this, &MainWindow::showShortcuts);
    keys->setObjectName(QStringLiteral("actionShortcuts"));
    keys->setShortcut(QKeySequence::HelpContents);
    auto* about = help->addAction(tr("&About Stepformer"), this, &MainWindow::showAbout);
    about->setObjectName(QStringLiteral("actionAbout"));
    about->setMenuRole(QAction::AboutRole);
    auto* aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);
}

void MainWindow::buildToolBar() {
    QToolBar* tb = addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setIconSize(QSize(20, 20));
    tb->addAction(openAct_);
    tb->addAction(exportPngAct_);
    tb->addSeparator();
    tb->addActions(navigator_->navigationActions());
    tb->addAction(directionAct_);
    tb->addSeparator();
    auto* modelLabel = new QLabel(tr(" Model: "), tb);
    tb->addWidget(modelLabel);
    presetCombo_ = new QComboBox(tb);
    presetCombo_->setObjectName(QStringLiteral("presetCombo"));
    presetCombo_->setToolTip(tr("The model to step through"));
    presetCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (Session::Preset p : Session::allPresets()) {
        presetCombo_->addItem(Session::presetTitle(p), static_cast<int>(p));
        presetCombo_->setItemData(presetCombo_->count() - 1, Session::presetToolTip(p), Qt::ToolTipRole);
    }
    presetCombo_->addItem(tr("From file…"), -1);
    presetCombo_->setItemData(presetCombo_->count() - 1, tr("Weights opened with File › Open Weights"),
                              Qt::ToolTipRole);
    connect(presetCombo_, qOverload<int>(&QComboBox::activated), this, [this](int i) {
        const int p = presetCombo_->itemData(i).toInt();
        if (p < 0)
            openWeightsDialog();
        else
            choosePreset(static_cast<Session::Preset>(p));
    });
    tb->addWidget(presetCombo_);
    navigator_->setActionsInToolBar(false);  // they live on the main toolbar here; speed and position stay
}

void MainWindow::buildStatusBar() {
    modelLabel_ = new QLabel(this);
    modelLabel_->setObjectName(QStringLiteral("modelLabel"));
    stepLabel_ = new QLabel(this);
    stepLabel_->setObjectName(QStringLiteral("stepLabel"));
    stepLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    // Wide enough for most steps' text, so stepping does not re-lay the status bar out.
    const QString longStep = QString::fromStdString(stepformer::names::entry(
        {stepformer::Stack::Decoder, stepformer::BlockKind::CrossAttention, 5}, "masked_scores"));
    stepLabel_->setMinimumWidth(stepLabel_->fontMetrics().horizontalAdvance(
        QStringLiteral("Step 888/888 · %1 · [8, 8, 8, 8]").arg(longStep)));

    trainingBox_ = new QWidget(this);
    trainingBox_->setObjectName(QStringLiteral("trainingBox"));
    auto* lay = new QHBoxLayout(trainingBox_);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->setSpacing(6);
    auto* caption = new QLabel(tr("Training:"), trainingBox_);
    progress_ = new QProgressBar(trainingBox_);
    progress_->setObjectName(QStringLiteral("trainingProgress"));
    progress_->setFixedWidth(190);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("step %v / %m"));
    progress_->setToolTip(tr("Training the model on the tutorial's two sentences (once; the result is cached)"));
    sparkline_ = new LossSparkline(trainingBox_);
    lossLabel_ = new QLabel(trainingBox_);
    lossLabel_->setObjectName(QStringLiteral("lossLabel"));
    lossLabel_->setMinimumWidth(QFontMetrics(font()).horizontalAdvance(QStringLiteral("loss 0.000000")));
    cancelButton_ = new QToolButton(trainingBox_);
    cancelButton_->setObjectName(QStringLiteral("cancelTrainingButton"));
    cancelButton_->setDefaultAction(cancelTrainAct_);
    cancelButton_->setAutoRaise(true);
    lay->addWidget(caption);
    lay->addWidget(progress_);
    lay->addWidget(sparkline_);
    lay->addWidget(lossLabel_);
    lay->addWidget(cancelButton_);
    trainingBox_->setVisible(false);

    statusBar()->setObjectName(QStringLiteral("statusBar"));
    statusBar()->addWidget(modelLabel_, 1);
    statusBar()->addPermanentWidget(trainingBox_);
    statusBar()->addPermanentWidget(stepLabel_);
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
    connect(session_, &Session::trainingStarted, this, &MainWindow::onTrainingStarted);
    connect(session_, &Session::trainingProgress, this, &MainWindow::onTrainingProgress);
    connect(session_, &Session::trainingFinished, this, [this] {
        onTrainingEnded();
        if (isVisible())
            statusBar()->showMessage(tr("Training finished: now showing the trained model (cached for the next start)."),
                                     8000);
    });
    connect(session_, &Session::trainingFailed, this, [this](const QString& msg) {
        onTrainingEnded();
        showError(tr("Training failed"), msg);
    });

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

void MainWindow::restoreSettings() {
    QSettings s;
    std::optional<Session::Preset> preset = options_.preset;
    QString src = Session::defaultSource(), tgt = Session::defaultTarget();
    QString view = QStringLiteral("tensor"), step;
    if (options_.restoreSettings) {
        restoreGeometry(s.value(QStringLiteral("window/geometry")).toByteArray());
        stateRestored_ = restoreState(s.value(QStringLiteral("window/state")).toByteArray());
        if (!preset) preset = Session::presetFromKey(s.value(QStringLiteral("model/preset")).toString());
        src = s.value(QStringLiteral("input/source"), src).toString();
        tgt = s.value(QStringLiteral("input/target"), tgt).toString();
        view = s.value(QStringLiteral("view/current"), view).toString();
        step = s.value(QStringLiteral("navigator/step")).toString();
        setFollowStep(s.value(QStringLiteral("view/followStep"), true).toBool());
        navigator_->setPlaySpeed(s.value(QStringLiteral("navigator/speed"), 2.0).toDouble());
    }
    // The sentences first, so the model computes its trace only once.
    input_->setSentences(src, tgt);
    if (!session_->setSentences(src, tgt)) {
        input_->setSentences(Session::defaultSource(), Session::defaultTarget());
        session_->setSentences(Session::defaultSource(), Session::defaultTarget());
    }
    bool loaded = false;
    if (!options_.weightsPath.isEmpty()) loaded = session_->openWeights(options_.weightsPath);
    if (!loaded) session_->setPreset(preset.value_or(Session::Preset::Tutorial));
    input_->setSentences(session_->source(), session_->target());

    const bool follow = followsStep();
    setFollowStep(false);
    setCurrentView(view);
    if (!step.isEmpty()) setCurrentStep(step);
    setFollowStep(follow);
    // The arrow keys step through the forward pass from the start (a text field would take them).
    navigator_->treeView()->setFocus(Qt::OtherFocusReason);
}

void MainWindow::saveSettings() const {
    if (!options_.saveSettings) return;
    QSettings s;
    s.setValue(QStringLiteral("window/geometry"), saveGeometry());
    s.setValue(QStringLiteral("window/state"), saveState());
    s.setValue(QStringLiteral("input/source"), session_->source());
    s.setValue(QStringLiteral("input/target"), session_->target());
    if (session_->modelState() != Session::ModelState::FromFile)
        s.setValue(QStringLiteral("model/preset"), Session::presetKey(session_->preset()));
    s.setValue(QStringLiteral("view/current"), currentViewName());
    s.setValue(QStringLiteral("view/followStep"), followsStep());
    s.setValue(QStringLiteral("navigator/step"), currentStep());
    s.setValue(QStringLiteral("navigator/speed"), navigator_->playSpeed());
}

bool MainWindow::confirmDiscardTrainedWeights() {
    if (!trainingPanel_->hasUnsavedWeights()) return true;
    if (QGuiApplication::platformName() == QLatin1String("offscreen") &&
        qEnvironmentVariableIsSet("STEPFORMER_NO_CLOSE_PROMPT"))
        return true;
    QMessageBox box(QMessageBox::Question, tr("Unsaved trained weights"),
                    tr("The model trained in the Train panel has not been saved. Save it as a checkpoint "
                       "before closing?"),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, this);
    box.setObjectName(QStringLiteral("unsavedWeightsBox"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        trainingPanel_->saveCheckpointDialog();
        return !trainingPanel_->hasUnsavedWeights();  // the save dialog was cancelled or failed: stay
    case QMessageBox::Discard: return true;
    default: return false;
    }
}

void MainWindow::updateSaveTrainedAction() {
    if (saveTrainedAct_) saveTrainedAct_->setEnabled(trainingPanel_->hasTrainedWeights());
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

bool MainWindow::followsStep() const { return followAct_->isChecked(); }

void MainWindow::setFollowStep(bool on) { followAct_->setChecked(on); }

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

void MainWindow::onTraceChanged() {
    const auto trace = session_->trace();
    if (!trace) return;
    appliedSteps_.clear();  // every view must take the new trace's step again
    const auto& cfg = session_->config();
    for (StepView* v : views_) v->setTrace(trace, cfg);
    lossView_->setTargets(session_->targetIds());
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
    StepView* v = views_.value(viewIndex(view));
    const QString step = v ? v->stepFor(traceName) : QString();
    if (!step.isEmpty()) v->setStep(step);
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
    stepLabel_->setText(e ? tr("Step %1/%2 · %3 · %4")
                                .arg(navigator_->currentPosition() + 1)
                                .arg(navigator_->stepCount())
                                .arg(traceName, StepModel::shapeText(*e))
                          : QString());
    const bool haveTensor = e != nullptr;
    exportCsvAct_->setEnabled(haveTensor);
    exportNpyAct_->setEnabled(haveTensor);
}

void MainWindow::onModelChanged() {
    const auto& c = session_->config();
    QStringList src, tgt;
    input_->setVocabularies(session_->sourceVocabulary(), session_->targetVocabulary(), c.src_len, c.tgt_len);
    const bool fromFile = session_->modelState() == Session::ModelState::FromFile;
    for (QAction* a : presetGroup_->actions())
        a->setChecked(!fromFile && a->data().toInt() == static_cast<int>(session_->preset()));
    {
        const QSignalBlocker block(presetCombo_);
        presetCombo_->setCurrentIndex(fromFile ? presetCombo_->count() - 1
                                               : presetCombo_->findData(static_cast<int>(session_->preset())));
    }
    modelLabel_->setText(tr("d_model %1 · %2 layers · %3 heads · %4")
                             .arg(c.d_model)
                             .arg(c.n_layers)
                             .arg(c.n_heads)
                             .arg(session_->modelStateText()));
    modelLabel_->setToolTip(session_->modelDescription());
    retrainAct_->setEnabled(!fromFile && session_->preset() != Session::Preset::Untrained);
    cancelTrainAct_->setEnabled(session_->isTraining());
    setWindowTitle(fromFile ? tr("Stepformer — %1").arg(session_->modelDescription())
                            : tr("Stepformer — %1 model (%2)")
                                  .arg(Session::presetKey(session_->preset()), session_->modelStateText()));
    if (!session_->isTraining()) trainingBox_->setVisible(false);
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
            if (!l->value.data.empty()) detail += tr(" · loss %1").arg(double(l->value.data[0]), 0, 'f', 4);
    } else {
        detail = tr("no loss: the target does not start with %1").arg(QString::fromStdString(session_->config().bos));
    }
    input_->showAccepted(detail);
}

void MainWindow::onTrainingStarted(int total) {
    sparkline_->clear();
    progress_->setRange(0, total);
    progress_->setValue(0);
    lossLabel_->clear();
    trainingBox_->setVisible(true);
    cancelTrainAct_->setEnabled(true);
    if (isVisible())
        statusBar()->showMessage(tr("Training the %1 model on the tutorial's sentences; the untrained model is shown "
                                "meanwhile.")
                                 .arg(Session::presetKey(session_->preset())),
                             6000);
}

void MainWindow::onTrainingProgress(int step, int total, double loss) {
    if (progress_->maximum() != total) progress_->setMaximum(total);
    progress_->setValue(step);
    sparkline_->add(loss);
    lossLabel_->setText(tr("loss %1").arg(loss, 0, 'f', 6));
}

void MainWindow::onTrainingEnded() {
    trainingBox_->setVisible(false);
    cancelTrainAct_->setEnabled(false);
}

void MainWindow::showError(const QString& title, const QString& message) {
    statusBar()->showMessage(message.section(QLatin1Char('\n'), 0, 0), 10000);
    if (errorBox_) errorBox_->close();
    // Non-modal: never blocks the event loop (tests, --screenshot), still impossible to miss.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, this);
    box->setObjectName(QStringLiteral("errorMessageBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    errorBox_ = box;
    if (isVisible()) box->open();
}

// ----- model ----------------------------------------------------------------------------------

void MainWindow::choosePreset(Session::Preset p) {
    if (p == session_->preset() && session_->modelState() != Session::ModelState::FromFile) return;
    QApplication::setOverrideCursor(Qt::WaitCursor);
    session_->setPreset(p);
    QApplication::restoreOverrideCursor();
}

void MainWindow::retrainPreset() {
    const Session::Preset p = session_->preset();
    const QString path = session_->cachedModelPath(p);
    if (QFileInfo::exists(path) && !QFile::remove(path)) {
        showError(tr("Train again"), tr("Could not remove the cached model %1.").arg(QDir::toNativeSeparators(path)));
        return;
    }
    session_->setPreset(p);
}

void MainWindow::openWeightsDialog() {
    QSettings s;
    const QString dir = s.value(QStringLiteral("files/weightsDir"),
                                QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                            .toString();
    const QString path = QFileDialog::getOpenFileName(
        this, tr("Open Weights"), dir, tr("Safetensors weights (*.safetensors);;All files (*)"));
    if (path.isEmpty()) {
        onModelChanged();  // put the preset box back
        return;
    }
    s.setValue(QStringLiteral("files/weightsDir"), QFileInfo(path).absolutePath());
    QApplication::setOverrideCursor(Qt::WaitCursor);
    const bool ok = session_->openWeights(path);
    QApplication::restoreOverrideCursor();
    if (ok) statusBar()->showMessage(tr("Opened %1").arg(QDir::toNativeSeparators(path)), 6000);
    onModelChanged();
}

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

void MainWindow::exportTensorDialog(const QString& suffix) {
    if (currentStep().isEmpty()) return;
    QSettings s;
    const QString dir = s.value(QStringLiteral("files/exportDir"),
                                QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation))
                            .toString();
    const QString filter = suffix == QLatin1String("npy") ? tr("NumPy array (*.npy)") : tr("CSV (*.csv)");
    QString path = QFileDialog::getSaveFileName(this, tr("Export Tensor"),
                                                QDir(dir).filePath(currentStep() + QLatin1Char('.') + suffix), filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
    s.setValue(QStringLiteral("files/exportDir"), QFileInfo(path).absolutePath());
    QString err;
    if (exportCurrentTensor(path, &err))
        statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 6000);
    else
        showError(tr("Export failed"), err);
}

void MainWindow::exportViewDialog(const QString& suffix) {
    QSettings s;
    const QString dir = s.value(QStringLiteral("files/exportDir"),
                                QStandardPaths::writableLocation(QStandardPaths::PicturesLocation))
                            .toString();
    const QString filter = suffix == QLatin1String("svg") ? tr("SVG image (*.svg)") : tr("PNG image (*.png)");
    const QString base = currentViewName() + QLatin1Char('-') + currentStep() + QLatin1Char('.') + suffix;
    QString path = QFileDialog::getSaveFileName(this, tr("Export View"), QDir(dir).filePath(base), filter);
    if (path.isEmpty()) return;
    if (QFileInfo(path).suffix().isEmpty()) path += QLatin1Char('.') + suffix;
    s.setValue(QStringLiteral("files/exportDir"), QFileInfo(path).absolutePath());
    QString err;
    if (exportCurrentView(path, &err))
        statusBar()->showMessage(tr("Saved %1").arg(QDir::toNativeSeparators(path)), 6000);
    else
        showError(tr("Export failed"), err);
}

// ----- help -----------------------------------------------------------------------------------

void MainWindow::showShortcuts() {
    QString rows;
    auto row = [&rows](const QString& key, const QString& what) {
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>&nbsp;&nbsp;%2</td></tr>").arg(key.toHtmlEscaped(), what);
    };
    row(tr("→ / ←"), tr("next / previous step"));
    row(tr("Space"), tr("play / pause"));
    row(tr("Home / End"), tr("first / last step"));
    row(tr("Ctrl+1 … Ctrl+7"), tr("tensor, attention, masks, positional-encoding, decode, loss, gradients view"));
    row(tr("Ctrl+B"), tr("step forward / backward (through the gradients)"));
    row(tr("Ctrl+T"), tr("show the Train panel"));
    row(tr("Ctrl+S"), tr("save the trained checkpoint"));
    row(tr("Ctrl+F"), tr("follow step: pick the view that suits each step"));
    row(tr("Ctrl+O"), tr("open weights"));
    row(tr("Ctrl+Shift+S"), tr("export the view as PNG"));
    row(tr("Ctrl+Shift+C"), tr("export the tensor as CSV"));
    row(tr("Ctrl+Space"), tr("in a sentence field: list the vocabulary"));
    row(tr("Ctrl+Q"), tr("quit"));
    auto* box = new QMessageBox(QMessageBox::Information, tr("Keyboard Shortcuts"),
                                QStringLiteral("<table>%1</table>").arg(rows), QMessageBox::Ok, this);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void MainWindow::showAbout() {
    QMessageBox::about(this, tr("About Stepformer"),
                       tr("<h3>Stepformer %1</h3>"
                          "<p>Step through the forward pass of the classic PyTorch encoder-decoder Transformer "
                          "tutorial and see every intermediate tensor: embeddings, positional encoding, masks, "
                          "Q/K/V, attention scores and weights, Add &amp; Norm, the feed-forward network and the "
                          "output probabilities.</p>"
                          "<p>The default model is trained on the tutorial's two sentences on first start and "
                          "cached in <tt>%2</tt>.</p>")
                           .arg(QApplication::applicationVersion(),
                                QDir::toNativeSeparators(session_->cacheDir()).toHtmlEscaped()));
}
