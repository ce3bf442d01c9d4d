#include "views/loss_formula.h"

#include <algorithm>
#include <cmath>

#include <QCoreApplication>
#include <QStringList>

#include "widgets/number_format.h"

QString lossFormulaHtml(const LossFormula& f) {
    const int places = f.places;
    const auto size = [](const auto& v) { return std::ssize(v); };
    QStringList terms;
    for (double t : f.terms) terms << numfmt::decimals(t, places);
    const size_t b = size_t(f.sentence);
    QString html = QCoreApplication::translate("LossView", "<b>Sentence %1:</b> &nbsp;%2 = <b>%3</b> &nbsp;<span style='color:#555'>(%4 counted%5)</span>")
                       .arg(f.sentence)
                       .arg(terms.isEmpty() ? QStringLiteral("0") : terms.join(QStringLiteral(" + ")))
                       .arg(numfmt::decimals(f.sentenceSums[b], places))
                       .arg(f.sentenceCounts[b])
                       .arg(f.ignoredHere > 0 ? QCoreApplication::translate("LossView", ", %1 ignored").arg(f.ignoredHere) : QString());
    QStringList sums, counts;
    for (int s = 0; s < f.sentences && s < size(f.sentenceSums); ++s) {
        sums << numfmt::decimals(f.sentenceSums[size_t(s)], places);
        counts << QString::number(f.sentenceCounts[size_t(s)]);
    }
    const QString loss = numfmt::decimals(f.summed ? f.loss : f.mean, std::max(6, places));
    QString mean;
    if (f.summed)  // one sentence: its sum is the loss (written out above)
        mean = f.sentences > 1 ? QCoreApplication::translate("LossView", "loss = %1 = <b>%2</b>").arg(sums.join(QStringLiteral(" + ")), loss)
                               : QCoreApplication::translate("LossView", "loss = <b>%1</b>").arg(loss);
    else if (f.sentences > 1)
        mean = QCoreApplication::translate("LossView", "loss = (%1) / (%2) = %3 / %4 = <b>%5</b>")
                   .arg(sums.join(QStringLiteral(" + ")), counts.join(QStringLiteral(" + ")), numfmt::decimals(f.sum, places))
                   .arg(f.count)
                   .arg(loss);
    else
        mean = QCoreApplication::translate("LossView", "loss = %1 / %2 = <b>%3</b>").arg(numfmt::decimals(f.sum, places)).arg(f.count).arg(loss);
    html += QStringLiteral("<br>") +
            (f.summed ? QCoreApplication::translate("LossView", "<b>Sum over the batch:</b> &nbsp;")
                      : QCoreApplication::translate("LossView", "<b>Mean over the batch:</b> &nbsp;")) +
            mean;
    if (!std::isnan(f.traceLoss)) {
        // The same function on the same numbers: equal to the bit unless the targets differ.
        const bool same = float(f.traceLoss) == float(f.loss);
        html += same ? QCoreApplication::translate("LossView", " &nbsp;<span style='color:#2e7d32'>✔ the model's <tt>loss</tt> = %1</span>")
                           .arg(numfmt::decimals(f.traceLoss, 6))
                     : QCoreApplication::translate("LossView", " &nbsp;<span style='color:#b00020'>≠ the model's <tt>loss</tt> = %1</span>")
                           .arg(numfmt::decimals(f.traceLoss, 6));
    }
    return html;
}
