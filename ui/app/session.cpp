#include "app/session.h"
#include "app/core_text.h"
#include "training/training_controller.h"
#include "widgets/text_util.h"

#include <QDir>
#include <QFileInfo>
#include <QStandardPaths>
#include <QtDebug>

#include "stepformer/checkpoint.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/devices.h"
#include "stepformer/heap.h"
#include "stepformer/message.h"
#include "stepformer/model.h"
#include "stepformer/model_io.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/recipes.h"

using namespace stepformer;

namespace {

using ui_text::qs;
using ui_text::ss;

// The seed of the initial weights: the untrained model shown while training is exactly the model
// the training starts from.
constexpr uint64_t kInitSeed = 7;

}  // namespace

Session::Session(QObject* parent)
    : QObject(parent), backend_(ComputeDevices::instance().backend(ComputeDevices::Kind::Cpu)),
      trainer_(new PresetTrainer(this)) {
    // The app allocates and frees model-sized tensors (weights, gradients, optimizer state: 0.1
    // to 4 MB each at the tutorial's size) as models are opened, trained and replaced; in the
    // heap, their freed memory stayed resident (the app grew by hundreds of MB per training run).
    // Every tensor of 1 MB or more is its own mapping, returned when freed.
    stepformer::set_heap_policy(stepformer::HeapPolicy::Memory);
    // No model until setPreset() / openWeights(): sentences given before are only validated
    // against the tutorial's vocabulary, and trace() is null.
    config_ = presetConfig(Preset::Tutorial);
    description_ = tr("No model yet");
    connect(trainer_->controller(), &TrainingController::deviceLost, this, &Session::handleDeviceLost);
    connect(trainer_, &PresetTrainer::started, this, &Session::trainingStarted);
    connect(trainer_, &PresetTrainer::progress, this, &Session::trainingProgress);
    connect(trainer_, &PresetTrainer::finished, this, &Session::finishTraining);
    connect(trainer_, &PresetTrainer::failed, this, [this](const QString& message) {
        state_ = ModelState::Untrained;
        description_ = tr("%1 preset at its initial weights (training failed)").arg(presetKey(preset_));
        emit modelChanged();
        emit trainingFailed(tr("Training the %1 model failed: %2").arg(presetKey(preset_), message));
    });
}

// The trainer (a child) joins its worker when it goes.
Session::~Session() = default;

QString Session::cacheDir() const {
    if (!cacheDir_.isEmpty()) return cacheDir_;
    const QString env = qEnvironmentVariable("STEPFORMER_CACHE_DIR");
    if (!env.isEmpty()) return env;
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/models");
}

void Session::setCacheDir(const QString& dir) { cacheDir_ = dir; }

QString Session::cachedModelPath(Preset p) const {
    return QDir(cacheDir()).filePath(presetKey(p) + QStringLiteral(".safetensors"));
}

QString Session::modelStateText() const {
    switch (state_) {
    case ModelState::Untrained: return tr("untrained");
    case ModelState::Training: return tr("training…");
    case ModelState::Trained: return tr("trained");
    case ModelState::TrainedInApp: return tr("trained in the app");
    case ModelState::FromFile: return tr("from file");
    }
    return {};
}

bool Session::setPreset(Preset p) {
    trainer_->cancel();
    preset_ = p;
    const Config cfg = presetConfig(p);

    if (p != Preset::Untrained) {
        const QString path = cachedModelPath(p);
        if (QFileInfo::exists(path)) {
            try {
                Checkpoint ck = load_checkpoint(ss(path), &cfg);
                install(ck.config, std::make_shared<const ParamSet>(std::move(ck.params)), ModelState::Trained,
                        tr("%1 preset, trained on the tutorial's sentences (cached in %2)")
                            .arg(presetKey(p), QDir::toNativeSeparators(path)));
                return true;
            } catch (const std::exception& e) {
                qWarning().noquote() << "Ignoring the cached model" << path << ":" << e.what() << "; training a new one";
            }
        }
    }

    try {
        const bool train = p != Preset::Untrained && provisioning_ != Provisioning::Never;
        auto weights = std::make_shared<const ParamSet>(init_params(cfg, kInitSeed));
        install(cfg, weights, train ? ModelState::Training : ModelState::Untrained,
                p == Preset::Untrained ? tr("Untrained model (tutorial size, initial weights)")
                                       : tr("%1 preset at its initial weights (untrained)").arg(presetKey(p)));
        // From exactly the untrained model shown meanwhile.
        if (train) {
            // The trained model's pass of the sentences wanted when it is done, on the worker (see
            // finishTraining).
            presetPass_->put(nullptr);
            trainer_->start(cfg, weights, preset_recipe(trainingPresetOf(p)), cachedModelPath(p),
                            provisioning_ == Provisioning::Synchronous, [slot = presetPass_](const Transformer& model) {
                                const auto [source, target] = slot->wanted();
                                slot->put(tryComputePass(model, source, target));
                            });
        }
        return true;
    } catch (const std::exception& e) {
        emit errorOccurred(tr("Could not create the %1 model: %2").arg(presetKey(p), coreText(e)));
        return false;
    }
}

