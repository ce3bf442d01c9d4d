#include "steps/step_navigator.h"
#include "views/view_parts.h"

#include "steps/step_item_delegate.h"

#include <QEvent>
#include <QAction>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QSlider>
#include <QStyle>
#include <QTimer>
#include <QToolBar>
#include <QTreeView>
#include <QVBoxLayout>

#include "steps/backward_steps.h"
#include "steps/step_model.h"
#include "steps/step_search.h"
#include "widgets/number_format.h"

namespace {
constexpr int kSpeedScale = 2;  // slider units per step/second: 1 = 0.5 steps/s
}

StepNavigator::StepNavigator(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("stepNavigator"));
    model_ = view_parts::named(new StepModel(this), "stepModel");
    backwardModel_ = view_parts::named(new BackwardStepList(this), "backwardStepList");

    auto mkAction = [this](const QString& name, QStyle::StandardPixmap icon, const QString& text,
                           const QKeySequence& key, const QString& tip) {
        auto* a = new QAction(style()->standardIcon(icon), text, this);
        a->setObjectName(name);
        a->setShortcut(key);
        a->setShortcutContext(Qt::WindowShortcut);
        a->setToolTip(QStringLiteral("%1 <span style='color:gray'>(%2)</span>")
                          .arg(tip, key.toString(QKeySequence::NativeText)));
        a->setStatusTip(tip);
        return a;
    };
    first_ = mkAction(QStringLiteral("actionFirstStep"), QStyle::SP_MediaSkipBackward, tr("&First Step"),
                      QKeySequence(Qt::Key_Home), tr("Go to the first step of the forward pass"));
    previous_ = mkAction(QStringLiteral("actionPreviousStep"), QStyle::SP_MediaSeekBackward, tr("&Previous Step"),
                         QKeySequence(Qt::Key_Left), tr("Go to the previous step"));
    play_ = mkAction(QStringLiteral("actionPlayPause"), QStyle::SP_MediaPlay, tr("P&lay"), QKeySequence(Qt::Key_Space),
                     tr("Play through the steps automatically / pause"));
    play_->setCheckable(true);
    next_ = mkAction(QStringLiteral("actionNextStep"), QStyle::SP_MediaSeekForward, tr("&Next Step"),
                     QKeySequence(Qt::Key_Right), tr("Go to the next step"));
    last_ = mkAction(QStringLiteral("actionLastStep"), QStyle::SP_MediaSkipForward, tr("&Last Step"),
                     QKeySequence(Qt::Key_End), tr("Go to the last step (the predicted tokens and the loss)"));
    connect(first_, &QAction::triggered, this, &StepNavigator::goFirst);
    connect(previous_, &QAction::triggered, this, &StepNavigator::goPrevious);
    connect(next_, &QAction::triggered, this, &StepNavigator::goNext);
    connect(last_, &QAction::triggered, this, &StepNavigator::goLast);
    connect(play_, &QAction::toggled, this, &StepNavigator::setPlaying);
    // The shortcuts work wherever the window has focus (a text field keeps its own keys).
    addActions(navigationActions());

    toolBar_ = view_parts::named(new QToolBar(tr("Steps"), this), "navigatorToolBar");
    toolBar_->setIconSize(QSize(18, 18));
    toolBar_->addActions(navigationActions());

    speed_ = view_parts::named(new QSlider(Qt::Horizontal, this), "playSpeedSlider");
    speed_->setRange(1, 10 * kSpeedScale);
    speed_->setValue(2 * kSpeedScale);
    speed_->setFixedWidth(64);
    speed_->setToolTip(tr("Play speed (steps per second)"));
    speedLabel_ = view_parts::named(new QLabel(this), "playSpeedLabel");
    speedLabel_->setMinimumWidth(QFontMetrics(font()).horizontalAdvance(QStringLiteral(" 10.0/s")));
    speedLabel_->setToolTip(speed_->toolTip());
    actionsSeparator_ = toolBar_->addSeparator();
    auto* speedCaption = new QLabel(tr("Speed "), this);
    speedCaption->setToolTip(speed_->toolTip());
    toolBar_->addWidget(speedCaption);
    toolBar_->addWidget(speed_);
    toolBar_->addWidget(speedLabel_);

    positionLabel_ = view_parts::named(new QLabel(this), "stepPositionLabel");
    positionLabel_->setToolTip(tr("Current step / number of steps in the forward pass"));
    positionLabel_->setAlignment(Qt::AlignRight | Qt::AlignVCenter);

    tree_ = view_parts::named(new QTreeView(this), "stepTree");
    attachModel(model_);
    tree_->setHeaderHidden(true);
    tree_->setUniformRowHeights(true);
    tree_->setSelectionMode(QAbstractItemView::SingleSelection);
    tree_->setEditTriggers(QAbstractItemView::NoEditTriggers);
    tree_->setExpandsOnDoubleClick(true);
    tree_->setAnimated(false);
    tree_->setIconSize(QSize(10, 10));
    tree_->setIndentation(14);
    tree_->setItemDelegate(new StepItemDelegate(tree_));
    tree_->setToolTip(tr("The forward pass, step by step. Click a step to see its tensor."));
    connect(tree_, &QTreeView::clicked, this, &StepNavigator::onClicked);
    for (QAbstractItemModel* m : {static_cast<QAbstractItemModel*>(model_), static_cast<QAbstractItemModel*>(backwardModel_)})
        connect(m, &QAbstractItemModel::modelReset, this, [this, m] {
            if (tree_->model() != m) return;
            tree_->expandToDepth(0);
            selectInTree(current_);
        });

    timer_ = view_parts::named(new QTimer(this), "playTimer");
    connect(timer_, &QTimer::timeout, this, &StepNavigator::onTimer);
    connect(speed_, &QSlider::valueChanged, this, [this](int v) {
        const double sps = double(v) / kSpeedScale;
        timer_->setInterval(int(1000.0 / sps));
        speedLabel_->setText(tr(" %1/s").arg(numfmt::plainDecimals(sps, 1)));
    });
    timer_->setInterval(500);
    speedLabel_->setText(tr(" %1/s").arg(numfmt::plainDecimals(2.0, 1)));

    // The position under the tree: beside the speed it pushed the speed's value behind the
    // toolbar's "»" in a dock 230 px wide (1366 px screens).
    auto* lay = view_parts::makeColumn(this, 2, 0);
    lay->addWidget(toolBar_);
    lay->addWidget(tree_, 1);
    positionLabel_->setContentsMargins(0, 0, 4, 0);
    lay->addWidget(positionLabel_);
    updateActions();
}

