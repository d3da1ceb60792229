// Recognising HDF5's exceptions for the command line's error boundary.
#include "fleetwatt/results/hdf5/hdf5_error.hpp"

#include <H5Cpp.h>

namespace fleetwatt::results {

std::optional<std::string> hdf5_error_text(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const H5::Exception& h5) {
    return h5.getFuncName() + ": " + h5.getDetailMsg();
  } catch (...) {
    return std::nullopt;
  }
}

}  // namespace fleetwatt::results
