// core/multi/launch.hpp: the variables torchrun and srun set (as their
// documentation lists them), by hand, and those that do not add up.
#include <gtest/gtest.h>

#include "core/multi/launch.hpp"

namespace accel::multi {
namespace {

using Env = std::map<std::string, std::string>;

TEST(MultiLaunch, NoLauncher) {
  const auto l = detect_launch(Env{{"PATH", "/usr/bin"}});
  EXPECT_EQ(l.launcher, Launcher::none);
  EXPECT_FALSE(l.distributed());
  EXPECT_TRUE(l.note.empty());
}

TEST(MultiLaunch, Torchrun) {
  // torchrun --nnodes 2 --nproc-per-node 4, the second process of node 1.
  const Env env{{"RANK", "5"},
                {"WORLD_SIZE", "8"},
                {"LOCAL_RANK", "1"},
                {"LOCAL_WORLD_SIZE", "4"},
                {"GROUP_RANK", "1"},
                {"MASTER_ADDR", "node0"},
                {"MASTER_PORT", "29500"},
                {"TORCHELASTIC_RUN_ID", "job42"},
                {"TORCHELASTIC_RESTART_COUNT", "0"}};
  const auto l = detect_launch(env);
  EXPECT_EQ(l.launcher, Launcher::torchrun);
  EXPECT_TRUE(l.distributed());
  EXPECT_EQ(l.rank, 5);
  EXPECT_EQ(l.world_size, 8);
  EXPECT_EQ(l.local_rank, 1);
  EXPECT_EQ(l.local_world_size, 4);
  EXPECT_EQ(l.node_rank, 1);
  EXPECT_EQ(l.master_addr, "node0");
  EXPECT_EQ(l.master_port, 29500);
  EXPECT_EQ(l.job_id, "job42");
  EXPECT_FALSE(l.agent_store);
  EXPECT_FALSE(l.source.empty());
}

TEST(MultiLaunch, TorchrunAgentStore) {
  const Env env{{"RANK", "0"},
                {"WORLD_SIZE", "2"},
                {"LOCAL_RANK", "0"},
                {"LOCAL_WORLD_SIZE", "2"},
                {"MASTER_ADDR", "127.0.0.1"},
                {"MASTER_PORT", "41231"},
                {"TORCHELASTIC_RUN_ID", "none"},
                {"TORCHELASTIC_USE_AGENT_STORE", "True"},
                {"TORCHELASTIC_RESTART_COUNT", "2"}};
  const auto l = detect_launch(env);
  EXPECT_TRUE(l.agent_store);
  EXPECT_EQ(l.store_prefix, "/worker/attempt_2");  // as torch/distributed/rendezvous.py
}

TEST(MultiLaunch, ByHand) {
  const auto l = detect_launch(
      Env{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "127.0.0.1"}, {"MASTER_PORT", "29511"}});
  EXPECT_EQ(l.launcher, Launcher::env);
  EXPECT_EQ(l.local_rank, 1);  // LOCAL_RANK defaults to RANK
  EXPECT_EQ(l.local_world_size, 2);
}

TEST(MultiLaunch, Srun) {
  // srun -N 2 --ntasks-per-node 2: task 3 on the second node.
  const Env env{{"SLURM_PROCID", "3"},
                {"SLURM_NTASKS", "4"},
                {"SLURM_STEP_NUM_TASKS", "4"},
                {"SLURM_LOCALID", "1"},
                {"SLURM_NODEID", "1"},
                {"SLURM_STEP_ID", "0"},
                {"SLURM_STEP_NODELIST", "gpu[07-08]"},
                {"SLURM_NTASKS_PER_NODE", "2"},
                {"SLURM_JOB_ID", "123456"}};
  const auto l = detect_launch(env);
  EXPECT_EQ(l.launcher, Launcher::slurm);
  EXPECT_EQ(l.rank, 3);
  EXPECT_EQ(l.world_size, 4);
  EXPECT_EQ(l.local_rank, 1);
  EXPECT_EQ(l.local_world_size, 2);
  EXPECT_EQ(l.node_rank, 1);
  ASSERT_EQ(l.nodes.size(), 2u);
  EXPECT_EQ(l.master_addr, "gpu07");
  EXPECT_EQ(l.master_port, 29500 + 456);
}

TEST(MultiLaunch, SrunWithMasterSet) {
  const Env env{{"SLURM_PROCID", "0"},     {"SLURM_NTASKS", "2"},       {"SLURM_STEP_ID", "1"},
                {"SLURM_NODELIST", "a,b"}, {"MASTER_ADDR", "10.0.0.5"}, {"MASTER_PORT", "12345"}};
  const auto l = detect_launch(env);
  EXPECT_EQ(l.master_addr, "10.0.0.5");
  EXPECT_EQ(l.master_port, 12345);
}

TEST(MultiLaunch, BatchScriptWithoutSrunRunsAlone) {
  // sbatch's own shell has SLURM_PROCID=0 and SLURM_NTASKS=4 but no step.
  const auto l =
      detect_launch(Env{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "4"}, {"SLURM_NODELIST", "gnode[10,20]"}});
  EXPECT_EQ(l.launcher, Launcher::none);
  EXPECT_NE(l.note.find("srun"), std::string::npos);
}

