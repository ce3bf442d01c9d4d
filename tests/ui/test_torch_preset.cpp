// PyTorch's nn.Transformer and attention-is-all-you-need-pytorch's model in the app: the "torch"
// and "aiayn" presets train on the tutorial's sentences and translate them, and the Train panel's
// form builds and trains those architectures.
#include <QtTest>

#include <QCheckBox>
#include <QComboBox>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>

#include "app/session.h"
#include "stepformer/model.h"
#include "stepformer/trace_graph.h"
#include "test_util.h"
#include "training/hyperparameter_form.h"
#include "training/results_table.h"
#include "training/training_panel.h"

using namespace stepformer;
using State = TrainingController::State;

class TestTorchPreset : public QObject {
    Q_OBJECT
private slots:
    void thePresetTrainsAndTranslates();
    void theFormBuildsPyTorchsArchitecture();
    void theTrainPanelTrainsIt();
    void theAiaynPresetTrainsAndTranslates();
    void theFormBuildsTheAiaynArchitecture();
};

void TestTorchPreset::thePresetTrainsAndTranslates() {
    QTemporaryDir dir;
    Session s;
    s.setCacheDir(dir.path());
    s.setProvisioning(Session::Provisioning::Synchronous);
    QVERIFY(Session::allPresets().contains(Session::Preset::Torch));
    QCOMPARE(Session::presetFromKey(QStringLiteral("torch")), std::optional(Session::Preset::Torch));
    QVERIFY(s.setPreset(Session::Preset::Torch));
    QVERIFY(s.config().torch());
    QCOMPARE(s.modelState(), Session::ModelState::Trained);
    QVERIFY(QFileInfo::exists(s.cachedModelPath(Session::Preset::Torch)));
    QCOMPARE(s.translate(QStringLiteral("ich mochte ein bier P")), QStringLiteral("i want a beer ."));
    QCOMPARE(s.translate(QStringLiteral("ich mochte ein cola P")), QStringLiteral("i want a coke ."));
    // The trace on screen is PyTorch's: its names, its gradients.
    const auto tr = s.trace();
    QVERIFY(tr);
    QVERIFY(!tr->contains("projection.probs"));
    QVERIFY(tr->contains("transformer.decoder.layers.1.multihead_attn.attn"));
    QVERIFY(tr->contains("grad.src_tok_emb.out"));
    QCOMPARE(QString::fromStdString(graph::output_probs(*tr)->name), QStringLiteral("generator.probs"));
    // Opened again from the cache, it is the same model.
    Session again;
    again.setCacheDir(dir.path());
    again.setProvisioning(Session::Provisioning::Never);
    QVERIFY(again.setPreset(Session::Preset::Torch));
    QCOMPARE(again.modelState(), Session::ModelState::Trained);
    QCOMPARE(again.translate(QStringLiteral("ich mochte ein cola P")), QStringLiteral("i want a coke ."));
}

void TestTorchPreset::theFormBuildsPyTorchsArchitecture() {
    HyperparameterForm f;
    auto* arch = f.findChild<QComboBox*>(QStringLiteral("architectureCombo"));
    auto* normFirst = f.findChild<QCheckBox*>(QStringLiteral("normFirstCheck"));
    auto* activation = f.findChild<QComboBox*>(QStringLiteral("activationCombo"));
    auto* dK = f.findChild<QSpinBox*>(QStringLiteral("dKSpin"));
    auto* heads = f.findChild<QSpinBox*>(QStringLiteral("headsSpin"));
    auto* learn = f.findChild<QCheckBox*>(QStringLiteral("learnLayerNormCheck"));
    QVERIFY(arch && normFirst && activation && dK && heads && learn);
    QVERIFY(!f.config().torch());
    f.applyPreset(HyperparameterForm::Preset::Torch);
    QCOMPARE(f.preset(), HyperparameterForm::Preset::Torch);
    Config c = f.config();
    QVERIFY(c.torch());
    QCOMPARE(c.d_k, c.d_model / c.n_heads);
    QCOMPARE(c.decoder_layers(), c.encoder_layers());
    QVERIFY(!dK->isEnabled());
    QVERIFY(learn->isChecked() && !learn->isEnabled());
    if (const QByteArray dir = qgetenv("STEPFORMER_SCREENSHOT_DIR"); !dir.isEmpty()) {  // for review
        normFirst->setChecked(true);
        f.resize(480, 640);
        f.show();
        QVERIFY(f.grab().save(QString::fromLocal8Bit(dir) + QStringLiteral("/form_torch.png")));
        normFirst->setChecked(false);
    }
    heads->setValue(8);  // 32 / 8: the head width follows
    QCOMPARE(dK->value(), 4);
    QCOMPARE(f.config().d_k, 4);
    QCOMPARE(f.preset(), HyperparameterForm::Preset::Custom);
    normFirst->setChecked(true);
    activation->setCurrentText(QStringLiteral("gelu"));
    c = f.config();
    QVERIFY(c.norm_first);
    QCOMPARE(c.activation, std::string("gelu"));
    QVERIFY(f.isValid());
    heads->setValue(5);  // 32 is not divisible by 5: PyTorch refuses, so does the form
    QVERIFY(!f.isValid());
    QVERIFY2(f.validationMessage().contains(QStringLiteral("divisible")), qPrintable(f.validationMessage()));
    arch->setCurrentIndex(arch->findData(int(Architecture::Tutorial)));
    QVERIFY(!f.config().torch());
    QVERIFY(dK->isEnabled() && !normFirst->isVisibleTo(&f));
}

