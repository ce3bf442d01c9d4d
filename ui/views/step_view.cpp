#include "views/step_view.h"
#include "views/view_parts.h"

#include <algorithm>

#include <QBoxLayout>
#include <QComboBox>
#include <QSpinBox>

#include "views/message_stack.h"

StepView::StepView(QWidget* parent) : QWidget(parent) {}

StepView::~StepView() = default;

void StepView::setTrace(std::shared_ptr<const stepformer::Trace> trace, const stepformer::Config& config) {
    trace_ = std::move(trace);
    config_ = config;
}

void StepView::setStep(const QString& traceName) { step_ = traceName; }

const stepformer::Tensor* StepView::currentTensor() const {
    if (!trace_) return nullptr;
    const auto* e = trace_->find(currentTensorName().toStdString());
    return e ? &e->value : nullptr;
}

bool StepView::hasData() const { return !messages_ || !messages_->showsMessage(); }

QString StepView::message() const { return messages_ ? messages_->message() : QString(); }

QVBoxLayout* StepView::makeWhitePage(int sideMargin, int spacing) {
    setAutoFillBackground(true);
    QPalette pal = palette();
    pal.setColor(QPalette::Window, Qt::white);
    setPalette(pal);
    auto* root = view_parts::makeColumn(this, spacing, QMargins(sideMargin, 6, sideMargin, 6));
    return root;
}

void StepView::onPicked(QComboBox* box, std::function<void(int)> pick) {
    connect(box, &QComboBox::currentIndexChanged, this, [this, pick = std::move(pick)](int i) {
        if (!updating_ && i >= 0) pick(i);
    });
}

void StepView::onPicked(QSpinBox* box, std::function<void(int)> pick) {
    connect(box, &QSpinBox::valueChanged, this, [this, pick = std::move(pick)](int v) {
        if (!updating_) pick(v);
    });
}

bool StepView::setIndex(int& index, int value) {
    value = std::max(0, value);
    if (value == index) return false;
    index = value;
    return true;
}
