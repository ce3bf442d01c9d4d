#include "app/window_actions.h"
#include "views/view_parts.h"

#include <QAction>
#include <QActionGroup>
#include <QIcon>
#include <QStyle>
#include <QTabWidget>

#include "app/main_window.h"
#include "app/session.h"
#include "compare/scaling_compare_window.h"
#include "lab/layer_lab_window.h"

WindowActions::WindowActions(QWidget* window, QTabWidget* tabs, const QStringList& viewNames) {
    open = new QAction(window->style()->standardIcon(QStyle::SP_DialogOpenButton), tr("&Open Weights…"), window);
    open->setObjectName(QStringLiteral("actionOpenWeights"));
    open->setShortcut(QKeySequence::Open);
    open->setToolTip(tr("Open a weights file: a Stepformer checkpoint or a state_dict saved from the "
                        "tutorial's PyTorch code (safetensors) (Ctrl+O)"));
    open->setStatusTip(open->toolTip());

    auto mkExport = [window](const QString& name, const QString& text, const QString& tip) {
        auto* a = new QAction(text, window);
        a->setObjectName(name);
        a->setToolTip(tip);
        a->setStatusTip(tip);
        return a;
    };
    exportCsv = mkExport(QStringLiteral("actionExportCsv"), tr("Export Tensor as &CSV…"),
                         tr("Save the current step's tensor as comma-separated values"));
    exportNpy = mkExport(QStringLiteral("actionExportNpy"), tr("Export Tensor as &NumPy…"),
                         tr("Save the current step's tensor as a NumPy .npy file (np.load reads it)"));
    exportPng = mkExport(QStringLiteral("actionExportPng"), tr("Export View as &PNG…"),
                         tr("Save the current view as an image"));
    exportSvg = mkExport(QStringLiteral("actionExportSvg"), tr("Export View as &SVG…"),
                         tr("Save the current view as vector graphics"));
    exportCsv->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_C));
    exportPng->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_S));
    // A picture with an arrow out of it: the floppy (SP_DialogSaveButton) means saving weights.
    exportPng->setIcon(QIcon(QStringLiteral(":/icons/export_image.svg")));

    quit = view_parts::named(new QAction(tr("&Quit"), window), "actionQuit");
    quit->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_Q));
    quit->setMenuRole(QAction::QuitRole);

    viewGroup = new QActionGroup(window);
    viewGroup->setExclusive(true);
    for (int i = 0; i < tabs->count(); ++i) {
        auto* a = new QAction(QLatin1Char('&') + tabs->tabText(i), window);
        a->setObjectName(QStringLiteral("actionView_%1").arg(viewNames[i]));
        a->setCheckable(true);
        a->setShortcut(QKeySequence(Qt::CTRL | Qt::Key(Qt::Key_1 + i)));
        a->setToolTip(tabs->tabToolTip(i));
        a->setData(viewNames[i]);
        viewGroup->addAction(a);
        QObject::connect(a, &QAction::triggered, tabs, [tabs, i] { tabs->setCurrentIndex(i); });
        views << a;
    }
    views[0]->setChecked(true);

    follow = view_parts::named(new QAction(tr("&Follow Step"), window), "actionFollowStep");
    follow->setCheckable(true);
    follow->setChecked(true);
    follow->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
    follow->setToolTip(tr("Switch to the view that suits each step: masks for a mask and the masked scores, "
                          "attention for the softmax, the positional encoding for PE, the tensor otherwise"));
    follow->setStatusTip(follow->toolTip());

    findStep = view_parts::named(new QAction(tr("&Find Step…"), window), "actionFindStep");
    findStep->setShortcut(QKeySequence::Find);
    findStep->setToolTip(tr("Go to a step by its name or by words such as \"softmax decoder 3\" (Ctrl+F)"));
    findStep->setStatusTip(findStep->toolTip());

    restoreLayout = view_parts::named(new QAction(tr("&Restore Default Layout"), window), "actionRestoreLayout");
    restoreLayout->setToolTip(tr("Put the docks back in the default arrangement for the window's size (compact in "
                                 "a window narrower than 1600 px)"));

    presetGroup = new QActionGroup(window);
    presetGroup->setExclusive(true);
    for (Session::Preset p : Session::allPresets()) {
        auto* a = new QAction(Session::presetTitle(p), window);
        a->setObjectName(QStringLiteral("actionPreset_%1").arg(Session::presetKey(p)));
        a->setCheckable(true);
        a->setData(static_cast<int>(p));
        a->setToolTip(Session::presetToolTip(p));
        a->setStatusTip(Session::presetToolTip(p));
        presetGroup->addAction(a);
    }
    // Not presets but the other models the menu shows (ModelChooser::kTrainedInApp, kFromFile):
    // checked when they are the model, so the menu agrees with the model box and the title.
    auto* inApp = view_parts::named(new QAction(tr("Trained in the app"), window), "actionModelTrainedInApp");
    inApp->setCheckable(true);
    inApp->setEnabled(false);  // until the Train panel has weights
    inApp->setData(-2);
    inApp->setToolTip(tr("The weights of the last run of the Train panel (Train › Start)"));
    presetGroup->addAction(inApp);
    auto* fromFile = view_parts::named(new QAction(tr("From File…"), window), "actionModelFromFile");
    fromFile->setCheckable(true);
    fromFile->setData(-1);
    fromFile->setToolTip(tr("Weights opened with File › Open Weights"));
    presetGroup->addAction(fromFile);

    retrain = view_parts::named(new QAction(tr("&Train Again"), window), "actionRetrain");
    retrain->setToolTip(tr("Forget the cached trained model of this preset and train it again"));
    retrain->setStatusTip(retrain->toolTip());

    cancelTrain = new QAction(window->style()->standardIcon(QStyle::SP_DialogCancelButton),
                              tr("&Cancel Training"), window);
    cancelTrain->setObjectName(QStringLiteral("actionCancelTraining"));
    cancelTrain->setToolTip(tr("Stop training and keep showing the untrained model"));
    cancelTrain->setEnabled(false);

    // Seed 004's layer lab: not a model of the main window but a window of its own, opened here.
    layerLab = new QAction(tr("Layer &Lab (nn.TransformerEncoderLayer)…"), window);
    layerLab->setObjectName(QStringLiteral("actionLayerLab"));
    layerLab->setToolTip(tr("Seed 004's nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8) step by step, "
                            "every number printed as PyTorch prints it; optionally a decoder layer after it"));
    layerLab->setStatusTip(layerLab->toolTip());
    QObject::connect(layerLab, &QAction::triggered, window, [window] { LayerLabWindow::showFor(window); });

    // Issue 18: the current attention step's scores rounded as the tutorial and as PyTorch /
    // attention-is-all-you-need-pytorch round them, side by side (a window of its own).
    compareScaling = view_parts::named(new QAction(tr("Compare Score &Scaling…"), window), "actionCompareScaling");
    compareScaling->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_K));
    compareScaling->setToolTip(tr("The current attention step's scores as (q/√d_k)·kᵀ (PyTorch, "
                                  "attention-is-all-you-need-pytorch) and as (q·kᵀ)/√d_k (the tutorial) side "
                                  "by side: the same maths, two roundings (Ctrl+Shift+K)"));
    compareScaling->setStatusTip(compareScaling->toolTip());
    QObject::connect(compareScaling, &QAction::triggered, window, [window] {
        auto* mw = qobject_cast<MainWindow*>(window);
        if (mw) ScalingCompareWindow::showFor(window, mw->session(), mw->currentStep());
    });

    saveTrained = new QAction(window->style()->standardIcon(QStyle::SP_DialogSaveButton),
                              tr("&Save Trained Checkpoint…"), window);
    saveTrained->setObjectName(QStringLiteral("actionSaveTrainedCheckpoint"));
    saveTrained->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_S));
    saveTrained->setToolTip(tr("Save the weights, config and optimizer state of the last run of the Train "
                               "panel (Ctrl+S)"));
    saveTrained->setStatusTip(saveTrained->toolTip());

    // Switching lands on the gradient of the step shown (StepNavigator::setBackward): from an early
    // forward step that is late in the backward pass, so the text says where it goes.
    direction = new QAction(tr("&Backward: Gradient of This Step"), window);
    direction->setIconText(tr("Backward"));
    direction->setObjectName(QStringLiteral("directionToggle"));
    direction->setCheckable(true);
    direction->setShortcut(QKeySequence(Qt::CTRL | Qt::Key_B));
    direction->setToolTip(tr("Switch to the backward pass at the gradient of the current step, ∂loss/∂(this "
                             "tensor); a step without one goes to the loss's gradient, where backpropagation starts. "
                             "The backward pass lists the gradients in the order they were computed, loss first "
                             "(Home goes there); the earliest forward steps get their gradients last (Ctrl+B)"));
    direction->setStatusTip(direction->toolTip());
}
