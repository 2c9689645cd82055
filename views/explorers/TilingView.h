#pragma once
// The tiling explorer: a row per tiled (or tileable) band with a spin box per loop that
// sets its tile size, the kernel's quick time beside the one before the change, and per
// statement each tensor's footprint in one tile drawn against the host's L1 and L2 data
// caches, with packed tensors' copies beside them. A size change
// becomes a change of the kernel's options (its statements' own where they have them),
// which the window applies like any other; footprints are computed off the GUI thread.
#include <QWidget>

#include <memory>
#include <string>
#include <vector>

#include "options/MappingOptions.h"
#include "poly/ScheduleTree.h"
#include "support/HostCpu.h"
#include "views/explorers/QuickTime.h"

class QGridLayout;
class QLabel;
class QSpinBox;

namespace tcs {

class LatestJob;
struct CompileOutcome;

// A band a tile size applies to: the tiled band of the last pass, or the outermost band
// where nothing is tiled yet.
struct TilingBand {
  std::vector<std::string> statements;  // "S0", "S0_init"
  std::vector<int> loop_ids;
  std::vector<int64_t> sizes;  // per member; 0: whole (not tiled)
  bool tiled = false;
};
std::vector<TilingBand> tiling_bands(const ScheduleNode& root);

// `options` with `band`'s tile sizes set to `sizes` (0: whole, only after the last sized
// loop): in its statements' own options when each of them has a tile of its own, else in
// the kernel's tile, whose first entries every band without its own shares (entries past
// this band's loops stay for longer bands). Errors name what cannot be expressed.
Expected<MappingOptions> with_band_tiles(MappingOptions options, const TilingBand& band, const std::vector<int64_t>& sizes);

struct FootprintRow {
  std::string statement, tensor;  // tensor empty: the statement's total
  int64_t bytes = 0;
  int64_t packed_bytes = 0;  // a pack copies this much of the tensor per tile
};
// Per statement its tensors' footprints in one tile and their total (tile_footprints
// times the element size), and what each pack copies.
Expected<std::vector<FootprintRow>> footprint_rows(const CompileOutcome& outcome);

// The footprint bars on a logarithmic byte axis with the L1 and L2 lines.
class FootprintChart : public QWidget {
  Q_OBJECT
 public:
  explicit FootprintChart(QWidget* parent = nullptr);
  void set_rows(std::vector<FootprintRow> rows, HostCaches caches);
  const std::vector<FootprintRow>& rows() const { return rows_; }
  QRectF bar_rect(int row) const;    // the footprint bar of a row
  double x_of(int64_t bytes) const;  // where `bytes` falls on the axis
  // The fill of a row's bar: green within L1, amber within L2, red beyond.
  QColor bar_colour(int row) const;
  QSize sizeHint() const override;
  void set_dark(bool dark);

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  std::vector<FootprintRow> rows_;
  HostCaches caches_;
  bool dark_ = false;
};

class TilingView : public QWidget {
  Q_OBJECT
 public:
  explicit TilingView(QWidget* parent = nullptr);
  void show_outcome(std::shared_ptr<const CompileOutcome> outcome);
  const std::vector<TilingBand>& bands() const { return bands_; }
  QSpinBox* size_box(int band, int member) const;
  FootprintChart* chart() const { return chart_; }
  QLabel* status() const { return status_; }
  // This tiling's quick time, and the one before it.
  QLabel* time_label() const { return time_; }
  const QuickTime& time() const { return time_now_; }
  bool busy() const;
  void set_dark(bool dark) { chart_->set_dark(dark); }

 signals:
  void options_chosen(const MappingOptions& options);
  void footprints_shown();  // footprints and the quick time of the newest kernel are in

 private:
  void rebuild_bands();
  void sizes_edited(int band);

  std::shared_ptr<const CompileOutcome> outcome_;
  std::vector<TilingBand> bands_;
  std::vector<std::vector<QSpinBox*>> boxes_;
  QWidget* bands_widget_;
  QGridLayout* grid_;
  QLabel *status_, *caches_label_, *time_;
  QuickTime time_now_, time_before_;
  FootprintChart* chart_;
  LatestJob* job_;
  HostCaches caches_;
};

}  // namespace tcs
