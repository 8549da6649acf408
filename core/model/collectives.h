// The factors of NCCL's collectives, written once: what share of its buffer each member of a
// group of n sends over its link.
#pragma once

namespace pe {

// A ring all-gather or reduce-scatter sends (n - 1) / n of the buffer per member, a ring
// all-reduce twice that (Patarasuk and Yuan 2009; nccl-tests' PERFORMANCE.md, whose bus
// bandwidth divides by the same factor); an all-to-all sends the n - 1 shares meant for the
// others, (n - 1) / n of it too.
inline double ring_share(int n) { return (n - 1.0) / n; }

}  // namespace pe
