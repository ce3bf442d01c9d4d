// Telling ThreadSanitizer about the synchronisation inside Qt, which is built without it: a
// QSemaphore, a queued call's trip through the event queue, a thread pool's queue. Where our code
// hands data to another thread through one of those, the sending side calls handOff(token) just
// before and the receiving side tookOver(token) as it starts; TSan then orders what came before
// the one before what comes after the other, as Qt does. Nothing at all in a normal build.
// (scripts/sanitize.sh thread; docs/reliability.md, "Sanitizers".)
#pragma once

#include <functional>
#include <utility>

#include <QEvent>

#if defined(__SANITIZE_THREAD__)
extern "C" void __tsan_acquire(void* addr);
extern "C" void __tsan_release(void* addr);
inline void handOff(const void* token) { __tsan_release(const_cast<void*>(token)); }
inline void tookOver(const void* token) { __tsan_acquire(const_cast<void*>(token)); }
#else
inline void handOff(const void*) {}
inline void tookOver(const void*) {}
#endif

// The token of the GUI thread's event queue: a worker posting a queued call hands off with it, and
// the app-wide event filter (DesktopHabits), which sees every event on the GUI thread first, takes
// over with it.
inline const void* guiEventQueue() {
    static const char token = 0;
    return &token;
}

// A call for the GUI thread from a worker, as a posted event. QMetaObject::invokeMethod makes its
// event inside Qt, after any hand-off its caller could make; this one is made, its function moved
// in, before the hand-off, so TSan sees the whole call ordered before it runs. The receiver's
// event() runs it (TrainingController::event).
class GuiCall : public QEvent {
public:
    static QEvent::Type eventType() {
        static const int type = QEvent::registerEventType();
        return QEvent::Type(type);
    }
    explicit GuiCall(std::function<void()> f) : QEvent(eventType()), f_(std::move(f)) {}
    void run() {
        tookOver(guiEventQueue());
        f_();
    }

private:
    std::function<void()> f_;
};
