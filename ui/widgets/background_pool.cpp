#include "widgets/background_pool.h"

#include <algorithm>

#include <QCoreApplication>
#include <QPointer>
#include <QThread>
#include <QThreadPool>

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
