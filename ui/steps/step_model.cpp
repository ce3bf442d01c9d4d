#include "steps/step_model.h"

#include "models/model_registry.h"

#include <functional>

#include <QColor>
#include <QFont>

#include "steps/block_text.h"
#include "steps/reference_trace.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"

using stepformer::AxisKind;
using stepformer::Block;
using stepformer::BlockKind;
using stepformer::Role;
using stepformer::Stack;
using stepformer::Trace;
using stepformer::TraceEntry;

struct StepModel::Node {
    QString label;
    QString traceName;  // leaves only
    QString op;         // leaves only
    QString jump;       // the step a click selects
    QString shape;
    QString tooltip;
    bool group = false;
    Node* parent = nullptr;
    int row = 0;
    std::vector<std::unique_ptr<Node>> children;

    Node* add(std::unique_ptr<Node> n) {
        n->parent = this;
        n->row = static_cast<int>(children.size());
        children.push_back(std::move(n));
        return children.back().get();
    }
    Node* group_child(const QString& name) {
        for (auto& c : children)
            if (c->group && c->label == name) return c.get();
        auto n = std::make_unique<Node>();
        n->label = name;
        n->group = true;
        return add(std::move(n));
    }
};

namespace {

// The group path of a block: ["Encoder", "Encoder layer 0", "Self-attention"], ["Projection"], ...
QStringList groupPath(const Block& b) {
    const QString title = tensorviz::stackTitle(b.stack);
    switch (b.kind) {
    case BlockKind::Input: return {title};
    case BlockKind::FinalNorm: return {title, tensorviz::sublayerTitle(b)};
    case BlockKind::Projection:
        // A model's own name for its projection ("Generator (generator)"), else "Projection".
        return {models::presentation(b.naming).sublayerTitle ? tensorviz::sublayerTitle(b) : StepModel::tr("Projection")};
    case BlockKind::Loss: return {StepModel::tr("Loss")};
    case BlockKind::None: return {StepModel::tr("Other")};
    default:
        return {title, StepModel::tr("%1 layer %2").arg(title).arg(b.layer), tensorviz::sublayerTitle(b)};
    }
}

// The pad mask the decoder-encoder attention reads: target positions query, source positions
// are the keys (the decoder's own pad mask has target keys).
bool isEncDecMask(const TraceEntry& e) {
    const size_t n = e.axes.size();
    return e.role == Role::PadMask && n >= 2 && e.axes[n - 2].kind == AxisKind::TgtToken &&
           e.axes[n - 1].kind == AxisKind::SrcToken;
}

QColor colorForOp(Role op) {
    switch (op) {
    case Role::Embedding:
    case Role::PositionalTable:
    case Role::PositionalAdd: return QColor(0x4e, 0x79, 0xa7);
    case Role::PadMask:
    case Role::SubsequenceMask:
    case Role::CombinedMask:
    case Role::AttnMask: return QColor(0x79, 0x70, 0x6e);
    case Role::Input: return QColor(0x4e, 0x79, 0xa7);
    case Role::Q:
    case Role::K:
    case Role::V:
    case Role::ScaledQ:
    case Role::Scores:
    case Role::MaskedScores:
    case Role::Softmax:
    case Role::Context:
    case Role::OutProjection: return QColor(0xf2, 0x8e, 0x2b);
    case Role::Residual:
    case Role::LayerNorm: return QColor(0xb0, 0x7a, 0xa1);
    case Role::FfnHidden:
    case Role::Relu:
    case Role::Gelu:
    case Role::FfnOut: return QColor(0x59, 0xa1, 0x4f);
    case Role::Logits:
    case Role::Probs: return QColor(0xe1, 0x57, 0x59);
    case Role::LossPerToken:
    case Role::Loss:
    case Role::Gradient: return QColor(0x9c, 0x75, 0x5f);
    }
    return Qt::gray;
}

QString tokensText(const std::vector<std::vector<std::string>>& tokens) {
    if (tokens.empty()) return {};
    QStringList words;
    for (const auto& w : tokens.front()) words << QString::fromStdString(w);
    return words.join(QLatin1Char(' '));
}

}  // namespace

StepModel::StepModel(QObject* parent) : QAbstractItemModel(parent), root_(std::make_unique<Node>()) {}

StepModel::~StepModel() = default;

bool StepModel::isForwardStep(const std::string& traceName) { return !stepformer::names::is_grad(traceName); }

