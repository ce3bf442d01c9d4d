// The window and its docks at a laptop's and a desktop's size: opening and closing each dock (the
// Train dock above all) never grows the window, never draws a dock outside it or over another dock
// or the central view, leaves the central view a usable size and, closed again, gives back the
// arrangement it found; floated, the Train dock lies on the screen; in a window narrower than
// 1600 px the default arrangement is compact and leaves the central view most of the width.
//
// The offscreen platform gets two screens, a 1366×768 laptop and a 1920×1080 desktop side by side,
// from a configuration file written before the QApplication starts (main() below); each case puts
// the window on one of them, at the size a first start gives it or maximised.
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMap>
#include <QPushButton>
#include <QScreen>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>

#include "app/appearance.h"
#include "app/main_window.h"
#include "app/session.h"
#include "app/window_settings.h"
#include "architecture/architecture_diagram.h"
#include "training/hyperparameter_form.h"
#include "training/training_panel.h"
#include "test_util.h"

namespace {

const char* const kDocks[] = {"trainingDock", "navigatorDock", "explainDock", "architectureDock", "inputDock"};

// The smallest central view a student can still read a heatmap in.
constexpr int kMinCentralHeight = 200;

void settle() {
    QTest::qWait(60);
    QApplication::processEvents();
}

// 0: the laptop, 1: the desktop (the platform lists them in an order of its own).
QScreen* screen(int index) {
    for (QScreen* s : QGuiApplication::screens())
        if (s->name() == QLatin1String(index == 0 ? "laptop" : "desktop")) return s;
    return nullptr;
}

QRect inWindow(const QMainWindow& w, const QWidget* child) { return QRect(child->mapTo(&w, QPoint(0, 0)), child->size()); }

// A dock behind another's tab is parked outside the window by the layout: it is not drawn.
bool isBehindTab(const QMainWindow& w, const QDockWidget* d) {
    if (w.rect().intersects(inWindow(w, d))) return false;
    for (const QDockWidget* other : w.tabifiedDockWidgets(const_cast<QDockWidget*>(d)))
        if (other->isVisible() && w.rect().contains(inWindow(w, other))) return true;
    return false;
}

// Where the central view and each open, docked dock lie (window coordinates).
QMap<QString, QRect> arrangement(const MainWindow& w) {
    QMap<QString, QRect> m;
    m.insert(QStringLiteral("central"), inWindow(w, w.centralWidget()));
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
        if (!d->isVisible() || d->isFloating() || isBehindTab(w, d)) continue;
        // Docks in tabs share a place, whichever tab is in front.
        QStringList names{d->objectName()};
        for (const QDockWidget* t : w.tabifiedDockWidgets(d))
            if (t->isVisible()) names << t->objectName();
        names.sort();
        m.insert(names.join(QLatin1Char('|')), inWindow(w, d));
    }
    return m;
}

QString describe(const QMap<QString, QRect>& m) {
    QStringList l;
    for (auto it = m.begin(); it != m.end(); ++it)
        l << QStringLiteral("%1 %2,%3 %4x%5")
                 .arg(it.key())
                 .arg(it->x())
                 .arg(it->y())
                 .arg(it->width())
                 .arg(it->height());
    return l.join(QStringLiteral("; "));
}

