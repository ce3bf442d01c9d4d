// The Loss view's sums written out: one sentence's counted −log p terms and their sum, then the
// batch's mean (or sum) as the model's loss function forms it, beside the model's own loss.
#pragma once

#include <vector>

#include <QString>

struct LossFormula {
    int sentence = 0, sentences = 1;  // the one shown, of the batch
    bool summed = false;              // the loss sums over the batch (cal_loss), else the mean
    std::vector<double> terms;        // the shown sentence's counted −log p, in order
    int ignoredHere = 0;              // its positions the loss skips
    std::vector<double> sentenceSums;
    std::vector<int> sentenceCounts;
    double sum = 0.0, mean = 0.0, loss = 0.0;
    int count = 0;
    double traceLoss = 0.0;  // the model's loss entry; NaN when the trace has none
    int places = 4;          // decimals of the terms (as many as the smallest needs)
};

// Rich text, translated in the Loss view's context.
QString lossFormulaHtml(const LossFormula& f);
