// Training in the app: runs stepformer::Trainer on a worker QThread, on a COPY of the model
// (config + params), so the model the step-through views show is never touched mid-step.
// The run's optimizer state, kept for a checkpoint, waits in a temporary file
// (Optimizer::spill_state) rather than in memory.
//
// Everything crosses threads by value: the worker never touches a widget or this object's
// members. It puts step reports and per-epoch attention snapshots (a forward pass of the replay
// sentence on the worker's model) into a mailbox with at most one queued delivery in flight, so
// a fast model cannot flood the event queue while every report still arrives, in order; the
// outcome (final weights, optimizer state) follows. The GUI thread never waits for the worker:
// stop() and reset() only ask, the destructor alone joins. On Linux the worker (and the OpenMP
// threads it starts) runs at a few points of niceness, so the GUI thread wins a busy CPU
// (QThread's priorities do nothing under Linux's default scheduler).
//
// It is the app's one training pipeline: the Train dock and the first start's training of a
// preset (PresetTrainer) both run through it.
//
// States: Idle -> Running <-> Paused -> Finished | Stopped | Diverged; reset() -> Idle.
// Pausing takes effect between two optimizer steps (TrainControl::checkpoint).
//
// Watching a run (issue 14): a pace (setPace) makes each optimizer step take at least that long,
// so a student can follow the curves; the worker waits on a condition variable that pause,
// stop, reset and a pace change wake, never in a sleep. Live traces (setLiveTraces): at most
// every liveInterval() of wall time, and at most once a step, the worker runs a forward pass
// (with the loss) of the live input on its model and posts it through the mailbox; only the
// newest one waits there, an older one not yet delivered is dropped. Both are off by default
// (the first start's preset training runs at full speed and computes no traces); the CLI's
// Trainer knows nothing of them.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <QList>
#include <QMetaType>
#include <QObject>
#include <QPointer>
#include <QString>
#include <QStringList>

#include "stepformer/checkpoint.h"
#include "stepformer/config.h"
#include "stepformer/dataset.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/trace.h"
#include "stepformer/train.h"

class QThread;

// One optimizer step, as the GUI sees it (stepformer::StepReport in Qt terms).
struct TrainingStep {
    int epoch = 0;  // 1-based
    int step = 0;   // 1-based, over the whole run
    int stepsTotal = 0;
    int stepInEpoch = 0;
    int stepsPerEpoch = 0;
    double loss = 0.0;
    double gradNorm = 0.0;
    double lr = 0.0;
    double elapsedS = 0.0;
};

// All heads' attention weights of one attention block for the replay sentence (batch entry 0).
struct AttentionBlockMap {
    stepformer::BlockKind kind = stepformer::BlockKind::None;  // an attention kind
    int layer = 0;
    int heads = 0, rows = 0, cols = 0;  // rows = query tokens, cols = key tokens
    std::vector<float> values;          // heads * rows * cols, row-major
    const float* head(int h) const { return values.data() + size_t(h) * size_t(rows) * size_t(cols); }
};

// The attention of the replay sentence after one epoch (epoch 0 = before training).
struct AttentionSnapshot {
    int epoch = 0;
    double meanLoss = 0.0;  // mean training loss over the epoch (NaN for epoch 0)
    QStringList srcTokens;  // the source sentence, padded to src_len
    QStringList tgtTokens;  // the decoder input
    QString pad;
    std::vector<AttentionBlockMap> blocks;
    const AttentionBlockMap* find(stepformer::BlockKind kind, int layer) const;
};

// What a run leaves behind.
struct TrainingOutcome {
    int status = 0;  // TrainingController::State (Finished / Stopped / Diverged)
    QString message;
    int stepsDone = 0;
    double lastLoss = 0.0;
    stepformer::Config config;
    std::shared_ptr<stepformer::ParamSet> params;          // final (or last good) weights
    std::shared_ptr<const stepformer::Optimizer> optimizer;  // its state, for checkpoints
};

// A forward pass of the live input on the run's model between two steps.
struct LiveTrace {
    std::shared_ptr<const stepformer::Trace> trace;  // forward (and loss, when the target allows)
    stepformer::Config config;                       // the run's
    QString source, target;                          // the sentences it is of
    TrainingStep step;                               // the step after which it was taken
};

Q_DECLARE_METATYPE(TrainingStep)
Q_DECLARE_METATYPE(std::shared_ptr<const AttentionSnapshot>)
Q_DECLARE_METATYPE(std::shared_ptr<const LiveTrace>)

class TrainingController : public QObject {
    Q_OBJECT
public:
    enum class State { Idle, Running, Paused, Finished, Stopped, Diverged };
    Q_ENUM(State)

    // Where a run starts from. Without params the weights are init_params(config, seed).
    struct StartPoint {
        std::shared_ptr<const stepformer::ParamSet> params;
        uint64_t seed = 0;
        // Optimizer state to continue from (a checkpoint's); its kind must match the options'.
        std::optional<std::string> optimizerJson;
        std::shared_ptr<const std::map<std::string, stepformer::Tensor>> optimizerTensors;
    };

    explicit TrainingController(QObject* parent = nullptr);
    ~TrainingController() override;  // asks the worker to stop and joins it

    static QString stateName(State s);  // "idle", "running", ...

    // Attention snapshots are taken after every epoch of a run of up to kMaxSnapshots epochs;
    // longer runs take one every snapshotStride(epochs) epochs (and after the last), so their
    // cost and memory stay bounded.
    static constexpr int kMaxSnapshots = 300;
    static int snapshotStride(int epochs);

