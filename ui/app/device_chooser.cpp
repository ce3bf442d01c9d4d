#include "app/device_chooser.h"
#include "views/view_parts.h"

#include <QAction>
#include <QActionGroup>
#include <QApplication>
#include <QMainWindow>
#include <QMenu>
#include <QSettings>
#include <QStatusBar>

#include "app/session.h"
#include "stepformer/backend.h"

namespace {
const QString kSettingKey = QStringLiteral("compute/device");
}

DeviceChooser::DeviceChooser(Session* session, QWidget* window,
                             std::function<void(const QString&, const QString&)> showError)
    : QObject(window), session_(session), window_(window), showError_(std::move(showError)) {
    menu_ = view_parts::named(new QMenu(tr("&Compute On"), window), "menuComputeOn");
    menu_->setToolTipsVisible(true);
    group_ = new QActionGroup(this);
    group_->setExclusive(true);
    cpu_ = menu_->addAction(QString());
    cpu_->setObjectName(QStringLiteral("actionComputeCpu"));
    cpu_->setToolTip(tr("Compute every tensor with the CPU backend (Eigen), the reference the GPU is checked against"));
    gpu_ = menu_->addAction(QString());
    gpu_->setObjectName(QStringLiteral("actionComputeGpu"));
    for (QAction* a : {cpu_, gpu_}) {
        a->setCheckable(true);
        group_->addAction(a);
    }
    connect(cpu_, &QAction::triggered, this, [this] { chooseKind(ComputeDevices::Kind::Cpu, true); });
    connect(gpu_, &QAction::triggered, this, [this] { chooseKind(ComputeDevices::Kind::Gpu, true); });
    // The GPU's name needs the Vulkan driver: looked up when the menu is about to show.
    connect(menu_, &QMenu::aboutToShow, this, [this] {
        QString why;
        const QString name = ComputeDevices::instance().gpuName(&why);
        gpu_->setEnabled(!name.isEmpty());
        gpu_->setText(name.isEmpty() ? tr("&GPU (none here)") : tr("&GPU — %1").arg(name));
        gpu_->setToolTip(name.isEmpty() ? tr("No GPU can compute here: %1").arg(why)
                                        : tr("Compute every tensor with the Vulkan compute backend on %1; each step "
                                             "can be compared with the CPU in the explanation panel")
                                              .arg(name));
    });
    connect(session_, &Session::computeDeviceChanged, this, &DeviceChooser::refresh);
    refresh();
}

void DeviceChooser::refresh() {
    cpu_->setText(ComputeDevices::label(*ComputeDevices::instance().backend(ComputeDevices::Kind::Cpu)));
    const bool onGpu = session_->computeDevice() == ComputeDevices::Kind::Gpu;
    if (onGpu) gpu_->setText(session_->computeDeviceLabel());
    else if (gpu_->text().isEmpty()) gpu_->setText(tr("&GPU"));
    (onGpu ? gpu_ : cpu_)->setChecked(true);
}

bool DeviceChooser::chooseKind(ComputeDevices::Kind kind, bool remember) {
    QString why;
    bool ok = true;
    if (kind != session_->computeDevice()) {
        QApplication::setOverrideCursor(Qt::WaitCursor);  // a GPU's first pass makes its pipelines
        ok = session_->setComputeDevice(kind, &why);
        QApplication::restoreOverrideCursor();
    }
    if (!ok) {
        showError_(tr("No GPU"), tr("Stepformer cannot compute on the GPU: %1\n\nIt goes on computing on the CPU.").arg(why));
    } else if (remember) {
        QSettings().setValue(kSettingKey, ComputeDevices::key(kind));
    }
    refresh();
    return ok;
}

bool DeviceChooser::choose(const QString& key, bool remember) {
    const auto kind = ComputeDevices::instance().kindFromKey(key);
    if (!kind) {
        showError_(tr("Unknown device"), tr("Unknown device \"%1\": use cpu, gpu or auto.").arg(key));
        return false;
    }
    // "auto" without a GPU says so once, quietly: the CPU is a fine place to compute.
    if (*kind == ComputeDevices::Kind::Cpu && key.trimmed().compare(QLatin1String("auto"), Qt::CaseInsensitive) == 0)
        if (auto* main = qobject_cast<QMainWindow*>(window_)) {
            QString why;
            const QString gpu = ComputeDevices::instance().gpuName(&why);
            main->statusBar()->showMessage(
                gpu.isEmpty() ? tr("Computing on the CPU: %1.").arg(why)
                              : tr("Computing on the CPU: the only Vulkan device, %1, runs on the CPU (Model › Compute "
                                   "On › GPU uses it).")
                                    .arg(gpu),
                10000);
        }
    return chooseKind(*kind, remember);
}

QString DeviceChooser::startChoice(const QString& asked, bool remembered) {
    if (!asked.isEmpty()) return asked;
    const QString env = qEnvironmentVariable("STEPFORMER_BACKEND");
    if (!env.isEmpty()) return env;
    const QString cpu = QStringLiteral("cpu");
    return remembered ? QSettings().value(kSettingKey, cpu).toString() : cpu;
}
