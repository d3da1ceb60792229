// HDF5's C++ exceptions do not derive from std::exception, so a command's error boundary cannot catch them
// by type without HDF5's headers. This names one when it is one (a full disk while streaming a result, say).
#pragma once

#include <exception>
#include <optional>
#include <string>

namespace fleetwatt::results {

/// The HDF5 error's function and detail when `e` holds an H5::Exception; nothing otherwise.
[[nodiscard]] std::optional<std::string> hdf5_error_text(const std::exception_ptr& e);

}  // namespace fleetwatt::results
