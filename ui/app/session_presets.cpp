// The Session's presets: each one's key (--preset, the cache's file names), menu title, tooltip
// and configuration, and the training recipe it names.
#include "app/session.h"

#include "stepformer/recipes.h"

using namespace stepformer;

namespace {

// Each preset's key (--preset, the cache's file names), its menu title (%1: its state, e.g.
// "trained") and its tooltip, untranslated (Session's context).
struct PresetText {
    Session::Preset preset;
    const char* key;
    const char* title;
    const char* tip;
};

constexpr PresetText kPresetTexts[] = {
    {Session::Preset::Tutorial, "tutorial", QT_TRANSLATE_NOOP("Session", "Tutorial (d_model 512, 6 layers, 8 heads, %1)"),
     QT_TRANSLATE_NOOP("Session", "The tutorial's model and configuration, trained on its two sentences "
                                  "(trained once on first use, then cached)")},
    {Session::Preset::Small, "small", QT_TRANSLATE_NOOP("Session", "Small (d_model 32, 2 layers, 4 heads, %1)"),
     QT_TRANSLATE_NOOP("Session", "A small model that is easy to read: every tensor fits on screen")},
    {Session::Preset::Untrained, "untrained", QT_TRANSLATE_NOOP("Session", "Untrained (tutorial size, initial weights)"),
     QT_TRANSLATE_NOOP("Session", "The tutorial's model before training: compare its noisy attention with the trained one")},
    {Session::Preset::Torch, "torch",
     QT_TRANSLATE_NOOP("Session", "PyTorch nn.Transformer (d_model 32, 2 + 2 layers, 4 heads, %1)"),
     QT_TRANSLATE_NOOP("Session", "PyTorch's own nn.Transformer (seed 002): packed in-projection with biases, learned "
                                  "LayerNorm, final encoder and decoder norms, masks of 0 / −inf; trained on the "
                                  "tutorial's sentences")},
    {Session::Preset::Aiayn, "aiayn",
     QT_TRANSLATE_NOOP("Session", "attention-is-all-you-need-pytorch (d_model 32, 2 layers, 4 heads, %1)"),
     QT_TRANSLATE_NOOP("Session", "attention-is-all-you-need-pytorch's Transformer (seed 003): the query scaled before "
                                  "q·kᵀ, LayerNorm after the positional encoding, the output projection sharing the "
                                  "target embedding, label-smoothed loss; trained on the tutorial's sentences")},
    {Session::Preset::Gpt, "gpt", QT_TRANSLATE_NOOP("Session", "nanoGPT (decoder only, n_embd 32, 2 layers, 4 heads, %1)"),
     QT_TRANSLATE_NOOP("Session", "Karpathy's nanoGPT: a decoder-only GPT that continues a sentence word by word. Learned "
                                  "positions, pre-norm blocks, a causal mask, GELU, lm_head tied to the token embedding; "
                                  "trained with AdamW on the toy sentences")},
};

const PresetText& textOf(Session::Preset p) {
    for (const PresetText& t : kPresetTexts)
        if (t.preset == p) return t;
    return kPresetTexts[0];
}

}  // namespace

QString Session::presetKey(Preset p) { return QLatin1String(textOf(p).key); }

std::optional<Session::Preset> Session::presetFromKey(const QString& key) {
    for (Preset p : allPresets())
        if (presetKey(p).compare(key.trimmed(), Qt::CaseInsensitive) == 0) return p;
    return std::nullopt;
}

QString Session::presetTitle(Preset p) { return presetTitle(p, tr("trained")); }

QString Session::presetTitle(Preset p, const QString& state) {
    const QString title = tr(textOf(p).title);
    return title.contains(QLatin1String("%1")) ? title.arg(state) : title;
}

QString Session::presetToolTip(Preset p) { return tr(textOf(p).tip); }

QList<Session::Preset> Session::allPresets() {
    return {Preset::Tutorial, Preset::Small, Preset::Torch, Preset::Aiayn, Preset::Gpt, Preset::Untrained};
}

Config Session::presetConfig(Preset p) {
    Config c = preset_architecture(trainingPresetOf(p));
    c.dropout = 0.0;  // deterministic training; dropout never acts in the shown forward pass
    return c;
}

stepformer::TrainingPreset Session::trainingPresetOf(Preset p) {
    switch (p) {
    case Session::Preset::Small: return TrainingPreset::Small;
    case Session::Preset::Torch: return TrainingPreset::Torch;
    case Session::Preset::Aiayn: return TrainingPreset::Aiayn;
    case Session::Preset::Gpt: return TrainingPreset::Gpt;
    default: return TrainingPreset::Tutorial;
    }
}
