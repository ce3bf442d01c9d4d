// Backward stepping: the order in which the backward pass computed the gradients of a trace
// (the gradient entries as the trace recorded them: loss first, embeddings last) and a flat list
// model of those steps for the step navigator's "backward" mode.
//
// The model's roles mirror StepModel's (TraceNameRole .. ShapeRole have the same values), so a
// navigator can read either model with the same code; DisplayRole is a friendly label such as
// "∂loss/∂ logits", ToolTipRole says where the step sits and what its shape is.
#pragma once

#include <memory>
#include <vector>

#include <QAbstractListModel>
#include <QHash>
#include <QString>
#include <QStringList>

#include "stepformer/trace.h"

// The gradient entries' names of `trace` in the order they were recorded (= the order the
// backward pass computed them: the loss's first, then the loss per token's, the logits', ...,
// the source embedding's last). Empty when the trace has no backward pass.
QStringList backwardStepOrder(const stepformer::Trace& trace);

class BackwardStepList : public QAbstractListModel {
    Q_OBJECT
public:
    // Which way the navigator walks: through the forward pass or back through the gradients.
    enum class Direction { Forward, Backward };

    // Same values as StepModel::Roles.
    enum Roles {
        TraceNameRole = Qt::UserRole + 1,  // QString: "grad.<name>"
        OpKindRole,                        // QString: role_name() of the forward entry <name>
        IsStepRole,                        // bool: always true (every row is a step)
        JumpTargetRole,                    // QString: the step a click selects (= TraceNameRole)
        ShapeRole,                         // QString: "[batch_size=2, tgt_len=6, tgt_vocab_size=9]"
        ForwardNameRole,                   // QString: "<name>", the tensor the gradient belongs to
        LocationRole,                      // QString: "Decoder layer 1 › Masked self-attention"
        ShortLabelRole,                    // QString: "∂loss/∂ logits" without the location
    };

    explicit BackwardStepList(QObject* parent = nullptr);

    // Resets the list when the trace's gradient entries changed; otherwise only refreshes the
    // shapes/tooltips (so a view keeps its selection).
    void setTrace(std::shared_ptr<const stepformer::Trace> trace);
    std::shared_ptr<const stepformer::Trace> trace() const { return trace_; }

    QStringList stepOrder() const { return order_; }
    int stepCount() const { return static_cast<int>(order_.size()); }
    QString stepAt(int row) const { return order_.value(row); }
    // Position of a step; a forward name is looked up as its gradient ("x" finds "grad.x"). -1 if absent.
    int stepPosition(const QString& traceName) const;
    QModelIndex indexForStep(const QString& traceName) const;

    // "∂loss/∂ logits", "∂loss/∂ Q (queries)", ... for grad.<name> (or <name>); `op` is the
    // forward entry's kind.
    static QString friendlyLabel(const QString& gradName, stepformer::Role op);
    static QString friendlyLabel(const stepformer::Trace& trace, const QString& gradName);
    // The same from the forward entry (nullptr: unknown, the name is shown).
    static QString friendlyLabel(const stepformer::TraceEntry* forward, const QString& gradName);
    // "grad.x" -> "x"; other names unchanged.
    static QString forwardName(const QString& name);
    static QString gradientName(const QString& name);  // "x" -> "grad.x"; "grad.x" unchanged
    // Where to land when the navigator toggles direction: Backward: "x" -> "grad.x" when the
    // trace has it (otherwise the first backward step); Forward: "grad.x" -> "x". Empty when the
    // trace has no step in that direction.
    static QString counterpartStep(const stepformer::Trace& trace, const QString& step, Direction to);

    // QAbstractListModel
    int rowCount(const QModelIndex& parent = {}) const override;
    QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex& index) const override;

private:
    static QString lossLabel(stepformer::Role op);  // "" for the other roles
    static QString location(const stepformer::TraceEntry* forward, const QString& forwardName);

    std::shared_ptr<const stepformer::Trace> trace_;
    QStringList order_;
    mutable std::vector<QString> displayCache_;  // per row; empty until asked for
    QHash<QString, int> position_;
};
