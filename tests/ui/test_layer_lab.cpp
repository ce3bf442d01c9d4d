// Seed 004's layer lab (Model › Layer Lab): the menu opens it; with seed 004's x and weights it
// shows the notebook's printed digits for the output and for `normalized` (norm1), as PyTorch
// prints them; an edited input recomputes; a bad .npy is refused and changes nothing; the
// decoder layer, its causal mask, fully masked rows, pre-norm gelu and the gradients show up as
// PyTorch 1.13 computes them (the decoder's numbers: resources/lab/make_seed004.py's print).
// With $STEPFORMER_SCREENSHOT_DIR set, screenshots() saves the window at 1366x768 and 1920x1080.
#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTreeWidget>

#include "app/main_window.h"
#include "app/appearance.h"
#include "lab/input_table.h"
#include "lab/lab_controls.h"
#include "lab/lab_model.h"
#include "lab/layer_lab_window.h"
#include "lab/step_detail.h"
#include "lab/tensor_table.h"
#include "lab/module_repr.h"
#include "stepformer/npy.h"
#include "stepformer/params.h"
#include "stepformer/safetensors.h"
#include "test_util.h"

using stepformer::Tensor;

namespace {

// Seed 004's prints (four decimals, PyTorch's format): the encoder layer's output and `normalized`.
const QStringList kOutput = {"-1.0328", "-0.9185", "0.6710", "1.2804", "-1.4175", "-0.1948",
                             "1.3775",  "0.2347",  "-1.0022", "-0.8035", "0.3029", "1.5028"};
const QStringList kNormalized = {"-0.9493", "-1.0434", "1.1045", "0.8881", "-1.0025", "-0.1531",
                                 "1.6511",  "-0.4955", "-1.0129", "-0.9286", "0.6342", "1.3073"};
const QString kOutputPrint = QStringLiteral(
    "tensor([[[-1.0328, -0.9185,  0.6710,  1.2804]],\n\n"
    "        [[-1.4175, -0.1948,  1.3775,  0.2347]],\n\n"
    "        [[-1.0022, -0.8035,  0.3029,  1.5028]]])\n"
    "torch.Size([3, 1, 4])");

// Every cell of the step's one table, row by row; empty with a reason when it is not one table.
QStringList cells(LayerLabWindow& w, QString* why) {
    const QList<TensorTable*>& t = w.detail()->tables();
    if (t.size() != 1) {
        *why = QStringLiteral("%1 tables for %2").arg(t.size()).arg(w.currentStep());
        return {};
    }
    QStringList out;
    for (int r = 0; r < t[0]->rowCount(); ++r)
        for (int c = 0; c < t[0]->columnCount(); ++c) out << t[0]->text(r, c);
    return out;
}

[[nodiscard]] QString stepShows(LayerLabWindow& w, const QString& step, const QStringList& want) {
    if (!w.selectStep(step)) return QStringLiteral("no step ") + step;
    QString why;
    const QStringList got = cells(w, &why);
    if (!why.isEmpty()) return why;
    if (got != want) return QStringLiteral("%1 shows %2, want %3").arg(step, got.join(' '), want.join(' '));
    return {};
}

QTreeWidgetItem* treeItem(LayerLabWindow& w, const QString& name) {
    QTreeWidget* t = w.stepTree();
    for (int g = 0; g < t->topLevelItemCount(); ++g)
        for (int i = 0; i < t->topLevelItem(g)->childCount(); ++i)
            if (t->topLevelItem(g)->child(i)->data(0, Qt::UserRole).toString() == name) return t->topLevelItem(g)->child(i);
    return nullptr;
}

QString printed(LayerLabWindow& w) { return w.detail()->printedText(); }

}  // namespace

class TestLayerLab : public QObject {
    Q_OBJECT
private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }
    void init() { QSettings().clear(); }
    void torchPrintIsPyTorchs();
    void menuEntryOpensTheLab();
    void seedOutputShowsThePrintedDigits();
    void norm1IsTheSeedsNormalized();
    void editingACellRecomputes();
    void malformedNpyKeepsTheInputs();
    void decoderLayerAppearsWhenChecked();
    void causalMaskAndFullyMaskedRows();
    void preNormGeluIsPyTorchs();
    void gradientsFollowTheForwardSteps();
    void opensAStateDict();
    void remembersItsGeometry();
    void keepsItsSizeWhateverItShows();
    void screenshots();
};

