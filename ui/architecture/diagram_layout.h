// The architecture diagram's picture as data: each model's layout is a JSON file in
// resources/diagrams/ (its presentation names it), read once into a DiagramLayout that one
// painter draws. Everything is laid out in a design space kW units wide and `height` tall, then
// mapped to the widget with separate x / y factors (their ratio limited so the figure never looks
// squashed). The keys are documented in docs/architecture.md ("The diagram's data").
#pragma once

#include <QList>
#include <QPolygonF>
#include <QRectF>
#include <QRgb>
#include <QString>
#include <QStringList>

namespace architecture {

constexpr qreal kW = 400;
constexpr qreal kMaxStretch = 1.35;
constexpr QRgb kHighlight = 0xd62728, kHover = 0x1565c0;

enum class Shape { Box, Circle, PeIcon };

struct DiagramBlock {
    QString id;      // see architecture_parts.h
    QString label;   // untranslated; "%act", "%emb", "%prj" are filled from the configuration
    Shape shape = Shape::Box;
    QRectF logical;  // in the design space
    QRgb fill = 0xffffff;
    // Tags drawn on the box: one starting with '+' ("+b") on its top edge at the right, in bold;
    // any other ("dropout") just above its top left.
    QStringList badges;
};

struct DiagramArrow {
    QPolygonF points;  // design space
    bool head = true;  // an arrow head at the last point
};

// A dashed link between two uses of one weight, drawn when the configuration key `when` is true
// (always, with no `when`: a model whose weights are always tied, nanoGPT's lm_head and wte).
struct SharedLink {
    QString when;
    QPolygonF points;
    QRectF label;                  // where "shared" is written
    bool labelAtBottomLeft = false;  // else centred
    bool labelIfFits = false;      // written only where the word fits in `label`
};

struct DiagramLayout {
    QString name;  // the file's base name
    qreal height = 526;
    // A decoder-only model (nanoGPT) has no encoder: its layout names no encoder frame (null here),
    // and neither that frame, its title, its N× nor the inputs' text is drawn.
    QRectF encoderFrame, decoderFrame;
    // The residual sums have blocks of their own (pre-norm layers' ⊕), so a residual step
    // highlights its ⊕ rather than the sub-layer's norm.
    bool separateAdds = false;
    QString inputs, outputs, positional, hint;  // untranslated
    qreal inputsY = 490, positionalY = 432, positionalRight = kW, encoderTitleBottom = 208, hintBottom = 196;
    QList<DiagramBlock> blocks;
    QList<DiagramArrow> arrows;
    QList<SharedLink> sharedLinks;

    bool hasBadges() const;
    bool hasEncoder() const { return !encoderFrame.isNull(); }
};

// The layout in :/diagrams/<name>.json, read once. Throws std::runtime_error naming the file and
// the key when it is missing or malformed (a defect of the build: the tests read every one).
const DiagramLayout& diagramLayout(const QString& name);

}  // namespace architecture
