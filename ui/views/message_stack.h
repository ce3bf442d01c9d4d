// A view's content, or in its place a message that says why there is none ("No data yet — run
// the forward pass to see the tensors."): a stacked widget of the content page and a centred
// grey label.
#pragma once

#include <QStackedWidget>
#include <QString>

class QLabel;

class MessageStack : public QStackedWidget {
    Q_OBJECT
public:
    explicit MessageStack(QWidget* parent = nullptr);

    // The content page (built as a child of this stack), then the label named `labelName` that
    // stands in for it. Called once.
    void setPage(QWidget* page, const QString& labelName);

    void showPage();
    void showMessage(const QString& text);
    bool showsMessage() const;
    QString message() const;  // the text shown instead of the page; empty while the page is shown

private:
    QLabel* label_ = nullptr;
};
