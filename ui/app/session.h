// The app's state: the model (config + weights), the two sentences and the trace of their forward
// pass. Widgets read the trace through trace(); the Session recomputes it whenever the sentences
// or the model change and says so with traceChanged(). No widget code here.
//
// Presets: "tutorial" (the tutorial's configuration, trained on the toy dataset), "small"
// (Config::small(), trained), "untrained" (the tutorial's configuration at its initial
// weights, for comparison), "torch" (PyTorch's nn.Transformer at the small size, trained) and
// "aiayn" (attention-is-all-you-need-pytorch's model at the small size, trained). A trained preset comes from a cached checkpoint in
// <AppDataLocation>/models/<preset>.safetensors; when there is none the Session trains one with
// the preset's recipe through the app's training pipeline (PresetTrainer on a
// TrainingController, reporting progress), shows the untrained model meanwhile, and caches it.
// The cache directory can be overridden with $STEPFORMER_CACHE_DIR or setCacheDir() (tests).
#pragma once

#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <vector>

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include "app/compute_devices.h"
#include "training/preset_trainer.h"
#include "stepformer/config.h"
#include "stepformer/trace.h"

template <typename T>
class QFutureWatcher;

namespace stepformer {
class Backend;
class Transformer;
class ParamSet;
class Optimizer;
enum class TrainingPreset;
}  // namespace stepformer

// What Session::computePass computes for one sentence pair.
struct SentencePass {
    QString source, target;
    QString expected;  // the decoder's expected output, empty when it cannot be derived
    std::shared_ptr<const stepformer::Trace> trace;
    std::shared_ptr<const stepformer::ParamSet> grads;  // null without an expected output
    std::vector<int> targetIds;
};

// A pass a worker computes (on the weights it trained) for the GUI thread to take when the
// weights arrive: the forward and backward pass of a tutorial-size model would stall it.
class PassSlot {
public:
    void put(std::shared_ptr<const SentencePass> pass) {
        const std::lock_guard lock(mu_);
        pass_ = std::move(pass);
    }
    std::shared_ptr<const SentencePass> take() {
        const std::lock_guard lock(mu_);
        return std::move(pass_);
    }
    // The sentences the user wants shown (the latest accepted or typed), for the worker to read
    // when its weights are done rather than when it started.
    void want(const QString& source, const QString& target) {
        const std::lock_guard lock(mu_);
        source_ = source;
        target_ = target;
    }
    std::pair<QString, QString> wanted() {
        const std::lock_guard lock(mu_);
        return {source_, target_};
    }

private:
    std::mutex mu_;
    std::shared_ptr<const SentencePass> pass_;
    QString source_ = QStringLiteral("ich mochte ein bier P"), target_ = QStringLiteral("S i want a beer .");
};

class Session : public QObject {
    Q_OBJECT
public:
    enum class Preset { Tutorial, Small, Untrained, Torch, Aiayn, Gpt };
    Q_ENUM(Preset)

    // How setPreset() obtains a trained model that is not cached yet.
    enum class Provisioning {
        Background,   // train on a worker thread; show the untrained model meanwhile (the app)
        Synchronous,  // train before setPreset() returns (screenshots, tests)
        Never,        // do not train: show the untrained model (--no-train)
    };
    Q_ENUM(Provisioning)

    // TrainedInApp: weights the Train panel handed over (installTrainedModel), not a preset's.
    enum class ModelState { Untrained, Training, Trained, TrainedInApp, FromFile };
    Q_ENUM(ModelState)

    explicit Session(QObject* parent = nullptr);
    ~Session() override;

    // Preset names as used on the command line and in QSettings: tutorial | small | untrained | torch | aiayn.
    static QString presetKey(Preset p);
    static std::optional<Preset> presetFromKey(const QString& key);
    static QString presetTitle(Preset p);  // for menus
    // The same with the model's state instead of "trained" ("training…", "untrained").
    static QString presetTitle(Preset p, const QString& state);
    static QString presetToolTip(Preset p);
    static QList<Preset> allPresets();
    static stepformer::Config presetConfig(Preset p);
    static QString defaultSource() { return QStringLiteral("ich mochte ein bier P"); }
    static QString defaultTarget() { return QStringLiteral("S i want a beer ."); }

