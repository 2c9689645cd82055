// The projection is a slice: points whose other dimensions equal the fixed values. A
// dependence is drawn when both its ends lie in the slice of the same statement; one that
// reaches another statement or leaves the slice counts toward `violated` when it is
// broken, so a broken schedule shows even where its arrows cannot be drawn.
#include "views/explorers/DomainPicture.h"

#include <algorithm>
#include <map>

namespace tcs {

std::vector<std::pair<int64_t, int64_t>> dimension_ranges(const StatementSpace& s) {
  size_t n = s.dims.size();
  std::vector<std::pair<int64_t, int64_t>> r(n, {0, 0});
  for (size_t p = 0; p < s.points.size(); ++p)
    for (size_t d = 0; d < n; ++d) {
      int64_t v = s.coords_of(p)[d];
      if (p == 0) r[d] = {v, v};
      r[d].first = std::min(r[d].first, v);
      r[d].second = std::max(r[d].second, v);
    }
  return r;
}

namespace {

bool in_slice(const StatementSpace& s, size_t p, const DomainChoice& c) {
  const int64_t* x = s.coords_of(p);
  for (size_t d = 0; d < s.dims.size(); ++d)
    if (int(d) != c.x && int(d) != c.y && d < c.fixed.size() && x[d] != c.fixed[d]) return false;
  return true;
}

int group_of(const SpacePoint& p, DomainChoice::Colour colour) {
  switch (colour) {
    case DomainChoice::Colour::Tile: return p.tile;
    case DomainChoice::Colour::Thread: return p.thread;
    case DomainChoice::Colour::Lane: return p.lane;
  }
  return -1;
}

}  // namespace

DomainPicture domain_picture(const IterationSpace& space, const DomainChoice& c) {
  DomainPicture pic;
  if (c.statement < 0 || size_t(c.statement) >= space.statements.size()) return pic;
  const StatementSpace& s = space.statements[size_t(c.statement)];
  auto coord = [&](size_t p, int d) { return d >= 0 && size_t(d) < s.dims.size() ? s.coords_of(p)[d] : 0; };
  std::vector<int> slot(s.points.size(), -1);  // point -> index in pic.points
  std::map<int, DomainPicture::Box> boxes;
  int max_group = -1;
  for (size_t p = 0; p < s.points.size(); ++p) {
    if (!in_slice(s, p, c)) continue;
    DomainPicture::Point q;
    q.x = coord(p, c.x);
    q.y = coord(p, c.y);
    q.group = group_of(s.points[p], c.colour);
    q.lit = c.time < 0 || s.points[p].time <= c.time;
    q.index = int(p);
    max_group = std::max(max_group, q.group);
    if (pic.points.empty()) pic.min_x = pic.max_x = q.x, pic.min_y = pic.max_y = q.y;
    pic.min_x = std::min(pic.min_x, q.x), pic.max_x = std::max(pic.max_x, q.x);
    pic.min_y = std::min(pic.min_y, q.y), pic.max_y = std::max(pic.max_y, q.y);
    if (int t = s.points[p].tile; t >= 0) {
      auto [it, fresh] = boxes.try_emplace(t, DomainPicture::Box{q.x, q.y, q.x, q.y, t});
      if (!fresh) {
        DomainPicture::Box& b = it->second;
        b.x0 = std::min(b.x0, q.x), b.y0 = std::min(b.y0, q.y), b.x1 = std::max(b.x1, q.x), b.y1 = std::max(b.y1, q.y);
      }
    }
    slot[p] = int(pic.points.size());
    pic.points.push_back(q);
  }
  pic.groups = max_group + 1;
  for (auto& [t, b] : boxes) pic.tiles.push_back(b);
  for (const SpaceDependence& d : space.dependences) {
    bool here = d.from_stmt == c.statement && d.to_stmt == c.statement && slot[size_t(d.from_point)] >= 0 &&
                slot[size_t(d.to_point)] >= 0;
    bool touches = (d.from_stmt == c.statement && slot[size_t(d.from_point)] >= 0) ||
                   (d.to_stmt == c.statement && slot[size_t(d.to_point)] >= 0);
    if (d.violated && touches) {
      ++pic.violated;
      if (d.from_stmt == c.statement && slot[size_t(d.from_point)] >= 0) pic.points[size_t(slot[size_t(d.from_point)])].violated = true;
      if (d.to_stmt == c.statement && slot[size_t(d.to_point)] >= 0) pic.points[size_t(slot[size_t(d.to_point)])].violated = true;
    }
    if (!here || !(c.all_dependences || d.crosses_tile || d.violated)) continue;
    const DomainPicture::Point& a = pic.points[size_t(slot[size_t(d.from_point)])];
    const DomainPicture::Point& b = pic.points[size_t(slot[size_t(d.to_point)])];
    if (a.x == b.x && a.y == b.y) continue;  // along a fixed dimension: no arrow in this slice
    pic.arrows.push_back({a.x, a.y, b.x, b.y, d.kind, d.violated, d.crosses_tile});
  }
  return pic;
}

}  // namespace tcs
