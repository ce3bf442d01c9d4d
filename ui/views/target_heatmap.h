// A heatmap that outlines one cell per row: the target token of each position in the loss view.
#pragma once

#include <vector>

#include "widgets/heatmap_widget.h"

class TargetHeatmap : public HeatmapWidget {
public:
    using HeatmapWidget::HeatmapWidget;
    void setTargets(std::vector<int> cols);

protected:
    void paintEvent(QPaintEvent* e) override;

private:
    std::vector<int> targets_;
};
