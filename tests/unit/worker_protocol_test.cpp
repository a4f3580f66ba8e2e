#include <gtest/gtest.h>

#include "engine_api/worker_protocol.hpp"

using namespace accel;
using K = WorkerEvent::Kind;

TEST(WorkerProtocol, TheEventsTheWorkerWrites) {
  EXPECT_EQ(parse_worker_event(R"({"event": "ready", "info": {}})").kind, K::ready);
  const auto start = parse_worker_event(R"({"event": "start", "key": "ops/cpu/matmul"})");
  EXPECT_EQ(start.kind, K::start);
  EXPECT_EQ(start.key, "ops/cpu/matmul");
  const auto res = parse_worker_event(R"({"event": "result", "result": {"key": "k", "status": "ok"}})");
  ASSERT_EQ(res.kind, K::result);
  EXPECT_EQ(res.result->key, "k");
  EXPECT_EQ(parse_worker_event(R"({"event": "retire", "anon_rss_bytes": 5})").kind, K::retire);
  EXPECT_EQ(parse_worker_event(R"({"event": "done"})").kind, K::done);
}

TEST(WorkerProtocol, AnUnreadableResultSaysWhy) {
  const auto ev = parse_worker_event(R"({"event": "result", "result": {"status": "exploded"}})");
  EXPECT_EQ(ev.kind, K::unreadable_result);
  EXPECT_FALSE(ev.error.empty());
  EXPECT_EQ(parse_worker_event(R"({"event": "result"})").kind, K::unreadable_result);
}

// Lines that once threw out of the runner (json::value on a non-object, or
// on a non-string "event"/"key"): any line is an event, never an exception.
TEST(WorkerProtocol, AnythingElseIsNoEvent) {
  for (const char* line : {"", "1", "[]", "\"event\"", "null", "{", "garbage from a library",
                           R"({"event": 7})", R"({"event": "bogus"})", R"({"event": null})", "\xff\xfe{}"}) {
    EXPECT_EQ(parse_worker_event(line).kind, K::none) << line;
  }
  const auto ev = parse_worker_event(R"({"event": "start", "key": 42})");
  EXPECT_EQ(ev.kind, K::start);
  EXPECT_EQ(ev.key, "");
}