QString StepModel::friendlyLabel(const TraceEntry& entry) { return label(entry.role, &entry); }

QString StepModel::friendlyLabel(const QString& name, Role op) {
    const QString l = label(op, tensorviz::referenceEntry(name.toStdString()));
    return l.isEmpty() ? name : l;
}

namespace {

// What a step of a kind the tutorial lacks is, for its tooltip ("" for the others).
QString roleNote(const TraceEntry& e) {
    // Read from the step's attributes: a mask that keeps its 1s, a query scaled before q·kᵀ, a
    // label-smoothed sum.
    if (e.is_mask && e.attrs.keep_ones)
        return StepModel::tr("This model's convention: 1 = keep (may attend), 0 = masked — the opposite of the "
                             "tutorial's 1 = masked");
    if (e.role == Role::ScaledQ) return StepModel::tr("The query divided by temperature = √d_k before q·kᵀ (the project's rounding)");
    if (e.role == Role::Loss && e.op == stepformer::Op::Sum)
        return StepModel::tr("Cross-entropy against a label-smoothed target, summed over the non-pad targets");
    if (e.block.kind == BlockKind::FinalNorm)
        return StepModel::tr("nn.Transformer's final LayerNorm over the last layer's output (%1.norm)")
            .arg(e.block.stack == Stack::Decoder ? QStringLiteral("decoder") : QStringLiteral("encoder"));
    switch (e.role) {
    case Role::Input: return StepModel::tr("The tensor given to the layer, shaped as PyTorch takes it (shown batch first)");
    case Role::AttnMask:
        return StepModel::tr("Additive mask, PyTorch's convention: 0 = may attend, −∞ = ignored; attn_mask and "
                             "key_padding_mask (True = ignore) merged, added to the scores");
    case Role::Gelu: return StepModel::tr("GELU(x) = x · Φ(x) = x/2 · (1 + erf(x/√2)), PyTorch's exact GELU");
    default: return {};
    }
}

}  // namespace

QString StepModel::label(Role op, const TraceEntry* placed) {
    // The model's own words for its steps (ui/models/<model>/words.cpp).
    if (placed && placed->role == op)
        if (const auto own = models::presentation(placed->block.naming).label)
            if (QString l = own(op, *placed); !l.isEmpty()) return l;
    // The embeddings and the decoder-encoder mask are told apart by where they sit.
    if (placed && op == Role::Embedding && placed->role == op) {
        if (placed->block.stack == Stack::Encoder) return tr("Embedding (src_emb)");
        if (placed->block.stack == Stack::Decoder) return tr("Embedding (tgt_emb)");
    }
    if (placed && placed->role == op && isEncDecMask(*placed)) return tr("Enc-dec pad mask");
    switch (op) {
    case Role::Embedding: return tr("Embedding");
    case Role::PositionalTable: return tr("PE table (pe)");
    case Role::PositionalAdd: return tr("+ positional encoding");
    case Role::PadMask: return tr("Pad mask");
    case Role::SubsequenceMask: return tr("Subsequence mask");
    case Role::CombinedMask: return tr("Combined mask");
    case Role::Q: return tr("Q (queries)");
    case Role::K: return tr("K (keys)");
    case Role::V: return tr("V (values)");
    case Role::ScaledQ: return tr("q / √d_k (scaled query)");
    case Role::Scores: return tr("scores = QKᵀ/√d_k");
    case Role::MaskedScores: return tr("masked scores");
    case Role::Softmax: return tr("softmax (attention)");
    case Role::Context: return tr("context = attn·V");
    case Role::OutProjection: return tr("output projection (fc)");
    case Role::Residual: return tr("Add (+ residual)");
    case Role::LayerNorm: return tr("Add & Norm");
    case Role::FfnHidden: return tr("FFN hidden (fc[0])");
    case Role::Relu: return tr("ReLU");
    case Role::FfnOut: return tr("FFN output (fc[2])");
    case Role::Logits: return tr("logits");
    case Role::Probs: return tr("probabilities → tokens");
    // The loss as its steps say: label-smoothed or not, a sum or a mean.
    case Role::LossPerToken:
        return placed && placed->attrs.label_smoothing > 0.0f
                   ? tr("loss per token (label-smoothed, ε %1)").arg(double(placed->attrs.label_smoothing))
                   : tr("loss per token");
    case Role::Loss: return placed && placed->op == stepformer::Op::Sum ? tr("loss (summed)") : tr("loss (mean)");
    case Role::Gradient: return tr("gradient");
    case Role::Input: return tr("input");
    case Role::AttnMask: return tr("mask (additive: 0 / −∞)");
    case Role::Gelu: return tr("GELU");
    }
    return {};
}

