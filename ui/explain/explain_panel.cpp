#include "explain/explain_panel.h"

#include "app/language.h"
#include "views/view_parts.h"

#include <algorithm>
#include <cmath>

#include <QEvent>
#include <QFile>
#include <QScrollBar>
#include <QStackedWidget>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

#include "steps/backward_steps.h"
#include "explain/device_agreement.h"
#include "explain/explain_header.h"
#include "models/model_registry.h"
#include "steps/step_model.h"
#include "steps/step_panels.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"
#include "widgets/number_format.h"

using stepformer::BlockKind;
using stepformer::Role;
using stepformer::Stack;
using stepformer::TraceEntry;

namespace {

QString tokenAt(const std::vector<std::vector<std::string>>& tokens, size_t b, size_t pos) {
    if (b < tokens.size() && pos < tokens[b].size()) return QString::fromStdString(tokens[b][pos]);
    return QString::number(pos);
}

// Markdown escaping for the few characters tokens may contain.
QString md(const QString& s) {
    QString out;
    for (QChar c : s) {
        if (QStringLiteral("\\`*_{}[]<>()#+-.!|").contains(c)) out += QLatin1Char('\\');
        out += c;
    }
    return out;
}

}  // namespace

ExplainPanel::ExplainPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("explainPanel"));
    header_ = new ExplainHeader(this);
    agreement_ = new DeviceAgreement(this);
    bodies_ = view_parts::named(new QStackedWidget(this), "explainBodies");
    blank_ = newBrowser();
    blank_->setPlaceholderText(tr("Select a step to see what it computes."));
    bodies_->addWidget(blank_);
    auto* lay = view_parts::makeColumn(this, 0, 0);
    lay->addWidget(header_);
    lay->addWidget(agreement_);
    lay->addWidget(bodies_, 1);
    header_->hide();
}

QTextBrowser* ExplainPanel::newBrowser() {
    auto* b = view_parts::named(new QTextBrowser(bodies_), "explainBrowser");
    b->setOpenExternalLinks(true);
    b->setFrameShape(QFrame::NoFrame);
    b->document()->setDocumentMargin(10);
    return b;
}

QTextBrowser* ExplainPanel::browser() const { return static_cast<QTextBrowser*>(bodies_->currentWidget()); }

QString ExplainPanel::plainText() const {
    const QString head = header_->isHidden() ? QString() : header_->plainText();
    const QString body = browser()->toPlainText();
    return head.isEmpty() ? body : head + QLatin1Char('\n') + body;
}

void ExplainPanel::clearBodies() {
    bodies_->setCurrentWidget(blank_);
    for (QTextBrowser* b : std::as_const(bodyFor_)) delete b;
    bodyFor_.clear();
}

void ExplainPanel::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    // The code blocks' tint follows the palette: explanations made under another one are stale.
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange ||
        e->type() == QEvent::LanguageChange) {
        clearBodies();
        refresh();
    }
}

void ExplainPanel::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    trace_ = std::move(trace);
    config_ = config;
    // The box's figures belong to the trace it was given; another pass on screen makes them stale.
    if (agreement_->shownTrace() && agreement_->shownTrace() != trace_) agreement_->setTrace(nullptr, {}, {});
    agreement_->setStep(step_);
    refresh();
}

void ExplainPanel::setStep(const QString& traceName) {
    step_ = traceName;
    agreement_->setStep(step_);
    refresh();
}

