// "Train in the app": the training panel. Hyperparameters on the left; on the right the dataset,
// the loss curves, the attention replay and the results; on top Start with the number of epochs,
// Pause (Resume) / Stop / Reset, a progress bar with epoch, step and time remaining, and the run's
// state. The whole panel scrolls inside itself when its dock is small; when it is narrow, the
// hyperparameters are the first tab.
//
// Training runs on the TrainingController's worker thread on a copy of the weights; the panel
// only receives step reports, epoch snapshots and the final weights. When a run finishes or is
// stopped after some steps, modelTrained() hands its weights over so the step-through views can
// show the new model at once; the results table translates every dataset row with them. A run
// that diverges keeps its last good weights (shown in the results) but hands nothing over.
//
// Checkpoints: saveCheckpoint() writes the last run's weights, config and optimizer state
// (core save_checkpoint, atomic); loadCheckpointForResume() reads one, fixes the architecture
// and vocabulary to it, and the next Start continues from its weights and optimizer state.
//
// Watching a run: paceCombo beside Start (Watch: at least kWatchPaceMs a step; Full speed) and
// liveViewsToggle (the run posts live traces of the app's sentences: liveTraceReady).
//
// objectNames: trainingPanel, startButton, paceCombo, liveViewsToggle, pauseButton (its text is "Resume" while paused),
// stopButton, resetButton, runEpochsSpin (beside Start: the form's epoch count), saveCheckpointButton, loadCheckpointButton, trainingProgress,
// trainingStateLabel, trainingMessage, trainingTabs (tabs: dataset, loss, attention, results).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>

#include <QString>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "training/hyperparameter_form.h"
#include "training/training_controller.h"

class QCheckBox;
class QComboBox;
class QLabel;
class QProgressBar;
class QPushButton;
class QSpinBox;
class QScrollArea;
class QSplitter;
class QTabWidget;
class AttentionReplay;
class DatasetEditor;
class LossChart;
class ResultsTable;

class TrainingPanel : public QWidget {
    Q_OBJECT
public:
    using State = TrainingController::State;

    explicit TrainingPanel(QWidget* parent = nullptr);
    ~TrainingPanel() override;

    TrainingController* controller() const { return controller_; }
    HyperparameterForm* hyperparameters() const { return form_; }
    DatasetEditor* datasetEditor() const { return dataset_; }
    LossChart* lossChart() const { return chart_; }
    AttentionReplay* attentionReplay() const { return replay_; }
    ResultsTable* resultsTable() const { return results_; }

    State state() const;
    bool isTraining() const;  // running or paused
    // Why Start is disabled (invalid hyperparameters or dataset), empty when it is enabled or a
    // run is active.
    QString startBlockedReason() const;
    QString message() const;  // the banner's text (the last run's outcome, errors)

    // The replay sentence of the attention snapshots (default: the tutorial's first sentence).
    void setReplaySentence(const QString& source, const QString& decoderInput);
    // Work on a run's trained model on the worker, before modelTrained() (the main window
    // computes the shown sentences' pass there, so taking the weights does not stall the GUI).
    // Given to the runs started after it is set.
    void setRunEpilogue(TrainingController::Epilogue epilogue) { epilogue_ = std::move(epilogue); }
    // The configuration of the model the app shows: dataset rows using tokens it lacks are
    // flagged. While a checkpoint is loaded for resuming its vocabulary rules; this one applies
    // again after Reset.
    void setReferenceConfig(const stepformer::Config& config, const QString& name);

    // The weights of the last run that finished or was stopped after some steps (null before).
    bool hasTrainedWeights() const { return bool(trainedParams_); }
    bool hasUnsavedWeights() const { return trainedParams_ && unsaved_; }
    const stepformer::Config& trainedConfig() const { return trainedConfig_; }
    std::shared_ptr<const stepformer::ParamSet> trainedParams() const { return trainedParams_; }

    // Saves the last run's weights + config + optimizer state (atomic). False + *error when
    // there is nothing to save or the file cannot be written.
    bool saveCheckpoint(const QString& path, QString* error = nullptr);
    // Reads a checkpoint to continue training from; false + *error when it can't be used.
    bool loadCheckpointForResume(const QString& path, QString* error = nullptr);
    bool isResuming() const { return resume_.has_value(); }

