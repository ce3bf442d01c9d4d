// The paper's Figure 1 (encoder-decoder Transformer) drawn with QPainter, scaled to the widget.
// The block of the current step is highlighted (with "layer k/N" beside the stack's N×);
// hovering a block shows what it computes; clicking it asks for the block's first step.
//
// Each model is drawn as its code builds it, from the layout its presentation names
// (resources/diagrams/<name>.json, architecture/diagram_layout.h): PyTorch's layers with their
// biases, final norms and, with norm_first, a ⊕ per sub-layer; attention-is-all-you-need-pytorch's
// input LayerNorm, dropout tags and shared weights. The block ids are architecture_parts.h's.
#pragma once

#include <memory>

#include <QHash>
#include <QImage>
#include <QRegion>
#include <QRectF>
#include <QString>
#include <QStringList>
#include <QWidget>

#include "architecture/diagram_layout.h"
#include "stepformer/config.h"
#include "stepformer/trace.h"

class ArchitectureDiagram : public QWidget {
    Q_OBJECT
public:
    explicit ArchitectureDiagram(QWidget* parent = nullptr);

    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config);
    // Any trace name, grad.<name> included; an unknown name highlights nothing.
    void setStep(const QString& traceName);

    // The block of the entry a trace of the model records under this name ("" when none): read
    // from its block and role, e.g. an encoder layer's attention scores -> encoder.mha, a decoder
    // layer's feed-forward output (after Add & Norm) -> decoder.ffn_norm.
    static QString blockForTraceName(const QString& traceName);
    // The step a click on `blockId` asks for: the block's first step, in the current layer when
    // the current step is in the same stack, otherwise layer 0. Add & Norm gives the sub-block's .out.
    QString stepForBlock(const QString& blockId) const;

    QString blockAt(QPoint pos) const;             // "" outside every block
    QRectF blockRect(const QString& blockId) const;  // widget coordinates; null when unknown
    QStringList blockIds() const;
    QString highlightedBlock() const { return highlighted_; }
    QString hoveredBlock() const { return hovered_; }
    QString currentStep() const { return step_; }
    // The layer of the current step (0-based) when it is inside a stack's layers, else -1.
    int currentLayer() const { return layer_; }
    // "encoder" / "decoder" when the current step is in that stack (layers, embedding or masks).
    QString currentStack() const { return stack_; }
    // The text shown beside a stack's N×, e.g. "layer 4/6" for a step of the encoder's layer 3
    // (0-based); "" when the current step is not in that stack's layers.
    QString layerText(const QString& stack) const;

    // The layout drawn: the base name of its file in resources/diagrams/ ("paper", "aiayn", ...).
    QString layout() const { return layout_->name; }
    // Whether the dashed "shared" link that the configuration key `when` turns on is drawn
    // (e.g. "trg_emb_prj_weight_sharing": the tied projection and target embedding).
    bool drawsSharedLink(const QString& when) const;


    QSize sizeHint() const override;
    QSize minimumSizeHint() const override;

signals:
    void stepRequested(const QString& traceName);

protected:
    void paintEvent(QPaintEvent* e) override;
    void changeEvent(QEvent* e) override;
    void resizeEvent(QResizeEvent*) override;
    bool event(QEvent* e) override;
    void mouseMoveEvent(QMouseEvent* e) override;
    void mousePressEvent(QMouseEvent* e) override;
    void leaveEvent(QEvent* e) override;

private:
    using Shape = architecture::Shape;
    struct Block : architecture::DiagramBlock {
        QRectF rect;  // in widget coordinates
    };
    void buildBlocks();  // from the layout, labels translated and filled in
    void relayout();
    QPointF map(qreal x, qreal y) const;
    qreal unit() const;  // logical -> pixel factor for sizes that must stay round (circles, fonts, pens)
    QString tooltipFor(const QString& blockId) const;
    qreal frameTop(bool encoder) const;
    qreal frameBottom() const;
    int layersOf(const QString& stack) const;  // the stack's layer count (N of N×)
    void paintArrows(QPainter& p, qreal lineW, qreal head) const;
    void paintSharedLinks(QPainter& p) const;
    // The entry `traceName` (or the forward step of a gradient) stands for: the current trace's,
    // else the model's; `graph` receives the trace it is in. nullptr for an unknown name.
    const stepformer::TraceEntry* entryFor(const QString& traceName, const stepformer::Trace** graph) const;
    void drawBlock(QPainter& p, const Block& b, bool highlighted, bool hovered) const;
    void paintStatic(QPainter& p) const;
    void paintDynamic(QPainter& p) const;
    QRegion dynamicRegion() const;  // what a step or hover change may repaint
    QRectF nxRect(bool encoder) const;
    QRectF stepTextRect() const;

    std::shared_ptr<const stepformer::Trace> trace_;
    stepformer::Config config_;
    QList<Block> blocks_;
    QString step_, highlighted_, hovered_, stack_;
    int layer_ = -1;
    const architecture::DiagramLayout* layout_ = nullptr;
    stepformer::Naming naming_{};  // the trace's names (for stepForBlock)
    qreal sx_ = 1, sy_ = 1, ox_ = 0, oy_ = 0;
    QImage staticImage_;  // paintStatic() at the widget's size; null when it must be redrawn
};
