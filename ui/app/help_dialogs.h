// The Help menu's dialogs: the keyboard shortcuts and About Stepformer.
#pragma once

#include <QCoreApplication>
#include <QString>

class QWidget;

class HelpDialogs {
    Q_DECLARE_TR_FUNCTIONS(HelpDialogs)

public:
    static void showShortcuts(QWidget* parent);  // non-modal
    // cacheDir: where the trained presets are cached.
    static void showAbout(QWidget* parent, const QString& cacheDir);
};
