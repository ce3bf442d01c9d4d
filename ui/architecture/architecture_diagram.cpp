#include "architecture/architecture_diagram.h"

#include "models/model_registry.h"

#include <algorithm>

#include <QHelpEvent>
#include <QMouseEvent>
#include <QToolTip>

#include <nlohmann/json.hpp>

#include "architecture/architecture_parts.h"
#include "stepformer/config.h"
#include "steps/reference_trace.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"

using namespace architecture;

namespace {

// The diagram's name of a stack (the first word of its block ids); "" outside the stacks.
QString stackId(stepformer::Stack s) {
    switch (s) {
    case stepformer::Stack::Encoder: return QStringLiteral("encoder");
    case stepformer::Stack::Decoder: return QStringLiteral("decoder");
    default: return {};
    }
}

}  // namespace

ArchitectureDiagram::ArchitectureDiagram(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("architectureDiagram"));
    setAccessibleName(tr("Architecture diagram"));
    setAccessibleDescription(tr("The model's blocks; a click on a block goes to its first step."));
    setMouseTracking(true);
    setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Expanding);
    setAttribute(Qt::WA_OpaquePaintEvent);
    config_ = stepformer::Config::tutorial();
    layout_ = &diagramLayout(models::presentation(models::namingOf(config_)).diagramFor(config_));
    buildBlocks();
    relayout();
}

QSize ArchitectureDiagram::sizeHint() const { return {360, 480}; }
QSize ArchitectureDiagram::minimumSizeHint() const { return {220, 300}; }
void ArchitectureDiagram::buildBlocks() {
    blocks_.clear();
    const QString act = config_.activation == "gelu" ? QStringLiteral("GELU") : QStringLiteral("ReLU");
    // attention-is-all-you-need-pytorch scales only with the target embedding tied to the projection.
    const bool scaleEmb = config_.trg_emb_prj_weight_sharing && config_.scale_emb_or_prj == "emb";
    const bool scalePrj = config_.trg_emb_prj_weight_sharing && config_.scale_emb_or_prj == "prj";
    for (const DiagramBlock& s : layout_->blocks) {
        Block b;
        static_cast<DiagramBlock&>(b) = s;
        b.label = tr(s.label.toUtf8().constData());
        b.label.replace(QStringLiteral("%act"), act);
        b.label.replace(QStringLiteral("%emb"), scaleEmb ? QStringLiteral(" × √d_model") : QString());
        b.label.replace(QStringLiteral("%prj"), scalePrj ? QStringLiteral(" × d_model^−0.5") : QString());
        blocks_.append(b);
    }
}

qreal ArchitectureDiagram::frameTop(bool encoder) const {
    return (encoder ? layout_->encoderFrame : layout_->decoderFrame).top();
}
qreal ArchitectureDiagram::frameBottom() const {
    return (layout_->hasEncoder() ? layout_->encoderFrame : layout_->decoderFrame).bottom();
}

bool ArchitectureDiagram::drawsSharedLink(const QString& when) const {
    const nlohmann::json cfg = stepformer::config_to_json(config_);
    for (const SharedLink& l : layout_->sharedLinks)
        if (l.when == when) {
            if (when.isEmpty()) return true;  // a link with no configuration key: always drawn
            const auto it = cfg.find(when.toStdString());
            return it != cfg.end() && it->is_boolean() && it->get<bool>();
        }
    return false;
}

int ArchitectureDiagram::layersOf(const QString& stack) const {
    return stack == QLatin1String("decoder") ? config_.decoder_layers() : config_.encoder_layers();
}

void ArchitectureDiagram::relayout() {
    const qreal w = std::max(1, width()), h = std::max(1, height());
    const qreal H = layout_->height;
    sx_ = w / kW;
    sy_ = h / H;
    if (sy_ > sx_ * kMaxStretch) sy_ = sx_ * kMaxStretch;
    if (sx_ > sy_ * kMaxStretch) sx_ = sy_ * kMaxStretch;
    ox_ = (w - kW * sx_) / 2;
    oy_ = (h - H * sy_) / 2;
    for (Block& b : blocks_) {
        if (b.shape == Shape::Box) {
            b.rect = QRectF(map(b.logical.left(), b.logical.top()), map(b.logical.right(), b.logical.bottom()));
        } else {  // circles stay round
            const QPointF c = map(b.logical.center().x(), b.logical.center().y());
            const qreal r = b.logical.width() / 2 * unit();
            b.rect = QRectF(c.x() - r, c.y() - r, 2 * r, 2 * r);
        }
    }
}

QPointF ArchitectureDiagram::map(qreal x, qreal y) const { return {ox_ + x * sx_, oy_ + y * sy_}; }
qreal ArchitectureDiagram::unit() const { return std::min(sx_, sy_); }

void ArchitectureDiagram::resizeEvent(QResizeEvent*) {
    relayout();
    staticImage_ = QImage();
}

void ArchitectureDiagram::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    trace_ = std::move(trace);
    config_ = config;
    naming_ = models::namingOf(config);
    const DiagramLayout* layout = &diagramLayout(models::presentation(naming_).diagramFor(config));
    // The labels carry the activation and the scale, the links the sharing: always rebuilt (cheap).
    {
        layout_ = layout;
        buildBlocks();
        relayout();
        // The current step's block in the new picture.
        const QString step = step_;
        step_.clear();
        setStep(step);
    }
    staticImage_ = QImage();  // the sentences under the inputs
    update();
}

