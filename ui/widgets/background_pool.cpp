#include "widgets/background_pool.h"

#include "stepformer/compute_threads.h"

#include <algorithm>
#include <cerrno>

#include <QCoreApplication>
#include <QPointer>
#include <QThread>
#include <QThreadPool>

#ifdef __linux__
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

QThreadPool* backgroundPool() {
    // A child of the application: its destructor waits for the work still running, before the
    // application goes (as Qt waits for its global pool).
    static QPointer<QThreadPool> pool;
    if (!pool) {
        pool = new QThreadPool(QCoreApplication::instance());
        pool->setMaxThreadCount(std::max(1, QThread::idealThreadCount()));
        pool->setObjectName(QStringLiteral("stepformerBackgroundPool"));
    }
    return pool;
}

void lowerThreadPriority() {
#ifdef __linux__
    thread_local bool lowered = false;
    if (lowered) return;
    lowered = true;
    // On Linux, setpriority on a thread id changes that thread alone (QThread::LowPriority does
    // nothing under the default scheduler). Lowering is always allowed.
    const auto tid = static_cast<id_t>(syscall(SYS_gettid));
    errno = 0;
    const int nice = getpriority(PRIO_PROCESS, tid);
    if (errno == 0) setpriority(PRIO_PROCESS, tid, std::min(nice + 5, 19));
#endif
}

ReleaseThreadTeam::~ReleaseThreadTeam() { stepformer::release_thread_team(); }
