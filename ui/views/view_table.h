// The main window's central tabs, in tab order: each view's name (the command line's --view, the
// settings, the View menu's actions), its tab title and tooltip, how to make it, and the roles of
// the trace entries it is the home of (Follow Step switches to it for them).
#pragma once

#include <vector>

#include <QString>

#include "stepformer/trace.h"

class QWidget;
class StepView;

struct ViewInfo {
    const char* name;     // "tensor", "attention", ...
    const char* title;    // translated in the context "MainWindow" (viewTitle)
    const char* toolTip;  // likewise (viewToolTip)
    StepView* (*make)(QWidget* parent);
    std::vector<stepformer::Role> homeRoles;
};

const std::vector<ViewInfo>& viewTable();

// The view's index in the table: its name in any case and with spaces around, or "backward"
// for "gradients"; -1 when no view has that name.
int viewIndex(const QString& name);
// The view that is the home of entries of `role`: the one listing it, else the tensor view.
int homeView(stepformer::Role role);

QString viewTitle(const ViewInfo& v);
QString viewToolTip(const ViewInfo& v);
