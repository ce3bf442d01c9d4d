// The layout check (issue 14): the main window at a laptop's 1366×768 and at 1920×1080 walks the
// forward steps (one of each role and block kind) in every central view and fails on what a
// student cannot read: a title or label drawn shortened ("…", the elision log), text a label has
// no room for, a heatmap that skips labels of an axis of at most 16 entries or needs sideways
// scrolling at "Fit", a view that scrolls sideways, a widget drawn outside its parent and
// overlapping sibling widgets. Each failure names the view, the step, the widget and the text.
//
// Every model is walked (issue 29): the tutorial's at 1366×768 and 1920×1080, PyTorch's
// nn.Transformer and attention-is-all-you-need-pytorch at 1366×768. Besides the layout, the walk
// fails on what shows a view not made for the model: a placeholder saying there is nothing to
// show ("has no …", "for this model") in the central view, an explanation page of another
// model (a page quoting the tutorial's code for another model, or the other way round), and a
// tensor map whose size or axis titles disagree with the step's shape. Seed 004's layer (the
// layer lab's model) is walked in the lab's window, forward and backward.
//
// The tutorial's model has its shapes where the layout depends on them (d_model 512, d_ff 2048,
// 8 heads, src_len 5, tgt_len 6) and one layer, so it is made in a moment (untrained: the
// layout does not depend on what the numbers are); the others are their small presets. The attention view is walked in both its
// modes; its "All layers" grid is also checked with the tutorial's six layers.
#include <QAbstractScrollArea>
#include <QApplication>
#include <QLabel>
#include <QScrollArea>
#include <QScrollBar>
#include <QSet>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QCheckBox>
#include <QTreeWidget>

#include "app/language.h"
#include "app/main_window.h"
#include "lab/layer_lab_window.h"
#include "app/session.h"
#include "explain/explain_panel.h"
#include "stepformer/model_io.h"
#include "stepformer/params.h"
#include "steps/step_model.h"
#include "steps/tensor_slice.h"
#include "steps/step_navigator.h"
#include "views/attention_overview.h"
#include "views/attention_view.h"
#include "views/tensor_view.h"
#include "views/view_table.h"
#include "widgets/elision_log.h"
#include "widgets/heatmap_widget.h"
#include "test_util.h"
#include "text_probes.h"

