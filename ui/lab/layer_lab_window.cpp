#include "lab/layer_lab_window.h"
#include "views/view_parts.h"

#include <QKeyEvent>
#include <QCloseEvent>
#include <QGuiApplication>
#include <QHeaderView>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTreeWidget>

#include "lab/lab_controls.h"
#include "lab/lab_model.h"
#include "lab/lab_steps.h"
#include "lab/step_detail.h"
#include "widgets/window_geometry.h"
#include "stepformer/trace_names.h"

using namespace stepformer;

namespace {

const char* kGeometryKey = "layerLab/geometry";
const char* kSplitterKey = "layerLab/splitter";

// The last forward entry: the lab's output.
const TraceEntry* outputEntry(const Trace& tr) {
    for (auto it = tr.entries().rbegin(); it != tr.entries().rend(); ++it)
        if (!names::is_grad(it->name)) return &*it;
    return nullptr;
}

}  // namespace

LayerLabWindow::LayerLabWindow(QWidget* parent) : QMainWindow(parent, Qt::Window) {
    setObjectName(QStringLiteral("layerLabWindow"));
    setWindowTitle(tr("Layer Lab: nn.TransformerEncoderLayer, step by step (seed 004)"));
    model_ = new LabModel(this);

    split_ = view_parts::named(new QSplitter(Qt::Horizontal, this), "labSplitter");
    split_->setChildrenCollapsible(false);
    auto* scroll = view_parts::named(new QScrollArea(split_), "labControlsScroll");
    scroll->setWidgetResizable(true);
    scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
    controls_ = view_parts::named(new LabControls(model_, scroll), "labControls");
    scroll->setWidget(controls_);
    scroll->setMinimumWidth(340);

    tree_ = view_parts::named(new QTreeWidget(split_), "labSteps");
    tree_->setColumnCount(2);
    tree_->setHeaderLabels({tr("Step"), tr("Seed 004")});
    tree_->header()->setSectionResizeMode(0, QHeaderView::ResizeToContents);
    tree_->header()->setStretchLastSection(true);
    tree_->setUniformRowHeights(true);
    tree_->setIndentation(12);  // two levels only: room for seed 004's names in the second column
    tree_->setMinimumWidth(260);

    detail_ = view_parts::named(new StepDetail(split_), "stepDetail");
    split_->addWidget(scroll);
    split_->addWidget(tree_);
    split_->addWidget(detail_);
    split_->setStretchFactor(0, 0);
    split_->setStretchFactor(1, 0);
    split_->setStretchFactor(2, 1);
    setCentralWidget(split_);
    statusBar()->showMessage(tr("Every number is computed by Stepformer's own nn.TransformerEncoderLayer, tested "
                                "against PyTorch 1.13 to 1e-4"));

    connect(model_, &LabModel::computed, this, &LayerLabWindow::rebuildSteps);
    connect(tree_, &QTreeWidget::currentItemChanged, this, [this](QTreeWidgetItem* item) {
        if (item && item->data(0, Qt::UserRole).isValid()) wanted_ = item->data(0, Qt::UserRole).toString();
        showCurrent();
    });

    QSettings s;
    if (!restoreGeometryOnScreen(this, s.value(QLatin1String(kGeometryKey)).toByteArray())) {
        const QRect avail = QGuiApplication::primaryScreen() ? QGuiApplication::primaryScreen()->availableGeometry()
                                                             : QRect(0, 0, 1366, 768);
        resize(std::min(1500, avail.width() - 40), std::min(900, avail.height() - 40));
    }
    if (!split_->restoreState(s.value(QLatin1String(kSplitterKey)).toByteArray()))
        split_->setSizes({width() >= 1700 ? 470 : 390, 420, std::max(400, width() - 810)});
    rebuildSteps();
}

LayerLabWindow::~LayerLabWindow() = default;

LayerLabWindow* LayerLabWindow::showFor(QWidget* owner) {
    auto* lab = owner->findChild<LayerLabWindow*>(QStringLiteral("layerLabWindow"), Qt::FindDirectChildrenOnly);
    if (!lab) lab = new LayerLabWindow(owner);
    lab->show();
    lab->raise();
    lab->activateWindow();
    return lab;
}

void LayerLabWindow::rebuildSteps() {
    const QSignalBlocker block(tree_);
    tree_->clear();
    const Trace& trace = model_->trace();
    const Config c = model_->config();
    const TraceEntry* out = outputEntry(trace);
    QTreeWidgetItem* group = nullptr;
    QString groupText;
    QTreeWidgetItem* select = nullptr;
    QTreeWidgetItem* outputItem = nullptr;
    for (const TraceEntry& e : trace.entries()) {
        const QString g = labsteps::groupTitle(e, c);
        if (!group || g != groupText) {
            group = new QTreeWidgetItem(tree_, {g});
            group->setFlags(Qt::ItemIsEnabled);
            group->setFirstColumnSpanned(true);
            QFont f = group->font(0);
            f.setBold(true);
            group->setFont(0, f);
            group->setToolTip(0, labsteps::groupToolTip(e, c));
            groupText = g;
        }
        const QString name = QString::fromStdString(e.name);
        auto* item = new QTreeWidgetItem(group, {labsteps::label(e), labsteps::seedName(e, c, &e == out)});
        item->setData(0, Qt::UserRole, name);
        item->setToolTip(0, name);
        if (name == wanted_) select = item;
        if (&e == out) outputItem = item;
    }
    tree_->expandAll();
    if (!select) select = outputItem;
    if (select) {
        tree_->setCurrentItem(select);
        tree_->scrollToItem(select);
    }
    showCurrent();
}

void LayerLabWindow::showCurrent() {
    const Trace& trace = model_->trace();
    if (!model_->error().isEmpty()) {
        detail_->showMessage(tr("The layer could not run: %1").arg(model_->error()));
        return;
    }
    const QString name = currentStep();
    const TraceEntry* e = name.isEmpty() ? nullptr : trace.find(name.toStdString());
    const Config c = model_->config();
    detail_->showEntry(e, c, e && e == outputEntry(trace));
    if (e) emit stepShown(name);
}

bool LayerLabWindow::selectStep(const QString& name) {
    for (int g = 0; g < tree_->topLevelItemCount(); ++g) {
        QTreeWidgetItem* group = tree_->topLevelItem(g);
        for (int i = 0; i < group->childCount(); ++i)
            if (group->child(i)->data(0, Qt::UserRole).toString() == name) {
                tree_->setCurrentItem(group->child(i));
                return true;
            }
    }
    return false;
}

QString LayerLabWindow::currentStep() const {
    const QTreeWidgetItem* item = tree_->currentItem();
    return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void LayerLabWindow::saveGeometrySettings() {
    QSettings s;
    s.setValue(QLatin1String(kGeometryKey), saveGeometry());
    s.setValue(QLatin1String(kSplitterKey), split_->saveState());
}

void LayerLabWindow::closeEvent(QCloseEvent* e) {
    saveGeometrySettings();
    QMainWindow::closeEvent(e);
}

void LayerLabWindow::hideEvent(QHideEvent* e) {
    saveGeometrySettings();
    QMainWindow::hideEvent(e);
}

// A window of its own closes with Escape, as a dialog does (what its controls leave unused reaches it).
void LayerLabWindow::keyPressEvent(QKeyEvent* e) {
    if (e->key() == Qt::Key_Escape && e->modifiers() == Qt::NoModifier) {
        close();
        return;
    }
    QMainWindow::keyPressEvent(e);
}
