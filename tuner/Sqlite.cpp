#include "tuner/Sqlite.h"

#include <sqlite3.h>

namespace tcs::tuner::sql {

namespace {

[[noreturn]] void fail(sqlite3* db, int rc) {
  int primary = rc & 0xff;
  throw SqlError(primary, db ? sqlite3_errmsg(db) : sqlite3_errstr(rc));
}

}  // namespace

Statement::Statement(sqlite3* db, std::string_view sql) : db_(db) {
  int rc = sqlite3_prepare_v2(db, sql.data(), int(sql.size()), &stmt_, nullptr);
  if (rc != SQLITE_OK) fail(db, rc);
}

Statement::~Statement() { sqlite3_finalize(stmt_); }

Statement& Statement::bind(int i, int64_t v) {
  if (int rc = sqlite3_bind_int64(stmt_, i, v); rc != SQLITE_OK) fail(db_, rc);
  return *this;
}

Statement& Statement::bind(int i, double v) {
  if (int rc = sqlite3_bind_double(stmt_, i, v); rc != SQLITE_OK) fail(db_, rc);
  return *this;
}

Statement& Statement::bind(int i, std::string_view v) {
  if (int rc = sqlite3_bind_text64(stmt_, i, v.data(), v.size(), SQLITE_TRANSIENT, SQLITE_UTF8); rc != SQLITE_OK)
    fail(db_, rc);
  return *this;
}

Statement& Statement::bind(int i, std::nullopt_t) {
  if (int rc = sqlite3_bind_null(stmt_, i); rc != SQLITE_OK) fail(db_, rc);
  return *this;
}

Statement& Statement::bind(int i, const std::optional<double>& v) { return v ? bind(i, *v) : bind(i, std::nullopt); }

Statement& Statement::bind_blob(int i, const void* data, size_t bytes) {
  if (int rc = sqlite3_bind_blob64(stmt_, i, data, bytes, SQLITE_TRANSIENT); rc != SQLITE_OK) fail(db_, rc);
  return *this;
}

bool Statement::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  sqlite3_reset(stmt_);
  fail(db_, rc);
}

void Statement::reset() {
  sqlite3_reset(stmt_);
  sqlite3_clear_bindings(stmt_);
}

bool Statement::is_null(int col) const { return sqlite3_column_type(stmt_, col) == SQLITE_NULL; }
int64_t Statement::int64(int col) const { return sqlite3_column_int64(stmt_, col); }
double Statement::real(int col) const { return sqlite3_column_double(stmt_, col); }

std::string Statement::text(int col) const {
  const unsigned char* p = sqlite3_column_text(stmt_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
}

std::string Statement::blob(int col) const {
  const void* p = sqlite3_column_blob(stmt_, col);
  return p ? std::string(static_cast<const char*>(p), size_t(sqlite3_column_bytes(stmt_, col))) : std::string();
}

std::optional<double> Statement::optional_real(int col) const {
  if (is_null(col)) return std::nullopt;
  return real(col);
}

Database::Database(const std::string& uri, int flags) {
  int rc = sqlite3_open_v2(uri.c_str(), &db_, flags | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    std::string message = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    throw SqlError(rc & 0xff, message);
  }
  sqlite3_extended_result_codes(db_, 0);
}

Database::~Database() { sqlite3_close_v2(db_); }

void Database::exec(std::string_view sql) {
  std::string text(sql);
  char* message = nullptr;
  int rc = sqlite3_exec(db_, text.c_str(), nullptr, nullptr, &message);
  if (rc != SQLITE_OK) {
    std::string m = message ? message : sqlite3_errstr(rc);
    sqlite3_free(message);
    throw SqlError(rc & 0xff, m);
  }
}

int64_t Database::last_insert_id() const { return sqlite3_last_insert_rowid(db_); }
int Database::changes() const { return sqlite3_changes(db_); }
int64_t Database::total_changes() const { return sqlite3_total_changes64(db_); }

int64_t Database::query_int(std::string_view sql) {
  Statement s(db_, sql);
  return s.step() ? s.int64(0) : 0;
}

std::string Database::query_text(std::string_view sql) {
  Statement s(db_, sql);
  return s.step() ? s.text(0) : std::string();
}

Transaction::Transaction(Database& db) : db_(db) { db_.exec("BEGIN IMMEDIATE"); }

Transaction::~Transaction() {
  if (!done_) {
    try {
      db_.exec("ROLLBACK");
    } catch (const SqlError&) {
      // The transaction may already be gone (SQLite rolls back on some errors itself).
    }
  }
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace tcs::tuner::sql
