#include "planner.h"

#include <algorithm>
#include <cmath>

#include "comms.h"
#include "context.h"
#include "memory.h"
#include "moe.h"
#include "pipeline.h"
#include "schema.h"
#include "step_time.h"
#include "text.h"

namespace pe {
namespace {

std::vector<int> divisors(int n) {
  std::vector<int> out;
  for (int i = 1; i <= n; ++i) {
    if (n % i == 0) out.push_back(i);
  }
  return out;
}

// CP is searched where each CP rank still holds at least this many tokens of every sequence,
// that is for sequences of 16,384 tokens and more: shorter chunks leave the attention of a chunk
// too little work to hide a ring pass behind, and TP and PP already cut the activations of
// shorter sequences (Megatron-Core recommends CP for long-context training; Llama 3 used it
// only for its 131,072-token stage, at 8,192 tokens per rank). 2,048- to 8,192-token runs thus
// keep the three-seam space; Llama 3's 131,072 tokens search up to CP 16.
constexpr int kMinTokensPerContextRank = 8192;

// The context degrees the sequence calls for: 1, and every divisor of the sequence (and of
// the heads, with Ulysses) that leaves each rank kMinTokensPerContextRank tokens.
std::vector<int> context_degrees(const Scenario& s, int gpus) {
  std::vector<int> out;
  for (int cp : divisors(gpus)) {
    if (cp == 1) {
      out.push_back(cp);
      continue;
    }
    if (s.seq_len % cp != 0 || s.seq_len / cp < kMinTokensPerContextRank) continue;
    if (s.context_parallel == ContextParallel::kUlysses && s.model.heads % cp != 0) continue;
    out.push_back(cp);
  }
  return out;
}

// The expert degrees: 1 for a dense model; for an MoE, every divisor of both dp x cp and the
// experts (Megatron-Core: EP carved out of the data and context ranks, whole experts per rank).
std::vector<int> expert_degrees(const Scenario& s, int dp_cp) {
  if (!s.model.moe()) return {1};
  std::vector<int> out;
  for (int ep : divisors(dp_cp)) {
    if (s.model.experts % ep == 0) out.push_back(ep);
  }
  return out;
}

// Every (DP, TP, PP, CP, EP) the space holds, TP then CP then PP then EP ascending.
std::vector<Degrees> candidate_degrees(const Scenario& base) {
  std::vector<Degrees> out;
  for (int tp : divisors(base.gpus)) {
    if (base.model.heads % tp != 0) continue;
    if (base.model.moe() && tp % base.expert_tp != 0) continue;
    for (int cp : context_degrees(base, base.gpus / tp)) {
      for (int pp : divisors(base.gpus / (tp * cp))) {
        if (pp > base.model.layers || !split_problem(base, pp).empty()) continue;
        const int dp = base.gpus / (tp * cp * pp);
        if (base.global_batch % dp != 0) continue;
        for (int ep : expert_degrees(base, dp * cp)) out.push_back({dp, tp, pp, cp, ep});
      }
    }
  }
  return out;
}

// Faster first; among equally fast, less memory first.
bool better(const Plan& a, const Plan& b) {
  if (a.step_s != b.step_s) return a.step_s < b.step_s;
  return a.per_gpu_bytes < b.per_gpu_bytes;
}

// The explanation speaks as the page does: "a 23.4% bubble", "72.6 GB", "500 MB".
std::string percent(double fraction) { return short_number(100 * fraction) + "%"; }
std::string gb(double bytes) { return bytes_text(bytes); }

std::string explain(const Scenario& base, const PlanResult& r) {
  if (r.top.empty()) {
    return "No layout fits: even the most sharded one needs more than " +
           percent(safe_memory_fraction()) + " of the " + gb(base.gpu.memory_gb * 1e9) +
           " each GPU has. Use more or larger GPUs.";
  }
  const Plan& p = r.top.front();
  const Degrees& d = p.degrees;
  std::string why = "DP " + std::to_string(d.dp) + " x TP " + std::to_string(d.tp) + " x PP " +
                    std::to_string(d.pp) +
                    (d.cp > 1 ? " x CP " + std::to_string(d.cp) : std::string()) +
                    (d.ep > 1 ? " (EP " + std::to_string(d.ep) + ")" : std::string()) + " wins: ";
  why += d.tp > 1 ? std::string("TP ") + std::to_string(d.tp) +
                        (std::string(p.comms.tensor.link) == "nvlink"
                             ? " keeps the per-layer all-reduces on NVLink"
                             : " pays for all-reduces over the network")
                  : std::string("no TP, so no per-layer all-reduces");
  why += d.pp > 1 ? ", PP " + std::to_string(d.pp) + " costs a " + percent(p.bubble_fraction) +
                        " bubble"
                  : ", no pipeline bubble";
  if (d.cp > 1) {
    why += ", CP " + std::to_string(d.cp) + " splits each sequence (its K/V ride " +
           p.comms.context.link + ")";
  }
  if (d.ep > 1) {
    why += ", EP " + std::to_string(d.ep) + " splits the experts (their all-to-alls ride " +
           p.comms.expert.link + ")";
  }
  why += ", and it needs " + gb(p.per_gpu_bytes) + " of the " + gb(base.gpu.memory_gb * 1e9) +
         " per GPU";
  if (r.top.size() > 1) {
    const double lead = r.top[1].step_s / p.step_s - 1;
    why += lead < 0.005 ? "; the runner-up is within 0.5%"
                        : "; " + percent(lead) + " faster than the runner-up";
  }
  return why + ".";
}

}  // namespace

Scenario scenario_of(const Scenario& base, const Plan& p) {
  Scenario s = base;
  s.degrees = p.degrees;
  s.zero_stage = p.zero_stage;
  s.recompute = p.recompute;
  s.sequence_parallel = p.sequence_parallel;
  s.micro_batch = p.micro_batch;
  s.schedule = p.schedule;
  s.virtual_stages = p.virtual_stages;
  s.memory_model = MemoryModel::kFull;
  return s;
}

PlanResult plan(const Scenario& base, int top_k) {
  PlanResult result;
  Scenario s = base;
  s.memory_model = MemoryModel::kFull;
  const double memory_bytes = base.gpu.memory_gb * 1e9 * safe_memory_fraction();
  // Never offer a plan the contract would refuse: v stops where the field's range does.
  const int max_virtual = static_cast<int>(find_field("virtual_stages")->max);
  std::vector<Plan> heap;  // the best top_k so far, worst on top
  auto offer = [&](const Plan& p) {
    if (static_cast<int>(heap.size()) < top_k) {
      heap.push_back(p);
      std::push_heap(heap.begin(), heap.end(), better);
    } else if (top_k > 0 && better(p, heap.front())) {
      std::pop_heap(heap.begin(), heap.end(), better);
      heap.back() = p;
      std::push_heap(heap.begin(), heap.end(), better);
    }
  };

  for (const Degrees& d : candidate_degrees(base)) {
    const int pp = d.pp, tp = d.tp;
    const StageSplit split = stage_split(s, pp);
    for (int b = 1; b <= 64 && b * d.dp <= base.global_batch; b *= 2) {
      if (base.global_batch % (b * d.dp) != 0) continue;
      s.micro_batch = b;
      const int m = base.global_batch / (b * d.dp);
      // v = 1 is 1F1B; v > 1 interleaved.
      for (int v = 1; v <= (pp > 1 ? std::min(split.most(), max_virtual) : 1); ++v) {
        const bool chunks_even = split.first % v == 0 && split.last % v == 0 &&
                                 (pp <= 2 || split.middle % v == 0) &&
                                 (split.extra_from >= pp - 1 || (split.middle + 1) % v == 0);
        if (v > 1 && (!chunks_even || m % pp != 0)) {
          continue;
        }
        s.schedule = v > 1 ? Schedule::kInterleaved : Schedule::kOneFOneB;
        s.virtual_stages = v;
        PipelineReport pipeline = pipeline_report(s, d);
        for (int sp = 0; sp <= (tp > 1 ? 1 : 0); ++sp) {
          s.sequence_parallel = sp == 1;
          for (Recompute rc : {Recompute::kNone, Recompute::kSelective, Recompute::kFull}) {
            s.recompute = rc;
            for (int z = 0; z <= 3; ++z) {
              if (z > 0 && d.dp == 1) break;  // ZeRO shards over DP: nothing to shard
              s.zero_stage = z;
              ++result.evaluated;
              const StageMemory peak = peak_stage_memory(s, d, m);
              const double bytes = peak.breakdown.total_bytes();
              if (bytes > memory_bytes) continue;
              ++result.feasible;
              Plan p;
              p.degrees = d;
              p.zero_stage = z;
              p.recompute = rc;
              p.sequence_parallel = s.sequence_parallel;
              p.micro_batch = b;
              p.schedule = s.schedule;
              p.virtual_stages = v;
              p.per_gpu_bytes = bytes;
              p.comms = comms_report(s, d, m);
              const TimeReport t = time_report(s, d, pipeline, p.comms, base.global_batch);
              p.step_s = t.step_s;
              p.bubble_fraction = pipeline.bubble_fraction;
              p.mfu = t.mfu;
              p.tokens_per_s = t.tokens_per_s;
              offer(p);
            }
          }
        }
      }
    }
  }
  std::sort_heap(heap.begin(), heap.end(), better);
  result.top = std::move(heap);
  result.why_best = explain(base, result);
  return result;
}

}  // namespace pe