    // Where trained checkpoints are cached: setCacheDir() if called, else $STEPFORMER_CACHE_DIR,
    // else QStandardPaths::writableLocation(AppDataLocation) + "/models".
    QString cacheDir() const;
    void setCacheDir(const QString& dir);
    QString cachedModelPath(Preset p) const;

    void setProvisioning(Provisioning p) { provisioning_ = p; }
    Provisioning provisioning() const { return provisioning_; }

    // Switches the model. Returns false (and emits errorOccurred) only when nothing could be
    // installed; a failed training leaves the untrained model in place.
    bool setPreset(Preset p);
    Preset preset() const { return preset_; }

    // Loads a safetensors file: a Stepformer checkpoint (config in its metadata) or a state_dict
    // saved from the tutorial's PyTorch code (config from `configPath`, else a
    // "<name>.config.json" / "config.json" beside the file, else the tutorial's). Errors go to
    // errorOccurred with the reason and the previous model stays.
    bool openWeights(const QString& path, const QString& configPath = {});

    // Installs weights trained elsewhere (the training panel) exactly like loading a file:
    // recomputes the trace and emits modelChanged() and traceChanged(). The model shares the
    // weights (no copy): they must not change afterwards. False (and errorOccurred) when the
    // weights do not fit the config.
    // `pass`, when it is of the current sentences on these weights (computed off the GUI thread by
    // the run that made them, computePass), is shown as is instead of being computed again here.
    bool installTrainedModel(const stepformer::Config& config, std::shared_ptr<const stepformer::ParamSet> params,
                             std::shared_ptr<const struct SentencePass> pass = {});

    // One sentence pair on a model: the traced forward pass and, when the target's expected output
    // can be derived, the loss and the backward pass (grad.* and the parameter gradients). Only
    // reads the model, so any thread may call it; throws (ConfigError for a sentence the model's
    // vocabulary or lengths do not take).
    static SentencePass computePass(const stepformer::Transformer& model, const stepformer::Config& config,
                                    const QString& source, const QString& target);
    // computePass with the model's config, or null when the sentences do not fit the model (the
    // Session copes with those when it installs the model): for workers.
    static std::shared_ptr<const SentencePass> tryComputePass(const stepformer::Transformer& model, const QString& source,
                                                              const QString& target);

    // The input bar's edits. The sentences are checked at once (inputRejected when they do not
    // fit, the last good trace stays); under Provisioning::Background their pass is then computed
    // on a worker, the views keeping the old trace until it arrives (inputAccepted and
    // traceChanged then): at the tutorial's size on a GPU it takes seconds the GUI thread would
    // stall for. A newer request or setSentences() supersedes one still computing, so only the
    // latest sentences are ever shown, and no more than one pass computes at a time. Otherwise
    // (Synchronous, Never: tests, screenshots, --no-train) exactly setSentences(). Model switches
    // (presets, files, devices) are made the same way: session_switch.cpp.
    void requestSentences(const QString& source, const QString& target);
    // A requested pass is still computing or waiting to (its sentences are not shown yet).
    bool sentencesPending() const { return passInFlight_ || queuedSentences_.has_value(); }

    // Validates both sentences against the vocabularies and lengths. Valid: recomputes the trace
    // (with the loss when the expected output can be derived from the target) and emits
    // traceChanged(). Invalid: emits inputRejected(message) and keeps the last good trace.
    bool setSentences(const QString& source, const QString& target);
    QString source() const { return source_; }
    // What the Decode view decodes: the source sentence, or for a model without one (nanoGPT)
    // the prompt it continues, the text's first two words.
    QString decodeInput() const;
    QString target() const { return target_; }
    // The decoder's expected output derived from the target (stepformer::dec_output_for), or
    // empty when it cannot be derived.
    QString expectedOutput() const { return expected_; }

    // Checks one sentence without changing anything; empty string when valid.
    QString validateSentence(const QString& sentence, bool isSource) const;

    // The live trace while one is shown (below), else the model's.
    std::shared_ptr<const stepformer::Trace> trace() const { return liveTrace_ ? liveTrace_ : trace_; }

