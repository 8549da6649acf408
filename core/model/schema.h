// The scenario's fields, declared once. Each row says what a key is (type, default, range or
// allowed values, unit, group, one line of doc) and how it reaches the Scenario struct. The
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
  kEnum,    // one of `choices`
  kString,  // free text of at most `max` characters
  kPreset,  // a preset's name (model, gpu, precision); model and precision also take an object
  kObject,  // a group of fields (seams, degrees), read through their own rows
  kOrder,   // a permutation of `choices`, comma-separated: "tp,pp,dp"
};

struct Field {
  const char* key;  // the dotted path in the scenario JSON: "gpus", "model.layers"
  FieldType type;
  const char* group;                 // fleet | model | hardware | memory | schedule | run
  const char* unit;                  // "" when the value has none
  const char* doc;                   // one line
  double min = 0, max = 0;           // integer and number: allowed range, inclusive
  bool min_exclusive = false;        // "more than min"
  std::vector<std::string> choices;  // enum values and preset names, in order
  // Numbers, booleans and enums (as their index) read and written as doubles; nullptr where
  // the reader resolves the field itself (presets, text, objects, bytes_per_param).
  double (*get)(const Scenario&) = nullptr;
  void (*set)(Scenario&, double) = nullptr;
  // The field changes nothing in this scenario (virtual_stages with 1F1B): a given value is
  // kept with a warning, and the echo leaves it out. nullptr: it always applies.
  bool (*inert)(const Scenario&) = nullptr;
  const char* inert_reason = "";  // "it applies only to the interleaved schedule"
};

// Every field, in the order the reader applies them (a preset before the fields that
// override it).
const std::vector<Field>& fields();
const Field* find_field(std::string_view key);

// The value a field takes in `s`, as the JSON the echo and the schema write.
Json field_value(const Field& f, const Scenario& s);

// {"fields": [{"key", "type", "default", "min", "max", "choices", "unit", "group", "doc"}]}.
Json schema_json();

// core/README.md's scenario table, generated from the rows.
std::string schema_markdown();

}  // namespace pe
