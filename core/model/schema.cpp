#include "model/schema.h"

#include <algorithm>

#include "model/layout.h"
#include "model/presets.h"

namespace pe {
namespace {

using json = Json;
using Get = double (*)(const Scenario&);
using Set = void (*)(Scenario&, double);

// Accessors for one member of Scenario, as a getter and a setter of doubles.
#define PE_INT(m)                                             \
  [](const Scenario& s) { return static_cast<double>(s.m); }, \
      [](Scenario& s, double v) { s.m = static_cast<int>(v); }
#define PE_REAL(m) [](const Scenario& s) { return s.m; }, [](Scenario& s, double v) { s.m = v; }
#define PE_BOOL(m) \
  [](const Scenario& s) { return s.m ? 1.0 : 0.0; }, [](Scenario& s, double v) { s.m = v != 0; }
#define PE_ENUM(m, T)                                                           \
  [](const Scenario& s) { return static_cast<double>(static_cast<int>(s.m)); }, \
      [](Scenario& s, double v) { s.m = static_cast<T>(static_cast<int>(v)); }
// Explicit degrees are optional: reading one of them creates them (the others stay 1).
#define PE_DEGREE(m)                                                          \
  [](const Scenario& s) {                                                     \
    return s.recipe.degrees ? static_cast<double>(s.recipe.degrees->m) : 1.0; \
  },                                                                          \
      [](Scenario& s, double v) {                                             \
        if (!s.recipe.degrees) s.recipe.degrees.emplace();                    \
        s.recipe.degrees->m = static_cast<int>(v);                            \
      }

// The page writes its own words for each field, so the wasm modules leave the docs out
// (PE_NO_FIELD_DOCS): about 2 KB of the first load. `explore --schema` and core/README.md's
// table have them.
#ifdef PE_NO_FIELD_DOCS
constexpr bool kFieldDocs = false;
#else
constexpr bool kFieldDocs = true;
#endif

Field make(const char* key, FieldType type, const char* group, const char* unit, const char* doc,
           double lo = 0, double hi = 0) {
  Field f{};
  f.key = key;
  f.type = type;
  f.group = group;
  f.unit = unit;
  f.doc = kFieldDocs ? doc : "";
  f.min = lo;
  f.max = hi;
  return f;
}

Field integer(const char* key, const char* group, const char* unit, double lo, double hi,
              const char* doc, Get get, Set set) {
  Field f = make(key, FieldType::kInteger, group, unit, doc, lo, hi);
  f.get = get;
  f.set = set;
  return f;
}

Field number(const char* key, const char* group, const char* unit, double lo, double hi,
             const char* doc, Get get, Set set, bool lo_exclusive = false) {
  Field f = make(key, FieldType::kNumber, group, unit, doc, lo, hi);
  f.min_exclusive = lo_exclusive;
  f.get = get;
  f.set = set;
  return f;
}

Field boolean(const char* key, const char* group, const char* doc, Get get, Set set) {
  Field f = make(key, FieldType::kBoolean, group, "", doc);
  f.get = get;
  f.set = set;
  return f;
}

Field choice(const char* key, const char* group, std::vector<std::string> choices, const char* doc,
             Get get, Set set) {
  Field f = make(key, FieldType::kEnum, group, "", doc);
  f.choices = std::move(choices);
  f.get = get;
  f.set = set;
  return f;
}

// A list of choices, held as a bit per choice.
Field subset(const char* key, const char* group, std::vector<std::string> choices, const char* doc,
             Get get, Set set) {
  Field f = choice(key, group, std::move(choices), doc, get, set);
  f.type = FieldType::kSet;
  return f;
}

// A failure rate of the reliability block (goodput.h), per million GPU-hours.
Field failure_rate(const char* key, const char* doc, Get get, Set set) {
  return number(key, "economics", "per million GPU-hours", 0, 1e6, doc, get, set);
}

// Groups of fields (seams, degrees): their rows carry the values.
Field group_of(const char* key, const char* group, const char* doc) {
  return make(key, FieldType::kObject, group, "", doc);
}

using GetText = std::string (*)(const Scenario&);
using SetText = bool (*)(Scenario&, const std::string&);

// Presets, text and the order: read and written as text.
Field text(const char* key, FieldType type, const char* group, const char* doc,
           std::vector<std::string> choices, GetText get, SetText set) {
  Field f = make(key, type, group, "", doc);
  f.choices = std::move(choices);
  f.get_text = get;
  f.set_text = set;
  return f;
}

// A field that a preset's choice sets (the preset field's key: "model", "gpu", "precision").
Field detail(const char* preset, Field f) {
  f.detail_of = preset;
  return f;
}

// A preset's value a user may override without making the preset "custom": a calibrated one
// (efficiency) or the fleet's (the network).
Field tuning(const char* preset, Field f) {
  f.detail_of = preset;
  f.tunes_preset = true;
  return f;
}

// A preset's name: picks it (false for a name the presets do not have).
bool pick_model(Scenario& s, const std::string& name) {
  const auto p = find_model(name);
  if (p) s.model = *p;
  return p.has_value();
}
bool pick_gpu(Scenario& s, const std::string& name) {
  const auto p = find_gpu(name);
  if (p) s.gpu = *p;
  return p.has_value();
}
bool pick_precision(Scenario& s, const std::string& name) {
  const auto p = find_precision(name);
  if (p) s.recipe.precision = *p;
  return p.has_value();
}
std::string model_name(const Scenario& s) { return s.model.name; }

template <class T>
std::vector<std::string> names_of(const std::vector<T>& presets) {
  std::vector<std::string> out;
  for (const T& p : presets) out.push_back(p.name);
  return out;
}

std::vector<Field> make_fields() {
  const auto models = names_of(model_presets());
  const auto gpus = names_of(gpu_presets());
  const auto precisions = names_of(precision_presets());
  using T = FieldType;
  std::vector<Field> f = {
      integer("gpus", "fleet", "GPUs", 1, 16384, "GPUs in the fleet", PE_INT(fleet.gpus)),
      integer("gpus_per_node", "fleet", "GPUs", 1, 1024,
              "GPUs per node or tray (one rail each); absent: the GPU preset's (GB200-NVL72 4)",
              PE_INT(fleet.gpus_per_node)),
      number("network_oversubscription", "fleet", "ratio", 1, 16,
             "the scale-out spine's oversubscription: traffic between rails gets the network / "
             "this; traffic on one rail (same GPU index in every node) never crosses the spine",
             PE_REAL(fleet.network_oversubscription)),
      group_of("seams", "recipe", "which seams auto-factor the GPU count"),
      boolean("seams.data", "recipe", "data parallelism on", PE_BOOL(recipe.seams.data)),
      boolean("seams.tensor", "recipe", "tensor parallelism on", PE_BOOL(recipe.seams.tensor)),
      boolean("seams.pipeline", "recipe", "pipeline parallelism on",
              PE_BOOL(recipe.seams.pipeline)),
      boolean("seams.context", "recipe", "context parallelism on: the sequence split over GPUs",
              PE_BOOL(recipe.seams.context)),
      boolean("seams.expert", "recipe",
              "expert parallelism on: MoE experts split over the data and context ranks",
              PE_BOOL(recipe.seams.expert)),
      text(
          "order", T::kOrder, "recipe",
          "how ranks are numbered, innermost first (the chapter's rule: tp,pp,dp); cp sits just "
          "outside tp",
          {"tp", "pp", "dp"}, [](const Scenario& s) { return order_text(s.recipe.order); },
          [](Scenario& s, const std::string& v) {
            const auto order = order_from_text(v);
            if (order) s.recipe.order = *order;
            return order.has_value();
          }),
      group_of("degrees", "recipe",
               "explicit degrees (product = gpus); override the seams; null: auto-factor"),
      integer("degrees.dp", "recipe", "", 1, 16384, "data-parallel degree", PE_DEGREE(dp)),
      integer("degrees.tp", "recipe", "", 1, 16384, "tensor-parallel degree", PE_DEGREE(tp)),
      integer("degrees.pp", "recipe", "", 1, 16384, "pipeline-parallel degree", PE_DEGREE(pp)),
      integer("degrees.cp", "recipe", "", 1, 16384, "context-parallel degree; divides seq_len",
              PE_DEGREE(cp)),
      integer("degrees.ep", "recipe", "", 1, 16384,
              "expert-parallel degree, carved out of dp x cp: divides dp x cp and the experts",
              PE_DEGREE(ep)),
      choice("context_parallel", "recipe", {"ring", "all_gather", "ulysses"},
             "how CP exchanges keys and values: ring passes, one all-gather, or Ulysses "
             "all-to-alls",
             PE_ENUM(recipe.context_parallel, ContextParallel)),
      integer("expert_tp", "recipe", "", 1, 1024,
              "tensor-parallel degree inside each expert; divides the TP degree",
              PE_INT(recipe.expert_tp)),

      text("model", T::kPreset, "model", "a preset name, or an object of the model.* fields",
           models, model_name, pick_model),
      text("model.preset", T::kPreset, "model", "the preset the other fields override", models,
           model_name, pick_model),
      text("model.name", T::kString, "model", "a name to show", {}, model_name,
           [](Scenario& s, const std::string& v) {
             s.model.name = v;
             return true;
           }),
      detail("model", integer("model.layers", "model", "", 1, 10000, "transformer layers (L)",
                              PE_INT(model.layers))),
      detail("model", integer("model.hidden", "model", "", 1, 1 << 20, "hidden size (h)",
                              PE_INT(model.hidden))),
      detail("model",
             integer("model.heads", "model", "", 1, 1 << 20,
                     "attention heads (a); divides h unless head_dim is set", PE_INT(model.heads))),
      detail("model", integer("model.vocab", "model", "tokens", 1, 1e7, "vocabulary (V)",
                              PE_INT(model.vocab))),
      detail("model", integer("model.kv_heads", "model", "", 0, 1 << 20,
                              "key/value heads (GQA, MQA); divides heads; 0: heads",
                              PE_INT(model.kv_heads))),
      detail("model", integer("model.head_dim", "model", "", 0, 1024,
                              "each attention head's width (d); 0: h / a", PE_INT(model.head_dim))),
      detail("model", integer("model.ffn_hidden", "model", "", 0, 1 << 24, "MLP width (f); 0: 4h",
                              PE_INT(model.ffn_hidden))),
      detail(
          "model",
          choice(
              "model.activation", "model", {"gelu", "swiglu"},
              "gelu: GPT's MLP, biases, LayerNorm; swiglu: Llama's gated MLP, RMSNorm, no biases",
              PE_ENUM(model.activation, Activation))),
      detail("model", choice("model.position", "model", {"learned", "rope"},
                             "learned: an s x h position table; rope (or ALiBi): none",
                             PE_ENUM(model.position, Position))),
      detail("model",
             boolean("model.tied_embeddings", "model", "the output layer reuses the word embedding",
                     PE_BOOL(model.tied_embeddings))),
      detail("model",
             choice("model.attention", "model", {"multi_head", "latent"},
                    "multi_head (grouped with kv_heads), or DeepSeek's multi-head latent attention",
                    PE_ENUM(model.attention, Attention))),
      detail("model",
             integer("model.experts", "model", "", 0, 16384,
                     "routed experts per MoE layer; 0: a dense model", PE_INT(model.experts))),
      detail("model",
             integer("model.experts_per_token", "model", "", 1, 16384,
                     "routed experts each token uses (top-k)", PE_INT(model.experts_per_token))),
      detail("model", integer("model.moe_ffn_hidden", "model", "", 0, 1 << 20,
                              "width of each expert's MLP; 0: the dense MLP's",
                              PE_INT(model.moe_ffn_hidden))),
      detail("model", integer("model.shared_experts", "model", "", 0, 64,
                              "experts every token uses, beside the routed ones",
                              PE_INT(model.shared_experts))),
      detail("model", integer("model.dense_layers", "model", "", 0, 10000,
                              "leading layers that keep a dense MLP", PE_INT(model.dense_layers))),
      number("model.params", "model", "parameters", 1e6, 1e14,
             "parameters; counted from the shape when absent; within 5% of that count unless "
             "given without an architecture, which scales the shape to them",
             PE_REAL(model.params)),
      boolean("model.shape_nominal", "model",
              "the shape only a template scaled to params (set when params come without an "
              "architecture)",
              PE_BOOL(model.shape_nominal)),
      integer("seq_len", "batch", "tokens", 1, 1 << 20, "sequence length (s)",
              PE_INT(batch.seq_len)),
      integer("micro_batch", "recipe", "sequences", 1, 1 << 16, "micro-batch (b)",
              PE_INT(recipe.micro_batch)),
      integer("global_batch", "batch", "sequences", 1, 1 << 24,
              "global batch (B); rounded up to whole micro-batches per replica",
              PE_INT(batch.global_batch)),
      number("train_tokens", "economics", "tokens", 0, 1e16,
             "token budget for the time to train; 0: not asked", PE_REAL(economics.train_tokens)),
      number("price_per_gpu_hour", "economics", "USD/GPU-hour", 0, 1e4,
             "what one GPU-hour costs; 2.0 is a round cloud figure, set your own",
             PE_REAL(economics.price_per_gpu_hour)),
      number("capacity_factor", "recipe", "", 0, 64,
             "tokens an expert takes, as a multiple of an even share; 0: dropless",
             PE_REAL(recipe.capacity_factor)),
      number("moe_load_imbalance", "recipe", "", 1, 64,
             "the busiest expert's tokens over an even share, dropless; 1.04: aux-loss-free "
             "routing (Wang et al. 2024), 1: forced balance",
             PE_REAL(recipe.moe_load_imbalance)),

      text(
          "precision", T::kPreset, "recipe", "a preset, or an object of the precision.* bytes",
          precisions, [](const Scenario& s) { return s.recipe.precision.name; }, pick_precision),
      detail("precision", number("precision.weight", "recipe", "B/param", 0, 16, "weight bytes",
                                 PE_REAL(recipe.precision.weight_bytes))),
      detail("precision", number("precision.grad", "recipe", "B/param", 0, 16, "gradient bytes",
                                 PE_REAL(recipe.precision.grad_bytes))),
      detail("precision", number("precision.master", "recipe", "B/param", 0, 16,
                                 "master copy bytes", PE_REAL(recipe.precision.master_bytes))),
      detail("precision",
             number("precision.adam_m", "recipe", "B/param", 0, 16, "Adam first moment bytes",
                    PE_REAL(recipe.precision.adam_m_bytes))),
      detail("precision",
             number("precision.adam_v", "recipe", "B/param", 0, 16, "Adam second moment bytes",
                    PE_REAL(recipe.precision.adam_v_bytes))),
      detail("precision", boolean("precision.fp8", "recipe",
                                  "GEMMs in FP8 (Transformer Engine), their inputs cached in FP8",
                                  PE_BOOL(recipe.precision.fp8))),
      detail("precision",
             boolean("precision.fp4", "recipe",
                     "GEMMs in NVFP4 (Transformer Engine, Blackwell); attention and the output "
                     "layer in BF16",
                     PE_BOOL(recipe.precision.fp4))),
      number(
          "bytes_per_param", "recipe", "B/param", 0, 0,
          "total bytes per parameter without precision: 2 + 2 + the rest split over the "
          "three optimizer states",
          [](const Scenario& s) { return s.recipe.precision.total_bytes(); }, nullptr),
      integer("zero_stage", "recipe", "", 0, 3, "ZeRO stage over the DP group",
              PE_INT(recipe.zero_stage)),
      integer(
          "fsdp_prefetch", "recipe", "layers", 0, 16,
          "ZeRO-3: layers whose weights are gathered ahead of the one computing (FSDP prefetch)",
          PE_INT(recipe.fsdp_prefetch)),
      choice("recompute", "recipe", {"none", "selective", "full"},
             "activation recomputation: none, selective (recompute_modules) or full",
             PE_ENUM(recipe.recompute, Recompute)),
      subset("recompute_modules", "recipe",
             {"core_attn", "moe_act", "layernorm", "mla_up_proj", "mlp", "moe", "shared_experts",
              "every_other_matmul"},
             "what selective recomputation re-runs (Megatron-Core's modules; every_other_matmul: "
             "torchtitan's per-op policy, every other matmul's output kept)",
             PE_INT(recipe.recompute_modules)),
      integer("recompute_layers", "recipe", "layers", 0, 10000,
              "with full: layers per stage (block) or per chunk (uniform); 0: every layer",
              PE_INT(recipe.recompute_layers)),
      choice("recompute_method", "recipe", {"uniform", "block"},
             "uniform: every layer, an input kept per chunk; block: the first layers of a stage",
             PE_ENUM(recipe.recompute_method, RecomputeMethod)),
      integer("offload_layers", "recipe", "layers", 0, 10000,
              "layers per stage whose activations wait in host memory",
              PE_INT(recipe.offload_layers)),
      boolean("sequence_parallel", "recipe", "sequence parallelism (with TP)",
              PE_BOOL(recipe.sequence_parallel)),
      choice("memory_model", "recipe", {"book", "full"},
             "book: N/(TP·PP) weights + optimizer; full: whole layers per stage, activations",
             PE_ENUM(recipe.memory_model, MemoryModel)),

      text(
          "gpu", T::kPreset, "gpu", "a GPU preset", gpus,
          [](const Scenario& s) { return s.gpu.name; }, pick_gpu),
      detail("gpu", number("gpu_memory_gb", "gpu", "GB", 0, 1e5, "memory per GPU (GB = 1e9 bytes)",
                           PE_REAL(gpu.memory_gb), /*lo_exclusive=*/true)),
      detail("gpu", number("gpu_peak_tflops", "gpu", "TFLOP/s", 0.001, 1e6, "dense bf16 peak",
                           PE_REAL(gpu.peak_tflops))),
      detail("gpu", number("gpu_fp8_tflops", "gpu", "TFLOP/s", 0, 1e6, "dense FP8 peak; 0: none",
                           PE_REAL(gpu.fp8_tflops))),
      detail("gpu", number("gpu_fp4_tflops", "gpu", "TFLOP/s", 0, 1e6,
                           "dense FP4 peak (NVFP4); 0: none", PE_REAL(gpu.fp4_tflops))),
      detail("gpu", number("nvlink_gb_s", "gpu", "GB/s", 0.001, 1e5, "NVLink per GPU per direction",
                           PE_REAL(gpu.nvlink_gb_s))),
      // The system's NVLink reach (presets.cpp): overriding it keeps the GPU's name.
      tuning("gpu", integer("nvlink_domain_gpus", "gpu", "GPUs", 0, 16384,
                            "GPUs per NVLink domain, a multiple of gpus_per_node; 0: one node; "
                            "absent: the GPU preset's (GB200-NVL72, GB300-NVL72 72)",
                            PE_INT(gpu.nvlink_domain_gpus))),
      detail("gpu", number("hbm_gb_s", "gpu", "GB/s", 0.001, 1e6,
                           "memory bandwidth (elementwise kernels, optimizer step)",
                           PE_REAL(gpu.hbm_gb_s))),
      // The GPU's fleet network (presets.cpp cites each system): overriding it keeps the GPU's
      // name, as a fleet with another network still has that GPU.
      tuning("gpu", number("network_gb_s", "gpu", "GB/s", 0.001, 1e5,
                           "network per GPU per direction; absent: the GPU preset's fleet (DGX "
                           "A100 HDR 200 Gb/s = 25; DGX H100, H200, B200 400 Gb/s = 50)",
                           PE_REAL(gpu.network_gb_s))),
      tuning("gpu", number("host_link_gb_s", "gpu", "GB/s", 0.001, 1e5,
                           "GPU to host memory per direction (PCIe, NVLink-C2C)",
                           PE_REAL(gpu.host_link_gb_s))),
      // The GPU's one calibrated number (presets.cpp): overriding it keeps the GPU's name.
      tuning("gpu", number("efficiency", "gpu", "", 0.001, 1,
                           "fraction of dense peak the matmuls reach; absent: the GPU preset's "
                           "calibrated value",
                           PE_REAL(gpu.matmul_efficiency))),
      // The links' shares NCCL reaches (scenario.h cites them); a calibration refits them.
      tuning("gpu", number("nvlink_efficiency", "gpu", "", 0.001, 1,
                           "share of NVLink's rate NCCL's collectives reach (bus bandwidth); "
                           "absent: the GPU preset's",
                           PE_REAL(gpu.nvlink_efficiency))),
      tuning("gpu", number("network_efficiency", "gpu", "", 0.001, 1,
                           "share of the network's rate NCCL's collectives reach; absent: the "
                           "GPU preset's",
                           PE_REAL(gpu.network_efficiency))),
      tuning("gpu", number("bubble_paid", "gpu", "", 0.1, 2,
                           "share of the pipeline schedule's bubble the fleet's runs pay; 1: all "
                           "of it, as modelled; a calibration from two runs refits it",
                           PE_REAL(gpu.bubble_paid))),
      boolean("overlap_grad_reduce", "recipe",
              "hide the DP gradient reduction behind the backward (Megatron --overlap-grad-reduce)",
              PE_BOOL(recipe.overlap_grad_reduce)),
      boolean("overlap_param_gather", "recipe",
              "hide the DP weight all-gather behind the forward (--overlap-param-gather)",
              PE_BOOL(recipe.overlap_param_gather)),
      boolean("tp_comm_overlap", "recipe",
              "hide TP collectives behind the matmuls (--tp-comm-overlap)",
              PE_BOOL(recipe.tp_comm_overlap)),
      boolean("pp_scatter_gather", "recipe",
              "pipeline sends split over the TP ranks without sequence parallelism (Megatron-LM "
              "2021-22)",
              PE_BOOL(recipe.pp_scatter_gather)),
      boolean("flash_attention", "recipe",
              "fused attention: no s x s scores stored or moved (Megatron-Core's default)",
              PE_BOOL(recipe.flash_attention)),
      choice("cross_entropy", "recipe", {"unfused", "te"},
             "the loss: unfused (fp32 log-probabilities) or Transformer Engine's (BF16 logits, "
             "their gradient in place)",
             PE_ENUM(recipe.cross_entropy, CrossEntropy)),
      number("overhead_gb", "recipe", "GB", 0, 1e4,
             "CUDA context, NCCL buffers and allocator reserve per GPU (full memory model)",
             PE_REAL(recipe.overhead_gb)),

      choice(
          "schedule", "recipe", {"1f1b", "interleaved", "zb_h1", "zb_v", "dualpipe", "dualpipe_v"},
          "pipeline schedule: 1F1B, interleaved, zero bubble (ZB-H1; ZB-V, 2 chunks per GPU in a "
          "V), DeepSeek's DualPipe (2 copies of the weights) or DualPipeV (a V)",
          PE_ENUM(recipe.schedule, Schedule)),
      integer("virtual_stages", "recipe", "chunks per GPU", 1, 128,
              "model chunks per GPU with the interleaved schedule (v); 2 when absent",
              PE_INT(recipe.virtual_stages)),
      integer("first_stage_layers", "recipe", "layers", 0, 10000,
              "layers on the first pipeline stage (Megatron-Core uneven split); 0: even",
              PE_INT(recipe.first_stage_layers)),
      integer("last_stage_layers", "recipe", "layers", 0, 10000,
              "layers on the last pipeline stage; 0: even", PE_INT(recipe.last_stage_layers)),
      boolean("expert_comm_overlap", "recipe",
              "hide the expert all-to-alls behind another micro-batch's compute",
              PE_BOOL(recipe.expert_comm_overlap)),

      // One measured run on the user's fleet (calibrate.h): its figures refit the efficiencies
      // and the memory overhead above. 0: not measured.
      group_of("calibration", "calibration",
               "one measured run on your fleet, which the model's constants are refitted to"),
      text(
          "calibration.name", T::kString, "calibration",
          "how the report names the run, beside its GPUs: \"our cluster, 2026-11-28\"", {},
          [](const Scenario& s) { return s.calibration.name; },
          [](Scenario& s, const std::string& v) {
            s.calibration.name = v;
            return true;
          }),
      make("calibration.scenario", T::kScenario, "calibration", "",
           "the measured run's scenario: these same fields, on this scenario's GPU, with no "
           "calibration of its own"),
      number("calibration.step_time_s", "calibration", "s", 0, 1e6,
             "measured time per step; this or tokens_per_s_per_gpu is required",
             PE_REAL(calibration.step_time_s)),
      number("calibration.tokens_per_s_per_gpu", "calibration", "tokens/s", 0, 1e7,
             "measured tokens per second per GPU (torchtitan's tps), when no step time is "
             "given: the step is the run's tokens per step / (GPUs x this)",
             PE_REAL(calibration.tokens_per_s_per_gpu)),
      number("calibration.peak_memory_gb", "calibration", "GB", 0, 1e5,
             "measured peak memory on the busiest GPU (max allocated); 0: not measured",
             PE_REAL(calibration.peak_memory_gb)),
      number("calibration.tflops_per_gpu", "calibration", "TFLOP/s", 0, 1e6,
             "measured model TFLOP/s per GPU, checked against the model's; 0: not measured",
             PE_REAL(calibration.tflops_per_gpu)),
      number("calibration.nvlink_bus_gb_s", "calibration", "GB/s", 0, 1e5,
             "nccl-tests all_reduce_perf bus bandwidth inside a node; 0: not measured",
             PE_REAL(calibration.nvlink_bus_gb_s)),
      number("calibration.network_bus_gb_s", "calibration", "GB/s", 0, 1e5,
             "nccl-tests all_reduce_perf bus bandwidth across nodes, per GPU; 0: not measured",
             PE_REAL(calibration.network_bus_gb_s)),
      make("calibration.second_scenario", T::kScenario, "calibration", "",
           "a second measured run of the same fleet and GPU, another layout whose pipeline "
           "bubble differs: with the first it fits bubble_paid beside the matmul efficiency"),
      number("calibration.second_step_time_s", "calibration", "s", 0, 1e6,
             "the second run's measured time per step; required with its scenario",
             PE_REAL(calibration.second_step_time_s)),

      // Failures, checkpoints and restarts (goodput.h); the rates' defaults are Llama 3's.
      group_of("reliability", "economics",
               "what interrupts the run and what a restart costs: the report's goodput"),
      failure_rate("reliability.gpu_failures_per_million_gpu_hours",
                   "GPU faults (Llama 3: 268 of 419 interruptions in 21.2 million H100-hours)",
                   PE_REAL(economics.reliability.gpu_failures_per_million_gpu_hours)),
      failure_rate("reliability.host_failures_per_million_gpu_hours",
                   "host faults: unplanned maintenance, NICs, SSDs, power (Llama 3: 53)",
                   PE_REAL(economics.reliability.host_failures_per_million_gpu_hours)),
      failure_rate("reliability.network_failures_per_million_gpu_hours",
                   "network faults: switches and cables (Llama 3: 35)",
                   PE_REAL(economics.reliability.network_failures_per_million_gpu_hours)),
      failure_rate("reliability.software_failures_per_million_gpu_hours",
                   "software: bugs, dependencies, NCCL watchdog timeouts (Llama 3: 63)",
                   PE_REAL(economics.reliability.software_failures_per_million_gpu_hours)),
      number("reliability.storage_gb_s", "economics", "GB/s", 0.001, 1e6,
             "checkpoint storage bandwidth for the whole job, written or read",
             PE_REAL(economics.reliability.storage_gb_s)),
      boolean("reliability.async_checkpoint", "economics",
              "training waits only for the copy to host memory while the checkpoint is written "
              "(PyTorch DCP async_save, Megatron-Core async_save)",
              PE_BOOL(economics.reliability.async_checkpoint)),
      number("reliability.restart_s", "economics", "s", 0, 1e6,
             "a failure's detection, rescheduling and start again, the reload not counted",
             PE_REAL(economics.reliability.restart_s)),
      integer("reliability.hot_spares", "economics", "GPUs", 0, 1 << 20,
              "GPUs held idle for restarts, paid for", PE_INT(economics.reliability.hot_spares)),
      number("reliability.checkpoint_interval_s", "economics", "s", 0, 1e7,
             "time between checkpoints; 0: the one that maximises the effective time",
             PE_REAL(economics.reliability.checkpoint_interval_s)),
  };
  auto row = [&f](const char* key) -> Field& {
    return *std::find_if(f.begin(), f.end(),
                         [key](const Field& x) { return std::string(x.key) == key; });
  };
  row("virtual_stages").inert = [](const Scenario& s) {
    return s.recipe.schedule != Schedule::kInterleaved;
  };
  row("virtual_stages").inert_reason = "it applies only to the interleaved schedule";
  row("model.name").max = 64;
  row("calibration.name").max = 64;
  // Context parallelism is on when its seam is, or an explicit degree asks for it.
  row("context_parallel").inert = [](const Scenario& s) {
    return !s.recipe.seams.context && !(s.recipe.degrees && s.recipe.degrees->cp > 1);
  };
  row("context_parallel").inert_reason = "it applies only with context parallelism";
  // Mixture-of-experts settings mean nothing for a dense model; seams.expert is inert only
  // when on (off is the dense model's own state).
  const auto dense = [](const Scenario& s) { return !s.model.moe(); };
  for (const char* key : {"model.experts_per_token", "model.moe_ffn_hidden", "model.shared_experts",
                          "model.dense_layers", "expert_tp", "capacity_factor",
                          "moe_load_imbalance", "expert_comm_overlap"}) {
    row(key).inert = dense;
    row(key).inert_reason = "it applies only to mixture-of-experts models (model.experts > 0)";
  }
  row("moe_load_imbalance").inert = [](const Scenario& s) {
    return !s.model.moe() || s.recipe.capacity_factor > 0;
  };
  row("moe_load_imbalance").inert_reason =
      "it applies only to dropless mixtures of experts (capacity_factor 0)";
  row("recompute_modules").inert = [](const Scenario& s) {
    return s.recipe.recompute != Recompute::kSelective;
  };
  row("recompute_modules").inert_reason = "recompute is not selective";
  row("fsdp_prefetch").inert = [](const Scenario& s) { return s.recipe.zero_stage != 3; };
  row("fsdp_prefetch").inert_reason = "it applies only with zero_stage 3";
  row("recompute_layers").inert = [](const Scenario& s) {
    return s.recipe.recompute != Recompute::kFull;
  };
  row("recompute_layers").inert_reason = "recompute is not full";
  row("recompute_method").inert = [](const Scenario& s) {
    return s.recipe.recompute != Recompute::kFull || s.recipe.recompute_layers == 0;
  };
  row("recompute_method").inert_reason = "it needs full recompute_layers";
  for (Field& field : f) {
    if (std::string(field.key).rfind("calibration.", 0) != 0) continue;
    field.inert = [](const Scenario& s) { return !s.calibration.given(); };
    field.inert_reason = "it applies only with calibration.scenario";
  }
  row("seams.expert").inert = [](const Scenario& s) {
    return s.recipe.seams.expert && !s.model.moe();
  };
  row("seams.expert").inert_reason =
      "the model is dense (model.experts is 0): there are no experts to split";
  return f;
}

#undef PE_INT
#undef PE_REAL
#undef PE_BOOL
#undef PE_ENUM
#undef PE_DEGREE

const char* type_name(FieldType t) {
  switch (t) {
    case FieldType::kInteger:
      return "integer";
    case FieldType::kNumber:
      return "number";
    case FieldType::kBoolean:
      return "boolean";
    case FieldType::kEnum:
      return "enum";
    case FieldType::kString:
      return "string";
    case FieldType::kPreset:
      return "preset";
    case FieldType::kObject:
      return "object";
    case FieldType::kOrder:
      return "order";
    case FieldType::kSet:
      return "set";
    case FieldType::kScenario:
      return "scenario";
  }
  return "";
}

// Integers as integers, so 16 reads "16", not "16.0".
json number_json(FieldType t, double v) {
  if (t == FieldType::kInteger) return static_cast<long long>(v);
  return v;
}

}  // namespace

const std::vector<Field>& fields() {
  static const std::vector<Field> table = make_fields();
  return table;
}

const Field* find_field(std::string_view key) {
  for (const Field& f : fields()) {
    if (key == f.key) return &f;
  }
  return nullptr;
}

std::vector<const Field*> details_of(std::string_view preset) {
  std::vector<const Field*> out;
  for (const Field& f : fields()) {
    if (f.detail_of && preset == f.detail_of) out.push_back(&f);
  }
  return out;
}

Scenario with_preset(const Field& preset, const std::string& name) {
  Scenario s;
  if (preset.set_text) preset.set_text(s, name);
  return s;
}

json field_value(const Field& f, const Scenario& s) {
  if (f.type == FieldType::kSet) {
    const unsigned bits = static_cast<unsigned>(f.get(s));
    json names = json::array();
    for (size_t i = 0; i < f.choices.size(); ++i) {
      if (bits & (1u << i)) names.push_back(f.choices[i]);
    }
    return names;
  }
  if (f.get) {
    const double v = f.get(s);
    if (f.type == FieldType::kBoolean) return v != 0;
    if (f.type == FieldType::kEnum) return f.choices[static_cast<size_t>(v)];
    return number_json(f.type, v);
  }
  if (f.get_text) return f.get_text(s);
  return nullptr;  // groups: their fields carry the values
}

json schema_json() {
  const Scenario defaults;
  json out = json::array();
  for (const Field& f : fields()) {
    json row = {{"key", f.key}, {"type", type_name(f.type)}, {"group", f.group}};
    row["default"] = field_value(f, defaults);
    if (f.type == FieldType::kInteger || f.type == FieldType::kNumber) {
      if (f.max > f.min) {
        row["min"] = number_json(f.type, f.min);
        row["max"] = number_json(f.type, f.max);
      }
      if (f.min_exclusive) row["min_exclusive"] = true;
    }
    if (f.type == FieldType::kString) row["max_chars"] = static_cast<int>(f.max);
    if (!f.choices.empty()) row["choices"] = f.choices;
    row["unit"] = f.unit;
    row["doc"] = f.doc;
    if (f.detail_of) row["detail_of"] = f.detail_of;
    if (f.tunes_preset) row["tunes_preset"] = true;
    // What choosing each preset sets: the page fills a "custom" preset's fields from it.
    if (const auto details = details_of(f.key); !details.empty()) {
      json sets = json::object();
      for (const std::string& name : f.choices) {
        const Scenario preset = with_preset(f, name);
        json values = json::object();
        for (const Field* d : details) values[d->key] = field_value(*d, preset);
        sets[name] = values;
      }
      row["details"] = sets;
    }
    out.push_back(row);
  }
  return {{"fields", out}};
}

std::string schema_markdown() {
  auto allowed = [](const Field& f, const json& row) -> std::string {
    if (row.contains("choices") && f.type != FieldType::kOrder && f.type != FieldType::kSet) {
      std::string out;
      for (const json& c : row["choices"]) out += (out.empty() ? "" : ", ") + c.dump();
      return out;
    }
    if (row.contains("min")) {
      return std::string(f.min_exclusive ? "more than " : "") + row["min"].dump() + " to " +
             row["max"].dump();
    }
    if (row.contains("max_chars")) return "up to " + row["max_chars"].dump() + " characters";
    if (f.type == FieldType::kOrder) return "a permutation of " + row["choices"].dump();
    if (f.type == FieldType::kSet) return "a list of " + row["choices"].dump();
    return f.type == FieldType::kBoolean ? "true, false" : "";
  };
  std::string md = "| key | type | default | allowed | unit | meaning |\n";
  md += "| --- | --- | --- | --- | --- | --- |\n";
  const json rows = schema_json()["fields"];
  for (size_t i = 0; i < rows.size(); ++i) {
    const json& row = rows[i];
    md += "| `" + row["key"].get<std::string>() + "` | " + row["type"].get<std::string>() + " | " +
          (row["default"].is_null() ? "" : "`" + row["default"].dump() + "`") + " | " +
          allowed(fields()[i], row) + " | " + row["unit"].get<std::string>() + " | " +
          row["doc"].get<std::string>() + " |\n";
  }
  return md;
}

}  // namespace pe
