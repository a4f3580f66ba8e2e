// The engine protocol (engine_api/engine_protocol.hpp) from both sides:
// serve_engine answering with a fake Engine in this process, and
// ProcessEngine talking to fake engine executables (shell scripts) that
// answer, refuse, speak another version, or die in the middle of a run.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "engine_api/engine_protocol.hpp"
#include "engine_api/isolation.hpp"
#include "engine_api/process_engine.hpp"
#include "engine_api/serve.hpp"

namespace fs = std::filesystem;
using namespace accel;
using namespace accel::engine;

namespace {

/// An engine that answers from fixed data and records what it was asked.
class FakeEngine final : public Engine {
 public:
  EngineEnvironment environment() override {
    EngineEnvironment e;
    e.torch.version = "9.9.0";
    e.torch.backend = "cuda";
    DeviceInfo d;
    d.id = "cuda:0";
    d.name = "Fake GPU";
    e.devices.push_back(d);
    return e;
  }
  std::vector<CheckInfo> list_checks(const OpsOptions& o) override {
    last_filters = o.filters;
    CheckInfo c;
    c.key = "ops/x/add/fp32";
    c.verify = "reference";
    return {c};
  }
  std::vector<Result> run_ops(const OpsOptions& o, const RunCallbacks& cb) override {
    ItemInfo item{"ops/x/add/fp32", ResultKind::check, "add", "x", "fp32", "4"};
    cb.on_start(item, 0, 1);
    Result r;
    r.key = item.key;
    r.device = o.device;
    r.status = Status::ok;
    cb.on_result(r);
    Result extra = r;  // a row only the final list has
    extra.key = "bench/cuda/memory/copy/fp32/rotating";
    return {r, extra};
  }
  std::vector<ItemInfo> list_benchmarks(const BenchOptions&) override { return {}; }
  std::vector<Result> run_bench(const BenchOptions&, const RunCallbacks&) override { return {}; }
  LlmPlan plan_llm(const LlmOptions& o) override {
    LlmPlan p;
    p.resolved = o;
    p.resolved.preset = "tiny";
    p.attention_problem = o.attention == "sdpa" ? "needs torch >= 2.0" : "";
    return p;
  }
  std::vector<Result> run_llm(const LlmOptions&, const RunCallbacks&) override { return {}; }
  TrainPlan plan_train(const TrainOptions&) override { throw std::invalid_argument("no training here"); }
  std::vector<Result> run_train(const TrainOptions&, const RunCallbacks&) override { return {}; }

  std::vector<std::string> last_filters;
};

/// The events serve_engine writes for `request`.
std::vector<json> serve(FakeEngine& engine, const std::string& request, int* rc = nullptr) {
  std::FILE* out = std::tmpfile();
  std::istringstream in(request);
  const int code = serve_engine(engine, {"fake", "1.2.3"}, in, out);
  if (rc) *rc = code;
  std::rewind(out);
  std::vector<json> events;
  char buf[65536];
  while (std::fgets(buf, sizeof buf, out)) events.push_back(json::parse(buf));
  std::fclose(out);
  return events;
}

}  // namespace

TEST(EngineProtocol, NamesRoundTrip) {
  for (auto r : {EngineRequest::environment, EngineRequest::list_checks, EngineRequest::list_benchmarks,
                 EngineRequest::plan_llm, EngineRequest::plan_train, EngineRequest::run}) {
    EXPECT_EQ(parse_request_name(request_name(r)), r);
  }
  for (auto s : {SuiteId::ops, SuiteId::bench, SuiteId::llm, SuiteId::train}) {
    EXPECT_EQ(parse_suite_name(suite_name(s)), s);
  }
  EXPECT_FALSE(parse_request_name("reboot"));
  EXPECT_FALSE(parse_suite_name("opz"));
  for (EngineEvent e :
       {EngineEvent::hello, EngineEvent::environment, EngineEvent::checks, EngineEvent::items,
        EngineEvent::plan, EngineEvent::start, EngineEvent::result, EngineEvent::done, EngineEvent::error}) {
    EXPECT_EQ(parse_event_name(event_name(e)), e);
  }
  EXPECT_STREQ(event_name(EngineEvent::hello), "hello");
  EXPECT_STREQ(event_name(EngineEvent::done), "done");
  EXPECT_FALSE(parse_event_name("ready"));  // a worker event, not an engine one
}