    // Live traces from a training run (issue 14): the forward pass (and loss) of the current
    // sentences on the weights being trained, computed by the run. trace() returns it while it
    // is shown; the model, its gradients and optimizer stay the session's. Accepted (true, and
    // liveTraceChanged()) only for the current sentences and a model of the same architecture,
    // vocabulary and lengths; a new model or new sentences end it.
    bool showLiveTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config,
                       const QString& source, const QString& target);
    // Back to the model's own trace: traceChanged() when a live one was shown.
    void clearLiveTrace();
    bool isLive() const { return bool(liveTrace_); }
    std::shared_ptr<const stepformer::Transformer> model() const { return model_; }
    // The model's weights (null without a model).
    std::shared_ptr<const stepformer::ParamSet> params() const;
    // The parameter gradients of the trace's loss (null when the trace has no loss); the trace
    // then also holds the grad.* entries of the backward pass.
    std::shared_ptr<const stepformer::ParamSet> gradients() const { return grads_; }
    // A fresh SGD(lr 1e-3, momentum 0.99), the tutorial's optimizer, for previewing the update
    // its first step would apply (null without a model; it holds no state of the model's size).
    std::shared_ptr<const stepformer::Optimizer> optimizer() const { return optimizer_; }
    // The decoder's expected output ids (B*T, row-major like projection.logits); empty when the
    // expected output cannot be derived.
    const std::vector<int>& targetIds() const { return targetIds_; }
    const stepformer::Config& config() const { return config_; }
    QString modelDescription() const { return description_; }
    ModelState modelState() const { return state_; }
    QString modelStateText() const;  // "trained", "untrained", "training…", "trained in the app", "from file"
    QStringList sourceVocabulary() const;
    QStringList targetVocabulary() const;

    // Greedy decoding of `source` with the current model (the tutorial's greedy_decoder).
    QString translate(const QString& source, QString* error = nullptr) const;

    // Which device computes (ComputeDevices): the model is made anew on it, sharing the weights,
    // and the trace recomputed, so the step shown stays; traceChanged(), modelChanged() and
    // computeDeviceChanged(). False, with *why, when there is no such device (nothing changes).
    // Preset training started later runs on it too.
    bool setComputeDevice(ComputeDevices::Kind kind, QString* why = nullptr);
    ComputeDevices::Kind computeDevice() const;
    stepformer::Backend& backend() const { return *backend_; }
    // "GPU — NVIDIA H100 …" / "CPU — 2 threads": what computed the numbers on screen.
    QString computeDeviceLabel() const;
    // While the trace on screen is the Session's own and was computed on a GPU: a function that
    // computes the same pass (same weights, sentences) on the CPU backend, for the explanation's
    // agreement box; it may be called later, from the GUI thread, and keeps what it needs. Empty
    // otherwise (on the CPU, a live trace, no model).
    std::function<std::shared_ptr<const stepformer::Trace>()> cpuReplay() const;
    // The GPU was lost under a computation elsewhere (a training run): when the Session computes
    // on the GPU it goes back to the CPU and recomputes what is on screen (deviceLost()).
    void handleDeviceLost(const QString& message);

    bool isTraining() const;
    void cancelTraining();  // asks the worker to stop (it does after its current step); keeps the untrained model

signals:
    void traceChanged();
    void liveTraceChanged();  // showLiveTrace() installed a new live trace
    void inputRejected(const QString& message);
    void inputAccepted();
    // The Session replaced the sentences itself (a new vocabulary did not accept the old ones).
    void sentencesReset(const QString& source, const QString& target);
    void errorOccurred(const QString& message);
    void warningRaised(const QString& message);  // it worked, but the user should know (e.g. an old checkpoint)
    void modelChanged();  // config, weights or state changed
    void weightsOpened(const QString& path);  // openWeights() succeeded (File › Open Recent lists it)
    void trainingStarted(int totalSteps);
    void trainingProgress(int step, int total, double loss);
    void trainingFinished();
    void trainingFailed(const QString& message);
    void computeDeviceChanged();
    // The GPU stopped working (stepformer::DeviceLost): the Session went back to the CPU, with
    // the same weights, and recomputed what was on screen.
    void deviceLost(const QString& message);

