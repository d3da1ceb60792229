// One shape for every pluggable kind (predictors, scheduling and placement policies, fabric kinds, trace
// formats, cooling kinds, and what comes next): an entry is a name, a line of description, the declared
// parameters (name, type, default, unit, doc) and a factory; a registry holds its entries in the order
// `fleetwatt list` prints them and finds one by name, an unknown name being a ConfigError at the scenario's
// key that lists the known ones. Built-ins are added by explicit calls: static self-registration is dropped
// by static libraries.
#pragma once

#include <fmt/format.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "fleetwatt/core/assert.hpp"
#include "fleetwatt/core/input_error.hpp"
#include "fleetwatt/core/param_set.hpp"

namespace fleetwatt::core {

template <class Factory>
struct RegistryEntry {
  std::string name;
  std::string description;
  ParamSpecs params;  ///< what its scenario section may hold; every other key is an error
  Factory make;       ///< builds it (its parameters already checked against `params`)
};

template <class Factory>
class Registry {
 public:
  using Entry = RegistryEntry<Factory>;

  /// `what` names one entry in messages ("predictor", "policy").
  explicit Registry(std::string what, std::vector<Entry> entries = {}) : what_(std::move(what)) {
    for (auto& e : entries) add(std::move(e));
  }

  /// Adds an entry; two of one name are a programming error.
  void add(Entry entry) {
    FLEETWATT_ASSERT(find(entry.name) == nullptr, fmt::format("{} '{}' registered twice", what_, entry.name));
    entries_.push_back(std::move(entry));
  }

  [[nodiscard]] const std::vector<Entry>& entries() const noexcept { return entries_; }
  [[nodiscard]] auto begin() const noexcept { return entries_.begin(); }
  [[nodiscard]] auto end() const noexcept { return entries_.end(); }

  /// The entry named `name`, or nullptr.
  [[nodiscard]] const Entry* find(std::string_view name) const noexcept {
    for (const auto& e : entries_)
      if (e.name == name) return &e;
    return nullptr;
  }

  /// The known names, in order, comma-separated (for messages).
  [[nodiscard]] std::string names() const {
    std::vector<std::string_view> names;
    names.reserve(entries_.size());
    for (const auto& e : entries_) names.push_back(e.name);
    return fmt::format("{}", fmt::join(names, ", "));
  }

  /// What a name no entry has is told: "unknown WHAT 'NAME' (known: ...)".
  [[nodiscard]] std::string unknown(std::string_view name) const {
    return fmt::format("unknown {} '{}' (known: {})", what_, name, names());
  }

  /// The entry named `name`; otherwise a ConfigError at `where` and `key` saying unknown(name).
  [[nodiscard]] const Entry& at(std::string_view name, const SourceLocation& where,
                                const std::string& key) const {
    if (const auto* e = find(name)) return *e;
    throw ConfigError(where, key, unknown(name));
  }

 private:
  std::string what_;
  std::vector<Entry> entries_;
};

}  // namespace fleetwatt::core