QString StepModel::locationText(const QString& traceName) {
    return locationText(stepformer::names::parse(traceName.toStdString()).block);
}

QString StepModel::locationText(const TraceEntry& entry) { return locationText(entry.block); }

QString StepModel::locationText(const Block& block) {
    QStringList path = groupPath(block);
    // "Encoder › Encoder layer 0 › …" reads better as "Encoder layer 0 › …"
    if (path.size() >= 2 && path[1].startsWith(path[0])) path.removeFirst();
    return path.join(QStringLiteral(" › "));
}

QString StepModel::shapeText(const TraceEntry& e) {
    QStringList parts;
    for (size_t i = 0; i < e.axes.size() && i < e.value.shape.size(); ++i)
        parts << QStringLiteral("%1=%2").arg(QString::fromStdString(e.axes[i].name)).arg(e.value.shape[i]);
    return QLatin1Char('[') + parts.join(QStringLiteral(", ")) + QLatin1Char(']');
}

void StepModel::setTrace(std::shared_ptr<const Trace> trace) {
    QStringList order;
    if (trace)
        for (const auto& e : trace->entries())
            if (isForwardStep(e.name)) order << QString::fromStdString(e.name);
    trace_ = std::move(trace);
    if (order == order_ && root_ && !root_->children.empty()) {
        updateInputLabels();
        notifyAll();
        return;
    }
    beginResetModel();
    order_ = order;
    rebuild();
    endResetModel();
}

void StepModel::rebuild() {
    root_ = std::make_unique<Node>();
    position_.clear();
    leaves_.clear();
    sourceNode_ = targetNode_ = nullptr;
    if (!trace_ || order_.isEmpty()) return;

    Node* inputs = root_->group_child(tr("Inputs"));
    // A decoder-only model (nanoGPT) reads no source sentence: no Source node.
    const bool hasSource = !trace_->src_tokens.empty() && !trace_->src_tokens.front().empty();
    if (hasSource) sourceNode_ = inputs->add(std::make_unique<Node>());
    auto tgt = std::make_unique<Node>();
    targetNode_ = inputs->add(std::move(tgt));

    for (int i = 0; i < order_.size(); ++i) {
        const QString& name = order_[i];
        const TraceEntry* e = trace_->find(name.toStdString());
        if (!e) continue;
        position_.insert(name, i);
        Node* parent = root_.get();
        for (const QString& g : groupPath(e->block)) parent = parent->group_child(g);
        auto leaf = std::make_unique<Node>();
        leaf->label = friendlyLabel(*e);
        leaf->traceName = name;
        leaf->op = QString::fromLatin1(stepformer::role_name(e->role));
        leaf->jump = name;
        leaves_.insert(name, parent->add(std::move(leaf)));
    }
    // A group's click target: its first step (depth first).
    std::function<QString(Node*)> fill = [&](Node* n) -> QString {
        if (!n->group && n != root_.get()) return n->jump;
        QString first;
        for (auto& c : n->children) {
            const QString j = fill(c.get());
            if (first.isEmpty()) first = j;
        }
        if (n->group && n->jump.isEmpty()) n->jump = first;
        return n->jump.isEmpty() ? first : n->jump;
    };
    updateInputLabels();
    fill(root_.get());
}

