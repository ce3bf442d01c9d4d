// stepformer: the desktop app. Without arguments it opens on the tutorial's example sentence and
// model (trained on first start, then cached). With --screenshot it renders one state off-screen,
// saves the image and exits:
//   stepformer --step <trace name> --view attention --screenshot out.png
// (--help names an example step: the attention weights of the encoder's first layer).
#include <cstdio>
#include <optional>

#include <QApplication>
#include <QCommandLineParser>
#include <QCoreApplication>
#include <QDir>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFileInfo>
#include <QIcon>
#include <QImage>
#include <QImageWriter>
#include <QPixmap>
#include <QThreadPool>
#include <QStringList>

#include "app/appearance.h"
#include "app/compute_devices.h"
#include "app/desktop_habits.h"
#include "app/input_bar.h"
#include "app/language.h"
#include "app/main_window.h"
#include "app/status_bar.h"
#include "steps/reference_trace.h"
#include "app/session.h"
#include "steps/step_model.h"
#include "steps/step_navigator.h"
#include "views/attention_view.h"
#include "stepformer/trace_graph.h"
#include "stepformer/trace_names.h"
#include "stepformer/version.h"

namespace {

using stepformer::Block;
using stepformer::BlockKind;
using stepformer::Stack;

// The block whose steps stand for all layers in examples: the encoder's first self-attention.
const Block kExampleBlock{Stack::Encoder, BlockKind::SelfAttention, 0};

int fail(const QString& message, int code = 2) {
    std::fprintf(stderr, "stepformer: %s\n", qPrintable(message));
    return code;
}

void setIdentity() {
    QCoreApplication::setOrganizationName(QStringLiteral("Stepformer"));
    QCoreApplication::setApplicationName(QStringLiteral("stepformer"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STEPFORMER_VERSION));
}

struct Args {
    MainWindow::Options opts;
    QString step, view, source, target, shotPath, lang;
    QStringList docks;  // --dock: docks to open (e.g. train)
    QString theme;      // --theme: system | light | dark (empty: the one remembered)
    int zoom = 0;       // --zoom: percent (0: the one remembered)
    bool trainingLayout = false;  // --layout training
    std::optional<AttentionView::Mode> attentionMode;  // --attention-mode
    bool haveSource = false, haveTarget = false;
    QSize shotSize{1440, 900};
    bool screenshot() const { return !shotPath.isEmpty(); }
};

// Parses and checks the command line with a plain QCoreApplication, so that a mistake is reported
// even where no display is available. Returns an exit code when the program should stop.
std::optional<int> parseArgs(int argc, char** argv, Args& a) {
    QCoreApplication pre(argc, argv);
    setIdentity();
    QCommandLineParser parser;
    parser.setApplicationDescription(QStringLiteral(
        "Step through the forward pass of the PyTorch Transformer tutorial and see every tensor.\n"
        "Without options it opens on the tutorial's example (ich mochte ein bier P -> S i want a beer .)."));
    parser.addHelpOption();
    parser.addVersionOption();
    const std::string example =
        stepformer::graph::name_of(tensorviz::referenceTrace(1), kExampleBlock, stepformer::Role::Softmax);
    const QCommandLineOption stepOpt(QStringLiteral("step"),
                                     QStringLiteral("Start at this step (a trace name, e.g. %1).")
                                         .arg(QString::fromStdString(example)),
                                     QStringLiteral("trace name"));
    const QCommandLineOption viewOpt(QStringLiteral("view"),
                                     QStringLiteral("Show this view: %1.").arg(MainWindow::viewNames().join(QStringLiteral(", "))),
                                     QStringLiteral("view"));
    const QCommandLineOption shotOpt(QStringLiteral("screenshot"),
                                     QStringLiteral("Render the window off-screen, save it as an image and exit."),
                                     QStringLiteral("file.png"));
    const QCommandLineOption sizeOpt(QStringLiteral("size"),
                                     QStringLiteral("Window size for --screenshot (default 1440x900; a smaller "
                                                    "size than 320x240 is raised to it, and the window never gets "
                                                    "smaller than its minimum)."),
                                     QStringLiteral("WxH"), QStringLiteral("1440x900"));
    QStringList presetKeys;
    for (const Session::Preset p : Session::allPresets()) presetKeys << Session::presetKey(p);
    const QCommandLineOption presetOpt(QStringLiteral("preset"),
                                       QStringLiteral("Model preset: %1.").arg(presetKeys.join(QLatin1Char('|'))),
                                       QStringLiteral("preset"));
    const QCommandLineOption weightsOpt(QStringLiteral("weights"),
                                        QStringLiteral("Open this weights file (safetensors: a Stepformer checkpoint or "
                                                       "a state_dict saved from the tutorial's code)."),
                                        QStringLiteral("file"));
    const QCommandLineOption noTrainOpt(QStringLiteral("no-train"),
                                        QStringLiteral("Do not train a model that is not cached: show it untrained."));
    const QCommandLineOption srcOpt(QStringLiteral("source"), QStringLiteral("The source sentence."),
                                    QStringLiteral("sentence"));
    const QCommandLineOption tgtOpt(QStringLiteral("target"), QStringLiteral("The target sentence."),
                                    QStringLiteral("sentence"));
    const QCommandLineOption dockOpt(QStringLiteral("dock"),
                                     QStringLiteral("Open this dock too: train (repeat the option for more)."),
                                     QStringLiteral("dock"));
    const QCommandLineOption attentionModeOpt(
        QStringLiteral("attention-mode"),
        QStringLiteral("The attention view's mode: one (one layer's heads, one enlarged) or all (every layer x every "
                       "head). Default: the one used last, or one with --screenshot."),
        QStringLiteral("one|all"));
    const QCommandLineOption backendOpt(
        QStringLiteral("backend"),
        QStringLiteral("What computes: cpu, gpu (Vulkan compute) or auto (a GPU when there is one). Default: "
                       "$STEPFORMER_BACKEND, else the choice of Model > Compute On remembered from the last run, else cpu."),
        QStringLiteral("cpu|gpu|auto"));
    const QCommandLineOption langOpt(
        QStringLiteral("lang"),
        QStringLiteral("The UI's language: en or zh_CN. Default: the one chosen last in View > Language, else the "
                       "system's."),
        QStringLiteral("en|zh_CN"));
    const QCommandLineOption themeOpt(QStringLiteral("theme"),
                                      QStringLiteral("The colours: system, light or dark. Default: View > Appearance's, "
                                                     "remembered from the last run."),
                                      QStringLiteral("system|light|dark"));
    const QCommandLineOption zoomOpt(QStringLiteral("zoom"),
                                     QStringLiteral("Presentation zoom in percent: 100, 125, 150, 175 or 200 (larger text "
                                                    "and cells). Default: the one remembered."),
                                     QStringLiteral("percent"));
    const QCommandLineOption layoutOpt(QStringLiteral("layout"),
                                       QStringLiteral("Start in this layout: training (the Train panel in most of the "
                                                      "window, View > Training Layout)."),
                                       QStringLiteral("training"));
    parser.addOptions({stepOpt, viewOpt, shotOpt, sizeOpt, presetOpt, weightsOpt, noTrainOpt, srcOpt, tgtOpt, dockOpt,
                       attentionModeOpt, backendOpt, langOpt, themeOpt, zoomOpt, layoutOpt});
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("A weights file to open (the same as --weights)."),
                                 QStringLiteral("[file.safetensors]"));
    parser.process(pre);  // --help, --version and unknown options end here
    const QStringList positional = parser.positionalArguments();
    if (positional.size() > 1)
        return fail(QStringLiteral("unexpected argument '%1': give one weights file (see --help)").arg(positional.at(1)));
    if (!positional.isEmpty() && parser.isSet(weightsOpt))
        return fail(QStringLiteral("give the weights file once: either %1 or --weights %2")
                        .arg(positional.first(), parser.value(weightsOpt)));

