#include "lab/lab_steps.h"

#include <QCoreApplication>
#include <QStringList>

#include "stepformer/trace_names.h"

using namespace stepformer;

namespace labsteps {

namespace {

// The context lupdate gives tr() in this namespace.
QString tr(const char* s) { return QCoreApplication::translate("labsteps", s); }

bool isGrad(const TraceEntry& e) { return names::is_grad(e.name); }

QString baseName(const TraceEntry& e) { return QString::fromStdString(names::forward_name(e.name)); }

// The name after "encoder_layer." / "decoder_layer.".
QString leafOf(const QString& base) {
    for (const char* p : {"encoder_layer.", "decoder_layer."})
        if (base.startsWith(QLatin1String(p))) return base.mid(int(qstrlen(p)));
    return base;
}

QString layerOf(const TraceEntry& e) {
    return e.block.decoder() ? QStringLiteral("decoder_layer") : QStringLiteral("encoder_layer");
}

// The sub-layer an entry belongs to (an add/norm: the sub-layer it closes), short enough for the
// step list; `full` adds the modules it is made of.
QString subLayerTitle(const TraceEntry& e, const Config& c, bool full) {
    const QString L = layerOf(e);
    const QString act = QString::fromStdString(c.activation);
    const auto t = [&](const QString& shortText, const QString& modules) {
        return full ? QStringLiteral("%1: %2").arg(shortText, modules) : shortText;
    };
    switch (e.block.kind) {
    case BlockKind::Input:
        return e.block.decoder() ? t(tr("tgt (decoder input)"), tr("the decoder layer's input"))
                                 : t(tr("src (encoder input)"), tr("the encoder layer's input"));
    case BlockKind::SelfAttention:
    case BlockKind::MaskedSelfAttention:
        return t(tr("%1 · self-attn").arg(L), tr("self_attn, add1, norm1"));
    case BlockKind::CrossAttention:
        return t(tr("%1 · cross-attn").arg(L), tr("multihead_attn over memory, add2, norm2"));
    case BlockKind::FeedForward:
        return t(tr("%1 · feed-forward").arg(L),
                 e.block.decoder() ? tr("linear1, %1, linear2, add3, norm3").arg(act) : tr("linear1, %1, linear2, add2, norm2").arg(act));
    default:
        return tr("other");
    }
}

}  // namespace

QString groupTitle(const TraceEntry& e, const Config& c) {
    const QString t = subLayerTitle(e, c, false);
    return isGrad(e) ? tr("grad · %1").arg(t) : t;
}

QString groupToolTip(const TraceEntry& e, const Config& c) {
    const QString t = subLayerTitle(e, c, true);
    return isGrad(e) ? tr("Backward pass, gradients of loss = output[..., 0].sum(): %1").arg(t) : t;
}

QString label(const TraceEntry& e) {
    const QString leaf = leafOf(baseName(e));
    return isGrad(e) ? QStringLiteral("grad.") + leaf : leaf;
}

QString seedName(const TraceEntry& e, const Config& c, bool last) {
    if (isGrad(e)) return {};
    const QString leaf = leafOf(baseName(e));
    if (e.role == Role::Input) return e.block.decoder() ? QStringLiteral("decoder_input") : QStringLiteral("encoder_input (X)");
    if (last) return e.block.decoder() ? QStringLiteral("output") : QStringLiteral("normalized2 = memory");
    if (e.block.decoder() || c.norm_first) {
        // The encoder's output is the decoder's memory; the seed's hand derivation is the post-norm encoder's.
        const bool encoderOut = !e.block.decoder() && leaf == QLatin1String("add2");
        return encoderOut ? QStringLiteral("memory") : QString();
    }
    static const QList<QPair<QString, QString>> names = {
        {QStringLiteral("self_attn.Q"), QStringLiteral("Q (1.4)")},
        {QStringLiteral("self_attn.K"), QStringLiteral("K (1.4)")},
        {QStringLiteral("self_attn.V"), QStringLiteral("V (1.4)")},
        {QStringLiteral("self_attn.scores"), QStringLiteral("scores (1.5)")},
        {QStringLiteral("self_attn.attn"), QStringLiteral("attn_weights (1.5)")},
        {QStringLiteral("self_attn.context"), QStringLiteral("attn_output (1.6)")},
        {QStringLiteral("self_attn.out_proj"), QStringLiteral("attn_output (1.8)")},
        {QStringLiteral("add1"), QStringLiteral("residual (2.2)")},
        {QStringLiteral("norm1"), QStringLiteral("normalized (2.2)")},
        {QStringLiteral("linear1"), QStringLiteral("ffn_output (3.2)")},
        {QStringLiteral("linear2"), QStringLiteral("ffn_output (3.3)")},
        {QStringLiteral("add2"), QStringLiteral("residual2 (4.2)")},
        {QStringLiteral("norm2"), QStringLiteral("normalized2 = memory")},
    };
    for (const auto& [ours, seeds] : names)
        if (leaf == ours) return seeds;
    if (leaf == QLatin1String("activation") && c.activation == "relu") return QStringLiteral("ffn_output (3.2, relu)");
    return {};
}

QString torchLine(const TraceEntry& e, const Config& c, bool last) {
    const int D = c.d_model, H = c.n_heads, hd = D / std::max(1, H), F = c.d_ff;
    const QString leaf = leafOf(baseName(e));
    if (isGrad(e))
        return tr("∂loss/∂%1 for loss = output[..., 0].sum(): what %1.grad holds after loss.backward() "
                  "(with %1.retain_grad()); 1 at feature 0 of the output, carried back through every step")
            .arg(leaf);
    const bool cross = e.block.kind == BlockKind::CrossAttention;
    const QString attnModule = cross ? QStringLiteral("multihead_attn") : QStringLiteral("self_attn");
    const QString kv = cross ? tr("memory (the encoder layer's output)") : tr("x");
    const auto slice = [&](int i) { return QStringLiteral("in_proj_weight[%1:%2], in_proj_bias[%1:%2]").arg(i * D).arg((i + 1) * D); };
    const QString heads = tr("then split into %1 heads of %2: .view(L, B·%1, %2).transpose(0, 1)").arg(H).arg(hd);
    switch (e.role) {
    case Role::Input:
        return e.block.decoder()
                   ? tr("tgt, the decoder layer's input [tgt_len, batch, d_model]: decoder_layer(tgt, memory, tgt_mask=…, "
                        "tgt_key_padding_mask=…, memory_key_padding_mask=…)")
                   : tr("src, the encoder layer's input [seq_len, batch, d_model]: memory = encoder_layer(src, "
                        "src_key_padding_mask=…); seed 004: encoder_input = torch.randn(3, 1, 4) after manual_seed(42)");
    case Role::Q:
        return tr("q = F.linear(x, %1) (%2.in_proj_weight packs Q | K | V), %3").arg(slice(0), attnModule, heads);
    case Role::K:
        return tr("k = F.linear(%1, %2), %3").arg(kv, slice(1), heads);
    case Role::V:
        return tr("v = F.linear(%1, %2), %3").arg(kv, slice(2), heads);
    case Role::Scores:
        return tr("q = q / math.sqrt(%1), then torch.bmm(q, k.transpose(-2, -1)): every query against every key, per "
                  "head (PyTorch scales q before the product; seed 004 divides after it, the same to rounding)")
            .arg(hd);
    case Role::AttnMask:
        return tr("attn_mask and key_padding_mask merged into one additive mask per head: 0 where a query may look, "
                  "-inf where it may not (key_padding_mask True = ignore; generate_square_subsequent_mask puts -inf "
                  "above the diagonal). All 0 when no mask is given");
    case Role::MaskedScores:
        return tr("torch.baddbmm(attn_mask, q, k.transpose(-2, -1)): the scores plus the mask; a -inf stays -inf");
    case Role::Softmax:
        return tr("F.softmax(attn_output_weights, dim=-1): each row sums to 1, -inf becomes 0; a row whose keys are "
                  "all masked is all -inf and comes out nan (PyTorch 1.13 does not guard it)");
    case Role::Context:
        return tr("torch.bmm(attn_output_weights, v): each query's weighted sum of the values, per head");
    case Role::OutProjection:
        return tr("the heads side by side again, attn_output.transpose(0, 1).contiguous().view(L·B, %1), then "
                  "F.linear(attn_output, %2.out_proj.weight, %2.out_proj.bias)")
            .arg(D)
            .arg(attnModule);
    case Role::Residual: {
        const QString sub = leaf == QLatin1String("add1")   ? QStringLiteral("self._sa_block(%1)")
                            : leaf == QLatin1String("add2") ? (e.block.decoder() ? QStringLiteral("self._mha_block(%1, memory)")
                                                                                 : QStringLiteral("self._ff_block(%1)"))
                                                            : QStringLiteral("self._ff_block(%1)");
        const QString arg = c.norm_first ? tr("self.norm%1(x)").arg(leaf.right(1)) : QStringLiteral("x");
        return tr("x + %1: the residual connection (dropout %2: nothing dropped)%3")
            .arg(sub.arg(arg))
            .arg(c.dropout)
            .arg(last ? tr("; with norm_first=True this is the layer's output, no norm after it") : QString());
    }
    case Role::LayerNorm: {
        const QString norm = leaf;  // norm1 / norm2 / norm3
        const QString call = tr("F.layer_norm(x, (%1,), %2.weight, %2.bias, eps=%3): each position's %1 features to "
                                "mean 0 and variance 1, then × weight + bias")
                                 .arg(D)
                                 .arg(norm)
                                 .arg(c.layer_norm_eps);
        if (c.norm_first) return tr("norm_first=True: %1 before the sub-layer, %2").arg(norm, call);
        return tr("x = self.%1(x + sub-layer(x)): %2%3").arg(norm, call, last ? tr("; the layer's output") : QString());
    }
    case Role::FfnHidden:
        return tr("F.linear(x, linear1.weight, linear1.bias): d_model %1 → dim_feedforward %2").arg(D).arg(F);
    case Role::Relu:
        return tr("F.relu(x): negative numbers become 0");
    case Role::Gelu:
        return tr("F.gelu(x) = x·Φ(x) = x/2·(1 + erf(x/√2)), the exact form (approximate='none')");
    case Role::FfnOut:
        return tr("F.linear(x, linear2.weight, linear2.bias): dim_feedforward %1 → d_model %2").arg(F).arg(D);
    default:
        return {};
    }
}

namespace {

bool perHead(const TraceEntry& e) { return e.axes.size() == 4 && e.axes[1].kind == AxisKind::Head; }
bool perPosition(const TraceEntry& e) { return e.axes.size() == 3 && e.axes[0].kind == AxisKind::Batch; }

}  // namespace

Tensor torchLayout(const TraceEntry& e, const Config& c) {
    const Tensor& t = e.value;
    if (perHead(e)) return Tensor({t.dim(0) * t.dim(1), t.dim(2), t.dim(3)}, t.data);
    if (!perPosition(e) || c.batch_first) return t;
    return swap_leading_axes(t);  // [L, B, D] from the trace's [B, L, D]
}

QString axisWord(const Axis& a) {
    const QString n = QString::fromStdString(a.name);
    switch (a.kind) {
    case AxisKind::Batch: return tr("batch");
    case AxisKind::Head: return tr("head");
    case AxisKind::SrcToken: return tr("position (%1, src)").arg(n);
    case AxisKind::TgtToken: return tr("position (%1, tgt)").arg(n);
    case AxisKind::Feature: return tr("feature (%1)").arg(n);
    default: return n;
    }
}

QString torchShapeText(const TraceEntry& e, const Config& c) {
    const Shape& s = e.value.shape;
    const auto dims = [](std::initializer_list<int64_t> d) {
        QStringList out;
        for (int64_t v : d) out << QString::number(v);
        return QLatin1Char('[') + out.join(QStringLiteral(", ")) + QLatin1Char(']');
    };
    const auto nm = [&](size_t i) { return QString::fromStdString(e.axes[i].name); };
    if (perHead(e))
        return tr("%1 = [batch, num_heads, %2, %3]; PyTorch holds it as [batch·num_heads, %2, %3] = %4 "
                  "(F.multi_head_attention_forward, seed 004's reshape_for_heads)")
            .arg(dims({s[0], s[1], s[2], s[3]}), nm(2), nm(3), dims({s[0] * s[1], s[2], s[3]}));
    if (perPosition(e) && !c.batch_first)
        return tr("%1 = [%2, batch, %3] (batch_first=False)").arg(dims({s[1], s[0], s[2]}), nm(1), nm(2));
    QStringList words;
    for (size_t i = 0; i < e.axes.size(); ++i) words << nm(i);
    QStringList d;
    for (int64_t v : s) d << QString::number(v);
    return QStringLiteral("[%1] = [%2]").arg(d.join(QStringLiteral(", ")), words.join(QStringLiteral(", ")));
}

}  // namespace labsteps
