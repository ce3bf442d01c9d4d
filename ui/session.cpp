#include "session.h"

#include <QDir>
#include <QFileInfo>
#include <QPointer>
#include <QStandardPaths>
#include <QThread>
#include <QtDebug>

#include "stepformer/checkpoint.h"
#include "stepformer/dataset.h"
#include "stepformer/decode.h"
#include "stepformer/model.h"
#include "stepformer/model_io.h"
#include "stepformer/optimizer.h"
#include "stepformer/params.h"
#include "stepformer/train.h"

using namespace stepformer;

namespace {

QString qs(const std::string& s) { return QString::fromStdString(s); }
std::string ss(const QString& s) { return s.toStdString(); }

// The seed of the initial weights: the untrained model shown while training is exactly the model
// the training starts from.
constexpr uint64_t kInitSeed = 7;

// One stage of a training recipe. Later stages only run when the model does not translate both
// training sentences correctly after the earlier ones.
struct Stage {
    TrainOptions options;
};

std::vector<Stage> recipe(Session::Preset p) {
    std::vector<Stage> stages;
    if (p == Session::Preset::Small) {
        Stage a;
        a.options.epochs = 60;
        a.options.batch_size = 2;
        a.options.seed = 1;
        a.options.optimizer.kind = OptimizerKind::Adam;
        a.options.optimizer.lr = 5e-3;
        stages.push_back(a);
        Stage b = a;
        b.options.epochs = 100;
        b.options.optimizer.lr = 1e-3;
        stages.push_back(b);
    } else {
        // The tutorial's own loop: 30 epochs of SGD(lr=1e-3, momentum=0.99), batches of 2.
        Stage a;
        a.options.epochs = 30;
        a.options.batch_size = 2;
        a.options.seed = 1;
        a.options.optimizer.kind = OptimizerKind::SGD;
        a.options.optimizer.lr = 1e-3;
        a.options.optimizer.momentum = 0.99;
        stages.push_back(a);
        // Should that not be enough for exact translations: Adam, gently.
        Stage b = a;
        b.options.epochs = 60;
        b.options.optimizer.kind = OptimizerKind::Adam;
        b.options.optimizer.lr = 1e-4;
        stages.push_back(b);
    }
    return stages;
}

int stageSteps(const Stage& s, int examples) {
    const int per_epoch = (examples + s.options.batch_size - 1) / s.options.batch_size;
    return per_epoch * s.options.epochs;
}

// Expected greedy translation of an example: dec_output without eos / pad.
std::string expectedTranslation(const Example& ex, const Config& c) {
    std::string out;
    for (const auto& w : split_words(ex.dec_output)) {
        if (w == c.eos || w == c.pad || w == c.bos) continue;
        if (!out.empty()) out += ' ';
        out += w;
    }
    return out;
}

bool translatesTrainingSet(const Transformer& model, QString* detail) {
    bool ok = true;
    QStringList lines;
    for (const auto& ex : builtin_examples()) {
        const auto r = greedy_decode(model, ex.enc_input);
        const auto want = expectedTranslation(ex, model.config());
        lines << qs(ex.enc_input + " → " + r.text);
        ok = ok && r.text == want;
    }
    if (detail) *detail = lines.join(QStringLiteral("; "));
    return ok;
}

}  // namespace

struct Session::TrainOutcome {
    bool ok = false;
    bool stopped = false;
    bool verified = false;
    QString message;     // failure or the translations after training
    QString saveError;   // the cache could not be written (the model is still used)
    double lastLoss = 0.0;
    Config config;
    ParamSet params;
};

Session::Session(QObject* parent) : QObject(parent) {
    // No model until setPreset() / openWeights(): sentences given before are only validated
    // against the tutorial's vocabulary, and trace() is null.
    config_ = presetConfig(Preset::Tutorial);
    description_ = tr("No model yet");
}

Session::~Session() { stopWorker(true); }

// ----- presets ------------------------------------------------------------------------------

