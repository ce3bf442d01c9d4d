#include "app/status_bar.h"
#include "widgets/progress_value.h"

#include "stepformer/model_registry.h"
#include "views/view_parts.h"

#include <algorithm>

#include <QAction>
#include <QHBoxLayout>
#include <QLabel>
#include <QMessageBox>
#include <QProgressBar>
#include <QToolButton>

#include "app/loss_sparkline.h"
#include "app/session.h"
#include "stepformer/trace_names.h"
#include "steps/step_model.h"
#include "widgets/number_format.h"

namespace {
// Wide enough for most steps' text, so stepping does not re-lay the status bar out.
int stepReserveWidth(const QFontMetrics& fm) {
    const QString longStep = QString::fromStdString(stepformer::names::entry(
        {stepformer::Stack::Decoder, stepformer::BlockKind::CrossAttention, 5}, "masked_scores"));
    return fm.horizontalAdvance(QStringLiteral("Step 888/888 · %1 · [8, 8, 8, 8]").arg(longStep));
}
}  // namespace

StatusBar::StatusBar(Session* session, QAction* cancelTraining, QWidget* parent)
    : QStatusBar(parent), session_(session), cancelTraining_(cancelTraining) {
    setObjectName(QStringLiteral("statusBar"));
    setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Fixed);  // as QMainWindow::statusBar() makes its own
    modelLabel_ = view_parts::named(new QLabel(this), "modelLabel");
    stepLabel_ = view_parts::named(new QLabel(this), "stepLabel");
    stepLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stepReserve_ = stepReserveWidth(stepLabel_->fontMetrics());
    stepLabel_->setMinimumWidth(stepReserve_);
    modelLabel_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);  // elided, never widens the window
    modelLabel_->installEventFilter(this);

    liveLabel_ = view_parts::named(new QLabel(this), "liveLabel");
    liveLabel_->setStyleSheet(QStringLiteral("QLabel { background: #dbe9fb; color: #1f4f8f; border-radius: 8px;"
                                             " padding: 1px 8px; font-weight: 600; }"));
    liveLabel_->setVisible(false);

    trainingBox_ = view_parts::named(new QWidget(this), "trainingBox");
    auto* lay = view_parts::makeRow(trainingBox_, 6, 0);
    auto* caption = new QLabel(tr("Training:"), trainingBox_);
    trainingCaption_ = caption;
    progress_ = view_parts::named(new QProgressBar(trainingBox_), "trainingProgress");
    progress_->setFixedWidth(190);
    progress_->setTextVisible(true);
    progress_->setFormat(tr("step %v / %m"));
    progress_->setToolTip(tr("Training the model on the tutorial's two sentences (once; the result is cached)"));
    sparkline_ = new LossSparkline(trainingBox_);
    lossLabel_ = view_parts::named(new QLabel(trainingBox_), "lossLabel");
    lossLabel_->setMinimumWidth(QFontMetrics(font()).horizontalAdvance(QStringLiteral("loss 0.000000")));
    cancelButton_ = view_parts::named(new QToolButton(trainingBox_), "cancelTrainingButton");
    cancelButton_->setDefaultAction(cancelTraining_);
    cancelButton_->setAutoRaise(true);
    lay->addWidget(caption);
    lay->addWidget(progress_);
    lay->addWidget(sparkline_);
    lay->addWidget(lossLabel_);
    lay->addWidget(cancelButton_);
    trainingBox_->setVisible(false);

    deviceButton_ = view_parts::named(new QToolButton(this), "deviceButton");
    deviceButton_->setAutoRaise(true);
    deviceButton_->setPopupMode(QToolButton::InstantPopup);
    deviceButton_->setToolButtonStyle(Qt::ToolButtonTextOnly);

    addWidget(modelLabel_, 1);
    addPermanentWidget(trainingBox_);
    addPermanentWidget(liveLabel_);
    addPermanentWidget(deviceButton_);
    addPermanentWidget(stepLabel_);

    connect(session_, &Session::trainingStarted, this, &StatusBar::onTrainingStarted);
    connect(session_, &Session::trainingProgress, this, &StatusBar::onTrainingProgress);
    connect(session_, &Session::trainingFinished, this, [this] {
        onTrainingEnded();
        if (window()->isVisible())
            showMessage(tr("Training finished: now showing the trained model (cached for the next start)."), 8000);
    });
    connect(session_, &Session::trainingFailed, this, &StatusBar::onTrainingEnded);  // the window says why
}

void StatusBar::setDeviceMenu(QMenu* menu) {
    deviceButton_->setMenu(menu);
    const auto show = [this] {
        const QString label = session_->computeDeviceLabel();
        deviceButton_->setText(label);
        deviceButton_->setToolTip(tr("The numbers on screen are computed on %1. Click to compute on another device "
                                     "(Model › Compute On).")
                                      .arg(label));
    };
    connect(session_, &Session::computeDeviceChanged, this, show);
    show();
}

void StatusBar::showModel() {
    const auto& c = session_->config();
    modelText_ = (tr("%5 %1 · %2 layers · %3 heads · %4")
                             .arg(c.d_model)
                             .arg(c.n_layers)
                             .arg(c.n_heads)
                             .arg(session_->modelStateText())
                             .arg(QString::fromLatin1(stepformer::width_key(c))));
    modelLabel_->setToolTip(session_->modelDescription());
    cancelTraining_->setEnabled(session_->isTraining());
    if (!session_->isTraining()) trainingBox_->setVisible(false);
    fitWidth();
}

