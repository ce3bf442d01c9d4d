// The window's status bar: the model on the left; while a preset trains, a box with its progress,
// its loss curve and a cancel button; the current step on the right. Messages pass through it
// for a few seconds (training started or finished, exports, errors).
#pragma once

#include <QCoreApplication>

#include <QPointer>
#include <QStatusBar>

class QAction;
class QLabel;
class QMenu;
class QMessageBox;
class QProgressBar;
class QResizeEvent;
class QToolButton;
class LossSparkline;
class Session;
namespace stepformer {
struct TraceEntry;
}

class StatusBar : public QStatusBar {
    // Its texts in its own translation context (the one lupdate gives it), without a moc.
    Q_DECLARE_TR_FUNCTIONS(StatusBar)

public:
    // cancelTraining: the Model menu's action, also the button in the training box; it is enabled
    // while the session trains.
    StatusBar(Session* session, QAction* cancelTraining, QWidget* parent);

    // The device button (deviceButton): the device that computes the numbers on screen
    // ("CPU — 2 threads", "GPU — …"); it opens `menu` (Model › Compute On).
    void setDeviceMenu(QMenu* menu);
    // The model's size and state; the training box hides when nothing trains.
    void showModel();
    // "Step 3/120 · name · shape" (position is 1-based); empty without an entry.
    void showStep(int position, int count, const QString& traceName, const stepformer::TraceEntry* entry);
    // The message's first line here, all of it in a warning box over the window (errorMessageBox;
    // it replaces the previous one). Raised before the window is shown (a start-up file error),
    // the box waits: openPendingError() opens it once the window is on screen.
    void showError(const QString& title, const QString& message);
    void openPendingError();
    // The full text of the last error box still open or waiting; empty when there is none.
    QString pendingErrorText() const;
    // While the views show a live trace from the Train panel: "live: epoch 12, step 12/30" in a
    // chip (liveLabel) with `tip` as its tooltip; empty text hides it.
    void showLive(const QString& text, const QString& tip = {});
    QString liveText() const;

protected:
    void resizeEvent(QResizeEvent* e) override;
    void changeEvent(QEvent* e) override;  // a new font (the presentation zoom): fit again
    bool eventFilter(QObject* watched, QEvent* e) override;  // the model label's resizes: elide anew

private:
    // Fits the right-hand parts into the bar's width: on a narrow window (an unmaximised first
    // start while the preset trains, a projector at 1024 px) the step label's reserve goes first,
    // then the loss sparkline, the "Training:" caption, and the texts are elided in the middle.
    void fitWidth();
    void elideModelText();
    void onTrainingStarted(int total);
    void onTrainingProgress(int step, int total, double loss);
    void onTrainingEnded();

    Session* session_ = nullptr;
    QAction* cancelTraining_ = nullptr;
    QLabel *modelLabel_ = nullptr, *stepLabel_ = nullptr, *liveLabel_ = nullptr;
    QLabel* trainingCaption_ = nullptr;
    QString modelText_, stepText_;  // in full (the labels may show them elided)
    int stepReserve_ = 0;           // the step label's width for most steps: stepping keeps the layout
    QToolButton* deviceButton_ = nullptr;
    QWidget* trainingBox_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* lossLabel_ = nullptr;
    LossSparkline* sparkline_ = nullptr;
    QToolButton* cancelButton_ = nullptr;
    QPointer<QMessageBox> errorBox_;
};
