// A tiny loss curve for the status bar while the model trains.
#pragma once

#include <vector>

#include <QWidget>

class LossSparkline : public QWidget {
public:
    explicit LossSparkline(QWidget* parent = nullptr);
    void clear();
    void add(double loss);
    int count() const { return int(losses_.size()); }

protected:
    void paintEvent(QPaintEvent*) override;

private:
    std::vector<double> losses_;
};