namespace {

// "peView > QSplitter > peTableHeatmap": where a widget is, by the names on its way up.
QString pathOf(const QWidget* w, const QWidget* root) {
    QStringList parts;
    for (; w && w != root->parentWidget(); w = w->parentWidget()) {
        const QString name = w->objectName().isEmpty() ? QString::fromLatin1(w->metaObject()->className()) : w->objectName();
        if (name.startsWith(QLatin1String("qt_"))) continue;  // a scroll area's inner parts
        parts.prepend(name);
    }
    return parts.join(QStringLiteral(" > "));
}

bool inside(const QWidget* w, const QWidget* root) {
    for (; w; w = w->parentWidget())
        if (w == root) return true;
    return false;
}

// The widget's content scrolls inside its parent (a scroll area's viewport): it may be larger.
bool scrolledContent(const QWidget* w) {
    const QWidget* p = w->parentWidget();
    const auto* area = p ? qobject_cast<const QAbstractScrollArea*>(p->parentWidget()) : nullptr;
    return area && area->viewport() == p;
}

// Which widget makes `w` as wide as it is at least: the chain of the widest minimums below it.
QString widestMinimum(const QWidget* w, const QWidget* root) {
    QStringList chain;
    for (int depth = 0; w && depth < 8; ++depth) {
        const QWidget* widest = nullptr;
        for (const QObject* o : w->children())
            if (auto* k = qobject_cast<const QWidget*>(o); k && k->isVisible() && !k->isWindow())
                if (!widest || k->minimumSizeHint().width() > widest->minimumSizeHint().width()) widest = k;
        if (!widest) break;
        chain << QStringLiteral("%1 (%2)").arg(pathOf(widest, root).section(QStringLiteral(" > "), -1))
                     .arg(widest->minimumSizeHint().width());
        w = widest;
    }
    return chain.join(QStringLiteral(" > "));
}

QString shortText(QString t) {
    t.replace(QLatin1Char('\n'), QLatin1Char(' '));
    return t.size() > 90 ? t.left(87) + QStringLiteral("...") : t;
}

// What a student could not read in `root` (a view as shown now), one line each.
QStringList layoutProblems(QWidget* root) {
    QStringList out;
    elision_log::take();
    (void)root->grab();  // paints every visible widget; their elisions are noted
    for (const auto& r : elision_log::take())
        if (r.widget && inside(r.widget, root))
            out << QStringLiteral("elided: %1: \"%2\" drawn as \"%3\"").arg(pathOf(r.widget, root), shortText(r.text), r.shown);
    out << testutil::clippedControlTexts(root);  // what Qt's controls and Qt Charts shorten themselves

    // The main window puts each view in a scroll area: the view itself must fit in it.
    for (QWidget* a = root->parentWidget(); a; a = a->parentWidget())
        if (auto* area = qobject_cast<QScrollArea*>(a))
            for (QScrollBar* bar : {area->horizontalScrollBar(), area->verticalScrollBar()})
                if (bar->isVisible())
                    out << QStringLiteral("the view scrolls %1 (it needs %2x%3, has %4x%5; widest: %6)")
                               .arg(bar->orientation() == Qt::Horizontal ? QStringLiteral("sideways") : QStringLiteral("up and down"))
                               .arg(root->minimumSizeHint().width()).arg(root->minimumSizeHint().height())
                               .arg(area->viewport()->width()).arg(area->viewport()->height())
                               .arg(widestMinimum(root, root));

    const QList<QWidget*> all = root->findChildren<QWidget*>();
    for (QWidget* w : all) {
        if (!w->isVisible() || w->isWindow()) continue;
        const QString where = pathOf(w, root);
        if (auto* hm = qobject_cast<HeatmapWidget*>(w); hm && !hm->isEmpty()) {
            if (hm->rows() <= 16 && hm->rowLabelStep() > 1)
                out << QStringLiteral("thinned row labels (%1 rows, every %2th): %3 \"%4\"")
                           .arg(hm->rows()).arg(hm->rowLabelStep()).arg(where, hm->title());
            if (hm->cols() <= 16 && hm->colLabelStep() > 1)
                out << QStringLiteral("thinned column labels (%1 columns, every %2th): %3 \"%4\"")
                           .arg(hm->cols()).arg(hm->colLabelStep()).arg(where, hm->title());
            if (hm->zoom() == 1.0 && hm->rows() <= 16 && hm->verticalScrollBar()->isVisible() &&
                hm->verticalScrollBar()->maximum() > 0)  // a bar left visible over no range hides nothing
                out << QStringLiteral("hides some of its %1 rows behind a scroll bar (%2x%3, minimum %4x%5): %6 \"%7\"")
                           .arg(hm->rows()).arg(hm->width()).arg(hm->height())
                           .arg(hm->minimumSizeHint().width()).arg(hm->minimumSizeHint().height()).arg(where, hm->title());
            if (hm->zoom() == 1.0 && hm->horizontalScrollBar()->isVisible())
                out << QStringLiteral("does not fit at Fit (%1 columns of %2 px scroll sideways in %3 px; %4x%5, minimum %6x%7): %8 \"%9\"")
                           .arg(hm->cols()).arg(hm->cellWidth()).arg(hm->viewport()->width())
                           .arg(hm->width()).arg(hm->height()).arg(hm->minimumSizeHint().width()).arg(hm->minimumSizeHint().height())
                           .arg(where, hm->title());
        } else if (auto* area = qobject_cast<QScrollArea*>(w); area && area->horizontalScrollBar()->isVisible()) {
            out << QStringLiteral("scrolls sideways: %1 (content %2 px in %3 px; widest: %4)")
                       .arg(where).arg(area->widget() ? area->widget()->width() : 0).arg(area->viewport()->width())
                       .arg(widestMinimum(area->widget(), root));
        }
        if (auto* label = qobject_cast<QLabel*>(w); label && !label->text().isEmpty() && label->pixmap().isNull()) {
            const bool cut = label->wordWrap() ? label->heightForWidth(label->width()) > label->height() + 1
                                               : label->sizeHint().width() > label->width() + 1;
            if (cut)
                out << QStringLiteral("label without room for its text (%1x%2, wants %3): %4 \"%5\"")
                           .arg(label->width()).arg(label->height())
                           .arg(label->wordWrap() ? QStringLiteral("height %1").arg(label->heightForWidth(label->width()))
                                                  : QStringLiteral("width %1").arg(label->sizeHint().width()))
                           .arg(where, shortText(label->text()));
        }
        QWidget* parent = w->parentWidget();
        if (w != root && parent && !scrolledContent(w) && !QRect(QPoint(0, 0), parent->size()).contains(w->geometry()))
            out << QStringLiteral("outside its parent (%1 in %2x%3): %4")
                       .arg(QStringLiteral("%1,%2 %3x%4").arg(w->x()).arg(w->y()).arg(w->width()).arg(w->height()))
                       .arg(parent->width()).arg(parent->height()).arg(where);
    }
    // Overlapping siblings.
    for (QWidget* p : QList<QWidget*>{root} + all) {
        if (!p->isVisible() || qobject_cast<QAbstractScrollArea*>(p)) continue;
        QList<QWidget*> kids;
        for (QObject* o : p->children())
            if (auto* k = qobject_cast<QWidget*>(o); k && k->isVisible() && !k->isWindow()) kids << k;
        for (int i = 0; i < kids.size(); ++i)
            for (int j = i + 1; j < kids.size(); ++j)
                if (kids[i]->geometry().intersects(kids[j]->geometry()))
                    out << QStringLiteral("overlapping siblings: %1 and %2").arg(pathOf(kids[i], root), pathOf(kids[j], root));
    }
    return out;
}

// What shows that a view or a text was not made for the model shown, one line each.
QStringList modelProblems(QWidget* view, const ExplainPanel* explain, const QString& model) {
    QStringList out;
    for (const QLabel* label : view->findChildren<QLabel*>()) {
        if (!label->isVisible()) continue;
        const QString t = label->text();
        for (const char* placeholder : {"has no ", "for this model", "not available for"})
            if (t.contains(QLatin1String(placeholder), Qt::CaseInsensitive))
                out << QStringLiteral("a placeholder instead of the view: %1 \"%2\"").arg(pathOf(label, view), shortText(t));
    }
    const QString page = explain->markdown();
    const bool tutorial = model == QLatin1String("tutorial");
    if (!tutorial && page.contains(QLatin1String("In the tutorial")))
        out << QStringLiteral("the explanation quotes the tutorial's code: \"%1\"").arg(shortText(page.section(QLatin1String("In the tutorial"), 1)));
    if (model != QLatin1String("aiayn") && page.contains(QLatin1String("In the project**")))
        out << QStringLiteral("the explanation is attention-is-all-you-need-pytorch's: \"%1\"").arg(shortText(page));
    return out;
}

// The tensor view's map of the step itself has the step's last two axes: as many rows and
// columns as its shape says (a count the view made up, as the PE view's positions once were,
// shows here), and axis titles that name them.
int shapesChecked = 0;  // how many maps shapeProblems compared (the walk asserts it is not none)
QStringList shapeProblems(QWidget* view, const stepformer::Trace& tr, const QString& step) {
    auto* tv = qobject_cast<TensorView*>(view);
    const stepformer::TraceEntry* e = tr.find(step.toStdString());
    if (!tv || !e || e->value.rank() < 2) return {};
    const HeatmapWidget* out = tv->outputHeatmap();
    if (!out || out->isEmpty() || !out->isVisible()) return {};
    const int R = e->value.rank();
    // (A batch axis is the one the sentence picker slices: one row, the picked sentence.)
    const bool rowPicked = e->axes[size_t(R - 2)].kind == stepformer::AxisKind::Batch;
    const int rows = rowPicked ? 1 : int(e->value.dim(R - 2)), cols = int(e->value.dim(R - 1));
    ++shapesChecked;
    QStringList out2;
    if (out->rows() != rows || out->cols() != cols)
        out2 << QStringLiteral("the map of %1 is %2x%3, its shape's last axes %4x%5")
                    .arg(step).arg(out->rows()).arg(out->cols()).arg(rows).arg(cols);
    // Its axis titles name the step's own axes ("len_q · query token" for an axis len_q).
    const QString rowAxis = QString::fromStdString(e->axes[size_t(R - 2)].name);
    const QString colAxis = QString::fromStdString(e->axes[size_t(R - 1)].name);
    // (In Chinese the word "position" is translated: its axis title then is tensorviz::axisTitle's.)
    const auto names = [](const QString& title, const stepformer::Axis& a, const QString& name) {
        return title.contains(name) || title == tensorviz::axisTitle(a);
    };
    if ((!rowPicked && !names(out->rowAxisTitle(), e->axes[size_t(R - 2)], rowAxis)) ||
        !names(out->colAxisTitle(), e->axes[size_t(R - 1)], colAxis))
        out2 << QStringLiteral("the map of %1 has the axes \"%2\" × \"%3\", its shape's last axes are %4 × %5")
                    .arg(step, out->rowAxisTitle(), out->colAxisTitle(), rowAxis, colAxis);
    return out2;
}

}  // namespace

