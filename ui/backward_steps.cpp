#include "backward_steps.h"

#include "step_model.h"

using stepformer::Role;
using stepformer::Trace;
using stepformer::TraceEntry;

namespace {

const QString kGradPrefix = QStringLiteral("grad.");

bool isGradName(const std::string& name) { return name.rfind("grad.", 0) == 0; }

}  // namespace

QStringList backwardStepOrder(const Trace& trace) {
    QStringList out;
    for (const TraceEntry& e : trace.entries())
        if (e.role == Role::Gradient || isGradName(e.name)) out << QString::fromStdString(e.name);
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
    return name.startsWith(kGradPrefix) ? name.mid(kGradPrefix.size()) : name;
}

QString BackwardStepList::gradientName(const QString& name) {
    return name.startsWith(kGradPrefix) ? name : kGradPrefix + name;
}

QString BackwardStepList::friendlyLabel(const QString& gradName, Role op) {
    const QString base = forwardName(gradName);
    QString what;
    if (base == QLatin1String("loss"))
        what = tr("loss  (= 1, where it starts)");
    else if (base == QLatin1String("loss.per_token"))
        what = tr("loss per token  (1/N each)");
    else if (op == Role::Gradient)
        what = base;
    else
        what = StepModel::friendlyLabel(base, op);
    return QStringLiteral("\u2202loss/\u2202 ") + what;
}

QString BackwardStepList::friendlyLabel(const Trace& trace, const QString& gradName) {
    const QString base = forwardName(gradName);
    const TraceEntry* e = trace.find(base.toStdString());
    return friendlyLabel(gradName, e ? e->role : Role::Gradient);
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
    const Role op = fwd ? fwd->role : Role::Gradient;
    switch (role) {
    case Qt::DisplayRole: {
        // Made once per trace: the view asks for it on every repaint of every visible row.
        QString& cached = displayCache_[size_t(index.row())];
        if (cached.isEmpty()) {
            const QString label = friendlyLabel(name, op);
            const QString where = StepModel::locationText(base);
            cached = where.isEmpty() ? label : QStringLiteral("%1   \u00b7 %2").arg(label, where);
        }
        return cached;
    }
    case ShortLabelRole: return friendlyLabel(name, op);
    case Qt::ToolTipRole: {
        QString tip = QStringLiteral("<b>%1</b><br><tt>%2</tt>").arg(friendlyLabel(name, op).toHtmlEscaped(),
                                                                      name.toHtmlEscaped());
        const QString where = StepModel::locationText(base);
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
    case LocationRole: return StepModel::locationText(base);
    default: return {};
    }
}
