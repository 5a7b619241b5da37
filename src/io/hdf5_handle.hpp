// Owns one HDF5 identifier (file, dataset, type, dataspace, property list, attribute) and closes
// it when the scope ends, so no error path leaks an open file. A negative id means the HDF5 call
// failed: that is reported as an InputError with the caller's message (a bad or foreign file).
#pragma once

#include <hdf5.h>

#include <algorithm>
#include <cstddef>
#include <string>

#include "core/errors.hpp"

namespace kapla::io {

class Hdf5Handle {
 public:
  Hdf5Handle(hid_t id, herr_t (*close)(hid_t), const std::string& error) : id_(id), close_(close) {
    if (id_ < 0) throw InputError(error);
  }
  ~Hdf5Handle() {
    if (id_ >= 0) close_(id_);
  }
  Hdf5Handle(const Hdf5Handle&) = delete;
  Hdf5Handle& operator=(const Hdf5Handle&) = delete;
  hid_t get() const { return id_; }

 private:
  hid_t id_;
  herr_t (*close_)(hid_t);
};

/// A new dataset transfer property list (negative on failure; the caller owns it) whose
/// type-conversion buffer fits a table of `bytes`, at most HDF5's default 1 MiB. The default
/// buffer is allocated zeroed on every H5Dread and H5Dwrite that converts (variable-length
/// strings always do): reading 563 one-tuple part files spent most of its time clearing them.
inline hid_t transfer_plist(std::size_t bytes) {
  const hid_t dxpl = H5Pcreate(H5P_DATASET_XFER);
  const std::size_t size = std::clamp<std::size_t>(bytes, 4096, std::size_t{1} << 20);
  if (dxpl >= 0 && H5Pset_buffer(dxpl, size, nullptr, nullptr) < 0) {
    H5Pclose(dxpl);
    return -1;
  }
  return dxpl;
}

}  // namespace kapla::io