QString ExplainPanel::explanationFor(const QString& opKindName, const stepformer::Config& c) {
    QFile f(language::explainPath(opKindName + QStringLiteral(".md")));
    if (!f.open(QIODevice::ReadOnly)) return {};
    QString text = QString::fromUtf8(f.readAll());
    const double sqrtDk = std::sqrt(double(c.d_k));
    const QList<QPair<QString, QString>> vars{
        {QStringLiteral("{d_model}"), QString::number(c.d_model)},
        {QStringLiteral("{d_ff}"), QString::number(c.d_ff)},
        {QStringLiteral("{d_k}"), QString::number(c.d_k)},
        {QStringLiteral("{d_v}"), QString::number(c.d_v)},
        {QStringLiteral("{sqrt_d_k}"), numfmt::fourDigits(sqrtDk)},
        {QStringLiteral("{n_heads}"), QString::number(c.n_heads)},
        {QStringLiteral("{n_layers}"), QString::number(c.n_layers)},
        {QStringLiteral("{src_len}"), QString::number(c.src_len)},
        {QStringLiteral("{tgt_len}"), QString::number(c.tgt_len)},
        {QStringLiteral("{src_vocab_size}"), QString::number(c.src_vocab_size())},
        {QStringLiteral("{tgt_vocab_size}"), QString::number(c.tgt_vocab_size())},
        {QStringLiteral("{pad}"), QString::fromStdString(c.pad)},
        {QStringLiteral("{bos}"), QString::fromStdString(c.bos)},
        {QStringLiteral("{eos}"), QString::fromStdString(c.eos)},
        {QStringLiteral("{layer_norm_affine}"),
         c.learns_layer_norm()
             ? tr("then multiplies by a learned scale γ and adds a learned shift β (this model's config "
                              "has `\"learn_layer_norm\": true`, so they are parameters and are trained)")
             : tr("and has no learned scale: γ = 1 and β = 0, because the tutorial builds a fresh "
                              "`nn.LayerNorm` inside every `forward`, so they are created anew on each call and never "
                              "trained")},
        // PyTorch's layers: their constructor arguments, spelled as PyTorch spells them.
        {QStringLiteral("{nhead}"), QString::number(c.n_heads)},
        {QStringLiteral("{3d_model}"), QString::number(3 * c.d_model)},
        {QStringLiteral("{dropout}"), numfmt::exact(c.dropout)},
        {QStringLiteral("{head_dim}"), QString::number(c.d_model / std::max(1, c.n_heads))},
        {QStringLiteral("{sqrt_head_dim}"), numfmt::fourDigits(std::sqrt(double(c.d_model / std::max(1, c.n_heads))))},
        {QStringLiteral("{dim_feedforward}"), QString::number(c.d_ff)},
        {QStringLiteral("{activation}"), QString::fromStdString(c.activation)},
        {QStringLiteral("{layer_norm_eps}"), numfmt::exact(c.layer_norm_eps)},
        {QStringLiteral("{num_encoder_layers}"), QString::number(c.encoder_layers())},
        {QStringLiteral("{num_decoder_layers}"), QString::number(c.decoder_layers())},
        {QStringLiteral("{norm_first}"), c.norm_first ? QStringLiteral("True") : QStringLiteral("False")},
        {QStringLiteral("{norm_order}"),
         c.norm_first ? tr("This model is **pre-norm** (`norm_first=True`): each sub-layer reads the "
                                       "normalised x and its output is added to x itself, `x = x + sublayer(norm(x))`; "
                                       "nothing normalises the sum until the next sub-layer's norm (or the stack's final "
                                       "norm).")
                      : tr("This model is **post-norm** (`norm_first=False`, PyTorch's default): the "
                                       "sub-layer's output is added to its input and the sum is normalised, "
                                       "`x = norm(x + sublayer(x))`.")},
        {QStringLiteral("{layer_norm_formula}"),
         c.learns_layer_norm() ? QStringLiteral("y = (x − mean) / √(var + ε) · γ + β")
                            : QStringLiteral("y = (x − mean) / √(var + ε)")},
    };
    for (const auto& [k, v] : vars) text.replace(k, v);
    return text;
}

