#include "widgets/offthread_paint.h"

#include <QPainter>
#include <QSemaphore>
#include <QThreadPool>

#include "widgets/thread_handoff.h"

QImage paintImageInPool(QSize size, qreal dpr, const std::function<void(QPainter&)>& paint) {
    QImage image((QSizeF(size) * dpr).toSize(), QImage::Format_ARGB32_Premultiplied);
    image.setDevicePixelRatio(dpr);
    image.fill(Qt::transparent);
    if (image.isNull()) return image;
    auto run = [&image, &paint] {
        QPainter p(&image);
        paint(p);
    };
    QSemaphore done;
    // tryStart: never wait for a busy pool (another task could take long); paint here instead.
    handOff(&done);
    if (QThreadPool::globalInstance()->tryStart([&] {
            tookOver(&done);
            run();
            handOff(&done);
            done.release();
        })) {
        done.acquire();
        tookOver(&done);
    } else {
        run();
    }
    return image;
}
