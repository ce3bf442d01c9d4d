// Saving what the student sees: widgets as PNG / SVG, tensors as CSV / NumPy .npy. Every
// function returns false and fills *error (when given) with a message naming the path on
// failure; files are written atomically through stepformer::write_file_atomic (a failed save
// leaves an existing file untouched, a reader never sees a half-written file).
#pragma once

#include <QString>

#include "stepformer/tensor.h"

class QWidget;

// QWidget::grab() at the widget's current size (and device pixel ratio), saved as PNG.
bool exportWidgetPng(QWidget* widget, const QString& path, QString* error = nullptr);
// QSvgGenerator + QWidget::render: the widget's painting as vector graphics.
bool exportWidgetSvg(QWidget* widget, const QString& path, QString* error = nullptr);
// stepformer::tensor_to_csv (rank >= 3 flattened, with a "# shape [..]" first line).
bool exportTensorCsv(const stepformer::Tensor& tensor, const QString& path, QString* error = nullptr);
// stepformer::write_npy ('<f4', C order; np.load reads it).
bool exportTensorNpy(const stepformer::Tensor& tensor, const QString& path, QString* error = nullptr);