void ExplainPanel::refresh() {
    const TraceEntry* e = trace_ && !step_.isEmpty() ? trace_->find(step_.toStdString()) : nullptr;
    if (!e) {
        shape_.clear();
        markdown_.clear();
        header_->hide();
        bodies_->setCurrentWidget(blank_);  // empty: the placeholder text
        return;
    }
    shape_ = StepModel::shapeText(*e);
    const QString kind = QString::fromLatin1(stepformer::role_name(e->role));
    const TraceEntry* fwdEntry = stepformer::graph::forward_of(*trace_, *e);
    // The model's own pages where they differ (models/model_registry.h); the loss block is the
    // same in every model, so the trace, not the block, says whose lines to quote.
    const QStringList prefixes = models::presentation(models::namingOf(*trace_)).explainPrefixes;
    const bool additive = tensorviz::maskConvention(*trace_) == tensorviz::MaskConvention::Additive;

    ExplainHeader::Content head;
    // A gradient: ∂loss/∂ <the forward step>, where that step is (the gradient carries its block).
    head.title = stepformer::names::is_grad(step_.toStdString()) ? BackwardStepList::friendlyLabel(*trace_, step_)
                                                                 : StepModel::friendlyLabel(*e);
    head.location = StepModel::locationText(*e);
    head.name = step_;
    head.shape = shape_;
    const auto& v = e->value.data;
    if (e->axes.empty() && v.size() == 1) {
        head.stats = tr("value %1").arg(numfmt::tensorStat(v[0]));
    } else if (!v.empty() && e->is_mask) {
        // attention-is-all-you-need-pytorch's masks keep the 1s: their 0s are the masked ones.
        const bool keeps = tensorviz::keepsOnes(*e);
        const auto masked = std::count_if(v.begin(), v.end(), [keeps](float x) { return keeps ? x == 0.0f : x != 0.0f; });
        head.stats = keeps ? tr("%1 of %2 positions masked (0), the others kept (1)").arg(masked).arg(v.size())
                           : tr("%1 of %2 positions masked").arg(masked).arg(v.size());
    } else if (!v.empty() && e->role == Role::AttnMask) {  // PyTorch's additive mask: 0 or −∞
        const auto ignored = std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0f; });
        head.stats = tr("%1 of %2 positions −∞ (ignored), the others 0 (additive mask)").arg(ignored).arg(v.size());
    } else if (!v.empty()) {
        // Over the finite numbers; −∞ (masked by PyTorch's additive mask) and NaN (a fully masked
        // row's softmax) are counted apart rather than spoiling min and mean.
        float lo = INFINITY, hi = -INFINITY;
        double sum = 0.0;
        size_t finite = 0, negInf = 0, nan = 0;
        for (float x : v) {
            if (std::isnan(x)) {
                ++nan;
            } else if (std::isinf(x) && x < 0) {
                ++negInf;
            } else {
                lo = std::min(lo, x);
                hi = std::max(hi, x);
                sum += x;
                ++finite;
            }
        }
        if (finite == v.size() || (finite > 0 && !additive))
            head.stats = tr("%1 values, min %2, max %3, mean %4").arg(v.size()).arg(numfmt::tensorStat(lo), numfmt::tensorStat(hi), numfmt::tensorStat(sum / double(finite)));
        else if (finite > 0)
            head.stats = tr("%1 values; of the %2 finite ones min %3, max %4, mean %5").arg(v.size()).arg(finite)
                             .arg(numfmt::tensorStat(lo), numfmt::tensorStat(hi), numfmt::tensorStat(sum / double(finite)));
        else
            head.stats = tr("%1 values, none finite").arg(v.size());
        if (negInf > 0) head.stats += tr("; %1 × −∞ (masked)").arg(negInf);
        if (nan > 0) head.stats += tr("; %1 × NaN (a row with every key masked)").arg(nan);
    }
    header_->setContent(head);
    header_->show();

    QString body;
    // The predicted tokens, where the step is the output distribution.
    if ((e->role == Role::Probs || e->role == Role::Logits) && e->value.rank() == 3) {
        const int64_t T = e->value.dim(1), V = e->value.dim(2);
        const TraceEntry* probs = stepformer::graph::output_probs(*trace_);
        body += tr("**Predicted tokens** (argmax at every position of the decoder input):\n\n");
        body += tr("| t | input | predicted | p |\n|---:|---|---|---:|\n");
        for (int64_t t = 0; t < T; ++t) {
            const float* row = e->value.ptr() + t * V;
            const int64_t best = std::max_element(row, row + V) - row;
            const QString word = best < config_.tgt_vocab_size()
                                     ? QString::fromStdString(config_.tgt_vocab[size_t(best)])
                                     : QString::number(best);
            const double p = probs && probs->value.size() == e->value.size() ? probs->value.data[size_t(t * V + best)] : 0.0;
            body += QStringLiteral("| %1 | %2 | **%3** | %4 |\n")
                        .arg(t)
                        .arg(md(tokenAt(trace_->tgt_tokens, 0, size_t(t))), md(word), numfmt::plainDecimals(p, 3));
        }
        body += QStringLiteral("\n");
    }
    // A gradient step: how the gradient flows back through its forward step's operation
    // (gradient_<role>.md), else the generic text.
    const TraceEntry* forward =
        e->role == Role::Gradient ? trace_->find(BackwardStepList::forwardName(step_).toStdString()) : nullptr;
    // The model's own page (<folder>/<kind>.md), else the shared one; a stack's final norm has a
    // page of its own (<folder>/final_norm.md).
    const bool finalNorm = fwdEntry && fwdEntry->block.kind == BlockKind::FinalNorm && !forward;
    const auto explained = [&](const QString& k) {
        QStringList pages;
        for (const QString& prefix : prefixes) {
            if (finalNorm && k == kind) pages << prefix + QStringLiteral("final_norm");
            pages << prefix + k;
        }
        pages << k;
        for (const QString& page : pages)
            if (QString t = explanationFor(page, config_); !t.isEmpty()) return t;
        return QString();
    };
    QString text = forward ? explained(kind + QLatin1Char('_') + QLatin1String(stepformer::role_name(forward->role))) : QString();
    if (text.isEmpty()) text = explained(kind);
    body += text.isEmpty() ? tr("*No explanation is available for the step kind `%1`.*\n").arg(kind) : text;

    markdown_ = QStringLiteral("## %1\n\n%2  \n`%3`\n\n").arg(head.title, head.location, step_) +
                tr("**Shape** `%1`").arg(shape_) + (head.stats.isEmpty() ? QString() : QStringLiteral(" — ") + head.stats) +
                QStringLiteral("\n\n") + body;
    showBody(body);
}

