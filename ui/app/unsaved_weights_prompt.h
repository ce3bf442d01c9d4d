// Closing with weights trained in the Train panel that were never saved: Save / Discard / Cancel.
#pragma once

#include <QCoreApplication>

class QWidget;
class TrainingPanel;

class UnsavedWeightsPrompt {
    Q_DECLARE_TR_FUNCTIONS(UnsavedWeightsPrompt)

public:
    // Asks (a QMessageBox named "unsavedWeightsBox") only when the panel has unsaved weights, and
    // not on the offscreen platform with $STEPFORMER_NO_CLOSE_PROMPT set. True when the window may
    // close: nothing to ask, Discard, or Save and the checkpoint was saved.
    static bool confirmDiscard(QWidget* parent, TrainingPanel* panel);
};