void StatusBar::showStep(int position, int count, const QString& traceName, const stepformer::TraceEntry* entry) {
    stepText_ = entry ? tr("Step %1/%2 · %3 · %4").arg(position).arg(count).arg(traceName, StepModel::shapeText(*entry))
                      : QString();
    fitWidth();
}

void StatusBar::resizeEvent(QResizeEvent* e) {
    QStatusBar::resizeEvent(e);
    fitWidth();
}

void StatusBar::changeEvent(QEvent* e) {
    QStatusBar::changeEvent(e);
    if (e->type() == QEvent::FontChange) {
        stepReserve_ = stepReserveWidth(stepLabel_->fontMetrics());
        fitWidth();
    }
}

void StatusBar::fitWidth() {
    const auto hint = [](const QWidget* w) { return w->isHidden() ? 0 : w->sizeHint().width() + 8; };
    const QFontMetrics fm = stepLabel_->fontMetrics();
    const int stepText = fm.horizontalAdvance(stepText_) + 4;
    // The training box's parts at full size (its layout's hint lags behind a part just hidden).
    int box = 0;
    if (!trainingBox_->isHidden())
        for (QWidget* w : {static_cast<QWidget*>(trainingCaption_), static_cast<QWidget*>(progress_),
                           static_cast<QWidget*>(sparkline_), static_cast<QWidget*>(lossLabel_),
                           static_cast<QWidget*>(cancelButton_)})
            box += std::max(w->sizeHint().width(), w->minimumWidth()) + 6;
    const int modelRoom = std::min(240, fm.horizontalAdvance(modelText_) + 8);  // what the model label keeps
    const int avail = width() - modelRoom - hint(liveLabel_) - hint(deviceButton_) - 24;
    int step = stepReserve_;
    bool spark = true, caption = true;
    if (box + step > avail) step = std::min(stepReserve_, stepText);
    if (box + step > avail && box > 0) spark = false, box -= sparkline_->width() + 6;
    if (box + step > avail && box > 0) caption = false, box -= trainingCaption_->sizeHint().width() + 6;
    if (box + step > avail) step = std::max(80, avail - box);
    sparkline_->setVisible(spark);
    trainingCaption_->setVisible(caption);
    stepLabel_->setMinimumWidth(step);
    stepLabel_->setMaximumWidth(std::max(step, stepText));
    stepLabel_->setText(fm.elidedText(stepText_, Qt::ElideMiddle, std::max(step, std::min(stepText, avail - box))));
    stepLabel_->setToolTip(stepLabel_->text() == stepText_ ? QString() : stepText_);
    elideModelText();  // the model label takes what is left (and again when the layout gives it that)
}

void StatusBar::elideModelText() {
    modelLabel_->setText(modelLabel_->fontMetrics().elidedText(modelText_, Qt::ElideRight, std::max(40, modelLabel_->width())));
}

bool StatusBar::eventFilter(QObject* watched, QEvent* e) {
    if (watched == modelLabel_ && e->type() == QEvent::Resize) elideModelText();
    return QStatusBar::eventFilter(watched, e);
}

void StatusBar::showError(const QString& title, const QString& message) {
    showMessage(message.section(QLatin1Char('\n'), 0, 0), 10000);
    if (errorBox_) errorBox_->close();
    // Non-modal: never blocks the event loop (tests, --screenshot), still impossible to miss.
    auto* box = new QMessageBox(QMessageBox::Warning, title, message, QMessageBox::Ok, window());
    box->setObjectName(QStringLiteral("errorMessageBox"));
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->setWindowModality(Qt::WindowModal);
    errorBox_ = box;
    if (window()->isVisible()) box->open();
}

void StatusBar::openPendingError() {
    if (errorBox_ && !errorBox_->isVisible() && window()->isVisible()) errorBox_->open();
}

QString StatusBar::pendingErrorText() const { return errorBox_ ? errorBox_->text() : QString(); }

void StatusBar::onTrainingStarted(int total) {
    sparkline_->clear();
    progress_->setRange(0, total);
    progress_->setValue(0);
    lossLabel_->clear();
    trainingBox_->setVisible(true);
    fitWidth();
    cancelTraining_->setEnabled(true);
    if (window()->isVisible())
        showMessage(tr("Training the %1 model on the tutorial's sentences; the untrained model is shown meanwhile.")
                        .arg(Session::presetKey(session_->preset())),
                    6000);
}

void StatusBar::onTrainingProgress(int step, int total, double loss) {
    if (progress_->maximum() != total) progress_->setMaximum(total);
    setProgressValue(progress_, step);
    sparkline_->add(loss);
    lossLabel_->setText(tr("loss %1").arg(numfmt::plainDecimals(loss, 6)));
}

void StatusBar::onTrainingEnded() {
    trainingBox_->setVisible(false);
    fitWidth();
    cancelTraining_->setEnabled(false);
}

void StatusBar::showLive(const QString& text, const QString& tip) {
    liveLabel_->setText(text);
    liveLabel_->setToolTip(tip);
    liveLabel_->setVisible(!text.isEmpty());
    fitWidth();
}

QString StatusBar::liveText() const { return liveLabel_->isHidden() ? QString() : liveLabel_->text(); }