void StepNavigator::setActionsInToolBar(bool on) {
    if (on == actionsInToolBar_) return;
    actionsInToolBar_ = on;
    if (on) {
        toolBar_->insertActions(toolBar_->actions().value(0), navigationActions());
        toolBar_->insertAction(toolBar_->actions().value(navigationActions().size()), actionsSeparator_);
    } else {
        for (QAction* a : navigationActions()) toolBar_->removeAction(a);
        toolBar_->removeAction(actionsSeparator_);
    }
}

void StepNavigator::attachModel(QAbstractItemModel* m) {
    if (QItemSelectionModel* old = tree_->selectionModel()) disconnect(old, nullptr, this, nullptr);
    QItemSelectionModel* oldSel = tree_->selectionModel();
    tree_->setModel(m);
    if (oldSel && oldSel != tree_->selectionModel()) oldSel->deleteLater();
    tree_->setRootIsDecorated(m == model_);
    connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this,
            &StepNavigator::onCurrentIndexChanged);
}

QList<StepText> StepNavigator::searchableSteps() const {
    QList<StepText> out;
    const auto trace = model_->trace();
    if (!trace) return out;
    for (const QString& name : order()) {
        const QString forward = BackwardStepList::forwardName(name);
        const stepformer::TraceEntry* f = trace->find(forward.toStdString());
        StepText t;
        t.name = name;
        if (backward_) {
            t.label = BackwardStepList::friendlyLabel(f, name);
        } else if (const stepformer::TraceEntry* e = trace->find(name.toStdString())) {
            t.label = StepModel::friendlyLabel(*e);
        }
        t.location = f ? StepModel::locationText(*f) : StepModel::locationText(forward);
        out << t;
    }
    return out;
}

