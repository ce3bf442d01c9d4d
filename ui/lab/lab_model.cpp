#include "lab/lab_model.h"
#include "app/core_text.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

#include <QFile>
#include <QFileInfo>

#include "stepformer/model.h"
#include "stepformer/npy.h"
#include "stepformer/safetensors.h"

using namespace stepformer;

namespace {

const char* kSeedResource = ":/lab/seed004.safetensors";

// The shipped file: seed 004's x and encoder layer, and the decoder part that continues the same
// random stream (resources/lab/make_seed004.py).
const SafetensorsFile& seedFile() {
    static const SafetensorsFile f = [] {
        QFile file(QString::fromLatin1(kSeedResource));
        if (!file.open(QIODevice::ReadOnly)) throw std::runtime_error("the layer lab's resource is missing");
        const QByteArray bytes = file.readAll();
        return parse_safetensors(std::vector<uint8_t>(bytes.begin(), bytes.end()), kSeedResource);
    }();
    return f;
}

const Tensor& seedTensor(const std::string& name) {
    const StoredTensor* t = seedFile().find(name);
    if (!t) throw std::runtime_error(std::string(kSeedResource) + " has no " + name);
    return t->value;
}

// The lab's config with or without its decoder layer (validate() wants both fields to agree).
Config withDecoder(Config c, bool on) {
    c.decoder_layer = on;
    c.n_decoder_layers = on ? 1 : 0;
    return c;
}

QString what(const std::exception& e) { return coreText(e); }

// Standard-normal numbers from a seeded std::mt19937 (not torch.randn's stream).
void fillNormal(Tensor& t, uint32_t seed) {
    std::mt19937 rng(seed);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    for (float& v : t.data) v = normal(rng);
}

}  // namespace

LabModel::LabModel(QObject* parent) : QObject(parent), trace_(std::make_unique<Trace>()) {
    config_ = Config::seed004();
    useSeedWeightsQuietly();
    useSeedInputs();
    recompute();
}

void LabModel::useSeedInputs() {
    src_ = seedTensor("src");
    tgt_ = seedTensor("tgt");
    srcOrigin_ = tr("seed 004's x");
    tgtOrigin_ = tr("seed 004's tgt (continued)");
    resetPadding();
}

Config LabModel::config() const { return withDecoder(config_, decoder_); }

Config LabModel::fullConfig() const { return withDecoder(config_, true); }

void LabModel::useSeedWeightsQuietly() {
    Config c = config_;
    c.d_model = 4;
    c.n_heads = 2;
    c.d_k = c.d_v = 2;
    c.d_ff = 8;
    c.layer_norm_eps = 1e-5;
    ParamSet p(param_specs(withDecoder(c, true)));
    for (size_t i = 0; i < p.size(); ++i) p[i] = seedTensor(p.name(i));
    config_ = withDecoder(c, false);
    weights_ = std::move(p);
    weightsSource_ = WeightsSource::Seed004;
    weightsText_ = tr("Seed 004's: PyTorch's own initialisation after torch.manual_seed(42) and x = torch.randn(3, 1, 4) "
                      "(in_proj xavier, in_proj and out_proj biases 0, norms 1 and 0). The decoder "
                      "layer's weights continue the same random stream: PyTorch's initialisation too, but not the "
                      "notebook's decoder cells");
}

void LabModel::resetPadding() {
    srcPad_.assign(size_t(batch() * length(Side::Src)), 0);
    tgtPad_.assign(size_t(batch() * length(Side::Tgt)), 0);
}

// ----- inputs

void LabModel::setValue(Side s, int l, int b, int d, float v) {
    Tensor& t = s == Side::Src ? src_ : tgt_;
    if (l < 0 || l >= t.dim(0) || b < 0 || b >= t.dim(1) || d < 0 || d >= t.dim(2)) return;
    float& x = t.data[size_t((int64_t(l) * t.dim(1) + b) * t.dim(2) + d)];
    if (x == v) return;
    x = v;
    (s == Side::Src ? srcOrigin_ : tgtOrigin_) = tr("edited");
    recompute();
}

