#include "tuner/WorkerProtocol.h"

#include <cmath>

#include <nlohmann/json.hpp>

namespace tcs::tuner {

using json = nlohmann::json;

namespace {

Error protocol_error(std::string_view what, const std::exception& e) {
  return Error{ErrorKind::Internal, "worker protocol: " + std::string(what) + ": " + e.what()};
}

}  // namespace

std::string job_to_line(const MeasureJob& j) {
  json sizes = json::object();
  for (const auto& [n, v] : j.sizes) sizes[n] = v;
  return json{{"id", j.id},           {"source", j.source},         {"entry", j.entry},
              {"sizes", sizes},       {"options", j.options_json},  {"threads", j.threads},
              {"check", j.check},     {"min_calls", j.min_calls},   {"min_total_ms", j.min_total_ms},
              {"cutoff_ms", j.cutoff_ms}, {"cold", j.cold}}
      .dump();
}

Expected<MeasureJob> job_from_line(std::string_view line) {
  try {
    json v = json::parse(line);
    MeasureJob j;
    j.id = v.at("id").get<int64_t>();
    j.source = v.at("source").get<std::string>();
    j.entry = v.at("entry").get<std::string>();
    for (const auto& [n, s] : v.at("sizes").items()) j.sizes[n] = s.get<int64_t>();
    j.options_json = v.at("options").get<std::string>();
    j.threads = v.at("threads").get<int>();
    j.check = v.at("check").get<bool>();
    j.min_calls = v.at("min_calls").get<int>();
    j.min_total_ms = v.at("min_total_ms").get<double>();
    j.cutoff_ms = v.value("cutoff_ms", 0.0);
    j.cold = v.value("cold", false);
    return j;
  } catch (const json::exception& e) {
    return protocol_error("a job", e);
  }
}

std::string reply_to_line(const MeasureReply& r) {
  json v = {{"id", r.id}, {"status", trial_status_name(r.status)}, {"message", r.message},
            {"repeats_ms", r.repeats_ms}, {"compile_ms", r.compile_ms}};
  if (r.median_ms) v["median_ms"] = *r.median_ms;
  return v.dump();
}

Expected<MeasureReply> reply_from_line(std::string_view line) {
  try {
    json v = json::parse(line);
    MeasureReply r;
    r.id = v.at("id").get<int64_t>();
    auto status = trial_status_from_name(v.at("status").get<std::string>());
    if (!status) return Error{ErrorKind::Internal, "worker protocol: unknown status in " + std::string(line)};
    r.status = *status;
    r.message = v.at("message").get<std::string>();
    if (v.contains("median_ms")) r.median_ms = v["median_ms"].get<double>();
    bool timed = r.median_ms && std::isfinite(*r.median_ms) && *r.median_ms >= 0;
    if ((r.status == TrialStatus::Ok) != timed)
      return Error{ErrorKind::Internal, "worker protocol: a time only with status ok, in " + std::string(line)};
    r.repeats_ms = v.at("repeats_ms").get<std::vector<double>>();
    r.compile_ms = v.at("compile_ms").get<double>();
    return r;
  } catch (const json::exception& e) {
    return protocol_error("a reply", e);
  }
}

}  // namespace tcs::tuner
