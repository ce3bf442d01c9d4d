// nanoGPT in the app: the "gpt" preset trains on the toy lines and continues them; the input bar
// shows one text field; the Decode view generates from the text's first two words; the Train
// panel's form builds the architecture with AdamW.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>

#include "app/input_bar.h"
#include "app/main_window.h"
#include "app/session.h"
#include "stepformer/trace_graph.h"
#include "widgets/heatmap_widget.h"
#include "test_util.h"
#include "training/hyperparameter_form.h"
#include "views/decode_view.h"

using namespace stepformer;

class TestGptPreset : public QObject {
    Q_OBJECT
private slots:
    void thePresetTrainsAndContinuesTheToyLines();
    void theWindowShowsOneTextFieldAndGenerates();
    void theFormBuildsNanoGptWithAdamW();

private:
    QTemporaryDir dir_;
};

void TestGptPreset::thePresetTrainsAndContinuesTheToyLines() {
    Session s;
    s.setCacheDir(dir_.path());
    s.setProvisioning(Session::Provisioning::Synchronous);
    QCOMPARE(Session::presetFromKey(QStringLiteral("gpt")), std::optional(Session::Preset::Gpt));
    QVERIFY(s.setPreset(Session::Preset::Gpt));
    QCOMPARE(s.config().architecture, Architecture::Gpt);
    QCOMPARE(s.modelState(), Session::ModelState::Trained);
    // Prompted with the start of a toy line no other line shares, it says the rest.
    QCOMPARE(s.translate(QStringLiteral("S you want")), QStringLiteral("a cold beer ."));
    QCOMPARE(s.translate(QStringLiteral("S i like cold")), QStringLiteral("beer ."));
    QVERIFY(s.setSentences(QString(), QStringLiteral("S i like tea .")));  // no source: none is read
    const auto tr = s.trace();
    QVERIFY(tr);
    QVERIFY(tr->contains("transformer.h.1.attn.bias"));
    QVERIFY(tr->contains("grad.transformer.wpe.out"));
    QCOMPARE(QString::fromStdString(graph::output_probs(*tr)->name), QStringLiteral("lm_head.probs"));
    QVERIFY(s.params()->contains("transformer.wte.weight"));
    QVERIFY(!s.params()->contains("lm_head.weight"));  // tied: one parameter
    QCOMPARE(s.decodeInput(), QStringLiteral("S i"));
}

void TestGptPreset::theWindowShowsOneTextFieldAndGenerates() {
    MainWindow::Options o;
    o.restoreSettings = false;
    o.saveSettings = false;
    o.provisioning = Session::Provisioning::Synchronous;
    o.cacheDir = dir_.path();
    o.preset = Session::Preset::Gpt;
    MainWindow w(o);
    w.resize(1366, 768);
    w.show();
    QVERIFY(QTest::qWaitForWindowExposed(&w));
    auto* source = w.findChild<QWidget*>(QStringLiteral("sourceEdit"));
    auto* target = w.findChild<QWidget*>(QStringLiteral("targetEdit"));
    QVERIFY(source && target);
    QVERIFY(!source->isVisible());
    QVERIFY(target->isVisible());
    auto* decode = w.findChild<DecodeView*>();
    QVERIFY(decode);
    QVERIFY(decode->waitForDecode(30000));
    QCOMPARE(decode->source(), QStringLiteral("S i"));
    auto* header = w.findChild<QLabel*>(QStringLiteral("decodeSourceLabel"));
    QVERIFY(header);
    QVERIFY2(header->text().contains(QStringLiteral("Prompt")), qPrintable(header->text()));
    testutil::saveShot(w, QStringLiteral("gpt_window.png"));

    // On a large screen the heads' thumbnails keep their size: the chosen head's frame is around
    // it, not down the whole column.
    w.resize(2560, 1440);
    w.setFollowStep(false);
    QVERIFY(w.setCurrentView(QStringLiteral("attention")));
    QVERIFY(w.setCurrentStep(QStringLiteral("transformer.h.0.attn.attn")));
    auto* thumbs = w.findChild<QWidget*>(QStringLiteral("headThumbs"));
    QVERIFY(thumbs);
    QTRY_VERIFY(thumbs->isVisible() && !thumbs->findChildren<HeatmapWidget*>().isEmpty());
    for (HeatmapWidget* t : thumbs->findChildren<HeatmapWidget*>()) {
        if (!t->isVisible()) continue;
        QVERIFY2(t->height() <= t->sizeHint().height() + 4,
                 qPrintable(QStringLiteral("a head's thumbnail %1 px tall (wants %2)").arg(t->height()).arg(t->sizeHint().height())));
    }
}

void TestGptPreset::theFormBuildsNanoGptWithAdamW() {
    HyperparameterForm f;
    auto* dFf = f.findChild<QSpinBox*>(QStringLiteral("dFfSpin"));
    auto* opt = f.findChild<QComboBox*>(QStringLiteral("optimizerCombo"));
    QVERIFY(dFf && opt);
    f.applyPreset(HyperparameterForm::Preset::Gpt);
    QCOMPARE(f.preset(), HyperparameterForm::Preset::Gpt);
    const Config c = f.config();
    QCOMPARE(c.architecture, Architecture::Gpt);
    QCOMPARE(c.d_ff, 4 * c.d_model);
    QVERIFY(!dFf->isEnabled());  // the MLP is 4 · n_embd wide
    const TrainOptions t = f.trainOptions();
    QCOMPARE(t.optimizer.kind, OptimizerKind::AdamW);
    QCOMPARE(t.optimizer.beta2, 0.95);
    QCOMPARE(t.optimizer.weight_decay, 0.1);
    QVERIFY(f.isValid());
}

QTEST_MAIN(TestGptPreset)
#include "test_gpt_preset.moc"
