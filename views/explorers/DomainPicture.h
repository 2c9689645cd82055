#pragma once
// What the iteration-domain view draws, as plain data: one statement's points projected
// on two of its dimensions (the others fixed), each with its colour group and whether it
// has run by the scrubber's time; the outline of each tile; the dependence arrows. Built
// from an IterationSpace without Qt, so tests read it and the painter only paints it.
#include <cstdint>
#include <string>
#include <vector>

#include "poly/IterationSpace.h"

namespace tcs {

struct DomainChoice {
  int statement = 0;
  int x = 0, y = 1;                // dimensions drawn across and down (y = -1: one row)
  std::vector<int64_t> fixed;      // per dimension, the value the others are fixed at
  enum class Colour { Tile, Thread, Lane } colour = Colour::Tile;
  int64_t time = -1;               // points with a later time are not lit; -1: all lit
  bool all_dependences = false;    // false: only those that cross tiles (and violated ones)
};

struct DomainPicture {
  struct Point {
    int64_t x = 0, y = 0;  // values of the chosen dimensions
    int group = -1;        // tile, thread or lane number; -1: none
    bool lit = true;
    bool violated = false;  // an end of a broken dependence (drawn with a red ring)
    int index = -1;        // into StatementSpace::points
  };
  struct Box {
    int64_t x0, y0, x1, y1;  // inclusive, in dimension values
    int group;
  };
  struct Arrow {
    int64_t x0, y0, x1, y1;
    DependenceKind kind;
    bool violated;
    bool crosses_tile;
  };
  std::vector<Point> points;
  std::vector<Box> tiles;
  std::vector<Arrow> arrows;
  int64_t min_x = 0, max_x = 0, min_y = 0, max_y = 0;
  int groups = 0;  // distinct colour groups
  int64_t violated = 0;  // violated dependences drawn, or with an end here
};

// The statement's per-dimension value ranges (for the sliders): lo, hi per dimension.
std::vector<std::pair<int64_t, int64_t>> dimension_ranges(const StatementSpace& s);

DomainPicture domain_picture(const IterationSpace& space, const DomainChoice& choice);

}  // namespace tcs
