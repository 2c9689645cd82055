#pragma once
// Ansor's two levels on our one options table. A *sketch* is a candidate's structure,
// derived once per kernel from its statements: the fusion strategy, which loops are tiled
// and whether a register tile sits inside, which operands are packed (transposed or not),
// per-statement tiling where a kernel has several contractions. Its *annotations* are the
// numbers inside: tile sizes drawn from the factorisations of each loop's extent, register
// tile rows and vector columns sized for the host's registers, the order of the point
// loops outside the register tile, the unroll factor, the vector width, pack depths, the
// parallel loop. Sketches start from the presets (which read the kernel's class, layout
// and sizes) and vary their structure.
#include <random>
#include <string>
#include <vector>

#include "kernel/KernelSetup.h"
#include "options/MappingOptions.h"

namespace tcs::tuner {

struct Sketch {
  std::string name;      // "contraction, Min fusion, register tile, packs B": for people
  MappingOptions base;   // the structure; sample() redraws the numbers in it
};

class SketchSpace {
 public:
  explicit SketchSpace(const KernelSetup& kernel);

  const std::vector<Sketch>& sketches() const { return sketches_; }
  // Fresh annotations on sketch `s`: every number redrawn, the structure kept.
  MappingOptions sample(std::mt19937_64& rng, const Sketch& s) const;
  // One annotation of `parent` changed (Ansor's weights: mostly a tile size, moved to a
  // neighbouring factor of its loop's extent or redrawn; else two point loops swapped, the
  // register tile, the unroll factor, a pack's depth, the parallel loop or the vector
  // width). Any options are accepted, not only those sampled here.
  MappingOptions mutate(std::mt19937_64& rng, const MappingOptions& parent) const;

  // The sizes a tile of a loop with this extent is drawn from: its divisors up to 1024 and
  // the powers of two below it (a partial last tile is allowed). Extent 0 (unknown): the
  // powers of two up to 512.
  static std::vector<int64_t> tile_choices(int64_t extent);

 private:
  // The loop extents the tile sizes of `o` (kernel-wide) or of statement `k`'s own tile
  // index into: the statement's indices in order.
  std::vector<int64_t> extents_for(const MappingOptions& o, int statement) const;
  void sample_tile(std::mt19937_64& rng, std::vector<int64_t>& tile, const std::vector<int64_t>& extents) const;
  void sample_register(std::mt19937_64& rng, std::vector<int64_t>& tile, std::vector<int64_t>& reg,
                       const std::vector<int64_t>& extents, int lanes) const;
  // Each tile a multiple of the register tile inside it, except one covering its loop's
  // whole extent: that one stays whole, and the register tile's last step is partial
  // inside it (bmm's 26 rows in steps of 6: one tile, not 24 and a tile of 2).
  static void fit_to_register(std::vector<int64_t>& tile, const std::vector<int64_t>& reg, const std::vector<int64_t>& extents);
  void step_tile(std::mt19937_64& rng, std::vector<int64_t>& tile, const std::vector<int64_t>& reg,
                 const std::vector<int64_t>& extents) const;

  const KernelSetup* kernel_;
  std::vector<Sketch> sketches_;
  std::vector<std::vector<int64_t>> stmt_extents_;  // per statement, per index
  int main_statement_ = 0;                          // whose loops a kernel-wide tile of a fresh sketch covers
};

}  // namespace tcs::tuner