    auto& o = a.opts;
    if (parser.isSet(langOpt)) {
        a.lang = parser.value(langOpt).trimmed();
        if (!language::codes().contains(a.lang))
            return fail(QStringLiteral("unknown language '%1' (use %2)").arg(a.lang, language::codes().join(QStringLiteral(" or "))));
    }
    if (parser.isSet(themeOpt)) {
        a.theme = parser.value(themeOpt).trimmed().toLower();
        if (a.theme != QLatin1String("system") && a.theme != QLatin1String("light") && a.theme != QLatin1String("dark"))
            return fail(QStringLiteral("unknown theme '%1' (use system, light or dark)").arg(parser.value(themeOpt)));
    }
    if (parser.isSet(zoomOpt)) {
        bool ok = false;
        a.zoom = parser.value(zoomOpt).toInt(&ok);
        if (!ok || a.zoom < 100 || a.zoom > 200)
            return fail(QStringLiteral("bad --zoom '%1' (a percent from 100 to 200)").arg(parser.value(zoomOpt)));
    }
    if (parser.isSet(layoutOpt)) {
        if (parser.value(layoutOpt).trimmed().toLower() != QLatin1String("training"))
            return fail(QStringLiteral("unknown layout '%1' (use training)").arg(parser.value(layoutOpt)));
        a.trainingLayout = true;
    }
    if (parser.isSet(backendOpt)) {
        o.backend = parser.value(backendOpt).trimmed().toLower();
        if (o.backend != QLatin1String("cpu") && o.backend != QLatin1String("gpu") && o.backend != QLatin1String("auto"))
            return fail(QStringLiteral("unknown backend '%1' (use cpu, gpu or auto)").arg(parser.value(backendOpt)));
    }
    if (parser.isSet(presetOpt)) {
        o.preset = Session::presetFromKey(parser.value(presetOpt));
        if (!o.preset)
            return fail(QStringLiteral("unknown preset '%1' (use one of: %2)")
                            .arg(parser.value(presetOpt), presetKeys.join(QStringLiteral(", "))));
    }
    if (parser.isSet(weightsOpt) || !positional.isEmpty()) {
        o.weightsPath = positional.isEmpty() ? parser.value(weightsOpt) : positional.first();
        if (!QFileInfo::exists(o.weightsPath))
            return fail(QStringLiteral("the weights file %1 does not exist").arg(o.weightsPath));
    }
    if (parser.isSet(viewOpt)) {
        a.view = parser.value(viewOpt).trimmed().toLower();
        if (!MainWindow::viewNames().contains(a.view))
            return fail(QStringLiteral("unknown view '%1' (use %2)")
                            .arg(parser.value(viewOpt), MainWindow::viewNames().join(QLatin1Char('|'))));
    }
    for (const QString& d : parser.values(dockOpt)) {
        if (d.trimmed().toLower() != QLatin1String("train"))
            return fail(QStringLiteral("unknown dock '%1' (use train)").arg(d));
        a.docks << QStringLiteral("train");
    }
    if (parser.isSet(attentionModeOpt)) {
        a.attentionMode = AttentionView::modeFromKey(parser.value(attentionModeOpt));
        if (!a.attentionMode)
            return fail(QStringLiteral("unknown attention mode '%1' (use one or all)").arg(parser.value(attentionModeOpt)));
    }
    a.step = parser.value(stepOpt);
    a.haveSource = parser.isSet(srcOpt);
    a.haveTarget = parser.isSet(tgtOpt);
    a.source = parser.value(srcOpt);
    a.target = parser.value(tgtOpt);
    if (parser.isSet(noTrainOpt)) o.provisioning = Session::Provisioning::Never;

