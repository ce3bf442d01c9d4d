// The mouse wheel scrolls a form; it does not change a value control (spin box, combo box,
// slider) that the user has not clicked into. Without this, scrolling the training form turned
// its optimizer combo from SGD to Adam as the wheel passed over it (a known trap of Qt forms
// inside scroll areas). Installed once on the application.
#pragma once

#include <QObject>

class QWidget;

class WheelGuard : public QObject {
    Q_OBJECT
public:
    explicit WheelGuard(QObject* parent = nullptr);
    static void install();  // on qApp, once

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
};
