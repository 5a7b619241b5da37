// A non-owning reference to a callable, for hot callbacks: std::function copies a lambda with
// more than two captures to the heap on every construction, and K's greedy builds one per
// fill (about 3 % of K's time in malloc alone). The callable must outlive the reference, as a
// lambda passed straight to a function parameter does.
#pragma once

#include <memory>
#include <type_traits>
#include <utility>

namespace kapla {

template <class Signature>
class FunctionRef;

template <class R, class... Args>
class FunctionRef<R(Args...)> {
 public:
  template <class F>
  requires(!std::is_same_v<std::remove_cvref_t<F>, FunctionRef> &&
           std::is_invocable_r_v<R, F&, Args...>)
      FunctionRef(F&& f)  // NOLINT(google-explicit-constructor): used like std::function
      : object_(const_cast<void*>(static_cast<const void*>(std::addressof(f)))),
        call_([](void* o, Args... args) -> R {
          return (*static_cast<std::remove_reference_t<F>*>(o))(std::forward<Args>(args)...);
        }) {}

  R operator()(Args... args) const { return call_(object_, std::forward<Args>(args)...); }

 private:
  void* object_;
  R (*call_)(void*, Args...);
};

}  // namespace kapla
