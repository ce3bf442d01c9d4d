#include "explain_panel.h"

#include <algorithm>
#include <cmath>

#include <QEvent>
#include <QFile>
#include <QScrollBar>
#include <QTextBlock>
#include <QTextBrowser>
#include <QTextCursor>
#include <QTextDocument>
#include <QVBoxLayout>

#include "step_model.h"

using stepformer::OpKind;
using stepformer::TraceEntry;

namespace {

QString fmt(double v) {
    if (v != 0.0 && (std::fabs(v) < 1e-3 || std::fabs(v) >= 1e5)) return QString::number(v, 'e', 2);
    return QString::number(v, 'g', 4);
}

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

// What a text browser's document brings besides its text (clone() leaves the margin out).
void copySettings(const QTextDocument& from, QTextDocument* to) {
    to->setDefaultFont(from.defaultFont());
    to->setDefaultTextOption(from.defaultTextOption());
    to->setDocumentMargin(from.documentMargin());
    to->setIndentWidth(from.indentWidth());
    to->setUseDesignMetrics(from.useDesignMetrics());
    to->setDefaultStyleSheet(from.defaultStyleSheet());
    to->setUndoRedoEnabled(from.isUndoRedoEnabled());
}

}  // namespace

ExplainPanel::ExplainPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("explainPanel"));
    browser_ = new QTextBrowser(this);
    browser_->setObjectName(QStringLiteral("explainBrowser"));
    browser_->setOpenExternalLinks(true);
    browser_->setFrameShape(QFrame::NoFrame);
    browser_->document()->setDocumentMargin(10);
    browser_->setPlaceholderText(tr("Select a step to see what it computes."));
    // Our own empty document with the browser's settings (the browser deletes its own when
    // given another).
    blank_ = new QTextDocument(this);
    copySettings(*browser_->document(), blank_);
    browser_->setDocument(blank_);
    auto* lay = new QVBoxLayout(this);
    lay->setContentsMargins(0, 0, 0, 0);
    lay->addWidget(browser_);
}

void ExplainPanel::clearDocuments() {
    browser_->setDocument(blank_);
    qDeleteAll(documents_);
    documents_.clear();
}

void ExplainPanel::changeEvent(QEvent* e) {
    QWidget::changeEvent(e);
    // The code blocks' tint follows the palette: documents made under another one are stale.
    if (e->type() == QEvent::PaletteChange || e->type() == QEvent::FontChange || e->type() == QEvent::StyleChange) {
        const QString m = markdown_;
        clearDocuments();
        if (!m.isEmpty()) showDocument(m);
    }
}

void ExplainPanel::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    trace_ = std::move(trace);
    config_ = config;
    refresh();
}

void ExplainPanel::setStep(const QString& traceName) {
    step_ = traceName;
    refresh();
}

QString ExplainPanel::explanationFor(const QString& opKindName, const stepformer::Config& c) {
    QFile f(QStringLiteral(":/explain/%1.md").arg(opKindName));
    if (!f.open(QIODevice::ReadOnly)) return {};
    QString text = QString::fromUtf8(f.readAll());
    const double sqrtDk = std::sqrt(double(c.d_k));
    const QList<QPair<QString, QString>> vars{
        {QStringLiteral("{d_model}"), QString::number(c.d_model)},
        {QStringLiteral("{d_ff}"), QString::number(c.d_ff)},
        {QStringLiteral("{d_k}"), QString::number(c.d_k)},
        {QStringLiteral("{d_v}"), QString::number(c.d_v)},
        {QStringLiteral("{sqrt_d_k}"), QString::number(sqrtDk, 'g', 4)},
        {QStringLiteral("{n_heads}"), QString::number(c.n_heads)},
        {QStringLiteral("{n_layers}"), QString::number(c.n_layers)},
        {QStringLiteral("{src_len}"), QString::number(c.src_len)},
        {QStringLiteral("{tgt_len}"), QString::number(c.tgt_len)},
        {QStringLiteral("{src_vocab_size}"), QString::number(c.src_vocab_size())},
        {QStringLiteral("{tgt_vocab_size}"), QString::number(c.tgt_vocab_size())},
        {QStringLiteral("{pad}"), QString::fromStdString(c.pad)},
        {QStringLiteral("{bos}"), QString::fromStdString(c.bos)},
        {QStringLiteral("{eos}"), QString::fromStdString(c.eos)},
    };
    for (const auto& [k, v] : vars) text.replace(k, v);
    return text;
}

