// The architecture diagram's picture as data: the design space it is laid out in, its columns
// and rows, the paper-like colours, and its blocks (id, label, shape, place, fill), bottom to top.
// The arrows and texts between them are drawn in architecture_painting.cpp.
#pragma once

#include <QRectF>
#include <QtGlobal>
#include <QRgb>

namespace architecture {

// The design space: everything is laid out in these logical units, then mapped to the widget
// with separate x / y factors (their ratio limited so the figure never looks squashed).
constexpr qreal kW = 400, kH = 526;
constexpr qreal kMaxStretch = 1.35;

// Columns.
constexpr qreal kEncFrameL = 40, kEncFrameR = 188, kEncX0 = 62, kEncX1 = 180, kEncCx = 121, kEncLane = 51;
constexpr qreal kDecFrameL = 212, kDecFrameR = 360, kDecX0 = 220, kDecX1 = 338, kDecCx = 279, kDecLane = 349;
constexpr qreal kFrameBottom = 410, kEncFrameTop = 210, kDecFrameTop = 116;
constexpr qreal kBranchY = 402;          // where the stack input splits into Q, K, V and the residual
constexpr qreal kAddY = 432, kAddR = 9;  // the embedding + PE circle
constexpr qreal kPeR = 11;

// Paper-like colours.
constexpr QRgb kEmbedding = 0xf8cfd4, kAttention = 0xfddcaa, kNorm = 0xf2f3bf, kFfn = 0xc5e4f3, kLinear = 0xd9d3f1,
               kSoftmax = 0xcfebc7, kWhite = 0xffffff;
constexpr QRgb kHighlight = 0xd62728, kHover = 0x1565c0;

enum class Shape { Box, Circle, PeIcon };

struct BlockSpec {
    const char* id;     // see architecture_diagram.h
    const char* label;  // shown through ArchitectureDiagram::tr()
    Shape shape;
    QRectF logical;     // in the design space
    QRgb fill;
};

constexpr BlockSpec box(const char* id, const char* label, qreal x0, qreal y0, qreal x1, qreal y1, QRgb fill) {
    return {id, label, Shape::Box, QRectF(QPointF(x0, y0), QPointF(x1, y1)), fill};
}

constexpr BlockSpec circle(const char* id, const char* label, Shape shape, qreal cx, qreal cy, qreal r) {
    return {id, label, shape, QRectF(cx - r, cy - r, 2 * r, 2 * r), kWhite};
}

inline constexpr BlockSpec kBlocks[] = {
    // Encoder, bottom to top.
    box("encoder.embedding", "Input Embedding", kEncX0 - 12, 456, kEncX1 + 8, 480, kEmbedding),
    circle("encoder.pe", "Positional Encoding", Shape::PeIcon, kEncCx - 36, kAddY, kPeR),
    circle("encoder.add_pe", "+", Shape::Circle, kEncCx, kAddY, kAddR),
    box("encoder.mha", "Multi-Head Attention", kEncX0, 350, kEncX1, 390, kAttention),
    box("encoder.mha_norm", "Add & Norm", kEncX0, 312, kEncX1, 334, kNorm),
    box("encoder.ffn", "Feed Forward", kEncX0, 260, kEncX1, 298, kFfn),
    box("encoder.ffn_norm", "Add & Norm", kEncX0, 222, kEncX1, 244, kNorm),
    // Decoder, bottom to top.
    box("decoder.embedding", "Output Embedding", kDecX0 - 8, 456, kDecX1 + 12, 480, kEmbedding),
    circle("decoder.pe", "Positional Encoding", Shape::PeIcon, kDecCx + 36, kAddY, kPeR),
    circle("decoder.add_pe", "+", Shape::Circle, kDecCx, kAddY, kAddR),
    box("decoder.masked_mha", "Masked Multi-Head Attention", kDecX0, 350, kDecX1, 390, kAttention),
    box("decoder.masked_mha_norm", "Add & Norm", kDecX0, 312, kDecX1, 334, kNorm),
    box("decoder.cross_mha", "Multi-Head Attention", kDecX0, 258, kDecX1, 298, kAttention),
    box("decoder.cross_mha_norm", "Add & Norm", kDecX0, 222, kDecX1, 244, kNorm),
    box("decoder.ffn", "Feed Forward", kDecX0, 166, kDecX1, 204, kFfn),
    box("decoder.ffn_norm", "Add & Norm", kDecX0, 130, kDecX1, 152, kNorm),
    // Output.
    box("linear", "Linear", 234, 72, 324, 96, kLinear),
    box("softmax", "Softmax", 234, 34, 324, 58, kSoftmax),
};

}  // namespace architecture