QString ArchitectureDiagram::blockForTraceName(const QString& traceName) {
    const stepformer::Trace* graph = nullptr;
    const stepformer::TraceEntry* e = tensorviz::referenceEntry(traceName.toStdString(), &graph);
    return e ? architecture::blockOf(*graph, *e) : QString();
}

const stepformer::TraceEntry* ArchitectureDiagram::entryFor(const QString& traceName,
                                                            const stepformer::Trace** graph) const {
    const std::string name = stepformer::names::forward_name(traceName.toStdString());
    if (trace_)
        if (const stepformer::TraceEntry* e = trace_->find(name)) {
            *graph = trace_.get();
            return e;
        }
    return tensorviz::referenceEntry(name, graph);
}

void ArchitectureDiagram::setStep(const QString& traceName) {
    if (traceName == step_) return;
    const QRegion before = dynamicRegion();
    step_ = traceName;
    const stepformer::Trace* graph = nullptr;
    const stepformer::TraceEntry* e = entryFor(traceName, &graph);
    highlighted_ = e ? architecture::blockOf(*graph, *e, layout_->separateAdds) : QString();
    // A trace made by hand may lack the links that place an entry (a mask nobody reads): the
    // model's own graph still does.
    if (highlighted_.isEmpty()) highlighted_ = blockForTraceName(traceName);
    layer_ = e ? e->block.layer : -1;
    stack_ = e ? stackId(e->block.stack) : QString();
    update(before + dynamicRegion());
}

QString ArchitectureDiagram::layerText(const QString& stack) const {
    if (layer_ < 0 || stack != stack_) return {};
    return tr("layer %1/%2").arg(layer_ + 1).arg(layersOf(stack));
}

QString ArchitectureDiagram::stepForBlock(const QString& blockId) const {
    using stepformer::BlockKind;
    const architecture::Part* p = architecture::part(blockId);
    if (!p) return {};
    stepformer::Block b{p->stack, p->kind, -1, naming_};
    if (p->kind != BlockKind::Input && p->kind != BlockKind::Projection && p->kind != BlockKind::FinalNorm) {
        const int layer = stackId(p->stack) == stack_ && layer_ >= 0 ? layer_ : 0;
        b.layer = std::clamp(layer, 0, std::max(0, layersOf(stackId(p->stack)) - 1));
    }
    const stepformer::TraceEntry* e = trace_ ? stepformer::graph::find(*trace_, b, p->first) : nullptr;
    // A step this trace lacks is still named as the model records it (the tooltip says it is missing).
    if (!e)
        e = stepformer::graph::find(tensorviz::referenceTrace(naming_, b.layer + 1), b, p->first);
    return e ? QString::fromStdString(e->name) : QString();
}

QString ArchitectureDiagram::blockAt(QPoint pos) const {
    const QPointF p(pos);
    for (const Block& b : blocks_) {
        if (b.shape == Shape::Box) {
            if (b.rect.contains(p)) return b.id;
        } else {
            // A little slack around the small circles makes them easy to hit.
            const qreal r = b.rect.width() / 2 + 3;
            const QPointF d = p - b.rect.center();
            if (d.x() * d.x() + d.y() * d.y() <= r * r) return b.id;
        }
    }
    return {};
}

QRectF ArchitectureDiagram::blockRect(const QString& blockId) const {
    for (const Block& b : blocks_)
        if (b.id == blockId) return b.rect;
    return {};
}

QStringList ArchitectureDiagram::blockIds() const {
    QStringList ids;
    for (const Block& b : blocks_) ids << b.id;
    return ids;
}

QString ArchitectureDiagram::tooltipFor(const QString& id) const {
    const auto own = models::presentation(naming_).blockTip;
    QString what = own ? own(id, config_) : architecture::description(id, config_);
    const QString step = stepForBlock(id);
    if (!step.isEmpty()) {
        QString where = tr("Click: go to <tt>%1</tt>").arg(step.toHtmlEscaped());
        if (trace_ && !trace_->contains(step.toStdString())) where += tr(" (not in this trace)");
        what += QStringLiteral("<br><br>") + where;
    }
    return what;
}

bool ArchitectureDiagram::event(QEvent* e) {
    if (e->type() == QEvent::ToolTip) {
        auto* he = static_cast<QHelpEvent*>(e);
        const QString id = blockAt(he->pos());
        if (id.isEmpty()) {
            QToolTip::hideText();
            e->ignore();
            return true;
        }
        QToolTip::showText(he->globalPos(), tooltipFor(id), this, blockRect(id).toAlignedRect());
        return true;
    }
    return QWidget::event(e);
}

void ArchitectureDiagram::mouseMoveEvent(QMouseEvent* e) {
    const QString id = blockAt(e->position().toPoint());
    if (id != hovered_) {
        const QRegion before = dynamicRegion();
        hovered_ = id;
        setCursor(id.isEmpty() ? Qt::ArrowCursor : Qt::PointingHandCursor);
        update(before + dynamicRegion());
    }
    QWidget::mouseMoveEvent(e);
}

void ArchitectureDiagram::leaveEvent(QEvent* e) {
    if (!hovered_.isEmpty()) {
        const QRegion before = dynamicRegion();
        hovered_.clear();
        unsetCursor();
        update(before);
    }
    QWidget::leaveEvent(e);
}

void ArchitectureDiagram::mousePressEvent(QMouseEvent* e) {
    if (e->button() == Qt::LeftButton) {
        const QString id = blockAt(e->position().toPoint());
        const QString step = id.isEmpty() ? QString() : stepForBlock(id);
        if (!step.isEmpty()) {
            emit stepRequested(step);
            e->accept();
            return;
        }
    }
    QWidget::mousePressEvent(e);
}
