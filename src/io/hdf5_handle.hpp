// Owns one HDF5 identifier (file, dataset, type, dataspace, property list, attribute) and closes
// it when the scope ends, so no error path leaks an open file. A negative id means the HDF5 call
// failed: that is reported as an InputError with the caller's message (a bad or foreign file).
#pragma once

#include <hdf5.h>

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

}  // namespace kapla::io