void LabModel::resizeInput(Side s, int len, int b) {
    Tensor& t = s == Side::Src ? src_ : tgt_;
    const int64_t D = config_.d_model;
    Tensor out({len, b, D});
    for (int64_t l = 0; l < std::min<int64_t>(len, t.dim(0)); ++l)
        for (int64_t k = 0; k < std::min<int64_t>(b, t.dim(1)); ++k)
            for (int64_t d = 0; d < std::min(D, t.dim(2)); ++d)
                out.data[size_t((l * b + k) * D + d)] = t.data[size_t((l * t.dim(1) + k) * t.dim(2) + d)];
    t = std::move(out);
}

void LabModel::setLength(Side s, int len) {
    len = std::clamp(len, 1, kMaxLen);
    if (len == length(s)) return;
    resizeInput(s, len, batch());
    (s == Side::Src ? srcOrigin_ : tgtOrigin_) = tr("resized");
    resetPadding();
    emit shapeChanged();
    recompute();
}

void LabModel::setBatch(int b) {
    b = std::clamp(b, 1, kMaxBatch);
    if (b == batch()) return;
    resizeInput(Side::Src, length(Side::Src), b);
    resizeInput(Side::Tgt, length(Side::Tgt), b);
    srcOrigin_ = tgtOrigin_ = tr("resized");
    resetPadding();
    emit shapeChanged();
    recompute();
}

bool LabModel::loadSeedInputs(QString* error) {
    if (config_.d_model != 4) {
        if (error) *error = tr("Seed 004's x has d_model 4; these weights have d_model %1.").arg(config_.d_model);
        return false;
    }
    useSeedInputs();
    emit shapeChanged();
    recompute();
    return true;
}

void LabModel::randomize(Side s, uint32_t seed) {
    fillNormal(s == Side::Src ? src_ : tgt_, seed);
    (s == Side::Src ? srcOrigin_ : tgtOrigin_) = tr("random, seed %1").arg(seed);
    recompute();
}

bool LabModel::loadNpy(Side s, const QString& path, QString* error) {
    Tensor t;
    try {
        t = read_npy(path.toStdString());
    } catch (const std::exception& e) {
        if (error) *error = what(e);
        return false;
    }
    const QString name = QFileInfo(path).fileName();
    const int D = config_.d_model;
    if (t.rank() == 2) t.shape = {t.dim(0), 1, t.dim(1)};  // unbatched [L, D]: one sentence
    const auto fail = [&](const QString& why) {
        if (error) *error = tr("%1 has shape %2: %3").arg(name, QString::fromStdString(shape_to_string(t.shape)), why);
        return false;
    };
    if (t.rank() != 3) return fail(tr("the layer takes [seq_len, batch, d_model] (or [seq_len, d_model])"));
    if (t.dim(2) != D) return fail(tr("the last dimension must be d_model = %1").arg(D));
    if (t.dim(0) < 1 || t.dim(0) > kMaxLen) return fail(tr("the lab takes sequence lengths 1 to %1").arg(kMaxLen));
    if (t.dim(1) < 1 || t.dim(1) > kMaxBatch) return fail(tr("the lab takes batch sizes 1 to %1").arg(kMaxBatch));
    for (float v : t.data)
        if (!std::isfinite(v)) return fail(tr("it contains NaN or infinity"));
    if (t.dim(1) != batch()) {  // src and tgt share the batch: the other side keeps the sentences that fit
        const Side other = s == Side::Src ? Side::Tgt : Side::Src;
        resizeInput(other, length(other), int(t.dim(1)));
    }
    (s == Side::Src ? src_ : tgt_) = std::move(t);
    (s == Side::Src ? srcOrigin_ : tgtOrigin_) = name;
    resetPadding();
    emit shapeChanged();
    recompute();
    return true;
}

