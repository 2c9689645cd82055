#pragma once
// The fusion explorer: one card per outer-fusion strategy, side by side. Each card draws
// the statements in execution order with their fused groups outlined and an arrow from
// each producer to its consumers, lists the loop structure, and shows a quick measured
// time; Adopt makes that strategy the kernel's. The three variants are compiled and timed
// off the GUI thread, one after another, each card filling in as its variant arrives.
#include <QWidget>

#include <array>
#include <memory>

#include "views/explorers/FusionChoices.h"

class QLabel;
class QPlainTextEdit;
class QPushButton;
class QCheckBox;

namespace tcs {

class LatestJob;

// The statement graph of one variant, painted: boxes stacked in execution order, a
// rounded outline around each fused group, arrows on the right from producer to consumer.
class StatementGraphWidget : public QWidget {
  Q_OBJECT
 public:
  explicit StatementGraphWidget(QWidget* parent = nullptr);
  void set_graph(const StatementGraph* graph, std::vector<std::string> labels);
  QRect node_rect(int node) const;
  QRect group_rect(int group) const;
  QSize sizeHint() const override;
  void set_dark(bool dark);

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::optional<StatementGraph> graph_;
  std::vector<std::string> labels_;
  bool dark_ = false;
};

class FusionView : public QWidget {
  Q_OBJECT
 public:
  explicit FusionView(QWidget* parent = nullptr);

  // Explores `outcome`'s kernel: again only when the kernel (fusion aside) changed; the card
  // of the strategy in use is marked either way.
  void explore(std::shared_ptr<const CompileOutcome> outcome);
  bool busy() const;
  // The variants received so far (strategy order; empty until each arrives).
  const std::array<std::optional<FusionVariant>, 3>& variants() const { return variants_; }
  StatementGraphWidget* graph(int card) const { return cards_[size_t(card)].graph; }
  QPushButton* adopt_button(int card) const { return cards_[size_t(card)].adopt; }
  QLabel* time_label(int card) const { return cards_[size_t(card)].time; }
  QPlainTextEdit* loops(int card) const { return cards_[size_t(card)].loops; }
  QCheckBox* time_box() const { return time_; }
  void set_dark(bool dark);

 signals:
  // The user chose a strategy's options (every other option as they were).
  void adopt(const MappingOptions& options);
  void explored();  // every variant of the newest request has arrived

 private:
  struct Card {
    QLabel* title;
    StatementGraphWidget* graph;
    QPlainTextEdit* loops;
    QLabel* time;
    QPushButton* adopt;
  };
  void show_variant(int card);
  void mark_in_use();

  std::array<Card, 3> cards_;
  std::array<std::optional<FusionVariant>, 3> variants_;
  QCheckBox* time_;
  QLabel* status_;
  LatestJob* job_;
  std::shared_ptr<const CompileOutcome> outcome_;
  std::string key_;
  FusionStrategy in_use_ = FusionStrategy::Max;
};

}  // namespace tcs