class TestViewLayout : public QObject {
    Q_OBJECT
private slots:
    void initTestCase();
    void cleanupTestCase();
    void everyViewWholeAtEveryStep_data();
    void everyViewWholeAtEveryStep();
    void attentionOverviewOfSixLayers_data();
    void attentionOverviewOfSixLayers();
    void layerLabWholeAtEveryStep_data();
    void layerLabWholeAtEveryStep();

private:
    // A window on `weights` that neither reads nor writes settings and opens the file at once.
    MainWindow::Options windowOptions(const QString& weights) const;
    // Shows `w` at `size` with Follow Step off (the views stay as the test sets them).
    [[nodiscard]] static QString showAt(MainWindow& w, QSize size);

    QTemporaryDir dir_;
    QString weights_;
    QString torchWeights_, aiaynWeights_, gptWeights_;
    QString sixLayers_;  // the tutorial's model itself (untrained)
};

void TestViewLayout::initTestCase() {
    QStandardPaths::setTestModeEnabled(true);
    QSettings().clear();
    QVERIFY(dir_.isValid());
    qputenv("STEPFORMER_CACHE_DIR", dir_.path().toUtf8());
    stepformer::Config c = stepformer::Config::tutorial();
    c.n_layers = 1;
    c.dropout = 0.0;
    weights_ = dir_.filePath(QStringLiteral("layout.safetensors"));
    stepformer::save_weights(weights_.toStdString(), c, stepformer::init_params(c, 7));
    const stepformer::Config torch = stepformer::Config::torch_small(), aiayn = stepformer::Config::aiayn_small();
    torchWeights_ = dir_.filePath(QStringLiteral("torch.safetensors"));
    stepformer::save_weights(torchWeights_.toStdString(), torch, stepformer::init_params(torch, 7));
    aiaynWeights_ = dir_.filePath(QStringLiteral("aiayn.safetensors"));
    stepformer::save_weights(aiaynWeights_.toStdString(), aiayn, stepformer::init_params(aiayn, 7));
    const stepformer::Config gpt = stepformer::Config::gpt_small();
    gptWeights_ = dir_.filePath(QStringLiteral("gpt.safetensors"));
    stepformer::save_weights(gptWeights_.toStdString(), gpt, stepformer::init_params(gpt, 7));
    const stepformer::Config six = stepformer::Config::tutorial();
    QCOMPARE(six.n_layers, 6);
    sixLayers_ = dir_.filePath(QStringLiteral("six.safetensors"));
    stepformer::save_weights(sixLayers_.toStdString(), six, stepformer::init_params(six, 7));
    elision_log::setRecording(true);
}