TEST(EngineProtocol, OptionsSurviveJson) {
  OpsOptions o;
  o.device = "cuda:1";
  o.filters = {"linalg", "fp16"};
  o.check_timeout_s = 7;
  o.isolate = false;
  o.machine.os = "windows";
  const OpsOptions back = json(o).get<OpsOptions>();
  EXPECT_EQ(back.device, "cuda:1");
  EXPECT_EQ(back.filters, o.filters);
  EXPECT_EQ(back.check_timeout_s, 7);
  EXPECT_FALSE(back.isolate);
  EXPECT_EQ(back.machine.os, "windows");

  LlmOptions l;
  l.prompts = {128, 512};
  l.sdpa_backend = "flash";
  Result ceiling;
  ceiling.key = "bench/cuda/gemm/square/bf16/4096x4096x4096";
  l.ceilings = {ceiling};
  const LlmOptions lb = json(l).get<LlmOptions>();
  EXPECT_EQ(lb.prompts, l.prompts);
  EXPECT_EQ(lb.sdpa_backend, "flash");
  ASSERT_EQ(lb.ceilings.size(), 1u);
  EXPECT_EQ(lb.ceilings[0].key, ceiling.key);

  TrainOptions t;
  t.inject_oom_above_bytes = 1ull << 40;
  t.models = {"cnn"};
  const TrainOptions tb = json(t).get<TrainOptions>();
  EXPECT_EQ(tb.inject_oom_above_bytes, 1ull << 40);
  EXPECT_EQ(tb.models, t.models);
  // Missing fields keep the defaults.
  EXPECT_EQ(json::object().get<BenchOptions>().item_timeout_s, BenchOptions{}.item_timeout_s);
}

TEST(EngineServe, GreetsThenAnswers) {
  FakeEngine e;
  const auto ev = serve(e, R"({"protocol": 1, "request": "environment"})");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(ev[0]["event"], "hello");
  EXPECT_EQ(ev[0]["protocol"], kEngineProtocolVersion);
  EXPECT_EQ(ev[0]["engine"], "fake");
  EXPECT_EQ(ev[1]["event"], "environment");
  const auto env = ev[1]["environment"].get<EngineEnvironment>();
  EXPECT_EQ(env.torch.version, "9.9.0");
  ASSERT_EQ(env.devices.size(), 1u);
  EXPECT_EQ(env.devices[0].name, "Fake GPU");
}

TEST(EngineServe, PassesOptionsAndStreamsARun) {
  FakeEngine e;
  auto ev = serve(e, R"({"protocol": 1, "request": "list_checks", "options": {"filters": ["conv"]}})");
  ASSERT_EQ(ev.size(), 2u);
  EXPECT_EQ(e.last_filters, std::vector<std::string>{"conv"});
  EXPECT_EQ(ev[1]["checks"][0]["verify"], "reference");

  ev = serve(e, R"({"protocol": 1, "request": "run", "suite": "ops", "options": {"device": "cuda:0"}})");
  ASSERT_EQ(ev.size(), 5u);
  EXPECT_EQ(ev[1]["event"], "plan");
  EXPECT_EQ(ev[1]["items"][0]["key"], "ops/x/add/fp32");
  EXPECT_EQ(ev[2]["event"], "start");
  EXPECT_EQ(ev[2]["item"]["key"], "ops/x/add/fp32");
  EXPECT_EQ(ev[3]["event"], "result");
  EXPECT_EQ(ev[3]["result"]["device"], "cuda:0");
  EXPECT_EQ(ev[4]["event"], "done");
  EXPECT_EQ(ev[4]["results"].size(), 2u);  // the final list, with the row only it has

  ev = serve(e, R"({"protocol": 1, "request": "plan_llm", "options": {"attention": "sdpa"}})");
  EXPECT_EQ(ev[1]["attention_problem"], "needs torch >= 2.0");
  EXPECT_EQ(ev[1]["resolved"]["preset"], "tiny");
}

TEST(EngineServe, BadRequestsGetAnErrorEvent) {
  FakeEngine e;
  for (const char* bad : {"not json", "[1,2]", R"({"protocol": 1, "request": "reboot"})",
                          R"({"protocol": 99, "request": "environment"})",
                          R"({"protocol": 1, "request": "run", "suite": "opz"})",
                          R"({"protocol": 1, "request": "plan_train"})"}) {
    SCOPED_TRACE(bad);
    int rc = 0;
    const auto ev = serve(e, bad, &rc);
    ASSERT_EQ(ev.size(), 2u);
    EXPECT_EQ(ev[0]["event"], "hello");
    EXPECT_EQ(ev[1]["event"], "error");
    EXPECT_FALSE(ev[1]["message"].get<std::string>().empty());
    EXPECT_EQ(rc, 2);
  }
}

