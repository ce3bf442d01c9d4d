// The layer lab's state and computation, without widgets: seed 004's nn.TransformerEncoderLayer
// (optionally followed by a nn.TransformerDecoderLayer reading its output as memory), its
// inputs in PyTorch's layout [seq_len, batch, d_model], its masks and weights, and the trace
// of one forward pass (and the backward pass from the output) computed from them. Every change
// recomputes at once on the calling (GUI) thread: at d_model 4 a pass takes microseconds.
#pragma once

#include <cstdint>
#include <memory>

#include <QObject>
#include <QString>

#include "stepformer/config.h"
#include "stepformer/params.h"
#include "stepformer/tensor.h"
#include "stepformer/trace.h"

class LabModel : public QObject {
    Q_OBJECT
public:
    static constexpr int kMaxLen = 8;    // sequence lengths and batch: every number stays on screen
    static constexpr int kMaxBatch = 8;
    enum class Side { Src, Tgt };
    enum class WeightsSource { Seed004, Fresh, File };

    // Starts on seed 004: its x, its encoder layer's weights (the resource :/lab/seed004.safetensors).
    explicit LabModel(QObject* parent = nullptr);

    // ----- inputs, [L, B, D] as PyTorch takes them (batch_first=False)
    const stepformer::Tensor& input(Side s) const { return s == Side::Src ? src_ : tgt_; }
    int length(Side s) const { return int(input(s).dim(0)); }
    int batch() const { return int(src_.dim(1)); }
    int dModel() const { return config_.d_model; }
    // Changes one number.
    void setValue(Side s, int l, int b, int d, float v);
    // New sizes keep the numbers that still fit; new rows are 0. Clamped to 1..kMax*.
    void setLength(Side s, int len);
    void setBatch(int b);
    // Seed 004's x (and the decoder part's tgt [5, 1, 4]). Fails (false) while d_model is not 4.
    bool loadSeedInputs(QString* error = nullptr);
    // Standard-normal numbers from a seeded generator (std::mt19937, not torch.randn's).
    void randomize(Side s, uint32_t seed);
    // An .npy of [L, B, D] or [L, D] (one sentence, B = 1, as PyTorch takes an unbatched input).
    // On any problem the inputs stay as they were and `error` says why.
    bool loadNpy(Side s, const QString& path, QString* error);
    // What the numbers are ("seed 004's x", "random, seed 3", "x.npy", "edited").
    QString inputOrigin(Side s) const { return s == Side::Src ? srcOrigin_ : tgtOrigin_; }

    // ----- masks
    bool causal() const { return causal_; }
    void setCausal(bool on);  // tgt_mask = generate_square_subsequent_mask(T)
    // key_padding_mask[b][l] (True = ignore); src's is also the decoder's memory_key_padding_mask,
    // as nn.Transformer passes it.
    bool padded(Side s, int b, int l) const;
    void setPadded(Side s, int b, int l, bool on);

    // ----- the layers
    bool decoder() const { return decoder_; }
    void setDecoder(bool on);
    bool normFirst() const { return config_.norm_first; }
    void setNormFirst(bool on);
    QString activation() const { return QString::fromStdString(config_.activation); }
    void setActivation(const QString& relu_or_gelu);
    int nhead() const { return config_.n_heads; }
    // The layers' config as the pass runs it (decoder_layer as set).
    stepformer::Config config() const;
    // Whether the numbers are the notebook's: seed 004's x and weights, post-norm relu, no masks.
    bool isSeed004() const;

    // ----- weights (both layers are always held; the decoder's are used when it is on)
    WeightsSource weightsSource() const { return weightsSource_; }
    QString weightsDescription() const { return weightsText_; }
    uint64_t freshSeed() const { return freshSeed_; }
    void useSeedWeights();
    void useFreshWeights(uint64_t seed);  // init_params: PyTorch's schemes, Stepformer's generator
    // A safetensors with encoder_layer.* (and optionally decoder_layer.*) names; a file's own
    // stepformer config is used, otherwise d_model and dim_feedforward come from the shapes. On
    // failure everything stays as it was.
    bool loadWeights(const QString& path, QString* error);

    // ----- the result
    const stepformer::Trace& trace() const { return *trace_; }
    QString error() const { return error_; }  // why the last computation failed; empty when it ran
    bool gradients() const { return gradients_; }
    void setGradients(bool on);  // backward from loss = output[..., 0].sum()

signals:
    // After every recomputation (also a failed one: then error() says why and the trace is empty).
    void computed();
    // The sizes or the weights' shapes changed (tables re-lay out), before computed().
    void shapeChanged();

private:
    void recompute();
    void useSeedWeightsQuietly();  // without recomputing
    void useSeedInputs();          // seed 004's x and tgt, unpadded (without recomputing)
    void resizeInput(Side s, int len, int batch);
    stepformer::Config fullConfig() const;  // with the decoder layer, for the held weights
    void resetPadding();

    stepformer::Config config_;
    stepformer::ParamSet weights_;  // encoder_layer.* and decoder_layer.*
    stepformer::Tensor src_, tgt_;
    std::vector<int> srcPad_, tgtPad_;  // [B * L]
    QString srcOrigin_, tgtOrigin_;
    bool decoder_ = false, causal_ = false, gradients_ = true;
    WeightsSource weightsSource_ = WeightsSource::Seed004;
    QString weightsText_;
    uint64_t freshSeed_ = 1;
    std::unique_ptr<stepformer::Trace> trace_;
    QString error_;
};