void TestViewLayout::cleanupTestCase() { elision_log::setRecording(false); }

MainWindow::Options TestViewLayout::windowOptions(const QString& weights) const {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.weightsPath = weights;
    o.provisioning = Session::Provisioning::Synchronous;
    o.cacheDir = dir_.path();
    return o;
}

QString TestViewLayout::showAt(MainWindow& w, QSize size) {
    if (w.session()->modelState() != Session::ModelState::FromFile) return QStringLiteral("the weights file did not open");
    w.setFollowStep(false);
    w.resize(size);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return QStringLiteral("the window was not exposed");
    return {};
}

void TestViewLayout::everyViewWholeAtEveryStep_data() {
    QTest::addColumn<QSize>("size");
    QTest::addColumn<QString>("model");
    QTest::addColumn<QString>("lang");
    const QString en = QStringLiteral("en"), zh = QStringLiteral("zh_CN");
    QTest::newRow("tutorial 1366x768") << QSize(1366, 768) << QStringLiteral("tutorial") << en;
    QTest::newRow("tutorial 1920x1080") << QSize(1920, 1080) << QStringLiteral("tutorial") << en;
    QTest::newRow("torch 1366x768") << QSize(1366, 768) << QStringLiteral("torch") << en;
    QTest::newRow("aiayn 1366x768") << QSize(1366, 768) << QStringLiteral("aiayn") << en;
    QTest::newRow("gpt 1366x768") << QSize(1366, 768) << QStringLiteral("gpt") << en;
    // Chinese text is shorter but taller (issue 30): every model again, in Chinese.
    QTest::newRow("tutorial 1366x768 zh_CN") << QSize(1366, 768) << QStringLiteral("tutorial") << zh;
    QTest::newRow("torch 1366x768 zh_CN") << QSize(1366, 768) << QStringLiteral("torch") << zh;
    QTest::newRow("aiayn 1366x768 zh_CN") << QSize(1366, 768) << QStringLiteral("aiayn") << zh;
    QTest::newRow("gpt 1366x768 zh_CN") << QSize(1366, 768) << QStringLiteral("gpt") << zh;
}

