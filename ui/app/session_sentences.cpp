// Session: the sentences shown, set at once (setSentences) or, for the input bar, computed on a
// worker (requestSentences) so that typing never stalls the GUI thread for a pass.
#include "app/session.h"
#include "app/core_text.h"
#include "widgets/background_pool.h"

#include <QFutureWatcher>

#include "stepformer/devices.h"
#include "stepformer/model.h"

using namespace stepformer;

// What a worker hands back: the pass, or what went wrong, of one request on one model.
struct Session::SentenceOutcome {
    SentenceRequest request;
    std::shared_ptr<const Transformer> model;
    std::shared_ptr<const SentencePass> pass;
    std::exception_ptr error;  // rethrown on the GUI thread, where the messages are made
};

bool Session::setSentences(const QString& source, const QString& target) {
    ++sentenceRequest_;  // supersedes a requested pass still computing
    queuedSentences_.reset();
    QString err;
    if (!recompute(source, target, &err)) {
        emit inputRejected(err);
        return false;
    }
    wantedSource_ = source_;
    wantedTarget_ = target_;
    presetPass_->want(source_, target_);
    emit inputAccepted();
    emit traceChanged();
    return true;
}

void Session::requestSentences(const QString& source, const QString& target) {
    if (provisioning_ != Provisioning::Background || !model_) {
        setSentences(source, target);
        return;
    }
    const quint64 id = ++sentenceRequest_;
    queuedSentences_.reset();
    QString err;
    if (!checkSentences(source, target, &err)) {
        emit inputRejected(err);  // and a pass still computing is of older sentences: dropped
        return;
    }
    wantedSource_ = source;  // what a model switch from now on computes
    wantedTarget_ = target;
    presetPass_->want(source, target);
    queuedSentences_ = SentenceRequest{source, target, id};
    if (!passInFlight_) startSentencePass();  // else it starts when the one computing is done
}

void Session::startSentencePass() {
    if (!sentenceWatcher_) {
        sentenceWatcher_ = new QFutureWatcher<std::shared_ptr<SentenceOutcome>>(this);
        connect(sentenceWatcher_, &QFutureWatcherBase::finished, this, &Session::sentencePassDone);
    }
    auto outcome = std::make_shared<SentenceOutcome>();
    outcome->request = *queuedSentences_;
    outcome->model = model_;
    queuedSentences_.reset();
    passInFlight_ = true;
    sentenceWatcher_->setFuture(runInBackground([outcome] {
        try {
            const Transformer& m = *outcome->model;
            outcome->pass = std::make_shared<const SentencePass>(
                computePass(m, m.config(), outcome->request.source, outcome->request.target));
        } catch (...) {
            outcome->error = std::current_exception();
        }
        return outcome;
    }));
}

void Session::sentencePassDone() {
    passInFlight_ = false;
    const std::shared_ptr<SentenceOutcome> o = sentenceWatcher_->result();
    if (queuedSentences_) {  // newer sentences waited for this pass: theirs is the one to show
        startSentencePass();
        return;
    }
    if (!o || o->request.id != sentenceRequest_) return;  // superseded (set, rejected or reset since)
    if (o->model != model_) {  // the model changed meanwhile: the same sentences on the new one
        if (o->request.source != source_ || o->request.target != target_)  // (unless its switch computed them)
            requestSentences(o->request.source, o->request.target);
        return;
    }
    if (o->pass) {
        adopt(*o->pass);
        emit inputAccepted();
        emit traceChanged();
        return;
    }
    try {
        std::rethrow_exception(o->error);
    } catch (const DeviceLost& e) {
        fallBackToCpu(coreText(e));  // a new model on the CPU, the same weights
        emit modelChanged();
        requestSentences(o->request.source, o->request.target);  // and the sentences again, there
    } catch (const ConfigError& e) {
        emit inputRejected(coreText(e));
    } catch (const std::exception& e) {
        emit inputRejected(tr("The forward pass failed: %1").arg(coreText(e)));
    }
}