// PyTorch's _Formatter, checked against prints of PyTorch 1.13 itself.
void TestLayerLab::torchPrintIsPyTorchs() {
    const Tensor out({3, 1, 4}, {-1.03284f, -0.91853f, 0.67102f, 1.28036f, -1.41748f, -0.19477f, 1.37752f, 0.23472f,
                                 -1.00218f, -0.80354f, 0.30290f, 1.50283f});
    QCOMPARE(torchprint::repr(out) + '\n' + torchprint::sizeText(out.shape), kOutputPrint);
    // A tensor of whole numbers and -inf (a mask): "0." and "-inf", padded to one width.
    const float inf = std::numeric_limits<float>::infinity();
    QCOMPARE(torchprint::repr(Tensor({2, 2}, {0.0f, -inf, 0.0f, 0.0f})), QStringLiteral("tensor([[0., -inf],\n        [0., 0.]])"));
    // max / min over 1000: scientific, as the decoder's output prints (make_seed004.py).
    const torchprint::Formatter sci({1.6275f, -0.0010897f, 0.5f});
    QVERIFY(sci.scientific());
    QCOMPARE(sci.formatTrimmed(1.6275f), QStringLiteral("1.6275e+00"));
    QCOMPARE(sci.format(-0.0010897f), QStringLiteral("-1.0897e-03"));
    // nan in a fixed-point tensor: "nan", padded.
    QCOMPARE(torchprint::repr(Tensor({3}, {0.5f, std::nanf(""), -0.25f})), QStringLiteral("tensor([ 0.5000,     nan, -0.2500])"));
    // A row longer than 80 characters wraps as PyTorch wraps it (8 per line at width 7 + 2).
    const QString wide = torchprint::repr(Tensor({10}, std::vector<float>(10, 0.5f)));
    QCOMPARE(wide.count('\n'), 1);
    QVERIFY2(wide.contains(QStringLiteral("0.5000,\n        0.5000")), qPrintable(wide));
}

void TestLayerLab::menuEntryOpensTheLab() {
    QTemporaryDir cache;
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.preset = Session::Preset::Untrained;
    o.provisioning = Session::Provisioning::Never;
    o.cacheDir = cache.path();
    MainWindow mw(o);
    auto* act = mw.findChild<QAction*>(QStringLiteral("actionLayerLab"));
    QVERIFY(act);
    auto* menu = mw.findChild<QMenu*>(QStringLiteral("menuModel"));
    QVERIFY(menu && menu->actions().contains(act));
    QVERIFY(act->text().contains(QStringLiteral("nn.TransformerEncoderLayer")));
    QVERIFY(!mw.findChild<LayerLabWindow*>());
    act->trigger();
    auto* lab = mw.findChild<LayerLabWindow*>(QStringLiteral("layerLabWindow"));
    QVERIFY(lab);
    QVERIFY(lab->isVisible());
    QVERIFY(lab->isWindow());  // its own window, not a modal dialog
    QVERIFY(!lab->isModal());
    QCOMPARE(lab->currentStep(), QStringLiteral("encoder_layer.norm2"));
    lab->close();
    act->trigger();  // the same lab again, as the student left it
    QCOMPARE(mw.findChildren<LayerLabWindow*>().size(), 1);
    QVERIFY(lab->isVisible());
}