// Everything the layout must keep at any moment; `when` says at which.
[[nodiscard]] QString checkLayout(const MainWindow& w, const QSize& size, const QRect& screen, const QString& when) {
    if (w.size() != size)
        return QStringLiteral("%1: the window is %2x%3, was %4x%5")
            .arg(when)
            .arg(w.width())
            .arg(w.height())
            .arg(size.width())
            .arg(size.height());
    if (!screen.contains(w.frameGeometry()))
        return QStringLiteral("%1: the window (%2,%3 %4x%5) is off the screen")
            .arg(when)
            .arg(w.frameGeometry().x())
            .arg(w.frameGeometry().y())
            .arg(w.frameGeometry().width())
            .arg(w.frameGeometry().height());
    const QMap<QString, QRect> m = arrangement(w);
    const QString all = QStringLiteral(" (%1)").arg(describe(m));
    for (auto a = m.begin(); a != m.end(); ++a) {
        if (!w.rect().contains(*a)) return when + QStringLiteral(": %1 is drawn outside the window").arg(a.key()) + all;
        for (auto b = std::next(a); b != m.end(); ++b)
            if (a->intersects(*b)) return when + QStringLiteral(": %1 and %2 overlap").arg(a.key(), b.key()) + all;
    }
    const QRect c = m.value(QStringLiteral("central"));
    if (c.height() < kMinCentralHeight || c.width() < w.width() / 2)
        return when + QStringLiteral(": the central view is only %1x%2").arg(c.width()).arg(c.height()) + all;
    // A dock squeezed below its content's minimum draws its content over its neighbours.
    for (QDockWidget* d : w.findChildren<QDockWidget*>()) {
        if (!d->isVisible() || d->isFloating() || isBehindTab(w, d)) continue;
        const QSize need = d->widget()->minimumSizeHint().expandedTo(d->widget()->minimumSize());
        if (d->widget()->width() < need.width() || d->widget()->height() < need.height())
            return when + QStringLiteral(": %1 is %2x%3, less than its content's minimum %4x%5")
                              .arg(d->objectName())
                              .arg(d->widget()->width())
                              .arg(d->widget()->height())
                              .arg(need.width())
                              .arg(need.height()) +
                   all;
        if (d->height() < 60 || d->width() < 120)
            return when + QStringLiteral(": %1 is a strip of %2x%3").arg(d->objectName()).arg(d->width()).arg(d->height()) +
                   all;
    }
    return {};
}

// The same places, give or take a splitter's rounding.
[[nodiscard]] QString compareArrangements(const QMap<QString, QRect>& before, const QMap<QString, QRect>& after,
                                          const QString& when) {
    const QString both = QStringLiteral(" (before: %1; after: %2)").arg(describe(before), describe(after));
    if (before.keys() != after.keys()) return when + QStringLiteral(": other docks are open") + both;
    for (auto it = before.begin(); it != before.end(); ++it) {
        const QRect a = *it, b = after.value(it.key());
        if (qAbs(a.left() - b.left()) > 3 || qAbs(a.top() - b.top()) > 3 || qAbs(a.right() - b.right()) > 3 ||
            qAbs(a.bottom() - b.bottom()) > 3)
            return when + QStringLiteral(": %1 moved").arg(it.key()) + both;
    }
    return {};
}

}  // namespace

class TestWindowLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void init() { QSettings().clear(); }
    void docksNeverGrowTheWindow_data();
    void docksNeverGrowTheWindow();
    void compactArrangementOnALaptop();
    void trainDockPutsTheEpochsNextToStart();
    void everyPresetsFormFitsTheTrainingLayout();
    void savedGeometryFitsTheScreen();

private:
    MainWindow::Options options() const;
    // A window on screen `index`, as a first start sizes it, or maximised; shown.
    std::unique_ptr<MainWindow> showOn(int index, bool maximised);
    QTemporaryDir cache_;
};

void TestWindowLayout::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
    QCOMPARE(QGuiApplication::screens().size(), 2);
    QVERIFY(screen(0));
    QVERIFY(screen(1));
    QCOMPARE(screen(0)->geometry(), QRect(0, 0, 1366, 768));
    QCOMPARE(screen(1)->geometry(), QRect(1366, 0, 1920, 1080));
}

MainWindow::Options TestWindowLayout::options() const {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Untrained;  // the layout does not depend on the weights
    o.provisioning = Session::Provisioning::Never;
    o.cacheDir = cache_.path();
    return o;
}

std::unique_ptr<MainWindow> TestWindowLayout::showOn(int index, bool maximised) {
    QScreen* s = screen(index);
    auto w = std::make_unique<MainWindow>(options());
    w->setScreen(s);
    const QRect avail = s->availableGeometry();
    w->resize(WindowSettings::defaultSize(s));  // a first start's size on this screen
    w->move(avail.topLeft() + QPoint(8, 8));
    if (maximised)
        w->showMaximized();
    else
        w->show();
    if (!QTest::qWaitForWindowExposed(w.get())) return nullptr;
    settle();
    return w;
}

