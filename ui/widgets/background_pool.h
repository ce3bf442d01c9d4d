// The thread pool for the app's own background work (a decode of a large model, the results
// table's passes): QtConcurrent::run(backgroundPool(), ...).
//
// Why not Qt's global pool: Qt 6.4's raster engine splits large antialiased or translucent fills
// over the global pool and waits for its threads. Work of ours that fills the global pool would
// stall every such paint of the GUI thread until it finished (the monkey test saw the event loop
// blocked ~200 ms that way, in the architecture diagram's and the attention lines' paints).
#pragma once

class QThreadPool;

QThreadPool* backgroundPool();
