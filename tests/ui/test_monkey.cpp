// A monkey test of the main window (issue 34): random valid events from a printed seed — the
// window's actions and buttons (dialogs they open are closed again at once), view and step
// changes, the step keys and shortcuts, typing into the sentence fields (full-width forms and
// words the model does not know included), window sizes from 1024x640 to 2560x1440, preset and
// device switches (a test backend stands in for a GPU), docks, both languages — with no crash, no
// Qt warning, and the event loop never blocked for long.
//
// ctest runs a short version with a fixed seed; the long one is scripts/monkey.sh (10,000 events,
// a random seed, the event loop blocked at most 250 ms). STEPFORMER_MONKEY_EVENTS, _SEED and
// _MAX_BLOCK_MS set them (defaults 400, 20261129 and 2000 ms: the short run shares two cores with
// the rest of the suite).
#include <QAbstractButton>
#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QHash>
#include <QKeyEvent>
#include <QLineEdit>
#include <QMenu>
#include <QMetaEnum>
#include <QPointer>
#include <QRandomGenerator>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QTimer>
#include <QTreeView>

#include <algorithm>
#include <atomic>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <thread>

#include <dirent.h>
#include <execinfo.h>
#include <pthread.h>
#include <unistd.h>

#include "app/input_bar.h"
#include "app/compute_devices.h"
#include "app/device_chooser.h"
#include "app/language.h"
#include "app/main_window.h"
#include "app/session.h"
#include "copy_backend.h"
#include "steps/step_navigator.h"
#include "test_util.h"
#include "training/training_panel.h"
#include "widgets/heatmap_widget.h"

namespace {

constexpr int kMaxWindowSide = 4096;  // the monkey's largest window is 2560x1440

int envInt(const char* name, int fallback) {
    bool ok = false;
    const int v = qEnvironmentVariableIntValue(name, &ok);
    return ok ? v : fallback;
}

// Where the event loop is blocked: a watchdog thread signals the GUI thread, whose handler writes
// its stack to stderr (the test binary exports its symbols, so the project's functions are named).
void printStack(int) {
    void* frames[64];
    const int n = backtrace(frames, 64);
    static const char head[] = "monkey: the GUI thread, blocked, is in:\n";
    (void)!write(2, head, sizeof head - 1);
    backtrace_symbols_fd(frames, n, 2);
}

// CPU time (ms) of each of the process's threads, by "name(tid)": who ran while the GUI thread was
// blocked (a GUI thread starved by workers paints slowly everywhere, so its stacks alone mislead).
std::map<std::string, long> threadCpuMs() {
    std::map<std::string, long> out;
    const long tick = sysconf(_SC_CLK_TCK);
    if (DIR* d = opendir("/proc/self/task")) {
        while (const dirent* e = readdir(d)) {
            if (e->d_name[0] == '.') continue;
            std::ifstream f(std::string("/proc/self/task/") + e->d_name + "/stat");
            std::string line;
            if (!std::getline(f, line)) continue;
            const size_t open = line.find('('), close = line.rfind(')');
            if (open == std::string::npos || close == std::string::npos) continue;
            std::istringstream rest(line.substr(close + 2));
            std::string field;
            long utime = 0, stime = 0;
            for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 3.. after "pid (comm)"
                if (i == 14) utime = std::atol(field.c_str());
                if (i == 15) stime = std::atol(field.c_str());
            }
            out[line.substr(open + 1, close - open - 1) + "(" + e->d_name + ")"] = (utime + stime) * 1000 / tick;
        }
        closedir(d);
    }
    return out;
}

void printCpuDelta(const std::map<std::string, long>& before, qint64 blockMs) {
    std::string line = "monkey: CPU time of the threads during the " + std::to_string(blockMs) + " ms block:";
    for (const auto& [name, ms] : threadCpuMs()) {
        const auto it = before.find(name);
        const long delta = ms - (it == before.end() ? 0 : it->second);
        if (delta > 0) line += " " + name + " " + std::to_string(delta) + " ms;";
    }
    line += "\n";
    (void)!write(2, line.data(), line.size());
}