QString Session::presetKey(Preset p) {
    switch (p) {
    case Preset::Tutorial: return QStringLiteral("tutorial");
    case Preset::Small: return QStringLiteral("small");
    case Preset::Untrained: return QStringLiteral("untrained");
    }
    return {};
}

std::optional<Session::Preset> Session::presetFromKey(const QString& key) {
    for (Preset p : allPresets())
        if (presetKey(p).compare(key.trimmed(), Qt::CaseInsensitive) == 0) return p;
    return std::nullopt;
}

QString Session::presetTitle(Preset p) {
    switch (p) {
    case Preset::Tutorial: return tr("Tutorial (d_model 512, 6 layers, 8 heads, trained)");
    case Preset::Small: return tr("Small (d_model 32, 2 layers, 4 heads, trained)");
    case Preset::Untrained: return tr("Untrained (tutorial size, initial weights)");
    }
    return {};
}

QString Session::presetToolTip(Preset p) {
    switch (p) {
    case Preset::Tutorial:
        return tr("The tutorial's model and configuration, trained on its two sentences "
                  "(trained once on first use, then cached)");
    case Preset::Small:
        return tr("A small model that is easy to read: every tensor fits on screen");
    case Preset::Untrained:
        return tr("The tutorial's model before training: compare its noisy attention with the trained one");
    }
    return {};
}

QList<Session::Preset> Session::allPresets() { return {Preset::Tutorial, Preset::Small, Preset::Untrained}; }

Config Session::presetConfig(Preset p) {
    Config c = p == Preset::Small ? Config::small() : Config::tutorial();
    c.dropout = 0.0;  // deterministic training; dropout never acts in the shown forward pass
    return c;
}

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
    case ModelState::FromFile: return tr("from file");
    }
    return {};
}

bool Session::setPreset(Preset p) {
    stopWorker(false);
    ++generation_;
    preset_ = p;
    const Config cfg = presetConfig(p);

    if (p != Preset::Untrained) {
        const QString path = cachedModelPath(p);
        if (QFileInfo::exists(path)) {
            try {
                Checkpoint ck = load_checkpoint(ss(path), &cfg);
                auto model = std::make_shared<Transformer>(ck.config, std::move(ck.params));
                install(ck.config, std::move(model), ModelState::Trained,
                        tr("%1 preset, trained on the tutorial's sentences (cached in %2)")
                            .arg(presetKey(p), QDir::toNativeSeparators(path)));
                return true;
            } catch (const std::exception& e) {
                qWarning().noquote() << "Ignoring the cached model" << path << ":" << e.what() << "; training a new one";
            }
        }
    }

    try {
        auto model = std::make_shared<Transformer>(cfg, init_params(cfg, kInitSeed));
        const bool train = p != Preset::Untrained && provisioning_ != Provisioning::Never;
        install(cfg, std::move(model), train ? ModelState::Training : ModelState::Untrained,
                p == Preset::Untrained ? tr("Untrained model (tutorial size, initial weights)")
                                       : tr("%1 preset at its initial weights (untrained)").arg(presetKey(p)));
        if (train) startTraining(p, cfg, provisioning_ == Provisioning::Synchronous);
        return true;
    } catch (const std::exception& e) {
        emit errorOccurred(tr("Could not create the %1 model: %2").arg(presetKey(p), qs(e.what())));
        return false;
    }
}

// ----- weights from a file ------------------------------------------------------------------

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
        LoadedWeights w = load_weights(ss(path), cfg ? &*cfg : nullptr);
        auto model = std::make_shared<Transformer>(w.config, std::move(w.params));
        QString desc = tr("Weights %1 with %2").arg(QFileInfo(path).fileName(), configNote);
        if (!w.defaulted.empty()) desc += tr("; %1 LayerNorm parameters defaulted to 1/0").arg(w.defaulted.size());
        for (const auto& n : w.notes) desc += QStringLiteral("; ") + qs(n);
        stopWorker(false);
        ++generation_;
        install(w.config, std::move(model), ModelState::FromFile, desc);
        for (const auto& warning : w.warnings) emit warningRaised(qs(warning));
        return true;
    } catch (const std::exception& e) {
        QString msg = tr("Could not open the weights file %1:\n%2").arg(shown, qs(e.what()));
        if (!configNote.isEmpty() && configPath.isEmpty() && !configNote.startsWith(tr("config")))
            msg += tr("\n\nThe file carries no model configuration, so the tutorial's was assumed. If the model "
                      "has another size, put its config as \"%1.config.json\" beside the file.")
                       .arg(QFileInfo(path).baseName());
        emit errorOccurred(msg);
        return false;
    }
}

