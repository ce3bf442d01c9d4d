// The main window composes the widgets and computes nothing: a Session holds the model and the
// trace; the step navigator (left dock) picks a step; the central tabs show it as a tensor, an
// attention map, a mask or the positional encoding; the explain panel (right dock) says what it
// is; the architecture diagram (dock) shows where it is; the input bar (top dock) edits the
// sentences; the status bar shows the model and the training progress.
// QSettings keeps the layout, the last sentences, the preset, the view and the step.
#pragma once

#include <optional>

#include <QHash>
#include <QMainWindow>
#include <QPointer>
#include <QString>
#include <QStringList>

#include "app/session.h"

class QAction;
class QActionGroup;
class QComboBox;
class QDockWidget;
class QLabel;
class QMessageBox;
class QProgressBar;
class QTabWidget;
class QToolButton;
class ArchitectureDiagram;
class DecodeView;
class GradientView;
class LossView;
class TrainingPanel;
class ExplainPanel;
class InputBar;
class LossSparkline;
class StepNavigator;
class StepView;

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
    QAction* saveTrainedAction() const { return saveTrainedAct_; }

    // Closing with weights trained in the app that were never saved: asks Save / Discard /
    // Cancel (a QMessageBox named "unsavedWeightsBox"). True when the window may close. Asks
    // nothing when there are no unsaved weights, or on the offscreen platform with
    // $STEPFORMER_NO_CLOSE_PROMPT set.
    bool confirmDiscardTrainedWeights();

    // Exports that the File menu performs after asking for a path. False + *error on failure.
    bool exportCurrentTensor(const QString& path, QString* error = nullptr);  // .csv or .npy
    bool exportCurrentView(const QString& path, QString* error = nullptr);    // .png or .svg

    void restoreDefaultLayout();
    void saveSettings() const;

signals:
    void viewChanged(const QString& name);

protected:
    void closeEvent(QCloseEvent* e) override;
    void showEvent(QShowEvent* e) override;

private:
    void buildViews();
    void buildDocks();
    void buildActions();
    void buildMenus();
    void buildToolBar();
    void buildStatusBar();
    void connectSession();
    void restoreSettings();
    void applyDefaultDockSizes();

    void onTraceChanged();
    void onStepChanged(const QString& traceName);
    void applyStepToView(const QString& view, const QString& traceName);
    void onModelChanged();
    void onInputAccepted();
    void onTrainingStarted(int total);
    void onTrainingProgress(int step, int total, double loss);
    void onTrainingEnded();
    void updateSaveTrainedAction();
    void setBackwardDirection(bool on);
    void showError(const QString& title, const QString& message);

    void openWeightsDialog();
    void exportTensorDialog(const QString& suffix);
    void exportViewDialog(const QString& suffix);
    void choosePreset(Session::Preset p);
    void retrainPreset();
    void showShortcuts();
    void showAbout();
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

    QAction *openAct_ = nullptr, *exportCsvAct_ = nullptr, *exportNpyAct_ = nullptr, *exportPngAct_ = nullptr,
            *exportSvgAct_ = nullptr, *quitAct_ = nullptr, *followAct_ = nullptr, *restoreLayoutAct_ = nullptr,
            *retrainAct_ = nullptr, *cancelTrainAct_ = nullptr, *saveTrainedAct_ = nullptr, *directionAct_ = nullptr;
    QList<QAction*> viewActs_;
    QActionGroup* viewGroup_ = nullptr;
    QActionGroup* presetGroup_ = nullptr;
    QComboBox* presetCombo_ = nullptr;

    QLabel* modelLabel_ = nullptr;
    QLabel* stepLabel_ = nullptr;
    QWidget* trainingBox_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* lossLabel_ = nullptr;
    LossSparkline* sparkline_ = nullptr;
    QToolButton* cancelButton_ = nullptr;
    QPointer<QMessageBox> errorBox_;

    QByteArray defaultState_;
    bool stateRestored_ = false;
    bool shownOnce_ = false;
};