void ExplainPanel::showBody(const QString& m) {
    QTextBrowser* b = bodyFor_.value(m);
    if (!b) {
        if (bodyFor_.size() >= kMaxBodies) clearBodies();
        b = newBrowser();
        b->setMarkdown(m);
        // Give code blocks a tinted background so the PyTorch lines stand out.
        QTextCursor cursor(b->document());
        for (QTextBlock blk = b->document()->begin(); blk.isValid(); blk = blk.next()) {
            QTextBlockFormat bf = blk.blockFormat();
            if (bf.hasProperty(QTextFormat::BlockCodeFence) || bf.hasProperty(QTextFormat::BlockCodeLanguage) ||
                bf.nonBreakableLines()) {
                // Wrapped rather than scrolled sideways: the panel is narrow.
                bf.setNonBreakableLines(false);
                const QColor base = palette().color(QPalette::Base);
                bf.setBackground(base.lightness() > 128 ? QColor(0xf1, 0xf3, 0xf5) : base.lighter(140));
                bf.setLeftMargin(4);
                bf.setRightMargin(4);
                cursor.setPosition(blk.position());
                cursor.setBlockFormat(bf);
            }
        }
        bodies_->addWidget(b);
        bodyFor_.insert(m, b);
    }
    if (bodies_->currentWidget() != b) {
        b->verticalScrollBar()->setValue(0);  // from the top, as a newly set text
        bodies_->setCurrentWidget(b);
    }
}