class BlockWatchdog {
public:
    // A block longer than limitMs: the stack when it passes the limit and every 50 ms after, at
    // most 40 stacks in all (a profile of the block).
    BlockWatchdog(std::atomic<qint64>& lastBeat, std::atomic<bool>& inEvent, const QElapsedTimer& clock, int limitMs)
        : gui_(pthread_self()) {
        void* warm[1];
        backtrace(warm, 1);  // loads libgcc now, not inside the handler
        struct sigaction sa {};
        sa.sa_handler = printStack;
        sigaction(SIGUSR2, &sa, nullptr);
        thread_ = std::thread([this, &lastBeat, &inEvent, &clock, limitMs] {
            qint64 dumpedAt = -1;  // a block's stacks: when it passes the limit, then every 50 ms
            int budget = 40;
            std::map<std::string, long> cpuAtStart;  // the threads' CPU time when a block passed the limit
            qint64 blockBeat = -1;
            int cpuReports = 10;
            while (!stop_.load()) {
                std::this_thread::sleep_for(std::chrono::milliseconds(10));
                const qint64 beat = lastBeat.load(), now = clock.elapsed();
                if (blockBeat >= 0 && beat != blockBeat) {  // the block is over: who had the CPU meanwhile
                    printCpuDelta(cpuAtStart, now - blockBeat);
                    blockBeat = -1;
                }
                if (inEvent.load() || now - beat <= limitMs) continue;
                if (blockBeat < 0 && cpuReports > 0) {
                    --cpuReports;
                    blockBeat = beat;
                    cpuAtStart = threadCpuMs();
                }
                if (budget <= 0) continue;
                if (dumpedAt >= beat && now - dumpedAt < 50) continue;
                dumpedAt = now;
                --budget;
                pthread_kill(gui_, SIGUSR2);
            }
        });
    }
    ~BlockWatchdog() {
        stop_ = true;
        thread_.join();
        signal(SIGUSR2, SIG_DFL);
    }

private:
    pthread_t gui_;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

// What the event loop delivered since the last heartbeat, by event type and receiver: a block made
// of many paints or relayouts shows as counts here where its stacks show only the last one.
class EventCensus : public QObject {
public:
    bool eventFilter(QObject* o, QEvent* e) override {
        const QEvent::Type t = e->type();
        if (t == QEvent::Paint || t == QEvent::LayoutRequest || t == QEvent::Resize || t == QEvent::UpdateRequest ||
            t == QEvent::FontChange || t == QEvent::PolishRequest || t == QEvent::Expose || t == QEvent::Move ||
            t == QEvent::Show || t == QEvent::Hide || t == QEvent::MetaCall || t == QEvent::Timer) {
            QString who = QString::fromLatin1(o->metaObject()->className());
            if (!o->objectName().isEmpty()) who += QLatin1Char('#') + o->objectName();
            if (auto* wd = qobject_cast<QWidget*>(o); wd && (t == QEvent::Paint || t == QEvent::Resize))
                who += QStringLiteral(" %1x%2").arg(wd->width()).arg(wd->height());
            ++counts_[QStringLiteral("%1 %2").arg(QString::fromLatin1(QMetaEnum::fromType<QEvent::Type>().valueToKey(t)), who)];
        }
        return false;
    }
    void reset() { counts_.clear(); }
    // The most frequent entries, "count type receiver" a line.
    QString top(int n) const {
        QList<QPair<int, QString>> v;
        for (auto it = counts_.cbegin(); it != counts_.cend(); ++it) v.append({it.value(), it.key()});
        std::sort(v.begin(), v.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
        QString out;
        for (int i = 0; i < std::min(n, int(v.size())); ++i) out += QStringLiteral("  %1 x %2\n").arg(v[i].first).arg(v[i].second);
        return out;
    }

private:
    QHash<QString, int> counts_;
};

}  // namespace

class TestMonkey : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void randomEvents();
    void cleanupTestCase();

private:
    void oneEvent(MainWindow& w);
    template <class T>
    T* pick(const QList<T*>& list) {
        return list.isEmpty() ? nullptr : list[int(rng_.bounded(quint32(list.size())))];
    }
    QRandomGenerator rng_;
    QTemporaryDir cache_;
    QStringList log_;  // the last events, printed when something fails
};

void TestMonkey::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    // A run starts from no settings: test mode keeps them in ~/.qttest between runs, and a run that
    // starts where the last one left off (its language, its windows' geometry) repeats nothing.
    QSettings().clear();
    QVERIFY(cache_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", cache_.path().toUtf8());
    ComputeDevices::instance().setGpuFactoryForTesting([] { return stepformer::testing::make_device_backend(1); });
    testutil::recordQtWarnings(true);
}

void TestMonkey::cleanupTestCase() {
    testutil::recordQtWarnings(false);
    language::apply(QStringLiteral("en"), false);
    ComputeDevices::instance().setGpuFactoryForTesting({});
}

