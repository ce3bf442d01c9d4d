// Keyboard and assistive access (issue 33): a heatmap's keyboard cell cursor (Tab into it, the
// arrows move a cell and its value goes to the status bar, Esc gives the arrows back to stepping,
// a click's focus leaves them to stepping), and a name for a screen reader on every widget that
// paints itself and every button that shows only an icon, in every view.
#include <QAbstractButton>
#include <QAccessible>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeView>

#include "app/main_window.h"
#include "app/session.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "widgets/heatmap_widget.h"
#include "test_util.h"

class TestKeyboardAccess : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void tabTurnsTheCellCursorOn();
    void clickFocusLeavesTheArrowsToStepping();
    void shiftArrowsSelectAndCtrlCCopiesTheBlock();
    void draggingSelectsABlock();
    void everyPaintedWidgetHasAName_data();
    void everyPaintedWidgetHasAName();

private:
    MainWindow::Options options() const;
    QTemporaryDir cache_;
};

void TestKeyboardAccess::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

MainWindow::Options TestKeyboardAccess::options() const { return testutil::smallWindow(cache_.path()); }

void TestKeyboardAccess::tabTurnsTheCellCursorOn() {
    MainWindow w(options());
    HeatmapWidget* map = testutil::showAttentionHeatmap(w);
    QVERIFY(map);
    const QString step = w.currentStep();
    QVERIFY(!map->cellCursorOn());
    map->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(map->hasFocus());
    QVERIFY(map->cellCursorOn());
    QCOMPARE(map->cellCursor(), QPoint(0, 0));

    QTest::keyClick(map, Qt::Key_Right);  // the cursor moves; the step stays
    QTest::keyClick(map, Qt::Key_Right);
    QTest::keyClick(map, Qt::Key_Down);
    QCOMPARE(w.currentStep(), step);
    QCOMPARE(map->cellCursor(), QPoint(1, 2));
    QCOMPARE(map->hoveredCell(), QPoint(1, 2));  // what Ctrl+C copies and linked views outline
    const QString status = w.statusBar()->currentMessage();
    QVERIFY2(status.contains(map->rowLabels().value(1)) && status.contains(map->colLabels().value(2)), qPrintable(status));
    QVERIFY2(status.contains(map->cellText(1, 2).left(3)), qPrintable(status));
    QCOMPARE(map->accessibleDescription(), status);

    QTest::keyClick(map, Qt::Key_End);
    QCOMPARE(map->cellCursor(), QPoint(1, map->cols() - 1));
    QTest::keyClick(map, Qt::Key_Right);  // clamped at the edge
    QCOMPARE(map->cellCursor(), QPoint(1, map->cols() - 1));
    QTest::keyClick(map, Qt::Key_Home, Qt::ControlModifier);
    QCOMPARE(map->cellCursor(), QPoint(0, 0));
    QSignalSpy clicks(map, &HeatmapWidget::cellClicked);
    QTest::keyClick(map, Qt::Key_Return);
    QCOMPARE(clicks.size(), 1);

    // The cursor is painted in the focus colour.
    const QImage shot = map->grab().toImage();
    const QPoint corner = map->cellRect(0, 0).topLeft() + QPoint(0, map->cellRect(0, 0).height() / 2);
    bool found = false;
    const QColor focus = map->palette().color(QPalette::Highlight);
    for (int dx = -3; dx <= 3 && !found; ++dx)
        found = shot.pixelColor(corner + QPoint(dx, 0)) == focus;
    QVERIFY2(found, "no focus-coloured frame at the cursor's cell");

    QTest::keyClick(map, Qt::Key_Escape);  // the arrows step again
    QVERIFY(!map->cellCursorOn());
    QTest::keyClick(map, Qt::Key_Right);
    QVERIFY(w.currentStep() != step);
}

void TestKeyboardAccess::clickFocusLeavesTheArrowsToStepping() {
    MainWindow w(options());
    HeatmapWidget* map = testutil::showAttentionHeatmap(w);
    QVERIFY(map);
    const QStringList order = w.navigator()->model()->stepOrder();
    const int at = order.indexOf(w.currentStep());
    QVERIFY(at > 0);
    QTest::mouseClick(map->viewport(), Qt::LeftButton, {}, map->viewport()->mapFrom(map, map->cellRect(1, 1).center()));
    QTRY_VERIFY(map->hasFocus());
    QVERIFY(!map->cellCursorOn());
    QTest::keyClick(map, Qt::Key_Right);
    QCOMPARE(w.currentStep(), order[at + 1]);
    // ↑ turns the cursor on (↑ steps nothing), at the cell the mouse is on.
    map = testutil::showAttentionHeatmap(w);  // back at the step; the view made its panels anew
    QVERIFY(map);
    QTest::mouseMove(map->viewport(), map->viewport()->mapFrom(map, map->cellRect(2, 1).center()));
    QTRY_COMPARE(map->hoveredCell(), QPoint(2, 1));
    QTest::keyClick(map, Qt::Key_Up);
    QVERIFY(map->cellCursorOn());
    QCOMPARE(map->cellCursor(), QPoint(2, 1));
    QCOMPARE(w.currentStep(), order[at]);
}

