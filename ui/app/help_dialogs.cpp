#include "app/help_dialogs.h"

#include <QApplication>
#include <QDir>
#include <QMessageBox>

void HelpDialogs::showShortcuts(QWidget* parent) {
    QString rows;
    auto row = [&rows](const QString& key, const QString& what) {
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>&nbsp;&nbsp;%2</td></tr>").arg(key.toHtmlEscaped(), what);
    };
    // Each shortcut and what it does, translated in this file's context.
    static const char* const kShortcuts[][2] = {
        {QT_TR_NOOP("→ / ←"), QT_TR_NOOP("next / previous step")},
        {QT_TR_NOOP("Space"), QT_TR_NOOP("play / pause")},
        {QT_TR_NOOP("Home / End"), QT_TR_NOOP("first / last step")},
        {QT_TR_NOOP("Ctrl+1 … Ctrl+7"), QT_TR_NOOP("tensor, attention, masks, positional-encoding, decode, loss, gradients view")},
        {QT_TR_NOOP("Ctrl+B"), QT_TR_NOOP("step forward / backward (through the gradients)")},
        {QT_TR_NOOP("Ctrl+T"), QT_TR_NOOP("show the Train panel")},
        {QT_TR_NOOP("Ctrl+S"), QT_TR_NOOP("save the trained checkpoint")},
        {QT_TR_NOOP("Ctrl+F"), QT_TR_NOOP("find a step by name or words (\"softmax decoder 3\")")},
        {QT_TR_NOOP("Ctrl+Shift+F"), QT_TR_NOOP("follow step: pick the view that suits each step")},
        {QT_TR_NOOP("Ctrl+C"), QT_TR_NOOP("copy the heatmap cell under the mouse")},
        {QT_TR_NOOP("F11"), QT_TR_NOOP("full screen")},
        {QT_TR_NOOP("Ctrl+Shift+T"), QT_TR_NOOP("training layout: the Train panel in most of the window, and back")},
        {QT_TR_NOOP("Ctrl++ / Ctrl+− / Ctrl+0"), QT_TR_NOOP("presentation zoom: larger text and cells, smaller, actual size")},
        {QT_TR_NOOP("Ctrl+O"), QT_TR_NOOP("open weights")},
        {QT_TR_NOOP("Ctrl+Shift+S"), QT_TR_NOOP("export the view as PNG")},
        {QT_TR_NOOP("Ctrl+Shift+C"), QT_TR_NOOP("export the tensor as CSV")},
        {QT_TR_NOOP("Alt+/ or Ctrl+Space"), QT_TR_NOOP("in a sentence field: list the vocabulary")},
        {QT_TR_NOOP("Ctrl+Q"), QT_TR_NOOP("quit")},
    };
    for (const auto& [key, what] : kShortcuts) row(tr(key), tr(what));
    auto* box = new QMessageBox(QMessageBox::Information, tr("Keyboard Shortcuts"),
                                QStringLiteral("<table>%1</table>").arg(rows), QMessageBox::Ok, parent);
    box->setAttribute(Qt::WA_DeleteOnClose);
    box->open();
}

void HelpDialogs::showAbout(QWidget* parent, const QString& cacheDir) {
    QMessageBox::about(parent, tr("About Stepformer"),
                       tr("<h3>Stepformer %1</h3>"
                          "<p>Step through the forward pass of the classic PyTorch encoder-decoder Transformer "
                          "tutorial and see every intermediate tensor: embeddings, positional encoding, masks, "
                          "Q/K/V, attention scores and weights, Add &amp; Norm, the feed-forward network and the "
                          "output probabilities.</p>"
                          "<p>The default model is trained on the tutorial's two sentences on first start and "
                          "cached in <tt>%2</tt>.</p>")
                           .arg(QApplication::applicationVersion(),
                                QDir::toNativeSeparators(cacheDir).toHtmlEscaped()));
}