void TestLayerLab::seedOutputShowsThePrintedDigits() {
    LayerLabWindow w;
    QCOMPARE(w.currentStep(), QStringLiteral("encoder_layer.norm2"));  // opens on the output
    VERIFY_HELPER(stepShows(w, QStringLiteral("encoder_layer.norm2"), kOutput));
    QCOMPARE(printed(w), kOutputPrint);
    auto* seedName = w.detail()->findChild<QLabel*>(QStringLiteral("stepSeedName"));
    QVERIFY(seedName && seedName->isVisibleTo(w.detail()));
    QVERIFY2(seedName->text().contains(QStringLiteral("normalized2 = memory")), qPrintable(seedName->text()));
    auto* shape = w.detail()->findChild<QLabel*>(QStringLiteral("stepShape"));
    QVERIFY2(shape->text().contains(QStringLiteral("[3, 1, 4] = [seq_len, batch, d_model]")), qPrintable(shape->text()));
    // The input is the seed's x, as it prints it.
    VERIFY_HELPER(stepShows(w, QStringLiteral("src"),
                            {"0.3367", "0.1288", "0.2345", "0.2303", "-1.1229", "-0.1863", "2.2082", "-0.6380", "0.4617",
                             "0.2674", "0.5349", "0.8094"}));
    auto* status = w.findChild<QLabel*>(QStringLiteral("seedStatus"));
    QVERIFY(status->text().contains(QStringLiteral("Seed 004's setup")));
}

void TestLayerLab::norm1IsTheSeedsNormalized() {
    LayerLabWindow w;
    VERIFY_HELPER(stepShows(w, QStringLiteral("encoder_layer.norm1"), kNormalized));
    QTreeWidgetItem* item = treeItem(w, QStringLiteral("encoder_layer.norm1"));
    QVERIFY(item);
    QCOMPARE(item->text(1), QStringLiteral("normalized (2.2)"));
    QVERIFY(printed(w).startsWith(QStringLiteral("tensor([[[-0.9493, -1.0434,  1.1045,  0.8881]],")));
    // Every step in PyTorch's order, the attention's per head as [batch, head, ...] tables.
    QVERIFY(w.selectStep(QStringLiteral("encoder_layer.self_attn.attn")));
    QCOMPARE(w.detail()->tables().size(), 2);
    QCOMPARE(w.detail()->tables()[1]->objectName(), QStringLiteral("tensorTable_b0_h1"));
    QCOMPARE(w.detail()->tables()[0]->rowCount(), 3);
    QVERIFY(printed(w).endsWith(QStringLiteral("torch.Size([2, 3, 3])")));  // [batch·num_heads, L, L]
    auto* line = w.detail()->findChild<QLabel*>(QStringLiteral("stepTorchLine"));
    QVERIFY(w.selectStep(QStringLiteral("encoder_layer.self_attn.Q")));
    QVERIFY2(line->text().contains(QStringLiteral("in_proj_weight[0:4]")), qPrintable(line->text()));
}

void TestLayerLab::editingACellRecomputes() {
    LayerLabWindow w;
    QSignalSpy spy(w.model(), &LabModel::computed);
    auto* table = w.findChild<InputTable*>(QStringLiteral("srcTable"));
    QVERIFY(table);
    QCOMPARE(table->item(0, 0)->text(), QStringLiteral("0.3367"));
    table->item(table->rowOf(0, 0), 2)->setText(QStringLiteral("1.5"));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(w.model()->input(LabModel::Side::Src).at({0, 0, 2}), 1.5f);
    QCOMPARE(w.currentStep(), QStringLiteral("encoder_layer.norm2"));  // the step stays
    QString why;
    const QStringList now = cells(w, &why);
    QVERIFY2(why.isEmpty(), qPrintable(why));
    QVERIFY(now.mid(0, 4) != kOutput.mid(0, 4));  // position 0 changed...
    QCOMPARE(table->item(0, 2)->text(), QStringLiteral("1.5000"));
    QVERIFY(w.findChild<QLabel*>(QStringLiteral("seedStatus"))->text().startsWith(QStringLiteral("Not seed 004")));
    // Text that is not a number: refused, said, nothing recomputed.
    table->item(table->rowOf(1, 0), 0)->setText(QStringLiteral("abc"));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(table->item(table->rowOf(1, 0), 0)->text(), QStringLiteral("-1.1229"));
    QVERIFY(w.controls()->errorText().contains(QStringLiteral("not a number")));
}

