#include "app/window_settings.h"

#include <QGuiApplication>
#include <QScreen>
#include <QSettings>
#include <QTreeView>

#include "app/device_chooser.h"
#include "app/input_bar.h"
#include "steps/step_navigator.h"
#include "widgets/window_geometry.h"

bool WindowSettings::restore(MainWindow& window, const MainWindow::Options& options) {
    QSettings s;
    Session* session = window.session();
    InputBar* input = window.inputBar();
    StepNavigator* navigator = window.navigator();
    std::optional<Session::Preset> preset = options.preset;
    QString src = Session::defaultSource(), tgt = Session::defaultTarget();
    QString view = QStringLiteral("tensor"), step;
    bool stateRestored = false;
    if (options.restoreSettings) {
        restoreGeometryOnScreen(&window, s.value(QStringLiteral("window/geometry")).toByteArray());
        stateRestored = window.restoreState(s.value(QStringLiteral("window/state")).toByteArray());
        if (!preset) preset = Session::presetFromKey(s.value(QStringLiteral("model/preset")).toString());
        src = s.value(QStringLiteral("input/source"), src).toString();
        tgt = s.value(QStringLiteral("input/target"), tgt).toString();
        view = s.value(QStringLiteral("view/current"), view).toString();
        step = s.value(QStringLiteral("navigator/step")).toString();
        window.setFollowStep(s.value(QStringLiteral("view/followStep"), true).toBool());
        navigator->setPlaySpeed(s.value(QStringLiteral("navigator/speed"), 2.0).toDouble());
    }
    // The device and the sentences first, so the model computes its trace only once.
    const QString device = DeviceChooser::startChoice(options.backend, options.restoreSettings);
    if (device != QLatin1String("cpu")) window.deviceChooser()->choose(device, /*remember=*/false);
    input->setSentences(src, tgt);
    if (!session->setSentences(src, tgt)) {
        input->setSentences(Session::defaultSource(), Session::defaultTarget());
        session->setSentences(Session::defaultSource(), Session::defaultTarget());
    }
    bool loaded = false;
    if (!options.weightsPath.isEmpty()) loaded = session->openWeights(options.weightsPath);
    if (!loaded) session->setPreset(preset.value_or(Session::Preset::Tutorial));
    input->setSentences(session->source(), session->target());

    const bool follow = window.followsStep();
    window.setFollowStep(false);
    window.setCurrentView(view);
    if (!step.isEmpty()) window.setCurrentStep(step);
    window.setFollowStep(follow);
    // The arrow keys step through the forward pass from the start (a text field would take them).
    navigator->treeView()->setFocus(Qt::OtherFocusReason);
    return stateRestored;
}

void WindowSettings::save(const MainWindow& window) {
    QSettings s;
    const Session* session = window.session();
    s.setValue(QStringLiteral("window/geometry"), window.saveGeometry());
    s.setValue(QStringLiteral("window/state"), window.saveState());
    s.setValue(QStringLiteral("input/source"), session->source());
    s.setValue(QStringLiteral("input/target"), session->target());
    if (session->modelState() != Session::ModelState::FromFile)
        s.setValue(QStringLiteral("model/preset"), Session::presetKey(session->preset()));
    s.setValue(QStringLiteral("view/current"), window.currentViewName());
    s.setValue(QStringLiteral("view/followStep"), window.followsStep());
    s.setValue(QStringLiteral("navigator/step"), window.currentStep());
    s.setValue(QStringLiteral("navigator/speed"), window.navigator()->playSpeed());
}

QSize WindowSettings::defaultSize() { return defaultSize(QGuiApplication::primaryScreen()); }

QSize WindowSettings::defaultSize(const QScreen* screen) {
    QSize size(1440, 900);
    if (screen) {
        const QRect avail = screen->availableGeometry();
        if (avail.width() > 640 && avail.height() > 480)
            size = size.boundedTo(QSize(avail.width() * 95 / 100, avail.height() * 92 / 100));
    }
    return size;
}
