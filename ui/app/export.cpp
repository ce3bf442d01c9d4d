#include "app/export.h"
#include "app/core_text.h"

#include <exception>
#include <string>

#include <QBuffer>
#include <QByteArray>
#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSvgGenerator>
#include <QWidget>

#include "stepformer/atomic_file.h"
#include "stepformer/npy.h"

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
        widget->render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
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