void TestWindowLayout::docksNeverGrowTheWindow_data() {
    QTest::addColumn<int>("screenIndex");
    QTest::addColumn<bool>("maximised");
    QTest::newRow("1366x768") << 0 << false;
    QTest::newRow("1366x768 maximised") << 0 << true;
    QTest::newRow("1920x1080") << 1 << false;
    QTest::newRow("1920x1080 maximised") << 1 << true;
}

void TestWindowLayout::docksNeverGrowTheWindow() {
    QFETCH(int, screenIndex);
    QFETCH(bool, maximised);
    const auto w = showOn(screenIndex, maximised);
    QVERIFY(w);
    const QRect avail = screen(screenIndex)->availableGeometry();
    const QSize size = w->size();
    VERIFY_HELPER(checkLayout(*w, size, avail, QStringLiteral("at start")));
    const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(QLatin1Char(' '), QLatin1Char('_'));
    testutil::saveShot(*w, QStringLiteral("window_%1.png").arg(tag));

    for (const char* name : kDocks) {
        auto* dock = w->findChild<QDockWidget*>(QLatin1String(name));
        QVERIFY2(dock, name);
        const QMap<QString, QRect> before = arrangement(*w);
        const bool wasOpen = dock->toggleViewAction()->isChecked();
        dock->toggleViewAction()->trigger();
        settle();
        VERIFY_HELPER(checkLayout(*w, size, avail,
                                  QStringLiteral("%1 %2").arg(wasOpen ? "closing" : "opening", name)));
        if (!wasOpen && dock == w->trainingDock())
            testutil::saveShot(*w, QStringLiteral("window_%1_train.png").arg(tag));
        dock->toggleViewAction()->trigger();
        settle();
        VERIFY_HELPER(checkLayout(*w, size, avail, QStringLiteral("%1 %2 again").arg(wasOpen ? "opening" : "closing", name)));
        VERIFY_HELPER(compareArrangements(before, arrangement(*w), QStringLiteral("after toggling %1 twice").arg(name)));
    }

    // Floated, the Train dock lies on the screen, and the window keeps its size.
    QDockWidget* train = w->trainingDock();
    train->show();
    settle();
    train->setFloating(true);
    settle();
    QVERIFY2(avail.contains(train->frameGeometry()),
             qPrintable(QStringLiteral("the floating Train dock (%1,%2 %3x%4) is off the screen")
                            .arg(train->frameGeometry().x())
                            .arg(train->frameGeometry().y())
                            .arg(train->frameGeometry().width())
                            .arg(train->frameGeometry().height())));
    VERIFY_HELPER(checkLayout(*w, size, avail, QStringLiteral("with the Train dock floating")));
    train->setFloating(false);
    settle();
    VERIFY_HELPER(checkLayout(*w, size, avail, QStringLiteral("with the Train dock docked again")));
}

void TestWindowLayout::compactArrangementOnALaptop() {
    // At 1366 px the docks leave the central view most of the width; at 1920 the wide arrangement.
    const auto laptop = showOn(0, true);
    QVERIFY(laptop);
    const QRect central = inWindow(*laptop, laptop->centralWidget());
    QVERIFY2(central.width() >= laptop->width() * 6 / 10,
             qPrintable(QStringLiteral("central view %1 of %2 px").arg(central.width()).arg(laptop->width())));
    // Restore Default Layout gives the same arrangement after the docks were moved around.
    laptop->findChild<QDockWidget*>(QStringLiteral("explainDock"))->setFloating(true);
    laptop->trainingDock()->show();
    settle();
    laptop->restoreDefaultLayout();
    settle();
    VERIFY_HELPER(compareArrangements({{QStringLiteral("central"), central}}, {{QStringLiteral("central"),
                                                                               inWindow(*laptop, laptop->centralWidget())}},
                                      QStringLiteral("after Restore Default Layout")));
    VERIFY_HELPER(checkLayout(*laptop, laptop->size(), screen(0)->availableGeometry(),
                              QStringLiteral("after Restore Default Layout")));

    // The architecture diagram is never drawn at the scale that made its text ~6 px high.
    const auto desk = showOn(1, true);
    QVERIFY(desk);
    const QRect deskCentral = inWindow(*desk, desk->centralWidget());
    QVERIFY2(deskCentral.width() >= 900, qPrintable(QString::number(deskCentral.width())));
    // Wide, the diagram is under the navigator, both in sight; compact, it is the navigator's tab.
    auto* deskNavigator = desk->findChild<QDockWidget*>(QStringLiteral("navigatorDock"));
    QVERIFY(desk->tabifiedDockWidgets(deskNavigator).isEmpty());
    QCOMPARE(laptop->tabifiedDockWidgets(laptop->findChild<QDockWidget*>(QStringLiteral("navigatorDock"))).size(), 1);
    // The diagram gets room enough for its least font (9 px) to fit its blocks: on the laptop as a
    // tab of the navigator's full height.
    laptop->findChild<QDockWidget*>(QStringLiteral("architectureDock"))->raise();
    settle();
    for (MainWindow* w : {laptop.get(), desk.get()}) {
        const QSize d = w->architectureDiagram()->size();
        QVERIFY2(w->architectureDiagram()->isVisible() && d.width() >= 240 && d.height() >= 320,
                 qPrintable(QStringLiteral("the diagram is %1x%2").arg(d.width()).arg(d.height())));
    }
    testutil::saveShot(*laptop, QStringLiteral("window_1366x768_architecture_tab.png"));
}