TEST(EngineServe, AnEngineWithoutTheMultiSuiteSaysSo) {
  // The multi request and suite are additive: an engine that does not
  // override them answers with an error event, not a crash.
  FakeEngine e;
  for (const char* req : {R"({"protocol": 1, "request": "list_multi", "options": {}})",
                          R"({"protocol": 1, "request": "run", "suite": "multi", "options": {}})"}) {
    SCOPED_TRACE(req);
    int rc = 0;
    const auto ev = serve(e, req, &rc);
    ASSERT_FALSE(ev.empty());
    EXPECT_EQ(ev.back()["event"], "error");
    EXPECT_NE(ev.back()["message"].get<std::string>().find("no multi suite"), std::string::npos);
    EXPECT_EQ(rc, 2);
  }
  EXPECT_EQ(parse_suite_name("multi"), SuiteId::multi);
  EXPECT_EQ(parse_request_name("list_multi"), EngineRequest::list_multi);
}

TEST(EngineSearch, ExplicitPathAndBesideThisProgram) {
  const auto missing = find_engine("/nonexistent/engine", torch_engine_file_name());
  EXPECT_TRUE(missing.path.empty());
  EXPECT_EQ(missing.looked_at, std::vector<std::string>{"/nonexistent/engine"});
  const std::string msg = engine_missing_message(missing);
  EXPECT_NE(msg.find("no such file"), std::string::npos) << msg;
  EXPECT_NE(msg.find("--engine PATH"), std::string::npos) << msg;

  // unit_tests has no engine of this name beside it.
  const auto beside = find_engine("", "no-such-engine-for-sure");
  EXPECT_TRUE(beside.path.empty());
  ASSERT_EQ(beside.looked_at.size(), 1u);
  EXPECT_NE(beside.looked_at[0].find("no-such-engine-for-sure"), std::string::npos);
}

#if !defined(_WIN32)
// Fake engine executables: shell scripts that ignore the request and say
// what each test needs.
namespace {

class FakeEngineScript : public ::testing::Test {
 protected:
  std::string write(const std::string& name, const std::string& body) {
    const fs::path dir =
        fs::temp_directory_path() /
        ("accel-engine-test-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()));
    fs::create_directories(dir);
    const fs::path p = dir / name;
    std::ofstream(p) << "#!/bin/sh\ncat > /dev/null\n" << body;
    fs::permissions(p, fs::perms::owner_all);
    return p.string();
  }
  static constexpr const char* kHello = R"(echo '{"event": "hello", "protocol": 1, "engine": "fake"}')";
};

}  // namespace

TEST_F(FakeEngineScript, AnswersARequest) {
  ProcessEngine e(
      write("env.sh",
            std::string(kHello) + "\necho 'noise that is not protocol'\n" +
                R"(echo '{"event": "environment", "environment": {"torch": {"version": "2.11.0"}}}')"),
      nullptr);
  EXPECT_EQ(e.environment().torch.version, "2.11.0");
}

TEST_F(FakeEngineScript, RefusalAndOtherVersionAreErrors) {
  ProcessEngine refuses(write("refuse.sh", std::string(kHello) + "\n" +
                                               R"(echo '{"event": "error", "message": "no such preset"}')"),
                        nullptr);
  try {
    refuses.plan_llm({});
    FAIL() << "no error";
  } catch (const EngineError& e) {
    EXPECT_STREQ(e.what(), "no such preset");
  }
  ProcessEngine old(write("old.sh", R"(echo '{"event": "hello", "protocol": 0}')"), nullptr);
  try {
    old.environment();
    FAIL() << "no error";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("protocol 0"), std::string::npos) << e.what();
  }
  ProcessEngine silent(write("dies.sh", "echo 'oops' >&2\nexit 3\n"), nullptr);
  try {
    silent.environment();
    FAIL() << "no error";
  } catch (const EngineError& e) {
    EXPECT_NE(std::string(e.what()).find("exit code 3"), std::string::npos) << e.what();
  }
}

TEST_F(FakeEngineScript, ARunTakesTheFinalList) {
  ProcessEngine e(
      write(
          "run.sh",
          std::string(kHello) + "\n" +
              R"(echo '{"event": "start", "index": 0, "total": 1, "item": {"key": "ops/a/b/fp32"}}')"
              "\n"
              R"(echo '{"event": "result", "result": {"key": "ops/a/b/fp32", "status": "ok"}}')"
              "\n"
              R"(echo '{"event": "done", "results": [{"key": "ops/a/b/fp32", "status": "ok", "speedup": 2.5}]}')"
              "\n"),
      nullptr);
  std::vector<std::string> started, finished;
  RunCallbacks cb;
  cb.on_start = [&](const ItemInfo& i, std::size_t, std::size_t) { started.push_back(i.key); };
  cb.on_result = [&](const Result& r) { finished.push_back(r.key); };
  const auto results = e.run_ops({}, cb);
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].speedup, 2.5);
  EXPECT_EQ(started, std::vector<std::string>{"ops/a/b/fp32"});
  EXPECT_EQ(finished, std::vector<std::string>{"ops/a/b/fp32"});
}

