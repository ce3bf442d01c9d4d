#include "app/export.h"
#include "app/core_text.h"

#include <exception>
#include <string>

#include <QAbstractButton>
#include <QAbstractSlider>
#include <QAbstractSpinBox>
#include <QBuffer>
#include <QComboBox>
#include <QLineEdit>
#include <QToolBar>
#include <QByteArray>
#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

#include "stepformer/atomic_file.h"
#include "stepformer/npy.h"
#include "steps/tensor_slice.h"

namespace {

bool fail(QString* error, const QString& message) {
    if (error) *error = message;
    return false;
}

// The core's messages already name the path; make sure ours always do.
QString withPath(const QString& what, const QString& path) {
    return what.contains(path) ? what : QStringLiteral("%1: %2").arg(path, what);
}

bool checkArgs(const QString& path, QString* error) {
    if (path.isEmpty()) return fail(error, QObject::tr("No file name given"));
    return true;
}

// A view's controls (buttons, spin boxes, combo boxes, sliders, scroll bars) are for the screen,
// not for a figure: an SVG export paints every visible widget but those, each at its place.
bool isControl(const QWidget* w) {
    return qobject_cast<const QAbstractButton*>(w) || qobject_cast<const QAbstractSpinBox*>(w) ||
           qobject_cast<const QComboBox*>(w) || qobject_cast<const QAbstractSlider*>(w) ||
           qobject_cast<const QLineEdit*>(w) || qobject_cast<const QToolBar*>(w);
}

void renderContent(QPainter& painter, QWidget* w, const QPoint& offset) {
    w->render(&painter, offset, QRegion(), QWidget::DrawWindowBackground);  // itself, not its children
    for (QObject* o : w->children()) {
        auto* child = qobject_cast<QWidget*>(o);
        if (!child || !child->isVisible() || child->isWindow() || isControl(child)) continue;
        renderContent(painter, child, offset + child->pos());
    }
}

bool writeBytes(const QByteArray& bytes, const QString& path, QString* error) {
    try {
        stepformer::write_file_atomic(QFile::encodeName(path).toStdString(), bytes.constData(),
                                      static_cast<size_t>(bytes.size()));
    } catch (const std::exception& e) {
        return fail(error, withPath(QObject::tr("Cannot write %1: %2").arg(path, coreText(e)), path));
    }
    return true;
}

}  // namespace

bool exportWidgetPng(QWidget* widget, const QString& path, QString* error) {
    if (!checkArgs(path, error)) return false;
    if (!widget) return fail(error, QObject::tr("Cannot export %1: no view to export").arg(path));
    const QPixmap pix = widget->grab();
    if (pix.isNull()) return fail(error, QObject::tr("Cannot export %1: the view could not be captured").arg(path));
    QByteArray bytes;
    QBuffer buf(&bytes);
    buf.open(QIODevice::WriteOnly);
    if (!pix.save(&buf, "PNG")) return fail(error, QObject::tr("Cannot export %1: PNG encoding failed").arg(path));
    buf.close();
    return writeBytes(bytes, path, error);
}

bool exportWidgetSvg(QWidget* widget, const QString& path, QString* error) {
    if (!checkArgs(path, error)) return false;
    if (!widget) return fail(error, QObject::tr("Cannot export %1: no view to export").arg(path));
    QByteArray bytes;
    QBuffer buf(&bytes);
    buf.open(QIODevice::WriteOnly);
    {
        QSvgGenerator gen;
        gen.setOutputDevice(&buf);
        gen.setSize(widget->size());
        gen.setViewBox(QRect(QPoint(0, 0), widget->size()));
        gen.setTitle(widget->windowTitle().isEmpty() ? widget->objectName() : widget->windowTitle());
        gen.setDescription(QObject::tr("Exported from Stepformer"));
        QPainter painter;
        if (!painter.begin(&gen)) return fail(error, QObject::tr("Cannot export %1: SVG painting failed").arg(path));
        renderContent(painter, widget, QPoint());
        painter.end();
    }
    buf.close();
    if (bytes.isEmpty()) return fail(error, QObject::tr("Cannot export %1: SVG generation produced nothing").arg(path));
    return writeBytes(bytes, path, error);
}

bool exportTensorCsv(const stepformer::Tensor& tensor, const QString& path, QString* error) {
    if (!checkArgs(path, error)) return false;
    std::string text;
    try {
        if (stepformer::numel(tensor.shape) != tensor.size())
            return fail(error, QObject::tr("Cannot export %1: the tensor's shape does not match its data").arg(path));
        text = stepformer::tensor_to_csv(tensor);
    } catch (const std::exception& e) {
        return fail(error, withPath(QObject::tr("Cannot export %1: %2").arg(path, coreText(e)), path));
    }
    return writeBytes(QByteArray::fromStdString(text), path, error);
}