// ----- weights from a file ------------------------------------------------------------------

namespace {
// Whether a load error is about the parameters (missing, unexpected, another shape): what a config
// of the right size would mend. Messages nest ("weights 'f': <why>"), so the arguments are looked in.
bool aboutParameters(const Message& m) {
    if (m.is_plain()) return false;
    const std::string_view code = m.code();
    for (const char* c : {"weights.missing_parameter", "weights.parameter_shape", "weights.unexpected_tensor",
                          "weights.count", "weights.not_tutorial", "weights.parameter_mismatch"})
        if (code.starts_with(c)) return true;
    for (const MessageArg& a : m.args())
        if (a.is_message() && aboutParameters(a.message())) return true;
    return false;
}
}  // namespace

bool Session::openWeights(const QString& path, const QString& configPath) {
    const QString shown = QDir::toNativeSeparators(path);
    if (!QFileInfo::exists(path)) {
        emit errorOccurred(tr("Could not open the weights file %1: it does not exist.").arg(shown));
        return false;
    }
    QString configNote;
    try {
        std::optional<Config> cfg;
        if (!configPath.isEmpty()) {
            cfg = load_config_file(ss(configPath));
            configNote = tr("config %1").arg(QDir::toNativeSeparators(configPath));
        } else {
            Config fromFile;
            bool inMetadata = false;
            try {
                inMetadata = read_config_from_weights(ss(path), &fromFile);
            } catch (const std::exception&) {
                inMetadata = false;  // load_weights below reports what is wrong with the file
            }
            if (inMetadata) {
                configNote = tr("config from the file");
            } else {
                const QFileInfo fi(path);
                const QStringList candidates{
                    fi.dir().filePath(fi.completeBaseName() + QStringLiteral(".config.json")),
                    fi.dir().filePath(fi.baseName() + QStringLiteral(".config.json")),
                    fi.dir().filePath(QStringLiteral("config.json")),
                };
                for (const QString& c : candidates) {
                    if (QFileInfo::exists(c)) {
                        cfg = load_config_file(ss(c));
                        configNote = tr("config %1").arg(QDir::toNativeSeparators(c));
                        break;
                    }
                }
                if (!cfg) {
                    cfg = Config::tutorial();
                    configNote = tr("the tutorial's config (the file has none)");
                }
            }
        }
        // NaN or ±inf in a weight: the model is shown (the bad entries magenta, the parameter
        // marked in the weight page's list) and the user is told; training never starts from it.
        LoadedWeights w = load_weights(ss(path), cfg ? &*cfg : nullptr, NonFiniteWeights::Report);
        auto weights = std::make_shared<const ParamSet>(std::move(w.params));
        (void)makeModel(w.config, weights);  // throws when the weights do not fit, before anything changes
        QString desc = tr("Weights %1 with %2").arg(QFileInfo(path).fileName(), configNote);
        if (!w.defaulted.empty()) desc += tr("; %1 LayerNorm parameters defaulted to 1/0").arg(w.defaulted.size());
        for (const auto& n : w.notes) desc += QStringLiteral("; ") + coreText(n);
        trainer_->cancel();
        install(w.config, std::move(weights), ModelState::FromFile, desc);
        for (const auto& warning : w.warnings) emit warningRaised(coreText(warning));
        if (!w.not_finite.empty()) emit warningRaised(notFiniteWarning(QFileInfo(path).fileName(), w.not_finite));
        emit weightsOpened(path);
        return true;
    } catch (const std::exception& e) {
        QString msg = tr("Could not open the weights file %1:\n%2").arg(shown, coreText(e));
        // The advice about a config only where the file is weights of another size; a file that
        // is not weights at all (junk, a .pth) needs none.
        const Message* carried = carried_message(e);
        if (carried && aboutParameters(*carried) && !configNote.isEmpty() && configPath.isEmpty() &&
            !configNote.startsWith(tr("config")))
            msg += tr("\n\nThe file carries no model configuration, so the tutorial's was assumed. If the model "
                      "has another size, put its config as \"%1.config.json\" beside the file.")
                       .arg(QFileInfo(path).baseName());
        emit errorOccurred(msg);
        return false;
    }
}