TEST_F(FakeEngineScript, AnEngineThatDiesKeepsWhatItSentAndBlamesTheItem) {
  ProcessEngine e(
      write(
          "crash.sh",
          std::string(kHello) + "\n" +
              R"(echo '{"event": "plan", "items": [{"key": "ops/a/first/fp32"}, {"key": "ops/a/second/fp32"}, {"key": "ops/a/third/fp32", "name": "third"}]}')"
              "\n" +
              R"(echo '{"event": "start", "index": 0, "total": 2, "item": {"key": "ops/a/first/fp32"}}')"
              "\n"
              R"(echo '{"event": "result", "result": {"key": "ops/a/first/fp32", "status": "ok"}}')"
              "\n"
              R"(echo '{"event": "start", "index": 1, "total": 2, "item": {"key": "ops/a/second/fp32", "name": "second"}}')"
              "\necho 'RuntimeError: CUDA error: an illegal memory access was encountered' >&2\n"
              "kill -SEGV $$\n"),
      nullptr);
  OpsOptions o;
  o.device = "cuda:0";
  const auto results = e.run_ops(o, {});
  ASSERT_EQ(results.size(), 3u);
  EXPECT_EQ(results[0].status, Status::ok);
  EXPECT_EQ(results[1].key, "ops/a/second/fp32");
  EXPECT_EQ(results[1].status, Status::crashed);
  EXPECT_EQ(results[1].device, "cuda:0");
  EXPECT_NE(results[1].reason.find("engine process died"), std::string::npos) << results[1].reason;
  EXPECT_NE(results[1].evidence.value("stderr_tail", "").find("illegal memory access"), std::string::npos);
  // The planned item it never reached is reported as not run, not dropped.
  EXPECT_EQ(results[2].key, "ops/a/third/fp32");
  EXPECT_EQ(results[2].name, "third");
  EXPECT_EQ(results[2].status, Status::skipped);
  EXPECT_NE(results[2].reason.find("not run: the engine ended"), std::string::npos) << results[2].reason;
}

TEST_F(FakeEngineScript, AnEngineThatFailsBetweenItemsKeepsTheResults) {
  ProcessEngine e(
      write("exit.sh",
            std::string(kHello) + "\n" +
                R"(echo '{"event": "start", "index": 0, "total": 2, "item": {"key": "ops/a/first/fp32"}}')"
                "\n"
                R"(echo '{"event": "result", "result": {"key": "ops/a/first/fp32", "status": "ok"}}')"
                "\nexit 1\n"),
      nullptr);
  const auto results = e.run_ops({}, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::ok);
}
#endif  // !_WIN32

#if !defined(_WIN32)
// The worker seam (isolation.hpp): a Python-hosted engine starts its workers
// as `<python> -m accel_doctor.worker`, not as itself. A fake worker with
// extra arguments stands in for that command line.
TEST_F(FakeEngineScript, WorkersStartWithTheConfiguredCommand) {
  const std::string worker = write(
      "worker.sh",
      "[ \"$1\" = \"-m\" ] && [ \"$2\" = \"accel_doctor.worker\" ] || { echo \"argv: $*\" >&2; exit 9; }\n"
      R"(echo '{"event": "ready", "info": {}}')"
      "\n"
      R"(echo '{"event": "start", "key": "ops/a/b/fp32"}')"
      "\n"
      R"(echo '{"event": "result", "result": {"key": "ops/a/b/fp32", "status": "ok"}}')"
      "\n"
      R"(echo '{"event": "done"}')"
      "\n");
  ItemInfo item;
  item.key = "ops/a/b/fp32";
  item.kind = ResultKind::check;
  IsolationOptions iso;
  iso.suite = "ops";
  iso.item_timeout_s = 30;

  // Per run: the options name the command.
  iso.worker_command = {worker, "-m", "accel_doctor.worker"};
  auto results = run_isolated({item}, iso, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;

  // Process-wide: what an embedding engine sets once.
  iso.worker_command.clear();
  set_worker_command({worker, "-m", "accel_doctor.worker"});
  EXPECT_EQ(worker_command().at(1), "-m");
  results = run_isolated({item}, iso, {});
  set_worker_command({});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::ok) << results[0].reason;

  // The default is this executable itself with `__worker`.
  ASSERT_EQ(worker_command().size(), 2u);
  EXPECT_EQ(worker_command()[1], "__worker");

  // A wrong command line is the worker's failure, blamed on the item.
  iso.worker_command = {worker, "__worker"};
  results = run_isolated({item}, iso, {});
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status, Status::crashed);
}
#endif