    // The pace of a run (paceCombo). Choosing a preset in the form sets its default pace; a
    // choice in the combo is remembered (QSettings training/pace). Applies at once, mid-run too.
    enum class Pace { Watch, FullSpeed };
    Q_ENUM(Pace)
    static constexpr int kWatchPaceMs = 500;  // 2 steps a second: the tutorial's 30 steps in 15 s
    static Pace defaultPace(HyperparameterForm::Preset p);
    void setPace(Pace p);
    Pace pace() const;
    // The pace the user picked last (QSettings training/pace); none while only presets chose.
    static std::optional<Pace> chosenPace();
    // Live traces for the step-through views (liveViewsToggle, QSettings training/liveViews, on
    // by default) of the sentences given here (the app's Sentences bar).
    void setLiveViews(bool on);
    bool liveViews() const;
    void setLiveInput(const QString& source, const QString& target);

public slots:
    bool start();
    void pause();
    void resume();
    void stop();
    void reset();
    void saveCheckpointDialog();
    void loadCheckpointDialog();

signals:
    // A run finished or was stopped after at least one step: its weights, for the views.
    // (A diverged run's last good weights are not handed over.)
    void modelTrained(stepformer::Config config, std::shared_ptr<const stepformer::ParamSet> params);
    void stateChanged(TrainingController::State state);
    // Every step, for a status-bar indicator: step / total and the loss.
    void progressChanged(int step, int total, double loss);
    void checkpointSaved(const QString& path);
    void checkpointLoaded(const QString& path, stepformer::Config config);
    void errorOccurred(const QString& message);
    // While a run is active with live views on: a trace of the live input on its current weights.
    void liveTraceReady(std::shared_ptr<const LiveTrace> live);
    void liveViewsToggled(bool on);

protected:
    void resizeEvent(QResizeEvent* e) override;
    bool eventFilter(QObject* watched, QEvent* e) override;

private:
    struct Resume {
        QString path;
        stepformer::Config config;
        std::shared_ptr<const stepformer::ParamSet> params;
        std::optional<std::string> optimizerJson;
        std::shared_ptr<const std::map<std::string, stepformer::Tensor>> optimizerTensors;
    };

    TrainingController::Epilogue epilogue_;
    void onStateChanged(State s);
    void onStarted(int stepsTotal, int epochs, int stepsPerEpoch);
    void onStep(const TrainingStep& s);
    void onFinished(State status, const QString& message, std::shared_ptr<stepformer::ParamSet> params,
                    std::shared_ptr<const stepformer::Optimizer> optimizer);
    void updateControls();
    void buildWatchControls(QWidget* parent);
    void connectWatchControls();
    void placeSetup(bool asTab);  // the hyperparameters as a column (wide) or the first tab (narrow)
    void fitSetupWidth();          // the setup column's least width, and where it becomes a tab
    void updateIdleProgress();
    void showMessage(const QString& text, const QString& kind);  // kind: info | ok | warn | error

    TrainingController* controller_ = nullptr;
    HyperparameterForm* form_ = nullptr;
    DatasetEditor* dataset_ = nullptr;
    LossChart* chart_ = nullptr;
    AttentionReplay* replay_ = nullptr;
    ResultsTable* results_ = nullptr;
    QTabWidget* tabs_ = nullptr;
    QSplitter* split_ = nullptr;
    QWidget* setup_ = nullptr;  // the hyperparameters and the checkpoint buttons
    QScrollArea* setupScroll_ = nullptr;  // around the hyperparameters
    int sideBySideWidth_ = 0;   // narrower, the setup is a tab
    int sideBySideMargin_ = 0;  // the splitter's handle and the margins around the two
    QPushButton *start_ = nullptr, *pause_ = nullptr, *stop_ = nullptr, *reset_ = nullptr, *save_ = nullptr,
                *load_ = nullptr;
    QSpinBox* runEpochs_ = nullptr;  // beside Start: mirrors the form's epochs
    QComboBox* paceCombo_ = nullptr;
    QCheckBox* liveToggle_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel *stateLabel_ = nullptr, *message_ = nullptr;
    QString messageKind_;

    std::optional<Resume> resume_;
    stepformer::Config refConfig_ = stepformer::Config::tutorial();  // setReferenceConfig()
    QString refName_;
    stepformer::Config runConfig_;
    std::vector<stepformer::Example> runData_;
    int epochs_ = 0, stepsTotal_ = 0;
    double secondsPerStep_ = 0.0;  // smoothed, for the time remaining
    double lastElapsed_ = 0.0;
    bool pausedSinceStep_ = false;

    stepformer::Config trainedConfig_;
    std::shared_ptr<const stepformer::ParamSet> trainedParams_;
    std::shared_ptr<const stepformer::Optimizer> trainedOptimizer_;
    bool unsaved_ = false;
    double firstLoss_ = 0.0;  // the run's first step's loss (NaN before it): for LearningRateAdvice
};
