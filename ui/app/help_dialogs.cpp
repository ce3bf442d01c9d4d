#include "app/help_dialogs.h"

#include <QApplication>
#include <QDir>
#include <QMessageBox>

void HelpDialogs::showShortcuts(QWidget* parent) {
    QString rows;
    auto row = [&rows](const QString& key, const QString& what) {
        rows += QStringLiteral("<tr><td><b>%1</b></td><td>&nbsp;&nbsp;%2</td></tr>").arg(key.toHtmlEscaped(), what);
    };
    row(tr("→ / ←"), tr("next / previous step"));
    row(tr("Space"), tr("play / pause"));
    row(tr("Home / End"), tr("first / last step"));
    row(tr("Ctrl+1 … Ctrl+7"), tr("tensor, attention, masks, positional-encoding, decode, loss, gradients view"));
    row(tr("Ctrl+B"), tr("step forward / backward (through the gradients)"));
    row(tr("Ctrl+T"), tr("show the Train panel"));
    row(tr("Ctrl+S"), tr("save the trained checkpoint"));
    row(tr("Ctrl+F"), tr("follow step: pick the view that suits each step"));
    row(tr("Ctrl+O"), tr("open weights"));
    row(tr("Ctrl+Shift+S"), tr("export the view as PNG"));
    row(tr("Ctrl+Shift+C"), tr("export the tensor as CSV"));
    row(tr("Ctrl+Space"), tr("in a sentence field: list the vocabulary"));
    row(tr("Ctrl+Q"), tr("quit"));
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
