// A tiny loss curve for the status bar while the model trains.
#pragma once

#include <QCoreApplication>

#include <vector>

#include <QWidget>

class LossSparkline : public QWidget {
    // Its texts in its own translation context (the one lupdate gives it), without a moc.
    Q_DECLARE_TR_FUNCTIONS(LossSparkline)

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
