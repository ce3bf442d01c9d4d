// The views MainWindow shows. Each is written separately; while one is not in the tree yet, a
// plain placeholder with the same interface stands in for it (no Q_OBJECT: no signals).
#pragma once

#include <memory>

#include <QLabel>
#include <QString>
#include <QVBoxLayout>
#include <QWidget>

#include "stepformer/config.h"
#include "stepformer/trace.h"

namespace stepformer_placeholder {
class View : public QWidget {
public:
    View(const QString& objectName, const QString& title, QWidget* parent)
        : QWidget(parent), title_(title), label_(new QLabel(this)) {
        setObjectName(objectName);
        label_->setAlignment(Qt::AlignCenter);
        label_->setWordWrap(true);
        auto* lay = new QVBoxLayout(this);
        lay->addWidget(label_);
        update_text();
    }
    void setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config&) {
        trace_ = std::move(trace);
        update_text();
    }
    void setStep(const QString& name) {
        step_ = name;
        update_text();
    }

protected:
    void update_text() {
        QString text = QStringLiteral("<b>%1</b><br>%2").arg(title_, step_.toHtmlEscaped());
        if (trace_)
            if (const auto* e = trace_->find(step_.toStdString()))
                text += QStringLiteral("<br>%1").arg(QString::fromStdString(stepformer::shape_to_string(e->value.shape)));
        label_->setText(text);
    }
    std::shared_ptr<const stepformer::Trace> trace_;
    QString title_, step_;
    QLabel* label_;
};
}  // namespace stepformer_placeholder

#if __has_include("tensor_view.h")
#include "tensor_view.h"
#define STEPFORMER_HAS_TENSOR_VIEW 1
#else
class TensorView : public stepformer_placeholder::View {
public:
    explicit TensorView(QWidget* parent = nullptr)
        : View(QStringLiteral("tensorView"), QStringLiteral("Tensor view"), parent) {}
    const stepformer::Tensor* currentTensor() const {
        const auto* e = trace_ ? trace_->find(step_.toStdString()) : nullptr;
        return e ? &e->value : nullptr;
    }
    QString currentTensorName() const { return step_; }
};
#endif

#if __has_include("attention_view.h")
#include "attention_view.h"
#else
class AttentionView : public stepformer_placeholder::View {
public:
    explicit AttentionView(QWidget* parent = nullptr)
        : View(QStringLiteral("attentionView"), QStringLiteral("Attention view"), parent) {}
};
#endif

#if __has_include("mask_view.h")
#include "mask_view.h"
#else
class MaskView : public stepformer_placeholder::View {
public:
    explicit MaskView(QWidget* parent = nullptr) : View(QStringLiteral("maskView"), QStringLiteral("Mask view"), parent) {}
};
#endif

#if __has_include("pe_view.h")
#include "pe_view.h"
#else
class PositionalEncodingView : public stepformer_placeholder::View {
public:
    explicit PositionalEncodingView(QWidget* parent = nullptr)
        : View(QStringLiteral("peView"), QStringLiteral("Positional encoding view"), parent) {}
};
#endif

#if __has_include("architecture_diagram.h")
#include "architecture_diagram.h"
#define STEPFORMER_HAS_ARCHITECTURE_DIAGRAM 1
#else
class ArchitectureDiagram : public stepformer_placeholder::View {
public:
    explicit ArchitectureDiagram(QWidget* parent = nullptr)
        : View(QStringLiteral("architectureDiagram"), QStringLiteral("Architecture"), parent) {}
};
#endif