bool Session::installTrainedModel(const Config& config, std::shared_ptr<const ParamSet> params) {
    if (!params) {
        emit errorOccurred(tr("The trained model has no weights."));
        return false;
    }
    try {
        auto model = std::make_shared<Transformer>(config, *params);
        stopWorker(false);
        ++generation_;
        install(config, std::move(model), ModelState::FromFile, tr("Weights trained in the app (Train panel)"));
        return true;
    } catch (const std::exception& e) {
        emit errorOccurred(tr("Could not use the trained weights: %1").arg(qs(e.what())));
        return false;
    }
}

std::shared_ptr<const ParamSet> Session::params() const {
    if (!model_) return {};
    return std::shared_ptr<const ParamSet>(model_, &model_->params());
}

// ----- sentences and the trace --------------------------------------------------------------

QString Session::validateSentence(const QString& sentence, bool isSource) const {
    if (sentence.trimmed().isEmpty())
        return isSource ? tr("The source sentence is empty.") : tr("The target sentence is empty.");
    try {
        if (isSource)
            encode_sentence(ss(sentence), config_.src_vocab, config_.src_len, "source");
        else
            encode_sentence(ss(sentence), config_.tgt_vocab, config_.tgt_len, "target");
    } catch (const std::exception& e) {
        return qs(e.what());
    }
    return {};
}

bool Session::recompute(const QString& source, const QString& target, QString* error) {
    for (bool isSource : {true, false}) {
        const QString& s = isSource ? source : target;
        if (s.trimmed().isEmpty()) {
            *error = isSource ? tr("The source sentence is empty: type words such as \"ich mochte ein bier\".")
                              : tr("The target sentence is empty: it starts with \"%1\", e.g. \"%1 i want a beer .\".")
                                    .arg(qs(config_.bos));
            return false;
        }
    }
    try {
        // The decoder's expected output (dec_output): the target without its bos, then eos.
        std::vector<std::string> out;
        std::string expected;
        auto words = split_words(ss(target));
        while (!words.empty() && words.back() == config_.pad) words.pop_back();
        if (!words.empty() && words.front() == config_.bos && config_.eos_id() >= 0 &&
            static_cast<int>(words.size()) <= config_.tgt_len) {
            for (size_t i = 1; i < words.size(); ++i) expected += words[i] + " ";
            expected += config_.eos;
            out.push_back(expected);
        }
        Batch batch = make_batch(config_, {ss(source)}, {ss(target)}, out);
        if (!model_) {  // validated; the trace comes with the model
            source_ = source;
            target_ = target;
            expected_ = qs(expected);
            return true;
        }
        auto t = std::make_shared<Trace>();
        model_->forward(batch, *t);
        std::shared_ptr<ParamSet> grads;
        if (!out.empty()) {
            model_->loss(batch, *t);
            // The backward pass too, so the trace holds grad.* and the parameter gradients.
            grads = std::make_shared<ParamSet>(param_specs(config_));
            model_->backward(batch, *t, *grads, true);
        }
        trace_ = std::move(t);
        grads_ = std::move(grads);
        targetIds_ = out.empty() ? std::vector<int>{} : batch.out;
        source_ = source;
        target_ = target;
        expected_ = qs(expected);
        return true;
    } catch (const ConfigError& e) {
        *error = qs(e.what());
    } catch (const std::exception& e) {
        *error = tr("The forward pass failed: %1").arg(qs(e.what()));
    }
    return false;
}