void TestLayerLab::malformedNpyKeepsTheInputs() {
    LayerLabWindow w;
    QTemporaryDir dir;
    const QString bad = dir.filePath(QStringLiteral("broken.npy"));
    {
        QFile f(bad);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("\x93NUMPY\x01\x00garbage");
    }
    const Tensor before = w.model()->input(LabModel::Side::Src);
    QSignalSpy spy(w.model(), &LabModel::computed);
    QVERIFY(!w.controls()->loadInputNpy(false, bad));
    QVERIFY2(w.controls()->errorText().contains(QStringLiteral("broken.npy")), qPrintable(w.controls()->errorText()));
    QVERIFY(w.controls()->errorText().contains(QStringLiteral("unchanged")));
    QCOMPARE(spy.count(), 0);
    QCOMPARE(w.model()->input(LabModel::Side::Src).data, before.data);
    VERIFY_HELPER(stepShows(w, QStringLiteral("encoder_layer.norm2"), kOutput));
    // A well-formed array of the wrong width: refused, naming the shape and d_model.
    const QString wide = dir.filePath(QStringLiteral("wide.npy"));
    stepformer::write_npy(wide.toStdString(), Tensor({3, 1, 5}, 0.5f));
    QVERIFY(!w.controls()->loadInputNpy(false, wide));
    QVERIFY2(w.controls()->errorText().contains(QStringLiteral("[3, 1, 5]")) &&
                 w.controls()->errorText().contains(QStringLiteral("d_model = 4")),
             qPrintable(w.controls()->errorText()));
    QCOMPARE(w.model()->input(LabModel::Side::Src).data, before.data);
    // An unbatched [L, D] array loads as one sentence, and the error line goes.
    const QString good = dir.filePath(QStringLiteral("x2.npy"));
    stepformer::write_npy(good.toStdString(), Tensor({2, 4}, {1, 2, 3, 4, -1, 0, 1, 0}));
    QVERIFY(w.controls()->loadInputNpy(false, good));
    QCOMPARE(spy.count(), 1);
    QVERIFY(w.controls()->errorText().isEmpty());
    QCOMPARE(w.model()->length(LabModel::Side::Src), 2);
    QCOMPARE(w.model()->input(LabModel::Side::Src).shape, (stepformer::Shape{2, 1, 4}));
    QCOMPARE(w.findChild<QSpinBox*>(QStringLiteral("srcLenSpin"))->value(), 2);
}

void TestLayerLab::decoderLayerAppearsWhenChecked() {
    LayerLabWindow w;
    QVERIFY(!treeItem(w, QStringLiteral("decoder_layer.norm3")));
    auto* box = w.findChild<QCheckBox*>(QStringLiteral("decoderCheck"));
    QVERIFY(box);
    QVERIFY(!w.findChild<QWidget*>(QStringLiteral("tgtBox"))->isVisibleTo(&w));
    box->setChecked(true);
    QVERIFY2(w.model()->error().isEmpty(), qPrintable(w.model()->error()));
    QVERIFY(w.findChild<QWidget*>(QStringLiteral("tgtBox"))->isVisibleTo(&w));
    for (const char* step : {"tgt", "decoder_layer.self_attn.Q", "decoder_layer.multihead_attn.attn", "decoder_layer.norm3"})
        QVERIFY2(treeItem(w, QLatin1String(step)), step);
    QCOMPARE(treeItem(w, QStringLiteral("decoder_layer.norm3"))->text(1), QStringLiteral("output"));
    // The encoder's output is unchanged (it is the memory), the decoder's is PyTorch's (make_seed004.py).
    VERIFY_HELPER(stepShows(w, QStringLiteral("encoder_layer.norm2"), kOutput));
    QVERIFY(w.selectStep(QStringLiteral("decoder_layer.norm3")));
    QVERIFY2(printed(w).startsWith(QStringLiteral("tensor([[[ 1.6275e+00, -9.3254e-01, -6.9390e-01, -1.0897e-03]],\n\n"
                                                  "        [[-3.5772e-01, -9.3341e-01,  1.6865e+00, -3.9541e-01]],")),
             qPrintable(printed(w)));
    QVERIFY(printed(w).endsWith(QStringLiteral("torch.Size([5, 1, 4])")));
    // Cross-attention: 5 queries (tgt) over 3 keys (memory).
    QVERIFY(w.selectStep(QStringLiteral("decoder_layer.multihead_attn.attn")));
    QCOMPARE(w.detail()->tables()[0]->rowCount(), 5);
    QCOMPARE(w.detail()->tables()[0]->columnCount(), 3);
    box->setChecked(false);
    QVERIFY(!treeItem(w, QStringLiteral("decoder_layer.norm3")));
    QCOMPARE(w.currentStep(), QStringLiteral("encoder_layer.norm2"));
}