void TestViewLayout::everyViewWholeAtEveryStep() {
    QFETCH(QSize, size);
    QFETCH(QString, model);
    QFETCH(QString, lang);
    QVERIFY(language::apply(lang, false));
    struct English {
        ~English() { language::apply(QStringLiteral("en"), false); }
    } backToEnglish;
    MainWindow w(windowOptions(model == QLatin1String("torch")   ? torchWeights_
                               : model == QLatin1String("aiayn") ? aiaynWeights_
                               : model == QLatin1String("gpt")   ? gptWeights_
                                                                 : weights_));
    VERIFY_HELPER(showAt(w, size));
    QCOMPARE(w.size(), size);

    // One step of each role in each kind of block and stack (the steps of the other layers and
    // heads are laid out alike).
    const auto trace = w.navigator()->model()->trace();
    QVERIFY(trace);
    QStringList steps;
    QSet<QString> kinds;
    for (const QString& s : w.navigator()->model()->stepOrder()) {
        const stepformer::TraceEntry* e = trace->find(s.toStdString());
        if (!e) continue;
        const QString kind = QStringLiteral("%1/%2/%3").arg(int(e->role)).arg(int(e->block.kind)).arg(int(e->block.stack));
        if (kinds.contains(kind)) continue;
        kinds.insert(kind);
        steps << s;
    }
    QVERIFY(steps.size() > 20);

    QStringList failures;
    int checked = 0;
    shapesChecked = 0;
    for (const ViewInfo& v : viewTable()) {
        QString view = QLatin1String(v.name);
        QVERIFY(w.setCurrentView(view));
        auto* attention = qobject_cast<AttentionView*>(w.currentViewWidget());
        // The attention view in both modes: its own layer, then every layer at once.
        for (const auto mode : {AttentionView::Mode::OneLayer, AttentionView::Mode::AllLayers}) {
            if (!attention && mode != AttentionView::Mode::OneLayer) continue;
            if (attention) {
                attention->setMode(mode);
                view = QLatin1String(v.name) + QStringLiteral("/") + AttentionView::modeKey(mode);
            }
            for (const QString& step : steps) {
                QVERIFY(w.setCurrentStep(step));
                QApplication::processEvents();  // the layout settles (a view reflows after a resize)
                QApplication::processEvents();
                testutil::saveShot(w, QStringLiteral("%1-%2x%3-%4-%5.png").arg(lang == QLatin1String("en") ? model : model + QLatin1Char('-') + lang).arg(size.width()).arg(size.height()).arg(QString(view).replace(QLatin1Char('/'), QLatin1Char('-')), step));
                for (const QString& p : layoutProblems(w.currentViewWidget()) + modelProblems(w.currentViewWidget(), w.explainPanel(), model) +
                                            shapeProblems(w.currentViewWidget(), *trace, step))
                    failures << QStringLiteral("[%1 %2 %3 %4] %5").arg(model, lang, view, step, p);
                ++checked;
            }
        }
        if (attention) attention->setMode(AttentionView::Mode::OneLayer);
    }
    QVERIFY(checked > 100);
    QVERIFY2(shapesChecked > 15, qPrintable(QStringLiteral("the tensor view's maps were compared with %1 shapes").arg(shapesChecked)));
    failures.removeDuplicates();
    for (const QString& f : failures) qWarning("%s", qPrintable(f));
    QVERIFY2(failures.isEmpty(), qPrintable(QStringLiteral("%1 problems with %2 at %3x%4, the first: %5")
                                                .arg(failures.size()).arg(model).arg(size.width()).arg(size.height())
                                                .arg(failures.value(0))));
}

void TestViewLayout::attentionOverviewOfSixLayers_data() {
    QTest::addColumn<QSize>("size");
    QTest::newRow("1366x768") << QSize(1366, 768);
    QTest::newRow("1920x1080") << QSize(1920, 1080);
}

