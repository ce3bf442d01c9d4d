#include "views/message_stack.h"
#include "widgets/theme_colors.h"

#include <QLabel>

#include "views/view_parts.h"

MessageStack::MessageStack(QWidget* parent) : QStackedWidget(parent) {}

void MessageStack::setPage(QWidget* page, const QString& labelName) {
    label_ = new QLabel(this);
    label_->setObjectName(labelName);
    label_->setAlignment(Qt::AlignCenter);
    label_->setWordWrap(true);
    view_parts::enlargeFont(label_, 12.0, 2.0);
    theme::makeQuiet(label_);
    addWidget(page);
    addWidget(label_);
}

void MessageStack::showPage() { setCurrentIndex(0); }

void MessageStack::showMessage(const QString& text) {
    label_->setText(text);
    setCurrentIndex(1);
}

bool MessageStack::showsMessage() const { return currentIndex() == 1; }

QString MessageStack::message() const { return showsMessage() ? label_->text() : QString(); }
