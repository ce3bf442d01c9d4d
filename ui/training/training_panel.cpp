// TrainingPanel: its controls, tabs and wiring. A run: training_panel_run.cpp; checkpoints:
// training_panel_checkpoints.cpp.
#include "training/training_panel.h"
#include "views/view_parts.h"

#include <algorithm>

#include <QCheckBox>
#include <QEvent>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QResizeEvent>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QSplitter>
#include <QStyle>
#include <QTabWidget>
#include <QVBoxLayout>

#include "training/attention_replay.h"
#include "training/dataset_editor.h"
#include "training/hyperparameter_form.h"
#include "training/loss_chart.h"
#include "training/results_table.h"
#include "widgets/flow_layout.h"

using namespace stepformer;

namespace {
// The panel's scrolled page. A scroll area sizes a page whose layout wraps (the buttons' flow
// row) by heightForWidth, which a layout answers with its preferred height: the panel scrolled,
// nested around the hyperparameters' own scroll bar, in a dock that had room for all of it at its
// minimum. This page answers with its minimum at that width: it scrolls only below that.
class PanelPage : public QWidget {
public:
    using QWidget::QWidget;
    QWidget* flow = nullptr;   // the buttons: more rows when narrow
    QLabel* message = nullptr;  // wraps
    int heightForWidth(int w) const override {
        int h = minimumSizeHint().height();
        const int inner = w - (layout() ? layout()->contentsMargins().left() + layout()->contentsMargins().right() : 0);
        if (flow && flow->hasHeightForWidth()) h += std::max(0, flow->heightForWidth(inner) - flow->minimumSizeHint().height());
        if (message && !message->isHidden()) h += std::max(0, message->heightForWidth(inner) - message->minimumSizeHint().height());
        return h;
    }
};
}  // namespace

