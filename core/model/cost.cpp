#include "model/cost.h"

namespace pe {

double gpu_hours_per_trillion_tokens(int gpus, double tokens_per_s) {
  constexpr double kSecondsPerHour = 3600;
  return tokens_per_s > 0 ? gpus * (1e12 / tokens_per_s) / kSecondsPerHour : 0;
}

CostReport cost_report(const Scenario& s, const TimeReport& t) {
  constexpr double kSecondsPerHour = 3600, kSecondsPerDay = 86400;
  CostReport c;
  c.price_per_gpu_hour = s.economics.price_per_gpu_hour;
  c.gpu_hours_per_step = s.fleet.gpus * t.step_s / kSecondsPerHour;
  c.usd_per_step = c.gpu_hours_per_step * s.economics.price_per_gpu_hour;
  c.tokens_per_day = t.tokens_per_s * kSecondsPerDay;
  c.gpu_hours_per_day = s.fleet.gpus * kSecondsPerDay / kSecondsPerHour;
  c.usd_per_day = c.gpu_hours_per_day * s.economics.price_per_gpu_hour;
  c.gpu_hours_per_trillion_tokens = gpu_hours_per_trillion_tokens(s.fleet.gpus, t.tokens_per_s);
  c.usd_per_trillion_tokens = c.gpu_hours_per_trillion_tokens * s.economics.price_per_gpu_hour;
  c.gpu_hours_to_train = s.fleet.gpus * t.time_to_train_s / kSecondsPerHour;
  c.usd_to_train = c.gpu_hours_to_train * s.economics.price_per_gpu_hour;
  return c;
}

}  // namespace pe