bool exportTensorNpy(const stepformer::Tensor& tensor, const QString& path, QString* error) {
    if (!checkArgs(path, error)) return false;
    try {
        stepformer::write_npy(QFile::encodeName(path).toStdString(), tensor);
    } catch (const std::exception& e) {
        return fail(error, withPath(QObject::tr("Cannot export %1: %2").arg(path, coreText(e)), path));
    }
    return true;
}

namespace {
// A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180).
QString csvField(const QString& s) {
    if (!s.contains(QLatin1Char(',')) && !s.contains(QLatin1Char('"')) && !s.contains(QLatin1Char('\n'))) return s;
    return QLatin1Char('"') + QString(s).replace(QLatin1Char('"'), QStringLiteral("\"\"")) + QLatin1Char('"');
}
}  // namespace

QString labelledCsv(const stepformer::Trace& trace, const stepformer::TraceEntry& e, const stepformer::Config* cfg) {
    using stepformer::AxisKind;
    const stepformer::Shape& shape = e.value.shape;
    const size_t rank = shape.size();
    auto axisName = [&](size_t i) {
        return i < e.axes.size() && !e.axes[i].name.empty() ? QString::fromStdString(e.axes[i].name)
                                                              : QStringLiteral("dim%1").arg(i);
    };
    auto kindOf = [&](size_t i) { return i < e.axes.size() ? e.axes[i].kind : AxisKind::Feature; };
    int batchAxis = -1;
    for (size_t i = 0; i < rank; ++i)
        if (kindOf(i) == AxisKind::Batch) batchAxis = int(i);
    QStringList header;
    for (size_t i = 0; i < rank; ++i) header << csvField(axisName(i));
    for (size_t i = 0; i < rank; ++i) {
        const AxisKind k = kindOf(i);
        if (k == AxisKind::SrcToken || k == AxisKind::TgtToken) header << csvField(axisName(i) + QStringLiteral("_token"));
        if (k == AxisKind::Vocab) header << csvField(axisName(i) + QStringLiteral("_word"));
    }
    header << QStringLiteral("value");
    QStringList dims;
    for (int64_t d : shape) dims << QString::number(d);
    QString out = QStringLiteral("# %1 shape [%2]\n").arg(QString::fromStdString(e.name), dims.join(QStringLiteral(", ")));
    out += header.join(QLatin1Char(',')) + QLatin1Char('\n');
    std::vector<int64_t> idx(rank, 0);
    const int64_t n = int64_t(e.value.data.size());
    for (int64_t flat = 0; flat < n; ++flat) {
        QStringList row;
        for (size_t i = 0; i < rank; ++i) row << QString::number(idx[i]);
        const int batch = batchAxis >= 0 ? int(idx[size_t(batchAxis)]) : 0;
        for (size_t i = 0; i < rank; ++i) {
            const AxisKind k = kindOf(i);
            if (k == AxisKind::SrcToken || k == AxisKind::TgtToken) row << csvField(tensorviz::tokenAt(trace, k, batch, int(idx[i])));
            if (k == AxisKind::Vocab)
                row << csvField(cfg && idx[i] < cfg->tgt_vocab_size() ? QString::fromStdString(cfg->tgt_vocab[size_t(idx[i])])
                                                                       : QString());
        }
        row << QString::number(double(e.value.data[size_t(flat)]), 'g', 9);
        out += row.join(QLatin1Char(',')) + QLatin1Char('\n');
        for (size_t i = rank; i-- > 0;) {  // the next index, last axis fastest (C order)
            if (++idx[i] < shape[i]) break;
            idx[i] = 0;
        }
    }
    return out;
}

bool exportEntryCsv(const stepformer::Trace& trace, const stepformer::TraceEntry& entry, const stepformer::Config* cfg,
                    const QString& path, QString* error) {
    if (!checkArgs(path, error)) return false;
    if (stepformer::numel(entry.value.shape) != entry.value.size())
        return fail(error, QObject::tr("Cannot export %1: the tensor's shape does not match its data").arg(path));
    return writeBytes(labelledCsv(trace, entry, cfg).toUtf8(), path, error);
}

bool exportTraceNpz(const stepformer::Trace& trace, bool gradients, const QString& path, QString* error) {
    if (!checkArgs(path, error)) return false;
    std::vector<std::pair<std::string, const stepformer::Tensor*>> arrays;
    for (const stepformer::TraceEntry& e : trace.entries()) {
        const bool grad = e.name.rfind("grad.", 0) == 0;
        if (grad == gradients && !e.value.data.empty()) arrays.emplace_back(e.name, &e.value);
    }
    if (arrays.empty())
        return fail(error, gradients ? QObject::tr("Cannot export %1: this pass has no gradients (it needs a target "
                                                   "that starts with the start token)")
                                           .arg(path)
                                     : QObject::tr("Cannot export %1: there is no trace to export").arg(path));
    try {
        stepformer::write_npz(QFile::encodeName(path).toStdString(), arrays);
    } catch (const std::exception& e) {
        return fail(error, withPath(QObject::tr("Cannot export %1: %2").arg(path, coreText(e)), path));
    }
    return true;
}
