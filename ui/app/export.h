// Saving what the student sees: widgets as PNG / SVG, tensors as CSV / NumPy .npy. Every
// function returns false and fills *error (when given) with a message naming the path on
// failure; files are written atomically through stepformer::write_file_atomic (a failed save
// leaves an existing file untouched, a reader never sees a half-written file).
#pragma once

#include <QString>

#include "stepformer/config.h"
#include "stepformer/tensor.h"
#include "stepformer/trace.h"

class QWidget;

// QWidget::grab() at the widget's current size (and device pixel ratio), saved as PNG.
bool exportWidgetPng(QWidget* widget, const QString& path, QString* error = nullptr);
// QSvgGenerator: the widget's painting as vector graphics (heatmap cells as rectangles, text as
// text), without its controls (buttons, spin boxes, combo boxes, sliders, scroll bars, fields).
bool exportWidgetSvg(QWidget* widget, const QString& path, QString* error = nullptr);
// stepformer::tensor_to_csv (rank >= 3 flattened, with a "# shape [..]" first line).
bool exportTensorCsv(const stepformer::Tensor& tensor, const QString& path, QString* error = nullptr);
// A trace entry as a labelled table, one row per number (pandas.read_csv(path, comment="#") reads
// it): "# <name> shape [..]", then a header of the axes' names (batch_size, n_heads, len_q, ...),
// for token axes also "<axis>_token", for the vocabulary "<axis>_word", and "value"; each row the
// indices, the tokens or words, and the value (9 significant digits). `cfg` names vocabulary
// entries (may be null).
QString labelledCsv(const stepformer::Trace& trace, const stepformer::TraceEntry& entry,
                    const stepformer::Config* cfg);
// Every entry of a trace, or only its gradients (grad.*), as one NumPy archive: np.load(path)
// gives each by its trace name. False (and *error) when there is nothing to export or on failure.
bool exportTraceNpz(const stepformer::Trace& trace, bool gradients, const QString& path, QString* error = nullptr);
bool exportEntryCsv(const stepformer::Trace& trace, const stepformer::TraceEntry& entry,
                    const stepformer::Config* cfg, const QString& path, QString* error = nullptr);
// stepformer::write_npy ('<f4', C order; np.load reads it).
bool exportTensorNpy(const stepformer::Tensor& tensor, const QString& path, QString* error = nullptr);