// The tutorial's 6 layers x 8 heads (+ the mean) of each attention block at once: whole at a
// laptop's size (scrolling down where the layers do not fit, never sideways).
void TestViewLayout::attentionOverviewOfSixLayers() {
    QFETCH(QSize, size);
    MainWindow w(windowOptions(sixLayers_));
    VERIFY_HELPER(showAt(w, size));
    QVERIFY(w.setCurrentView(QStringLiteral("attention")));
    auto* attention = qobject_cast<AttentionView*>(w.currentViewWidget());
    QVERIFY(attention);
    attention->setMode(AttentionView::Mode::AllLayers);
    QStringList failures;
    for (const char* step : {"encoder.layers.0.enc_self_attn.attn", "decoder.layers.3.dec_self_attn.attn",
                             "decoder.layers.5.dec_enc_attn.attn"}) {
        QVERIFY(w.setCurrentStep(QLatin1String(step)));
        QApplication::processEvents();
        QApplication::processEvents();
        QCOMPARE(attention->shownStep(), QLatin1String(step));
        QCOMPARE(attention->overview()->layerCount(), 6);
        QCOMPARE(attention->overview()->headCount(), 8);
        testutil::saveShot(w, QStringLiteral("%1x%2-attention-all-six-%3.png").arg(size.width()).arg(size.height()).arg(QLatin1String(step)));
        for (const QString& p : layoutProblems(w.currentViewWidget()))
            failures << QStringLiteral("[attention/all %1] %2").arg(QLatin1String(step), p);
    }
    failures.removeDuplicates();
    for (const QString& f : failures) qWarning("%s", qPrintable(f));
    QVERIFY2(failures.isEmpty(), qPrintable(QStringLiteral("%1 layout problems at %2x%3, the first: %4")
                                                .arg(failures.size()).arg(size.width()).arg(size.height())
                                                .arg(failures.value(0))));
}

// Seed 004's model, PyTorch's nn.TransformerEncoderLayer (and its decoder layer), is shown in the
// layer lab's own window: every step of it, forward and backward, at 1366x768, whole and without
// a placeholder.
void TestViewLayout::layerLabWholeAtEveryStep_data() {
    QTest::addColumn<QString>("lang");
    QTest::newRow("en") << QStringLiteral("en");
    QTest::newRow("zh_CN") << QStringLiteral("zh_CN");
}

void TestViewLayout::layerLabWholeAtEveryStep() {
    QFETCH(QString, lang);
    QVERIFY(language::apply(lang, false));
    struct English {
        ~English() { language::apply(QStringLiteral("en"), false); }
    } backToEnglish;
    LayerLabWindow lab;
    auto* decoder = lab.findChild<QCheckBox*>(QStringLiteral("decoderCheck"));
    QVERIFY(decoder);
    decoder->setChecked(true);
    auto* grads = lab.findChild<QCheckBox*>(QStringLiteral("gradCheck"));
    QVERIFY(grads);
    grads->setChecked(true);
    lab.resize(1366, 768);
    lab.show();
    QVERIFY(QTest::qWaitForWindowExposed(&lab));
    QStringList steps;
    QTreeWidget* tree = lab.stepTree();
    for (int g = 0; g < tree->topLevelItemCount(); ++g)
        for (int i = 0; i < tree->topLevelItem(g)->childCount(); ++i)
            steps << tree->topLevelItem(g)->child(i)->data(0, Qt::UserRole).toString();
    QVERIFY2(steps.size() > 60 && steps.contains(QStringLiteral("grad.encoder_layer.self_attn.scores")),
             qPrintable(steps.join(u' ')));
    QStringList failures;
    for (const QString& step : steps) {
        QVERIFY(lab.selectStep(step));
        QApplication::processEvents();
        QApplication::processEvents();
        testutil::saveShot(lab, QStringLiteral("lab-%1-1366x768-%2.png").arg(lang, step));
        for (const QString& p : layoutProblems(lab.centralWidget()))
            failures << QStringLiteral("[lab %1] %2").arg(step, p);
        for (const QLabel* label : lab.findChildren<QLabel*>())
            if (label->isVisible() && (label->text().contains(QLatin1String("for this model")) ||
                                       label->text().contains(QLatin1String("not available for"))))
                failures << QStringLiteral("[lab %1] a placeholder: \"%2\"").arg(step, shortText(label->text()));
    }
    failures.removeDuplicates();
    for (const QString& f : failures) qWarning("%s", qPrintable(f));
    QVERIFY2(failures.isEmpty(), qPrintable(QStringLiteral("%1 problems in the layer lab, the first: %2")
                                                .arg(failures.size()).arg(failures.value(0))));
}

QTEST_MAIN(TestViewLayout)
#include "test_view_layout.moc"