QStringList StepNavigator::order() const { return backward_ ? backwardModel_->stepOrder() : model_->stepOrder(); }

int StepNavigator::positionOf(const QString& traceName) const {
    if (!backward_) return model_->stepPosition(traceName);
    // Only the gradient names themselves (stepPosition would also accept a forward name).
    return traceName.startsWith(QLatin1String("grad.")) ? backwardModel_->stepPosition(traceName) : -1;
}

bool StepNavigator::setBackward(bool on) {
    if (on == backward_) return true;
    const auto trace = model_->trace();
    if (!trace) return false;
    const QString target = BackwardStepList::counterpartStep(
        *trace, current_, on ? BackwardStepList::Direction::Backward : BackwardStepList::Direction::Forward);
    if (on && backwardModel_->stepCount() == 0) return false;
    backward_ = on;
    attachModel(on ? static_cast<QAbstractItemModel*>(backwardModel_) : static_cast<QAbstractItemModel*>(model_));
    if (!on) tree_->expandToDepth(0);
    const QStringList steps = order();
    const QString land = positionOf(target) >= 0 ? target : steps.value(0);
    current_.clear();
    if (!land.isEmpty())
        setCurrentStep(land);
    else
        updateActions();
    return true;
}

void StepNavigator::setTrace(std::shared_ptr<const stepformer::Trace> trace) {
    const QString previous = current_;
    backwardModel_->setTrace(trace);
    model_->setTrace(std::move(trace));
    if (backward_ && backwardModel_->stepCount() == 0) {  // no backward pass in this trace: forward again
        backward_ = false;
        attachModel(model_);
        tree_->expandToDepth(0);
    }
    if (!previous.isEmpty() && positionOf(previous) >= 0) {
        selectInTree(previous);
        updateActions();
        emit stepChanged(current_);  // same name, new values
        return;
    }
    current_.clear();
    if (stepCount() > 0)
        setCurrentStep(order().front());
    else
        updateActions();
}

int StepNavigator::currentPosition() const { return positionOf(current_); }

int StepNavigator::stepCount() const { return backward_ ? backwardModel_->stepCount() : model_->stepCount(); }

bool StepNavigator::setCurrentStep(const QString& traceName) {
    if (positionOf(traceName) < 0) return false;
    const bool changed = traceName != current_;
    current_ = traceName;
    selectInTree(traceName);
    updateActions();
    if (changed) emit stepChanged(current_);
    return true;
}

void StepNavigator::selectInTree(const QString& traceName) {
    const QModelIndex idx = backward_ ? backwardModel_->indexForStep(traceName) : model_->indexForStep(traceName);
    if (!idx.isValid()) return;
    syncing_ = true;
    for (QModelIndex p = idx.parent(); p.isValid(); p = p.parent()) tree_->expand(p);
    tree_->selectionModel()->setCurrentIndex(idx, QItemSelectionModel::ClearAndSelect);
    // A step that left the view comes back centred, so the next steps are in sight (and stepping
    // scrolls the tree once every half page instead of on every step).
    const QRect row = tree_->visualRect(idx);
    if (!tree_->viewport()->rect().contains(row)) tree_->scrollTo(idx, QAbstractItemView::PositionAtCenter);
    syncing_ = false;
}