bool Session::setSentences(const QString& source, const QString& target) {
    QString err;
    if (!recompute(source, target, &err)) {
        emit inputRejected(err);
        return false;
    }
    emit inputAccepted();
    emit traceChanged();
    return true;
}

void Session::install(Config config, std::shared_ptr<Transformer> model, ModelState state, QString description) {
    config_ = std::move(config);
    model_ = std::move(model);
    optimizer_.reset();
    if (model_) {
        OptimizerOptions o;  // the tutorial's: SGD(lr=1e-3, momentum=0.99)
        o.kind = OptimizerKind::SGD;
        o.lr = 1e-3;
        o.momentum = 0.99;
        optimizer_ = std::make_shared<const Optimizer>(o, model_->params());
    }
    state_ = state;
    description_ = std::move(description);
    recomputeAfterModelChange();
    emit modelChanged();
    emit traceChanged();
}

void Session::recomputeAfterModelChange() {
    QString err;
    if (recompute(source_, target_, &err)) return;
    // The new vocabulary does not take the current sentences: the tutorial's example, else the
    // shortest valid pair.
    QStringList tries{defaultSource(), defaultTarget()};
    const auto ex = builtin_examples();
    for (const auto& e : ex) tries << qs(e.enc_input) << qs(e.dec_input);
    if (config_.src_vocab.size() > 1) tries << qs(config_.src_vocab[1]) << qs(config_.bos);
    tries << qs(config_.src_vocab.front()) << qs(config_.bos);
    for (int i = 0; i + 1 < tries.size(); i += 2) {
        if (recompute(tries[i], tries[i + 1], &err)) {
            emit sentencesReset(source_, target_);
            return;
        }
    }
    trace_ = std::make_shared<Trace>();  // nothing fits: an empty trace rather than a stale one
    grads_.reset();
    targetIds_.clear();
    emit errorOccurred(tr("No sentence fits this model's vocabulary: %1").arg(err));
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
        return qs(greedy_decode(*model_, ss(source)).text);
    } catch (const std::exception& e) {
        if (error) *error = qs(e.what());
        return {};
    }
}

// ----- training -----------------------------------------------------------------------------

void Session::startTraining(Preset p, const Config& config, bool synchronous) {
    const auto stages = recipe(p);
    const int nExamples = static_cast<int>(builtin_examples().size());
    const int firstTotal = stageSteps(stages.front(), nExamples);
    const quint64 gen = generation_;
    control_ = std::make_shared<TrainControl>();
    auto control = control_;
    const std::string path = ss(cachedModelPath(p));
    const QString dir = cacheDir();
    ParamSet initial = model_->params();
    QPointer<Session> self(this);

    // Runs on the worker thread (or the calling thread when synchronous). It owns its own model;
    // only finished weights travel back.
    auto post = [self, synchronous](std::function<void()> fn) {
        if (synchronous) {
            fn();
        } else if (self) {
            QMetaObject::invokeMethod(self.data(), std::move(fn), Qt::QueuedConnection);
        }
    };
    auto job = [this, post, stages, nExamples, firstTotal, gen, control, path, dir, config,
                initial = std::move(initial), p]() mutable {
        auto outcome = std::make_shared<TrainOutcome>();
        try {
            Transformer model(config, std::move(initial));
            int done = 0, total = firstTotal;
            QString detail;
            for (size_t i = 0; i < stages.size(); ++i) {
                if (i > 0) {
                    if (outcome->verified) break;
                    total += stageSteps(stages[i], nExamples);
                }
                Trainer trainer(model, builtin_examples(), stages[i].options);
                const int base = done, tot = total;
                auto r = trainer.run(
                    [&](const StepReport& s) {
                        const int step = base + s.step;
                        const double loss = s.loss;
                        post([this, gen, step, tot, loss] {
                            if (gen == generation_) emit trainingProgress(step, tot, loss);
                        });
                    },
                    {}, control.get());
                done += r.steps_done;
                outcome->lastLoss = r.last_loss;
                if (r.status == TrainStatus::Stopped) {
                    outcome->stopped = true;
                    break;
                }
                if (r.status == TrainStatus::Diverged) {
                    outcome->message = qs(r.message);
                    continue;  // the next stage starts from the last good weights
                }
                outcome->verified = translatesTrainingSet(model, &detail);
            }
            if (!outcome->stopped) {
                outcome->ok = true;
                outcome->message = detail;
                if (!outcome->verified)
                    qWarning().noquote() << "The trained" << presetKey(p)
                                         << "model does not translate the training sentences exactly:" << detail;
                try {
                    if (!QDir().mkpath(dir)) throw std::runtime_error("cannot create the folder " + ss(dir));
                    save_checkpoint(path, model);
                } catch (const std::exception& e) {
                    outcome->saveError = qs(e.what());
                }
                outcome->config = model.config();
                outcome->params = model.params();
            }
        } catch (const std::exception& e) {
            outcome->ok = false;
            outcome->message = qs(e.what());
        }
        post([this, gen, p, outcome] { finishTraining(gen, p, outcome); });
    };

    emit trainingStarted(firstTotal);
    if (synchronous) {
        job();
        return;
    }
    worker_ = QThread::create(std::move(job));
    worker_->setObjectName(QStringLiteral("stepformer-training"));
    worker_->start(QThread::LowPriority);
}

