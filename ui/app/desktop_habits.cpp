#include "app/desktop_habits.h"
#include "widgets/thread_handoff.h"

#include <QAbstractButton>
#include <QAbstractSpinBox>
#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QKeyEvent>
#include <QLineEdit>
#include <QToolButton>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFileInfo>
#include <QMenu>
#include <QMenuBar>
#include <QMimeData>
#include <QPointer>
#include <QSettings>
#include <QRegularExpression>
#include <QTextDocumentFragment>
#include <QTimer>
#include <QStatusBar>
#include <QTreeView>
#include <QUrl>

#include "app/appearance.h"
#include "app/dock_layout.h"
#include "app/file_dialogs.h"
#include "app/main_window.h"
#include "app/session.h"
#include "steps/step_navigator.h"
#include "steps/step_search.h"
#include "training/dataset_editor.h"
#include "training/training_panel.h"
#include "widgets/heatmap_widget.h"

namespace {

const QString kRecentKey = QStringLiteral("files/recent");

enum class FileKind { Weights, Dataset, PyTorch, Other };

FileKind kindOf(const QString& path) {
    const QString ext = QFileInfo(path).suffix().toLower();
    if (ext == QLatin1String("safetensors")) return FileKind::Weights;
    if (ext == QLatin1String("tsv") || ext == QLatin1String("txt")) return FileKind::Dataset;
    if (ext == QLatin1String("pth") || ext == QLatin1String("pt") || ext == QLatin1String("bin"))
        return FileKind::PyTorch;
    return FileKind::Other;
}

// A button that shows only an icon (zoom, play, a head's colour) has no name for a screen reader:
// its tool tip's first sentence becomes the name, and follows the tool tip when it changes.
void nameIconButton(QAbstractButton* b) {
    static const char* kFromTip = "stepformerNameFromToolTip";
    if (!b || !b->text().isEmpty()) return;
    if (!b->accessibleName().isEmpty() && !b->property(kFromTip).toBool()) return;  // named by its owner
    QString tip = b->toolTip();
    if (const auto* tool = qobject_cast<QToolButton*>(b); tool && tool->defaultAction()) {
        const QAction* a = tool->defaultAction();  // a line edit's buttons: their action says what they do
        if (!a->text().isEmpty()) tip = a->text();
        else if (tip.isEmpty() && qobject_cast<QLineEdit*>(b->parentWidget())) tip = DesktopHabits::tr("Clear");
    }
    if (tip.isEmpty()) return;
    QString name = QTextDocumentFragment::fromHtml(tip).toPlainText().simplified();
    name.remove(QLatin1Char('&'));
    const int stop = name.indexOf(QRegularExpression(QStringLiteral("[.:;。：；]\\s")));
    if (stop > 0) name.truncate(stop);
    b->setAccessibleName(name);
    b->setProperty(kFromTip, true);
}

// A control of a view that has no use for ← → Home End (a spin box edits with ↑ ↓ and typing).
bool leavesStepKeys(const QWidget* w) {
    for (int depth = 0; w && depth < 2; ++depth, w = w->parentWidget()) {
        if (qobject_cast<const QAbstractSpinBox*>(w) || qobject_cast<const QAbstractButton*>(w)) return true;
        if (const auto* combo = qobject_cast<const QComboBox*>(w)) return !combo->isEditable();
    }
    return false;
}

// The local files a drag carries, if it carries only files this window opens.
QStringList droppedFiles(const QMimeData* mime) {
    QStringList files;
    if (!mime || !mime->hasUrls()) return files;
    for (const QUrl& url : mime->urls()) {
        if (!url.isLocalFile()) return {};
        const QString path = url.toLocalFile();
        if (kindOf(path) == FileKind::Other) return {};
        files << path;
    }
    return files;
}

}  // namespace

