// How a parameter tensor is laid out as a matrix in the gradients view: rows and columns, with
// labels that say what they are (vocabulary tokens, heads, d_model), read from the step that uses
// the weight.
#pragma once

#include <QString>
#include <QStringList>

#include "stepformer/config.h"
#include "stepformer/tensor.h"
#include "stepformer/trace.h"

// Rows/columns of a parameter tensor shown as a matrix, with labels that say what they are.
struct ParamLayout {
    int rows = 0, cols = 0;
    QStringList rowLabels, colLabels;
    QString rowTitle, colTitle;
};

// The layout of weight `name` of shape `shape`; `tr` (may be null) says which step reads it.
ParamLayout paramLayout(const stepformer::Config& c, const stepformer::Trace* tr, const QString& name,
                        const stepformer::Shape& shape);