void TestKeyboardAccess::shiftArrowsSelectAndCtrlCCopiesTheBlock() {
    MainWindow w(options());
    HeatmapWidget* map = testutil::showAttentionHeatmap(w);
    QVERIFY(map);
    map->setFocus(Qt::TabFocusReason);
    QTRY_VERIFY(map->cellCursorOn());
    QTest::keyClick(map, Qt::Key_Right, Qt::ShiftModifier);
    QTest::keyClick(map, Qt::Key_Right, Qt::ShiftModifier);
    QTest::keyClick(map, Qt::Key_Down, Qt::ShiftModifier);
    QCOMPARE(map->selection(), QRect(0, 0, 3, 2));  // columns 0..2, rows 0..1
    QApplication::clipboard()->clear();
    w.findChild<QAction*>(QStringLiteral("actionCopyCell"))->trigger();
    const QStringList lines = QApplication::clipboard()->text().split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    QCOMPARE(lines.size(), 3);
    QCOMPARE(lines[0], QStringLiteral("\t%1\t%2\t%3").arg(map->colLabels()[0], map->colLabels()[1], map->colLabels()[2]));
    for (int r = 0; r < 2; ++r) {
        const QStringList f = lines[r + 1].split(QLatin1Char('\t'));
        QCOMPARE(f.size(), 4);
        QCOMPARE(f[0], map->rowLabels()[r]);
        for (int c = 0; c < 3; ++c) QCOMPARE(f[c + 1].toFloat(), map->value(r, c));
    }
    QTest::keyClick(map, Qt::Key_Left);  // a plain arrow: the block goes, the cursor moves
    QVERIFY(map->selection().isEmpty());
    QCOMPARE(map->cellCursor(), QPoint(1, 1));
    QTest::keyClick(map, Qt::Key_Left, Qt::ShiftModifier);
    QVERIFY(!map->selection().isEmpty());
    QTest::keyClick(map, Qt::Key_Escape);  // Esc: the block first, then the cursor
    QVERIFY(map->selection().isEmpty() && map->cellCursorOn());
    QTest::keyClick(map, Qt::Key_Escape);
    QVERIFY(!map->cellCursorOn());
}

void TestKeyboardAccess::draggingSelectsABlock() {
    MainWindow w(options());
    HeatmapWidget* map = testutil::showAttentionHeatmap(w);
    QVERIFY(map);
    QWidget* vp = map->viewport();
    const auto at = [&](int r, int c) { return vp->mapFrom(map, map->cellRect(r, c).center()); };
    QTest::mousePress(vp, Qt::LeftButton, {}, at(1, 1));
    QVERIFY(map->selection().isEmpty());  // a click alone selects nothing
    QMouseEvent move(QEvent::MouseMove, QPointF(at(2, 3)), vp->mapToGlobal(QPointF(at(2, 3))), Qt::NoButton,
                     Qt::LeftButton, Qt::NoModifier);
    QApplication::sendEvent(vp, &move);
    QTest::mouseRelease(vp, Qt::LeftButton, {}, at(2, 3));
    QCOMPARE(map->selection(), QRect(QPoint(1, 1), QPoint(3, 2)));  // columns 1..3, rows 1..2
    QVERIFY(map->selectionCopyText().split(QLatin1Char('\n'), Qt::SkipEmptyParts).size() == 3);
    QTest::mouseClick(vp, Qt::LeftButton, {}, at(0, 0));  // a click elsewhere: no block
    QVERIFY(map->selection().isEmpty());
}

void TestKeyboardAccess::everyPaintedWidgetHasAName_data() {
    QTest::addColumn<QString>("view");
    for (const QString& v : MainWindow::viewNames()) QTest::newRow(qPrintable(v)) << v;
}

void TestKeyboardAccess::everyPaintedWidgetHasAName() {
    QFETCH(QString, view);
    MainWindow w(options());
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowActive(&w));
    w.setFollowStep(false);
    QVERIFY(w.setCurrentView(view));
    // A step each view has something to show for: the first encoder layer's attention.
    w.setCurrentStep(QStringLiteral("encoder.layers.0.enc_self_attn.attn"));
    QTest::qWait(50);
    QStringList unnamed;
    int checked = 0;
    for (QWidget* c : w.findChildren<QWidget*>()) {
        if (!c->isVisibleTo(&w)) continue;
        const QString cls = QString::fromLatin1(c->metaObject()->className());
        auto* button = qobject_cast<QAbstractButton*>(c);
        // Our own widgets without a layout paint themselves; Qt's say what they are.
        const bool painted = !cls.startsWith(QLatin1Char('Q')) && !c->layout() && !button;
        if (!painted && !button) continue;
        QAccessibleInterface* a = QAccessible::queryAccessibleInterface(c);
        QVERIFY(a);
        ++checked;
        if (a->text(QAccessible::Name).trimmed().isEmpty())
            unnamed << QStringLiteral("%1 '%2'").arg(cls, c->objectName());
    }
    QVERIFY(checked > 5);
    QVERIFY2(unnamed.isEmpty(), qPrintable(unnamed.join(QStringLiteral(", "))));
}

QTEST_MAIN(TestKeyboardAccess)
#include "test_keyboard_access.moc"