DesktopHabits::DesktopHabits(MainWindow* window, QAction* findStep) : QObject(window), window_(window) {
    setObjectName(QStringLiteral("desktopHabits"));
    search_ = new StepSearchPopup(window);
    connect(findStep, &QAction::triggered, this, &DesktopHabits::findStep);
    connect(search_, &StepSearchPopup::stepChosen, window, [window](const QString& name) {
        window->setCurrentStep(name);
        window->navigator()->treeView()->setFocus(Qt::ShortcutFocusReason);  // the arrow keys step on from there
    });

    fullScreen_ = new QAction(tr("F&ull Screen"), window);
    fullScreen_->setObjectName(QStringLiteral("actionFullScreen"));
    fullScreen_->setCheckable(true);
    fullScreen_->setShortcut(QKeySequence(Qt::Key_F11));
    fullScreen_->setToolTip(tr("Fill the screen with the window, for presenting (F11)"));
    fullScreen_->setStatusTip(fullScreen_->toolTip());
    window->addAction(fullScreen_);  // works with the menu bar hidden too
    connect(fullScreen_, &QAction::toggled, window, [window](bool on) {
        if (on)
            window->showFullScreen();
        else
            window->showNormal();
    });

    copyCell_ = new QAction(tr("&Copy Cells"), window);
    copyCell_->setObjectName(QStringLiteral("actionCopyCell"));
    copyCell_->setShortcut(QKeySequence::Copy);
    copyCell_->setToolTip(tr("Copy the heatmap cells dragged over (or chosen with Shift and the arrow keys) with "
                             "their labels, else the cell under the mouse: its row, its column and its exact value "
                             "(Ctrl+C; in a text field Ctrl+C copies the text)"));
    copyCell_->setStatusTip(copyCell_->toolTip());
    window->addAction(copyCell_);
    connect(copyCell_, &QAction::triggered, this, [this] { copyHoveredCell(); });

    trainingLayout_ = new QAction(tr("&Training Layout"), window);
    trainingLayout_->setObjectName(QStringLiteral("actionTrainingLayout"));
    trainingLayout_->setCheckable(true);
    trainingLayout_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_T));
    trainingLayout_->setToolTip(tr("Give the Train panel most of the window, for training in front of a class; "
                                   "the same key puts everything back (Ctrl+Shift+T)"));
    trainingLayout_->setStatusTip(trainingLayout_->toolTip());
    window->addAction(trainingLayout_);
    connect(trainingLayout_, &QAction::toggled, window, [window](bool on) { window->dockLayout()->setTrainingLayout(on); });

    QMenu* view = window->menuBar()->findChild<QMenu*>(QStringLiteral("menuView"));
    if (view) {
        view->insertAction(view->actions().value(0), findStep);
        view->insertSeparator(view->actions().value(1));
        view->addSeparator();
        view->addAction(trainingLayout_);
        view->addAction(fullScreen_);
    }
    appearance_ = new Appearance(window, view, window->restoresSettings());
    recent_ = new QMenu(tr("Open &Recent"), window);
    recent_->setObjectName(QStringLiteral("menuRecent"));
    if (auto* file = window->menuBar()->findChild<QMenu*>(QStringLiteral("menuFile"))) {
        const QList<QAction*> acts = file->actions();
        file->insertMenu(acts.value(1), recent_);  // after Open Weights
        // The whole pass for NumPy: after the tensor exports.
        auto* trace = new QAction(tr("Export Trace as NumPy &Archive (.npz)…"), window);
        trace->setObjectName(QStringLiteral("actionExportTraceNpz"));
        trace->setToolTip(tr("Save every tensor of this pass in one .npz; np.load(path)[\"<step name>\"] reads one"));
        auto* grads = new QAction(tr("Export &Gradients as NumPy Archive (.npz)…"), window);
        grads->setObjectName(QStringLiteral("actionExportGradientsNpz"));
        grads->setToolTip(tr("Save every gradient of this pass (grad.<step name>) in one .npz"));
        for (QAction* a : {trace, grads}) a->setStatusTip(a->toolTip());
        const auto png = window->findChild<QAction*>(QStringLiteral("actionExportPng"));
        file->insertActions(png, {trace, grads});
        connect(trace, &QAction::triggered, window, [window] { FileDialogs::exportTraceNpz(*window, false); });
        connect(grads, &QAction::triggered, window, [window] { FileDialogs::exportTraceNpz(*window, true); });
    }
    rebuildRecentMenu();

    connect(window->session(), &Session::weightsOpened, this, &DesktopHabits::remember);
    connect(window->trainingPanel()->datasetEditor(), &DatasetEditor::imported, this, &DesktopHabits::remember);
    window->setAcceptDrops(true);
    window->installEventFilter(this);
    qApp->installEventFilter(this);  // the step keys' ShortcutOverride, sent to whatever has the focus
    for (QAbstractButton* b : window->findChildren<QAbstractButton*>()) nameIconButton(b);  // polished already
    connect(qApp, &QApplication::focusChanged, this, &DesktopHabits::onFocusChanged);
}