void ExplainPanel::refresh() {
    const TraceEntry* e = trace_ && !step_.isEmpty() ? trace_->find(step_.toStdString()) : nullptr;
    if (!e) {
        shape_.clear();
        markdown_.clear();
        browser_->setDocument(blank_);  // empty: the placeholder text
        return;
    }
    shape_ = StepModel::shapeText(*e);
    const QString kind = QString::fromLatin1(stepformer::op_kind_name(e->op));

    QString m;
    m += QStringLiteral("## %1\n\n").arg(StepModel::friendlyLabel(*e));
    m += QStringLiteral("%1  \n`%2`\n\n").arg(StepModel::locationText(step_), step_);
    m += tr("**Shape** `%1`").arg(shape_);
    const auto& v = e->value.data;
    if (e->axes.empty() && v.size() == 1) {
        m += tr(" — value **%1**").arg(fmt(v[0]));
    } else if (!v.empty() && e->is_mask) {
        const auto masked = std::count_if(v.begin(), v.end(), [](float x) { return x != 0.0f; });
        m += tr(" — %1 of %2 positions masked").arg(masked).arg(v.size());
    } else if (!v.empty()) {
        float lo = v[0], hi = v[0];
        double sum = 0.0;
        for (float x : v) {
            lo = std::min(lo, x);
            hi = std::max(hi, x);
            sum += x;
        }
        m += tr(" — %1 values, min %2, max %3, mean %4").arg(v.size()).arg(fmt(lo), fmt(hi), fmt(sum / double(v.size())));
    }
    m += QStringLiteral("\n\n");

    // The predicted tokens, where the step is the output distribution.
    if ((e->op == OpKind::Probs || e->op == OpKind::Logits) && e->value.rank() == 3) {
        const int64_t T = e->value.dim(1), V = e->value.dim(2);
        const TraceEntry* probs = trace_->find("projection.probs");
        m += tr("**Predicted tokens** (argmax at every position of the decoder input):\n\n");
        m += tr("| t | input | predicted | p |\n|---:|---|---|---:|\n");
        for (int64_t t = 0; t < T; ++t) {
            const float* row = e->value.ptr() + t * V;
            const int64_t best = std::max_element(row, row + V) - row;
            const QString word = best < config_.tgt_vocab_size()
                                     ? QString::fromStdString(config_.tgt_vocab[size_t(best)])
                                     : QString::number(best);
            const double p = probs && probs->value.size() == e->value.size() ? probs->value.data[size_t(t * V + best)] : 0.0;
            m += QStringLiteral("| %1 | %2 | **%3** | %4 |\n")
                     .arg(t)
                     .arg(md(tokenAt(trace_->tgt_tokens, 0, size_t(t))), md(word), QString::number(p, 'f', 3));
        }
        m += QStringLiteral("\n");
    }

    const QString body = explanationFor(kind, config_);
    m += body.isEmpty() ? tr("*No explanation is available for the step kind `%1`.*\n").arg(kind) : body;
    markdown_ = m;
    showDocument(m);
}

void ExplainPanel::showDocument(const QString& m) {
    if (QTextDocument* doc = documents_.value(m)) {
        if (browser_->document() != doc) {
            browser_->setDocument(doc);
            browser_->verticalScrollBar()->setValue(0);  // from the top, as a newly set text
        }
        return;
    }
    if (documents_.size() >= kMaxDocuments) clearDocuments();
    auto* doc = new QTextDocument(this);
    copySettings(*blank_, doc);
    browser_->setDocument(doc);
    documents_.insert(m, doc);

    browser_->setMarkdown(m);
    // Give code blocks a tinted background so the PyTorch lines stand out.
    QTextCursor cursor(browser_->document());
    for (QTextBlock b = browser_->document()->begin(); b.isValid(); b = b.next()) {
        QTextBlockFormat bf = b.blockFormat();
        if (bf.hasProperty(QTextFormat::BlockCodeFence) || bf.hasProperty(QTextFormat::BlockCodeLanguage) ||
            bf.nonBreakableLines()) {
            // Wrapped rather than scrolled sideways: the panel is narrow.
            bf.setNonBreakableLines(false);
            const QColor base = palette().color(QPalette::Base);
            bf.setBackground(base.lightness() > 128 ? QColor(0xf1, 0xf3, 0xf5) : base.lighter(140));
            bf.setLeftMargin(4);
            bf.setRightMargin(4);
            cursor.setPosition(b.position());
            cursor.setBlockFormat(bf);
        }
    }
}
