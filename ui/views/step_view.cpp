#include "views/step_view.h"

#include "steps/step_panels.h"
#include "views/view_parts.h"

#include <algorithm>

#include <QBoxLayout>
#include <QComboBox>
#include <QSpinBox>

#include "views/message_stack.h"

StepView::StepView(QWidget* parent, const char* name) : QWidget(parent) {
    if (name) setObjectName(QString::fromLatin1(name));
}

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

QComboBox* StepView::makeSentencePicker() {
    return tensorviz::makeBatchPicker(this, tr("Which sentence of the batch to show (the batch_size axis)"));
}

QSpinBox* StepView::makeHeadPicker() {
    return view_parts::makeHeadPicker(this, tr("Which attention head to show (the n_heads axis)"));
}

QHBoxLayout* StepView::makeSentenceHeadBar(QComboBox*& sentence, QSpinBox*& head) {
    QHBoxLayout* bar = view_parts::makeRow(nullptr, 6);  // nested: no margins of its own
    sentence = makeSentencePicker();
    head = makeHeadPicker();
    view_parts::addLabelled(bar, tr("Sentence:"), sentence);
    bar->addSpacing(10);
    view_parts::addLabelled(bar, tr("Head:"), head);
    return bar;
}

QVBoxLayout* StepView::makeWhitePage(int sideMargin, int spacing) {
    // The page is the palette's Base: white in the light theme, dark in the dark one, and it follows
    // a theme switch (a colour set in the widget's own palette would not).
    setAutoFillBackground(true);
    setBackgroundRole(QPalette::Base);
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