    if (parser.isSet(shotOpt)) {
        a.shotPath = parser.value(shotOpt);
        if (a.shotPath.isEmpty()) return fail(QStringLiteral("--screenshot needs an output file"));
        const QFileInfo out(a.shotPath);
        if (!out.absoluteDir().exists())
            return fail(QStringLiteral("cannot write the screenshot %1: the folder %2 does not exist")
                            .arg(a.shotPath, out.absolutePath()),
                        1);
        if (out.isDir()) return fail(QStringLiteral("cannot write the screenshot %1: it is a folder").arg(a.shotPath), 1);
        const QStringList wh = parser.value(sizeOpt).toLower().split(QLatin1Char('x'));
        bool okW = false, okH = false;
        if (wh.size() == 2) a.shotSize = QSize(wh[0].toInt(&okW), wh[1].toInt(&okH));
        if (!okW || !okH || a.shotSize.width() <= 0 || a.shotSize.height() <= 0)
            return fail(QStringLiteral("bad --size '%1' (use e.g. 1440x900)").arg(parser.value(sizeOpt)));
        // A size below the smallest window is clamped, as a window manager would, not refused.
        const QSize smallest(320, 240);
        if (a.shotSize.width() < smallest.width() || a.shotSize.height() < smallest.height()) {
            const QSize asked = a.shotSize;
            a.shotSize = a.shotSize.expandedTo(smallest);
            std::fprintf(stderr, "stepformer: --size %dx%d is below the smallest window; using %dx%d\n", asked.width(),
                         asked.height(), a.shotSize.width(), a.shotSize.height());
        }
        o.restoreSettings = false;
        o.saveSettings = false;
        if (!parser.isSet(noTrainOpt)) o.provisioning = Session::Provisioning::Synchronous;
        // A screenshot should show a trained model: the tutorial's when it is cached, else the
        // small one, which trains in a moment.
        Session probe;
        if (!o.preset && o.weightsPath.isEmpty())
            o.preset = QFileInfo::exists(probe.cachedModelPath(Session::Preset::Tutorial)) ? Session::Preset::Tutorial
                                                                                           : Session::Preset::Small;
        if (o.preset && *o.preset != Session::Preset::Untrained && o.weightsPath.isEmpty() &&
            o.provisioning == Session::Provisioning::Synchronous && !QFileInfo::exists(probe.cachedModelPath(*o.preset)))
            std::fprintf(stderr, "stepformer: training the %s model once (cached afterwards in %s)...\n",
                         qPrintable(Session::presetKey(*o.preset)), qPrintable(QDir::toNativeSeparators(probe.cacheDir())));
    }
    return std::nullopt;
}