void TestMonkey::oneEvent(MainWindow& w) {
    static const QStringList words = {QStringLiteral("ich"), QStringLiteral("mochte"), QStringLiteral("ein"),
                                      QStringLiteral("bier"), QStringLiteral("cola"), QStringLiteral("P"),
                                      QStringLiteral("S"), QStringLiteral("i"), QStringLiteral("want"),
                                      QStringLiteral("a"), QStringLiteral("beer"), QStringLiteral("coke"),
                                      QStringLiteral("."), QStringLiteral("E"), QStringLiteral("ｉｃｈ"),
                                      QStringLiteral("\u3000"), QStringLiteral("Ｐ"), QStringLiteral("zzz"),
                                      QString(), QStringLiteral("  ")};
    const int kind = int(rng_.bounded(12u));
    QString what;
    switch (kind) {
    case 0: {  // an enabled action of the window (not Quit)
        QList<QAction*> acts;
        for (QAction* a : w.findChildren<QAction*>())
            if (a->isEnabled() && !a->isSeparator() && !a->menu() && a->objectName() != QLatin1String("actionQuit") &&
                !a->text().isEmpty())
                acts << a;
        if (QAction* a = pick(acts)) {
            what = QStringLiteral("action %1 '%2'").arg(a->objectName(), a->text());
            log_ << what;
            a->trigger();
        }
        break;
    }
    case 1: {  // a visible, enabled button of any window of the app
        QList<QAbstractButton*> buttons;
        for (QWidget* top : QApplication::topLevelWidgets())
            if (top->isVisible())
                for (QAbstractButton* b : top->findChildren<QAbstractButton*>())
                    if (b->isVisible() && b->isEnabled()) buttons << b;
        if (QAbstractButton* b = pick(buttons)) {
            what = QStringLiteral("button %1 '%2'").arg(b->objectName(), b->text());
            log_ << what;
            b->click();
        }
        break;
    }
    case 2: {
        const QStringList views = MainWindow::viewNames();
        what = QStringLiteral("view %1").arg(views[int(rng_.bounded(quint32(views.size())))]);
        log_ << what;
        w.setCurrentView(what.mid(5));
        break;
    }
    case 3: {  // a key to whatever has the focus (the step keys, the shortcuts)
        static const int keys[] = {Qt::Key_Right, Qt::Key_Left, Qt::Key_Home, Qt::Key_End, Qt::Key_Up,
                                   Qt::Key_Down, Qt::Key_Tab, Qt::Key_Escape, Qt::Key_Return, Qt::Key_Space};
        const int key = keys[rng_.bounded(quint32(std::size(keys)))];
        const bool ctrl = rng_.bounded(5u) == 0;
        QWidget* target = QApplication::focusWidget() ? QApplication::focusWidget() : static_cast<QWidget*>(&w);
        log_ << QStringLiteral("key %1%2 to %3").arg(ctrl ? QStringLiteral("Ctrl+") : QString()).arg(key).arg(
                    QString::fromLatin1(target->metaObject()->className()));
        QTest::keyClick(target, Qt::Key(key), ctrl ? Qt::ControlModifier : Qt::NoModifier);
        break;
    }
    case 4: {  // a sentence typed into one of the fields
        QLineEdit* edit = rng_.bounded(2u) ? w.inputBar()->sourceEdit() : w.inputBar()->targetEdit();
        if (!edit->isVisible()) break;
        QStringList s;
        for (int i = int(rng_.bounded(8u)); i > 0; --i) s << words[int(rng_.bounded(quint32(words.size())))];
        log_ << QStringLiteral("type '%1' into %2").arg(s.join(QLatin1Char(' ')), edit->objectName());
        edit->setFocus();
        edit->selectAll();
        for (const QChar ch : s.join(QLatin1Char(' '))) {  // as a keyboard (an input method) sends them
            QKeyEvent press(QEvent::KeyPress, ch == QLatin1Char(' ') ? Qt::Key_Space : Qt::Key_unknown, Qt::NoModifier, QString(ch));
            QApplication::sendEvent(edit, &press);
            QKeyEvent release(QEvent::KeyRelease, press.key(), Qt::NoModifier, QString(ch));
            QApplication::sendEvent(edit, &release);
        }
        QTest::keyClick(edit, Qt::Key_Return);
        break;
    }
    case 5: {
        const QSize size(1024 + int(rng_.bounded(1537u)), 640 + int(rng_.bounded(801u)));
        log_ << QStringLiteral("resize %1x%2").arg(size.width()).arg(size.height());
        w.resize(size);
        break;
    }
    case 6: {  // another model (the quick ones: the tutorial's and torch's are big)
        const auto preset = rng_.bounded(2u) ? Session::Preset::Small : Session::Preset::Gpt;
        log_ << QStringLiteral("preset %1").arg(Session::presetKey(preset));
        w.session()->setPreset(preset);
        break;
    }
    case 7: {
        const QString key = rng_.bounded(2u) ? QStringLiteral("gpu") : QStringLiteral("cpu");
        log_ << QStringLiteral("device %1").arg(key);
        w.deviceChooser()->choose(key, false);
        break;
    }
    case 8: {
        QDockWidget* dock = pick(w.findChildren<QDockWidget*>());
        if (!dock) break;
        log_ << QStringLiteral("dock %1 %2").arg(dock->objectName(), dock->isVisible() ? QStringLiteral("off") : QStringLiteral("on"));
        dock->setVisible(!dock->isVisible());
        break;
    }
    case 9: {
        if (rng_.bounded(8u)) break;  // seldom: a language switch re-translates everything
        const QString code = rng_.bounded(2u) ? QStringLiteral("zh_CN") : QStringLiteral("en");
        log_ << QStringLiteral("language %1").arg(code);
        language::apply(code, false);
        break;
    }
    case 10: {  // the mouse over a heatmap's cell, a wheel turn, a drag
        QList<HeatmapWidget*> maps;
        for (HeatmapWidget* m : w.findChildren<HeatmapWidget*>())
            if (m->isVisible() && !m->isEmpty()) maps << m;
        HeatmapWidget* m = pick(maps);
        if (!m) break;
        const int r = int(rng_.bounded(quint32(m->rows()))), c = int(rng_.bounded(quint32(m->cols())));
        log_ << QStringLiteral("mouse on %1 cell %2,%3").arg(m->objectName()).arg(r).arg(c);
        const QPoint p = m->viewport()->mapFrom(m, m->cellRect(r, c).center());
        // The move lets the event loop run, and a pass arriving then (a model switch, a sentence)
        // rebuilds the views: the heatmap may be gone before the click.
        const QPointer<HeatmapWidget> alive(m);
        QTest::mouseMove(m->viewport(), p);
        if (alive && rng_.bounded(3u) == 0) QTest::mouseClick(alive->viewport(), Qt::LeftButton, {}, p);
        break;
    }
    default: {  // a step, as the navigator's tree sets it
        const QString step = w.currentStep();
        w.navigator()->treeView()->setFocus();
        log_ << QStringLiteral("step from %1").arg(step);
        QTest::keyClick(w.navigator()->treeView(), rng_.bounded(2u) ? Qt::Key_Right : Qt::Key_Down);
        break;
    }
    }
    while (log_.size() > 30) log_.removeFirst();
}

