// Error types: InputError is the user's fault (bad file, impossible value; the CLI prints it
// on one line and exits 1), InternalError is ours (a broken invariant; exit 3).
#pragma once

#include <stdexcept>
#include <string>

namespace kapla {

/// Bad input. The message names the thing, the field and the reason, e.g.
/// "layer 'conv2': nifm: 64 does not match the sum of its predecessors' nofm (96)".
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// A broken internal invariant: a bug in kapla.
class InternalError : public std::logic_error {
 public:
  using std::logic_error::logic_error;
};

/// Checks an invariant that must hold whatever the input; cheap enough to stay on in release.
#define KAPLA_ASSERT(cond, msg)                                                                    \
  do {                                                                                             \
    if (!(cond))                                                                                   \
      throw ::kapla::InternalError(std::string(__FILE__) + ":" + std::to_string(__LINE__) + ": " + \
                                   (msg));                                                         \
  } while (false)

}  // namespace kapla