void StepNavigator::onCurrentIndexChanged() {
    if (syncing_) return;
    const QModelIndex idx = tree_->currentIndex();
    // Keyboard moves through groups without jumping; steps are followed at once.
    if (idx.data(StepModel::IsStepRole).toBool()) setCurrentStep(idx.data(StepModel::TraceNameRole).toString());
}

void StepNavigator::onClicked(const QModelIndex& index) {
    const QString target = backward_ ? index.data(BackwardStepList::JumpTargetRole).toString()
                                     : model_->stepForIndex(index);
    if (target.isEmpty()) return;
    if (!index.data(StepModel::IsStepRole).toBool()) tree_->expand(index);
    setCurrentStep(target);
}

void StepNavigator::goFirst() {
    if (stepCount() > 0) setCurrentStep(order().front());
}

void StepNavigator::goLast() {
    if (stepCount() > 0) setCurrentStep(order().back());
}

void StepNavigator::goNext() {
    const int p = currentPosition();
    if (p >= 0 && p + 1 < stepCount()) setCurrentStep(order().at(p + 1));
}

void StepNavigator::goPrevious() {
    const int p = currentPosition();
    if (p > 0) setCurrentStep(order().at(p - 1));
}

bool StepNavigator::isPlaying() const { return timer_->isActive(); }

double StepNavigator::playSpeed() const { return double(speed_->value()) / kSpeedScale; }

void StepNavigator::setPlaySpeed(double stepsPerSecond) {
    speed_->setValue(qBound(speed_->minimum(), int(stepsPerSecond * kSpeedScale + 0.5), speed_->maximum()));
}

void StepNavigator::setPlaying(bool playing) {
    if (playing == isPlaying()) {
        updateActions();
        return;
    }
    if (playing) {
        if (stepCount() == 0) {
            updateActions();
            return;
        }
        if (currentPosition() + 1 >= stepCount()) goFirst();  // replay from the start
        timer_->start();
    } else {
        timer_->stop();
    }
    updateActions();
    emit playingChanged(playing);
}

void StepNavigator::togglePlaying() { setPlaying(!isPlaying()); }

void StepNavigator::onTimer() {
    if (currentPosition() + 1 >= stepCount()) {
        setPlaying(false);
        return;
    }
    goNext();
    if (currentPosition() + 1 >= stepCount()) setPlaying(false);
}

void StepNavigator::updateActions() {
    const int p = currentPosition(), n = stepCount();
    first_->setEnabled(p > 0);
    previous_->setEnabled(p > 0);
    next_->setEnabled(p >= 0 && p + 1 < n);
    last_->setEnabled(p >= 0 && p + 1 < n);
    play_->setEnabled(n > 0);
    const bool playing = isPlaying();
    {
        const QSignalBlocker block(play_);
        play_->setChecked(playing);
    }
    // Only on a change: a new icon or text re-lays the toolbar out, and a label whose width
    // changes with the digits re-lays the dock and the window out (measured: whole-window
    // repaints on every step).
    if (playIconShowsPause_ != playing || play_->icon().isNull()) {
        playIconShowsPause_ = playing;
        play_->setIcon(style()->standardIcon(playing ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
        play_->setText(playing ? tr("Pa&use") : tr("P&lay"));
    }
    if (positionWidthFor_ != n) {
        positionWidthFor_ = n;
        const QString widest = tr("Step %1/%2").arg(n).arg(n);
        positionLabel_->setFixedSize(positionLabel_->fontMetrics().horizontalAdvance(widest) + 8,
                                     positionLabel_->sizeHint().height());
    }
    positionLabel_->setText(n > 0 ? tr("Step %1/%2").arg(p + 1).arg(n) : tr("No steps"));
}

void StepNavigator::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    if (e->type() == QEvent::FontChange) {
        positionWidthFor_ = -1;  // measured in the old font
        updateActions();
    }
}