void TestWindowLayout::trainDockPutsTheEpochsNextToStart() {
    const auto w = showOn(0, false);
    QVERIFY(w);
    w->trainingDock()->show();
    settle();
    auto* start = w->trainingPanel()->findChild<QPushButton*>(QStringLiteral("startButton"));
    auto* epochs = w->trainingPanel()->findChild<QSpinBox*>(QStringLiteral("runEpochsSpin"));
    QVERIFY(start);
    QVERIFY(epochs);
    QVERIFY(epochs->isVisible());
    const QRect s = inWindow(*w, start), e = inWindow(*w, epochs);
    QVERIFY2(qAbs(s.center().y() - e.center().y()) < s.height(), "the epochs are not on Start's row");
    QVERIFY(inWindow(*w, w->trainingDock()).contains(e));
    // Narrow, the hyperparameters are a tab: the panel never scrolls sideways.
    auto* page = w->trainingPanel()->findChild<QScrollArea*>(QStringLiteral("trainingScroll"));
    QVERIFY(page);
    QVERIFY2(!page->horizontalScrollBar()->isVisible(),
             qPrintable(QStringLiteral("the Train panel (%1 px wide) scrolls sideways").arg(page->width())));
    auto* tabs = w->trainingPanel()->findChild<QTabWidget*>(QStringLiteral("trainingTabs"));
    QVERIFY(tabs);
    QCOMPARE(tabs->tabText(0), QStringLiteral("Hyperparameters"));
    // It is the form's epoch count.
    auto* formEpochs = w->trainingPanel()->findChild<QSpinBox*>(QStringLiteral("epochsSpin"));
    QVERIFY(formEpochs);
    epochs->setValue(7);
    QCOMPARE(formEpochs->value(), 7);
    formEpochs->setValue(12);
    QCOMPARE(epochs->value(), 12);
}

// The form follows the shown model to its preset (test_training_panel), so each preset's form is
// what a user sees first: at 1366 x 768 in the training layout none may be wider than its pane
// (PyTorch's, with pre-norm and the activation beside the architecture, was clipped on the right).
void TestWindowLayout::everyPresetsFormFitsTheTrainingLayout() {
    const auto w = showOn(0, false);
    QVERIFY(w);
    auto* layout = w->findChild<QAction*>(QStringLiteral("actionTrainingLayout"));
    QVERIFY(layout);
    layout->trigger();
    settle();
    HyperparameterForm* form = w->trainingPanel()->hyperparameters();
    auto* scroll = w->trainingPanel()->findChild<QScrollArea*>(QStringLiteral("hyperparameterScroll"));
    auto* presets = form->findChild<QComboBox*>(QStringLiteral("presetCombo"));
    QVERIFY(scroll);
    QVERIFY(presets);
    QVERIFY(scroll->isVisible());
    // And at View › Zoom's sizes: the column's least width was the 100 % form's.
    for (int percent : {100, 150, 200, 100}) {
        Appearance::applyZoom(percent);
        settle();
        for (int i = 0; i < presets->count(); ++i) {
            const auto preset = HyperparameterForm::Preset(presets->itemData(i).toInt());
            if (preset == HyperparameterForm::Preset::Custom) continue;
            form->applyPreset(preset);
            settle();
            const int room = scroll->viewport()->width();
            QVERIFY2(form->width() <= room,
                     qPrintable(QStringLiteral("at %1 %, preset '%2': the form is %3 px wide in a pane of %4 px")
                                    .arg(percent)
                                    .arg(presets->itemText(i))
                                    .arg(form->width())
                                    .arg(room)));
        }
    }
}

