// Helpers shared by the tests: where the shared data and the fleetwatt binary are, temporary folders,
// running the command line.
#pragma once

#include <filesystem>
#include <optional>
#include <string>

namespace fleetwatt::test {

/// Whether the tests run under AddressSanitizer: it reserves terabytes of address space for its shadow and
/// inflates the resident set, so address-space limits (`ulimit -v`) and RSS bounds are left out there.
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kAsan = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kAsan = true;
#else
inline constexpr bool kAsan = false;
#endif
#else
inline constexpr bool kAsan = false;
#endif

/// ../shared/data beside the checkout, or nothing when it is absent (a user's clone) or the environment's
/// FLEETWATT_TEST_NO_SHARED_DATA is 1.
[[nodiscard]] std::optional<std::filesystem::path> shared_data();
/// The source tree root.
[[nodiscard]] std::filesystem::path source_dir();
/// The built fleetwatt executable.
[[nodiscard]] std::filesystem::path fleetwatt_binary();
/// The same as a command line's first word (run_command(fleetwatt_command() + " run ...")).
[[nodiscard]] inline std::string fleetwatt_command() {
  return fleetwatt_binary().string();
}

/// Scenario text of a small generated workload: ViT jobs of 1, 4 or 8 GPUs (1-5 epochs, 10,000-30,000
/// samples) on 4 servers of 4 GPUs, seed 11. `facility` is the text between the [facility] header (line 5)
/// and [workload]: the facility's keys and any tables after them ([[facility.battery]], [grid]).
[[nodiscard]] std::string small_vit_scenario(const std::string& facility, int horizon_s, int rate_per_hour,
                                             int facility_interval_s);

/// A fresh temporary folder, removed when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  [[nodiscard]] std::filesystem::path operator/(const std::string& name) const { return path_ / name; }
  /// Writes text to a file in the folder and returns its path.
  std::filesystem::path write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

struct CommandResult {
  int exit_code = -1;
  std::string out;  ///< stdout
  std::string err;  ///< stderr
};

/// Runs a shell command line, capturing stdout and stderr.
[[nodiscard]] CommandResult run_command(const std::string& command_line);

/// The number after the first `"name":` at or after `from` in a JSON text (a `--json` answer); throws when
/// the key is absent.
double json_number(const std::string& json, const std::string& name, std::size_t from = 0);

}  // namespace fleetwatt::test

/// Skips the current test (with a message) when ../shared/data is absent.
#define FLEETWATT_REQUIRE_SHARED_DATA(var)                                              \
  const auto var##_opt = ::fleetwatt::test::shared_data();                              \
  if (!var##_opt) {                                                                     \
    WARN("skipped: ../shared/data is absent (public measurements are not in a clone)"); \
    return;                                                                             \
  }                                                                                     \
  const std::filesystem::path& var = *var##_opt
