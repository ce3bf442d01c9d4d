// The forward pass as a tree for the step navigator:
//   Inputs (source / target sentence)
//   Encoder: embedding, positional encoding, pad mask, Layer 0 { Self-attention {Q, K, V, scores,
//            masked scores, softmax, context, output projection, Add, Add & Norm}, Feed-forward
//            {hidden, ReLU, output, Add, Add & Norm} }, Layer 1 ...
//   Decoder: embedding, positional encoding, masks, Layer 0 { Masked self-attention, Encoder-decoder
//            attention, Feed-forward }, ...
//   Projection: logits, probabilities;  Loss (when the trace has it)
// Leaves are trace entries (TraceNameRole = the entry's name); group nodes have none. Grouped by
// each entry's block (stack, kind, layer) and labelled by its role, so it follows whatever the
// trace holds, in its order. Gradient entries are left out (the forward pass only).
#pragma once

#include <memory>
#include <vector>

#include <QAbstractItemModel>
#include <QHash>
#include <QStringList>

#include "stepformer/trace.h"

class StepModel : public QAbstractItemModel {
    Q_OBJECT
public:
    enum Roles {
        TraceNameRole = Qt::UserRole + 1,  // QString: the trace entry's name; empty for groups
        OpKindRole,                        // QString: role_name() of the entry; empty for groups
        IsStepRole,                        // bool: a leaf that is a step
        JumpTargetRole,                    // QString: the step a click on this node selects
        ShapeRole,                         // QString: "[batch_size=1, n_heads=8, len_q=5, len_k=5]"
    };

    explicit StepModel(QObject* parent = nullptr);
    ~StepModel() override;

    // Rebuilds the tree when the trace's step list changed; otherwise only updates the labels
    // that depend on the sentences (so views keep their selection and expansion).
    void setTrace(std::shared_ptr<const stepformer::Trace> trace);
    std::shared_ptr<const stepformer::Trace> trace() const { return trace_; }

    // The steps in forward order (= trace order without grad.* entries).
    QStringList stepOrder() const { return order_; }
    int stepCount() const { return static_cast<int>(order_.size()); }
    int stepPosition(const QString& traceName) const { return position_.value(traceName, -1); }
    QModelIndex indexForStep(const QString& traceName) const;
    // The step a node stands for: its own for a leaf, the first step under it for a group.
    QString stepForIndex(const QModelIndex& index) const;

    // Labels, also used by other widgets (explain panel, status bar). By the entry's role and
    // block; a bare name is placed as a trace of the model would record it.
    static QString friendlyLabel(const stepformer::TraceEntry& entry);
    static QString friendlyLabel(const QString& traceName, stepformer::Role op);
    // Where a step sits, e.g. "Encoder layer 1 › Self-attention": from its block (a gradient
    // entry carries its forward step's block).
    static QString locationText(const stepformer::TraceEntry& entry);
    static QString locationText(const stepformer::Block& block);
    static QString locationText(const QString& traceName);
    static QString shapeText(const stepformer::TraceEntry& entry);
    static bool isForwardStep(const std::string& traceName);

    // QAbstractItemModel
    QModelIndex index(int row, int column, const QModelIndex& parent = {}) const override;
    QModelIndex parent(const QModelIndex& child) const override;
    int rowCount(const QModelIndex& parent = {}) const override;
    int columnCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Node;
    // The label of role `op`; `placed` (when given) is an entry that tells where it sits. "" for
    // a role without one.
    static QString label(stepformer::Role op, const stepformer::TraceEntry* placed);
    void rebuild();
    void updateInputLabels();
    void notifyAll();
    Node* nodeFor(const QModelIndex& index) const;
    QModelIndex indexFor(const Node* node) const;

    std::shared_ptr<const stepformer::Trace> trace_;
    std::unique_ptr<Node> root_;
    QStringList order_;
    QHash<QString, int> position_;
    QHash<QString, Node*> leaves_;
    Node *sourceNode_ = nullptr, *targetNode_ = nullptr;
};
