#include "steps/backward_steps.h"

#include "steps/step_model.h"
#include "stepformer/trace_names.h"

using stepformer::Role;
using stepformer::Trace;
using stepformer::TraceEntry;
namespace names = stepformer::names;

QStringList backwardStepOrder(const Trace& trace) {
    QStringList out;
    for (const TraceEntry& e : trace.entries())
        if (e.role == Role::Gradient || names::is_grad(e.name)) out << QString::fromStdString(e.name);
    return out;
}

BackwardStepList::BackwardStepList(QObject* parent) : QAbstractListModel(parent) {}

void BackwardStepList::setTrace(std::shared_ptr<const Trace> trace) {
    const QStringList order = trace ? backwardStepOrder(*trace) : QStringList();
    trace_ = std::move(trace);
    if (order == order_) {
        displayCache_.assign(size_t(order_.size()), QString());
        if (!order_.isEmpty()) emit dataChanged(index(0), index(int(order_.size()) - 1));
        return;
    }
    beginResetModel();
    order_ = order;
    displayCache_.assign(size_t(order_.size()), QString());
    position_.clear();
    for (int i = 0; i < order_.size(); ++i) position_.insert(order_[i], i);
    endResetModel();
}

int BackwardStepList::stepPosition(const QString& traceName) const {
    const auto it = position_.constFind(traceName);
    if (it != position_.constEnd()) return it.value();
    return position_.value(gradientName(traceName), -1);
}

QModelIndex BackwardStepList::indexForStep(const QString& traceName) const {
    const int row = stepPosition(traceName);
    return row < 0 ? QModelIndex() : index(row);
}

QString BackwardStepList::forwardName(const QString& name) {
    return QString::fromStdString(names::forward_name(name.toStdString()));
}

QString BackwardStepList::gradientName(const QString& name) {
    const std::string n = name.toStdString();
    return names::is_grad(n) ? name : QString::fromStdString(names::grad(n));
}

// The backward pass starts at the loss (its gradient is 1) and spreads it over the tokens.
QString BackwardStepList::lossLabel(Role op) {
    if (op == Role::Loss) return tr("loss  (= 1, where it starts)");
    if (op == Role::LossPerToken) return tr("loss per token  (1/N each)");
    return {};
}

QString BackwardStepList::friendlyLabel(const QString& gradName, Role op) {
    const QString base = forwardName(gradName);
    QString what = lossLabel(op);
    if (what.isEmpty()) what = op == Role::Gradient ? base : StepModel::friendlyLabel(base, op);
    return QStringLiteral("∂loss/∂ ") + what;
}

QString BackwardStepList::friendlyLabel(const TraceEntry* forward, const QString& gradName) {
    if (!forward) return friendlyLabel(gradName, Role::Gradient);
    QString what = lossLabel(forward->role);
    if (what.isEmpty()) what = StepModel::friendlyLabel(*forward);
    return QStringLiteral("∂loss/∂ ") + what;
}

QString BackwardStepList::friendlyLabel(const Trace& trace, const QString& gradName) {
    return friendlyLabel(trace.find(forwardName(gradName).toStdString()), gradName);
}

QString BackwardStepList::counterpartStep(const Trace& trace, const QString& step, Direction to) {
    if (to == Direction::Backward) {
        const QString g = gradientName(step);
        if (trace.contains(g.toStdString())) return g;
        const QStringList order = backwardStepOrder(trace);
        return order.value(0);
    }
    const QString f = forwardName(step);
    if (!f.isEmpty() && trace.contains(f.toStdString())) return f;
    for (const TraceEntry& e : trace.entries())
        if (StepModel::isForwardStep(e.name)) return QString::fromStdString(e.name);
    return {};
}

QString BackwardStepList::location(const TraceEntry* forward, const QString& forwardName) {
    return forward ? StepModel::locationText(*forward) : StepModel::locationText(forwardName);
}

int BackwardStepList::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(order_.size());
}

Qt::ItemFlags BackwardStepList::flags(const QModelIndex& index) const {
    if (!index.isValid()) return Qt::NoItemFlags;
    return Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
}

QVariant BackwardStepList::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() < 0 || index.row() >= order_.size()) return {};
    if (role == Qt::FontRole || role == Qt::ForegroundRole || role == Qt::BackgroundRole || role == Qt::CheckStateRole ||
        role == Qt::TextAlignmentRole || role == Qt::DecorationRole || role == Qt::SizeHintRole)
        return {};  // asked for on every paint; none of them is set (and the lookups below cost)
    if (role == Qt::DisplayRole && !displayCache_[size_t(index.row())].isEmpty()) return displayCache_[size_t(index.row())];
    const QString& name = order_[index.row()];
    const QString base = forwardName(name);
    const TraceEntry* fwd = trace_ ? trace_->find(base.toStdString()) : nullptr;
    const TraceEntry* grad = trace_ ? trace_->find(name.toStdString()) : nullptr;
    switch (role) {
    case Qt::DisplayRole: {
        // Made once per trace: the view asks for it on every repaint of every visible row.
        QString& cached = displayCache_[size_t(index.row())];
        if (cached.isEmpty()) {
            const QString label = friendlyLabel(fwd, name);
            const QString where = location(fwd, base);
            cached = where.isEmpty() ? label : QStringLiteral("%1   · %2").arg(label, where);
        }
        return cached;
    }
    case ShortLabelRole: return friendlyLabel(fwd, name);
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("<b>%1</b><br><tt>%2</tt>").arg(friendlyLabel(fwd, name).toHtmlEscaped(),
                                                                      name.toHtmlEscaped());
        const QString where = location(fwd, base);
        if (!where.isEmpty()) tip += QStringLiteral("<br>") + where.toHtmlEscaped();
        if (grad) tip += QStringLiteral("<br>") + StepModel::shapeText(*grad).toHtmlEscaped();
        tip += QStringLiteral("<br><i>%1</i>")
                   .arg(tr("Backward step %1 of %2: how much the loss changes when %3 changes.")
                            .arg(index.row() + 1)
                            .arg(order_.size())
                            .arg(base.toHtmlEscaped()));
        return tip;
    }
    case TraceNameRole:
    case JumpTargetRole: return name;
    case OpKindRole: return fwd ? QString::fromLatin1(stepformer::role_name(fwd->role)) : QStringLiteral("gradient");
    case IsStepRole: return true;
    case ShapeRole: return grad ? StepModel::shapeText(*grad) : QString();
    case ForwardNameRole: return base;
    case LocationRole: return location(fwd, base);
    default: return {};
    }
}