void TestTorchPreset::theTrainPanelTrainsIt() {
    TrainingPanel p;
    p.resize(1200, 800);
    p.show();
    p.hyperparameters()->applyPreset(HyperparameterForm::Preset::Torch);
    QSignalSpy trained(&p, &TrainingPanel::modelTrained);
    QSignalSpy results(p.resultsTable(), &ResultsTable::resultsReady);
    QVERIFY(p.start());
    QVERIFY(testutil::waitForState(p, State::Finished));
    QCOMPARE(trained.count(), 1);
    const auto cfg = trained.at(0).at(0).value<Config>();
    QVERIFY(cfg.torch());
    QVERIFY(results.count() > 0 || results.wait(30000));
    QCOMPARE(p.resultsTable()->correctCount(), 2);
}

void TestTorchPreset::theAiaynPresetTrainsAndTranslates() {
    QTemporaryDir dir;
    Session s;
    s.setCacheDir(dir.path());
    s.setProvisioning(Session::Provisioning::Synchronous);
    QCOMPARE(Session::presetFromKey(QStringLiteral("aiayn")), std::optional(Session::Preset::Aiayn));
    QVERIFY(s.setPreset(Session::Preset::Aiayn));
    QVERIFY(s.config().aiayn());
    QCOMPARE(s.modelState(), Session::ModelState::Trained);
    QCOMPARE(s.translate(QStringLiteral("ich mochte ein bier P")), QStringLiteral("i want a beer ."));
    QCOMPARE(s.translate(QStringLiteral("ich mochte ein cola P")), QStringLiteral("i want a coke ."));
    const auto tr = s.trace();
    QVERIFY(tr);
    QVERIFY(tr->contains("decoder.layer_stack.1.enc_attn.q_scaled"));
    QVERIFY(tr->contains("grad.encoder.src_word_emb.out"));
    QCOMPARE(QString::fromStdString(graph::output_probs(*tr)->name), QStringLiteral("trg_word_prj.probs"));
    // Its projection shares the target embedding: one parameter, saved under both names.
    QVERIFY(s.params()->contains("decoder.trg_word_emb.weight"));
    QVERIFY(!s.params()->contains("trg_word_prj.weight"));
}

void TestTorchPreset::theFormBuildsTheAiaynArchitecture() {
    HyperparameterForm f;
    auto* arch = f.findChild<QComboBox*>(QStringLiteral("architectureCombo"));
    auto* dK = f.findChild<QSpinBox*>(QStringLiteral("dKSpin"));
    auto* learn = f.findChild<QCheckBox*>(QStringLiteral("learnLayerNormCheck"));
    QVERIFY(arch && dK && learn);
    f.applyPreset(HyperparameterForm::Preset::Aiayn);
    QCOMPARE(f.preset(), HyperparameterForm::Preset::Aiayn);
    QVERIFY(f.config().aiayn());
    QVERIFY(dK->isEnabled());  // d_k and d_v are its own arguments
    dK->setValue(5);
    QCOMPARE(f.config().d_k, 5);
    QVERIFY(learn->isChecked() && !learn->isEnabled());
    QVERIFY(f.isValid());
    arch->setCurrentIndex(arch->findData(int(Architecture::Tutorial)));
    QVERIFY(!f.config().aiayn());
    QVERIFY(learn->isEnabled());
}

QTEST_MAIN(TestTorchPreset)
#include "test_torch_preset.moc"