void DesktopHabits::onFocusChanged(QWidget* old, QWidget* now) {
    // A tab page clears the focus first and hands it on after: the widget that lost it is the old one.
    if (!now) {
        lostFocus_ = old;
        return;
    }
    if (!old) old = lostFocus_;
    lostFocus_ = nullptr;
    if (!old || old->window() != window_ || now->window() != window_) return;
    QWidget* tree = window_->navigator()->treeView();
    if (!tree->isVisible() || now == tree || tree->isAncestorOf(now)) return;
    // Qt moved the focus on because the widget that had it is hidden or disabled (a button hiding
    // itself, a tab page of Follow Step); and a tab switch, once its old page is gone, hands the
    // focus into the new page, from wherever it went meanwhile. Until the event loop is idle again,
    // wherever it goes (a text field, another view's control, a scroll area that would scroll with
    // the arrows), the step tree takes it back: the step keys go on stepping.
    const bool vanished = !old->isVisible() || !old->isEnabled();
    if (!vanished && !(keepOnTree_ && old == tree)) return;
    tree->setFocus(Qt::OtherFocusReason);
    if (!keepOnTree_) {
        keepOnTree_ = true;
        QTimer::singleShot(0, this, [this] { keepOnTree_ = false; });
    }
}

bool DesktopHabits::copyHoveredCell() {
    // A selected block first: the focused heatmap's, else any shown heatmap's.
    const HeatmapWidget* focused = nullptr;
    for (QWidget* f = QApplication::focusWidget(); f && !focused; f = f->parentWidget())
        focused = qobject_cast<const HeatmapWidget*>(f);
    QList<const HeatmapWidget*> selected;
    if (focused && focused->isVisible() && !focused->selection().isEmpty()) selected << focused;
    for (const HeatmapWidget* map : window_->findChildren<HeatmapWidget*>())
        if (map->isVisible() && !map->selection().isEmpty()) selected << map;
    if (!selected.isEmpty()) {
        const HeatmapWidget* map = selected.front();
        QApplication::clipboard()->setText(map->selectionCopyText());
        window_->statusBar()->showMessage(tr("Copied %1 × %2 cells with their labels (tab-separated)")
                                              .arg(map->selection().height())
                                              .arg(map->selection().width()),
                                          4000);
        return true;
    }
    // The heatmap the mouse is over keeps its hovered cell (the others have none: leaving clears it).
    for (const HeatmapWidget* map : window_->findChildren<HeatmapWidget*>()) {
        if (!map->isVisible()) continue;
        const QPoint cell = map->hoveredCell();
        const QString text = map->cellCopyText(cell.x(), cell.y());
        if (text.isEmpty()) continue;
        QApplication::clipboard()->setText(text);
        window_->statusBar()->showMessage(tr("Copied %1").arg(QString(text).replace(QLatin1Char('\t'), QStringLiteral(" · "))), 4000);
        return true;
    }
    window_->statusBar()->showMessage(
        tr("Nothing to copy: point at a cell of a heatmap (or drag over several), then press Ctrl+C."), 4000);
    return false;
}

void DesktopHabits::findStep() {
    QWidget* anchor = window_->navigator()->treeView();
    if (!anchor->isVisible()) anchor = window_->centralWidget();
    search_->open(anchor, window_->navigator()->searchableSteps());
}

bool DesktopHabits::openFile(const QString& path) {
    const QString shown = QDir::toNativeSeparators(path);
    switch (kindOf(path)) {
    case FileKind::Weights:
    case FileKind::PyTorch:  // openWeights says what it is and how to convert it
        return window_->session()->openWeights(path);
    case FileKind::Dataset: {
        window_->trainingDock()->show();
        window_->trainingDock()->raise();
        QString error;
        return window_->trainingPanel()->datasetEditor()->importTsv(path, &error);
    }
    case FileKind::Other:
        break;
    }
    window_->showError(tr("Open"), tr("Stepformer cannot open %1: it opens weights (.safetensors) and datasets "
                                      "(.tsv, one sentence pair per line).")
                                       .arg(shown));
    return false;
}

