// TrainingPanel: watching a run (issue 14). The pace beside Start slows the optimizer steps to a
// rate a person can follow; "Live views" lets the run post traces of the app's sentences for the
// step-through views while it trains. Both are remembered (QSettings training/pace,
// training/liveViews) and take effect at once, also in the middle of a run.
#include "training/training_panel.h"
#include "views/view_parts.h"

#include <QCheckBox>
#include <QComboBox>
#include <QSettings>

#include "training/hyperparameter_form.h"

namespace {

const QString kPaceKey = QStringLiteral("training/pace");
const QString kLiveKey = QStringLiteral("training/liveViews");

QString paceKey(TrainingPanel::Pace p) {
    return p == TrainingPanel::Pace::Watch ? QStringLiteral("watch") : QStringLiteral("full");
}

}  // namespace

TrainingPanel::Pace TrainingPanel::defaultPace(HyperparameterForm::Preset p) {
    // The tutorial's model trains its 30 steps in a few seconds: too fast to see anything. The
    // small preset's 60 quick steps, or a custom run (often long), go at full speed.
    return p == HyperparameterForm::Preset::Tutorial ? Pace::Watch : Pace::FullSpeed;
}

void TrainingPanel::buildWatchControls(QWidget* parent) {
    paceCombo_ = view_parts::named(new QComboBox(parent), "paceCombo");
    paceCombo_->addItem(tr("Watch (%1 steps/s)").arg(1000 / kWatchPaceMs), int(Pace::Watch));
    paceCombo_->addItem(tr("Full speed"), int(Pace::FullSpeed));
    paceCombo_->setToolTip(
        tr("<p><b>Watch</b>: each optimizer step takes at least %1 s (%2 steps a second), so the loss curve, the "
           "attention replay and the live views can be followed, and Pause or Stop can be reached in time.</p>"
           "<p><b>Full speed</b>: as fast as the machine trains.</p>"
           "<p>Picking a preset in the hyperparameters sets its pace (Watch for the tutorial's, Full speed for the "
           "small one and custom runs). A change applies at once, also during a run.</p>")
            .arg(kWatchPaceMs / 1000.0)
            .arg(1000 / kWatchPaceMs));

    liveToggle_ = view_parts::named(new QCheckBox(tr("Live views"), parent), "liveViewsToggle");
    liveToggle_->setToolTip(
        tr("Update the step-through views while training: about every %1 s (at most once a step) the run's "
           "current weights compute the forward pass of the sentences in the Sentences bar, and the views show "
           "it (the status bar says \"live\"). The backward pass is not computed during a run. Off: the views keep "
           "the shown model until the run ends.")
            .arg(TrainingController::kDefaultLiveIntervalMs / 1000.0));

    setPace(chosenPace().value_or(defaultPace(HyperparameterForm::Preset::Tutorial)));
    setLiveViews(QSettings().value(kLiveKey, true).toBool());

    // Only the user's choices are remembered (not a preset's default).
    connect(paceCombo_, &QComboBox::activated, this, [this](int index) {
        const Pace p = Pace(paceCombo_->itemData(index).toInt());
        setPace(p);
        QSettings().setValue(kPaceKey, paceKey(p));
    });
    connect(liveToggle_, &QCheckBox::clicked, this, [this](bool on) {
        setLiveViews(on);
        QSettings().setValue(kLiveKey, on);
    });
}

std::optional<TrainingPanel::Pace> TrainingPanel::chosenPace() {
    const QString stored = QSettings().value(kPaceKey).toString();
    if (stored == paceKey(Pace::FullSpeed)) return Pace::FullSpeed;
    if (stored == paceKey(Pace::Watch)) return Pace::Watch;
    return std::nullopt;
}

void TrainingPanel::connectWatchControls() {
    connect(form_, &HyperparameterForm::presetApplied, this,
            [this](HyperparameterForm::Preset p) { setPace(defaultPace(p)); });
}

void TrainingPanel::setPace(Pace p) {
    const QSignalBlocker block(paceCombo_);
    paceCombo_->setCurrentIndex(paceCombo_->findData(int(p)));
    controller_->setPace(p == Pace::Watch ? kWatchPaceMs : 0);
}

TrainingPanel::Pace TrainingPanel::pace() const { return Pace(paceCombo_->currentData().toInt()); }

void TrainingPanel::setLiveViews(bool on) {
    const bool changed = on != controller_->liveTraces();
    {
        const QSignalBlocker block(liveToggle_);
        liveToggle_->setChecked(on);
    }
    controller_->setLiveTraces(on);
    if (changed) emit liveViewsToggled(on);
}

bool TrainingPanel::liveViews() const { return liveToggle_->isChecked(); }

void TrainingPanel::setLiveInput(const QString& source, const QString& target) {
    controller_->setLiveInput(source, target);
}
