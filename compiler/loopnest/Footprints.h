#pragma once
// What one iteration of a loop touches, as boxes: for each tensor, an interval per
// dimension around the elements the loop's statements and copies read, and one around
// those they write, at one value of the loop's iterator. Interval arithmetic over the
// loops inside; a subscript that is not affine takes its whole dimension, and one that
// runs past its dimension (collapsed rows) the rows it runs through, so a box is never
// smaller than the truth. Asked by the passes that join parallel loops and that keep
// a temporary in a buffer of each iteration (JoinParallelLoops.h, PrivateTemporaries.h).
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "lang/Sema.h"
#include "lang/Shapes.h"
#include "loopnest/Accesses.h"
#include "loopnest/LoopNest.h"

namespace tcs {

using Interval = std::pair<int64_t, int64_t>;
using Ranges = std::map<int, Interval>;  // iterator -> its values
using Box = std::vector<Interval>;       // one interval per tensor dimension

struct Footprint {
  std::map<int, Box> reads, writes;  // by SemaDef::tensors index
};

// Widens `into` to hold `box` too.
void hull(Box& into, const Box& box);
// Whether two boxes share an element; and whether some tensor's boxes in `a` and `b` do.
bool meet(const Box& a, const Box& b);
bool meet(const std::map<int, Box>& a, const std::map<int, Box>& b);

// The value of `e` when it is one constant while the iterators in `outer` take theirs.
std::optional<int64_t> constant_value(const LExpr& e, const Ranges& outer);

class FootprintReader {
 public:
  FootprintReader(const SemaDef& def, const DefShapes& shapes, const LoopNest& nest);
  // What the body of `loop` touches when its iterator is `value` and the loops around it
  // take the values in `outer`; nullopt where a bound or an index is not a known range.
  std::optional<Footprint> iteration(const LoopNode& loop, int64_t value, Ranges outer) const;
  // iteration() at each of the loop's values, first to last; nullopt where one is not
  // known, the bounds are not constants under `outer`, or the loop runs more than `most`
  // times.
  std::optional<std::vector<Footprint>> iterations(const LoopNode& loop, const Ranges& outer, int64_t most) const;
  // Whether a statement called below `n` reads or writes tensor `t`.
  bool touches(const LoopNode& n, int t) const;

 private:
  bool walk(const LoopNode& n, Ranges& ranges, Footprint& f) const;
  bool call(const LoopNode& n, const Ranges& ranges, Footprint& f) const;
  std::optional<Interval> subscript(const SubscriptForm& form, const std::vector<Interval>& index) const;
  static Box row_major_cover(const Box& box, const Box& whole);

  const DefShapes& shapes_;
  const LoopNest& nest_;
  std::vector<std::vector<TensorAccess>> accesses_;  // by LoopNest::stmts index
};

}  // namespace tcs