QStringList DesktopHabits::recentFiles() const { return QSettings().value(kRecentKey).toStringList(); }

void DesktopHabits::remember(const QString& path) {
    const QString abs = QFileInfo(path).absoluteFilePath();
    QStringList files = recentFiles();
    files.removeAll(abs);
    files.prepend(abs);
    while (files.size() > kMaxRecent) files.removeLast();
    QSettings().setValue(kRecentKey, files);
    rebuildRecentMenu();
}

void DesktopHabits::rebuildRecentMenu() {
    recent_->clear();
    const QStringList files = recentFiles();
    for (int i = 0; i < files.size(); ++i) {
        const QString& path = files[i];
        // Numbered for the keyboard (&1 … &8), the folder in the tool tip.
        auto* a = recent_->addAction(QStringLiteral("&%1 %2").arg(i + 1).arg(QFileInfo(path).fileName()));
        a->setObjectName(QStringLiteral("actionRecent_%1").arg(i));
        a->setToolTip(QDir::toNativeSeparators(path));
        a->setStatusTip(a->toolTip());
        connect(a, &QAction::triggered, this, [this, path] {
            if (!QFileInfo::exists(path)) {
                QStringList files = recentFiles();
                files.removeAll(path);
                QSettings().setValue(kRecentKey, files);
                rebuildRecentMenu();
                window_->showError(tr("Open Recent"),
                                   tr("%1 is no longer there; it was taken off the list.")
                                       .arg(QDir::toNativeSeparators(path)));
                return;
            }
            openFile(path);
        });
    }
    if (!files.isEmpty()) {
        recent_->addSeparator();
        auto* clear = recent_->addAction(tr("&Clear List"));
        clear->setObjectName(QStringLiteral("actionClearRecent"));
        connect(clear, &QAction::triggered, this, [this] {
            QSettings().remove(kRecentKey);
            rebuildRecentMenu();
        });
    }
    recent_->setEnabled(!files.isEmpty());
}

bool DesktopHabits::eventFilter(QObject* watched, QEvent* event) {
    tookOver(guiEventQueue());  // a queued call from a worker arrives here first (thread_handoff.h)
    if (event->type() == QEvent::Polish || event->type() == QEvent::ToolTipChange) {
        nameIconButton(qobject_cast<QAbstractButton*>(watched));
        return QObject::eventFilter(watched, event);
    }
    if (event->type() == QEvent::ShortcutOverride) {
        auto* key = static_cast<QKeyEvent*>(event);
        const bool stepKey = key->modifiers() == Qt::NoModifier &&
                             (key->key() == Qt::Key_Left || key->key() == Qt::Key_Right ||
                              key->key() == Qt::Key_Home || key->key() == Qt::Key_End);
        auto* w = qobject_cast<QWidget*>(watched);
        if (stepKey && w && w->window() == window_ && leavesStepKeys(w)) {
            key->ignore();  // not overridden: the window's step shortcut takes the key
            return true;
        }
        return QObject::eventFilter(watched, event);
    }
    if (watched == window_) {
        if (event->type() == QEvent::DragEnter || event->type() == QEvent::DragMove) {
            auto* drag = static_cast<QDropEvent*>(event);
            if (!droppedFiles(drag->mimeData()).isEmpty()) {
                drag->acceptProposedAction();
                return true;
            }
        } else if (event->type() == QEvent::Drop) {
            auto* drop = static_cast<QDropEvent*>(event);
            const QStringList files = droppedFiles(drop->mimeData());
            if (!files.isEmpty()) {
                drop->acceptProposedAction();
                for (const QString& f : files) openFile(f);
                return true;
            }
        } else if (event->type() == QEvent::WindowStateChange) {
            const QSignalBlocker block(fullScreen_);
            fullScreen_->setChecked(window_->isFullScreen());
        }
    }
    return QObject::eventFilter(watched, event);
}
