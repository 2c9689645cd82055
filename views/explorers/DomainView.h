#pragma once
// The iteration-domain view: one statement's points on two chosen dimensions (sliders fix
// the others), coloured by tile, thread or vector lane, with tile outlines, dependence
// arrows (broken ones in red) and an execution-order scrubber that lights the points run
// so far. Points are painted by one item in batches, so a hundred thousand stay
// interactive; wheel zooms, drag pans; the picture exports to SVG and PNG.
#include <QWidget>

#include <memory>
#include <set>

#include "views/explorers/DomainPicture.h"
#include "views/explorers/SpaceService.h"

class QCheckBox;
class QComboBox;
class QGraphicsScene;
class QGraphicsView;
class QLabel;
class QLineEdit;
class QSlider;
class QVBoxLayout;

namespace tcs {

class PointsItem;

class DomainView : public QWidget {
  Q_OBJECT
 public:
  explicit DomainView(QWidget* parent = nullptr);

  void show_result(std::shared_ptr<const SpaceResult> result);
  // Shows `name`'s points (when this space has that statement) with a frame around them.
  void highlight_statement(const std::string& name);

  const DomainChoice& choice() const { return choice_; }
  void set_choice(const DomainChoice& c);
  const DomainPicture& picture() const { return picture_; }
  std::shared_ptr<const SpaceResult> result() const { return result_; }
  QGraphicsScene* scene() const { return scene_; }
  QGraphicsView* view() const { return view_; }
  QSlider* scrubber() const { return scrubber_; }
  QLineEdit* view_sizes_edit() const { return sizes_; }
  QLineEdit* what_if_edit() const { return what_if_; }
  QLabel* status() const { return status_; }
  QComboBox* statement_box() const { return statement_; }
  // The request the view's controls describe (view sizes, what-if schedule) for `outcome`.
  SpaceRequest request_for(std::shared_ptr<const CompileOutcome> outcome) const;
  bool export_to(const QString& path);  // .svg or .png by suffix
  void set_dark(bool dark);

 signals:
  // The view sizes or the what-if schedule changed: compute the space again.
  void request_changed();
  // A point was clicked: its statement (model name) and source statement.
  void point_clicked(const std::string& statement, int source_stmt);

 private:
  void fill_controls();
  void rebuild_sliders();
  void redraw();
  void clicked_at(QPointF scene_pos);

  std::shared_ptr<const SpaceResult> result_;
  DomainChoice choice_;
  DomainPicture picture_;
  QComboBox *statement_, *x_, *y_, *colour_;
  QCheckBox* all_deps_;
  QLineEdit *sizes_, *what_if_;
  QWidget* sliders_;
  QVBoxLayout* sliders_layout_;
  QSlider* scrubber_;
  QLabel *time_label_, *status_;
  QGraphicsScene* scene_;
  QGraphicsView* view_;
  PointsItem* item_ = nullptr;
  std::string highlighted_;
  bool filling_ = false;
  bool dark_ = false;
};

}  // namespace tcs
