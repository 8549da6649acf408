// Failures and checkpoints (model/goodput.h), and what the run costs (model/cost.h).
#include "explain/derivations.h"
#include "explain/derive.h"

namespace pe::explain {

namespace {

const char* const kGoodputSource =
    "Daly 2006 (FGCS 22(3)): a failure loses the work since the last checkpoint, half an "
    "interval on average, and the restart; Kokolis et al. 2025 (arXiv:2410.21680) ETTR";

}  // namespace

Derivation job_mtbf(const Scenario& s, const Report& r) {
  return derive("3600 ÷ (λ × n)",
                {{"λ", s.economics.reliability.failures_per_gpu_hour(), "per GPU-hour",
                  "failures per GPU-hour, every cause"},
                 {"n", 1.0 * r.gpus, "GPUs", "the job's GPUs"}},
                r.goodput.job_mtbf_s, "s",
                "a job fails when any of its GPUs does: Kokolis et al. 2025 (arXiv:2410.21680), "
                "MTTF = 1 ÷ (nodes × failure rate); rates by default Llama 3's (Dubey et al. 2024, "
                "Table 5: 419 unexpected interruptions in 21.2 million GPU-hours)");
}

Derivation checkpoint_write(const Scenario& s, const Report& r) {
  const GoodputReport& g = r.goodput;
  const double storage = s.economics.reliability.storage_gb_s * 1e9,
               host = s.gpu.host_link_gb_s * 1e9;
  const bool storage_binds = g.checkpoint_bytes / storage >= g.checkpoint_bytes_per_gpu / host;
  return derive(storage_binds ? "C ÷ S" : "c ÷ H",
                {{"C", g.checkpoint_bytes, "B", "model states: master weights and Adam's moments"},
                 {"S", storage, "B/s", "checkpoint storage bandwidth"},
                 {"c", g.checkpoint_bytes_per_gpu, "B", "the busiest saver's share"},
                 {"H", host, "B/s", "its path out, the host link"}},
                g.checkpoint_write_s, "s",
                "each GPU saves its shard as ZeRO shards it (without ZeRO one replica saves); "
                "the storage's bandwidth or each GPU's own path, whichever binds",
                storage_binds ? "the storage binds" : "each GPU's host link binds");
}

Derivation best_interval(const Report& r) {
  const GoodputReport& g = r.goodput;
  const Term mtbf{"M", g.job_mtbf_s, "s", "the job's mean time between failures"};
  switch (g.best_interval_by) {
    case BestInterval::kNoFailures:
      return derive("86400", {}, g.best_interval_s, "s", "no failures: one checkpoint a day");
    case BestInterval::kWrite:
      return derive("W", {{"W", g.checkpoint_write_s, "s", "checkpoint write"}}, g.best_interval_s,
                    "s",
                    "an async checkpoint waits for the last one's write: no shorter interval "
                    "gains");
    case BestInterval::kMtbf:
      return derive("M", {mtbf}, g.best_interval_s, "s",
                    "a failure loses more than the time between failures");
    case BestInterval::kOptimum:
      break;
  }
  return derive(
      "√(P × P + 2 × A × M × P) − P",
      {{"P", g.checkpoint_staging_s, "s", "checkpoint pause"},
       {"A", g.steady_share, "", "share of time not lost to restarts, reloads and half a pause"},
       mtbf},
      g.best_interval_s, "s",
      "where the effective time's derivative in the interval is 0; for P ≪ M it is "
      "Young's √(2 × P × M) (Young 1974, CACM 17(9); Daly 2006)");
}

Derivation effective_time(const Report& r) {
  const GoodputReport& g = r.goodput;
  const Term interval{"τ", g.checkpoint_interval_s, "s", "checkpoint interval"};
  const Term pause{"P", g.checkpoint_pause_s, "s", "checkpoint pause"};
  const Term loss{"L", g.lost_per_failure_s, "s", "lost per failure: work again, restart, reload"};
  const Term mtbf{"M", g.job_mtbf_s, "s", "the job's mean time between failures"};
  if (g.effective_time <= 0) {
    return derive("0", {}, 0, "",
                  "each failure loses more than the time between failures: the run never "
                  "gets ahead");
  }
  if (g.checkpoint_pause_s <= 0) {
    if (g.job_mtbf_s <= 0) return derive("1", {}, 1, "%", "no failures and nothing to save");
    return derive("1 − L ÷ M", {loss, mtbf}, g.effective_time, "%",
                  "nothing to save: a checkpoint costs no pause");
  }
  if (g.job_mtbf_s <= 0) {
    return derive("τ ÷ (τ + P)", {interval, pause}, g.effective_time, "%",
                  "no failures: only the checkpoints' pauses");
  }
  return derive("(1 − L ÷ M) × τ ÷ (τ + P)", {loss, mtbf, interval, pause}, g.effective_time, "%",
                kGoodputSource);
}

Derivation time_to_train_with_failures(const Report& r) {
  return derive("T ÷ E",
                {{"T", r.time.time_to_train_s, "s", "time to train without failures"},
                 {"E", r.goodput.effective_time, "", "effective time"}},
                r.goodput.time_to_train_s, "s", kGoodputSource);
}

Derivation cost_per_day(const Scenario& s, const Report& r) {
  return derive("n × 24 × c",
                {{"n", 1.0 * r.gpus, "GPUs", "GPUs"},
                 {"c", s.economics.price_per_gpu_hour, "$/GPU-hour", "price per GPU-hour"}},
                r.cost.usd_per_day, "$", "price_per_gpu_hour (set your own)");
}

// A trillion tokens at the run's pace, every GPU of the fleet paid for (cost.h).
Derivation cost_per_trillion_tokens(const Scenario& s, const Report& r) {
  return derive("n × (T ÷ τ) ÷ 3600 × c",
                {{"n", 1.0 * r.gpus, "GPUs", "GPUs"},
                 {"T", 1e12, "tokens", "a trillion tokens"},
                 {"τ", r.time.tokens_per_s, "tokens/s", "tokens per second"},
                 {"c", s.economics.price_per_gpu_hour, "$/GPU-hour", "price per GPU-hour"}},
                r.cost.usd_per_trillion_tokens, "$",
                "GPU-hours per trillion tokens, DeepSeek-V3's unit (arXiv:2412.19437 Sec. 1), "
                "at price_per_gpu_hour (set your own)");
}

}  // namespace pe::explain