void TestLayerLab::causalMaskAndFullyMaskedRows() {
    LayerLabWindow w;
    w.findChild<QCheckBox*>(QStringLiteral("decoderCheck"))->setChecked(true);
    w.findChild<QCheckBox*>(QStringLiteral("causalCheck"))->setChecked(true);
    QVERIFY(w.selectStep(QStringLiteral("decoder_layer.self_attn.mask")));
    const TensorTable* mask = w.detail()->tables()[0];
    QCOMPARE(mask->text(0, 0), QStringLiteral("0."));
    QCOMPARE(mask->text(0, 1), QStringLiteral("-inf"));
    QCOMPARE(mask->text(4, 3), QStringLiteral("0."));
    QVERIFY(w.detail()->findChild<QLabel*>(QStringLiteral("stepLegend"))->isVisibleTo(w.detail()));
    QVERIFY(w.selectStep(QStringLiteral("decoder_layer.norm3")));
    QVERIFY2(printed(w).startsWith(QStringLiteral("tensor([[[ 1.6544, -0.4253, -1.0187, -0.2103]],")), qPrintable(printed(w)));
    // Every src position padded: each encoder query has no key left, softmax of all -inf is nan.
    auto* src = w.findChild<InputTable*>(QStringLiteral("srcTable"));
    for (int l = 0; l < 3; ++l) src->item(src->rowOf(l, 0), src->padColumn())->setCheckState(Qt::Checked);
    QVERIFY(w.model()->padded(LabModel::Side::Src, 0, 2));
    QVERIFY(w.selectStep(QStringLiteral("encoder_layer.self_attn.attn")));
    QCOMPARE(w.detail()->tables()[0]->text(1, 1), QStringLiteral("nan"));
    QVERIFY(w.detail()->findChild<QLabel*>(QStringLiteral("stepLegend"))->text().contains(QStringLiteral("nan")));
}

void TestLayerLab::preNormGeluIsPyTorchs() {
    LayerLabWindow w;
    w.findChild<QCheckBox*>(QStringLiteral("normFirstCheck"))->setChecked(true);
    w.findChild<QComboBox*>(QStringLiteral("activationCombo"))->setCurrentText(QStringLiteral("gelu"));
    // torch.manual_seed(42); x = randn(3, 1, 4); TransformerEncoderLayer(..., norm_first=True, activation="gelu")(x)
    QCOMPARE(w.currentStep(), QStringLiteral("encoder_layer.add2"));  // pre-norm ends on the residual
    QVERIFY2(printed(w).startsWith(QStringLiteral("tensor([[[ 0.4787,  0.2388, -0.0499,  0.8564]],\n\n"
                                                  "        [[-1.4502, -0.0477,  1.9473,  0.3825]],")),
             qPrintable(printed(w)));
    QVERIFY(treeItem(w, QStringLiteral("encoder_layer.activation")));
    QVERIFY(treeItem(w, QStringLiteral("encoder_layer.norm1"))->text(1).isEmpty());  // not the seed's `normalized`
}

void TestLayerLab::gradientsFollowTheForwardSteps() {
    LayerLabWindow w;
    QVERIFY(treeItem(w, QStringLiteral("grad.encoder_layer.norm1")));
    QVERIFY(treeItem(w, QStringLiteral("grad.src")));
    QVERIFY(w.selectStep(QStringLiteral("grad.encoder_layer.norm2")));
    QString why;
    const QStringList g = cells(w, &why);
    QCOMPARE(g.mid(0, 4), (QStringList{"1.", "0.", "0.", "0."}));  // d(output[..., 0].sum()) / d output
    w.findChild<QCheckBox*>(QStringLiteral("gradCheck"))->setChecked(false);
    QVERIFY(!treeItem(w, QStringLiteral("grad.src")));
}