    // The replay sentence of the per-epoch attention snapshots. When it does not fit the run's
    // vocabulary, the first dataset example is used instead.
    void setReplaySentence(const QString& source, const QString& decoderInput);
    QString replaySource() const { return replaySrc_; }
    QString replayTarget() const { return replayTgt_; }

    // Work on the trained model that must not block the GUI (checking it, saving it): called on
    // the worker after the run, before finished() is posted, so what it writes is visible to
    // finished()'s handlers. Not called when the run failed before it had a model.
    using Epilogue = std::function<void(const stepformer::Transformer& model, stepformer::TrainStatus status)>;

    // Starts a run. Checks what can be checked at once (config, options, every example against
    // the vocabulary) and returns false with *error when something is wrong; the heavy work
    // (initialisation, copying the weights) happens on the worker.
    bool start(const stepformer::Config& config, const StartPoint& from, std::vector<stepformer::Example> data,
               const stepformer::TrainOptions& options, QString* error = nullptr, Epilogue epilogue = {});

    // Runs later start()s on the calling thread, every signal delivered before start() returns:
    // for a model that must be ready at once (screenshots, tests). The GUI then waits for it.
    void setSynchronous(bool on) { synchronous_ = on; }
    bool isSynchronous() const { return synchronous_; }
    // Whether later runs take the per-epoch attention snapshots (on by default; a run nobody
    // replays saves their forward passes).
    void setAttentionSnapshots(bool on) { snapshots_ = on; }
    // Whether later runs hand their optimizer state to finished() (on by default, for
    // checkpoints; off, it is freed before the epilogue and finished() gets null).
    void setKeepOptimizerState(bool on) { keepOptimizer_ = on; }
    // Where later runs compute (default: the CPU backend). It must outlive them: the app's come
    // from ComputeDevices, which keeps them until exit.
    void setBackend(stepformer::Backend* backend);
    stepformer::Backend* backend() const { return backend_; }
    // The least wall time an optimizer step takes, in ms (0: full speed, the default). Takes
    // effect at once, also in the middle of a run's wait.
    void setPace(int msPerStep);
    int pace() const { return paceMs_; }
    // Live traces of the sentences (see above); on/off takes effect at once. Off by default.
    void setLiveTraces(bool on);
    bool liveTraces() const { return live_; }
    void setLiveInput(const QString& source, const QString& target);
    void setLiveInterval(int ms);
    int liveInterval() const { return liveIntervalMs_; }
    static constexpr int kDefaultLiveIntervalMs = 400;

    void pause();
    void resume();
    void stop();   // asks; the state becomes Stopped when the worker has finished its step
    void reset();  // abandons any run (its results are dropped) and goes back to Idle

    State state() const { return state_; }
    bool isActive() const { return state_ == State::Running || state_ == State::Paused; }
    bool stopRequested() const { return stopping_; }
    // The last step reported, and the outcome of the last finished run (its summary: the
    // weights and optimizer state went to finished()'s handlers, params and optimizer are null).
    const TrainingStep& lastStep() const { return last_; }
    const TrainingOutcome* outcome() const { return outcome_ ? &*outcome_ : nullptr; }
    QString message() const { return message_; }

protected:
    bool event(QEvent* e) override;  // runs the worker's calls (thread_handoff.h's GuiCall)

signals:
    void stateChanged(TrainingController::State state);
    void started(int stepsTotal, int epochs, int stepsPerEpoch);
    void stepReported(const TrainingStep& step);
    // After every epoch (see snapshotStride) and once as epoch 0, before the first step.
    void epochFinished(int epoch, std::shared_ptr<const AttentionSnapshot> snapshot);
    // The run ended: status is Finished, Stopped or Diverged. params/optimizer may be null when
    // the run failed before it had weights (then the state is Stopped and message says why);
    // optimizer is null when the state is not kept (setKeepOptimizerState).
    void finished(TrainingController::State status, const QString& message,
                  std::shared_ptr<stepformer::ParamSet> params, std::shared_ptr<const stepformer::Optimizer> optimizer);
    void errorOccurred(const QString& message);
    // A live trace (setLiveTraces), after the step reports that came before it.
    void liveTraceReady(std::shared_ptr<const LiveTrace> live);
    // The GPU stopped working under a run (stepformer::DeviceLost): the run ended (finished()
    // with Stopped and the last step's weights); later runs need another backend.
    void deviceLost(const QString& message);

private:
    struct Shared;
    struct Run;
    void runJob(Run& run);  // the worker (training_run.cpp)
    void setState(State s);
    void deliverPending(quint64 gen);
    void deliverOutcome(quint64 gen, std::shared_ptr<TrainingOutcome> outcome);
    void deliverFailure(quint64 gen, const QString& message);

    State state_ = State::Idle;
    bool stopping_ = false;
    bool synchronous_ = false;
    bool snapshots_ = true;
    bool keepOptimizer_ = true;
    stepformer::Backend* backend_ = nullptr;  // set in the constructor: the CPU's
    int paceMs_ = 0;
    bool live_ = false;
    int liveIntervalMs_ = kDefaultLiveIntervalMs;
    QString liveSrc_ = QStringLiteral("ich mochte ein bier P");
    QString liveTgt_ = QStringLiteral("S i want a beer .");
    quint64 generation_ = 0;
    std::shared_ptr<Shared> shared_;  // the current run's mailbox and controls
    QList<QPointer<QThread>> threads_;
    TrainingStep last_;
    std::optional<TrainingOutcome> outcome_;
    QString message_;
    QString replaySrc_ = QStringLiteral("ich mochte ein bier P");
    QString replayTgt_ = QStringLiteral("S i want a beer .");
};