void TestMonkey::randomEvents() {
    const int events = envInt("STEPFORMER_MONKEY_EVENTS", 400);
    const quint32 seed = quint32(envInt("STEPFORMER_MONKEY_SEED", 20261129));
    const int maxBlockMs = envInt("STEPFORMER_MONKEY_MAX_BLOCK_MS", 2000);
    std::printf("monkey: %d events, seed %u (STEPFORMER_MONKEY_SEED=%u repeats this run)\n", events, seed, seed);
    std::fflush(stdout);
    rng_.seed(seed);

    MainWindow::Options o = testutil::smallWindow(cache_.path());
    o.provisioning = Session::Provisioning::Background;
    MainWindow w(o);
    testutil::smallRun(*w.trainingPanel(), 3);  // Start in the Train dock trains a small model
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));

    // A dialog an event opens (a file dialog, About, a question) is closed again at once.
    QTimer closer;
    connect(&closer, &QTimer::timeout, this, [] {
        if (QWidget* modal = QApplication::activeModalWidget()) {
            if (auto* d = qobject_cast<QDialog*>(modal)) d->reject();
            else modal->close();
        }
        for (QWidget* top : QApplication::topLevelWidgets())
            if (auto* menu = qobject_cast<QMenu*>(top); menu && menu->isVisible()) menu->close();
    });
    closer.start(30);
    // The event loop's heartbeat: the longest gap between two beats is how long it was blocked.
    QElapsedTimer clock;
    clock.start();
    std::atomic<qint64> lastBeat{0};
    std::atomic<bool> inEvent{false};
    qint64 longest = 0;
    QString longestAt;
    QStringList beforeLongest;
    // STEPFORMER_MONKEY_CENSUS=1: what the event loop delivered during each block over the limit.
    EventCensus census;
    const bool takeCensus = envInt("STEPFORMER_MONKEY_CENSUS", 0) != 0;
    if (takeCensus) qApp->installEventFilter(&census);
    QTimer beat;
    connect(&beat, &QTimer::timeout, this, [&] {
        const qint64 now = clock.elapsed();
        if (takeCensus) {
            if (now - lastBeat.load() > maxBlockMs)
                std::fprintf(stderr, "monkey: %lld ms block after '%s' delivered:\n%s", static_cast<long long>(now - lastBeat.load()),
                             qPrintable(log_.value(log_.size() - 1)), qPrintable(census.top(25)));
            census.reset();
        }
        if (now - lastBeat.load() > longest) {
            longest = now - lastBeat.load();
            longestAt = log_.value(log_.size() - 1);
            beforeLongest = log_.mid(std::max(0, int(log_.size()) - 8));
        }
        lastBeat = now;
    });
    beat.start(10);
    const BlockWatchdog watchdog(lastBeat, inEvent, clock, maxBlockMs);

    for (int i = 0; i < events; ++i) {
        inEvent = true;
        census.reset();
        oneEvent(w);
        lastBeat = clock.elapsed();  // the event's own handling is the test's, not the loop's
        inEvent = false;
        QTest::qWait(int(rng_.bounded(15u)));
        // A block that ended the wait: qWait returns once its time is up, before a beat could
        // follow the block, so it is measured here too.
        if (const qint64 gap = clock.elapsed() - lastBeat.load(); takeCensus && gap > maxBlockMs)
            std::fprintf(stderr, "monkey: %lld ms block (ending a wait) after '%s' delivered:\n%s", static_cast<long long>(gap),
                         qPrintable(log_.value(log_.size() - 1)), qPrintable(census.top(25)));
        if (const qint64 gap = clock.elapsed() - lastBeat.load(); gap > longest) {
            longest = gap;
            longestAt = log_.value(log_.size() - 1);
            beforeLongest = log_.mid(std::max(0, int(log_.size()) - 8));
        }
        if (!testutil::qtWarnings().isEmpty()) break;
        // No window outgrows any screen (a layout whose minimum follows its content can push a
        // window to tens of thousands of pixels, and every paint then fills all of it).
        for (QWidget* top : QApplication::topLevelWidgets()) {
            if (top->width() <= kMaxWindowSide && top->height() <= kMaxWindowSide) continue;  // hidden ones too
            QString wide;
            for (QWidget* c : top->findChildren<QWidget*>())
                if (c->minimumSizeHint().width() > kMaxWindowSide / 2 || c->minimumWidth() > kMaxWindowSide / 2)
                    wide += QStringLiteral("\n  %1#%2 minimumSizeHint %3x%4 minimum %5x%6")
                                .arg(QString::fromLatin1(c->metaObject()->className()), c->objectName())
                                .arg(c->minimumSizeHint().width()).arg(c->minimumSizeHint().height())
                                .arg(c->minimumWidth()).arg(c->minimumHeight());
            QFAIL(qPrintable(QStringLiteral("%1 (%7, %2) is %3x%4 after these events:\n%5\nwidest children:%6")
                                 .arg(top->objectName(), top->isVisible() ? QStringLiteral("shown") : QStringLiteral("hidden")).arg(top->width()).arg(top->height())
                                 .arg(log_.join(QLatin1String("\n")), wide)
                                 .arg(QString::fromLatin1(top->metaObject()->className()))));
        }
    }
    // Let a training run or a preset's training end before the window goes.
    w.trainingPanel()->findChild<QAbstractButton*>(QStringLiteral("stopButton"))->click();
    QTRY_VERIFY_WITH_TIMEOUT(!w.trainingPanel()->isTraining() && !w.session()->isTraining(), 60000);
    closer.stop();
    beat.stop();
    std::printf("monkey: longest block of the event loop %lld ms (after: %s)\n", static_cast<long long>(longest),
                qPrintable(longestAt));
    QVERIFY2(testutil::qtWarnings().isEmpty(), qPrintable(QStringLiteral("Qt warned: %1\nlast events:\n%2")
                                                  .arg(testutil::qtWarnings().join(QLatin1String("\n")), log_.join(QLatin1String("\n")))));
    QVERIFY2(longest <= maxBlockMs, qPrintable(QStringLiteral("the event loop was blocked %1 ms after these events:\n%2")
                                                   .arg(longest)
                                                   .arg(beforeLongest.join(QLatin1String("\n")))));
}

QTEST_MAIN(TestMonkey)
#include "test_monkey.moc"
