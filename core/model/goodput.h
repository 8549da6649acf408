// Goodput: the time and money a run takes with its failures, checkpoints and restarts, which a
// step time alone does not show. At 16,384 GPUs Llama 3 405B was interrupted 419 times in 54
// days, unexpectedly, about every three hours (Dubey et al. 2024, Sec. 3.3.4).
//
// With the scenario's reliability block (scenario.h Reliability):
//   failures      lambda = the rates per GPU-hour, summed, x the job's GPUs; M = 1 / lambda
//   checkpoint    C bytes = parameters x (master weights + Adam's two moments), each saver's
//                 share C / savers (every GPU under ZeRO, one data-parallel replica without)
//   write W       = max(C / storage bandwidth, share / host link): the storage's, or each
//                 GPU's own path out, whichever binds; a reload R takes as long
//   pause P       = W; async (PyTorch DCP's async_save) the share's copy to host memory, the
//                 write going on behind training, which at an interval tau < W also waits for
//                 the rest of the last write: P + W - tau
//   lost L        = restart + R + (tau + pause) / 2 (+ W async: the newest checkpoint is not
//                 on storage until written), the work since the last checkpoint done again
//                 (Daly 2006)
//   effective E   = (1 - L / M) x tau / (tau + pause): the share of the wall clock that is new
//                 work (Kokolis et al. 2025's ETTR, with the pause)
//   best tau*     = sqrt(P^2 + 2 A M P) - P, A = 1 - (restart + R (+ W) + P / 2) / M: where
//                 dE/dtau = 0, at least W async; for P << M it is Young's sqrt(2 P M) (Young
//                 1974; Daly 2006)
// Time to train and cost with failures divide by E; hot spares are paid for, idle.
#pragma once

#include "model/report.h"
#include "model/scenario.h"

namespace pe {

GoodputReport goodput_report(const Scenario& s, const Report& r);

// The effective time of `s` laid out as `d` (its GPUs, model and ZeRO stage: what a checkpoint
// saves and how often the job fails), at the scenario's interval or the best: what the
// planner divides a step by to rank by time to train with failures.
double effective_time_of(const Scenario& s, const Degrees& d);

// The effective time E at checkpoint interval `interval_s` (the law "the best interval is never
// worse than another" compares them).
double effective_time_at(const Scenario& s, const Report& r, double interval_s);

}  // namespace pe
