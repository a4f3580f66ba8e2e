#include "engines/torch/multi/local_ranks.hpp"

#include <chrono>

#include "engine_api/isolation.hpp"

namespace accel::engine {

LocalRanks::LocalRanks(const json& job, int world) {
  const auto argv = worker_command();
  if (argv.empty())
    throw platform::SubprocessError("this engine cannot find its own executable to start ranks");
  for (int r = 1; r < world; ++r) {
    auto p = std::make_unique<Peer>();
    p->rank = r;
    p->proc = std::make_unique<platform::Subprocess>(platform::Subprocess::spawn(argv));
    json j = job;
    j["rank"] = r;
    p->proc->write_stdin_and_close(j.dump() + "\n");
    Peer* raw = p.get();
    p->drain = std::thread([this, raw] {
      std::string line;
      while (!stop_) {
        if (raw->proc->read_line(line, std::chrono::milliseconds(200)) ==
            platform::Subprocess::ReadResult::eof) {
          raw->eof = true;
          return;
        }
      }
    });
    peers_.push_back(std::move(p));
  }
}

LocalRanks::~LocalRanks() {
  // Give the ranks a moment to finish their last item and exit on their own.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  for (auto& p : peers_) {
    while (!p->eof && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
  }
  stop_ = true;
  for (auto& p : peers_) {
    if (p->drain.joinable()) p->drain.join();
    p->proc->wait(std::chrono::milliseconds(p->eof ? 2000 : 0));
  }
}

std::vector<int> LocalRanks::ended() const {
  std::vector<int> out;
  for (const auto& p : peers_) {
    if (p->eof) out.push_back(p->rank);
  }
  return out;
}

}  // namespace accel::engine
