// The step navigator: the forward pass as a tree (StepModel) with a toolbar to walk it —
// first / previous / play-pause / next / last (Home, Left, Space, Right, End) and a play speed.
// Clicking a node jumps there (a group jumps to its first step). stepChanged(name) is emitted
// whenever the current step changes, by any means.
#pragma once

#include <memory>

#include <QString>
#include <QWidget>

#include "stepformer/trace.h"

class QAction;
class QLabel;
class QSlider;
class QTimer;
class QToolBar;
class QTreeView;
class StepModel;
struct StepText;
class BackwardStepList;
class QAbstractItemModel;

class StepNavigator : public QWidget {
    Q_OBJECT
public:
    explicit StepNavigator(QWidget* parent = nullptr);

    // Keeps the current step when the new trace has it, else goes to the first step.
    void setTrace(std::shared_ptr<const stepformer::Trace> trace);

    StepModel* model() const { return model_; }
    // Backward direction: the tree shows the grad.* steps in the order the backward pass computed
    // them (BackwardStepList) instead of the forward tree. Switching lands on the counterpart of
    // the current step (BackwardStepList::counterpartStep). False when the trace has no step in
    // that direction (nothing changes).
    bool setBackward(bool on);
    bool isBackward() const { return backward_; }
    BackwardStepList* backwardModel() const { return backwardModel_; }
    QTreeView* treeView() const { return tree_; }
    QToolBar* toolBar() const { return toolBar_; }

    QString currentStep() const { return current_; }
    int currentPosition() const;  // 0-based; -1 when there is no step
    int stepCount() const;
    // Returns false (and changes nothing) for a name that is not a step.
    bool setCurrentStep(const QString& traceName);
    // The steps of the current direction with their labels and places, for step search.
    QList<StepText> searchableSteps() const;

    // The navigation actions, for the main window's toolbar and menu. Their shortcuts are
    // window-wide.
    QAction* firstAction() const { return first_; }
    QAction* previousAction() const { return previous_; }
    QAction* playAction() const { return play_; }
    QAction* nextAction() const { return next_; }
    QAction* lastAction() const { return last_; }
    QList<QAction*> navigationActions() const { return {first_, previous_, play_, next_, last_}; }

    // The toolbar above the tree holds the actions, the play speed and the position; a window
    // that shows the actions on its own toolbar can leave them out here (the speed stays).
    void setActionsInToolBar(bool on);

    bool isPlaying() const;
    // Play speed in steps per second (0.5 .. 10).
    double playSpeed() const;
    void setPlaySpeed(double stepsPerSecond);

public slots:
    void goFirst();
    void goPrevious();
    void goNext();
    void goLast();
    void setPlaying(bool playing);
    void togglePlaying();

signals:
    void stepChanged(const QString& traceName);
    void playingChanged(bool playing);

protected:
    void changeEvent(QEvent* e) override;  // a new font (the presentation zoom): the position label's width

private:
    void onCurrentIndexChanged();
    void onClicked(const class QModelIndex& index);
    void selectInTree(const QString& traceName);
    void updateActions();
    void onTimer();
    QStringList order() const;
    int positionOf(const QString& traceName) const;
    void attachModel(QAbstractItemModel* m);

    StepModel* model_ = nullptr;
    BackwardStepList* backwardModel_ = nullptr;
    bool backward_ = false;
    QTreeView* tree_ = nullptr;
    QToolBar* toolBar_ = nullptr;
    QLabel* positionLabel_ = nullptr;
    QSlider* speed_ = nullptr;
    QLabel* speedLabel_ = nullptr;
    QTimer* timer_ = nullptr;
    QAction *first_ = nullptr, *previous_ = nullptr, *play_ = nullptr, *next_ = nullptr, *last_ = nullptr;
    QAction* actionsSeparator_ = nullptr;
    QString current_;
    bool syncing_ = false;
    bool actionsInToolBar_ = true;
    bool playIconShowsPause_ = false;
    int positionWidthFor_ = -1;  // the step count the position label is sized for
};