void StepModel::updateInputLabels() {
    if (!trace_) return;
    for (auto it = leaves_.begin(); it != leaves_.end(); ++it) {
        if (const TraceEntry* e = trace_->find(it.key().toStdString())) {
            it.value()->shape = shapeText(*e);
            it.value()->tooltip = QStringLiteral("%1\n%2").arg(it.key(), it.value()->shape);
            if (const QString note = roleNote(*e); !note.isEmpty()) it.value()->tooltip += QLatin1Char('\n') + note;
        }
    }
    // An input sentence's node jumps to its embedding.
    // An input sentence's node jumps to its embedding (the given tensor in the layer lab). The
    // stack's input block is found by its first entry's, which carries the model's naming.
    const auto inputEntry = [this](Stack s) -> const TraceEntry* {
        for (const Block& b : trace_->blocks())
            if (b.stack == s && b.kind == BlockKind::Input)
                for (Role r : {Role::Embedding, Role::Input})
                    if (const TraceEntry* e = stepformer::graph::find(*trace_, b, r)) return e;
        return nullptr;
    };
    auto embedding = [&](Stack s) {
        const TraceEntry* e = inputEntry(s);
        const QString name = e ? QString::fromStdString(e->name) : QString();
        return leaves_.contains(name) ? name : order_.value(0);
    };
    if (targetNode_) {
        // What the sentences are in the model's code (models/model_registry.cpp).
        const models::Presentation& own = models::presentation(models::namingOf(*trace_));
        if (sourceNode_) {
            sourceNode_->label = tr("Source: %1").arg(tokensText(trace_->src_tokens));
            sourceNode_->jump = embedding(Stack::Encoder);
            sourceNode_->tooltip = tr(own.sourceTip);
        }
        targetNode_->label = (sourceNode_ ? tr("Target: %1") : tr("Text: %1")).arg(tokensText(trace_->tgt_tokens));
        targetNode_->jump = embedding(Stack::Decoder);
        targetNode_->tooltip = tr(own.targetTip);
    }
}

void StepModel::notifyAll() {
    // Everything may have changed text: tell the views, group by group.
    std::function<void(Node*)> notify = [&](Node* n) {
        if (n->children.empty()) return;
        emit dataChanged(index(0, 0, indexFor(n)),
                         index(static_cast<int>(n->children.size()) - 1, 0, indexFor(n)));
        for (auto& c : n->children) notify(c.get());
    };
    notify(root_.get());
}

StepModel::Node* StepModel::nodeFor(const QModelIndex& index) const {
    if (!index.isValid()) return root_.get();
    return static_cast<Node*>(index.internalPointer());
}

QModelIndex StepModel::indexFor(const Node* node) const {
    if (!node || node == root_.get()) return {};
    return createIndex(node->row, 0, const_cast<Node*>(node));
}

QModelIndex StepModel::indexForStep(const QString& traceName) const {
    const auto it = leaves_.constFind(traceName);
    return it == leaves_.constEnd() ? QModelIndex() : indexFor(it.value());
}

QString StepModel::stepForIndex(const QModelIndex& index) const {
    if (!index.isValid() || index.model() != this) return {};
    return nodeFor(index)->jump;
}

QModelIndex StepModel::index(int row, int column, const QModelIndex& parent) const {
    if (column != 0 || row < 0) return {};
    if (parent.isValid() && parent.column() != 0) return {};
    const Node* p = nodeFor(parent);
    if (row >= static_cast<int>(p->children.size())) return {};
    return createIndex(row, 0, p->children[static_cast<size_t>(row)].get());
}

QModelIndex StepModel::parent(const QModelIndex& child) const {
    if (!child.isValid()) return {};
    const Node* n = nodeFor(child);
    return indexFor(n->parent);
}

int StepModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() && parent.column() != 0) return 0;
    return static_cast<int>(nodeFor(parent)->children.size());
}

int StepModel::columnCount(const QModelIndex&) const { return 1; }

QVariant StepModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    const Node* n = nodeFor(index);
    switch (role) {
    case Qt::DisplayRole: return n->label;
    case Qt::ToolTipRole:
        if (!n->tooltip.isEmpty()) return n->tooltip;
        return n->group ? tr("%1 — click to jump to its first step").arg(n->label) : QVariant();
    case Qt::StatusTipRole: return n->traceName.isEmpty() ? QVariant() : QVariant(n->traceName);
    case Qt::DecorationRole:
        if (!n->group && !n->traceName.isEmpty() && trace_)
            if (const TraceEntry* e = trace_->find(n->traceName.toStdString())) return colorForOp(e->role);
        return {};
    case Qt::FontRole:
        if (n->group && n->parent == root_.get()) {
            QFont f;
            f.setBold(true);
            return f;
        }
        return {};
    case TraceNameRole: return n->traceName;
    case OpKindRole: return n->op;
    case IsStepRole: return !n->traceName.isEmpty();
    case JumpTargetRole: return n->jump;
    case ShapeRole: return n->shape;
    default: return {};
    }
}

Qt::ItemFlags StepModel::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable;
}

QVariant StepModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (section == 0 && orientation == Qt::Horizontal && role == Qt::DisplayRole) return tr("Forward pass");
    return {};
}
