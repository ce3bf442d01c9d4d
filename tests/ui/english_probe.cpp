#include "english_probe.h"

#include <QAbstractButton>
#include <QAbstractItemView>
#include <QAbstractSpinBox>
#include <QAction>
#include <QComboBox>
#include <QDockWidget>
#include <QGraphicsScene>
#include <QGraphicsSimpleTextItem>
#include <QGraphicsTextItem>
#include <QGroupBox>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QRegularExpression>
#include <QSpinBox>
#include <QTabBar>
#include <QTextDocument>
#include <QtCharts/QChartView>

#include "widgets/heatmap_widget.h"

namespace testutil {

namespace {

QString nameOf(const QObject* o) {
    return o->objectName().isEmpty() ? QString::fromLatin1(o->metaObject()->className()) : o->objectName();
}

// The text a user reads: tags dropped, code spans dropped, entities decoded.
QString readable(QString t) {
    static const QRegularExpression code(QStringLiteral("<(tt|code)>.*?</\\1>"),
                                         QRegularExpression::DotMatchesEverythingOption | QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression tag(QStringLiteral("<[^>]*>"));
    t.remove(code);
    t.replace(tag, QStringLiteral(" "));
    if (t.contains(QLatin1Char('&'))) {
        QTextDocument d;
        d.setHtml(t);
        t = d.toPlainText();
    }
    t.remove(QStringLiteral("attention-is-all-you-need-pytorch"));  // a project's name
    t.remove(QChar(0x200B));  // a zero-width space that lets a long name wrap
    // The paper's name of the block and the norm placements' names, as Chinese courses keep them
    for (const char* term : {"Add & Norm", "post-norm", "pre-norm"}) t.remove(QLatin1String(term));
    static const QRegularExpression derivative(QStringLiteral("∂[A-Za-z_.]+"));
    t.remove(derivative);  // ∂loss/∂x is mathematics
    // Code and formulas: a call or an index (softmax(scores), PE(pos, 2i), z[t, target]), innermost
    // first; a shape's axes ([tgt_len, batch, d_model]); a keyword argument or axis size (dim=−1,
    // position=5).
    static const QRegularExpression call(QStringLiteral("\\b([A-Za-z_][A-Za-z0-9_.-]*|[A-Za-z]+_[A-Za-z0-9_.]*\\s)(\\([^()]*\\)|\\[[^\\[\\]]*\\])"));
    static const QRegularExpression axes(QStringLiteral("\\[[A-Za-z0-9_, =·*]*\\]|\\((?:[A-Za-z0-9_·]+, )+[A-Za-z0-9_·]+\\)"));
    static const QRegularExpression keyword(QStringLiteral("\\b[A-Za-z_]+="));
    for (int guard = 0; guard < 8 && t.contains(call); ++guard) t.replace(call, QStringLiteral(" "));
    t.remove(axes);
    t.remove(keyword);
    // Literal names: quoted keys, values and tokens ('bos', "relu"), command-line options
    // (--backend gpu), lists of keys in either language's brackets, package names (libvulkan-dev).
    static const QRegularExpression quoted(QStringLiteral("'[^'\\n]*'|\"[^\"\\n]*\""));
    static const QRegularExpression option(QStringLiteral("--[A-Za-z][A-Za-z-]*(\\s+[a-z]+\\b)?"));
    static const QRegularExpression keyList(QStringLiteral("[（(]\\s*[A-Za-z0-9_·]+(\\s*[,、]\\s*[A-Za-z0-9_·]+)+\\s*[）)]"));
    static const QRegularExpression package(QStringLiteral("\\b[a-z0-9.+]+-dev\\b"));
    // A file's absolute path (File › Open Recent's tips) is the user's data, not the UI's words.
    static const QRegularExpression path(QStringLiteral("(?<![\\w.])/[^\\s\"'<>]+"));
    t.remove(path);
    t.remove(quoted);
    t.remove(option);
    t.remove(keyList);
    t.remove(package);
    return t;
}

bool identifier(const QString& w) {
    for (int i = 0; i < w.size(); ++i) {
        const QChar c = w[i];
        if (c == QLatin1Char('_') || c == QLatin1Char('.') || c.isDigit() || c == QLatin1Char('[')) return true;
        if (i > 0 && c.isUpper()) return true;  // LayerNorm, in_projWeight, ReLU, GPU
    }
    return false;
}

struct Collector {
    const QSet<QString>& allowed;
    QStringList out;
    void check(const QString& where, const QString& text) {
        if (text.trimmed().isEmpty()) return;
        const QStringList words = englishWords(text, allowed);
        if (words.isEmpty()) return;
        QString shown = readable(text).simplified();
        if (shown.size() > 100) shown = shown.left(97) + QStringLiteral("...");
        out << QStringLiteral("%1: \"%2\" (%3)").arg(where, shown, words.join(QStringLiteral(", ")));
    }
};

void itemTexts(Collector& c, const QAbstractItemModel* m, const QModelIndex& parent, const QString& where, int& budget) {
    for (int r = 0; r < m->rowCount(parent) && budget > 0; ++r)
        for (int col = 0; col < m->columnCount(parent) && budget > 0; ++col, --budget) {
            const QModelIndex i = m->index(r, col, parent);
            c.check(where, i.data(Qt::DisplayRole).toString());
            c.check(where + QStringLiteral(" (tip)"), i.data(Qt::ToolTipRole).toString());
            if (col == 0 && m->hasChildren(i)) itemTexts(c, m, i, where, budget);
        }
}

}  // namespace

QSet<QString> namesAndCode() {
    return {QStringLiteral("Stepformer"), QStringLiteral("Karpathy"), QStringLiteral("idx"),
            // nanoGPT's identifiers: its modules, its attention's variable, its weights' attribute name
            QStringLiteral("wte"), QStringLiteral("wpe"), QStringLiteral("attn"), QStringLiteral("mlp"), QStringLiteral("att"),
            QStringLiteral("vocab"), QStringLiteral("weight"), QStringLiteral("tanh"), QStringLiteral("adamw"), QStringLiteral("PyTorch"), QStringLiteral("Python"), QStringLiteral("NumPy"), QStringLiteral("Eigen"), QStringLiteral("Vulkan"),
            QStringLiteral("lavapipe"), QStringLiteral("Mesa"), QStringLiteral("Qt"), QStringLiteral("Linguist"),
            QStringLiteral("softmax"), QStringLiteral("argmax"), QStringLiteral("logits"), QStringLiteral("exp"),
            QStringLiteral("log"), QStringLiteral("sqrt"), QStringLiteral("sin"), QStringLiteral("cos"),
            QStringLiteral("max"), QStringLiteral("min"), QStringLiteral("mean"), QStringLiteral("sum"),
            QStringLiteral("dropout"), QStringLiteral("torch"), QStringLiteral("nn"), QStringLiteral("Adam"),
            QStringLiteral("SGD"), QStringLiteral("safetensors"), QStringLiteral("logit"), QStringLiteral("src"), QStringLiteral("tgt"), QStringLiteral("temperature"), QStringLiteral("generator"),
            QStringLiteral("memory"), QStringLiteral("gamma"), QStringLiteral("beta"), QStringLiteral("eps"),
            QStringLiteral("dtype"), QStringLiteral("cpu"), QStringLiteral("gpu"), QStringLiteral("sgd"), QStringLiteral("adam"),
            QStringLiteral("Fortran"), QStringLiteral("glslc"), QStringLiteral("pad"), QStringLiteral("bos"), QStringLiteral("eos"), QStringLiteral("float"), QStringLiteral("bool"), QStringLiteral("pos"), QStringLiteral("seq"), QStringLiteral("grad"), QStringLiteral("nhead"), QStringLiteral("xavier"), QStringLiteral("npy"), QStringLiteral("csv"),
            QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("tsv"), QStringLiteral("pth"),
            QStringLiteral("json"), QStringLiteral("Transformer"), QStringLiteral("Linear"), QStringLiteral("Embedding"),
            QStringLiteral("Dropout"), QStringLiteral("Sequential"), QStringLiteral("Softmax"), QStringLiteral("relu"),
            QStringLiteral("gelu"), QStringLiteral("emb"), QStringLiteral("prj"), QStringLiteral("none"),
            QStringLiteral("true"), QStringLiteral("false"), QStringLiteral("inf"), QStringLiteral("nan"),
            QStringLiteral("ulp"), QStringLiteral("Ctrl"), QStringLiteral("Alt"), QStringLiteral("Shift"),
            QStringLiteral("Space"), QStringLiteral("Esc"), QStringLiteral("Enter"), QStringLiteral("Tab"),
            QStringLiteral("Home"), QStringLiteral("End"), QStringLiteral("PgUp"), QStringLiteral("PgDown"),
            QStringLiteral("Del"), QStringLiteral("Backspace"), QStringLiteral("English")};
}

QStringList englishWords(const QString& text, const QSet<QString>& allowed) {
    static const QRegularExpression token(QStringLiteral("[A-Za-z0-9_.\\[\\]]+"));
    static const QRegularExpression cut(QStringLiteral("^[.\\[\\]]+|[.\\[\\]]+$"));
    const QString t = readable(text);
    QStringList words;
    auto it = token.globalMatch(t);
    while (it.hasNext()) {
        QString w = it.next().captured();
        const bool attribute = w.startsWith(QLatin1Char('.')) && w.size() > 1 && w[1].isLetter();  // ".weight"
        w.remove(cut);  // a sentence's full stop, a bracket around a word
        if (attribute || w.size() < 3 || identifier(w) || allowed.contains(w) || allowed.contains(w.toLower())) continue;
        if (!words.contains(w)) words << w;
    }
    return words;
}

QStringList untranslatedTexts(QWidget* root, const QSet<QString>& allowed, bool cellTips) {
    Collector c{allowed, {}};
    QList<QWidget*> all = root->findChildren<QWidget*>();
    all.prepend(root);
    for (QWidget* w : all) {
        if (!w->isVisible()) continue;
        const QString where = nameOf(w);
        c.check(where + QStringLiteral(" (tip)"), w->toolTip());
        if (auto* l = qobject_cast<QLabel*>(w)) c.check(where, l->text());
        else if (auto* b = qobject_cast<QAbstractButton*>(w)) c.check(where, b->text());
        else if (auto* g = qobject_cast<QGroupBox*>(w)) c.check(where, g->title());
        else if (auto* d = qobject_cast<QDockWidget*>(w)) c.check(where, d->windowTitle());
        else if (auto* e = qobject_cast<QLineEdit*>(w)) c.check(where + QStringLiteral(" (placeholder)"), e->placeholderText());
        else if (auto* tb = qobject_cast<QTabBar*>(w)) {
            for (int i = 0; i < tb->count(); ++i) {
                c.check(where, tb->tabText(i));
                c.check(where + QStringLiteral(" (tip)"), tb->tabToolTip(i));
            }
        } else if (auto* cb = qobject_cast<QComboBox*>(w)) {
            for (int i = 0; i < cb->count(); ++i) {
                c.check(where, cb->itemText(i));
                c.check(where + QStringLiteral(" (tip)"), cb->itemData(i, Qt::ToolTipRole).toString());
            }
        } else if (auto* sb = qobject_cast<QSpinBox*>(w)) {
            c.check(where, sb->prefix() + QLatin1Char(' ') + sb->suffix() + QLatin1Char(' ') + sb->specialValueText());
        } else if (auto* h = qobject_cast<QHeaderView*>(w); h && h->model()) {
            for (int s = 0; s < h->count(); ++s) {
                c.check(where, h->model()->headerData(s, h->orientation(), Qt::DisplayRole).toString());
                c.check(where + QStringLiteral(" (tip)"), h->model()->headerData(s, h->orientation(), Qt::ToolTipRole).toString());
            }
        } else if (auto* hm = qobject_cast<HeatmapWidget*>(w)) {
            c.check(where + QStringLiteral(" (title)"), hm->title());
            c.check(where + QStringLiteral(" (row axis)"), hm->rowAxisTitle());
            c.check(where + QStringLiteral(" (column axis)"), hm->colAxisTitle());
            c.check(where + QStringLiteral(" (legend)"), hm->legendCaption());
            if (hm->isEmpty()) c.check(where + QStringLiteral(" (empty)"), hm->emptyMessage());
            else if (cellTips) {
                c.check(where + QStringLiteral(" (cell 0,0)"), hm->tooltipText(0, 0));
                c.check(where + QStringLiteral(" (last cell)"), hm->tooltipText(hm->rows() - 1, hm->cols() - 1));
            }
        } else if (auto* v = qobject_cast<QChartView*>(w); v && v->scene()) {
            for (QGraphicsItem* item : v->scene()->items()) {
                if (!item->isVisible()) continue;
                if (auto* t = dynamic_cast<QGraphicsTextItem*>(item)) c.check(where, t->toPlainText());
                else if (auto* s = dynamic_cast<QGraphicsSimpleTextItem*>(item)) c.check(where, s->text());
            }
        }
        if (auto* view = qobject_cast<QAbstractItemView*>(w); view && view->model()) {
            int budget = 3000;
            itemTexts(c, view->model(), view->rootIndex(), where, budget);
        }
    }
    c.out.removeDuplicates();
    return c.out;
}

QStringList untranslatedMenuTexts(const QMenu* menu, const QSet<QString>& allowed) {
    Collector c{allowed, {}};
    const QString where = QStringLiteral("menu ") + QString(menu->title()).remove(QLatin1Char('&'));
    c.check(where, menu->title());
    for (const QAction* a : menu->actions()) {
        if (a->isSeparator()) continue;
        c.check(where, a->text());
        c.check(where + QStringLiteral(" (tip)"), a->toolTip() == QString(a->text()).remove(QLatin1Char('&')) ? QString() : a->toolTip());
        c.check(where + QStringLiteral(" (status tip)"), a->statusTip());
        if (a->menu()) c.out << untranslatedMenuTexts(a->menu(), allowed);
    }
    c.out.removeDuplicates();
    return c.out;
}

}  // namespace testutil
