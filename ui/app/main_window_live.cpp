// MainWindow: the views while the Train panel runs with live views — each step's forward pass of
// the replay sentences on the weights being trained, and the status bar's chip saying so.
#include "app/main_window.h"

#include "app/session.h"
#include "app/status_bar.h"
#include "architecture/architecture_diagram.h"
#include "explain/explain_panel.h"
#include "steps/step_navigator.h"
#include "training/training_panel.h"
#include "views/step_view.h"
#include "widgets/number_format.h"

void MainWindow::onLiveTrace(const std::shared_ptr<const LiveTrace>& live) {
    if (!live || !trainingPanel_->isTraining()) return;
    const TrainingStep& st = live->step;
    QString why;
    if (navigator_->isBackward())
        why = tr("The views keep the shown model: a run computes no backward pass (switch to the forward pass "
                 "to watch it).");
    else if (!session_->showLiveTrace(live->trace, live->config, live->source, live->target))
        why = tr("The views keep the shown model: the run trains a model of another size or vocabulary.");
    if (!why.isEmpty()) {
        status_->showLive(tr("training: views not live"), why);
        return;
    }
    status_->showLive(tr("live: epoch %1, step %2/%3").arg(st.epoch).arg(st.step).arg(st.stepsTotal),
                      tr("The views show the forward pass of these sentences on the weights being trained, after "
                         "step %1 (loss of that step %2). When the run ends the views take its weights; Reset "
                         "goes back to the model shown before.")
                          .arg(st.step)
                          .arg(numfmt::plainDecimals(st.loss, 4)));
}

void MainWindow::onLiveTraceChanged() {
    const auto trace = session_->trace();
    if (!trace) return;
    // As on an input change, without rebuilding the navigator (same steps, new values): every
    // view takes the trace, the visible one its current step again.
    appliedSteps_.clear();
    const auto& cfg = session_->config();
    for (StepView* v : views_) v->setTrace(trace, cfg);
    diagram_->setTrace(trace, cfg);
    explain_->setTrace(trace, cfg);
    onStepChanged(currentStep());
    onInputAccepted();  // the loss of the live trace
}

void MainWindow::endLiveTrace() {
    status_->showLive({});
    session_->clearLiveTrace();  // traceChanged: the model's own trace again
}