void Session::finishTraining(quint64 generation, Preset p, const std::shared_ptr<TrainOutcome>& outcome) {
    if (generation != generation_) return;  // a newer model replaced this one
    if (worker_) {
        worker_->wait();
        delete worker_;
        worker_ = nullptr;
    }
    control_.reset();
    if (outcome->stopped) {
        state_ = ModelState::Untrained;
        description_ = tr("%1 preset at its initial weights (training cancelled)").arg(presetKey(p));
        emit modelChanged();
        return;
    }
    if (!outcome->ok) {
        state_ = ModelState::Untrained;
        description_ = tr("%1 preset at its initial weights (training failed)").arg(presetKey(p));
        emit modelChanged();
        emit trainingFailed(tr("Training the %1 model failed: %2").arg(presetKey(p), outcome->message));
        return;
    }
    try {
        auto model = std::make_shared<Transformer>(outcome->config, std::move(outcome->params));
        QString desc = outcome->saveError.isEmpty()
                           ? tr("%1 preset, trained on the tutorial's sentences (cached in %2)")
                                 .arg(presetKey(p), QDir::toNativeSeparators(cachedModelPath(p)))
                           : tr("%1 preset, trained on the tutorial's sentences (not cached: %2)")
                                 .arg(presetKey(p), outcome->saveError);
        install(outcome->config, std::move(model), ModelState::Trained, desc);
    } catch (const std::exception& e) {
        emit trainingFailed(tr("Training the %1 model failed: %2").arg(presetKey(p), qs(e.what())));
        return;
    }
    if (!outcome->saveError.isEmpty())
        emit errorOccurred(tr("The trained model could not be cached: %1").arg(outcome->saveError));
    emit trainingFinished();
}

void Session::stopWorker(bool wait) {
    if (worker_) {
        if (control_) {
            control_->request_stop();
            control_->resume();
        }
        QThread* t = worker_;
        worker_ = nullptr;
        control_.reset();
        if (wait) {
            t->wait();
            delete t;
        } else {
            // It stops after the step it is in; the GUI does not wait for that (its results are
            // dropped: the generation has moved on).
            retiring_.append(t);
            connect(t, &QThread::finished, this, [this, t] {
                retiring_.removeOne(t);
                t->deleteLater();
            });
        }
    }
    if (wait) {
        for (QThread* t : std::as_const(retiring_)) {
            t->wait();
            delete t;
        }
        retiring_.clear();
    }
}

void Session::cancelTraining() {
    if (!worker_) return;
    stopWorker(false);
    ++generation_;
    state_ = ModelState::Untrained;
    description_ = tr("%1 preset at its initial weights (training cancelled)").arg(presetKey(preset_));
    emit modelChanged();
}
