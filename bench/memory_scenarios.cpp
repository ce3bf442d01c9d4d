// The app's resident memory in the scenarios of a student's session at the tutorial's size (44 M
// parameters, 176 MB of weights), driven through the real MainWindow, offscreen:
//   first-start  the first start of the tutorial preset with an empty cache: the window shows the
//                untrained model while the preset trains in the background, then the trained one
//   open-weights opening a weights file (--weights)
//   train        opening a weights file, then --runs runs of --epochs epochs in the Train dock
//                (the tutorial's hyperparameters, attention replay on and shown)
//   stepping     opening a weights file, then --passes passes through every step of every view
//                (the backward pass for the gradients view), switching the sentence between passes
//   device-switch opening a weights file, then twice: computing on the GPU (every step of every
//                view), and back on the CPU
// After each phase it prints the process's memory from /proc/self/status: the peak resident size
// so far (VmHWM) and the resident size now (VmRSS = RssAnon + RssFile + RssShmem), in MB. Not a
// timed benchmark; scripts/memory_profile.sh runs every scenario.
#include <QApplication>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QFile>
#include <QTabWidget>
#include <QTimer>

#include <cstdio>
#include <functional>

#include "app/main_window.h"
#include "app/session.h"
#include "steps/step_navigator.h"
#include "training/attention_replay.h"
#include "training/hyperparameter_form.h"
#include "training/training_controller.h"
#include "training/training_panel.h"

namespace {

// One line per phase: "phase <name>: peak <VmHWM> MB, now <VmRSS> MB (anon A, file F, shmem S)".
void report(const char* phase) {
    QFile f(QStringLiteral("/proc/self/status"));
    long hwm = 0, rss = 0, anon = 0, file = 0, shmem = 0;
    if (f.open(QIODevice::ReadOnly)) {
        for (const QByteArray& line : f.readAll().split('\n')) {
            const QList<QByteArray> parts = line.simplified().split(' ');
            if (parts.size() < 2) continue;
            const long kb = parts[1].toLong();
            if (parts[0] == "VmHWM:") hwm = kb;
            if (parts[0] == "VmRSS:") rss = kb;
            if (parts[0] == "RssAnon:") anon = kb;
            if (parts[0] == "RssFile:") file = kb;
            if (parts[0] == "RssShmem:") shmem = kb;
        }
    }
    std::printf("phase %-28s peak %5ld MB, now %5ld MB (anon %ld, file %ld, shmem %ld)\n", phase, hwm / 1024, rss / 1024,
                anon / 1024, file / 1024, shmem / 1024);
    std::fflush(stdout);
}

// Runs the event loop until `done` holds (checked after every event batch) or `timeoutMs` passes.
bool runUntil(const std::function<bool()>& done, int timeoutMs) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > timeoutMs) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents | QEventLoop::WaitForMoreEvents, 20);
    }
    return true;
}

// Lets queued work (layouts, paints, deferred deletes, async translations) settle.
void settle(int ms) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
    QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
}

// Every step of every view, as a student pressing "next" would: forward for the forward views,
// the backward pass for the gradients view.
long stepThroughEverything(MainWindow& w) {
    long switches = 0;
    StepNavigator* nav = w.navigator();
    w.setFollowStep(false);
    for (const QString& view : MainWindow::viewNames()) {
        if (view == QLatin1String("backward")) continue;  // another name for gradients
        const bool backward = view == QLatin1String("gradients");
        w.setCurrentView(view);
        if (backward) nav->setBackward(true);
        nav->goFirst();
        settle(0);
        for (int i = 1; i < nav->stepCount(); ++i) {
            nav->goNext();
            QCoreApplication::sendPostedEvents();
            QCoreApplication::sendPostedEvents();
            QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
            ++switches;
        }
        if (backward) nav->setBackward(false);
    }
    return switches;
}