// ----- masks and options

void LabModel::setCausal(bool on) {
    if (on == causal_) return;
    causal_ = on;
    recompute();
}

bool LabModel::padded(Side s, int b, int l) const {
    const std::vector<int>& p = s == Side::Src ? srcPad_ : tgtPad_;
    const size_t i = size_t(b * length(s) + l);
    return b >= 0 && l >= 0 && l < length(s) && i < p.size() && p[i] != 0;
}

void LabModel::setPadded(Side s, int b, int l, bool on) {
    std::vector<int>& p = s == Side::Src ? srcPad_ : tgtPad_;
    const size_t i = size_t(b * length(s) + l);
    if (b < 0 || l < 0 || l >= length(s) || i >= p.size() || (p[i] != 0) == on) return;
    p[i] = on ? 1 : 0;
    recompute();
}

void LabModel::setDecoder(bool on) {
    if (on == decoder_) return;
    decoder_ = on;
    emit shapeChanged();
    recompute();
}

void LabModel::setNormFirst(bool on) {
    if (on == config_.norm_first) return;
    config_.norm_first = on;
    recompute();
}

void LabModel::setActivation(const QString& a) {
    const std::string s = a == QLatin1String("gelu") ? "gelu" : "relu";
    if (s == config_.activation) return;
    config_.activation = s;
    recompute();
}

void LabModel::setGradients(bool on) {
    if (on == gradients_) return;
    gradients_ = on;
    recompute();
}

bool LabModel::isSeed004() const {
    const auto noPads = [](const std::vector<int>& p) { return std::all_of(p.begin(), p.end(), [](int v) { return v == 0; }); };
    return weightsSource_ == WeightsSource::Seed004 && srcOrigin_ == tr("seed 004's x") && !config_.norm_first &&
           config_.activation == "relu" && noPads(srcPad_);
}

// ----- weights

void LabModel::useSeedWeights() {
    const int oldD = config_.d_model;
    useSeedWeightsQuietly();
    if (oldD != config_.d_model) {
        useSeedInputs();
    }
    emit shapeChanged();
    recompute();
}

void LabModel::useFreshWeights(uint64_t seed) {
    freshSeed_ = seed;
    weights_ = init_params(fullConfig(), seed);
    weightsSource_ = WeightsSource::Fresh;
    weightsText_ = tr("Fresh: init_params(seed %1), PyTorch's initialisation schemes (in_proj xavier, linear layers "
                      "U(±1/√fan_in), biases of the attention 0, norms 1 and 0) from Stepformer's own random "
                      "generator, so not the numbers torch.manual_seed(%1) would give")
                       .arg(seed);
    emit shapeChanged();
    recompute();
}