TrainingPanel::TrainingPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("trainingPanel"));
    refName_ = tr("the tutorial's");
    controller_ = new TrainingController(this);

    // Everything scrolls inside the panel: in a dock of a laptop-sized window it may get less
    // room than it would like, and its minimum must not make the window grow (issue 14).
    auto* frame = new QVBoxLayout(this);
    frame->setContentsMargins(0, 0, 0, 0);
    auto* page = view_parts::named(new QScrollArea(this), "trainingScroll");
    page->setWidgetResizable(true);
    page->setFrameShape(QFrame::NoFrame);
    frame->addWidget(page);
    auto* content = new PanelPage(page);
    page->setWidget(content);
    auto* outer = view_parts::makeColumn(content, 5, QMargins(8, 4, 8, 4));

    // --- the controls ---
    // Two rows: the buttons (wrapping where the dock is narrow), then the progress bar across
    // the panel, so its summary ("30 epochs × 1 step of 2 sentences = 30 steps") is never cut.
    auto* buttons = new QWidget(content);
    auto* bar = new FlowLayout(buttons, 6, 4);
    bar->setContentsMargins(0, 0, 0, 0);
    auto mk = [&](QPushButton*& b, const QString& text, const char* name, QStyle::StandardPixmap icon, const QString& tip) {
        b = new QPushButton(style()->standardIcon(icon), text, buttons);
        b->setObjectName(QString::fromLatin1(name));
        b->setToolTip(tip);
    };
    mk(start_, tr("Start"), "startButton", QStyle::SP_MediaPlay,
       tr("Train a fresh model with these hyperparameters on the dataset (on a copy: the views keep their model "
          "until the run ends)."));
    mk(pause_, tr("Pause"), "pauseButton", QStyle::SP_MediaPause, tr("Pause after the current step; Resume continues."));
    mk(stop_, tr("Stop"), "stopButton", QStyle::SP_MediaStop, tr("End the run after the current step, keeping its weights."));
    mk(reset_, tr("Reset"), "resetButton", QStyle::SP_BrowserReload,
       tr("Abandon the run and clear the curves, snapshots and results."));
    start_->setDefault(true);
    QFont sf = start_->font();
    sf.setBold(true);
    start_->setFont(sf);
    // The run's length beside Start: the form's epoch count, mirrored (the form is a long scroll).
    runEpochs_ = view_parts::named(new QSpinBox(buttons), "runEpochsSpin");
    runEpochs_->setRange(1, 100000);
    runEpochs_->setToolTip(tr("Passes over the dataset (the same as \"epochs\" in the form)."));
    runEpochs_->setSuffix(tr(" epochs"));
    buildWatchControls(buttons);  // paceCombo, liveViewsToggle
    const QList<QWidget*> row{start_, runEpochs_, paceCombo_, pause_, stop_, reset_, liveToggle_};
    for (QWidget* w : row) bar->addWidget(w);
    outer->addWidget(buttons);
    content->flow = buttons;

    auto* progressRow = new QHBoxLayout;
    progressRow->setSpacing(6);
    progress_ = view_parts::named(new QProgressBar(this), "trainingProgress");
    progress_->setTextVisible(true);
    progress_->setMinimumWidth(120);
    progressRow->addWidget(progress_, 1);
    stateLabel_ = view_parts::named(new QLabel(this), "trainingStateLabel");
    stateLabel_->setAlignment(Qt::AlignCenter);
    stateLabel_->setMinimumWidth(fontMetrics().horizontalAdvance(QStringLiteral("Finished")) + 28);
    progressRow->addWidget(stateLabel_);
    outer->addLayout(progressRow);

    message_ = view_parts::named(new QLabel(this), "trainingMessage");
    message_->setWordWrap(true);
    message_->setTextFormat(Qt::PlainText);
    message_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    message_->hide();
    outer->addWidget(message_);
    content->message = message_;

    // --- left: the hyperparameters and checkpoints ---
    auto* split = new QSplitter(Qt::Horizontal, this);
    split_ = split;
    split->setChildrenCollapsible(false);
    auto* left = new QWidget(split);
    setup_ = left;
    auto* ll = view_parts::makeColumn(left, 4, 0);
    form_ = new HyperparameterForm(left);
    auto* scroll = setupScroll_ = view_parts::named(new QScrollArea(left), "hyperparameterScroll");
    scroll->setWidget(form_);
    scroll->setWidgetResizable(true);
    scroll->setFrameShape(QFrame::NoFrame);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    ll->addWidget(scroll, 1);
    auto* ck = new QHBoxLayout;
    ck->setContentsMargins(6, 0, 6, 0);
    save_ = new QPushButton(style()->standardIcon(QStyle::SP_DialogSaveButton), tr("Save checkpoint…"), left);
    save_->setObjectName(QStringLiteral("saveCheckpointButton"));
    save_->setToolTip(tr("Save the trained weights with their config and optimizer state (.safetensors)."));
    load_ = new QPushButton(style()->standardIcon(QStyle::SP_DialogOpenButton), tr("Resume from…"), left);
    load_->setObjectName(QStringLiteral("loadCheckpointButton"));
    load_->setToolTip(tr("Continue training from a saved checkpoint: its weights, architecture, vocabulary and "
                         "optimizer state."));
    ck->addWidget(save_);
    ck->addWidget(load_);
    ll->addLayout(ck);

    // --- right: dataset, curves, attention, results ---
    tabs_ = view_parts::named(new QTabWidget(split), "trainingTabs");
    dataset_ = new DatasetEditor(tabs_);
    chart_ = new LossChart(tabs_);
    replay_ = new AttentionReplay(tabs_);
    results_ = new ResultsTable(tabs_);
    tabs_->addTab(dataset_, tr("Dataset"));
    tabs_->addTab(chart_, tr("Loss"));
    tabs_->addTab(replay_, tr("Attention replay"));
    tabs_->addTab(results_, tr("Results"));
    tabs_->setCurrentWidget(chart_);

    split->addWidget(left);
    split->addWidget(tabs_);
    split->setStretchFactor(0, 0);
    split->setStretchFactor(1, 1);
    split->setSizes({360, 900});
    outer->addWidget(split, 1);
    sideBySideMargin_ = split->handleWidth() + outer->contentsMargins().left() + outer->contentsMargins().right() + 20;
    fitSetupWidth();
    form_->installEventFilter(this);

    // --- wiring ---
    connect(start_, &QPushButton::clicked, this, [this] { start(); });
    connect(pause_, &QPushButton::clicked, this, [this] {
        if (controller_->state() == State::Paused)
            resume();
        else
            pause();
    });
    connect(stop_, &QPushButton::clicked, this, &TrainingPanel::stop);
    connect(reset_, &QPushButton::clicked, this, &TrainingPanel::reset);
    connect(save_, &QPushButton::clicked, this, &TrainingPanel::saveCheckpointDialog);
    connect(load_, &QPushButton::clicked, this, &TrainingPanel::loadCheckpointDialog);
    runEpochs_->setValue(form_->epochsSpin()->value());
    connect(runEpochs_, &QSpinBox::valueChanged, form_->epochsSpin(), &QSpinBox::setValue);
    connect(form_->epochsSpin(), &QSpinBox::valueChanged, runEpochs_, &QSpinBox::setValue);
    connect(form_, &HyperparameterForm::changed, this, [this] {
        updateControls();
        updateIdleProgress();
    });
    connect(dataset_, &DatasetEditor::changed, this, [this] {
        updateControls();
        updateIdleProgress();
    });
    connect(dataset_, &DatasetEditor::errorOccurred, this, &TrainingPanel::errorOccurred);
    connectWatchControls();

    connect(controller_, &TrainingController::stateChanged, this, &TrainingPanel::onStateChanged);
    connect(controller_, &TrainingController::started, this, &TrainingPanel::onStarted);
    connect(controller_, &TrainingController::stepReported, this, &TrainingPanel::onStep);
    connect(controller_, &TrainingController::epochFinished, this,
            [this](int, std::shared_ptr<const AttentionSnapshot> s) { replay_->addSnapshot(std::move(s)); });
    connect(controller_, &TrainingController::finished, this, &TrainingPanel::onFinished);
    connect(controller_, &TrainingController::liveTraceReady, this, &TrainingPanel::liveTraceReady);
    connect(controller_, &TrainingController::errorOccurred, this, [this](const QString& msg) {
        showMessage(msg, QStringLiteral("error"));
        emit errorOccurred(msg);
    });
    connect(results_, &ResultsTable::resultsReady, this, [this](int ok, int n) {
        if (messageKind_ == QLatin1String("error") || message_->text().isEmpty()) return;
        showMessage(message_->text() + tr("  %1 / %2 sentences translated correctly (see Results).").arg(ok).arg(n),
                    messageKind_);
    });

    onStateChanged(State::Idle);
    updateIdleProgress();
}

