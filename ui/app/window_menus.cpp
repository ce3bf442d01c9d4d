#include "app/window_menus.h"
#include "views/view_parts.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QLabel>
#include <QMainWindow>
#include <QMenuBar>
#include <QToolBar>

#include "app/help_dialogs.h"
#include "app/language.h"
#include "app/session.h"
#include "app/window_actions.h"
#include "steps/step_navigator.h"

namespace {
// `entries` appended to `menu` in order; a nullptr is a separator.
void addEntries(QMenu* menu, std::initializer_list<QAction*> entries) {
    for (QAction* a : entries) {
        if (a) menu->addAction(a);
        else menu->addSeparator();
    }
}
}  // namespace

QComboBox* WindowMenus::build(QMainWindow* window, const WindowActions& actions, const QList<QDockWidget*>& docks,
                              QDockWidget* trainingDock, StepNavigator* navigator, Session* session) {
    addMenus(window, actions, docks, trainingDock, navigator, session);
    return addToolBar(window, actions, navigator);
}

void WindowMenus::addMenus(QMainWindow* window, const WindowActions& actions, const QList<QDockWidget*>& docks,
                           QDockWidget* trainingDock, StepNavigator* navigator, Session* session) {
    QMenuBar* bar = window->menuBar();
    QMenu* file = bar->addMenu(tr("&File"));
    file->setObjectName(QStringLiteral("menuFile"));
    addEntries(file, {actions.open, actions.saveTrained, nullptr, actions.exportCsv, actions.exportNpy, actions.exportPng,
                      actions.exportSvg, nullptr, actions.quit});

    QMenu* view = bar->addMenu(tr("&View"));
    view->setObjectName(QStringLiteral("menuView"));
    view->addActions(actions.views);
    addEntries(view, {nullptr, actions.follow, actions.compareScaling, nullptr});
    for (QDockWidget* d : docks) {
        QAction* t = d->toggleViewAction();
        t->setObjectName(QStringLiteral("actionToggle_%1").arg(d->objectName()));
        t->setToolTip(tr("Show or hide the %1 panel").arg(d->windowTitle()));
        if (d == trainingDock) t->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_T));
        view->addAction(t);
    }
    view->addSeparator();
    view->addAction(actions.restoreLayout);
    // Each language named in itself, so either can be found whatever the UI shows.
    QMenu* lang = view->addMenu(tr("&Language"));
    lang->setObjectName(QStringLiteral("menuLanguage"));
    auto* langGroup = new QActionGroup(lang);
    for (const QString& code : language::codes()) {
        QAction* a = lang->addAction(language::displayName(code));
        a->setObjectName(QStringLiteral("actionLanguage_%1").arg(code));
        a->setCheckable(true);
        a->setChecked(code == language::current());
        langGroup->addAction(a);
        QObject::connect(a, &QAction::triggered, lang, [code] { language::apply(code, true); });
    }

    QMenu* nav = bar->addMenu(tr("&Step"));
    nav->setObjectName(QStringLiteral("menuStep"));
    nav->addActions(navigator->navigationActions());
    nav->addSeparator();
    nav->addAction(actions.direction);

    QMenu* model = bar->addMenu(tr("&Model"));
    model->setObjectName(QStringLiteral("menuModel"));
    model->setToolTipsVisible(true);
    model->addActions(actions.presetGroup->actions());
    addEntries(model, {nullptr, actions.retrain, actions.cancelTrain, nullptr, actions.layerLab});

    QMenu* help = bar->addMenu(tr("&Help"));
    help->setObjectName(QStringLiteral("menuHelp"));
    auto* keys = help->addAction(tr("&Keyboard Shortcuts"), window, [window] { HelpDialogs::showShortcuts(window); });
    keys->setObjectName(QStringLiteral("actionShortcuts"));
    keys->setShortcut(QKeySequence::HelpContents);
    auto* about = help->addAction(tr("&About Stepformer"), window,
                                  [window, session] { HelpDialogs::showAbout(window, session->cacheDir()); });
    about->setObjectName(QStringLiteral("actionAbout"));
    about->setMenuRole(QAction::AboutRole);
    auto* aboutQt = help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);
    aboutQt->setMenuRole(QAction::AboutQtRole);
}

QComboBox* WindowMenus::addToolBar(QMainWindow* window, const WindowActions& actions, StepNavigator* navigator) {
    QToolBar* tb = window->addToolBar(tr("Main"));
    tb->setObjectName(QStringLiteral("mainToolBar"));
    tb->setIconSize(QSize(20, 20));
    tb->addAction(actions.open);
    tb->addAction(actions.exportPng);
    tb->addSeparator();
    tb->addActions(navigator->navigationActions());
    tb->addAction(actions.direction);
    tb->addSeparator();
    auto* modelLabel = new QLabel(tr(" Model: "), tb);
    tb->addWidget(modelLabel);
    auto* presets = view_parts::named(new QComboBox(tb), "presetCombo");
    presets->setToolTip(tr("The model to step through"));
    presets->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    for (Session::Preset p : Session::allPresets()) {
        presets->addItem(Session::presetTitle(p), static_cast<int>(p));
        presets->setItemData(presets->count() - 1, Session::presetToolTip(p), Qt::ToolTipRole);
    }
    presets->addItem(tr("From file…"), -1);
    presets->setItemData(presets->count() - 1, tr("Weights opened with File › Open Weights"), Qt::ToolTipRole);
    tb->addWidget(presets);
    navigator->setActionsInToolBar(false);  // they live on the main toolbar here; speed and position stay
    return presets;
}
