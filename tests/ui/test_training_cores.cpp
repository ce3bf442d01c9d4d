// A training run holds the cores (stepformer/compute_threads.h) from its start to its end: the
// GUI thread's and the background pool's kernels run on one thread meanwhile, so that no idle
// OpenMP team of theirs makes the run's threads sleep between kernels; the run's own thread keeps
// its team; and when the run ends, everyone computes with every thread again. It holds the heap's
// speed policy too (stepformer/heap.h), and the app's memory policy comes back when it ends.
#include <QtTest>

#include <QSignalSpy>

#include <climits>

#include "stepformer/compute_threads.h"
#include "stepformer/dataset.h"
#include "stepformer/heap.h"
#include "training/training_controller.h"
#include "widgets/background_pool.h"

using namespace stepformer;

class TestTrainingCores : public QObject {
    Q_OBJECT
private slots:
    void theRunHoldsTheCoresUntilItEnds();
    void aSynchronousRunComputesWithEveryThread();
    void theRunHoldsTheHeapsSpeedPolicyUntilItEnds();
};

void TestTrainingCores::theRunHoldsTheCoresUntilItEnds() {
    QCOMPARE(thread_team_limit(), INT_MAX);
    const Config c = Config::small();
    TrainingController t;
    TrainOptions o;
    o.epochs = 1000000;  // cannot end by itself before the first report is checked and stops it
    int guiLimit = 0, poolLimit = 0;
    bool checked = false;
    connect(&t, &TrainingController::stepReported, this, [&] {
        if (checked) return;
        checked = true;
        guiLimit = thread_team_limit();
        poolLimit = runInBackground([] { return thread_team_limit(); }).result();
        t.stop();
    });
    QSignalSpy finished(&t, &TrainingController::finished);
    QString error;
    QVERIFY2(t.start(c, TrainingController::StartPoint{}, builtin_examples(c), o, &error), qPrintable(error));
    QCOMPARE(thread_team_limit(), 1);  // from the start on, before the run's thread has begun
    QVERIFY(finished.wait(120000));
    QVERIFY(checked);
    QCOMPARE(guiLimit, 1);
    QCOMPARE(poolLimit, 1);
    QCOMPARE(thread_team_limit(), INT_MAX);
    QCOMPARE(runInBackground([] { return thread_team_limit(); }).result(), INT_MAX);
}

// Synchronous (the benchmark's, the tests'), the run is on this thread: it keeps every thread.
void TestTrainingCores::aSynchronousRunComputesWithEveryThread() {
    const Config c = Config::small();
    TrainingController t;
    t.setSynchronous(true);
    TrainOptions o;
    o.epochs = 2;
    QList<int> limits;
    connect(&t, &TrainingController::stepReported, this, [&] { limits << thread_team_limit(); });
    QString error;
    QVERIFY2(t.start(c, TrainingController::StartPoint{}, builtin_examples(c), o, &error), qPrintable(error));
    QVERIFY(!limits.isEmpty());
    for (int limit : limits) QCOMPARE(limit, INT_MAX);
    QCOMPARE(thread_team_limit(), INT_MAX);
}

void TestTrainingCores::theRunHoldsTheHeapsSpeedPolicyUntilItEnds() {
    set_heap_policy(HeapPolicy::Memory);  // the app's (Session's)
    const Config c = Config::small();
    TrainingController t;
    TrainOptions o;
    o.epochs = 1000000;
    // The reports delivered after stop() may come after the job ended (its last ones arrive with
    // its outcome, once the hold is given up): the ones before it cannot.
    QList<HeapPolicy> during;
    connect(&t, &TrainingController::stepReported, this, [&] {
        if (during.size() == 3) return;
        during << heap_policy_in_effect();
        if (during.size() == 3) t.stop();
    });
    QSignalSpy finished(&t, &TrainingController::finished);
    QString error;
    QVERIFY2(t.start(c, TrainingController::StartPoint{}, builtin_examples(c), o, &error), qPrintable(error));
    QCOMPARE(heap_policy_in_effect(), HeapPolicy::Speed);  // from the start on
    QVERIFY(finished.wait(120000));
    QCOMPARE(during.size(), 3);
    for (HeapPolicy p : during) QCOMPARE(p, HeapPolicy::Speed);
    QCOMPARE(heap_policy_in_effect(), HeapPolicy::Memory);
    set_heap_policy(HeapPolicy::Speed);
}

QTEST_MAIN(TestTrainingCores)
#include "test_training_cores.moc"
