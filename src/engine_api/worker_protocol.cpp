#include "engine_api/worker_protocol.hpp"

namespace accel {

WorkerEvent parse_worker_event(std::string_view line) {
  WorkerEvent ev;
  json msg;
  try {
    msg = json::parse(line.begin(), line.end());
  } catch (const json::exception&) {
    return ev;  // not protocol (the worker guards its stdout, so rare)
  }
  if (!msg.is_object()) return ev;
  const auto it = msg.find("event");
  if (it == msg.end() || !it->is_string()) return ev;
  const std::string& event = it->get_ref<const std::string&>();
  if (event == "ready") {
    ev.kind = WorkerEvent::Kind::ready;
  } else if (event == "start") {
    ev.kind = WorkerEvent::Kind::start;
    if (const auto k = msg.find("key"); k != msg.end() && k->is_string()) ev.key = k->get<std::string>();
  } else if (event == "result") {
    try {
      ev.result = msg.at("result").get<Result>();
      ev.kind = WorkerEvent::Kind::result;
    } catch (const std::exception& e) {
      ev.kind = WorkerEvent::Kind::unreadable_result;
      ev.error = e.what();
    }
  } else if (event == "retire") {
    ev.kind = WorkerEvent::Kind::retire;
  } else if (event == "done") {
    ev.kind = WorkerEvent::Kind::done;
  }
  return ev;
}

}  // namespace accel