bool LabModel::loadWeights(const QString& path, QString* error) {
    const std::string p = path.toStdString();
    const QString name = QFileInfo(path).fileName();
    try {
        Config c = config_;
        Config fileConfig;
        const bool ownConfig = read_config_from_weights(p, &fileConfig) && fileConfig.layers();
        if (ownConfig) {
            c = fileConfig;
        } else {
            // A bare state_dict: the sizes from the shapes, nhead from the lab (a state_dict does not say).
            const SafetensorsFile f = read_safetensors(p);
            const StoredTensor* in = f.find("encoder_layer.self_attn.in_proj_weight");
            const StoredTensor* l1 = f.find("encoder_layer.linear1.weight");
            if (!in || !l1 || in->shape.size() != 2 || l1->shape.size() != 2)
                throw WeightsError(tr("no encoder_layer.self_attn.in_proj_weight / encoder_layer.linear1.weight: the lab "
                                      "opens the state_dicts of nn.TransformerEncoderLayer (and nn.TransformerDecoderLayer) "
                                      "saved under the names encoder_layer.* (and decoder_layer.*)")
                                       .toStdString());
            c.d_model = int(in->shape[1]);
            c.d_ff = int(l1->shape[0]);
            if (c.d_model <= 0 || c.d_model % c.n_heads != 0)
                throw WeightsError(tr("d_model %1 is not divisible by nhead %2; a state_dict does not say nhead: save "
                                      "the file with a stepformer config in its metadata")
                                       .arg(c.d_model)
                                       .arg(c.n_heads)
                                       .toStdString());
            c.d_k = c.d_v = c.d_model / c.n_heads;
            c = withDecoder(c, f.find("decoder_layer.self_attn.in_proj_weight") != nullptr);
        }
        LoadedWeights lw = load_weights(p, &c);
        // Both layers are held: a file without a decoder layer gets fresh ones for it.
        ParamSet all = init_params(withDecoder(c, true), freshSeed_);
        for (size_t i = 0; i < lw.params.size(); ++i) all.at(lw.params.name(i)) = lw.params[i];
        const int oldD = config_.d_model;
        config_ = withDecoder(c, false);
        weights_ = std::move(all);
        weightsSource_ = WeightsSource::File;
        weightsText_ = tr("From %1%2").arg(name, ownConfig ? tr(" (with its config)") : tr(" (nhead %1 assumed)").arg(c.n_heads));
        if (!lw.config.decoder_layer)
            weightsText_ += tr("; it has no decoder_layer.*: the decoder layer's are fresh, init_params(seed %1)").arg(freshSeed_);
        if (oldD != config_.d_model) {  // the inputs no longer fit: random ones of the new width
            resizeInput(Side::Src, length(Side::Src), batch());
            resizeInput(Side::Tgt, length(Side::Tgt), batch());
            fillNormal(src_, 0);
            fillNormal(tgt_, 1);
            srcOrigin_ = tr("random, seed 0");
            tgtOrigin_ = tr("random, seed 1");
            resetPadding();
        }
    } catch (const std::exception& e) {
        if (error) *error = what(e);
        return false;
    }
    emit shapeChanged();
    recompute();
    return true;
}

// ----- the pass

void LabModel::recompute() {
    auto t = std::make_unique<Trace>();
    error_.clear();
    try {
        const Config c = withDecoder(config_, decoder_);
        ParamSet p(param_specs(c));
        for (size_t i = 0; i < p.size(); ++i) p[i] = weights_.at(p.name(i));
        Transformer model(c, std::move(p));
        Batch b = make_layer_batch(c, src_, decoder_ ? tgt_ : Tensor{});
        const auto any = [](const std::vector<int>& v) { return std::any_of(v.begin(), v.end(), [](int x) { return x; }); };
        if (any(srcPad_)) b.src_key_padding_mask = srcPad_;
        if (decoder_) {
            if (any(srcPad_)) b.memory_key_padding_mask = srcPad_;
            if (any(tgtPad_)) b.tgt_key_padding_mask = tgtPad_;
            if (causal_) {  // nn.Transformer.generate_square_subsequent_mask(T): −inf above the diagonal
                const int T = b.T;
                b.tgt_mask = Tensor({T, T});
                for (int q = 0; q < T; ++q)
                    for (int k = q + 1; k < T; ++k) b.tgt_mask.data[size_t(q * T + k)] = -std::numeric_limits<float>::infinity();
            }
        }
        model.forward(b, *t);
        if (gradients_) {
            // loss = output[..., 0].sum(): d loss / d output is 1 at feature 0 of every position.
            // (The sum of every output would be constant: a LayerNorm's outputs sum to sum(beta).)
            const Tensor& out = t->entries().back().value;  // batch-first (B, L, D)
            Tensor dout(out.shape);
            for (int64_t r = 0; r < out.dim(0) * out.dim(1); ++r) dout.data[size_t(r * out.dim(2))] = 1.0f;
            ParamSet grads;
            model.backward_from_output(b, *t, dout, grads);
        }
        t->release_staging();
    } catch (const std::exception& e) {
        error_ = what(e);
        t->clear();
    }
    trace_ = std::move(t);
    emit computed();
}