QString unknownStepMessage(const QString& step, const QStringList& all, const stepformer::Trace* trace) {
    // The steps of the block the name points into first (a typo in its last word), else a sample:
    // the steps outside the layers and those of one layer's block.
    const stepformer::names::Parsed wanted = stepformer::names::parse(step.toStdString());
    const bool placed = !wanted.grad && wanted.block.kind != BlockKind::None;
    QStringList near, sample;
    for (const QString& s : all) {
        const stepformer::TraceEntry* e = trace ? trace->find(s.toStdString()) : nullptr;
        if (!e) continue;
        if (placed && e->block == wanted.block) near << s;
        if (e->block.layer < 0 || e->block == kExampleBlock) sample << s;
    }
    const QStringList& some = near.isEmpty() ? sample : near;
    const Block decoderFirst{Stack::Decoder, BlockKind::MaskedSelfAttention, 0};
    return QStringLiteral("unknown step '%1'. %2:\n  %3\n(%4 steps in all; layers are numbered from 0: %5.*, %6.*)")
        .arg(step, near.isEmpty() ? QStringLiteral("Valid steps include") : QStringLiteral("Did you mean one of"),
             some.mid(0, 24).join(QStringLiteral("\n  ")))
        .arg(all.size())
        .arg(QString::fromStdString(stepformer::names::block_prefix(kExampleBlock)),
             QString::fromStdString(stepformer::names::block_prefix(decoderFirst)));
}

// Lets queued work (layout, deferred painting) settle.
void settle(int ms) {
    QElapsedTimer t;
    t.start();
    while (t.elapsed() < ms) QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
}

// The window, until it closes (or its screenshot is written): the exit code.
int runWindow(const Args& args, QApplication& app);

}  // namespace