TrainingPanel::~TrainingPanel() = default;

// The setup column is as wide as the form asks now: kept from construction, at View › Zoom 150 %
// the form was wider than its column and cut on the right.
void TrainingPanel::fitSetupWidth() {
    setup_->setMinimumWidth(form_->minimumSizeHint().width() + setupScroll_->verticalScrollBar()->sizeHint().width() + 4);
    sideBySideWidth_ = setup_->minimumWidth() + tabs_->minimumSizeHint().width() + sideBySideMargin_;
    placeSetup(width() < sideBySideWidth_);
}

// Whenever the form's layout changes (a font, a preset's rows shown or hidden).
bool TrainingPanel::eventFilter(QObject* watched, QEvent* e) {
    if (watched == form_ && e->type() == QEvent::LayoutRequest && setup_) fitSetupWidth();
    return QWidget::eventFilter(watched, e);
}

void TrainingPanel::resizeEvent(QResizeEvent* e) {
    QWidget::resizeEvent(e);
    placeSetup(width() < sideBySideWidth_);
}

// Narrow (a dock beside the side docks of a laptop-sized window), the hyperparameters become the
// first tab instead of a column: side by side, the panel would scroll sideways and hide the curves.
void TrainingPanel::placeSetup(bool asTab) {
    const int at = tabs_->indexOf(setup_);
    if (asTab == (at >= 0)) return;
    QWidget* current = tabs_->currentWidget();
    if (asTab) {
        tabs_->insertTab(0, setup_, tr("Hyperparameters"));
        tabs_->setTabToolTip(0, tr("The model's size, the optimizer and the training loop (the epochs are also "
                                   "beside Start)"));
    } else {
        tabs_->removeTab(at);
        split_->insertWidget(0, setup_);
        setup_->show();
        split_->setSizes({360, std::max(1, split_->width() - 360)});
    }
    if (current && current != setup_) tabs_->setCurrentWidget(current);
}

TrainingPanel::State TrainingPanel::state() const { return controller_->state(); }
bool TrainingPanel::isTraining() const { return controller_->isActive(); }
QString TrainingPanel::message() const { return message_->isVisible() ? message_->text() : QString(); }

QString TrainingPanel::startBlockedReason() const {
    if (controller_->isActive()) return {};
    QStringList reasons;
    if (!form_->isValid()) reasons << form_->validationMessage().split(QLatin1Char('\n'));
    if (!dataset_->isValid()) reasons << dataset_->validationMessage();
    if (reasons.isEmpty()) return {};
    if (reasons.size() == 1) return tr("Cannot start — %1").arg(reasons.front());
    return tr("Cannot start:") + QStringLiteral("\n• ") + reasons.join(QStringLiteral("\n• "));
}

void TrainingPanel::setReplaySentence(const QString& source, const QString& decoderInput) {
    controller_->setReplaySentence(source, decoderInput);
}

void TrainingPanel::setReferenceConfig(const Config& config, const QString& name) {
    refConfig_ = config;
    refName_ = name;
    if (!resume_) dataset_->setReferenceConfig(config, name, false);
    // A form still on a preset follows the shown model to its own (nanoGPT shown: Start trains a
    // nanoGPT, not the tutorial's model); one the user changed, or a resume's, stays as it is.
    // The preset's pace comes with it unless the user picked one.
    const HyperparameterForm::Preset shown = HyperparameterForm::presetOfArchitecture(config), now = form_->preset();
    if (!resume_ && !isTraining() && now != HyperparameterForm::Preset::Custom &&
        shown != HyperparameterForm::Preset::Custom && shown != now) {
        form_->applyPreset(shown);
        if (const std::optional<Pace> chosen = chosenPace()) setPace(*chosen);
    }
}
