#!/bin/sh
# Renders a fixed list of app states (step x view) off-screen, one PNG each, so that two builds
# can be compared pixel by pixel (scripts/compare_screenshots.sh) and every view looked at.
#   scripts/screenshot_states.sh BIN_DIR WEIGHTS OUT_DIR [WIDTHxHEIGHT]
# WEIGHTS: a trained model, e.g. from `stepformer-cli train --epochs 30 --save W.safetensors`.
set -eu
bin=$1 weights=$2 out=$3 size=${4:-1440x900}
mkdir -p "$out"
export QT_QPA_PLATFORM=offscreen
while read -r view step; do
    [ -n "$view" ] || continue
    file="$out/$view-$(echo "$step" | tr . _).png"
    "$bin/stepformer" --weights "$weights" --no-train --view "$view" --step "$step" --size "$size" \
        --screenshot "$file" >/dev/null 2>&1 || { echo "failed: $view $step" >&2; exit 1; }
    echo "$file"
done <<'STATES'
tensor encoder.src_emb.out
tensor encoder.pos_emb.out
tensor encoder.self_attn_mask
tensor encoder.layers.0.enc_self_attn.Q
tensor encoder.layers.0.enc_self_attn.scores
tensor encoder.layers.0.enc_self_attn.masked_scores
tensor encoder.layers.0.enc_self_attn.context
tensor encoder.layers.0.enc_self_attn.fc_out
tensor encoder.layers.0.enc_self_attn.residual
tensor encoder.layers.0.enc_self_attn.out
tensor encoder.layers.0.pos_ffn.hidden
tensor encoder.layers.0.pos_ffn.relu
tensor encoder.layers.3.pos_ffn.residual
tensor decoder.self_attn_mask
tensor decoder.layers.1.dec_enc_attn.scores
tensor decoder.layers.1.dec_enc_attn.V
tensor projection.logits
tensor projection.probs
tensor loss.per_token
attention encoder.layers.0.enc_self_attn.attn
attention decoder.layers.5.dec_self_attn.attn
attention decoder.layers.2.dec_enc_attn.attn
masks encoder.self_attn_mask
masks decoder.self_attn_subsequence_mask
masks decoder.enc_attn_mask
masks decoder.layers.0.dec_self_attn.masked_scores
pe encoder.pos_emb.pe
pe decoder.pos_emb.out
decode projection.probs
loss loss
loss loss.per_token
backward grad.projection.logits
backward grad.encoder.layers.0.enc_self_attn.Q
backward grad.decoder.layers.1.pos_ffn.hidden
backward grad.decoder.layers.0.dec_enc_attn.attn
backward grad.encoder.src_emb.out
STATES
