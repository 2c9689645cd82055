// Mapping options as JSON, through nlohmann-json and the options table: every field is
// read, checked and written by its row, so the reader, the writer and the messages cannot
// disagree with the table.
#include <functional>
#include <map>
#include <optional>

#include "options/MappingOptions.h"
#include "options/OptionsTable.h"
#include "support/EditDistance.h"

namespace tcs {

using json = options_table::json;
using options_table::inline_text;
using options_table::kind_of;

namespace {

struct Position {
  int line = 1, column = 1;
};

Position position_at(std::string_view text, size_t offset) {
  Position p;
  for (size_t i = 0; i < offset && i < text.size(); ++i) {
    if (text[i] == '\n') ++p.line, p.column = 1;
    else if ((static_cast<unsigned char>(text[i]) & 0xC0) != 0x80) ++p.column;  // count characters, not UTF-8 bytes
  }
  return p;
}

std::string at(Position p) { return "line " + std::to_string(p.line) + ", column " + std::to_string(p.column) + ": "; }

// Where each value starts, by JSON path ("tile", "tile[1]", "cpu.vectorWidth"), and the
// first duplicate key. nlohmann-json as Debian 12 ships it (3.11) keeps no positions and
// takes the last of duplicate keys, so this walks the text it has already accepted.
class PositionIndex {
 public:
  explicit PositionIndex(std::string_view text) : text_(text) { value(""); }
  std::map<std::string, size_t> starts;
  std::optional<std::pair<std::string, size_t>> duplicate;

 private:
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\n' || text_[pos_] == '\r'))
      ++pos_;
  }
  std::string string_token() {  // at the opening quote; returns the raw contents
    size_t begin = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
    return std::string(text_.substr(begin, pos_++ - begin));
  }
  void value(const std::string& path) {
    skip_space();
    starts.emplace(path, pos_);
    if (pos_ >= text_.size()) return;
    char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      std::map<std::string, bool> keys;
      for (skip_space(); pos_ < text_.size() && text_[pos_] != '}';) {
        size_t key_at = pos_;
        std::string key = string_token();
        if (keys[key] && !duplicate) duplicate = {key, key_at};
        keys[key] = true;
        skip_space();
        ++pos_;  // ':'
        value(path.empty() ? key : path + "." + key);
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') ++pos_, skip_space();
      }
      ++pos_;
    } else if (c == '[') {
      ++pos_;
      for (int i = 0; (skip_space(), pos_ < text_.size() && text_[pos_] != ']'); ++i) {
        value(path + "[" + std::to_string(i) + "]");
        skip_space();
        if (pos_ < text_.size() && text_[pos_] == ',') ++pos_;
      }
      ++pos_;
    } else if (c == '"') {
      string_token();
    } else {
      while (pos_ < text_.size() && std::string_view(",]} \t\r\n").find(text_[pos_]) == std::string_view::npos) ++pos_;
    }
  }
  std::string_view text_;
  size_t pos_ = 0;
};

// nlohmann's message names what it expected; ours names the character it found.
Error syntax_error(std::string_view text, const nlohmann::json::parse_error& e) {
  size_t offset = e.byte > 0 ? e.byte - 1 : 0;
  std::string what = offset >= text.size() ? "unexpected end of input"
                                           : "unexpected character '" + std::string(1, text[offset]) + "'";
  return Error{ErrorKind::Options, "options: " + at(position_at(text, offset)) + what};
}

// "S0", "S12": how statements are named in the model and the code panes.
bool is_statement_name(const std::string& s) {
  return s.size() > 1 && s[0] == 'S' && s.find_first_not_of("0123456789", 1) == std::string::npos;
}

// The group prefix of a field's name ("cpu" of "cpu.vectorWidth"), "" for top-level ones.
std::string group_of(const std::string& name) {
  size_t dot = name.find('.');
  return dot == std::string::npos ? "" : name.substr(0, dot);
}

}  // namespace

Expected<MappingOptions> mapping_options_from_json(std::string_view text) {
  auto o = mapping_options_read_json(text);
  if (!o) return o;
  if (Status v = mapping_options_validate(*o); !v) return error_prefixed(v.failure(), "options: ");
  return o;
}

