#include "app/unsaved_weights_prompt.h"

#include <QGuiApplication>
#include <QMessageBox>

#include "training/training_panel.h"

bool UnsavedWeightsPrompt::confirmDiscard(QWidget* parent, TrainingPanel* panel) {
    if (!panel->hasUnsavedWeights()) return true;
    if (QGuiApplication::platformName() == QLatin1String("offscreen") &&
        qEnvironmentVariableIsSet("STEPFORMER_NO_CLOSE_PROMPT"))
        return true;
    QMessageBox box(QMessageBox::Question, tr("Unsaved trained weights"),
                    tr("The model trained in the Train panel has not been saved. Save it as a checkpoint "
                       "before closing?"),
                    QMessageBox::Save | QMessageBox::Discard | QMessageBox::Cancel, parent);
    box.setObjectName(QStringLiteral("unsavedWeightsBox"));
    box.setDefaultButton(QMessageBox::Save);
    switch (box.exec()) {
    case QMessageBox::Save:
        panel->saveCheckpointDialog();
        return !panel->hasUnsavedWeights();  // the save dialog was cancelled or failed: stay
    case QMessageBox::Discard: return true;
    default: return false;
    }
}
