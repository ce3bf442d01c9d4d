// The status bar on a narrow window (issue 33): while a preset trains on an unmaximised first
// start, every part stays inside the bar and none is drawn over another; the parts that give way
// (the step label's reserve, the loss sparkline, the "Training:" caption) come back with the room.
// And a training step's progress is painted with the window's next paint, not at once.
#include <QApplication>
#include <QEvent>
#include <QLabel>
#include <QProgressBar>
#include <QStandardPaths>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTest>
#include <QToolButton>

#include "app/loss_sparkline.h"
#include "app/main_window.h"
#include "app/session.h"
#include "app/status_bar.h"
#include "test_util.h"

class TestStatusBar : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void trainingBoxFitsANarrowWindow_data();
    void trainingBoxFitsANarrowWindow();
    void progressIsPaintedWithTheWindow();

private:
    QTemporaryDir cache_;
};

void TestStatusBar::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
}

void TestStatusBar::trainingBoxFitsANarrowWindow_data() {
    QTest::addColumn<int>("width");
    for (int width : {900, 1024, 1366, 1920}) QTest::newRow(qPrintable(QString::number(width))) << width;
}

void TestStatusBar::trainingBoxFitsANarrowWindow() {
    QFETCH(int, width);
    MainWindow w(testutil::smallWindow(cache_.path()));
    w.resize(width, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    QVERIFY(w.setCurrentStep(QStringLiteral("decoder.layers.1.dec_enc_attn.masked_scores")));  // a long step name
    // What the session says while it trains a preset.
    emit w.session()->trainingStarted(30);
    emit w.session()->trainingProgress(7, 30, 1.2345);
    StatusBar* bar = w.statusBarWidget();
    QTRY_VERIFY(bar->findChild<QWidget*>(QStringLiteral("trainingBox"))->isVisible());
    QTest::qWait(20);

    QList<QWidget*> parts;
    for (const char* name : {"modelLabel", "trainingProgress", "lossLabel", "cancelTrainingButton", "deviceButton", "stepLabel"})
        parts << bar->findChild<QWidget*>(QString::fromLatin1(name));
    parts << bar->findChild<LossSparkline*>();
    QList<QRect> rects;
    for (QWidget* p : parts) {
        QVERIFY(p);
        if (!p->isVisible()) continue;
        const QRect r(p->mapTo(bar, QPoint(0, 0)), p->size());
        QVERIFY2(r.left() >= 0 && r.right() < bar->width(),
                 qPrintable(QStringLiteral("%1 at %2..%3 in %4 px").arg(p->objectName()).arg(r.left()).arg(r.right()).arg(bar->width())));
        for (const QRect& other : rects)
            QVERIFY2(!r.intersects(other), qPrintable(p->objectName() + QStringLiteral(" overlaps another part")));
        rects << r;
    }
    auto* progress = bar->findChild<QProgressBar*>(QStringLiteral("trainingProgress"));
    QVERIFY(progress->isVisible());
    QCOMPARE(progress->value(), 7);
    auto* step = bar->findChild<QLabel*>(QStringLiteral("stepLabel"));
    QVERIFY(step->isVisible() && step->width() >= 80);
    QVERIFY(step->fontMetrics().horizontalAdvance(step->text()) <= step->width());  // elided, not cut
    QVERIFY(step->text().contains(QStringLiteral("Step")));
    if (width >= 1900) QVERIFY(bar->findChild<LossSparkline*>()->isVisible());  // with room, everything

    emit w.session()->trainingFinished();
    QTRY_VERIFY(!bar->findChild<QWidget*>(QStringLiteral("trainingBox"))->isVisible());
    if (width >= 1200) QTRY_VERIFY(step->toolTip().isEmpty());  // the whole step text again
}

namespace {
struct PaintCounter : QObject {
    int paints = 0;
    bool eventFilter(QObject*, QEvent* e) override {
        if (e->type() == QEvent::Paint) ++paints;
        return false;
    }
};
}  // namespace

// QProgressBar::setValue repaints synchronously: one paint per training step, in the middle of
// whatever the event loop handles (the monkey test caught such a paint blocking). The status bar's
// bar is painted with the window instead (setProgressValue, which the Train panel's uses too): no
// paint while the steps are reported, one after.
void TestStatusBar::progressIsPaintedWithTheWindow() {
    MainWindow w(testutil::smallWindow(cache_.path()));
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    emit w.session()->trainingStarted(30);
    emit w.session()->trainingProgress(1, 30, 2.0);
    auto* progress = w.statusBarWidget()->findChild<QProgressBar*>(QStringLiteral("trainingProgress"));
    QVERIFY(progress);
    QTRY_VERIFY(progress->isVisible());
    QTest::qWait(50);
    PaintCounter counter;
    progress->installEventFilter(&counter);
    for (int step = 2; step <= 20; ++step) emit w.session()->trainingProgress(step, 30, 2.0 / step);
    QCOMPARE(progress->value(), 20);
    QCOMPARE(counter.paints, 0);  // (plain setValue: one paint for each step whose bar looks different)
    QTRY_VERIFY(counter.paints >= 1);
    QVERIFY(counter.paints <= 2);
    progress->removeEventFilter(&counter);
}

QTEST_MAIN(TestStatusBar)
#include "test_status_bar.moc"