Expected<MappingOptions> mapping_options_read_json(std::string_view text) {
  json doc;
  try {
    doc = json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    return syntax_error(text, e);
  }
  PositionIndex where(text);
  auto fail = [&](const std::string& path, const std::string& message) {
    auto it = where.starts.find(path);
    return Error{ErrorKind::Options, "options: " + at(position_at(text, it == where.starts.end() ? 0 : it->second)) + message};
  };
  if (where.duplicate)
    return Error{ErrorKind::Options, "options: " + at(position_at(text, where.duplicate->second)) + "duplicate key \"" +
                                         where.duplicate->first + "\""};
  if (!doc.is_object()) return fail("", "the options must be an object, got " + kind_of(doc));

  MappingOptions o;
  // Each member: a field of the table, or a group holding fields ("cpu": {...}). With a
  // statement (`statements.S2`), only per-statement fields, kept as their JSON text.
  StatementOptions* stmt = nullptr;
  std::function<Status(const json&, const std::string&)> read = [&](const json& object, const std::string& prefix) -> Status {
    const std::string at_stmt = stmt ? "statements." + stmt->statement + "." : "";
    for (const auto& [key, value] : object.items()) {
      std::string name = prefix.empty() ? key : prefix + "." + key;
      if (const OptionField* f = find_option_field(name); f && stmt) {
        if (!f->per_statement)
          return fail(at_stmt + name, at_stmt + name + " is the whole kernel's option; it cannot be set per statement");
        if (Status s = options_table::check(*f, value); !s) return fail(at_stmt + name, at_stmt + s.error());
        stmt->fields[name] = inline_text(value);
        continue;
      }
      if (const OptionField* f = find_option_field(name)) {
        if (Status s = options_table::set(o, *f, value); !s) return fail(name, s.error());
        continue;
      }
      if (name == "statements" && !stmt) {
        if (!value.is_object()) return fail(name, "statements must be an object: {\"S2\": {\"tile\": [...]}, ...}");
        for (const auto& [id, fields] : value.items()) {
          if (!is_statement_name(id))
            return fail("statements." + id, "statements: '" + id + "' is not a statement; name one as S0, S1, ... (as the code panes number them)");
          if (!fields.is_object()) return fail("statements." + id, "statements." + id + " must be an object, got " + kind_of(fields));
          o.statements.push_back({id, {}});
          stmt = &o.statements.back();
          Status s = read(fields, "");
          stmt = nullptr;
          if (!s) return s;
        }
        continue;
      }
      bool is_group = false;
      for (const OptionField& f : option_fields()) is_group |= !f.group.empty() && group_of(f.name) == name;
      if (is_group) {
        if (!value.is_object()) return fail(name, name + " must be an object, got " + kind_of(value));
        if (Status s = read(value, name); !s) return s;
        continue;
      }
      std::string hint;
      size_t best = 3;
      for (const OptionField& f : option_fields())
        if (group_of(f.name) == prefix || (prefix.empty() && f.group.empty()))
          if (size_t d = edit_distance(name, f.name); d < best) best = d, hint = f.name;
      return fail(at_stmt + name,
                  "unknown option '" + at_stmt + name + "'" + (hint.empty() ? "" : " (did you mean '" + hint + "'?)"));
    }
    return success();
  };
  if (Status s = read(doc, ""); !s) return s.failure();
  return o;
}

// Pretty and stable: one field a line in the table's order, groups indented, each value
// on its line ("tile": [32, 32, 8]).
std::string mapping_options_to_json(const MappingOptions& o) {
  std::vector<std::string> entries;  // top-level members, a group being one member
  std::string group;
  for (const OptionField& f : option_fields()) {
    std::string value = inline_text(options_table::get(o, f));
    if (f.group.empty()) {
      entries.push_back("  " + json(f.name).dump() + ": " + value);
      continue;
    }
    std::string line = "    " + json(f.name.substr(f.group.size() + 1)).dump() + ": " + value;
    if (f.group != group) entries.push_back("  " + json(f.group).dump() + ": {\n" + line);
    else entries.back() += ",\n" + line;
    group = f.group;
  }
  if (!o.statements.empty()) {  // one line a statement, its fields grouped as above
    std::string text = "  \"statements\": {";
    for (size_t i = 0; i < o.statements.size(); ++i) {
      json fields = json::object();  // in the table's order
      for (const OptionField& f : option_fields()) {
        auto given = o.statements[i].fields.find(f.name);
        if (given == o.statements[i].fields.end()) continue;
        if (f.group.empty()) fields[f.name] = json::parse(given->second);
        else fields[f.group][f.name.substr(f.group.size() + 1)] = json::parse(given->second);
      }
      text += std::string(i ? "," : "") + "\n    " + json(o.statements[i].statement).dump() + ": " + inline_text(fields);
    }
    entries.push_back(text + "\n  }");
  }
  std::string s = "{\n";
  for (size_t i = 0; i < entries.size(); ++i) {
    bool is_group = entries[i].find('\n') != std::string::npos && entries[i].back() != '}';
    s += entries[i] + (is_group ? "\n  }" : "") + (i + 1 < entries.size() ? ",\n" : "\n");
  }
  return s + "}\n";
}

Expected<std::string> options_json_line(std::string_view text) {
  json value = json::parse(text.begin(), text.end(), nullptr, false);
  if (value.is_discarded()) return Error{ErrorKind::Options, "the options are not JSON"};
  return inline_text(value);
}

Status mapping_options_validate(const MappingOptions& o) {
  for (const OptionField& f : option_fields())
    if (Status s = options_table::check(f, options_table::get(o, f)); !s) return s;
  if (!o.register_tile.empty() && o.tile.empty())
    return Error{ErrorKind::Options, "registerTile needs tile: the register tiles are cut out of the cache tiles"};
  for (size_t i = 0; i < o.register_tile.size() && i < o.tile.size(); ++i)
    if (o.register_tile[i] > o.tile[i])
      return Error{ErrorKind::Options, "registerTile[" + std::to_string(i) + "] (" + std::to_string(o.register_tile[i]) +
                                           ") is larger than tile[" + std::to_string(i) + "] (" + std::to_string(o.tile[i]) + ")"};
  if (!o.cpu.pack.empty() && o.tile.empty())
    return Error{ErrorKind::Options, "cpu.pack needs tile: a tensor tile is packed per cache tile"};
  if (o.cpu.register_accumulate && o.register_tile.empty())
    return Error{ErrorKind::Options,
                 "cpu.registerAccumulate needs registerTile: it keeps the register tile's accumulators in registers"};
  for (size_t i = 0; i < o.statements.size(); ++i) {
    const std::string& id = o.statements[i].statement;
    if (!is_statement_name(id))
      return Error{ErrorKind::Options, "statements: '" + id + "' is not a statement; name one as S0, S1, ..."};
    for (size_t j = 0; j < i; ++j)
      if (o.statements[j].statement == id) return Error{ErrorKind::Options, "statements: " + id + " is given twice"};
    auto own = mapping_options_for_statement(o, id);
    if (!own) return own.failure();
    if (Status s = mapping_options_validate(*own); !s) return Error{ErrorKind::Options, "statements." + id + ": " + s.error()};
  }
  return success();
}

}  // namespace tcs