QString Session::notFiniteWarning(const QString& file, const std::vector<NonFinite>& bad) {
    QString which = coreText(non_finite_message(bad.front()));
    if (bad.size() > 1) which += tr(", and %n more parameter(s)", nullptr, int(bad.size() - 1));
    return tr("%1 holds NaN or infinity: %2.\n\nThe model is shown as the file holds it: those entries are magenta "
              "in the Gradients view's weight page (the parameter is marked ⚠ in its list) and everything computed "
              "from them is NaN too. Training cannot start from these weights.")
        .arg(file, which);
}

bool Session::installTrainedModel(const Config& config, std::shared_ptr<const ParamSet> params,
                                  std::shared_ptr<const SentencePass> pass) {
    if (!params) {
        emit errorOccurred(tr("The trained model has no weights."));
        return false;
    }
    try {
        (void)makeModel(config, params);  // throws when the weights do not fit, before anything changes
        trainer_->cancel();
        precomputed_ = pass && pass->trace ? std::move(pass) : nullptr;
        install(config, std::move(params), ModelState::TrainedInApp, tr("Weights trained in the app (Train panel)"));
        precomputed_.reset();  // not of the sentences shown after all
        return true;
    } catch (const std::exception& e) {
        emit errorOccurred(tr("Could not use the trained weights: %1").arg(coreText(e)));
        return false;
    }
}

std::shared_ptr<const ParamSet> Session::params() const { return model_ ? weights_ : nullptr; }

std::shared_ptr<const Transformer> Session::makeModel(const Config& config, std::shared_ptr<const ParamSet> weights,
                                                      Backend* on) const {
    return std::make_shared<const Transformer>(config, std::move(weights), on ? on : backend_);  // shared, not copied
}

// ----- sentences and the trace --------------------------------------------------------------

QString Session::validateSentence(const QString& sentence, bool isSource) const {
    if (isSource && !config_.reads_source()) return {};  // it has no source: whatever the field holds is not read
    if (sentence.trimmed().isEmpty())
        return isSource ? tr("The source sentence is empty.") : tr("The target sentence is empty.");
    try {
        if (isSource)
            encode_sentence(ss(sentence), config_.src_vocab, config_.src_len, "source");
        else
            encode_sentence(ss(sentence), config_.tgt_vocab, config_.tgt_len, "target");
    } catch (const std::exception& e) {
        return coreText(e);
    }
    return {};
}

bool Session::checkSentences(const QString& source, const QString& target, QString* error) const {
    for (bool isSource : {true, false}) {
        const QString& s = isSource ? source : target;
        if (isSource && !config_.reads_source()) continue;
        if (s.trimmed().isEmpty()) {
            *error = isSource ? tr("The source sentence is empty: type words such as \"ich mochte ein bier\".")
                              : tr("The target sentence is empty: it starts with \"%1\", e.g. \"%1 i want a beer .\".")
                                    .arg(qs(config_.bos));
            return false;
        }
    }
    try {
        const std::string expected = config_.eos_id() >= 0 ? dec_output_for(ss(target), config_) : std::string();
        (void)make_sentence_batch(config_, ss(source), ss(target), expected);
        return true;
    } catch (const ConfigError& e) {
        *error = coreText(e);
    } catch (const std::exception& e) {
        *error = tr("The forward pass failed: %1").arg(coreText(e));
    }
    return false;
}

bool Session::recompute(const QString& source, const QString& target, QString* error) {
    if (!checkSentences(source, target, error)) return false;
    try {
        if (!model_) {  // validated; the trace comes with the model
            source_ = source;
            target_ = target;
            expected_ = config_.eos_id() >= 0 ? qs(dec_output_for(ss(target), config_)) : QString();
            return true;
        }
        try {
            adopt(computePass(*model_, config_, source, target));
        } catch (const DeviceLost& e) {
            fallBackToCpu(coreText(e));  // synchronous: the model on the CPU is made at once
            adopt(computePass(*model_, config_, source, target));
            emit modelChanged();
        }
        return true;
    } catch (const ConfigError& e) {
        *error = coreText(e);
    } catch (const std::exception& e) {
        *error = tr("The forward pass failed: %1").arg(coreText(e));
    }
    return false;
}

SentencePass Session::computePass(const Transformer& model, const Config& config, const QString& source,
                                  const QString& target) {
    SentencePass p;
    p.source = source;
    p.target = target;
    // Without an eos in the vocabulary there is no expected output to compare with.
    const std::string expected = config.eos_id() >= 0 ? dec_output_for(ss(target), config) : std::string();
    p.expected = qs(expected);
    Batch batch = make_sentence_batch(config, ss(source), ss(target), expected);
    auto t = std::make_shared<Trace>();
    model.forward(batch, *t);
    if (!expected.empty()) {
        model.loss(batch, *t);
        // The backward pass too, so the trace holds grad.* and the parameter gradients.
        auto grads = std::make_shared<ParamSet>(param_specs(config));
        model.backward(batch, *t, *grads, true);
        p.grads = std::move(grads);
        p.targetIds = batch.out;
    }
    t->release_staging();  // shown, never computed on again: nothing of it stays on a GPU
    p.trace = std::move(t);
    return p;
}

