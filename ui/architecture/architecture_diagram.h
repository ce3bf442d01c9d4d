// The paper's Figure 1 (encoder-decoder Transformer) drawn with QPainter, scaled to the widget.
// The block of the current step is highlighted (with "layer k/N" beside the stack's N×);
// hovering a block shows what it computes; clicking it asks for the block's first step.
//
// A translation model around PyTorch's nn.Transformer ("architecture": "torch") is drawn as
// PyTorch builds it (models/torch/diagram_layout.h): biases, its activation, the final encoder.norm /
// decoder.norm (encoder.final_norm, decoder.final_norm), the generator; with norm_first the
// LayerNorm sits before each sub-layer and the residual goes around both into a ⊕ (the extra ids
// encoder.mha_add, encoder.ffn_add, decoder.masked_mha_add, decoder.cross_mha_add, decoder.ffn_add).
//
// Block ids: encoder.embedding, encoder.pe, encoder.add_pe, encoder.mha, encoder.mha_norm,
// encoder.ffn, encoder.ffn_norm, decoder.embedding, decoder.pe, decoder.add_pe,
// decoder.masked_mha, decoder.masked_mha_norm, decoder.cross_mha, decoder.cross_mha_norm,
// decoder.ffn, decoder.ffn_norm, linear, softmax.
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

    // How the diagram is drawn: the tutorial's figure, or PyTorch's post-norm / pre-norm layers.
    // Aiayn: attention-is-all-you-need-pytorch's model (models/aiayn/diagram_layout.h).
    enum class Layout { Tutorial, TorchPostNorm, TorchPreNorm, Aiayn };
    Layout layout() const { return layout_; }
    // Whether the diagram draws weight sharing (attention-is-all-you-need-pytorch's tied
    // trg_word_prj / embeddings): the dashed "shared" links.
    bool drawsSharedProjection() const { return layout_ == Layout::Aiayn && config_.trg_emb_prj_weight_sharing; }
    bool drawsSharedEmbeddings() const { return layout_ == Layout::Aiayn && config_.emb_src_trg_weight_sharing; }


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
    struct Block {
        QString id;
        QString label;
        Shape shape = Shape::Box;
        QRectF logical;  // in the design space (architecture::kW x kH)
        QRectF rect;     // in widget coordinates
        QRgb fill = 0xffffff;
    };
    void buildBlocks();  // from architecture::kBlocks
    void relayout();
    QPointF map(qreal x, qreal y) const;
    qreal unit() const;  // logical -> pixel factor for sizes that must stay round (circles, fonts, pens)
    QString tooltipFor(const QString& blockId) const;
    bool torch() const { return layout_ == Layout::TorchPostNorm || layout_ == Layout::TorchPreNorm; }
    bool aiayn() const { return layout_ == Layout::Aiayn; }
    qreal designHeight() const;
    qreal frameTop(bool encoder) const;
    qreal frameBottom() const;
    int layersOf(const QString& stack) const;  // the stack's layer count (N of N×)
    void paintTorchArrows(QPainter& p, qreal lineW, qreal head) const;
    void paintAiaynArrows(QPainter& p, qreal lineW, qreal head) const;  // with the "shared" links
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
    Layout layout_ = Layout::Tutorial;
    stepformer::Naming naming_{};  // the trace's names (for stepForBlock)
    qreal sx_ = 1, sy_ = 1, ox_ = 0, oy_ = 0;
    QImage staticImage_;  // paintStatic() at the widget's size; null when it must be redrawn
};
