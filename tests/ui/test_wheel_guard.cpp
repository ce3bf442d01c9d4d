// The wheel scrolls a form past its value controls unless the user clicked into one.
#include <QtTest>

#include <QComboBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QVBoxLayout>

#include "widgets/wheel_guard.h"

namespace {

void wheel(QWidget* w, int steps) {
    const QPointF local(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent e(local, w->mapToGlobal(local), QPoint(), QPoint(0, -120 * steps), Qt::NoButton, Qt::NoModifier,
                  Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &e);
}

}  // namespace

class TestWheelGuard : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { WheelGuard::install(); }
    void unfocusedControlsScrollTheForm();
    void focusedControlsTakeTheWheel();

private:
    struct Form {
        QScrollArea area;
        QComboBox* combo = nullptr;
        QSpinBox* spin = nullptr;
        Form() {
            auto* content = new QWidget;
            auto* lay = new QVBoxLayout(content);
            lay->addWidget(new QLineEdit);  // takes the window's first focus
            lay->addSpacing(400);
            combo = new QComboBox;
            combo->addItems({QStringLiteral("SGD"), QStringLiteral("Adam")});
            spin = new QSpinBox;
            spin->setRange(1, 1000);
            spin->setValue(300);
            lay->addWidget(combo);
            lay->addWidget(spin);
            lay->addSpacing(1200);
            area.setWidget(content);
            area.resize(300, 500);
            area.show();
            area.verticalScrollBar()->setValue(200);  // both controls in sight
        }
    };
};

void TestWheelGuard::unfocusedControlsScrollTheForm() {
    Form f;
    QVERIFY(QTest::qWaitForWindowExposed(&f.area));
    QCOMPARE(f.combo->focusPolicy(), Qt::StrongFocus);  // no focus grab on the wheel
    QVERIFY(!f.combo->hasFocus() && !f.spin->hasFocus());
    const int before = f.area.verticalScrollBar()->value();
    wheel(f.combo, 1);
    QCOMPARE(f.combo->currentIndex(), 0);
    const int afterCombo = f.area.verticalScrollBar()->value();
    QVERIFY2(afterCombo > before, "the wheel over an unfocused combo box should scroll the form");
    wheel(f.spin->findChild<QLineEdit*>(), 1);  // the spin box's own editor
    wheel(f.spin, 1);
    QCOMPARE(f.spin->value(), 300);
    QVERIFY(f.area.verticalScrollBar()->value() > afterCombo);
}

void TestWheelGuard::focusedControlsTakeTheWheel() {
    Form f;
    QVERIFY(QTest::qWaitForWindowExposed(&f.area));
    f.area.activateWindow();
    QVERIFY(QTest::qWaitForWindowActive(&f.area));
    f.spin->setFocus(Qt::MouseFocusReason);
    QVERIFY(f.spin->hasFocus());
    const int scroll = f.area.verticalScrollBar()->value();
    wheel(f.spin, 1);
    QCOMPARE(f.spin->value(), 299);  // wheel down steps down
    QCOMPARE(f.area.verticalScrollBar()->value(), scroll);
    f.combo->setFocus(Qt::MouseFocusReason);
    wheel(f.combo, 1);
    QCOMPARE(f.combo->currentIndex(), 1);
}

QTEST_MAIN(TestWheelGuard)
#include "test_wheel_guard.moc"