int main(int argc, char** argv) {
    Args args;
    if (auto code = parseArgs(argc, argv, args)) return *code;

    // A screenshot is rendered off-screen: no display needed (an explicit platform still wins).
    if (args.screenshot() && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    setIdentity();
    QApplication::setApplicationDisplayName(QStringLiteral("Stepformer"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/icons/stepformer.svg")));
    language::apply(language::startup(args.lang), false);

    const int rc = runWindow(args, app);
    // Nothing computes any more: the GPU's memory goes back before the static destructors run.
    QThreadPool::globalInstance()->waitForDone();
    ComputeDevices::instance().releaseAll();
    return rc;
}

namespace {
int runWindow(const Args& args, QApplication& app) {
    MainWindow w(args.opts);
    // Asked for and not there: the window says why and computes on the CPU; a screenshot stops.
    if (args.screenshot() && args.opts.backend == QLatin1String("gpu") &&
        w.session()->computeDevice() != ComputeDevices::Kind::Gpu)
        return fail(QStringLiteral("--backend gpu: no GPU can compute here (stepformer-cli info --devices says why)"), 2);
    if (!args.opts.weightsPath.isEmpty() && w.session()->modelState() != Session::ModelState::FromFile)
        if (args.screenshot())
            return fail(w.statusBarWidget()->pendingErrorText().isEmpty()
                            ? QStringLiteral("could not open the weights %1").arg(args.opts.weightsPath)
                            : w.statusBarWidget()->pendingErrorText(),
                        1);

    if (args.haveSource || args.haveTarget) {
        const QString src = args.haveSource ? args.source : w.session()->source();
        const QString tgt = args.haveTarget ? args.target : w.session()->target();
        QString err;
        QObject::connect(w.session(), &Session::inputRejected, &w, [&err](const QString& m) { err = m; });
        if (!w.session()->setSentences(src, tgt)) return fail(QStringLiteral("bad sentence: %1").arg(err));
        w.inputBar()->setSentences(src, tgt);
    }
    if (!args.view.isEmpty()) w.setFollowStep(false);
    if (!args.step.isEmpty() && !w.setCurrentStep(args.step))
        return fail(unknownStepMessage(args.step, w.navigator()->model()->stepOrder(),
                                       w.navigator()->model()->trace().get()));
    if (!args.view.isEmpty()) w.setCurrentView(args.view);
    // A screenshot does not depend on the mode remembered from the last run.
    if (auto* attention = qobject_cast<AttentionView*>(w.viewWidget(QStringLiteral("attention"))))
        if (args.attentionMode || args.screenshot())
            attention->setMode(args.attentionMode.value_or(AttentionView::Mode::OneLayer));

    if (!args.theme.isEmpty())
        Appearance::applyTheme(args.theme == QLatin1String("dark")    ? Appearance::Theme::Dark
                               : args.theme == QLatin1String("light") ? Appearance::Theme::Light
                                                                      : Appearance::Theme::System);
    if (args.zoom > 0) Appearance::applyZoom(args.zoom);
    w.desktopHabits()->appearance()->refresh();
    auto layOut = [&] {
        if (args.docks.contains(QLatin1String("train"))) w.trainingDock()->show();
        if (args.trainingLayout) w.desktopHabits()->trainingLayoutAction()->setChecked(true);
    };
    if (!args.screenshot()) {
        w.show();
        layOut();
        return app.exec();
    }

    w.resize(args.shotSize);
    w.show();
    settle(100);
    layOut();
    settle(400);
    const QImage image = w.grab().toImage();
    if (image.isNull()) return fail(QStringLiteral("rendering the window failed"), 1);
    QImageWriter writer(args.shotPath);
    if (!writer.write(image))
        return fail(QStringLiteral("cannot write the screenshot %1: %2").arg(args.shotPath, writer.errorString()), 1);
    std::printf("%s\n", qPrintable(QDir::toNativeSeparators(QFileInfo(args.shotPath).absoluteFilePath())));
    w.close();
    return 0;
}
}  // namespace