TEST(MultiLaunch, TorchrunWinsOverSlurm) {
  const Env env{{"RANK", "0"},       {"WORLD_SIZE", "2"},   {"MASTER_ADDR", "h"},  {"MASTER_PORT", "1"},
                {"GROUP_RANK", "0"}, {"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_STEP_ID", "0"}};
  EXPECT_EQ(detect_launch(env).launcher, Launcher::torchrun);
}

TEST(MultiLaunch, ContradictionsAreErrors) {
  EXPECT_THROW(
      detect_launch(Env{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}}),
      LaunchError);
  EXPECT_THROW(detect_launch(Env{{"RANK", "x"}, {"WORLD_SIZE", "2"}}), LaunchError);
  EXPECT_THROW(detect_launch(Env{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_PORT", "1"}}), LaunchError);
  EXPECT_THROW(
      detect_launch(Env{{"RANK", "0"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "70000"}}),
      LaunchError);
  try {
    detect_launch(Env{{"RANK", "3"}, {"WORLD_SIZE", "2"}, {"MASTER_ADDR", "h"}, {"MASTER_PORT", "1"}});
    FAIL();
  } catch (const LaunchError& e) {
    EXPECT_NE(std::string(e.what()).find("RANK=3"), std::string::npos);
  }
  // One rank alone needs no store.
  EXPECT_NO_THROW(detect_launch(Env{{"RANK", "0"}, {"WORLD_SIZE", "1"}}));
}

TEST(MultiLaunch, EnvironmentEntries) {
  const auto l = detect_launch(std::vector<std::string>{"RANK=0", "WORLD_SIZE=2", "MASTER_ADDR=127.0.0.1",
                                                        "MASTER_PORT=29500", "RANK=1", "=odd", "NOEQUALS"});
  EXPECT_EQ(l.rank, 0);  // the first definition wins, as getenv
}

TEST(MultiLaunch, SlurmHostlists) {
  EXPECT_EQ(expand_slurm_nodelist("gpu[01-03,07],login1"),
            (std::vector<std::string>{"gpu01", "gpu02", "gpu03", "gpu07", "login1"}));
  EXPECT_EQ(expand_slurm_nodelist("node[8-10]"), (std::vector<std::string>{"node8", "node9", "node10"}));
  EXPECT_EQ(expand_slurm_nodelist("a-b[1-2].ib"), (std::vector<std::string>{"a-b1.ib", "a-b2.ib"}));
  EXPECT_EQ(expand_slurm_nodelist("solo"), (std::vector<std::string>{"solo"}));
  EXPECT_THROW(expand_slurm_nodelist("gpu[01-03"), LaunchError);
  EXPECT_THROW(expand_slurm_nodelist("gpu[3-1]"), LaunchError);
  EXPECT_THROW(expand_slurm_nodelist("gpu[a-b]"), LaunchError);
  EXPECT_THROW(expand_slurm_nodelist("a,,b"), LaunchError);
}

TEST(MultiLaunch, PerRankPaths) {
  EXPECT_EQ(per_rank_path("r.json", 1, 4), "r.rank1.json");
  EXPECT_EQ(per_rank_path("out/r-{rank}.json", 3, 4), "out/r-3.json");
  EXPECT_EQ(per_rank_path("dir.d/report", 2, 4), "dir.d/report.rank2");
  EXPECT_EQ(per_rank_path("r.json", 0, 1), "r.json");
  EXPECT_EQ(per_rank_path("", 1, 4), "");
}

}  // namespace
}  // namespace accel::multi