int fail(const QString& message) {
    std::fprintf(stderr, "stepformer_memory_bench: %s\n", qPrintable(message));
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    qputenv("STEPFORMER_NO_CLOSE_PROMPT", "1");
    QApplication app(argc, argv);
    QCoreApplication::setApplicationName(QStringLiteral("stepformer-memory-bench"));

    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral("Resident memory of the app in a student's scenarios."));
    parser.addHelpOption();
    parser.addPositionalArgument(QStringLiteral("scenario"), QStringLiteral("first-start | open-weights | train | stepping | device-switch"));
    const QCommandLineOption weightsOpt(QStringLiteral("weights"), QStringLiteral("Weights file to open."),
                                        QStringLiteral("path"));
    const QCommandLineOption cacheOpt(QStringLiteral("cache-dir"), QStringLiteral("Preset cache folder (first-start: empty)."),
                                      QStringLiteral("dir"));
    const QCommandLineOption runsOpt(QStringLiteral("runs"), QStringLiteral("Training runs (train)."), QStringLiteral("n"),
                                     QStringLiteral("1"));
    const QCommandLineOption epochsOpt(QStringLiteral("epochs"), QStringLiteral("Epochs per run (train)."),
                                       QStringLiteral("n"), QStringLiteral("300"));
    const QCommandLineOption passesOpt(QStringLiteral("passes"), QStringLiteral("Passes through every step (stepping)."),
                                       QStringLiteral("n"), QStringLiteral("3"));
    const QCommandLineOption sizeOpt(QStringLiteral("size"), QStringLiteral("Window size."), QStringLiteral("WxH"),
                                     QStringLiteral("1366x768"));
    parser.addOptions({weightsOpt, cacheOpt, runsOpt, epochsOpt, passesOpt, sizeOpt});
    parser.process(app);
    if (parser.positionalArguments().size() != 1) return fail(QStringLiteral("give one scenario (see --help)"));
    const QString scenario = parser.positionalArguments().front();
    const QStringList wh = parser.value(sizeOpt).split(QLatin1Char('x'));
    const QSize size(wh.value(0).toInt(), wh.value(1).toInt());
    if (size.isEmpty()) return fail(QStringLiteral("bad --size"));

    report("started");
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.provisioning = Session::Provisioning::Background;
    if (scenario == QLatin1String("first-start")) {
        if (!parser.isSet(cacheOpt)) return fail(QStringLiteral("first-start needs --cache-dir (an empty folder)"));
        const QDir dir(parser.value(cacheOpt));
        if (dir.exists() && !dir.isEmpty()) return fail(QStringLiteral("the cache folder is not empty"));
        o.cacheDir = parser.value(cacheOpt);
        o.preset = Session::Preset::Tutorial;
    } else if (scenario == QLatin1String("open-weights") || scenario == QLatin1String("train") ||
               scenario == QLatin1String("stepping") || scenario == QLatin1String("device-switch")) {
        if (!parser.isSet(weightsOpt)) return fail(scenario + QStringLiteral(" needs --weights"));
        o.weightsPath = parser.value(weightsOpt);
    } else {
        return fail(QStringLiteral("unknown scenario '%1'").arg(scenario));
    }

    MainWindow w(o);
    Session* session = w.session();
    w.resize(size);
    w.show();
    settle(300);
    if (scenario == QLatin1String("first-start")) {
        report("window shown, training");
        bool finished = false;
        QObject::connect(session, &Session::trainingFinished, [&] { finished = true; });
        QObject::connect(session, &Session::trainingFailed, [&](const QString& m) {
            std::fprintf(stderr, "training failed: %s\n", qPrintable(m));
            finished = true;
        });
        if (!runUntil([&] { return finished || !session->isTraining(); }, 600000))
            return fail(QStringLiteral("the preset did not finish training"));
        settle(500);
        if (session->modelState() != Session::ModelState::Trained) return fail(QStringLiteral("no trained model"));
        report("first start trained");
        return 0;
    }
    if (session->modelState() != Session::ModelState::FromFile) return fail(QStringLiteral("could not open the weights"));
    report("weights open");
    if (scenario == QLatin1String("open-weights")) return 0;

    if (scenario == QLatin1String("device-switch")) {
        for (int round = 1; round <= 2; ++round) {
            QString why;
            if (!session->setComputeDevice(ComputeDevices::Kind::Gpu, &why))
                return fail(QStringLiteral("no GPU: %1").arg(why));
            settle(1500);
            stepThroughEverything(w);
            settle(300);
            report(qPrintable(QStringLiteral("on the GPU, round %1").arg(round)));
            if (!session->setComputeDevice(ComputeDevices::Kind::Cpu, &why)) return fail(why);
            settle(1500);
            report(qPrintable(QStringLiteral("back on the CPU, round %1").arg(round)));
        }
        return 0;
    }

    if (scenario == QLatin1String("train")) {
        TrainingPanel* panel = w.trainingPanel();
        w.trainingDock()->show();
        settle(300);
        // Memory, not watching: full speed (the tutorial's preset would pace it at 2 steps a
        // second), with the live views on as a student has them.
        panel->setPace(TrainingPanel::Pace::FullSpeed);
        panel->setLiveViews(true);
        stepformer::TrainOptions t = panel->hyperparameters()->trainOptions();
        t.epochs = parser.value(epochsOpt).toInt();
        panel->hyperparameters()->setTrainOptions(t);
        auto* tabs = panel->findChild<QTabWidget*>(QStringLiteral("trainingTabs"));
        const int runs = parser.value(runsOpt).toInt();
        for (int run = 1; run <= runs; ++run) {
            if (!panel->start()) return fail(QStringLiteral("the training did not start: %1").arg(panel->message()));
            if (tabs) tabs->setCurrentWidget(panel->attentionReplay());  // the replay is drawn as it grows
            if (!runUntil([&] { return !panel->isTraining(); }, 1800000))
                return fail(QStringLiteral("the training did not finish"));
            settle(1500);  // the results table's translations, the views' new trace
            if (panel->state() != TrainingController::State::Finished)
                return fail(QStringLiteral("the run ended as %1").arg(TrainingController::stateName(panel->state())));
            if (panel->attentionReplay()->snapshotCount() < 2) return fail(QStringLiteral("no attention replay"));
            report(qPrintable(QStringLiteral("after training run %1").arg(run)));
        }
        return 0;
    }

    // stepping
    const int passes = parser.value(passesOpt).toInt();
    const QStringList sources{QStringLiteral("ich mochte ein bier P"), QStringLiteral("ich mochte ein cola P")};
    const QStringList targets{QStringLiteral("S i want a beer ."), QStringLiteral("S i want a coke .")};
    QElapsedTimer t;
    t.start();
    long switches = 0;
    for (int pass = 1; pass <= passes; ++pass) {
        const int k = pass % 2;
        if (!session->setSentences(sources[k], targets[k])) return fail(QStringLiteral("sentence rejected"));
        settle(100);
        switches += stepThroughEverything(w);
        settle(100);
        report(qPrintable(QStringLiteral("after stepping pass %1").arg(pass)));
    }
    std::printf("%ld step switches in %.1f s\n", switches, double(t.elapsed()) / 1000.0);
    return 0;
}
