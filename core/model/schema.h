// The scenario's fields, declared once. Each row says what a key is (type, default, range or
// allowed values, unit, group, one line of doc, the preset it is a detail of) and how it
// reaches the Scenario struct. The
// table drives the JSON reader (keys and types), validation (ranges), the scenario echoed in
// every report, `explore --schema`, the wasm module's schema() and so the page's controls, the
// core/README.md's scenario table and the fuzz dictionary (tests check the last two against it).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "model/scenario.h"

namespace pe {

// The core's JSON: the contract's reader and writer, and the field table's values.
using Json = nlohmann::json;

enum class FieldType {
  kInteger,  // a whole number
  kNumber,   // a finite real number
  kBoolean,
  kEnum,      // one of `choices`
  kString,    // free text of at most `max` characters
  kPreset,    // a preset's name (model, gpu, precision); model and precision also take an object
  kObject,    // a group of fields (seams, degrees), read through their own rows
  kOrder,     // a permutation of `choices`, comma-separated: "tp,pp,dp"
  kSet,       // a list of `choices`, each at most once: ["core_attn", "mlp"]; read and written as
              // a bit per choice (get, set)
  kScenario,  // a whole scenario, read and written by the contract (a calibration's run)
};

struct Field {
  const char* key;  // the dotted path in the scenario JSON: "gpus", "model.layers"
  FieldType type;
  // The page's fieldset: fleet | model (and the batch) | hardware (and its price, the
  // overlaps) | memory (and the pipeline schedule).
  const char* group;
  const char* unit;                  // "" when the value has none
  const char* doc;                   // one line
  double min = 0, max = 0;           // integer and number: allowed range, inclusive
  bool min_exclusive = false;        // "more than min"
  std::vector<std::string> choices;  // enum values (their names) and preset names, in order
  // A detail of a preset: the preset field ("model", "gpu", "precision") whose choice sets
  // it. Setting a detail away from the preset's value makes the preset "custom", unless
  // `tunes_preset`: a calibrated value (efficiency) or the fleet's (the network) a user may
  // override under the preset's name. nullptr: the field belongs to no preset.
  const char* detail_of = nullptr;
  bool tunes_preset = false;
  // Numbers, booleans and enums (as their index) read and written as doubles. A number with
  // no `set` (bytes_per_param) is read and then resolved by the reader.
  double (*get)(const Scenario&) = nullptr;
  void (*set)(Scenario&, double) = nullptr;
  // Presets, text and the order, read and written as text; set_text returns false for a
  // name it does not know (a preset) or text it cannot read (an order). nullptr elsewhere.
  std::string (*get_text)(const Scenario&) = nullptr;
  bool (*set_text)(Scenario&, const std::string&) = nullptr;
  // The field changes nothing in this scenario (virtual_stages with 1F1B): a given value is
  // kept with a warning, and the echo leaves it out. nullptr: it always applies.
  bool (*inert)(const Scenario&) = nullptr;
  const char* inert_reason = "";  // "it applies only to the interleaved schedule"
};

// Every field, in the order the reader applies them (a preset before the fields that
// override it).
const std::vector<Field>& fields();
const Field* find_field(std::string_view key);

// The details of a preset field ("model", "gpu", "precision"), in table order.
std::vector<const Field*> details_of(std::string_view preset);

// The scenario a preset's name sets: the defaults with that model, GPU or precision.
Scenario with_preset(const Field& preset, const std::string& name);

// The value a field takes in `s`, as the JSON the echo and the schema write.
Json field_value(const Field& f, const Scenario& s);

// An enum field's value as its name in the table: enum_name("recompute", Recompute::kFull).
template <class E>
const std::string& enum_name(std::string_view key, E value) {
  return find_field(key)->choices[static_cast<size_t>(value)];
}

// {"fields": [{"key", "type", "default", "min", "max", "choices", "unit", "group", "doc",
// "detail_of", "tunes_preset"}]}; a preset field also carries "details": {preset name:
// {detail key: value}}, what choosing it sets.
Json schema_json();

// core/README.md's scenario table, generated from the rows.
std::string schema_markdown();

}  // namespace pe