private:
    static stepformer::TrainingPreset trainingPresetOf(Preset p);  // (session_presets.cpp)
    // What the user is told when a weights file holds NaN or ±inf (`bad`: the parameters, in order).
    static QString notFiniteWarning(const QString& file, const std::vector<stepformer::NonFinite>& bad);
    void install(stepformer::Config config, std::shared_ptr<const stepformer::ParamSet> weights, ModelState state,
                 QString description);
    // On `on`, or the session's device when null.
    std::shared_ptr<const stepformer::Transformer> makeModel(const stepformer::Config& config,
                                                             std::shared_ptr<const stepformer::ParamSet> weights,
                                                             stepformer::Backend* on = nullptr) const;
    // A model switch (session_switch.cpp): what becomes current together when the new model's
    // pass arrives, the latest target (a pending switch's, else the current state), the switch,
    // and what it tries and makes current.
    struct Installed {
        stepformer::Config config;
        std::shared_ptr<const stepformer::ParamSet> weights;
        ModelState state;
        QString description;
        stepformer::Backend* backend;
    };
    struct SwitchOutcome;
    Installed latest() const;
    void switchTo(Installed target);
    void switchPassDone();
    void commitSwitch(Installed target, SwitchOutcome& outcome);
    QStringList candidatePairs(const stepformer::Config& c) const;
    static void firstFitting(SwitchOutcome& outcome, const QStringList& pairs);
    static QString deviceLostText(const QString& why);
    // After DeviceLost: the CPU again, the model made anew there.
    void fallBackToCpu(const QString& message);
    void adopt(const SentencePass& pass);
    bool recompute(const QString& source, const QString& target, QString* error);
    // The checks recompute() makes before it computes: empty sentences, vocabulary, lengths.
    bool checkSentences(const QString& source, const QString& target, QString* error) const;
    // requestSentences' worker (session_sentences.cpp).
    struct SentenceRequest {
        QString source, target;
        quint64 id = 0;
    };
    struct SentenceOutcome;
    void startSentencePass();
    void sentencePassDone();
    void finishTraining(const PresetTrainer::Result& result);

    stepformer::Config config_;
    // Const: a model sharing trained weights must never copy them (Transformer's copy on write).
    std::shared_ptr<const stepformer::Transformer> model_;
    std::shared_ptr<const stepformer::ParamSet> weights_;  // the model's, shared with it
    stepformer::Backend* backend_;                          // ComputeDevices keeps it alive
    std::shared_ptr<const stepformer::Trace> trace_;
    std::shared_ptr<const stepformer::Trace> liveTrace_;  // from a training run, while shown
    std::shared_ptr<const stepformer::ParamSet> grads_;
    std::shared_ptr<const stepformer::Optimizer> optimizer_;
    std::vector<int> targetIds_;
    QString source_ = defaultSource(), target_ = defaultTarget(), expected_;
    QString description_;
    QString cacheDir_;
    Preset preset_ = Preset::Tutorial;
    Provisioning provisioning_ = Provisioning::Background;
    ModelState state_ = ModelState::Untrained;
    std::shared_ptr<const SentencePass> precomputed_;  // installTrainedModel's pass, for its install
    std::shared_ptr<PassSlot> presetPass_ = std::make_shared<PassSlot>();  // the preset training's, for finishTraining

    // requestSentences(): the request waiting for the one in flight, the worker's watcher, and the
    // number of the latest request (a result of an earlier one is dropped).
    std::optional<SentenceRequest> queuedSentences_;
    QFutureWatcher<std::shared_ptr<SentenceOutcome>>* sentenceWatcher_ = nullptr;
    bool passInFlight_ = false;
    quint64 sentenceRequest_ = 0;

    // The model switch under way (Background, session_switch.cpp): its target, the worker's
    // watcher, and the number of the latest switch (a result of an earlier one is dropped).
    std::optional<Installed> pending_;
    QFutureWatcher<std::shared_ptr<SwitchOutcome>>* switchWatcher_ = nullptr;
    quint64 switchRequest_ = 0;
    // The sentences the user asked for last (setSentences, requestSentences): a switch computes
    // these, which may be newer than the ones shown.
    QString wantedSource_ = defaultSource(), wantedTarget_ = defaultTarget();

    // Cancelled on every model switch, so a stale training's results never arrive.
    PresetTrainer* trainer_ = nullptr;
};