// A bare state_dict (PyTorch's names, no config): the sizes come from its shapes, nhead from the lab.
void TestLayerLab::opensAStateDict() {
    LayerLabWindow w;
    QTemporaryDir dir;
    stepformer::Config c = stepformer::Config::seed004();
    c.d_model = 8;
    c.d_k = c.d_v = 4;
    c.d_ff = 16;
    const stepformer::ParamSet p = stepformer::init_params(c, 3);
    std::vector<stepformer::TensorToWrite> tensors;
    for (size_t i = 0; i < p.size(); ++i) tensors.push_back({p.name(i), &p[i]});
    const QString path = dir.filePath(QStringLiteral("layer8.safetensors"));
    stepformer::write_safetensors(path.toStdString(), tensors);
    // Not a safetensors file: refused, nothing changes.
    const QString junk = dir.filePath(QStringLiteral("junk.safetensors"));
    {
        QFile f(junk);
        QVERIFY(f.open(QIODevice::WriteOnly));
        f.write("nonsense");
    }
    QVERIFY(!w.controls()->loadWeights(junk));
    QVERIFY(w.controls()->errorText().contains(QStringLiteral("unchanged")));
    QCOMPARE(w.model()->dModel(), 4);
    VERIFY_HELPER(stepShows(w, QStringLiteral("encoder_layer.norm2"), kOutput));

    QVERIFY2(w.controls()->loadWeights(path), qPrintable(w.controls()->errorText()));
    QCOMPARE(w.model()->dModel(), 8);
    QCOMPARE(w.model()->config().d_ff, 16);
    QVERIFY2(w.model()->error().isEmpty(), qPrintable(w.model()->error()));
    QCOMPARE(w.findChild<InputTable*>(QStringLiteral("srcTable"))->columnCount(), 9);  // 8 features + pad
    QVERIFY(w.selectStep(QStringLiteral("encoder_layer.linear1")));
    QCOMPARE(w.detail()->tables()[0]->columnCount(), 16);
    const QString text = w.findChild<QLabel*>(QStringLiteral("weightsLabel"))->text();
    QVERIFY2(text.contains(QStringLiteral("layer8.safetensors")) && text.contains(QStringLiteral("nhead 2 assumed")), qPrintable(text));
    // With the decoder layer on, its weights (not in the file) are fresh ones of the same size.
    w.findChild<QCheckBox*>(QStringLiteral("decoderCheck"))->setChecked(true);
    QVERIFY2(w.model()->error().isEmpty(), qPrintable(w.model()->error()));
    QVERIFY(treeItem(w, QStringLiteral("decoder_layer.norm3")));
    // Seed 004's weights again: back to d_model 4 and the seed's x.
    QTest::mouseClick(w.findChild<QPushButton*>(QStringLiteral("seedWeightsButton")), Qt::LeftButton);
    QCOMPARE(w.model()->dModel(), 4);
    VERIFY_HELPER(stepShows(w, QStringLiteral("encoder_layer.norm2"), kOutput));
}

void TestLayerLab::remembersItsGeometry() {
    {
        LayerLabWindow w;
        w.resize(780, 560);  // within the offscreen platform's 800x800 screen (larger comes back fitted)
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        w.close();
    }
    LayerLabWindow again;
    QCOMPARE(again.size(), QSize(780, 560));
}