// A geometry saved larger than the screen the window comes back on (a big monitor's, or a window
// that had grown past its screen: the monkey test's settings held a Layer Lab 23843 px wide) is
// restored fitted to the screen, for the main window and the Layer Lab.
void TestWindowLayout::savedGeometryFitsTheScreen() {
    QByteArray huge;
    {
        QWidget big;
        big.setScreen(screen(0));
        big.setGeometry(40, 30, 23843, 2517);
        huge = big.saveGeometry();
    }
    QVERIFY(!huge.isEmpty());
    QSettings().setValue(QStringLiteral("window/geometry"), huge);
    QSettings().setValue(QStringLiteral("layerLab/geometry"), huge);
    const auto fits = [](QWidget* w, const char* what) -> QString {
        const QRect avail = w->screen()->availableGeometry();
        // Its size within the screen's and its corner on it (the frame's few pixels are the platform's).
        if (w->width() <= avail.width() && w->height() <= avail.height() && avail.contains(w->pos())) return {};
        return QStringLiteral("%1 is at %2,%3 %4x%5 on a screen of %6x%7 at %8,%9")
            .arg(QLatin1String(what))
            .arg(w->x()).arg(w->y())
            .arg(w->width()).arg(w->height())
            .arg(avail.width()).arg(avail.height()).arg(avail.x()).arg(avail.y());
    };

    MainWindow::Options o = options();
    o.restoreSettings = true;
    MainWindow w(o);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    settle();
    VERIFY_HELPER(fits(&w, "the main window"));

    w.findChild<QAction*>(QStringLiteral("actionLayerLab"))->trigger();
    auto* lab = w.findChild<QWidget*>(QStringLiteral("layerLabWindow"));
    QVERIFY(lab && lab->isVisible());
    settle();
    VERIFY_HELPER(fits(lab, "the Layer Lab"));
    lab->close();
}

// Two offscreen screens before the QApplication exists (the platform reads them when it starts).
int main(int argc, char** argv) {
    QTemporaryDir dir;
    if (!dir.isValid()) return 2;
    auto screenJson = [](const char* name, int x, int width, int height) {
        return QJsonObject{{QStringLiteral("name"), QLatin1String(name)},
                           {QStringLiteral("x"), x},
                           {QStringLiteral("y"), 0},
                           {QStringLiteral("width"), width},
                           {QStringLiteral("height"), height},
                           {QStringLiteral("logicalDpi"), 96},
                           {QStringLiteral("logicalBaseDpi"), 96},
                           {QStringLiteral("dpr"), 1.0}};
    };
    const QJsonObject config{{QStringLiteral("synchronousWindowSystemEvents"), false},
                             {QStringLiteral("windowFrameMargins"), true},
                             {QStringLiteral("screens"), QJsonArray{screenJson("laptop", 0, 1366, 768),
                                                                    screenJson("desktop", 1366, 1920, 1080)}}};
    const QString path = dir.filePath(QStringLiteral("screens.json"));
    QFile f(path);
    if (!f.open(QIODevice::WriteOnly) || f.write(QJsonDocument(config).toJson()) < 0) return 2;
    f.close();
    qputenv("QT_QPA_PLATFORM", "offscreen:configfile=" + QFile::encodeName(path));
    QApplication app(argc, argv);
    TestWindowLayout test;
    return QTest::qExec(&test, argc, argv);
}

#include "test_window_layout.moc"