std::shared_ptr<const SentencePass> Session::tryComputePass(const Transformer& model, const QString& source,
                                                           const QString& target) {
    try {
        return std::make_shared<const SentencePass>(computePass(model, model.config(), source, target));
    } catch (const std::exception&) {
        return nullptr;
    }
}

void Session::adopt(const SentencePass& pass) {
    trace_ = pass.trace;
    liveTrace_.reset();  // of other sentences or another model
    grads_ = pass.grads;
    targetIds_ = pass.targetIds;
    source_ = pass.source;
    target_ = pass.target;
    expected_ = pass.expected;
}

QString Session::decodeInput() const {
    if (config_.reads_source()) return source_;
    // A decoder-only model continues a prompt: the text's first two words (the start word and
    // one more), so the Decode view generates the rest of the sentence word by word.
    const QStringList words = target_.simplified().split(QLatin1Char(' '), Qt::SkipEmptyParts);
    return words.mid(0, 2).join(QLatin1Char(' '));
}

QStringList Session::sourceVocabulary() const {
    QStringList l;
    for (const auto& w : config_.src_vocab) l << qs(w);
    return l;
}

QStringList Session::targetVocabulary() const {
    QStringList l;
    for (const auto& w : config_.tgt_vocab) l << qs(w);
    return l;
}

QString Session::translate(const QString& source, QString* error) const {
    if (!model_) {
        if (error) *error = tr("No model is loaded.");
        return {};
    }
    try {
        return qs(greedy_decode(*model_, ss(source)).text);  // a model without a source: `source` is the prompt
    } catch (const std::exception& e) {
        if (error) *error = coreText(e);
        return {};
    }
}

// ----- live traces from the Train panel -----------------------------------------------------

bool Session::showLiveTrace(std::shared_ptr<const Trace> trace, const Config& config, const QString& source,
                            const QString& target) {
    // The views read the trace with the session's config: the run's model must be this one's
    // shape, with its vocabulary and lengths, and the trace of the sentences shown.
    if (!trace || !model_ || source.simplified() != source_.simplified() ||
        target.simplified() != target_.simplified())
        return false;
    if (!config.same_architecture(config_) || config.src_len != config_.src_len || config.tgt_len != config_.tgt_len ||
        config.pad != config_.pad || config.bos != config_.bos || config.eos != config_.eos ||
        config.learn_layer_norm != config_.learn_layer_norm)
        return false;
    liveTrace_ = std::move(trace);
    emit liveTraceChanged();
    return true;
}

void Session::clearLiveTrace() {
    if (!liveTrace_) return;
    liveTrace_.reset();
    emit traceChanged();
}

// ----- training -----------------------------------------------------------------------------

void Session::finishTraining(const PresetTrainer::Result& r) {
    const Preset p = preset_;
    try {
        auto weights = std::make_shared<const ParamSet>(std::move(*r.params));  // handed over, not copied
        QString desc = r.saveError.isEmpty()
                           ? tr("%1 preset, trained on the tutorial's sentences (cached in %2)")
                                 .arg(presetKey(p), QDir::toNativeSeparators(cachedModelPath(p)))
                           : tr("%1 preset, trained on the tutorial's sentences (not cached: %2)")
                                 .arg(presetKey(p), r.saveError);
        precomputed_ = presetPass_->take();  // null when the worker could not compute it
        install(r.config, std::move(weights), ModelState::Trained, desc);
        precomputed_.reset();  // not of the sentences shown after all
    } catch (const std::exception& e) {
        emit trainingFailed(tr("Training the %1 model failed: %2").arg(presetKey(p), coreText(e)));
        return;
    }
    if (!r.saveError.isEmpty()) emit errorOccurred(tr("The trained model could not be cached: %1").arg(r.saveError));
    emit trainingFinished();
}

bool Session::isTraining() const { return trainer_->isRunning(); }

void Session::cancelTraining() {
    if (!trainer_->isRunning()) return;
    trainer_->cancel();
    state_ = ModelState::Untrained;
    description_ = tr("%1 preset at its initial weights (training cancelled)").arg(presetKey(preset_));
    if (pending_ && pending_->state == ModelState::Training) {  // the untrained model, still being switched to
        pending_->state = state_;
        pending_->description = description_;
    }
    emit modelChanged();
}