// The window keeps the size it was given whatever step it shows, at any zoom: its panels wrap and
// scroll. (Word-wrapped labels asked for their longest word's width — a step's dotted name — and
// the window grew to fit: the monkey test found one 23843 pixels wide.)
void TestLayerLab::keepsItsSizeWhateverItShows() {
    LayerLabWindow w;
    w.resize(1000, 700);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    w.findChild<QCheckBox*>(QStringLiteral("decoderCheck"))->setChecked(true);
    w.findChild<QCheckBox*>(QStringLiteral("gradCheck"))->setChecked(true);
    QTreeWidget* t = w.stepTree();
    int shown = 0;
    for (int zoom : {100, 200}) {
        Appearance::applyZoom(zoom);
        for (int g = 0; g < t->topLevelItemCount(); ++g)
            for (int i = 0; i < t->topLevelItem(g)->childCount(); ++i) {
                const QString name = t->topLevelItem(g)->child(i)->data(0, Qt::UserRole).toString();
                QVERIFY(w.selectStep(name));
                QCoreApplication::processEvents();  // the layouts' posted requests
                ++shown;
                QVERIFY2(w.size() == QSize(1000, 700),
                         qPrintable(QStringLiteral("%1 at zoom %2: %3x%4").arg(name).arg(zoom).arg(w.width()).arg(w.height())));
            }
    }
    Appearance::applyZoom(100);
    QVERIFY(shown > 60);  // the decoder layer's and the gradients' steps were among them
    // The long names still wrap inside the panel rather than being cut.
    QVERIFY(w.selectStep(QStringLiteral("grad.decoder_layer.multihead_attn.masked_scores")));
    auto* title = w.detail()->findChild<QLabel*>(QStringLiteral("stepTitle"));
    QVERIFY(title->text().remove(QChar(0x200b)) == QStringLiteral("grad.decoder_layer.multihead_attn.masked_scores"));
    // Squeezed, the panel keeps a readable width: the other panels give way first.
    Appearance::applyZoom(200);
    w.resize(900, 600);
    QCoreApplication::processEvents();
    const int chars = w.detail()->width() / w.detail()->fontMetrics().averageCharWidth();
    Appearance::applyZoom(100);
    QVERIFY2(chars >= 24, qPrintable(QStringLiteral("the step panel is %1 characters wide").arg(chars)));
}

void TestLayerLab::screenshots() {
    if (qEnvironmentVariableIsEmpty("STEPFORMER_SCREENSHOT_DIR")) QSKIP("STEPFORMER_SCREENSHOT_DIR is not set");
    for (const QSize size : {QSize(1366, 768), QSize(1920, 1080)}) {
        QSettings().clear();  // each size with its default layout
        LayerLabWindow w;
        w.resize(size);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        const QString tag = QStringLiteral("%1x%2").arg(size.width()).arg(size.height());
        QVERIFY(w.selectStep(QStringLiteral("encoder_layer.norm1")));
        QTest::qWait(50);  // the layouts' posted requests, as a user's event loop runs them
        testutil::saveShot(w, QStringLiteral("lab-%1-norm1.png").arg(tag));
        w.findChild<QCheckBox*>(QStringLiteral("decoderCheck"))->setChecked(true);
        w.findChild<QCheckBox*>(QStringLiteral("causalCheck"))->setChecked(true);
        QVERIFY(w.selectStep(QStringLiteral("decoder_layer.self_attn.masked_scores")));
        QTest::qWait(50);
        testutil::saveShot(w, QStringLiteral("lab-%1-decoder-masked.png").arg(tag));
        QVERIFY(w.selectStep(QStringLiteral("decoder_layer.norm3")));
        QTest::qWait(50);
        testutil::saveShot(w, QStringLiteral("lab-%1-decoder-out.png").arg(tag));
        // Two sentences: a table per batch element and head.
        w.findChild<QSpinBox*>(QStringLiteral("batchSpin"))->setValue(2);
        QTest::mouseClick(w.findChild<QPushButton*>(QStringLiteral("randomButton")), Qt::LeftButton);
        QVERIFY(w.selectStep(QStringLiteral("decoder_layer.multihead_attn.attn")));
        QTest::qWait(50);
        testutil::saveShot(w, QStringLiteral("lab-%1-batch2-cross-attn.png").arg(tag));
        QVERIFY(w.selectStep(QStringLiteral("grad.encoder_layer.linear1")));
        QTest::qWait(50);
        testutil::saveShot(w, QStringLiteral("lab-%1-batch2-grad.png").arg(tag));
    }
}

QTEST_MAIN(TestLayerLab)
#include "test_layer_lab.moc"
