#include "model/goodput.h"

#include <algorithm>
#include <cmath>

namespace pe {
namespace {

constexpr double kSecondsPerHour = 3600, kSecondsPerDay = 86400;

// What one failure and one checkpoint cost the run, at any interval.
struct Costs {
  double mtbf_s = 0;
  double bytes = 0, bytes_per_gpu = 0;
  double write_s = 0, pause_s = 0;
  bool async = false;
  double fixed_loss_s = 0;  // restart, reload, and async the newest checkpoint's write
  // What training waits at a checkpoint `interval_s` after the last: its pause, and async the
  // rest of the last one's write, which must end before this one starts.
  double pause_at(double interval_s) const {
    return async ? pause_s + std::max(0.0, write_s - interval_s) : pause_s;
  }
  // The share of the running time that is work, not pauses: tau / (tau + pause). With nothing
  // to save there is no pause at any interval, the best interval among them 0.
  double work_share(double interval_s) const {
    const double pause = pause_at(interval_s);
    return pause > 0 ? interval_s / (interval_s + pause) : 1;
  }
};

Costs costs_of(const Scenario& s, const Degrees& d) {
  const Reliability& y = s.economics.reliability;
  const Precision& p = s.recipe.precision;
  Costs c;
  const double rate = y.failures_per_gpu_hour() * s.fleet.gpus;
  c.mtbf_s = rate > 0 ? kSecondsPerHour / rate : 0;
  // The master copy is what a restart resumes from; without one, the weights themselves.
  const double weight = p.master_bytes > 0 ? p.master_bytes : p.weight_bytes;
  c.bytes = s.model.params * (weight + p.adam_m_bytes + p.adam_v_bytes);
  // ZeRO shards the states over the data-parallel group, so every GPU saves its own; without
  // it the replicas hold the same states and one replica saves them.
  const double replicas = s.recipe.zero_stage >= 1 ? 1 : 1.0 * d.dp * d.cp;
  c.bytes_per_gpu = c.bytes / std::max(1.0, static_cast<double>(d.product()) / replicas);
  const double host = s.gpu.host_link_gb_s * 1e9;
  c.write_s = std::max(c.bytes / (y.storage_gb_s * 1e9), c.bytes_per_gpu / host);
  c.async = y.async_checkpoint;
  c.pause_s = c.async ? c.bytes_per_gpu / host : c.write_s;
  c.fixed_loss_s = y.restart_s + c.write_s + (c.async ? c.write_s : 0);
  return c;
}

// The work a failure loses at interval tau: since the last checkpoint on storage, half a cycle
// on average, and the restart with its reload.
double lost_at(const Costs& c, double interval_s) {
  return c.fixed_loss_s + (interval_s + c.pause_at(interval_s)) / 2;
}

double effective(const Costs& c, double interval_s) {
  const double running = c.work_share(interval_s);
  if (c.mtbf_s <= 0) return running;
  return std::max(0.0, 1 - lost_at(c, interval_s) / c.mtbf_s) * running;
}

// Where dE/dtau = 0 with a fixed pause P: tau^2 + 2 P tau - 2 A M P = 0, A = 1 - (fixed loss +
// P / 2) / M. Async, an interval under the write W only waits for it (E rises with tau
// there), so the best is at least W. With its rule, which its derivation shows.
struct Best {
  double interval_s = 0;
  BestInterval by = BestInterval::kOptimum;
  double steady_share = 1;  // A
};

Best best_interval(const Costs& c) {
  Best b{kSecondsPerDay, BestInterval::kNoFailures, 1};
  if (c.mtbf_s > 0) {
    const double a = 1 - (c.fixed_loss_s + c.pause_s / 2) / c.mtbf_s;
    const double p = c.pause_s;
    b = a <= 0 ? Best{c.mtbf_s, BestInterval::kMtbf, a}
               : Best{std::sqrt(p * p + 2 * a * c.mtbf_s * p) - p, BestInterval::kOptimum, a};
  }
  const double floor_s = c.async ? c.write_s : 0;
  if (b.interval_s < floor_s) b = {floor_s, BestInterval::kWrite, b.steady_share};
  return b;
}

double interval_of(const Scenario& s, const Costs& c) {
  const double given = s.economics.reliability.checkpoint_interval_s;
  return given > 0 ? given : best_interval(c).interval_s;
}

}  // namespace

double effective_time_at(const Scenario& s, const Report& r, double interval_s) {
  return effective(costs_of(s, r.degrees), interval_s);
}

double effective_time_of(const Scenario& s, const Degrees& d) {
  const Costs c = costs_of(s, d);
  return effective(c, interval_of(s, c));
}

GoodputReport goodput_report(const Scenario& s, const Report& r) {
  const Costs c = costs_of(s, r.degrees);
  GoodputReport g;
  g.job_mtbf_s = c.mtbf_s;
  g.failures_per_day = c.mtbf_s > 0 ? kSecondsPerDay / c.mtbf_s : 0;
  g.checkpoint_bytes = c.bytes;
  g.checkpoint_bytes_per_gpu = c.bytes_per_gpu;
  g.checkpoint_write_s = c.write_s;
  g.checkpoint_staging_s = c.pause_s;
  const Best best = best_interval(c);
  g.best_interval_s = best.interval_s;
  g.best_interval_by = best.by;
  g.steady_share = best.steady_share;
  g.checkpoint_interval_s = interval_of(s, c);
  const double tau = g.checkpoint_interval_s;
  g.checkpoint_pause_s = c.pause_at(tau);
  g.lost_per_failure_s = lost_at(c, tau);
  g.effective_time = effective(c, tau);
  const double e = g.effective_time;
  const double price = s.economics.price_per_gpu_hour;
  const int paid = r.gpus + s.economics.reliability.hot_spares;
  g.usd_per_day = paid * 24 * price;
  if (e > 0 && r.time.time_to_train_s > 0) {
    g.time_to_train_s = r.time.time_to_train_s / e;
    g.usd_to_train = paid * g.time_to_train_s / kSecondsPerHour * price;
  }
  // One day: its failures each cost the work done again and the restart with its reload; the
  // rest is new work and checkpoint pauses, in the ratio tau : pause.
  const double lost_day = std::min(kSecondsPerDay, g.failures_per_day * g.lost_per_failure_s);
  const double restart_each = s.economics.reliability.restart_s + c.write_s;
  g.day_restart_s = g.lost_per_failure_s > 0 ? lost_day * restart_each / g.lost_per_failure_s : 0;
  g.day_redone_s = lost_day - g.day_restart_s;
  const double running = kSecondsPerDay - lost_day;
  g.day_work_s = running * c.work_share(tau);
  g.day_checkpoint_s = running - g.day_work_s;
  return g;
}

}  // namespace pe
