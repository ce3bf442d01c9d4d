// The main window composes the widgets and computes nothing: a Session holds the model and the
// trace; the step navigator (left dock) picks a step; the central tabs show it as a tensor, an
// attention map, a mask or the positional encoding; the explain panel (right dock) says what it
// is; the architecture diagram (dock) shows where it is; the input bar (top dock) edits the
// sentences; the status bar shows the model and the training progress.
// QSettings keeps the layout, the last sentences, the preset, the view and the step.
#pragma once

#include <memory>
#include <optional>

#include <QHash>
#include <QMainWindow>
#include <QString>
#include <QStringList>

#include "app/session.h"

class QAction;
class QDockWidget;
class QTabWidget;
class ArchitectureDiagram;
class DecodeView;
class DeviceChooser;
class DockLayout;
class GradientView;
class LossView;
class TrainingPanel;
class ExplainPanel;
class InputBar;
class ModelChooser;
struct LiveTrace;
class StatusBar;
class DesktopHabits;
class StepNavigator;
class StepView;
struct WindowActions;

class MainWindow : public QMainWindow {
    Q_OBJECT
public:
    struct Options {
        bool restoreSettings = true;  // read the remembered layout, sentences, preset, view, step
        bool saveSettings = true;     // write them back on close
        std::optional<Session::Preset> preset;  // overrides the remembered preset
        QString weightsPath;                     // open these weights instead of a preset
        Session::Provisioning provisioning = Session::Provisioning::Background;
        QString cacheDir;  // overrides the Session's cache directory
        QString backend;   // "cpu" | "gpu" | "auto"; empty: DeviceChooser::startChoice
    };

    explicit MainWindow(QWidget* parent = nullptr);
    explicit MainWindow(const Options& options, QWidget* parent = nullptr);
    ~MainWindow() override;

    // View names: "tensor", "attention", "masks", "pe", "decode", "loss", "gradients", and
    // "backward" (another name for "gradients").
    static QStringList viewNames();
    QString currentViewName() const;
    bool setCurrentView(const QString& name);
    QWidget* viewWidget(const QString& name) const;
    QWidget* currentViewWidget() const;
    // Follow step: the view switches to the one that suits each step (masks for a mask, ...).
    bool followsStep() const;
    void setFollowStep(bool on);

    bool setCurrentStep(const QString& traceName);
    QString currentStep() const;

    Session* session() const { return session_; }
    StatusBar* statusBarWidget() const { return status_; }
    StepNavigator* navigator() const { return navigator_; }
    ExplainPanel* explainPanel() const { return explain_; }
    InputBar* inputBar() const { return input_; }
    ArchitectureDiagram* architectureDiagram() const { return diagram_; }
    DecodeView* decodeView() const { return decodeView_; }
    LossView* lossView() const { return lossView_; }
    GradientView* gradientView() const { return gradientView_; }
    TrainingPanel* trainingPanel() const { return trainingPanel_; }
    QDockWidget* trainingDock() const { return trainingDock_; }
    QAction* directionAction() const { return directionAct_; }
    QAction* saveTrainedAction() const;
    DeviceChooser* deviceChooser() const { return device_; }
    DesktopHabits* desktopHabits() const { return habits_; }
    bool restoresSettings() const { return options_.restoreSettings; }
    DockLayout* dockLayout() const { return dockLayout_; }

    // Closing with weights trained in the app that were never saved: asks Save / Discard /
    // Cancel (a QMessageBox named "unsavedWeightsBox"). True when the window may close. Asks
    // nothing when there are no unsaved weights, or on the offscreen platform with
    // $STEPFORMER_NO_CLOSE_PROMPT set.
    bool confirmDiscardTrainedWeights();

    // Exports that the File menu performs after asking for a path. False + *error on failure.
    bool exportCurrentTensor(const QString& path, QString* error = nullptr);  // .csv or .npy
    bool exportCurrentView(const QString& path, QString* error = nullptr);    // .png or .svg

    // The default arrangement of the docks for the window's size (compact below 1600 px: DockLayout).
    void restoreDefaultLayout();
    void saveSettings() const;
    // The message's first line in the status bar, all of it in a non-modal warning box.
    void showError(const QString& title, const QString& message);

signals:
    void viewChanged(const QString& name);

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;
    // A new language: the texts the views compose are made again, on the step shown.
    void changeEvent(QEvent* e) override;

private:
    // What a training run's epilogue computed for the Session, handed from its worker.
    void buildViews();
    void buildDocks();
    void buildActions();  // and connects them
    void buildMenus();    // the menu bar and the toolbar
    void connectSession();

    void onTraceChanged();
    bool retranslating_ = false;
    // Live traces from the Train panel (issue 14): the views take the trace as on an input
    // change, the current step stays, the status bar says "live: epoch …".
    void onLiveTrace(const std::shared_ptr<const LiveTrace>& live);
    void onLiveTraceChanged();
    void endLiveTrace();
    void onStepChanged(const QString& traceName);
    void applyStepToView(const QString& view, const QString& traceName);
    void onModelChanged();
    void onInputAccepted();
    void updateSaveTrainedAction();
    void setBackwardDirection(bool on);
    QString viewForStep(const QString& traceName) const;

    Options options_;
    QHash<QString, QString> appliedSteps_;  // view name -> the step it shows
    Session* session_ = nullptr;
    StepNavigator* navigator_ = nullptr;
    ExplainPanel* explain_ = nullptr;
    InputBar* input_ = nullptr;
    ArchitectureDiagram* diagram_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QList<StepView*> views_;  // in tab order (views/view_table.h)
    DecodeView* decodeView_ = nullptr;
    LossView* lossView_ = nullptr;
    GradientView* gradientView_ = nullptr;
    TrainingPanel* trainingPanel_ = nullptr;
    QDockWidget* trainingDock_ = nullptr;
    QDockWidget *navigatorDock_ = nullptr, *explainDock_ = nullptr, *diagramDock_ = nullptr, *inputDock_ = nullptr;
    DockLayout* dockLayout_ = nullptr;  // where the docks go at each screen size

    std::unique_ptr<WindowActions> actions_;
    QList<QAction*> viewActs_;         // = actions_->views, for the view code
    QAction* directionAct_ = nullptr;  // = actions_->direction, for the view code
    ModelChooser* model_ = nullptr;
    DeviceChooser* device_ = nullptr;
    StatusBar* status_ = nullptr;
    DesktopHabits* habits_ = nullptr;
    QString followedStep_;  // the step Follow Step last chose a view for

    QByteArray defaultState_;
    bool stateRestored_ = false;
    bool shownOnce_ = false;
};
