#include "app/dock_layout.h"

#include <algorithm>

#include <QAction>
#include <QDockWidget>
#include <QMainWindow>
#include <QScreen>
#include <QTimer>

namespace {

// The side docks' widths: compact leaves the central view ~60 % of a 1366 px window.
constexpr int kCompactNavigatorWidth = 240, kCompactExplainWidth = 280;
constexpr int kWideNavigatorWidth = 280, kWideExplainWidth = 350;
// The navigator over the diagram in the wide arrangement (a ratio: resizeDocks scales it).
constexpr int kWideNavigatorHeight = 500, kWideDiagramHeight = 340;
// The Train dock's share of the height (or width) it and the central view have together, and its
// least size: a small dock scrolls inside itself, a smaller one would be a strip.
constexpr int kTrainingSharePercent = 50;
constexpr int kTrainingLeast = 180;
// The training layout: the dock takes this much, the central view keeps the rest for the live views.
constexpr int kTrainingLayoutSharePercent = 72;

}  // namespace

DockLayout::DockLayout(QMainWindow* window, QWidget* central, const Docks& docks)
    : QObject(window), window_(window), central_(central), docks_(docks) {
    // The side docks reach down to the status bar: a dock at the bottom (Train) shares the central
    // view's column only, and never squeezes the navigator and the explanation.
    window_->setCorner(Qt::BottomLeftCorner, Qt::LeftDockWidgetArea);
    window_->setCorner(Qt::BottomRightCorner, Qt::RightDockWidgetArea);
    // After the show has been laid out: the dock's place is known then.
    connect(docks_.training->toggleViewAction(), &QAction::toggled, this, [this](bool open) {
        if (open) QTimer::singleShot(0, this, &DockLayout::onTrainingShown);
    });
    for (QDockWidget* d : {docks_.navigator, docks_.explain, docks_.diagram, docks_.input, docks_.training}) {
        connect(d, &QDockWidget::topLevelChanged, this, [this, d](bool floating) {
            if (floating) QTimer::singleShot(0, d, [this, d] { fitOnScreen(d); });
        });
        // A dock opened from the View menu comes to the front of its tabs.
        connect(d->toggleViewAction(), &QAction::triggered, d, [d](bool open) {
            if (open) QTimer::singleShot(0, d, &QWidget::raise);
        });
    }
}

bool DockLayout::isCompact(int windowWidth) { return windowWidth < kCompactBelow; }

bool DockLayout::isCompact() const {
    // A maximised window may not have its final size yet when it is first shown (the window
    // manager answers later): its screen's width is what it will get.
    const QScreen* screen = window_->screen();
    const bool full = window_->isMaximized() || window_->isFullScreen();
    return isCompact(full && screen ? screen->availableGeometry().width() : window_->width());
}

void DockLayout::applyDefault() {
    for (QDockWidget* d : {docks_.navigator, docks_.explain, docks_.diagram, docks_.input, docks_.training})
        d->setFloating(false);
    window_->addDockWidget(Qt::TopDockWidgetArea, docks_.input);
    window_->addDockWidget(Qt::LeftDockWidgetArea, docks_.navigator);
    window_->addDockWidget(Qt::RightDockWidgetArea, docks_.explain);
    window_->addDockWidget(Qt::BottomDockWidgetArea, docks_.training);
    window_->addDockWidget(Qt::LeftDockWidgetArea, docks_.diagram);
    for (QDockWidget* d : {docks_.navigator, docks_.explain, docks_.diagram, docks_.input}) d->show();
    docks_.training->hide();  // View › Train (Ctrl+T) shows it
    arrangeForScreen();
}

void DockLayout::arrangeForScreen() {
    const bool compact = isCompact();

    if (compact) {
        window_->tabifyDockWidget(docks_.navigator, docks_.diagram);
    } else {
        // splitDockWidget() leaves a tabbed dock where it is: take it out of the tabs first.
        if (!window_->tabifiedDockWidgets(docks_.diagram).isEmpty()) {
            const bool shown = !docks_.diagram->isHidden();
            window_->removeDockWidget(docks_.diagram);
            window_->addDockWidget(Qt::LeftDockWidgetArea, docks_.diagram);
            docks_.diagram->setVisible(shown);
        }
        window_->splitDockWidget(docks_.navigator, docks_.diagram, Qt::Vertical);
    }
    docks_.navigator->raise();
    if (compact) {
        window_->resizeDocks({docks_.navigator, docks_.explain}, {kCompactNavigatorWidth, kCompactExplainWidth},
                             Qt::Horizontal);
    } else {
        window_->resizeDocks({docks_.navigator, docks_.explain}, {kWideNavigatorWidth, kWideExplainWidth},
                             Qt::Horizontal);
        window_->resizeDocks({docks_.navigator, docks_.diagram}, {kWideNavigatorHeight, kWideDiagramHeight},
                             Qt::Vertical);
    }
}

void DockLayout::onTrainingShown() {
    QDockWidget* d = docks_.training;
    if (!d->isVisible()) return;
    if (d->isFloating()) {
        fitOnScreen(d);
        return;
    }
    const Qt::DockWidgetArea area = window_->dockWidgetArea(d);
    const bool across = area == Qt::TopDockWidgetArea || area == Qt::BottomDockWidgetArea;
    const Qt::Orientation o = across ? Qt::Vertical : Qt::Horizontal;
    const int room = across ? central_->height() + d->height() : central_->width() + d->width();
    const int wanted = across ? d->sizeHint().height() : d->sizeHint().width();
    const int share = trainingLayout_ ? kTrainingLayoutSharePercent : kTrainingSharePercent;
    const int size = trainingLayout_ ? room * share / 100
                                     : std::max(kTrainingLeast, std::min(wanted, room * share / 100));
    window_->resizeDocks({d}, {size}, o);
}

void DockLayout::setTrainingLayout(bool on) {
    if (on == trainingLayout_) return;
    if (on) {
        beforeTraining_ = window_->saveState();
        trainingLayout_ = true;
        for (QDockWidget* d : {docks_.navigator, docks_.explain, docks_.diagram, docks_.input})
            if (d) d->hide();
        QDockWidget* t = docks_.training;
        if (t->isFloating()) t->setFloating(false);
        if (window_->dockWidgetArea(t) != Qt::BottomDockWidgetArea) window_->addDockWidget(Qt::BottomDockWidgetArea, t);
        t->show();
        t->raise();
        onTrainingShown();
    } else {
        trainingLayout_ = false;
        window_->restoreState(beforeTraining_);
    }
}

void DockLayout::fitOnScreen(QDockWidget* d) {
    if (!d->isFloating() || !window_->screen()) return;
    const QRect avail = window_->screen()->availableGeometry();
    const QRect frame = d->frameGeometry();
    if (avail.contains(frame)) return;
    const QSize margins = frame.size() - d->size();
    const QSize size = d->size().boundedTo(avail.size() - margins);
    d->resize(size);
    const QSize outer = size + margins;
    const int x = std::clamp(frame.x(), avail.left(), avail.left() + avail.width() - outer.width());
    const int y = std::clamp(frame.y(), avail.top(), avail.top() + avail.height() - outer.height());
    d->move(x, y);  // a window's move() places its frame
}
